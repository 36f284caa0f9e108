/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's HTTPS JSON query API (api.h, docs/api.md).
 *
 * Values are never encoded here: point answers are the executor's text
 * answers (dta_exec_text(), the unix socket's bytes) parsed and placed in
 * the reply, structure descriptions are its `info`, Append fields are
 * dta_schema_json()'s. jansson only assembles them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <gnutls/gnutls.h>
#include <jansson.h>

#include "api.h"
#include "dta/append.h"
#include "dta/common.h"
#include "httpd.h"
#include "log.h"
#include "tls.h"
#include "tools.h"

/* Append entries one read returns at most, and by default. */
#define AP_MAX DTA_EXEC_BATCH_MAX
#define AP_DEFAULT 1024

struct coll_api {
	struct coll_api_opts o;
	struct httpd *h;
	struct dta_exec_session *sess; /* point queries (no Append state) */
	char *cert, *key, *ca;          /* PEM text */
	struct coll_api_stats st;
	uint64_t last_log_ns, unlogged; /* rate limit of malformed requests */
	uint8_t *apbuf;                 /* AP_MAX entries of the largest size */
	size_t apcap;
};

/* One request: its body so far. */
struct req {
	char *body;
	size_t len;
	uint64_t dropped; /* body bytes read past the limit */
	bool too_big;
};

/* ---- answers ---- */

static enum MHD_Result send_json(struct coll_api *a, struct MHD_Connection *conn,
				 unsigned status, json_t *j, const char *allow)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	size_t len;

	json_decref(j);
	a->st.requests++;
	if (status >= 400)
		a->st.errors++;
	if (!s) {
		static const char oom[] = "{\"error\":\"out of memory\"}";

		return httpd_reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "application/json", (char *)oom,
				   sizeof(oom) - 1, false, NULL);
	}
	len = strlen(s);
	return httpd_reply(conn, status, "application/json", s, len, true,
			   allow);
}

