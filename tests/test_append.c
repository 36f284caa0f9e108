/* SPDX-License-Identifier: BSD-3-Clause */
/* Append: frame bytes, offsets, the coordination-free reader (order, wrap,
 * being lapped, half-written and stale frames), bad input, and a writer and
 * a reader racing on a small ring. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dta/append.h"
#include "dta/layout.h"

#define MAXK 16
#define MAXES 32

/* Content of entry number @idx: byte j carries byte j mod 8 of the index,
 * so entries of different indices (below 2^(8 * entry_size)) differ. */
static void ent(uint8_t *e, unsigned es, uint64_t idx)
{
	for (unsigned j = 0; j < es; j++)
		e[j] = (uint8_t)(idx >> (8 * (j % 8))) ^ (uint8_t)(0xA5 + 0x3B * j);
}

/* Check @n entries at @out are entries @first, @first+1, ... (32-bit entry
 * indices, as the writer counts them). */
static void expect_entries(const uint8_t *out, unsigned es, uint32_t first,
			   unsigned n)
{
	uint8_t e[MAXES];

	for (unsigned i = 0; i < n; i++) {
		ent(e, es, (uint32_t)(first + i));
		assert_memory_equal(out + (size_t)i * es, e, es);
	}
}

/* Build the ops for one batch of @count entries numbered from the cursor's
 * next entry; nothing is applied. */
static int build(const struct dta_layout *l, uint32_t list,
		 struct dta_ap_cursor *cur, unsigned count, uint8_t *framebuf,
		 struct dta_memop *ops)
{
	uint8_t entries[MAXK * MAXES];

	for (unsigned i = 0; i < count; i++)
		ent(entries + i * l->g.ap.entry_size, l->g.ap.entry_size,
		    (uint32_t)(cur->next_entry + i));
	return dta_ap_ops(l, list, cur, entries, count, framebuf,
			  l->g.ap.frame_size, ops, 2);
}

/* Write one batch into @area. */
static void put(const struct dta_layout *l, uint8_t *area, uint32_t list,
		struct dta_ap_cursor *cur, unsigned count)
{
	uint8_t framebuf[16 + MAXK * MAXES];
	struct dta_memop ops[2];
	int n = build(l, list, cur, count, framebuf, ops);
	int want = (l->g.ap.flags & DTA_AP_SEPARATE_TRAILER) ? 2 : 1;

	assert_int_equal(n, want);
	assert_int_equal(dta_memops_apply(area, l->data_size, ops, (size_t)n), n);
}

/* Read and expect exactly @n entries starting at @first and @lost newly
 * lost entries. */
static void expect_read(struct dta_ap_reader *rd, unsigned es, size_t max,
			uint32_t first, int n, uint64_t lost)
{
	uint8_t out[64 * MAXES];
	uint64_t l = 1000; /* incremented, never reset */

	assert_true(max <= 64);
	assert_int_equal(dta_ap_read(rd, out, max, &l), n);
	assert_true(l - 1000 == lost);
	if (n > 0)
		expect_entries(out, es, first, (unsigned)n);
}

static uint8_t *zalloc(const struct dta_layout *l)
{
	uint8_t *a = calloc(1, l->data_size);

	assert_non_null(a);
	return a;
}

static void assert_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(p[i], 0);
}

/* A hand-worked frame: header {seq, first}, entries, zero tail, trailer
 * {seq, count, 0xDA7A}, all big-endian, at ((L*R) + (s-1) mod R) * fs. */
static void test_frame_bytes(void **state)
{
	static const uint8_t e1[15] = { 'A', 'B', 'C', 'D', 'E', 'F', 'G',
					 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O' };
	static const uint8_t f1[32] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* seq 1, first 0 */
		'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M',
		'N', 'O', 0x00,                                 /* 3 x 5 B + pad */
		0x00, 0x00, 0x00, 0x01, 0x00, 0x03, 0xDA, 0x7A, /* seq, count, magic */
	};
	static const uint8_t e2[10] = { 'P', 'Q', 'R', 'S', 'T',
					 'U', 'V', 'W', 'X', 'Y' };
	static const uint8_t f2[32] = {
		0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x03, 0xE8, /* seq 6, first 1000 */
		'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x00, 0x06, 0x00, 0x02, 0xDA, 0x7A,
	};
	static const uint8_t f3[32] = {
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* seq 2^32-1 */
		'A', 'B', 'C', 'D', 'E', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 0xDA, 0x7A,
	};
	static const uint8_t f4[32] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* seq 1 again */
		'F', 'G', 'H', 'I', 'J', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0xDA, 0x7A,
	};
	struct dta_layout l;
	struct dta_ap_cursor cur = { 0, 0 };
	struct dta_memop ops[2];
	uint8_t fb[40], *area;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 2, 4, 3, 5, 0), 0);
	assert_int_equal(l.g.ap.frame_size, 32); /* 16 + 15 = 31 -> 32 */
	assert_int_equal(l.data_size, 2 * 4 * 32);
	area = zalloc(&l);

	/* List 1, batch 1: frame 4 of the area. */
	memset(fb, 0xEE, sizeof(fb));
	assert_int_equal(dta_ap_ops(&l, 1, &cur, e1, 3, fb, sizeof(fb), ops, 2), 1);
	assert_int_equal(ops[0].kind, DTA_MEMOP_WRITE);
	assert_int_equal(ops[0].offset, 128);
	assert_int_equal(ops[0].len, 32);
	assert_ptr_equal(ops[0].data, fb);
	assert_memory_equal(fb, f1, 32);
	assert_int_equal(cur.next_seq, 1);
	assert_int_equal(cur.next_entry, 3);
	assert_int_equal(dta_memops_apply(area, l.data_size, ops, 1), 1);
	assert_zero(area, 128);
	assert_memory_equal(area + 128, f1, 32);
	assert_zero(area + 160, 96);

	/* Batch 6 of list 1 wraps to ring position (6-1) mod 4 = 1. */
	cur.next_seq = 5;
	cur.next_entry = 1000;
	memset(fb, 0xEE, sizeof(fb));
	assert_int_equal(dta_ap_ops(&l, 1, &cur, e2, 2, fb, sizeof(fb), ops, 1), 1);
	assert_int_equal(ops[0].offset, (4 + 1) * 32);
	assert_int_equal(ops[0].len, 32);
	assert_memory_equal(fb, f2, 32);
	assert_int_equal(cur.next_seq, 6);
	assert_int_equal(cur.next_entry, 1002);

	/* Batch 2^32-1 of list 0: position (2^32-2) mod 4 = 2; the entry index
	 * wraps at 2^32; the batch after it is 1 (0 means "never written"). */
	cur.next_seq = 0xFFFFFFFEu;
	cur.next_entry = 0xFFFFFFFFu;
	assert_int_equal(dta_ap_ops(&l, 0, &cur, e1, 1, fb, sizeof(fb), ops, 1), 1);
	assert_int_equal(ops[0].offset, 2 * 32);
	assert_memory_equal(fb, f3, 32);
	assert_int_equal(cur.next_seq, 0xFFFFFFFFu);
	assert_int_equal(cur.next_entry, 0);
	assert_int_equal(dta_ap_ops(&l, 0, &cur, e1 + 5, 1, fb, sizeof(fb),
				    ops, 1), 1);
	assert_int_equal(ops[0].offset, 0);
	assert_memory_equal(fb, f4, 32);
	assert_int_equal(cur.next_seq, 1);
	assert_int_equal(cur.next_entry, 1);
	free(area);
}

