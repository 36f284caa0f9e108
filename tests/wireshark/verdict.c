/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's verdict on every datagram of a pcap, for comparing the
 * Wireshark dissector's with it (tests/wireshark/check.py): one line per
 * frame, "FRAME dta|int|- RESULT", RESULT the number of reports
 * dta_wire_decode() / dta_int_decode() (default options) return, or the
 * name of their error code (truncated, malformed, version, opcode,
 * ambiguous, int_unsupported, int_length, int_hops, ...).
 *   wshark_verdict FILE.pcap [DTA_PORT [INT_PORT]]
 */
#include <ctype.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/int.h"
#include "dta/wire.h"

static const char *const names[] = {
#define NAME(name, text) #name,
	DTA_ERRNO_MAP(NAME)
#undef NAME
};

static void result(int rc)
{
	char low[32];
	size_t i;

	if (rc >= 0) {
		printf("%d\n", rc);
		return;
	}
	if (-rc <= DTA_E__FIRST || -rc >= DTA_E__LAST) {
		printf("errno%d\n", -rc);
		return;
	}
	for (i = 0; names[-rc - DTA_E__FIRST - 1][i] && i < sizeof(low) - 1; i++)
		low[i] = (char)tolower((unsigned char)names[-rc - DTA_E__FIRST - 1][i]);
	low[i] = 0;
	printf("%s\n", low);
}

int main(int argc, char **argv)
{
	static struct dta_report reports[DTA_WIRE_REPORTS_MAX];
	static struct dta_int_report ints[DTA_INT_REPORTS_MAX];
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const unsigned char *p;
	unsigned dta_port = argc > 2 ? (unsigned)atoi(argv[2]) : DTA_UDP_PORT;
	unsigned int_port = argc > 3 ? (unsigned)atoi(argv[3]) : DTA_INT_V05_UDP_PORT;
	unsigned long frame = 0;
	pcap_t *pc;

	if (argc < 2) {
		fprintf(stderr, "usage: wshark_verdict FILE.pcap [DTA_PORT [INT_PORT]]\n");
		return 2;
	}
	pc = pcap_open_offline(argv[1], err);
	if (!pc) {
		fprintf(stderr, "wshark_verdict: %s\n", err);
		return 1;
	}
	while (pcap_next_ex(pc, &h, &p) == 1) {
		size_t ihl, ulen, len = h->caplen;
		unsigned dport;

		frame++;
		/* Ethernet II, IPv4, UDP: what dta-gen and check.py write. */
		if (len < 14 + 20 || p[12] != 0x08 || p[13] != 0x00 || p[23] != 17) {
			printf("%lu - not-udp\n", frame);
			continue;
		}
		ihl = (size_t)(p[14] & 0x0F) * 4;
		if (len < 14 + ihl + 8) {
			printf("%lu - not-udp\n", frame);
			continue;
		}
		dport = (unsigned)p[14 + ihl + 2] << 8 | p[14 + ihl + 3];
		ulen = (size_t)p[14 + ihl + 4] << 8 | p[14 + ihl + 5];
		if (ulen < 8 || 14 + ihl + ulen > len) {
			printf("%lu - bad-udp\n", frame);
			continue;
		}
		p += 14 + ihl + 8;
		ulen -= 8;
		if (dport == dta_port) {
			printf("%lu dta ", frame);
			result(dta_wire_decode(p, ulen, reports, DTA_WIRE_REPORTS_MAX, 0));
		} else if (dport == int_port) {
			printf("%lu int ", frame);
			result(dta_int_decode(p, ulen, NULL, ints, DTA_INT_REPORTS_MAX));
		} else {
			printf("%lu - port%u\n", frame, dport);
		}
	}
	pcap_close(pc);
	return 0;
}
