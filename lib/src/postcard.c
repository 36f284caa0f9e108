/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Postcarding writer ops, value codebook and queries (DTA paper section 4
 * "Postcarding", appendix A.2 and A.6).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dta/postcard.h"
#include "dta/wire.h"
#include "internal.h"

static uint32_t pc_mask(const struct dta_layout *l)
{
	return l->g.pc.slot_bytes == 4 ? 0xFFFFFFFFu
				       : (1u << (8 * l->g.pc.slot_bytes)) - 1;
}

static bool pc_proto(const struct dta_layout *l)
{
	return l->hash_family == DTA_HASH_PROTOTYPE;
}

static uint32_t pc_code(const struct dta_layout *l, uint32_t v)
{
	uint8_t be[4];

	if (pc_proto(l)) /* the prototype stores values unencoded */
		return v;
	dta__put_be32(be, v);
	return (uint32_t)dta_hashfn_eval(&l->fn[DTA_HF_VALUE], be, 4) &
	       pc_mask(l);
}

/* g(blank): the value function over the empty string, which no 4-byte
 * value can produce as an input. */
static uint32_t pc_blank(const struct dta_layout *l)
{
	return (uint32_t)dta_hashfn_eval(&l->fn[DTA_HF_VALUE], "", 0) &
	       pc_mask(l);
}

static uint32_t pc_hopsum(const struct dta_layout *l, const void *key,
			  size_t key_len, unsigned i)
{
	return (uint32_t)dta_hashfn_eval(&l->fn[DTA_HF_HOP(i)], key, key_len) &
	       pc_mask(l);
}

/* dta_pc_chunk(), inlined into the loops. */
static inline uint64_t pc_chunk(const struct dta_layout *l, const void *key,
				size_t key_len, unsigned n)
{
	if (pc_proto(l)) /* power of two, checked by the layout */
		return dta_hashfn_eval(&l->fn[DTA_HF_SLOT(n)], key, key_len) &
		       (l->g.pc.chunks - 1);
	return dta__reduce(dta_hashfn_eval(&l->fn[DTA_HF_SLOT(n)], key, key_len),
			   l->g.pc.chunks);
}

DTA_API uint64_t dta_pc_chunk(const struct dta_layout *l, const void *key,
			      size_t key_len, unsigned n)
{
	return pc_chunk(l, key, key_len, n);
}

static int pc_check_args(const struct dta_layout *l, const void *key,
			 size_t key_len)
{
	if (!l || !key || key_len == 0 || key_len > DTA_KEY_MAX)
		return -EINVAL;
	if (l->primitive != DTA_PRIM_POSTCARD)
		return -DTA_E_PRIMITIVE;
	return 0;
}

DTA_API int dta_pc_ops(const struct dta_layout *l, const void *key,
		       size_t key_len, const uint32_t *values,
		       unsigned path_len, uint8_t *chunkbuf,
		       size_t chunkbuf_len, struct dta_memop *ops,
		       size_t max_ops)
{
	unsigned sb, hops, red;
	uint32_t blank;
	int err = pc_check_args(l, key, key_len);

	if (err)
		return err;
	if (!values || !chunkbuf || !ops)
		return -EINVAL;
	sb = l->g.pc.slot_bytes;
	hops = l->g.pc.hops;
	red = l->g.pc.redundancy;
	if (path_len == 0 || path_len > hops)
		return -DTA_E_MISMATCH;
	if (max_ops < red || chunkbuf_len < l->g.pc.chunk_size)
		return -ENOSPC;

	blank = pc_proto(l) ? 0 : pc_blank(l);
	memset(chunkbuf, 0, l->g.pc.chunk_size);
	for (unsigned i = 0; i < hops; i++) {
		uint32_t g = i < path_len ? pc_code(l, values[i]) : blank;
		uint32_t slot = pc_hopsum(l, key, key_len, i) ^ g;

		/* The prototype leaves hops past the path as raw zeros. */
		if (pc_proto(l) && i >= path_len)
			slot = 0;
		dta__put_be(chunkbuf + i * sb, slot, sb);
	}
	for (unsigned n = 0; n < red; n++) {
		ops[n].kind = DTA_MEMOP_WRITE;
		ops[n].len = l->g.pc.chunk_size;
		ops[n].offset = pc_chunk(l, key, key_len, n) *
				l->g.pc.chunk_size;
		ops[n].data = chunkbuf;
		ops[n].add = 0;
	}
	return (int)red;
}

