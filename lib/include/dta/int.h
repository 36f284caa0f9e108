/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INT telemetry reports (In-band Network Telemetry) from switches that do
 * not speak DTA: decoders for the report formats v0.5, v1.0 and v2.0 of the
 * P4.org "Telemetry Report Format" specification, the inner packet they
 * carry, and the INT-MD shim, metadata header and per-hop metadata stack of
 * the INT specification (INT over TCP/UDP). docs/int.md lists, field by
 * field, which document and version each layout comes from, and what is
 * not supported.
 *
 * The decoders only read: no allocation, no printing, no global state. They
 * are thread-safe. A datagram decodes whole or not at all: on error the
 * output array may have been written but its contents are unspecified.
 * All fields are host byte order; @inner points into the caller's buffer.
 */
#ifndef DTA_INT_H
#define DTA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* UDP port SD-Fabric (fabric-tna) sends its v0.5 reports to. */
#define DTA_INT_V05_UDP_PORT 32766

/* The report format, equal to the Ver field of the first header. */
enum dta_int_version {
	DTA_INT_V0_5 = 0, /* Telemetry Report v0.5 (fabric-tna)  */
	DTA_INT_V1_0 = 1, /* Telemetry Report v1.0               */
	DTA_INT_V2_0 = 2, /* Telemetry Report v2.0 (group header) */
};

/* v0.5 NProto: what follows the 12-byte fixed header. */
enum dta_int_v05_nproto {
	DTA_INT_V05_ETHERNET = 0,
	DTA_INT_V05_DROP = 1,  /* 12-byte drop report header, then Ethernet */
	DTA_INT_V05_LOCAL = 2, /* 16-byte switch local header, then Ethernet */
};

/* v1.0 NProt: the inner packet's first header. */
enum dta_int_v10_nproto {
	DTA_INT_V10_ETHERNET = 0,
	DTA_INT_V10_IPV4 = 1,
	DTA_INT_V10_IPV6 = 2,
};

/* v2.0 RepType and the InType values the decoder accepts. */
#define DTA_INT_REPTYPE_INNER_ONLY 0
#define DTA_INT_REPTYPE_INT 1
#define DTA_INT_INTYPE_NONE 0
#define DTA_INT_INTYPE_ETHERNET 3
#define DTA_INT_INTYPE_IPV4 4
#define DTA_INT_INTYPE_IPV6 5
/* v2.0 Report Length meaning "to the end of the datagram". */
#define DTA_INT_LEN_TO_END 0xFF

/* Report flags (D, Q, F of every version; I of v2.0). */
#define DTA_INT_F_DROPPED 0x08      /* D: a packet was dropped */
#define DTA_INT_F_CONGESTED 0x04    /* Q: congested queue association */
#define DTA_INT_F_TRACKED 0x02      /* F: tracked flow association */
#define DTA_INT_F_INTERMEDIATE 0x01 /* I: intermediate report (v2.0) */

/* struct dta_int_md.present: which fields of a metadata set are valid. */
#define DTA_INT_MD_SWITCH_ID 0x0001  /* switch_id (node id) */
#define DTA_INT_MD_PORTS 0x0002      /* 16-bit ingress/egress port ids */
#define DTA_INT_MD_HOP_LATENCY 0x0004
#define DTA_INT_MD_QUEUE 0x0008      /* queue_id + queue_occupancy */
#define DTA_INT_MD_INGRESS_TS 0x0010 /* ingress_ts (32 or 64 bits) */
#define DTA_INT_MD_EGRESS_TS 0x0020  /* egress_ts (32 or 64 bits) */
#define DTA_INT_MD_PORTS_L2 0x0040   /* 32-bit l2_ingress/l2_egress_port */
#define DTA_INT_MD_TX_UTIL 0x0080
#define DTA_INT_MD_BUFFER 0x0100     /* buffer_id + buffer_occupancy */
#define DTA_INT_MD_DROP 0x0200       /* drop_queue_id + drop_reason */

/* Hops of an INT-MD stack a report can hold. A longer stack is an error
 * (DTA_E_INT_HOPS), never a silently shortened path. */
#define DTA_INT_HOPS_MAX 16

/**
 * struct dta_int_md - one node's metadata: the reporting node's own
 * (report header) or one hop of an INT-MD stack. A field is meaningful only
 * when its DTA_INT_MD_* bit is in @present. Widths follow the wire: 24-bit
 * occupancies, 32-bit timestamps in v0.5/v1.0 headers and INT v0.5/v1.0
 * stacks, 64-bit in v2.0 headers and INT v2.x stacks. Values a node could
 * not provide arrive as all ones, as sent.
 */
