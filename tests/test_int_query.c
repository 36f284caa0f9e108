/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The INT questions of dta/int_query.h through a client on snapshot
 * files: a configuration with an [int] section is written here, its
 * structures created in memory, INT reports built with dta_int_encode()
 * and dta_int_inner_build() run through the translator core's INT mapping
 * into them, and the regions saved as the snapshot files of
 * "snapshot:DIR?config=CONF". Answers are checked against what the
 * reports carried (hand-worked) and against the single-key query
 * functions on the regions themselves. Refusals: no [int] section, a role
 * naming no structure or one of another primitive, bad key lengths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dta/dta.h"

#define MAXS 8

struct fixture {
	char dir[64], conf[96];
	struct dta_config *cfg;
	struct dta_region *r[MAXS];
	size_t n;
	struct dta_client *c;
	struct dta_int_roles roles;
};

static int sink_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		       size_t n)
{
	struct fixture *fx = ctx;
	int k = dta_memops_apply(dta_region_data(fx->r[s]),
				 dta_region_layout(fx->r[s])->data_size, ops, n);

	return k < 0 ? k : 0;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* ---- reports ---- */

/* Flow A: 10.0.0.1:1000 -> 10.0.0.2:80/udp; flow B: [2001:db8::1]:7 ->
 * [2001:db8::2]:9/tcp. */
static void flow_a(struct dta_int_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->family = 4;
	f->proto = 17;
	f->sport = 1000;
	f->dport = 80;
	f->src[0] = 10, f->src[3] = 1;
	f->dst[0] = 10, f->dst[3] = 2;
}

static void flow_b(struct dta_int_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->family = 6;
	f->proto = 6;
	f->sport = 7;
	f->dport = 9;
	f->src[0] = 0x20, f->src[1] = 0x01, f->src[2] = 0x0d, f->src[3] = 0xb8;
	f->src[15] = 1;
	memcpy(f->dst, f->src, 16);
	f->dst[15] = 2;
}

/* The keys by hand (docs/keys.md): addresses, ports, protocol. */
static const uint8_t KEY_A[13] = { 10, 0, 0, 1, 10, 0, 0, 2, 0x03, 0xE8,
				   0x00, 0x50, 17 };
static void key_b(uint8_t k[37])
{
	memset(k, 0, 37);
	k[0] = 0x20, k[1] = 0x01, k[2] = 0x0d, k[3] = 0xb8, k[15] = 1;
	k[16] = 0x20, k[17] = 0x01, k[18] = 0x0d, k[19] = 0xb8, k[31] = 2;
	k[33] = 7, k[35] = 9, k[36] = 6;
}

/* Reports applied per datagram: 1 with the [int] map, 0 without. */
static int applied;

static void send(struct dta_translator *t, struct dta_int_report *r)
{
	uint8_t buf[2048];
	int len = dta_int_encode(r, 1, buf, sizeof(buf));

	assert_true(len > 0);
	assert_int_equal(dta_translator_process_int(t, buf, (size_t)len, 0),
			 applied);
}

/* An INT-MD v2.0 report of @f whose stack holds @ids (newest first) with
 * hop latency 10 * id, queue @id % 8 with occupancy id, and, with
 * @egress, egress timestamp 1000 + id. */
static void send_md(struct dta_translator *t, const struct dta_int_flow *f,
		    const uint32_t *ids, unsigned n, bool egress, uint32_t seq)
{
	struct dta_int_md hops[8];
	struct dta_int_inner in = { .sz = sizeof(in) };
	struct dta_int_report r;
	uint8_t inner[512];
	int len;

	memset(hops, 0, sizeof(hops));
	for (unsigned i = 0; i < n; i++) {
		hops[i].switch_id = ids[i];
		hops[i].hop_latency = 10 * ids[i];
		hops[i].queue_id = (uint8_t)(ids[i] % 8);
		hops[i].queue_occupancy = ids[i];
		hops[i].egress_ts = 1000 + ids[i];
	}
	in.flow = *f;
	in.ttl = 60;
	in.dscp = 1; /* the decoder's default INT DSCP */
	in.int_md = true;
	/* node id, hop latency, queue (, egress timestamp) */
	in.instructions = egress ? 0xA400 : 0xB000;
	in.remaining_hops = 4;
	in.n_hops = (uint8_t)n;
	in.hops = hops;
	len = dta_int_inner_build(&in, inner, sizeof(inner));
	assert_true(len > 0);
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V2_0;
	r.next = DTA_INT_INTYPE_ETHERNET;
	r.rep_type = DTA_INT_REPTYPE_INT;
	r.flags = DTA_INT_F_TRACKED;
	r.hw_id = 1;
	r.seq = seq;
	r.node_id = 100;
	r.local.present = DTA_INT_MD_SWITCH_ID;
	r.local.switch_id = 100;
	r.inner = inner;
	r.inner_len = (size_t)len;
	send(t, &r);
}

/* A v1.0 report (no INT-MD) of @f at switch @sw with @flags: D with drop
 * queue @queue and reason @reason, or Q with queue @queue, occupancy
 * @occ, latency 500; egress timestamp @time. */
static void send_event(struct dta_translator *t, const struct dta_int_flow *f,
		       uint32_t sw, uint8_t flags, uint8_t queue,
		       uint8_t reason, uint32_t occ, uint64_t time,
		       uint32_t seq)
{
	struct dta_int_inner in = { .sz = sizeof(in) };
	struct dta_int_report r;
	uint8_t inner[512];
	int len;

	in.flow = *f;
	in.ttl = 61;
	len = dta_int_inner_build(&in, inner, sizeof(inner));
	assert_true(len > 0);
	memset(&r, 0, sizeof(r));
	r.version = DTA_INT_V1_0;
	r.next = DTA_INT_V10_ETHERNET;
	r.rep_type = DTA_INT_REPTYPE_INT;
	r.flags = flags;
	r.hw_id = 2;
	r.seq = seq;
	r.node_id = sw;
	r.local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
			  DTA_INT_MD_EGRESS_TS;
	r.local.switch_id = sw;
	r.local.ingress_port = 5;
	r.local.egress_port = 6;
	r.local.egress_ts = time;
	if (flags & DTA_INT_F_DROPPED) {
		r.local.present |= DTA_INT_MD_DROP;
		r.local.drop_queue_id = queue;
		r.local.drop_reason = reason;
	} else {
		r.local.present |= DTA_INT_MD_QUEUE | DTA_INT_MD_HOP_LATENCY;
		r.local.queue_id = queue;
		r.local.queue_occupancy = occ;
		r.local.hop_latency = 500;
	}
	r.inner = inner;
	r.inner_len = (size_t)len;
	send(t, &r);
}

/* ---- the fixture: configuration, structures, reports, snapshots ---- */

static const char CONF_HEAD[] =
	"[collector]\nname = tiq\n\n"
	"[structure hops]\nprimitive = key-write\nslots = 4K\ndata = 16\n"
	"[structure events]\nprimitive = append\nentry = 32\nlists = 4\n"
	"batch = 1\n"
	"[structure flows]\nprimitive = key-increment\nwidth = 4K\n"
	"[structure queues]\nprimitive = key-increment\nwidth = 4K\n";

static const char CONF_KW[] =
	"[structure paths]\nprimitive = key-write\nslots = 4K\ndata = 16\n";
static const char CONF_PC[] =
	"[structure paths]\nprimitive = postcard\nchunks = 4K\nhops = 4\n"
	"values = 1-16\n";
static const char CONF_INT[] =
	"[int]\npath = paths\nhops = hops\nevents = events\n"
	"events_by = switch\nflow_counts = flows\nqueue_counts = queues\n";

/* Write the configuration (@paths: CONF_KW or CONF_PC; @with_int: an
 * [int] section), feed the reports, save snapshots, open the client. */
static struct fixture *setup(const char *paths, bool with_int)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct dta_sink sink = { .submit = sink_submit };
	struct dta_translator *t;
	struct dta_int_map m;
	struct dta_int_flow a, b;
	char err[256], target[256], path[160];
	FILE *f;

	assert_non_null(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_int_query.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->conf, sizeof(fx->conf), "%s/dta.conf", fx->dir);
	f = fopen(fx->conf, "w");
	assert_non_null(f);
	fprintf(f, "%s%s%s", CONF_HEAD, paths, with_int ? CONF_INT : "");
	fclose(f);
	assert_int_equal(dta_config_load(fx->conf, &fx->cfg, err, sizeof(err)),
			 0);
	sink.ctx = fx;
	assert_int_equal(dta_translator_create(NULL, &sink, &t), 0);
	fx->n = dta_config_count(fx->cfg);
	assert_true(fx->n <= MAXS);
	for (size_t i = 0; i < fx->n; i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(fx->cfg, i);
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = DTA_BACKING_ANON,
					     .name = cs->name,
					     .schema = cs->schema };

		assert_int_equal(dta_region_create(&cs->layout, &o, &fx->r[i]),
				 0);
		/* configuration index = translator index = sink index */
		assert_int_equal(dta_translator_add(t, &cs->layout,
						    cs->list_base), (int)i);
	}
	applied = with_int;
	if (with_int) {
		assert_int_equal(dta_config_int_map(fx->cfg, &m, NULL), 1);
		assert_int_equal(dta_translator_set_int_map(t, &m), 0);
	}
	flow_a(&a);
	flow_b(&b);
	{
		const uint32_t ida[] = { 3, 2, 1 }, idb[] = { 5, 4 };

		send_md(t, &a, ida, 3, false, 1);
		send_md(t, &b, idb, 2, true, 2);
	}
	send_event(t, &a, 11, DTA_INT_F_DROPPED, 2, 7, 0, 4096, 1);
	send_event(t, &a, 12, DTA_INT_F_CONGESTED, 4, 0, 300, 8192, 2);
	send_event(t, &b, 11, DTA_INT_F_DROPPED, 2, 9, 0, 12288, 3);
	assert_int_equal(dta_translator_flush(t), 0);
	dta_translator_destroy(t);
	for (size_t i = 0; i < fx->n; i++) {
		snprintf(path, sizeof(path), "%s/%s.dta", fx->dir,
			 dta_config_structure(fx->cfg, i)->name);
		assert_int_equal(dta_region_save(fx->r[i], path), 0);
	}
	snprintf(target, sizeof(target), "snapshot:%s?config=%s", fx->dir,
		 fx->conf);
	assert_int_equal(dta_client_open(target, NULL, &fx->c, err,
					 sizeof(err)), 0);
	fx->roles.sz = sizeof(fx->roles);
	assert_int_equal(dta_int_roles_config(fx->cfg, &fx->roles),
			 with_int ? 1 : 0);
	return fx;
}

