/* SPDX-License-Identifier: BSD-3-Clause */
/* Key-Write: writer ops, queries, collisions, conflicts, bounds. */
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

#include "dta/analysis.h"
#include "dta/hash.h"
#include "dta/keywrite.h"
#include "dta/wire.h"

static uint64_t rng_state = 42;

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

/* Write a report into @area through the writer ops. */
static void put(const struct dta_layout *l, uint8_t *area, const void *key,
		size_t klen, const void *data, unsigned n)
{
	uint8_t slot[8 + 1024];
	struct dta_memop ops[8];
	int k = dta_kw_ops(l, key, klen, data, l->g.kw.data_len, n, slot,
			   sizeof(slot), ops, 8);

	assert_int_equal(k, (int)n);
	assert_int_equal(dta_memops_apply(area, l->data_size, ops, (size_t)k), k);
}

static int get(const struct dta_layout *l, const uint8_t *area,
	       const void *key, size_t klen, unsigned n, unsigned t,
	       void *out, struct dta_kw_result *res)
{
	struct dta_kw_query_opts o = { .redundancy = n, .threshold = t };

	assert_int_equal(dta_kw_query(l, area, key, klen, &o, out,
				      l->g.kw.data_len, res), 0);
	return res->status;
}

/* Copy 0 of the CRC-32C family with seed 0 is plain CRC-32C of the key;
 * the slot is {checksum big-endian, data}. */
static void test_ops_crc32c_reference(void **state)
{
	static const uint8_t key[13] = { 10, 0, 0, 1, 10, 0, 0, 2, 0x1f, 0x90,
					 0x00, 0x50, 6 };
	static const uint8_t data[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct dta_layout l;
	struct dta_memop ops[8];
	uint8_t slot[64];
	uint64_t csum;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1000003, 4, 4, 4, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(l.g.kw.slot_size, 8);
	assert_int_equal(dta_kw_ops(&l, key, 13, data, 4, 2, slot, sizeof(slot),
				    ops, 8), 2);
	assert_int_equal(ops[0].kind, DTA_MEMOP_WRITE);
	assert_int_equal(ops[0].len, 8);
	assert_int_equal(ops[0].offset,
			 (uint64_t)(dta_crc32c(0, key, 13) % 1000003) * 8);
	assert_true(ops[1].offset % 8 == 0 && ops[1].offset < 1000003ull * 8);
	csum = dta_kw_checksum(&l, key, 13);
	assert_int_equal(slot[0], (uint8_t)(csum >> 24));
	assert_int_equal(slot[3], (uint8_t)csum);
	assert_memory_equal(slot + 4, data, 4);
}

static uint64_t splitmix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* XXH3 family, checked against libxxhash called directly with the seed
 * derivation docs/hashing.md gives. */
static void test_ops_xxh3_reference(void **state)
{
	uint8_t key[37], data[20], slot[64];
	struct dta_layout l;
	struct dta_memop ops[8];
	const uint64_t seed = 77, slots = 1u << 20;

	(void)state;
	rnd_bytes(key, sizeof(key));
	rnd_bytes(data, sizeof(data));
	assert_int_equal(dta_layout_kw(&l, slots, 20, 8, 4, DTA_HASH_XXH3, seed), 0);
	assert_int_equal(dta_kw_ops(&l, key, 37, data, 20, 4, slot, sizeof(slot),
				    ops, 8), 4);
	for (unsigned n = 0; n < 4; n++) {
		uint64_t h = XXH3_64bits_withSeed(
			key, 37, splitmix(seed ^ (0x9E3779B97F4A7C15ull * (n + 1))));

		assert_int_equal(ops[n].offset, (h % slots) * 28);
		assert_ptr_equal(ops[n].data, slot);
	}
	uint64_t c = XXH3_64bits_withSeed(
		key, 37, splitmix(seed ^ (0x9E3779B97F4A7C15ull * (DTA_HF_CHECKSUM + 1))));
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(slot[i], (uint8_t)(c >> (56 - 8 * i)));
	assert_memory_equal(slot + 8, data, 20);
}

/* Sparse structure: every key comes back exactly (IPv6 5-tuple keys, a
 * 20-byte INT path as data). */
static void test_round_trip(void **state)
{
	enum { KEYS = 4096 };
	struct dta_layout l;
	uint8_t *area, (*keys)[37], (*vals)[20], out[20];
	struct dta_kw_result res;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1u << 22, 20, 4, 4, DTA_HASH_CRC32C, 3), 0);
	area = calloc(1, l.data_size);
	keys = malloc(sizeof(*keys) * KEYS);
	vals = malloc(sizeof(*vals) * KEYS);
	assert_non_null(area);
	for (int i = 0; i < KEYS; i++) {
		rnd_bytes(keys[i], 37);
		rnd_bytes(vals[i], 20);
		put(&l, area, keys[i], 37, vals[i], 1 + i % 4);
	}
	for (int i = 0; i < KEYS; i++) {
		assert_int_equal(get(&l, area, keys[i], 37, 0, 0, out, &res), DTA_Q_FOUND);
		assert_memory_equal(out, vals[i], 20);
	}
	free(vals);
	free(keys);
	free(area);
}

