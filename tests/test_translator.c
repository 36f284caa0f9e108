/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translator core: routing, Postcarding cache (emission, eviction at the
 * evicted flow's address, timeout, fresh entry after emission), Append
 * batching and timeouts across ring wrap, Key-Increment pre-aggregation,
 * sequence accounting, malformed input, and concurrent use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dta/dta.h"

/* ---- a local sink over plain heap areas, one per structure ---- */

struct area {
	uint8_t *mem;
	uint64_t size;
};

struct local {
	struct area a[8];
	unsigned calls;
	int fail; /* make submit fail */
};

static int local_submit(void *ctx, unsigned s, const struct dta_memop *ops,
			size_t n)
{
	struct local *lo = ctx;
	int k;

	__atomic_add_fetch(&lo->calls, 1, __ATOMIC_RELAXED);
	if (lo->fail)
		return -EIO;
	k = dta_memops_apply(lo->a[s].mem, lo->a[s].size, ops, n);
	return k < 0 ? k : 0;
}

static struct dta_translator *make(struct local *lo,
				   const struct dta_translator_opts *o)
{
	struct dta_sink sink = { .submit = local_submit, .ctx = lo };
	struct dta_translator *t;

	assert_int_equal(dta_translator_create(o, &sink, &t), 0);
	return t;
}

static int add(struct dta_translator *t, struct local *lo,
	       const struct dta_layout *l, uint32_t list_base)
{
	int s = dta_translator_add(t, l, list_base);

	assert_true(s >= 0);
	lo->a[s].mem = calloc(1, l->data_size);
	lo->a[s].size = l->data_size;
	assert_non_null(lo->a[s].mem);
	return s;
}

static void release(struct dta_translator *t, struct local *lo)
{
	dta_translator_destroy(t);
	for (unsigned i = 0; i < 8; i++)
		free(lo->a[i].mem);
}

/* ---- report builders ---- */

static int send1(struct dta_translator *t, const struct dta_report *r,
		 uint64_t now)
{
	uint8_t buf[2048];
	int len = dta_wire_encode(r, buf, sizeof(buf));

	assert_true(len > 0);
	return dta_translator_process(t, buf, (size_t)len, now);
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

static int postcard(struct dta_translator *t, const uint8_t *key, unsigned hop,
		    unsigned path_len, uint32_t value, uint64_t now)
{
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_POSTCARD };

	r.u.pc.hop = (uint8_t)hop;
	r.u.pc.path_len = (uint8_t)path_len;
	r.u.pc.key_len = 13;
	r.u.pc.key = key;
	r.u.pc.value = value;
	return send1(t, &r, now);
}

static int append(struct dta_translator *t, uint32_t list, uint32_t v,
		  uint64_t now)
{
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_APPEND };
	uint8_t d[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };

	r.u.ap.list_id = list;
	r.u.ap.data_len = 4;
	r.u.ap.data = d;
	return send1(t, &r, now);
}

static int incr(struct dta_translator *t, const uint8_t *key, uint64_t add,
		uint64_t now)
{
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_INCREMENT };

	r.u.ki.redundancy = 2;
	r.u.ki.key_len = 13;
	r.u.ki.key = key;
	r.u.ki.counter = add;
	return send1(t, &r, now);
}

static struct dta_translator_stats stats(struct dta_translator *t)
{
	struct dta_translator_stats st;

	dta_translator_stats(t, &st);
	return st;
}

/* ---- tests ---- */

static void test_kw_routing(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, NULL);
	struct dta_layout l4, l20;
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE };
	uint8_t key[13], d20[20] = { 1, 2, 3 }, out[20];
	struct dta_kw_result res;
	int s4, s20;

	(void)state;
	assert_int_equal(dta_layout_kw(&l4, 4096, 4, 4, 4, DTA_HASH_CRC32C, 1), 0);
	assert_int_equal(dta_layout_kw(&l20, 4096, 20, 4, 4, DTA_HASH_CRC32C, 2), 0);
	s4 = add(t, &lo, &l4, 0);
	s20 = add(t, &lo, &l20, 0);
	key13(key, 5);
	r.u.kw.redundancy = 3;
	r.u.kw.key_len = 13;
	r.u.kw.key = key;
	r.u.kw.data_len = 20;
	r.u.kw.data = d20;
	assert_int_equal(send1(t, &r, 0), 1);
	/* Landed in the 20-byte structure, not the 4-byte one. */
	assert_int_equal(dta_kw_query(&l20, lo.a[s20].mem, key, 13, NULL, out, 20,
				      &res), 0);
	assert_int_equal(res.status, DTA_Q_FOUND);
	assert_memory_equal(out, d20, 20);
	assert_int_equal(dta_kw_query(&l4, lo.a[s4].mem, key, 13, NULL, out, 20,
				      &res), 0);
	assert_int_equal(res.status, DTA_Q_NOT_FOUND);

	/* No structure for 7-byte data; N beyond the layout is a mismatch. */
	r.u.kw.data_len = 7;
	assert_int_equal(send1(t, &r, 0), 0);
	r.u.kw.data_len = 20;
	r.u.kw.redundancy = 5;
	assert_int_equal(send1(t, &r, 0), 0);
	assert_int_equal(stats(t).unknown_structure, 1);
	assert_int_equal(stats(t).mismatch, 1);
	assert_int_equal(stats(t).reports[DTA_OP_KEY_WRITE], 1);
	assert_int_equal(stats(t).ops_write, 3);
	assert_int_equal(stats(t).bytes_written, 3 * 24);
	release(t, &lo);
}

static struct dta_pc_codebook *codebook(const struct dta_layout *l)
{
	uint32_t v[256];
	struct dta_pc_codebook *cb;

	for (unsigned i = 0; i < 256; i++)
		v[i] = 1000 + i;
	assert_int_equal(dta_pc_codebook_create(l, v, 256, &cb), 0);
	return cb;
}

static void expect_path(const struct dta_layout *l, const uint8_t *area,
			const struct dta_pc_codebook *cb, const uint8_t *key,
			unsigned len, const uint32_t *vals)
{
	struct dta_pc_result res;

	assert_int_equal(dta_pc_query(l, area, cb, key, 13, 0, &res), 0);
	if (len == 0) {
		assert_int_not_equal(res.status, DTA_Q_FOUND);
		return;
	}
	assert_int_equal(res.status, DTA_Q_FOUND);
	assert_int_equal(res.path_len, len);
	assert_memory_equal(res.values, vals, len * sizeof(uint32_t));
}

