/* SPDX-License-Identifier: BSD-3-Clause */
/* Key-Increment: op offsets against independent hash references, exact
 * sums, the count-min guarantee under heavy collisions, banks, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <xxhash.h>

#include "dta/hash.h"
#include "dta/keyincr.h"
#include "dta/layout.h"
#include "dta/wire.h"

static uint64_t rng_state = 1234;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void rnd_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

/* Bitwise reflected CRC-32C (Castagnoli, reflected poly 0x82F63B78),
 * init and xorout 0xFFFFFFFF: the reference for row 0 of the CRC-32C
 * family with seed 0. */
static uint32_t ref_crc32c(const void *buf, size_t n)
{
	const uint8_t *p = buf;
	uint32_t c = 0xFFFFFFFFu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return ~c;
}

static uint64_t splitmix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Row n of the XXH3 family (hash.h): XXH3-64 with a per-role seed. */
static uint64_t ref_xxh3_row(const void *key, size_t len, uint64_t seed,
			     unsigned n)
{
	return XXH3_64bits_withSeed(
		key, len, splitmix(seed ^ (0x9E3779B97F4A7C15ull * (n + 1))));
}

static uint64_t ref_offset(uint64_t width, unsigned rows, unsigned bank,
			   unsigned row, uint64_t idx)
{
	return (((uint64_t)bank * rows + row) * width + idx) * 8;
}

static void *zalloc(size_t n)
{
	void *p = calloc(1, n);

	assert_non_null(p);
	return p;
}

static void inc(const struct dta_layout *l, void *area, const void *key,
		size_t len, uint64_t add, unsigned bank)
{
	struct dta_memop ops[DTA_MAX_REDUNDANCY];
	int n = dta_ki_ops(l, key, len, add, bank, ops, DTA_MAX_REDUNDANCY);

	assert_int_equal(n, l->g.ki.rows);
	assert_int_equal(dta_memops_apply(area, l->data_size, ops, (size_t)n), n);
}

static uint64_t query(const struct dta_layout *l, const void *area,
		      const void *key, size_t len, unsigned bank)
{
	uint64_t v = 0xdeadbeef;

	assert_int_equal(dta_ki_query(l, area, key, len, bank, &v), 0);
	return v;
}

static void test_reference_crc32c(void **state)
{
	(void)state;
	assert_int_equal(ref_crc32c("123456789", 9), 0xE3069283u);
	assert_int_equal(dta_crc32c(0, "123456789", 9), 0xE3069283u);
}

/* CRC-32C family, seed 0: row 0's counter is CRC-32C(key) mod width; every
 * row of every bank sits at ((bank * rows + row) * width + index) * 8. */
static void test_ops_crc32c_row0(void **state)
{
	static const uint64_t widths[] = { 1000003, 1u << 16, 1 };
	uint8_t key[DTA_KEY_MAX];

	(void)state;
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		const uint64_t W = widths[w];
		struct dta_layout l;
		unsigned same01 = 0;

		assert_int_equal(dta_layout_ki(&l, W, 4, 2, DTA_HASH_CRC32C, 0), 0);
		assert_true(l.data_size == W * 4 * 2 * 8);
		for (unsigned i = 0; i < 300; i++) {
			size_t len = 1 + i % DTA_KEY_MAX;
			unsigned bank = i & 1;
			uint64_t add = 0x100000000ull * i + 7;
			struct dta_memop ops[8];
			uint32_t crc;

			rnd_bytes(key, len);
			crc = ref_crc32c(key, len);
			assert_int_equal(dta_crc32c(0, key, len), crc);
			memset(ops, 0xEE, sizeof(ops));
			assert_int_equal(dta_ki_ops(&l, key, len, add, bank, ops, 8), 4);
			assert_true(dta_ki_index(&l, key, len, 0) == crc % W);
			assert_true(ops[0].offset == ref_offset(W, 4, bank, 0, crc % W));
			for (unsigned n = 0; n < 4; n++) {
				uint64_t idx = dta_ki_index(&l, key, len, n);

				assert_true(idx < W);
				assert_int_equal(ops[n].kind, DTA_MEMOP_FETCH_ADD);
				assert_int_equal(ops[n].len, 8);
				assert_true(ops[n].add == add);
				assert_null(ops[n].data);
				assert_true(ops[n].offset ==
					    ref_offset(W, 4, bank, n, idx));
			}
			if (dta_ki_index(&l, key, len, 1) == crc % W)
				same01++;
		}
		/* Rows use different functions (width 1 aside). */
		if (W > 1)
			assert_true(same01 < 5);
	}
}