/* Find a key whose copy-0 slot equals @slot (brute force). */
static void key_for_slot(const struct dta_layout *l, uint64_t slot,
			 uint32_t start, uint8_t key[4])
{
	for (uint32_t k = start;; k++) {
		memcpy(key, &k, 4);
		if (dta_kw_slot(l, key, 4, 0) == slot)
			return;
	}
}

static void test_collision_overwrites(void **state)
{
	struct dta_layout l;
	uint8_t area[64 * 5] = { 0 }, a[4], b[4], out[1];
	uint8_t da = 0xAA, db = 0xBB;
	struct dta_kw_result res;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 64, 1, 4, 1, DTA_HASH_CRC32C, 0), 0);
	key_for_slot(&l, 5, 1, a);
	key_for_slot(&l, 5, 0x40000000, b);
	assert_memory_not_equal(a, b, 4);
	put(&l, area, a, 4, &da, 1);
	assert_int_equal(get(&l, area, a, 4, 1, 0, out, &res), DTA_Q_FOUND);
	assert_int_equal(out[0], 0xAA);
	put(&l, area, b, 4, &db, 1);
	assert_int_equal(get(&l, area, b, 4, 1, 0, out, &res), DTA_Q_FOUND);
	assert_int_equal(out[0], 0xBB);
	/* a's only slot now has b's checksum. */
	assert_int_equal(get(&l, area, a, 4, 1, 0, out, &res), DTA_Q_NOT_FOUND);
	assert_int_equal(res.candidates, 0);
}

/* Write copies by hand to make slots disagree. */
static void put_copy(const struct dta_layout *l, uint8_t *area,
		     const void *key, size_t klen, uint8_t data, unsigned copy)
{
	uint8_t slot[16];
	struct dta_memop ops[8];

	assert_int_equal(dta_kw_ops(l, key, klen, &data, 1, copy + 1, slot,
				    sizeof(slot), ops, 8), (int)copy + 1);
	assert_int_equal(dta_memops_apply(area, l->data_size, &ops[copy], 1), 1);
}

static void test_conflict_and_vote(void **state)
{
	struct dta_layout l;
	uint8_t *area, out[1];
	const char *key = "flow-42";
	struct dta_kw_result res;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1u << 16, 1, 4, 4, DTA_HASH_CRC32C, 9), 0);
	area = calloc(1, l.data_size);
	/* Two copies, two values: a tie is a conflict, not a guess. */
	put_copy(&l, area, key, 7, 0x11, 0);
	put_copy(&l, area, key, 7, 0x22, 1);
	assert_int_equal(get(&l, area, key, 7, 2, 0, out, &res), DTA_Q_CONFLICT);
	assert_int_equal(res.votes, 1);
	assert_int_equal(res.candidates, 2);
	/* A third copy breaks the tie by plurality. */
	put_copy(&l, area, key, 7, 0x22, 2);
	assert_int_equal(get(&l, area, key, 7, 3, 0, out, &res), DTA_Q_FOUND);
	assert_int_equal(out[0], 0x22);
	assert_int_equal(res.votes, 2);
	/* Consensus threshold T: 2 votes pass T=2, fail T=3. */
	assert_int_equal(get(&l, area, key, 7, 3, 2, out, &res), DTA_Q_FOUND);
	assert_int_equal(get(&l, area, key, 7, 3, 3, out, &res), DTA_Q_NOT_FOUND);
	free(area);
}