/* DTA_AP_SEPARATE_TRAILER: body WRITE, then the 8-byte trailer WRITE. */
static void test_separate_trailer_ops(void **state)
{
	static const uint8_t e[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	static const uint8_t f[32] = {
		0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
		0, 0, 0, 0, 0, 0, 0, 1, 0, 3, 0xDA, 0x7A,
	};
	static const uint8_t f2[32] = {
		0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0xDA, 0x7A,
	};
	struct dta_layout l;
	struct dta_ap_cursor cur = { 0, 0 };
	struct dta_memop ops[3];
	uint8_t fb[32], *area;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 3, 5, 3, 4, DTA_AP_SEPARATE_TRAILER), 0);
	assert_int_equal(l.g.ap.frame_size, 32); /* 16 + 12 = 28 -> 32 */
	assert_int_equal(l.data_size, 3 * 5 * 32);
	area = zalloc(&l);

	/* One op is not enough room. */
	assert_int_equal(dta_ap_ops(&l, 2, &cur, e, 3, fb, sizeof(fb), ops, 1),
			 -ENOSPC);
	assert_int_equal(cur.next_seq, 0);
	assert_int_equal(cur.next_entry, 0);

	assert_int_equal(dta_ap_ops(&l, 2, &cur, e, 3, fb, sizeof(fb), ops, 3), 2);
	assert_int_equal(ops[0].kind, DTA_MEMOP_WRITE);
	assert_int_equal(ops[0].offset, 2 * 5 * 32);
	assert_int_equal(ops[0].len, 24);
	assert_memory_equal(ops[0].data, f, 24);
	assert_int_equal(ops[1].kind, DTA_MEMOP_WRITE);
	assert_int_equal(ops[1].offset, 2 * 5 * 32 + 24);
	assert_int_equal(ops[1].len, 8);
	assert_memory_equal(ops[1].data, f + 24, 8);

	/* Body alone leaves the trailer as it was (zero). */
	assert_int_equal(dta_memops_apply(area, l.data_size, ops, 1), 1);
	assert_memory_equal(area + 320, f, 24);
	assert_zero(area + 344, 8);
	assert_int_equal(dta_memops_apply(area, l.data_size, ops + 1, 1), 1);
	assert_memory_equal(area + 320, f, 32);
	assert_zero(area, 320);
	assert_zero(area + 352, 128);

	/* Next batch of the same list: position 1. */
	assert_int_equal(dta_ap_ops(&l, 2, &cur, e, 2, fb, sizeof(fb), ops, 2), 2);
	assert_int_equal(ops[0].offset, 352);
	assert_int_equal(ops[1].offset, 352 + 24);
	assert_memory_equal(fb, f2, 32);
	free(area);
}

/* Several batches come back in order, each list on its own. */
static void test_read_in_order(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c0 = { 0, 0 }, c1 = { 0, 0 };
	struct dta_ap_reader *r0, *r1, *r1k;
	uint8_t *area;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 2, 8, 4, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &r0), 0);
	expect_read(r0, 8, 64, 0, 0, 0);

	/* List 1 starts at entry 100 to tell it from list 0. */
	c1.next_entry = 100;
	for (int b = 0; b < 5; b++) {
		put(&l, area, 1, &c1, 4);
		if (b == 0) {
			assert_int_equal(dta_ap_reader_create(&l, area, 1, 0, &r1), 0);
			assert_true(dta_ap_reader_position(r1) == 100);
		}
		if (b < 3)
			put(&l, area, 0, &c0, 4);
	}
	/* Created after the writes: starts at the oldest batch, 100. */
	assert_int_equal(dta_ap_reader_create(&l, area, 1, 0, &r1k), 0);
	assert_true(dta_ap_reader_position(r1k) == 100);

	expect_read(r1, 8, 64, 100, 20, 0);
	assert_true(dta_ap_reader_position(r1) == 120);
	expect_read(r1, 8, 64, 0, 0, 0);
	expect_read(r0, 8, 64, 0, 12, 0);
	assert_true(dta_ap_reader_position(r0) == 12);

	/* max = K: one batch per call. */
	for (int b = 0; b < 5; b++)
		expect_read(r1k, 8, 4, 100 + 4 * (uint32_t)b, 4, 0);
	expect_read(r1k, 8, 4, 0, 0, 0);

	put(&l, area, 1, &c1, 4);
	put(&l, area, 1, &c1, 4);
	expect_read(r1, 8, 64, 120, 8, 0);
	expect_read(r1k, 8, 7, 120, 4, 0); /* the second batch does not fit */
	expect_read(r1k, 8, 7, 124, 4, 0);
	expect_read(r0, 8, 64, 0, 0, 0);
	assert_true(dta_ap_reader_position(r1) == 128);
	assert_true(dta_ap_reader_position(r1k) == 128);
	dta_ap_reader_destroy(r0);
	dta_ap_reader_destroy(r1);
	dta_ap_reader_destroy(r1k);
	free(area);
}

/* count < K: a partial batch, zero tail even over an older full frame. */
static void test_partial_batch(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a, *b;
	uint8_t *area, e[6];
	const uint32_t fs = 16 + 4 * 6; /* 40, already 8-aligned */

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 2, 4, 6, 0), 0);
	assert_int_equal(l.g.ap.frame_size, fs);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &b), 0);

	put(&l, area, 0, &c, 4); /* seq 1 at frame 0, entries 0..3 */
	expect_read(a, 6, 4, 0, 4, 0);
	put(&l, area, 0, &c, 1); /* seq 2 at frame 1, entry 4 */
	assert_int_equal(area[fs + fs - 3], 1); /* count */
	assert_zero(area + fs + 8 + 6, 18);
	expect_read(a, 6, 4, 4, 1, 0);

	put(&l, area, 0, &c, 2); /* seq 3 over seq 1: entries 5, 6 */
	assert_int_equal(area[3], 3);
	assert_int_equal(area[7], 5);
	ent(e, 6, 5);
	assert_memory_equal(area + 8, e, 6);
	ent(e, 6, 6);
	assert_memory_equal(area + 14, e, 6);
	assert_zero(area + 20, 12); /* old entries 2 and 3 are gone */
	assert_int_equal(area[fs - 5], 3);
	assert_int_equal(area[fs - 3], 2);
	expect_read(a, 6, 4, 5, 2, 0);

	/* b never read: batch 1 (4 entries) was overwritten. */
	expect_read(b, 6, 64, 4, 3, 4);
	assert_true(dta_ap_reader_position(a) == 7);
	assert_true(dta_ap_reader_position(b) == 7);

	/* Partial batches pack into one read when they fit, and a batch that
	 * does not fit waits for the next call. */
	put(&l, area, 0, &c, 1); /* entry 7 */
	put(&l, area, 0, &c, 3); /* entries 8..10 */
	expect_read(a, 6, 5, 7, 4, 0);
	expect_read(b, 6, 4, 7, 4, 0); /* 1 + 3 fills max = 4 exactly */
	put(&l, area, 0, &c, 3); /* entries 11..13 */
	put(&l, area, 0, &c, 2); /* entries 14, 15 */
	expect_read(b, 6, 4, 11, 3, 0);
	expect_read(b, 6, 4, 14, 2, 0);
	expect_read(a, 6, 5, 11, 5, 0);
	dta_ap_reader_destroy(a);
	dta_ap_reader_destroy(b);
	free(area);
}

