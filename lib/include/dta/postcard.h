/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Postcarding: per-flow chunks of B hop slots (DTA paper section 4, A.6).
 *
 * Copy j of flow x occupies chunk h_j(x) mod chunks. Slot i of the chunk
 * holds checksum(x, i) XOR g(v_i), truncated to b = 8 * slot_bytes bits and
 * stored big-endian; checksum(x, i) is the DTA_HF_HOP(i) function of x and
 * g is DTA_HF_VALUE over the value's 4 big-endian bytes. Hops at or past the
 * path length hold checksum(x, i) XOR g(blank), where g(blank) is
 * DTA_HF_VALUE over the empty string, distinct from every 4-byte input.
 *
 * A query decodes each copy: the copy is valid if, for some l >= 1, hops
 * 0..l-1 decode to known values and hops l..B-1 decode to blank.
 */
#ifndef DTA_POSTCARD_H
#define DTA_POSTCARD_H

#include <stddef.h>
#include <stdint.h>

#include "dta/keywrite.h" /* enum dta_query_status */
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dta_pc_ops() - memory operations that store one flow's path.
 * @l:          a Postcarding layout.
 * @key, @key_len: flow identifier x, 1..DTA_KEY_MAX bytes.
 * @values:     hop values v_0..v_{path_len-1}.
 * @path_len:   hops reported, 1..l->g.pc.hops.
 * @chunkbuf:   caller's buffer of at least l->g.pc.chunk_size bytes.
 * @ops:        receives l->g.pc.redundancy WRITE operations of a whole chunk.
 *
 * Return: number of ops, or -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH
 * (path_len out of range), -ENOSPC. Pure; thread-safe.
 */
DTA_API int dta_pc_ops(const struct dta_layout *l, const void *key,
		       size_t key_len, const uint32_t *values,
		       unsigned path_len, uint8_t *chunkbuf,
		       size_t chunkbuf_len, struct dta_memop *ops,
		       size_t max_ops);

/* Chunk index of copy @n of @key. */
DTA_API uint64_t dta_pc_chunk(const struct dta_layout *l, const void *key,
			      size_t key_len, unsigned n);

struct dta_pc_codebook; /* opaque: the lookup table g(v) -> v */

/**
 * dta_pc_codebook_create() - build the lookup table for the known value set
 * V (e.g. all switch ids) of structure @l.
 * @values: the set V (duplicates are ignored).
 * @n:      |V|, >= 1.
 * @out:    receives the codebook; free with dta_pc_codebook_destroy().
 *
 * Two values with the same b-bit code are kept; a slot decoding to such a
 * code makes the copy ambiguous (it then counts as a conflict).
 * Return: 0, -EINVAL, -DTA_E_PRIMITIVE, -ENOMEM. The codebook is read-only
 * after creation and may be shared between threads.
 */
DTA_API int dta_pc_codebook_create(const struct dta_layout *l,
				   const uint32_t *values, size_t n,
				   struct dta_pc_codebook **out);
DTA_API void dta_pc_codebook_destroy(struct dta_pc_codebook *cb);
/* Values whose codes collide with another value's (diagnostics). */
DTA_API size_t dta_pc_codebook_collisions(const struct dta_pc_codebook *cb);

/**
 * struct dta_pc_result - a Postcarding answer.
 * @status:       enum dta_query_status.
 * @path_len:     l, hops in @values (FOUND).
 * @values:       the path (FOUND).
 * @valid_copies: copies that decoded validly.
 */
struct dta_pc_result {
	int status;
	unsigned path_len;
	uint32_t values[DTA_MAX_HOPS];
	unsigned valid_copies;
};

/**
 * dta_pc_query() - the path of flow @key (section 4: output the path if the
 * valid copies agree; none valid is NOT_FOUND, disagreement is CONFLICT).
 * @redundancy: copies to examine, 0 = l->g.pc.redundancy.
 * Return: 0 with @res filled, -EINVAL, -DTA_E_PRIMITIVE. Thread-safe.
 */
DTA_API int dta_pc_query(const struct dta_layout *l, const void *area,
			 const struct dta_pc_codebook *cb, const void *key,
			 size_t key_len, unsigned redundancy,
			 struct dta_pc_result *res);

/**
 * dta_pc_query_batch() - dta_pc_query() for @n flows of equal key length,
 * pipelined: a group of flows is hashed in one loop and its chunks are
 * prefetched, and the group is decoded only after the groups behind it
 * have been hashed, so the chunk reads of many flows overlap.
 * @keys:       the keys back to back, @n * @key_len bytes.
 * @n:          flows; 0 is allowed and does nothing.
 * @redundancy: as dta_pc_query(), the same for every flow.
 * @res:        receives @n results, each exactly what dta_pc_query() gives
 *              for that key (on a structure no writer changes meanwhile).
 *
 * Return: 0 with @res[0..@n-1] filled, or -EINVAL (NULL @l, @area, @cb,
 * @keys or @res; @key_len 0 or above DTA_KEY_MAX; @redundancy above
 * DTA_MAX_REDUNDANCY; @n * @key_len overflows), -DTA_E_PRIMITIVE. On error
 * nothing is written. Reads only; thread-safe.
 */
DTA_API int dta_pc_query_batch(const struct dta_layout *l, const void *area,
			       const struct dta_pc_codebook *cb,
			       const void *keys, size_t key_len, size_t n,
			       unsigned redundancy, struct dta_pc_result *res);

#ifdef __cplusplus
}
#endif
#endif /* DTA_POSTCARD_H */