/* Written with N = 1, queried assuming N = 8: extra slots look overwritten. */
static void test_query_assumes_larger_n(void **state)
{
	struct dta_layout l;
	uint8_t *area, out[4];
	const uint8_t data[4] = { 1, 2, 3, 4 };
	struct dta_kw_result res;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1u << 12, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	area = calloc(1, l.data_size);
	put(&l, area, "k", 1, data, 1);
	assert_int_equal(get(&l, area, "k", 1, 8, 0, out, &res), DTA_Q_FOUND);
	assert_int_equal(res.votes, 1);
	assert_memory_equal(out, data, 4);
	free(area);
}

/* Never-written slots are zero; a checksum of 0 is stored as 1, so a
 * query on an empty structure finds nothing even with 8-bit checksums
 * (without the remap about 1 key in 256 would "find" zero data). */
static void test_empty_never_matches(void **state)
{
	struct dta_layout l;
	uint8_t *area, key[8], out[2];
	struct dta_kw_result res;
	int zero_csum = 0;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1u << 10, 2, 1, 4, DTA_HASH_CRC32C, 0), 0);
	area = calloc(1, l.data_size);
	for (int i = 0; i < 20000; i++) {
		rnd_bytes(key, 8);
		assert_int_equal(get(&l, area, key, 8, 0, 0, out, &res), DTA_Q_NOT_FOUND);
		assert_true(dta_kw_checksum(&l, key, 8) != 0);
		zero_csum += (dta_hashfn_eval(&l.fn[DTA_HF_CHECKSUM], key, 8) & 0xff) == 0;
	}
	assert_true(zero_csum > 0); /* the remap was exercised */
	free(area);
}

static void test_batch_matches_single(void **state)
{
	enum { KEYS = 1000 };
	struct dta_layout l;
	uint8_t *area, keys[KEYS][13], out[KEYS][4], one[4];
	struct dta_kw_result res[KEYS], r1;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1u << 11, 4, 2, 2, DTA_HASH_CRC32C, 5), 0);
	area = calloc(1, l.data_size);
	for (int i = 0; i < KEYS; i++) {
		uint8_t d[4];

		rnd_bytes(keys[i], 13);
		rnd_bytes(d, 4);
		if (i % 3)
			put(&l, area, keys[i], 13, d, 2);
	}
	assert_int_equal(dta_kw_query_batch(&l, area, keys, 13, KEYS, NULL, out,
					    sizeof(out), res), 0);
	for (int i = 0; i < KEYS; i++) {
		get(&l, area, keys[i], 13, 0, 0, one, &r1);
		assert_int_equal(res[i].status, r1.status);
		assert_int_equal(res[i].votes, r1.votes);
		if (r1.status == DTA_Q_FOUND)
			assert_memory_equal(out[i], one, 4);
	}
	free(area);
}

/* Batch answers (status, votes, candidates, data) for keys @keys[0..n-1]
 * equal the single queries', for every opts given. */
static void check_batch(const struct dta_layout *l, const uint8_t *area,
			const uint8_t *keys, size_t klen, size_t n,
			const struct dta_kw_query_opts *o)
{
	size_t dl = l->g.kw.data_len;
	uint8_t *out = malloc(n * dl + 1), one[64];
	struct dta_kw_result *res = malloc((n + 1) * sizeof(*res)), r1;

	assert_non_null(out);
	assert_non_null(res);
	memset(out, 0xa5, n * dl + 1);
	assert_int_equal(dta_kw_query_batch(l, area, keys, klen, n, o, out,
					    n * dl, res), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(dta_kw_query(l, area, keys + i * klen, klen, o,
					      one, sizeof(one), &r1), 0);
		assert_int_equal(res[i].status, r1.status);
		assert_int_equal(res[i].votes, r1.votes);
		assert_int_equal(res[i].candidates, r1.candidates);
		if (r1.status == DTA_Q_FOUND)
			assert_memory_equal(out + i * dl, one, dl);
	}
	assert_int_equal(out[n * dl], 0xa5); /* nothing past the n answers */
	free(res);
	free(out);
}

