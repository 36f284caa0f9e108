/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: build a RoCEv2 frame with dta_roce_build() and print it in
 * hex, or parse a frame given in hex and print its fields, so an
 * independent implementation (tests/roce/scapy_check.py) can compare.
 *   roce_frame write|fadd [key=value ...]
 *   roce_frame parse HEX
 * Keys: smac dmac (12 hex digits) sip dip (dotted) sport qpn psn pkey tos
 * ttl id ackreq addr rkey len off data (hex) add mtu.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dta/dta.h>

static int unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = strlen(s) / 2;

	if (strlen(s) % 2 || n > cap)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)n;
}

static uint32_t ip4(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "roce_frame: bad address %s\n", s);
		exit(2);
	}
	return ntohl(a.s_addr);
}

int main(int argc, char **argv)
{
	struct dta_roce_qp qp = { .src_mac = { 2, 0, 0, 0, 0, 1 },
				  .dst_mac = { 2, 0, 0, 0, 0, 2 },
				  .src_ip = 0xC0000202, .dst_ip = 0xC0000201,
				  .src_port = 49152, .pkey = 0xFFFF,
				  .ack_req = true };
	struct dta_roce_target t = { .length = 1u << 20 };
	struct dta_memop op = { 0 };
	static uint8_t data[8192], frame[16384];
	int n;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "parse")) {
		struct dta_roce_packet p;

		n = argc == 3 ? unhex(argv[2], frame, sizeof(frame)) : -1;
		if (n < 0)
			return 2;
		n = dta_roce_parse(frame, (size_t)n, &p);
		if (n) {
			printf("error %s\n", dta_strerror(n));
			return 1;
		}
		printf("kind=%d opcode=%u qpn=%" PRIu32 " psn=%" PRIu32
		       " syndrome=%u nak=%d msn=%" PRIu32 " orig=%" PRIu64 "\n",
		       p.kind, p.opcode, p.qpn, p.psn, p.syndrome, p.nak, p.msn,
		       p.orig);
		return 0;
	}
	op.kind = !strcmp(argv[1], "fadd") ? DTA_MEMOP_FETCH_ADD : DTA_MEMOP_WRITE;
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *v;
		unsigned long long x;

		if (!eq)
			return 2;
		*eq = 0;
		v = eq + 1;
		x = strtoull(v, NULL, 0);
		if (!strcmp(argv[i], "smac") || !strcmp(argv[i], "dmac")) {
			if (unhex(v, argv[i][0] == 's' ? qp.src_mac : qp.dst_mac, 6) != 6)
				return 2;
		} else if (!strcmp(argv[i], "sip")) qp.src_ip = ip4(v);
		else if (!strcmp(argv[i], "dip")) qp.dst_ip = ip4(v);
		else if (!strcmp(argv[i], "sport")) qp.src_port = (uint16_t)x;
		else if (!strcmp(argv[i], "qpn")) qp.dst_qpn = (uint32_t)x;
		else if (!strcmp(argv[i], "psn")) qp.psn = (uint32_t)x;
		else if (!strcmp(argv[i], "pkey")) qp.pkey = (uint16_t)x;
		else if (!strcmp(argv[i], "tos")) qp.tos = (uint8_t)x;
		else if (!strcmp(argv[i], "ttl")) qp.ttl = (uint8_t)x;
		else if (!strcmp(argv[i], "id")) qp.ip_id = (uint16_t)x;
		else if (!strcmp(argv[i], "ackreq")) qp.ack_req = x != 0;
		else if (!strcmp(argv[i], "mtu")) qp.mtu = (uint32_t)x;
		else if (!strcmp(argv[i], "addr")) t.addr = x;
		else if (!strcmp(argv[i], "rkey")) t.rkey = (uint32_t)x;
		else if (!strcmp(argv[i], "len")) t.length = x;
		else if (!strcmp(argv[i], "off")) op.offset = x;
		else if (!strcmp(argv[i], "add")) op.add = x;
		else if (!strcmp(argv[i], "data")) {
			n = unhex(v, data, sizeof(data));
			if (n < 0)
				return 2;
			op.len = (uint32_t)n;
			op.data = data;
		} else {
			fprintf(stderr, "roce_frame: unknown key %s\n", argv[i]);
			return 2;
		}
	}
	n = dta_roce_build(&qp, &t, &op, frame, sizeof(frame));
	if (n < 0) {
		printf("error %s\n", dta_strerror(n));
		return 1;
	}
	for (int i = 0; i < n; i++)
		printf("%02x", frame[i]);
	printf("\n");
	return 0;
}
