/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 frame builder and reply parser (lib/src/roce.c). The reference
 * frame below was checked byte for byte against scapy's contrib/roce.py
 * (tests/roce/scapy_check.py repeats that for many frames where scapy is
 * installed); here it guards against regressions without scapy.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dta/dta.h"
#include "tools.h"
#include "tools/roce_reply.h"

/* RC RDMA WRITE Only of deadbeef to 0x7f0000001000, R_Key 0x1234, QPN 0x11,
 * PSN 0, AckReq, from 02:..:01 192.0.2.2:49152 to 02:..:02 192.0.2.1. */
static const char ref_write[] =
	"020000000002020000000001080045000040000040004011b6a9c0000202c0000201"
	"c00012b7002c00000a00ffff000000118000000000007f00000010000000123400000004"
	"deadbeef618e79a3";

static struct dta_roce_qp test_qp(void)
{
	struct dta_roce_qp qp = { .src_mac = { 2, 0, 0, 0, 0, 1 },
				  .dst_mac = { 2, 0, 0, 0, 0, 2 },
				  .src_ip = 0xC0000202, .dst_ip = 0xC0000201,
				  .src_port = 49152, .dst_qpn = 0x11,
				  .pkey = 0xFFFF, .ack_req = true };
	return qp;
}

static void test_reference_write(void **state)
{
	struct dta_roce_qp qp = test_qp();
	struct dta_roce_target t = { .addr = 0x7f0000001000, .rkey = 0x1234,
				     .length = 4096 };
	const uint8_t data[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct dta_memop op = { .kind = DTA_MEMOP_WRITE, .len = 4, .data = data };
	uint8_t want[128], got[128];
	size_t n = (size_t)tool_unhex(ref_write, want, sizeof(want));
	struct dta_roce_packet p;

	(void)state;
	assert_int_equal(dta_roce_build(&qp, &t, &op, got, sizeof(got)), (int)n);
	assert_memory_equal(got, want, n);
	assert_int_equal(qp.psn, 1);
	assert_int_equal(qp.ip_id, 1);
	/* Our parser reads our request back, ICRC and all. */
	assert_int_equal(dta_roce_parse(got, n, &p), 0);
	assert_int_equal(p.kind, DTA_ROCE_REQUEST);
	assert_int_equal(p.opcode, DTA_ROCE_OP_WRITE_ONLY);
	assert_int_equal(p.qpn, 0x11);
	assert_int_equal(p.psn, 0);
	/* Every truncation is an error, never a read past the end. */
	for (size_t len = 0; len < n; len++)
		assert_true(dta_roce_parse(got, len, &p) < 0);
	/* A flipped payload bit fails the ICRC. */
	got[n - 6] ^= 1;
	assert_int_equal(dta_roce_parse(got, n, &p), -EBADMSG);
}

/*
 * The ICRC input of a built frame (n bytes, Ethernet to ICRC) as the P4
 * programs list its fields: 8 bytes of ones, then IPv4 to the end of the
 * payload with TOS, TTL, the checksums and BTH's FECN/BECN/reserved byte
 * all ones. Returns its length; checks the frame's ICRC over it.
 */
static size_t icrc_input(const uint8_t *frame, size_t n, uint8_t *in)
{
	size_t len = n - 14 - 4;
	uint32_t want = (uint32_t)frame[n - 4] | (uint32_t)frame[n - 3] << 8 |
			(uint32_t)frame[n - 2] << 16 | (uint32_t)frame[n - 1] << 24;

	assert_int_equal(want, dta_roce_icrc(frame + 14, len));
	memset(in, 0xff, 8);
	memcpy(in + 8, frame + 14, len);
	in[8 + 1] = 0xff;                        /* TOS */
	in[8 + 8] = 0xff;                        /* TTL */
	in[8 + 10] = in[8 + 11] = 0xff;          /* IPv4 checksum */
	in[8 + 26] = in[8 + 27] = 0xff;          /* UDP checksum */
	in[8 + 28 + 4] = 0xff;                   /* FECN, BECN, reserved */
	assert_int_equal(dta_crc32(0, in, 8 + len), want);
	return 8 + len;
}

/*
 * translator-p4/tna computes the ICRC of a 16-entry Append frame (144 bytes
 * of ICRC input, more than one Tofino hash takes) in two hashes: standard
 * CRC-32 over the frame with entries 8..15 (32 bytes, before the 8-byte
 * trailer) zeroed, XOR CRC-32 with zero initial value and final XOR over
 * those entries followed by 8 zero bytes (CRC is affine over GF(2)). Check
 * that split, at the program's boundary, against dta_roce_icrc().
 */
static void test_icrc_split(void **state)
{
	struct dta_roce_qp qp = test_qp();
	struct dta_roce_target t = { .addr = 0x7f00fffffff0ull, .rkey = 0x77,
				     .length = 1 << 20 };
	uint8_t frame_data[80], frame[256], in[256], part[40];
	struct dta_memop op = { .kind = DTA_MEMOP_WRITE, .offset = 4096,
				.len = sizeof(frame_data),
				.data = frame_data };
	struct dta_hashfn lin = { .kind = DTA_HASHFN_CRC32, .poly = 0x04C11DB7 };
	const size_t tail = 40;
	uint32_t want, head;
	size_t n, len;
	int rc;

	(void)state;
	for (size_t i = 0; i < sizeof(frame_data); i++)
		frame_data[i] = (uint8_t)(i * 37 + 11);
	rc = dta_roce_build(&qp, &t, &op, frame, sizeof(frame));
	assert_true(rc > 0);
	n = (size_t)rc;
	want = dta_roce_icrc(frame + 14, n - 14 - 4);
	/* no padding for 80 bytes */
	len = icrc_input(frame, n, in);
	assert_int_equal(len, 144);
	assert_int_equal(dta_hashfn_prepare(&lin), 0);
	/* Entries 8 to 15: the 32 bytes before the 8-byte trailer */
	memset(in + len - tail, 0, tail - 8);
	head = dta_crc32(0, in, len);
	memset(part, 0, sizeof(part));
	memcpy(part, frame + n - 4 - tail, tail - 8);
	assert_int_equal(head ^ (uint32_t)dta_hashfn_eval(&lin, part, tail), want);
	/* and the split is not vacuous: the zeroed head alone is not it */
	assert_int_not_equal(head, want);
}

/*
 * The Tofino translator hashes each frame's ICRC in two parts: the frame
 * with a zero address, which it can hash before the address is known, and
 * L(address ++ zeros to the frame's end), L being CRC-32 without its
 * initial value and final XOR (translator-p4/tna, README "ICRC"). Check
 * that identity for every frame layout it sends: writes of 8 (Key-Write),
 * 24 (Key-Write, 20-byte data; Append, 2 entries), 32 (Postcarding
 * chunk; Append, 4), 48 (Append, 8) and 80 bytes (Append, 16), and
 * FETCH_ADD.
 */
static void test_icrc_address_split(void **state)
{
	static const size_t lens[] = { 8, 24, 32, 48, 80, 0 };
	struct dta_roce_qp qp = test_qp();
	struct dta_roce_target t = { .addr = 0x7f00fffffff0ull, .rkey = 0x77,
				     .length = 1 << 20 };
	struct dta_hashfn lin = { .kind = DTA_HASHFN_CRC32, .poly = 0x04C11DB7 };
	uint8_t data[80], frame[256], in[256], va[128];
	uint32_t want, zeroed, part;
	size_t n, len, after;
	int rc;

	(void)state;
	assert_int_equal(dta_hashfn_prepare(&lin), 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 29 + 3);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		struct dta_memop op = { .kind = DTA_MEMOP_WRITE,
					.offset = 4096 + 8 * k,
					.len = (uint32_t)lens[k], .data = data };

		if (lens[k] == 0) {
			op = (struct dta_memop){ .kind = DTA_MEMOP_FETCH_ADD,
						 .offset = 4096, .add = 0x1234 };
		}
		rc = dta_roce_build(&qp, &t, &op, frame, sizeof(frame));
		assert_true(rc > 0);
		n = (size_t)rc;
		want = dta_roce_icrc(frame + 14, n - 14 - 4);
		len = icrc_input(frame, n, in);
		/* The address: the extended header's first 8 bytes, after
		 * 8 + IPv4 20 + UDP 8 + BTH 12 bytes */
		assert_true(len > 48 + 8);
		after = len - 48 - 8;
		assert_int_equal(after, lens[k] ? 8 + lens[k] : 20);
		memset(va, 0, sizeof(va));
		memcpy(va, in + 48, 8);
		memset(in + 48, 0, 8);
		zeroed = dta_crc32(0, in, len);
		part = (uint32_t)dta_hashfn_eval(&lin, va, 8 + after);
		assert_int_equal(zeroed ^ part, want);
		assert_int_not_equal(zeroed, want);
	}
}

