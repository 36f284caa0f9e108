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
 * P(X >= 2) for X ~ Binomial(n, q): the "(1 - (1-q)^N - N q (1-q)^{N-1})"
 * factor of eq. (2)/(6). Written as that difference it cancels: with
 * q = 2^-32 the true value is about C(N,2) q^2 = 5e-20 while the terms are
 * near 1, so double gave 0 or rounding noise. While the tail is small
 * (n q < 1) it is summed directly, term k + 1 from term k by the ratio
 * (n-k)/(k+1) * q/(1-q); otherwise the difference is at least about 0.26
 * and loses no more than a few ulps.
 */
static double binom_tail2(unsigned n, double q)
{
	double term, sum = 0;

	if (n < 2 || q <= 0)
		return 0;
	if (q >= 1)
		return 1;
	if (n * q >= 1)
		return 1 - exp(n * log1p(-q)) - n * q * exp((n - 1.0) * log1p(-q));
	/* C(n,2) q^2 (1-q)^{n-2} */
	term = exp(log(0.5 * n * (n - 1.0)) + 2 * log(q) + (n - 2.0) * log1p(-q));
	for (unsigned k = 2; k <= n && term > 0; k++) {
		sum += term;
		if (term < sum * 1e-18)
			break;
		term *= (double)(n - k) / (k + 1) * (q / (1 - q));
	}
	return sum;
}

/*
 * Shared shape of eq. (1)-(3) and (5)-(7): q is the probability that one
 * overwritten location looks valid (2^-b for Key-Write, ((|V|+1)2^-b)^B
 * for Postcarding). Every term is a product or a sum of non-negative
 * numbers, so the result has a small relative error however small it is:
 * -expm1(-aN) keeps small alphas accurate, -expm1(j log1p(-q)) is
 * 1 - (1-q)^j for tiny q, binom_tail2() is eq. (2)'s factor.
 */
static double empty_bound(unsigned n, double alpha, double q)
{
	double over = -expm1(-alpha * n); /* 1 - e^{-alpha N} */
	double keep = exp(-alpha * n);
	double none_valid = exp(n * log1p(-q)); /* (1-q)^N */
	double t1, t2, t3 = 0;

	t1 = pow(over, n) * none_valid;
	t2 = pow(over, n) * binom_tail2(n, q);
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

/* No-answer plus wrong-answer bound with @n copies in @units slots or
 * chunks; each of the two also in *@empty and *@wrong when not NULL. */
static double size_bound(const struct dta_sizing *s, int pc, unsigned n,
			 uint64_t units, double *empty, double *wrong)
{
	double alpha = (double)s->keys_after / (double)units, e, w;

	if (pc) {
		e = dta_bound_pc_empty(n, s->bits, alpha, s->values, s->hops);
		w = dta_bound_pc_wrong(n, s->bits, alpha, s->values, s->hops);
	} else {
		e = dta_bound_kw_empty(n, s->bits, alpha);
		w = dta_bound_kw_wrong(n, s->bits, alpha);
	}
	if (empty)
		*empty = e;
	if (wrong)
		*wrong = w;
	return e + w;
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

		if (size_bound(s, pc, n, hi, NULL, NULL) > 1 - s->target)
			continue;
		while (lo < hi) { /* smallest M meeting the target */
			m = lo + (hi - lo) / 2;
			if (size_bound(s, pc, n, m, NULL, NULL) <= 1 - s->target)
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
			/* Each bound on its own: the wrong-answer bound is
			 * often 1e-20 of the total, so total - empty is 0. */
			size_bound(s, pc, n, lo, &s->empty, &s->wrong);
		}
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
