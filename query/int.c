/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query's INT commands: `int path|hops|drops|congestion|count|queue`
 * (docs/int.md "Querying INT structures") and the INT lines of `verify`
 * (docs/int.md "Truth lines"). The questions are libdta's
 * (dta/int_query.h) over the client query_client() opens, so they are
 * answered alike over a collector's socket, --map and snapshot files;
 * this file only parses arguments and prints.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "tools.h"

/* The roles of --config's [int] section; dies without one. */
static void int_roles(struct dta_int_roles *r)
{
	int rc;

	load_config();
	if (!G.cfg)
		die("int needs --config: its [int] section names the "
		    "structures (docs/int.md)");
	r->sz = sizeof(*r);
	rc = dta_int_roles_config(G.cfg, r);
	if (rc < 0)
		die("%s: bad [int] section", G.config);
	if (rc == 0)
		die("%s has no [int] section (docs/config.md#int)", G.config);
}

static const char *status_name(int st)
{
	return st == DTA_Q_FOUND ? "found"
	       : st == DTA_Q_CONFLICT ? "conflict"
	       : st == DTA_Q_UNAVAILABLE ? "unavailable" : "not-found";
}

static void put_opt_u64(uint64_t v, uint64_t none)
{
	if (v == none)
		fputs("null", stdout);
	else
		printf("%" PRIu64, v);
}

static void print_opt_u64(uint64_t v, uint64_t none)
{
	if (v == none)
		fputs("-", stdout);
	else
		printf("%" PRIu64, v);
}

/* ---- int path, hops ---- */

static const char *path_structure(const struct dta_int_roles *r,
				  const struct dta_int_path *p)
{
	return p->primitive == DTA_PRIM_KEY_WRITE ? r->path_kw : r->path_pc;
}

static void int_path_json(const struct dta_int_roles *r, const char *flow,
			  const struct dta_int_path *p)
{
	bool kw = p->primitive == DTA_PRIM_KEY_WRITE;

	printf("\"flow\":");
	tool_json_str(stdout, flow);
	printf(",\"structure\":");
	tool_json_str(stdout, path_structure(r, p));
	printf(",\"primitive\":\"%s\",\"status\":\"%s\"", kw ? "kw" : "pc",
	       status_name(p->status));
	if (p->status == DTA_Q_FOUND) {
		fputs(",\"path\":[", stdout);
		for (unsigned i = 0; i < p->n; i++) {
			if (i)
				putchar(',');
			put_opt_u64(p->sw[i], DTA_INT_NONE);
		}
		putchar(']');
	}
	if (kw)
		printf(",\"votes\":%u,\"candidates\":%u", p->votes,
		       p->candidates);
	else
		printf(",\"valid_copies\":%u", p->valid_copies);
}

/* "found: 1 2 3 (...)" or "not-found (...)": the path and how sure. */
static void int_path_print(const struct dta_int_path *p)
{
	bool kw = p->primitive == DTA_PRIM_KEY_WRITE;
	bool found = p->status == DTA_Q_FOUND;

	fputs(status_name(p->status), stdout);
	if (found) {
		fputs(":", stdout);
		for (unsigned i = 0; i < p->n; i++) {
			putchar(' ');
			print_opt_u64(p->sw[i], DTA_INT_NONE);
		}
		fputs(" (switch ids, first hop first;", stdout);
	} else {
		fputs(" (", stdout);
	}
	if (kw && found)
		printf(" %u of %u matching slots agree)\n", p->votes,
		       p->candidates);
	else if (kw)
		printf("%u slots matched the key's checksum)\n", p->candidates);
	else
		printf("%s%u copies decoded validly)\n", found ? " " : "",
		       p->valid_copies);
}

static void int_path_get(struct dta_client *c, const struct dta_int_roles *r,
			 const uint8_t *key, size_t klen, struct dta_int_path *p)
{
	if (dta_int_paths(c, r, DTA_INT_PATH_AUTO, key, klen, 1, p))
		die("%s", dta_client_error(c));
}

static int int_path(struct dta_client *c, const struct dta_int_roles *r,
		    const char *flow, const uint8_t *key, size_t klen)
{
	struct dta_int_path p;

	int_path_get(c, r, key, klen, &p);
	if (G.json) {
		putchar('{');
		int_path_json(r, flow, &p);
		puts("}");
	} else {
		int_path_print(&p);
	}
	return p.status == DTA_Q_FOUND ? 0 : 1;
}

/* The measurements of hop record @h, as ", latency 10, ..." or JSON
 * members. */
