/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch sink's retransmission ring (translator/switch_ring.c): which
 * frames an ACK releases, which a PSN sequence NAK sends again, when a
 * timeout resends and when it gives up. Expected values are worked out by
 * hand from the RC rules (cumulative ACKs; a NAK carries the PSN expected
 * next) and the timeout schedule in switch_ring.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "switch_ring.h"

#define MS 1000000ull

/* A recognisable frame for @psn: @len bytes, each psn + index. */
static size_t fake_frame(uint32_t psn, uint8_t *buf)
{
	size_t len = 20 + psn % 7;

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(psn + i);
	return len;
}

static void push(struct switch_ring *r, uint32_t psn, uint64_t now)
{
	uint8_t f[64];
	size_t len = fake_frame(psn, f);

	assert_int_equal(switch_ring_push(r, psn, f, len, now), 0);
}

/* Kept frame @i is exactly what was sent with @psn. */
static void expect_frame(struct switch_ring *r, unsigned i, uint32_t psn)
{
	uint8_t want[64];
	size_t wlen = fake_frame(psn, want), len = 0;
	const void *f = switch_ring_frame(r, i, &len);

	assert_non_null(f);
	assert_int_equal(len, wlen);
	assert_memory_equal(f, want, wlen);
}

static void test_create_negative(void **state)
{
	(void)state;
	errno = 0;
	assert_null(switch_ring_create(0, 64));
	assert_int_equal(errno, EINVAL);
	assert_null(switch_ring_create(3, 64)); /* not a power of two */
	assert_null(switch_ring_create(4, 0));
	assert_null(switch_ring_create(4, 70000));
	switch_ring_destroy(NULL);
}

static void test_push_negative(void **state)
{
	struct switch_ring *r = switch_ring_create(4, 32);
	uint8_t big[33] = { 0 };

	(void)state;
	assert_non_null(r);
	assert_int_equal(switch_ring_push(r, 5, big, sizeof(big), 0), -EMSGSIZE);
	assert_int_equal(switch_ring_count(r), 0);
	push(r, 5, 0);
	assert_int_equal(switch_ring_push(r, 7, big, 8, 0), -EINVAL); /* gap */
	assert_int_equal(switch_ring_push(r, 5, big, 8, 0), -EINVAL); /* again */
	push(r, 6, 0);
	push(r, 7, 0);
	push(r, 8, 0);
	assert_true(switch_ring_full(r));
	/* Full: refused, nothing overwritten. */
	assert_int_equal(switch_ring_push(r, 9, big, 8, 0), -ENOSPC);
	expect_frame(r, 0, 5);
	expect_frame(r, 3, 8);
	assert_null(switch_ring_frame(r, 4, NULL));
	switch_ring_destroy(r);
}

static void test_ack_cumulative(void **state)
{
	struct switch_ring *r = switch_ring_create(8, 64);

	(void)state;
	for (uint32_t p = 10; p < 15; p++)
		push(r, p, 0);
	/* ACK 12 covers 10, 11, 12. */
	assert_int_equal(switch_ring_ack(r, 12, 1), 3);
	assert_int_equal(switch_ring_count(r), 2);
	assert_int_equal(switch_ring_first(r), 13);
	expect_frame(r, 0, 13);
	/* Stale (already released) and future ACKs change nothing. */
	assert_int_equal(switch_ring_ack(r, 11, 2), 0);
	assert_int_equal(switch_ring_ack(r, 15, 2), 0);
	assert_int_equal(switch_ring_ack(r, 0xFFFFFF, 2), 0);
	assert_int_equal(switch_ring_count(r), 2);
	assert_int_equal(switch_ring_ack(r, 14, 3), 2);
	assert_int_equal(switch_ring_count(r), 0);
	/* Empty: any ACK is stale. */
	assert_int_equal(switch_ring_ack(r, 14, 3), 0);
	switch_ring_destroy(r);
}

static void test_nak_resend(void **state)
{
	struct switch_ring *r = switch_ring_create(16, 64);

	(void)state;
	/* Empty: the start-up probe's NAK is not about kept frames. */
	assert_int_equal(switch_ring_nak(r, 100, 0), -ERANGE);
	for (uint32_t p = 100; p < 110; p++)
		push(r, p, 0);
	/* Behind 100 (an old NAK an ACK overtook): ignored. Ahead of 110:
	 * the caller resynchronises. The ring is unchanged either way. */
	assert_int_equal(switch_ring_nak(r, 99, 1), -ESTALE);
	assert_int_equal(switch_ring_nak(r, 111, 1), -ERANGE);
	assert_int_equal(switch_ring_count(r), 10);
	/* 104 lost: 100 .. 103 landed, 104 .. 109 go again, unchanged. */
	assert_int_equal(switch_ring_nak(r, 104, 2), 6);
	assert_int_equal(switch_ring_first(r), 104);
	for (unsigned i = 0; i < 6; i++)
		expect_frame(r, i, 104 + i);
	/* The oldest kept one itself: all of them again. */
	assert_int_equal(switch_ring_nak(r, 104, 3), 6);
	/* 110, the next new PSN: everything landed, nothing to resend. */
	assert_int_equal(switch_ring_nak(r, 110, 4), 0);
	assert_int_equal(switch_ring_count(r), 0);
	switch_ring_destroy(r);
}

