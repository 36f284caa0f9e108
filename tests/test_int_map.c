/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INT reports through the translator core's map (docs/int.md "Mapping"):
 * datagrams built with dta_int_encode() (v0.5 postcard-style, v1.0, v2.0
 * groups, an INT-MD 3-hop stack) are applied to structures in plain heap
 * memory and read back with the query functions; malformed datagrams are
 * counted by cause and write nothing; sequence gaps are counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include <cmocka.h>

#include "dta/dta.h"

/* ---- a local sink over heap areas, one per structure ---- */

struct local {
	struct {
		uint8_t *mem;
		uint64_t size;
	} a[8];
	unsigned calls;
};

static int local_submit(void *ctx, unsigned s, const struct dta_memop *ops,
			size_t n)
{
	struct local *lo = ctx;
	int k;

	lo->calls++;
	k = dta_memops_apply(lo->a[s].mem, lo->a[s].size, ops, n);
	return k < 0 ? k : 0;
}

static struct dta_translator *make(struct local *lo)
{
	struct dta_sink sink = { .submit = local_submit, .ctx = lo };
	struct dta_translator *t;

	memset(lo, 0, sizeof(*lo));
	assert_int_equal(dta_translator_create(NULL, &sink, &t), 0);
	return t;
}

static int add(struct dta_translator *t, struct local *lo,
	       const struct dta_layout *l)
{
	int s = dta_translator_add(t, l, 0);

	assert_true(s >= 0);
	lo->a[s].mem = calloc(1, l->data_size);
	lo->a[s].size = l->data_size;
	assert_non_null(lo->a[s].mem);
	return s;
}

static void release(struct dta_translator *t, struct local *lo)
{
	dta_translator_destroy(t);
	for (unsigned i = 0; i < 8; i++)
		free(lo->a[i].mem);
}

static struct dta_translator_stats stats(struct dta_translator *t)
{
	struct dta_translator_stats st;

	dta_translator_stats(t, &st);
	return st;
}

static bool all_zero(const struct local *lo, unsigned n)
{
	for (unsigned s = 0; s < n; s++)
		for (uint64_t i = 0; i < lo->a[s].size; i++)
			if (lo->a[s].mem[i])
				return false;
	return true;
}

/* Structures of every role. */
struct set {
	struct dta_layout path_kw, path_pc, hop_kw, ev, flow_ki, queue_ki;
	int s_path_kw, s_path_pc, s_hop_kw, s_ev, s_flow_ki, s_queue_ki;
};

static void add_all(struct dta_translator *t, struct local *lo, struct set *x,
		    unsigned ev_lists)
{
	assert_int_equal(dta_layout_kw(&x->path_kw, 4096, 16, 4, 2,
				       DTA_HASH_CRC32C, 1), 0);
	assert_int_equal(dta_layout_pc(&x->path_pc, 4096, 4, 4, 2,
				       DTA_HASH_CRC32C, 2), 0);
	assert_int_equal(dta_layout_kw(&x->hop_kw, 4096, 16, 4, 2,
				       DTA_HASH_CRC32C, 3), 0);
	assert_int_equal(dta_layout_ap(&x->ev, ev_lists, 4, 2,
				       DTA_INT_EVENT_SIZE, 0), 0);
	assert_int_equal(dta_layout_ki(&x->flow_ki, 1024, 2, 1,
				       DTA_HASH_CRC32C, 4), 0);
	assert_int_equal(dta_layout_ki(&x->queue_ki, 1024, 2, 1,
				       DTA_HASH_CRC32C, 5), 0);
	x->s_path_kw = add(t, lo, &x->path_kw);
	x->s_path_pc = add(t, lo, &x->path_pc);
	x->s_hop_kw = add(t, lo, &x->hop_kw);
	x->s_ev = add(t, lo, &x->ev);
	x->s_flow_ki = add(t, lo, &x->flow_ki);
	x->s_queue_ki = add(t, lo, &x->queue_ki);
}

static void map_all(struct dta_translator *t, const struct set *x,
		    unsigned events_by, uint8_t ttl_init)
{
	struct dta_int_map m;

	dta_int_map_init(&m);
	m.path_kw = x->s_path_kw;
	m.path_pc = x->s_path_pc;
	m.hop_kw = x->s_hop_kw;
	m.events_ap = x->s_ev;
	m.events_by = events_by;
	m.flow_ki = x->s_flow_ki;
	m.queue_ki = x->s_queue_ki;
	m.decode.sz = sizeof(m.decode);
	m.decode.dscp_mask = 0x01;
	m.decode.dscp_value = 0x01;
	m.decode.ttl_init = ttl_init;
	assert_int_equal(dta_translator_set_int_map(t, &m), 0);
}

/* ---- inner packets, by hand (RFC 791, RFC 768, INT v2.1) ---- */

/* IPv4 10.0.0.<src> -> 10.0.0.2, UDP 1234 -> 80, with @ttl and DSCP
 * @dscp; @extra bytes follow the UDP header (an INT stack). */
static size_t ip4_udp(uint8_t *p, uint8_t src, uint8_t ttl, uint8_t dscp,
		      const uint8_t *extra, size_t extra_len)
{
	size_t tot = 28 + extra_len;
	const uint8_t h[28] = {
		0x45, (uint8_t)(dscp << 2), (uint8_t)(tot >> 8), (uint8_t)tot,
		0, 1, 0, 0, ttl, 17, 0, 0, 10, 0, 0, src, 10, 0, 0, 2,
		0x04, 0xD2, 0x00, 0x50, (uint8_t)((8 + extra_len) >> 8),
		(uint8_t)(8 + extra_len), 0, 0,
	};

	memcpy(p, h, 28);
	if (extra_len)
		memcpy(p + 28, extra, extra_len);
	return tot;
}

/* Ethernet II to IPv4, then ip4_udp(). */
static size_t eth_ip4_udp(uint8_t *p, uint8_t src, uint8_t ttl)
{
	static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1,
					 0x08, 0x00 };

	memcpy(p, eth, 14);
	return 14 + ip4_udp(p + 14, src, ttl, 0, NULL, 0);
}

/* The 13-byte key of 10.0.0.<src>:1234 -> 10.0.0.2:80/udp (docs/keys.md). */
static void flow_key(uint8_t k[13], uint8_t src)
{
	const uint8_t v[13] = { 10, 0, 0, src, 10, 0, 0, 2, 0x04, 0xD2,
				0x00, 0x50, 17 };

	memcpy(k, v, 13);
}

/* INT shim + INT-MD header (instructions: node id, hop latency, queue)
 * + @n hops of 3 words, newest first: switch ids @ids[0] (the last
 * hop) ..., latency 10 * id, queue 1 with occupancy id. */
