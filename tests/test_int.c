/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INT telemetry report decoders: hand-assembled datagrams, field by field
 * from the specifications' tables (docs/int.md names each source), and
 * every error path. "TR v0.5/v1.0/v2.0" is the Telemetry Report Format
 * specification of that version, "INT" the INT specification v2.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "dta/int.h"

/* Inner Ethernet: dst 02:00:00:00:00:02, src 02:00:00:00:00:01, IPv4. */
#define ETH_IP4 0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00
/* Inner IPv4 (RFC 791): IHL 5, DSCP 0, total 28, id 1, TTL 62, UDP,
 * 10.0.0.1 -> 10.0.0.2; UDP (RFC 768) 1234 -> 80, length 8. */
#define IP4_UDP                                                               \
	0x45, 0x00, 0x00, 0x1C, 0x00, 0x01, 0x00, 0x00, 62, 17, 0x00, 0x00,   \
		10, 0, 0, 1, 10, 0, 0, 2, 0x04, 0xD2, 0x00, 0x50, 0x00, 0x08, \
		0x00, 0x00
/* Inner IPv6 (RFC 8200): TC 0, payload 20, TCP, hop limit 61,
 * 2001:db8::1 -> 2001:db8::2; TCP (RFC 9293) 49152 -> 443, offset 5. */
#define IP6_TCP                                                               \
	0x60, 0, 0, 0, 0x00, 0x14, 6, 61, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, \
		0, 0, 0, 0, 0, 0, 0, 1, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,  \
		0, 0, 0, 0, 0, 0, 0, 2, 0xC0, 0x00, 0x01, 0xBB, 0, 0, 0, 1,  \
		0, 0, 0, 0, 0x50, 0x02, 0xFF, 0xFF, 0, 0, 0, 0

/* TR v0.5, NProto 2: fixed header, switch local header, Ethernet. */
static const uint8_t v05_local[] = {
	/* TR v0.5 "Telemetry Report Header": Ver=0 | NProto=2 */
	0x02,
	/* D=0 Q=0 F=1, Reserved (15 bits) */
	0x20, 0x00,
	/* Reserved (2 bits) | hw_id=1 */
	0x01,
	/* Sequence Number */
	0x01, 0x02, 0x03, 0x04,
	/* Ingress Timestamp */
	0x0A, 0x0B, 0x0C, 0x0D,
	/* TR v0.5 "Telemetry Switch Local Report Header": Switch id=5 */
	0, 0, 0, 5,
	/* Ingress port id=1, Egress port id=2 */
	0, 1, 0, 2,
	/* Queue id=3 | Queue occupancy=0x100 */
	3, 0x00, 0x01, 0x00,
	/* Egress timestamp */
	0x0A, 0x0B, 0x0E, 0x00,
	/* Inner packet */
	ETH_IP4, IP4_UDP,
};

/* TR v0.5, NProto 1: fixed header, drop header, Ethernet + VLAN, IPv6. */
static const uint8_t v05_drop[] = {
	/* TR v0.5 header: Ver=0 | NProto=1; D=1; hw_id=1 */
	0x01, 0x80, 0x00, 0x01,
	/* Sequence Number=16 */
	0, 0, 0, 0x10,
	/* Ingress Timestamp */
	0, 0, 0x01, 0x00,
	/* TR v0.5 "Telemetry Drop Report Header": Switch id=7 */
	0, 0, 0, 7,
	/* Ingress port id=3, Egress port id=4 */
	0, 3, 0, 4,
	/* Queue id=2 | Drop reason=0x47 | Pad */
	2, 0x47, 0, 0,
	/* Ethernet, 802.1Q tag VLAN 100, IPv6 */
	0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x81, 0x00, 0x00,
	0x64, 0x86, 0xDD,
	IP6_TCP,
};

/* TR v1.0: RepMdBits ports + hop latency + queue, inner IPv4. */
static const uint8_t v10_queue[] = {
	/* TR v1.0 "Telemetry Report Header": Ver=1 | Length=7 words */
	0x17,
	/* NProt=1 (IPv4) | RepMdBits 111000 (5 high bits) */
	0x3C,
	/* RepMdBits low bit=0 | Reserved | D=0 */
	0x00,
	/* Q=1 F=0 | hw_id=2 */
	0x82,
	/* Switch id=10, Sequence Number=7, Ingress Timestamp */
	0, 0, 0, 0x0A, 0, 0, 0, 7, 0, 0, 0x10, 0,
	/* bit 0: Ingress port id=5, Egress port id=6 */
	0, 5, 0, 6,
	/* bit 1: Hop latency=500 */
	0, 0, 0x01, 0xF4,
	/* bit 2: Queue ID=4 | Queue occupancy=0x20 */
	4, 0, 0, 0x20,
	IP4_UDP,
};

/* TR v1.0: RepMdBits egress timestamp + drop + tx utilization, inner
 * IPv6/TCP. */
static const uint8_t v10_drop[] = {
	/* Ver=1 | Length=7; NProt=2 | RepMdBits 00011 (high 5) */
	0x17, 0x43,
	/* RepMdBits low bit=1 | Reserved | D=1; Q=0 F=0 | hw_id=2 */
	0x81, 0x02,
	/* Switch id=11, Sequence Number=8, Ingress Timestamp */
	0, 0, 0, 0x0B, 0, 0, 0, 8, 0, 0, 0x20, 0,
	/* bit 3: Egress Timestamp */
	0, 0, 0x20, 0x50,
	/* bit 4: Queue ID=1 | Drop reason=11 | Padding */
	1, 0x0B, 0, 0,
	/* bit 5: Egress port tx utilization=1000 */
	0, 0, 0x03, 0xE8,
	IP6_TCP,
};

/* TR v2.0: one INT report (queue report), inner IPv4. */
static const uint8_t v20_queue[] = {
	/* TR v2.0 "Group Header": Ver=2 | hw_id=3 | Sequence=0x12345 */
	0x20, 0xC1, 0x23, 0x45,
	/* Node ID=9 */
	0, 0, 0, 9,
	/* "Individual Report Header": RepType=1 | InType=4 (IPv4) */
	0x14,
	/* Report Length=11 words, MD Length=2 */
	0x0B, 0x02,
	/* D=0 Q=1 F=1 I=0 | Rsvd */
	0x60,
	/* "Main Contents for RepType 1": RepMdBits bits 1,3 | DS ID=0 */
	0x50, 0x00, 0, 0,
	/* DSMdBits=0 | DSMdstatus=0 */
	0, 0, 0, 0,
	/* bit 1: Ingress Interface ID=7, Egress Interface ID=8 */
	0, 7, 0, 8,
	/* bit 3: Queue ID=5 | Queue Occupancy=0x100 */
	5, 0, 0x01, 0,
	IP4_UDP,
};

/* TR v2.0 INT-MD report from sink node 4: inner IPv4 with DSCP 1, UDP,
 * INT shim, INT-MD header and a 3-hop stack (INT "INT over TCP/UDP",
 * "INT-MD Metadata Header Format"). */
static const uint8_t v20_md[] = {
	/* Group Header: Ver=2 | hw_id=0 | Sequence=1; Node ID=4 */
	0x20, 0x00, 0x00, 0x01, 0, 0, 0, 4,
	/* RepType=1 InType=4 | Report Length=23 | MD Length=1 | F=1 */
	0x14, 0x17, 0x01, 0x20,
	/* RepMdBits bit 2 (hop latency) | DS ID | DSMdBits | DSMdstatus */
	0x20, 0x00, 0, 0, 0, 0, 0, 0,
	/* bit 2: Hop Latency=20 */
	0, 0, 0, 0x14,
	/* IPv4: DSCP=1 (TOS 0x04), total 80, TTL 62, UDP */
	0x45, 0x04, 0x00, 0x50, 0x00, 0x01, 0x00, 0x00, 62, 17, 0x00, 0x00,
	10, 0, 0, 1, 10, 0, 0, 2,
	/* UDP 1234 -> 80, length 60 */
	0x04, 0xD2, 0x00, 0x50, 0x00, 0x3C, 0x00, 0x00,
	/* INT shim for TCP/UDP: Type=1 (INT-MD) NPT=0 | Length=12 | 0 */
	0x10, 12, 0x00, 0x00,
	/* INT-MD header: Ver=2 D=E=M=0 | Reserved | Hop ML=3 | Remaining=5 */
	0x20, 0x00, 0x03, 0x05,
	/* Instruction Bitmap bits 0,2,3 | Domain Specific ID=0 */
	0xB0, 0x00, 0x00, 0x00,
	/* DS Instruction | DS Flags */
	0x00, 0x00, 0x00, 0x00,
	/* stack, newest first: node 3, latency 100, queue 1 occ 16 */
	0, 0, 0, 3, 0, 0, 0, 0x64, 1, 0, 0, 0x10,
	/* node 2, latency 50, queue 1 occ 8 */
	0, 0, 0, 2, 0, 0, 0, 0x32, 1, 0, 0, 0x08,
	/* node 1, latency 10, queue 1 occ 0 */
	0, 0, 0, 1, 0, 0, 0, 0x0A, 1, 0, 0, 0x00,
};