static void int_hop_fields(const struct dta_int_hop *h)
{
	static const char *const json[] = { "latency", "occupancy",
					    "egress_ts" };
	static const char *const human[] = { "latency", "occupancy",
					     "egress ts" };
	const uint64_t v[] = { h->hop_latency, h->queue_occupancy,
			       h->egress_ts };
	const uint64_t none[] = { DTA_INT_NONE, DTA_INT_NONE, UINT64_MAX };

	for (unsigned f = 0; f < 3; f++) {
		if (G.json) {
			printf(",\"%s\":", json[f]);
			put_opt_u64(v[f], none[f]);
		} else {
			printf(", %s ", human[f]);
			print_opt_u64(v[f], none[f]);
		}
	}
}

static int int_hops(struct dta_client *c, const struct dta_int_roles *r,
		    const char *flow, const uint8_t *key, size_t klen)
{
	struct dta_int_hop_record h[DTA_INT_PATH_MAX];
	uint8_t flows[DTA_INT_PATH_MAX * 37];
	struct dta_int_path p;
	unsigned n;

	if (!r->hop_kw[0])
		die("%s: [int] has no hops structure (hops = NAME)", G.config);
	int_path_get(c, r, key, klen, &p);
	n = p.status == DTA_Q_FOUND ? p.n : 0;
	for (unsigned i = 0; i < n; i++)
		memcpy(flows + i * klen, key, klen);
	if (dta_int_hop_records(c, r, flows, klen, p.sw, n, h))
		die("%s", dta_client_error(c));
	if (G.json) {
		fputs("{", stdout);
		int_path_json(r, flow, &p);
		fputs(",\"hops_structure\":", stdout);
		tool_json_str(stdout, r->hop_kw);
		fputs(",\"hops\":[", stdout);
	} else {
		fputs("path ", stdout);
		int_path_print(&p);
	}
	for (unsigned i = 0; i < n; i++) {
		const char *st = h[i].status == DTA_INT_NO_SWITCH
					 ? "no-switch-id"
					 : status_name(h[i].status);

		if (G.json) {
			printf("%s{\"hop\":%u,\"switch\":", i ? "," : "", i);
			put_opt_u64(p.sw[i], DTA_INT_NONE);
			printf(",\"status\":\"%s\"", st);
			if (h[i].status == DTA_Q_FOUND)
				int_hop_fields(&h[i].hop);
			putchar('}');
			continue;
		}
		printf("hop %u switch ", i);
		print_opt_u64(p.sw[i], DTA_INT_NONE);
		printf(": %s", st);
		if (h[i].status == DTA_Q_FOUND)
			int_hop_fields(&h[i].hop);
		putchar('\n');
	}
	if (G.json)
		puts("]}");
	return p.status == DTA_Q_FOUND ? 0 : 1;
}

/* ---- int count, queue ---- */

static void count_out(const char *what, const char *text, const char *st,
		      uint64_t count)
{
	if (G.json) {
		printf("{\"%s\":", what);
		tool_json_str(stdout, text);
		fputs(",\"structure\":", stdout);
		tool_json_str(stdout, st);
		if (count == DTA_CLIENT_KI_UNAVAILABLE)
			puts(",\"status\":\"unavailable\"}");
		else
			printf(",\"count\":%" PRIu64 "}\n", count);
	} else if (count == DTA_CLIENT_KI_UNAVAILABLE) {
		puts("unavailable (the collector holding it did not answer)");
	} else {
		printf("%" PRIu64 "\n", count);
	}
}

/* ---- int drops, congestion ---- */

static void int_event_out(const struct dta_int_event *e, uint32_t list,
			  bool first)
{
	if (G.json) {
		printf("%s{\"list\":%u,\"switch\":", first ? "" : ",", list);
		put_opt_u64(e->switch_id, DTA_INT_NONE);
		printf(",\"dropped\":%s,\"congested\":%s,\"queue\":",
		       e->flags & DTA_INT_F_DROPPED ? "true" : "false",
		       e->flags & DTA_INT_F_CONGESTED ? "true" : "false");
		put_opt_u64(e->queue_id, 0xff);
		fputs(",\"reason\":", stdout);
		put_opt_u64(e->drop_reason, 0xff);
		fputs(",\"ingress_port\":", stdout);
		put_opt_u64(e->ingress_port, 0xffff);
		fputs(",\"egress_port\":", stdout);
		put_opt_u64(e->egress_port, 0xffff);
		fputs(",\"occupancy\":", stdout);
		put_opt_u64(e->queue_occupancy, DTA_INT_NONE);
		fputs(",\"latency\":", stdout);
		put_opt_u64(e->hop_latency, DTA_INT_NONE);
		printf(",\"time\":%" PRIu64 ",\"flow_hash\":%u,\"version\":%u}",
		       e->time, e->flow_hash, e->version);
		return;
	}
	fputs("switch ", stdout);
	print_opt_u64(e->switch_id, DTA_INT_NONE);
	fputs(" queue ", stdout);
	print_opt_u64(e->queue_id, 0xff);
	fputs(" ports ", stdout);
	print_opt_u64(e->ingress_port, 0xffff);
	fputs("->", stdout);
	print_opt_u64(e->egress_port, 0xffff);
	printf(": %s", (e->flags & DTA_INT_F_DROPPED) &&
			       (e->flags & DTA_INT_F_CONGESTED)
		       ? "drop+congestion"
		       : e->flags & DTA_INT_F_DROPPED ? "drop" : "congestion");
	fputs(", reason ", stdout);
	print_opt_u64(e->drop_reason, 0xff);
	fputs(", occupancy ", stdout);
	print_opt_u64(e->queue_occupancy, DTA_INT_NONE);
	fputs(", latency ", stdout);
	print_opt_u64(e->hop_latency, DTA_INT_NONE);
	printf(", time %" PRIu64 ", flow hash 0x%08x, version %s\n", e->time,
	       e->flow_hash, e->version == 0 ? "0.5" : e->version == 1 ? "1.0"
			     : e->version == 2 ? "2.0" : "?");
}