static enum MHD_Result send_error(struct coll_api *a,
				  struct MHD_Connection *conn, unsigned status,
				  const char *allow, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum MHD_Result send_error(struct coll_api *a,
				  struct MHD_Connection *conn, unsigned status,
				  const char *allow, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages may quote the request (a name, jansson's "near '...'"):
	 * printable ASCII only, for the log line and for valid JSON. */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	if (status == MHD_HTTP_BAD_REQUEST ||
	    status == MHD_HTTP_CONTENT_TOO_LARGE) {
		/* Malformed requests: at most one line a second. */
		uint64_t now = tool_now_ns();

		if (now - a->last_log_ns >= 1000000000ull) {
			char more[64] = "";

			if (a->unlogged)
				snprintf(more, sizeof(more), " (and %" PRIu64
					 " more not logged)", a->unlogged);
			tool_log(LOG_WARNING, "api: malformed request (%u): "
				 "%s%s", status, msg, more);
			a->last_log_ns = now;
			a->unlogged = 0;
		} else {
			a->unlogged++;
		}
	}
	return send_json(a, conn, status, json_pack("{s:s}", "error", msg),
			 allow);
}

/* ---- structures ---- */

/* Index of structure @name if @who may read it, else -1: a structure the
 * client may not read is answered as absent. */
static long find_readable(const struct coll_api *a, const char *name,
			  const char *who)
{
	int i = dta_exec_find(a->o.x, name);

	if (i < 0 || (size_t)i >= a->o.n ||
	    !dta_config_may_read(&a->o.cs[i], who))
		return -1;
	return i;
}

/* The executor's `info` answer, parsed: {"structures": [...]}. */
static json_t *exec_info(struct coll_api *a)
{
	struct dta_buf out = { 0 };
	json_t *j = NULL;

	if (dta_exec_text(a->sess, "info", 4, &out) == 0)
		dta_exec_text_flush(a->sess, &out);
	if (!out.oom && out.len)
		j = json_loadb(out.p, out.len, 0, NULL);
	dta_buf_free(&out);
	return j;
}

/* The readable structures as `info` describes them (@only: just that one;
 * NULL when it is not there). */
static json_t *structures(struct coll_api *a, const char *who,
			  const char *only)
{
	json_t *info = exec_info(a), *all, *out, *s;
	size_t k;

	all = info ? json_object_get(info, "structures") : NULL;
	if (!json_is_array(all)) {
		json_decref(info);
		return NULL;
	}
	out = json_array();
	json_array_foreach (all, k, s) {
		const char *name = json_string_value(json_object_get(s, "name"));

		if (!name || find_readable(a, name, who) < 0)
			continue;
		if (only && strcmp(only, name))
			continue;
		json_array_append(out, s);
	}
	json_decref(info);
	return out;
}

/* ---- arguments ---- */

/* A decimal number 0..@max, nothing else. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

struct keys {
	const char **v;
	size_t n, cap;
	bool overflow;
};

static enum MHD_Result collect_key(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	struct keys *k = cls;

	(void)kind;
	if (strcmp(key, "key"))
		return MHD_YES;
	if (k->n == k->cap) {
		const char **v;
		size_t cap = k->cap ? 2 * k->cap : 16;

		if (cap > DTA_EXEC_BATCH_MAX) {
			k->overflow = true;
			return MHD_NO;
		}
		v = realloc(k->v, cap * sizeof(*v));
		if (!v) {
			k->overflow = true;
			return MHD_NO;
		}
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n++] = value ? value : "";
	return MHD_YES;
}

/* ---- point queries ---- */

struct point_opts {
	bool has_bank, has_red, has_thr;
	uint64_t bank, red, thr;
};

/* Why a request failed: its status and message. */
struct fail {
	unsigned status;
	char msg[256];
};

static json_t *failed(struct fail *f, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static json_t *failed(struct fail *f, unsigned status, const char *fmt, ...)
{
	va_list ap;

	f->status = status;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	return NULL;
}

static const char *skip_0x(const char *hex)
{
	return hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X') ? hex + 2 : hex;
}

/* The answers to @k keys of structure @name (primitive word @op: kw, pc,
 * ki), each the executor's text answer with the key added first; NULL
 * with @f set on failure. */
static json_t *point_results(struct coll_api *a, const char *name,
			     const char *op, const struct keys *k,
			     const struct point_opts *po, struct fail *f)
{
	struct dta_buf out = { 0 };
	json_t *results;
	char line[DTA_EXEC_REQUEST_MAX + 1];
	uint8_t key[DTA_KEY_MAX];
	const char *p;

	for (size_t i = 0; i < k->n; i++) {
		const char *hex = skip_0x(k->v[i]);
		int n;

		if (tool_unhex(hex, key, sizeof(key)) <= 0) {
			dta_exec_text_flush(a->sess, &out);
			dta_buf_free(&out);
			return failed(f, MHD_HTTP_BAD_REQUEST,
				      "key %zu: not 1..%d bytes of hex", i,
				      DTA_KEY_MAX);
		}
		n = snprintf(line, sizeof(line), "%s %s %s", op, name, hex);
		if (!strcmp(op, "ki") && po->has_bank)
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      " %" PRIu64, po->bank);
		if (!strcmp(op, "kw") && (po->has_red || po->has_thr))
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      " %" PRIu64 " %" PRIu64, po->red,
				      po->thr);
		dta_exec_text(a->sess, line, (size_t)n, &out);
	}
	dta_exec_text_flush(a->sess, &out);
	if (out.oom) {
		dta_buf_free(&out);
		return failed(f, MHD_HTTP_INTERNAL_SERVER_ERROR,
			      "out of memory");
	}
	/* One answer line per key, in order. */
	results = json_array();
	p = out.p;
	for (size_t i = 0; i < k->n; i++) {
		const char *nl = memchr(p, '\n', out.len - (size_t)(p - out.p));
		const char *hex = skip_0x(k->v[i]);
		json_t *ans, *r;

		ans = nl ? json_loadb(p, (size_t)(nl - p), 0, NULL) : NULL;
		if (!json_is_object(ans)) {
			json_decref(ans);
			json_decref(results);
			dta_buf_free(&out);
			return failed(f, MHD_HTTP_INTERNAL_SERVER_ERROR,
				      "internal error: unreadable answer");
		}
		r = json_pack("{s:s%}", "key", hex, strlen(hex));
		json_object_update(r, ans);
		json_decref(ans);
		json_array_append_new(results, r);
		p = nl + 1;
	}
	dta_buf_free(&out);
	return results;
}

/* POST body {"keys": [...], "bank": N, "redundancy": N, "threshold": N}. */
static int body_keys(json_t *body, struct keys *k, struct point_opts *po,
		     const char **why)
{
	json_t *keys = json_object_get(body, "keys"), *v;
	const char *opt[3] = { "bank", "redundancy", "threshold" };
	uint64_t *val[3] = { &po->bank, &po->red, &po->thr };
	bool *has[3] = { &po->has_bank, &po->has_red, &po->has_thr };
	size_t i;

	if (!json_is_object(body) || !json_is_array(keys)) {
		*why = "the body must be a JSON object {\"keys\": [\"HEX\", ...]}";
		return -1;
	}
	if (json_array_size(keys) > DTA_EXEC_BATCH_MAX) {
		*why = "too many keys (the limit is 65536)";
		return -1;
	}
	k->v = calloc(json_array_size(keys) + 1, sizeof(*k->v));
	if (!k->v) {
		*why = "out of memory";
		return -1;
	}
	json_array_foreach (keys, i, v) {
		if (!json_is_string(v)) {
			*why = "keys must be strings of hex";
			return -1;
		}
		k->v[k->n++] = json_string_value(v);
	}
	for (unsigned j = 0; j < 3; j++) {
		v = json_object_get(body, opt[j]);
		if (!v)
			continue;
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 0xffff) {
			*why = "bank, redundancy and threshold must be integers "
			       "0..65535";
			return -1;
		}
		*val[j] = (uint64_t)json_integer_value(v);
		*has[j] = true;
	}
	return 0;
}

