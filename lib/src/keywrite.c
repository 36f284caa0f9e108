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

/* How the votes of a query's candidates end (appendix A.5): the leader
 * (@best, with @best_votes) is FOUND when no other candidate has as many
 * votes and it has at least @thr, a CONFLICT when another has as many. */
static inline int kw_verdict(const unsigned *votes, unsigned ncand,
			     unsigned thr, unsigned *best,
			     unsigned *best_votes)
{
	int tie = 0;

	*best = 0;
	*best_votes = 0;
	for (unsigned c = 0; c < ncand; c++) {
		if (votes[c] > *best_votes) {
			*best = c;
			*best_votes = votes[c];
			tie = 0;
		} else if (votes[c] == *best_votes) {
			tie = 1;
		}
	}
	if (ncand == 0 || (!tie && *best_votes < thr))
		return DTA_Q_NOT_FOUND;
	return tie ? DTA_Q_CONFLICT : DTA_Q_FOUND;
}

/*
 * Plurality vote over the slots at @p (appendix A.5), any slot size. Each
 * slot whose checksum looks right is copied and examined as copied, so
 * that a concurrent writer cannot make the data compared differ from the
 * data returned. Copies that landed in the same slot are one vote, not
 * several.
 */
static void kw_vote(const struct dta_layout *l, const uint8_t *const *p,
		    unsigned nq, uint64_t csum, unsigned threshold,
		    uint8_t *out, struct dta_kw_result *res)
{
	uint8_t copy[DTA_MAX_REDUNDANCY][8 + DTA_DATA_MAX];
	unsigned votes[DTA_MAX_REDUNDANCY];
	unsigned ncand = 0, matched = 0;
	unsigned cb = l->g.kw.csum_bytes, dl = l->g.kw.data_len;
	size_t ss = l->g.kw.slot_size;
	unsigned best, best_votes;

	for (unsigned n = 0; n < nq; n++) {
		uint8_t *slot = copy[ncand]; /* candidate c lives in copy[c] */
		unsigned c;
		bool dup = false;

		for (unsigned m = 0; m < n; m++)
			dup |= p[m] == p[n];
		if (dup || kw_get_csum(l, p[n]) != csum)
			continue;
		kw_copy(slot, p[n], ss);
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
	res->status = kw_verdict(votes, ncand, threshold, &best, &best_votes);
	res->candidates = matched;
	res->votes = best_votes;
	if (res->status == DTA_Q_FOUND)
		kw_copy(out, copy[best] + cb, dl);
}

/*
 * The vote for slots of 8 to 32 bytes (a 4-byte checksum and up to 28
 * bytes of data: INT paths of up to 7 hops, flow records), on registers.
 * A slot is read once, as two words (8 <= size < 16) or two 16-byte halves
 * (16 <= size <= 32) that overlap when the size is not a multiple, and
 * everything is decided on what was read: the checksum is its first bytes,
 * and since candidates share the checksum, equal data is an equal slot.
 */
struct kw_sv {
	uint64_t w[4];
};

/* A slot's first 8 bytes hold checksum @c where (w[0] ^ want) & mask is 0. */
struct kw_match {
	uint64_t want;
	uint64_t mask;
};

static inline bool kw_small(const struct dta_layout *l)
{
	return l->g.kw.slot_size >= 8 && l->g.kw.slot_size <= 32;
}

static inline uint64_t kw_csum_mask(const struct dta_layout *l)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ~0ull >> (64 - 8 * l->g.kw.csum_bytes);
#else
	uint8_t b[8] = { 0 };
	uint64_t m;

	memset(b, 0xFF, l->g.kw.csum_bytes);
	memcpy(&m, b, 8);
	return m;
#endif
}

