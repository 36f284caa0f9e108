/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key-Increment: count-min sketch updated by fetch-and-add (DTA paper
 * section 4 "Key-Increment", appendix A.4).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "dta/keyincr.h"
#include "dta/wire.h"
#include "internal.h"

/* dta_ki_index(), inlined into the loops (exported calls go through the
 * PLT). */
static inline uint64_t ki_index(const struct dta_layout *l, const void *key,
				size_t key_len, unsigned n)
{
	return dta__reduce(dta_hashfn_eval(&l->fn[DTA_HF_SLOT(n)], key, key_len),
			   l->g.ki.width);
}

DTA_API uint64_t dta_ki_index(const struct dta_layout *l, const void *key,
			      size_t key_len, unsigned n)
{
	return ki_index(l, key, key_len, n);
}

static uint64_t ki_offset(const struct dta_layout *l, unsigned bank,
			  unsigned row, uint64_t index)
{
	return (((uint64_t)bank * l->g.ki.rows + row) * l->g.ki.width + index) *
	       8;
}

static int ki_check(const struct dta_layout *l, const void *key,
		    size_t key_len, unsigned bank)
{
	if (!l || !key || key_len == 0 || key_len > DTA_KEY_MAX)
		return -EINVAL;
	if (l->primitive != DTA_PRIM_KEY_INCREMENT)
		return -DTA_E_PRIMITIVE;
	if (bank >= l->g.ki.banks)
		return -DTA_E_MISMATCH;
	return 0;
}

DTA_API int dta_ki_ops(const struct dta_layout *l, const void *key,
		       size_t key_len, uint64_t add, unsigned bank,
		       struct dta_memop *ops, size_t max_ops)
{
	int err = ki_check(l, key, key_len, bank);

	if (err)
		return err;
	if (!ops)
		return -EINVAL;
	if (max_ops < l->g.ki.rows)
		return -ENOSPC;
	for (unsigned n = 0; n < l->g.ki.rows; n++) {
		ops[n].kind = DTA_MEMOP_FETCH_ADD;
		ops[n].len = 8;
		ops[n].offset = ki_offset(l, bank, n, ki_index(l, key, key_len, n));
		ops[n].data = NULL;
		ops[n].add = add;
	}
	return l->g.ki.rows;
}

int dta__ki_lanes_init(const struct dta_layout *l, struct dta__hash_lanes *hl)
{
	const struct dta_hashfn *fn[DTA__LANES];

	if (l->g.ki.rows > DTA__LANES) {
		memset(hl, 0, sizeof(*hl));
		return -ENOTSUP;
	}
	for (unsigned i = 0; i < l->g.ki.rows; i++)
		fn[i] = &l->fn[DTA_HF_SLOT(i)];
	return dta__hash_lanes_init(hl, fn, l->g.ki.rows);
}

/* See internal.h: every row's index from one call, reduced by a multiply. */
int dta__ki_ops_fast(const struct dta_layout *l, uint64_t fm,
		     const struct dta__hash_lanes *hl, const void *key,
		     size_t key_len, uint64_t add, unsigned bank,
		     struct dta_memop *ops)
{
	const struct dta_hashfn *fn[DTA_MAX_REDUNDANCY];
	uint64_t h[DTA_MAX_REDUNDANCY + DTA__LANES];
	unsigned rows = l->g.ki.rows;

	if (!key || key_len - 1 >= DTA_KEY_MAX || bank >= l->g.ki.banks || !rows ||
	    rows > DTA_MAX_REDUNDANCY)
		return dta_ki_ops(l, key, key_len, add, bank, ops,
				  DTA_MAX_REDUNDANCY);
	if (hl && key_len - 4 <= 12) {
		dta__hash_lanes_eval(hl, key, key_len, h);
	} else {
		for (unsigned n = 0; n < rows; n++)
			fn[n] = &l->fn[DTA_HF_SLOT(n)];
		dta__hashfn_eval_fns(fn, rows, key, key_len, h);
	}
	for (unsigned n = 0; n < rows; n++) {
		ops[n].kind = DTA_MEMOP_FETCH_ADD;
		ops[n].len = 8;
		ops[n].offset = ki_offset(l, bank, n,
					  dta__reduce_fm(h[n], l->g.ki.width, fm));
		ops[n].data = NULL;
		ops[n].add = add;
	}
	return (int)rows;
}

DTA_API int dta_ki_query(const struct dta_layout *l, const void *area,
			 const void *key, size_t key_len, unsigned bank,
			 uint64_t *out)
{
	uint64_t min = UINT64_MAX;
	int err = ki_check(l, key, key_len, bank);

	if (err)
		return err;
	if (!area || !out)
		return -EINVAL;
	for (unsigned n = 0; n < l->g.ki.rows; n++) {
		const uint64_t *c = (const uint64_t *)(const void *)
			((const uint8_t *)area +
			 ki_offset(l, bank, n, ki_index(l, key, key_len, n)));
		uint64_t v = __atomic_load_n(c, __ATOMIC_RELAXED);

		if (v < min)
			min = v;
	}
	*out = min;
	return 0;
}