static void test_pc_complete_and_fresh_entry(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, NULL);
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	static const uint32_t p1[3] = { 1001, 1002, 1003 };
	static const uint32_t p2[3] = { 1011, 1012, 1013 };
	uint8_t key[13];
	int s;

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 1 << 14, 5, 4, 2, DTA_HASH_CRC32C, 3), 0);
	s = add(t, &lo, &l, 0);
	cb = codebook(&l);
	key13(key, 77);
	/* Out of order; nothing written until the third hop arrives. */
	assert_int_equal(postcard(t, key, 2, 3, p1[2], 0), 1);
	assert_int_equal(postcard(t, key, 0, 3, p1[0], 1), 1);
	assert_int_equal(stats(t).ops_write, 0);
	assert_int_equal(postcard(t, key, 1, 3, p1[1], 2), 1);
	assert_int_equal(stats(t).pc_emitted, 1);
	assert_int_equal(stats(t).ops_write, 2);
	expect_path(&l, lo.a[s].mem, cb, key, 3, p1);
	/* The same flow again (a later packet) starts a fresh entry and
	 * replaces the path. */
	for (unsigned h = 0; h < 3; h++)
		assert_int_equal(postcard(t, key, h, 3, p2[h], 3), 1);
	assert_int_equal(stats(t).pc_emitted, 2);
	assert_int_equal(stats(t).pc_duplicates, 0);
	expect_path(&l, lo.a[s].mem, cb, key, 3, p2);
	dta_pc_codebook_destroy(cb);
	release(t, &lo);
}

static void test_pc_eviction_writes_evicted_flow(void **state)
{
	struct dta_translator_opts o = { .sz = sizeof(o), .pc_cache_entries = 1 };
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, &o);
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	static const uint32_t a[4] = { 1021, 1022, 1023, 1024 };
	static const uint32_t b[2] = { 1031, 1032 };
	uint8_t ka[13], kb[13];
	int s;

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 1 << 14, 5, 4, 1, DTA_HASH_CRC32C, 4), 0);
	s = add(t, &lo, &l, 0);
	cb = codebook(&l);
	key13(ka, 1);
	key13(kb, 2);
	/* Flow a: hops 0, 1 and 3 of 4; then flow b takes the only entry. */
	postcard(t, ka, 0, 4, a[0], 0);
	postcard(t, ka, 1, 4, a[1], 0);
	postcard(t, ka, 3, 4, a[3], 0);
	postcard(t, kb, 0, 2, b[0], 0);
	assert_int_equal(stats(t).pc_evictions, 1);
	/* a's prefix (hops 0-1) is at a's address; hop 3 after the gap is
	 * dropped and counted. b is not written yet. */
	expect_path(&l, lo.a[s].mem, cb, ka, 2, a);
	expect_path(&l, lo.a[s].mem, cb, kb, 0, NULL);
	assert_int_equal(stats(t).pc_hops_dropped, 1);
	postcard(t, kb, 1, 2, b[1], 0);
	expect_path(&l, lo.a[s].mem, cb, kb, 2, b);
	dta_pc_codebook_destroy(cb);
	release(t, &lo);
}

static void test_pc_timeout(void **state)
{
	struct dta_translator_opts o = { .sz = sizeof(o), .pc_timeout_ns = 1000 };
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, &o);
	struct dta_layout l;
	struct dta_pc_codebook *cb;
	static const uint32_t a[2] = { 1041, 1042 };
	uint8_t key[13];
	int s;

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 1 << 12, 5, 4, 2, DTA_HASH_CRC32C, 5), 0);
	s = add(t, &lo, &l, 0);
	cb = codebook(&l);
	key13(key, 9);
	/* Path length unknown (as in legacy reports): complete only at B. */
	postcard(t, key, 0, 0, a[0], 100);
	postcard(t, key, 1, 0, a[1], 100);
	assert_int_equal(dta_translator_tick(t, 500), 0);
	expect_path(&l, lo.a[s].mem, cb, key, 0, NULL);
	/* Ticks cover the whole cache within the timeout. */
	for (uint64_t now = 600; now <= 1400; now += 200)
		dta_translator_tick(t, now);
	assert_int_equal(stats(t).pc_timeouts, 1);
	expect_path(&l, lo.a[s].mem, cb, key, 2, a);
	/* Flushing an empty cache writes nothing more. */
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).ops_write, 2);
	dta_pc_codebook_destroy(cb);
	release(t, &lo);
}

static void read_list(const struct dta_layout *l, const uint8_t *area,
		      uint32_t list, struct dta_ap_reader *rd, uint32_t *next,
		      uint32_t end)
{
	uint8_t buf[64 * 4];
	uint64_t lost = 0;
	int n;

	while ((n = dta_ap_read(rd, buf, 64, &lost)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t v = (uint32_t)buf[4 * i] << 24 |
				     (uint32_t)buf[4 * i + 1] << 16 |
				     (uint32_t)buf[4 * i + 2] << 8 | buf[4 * i + 3];

			assert_int_equal(v, *next);
			(*next)++;
		}
	}
	(void)l;
	(void)area;
	(void)list;
	assert_int_equal(n, 0);
	assert_int_equal(lost, 0);
	assert_true(*next <= end);
}

static void test_ap_batches_wrap_and_timeout(void **state)
{
	struct dta_translator_opts o = { .sz = sizeof(o), .ap_timeout_ns = 50 };
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, &o);
	struct dta_layout l;
	struct dta_ap_reader *rd;
	uint32_t next = 0, sent = 0;
	int s;

	(void)state;
	/* Lists 100..103; ring of 3 frames of K = 4 entries. */
	assert_int_equal(dta_layout_ap(&l, 4, 3, 4, 4, 0), 0);
	s = add(t, &lo, &l, 100);
	assert_int_equal(dta_ap_reader_create(&l, lo.a[s].mem, 2, 0, &rd), 0);
	/* Many laps of the ring, reading as we go: nothing lost, nothing
	 * twice, in order (the prototype overwrote one batch per lap). */
	for (unsigned round = 0; round < 40; round++) {
		for (unsigned i = 0; i < 8; i++)
			assert_int_equal(append(t, 102, sent++, round * 100), 1);
		read_list(&l, lo.a[s].mem, 2, rd, &next, sent);
	}
	assert_int_equal(next, sent);
	assert_int_equal(stats(t).ap_batches, sent / 4);
	/* A partial batch waits for its timeout. */
	append(t, 102, sent++, 10000);
	append(t, 102, sent++, 10010);
	dta_translator_tick(t, 10020);
	read_list(&l, lo.a[s].mem, 2, rd, &next, sent);
	assert_int_equal(next, sent - 2);
	dta_translator_tick(t, 10060);
	read_list(&l, lo.a[s].mem, 2, rd, &next, sent);
	assert_int_equal(next, sent);
	assert_int_equal(stats(t).ap_partial, 1);
	/* Unknown list; wrong entry size. */
	assert_int_equal(append(t, 104, 1, 0), 0);
	assert_int_equal(stats(t).unknown_structure, 1);
	{
		struct dta_layout l2;

		assert_int_equal(dta_layout_ap(&l2, 2, 4, 4, 4, 0), 0);
		assert_int_equal(dta_translator_add(t, &l2, 103), -EEXIST);
		assert_int_equal(dta_translator_add(t, &l2, 99), -EEXIST);
		/* Adjacent ranges are fine. */
		assert_true(dta_translator_add(t, &l2, 98) >= 0);
	}
	dta_ap_reader_destroy(rd);
	release(t, &lo);
}