/* ---- codebook: open addressing over b-bit codes ---- */

enum { CB_EMPTY = 0, CB_VALUE, CB_BLANK, CB_AMBIG };

struct cb_entry {
	uint32_t code;
	uint32_t value;
	uint8_t state;
};

struct dta_pc_codebook {
	uint64_t mask; /* table size - 1 */
	size_t collisions;
	struct cb_entry *tab;
};

static uint64_t cb_hash(uint32_t code)
{
	uint64_t z = code * 0x9E3779B97F4A7C15ull;

	return z ^ (z >> 29);
}

static struct cb_entry *cb_slot(const struct dta_pc_codebook *cb,
				uint32_t code)
{
	uint64_t i = cb_hash(code) & cb->mask;

	while (cb->tab[i].state != CB_EMPTY && cb->tab[i].code != code)
		i = (i + 1) & cb->mask;
	return &cb->tab[i];
}

static void cb_insert(struct dta_pc_codebook *cb, uint32_t code,
		      uint32_t value, uint8_t state)
{
	struct cb_entry *e = cb_slot(cb, code);

	if (e->state == CB_EMPTY) {
		e->code = code;
		e->value = value;
		e->state = state;
		return;
	}
	if (e->state == state && (state == CB_BLANK || e->value == value))
		return; /* duplicate in V */
	if (e->state != CB_AMBIG)
		cb->collisions++;
	cb->collisions++;
	e->state = CB_AMBIG;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

DTA_API int dta_pc_codebook_create(const struct dta_layout *l,
				   const uint32_t *values, size_t n,
				   struct dta_pc_codebook **out)
{
	struct dta_pc_codebook *cb;
	uint32_t *sorted;
	uint64_t size = 16;

	if (!l || !values || n == 0 || !out)
		return -EINVAL;
	if (l->primitive != DTA_PRIM_POSTCARD)
		return -DTA_E_PRIMITIVE;
	while (size < 2 * ((uint64_t)n + 1))
		size <<= 1;
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return -ENOMEM;
	cb->tab = calloc(size, sizeof(*cb->tab));
	if (!cb->tab) {
		free(cb);
		return -ENOMEM;
	}
	cb->mask = size - 1;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		free(cb->tab);
		free(cb);
		return -ENOMEM;
	}
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	if (!pc_proto(l)) /* prototype blanks are raw zeros, see decode */
		cb_insert(cb, pc_blank(l), 0, CB_BLANK);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || sorted[i] != sorted[i - 1]) /* V is a set */
			cb_insert(cb, pc_code(l, sorted[i]), sorted[i], CB_VALUE);
	free(sorted);
	*out = cb;
	return 0;
}

DTA_API void dta_pc_codebook_destroy(struct dta_pc_codebook *cb)
{
	if (!cb)
		return;
	free(cb->tab);
	free(cb);
}

DTA_API size_t dta_pc_codebook_collisions(const struct dta_pc_codebook *cb)
{
	return cb ? cb->collisions : 0;
}