static enum MHD_Result points(struct coll_api *a, struct MHD_Connection *conn,
			      const char *method, struct req *rq, long i,
			      const char *op)
{
	const struct dta_exec_structure *es = dta_exec_structure(a->o.x,
								 (size_t)i);
	int want = !strcmp(op, "kw")   ? DTA_PRIM_KEY_WRITE
		   : !strcmp(op, "pc") ? DTA_PRIM_POSTCARD
				       : DTA_PRIM_KEY_INCREMENT;
	struct point_opts po = { 0 };
	struct keys k = { 0 };
	json_t *body = NULL;
	const char *why = NULL;
	enum MHD_Result r;

	if (es->layout->primitive != want)
		return send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
				  "%s is a %s structure: /%s queries %s", es->name,
				  dta_primitive_name(es->layout->primitive), op,
				  dta_primitive_name(want));
	if (!strcmp(method, MHD_HTTP_METHOD_POST)) {
		json_error_t je;

		body = json_loadb(rq->body ? rq->body : "", rq->len, 0, &je);
		if (!body)
			return send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
					  "body: %s", je.text);
		if (body_keys(body, &k, &po, &why)) {
			r = send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL, "%s",
				       why);
			goto out;
		}
	} else {
		const char *opt[3] = { "bank", "redundancy", "threshold" };
		uint64_t *val[3] = { &po.bank, &po.red, &po.thr };
		bool *has[3] = { &po.has_bank, &po.has_red, &po.has_thr };

		MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND,
					  collect_key, &k);
		if (k.overflow) {
			r = send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
				       "too many keys (the limit is %d)",
				       DTA_EXEC_BATCH_MAX);
			goto out;
		}
		for (unsigned j = 0; j < 3; j++) {
			const char *v = MHD_lookup_connection_value(
				conn, MHD_GET_ARGUMENT_KIND, opt[j]);

			if (!v)
				continue;
			if (parse_u64(v, 0xffff, val[j])) {
				r = send_error(a, conn, MHD_HTTP_BAD_REQUEST,
					       NULL, "%s must be 0..65535",
					       opt[j]);
				goto out;
			}
			*has[j] = true;
		}
	}
	if (!k.n) {
		r = send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
			       "no keys: ?key=HEX&key=HEX or POST "
			       "{\"keys\": [\"HEX\", ...]}");
		goto out;
	}
	{
		struct fail f;
		json_t *res = point_results(a, es->name, op, &k, &po, &f);

		r = res ? send_json(a, conn, MHD_HTTP_OK,
				    json_pack("{s:s,s:o}", "structure", es->name,
					      "results", res),
				    NULL)
			: send_error(a, conn, f.status, NULL, "%s", f.msg);
	}
out:
	free(k.v);
	json_decref(body);
	return r;
}

/* ---- Append ---- */

