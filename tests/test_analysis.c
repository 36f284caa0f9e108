/* SPDX-License-Identifier: BSD-3-Clause */
/* The paper's worked numbers (section 4) and the sizing search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper_numbers),
		cmocka_unit_test(test_sizing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
