/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key-Write: N redundant checksummed slots per key (DTA paper section 4,
 * appendix A.1 and A.5).
 *
 * Copy n of key K goes to slot h_n(K) mod slots, where h_n is the
 * layout's DTA_HF_SLOT(n) function, and holds {checksum(K), data}. The
 * checksum is the low csum_bytes of DTA_HF_CHECKSUM(K), stored big-endian;
 * a computed checksum of zero is stored as 1 so that never-written (zero)
 * slots never match.
 */
#ifndef DTA_KEYWRITE_H
#define DTA_KEYWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dta_kw_ops() - memory operations that store one Key-Write report.
 * @l:          a Key-Write layout.
 * @key, @key_len: the key, 1..DTA_KEY_MAX bytes.
 * @data, @data_len: the data; @data_len must equal l->g.kw.data_len.
 * @redundancy: N, 1..l->g.kw.max_redundancy.
 * @slotbuf:    caller's buffer of at least l->g.kw.slot_size bytes; the ops
 *              point into it.
 * @ops:        receives @redundancy operations.
 * @max_ops:    capacity of @ops.
 *
 * Return: number of ops, or -EINVAL (NULL/zero-length args), -DTA_E_PRIMITIVE,
 * -DTA_E_MISMATCH (data_len or redundancy do not fit the layout), -ENOSPC
 * (@max_ops or @slotbuf too small). Pure function; thread-safe.
 */
DTA_API int dta_kw_ops(const struct dta_layout *l, const void *key,
		       size_t key_len, const void *data, size_t data_len,
		       unsigned redundancy, uint8_t *slotbuf,
		       size_t slotbuf_len, struct dta_memop *ops,
		       size_t max_ops);

/* Slot index of copy @n of @key (for tests, tools and translators). */
DTA_API uint64_t dta_kw_slot(const struct dta_layout *l, const void *key,
			     size_t key_len, unsigned n);
/* Stored checksum of @key: remapped so it is never 0, except in the
 * prototype family, which stores the raw CRC (docs/layouts.md). */
DTA_API uint64_t dta_kw_checksum(const struct dta_layout *l, const void *key,
				 size_t key_len);

enum dta_query_status {
	DTA_Q_FOUND = 0,
	DTA_Q_NOT_FOUND = 1,
	DTA_Q_CONFLICT = 2, /* candidates disagree and none wins */
	/* Only from the query client (dta/client.h, "config:" targets): the
	 * collector holding the key's share did not answer, so nothing is
	 * known about the key; the call's answer is partial
	 * (dta_client_partial()). */
	DTA_Q_UNAVAILABLE = 3,
};

/**
 * struct dta_kw_query_opts - how to answer a query (zero = defaults).
 * @redundancy: N to assume, 0 = l->g.kw.max_redundancy. May exceed the N
 *              used at write time (unused slots then look overwritten).
 * @threshold:  T, minimum votes for the winner, 0 or 1 = plurality only.
 */
struct dta_kw_query_opts {
	unsigned redundancy;
	unsigned threshold;
};

/**
 * struct dta_kw_result - a Key-Write answer.
 * @status:     enum dta_query_status.
 * @votes:      slots that agreed on the returned data (FOUND), or on the
 *              leading candidates (CONFLICT).
 * @candidates: slots whose checksum matched.
 */
struct dta_kw_result {
	int status;
	unsigned votes;
	unsigned candidates;
};

/**
 * dta_kw_query() - look @key up (appendix A.5: plurality vote among slots
 * whose checksum matches; FOUND only with a unique leader having at least
 * T votes).
 * @area:    the data area (dta_region_data()).
 * @out:     receives the data (l->g.kw.data_len bytes) when FOUND.
 * @out_len: capacity of @out.
 * @opts:    may be NULL.
 *
 * Return: 0 with @res filled, or -EINVAL, -DTA_E_PRIMITIVE, -ENOSPC (@out
 * smaller than data_len). Reads only; thread-safe; concurrent writers may
 * make the answer stale but never out of bounds.
 */
DTA_API int dta_kw_query(const struct dta_layout *l, const void *area,
			 const void *key, size_t key_len,
			 const struct dta_kw_query_opts *opts, void *out,
			 size_t out_len, struct dta_kw_result *res);

/**
 * dta_kw_query_batch() - dta_kw_query() for @n keys of equal length, as a
 * software pipeline: keys are hashed a chunk at a time (one loop per hash
 * role, several keys per vector), one chunk ahead of the votes, and the
 * slots of the key a fixed distance ahead are prefetched while a key is
 * voted on, so the slot reads (and page walks) of many keys overlap each
 * other, the hashing and the votes. Faster than single queries at every
 * table size, most of all on tables far larger than the caches.
 * @keys:    the keys back to back, @n * @key_len bytes.
 * @n:       keys; 0 is allowed and does nothing.
 * @opts:    as dta_kw_query(), the same for every key; may be NULL.
 * @out:     receives @n * data_len bytes, answer i at i * data_len (bytes
 *           of keys not FOUND are left as they were).
 * @out_len: capacity of @out, at least @n * data_len.
 * @res:     receives @n results.
 *
 * Each answer is exactly what dta_kw_query() gives for that key on a
 * structure no writer changes meanwhile. Return: 0, or -EINVAL (NULL @l,
 * @area, @keys, @out or @res; @key_len 0 or above DTA_KEY_MAX; opts out of
 * range; @n * @key_len overflows), -DTA_E_PRIMITIVE, -ENOSPC (@out_len
 * below @n * data_len). On error nothing is written. Reads only;
 * thread-safe.
 */
DTA_API int dta_kw_query_batch(const struct dta_layout *l, const void *area,
			       const void *keys, size_t key_len, size_t n,
			       const struct dta_kw_query_opts *opts, void *out,
			       size_t out_len, struct dta_kw_result *res);

#ifdef __cplusplus
}
#endif
#endif /* DTA_KEYWRITE_H */
