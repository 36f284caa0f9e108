/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nats_probe: drive dta-export's NATS JetStream sink (export/sink_nats.c)
 * directly with rows of known content, and read a stream back to check
 * that every row is there exactly once with the content it was given.
 *
 *   nats_probe publish CONF N BATCH [PAUSE_AT PAUSE_FILE GO_FILE]
 *       open the sink from [export] of CONF; write rows 0..N-1 in batches
 *       of BATCH, each batch again while the sink answers -EAGAIN (what
 *       dta-export's core does; at most $NATS_PROBE_TRIES times, default
 *       600, 100 ms apart); after the batch holding row PAUSE_AT,
 *       create PAUSE_FILE and wait until GO_FILE exists (a test kills a
 *       server meanwhile). Prints the sink's counters.
 *   nats_probe leader URL STREAM
 *       print the name of the server leading STREAM.
 *   nats_probe check URL STREAM PREFIX N
 *       read STREAM from its first message with an ordered consumer and
 *       check: N messages, each row 0..N-1 once, subject, Nats-Msg-Id and
 *       JSON body (parsed with jansson) as the row was written. Exit 1 on
 *       any difference, printing what it found.
 *   nats_probe dump URL STREAM PREFIX
 *       print every message of STREAM under PREFIX.> as one line: its
 *       Nats-Msg-Id, subject, and the body's kind, collector, structure,
 *       list, position and raw hex (epochs: epoch, row, column, count).
 *   nats_probe count URL STREAM
 *       print how many messages STREAM holds (0 when it does not exist).
 *
 * Servers needing TLS: the CA, client certificate and key of leader,
 * check, dump and count come from $NATS_PROBE_CA, _CERT and _KEY.
 *
 * Row i (collector "c1"): i % 8 == 7 is a Key-Increment epoch counter of
 * structure "counts" (epoch i), every other an Append entry of structure
 * "events" (list i % 3, position i) with schema
 * "seq:u64, flow:u32, hops:u8[4], tag:bytes[4], ts:u64:time". The checker
 * computes the expected values from i on its own (formulas below), not
 * from what the sink wrote.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>

#include "dta/config.h"
#include "dta/schema.h"
#include "sink.h"
#include "sink_nats.h"

#define SCHEMA "seq:u64, flow:u32, hops:u8[4], tag:bytes[4], ts:u64:time"
#define ENTRY 28
#define T0 1790000000123456789ull

static struct dta_schema schema;

static uint32_t flow_of(uint64_t i) { return (uint32_t)(i * 2654435761u); }
static uint64_t ts_of(uint64_t i) { return 1700000000000000000ull + i * 1000; }
static bool is_epoch(uint64_t i) { return i % 8 == 7; }

static void be(uint8_t *p, uint64_t v, int n)
{
	for (int k = n - 1; k >= 0; k--, v >>= 8)
		p[k] = (uint8_t)v;
}

/* Row @i into @r; its entry or key bytes into @buf (ENTRY bytes). */
static void gen_row(uint64_t i, struct export_row *r, uint8_t *buf)
{
	memset(r, 0, sizeof(*r));
	r->collector = "c1";
	if (is_epoch(i)) {
		r->kind = EXPORT_KI_EPOCH;
		r->structure = "counts";
		r->epoch = i;
		r->epoch_start_ns = i * 1000000000ull;
		r->epoch_len_ns = 1000000000ull;
		r->time_ns = (i + 1) * 1000000000ull;
		r->row = (uint32_t)(i % 5);
		r->column = (uint32_t)(i % 7);
		r->count = i * 7 + 1;
		if (i % 16 != 15) {
			be(buf, i, 4);
			r->key = buf;
			r->key_len = 4;
		}
		return;
	}
	r->kind = EXPORT_APPEND;
	r->structure = "events";
	r->time_ns = T0 + i;
	r->list = (uint32_t)(i % 3);
	r->position = i;
	be(buf, i, 8);
	be(buf + 8, flow_of(i), 4);
	buf[12] = (uint8_t)i;
	buf[13] = (uint8_t)(i >> 8);
	buf[14] = 7;
	buf[15] = 200;
	buf[16] = 0xde;
	buf[17] = 0xad;
	buf[18] = (uint8_t)i;
	buf[19] = 0x01;
	be(buf + 20, ts_of(i), 8);
	r->entry = buf;
	r->entry_len = ENTRY;
	r->schema = &schema;
}

