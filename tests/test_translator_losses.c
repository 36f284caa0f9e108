/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translator core: losses by reporter slot and by structure
 * (dta_translator_set_reporter_slots(), _process_batch_from(),
 * _count_input_from(), _reporter_losses(), _structure_losses()). Each
 * case sends payloads whose fate is known by construction and checks the
 * slot and structure counts against those hand-counted numbers, and that
 * the slots (the unattributed one included) and the structures sum to the
 * totals of dta_translator_stats() exactly.
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

struct local {
	uint8_t *mem[4];
	uint64_t size[4];
	int fail; /* submit fails */
};

static int local_submit(void *ctx, unsigned s, const struct dta_memop *ops,
			size_t n)
{
	struct local *lo = ctx;
	int k;

	if (lo->fail)
		return -EIO;
	k = dta_memops_apply(lo->mem[s], lo->size[s], ops, n);
	return k < 0 ? k : 0;
}

/* Structures: 0 kw (data 4, redundancy 2), 1 ap (lists 100..101, entry
 * 4, batch 4), 2 pc (2 hops). */
static struct dta_translator *make(struct local *lo, unsigned slots)
{
	struct dta_sink sink = { .submit = local_submit, .ctx = lo };
	struct dta_layout l[3];
	struct dta_translator *t;

	memset(lo, 0, sizeof(*lo));
	assert_int_equal(dta_layout_kw(&l[0], 1024, 4, 4, 2, DTA_HASH_CRC32C, 1), 0);
	assert_int_equal(dta_layout_ap(&l[1], 2, 4, 4, 4, 0), 0);
	assert_int_equal(dta_layout_pc(&l[2], 1024, 2, 4, 1, DTA_HASH_CRC32C, 2), 0);
	assert_int_equal(dta_translator_create(NULL, &sink, &t), 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(dta_translator_add(t, &l[i], i == 1 ? 100 : 0),
				 (int)i);
		lo->mem[i] = calloc(1, l[i].data_size);
		lo->size[i] = l[i].data_size;
		assert_non_null(lo->mem[i]);
	}
	if (slots)
		assert_int_equal(dta_translator_set_reporter_slots(t, slots), 0);
	return t;
}

static void release(struct dta_translator *t, struct local *lo)
{
	dta_translator_destroy(t);
	for (unsigned i = 0; i < 4; i++)
		free(lo->mem[i]);
}

static uint8_t key13[13] = { 10, 0, 0, 1, 10, 0, 0, 2, 0, 80, 0, 81, 6 };

/* Encode a v1 report: kw of @dlen data bytes, or ap of @dlen bytes to
 * @list, or a postcard for @hop; from wire reporter @rep, number @seq. */
static size_t kw(uint8_t *buf, uint16_t rep, uint32_t seq, unsigned dlen)
{
	static const uint8_t d[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE };
	int n;

	r.reporter = rep;
	r.seq = seq;
	r.u.kw.redundancy = 2;
	r.u.kw.key_len = 13;
	r.u.kw.key = key13;
	r.u.kw.data_len = (uint8_t)dlen;
	r.u.kw.data = d;
	n = dta_wire_encode(&r, buf, 256);
	assert_true(n > 0);
	return (size_t)n;
}

static size_t ap(uint8_t *buf, uint16_t rep, uint32_t seq, uint32_t list,
		 unsigned dlen)
{
	static const uint8_t d[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_APPEND };
	int n;

	r.reporter = rep;
	r.seq = seq;
	r.u.ap.list_id = list;
	r.u.ap.data_len = (uint8_t)dlen;
	r.u.ap.data = d;
	n = dta_wire_encode(&r, buf, 256);
	assert_true(n > 0);
	return (size_t)n;
}

