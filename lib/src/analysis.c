/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DTA paper's bounds (section 4, eq. 1-8; appendix A.5, A.6) and the
 * sizing search built on them.
 */
#include <errno.h>
#include <math.h>

#include "dta/analysis.h"
#include "dta/hash.h"

static double binom(unsigned n, unsigned k)
{
	double r = 1;

	for (unsigned i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

/*
 * Shared shape of eq. (1)-(3) and (5)-(7): q is the probability that one
 * overwritten location looks valid (2^-b for Key-Write, ((|V|+1)2^-b)^B
 * for Postcarding). -expm1(-aN) keeps small alphas accurate.
 */
static double empty_bound(unsigned n, double alpha, double q)
{
	double over = -expm1(-alpha * n); /* 1 - e^{-alpha N} */
	double keep = exp(-alpha * n);
	double none_valid = exp(n * log1p(-q)); /* (1-q)^N */
	double t1, t2, t3 = 0;

	t1 = pow(over, n) * none_valid;
	t2 = pow(over, n) * (1 - none_valid - n * q * exp((n - 1.0) * log1p(-q)));
	if (t2 < 0)
		t2 = 0;
	for (unsigned j = 1; j < n; j++)
		t3 += binom(n, j) * pow(over, j) * pow(keep, (double)(n - j)) *
		      -expm1(j * log1p(-q));
	return t1 + t2 + t3;
}

DTA_API double dta_bound_kw_empty(unsigned n, unsigned b, double alpha)
{
	return empty_bound(n, alpha, ldexp(1.0, -(int)b));
}

DTA_API double dta_bound_kw_wrong(unsigned n, unsigned b, double alpha)
{
	return pow(-expm1(-alpha * n), n) * n * ldexp(1.0, -(int)b);
}

static double pc_q(unsigned b, double values, unsigned hops)
{
	double p = (values + 1) * ldexp(1.0, -(int)b);

	return pow(p > 1 ? 1 : p, hops);
}

DTA_API double dta_bound_pc_empty(unsigned n, unsigned b, double alpha,
				  double values, unsigned hops)
{
	return empty_bound(n, alpha, pc_q(b, values, hops));
}

DTA_API double dta_bound_pc_wrong(unsigned n, unsigned b, double alpha,
				  double values, unsigned hops)
{
	return pow(-expm1(-alpha * n), n) * n * pc_q(b, values, hops);
}

static int size_search(struct dta_sizing *s, int pc)
{
	unsigned max_n = s->max_n ? s->max_n : DTA_MAX_REDUNDANCY;
	uint64_t unit, best_bytes = 0;
	int have = 0;

	if (!(s->target > 0 && s->target < 1) || s->keys_after == 0 ||
	    max_n > DTA_MAX_REDUNDANCY)
		return -EINVAL;
	if (pc) {
		if (!(s->bits == 8 || s->bits == 16 || s->bits == 32) ||
		    s->hops == 0 || s->hops > DTA_MAX_HOPS || !(s->values >= 1))
			return -EINVAL;
		unit = 1;
		while (unit < (uint64_t)s->hops * s->bits / 8)
			unit <<= 1;
	} else {
		if (!(s->bits == 8 || s->bits == 16 || s->bits == 32 ||
		      s->bits == 64) || s->data_len == 0)
			return -EINVAL;
		unit = s->bits / 8 + s->data_len;
	}
	for (unsigned n = 1; n <= max_n; n++) {
		uint64_t lo = 1, hi = 1ull << 40, m;
#define FAIL(M)                                                              \
	((pc ? dta_bound_pc_empty(n, s->bits, (double)s->keys_after / (M),      \
				  s->values, s->hops) +                        \
		       dta_bound_pc_wrong(n, s->bits, (double)s->keys_after / (M), \
					  s->values, s->hops)                  \
	     : dta_bound_kw_empty(n, s->bits, (double)s->keys_after / (M)) +    \
		       dta_bound_kw_wrong(n, s->bits, (double)s->keys_after / (M))))

		if (FAIL(hi) > 1 - s->target)
			continue;
		while (lo < hi) { /* smallest M meeting the target */
			m = lo + (hi - lo) / 2;
			if (FAIL(m) <= 1 - s->target)
				hi = m;
			else
				lo = m + 1;
		}
		if (!have || lo * unit < best_bytes) {
			have = 1;
			best_bytes = lo * unit;
			s->n = n;
			s->units = lo;
			s->bytes = best_bytes;
			s->empty = FAIL(lo) - (pc ? dta_bound_pc_wrong(n, s->bits,
					(double)s->keys_after / lo, s->values, s->hops)
					: dta_bound_kw_wrong(n, s->bits,
					(double)s->keys_after / lo));
			s->wrong = FAIL(lo) - s->empty;
		}
#undef FAIL
	}
	return have ? 0 : -EINVAL;
}

DTA_API int dta_size_kw(struct dta_sizing *s)
{
	return s ? size_search(s, 0) : -EINVAL;
}

DTA_API int dta_size_pc(struct dta_sizing *s)
{
	return s ? size_search(s, 1) : -EINVAL;
}
