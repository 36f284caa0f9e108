/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Postcarding (DTA paper section 4, appendix A.6): chunk encoding against an
 * independent XXH3 reference, round trips, validity rules, conflicts,
 * collisions, the codebook, the paper's bounds (eq. 5-8) and bad arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <xxhash.h>

#include "dta/hash.h"
#include "dta/keywrite.h"
#include "dta/layout.h"
#include "dta/postcard.h"
#include "dta/wire.h"

/* ---- independent reference of the XXH3 family and the chunk format ---- */

static uint64_t ref_fmix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Function of role @r in the XXH3 family with structure seed @seed. */
static uint64_t ref_h(uint64_t seed, unsigned r, const void *p, size_t n)
{
	uint64_t s = ref_fmix(seed ^ (0x9E3779B97F4A7C15ull * (r + 1)));

	return XXH3_64bits_withSeed(p, n, s);
}

struct ref {
	uint64_t seed;
	uint64_t chunks;
	unsigned hops;
	unsigned sb; /* slot bytes */
	unsigned n;  /* redundancy */
	unsigned chunk_size;
};

static struct ref ref_of(uint64_t seed, uint64_t chunks, unsigned hops,
			 unsigned sb, unsigned n)
{
	struct ref r = { seed, chunks, hops, sb, n, 1 };

	while (r.chunk_size < hops * sb)
		r.chunk_size *= 2;
	return r;
}

static uint32_t ref_mask(const struct ref *r)
{
	return r->sb == 4 ? 0xFFFFFFFFu : (uint32_t)((1ull << (8 * r->sb)) - 1);
}

static uint64_t ref_chunk(const struct ref *r, const void *key, size_t klen,
			  unsigned copy)
{
	return ref_h(r->seed, DTA_HF_SLOT(copy), key, klen) % r->chunks;
}

static uint32_t ref_code(const struct ref *r, uint32_t v)
{
	uint8_t be[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			  (uint8_t)(v >> 8), (uint8_t)v };

	return (uint32_t)ref_h(r->seed, DTA_HF_VALUE, be, 4) & ref_mask(r);
}

static uint32_t ref_blank(const struct ref *r)
{
	return (uint32_t)ref_h(r->seed, DTA_HF_VALUE, "", 0) & ref_mask(r);
}

static uint32_t ref_hop(const struct ref *r, const void *key, size_t klen,
			unsigned i)
{
	return (uint32_t)ref_h(r->seed, DTA_HF_HOP(i), key, klen) & ref_mask(r);
}

static void ref_put_slot(const struct ref *r, uint8_t *chunk, unsigned i,
			 uint32_t w)
{
	for (unsigned k = 0; k < r->sb; k++)
		chunk[i * r->sb + k] = (uint8_t)(w >> (8 * (r->sb - 1 - k)));
}

/* The chunk flow @key writes for path @vals[0..plen); @out has chunk_size
 * bytes. */
static void ref_build(const struct ref *r, const void *key, size_t klen,
		      const uint32_t *vals, unsigned plen, uint8_t *out)
{
	memset(out, 0, r->chunk_size);
	for (unsigned i = 0; i < r->hops; i++) {
		uint32_t g = i < plen ? ref_code(r, vals[i]) : ref_blank(r);

		ref_put_slot(r, out, i, ref_hop(r, key, klen, i) ^ g);
	}
}

/* Store @chunk as copy @copy of @key, by hand. */
static void ref_store(const struct ref *r, uint8_t *area, const void *key,
		      size_t klen, unsigned copy, const uint8_t *chunk)
{
	memcpy(area + ref_chunk(r, key, klen, copy) * r->chunk_size, chunk,
	       r->chunk_size);
}

/* ---- helpers ---- */

static uint64_t rng_state = 0x5EED;

static uint64_t rnd(void)
{
	return ref_fmix(rng_state += 0x9E3779B97F4A7C15ull);
}

/* IPv4 5-tuple: src, dst, sport, dport, proto = 13 bytes; distinct per @t. */
static void flow_key(uint32_t t, uint8_t key[13])
{
	key[0] = 10;
	key[1] = (uint8_t)(t >> 16);
	key[2] = (uint8_t)(t >> 8);
	key[3] = (uint8_t)t;
	key[4] = 192;
	key[5] = 168;
	key[6] = (uint8_t)(t >> 24);
	key[7] = (uint8_t)(t * 7);
	key[8] = (uint8_t)(t >> 3);
	key[9] = (uint8_t)(40000 + t % 20000);
	key[10] = 0;
	key[11] = 80;
	key[12] = 6;
}

/* |V| distinct switch ids. */
static void make_values(uint32_t *v, size_t n, uint32_t base)
{
	for (size_t i = 0; i < n; i++)
		v[i] = base + (uint32_t)i * 2654435761u;
}

