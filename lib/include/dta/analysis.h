/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Analytic bounds of the DTA paper (section 4, appendix A.5, A.6) and sizing.
 *
 * alpha is the load behind the queried key: the number of distinct keys
 * written after it divided by the number of slots (Key-Write) or chunks
 * (Postcarding). b is the checksum (Key-Write) or slot (Postcarding) width
 * in bits, N the redundancy, B the hops per chunk, V the number of
 * possible hop values.
 *
 * Every value is computed from sums and products of non-negative terms
 * (expm1/log1p forms, binomial tails summed directly), never as the
 * difference of two larger numbers, so it keeps a small relative error
 * however small it is (a wrong-answer bound of 1e-23 is not 0). Pure
 * functions: thread-safe.
 */
#ifndef DTA_ANALYSIS_H
#define DTA_ANALYSIS_H

#include <stdint.h>

#include "dta/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Key-Write: bound on the probability of no answer, eq. (1)+(2)+(3). */
DTA_API double dta_bound_kw_empty(unsigned n, unsigned b, double alpha);
/* Key-Write: bound on the probability of a wrong answer, eq. (4). */
DTA_API double dta_bound_kw_wrong(unsigned n, unsigned b, double alpha);
/* Postcarding: bound on no answer, eq. (5)+(6)+(7). */
DTA_API double dta_bound_pc_empty(unsigned n, unsigned b, double alpha,
				  double values, unsigned hops);
/* Postcarding: bound on a wrong answer, eq. (8). */
DTA_API double dta_bound_pc_wrong(unsigned n, unsigned b, double alpha,
				  double values, unsigned hops);

/**
 * struct dta_sizing - input and output of dta_size_kw()/dta_size_pc().
 * Inputs:
 *  @keys_after:   distinct keys (flows) reported after the one queried
 *                 (the report age to support).
 *  @target:       wanted query success probability, e.g. 0.99.
 *  @data_len:     bytes of data per key (Key-Write) / unused (Postcarding).
 *  @bits:         checksum bits (Key-Write) or slot bits (Postcarding).
 *  @hops, @values: Postcarding B and |V|.
 *  @max_n:        largest N to consider (0 = DTA_MAX_REDUNDANCY).
 * Outputs:
 *  @n:            chosen N (the one needing least memory).
 *  @units:        slots (Key-Write) or chunks (Postcarding).
 *  @bytes:        memory of the data area.
 *  @empty, @wrong: the bounds at that size, each computed on its own.
 */
struct dta_sizing {
	uint64_t keys_after;
	double target;
	unsigned data_len;
	unsigned bits;
	unsigned hops;
	double values;
	unsigned max_n;
	unsigned n;
	uint64_t units;
	uint64_t bytes;
	double empty;
	double wrong;
};

/* Return: 0, or -EINVAL for inputs out of range / an unreachable target. */
DTA_API int dta_size_kw(struct dta_sizing *s);
DTA_API int dta_size_pc(struct dta_sizing *s);

#ifdef __cplusplus
}
#endif
#endif /* DTA_ANALYSIS_H */