static size_t int_md(uint8_t *p, const uint32_t *ids, unsigned n)
{
	size_t o = 0;

	p[o++] = 0x10; /* Type 1 (INT-MD), NPT 0 */
	p[o++] = (uint8_t)(3 + 3 * n);
	p[o++] = 0;
	p[o++] = 0;
	const uint8_t md[12] = { 0x20, 0, 3, 5, 0xB0, 0, 0, 0, 0, 0, 0, 0 };
	memcpy(p + o, md, 12);
	o += 12;
	for (unsigned i = 0; i < n; i++) {
		uint32_t lat = 10 * ids[i];
		const uint8_t hop[12] = {
			(uint8_t)(ids[i] >> 24), (uint8_t)(ids[i] >> 16),
			(uint8_t)(ids[i] >> 8), (uint8_t)ids[i],
			(uint8_t)(lat >> 24), (uint8_t)(lat >> 16),
			(uint8_t)(lat >> 8), (uint8_t)lat,
			1, 0, 0, (uint8_t)ids[i],
		};

		memcpy(p + o, hop, 12);
		o += 12;
	}
	return o;
}

static int send_int(struct dta_translator *t, const struct dta_int_report *r,
		    size_t n, uint64_t now)
{
	uint8_t buf[4096];
	int len = dta_int_encode(r, n, buf, sizeof(buf));

	assert_true(len > 0);
	return dta_translator_process_int(t, buf, (size_t)len, now);
}

/* v0.5 postcard-style report (NProto 2, switch local header) of flow
 * 10.0.0.<src> at switch @sw, TTL @ttl. */
static void v05_local(struct dta_int_report *r, uint8_t *inner, uint8_t src,
		      uint32_t sw, uint8_t ttl, uint32_t seq)
{
	memset(r, 0, sizeof(*r));
	r->version = DTA_INT_V0_5;
	r->next = DTA_INT_V05_LOCAL;
	r->rep_type = DTA_INT_REPTYPE_INT;
	r->flags = DTA_INT_F_TRACKED;
	r->hw_id = 1;
	r->seq = seq;
	r->node_id = sw;
	r->local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
			   DTA_INT_MD_QUEUE | DTA_INT_MD_INGRESS_TS |
			   DTA_INT_MD_EGRESS_TS;
	r->local.switch_id = sw;
	r->local.ingress_port = 1;
	r->local.egress_port = 2;
	r->local.queue_id = 3;
	r->local.queue_occupancy = 100 * sw;
	r->local.ingress_ts = 1000 * sw;
	r->local.egress_ts = 1000 * sw + 7;
	r->inner = inner;
	r->inner_len = eth_ip4_udp(inner, src, ttl);
}

static void pc_path(const struct set *x, const struct local *lo,
		    const uint8_t *key, unsigned want_len, const uint32_t *want)
{
	static const uint32_t ids[] = { 1, 2, 3, 4, 5, 0xFFFFFFFF };
	struct dta_pc_codebook *cb;
	struct dta_pc_result res;

	assert_int_equal(dta_pc_codebook_create(&x->path_pc, ids, 6, &cb), 0);
	assert_int_equal(dta_pc_query(&x->path_pc, lo->a[x->s_path_pc].mem, cb,
				      key, 13, 0, &res), 0);
	assert_int_equal(res.status, DTA_Q_FOUND);
	assert_int_equal(res.path_len, want_len);
	for (unsigned i = 0; i < want_len; i++)
		assert_int_equal(res.values[i], want[i]);
	dta_pc_codebook_destroy(cb);
}

static void kw_get(const struct dta_layout *l, const void *area,
		   const uint8_t *key, size_t klen, uint8_t out[16])
{
	struct dta_kw_result res;

	assert_int_equal(dta_kw_query(l, area, key, klen, NULL, out, 16, &res),
			 0);
	assert_int_equal(res.status, DTA_Q_FOUND);
}

static uint64_t ki_get(const struct dta_layout *l, const void *area,
		       const uint8_t *key, size_t klen)
{
	uint64_t v;

	assert_int_equal(dta_ki_query(l, area, key, klen, 0, &v), 0);
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* ---- tests ---- */

/* v0.5 postcards of one flow at switches 1, 2, 3 (TTL 64, 63, 62 with
 * initial TTL 64: hops 0, 1, 2) become its path, hop records and
 * counters. */
static void test_v05_postcards(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r;
	uint8_t inner[128], key[13], hkey[17], d[16];
	static const uint32_t path[] = { 1, 2, 3 };

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 64);
	for (uint32_t sw = 1; sw <= 3; sw++) {
		v05_local(&r, inner, 7, sw, (uint8_t)(65 - sw), sw);
		/* path postcard + hop record + flow and queue counters */
		assert_int_equal(send_int(t, &r, 1, 0), 1);
	}
	assert_int_equal(dta_translator_flush(t), 0);

	flow_key(key, 7);
	pc_path(&x, &lo, key, 3, path);
	memcpy(hkey, key, 13);
	memcpy(hkey + 13, (const uint8_t[]){ 0, 0, 0, 2 }, 4);
	kw_get(&x.hop_kw, lo.a[x.s_hop_kw].mem, hkey, 17, d);
	assert_int_equal(be32(d), 0xFFFFFFFF); /* v0.5 has no hop latency */
	assert_int_equal(be32(d + 4), 200);
	assert_int_equal(be32(d + 8), 0);
	assert_int_equal(be32(d + 12), 2007);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 3);
	assert_int_equal(ki_get(&x.queue_ki, lo.a[x.s_queue_ki].mem,
				(const uint8_t[]){ 0, 0, 0, 3, 3 }, 5), 1);
	/* no INT-MD stack: the Key-Write path is not written */
	{
		struct dta_kw_result res;
		uint8_t out[16];

		assert_int_equal(dta_kw_query(&x.path_kw,
					      lo.a[x.s_path_kw].mem, key, 13,
					      NULL, out, 16, &res), 0);
		assert_int_equal(res.status, DTA_Q_NOT_FOUND);
	}
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_datagrams, 3);
	assert_int_equal(st.int_reports_in, 3);
	assert_int_equal(st.int_applied, 3);
	assert_int_equal(st.int_unmapped, 0);
	assert_int_equal(st.int_updates, 12);
	assert_int_equal(st.int_seq_lost, 0);
	assert_int_equal(st.reports_in, 0); /* DTA counters untouched */
	release(t, &lo);
}

/* An INT-MD report (v2.0, sink node 4) with a 3-hop stack 3, 2, 1 (newest
 * first): the path is stored first hop first, padded with all ones. */
