/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 frames as a switch translator crafts them (DTA paper section 5.2;
 * TEA section 4.1): a switch cannot run libibverbs, so it keeps a few
 * registers per queue pair and writes whole Ethernet frames itself. This is
 * the C reference model of that data path: build RDMA WRITE and
 * FETCH_AND_ADD requests with a correct invariant CRC (InfiniBand annex
 * A17), parse the ACKs and NAKs that come back, and resynchronise the PSN
 * after a sequence NAK. docs/roce.md describes the frames byte by byte.
 *
 * Frames: Ethernet II, IPv4 (no options), UDP to port 4791 (checksum 0, as
 * RoCEv2 allows over IPv4), BTH, then RETH + payload (RC RDMA WRITE Only)
 * or AtomicETH (RC FETCH_AND_ADD), padding to 4 bytes, ICRC. Payloads are
 * limited to one path MTU: a switch does not segment.
 *
 * All functions are pure apart from the queue pair state they are given;
 * a queue pair must not be used by two threads at once.
 */
#ifndef DTA_ROCE_H
#define DTA_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_ROCE_UDP_PORT 4791
#define DTA_ROCE_PSN_MASK 0xFFFFFFu
#define DTA_ROCE_QPN_MASK 0xFFFFFFu

/* Header sizes (bytes). */
#define DTA_ROCE_ETH_LEN 14
#define DTA_ROCE_IP_LEN 20
#define DTA_ROCE_UDP_LEN 8
#define DTA_ROCE_BTH_LEN 12
#define DTA_ROCE_RETH_LEN 16
#define DTA_ROCE_ATOMICETH_LEN 28
#define DTA_ROCE_IMMDT_LEN 4 /* Immediate Data, after the RETH */
#define DTA_ROCE_AETH_LEN 4
#define DTA_ROCE_ATOMICACKETH_LEN 8
#define DTA_ROCE_ICRC_LEN 4
/* Everything of a WRITE frame but its payload and padding. */
#define DTA_ROCE_WRITE_OVERHEAD                                               \
	(DTA_ROCE_ETH_LEN + DTA_ROCE_IP_LEN + DTA_ROCE_UDP_LEN +              \
	 DTA_ROCE_BTH_LEN + DTA_ROCE_RETH_LEN + DTA_ROCE_ICRC_LEN)
#define DTA_ROCE_ATOMIC_FRAME_LEN                                             \
	(DTA_ROCE_ETH_LEN + DTA_ROCE_IP_LEN + DTA_ROCE_UDP_LEN +              \
	 DTA_ROCE_BTH_LEN + DTA_ROCE_ATOMICETH_LEN + DTA_ROCE_ICRC_LEN)

/* BTH opcodes used here (RC transport). */
enum dta_roce_opcode {
	DTA_ROCE_OP_WRITE_ONLY = 0x0A,
	DTA_ROCE_OP_WRITE_ONLY_IMM = 0x0B, /* RDMA WRITE Only with Immediate */
	DTA_ROCE_OP_ACK = 0x11,
	DTA_ROCE_OP_ATOMIC_ACK = 0x12,
	DTA_ROCE_OP_FETCH_ADD = 0x14,
};

/* NAK codes (AETH syndrome 011xxxxx, low five bits). */
enum dta_roce_nak {
	DTA_ROCE_NAK_PSN_SEQ = 0,
	DTA_ROCE_NAK_INVALID_REQ = 1,
	DTA_ROCE_NAK_REMOTE_ACCESS = 2,
	DTA_ROCE_NAK_REMOTE_OP = 3,
	DTA_ROCE_NAK_INVALID_RD = 4,
	DTA_ROCE_NAK_KINDS = 5,
};

