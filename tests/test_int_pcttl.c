/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INT postcards placed by falling TTL (docs/int.md "Hop index"): reports
 * assembled by hand from the Telemetry Report v1.0 table (16-byte header,
 * no optional metadata, F set; the switch id in the header is the hop's
 * value) around inner IPv4/UDP and IPv6/UDP packets whose TTL the test
 * chooses for each hop of a path it builds. Hosts start at 64, 128, 255,
 * 60, 100 and 32; switches copy before or after their decrement; paths of
 * 1 to 4 hops; postcards out of order and interleaved across flows. The
 * path each flow gets is read back with dta_pc_query() (the query side,
 * which knows nothing of TTLs) and compared with the path the test built;
 * every counter is checked exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dta/dta.h"

#define HOPS 4        /* B of the path structure */
#define TIMEOUT 10000000ull /* the translator's default pc_timeout_ns */

struct local {
	uint8_t *mem;
	uint64_t size;
	struct dta_layout l;
	uint32_t seq[256]; /* next sequence number per switch id */
};

static int local_submit(void *ctx, unsigned s, const struct dta_memop *ops,
			size_t n)
{
	struct local *lo = ctx;
	int k;

	assert_int_equal(s, 0);
	k = dta_memops_apply(lo->mem, lo->size, ops, n);
	return k < 0 ? k : 0;
}

/* A translator whose only INT role is a Postcarding path of HOPS hops,
 * placed by @order. */
static struct dta_translator *make(struct local *lo, unsigned order)
{
	struct dta_sink sink = { .submit = local_submit, .ctx = lo };
	struct dta_translator *t;
	struct dta_int_map m;

	memset(lo, 0, sizeof(*lo));
	assert_int_equal(dta_layout_pc(&lo->l, 4096, HOPS, 4, 2,
				       DTA_HASH_CRC32C, 2), 0);
	assert_int_equal(dta_translator_create(NULL, &sink, &t), 0);
	assert_int_equal(dta_translator_add(t, &lo->l, 0), 0);
	lo->mem = calloc(1, lo->l.data_size);
	lo->size = lo->l.data_size;
	assert_non_null(lo->mem);
	dta_int_map_init(&m);
	m.path_pc = 0;
	m.pc_order = order;
	assert_int_equal(dta_translator_set_int_map(t, &m), 0);
	return t;
}

static void release(struct dta_translator *t, struct local *lo)
{
	dta_translator_destroy(t);
	free(lo->mem);
}

static struct dta_translator_stats stats(struct dta_translator *t)
{
	struct dta_translator_stats st;

	dta_translator_stats(t, &st);
	return st;
}

/*
 * One postcard: switch @sw saw flow @flow's packet with TTL @ttl. IPv4
 * flows are 10.0.<flow>.1:1234 -> 10.0.0.2:80/udp, IPv6 ones
 * 2001:db8::<flow>:1234 -> 2001:db8::2:80/udp. @flags: the D/Q/F byte.
 * Returns what dta_translator_process_int() returns.
 */