static int in_set(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static void pc_write(const struct dta_layout *l, uint8_t *area,
		     const void *key, size_t klen, const uint32_t *vals,
		     unsigned plen)
{
	uint8_t chunk[4 * DTA_MAX_HOPS];
	struct dta_memop ops[DTA_MAX_REDUNDANCY];
	int k = dta_pc_ops(l, key, klen, vals, plen, chunk, sizeof(chunk), ops,
			   DTA_MAX_REDUNDANCY);

	assert_int_equal(k, l->g.pc.redundancy);
	assert_int_equal(dta_memops_apply(area, l->data_size, ops, (size_t)k), k);
}

static int pc_get(const struct dta_layout *l, const uint8_t *area,
		  const struct dta_pc_codebook *cb, const void *key, size_t klen,
		  unsigned red, struct dta_pc_result *res)
{
	assert_int_equal(dta_pc_query(l, area, cb, key, klen, red, res), 0);
	return res->status;
}

static void assert_found(const struct dta_pc_result *res, const uint32_t *vals,
			 unsigned plen)
{
	assert_int_equal(res->status, DTA_Q_FOUND);
	assert_int_equal(res->path_len, plen);
	assert_memory_equal(res->values, vals, plen * sizeof(vals[0]));
}

static void assert_empty_answer(const struct dta_pc_result *res)
{
	static const uint32_t zero[DTA_MAX_HOPS];

	assert_int_equal(res->path_len, 0);
	assert_memory_equal(res->values, zero, sizeof(zero));
}

/* ---- exact encoding ---- */

static void check_encoding(unsigned sb, uint64_t chunks, unsigned hops,
			   unsigned n, uint64_t seed, unsigned want_chunk_size)
{
	static const uint8_t key[13] = { 10, 0, 0, 1, 10, 0, 0, 2,
					 0x04, 0xD2, 0x00, 0x50, 6 };
	const uint32_t vals[3] = { 0x0A000001, 0x00000102, 7 };
	struct ref r = ref_of(seed, chunks, hops, sb, n);
	struct dta_layout l;
	struct dta_memop ops[DTA_MAX_REDUNDANCY + 1];
	uint8_t buf[64], want[64];
	int k;

	assert_int_equal(r.chunk_size, want_chunk_size);
	assert_int_equal(dta_layout_pc(&l, chunks, hops, sb, n, DTA_HASH_XXH3,
				       seed), 0);
	assert_int_equal(l.g.pc.chunk_size, want_chunk_size);

	memset(buf, 0xA5, sizeof(buf));
	k = dta_pc_ops(&l, key, sizeof(key), vals, 3, buf, sizeof(buf), ops,
		       DTA_MAX_REDUNDANCY + 1);
	assert_int_equal(k, (int)n);

	ref_build(&r, key, sizeof(key), vals, 3, want);
	assert_memory_equal(buf, want, want_chunk_size);
	/* Padding up to the power of two is zero. */
	for (unsigned i = hops * sb; i < want_chunk_size; i++)
		assert_int_equal(buf[i], 0);
	/* Hops 3.. are blank: checksum XOR g(blank). */
	for (unsigned i = 3; i < hops; i++) {
		uint32_t w = 0;

		for (unsigned b = 0; b < sb; b++)
			w = w << 8 | buf[i * sb + b];
		assert_int_equal(w, ref_hop(&r, key, sizeof(key), i) ^
					    ref_blank(&r));
	}

	for (unsigned c = 0; c < n; c++) {
		uint64_t idx = ref_chunk(&r, key, sizeof(key), c);

		assert_int_equal(dta_pc_chunk(&l, key, sizeof(key), c), idx);
		assert_int_equal(ops[c].kind, DTA_MEMOP_WRITE);
		assert_int_equal(ops[c].len, want_chunk_size);
		assert_int_equal(ops[c].offset, idx * want_chunk_size);
		assert_memory_equal(ops[c].data, want, want_chunk_size);
	}
}

static void test_encoding_slot4(void **state)
{
	(void)state;
	/* 5 x 4 = 20 bytes padded to 32; 1000 chunks (not a power of two). */
	check_encoding(4, 1000, 5, 3, 0x1234567890ABCDEFull, 32);
	/* 8 x 4 = 32 needs no padding. */
	check_encoding(4, 4096, 8, 2, 7, 32);
}

static void test_encoding_slot2(void **state)
{
	(void)state;
	/* 5 x 2 = 10 bytes padded to 16; power-of-two chunk count. */
	check_encoding(2, 1024, 5, 2, 0xFEEDull, 16);
	/* 3 x 2 = 6 padded to 8. */
	check_encoding(2, 777, 3, 4, 0, 8);
}

static void test_encoding_slot1(void **state)
{
	(void)state;
	check_encoding(1, 333, 5, 1, 99, 8);
}

/* ---- round trips ---- */

static void test_round_trip(void **state)
{
	enum { NV = 1000, FLOWS = 3000, B = 5, N = 2 };
	const uint64_t chunks = 1u << 18, seed = 0xC0FFEE;
	struct ref r = ref_of(seed, chunks, B, 4, N);
	static uint32_t paths[FLOWS][B];
	static uint64_t idx[FLOWS][N];
	uint32_t V[NV];
	unsigned plen[FLOWS];
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	struct dta_pc_result res;
	uint8_t *area, key[13];
	unsigned lost = 0;

	(void)state;
	make_values(V, NV, 0x0A000000);
	assert_int_equal(dta_layout_pc(&l, chunks, B, 4, N, DTA_HASH_XXH3, seed), 0);
	assert_int_equal(dta_pc_codebook_create(&l, V, NV, &cb), 0);
	area = calloc(1, l.data_size);
	assert_non_null(area);

	for (unsigned t = 0; t < FLOWS; t++) {
		flow_key(t, key);
		plen[t] = 1 + t % B;
		for (unsigned i = 0; i < plen[t]; i++)
			paths[t][i] = V[rnd() % NV];
		for (unsigned c = 0; c < N; c++)
			idx[t][c] = ref_chunk(&r, key, 13, c);
		pc_write(&l, area, key, 13, paths[t], plen[t]);
	}
	for (unsigned t = 0; t < FLOWS; t++) {
		unsigned alive = 0;

		/* Copies surviving later writes, per the reference indices. */
		for (unsigned c = 0; c < N; c++) {
			int over = 0, dup = 0;

			for (unsigned d = 0; d < c; d++)
				dup |= idx[t][d] == idx[t][c];
			for (unsigned u = t + 1; u < FLOWS && !over; u++)
				for (unsigned d = 0; d < N; d++)
					over |= idx[u][d] == idx[t][c];
			alive += !over && !dup;
		}
		flow_key(t, key);
		pc_get(&l, area, cb, key, 13, 0, &res);
		if (alive) {
			assert_found(&res, paths[t], plen[t]);
			assert_int_equal(res.valid_copies, alive);
		} else {
			lost++;
			assert_int_equal(res.status, DTA_Q_NOT_FOUND);
		}
	}
	/* Sparse: almost nothing is lost. */
	assert_true(lost < 5);
	free(area);
	dta_pc_codebook_destroy(cb);
}

/* Every B up to DTA_MAX_HOPS, every path length, one flow each in an
 * otherwise empty structure; CRC-32C family too. */
static void test_round_trip_all_lengths(void **state)
{
	static const int fams[] = { DTA_HASH_XXH3, DTA_HASH_CRC32C,
				    DTA_HASH_CRC32 };
	uint32_t V[64];

	(void)state;
	make_values(V, 64, 17);
	for (unsigned f = 0; f < 3; f++) {
		for (unsigned B = 1; B <= DTA_MAX_HOPS; B++) {
			for (unsigned len = 1; len <= B; len++) {
				struct dta_layout l;
				struct dta_pc_codebook *cb;
				struct dta_pc_result res;
				uint32_t path[DTA_MAX_HOPS];
				uint8_t *area, key[13];

				assert_int_equal(dta_layout_pc(&l, 4096, B, 4, 3,
							       fams[f], B * 31 + len),
						 0);
				assert_int_equal(dta_pc_codebook_create(&l, V, 64, &cb), 0);
				assert_int_equal(dta_pc_codebook_collisions(cb), 0);
				area = calloc(1, l.data_size);
				assert_non_null(area);
				flow_key(B * 100 + len, key);
				for (unsigned i = 0; i < len; i++)
					path[i] = V[(i * 13 + len) % 64];
				pc_write(&l, area, key, 13, path, len);
				pc_get(&l, area, cb, key, 13, 0, &res);
				assert_found(&res, path, len);
				/* Another flow is not there. */
				flow_key(B * 100 + len + 50000, key);
				pc_get(&l, area, cb, key, 13, 0, &res);
				assert_int_equal(res.status, DTA_Q_NOT_FOUND);
				free(area);
				dta_pc_codebook_destroy(cb);
			}
		}
	}
}

/* ---- validity rules, conflicts, collisions ---- */

struct fixture {
	struct ref r;
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	uint8_t *area;
	uint32_t V[1000];
};

static struct fixture *fx_new(unsigned n, unsigned sb, uint64_t chunks)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->r = ref_of(0xABCDEF, chunks, 5, sb, n);
	make_values(f->V, 1000, 0x0A000000);
	assert_int_equal(dta_layout_pc(&f->l, chunks, 5, sb, n, DTA_HASH_XXH3,
				       0xABCDEF), 0);
	assert_int_equal(dta_pc_codebook_create(&f->l, f->V, 1000, &f->cb), 0);
	f->area = calloc(1, f->l.data_size);
	assert_non_null(f->area);
	return f;
}

