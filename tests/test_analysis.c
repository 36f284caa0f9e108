/* SPDX-License-Identifier: BSD-3-Clause */
/* The paper's worked numbers (section 4) and the sizing search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>

#include <cmocka.h>

#include "dta/analysis.h"

static void test_paper_numbers(void **state)
{
	double e;

	(void)state;
	e = dta_bound_kw_empty(2, 32, 0.1);
	assert_true(e < 0.033 && e > 0.032);
	assert_true(dta_bound_kw_wrong(2, 32, 0.1) < 1.6e-11);
	e = dta_bound_kw_empty(1, 32, 0.1);
	assert_true(e > 0.094 && e < 0.096);
	e = dta_bound_kw_empty(4, 32, 0.1);
	assert_true(e > 0.011 && e < 0.013);
	/* Postcarding, |V| = 2^18, B = 5, N = 2, b = 32. */
	assert_true(dta_bound_pc_empty(2, 32, 0.1, 262144, 5) <= 0.033);
	assert_true(dta_bound_pc_wrong(2, 32, 0.1, 262144, 5) < 1e-22);
	/* Monotone in alpha. */
	assert_true(dta_bound_kw_empty(2, 32, 0.2) > dta_bound_kw_empty(2, 32, 0.1));
}

/* Relative difference within 1e-12. */
static void assert_close(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= 1e-12 * fabs(want)))
		fail_msg("%s: %.17g, expected %.17g", what, got, want);
}

/*
 * The bounds against the paper's formulas evaluated independently: GNU bc
 * at 90 decimal digits (scale=90), eq. (1)-(4) written as printed, with
 * q = 2^-b (Key-Write) or ((|V|+1) 2^-b)^B (Postcarding). Includes tiny
 * values, heavy loads and small checksums where eq. (2) counts.
 */
static void test_bounds_against_bc(void **state)
{
	(void)state;
	assert_close(dta_bound_kw_empty(2, 32, 0.1), 0.032858539933483754320, "kw e 2/32/0.1");
	assert_close(dta_bound_kw_empty(1, 32, 0.1), 0.095162581941883661625, "kw e 1/32/0.1");
	assert_close(dta_bound_kw_empty(4, 32, 0.1), 0.011813271191653819259, "kw e 4/32/0.1");
	assert_close(dta_bound_kw_empty(3, 8, 0.05), 0.0042710502982599237726, "kw e 3/8/0.05");
	assert_close(dta_bound_kw_empty(8, 16, 0.001), 9.7266623197279140423e-7, "kw e 8/16/0.001");
	assert_close(dta_bound_kw_wrong(8, 32, 0.001), 3.0266476367572485982e-26, "kw w 8/32/0.001");
	assert_close(dta_bound_kw_empty(2, 8, 3.0), 0.98732450608444828104, "kw e 2/8/3");
	assert_close(dta_bound_kw_empty(2, 64, 0.1), 0.032858539879675583417, "kw e 2/64/0.1");
	assert_close(dta_bound_pc_empty(2, 32, 0.1, 262144, 5), 0.032858539879675583405, "pc e");
	assert_close(dta_bound_pc_wrong(2, 32, 0.1, 262144, 5), 5.5665593478294793705e-23, "pc w");
	assert_close(dta_bound_pc_empty(3, 8, 0.2, 100, 2), 0.22094996053041482719, "pc e 3/8");
	assert_close(dta_bound_pc_wrong(3, 8, 0.2, 100, 2), 0.042890167649012400912, "pc w 3/8");
	/* Eq. (2) large: q = 3/8 with N = 4 (N q >= 1), q = 1/64 with
	 * N = 8 (several terms of the binomial tail). bc: empty(4,1.0,3/8),
	 * empty(8,0.5,1/64). */
	assert_close(dta_bound_pc_empty(4, 8, 1.0, 95, 1), 0.64219611907183852596, "pc e q=3/8");
	assert_close(dta_bound_pc_empty(8, 8, 0.5, 3, 1), 0.78018897663187645727, "pc e q=1/64");
}

static void test_sizing(void **state)
{
	struct dta_sizing s = { .keys_after = 10000000, .target = 0.99,
				.data_len = 20, .bits = 32 };

	(void)state;
	assert_int_equal(dta_size_kw(&s), 0);
	assert_true(s.empty + s.wrong <= 0.01);
	/* One slot fewer misses the target. */
	assert_true(dta_bound_kw_empty(s.n, 32, 1e7 / (double)(s.units - 1)) +
			    dta_bound_kw_wrong(s.n, 32, 1e7 / (double)(s.units - 1)) >
		    0.01);
	assert_int_equal(s.bytes, s.units * 24);
	s.target = 1.5;
	assert_int_equal(dta_size_kw(&s), -EINVAL);
	s.target = 0.99;
	s.keys_after = 0;
	assert_int_equal(dta_size_kw(&s), -EINVAL);
}

/* dta-query size pc --flows 10000 --target 0.9 --max-n 1 --slot-bits 32
 * --values 262144 --hops 5 printed a wrong-answer bound of 0: it was the
 * total minus the no-answer bound, 0.1 - 0.1. bc: 8.4704246697035e-23 at
 * 94913 chunks; also checked against eq. (8) in long double at the size
 * found. */
static void test_sizing_tiny_wrong_bound(void **state)
{
	struct dta_sizing s = { .keys_after = 10000, .target = 0.9, .bits = 32,
				.hops = 5, .values = 262144, .max_n = 1 };
	long double alpha, want;

	(void)state;
	assert_int_equal(dta_size_pc(&s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.units, 94913);
	assert_close(s.wrong, 8.4704246697035296330e-23, "size pc wrong");
	alpha = 10000.0L / (long double)s.units;
	want = -expm1l(-alpha) * powl(262145.0L / 4294967296.0L, 5);
	assert_close(s.wrong, (double)want, "size pc wrong (long double)");
	assert_close(s.empty, dta_bound_pc_empty(1, 32, (double)alpha, 262144, 5),
		     "size pc empty");
	/* Key-Write: the same split. */
	s = (struct dta_sizing){ .keys_after = 1000000, .target = 0.99,
				 .data_len = 20, .bits = 32, .max_n = 2 };
	assert_int_equal(dta_size_kw(&s), 0);
	alpha = 1000000.0L / (long double)s.units;
	assert_close(s.wrong, dta_bound_kw_wrong(s.n, 32, (double)alpha), "size kw wrong");
	assert_true(s.wrong > 1e-12 && s.wrong < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper_numbers),
		cmocka_unit_test(test_sizing),
		cmocka_unit_test(test_bounds_against_bc),
		cmocka_unit_test(test_sizing_tiny_wrong_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
