/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 frames for switch-style translators: the reference model of what
 * a switch pipeline computes (lib/include/dta/roce.h, docs/roce.md).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "dta/hash.h"
#include "dta/roce.h"

static_assert(DTA_ROCE_WRITE_OVERHEAD == 74, "WRITE frame overhead");
static_assert(DTA_ROCE_ATOMIC_FRAME_LEN == 86, "FETCH_ADD frame size");

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static uint16_t ip_checksum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < DTA_ROCE_IP_LEN; i += 2)
		sum += get16(h + i);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

DTA_API uint32_t dta_roce_icrc(const void *ip, size_t len)
{
	static const uint8_t lrh[8] = { 0xFF, 0xFF, 0xFF, 0xFF,
					0xFF, 0xFF, 0xFF, 0xFF };
	const size_t hdr = DTA_ROCE_IP_LEN + DTA_ROCE_UDP_LEN + DTA_ROCE_BTH_LEN;
	uint8_t m[DTA_ROCE_IP_LEN + DTA_ROCE_UDP_LEN + DTA_ROCE_BTH_LEN];
	uint32_t crc;

	if (!ip || len < hdr)
		return 0;
	memcpy(m, ip, hdr);
	m[1] = 0xFF;                      /* TOS */
	m[8] = 0xFF;                      /* TTL */
	m[10] = m[11] = 0xFF;             /* header checksum */
	m[DTA_ROCE_IP_LEN + 6] = 0xFF;    /* UDP checksum */
	m[DTA_ROCE_IP_LEN + 7] = 0xFF;
	m[DTA_ROCE_IP_LEN + DTA_ROCE_UDP_LEN + 4] = 0xFF; /* FECN, BECN, resv6 */
	crc = dta_crc32(0, lrh, sizeof(lrh));
	crc = dta_crc32(crc, m, hdr);
	return dta_crc32(crc, (const uint8_t *)ip + hdr, len - hdr);
}

/* @probe: a zero-length write is fine; @imm: WRITE Only with Immediate
 * carrying *@imm (ImmDt after the RETH). */