static void teardown(struct fixture *fx)
{
	char path[160];

	dta_client_close(fx->c);
	for (size_t i = 0; i < fx->n; i++) {
		snprintf(path, sizeof(path), "%s/%s.dta", fx->dir,
			 dta_config_structure(fx->cfg, i)->name);
		unlink(path);
		dta_region_destroy(fx->r[i]);
	}
	unlink(fx->conf);
	rmdir(fx->dir);
	dta_config_destroy(fx->cfg);
	free(fx);
}

static const struct dta_region *region(const struct fixture *fx,
				       const char *name)
{
	for (size_t i = 0; i < fx->n; i++)
		if (!strcmp(dta_config_structure(fx->cfg, i)->name, name))
			return fx->r[i];
	fail_msg("no structure %s", name);
	return NULL;
}

/* ---- tests ---- */

static void test_roles_config(void **state)
{
	struct fixture *fx = setup(CONF_KW, true);
	struct dta_int_roles r = { .sz = sizeof(r) - 1 };

	(void)state;
	assert_string_equal(fx->roles.path_kw, "paths");
	assert_string_equal(fx->roles.path_pc, "");
	assert_string_equal(fx->roles.hop_kw, "hops");
	assert_string_equal(fx->roles.events_ap, "events");
	assert_string_equal(fx->roles.flow_ki, "flows");
	assert_string_equal(fx->roles.queue_ki, "queues");
	assert_int_equal(fx->roles.events_by, DTA_INT_EVENTS_SWITCH);
	assert_int_equal(dta_int_roles_config(fx->cfg, &r), -EINVAL);
	assert_int_equal(dta_int_roles_config(NULL, &fx->roles), -EINVAL);
	teardown(fx);
}