/* Decode one copy. Returns 1 valid, 2 valid but ambiguous, 0 invalid. */
static int pc_decode_copy(const struct dta_layout *l,
			  const struct dta_pc_codebook *cb,
			  const uint8_t *chunk, const uint32_t *hopsum,
			  uint32_t *vals, unsigned *len)
{
	uint8_t copy[4 * DTA_MAX_HOPS];
	unsigned sb = l->g.pc.slot_bytes, hops = l->g.pc.hops;
	unsigned plen = hops;
	int ambiguous = 0;

	memcpy(copy, chunk, (size_t)sb * hops);
	for (unsigned i = 0; i < hops; i++) {
		static const struct cb_entry raw_blank = { .state = CB_BLANK };
		uint32_t raw = (uint32_t)dta__get_be(copy + i * sb, sb);
		const struct cb_entry *e = pc_proto(l) && raw == 0
						   ? &raw_blank
						   : cb_slot(cb, raw ^ hopsum[i]);
		int blank_ok = e->state == CB_BLANK ||
			       (e->state == CB_AMBIG && i > 0);

		if (plen == hops) {
			/* Still in the value prefix. */
			if (e->state == CB_VALUE) {
				vals[i] = e->value;
			} else if (e->state == CB_BLANK && i > 0) {
				plen = i;
			} else if (e->state == CB_AMBIG) {
				ambiguous = 1;
				vals[i] = e->value;
			} else {
				return 0;
			}
		} else if (!blank_ok) {
			return 0;
		} else if (e->state == CB_AMBIG) {
			ambiguous = 1;
		}
	}
	*len = plen;
	return ambiguous ? 2 : 1;
}

/* The hashes one query needs: chunk indices and hop checksums. */
static void pc_hash_key(const struct dta_layout *l, const void *key,
			size_t key_len, unsigned nq, uint64_t *idx,
			uint32_t *hopsum)
{
	for (unsigned n = 0; n < nq; n++)
		idx[n] = pc_chunk(l, key, key_len, n);
	for (unsigned i = 0; i < l->g.pc.hops; i++)
		hopsum[i] = pc_hopsum(l, key, key_len, i);
}

/* Decode the copies at @idx and vote (section 4). */
static void pc_answer(const struct dta_layout *l, const uint8_t *area,
		      const struct dta_pc_codebook *cb, unsigned nq,
		      const uint64_t *idx, const uint32_t *hopsum,
		      struct dta_pc_result *res)
{
	unsigned valid = 0, ambiguous = 0, disagree = 0;

	memset(res, 0, sizeof(*res));
	for (unsigned n = 0; n < nq; n++) {
		uint32_t vals[DTA_MAX_HOPS];
		unsigned len = 0;
		bool dup = false;
		int v;

		for (unsigned m = 0; m < n; m++)
			dup |= idx[m] == idx[n];
		if (dup)
			continue;
		v = pc_decode_copy(l, cb, area + idx[n] * l->g.pc.chunk_size,
				   hopsum, vals, &len);
		if (v == 2)
			ambiguous++;
		if (v != 1)
			continue;
		if (valid == 0) {
			res->path_len = len;
			memcpy(res->values, vals, len * sizeof(vals[0]));
		} else if (len != res->path_len ||
			   memcmp(vals, res->values, len * sizeof(vals[0]))) {
			disagree = 1;
		}
		valid++;
	}
	res->valid_copies = valid;
	if (valid && !disagree) {
		res->status = DTA_Q_FOUND;
		return;
	}
	res->status = (disagree || ambiguous) ? DTA_Q_CONFLICT
					      : DTA_Q_NOT_FOUND;
	res->path_len = 0;
	memset(res->values, 0, sizeof(res->values));
}

static int pc_query_setup(const struct dta_layout *l, const void *area,
			  const struct dta_pc_codebook *cb,
			  const void *res, unsigned redundancy, unsigned *nq)
{
	if (!area || !cb || !res)
		return -EINVAL;
	*nq = redundancy ? redundancy : l->g.pc.redundancy;
	if (*nq > DTA_MAX_REDUNDANCY)
		return -EINVAL;
	return 0;
}

DTA_API int dta_pc_query(const struct dta_layout *l, const void *area,
			 const struct dta_pc_codebook *cb, const void *key,
			 size_t key_len, unsigned redundancy,
			 struct dta_pc_result *res)
{
	uint32_t hopsum[DTA_MAX_HOPS];
	uint64_t idx[DTA_MAX_REDUNDANCY];
	unsigned nq;
	int err = pc_check_args(l, key, key_len);