static void test_build_errors_leave_qp(void **state)
{
	struct dta_roce_qp qp = test_qp();
	struct dta_roce_target t = { .addr = 0x1000, .rkey = 1, .length = 64 };
	uint8_t data[2048] = { 0 }, buf[4096];
	struct dta_memop w = { .kind = DTA_MEMOP_WRITE, .len = 8, .data = data };
	struct dta_memop fa = { .kind = DTA_MEMOP_FETCH_ADD, .add = 1 };

	(void)state;
	qp.psn = DTA_ROCE_PSN_MASK; /* wraps to 0 */
	w.offset = 60;
	assert_int_equal(dta_roce_build(&qp, &t, &w, buf, sizeof(buf)),
			 -DTA_E_RANGE);
	w.offset = 56;
	assert_int_equal(dta_roce_build(&qp, &t, &w, buf, 10), -ENOSPC);
	fa.offset = 4;
	assert_int_equal(dta_roce_build(&qp, &t, &fa, buf, sizeof(buf)), -EINVAL);
	fa.offset = 64;
	assert_int_equal(dta_roce_build(&qp, &t, &fa, buf, sizeof(buf)),
			 -DTA_E_RANGE);
	w.len = 0;
	assert_int_equal(dta_roce_build(&qp, &t, &w, buf, sizeof(buf)), -EINVAL);
	t.length = 1u << 20;
	w.len = 1025;
	w.offset = 0;
	assert_int_equal(dta_roce_build(&qp, &t, &w, buf, sizeof(buf)),
			 -EMSGSIZE);
	assert_int_equal(qp.psn, DTA_ROCE_PSN_MASK);
	assert_int_equal(qp.ip_id, 0);
	qp.mtu = 4096;
	assert_int_equal(dta_roce_build(&qp, &t, &w, buf, sizeof(buf)),
			 DTA_ROCE_WRITE_OVERHEAD + 1025 + 3);
	assert_int_equal(qp.psn, 0);
	fa.offset = 8;
	assert_int_equal(dta_roce_build(&qp, &t, &fa, buf, sizeof(buf)),
			 DTA_ROCE_ATOMIC_FRAME_LEN);
	assert_int_equal(qp.psn, 1);
	/* A probe: a zero-length write, RETH length 0, no payload. */
	assert_int_equal(dta_roce_build_probe(&qp, &t, buf, 20), -ENOSPC);
	assert_int_equal(dta_roce_build_probe(&qp, &t, buf, sizeof(buf)),
			 DTA_ROCE_WRITE_OVERHEAD);
	assert_int_equal(qp.psn, 2);
	assert_int_equal(buf[14 + 28 + 12 + 12], 0); /* DMA length */
	assert_int_equal(buf[14 + 28 + 12 + 15], 0);
	{
		struct dta_roce_packet p;

		assert_int_equal(dta_roce_parse(buf, DTA_ROCE_WRITE_OVERHEAD, &p), 0);
		assert_int_equal(p.psn, 1);
	}
}