/*
 * A crowded table (overwrites, conflicts), keys present, overwritten,
 * absent and deliberately conflicting; every batch length around the
 * pipeline's group boundaries and at every offset, N = 1..4 and a
 * threshold, in both hash families the batch treats differently.
 */
static void test_batch_matches_single_everywhere(void **state)
{
	enum { KEYS = 600 };
	static const size_t lens[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23,
				       24, 25, 31, 32, 33, 63, 64, 65, 100,
				       KEYS };
	static const int fams[] = { DTA_HASH_CRC32C, DTA_HASH_XXH3,
				    DTA_HASH_PROTOTYPE };
	uint8_t keys[KEYS][4];

	(void)state;
	for (unsigned f = 0; f < 3; f++) {
		struct dta_layout l;
		unsigned dlen = fams[f] == DTA_HASH_PROTOTYPE ? 4 : 6;
		unsigned conflicts = 0, found = 0, absent = 0;
		uint8_t *area;

		assert_int_equal(dta_layout_kw(&l, 1u << 9, dlen, 4, 4, fams[f], 9),
				 0);
		area = calloc(1, l.data_size);
		assert_non_null(area);
		for (int i = 0; i < KEYS; i++) {
			uint8_t d[8];

			rnd_bytes(keys[i], 4);
			rnd_bytes(d, dlen);
			if (i % 4 == 3)
				continue; /* absent */
			put(&l, area, keys[i], 4, d, 1 + (unsigned)i % 4);
			if (i % 8 == 1) {
				/* copy 1 of this key now holds other data */
				uint8_t slot[16];
				struct dta_memop ops[8];

				d[0] ^= 0xff;
				assert_int_equal(dta_kw_ops(&l, keys[i], 4, d, dlen,
							    2, slot, sizeof(slot),
							    ops, 8), 2);
				assert_int_equal(dta_memops_apply(area, l.data_size,
								  &ops[1], 1), 1);
			}
		}
		for (unsigned n = 1; n <= 4; n++) {
			struct dta_kw_query_opts o = { .redundancy = n,
						       .threshold = n == 3 ? 2 : 0 };

			for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++)
				for (size_t off = 0; off + lens[t] <= KEYS;
				     off += lens[t] < 40 ? 37 : 250)
					check_batch(&l, area, keys[off], 4, lens[t],
						    &o);
		}
		check_batch(&l, area, keys[0], 4, KEYS, NULL);
		/* the workload reached every kind of answer */
		for (int i = 0; i < KEYS; i++) {
			struct dta_kw_result r;
			uint8_t one[8];

			get(&l, area, keys[i], 4, 2, 0, one, &r);
			conflicts += r.status == DTA_Q_CONFLICT;
			found += r.status == DTA_Q_FOUND;
			absent += r.status == DTA_Q_NOT_FOUND;
		}
		assert_true(conflicts > 0 && found > 0 && absent > 0);
		free(area);
	}
}

/* A structure large enough to be prefetched (the batch skips prefetching
 * structures that fit in cache): the same answers. */
