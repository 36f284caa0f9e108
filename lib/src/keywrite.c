/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key-Write writer ops and queries (DTA paper section 4, appendix A.1, A.5).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "dta/keywrite.h"
#include "dta/wire.h"
#include "internal.h"

/*
 * The prototype hashes the key with its bytes reversed (its P4 reverses the
 * 32-bit key "for endianness"), followed by the copy number as one byte,
 * and bounds the result with a mask.
 */
static uint64_t kw_proto_hash(const struct dta_layout *l, const uint8_t *key,
			      size_t key_len, int with_n, unsigned n)
{
	uint8_t buf[DTA_KEY_MAX + 1];

	for (size_t i = 0; i < key_len; i++)
		buf[i] = key[key_len - 1 - i];
	buf[key_len] = (uint8_t)n;
	return dta_hashfn_eval(&l->fn[with_n ? DTA_HF_SLOT(n) : DTA_HF_CHECKSUM],
			       buf, key_len + (with_n ? 1 : 0));
}

/* The bodies of dta_kw_slot() and dta_kw_checksum(), inlined into the
 * query loops (an exported function is called through the PLT). */
static inline uint64_t kw_slot(const struct dta_layout *l, const void *key,
			       size_t key_len, unsigned n)
{
	if (l->hash_family == DTA_HASH_PROTOTYPE)
		return kw_proto_hash(l, key, key_len, 1, n) &
		       (l->g.kw.slots - 1);
	return dta__reduce(dta_hashfn_eval(&l->fn[DTA_HF_SLOT(n)], key, key_len),
			   l->g.kw.slots);
}

/* The stored checksum of a key whose checksum role hashed to @c. */
static inline uint64_t kw_csum_of(const struct dta_layout *l, uint64_t c)
{
	unsigned bytes = l->g.kw.csum_bytes;

	if (bytes < 8)
		c &= (1ull << (8 * bytes)) - 1;
	/* Zero means "never written": remap so empty slots never match. */
	return c ? c : 1;
}

static inline uint64_t kw_checksum(const struct dta_layout *l,
				   const void *key, size_t key_len)
{
	uint64_t c;

	/* The prototype stores the raw CRC, zero included (docs/layouts.md). */
	if (l->hash_family == DTA_HASH_PROTOTYPE)
		return kw_proto_hash(l, key, key_len, 0, 0);
	c = dta_hashfn_eval(&l->fn[DTA_HF_CHECKSUM], key, key_len);
	return kw_csum_of(l, c);
}

DTA_API uint64_t dta_kw_slot(const struct dta_layout *l, const void *key,
			     size_t key_len, unsigned n)
{
	return kw_slot(l, key, key_len, n);
}

DTA_API uint64_t dta_kw_checksum(const struct dta_layout *l, const void *key,
				 size_t key_len)
{
	return kw_checksum(l, key, key_len);
}

/* Checksums are big-endian, except the prototype's, which its translator
 * byte-swaps so that an x86 collector reads them natively. */
static inline uint64_t kw_get_csum(const struct dta_layout *l,
				   const uint8_t *slot)
{
	if (l->hash_family == DTA_HASH_PROTOTYPE)
		return dta__get_le(slot, 4);
	if (l->g.kw.csum_bytes == 4) /* the common case, one load */
		return dta__be32(slot);
	return dta__get_be(slot, l->g.kw.csum_bytes);
}

static void kw_put_csum(const struct dta_layout *l, uint8_t *slot,
			uint64_t c)
{
	if (l->hash_family == DTA_HASH_PROTOTYPE)
		dta__put_le(slot, c, 4);
	else
		dta__put_be(slot, c, l->g.kw.csum_bytes);
}

static int kw_check_args(const struct dta_layout *l, const void *key,
			 size_t key_len)
{
	if (!l || !key || key_len == 0 || key_len > DTA_KEY_MAX)
		return -EINVAL;
	if (l->primitive != DTA_PRIM_KEY_WRITE)
		return -DTA_E_PRIMITIVE;
	return 0;
}