	if (err)
		return err;
	err = pc_query_setup(l, area, cb, res, redundancy, &nq);
	if (err)
		return err;
	pc_hash_key(l, key, key_len, nq, idx, hopsum);
	pc_answer(l, area, cb, nq, idx, hopsum, res);
	return 0;
}

/*
 * Batched queries: the pipeline of dta_kw_query_batch(). A group of
 * PC_GROUP flows is hashed in one loop (chunk indices first, so their
 * prefetches start while the hop checksums are computed), and decoded
 * PC_AHEAD - 1 groups later.
 */
#ifndef PC_GROUP
#define PC_GROUP 8
#endif
#ifndef PC_AHEAD
#define PC_AHEAD 3
#endif
/* Structures smaller than this are taken to sit in the caches: not
 * prefetched (see keywrite.c). */
#define PC_PREFETCH_MIN (512u << 10)

struct pc_group {
	uint64_t idx[PC_GROUP][DTA_MAX_REDUNDANCY];
	uint32_t hopsum[PC_GROUP][DTA_MAX_HOPS];
};

static void pc_hash_group(const struct dta_layout *l, const uint8_t *area,
			  const uint8_t *keys, size_t key_len, size_t cnt,
			  unsigned nq, struct pc_group *g)
{
	size_t cs = l->g.pc.chunk_size;
	uint64_t h[PC_GROUP];

	/* One dta_hashfn_eval_n() per role: several keys per vector. */
	for (unsigned n = 0; n < nq; n++) {
		dta_hashfn_eval_n(&l->fn[DTA_HF_SLOT(n)], keys, key_len,
				  key_len, cnt, h);
		for (size_t i = 0; i < cnt; i++)
			g->idx[i][n] = pc_proto(l)
					       ? h[i] & (l->g.pc.chunks - 1)
					       : dta__reduce(h[i],
							     l->g.pc.chunks);
	}
	/* Chunks are a power of two in size, so one never straddles lines
	 * of 64 bytes or less. */
	if (l->data_size >= PC_PREFETCH_MIN)
		for (size_t i = 0; i < cnt; i++)
			for (unsigned n = 0; n < nq; n++)
				__builtin_prefetch(area + g->idx[i][n] * cs);
	for (unsigned hop = 0; hop < l->g.pc.hops; hop++) {
		dta_hashfn_eval_n(&l->fn[DTA_HF_HOP(hop)], keys, key_len,
				  key_len, cnt, h);
		for (size_t i = 0; i < cnt; i++)
			g->hopsum[i][hop] = (uint32_t)h[i] & pc_mask(l);
	}
}

DTA_API int dta_pc_query_batch(const struct dta_layout *l, const void *area,
			       const struct dta_pc_codebook *cb,
			       const void *keys, size_t key_len, size_t n,
			       unsigned redundancy, struct dta_pc_result *res)
{
	struct pc_group ring[PC_AHEAD];
	const uint8_t *k = keys;
	size_t groups;
	unsigned nq;
	int err = pc_check_args(l, keys, key_len);

	if (err)
		return err;
	err = pc_query_setup(l, area, cb, res, redundancy, &nq);
	if (err)
		return err;
	if (n > SIZE_MAX / key_len)
		return -EINVAL;

	groups = (n + PC_GROUP - 1) / PC_GROUP;
	for (size_t g = 0; g < groups + PC_AHEAD - 1; g++) {
		if (g < groups) {
			size_t base = g * PC_GROUP;

			pc_hash_group(l, area, k + base * key_len, key_len,
				      n - base < PC_GROUP ? n - base : PC_GROUP,
				      nq, &ring[g % PC_AHEAD]);
		}
		if (g >= PC_AHEAD - 1) {
			size_t v = g - (PC_AHEAD - 1), base = v * PC_GROUP;
			size_t cnt = n - base < PC_GROUP ? n - base : PC_GROUP;
			const struct pc_group *grp = &ring[v % PC_AHEAD];

			for (size_t i = 0; i < cnt; i++)
				pc_answer(l, area, cb, nq, grp->idx[i],
					  grp->hopsum[i], &res[base + i]);
		}
	}
	return 0;
}
