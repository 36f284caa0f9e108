/* SPDX-License-Identifier: BSD-3-Clause */
/* Hashing: check values, hardware vs table, coprime polynomials,
 * independence of roles, families. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <xxhash.h>

#include "dta/hash.h"
#include "dta/keyincr.h"
#include "dta/keywrite.h"
#include "dta/layout.h"
#include "dta/wire.h"
#include "internal.h"

const uint32_t *dta__hash_polys(void);
int dta__hashfn_eval_path(const struct dta_hashfn *fn, int path,
			  const void *buf, size_t len, uint64_t *out);
enum { PATH_TABLE, PATH_CLMUL, PATH_HW };

static void test_check_values(void **state)
{
	(void)state;
	assert_int_equal(dta_crc32c(0, "123456789", 9), 0xE3069283u);
	assert_int_equal(dta_crc32c_sw(0, "123456789", 9), 0xE3069283u);
	assert_int_equal(dta_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(dta_crc32c(0, "", 0), 0);
	/* running API */
	assert_int_equal(dta_crc32c(dta_crc32c(0, "1234", 4), "56789", 5),
			 0xE3069283u);
}

static void test_hw_matches_sw(void **state)
{
	uint8_t buf[320];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len + off <= 300; len++)
			assert_int_equal(dta_crc32c(0, buf + off, len),
					 dta_crc32c_sw(0, buf + off, len));
}

/* The generic table path (any polynomial) against the standard CRC-32. */
static void test_generic_path(void **state)
{
	struct dta_hashfn f = { .kind = DTA_HASHFN_CRC32, .poly = 0x04C11DB7,
				.init = 0xFFFFFFFF, .xorout = 0xFFFFFFFF };
	struct dta_hashfn c;

	(void)state;
	assert_int_equal(dta_hashfn_prepare(&f), 0);
	assert_int_equal(dta_hashfn_eval(&f, "123456789", 9), 0xCBF43926u);
	assert_int_equal(dta_hash_family_fn(DTA_HASH_CRC32C, 0, DTA_HF_SLOT(0), &c), 0);
	assert_int_equal(dta_hashfn_eval(&c, "123456789", 9), 0xE3069283u);
}

/* Bit by bit, straight from the definition: the reference for every path. */
static uint32_t crc_bitwise(uint32_t poly, uint32_t reg, const uint8_t *p,
			    size_t n)
{
	uint32_t rp = 0;

	for (int i = 0; i < 32; i++)
		if (poly >> i & 1)
			rp |= 1u << (31 - i);
	while (n--) {
		reg ^= *p++;
		for (int k = 0; k < 8; k++)
			reg = (reg >> 1) ^ ((reg & 1) ? rp : 0);
	}
	return reg;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Every polynomial any family uses: the 26 of crc32c, CRC-32, and the
 * prototype's five hop polynomials (two of them even). */
static size_t all_polys(uint32_t *out)
{
	const uint32_t *p = dta__hash_polys();
	struct dta_hashfn f;
	size_t n = 0;

	for (int i = 0; i < DTA_HF_COUNT; i++)
		out[n++] = p[i];
	assert_int_equal(dta_hash_family_fn(DTA_HASH_CRC32, 3, 0, &f), 0);
	out[n++] = f.poly;
	for (unsigned h = 0; h < DTA_PROTOTYPE_HOPS; h++) {
		assert_int_equal(dta_hash_family_fn(DTA_HASH_PROTOTYPE, 0,
						    DTA_HF_HOP(h), &f), 0);
		out[n++] = f.poly;
	}
	return n;
}

/* Table, carry-less multiply, instruction and dta_hashfn_eval() against the
 * bit-by-bit reference: random inits, unaligned starts, lengths 0..64 all,
 * then lengths across the 16, 32, 64 and 128-byte steps of the folding. */
static void test_paths_match_reference(void **state)
{
	uint32_t polys[64];
	size_t np = all_polys(polys);
	uint8_t buf[600];
	uint64_t s = 12345;
	int clmul = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)lcg(&s);
	for (size_t pi = 0; pi < np; pi++) {
		struct dta_hashfn f = { .kind = DTA_HASHFN_CRC32, .poly = polys[pi] };

		assert_int_equal(dta_hashfn_prepare(&f), 0);
		for (size_t t = 0; t < 400; t++) {
			size_t len = t <= 64 ? t : lcg(&s) % 520;
			size_t off = lcg(&s) % 16;
			uint32_t want;
			uint64_t got;
			int err;

			f.init = (uint32_t)(lcg(&s) << 1 ^ lcg(&s));
			f.xorout = t & 1 ? 0xFFFFFFFFu : (uint32_t)lcg(&s);
			want = crc_bitwise(f.poly, f.init, buf + off, len) ^ f.xorout;
			assert_int_equal(dta_hashfn_eval(&f, buf + off, len), want);
			assert_int_equal(dta__hashfn_eval_path(&f, PATH_TABLE, buf + off,
							       len, &got), 0);
			assert_int_equal(got, want);
			err = dta__hashfn_eval_path(&f, PATH_CLMUL, buf + off, len, &got);
			if (err != -ENOTSUP) {
				assert_int_equal(err, 0);
				assert_int_equal(got, want);
				clmul = 1;
			}
			err = dta__hashfn_eval_path(&f, PATH_HW, buf + off, len, &got);
			if (err != -ENOTSUP) {
				assert_int_equal(err, 0);
				assert_int_equal(got, want);
				assert_int_equal(f.poly, 0x1EDC6F41u);
			}
		}
	}
	/* The instruction is only for Castagnoli's polynomial. */
	{
		struct dta_hashfn f = { .kind = DTA_HASHFN_CRC32, .poly = 0x04C11DB7u };
		uint64_t got;

		assert_int_equal(dta_hashfn_prepare(&f), 0);
		assert_int_equal(dta__hashfn_eval_path(&f, PATH_HW, buf, 13, &got),
				 -ENOTSUP);
		assert_int_equal(dta__hashfn_eval_path(&f, 7, buf, 13, &got), -EINVAL);
	}
	if (!clmul)
		print_message("carry-less multiply not available: table path only\n");
}