static int postcard(struct dta_translator *t, struct local *lo, bool v6,
		    uint8_t flow, uint8_t sw, uint8_t ttl, uint8_t qf,
		    uint64_t now)
{
	uint8_t p[128];
	size_t o = 0;
	uint32_t seq = lo->seq[sw]++;
	/* TR v1.0 "Telemetry Report Header": Ver=1 | Length=4 words (the
	 * fixed 16 bytes, no optional metadata) */
	p[o++] = 0x14;
	/* NProt=1 (IPv4) or 2 (IPv6) | RepMdBits high 5 bits 0 */
	p[o++] = v6 ? 0x40 : 0x20;
	/* RepMdBits low bit 0 | Reserved | D (the caller's 0x08 bit) */
	p[o++] = qf & 0x08 ? 0x01 : 0x00;
	/* Q (0x04) F (0x02) | hw_id=0 */
	p[o++] = (uint8_t)((qf & 0x04 ? 0x80 : 0) | (qf & 0x02 ? 0x40 : 0));
	/* Switch id */
	p[o++] = 0, p[o++] = 0, p[o++] = 0, p[o++] = sw;
	/* Sequence Number: each switch its own, consecutive */
	p[o++] = (uint8_t)(seq >> 24), p[o++] = (uint8_t)(seq >> 16);
	p[o++] = (uint8_t)(seq >> 8), p[o++] = (uint8_t)seq;
	/* Ingress Timestamp */
	p[o++] = 0, p[o++] = 0, p[o++] = 0x10, p[o++] = sw;
	if (!v6) {
		/* RFC 791: version 4 IHL 5, TOS 0, total 28, id 1, no
		 * fragment, TTL, UDP, checksum 0, 10.0.<flow>.1 -> 10.0.0.2 */
		const uint8_t ip[20] = { 0x45, 0, 0, 28, 0, 1, 0, 0, ttl, 17,
					 0, 0, 10, 0, flow, 1, 10, 0, 0, 2 };

		memcpy(p + o, ip, 20);
		o += 20;
	} else {
		/* RFC 8200: version 6, payload 8, UDP, hop limit,
		 * 2001:db8::<flow> -> 2001:db8::2 */
		const uint8_t ip[40] = {
			0x60, 0, 0, 0, 0, 8, 17, ttl,
			0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			0, 0, 0, 0, 0, 0, 0, flow,
			0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			0, 0, 0, 0, 0, 0, 0, 2,
		};

		memcpy(p + o, ip, 40);
		o += 40;
	}
	/* RFC 768: 1234 -> 80, length 8, checksum 0 */
	const uint8_t udp[8] = { 0x04, 0xD2, 0x00, 0x50, 0, 8, 0, 0 };

	memcpy(p + o, udp, 8);
	o += 8;
	return dta_translator_process_int(t, p, o, now);
}

/* docs/keys.md: the 13- or 37-byte key of the flows postcard() sends. */
static size_t flow_key(uint8_t *k, bool v6, uint8_t flow)
{
	if (!v6) {
		const uint8_t v[13] = { 10, 0, flow, 1, 10, 0, 0, 2, 0x04, 0xD2,
					0x00, 0x50, 17 };

		memcpy(k, v, 13);
		return 13;
	}
	const uint8_t v[37] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, flow,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		0x04, 0xD2, 0x00, 0x50, 17,
	};

	memcpy(k, v, 37);
	return 37;
}

/* The path the structure holds for @flow, by the query side: @n switch
 * ids @want, first hop first (0: not found). */