/* Key-Write paths: the switch ids of the stacks, first hop first, padding
 * dropped; the same status, votes and data as dta_kw_query() gives. */
static void test_paths_kw(void **state)
{
	struct fixture *fx = setup(CONF_KW, true);
	const struct dta_region *pr = region(fx, "paths");
	uint8_t keys[3 * 13], kb[37];
	struct dta_int_path p[3], pb;

	(void)state;
	memcpy(keys, KEY_A, 13);
	memcpy(keys + 13, KEY_A, 13);
	keys[13 + 3] = 77; /* 10.0.0.77: never reported */
	memcpy(keys + 26, KEY_A, 13);
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_AUTO,
				       keys, 13, 3, p), 0);
	assert_int_equal(p[0].status, DTA_Q_FOUND);
	assert_int_equal(p[0].primitive, DTA_PRIM_KEY_WRITE);
	assert_int_equal(p[0].n, 3);
	assert_int_equal(p[0].sw[0], 1);
	assert_int_equal(p[0].sw[1], 2);
	assert_int_equal(p[0].sw[2], 3);
	assert_int_equal(p[1].status, DTA_Q_NOT_FOUND);
	assert_int_equal(p[1].n, 0);
	assert_memory_equal(&p[2], &p[0], sizeof(p[0]));
	/* The single-key query on the region gives the same answer. */
	{
		uint8_t d[16], want[16];
		struct dta_kw_result res;

		assert_int_equal(dta_kw_query(dta_region_layout(pr),
					      dta_region_data(pr), KEY_A, 13,
					      NULL, d, sizeof(d), &res), 0);
		assert_int_equal(res.status, DTA_Q_FOUND);
		assert_int_equal(p[0].votes, res.votes);
		assert_int_equal(p[0].candidates, res.candidates);
		memset(want, 0xFF, sizeof(want));
		for (unsigned i = 0; i < 3; i++)
			put_be32(want + 4 * i, i + 1);
		assert_memory_equal(d, want, 16);
	}
	key_b(kb);
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_KW, kb,
				       37, 1, &pb), 0);
	assert_int_equal(pb.status, DTA_Q_FOUND);
	assert_int_equal(pb.n, 2);
	assert_int_equal(pb.sw[0], 4);
	assert_int_equal(pb.sw[1], 5);
	/* No Postcarding path in this configuration. */
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_PC, kb,
				       37, 1, &pb), -ENOENT);
	assert_non_null(strstr(dta_client_error(fx->c),
			       "[int] has no path structure"));
	/* Keys that are not flows, unknown role selector. */
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_KW,
				       keys, 12, 1, p), -EINVAL);
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, 9, keys, 13, 1, p),
			 -EINVAL);
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_KW,
				       keys, 13, 0, NULL), 0);
	teardown(fx);
}