static size_t pc(uint8_t *buf, uint16_t rep, uint32_t seq, unsigned hop)
{
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_POSTCARD };
	int n;

	r.reporter = rep;
	r.seq = seq;
	r.u.pc.hop = (uint8_t)hop;
	r.u.pc.path_len = hop < 2 ? 2 : 0; /* 0: the path length unknown */
	r.u.pc.key_len = 13;
	r.u.pc.key = key13;
	r.u.pc.value = 7;
	n = dta_wire_encode(&r, buf, 256);
	assert_true(n > 0);
	return (size_t)n;
}

/* One payload from slot @slot (UINT16_MAX: through the plain batch call). */
static int from(struct dta_translator *t, const uint8_t *buf, size_t len,
		uint16_t slot)
{
	struct dta_payload p = { buf, len };

	if (slot == UINT16_MAX)
		return dta_translator_process_batch(t, &p, 1, 0);
	return dta_translator_process_batch_from(t, &p, &slot, 1, 0);
}

static struct dta_translator_losses slot_of(struct dta_translator *t,
					    unsigned s)
{
	struct dta_translator_losses l;

	assert_int_equal(dta_translator_reporter_losses(t, s, &l), 0);
	return l;
}

/* Every loss field summed over slots 0..n (n the unattributed one) and
 * over structures equals the stats' field. */
static void check_sums(struct dta_translator *t, unsigned n)
{
	static const struct {
		size_t l, st;
		bool by_structure;
	} f[] = {
#define F(a, b, s) { offsetof(struct dta_translator_losses, a), \
		     offsetof(struct dta_translator_stats, b), s }
		F(socket_drops, socket_drops, false),
		F(rx_truncated, rx_truncated, false),
		F(refused_source, refused_source, false),
		F(malformed, malformed, false),
		F(seq_lost, seq_lost, false),
		F(unknown_structure, unknown_structure, false),
		F(mismatch, mismatch, true),
		F(sink_lost_reports, sink_lost_reports, true),
		F(sink_errors, sink_errors, true),
		F(int_malformed, int_malformed, false),
		F(int_unmapped, int_unmapped, false),
		F(int_mismatch, int_mismatch, true),
		F(int_seq_lost, int_seq_lost, false),
		F(malformed_truncated, malformed_truncated, false),
		F(malformed_version, malformed_version, false),
		F(malformed_opcode, malformed_opcode, false),
		F(malformed_field, malformed_field, false),
		F(malformed_ambiguous, malformed_ambiguous, false),
		F(malformed_too_many, malformed_too_many, false),
		F(int_malformed_truncated, int_malformed_truncated, false),
		F(int_malformed_version, int_malformed_version, false),
		F(int_malformed_unsupported, int_malformed_unsupported, false),
		F(int_malformed_length, int_malformed_length, false),
		F(int_malformed_hops, int_malformed_hops, false),
		F(int_malformed_other, int_malformed_other, false),
#undef F
	};
	struct dta_translator_stats st;

	dta_translator_stats(t, &st);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		uint64_t sum = 0, ssum = 0, want;
		struct dta_translator_losses l;

		memcpy(&want, (const char *)&st + f[i].st, 8);
		for (unsigned s = 0; s <= n; s++) {
			uint64_t v;

			l = slot_of(t, s);
			memcpy(&v, (const char *)&l + f[i].l, 8);
			sum += v;
		}
		for (unsigned s = 0; s < 3; s++) {
			uint64_t v;

			assert_int_equal(dta_translator_structure_losses(t, s, &l), 0);
			memcpy(&v, (const char *)&l + f[i].l, 8);
			ssum += v;
		}
		if (sum != want)
			fail_msg("loss field at %zu: slots sum to %llu, stats %llu",
				 f[i].l, (unsigned long long)sum,
				 (unsigned long long)want);
		if (f[i].by_structure && ssum != want)
			fail_msg("loss field at %zu: structures sum to %llu, "
				 "stats %llu", f[i].l, (unsigned long long)ssum,
				 (unsigned long long)want);
		if (!f[i].by_structure && ssum != 0)
			fail_msg("loss field at %zu counted by structure", f[i].l);
	}
}