DTA_API int dta_kw_ops(const struct dta_layout *l, const void *key,
		       size_t key_len, const void *data, size_t data_len,
		       unsigned redundancy, uint8_t *slotbuf,
		       size_t slotbuf_len, struct dta_memop *ops,
		       size_t max_ops)
{
	int err = kw_check_args(l, key, key_len);

	if (err)
		return err;
	if (!data || !slotbuf || !ops)
		return -EINVAL;
	if (data_len != l->g.kw.data_len || redundancy == 0 ||
	    redundancy > l->g.kw.max_redundancy)
		return -DTA_E_MISMATCH;
	if (max_ops < redundancy || slotbuf_len < l->g.kw.slot_size)
		return -ENOSPC;

	kw_put_csum(l, slotbuf, kw_checksum(l, key, key_len));
	memcpy(slotbuf + l->g.kw.csum_bytes, data, data_len);
	for (unsigned n = 0; n < redundancy; n++) {
		ops[n].kind = DTA_MEMOP_WRITE;
		ops[n].len = l->g.kw.slot_size;
		ops[n].offset = kw_slot(l, key, key_len, n) *
				l->g.kw.slot_size;
		ops[n].data = slotbuf;
		ops[n].add = 0;
	}
	return (int)redundancy;
}

/* memcpy() and memcmp() of a slot's few bytes without a library call for
 * the usual sizes (fixed-size calls compile to a couple of moves). */
static inline void kw_copy(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else {
		memcpy(d, s, n);
	}
}

static inline bool kw_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (n >= 16 && n <= 32)
		return !memcmp(a, b, 16) &&
		       !memcmp(a + n - 16, b + n - 16, 16);
	if (n >= 8 && n < 16)
		return !memcmp(a, b, 8) && !memcmp(a + n - 8, b + n - 8, 8);
	return !memcmp(a, b, n);
}

/* See internal.h. The 32-bit families (one call hashes every role, the
 * slot reduced by a multiply); the prototype's and odd arguments go the
 * long way, which also gives their errors. */
int dta__kw_lanes_init(const struct dta_layout *l, struct dta__hash_lanes *hl)
{
	const struct dta_hashfn *fn[DTA__LANES];
	unsigned n = 1 + l->g.kw.max_redundancy;

	if (l->hash_family == DTA_HASH_PROTOTYPE || n > DTA__LANES) {
		memset(hl, 0, sizeof(*hl));
		return -ENOTSUP;
	}
	fn[0] = &l->fn[DTA_HF_CHECKSUM];
	for (unsigned i = 1; i < n; i++)
		fn[i] = &l->fn[DTA_HF_SLOT(i - 1)];
	return dta__hash_lanes_init(hl, fn, n);
}

int dta__kw_ops_fast(const struct dta_layout *l, uint64_t fm,
		     const struct dta__hash_lanes *hl, const void *key,
		     size_t key_len, const void *data, unsigned redundancy,
		     uint8_t *slotbuf, struct dta_memop *ops)
{
	const struct dta_hashfn *fn[1 + DTA_MAX_REDUNDANCY];
	uint64_t h[1 + DTA_MAX_REDUNDANCY + DTA__LANES], c;
	unsigned cb = l->g.kw.csum_bytes;
	uint32_t ss = l->g.kw.slot_size;

	if (l->hash_family == DTA_HASH_PROTOTYPE || !key || !data ||
	    key_len - 1 >= DTA_KEY_MAX || redundancy - 1 >= l->g.kw.max_redundancy)
		return dta_kw_ops(l, key, key_len, data, l->g.kw.data_len,
				  redundancy, slotbuf, ss, ops, DTA_MAX_REDUNDANCY);
	if (hl && hl->n > redundancy && key_len - 4 <= 12) {
		dta__hash_lanes_eval(hl, key, key_len, h);
	} else {
		fn[0] = &l->fn[DTA_HF_CHECKSUM];
		for (unsigned n = 0; n < redundancy; n++)
			fn[1 + n] = &l->fn[DTA_HF_SLOT(n)];
		dta__hashfn_eval_fns(fn, 1 + redundancy, key, key_len, h);
	}
	c = kw_csum_of(l, h[0]);
	if (cb == 4) /* the usual width: one byte-swapped store */
		dta__put_be32(slotbuf, (uint32_t)c);
	else
		dta__put_be(slotbuf, c, cb);
	kw_copy(slotbuf + cb, data, l->g.kw.data_len);
	for (unsigned n = 0; n < redundancy; n++) {
		ops[n].kind = DTA_MEMOP_WRITE;
		ops[n].len = ss;
		ops[n].offset = dta__reduce_fm(h[1 + n], l->g.kw.slots, fm) * ss;
		ops[n].data = slotbuf;
		ops[n].add = 0;
	}
	return (int)redundancy;
}