/* Fixtures through cmocka, so that a failed assertion leaks nothing. */
static int fx_setup_n2(void **state)
{
	*state = fx_new(2, 4, 4096);
	return 0;
}

static int fx_setup_n1(void **state)
{
	*state = fx_new(1, 4, 64);
	return 0;
}

static int fx_teardown(void **state)
{
	struct fixture *f = *state;

	free(f->area);
	dta_pc_codebook_destroy(f->cb);
	free(f);
	return 0;
}

/* A flow key whose @n copies land in distinct chunks (per the reference). */
static void distinct_key(const struct ref *r, uint32_t start, uint8_t key[13])
{
	for (uint32_t t = start;; t++) {
		int ok = 1;

		flow_key(t, key);
		for (unsigned a = 0; a < DTA_MAX_REDUNDANCY; a++)
			for (unsigned b = 0; b < a; b++)
				ok &= ref_chunk(r, key, 13, a) !=
				      ref_chunk(r, key, 13, b);
		if (ok)
			return;
	}
}

static void test_value_not_in_set(void **state)
{
	struct fixture *f = *state;
	uint32_t path[3] = { f->V[1], 0xDEADBEEF, f->V[2] };
	struct dta_pc_result res;
	uint8_t key[13];

	assert_false(in_set(f->V, 1000, 0xDEADBEEF));
	distinct_key(&f->r, 1, key);
	pc_write(&f->l, f->area, key, 13, path, 3);
	assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 0, &res),
			 DTA_Q_NOT_FOUND);
	assert_int_equal(res.valid_copies, 0);
	assert_empty_answer(&res);
	/* The same path with a known value at hop 1 is found. */
	path[1] = f->V[999];
	pc_write(&f->l, f->area, key, 13, path, 3);
	pc_get(&f->l, f->area, f->cb, key, 13, 0, &res);
	assert_found(&res, path, 3);
	assert_int_equal(res.valid_copies, 2);
}

static void test_all_blank_not_found(void **state)
{
	struct fixture *f = *state;
	uint8_t key[13], chunk[32];
	struct dta_pc_result res;
	uint32_t unused = 0;

	distinct_key(&f->r, 2, key);
	ref_build(&f->r, key, 13, &unused, 0, chunk); /* every hop blank */
	ref_store(&f->r, f->area, key, 13, 0, chunk);
	ref_store(&f->r, f->area, key, 13, 1, chunk);
	assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 0, &res),
			 DTA_Q_NOT_FOUND);
	assert_int_equal(res.valid_copies, 0);
	assert_empty_answer(&res);
	/* Blank hop 0 followed by values is not valid either. */
	{
		const uint32_t p[2] = { f->V[5], f->V[6] };

		ref_build(&f->r, key, 13, p, 2, chunk);
		ref_put_slot(&f->r, chunk, 0,
			     ref_hop(&f->r, key, 13, 0) ^ ref_blank(&f->r));
		ref_store(&f->r, f->area, key, 13, 0, chunk);
		ref_store(&f->r, f->area, key, 13, 1, chunk);
		assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 0, &res),
				 DTA_Q_NOT_FOUND);
	}
	/* A value after a blank (a hole in the path) is not valid. */
	{
		const uint32_t p[4] = { f->V[5], f->V[6], f->V[7], f->V[8] };

		ref_build(&f->r, key, 13, p, 4, chunk);
		ref_put_slot(&f->r, chunk, 1,
			     ref_hop(&f->r, key, 13, 1) ^ ref_blank(&f->r));
		ref_store(&f->r, f->area, key, 13, 0, chunk);
		ref_store(&f->r, f->area, key, 13, 1, chunk);
		assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 0, &res),
				 DTA_Q_NOT_FOUND);
	}
}

static void test_conflict(void **state)
{
	struct fixture *f = *state;
	const uint32_t p1[4] = { f->V[10], f->V[11], f->V[12], f->V[13] };
	const uint32_t p2[4] = { f->V[10], f->V[11], f->V[14], f->V[13] };
	uint8_t key[13], c1[32], c2[32];
	struct dta_pc_result res;

	distinct_key(&f->r, 3, key);
	ref_build(&f->r, key, 13, p1, 4, c1);
	ref_build(&f->r, key, 13, p2, 4, c2);
	ref_store(&f->r, f->area, key, 13, 0, c1);
	ref_store(&f->r, f->area, key, 13, 1, c2);
	assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 0, &res),
			 DTA_Q_CONFLICT);
	assert_int_equal(res.valid_copies, 2);
	assert_empty_answer(&res);

	/* A valid prefix of the other path is a different path, too. */
	ref_build(&f->r, key, 13, p1, 3, c2);
	ref_store(&f->r, f->area, key, 13, 1, c2);
	assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 0, &res),
			 DTA_Q_CONFLICT);
	assert_int_equal(res.valid_copies, 2);

	/* Agreeing copies are found. */
	ref_store(&f->r, f->area, key, 13, 1, c1);
	pc_get(&f->l, f->area, f->cb, key, 13, 0, &res);
	assert_found(&res, p1, 4);
	assert_int_equal(res.valid_copies, 2);
}