/* XXH3 family: every row against libxxhash called directly. */
static void test_ops_xxh3_all_rows(void **state)
{
	static const uint64_t widths[] = { 1000003, 1u << 20, 3 };
	static const uint64_t seeds[] = { 0, 77, 0xFEDCBA9876543210ull };
	uint8_t key[DTA_KEY_MAX];

	(void)state;
	for (size_t w = 0; w < 3; w++) {
		for (size_t s = 0; s < 3; s++) {
			const uint64_t W = widths[w], seed = seeds[s];
			struct dta_layout l;

			assert_int_equal(dta_layout_ki(&l, W, 8, 2, DTA_HASH_XXH3,
						       seed), 0);
			for (unsigned i = 0; i < 100; i++) {
				size_t len = 1 + (i * 7) % DTA_KEY_MAX;
				unsigned bank = (i >> 1) & 1;
				struct dta_memop ops[8];

				rnd_bytes(key, len);
				assert_int_equal(dta_ki_ops(&l, key, len, i, bank,
							    ops, 8), 8);
				for (unsigned n = 0; n < 8; n++) {
					uint64_t idx = ref_xxh3_row(key, len, seed,
								    n) % W;

					assert_true(dta_ki_index(&l, key, len, n) ==
						    idx);
					assert_true(ops[n].offset ==
						    ref_offset(W, 8, bank, n, idx));
					assert_true(ops[n].add == i);
					assert_int_equal(ops[n].kind,
							 DTA_MEMOP_FETCH_ADD);
				}
			}
		}
	}
}

/* A wide sketch: a few thousand keys, several updates each, every sum
 * exact; keys never added read 0. */
static void exact_sums(int family, uint64_t seed)
{
	enum { KEYS = 3000, ABSENT = 1000 };
	struct dta_layout l;
	uint8_t (*keys)[13] = malloc(sizeof(*keys) * KEYS), other[13];
	uint64_t *sum = zalloc(sizeof(uint64_t) * KEYS);
	uint8_t *area;

	assert_non_null(keys);
	assert_int_equal(dta_layout_ki(&l, 1u << 20, 3, 1, family, seed), 0);
	area = zalloc(l.data_size);
	for (unsigned i = 0; i < KEYS; i++)
		rnd_bytes(keys[i], 13);
	/* Updates in random key order, including large operands. */
	for (unsigned u = 0; u < 4 * KEYS; u++) {
		unsigned k = (unsigned)(rnd() % KEYS);
		uint64_t add = (u % 97 == 0) ? (rnd() >> 8) : rnd() % 1000000;

		inc(&l, area, keys[k], 13, add, 0);
		sum[k] += add;
	}
	for (unsigned i = 0; i < KEYS; i++)
		assert_true(query(&l, area, keys[i], 13, 0) == sum[i]);
	for (unsigned i = 0; i < ABSENT; i++) {
		rnd_bytes(other, 13);
		assert_true(query(&l, area, other, 13, 0) == 0);
	}
	free(area);
	free(sum);
	free(keys);
}

static void test_exact_sums_crc32c(void **state)
{
	(void)state;
	exact_sums(DTA_HASH_CRC32C, 5);
}

static void test_exact_sums_xxh3(void **state)
{
	(void)state;
	exact_sums(DTA_HASH_XXH3, 5);
}

/* A tiny sketch (7 x 3) with 300 keys. With the XXH3 family every row's
 * index comes from the reference, so the whole sketch is modelled here:
 * each counter equals the sum over the keys that map to it, the answer is
 * the minimum over the key's rows, never below the exact sum. */
