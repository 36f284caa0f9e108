/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INT telemetry report decoders and encoder (dta/int.h). Field layouts and
 * their sources are listed in docs/int.md. Every read is preceded by a
 * length check against the end of the region it belongs to (datagram,
 * individual report, inner packet, INT stack).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "dta/int.h"
#include "internal.h"

/* ---- wire layouts (sizes only; fields are read with dta__be*) ---- */

/* Telemetry Report v0.5 fixed header: Ver(4) NProto(4) D Q F Rsvd(15)
 * hw_id(6), Sequence Number(32), Ingress Timestamp(32). */
struct dta_int_v05_hdr {
	uint8_t w0[4];
	uint32_t seq;
	uint32_t ingress_ts;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_v05_hdr) == 12, "v0.5 fixed header");

/* v0.5 drop report header: Switch id, Ingress/Egress port id (16 each),
 * Queue id(8), Drop reason(8), Pad(16). */
struct dta_int_v05_drop {
	uint32_t switch_id;
	uint16_t ingress_port, egress_port;
	uint8_t queue_id, drop_reason;
	uint16_t pad;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_v05_drop) == 12, "v0.5 drop header");

/* v0.5 switch local header: Switch id, ports, Queue id(8) + Queue
 * occupancy(24), Egress timestamp(32). */
struct dta_int_v05_local {
	uint32_t switch_id;
	uint16_t ingress_port, egress_port;
	uint8_t queue[4];
	uint32_t egress_ts;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_v05_local) == 16, "v0.5 local header");

/* Telemetry Report v1.0 header: Ver(4) Length(4) NProt(3) RepMdBits(6)
 * Reserved(6) D Q F hw_id(6), Switch id, Sequence Number, Ingress
 * Timestamp; then 4 bytes per RepMdBits bit. */
struct dta_int_v10_hdr {
	uint8_t w0[4];
	uint32_t switch_id;
	uint32_t seq;
	uint32_t ingress_ts;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_v10_hdr) == 16, "v1.0 header");

/* Telemetry Report v2.0 group header: Ver(4) hw_id(6) Sequence(22),
 * Node ID(32). */
struct dta_int_v20_group {
	uint8_t w0[4];
	uint32_t node_id;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_v20_group) == 8, "v2.0 group header");

/* v2.0 individual report header: RepType(4) InType(4) Report Length(8)
 * MD Length(8) D Q F I Rsvd(4). */
struct dta_int_v20_report {
	uint8_t types, report_len, md_len, flags;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_v20_report) == 4, "v2.0 report header");

/* v2.0 INT main contents: RepMdBits, Domain Specific ID, DSMdBits,
 * DSMdstatus (16 bits each). */
struct dta_int_v20_main {
	uint16_t rep_md_bits, domain_id, ds_md_bits, ds_md_status;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_v20_main) == 8, "v2.0 INT main contents");

/* INT shim for TCP/UDP, INT v2.x: Type(4) NPT(2) R R, Length(8) (words
 * after the shim), 16 bits by NPT. INT v1.0: Type(8) Reserved(8) Length(8)
 * (words including the shim) DSCP(6) R R. INT v0.5: Type(8) Reserved(8)
 * Length(8) (words including the shim and the tail) Reserved(8). */
struct dta_int_shim {
	uint8_t type_npt, length;
	uint16_t npt_field;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_shim) == 4, "INT shim header");

/* INT-MD metadata header, INT v2.x: Ver(4) D E M R(12) HopML(5)
 * RemainingHopCnt(8), Instruction Bitmap(16), Domain Specific ID(16), DS
 * Instruction(16), DS Flags(16). */
struct dta_int_md_hdr {
	uint8_t w0[4];
	uint16_t instructions, domain_id, ds_instruction, ds_flags;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_md_hdr) == 12, "INT-MD metadata header");

/* INT v1.0 hop-by-hop metadata header: Ver(4) Rep(2) C E M R(10) HopML(5)
 * RemainingHopCnt(8), Instruction Bitmap(16), Reserved(16). INT v0.5:
 * Ver(4) Rep(2) C E R(3) InsCnt(5) MaxHopCnt(8) TotalHopCnt(8), Instruction
 * Bitmap(16), Reserved(16). */
struct dta_int_md_hdr_v1 {
	uint8_t w0[4];
	uint16_t instructions, reserved;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_md_hdr_v1) == 8, "INT v0.5/v1.0 header");

/* INT v0.5 tail after the stack: Proto(8), Destination Port(16), DSCP(8). */
struct dta_int_tail_v05 {
	uint8_t proto;
	uint8_t dport[2];
	uint8_t dscp;
} __attribute__((packed));
static_assert(sizeof(struct dta_int_tail_v05) == 4, "INT v0.5 tail");

#define ETH_HLEN 14
#define VLAN_HLEN 4
#define IPV4_HLEN 20
#define IPV6_HLEN 40
#define UDP_HLEN 8
#define TCP_HLEN 20
#define VLAN_TAGS_MAX 4

#define SHIM_TYPE_INT_MD 1
#define INT_MD_VERSION 2
#define INT_MD_V05 0
#define INT_MD_V10 1

/* How a 16-bit bitmap's fields are laid out: a v2.0 report header, or an
 * INT-MD stack hop of INT v2.x, v1.0 or v0.5. */
enum layout { L_REPORT_V20, L_MD_V2, L_MD_V10, L_MD_V05 };

/* v1.0 RepMdBits, 6 bits with bit 0 the MSB. */
#define V10_PORTS 0x20
#define V10_HOP_LATENCY 0x10
#define V10_QUEUE 0x08
#define V10_EGRESS_TS 0x04
#define V10_DROP 0x02
#define V10_TX_UTIL 0x01

/* v2.0 RepMdBits and INT-MD instruction bits, 16 bits with bit 0 the MSB:
 * bit n is 0x8000 >> n. Bits 4..6 stand for 8 bytes, every other bit for
 * 4; v2.0 RepMdBits bit 0 is reserved where the INT bitmap has Node ID, and
 * bit 15 is Queue ID + Drop reason where INT has the Checksum Complement. */
#define BIT(n) (0x8000u >> (n))

/* A report emptied for decoding. The hop array (about 1 KiB) is left
 * alone: hops are cleared as they are read, so a report costs no more
 * than the hops it carries (clearing the whole struct was a fifth of an
 * INT-MD report's decoding time). */