static void test_int_md_path(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r;
	uint8_t inner[256], stack[64], key[13], d[16], hkey[17];
	static const uint32_t ids[] = { 3, 2, 1 };
	size_t sl = int_md(stack, ids, 3);

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 0);
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V2_0;
	r.next = DTA_INT_INTYPE_IPV4;
	r.rep_type = DTA_INT_REPTYPE_INT;
	r.flags = DTA_INT_F_TRACKED;
	r.node_id = 4;
	r.seq = 1;
	r.local.present = DTA_INT_MD_SWITCH_ID;
	r.local.switch_id = 4;
	r.inner = inner;
	r.inner_len = ip4_udp(inner, 9, 62, 1, stack, sl);
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	assert_int_equal(dta_translator_flush(t), 0);

	flow_key(key, 9);
	kw_get(&x.path_kw, lo.a[x.s_path_kw].mem, key, 13, d);
	assert_int_equal(be32(d), 1);
	assert_int_equal(be32(d + 4), 2);
	assert_int_equal(be32(d + 8), 3);
	assert_int_equal(be32(d + 12), 0xFFFFFFFF);
	memcpy(hkey, key, 13);
	memcpy(hkey + 13, (const uint8_t[]){ 0, 0, 0, 2 }, 4);
	kw_get(&x.hop_kw, lo.a[x.s_hop_kw].mem, hkey, 17, d);
	assert_int_equal(be32(d), 20);      /* hop latency */
	assert_int_equal(be32(d + 4), 2);   /* occupancy */
	assert_int_equal(be32(d + 8), 0xFFFFFFFF); /* no egress timestamp */
	assert_int_equal(be32(d + 12), 0xFFFFFFFF);
	{ /* the library's reading of the same record */
		struct dta_int_hop h;

		assert_int_equal(dta_int_hop_decode(d, &h), 0);
		assert_int_equal(h.hop_latency, 20);
		assert_int_equal(h.queue_occupancy, 2);
		assert_true(h.egress_ts == UINT64_MAX);
		assert_int_equal(dta_int_hop_decode(NULL, &h), -EINVAL);
	}
	for (uint8_t sw = 1; sw <= 3; sw++)
		assert_int_equal(ki_get(&x.queue_ki, lo.a[x.s_queue_ki].mem,
					(const uint8_t[]){ 0, 0, 0, sw, 1 }, 5),
				 1);
	/* path_kw is set: the Postcarding structure is not written */
	assert_true(all_zero(&lo, 2) == false);
	{
		uint64_t nz = 0;

		for (uint64_t i = 0; i < lo.a[x.s_path_pc].size; i++)
			nz += lo.a[x.s_path_pc].mem[i] != 0;
		assert_int_equal(nz, 0);
	}
	struct dta_translator_stats st = stats(t);
	/* path + 3 hop records + flow + 3 queues */
	assert_int_equal(st.int_updates, 8);
	assert_int_equal(st.int_path_truncated, 0);
	release(t, &lo);
}

/* Without a Key-Write path structure, an INT-MD path goes to Postcarding
 * with its length; a path longer than the structure is cut and counted. */
static void test_int_md_postcards(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct dta_layout pc, kw2;
	struct dta_int_map m;
	struct dta_int_report r;
	uint8_t inner[256], stack[128], key[13];
	static const uint32_t ids[] = { 3, 2, 1 }, ids5[] = { 5, 4, 3, 2, 1 };
	static const uint32_t path[] = { 1, 2, 3, 4 };
	struct set x;
	int s, s2;

	(void)state;
	assert_int_equal(dta_layout_pc(&pc, 4096, 4, 4, 2, DTA_HASH_CRC32C, 2),
			 0);
	assert_int_equal(dta_layout_kw(&kw2, 4096, 8, 4, 2, DTA_HASH_CRC32C, 6),
			 0);
	s = add(t, &lo, &pc);
	s2 = add(t, &lo, &kw2);
	dta_int_map_init(&m);
	m.path_pc = s;
	assert_int_equal(dta_translator_set_int_map(t, &m), 0);
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V1_0;
	r.next = DTA_INT_V10_IPV4;
	r.node_id = 4;
	r.local.present = DTA_INT_MD_SWITCH_ID;
	r.local.switch_id = 4;
	r.inner = inner;
	r.inner_len = ip4_udp(inner, 11, 62, 1, stack, int_md(stack, ids, 3));
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	r.seq = 1;
	r.inner_len = ip4_udp(inner, 12, 62, 1, stack, int_md(stack, ids5, 5));
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	assert_int_equal(dta_translator_flush(t), 0);

	x.path_pc = pc;
	x.s_path_pc = s;
	flow_key(key, 11);
	pc_path(&x, &lo, key, 3, path);
	flow_key(key, 12);
	pc_path(&x, &lo, key, 4, path);
	assert_int_equal(stats(t).int_path_truncated, 1);

	/* A Key-Write path of 2 switch ids keeps the first two hops. */
	dta_int_map_init(&m);
	m.path_kw = s2;
	assert_int_equal(dta_translator_set_int_map(t, &m), 0);
	r.seq = 2;
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	{
		uint8_t d[8];
		struct dta_kw_result res;

		assert_int_equal(dta_kw_query(&kw2, lo.a[s2].mem, key, 13, NULL,
					      d, 8, &res), 0);
		assert_int_equal(res.status, DTA_Q_FOUND);
		assert_int_equal(be32(d), 1);
		assert_int_equal(be32(d + 4), 2);
	}
	assert_int_equal(stats(t).int_path_truncated, 2);
	release(t, &lo);
}

/* v1.0 drop and congestion reports become events, in the list of their
 * drop reason; the entry layout is read back field by field. */