/* Entries of Append list @list of structure @i from @cursor, at most
 * @max, as JSON ({"hex", "fields"}); NULL with @f set on failure. */
static json_t *ap_entries(struct coll_api *a, long i, uint32_t list,
			  uint64_t cursor, uint64_t max, uint64_t *lost,
			  uint64_t *next, struct fail *f)
{
	const struct dta_exec_structure *es = dta_exec_structure(a->o.x,
								 (size_t)i);
	size_t es_len = es->layout->g.ap.entry_size;
	json_t *entries;
	char *hex;
	int n;

	if (a->apcap < max * es_len) {
		uint8_t *b = realloc(a->apbuf, max * es_len);

		if (!b)
			return failed(f, MHD_HTTP_INTERNAL_SERVER_ERROR,
				      "out of memory");
		a->apbuf = b;
		a->apcap = max * es_len;
	}
	n = dta_exec_ap_read_at(a->o.x, (size_t)i, list, cursor, a->apbuf, max,
				lost, next);
	if (n < 0)
		return failed(f, MHD_HTTP_INTERNAL_SERVER_ERROR, "read: %s",
			      dta_strerror(n));
	hex = malloc(2 * es_len + 1);
	if (!hex)
		return failed(f, MHD_HTTP_INTERNAL_SERVER_ERROR,
			      "out of memory");
	entries = json_array();
	for (int k = 0; k < n; k++) {
		const uint8_t *e = a->apbuf + (size_t)k * es_len;
		json_t *ent;

		tool_hex(e, es_len, hex);
		ent = json_pack("{s:s}", "hex", hex);
		if (es->schema) {
			char fields[8192];
			int fl = dta_schema_json(es->schema, e, es_len, fields,
						 sizeof(fields));
			json_t *fj = fl > 0 ? json_loadb(fields, (size_t)fl, 0,
							 NULL)
					    : NULL;

			if (fj)
				json_object_set_new(ent, "fields", fj);
		}
		json_array_append_new(entries, ent);
	}
	free(hex);
	return entries;
}

static enum MHD_Result list_read(struct coll_api *a,
				 struct MHD_Connection *conn, long i,
				 const char *list_s)
{
	const struct dta_exec_structure *es = dta_exec_structure(a->o.x,
								 (size_t)i);
	const struct dta_layout *l = es->layout;
	const char *cs = MHD_lookup_connection_value(conn,
						     MHD_GET_ARGUMENT_KIND,
						     "cursor");
	const char *ms = MHD_lookup_connection_value(conn,
						     MHD_GET_ARGUMENT_KIND,
						     "max");
	uint64_t list, cursor = DTA_EXEC_AP_CURSOR_OLDEST, max = AP_DEFAULT;
	uint64_t lost = 0, next = 0;
	struct fail f;
	json_t *entries;

	if (l->primitive != DTA_PRIM_APPEND)
		return send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
				  "%s is a %s structure: lists are Append's",
				  es->name, dta_primitive_name(l->primitive));
	if (parse_u64(list_s, UINT32_MAX, &list) || list >= l->g.ap.lists)
		return send_error(a, conn, MHD_HTTP_NOT_FOUND, NULL,
				  "%s has lists 0..%u", es->name,
				  l->g.ap.lists - 1);
	/* Below 2^62: the answer's numbers stay JSON integers jansson and
	 * JavaScript-free clients read exactly, with room to count on. */
	if (cs && parse_u64(cs, (1ull << 62) - 1, &cursor))
		return send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
				  "cursor must be a whole number below 2^62 "
				  "(the next entry's index)");
	if (ms && (parse_u64(ms, AP_MAX, &max) || max < l->g.ap.batch_entries))
		return send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
				  "max must be %u..%d (batches are read whole)",
				  l->g.ap.batch_entries, AP_MAX);
	if (max < l->g.ap.batch_entries)
		max = l->g.ap.batch_entries;
	entries = ap_entries(a, i, (uint32_t)list, cursor, max, &lost, &next,
			     &f);
	if (!entries)
		return send_error(a, conn, f.status, NULL, "%s", f.msg);
	/* Without a cursor: where the oldest stored entry was. */
	if (!cs)
		cursor = next - json_array_size(entries) - lost;
	return send_json(a, conn, MHD_HTTP_OK,
			 json_pack("{s:s,s:I,s:I,s:I,s:I,s:o}", "structure",
				   es->name, "list", (json_int_t)list, "cursor",
				   (json_int_t)cursor, "next", (json_int_t)next,
				   "lost", (json_int_t)lost, "entries", entries),
			 NULL);
}