/* Losses land in the slot of the payload that carried them. */
static void test_by_slot(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, 3);
	static const uint8_t junk[] = { 0xD1, 0x01, 0, 0 }; /* truncated */
	uint8_t b[256];
	struct dta_translator_losses l;
	size_t n;

	(void)state;
	/* slot 0: 2 malformed, wire reporter 5 numbers 0, 1, then 10:
	 * 2..9 (8) lost once settled */
	from(t, junk, sizeof(junk), 0);
	from(t, junk, sizeof(junk), 0);
	for (uint32_t s = 0; s < 2; s++)
		assert_int_equal(from(t, b, kw(b, 5, s, 4), 0), 1);
	assert_int_equal(from(t, b, kw(b, 5, 10, 4), 0), 1);
	/* slot 1: 3 reports of an unknown size, 1 Append of the wrong
	 * entry size (structure 1), 1 postcard for hop 5 of 2 (structure 2) */
	for (uint32_t s = 0; s < 3; s++)
		assert_int_equal(from(t, b, kw(b, 6, s, 8), 1), 0);
	assert_int_equal(from(t, b, ap(b, 6, 3, 101, 8), 1), 0);
	assert_int_equal(from(t, b, pc(b, 6, 4, 5), 1), 0);
	/* slot 2: what the receiver refused before the core */
	assert_int_equal(dta_translator_count_input_from(t, DTA_INPUT_REFUSED_SOURCE, 2, 4), 0);
	assert_int_equal(dta_translator_count_input_from(t, DTA_INPUT_TRUNCATED, 2, 1), 0);
	/* no slot: the kernel's drops, and a payload given without one */
	assert_int_equal(dta_translator_count_input(t, DTA_INPUT_SOCKET_DROP, 7), 0);
	from(t, junk, sizeof(junk), UINT16_MAX);
	/* a refused Key-Write (2 operations, redundancy 2) from slot 2 */
	lo.fail = 1;
	assert_int_equal(from(t, b, kw(b, 7, 0, 4), 2), 1);
	lo.fail = 0;

	/* Before the flush: slot 0's gap is still in the window. */
	l = slot_of(t, 0);
	assert_int_equal(l.malformed, 2);
	assert_int_equal(l.seq_lost, 0);
	check_sums(t, 3);
	assert_int_equal(dta_translator_flush(t), 0);

	l = slot_of(t, 0);
	assert_int_equal(l.malformed, 2);
	assert_int_equal(l.malformed_truncated, 2); /* 4 bytes of a header */
	assert_int_equal(l.seq_lost, 8);
	assert_int_equal(l.unknown_structure + l.mismatch + l.sink_lost_reports, 0);
	l = slot_of(t, 1);
	assert_int_equal(l.unknown_structure, 3);
	assert_int_equal(l.mismatch, 2);
	assert_int_equal(l.malformed + l.seq_lost, 0);
	l = slot_of(t, 2);
	assert_int_equal(l.refused_source, 4);
	assert_int_equal(l.rx_truncated, 1);
	assert_int_equal(l.sink_lost_reports, 1);
	assert_int_equal(l.sink_errors, 2);
	l = slot_of(t, 3); /* unattributed */
	assert_int_equal(l.socket_drops, 7);
	assert_int_equal(l.malformed, 1);
	assert_int_equal(l.sink_errors + l.mismatch, 0);

	assert_int_equal(dta_translator_structure_losses(t, 0, &l), 0);
	assert_int_equal(l.sink_errors, 2);
	assert_int_equal(l.sink_lost_reports, 1);
	assert_int_equal(l.mismatch, 0);
	assert_int_equal(dta_translator_structure_losses(t, 1, &l), 0);
	assert_int_equal(l.mismatch, 1);
	assert_int_equal(dta_translator_structure_losses(t, 2, &l), 0);
	assert_int_equal(l.mismatch, 1);
	check_sums(t, 3);

	/* Several payloads of several slots in one batch. */
	{
		uint8_t b2[3][256];
		struct dta_payload p[3];
		uint16_t sl[3] = { 1, 0, 0 };

		p[0] = (struct dta_payload){ b2[0], kw(b2[0], 8, 0, 8) };
		p[1] = (struct dta_payload){ junk, sizeof(junk) };
		n = kw(b2[2], 8, 1, 8);
		p[2] = (struct dta_payload){ b2[2], n };
		assert_int_equal(dta_translator_process_batch_from(t, p, sl, 3, 0), 0);
		/* decoded together, applied after: each report keeps its
		 * payload's slot */
		assert_int_equal(slot_of(t, 1).unknown_structure, 4);
		assert_int_equal(slot_of(t, 0).unknown_structure, 1);
		assert_int_equal(slot_of(t, 0).malformed, 3);
	}
	check_sums(t, 3);
	release(t, &lo);
}