static void test_batch_large_structure(void **state)
{
	enum { KEYS = 3000 };
	struct dta_layout l;
	uint8_t *area, (*keys)[13] = malloc(KEYS * 13);
	struct dta_kw_query_opts o = { .redundancy = 2 };

	(void)state;
	assert_non_null(keys);
	assert_int_equal(dta_layout_kw(&l, 1u << 15, 20, 4, 2, DTA_HASH_CRC32C, 1),
			 0);
	assert_true(l.data_size >= (512u << 10));
	area = calloc(1, l.data_size);
	assert_non_null(area);
	for (int i = 0; i < KEYS; i++) {
		uint8_t d[20];

		rnd_bytes(keys[i], 13);
		rnd_bytes(d, 20);
		if (i % 5)
			put(&l, area, keys[i], 13, d, 2);
	}
	check_batch(&l, area, keys[0], 13, KEYS, &o);
	check_batch(&l, area, keys[1], 13, KEYS - 1, NULL);
	free(area);
	free(keys);
}

/*
 * Appendix A.5 written out plainly over the slot bytes, as a second
 * implementation: the slots of copies 0..n-1 (a slot two copies share
 * counts once), those whose stored checksum equals the key's are
 * candidates, equal data is one candidate; a unique leader with at least
 * @t votes is FOUND, two leaders a CONFLICT.
 */
static int ref_query(const struct dta_layout *l, const uint8_t *area,
		     const uint8_t *key, size_t klen, unsigned n, unsigned t,
		     uint8_t *out, struct dta_kw_result *res)
{
	size_t ss = l->g.kw.slot_size, cb = l->g.kw.csum_bytes;
	size_t dl = l->g.kw.data_len;
	uint64_t want = dta_kw_checksum(l, key, klen), seen[8];
	const uint8_t *cand[8];
	unsigned votes[8] = { 0 }, nc = 0, top = 0, leaders = 0, win = 0;

	res->candidates = 0;
	for (unsigned c = 0; c < n; c++) {
		uint64_t s = dta_kw_slot(l, key, klen, c), got = 0;
		const uint8_t *slot = area + s * ss;
		unsigned k;
		int dup = 0;

		for (unsigned m = 0; m < c; m++)
			dup |= seen[m] == s;
		seen[c] = s;
		for (size_t b = 0; b < cb; b++) /* prototype: little-endian */
			got |= (uint64_t)slot[b]
			       << (l->hash_family == DTA_HASH_PROTOTYPE
					   ? 8 * b
					   : 8 * (cb - 1 - b));
		if (dup || got != want)
			continue;
		res->candidates++;
		for (k = 0; k < nc; k++)
			if (!memcmp(cand[k] + cb, slot + cb, dl))
				break;
		if (k == nc)
			cand[nc++] = slot;
		votes[k]++;
	}
	for (unsigned k = 0; k < nc; k++)
		top = votes[k] > top ? votes[k] : top;
	for (unsigned k = 0; k < nc; k++)
		if (votes[k] == top) {
			leaders++;
			win = k;
		}
	res->votes = top;
	if (nc == 0)
		res->status = DTA_Q_NOT_FOUND;
	else if (leaders > 1)
		res->status = DTA_Q_CONFLICT;
	else if (top < t)
		res->status = DTA_Q_NOT_FOUND;
	else
		res->status = DTA_Q_FOUND;
	if (res->status == DTA_Q_FOUND)
		memcpy(out, cand[win] + cb, dl);
	return res->status;
}

/*
 * Single and batched queries against ref_query() on crowded tables, for
 * slot sizes on each side of the paths the library specialises (below 8
 * bytes, 8-15, 16-32, above 32), every checksum width, N = 1..8 assumed
 * (written with 1..8 copies), thresholds 0..3, copies overwritten by
 * other data under the same checksum (conflicts, pluralities) and copies
 * that share a slot.
 */