/* ---- routing ---- */

/* Grafana's JSON data source (simpod-json-datasource): POST /metrics (or
 * /search) lists what can be queried. */
static enum MHD_Result grafana_metrics(struct coll_api *a,
				       struct MHD_Connection *conn,
				       const char *who)
{
	json_t *all = structures(a, who, NULL), *out, *s;
	size_t k;

	if (!all)
		return send_error(a, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				  "internal error: no structure list");
	out = json_array();
	json_array_foreach (all, k, s) {
		json_t *name = json_object_get(s, "name");

		json_array_append_new(out,
				      json_pack("{s:O,s:O}", "label", name,
						"value", name));
	}
	json_decref(all);
	return send_json(a, conn, MHD_HTTP_OK, out, NULL);
}

/* A Grafana table ({"type": "table", "columns", "rows"}) of @objs (an
 * array of flat objects, still the caller's): a column per member, in the
 * order first seen; numbers and strings as they are, anything else
 * (arrays, objects) as its JSON text. */
static json_t *grafana_table(json_t *objs)
{
	json_t *cols = json_array(), *names = json_object(), *rows = json_array();
	json_t *o, *v;
	const char *key;
	size_t k;

	json_array_foreach (objs, k, o) {
		json_object_foreach (o, key, v) {
			if (json_object_get(names, key))
				continue;
			json_object_set_new(names, key,
					    json_integer((json_int_t)
							 json_array_size(cols)));
			json_array_append_new(
				cols, json_pack("{s:s,s:s}", "text", key, "type",
						json_is_number(v) ? "number"
								  : "string"));
		}
	}
	json_array_foreach (objs, k, o) {
		json_t *row = json_array();

		for (size_t c = 0; c < json_array_size(cols); c++)
			json_array_append_new(row, json_null());
		json_object_foreach (o, key, v) {
			size_t c = (size_t)json_integer_value(
				json_object_get(names, key));
			json_t *cell;

			if (json_is_number(v) || json_is_string(v)) {
				cell = json_incref(v);
			} else {
				char *t = json_dumps(v, JSON_COMPACT |
							       JSON_ENCODE_ANY);

				cell = json_string(t ? t : "");
				free(t);
			}
			json_array_set_new(row, c, cell);
		}
		json_array_append_new(rows, row);
	}
	json_decref(names);
	return json_pack("{s:s,s:o,s:o}", "type", "table", "columns", cols,
			 "rows", rows);
}

/* Append entries as flat rows: hex, then the schema's fields. */
static json_t *flat_entries(json_t *entries)
{
	json_t *out = json_array(), *e;
	size_t k;

	json_array_foreach (entries, k, e) {
		json_t *row = json_pack("{s:O}", "hex", json_object_get(e, "hex"));
		json_t *fields = json_object_get(e, "fields");

		if (fields)
			json_object_update(row, fields);
		json_array_append_new(out, row);
	}
	return out;
}

/*
 * Grafana's JSON data source: POST /query. Each target names a structure;
 * its payload says what to read: {"keys": [...], "bank": N} for a
 * Key-Write, Postcarding or Key-Increment structure (a table of the
 * lookups), {"list": N, "max": N} for an Append structure (a table of the
 * oldest entries still stored). The answer is a table per target.
 */