/* TR v2.0: three reports in one datagram; the last one has Report Length
 * 0xFF ("to the end of the UDP payload"). */
static const uint8_t v20_multi[] = {
	/* Group Header: Ver=2 | hw_id=1 | Sequence=2; Node ID=6 */
	0x20, 0x40, 0x00, 0x02, 0, 0, 0, 6,
	/* A: RepType=0 (Inner Only) InType=5 (IPv6) | Length=12 | MD=0 | F */
	0x05, 0x0C, 0x00, 0x20,
	/* IPv6: payload 8, UDP, hop limit 64, 2001:db8::1 -> 2001:db8::2 */
	0x60, 0, 0, 0, 0x00, 0x08, 17, 64, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 1, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 2,
	/* UDP 5000 -> 5001, length 8 */
	0x13, 0x88, 0x13, 0x89, 0x00, 0x08, 0, 0,
	/* B: RepType=1 InType=0 (None) | Length=5 | MD Length=3 | D=1 */
	0x10, 0x05, 0x03, 0x80,
	/* RepMdBits bits 4, 15 | DS ID | DSMdBits | DSMdstatus */
	0x08, 0x01, 0, 0, 0, 0, 0, 0,
	/* bit 4: Ingress Timestamp (64 bits)=0x1234 */
	0, 0, 0, 0, 0, 0, 0x12, 0x34,
	/* bit 15: Queue ID=6 | Drop Reason=0x21 | Padding */
	6, 0x21, 0, 0,
	/* C: RepType=1 InType=3 (Ethernet) | Length=0xFF | MD=0 | F */
	0x13, 0xFF, 0x00, 0x20,
	/* RepMdBits=0 | DS ID | DSMdBits | DSMdstatus */
	0, 0, 0, 0, 0, 0, 0, 0,
	ETH_IP4, IP4_UDP,
};

/* TR v2.0 INT-MD report shaped like TR v2.0's "Example with Embedded
 * INT-MD in a TCP Packet": INT marked by UDP port (here 5000), a UDP
 * header inserted before the original TCP header (shim NPT=2). */
static const uint8_t v20_md_npt2[] = {
	/* Group Header: Ver=2 | hw_id=0 | Sequence=5; Node ID=3 */
	0x20, 0x00, 0x00, 0x05, 0, 0, 0, 3,
	/* RepType=1 InType=4 | Report Length=23 | MD Length=1 | F=1 */
	0x14, 0x17, 0x01, 0x20,
	/* RepMdBits bit 3 (queue) | DS ID | DSMdBits | DSMdstatus */
	0x10, 0x00, 0, 0, 0, 0, 0, 0,
	/* bit 3: Queue ID=2 | Queue Occupancy=0x40 */
	2, 0, 0, 0x40,
	/* IPv4: DSCP 0, total 80, TTL 63, UDP, 10.0.0.1 -> 10.0.0.2 */
	0x45, 0x00, 0x00, 0x50, 0x00, 0x01, 0x00, 0x00, 63, 17, 0x00, 0x00,
	10, 0, 0, 1, 10, 0, 0, 2,
	/* inserted UDP 0xABCD -> 5000 (the INT port), length 60 */
	0xAB, 0xCD, 0x13, 0x88, 0x00, 0x3C, 0x00, 0x00,
	/* INT shim: Type=1 NPT=2 | Length=7 | Reserved | IP proto=6 */
	0x18, 7, 0x00, 6,
	/* INT-MD header: Ver=2 | Hop ML=2 | Remaining=6; bitmap bits 0,3 */
	0x20, 0x00, 0x02, 0x06, 0x90, 0x00, 0x00, 0x00, 0, 0, 0, 0,
	/* stack: node 2 queue 1 occ 0x11; node 1 queue 1 occ 0x22 */
	0, 0, 0, 2, 1, 0, 0, 0x11, 0, 0, 0, 1, 1, 0, 0, 0x22,
	/* the original TCP header: 8080 -> 80, offset 5, ACK */
	0x1F, 0x90, 0x00, 0x50, 0, 0, 0, 4, 0, 0, 0, 4, 0x50, 0x10, 0xFF,
	0xFF, 0, 0, 0, 0,
};

/* TR v1.0, no optional metadata, inner IPv6 with DSCP 1 and TCP with 4
 * bytes of options; INT follows the options. */
static const uint8_t v10_md_ip6[] = {
	/* Ver=1 Length=4 | NProt=2 RepMdBits=0 | D=0 | Q=0 F=1 hw_id=0 */
	0x14, 0x40, 0x00, 0x40,
	/* Switch id=12, Sequence Number=9, Ingress Timestamp=1 */
	0, 0, 0, 0x0C, 0, 0, 0, 9, 0, 0, 0, 1,
	/* IPv6: traffic class 0x04 (DSCP 1), payload 44, TCP, hop limit 64 */
	0x60, 0x40, 0, 0, 0x00, 0x2C, 6, 64, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 1, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 2,
	/* TCP 49152 -> 443, offset 6, PSH ACK; options NOP NOP NOP EOL */
	0xC0, 0x00, 0x01, 0xBB, 0, 0, 0, 1, 0, 0, 0, 0, 0x60, 0x18, 0xFF,
	0xFF, 0, 0, 0, 0, 0x01, 0x01, 0x01, 0x00,
	/* INT shim: Type=1 NPT=0 | Length=4 | 0 */
	0x10, 4, 0x00, 0x00,
	/* INT-MD header: Ver=2 | Hop ML=1 | Remaining=7; bitmap bit 2 */
	0x20, 0x00, 0x01, 0x07, 0x20, 0x00, 0x00, 0x00, 0, 0, 0, 0,
	/* one hop: hop latency 1000 */
	0, 0, 0x03, 0xE8,
};

/* TR v2.0: every baseline RepMdBits field in one report, then an Inner
 * Only report whose INT-MD hop carries every INT instruction bit 0-8. */
static const uint8_t v20_all_md[] = {
	/* Group Header: Ver=2 | hw_id=63 | Sequence=0x3FFFFF; Node ID */
	0x2F, 0xFF, 0xFF, 0xFF, 0xDE, 0xAD, 0xBE, 0xEF,
	/* RepType=1 InType=0 | Report Length=14 | MD Length=12 | I=1 */
	0x10, 0x0E, 0x0C, 0x10,
	/* RepMdBits bits 1-8, 15 | DS ID=0x0102 | DSMdBits=0 | DSMdstatus=3 */
	0x7F, 0x81, 0x01, 0x02, 0, 0, 0, 3,
	/* bit 1: Level 1 Ingress Interface ID=0x1111, Egress=0x2222 */
	0x11, 0x11, 0x22, 0x22,
	/* bit 2: Hop Latency */
	0, 0, 0, 0x33,
	/* bit 3: Queue ID=4 | Queue Occupancy=0xFFFFFF */
	4, 0xFF, 0xFF, 0xFF,
	/* bit 4: Ingress Timestamp (64 bits) */
	1, 2, 3, 4, 5, 6, 7, 8,
	/* bit 5: Egress Timestamp (64 bits) */
	1, 2, 3, 4, 5, 6, 7, 9,
	/* bit 6: Level 2 Ingress Interface ID, Egress Interface ID (32 each) */
	0, 1, 0, 0, 0, 2, 0, 0,
	/* bit 7: Egress Port TX Utilization */
	0, 0, 0, 50,
	/* bit 8: Buffer ID=7 | Buffer Occupancy=0x123456 */
	7, 0x12, 0x34, 0x56,
	/* bit 15: Queue ID=4 | Drop Reason=9 | Padding */
	4, 9, 0, 0,
	/* RepType=0 InType=4 | Report Length=0xFF | MD Length=0 | none */
	0x04, 0xFF, 0x00, 0x00,
	/* IPv4: DSCP 1, total 92, TTL 255, UDP, 10.0.0.1 -> 10.0.0.2 */
	0x45, 0x04, 0x00, 0x5C, 0x00, 0x01, 0x00, 0x00, 255, 17, 0x00, 0x00,
	10, 0, 0, 1, 10, 0, 0, 2,
	/* UDP 1234 -> 80, length 72 */
	0x04, 0xD2, 0x00, 0x50, 0x00, 0x48, 0x00, 0x00,
	/* INT shim: Type=1 NPT=0 | Length=15 | 0 */
	0x10, 15, 0x00, 0x00,
	/* INT-MD header: Ver=2 D=1 E=1 M=1 | Hop ML=12 | Remaining=0;
	 * bitmap bits 0-8 | Domain Specific ID=0 | DS Instruction | Flags */
	0x2E, 0x00, 0x0C, 0x00, 0xFF, 0x80, 0, 0, 0, 0, 0, 0,
	/* one hop: Node ID=0x0A0B0C0D */
	0x0A, 0x0B, 0x0C, 0x0D,
	/* Level 1 Ingress/Egress Interface ID=3/4 */
	0, 3, 0, 4,
	/* Hop latency=0xFFFFFFFF ("not available") */
	0xFF, 0xFF, 0xFF, 0xFF,
	/* Queue ID=1 | Queue occupancy=2 */
	1, 0, 0, 2,
	/* Ingress timestamp, egress timestamp (8 bytes each) */
	0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x20,
	/* Level 2 Ingress/Egress Interface ID (4 bytes each) */
	0, 0, 0, 5, 0, 0, 0, 6,
	/* Egress interface Tx utilization */
	0, 0, 0, 7,
	/* Buffer ID=8 | Buffer occupancy=9 */
	8, 0, 0, 9,
};