static void test_count_min_collisions(void **state)
{
	enum { KEYS = 300, W = 7, ROWS = 3 };
	const uint64_t seed = 9;
	struct dta_layout l;
	uint8_t keys[KEYS][8];
	uint64_t sum[KEYS] = { 0 }, model[ROWS][W] = { { 0 } }, *area;
	unsigned over = 0, rows_differ = 0, not_row0 = 0;

	(void)state;
	assert_int_equal(dta_layout_ki(&l, W, ROWS, 1, DTA_HASH_XXH3, seed), 0);
	area = zalloc(l.data_size);
	for (unsigned i = 0; i < KEYS; i++) {
		memset(keys[i], 0, 8);
		memcpy(keys[i], &i, sizeof(i));
	}
	for (unsigned u = 0; u < 3 * KEYS; u++) {
		/* skewed: low keys get most updates */
		unsigned k = (unsigned)(rnd() % (1 + rnd() % KEYS));
		uint64_t add = 1 + rnd() % 1000;

		inc(&l, area, keys[k], 8, add, 0);
		sum[k] += add;
	}
	for (unsigned k = 0; k < KEYS; k++)
		for (unsigned r = 0; r < ROWS; r++)
			model[r][ref_xxh3_row(keys[k], 8, seed, r) % W] += sum[k];
	for (unsigned r = 0; r < ROWS; r++)
		for (unsigned i = 0; i < W; i++)
			assert_true(area[r * W + i] == model[r][i]);
	for (unsigned k = 0; k < KEYS; k++) {
		uint64_t q = query(&l, area, keys[k], 8, 0), mn = UINT64_MAX,
			 mx = 0, r0 = 0;

		for (unsigned r = 0; r < ROWS; r++) {
			uint64_t c = model[r][ref_xxh3_row(keys[k], 8, seed, r) % W];

			mn = c < mn ? c : mn;
			mx = c > mx ? c : mx;
			if (r == 0)
				r0 = c;
		}
		assert_true(q == mn);
		assert_true(q >= sum[k]);
		over += q > sum[k];
		rows_differ += mn != mx;
		not_row0 += q != r0;
	}
	/* The case is meaningful: collisions inflate, rows disagree, and the
	 * minimum often comes from a row other than row 0. */
	assert_true(over > KEYS / 2);
	assert_true(rows_differ > KEYS / 2);
	assert_true(not_row0 > 10);
	free(area);
}

/* Same guarantee for the CRC-32C family: never an underestimate, and the
 * answer is the minimum of the key's counters in all rows. */
static void test_count_min_crc32c(void **state)
{
	enum { KEYS = 200, W = 5, ROWS = 4 };
	struct dta_layout l;
	uint8_t keys[KEYS][13];
	uint64_t sum[KEYS] = { 0 }, *area;
	unsigned over = 0;

	(void)state;
	assert_int_equal(dta_layout_ki(&l, W, ROWS, 1, DTA_HASH_CRC32C, 0), 0);
	area = zalloc(l.data_size);
	for (unsigned i = 0; i < KEYS; i++)
		rnd_bytes(keys[i], 13);
	for (unsigned u = 0; u < 2 * KEYS; u++) {
		unsigned k = (unsigned)(rnd() % KEYS);
		uint64_t add = 1 + rnd() % 100;

		inc(&l, area, keys[k], 13, add, 0);
		sum[k] += add;
	}
	for (unsigned k = 0; k < KEYS; k++) {
		uint64_t q = query(&l, area, keys[k], 13, 0), mn = UINT64_MAX;

		for (unsigned r = 0; r < ROWS; r++) {
			uint64_t idx = dta_ki_index(&l, keys[k], 13, r), c;

			assert_true(idx < W);
			c = area[r * W + idx];
			mn = c < mn ? c : mn;
		}
		/* row 0 from the reference CRC, the others via the library */
		assert_true(dta_ki_index(&l, keys[k], 13, 0) ==
			    ref_crc32c(keys[k], 13) % W);
		assert_true(q == mn);
		assert_true(q >= sum[k]);
		over += q > sum[k];
	}
	assert_true(over > 0);
	free(area);
}