/* Ring of 4, 10 batches: a reader that keeps up (right behind, or up to 3
 * batches behind) sees every entry once, in order. A read returns the whole
 * batches that fit in max (the model below), so small batches pack. */
static void test_wrap_no_loss(void **state)
{
	static const unsigned counts[10] = { 3, 1, 2, 3, 3, 2, 1, 3, 2, 3 };
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a, *b;
	uint32_t first[11] = { 0 };
	uint8_t *area;
	int rb = 0;

	(void)state;
	for (int i = 0; i < 10; i++)
		first[i + 1] = first[i] + counts[i];
	assert_int_equal(dta_layout_ap(&l, 1, 4, 3, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &b), 0);
	for (int i = 0; i < 10; i++) {
		put(&l, area, 0, &c, counts[i]);
		expect_read(a, 8, 3, first[i], (int)counts[i], 0);
		expect_read(a, 8, 3, 0, 0, 0);
		/* b drains after every 4th batch: 3 unread batches when the
		 * 4th overwrites the frame b read last. */
		while (i % 4 == 3 && rb <= i) {
			int n = 0, from = rb;

			while (rb <= i && n + (int)counts[rb] <= 3)
				n += (int)counts[rb++];
			expect_read(b, 8, 3, first[from], n, 0);
		}
	}
	while (rb < 10) {
		int n = 0, from = rb;

		while (rb < 10 && n + (int)counts[rb] <= 3)
			n += (int)counts[rb++];
		expect_read(b, 8, 3, first[from], n, 0);
	}
	expect_read(b, 8, 3, 0, 0, 0);
	assert_true(dta_ap_reader_position(a) == first[10]);
	assert_true(dta_ap_reader_position(b) == first[10]);
	dta_ap_reader_destroy(a);
	dta_ap_reader_destroy(b);
	free(area);
}

/* A writer that restarts recovers its cursor from memory: an empty ring
 * gives a zero cursor; otherwise the cursor equals the one the previous
 * writer held, across ring wrap, and a reader sees one ordered stream. */
static void test_cursor_recover(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 }, r;
	struct dta_ap_reader *a;
	uint8_t *area;
	uint32_t next = 0;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 2, 4, 3, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_cursor_recover(&l, area, 1, &r), 0);
	assert_int_equal(r.next_seq, 0);
	assert_int_equal(r.next_entry, 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 1, 0, &a), 0);
	for (int i = 0; i < 11; i++) { /* almost three laps */
		put(&l, area, 1, &c, (unsigned)(1 + i % 3));
		expect_read(a, 8, 3, next, (int)(1 + i % 3), 0);
		next += (uint32_t)(1 + i % 3);
		assert_int_equal(dta_ap_cursor_recover(&l, area, 1, &r), 1);
		assert_int_equal(r.next_seq, c.next_seq);
		assert_int_equal(r.next_entry, c.next_entry);
	}
	/* The writer "restarts" with the recovered cursor: the stream goes on. */
	put(&l, area, 1, &r, 2);
	expect_read(a, 8, 3, next, 2, 0);
	/* List 0 was never written. */
	assert_int_equal(dta_ap_cursor_recover(&l, area, 0, &r), 0);
	assert_int_equal(dta_ap_cursor_recover(&l, area, 2, &r), -DTA_E_MISMATCH);
	assert_int_equal(dta_ap_cursor_recover(NULL, area, 0, &r), -EINVAL);
	dta_ap_reader_destroy(a);
	free(area);
}

/* A reader that falls a ring behind loses exactly the overwritten batches,
 * counts them, and goes on from the oldest intact one. */
static void test_lapped(void **state)
{
	static const unsigned counts[10] = { 3, 1, 2, 3, 2, 1, 3, 3, 2, 1 };
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *one, *all, *late, *mid;
	uint32_t first[11] = { 0 };
	uint8_t *area;

	(void)state;
	for (int i = 0; i < 10; i++)
		first[i + 1] = first[i] + counts[i];
	assert_int_equal(first[6], 12);
	assert_int_equal(first[10], 21);
	assert_int_equal(dta_layout_ap(&l, 1, 4, 3, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &one), 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &all), 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &mid), 0);

	for (int i = 0; i < 2; i++)
		put(&l, area, 0, &c, counts[i]);
	expect_read(mid, 8, 3, 0, 3, 0); /* batch 1 */
	expect_read(mid, 8, 3, 3, 1, 0); /* batch 2 */
	for (int i = 2; i < 10; i++)
		put(&l, area, 0, &c, counts[i]);

	/* Batches 1..6 (12 entries) are gone; 7..10 remain. */
	expect_read(one, 8, 3, first[6], 3, 12);
	assert_true(dta_ap_reader_position(one) == first[7]);
	expect_read(one, 8, 3, first[7], 3, 0);
	expect_read(one, 8, 3, first[8], 3, 0); /* batches 9 and 10: 2 + 1 */
	expect_read(one, 8, 3, 0, 0, 0);
	assert_true(dta_ap_reader_position(one) == 21);

	expect_read(all, 8, 64, first[6], 9, 12);
	assert_true(dta_ap_reader_position(all) == 21);

	/* mid had read batches 1 and 2: batches 3..6 (8 entries) are lost. */
	expect_read(mid, 8, 64, first[6], 9, 8);
	assert_true(dta_ap_reader_position(mid) == 21);

	/* Created now, from the oldest: nothing lost, starts at batch 7. */
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &late), 0);
	assert_true(dta_ap_reader_position(late) == first[6]);
	expect_read(late, 8, 64, first[6], 9, 0);
	assert_true(dta_ap_reader_position(late) == 21);
	dta_ap_reader_destroy(one);
	dta_ap_reader_destroy(all);
	dta_ap_reader_destroy(mid);
	dta_ap_reader_destroy(late);
	free(area);
}

/* dta_ap_reader_create_at(): resuming at a saved position returns the
 * entries from there on, never one before it, and counts what the ring
 * overwrote since as lost; also when the writer laps it before it reads. */