/* A reply from the collector (0x99 is the QPN we claimed). */
static size_t make_reply(uint8_t *f, uint8_t opcode, uint8_t syndrome,
			 uint32_t qpn, uint32_t psn, uint64_t orig)
{
	struct dta_roce_qp q = test_qp();

	q.dst_qpn = qpn;
	q.psn = psn;
	return roce_reply(f, &q, opcode, syndrome, 7, orig);
}

static void test_replies_and_resync(void **state)
{
	struct dta_roce_qp qp = test_qp();
	struct dta_roce_stats st = { 0 };
	struct dta_roce_packet p;
	uint8_t f[256];
	size_t n;

	(void)state;
	n = make_reply(f, DTA_ROCE_OP_ACK, 0x1F, 0x99, 10, 0);
	assert_int_equal(dta_roce_parse(f, n, &p), 0);
	assert_int_equal(p.kind, DTA_ROCE_ACK);
	assert_int_equal(p.msn, 7);
	assert_int_equal(dta_roce_on_reply(&qp, 0x99, &p, &st), 0);
	assert_int_equal(st.acks, 1);
	/* For another queue pair: ignored. */
	assert_int_equal(dta_roce_on_reply(&qp, 0x98, &p, &st), 0);
	assert_int_equal(st.foreign, 1);

	n = make_reply(f, DTA_ROCE_OP_ATOMIC_ACK, 0, 0x99, 11, 0x0102030405060708ull);
	assert_int_equal(dta_roce_parse(f, n, &p), 0);
	assert_int_equal(p.kind, DTA_ROCE_ATOMIC_ACK);
	assert_true(p.orig == 0x0102030405060708ull);

	/* The responder expects PSN 3 while we are at 10: resync to 3; the
	 * seven requests sent since were dropped. Across the 24-bit wrap too. */
	qp.psn = 10;
	n = make_reply(f, DTA_ROCE_OP_ACK, 0x60, 0x99, 3, 0);
	assert_int_equal(dta_roce_parse(f, n, &p), 0);
	assert_int_equal(p.kind, DTA_ROCE_NAK);
	assert_int_equal(p.nak, DTA_ROCE_NAK_PSN_SEQ);
	assert_int_equal(dta_roce_on_reply(&qp, 0x99, &p, &st), 1);
	assert_int_equal(qp.psn, 3);
	assert_int_equal(st.skipped, 7);
	qp.psn = 2;
	n = make_reply(f, DTA_ROCE_OP_ACK, 0x60, 0x99, DTA_ROCE_PSN_MASK - 1, 0);
	assert_int_equal(dta_roce_parse(f, n, &p), 0);
	assert_int_equal(dta_roce_on_reply(&qp, DTA_ROCE_ANY_QPN, &p, &st), 1);
	assert_int_equal(qp.psn, DTA_ROCE_PSN_MASK - 1);
	assert_int_equal(st.skipped, 7 + 4);
	assert_int_equal(st.resyncs, 2);

	/* Other NAKs are counted by kind and leave the PSN alone. */
	for (uint8_t code = 1; code <= 4; code++) {
		n = make_reply(f, DTA_ROCE_OP_ACK, (uint8_t)(0x60 | code), 0x99, 5, 0);
		assert_int_equal(dta_roce_parse(f, n, &p), 0);
		assert_int_equal(dta_roce_on_reply(&qp, 0x99, &p, &st), 0);
		assert_int_equal(st.naks[code], 1);
	}
	assert_int_equal(qp.psn, DTA_ROCE_PSN_MASK - 1);
	n = make_reply(f, DTA_ROCE_OP_ACK, 0x21, 0x99, 5, 0);
	assert_int_equal(dta_roce_parse(f, n, &p), 0);
	assert_int_equal(p.kind, DTA_ROCE_RNR_NAK);
	dta_roce_on_reply(&qp, 0x99, &p, &st);
	assert_int_equal(st.rnr_naks, 1);
	/* A reserved syndrome is malformed; an ACK with a missing AETH too. */
	n = make_reply(f, DTA_ROCE_OP_ACK, 0x40, 0x99, 5, 0);
	assert_int_equal(dta_roce_parse(f, n, &p), -DTA_E_MALFORMED);
}