/*
 * Plurality vote over the slots at @idx (appendix A.5). Each slot whose
 * checksum looks right is copied and examined as copied, so that a
 * concurrent writer cannot make the data compared differ from the data
 * returned. Copies that landed in the same slot are one vote, not several.
 */
static void kw_vote(const struct dta_layout *l, const uint8_t *area,
		    const uint64_t *idx, unsigned nq, uint64_t csum,
		    unsigned threshold, uint8_t *out, struct dta_kw_result *res)
{
	uint8_t copy[DTA_MAX_REDUNDANCY][8 + DTA_DATA_MAX];
	unsigned votes[DTA_MAX_REDUNDANCY];
	unsigned ncand = 0, matched = 0;
	unsigned cb = l->g.kw.csum_bytes, dl = l->g.kw.data_len;
	size_t ss = l->g.kw.slot_size;
	unsigned best = 0, best_votes = 0, tie = 0;

	for (unsigned n = 0; n < nq; n++) {
		const uint8_t *p = area + idx[n] * ss;
		uint8_t *slot = copy[ncand]; /* candidate c lives in copy[c] */
		unsigned c;
		bool dup = false;

		for (unsigned m = 0; m < n; m++)
			dup |= idx[m] == idx[n];
		if (dup || kw_get_csum(l, p) != csum)
			continue;
		kw_copy(slot, p, ss);
		if (kw_get_csum(l, slot) != csum)
			continue; /* changed under us: as if never matched */
		matched++;
		for (c = 0; c < ncand; c++)
			if (kw_equal(copy[c] + cb, slot + cb, dl))
				break;
		if (c == ncand) {
			votes[c] = 0;
			ncand++;
		}
		votes[c]++;
	}
	for (unsigned c = 0; c < ncand; c++) {
		if (votes[c] > best_votes) {
			best = c;
			best_votes = votes[c];
			tie = 0;
		} else if (votes[c] == best_votes) {
			tie = 1;
		}
	}
	res->candidates = matched;
	res->votes = best_votes;
	if (ncand == 0) {
		res->status = DTA_Q_NOT_FOUND;
	} else if (tie) {
		res->status = DTA_Q_CONFLICT;
	} else if (best_votes < threshold) {
		res->status = DTA_Q_NOT_FOUND;
	} else {
		res->status = DTA_Q_FOUND;
		kw_copy(out, copy[best] + cb, dl);
	}
}

static int kw_query_setup(const struct dta_layout *l, const void *area,
			  const struct dta_kw_query_opts *opts,
			  size_t out_len, unsigned *nq, unsigned *thr)
{
	if (!area)
		return -EINVAL;
	*nq = opts && opts->redundancy ? opts->redundancy
				       : l->g.kw.max_redundancy;
	*thr = opts ? opts->threshold : 0;
	if (*nq > DTA_MAX_REDUNDANCY || *thr > DTA_MAX_REDUNDANCY)
		return -EINVAL;
	if (out_len < l->g.kw.data_len)
		return -ENOSPC;
	return 0;
}

DTA_API int dta_kw_query(const struct dta_layout *l, const void *area,
			 const void *key, size_t key_len,
			 const struct dta_kw_query_opts *opts, void *out,
			 size_t out_len, struct dta_kw_result *res)
{
	uint64_t idx[DTA_MAX_REDUNDANCY];
	unsigned nq, thr;
	int err = kw_check_args(l, key, key_len);

	if (err)
		return err;
	if (!out || !res)
		return -EINVAL;
	err = kw_query_setup(l, area, opts, out_len, &nq, &thr);
	if (err)
		return err;
	for (unsigned n = 0; n < nq; n++)
		idx[n] = kw_slot(l, key, key_len, n);
	kw_vote(l, area, idx, nq, kw_checksum(l, key, key_len), thr, out,
		res);
	return 0;
}

/*
 * Batched queries as a software pipeline. Keys go through in groups of
 * KW_GROUP: a group is hashed in one tight loop (all slot indices, then
 * all checksums), then every slot it will read is prefetched, and it is
 * voted on only KW_AHEAD - 1 groups later. The memory reads of several
 * groups, and the page walks their prefetches start, overlap each other and
 * the hashing of the groups behind them, instead of each key waiting on its
 * own misses.
 */
#ifndef KW_GROUP
#define KW_GROUP 8
#endif
#ifndef KW_AHEAD
#define KW_AHEAD 4
#endif
/* Structures smaller than this are taken to sit in the caches, where a
 * prefetch is pure cost (a few ns a key): they are not prefetched. */