static int usage(void)
{
	fprintf(stderr, "usage: nats_probe publish CONF N BATCH [PAUSE_AT "
		"PAUSE_FILE GO_FILE]\n       nats_probe leader URL STREAM\n"
		"       nats_probe check URL STREAM PREFIX N\n"
		"       nats_probe dump URL STREAM PREFIX\n"
		"       nats_probe count URL STREAM\n");
	return 2;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process, all threads (libnats's too). */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static int cmd_publish(int argc, char **argv)
{
	uint64_t n, batch, pause_at = UINT64_MAX, i0;
	struct export_nats_counters c;
	struct export_sink *s = NULL;
	struct dta_config *cfg = NULL;
	struct export_row *rows;
	uint8_t (*bufs)[ENTRY];
	unsigned tries = 600;
	double t0 = now_s(), c0 = cpu_s();
	char err[512] = "";
	int rc;

	if (argc != 5 && argc != 8)
		return usage();
	n = strtoull(argv[3], NULL, 0);
	batch = strtoull(argv[4], NULL, 0);
	if (argc == 8)
		pause_at = strtoull(argv[5], NULL, 0);
	if (!batch)
		return usage();
	if (getenv("NATS_PROBE_TRIES"))
		tries = (unsigned)strtoul(getenv("NATS_PROBE_TRIES"), NULL, 0);
	rc = dta_config_load(argv[2], &cfg, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "nats_probe: %s\n", err);
		return 1;
	}
	rc = export_sink_nats.open(cfg, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "nats_probe: open: %s (%d)\n", err, rc);
		dta_config_destroy(cfg);
		return 1;
	}
	rows = calloc(batch, sizeof(*rows));
	bufs = calloc(batch, sizeof(*bufs));
	if (!rows || !bufs) {
		rc = -ENOMEM;
		goto out;
	}
	t0 = now_s();
	c0 = cpu_s();
	for (i0 = 0; i0 < n; i0 += batch) {
		struct export_batch b = { rows, 0 };
		unsigned again = 0;

		for (uint64_t i = i0; i < n && i < i0 + batch; i++)
			gen_row(i, &rows[b.n], bufs[b.n]), b.n++;
		while ((rc = export_sink_nats.write(s, &b, err,
						    sizeof(err))) == -EAGAIN) {
			/* a bound only so that a broken cluster ends the test */
			if (++again > tries) {
				fprintf(stderr, "nats_probe: batch at %" PRIu64
					" still refused: %s\n", i0, err);
				goto out;
			}
			if (again == 1 || again % 20 == 0)
				fprintf(stderr, "nats_probe: batch at %" PRIu64
					": %s; again\n", i0, err);
			nap(100);
		}
		if (rc) {
			fprintf(stderr, "nats_probe: write: %s (%d)\n", err, rc);
			goto out;
		}
		if (pause_at >= i0 && pause_at < i0 + b.n) {
			FILE *f = fopen(argv[6], "w");
			struct stat st;

			if (!f || fclose(f)) {
				perror(argv[6]);
				rc = -EIO;
				goto out;
			}
			fprintf(stderr, "nats_probe: %" PRIu64 " rows accepted; "
				"paused\n", i0 + b.n);
			while (stat(argv[7], &st))
				nap(20);
		}
	}
	rc = 0;
out:
	export_nats_counters(s, &c);
	/* wall and CPU time of the publishing (bench/export_nats.sh) */
	printf("rows %" PRIu64 " batches %" PRIu64 " retries %" PRIu64
	       " acked %" PRIu64 " duplicates %" PRIu64 " failed %" PRIu64
	       " wall_s %.3f cpu_s %.3f\n", c.rows, c.batches, c.retries,
	       c.acked, c.duplicates, c.failed, now_s() - t0, cpu_s() - c0);
	if (!rc && c.rows != n) {
		fprintf(stderr, "nats_probe: sink counted %" PRIu64 " rows, "
			"sent %" PRIu64 "\n", c.rows, n);
		rc = -EPROTO;
	}
	export_sink_nats.close(s);
	dta_config_destroy(cfg);
	free(rows);
	free(bufs);
	nats_Close();
	return rc ? 1 : 0;
}