static void test_v10_events(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r;
	struct dta_ap_reader *rd;
	struct dta_int_event ev;
	uint8_t inner[128], key[13], buf[4 * DTA_INT_EVENT_SIZE];
	uint64_t lost = 0;

	(void)state;
	add_all(t, &lo, &x, 4);
	map_all(t, &x, DTA_INT_EVENTS_REASON, 0);
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V1_0;
	r.next = DTA_INT_V10_IPV4;
	r.flags = DTA_INT_F_DROPPED;
	r.hw_id = 2;
	r.node_id = 11;
	r.seq = 8;
	r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
			  DTA_INT_MD_INGRESS_TS | DTA_INT_MD_EGRESS_TS |
			  DTA_INT_MD_DROP;
	r.local.switch_id = 11;
	r.local.ingress_port = 5;
	r.local.egress_port = 6;
	r.local.ingress_ts = 0x1000;
	r.local.egress_ts = 0x2050;
	r.local.drop_queue_id = 1;
	r.local.drop_reason = 0x0B; /* list 11 % 4 = 3 */
	r.inner = inner;
	r.inner_len = ip4_udp(inner, 5, 60, 0, NULL, 0);
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	/* a congestion report: no drop reason, list 0 */
	r.flags = DTA_INT_F_CONGESTED;
	r.seq = 9;
	r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_HOP_LATENCY |
			  DTA_INT_MD_QUEUE | DTA_INT_MD_INGRESS_TS;
	r.local.hop_latency = 500;
	r.local.queue_id = 4;
	r.local.queue_occupancy = 0x20;
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	assert_int_equal(dta_translator_flush(t), 0);

	flow_key(key, 5);
	assert_int_equal(dta_ap_reader_create(&x.ev, lo.a[x.s_ev].mem, 3, 0,
					      &rd), 0);
	assert_int_equal(dta_ap_read(rd, buf, 4, &lost), 1);
	dta_ap_reader_destroy(rd);
	assert_int_equal(dta_int_event_decode(buf, &ev), 0);
	assert_int_equal(ev.switch_id, 11);
	assert_int_equal(ev.ingress_port, 5);
	assert_int_equal(ev.egress_port, 6);
	assert_int_equal(ev.flags, DTA_INT_F_DROPPED);
	assert_int_equal(ev.queue_id, 1);
	assert_int_equal(ev.drop_reason, 0x0B);
	assert_int_equal(ev.version, 1);
	assert_int_equal(ev.queue_occupancy, 0xFFFFFFFF);
	assert_int_equal(ev.flow_hash, dta_crc32c(0, key, 13));
	assert_int_equal(ev.hop_latency, 0xFFFFFFFF);
	assert_int_equal(ev.time, 0x2050);

	assert_int_equal(dta_ap_reader_create(&x.ev, lo.a[x.s_ev].mem, 0, 0,
					      &rd), 0);
	assert_int_equal(dta_ap_read(rd, buf, 4, &lost), 1);
	dta_ap_reader_destroy(rd);
	assert_int_equal(dta_int_event_decode(buf, &ev), 0);
	assert_int_equal(ev.flags, DTA_INT_F_CONGESTED);
	assert_int_equal(ev.queue_id, 4);
	assert_int_equal(ev.drop_reason, 0xFF);
	assert_int_equal(ev.ingress_port, 0xFFFF);
	assert_int_equal(ev.queue_occupancy, 0x20);
	assert_int_equal(ev.hop_latency, 500);
	assert_int_equal(ev.time, 0x1000);
	assert_int_equal(lost, 0);
	assert_int_equal(ki_get(&x.queue_ki, lo.a[x.s_queue_ki].mem,
				(const uint8_t[]){ 0, 0, 0, 11, 4 }, 5), 1);
	assert_int_equal(ki_get(&x.queue_ki, lo.a[x.s_queue_ki].mem,
				(const uint8_t[]){ 0, 0, 0, 11, 1 }, 5), 1);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 2);
	release(t, &lo);
}

/* A v2.0 group of three reports of different flows, one without an
 * inner packet (nothing to map: counted unmapped), and the group
 * sequence: one number per datagram, 22 bits, wrapping. */
static void test_v20_group_and_seq(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r[3];
	uint8_t in[2][128], key[13];
	static const uint32_t seqs[] = { 0x3FFFFD, 0x3FFFFE, 0x3FFFFF, 0, 1,
					 4, 5 }; /* 2 and 3 lost */

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_SWITCH, 0);
	memset(r, 0, sizeof(r));
	for (unsigned i = 0; i < 3; i++) {
		r[i].version = DTA_INT_V2_0;
		r[i].rep_type = DTA_INT_REPTYPE_INT;
		r[i].hw_id = 3;
		r[i].node_id = 9;
		r[i].local.present = DTA_INT_MD_SWITCH_ID;
		r[i].local.switch_id = 9;
	}
	r[0].next = r[1].next = DTA_INT_INTYPE_IPV4;
	r[0].inner = in[0];
	r[0].inner_len = ip4_udp(in[0], 20, 64, 0, NULL, 0);
	r[1].inner = in[1];
	r[1].inner_len = ip4_udp(in[1], 21, 64, 0, NULL, 0);
	r[2].next = DTA_INT_INTYPE_NONE;
	for (unsigned i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		r[0].seq = seqs[i];
		assert_int_equal(send_int(t, r, 3, 0), 2);
	}
	assert_int_equal(dta_translator_flush(t), 0);
	flow_key(key, 20);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 7);
	flow_key(key, 21);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 7);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_datagrams, 7);
	assert_int_equal(st.int_reports_in, 21);
	assert_int_equal(st.int_applied, 14);
	assert_int_equal(st.int_unmapped, 7);
	assert_int_equal(st.int_seq_lost, 2);
	assert_int_equal(st.int_seq_jumps, 0);
	assert_int_equal(st.int_seq_restarts, 0);
	assert_int_equal(st.int_seq_suspect, 0);
	assert_int_equal(st.seq_lost, 0);
	release(t, &lo);
}

/* Reporters are told apart by node id and hw id: interleaved sequences
 * lose nothing; a duplicate is counted as such. */
static void test_seq_per_reporter(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct dta_int_report r;
	uint8_t inner[128];

	(void)state;
	for (uint32_t s = 10; s < 20; s++) {
		for (uint32_t sw = 1; sw <= 2; sw++) {
			for (uint8_t hw = 0; hw < 2; hw++) {
				v05_local(&r, inner, 1, sw, 64, s);
				r.hw_id = hw;
				assert_int_equal(send_int(t, &r, 1, 0), 0);
			}
		}
	}
	v05_local(&r, inner, 1, 1, 64, 15);
	r.hw_id = 0;
	assert_int_equal(send_int(t, &r, 1, 0), 0);
	v05_local(&r, inner, 1, 2, 64, 25); /* 20..24 lost */
	r.hw_id = 1;
	assert_int_equal(send_int(t, &r, 1, 0), 0);
	assert_int_equal(dta_translator_flush(t), 0);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_seq_duplicates, 1);
	assert_int_equal(st.int_seq_lost, 5);
	/* no map: every report is counted, none applied */
	assert_int_equal(st.int_reports_in, 42);
	assert_int_equal(st.int_unmapped, 42);
	assert_int_equal(st.int_applied, 0);
	assert_int_equal(lo.calls, 0);
	release(t, &lo);
}