static enum MHD_Result grafana_query(struct coll_api *a,
				     struct MHD_Connection *conn,
				     const struct req *rq, const char *who)
{
	json_error_t je;
	json_t *body = json_loadb(rq->body ? rq->body : "", rq->len, 0, &je);
	json_t *targets = json_object_get(body, "targets"), *t, *out = NULL;
	struct fail f = { MHD_HTTP_BAD_REQUEST, "" };
	size_t k;

	if (!body || !json_is_array(targets)) {
		json_decref(body);
		return send_error(a, conn, MHD_HTTP_BAD_REQUEST, NULL,
				  "the body must be Grafana's query: "
				  "{\"targets\": [...]}");
	}
	out = json_array();
	json_array_foreach (targets, k, t) {
		const char *name = json_string_value(json_object_get(t, "target"));
		json_t *payload = json_object_get(t, "payload"), *res;
		const struct dta_exec_structure *es;
		long i = name ? find_readable(a, name, who) : -1;

		if (i < 0) {
			f.status = MHD_HTTP_NOT_FOUND;
			snprintf(f.msg, sizeof(f.msg), "target %zu: no structure "
				 "named %s", k, name ? name : "(none)");
			goto fail;
		}
		es = dta_exec_structure(a->o.x, (size_t)i);
		if (es->layout->primitive == DTA_PRIM_APPEND) {
			json_t *jl = json_object_get(payload, "list");
			json_t *jm = json_object_get(payload, "max");
			json_int_t list = jl ? json_integer_value(jl) : 0;
			json_int_t max = jm ? json_integer_value(jm) : AP_DEFAULT;
			uint64_t lost, next;

			if ((jl && !json_is_integer(jl)) || list < 0 ||
			    list >= es->layout->g.ap.lists ||
			    (jm && !json_is_integer(jm)) ||
			    max < es->layout->g.ap.batch_entries ||
			    max > AP_MAX) {
				snprintf(f.msg, sizeof(f.msg), "target %zu: payload "
					 "list 0..%u, max %u..%d", k,
					 es->layout->g.ap.lists - 1,
					 es->layout->g.ap.batch_entries, AP_MAX);
				goto fail;
			}
			res = ap_entries(a, i, (uint32_t)list,
					 DTA_EXEC_AP_CURSOR_OLDEST, (uint64_t)max,
					 &lost, &next, &f);
			if (!res)
				goto fail;
			{
				json_t *flat = flat_entries(res);

				json_array_append_new(out, grafana_table(flat));
				json_decref(flat);
			}
			json_decref(res);
		} else {
			struct point_opts po = { 0 };
			struct keys keys = { 0 };
			const char *op = es->layout->primitive == DTA_PRIM_KEY_WRITE
						 ? "kw"
					 : es->layout->primitive == DTA_PRIM_POSTCARD
						 ? "pc"
						 : "ki";
			const char *why = NULL;

			if (body_keys(payload, &keys, &po, &why)) {
				free(keys.v);
				snprintf(f.msg, sizeof(f.msg), "target %zu: payload: "
					 "%s", k, why);
				goto fail;
			}
			res = point_results(a, es->name, op, &keys, &po, &f);
			free(keys.v);
			if (!res)
				goto fail;
			json_array_append_new(out, grafana_table(res));
			json_decref(res);
		}
	}
	json_decref(body);
	return send_json(a, conn, MHD_HTTP_OK, out, NULL);
fail:
	json_decref(out);
	json_decref(body);
	return send_error(a, conn, f.status, NULL, "%s", f.msg);
}