static natsStatus connect_js(const char *url, natsConnection **nc,
			     jsCtx **js)
{
	natsOptions *o = NULL;
	natsStatus st = natsOptions_Create(&o);

	char *dup = strdup(url), *save = NULL;
	const char *sv[8];
	int n = 0;

	for (char *t = dup ? strtok_r(dup, ",", &save) : NULL; t && n < 8;
	     t = strtok_r(NULL, ",", &save))
		sv[n++] = t;
	if (st == NATS_OK)
		st = natsOptions_SetServers(o, sv, n);
	free(dup);
	if (st == NATS_OK)
		st = natsOptions_SetMaxReconnect(o, 60);
	/* TLS for the checker: $NATS_PROBE_CA, _CERT, _KEY */
	if (st == NATS_OK && getenv("NATS_PROBE_CA"))
		st = natsOptions_LoadCATrustedCertificates(o, getenv("NATS_PROBE_CA"));
	if (st == NATS_OK && getenv("NATS_PROBE_CERT"))
		st = natsOptions_LoadCertificatesChain(o, getenv("NATS_PROBE_CERT"),
						       getenv("NATS_PROBE_KEY"));
	if (st == NATS_OK)
		st = natsConnection_Connect(nc, o);
	natsOptions_Destroy(o);
	if (st == NATS_OK)
		st = natsConnection_JetStream(js, *nc, NULL);
	return st;
}

static int cmd_leader(int argc, char **argv)
{
	natsConnection *nc = NULL;
	jsStreamInfo *si = NULL;
	jsCtx *js = NULL;
	jsErrCode jerr = 0;
	natsStatus st;
	int rc = 1;

	if (argc != 4)
		return usage();
	st = connect_js(argv[2], &nc, &js);
	/* right after a failure, the stream may have no leader for a while */
	for (int k = 0; st == NATS_OK && k < 100; k++) {
		jsStreamInfo_Destroy(si);
		si = NULL;
		st = js_GetStreamInfo(&si, js, argv[3], NULL, &jerr);
		if (st == NATS_OK && si->Cluster && si->Cluster->Leader &&
		    *si->Cluster->Leader)
			break;
		if (st != NATS_OK && jerr == JSStreamNotFoundErr)
			break;
		st = NATS_OK;
		nap(100);
	}
	if (st == NATS_OK && si && si->Cluster && si->Cluster->Leader) {
		printf("%s\n", si->Cluster->Leader);
		rc = 0;
	} else {
		fprintf(stderr, "nats_probe: no leader of %s: %s\n", argv[3],
			nats_GetLastError(NULL));
	}
	jsStreamInfo_Destroy(si);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	nats_Close();
	return rc;
}

static bool fail_msg(uint64_t *bad, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail_msg(uint64_t *bad, const char *fmt, ...)
{
	va_list ap;

	if (++*bad <= 10) {
		va_start(ap, fmt);
		fputs("nats_probe: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	return false;
}

static bool int_is(json_t *o, const char *k, uint64_t want)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) && (uint64_t)json_integer_value(v) == want;
}

static bool str_is(json_t *o, const char *k, const char *want)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) && !strcmp(json_string_value(v), want);
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t k = 0; k < n; k++)
		sprintf(out + 2 * k, "%02x", b[k]);
	out[2 * n] = '\0';
}