/* Two banks are independent; dta_ki_reset() zeroes exactly its bank. */
static void test_banks(void **state)
{
	enum { KEYS = 60 };
	const uint64_t W = 1u << 16;
	struct dta_layout l, l1;
	uint8_t keys[KEYS][13];
	uint64_t s0[KEYS] = { 0 }, s1[KEYS] = { 0 };
	uint8_t *area, *snap;
	size_t half;

	(void)state;
	assert_int_equal(dta_layout_ki(&l, W, 2, 2, DTA_HASH_CRC32C, 1), 0);
	half = (size_t)(W * 2 * 8);
	assert_true(l.data_size == 2 * half);
	/* sentinels after the area catch a reset that runs past its bank */
	area = zalloc(l.data_size + 64);
	memset(area + l.data_size, 0xA5, 64);
	snap = zalloc(l.data_size);
	for (unsigned i = 0; i < KEYS; i++)
		rnd_bytes(keys[i], 13);
	for (unsigned i = 0; i < KEYS; i++) {
		s0[i] = 1 + i;
		inc(&l, area, keys[i], 13, s0[i], 0);
	}
	memcpy(snap, area, half);
	for (size_t i = half; i < l.data_size; i++)
		assert_int_equal(area[i], 0);
	for (unsigned i = 0; i < KEYS; i++) {
		s1[i] = 1000 * (i + 1);
		inc(&l, area, keys[i], 13, s1[i], 1);
		if (i % 3 == 0) {
			s1[i] += 5;
			inc(&l, area, keys[i], 13, 5, 1);
		}
	}
	assert_memory_equal(area, snap, half); /* bank 1 left bank 0 alone */
	for (unsigned i = 0; i < KEYS; i++) {
		assert_true(query(&l, area, keys[i], 13, 0) == s0[i]);
		assert_true(query(&l, area, keys[i], 13, 1) == s1[i]);
	}

	memcpy(snap, area, l.data_size);
	assert_int_equal(dta_ki_reset(&l, area, 0), 0);
	for (size_t i = 0; i < half; i++)
		assert_int_equal(area[i], 0);
	assert_memory_equal(area + half, snap + half, half);
	for (unsigned i = 0; i < KEYS; i++) {
		assert_true(query(&l, area, keys[i], 13, 0) == 0);
		assert_true(query(&l, area, keys[i], 13, 1) == s1[i]);
	}
	/* bank 0 in use again while bank 1 is reset */
	inc(&l, area, keys[0], 13, 42, 0);
	assert_int_equal(dta_ki_reset(&l, area, 1), 0);
	for (size_t i = half; i < l.data_size; i++)
		assert_int_equal(area[i], 0);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(area[l.data_size + i], 0xA5);
	assert_true(query(&l, area, keys[0], 13, 0) == 42);
	assert_true(query(&l, area, keys[0], 13, 1) == 0);

	/* One bank: reset zeroes the whole area and nothing after it. */
	assert_int_equal(dta_layout_ki(&l1, 1000, 3, 1, DTA_HASH_XXH3, 2), 0);
	free(area);
	area = zalloc(l1.data_size + 64);
	memset(area, 0x77, l1.data_size);
	memset(area + l1.data_size, 0xA5, 64);
	assert_int_equal(dta_ki_reset(&l1, area, 0), 0);
	for (size_t i = 0; i < l1.data_size; i++)
		assert_int_equal(area[i], 0);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(area[l1.data_size + i], 0xA5);
	free(snap);
	free(area);
}