static void report_clear(struct dta_int_report *r)
{
	memset(r, 0, offsetof(struct dta_int_report, hops));
	r->inner = NULL;
	r->inner_len = 0;
	r->error = 0;
}
#define RESERVED_9_14 0x007Eu

static const struct dta_int_opts default_opts = {
	.sz = sizeof(struct dta_int_opts),
	.dscp_mask = 0x01,
	.dscp_value = 0x01,
};

/* Words field @b takes: v2.x bits 4..6 (64-bit timestamps, L2 ports)
 * are 8 bytes, v1.0 bit 6 (L2 ports) is 8 bytes (its timestamps are 32
 * bits: INT.mdk v1.0 "INT Hop-by-Hop Metadata Header Format"), every v0.5
 * value is 4 bytes (INT.mdk v0.5 "INT Metadata Header and Metadata Stack"). */
static unsigned field_words(unsigned b, enum layout l)
{
	if (l == L_MD_V05)
		return 1;
	if (l == L_MD_V10)
		return b == 6 ? 2 : 1;
	return (b >= 4 && b <= 6) ? 2 : 1;
}

/* 4-byte words the 16-bit bitmap asks for. */
static unsigned bitmap_words(uint16_t bits, enum layout l)
{
	unsigned w = 0;

	for (unsigned b = 0; b < 16; b++)
		if (bits & BIT(b))
			w += field_words(b, l);
	return w;
}

static unsigned bitmap16_words(uint16_t bits)
{
	return bitmap_words(bits, L_REPORT_V20);
}

/*
 * Read the fields @bits selects from @p (exactly bitmap_words(@bits, @l)
 * words, which the caller has checked) into @md. An INT-MD stack (@l not
 * L_REPORT_V20) gives bits 0 (Node ID) and 15 (Checksum Complement) their
 * INT meaning instead of the v2.0 report one (reserved, Queue ID + Drop
 * reason). v0.5 bit 6 (Queue ID + congestion status) and v0.5/v1.0 bit 8
 * are reserved there: skipped.
 */
static void read_bitmap16(const uint8_t *p, uint16_t bits, enum layout l,
			  struct dta_int_md *md)
{
	const bool int_md = l != L_REPORT_V20, ts32 = l == L_MD_V10 ||
						       l == L_MD_V05;

	/* Only the set bits, bit 0 (the MSB) first: a stack of hops is read
	 * with one step per field present, not 16. */
	for (uint32_t rest = bits; rest;) {
		unsigned b = (unsigned)__builtin_clz(rest) - 16;

		rest &= ~BIT(b);
		switch (b) {
		case 0:
			if (int_md) {
				md->switch_id = dta__be32(p);
				md->present |= DTA_INT_MD_SWITCH_ID;
			}
			break;
		case 1:
			md->ingress_port = dta__be16(p);
			md->egress_port = dta__be16(p + 2);
			md->present |= DTA_INT_MD_PORTS;
			break;
		case 2:
			md->hop_latency = dta__be32(p);
			md->present |= DTA_INT_MD_HOP_LATENCY;
			break;
		case 3:
			md->queue_id = p[0];
			md->queue_occupancy = dta__be32(p) & 0xFFFFFF;
			md->present |= DTA_INT_MD_QUEUE;
			break;
		case 4:
			md->ingress_ts = ts32 ? dta__be32(p) : dta__be64(p);
			md->present |= DTA_INT_MD_INGRESS_TS;
			break;
		case 5:
			md->egress_ts = ts32 ? dta__be32(p) : dta__be64(p);
			md->present |= DTA_INT_MD_EGRESS_TS;
			break;
		case 6:
			if (l == L_MD_V05)
				break;
			md->l2_ingress_port = dta__be32(p);
			md->l2_egress_port = dta__be32(p + 4);
			md->present |= DTA_INT_MD_PORTS_L2;
			break;
		case 7:
			md->tx_util = dta__be32(p);
			md->present |= DTA_INT_MD_TX_UTIL;
			break;
		case 8:
			if (l == L_MD_V05 || l == L_MD_V10)
				break;
			md->buffer_id = p[0];
			md->buffer_occupancy = dta__be32(p) & 0xFFFFFF;
			md->present |= DTA_INT_MD_BUFFER;
			break;
		case 15:
			if (!int_md) {
				md->drop_queue_id = p[0];
				md->drop_reason = p[1];
				md->present |= DTA_INT_MD_DROP;
			}
			break;
		default: /* reserved: skipped */
			break;
		}
		p += field_words(b, l) * 4;
	}
}

/* ---- inner packet ---- */

/* @stack bytes of hops of @hop_ml words each at @p, newest hop first, as
 * nodes push onto the stack (INT.mdk, every version). Words past those the
 * instruction bitmap asks for are domain-specific metadata: skipped. */
static int read_stack(const uint8_t *p, size_t stack, enum layout l,
		      struct dta_int_report *r)
{
	size_t hop_bytes = (size_t)r->hop_ml * 4;

	if (stack && (!hop_bytes || stack % hop_bytes))
		return -DTA_E_INT_LENGTH;
	if (stack && bitmap_words(r->instructions, l) > r->hop_ml)
		return -DTA_E_INT_LENGTH;
	if (stack / (hop_bytes ? hop_bytes : 1) > DTA_INT_HOPS_MAX)
		return -DTA_E_INT_HOPS;
	r->n_hops = (uint8_t)(stack ? stack / hop_bytes : 0);
	for (unsigned i = 0; i < r->n_hops; i++) {
		memset(&r->hops[i], 0, sizeof(r->hops[i]));
		read_bitmap16(p + i * hop_bytes, r->instructions, l,
			      &r->hops[i]);
	}
	return 0;
}

/*
 * INT v0.5 and v1.0 (8-bit shim Type 1 at @p): the metadata header's Ver
 * tells them apart. v1.0: shim Length counts the shim, 8-byte header with
 * Hop ML and Remaining Hop Count. v0.5: shim Length also counts the 4-byte
 * tail after the stack; the header has Instruction Count (the bitmap's
 * ones, one 4-byte value each), Max and Total Hop Count, and the stack is
 * exactly InsCnt * 4 * TotalHopCnt bytes. The tail keeps the original
 * destination port, the flow's when INT was marked by port.
 */
static int parse_int_md_v1(const uint8_t *p, size_t len, bool by_port,
			   struct dta_int_report *r)
{
	const size_t hdr = sizeof(struct dta_int_shim) +
			   sizeof(struct dta_int_md_hdr_v1);
	size_t total = (size_t)p[2] * 4, stack;
	const uint8_t *h = p + sizeof(struct dta_int_shim);
	int err;