/* The running APIs (CRC-32 is RoCE's ICRC) split anywhere, against the
 * reference. */
static void test_running_split(void **state)
{
	uint8_t buf[300];
	uint64_t s = 77;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)lcg(&s);
	for (size_t len = 0; len < sizeof(buf); len += 7) {
		uint32_t w32 = ~crc_bitwise(0x04C11DB7u, ~0u, buf, len);
		uint32_t w32c = ~crc_bitwise(0x1EDC6F41u, ~0u, buf, len);

		assert_int_equal(dta_crc32(0, buf, len), w32);
		assert_int_equal(dta_crc32c(0, buf, len), w32c);
		assert_int_equal(dta_crc32c_sw(0, buf, len), w32c);
		for (size_t cut = 0; cut <= len; cut += 5) {
			assert_int_equal(dta_crc32(dta_crc32(0, buf, cut), buf + cut,
						   len - cut), w32);
			assert_int_equal(dta_crc32c(dta_crc32c(0, buf, cut), buf + cut,
						    len - cut), w32c);
		}
	}
}

/* dta_hashfn_eval_n() gives dta_hashfn_eval()'s values for any length,
 * stride (overlapping keys, long strides) and count, and n = 0 writes
 * nothing. */
static void test_eval_n(void **state)
{
	static const int fams[] = { DTA_HASH_CRC32C, DTA_HASH_CRC32, DTA_HASH_XXH3 };
	uint8_t buf[1200];
	uint64_t out[41], s = 5;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)lcg(&s);
	for (size_t fi = 0; fi < 3; fi++)
		for (unsigned role = 0; role < DTA_HF_COUNT; role += 5) {
			struct dta_hashfn f;

			assert_int_equal(dta_hash_family_fn(fams[fi], role + 1, role, &f), 0);
			for (size_t len = 0; len <= 24; len++)
				for (size_t stride = 0; stride <= 25; stride += 1 + stride / 4) {
					size_t n = lcg(&s) % 40, off = lcg(&s) % 8;

					out[n] = 0xA5A5;
					dta_hashfn_eval_n(&f, buf + off, stride, len, n, out);
					for (size_t i = 0; i < n; i++)
						assert_int_equal(out[i],
								 dta_hashfn_eval(&f, buf + off + i * stride, len));
					assert_int_equal(out[n], 0xA5A5);
				}
		}
	{
		struct dta_hashfn f;

		assert_int_equal(dta_hash_family_fn(DTA_HASH_CRC32C, 0, 1, &f), 0);
		out[0] = 1;
		dta_hashfn_eval_n(&f, NULL, 13, 13, 0, out);
		assert_int_equal(out[0], 1);
	}
}

