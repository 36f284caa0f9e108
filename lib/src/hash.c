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
#include <immintrin.h>
#endif

#include "dta/hash.h"
#include "internal.h"

/* Hot per-key entry points start on a cache line, which keeps their rate
 * from moving with unrelated edits elsewhere in the library. */
#define HOT_ALIGN __attribute__((aligned(64)))

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

/*
 * Carry-less multiply constants for one polynomial P (docs/hashing.md,
 * "How a CRC is computed"). Everything is bit-reflected like the CRC: in a
 * 64-bit word, bit b stands for x^(63-b).
 *
 *  fold1:  x^191 mod P, x^127 mod P (as r64: the 32 bits in the high half);
 *          folds a 128-bit remainder over the next 16 bytes.
 *  fold4:  x^575 mod P, x^511 mod P; folds four of them over 64 bytes.
 *  red:    x^96 mod P (as r33: reflected and shifted left by one), and
 *          floor(x^96 / P) - x^64 (as r64): reduce a 128-bit remainder to
 *          96 bits, then Barrett's quotient.
 *  poly:   P - x^32 as r33, for Barrett's last product.
 */
struct dta_crc_tables {
	_Alignas(64) uint64_t fold1[2];
	uint64_t fold4[2];
	uint64_t red[2];
	uint64_t poly[2];
	/* The whole function by the path chosen for this CPU at prepare. */
	uint64_t (*eval)(const struct dta_crc_tables *k, uint32_t init,
			 uint32_t xorout, const uint8_t *p, size_t n);
	uint32_t p;    /* the polynomial, normal notation */
	uint8_t path;  /* enum crc_path, the same choice */
	uint32_t t[8 * 256];
};

enum crc_path {
	CRC_PATH_TABLE = 0, /* slicing-by-8, portable */
	CRC_PATH_CLMUL = 1, /* PCLMULQDQ folding and Barrett reduction */
	CRC_PATH_HW = 2,    /* the CRC-32C instruction (Castagnoli only) */
};

/* x^e mod P, normal notation. */
static uint32_t xpow_mod(unsigned e, uint32_t poly)
{
	uint64_t r = 1;

	while (e--) {
		r <<= 1;
		if (r >> 32)
			r ^= (1ull << 32) | poly;
	}
	return (uint32_t)r;
}

/* floor(x^96 / P) without its x^64 term, normal notation. */
static uint64_t barrett_mu(uint32_t poly)
{
	uint64_t r = 0, q = 0;

	for (int i = 96; i >= 0; i--) {
		r = (r << 1) | (i == 96);
		if (r >> 32) {
			r ^= (1ull << 32) | poly;
			if (i < 64)
				q |= 1ull << i;
		}
	}
	return q;
}

static uint64_t reflect64(uint64_t v)
{
	return (uint64_t)reflect32((uint32_t)v) << 32 | reflect32((uint32_t)(v >> 32));
}

static int clmul_ok(void);
static int hw_ok(void);
static uint64_t hw_eval(const struct dta_crc_tables *k, uint32_t init,
			uint32_t xorout, const uint8_t *p, size_t n);
static uint64_t clmul_eval(const struct dta_crc_tables *k, uint32_t init,
			   uint32_t xorout, const uint8_t *p, size_t n);

static uint64_t tab_eval(const struct dta_crc_tables *k, uint32_t init,
			 uint32_t xorout, const uint8_t *p, size_t n)
{
	return crc_tab_update(k->t, init, p, n) ^ xorout;
}

static void build_consts(uint32_t poly, struct dta_crc_tables *k)
{
	k->p = poly;
	k->fold1[0] = (uint64_t)reflect32(xpow_mod(191, poly)) << 32;
	k->fold1[1] = (uint64_t)reflect32(xpow_mod(127, poly)) << 32;
	k->fold4[0] = (uint64_t)reflect32(xpow_mod(575, poly)) << 32;
	k->fold4[1] = (uint64_t)reflect32(xpow_mod(511, poly)) << 32;
	k->red[0] = (uint64_t)reflect32(xpow_mod(96, poly)) << 1;
	k->red[1] = reflect64(barrett_mu(poly));
	k->poly[0] = (uint64_t)reflect32(poly) << 1;
	k->poly[1] = 0;
	build_tables(poly, k->t);
	if (poly == POLY_CRC32C && hw_ok()) {
		k->path = CRC_PATH_HW;
		k->eval = hw_eval;
	} else if (clmul_ok()) {
		k->path = CRC_PATH_CLMUL;
		k->eval = clmul_eval;
	} else {
		k->path = CRC_PATH_TABLE;
		k->eval = tab_eval;
	}
}

