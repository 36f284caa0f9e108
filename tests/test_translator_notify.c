/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translator core notifications: reports with DTA_FLAG_IMMEDIATE make the
 * core call the sink's notify hook once per structure per run, after the
 * writes that carried them; reports without the flag never do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dta/dta.h"

#define NS 4

struct rec {
	uint8_t *mem[NS];
	uint64_t size[NS];
	const struct dta_layout *l[NS];
	unsigned notified[NS]; /* notify calls per structure */
	unsigned in_run, runs;
	bool bad_order;        /* notify outside a run, or twice in one */
	unsigned this_run[NS];
	int fail;
	/* Key-Write: at notify time, the key that must be readable. */
	const uint8_t *expect_key;
	unsigned expect_s;
	bool expect_seen;
};

static int rec_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		      size_t n)
{
	struct rec *c = ctx;
	int k;

	if (c->fail)
		return -EIO;
	k = dta_memops_apply(c->mem[s], c->size[s], ops, n);
	return k < 0 ? k : 0;
}

static void rec_begin(void *ctx)
{
	struct rec *c = ctx;

	c->in_run++;
	c->runs++;
	memset(c->this_run, 0, sizeof(c->this_run));
}

static void rec_end(void *ctx)
{
	struct rec *c = ctx;

	c->in_run--;
}

static void rec_notify(void *ctx, unsigned s)
{
	struct rec *c = ctx;

	if (c->in_run != 1 || s >= NS || c->this_run[s]++)
		c->bad_order = true;
	c->notified[s]++;
	if (c->expect_key && s == c->expect_s) {
		struct dta_kw_result res;
		uint8_t out[4];

		/* The write that carried the flag is already in memory. */
		if (dta_kw_query(c->l[s], c->mem[s], c->expect_key, 13, NULL,
				 out, 4, &res) == 0 &&
		    res.status == DTA_Q_FOUND)
			c->expect_seen = true;
	}
}

static struct dta_translator *make(struct rec *c,
				   const struct dta_translator_opts *o,
				   bool hook)
{
	struct dta_sink sink = { .submit = rec_submit, .ctx = c,
				 .batch_begin = rec_begin,
				 .batch_end = rec_end,
				 .notify = hook ? rec_notify : NULL };
	struct dta_translator *t;

	assert_int_equal(dta_translator_create(o, &sink, &t), 0);
	return t;
}

static int add(struct dta_translator *t, struct rec *c,
	       const struct dta_layout *l, uint32_t list_base)
{
	int s = dta_translator_add(t, l, list_base);

	assert_true(s >= 0 && s < NS);
	c->mem[s] = calloc(1, l->data_size);
	c->size[s] = l->data_size;
	c->l[s] = l;
	assert_non_null(c->mem[s]);
	return s;
}

static void release(struct dta_translator *t, struct rec *c)
{
	dta_translator_destroy(t);
	for (unsigned i = 0; i < NS; i++)
		free(c->mem[i]);
}

static struct dta_translator_stats stats(struct dta_translator *t)
{
	struct dta_translator_stats st;

	dta_translator_stats(t, &st);
	return st;
}

static void key13(uint8_t k[13], uint32_t i)
{
	memset(k, 0, 13);
	k[0] = 10;
	k[1] = (uint8_t)(i >> 16);
	k[2] = (uint8_t)(i >> 8);
	k[3] = (uint8_t)i;
	k[12] = 6;
}

/* Append a Key-Write report of @dlen bytes for key @i to @buf. */
static size_t kw(uint8_t *buf, size_t len, uint32_t i, uint16_t dlen,
		 bool imm)
{
	static const uint8_t d[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE,
				.flags = imm ? DTA_FLAG_IMMEDIATE : 0 };
	uint8_t key[13];
	int k;

	key13(key, i);
	r.u.kw.redundancy = 2;
	r.u.kw.key_len = 13;
	r.u.kw.key = key;
	r.u.kw.data_len = dlen;
	r.u.kw.data = d;
	k = dta_wire_encode(&r, buf + len, 1400 - len);
	assert_true(k > 0);
	return len + (size_t)k;
}

/* Two Key-Write structures: 4-byte data (A) and 8-byte data (B). */
static void kw_pair(struct dta_translator *t, struct rec *c,
		    struct dta_layout *la, struct dta_layout *lb, int *a, int *b)
{
	assert_int_equal(dta_layout_kw(la, 4096, 4, 4, 2, DTA_HASH_CRC32C, 1), 0);
	assert_int_equal(dta_layout_kw(lb, 4096, 8, 4, 2, DTA_HASH_CRC32C, 2), 0);
	*a = add(t, c, la, 0);
	*b = add(t, c, lb, 0);
}