	if (len < total)
		return -DTA_E_TRUNCATED;
	if (total < hdr)
		return -DTA_E_INT_LENGTH;
	r->int_ver = h[0] >> 4;
	r->instructions = dta__be16(h + 4);
	r->int_domain_id = 0;
	if (r->int_ver == INT_MD_V10) {
		r->has_int_md = true;
		/* E and M as D E M's bits 1 and 0; v1.0 has no D. */
		r->int_flags = (uint8_t)((h[0] & 1) << 1 | h[1] >> 7);
		r->hop_ml = h[2] & 0x1F;
		r->remaining_hops = h[3];
		return read_stack(h + sizeof(struct dta_int_md_hdr_v1),
				  total - hdr, L_MD_V10, r);
	}
	if (r->int_ver != INT_MD_V05)
		return -DTA_E_VERSION;
	if (total < hdr + sizeof(struct dta_int_tail_v05))
		return -DTA_E_INT_LENGTH;
	r->has_int_md = true;
	r->int_flags = (uint8_t)((h[0] & 1) << 1);
	r->hop_ml = h[1] & 0x1F;
	r->remaining_hops = h[2] > h[3] ? (uint8_t)(h[2] - h[3]) : 0;
	stack = total - hdr - sizeof(struct dta_int_tail_v05);
	if ((unsigned)__builtin_popcount(r->instructions) != r->hop_ml ||
	    stack != (size_t)h[3] * r->hop_ml * 4)
		return -DTA_E_INT_LENGTH;
	err = read_stack(h + sizeof(struct dta_int_md_hdr_v1), stack, L_MD_V05,
			 r);
	if (err)
		return err;
	if (by_port)
		r->flow.dport = dta__be16(p + total - 3);
	return 0;
}

/* The INT shim, metadata header and stack at @p (@len bytes to the end of
 * the inner packet), found after the L4 header. @by_port: detected by the
 * UDP destination port, so NPT (v2.x) or the tail (v0.5) is meaningful.
 * The layout is the shim's: an 8-bit Type 1 (byte 0x01: INT v0.5/v1.0) or
 * a 4-bit Type 1 (0x1X: INT v2.x). The two cannot be confused: 0x01 read
 * the v2.x way is Type 0 with a reserved bit set. */
static int parse_int_md(const uint8_t *p, size_t len, bool by_port,
			struct dta_int_report *r)
{
	size_t total, need;
	unsigned type, npt;
	int err;

	if (len < sizeof(struct dta_int_shim))
		return -DTA_E_TRUNCATED;
	if (p[0] == SHIM_TYPE_INT_MD)
		return parse_int_md_v1(p, len, by_port, r);
	type = p[0] >> 4;
	npt = (p[0] >> 2) & 3;
	if (type != SHIM_TYPE_INT_MD)
		return -DTA_E_INT_UNSUPPORTED;
	/* Shim Length counts the metadata header and stack, not the shim
	 * (INT v2.0 onwards). */
	total = sizeof(struct dta_int_shim) + (size_t)p[1] * 4;
	if (len < total)
		return -DTA_E_TRUNCATED;
	if (total < sizeof(struct dta_int_shim) + sizeof(struct dta_int_md_hdr))
		return -DTA_E_INT_LENGTH;
	if (by_port && npt == 3)
		return -DTA_E_INT_UNSUPPORTED;

	const uint8_t *h = p + sizeof(struct dta_int_shim);

	r->int_ver = h[0] >> 4;
	if (r->int_ver != INT_MD_VERSION)
		return -DTA_E_VERSION;
	r->has_int_md = true;
	r->int_flags = (h[0] >> 1) & 7;
	r->hop_ml = h[2] & 0x1F;
	r->remaining_hops = h[3];
	r->instructions = dta__be16(h + 4);
	r->int_domain_id = dta__be16(h + 6);
	err = read_stack(h + sizeof(struct dta_int_md_hdr),
			 total - sizeof(struct dta_int_shim) -
				 sizeof(struct dta_int_md_hdr),
			 L_MD_V2, r);
	if (err)
		return err;

	if (by_port && npt == 1) {
		r->flow.dport = dta__be16(p + 2);
	} else if (by_port && npt == 2) {
		/* A UDP header was inserted; the original L4 header follows
		 * the stack and the shim keeps the IP protocol. */
		r->flow.proto = p[3];
		r->flow.sport = r->flow.dport = 0;
		if (r->flow.proto == 6 || r->flow.proto == 17) {
			need = total + 4;
			if (len < need)
				return -DTA_E_TRUNCATED;
			r->flow.sport = dta__be16(p + total);
			r->flow.dport = dta__be16(p + total + 2);
		}
	}
	return 0;
}

static bool fragment_tail(const uint8_t *ip4)
{
	return (dta__be16(ip4 + 6) & 0x1FFF) != 0;
}

static void hop_from_ttl(struct dta_int_report *r, const struct dta_int_opts *o)
{
	static const uint8_t guess[] = { 32, 64, 128, 255 };
	unsigned init = o->ttl_init;

	if (!init)
		for (unsigned i = 0; i < sizeof(guess); i++)
			if (guess[i] >= r->ttl) {
				init = guess[i];
				break;
			}
	r->hop_index = r->ttl > init ? DTA_INT_HOP_UNKNOWN :
				       (uint8_t)(init - r->ttl);
}

/* IPv6 extension headers skipped to reach the L4 header. */
static bool ipv6_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 60;
}

/* Inner packet starting with @first (an InType value: Ethernet, IPv4,
 * IPv6; None is handled by the caller). Fills flow, ttl, hop index, the
 * INT-MD fields. */