static void test_ki_direct_and_aggregated(void **state)
{
	for (int agg = 0; agg < 2; agg++) {
		struct dta_translator_opts o = { .sz = sizeof(o),
						 .ki_window_ns = agg ? 1000 : 0 };
		struct local lo = { 0 };
		struct dta_translator *t = make(&lo, &o);
		struct dta_layout l;
		uint64_t want[50] = { 0 }, got;
		uint8_t key[13];
		int s;

		(void)state;
		assert_int_equal(dta_layout_ki(&l, 1 << 16, 3, 2, DTA_HASH_CRC32C, 6),
				 0);
		s = add(t, &lo, &l, 0);
		for (unsigned i = 0; i < 1000; i++) {
			unsigned k = (i * 7) % 50;

			key13(key, k);
			assert_int_equal(incr(t, key, i + 1, 10 + i / 100), 1);
			want[k] += i + 1;
		}
		if (agg) {
			/* Nothing issued yet for most keys: a window is open. */
			assert_true(stats(t).ops_fetch_add < 3 * 1000);
			assert_true(stats(t).ki_merged > 0);
			dta_translator_tick(t, 5000);
			dta_translator_tick(t, 5000);
		}
		for (unsigned k = 0; k < 50; k++) {
			key13(key, k);
			assert_int_equal(dta_ki_query(&l, lo.a[s].mem, key, 13, 0,
						      &got), 0);
			assert_int_equal(got, want[k]);
		}
		if (agg)
			assert_int_equal(stats(t).ops_fetch_add + 3 * stats(t).ki_merged,
					 3 * 1000);
		/* Bank switching. */
		assert_int_equal(dta_translator_set_ki_bank(t, (unsigned)s, 1), 0);
		assert_int_equal(dta_translator_set_ki_bank(t, (unsigned)s, 2),
				 -DTA_E_RANGE);
		key13(key, 0);
		incr(t, key, 5, 6000);
		dta_translator_flush(t);
		assert_int_equal(dta_ki_query(&l, lo.a[s].mem, key, 13, 1, &got), 0);
		assert_int_equal(got, 5);
		release(t, &lo);
	}
}

/* A Key-Increment report from @reporter numbered @seq, into structure 0. */
static int seqrep(struct dta_translator *t, uint16_t reporter, uint32_t seq)
{
	static uint8_t key[13] = { 10, 0, 0, 1 };
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_INCREMENT };

	r.reporter = reporter;
	r.seq = seq;
	r.u.ki.redundancy = 1;
	r.u.ki.key_len = 13;
	r.u.ki.key = key;
	r.u.ki.counter = 1;
	return send1(t, &r, 0);
}

static struct dta_translator *seq_translator(struct local *lo)
{
	struct dta_translator *t = make(lo, NULL);
	struct dta_layout l;

	assert_int_equal(dta_layout_ki(&l, 1024, 2, 1, DTA_HASH_CRC32C, 6), 0);
	add(t, lo, &l, 0);
	return t;
}

static void test_seq_gap(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = seq_translator(&lo);

	(void)state;
	/* 10, 11, then 14: 12 and 13 missing; they are confirmed lost once
	 * they leave the window (64 numbers), not before. */
	seqrep(t, 7, 10);
	seqrep(t, 7, 11);
	seqrep(t, 7, 14);
	assert_int_equal(stats(t).seq_lost, 0);
	for (uint32_t s = 15; s < 76; s++)
		seqrep(t, 7, s);
	/* The window is 12..75: 12 leaves it when 76 arrives. */
	assert_int_equal(stats(t).seq_lost, 0);
	seqrep(t, 7, 76);
	assert_int_equal(stats(t).seq_lost, 1);
	seqrep(t, 7, 77);
	assert_int_equal(stats(t).seq_lost, 2);
	/* A gap at the end is settled by the flush. */
	seqrep(t, 7, 80);
	assert_int_equal(stats(t).seq_lost, 2);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 4);
	assert_int_equal(stats(t).seq_late, 0);
	assert_int_equal(stats(t).seq_jumps, 0);
	assert_int_equal(stats(t).seq_suspect, 0);
	assert_int_equal(stats(t).reports_in, 67);
	/* Another reporter has its own sequence space. */
	seqrep(t, 8, 1000);
	seqrep(t, 8, 1001);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 4);
	release(t, &lo);
}

static void test_seq_reorder_and_duplicates(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = seq_translator(&lo);
	static const uint32_t seqs[] = { 10, 11, 14, 12, 15, 13, 12, 0xFFFFFFFF };

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		seqrep(t, 7, seqs[i]);
	/* 12 and 13 came late and filled the gap; 12 again is a duplicate,
	 * and so is 0xFFFFFFFF: before the first report, modulo 2^32. */
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 0);
	assert_int_equal(stats(t).seq_late, 2);
	assert_int_equal(stats(t).seq_duplicates, 2);
	/* Every report is applied whatever its number. */
	assert_int_equal(stats(t).reports[DTA_OP_KEY_INCREMENT], 8);
	release(t, &lo);
}

static void test_seq_restart(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = seq_translator(&lo);

	(void)state;
	/* dta-gen's case: a run of 0..49999 with a gap, then the reporter
	 * starts again at 0, and loses 100 reports of the second run. */
	for (uint32_t s = 0; s < 50000; s++)
		if (s < 1000 || s >= 1005)
			seqrep(t, 3, s);
	for (uint32_t s = 0; s < 20000; s++)
		if (s % 200 != 99 || s >= 100 * 200)
			seqrep(t, 3, s);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_restarts, 1);
	assert_int_equal(stats(t).seq_lost, 5 + 100);
	assert_int_equal(stats(t).seq_late, 0);
	assert_int_equal(stats(t).seq_duplicates, 0);
	assert_int_equal(stats(t).seq_suspect, 0);
	release(t, &lo);
}