static void test_kw_once_per_structure(void **state)
{
	struct rec c = { 0 };
	struct dta_translator *t = make(&c, NULL, true);
	struct dta_layout la, lb;
	uint8_t buf[1400], key[13];
	size_t len = 0;
	int a, b;

	(void)state;
	kw_pair(t, &c, &la, &lb, &a, &b);
	/* 5 immediate reports to A, 3 plain ones to B: one wake, for A. */
	for (uint32_t i = 0; i < 5; i++)
		len = kw(buf, len, i, 4, true);
	for (uint32_t i = 0; i < 3; i++)
		len = kw(buf, len, 100 + i, 8, false);
	key13(key, 4);
	c.expect_key = key;
	c.expect_s = (unsigned)a;
	assert_int_equal(dta_translator_process(t, buf, len, 0), 8);
	assert_int_equal(c.notified[a], 1);
	assert_int_equal(c.notified[b], 0);
	assert_true(c.expect_seen);
	assert_false(c.bad_order);
	assert_int_equal(stats(t).reports_immediate, 5);
	assert_int_equal(stats(t).notifications, 1);

	/* Both get the flag: one wake each. */
	len = 0;
	len = kw(buf, len, 7, 4, true);
	len = kw(buf, len, 8, 8, true);
	len = kw(buf, len, 9, 4, true);
	assert_int_equal(dta_translator_process(t, buf, len, 0), 3);
	assert_int_equal(c.notified[a], 2);
	assert_int_equal(c.notified[b], 1);
	assert_int_equal(stats(t).reports_immediate, 8);
	assert_int_equal(stats(t).notifications, 3);

	/* Plain reports only: nothing. */
	len = 0;
	for (uint32_t i = 0; i < 4; i++)
		len = kw(buf, len, 200 + i, i % 2 ? 8 : 4, false);
	assert_int_equal(dta_translator_process(t, buf, len, 0), 4);
	assert_int_equal(c.notified[a], 2);
	assert_int_equal(c.notified[b], 1);
	assert_int_equal(stats(t).notifications, 3);
	assert_false(c.bad_order);
	release(t, &c);
}

/* A batch of payloads is one run: one wake per structure for all. */
static void test_batch_coalesces(void **state)
{
	struct rec c = { 0 };
	struct dta_translator *t = make(&c, NULL, true);
	struct dta_layout la, lb;
	uint8_t buf[10][1400];
	struct dta_payload p[10];
	int a, b;

	(void)state;
	kw_pair(t, &c, &la, &lb, &a, &b);
	for (unsigned i = 0; i < 10; i++) {
		size_t len = kw(buf[i], 0, i, 4, true);

		len = kw(buf[i], len, 50 + i, 8, i == 9);
		p[i] = (struct dta_payload){ buf[i], len };
	}
	assert_int_equal(dta_translator_process_batch(t, p, 10, 0), 20);
	assert_int_equal(c.runs, 1);
	assert_int_equal(c.notified[a], 1);
	assert_int_equal(c.notified[b], 1);
	assert_int_equal(stats(t).reports_immediate, 11);
	assert_int_equal(stats(t).notifications, 2);
	assert_false(c.bad_order);
	release(t, &c);
}

/* Refused writes wake nobody; no hook: counted, not notified. */
static void test_refused_and_no_hook(void **state)
{
	struct rec c = { 0 }, c2 = { 0 };
	struct dta_translator *t = make(&c, NULL, true);
	struct dta_translator *t2 = make(&c2, NULL, false);
	struct dta_layout la, lb, la2, lb2;
	uint8_t buf[1400];
	size_t len;
	int a, b;

	(void)state;
	kw_pair(t, &c, &la, &lb, &a, &b);
	c.fail = 1;
	len = kw(buf, 0, 1, 4, true);
	dta_translator_process(t, buf, len, 0);
	assert_int_equal(c.notified[a], 0);
	assert_int_equal(stats(t).sink_errors, 2);
	assert_int_equal(stats(t).notifications, 0);

	kw_pair(t2, &c2, &la2, &lb2, &a, &b);
	assert_int_equal(dta_translator_process(t2, buf, len, 0), 1);
	assert_int_equal(stats(t2).reports_immediate, 1);
	assert_int_equal(stats(t2).notifications, 0);
	release(t2, &c2);
	release(t, &c);
}