/*
 * Batched queries: the pipeline of dta_kw_query_batch(). A group of
 * KI_GROUP keys is hashed in one loop and its counters prefetched; the
 * minimum is taken KI_AHEAD - 1 groups later.
 */
#ifndef KI_GROUP
#define KI_GROUP 8
#endif
#ifndef KI_AHEAD
#define KI_AHEAD 4
#endif
/* Structures smaller than this are taken to sit in the caches: not
 * prefetched (see keywrite.c). */
#define KI_PREFETCH_MIN (512u << 10)

struct ki_group {
	uint64_t off[KI_GROUP][DTA_MAX_REDUNDANCY];
};

static void ki_hash_group(const struct dta_layout *l, const uint8_t *area,
			  const uint8_t *keys, size_t key_len, size_t cnt,
			  unsigned bank, struct ki_group *g)
{
	unsigned rows = l->g.ki.rows;
	uint64_t h[KI_GROUP];

	/* One dta_hashfn_eval_n() per row: several keys per vector. */
	for (unsigned r = 0; r < rows; r++) {
		dta_hashfn_eval_n(&l->fn[DTA_HF_SLOT(r)], keys, key_len,
				  key_len, cnt, h);
		for (size_t i = 0; i < cnt; i++)
			g->off[i][r] = ki_offset(l, bank, r,
						 dta__reduce(h[i],
							     l->g.ki.width));
	}
	if (l->data_size >= KI_PREFETCH_MIN)
		for (size_t i = 0; i < cnt; i++)
			for (unsigned r = 0; r < rows; r++)
				__builtin_prefetch(area + g->off[i][r]);
}

DTA_API int dta_ki_query_batch(const struct dta_layout *l, const void *area,
			       const void *keys, size_t key_len, size_t n,
			       unsigned bank, uint64_t *out)
{
	struct ki_group ring[KI_AHEAD];
	const uint8_t *k = keys, *a = area;
	size_t groups;
	int err = ki_check(l, keys, key_len, bank);

	if (err)
		return err;
	if (!area || !out || n > SIZE_MAX / key_len)
		return -EINVAL;
	if (l->g.ki.rows > DTA_MAX_REDUNDANCY)
		return -DTA_E_MISMATCH;

	groups = (n + KI_GROUP - 1) / KI_GROUP;
	for (size_t g = 0; g < groups + KI_AHEAD - 1; g++) {
		if (g < groups) {
			size_t base = g * KI_GROUP;

			ki_hash_group(l, area, k + base * key_len, key_len,
				      n - base < KI_GROUP ? n - base : KI_GROUP,
				      bank, &ring[g % KI_AHEAD]);
		}
		if (g >= KI_AHEAD - 1) {
			size_t v = g - (KI_AHEAD - 1), base = v * KI_GROUP;
			size_t cnt = n - base < KI_GROUP ? n - base : KI_GROUP;
			const struct ki_group *grp = &ring[v % KI_AHEAD];

			for (size_t i = 0; i < cnt; i++) {
				uint64_t min = UINT64_MAX;

				for (unsigned r = 0; r < l->g.ki.rows; r++) {
					const uint64_t *c = (const uint64_t *)(const void *)
						(a + grp->off[i][r]);
					uint64_t val = __atomic_load_n(c, __ATOMIC_RELAXED);

					if (val < min)
						min = val;
				}
				out[base + i] = min;
			}
		}
	}
	return 0;
}

uint64_t *dta__ki_bank(const struct dta_layout *l, const void *area,
		       unsigned bank, int *err)
{
	*err = -EINVAL;
	if (!l || !area)
		return NULL;
	*err = -DTA_E_PRIMITIVE;
	if (l->primitive != DTA_PRIM_KEY_INCREMENT)
		return NULL;
	*err = -DTA_E_MISMATCH;
	if (bank >= l->g.ki.banks)
		return NULL;
	*err = 0;
	return (uint64_t *)((uintptr_t)area + ki_offset(l, bank, 0, 0));
}

DTA_API int dta_ki_reset(const struct dta_layout *l, void *area, unsigned bank)
{
	uint64_t *c;
	uint64_t n;
	int err;

	c = dta__ki_bank(l, area, bank, &err);
	if (!c)
		return err;
	n = (uint64_t)l->g.ki.rows * l->g.ki.width;
	for (uint64_t i = 0; i < n; i++)
		__atomic_store_n(&c[i], 0, __ATOMIC_RELAXED);
	return 0;
}