/* Postcarding paths: hop i of the INT-MD path; matches dta_pc_query(). */
static void test_paths_pc(void **state)
{
	struct fixture *fx = setup(CONF_PC, true);
	const struct dta_region *pr = region(fx, "paths");
	const struct dta_config_structure *cs =
		dta_config_find(fx->cfg, "paths");
	struct dta_pc_codebook *cb;
	struct dta_pc_result res;
	struct dta_int_path p;
	uint8_t kb[37];

	(void)state;
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_AUTO,
				       KEY_A, 13, 1, &p), 0);
	assert_int_equal(p.status, DTA_Q_FOUND);
	assert_int_equal(p.primitive, DTA_PRIM_POSTCARD);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.sw[0], 1);
	assert_int_equal(p.sw[1], 2);
	assert_int_equal(p.sw[2], 3);
	assert_int_equal(dta_pc_codebook_create(dta_region_layout(pr),
						cs->values, cs->nvalues, &cb), 0);
	assert_int_equal(dta_pc_query(dta_region_layout(pr),
				      dta_region_data(pr), cb, KEY_A, 13, 0,
				      &res), 0);
	assert_int_equal(res.status, DTA_Q_FOUND);
	assert_int_equal(p.valid_copies, res.valid_copies);
	dta_pc_codebook_destroy(cb);
	key_b(kb);
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_AUTO,
				       kb, 37, 1, &p), 0);
	assert_int_equal(p.status, DTA_Q_FOUND);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.sw[0], 4);
	assert_int_equal(p.sw[1], 5);
	/* A Key-Write path is asked for, and there is none. */
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_KW,
				       KEY_A, 13, 1, &p), -ENOENT);
	teardown(fx);
}