/* drops / congestion: the events still stored in the lists the events_by
 * rule puts them in, oldest first per list, filtered. */
static int int_events(struct dta_client *c, const struct dta_int_roles *r,
		      const struct dta_int_event_filter *f)
{
	struct dta_int_event ev[256];
	uint32_t list[256], lo, hi;
	struct dta_int_events *e;
	uint64_t read, lost, shown = 0;
	uint32_t missing;
	long n;

	if (dta_int_events_open(c, r, f, DTA_EXEC_AP_OLDEST, &e))
		die("%s", dta_client_error(c));
	dta_int_events_lists(e, &lo, &hi);
	if (G.json) {
		fputs("{\"structure\":", stdout);
		tool_json_str(stdout, r->events_ap);
		printf(",\"first_list\":%u,\"last_list\":%u,\"events\":[",
		       lo, hi);
	}
	while ((n = dta_int_events_read(e, ev, list, 256)) > 0)
		for (long i = 0; i < n; i++)
			int_event_out(&ev[i], list[i], shown++ == 0);
	if (n < 0)
		die("%s", dta_client_error(c));
	dta_int_events_counts(e, &read, &lost);
	if (dta_int_events_partial(e, &missing))
		query_note_missing(c, missing);
	dta_int_events_close(e);
	if (G.json) {
		printf("],\"matched\":%" PRIu64 ",\"read\":%" PRIu64
		       ",\"lost\":%" PRIu64, shown, read, lost);
		query_json_partial();
		puts("}");
	} else
		printf("%" PRIu64 " %s of %" PRIu64 " events read (lists %u-%u"
		       "%s)\n", shown,
		       f->flags == DTA_INT_F_DROPPED ? "drops"
						     : "congestion events",
		       read, lo, hi, lost ? ", some overwritten before read" : "");
	return 0;
}

static void int_usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-query -c CONFIG int path FLOW\n"
		"       dta-query -c CONFIG int hops FLOW\n"
		"       dta-query -c CONFIG int drops [--switch ID] [--reason R]\n"
		"       dta-query -c CONFIG int congestion [--switch ID] [--queue Q]\n"
		"       dta-query -c CONFIG int count FLOW\n"
		"       dta-query -c CONFIG int queue SWITCH QUEUE\n"
		"  INT telemetry in the structures the [int] section of CONFIG\n"
		"  names (docs/int.md \"Querying INT structures\"):\n"
		"  path: the switch ids of FLOW's path, first hop first (path\n"
		"    structure: Key-Write or Postcarding); exit 1 if not found\n"
		"  hops: each hop's latency, queue occupancy and egress timestamp\n"
		"    (hops structure, key FLOW + switch id); '-' not reported\n"
		"  drops, congestion: the events stored (events structure), in\n"
		"    the lists events_by puts them in, filtered\n"
		"  count: reports of FLOW (flow_counts); queue: reports of a\n"
		"    switch's queue (queue_counts); count-min estimates\n"
		"  FLOW: 10.0.0.1:1234-10.0.0.2:80/udp (or ->), [2001:db8::1]:1-\n"
		"    [2001:db8::2]:2/tcp, or the 13- or 37-byte key in hex\n");
}