/**
 * struct dta_roce_qp - what a switch keeps for one queue pair.
 * @src_mac, @dst_mac: Ethernet addresses (the next hop's for @dst_mac).
 * @src_ip, @dst_ip:   IPv4 addresses, host byte order.
 * @src_port:  UDP source port; vary it per queue pair for ECMP entropy.
 * @dst_qpn:   the collector's queue pair number (24 bits).
 * @psn:       PSN of the next request (24 bits); advanced by each build.
 * @pkey:      partition key (0xFFFF: the default partition).
 * @tos:       IPv4 TOS byte (DSCP and ECN; 0x02 marks ECT(0)).
 * @ttl:       IPv4 TTL (0 means 64).
 * @ip_id:     IPv4 identification of the next frame; advanced by each build.
 * @mtu:       largest payload of one request (0 means 1024).
 * @ack_req:   set the BTH AckReq bit on every request, so each is answered.
 */
struct dta_roce_qp {
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint32_t src_ip;
	uint32_t dst_ip;
	uint16_t src_port;
	uint32_t dst_qpn;
	uint32_t psn;
	uint16_t pkey;
	uint8_t tos;
	uint8_t ttl;
	uint16_t ip_id;
	uint32_t mtu;
	bool ack_req;
};

/**
 * struct dta_roce_target - where one structure lives in collector memory.
 * @addr: remote virtual address of its data area.
 * @rkey: remote key.
 * @length: bytes of the data area; operations beyond it are refused.
 */
struct dta_roce_target {
	uint64_t addr;
	uint32_t rkey;
	uint64_t length;
};

/**
 * dta_roce_build() - the frame for memory operation @op on @t.
 * @qp:   queue pair state; on success its @psn and @ip_id advance.
 * @op:   DTA_MEMOP_WRITE (1 .. mtu bytes) or DTA_MEMOP_FETCH_ADD (offset
 *        8-byte aligned).
 * @buf, @cap: receives the frame (DTA_ROCE_WRITE_OVERHEAD + len + 3, or
 *        DTA_ROCE_ATOMIC_FRAME_LEN bytes suffice).
 * Return: the frame length; -EINVAL (bad arguments, unaligned atomic, empty
 * write), -DTA_E_RANGE (outside @t), -EMSGSIZE (payload above the MTU),
 * -ENOSPC (@cap too small). On error @qp is unchanged.
 */
DTA_API int dta_roce_build(struct dta_roce_qp *qp,
			   const struct dta_roce_target *t,
			   const struct dta_memop *op, void *buf, size_t cap);

/**
 * dta_roce_build_probe() - a zero-length RDMA WRITE to @t (no data, so no
 * memory is touched and the R_Key is not checked), advancing @qp's PSN.
 * A translator that does not know where the responder's PSN is (after a
 * restart) sends one far ahead: the PSN sequence NAK that comes back says
 * where to continue (dta_roce_on_reply()).
 * Return: the frame length (DTA_ROCE_WRITE_OVERHEAD), -EINVAL, -ENOSPC.
 */
DTA_API int dta_roce_build_probe(struct dta_roce_qp *qp,
				 const struct dta_roce_target *t, void *buf,
				 size_t cap);

/**
 * dta_roce_build_notify() - a zero-length RDMA WRITE Only with Immediate
 * (opcode 0x0B: RETH with DMA length 0, then the 4-byte ImmDt @imm,
 * big-endian) to @t, advancing @qp's PSN. The responder consumes a
 * receive and completes it with @imm after everything before it on the
 * queue pair: a notification (docs/rdma.md "Notifications"; @imm is the
 * collector's index of the structure). No memory is touched.
 * Return: the frame length (DTA_ROCE_WRITE_OVERHEAD +
 * DTA_ROCE_IMMDT_LEN), -EINVAL, -ENOSPC.
 */
DTA_API int dta_roce_build_notify(struct dta_roce_qp *qp,
				  const struct dta_roce_target *t, uint32_t imm,
				  void *buf, size_t cap);

/**
 * dta_roce_icrc() - the invariant CRC of a RoCEv2 packet.
 * @ip:  the IPv4 header; the packet (IP header to end of payload, padding
 *       included, ICRC excluded) is @len bytes.
 * Computed as annex A17 says for RoCEv2: standard CRC-32 over eight 0xFF
 * bytes (the masked LRH), the IPv4 header with TOS, TTL and checksum set to
 * all ones, the UDP header with its checksum all ones, the BTH with its
 * FECN/BECN/reserved byte all ones, and the rest unchanged. The frame
 * carries the result least significant byte first.
 * Return: the CRC, or 0 when @len is too short to hold the headers.
 */
