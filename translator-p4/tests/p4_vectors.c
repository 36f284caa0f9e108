/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet test vectors for the P4 translator, from libdta's C reference
 * model: the DTA reports a switch receives (in.pcap) and, frame for frame,
 * the RoCEv2 frames it must send (expected.pcap), plus the collector
 * description its control plane reads (desc.json).
 *
 *   p4_vectors OUTDIR [proto|tna]
 *
 * ("proto": only the Postcarding cases, into one structure of the
 * prototype hash family: values unencoded, zeros past the path. "tna":
 * the cases the Tofino program handles, which leaves out the legacy
 * reports (behind its -DTNA_LEGACY), and the datagram of three reports
 * makes no frames (it has no recirculation and refuses the datagram):
 * translator-p4/README.md, "Tofino".)
 *
 * Each expected frame's timestamp says which input made it: its seconds
 * are 1700000000 + the number of input frames up to and including that
 * one, so a test that feeds a switch frame by frame knows how many frames
 * to wait for before it sends the next.
 *
 * The cases: v1 Key-Write with 20- and 4-byte data and N = 1..4, v1
 * Key-Increment, legacy Key-Write and Key-Increment (2- and 3-byte base
 * headers), v1 and legacy Append to two lists (a frame per 4 entries, a
 * partial batch left pending), Postcarding (complete paths in and out of
 * order, a path of unknown length, flows evicted from the switch's cache
 * by colliding ones, with and without a prefix from hop 0), a N above the structure's (dropped), and a PSN sequence NAK
 * from the collector in the middle, after which the queue pair continues
 * at the NAK's PSN; last, three reports in one datagram.
 */
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dta/dta.h>

#include "tools.h"

#include "../../tests/tools/roce_reply.h"

#define NQP 5 /* paths20, paths4, counters, events, postcards */
#define PC_CACHE 1024 /* the P4 program's Postcarding cache */
#define AP_BASE 10 /* events: list ids 10 and 11 */