/* Keys right after and right before an inaccessible page: no path may read
 * a byte outside the key (the batch path loads with byte masks). */
static void test_no_read_outside(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *page;
	uint64_t out[16];
	struct dta_hashfn f;

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m, (size_t)pg, PROT_NONE), 0);
	assert_int_equal(mprotect(m + 2 * pg, (size_t)pg, PROT_NONE), 0);
	page = m + pg;
	for (long i = 0; i < pg; i++)
		page[i] = (uint8_t)(i * 7);
	for (unsigned role = 0; role < 3; role++) {
		assert_int_equal(dta_hash_family_fn(DTA_HASH_CRC32C, 9, role, &f), 0);
		for (size_t len = 0; len <= 70; len++) {
			const uint8_t *head = page, *tail = page + pg - len;

			assert_int_equal(dta_hashfn_eval(&f, head, len),
					 crc_bitwise(f.poly, f.init, head, len) ^ f.xorout);
			assert_int_equal(dta_hashfn_eval(&f, tail, len),
					 crc_bitwise(f.poly, f.init, tail, len) ^ f.xorout);
			if (len > 16)
				continue;
			dta_hashfn_eval_n(&f, head, len, len, 16, out);
			for (size_t i = 0; i < 16; i++)
				assert_int_equal(out[i],
						 dta_hashfn_eval(&f, head + i * len, len));
			dta_hashfn_eval_n(&f, page + pg - 16 * len, len, len, 16, out);
			for (size_t i = 0; i < 16; i++)
				assert_int_equal(out[i],
						 dta_hashfn_eval(&f, page + pg - (16 - i) * len, len));
		}
	}
	munmap(m, 3 * (size_t)pg);
}

static int pdeg(uint64_t a)
{
	return a ? 63 - __builtin_clzll(a) : -1;
}

static uint64_t pmod(uint64_t a, uint64_t b)
{
	while (a && pdeg(a) >= pdeg(b))
		a ^= b << (pdeg(a) - pdeg(b));
	return a;
}

static uint64_t pgcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = pmod(a, b);

		a = b;
		b = t;
	}
	return a;
}

static void test_polys_coprime(void **state)
{
	const uint32_t *p = dta__hash_polys();

	(void)state;
	assert_int_equal(p[0], 0x1EDC6F41u);
	for (int i = 0; i < DTA_HF_COUNT; i++)
		for (int j = i + 1; j < DTA_HF_COUNT; j++) {
			uint64_t a = (1ull << 32) | p[i], b = (1ull << 32) | p[j];

			assert_true(p[i] != p[j]);
			assert_int_equal(pgcd(a, b), 1);
		}
}

/* Pairs of keys colliding under both functions, against independence. */
static double joint_collisions(const struct dta_hashfn *a,
			       const struct dta_hashfn *b)
{
	enum { K = 200000, BITS = 12 };
	static uint32_t cnt[1 << (2 * BITS)];
	uint8_t key[13];
	uint64_t state = 99;
	double pairs = 0;

	memset(cnt, 0, sizeof(cnt));
	for (int i = 0; i < K; i++) {
		for (int j = 0; j < 13; j++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			key[j] = (uint8_t)(state >> 56);
		}
		uint32_t ia = (uint32_t)dta_hashfn_eval(a, key, 13) & ((1 << BITS) - 1);
		uint32_t ib = (uint32_t)dta_hashfn_eval(b, key, 13) & ((1 << BITS) - 1);

		cnt[ia << BITS | ib]++;
	}
	for (size_t i = 0; i < (1u << (2 * BITS)); i++)
		pairs += (double)cnt[i] * (cnt[i] - 1) / 2;
	return pairs;
}