static void test_resume_at(void **state)
{
	static const unsigned counts[10] = { 3, 1, 2, 3, 2, 1, 3, 3, 2, 1 };
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *rd;
	uint8_t *area;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 3, 8, 0), 0);
	area = zalloc(&l);
	/* An empty ring: wait for entry 0. */
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 0, &rd), 0);
	expect_read(rd, 8, 64, 0, 0, 0);
	put(&l, area, 0, &c, 2);
	expect_read(rd, 8, 64, 0, 2, 0);
	dta_ap_reader_destroy(rd);
	memset(area, 0, l.data_size);
	c.next_seq = c.next_entry = 0;
	/* Entries 0..20 in batches starting 0,3,4,6,9,11,12,15,18,20: the
	 * ring holds the last four, entries 12..20. */
	for (int i = 0; i < 10; i++)
		put(&l, area, 0, &c, counts[i]);

	/* At a batch's start. */
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 15, &rd), 0);
	assert_true(dta_ap_reader_position(rd) == 15);
	expect_read(rd, 8, 64, 15, 6, 0);
	assert_true(dta_ap_reader_position(rd) == 21);
	dta_ap_reader_destroy(rd);

	/* Inside a batch (15..17): 16 and 17 only, then on. */
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 16, &rd), 0);
	assert_true(dta_ap_reader_position(rd) == 16);
	expect_read(rd, 8, 3, 16, 2, 0);
	assert_true(dta_ap_reader_position(rd) == 18);
	expect_read(rd, 8, 3, 18, 3, 0); /* 18..19 and 20 */
	expect_read(rd, 8, 3, 0, 0, 0);
	assert_true(dta_ap_reader_position(rd) == 21);
	dta_ap_reader_destroy(rd);

	/* Before the oldest stored entry: 5..11 were overwritten. */
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 5, &rd), 0);
	expect_read(rd, 8, 64, 12, 9, 7);
	assert_true(dta_ap_reader_position(rd) == 21);
	dta_ap_reader_destroy(rd);

	/* At the end: nothing until the next batch, nothing lost. */
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 21, &rd), 0);
	expect_read(rd, 8, 64, 0, 0, 0);
	assert_true(dta_ap_reader_position(rd) == 21);
	put(&l, area, 0, &c, 3); /* 21..23, over batch 7 */
	expect_read(rd, 8, 64, 21, 3, 0);
	assert_true(dta_ap_reader_position(rd) == 24);
	dta_ap_reader_destroy(rd);

	/* Resumed inside batch 8 (15..17) at 16, then lapped before the
	 * first read: 16..23 are gone (8 lost), 24..35 returned. */
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 16, &rd), 0);
	for (int i = 0; i < 4; i++)
		put(&l, area, 0, &c, 3);
	expect_read(rd, 8, 64, 24, 12, 8);
	assert_true(dta_ap_reader_position(rd) == 36);
	dta_ap_reader_destroy(rd);

	/* A position past the writer's (the writer started over): what the
	 * ring holds (batches of entries 24..35) is read, positions going on
	 * from the saved one; the 24 entries before it are lost. */
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 1000, &rd), 0);
	expect_read(rd, 8, 64, 24, 12, 24);
	assert_true(dta_ap_reader_position(rd) == 1036);
	put(&l, area, 0, &c, 2);
	expect_read(rd, 8, 64, 36, 2, 0);
	assert_true(dta_ap_reader_position(rd) == 1038);
	dta_ap_reader_destroy(rd);
	/* A writer started over into an empty ring: from its first entry. */
	memset(area, 0, l.data_size);
	c.next_seq = c.next_entry = 0;
	assert_int_equal(dta_ap_reader_create_at(&l, area, 0, 1000, &rd), 0);
	expect_read(rd, 8, 64, 0, 0, 0);
	put(&l, area, 0, &c, 2);
	expect_read(rd, 8, 64, 0, 2, 0);
	assert_true(dta_ap_reader_position(rd) == 1002);
	dta_ap_reader_destroy(rd);

	assert_int_equal(dta_ap_reader_create_at(NULL, area, 0, 0, &rd),
			 -EINVAL);
	assert_int_equal(dta_ap_reader_create_at(&l, area, 1, 0, &rd),
			 -DTA_E_MISMATCH);
	free(area);
}

/* Only the body of a SEPARATE_TRAILER batch placed: not returned, by any
 * reader, until the trailer lands; also when it overwrites an older frame. */
static void test_half_written(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a, *b, *n, *d;
	struct dta_memop ops[2];
	uint8_t fb[16 + 2 * 8], *area;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 2, 8, DTA_AP_SEPARATE_TRAILER), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	put(&l, area, 0, &c, 2); /* batch 1: entries 0, 1 */
	expect_read(a, 8, 2, 0, 2, 0);

	assert_int_equal(build(&l, 0, &c, 2, fb, ops), 2); /* batch 2 */
	assert_int_equal(dta_memops_apply(area, l.data_size, ops, 1), 1);
	expect_read(a, 8, 2, 0, 0, 0);
	expect_read(a, 8, 64, 0, 0, 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &b), 0);
	assert_true(dta_ap_reader_position(b) == 0);
	expect_read(b, 8, 64, 0, 2, 0); /* batch 1 only */
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 1, &n), 0);
	assert_true(dta_ap_reader_position(n) == 2);
	expect_read(n, 8, 64, 0, 0, 0);

	assert_int_equal(dta_memops_apply(area, l.data_size, ops + 1, 1), 1);
	expect_read(a, 8, 64, 2, 2, 0);
	expect_read(b, 8, 64, 2, 2, 0);
	expect_read(n, 8, 64, 2, 2, 0);

	put(&l, area, 0, &c, 2); /* batch 3 */
	put(&l, area, 0, &c, 2); /* batch 4 */
	expect_read(a, 8, 64, 4, 4, 0);
	/* Batch 5 goes over batch 1's frame: header 5, trailer still 1. */
	assert_int_equal(build(&l, 0, &c, 2, fb, ops), 2);
	assert_int_equal(ops[0].offset, 0);
	assert_int_equal(dta_memops_apply(area, l.data_size, ops, 1), 1);
	expect_read(a, 8, 64, 0, 0, 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &d), 0);
	assert_true(dta_ap_reader_position(d) == 2); /* batch 2 is the oldest */
	expect_read(d, 8, 64, 2, 6, 0);
	expect_read(d, 8, 64, 0, 0, 0);
	assert_int_equal(dta_memops_apply(area, l.data_size, ops + 1, 1), 1);
	expect_read(a, 8, 64, 8, 2, 0);
	expect_read(d, 8, 64, 8, 2, 0);
	dta_ap_reader_destroy(a);
	dta_ap_reader_destroy(b);
	dta_ap_reader_destroy(n);
	dta_ap_reader_destroy(d);
	free(area);
}

/* One-WRITE frames placed partly (as a NIC places them, in address order):
 * header only, then all but the trailer; only the whole frame is read. */
