/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-translator's watch on losses (translator/losswatch.c), on a fake
 * clock: the mismatch log's rate limit (first line at once, then one per
 * interval standing for the suppressed events, the last held-back ones
 * flushed once the interval is over) and the health window's loss ratio
 * (degraded while over the threshold, ok once a window of good reports
 * has passed, ok without traffic).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "losswatch.h"

#define S 1000000000ull /* one second of the fake clock, ns */

static void test_limit(void **state)
{
	struct lw_limit l;

	(void)state;
	lw_limit_init(&l, 10 * S);
	assert_int_equal(lw_limit(&l, 5 * S, 0), 0);     /* nothing yet */
	assert_int_equal(lw_limit(&l, 6 * S, 3), 3);     /* first: at once */
	assert_int_equal(lw_limit(&l, 7 * S, 100), 0);   /* held back */
	assert_int_equal(lw_limit(&l, 15 * S, 50), 0);   /* 9 s after: still */
	assert_int_equal(lw_limit(&l, 16 * S - 1, 0), 0);
	assert_int_equal(lw_limit(&l, 16 * S, 0), 150);  /* 10 s: the 150 */
	assert_int_equal(lw_limit(&l, 17 * S, 1), 0);
	assert_int_equal(lw_limit(&l, 26 * S, 0), 1);    /* flushed alone */
	/* Quiet for long: the next event is told at once again. */
	assert_int_equal(lw_limit(&l, 100 * S, 0), 0);
	assert_int_equal(lw_limit(&l, 101 * S, 7), 7);
	assert_int_equal(l.lines, 4);
}

/* Feed @w once a second from @t0 to @t1 (inclusive) with @a applied and
 * @x lost per second on top of *@ap, *@lo; return the last answer. */
static bool run(struct lw_window *w, uint64_t t0, uint64_t t1, uint64_t *ap,
		uint64_t *lo, uint64_t a, uint64_t x, uint64_t *dl,
		uint64_t *dt)
{
	bool deg = false;

	for (uint64_t t = t0; t <= t1; t++) {
		*ap += a;
		*lo += x;
		deg = lw_window_update(w, t * S, *ap, *lo, dl, dt);
	}
	return deg;
}

static void test_window(void **state)
{
	struct lw_window w;
	uint64_t ap = 0, lo = 0, dl, dt;

	(void)state;
	lw_window_init(&w, 10 * S, 0.01);
	assert_false(lw_window_update(&w, 0, 0, 0, &dl, &dt)); /* no traffic */
	assert_int_equal(dt, 0);
	/* 1000 reports a second, all lost (the case): degraded at
	 * the first second. */
	assert_true(run(&w, 1, 1, &ap, &lo, 0, 1000, &dl, &dt));
	assert_int_equal(dl, 1000);
	assert_int_equal(dt, 1000);
	assert_true(run(&w, 2, 30, &ap, &lo, 0, 1000, &dl, &dt));
	/* The window (sampled once a second: window / 32 is 0.3 s) spans
	 * exactly 10 s of losses. */
	assert_int_equal(dl, 10000);
	assert_int_equal(dt, 10000);
	/* Fixed: 1000 applied a second, none lost. Still degraded while
	 * the window holds losses over 1 %. */
	assert_true(run(&w, 31, 39, &ap, &lo, 1000, 0, &dl, &dt));
	assert_int_equal(dl, 1000); /* second 30's */
	assert_int_equal(dt, 10000);
	/* A window after the last loss: ok. */
	assert_false(run(&w, 40, 40, &ap, &lo, 1000, 0, &dl, &dt));
	assert_int_equal(dl, 0);
	assert_int_equal(dt, 10000);
	/* 1 % exactly is not above the threshold; just over it is. */
	assert_false(run(&w, 41, 60, &ap, &lo, 990, 10, &dl, &dt));
	assert_int_equal(dl, 100);
	assert_int_equal(dt, 10000);
	assert_true(run(&w, 61, 61, &ap, &lo, 989, 11, &dl, &dt));
	assert_int_equal(dl, 101);
	/* Traffic stops: ok once the window holds none. */
	assert_true(run(&w, 62, 70, &ap, &lo, 0, 0, &dl, &dt));
	assert_false(run(&w, 71, 71, &ap, &lo, 0, 0, &dl, &dt));
	assert_int_equal(dt, 0);
}

/* Calls much closer than window / 32 keep the ring bounded and the span
 * right; a threshold of 1 never degrades. */
static void test_window_dense(void **state)
{
	struct lw_window w, off;
	uint64_t lost = 0, dl, dt;

	(void)state;
	lw_window_init(&w, 32 * S, 0.5);
	lw_window_init(&off, 32 * S, 1.0);
	for (uint64_t ms = 0; ms <= 100000; ms += 10) { /* every 10 ms, 100 s */
		lost += 1;
		lw_window_update(&w, ms * 1000000ull, 0, lost, &dl, &dt);
		assert_true(w.n <= LW_SAMPLES);
		assert_false(lw_window_update(&off, ms * 1000000ull, 0, lost,
					      NULL, NULL));
	}
	/* Samples every 1 s (window / 32): the span is 32 s (3200 losses)
	 * up to 33 s. */
	assert_in_range(dl, 3200, 3300);
	assert_int_equal(dl, dt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_window_dense),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
