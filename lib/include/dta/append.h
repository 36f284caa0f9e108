/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Append: per-list rings of frames, each frame one batch of entries
 * (DTA paper section 4 and appendix A.3), readable with no coordination
 * with the writer.
 *
 * Frame of batch number s (s = 1, 2, ... per list; 0 = never written),
 * stored at ring position (s - 1) mod ring_batches, all fields big-endian:
 *
 *   header  { seq (32) = s, first (32) = index of the batch's first entry }
 *   entries [batch_entries][entry_size], unused tail zero
 *   trailer { seq (32) = s, count (16), magic (16) = 0xDA7A }
 *
 * The writer places a frame in ascending address order (one RDMA WRITE on
 * NICs that do so, or a body WRITE and then a trailer WRITE with
 * DTA_AP_SEPARATE_TRAILER). A reader trusts a frame only when header and
 * trailer both carry the sequence it expects, and re-reads the header after
 * copying to detect being overwritten meanwhile (a seqlock).
 */
#ifndef DTA_APPEND_H
#define DTA_APPEND_H

#include <stddef.h>
#include <stdint.h>

#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_AP_TRAILER_MAGIC 0xDA7A

/**
 * struct dta_ap_cursor - a writer's position in one list (a translator keeps
 * one per list; zero-initialise it for a fresh list).
 * @next_seq:   sequence number of the next batch minus one.
 * @next_entry: index of the next entry (wraps at 2^32).
 */
struct dta_ap_cursor {
	uint32_t next_seq;
	uint32_t next_entry;
};

/**
 * dta_ap_ops() - memory operations that store one batch in list @list and
 * advance @cur.
 * @entries: @count entries of l->g.ap.entry_size bytes, back to back.
 * @count:   1..l->g.ap.batch_entries (fewer than K is a partial batch,
 *           e.g. flushed on a timeout).
 * @framebuf: caller's buffer of at least l->g.ap.frame_size bytes.
 * @ops:     receives 1 op (2 with DTA_AP_SEPARATE_TRAILER).
 *
 * Return: number of ops; -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH (list
 * or count out of range), -ENOSPC. On error @cur is unchanged.
 */
DTA_API int dta_ap_ops(const struct dta_layout *l, uint32_t list,
		       struct dta_ap_cursor *cur, const void *entries,
		       unsigned count, uint8_t *framebuf, size_t framebuf_len,
		       struct dta_memop *ops, size_t max_ops);

/**
 * dta_ap_cursor_recover() - a writer cursor that continues after the newest
 * intact batch of list @list in @area, for a writer that restarts (or takes
 * over) while the ring keeps its contents: batches it writes then follow
 * the stored ones, and readers see one ordered stream.
 * Return: 1 (batches found), 0 (empty ring: a zero cursor), -EINVAL,
 * -DTA_E_PRIMITIVE, -DTA_E_MISMATCH. The writer of the list must be
 * stopped meanwhile.
 */
DTA_API int dta_ap_cursor_recover(const struct dta_layout *l, const void *area,
				  uint32_t list, struct dta_ap_cursor *cur);

struct dta_ap_reader; /* opaque consumer of one list */

/**
 * dta_ap_reader_create() - a consumer of list @list that starts at the
 * oldest batch still in the ring (or, with @from_now, after the newest).
 * Return: 0, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH, -ENOMEM.
 * One reader must be used by one thread at a time; several readers may
 * follow the same list.
 */
DTA_API int dta_ap_reader_create(const struct dta_layout *l, const void *area,
				 uint32_t list, int from_now,
				 struct dta_ap_reader **out);
/**
 * dta_ap_reader_create_at() - a consumer of list @list that resumes at
 * entry @position, a value dta_ap_reader_position() gave an earlier
 * consumer of the same list (a cursor persisted across restarts). It
 * starts with the oldest stored batch not wholly before @position and
 * does not return that batch's entries before @position again; entries
 * between @position and the oldest stored batch were overwritten and are
 * reported as lost by the first dta_ap_read(). When the newest stored
 * batch ends at @position, it waits for the next batch; when it ends
 * before (the writer started over, from entry 0: a collector back without
 * its memory), it reads from the oldest stored batch on, positions going
 * on from @position, and reports the writer's entries before that batch
 * as lost. Positions are compared with the writer's 32-bit entry index
 * modulo 2^32.
 * Return: as dta_ap_reader_create().
 */
DTA_API int dta_ap_reader_create_at(const struct dta_layout *l,
				    const void *area, uint32_t list,
				    uint64_t position,
				    struct dta_ap_reader **out);
DTA_API void dta_ap_reader_destroy(struct dta_ap_reader *rd);

/**
 * dta_ap_read() - copy up to @max new entries, in order, into @out.
 * @out:  room for @max entries of entry_size bytes.
 * @lost: if not NULL, incremented by the entries missing before the first
 *        entry returned: overwritten before this reader got to them
 *        (lapped), or in a corrupt frame. Counted from the frames' entry
 *        indexes, never more than the skipped batches could hold (so never
 *        about 2^32 on a ring holding arbitrary bytes).
 *
 * Never returns a batch that is stale, half-written or was overwritten
 * while being copied. The entries returned by one call are consecutive:
 * entries can go missing only before the first of them, never between two
 * (a call that has copied something stops at a gap; the next call starts
 * past it and reports it in @lost). A batch is consumed whole: if @max is
 * smaller than the next batch's count, nothing is returned (-ENOSPC when
 * @max is below batch_entries, to make that visible). Safe on any bytes in
 * the area (a corrupt or crafted snapshot): no undefined behaviour, no
 * endless loop.
 * Return: entries copied (0: nothing new), -EINVAL, -ENOSPC.
 */
DTA_API int dta_ap_read(struct dta_ap_reader *rd, void *out, size_t max,
			uint64_t *lost);

/* Index of the next entry this reader expects (entries consumed or lost). */
DTA_API uint64_t dta_ap_reader_position(const struct dta_ap_reader *rd);

#ifdef __cplusplus
}
#endif
#endif /* DTA_APPEND_H */