/* Process-wide cache, one entry per polynomial, never freed. */
#define TAB_CACHE 64
static struct {
	uint32_t poly;
	struct dta_crc_tables *tab;
} tab_cache[TAB_CACHE];
static unsigned tab_used;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct dta_crc_tables *tables_for(uint32_t poly)
{
	const struct dta_crc_tables *t = NULL;

	pthread_mutex_lock(&tab_lock);
	for (unsigned i = 0; i < tab_used; i++)
		if (tab_cache[i].poly == poly)
			t = tab_cache[i].tab;
	if (!t && tab_used < TAB_CACHE) {
		struct dta_crc_tables *n = aligned_alloc(64, sizeof(*n));

		if (n) {
			build_consts(poly, n);
			tab_cache[tab_used].poly = poly;
			tab_cache[tab_used].tab = n;
			tab_used++;
			t = n;
		}
	}
	pthread_mutex_unlock(&tab_lock);
	return t;
}

#if defined(__x86_64__)
/* What this CPU has, looked up once. */
static struct {
	int hw, clmul, z, vbmi;
} cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void cpu_probe(void)
{
	__builtin_cpu_init();
	cpu.hw = __builtin_cpu_supports("sse4.2");
	cpu.clmul = __builtin_cpu_supports("pclmul") &&
		    __builtin_cpu_supports("sse4.1");
	cpu.z = cpu.clmul && __builtin_cpu_supports("avx512f") &&
		__builtin_cpu_supports("avx512bw") &&
		__builtin_cpu_supports("avx512vl") &&
		__builtin_cpu_supports("vpclmulqdq");
	cpu.vbmi = cpu.z && __builtin_cpu_supports("avx512vbmi");
}

static int hw_ok(void)
{
	pthread_once(&cpu_once, cpu_probe);
	return cpu.hw;
}

static int clmul_ok(void)
{
	pthread_once(&cpu_once, cpu_probe);
	return cpu.clmul;
}

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* ---- CRC-32C on the CPU instruction ---- */

__attribute__((target("sse4.2"))) static inline uint32_t
crc32c_hw(uint32_t c, const uint8_t *p, size_t n)
{
	uint64_t c64 = c;

	if (DTA__LIKELY(n - 8 < 8)) { /* keys of 8..15 bytes: no loop */
		c64 = _mm_crc32_u64(c64, ld64(p));
		p += 8;
		n -= 8;
	} else {
		while (n >= 8) {
			c64 = _mm_crc32_u64(c64, ld64(p));
			p += 8;
			n -= 8;
		}
	}
	c = (uint32_t)c64;
	if (n & 4) {
		c = _mm_crc32_u32(c, ld32(p));
		p += 4;
	}
	if (n & 2) {
		uint16_t v;

		memcpy(&v, p, 2);
		c = _mm_crc32_u16(c, v);
		p += 2;
	}
	if (n & 1)
		c = _mm_crc32_u8(c, *p);
	return c;
}

__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw_call(uint32_t c, const uint8_t *p, size_t n)
{
	return crc32c_hw(c, p, n);
}

/* ---- any polynomial, carry-less multiply ---- */

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

/*
 * The CRC register of a remainder S = hi * x^32 + lo (degree < 96; @s holds
 * hi in its low word, lo in bits 64..95): S mod P by Barrett.
 */
CLMUL_TARGET static inline uint32_t
clmul_barrett(const struct dta_crc_tables *k, __m128i s)
{
	__m128i kr = _mm_load_si128((const __m128i *)k->red);
	__m128i kp = _mm_load_si128((const __m128i *)k->poly);
	__m128i q = _mm_clmulepi64_si128(s, kr, 0x10);

	q = _mm_xor_si128(s, _mm_slli_epi64(q, 1));
	q = _mm_clmulepi64_si128(q, kp, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(q, s), 2);
}

/* The CRC register of a 128-bit block @x (x^127 in bit 0 of the low word)
 * with the register already XORed in. */