struct dta_int_md {
	uint32_t present; /* DTA_INT_MD_* */
	uint32_t switch_id;
	uint16_t ingress_port;
	uint16_t egress_port;
	uint32_t hop_latency;
	uint32_t queue_occupancy; /* 24 bits */
	uint8_t queue_id;
	uint8_t buffer_id;
	uint8_t drop_queue_id;
	uint8_t drop_reason;
	uint64_t ingress_ts;
	uint64_t egress_ts;
	uint32_t l2_ingress_port;
	uint32_t l2_egress_port;
	uint32_t tx_util;
	uint32_t buffer_occupancy; /* 24 bits */
};

/**
 * struct dta_int_flow - the inner packet's 5-tuple. @family is 4 or 6, or
 * 0 when the inner packet has no IP header (then the rest is zero). IPv4
 * addresses fill the first 4 bytes of @src/@dst, the rest zero. Ports are
 * zero for protocols other than TCP and UDP and for non-first fragments.
 */
struct dta_int_flow {
	uint8_t family;
	uint8_t proto;
	uint16_t sport;
	uint16_t dport;
	uint8_t src[16];
	uint8_t dst[16];
};

/* dta_int_report.hop_index when unknown. */
#define DTA_INT_HOP_UNKNOWN 0xFF

/**
 * struct dta_int_report - one decoded telemetry report.
 *
 * @version:  enum dta_int_version.
 * @next:     v0.5/v1.0: NProto; v2.0: InType.
 * @rep_type: v2.0 RepType; DTA_INT_REPTYPE_INT for v0.5 and v1.0.
 * @flags:    DTA_INT_F_*.
 * @hw_id:    6-bit hardware id.
 * @seq:      sequence number (32 bits; v2.0: 22 bits, shared by the
 *            datagram's reports).
 * @node_id:  v1.0 Switch id, v2.0 Node ID, v0.5 the drop/local header's
 *            switch id (0 without one). Same as local.switch_id when that
 *            is present.
 * @rep_md_bits: v1.0 (6 bits) / v2.0 (16 bits) RepMdBits as received.
 * @domain_id, @ds_md_bits, @ds_md_status: v2.0 INT main contents.
 * @local:    the reporting node's metadata from the report headers.
 * @flow, @ttl: the inner packet's 5-tuple and IPv4 TTL / IPv6 hop limit
 *            (@ttl 0 without IP).
 * @hop_index: the reporting node's hop on the path, from @ttl: the
 *            initial TTL (struct dta_int_opts.ttl_init, or guessed) minus
 *            @ttl (docs/int.md "Hop index"); DTA_INT_HOP_UNKNOWN without
 *            an inner IP header or when @ttl exceeds the initial TTL. For
 *            INT-MD reports the path is @hops itself.
 * @has_int_md: the inner packet carried an INT-MD shim (INT over TCP/UDP).
 * @int_ver, @int_flags (D E M as bits 2..0), @hop_ml (words per hop),
 * @remaining_hops, @instructions, @int_domain_id: its metadata header.
 * @n_hops:   hops in @hops, newest (closest to the sink) first; @hops[i]
 *            carries the fields @instructions selects. Entries from
 *            @n_hops on are not written by the decoder.
 * @inner, @inner_len: the inner packet (or the bytes InType names) inside
 *            the caller's buffer.
 * @error:    0, or with dta_int_opts.separate the negative code of a report
 *            whose header was read (@version, @seq, @hw_id, @node_id and
 *            for v2.0 @rep_type, @next are set) but whose rest was not: the
 *            report must not be applied; the datagram's others may be.
 *
 * INT-MD stacks are read in the INT v2.x layout (4-bit shim Type, Ver 2)
 * and the INT v1.0 and v0.5 layouts (8-bit shim Type, Ver 1 or 0; v0.5 with
 * its tail), whatever the report version; @int_ver says which. v1.0 and
 * v0.5 timestamps in the stack are 32 bits; v0.5 @hop_ml is its
 * Instruction Count and @remaining_hops Max minus Total Hop Count.
 */