/* Message @m is row i (for some i < @n), as written; mark i in @seen. */
static bool check_one(natsMsg *m, const char *prefix, uint64_t n,
		      uint8_t *seen, uint64_t *bad, uint64_t *dup)
{
	const char *id = NULL, *subj = natsMsg_GetSubject(m);
	char want[256], wsubj[256], whex[2 * ENTRY + 1], wtag[16];
	json_error_t je;
	json_t *o, *f;
	uint64_t i;
	bool ok = true;

	if (natsMsgHeader_Get(m, "Nats-Msg-Id", &id) != NATS_OK)
		return fail_msg(bad, "%s: no Nats-Msg-Id", subj);
	o = json_loadb(natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m),
		       0, &je);
	if (!o)
		return fail_msg(bad, "%s: body is not JSON: %s", id, je.text);
	if (str_is(o, "kind", "append"))
		i = (uint64_t)json_integer_value(json_object_get(o, "position"));
	else if (str_is(o, "kind", "epoch"))
		i = (uint64_t)json_integer_value(json_object_get(o, "epoch"));
	else {
		json_decref(o);
		return fail_msg(bad, "%s: unknown kind", id);
	}
	if (i >= n) {
		json_decref(o);
		return fail_msg(bad, "%s: row %" PRIu64 " was never sent", id, i);
	}
	if (is_epoch(i)) {
		snprintf(want, sizeof(want), "c1/counts/e/%" PRIu64 "/%" PRIu64
			 "/%" PRIu64, i, i % 5, i % 7);
		snprintf(wsubj, sizeof(wsubj), "%s.c1.counts", prefix);
		ok = str_is(o, "kind", "epoch") && str_is(o, "structure", "counts") &&
		     int_is(o, "epoch_start_ns", i * 1000000000ull) &&
		     int_is(o, "epoch_len_ns", 1000000000ull) &&
		     int_is(o, "time_ns", (i + 1) * 1000000000ull) &&
		     int_is(o, "row", i % 5) && int_is(o, "column", i % 7) &&
		     int_is(o, "count", i * 7 + 1);
		if (i % 16 == 15) {
			ok = ok && json_is_null(json_object_get(o, "key"));
		} else {
			uint8_t k[4] = { (uint8_t)(i >> 24), (uint8_t)(i >> 16),
					 (uint8_t)(i >> 8), (uint8_t)i };

			hex(k, 4, whex);
			ok = ok && str_is(o, "key", whex);
		}
	} else {
		uint8_t e[ENTRY];
		json_t *hops;

		snprintf(want, sizeof(want), "c1/events/a/%" PRIu64 "/%" PRIu64,
			 i % 3, i);
		snprintf(wsubj, sizeof(wsubj), "%s.c1.events", prefix);
		/* the raw bytes, written out independently of gen_row() */
		be(e, i, 8);
		be(e + 8, flow_of(i), 4);
		e[12] = (uint8_t)i, e[13] = (uint8_t)(i >> 8), e[14] = 7;
		e[15] = 200, e[16] = 0xde, e[17] = 0xad, e[18] = (uint8_t)i;
		e[19] = 1;
		be(e + 20, ts_of(i), 8);
		hex(e, ENTRY, whex);
		f = json_object_get(o, "fields");
		hops = json_object_get(f, "hops");
		snprintf(wtag, sizeof(wtag), "dead%02x01", (unsigned)(i & 255));
		ok = str_is(o, "structure", "events") &&
		     int_is(o, "list", i % 3) && int_is(o, "time_ns", T0 + i) &&
		     str_is(o, "raw", whex) && int_is(f, "seq", i) &&
		     int_is(f, "flow", flow_of(i)) && int_is(f, "ts", ts_of(i)) &&
		     str_is(f, "tag", wtag) && json_is_array(hops) &&
		     json_array_size(hops) == 4 &&
		     (uint64_t)json_integer_value(json_array_get(hops, 0)) == (i & 255) &&
		     (uint64_t)json_integer_value(json_array_get(hops, 1)) == ((i >> 8) & 255) &&
		     json_integer_value(json_array_get(hops, 2)) == 7 &&
		     json_integer_value(json_array_get(hops, 3)) == 200;
	}
	ok = ok && str_is(o, "collector", "c1") && json_is_string(json_object_get(o, "time"));
	json_decref(o);
	if (!ok)
		return fail_msg(bad, "%s: body differs from row %" PRIu64, id, i);
	if (strcmp(id, want))
		return fail_msg(bad, "row %" PRIu64 ": Nats-Msg-Id %s, want %s",
				i, id, want);
	if (strcmp(subj, wsubj))
		return fail_msg(bad, "row %" PRIu64 ": subject %s, want %s", i,
				subj, wsubj);
	if (seen[i]++) {
		++*dup;
		return fail_msg(bad, "row %" PRIu64 " (%s) stored twice", i, id);
	}
	return true;
}