static void expect_path(const struct local *lo, bool v6, uint8_t flow,
			unsigned n, const uint8_t *want)
{
	uint32_t ids[255];
	uint8_t key[37];
	size_t kl = flow_key(key, v6, flow);
	struct dta_pc_codebook *cb;
	struct dta_pc_result res;

	for (unsigned i = 0; i < 255; i++)
		ids[i] = i + 1;
	assert_int_equal(dta_pc_codebook_create(&lo->l, ids, 255, &cb), 0);
	assert_int_equal(dta_pc_query(&lo->l, lo->mem, cb, key, kl, 0, &res),
			 0);
	dta_pc_codebook_destroy(cb);
	if (!n) {
		assert_int_equal(res.status, DTA_Q_NOT_FOUND);
		return;
	}
	if (res.status != DTA_Q_FOUND || res.path_len != n)
		print_error("flow %u: status %d, %u hops, want %u\n", flow,
			    res.status, res.path_len, n);
	assert_int_equal(res.status, DTA_Q_FOUND);
	assert_int_equal(res.path_len, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(res.values[i], want[i]);
}

/* Switch of hop @h of flow @f: distinct for every (flow, hop). */
static uint8_t sw_of(unsigned f, unsigned h)
{
	return (uint8_t)(4 * f + h + 1);
}

/* Hosts at initial TTLs 64, 128, 255 (guessed right by the absolute rule),
 * 60, 100 and 32, switches copying before (TTL init - h) and after
 * (init - h - 1) their decrement, paths of 1-4 hops, IPv4 and IPv6: every
 * path exact. Complete paths (4 hops) are written at once, shorter ones on
 * the flush. */
static void test_initial_ttls(void **state)
{
	static const uint8_t init[] = { 64, 128, 255, 60, 100, 32 };
	struct local lo;
	struct dta_translator *t = make(&lo, DTA_INT_PC_BY_TTL);
	unsigned f = 0, sent = 0, full = 0, part = 0;
	uint8_t want[60][HOPS];
	unsigned len[60];

	(void)state;
	for (unsigned i = 0; i < sizeof(init); i++)
		for (unsigned egress = 0; egress < 2; egress++)
			for (unsigned n = 1; n <= HOPS; n++, f++) {
				bool v6 = f % 2;

				len[f] = n;
				for (unsigned h = 0; h < n; h++) {
					uint8_t ttl = (uint8_t)(init[i] - h -
								egress);

					want[f][h] = sw_of(f, h);
					assert_int_equal(
						postcard(t, &lo, v6, (uint8_t)f,
							 sw_of(f, h), ttl, 0x02,
							 0),
						1);
					sent++;
				}
				if (n == HOPS)
					full++;
				else
					part++;
			}
	assert_int_equal(stats(t).pc_emitted, full);
	assert_int_equal(dta_translator_flush(t), 0);
	for (unsigned g = 0; g < f; g++)
		expect_path(&lo, g % 2, (uint8_t)g, len[g], want[g]);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_reports_in, sent);
	assert_int_equal(st.int_applied, sent);
	assert_int_equal(st.int_unmapped, 0);
	assert_int_equal(st.int_mismatch, 0);
	assert_int_equal(st.int_seq_lost, 0);
	assert_int_equal(st.pc_emitted, full);
	assert_int_equal(st.pc_timeouts, part);
	assert_int_equal(st.pc_evictions, 0);
	assert_int_equal(st.pc_hops_dropped, 0);
	assert_int_equal(st.pc_duplicates, 0);
	assert_int_equal(st.pc_ttl_ties, 0);
	release(t, &lo);
}

/* The same hosts by the absolute rule (ttl_init 0: guessed): 64, 128 and
 * 255 before the decrement are exact; after it hop 0 is never written
 * (the path is not found, its postcards are dropped); 60 and 100 are
 * guessed 64 and 128, so every hop lands 4 or 28 places late: past B,
 * int_mismatch. This is what the TTL order fixes. */
static void test_absolute_rule(void **state)
{
	static const struct {
		uint8_t init, egress, found, dropped, mismatch;
	} c[] = {
		{ 64, 0, 3, 0, 0 },  { 128, 0, 3, 0, 0 }, { 255, 0, 3, 0, 0 },
		{ 64, 1, 0, 3, 0 },  /* hops 1-3: in B, but no hop 0 */
		{ 60, 0, 0, 0, 3 },  /* hops 4, 5, 6 */
		{ 100, 0, 0, 0, 3 }, /* hops 28, 29, 30 */
	};
	struct local lo;
	struct dta_translator *t = make(&lo, DTA_INT_PC_ABSOLUTE);
	uint64_t dropped = 0, mismatch = 0;

	(void)state;
	for (uint8_t f = 0; f < sizeof(c) / sizeof(c[0]); f++) {
		uint8_t want[3];

		for (unsigned h = 0; h < 3; h++) {
			want[h] = sw_of(f, h);
			postcard(t, &lo, false, f, sw_of(f, h),
				 (uint8_t)(c[f].init - h - c[f].egress), 0x02, 0);
		}
		dropped += c[f].dropped;
		mismatch += c[f].mismatch;
		assert_int_equal(dta_translator_flush(t), 0);
		expect_path(&lo, false, f, c[f].found, want);
	}
	assert_int_equal(stats(t).pc_hops_dropped, dropped);
	assert_int_equal(stats(t).int_mismatch, mismatch);
	assert_int_equal(stats(t).pc_ttl_ties, 0);
	release(t, &lo);
}