struct dta_int_report {
	uint8_t version;
	uint8_t next;
	uint8_t rep_type;
	uint8_t flags;
	uint8_t hw_id;
	uint8_t ttl;
	uint8_t hop_index;
	bool has_int_md;
	uint32_t seq;
	uint32_t node_id;
	uint16_t rep_md_bits;
	uint16_t domain_id;
	uint16_t ds_md_bits;
	uint16_t ds_md_status;
	struct dta_int_md local;
	struct dta_int_flow flow;
	uint8_t int_ver;
	uint8_t int_flags;
	uint8_t hop_ml;
	uint8_t remaining_hops;
	uint16_t instructions;
	uint16_t int_domain_id;
	uint8_t n_hops;
	struct dta_int_md hops[DTA_INT_HOPS_MAX];
	const uint8_t *inner;
	size_t inner_len;
	int error;
};

/**
 * struct dta_int_opts - how the inner packet is read.
 * @sz:         sizeof(struct dta_int_opts).
 * @dscp_mask, @dscp_value: an inner IPv4 DSCP / IPv6 traffic class DSCP d
 *              with (d & @dscp_mask) == @dscp_value marks INT-MD after the
 *              TCP/UDP header (INT.mdk "INT over TCP/UDP", option 2).
 *              @dscp_mask 0 turns DSCP detection off.
 * @udp_port:   an inner UDP destination port marking INT-MD after UDP
 *              (option 1, shim NPT 1 or 2); 0 turns it off.
 * @ttl_init:   the initial TTL for the hop-index rule; 0 guesses it as the
 *              smallest of 32, 64, 128, 255 not below the TTL seen.
 * @separate:   a report that cannot be read after its header is returned
 *              with dta_int_report.error set instead of failing the whole
 *              datagram, when the format frames it: a v2.0 report after
 *              its 4-byte header (one whose Report Length runs past the
 *              datagram, or a tail shorter than a report header, takes
 *              the rest of the datagram), a v0.5/v1.0 report after its
 *              fixed header. The datagram's other reports stay usable and
 *              its sequence number is known.
 *
 * Passing NULL means: DSCP bit 0x01 marks INT (dscp_mask = dscp_value =
 * 0x01), no port, guessed initial TTL.
 */
struct dta_int_opts {
	size_t sz;
	uint8_t dscp_mask;
	uint8_t dscp_value;
	uint16_t udp_port;
	uint8_t ttl_init;
	bool separate;
};

/* The most reports one datagram can yield: a v2.0 report is at least 4
 * bytes after an 8-byte group header in a DTA_PAYLOAD_MAX-size payload. */
#define DTA_INT_REPORTS_MAX 2248

/**
 * dta_int_decode() - decode one telemetry report datagram (UDP payload).
 * @buf, @len: the UDP payload. The first 4 bits give the version.
 * @opts:      inner-packet options, or NULL for the defaults.
 * @out, @max: room for @max reports; @max must be at least 1.
 *
 * Return: the number of reports written to @out (1 for v0.5/v1.0, 1 or
 * more for v2.0), or a negative code:
 * -EINVAL             NULL @buf/@out, @max 0, or @opts->sz too small;
 * -DTA_E_TRUNCATED    a header, metadata, Report Length or INT stack
 *                     reaches past @len;
 * -DTA_E_VERSION      report Ver not 0, 1 or 2, or an INT-MD header Ver
 *                     not 2 (4-bit shim Type) or 0/1 (8-bit shim Type);
 * -DTA_E_INT_UNSUPPORTED  an NProto, RepType, InType, INT shim Type or
 *                     inner header this decoder does not read;
 * -DTA_E_INT_LENGTH   length fields disagree (v1.0 Length against
 *                     RepMdBits, v2.0 MD Length against RepMdBits or
 *                     Report Length, INT shim Length against Hop ML, Hop ML
 *                     shorter than the instruction bitmap asks, v0.5
 *                     Instruction Count against the bitmap or the stack);
 * -DTA_E_INT_HOPS     an INT-MD stack of more than DTA_INT_HOPS_MAX hops;
 * -DTA_E_INT_TOOMANY  more reports than @max;
 * -DTA_E_MALFORMED    an inner IPv4 IHL below 5 or wrong IP version.
 */
DTA_API int dta_int_decode(const uint8_t *buf, size_t len,
			   const struct dta_int_opts *opts,
			   struct dta_int_report *out, size_t max);