/* The bytes kw_put_csum() would store for @c, as the slot's first word. */
static inline uint64_t kw_csum_word(const struct dta_layout *l, uint64_t c)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	unsigned cb = l->g.kw.csum_bytes;

	if (l->hash_family == DTA_HASH_PROTOTYPE)
		return c & 0xFFFFFFFFu;
	return __builtin_bswap64(c << (64 - 8 * cb));
#else
	uint8_t b[8] = { 0 };
	uint64_t w;

	kw_put_csum(l, b, c);
	memcpy(&w, b, 8);
	return w;
#endif
}

static inline void kw_sv_load(struct kw_sv *v, const uint8_t *p, size_t ss)
{
	if (ss >= 16) {
		memcpy(&v->w[0], p, 16);
		memcpy(&v->w[2], p + ss - 16, 16);
	} else {
		memcpy(&v->w[0], p, 8);
		memcpy(&v->w[1], p + ss - 8, 8);
		v->w[2] = v->w[3] = 0;
	}
}

static inline bool kw_sv_eq(const struct kw_sv *a, const struct kw_sv *b)
{
	return ((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]) |
		(a->w[2] ^ b->w[2]) | (a->w[3] ^ b->w[3])) == 0;
}

static inline bool kw_sv_match(const struct kw_sv *v, struct kw_match m)
{
	return ((v->w[0] ^ m.want) & m.mask) == 0;
}

/* Rebuild the slot's bytes from its halves and copy its data out. */
static inline void kw_sv_out(const struct dta_layout *l, const struct kw_sv *v,
			     uint8_t *out)
{
	size_t ss = l->g.kw.slot_size;
	uint8_t b[32];

	if (ss >= 16) {
		memcpy(b, &v->w[0], 16);
		memcpy(b + ss - 16, &v->w[2], 16);
	} else {
		memcpy(b, &v->w[0], 8);
		memcpy(b + ss - 8, &v->w[1], 8);
	}
	kw_copy(out, b + l->g.kw.csum_bytes, l->g.kw.data_len);
}

/*
 * N = 2, the paper's default: no candidate lists, and no branch on what
 * the slots hold until the data is copied out. Whether a copy survived
 * is a coin toss in a full table; a mispredicted branch there would throw
 * away the work the core had started on the next query (its hashing and
 * its slot reads).
 */
static inline __attribute__((always_inline)) void
kw_vote2(const struct dta_layout *l, const uint8_t *const *p,
	 struct kw_match m, unsigned thr, uint8_t *out,
	 struct dta_kw_result *res)
{
	struct kw_sv a, b;
	unsigned ma, mb, both, tie, cand, votes;
	int status;

	kw_sv_load(&a, p[0], l->g.kw.slot_size);
	kw_sv_load(&b, p[1], l->g.kw.slot_size);
	ma = kw_sv_match(&a, m);
	mb = (p[1] != p[0]) & kw_sv_match(&b, m);
	both = ma & mb;
	tie = both & !kw_sv_eq(&a, &b); /* two candidates, one vote each */
	cand = ma + mb;
	votes = cand - tie;
	status = votes < thr ? DTA_Q_NOT_FOUND : DTA_Q_FOUND;
	status = tie ? DTA_Q_CONFLICT : status;
	status = cand ? status : DTA_Q_NOT_FOUND;
	res->candidates = cand;
	res->votes = votes;
	res->status = status;
	if (status == DTA_Q_FOUND)
		kw_sv_out(l, ma ? &a : &b, out);
}

static inline void kw_vote_small(const struct dta_layout *l,
				 const uint8_t *const *p, unsigned nq,
				 struct kw_match m, unsigned thr, uint8_t *out,
				 struct dta_kw_result *res)
{
	struct kw_sv cand[DTA_MAX_REDUNDANCY];
	unsigned votes[DTA_MAX_REDUNDANCY];
	unsigned ncand = 0, matched = 0, best, best_votes;
	size_t ss = l->g.kw.slot_size;