static void test_roles_independent(void **state)
{
	struct dta_hashfn a, b;
	double expect = 200000.0 * 199999 / 2 / (double)(1u << 24);
	double got;

	(void)state;
	assert_int_equal(dta_hash_family_fn(DTA_HASH_CRC32C, 7, 0, &a), 0);
	assert_int_equal(dta_hash_family_fn(DTA_HASH_CRC32C, 7, 1, &b), 0);
	got = joint_collisions(&a, &b);
	assert_true(fabs(got - expect) < 6 * sqrt(expect));
	/* Negative control: one polynomial, two init values. */
	b = a;
	b.init ^= 0x12345678;
	got = joint_collisions(&a, &b);
	assert_true(got > 10 * expect);
}

static uint64_t splitmix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void test_families(void **state)
{
	struct dta_hashfn f;

	(void)state;
	assert_int_equal(dta_hash_family_fn(DTA_HASH_XXH3, 5, 3, &f), 0);
	assert_int_equal(dta_hashfn_eval(&f, "abc", 3),
			 XXH3_64bits_withSeed("abc", 3,
					      splitmix(5 ^ (0x9E3779B97F4A7C15ull * 4))));
	assert_int_equal(dta_hash_family_fn(9, 0, 0, &f), -DTA_E_HASHFAMILY);
	assert_int_equal(dta_hash_family_fn(DTA_HASH_CRC32C, 0, DTA_HF_COUNT, &f),
			 -EINVAL);
	for (int fam = DTA_HASH_CRC32C; fam <= DTA_HASH_PROTOTYPE; fam++)
		assert_int_equal(dta_hash_family_parse(dta_hash_family_name(fam)), fam);
	assert_int_equal(dta_hash_family_parse("md5"), -DTA_E_HASHFAMILY);
}

/* The translator's fast paths give what the plain ones give: several roles
 * of one key (dta__hashfn_eval_fns(), dta__hash_lanes_eval()), and whole
 * Key-Write operations (dta__kw_ops_fast(): the same slots, checksum and
 * data), for every family, key length, redundancy and slot counts that
 * are and are not powers of two. */