static void test_query_matches_reference(void **state)
{
	enum { KEYS = 700, KL = 5 };
	static const struct {
		int fam;
		unsigned cb, dl;
	} geo[] = {
		{ DTA_HASH_CRC32C, 4, 1 },  { DTA_HASH_CRC32C, 1, 3 },
		{ DTA_HASH_CRC32C, 2, 6 },  { DTA_HASH_CRC32C, 4, 4 },
		{ DTA_HASH_CRC32C, 4, 7 },  { DTA_HASH_CRC32C, 1, 14 },
		{ DTA_HASH_CRC32C, 4, 12 }, { DTA_HASH_CRC32C, 2, 17 },
		{ DTA_HASH_CRC32C, 4, 20 }, { DTA_HASH_CRC32C, 4, 28 },
		{ DTA_HASH_CRC32C, 4, 29 }, { DTA_HASH_CRC32C, 4, 60 },
		{ DTA_HASH_XXH3, 8, 8 },    { DTA_HASH_XXH3, 8, 20 },
		{ DTA_HASH_XXH3, 8, 24 },   { DTA_HASH_XXH3, 8, 25 },
		{ DTA_HASH_CRC32, 4, 20 },  { DTA_HASH_PROTOTYPE, 4, 4 },
		{ DTA_HASH_PROTOTYPE, 4, 20 },
	};
	uint8_t (*keys)[KL] = malloc(KEYS * KL);
	uint8_t *out = malloc(KEYS * 64), one[64], ref[64];
	struct dta_kw_result *res = malloc(KEYS * sizeof(*res)), r1, rr;
	unsigned seen[4] = { 0 };

	(void)state;
	assert_non_null(keys);
	assert_non_null(out);
	assert_non_null(res);
	for (size_t g = 0; g < sizeof(geo) / sizeof(geo[0]); g++) {
		struct dta_layout l;
		uint8_t *area;

		assert_int_equal(dta_layout_kw(&l, 256, geo[g].dl, geo[g].cb, 8,
					       geo[g].fam, 3 + g),
				 0);
		area = calloc(1, l.data_size);
		assert_non_null(area);
		for (int i = 0; i < KEYS; i++) {
			uint8_t d[64], slot[8 + 64];
			struct dta_memop ops[8];
			unsigned w = 1 + (unsigned)rnd() % 8;

			rnd_bytes(keys[i], KL);
			/* few distinct values, so that copies agree often */
			memset(d, (int)(rnd() % 3), geo[g].dl);
			if (i % 5 == 4)
				continue; /* absent */
			put(&l, area, keys[i], KL, d, w);
			if (i % 3 == 0) {
				/* some copies now hold other data */
				d[geo[g].dl - 1] ^= 0x40;
				assert_int_equal(dta_kw_ops(&l, keys[i], KL, d,
							    geo[g].dl, 8, slot,
							    sizeof(slot), ops, 8),
						 8);
				for (unsigned c = 0; c < 8; c++)
					if (rnd() % 3 == 0)
						dta_memops_apply(area, l.data_size,
								 &ops[c], 1);
			}
		}
		for (unsigned n = 1; n <= 8; n++) {
			for (unsigned t = 0; t <= 3; t++) {
				struct dta_kw_query_opts o = { n, t };
				size_t dl = geo[g].dl;

				memset(out, 0xa5, KEYS * dl);
				assert_int_equal(dta_kw_query_batch(&l, area, keys,
								    KL, KEYS, &o,
								    out, KEYS * dl,
								    res),
						 0);
				for (int i = 0; i < KEYS; i++) {
					ref_query(&l, area, keys[i], KL, n, t, ref,
						  &rr);
					assert_int_equal(dta_kw_query(&l, area,
								      keys[i], KL,
								      &o, one, dl,
								      &r1),
							 0);
					assert_int_equal(r1.status, rr.status);
					assert_int_equal(r1.votes, rr.votes);
					assert_int_equal(r1.candidates,
							 rr.candidates);
					assert_int_equal(res[i].status, rr.status);
					assert_int_equal(res[i].votes, rr.votes);
					assert_int_equal(res[i].candidates,
							 rr.candidates);
					if (rr.status == DTA_Q_FOUND) {
						assert_memory_equal(one, ref, dl);
						assert_memory_equal(out + i * dl,
								    ref, dl);
					}
					seen[rr.status]++;
				}
			}
		}
		free(area);
	}
	/* the workload reached every kind of answer */
	assert_true(seen[DTA_Q_FOUND] && seen[DTA_Q_NOT_FOUND] &&
		    seen[DTA_Q_CONFLICT]);
	free(res);
	free(out);
	free(keys);
}