	if (nq == 2) {
		kw_vote2(l, p, m, thr, out, res);
		return;
	}
	for (unsigned n = 0; n < nq; n++) {
		bool dup = false;
		unsigned c;

		for (unsigned k = 0; k < n; k++)
			dup |= p[k] == p[n];
		kw_sv_load(&cand[ncand], p[n], ss);
		if (dup || !kw_sv_match(&cand[ncand], m))
			continue;
		matched++;
		for (c = 0; c < ncand; c++)
			if (kw_sv_eq(&cand[c], &cand[ncand]))
				break;
		if (c == ncand)
			votes[ncand++] = 0;
		votes[c]++;
	}
	res->status = kw_verdict(votes, ncand, thr, &best, &best_votes);
	res->candidates = matched;
	res->votes = best_votes;
	if (res->status == DTA_Q_FOUND)
		kw_sv_out(l, &cand[best], out);
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
	const uint8_t *p[DTA_MAX_REDUNDANCY];
	size_t ss;
	unsigned nq, thr;
	uint64_t csum;
	int err = kw_check_args(l, key, key_len);

	if (err)
		return err;
	if (!out || !res)
		return -EINVAL;
	err = kw_query_setup(l, area, opts, out_len, &nq, &thr);
	if (err)
		return err;
	ss = l->g.kw.slot_size;
	if (nq == 2 && kw_small(l) && l->hash_family != DTA_HASH_PROTOTYPE) {
		/* The common case straight through: the fewer instructions
		 * between this query's slot reads and the next one's, the more
		 * of them the core overlaps. */
		uint64_t s = l->g.kw.slots;
		struct kw_match m;

		p[0] = (const uint8_t *)area +
		       dta__reduce(dta_hashfn_eval(&l->fn[DTA_HF_SLOT(0)], key,
						   key_len), s) * ss;
		p[1] = (const uint8_t *)area +
		       dta__reduce(dta_hashfn_eval(&l->fn[DTA_HF_SLOT(1)], key,
						   key_len), s) * ss;
		csum = kw_csum_of(l, dta_hashfn_eval(&l->fn[DTA_HF_CHECKSUM],
						     key, key_len));
		m.want = kw_csum_word(l, csum);
		m.mask = kw_csum_mask(l);
		kw_vote2(l, p, m, thr, out, res);
		return 0;
	}
	for (unsigned n = 0; n < nq; n++)
		p[n] = (const uint8_t *)area + kw_slot(l, key, key_len, n) * ss;
	csum = kw_checksum(l, key, key_len);
	if (kw_small(l)) {
		struct kw_match m = { kw_csum_word(l, csum), kw_csum_mask(l) };

		kw_vote_small(l, p, nq, m, thr, out, res);
	} else {
		kw_vote(l, p, nq, csum, thr, out, res);
	}
	return 0;
}

/*
 * Batched queries as a software pipeline. Keys go through in chunks of
 * KW_CHUNK: a chunk is hashed in one tight loop per role (several keys per
 * vector), one chunk ahead of the chunk being voted on. While key i is
 * voted on, the slots of key i + KW_DIST are prefetched, so a steady
 * number of misses is in flight and the hashing of the next chunk and the
 * votes overlap them, instead of each key waiting on its own misses.
 */
#ifndef KW_CHUNK
#define KW_CHUNK 32
#endif
#ifndef KW_DIST
#define KW_DIST 16
#endif
#ifndef KW_HINT
#define KW_HINT 3
#endif
/* The key prefetched is in the chunk being voted on or the next one, the
 * two the ring holds. */
_Static_assert(KW_DIST <= KW_CHUNK, "KW_DIST reaches past the next chunk");
/* Structures smaller than this are taken to sit in the caches, where a
 * prefetch is pure cost (a few ns a key): they are not prefetched. */
#define KW_PREFETCH_MIN (512u << 10)

struct kw_chunk {
	const uint8_t *p[KW_CHUNK][DTA_MAX_REDUNDANCY];
	uint64_t csum[KW_CHUNK];
};