DTA_API uint32_t dta_roce_icrc(const void *ip, size_t len);

enum dta_roce_kind {
	DTA_ROCE_ACK = 1,        /* positive acknowledgement */
	DTA_ROCE_ATOMIC_ACK = 2, /* with the original value */
	DTA_ROCE_NAK = 3,        /* @nak says which */
	DTA_ROCE_RNR_NAK = 4,    /* receiver not ready */
	DTA_ROCE_REQUEST = 5,    /* a request (WRITE, FETCH_ADD, other) */
};

/**
 * struct dta_roce_packet - a parsed RoCEv2 frame.
 * @kind:     enum dta_roce_kind.
 * @opcode:   the BTH opcode.
 * @qpn:      the BTH destination queue pair.
 * @psn:      the BTH PSN (for a PSN sequence NAK: the PSN the responder
 *            expects next).
 * @syndrome: the AETH syndrome (ACKs and NAKs).
 * @nak:      enum dta_roce_nak for DTA_ROCE_NAK.
 * @msn:      the AETH message sequence number.
 * @orig:     DTA_ROCE_ATOMIC_ACK: the value before the add.
 * @src_ip, @dst_ip, @src_port: from the IPv4 and UDP headers (host order).
 */
struct dta_roce_packet {
	int kind;
	uint8_t opcode;
	uint32_t qpn;
	uint32_t psn;
	uint8_t syndrome;
	int nak;
	uint32_t msn;
	uint64_t orig;
	uint32_t src_ip, dst_ip;
	uint16_t src_port;
};

/**
 * dta_roce_parse() - decode a frame (Ethernet II, optionally one 802.1Q
 * tag, IPv4, UDP to 4791, BTH, AETH, AtomicAckETH) and check its IPv4
 * header checksum and its ICRC.
 * Return: 0 with @out filled; -DTA_E_TRUNCATED (shorter than its headers
 * say), -DTA_E_MALFORMED (not IPv4/UDP to 4791, bad lengths, IP options),
 * -EBADMSG (ICRC or IPv4 checksum mismatch), -EINVAL (NULL). Never reads past @len.
 */
DTA_API int dta_roce_parse(const void *frame, size_t len,
			   struct dta_roce_packet *out);

/* What a queue pair has seen come back. */
struct dta_roce_stats {
	uint64_t acks, atomic_acks, rnr_naks;
	uint64_t naks[DTA_ROCE_NAK_KINDS]; /* by enum dta_roce_nak */
	uint64_t naks_other;               /* reserved NAK codes */
	uint64_t resyncs;                  /* PSN resynchronisations */
	uint64_t skipped;                  /* requests the responder dropped,
					    * counted at resync */
	uint64_t foreign;                  /* replies for another queue pair */
};

/**
 * dta_roce_on_reply() - account for a reply to @qp; on a PSN sequence NAK
 * set @qp->psn to the PSN the responder expects, so the next request lands
 * (requests between are lost: a switch pipeline keeps no copy to
 * retransmit; they are counted in @st->skipped). A requester that keeps
 * its frames resends them instead and calls this only for NAKs that are
 * not about them (dta-translator's switch sink, docs/roce.md).
 * @my_qpn: the queue pair number this requester declared to the collector
 *       (replies carry it in the BTH); replies for others are counted in
 *       @st->foreign and ignored. DTA_ROCE_ANY_QPN accepts all.
 * Return: 1 if the PSN was resynchronised, 0 otherwise, -EINVAL.
 */
#define DTA_ROCE_ANY_QPN 0xFFFFFFFFu
DTA_API int dta_roce_on_reply(struct dta_roce_qp *qp, uint32_t my_qpn,
			      const struct dta_roce_packet *p,
			      struct dta_roce_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* DTA_ROCE_H */