static void test_seq_forged_far_ahead(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = seq_translator(&lo);
	uint32_t s = 0;

	(void)state;
	for (; s < 1000; s++)
		seqrep(t, 5, s);
	/* One forged report 60000 ahead, then the real reporter goes on
	 * and loses 100 reports: 50 alone, and a burst of 50. */
	seqrep(t, 5, s + 60000);
	for (unsigned lost = 0; s < 20000; s++) {
		if (lost < 50 && s % 100 == 7) {
			lost++;
			continue;
		}
		if (s >= 15000 && s < 15050)
			continue;
		seqrep(t, 5, s);
	}
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 100);
	assert_int_equal(stats(t).seq_suspect, 1);
	assert_int_equal(stats(t).seq_jumps, 0);
	assert_int_equal(stats(t).seq_restarts, 0);
	/* A forged report far behind does no more. */
	seqrep(t, 5, 3);
	seqrep(t, 5, s++);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 100);
	assert_int_equal(stats(t).seq_suspect, 2);
	release(t, &lo);
}

static void test_seq_confirmed_jump(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = seq_translator(&lo);

	(void)state;
	/* A burst of 23000 lost reports (a receive buffer overflowing) is
	 * a jump: confirmed by the next report, counted exactly. */
	for (uint32_t s = 0; s < 100; s++)
		seqrep(t, 2, s);
	assert_int_equal(stats(t).seq_lost, 0);
	seqrep(t, 2, 23100);
	assert_int_equal(stats(t).seq_lost, 0); /* a candidate only */
	seqrep(t, 2, 23101);
	assert_int_equal(stats(t).seq_lost, 23000);
	assert_int_equal(stats(t).seq_jumps, 1);
	/* Across the 2^32 wrap it is the same. */
	seqrep(t, 4, 0xFFFFFF00u);
	seqrep(t, 4, 0x10);
	seqrep(t, 4, 0x11);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 23000 + 0x110 - 1);
	assert_int_equal(stats(t).seq_jumps, 2);
	assert_int_equal(stats(t).seq_suspect, 0);
	release(t, &lo);
}

static void test_seq_report_between_bursts(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = seq_translator(&lo);

	(void)state;
	/* A queue that overflows twice: 100..199 lost, 200 arrives alone,
	 * 201..299 lost, then 300 and 301. 200 is real: not lost, not
	 * suspect. */
	for (uint32_t s = 0; s < 100; s++)
		seqrep(t, 6, s);
	seqrep(t, 6, 200);
	seqrep(t, 6, 300);
	seqrep(t, 6, 301);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 100 + 99);
	assert_int_equal(stats(t).seq_suspect, 0);
	assert_int_equal(stats(t).seq_jumps, 1);
	/* The same at a restart: 0 arrives, 1..99 lost, then 100, 101. */
	seqrep(t, 6, 0);
	seqrep(t, 6, 100);
	seqrep(t, 6, 101);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).seq_lost, 199 + 99);
	assert_int_equal(stats(t).seq_suspect, 0);
	assert_int_equal(stats(t).seq_restarts, 1);
	/* A third candidate makes the first one suspect. */
	seqrep(t, 6, 5000);
	seqrep(t, 6, 6000);
	seqrep(t, 6, 7000);
	seqrep(t, 6, 102);
	assert_int_equal(stats(t).seq_suspect, 3);
	assert_int_equal(stats(t).seq_lost, 298);
	release(t, &lo);
}

/* The counters the decoder's errors land in, one case each. */
static void test_malformed_by_cause(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = seq_translator(&lo);
	static const uint8_t trunc[] = { 0xD1, 0x01, 0, 0, 0, 0x40 };
	static const uint8_t version[] = { 0xD7, 0x01, 0, 0, 0, 4, 0, 1, 0, 0,
					   0, 1, 1, 1, 1, 1 };
	static const uint8_t opcode[] = { 0xD1, 0x09, 0, 0, 0, 4, 0, 1, 0, 0,
					  0, 1, 1, 1, 1, 1 };
	static const uint8_t field[] = { 0xD1, 0x03, 0x80, 0, 0, 0, 0, 1, 0, 0,
					 0, 1 };
	static const uint8_t ambiguous[] = { 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					     0, 0, 0 };
	struct dta_translator_stats st;

	(void)state;
	assert_int_equal(dta_translator_process(t, trunc, sizeof(trunc), 0),
			 -DTA_E_TRUNCATED);
	assert_int_equal(dta_translator_process(t, trunc, 0, 0), -DTA_E_TRUNCATED);
	assert_int_equal(dta_translator_process(t, version, sizeof(version), 0),
			 -DTA_E_VERSION);
	assert_int_equal(dta_translator_process(t, opcode, sizeof(opcode), 0),
			 -DTA_E_OPCODE);
	assert_int_equal(dta_translator_process(t, field, sizeof(field), 0),
			 -DTA_E_MALFORMED);
	assert_int_equal(dta_translator_process(t, ambiguous, sizeof(ambiguous), 0),
			 -DTA_E_AMBIGUOUS);
	st = stats(t);
	assert_int_equal(st.malformed, 6);
	assert_int_equal(st.malformed_truncated, 2);
	assert_int_equal(st.malformed_version, 1);
	assert_int_equal(st.malformed_opcode, 1);
	assert_int_equal(st.malformed_field, 1);
	assert_int_equal(st.malformed_ambiguous, 1);
	assert_int_equal(st.malformed_too_many, 0);
	assert_int_equal(st.packets, 6);
	assert_int_equal(st.reports_in, 0);

	/* What a receiver loses before the core is counted in the same
	 * struct. */
	assert_int_equal(dta_translator_count_input(t, DTA_INPUT_SOCKET_DROP, 23), 0);
	assert_int_equal(dta_translator_count_input(t, DTA_INPUT_TRUNCATED, 2), 0);
	assert_int_equal(dta_translator_count_input(t, DTA_INPUT_REFUSED_SOURCE, 1), 0);
	assert_int_equal(dta_translator_count_input(t, 0, 1), -EINVAL);
	assert_int_equal(dta_translator_count_input(t, 4, 1), -EINVAL);
	assert_int_equal(dta_translator_count_input(NULL, 1, 1), -EINVAL);
	st = stats(t);
	assert_int_equal(st.socket_drops, 23);
	assert_int_equal(st.rx_truncated, 2);
	assert_int_equal(st.refused_source, 1);

	/* A failing sink is counted, in operations and in reports. */
	lo.fail = 1;
	seqrep(t, 1, 0);
	assert_int_equal(stats(t).sink_errors, 2); /* one add per row */
	assert_int_equal(stats(t).sink_lost_reports, 1);
	release(t, &lo);
}

/* Append reports of 1 byte to list 0, @n of them in one payload. */
/* @n Key-Write reports of the shortest kind: a 1-byte key, 1 byte of data. */
static size_t many_reports(uint8_t *buf, size_t cap, unsigned n)
{
	static const uint8_t d = 0x5a;
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE };
	size_t len = 0;

	r.u.kw.redundancy = 1;
	r.u.kw.key_len = 1;
	r.u.kw.data_len = 1;
	r.u.kw.data = &d;
	for (unsigned i = 0; i < n; i++) {
		uint8_t key = (uint8_t)i;
		int k;

		r.seq = i;
		r.u.kw.key = &key;
		k = dta_wire_encode(&r, buf + len, cap - len);
		assert_true(k > 0);
		len += (size_t)k;
	}
	return len;
}

