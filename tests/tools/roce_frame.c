/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: build a RoCEv2 frame with dta_roce_build() and print it in
 * hex, or parse a frame given in hex and print its fields, so an
 * independent implementation (tests/roce/scapy_check.py) can compare.
 *   roce_frame write|fadd|probe|notify [key=value ...]
 *   roce_frame parse HEX
 *   roce_frame send IFACE write|fadd [key=value ...]
 * Keys: smac dmac (12 hex digits) sip dip (dotted) sport qpn psn pkey tos
 * ttl id ackreq addr rkey len off data (hex) add mtu imm (notify's
 * immediate data); for send also
 * myqpn (the QPN the collector expects us to be), badicrc=1 (send the
 * frame with a corrupted ICRC first, then correctly), check=/SHM-OBJECT
 * (print the 8 bytes at off of that region's data after each frame).
 *
 * send first finds the responder's PSN the way dta-translator's switch sink
 * does (a zero-length write far ahead, answered by a PSN sequence NAK),
 * then sends the frame and prints what came back (ack, atomic-ack, nak-N,
 * or none within 0.5 s).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dta/dta.h>

#include "tools.h"

static uint32_t ip4(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "roce_frame: bad address %s\n", s);
		exit(2);
	}
	return ntohl(a.s_addr);
}

static int show(const char *check, uint64_t offset);

/* The next RoCEv2 reply on @fd for @myqpn within @ms, or -1. */
static int wait_reply(int fd, uint32_t myqpn, int ms, struct dta_roce_packet *p)
{
	uint8_t buf[2048];

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n;

		if (poll(&pf, 1, ms) != 1)
			return -1;
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n > 0 && from.sll_pkttype != PACKET_OUTGOING &&
		    dta_roce_parse(buf, (size_t)n, p) == 0 &&
		    p->kind != DTA_ROCE_REQUEST && p->qpn == myqpn)
			return 0;
	}
}

static const char *kind_name(const struct dta_roce_packet *p, char *buf)
{
	switch (p->kind) {
	case DTA_ROCE_ACK: return "ack";
	case DTA_ROCE_ATOMIC_ACK: return "atomic-ack";
	case DTA_ROCE_RNR_NAK: return "rnr-nak";
	default: snprintf(buf, 16, "nak-%d", p->nak); return buf;
	}
}

static int do_send(const char *ifname, struct dta_roce_qp *qp,
		   const struct dta_roce_target *t, const struct dta_memop *op,
		   uint32_t myqpn, int bad, const char *check)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_IP) };
	struct dta_roce_stats st = { 0 };
	struct dta_roce_packet p;
	static uint8_t frame[16384];
	char kb[16];
	int fd, n;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (!sll.sll_ifindex || fd < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "roce_frame: %s: %s\n", ifname, strerror(errno));
		return 2;
	}
	/* Find the responder's PSN: a probe far ahead gets a sequence NAK. */
	qp->psn = (qp->psn + 0x400000) & DTA_ROCE_PSN_MASK;
	n = dta_roce_build_probe(qp, t, frame, sizeof(frame));
	if (n < 0 || send(fd, frame, (size_t)n, 0) != n ||
	    wait_reply(fd, myqpn, 2000, &p) ||
	    dta_roce_on_reply(qp, myqpn, &p, &st) != 1) {
		fprintf(stderr, "roce_frame: no PSN sequence NAK for the probe\n");
		return 2;
	}
	printf("responder expects psn %u\n", qp->psn);
	for (int round = bad ? 0 : 1; round < 2; round++) {
		uint32_t psn = qp->psn;

		n = dta_roce_build(qp, t, op, frame, sizeof(frame));
		if (n < 0) {
			printf("error %s\n", dta_strerror(n));
			return 1;
		}
		if (round == 0) {
			/* Corrupted first: rxe must drop it silently. The
			 * responder then still expects this PSN (and, having
			 * sent its NAK for the probe, answers nothing more
			 * until that PSN arrives): the good frame follows. */
			frame[n - 1] ^= 0x5A;
			qp->psn = psn;
		}
		if (send(fd, frame, (size_t)n, 0) != n)
			return 2;
		printf("%s: reply %s\n", round ? "good icrc" : "bad icrc",
		       wait_reply(fd, myqpn, 500, &p) ? "none" : kind_name(&p, kb));
		if (check && show(check, op->offset))
			return 2;
	}
	close(fd);
	return 0;
}

static int show(const char *check, uint64_t offset)
{
	{
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = DTA_BACKING_SHM,
					     .path = check,
					     .flags = DTA_REGION_RDONLY };
		struct dta_region *r;
		uint64_t v = 0;

		usleep(100000);
		if (dta_region_open(&o, &r)) {
			fprintf(stderr, "roce_frame: cannot open %s\n", check);
			return 2;
		}
		memcpy(&v, (const uint8_t *)dta_region_data(r) + offset, 8);
		printf("value %" PRIu64 "\n", v);
		dta_region_destroy(r);
	}
	return 0;
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

		n = argc == 3 ? tool_unhex(argv[2], frame, sizeof(frame)) : -1;
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
	const char *ifname = NULL, *check = NULL, *mode = argv[1];
	uint32_t myqpn = 0, imm = 0;
	int first = 2, bad = 0;

	if (!strcmp(mode, "send")) {
		if (argc < 4)
			return 2;
		ifname = argv[2];
		mode = argv[3];
		first = 4;
	}
	op.kind = !strcmp(mode, "fadd") ? DTA_MEMOP_FETCH_ADD : DTA_MEMOP_WRITE;
	for (int i = first; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *v;
		unsigned long long x;

		if (!eq)
			return 2;
		*eq = 0;
		v = eq + 1;
		x = strtoull(v, NULL, 0);
		if (!strcmp(argv[i], "smac") || !strcmp(argv[i], "dmac")) {
			if (tool_unhex(v, argv[i][0] == 's' ? qp.src_mac : qp.dst_mac, 6) != 6)
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
		else if (!strcmp(argv[i], "myqpn")) myqpn = (uint32_t)x;
		else if (!strcmp(argv[i], "badicrc")) bad = x != 0;
		else if (!strcmp(argv[i], "check")) check = v;
		else if (!strcmp(argv[i], "addr")) t.addr = x;
		else if (!strcmp(argv[i], "rkey")) t.rkey = (uint32_t)x;
		else if (!strcmp(argv[i], "len")) t.length = x;
		else if (!strcmp(argv[i], "off")) op.offset = x;
		else if (!strcmp(argv[i], "add")) op.add = x;
		else if (!strcmp(argv[i], "imm")) imm = (uint32_t)x;
		else if (!strcmp(argv[i], "data")) {
			n = tool_unhex(v, data, sizeof(data));
			if (n < 0)
				return 2;
			op.len = (uint32_t)n;
			op.data = data;
		} else {
			fprintf(stderr, "roce_frame: unknown key %s\n", argv[i]);
			return 2;
		}
	}
	if (ifname)
		return do_send(ifname, &qp, &t, &op, myqpn, bad, check);
	n = !strcmp(mode, "probe") ? dta_roce_build_probe(&qp, &t, frame, sizeof(frame))
	    : !strcmp(mode, "notify") ? dta_roce_build_notify(&qp, &t, imm, frame,
							      sizeof(frame))
				  : dta_roce_build(&qp, &t, &op, frame, sizeof(frame));
	if (n < 0) {
		printf("error %s\n", dta_strerror(n));
		return 1;
	}
	for (int i = 0; i < n; i++)
		printf("%02x", frame[i]);
	printf("\n");
	return 0;
}
