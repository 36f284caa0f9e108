/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key-Increment: a count-min sketch of 64-bit counters updated by
 * fetch-and-add (DTA paper section 4, appendix A.4).
 *
 * Row j of bank e holds counter h_j(K) mod width for key K, at byte offset
 * ((e * rows + j) * width + h_j(K) mod width) * 8. Every update adds to all
 * rows; the answer is the minimum, which never underestimates a key's sum
 * (it may overestimate under collisions).
 */
#ifndef DTA_KEYINCR_H
#define DTA_KEYINCR_H

#include <stddef.h>
#include <stdint.h>

#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dta_ki_ops() - fetch-and-add operations for one increment.
 * @bank: 0..banks-1.
 * @ops:  receives l->g.ki.rows FETCH_ADD operations.
 * Return: number of ops, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH (bank),
 * -ENOSPC. Pure; thread-safe.
 */
DTA_API int dta_ki_ops(const struct dta_layout *l, const void *key,
		       size_t key_len, uint64_t add, unsigned bank,
		       struct dta_memop *ops, size_t max_ops);

/* Counter index (within its row) of row @n for @key. */
DTA_API uint64_t dta_ki_index(const struct dta_layout *l, const void *key,
			      size_t key_len, unsigned n);

/**
 * dta_ki_query() - the count-min estimate for @key in @bank.
 * Return: 0 with *@out set, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH.
 */
DTA_API int dta_ki_query(const struct dta_layout *l, const void *area,
			 const void *key, size_t key_len, unsigned bank,
			 uint64_t *out);

/**
 * dta_ki_query_batch() - dta_ki_query() for @n keys of equal length,
 * pipelined like dta_kw_query_batch(): a group of keys is hashed in one
 * loop and its counters are prefetched, and their minimum is taken only
 * after the groups behind it have been hashed.
 * @keys: the keys back to back, @n * @key_len bytes.
 * @n:    keys; 0 is allowed and does nothing.
 * @out:  receives @n estimates, each exactly what dta_ki_query() gives for
 *        that key (counters that change meanwhile may be read at any
 *        moment of the call, as with @n single queries).
 *
 * Return: 0 with @out[0..@n-1] set, or -EINVAL (NULL @l, @area, @keys or
 * @out; @key_len 0 or above DTA_KEY_MAX; @n * @key_len overflows),
 * -DTA_E_PRIMITIVE, -DTA_E_MISMATCH (@bank, or more rows than
 * DTA_MAX_REDUNDANCY). On error nothing is written. Reads only;
 * thread-safe.
 */
DTA_API int dta_ki_query_batch(const struct dta_layout *l, const void *area,
			       const void *keys, size_t key_len, size_t n,
			       unsigned bank, uint64_t *out);

/**
 * dta_ki_reset() - zero every counter of @bank. Increments that land while
 * it runs may be lost: reset a bank writers are not using (banks = 2).
 * Return: 0, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH.
 */
DTA_API int dta_ki_reset(const struct dta_layout *l, void *area,
			 unsigned bank);

#ifdef __cplusplus
}
#endif
#endif /* DTA_KEYINCR_H */