/* PSNs are 24 bits: 0xFFFFFE, 0xFFFFFF, 0, 1 are consecutive. */
static void test_psn_wrap(void **state)
{
	struct switch_ring *r = switch_ring_create(4, 64);

	(void)state;
	push(r, 0xFFFFFE, 0);
	push(r, 0xFFFFFF, 0);
	push(r, 0, 0);
	push(r, 1, 0);
	assert_int_equal(switch_ring_ack(r, 0xFFFFFF, 1), 2);
	assert_int_equal(switch_ring_first(r), 0);
	/* Slots wrap too: two more after the two released. */
	push(r, 2, 1);
	push(r, 3, 1);
	assert_true(switch_ring_full(r));
	assert_int_equal(switch_ring_nak(r, 1, 2), 3);
	expect_frame(r, 0, 1);
	expect_frame(r, 1, 2);
	expect_frame(r, 2, 3);
	/* 0xFFFFFF is behind 1 across the wrap: an old NAK. */
	assert_int_equal(switch_ring_nak(r, 0xFFFFFF, 3), -ESTALE);
	switch_ring_destroy(r);
}

static void test_timeout_schedule(void **state)
{
	/* Resends at 20, 60, 140, 300, 620 ms (20 ms doubling), then every
	 * 500 ms (the cap): 1120, 1620, 2120, 2620, 3120; ten resends, and
	 * at 3620 ms it gives up. */
	static const uint64_t due[] = { 20, 60, 140, 300, 620, 1120, 1620,
					2120, 2620, 3120 };
	struct switch_ring *r = switch_ring_create(8, 64);

	(void)state;
	assert_int_equal(SWITCH_RING_RETRIES, 10);
	assert_int_equal(switch_ring_timeout(r, 10000 * MS), 0); /* empty */
	push(r, 7, 0);
	push(r, 8, 5 * MS); /* not the first: does not restart the clock */
	for (size_t i = 0; i < sizeof(due) / sizeof(due[0]); i++) {
		assert_int_equal(switch_ring_timeout(r, due[i] * MS - 1), 0);
		assert_int_equal(switch_ring_timeout(r, due[i] * MS), 2);
	}
	assert_int_equal(switch_ring_timeout(r, 3620 * MS - 1), 0);
	assert_int_equal(switch_ring_timeout(r, 3620 * MS), -ETIMEDOUT);
	assert_int_equal(switch_ring_clear(r), 2);
	assert_int_equal(switch_ring_count(r), 0);
	assert_int_equal(switch_ring_timeout(r, 10000 * MS), 0);
	switch_ring_destroy(r);
}

static void test_progress_restarts_timeout(void **state)
{
	struct switch_ring *r = switch_ring_create(8, 64);

	(void)state;
	push(r, 1, 0);
	push(r, 2, 0);
	push(r, 3, 0);
	assert_int_equal(switch_ring_timeout(r, 20 * MS), 3);
	assert_int_equal(switch_ring_timeout(r, 60 * MS), 3);
	/* An ACK at 70 ms: back to 20 ms from there. */
	assert_int_equal(switch_ring_ack(r, 1, 70 * MS), 1);
	assert_int_equal(switch_ring_timeout(r, 89 * MS), 0);
	assert_int_equal(switch_ring_timeout(r, 90 * MS), 2);
	/* A NAK is progress too (the responder is alive). */
	assert_int_equal(switch_ring_nak(r, 3, 100 * MS), 1);
	assert_int_equal(switch_ring_timeout(r, 119 * MS), 0);
	assert_int_equal(switch_ring_timeout(r, 120 * MS), 1);
	/* A clock read before another thread's update is not a timeout. */
	assert_int_equal(switch_ring_timeout(r, 50 * MS), 0);
	switch_ring_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_negative),
		cmocka_unit_test(test_push_negative),
		cmocka_unit_test(test_ack_cumulative),
		cmocka_unit_test(test_nak_resend),
		cmocka_unit_test(test_psn_wrap),
		cmocka_unit_test(test_timeout_schedule),
		cmocka_unit_test(test_progress_restarts_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