static void test_partly_placed_write(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a;
	struct dta_memop ops[2], part;
	uint8_t fb[16 + 3 * 8], *area;
	const uint32_t fs = 16 + 3 * 8;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 2, 3, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	for (int b = 0; b < 3; b++) {
		assert_int_equal(build(&l, 0, &c, 3, fb, ops), 1);
		part = ops[0];
		part.len = 8;
		assert_int_equal(dta_memops_apply(area, l.data_size, &part, 1), 1);
		expect_read(a, 8, 3, 0, 0, 0);
		part.len = fs - 8;
		assert_int_equal(dta_memops_apply(area, l.data_size, &part, 1), 1);
		expect_read(a, 8, 3, 0, 0, 0);
		assert_int_equal(dta_memops_apply(area, l.data_size, ops, 1), 1);
		expect_read(a, 8, 3, 3 * (uint32_t)b, 3, 0);
	}
	dta_ap_reader_destroy(a);
	free(area);
}

/* A frame of the previous lap (seq s - R where s is expected) is old data,
 * however intact it looks; so is a frame whose header and trailer differ. */
static void test_stale_frame(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a, *o;
	uint8_t *area, saved[8];
	const uint32_t fs = 16 + 2 * 8;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 2, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	for (int b = 0; b < 4; b++)
		put(&l, area, 0, &c, 2);
	expect_read(a, 8, 64, 0, 8, 0);
	/* Frame 0 holds intact batch 1; the reader wants batch 5 there. */
	for (int i = 0; i < 3; i++)
		expect_read(a, 8, 64, 0, 0, 0);
	assert_true(dta_ap_reader_position(a) == 8);

	/* Trailer says 5 but the header still says 1: not batch 5. */
	memcpy(saved, area + fs - 8, 8);
	area[fs - 5] = 5;
	expect_read(a, 8, 64, 0, 0, 0);
	memcpy(area + fs - 8, saved, 8);
	/* Header says 5, trailer 1: batch 5 half placed. */
	area[3] = 5;
	expect_read(a, 8, 64, 0, 0, 0);
	area[3] = 1;

	put(&l, area, 0, &c, 2); /* the real batch 5 */
	expect_read(a, 8, 64, 8, 2, 0);
	expect_read(a, 8, 64, 0, 0, 0);

	/* Frames now hold 5, 2, 3, 4: the oldest is 2, not 5 (ring order) and
	 * not 1 (gone). */
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &o), 0);
	assert_true(dta_ap_reader_position(o) == 2);
	expect_read(o, 8, 64, 2, 8, 0);
	dta_ap_reader_destroy(a);
	dta_ap_reader_destroy(o);
	free(area);
}

/* A complete frame with a bad magic is skipped and its entries are counted
 * lost once the next frame is read. */
static void test_corrupt_frame_skipped(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a;
	uint8_t *area;
	const uint32_t fs = 16 + 2 * 8;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 2, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	put(&l, area, 0, &c, 2);
	put(&l, area, 0, &c, 2);
	area[fs + fs - 1] ^= 0x01; /* batch 2's magic */
	expect_read(a, 8, 64, 0, 2, 0);
	put(&l, area, 0, &c, 1);
	expect_read(a, 8, 64, 4, 1, 2);
	assert_true(dta_ap_reader_position(a) == 5);
	dta_ap_reader_destroy(a);
	free(area);
}

/* A frame written by hand at ring position @pos of list 0: header {seq,
 * first}, trailer {seq, count, magic}; the body is left as it is. */
static void craft(const struct dta_layout *l, uint8_t *area, uint32_t pos,
		  uint32_t seq, uint32_t first, uint16_t count, uint16_t magic)
{
	uint8_t *f = area + (size_t)pos * l->g.ap.frame_size;
	uint8_t *t = f + l->g.ap.frame_size - 8;

	f[0] = (uint8_t)(seq >> 24); f[1] = (uint8_t)(seq >> 16);
	f[2] = (uint8_t)(seq >> 8); f[3] = (uint8_t)seq;
	f[4] = (uint8_t)(first >> 24); f[5] = (uint8_t)(first >> 16);
	f[6] = (uint8_t)(first >> 8); f[7] = (uint8_t)first;
	memcpy(t, f, 4);
	t[4] = (uint8_t)(count >> 8); t[5] = (uint8_t)count;
	t[6] = (uint8_t)(magic >> 8); t[7] = (uint8_t)magic;
}

/* Sequence numbers that no writer makes, more than 2^31 apart: the scan
 * for the oldest and newest frame must not overflow (it did: a signed
 * subtraction of two distances, which UBSan aborts on) and orders them by
 * signed distance from the first intact frame in ring order, as append.c
 * says. Hand-worked: from 1, 0x80000000 is 2^31 - 1 ahead and 0x80000002
 * is 2^31 - 1 behind. */
static void test_scan_far_apart_seqs(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c;
	struct dta_ap_reader *rd;
	uint8_t *area;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 2, 8, 0), 0);
	area = zalloc(&l);
	craft(&l, area, 0, 1, 10, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 1, 0x80000000u, 20, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 2, 0x80000002u, 30, 2, DTA_AP_TRAILER_MAGIC);
	assert_int_equal(dta_ap_cursor_recover(&l, area, 0, &c), 1);
	assert_int_equal(c.next_seq, 0x80000000u);
	assert_int_equal(c.next_entry, 22);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &rd), 0);
	assert_true(dta_ap_reader_position(rd) == 30);
	dta_ap_reader_destroy(rd);
	/* The other way round: the first intact frame is the far one. */
	memset(area, 0, l.data_size);
	craft(&l, area, 0, 0x80000001u, 10, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 1, 0x7FFFFFFFu, 20, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 2, 2, 30, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 3, 0xFFFFFFFFu, 40, 2, DTA_AP_TRAILER_MAGIC);
	/* From 0x80000001: 0x7FFFFFFF is 2 behind, 2 is 2^31 - 1 behind,
	 * 0xFFFFFFFF is 2^31 - 2 ahead. */
	assert_int_equal(dta_ap_cursor_recover(&l, area, 0, &c), 1);
	assert_int_equal(c.next_seq, 0xFFFFFFFFu);
	assert_int_equal(c.next_entry, 42);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &rd), 0);
	assert_true(dta_ap_reader_position(rd) == 30);
	dta_ap_reader_destroy(rd);
	free(area);
}

/* A frame whose entry index goes backwards (corrupt or crafted): no
 * entries were lost, not 2^32 - 97; and it does not share an answer with
 * the entries before it. */