/* Open stream @stream through @url and hand each of its messages (as many
 * as it stored when we looked: *@stored) to @fn in order. Return the
 * number read; -1 when the stream cannot be read. */
static int64_t read_stream(const char *url, const char *stream,
			   const char *prefix, uint64_t *stored,
			   int64_t *replicas,
			   void (*fn)(natsMsg *m, void *arg), void *arg)
{
	natsConnection *nc = NULL;
	natsSubscription *sub = NULL;
	jsStreamInfo *si = NULL;
	jsSubOptions so;
	jsErrCode jerr = 0;
	jsCtx *js = NULL;
	char filter[256];
	natsStatus st;
	int64_t got = -1;

	st = connect_js(url, &nc, &js);
	if (st == NATS_OK)
		st = js_GetStreamInfo(&si, js, stream, NULL, &jerr);
	if (st != NATS_OK) {
		fprintf(stderr, "nats_probe: stream %s: %s\n", stream,
			nats_GetLastError(NULL));
		goto out;
	}
	*stored = si->State.Msgs;
	*replicas = si->Config->Replicas;
	snprintf(filter, sizeof(filter), "%s.>", prefix);
	jsSubOptions_Init(&so);
	so.Stream = stream;
	so.Ordered = true;
	so.Config.DeliverPolicy = js_DeliverAll;
	/* Right after a server died the cluster may still be electing the
	 * leader that creates consumers: try again for a while. */
	for (int k = 0; k < 150; k++) {
		jerr = 0;
		st = js_SubscribeSync(&sub, js, filter, NULL, &so, &jerr);
		if (st == NATS_OK)
			break;
		nap(200);
	}
	if (st != NATS_OK) {
		fprintf(stderr, "nats_probe: subscribe %s: %s (JetStream "
			"error %d)\n", filter, natsStatus_GetText(st), (int)jerr);
		goto out;
	}
	for (got = 0; (uint64_t)got < *stored; got++) {
		natsMsg *m = NULL;

		/* a bound only against a stream that stops delivering */
		st = natsSubscription_NextMsg(&m, sub, 30000);
		if (st != NATS_OK) {
			fprintf(stderr, "nats_probe: after %" PRId64 " of %"
				PRIu64 " messages: %s\n", got, *stored,
				natsStatus_GetText(st));
			break;
		}
		fn(m, arg);
		natsMsg_Destroy(m);
	}
out:
	natsSubscription_Destroy(sub);
	jsStreamInfo_Destroy(si);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	return got;
}

struct check {
	const char *prefix;
	uint64_t n, bad, dup;
	uint8_t *seen;
};

static void check_fn(natsMsg *m, void *arg)
{
	struct check *c = arg;

	check_one(m, c->prefix, c->n, c->seen, &c->bad, &c->dup);
}