static void test_one_valid_one_garbage(void **state)
{
	struct fixture *f = *state;
	const uint32_t p[5] = { f->V[20], f->V[21], f->V[22], f->V[23], f->V[24] };
	uint8_t key[13], garbage[32];
	struct dta_pc_result res;

	distinct_key(&f->r, 4, key);
	pc_write(&f->l, f->area, key, 13, p, 5);
	for (unsigned k = 0; k < 32; k++)
		garbage[k] = (uint8_t)rnd();
	ref_store(&f->r, f->area, key, 13, 1, garbage);
	pc_get(&f->l, f->area, f->cb, key, 13, 0, &res);
	assert_found(&res, p, 5);
	assert_int_equal(res.valid_copies, 1);

	/* Garbage in copy 0 instead, copy 1 intact. */
	pc_write(&f->l, f->area, key, 13, p, 5);
	ref_store(&f->r, f->area, key, 13, 0, garbage);
	pc_get(&f->l, f->area, f->cb, key, 13, 0, &res);
	assert_found(&res, p, 5);
	assert_int_equal(res.valid_copies, 1);

	/* Another flow's valid chunk is garbage for this one. */
	{
		const uint32_t q[2] = { f->V[30], f->V[31] };
		uint8_t other[13], c[32];

		flow_key(777777, other);
		ref_build(&f->r, other, 13, q, 2, c);
		ref_store(&f->r, f->area, key, 13, 0, c);
		pc_get(&f->l, f->area, f->cb, key, 13, 0, &res);
		assert_found(&res, p, 5);
		assert_int_equal(res.valid_copies, 1);
	}
}

/*
 * A query may assume more copies than were written (N = 2 here): the extra
 * copies it examines are those of an N = 4 writer, at role DTA_HF_SLOT(2..3).
 */
static void test_query_redundancy_larger(void **state)
{
	struct fixture *f = *state;
	const uint32_t p[3] = { f->V[40], f->V[41], f->V[42] };
	uint8_t key[13], c[32], zero[32] = { 0 };
	struct dta_pc_result res;

	distinct_key(&f->r, 5, key);
	pc_write(&f->l, f->area, key, 13, p, 3);
	pc_get(&f->l, f->area, f->cb, key, 13, 4, &res);
	assert_found(&res, p, 3);
	assert_int_equal(res.valid_copies, 2);
	pc_get(&f->l, f->area, f->cb, key, 13, DTA_MAX_REDUNDANCY, &res);
	assert_found(&res, p, 3);
	assert_int_equal(res.valid_copies, 2);

	/* Copies 2 and 3 written as an N = 4 writer would, 0 and 1 erased. */
	ref_build(&f->r, key, 13, p, 3, c);
	ref_store(&f->r, f->area, key, 13, 2, c);
	ref_store(&f->r, f->area, key, 13, 3, c);
	pc_get(&f->l, f->area, f->cb, key, 13, 4, &res);
	assert_found(&res, p, 3);
	assert_int_equal(res.valid_copies, 4);
	ref_store(&f->r, f->area, key, 13, 0, zero);
	ref_store(&f->r, f->area, key, 13, 1, zero);
	pc_get(&f->l, f->area, f->cb, key, 13, 4, &res);
	assert_found(&res, p, 3);
	assert_int_equal(res.valid_copies, 2);
	/* The default (N = 2) does not look there. */
	assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 0, &res),
			 DTA_Q_NOT_FOUND);
	/* Nor does a smaller explicit redundancy. */
	assert_int_equal(pc_get(&f->l, f->area, f->cb, key, 13, 1, &res),
			 DTA_Q_NOT_FOUND);
}

static void test_collision_overwrites(void **state)
{
	struct fixture *f = *state;
	const uint32_t px[2] = { f->V[50], f->V[51] };
	const uint32_t py[4] = { f->V[60], f->V[61], f->V[62], f->V[63] };
	uint8_t kx[13], ky[13];
	struct dta_pc_result res;
	uint32_t t = 1000;

	flow_key(t, kx);
	do
		flow_key(++t, ky);
	while (ref_chunk(&f->r, ky, 13, 0) != ref_chunk(&f->r, kx, 13, 0));

	pc_write(&f->l, f->area, kx, 13, px, 2);
	pc_get(&f->l, f->area, f->cb, kx, 13, 0, &res);
	assert_found(&res, px, 2);
	pc_write(&f->l, f->area, ky, 13, py, 4);
	assert_int_equal(pc_get(&f->l, f->area, f->cb, kx, 13, 0, &res),
			 DTA_Q_NOT_FOUND);
	assert_int_equal(res.valid_copies, 0);
	pc_get(&f->l, f->area, f->cb, ky, 13, 0, &res);
	assert_found(&res, py, 4);
	assert_int_equal(res.valid_copies, 1);
	/* Writing x again takes the chunk back. */
	pc_write(&f->l, f->area, kx, 13, px, 2);
	pc_get(&f->l, f->area, f->cb, kx, 13, 0, &res);
	assert_found(&res, px, 2);
	assert_int_equal(pc_get(&f->l, f->area, f->cb, ky, 13, 0, &res),
			 DTA_Q_NOT_FOUND);
}

/* ---- codebook ---- */

/* Members of V u {blank} whose b-bit code another member shares. */
static size_t ref_collisions(const struct ref *r, const uint32_t *v, size_t n)
{
	uint32_t *codes = malloc((n + 1) * sizeof(*codes));
	size_t count = 0;

	assert_non_null(codes);
	codes[0] = ref_blank(r);
	for (size_t i = 0; i < n; i++)
		codes[i + 1] = ref_code(r, v[i]);
	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= n; j++)
			if (i != j && codes[i] == codes[j]) {
				count++;
				break;
			}
	free(codes);
	return count;
}