static void test_lost_never_wraps(void **state)
{
	struct dta_layout l;
	struct dta_ap_reader *rd;
	uint8_t *area, out[64 * 8];
	uint64_t lost = 0;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 2, 8, 0), 0);
	area = zalloc(&l);
	craft(&l, area, 0, 1, 100, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 1, 2, 5, 2, DTA_AP_TRAILER_MAGIC);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &rd), 0);
	assert_int_equal(dta_ap_read(rd, out, 64, &lost), 2);
	assert_true(lost == 0);
	assert_int_equal(dta_ap_read(rd, out, 64, &lost), 2);
	assert_true(lost == 0);
	assert_true(dta_ap_reader_position(rd) == 104);
	assert_int_equal(dta_ap_read(rd, out, 64, &lost), 0);
	dta_ap_reader_destroy(rd);

	/* Far ahead with no batch skipped: at most 0 lost; one batch
	 * skipped (corrupt frame 2): at most K = 2 lost. */
	memset(area, 0, l.data_size);
	craft(&l, area, 0, 1, 0, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 1, 2, 0x7FFFFFF0u, 2, DTA_AP_TRAILER_MAGIC);
	craft(&l, area, 2, 3, 7, 2, 0xBAD0);
	craft(&l, area, 3, 4, 0x7FFFFFFFu, 1, DTA_AP_TRAILER_MAGIC);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &rd), 0);
	assert_int_equal(dta_ap_read(rd, out, 64, &lost), 2);
	assert_int_equal(dta_ap_read(rd, out, 64, &lost), 2);
	assert_true(lost == 0);
	assert_int_equal(dta_ap_read(rd, out, 64, &lost), 1);
	assert_true(lost == 2);
	assert_true(dta_ap_reader_position(rd) == 0 + 2 + 2 + 2 + 1);
	dta_ap_reader_destroy(rd);
	free(area);
}

/* Arbitrary bytes in the ring, some frames made to look intact with
 * random header fields: every call returns, within its contract (under
 * the sanitizer build also without undefined behaviour). */
static void test_random_ring(void **state)
{
	struct dta_layout l;
	uint64_t x = 0x9E3779B97F4A7C15ull;
	uint8_t *area, out[64 * 8];

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 8, 4, 8, 0), 0);
	area = zalloc(&l);
	for (int round = 0; round < 2000; round++) {
		struct dta_ap_reader *rd[2];
		struct dta_ap_cursor c;

		for (size_t i = 0; i < l.data_size; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			area[i] = (uint8_t)x;
		}
		for (uint32_t pos = 0; pos < 8; pos++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			if (x & 3)
				craft(&l, area, pos, (uint32_t)(x >> 32),
				      (uint32_t)x, (uint16_t)(1 + (x >> 8) % 5),
				      DTA_AP_TRAILER_MAGIC);
		}
		assert_true(dta_ap_cursor_recover(&l, area, 0, &c) >= 0);
		for (int k = 0; k < 2; k++) {
			assert_int_equal(dta_ap_reader_create(&l, area, 0, k,
							      &rd[k]), 0);
			for (int i = 0; i < 20; i++) {
				uint64_t lost = 0;
				int n = dta_ap_read(rd[k], out, 64, &lost);

				assert_true(n >= 0 && n <= 64);
				/* At most 2^32 skipped batches of K = 4. */
				assert_true(lost < (4ull << 32));
				if (n == 0)
					break;
			}
			dta_ap_reader_destroy(rd[k]);
		}
	}
	free(area);
}

/* A gap after entries were copied ends the answer: batch 3 corrupt, so
 * one read returns batches 1 and 2 and nothing lost, the next batch 4 and
 * the 2 entries of batch 3 lost (not 1, 2 and 4 with "2 lost" somewhere). */
static void test_gap_ends_answer(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a;
	uint8_t *area;
	const uint32_t fs = 16 + 2 * 8;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 8, 2, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	for (int i = 0; i < 4; i++)
		put(&l, area, 0, &c, 2);
	area[2 * fs + fs - 1] ^= 0x01; /* batch 3's magic */
	expect_read(a, 8, 64, 0, 4, 0);
	expect_read(a, 8, 64, 6, 2, 2);
	assert_true(dta_ap_reader_position(a) == 8);
	expect_read(a, 8, 64, 0, 0, 0);
	dta_ap_reader_destroy(a);
	free(area);
}

/* from_now readers start after the newest batch. */
static void test_from_now(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *empty, *now, *old, *wrapped;
	uint8_t *area;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 3, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 1, &empty), 0);
	assert_true(dta_ap_reader_position(empty) == 0);
	put(&l, area, 0, &c, 3);
	put(&l, area, 0, &c, 2);
	put(&l, area, 0, &c, 3);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 1, &now), 0);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &old), 0);
	assert_true(dta_ap_reader_position(now) == 8);
	assert_true(dta_ap_reader_position(old) == 0);
	expect_read(now, 8, 64, 0, 0, 0);
	put(&l, area, 0, &c, 1);
	put(&l, area, 0, &c, 3);
	expect_read(now, 8, 64, 8, 4, 0);
	expect_read(old, 8, 64, 3, 9, 3); /* batch 1 overwritten by batch 5 */
	expect_read(empty, 8, 64, 3, 9, 3);

	for (int b = 0; b < 5; b++) /* batches 6..10 */
		put(&l, area, 0, &c, 2);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 1, &wrapped), 0);
	assert_true(dta_ap_reader_position(wrapped) == 22);
	expect_read(wrapped, 8, 64, 0, 0, 0);
	put(&l, area, 0, &c, 1);
	expect_read(wrapped, 8, 64, 22, 1, 0);
	expect_read(now, 8, 64, 16, 7, 4);
	dta_ap_reader_destroy(empty);
	dta_ap_reader_destroy(now);
	dta_ap_reader_destroy(old);
	dta_ap_reader_destroy(wrapped);
	free(area);
}

/* Batch numbers wrap from 2^32-1 to 1 and entry indices at 2^32; frames
 * stay at (s-1) mod R, so batch 2 lands on batch 2^32-2's frame. */
static void test_seq_wrap(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0xFFFFFFFDu, 0xFFFFFFFCu };
	struct dta_ap_reader *a, *b;
	struct dta_memop ops[2];
	uint8_t fb[32], *area;
	static const uint64_t pos[5] = { 1, 2, 0, 1, 2 };

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 2, 8, 0), 0);
	area = zalloc(&l);
	for (int i = 0; i < 5; i++) {
		struct dta_ap_cursor t = c;

		assert_int_equal(build(&l, 0, &t, 2, fb, ops), 1);
		assert_int_equal(ops[0].offset, pos[i] * 32);
		put(&l, area, 0, &c, 2);
		if (i == 0) {
			assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
			assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &b), 0);
			assert_true((uint32_t)dta_ap_reader_position(a) == 0xFFFFFFFCu);
		}
		expect_read(a, 8, 2, 0xFFFFFFFCu + 2 * (uint32_t)i, 2, 0);
	}
	assert_int_equal(c.next_seq, 3);
	assert_int_equal(c.next_entry, 6);
	assert_true((uint32_t)dta_ap_reader_position(a) == 6);
	/* b: batches 2^32-2 and 2^32-1 were overwritten by 2 and 3. */
	expect_read(b, 8, 64, 0, 6, 4);
	assert_true((uint32_t)dta_ap_reader_position(b) == 6);
	dta_ap_reader_destroy(a);
	dta_ap_reader_destroy(b);
	free(area);
}