/* An Append batch and a Postcarding chunk hold several reporters' data:
 * their sink losses are unattributed, and counted in their structure. */
static void test_shared_data_unattributed(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, 2);
	uint8_t b[256];
	struct dta_translator_losses l;

	(void)state;
	/* 3 entries of list 100 from slots 0, 1, 0: a partial batch */
	assert_int_equal(from(t, b, ap(b, 1, 0, 100, 4), 0), 1);
	assert_int_equal(from(t, b, ap(b, 2, 0, 100, 4), 1), 1);
	assert_int_equal(from(t, b, ap(b, 1, 1, 100, 4), 0), 1);
	/* hop 0 of a flow from slot 1 (its chunk waits for hop 1) */
	assert_int_equal(from(t, b, pc(b, 2, 1, 0), 1), 1);
	lo.fail = 1;
	/* the 4th entry from slot 1 fills the batch: written, refused */
	assert_int_equal(from(t, b, ap(b, 2, 2, 100, 4), 1), 1);
	/* hop 1 from slot 0 completes the chunk: written, refused */
	assert_int_equal(from(t, b, pc(b, 1, 2, 1), 0), 1);
	lo.fail = 0;
	assert_int_equal(slot_of(t, 0).sink_lost_reports, 0);
	assert_int_equal(slot_of(t, 1).sink_lost_reports, 0);
	l = slot_of(t, 2);
	assert_int_equal(l.sink_lost_reports, 4 + 2);
	assert_int_equal(dta_translator_structure_losses(t, 1, &l), 0);
	assert_int_equal(l.sink_lost_reports, 4);
	assert_true(l.sink_errors >= 1);
	assert_int_equal(dta_translator_structure_losses(t, 2, &l), 0);
	assert_int_equal(l.sink_lost_reports, 2);
	assert_int_equal(l.sink_errors, 1); /* redundancy 1 */
	check_sums(t, 2);
	release(t, &lo);
}

/* INT datagrams: malformed and unmapped ones (no map) by slot. */
static void test_int(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, 2);
	static const uint8_t junk[] = { 0x30, 0, 0 };
	struct dta_payload p = { junk, sizeof(junk) };
	uint16_t s = 1;

	(void)state;
	assert_int_equal(dta_translator_process_int_batch_from(t, &p, &s, 1, 0), 0);
	assert_int_equal(dta_translator_process_int_batch(t, &p, 1, 0), 0);
	assert_int_equal(slot_of(t, 1).int_malformed, 1);
	assert_int_equal(slot_of(t, 2).int_malformed, 1);
	s = 2; /* out of range: 2 slots, 0 and 1 */
	assert_int_equal(dta_translator_process_int_batch_from(t, &p, &s, 1, 0),
			 -EINVAL);
	check_sums(t, 2);
	release(t, &lo);
}

struct worker {
	struct dta_translator *t;
	uint16_t slot;
};