int cmd_int(int argc, char **argv)
{
	struct dta_int_event_filter f;
	char flow[256], err[256];
	uint8_t key[DTA_KEY_MAX];
	struct dta_int_roles r;
	struct dta_client *c;
	const char *sub, *how;
	int opt, klen, nargs, rc;

	static const struct option lo[] = {
		{ "switch", required_argument, NULL, 's' },
		{ "reason", required_argument, NULL, 'r' },
		{ "queue", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	dta_int_event_filter_init(&f);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:r:q:h", lo, NULL)) != -1) {
		if (opt == 's')
			f.switch_id = opt_uint("--switch", optarg, 0,
					       UINT32_MAX - 1);
		else if (opt == 'r')
			f.reason = opt_uint("--reason", optarg, 0, 254);
		else if (opt == 'q')
			f.queue = opt_uint("--queue", optarg, 0, 254);
		else {
			int_usage(opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc) {
		int_usage(stderr);
		return 2;
	}
	sub = argv[optind];
	nargs = argc - optind - 1;
	if (!strcmp(sub, "drops") || !strcmp(sub, "congestion")) {
		bool drops = !strcmp(sub, "drops");

		if (nargs || (drops && f.queue != DTA_INT_ANY) ||
		    (!drops && f.reason != DTA_INT_ANY))
			die("usage: dta-query int %s", drops
				? "drops [--switch ID] [--reason R]"
				: "congestion [--switch ID] [--queue Q]");
		f.flags = drops ? DTA_INT_F_DROPPED : DTA_INT_F_CONGESTED;
		int_roles(&r);
		c = query_client(&how);
		rc = int_events(c, &r, &f);
		dta_client_close(c);
		return rc;
	}
	if (f.switch_id != DTA_INT_ANY || f.reason != DTA_INT_ANY ||
	    f.queue != DTA_INT_ANY)
		die("--switch, --reason and --queue go with drops or congestion");
	if (!strcmp(sub, "queue")) {
		uint64_t count;
		uint32_t sw;
		uint8_t q;

		if (nargs != 2)
			die("usage: dta-query int queue SWITCH QUEUE");
		sw = (uint32_t)opt_uint("SWITCH", argv[optind + 1], 0,
					UINT32_MAX - 1);
		q = (uint8_t)opt_uint("QUEUE", argv[optind + 2], 0, 254);
		snprintf(flow, sizeof(flow), "%" PRIu32 "/%u", sw, q);
		int_roles(&r);
		c = query_client(&how);
		if (dta_int_queue_counts(c, &r, &sw, &q, 1, &count))
			die("%s", dta_client_error(c));
		query_note_partial(c);
		count_out("queue", flow, r.queue_ki, count);
		dta_client_close(c);
		return 0;
	}
	if (strcmp(sub, "path") && strcmp(sub, "hops") && strcmp(sub, "count")) {
		fprintf(stderr, "dta-query: unknown int question %s\n", sub);
		int_usage(stderr);
		return 2;
	}
	if (nargs != 1)
		die("usage: dta-query int %s FLOW", sub);
	klen = tool_parse_flow(argv[optind + 1], key, sizeof(key), err,
			       sizeof(err));
	if (klen < 0)
		die("%s", err);
	tool_format_key(key, (size_t)klen, flow, sizeof(flow));
	int_roles(&r);
	c = query_client(&how);
	if (!strcmp(sub, "path")) {
		rc = int_path(c, &r, flow, key, (size_t)klen);
	} else if (!strcmp(sub, "hops")) {
		rc = int_hops(c, &r, flow, key, (size_t)klen);
	} else {
		uint64_t count;

		if (dta_int_flow_counts(c, &r, key, (size_t)klen, 1, &count))
			die("%s", dta_client_error(c));
		query_note_partial(c);
		count_out("flow", flow, r.flow_ki, count);
		rc = 0;
	}
	dta_client_close(c);
	return rc;
}

/* ---- verify: INT truth lines (docs/int.md "Truth lines") ---- */

#define INT_SHOW 10 /* mismatches printed per role */

static const char *const iv_role_name[IV_ROLES] = {
	"path", "hops", "events", "flow_counts", "queue_counts"
};

/* One line of a role that will be asked about: lines with the same
 * @group (role and key) are one answer, the last line's (paths and hop
 * records: the last write wins) or the sum of their counts. */
struct iv_item {
	char *group;
	size_t line;    /* index into the lines */
	uint64_t count; /* int-flow, int-queue: summed over the group */
	int role;
	unsigned which; /* IV_PATH: DTA_INT_PATH_KW or _PC */
};

static int iv_item_cmp(const void *a, const void *b)
{
	const struct iv_item *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Print a mismatch of line @n on stderr (the first INT_SHOW of a role). */
__attribute__((format(printf, 4, 5)))
static void iv_show(struct int_tally *t, const char *truth, size_t n,
		    const char *fmt, ...)
{
	va_list ap;

	if (t->shown++ >= INT_SHOW) {
		if (t->shown == INT_SHOW + 1)
			fprintf(stderr, "dta-query: %s: more INT mismatches of "
				"this role not shown\n", truth);
		return;
	}
	if (n)
		fprintf(stderr, "dta-query: %s:%zu: ", truth, n);
	else
		fprintf(stderr, "dta-query: %s: ", truth);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The Append list the translator puts event @e in (docs/int.md "Roles":
 * events_by); a drop reason of 255 is taken as not carried. */
static uint32_t iv_event_list(const struct dta_int_roles *r,
			      const struct dta_int_event *e, uint32_t lists)
{
	if (r->events_by == DTA_INT_EVENTS_SWITCH)
		return e->switch_id % lists;
	if (r->events_by == DTA_INT_EVENTS_REASON)
		return (e->drop_reason == 0xFF ? 0u : e->drop_reason) % lists;
	return 0;
}

/* Whether an int-event line's fields say what its ENTRY holds (REASON
 * 255 and OCCUPANCY 0 stand for fields the report did not carry). */
static bool iv_event_agrees(const struct tool_truth *tt,
			    const struct dta_int_event *e)
{
	uint8_t flag = tt->event == 'D' ? DTA_INT_F_DROPPED
					: DTA_INT_F_CONGESTED;

	return e->switch_id == tt->switch_id &&
	       e->ingress_port == tt->in_port &&
	       e->egress_port == tt->eg_port &&
	       (e->flags & (DTA_INT_F_DROPPED | DTA_INT_F_CONGESTED)) == flag &&
	       e->queue_id == tt->queue && e->drop_reason == tt->reason &&
	       (e->queue_occupancy == tt->occupancy ||
		(e->queue_occupancy == DTA_INT_NONE && tt->occupancy == 0));
}

/* Read list @list of events structure @cs from its oldest stored entry
 * and match it, in order, against the entries sent there. */
static void iv_events_check(struct dta_client *client,
			    const struct dta_config_structure *cs,
			    const struct ap_truth *a, struct int_tally *t,
			    const char *truth)
{
	struct tool_ap_match m;

	ap_read_match(client, cs, a, &m, &t->lost);
	t->exact += m.exact;
	t->notfound += m.notfound;
	t->wrong += m.wrong;
	t->total += a->n;
	if (m.notfound || m.wrong)
		iv_show(t, truth, 0, "int-event: list %u of %s: %" PRIu64
			" of %zu entries sent not read in order, %" PRIu64
			" read but never sent", a->id, cs->name, m.notfound,
			a->n, m.wrong);
	tool_ap_match_free(&m);
}

/* The role (IV_*) and structure name that answer INT line @tt (*@which:
 * the path role), or -1 with @t[role].unchecked counted when [int] has
 * none. */
static int iv_route(const struct dta_int_roles *r,
		    const struct tool_truth *tt, bool pcrun,
		    struct int_tally *t, const char **name, unsigned *which)
{
	int role = tt->kind == TOOL_TRUTH_INT_PATH    ? IV_PATH
		   : tt->kind == TOOL_TRUTH_INT_HOP   ? IV_HOPS
		   : tt->kind == TOOL_TRUTH_INT_EVENT ? IV_EVENTS
		   : tt->kind == TOOL_TRUTH_INT_FLOW  ? IV_FLOWS
						      : IV_QUEUES;

	*which = 0;
	*name = role == IV_HOPS ? r->hop_kw : role == IV_EVENTS ? r->events_ap
		: role == IV_FLOWS ? r->flow_ki : r->queue_ki;
	if (role == IV_PATH) { /* INT-MD paths go to path_kw, else path_pc;
				* postcards only to path_pc ("Roles") */
		*which = !pcrun && r->path_kw[0] ? DTA_INT_PATH_KW
						 : DTA_INT_PATH_PC;
		*name = *which == DTA_INT_PATH_KW ? r->path_kw : r->path_pc;
	}
	if ((*name)[0])
		return role;
	t[role].unchecked++;
	t[role].why = role == IV_PATH && pcrun && r->path_kw[0]
			      ? "paths of postcard runs, and [int] path is "
				"Key-Write, which only INT-MD reports write"
			      : "[int] has no structure for them";
	return -1;
}

/* The path a Key-Write path structure of @dl bytes holds for @tt (the
 * first @dl / 4 switch ids), or a Postcarding one of @hops hops (the
 * first @hops), padding removed as dta_int_paths() removes it. */
static unsigned iv_want_path(const struct tool_truth *tt, unsigned max,
			     uint32_t *sw)
{
	unsigned n = tt->hops < max ? tt->hops : max;

	memcpy(sw, tt->path, n * sizeof(*sw));
	while (n && sw[n - 1] == DTA_INT_NONE)
		n--;
	return n;
}

/* Line @tt of item @it, re-parsed from @lines into @ln. */
static void iv_parse(char **lines, const struct iv_item *it, char **ln,
		     size_t *lncap, struct tool_truth *tt)
{
	size_t len = strlen(lines[it->line]) + 1;

	if (len > *lncap) {
		*lncap = 2 * len;
		*ln = realloc(*ln, *lncap);
		if (!*ln)
			die("out of memory");
	}
	memcpy(*ln, lines[it->line], len);
	tool_truth_parse(*ln, tt);
}

/* A path answer judged against line @tt. */
static void iv_judge_path(const struct dta_int_path *p,
			  const struct tool_truth *tt, const char *name,
			  unsigned max, struct int_tally *t, const char *truth,
			  size_t n)
{
	uint32_t want[TOOL_TRUTH_PATH_MAX];
	unsigned wn = iv_want_path(tt, max, want);
	bool same;

	t->total++;
	if (p->status == DTA_Q_CONFLICT) {
		t->conflict++;
		iv_show(t, truth, n, "int-path %s: conflict", tt->key);
		return;
	}
	if (p->status != DTA_Q_FOUND) {
		t->notfound++;
		iv_show(t, truth, n, "int-path %s: not found", tt->key);
		return;
	}
	same = p->n == wn;
	for (unsigned i = 0; same && i < wn; i++)
		same = p->sw[i] == want[i];
	t->exact += same;
	t->wrong += !same;
	if (!same)
		iv_show(t, truth, n, "int-path %s: %s has another path (%u "
			"hops, first %u), want %u hops, first %u", tt->key,
			name, p->n, p->n ? p->sw[0] : 0, wn, wn ? want[0] : 0);
}

static void iv_judge_hop(const struct dta_int_hop_record *h,
			 const struct tool_truth *tt, struct int_tally *t,
			 const char *truth, size_t n)
{
	bool same;

	t->total++;
	if (h->status == DTA_Q_CONFLICT) {
		t->conflict++;
		iv_show(t, truth, n, "int-hop %s: conflict", tt->key);
		return;
	}
	if (h->status != DTA_Q_FOUND) {
		t->notfound++;
		iv_show(t, truth, n, "int-hop %s: not found", tt->key);
		return;
	}
	same = h->clean && h->hop.hop_latency == tt->latency &&
	       h->hop.queue_occupancy == tt->occupancy &&
	       h->hop.egress_ts == tt->egress_ts;
	t->exact += same;
	t->wrong += !same;
	if (!same)
		iv_show(t, truth, n, "int-hop %s at its switch: latency %" PRIu32
			", occupancy %" PRIu32 ", egress ts %" PRIu64 "%s, want %"
			PRIu32 ", %" PRIu32 ", %" PRIu64, tt->key,
			h->hop.hop_latency, h->hop.queue_occupancy,
			h->hop.egress_ts, h->clean ? "" : " (and more data)",
			tt->latency, tt->occupancy, tt->egress_ts);
}

static void iv_judge_count(const struct iv_item *it, uint64_t got,
			   const struct tool_truth *tt, struct int_tally *t,
			   const char *truth, size_t n)
{
	t->total++;
	t->exact += got == it->count;
	t->over += got > it->count;
	t->under += got < it->count;
	if (got != it->count)
		iv_show(t, truth, n, "%s %s: count %" PRIu64 ", want %" PRIu64
			" (summed over the file)",
			it->role == IV_FLOWS ? "int-flow" : "int-queue", tt->key,
			got, it->count);
}

/* A batch: items @idx[0..n-1] (one role, one path structure, one key
 * length), asked in one library call and judged. */
static void iv_batch(struct dta_client *c, const struct dta_int_roles *r,
		     char **lines, const size_t *lnum, const char *truth,
		     const struct iv_item *items, const size_t *idx, size_t n,
		     struct int_tally *t)
{
	const struct iv_item *first = &items[idx[0]];
	struct tool_truth *tt = malloc(sizeof(*tt));
	size_t klen, lncap = 0;
	uint8_t *keys;
	uint32_t *sw = calloc(n, sizeof(*sw));
	uint8_t *q = calloc(n, 1);
	uint64_t *counts = calloc(n, sizeof(*counts));
	struct dta_int_path *paths = NULL;
	struct dta_int_hop_record *hops = NULL;
	char *ln = NULL;
	unsigned max = 0;
	int rc = 0;

	if (!tt || !sw || !q || !counts)
		die("out of memory");
	iv_parse(lines, first, &ln, &lncap, tt);
	klen = tt->ikey_len;
	keys = malloc(n * klen);
	if (!keys)
		die("out of memory");
	for (size_t i = 0; i < n; i++) {
		iv_parse(lines, &items[idx[i]], &ln, &lncap, tt);
		memcpy(keys + i * klen, tt->ikey, klen);
		sw[i] = tt->switch_id;
		if (first->role == IV_QUEUES) {
			sw[i] = (uint32_t)tt->ikey[0] << 24 |
				(uint32_t)tt->ikey[1] << 16 |
				(uint32_t)tt->ikey[2] << 8 | tt->ikey[3];
			q[i] = tt->ikey[4];
		}
	}
	switch (first->role) {
	case IV_PATH: {
		const char *name = first->which == DTA_INT_PATH_KW ? r->path_kw
								   : r->path_pc;
		int s = dta_client_find(c, name);
		const struct dta_client_structure *st =
			s < 0 ? NULL : dta_client_structure(c, (size_t)s);

		if (st)
			max = first->which == DTA_INT_PATH_KW
				      ? st->layout.g.kw.data_len / 4
				      : st->layout.g.pc.hops;
		paths = calloc(n, sizeof(*paths));
		if (!paths)
			die("out of memory");
		rc = dta_int_paths(c, r, first->which, keys, klen, n, paths);
		break;
	}
	case IV_HOPS:
		hops = calloc(n, sizeof(*hops));
		if (!hops)
			die("out of memory");
		rc = dta_int_hop_records(c, r, keys, klen, sw, n, hops);
		break;
	case IV_FLOWS:
		rc = dta_int_flow_counts(c, r, keys, klen, n, counts);
		break;
	default:
		rc = dta_int_queue_counts(c, r, sw, q, n, counts);
		break;
	}
	if (rc)
		die("%s", dta_client_error(c));
	for (size_t i = 0; i < n; i++) {
		const struct iv_item *it = &items[idx[i]];
		size_t ln_no = lnum[it->line];

		iv_parse(lines, it, &ln, &lncap, tt);
		if (it->role == IV_PATH)
			iv_judge_path(&paths[i], tt,
				      it->which == DTA_INT_PATH_KW ? r->path_kw
								   : r->path_pc,
				      max, t, truth, ln_no);
		else if (it->role == IV_HOPS)
			iv_judge_hop(&hops[i], tt, t, truth, ln_no);
		else
			iv_judge_count(it, counts[i], tt, t, truth, ln_no);
	}
	free(paths);
	free(hops);
	free(keys);
	free(sw);
	free(q);
	free(counts);
	free(ln);
	free(tt);
}

void int_verify(struct dta_client *client, char **lines, const size_t *lnum,
		const bool *pcrun, size_t nlines, const char *truth,
		struct int_tally *t)
{
	struct dta_int_roles r;
	struct iv_item *items = calloc(nlines + 1, sizeof(*items));
	size_t *idx = calloc(nlines + 1, sizeof(*idx));
	struct ap_truth *aps = NULL;
	const struct dta_config_structure *ecs = NULL;
	size_t ni = 0, naps = 0, nj = 0;
	struct tool_truth *tt = malloc(sizeof(*tt));
	char *ln = NULL;
	size_t lncap = 0;

	if (!items || !idx || !tt)
		die("out of memory");
	int_roles(&r);
	if (r.events_ap[0]) {
		ecs = dta_config_find(G.cfg, r.events_ap);
		if (!ecs || ecs->layout.g.ap.entry_size != DTA_INT_EVENT_SIZE)
			die("%s is not an Append structure of %d-byte entries",
			    r.events_ap, DTA_INT_EVENT_SIZE);
	}
	for (int k = 0; k < IV_ROLES; k++) {
		const char *name = k == IV_PATH ? (r.path_kw[0] ? r.path_kw
							       : r.path_pc)
				   : k == IV_HOPS ? r.hop_kw
				   : k == IV_EVENTS ? r.events_ap
				   : k == IV_FLOWS ? r.flow_ki : r.queue_ki;
		const struct dta_config_structure *cs =
			dta_config_find(G.cfg, name);

		if (cs) {
			t[k].name = cs->name;
			t[k].prim = cs->layout.primitive;
		}
	}
	/* Every INT line parsed once: events to their lists, the rest to
	 * the groups asked about. */
	for (size_t i = 0; i < nlines; i++) {
		char group[2 * DTA_KEY_MAX + 16];
		size_t len = strlen(lines[i]) + 1;
		const char *name;
		unsigned which;
		int role;

		if (strncmp(lines[i], "int-", 4))
			continue;
		if (len > lncap) {
			lncap = 2 * len;
			ln = realloc(ln, lncap);
			if (!ln)
				die("out of memory");
		}
		memcpy(ln, lines[i], len);
		if (tool_truth_parse(ln, tt))
			die("%s:%zu: %s", truth, lnum[i], tt->why);
		role = iv_route(&r, tt, pcrun[i], t, &name, &which);
		if (role < 0)
			continue;
		if (role == IV_EVENTS) {
			struct dta_int_event e;
			char hex[2 * DTA_INT_EVENT_SIZE + 1];

			dta_int_event_decode(tt->entry, &e);
			if (!iv_event_agrees(tt, &e)) {
				t[IV_EVENTS].disagree++;
				iv_show(&t[IV_EVENTS], truth, lnum[i],
					"int-event: the fields disagree with "
					"ENTRY");
			}
			tool_hex(tt->entry, DTA_INT_EVENT_SIZE, hex);
			ap_add(&aps, &naps, iv_event_list(&r, &e,
					ecs->layout.g.ap.lists), hex);
			continue;
		}
		/* Role, path structure, key length first: each batch is a
		 * run of the sorted items. */
		group[0] = (char)('0' + role);
		group[1] = (char)('0' + which);
		group[2] = tt->ikey_len == 37 ? '6' : '4';
		tool_hex(tt->ikey, tt->ikey_len, group + 3);
		if (role == IV_HOPS)
			snprintf(group + 3 + 2 * tt->ikey_len, 10, "%08x",
				 tt->switch_id);
		items[ni].group = strdup(group);
		if (!items[ni].group)
			die("out of memory");
		items[ni].line = i;
		items[ni].count = tt->count;
		items[ni].role = role;
		items[ni].which = which;
		ni++;
	}
	qsort(items, ni, sizeof(*items), iv_item_cmp);
	/* Keep each group's last line, with the group's sum. */
	for (size_t i = 0; i < ni; i++) {
		if (i + 1 < ni && !strcmp(items[i].group, items[i + 1].group)) {
			items[i + 1].count += items[i].count;
			free(items[i].group);
			continue;
		}
		items[nj++] = items[i];
	}
	/* One library call per run of role, path structure, key length. */
	for (size_t i = 0; i < nj;) {
		size_t j = i, n = 0;

		while (j < nj && !strncmp(items[j].group, items[i].group, 3))
			idx[n++] = j++;
		iv_batch(client, &r, lines, lnum, truth, items, idx, n,
			 &t[items[i].role]);
		i = j;
	}
	for (size_t i = 0; i < naps; i++)
		iv_events_check(client, ecs, &aps[i], &t[IV_EVENTS], truth);
	for (size_t i = 0; i < nj; i++)
		free(items[i].group);
	ap_truth_free(aps, naps);
	free(items);
	free(idx);
	free(ln);
	free(tt);
}

void int_verify_print(const struct int_tally *t, int role, bool *first)
{
	double ok = t->total ? (double)t->exact / (double)t->total : 1;

	if (!t->total && !t->unchecked && !t->disagree)
		return;
	if (G.json) {
		printf("%s{\"name\":", *first ? "" : ",");
		*first = false;
		if (t->name)
			tool_json_str(stdout, t->name);
		else
			fputs("null", stdout);
		printf(",\"int_role\":\"%s\",\"primitive\":", iv_role_name[role]);
		if (t->name)
			printf("\"%s\"", dta_primitive_name(t->prim));
		else
			fputs("null", stdout);
		printf(",\"total\":%" PRIu64 ",\"exact\":%" PRIu64
		       ",\"not_found\":%" PRIu64 ",\"wrong\":%" PRIu64
		       ",\"conflict\":%" PRIu64 ",\"over\":%" PRIu64
		       ",\"under\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"disagree\":%" PRIu64 ",\"not_checked\":%" PRIu64
		       ",\"success\":%.6f}", t->total, t->exact, t->notfound,
		       t->wrong, t->conflict, t->over, t->under, t->lost,
		       t->disagree, t->unchecked, ok);
		return;
	}
	printf("INT %-12s %-10s %7" PRIu64 " lines %7.3f%% exact",
	       iv_role_name[role], t->name ? t->name : "-", t->total, 100 * ok);
	switch (role) {
	case IV_PATH:
	case IV_HOPS:
		printf("  (%" PRIu64 " not found, %" PRIu64 " wrong, %" PRIu64
		       " conflict)", t->notfound, t->wrong, t->conflict);
		break;
	case IV_EVENTS:
		printf("  (%" PRIu64 " not read in order, %" PRIu64
		       " read but never sent, %" PRIu64
		       " overwritten before read, %" PRIu64
		       " lines disagree with their ENTRY)", t->notfound, t->wrong,
		       t->lost, t->disagree);
		break;
	default:
		printf("  (%" PRIu64 " over-estimated, %" PRIu64 " under)",
		       t->over, t->under);
		break;
	}
	if (t->unchecked)
		printf("  %" PRIu64 " not checked: %s", t->unchecked, t->why);
	putchar('\n');
}