static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static struct dta_int_report rep[8];

static int dec(const uint8_t *p, size_t len)
{
	return dta_int_decode(p, len, NULL, rep, 8);
}

/* Decode, re-encode, compare with the original bytes. */
static void round_trip(const uint8_t *p, size_t len, int n)
{
	uint8_t buf[512];

	assert_int_equal(dec(p, len), n);
	assert_int_equal(dta_int_encode(rep, (size_t)n, buf, sizeof(buf)),
			 (int)len);
	assert_memory_equal(buf, p, len);
}

static void assert_flow4_udp(const struct dta_int_report *r)
{
	assert_int_equal(r->flow.family, 4);
	assert_int_equal(r->flow.proto, 17);
	assert_memory_equal(r->flow.src, ip_a, 4);
	assert_memory_equal(r->flow.dst, ip_b, 4);
	assert_int_equal(r->flow.sport, 1234);
	assert_int_equal(r->flow.dport, 80);
	assert_int_equal(r->ttl, 62);
	assert_int_equal(r->hop_index, 2); /* 64 - 62 */
}

static void assert_flow4_udp_ttl(const struct dta_int_report *r, uint8_t ttl)
{
	assert_int_equal(r->flow.family, 4);
	assert_int_equal(r->flow.proto, 17);
	assert_memory_equal(r->flow.src, ip_a, 4);
	assert_memory_equal(r->flow.dst, ip_b, 4);
	assert_int_equal(r->flow.sport, 1234);
	assert_int_equal(r->flow.dport, 80);
	assert_int_equal(r->ttl, ttl);
	assert_int_equal(r->hop_index, 64 - ttl);
}

static void test_v05_local(void **state)
{
	const struct dta_int_report *r = &rep[0];

	(void)state;
	assert_int_equal(dec(v05_local, sizeof(v05_local)), 1);
	assert_int_equal(r->version, DTA_INT_V0_5);
	assert_int_equal(r->next, DTA_INT_V05_LOCAL);
	assert_int_equal(r->flags, DTA_INT_F_TRACKED);
	assert_int_equal(r->hw_id, 1);
	assert_int_equal(r->seq, 0x01020304);
	assert_int_equal(r->node_id, 5);
	assert_int_equal(r->local.present,
			 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
				 DTA_INT_MD_QUEUE | DTA_INT_MD_INGRESS_TS |
				 DTA_INT_MD_EGRESS_TS);
	assert_int_equal(r->local.ingress_ts, 0x0A0B0C0D);
	assert_int_equal(r->local.ingress_port, 1);
	assert_int_equal(r->local.egress_port, 2);
	assert_int_equal(r->local.queue_id, 3);
	assert_int_equal(r->local.queue_occupancy, 0x100);
	assert_int_equal(r->local.egress_ts, 0x0A0B0E00);
	assert_flow4_udp(r);
	assert_false(r->has_int_md);
	assert_ptr_equal(r->inner, v05_local + 28);
	assert_int_equal(r->inner_len, 42);
	round_trip(v05_local, sizeof(v05_local), 1);
}

static void assert_flow6_tcp(const struct dta_int_report *r)
{
	assert_int_equal(r->flow.family, 6);
	assert_int_equal(r->flow.proto, 6);
	assert_memory_equal(r->flow.src, ip6_a, 16);
	assert_memory_equal(r->flow.dst, ip6_b, 16);
	assert_int_equal(r->flow.sport, 49152);
	assert_int_equal(r->flow.dport, 443);
	assert_int_equal(r->ttl, 61);
	assert_int_equal(r->hop_index, 3);
}

static void test_v05_drop(void **state)
{
	const struct dta_int_report *r = &rep[0];

	(void)state;
	assert_int_equal(dec(v05_drop, sizeof(v05_drop)), 1);
	assert_int_equal(r->next, DTA_INT_V05_DROP);
	assert_int_equal(r->flags, DTA_INT_F_DROPPED);
	assert_int_equal(r->seq, 16);
	assert_int_equal(r->node_id, 7);
	assert_int_equal(r->local.present,
			 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
				 DTA_INT_MD_DROP | DTA_INT_MD_INGRESS_TS);
	assert_int_equal(r->local.ingress_port, 3);
	assert_int_equal(r->local.egress_port, 4);
	assert_int_equal(r->local.drop_queue_id, 2);
	assert_int_equal(r->local.drop_reason, 0x47);
	assert_flow6_tcp(r);
	round_trip(v05_drop, sizeof(v05_drop), 1);
}

static void test_v10(void **state)
{
	const struct dta_int_report *r = &rep[0];

	(void)state;
	assert_int_equal(dec(v10_queue, sizeof(v10_queue)), 1);
	assert_int_equal(r->version, DTA_INT_V1_0);
	assert_int_equal(r->next, DTA_INT_V10_IPV4);
	assert_int_equal(r->rep_md_bits, 0x38);
	assert_int_equal(r->flags, DTA_INT_F_CONGESTED);
	assert_int_equal(r->hw_id, 2);
	assert_int_equal(r->node_id, 10);
	assert_int_equal(r->seq, 7);
	assert_int_equal(r->local.ingress_ts, 0x1000);
	assert_int_equal(r->local.ingress_port, 5);
	assert_int_equal(r->local.egress_port, 6);
	assert_int_equal(r->local.hop_latency, 500);
	assert_int_equal(r->local.queue_id, 4);
	assert_int_equal(r->local.queue_occupancy, 0x20);
	assert_false(r->local.present & (DTA_INT_MD_DROP | DTA_INT_MD_EGRESS_TS));
	assert_flow4_udp(r);
	round_trip(v10_queue, sizeof(v10_queue), 1);

	assert_int_equal(dec(v10_drop, sizeof(v10_drop)), 1);
	assert_int_equal(r->next, DTA_INT_V10_IPV6);
	assert_int_equal(r->rep_md_bits, 0x07);
	assert_int_equal(r->local.tx_util, 1000);
	assert_int_equal(r->flags, DTA_INT_F_DROPPED);
	assert_int_equal(r->node_id, 11);
	assert_int_equal(r->local.egress_ts, 0x2050);
	assert_int_equal(r->local.drop_queue_id, 1);
	assert_int_equal(r->local.drop_reason, 11);
	assert_flow6_tcp(r);
	round_trip(v10_drop, sizeof(v10_drop), 1);
}

static void test_v20_queue(void **state)
{
	const struct dta_int_report *r = &rep[0];

	(void)state;
	assert_int_equal(dec(v20_queue, sizeof(v20_queue)), 1);
	assert_int_equal(r->version, DTA_INT_V2_0);
	assert_int_equal(r->hw_id, 3);
	assert_int_equal(r->seq, 0x12345);
	assert_int_equal(r->node_id, 9);
	assert_int_equal(r->rep_type, DTA_INT_REPTYPE_INT);
	assert_int_equal(r->next, DTA_INT_INTYPE_IPV4);
	assert_int_equal(r->flags, DTA_INT_F_CONGESTED | DTA_INT_F_TRACKED);
	assert_int_equal(r->rep_md_bits, 0x5000);
	assert_int_equal(r->local.present, DTA_INT_MD_SWITCH_ID |
						   DTA_INT_MD_PORTS |
						   DTA_INT_MD_QUEUE);
	assert_int_equal(r->local.switch_id, 9);
	assert_int_equal(r->local.ingress_port, 7);
	assert_int_equal(r->local.egress_port, 8);
	assert_int_equal(r->local.queue_id, 5);
	assert_int_equal(r->local.queue_occupancy, 0x100);
	assert_flow4_udp(r);
	round_trip(v20_queue, sizeof(v20_queue), 1);
}

