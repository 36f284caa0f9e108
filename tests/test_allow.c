/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-translator's reporter allow-list (translator/allow.c): parsing of
 * addresses and prefixes, matching, and refusal of bad or empty lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "allow.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			(uint32_t)(c) << 8 | (uint32_t)(d))

static void test_match(void **state)
{
	struct allow_list a;
	char err[128];

	(void)state;
	assert_int_equal(allow_parse("10.0.0.0/8, 192.0.2.7", &a, err,
				     sizeof(err)), 0);
	assert_int_equal(a.n, 2);
	assert_true(allow_ok(&a, IP(10, 0, 0, 1)));
	assert_true(allow_ok(&a, IP(10, 255, 255, 255)));
	assert_false(allow_ok(&a, IP(11, 0, 0, 0)));
	assert_false(allow_ok(&a, IP(9, 255, 255, 255)));
	assert_true(allow_ok(&a, IP(192, 0, 2, 7)));
	assert_false(allow_ok(&a, IP(192, 0, 2, 6)));
	assert_false(allow_ok(&a, IP(127, 0, 0, 1)));
	/* Host bits of a prefix are ignored; /0 is everyone; spaces or
	 * commas separate. */
	assert_int_equal(allow_parse("10.1.2.3/16 0.0.0.0/0", &a, err,
				     sizeof(err)), 0);
	assert_true(allow_ok(&a, IP(10, 1, 99, 99)));
	assert_true(allow_ok(&a, IP(203, 0, 113, 1)));
	assert_int_equal(allow_parse("127.0.0.1/32", &a, err, sizeof(err)), 0);
	assert_true(allow_ok(&a, IP(127, 0, 0, 1)));
	assert_false(allow_ok(&a, IP(127, 0, 0, 2)));
	/* No list: everyone. */
	memset(&a, 0, sizeof(a));
	assert_true(allow_ok(&a, IP(198, 51, 100, 1)));
}

static void test_bad_lists(void **state)
{
	static const char *const bad[] = {
		"", " , ", "10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "10.0.0.0/8x",
		"host.example", "10.0.0.1,256.0.0.1", "::1", "10.0.0.0/-1",
	};
	struct allow_list a;
	char err[128], many[64 * 12 + 16] = "";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(allow_parse(bad[i], &a, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != 0);
	}
	/* More entries than ALLOW_MAX. */
	for (int i = 0; i <= ALLOW_MAX; i++) {
		char one[16];

		snprintf(one, sizeof(one), "10.0.%d.1,", i);
		strcat(many, one);
	}
	assert_int_equal(allow_parse(many, &a, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_bad_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