static int cmd_check(int argc, char **argv)
{
	struct check c = { 0 };
	uint64_t stored = 0, missing = 0;
	int64_t got, replicas = 0;
	int rc;

	if (argc != 6)
		return usage();
	c.prefix = argv[4];
	c.n = strtoull(argv[5], NULL, 0);
	c.seen = calloc(c.n ? c.n : 1, 1);
	if (!c.seen)
		return 1;
	got = read_stream(argv[2], argv[3], argv[4], &stored, &replicas,
			  check_fn, &c);
	for (uint64_t i = 0; i < c.n; i++)
		if (!c.seen[i] && ++missing <= 10)
			fprintf(stderr, "nats_probe: row %" PRIu64 " missing\n", i);
	printf("sent %" PRIu64 " stored %" PRIu64 " read %" PRId64 " missing %"
	       PRIu64 " duplicates %" PRIu64 " wrong %" PRIu64 " replicas %"
	       PRId64 "\n", c.n, stored, got, missing, c.dup, c.bad - c.dup,
	       replicas);
	rc = (got >= 0 && stored == c.n && (uint64_t)got == c.n && !missing &&
	      !c.bad) ? 0 : 1;
	nats_Close();
	free(c.seen);
	return rc;
}

/* One line per message: Nats-Msg-Id, subject, then from the body
 * (jansson): kind, collector, structure, list, position, raw (Append)
 * or epoch, row, column, count (epochs). */
static void dump_fn(natsMsg *m, void *arg)
{
	const char *id = "-";
	json_t *o;

	natsMsgHeader_Get(m, "Nats-Msg-Id", &id);
	o = json_loadb(natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m),
		       0, NULL);
	printf("%s %s ", id, natsMsg_GetSubject(m));
	if (!o) {
		printf("not-json\n");
		return;
	}
	printf("%s %s %s ", json_string_value(json_object_get(o, "kind")),
	       json_string_value(json_object_get(o, "collector")),
	       json_string_value(json_object_get(o, "structure")));
	if (json_object_get(o, "raw"))
		printf("%" JSON_INTEGER_FORMAT " %" JSON_INTEGER_FORMAT " %s\n",
		       json_integer_value(json_object_get(o, "list")),
		       json_integer_value(json_object_get(o, "position")),
		       json_string_value(json_object_get(o, "raw")));
	else
		printf("%" JSON_INTEGER_FORMAT " %" JSON_INTEGER_FORMAT " %"
		       JSON_INTEGER_FORMAT " %" JSON_INTEGER_FORMAT "\n",
		       json_integer_value(json_object_get(o, "epoch")),
		       json_integer_value(json_object_get(o, "row")),
		       json_integer_value(json_object_get(o, "column")),
		       json_integer_value(json_object_get(o, "count")));
	json_decref(o);
}

static int cmd_dump(int argc, char **argv)
{
	uint64_t stored = 0;
	int64_t got, replicas = 0;

	if (argc != 5)
		return usage();
	got = read_stream(argv[2], argv[3], argv[4], &stored, &replicas,
			  dump_fn, NULL);
	fprintf(stderr, "nats_probe: stored %" PRIu64 " read %" PRId64
		" replicas %" PRId64 "\n", stored, got, replicas);
	nats_Close();
	return got >= 0 && (uint64_t)got == stored ? 0 : 1;
}

/* Messages stored in the stream, 0 when it does not exist (yet). */
static int cmd_count(int argc, char **argv)
{
	natsConnection *nc = NULL;
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	jsCtx *js = NULL;
	natsStatus st;

	if (argc != 4)
		return usage();
	st = connect_js(argv[2], &nc, &js);
	if (st == NATS_OK)
		st = js_GetStreamInfo(&si, js, argv[3], NULL, &jerr);
	if (st == NATS_OK)
		printf("%" PRIu64 "\n", si->State.Msgs);
	else if (jerr == JSStreamNotFoundErr)
		printf("0\n");
	jsStreamInfo_Destroy(si);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	nats_Close();
	return st == NATS_OK || jerr == JSStreamNotFoundErr ? 0 : 1;
}

int main(int argc, char **argv)
{
	char err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (dta_schema_parse(SCHEMA, &schema, err, sizeof(err))) {
		fprintf(stderr, "nats_probe: schema: %s\n", err);
		return 1;
	}
	if (argc >= 2 && !strcmp(argv[1], "publish"))
		return cmd_publish(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "leader"))
		return cmd_leader(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_check(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "dump"))
		return cmd_dump(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "count"))
		return cmd_count(argc, argv);
	return usage();
}