static int build(struct dta_roce_qp *qp, const struct dta_roce_target *t,
		 const struct dta_memop *op, void *buf, size_t cap, bool probe,
		 const uint32_t *imm)
{
	uint8_t *f = buf, *ip, *udp, *bth, *x;
	uint32_t mtu, payload, pad, ext, total, icrc;
	uint8_t opcode;

	if (!qp || !t || !op || !buf)
		return -EINVAL;
	mtu = qp->mtu ? qp->mtu : 1024;
	if (op->kind == DTA_MEMOP_WRITE) {
		if ((!op->len || !op->data) && !probe)
			return -EINVAL;
		if (op->offset > t->length || op->len > t->length - op->offset)
			return -DTA_E_RANGE;
		if (op->len > mtu)
			return -EMSGSIZE;
		opcode = imm ? DTA_ROCE_OP_WRITE_ONLY_IMM : DTA_ROCE_OP_WRITE_ONLY;
		ext = DTA_ROCE_RETH_LEN + (imm ? DTA_ROCE_IMMDT_LEN : 0);
		payload = op->len;
	} else if (op->kind == DTA_MEMOP_FETCH_ADD) {
		if (op->offset % 8)
			return -EINVAL;
		if (op->offset > t->length || t->length - op->offset < 8)
			return -DTA_E_RANGE;
		opcode = DTA_ROCE_OP_FETCH_ADD;
		ext = DTA_ROCE_ATOMICETH_LEN;
		payload = 0;
	} else {
		return -EINVAL;
	}
	pad = (4 - payload % 4) % 4;
	total = DTA_ROCE_ETH_LEN + DTA_ROCE_IP_LEN + DTA_ROCE_UDP_LEN +
		DTA_ROCE_BTH_LEN + ext + payload + pad + DTA_ROCE_ICRC_LEN;
	if (cap < total)
		return -ENOSPC;

	/* Ethernet II */
	memcpy(f, qp->dst_mac, 6);
	memcpy(f + 6, qp->src_mac, 6);
	put16(f + 12, 0x0800);
	/* IPv4: no options, don't fragment */
	ip = f + DTA_ROCE_ETH_LEN;
	ip[0] = 0x45;
	ip[1] = qp->tos;
	put16(ip + 2, (uint16_t)(total - DTA_ROCE_ETH_LEN));
	put16(ip + 4, qp->ip_id);
	put16(ip + 6, 0x4000);
	ip[8] = qp->ttl ? qp->ttl : 64;
	ip[9] = 17;
	put16(ip + 10, 0);
	put32(ip + 12, qp->src_ip);
	put32(ip + 16, qp->dst_ip);
	put16(ip + 10, ip_checksum(ip));
	/* UDP, checksum 0 */
	udp = ip + DTA_ROCE_IP_LEN;
	put16(udp, qp->src_port);
	put16(udp + 2, DTA_ROCE_UDP_PORT);
	put16(udp + 4, (uint16_t)(total - DTA_ROCE_ETH_LEN - DTA_ROCE_IP_LEN));
	put16(udp + 6, 0);
	/* BTH: opcode, SE=0 M=0 PadCnt TVer=0, P_Key, resv, DestQP, AckReq, PSN */
	bth = udp + DTA_ROCE_UDP_LEN;
	bth[0] = opcode;
	bth[1] = (uint8_t)(pad << 4);
	put16(bth + 2, qp->pkey);
	put32(bth + 4, qp->dst_qpn & DTA_ROCE_QPN_MASK);
	put32(bth + 8, (qp->ack_req ? 0x80000000u : 0) | (qp->psn & DTA_ROCE_PSN_MASK));
	x = bth + DTA_ROCE_BTH_LEN;
	if (op->kind == DTA_MEMOP_WRITE) {
		/* RETH: virtual address, R_Key, DMA length; [ImmDt]; the data */
		put64(x, t->addr + op->offset);
		put32(x + 8, t->rkey);
		put32(x + 12, op->len);
		if (imm)
			put32(x + DTA_ROCE_RETH_LEN, *imm);
		if (op->len)
			memcpy(x + ext, op->data, op->len);
		memset(x + ext + op->len, 0, pad);
	} else {
		/* AtomicETH: virtual address, R_Key, add, compare (unused) */
		put64(x, t->addr + op->offset);
		put32(x + 8, t->rkey);
		put64(x + 12, op->add);
		put64(x + 20, 0);
	}
	icrc = dta_roce_icrc(ip, total - DTA_ROCE_ETH_LEN - DTA_ROCE_ICRC_LEN);
	x = f + total - DTA_ROCE_ICRC_LEN;
	x[0] = (uint8_t)icrc;
	x[1] = (uint8_t)(icrc >> 8);
	x[2] = (uint8_t)(icrc >> 16);
	x[3] = (uint8_t)(icrc >> 24);
	qp->psn = (qp->psn + 1) & DTA_ROCE_PSN_MASK;
	qp->ip_id++;
	return (int)total;
}

DTA_API int dta_roce_build(struct dta_roce_qp *qp,
			   const struct dta_roce_target *t,
			   const struct dta_memop *op, void *buf, size_t cap)
{
	return build(qp, t, op, buf, cap, false, NULL);
}

DTA_API int dta_roce_build_probe(struct dta_roce_qp *qp,
				 const struct dta_roce_target *t, void *buf,
				 size_t cap)
{
	struct dta_memop op = { .kind = DTA_MEMOP_WRITE };

	return build(qp, t, &op, buf, cap, true, NULL);
}

DTA_API int dta_roce_build_notify(struct dta_roce_qp *qp,
				  const struct dta_roce_target *t, uint32_t imm,
				  void *buf, size_t cap)
{
	struct dta_memop op = { .kind = DTA_MEMOP_WRITE };

	return build(qp, t, &op, buf, cap, true, &imm);
}

DTA_API int dta_roce_parse(const void *frame, size_t len,
			   struct dta_roce_packet *out)
{
	const uint8_t *f = frame, *ip, *udp, *bth, *end;
	size_t off = DTA_ROCE_ETH_LEN;
	uint16_t type, iplen, udplen;
	uint32_t icrc;