static void test_v20_int_md(void **state)
{
	const struct dta_int_report *r = &rep[0];
	static const uint32_t node[3] = { 3, 2, 1 }, lat[3] = { 100, 50, 10 },
			      occ[3] = { 16, 8, 0 };

	(void)state;
	assert_int_equal(dec(v20_md, sizeof(v20_md)), 1);
	assert_int_equal(r->node_id, 4);
	assert_int_equal(r->local.hop_latency, 20);
	assert_true(r->has_int_md);
	assert_int_equal(r->int_ver, 2);
	assert_int_equal(r->int_flags, 0);
	assert_int_equal(r->hop_ml, 3);
	assert_int_equal(r->remaining_hops, 5);
	assert_int_equal(r->instructions, 0xB000);
	assert_int_equal(r->n_hops, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r->hops[i].present,
				 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_HOP_LATENCY |
					 DTA_INT_MD_QUEUE);
		assert_int_equal(r->hops[i].switch_id, node[i]);
		assert_int_equal(r->hops[i].hop_latency, lat[i]);
		assert_int_equal(r->hops[i].queue_id, 1);
		assert_int_equal(r->hops[i].queue_occupancy, occ[i]);
	}
	assert_flow4_udp(r);
	round_trip(v20_md, sizeof(v20_md), 1);

	/* Without DSCP detection the stack is left alone. */
	struct dta_int_opts o = { .sz = sizeof(o) };

	assert_int_equal(dta_int_decode(v20_md, sizeof(v20_md), &o, rep, 8), 1);
	assert_false(r->has_int_md);
	assert_int_equal(r->n_hops, 0);
}

static void test_v20_multi(void **state)
{
	(void)state;
	assert_int_equal(dec(v20_multi, sizeof(v20_multi)), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rep[i].hw_id, 1);
		assert_int_equal(rep[i].seq, 2);
		assert_int_equal(rep[i].node_id, 6);
	}
	assert_int_equal(rep[0].rep_type, DTA_INT_REPTYPE_INNER_ONLY);
	assert_int_equal(rep[0].next, DTA_INT_INTYPE_IPV6);
	assert_int_equal(rep[0].flow.family, 6);
	assert_int_equal(rep[0].flow.proto, 17);
	assert_int_equal(rep[0].flow.sport, 5000);
	assert_int_equal(rep[0].flow.dport, 5001);
	assert_int_equal(rep[0].hop_index, 0);

	assert_int_equal(rep[1].next, DTA_INT_INTYPE_NONE);
	assert_int_equal(rep[1].flags, DTA_INT_F_DROPPED);
	assert_int_equal(rep[1].flow.family, 0);
	assert_int_equal(rep[1].hop_index, DTA_INT_HOP_UNKNOWN);
	assert_int_equal(rep[1].local.ingress_ts, 0x1234);
	assert_int_equal(rep[1].local.drop_queue_id, 6);
	assert_int_equal(rep[1].local.drop_reason, 0x21);
	assert_int_equal(rep[1].inner_len, 0);

	assert_int_equal(rep[2].next, DTA_INT_INTYPE_ETHERNET);
	assert_int_equal(rep[2].inner_len, 42);
	assert_flow4_udp(&rep[2]);
	round_trip(v20_multi, sizeof(v20_multi), 3);

	/* Room for two of three reports: an error, not two reports. */
	assert_int_equal(dta_int_decode(v20_multi, sizeof(v20_multi), NULL,
					rep, 2),
			 -DTA_E_INT_TOOMANY);
}

/* Every cut of a datagram is TRUNCATED, except cuts at a v2.0 report
 * boundary, which leave a shorter valid datagram. */
static void cuts(const uint8_t *p, size_t len, const size_t *ok, int nok)
{
	for (size_t cut = 0; cut < len; cut++) {
		int want = -DTA_E_TRUNCATED;

		for (int i = 0; i < nok; i++)
			if (ok[i] == cut)
				want = i + 1;
		assert_int_equal(dec(p, cut), want);
	}
}

static void test_truncation(void **state)
{
	static const size_t multi_ok[] = { 60, 84 };

	(void)state;
	cuts(v05_local, sizeof(v05_local), NULL, 0);
	cuts(v05_drop, sizeof(v05_drop), NULL, 0);
	cuts(v10_queue, sizeof(v10_queue), NULL, 0);
	cuts(v10_drop, sizeof(v10_drop), NULL, 0);
	cuts(v20_queue, sizeof(v20_queue), NULL, 0);
	cuts(v20_md, sizeof(v20_md), NULL, 0);
	cuts(v20_multi, sizeof(v20_multi), multi_ok, 2);
}

static const struct dta_int_opts by_port = {
	.sz = sizeof(struct dta_int_opts), .udp_port = 5000,
};

static void test_int_md_by_port(void **state)
{
	const struct dta_int_report *r = &rep[0];
	uint8_t b[sizeof(v20_md_npt2)];

	(void)state;
	assert_int_equal(dta_int_decode(v20_md_npt2, sizeof(v20_md_npt2),
					&by_port, rep, 8),
			 1);
	assert_true(r->has_int_md);
	assert_int_equal(r->hop_ml, 2);
	assert_int_equal(r->remaining_hops, 6);
	assert_int_equal(r->instructions, 0x9000);
	assert_int_equal(r->n_hops, 2);
	assert_int_equal(r->hops[0].switch_id, 2);
	assert_int_equal(r->hops[0].queue_occupancy, 0x11);
	assert_int_equal(r->hops[1].switch_id, 1);
	assert_int_equal(r->hops[1].queue_occupancy, 0x22);
	assert_int_equal(r->local.queue_id, 2);
	assert_int_equal(r->local.queue_occupancy, 0x40);
	/* NPT 2: protocol from the shim, ports from the original header */
	assert_int_equal(r->flow.proto, 6);
	assert_int_equal(r->flow.sport, 8080);
	assert_int_equal(r->flow.dport, 80);
	assert_int_equal(r->hop_index, 1);

	/* Default options (DSCP bit): a plain UDP packet to port 5000. */
	assert_int_equal(dec(v20_md_npt2, sizeof(v20_md_npt2)), 1);
	assert_false(r->has_int_md);
	assert_int_equal(r->flow.proto, 17);
	assert_int_equal(r->flow.dport, 5000);

	/* NPT 1: the shim keeps the original UDP destination port. */
	memcpy(b, v20_md_npt2, sizeof(b));
	b[52] = 0x14;
	b[54] = 0x12;
	b[55] = 0x34;
	assert_int_equal(dta_int_decode(b, sizeof(b), &by_port, rep, 8), 1);
	assert_int_equal(r->flow.proto, 17);
	assert_int_equal(r->flow.sport, 0xABCD);
	assert_int_equal(r->flow.dport, 0x1234);
	/* NPT 3 is undefined */
	b[52] = 0x1C;
	assert_int_equal(dta_int_decode(b, sizeof(b), &by_port, rep, 8),
			 -DTA_E_INT_UNSUPPORTED);

	for (size_t cut = 0; cut < sizeof(v20_md_npt2); cut++)
		assert_int_equal(dta_int_decode(v20_md_npt2, cut, &by_port,
						rep, 8),
				 -DTA_E_TRUNCATED);
}

static void test_int_md_ip6_tcp(void **state)
{
	const struct dta_int_report *r = &rep[0];

	(void)state;
	assert_int_equal(dec(v10_md_ip6, sizeof(v10_md_ip6)), 1);
	assert_int_equal(r->version, DTA_INT_V1_0);
	assert_int_equal(r->flags, DTA_INT_F_TRACKED);
	assert_int_equal(r->node_id, 12);
	assert_int_equal(r->flow.family, 6);
	assert_int_equal(r->flow.proto, 6);
	assert_int_equal(r->flow.sport, 49152);
	assert_int_equal(r->flow.dport, 443);
	assert_int_equal(r->hop_index, 0);
	assert_true(r->has_int_md);
	assert_int_equal(r->n_hops, 1);
	assert_int_equal(r->hops[0].present, DTA_INT_MD_HOP_LATENCY);
	assert_int_equal(r->hops[0].hop_latency, 1000);
	round_trip(v10_md_ip6, sizeof(v10_md_ip6), 1);
	cuts(v10_md_ip6, sizeof(v10_md_ip6), NULL, 0);
}

