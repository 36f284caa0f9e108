/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Append: batch frames in per-list rings, and a reader that needs no
 * coordination with the writer (DTA paper section 4 "Append", A.3; the
 * frame format is ours, see append.h and docs/layouts.md).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dta/append.h"
#include "dta/wire.h"
#include "internal.h"

#define AP_HDR 8
#define AP_TRL 8

/* Batch sequence numbers run 1, 2, ..., 2^32-1, 1, ...: 0 is "never". */
static uint32_t ap_next_seq(uint32_t s)
{
	return s + 1 ? s + 1 : 1;
}

/* a - b as a signed distance modulo 2^32, in [-2^31, 2^31), computed
 * without overflow or implementation-defined conversions: the memory it
 * is applied to may hold any bytes (a crafted snapshot). */
static int64_t ap_sdist(uint32_t a, uint32_t b)
{
	uint32_t x = a - b;

	return x < 0x80000000u ? (int64_t)x : (int64_t)x - 0x100000000ll;
}

static uint64_t ap_frame_off(const struct dta_layout *l, uint32_t list,
			     uint32_t seq)
{
	uint64_t pos = (seq - 1) % l->g.ap.ring_batches;

	return ((uint64_t)list * l->g.ap.ring_batches + pos) *
	       l->g.ap.frame_size;
}

DTA_API int dta_ap_ops(const struct dta_layout *l, uint32_t list,
		       struct dta_ap_cursor *cur, const void *entries,
		       unsigned count, uint8_t *framebuf, size_t framebuf_len,
		       struct dta_memop *ops, size_t max_ops)
{
	uint32_t fs, seq;
	uint64_t off;
	size_t body;
	unsigned nops;

	if (!l || !cur || !entries || !framebuf || !ops)
		return -EINVAL;
	if (l->primitive != DTA_PRIM_APPEND)
		return -DTA_E_PRIMITIVE;
	if (list >= l->g.ap.lists || count == 0 ||
	    count > l->g.ap.batch_entries)
		return -DTA_E_MISMATCH;
	nops = (l->g.ap.flags & DTA_AP_SEPARATE_TRAILER) ? 2 : 1;
	fs = l->g.ap.frame_size;
	if (framebuf_len < fs || max_ops < nops)
		return -ENOSPC;

	seq = ap_next_seq(cur->next_seq);
	body = (size_t)count * l->g.ap.entry_size;
	memset(framebuf, 0, fs);
	dta__put_be32(framebuf, seq);
	dta__put_be32(framebuf + 4, cur->next_entry);
	memcpy(framebuf + AP_HDR, entries, body);
	dta__put_be32(framebuf + fs - AP_TRL, seq);
	dta__put_be16(framebuf + fs - 4, (uint16_t)count);
	dta__put_be16(framebuf + fs - 2, DTA_AP_TRAILER_MAGIC);

	off = ap_frame_off(l, list, seq);
	ops[0].kind = DTA_MEMOP_WRITE;
	ops[0].offset = off;
	ops[0].len = nops == 2 ? fs - AP_TRL : fs;
	ops[0].data = framebuf;
	ops[0].add = 0;
	if (nops == 2) {
		ops[1].kind = DTA_MEMOP_WRITE;
		ops[1].offset = off + fs - AP_TRL;
		ops[1].len = AP_TRL;
		ops[1].data = framebuf + fs - AP_TRL;
		ops[1].add = 0;
	}
	cur->next_seq = seq;
	cur->next_entry += count;
	return (int)nops;
}

struct dta_ap_reader {
	const struct dta_layout *l;
	const uint8_t *area;
	uint32_t list;
	uint32_t expect;       /* next batch sequence number */
	uint32_t expect_entry; /* next entry index, as the writer counts */
	uint32_t base_seq;     /* batch that expect_entry follows (0: none) */
	uint64_t position;     /* entries consumed or lost */
	/* dta_ap_reader_create_at(): entries of batch @expect before the
	 * asked position (already consumed) not to return again, and the
	 * entries lost before the first batch it found. */
	unsigned skip;
	uint64_t pending_lost;
};

static uint32_t ap_load32(const uint8_t *p, memory_order mo)
{
	uint32_t raw = atomic_load_explicit((const _Atomic uint32_t *)
						    (const void *)p, mo);

	return dta__be32((const uint8_t *)&raw);
}