static int parse_inner(const uint8_t *p, size_t len, unsigned first,
		       const struct dta_int_opts *o, struct dta_int_report *r)
{
	size_t off = 0, l4;
	uint16_t etype;
	uint8_t proto, dscp;
	bool ports = true;

	r->inner = p;
	r->inner_len = len;
	if (first == DTA_INT_INTYPE_ETHERNET) {
		if (len < ETH_HLEN)
			return -DTA_E_TRUNCATED;
		etype = dta__be16(p + 12);
		off = ETH_HLEN;
		for (unsigned t = 0; etype == 0x8100 || etype == 0x88A8 ||
				     etype == 0x9100; t++) {
			if (t == VLAN_TAGS_MAX)
				return -DTA_E_INT_UNSUPPORTED;
			if (len < off + VLAN_HLEN)
				return -DTA_E_TRUNCATED;
			etype = dta__be16(p + off + 2);
			off += VLAN_HLEN;
		}
		if (etype == 0x0800)
			first = DTA_INT_INTYPE_IPV4;
		else if (etype == 0x86DD)
			first = DTA_INT_INTYPE_IPV6;
		else
			return 0; /* not IP: no flow */
	}

	if (first == DTA_INT_INTYPE_IPV4) {
		size_t ihl;

		if (len < off + IPV4_HLEN)
			return -DTA_E_TRUNCATED;
		ihl = (size_t)(p[off] & 0x0F) * 4;
		if (p[off] >> 4 != 4 || ihl < IPV4_HLEN)
			return -DTA_E_MALFORMED;
		if (len < off + ihl)
			return -DTA_E_TRUNCATED;
		r->flow.family = 4;
		dscp = p[off + 1] >> 2;
		r->ttl = p[off + 8];
		proto = p[off + 9];
		memcpy(r->flow.src, p + off + 12, 4);
		memcpy(r->flow.dst, p + off + 16, 4);
		ports = !fragment_tail(p + off);
		l4 = off + ihl;
	} else {
		uint8_t nh;

		if (len < off + IPV6_HLEN)
			return -DTA_E_TRUNCATED;
		if (p[off] >> 4 != 6)
			return -DTA_E_MALFORMED;
		r->flow.family = 6;
		dscp = (uint8_t)((dta__be16(p + off) >> 6) & 0x3F);
		r->ttl = p[off + 7];
		nh = p[off + 6];
		memcpy(r->flow.src, p + off + 8, 16);
		memcpy(r->flow.dst, p + off + 24, 16);
		l4 = off + IPV6_HLEN;
		for (unsigned i = 0; ipv6_ext(nh) || nh == 44; i++) {
			if (i == 8)
				return -DTA_E_INT_UNSUPPORTED;
			if (len < l4 + 8)
				return -DTA_E_TRUNCATED;
			if (nh == 44) { /* fragment header, fixed 8 bytes */
				if (dta__be16(p + l4 + 2) & 0xFFF8)
					ports = false;
				nh = p[l4];
				l4 += 8;
				continue;
			}
			size_t el = ((size_t)p[l4 + 1] + 1) * 8;

			nh = p[l4];
			l4 += el;
			if (len < l4)
				return -DTA_E_TRUNCATED;
		}
		proto = nh;
	}
	r->flow.proto = proto;
	hop_from_ttl(r, o);
	if (!ports || (proto != 6 && proto != 17))
		return 0;

	size_t l4len = proto == 17 ? UDP_HLEN : TCP_HLEN;
	bool by_port, by_dscp;

	if (len < l4 + l4len)
		return -DTA_E_TRUNCATED;
	r->flow.sport = dta__be16(p + l4);
	r->flow.dport = dta__be16(p + l4 + 2);
	if (proto == 6) {
		/* INT follows the TCP options (INT.mdk leaves before or after
		 * to the domain; docs/int.md). */
		l4len = (size_t)(p[l4 + 12] >> 4) * 4;
		if (l4len < TCP_HLEN)
			return -DTA_E_MALFORMED;
		if (len < l4 + l4len)
			return -DTA_E_TRUNCATED;
	}
	by_port = proto == 17 && o->udp_port && r->flow.dport == o->udp_port;
	by_dscp = o->dscp_mask && (dscp & o->dscp_mask) == o->dscp_value;
	if (!by_port && !by_dscp)
		return 0;
	return parse_int_md(p + l4 + l4len, len - l4 - l4len, by_port, r);
}

/* ---- report formats ---- */

static int decode_v05(const uint8_t *p, size_t len,
		      const struct dta_int_opts *o, struct dta_int_report *r)
{
	size_t off = sizeof(struct dta_int_v05_hdr);

	if (len < off)
		return -DTA_E_TRUNCATED;
	r->next = p[0] & 0x0F;
	r->flags = (uint8_t)((p[1] >> 4) & 0x0E);
	r->hw_id = p[3] & 0x3F;
	r->seq = dta__be32(p + 4);
	r->local.ingress_ts = dta__be32(p + 8);
	r->local.present = DTA_INT_MD_INGRESS_TS;
	r->rep_type = DTA_INT_REPTYPE_INT;
	switch (r->next) {
	case DTA_INT_V05_ETHERNET:
		break;
	case DTA_INT_V05_DROP:
		if (len < off + sizeof(struct dta_int_v05_drop))
			return -DTA_E_TRUNCATED;
		r->local.switch_id = dta__be32(p + off);
		r->local.ingress_port = dta__be16(p + off + 4);
		r->local.egress_port = dta__be16(p + off + 6);
		r->local.drop_queue_id = p[off + 8];
		r->local.drop_reason = p[off + 9];
		r->local.present |= DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
				    DTA_INT_MD_DROP;
		off += sizeof(struct dta_int_v05_drop);
		break;
	case DTA_INT_V05_LOCAL:
		if (len < off + sizeof(struct dta_int_v05_local))
			return -DTA_E_TRUNCATED;
		r->local.switch_id = dta__be32(p + off);
		r->local.ingress_port = dta__be16(p + off + 4);
		r->local.egress_port = dta__be16(p + off + 6);
		r->local.queue_id = p[off + 8];
		r->local.queue_occupancy = dta__be32(p + off + 8) & 0xFFFFFF;
		r->local.egress_ts = dta__be32(p + off + 12);
		r->local.present |= DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
				    DTA_INT_MD_QUEUE | DTA_INT_MD_EGRESS_TS;
		off += sizeof(struct dta_int_v05_local);
		break;
	default:
		return -DTA_E_INT_UNSUPPORTED;
	}
	r->node_id = r->local.switch_id;
	return parse_inner(p + off, len - off, DTA_INT_INTYPE_ETHERNET, o, r);
}