CLMUL_TARGET static inline uint32_t
clmul_reduce128(const struct dta_crc_tables *k, __m128i x)
{
	__m128i kr = _mm_load_si128((const __m128i *)k->red);
	__m128i s = _mm_clmulepi64_si128(x, kr, 0x00);

	s = _mm_xor_si128(s, _mm_srli_si128(x, 8));
	return clmul_barrett(k, s);
}

/* 0..16 bytes: no loop, at most three carry-less products. */
CLMUL_TARGET static inline uint32_t
clmul_short(const struct dta_crc_tables *k, uint32_t c, const uint8_t *p,
	    size_t n)
{
	__m128i s;

	if (n > 8) {
		uint64_t lo = ld64(p) ^ c, hi = ld64(p + n - 8);
		__m128i kr = _mm_load_si128((const __m128i *)k->red);

		if (n < 12)
			hi ^= (uint64_t)c >> (8 * (n - 8));
		lo <<= 8 * (16 - n);
		s = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)lo), kr, 0x00);
		s = _mm_xor_si128(s, _mm_cvtsi64_si128((long long)hi));
	} else if (n >= 4) {
		uint64_t v = ((uint64_t)ld32(p + n - 4) << (8 * (n - 4)) | ld32(p)) ^ c;

		s = _mm_cvtsi64_si128((long long)(v << (8 * (8 - n))));
	} else if (n) {
		uint64_t v = (uint64_t)p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) |
			     (uint64_t)p[n - 1] << (8 * (n - 1));

		v = (v ^ c) << (8 * (8 - n));
		s = _mm_set_epi64x((long long)(c >> (8 * n)), (long long)v);
	} else {
		return c;
	}
	return clmul_barrett(k, s);
}

CLMUL_TARGET static inline __m128i
clmul_fold(__m128i x, __m128i k, const uint8_t *p)
{
	__m128i d = _mm_loadu_si128((const __m128i *)p);

	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
					   _mm_clmulepi64_si128(x, k, 0x11)), d);
}

/* Any length: the head (len mod 16) as a short message, then 16-byte blocks
 * folded four at a time while 64 bytes remain, then one at a time. */
CLMUL_TARGET static uint32_t
clmul_crc(const struct dta_crc_tables *k, uint32_t c, const uint8_t *p, size_t n)
{
	__m128i x, k1;
	size_t r = n & 15;

	if (n <= 16)
		return clmul_short(k, c, p, n);
	if (r) {
		c = clmul_short(k, c, p, r);
		p += r;
		n -= r;
	}
	x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p),
			  _mm_cvtsi32_si128((int)c));
	p += 16;
	n -= 16;
	k1 = _mm_load_si128((const __m128i *)k->fold1);
	if (n >= 64) {
		__m128i k4 = _mm_load_si128((const __m128i *)k->fold4);
		__m128i x1 = _mm_loadu_si128((const __m128i *)p);
		__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
		__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));

		p += 48;
		n -= 48;
		while (n >= 64) {
			x = clmul_fold(x, k4, p);
			x1 = clmul_fold(x1, k4, p + 16);
			x2 = clmul_fold(x2, k4, p + 32);
			x3 = clmul_fold(x3, k4, p + 48);
			p += 64;
			n -= 64;
		}
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k1, 0x00),
						_mm_clmulepi64_si128(x, k1, 0x11)), x1);
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k1, 0x00),
						_mm_clmulepi64_si128(x, k1, 0x11)), x2);
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k1, 0x00),
						_mm_clmulepi64_si128(x, k1, 0x11)), x3);
	}
	while (n >= 16) {
		x = clmul_fold(x, k1, p);
		p += 16;
		n -= 16;
	}
	return clmul_reduce128(k, x);
}

CLMUL_TARGET __attribute__((noinline)) static uint64_t
clmul_eval_any(const struct dta_crc_tables *k, uint32_t init, uint32_t xorout,
	       const uint8_t *p, size_t n)
{
	return clmul_crc(k, init, p, n) ^ xorout;
}

/* Whole function with init and xorout, so dta_hashfn_eval() tail-calls.
 * Keys of 9..16 bytes (the common 13 and 16) run straight through: taken
 * branches, not the products, bound a single call's rate. */