/* A frame whose header and trailer agree, for the initial scan. */
static int ap_frame_valid(const struct dta_layout *l, const uint8_t *f,
			  uint32_t *seq, uint32_t *first, unsigned *count)
{
	uint32_t fs = l->g.ap.frame_size;

	*seq = ap_load32(f, memory_order_acquire);
	if (*seq == 0 || ap_load32(f + fs - AP_TRL, memory_order_acquire) != *seq ||
	    dta__be16(f + fs - 2) != DTA_AP_TRAILER_MAGIC)
		return 0;
	*first = dta__be32(f + 4);
	*count = dta__be16(f + fs - 4);
	return *count >= 1 && *count <= l->g.ap.batch_entries;
}

/*
 * The oldest (or, with @newest, the newest) intact frame of @list. Sequence
 * numbers in one ring are within ring_batches of each other, so comparing
 * them by signed distance from any one of them orders them correctly.
 * Return: 1 with the frame's fields, 0 if the ring holds no intact frame.
 */
static int ap_scan(const struct dta_layout *l, const uint8_t *area,
		   uint32_t list, int newest, uint32_t *best_seq,
		   uint32_t *best_first, unsigned *best_count)
{
	uint32_t ref = 0;
	int have = 0;

	for (uint32_t pos = 0; pos < l->g.ap.ring_batches; pos++) {
		const uint8_t *f = area + ((uint64_t)list * l->g.ap.ring_batches +
					   pos) * l->g.ap.frame_size;
		uint32_t seq, first;
		unsigned count;
		int64_t d;

		if (!ap_frame_valid(l, f, &seq, &first, &count))
			continue;
		if (!have) {
			ref = seq;
			have = 1;
		} else {
			/* Both distances are in [-2^31, 2^31): their
			 * difference fits in 64 bits whatever the ring holds
			 * (sequence numbers more than 2^31 apart, which no
			 * writer makes, order arbitrarily but defined). */
			d = ap_sdist(seq, ref) - ap_sdist(*best_seq, ref);
			if (newest ? d <= 0 : d >= 0)
				continue;
		}
		*best_seq = seq;
		*best_first = first;
		*best_count = count;
	}
	return have;
}

DTA_API int dta_ap_cursor_recover(const struct dta_layout *l, const void *area,
				  uint32_t list, struct dta_ap_cursor *cur)
{
	uint32_t seq = 0, first = 0;
	unsigned count = 0;

	if (!l || !area || !cur)
		return -EINVAL;
	if (l->primitive != DTA_PRIM_APPEND)
		return -DTA_E_PRIMITIVE;
	if (list >= l->g.ap.lists)
		return -DTA_E_MISMATCH;
	if (!ap_scan(l, area, list, 1, &seq, &first, &count)) {
		cur->next_seq = 0;
		cur->next_entry = 0;
		return 0;
	}
	cur->next_seq = seq;
	cur->next_entry = first + count;
	return 1;
}

/* A new reader of @list of @area (expecting sequence 1 at entry 0 until
 * its creator positions it), or NULL with *@err set. */
static struct dta_ap_reader *reader_new(const struct dta_layout *l,
					const void *area, uint32_t list,
					int *err)
{
	struct dta_ap_reader *rd;

	*err = -EINVAL;
	if (!l || !area)
		return NULL;
	*err = -DTA_E_PRIMITIVE;
	if (l->primitive != DTA_PRIM_APPEND)
		return NULL;
	*err = -DTA_E_MISMATCH;
	if (list >= l->g.ap.lists)
		return NULL;
	*err = -ENOMEM;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return NULL;
	rd->l = l;
	rd->area = area;
	rd->list = list;
	rd->expect = 1;
	return rd;
}

DTA_API int dta_ap_reader_create(const struct dta_layout *l, const void *area,
				 uint32_t list, int from_now,
				 struct dta_ap_reader **out)
{
	struct dta_ap_reader *rd;
	uint32_t best_seq = 0, best_first = 0;
	unsigned best_count = 0;
	int have, err;