/**
 * dta_int_encode() - build a telemetry report datagram.
 * @r, @n:   the reports; v0.5 and v1.0 take exactly one, v2.0 one or more
 *           (the group header comes from @r[0]: hw_id, seq, node_id).
 * @buf, @cap: output.
 *
 * Headers come from @version, @next, @rep_type, @flags, @hw_id, @seq,
 * @node_id, @local (v0.5: the drop header for @next DTA_INT_V05_DROP, the
 * local header for DTA_INT_V05_LOCAL; v1.0/v2.0: RepMdBits derived from
 * @local.present), @domain_id, @ds_md_bits (must be 0), @ds_md_status; the
 * inner packet is @inner copied as is (an INT-MD stack is part of it).
 * A v2.0 report whose @inner_len is not a multiple of 4 or longer than the
 * Report Length can say is written with Report Length 0xFF, which only
 * the last report may use.
 *
 * Return: bytes written, or -EINVAL (NULL @r/@buf, @n 0 or above
 * DTA_INT_REPORTS_MAX, @n above 1 for v0.5/v1.0, unknown @version, @next
 * or @rep_type, @ds_md_bits set, a value wider than its field: @hw_id,
 * @flags, a v2.0 @seq, an occupancy; Report Length 0xFF needed before the
 * last report) or -ENOSPC (@cap too small). Thread-safe.
 */
DTA_API int dta_int_encode(const struct dta_int_report *r, size_t n,
			   uint8_t *buf, size_t cap);

/**
 * struct dta_int_inner - an inner packet for dta_int_inner_build().
 * @sz:       sizeof(struct dta_int_inner).
 * @flow:     family 4 or 6, proto 6 (TCP) or 17 (UDP), addresses, ports.
 * @ttl:      IPv4 TTL / IPv6 hop limit.
 * @dscp:     the IP DSCP (6 bits); give the INT DSCP the decoder looks for
 *            (struct dta_int_opts, default bit 0x01) with @int_md.
 * @int_md:   add an INT-MD shim, metadata header and stack after the
 *            TCP/UDP header, in the layout @md_layout names.
 * @instructions: INT-MD instruction bitmap; only bits 0..8 (node id to
 *            buffer) may be set.
 * @remaining_hops, @domain_id: metadata header fields.
 * @n_hops, @hops: the stack, newest (nearest the sink) first, each hop
 *            carrying the fields @instructions selects (@hops[i].present
 *            is not looked at).
 * @payload_len: zero bytes after the headers (to round a v2.0 report to
 *            whole words, or to mimic a packet's size).
 * @md_layout: DTA_INT_MD_LAYOUT_V2 (0: INT v2.x, shim Type 1 NPT 0, Ver 2),
 *            DTA_INT_MD_LAYOUT_V1_0 (8-bit Type 1, Ver 1, 32-bit
 *            timestamps) or DTA_INT_MD_LAYOUT_V0_5 (Ver 0, Instruction
 *            Count, Max Hop Count @remaining_hops + @n_hops, the tail with
 *            the flow's protocol and destination port; bits 6 and 8
 *            refused: v0.5 gives them other meanings).
 */
enum dta_int_md_layout {
	DTA_INT_MD_LAYOUT_V2 = 0,
	DTA_INT_MD_LAYOUT_V1_0 = 1,
	DTA_INT_MD_LAYOUT_V0_5 = 2,
};

struct dta_int_inner {
	size_t sz;
	struct dta_int_flow flow;
	uint8_t ttl;
	uint8_t dscp;
	bool int_md;
	uint16_t instructions;
	uint8_t remaining_hops;
	uint16_t domain_id;
	uint8_t n_hops;
	const struct dta_int_md *hops;
	size_t payload_len;
	uint8_t md_layout;
};

/**
 * dta_int_inner_build() - build an inner packet for a report: Ethernet II
 * (locally administered MACs), IPv4 (no options) or IPv6 (no extension
 * headers), a 20-byte TCP or 8-byte UDP header, optionally INT-MD, then
 * @in->payload_len zero bytes. Put it in dta_int_report.inner with @next
 * DTA_INT_V05_ETHERNET / DTA_INT_V10_ETHERNET / DTA_INT_INTYPE_ETHERNET;
 * dta_int_decode() then yields @in's flow, ttl and hops. Checksums are 0.
 *
 * Return: bytes written, or -EINVAL (NULL @in/@buf, @in->sz too small,
 * family not 4/6, proto not 6/17, @dscp above 63, @n_hops above
 * DTA_INT_HOPS_MAX or hops without @hops, instruction bits 9..15 set, a
 * queue occupancy above 24 bits, a packet longer than 65535) or -ENOSPC.
 * Thread-safe.
 */
DTA_API int dta_int_inner_build(const struct dta_int_inner *in, uint8_t *buf,
				size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* DTA_INT_H */
