/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-export's NATS JetStream sink (export/sink.h, docs/export.md "NATS
 * JetStream"): every row becomes one message on PREFIX.COLLECTOR.STRUCTURE
 * with a JSON body and the header Nats-Msg-Id = the row's id, published
 * asynchronously; a batch is accepted only when JetStream acknowledged
 * every one of its messages. A batch that is not is answered -EAGAIN: the
 * core sends it again, and JetStream's duplicate window drops the
 * messages it had already stored (their Msg-Id repeats).
 *
 * libnats calls the ack handler from its own thread; the sink's counters
 * the handler touches are atomics. Acceptance does not depend on counting
 * positive acks (a late ack of an abandoned batch could be counted into the
 * next one): js_PublishAsyncComplete() returns only once no message is
 * pending -- libnats decrements its pending count after our handler
 * returned -- and the batch is accepted when, in addition, no message of
 * it failed. A stale failure can only make a good batch be sent again.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>

#include "sink.h"
#include "sink_nats.h"
#include "tools.h"

/* How long a batch waits for its acks after its last publish (and the
 * JetStream API for an answer). */
#define NATS_ACK_MS 10000
/* Messages in flight before js_PublishMsgAsync() waits for acks. */
#define NATS_MAX_PENDING 8192
/* What a stream this sink creates keeps Msg-Ids for (ns): a batch sent
 * again within it is not stored twice. */
#define NATS_DUP_WINDOW_NS (5 * 60 * 1000000000LL)
#define NATS_SERVERS_MAX 16

struct export_sink {
	natsConnection *nc;
	jsCtx *js;
	char *stream;
	char *prefix;
	int replicas;        /* 0: min(3, servers the client knows) */
	bool ready;          /* the stream exists with our subjects */
	bool published;      /* libnats's async-publish state exists
			      * (js_PublishAsyncGetPendingList() crashes
			      * before the first async publish) */
	/* the body and subject being built */
	char *buf;
	size_t cap;
	/* counters (the ack handler runs on libnats's thread) */
	atomic_uint_fast64_t failed;  /* negative acks */
	atomic_uint_fast64_t acked;
	atomic_uint_fast64_t dups;
	pthread_mutex_t mu;           /* lasterr, lasterr_set */
	char lasterr[200];            /* the batch's first negative ack */
	bool lasterr_set;
	char connect_err[200];        /* why the first connect failed */
	uint64_t batches, rows, retries;
};

/* ---- the message: subject, id, body (docs/export.md) ---- */

int export_nats_prefix_ok(const char *p)
{
	size_t len = p ? strlen(p) : 0;

	if (len == 0 || len > 200 || p[0] == '.' || p[len - 1] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c <= ' ' || c >= 127 || c == '*' || c == '>' ||
		    (c == '.' && p[i + 1] == '.'))
			return 0;
	}
	return 1;
}

/* Append @s as one subject token: config names are [A-Za-z0-9_-] already;
 * anything else would split or wildcard the subject, so it becomes '_'. */
static size_t put_token(char *out, const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++) {
		unsigned char c = (unsigned char)*s;

		out[n] = (c <= ' ' || c >= 127 || c == '.' || c == '*' ||
			  c == '>') ? '_' : (char)c;
	}
	return n;
}

int export_nats_subject(const char *prefix, const struct export_row *r,
			char *out, size_t cap)
{
	size_t need = strlen(prefix) + strlen(r->collector) +
		      strlen(r->structure) + 3;
	size_t n;

	if (need > cap)
		return -ENOSPC;
	n = strlen(prefix);
	memcpy(out, prefix, n);
	out[n++] = '.';
	n += put_token(out + n, r->collector);
	out[n++] = '.';
	n += put_token(out + n, r->structure);
	out[n] = '\0';
	return (int)n;
}