static void test_every_field(void **state)
{
	const struct dta_int_md *m = &rep[0].local, *h = &rep[1].hops[0];

	(void)state;
	assert_int_equal(dec(v20_all_md, sizeof(v20_all_md)), 2);
	assert_int_equal(rep[0].hw_id, 63);
	assert_int_equal(rep[0].seq, 0x3FFFFF);
	assert_int_equal(rep[0].node_id, 0xDEADBEEF);
	assert_int_equal(rep[0].flags, DTA_INT_F_INTERMEDIATE);
	assert_int_equal(rep[0].domain_id, 0x0102);
	assert_int_equal(rep[0].ds_md_status, 3);
	assert_int_equal(m->present,
			 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
				 DTA_INT_MD_HOP_LATENCY | DTA_INT_MD_QUEUE |
				 DTA_INT_MD_INGRESS_TS | DTA_INT_MD_EGRESS_TS |
				 DTA_INT_MD_PORTS_L2 | DTA_INT_MD_TX_UTIL |
				 DTA_INT_MD_BUFFER | DTA_INT_MD_DROP);
	assert_int_equal(m->ingress_port, 0x1111);
	assert_int_equal(m->egress_port, 0x2222);
	assert_int_equal(m->hop_latency, 0x33);
	assert_int_equal(m->queue_id, 4);
	assert_int_equal(m->queue_occupancy, 0xFFFFFF);
	assert_true(m->ingress_ts == 0x0102030405060708ull);
	assert_true(m->egress_ts == 0x0102030405060709ull);
	assert_int_equal(m->l2_ingress_port, 0x00010000);
	assert_int_equal(m->l2_egress_port, 0x00020000);
	assert_int_equal(m->tx_util, 50);
	assert_int_equal(m->buffer_id, 7);
	assert_int_equal(m->buffer_occupancy, 0x123456);
	assert_int_equal(m->drop_queue_id, 4);
	assert_int_equal(m->drop_reason, 9);

	assert_int_equal(rep[1].rep_type, DTA_INT_REPTYPE_INNER_ONLY);
	assert_int_equal(rep[1].hop_index, 0); /* 255 - 255 */
	assert_int_equal(rep[1].int_flags, 7);
	assert_int_equal(rep[1].remaining_hops, 0);
	assert_int_equal(rep[1].n_hops, 1);
	assert_int_equal(h->present,
			 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
				 DTA_INT_MD_HOP_LATENCY | DTA_INT_MD_QUEUE |
				 DTA_INT_MD_INGRESS_TS | DTA_INT_MD_EGRESS_TS |
				 DTA_INT_MD_PORTS_L2 | DTA_INT_MD_TX_UTIL |
				 DTA_INT_MD_BUFFER);
	assert_int_equal(h->switch_id, 0x0A0B0C0D);
	assert_int_equal(h->ingress_port, 3);
	assert_int_equal(h->egress_port, 4);
	assert_int_equal(h->hop_latency, 0xFFFFFFFF);
	assert_int_equal(h->queue_id, 1);
	assert_int_equal(h->queue_occupancy, 2);
	assert_true(h->ingress_ts == 0x1000);
	assert_true(h->egress_ts == 0x1020);
	assert_int_equal(h->l2_ingress_port, 5);
	assert_int_equal(h->l2_egress_port, 6);
	assert_int_equal(h->tx_util, 7);
	assert_int_equal(h->buffer_id, 8);
	assert_int_equal(h->buffer_occupancy, 9);
	/* The encoder writes Report Length 0xFF only when the length does
	 * not fit: 23 words here. */
	uint8_t buf[sizeof(v20_all_md)];

	assert_int_equal(dta_int_encode(rep, 2, buf, sizeof(buf)),
			 sizeof(v20_all_md));
	assert_int_equal(buf[69], 23);
	buf[69] = 0xFF;
	assert_memory_equal(buf, v20_all_md, sizeof(v20_all_md));
	cuts(v20_all_md, sizeof(v20_all_md), (const size_t[]){ 68 }, 1);
}

/* The INT-MD vector with one byte changed. */
static int md_with(size_t off, uint8_t v)
{
	uint8_t b[sizeof(v20_md)];

	memcpy(b, v20_md, sizeof(b));
	b[off] = v;
	return dec(b, sizeof(b));
}

#define MD_INNER 24                  /* inner IPv4 in v20_md */
#define MD_SHIM (MD_INNER + 28)      /* INT shim */
#define MD_HDR (MD_SHIM + 4)         /* INT-MD metadata header */

static void test_bad_versions(void **state)
{
	uint8_t b[sizeof(v20_queue)];

	(void)state;
	memcpy(b, v20_queue, sizeof(b));
	for (unsigned v = 3; v < 16; v++) {
		b[0] = (uint8_t)(v << 4 | (b[0] & 0x0F));
		assert_int_equal(dec(b, sizeof(b)), -DTA_E_VERSION);
	}
	/* INT-MD header Ver 1 (INT v1.0) and 3 */
	assert_int_equal(md_with(MD_HDR, 0x10), -DTA_E_VERSION);
	assert_int_equal(md_with(MD_HDR, 0x30), -DTA_E_VERSION);
	/* Inner IPv4 with version 5, IHL 4 */
	assert_int_equal(md_with(MD_INNER, 0x55), -DTA_E_MALFORMED);
	assert_int_equal(md_with(MD_INNER, 0x44), -DTA_E_MALFORMED);
}

static void test_bad_lengths(void **state)
{
	uint8_t b[sizeof(v20_multi)];

	(void)state;
	/* v1.0 Length 6 and 8 for three RepMdBits words (needs 7) */
	memcpy(b, v10_queue, sizeof(v10_queue));
	b[0] = 0x16;
	assert_int_equal(dec(b, sizeof(v10_queue)), -DTA_E_INT_LENGTH);
	b[0] = 0x18;
	assert_int_equal(dec(b, sizeof(v10_queue)), -DTA_E_INT_LENGTH);

	memcpy(b, v20_queue, sizeof(v20_queue));
	/* MD Length 1 and 3 where RepMdBits asks for 2 words */
	b[10] = 1;
	assert_int_equal(dec(b, sizeof(v20_queue)), -DTA_E_INT_LENGTH);
	b[10] = 3;
	assert_int_equal(dec(b, sizeof(v20_queue)), -DTA_E_INT_LENGTH);
	/* Report Length 3: shorter than main contents + metadata */
	b[10] = 2;
	b[9] = 3;
	assert_int_equal(dec(b, sizeof(v20_queue)), -DTA_E_INT_LENGTH);
	/* Report Length past the datagram */
	b[9] = 12;
	assert_int_equal(dec(b, sizeof(v20_queue)), -DTA_E_TRUNCATED);
	/* Report Length 4: the metadata fits, the inner IPv4 does not */
	b[9] = 4;
	assert_int_equal(dec(b, sizeof(v20_queue)), -DTA_E_TRUNCATED);

	/* Shim Length 11: 8 stack words, not a multiple of Hop ML 3 */
	assert_int_equal(md_with(MD_SHIM + 1, 11), -DTA_E_INT_LENGTH);
	/* Shim Length 2: less than the 3-word metadata header */
	assert_int_equal(md_with(MD_SHIM + 1, 2), -DTA_E_INT_LENGTH);
	/* Shim Length past the report */
	assert_int_equal(md_with(MD_SHIM + 1, 13), -DTA_E_TRUNCATED);
	/* Hop ML 1 while the bitmap asks for 3 words per hop */
	assert_int_equal(md_with(MD_HDR + 2, 1), -DTA_E_INT_LENGTH);
	/* Bitmap asking for 4 words per hop (bit 1 added) with Hop ML 3 */
	assert_int_equal(md_with(MD_HDR + 4, 0xF0), -DTA_E_INT_LENGTH);
	/* Hop ML 0 with a stack */
	assert_int_equal(md_with(MD_HDR + 2, 0), -DTA_E_INT_LENGTH);
}

static void test_too_many_hops(void **state)
{
	/* v2.0, Inner Only, IPv4 DSCP 1/UDP, shim, INT-MD header with Hop ML
	 * 1 and bitmap bit 0 (node id), DTA_INT_HOPS_MAX + 1 hops. */
	enum { HOPS = DTA_INT_HOPS_MAX + 1 };
	uint8_t b[8 + 4 + 28 + 4 + 12 + 4 * HOPS];
	static const uint8_t head[] = {
		0x20, 0, 0, 1, 0, 0, 0, 4,
		0x04, 0, 0, 0x20, /* Report Length filled below */
		0x45, 0x04, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0,
		0, 2, 0x04, 0xD2, 0x00, 0x50, 0, 0, 0, 0,
		0x10, 3 + HOPS, 0, 0,
		0x20, 0x00, 0x01, 0x00, 0x80, 0x00, 0, 0, 0, 0, 0, 0,
	};

	(void)state;
	memset(b, 0, sizeof(b));
	memcpy(b, head, sizeof(head));
	b[9] = (uint8_t)((sizeof(b) - 12) / 4);
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_HOPS);
	/* One hop fewer is fine. */
	b[9]--;
	b[41]--;
	assert_int_equal(dec(b, sizeof(b) - 4), 1);
	assert_int_equal(rep[0].n_hops, DTA_INT_HOPS_MAX);
}

static void test_unsupported(void **state)
{
	uint8_t b[sizeof(v20_queue)];

	(void)state;
	/* v0.5 NProto 3 */
	memcpy(b, v05_local, 12);
	b[0] = 0x03;
	assert_int_equal(dec(b, 12), -DTA_E_INT_UNSUPPORTED);
	/* v1.0 NProt 3 */
	memcpy(b, v10_queue, sizeof(v10_queue));
	b[1] = (uint8_t)(3 << 5 | (b[1] & 0x1F));
	assert_int_equal(dec(b, sizeof(v10_queue)), -DTA_E_INT_UNSUPPORTED);
	/* v2.0 InType 1 (TLV), 2 (DS extension), 6; RepType 2 (IOAM) */
	memcpy(b, v20_queue, sizeof(v20_queue));
	for (unsigned t = 1; t < 16; t = t == 2 ? 6 : t + 1) {
		b[8] = (uint8_t)(0x10 | t);
		assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_UNSUPPORTED);
	}
	b[8] = 0x24;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_UNSUPPORTED);
	/* INT shim Type 3 (INT-MX) */
	assert_int_equal(md_with(MD_SHIM, 0x30), -DTA_E_INT_UNSUPPORTED);
}

