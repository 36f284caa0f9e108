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

#include <cmocka.h>
#include <xxhash.h>

#include "dta/hash.h"

const uint32_t *dta__hash_polys(void);

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_values),
		cmocka_unit_test(test_hw_matches_sw),
		cmocka_unit_test(test_generic_path),
		cmocka_unit_test(test_polys_coprime),
		cmocka_unit_test(test_roles_independent),
		cmocka_unit_test(test_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