	if (!out)
		return -EINVAL;
	rd = reader_new(l, area, list, &err);
	if (!rd)
		return err;
	have = ap_scan(l, area, list, from_now, &best_seq, &best_first,
		       &best_count);
	if (have && from_now) {
		rd->expect = ap_next_seq(best_seq);
		rd->expect_entry = best_first + best_count;
		rd->base_seq = best_seq;
	} else if (have) {
		rd->expect = best_seq;
		rd->expect_entry = best_first;
		rd->base_seq = best_seq - 1;
	}
	rd->position = rd->expect_entry;
	*out = rd;
	return 0;
}

DTA_API int dta_ap_reader_create_at(const struct dta_layout *l,
				    const void *area, uint32_t list,
				    uint64_t position, struct dta_ap_reader **out)
{
	const uint32_t p32 = (uint32_t)position;
	struct dta_ap_reader *rd;
	uint32_t ref = 0, best_seq = 0, best_first = 0, newest = 0;
	uint32_t newest_end = 0, oldest = 0, oldest_first = 0;
	unsigned best_count = 0;
	int have = 0, any = 0, err;

	if (!out)
		return -EINVAL;
	rd = reader_new(l, area, list, &err);
	if (!rd)
		return err;
	rd->position = position;
	rd->expect_entry = p32;
	/* The oldest intact batch not wholly before @position (entry
	 * indices compared modulo 2^32, as the writer counts them), and the
	 * newest batch of all. */
	for (uint32_t pos = 0; pos < l->g.ap.ring_batches; pos++) {
		const uint8_t *f = (const uint8_t *)area +
				   ((uint64_t)list * l->g.ap.ring_batches + pos) *
					   l->g.ap.frame_size;
		uint32_t seq, first;
		unsigned count;

		if (!ap_frame_valid(l, f, &seq, &first, &count))
			continue;
		if (!any || ap_sdist(seq, ref) > ap_sdist(newest, ref)) {
			newest = seq;
			newest_end = first + count;
		}
		if (!any || ap_sdist(seq, ref) < ap_sdist(oldest, ref)) {
			oldest = seq;
			oldest_first = first;
		}
		if (!any) {
			ref = seq;
			any = 1;
		}
		if (ap_sdist(first + count, p32) <= 0)
			continue; /* consumed already */
		if (have && ap_sdist(seq, ref) >= ap_sdist(best_seq, ref))
			continue;
		best_seq = seq;
		best_first = first;
		best_count = count;
		have = 1;
	}
	if (have) {
		int64_t d = ap_sdist(best_first, p32);

		rd->expect = best_seq;
		rd->base_seq = best_seq - 1;
		rd->expect_entry = best_first;
		if (d >= 0) {
			/* Entries between @position and the batch: lost. */
			rd->pending_lost = (uint64_t)d;
			rd->position = position + (uint64_t)d;
		} else {
			/* @position is inside the batch: skip its start. */
			rd->skip = (unsigned)-d;
			(void)best_count;
		}
	} else if (any && ap_sdist(newest_end, p32) < 0) {
		/* The writer is behind @position: it started over (a collector
		 * that came back without its memory). Its entries the ring
		 * still holds are new: read them from the oldest, positions
		 * going on from @position; the ones before the oldest are
		 * lost. */
		rd->expect = oldest;
		rd->base_seq = oldest - 1;
		rd->expect_entry = oldest_first;
		rd->pending_lost = oldest_first;
		rd->position = position + oldest_first;
	} else if (any) {
		/* Everything stored is before @position: wait for the next. */
		rd->expect = ap_next_seq(newest);
		rd->base_seq = newest;
	}
	*out = rd;
	return 0;
}

DTA_API void dta_ap_reader_destroy(struct dta_ap_reader *rd)
{
	free(rd);
}

DTA_API uint64_t dta_ap_reader_position(const struct dta_ap_reader *rd)
{
	return rd ? rd->position : 0;
}

/*
 * Entries lost before batch @seq whose first entry is @first: what its
 * entry index says, but never negative (an index going backwards is not
 * something a writer does) and never more than the batches skipped since
 * the last one consumed could hold. Either limit only applies to rings
 * holding bytes no writer made; without them, a crafted ring could make
 * the 32-bit difference wrap to about 2^32 "lost" entries.
 */
static uint64_t ap_gap(const struct dta_ap_reader *rd, uint32_t seq,
		       uint32_t first)
{
	int64_t d = ap_sdist(first, rd->expect_entry);
	uint64_t most = (uint64_t)(uint32_t)(seq - rd->base_seq - 1) *
			rd->l->g.ap.batch_entries;

	if (d <= 0)
		return 0;
	return (uint64_t)d < most ? (uint64_t)d : most;
}