static void test_jumbo_payload(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, NULL);
	static uint8_t buf[2 * DTA_PAYLOAD_MAX];
	struct dta_layout l;
	size_t len;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1024, 1, 4, 1, DTA_HASH_CRC32C, 0), 0);
	add(t, &lo, &l, 0);
	/* 500 reports of 18 bytes (the shortest report there is) fill a
	 * 9000-byte payload: more than the old limit of 256; every one is
	 * applied. */
	assert_int_equal(DTA_WIRE_REPORTS_MAX, 500);
	len = many_reports(buf, sizeof(buf), 500);
	assert_int_equal(len, DTA_PAYLOAD_MAX);
	assert_int_equal(dta_translator_process(t, buf, len, 0), 500);
	assert_int_equal(stats(t).reports[DTA_OP_KEY_WRITE], 500);
	assert_int_equal(stats(t).reports_in, 500);
	assert_int_equal(stats(t).malformed, 0);
	/* A payload longer than DTA_PAYLOAD_MAX with more reports than
	 * DTA_WIRE_REPORTS_MAX is refused whole, and said so. */
	len = many_reports(buf, sizeof(buf), DTA_WIRE_REPORTS_MAX + 1);
	assert_true(len > DTA_PAYLOAD_MAX);
	assert_int_equal(dta_translator_process(t, buf, len, 0), -ENOSPC);
	assert_int_equal(stats(t).malformed_too_many, 1);
	assert_int_equal(stats(t).reports_in, 500);
	release(t, &lo);
}

static void test_legacy_reports(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, NULL);
	struct dta_layout l;
	/* Prototype Key-Write: opcode 1, flags, N=2, key, data. */
	static const uint8_t pkt[] = { 0x01, 0x00, 0x02, 0, 0, 0, 42,
				       0xca, 0xfe, 0xba, 0xbe };
	uint8_t out[4];
	struct dta_kw_result res;
	int s;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1 << 12, 4, 4, 4, DTA_HASH_PROTOTYPE, 0),
			 0);
	s = add(t, &lo, &l, 0);
	assert_int_equal(dta_translator_process(t, pkt, sizeof(pkt), 0), 1);
	assert_int_equal(dta_kw_query(&l, lo.a[s].mem, pkt + 3, 4, NULL, out, 4,
				      &res), 0);
	assert_int_equal(res.status, DTA_Q_FOUND);
	assert_memory_equal(out, pkt + 7, 4);
	release(t, &lo);
}

struct worker {
	struct dta_translator *t;
	unsigned id;
};

static void *ki_worker(void *arg)
{
	struct worker *w = arg;
	uint8_t key[13];

	for (unsigned i = 0; i < 20000; i++) {
		key13(key, i % 97);
		incr(w->t, key, 1, i);
		if (i % 1000 == 0)
			dta_translator_tick(w->t, i);
	}
	return NULL;
}