/* max below K is refused and consumes nothing. */
static void test_read_enospc(void **state)
{
	struct dta_layout l;
	struct dta_ap_cursor c = { 0, 0 };
	struct dta_ap_reader *a;
	uint8_t *area, out[8 * 8];
	uint64_t lost = 0;

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 1, 4, 4, 8, 0), 0);
	area = zalloc(&l);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, &a), 0);
	put(&l, area, 0, &c, 1);
	for (size_t max = 0; max < 4; max++) {
		memset(out, 0xCC, sizeof(out));
		assert_int_equal(dta_ap_read(a, out, max, &lost), -ENOSPC);
		assert_true(lost == 0);
		assert_true(dta_ap_reader_position(a) == 0);
		for (size_t i = 0; i < sizeof(out); i++)
			assert_int_equal(out[i], 0xCC);
	}
	expect_read(a, 8, 4, 0, 1, 0);
	dta_ap_reader_destroy(a);
	free(area);
}

static void test_bad_args(void **state)
{
	struct dta_layout l, ki, nl;
	struct dta_ap_cursor c = { 7, 70 };
	struct dta_ap_reader *rd = NULL, *ok;
	struct dta_memop ops[2];
	uint8_t e[4 * 8] = { 0 }, fb[64], *area, out[64];

	(void)state;
	assert_int_equal(dta_layout_ap(&l, 2, 4, 4, 8, 0), 0);
	assert_int_equal(l.g.ap.frame_size, 48);
	assert_int_equal(dta_layout_ki(&ki, 1024, 2, 1, DTA_HASH_CRC32C, 0), 0);
	area = zalloc(&l);

#define AP_FAILS(expr, code)                                                  \
	do {                                                                  \
		assert_int_equal((expr), (code));                             \
		assert_int_equal(c.next_seq, 7);                              \
		assert_int_equal(c.next_entry, 70);                           \
	} while (0)
	AP_FAILS(dta_ap_ops(NULL, 0, &c, e, 1, fb, 64, ops, 2), -EINVAL);
	AP_FAILS(dta_ap_ops(&l, 0, NULL, e, 1, fb, 64, ops, 2), -EINVAL);
	AP_FAILS(dta_ap_ops(&l, 0, &c, NULL, 1, fb, 64, ops, 2), -EINVAL);
	AP_FAILS(dta_ap_ops(&l, 0, &c, e, 1, NULL, 64, ops, 2), -EINVAL);
	AP_FAILS(dta_ap_ops(&l, 0, &c, e, 1, fb, 64, NULL, 2), -EINVAL);
	AP_FAILS(dta_ap_ops(&ki, 0, &c, e, 1, fb, 64, ops, 2), -DTA_E_PRIMITIVE);
	AP_FAILS(dta_ap_ops(&l, 2, &c, e, 1, fb, 64, ops, 2), -DTA_E_MISMATCH);
	AP_FAILS(dta_ap_ops(&l, UINT32_MAX, &c, e, 1, fb, 64, ops, 2),
		 -DTA_E_MISMATCH);
	AP_FAILS(dta_ap_ops(&l, 0, &c, e, 0, fb, 64, ops, 2), -DTA_E_MISMATCH);
	AP_FAILS(dta_ap_ops(&l, 0, &c, e, 5, fb, 64, ops, 2), -DTA_E_MISMATCH);
	AP_FAILS(dta_ap_ops(&l, 0, &c, e, 1, fb, 47, ops, 2), -ENOSPC);
	AP_FAILS(dta_ap_ops(&l, 0, &c, e, 1, fb, 64, ops, 0), -ENOSPC);
	nl = l;
	nl.primitive = 0;
	AP_FAILS(dta_ap_ops(&nl, 0, &c, e, 1, fb, 64, ops, 2), -DTA_E_PRIMITIVE);
#undef AP_FAILS
	/* Boundaries that are fine: last list, K entries, exact buffer. */
	assert_int_equal(dta_ap_ops(&l, 1, &c, e, 4, fb, 48, ops, 1), 1);
	assert_int_equal(c.next_seq, 8);
	assert_int_equal(c.next_entry, 74);

	assert_int_equal(dta_ap_reader_create(NULL, area, 0, 0, &rd), -EINVAL);
	assert_int_equal(dta_ap_reader_create(&l, NULL, 0, 0, &rd), -EINVAL);
	assert_int_equal(dta_ap_reader_create(&l, area, 0, 0, NULL), -EINVAL);
	assert_int_equal(dta_ap_reader_create(&ki, area, 0, 0, &rd),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_ap_reader_create(&l, area, 2, 0, &rd),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_ap_reader_create(&l, area, 2, 1, &rd),
			 -DTA_E_MISMATCH);
	assert_null(rd); /* no reader handed out on error */

	assert_int_equal(dta_ap_reader_create(&l, area, 1, 0, &ok), 0);
	assert_int_equal(dta_ap_read(NULL, out, 8, NULL), -EINVAL);
	assert_int_equal(dta_ap_read(ok, NULL, 8, NULL), -EINVAL);
	assert_int_equal(dta_ap_read(ok, out, 4, NULL), 0); /* lost may be NULL */
	dta_ap_reader_destroy(ok);
	dta_ap_reader_destroy(NULL);
	free(area);
}

/* The reader addresses frames by lists x ring_batches x frame_size without
 * bounds checks, so a geometry whose data size does not fit in 64 bits must
 * be refused (layout.h: -EINVAL for an out-of-range parameter), not
 * described with a wrapped-around data_size. */
static void test_layout_size_overflow(void **state)
{
	static const struct {
		uint32_t lists, ring;
		unsigned k, es;
	} g[] = {
		{ 1u << 31, 1u << 31, 1024, 1024 }, /* 2^62 x (2^20 + 16) */
		{ UINT32_MAX, UINT32_MAX, 1, 1 },    /* ~2^64 x 24 */
		{ 1u << 20, 1u << 24, 1024, 1024 }, /* 2^44 x (2^20 + 16) */
	};
	struct dta_layout l;

	(void)state;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		int rc = dta_layout_ap(&l, g[i].lists, g[i].ring, g[i].k,
				       g[i].es, 0);

		if (rc == 0)
			print_message("lists %u ring %u K %u entry %u: accepted "
				      "with data_size %llu, frame_size %u\n",
				      g[i].lists, g[i].ring, g[i].k, g[i].es,
				      (unsigned long long)l.data_size,
				      l.g.ap.frame_size);
		assert_int_equal(rc, -EINVAL);
	}
	/* A geometry of just over 2^63 bytes still fits and is accepted. */
	assert_int_equal(dta_layout_ap(&l, 1u << 20, 1u << 23, 1024, 1024, 0), 0);
	assert_true(l.data_size == (1ull << 43) * (1048576 + 16));
}

/* ---- a writer and a reader racing on an 8-frame ring ---- */

#define ST_TOTAL 200000u
#define ST_K 16
#define ST_ES 24
#define ST_RING 8