/* Prefetch the cache lines of one slot (a slot may straddle two). */
static inline void prefetch_span(const uint8_t *p, size_t len)
{
	__builtin_prefetch(p, 0, KW_HINT);
	if ((((uintptr_t)p) ^ ((uintptr_t)p + len - 1)) & ~(uintptr_t)63)
		__builtin_prefetch(p + len - 1, 0, KW_HINT);
}

static void kw_hash_chunk(const struct dta_layout *l, const uint8_t *area,
			  const uint8_t *keys, size_t key_len, size_t cnt,
			  unsigned nq, struct kw_chunk *g)
{
	size_t ss = l->g.kw.slot_size;
	uint64_t h[KW_CHUNK];

	/* One dta_hashfn_eval_n() per role: it hashes several keys per
	 * vector where the CPU can. The prototype family hashes a reversed
	 * key plus the copy number and takes the per-key path. */
	if (l->hash_family == DTA_HASH_PROTOTYPE) {
		for (size_t i = 0; i < cnt; i++) {
			for (unsigned j = 0; j < nq; j++)
				g->p[i][j] = area + kw_slot(l, keys + i * key_len,
							    key_len, j) * ss;
			g->csum[i] = kw_checksum(l, keys + i * key_len,
						 key_len);
		}
		return;
	}
	for (unsigned j = 0; j < nq; j++) {
		dta_hashfn_eval_n(&l->fn[DTA_HF_SLOT(j)], keys, key_len,
				  key_len, cnt, h);
		for (size_t i = 0; i < cnt; i++)
			g->p[i][j] = area + dta__reduce(h[i], l->g.kw.slots) * ss;
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
	struct kw_chunk ring[2];
	const uint8_t *k = keys;
	uint8_t *o = out;
	size_t chunks, dl, ss;
	unsigned nq, thr;
	uint64_t mask;
	bool small, pf;
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
	if (n == 0)
		return 0;
	small = kw_small(l);
	mask = kw_csum_mask(l);
	ss = l->g.kw.slot_size;
	pf = l->data_size >= KW_PREFETCH_MIN;

	chunks = (n + KW_CHUNK - 1) / KW_CHUNK;
	kw_hash_chunk(l, area, k, key_len, n < KW_CHUNK ? n : KW_CHUNK, nq,
		      &ring[0]);
	if (pf)
		for (size_t i = 0; i < KW_DIST && i < n && i < KW_CHUNK; i++)
			for (unsigned j = 0; j < nq; j++)
				prefetch_span(ring[0].p[i][j], ss);
	for (size_t c = 0; c < chunks; c++) {
		const struct kw_chunk *grp = &ring[c % 2];
		size_t base = c * KW_CHUNK;
		size_t cnt = n - base < KW_CHUNK ? n - base : KW_CHUNK;

		if (c + 1 < chunks) {
			size_t nb = base + KW_CHUNK;

			kw_hash_chunk(l, area, k + nb * key_len, key_len,
				      n - nb < KW_CHUNK ? n - nb : KW_CHUNK, nq,
				      &ring[(c + 1) % 2]);
		}
		for (size_t i = 0; i < cnt; i++) {
			size_t a = i + KW_DIST;

			/* key a is in this chunk or the next one */
			if (pf && base + a < n)
				for (unsigned j = 0; j < nq; j++)
					prefetch_span(ring[(c + a / KW_CHUNK) % 2]
							      .p[a % KW_CHUNK][j],
						      ss);
			if (small) {
				struct kw_match m = {
					kw_csum_word(l, grp->csum[i]), mask
				};

				kw_vote_small(l, grp->p[i], nq, m, thr,
					      o + (base + i) * dl,
					      &res[base + i]);
			} else {
				kw_vote(l, grp->p[i], nq, grp->csum[i], thr,
					o + (base + i) * dl, &res[base + i]);
			}
		}
	}
	return 0;
}