/* Append: the wake comes with the batch that holds the entry. */
static void test_append_with_its_batch(void **state)
{
	struct dta_translator_opts o = { .sz = sizeof(o), .ap_timeout_ns = 50 };
	struct rec c = { 0 };
	struct dta_translator *t = make(&c, &o, true);
	struct dta_layout l;
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_APPEND };
	uint8_t buf[64], d[4] = { 0 };
	int s, len;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 4, 4, 0), 0); /* K = 4 */
	s = add(t, &c, &l, 0);
	r.u.ap.data_len = 4;
	r.u.ap.data = d;
	/* Entries 1 (immediate) .. 3: the batch is not written yet. */
	for (unsigned i = 0; i < 3; i++) {
		r.flags = i == 0 ? DTA_FLAG_IMMEDIATE : 0;
		len = dta_wire_encode(&r, buf, sizeof(buf));
		assert_int_equal(dta_translator_process(t, buf, (size_t)len, 0), 1);
	}
	assert_int_equal(c.notified[s], 0);
	/* The 4th fills it: written and notified in that run. */
	r.flags = 0;
	len = dta_wire_encode(&r, buf, sizeof(buf));
	assert_int_equal(dta_translator_process(t, buf, (size_t)len, 0), 1);
	assert_int_equal(c.notified[s], 1);
	/* A later plain batch: no wake. */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(dta_translator_process(t, buf, (size_t)len, 0), 1);
	assert_int_equal(c.notified[s], 1);
	/* An immediate entry in a partial batch: woken by the tick that
	 * writes it. */
	r.flags = DTA_FLAG_IMMEDIATE;
	len = dta_wire_encode(&r, buf, sizeof(buf));
	assert_int_equal(dta_translator_process(t, buf, (size_t)len, 100), 1);
	assert_int_equal(c.notified[s], 1);
	dta_translator_tick(t, 120);
	assert_int_equal(c.notified[s], 1);
	dta_translator_tick(t, 200);
	assert_int_equal(c.notified[s], 2);
	assert_int_equal(stats(t).ap_partial, 1);
	assert_int_equal(stats(t).notifications, 2);
	assert_false(c.bad_order);
	release(t, &c);
}

/* Postcarding: the wake comes when the flow's chunk is written. */
static void test_postcard_on_emit(void **state)
{
	struct rec c = { 0 };
	struct dta_translator *t = make(&c, NULL, true);
	struct dta_layout l;
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_POSTCARD };
	uint8_t buf[64], key[13];
	int s, len;

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 1024, 3, 4, 1, DTA_HASH_CRC32C, 0), 0);
	s = add(t, &c, &l, 0);
	key13(key, 1);
	r.u.pc.path_len = 3;
	r.u.pc.key_len = 13;
	r.u.pc.key = key;
	for (unsigned hop = 0; hop < 3; hop++) {
		r.u.pc.hop = (uint8_t)hop;
		r.u.pc.value = 10 + hop;
		r.flags = hop == 0 ? DTA_FLAG_IMMEDIATE : 0;
		len = dta_wire_encode(&r, buf, sizeof(buf));
		assert_int_equal(dta_translator_process(t, buf, (size_t)len, 0), 1);
		assert_int_equal(c.notified[s], hop == 2 ? 1 : 0);
	}
	/* The next flow's chunk, all plain: no wake. */
	key13(key, 2);
	for (unsigned hop = 0; hop < 3; hop++) {
		r.u.pc.hop = (uint8_t)hop;
		r.flags = 0;
		len = dta_wire_encode(&r, buf, sizeof(buf));
		assert_int_equal(dta_translator_process(t, buf, (size_t)len, 0), 1);
	}
	assert_int_equal(stats(t).pc_emitted, 2);
	assert_int_equal(c.notified[s], 1);
	assert_int_equal(stats(t).notifications, 1);
	release(t, &c);
}

/* Aggregated Key-Increment: the wake comes with the fetch-and-add. */
static void test_ki_aggregated(void **state)
{
	struct dta_translator_opts o = { .sz = sizeof(o), .ki_window_ns = 100 };
	struct rec c = { 0 };
	struct dta_translator *t = make(&c, &o, true);
	struct dta_layout l;
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_INCREMENT };
	uint8_t buf[64], key[13];
	int s, len;

	(void)state;
	assert_int_equal(dta_layout_ki(&l, 1024, 2, 1, DTA_HASH_CRC32C, 0), 0);
	s = add(t, &c, &l, 0);
	key13(key, 3);
	r.u.ki.redundancy = 2;
	r.u.ki.key_len = 13;
	r.u.ki.key = key;
	r.u.ki.counter = 1;
	r.flags = DTA_FLAG_IMMEDIATE;
	len = dta_wire_encode(&r, buf, sizeof(buf));
	assert_int_equal(dta_translator_process(t, buf, (size_t)len, 0), 1);
	r.flags = 0;
	len = dta_wire_encode(&r, buf, sizeof(buf));
	assert_int_equal(dta_translator_process(t, buf, (size_t)len, 10), 1);
	assert_int_equal(c.notified[s], 0);
	assert_int_equal(stats(t).ki_merged, 1);
	dta_translator_tick(t, 200);
	assert_int_equal(stats(t).ops_fetch_add, 2);
	assert_int_equal(c.notified[s], 1);
	/* Plain increments aggregated and issued: no wake. */
	assert_int_equal(dta_translator_process(t, buf, (size_t)len, 300), 1);
	dta_translator_flush(t);
	assert_int_equal(stats(t).ops_fetch_add, 4);
	assert_int_equal(c.notified[s], 1);
	assert_false(c.bad_order);
	release(t, &c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kw_once_per_structure),
		cmocka_unit_test(test_batch_coalesces),
		cmocka_unit_test(test_refused_and_no_hook),
		cmocka_unit_test(test_append_with_its_batch),
		cmocka_unit_test(test_postcard_on_emit),
		cmocka_unit_test(test_ki_aggregated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