/* One corrupt or replayed number, confirmed by the next, is a jump: the
 * numbers it went over are counted in int_seq_skipped, not as loss, so
 * what a suspect report adds to int_seq_lost is bounded by the window;
 * jumps and restarts are counted apart. Real gaps within the window stay
 * loss. Each value below follows docs/translator.md "Sequence
 * accounting" by hand. */
static void send_seq(struct dta_translator *t, uint32_t s)
{
	struct dta_int_report r;
	uint8_t inner[128];

	v05_local(&r, inner, 1, 7, 64, s);
	assert_int_equal(send_int(t, &r, 1, 0), 0);
}

static void test_seq_jumps_bounded(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	uint64_t skipped, cur;

	(void)state;
	for (uint32_t s = 100; s < 110; s++) /* in order: next = 110 */
		send_seq(t, s);
	/* A candidate 2^30 ahead, confirmed by its successor: a jump over
	 * 0x40000000 - 110 numbers, none of them loss. */
	send_seq(t, 0x40000000);
	send_seq(t, 0x40000001);
	skipped = 0x40000000u - 110;
	/* Back to 5, confirmed by 6: a restart, nothing lost or skipped. */
	send_seq(t, 5);
	send_seq(t, 6);
	/* Real gaps within the window: 8 (one), then 10..58 (49). */
	send_seq(t, 7);
	send_seq(t, 9);
	send_seq(t, 59);
	/* 100 corrupt pairs 2^24 ahead each (the storm, shortened):
	 * 100 jumps, loss unchanged. */
	cur = 60;
	for (unsigned k = 0; k < 100; k++) {
		uint32_t a = (uint32_t)cur + 0x01000000u;

		send_seq(t, a);
		send_seq(t, a + 1);
		skipped += a - cur;
		cur = (uint64_t)a + 2;
	}
	assert_int_equal(dta_translator_flush(t), 0);
	struct dta_translator_stats st = stats(t);
	if (st.int_seq_lost != 50 || st.int_seq_skipped != skipped)
		print_error("int_seq_lost %" PRIu64 " (want 50), int_seq_skipped "
			    "%" PRIu64 " (want %" PRIu64 "), jumps %" PRIu64
			    ", restarts %" PRIu64 "\n", st.int_seq_lost,
			    st.int_seq_skipped, skipped, st.int_seq_jumps,
			    st.int_seq_restarts);
	assert_int_equal(st.int_seq_lost, 50);
	assert_int_equal(st.int_seq_skipped, skipped);
	assert_int_equal(st.int_seq_jumps, 101);
	assert_int_equal(st.int_seq_restarts, 1);
	assert_int_equal(st.int_seq_suspect, 0);
	assert_int_equal(st.int_seq_late, 0);
	assert_int_equal(st.int_seq_duplicates, 0);
	assert_int_equal(st.seq_lost, 0);
	release(t, &lo);
}

/* Malformed datagrams are counted by cause, change no structure and
 * advance no sequence. */
static void test_malformed_by_cause(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r;
	uint8_t inner[512], stack[512], buf[1024];
	uint32_t ids[17];
	int len;

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 0);
	v05_local(&r, inner, 7, 1, 64, 1);
	r.flags |= DTA_INT_F_DROPPED;
	len = dta_int_encode(&r, 1, buf, sizeof(buf));
	assert_true(len > 0);

	/* truncated: the switch local header cut */
	assert_int_equal(dta_translator_process_int(t, buf, 20, 0),
			 -DTA_E_TRUNCATED);
	/* version 3 */
	buf[0] = (uint8_t)(0x30 | (buf[0] & 0x0F));
	assert_int_equal(dta_translator_process_int(t, buf, (size_t)len, 0),
			 -DTA_E_VERSION);
	/* v0.5 NProto 3 */
	buf[0] = 0x03;
	assert_int_equal(dta_translator_process_int(t, buf, (size_t)len, 0),
			 -DTA_E_INT_UNSUPPORTED);
	/* v1.0 Length disagreeing with RepMdBits */
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V1_0;
	r.next = DTA_INT_V10_IPV4;
	r.flags = DTA_INT_F_DROPPED;
	r.node_id = 3;
	r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_INGRESS_TS;
	r.local.switch_id = 3;
	r.inner = inner;
	r.inner_len = ip4_udp(inner, 7, 64, 0, NULL, 0);
	len = dta_int_encode(&r, 1, buf, sizeof(buf));
	assert_true(len > 0);
	buf[0] = (uint8_t)(buf[0] + 1);
	assert_int_equal(dta_translator_process_int(t, buf, (size_t)len, 0),
			 -DTA_E_INT_LENGTH);
	/* 17 hops */
	for (unsigned i = 0; i < 17; i++)
		ids[i] = 17 - i;
	r.inner_len = ip4_udp(inner, 7, 64, 1, stack, int_md(stack, ids, 17));
	len = dta_int_encode(&r, 1, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(dta_translator_process_int(t, buf, (size_t)len, 0),
			 -DTA_E_INT_HOPS);
	/* inner IPv4 IHL 4 */
	r.inner_len = ip4_udp(inner, 7, 64, 0, NULL, 0);
	inner[0] = 0x44;
	len = dta_int_encode(&r, 1, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(dta_translator_process_int(t, buf, (size_t)len, 0),
			 -DTA_E_MALFORMED);
	/* a batch: the malformed ones are skipped, the good one applied */
	{
		uint8_t good[256];
		int gl;
		struct dta_payload p[2];

		inner[0] = 0x45;
		gl = dta_int_encode(&r, 1, good, sizeof(good));
		assert_true(gl > 0);
		p[0] = (struct dta_payload){ .buf = buf, .len = (size_t)len };
		p[1] = (struct dta_payload){ .buf = good, .len = (size_t)gl };
		assert_true(all_zero(&lo, 6));
		assert_int_equal(lo.calls, 0);
		assert_int_equal(dta_translator_process_int_batch(t, p, 2, 0),
				 1);
	}
	assert_int_equal(dta_translator_flush(t), 0);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_datagrams, 8);
	assert_int_equal(st.int_malformed, 7);
	assert_int_equal(st.int_malformed_truncated, 1);
	assert_int_equal(st.int_malformed_version, 1);
	assert_int_equal(st.int_malformed_unsupported, 1);
	assert_int_equal(st.int_malformed_length, 1);
	assert_int_equal(st.int_malformed_hops, 1);
	assert_int_equal(st.int_malformed_other, 2);
	assert_int_equal(st.int_reports_in, 1);
	assert_int_equal(st.int_applied, 1);
	assert_int_equal(st.int_seq_lost, 0);
	assert_int_equal(st.malformed, 0);
	release(t, &lo);
}