static void test_args(void **state)
{
	struct dta_int_opts o = { .sz = 1 };
	uint8_t buf[256];

	(void)state;
	assert_int_equal(dta_int_decode(NULL, 4, NULL, rep, 1), -EINVAL);
	assert_int_equal(dta_int_decode(v20_queue, sizeof(v20_queue), NULL,
					NULL, 1),
			 -EINVAL);
	assert_int_equal(dta_int_decode(v20_queue, sizeof(v20_queue), NULL,
					rep, 0),
			 -EINVAL);
	assert_int_equal(dta_int_decode(v20_queue, sizeof(v20_queue), &o, rep,
					1),
			 -EINVAL);
	assert_int_equal(dec(v20_queue, 0), -DTA_E_TRUNCATED);

	assert_int_equal(dec(v05_local, sizeof(v05_local)), 1);
	assert_int_equal(dta_int_encode(rep, 1, buf, 16), -ENOSPC);
	assert_int_equal(dta_int_encode(rep, 0, buf, sizeof(buf)), -EINVAL);
	rep[1] = rep[0];
	assert_int_equal(dta_int_encode(rep, 2, buf, sizeof(buf)), -EINVAL);
	rep[0].next = 3;
	assert_int_equal(dta_int_encode(rep, 1, buf, sizeof(buf)), -EINVAL);
	/* Values wider than their fields */
	assert_int_equal(dec(v20_queue, sizeof(v20_queue)), 1);
	rep[0].hw_id = 64;
	assert_int_equal(dta_int_encode(rep, 1, buf, sizeof(buf)), -EINVAL);
	rep[0].hw_id = 3;
	rep[0].seq = 0x400000;
	assert_int_equal(dta_int_encode(rep, 1, buf, sizeof(buf)), -EINVAL);
	rep[0].seq = 0x3FFFFF;
	rep[0].local.queue_occupancy = 0x1000000;
	assert_int_equal(dta_int_encode(rep, 1, buf, sizeof(buf)), -EINVAL);
	rep[0].local.queue_occupancy = 0;
	rep[0].flags = 0x10;
	assert_int_equal(dta_int_encode(rep, 1, buf, sizeof(buf)), -EINVAL);
	rep[0].flags = 0;
	assert_int_equal(dta_int_encode(rep, 1, buf, sizeof(buf)),
			 sizeof(v20_queue));
	rep[0].ds_md_bits = 1;
	assert_int_equal(dta_int_encode(rep, 1, buf, sizeof(buf)), -EINVAL);
	/* v2.0: 0xFF length only on the last report */
	assert_int_equal(dec(v20_multi, sizeof(v20_multi)), 3);
	rep[3] = rep[2];
	assert_int_equal(dta_int_encode(rep, 4, buf, sizeof(buf)), -EINVAL);
}

/* A report built from a struct, not from decoded bytes, encodes to the
 * hand-assembled v2.0 vector. */
static void test_encode_from_struct(void **state)
{
	static const uint8_t inner[] = { IP4_UDP };
	struct dta_int_report r;
	uint8_t buf[128];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V2_0;
	r.rep_type = DTA_INT_REPTYPE_INT;
	r.next = DTA_INT_INTYPE_IPV4;
	r.flags = DTA_INT_F_CONGESTED | DTA_INT_F_TRACKED;
	r.hw_id = 3;
	r.seq = 0x12345;
	r.node_id = 9;
	r.local.present = DTA_INT_MD_PORTS | DTA_INT_MD_QUEUE;
	r.local.ingress_port = 7;
	r.local.egress_port = 8;
	r.local.queue_id = 5;
	r.local.queue_occupancy = 0x100;
	r.inner = inner;
	r.inner_len = sizeof(inner);
	assert_int_equal(dta_int_encode(&r, 1, buf, sizeof(buf)),
			 sizeof(v20_queue));
	assert_memory_equal(buf, v20_queue, sizeof(v20_queue));
}

/* dta_int_inner_build: the decoder reads back the flow, TTL and stack of
 * every version, family and protocol. */
static void build_round_trip(uint8_t version, uint8_t family, uint8_t proto,
			     bool md)
{
	struct dta_int_md hops[3] = { { 0 } };
	struct dta_int_inner in = { .sz = sizeof(in), .ttl = 61, .dscp = md };
	struct dta_int_report r = { 0 }, out[2];
	uint8_t inner[512], buf[1024];
	int il, n;

	in.flow.family = family;
	in.flow.proto = proto;
	in.flow.sport = 40000;
	in.flow.dport = 4791;
	memset(in.flow.src, 0, 16);
	memset(in.flow.dst, 0, 16);
	for (unsigned i = 0; i < (family == 4 ? 4u : 16u); i++) {
		in.flow.src[i] = (uint8_t)(10 + i);
		in.flow.dst[i] = (uint8_t)(200 - i);
	}
	for (unsigned i = 0; i < 3; i++) {
		hops[i].switch_id = 100 + i;
		hops[i].ingress_port = (uint16_t)(i + 1);
		hops[i].egress_port = (uint16_t)(i + 7);
		hops[i].hop_latency = 1000 * (i + 1);
		hops[i].queue_id = (uint8_t)i;
		hops[i].queue_occupancy = 0xABCDE0 + i;
		hops[i].egress_ts = 0x1122334455667700ull + i;
	}
	if (md) {
		in.int_md = true;
		/* node id, ports, latency, queue, egress ts */
		in.instructions = 0xF400;
		in.remaining_hops = 5;
		in.domain_id = 0x1234;
		in.n_hops = 3;
		in.hops = hops;
	}
	in.payload_len = 2;
	il = dta_int_inner_build(&in, inner, sizeof(inner));
	assert_true(il > 0);
	r.version = version;
	r.next = version == DTA_INT_V2_0 ? DTA_INT_INTYPE_ETHERNET : 0;
	r.rep_type = DTA_INT_REPTYPE_INT;
	r.node_id = 9;
	r.local.present = DTA_INT_MD_SWITCH_ID;
	r.local.switch_id = 9;
	if (version == DTA_INT_V0_5)
		r.next = DTA_INT_V05_LOCAL;
	r.inner = inner;
	r.inner_len = (size_t)il;
	n = dta_int_encode(&r, 1, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(dta_int_decode(buf, (size_t)n, NULL, out, 2), 1);
	assert_int_equal(out[0].flow.family, family);
	assert_int_equal(out[0].flow.proto, proto);
	assert_int_equal(out[0].flow.sport, 40000);
	assert_int_equal(out[0].flow.dport, 4791);
	assert_memory_equal(out[0].flow.src, in.flow.src, 16);
	assert_memory_equal(out[0].flow.dst, in.flow.dst, 16);
	assert_int_equal(out[0].ttl, 61);
	assert_int_equal(out[0].hop_index, 3);
	assert_int_equal(out[0].has_int_md, md);
	if (!md) {
		assert_int_equal(out[0].n_hops, 0);
		return;
	}
	assert_int_equal(out[0].remaining_hops, 5);
	assert_int_equal(out[0].instructions, 0xF400);
	assert_int_equal(out[0].int_domain_id, 0x1234);
	assert_int_equal(out[0].n_hops, 3);
	for (unsigned i = 0; i < 3; i++) {
		const struct dta_int_md *h = &out[0].hops[i];

		assert_int_equal(h->present,
				 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
					 DTA_INT_MD_HOP_LATENCY |
					 DTA_INT_MD_QUEUE |
					 DTA_INT_MD_EGRESS_TS);
		assert_int_equal(h->switch_id, hops[i].switch_id);
		assert_int_equal(h->ingress_port, hops[i].ingress_port);
		assert_int_equal(h->egress_port, hops[i].egress_port);
		assert_int_equal(h->hop_latency, hops[i].hop_latency);
		assert_int_equal(h->queue_id, hops[i].queue_id);
		assert_int_equal(h->queue_occupancy, hops[i].queue_occupancy);
		assert_true(h->egress_ts == hops[i].egress_ts);
	}
}

static void test_inner_build(void **state)
{
	(void)state;
	for (uint8_t v = 0; v <= 2; v++)
		for (unsigned f = 0; f < 2; f++)
			for (unsigned t = 0; t < 2; t++)
				for (unsigned md = 0; md < 2; md++)
					build_round_trip(v, f ? 6 : 4,
							 t ? 6 : 17, md);
}

static void test_inner_build_args(void **state)
{
	struct dta_int_md hop = { 0 };
	struct dta_int_inner in = { .sz = sizeof(in), .ttl = 64 };
	uint8_t buf[128];

	(void)state;
	in.flow.family = 4;
	in.flow.proto = 17;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), 42);
	assert_int_equal(dta_int_inner_build(&in, buf, 41), -ENOSPC);
	assert_int_equal(dta_int_inner_build(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(dta_int_inner_build(&in, NULL, sizeof(buf)), -EINVAL);
	in.sz = 1;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	in.sz = sizeof(in);
	in.flow.proto = 1;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	in.flow.proto = 17;
	in.flow.family = 5;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	in.flow.family = 4;
	in.dscp = 64;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	in.dscp = 1;
	in.int_md = true;
	in.instructions = 0x8001; /* checksum complement: refused */
	in.n_hops = 1;
	in.hops = &hop;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	in.instructions = 0x8000;
	in.hops = NULL;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	in.hops = &hop;
	in.n_hops = DTA_INT_HOPS_MAX + 1;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	in.n_hops = 1;
	hop.queue_occupancy = 0x1000000;
	in.instructions = 0x1000;
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), -EINVAL);
	hop.queue_occupancy = 0;
	/* 42 + shim 4 + header 12 + one hop of one word */
	assert_int_equal(dta_int_inner_build(&in, buf, sizeof(buf)), 62);
}