static void test_codebook_collisions(void **state)
{
	enum { NV = 300 };
	struct ref r = ref_of(0xABCDEF, 100, 5, 1, 2);
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	uint32_t V[NV];
	size_t want;

	(void)state;
	make_values(V, NV, 1);
	assert_int_equal(dta_layout_pc(&l, 100, 5, 1, 2, DTA_HASH_XXH3, 0xABCDEF), 0);
	assert_int_equal(dta_pc_codebook_create(&l, V, NV, &cb), 0);
	want = ref_collisions(&r, V, NV);
	/* 301 codes in 256 buckets: most collide (expected ~ 220). */
	assert_true(want > 150 && want <= NV + 1);
	assert_int_equal(dta_pc_codebook_collisions(cb), want);
	dta_pc_codebook_destroy(cb);

	/* 32-bit codes of 1000 values: none collide. */
	{
		struct ref r4 = ref_of(0xABCDEF, 100, 5, 4, 2);
		uint32_t W[1000];

		make_values(W, 1000, 0x0A000000);
		assert_int_equal(dta_layout_pc(&l, 100, 5, 4, 2, DTA_HASH_XXH3,
					       0xABCDEF), 0);
		assert_int_equal(dta_pc_codebook_create(&l, W, 1000, &cb), 0);
		assert_int_equal(dta_pc_codebook_collisions(cb),
				 ref_collisions(&r4, W, 1000));
		assert_int_equal(dta_pc_codebook_collisions(cb), 0);
		dta_pc_codebook_destroy(cb);
	}
}

/* "duplicates are ignored": listing V twice gives the same codebook. */
static void test_codebook_duplicates(void **state)
{
	enum { NV = 300 };
	struct ref r = ref_of(0xABCDEF, 100, 5, 1, 2);
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	uint32_t V[2 * NV];
	size_t want, got;

	(void)state;
	make_values(V, NV, 1);
	memcpy(V + NV, V, NV * sizeof(V[0]));
	want = ref_collisions(&r, V, NV);
	assert_int_equal(dta_layout_pc(&l, 100, 5, 1, 2, DTA_HASH_XXH3, 0xABCDEF), 0);

	/* Without collisions among codes (32-bit) duplicates cost nothing. */
	{
		struct dta_layout l4;
		uint32_t W[4] = { 5, 6, 5, 5 };

		assert_int_equal(dta_layout_pc(&l4, 100, 5, 4, 2, DTA_HASH_XXH3,
					       0xABCDEF), 0);
		assert_int_equal(dta_pc_codebook_create(&l4, W, 4, &cb), 0);
		assert_int_equal(dta_pc_codebook_collisions(cb), 0);
		dta_pc_codebook_destroy(cb);
	}
	/* With colliding codes, a repeated value is not one more collision. */
	assert_int_equal(dta_pc_codebook_create(&l, V, 2 * NV, &cb), 0);
	got = dta_pc_codebook_collisions(cb);
	dta_pc_codebook_destroy(cb);
	assert_int_equal(got, want);
}

/* A path through a value whose code another value shares is ambiguous:
 * the query reports a conflict, never one of the two values. */
static void test_codebook_ambiguous_value(void **state)
{
	struct ref r = ref_of(0x77, 4096, 5, 1, 2);
	uint32_t V[8], a = 0, b = 0;
	size_t nv = 0;
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	struct dta_pc_result res;
	uint8_t *area, key[13];

	(void)state;
	/* Six values with unique codes (also unlike blank) ... */
	for (uint32_t x = 1; nv < 6; x++) {
		int ok = ref_code(&r, x) != ref_blank(&r);

		for (size_t i = 0; i < nv; i++)
			ok &= ref_code(&r, x) != ref_code(&r, V[i]);
		if (ok)
			V[nv++] = x;
	}
	/* ... and a pair a, b sharing a code no other member has. */
	for (uint32_t x = 1000; !b; x++) {
		int ok = ref_code(&r, x) != ref_blank(&r);

		for (size_t i = 0; i < nv; i++)
			ok &= ref_code(&r, x) != ref_code(&r, V[i]);
		if (!ok)
			continue;
		if (!a)
			a = x;
		else if (ref_code(&r, x) == ref_code(&r, a))
			b = x;
	}
	V[nv++] = a;
	V[nv++] = b;
	assert_int_equal(ref_collisions(&r, V, nv), 2);

	assert_int_equal(dta_layout_pc(&l, 4096, 5, 1, 2, DTA_HASH_XXH3, 0x77), 0);
	assert_int_equal(dta_pc_codebook_create(&l, V, nv, &cb), 0);
	assert_int_equal(dta_pc_codebook_collisions(cb), 2);
	area = calloc(1, l.data_size);
	assert_non_null(area);
	distinct_key(&r, 9, key);
	{
		const uint32_t p[3] = { V[0], V[1], V[2] };

		pc_write(&l, area, key, 13, p, 3);
		pc_get(&l, area, cb, key, 13, 0, &res);
		assert_found(&res, p, 3);
	}
	{
		const uint32_t p[3] = { V[0], b, V[2] };

		pc_write(&l, area, key, 13, p, 3);
		assert_int_equal(pc_get(&l, area, cb, key, 13, 0, &res),
				 DTA_Q_CONFLICT);
		assert_empty_answer(&res);
	}
	free(area);
	dta_pc_codebook_destroy(cb);
}

/* ---- the paper's bounds ---- */

/* Section 4 eq. (5)-(7), in the form of appendix A.6 eq. (9)-(11). */
static double bound_empty(unsigned n, unsigned b, double alpha, double nv,
			  unsigned hops)
{
	double over = pow(1 - exp(-alpha * n), n);
	double p = pow((nv + 1) * pow(2, -(double)b), hops);
	double sum = 0;

	for (unsigned j = 1; j < n; j++) {
		double binom = 1;

		for (unsigned k = 0; k < j; k++)
			binom = binom * (n - k) / (k + 1);
		sum += binom * pow(1 - exp(-alpha * n), j) *
		       exp(-alpha * n * (n - j)) * (1 - pow(1 - p, j));
	}
	return over * pow(1 - p, n) +
	       over * (1 - pow(1 - p, n) - n * p * pow(1 - p, n - 1)) + sum;
}

/* Eq. (8). */
static double bound_wrong(unsigned n, unsigned b, double alpha, double nv,
			  unsigned hops)
{
	return pow(1 - exp(-alpha * n), n) * n *
	       pow((nv + 1) * pow(2, -(double)b), hops);
}

struct measure {
	unsigned queries, not_found, wrong, conflict;
};

/*
 * Insert flows continuously; flow t is queried right after flow t + K is
 * written, K = alpha * chunks, so exactly K newer flows lie behind it.
 */