/* Hop records: the stacks' measurements at each switch; a hop without
 * switch id is not asked; a switch never on the path is not found. */
static void test_hop_records(void **state)
{
	struct fixture *fx = setup(CONF_KW, true);
	const uint32_t sw[] = { 1, 2, 3, DTA_INT_NONE, 99 };
	struct dta_int_hop_record h[5], hb[2];
	uint8_t flows[5 * 13], kb[2 * 37];
	const uint32_t swb[] = { 4, 5 };

	(void)state;
	for (unsigned i = 0; i < 5; i++)
		memcpy(flows + 13 * i, KEY_A, 13);
	assert_int_equal(dta_int_hop_records(fx->c, &fx->roles, flows, 13, sw,
					     5, h), 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(h[i].switch_id, sw[i]);
		assert_int_equal(h[i].status, DTA_Q_FOUND);
		assert_true(h[i].clean);
		assert_int_equal(h[i].hop.hop_latency, 10 * sw[i]);
		assert_int_equal(h[i].hop.queue_occupancy, sw[i]);
		assert_true(h[i].hop.egress_ts == UINT64_MAX);
	}
	assert_int_equal(h[3].status, DTA_INT_NO_SWITCH);
	assert_int_equal(h[4].status, DTA_Q_NOT_FOUND);
	/* IPv6 flow, egress timestamps, no queue in its instructions. */
	key_b(kb);
	memcpy(kb + 37, kb, 37);
	assert_int_equal(dta_int_hop_records(fx->c, &fx->roles, kb, 37, swb, 2,
					     hb), 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(hb[i].status, DTA_Q_FOUND);
		assert_int_equal(hb[i].hop.hop_latency, 10 * swb[i]);
		assert_int_equal(hb[i].hop.queue_occupancy, DTA_INT_NONE);
		assert_true(hb[i].hop.egress_ts == 1000 + swb[i]);
	}
	/* The v1.0 postcard-style report at switch 12 wrote its own hop. */
	assert_int_equal(dta_int_hop_records(fx->c, &fx->roles, KEY_A, 13,
					     (const uint32_t[]){ 12 }, 1, h),
			 0);
	assert_int_equal(h[0].status, DTA_Q_FOUND);
	assert_int_equal(h[0].hop.hop_latency, 500);
	assert_int_equal(h[0].hop.queue_occupancy, 300);
	assert_true(h[0].hop.egress_ts == 8192);
	teardown(fx);
}

/* Counts: one per report of the flow; one per described hop of a queue;
 * the same as dta_ki_query() on the regions. */
static void test_counts(void **state)
{
	struct fixture *fx = setup(CONF_KW, true);
	const struct dta_region *qr = region(fx, "queues");
	uint8_t keys[2 * 13];
	uint64_t c[6], one;
	const uint32_t sw[] = { 1, 2, 3, 11, 12, 11 };
	const uint8_t q[] = { 1, 2, 3, 2, 4, 5 };
	uint8_t kb[37];

	(void)state;
	memcpy(keys, KEY_A, 13);
	memcpy(keys + 13, KEY_A, 13);
	keys[13 + 3] = 77;
	assert_int_equal(dta_int_flow_counts(fx->c, &fx->roles, keys, 13, 2, c),
			 0);
	assert_int_equal(c[0], 3); /* INT-MD, drop, congestion */
	assert_int_equal(c[1], 0);
	key_b(kb);
	assert_int_equal(dta_int_flow_counts(fx->c, &fx->roles, kb, 37, 1, c),
			 0);
	assert_int_equal(c[0], 2);
	assert_int_equal(dta_int_queue_counts(fx->c, &fx->roles, sw, q, 6, c),
			 0);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 1);
	assert_int_equal(c[2], 1);
	assert_int_equal(c[3], 2); /* both drops at switch 11, queue 2 */
	assert_int_equal(c[4], 1);
	assert_int_equal(c[5], 0);
	for (unsigned i = 0; i < 6; i++) {
		uint8_t k[5];

		put_be32(k, sw[i]);
		k[4] = q[i];
		assert_int_equal(dta_ki_query(dta_region_layout(qr),
					      dta_region_data(qr), k, 5, 0,
					      &one), 0);
		assert_int_equal(c[i], one);
	}
	assert_int_equal(dta_int_flow_counts(fx->c, &fx->roles, keys, 5, 1, c),
			 -EINVAL);
	teardown(fx);
}