/* 1000 payloads from the worker's slot: every 10th malformed, every 10th
 * (others) of a size no structure takes, the rest applied; in batches of
 * 8, as a receiver hands them over. */
static void *work(void *arg)
{
	struct worker *w = arg;
	static const uint8_t junk[] = { 0xD1, 0x01, 0, 0 };
	uint8_t b[8][256];
	struct dta_payload p[8];
	uint16_t sl[8];

	for (unsigned i = 0; i < 1000; i += 8) {
		for (unsigned j = 0; j < 8; j++) {
			unsigned k = i + j;

			sl[j] = w->slot;
			if (k % 10 == 0)
				p[j] = (struct dta_payload){ junk, sizeof(junk) };
			else
				p[j] = (struct dta_payload){
					b[j], kw(b[j], (uint16_t)(100 + w->slot), k,
						 k % 10 == 5 ? 8 : 4) };
		}
		dta_translator_process_batch_from(w->t, p, sl, 8, 0);
	}
	return NULL;
}

/* Four threads, a slot each, at once: each slot holds exactly its own
 * thread's losses, and the sums are the totals. */
static void test_threads(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, 4);
	struct worker w[4];
	pthread_t th[4];

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		w[i] = (struct worker){ t, (uint16_t)i };
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(dta_translator_flush(t), 0);
	for (unsigned i = 0; i < 4; i++) {
		struct dta_translator_losses l = slot_of(t, i);

		/* numbers 1-999 sent but 10, 20 ... 990 (the malformed
		 * payloads' turns): 99 gaps (0 is before the first report,
		 * not known missing) */
		assert_int_equal(l.malformed, 100);
		assert_int_equal(l.unknown_structure, 100);
		assert_int_equal(l.seq_lost, 99);
	}
	check_sums(t, 4);
	release(t, &lo);
}

/* Without slots the _from calls are the plain ones; bad arguments. */
/* The last report each structure refused for its sizes, as it carried
 * them (dta_translator_last_mismatch()). Structures of make(): kw data 4
 * redundancy up to 2, ap lists 100..101 of 4-byte entries, pc 2 hops. */
static void test_last_mismatch(void **state)
{
	static const uint8_t d[4] = { 1, 2, 3, 4 };
	struct local lo;
	struct dta_translator *t = make(&lo, 0);
	struct dta_translator_mismatch m;
	struct dta_translator_losses l;
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE };
	uint8_t b[256];
	int n;

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(dta_translator_last_mismatch(t, i, &m), 0);
		assert_int_equal(m.opcode, 0);
	}
	/* Append: an 8-byte entry for list 101, then a 6-byte one for 100:
	 * the last is kept. A fitting entry changes nothing. */
	assert_int_equal(from(t, b, ap(b, 1, 0, 101, 8), UINT16_MAX), 0);
	assert_int_equal(from(t, b, ap(b, 1, 1, 100, 6), UINT16_MAX), 0);
	assert_int_equal(from(t, b, ap(b, 1, 2, 100, 4), UINT16_MAX), 1);
	assert_int_equal(dta_translator_last_mismatch(t, 1, &m), 1);
	assert_int_equal(m.opcode, DTA_OP_APPEND);
	assert_int_equal(m.received, 6);
	assert_int_equal(m.detail, 100);
	assert_int_equal(dta_translator_structure_losses(t, 1, &l), 0);
	assert_int_equal(l.mismatch, 2);
	/* Postcarding: hop 3 of a path of unknown length (0), 2 hops kept. */
	assert_int_equal(from(t, b, pc(b, 2, 0, 3), UINT16_MAX), 0);
	assert_int_equal(dta_translator_last_mismatch(t, 2, &m), 1);
	assert_int_equal(m.opcode, DTA_OP_POSTCARD);
	assert_int_equal(m.received, 3);
	assert_int_equal(m.detail, 0);
	/* Key-Write: the data size fits, redundancy 3 is over the 2 kept. */
	r.reporter = 3;
	r.u.kw.redundancy = 3;
	r.u.kw.key_len = 13;
	r.u.kw.key = key13;
	r.u.kw.data_len = 4;
	r.u.kw.data = d;
	n = dta_wire_encode(&r, b, sizeof(b));
	assert_true(n > 0);
	assert_int_equal(from(t, b, (size_t)n, UINT16_MAX), 0);
	assert_int_equal(dta_translator_last_mismatch(t, 0, &m), 1);
	assert_int_equal(m.opcode, DTA_OP_KEY_WRITE);
	assert_int_equal(m.received, 4);
	assert_int_equal(m.detail, 3);
	assert_int_equal(dta_translator_structure_losses(t, 0, &l), 0);
	assert_int_equal(l.mismatch, 1);
	/* Negative. */
	assert_int_equal(dta_translator_last_mismatch(t, 3, &m), -EINVAL);
	assert_int_equal(dta_translator_last_mismatch(NULL, 0, &m), -EINVAL);
	assert_int_equal(dta_translator_last_mismatch(t, 0, NULL), -EINVAL);
	release(t, &lo);
}