static struct measure sliding_window(unsigned sb, const uint32_t *V,
				     unsigned nv, uint64_t seed)
{
	enum { N = 2, B = 5, QUERIES = 100000 };
	const uint64_t chunks = 1u << 14;
	const unsigned K = (unsigned)(0.1 * chunks);
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	struct measure m = { 0 };
	uint32_t (*ring)[B + 1];
	uint8_t *area, key[13];

	assert_int_equal(dta_layout_pc(&l, chunks, B, sb, N, DTA_HASH_XXH3, seed), 0);
	assert_int_equal(dta_pc_codebook_create(&l, V, nv, &cb), 0);
	area = calloc(1, l.data_size);
	ring = calloc(K + 1, sizeof(*ring));
	assert_non_null(area);
	assert_non_null(ring);

	for (unsigned t = 0; t < QUERIES + K; t++) {
		uint32_t *p = ring[t % (K + 1)];

		p[0] = 1 + (uint32_t)(rnd() % B);
		for (unsigned i = 0; i < p[0]; i++)
			p[1 + i] = V[rnd() % nv];
		flow_key(t, key);
		pc_write(&l, area, key, 13, p + 1, p[0]);
		if (t >= K) {
			const uint32_t *q = ring[(t - K) % (K + 1)];
			struct dta_pc_result res;

			flow_key(t - K, key);
			pc_get(&l, area, cb, key, 13, 0, &res);
			m.queries++;
			if (res.status == DTA_Q_FOUND) {
				if (res.path_len != q[0] ||
				    memcmp(res.values, q + 1, q[0] * sizeof(q[0])))
					m.wrong++;
			} else {
				m.not_found++;
				m.conflict += res.status == DTA_Q_CONFLICT;
			}
		}
	}
	free(ring);
	free(area);
	dta_pc_codebook_destroy(cb);
	return m;
}

static void test_bound_b32(void **state)
{
	enum { NV = 1024 };
	const double alpha = (double)(unsigned)(0.1 * 16384) / 16384;
	uint32_t V[NV];
	struct measure m;
	double bound, sigma, frac;

	(void)state;
	make_values(V, NV, 0x0A000000);
	m = sliding_window(4, V, NV, 0xB0B);
	bound = bound_empty(2, 32, alpha, NV, 5);
	sigma = sqrt(bound * (1 - bound) / m.queries);
	frac = (double)m.not_found / m.queries;
	print_message("b=32 N=2 B=5 |V|=%d alpha=%.4f: not found %.5f "
		      "(%u conflicts), bound %.5f + 3 sigma %.5f, wrong %u/%u\n",
		      NV, alpha, frac, m.conflict, bound, 3 * sigma, m.wrong,
		      m.queries);
	assert_true(bound > 0.032 && bound < 0.034); /* paper: at most 3.3% */
	assert_true(frac < bound + 3 * sigma);
	assert_true(frac > 0.025);
	assert_int_equal(m.wrong, 0);
	assert_true(bound_wrong(2, 32, alpha, NV, 5) < 1e-22);
}

static void test_bound_b8(void **state)
{
	enum { NV = 16 };
	const double alpha = (double)(unsigned)(0.1 * 16384) / 16384;
	const uint64_t seed = 0xB08;
	struct ref r = ref_of(seed, 1u << 14, 5, 1, 2);
	uint32_t V[NV];
	unsigned nv = 0;
	struct measure m;
	double be, bw, frac_nf, frac_w;

	(void)state;
	/* Switch ids with distinct 8-bit codes, so that only overwrites and
	 * coincidences of garbage matter (ambiguity is tested elsewhere). */
	for (uint32_t x = 100; nv < NV; x++) {
		int ok = ref_code(&r, x) != ref_blank(&r);

		for (unsigned i = 0; i < nv; i++)
			ok &= ref_code(&r, x) != ref_code(&r, V[i]);
		if (ok)
			V[nv++] = x;
	}
	assert_int_equal(ref_collisions(&r, V, NV), 0);
	m = sliding_window(1, V, NV, seed);
	be = bound_empty(2, 8, alpha, NV, 5);
	bw = bound_wrong(2, 8, alpha, NV, 5);
	frac_nf = (double)m.not_found / m.queries;
	frac_w = (double)m.wrong / m.queries;
	print_message("b=8 N=2 B=5 |V|=%d: not found %.5f (%u conflicts), "
		      "bound %.5f; wrong %.2e (%u/%u), bound %.2e\n",
		      NV, frac_nf, m.conflict, be, frac_w, m.wrong, m.queries,
		      bw);
	assert_true(frac_nf < be + 3 * sqrt(be * (1 - be) / m.queries));
	assert_true(frac_nf > 0.025);
	assert_true(frac_w <= bw + 3 * sqrt(bw * (1 - bw) / m.queries));
}

/* ---- bad arguments ---- */

static void test_ops_negative(void **state)
{
	struct dta_layout l, kw;
	const uint32_t vals[DTA_MAX_HOPS + 1] = { 1, 2, 3, 4, 5, 6 };
	uint8_t key[DTA_KEY_MAX + 1] = { 1 }, chunk[64];
	struct dta_memop ops[DTA_MAX_REDUNDANCY];

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 128, 5, 4, 3, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(dta_layout_kw(&kw, 128, 8, 4, 2, DTA_HASH_XXH3, 1), 0);

	/* Path length. */
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 0, chunk, 64, ops, 8),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 6, chunk, 64, ops, 8),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, DTA_MAX_HOPS + 1, chunk,
				    64, ops, 8), -DTA_E_MISMATCH);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 5, chunk, 64, ops, 8), 3);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 1, chunk, 64, ops, 8), 3);

	/* Primitive. */
	assert_int_equal(dta_pc_ops(&kw, key, 13, vals, 3, chunk, 64, ops, 8),
			 -DTA_E_PRIMITIVE);

	/* Keys. */
	assert_int_equal(dta_pc_ops(&l, NULL, 13, vals, 3, chunk, 64, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_pc_ops(&l, key, 0, vals, 3, chunk, 64, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_pc_ops(&l, key, DTA_KEY_MAX + 1, vals, 3, chunk, 64,
				    ops, 8), -EINVAL);
	assert_int_equal(dta_pc_ops(&l, key, DTA_KEY_MAX, vals, 3, chunk, 64,
				    ops, 8), 3);
	assert_int_equal(dta_pc_ops(&l, key, 1, vals, 3, chunk, 64, ops, 8), 3);

	/* Other NULLs. */
	assert_int_equal(dta_pc_ops(NULL, key, 13, vals, 3, chunk, 64, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_pc_ops(&l, key, 13, NULL, 3, chunk, 64, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 3, NULL, 64, ops, 8),
			 -EINVAL);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 3, chunk, 64, NULL, 8),
			 -EINVAL);

	/* Buffers: chunk_size is 32, N is 3. */
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 3, chunk, 31, ops, 8),
			 -ENOSPC);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 3, chunk, 0, ops, 8),
			 -ENOSPC);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 3, chunk, 32, ops, 2),
			 -ENOSPC);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 3, chunk, 64, ops, 0),
			 -ENOSPC);
	assert_int_equal(dta_pc_ops(&l, key, 13, vals, 3, chunk, 32, ops, 3), 3);
}