/* n = 0 does nothing; bad arguments fail before anything is written. */
static void test_batch_edges(void **state)
{
	struct dta_layout l, ki;
	uint8_t area[64 * 8] = { 0 }, out[3 * 4], key[3][5] = { "abcd", "efgh", "ijkl" };
	struct dta_kw_result res[3];
	struct dta_kw_query_opts big = { .redundancy = DTA_MAX_REDUNDANCY + 1 };

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 64, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	memset(res, 0x5a, sizeof(res));
	memset(out, 0x5a, sizeof(out));
	assert_int_equal(dta_kw_query_batch(&l, area, key, 5, 0, NULL, out, 0, res),
			 0);
	assert_int_equal(res[0].status, 0x5a5a5a5a);
	assert_int_equal(out[0], 0x5a);
	/* one key: the same answer as a single query */
	put(&l, area, key[1], 5, "DATA", 2);
	check_batch(&l, area, key[1], 5, 1, NULL);
	check_batch(&l, area, key[0], 5, 3, NULL);

	assert_int_equal(dta_kw_query_batch(NULL, area, key, 5, 3, NULL, out,
					    sizeof(out), res), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, NULL, key, 5, 3, NULL, out,
					    sizeof(out), res), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, area, NULL, 5, 3, NULL, out,
					    sizeof(out), res), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, area, key, 5, 3, NULL, NULL,
					    sizeof(out), res), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, area, key, 5, 3, NULL, out,
					    sizeof(out), NULL), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, area, key, 0, 3, NULL, out,
					    sizeof(out), res), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, area, key, DTA_KEY_MAX + 1, 3,
					    NULL, out, sizeof(out), res), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, area, key, 5, 3, &big, out,
					    sizeof(out), res), -EINVAL);
	assert_int_equal(dta_kw_query_batch(&l, area, key, 5, 3, NULL, out,
					    sizeof(out) - 1, res), -ENOSPC);
	assert_int_equal(dta_kw_query_batch(&l, area, key, 5, SIZE_MAX / 4, NULL, out,
					    SIZE_MAX, res), -EINVAL);
	assert_int_equal(dta_layout_ki(&ki, 16, 2, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_kw_query_batch(&ki, area, key, 5, 3, NULL, out,
					    sizeof(out), res), -DTA_E_PRIMITIVE);
	/* none of the failures above wrote an answer */
	assert_int_equal(res[2].status, 0x5a5a5a5a);
	assert_int_equal(out[11], 0x5a);
}

/*
 * Report age: query each key once exactly alpha*M other keys have been
 * written after it (section 4, appendix A.5). The empty-return fraction
 * must sit at the paper's bound (it is tight for 32-bit checksums), and
 * no answer may be wrong. Correlated hash functions (one CRC polynomial
 * with different seeds) fail this badly: both copies die together.
 */
static void measure_age(int family, unsigned n, double alpha, double *empty,
			double *wrong)
{
	enum { M = 1 << 15, QUERIES = 120000 };
	const unsigned age = (unsigned)(alpha * M);
	struct dta_layout l;
	uint8_t *area, out[4];
	uint32_t *keys;
	unsigned e = 0, w = 0;

	assert_int_equal(dta_layout_kw(&l, M, 4, 4, n, family, 1234), 0);
	area = calloc(1, l.data_size);
	keys = malloc(sizeof(*keys) * (QUERIES + age));
	for (unsigned i = 0; i < QUERIES + age; i++) {
		uint8_t k[13] = { 0 };
		uint32_t v;

		keys[i] = (uint32_t)rnd();
		memcpy(k, &keys[i], 4);
		memcpy(k + 4, &i, 4);
		v = keys[i] ^ 0x5a5a5a5a;
		put(&l, area, k, 13, &v, n);
		if (i >= age) {
			unsigned q = i - age;
			struct dta_kw_result res;

			memcpy(k, &keys[q], 4);
			memcpy(k + 4, &q, 4);
			get(&l, area, k, 13, n, 0, out, &res);
			v = keys[q] ^ 0x5a5a5a5a;
			if (res.status != DTA_Q_FOUND)
				e++;
			else if (memcmp(out, &v, 4))
				w++;
		}
	}
	*empty = (double)e / QUERIES;
	*wrong = (double)w / QUERIES;
	free(keys);
	free(area);
}