static enum MHD_Result route(struct coll_api *a, struct MHD_Connection *conn,
			     const char *url, const char *method,
			     struct req *rq, const char *who)
{
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET) ||
		   !strcmp(method, MHD_HTTP_METHOD_HEAD);
	bool post = !strcmp(method, MHD_HTTP_METHOD_POST);
	char name[DTA_CONFIG_NAME_MAX], rest[64];
	const char *p;
	size_t nl;
	long i;

	if (!strcmp(url, "/")) {
		if (!get)
			return send_error(a, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "GET, HEAD", "GET only");
		return send_json(a, conn, MHD_HTTP_OK,
				 json_pack("{s:s,s:s,s:s,s:s}", "service",
					   "dta-collector", "collector",
					   a->o.collector, "api", "/v1",
					   "client", who),
				 NULL);
	}
	if (!strcmp(url, "/metrics") || !strcmp(url, "/search")) {
		if (!post)
			return send_error(a, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "POST", "POST only (Grafana's JSON "
					  "data source)");
		return grafana_metrics(a, conn, who);
	}
	if (!strcmp(url, "/query")) {
		if (!post)
			return send_error(a, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "POST", "POST only (Grafana's JSON "
					  "data source)");
		return grafana_query(a, conn, rq, who);
	}
	if (!strcmp(url, "/v1/structures") || !strcmp(url, "/v1/structures/")) {
		json_t *all;

		if (!get)
			return send_error(a, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "GET, HEAD", "GET only");
		all = structures(a, who, NULL);
		if (!all)
			return send_error(a, conn,
					  MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
					  "internal error: no structure list");
		return send_json(a, conn, MHD_HTTP_OK,
				 json_pack("{s:s,s:o}", "collector",
					   a->o.collector, "structures", all),
				 NULL);
	}
	if (strncmp(url, "/v1/structures/", 15))
		return send_error(a, conn, MHD_HTTP_NOT_FOUND, NULL,
				  "no such resource: the API is under "
				  "/v1/structures");
	p = url + 15;
	nl = strcspn(p, "/");
	if (nl == 0 || nl >= sizeof(name))
		return send_error(a, conn, MHD_HTTP_NOT_FOUND, NULL,
				  "no such structure");
	memcpy(name, p, nl);
	name[nl] = 0;
	p += nl;
	i = find_readable(a, name, who);
	if (i < 0)
		return send_error(a, conn, MHD_HTTP_NOT_FOUND, NULL,
				  "no structure named %s", name);
	if (!*p || !strcmp(p, "/")) {
		json_t *one, *s;

		if (!get)
			return send_error(a, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "GET, HEAD", "GET only");
		one = structures(a, who, name);
		if (!one || json_array_size(one) != 1) {
			json_decref(one);
			return send_error(a, conn,
					  MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
					  "internal error: %s not in info", name);
		}
		s = json_incref(json_array_get(one, 0));
		json_decref(one);
		return send_json(a, conn, MHD_HTTP_OK, s, NULL);
	}
	if (!strcmp(p, "/kw") || !strcmp(p, "/pc") || !strcmp(p, "/ki")) {
		if (!get && !post)
			return send_error(a, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "GET, HEAD, POST", "GET or POST");
		return points(a, conn, method, rq, i, p + 1);
	}
	if (!strncmp(p, "/lists/", 7) && strlen(p + 7) < sizeof(rest) &&
	    !strchr(p + 7, '/')) {
		if (!get)
			return send_error(a, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "GET, HEAD", "GET only");
		snprintf(rest, sizeof(rest), "%s", p + 7);
		return list_read(a, conn, i, rest);
	}
	return send_error(a, conn, MHD_HTTP_NOT_FOUND, NULL,
			  "no such resource under /v1/structures/%s", name);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **req_cls)
{
	struct coll_api *a = cls;
	struct req *rq = *req_cls;
	const union MHD_ConnectionInfo *ci;
	char who[128], why[256];

	(void)version;
	if (!rq) {
		const char *cl;
		uint64_t len = UINT64_MAX; /* unreadable: too big */

		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		*req_cls = rq;
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && (parse_u64(cl, UINT64_MAX, &len) ||
			   len > COLL_API_BODY_MAX)) {
			rq->too_big = true;
			/* A body up to 16 times the limit is read and dropped,
			 * so that a client that sends it before reading (most
			 * do) gets the 413; a larger one is answered at once
			 * and the connection closed. */
			if (len > 16ull * COLL_API_BODY_MAX)
				return send_error(a, conn,
						  MHD_HTTP_CONTENT_TOO_LARGE, NULL,
						  "body over %u bytes",
						  COLL_API_BODY_MAX);
		}
		return MHD_YES; /* headers seen: the body (if any) next */
	}
	if (*upload_len) {
		size_t n = *upload_len;

		if (!rq->too_big && rq->len + n <= COLL_API_BODY_MAX) {
			char *b = realloc(rq->body, rq->len + n + 1);

			if (!b)
				return MHD_NO;
			rq->body = b;
			memcpy(rq->body + rq->len, upload, n);
			rq->len += n;
		} else {
			rq->too_big = true;
			/* Past what is worth reading to answer 413: close. */
			rq->dropped += n;
			if (rq->dropped > 16ull * COLL_API_BODY_MAX)
				return MHD_NO;
		}
		*upload_len = 0;
		return MHD_YES;
	}
	if (rq->too_big)
		return send_error(a, conn, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
				  "body over %u bytes", COLL_API_BODY_MAX);
	/* Who: the handshake required and verified a certificate; its CN
	 * must also be a reader name. */
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session ||
	    coll_tls_peer_check(ci->tls_session, who, sizeof(who), why,
				sizeof(why))) {
		a->st.refused++;
		if (!ci || !ci->tls_session)
			snprintf(why, sizeof(why), "no TLS session");
		tool_log(LOG_WARNING, "api: client refused: %s", why);
		return send_error(a, conn, MHD_HTTP_FORBIDDEN, NULL,
				  "client certificate refused: %s", why);
	}
	return route(a, conn, url, method, rq, who);
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **req_cls)
{
	struct req *rq = *req_cls;

	(void)cls;
	(void)conn;
	if (rq) {
		free(rq->body);
		free(rq);
		*req_cls = NULL;
	}
}