static void test_query_negative(void **state)
{
	struct dta_layout l, kw;
	struct dta_pc_codebook *cb;
	struct dta_pc_result res;
	const uint32_t V[3] = { 1, 2, 3 };
	uint8_t key[DTA_KEY_MAX + 1] = { 1 }, *area;

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 128, 5, 4, 2, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(dta_layout_kw(&kw, 128, 8, 4, 2, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(dta_pc_codebook_create(&l, V, 3, &cb), 0);
	area = calloc(1, l.data_size);
	assert_non_null(area);

	assert_int_equal(dta_pc_query(&kw, area, cb, key, 13, 0, &res),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_pc_query(&l, area, cb, NULL, 13, 0, &res), -EINVAL);
	assert_int_equal(dta_pc_query(&l, area, cb, key, 0, 0, &res), -EINVAL);
	assert_int_equal(dta_pc_query(&l, area, cb, key, DTA_KEY_MAX + 1, 0, &res),
			 -EINVAL);
	assert_int_equal(dta_pc_query(NULL, area, cb, key, 13, 0, &res), -EINVAL);
	assert_int_equal(dta_pc_query(&l, NULL, cb, key, 13, 0, &res), -EINVAL);
	assert_int_equal(dta_pc_query(&l, area, NULL, key, 13, 0, &res), -EINVAL);
	assert_int_equal(dta_pc_query(&l, area, cb, key, 13, 0, NULL), -EINVAL);
	assert_int_equal(dta_pc_query(&l, area, cb, key, 13,
				      DTA_MAX_REDUNDANCY + 1, &res), -EINVAL);
	/* Boundaries that are fine: an empty structure has nothing. */
	assert_int_equal(dta_pc_query(&l, area, cb, key, DTA_KEY_MAX, 0, &res), 0);
	assert_int_equal(res.status, DTA_Q_NOT_FOUND);
	assert_int_equal(dta_pc_query(&l, area, cb, key, 1, 0, &res), 0);
	assert_int_equal(res.status, DTA_Q_NOT_FOUND);
	assert_int_equal(res.valid_copies, 0);

	free(area);
	dta_pc_codebook_destroy(cb);
}

/* Batch answers for @keys[0..n-1] equal the single queries', field by
 * field (the results are zero-filled the same way). */
static void check_pc_batch(const struct dta_layout *l, const uint8_t *area,
			   const struct dta_pc_codebook *cb,
			   const uint8_t *keys, size_t klen, size_t n,
			   unsigned red)
{
	struct dta_pc_result *res = malloc((n + 1) * sizeof(*res)), one;

	assert_non_null(res);
	memset(res, 0xa5, (n + 1) * sizeof(*res));
	assert_int_equal(dta_pc_query_batch(l, area, cb, keys, klen, n, red, res),
			 0);
	for (size_t i = 0; i < n; i++) {
		memset(&one, 0x5a, sizeof(one));
		assert_int_equal(dta_pc_query(l, area, cb, keys + i * klen, klen,
					      red, &one), 0);
		assert_int_equal(res[i].status, one.status);
		assert_int_equal(res[i].path_len, one.path_len);
		assert_int_equal(res[i].valid_copies, one.valid_copies);
		assert_memory_equal(res[i].values, one.values, sizeof(one.values));
	}
	assert_int_equal(res[n].status, (int)0xa5a5a5a5); /* nothing past n */
	free(res);
}

/*
 * A crowded structure with 1-byte slots (garbage that decodes, ambiguous
 * codes, overwrites): found, conflicting and absent flows, every batch
 * length around the pipeline's groups at several offsets, N = 1..3, and
 * the prototype family.
 */
static void test_batch_matches_single(void **state)
{
	enum { FLOWS = 500 };
	static const size_t lens[] = { 1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 25,
				       33, 64, 100, FLOWS };
	static const struct {
		int fam;
		unsigned sb, n, hops;
		uint64_t chunks;
	} cfg[] = {
		{ DTA_HASH_XXH3, 1, 2, 5, 256 },
		{ DTA_HASH_CRC32C, 2, 3, 8, 512 },
		{ DTA_HASH_PROTOTYPE, 4, 1, 5, 256 },
	};
	uint8_t keys[FLOWS][13];
	uint32_t V[300], path[DTA_MAX_HOPS];

	(void)state;
	make_values(V, 300, 0x0B000000);
	for (unsigned c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		struct dta_layout l;
		struct dta_pc_codebook *cb;
		unsigned found = 0, conflict = 0, absent = 0;
		uint8_t *area;

		assert_int_equal(dta_layout_pc(&l, cfg[c].chunks, cfg[c].hops,
					       cfg[c].sb, cfg[c].n, cfg[c].fam, 3),
				 0);
		assert_int_equal(dta_pc_codebook_create(&l, V, 300, &cb), 0);
		area = calloc(1, l.data_size);
		assert_non_null(area);
		for (uint32_t t = 0; t < FLOWS; t++) {
			unsigned plen = 1 + t % cfg[c].hops;

			flow_key(t * 31 + c, keys[t]);
			if (t % 5 == 4)
				continue; /* absent */
			for (unsigned h = 0; h < plen; h++)
				path[h] = V[(t * 7 + h * 13) % 300];
			pc_write(&l, area, keys[t], 13, path, plen);
		}
		for (unsigned red = 0; red <= 3; red++)
			for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
				for (size_t off = 0; off + lens[k] <= FLOWS;
				     off += lens[k] < 40 ? 41 : 200)
					check_pc_batch(&l, area, cb, keys[off], 13,
						       lens[k], red);
		for (uint32_t t = 0; t < FLOWS; t++) {
			struct dta_pc_result r;

			pc_get(&l, area, cb, keys[t], 13, 0, &r);
			found += r.status == DTA_Q_FOUND;
			conflict += r.status == DTA_Q_CONFLICT;
			absent += r.status == DTA_Q_NOT_FOUND;
		}
		/* the workload reached every kind of answer (the prototype's
		 * single copy cannot conflict) */
		assert_true(found > 0 && absent > 0);
		assert_true(conflict > 0 || cfg[c].n == 1);
		free(area);
		dta_pc_codebook_destroy(cb);
	}
}

/* A structure large enough to be prefetched: the same answers. */
static void test_batch_large_structure(void **state)
{
	enum { FLOWS = 3000 };
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	uint8_t (*keys)[13] = malloc(FLOWS * 13), *area;
	uint32_t V[64], path[5];

	(void)state;
	assert_non_null(keys);
	make_values(V, 64, 0x0C000000);
	assert_int_equal(dta_layout_pc(&l, 1u << 15, 5, 4, 2, DTA_HASH_CRC32C, 1),
			 0);
	assert_true(l.data_size >= (512u << 10));
	assert_int_equal(dta_pc_codebook_create(&l, V, 64, &cb), 0);
	area = calloc(1, l.data_size);
	assert_non_null(area);
	for (uint32_t t = 0; t < FLOWS; t++) {
		flow_key(t, keys[t]);
		if (t % 4 == 0)
			continue;
		for (unsigned h = 0; h < 5; h++)
			path[h] = V[(t + h) % 64];
		pc_write(&l, area, keys[t], 13, path, 1 + t % 5);
	}
	check_pc_batch(&l, area, cb, keys[0], 13, FLOWS, 0);
	free(area);
	free(keys);
	dta_pc_codebook_destroy(cb);
}

/* n = 0 does nothing; bad arguments fail before anything is written. */
static void test_batch_negative(void **state)
{
	struct dta_layout l, kw;
	struct dta_pc_codebook *cb;
	struct dta_pc_result res[2];
	const uint32_t V[3] = { 1, 2, 3 };
	uint8_t key[2][13] = { { 1 }, { 2 } }, *area;

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 128, 5, 4, 2, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(dta_layout_kw(&kw, 128, 8, 4, 2, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(dta_pc_codebook_create(&l, V, 3, &cb), 0);
	area = calloc(1, l.data_size);
	assert_non_null(area);
	memset(res, 0x5a, sizeof(res));

	assert_int_equal(dta_pc_query_batch(&l, area, cb, key, 13, 0, 0, res), 0);
	assert_int_equal(dta_pc_query_batch(&kw, area, cb, key, 13, 2, 0, res),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_pc_query_batch(NULL, area, cb, key, 13, 2, 0, res),
			 -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, NULL, cb, key, 13, 2, 0, res),
			 -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, area, NULL, key, 13, 2, 0, res),
			 -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, area, cb, NULL, 13, 2, 0, res),
			 -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, area, cb, key, 13, 2, 0, NULL),
			 -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, area, cb, key, 0, 2, 0, res),
			 -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, area, cb, key, DTA_KEY_MAX + 1, 2,
					    0, res), -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, area, cb, key, 13, 2,
					    DTA_MAX_REDUNDANCY + 1, res), -EINVAL);
	assert_int_equal(dta_pc_query_batch(&l, area, cb, key, 13, SIZE_MAX / 2,
					    0, res), -EINVAL);
	/* none of the calls above wrote an answer */
	assert_int_equal(res[0].status, 0x5a5a5a5a);
	assert_int_equal(res[1].status, 0x5a5a5a5a);
	/* n = 1 and n = 2 on an empty structure: nothing there */
	check_pc_batch(&l, area, cb, key[0], 13, 1, 0);
	check_pc_batch(&l, area, cb, key[0], 13, 2, 0);
	assert_int_equal(dta_pc_query_batch(&l, area, cb, key, 13, 2, 0, res), 0);
	assert_int_equal(res[1].status, DTA_Q_NOT_FOUND);

	free(area);
	dta_pc_codebook_destroy(cb);
}