/* Two flows' postcards interleaved and out of order, hop 0 of each last
 * or in the middle: the hops placed so far move down when a higher TTL
 * arrives, and both paths come out exact, written once each when the
 * fourth hop is in. Host TTLs 100 and 60, copies after the decrement. */
static void test_out_of_order(void **state)
{
	/* (flow, hop) in arrival order */
	static const uint8_t order[][2] = {
		{ 0, 2 }, { 1, 3 }, { 0, 3 }, { 1, 1 },
		{ 0, 1 }, { 1, 0 }, { 0, 0 }, { 1, 2 },
	};
	static const uint8_t init[2] = { 100, 60 };
	struct local lo;
	struct dta_translator *t = make(&lo, DTA_INT_PC_BY_TTL);
	uint8_t want[2][HOPS];

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		unsigned f = order[i][0], h = order[i][1];

		assert_int_equal(postcard(t, &lo, f == 1, (uint8_t)f,
					  sw_of(f, h),
					  (uint8_t)(init[f] - h - 1), 0x02,
					  1000 * i),
				 1);
		want[f][h] = sw_of(f, h);
	}
	/* both complete before any flush or tick */
	assert_int_equal(stats(t).pc_emitted, 2);
	expect_path(&lo, false, 0, HOPS, want[0]);
	expect_path(&lo, true, 1, HOPS, want[1]);
	assert_int_equal(dta_translator_flush(t), 0);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.pc_emitted, 2);
	assert_int_equal(st.pc_timeouts, 0);
	assert_int_equal(st.pc_hops_dropped, 0);
	assert_int_equal(st.pc_ttl_ties, 0);
	assert_int_equal(st.int_applied, 8);
	release(t, &lo);
}

/* A path of 5 hops into B = 4: the lowest TTL is past B (int_mismatch).
 * Hops 1-4 first fill B and are written as a path from hop 1; hop 0
 * then moves them down, pushes hop 4 out (pc_hops_dropped) and the path
 * is written again, right. */
static void test_longer_than_b(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, DTA_INT_PC_BY_TTL);
	const uint8_t want[HOPS] = { 11, 12, 13, 14 };
	const uint8_t early[HOPS] = { 12, 13, 14, 15 };

	(void)state;
	/* flow 1: hops 0-4 in order at switches 11-15, host TTL 64 */
	for (unsigned h = 0; h < 5; h++)
		postcard(t, &lo, false, 1, (uint8_t)(11 + h),
			 (uint8_t)(64 - h), 0x02, 0);
	expect_path(&lo, false, 1, HOPS, want);
	assert_int_equal(stats(t).int_mismatch, 1);
	/* flow 2: hops 1-4 first, then hop 0 */
	for (unsigned h = 1; h < 5; h++)
		postcard(t, &lo, false, 2, (uint8_t)(11 + h),
			 (uint8_t)(64 - h), 0x02, 0);
	expect_path(&lo, false, 2, HOPS, early);
	postcard(t, &lo, false, 2, 11, 64, 0x02, 0);
	expect_path(&lo, false, 2, HOPS, want);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_mismatch, 1);
	assert_int_equal(st.pc_hops_dropped, 1);
	assert_int_equal(st.pc_emitted, 3);
	assert_int_equal(st.int_reports_in, 10);
	assert_int_equal(st.int_applied, 9);
	assert_int_equal(st.int_unmapped, 1);
	release(t, &lo);
}

/* The same postcard twice (a second packet of the flow) is a duplicate
 * and writes nothing new; another switch at a TTL already held is a tie:
 * not placed, counted; a drop report without F (an event) is not a
 * postcard of the path. */