static void test_negative(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, 0);
	struct dta_translator_losses l;
	struct dta_translator_stats st;
	uint8_t b[256];
	struct dta_payload p;
	uint16_t s = 9;

	(void)state;
	p = (struct dta_payload){ b, kw(b, 1, 0, 8) };
	/* slots off: the slot is not looked at */
	assert_int_equal(dta_translator_process_batch_from(t, &p, &s, 1, 0), 0);
	assert_int_equal(dta_translator_count_input_from(t, DTA_INPUT_TRUNCATED, 9, 1), 0);
	dta_translator_stats(t, &st);
	assert_int_equal(st.unknown_structure, 1);
	assert_int_equal(st.rx_truncated, 1);
	assert_int_equal(dta_translator_reporter_losses(t, 0, &l), -EINVAL);
	assert_int_equal(dta_translator_structure_losses(t, 3, &l), -EINVAL);
	assert_int_equal(dta_translator_structure_losses(NULL, 0, &l), -EINVAL);
	assert_int_equal(dta_translator_structure_losses(t, 0, NULL), -EINVAL);
	assert_int_equal(dta_translator_set_reporter_slots(NULL, 1), -EINVAL);
	assert_int_equal(dta_translator_set_reporter_slots(t, DTA_REPORTER_SLOTS_MAX + 1),
			 -EINVAL);
	assert_int_equal(dta_translator_set_reporter_slots(t, 2), 0);
	assert_int_equal(dta_translator_set_reporter_slots(t, 2), -EBUSY);
	/* slot 2 is the unattributed one: not a payload's */
	s = 2;
	assert_int_equal(dta_translator_process_batch_from(t, &p, &s, 1, 0), -EINVAL);
	dta_translator_stats(t, &st);
	assert_int_equal(st.packets, 1); /* nothing of it processed */
	assert_int_equal(dta_translator_reporter_losses(t, 3, &l), -EINVAL);
	assert_int_equal(dta_translator_reporter_losses(t, 2, &l), 0);
	assert_int_equal(dta_translator_count_input_from(t, 9, 0, 1), -EINVAL);
	assert_int_equal(dta_translator_count_input_from(t, DTA_INPUT_TRUNCATED, 3, 1),
			 -EINVAL);
	assert_int_equal(dta_translator_count_input_from(NULL, DTA_INPUT_TRUNCATED, 0, 1),
			 -EINVAL);
	assert_int_equal(dta_translator_process_batch_from(NULL, &p, &s, 1, 0), -EINVAL);
	release(t, &lo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_slot),
		cmocka_unit_test(test_shared_data_unattributed),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_last_mismatch),
		cmocka_unit_test(test_negative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