/* Read every event a filter lets through, @step at most per call;
 * returns how many, the events and their lists in @ev, @list. */
static long read_all(struct fixture *fx, const struct dta_int_event_filter *f,
		     size_t step, struct dta_int_event *ev, uint32_t *list,
		     uint32_t *lo, uint32_t *hi, uint64_t *read)
{
	struct dta_int_events *e;
	long n, got = 0;

	assert_int_equal(dta_int_events_open(fx->c, &fx->roles, f,
					     DTA_EXEC_AP_OLDEST, &e), 0);
	dta_int_events_lists(e, lo, hi);
	while ((n = dta_int_events_read(e, ev + got, list + got, step)) > 0) {
		assert_true((size_t)n <= step);
		got += n;
		assert_true(got <= 8);
	}
	assert_int_equal(n, 0);
	/* Nothing new: another pass finds nothing either. */
	assert_int_equal(dta_int_events_read(e, ev + got, list + got, 1), 0);
	assert_int_equal(dta_int_events_read(e, ev, list, 0), -EINVAL);
	dta_int_events_counts(e, read, NULL);
	dta_int_events_close(e);
	return got;
}

static void test_events(void **state)
{
	struct fixture *fx = setup(CONF_KW, true);
	struct dta_int_event_filter f;
	struct dta_int_event ev[8];
	uint32_t list[8], lo, hi;
	uint64_t read;
	uint8_t kb[37];

	(void)state;
	/* Every event: switch 12's in list 0, switch 11's in list 3. */
	assert_int_equal(read_all(fx, NULL, 8, ev, list, &lo, &hi, &read), 3);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 3);
	assert_int_equal(read, 3);
	assert_int_equal(list[0], 0);
	assert_int_equal(ev[0].switch_id, 12);
	assert_int_equal(ev[0].flags, DTA_INT_F_CONGESTED);
	assert_int_equal(ev[0].queue_id, 4);
	assert_int_equal(ev[0].queue_occupancy, 300);
	assert_int_equal(ev[0].hop_latency, 500);
	assert_int_equal(ev[0].drop_reason, 0xFF);
	assert_true(ev[0].time == 8192);
	assert_int_equal(ev[0].version, 1);
	assert_int_equal(ev[0].flow_hash, dta_crc32c(0, KEY_A, 13));
	assert_int_equal(list[1], 3);
	assert_int_equal(ev[1].switch_id, 11);
	assert_int_equal(ev[1].drop_reason, 7);
	assert_int_equal(ev[1].ingress_port, 5);
	assert_int_equal(ev[1].egress_port, 6);
	assert_int_equal(list[2], 3);
	assert_int_equal(ev[2].drop_reason, 9);

	/* Drops of switch 11: its list only. */
	dta_int_event_filter_init(&f);
	f.flags = DTA_INT_F_DROPPED;
	f.switch_id = 11;
	assert_int_equal(read_all(fx, &f, 8, ev, list, &lo, &hi, &read), 2);
	assert_int_equal(lo, 3);
	assert_int_equal(hi, 3);
	assert_int_equal(read, 2);
	/* Drops anywhere: three read, two match. */
	f.switch_id = DTA_INT_ANY;
	assert_int_equal(read_all(fx, &f, 8, ev, list, &lo, &hi, &read), 2);
	assert_int_equal(read, 3);
	/* Flow B's events by its hash. */
	key_b(kb);
	dta_int_event_filter_init(&f);
	f.flow_hash = dta_crc32c(0, kb, 37);
	assert_int_equal(read_all(fx, &f, 8, ev, list, &lo, &hi, &read), 1);
	assert_int_equal(ev[0].drop_reason, 9);
	/* A time range: 4096 .. 8192 holds two. */
	dta_int_event_filter_init(&f);
	f.time_from = 4096;
	f.time_to = 8192;
	assert_int_equal(read_all(fx, &f, 8, ev, list, &lo, &hi, &read), 2);
	/* Reason and queue filters. */
	dta_int_event_filter_init(&f);
	f.reason = 9;
	assert_int_equal(read_all(fx, &f, 8, ev, list, &lo, &hi, &read), 1);
	dta_int_event_filter_init(&f);
	f.queue = 4;
	f.flags = DTA_INT_F_CONGESTED;
	assert_int_equal(read_all(fx, &f, 8, ev, list, &lo, &hi, &read), 1);
	assert_int_equal(ev[0].switch_id, 12);
	/* One at a time: all of them, list by list, in the same order. */
	{
		struct dta_int_event one[8];
		uint32_t l1[8];

		assert_int_equal(read_all(fx, NULL, 8, ev, list, &lo, &hi,
					  &read), 3);
		assert_int_equal(read_all(fx, NULL, 1, one, l1, &lo, &hi,
					  &read), 3);
		assert_memory_equal(l1, list, 3 * sizeof(*list));
		for (unsigned i = 0; i < 3; i++)
			assert_memory_equal(&one[i], &ev[i], sizeof(one[i]));
	}
	teardown(fx);
}