static void test_duplicates_and_ties(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, DTA_INT_PC_BY_TTL);
	const uint8_t want[2] = { 21, 22 };

	(void)state;
	/* an untracked drop report of switch 30 at TTL 70: an event only;
	 * the map has no events role, so nothing takes it */
	assert_int_equal(postcard(t, &lo, false, 3, 30, 70, 0x08, 0), 0);
	postcard(t, &lo, false, 3, 21, 63, 0x02, 0);
	postcard(t, &lo, false, 3, 22, 62, 0x02, 0);
	postcard(t, &lo, false, 3, 21, 63, 0x02, 0); /* second packet */
	postcard(t, &lo, false, 3, 22, 62, 0x02, 0);
	postcard(t, &lo, false, 3, 29, 62, 0x02, 0); /* tie at hop 1 */
	/* a tracked drop report (D and F) is a postcard: hop 1 again */
	postcard(t, &lo, false, 3, 22, 62, 0x0A, 0);
	assert_int_equal(dta_translator_flush(t), 0);
	expect_path(&lo, false, 3, 2, want);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.pc_duplicates, 3);
	assert_int_equal(st.pc_ttl_ties, 1);
	assert_int_equal(st.pc_timeouts, 1);
	assert_int_equal(st.int_unmapped, 1);
	assert_int_equal(st.int_applied, 6);
	release(t, &lo);
}

/* A packet's postcards split by the timeout tick: the entry written on
 * the tick stays as the flow's anchor, so hops 2 and 3 arriving after
 * it are placed below the same hop 0 (without it they would start a new
 * path at hop 0). Two timeouts later with nothing new, the entry is freed
 * without a write. */
static void test_anchor_across_tick(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, DTA_INT_PC_BY_TTL);
	const uint8_t two[2] = { 41, 42 }, four[HOPS] = { 41, 42, 43, 44 };

	(void)state;
	postcard(t, &lo, true, 5, 41, 100, 0x02, 0);
	postcard(t, &lo, true, 5, 42, 99, 0x02, 1);
	/* one write of the flow's 2 copies (redundancy 2) */
	assert_int_equal(dta_translator_tick(t, TIMEOUT + 1), 2);
	assert_int_equal(stats(t).pc_timeouts, 1);
	expect_path(&lo, true, 5, 2, two);
	postcard(t, &lo, true, 5, 44, 97, 0x02, TIMEOUT + 2);
	postcard(t, &lo, true, 5, 43, 98, 0x02, TIMEOUT + 3);
	expect_path(&lo, true, 5, HOPS, four);
	assert_int_equal(stats(t).pc_emitted, 1);
	/* nothing new: freed, not written again (no operation) */
	assert_int_equal(dta_translator_tick(t, 3 * TIMEOUT + 10), 0);
	assert_int_equal(dta_translator_tick(t, 5 * TIMEOUT + 10), 0);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.pc_timeouts, 1);
	assert_int_equal(st.pc_emitted, 1);
	assert_int_equal(st.pc_hops_dropped, 0);
	/* a new packet after the entry is gone starts afresh, and its
	 * hop 0 is again the highest TTL */
	postcard(t, &lo, true, 5, 41, 100, 0x02, 6 * TIMEOUT);
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).pc_timeouts, 2);
	{
		const uint8_t one[1] = { 41 };

		expect_path(&lo, true, 5, 1, one);
	}
	release(t, &lo);
}

/* The map refuses an order it does not know. */
static void test_order_checked(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo, DTA_INT_PC_BY_TTL);
	struct dta_int_map m;

	(void)state;
	dta_int_map_init(&m);
	assert_int_equal(m.pc_order, DTA_INT_PC_BY_TTL);
	m.path_pc = 0;
	m.pc_order = 2;
	assert_int_equal(dta_translator_set_int_map(t, &m), -EINVAL);
	release(t, &lo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initial_ttls),
		cmocka_unit_test(test_absolute_rule),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_longer_than_b),
		cmocka_unit_test(test_duplicates_and_ties),
		cmocka_unit_test(test_anchor_across_tick),
		cmocka_unit_test(test_order_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
