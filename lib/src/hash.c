/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hash functions: CRC-32C (CPU instruction or tables), CRC-32, reflected
 * CRC-32 with any polynomial, XXH3, and the families of docs/hashing.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#include "dta/hash.h"
#include "internal.h"

#define POLY_CRC32C 0x1EDC6F41u
#define POLY_CRC32 0x04C11DB7u

/*
 * One polynomial per role, pairwise coprime over GF(2) (checked by
 * tests/test_hash.c). Entry 0 is Castagnoli's (runs on the CPU's CRC-32C
 * instruction); then IEEE 802.3, XFER, Koopman's 0xA833982B, and
 * irreducible polynomials drawn from a seeded random search.
 */
static const uint32_t dta__crc_polys[DTA_HF_COUNT] = {
	0x1EDC6F41, 0x04C11DB7, 0x000000AF, 0xA833982B, 0x63A4CD11,
	0xB7E6BC93, 0x8710891D, 0x136FF7A9, 0x89AB9B23, 0xA317BB7D,
	0x23FB41C5, 0x5B6C08D1, 0xD03A28EF, 0xA5944F99, 0xFFD21C15,
	0x54F1DE05, 0x943CC253, 0xED66AA9F, 0x0AFEC985, 0xFA1636B3,
	0x393F82D7, 0xA81AF4F1, 0xE0BB9109, 0x2D7803EB, 0x0A9C0283,
	0xF23E9399,
};

const uint32_t *dta__hash_polys(void);
const uint32_t *dta__hash_polys(void)
{
	return dta__crc_polys;
}

static uint32_t reflect32(uint32_t v)
{
	uint32_t r = 0;

	for (int i = 0; i < 32; i++, v >>= 1)
		r = (r << 1) | (v & 1);
	return r;
}

/* Slicing-by-8 tables for a reflected CRC; 8 x 256 words. */
static void build_tables(uint32_t poly, uint32_t *t)
{
	uint32_t rp = reflect32(poly);

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? rp : 0);
		t[i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int s = 1; s < 8; s++)
			t[s * 256 + i] = (t[(s - 1) * 256 + i] >> 8) ^
					 t[t[(s - 1) * 256 + i] & 0xff];
}

static uint32_t crc_tab_update(const uint32_t *t, uint32_t c, const uint8_t *p,
			       size_t n)
{
	while (n >= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				   (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
			      (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;

		c = t[7 * 256 + (lo & 0xff)] ^ t[6 * 256 + ((lo >> 8) & 0xff)] ^
		    t[5 * 256 + ((lo >> 16) & 0xff)] ^ t[4 * 256 + (lo >> 24)] ^
		    t[3 * 256 + (hi & 0xff)] ^ t[2 * 256 + ((hi >> 8) & 0xff)] ^
		    t[1 * 256 + ((hi >> 16) & 0xff)] ^ t[hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ t[(c ^ *p++) & 0xff];
	return c;
}

/* Process-wide table cache, one entry per polynomial, never freed. */
#define TAB_CACHE 64
static struct {
	uint32_t poly;
	uint32_t *tab;
} tab_cache[TAB_CACHE];
static unsigned tab_used;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;

static const uint32_t *tables_for(uint32_t poly)
{
	const uint32_t *t = NULL;

	pthread_mutex_lock(&tab_lock);
	for (unsigned i = 0; i < tab_used; i++)
		if (tab_cache[i].poly == poly)
			t = tab_cache[i].tab;
	if (!t && tab_used < TAB_CACHE) {
		uint32_t *n = malloc(8 * 256 * sizeof(*n));

		if (n) {
			build_tables(poly, n);
			tab_cache[tab_used].poly = poly;
			tab_cache[tab_used].tab = n;
			tab_used++;
			t = n;
		}
	}
	pthread_mutex_unlock(&tab_lock);
	return t;
}

/* ---- CRC-32C on the CPU instruction ---- */

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw(uint32_t c, const uint8_t *p, size_t n)
{
	uint64_t c64 = c;

	while (n >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c64 = _mm_crc32_u64(c64, v);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = _mm_crc32_u8(c, *p++);
	return c;
}

static int hw_ok(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	return ok;
}
#else
static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t n)
{
	(void)p;
	(void)n;
	return c;
}

static int hw_ok(void)
{
	return 0;
}
#endif

static uint32_t crc32c_tab[8 * 256];
static uint32_t crc32_tab[8 * 256];
static pthread_once_t std_once = PTHREAD_ONCE_INIT;

static void std_tables(void)
{
	build_tables(POLY_CRC32C, crc32c_tab);
	build_tables(POLY_CRC32, crc32_tab);
}

/* Raw register update, no inversion. */
static uint32_t crc32c_update(uint32_t reg, const void *buf, size_t len)
{
	if (hw_ok())
		return crc32c_hw(reg, buf, len);
	pthread_once(&std_once, std_tables);
	return crc_tab_update(crc32c_tab, reg, buf, len);
}

DTA_API bool dta_crc32c_hw_available(void)
{
	return hw_ok();
}

DTA_API uint32_t dta_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return ~crc32c_update(~crc, buf, len);
}

DTA_API uint32_t dta_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&std_once, std_tables);
	return ~crc_tab_update(crc32c_tab, ~crc, buf, len);
}

DTA_API uint32_t dta_crc32(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&std_once, std_tables);
	return ~crc_tab_update(crc32_tab, ~crc, buf, len);
}