/* Roles that cannot be answered: none configured, a structure that is
 * not there, one of another primitive or size. */
static void test_refusals(void **state)
{
	struct fixture *fx = setup(CONF_KW, false);
	struct dta_int_roles r;
	struct dta_int_events *e = (void *)1;
	struct dta_int_path p;
	struct dta_int_event_filter f;
	uint64_t c;

	(void)state;
	assert_string_equal(fx->roles.path_kw, "");
	assert_int_equal(dta_int_paths(fx->c, &fx->roles, DTA_INT_PATH_AUTO,
				       KEY_A, 13, 1, &p), -ENOENT);
	assert_non_null(strstr(dta_client_error(fx->c), "[int] has no path"));
	assert_int_equal(dta_int_flow_counts(fx->c, &fx->roles, KEY_A, 13, 1,
					     &c), -ENOENT);
	assert_non_null(strstr(dta_client_error(fx->c), "flow_counts"));
	assert_int_equal(dta_int_events_open(fx->c, &fx->roles, NULL,
					     DTA_EXEC_AP_OLDEST, &e), -ENOENT);
	assert_null(e);

	memset(&r, 0, sizeof(r));
	r.sz = sizeof(r);
	snprintf(r.path_kw, sizeof(r.path_kw), "ghost");
	assert_int_equal(dta_int_paths(fx->c, &r, DTA_INT_PATH_AUTO, KEY_A, 13,
				       1, &p), -ENOENT);
	assert_non_null(strstr(dta_client_error(fx->c), "ghost"));
	snprintf(r.path_kw, sizeof(r.path_kw), "flows");
	assert_int_equal(dta_int_paths(fx->c, &r, DTA_INT_PATH_AUTO, KEY_A, 13,
				       1, &p), -DTA_E_PRIMITIVE);
	snprintf(r.events_ap, sizeof(r.events_ap), "hops");
	assert_int_equal(dta_int_events_open(fx->c, &r, NULL,
					     DTA_EXEC_AP_OLDEST, &e),
			 -DTA_E_PRIMITIVE);
	snprintf(r.queue_ki, sizeof(r.queue_ki), "paths");
	assert_int_equal(dta_int_queue_counts(fx->c, &r, (uint32_t[]){ 1 },
					      (uint8_t[]){ 1 }, 1, &c),
			 -DTA_E_PRIMITIVE);
	snprintf(r.events_ap, sizeof(r.events_ap), "events");
	assert_int_equal(dta_int_events_open(fx->c, &r, NULL, 7, &e), -EINVAL);
	dta_int_event_filter_init(&f);
	f.sz = 1;
	assert_int_equal(dta_int_events_open(fx->c, &r, &f,
					     DTA_EXEC_AP_OLDEST, &e), -EINVAL);
	r.sz = 1;
	assert_int_equal(dta_int_paths(fx->c, &r, DTA_INT_PATH_AUTO, KEY_A, 13,
				       1, &p), -EINVAL);
	assert_int_equal(dta_int_paths(NULL, &fx->roles, DTA_INT_PATH_AUTO,
				       KEY_A, 13, 1, &p), -EINVAL);
	dta_int_events_close(NULL);
	teardown(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles_config),
		cmocka_unit_test(test_paths_kw),
		cmocka_unit_test(test_paths_pc),
		cmocka_unit_test(test_hop_records),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