/* ---- INT v0.5 and v1.0 INT-MD stacks (issue 24) ---- */

/* TR v0.5 with an INT v0.5 stack of three hops, bitmap bits 0 and 3.
 * Report: telemetry_report.mdk tag telemetry_v0.5 "Telemetry Report
 * Header"; stack: INT.mdk tag telemetry_v0.5 "Header Location and Format
 * -- INT over TCP/UDP" (shim, tail) and "INT Metadata Header and Metadata
 * Stack". */
static const uint8_t v05_md[] = {
	/* Ver=0 | NProto=0 (Ethernet); D=0 Q=0 F=1; Rsvd | hw_id=2 */
	0x00, 0x20, 0x00, 0x02,
	/* Sequence Number=0x0500, Ingress Timestamp=0x1000 */
	0, 0, 0x05, 0x00, 0, 0, 0x10, 0x00,
	/* Ethernet: dst, src, type IPv4 */
	0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
	/* IPv4: IHL 5, TOS 0x04 (DSCP 1), total 68, TTL 61, UDP,
	 * 10.0.0.1 -> 10.0.0.2 */
	0x45, 0x04, 0x00, 0x44, 0, 0, 0, 0, 61, 17, 0, 0, 10, 0, 0, 1, 10,
	0, 0, 2,
	/* UDP 1234 -> 80, length 48 */
	0x04, 0xD2, 0x00, 0x50, 0x00, 0x30, 0, 0,
	/* INT shim: Type=1 (8 bits) | Reserved | Length=10 words (shim 1 +
	 * header 2 + stack 6 + tail 1) | Reserved */
	0x01, 0x00, 0x0A, 0x00,
	/* Ver=0 Rep=0 C=0 E=0 | R R R InsCnt=2 | Max Hop Cnt=8 | Total Hop
	 * Cnt=3 */
	0x00, 0x02, 0x08, 0x03,
	/* Instruction Bitmap: bit0 Switch ID, bit3 Queue ID + occupancy
	 * (0x9000) | Reserved */
	0x90, 0x00, 0x00, 0x00,
	/* newest hop first: switch 3, queue 1 occupancy 300 */
	0, 0, 0, 3, 1, 0x00, 0x01, 0x2C,
	/* switch 2, queue 0 occupancy 200 */
	0, 0, 0, 2, 0, 0x00, 0x00, 0xC8,
	/* switch 1, queue 2 occupancy 100 */
	0, 0, 0, 1, 2, 0x00, 0x00, 0x64,
	/* INT tail: Proto=17 | Destination Port=80 | DSCP=0 */
	17, 0x00, 0x50, 0x00,
};

/* TR v1.0 with an INT v1.0 stack of two hops, bitmap bits 0, 2, 4, 6.
 * Report: telemetry_report.mdk tag telemetry_v1.0; stack: INT.mdk tag
 * telemetry_v1.0 "INT over TCP/UDP" (shim) and "INT Hop-by-Hop Metadata
 * Header Format" (8-byte header, 4-byte timestamps, bit 6 8 bytes). */
static const uint8_t v10_md[] = {
	/* Ver=1 Length=4 | NProt=0 RepMdBits=0 | D=0 | Q=0 F=1 hw_id=0 */
	0x14, 0x00, 0x00, 0x40,
	/* Switch id=12, Sequence Number=9, Ingress Timestamp=1 */
	0, 0, 0, 0x0C, 0, 0, 0, 9, 0, 0, 0, 1,
	/* Ethernet */
	0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
	/* IPv4: TOS 0x04 (DSCP 1), total 80, TTL 62, UDP 10.0.0.1 ->
	 * 10.0.0.2 */
	0x45, 0x04, 0x00, 0x50, 0, 0, 0, 0, 62, 17, 0, 0, 10, 0, 0, 1, 10,
	0, 0, 2,
	/* UDP 1234 -> 80, length 60 */
	0x04, 0xD2, 0x00, 0x50, 0x00, 0x3C, 0, 0,
	/* INT shim: Type=1 (8 bits) | Reserved | Length=13 words (shim 1 +
	 * header 2 + stack 10) | DSCP=0 R R */
	0x01, 0x00, 0x0D, 0x00,
	/* Ver=1 Rep=0 C=0 E=1 | M=0 Reserved | Reserved Hop ML=5 | Remaining
	 * Hop Cnt=6 */
	0x11, 0x00, 0x05, 0x06,
	/* Instruction Bitmap: bits 0, 2, 4, 6 (0xAA00) | Reserved */
	0xAA, 0x00, 0x00, 0x00,
	/* newest: switch 0x0B, hop latency 500, ingress ts 0x11223344, L2
	 * ingress port 7, L2 egress port 8 */
	0, 0, 0, 0x0B, 0, 0, 0x01, 0xF4, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 7,
	0, 0, 0, 8,
	/* switch 0x0A, latency 250, ingress ts 0x11223000, L2 ports 5, 6 */
	0, 0, 0, 0x0A, 0, 0, 0, 0xFA, 0x11, 0x22, 0x30, 0x00, 0, 0, 0, 5,
	0, 0, 0, 6,
};

#define V05_SHIM (12 + 14 + 20 + 8)
#define V10_SHIM (16 + 14 + 20 + 8)

static void test_v05_int_md(void **state)
{
	const struct dta_int_report *r = &rep[0];
	static const uint32_t sw[3] = { 3, 2, 1 }, occ[3] = { 300, 200, 100 };
	static const uint8_t qid[3] = { 1, 0, 2 };
	uint8_t b[sizeof(v05_md)];

	(void)state;
	assert_int_equal(dec(v05_md, sizeof(v05_md)), 1);
	assert_int_equal(r->version, DTA_INT_V0_5);
	assert_int_equal(r->seq, 0x500);
	assert_int_equal(r->error, 0);
	assert_flow4_udp_ttl(r, 61);
	assert_true(r->has_int_md);
	assert_int_equal(r->int_ver, 0);
	assert_int_equal(r->hop_ml, 2);
	assert_int_equal(r->remaining_hops, 5); /* 8 - 3 */
	assert_int_equal(r->instructions, 0x9000);
	assert_int_equal(r->n_hops, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(r->hops[i].present,
				 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_QUEUE);
		assert_int_equal(r->hops[i].switch_id, sw[i]);
		assert_int_equal(r->hops[i].queue_id, qid[i]);
		assert_int_equal(r->hops[i].queue_occupancy, occ[i]);
	}
	/* Malformed: InsCnt 3 for a 2-bit bitmap; Total Hop Cnt 2 for a
	 * 3-hop stack; shim Length without room for the tail; Ver 2 with
	 * the 8-bit Type. */
	memcpy(b, v05_md, sizeof(b));
	b[V05_SHIM + 5] = 3;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_LENGTH);
	memcpy(b, v05_md, sizeof(b));
	b[V05_SHIM + 7] = 2;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_LENGTH);
	memcpy(b, v05_md, sizeof(b));
	b[V05_SHIM + 2] = 3;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_LENGTH);
	memcpy(b, v05_md, sizeof(b));
	b[V05_SHIM + 4] = 0x20;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_VERSION);
	/* Length past the packet */
	memcpy(b, v05_md, sizeof(b));
	b[V05_SHIM + 2] = 11;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_TRUNCATED);
}