static int decode_v10(const uint8_t *p, size_t len,
		      const struct dta_int_opts *o, struct dta_int_report *r)
{
	static const uint8_t first[] = { DTA_INT_INTYPE_ETHERNET,
					 DTA_INT_INTYPE_IPV4,
					 DTA_INT_INTYPE_IPV6 };
	size_t off = sizeof(struct dta_int_v10_hdr), hlen;
	unsigned bits, words = 0;
	struct dta_int_md *md = &r->local;

	if (len < off)
		return -DTA_E_TRUNCATED;
	hlen = (size_t)(p[0] & 0x0F) * 4;
	r->next = p[1] >> 5;
	bits = (unsigned)(p[1] & 0x1F) << 1 | p[2] >> 7;
	r->rep_md_bits = (uint16_t)bits;
	r->flags = (uint8_t)((((p[2] & 0x01) << 2) | (p[3] >> 6)) << 1);
	r->hw_id = p[3] & 0x3F;
	r->node_id = dta__be32(p + 4);
	r->seq = dta__be32(p + 8);
	r->rep_type = DTA_INT_REPTYPE_INT;
	md->switch_id = r->node_id;
	md->ingress_ts = dta__be32(p + 12);
	md->present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_INGRESS_TS;
	for (unsigned b = bits; b; b &= b - 1)
		words++;
	if (hlen != off + (size_t)words * 4)
		return -DTA_E_INT_LENGTH;
	if (len < hlen)
		return -DTA_E_TRUNCATED;
	if (r->next >= sizeof(first))
		return -DTA_E_INT_UNSUPPORTED;
	/* Optional metadata in bitmap order, 4 bytes per bit. */
	if (bits & V10_PORTS) {
		md->ingress_port = dta__be16(p + off);
		md->egress_port = dta__be16(p + off + 2);
		md->present |= DTA_INT_MD_PORTS;
		off += 4;
	}
	if (bits & V10_HOP_LATENCY) {
		md->hop_latency = dta__be32(p + off);
		md->present |= DTA_INT_MD_HOP_LATENCY;
		off += 4;
	}
	if (bits & V10_QUEUE) {
		md->queue_id = p[off];
		md->queue_occupancy = dta__be32(p + off) & 0xFFFFFF;
		md->present |= DTA_INT_MD_QUEUE;
		off += 4;
	}
	if (bits & V10_EGRESS_TS) {
		md->egress_ts = dta__be32(p + off);
		md->present |= DTA_INT_MD_EGRESS_TS;
		off += 4;
	}
	if (bits & V10_DROP) {
		md->drop_queue_id = p[off];
		md->drop_reason = p[off + 1];
		md->present |= DTA_INT_MD_DROP;
		off += 4;
	}
	if (bits & V10_TX_UTIL) {
		md->tx_util = dta__be32(p + off);
		md->present |= DTA_INT_MD_TX_UTIL;
		off += 4;
	}
	return parse_inner(p + off, len - off, first[r->next], o, r);
}

/* One v2.0 individual report at @p; *@used gets its size. */
static int decode_v20_one(const uint8_t *p, size_t len,
			  const struct dta_int_opts *o,
			  struct dta_int_report *r, size_t *used)
{
	size_t rlen, off = sizeof(struct dta_int_v20_report), md_bytes;
	unsigned in_type;

	if (len < off)
		return -DTA_E_TRUNCATED;
	r->rep_type = p[0] >> 4;
	r->next = in_type = p[0] & 0x0F;
	r->flags = p[3] >> 4;
	/* Report Length excludes the first word; 0xFF runs to the end. */
	if (p[1] == DTA_INT_LEN_TO_END) {
		rlen = len;
	} else {
		rlen = off + (size_t)p[1] * 4;
		if (len < rlen)
			return -DTA_E_TRUNCATED;
	}
	*used = rlen;
	md_bytes = (size_t)p[2] * 4;

	if (r->rep_type == DTA_INT_REPTYPE_INT) {
		unsigned words;

		if (rlen < off + sizeof(struct dta_int_v20_main))
			return p[1] == DTA_INT_LEN_TO_END ? -DTA_E_TRUNCATED :
							    -DTA_E_INT_LENGTH;
		r->rep_md_bits = dta__be16(p + off);
		r->domain_id = dta__be16(p + off + 2);
		r->ds_md_bits = dta__be16(p + off + 4);
		r->ds_md_status = dta__be16(p + off + 6);
		off += sizeof(struct dta_int_v20_main);
		words = bitmap16_words(r->rep_md_bits);
		/* MD Length covers the baseline words RepMdBits selects plus
		 * domain-specific ones, which only DSMdBits can account for. */
		if (md_bytes < (size_t)words * 4 ||
		    (!r->ds_md_bits && md_bytes != (size_t)words * 4))
			return -DTA_E_INT_LENGTH;
		if (rlen < off + md_bytes)
			return p[1] == DTA_INT_LEN_TO_END ? -DTA_E_TRUNCATED :
							    -DTA_E_INT_LENGTH;
		read_bitmap16(p + off, r->rep_md_bits, L_REPORT_V20, &r->local);
		off += md_bytes;
	} else if (r->rep_type != DTA_INT_REPTYPE_INNER_ONLY) {
		return -DTA_E_INT_UNSUPPORTED;
	}
	r->local.switch_id = r->node_id;
	r->local.present |= DTA_INT_MD_SWITCH_ID;

	switch (in_type) {
	case DTA_INT_INTYPE_NONE:
		r->inner = p + off;
		r->inner_len = rlen - off;
		return 0;
	case DTA_INT_INTYPE_ETHERNET:
	case DTA_INT_INTYPE_IPV4:
	case DTA_INT_INTYPE_IPV6:
		return parse_inner(p + off, rlen - off, in_type, o, r);
	default:
		return -DTA_E_INT_UNSUPPORTED;
	}
}

static int decode_v20(const uint8_t *p, size_t len,
		      const struct dta_int_opts *o, struct dta_int_report *out,
		      size_t max)
{
	size_t off = sizeof(struct dta_int_v20_group), used;
	uint32_t seq;
	uint8_t hw_id;
	uint32_t node;
	size_t n = 0;

	if (len < off + sizeof(struct dta_int_v20_report))
		return -DTA_E_TRUNCATED;
	hw_id = (uint8_t)((dta__be16(p) >> 6) & 0x3F);
	seq = dta__be32(p) & 0x3FFFFF;
	node = dta__be32(p + 4);
	while (off < len) {
		struct dta_int_report *r;
		int err;

		if (n == max)
			return -DTA_E_INT_TOOMANY;
		r = &out[n];
		report_clear(r);
		r->version = DTA_INT_V2_0;
		r->hw_id = hw_id;
		r->seq = seq;
		r->node_id = node;
		r->hop_index = DTA_INT_HOP_UNKNOWN;
		used = 0;
		err = decode_v20_one(p + off, len - off, o, r, &used);
		if (err && o->separate) {
			/* Framed by its own header: refuse it alone. Report
			 * Length past the datagram, or fewer bytes left than
			 * a report header: it takes the rest. */
			r->error = err;
			used = used && used <= len - off ? used : len - off;
		} else if (err) {
			return err;
		}
		off += used;
		n++;
	}
	return (int)n;
}

