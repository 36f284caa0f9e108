/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: a RoCEv2 reply as a collector's NIC sends it (ACK, NAK,
 * atomic ACK), for tests that feed replies to a parser or a switch:
 * Ethernet, IPv4 (checksum), UDP to 4791 (checksum 0), BTH, AETH,
 * AtomicAckETH for atomic ACKs, ICRC. Used by tests/test_roce.c and
 * translator-p4/tests/p4_vectors.c.
 */
#ifndef DTA_TESTS_ROCE_REPLY_H
#define DTA_TESTS_ROCE_REPLY_H

#include <stdint.h>
#include <string.h>

#include <dta/dta.h>

/* Fill in the checksum of the 20-byte IPv4 header at @ip. */
static inline void test_ipv4_csum(uint8_t *ip)
{
	uint32_t sum = 0;

	ip[10] = ip[11] = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

/* @q gives the addresses as the reply carries them (src = the collector)
 * and its BTH destination QPN and PSN. Returns the frame length. */
static inline size_t roce_reply(uint8_t *f, const struct dta_roce_qp *q,
				uint8_t opcode, uint8_t syndrome, uint32_t msn,
				uint64_t orig)
{
	size_t n = 14 + 20 + 8 + 12 + 4 + (opcode == DTA_ROCE_OP_ATOMIC_ACK ? 8 : 0) + 4;
	uint8_t *ip = f + 14, *udp = ip + 20, *bth = udp + 8, *x = bth + 12;
	uint32_t icrc;

	memcpy(f, q->dst_mac, 6);
	memcpy(f + 6, q->src_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (uint8_t)((n - 14) >> 8);
	ip[3] = (uint8_t)(n - 14);
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 17;
	for (int i = 0; i < 4; i++) {
		ip[12 + i] = (uint8_t)(q->src_ip >> (24 - 8 * i));
		ip[16 + i] = (uint8_t)(q->dst_ip >> (24 - 8 * i));
	}
	test_ipv4_csum(ip);
	udp[0] = (uint8_t)(q->src_port >> 8);
	udp[1] = (uint8_t)q->src_port;
	udp[2] = DTA_ROCE_UDP_PORT >> 8;
	udp[3] = DTA_ROCE_UDP_PORT & 0xFF;
	udp[4] = (uint8_t)((n - 34) >> 8);
	udp[5] = (uint8_t)(n - 34);
	udp[6] = udp[7] = 0;
	memset(bth, 0, 12);
	bth[0] = opcode;
	bth[2] = bth[3] = 0xFF; /* P_Key */
	bth[5] = (uint8_t)(q->dst_qpn >> 16);
	bth[6] = (uint8_t)(q->dst_qpn >> 8);
	bth[7] = (uint8_t)q->dst_qpn;
	bth[9] = (uint8_t)(q->psn >> 16);
	bth[10] = (uint8_t)(q->psn >> 8);
	bth[11] = (uint8_t)q->psn;
	x[0] = syndrome;
	x[1] = (uint8_t)(msn >> 16);
	x[2] = (uint8_t)(msn >> 8);
	x[3] = (uint8_t)msn;
	for (int i = 0; opcode == DTA_ROCE_OP_ATOMIC_ACK && i < 8; i++)
		x[4 + i] = (uint8_t)(orig >> (56 - 8 * i));
	icrc = dta_roce_icrc(ip, n - 14 - 4);
	f[n - 4] = (uint8_t)icrc;
	f[n - 3] = (uint8_t)(icrc >> 8);
	f[n - 2] = (uint8_t)(icrc >> 16);
	f[n - 1] = (uint8_t)(icrc >> 24);
	return n;
}

#endif