HOT_ALIGN CLMUL_TARGET static uint64_t
clmul_eval(const struct dta_crc_tables *k, uint32_t init, uint32_t xorout,
	   const uint8_t *p, size_t n)
{
	if (DTA__LIKELY(n - 9 < 8)) {
		/* Loads straight into vector registers; the register and the
		 * shift count do not depend on the key and are ready early. */
		__m128i cnt = _mm_cvtsi32_si128((int)(8 * (16 - n)));
		__m128i lo = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)p),
					   _mm_cvtsi32_si128((int)init));
		__m128i hi = _mm_xor_si128(
			_mm_loadl_epi64((const __m128i *)(p + n - 8)),
			_mm_cvtsi64_si128((long long)((uint64_t)init >> 1 >> (8 * (n - 8) - 1))));
		__m128i kr = _mm_load_si128((const __m128i *)k->red);
		__m128i s = _mm_clmulepi64_si128(_mm_sll_epi64(lo, cnt), kr, 0x00);

		return clmul_barrett(k, _mm_xor_si128(s, hi)) ^ xorout;
	}
	return clmul_eval_any(k, init, xorout, p, n);
}

HOT_ALIGN __attribute__((target("sse4.2"))) static uint64_t
hw_eval(const struct dta_crc_tables *k, uint32_t init, uint32_t xorout,
	const uint8_t *p, size_t n)
{
	(void)k;
	return crc32c_hw(init, p, n) ^ xorout;
}
#else
static int hw_ok(void)
{
	return 0;
}

static int clmul_ok(void)
{
	return 0;
}

static uint32_t crc32c_hw_call(uint32_t c, const uint8_t *p, size_t n)
{
	(void)p;
	(void)n;
	return c;
}

static uint32_t clmul_crc(const struct dta_crc_tables *k, uint32_t c,
			  const uint8_t *p, size_t n)
{
	(void)p;
	(void)n;
	(void)k;
	return c;
}

static uint64_t clmul_eval(const struct dta_crc_tables *k, uint32_t init,
			   uint32_t xorout, const uint8_t *p, size_t n)
{
	return crc_tab_update(k->t, init, p, n) ^ xorout;
}

static uint64_t hw_eval(const struct dta_crc_tables *k, uint32_t init,
			uint32_t xorout, const uint8_t *p, size_t n)
{
	return tab_eval(k, init, xorout, p, n);
}
#endif

/* The standard CRC-32 and CRC-32C, for the running API; built once. */
static struct dta_crc_tables *std_crc32c, *std_crc32;
static pthread_once_t std_once = PTHREAD_ONCE_INIT;

static void std_tables(void)
{
	static struct dta_crc_tables c, s;

	build_consts(POLY_CRC32C, &c);
	build_consts(POLY_CRC32, &s);
	std_crc32c = &c;
	std_crc32 = &s;
}

/* Raw register update by the fastest path of @k, no inversion. */
static uint32_t crc_update(const struct dta_crc_tables *k, uint32_t reg,
			   const void *buf, size_t len)
{
	switch (k->path) {
	case CRC_PATH_HW:
		return crc32c_hw_call(reg, buf, len);
	case CRC_PATH_CLMUL:
		return clmul_crc(k, reg, buf, len);
	default:
		return crc_tab_update(k->t, reg, buf, len);
	}
}

DTA_API bool dta_crc32c_hw_available(void)
{
	return hw_ok();
}

DTA_API uint32_t dta_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (hw_ok())
		return ~crc32c_hw_call(~crc, buf, len);
	pthread_once(&std_once, std_tables);
	return ~crc_update(std_crc32c, ~crc, buf, len);
}

DTA_API uint32_t dta_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&std_once, std_tables);
	return ~crc_tab_update(std_crc32c->t, ~crc, buf, len);
}

DTA_API uint32_t dta_crc32(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&std_once, std_tables);
	return ~crc_update(std_crc32, ~crc, buf, len);
}

/* Tests: one function by a chosen path (enum crc_path). */
int dta__hashfn_eval_path(const struct dta_hashfn *fn, int path,
			  const void *buf, size_t len, uint64_t *out);
