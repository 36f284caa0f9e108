/* SPDX-License-Identifier: BSD-3-Clause */
/* dta-collector's `wait` request and notifier (collector/notify.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "notify.h"
#include "tools.h"

#define GUARD_MS 60000 /* only against a hang */

static struct dta_region *r[2];
static const char *const names[2] = { "paths", "counts" };

static int setup(void **state)
{
	struct dta_layout l;
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_ANON };

	(void)state;
	if (dta_layout_kw(&l, 64, 4, 4, 1, DTA_HASH_CRC32C, 0))
		return -1;
	return dta_region_create(&l, &o, &r[0]) || dta_region_create(&l, &o, &r[1]);
}

static int teardown(void **state)
{
	(void)state;
	dta_region_destroy(r[0]);
	dta_region_destroy(r[1]);
	return 0;
}

/* What the collector would send: answers in order. */
struct out {
	char p[4096];
	size_t len;
	unsigned errors;
};

static void put(struct out *o, const char *a, int k)
{
	assert_true(k >= 0 && k < COLL_WAIT_ANSWER_MAX);
	assert_true(o->len + (size_t)k < sizeof(o->p));
	memcpy(o->p + o->len, a, (size_t)k);
	o->len += (size_t)k;
	o->errors += k && !memcmp(a, "{\"error\"", 8);
}

/* Split @line (copied) and run it as a request; true when answered. */
static bool request(struct coll_wait *wt, const char *line, struct out *o)
{
	static char copy[256];
	char *w[8], a[COLL_WAIT_ANSWER_MAX];
	int nw, k;

	snprintf(copy, sizeof(copy), "%s", line);
	nw = tool_split(copy, w, 8);
	k = coll_wait_request(wt, w, nw, r, names, 2, a);
	put(o, a, k);
	return k > 0;
}

static bool check(struct coll_wait *wt, uint64_t now, struct out *o)
{
	char a[COLL_WAIT_ANSWER_MAX];
	int k = coll_wait_check(wt, r, now, a);

	put(o, a, k);
	return k > 0;
}

static void take(struct out *o, const char *want)
{
	assert_int_equal(o->len, strlen(want));
	assert_memory_equal(o->p, want, o->len);
	o->len = 0;
}

static void test_request_errors(void **state)
{
	static const char *const bad[] = {
		"wait", "wait paths", "wait paths x", "wait paths -1",
		"wait paths 4294967296", "wait paths 1 3600001",
		"wait paths 1 -5", "wait paths 1 2 3",
	};
	struct out o = { .len = 0 };
	struct coll_wait wt = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(request(&wt, bad[i], &o));
		assert_false(wt.on);
		assert_true(o.len > 0);
		assert_memory_equal(o.p, "{\"error\":\"usage: wait NAME SEQ", 30);
		o.len = 0;
	}
	assert_true(request(&wt, "wait nosuch 0", &o));
	take(&o, "{\"error\":\"no structure nosuch\"}\n");
	assert_int_equal(o.errors, sizeof(bad) / sizeof(bad[0]) + 1);
}

static void test_request_answers(void **state)
{
	struct out o = { .len = 0 };
	struct coll_wait wt = { 0 };
	uint64_t now;

	(void)state;
	/* Fresh: sequence 0. A different SEQ answers at once. */
	assert_true(request(&wt, "wait counts 7", &o));
	take(&o, "{\"seq\":0}\n");
	/* Timeout 0 with the same SEQ: a timeout answer at once. */
	assert_true(request(&wt, "wait counts 0 0", &o));
	take(&o, "{\"seq\":0,\"timeout\":true}\n");
	/* Armed; nothing until the structure moves. */
	assert_false(request(&wt, "wait counts 0 1000", &o));
	assert_true(wt.on);
	assert_int_equal(wt.s, 1);
	assert_int_equal(o.len, 0);
	now = tool_now_ns();
	assert_false(check(&wt, now, &o));
	assert_true(coll_wait_timeout_ms(&wt, now, 5000) <= 1000);
	assert_int_equal(coll_wait_timeout_ms(&wt, now, 3), 3);
	/* The other structure moving does nothing; this one answers. */
	assert_int_equal(dta_region_notify(r[0]), 0);
	assert_false(check(&wt, now, &o));
	assert_int_equal(dta_region_notify(r[1]), 0);
	assert_int_equal(dta_region_notify(r[1]), 0);
	assert_true(check(&wt, now, &o));
	assert_false(wt.on);
	take(&o, "{\"seq\":2}\n");
	/* Disarmed: no second answer, no deadline. */
	assert_false(check(&wt, now, &o));
	assert_int_equal(coll_wait_timeout_ms(&wt, now, 77), 77);
	/* Default timeout 30 s; answered with a timeout once it passed. */
	assert_false(request(&wt, "wait counts 2", &o));
	assert_false(check(&wt, tool_now_ns() + 29000000000ull, &o));
	assert_true(check(&wt, tool_now_ns() + 31000000000ull, &o));
	take(&o, "{\"seq\":2,\"timeout\":true}\n");
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void test_notifier(void **state)
{
	struct coll_notify *nt;
	int fd;

	(void)state;
	assert_int_equal(coll_notify_start(r, 2, &nt), 0);
	fd = coll_notify_fd(nt);
	/* Nobody waits: notifications never reach the loop. */
	for (int i = 0; i < 5; i++)
		assert_int_equal(dta_region_notify(r[0]), 0);
	assert_false(readable(fd, 0));
	/* Someone waits: the loop is woken once to look, then per move. */
	coll_notify_want(nt, true);
	assert_true(readable(fd, GUARD_MS));
	coll_notify_drain(nt);
	assert_int_equal(dta_region_notify(r[1]), 0);
	assert_true(readable(fd, GUARD_MS));
	coll_notify_drain(nt);
	assert_int_equal(dta_region_notify(r[0]), 0);
	assert_true(readable(fd, GUARD_MS));
	coll_notify_drain(nt);
	coll_notify_want(nt, false);
	coll_notify_stop(nt);
	coll_notify_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_errors),
		cmocka_unit_test(test_request_answers),
		cmocka_unit_test(test_notifier),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