static void test_parse_rejects(void **state)
{
	uint8_t f[256];
	struct dta_roce_packet p;
	size_t n = make_reply(f, DTA_ROCE_OP_ACK, 0, 1, 1, 0);

	(void)state;
	assert_int_equal(dta_roce_parse(NULL, n, &p), -EINVAL);
	f[12] = 0x86; /* IPv6 ethertype */
	f[13] = 0xDD;
	assert_int_equal(dta_roce_parse(f, n, &p), -DTA_E_MALFORMED);
	n = make_reply(f, DTA_ROCE_OP_ACK, 0, 1, 1, 0);
	f[14 + 20 + 3] = 0x99; /* UDP port 4761 */
	assert_int_equal(dta_roce_parse(f, n, &p), -DTA_E_MALFORMED);
	n = make_reply(f, DTA_ROCE_OP_ACK, 0, 1, 1, 0);
	f[14 + 8] = 1; /* TTL: masked from the ICRC, caught by the IP checksum */
	assert_int_equal(dta_roce_parse(f, n, &p), -EBADMSG);
	n = make_reply(f, DTA_ROCE_OP_ACK, 0, 1, 1, 0);
	f[14 + 28 + 4] = 0xC0; /* FECN/BECN: masked, may change in flight */
	assert_int_equal(dta_roce_parse(f, n, &p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_write),
		cmocka_unit_test(test_build_errors_leave_qp),
		cmocka_unit_test(test_icrc_split),
		cmocka_unit_test(test_icrc_address_split),
		cmocka_unit_test(test_replies_and_resync),
		cmocka_unit_test(test_parse_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