int dta__hashfn_eval_path(const struct dta_hashfn *fn, int path,
			  const void *buf, size_t len, uint64_t *out)
{
	const struct dta_crc_tables *k = fn->tab;

	if (fn->kind != DTA_HASHFN_CRC32 || !k)
		return -EINVAL;
	switch (path) {
	case CRC_PATH_TABLE:
		*out = crc_tab_update(k->t, fn->init, buf, len) ^ fn->xorout;
		return 0;
	case CRC_PATH_CLMUL:
		if (!clmul_ok())
			return -ENOTSUP;
		*out = clmul_crc(k, fn->init, buf, len) ^ fn->xorout;
		return 0;
	case CRC_PATH_HW:
		if (!hw_ok() || fn->poly != POLY_CRC32C)
			return -ENOTSUP;
		*out = crc32c_hw_call(fn->init, buf, len) ^ fn->xorout;
		return 0;
	default:
		return -EINVAL;
	}
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

HOT_ALIGN DTA_API uint64_t dta_hashfn_eval(const struct dta_hashfn *fn,
					   const void *buf, size_t len)
{
	const struct dta_crc_tables *k = fn->tab;

	if (DTA__UNLIKELY(fn->kind == DTA_HASHFN_XXH3))
		return XXH3_64bits_withSeed(buf, len, fn->seed);
	return k->eval(k, fn->init, fn->xorout, buf, len);
}

#if defined(__x86_64__)
/* The body of clmul_eval() for keys of 9..16 bytes, on the key's two
 * 8-byte words @lo and @hi (loaded once for all roles). */
CLMUL_TARGET static inline uint64_t
clmul_eval_words(const struct dta_crc_tables *k, uint32_t init, uint32_t xorout,
		 __m128i lo, __m128i hi, __m128i cnt, size_t n)
{
	__m128i kr = _mm_load_si128((const __m128i *)k->red);
	__m128i s;

	lo = _mm_xor_si128(lo, _mm_cvtsi32_si128((int)init));
	hi = _mm_xor_si128(hi, _mm_cvtsi64_si128((long long)((uint64_t)init >> 1 >>
							     (8 * (n - 8) - 1))));
	s = _mm_clmulepi64_si128(_mm_sll_epi64(lo, cnt), kr, 0x00);
	return clmul_barrett(k, _mm_xor_si128(s, hi)) ^ xorout;
}

HOT_ALIGN __attribute__((target("pclmul,sse4.1,sse4.2"))) void
dta__hashfn_eval_fns(const struct dta_hashfn *const *fn, unsigned n,
		     const void *key, size_t len, uint64_t *out)
{
	const uint8_t *p = key;
	__m128i lo, hi, cnt;

	if (!DTA__LIKELY(len - 9 < 8)) {
		for (unsigned i = 0; i < n; i++)
			out[i] = dta_hashfn_eval(fn[i], p, len);
		return;
	}
	lo = _mm_loadl_epi64((const __m128i *)p);
	hi = _mm_loadl_epi64((const __m128i *)(p + len - 8));
	cnt = _mm_cvtsi32_si128((int)(8 * (16 - len)));
	for (unsigned i = 0; i < n; i++) {
		const struct dta_hashfn *f = fn[i];
		const struct dta_crc_tables *k = f->tab;

		if (f->kind != DTA_HASHFN_CRC32)
			out[i] = dta_hashfn_eval(f, p, len);
		else if (k->path == CRC_PATH_CLMUL)
			out[i] = clmul_eval_words(k, f->init, f->xorout, lo, hi,
						  cnt, len);
		else if (k->path == CRC_PATH_HW)
			out[i] = crc32c_hw(f->init, p, len) ^ f->xorout;
		else
			out[i] = k->eval(k, f->init, f->xorout, p, len);
	}
}

/*
 * Batches of keys of 4..16 bytes, four keys per 512-bit carry-less multiply
 * (one per 128-bit lane): the same three products as clmul_short(). Each
 * key is loaded with a byte mask so that it ends at the top of its lane,
 * which is where clmul_short() shifts it; masked-off bytes are not read.
 */
#define Z_TARGET                                                               \
	__attribute__((target(                                                 \
		"avx512f,avx512bw,avx512vl,avx512vbmi,vpclmulqdq,pclmul,sse4.1")))

static int z_ok(void)
{
	pthread_once(&cpu_once, cpu_probe);
	return cpu.z;
}

/* Three products per lane, four keys per vector; @v: keys at the top of
 * their lanes, the register XORed in. Returns the registers in dword 2 of
 * each lane. */
Z_TARGET static inline __m512i
clmul_lanes(__m512i v, __m512i kr, __m512i kp)
{
	__m512i s, q;

	s = _mm512_xor_si512(_mm512_clmulepi64_epi128(v, kr, 0x00),
			     _mm512_bsrli_epi128(v, 8));
	q = _mm512_clmulepi64_epi128(s, kr, 0x10);
	q = _mm512_xor_si512(s, _mm512_slli_epi64(q, 1));
	return _mm512_xor_si512(_mm512_clmulepi64_epi128(q, kp, 0x00), s);
}

int dta__hash_lanes_init(struct dta__hash_lanes *h,
			 const struct dta_hashfn *const *fn, unsigned n)
{
	memset(h, 0, sizeof(*h));
	if (!n || n > DTA__LANES || !z_ok())
		return -ENOTSUP;
	for (unsigned i = 0; i < DTA__LANES; i++) {
		const struct dta_hashfn *f = fn[i < n ? i : 0];
		const struct dta_crc_tables *k = f->tab;

		if (f->kind != DTA_HASHFN_CRC32 || !k || k->path == CRC_PATH_TABLE)
			return -ENOTSUP;
		h->kr[2 * i] = k->red[0];
		h->kr[2 * i + 1] = k->red[1];
		h->kp[2 * i] = k->poly[0];
		h->kp[2 * i + 1] = k->poly[1];
		h->xo[i] = f->xorout;
		for (unsigned len = 4; len <= 16; len++) {
			/* As clmul_eval_n4(): the register under the key's
			 * first bytes, the key at the top of its lane. */
			unsigned __int128 c = (unsigned __int128)f->init
					      << (8 * (16 - len));

			h->cz[len - 4][2 * i] = (uint64_t)c;
			h->cz[len - 4][2 * i + 1] = (uint64_t)(c >> 64);
		}
	}
	h->n = n;
	return 0;
}

HOT_ALIGN Z_TARGET void
dta__hash_lanes_eval(const struct dta__hash_lanes *h, const void *key,
		     size_t len, uint64_t *out)
{
	unsigned sh = (unsigned)(16 - len);
	__m128i k = _mm_maskz_loadu_epi8((__mmask16)(0xFFFFu << sh),
					 (const uint8_t *)key - sh);
	__m512i v = _mm512_broadcast_i32x4(k);
	__m512i idx = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 14, 10, 6, 2);
	__m128i r;

	v = _mm512_xor_si512(v, _mm512_loadu_si512(h->cz[len - 4]));
	v = clmul_lanes(v, _mm512_loadu_si512(h->kr), _mm512_loadu_si512(h->kp));
	r = _mm512_castsi512_si128(_mm512_permutexvar_epi32(idx, v));
	r = _mm_xor_si128(r, _mm_loadu_si128((const __m128i *)h->xo));
	_mm256_storeu_si256((__m256i *)out, _mm256_cvtepu32_epi64(r));
}

