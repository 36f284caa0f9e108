/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-translator's reporter slots (translator/reporters.c): the first
 * @max sources get slots 0.. in the order seen, later ones "other";
 * labels; concurrent first sightings give each source one slot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <cmocka.h>

#include "reporters.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			(uint32_t)(c) << 8 | (uint32_t)(d))

static void test_order_and_other(void **state)
{
	struct reporters r;
	char b[32];

	(void)state;
	assert_int_equal(reporters_init(&r, 3), 0);
	assert_int_equal(reporters_slot(&r, IP(10, 0, 0, 7)), 0);
	assert_int_equal(reporters_slot(&r, IP(10, 0, 0, 1)), 1);
	assert_int_equal(reporters_slot(&r, IP(10, 0, 0, 7)), 0);
	assert_int_equal(reporters_slot(&r, 0), 2); /* not IPv4: a source too */
	assert_int_equal(reporters_count(&r), 3);
	/* full: every new source is "other", the known ones keep theirs */
	assert_int_equal(reporters_slot(&r, IP(10, 0, 0, 2)), 3);
	assert_int_equal(reporters_slot(&r, IP(192, 168, 1, 1)), 3);
	assert_int_equal(reporters_slot(&r, IP(10, 0, 0, 1)), 1);
	assert_int_equal(reporters_count(&r), 3);
	assert_string_equal(reporters_label(&r, 0, b, sizeof(b)), "10.0.0.7");
	assert_string_equal(reporters_label(&r, 1, b, sizeof(b)), "10.0.0.1");
	assert_string_equal(reporters_label(&r, 2, b, sizeof(b)), "0.0.0.0");
	assert_string_equal(reporters_label(&r, 3, b, sizeof(b)), "other");
	assert_string_equal(reporters_label(&r, 4, b, sizeof(b)), "unknown");
	reporters_fini(&r);
	reporters_fini(&r); /* twice is fine */
}

/* Many sources colliding in a small table: each keeps its slot. */
static void test_many(void **state)
{
	struct reporters r;

	(void)state;
	assert_int_equal(reporters_init(&r, 1000), 0);
	for (uint32_t i = 0; i < 1500; i++)
		assert_int_equal(reporters_slot(&r, IP(10, 1, 0, 0) + i * 256),
				 i < 1000 ? i : 1000);
	for (uint32_t i = 0; i < 1500; i++)
		assert_int_equal(reporters_slot(&r, IP(10, 1, 0, 0) + i * 256),
				 i < 1000 ? i : 1000);
	reporters_fini(&r);
}

struct race {
	struct reporters *r;
	unsigned got[64];
};

static void *racer(void *arg)
{
	struct race *x = arg;

	for (unsigned i = 0; i < 64; i++)
		x->got[i] = reporters_slot(x->r, IP(172, 16, 0, i));
	return NULL;
}

/* Four threads see the same 64 sources first at once: 64 slots in all,
 * each source the same slot in every thread, none beyond 32 + other. */
static void test_threads(void **state)
{
	struct reporters r;
	struct race x[4];
	pthread_t th[4];
	unsigned seen[33] = { 0 };

	(void)state;
	assert_int_equal(reporters_init(&r, 32), 0);
	for (int i = 0; i < 4; i++) {
		x[i].r = &r;
		assert_int_equal(pthread_create(&th[i], NULL, racer, &x[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (unsigned s = 0; s < 64; s++) {
		for (int i = 1; i < 4; i++)
			assert_int_equal(x[i].got[s], x[0].got[s]);
		assert_true(x[0].got[s] <= 32);
		seen[x[0].got[s]]++;
	}
	for (unsigned s = 0; s < 32; s++)
		assert_int_equal(seen[s], 1); /* one source per slot */
	assert_int_equal(seen[32], 32);
	assert_int_equal(reporters_count(&r), 32);
	reporters_fini(&r);
}

static void test_negative(void **state)
{
	struct reporters r;

	(void)state;
	assert_int_equal(reporters_init(&r, 0), -EINVAL);
	assert_int_equal(reporters_init(&r, 65535), -EINVAL);
	assert_int_equal(reporters_init(NULL, 4), -EINVAL);
	reporters_fini(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_other),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_negative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