DTA_API int dta_int_decode(const uint8_t *buf, size_t len,
			   const struct dta_int_opts *opts,
			   struct dta_int_report *out, size_t max)
{
	int err;

	if (!buf || !out || !max)
		return -EINVAL;
	if (!opts)
		opts = &default_opts;
	else if (opts->sz < sizeof(*opts))
		return -EINVAL;
	if (len < 1)
		return -DTA_E_TRUNCATED;
	switch (buf[0] >> 4) {
	case DTA_INT_V0_5:
	case DTA_INT_V1_0:
		report_clear(out);
		out->version = buf[0] >> 4;
		out->hop_index = DTA_INT_HOP_UNKNOWN;
		err = out->version == DTA_INT_V0_5 ?
			      decode_v05(buf, len, opts, out) :
			      decode_v10(buf, len, opts, out);
		/* Past the fixed header (12 or 16 bytes), seq and ids were
		 * read: with @separate the report is returned refused. */
		if (err && opts->separate &&
		    len >= (out->version == DTA_INT_V0_5 ?
				    sizeof(struct dta_int_v05_hdr) :
				    sizeof(struct dta_int_v10_hdr))) {
			out->error = err;
			return 1;
		}
		return err ? err : 1;
	case DTA_INT_V2_0:
		return decode_v20(buf, len, opts, out, max);
	default:
		return -DTA_E_VERSION;
	}
}

/* ---- encoder ---- */

/* The fields @bits asks for from one hop, in layout @l's widths
 * (field_words()). Bit 0 is the node id in an INT-MD stack and reserved
 * in a v2.0 report; the buffer (8) and drop (15) fields exist from v2.0
 * on; reserved fields get the all-ones "not available" value. v0.5 has no
 * bit 6 (its callers refuse it). */
static uint8_t *put_fields(uint8_t *q, uint16_t bits, enum layout l,
			   const struct dta_int_md *md)
{
	const bool v2 = l == L_REPORT_V20 || l == L_MD_V2;

	for (unsigned b = 0; b < 16; b++) {
		const unsigned w = field_words(b, l);

		if (!(bits & BIT(b)))
			continue;
		if (b == 0 && l != L_REPORT_V20)
			dta__put_be32(q, md->switch_id);
		else if (b == 1) {
			dta__put_be16(q, md->ingress_port);
			dta__put_be16(q + 2, md->egress_port);
		} else if (b == 2)
			dta__put_be32(q, md->hop_latency);
		else if (b == 3)
			dta__put_be32(q, (uint32_t)md->queue_id << 24 |
						 (md->queue_occupancy & 0xFFFFFF));
		else if ((b == 4 || b == 5) && w == 2)
			dta__put_be64(q, b == 4 ? md->ingress_ts
						: md->egress_ts);
		else if (b == 4 || b == 5)
			dta__put_be32(q, (uint32_t)(b == 4 ? md->ingress_ts
							   : md->egress_ts));
		else if (b == 6) {
			dta__put_be32(q, md->l2_ingress_port);
			dta__put_be32(q + 4, md->l2_egress_port);
		} else if (b == 7)
			dta__put_be32(q, md->tx_util);
		else if (b == 8 && v2)
			dta__put_be32(q, (uint32_t)md->buffer_id << 24 |
						 (md->buffer_occupancy & 0xFFFFFF));
		else if (b == 15 && v2) {
			q[0] = md->drop_queue_id;
			q[1] = md->drop_reason;
			q[2] = q[3] = 0;
		} else
			dta__put_be32(q, 0xFFFFFFFF);
		q += w * 4;
	}
	return q;
}

static uint16_t v20_bits(const struct dta_int_report *r)
{
	const uint32_t pr = r->local.present;
	uint16_t bits = r->rep_md_bits & (BIT(0) | RESERVED_9_14);

	bits |= (pr & DTA_INT_MD_PORTS) ? BIT(1) : 0;
	bits |= (pr & DTA_INT_MD_HOP_LATENCY) ? BIT(2) : 0;
	bits |= (pr & DTA_INT_MD_QUEUE) ? BIT(3) : 0;
	bits |= (pr & DTA_INT_MD_INGRESS_TS) ? BIT(4) : 0;
	bits |= (pr & DTA_INT_MD_EGRESS_TS) ? BIT(5) : 0;
	bits |= (pr & DTA_INT_MD_PORTS_L2) ? BIT(6) : 0;
	bits |= (pr & DTA_INT_MD_TX_UTIL) ? BIT(7) : 0;
	bits |= (pr & DTA_INT_MD_BUFFER) ? BIT(8) : 0;
	bits |= (pr & DTA_INT_MD_DROP) ? BIT(15) : 0;
	return bits;
}

static uint8_t v10_bits(const struct dta_int_report *r)
{
	const uint32_t pr = r->local.present;
	uint8_t bits = 0;

	bits |= (pr & DTA_INT_MD_PORTS) ? V10_PORTS : 0;
	bits |= (pr & DTA_INT_MD_HOP_LATENCY) ? V10_HOP_LATENCY : 0;
	bits |= (pr & DTA_INT_MD_QUEUE) ? V10_QUEUE : 0;
	bits |= (pr & DTA_INT_MD_EGRESS_TS) ? V10_EGRESS_TS : 0;
	bits |= (pr & DTA_INT_MD_DROP) ? V10_DROP : 0;
	bits |= (pr & DTA_INT_MD_TX_UTIL) ? V10_TX_UTIL : 0;
	return bits;
}