Z_TARGET static void
clmul_eval_n4(const struct dta_crc_tables *k, uint32_t init, uint32_t xorout,
	      const uint8_t *keys, size_t stride, size_t len, size_t n,
	      uint64_t *out)
{
	unsigned sh = (unsigned)(16 - len);
	__mmask16 m = (__mmask16)(0xFFFFu << sh);
	unsigned __int128 c = (unsigned __int128)init << (8 * sh);
	__m512i cz = _mm512_broadcast_i32x4(
		_mm_set_epi64x((long long)(uint64_t)(c >> 64), (long long)(uint64_t)c));
	__m512i kr = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)k->red));
	__m512i kp = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)k->poly));
	__m512i idx = _mm512_set_epi32(30, 26, 22, 18, 14, 10, 6, 2,
				       30, 26, 22, 18, 14, 10, 6, 2);
	__m512i xo = _mm512_set1_epi32((int)xorout);
	size_t i = 0;

	if (cpu.vbmi && 3 * stride + len <= 64) {
		/* Four keys from one masked 64-byte load, spread to their
		 * lanes by one byte permutation. */
		const uint64_t b1 = 0x0101010101010101ull;
		__m512i iota = _mm512_broadcast_i32x4(
			_mm_set_epi64x(0x0F0E0D0C0B0A0908ll, 0x0706050403020100ll));
		__m512i lane = _mm512_set_epi64(
			(long long)(3 * stride * b1), (long long)(3 * stride * b1),
			(long long)(2 * stride * b1), (long long)(2 * stride * b1),
			(long long)(stride * b1), (long long)(stride * b1), 0, 0);
		/* Byte b of lane l takes key byte l * stride + b - sh. */
		__m512i perm = _mm512_add_epi8(
			_mm512_sub_epi8(iota, _mm512_set1_epi8((char)sh)), lane);
		__mmask64 lm = 0, bm = (__mmask64)m * 0x0001000100010001ull;

		for (unsigned l = 0; l < 4; l++)
			lm |= (((__mmask64)1 << len) - 1) << (l * stride);
		for (; i + 8 <= n; i += 8) {
			const uint8_t *p = keys + i * stride;
			__m512i v0 = _mm512_maskz_loadu_epi8(lm, p);
			__m512i v1 = _mm512_maskz_loadu_epi8(lm, p + 4 * stride);
			__m512i r;

			v0 = _mm512_maskz_permutexvar_epi8(bm, perm, v0);
			v1 = _mm512_maskz_permutexvar_epi8(bm, perm, v1);
			v0 = clmul_lanes(_mm512_xor_si512(v0, cz), kr, kp);
			v1 = clmul_lanes(_mm512_xor_si512(v1, cz), kr, kp);
			r = _mm512_permutex2var_epi32(v0, idx, v1);
			r = _mm512_xor_si512(r, xo);
			_mm512_storeu_si512(out + i,
					    _mm512_cvtepu32_epi64(_mm512_castsi512_si256(r)));
		}
	}
	for (; i + 4 <= n; i += 4) {
		uintptr_t a = (uintptr_t)keys + i * stride - sh;
		__m512i v;
		__m256i r;

		v = _mm512_castsi128_si512(_mm_maskz_loadu_epi8(m, (const void *)a));
		v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(m, (const void *)(a + stride)), 1);
		v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(m, (const void *)(a + 2 * stride)), 2);
		v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(m, (const void *)(a + 3 * stride)), 3);
		v = clmul_lanes(_mm512_xor_si512(v, cz), kr, kp);
		r = _mm512_castsi512_si256(_mm512_xor_si512(_mm512_permutexvar_epi32(idx, v), xo));
		_mm256_storeu_si256((__m256i *)(out + i),
				    _mm256_cvtepu32_epi64(_mm256_castsi256_si128(r)));
	}
	for (; i < n; i++)
		out[i] = clmul_short(k, init, keys + i * stride, len) ^ xorout;
}
#else
int dta__hash_lanes_init(struct dta__hash_lanes *h,
			 const struct dta_hashfn *const *fn, unsigned n)
{
	(void)fn, (void)n;
	memset(h, 0, sizeof(*h));
	return -ENOTSUP;
}