/* ---- life ---- */

static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *b;

			if (cap > (1u << 20)) {
				snprintf(err, errlen, "%s: over 1 MiB", path);
				goto fail;
			}
			cap = cap ? 2 * cap : 8192;
			b = realloc(buf, cap);
			if (!b) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto fail;
	}
	fclose(f);
	buf[len] = 0;
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

int coll_api_start(const struct coll_api_opts *o, struct coll_api **out,
		   char *err, size_t errlen)
{
	gnutls_certificate_credentials_t cred;
	struct httpd_opts ho = {
		.name = "api", .handler = on_request, .completed = on_completed,
		.conn_limit = COLL_API_CONNECTIONS,
		.per_ip_limit = COLL_API_PER_IP, .timeout_s = COLL_API_IDLE_S,
		.deadline_s = COLL_API_DEADLINE_S,
		.conn_memory = COLL_API_CONN_MEMORY,
		/* No session tickets: every connection does a full handshake
		 * and presents its certificate. */
		.tls_priorities = COLL_TLS_PRIORITY ":%NO_TICKETS",
		.log = tool_log_warning,
	};
	struct coll_api *a;
	int rc;

	*out = NULL;
	if (!o->tls_cert || !o->tls_key || !o->tls_ca) {
		snprintf(err, errlen, "api_listen needs tls_cert, tls_key and "
			 "tls_ca: the API is HTTPS only, for clients with "
			 "certificates (docs/api.md)");
		return -EINVAL;
	}
	/* The same checks as the TLS query listener (key file mode and
	 * owner, the key matching the certificate, a CA in tls_ca). */
	rc = coll_tls_load(o->tls_cert, o->tls_key, o->tls_ca, &cred, err,
			   errlen);
	if (rc)
		return rc;
	gnutls_certificate_free_credentials(cred);
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	a->o = *o;
	rc = -ENOMEM;
	if (dta_exec_session_create(o->x, &a->sess)) {
		snprintf(err, errlen, "out of memory");
		goto free_api;
	}
	rc = -EINVAL;
	if (!(a->cert = slurp(o->tls_cert, err, errlen)) ||
	    !(a->key = slurp(o->tls_key, err, errlen)) ||
	    !(a->ca = slurp(o->tls_ca, err, errlen)))
		goto free_api;
	ho.listen = o->listen;
	ho.cls = a;
	ho.tls_cert_pem = a->cert;
	ho.tls_key_pem = a->key;
	ho.tls_ca_pem = a->ca;
	rc = httpd_start(&ho, &a->h);
	if (rc) {
		snprintf(err, errlen, "api: cannot serve HTTPS on %s: %s",
			 o->listen, strerror(-rc));
		goto free_api;
	}
	*out = a;
	return 0;
free_api:
	coll_api_stop(a);
	return rc;
}

int coll_api_fd(const struct coll_api *a)
{
	return httpd_fd(a->h);
}

uint16_t coll_api_port(const struct coll_api *a)
{
	return httpd_port(a->h);
}

void coll_api_run(struct coll_api *a)
{
	if (a)
		httpd_run(a->h);
}

int coll_api_timeout(const struct coll_api *a, int ms)
{
	return a ? httpd_timeout(a->h, ms) : ms;
}

void coll_api_stats(const struct coll_api *a, struct coll_api_stats *st)
{
	*st = a->st;
	st->deadline = httpd_deadline_closed(a->h);
	st->evicted = httpd_evicted(a->h);
}

void coll_api_stop(struct coll_api *a)
{
	if (!a)
		return;
	httpd_stop(a->h);
	dta_exec_session_destroy(a->sess);
	if (a->key) {
		/* The private key: do not leave it in freed memory. */
		explicit_bzero(a->key, strlen(a->key));
		free(a->key);
	}
	free(a->cert);
	free(a->ca);
	free(a->apbuf);
	free(a);
}