static void test_codebook_negative(void **state)
{
	struct dta_layout l, kw;
	struct dta_pc_codebook *cb = (struct dta_pc_codebook *)&cb;
	const uint32_t V[3] = { 1, 2, 3 };

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 128, 5, 4, 2, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(dta_layout_kw(&kw, 128, 8, 4, 2, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(dta_pc_codebook_create(&l, V, 0, &cb), -EINVAL);
	assert_int_equal(dta_pc_codebook_create(&l, NULL, 3, &cb), -EINVAL);
	assert_int_equal(dta_pc_codebook_create(&l, V, 3, NULL), -EINVAL);
	assert_int_equal(dta_pc_codebook_create(NULL, V, 3, &cb), -EINVAL);
	assert_int_equal(dta_pc_codebook_create(&kw, V, 3, &cb), -DTA_E_PRIMITIVE);
	/* Failed calls leave *out alone. */
	assert_ptr_equal(cb, (struct dta_pc_codebook *)&cb);
	/* destroy and collisions accept NULL. */
	dta_pc_codebook_destroy(NULL);
	assert_int_equal(dta_pc_codebook_collisions(NULL), 0);
	/* n = 1 is the smallest set. */
	assert_int_equal(dta_pc_codebook_create(&l, V, 1, &cb), 0);
	assert_int_equal(dta_pc_codebook_collisions(cb), 0);
	dta_pc_codebook_destroy(cb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoding_slot4),
		cmocka_unit_test(test_encoding_slot2),
		cmocka_unit_test(test_encoding_slot1),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_all_lengths),
		cmocka_unit_test_setup_teardown(test_value_not_in_set, fx_setup_n2,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_all_blank_not_found, fx_setup_n2,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_conflict, fx_setup_n2,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_one_valid_one_garbage, fx_setup_n2,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_query_redundancy_larger, fx_setup_n2,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_collision_overwrites,
						fx_setup_n1, fx_teardown),
		cmocka_unit_test(test_codebook_collisions),
		cmocka_unit_test(test_codebook_duplicates),
		cmocka_unit_test(test_codebook_ambiguous_value),
		cmocka_unit_test(test_bound_b32),
		cmocka_unit_test(test_bound_b8),
		cmocka_unit_test(test_ops_negative),
		cmocka_unit_test(test_batch_matches_single),
		cmocka_unit_test(test_batch_negative),
		cmocka_unit_test(test_batch_large_structure),
		cmocka_unit_test(test_query_negative),
		cmocka_unit_test(test_codebook_negative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