struct stress {
	struct dta_layout l;
	uint8_t *area;
	struct dta_ap_reader *rd;
	_Atomic uint64_t written;
	atomic_int done;
	/* reader results */
	uint64_t read, lost, reads, nonempty, position;
	char err[160];
};

/* Three 8-byte lanes, each a different bijection of the index: a torn
 * entry (lanes from two writes) or a zero tail never decodes. */
static void st_entry(uint8_t *e, uint64_t idx)
{
	uint64_t lane[3] = { idx, ~idx, idx * 0x9E3779B97F4A7C15ull };

	memcpy(e, lane, sizeof(lane));
}

static int st_decode(const uint8_t *e, uint64_t *idx)
{
	uint64_t lane[3];

	memcpy(lane, e, sizeof(lane));
	*idx = lane[0];
	return lane[1] == ~lane[0] && lane[2] == lane[0] * 0x9E3779B97F4A7C15ull;
}

static uint64_t st_rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void *st_writer(void *p)
{
	struct stress *s = p;
	struct dta_ap_cursor cur = { 0, 0 };
	uint8_t entries[ST_K * ST_ES], fb[16 + ST_K * ST_ES];
	struct dta_memop ops[2];
	uint64_t idx = 0, rng = 1, batch = 0;

	while (idx < ST_TOTAL) {
		unsigned count = 1 + (unsigned)(st_rnd(&rng) % ST_K);
		int n;

		if (count > ST_TOTAL - idx)
			count = (unsigned)(ST_TOTAL - idx);
		for (unsigned i = 0; i < count; i++)
			st_entry(entries + i * ST_ES, idx + i);
		n = dta_ap_ops(&s->l, 0, &cur, entries, count, fb, sizeof(fb),
			       ops, 2);
		if (n < 1 || dta_memops_apply(s->area, s->l.data_size, ops,
					      (size_t)n) != n)
			break;
		idx += count;
		atomic_store_explicit(&s->written, idx, memory_order_release);
		/* Alternate flat-out phases (the reader is lapped) with paced
		 * ones (it keeps up). */
		if ((++batch >> 9) & 1) {
			unsigned spin = (unsigned)(st_rnd(&rng) % 3000);

			for (volatile unsigned k = 0; k < spin; k++)
				;
		}
	}
	atomic_store_explicit(&s->done, 1, memory_order_release);
	return NULL;
}

#define ST_FAIL(...)                                                          \
	do {                                                                  \
		snprintf(s->err, sizeof(s->err), __VA_ARGS__);                \
		goto out;                                                     \
	} while (0)

static void *st_reader(void *p)
{
	struct stress *s = p;
	struct dta_ap_reader *rd = s->rd;
	static uint8_t out[4 * ST_K * ST_ES];
	uint64_t next = 0;

	for (;;) {
		int done = atomic_load_explicit(&s->done, memory_order_acquire);
		uint64_t before = s->lost, gaps = 0, w;
		int n = dta_ap_read(rd, out, 4 * ST_K, &s->lost);

		w = atomic_load_explicit(&s->written, memory_order_acquire);
		s->reads++;
		if (n < 0)
			ST_FAIL("dta_ap_read returned %d", n);
		for (int i = 0; i < n; i++) {
			uint64_t idx;

			if (!st_decode(out + (size_t)i * ST_ES, &idx))
				ST_FAIL("torn entry after index %llu",
					(unsigned long long)next);
			if (idx < next)
				ST_FAIL("index %llu after %llu (duplicate or "
					"out of order)",
					(unsigned long long)idx,
					(unsigned long long)next);
			/* w is published after the batch is placed */
			if (idx >= w + ST_K)
				ST_FAIL("index %llu not written yet (%llu)",
					(unsigned long long)idx,
					(unsigned long long)w);
			gaps += idx - next;
			next = idx + 1;
		}
		if (gaps != s->lost - before)
			ST_FAIL("gaps %llu but lost %llu",
				(unsigned long long)gaps,
				(unsigned long long)(s->lost - before));
		if (n > 0) {
			s->nonempty++;
			if (dta_ap_reader_position(rd) != next)
				ST_FAIL("position %llu, expected %llu",
					(unsigned long long)
						dta_ap_reader_position(rd),
					(unsigned long long)next);
		}
		s->read += (uint64_t)n;
		if (n == 0 && done)
			break;
	}
	s->position = dta_ap_reader_position(rd);
out:
	return NULL;
}

static void stress(unsigned flags)
{
	static struct stress s;
	pthread_t w, r;

	memset(&s, 0, sizeof(s));
	assert_int_equal(dta_layout_ap(&s.l, 1, ST_RING, ST_K, ST_ES, flags), 0);
	s.area = zalloc(&s.l);
	assert_int_equal(dta_ap_reader_create(&s.l, s.area, 0, 0, &s.rd), 0);
	assert_int_equal(pthread_create(&r, NULL, st_reader, &s), 0);
	assert_int_equal(pthread_create(&w, NULL, st_writer, &s), 0);
	assert_int_equal(pthread_join(w, NULL), 0);
	assert_int_equal(pthread_join(r, NULL), 0);
	print_message("stress (flags %u): written %llu read %llu lost %llu in %llu reads "
		      "(%llu non-empty)\n", flags,
		      (unsigned long long)s.written, (unsigned long long)s.read,
		      (unsigned long long)s.lost, (unsigned long long)s.reads,
		      (unsigned long long)s.nonempty);
	assert_string_equal(s.err, "");
	assert_true(s.written == ST_TOTAL);
	assert_true(s.read > 0);
	assert_true(s.read + s.lost == ST_TOTAL);
	assert_true(s.position == ST_TOTAL);
	dta_ap_reader_destroy(s.rd);
	free(s.area);
}

static void test_stress_concurrent(void **state)
{
	(void)state;
	stress(0);
}

static void test_stress_concurrent_separate_trailer(void **state)
{
	(void)state;
	stress(DTA_AP_SEPARATE_TRAILER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_bytes),
		cmocka_unit_test(test_separate_trailer_ops),
		cmocka_unit_test(test_read_in_order),
		cmocka_unit_test(test_partial_batch),
		cmocka_unit_test(test_wrap_no_loss),
		cmocka_unit_test(test_cursor_recover),
		cmocka_unit_test(test_lapped),
		cmocka_unit_test(test_resume_at),
		cmocka_unit_test(test_half_written),
		cmocka_unit_test(test_partly_placed_write),
		cmocka_unit_test(test_stale_frame),
		cmocka_unit_test(test_corrupt_frame_skipped),
		cmocka_unit_test(test_scan_far_apart_seqs),
		cmocka_unit_test(test_lost_never_wraps),
		cmocka_unit_test(test_random_ring),
		cmocka_unit_test(test_gap_ends_answer),
		cmocka_unit_test(test_from_now),
		cmocka_unit_test(test_seq_wrap),
		cmocka_unit_test(test_read_enospc),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_layout_size_overflow),
		cmocka_unit_test(test_stress_concurrent),
		cmocka_unit_test(test_stress_concurrent_separate_trailer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