static void test_fast_paths_agree(void **state)
{
	static const uint64_t slots[] = { 16, 40000, 1ull << 20, 999983,
					  4294967295ull };
	static const int fams[] = { DTA_HASH_CRC32C, DTA_HASH_CRC32,
				    DTA_HASH_XXH3, DTA_HASH_PROTOTYPE };
	uint64_t rng = 7;
	unsigned vec = 0;

	(void)state;
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++)
	for (size_t si = 0; si < sizeof(slots) / sizeof(slots[0]); si++)
	for (unsigned maxn = 1; maxn <= DTA_MAX_REDUNDANCY; maxn += 2) {
		struct dta_layout l;
		struct dta__hash_lanes hl;
		uint64_t sl = fams[f] == DTA_HASH_PROTOTYPE ? 1u << 16 : slots[si];
		unsigned cb = fams[f] == DTA_HASH_XXH3 ? 8 : 4;
		uint64_t fm = dta__fastmod_init(sl);
		int lanes;

		if (dta_layout_kw(&l, sl, 20, cb, maxn, fams[f], 11 + si))
			continue; /* a geometry the family does not take */
		lanes = dta__kw_lanes_init(&l, &hl);
		vec += lanes == 0;
		for (unsigned it = 0; it < 400; it++) {
			uint8_t key[DTA_KEY_MAX + 16], data[20];
			uint8_t a[64], b[64];
			struct dta_memop oa[DTA_MAX_REDUNDANCY], ob[DTA_MAX_REDUNDANCY];
			size_t len = 1 + it % DTA_KEY_MAX;
			unsigned n = 1 + it % maxn;
			const struct dta_hashfn *fn[DTA__LANES];
			uint64_t h[DTA__LANES], want;
			int ka, kb;

			for (size_t i = 0; i < sizeof(key); i++)
				key[i] = (uint8_t)((rng = rng * 6364136223846793005ull + 1) >> 56);
			memcpy(data, key + 3, sizeof(data));
			ka = dta_kw_ops(&l, key, len, data, 20, n, a, sizeof(a), oa,
					DTA_MAX_REDUNDANCY);
			kb = dta__kw_ops_fast(&l, fm, lanes ? NULL : &hl, key, len,
					      data, n, b, ob);
			assert_int_equal(ka, kb);
			for (int i = 0; i < ka; i++) {
				assert_int_equal(oa[i].kind, ob[i].kind);
				assert_int_equal(oa[i].len, ob[i].len);
				assert_int_equal(oa[i].offset, ob[i].offset);
				assert_memory_equal(oa[i].data == a ? a : NULL,
						    ob[i].data == b ? b : NULL,
						    l.g.kw.slot_size);
			}
			/* Roles one by one, through both multi-role paths. */
			for (unsigned i = 0; i < DTA__LANES; i++)
				fn[i] = &l.fn[i ? DTA_HF_SLOT(i - 1) : DTA_HF_CHECKSUM];
			dta__hashfn_eval_fns(fn, maxn < 3 ? maxn + 1 : 4, key, len, h);
			for (unsigned i = 0; i < (maxn < 3 ? maxn + 1 : 4); i++) {
				want = dta_hashfn_eval(fn[i], key, len);
				assert_int_equal(h[i], want);
			}
			if (!lanes && len >= 4 && len <= 16) {
				dta__hash_lanes_eval(&hl, key, len, h);
				for (unsigned i = 0; i < hl.n; i++)
					assert_int_equal(h[i], dta_hashfn_eval(fn[i], key, len));
			}
		}
		/* The multiply is the modulo for every 32-bit hash value. */
		for (unsigned it = 0; it < 2000 && fm; it++) {
			uint64_t x = (rng = rng * 6364136223846793005ull + 1) >> 32;

			if (it < 2)
				x = it ? 0xFFFFFFFFull : 0;
			assert_int_equal(dta__reduce_fm(x, sl, fm), x % sl);
		}
	}
	/* Key-Increment rows likewise (dta__ki_ops_fast()). */
	for (size_t f = 0; f < 3; f++)
	for (size_t si = 0; si < sizeof(slots) / sizeof(slots[0]); si++)
	for (unsigned rows = 1; rows <= DTA_MAX_REDUNDANCY; rows += 3) {
		struct dta_layout l;
		struct dta__hash_lanes hl;
		uint64_t fm = dta__fastmod_init(slots[si] > (1u << 24) ? 999 : slots[si]);
		int lanes;

		if (dta_layout_ki(&l, slots[si] > (1u << 24) ? 999 : slots[si],
				  rows, 2, fams[f], 5 + si))
			continue;
		lanes = dta__ki_lanes_init(&l, &hl);
		vec += lanes == 0;
		for (unsigned it = 0; it < 300; it++) {
			uint8_t key[DTA_KEY_MAX];
			struct dta_memop oa[DTA_MAX_REDUNDANCY], ob[DTA_MAX_REDUNDANCY];
			size_t len = 1 + it % DTA_KEY_MAX;
			int ka, kb;

			for (size_t i = 0; i < sizeof(key); i++)
				key[i] = (uint8_t)((rng = rng * 6364136223846793005ull + 1) >> 56);
			ka = dta_ki_ops(&l, key, len, it, it % 3, oa, DTA_MAX_REDUNDANCY);
			kb = dta__ki_ops_fast(&l, fm, lanes ? NULL : &hl, key, len,
					      it, it % 3, ob);
			assert_int_equal(ka, kb);
			for (int i = 0; i < ka; i++) {
				assert_int_equal(oa[i].kind, ob[i].kind);
				assert_int_equal(oa[i].offset, ob[i].offset);
				assert_int_equal(oa[i].add, ob[i].add);
				assert_int_equal(oa[i].len, ob[i].len);
			}
		}
	}
	if (!vec)
		print_message("(no AVX-512 VPCLMULQDQ here: lanes not tested)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_values),
		cmocka_unit_test(test_hw_matches_sw),
		cmocka_unit_test(test_generic_path),
		cmocka_unit_test(test_paths_match_reference),
		cmocka_unit_test(test_running_split),
		cmocka_unit_test(test_eval_n),
		cmocka_unit_test(test_no_read_outside),
		cmocka_unit_test(test_polys_coprime),
		cmocka_unit_test(test_roles_independent),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_fast_paths_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