/* The map is checked against the structures. */
static void test_map_checks(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct dta_layout kw8, kw16, ap16, ki, kw6;
	struct dta_int_map m;
	int s_kw8, s_kw16, s_ap16, s_ki, s_kw6;

	(void)state;
	assert_int_equal(dta_layout_kw(&kw8, 64, 8, 4, 2, DTA_HASH_CRC32C, 1),
			 0);
	assert_int_equal(dta_layout_kw(&kw16, 64, 16, 4, 2, DTA_HASH_CRC32C, 1),
			 0);
	assert_int_equal(dta_layout_kw(&kw6, 64, 6, 4, 2, DTA_HASH_CRC32C, 1),
			 0);
	assert_int_equal(dta_layout_ap(&ap16, 1, 4, 2, 16, 0), 0);
	assert_int_equal(dta_layout_ki(&ki, 64, 2, 1, DTA_HASH_CRC32C, 1), 0);
	s_kw8 = add(t, &lo, &kw8);
	s_kw16 = add(t, &lo, &kw16);
	s_ap16 = dta_translator_add(t, &ap16, 0);
	assert_true(s_ap16 >= 0);
	s_ki = add(t, &lo, &ki);
	s_kw6 = add(t, &lo, &kw6);

	assert_int_equal(dta_translator_set_int_map(t, NULL), -EINVAL);
	dta_int_map_init(&m);
	m.flow_ki = s_kw8;
	assert_int_equal(dta_translator_set_int_map(t, &m), -DTA_E_PRIMITIVE);
	dta_int_map_init(&m);
	m.hop_kw = s_kw8; /* shorter than a hop record */
	assert_int_equal(dta_translator_set_int_map(t, &m), -DTA_E_MISMATCH);
	dta_int_map_init(&m);
	m.path_kw = s_kw6; /* not whole switch ids */
	assert_int_equal(dta_translator_set_int_map(t, &m), -DTA_E_MISMATCH);
	dta_int_map_init(&m);
	m.events_ap = s_ap16;
	assert_int_equal(dta_translator_set_int_map(t, &m), -DTA_E_MISMATCH);
	dta_int_map_init(&m);
	m.queue_ki = 40;
	assert_int_equal(dta_translator_set_int_map(t, &m), -EINVAL);
	dta_int_map_init(&m);
	m.events_by = 3;
	assert_int_equal(dta_translator_set_int_map(t, &m), -EINVAL);
	dta_int_map_init(&m);
	m.path_kw = s_kw8;
	m.hop_kw = s_kw16;
	m.flow_ki = s_ki;
	m.redundancy = 3; /* above the layouts' max_redundancy 2 */
	assert_int_equal(dta_translator_set_int_map(t, &m), -EINVAL);
	m.redundancy = 0;
	assert_int_equal(dta_translator_set_int_map(t, &m), 0);
	release(t, &lo);
}

/* An IPv6 flow's key is the 37-byte form: source, destination, ports,
 * protocol (docs/keys.md). */
static void test_ipv6_flow_key(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r;
	/* IPv6 (RFC 8200): payload 8, UDP, hop limit 61, 2001:db8::1 ->
	 * 2001:db8::2; UDP 5000 -> 5001 */
	static const uint8_t inner[48] = {
		0x60, 0, 0, 0, 0, 8, 17, 61, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 1, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 2, 0x13, 0x88, 0x13, 0x89, 0, 8, 0, 0,
	};
	static const uint8_t key[37] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		0x13, 0x88, 0x13, 0x89, 17,
	};
	struct dta_int_flow f = { .family = 0 };
	uint8_t k[37];

	(void)state;
	assert_int_equal(dta_int_flow_key(&f, k), 0);
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 0);
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V1_0;
	r.next = DTA_INT_V10_IPV6;
	r.node_id = 8;
	r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_INGRESS_TS;
	r.local.switch_id = 8;
	r.inner = inner;
	r.inner_len = sizeof(inner);
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 37), 2);
	/* By falling TTL (the default), the highest TTL the flow has shown
	 * (61) is hop 0: the postcard twice is a one-hop path written on
	 * the flush. (By the absolute rule it was hop 64 - 61 = 3, with no
	 * prefix to write.) */
	assert_int_equal(dta_translator_flush(t), 0);
	assert_int_equal(stats(t).pc_duplicates, 1);
	assert_int_equal(stats(t).pc_hops_dropped, 0);
	assert_int_equal(stats(t).pc_timeouts, 1);
	assert_int_equal(stats(t).int_updates, 4);
	release(t, &lo);
}

/* A v2.0 group of more reports than the core decodes on its stack (16)
 * is decoded whole into a larger array and applied. */
static void test_v20_many_reports(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r[40];
	uint8_t in[2][64], key[13];

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 0);
	memset(r, 0, sizeof(r));
	ip4_udp(in[0], 30, 64, 0, NULL, 0);
	ip4_udp(in[1], 31, 64, 0, NULL, 0);
	for (unsigned i = 0; i < 40; i++) {
		r[i].version = DTA_INT_V2_0;
		r[i].rep_type = DTA_INT_REPTYPE_INNER_ONLY;
		r[i].next = DTA_INT_INTYPE_IPV4;
		r[i].node_id = 2;
		r[i].inner = in[i % 2];
		r[i].inner_len = 28;
	}
	assert_int_equal(send_int(t, r, 40, 0), 40);
	flow_key(key, 30);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 20);
	flow_key(key, 31);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 20);
	assert_int_equal(stats(t).int_reports_in, 40);
	assert_int_equal(stats(t).int_applied, 40);
	release(t, &lo);
}

/* Many INT-MD datagrams in one _process_int_batch() call (hundreds of
 * queued updates: the update queue fills and is submitted several times
 * within the call) leave every structure and counter exactly as one
 * _process_int() call per datagram does. */