static void test_v10_int_md(void **state)
{
	const struct dta_int_report *r = &rep[0];
	uint8_t b[sizeof(v10_md)];

	(void)state;
	assert_int_equal(dec(v10_md, sizeof(v10_md)), 1);
	assert_int_equal(r->version, DTA_INT_V1_0);
	assert_int_equal(r->node_id, 12);
	assert_flow4_udp_ttl(r, 62);
	assert_true(r->has_int_md);
	assert_int_equal(r->int_ver, 1);
	assert_int_equal(r->int_flags, 2); /* E */
	assert_int_equal(r->hop_ml, 5);
	assert_int_equal(r->remaining_hops, 6);
	assert_int_equal(r->instructions, 0xAA00);
	assert_int_equal(r->n_hops, 2);
	for (unsigned i = 0; i < 2; i++) {
		const struct dta_int_md *h = &r->hops[i];

		assert_int_equal(h->present,
				 DTA_INT_MD_SWITCH_ID | DTA_INT_MD_HOP_LATENCY |
					 DTA_INT_MD_INGRESS_TS |
					 DTA_INT_MD_PORTS_L2);
		assert_int_equal(h->switch_id, i ? 0x0A : 0x0B);
		assert_int_equal(h->hop_latency, i ? 250 : 500);
		assert_int_equal(h->ingress_ts, i ? 0x11223000 : 0x11223344);
		assert_int_equal(h->l2_ingress_port, i ? 5 : 7);
		assert_int_equal(h->l2_egress_port, i ? 6 : 8);
	}
	/* Malformed: Hop ML 4 for a 5-word bitmap (10 words of stack are
	 * not whole 4-word hops either); shim Length 2 (below shim +
	 * header); Ver 3. */
	memcpy(b, v10_md, sizeof(b));
	b[V10_SHIM + 6] = 4;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_LENGTH);
	memcpy(b, v10_md, sizeof(b));
	b[V10_SHIM + 2] = 2;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_LENGTH);
	memcpy(b, v10_md, sizeof(b));
	b[V10_SHIM + 4] = 0x31;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_VERSION);
	/* an 8-bit Type 2 (destination header) is not read */
	memcpy(b, v10_md, sizeof(b));
	b[V10_SHIM] = 0x02;
	assert_int_equal(dec(b, sizeof(b)), -DTA_E_INT_UNSUPPORTED);
}

/* With dta_int_opts.separate, a report that cannot be read after its
 * header is refused alone: a v2.0 group keeps its other reports, a
 * v0.5/v1.0 report keeps its sequence number. */
static void test_separate(void **state)
{
	struct dta_int_opts o = { .sz = sizeof(o), .dscp_mask = 1,
				  .dscp_value = 1, .separate = true };
	uint8_t b[512];
	size_t n = sizeof(v20_multi);

	(void)state;
	/* v1.0 report, stack Ver 3 */
	memcpy(b, v10_md, sizeof(v10_md));
	b[V10_SHIM + 4] = 0x31;
	assert_int_equal(dta_int_decode(b, sizeof(v10_md), &o, rep, 8), 1);
	assert_int_equal(rep[0].error, -DTA_E_VERSION);
	assert_int_equal(rep[0].seq, 9);
	assert_int_equal(rep[0].node_id, 12);
	/* only the fixed header: still refused whole */
	assert_int_equal(dta_int_decode(b, 15, &o, rep, 8), -DTA_E_TRUNCATED);
	/* v2.0: v20_multi's first report with RepType 3 (unsupported); the
	 * others still decode as without the fault */
	assert_true(n <= sizeof(b));
	assert_int_equal(dec(v20_multi, n), 3);
	memcpy(b, v20_multi, n);
	b[8] = (uint8_t)(3 << 4 | (b[8] & 0x0F));
	assert_int_equal(dec(b, n), -DTA_E_INT_UNSUPPORTED);
	assert_int_equal(dta_int_decode(b, n, &o, rep, 8), 3);
	assert_int_equal(rep[0].error, -DTA_E_INT_UNSUPPORTED);
	{
		static struct dta_int_report good[3];

		assert_int_equal(dta_int_decode(v20_multi, n, &o, good, 3), 3);
		for (unsigned i = 1; i < 3; i++) {
			assert_int_equal(rep[i].error, 0);
			assert_int_equal(good[i].rep_type, rep[i].rep_type);
			assert_int_equal(good[i].local.present,
					 rep[i].local.present);
			assert_memory_equal(&good[i].flow, &rep[i].flow,
					    sizeof(good[i].flow));
		}
	}
	/* Report Length past the datagram: the rest is one refused report */
	memcpy(b, v20_multi, n);
	b[9] = 0xF0;
	assert_int_equal(dta_int_decode(b, n, &o, rep, 8), 1);
	assert_int_equal(rep[0].error, -DTA_E_TRUNCATED);
}

/* dta_int_inner_build() in the v1.0 and v0.5 layouts, read back, for
 * several instruction bitmaps. */
static void test_inner_build_layouts(void **state)
{
	static const uint16_t bitmaps[] = { 0x8000, 0xF000, 0xFC00, 0xAA00,
					    0x9100 };
	struct dta_int_md hops[4];
	uint8_t buf[512];

	(void)state;
	for (unsigned lay = 1; lay <= 2; lay++) {
		for (unsigned k = 0; k < sizeof(bitmaps) / 2; k++) {
			struct dta_int_inner in = { .sz = sizeof(in) };
			struct dta_int_report r[1];
			struct dta_int_opts o = { .sz = sizeof(o),
						  .dscp_mask = 1,
						  .dscp_value = 1 };
			uint8_t out[600];
			int len, n;

			memset(hops, 0, sizeof(hops));
			for (unsigned i = 0; i < 4; i++) {
				hops[i].switch_id = 100 + i;
				hops[i].ingress_port = (uint16_t)(i + 1);
				hops[i].egress_port = (uint16_t)(i + 2);
				hops[i].hop_latency = 1000 * i + 7;
				hops[i].queue_id = (uint8_t)i;
				hops[i].queue_occupancy = 0x10000 + i;
				hops[i].ingress_ts = 0xA0000000u + i;
				hops[i].egress_ts = 0xB0000000u + i;
				hops[i].l2_ingress_port = 50 + i;
				hops[i].l2_egress_port = 60 + i;
			}
			in.flow.family = 4;
			in.flow.proto = 17;
			memcpy(in.flow.src, ip_a, 4);
			memcpy(in.flow.dst, ip_b, 4);
			in.flow.sport = 1234;
			in.flow.dport = 80;
			in.ttl = 60;
			in.dscp = 1;
			in.int_md = true;
			in.instructions = bitmaps[k];
			in.remaining_hops = 3;
			in.n_hops = 4;
			in.hops = hops;
			in.md_layout = (uint8_t)lay;
			len = dta_int_inner_build(&in, buf, sizeof(buf));
			if (lay == DTA_INT_MD_LAYOUT_V0_5 &&
			    (bitmaps[k] & 0x0200)) {
				assert_int_equal(len, -EINVAL);
				continue;
			}
			assert_true(len > 0);
			{
				struct dta_int_report x = { 0 };

				x.version = DTA_INT_V1_0;
				x.next = DTA_INT_V10_ETHERNET;
				x.inner = buf;
				x.inner_len = (size_t)len;
				n = dta_int_encode(&x, 1, out, sizeof(out));
				assert_true(n > 0);
			}
			assert_int_equal(dta_int_decode(out, (size_t)n, &o, r, 1),
					 1);
			assert_int_equal(r[0].int_ver, lay == 1 ? 1 : 0);
			assert_int_equal(r[0].n_hops, 4);
			assert_int_equal(r[0].instructions, bitmaps[k]);
			assert_int_equal(r[0].remaining_hops, 3);
			for (unsigned i = 0; i < 4; i++) {
				const struct dta_int_md *h = &r[0].hops[i];
				uint16_t bm = bitmaps[k];

				if (bm & 0x8000)
					assert_int_equal(h->switch_id, 100 + i);
				if (bm & 0x4000)
					assert_int_equal(h->egress_port, i + 2);
				if (bm & 0x2000)
					assert_int_equal(h->hop_latency,
							 1000 * i + 7);
				if (bm & 0x1000)
					assert_int_equal(h->queue_occupancy,
							 0x10000 + i);
				if (bm & 0x0800)
					assert_int_equal(h->ingress_ts,
							 0xA0000000u + i);
				if (bm & 0x0400)
					assert_int_equal(h->egress_ts,
							 0xB0000000u + i);
				if (bm & 0x0200)
					assert_int_equal(h->l2_egress_port,
							 60 + i);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v05_local),
		cmocka_unit_test(test_v05_drop),
		cmocka_unit_test(test_v10),
		cmocka_unit_test(test_v20_queue),
		cmocka_unit_test(test_v20_int_md),
		cmocka_unit_test(test_v20_multi),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_int_md_by_port),
		cmocka_unit_test(test_int_md_ip6_tcp),
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_bad_versions),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_too_many_hops),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_encode_from_struct),
		cmocka_unit_test(test_inner_build),
		cmocka_unit_test(test_inner_build_args),
		cmocka_unit_test(test_v05_int_md),
		cmocka_unit_test(test_v10_int_md),
		cmocka_unit_test(test_separate),
		cmocka_unit_test(test_inner_build_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