static int encode_v05(const struct dta_int_report *r, uint8_t *buf,
		      size_t cap)
{
	const struct dta_int_md *md = &r->local;
	size_t hlen = sizeof(struct dta_int_v05_hdr);

	if (r->next == DTA_INT_V05_DROP)
		hlen += sizeof(struct dta_int_v05_drop);
	else if (r->next == DTA_INT_V05_LOCAL)
		hlen += sizeof(struct dta_int_v05_local);
	else if (r->next != DTA_INT_V05_ETHERNET)
		return -EINVAL;
	if (cap < hlen + r->inner_len)
		return -ENOSPC;
	memset(buf, 0, hlen);
	buf[0] = (uint8_t)(DTA_INT_V0_5 << 4 | r->next);
	buf[1] = (uint8_t)((r->flags & 0x0E) << 4);
	buf[3] = r->hw_id;
	dta__put_be32(buf + 4, r->seq);
	dta__put_be32(buf + 8, (uint32_t)md->ingress_ts);
	if (r->next != DTA_INT_V05_ETHERNET) {
		uint8_t *q = buf + sizeof(struct dta_int_v05_hdr);

		dta__put_be32(q, md->switch_id);
		dta__put_be16(q + 4, md->ingress_port);
		dta__put_be16(q + 6, md->egress_port);
		if (r->next == DTA_INT_V05_DROP) {
			q[8] = md->drop_queue_id;
			q[9] = md->drop_reason;
		} else {
			dta__put_be32(q + 8, (uint32_t)md->queue_id << 24 |
						     (md->queue_occupancy & 0xFFFFFF));
			dta__put_be32(q + 12, (uint32_t)md->egress_ts);
		}
	}
	if (r->inner_len)
		memcpy(buf + hlen, r->inner, r->inner_len);
	return (int)(hlen + r->inner_len);
}

static int encode_v10(const struct dta_int_report *r, uint8_t *buf,
		      size_t cap)
{
	const struct dta_int_md *md = &r->local;
	uint8_t bits = v10_bits(r), words = 0;
	size_t hlen;
	uint8_t *q;

	if (r->next > DTA_INT_V10_IPV6)
		return -EINVAL;
	for (unsigned b = bits; b; b &= b - 1)
		words++;
	hlen = sizeof(struct dta_int_v10_hdr) + (size_t)words * 4;
	if (cap < hlen + r->inner_len)
		return -ENOSPC;
	buf[0] = (uint8_t)(DTA_INT_V1_0 << 4 | (hlen / 4));
	buf[1] = (uint8_t)(r->next << 5 | bits >> 1);
	buf[2] = (uint8_t)((bits & 1) << 7 | ((r->flags >> 3) & 1));
	buf[3] = (uint8_t)(((r->flags >> 1) & 3) << 6 | (r->hw_id & 0x3F));
	dta__put_be32(buf + 4, r->node_id);
	dta__put_be32(buf + 8, r->seq);
	dta__put_be32(buf + 12, (uint32_t)md->ingress_ts);
	q = buf + sizeof(struct dta_int_v10_hdr);
	if (bits & V10_PORTS) {
		dta__put_be16(q, md->ingress_port);
		dta__put_be16(q + 2, md->egress_port);
		q += 4;
	}
	if (bits & V10_HOP_LATENCY) {
		dta__put_be32(q, md->hop_latency);
		q += 4;
	}
	if (bits & V10_QUEUE) {
		dta__put_be32(q, (uint32_t)md->queue_id << 24 |
					 (md->queue_occupancy & 0xFFFFFF));
		q += 4;
	}
	if (bits & V10_EGRESS_TS) {
		dta__put_be32(q, (uint32_t)md->egress_ts);
		q += 4;
	}
	if (bits & V10_DROP) {
		q[0] = md->drop_queue_id;
		q[1] = md->drop_reason;
		q[2] = q[3] = 0;
		q += 4;
	}
	if (bits & V10_TX_UTIL)
		dta__put_be32(q, md->tx_util);
	if (r->inner_len)
		memcpy(buf + hlen, r->inner, r->inner_len);
	return (int)(hlen + r->inner_len);
}

static int encode_v20(const struct dta_int_report *r, size_t n, uint8_t *buf,
		      size_t cap)
{
	size_t off = sizeof(struct dta_int_v20_group);

	if (cap < off)
		return -ENOSPC;
	dta__put_be32(buf, (uint32_t)DTA_INT_V2_0 << 28 |
				   (uint32_t)(r[0].hw_id & 0x3F) << 22 |
				   (r[0].seq & 0x3FFFFF));
	dta__put_be32(buf + 4, r[0].node_id);
	for (size_t i = 0; i < n; i++) {
		const struct dta_int_report *x = &r[i];
		uint16_t bits = 0;
		size_t mainlen = 0, md = 0, body, words;
		uint8_t *q;

		if (x->rep_type == DTA_INT_REPTYPE_INT) {
			if (x->ds_md_bits)
				return -EINVAL;
			bits = v20_bits(x);
			mainlen = sizeof(struct dta_int_v20_main);
			md = (size_t)bitmap16_words(bits) * 4;
		} else if (x->rep_type != DTA_INT_REPTYPE_INNER_ONLY) {
			return -EINVAL;
		}
		if (x->next > 15)
			return -EINVAL;
		body = mainlen + md + x->inner_len;
		words = body / 4;
		if (body % 4 || words >= DTA_INT_LEN_TO_END) {
			if (i + 1 != n)
				return -EINVAL;
			words = DTA_INT_LEN_TO_END;
		}
		if (cap - off < sizeof(struct dta_int_v20_report) + body)
			return -ENOSPC;
		q = buf + off;
		q[0] = (uint8_t)(x->rep_type << 4 | x->next);
		q[1] = (uint8_t)words;
		q[2] = (uint8_t)(md / 4);
		q[3] = (uint8_t)((x->flags & 0x0F) << 4);
		q += sizeof(struct dta_int_v20_report);
		if (mainlen) {
			dta__put_be16(q, bits);
			dta__put_be16(q + 2, x->domain_id);
			dta__put_be16(q + 4, 0);
			dta__put_be16(q + 6, x->ds_md_status);
			q = put_fields(q + mainlen, bits, L_REPORT_V20,
				       &x->local);
		}
		if (x->inner_len)
			memcpy(q, x->inner, x->inner_len);
		off += sizeof(struct dta_int_v20_report) + body;
	}
	return (int)off;
}

DTA_API int dta_int_encode(const struct dta_int_report *r, size_t n,
			   uint8_t *buf, size_t cap)
{
	if (!r || !buf || !n || n > DTA_INT_REPORTS_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct dta_int_report *x = &r[i];

		/* Values wider than their wire fields are refused, not cut. */
		if ((x->inner_len && !x->inner) || x->hw_id > 0x3F ||
		    x->flags > 0x0F || x->local.queue_occupancy > 0xFFFFFF ||
		    x->local.buffer_occupancy > 0xFFFFFF ||
		    (x->version == DTA_INT_V2_0 && x->seq > 0x3FFFFF))
			return -EINVAL;
	}
	switch (r[0].version) {
	case DTA_INT_V0_5:
		return n == 1 ? encode_v05(r, buf, cap) : -EINVAL;
	case DTA_INT_V1_0:
		return n == 1 ? encode_v10(r, buf, cap) : -EINVAL;
	case DTA_INT_V2_0:
		return encode_v20(r, n, buf, cap);
	default:
		return -EINVAL;
	}
}