static void test_batch_equals_single(void **state)
{
	enum { N = 50 };
	struct local la, lb;
	struct dta_translator *ta = make(&la), *tb = make(&lb);
	struct set xa, xb;
	struct dta_payload p[N];
	static uint8_t buf[N][512];
	struct dta_translator_stats sa, sb;

	(void)state;
	add_all(ta, &la, &xa, 2);
	add_all(tb, &lb, &xb, 2);
	map_all(ta, &xa, DTA_INT_EVENTS_SWITCH, 0);
	map_all(tb, &xb, DTA_INT_EVENTS_SWITCH, 0);
	for (unsigned i = 0; i < N; i++) {
		struct dta_int_report r;
		uint8_t inner[256], stack[128];
		const uint32_t ids[3] = { 10 + i % 7, 20 + i % 5, 30 + i % 3 };
		size_t sl = int_md(stack, ids, 3);
		int len;

		memset(&r, 0, sizeof(r));
		r.version = DTA_INT_V2_0;
		r.next = DTA_INT_INTYPE_IPV4;
		r.rep_type = DTA_INT_REPTYPE_INT;
		r.flags = i % 4 ? DTA_INT_F_TRACKED : DTA_INT_F_DROPPED;
		r.node_id = 40;
		r.seq = i;
		r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_DROP;
		r.local.switch_id = 40;
		r.local.drop_reason = (uint8_t)i;
		r.inner = inner;
		r.inner_len = ip4_udp(inner, (uint8_t)(i % 20), 60, 1, stack, sl);
		len = dta_int_encode(&r, 1, buf[i], sizeof(buf[i]));
		assert_true(len > 0);
		p[i].buf = buf[i];
		p[i].len = (size_t)len;
	}
	assert_int_equal(dta_translator_process_int_batch(ta, p, N, 0), N);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(dta_translator_process_int(tb, p[i].buf,
							    p[i].len, 0), 1);
	assert_int_equal(dta_translator_flush(ta), 0);
	assert_int_equal(dta_translator_flush(tb), 0);
	sa = stats(ta);
	sb = stats(tb);
	/* path + 3 hop records + flow + 4 queues each (the sink's drop
	 * queue from its header metadata is the path's last hop, INT.mdk
	 * v2.1 sink option 2): far beyond a queue */
	assert_int_equal(sa.int_updates, N * 9 + N / 4 + 1);
	assert_memory_equal(&sa, &sb, sizeof(sa));
	assert_int_equal(la.calls, lb.calls);
	for (unsigned s = 0; s < 6; s++)
		assert_memory_equal(la.a[s].mem, lb.a[s].mem, la.a[s].size);
	release(ta, &la);
	release(tb, &lb);
}

/* INT v1.0 (@ver 1) or v0.5 (@ver 0) shim + metadata header
 * (instructions: node id, hop latency, queue: 0xB000) + @n hops of 3 words
 * newest first, as int_md() (INT.mdk telemetry_v1.0 "INT over TCP/UDP" and
 * "INT Hop-by-Hop Metadata Header Format"; telemetry_v0.5 adds a tail with
 * the protocol and destination port). */
static size_t int_md_old(uint8_t *p, const uint32_t *ids, unsigned n,
			 unsigned ver)
{
	size_t o = 0, words = 3 + 3 * n + (ver == 0);

	p[o++] = 0x01;            /* Type 1, 8 bits */
	p[o++] = 0;               /* Reserved */
	p[o++] = (uint8_t)words;  /* Length, with the shim (and tail) */
	p[o++] = 0;               /* DSCP R R / Reserved */
	p[o++] = (uint8_t)(ver << 4); /* Ver Rep C E */
	if (ver == 1) {
		p[o++] = 0;       /* M, reserved */
		p[o++] = 3;       /* Hop ML */
		p[o++] = 5;       /* Remaining Hop Count */
	} else {
		p[o++] = 3;       /* R R R InsCnt=3 */
		p[o++] = 8;       /* Max Hop Cnt */
		p[o++] = (uint8_t)n; /* Total Hop Cnt */
	}
	p[o++] = 0xB0;            /* Instruction Bitmap bits 0, 2, 3 */
	p[o++] = 0;
	p[o++] = 0;               /* Reserved */
	p[o++] = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t lat = 10 * ids[i];
		const uint8_t hop[12] = {
			(uint8_t)(ids[i] >> 24), (uint8_t)(ids[i] >> 16),
			(uint8_t)(ids[i] >> 8), (uint8_t)ids[i],
			(uint8_t)(lat >> 24), (uint8_t)(lat >> 16),
			(uint8_t)(lat >> 8), (uint8_t)lat,
			1, 0, 0, (uint8_t)ids[i],
		};
		memcpy(p + o, hop, 12);
		o += 12;
	}
	if (ver == 0) { /* tail: Proto 17, Destination Port 80, DSCP 0 */
		const uint8_t tail[4] = { 17, 0x00, 0x50, 0 };

		memcpy(p + o, tail, 4);
		o += 4;
	}
	return o;
}

/* The path, hop record of @mid and queue counts of an INT-MD report of
 * flow 10.0.0.<src> whose path is @want[0..n-1]. */
static void check_md_path(const struct set *x, const struct local *lo,
			  uint8_t src, const uint32_t *want, unsigned n,
			  uint32_t lat_of, uint32_t lat, uint32_t occ)
{
	uint8_t key[13], d[16], hkey[17];

	flow_key(key, src);
	kw_get(&x->path_kw, lo->a[x->s_path_kw].mem, key, 13, d);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(be32(d + 4 * i), i < n ? want[i] : 0xFFFFFFFF);
	memcpy(hkey, key, 13);
	hkey[13] = (uint8_t)(lat_of >> 24);
	hkey[14] = (uint8_t)(lat_of >> 16);
	hkey[15] = (uint8_t)(lat_of >> 8);
	hkey[16] = (uint8_t)lat_of;
	kw_get(&x->hop_kw, lo->a[x->s_hop_kw].mem, hkey, 17, d);
	assert_int_equal(be32(d), lat);
	assert_int_equal(be32(d + 4), occ);
}

/* INT v1.0 and v0.5 stacks in v1.0 and v0.5 reports reach the structures
 * as v2.x stacks do: path first hop first, hop records, queue counts. */
static void test_old_stacks(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r;
	uint8_t inner[256], stack[128];
	static const uint32_t ids[] = { 3, 2, 1 }, path[] = { 1, 2, 3 };

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 0);
	/* v1.0 report, INT v1.0 stack, flow from 10.0.0.11 */
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V1_0;
	r.next = DTA_INT_V10_IPV4;
	r.flags = DTA_INT_F_TRACKED;
	r.node_id = 4;
	r.seq = 1;
	r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_INGRESS_TS;
	r.local.switch_id = 4;
	r.inner = inner;
	r.inner_len = ip4_udp(inner, 11, 62, 1, stack,
			      int_md_old(stack, ids, 3, 1));
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	/* v0.5 report (switch local header), INT v0.5 stack, 10.0.0.12 */
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V0_5;
	r.next = DTA_INT_V05_ETHERNET;
	r.flags = DTA_INT_F_TRACKED;
	r.seq = 1;
	r.local.present = DTA_INT_MD_INGRESS_TS;
	r.inner = inner;
	{
		static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0,
						 0, 1, 0x08, 0x00 };

		memcpy(inner, eth, 14);
		r.inner_len = 14 + ip4_udp(inner + 14, 12, 62, 1, stack,
					   int_md_old(stack, ids, 3, 0));
	}
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	assert_int_equal(dta_translator_flush(t), 0);

	check_md_path(&x, &lo, 11, path, 3, 2, 20, 2);
	check_md_path(&x, &lo, 12, path, 3, 3, 30, 3);
	/* queue 1 of switches 1..3, once per report */
	for (uint8_t sw = 1; sw <= 3; sw++)
		assert_int_equal(ki_get(&x.queue_ki, lo.a[x.s_queue_ki].mem,
					(const uint8_t[]){ 0, 0, 0, sw, 1 }, 5),
				 2);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_malformed, 0);
	assert_int_equal(st.int_applied, 2);
	/* per report: path + 3 hop records + flow + 3 queues */
	assert_int_equal(st.int_updates, 16);
	release(t, &lo);
}

