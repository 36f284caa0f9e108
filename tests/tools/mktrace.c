/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mktrace: write a synthetic packet trace (pcap, Ethernet/IPv4/TCP+UDP) of
 * FLOWS flows and PACKETS packets with varied sizes, for tests of
 * dta-gen --trace. Usage: mktrace FILE FLOWS PACKETS
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	pcap_t *dead;
	pcap_dumper_t *d;
	unsigned long flows, packets;
	uint64_t x = 12345;

	if (argc != 4 || !(flows = strtoul(argv[2], NULL, 0)) ||
	    !(packets = strtoul(argv[3], NULL, 0))) {
		fprintf(stderr, "usage: mktrace FILE FLOWS PACKETS\n");
		return 2;
	}
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	d = pcap_dump_open(dead, argv[1]);
	if (!d) {
		fprintf(stderr, "mktrace: %s\n", pcap_geterr(dead));
		return 1;
	}
	for (unsigned long i = 0; i < packets; i++) {
		uint8_t f[1514] = { 0 };
		struct pcap_pkthdr h;
		unsigned long flow;
		unsigned len;
		uint8_t *ip = f + 14, *l4;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		flow = (x >> 33) % flows;
		len = 64 + (unsigned)((x >> 20) % 1400);
		f[12] = 0x08;
		ip[0] = 0x45;
		ip[2] = (uint8_t)((len - 14) >> 8);
		ip[3] = (uint8_t)(len - 14);
		ip[8] = 64;
		ip[9] = flow % 3 ? 6 : 17;
		ip[12] = 192; ip[13] = 168; ip[14] = (uint8_t)(flow >> 8); ip[15] = (uint8_t)flow;
		ip[16] = 10; ip[17] = 1; ip[18] = (uint8_t)(flow >> 16); ip[19] = 7;
		l4 = ip + 20;
		l4[0] = (uint8_t)((1024 + flow % 5000) >> 8);
		l4[1] = (uint8_t)(1024 + flow % 5000);
		l4[2] = 0x01; l4[3] = 0xbb;
		h.ts.tv_sec = 1700000000 + (long)(i / 1000000);
		h.ts.tv_usec = (long)(i % 1000000);
		h.caplen = 14 + 20 + 20; /* headers only, as traces usually are */
		h.len = len;
		pcap_dump((u_char *)d, &h, f);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return 0;
}