	if (!frame || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (len < DTA_ROCE_ETH_LEN)
		return -DTA_E_TRUNCATED;
	type = get16(f + 12);
	if (type == 0x8100) { /* one VLAN tag */
		if (len < DTA_ROCE_ETH_LEN + 4)
			return -DTA_E_TRUNCATED;
		type = get16(f + 16);
		off += 4;
	}
	if (type != 0x0800)
		return -DTA_E_MALFORMED;
	if (len < off + DTA_ROCE_IP_LEN)
		return -DTA_E_TRUNCATED;
	ip = f + off;
	if (ip[0] != 0x45 || ip[9] != 17 || (get16(ip + 6) & 0x3FFF))
		return -DTA_E_MALFORMED; /* options, not UDP, or a fragment */
	if (ip_checksum(ip) != 0)
		return -EBADMSG; /* the sum over a correct header is all ones */
	iplen = get16(ip + 2);
	if (iplen < DTA_ROCE_IP_LEN + DTA_ROCE_UDP_LEN + DTA_ROCE_BTH_LEN +
		    DTA_ROCE_ICRC_LEN)
		return -DTA_E_MALFORMED;
	if (len - off < iplen)
		return -DTA_E_TRUNCATED;
	udp = ip + DTA_ROCE_IP_LEN;
	udplen = get16(udp + 4);
	if (get16(udp + 2) != DTA_ROCE_UDP_PORT ||
	    udplen != iplen - DTA_ROCE_IP_LEN)
		return -DTA_E_MALFORMED;
	end = ip + iplen - DTA_ROCE_ICRC_LEN; /* end of the checked bytes */
	icrc = (uint32_t)end[0] | (uint32_t)end[1] << 8 |
	       (uint32_t)end[2] << 16 | (uint32_t)end[3] << 24;
	if (dta_roce_icrc(ip, (size_t)(end - ip)) != icrc)
		return -EBADMSG;
	bth = udp + DTA_ROCE_UDP_LEN;
	out->opcode = bth[0];
	out->qpn = get32(bth + 4) & DTA_ROCE_QPN_MASK;
	out->psn = get32(bth + 8) & DTA_ROCE_PSN_MASK;
	out->src_ip = get32(ip + 12);
	out->dst_ip = get32(ip + 16);
	out->src_port = get16(udp);
	if (out->opcode == DTA_ROCE_OP_ACK || out->opcode == DTA_ROCE_OP_ATOMIC_ACK) {
		const uint8_t *aeth = bth + DTA_ROCE_BTH_LEN;
		size_t need = DTA_ROCE_AETH_LEN +
			      (out->opcode == DTA_ROCE_OP_ATOMIC_ACK
				       ? DTA_ROCE_ATOMICACKETH_LEN : 0);

		if ((size_t)(end - aeth) != need)
			return -DTA_E_MALFORMED;
		out->syndrome = aeth[0];
		out->msn = get32(aeth) & 0xFFFFFF;
		switch (out->syndrome >> 5) {
		case 0:
			out->kind = out->opcode == DTA_ROCE_OP_ATOMIC_ACK
					    ? DTA_ROCE_ATOMIC_ACK : DTA_ROCE_ACK;
			if (out->kind == DTA_ROCE_ATOMIC_ACK)
				out->orig = get64(aeth + DTA_ROCE_AETH_LEN);
			break;
		case 1:
			out->kind = DTA_ROCE_RNR_NAK;
			break;
		case 3:
			out->kind = DTA_ROCE_NAK;
			out->nak = out->syndrome & 0x1F;
			break;
		default:
			return -DTA_E_MALFORMED; /* reserved syndrome */
		}
	} else {
		out->kind = DTA_ROCE_REQUEST;
	}
	return 0;
}

DTA_API int dta_roce_on_reply(struct dta_roce_qp *qp, uint32_t my_qpn,
			      const struct dta_roce_packet *p,
			      struct dta_roce_stats *st)
{
	if (!qp || !p || !st)
		return -EINVAL;
	if (my_qpn != DTA_ROCE_ANY_QPN && p->qpn != (my_qpn & DTA_ROCE_QPN_MASK)) {
		st->foreign++;
		return 0;
	}
	switch (p->kind) {
	case DTA_ROCE_ACK:
		st->acks++;
		return 0;
	case DTA_ROCE_ATOMIC_ACK:
		st->atomic_acks++;
		return 0;
	case DTA_ROCE_RNR_NAK:
		st->rnr_naks++;
		return 0;
	case DTA_ROCE_NAK:
		if (p->nak >= DTA_ROCE_NAK_KINDS) {
			st->naks_other++;
			return 0;
		}
		st->naks[p->nak]++;
		if (p->nak != DTA_ROCE_NAK_PSN_SEQ)
			return 0;
		/* The responder expects p->psn and drops everything else: start
		 * there. What was sent since is lost. */
		st->skipped += (qp->psn - p->psn) & DTA_ROCE_PSN_MASK;
		st->resyncs++;
		qp->psn = p->psn;
		return 1;
	default:
		st->foreign++;
		return 0;
	}
}