/* ---- described functions ---- */

DTA_API int dta_hashfn_prepare(struct dta_hashfn *fn)
{
	if (!fn)
		return -EINVAL;
	switch (fn->kind) {
	case DTA_HASHFN_CRC32:
		fn->tab = tables_for(fn->poly);
		return fn->tab ? 0 : -ENOMEM;
	case DTA_HASHFN_XXH3:
		fn->tab = NULL;
		return 0;
	default:
		return -EINVAL;
	}
}

DTA_API uint64_t dta_hashfn_eval(const struct dta_hashfn *fn, const void *buf,
				 size_t len)
{
	if (fn->kind == DTA_HASHFN_XXH3)
		return XXH3_64bits_withSeed(buf, len, fn->seed);
	if (fn->poly == POLY_CRC32C)
		return crc32c_update(fn->init, buf, len) ^ fn->xorout;
	return crc_tab_update(fn->tab, fn->init, buf, len) ^ fn->xorout;
}

/* The prototype translator's Postcarding hop polynomials, hops 1..5. */
static const uint32_t proto_hop_polys[DTA_PROTOTYPE_HOPS] = {
	0x1e12a700u, 0x65b96595u, 0x49cf878bu, 0x36518f0du, 0x7a40a908u,
};

static uint64_t splitmix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

DTA_API int dta_hash_family_fn(int family, uint64_t seed, unsigned role,
			       struct dta_hashfn *out)
{
	uint32_t shift;

	if (!out || role >= DTA_HF_COUNT)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	shift = seed ? (uint32_t)splitmix64(seed + role) : 0;
	switch (family) {
	case DTA_HASH_CRC32C:
		out->kind = DTA_HASHFN_CRC32;
		out->poly = dta__crc_polys[role];
		out->init = 0xFFFFFFFFu ^ shift;
		out->xorout = 0xFFFFFFFFu;
		break;
	case DTA_HASH_CRC32:
		/* One polynomial, per-role init: the compatibility family.
		 * Its roles are affine shifts of each other (hashing.md). */
		out->kind = DTA_HASHFN_CRC32;
		out->poly = POLY_CRC32;
		out->init = 0xFFFFFFFFu ^ (uint32_t)splitmix64(seed + role);
		out->xorout = 0xFFFFFFFFu;
		break;
	case DTA_HASH_PROTOTYPE:
		/* Tofino HashAlgorithm_t.CRC32 for slots and checksums; the
		 * postcard hop checksums are CRCPolynomial(poly, reversed,
		 * init and xor 0xFFFFFFFF). Values are stored unencoded. */
		out->kind = DTA_HASHFN_CRC32;
		out->init = 0xFFFFFFFFu;
		out->xorout = 0xFFFFFFFFu;
		if (role < DTA_HF_VALUE) {
			out->poly = POLY_CRC32;
		} else if (role >= DTA_HF_HOP(0) &&
			   role < DTA_HF_HOP(DTA_PROTOTYPE_HOPS)) {
			out->poly = proto_hop_polys[role - DTA_HF_HOP(0)];
		} else {
			memset(out, 0, sizeof(*out));
			return role == DTA_HF_VALUE ? 0 : -DTA_E_HASHFAMILY;
		}
		break;
	case DTA_HASH_XXH3:
		out->kind = DTA_HASHFN_XXH3;
		out->seed = splitmix64(seed ^ (0x9E3779B97F4A7C15ull * (role + 1)));
		break;
	default:
		return -DTA_E_HASHFAMILY;
	}
	return dta_hashfn_prepare(out);
}

static const char *const family_names[] = {
	[DTA_HASH_CRC32C] = "crc32c",
	[DTA_HASH_CRC32] = "crc32",
	[DTA_HASH_XXH3] = "xxh3",
	[DTA_HASH_PROTOTYPE] = "prototype",
};

DTA_API const char *dta_hash_family_name(int family)
{
	if (family < DTA_HASH_CRC32C || family > DTA_HASH_PROTOTYPE)
		return NULL;
	return family_names[family];
}

DTA_API int dta_hash_family_parse(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int f = DTA_HASH_CRC32C; f <= DTA_HASH_PROTOTYPE; f++)
		if (!strcasecmp(name, family_names[f]))
			return f;
	return -DTA_E_HASHFAMILY;
}

DTA_API unsigned dta_shard(const void *key, size_t len, unsigned nshards)
{
	if (nshards <= 1)
		return 0;
	return dta_crc32c(DTA_SHARD_INIT, key, len) % nshards;
}