#define KW_PREFETCH_MIN (512u << 10)

struct kw_group {
	uint64_t idx[KW_GROUP][DTA_MAX_REDUNDANCY];
	uint64_t csum[KW_GROUP];
};

/* Prefetch the cache lines of one slot (a slot may straddle two). */
static inline void prefetch_span(const uint8_t *p, size_t len)
{
	__builtin_prefetch(p);
	if ((((uintptr_t)p) ^ ((uintptr_t)p + len - 1)) & ~(uintptr_t)63)
		__builtin_prefetch(p + len - 1);
}

static void kw_hash_group(const struct dta_layout *l, const uint8_t *area,
			  const uint8_t *keys, size_t key_len, size_t cnt,
			  unsigned nq, struct kw_group *g)
{
	size_t ss = l->g.kw.slot_size;
	uint64_t h[KW_GROUP];

	/* One dta_hashfn_eval_n() per role: it hashes several keys per
	 * vector where the CPU can. The prototype family hashes a reversed
	 * key plus the copy number and takes the per-key path. */
	for (unsigned j = 0; j < nq; j++) {
		if (l->hash_family == DTA_HASH_PROTOTYPE) {
			for (size_t i = 0; i < cnt; i++)
				g->idx[i][j] = kw_slot(l, keys + i * key_len,
						       key_len, j);
			continue;
		}
		dta_hashfn_eval_n(&l->fn[DTA_HF_SLOT(j)], keys, key_len,
				  key_len, cnt, h);
		for (size_t i = 0; i < cnt; i++)
			g->idx[i][j] = dta__reduce(h[i], l->g.kw.slots);
	}
	/* All prefetches of the group back to back: their page walks and
	 * misses run in parallel (spreading them between the hashes measured
	 * slower: each stalled prefetch then holds up the hashing behind it). */
	if (l->data_size >= KW_PREFETCH_MIN)
		for (size_t i = 0; i < cnt; i++)
			for (unsigned j = 0; j < nq; j++)
				prefetch_span(area + g->idx[i][j] * ss, ss);
	if (l->hash_family == DTA_HASH_PROTOTYPE) {
		for (size_t i = 0; i < cnt; i++)
			g->csum[i] = kw_checksum(l, keys + i * key_len,
						 key_len);
		return;
	}
	dta_hashfn_eval_n(&l->fn[DTA_HF_CHECKSUM], keys, key_len, key_len, cnt,
			  h);
	for (size_t i = 0; i < cnt; i++)
		g->csum[i] = kw_csum_of(l, h[i]);
}

DTA_API int dta_kw_query_batch(const struct dta_layout *l, const void *area,
			       const void *keys, size_t key_len, size_t n,
			       const struct dta_kw_query_opts *opts, void *out,
			       size_t out_len, struct dta_kw_result *res)
{
	struct kw_group ring[KW_AHEAD];
	const uint8_t *k = keys;
	uint8_t *o = out;
	size_t groups, dl;
	unsigned nq, thr;
	int err = kw_check_args(l, keys, key_len);

	if (err)
		return err;
	if (!out || !res)
		return -EINVAL;
	err = kw_query_setup(l, area, opts, l->g.kw.data_len, &nq, &thr);
	if (err)
		return err;
	dl = l->g.kw.data_len;
	if (n > out_len / dl)
		return -ENOSPC;
	if (n > SIZE_MAX / key_len)
		return -EINVAL;

	groups = (n + KW_GROUP - 1) / KW_GROUP;
	for (size_t g = 0; g < groups + KW_AHEAD - 1; g++) {
		if (g < groups) {
			size_t base = g * KW_GROUP;

			kw_hash_group(l, area, k + base * key_len, key_len,
				      n - base < KW_GROUP ? n - base : KW_GROUP,
				      nq, &ring[g % KW_AHEAD]);
		}
		if (g >= KW_AHEAD - 1) {
			size_t v = g - (KW_AHEAD - 1), base = v * KW_GROUP;
			size_t cnt = n - base < KW_GROUP ? n - base : KW_GROUP;
			const struct kw_group *grp = &ring[v % KW_AHEAD];

			for (size_t i = 0; i < cnt; i++)
				kw_vote(l, area, grp->idx[i], nq, grp->csum[i],
					thr, o + (base + i) * dl,
					&res[base + i]);
		}
	}
	return 0;
}