static const uint8_t SW_MAC[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t COLL_MAC[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint32_t SW_IP = 0xC6336402;   /* 198.51.100.2 */
static const uint32_t COLL_IP = 0xC6336401; /* 198.51.100.1 */

struct st {
	const char *name;
	struct dta_layout l;
	struct dta_roce_target t;
	struct dta_roce_qp qp;
	uint32_t peer_qpn;
};

static struct st S[NQP];
static unsigned nst = NQP; /* structures in use */
static unsigned pci = 4;   /* the Postcarding structure */
static pcap_dumper_t *in, *exp_out;
static unsigned nin, nexp;

static void dump(pcap_dumper_t *d, const uint8_t *f, size_t len, unsigned *n)
{
	struct pcap_pkthdr h = { .caplen = (bpf_u_int32)len,
				 .len = (bpf_u_int32)len };

	h.ts.tv_sec = 1700000000 + (d == exp_out ? nin : 0);
	h.ts.tv_usec = (suseconds_t)(*n)++;
	pcap_dump((u_char *)d, &h, f);
}

/* A UDP/IPv4 frame to the translator carrying @pl. */
static void send_report(const uint8_t *pl, size_t len, uint16_t dport)
{
	uint8_t f[2048];
	size_t n = 14 + 20 + 8 + len;

	memcpy(f, SW_MAC, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(f + 14, 0, 20);
	f[14] = 0x45;
	f[16] = (uint8_t)((n - 14) >> 8);
	f[17] = (uint8_t)(n - 14);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00\x09", 4);
	memcpy(f + 30, "\x0a\x00\x00\x01", 4);
	test_ipv4_csum(f + 14);
	f[34] = 0x9C; /* sport 40000 */
	f[35] = 0x40;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[38] = (uint8_t)((8 + len) >> 8);
	f[39] = (uint8_t)(8 + len);
	f[40] = f[41] = 0;
	memcpy(f + 42, pl, len);
	dump(in, f, n, &nin);
}

/* While @packing, reports collect in one datagram (several v1 reports per
 * UDP payload, docs/wire-format.md) instead of leaving one by one. */
static int packing;
static uint8_t packbuf[1024];
static size_t packlen;

/* Encode @r and send it to the translator. */
static void send_encoded(const struct dta_report *r)
{
	uint8_t buf[512];
	int len = dta_wire_encode(r, buf, sizeof(buf));

	if (len < 0 || (packing && packlen + (size_t)len > sizeof(packbuf))) {
		fprintf(stderr, "p4_vectors: encode: %s\n", dta_strerror(len));
		exit(1);
	}
	if (packing) {
		memcpy(packbuf + packlen, buf, (size_t)len);
		packlen += (size_t)len;
		return;
	}
	send_report(buf, (size_t)len, 40040);
}

/* While @refused, the switch under test applies nothing (the Tofino
 * program refuses a datagram of several reports whole). */
static int refused;

/* The frames the reference model makes for @ops on structure @s. */
static void expect(unsigned s, const struct dta_memop *ops, int n)
{
	if (refused)
		return;
	for (int i = 0; i < n; i++) {
		uint8_t f[2048];
		int len = dta_roce_build(&S[s].qp, &S[s].t, &ops[i], f, sizeof(f));

		if (len < 0) {
			fprintf(stderr, "p4_vectors: %s\n", dta_strerror(len));
			exit(1);
		}
		dump(exp_out, f, (size_t)len, &nexp);
	}
}

static void kw(unsigned s, const uint8_t *key, size_t key_len,
	       const uint8_t *data, size_t data_len, unsigned n, int legacy)
{
	struct dta_report r = { .format = legacy == 0 ? DTA_FORMAT_V1
					  : legacy == 1 ? DTA_FORMAT_LEGACY
						        : DTA_FORMAT_LEGACY_NACK,
				.opcode = DTA_OP_KEY_WRITE, .seq = nin };
	struct dta_memop ops[8];
	uint8_t slot[64];
	int k;

	r.u.kw.redundancy = (uint8_t)n;
	r.u.kw.key_len = (uint8_t)key_len;
	r.u.kw.key = key;
	r.u.kw.data_len = (uint16_t)data_len;
	r.u.kw.data = data;
	send_encoded(&r);
	k = dta_kw_ops(&S[s].l, key, key_len, data, data_len, n, slot,
		       sizeof(slot), ops, 8);
	if (k > 0)
		expect(s, ops, k);
}

static void ki(unsigned s, const uint8_t *key, size_t key_len, uint64_t add,
	       int legacy)
{
	struct dta_report r = { .format = legacy == 0 ? DTA_FORMAT_V1
					  : legacy == 1 ? DTA_FORMAT_LEGACY
						        : DTA_FORMAT_LEGACY_NACK,
				.opcode = DTA_OP_KEY_INCREMENT, .seq = nin };
	struct dta_memop ops[8];
	int k;

	r.u.ki.redundancy = 2;
	r.u.ki.key_len = (uint8_t)key_len;
	r.u.ki.key = key;
	r.u.ki.counter = add;
	send_encoded(&r);
	k = dta_ki_ops(&S[s].l, key, key_len, add, 0, ops, 8);
	if (k > 0)
		expect(s, ops, k);
}

/* Append: the entry goes into its list's batch; every 4th makes a frame. */
static struct dta_ap_cursor apcur[2];
static uint8_t apbuf[2][16];
static unsigned apn[2];

static void ap(uint32_t list_id, uint32_t v, int legacy)
{
	struct dta_report r = { .format = legacy ? DTA_FORMAT_LEGACY : DTA_FORMAT_V1,
				.opcode = DTA_OP_APPEND, .seq = nin };
	uint8_t d[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };
	uint8_t frame[64];
	struct dta_memop ops[2];
	unsigned list = list_id - AP_BASE;
	int k;

	r.u.ap.list_id = list_id;
	r.u.ap.data_len = 4;
	r.u.ap.data = d;
	send_encoded(&r);
	memcpy(apbuf[list] + 4 * apn[list], d, 4);
	if (++apn[list] < 4)
		return;
	apn[list] = 0;
	k = dta_ap_ops(&S[3].l, list, &apcur[list], apbuf[list], 4, frame,
		       sizeof(frame), ops, 2);
	if (k != 1) {
		fprintf(stderr, "p4_vectors: dta_ap_ops: %d\n", k);
		exit(1);
	}
	expect(3, ops, k);
}

/* Postcarding as the P4 program does it: a direct-mapped cache indexed by
 * the standard CRC-32 of the flow key; a flow is written when every hop of
 * its path is in, or, evicted by a colliding flow, as far as its hops run
 * from hop 0 (lib/src/postcard.c writes the chunk). */
static struct {
	uint8_t key[13];
	uint8_t key_len, seen, plen;
	uint32_t v[5];
} pcc[PC_CACHE];

static void pc_emit(const uint8_t *key, size_t key_len, const uint32_t *v,
		    unsigned len)
{
	struct dta_memop ops[8];
	uint8_t chunk[64];
	int k = dta_pc_ops(&S[pci].l, key, key_len, v, len, chunk, sizeof(chunk),
			   ops, 8);

	if (k < 0) {
		fprintf(stderr, "p4_vectors: dta_pc_ops: %s\n", dta_strerror(k));
		exit(1);
	}
	expect(pci, ops, k);
}

/* @format: v1, or a legacy one (4-byte key, no path length: all 5 hops). */
static void postcard_f(int format, const uint8_t *key, size_t key_len,
		       unsigned hop, unsigned path_len, uint32_t v)
{
	struct dta_report r = { .format = format, .opcode = DTA_OP_POSTCARD,
				.seq = nin };
	unsigned plen = path_len ? path_len : 5, full = (1u << plen) - 1;
	unsigned idx = dta_crc32(0, key, key_len) & (PC_CACHE - 1);
	int emitted = 0;

	r.u.pc.hop = (uint8_t)hop;
	r.u.pc.path_len = (uint8_t)path_len;
	r.u.pc.key_len = (uint8_t)key_len;
	r.u.pc.key = key;
	r.u.pc.value = v;
	send_encoded(&r);
	if (pcc[idx].seen && (pcc[idx].key_len != key_len ||
			      memcmp(pcc[idx].key, key, key_len))) {
		unsigned pre = 0;

		while (pre < 5 && (pcc[idx].seen & (1u << pre)))
			pre++;
		if (pre > pcc[idx].plen)
			pre = pcc[idx].plen;
		if (pre) {
			pc_emit(pcc[idx].key, pcc[idx].key_len, pcc[idx].v, pre);
			emitted = 1;
		}
		pcc[idx].seen = 0;
	}
	pcc[idx].v[hop] = v;
	pcc[idx].seen |= (uint8_t)(1u << hop);
	if (!emitted && (pcc[idx].seen & full) == full) {
		pc_emit(key, key_len, pcc[idx].v, plen);
		pcc[idx].seen = 0;
	}
	memset(pcc[idx].key, 0, 13);
	memcpy(pcc[idx].key, key, key_len);
	pcc[idx].key_len = (uint8_t)key_len;
	pcc[idx].plen = (uint8_t)plen;
}

static void postcard(const uint8_t *key, unsigned hop, unsigned path_len,
		     uint32_t v)
{
	postcard_f(DTA_FORMAT_V1, key, 13, hop, path_len, v);
}

/* The control plane's stand-in for a timer (UDP 40041): kind 1 writes
 * Append list @index's partial batch, kind 2 the flow in postcard cache
 * entry @index. */
static void flush(uint8_t kind, uint32_t index)
{
	uint8_t pl[8] = { kind, 0, 0, 0, (uint8_t)(index >> 24),
			  (uint8_t)(index >> 16), (uint8_t)(index >> 8),
			  (uint8_t)index };

	send_report(pl, sizeof(pl), 40041);
	if (kind == 1) {
		unsigned list = index - AP_BASE;
		struct dta_memop ops[2];
		uint8_t frame[64];

		if (!apn[list])
			return;
		if (dta_ap_ops(&S[3].l, list, &apcur[list], apbuf[list], apn[list],
			       frame, sizeof(frame), ops, 2) != 1)
			exit(1);
		apn[list] = 0;
		expect(3, ops, 1);
	} else {
		unsigned i = index & (PC_CACHE - 1), pre = 0;

		while (pre < 5 && (pcc[i].seen & (1u << pre)))
			pre++;
		if (pre > pcc[i].plen)
			pre = pcc[i].plen;
		if (pre)
			pc_emit(pcc[i].key, pcc[i].key_len, pcc[i].v, pre);
		pcc[i].seen = 0;
	}
}

/* A key whose cache entry is the same as @key's (a colliding flow). */
static void collide(const uint8_t *key, uint8_t *out)
{
	unsigned want = dta_crc32(0, key, 13) & (PC_CACHE - 1);

	memcpy(out, key, 13);
	for (uint32_t i = 1;; i++) {
		out[8] = (uint8_t)(i >> 8);
		out[9] = (uint8_t)i;
		if ((dta_crc32(0, out, 13) & (PC_CACHE - 1)) == want &&
		    memcmp(out, key, 13))
			return;
	}
}

/* A PSN sequence NAK from the collector for structure @s: the responder
 * expects @psn. It reaches the switch like any packet. */
static void nak(unsigned s, uint32_t psn)
{
	struct dta_roce_qp q = { .src_ip = COLL_IP, .dst_ip = SW_IP,
				 .src_port = 50000, .dst_qpn = S[s].peer_qpn,
				 .psn = psn };
	struct dta_roce_stats st = { 0 };
	struct dta_roce_packet p;
	uint8_t f[128];
	size_t n;

	memcpy(q.src_mac, COLL_MAC, 6);
	memcpy(q.dst_mac, SW_MAC, 6);
	n = roce_reply(f, &q, DTA_ROCE_OP_ACK, 0x60, 1, 0);
	if (dta_roce_parse(f, n, &p) || p.kind != DTA_ROCE_NAK) {
		fprintf(stderr, "p4_vectors: bad NAK\n");
		exit(1);
	}
	dump(in, f, n, &nin);
	dta_roce_on_reply(&S[s].qp, S[s].peer_qpn, &p, &st);
}

static void desc_json(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "{\"switch\":{\"version\":1,\"collector_ip\":\"198.51.100.1\","
		"\"collector_mac\":\"02:00:00:00:00:02\",\"interface\":\"test\","
		"\"gid_index\":1,\"udp_port\":4791,\"mtu\":1024,"
		"\"peer_ip\":\"198.51.100.2\",\"structures\":[");
	for (unsigned i = 0; i < nst; i++) {
		const struct dta_layout *l = &S[i].l;

		fprintf(f, "%s{\"name\":\"%s\",\"qpn\":%u,\"peer_qpn\":%u,\"psn\":0,"
			"\"rkey\":%u,\"addr\":%" PRIu64 ",\"length\":%" PRIu64
			",\"list_base\":%u,\"primitive\":\"%s\"", i ? "," : "",
			S[i].name, S[i].qp.dst_qpn, S[i].peer_qpn, S[i].t.rkey,
			S[i].t.addr, S[i].t.length,
			l->primitive == DTA_PRIM_APPEND ? AP_BASE : 0,
			dta_primitive_name(l->primitive));
		tool_switch_layout_json(f, l);
		fputs("}", f);
	}
	fputs("]}}\n", f);
	fclose(f);
}

int main(int argc, char **argv)
{
	char path[4096];
	pcap_t *pc = pcap_open_dead(DLT_EN10MB, 65535);
	uint8_t key[13], lkey[4], d20[20], d4[4];
	int proto = 0, tna = 0;

	if (argc == 3 && !strcmp(argv[2], "proto")) {
		proto = 1;
	} else if (argc == 3 && !strcmp(argv[2], "tna")) {
		tna = 1;
	} else if (argc != 2) {
		fprintf(stderr, "usage: p4_vectors OUTDIR [proto|tna]\n");
		return 2;
	}
	/* The structures, as a configuration would make them (seed 0). With
	 * "proto", one Postcarding structure of the prototype hash family
	 * (values unencoded, zeros past the path, N = 1) and only the
	 * postcard cases. */
	S[0].name = "paths";
	S[1].name = "small";
	S[2].name = "counters";
	S[3].name = "events";
	S[4].name = "postcards";
	if (proto) {
		nst = 1;
		pci = 0;
		S[0].name = "protocards";
		if (dta_layout_pc(&S[0].l, 4096, 5, 4, 1, DTA_HASH_PROTOTYPE, 0)) {
			fprintf(stderr, "p4_vectors: layouts\n");
			return 1;
		}
	} else if (dta_layout_kw(&S[0].l, 1u << 20, 20, 4, 4, DTA_HASH_CRC32C, 0) ||
		   dta_layout_kw(&S[1].l, 65536, 4, 4, 4, DTA_HASH_CRC32C, 0) ||
		   dta_layout_ki(&S[2].l, 1u << 17, 2, 1, DTA_HASH_CRC32C, 0) ||
		   dta_layout_ap(&S[3].l, 2, 4, 4, 4, 0) ||
		   dta_layout_pc(&S[4].l, 4096, 5, 4, 2, DTA_HASH_CRC32C, 0)) {
		fprintf(stderr, "p4_vectors: layouts\n");
		return 1;
	}
	for (unsigned i = 0; i < nst; i++) {
		struct dta_roce_qp *q = &S[i].qp;

		memcpy(q->src_mac, SW_MAC, 6);
		memcpy(q->dst_mac, COLL_MAC, 6);
		q->src_ip = SW_IP;
		q->dst_ip = COLL_IP;
		q->src_port = (uint16_t)(49152 + i);
		q->dst_qpn = 17 + i;
		q->pkey = 0xFFFF;
		q->ack_req = true;
		S[i].peer_qpn = 0x100 + i;
		S[i].t.addr = 0x7f1200000000ull + ((uint64_t)i << 28);
		S[i].t.rkey = 0x1000 + i;
		S[i].t.length = S[i].l.data_size;
	}
	snprintf(path, sizeof(path), "%s/in.pcap", argv[1]);
	in = pcap_dump_open(pc, path);
	snprintf(path, sizeof(path), "%s/expected.pcap", argv[1]);
	exp_out = pcap_dump_open(pc, path);
	if (!in || !exp_out) {
		fprintf(stderr, "p4_vectors: %s\n", pcap_geterr(pc));
		return 1;
	}
	for (unsigned i = 0; i < 20; i++)
		d20[i] = (uint8_t)(i * 7 + 1);
	memcpy(key, "\x0a\x00\x00\x01\x0a\x00\x00\x02\x1f\x90\x00\x50\x06", 13);
	for (unsigned n = 1; n <= 4 && !proto; n++) {
		/* An IPv4 5-tuple key, a 5-hop path, N copies. */
		memcpy(key, "\x0a\x00\x00\x01\x0a\x00\x00\x02\x1f\x90\x00\x50\x06", 13);
		key[3] = (uint8_t)n;
		d20[0] = (uint8_t)n;
		kw(0, key, 13, d20, 20, n, 0);
	}
	memcpy(d4, "\xde\xad\xbe\xef", 4);
	if (!proto) {
		kw(1, key, 13, d4, 4, 2, 0);
		ki(2, key, 13, 1500, 0);
		ki(2, key, 13, 1ull << 40, 0);
	}
	if (!proto && !tna) {
		/* Legacy: 4-byte key and data, both base header variants. */
		memcpy(lkey, "\xc0\xa8\x00\x07", 4);
		kw(1, lkey, 4, d4, 4, 2, 1);
		kw(1, lkey, 4, d4, 4, 3, 2);
		ki(2, lkey, 4, 77, 1);
	}
	if (!proto) {
		/* Append (rings of 4 frames): 25 entries to list 10 and 4 to list 11,
		 * interleaved (list 10's ring wraps after 4 of its 6 frames; one entry
		 * stays pending), then 4 legacy ones to list 11. */
		for (uint32_t i = 0; i < 29; i++)
			ap(i % 7 == 3 ? AP_BASE + 1 : AP_BASE, 0x100 + i, 0);
		for (uint32_t i = 0; i < 4 && !tna; i++)
			ap(AP_BASE + 1, 0xA000 + i, 1);
	}
	/* Postcarding. A: 5 hops in order. B: a 3-hop path, out of order.
	 * C: path length unknown, hops 0 and 1, then evicted by D, which
	 * collides in the cache (C written as its 2-hop prefix); D completes
	 * a 2-hop path. E: only hop 1, evicted by F: no prefix, nothing
	 * written; F's own path completes. */
	{
		uint8_t a[13], b[13], c[13], d[13], e[13], f[13];

		memcpy(a, "\x0a\x01\x00\x01\x0a\x02\x00\x02\x00\x01\x00\x50\x06", 13);
		memcpy(b, a, 13);
		b[3] = 2;
		memcpy(c, a, 13);
		c[3] = 3;
		memcpy(e, a, 13);
		e[3] = 5;
		collide(c, d);
		collide(e, f);
		for (unsigned h = 0; h < 5; h++)
			postcard(a, h, 5, 10 + h);
		postcard(b, 0, 3, 21);
		postcard(b, 2, 3, 23);
		postcard(b, 1, 3, 22);
		postcard(c, 0, 0, 31);
		postcard(c, 1, 0, 32);
		postcard(d, 0, 2, 41);
		postcard(d, 1, 2, 42);
		postcard(e, 1, 2, 52);
		postcard(f, 0, 1, 61);
	}
	/* Timers: flush list 10's partial batch (1 entry) and empty list 11
	 * (nothing); flush flow G's first 2 of 5 hops, flow H's lone hop 2
	 * (no prefix: nothing) and an empty entry (nothing). */
	if (!proto) {
		flush(1, AP_BASE);
		flush(1, AP_BASE + 1);
	}
	{
		uint8_t g[13], h[13];

		memcpy(g, "\x0a\x03\x00\x01\x0a\x04\x00\x02\x00\x07\x00\x50\x11", 13);
		memcpy(h, g, 13);
		h[3] = 2;
		postcard(g, 0, 5, 71);
		postcard(g, 1, 5, 72);
		postcard(h, 2, 4, 83);
		flush(2, dta_crc32(0, g, 13));
		flush(2, dta_crc32(0, h, 13));
		flush(2, dta_crc32(0, g, 13));
	}
	/* Legacy postcards: a 4-byte flow key, hops 1..5 on the wire (all 5
	 * make the path), both base header variants. */
	if (!tna) {
		const uint8_t lk[4] = { 0xc0, 0xa8, 0x01, 0x09 };

		for (unsigned h = 0; h < 5; h++)
			postcard_f(h % 2 ? DTA_FORMAT_LEGACY_NACK : DTA_FORMAT_LEGACY,
				   lk, 4, h, 0, 90 + h);
	}
	if (proto)
		goto done;
	kw(0, key, 13, d20, 20, 5, 0); /* N = 5 > 4: no frames */
	/* Dropped: a Postcarding report with a hop beyond the program's 5. */
	{
		struct dta_report r = { .format = DTA_FORMAT_V1,
					.opcode = DTA_OP_POSTCARD };

		r.u.pc.hop = 6;
		r.u.pc.path_len = 7;
		r.u.pc.key_len = 13;
		r.u.pc.key = key;
		r.u.pc.value = 9;
		send_encoded(&r);
	}
	/* Dropped: a report of another version, and a truncated one (the
	 * parser runs out of packet: nothing is sent). */
	{
		uint8_t buf[512];
		struct dta_report r = { .format = DTA_FORMAT_V1,
					.opcode = DTA_OP_KEY_WRITE };
		int len;

		r.u.kw.redundancy = 2;
		r.u.kw.key_len = 13;
		r.u.kw.key = key;
		r.u.kw.data_len = 20;
		r.u.kw.data = d20;
		len = dta_wire_encode(&r, buf, sizeof(buf));
		buf[0] = 0xD2;
		send_report(buf, (size_t)len, 40040);
		buf[0] = 0xD1;
		send_report(buf, (size_t)len - 10, 40040);
	}
	/* The collector says it expects PSN 2 on "paths" (frames 2.. were
	 * lost): the next Key-Writes continue there. */
	nak(0, 2);
	key[3] = 9;
	kw(0, key, 13, d20, 20, 2, 0);
	/* Three reports in one datagram: the switch handles one per pass
	 * (the rest recirculate), in order; the Tofino program refuses the
	 * datagram (its UDP length is not one report's). */
	packing = 1;
	refused = tna;
	key[3] = 10;
	kw(0, key, 13, d20, 20, 2, 0);
	ki(2, key, 13, 5, 0);
	kw(1, key, 13, d4, 4, 3, 0);
	packing = 0;
	send_report(packbuf, packlen, 40040);
done:
	pcap_dump_close(in);
	pcap_dump_close(exp_out);
	pcap_close(pc);
	snprintf(path, sizeof(path), "%s/desc.json", argv[1]);
	desc_json(path);
	printf("p4_vectors: %u frames in, %u frames expected\n", nin, nexp);
	return 0;
}