/* ---- inner packet builder ---- */

DTA_API int dta_int_inner_build(const struct dta_int_inner *in, uint8_t *buf,
				size_t cap)
{
	size_t iplen, l4len, intlen = 0, hop_bytes = 0, total;
	enum layout lay = L_MD_V2;
	unsigned words;
	uint8_t *p;

	if (!in || !buf || in->sz < sizeof(*in))
		return -EINVAL;
	if ((in->flow.family != 4 && in->flow.family != 6) ||
	    (in->flow.proto != 6 && in->flow.proto != 17) || in->dscp > 63)
		return -EINVAL;
	if (in->int_md) {
		if (in->n_hops > DTA_INT_HOPS_MAX || (in->n_hops && !in->hops) ||
		    (in->instructions & 0x007Fu) ||
		    in->md_layout > DTA_INT_MD_LAYOUT_V0_5 ||
		    (in->md_layout == DTA_INT_MD_LAYOUT_V0_5 &&
		     (in->instructions & (BIT(6) | BIT(8)))) ||
		    (in->md_layout == DTA_INT_MD_LAYOUT_V1_0 &&
		     (in->instructions & BIT(8))))
			return -EINVAL;
		lay = in->md_layout == DTA_INT_MD_LAYOUT_V1_0 ? L_MD_V10 :
		      in->md_layout == DTA_INT_MD_LAYOUT_V0_5 ? L_MD_V05 :
								L_MD_V2;
		words = bitmap_words(in->instructions, lay);
		hop_bytes = (size_t)words * 4;
		for (unsigned i = 0; i < in->n_hops; i++)
			if (in->hops[i].queue_occupancy > 0xFFFFFF ||
			    in->hops[i].buffer_occupancy > 0xFFFFFF)
				return -EINVAL;
		intlen = sizeof(struct dta_int_shim) +
			 (lay == L_MD_V2 ? sizeof(struct dta_int_md_hdr) :
					   sizeof(struct dta_int_md_hdr_v1)) +
			 in->n_hops * hop_bytes +
			 (lay == L_MD_V05 ? sizeof(struct dta_int_tail_v05) : 0);
		/* v2.x Length excludes the shim; v1.0/v0.5 include it. */
		if (hop_bytes > 31 * 4 ||
		    (intlen - (lay == L_MD_V2 ? 4 : 0)) / 4 > 255 ||
		    (lay == L_MD_V05 &&
		     in->remaining_hops + in->n_hops > 255))
			return -EINVAL;
	}
	iplen = in->flow.family == 4 ? 20 : 40;
	l4len = in->flow.proto == 6 ? 20 : 8;
	if (in->payload_len > 65535)
		return -EINVAL;
	total = 14 + iplen + l4len + intlen + in->payload_len;
	if (total - 14 > 65535)
		return -EINVAL;
	if (cap < total)
		return -ENOSPC;
	memset(buf, 0, total);
	/* Ethernet: locally administered unicast MACs. */
	buf[0] = 0x02;
	buf[5] = 0x02;
	buf[6] = 0x02;
	buf[11] = 0x01;
	p = buf + 14;
	if (in->flow.family == 4) {
		dta__put_be16(buf + 12, 0x0800);
		p[0] = 0x45;
		p[1] = (uint8_t)(in->dscp << 2);
		dta__put_be16(p + 2, (uint16_t)(total - 14));
		p[8] = in->ttl;
		p[9] = in->flow.proto;
		memcpy(p + 12, in->flow.src, 4);
		memcpy(p + 16, in->flow.dst, 4);
	} else {
		dta__put_be16(buf + 12, 0x86DD);
		dta__put_be32(p, 6u << 28 | (uint32_t)in->dscp << 22);
		dta__put_be16(p + 4, (uint16_t)(total - 14 - 40));
		p[6] = in->flow.proto;
		p[7] = in->ttl;
		memcpy(p + 8, in->flow.src, 16);
		memcpy(p + 24, in->flow.dst, 16);
	}
	p += iplen;
	dta__put_be16(p, in->flow.sport);
	dta__put_be16(p + 2, in->flow.dport);
	if (in->flow.proto == 6)
		p[12] = 5 << 4; /* data offset 5 words, no options */
	else
		dta__put_be16(p + 4, (uint16_t)(total - 14 - iplen));
	p += l4len;
	if (in->int_md) {
		if (lay == L_MD_V2) {
			/* Shim: Type 1 (INT-MD), NPT 0; Length counts the
			 * metadata header and the stack, not the shim. */
			p[0] = SHIM_TYPE_INT_MD << 4;
			p[1] = (uint8_t)((intlen - sizeof(struct dta_int_shim)) / 4);
			p += sizeof(struct dta_int_shim);
			p[0] = INT_MD_VERSION << 4;
			p[2] = (uint8_t)(hop_bytes / 4);
			p[3] = in->remaining_hops;
			dta__put_be16(p + 4, in->instructions);
			dta__put_be16(p + 6, in->domain_id);
			p += sizeof(struct dta_int_md_hdr);
		} else {
			/* Shim: 8-bit Type 1, Length in words with the shim
			 * (and the v0.5 tail). */
			p[0] = SHIM_TYPE_INT_MD;
			p[2] = (uint8_t)(intlen / 4);
			p += sizeof(struct dta_int_shim);
			if (lay == L_MD_V10) {
				p[0] = INT_MD_V10 << 4;
				p[2] = (uint8_t)(hop_bytes / 4);
				p[3] = in->remaining_hops;
			} else {
				p[0] = INT_MD_V05 << 4;
				p[1] = (uint8_t)(hop_bytes / 4);
				p[2] = (uint8_t)(in->remaining_hops + in->n_hops);
				p[3] = in->n_hops;
			}
			dta__put_be16(p + 4, in->instructions);
			p += sizeof(struct dta_int_md_hdr_v1);
		}
		for (unsigned i = 0; i < in->n_hops; i++)
			p = put_fields(p, in->instructions, lay, &in->hops[i]);
		if (lay == L_MD_V05) {
			p[0] = in->flow.proto;
			dta__put_be16(p + 1, in->flow.dport);
			p[3] = 0;
		}
	}
	return (int)total;
}