/* A v2.0 sink that puts its metadata in the report header (INT.mdk v2.1,
 * sink option 2) is the path's last hop; one that pushed itself onto the
 * stack (option 1) is not added twice. */
static void test_sink_in_header(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r;
	uint8_t inner[256], stack[128];
	static const uint32_t ids[] = { 3, 2, 1 }, ids4[] = { 4, 3, 2, 1 },
			      path[] = { 1, 2, 3, 4 };

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 0);
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V2_0;
	r.next = DTA_INT_INTYPE_IPV4;
	r.rep_type = DTA_INT_REPTYPE_INT;
	r.flags = DTA_INT_F_TRACKED;
	r.node_id = 4;
	r.seq = 1;
	/* RepMdBits 2 and 3: hop latency 40, queue 1 occupancy 4 */
	r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_HOP_LATENCY |
			  DTA_INT_MD_QUEUE;
	r.local.switch_id = 4;
	r.local.hop_latency = 40;
	r.local.queue_id = 1;
	r.local.queue_occupancy = 4;
	r.inner = inner;
	r.inner_len = ip4_udp(inner, 13, 62, 1, stack, int_md(stack, ids, 3));
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	/* option 1: the stack's newest hop is node 4 already */
	r.seq = 2;
	r.inner_len = ip4_udp(inner, 14, 62, 1, stack, int_md(stack, ids4, 4));
	assert_int_equal(send_int(t, &r, 1, 0), 1);
	assert_int_equal(dta_translator_flush(t), 0);

	check_md_path(&x, &lo, 13, path, 4, 4, 40, 4);
	check_md_path(&x, &lo, 14, path, 4, 4, 40, 4);
	for (uint8_t sw = 1; sw <= 4; sw++)
		assert_int_equal(ki_get(&x.queue_ki, lo.a[x.s_queue_ki].mem,
					(const uint8_t[]){ 0, 0, 0, sw, 1 }, 5),
				 2);
	struct dta_translator_stats st = stats(t);
	/* per report: path + 4 hop records + flow + 4 queues */
	assert_int_equal(st.int_updates, 20);
	release(t, &lo);
}

/* A report whose stack cannot be read is refused alone: the datagram's
 * other reports apply and its sequence number counts (no false gap). */
static void test_refused_alone(void **state)
{
	struct local lo;
	struct dta_translator *t = make(&lo);
	struct set x;
	struct dta_int_report r[2];
	uint8_t in[2][256], stack[128], key[13];
	static const uint32_t ids[] = { 3, 2, 1 };
	size_t sl = int_md(stack, ids, 3);

	(void)state;
	add_all(t, &lo, &x, 1);
	map_all(t, &x, DTA_INT_EVENTS_ONE, 0);
	memset(r, 0, sizeof(r));
	for (unsigned i = 0; i < 2; i++) {
		r[i].version = DTA_INT_V2_0;
		r[i].next = DTA_INT_INTYPE_IPV4;
		r[i].rep_type = DTA_INT_REPTYPE_INT;
		r[i].node_id = 9;
		r[i].local.present = DTA_INT_MD_SWITCH_ID;
		r[i].local.switch_id = 9;
		r[i].inner = in[i];
		r[i].inner_len = ip4_udp(in[i], (uint8_t)(20 + i), 62, 1,
					 stack, sl);
	}
	in[0][28 + 4] = 0x30; /* report 0: INT-MD header Ver 3 */
	for (uint32_t s = 0; s < 3; s++) {
		r[0].seq = s;
		assert_int_equal(send_int(t, r, 2, 0), -DTA_E_VERSION);
	}
	/* v1.0: good seq 1, stack Ver 3 seq 2, good seq 3: no gap */
	{
		struct dta_int_report v;

		memset(&v, 0, sizeof(v));
		v.version = DTA_INT_V1_0;
		v.next = DTA_INT_V10_IPV4;
		v.node_id = 5;
		v.seq = 1;
		v.local.present = DTA_INT_MD_SWITCH_ID;
		v.local.switch_id = 5;
		v.inner = in[1];
		v.inner_len = r[1].inner_len;
		assert_int_equal(send_int(t, &v, 1, 0), 1);
		v.seq = 2;
		v.inner = in[0];
		v.inner_len = r[0].inner_len;
		assert_int_equal(send_int(t, &v, 1, 0), -DTA_E_VERSION);
		v.seq = 3;
		v.inner = in[1];
		v.inner_len = r[1].inner_len;
		assert_int_equal(send_int(t, &v, 1, 0), 1);
	}
	assert_int_equal(dta_translator_flush(t), 0);
	flow_key(key, 21);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 5);
	flow_key(key, 20);
	assert_int_equal(ki_get(&x.flow_ki, lo.a[x.s_flow_ki].mem, key, 13), 0);
	struct dta_translator_stats st = stats(t);
	assert_int_equal(st.int_datagrams, 6);
	assert_int_equal(st.int_malformed, 4);
	assert_int_equal(st.int_malformed_version, 4);
	assert_int_equal(st.int_reports_in, 5);
	assert_int_equal(st.int_applied, 5);
	assert_int_equal(st.int_seq_lost, 0);
	release(t, &lo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_checks),
		cmocka_unit_test(test_malformed_by_cause),
		cmocka_unit_test(test_v05_postcards),
		cmocka_unit_test(test_int_md_path),
		cmocka_unit_test(test_int_md_postcards),
		cmocka_unit_test(test_v10_events),
		cmocka_unit_test(test_v20_group_and_seq),
		cmocka_unit_test(test_seq_per_reporter),
		cmocka_unit_test(test_seq_jumps_bounded),
		cmocka_unit_test(test_ipv6_flow_key),
		cmocka_unit_test(test_v20_many_reports),
		cmocka_unit_test(test_batch_equals_single),
		cmocka_unit_test(test_old_stacks),
		cmocka_unit_test(test_sink_in_header),
		cmocka_unit_test(test_refused_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