int export_nats_msg_id(const struct export_row *r, char *out, size_t cap)
{
	int n;

	if (r->kind == EXPORT_APPEND)
		n = snprintf(out, cap, "%s/%s/a/%" PRIu32 "/%" PRIu64,
			     r->collector, r->structure, r->list, r->position);
	else if (r->kind == EXPORT_KI_EPOCH)
		n = snprintf(out, cap, "%s/%s/e/%" PRIu64 "/%" PRIu32 "/%" PRIu32,
			     r->collector, r->structure, r->epoch, r->row,
			     r->column);
	else
		return -EINVAL;
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

struct out {
	char *p;
	size_t cap, n;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(o->n < o->cap ? o->p + o->n : NULL,
		      o->n < o->cap ? o->cap - o->n : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += (size_t)k;
}

/* A JSON string: names come from the configuration ([A-Za-z0-9_-]), but
 * the body must stay JSON whatever they hold. */
static void put_str(struct out *o, const char *s)
{
	put(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\u%04x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static void put_hex(struct out *o, const uint8_t *b, size_t len)
{
	static const char hx[] = "0123456789abcdef";

	put(o, "\"");
	if (o->n + 2 * len < o->cap)
		for (size_t i = 0; i < len; i++) {
			o->p[o->n++] = hx[b[i] >> 4];
			o->p[o->n++] = hx[b[i] & 15];
		}
	else
		o->n += 2 * len;
	put(o, "\"");
}

int export_nats_body(const struct export_row *r, char *out, size_t cap)
{
	struct out o = { out, cap, 0 };
	time_t sec = (time_t)(r->time_ns / 1000000000u);
	struct tm tm;
	char when[40];

	if (!r->collector || !r->structure ||
	    (r->kind != EXPORT_APPEND && r->kind != EXPORT_KI_EPOCH))
		return -EINVAL;
	if (!gmtime_r(&sec, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm))
		return -EINVAL;
	put(&o, "{\"kind\":\"%s\",\"collector\":",
	    r->kind == EXPORT_APPEND ? "append" : "epoch");
	put_str(&o, r->collector);
	put(&o, ",\"structure\":");
	put_str(&o, r->structure);
	put(&o, ",\"time\":\"%s.%09" PRIu64 "Z\",\"time_ns\":%" PRIu64, when,
	    r->time_ns % 1000000000u, r->time_ns);
	if (r->kind == EXPORT_APPEND) {
		put(&o, ",\"list\":%" PRIu32 ",\"position\":%" PRIu64 ",\"raw\":",
		    r->list, r->position);
		if (r->entry_len && !r->entry)
			return -EINVAL;
		put_hex(&o, r->entry, r->entry_len);
		if (r->schema && r->schema->nfields) {
			int k;

			put(&o, ",\"fields\":");
			k = dta_schema_json(r->schema, r->entry, r->entry_len,
					    o.n < o.cap ? o.p + o.n : NULL,
					    o.n < o.cap ? o.cap - o.n : 0);
			if (k == -EINVAL)
				return -EINVAL; /* entry shorter than schema */
			if (k == -ENOSPC) {
				/* size it: the caller grows and retries */
				o.n = o.cap + 6 * (size_t)r->entry_len + 4096;
			} else if (k < 0) {
				return k;
			} else {
				o.n += (size_t)k;
			}
		}
	} else {
		put(&o, ",\"epoch\":%" PRIu64 ",\"epoch_start_ns\":%" PRIu64
		    ",\"epoch_len_ns\":%" PRIu64 ",\"row\":%" PRIu32
		    ",\"column\":%" PRIu32 ",\"count\":%" PRIu64 ",\"key\":",
		    r->epoch, r->epoch_start_ns, r->epoch_len_ns, r->row,
		    r->column, r->count);
		if (r->key)
			put_hex(&o, r->key, r->key_len);
		else
			put(&o, "null");
	}
	put(&o, "}");
	if (o.n >= o.cap)
		return -ENOSPC;
	return (int)o.n;
}

/* ---- connection and stream ---- */

static int nats_errno(natsStatus st)
{
	switch (st) {
	case NATS_OK:
		return 0;
	case NATS_NO_MEMORY:
		return -ENOMEM;
	case NATS_INVALID_ARG:
	case NATS_ILLEGAL_STATE:
		return -EINVAL;
	case NATS_NOT_PERMITTED:
		return -EPERM;
	default:
		/* connection lost, timeout, no responders (no stream
		 * leader, no JetStream meta leader yet), stale connection */
		return -EAGAIN;
	}
}

/* What went wrong: libnats's last error of this thread, else @st's text. */
static const char *why(natsStatus st)
{
	const char *e = nats_GetLastError(NULL);

	return e && *e ? e : natsStatus_GetText(st);
}

static void on_ack(jsCtx *js, natsMsg *m, jsPubAck *pa, jsPubAckErr *pae,
		   void *closure)
{
	struct export_sink *s = closure;

	if (pae) {
		pthread_mutex_lock(&s->mu);
		if (!s->lasterr_set)
			snprintf(s->lasterr, sizeof(s->lasterr),
				 "%s (status %d, JetStream error %d)",
				 pae->ErrText ? pae->ErrText : "?",
				 (int)pae->Err, (int)pae->ErrCode);
		s->lasterr_set = true;
		pthread_mutex_unlock(&s->mu);
		/* after the text: the writer reads it once it sees the count */
		atomic_fetch_add(&s->failed, 1);
	} else {
		atomic_fetch_add(&s->acked, 1);
		if (pa && pa->Duplicate)
			atomic_fetch_add(&s->dups, 1);
	}
	natsMsg_Destroy(m); /* ours once the handler has it */
}

/* Servers the client knows (configured and discovered): the cluster's
 * size as far as the stream's replicas go. */
static int known_servers(natsConnection *nc)
{
	char **sv = NULL;
	int n = 0;

	if (natsConnection_GetServers(nc, &sv, &n) != NATS_OK)
		return 1;
	for (int i = 0; i < n; i++)
		free(sv[i]);
	free(sv);
	return n > 0 ? n : 1;
}

static bool has_subject(const jsStreamConfig *c, const char *subj)
{
	for (int i = 0; i < c->SubjectsLen; i++)
		if (!strcmp(c->Subjects[i], subj) || !strcmp(c->Subjects[i], ">"))
			return true;
	return false;
}

/* Whether a failed JetStream API call may succeed later: transport
 * trouble, no (meta) leader yet, too few peers up for the replicas. */
static int js_fault(natsStatus st, jsErrCode jerr)
{
	if (st == NATS_NO_MEMORY)
		return -ENOMEM;
	switch ((int)jerr) {
	case 0:
		return nats_errno(st) ? nats_errno(st) : -EAGAIN;
	case JSClusterNotAvailErr:
	case JSClusterNoPeersErr:
	case JSInsufficientResourcesErr:
		return -EAGAIN;
	default: /* not enabled, subjects overlap, bad configuration */
		return -EINVAL;
	}
}

/* Add @subj to the operator's stream that lacks it (its other settings
 * stay). */
static int add_subject(struct export_sink *s, const jsStreamConfig *old,
		       const char *subj, char *err, size_t errlen)
{
	const char **all = calloc((size_t)old->SubjectsLen + 1, sizeof(*all));
	jsStreamInfo *ni = NULL;
	jsStreamConfig sc;
	jsErrCode jerr = 0;
	natsStatus st;

	if (!all)
		return -ENOMEM;
	if (old->SubjectsLen)
		memcpy(all, old->Subjects,
		       (size_t)old->SubjectsLen * sizeof(*all));
	all[old->SubjectsLen] = subj;
	sc = *old;
	sc.Subjects = all;
	sc.SubjectsLen = old->SubjectsLen + 1;
	st = js_UpdateStream(&ni, s->js, &sc, NULL, &jerr);
	free(all);
	jsStreamInfo_Destroy(ni);
	if (st == NATS_OK)
		return 0;
	tool_fail(err, errlen, 0,
		  "nats: cannot add %s to stream %s: %s (JetStream "
		  "error %d)", subj, s->stream, why(st), (int)jerr);
	return js_fault(st, jerr);
}

/* The stream exists and takes PREFIX.>: look it up, create it when it is
 * missing (replicas: nats_replicas, else min(3, servers known)), add our
 * subjects to it when it lacks them. */
static int ensure_stream(struct export_sink *s, char *err, size_t errlen)
{
	jsStreamInfo *si = NULL;
	jsStreamConfig sc;
	jsErrCode jerr = 0;
	natsStatus st;
	char subj[256];
	const char *subjs[1] = { subj };
	int rc = 0;

	snprintf(subj, sizeof(subj), "%s.>", s->prefix);
	st = js_GetStreamInfo(&si, s->js, s->stream, NULL, &jerr);
	if (st == NATS_OK) {
		if (!has_subject(si->Config, subj))
			rc = add_subject(s, si->Config, subj, err, errlen);
		goto free_info;
	}
	if (jerr != JSStreamNotFoundErr) {
		rc = js_fault(st, jerr);
		tool_fail(err, errlen, 0,
			  "nats: stream %s: %s (JetStream error %d)", s->stream,
			  why(st), (int)jerr);
		goto free_info;
	}
	jsStreamConfig_Init(&sc);
	sc.Name = s->stream;
	sc.Subjects = subjs;
	sc.SubjectsLen = 1;
	sc.Storage = js_FileStorage;
	sc.Duplicates = NATS_DUP_WINDOW_NS;
	sc.Replicas = s->replicas;
	if (!sc.Replicas) {
		int n = known_servers(s->nc);

		sc.Replicas = n < 3 ? n : 3;
	}
	jerr = 0;
	st = js_AddStream(&si, s->js, &sc, NULL, &jerr);
	if (st != NATS_OK && jerr == JSStreamReplicasNotSupportedErr &&
	    !s->replicas) {
		/* one server, not a cluster, under several names */
		sc.Replicas = 1;
		jerr = 0;
		st = js_AddStream(&si, s->js, &sc, NULL, &jerr);
	}
	if (st != NATS_OK && jerr == JSStreamNameExistErr)
		st = NATS_OK; /* another exporter created it meanwhile */
	if (st != NATS_OK) {
		rc = js_fault(st, jerr);
		tool_fail(err, errlen, 0, "nats: cannot create stream %s (%s, %"
			  PRId64 " replicas): %s (JetStream error %d)",
			  s->stream, subj, sc.Replicas, why(st), (int)jerr);
	}
free_info:
	jsStreamInfo_Destroy(si);
	if (!rc)
		s->ready = true;
	return rc;
}

static void sink_close(struct export_sink *s)
{
	if (!s)
		return;
	if (s->js) {
		natsMsgList pend;

		/* what is still in flight is the caller's to resend */
		if (s->published &&
		    js_PublishAsyncGetPendingList(&pend, s->js) == NATS_OK)
			natsMsgList_Destroy(&pend);
		jsCtx_Destroy(s->js);
	}
	natsConnection_Destroy(s->nc);
	pthread_mutex_destroy(&s->mu);
	free(s->stream);
	free(s->prefix);
	free(s->buf);
	free(s);
}

/* With a callback, libnats connects in the background when the first
 * attempt fails (without one, natsConnection_Connect() itself would retry
 * for ever); write() looks at the connection's status instead. */
static void on_connected(natsConnection *nc, void *closure)
{
	(void)nc;
	(void)closure;
}

/* nats_url's comma-separated servers into @sv (pointers into @buf). */
static int split_servers(char *buf, const char **sv, int max)
{
	int n = 0;

	for (char *save = NULL, *t = strtok_r(buf, ", \t", &save); t;
	     t = strtok_r(NULL, ", \t", &save)) {
		if (n == max)
			return -E2BIG;
		sv[n++] = t;
	}
	return n;
}

static int sink_open(const struct dta_config *cfg, struct export_sink **out,
		     char *err, size_t errlen)
{
	const char *url = dta_config_get(cfg, "export", "nats_url");
	const char *stream = dta_config_get(cfg, "export", "nats_stream");
	const char *prefix = dta_config_get(cfg, "export", "nats_subject");
	const char *creds = dta_config_get(cfg, "export", "nats_creds");
	const char *repl = dta_config_get(cfg, "export", "nats_replicas");
	const char *cert = dta_config_get(cfg, "export", "tls_cert");
	const char *key = dta_config_get(cfg, "export", "tls_key");
	const char *ca = dta_config_get(cfg, "export", "tls_ca");
	const char *sv[NATS_SERVERS_MAX];
	struct export_sink *s;
	natsOptions *o = NULL;
	jsOptions jo;
	natsStatus st;
	char *urls;
	bool tls = false;
	int n, rc;

	*out = NULL;
	if (!url)
		return -ENOENT;
	prefix = prefix ? prefix : "dta";
	stream = stream ? stream : "DTA";
	if (!export_nats_prefix_ok(prefix)) {
		tool_fail(err, errlen, 0,
			  "nats_subject '%s' is not a subject prefix "
			  "(tokens separated by '.', no blanks, '*' or '>')",
			  prefix);
		return -EINVAL;
	}
	if ((cert && !key) || (key && !cert)) {
		tool_fail(err, errlen, 0, "tls_cert and tls_key go together");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	urls = strdup(url);
	if (!s || !urls) {
		free(s);
		free(urls);
		return -ENOMEM;
	}
	pthread_mutex_init(&s->mu, NULL);
	s->stream = strdup(stream);
	s->prefix = strdup(prefix);
	s->replicas = repl ? atoi(repl) : 0;
	if (!s->stream || !s->prefix) {
		rc = -ENOMEM;
		goto free_sink;
	}
	n = split_servers(urls, sv, NATS_SERVERS_MAX);
	if (n <= 0) {
		tool_fail(err, errlen, 0, "nats_url: %s",
			  n ? "more than 16 servers" : "no server");
		rc = -EINVAL;
		goto free_sink;
	}
	for (int i = 0; i < n; i++)
		tls |= !strncmp(sv[i], "tls://", 6);
	st = natsOptions_Create(&o);
	if (st == NATS_OK)
		st = natsOptions_SetServers(o, sv, n);
	if (st != NATS_OK) {
		tool_fail(err, errlen, 0, "nats_url '%s': %s", url, why(st));
		rc = st == NATS_NO_MEMORY ? -ENOMEM : -EINVAL;
		goto free_opts;
	}
	/* Never give up on the cluster: a batch that finds it unreachable
	 * is answered -EAGAIN and the core sends it again. */
	if (st == NATS_OK)
		st = natsOptions_SetName(o, "dta-export");
	if (st == NATS_OK)
		st = natsOptions_SetMaxReconnect(o, -1);
	if (st == NATS_OK)
		st = natsOptions_SetReconnectWait(o, 250);
	if (st == NATS_OK)
		st = natsOptions_SetTimeout(o, 2000);
	if (st != NATS_OK) {
		tool_fail(err, errlen, 0, "nats: %s", why(st));
		rc = nats_errno(st);
		goto free_opts;
	}
	if (creds && access(creds, R_OK)) {
		rc = -EINVAL; /* not -ENOENT: that says "not configured" */
		tool_fail(err, errlen, 0, "nats_creds %s: %s", creds,
			  strerror(errno));
		goto free_opts;
	}
	if (creds && (st = natsOptions_SetUserCredentialsFromFiles(o, creds,
								    NULL))) {
		tool_fail(err, errlen, 0, "nats_creds %s: %s", creds, why(st));
		rc = -EINVAL;
		goto free_opts;
	}
	if (tls && (st = natsOptions_SetSecure(o, true))) {
		tool_fail(err, errlen, 0, "nats: TLS: %s", why(st));
		rc = -EINVAL;
		goto free_opts;
	}
	if (ca && (st = natsOptions_LoadCATrustedCertificates(o, ca))) {
		tool_fail(err, errlen, 0, "tls_ca %s: %s", ca, why(st));
		rc = -EINVAL;
		goto free_opts;
	}
	if (cert && (st = natsOptions_LoadCertificatesChain(o, cert, key))) {
		tool_fail(err, errlen, 0, "tls_cert %s / tls_key %s: %s", cert,
			  key, why(st));
		rc = -EINVAL;
		goto free_opts;
	}
	/* One attempt first, to keep why it failed (libnats keeps no reason
	 * once it retries in the background), then a connection that keeps
	 * trying: NATS_NOT_YET_CONNECTED. */
	st = natsOptions_SetRetryOnFailedConnect(o, false, NULL, NULL);
	if (st == NATS_OK)
		st = natsConnection_Connect(&s->nc, o);
	if (st != NATS_OK) {
		snprintf(s->connect_err, sizeof(s->connect_err), "%s", why(st));
		natsConnection_Destroy(s->nc);
		s->nc = NULL;
		st = natsOptions_SetRetryOnFailedConnect(o, true, on_connected,
							 NULL);
		if (st == NATS_OK)
			st = natsConnection_Connect(&s->nc, o);
	}
	if (st != NATS_OK && st != NATS_NOT_YET_CONNECTED) {
		tool_fail(err, errlen, 0, "nats: connect to %s: %s", url,
			  why(st));
		rc = nats_errno(st) == -EAGAIN ? -EINVAL : nats_errno(st);
		goto free_opts;
	}
	jsOptions_Init(&jo);
	jo.Wait = NATS_ACK_MS;
	jo.PublishAsync.MaxPending = NATS_MAX_PENDING;
	jo.PublishAsync.StallWait = NATS_ACK_MS;
	jo.PublishAsync.AckHandler = on_ack;
	jo.PublishAsync.AckHandlerClosure = s;
	st = natsConnection_JetStream(&s->js, s->nc, &jo);
	if (st != NATS_OK) {
		tool_fail(err, errlen, 0, "nats: JetStream context: %s",
			  why(st));
		rc = nats_errno(st);
		goto free_opts;
	}
	natsOptions_Destroy(o);
	free(urls);
	*out = s;
	return 0;

free_opts:
	natsOptions_Destroy(o);
free_sink:
	free(urls);
	sink_close(s);
	return rc;
}

static int grow(struct export_sink *s, size_t need)
{
	char *p;

	if (need <= s->cap)
		return 0;
	need = need < 4096 ? 4096 : need * 2;
	p = realloc(s->buf, need);
	if (!p)
		return -ENOMEM;
	s->buf = p;
	s->cap = need;
	return 0;
}

/* Row @r as a message: subject, Nats-Msg-Id header, body. */
static int make_msg(struct export_sink *s, const struct export_row *r,
		    natsMsg **m, char *err, size_t errlen)
{
	char subj[512], id[512];
	natsStatus st;
	int n, rc;

	if (!r->collector || !r->structure)
		return -EINVAL;
	if (export_nats_subject(s->prefix, r, subj, sizeof(subj)) < 0 ||
	    export_nats_msg_id(r, id, sizeof(id)) < 0) {
		tool_fail(err, errlen, 0,
			  "nats: %s/%s: names too long for a subject",
			  r->collector, r->structure);
		return -EINVAL;
	}
	for (;;) {
		n = export_nats_body(r, s->buf, s->cap);
		if (n != -ENOSPC)
			break;
		rc = grow(s, s->cap + 2 * (size_t)r->entry_len +
				     6 * (size_t)r->entry_len + 4096);
		if (rc)
			return rc;
	}
	if (n < 0) {
		tool_fail(err, errlen, 0, "nats: %s %s: row cannot be encoded "
			  "(entry of %" PRIu32 " bytes, schema of %" PRIu32 ")",
			  r->collector, r->structure, r->entry_len,
			  r->schema ? r->schema->size : 0);
		return n;
	}
	st = natsMsg_Create(m, subj, NULL, s->buf, n);
	if (st == NATS_OK)
		st = natsMsgHeader_Set(*m, "Nats-Msg-Id", id);
	if (st != NATS_OK) {
		natsMsg_Destroy(*m);
		*m = NULL;
		return nats_errno(st);
	}
	return 0;
}

/* Forget what is still pending: its acks would arrive for a batch the
 * caller already answered -EAGAIN for, and it sends those rows again. */
static void drop_pending(struct export_sink *s)
{
	natsMsgList pend;

	if (s->published &&
	    js_PublishAsyncGetPendingList(&pend, s->js) == NATS_OK)
		natsMsgList_Destroy(&pend);
}

static int sink_write(struct export_sink *s, const struct export_batch *b,
		      char *err, size_t errlen)
{
	jsPubOptions po;
	natsStatus st;
	uint64_t failed0, acked0;
	size_t sent = 0;
	int rc;

	if (!s || !b || (b->n && !b->rows))
		return -EINVAL;
	if (natsConnection_Status(s->nc) != NATS_CONN_STATUS_CONNECTED) {
		const char *last = NULL;
		natsStatus ls = natsConnection_GetLastError(s->nc, &last);

		if (last && *last)
			snprintf(s->connect_err, sizeof(s->connect_err), "%s",
				 last);
		else if (ls != NATS_OK)
			snprintf(s->connect_err, sizeof(s->connect_err), "%s",
				 natsStatus_GetText(ls));
		tool_fail(err, errlen, 0,
			  "nats: not connected to any server of the "
			  "cluster (%s; %s)",
			  natsConnection_IsReconnecting(s->nc) ? "reconnecting" : "connecting",
			  s->connect_err[0] ? s->connect_err : "no error known");
		rc = -EAGAIN;
		goto retry;
	}
	if (!s->ready) {
		rc = ensure_stream(s, err, errlen);
		if (rc == -EAGAIN)
			goto retry;
		if (rc)
			return rc;
	}
	failed0 = atomic_load(&s->failed);
	acked0 = atomic_load(&s->acked);
	pthread_mutex_lock(&s->mu);
	s->lasterr_set = false;
	pthread_mutex_unlock(&s->mu);
	jsPubOptions_Init(&po);
	/* no per-message timer (an allocation each): the batch waits with
	 * its own deadline and then forgets what is still pending */
	po.ExpectStream = s->stream; /* an ack from any other stream fails */
	for (; sent < b->n; sent++) {
		natsMsg *m = NULL;

		rc = make_msg(s, &b->rows[sent], &m, err, errlen);
		if (rc) {
			drop_pending(s);
			return rc;
		}
		st = js_PublishMsgAsync(s->js, &m, &po);
		s->published |= st == NATS_OK;
		natsMsg_Destroy(m); /* NULL once libnats owns it */
		if (st != NATS_OK) {
			tool_fail(err, errlen, 0,
				  "nats: publish %zu of %zu: %s", sent, b->n,
				  why(st));
			rc = nats_errno(st) ? nats_errno(st) : -EAGAIN;
			drop_pending(s);
			if (rc != -EAGAIN)
				return rc;
			goto retry;
		}
	}
	{
		jsPubOptions co;

		jsPubOptions_Init(&co);
		co.MaxWait = NATS_ACK_MS;
		st = js_PublishAsyncComplete(s->js, &co);
	}
	if (st != NATS_OK) {
		drop_pending(s);
		tool_fail(err, errlen, 0, "nats: %zu messages: %" PRIu64
			  " acknowledged, " "%" PRIu64
			  " failed, the rest not acknowledged within " "%d ms",
			  b->n, atomic_load(&s->acked) - acked0,
			  atomic_load(&s->failed) - failed0, NATS_ACK_MS);
		rc = -EAGAIN;
		goto retry;
	}
	if (atomic_load(&s->failed) != failed0) {
		pthread_mutex_lock(&s->mu);
		tool_fail(err, errlen, 0, "nats: %" PRIu64
			  " of %zu messages not " "stored: %s",
			  atomic_load(&s->failed) - failed0, b->n,
			  s->lasterr_set ? s->lasterr : "?");
		pthread_mutex_unlock(&s->mu);
		/* not stored: no leader, timeout, stream gone (then create it
		 * again) */
		s->ready = false;
		rc = -EAGAIN;
		goto retry;
	}
	s->batches++;
	s->rows += b->n;
	return 0;

retry:
	s->retries++;
	return rc;
}

static void sink_stats(const struct export_sink *s, uint64_t *batches,
		       uint64_t *rows, uint64_t *retries)
{
	*batches = s ? s->batches : 0;
	*rows = s ? s->rows : 0;
	*retries = s ? s->retries : 0;
}

void export_nats_counters(const struct export_sink *s,
			  struct export_nats_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (!s)
		return;
	c->batches = s->batches;
	c->rows = s->rows;
	c->retries = s->retries;
	c->acked = atomic_load(&((struct export_sink *)s)->acked);
	c->failed = atomic_load(&((struct export_sink *)s)->failed);
	c->duplicates = atomic_load(&((struct export_sink *)s)->dups);
}

const struct export_sink_ops export_sink_nats = {
	.name = "nats",
	.open = sink_open,
	.write = sink_write,
	.stats = sink_stats,
	.close = sink_close,
};