DTA_API int dta_ap_read(struct dta_ap_reader *rd, void *out, size_t max,
			uint64_t *lost)
{
	const struct dta_layout *l;
	uint8_t *o = out;
	size_t got = 0;
	uint32_t fs, es, spins = 0;

	if (!rd || !out)
		return -EINVAL;
	l = rd->l;
	if (max < l->g.ap.batch_entries)
		return -ENOSPC;
	fs = l->g.ap.frame_size;
	es = l->g.ap.entry_size;
	if (rd->pending_lost) {
		if (lost)
			*lost += rd->pending_lost;
		rd->pending_lost = 0;
	}

	/* Each pass looks at the frame where batch rd->expect belongs. The
	 * bound on passes keeps a reader that keeps being lapped by a much
	 * faster writer from spinning forever; it returns and tries later.
	 * Once something was copied, any gap (lapped, a corrupt frame, an
	 * entry index that does not follow on) ends the call: one answer is
	 * one run of consecutive entries, and the next call reports what
	 * the gap lost before its first entry. */
	for (;;) {
		const uint8_t *f = rd->area + ap_frame_off(l, rd->list, rd->expect);
		uint32_t h, t, first;
		unsigned count;
		int64_t d;
		uint64_t gap;

		h = ap_load32(f, memory_order_acquire);
		d = ap_sdist(h, rd->expect);
		if (h == 0 || d < 0)
			break; /* not written yet: nothing new */
		if (d > 0) {
			/* Lapped: this slot already holds a batch at least one
			 * ring later. The oldest batch that may still be
			 * intact is one ring behind it. */
			uint32_t next = h - l->g.ap.ring_batches + 1;

			if (got || ++spins > 2 * l->g.ap.ring_batches + 2)
				break;
			if (rd->skip) {
				/* The batch a resumed reader was to start
				 * inside is gone: count from its position. */
				rd->expect_entry += rd->skip;
				rd->skip = 0;
			}
			/* A writer puts batch h here only whole rings after
			 * rd->expect. Anything else is a corrupt frame, and
			 * trusting it could take the reader back to batches
			 * it has returned already: skip it instead. */
			if (ap_frame_off(l, rd->list, h) !=
			    ap_frame_off(l, rd->list, rd->expect)) {
				rd->expect = ap_next_seq(rd->expect);
				continue;
			}
			rd->expect = next ? next : 1;
			continue;
		}
		t = ap_load32(f + fs - AP_TRL, memory_order_acquire);
		if (t != rd->expect)
			break; /* being written: try again later */
		count = dta__be16(f + fs - 4);
		first = dta__be32(f + 4);
		if (dta__be16(f + fs - 2) != DTA_AP_TRAILER_MAGIC || count == 0 ||
		    count > l->g.ap.batch_entries) {
			/* A complete but corrupt frame: skip it; its entries
			 * are counted as lost when the next frame is read. */
			if (got)
				break;
			if (rd->skip) {
				rd->expect_entry += rd->skip;
				rd->skip = 0;
			}
			rd->expect = ap_next_seq(rd->expect);
			continue;
		}
		if (rd->skip && (rd->skip >= count || first != rd->expect_entry)) {
			/* Not the batch the reader was resumed inside. */
			rd->expect_entry += rd->skip;
			rd->skip = 0;
		}
		if (count - rd->skip > max - got ||
		    (got && first != rd->expect_entry))
			break;
		memcpy(o + got * es, f + AP_HDR + (size_t)rd->skip * es,
		       (size_t)(count - rd->skip) * es);
		atomic_thread_fence(memory_order_acquire);
		if (ap_load32(f, memory_order_relaxed) != rd->expect) {
			if (++spins > 2 * l->g.ap.ring_batches + 2)
				break;
			continue; /* overwritten while copying: lapped */
		}
		gap = ap_gap(rd, rd->expect, first);
		if (lost)
			*lost += gap;
		rd->position += gap + count - rd->skip;
		rd->expect_entry = first + count;
		rd->base_seq = rd->expect;
		rd->expect = ap_next_seq(rd->expect);
		got += count - rd->skip;
		rd->skip = 0;
	}
	return (int)got;
}