void dta__hash_lanes_eval(const struct dta__hash_lanes *h, const void *key,
			  size_t len, uint64_t *out)
{
	(void)h, (void)key, (void)len, (void)out;
}

void dta__hashfn_eval_fns(const struct dta_hashfn *const *fn, unsigned n,
			  const void *key, size_t len, uint64_t *out)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = dta_hashfn_eval(fn[i], key, len);
}

static int z_ok(void)
{
	return 0;
}

static void clmul_eval_n4(const struct dta_crc_tables *k, uint32_t init,
			  uint32_t xorout, const uint8_t *keys, size_t stride,
			  size_t len, size_t n, uint64_t *out)
{
	(void)k, (void)init, (void)xorout, (void)keys, (void)stride;
	(void)len, (void)n, (void)out;
}
#endif

DTA_API void dta_hashfn_eval_n(const struct dta_hashfn *fn, const void *keys,
			       size_t stride, size_t len, size_t n,
			       uint64_t *out)
{
	const uint8_t *p = keys;

	if (fn->kind == DTA_HASHFN_CRC32 && len >= 4 && len <= 16 && n >= 4 &&
	    fn->tab->path != CRC_PATH_TABLE && z_ok()) {
		clmul_eval_n4(fn->tab, fn->init, fn->xorout, p, stride, len, n, out);
		return;
	}
	for (size_t i = 0; i < n; i++, p += stride)
		out[i] = dta_hashfn_eval(fn, p, len);
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