static void test_threads(void **state)
{
	for (int agg = 0; agg < 2; agg++) {
		struct dta_translator_opts o = { .sz = sizeof(o),
						 .ki_window_ns = agg ? 100 : 0,
						 .ki_agg_entries = 64 };
		struct local lo = { 0 };
		struct dta_translator *t = make(&lo, &o);
		struct dta_layout l;
		pthread_t th[4];
		struct worker w[4];
		uint64_t total = 0, got;
		uint8_t key[13];
		int s;

		(void)state;
		assert_int_equal(dta_layout_ki(&l, 1 << 16, 2, 1, DTA_HASH_CRC32C, 8),
				 0);
		s = add(t, &lo, &l, 0);
		for (unsigned i = 0; i < 4; i++) {
			w[i].t = t;
			w[i].id = i;
			assert_int_equal(pthread_create(&th[i], NULL, ki_worker, &w[i]),
					 0);
		}
		for (unsigned i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
		dta_translator_flush(t);
		for (unsigned k = 0; k < 97; k++) {
			key13(key, k);
			dta_ki_query(&l, lo.a[s].mem, key, 13, 0, &got);
			total += got;
		}
		/* Count-min may only overestimate; with 2^16 counters and 97
		 * keys it is exact. */
		assert_int_equal(total, 4 * 20000);
		release(t, &lo);
	}
}

/* The first thread to call drives the translator without locks until a
 * second one calls: then every thread takes them, the first included,
 * while it is still calling. Nothing may be lost in the handoff. */
static void test_owner_handoff(void **state)
{
	for (int agg = 0; agg < 2; agg++) {
		struct dta_translator_opts o = { .sz = sizeof(o),
						 .ki_window_ns = agg ? 100 : 0,
						 .ki_agg_entries = 64 };
		struct local lo = { 0 };
		struct dta_translator *t = make(&lo, &o);
		struct dta_layout l;
		pthread_t th[3];
		struct worker w[4];
		uint64_t total = 0, got;
		uint8_t key[13];
		int s;

		(void)state;
		assert_int_equal(dta_layout_ki(&l, 1 << 16, 2, 1, DTA_HASH_CRC32C, 8),
				 0);
		s = add(t, &lo, &l, 0);
		for (unsigned i = 0; i < 1000; i++) {
			key13(key, i % 97);
			incr(t, key, 1, i);
		}
		for (unsigned i = 0; i < 4; i++) {
			w[i].t = t;
			w[i].id = i;
		}
		for (unsigned i = 0; i < 3; i++)
			assert_int_equal(pthread_create(&th[i], NULL, ki_worker, &w[i]),
					 0);
		ki_worker(&w[3]); /* the owner keeps going meanwhile */
		for (unsigned i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
		dta_translator_flush(t);
		for (unsigned k = 0; k < 97; k++) {
			key13(key, k);
			dta_ki_query(&l, lo.a[s].mem, key, 13, 0, &got);
			total += got;
		}
		assert_int_equal(total, 1000 + 4 * 20000);
		release(t, &lo);
	}
}

/* A structure partitioned over three collectors: each report goes to the
 * share dta_shard() names, and only there. */
static void test_shards(void **state)
{
	struct local lo = { 0 };
	struct dta_translator *t = make(&lo, NULL);
	struct dta_layout kw, ki, ap;
	unsigned per[3] = { 0 };
	uint8_t key[13];
	uint8_t out[20];

	(void)state;
	assert_int_equal(dta_layout_kw(&kw, 4096, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_layout_ki(&ki, 4096, 2, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_layout_ap(&ap, 2, 64, 4, 4, 0), 0);
	/* Shares out of order, or Append shares, are refused. */
	assert_int_equal(dta_translator_add_shard(t, &kw, 0, 1, 3), -EINVAL);
	assert_int_equal(dta_translator_add_shard(t, &kw, 0, 3, 3), -EINVAL);
	assert_int_equal(dta_translator_add_shard(t, &ap, 0, 0, 2), -EINVAL);
	for (unsigned k = 0; k < 3; k++) {
		int s = dta_translator_add_shard(t, &kw, 0, k, 3);

		assert_int_equal(s, (int)k);
		lo.a[s].mem = calloc(1, kw.data_size);
		lo.a[s].size = kw.data_size;
	}
	assert_int_equal(dta_translator_add_shard(t, &ki, 0, 1, 2), -EINVAL);
	for (unsigned k = 0; k < 2; k++) {
		int s = dta_translator_add_shard(t, &ki, 0, k, 2);

		assert_int_equal(s, (int)(3 + k));
		lo.a[s].mem = calloc(1, ki.data_size);
		lo.a[s].size = ki.data_size;
	}
	for (uint32_t i = 0; i < 300; i++) {
		struct dta_report r = { .format = DTA_FORMAT_V1,
					.opcode = DTA_OP_KEY_WRITE };
		uint8_t d[4] = { 0, 0, (uint8_t)(i >> 8), (uint8_t)i };

		key13(key, i);
		r.u.kw.redundancy = 2;
		r.u.kw.key_len = 13;
		r.u.kw.key = key;
		r.u.kw.data_len = 4;
		r.u.kw.data = d;
		assert_int_equal(send1(t, &r, 0), 1);
		assert_int_equal(incr(t, key, i + 1, 0), 1);
	}
	for (uint32_t i = 0; i < 300; i++) {
		unsigned want, want2;
		struct dta_kw_result res;
		uint64_t cnt;

		key13(key, i);
		want = dta_shard(key, 13, 3);
		want2 = dta_shard(key, 13, 2);
		per[want]++;
		for (unsigned k = 0; k < 3; k++) {
			int rc = dta_kw_query(&kw, lo.a[k].mem, key, 13, NULL,
					      out, sizeof(out), &res);

			assert_int_equal(rc, 0);
			assert_int_equal(res.status == DTA_Q_FOUND, k == want);
		}
		for (unsigned k = 0; k < 2; k++) {
			assert_int_equal(dta_ki_query(&ki, lo.a[3 + k].mem, key, 13,
						      0, &cnt), 0);
			if (k == want2)
				assert_int_equal(cnt, i + 1);
			else
				assert_true(cnt < i + 1 || cnt == 0);
		}
	}
	/* The shard function spreads keys: no share is starved. */
	for (unsigned k = 0; k < 3; k++)
		assert_true(per[k] > 60);
	assert_int_equal(dta_shard(key, 13, 1), 0);
	assert_int_equal(dta_shard(key, 13, 0), 0);
	release(t, &lo);
}

/* ---- dta_translator_process_batch() equals _process() in order ---- */

/* A sink with the optional hooks: checks that prefetches stay inside the
 * structure and that batches neither nest nor stay open. */
struct hooked {
	struct local lo;
	int depth;
	unsigned begins, prefetches;
};

static int hooked_submit(void *ctx, unsigned s, const struct dta_memop *ops,
			 size_t n)
{
	return local_submit(&((struct hooked *)ctx)->lo, s, ops, n);
}

static void hooked_prefetch(void *ctx, unsigned s, uint64_t off, uint32_t len)
{
	struct hooked *h = ctx;

	assert_true(s < 8 && h->lo.a[s].mem);
	assert_true(len > 0 && off + len <= h->lo.a[s].size);
	h->prefetches++;
}

static void hooked_begin(void *ctx)
{
	struct hooked *h = ctx;

	assert_int_equal(h->depth, 0);
	h->depth++;
	h->begins++;
}

static void hooked_end(void *ctx)
{
	struct hooked *h = ctx;

	assert_int_equal(h->depth, 1);
	h->depth--;
}

/* Five structures: Key-Write with 20 and 8 bytes of data on few slots (so
 * keys share slots and the order of writes decides what stays),
 * Postcarding on a small cache (evictions), Append lists 10..12 with K = 4,
 * Key-Increment. */
static void equiv_structures(struct dta_translator *t, struct local *lo,
			     struct dta_layout l[5])
{
	assert_int_equal(dta_layout_kw(&l[0], 64, 20, 4, 2, DTA_HASH_CRC32C, 3), 0);
	assert_int_equal(dta_layout_kw(&l[1], 32, 8, 2, 3, DTA_HASH_CRC32C, 4), 0);
	assert_int_equal(dta_layout_pc(&l[2], 128, 5, 4, 2, DTA_HASH_CRC32C, 5), 0);
	assert_int_equal(dta_layout_ap(&l[3], 3, 8, 4, 4, 0), 0);
	/* 2 MiB: the only structure large enough to be prefetched */
	assert_int_equal(dta_layout_ki(&l[4], 1u << 17, 2, 1, DTA_HASH_CRC32C, 6), 0);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(add(t, lo, &l[i], i == 3 ? 10 : 0), (int)i);
}

struct stream {
	uint64_t rng;
	uint32_t next[4]; /* per reporter */
};

static uint32_t srnd(struct stream *g, uint32_t m)
{
	g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(g->rng >> 33) % m;
}

/* One payload from one reporter: 1..40 reports of every kind (some no
 * structure takes), numbered with gaps, reorders, duplicates, jumps and
 * restarts; one in 12 payloads is malformed. */
static size_t gen_payload(struct stream *g, uint8_t *buf, size_t cap)
{
	uint16_t rep = (uint16_t)(1 + srnd(g, 3));
	unsigned n = 1 + srnd(g, 40), mal = srnd(g, 12);
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		struct dta_report r = { .format = DTA_FORMAT_V1, .reporter = rep };
		uint8_t key[13], data[20];
		uint32_t x = srnd(g, 100);
		int k;

		if (x < 4)
			g->next[rep] += 1 + srnd(g, 5); /* lost */
		else if (x < 6)
			g->next[rep] -= 1 + srnd(g, 8); /* late or again */
		else if (x == 6)
			g->next[rep] += 500 + srnd(g, 100000); /* jump */
		else if (x == 7 && srnd(g, 4) == 0)
			g->next[rep] = 0; /* restart */
		r.seq = g->next[rep]++;
		key13(key, srnd(g, 24));
		for (unsigned j = 0; j < 20; j++)
			data[j] = (uint8_t)srnd(g, 256);
		switch (srnd(g, 9)) {
		case 0: case 1:
			r.opcode = DTA_OP_KEY_WRITE;
			r.u.kw.redundancy = 2;
			r.u.kw.key_len = 13;
			r.u.kw.key = key;
			r.u.kw.data_len = 20;
			r.u.kw.data = data;
			break;
		case 2:
			r.opcode = DTA_OP_KEY_WRITE;
			r.u.kw.redundancy = (uint8_t)(1 + srnd(g, 4)); /* 4: mismatch */
			r.u.kw.key_len = 13;
			r.u.kw.key = key;
			r.u.kw.data_len = srnd(g, 8) ? 8 : 5; /* 5: nowhere */
			r.u.kw.data = data;
			break;
		case 3: case 4:
			r.opcode = DTA_OP_POSTCARD;
			r.u.pc.hop = (uint8_t)srnd(g, 6); /* 5: mismatch */
			r.u.pc.path_len = (uint8_t)(srnd(g, 3) ? 5 : srnd(g, 7));
			r.u.pc.key_len = 13;
			r.u.pc.key = key;
			r.u.pc.value = 1 + srnd(g, 80);
			break;
		case 5: case 6:
			r.opcode = DTA_OP_APPEND;
			r.u.ap.list_id = 9 + srnd(g, 5); /* 9, 13: nowhere */
			r.u.ap.data_len = srnd(g, 10) ? 4 : 3; /* 3: mismatch */
			r.u.ap.data = data;
			break;
		default:
			r.opcode = DTA_OP_KEY_INCREMENT;
			r.u.ki.redundancy = 2;
			r.u.ki.key_len = 13;
			r.u.ki.key = key;
			r.u.ki.counter = 1 + srnd(g, 1000);
			break;
		}
		k = dta_wire_encode(&r, buf + len, cap - len);
		if (k == -DTA_E_MALFORMED || k == -EINVAL)
			continue; /* not encodable (e.g. hop beyond the path) */
		assert_true(k > 0);
		len += (size_t)k;
	}
	if (mal == 0 && len > 3)
		len -= 1 + srnd(g, 3); /* truncated */
	else if (mal == 1)
		buf[0] ^= 0xf0; /* not a version */
	else if (mal == 2)
		len = 0;
	return len;
}

static void equiv_run(uint64_t ki_window)
{
	static const size_t sizes[] = { 1, 2, 63, 64, 200, 7 };
	struct dta_translator_opts o = { .sz = sizeof(o), .pc_cache_entries = 16,
					 .pc_timeout_ns = 3000,
					 .ap_timeout_ns = 2000,
					 .ki_window_ns = ki_window,
					 .ki_agg_entries = 8 };
	struct local a = { 0 };
	struct hooked h = { 0 };
	struct dta_sink sink = { .submit = hooked_submit, .ctx = &h,
				 .prefetch = hooked_prefetch,
				 .batch_begin = hooked_begin,
				 .batch_end = hooked_end };
	struct dta_translator *ta = make(&a, &o), *tb;
	struct dta_translator_stats sa, sb;
	struct stream g = { .rng = 7 + ki_window };
	struct dta_layout l[5];
	static uint8_t bufs[200][DTA_PAYLOAD_MAX];
	struct dta_payload p[200];
	static struct dta_report r[DTA_WIRE_REPORTS_MAX];
	uint64_t now = 0, split = 0;

	assert_int_equal(dta_translator_create(&o, &sink, &tb), 0);
	equiv_structures(ta, &a, l);
	equiv_structures(tb, &h.lo, l);
	for (unsigned round = 0; round < 60; round++) {
		size_t n = sizes[round % 6];
		int want = 0;

		for (size_t i = 0; i < n; i++) {
			p[i].buf = bufs[i];
			p[i].len = gen_payload(&g, bufs[i], sizeof(bufs[i]));
		}
		now += 700;
		/* The reference takes one report at a time: a valid payload
		 * is split into payloads of one report each. */
		for (size_t i = 0; i < n; i++) {
			int k = dta_wire_decode(p[i].buf, p[i].len, r,
						DTA_WIRE_REPORTS_MAX, 0);

			if (k < 0) {
				dta_translator_process(ta, p[i].buf, p[i].len, now);
				continue;
			}
			split += (uint64_t)k - 1;
			for (int j = 0; j < k; j++) {
				uint8_t one[2048];
				int len = dta_wire_encode(&r[j], one, sizeof(one)), d;

				assert_true(len > 0);
				d = dta_translator_process(ta, one, (size_t)len, now);
				assert_true(d == 0 || d == 1);
				want += d;
			}
		}
		assert_int_equal(dta_translator_process_batch(tb, p, n, now), want);
		if (round % 5 == 4) {
			assert_int_equal(dta_translator_tick(ta, now),
					 dta_translator_tick(tb, now));
		}
		dta_translator_stats(ta, &sa);
		dta_translator_stats(tb, &sb);
		sa.packets -= split;
		assert_memory_equal(&sa, &sb, sizeof(sa));
		for (unsigned s = 0; s < 5; s++)
			assert_memory_equal(a.a[s].mem, h.lo.a[s].mem, l[s].data_size);
	}
	dta_translator_flush(ta);
	dta_translator_flush(tb);
	dta_translator_stats(ta, &sa);
	dta_translator_stats(tb, &sb);
	sa.packets -= split;
	assert_memory_equal(&sa, &sb, sizeof(sa));
	for (unsigned s = 0; s < 5; s++)
		assert_memory_equal(a.a[s].mem, h.lo.a[s].mem, l[s].data_size);
	/* The workload exercised what it is meant to. */
	assert_true(sa.malformed > 0 && sa.mismatch > 0 &&
		    sa.unknown_structure > 0);
	assert_true(sa.seq_lost > 0 && sa.seq_late > 0 && sa.seq_duplicates > 0 &&
		    sa.seq_jumps > 0 && sa.seq_restarts > 0);
	assert_true(sa.pc_evictions > 0 && sa.ap_batches > 0 && sa.reports[1] > 0);
	assert_true(h.begins > 0);
	/* Prefetched: the direct Key-Increment structure's operations
	 * (2 MiB), not the small structures' (in the writer's cache). */
	if (ki_window)
		assert_int_equal(h.prefetches, 0);
	else
		assert_true(h.prefetches > 0);
	assert_int_equal(h.depth, 0);
	release(ta, &a);
	release(tb, &h.lo);
}

static void test_batch_equals_process(void **state)
{
	(void)state;
	equiv_run(0);
	equiv_run(1500); /* Key-Increment pre-aggregation */
	/* Bad arguments. */
	assert_int_equal(dta_translator_process_batch(NULL, NULL, 0, 0), -EINVAL);
}

/*
 * A sink that takes several reports' operations per call (merge_ops) ends
 * with the same memory, counters and losses (by reporter slot and by
 * structure) as one called report by report, with fewer calls; and when it
 * fails, the same reports are counted lost. The payloads mix Key-Write
 * reports to two structures, reports no structure takes, reports a
 * structure refuses (redundancy), IMMEDIATE flags and two reporter slots.
 */
static void merge_run(unsigned merge, int fail, struct local *lo,
		      struct dta_translator_stats *st,
		      struct dta_translator_losses *ls)
{
	struct dta_sink sink = { .submit = local_submit, .ctx = lo,
				 .merge_ops = merge };
	struct dta_payload pl[48];
	uint16_t slot[48];
	static uint8_t buf[48][2048];
	struct dta_translator *t;
	struct dta_layout l4, l8, lk;
	uint32_t seq[4] = { 0 };

	memset(lo, 0, sizeof(*lo));
	lo->fail = fail;
	assert_int_equal(dta_translator_create(NULL, &sink, &t), 0);
	assert_int_equal(dta_translator_set_reporter_slots(t, 2), 0);
	assert_int_equal(dta_layout_kw(&l4, 1000, 4, 4, 2, DTA_HASH_CRC32C, 3), 0);
	assert_int_equal(dta_layout_kw(&l8, 1024, 8, 4, 3, DTA_HASH_CRC32C, 4), 0);
	assert_int_equal(dta_layout_ki(&lk, 300, 2, 1, DTA_HASH_CRC32C, 5), 0);
	add(t, lo, &l4, 0);
	add(t, lo, &l8, 0);
	add(t, lo, &lk, 0);
	for (unsigned i = 0; i < 48; i++) {
		size_t len = 0;

		for (unsigned j = 0; j < 1 + i % 9; j++) {
			struct dta_report r = { .format = DTA_FORMAT_V1,
						.opcode = DTA_OP_KEY_WRITE };
			uint8_t key[13], data[8] = { (uint8_t)i, (uint8_t)j, 7 };
			unsigned x = i * 9 + j;
			int k;

			key13(key, x % 97);
			r.reporter = (uint16_t)(1 + i % 4);
			r.seq = seq[i % 4]++;
			r.flags = x % 11 == 0 ? DTA_FLAG_IMMEDIATE : 0;
			r.u.kw.key = key;
			r.u.kw.key_len = 13;
			r.u.kw.data = data;
			/* mostly 4 bytes (runs to merge); some 8, 5 (no
			 * structure), and redundancy 3 for 4 (refused) */
			r.u.kw.data_len = x % 7 == 3 ? 8 : x % 13 == 5 ? 5 : 4;
			r.u.kw.redundancy = (uint8_t)(x % 17 == 2 ? 3 : 1 + x % 2);
			if (i % 6 >= 4) { /* runs of direct increments too */
				r.opcode = DTA_OP_KEY_INCREMENT;
				r.u.ki.key = key;
				r.u.ki.key_len = 13;
				r.u.ki.redundancy = 2;
				r.u.ki.counter = x;
			}
			k = dta_wire_encode(&r, buf[i] + len, sizeof(buf[i]) - len);
			assert_true(k > 0);
			len += (size_t)k;
		}
		pl[i].buf = buf[i];
		pl[i].len = len;
		slot[i] = (uint16_t)(i / 5 % 2);
	}
	assert_true(dta_translator_process_batch_from(t, pl, slot, 30, 0) >= 0);
	assert_true(dta_translator_process_batch_from(t, pl + 30, slot + 30, 18,
						      1) >= 0);
	dta_translator_flush(t);
	dta_translator_stats(t, st);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(dta_translator_reporter_losses(t, i, &ls[i]), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(dta_translator_structure_losses(t, i, &ls[3 + i]), 0);
	dta_translator_destroy(t);
}

static void test_sink_merge_ops(void **state)
{
	struct local a, b;
	struct dta_translator_stats sa, sb;
	struct dta_translator_losses la[6], lb[6];

	(void)state;
	for (int fail = 0; fail < 2; fail++) {
		merge_run(0, fail, &a, &sa, la);
		merge_run(64, fail, &b, &sb, lb);
		assert_memory_equal(&sa, &sb, sizeof(sa));
		assert_memory_equal(la, lb, sizeof(la));
		for (unsigned s = 0; s < 3; s++)
			assert_memory_equal(a.a[s].mem, b.a[s].mem, a.a[s].size);
		assert_true(b.calls < a.calls / 2);
		assert_true(sa.reports[DTA_OP_KEY_WRITE] > 100);
		assert_true(sa.mismatch > 0 && sa.unknown_structure > 0);
		assert_true(sa.reports_immediate > 0);
		assert_true(sa.reports[DTA_OP_KEY_INCREMENT] > 50);
		if (fail)
			assert_int_equal(sa.sink_lost_reports,
					 sa.reports[DTA_OP_KEY_WRITE] +
					 sa.reports[DTA_OP_KEY_INCREMENT]);
		else
			assert_int_equal(sa.sink_lost_reports, 0);
		for (unsigned s = 0; s < 8; s++) {
			free(a.a[s].mem);
			free(b.a[s].mem);
		}
	}
}

static void test_bad_args(void **state)
{
	struct dta_sink nosubmit = { 0 };
	struct dta_translator *t;
	struct local lo = { 0 };
	struct dta_layout l;

	(void)state;
	assert_int_equal(dta_translator_create(NULL, &nosubmit, &t), -EINVAL);
	assert_int_equal(dta_translator_create(NULL, NULL, &t), -EINVAL);
	t = make(&lo, NULL);
	assert_int_equal(dta_translator_add(t, NULL, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, 64, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_translator_add(t, &l, 0), 0);
	assert_int_equal(dta_translator_set_ki_bank(t, 0, 0), -DTA_E_PRIMITIVE);
	assert_int_equal(dta_translator_set_ki_bank(t, 5, 0), -EINVAL);
	assert_int_equal(dta_translator_process(NULL, "x", 1, 0), -EINVAL);
	assert_int_equal(dta_translator_tick(NULL, 0), -EINVAL);
	dta_translator_destroy(t);
	dta_translator_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kw_routing),
		cmocka_unit_test(test_sink_merge_ops),
		cmocka_unit_test(test_pc_complete_and_fresh_entry),
		cmocka_unit_test(test_pc_eviction_writes_evicted_flow),
		cmocka_unit_test(test_pc_timeout),
		cmocka_unit_test(test_ap_batches_wrap_and_timeout),
		cmocka_unit_test(test_ki_direct_and_aggregated),
		cmocka_unit_test(test_seq_gap),
		cmocka_unit_test(test_seq_reorder_and_duplicates),
		cmocka_unit_test(test_seq_restart),
		cmocka_unit_test(test_seq_forged_far_ahead),
		cmocka_unit_test(test_seq_confirmed_jump),
		cmocka_unit_test(test_seq_report_between_bursts),
		cmocka_unit_test(test_malformed_by_cause),
		cmocka_unit_test(test_jumbo_payload),
		cmocka_unit_test(test_legacy_reports),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_owner_handoff),
		cmocka_unit_test(test_shards),
		cmocka_unit_test(test_batch_equals_process),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