static void test_bad_args(void **state)
{
	struct dta_layout l, l1, ap;
	struct dta_memop ops[8];
	uint8_t key[DTA_KEY_MAX + 1] = { 1 };
	uint64_t *area, v;

	(void)state;
	assert_int_equal(dta_layout_ki(&l, 64, 3, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_layout_ki(&l1, 64, 3, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_layout_ap(&ap, 1, 4, 4, 8, 0), 0);
	area = zalloc(l.data_size);

	assert_int_equal(dta_ki_ops(NULL, key, 4, 1, 0, ops, 8), -EINVAL);
	assert_int_equal(dta_ki_ops(&l, NULL, 4, 1, 0, ops, 8), -EINVAL);
	assert_int_equal(dta_ki_ops(&l, key, 0, 1, 0, ops, 8), -EINVAL);
	assert_int_equal(dta_ki_ops(&l, key, DTA_KEY_MAX + 1, 1, 0, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_ki_ops(&l, key, 4, 1, 0, NULL, 8), -EINVAL);
	assert_int_equal(dta_ki_ops(&ap, key, 4, 1, 0, ops, 8), -DTA_E_PRIMITIVE);
	assert_int_equal(dta_ki_ops(&l, key, 4, 1, 2, ops, 8), -DTA_E_MISMATCH);
	assert_int_equal(dta_ki_ops(&l1, key, 4, 1, 1, ops, 8), -DTA_E_MISMATCH);
	assert_int_equal(dta_ki_ops(&l, key, 4, 1, 0, ops, 2), -ENOSPC);
	assert_int_equal(dta_ki_ops(&l, key, 4, 1, 0, ops, 0), -ENOSPC);
	/* boundaries that are fine */
	assert_int_equal(dta_ki_ops(&l, key, DTA_KEY_MAX, 1, 1, ops, 3), 3);
	assert_int_equal(dta_ki_ops(&l, key, 1, 1, 0, ops, 3), 3);

	v = 99;
	assert_int_equal(dta_ki_query(NULL, area, key, 4, 0, &v), -EINVAL);
	assert_int_equal(dta_ki_query(&l, NULL, key, 4, 0, &v), -EINVAL);
	assert_int_equal(dta_ki_query(&l, area, NULL, 4, 0, &v), -EINVAL);
	assert_int_equal(dta_ki_query(&l, area, key, 0, 0, &v), -EINVAL);
	assert_int_equal(dta_ki_query(&l, area, key, DTA_KEY_MAX + 1, 0, &v),
			 -EINVAL);
	assert_int_equal(dta_ki_query(&l, area, key, 4, 0, NULL), -EINVAL);
	assert_int_equal(dta_ki_query(&ap, area, key, 4, 0, &v),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_ki_query(&l, area, key, 4, 2, &v), -DTA_E_MISMATCH);
	assert_int_equal(dta_ki_query(&l1, area, key, 4, 1, &v), -DTA_E_MISMATCH);
	assert_true(v == 99);
	assert_int_equal(dta_ki_query(&l, area, key, 4, 1, &v), 0);
	assert_true(v == 0);

	area[0] = 5;
	assert_int_equal(dta_ki_reset(NULL, area, 0), -EINVAL);
	assert_int_equal(dta_ki_reset(&l, NULL, 0), -EINVAL);
	assert_int_equal(dta_ki_reset(&ap, area, 0), -DTA_E_PRIMITIVE);
	assert_int_equal(dta_ki_reset(&l, area, 2), -DTA_E_MISMATCH);
	assert_int_equal(dta_ki_reset(&l1, area, 1), -DTA_E_MISMATCH);
	assert_true(area[0] == 5);
	free(area);
}

/* Batch estimates for @keys[0..n-1] equal the single queries'. */
static void check_ki_batch(const struct dta_layout *l, const void *area,
			   const uint8_t *keys, size_t klen, size_t n,
			   unsigned bank)
{
	uint64_t *out = malloc((n + 1) * sizeof(*out));

	assert_non_null(out);
	for (size_t i = 0; i <= n; i++)
		out[i] = 0xa5a5a5a5a5a5a5a5ull;
	assert_int_equal(dta_ki_query_batch(l, area, keys, klen, n, bank, out), 0);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i] == query(l, area, keys + i * klen, klen, bank));
	assert_true(out[n] == 0xa5a5a5a5a5a5a5a5ull); /* nothing past n */
	free(out);
}

/*
 * A narrow sketch (collisions overestimate) with keys counted, keys never
 * counted, 1..8 rows, both banks, and every batch length around the
 * pipeline's groups at several offsets.
 */
static void test_batch_matches_single(void **state)
{
	enum { KEYS = 400 };
	static const size_t lens[] = { 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33,
				       64, 100, KEYS };
	static const unsigned rows[] = { 1, 2, 3, 8 };
	uint8_t keys[KEYS][6];

	(void)state;
	for (unsigned r = 0; r < 4; r++) {
		struct dta_layout l;
		unsigned zero = 0, over = 0;
		uint64_t *area;

		assert_int_equal(dta_layout_ki(&l, 97, rows[r], 2,
					       r % 2 ? DTA_HASH_XXH3 : DTA_HASH_CRC32C,
					       r), 0);
		area = zalloc(l.data_size);
		for (unsigned i = 0; i < KEYS; i++) {
			rnd_bytes(keys[i], 6);
			if (i % 3)
				inc(&l, area, keys[i], 6, 1 + i, i % 2);
		}
		for (unsigned bank = 0; bank < 2; bank++)
			for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
				for (size_t off = 0; off + lens[k] <= KEYS;
				     off += lens[k] < 40 ? 43 : 150)
					check_ki_batch(&l, area, keys[off], 6,
						       lens[k], bank);
		for (unsigned i = 0; i < KEYS; i++) {
			uint64_t v = query(&l, area, keys[i], 6, i % 2);

			zero += v == 0;
			over += i % 3 && v > 1 + i;
		}
		/* the workload had empty counters and overestimates */
		assert_true(over > 0);
		assert_true(zero > 0 || rows[r] == 1);
		free(area);
	}
}

/* A sketch large enough to be prefetched: the same estimates. */
static void test_batch_large_structure(void **state)
{
	enum { KEYS = 3000 };
	struct dta_layout l;
	uint8_t (*keys)[13] = malloc(KEYS * 13);
	uint64_t *area;

	(void)state;
	assert_non_null(keys);
	assert_int_equal(dta_layout_ki(&l, 1u << 15, 2, 1, DTA_HASH_CRC32C, 1), 0);
	assert_true(l.data_size >= (512u << 10));
	area = zalloc(l.data_size);
	for (unsigned i = 0; i < KEYS; i++) {
		rnd_bytes(keys[i], 13);
		if (i % 4)
			inc(&l, area, keys[i], 13, i, 0);
	}
	check_ki_batch(&l, area, keys[0], 13, KEYS, 0);
	free(area);
	free(keys);
}

/* n = 0 does nothing; bad arguments fail before anything is written. */
static void test_batch_bad_args(void **state)
{
	struct dta_layout l, l1, ap;
	uint8_t key[2][4] = { { 1 }, { 2 } };
	uint64_t *area, out[2] = { 99, 99 };

	(void)state;
	assert_int_equal(dta_layout_ki(&l, 64, 3, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_layout_ki(&l1, 64, 3, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_layout_ap(&ap, 1, 4, 4, 8, 0), 0);
	area = zalloc(l.data_size);

	assert_int_equal(dta_ki_query_batch(&l, area, key, 4, 0, 0, out), 0);
	assert_int_equal(dta_ki_query_batch(NULL, area, key, 4, 2, 0, out), -EINVAL);
	assert_int_equal(dta_ki_query_batch(&l, NULL, key, 4, 2, 0, out), -EINVAL);
	assert_int_equal(dta_ki_query_batch(&l, area, NULL, 4, 2, 0, out), -EINVAL);
	assert_int_equal(dta_ki_query_batch(&l, area, key, 4, 2, 0, NULL), -EINVAL);
	assert_int_equal(dta_ki_query_batch(&l, area, key, 0, 2, 0, out), -EINVAL);
	assert_int_equal(dta_ki_query_batch(&l, area, key, DTA_KEY_MAX + 1, 2, 0,
					    out), -EINVAL);
	assert_int_equal(dta_ki_query_batch(&l, area, key, 4, SIZE_MAX / 2, 0,
					    out), -EINVAL);
	assert_int_equal(dta_ki_query_batch(&ap, area, key, 4, 2, 0, out),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_ki_query_batch(&l, area, key, 4, 2, 2, out),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_ki_query_batch(&l1, area, key, 4, 2, 1, out),
			 -DTA_E_MISMATCH);
	assert_true(out[0] == 99 && out[1] == 99);
	inc(&l, area, key[1], 4, 7, 1);
	check_ki_batch(&l, area, key[1], 4, 1, 1);
	assert_int_equal(dta_ki_query_batch(&l, area, key, 4, 2, 1, out), 0);
	assert_true(out[0] == 0 && out[1] == 7);
	free(area);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_crc32c),
		cmocka_unit_test(test_ops_crc32c_row0),
		cmocka_unit_test(test_ops_xxh3_all_rows),
		cmocka_unit_test(test_exact_sums_crc32c),
		cmocka_unit_test(test_exact_sums_xxh3),
		cmocka_unit_test(test_count_min_collisions),
		cmocka_unit_test(test_count_min_crc32c),
		cmocka_unit_test(test_banks),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_batch_matches_single),
		cmocka_unit_test(test_batch_bad_args),
		cmocka_unit_test(test_batch_large_structure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