static void test_bound_report_age(void **state)
{
	static const struct {
		unsigned n;
		double alpha;
	} cases[] = { { 1, 0.1 }, { 2, 0.1 }, { 4, 0.1 }, { 2, 0.5 } };

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double empty, wrong;
		double bound = dta_bound_kw_empty(cases[i].n, 32, cases[i].alpha);
		double sigma = sqrt(bound * (1 - bound) / 120000);

		for (int fam = DTA_HASH_CRC32C; fam <= DTA_HASH_XXH3; fam += 2) {
			measure_age(fam, cases[i].n, cases[i].alpha, &empty, &wrong);
			print_message("N=%u alpha=%.1f %s: empty %.4f bound %.4f\n",
				      cases[i].n, cases[i].alpha,
				      dta_hash_family_name(fam), empty, bound);
			assert_true(empty <= bound + 4 * sigma);
			assert_true(empty >= bound * 0.8);
			assert_true(wrong == 0);
		}
	}
}

static void test_bad_input(void **state)
{
	struct dta_layout l, ki;
	uint8_t slot[16], out[4], data[4] = { 0 };
	uint8_t big[65] = { 0 };
	struct dta_memop ops[8];
	struct dta_kw_result res;
	struct dta_kw_query_opts o = { .redundancy = 9 };

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 0, 4, 4, 2, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, 16, 0, 4, 2, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, 16, 4, 3, 2, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, 16, 4, 8, 2, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, 16, 4, 4, 9, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, (1ull << 32) + 1, 4, 4, 2,
				       DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, 16, 4, 4, 2, 99, 0), -DTA_E_HASHFAMILY);
	assert_int_equal(dta_layout_kw(&l, 16, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);

	assert_int_equal(dta_kw_ops(&l, "k", 1, data, 3, 1, slot, 16, ops, 8),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_kw_ops(&l, "k", 1, data, 4, 0, slot, 16, ops, 8),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_kw_ops(&l, "k", 1, data, 4, 3, slot, 16, ops, 8),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_kw_ops(&l, "k", 0, data, 4, 1, slot, 16, ops, 8), -EINVAL);
	assert_int_equal(dta_kw_ops(&l, big, 65, data, 4, 1, slot, 16, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_kw_ops(&l, NULL, 1, data, 4, 1, slot, 16, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_kw_ops(&l, "k", 1, data, 4, 2, slot, 16, ops, 1),
			 -ENOSPC);
	assert_int_equal(dta_kw_ops(&l, "k", 1, data, 4, 1, slot, 7, ops, 8),
			 -ENOSPC);
	assert_int_equal(dta_kw_query(&l, slot, "k", 1, NULL, out, 3, &res), -ENOSPC);
	assert_int_equal(dta_kw_query(&l, slot, "k", 1, &o, out, 4, &res), -EINVAL);
	assert_int_equal(dta_kw_query(&l, NULL, "k", 1, NULL, out, 4, &res), -EINVAL);

	assert_int_equal(dta_layout_ki(&ki, 16, 2, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_kw_ops(&ki, "k", 1, data, 4, 1, slot, 16, ops, 8),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_kw_query(&ki, slot, "k", 1, NULL, out, 4, &res),
			 -DTA_E_PRIMITIVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_crc32c_reference),
		cmocka_unit_test(test_ops_xxh3_reference),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_collision_overwrites),
		cmocka_unit_test(test_conflict_and_vote),
		cmocka_unit_test(test_query_assumes_larger_n),
		cmocka_unit_test(test_empty_never_matches),
		cmocka_unit_test(test_batch_matches_single),
		cmocka_unit_test(test_batch_matches_single_everywhere),
		cmocka_unit_test(test_batch_edges),
		cmocka_unit_test(test_batch_large_structure),
		cmocka_unit_test(test_query_matches_reference),
		cmocka_unit_test(test_bound_report_age),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
