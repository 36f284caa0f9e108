/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ClickHouse sink (sink.h, docs/export.md "ClickHouse"): one
 * INSERT ... FORMAT RowBinary per structure and batch over ClickHouse's
 * HTTP interface (libcurl), into the Distributed table of the structure
 * with insert_distributed_sync=1, so a 200 means every shard wrote its
 * rows. The tables are export_clickhouse_ddl()'s (dta-export
 * --print-schema), written for ClickHouse 18.16 and later.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dta/dta.h"
#include "export.h"
#include "tools.h"

#define URLS_MAX 8

struct export_sink {
	CURL *curl;
	char *urls[URLS_MAX];
	unsigned nurls, cur;
	char db[DTA_CONFIG_NAME_MAX];
	char prefix[64];
	char user[128];
	char password[256];
	uint8_t *buf;
	size_t len, cap;
	bool oom;
	char resp[512];
	size_t resp_len;
	char *ans;          /* a SELECT's answer (resume) */
	size_t ans_len, ans_cap;
	bool want_ans;
	/* resume: the last (collector, structure) asked, its lists' ends */
	char rc_coll[DTA_CONFIG_NAME_MAX], rc_st[DTA_CONFIG_NAME_MAX];
	uint32_t *rc_list;
	uint64_t *rc_pos;
	size_t rc_n;
	bool rc_valid;
	uint64_t batches, rows, retries;
};

/* ---- column names and types (shared with the DDL) ---- */

static const char *const fixed_cols[] = {
	"collector", "structure", "list", "position", "time_ns", "time",
	"entry", "epoch", "epoch_start_ns", "epoch_len_ns", "row", "column",
	"count", "key",
};

/* A schema field's column: its name, or field_NAME when a fixed column
 * has that name. */
static void field_col(const struct dta_field *f, char *out, size_t cap)
{
	for (size_t i = 0; i < sizeof(fixed_cols) / sizeof(fixed_cols[0]); i++)
		if (!strcmp(fixed_cols[i], f->name)) {
			snprintf(out, cap, "field_%s", f->name);
			return;
		}
	snprintf(out, cap, "%s", f->name);
}

static const char *int_type(unsigned t)
{
	switch (t) {
	case DTA_FIELD_U8: return "UInt8";
	case DTA_FIELD_U16: return "UInt16";
	case DTA_FIELD_U32: return "UInt32";
	case DTA_FIELD_U64: return "UInt64";
	case DTA_FIELD_I8: return "Int8";
	case DTA_FIELD_I16: return "Int16";
	case DTA_FIELD_I32: return "Int32";
	case DTA_FIELD_I64: return "Int64";
	default: return NULL;
	}
}

static void field_type(const struct dta_field *f, char *out, size_t cap)
{
	if (f->type == DTA_FIELD_BYTES)
		snprintf(out, cap, "FixedString(%u)", (unsigned)f->count);
	else if (f->count > 1)
		snprintf(out, cap, "Array(%s)", int_type(f->type));
	else
		snprintf(out, cap, "%s", int_type(f->type));
}

/* ---- DDL ---- */

static void names(const struct dta_config *cfg, char *db, size_t dbcap,
		  char *prefix, size_t pcap)
{
	const char *v = dta_config_get(cfg, "export", "clickhouse_database");

	snprintf(db, dbcap, "%s", v ? v : "default");
	v = dta_config_get(cfg, "export", "clickhouse_table_prefix");
	snprintf(prefix, pcap, "%s", v ? v : "dta_");
}

int export_clickhouse_ddl(const struct dta_config *cfg,
			  const struct export_settings *s, const char *cluster,
			  bool on_cluster, FILE *out, char *err, size_t errlen)
{
	char db[DTA_CONFIG_NAME_MAX], prefix[64], oc[128] = "";
	unsigned n = 0;

	names(cfg, db, sizeof(db), prefix, sizeof(prefix));
	if (on_cluster)
		snprintf(oc, sizeof(oc), " ON CLUSTER `%s`", cluster);
	fprintf(out, "-- dta-export tables (docs/export.md): per structure a "
		     "local ReplacingMergeTree\n-- on every server of cluster "
		     "%s, and a Distributed table over them.\n-- %s\n-- "
		     "SELECT ... FINAL counts each row once after retries.\n",
		cluster, on_cluster ? "Run once (ON CLUSTER needs ZooKeeper)."
				    : "Run on every server of the cluster.");
	for (size_t i = 0; i < dta_config_count(cfg); i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(cfg, i);
		const char *order, *shard;

		if (!export_listed(s->structures, cs->name))
			continue;
		if (cs->layout.primitive == DTA_PRIM_APPEND) {
			order = "collector, list, position";
			shard = "cityHash64(collector, list)";
		} else if (cs->layout.primitive == DTA_PRIM_KEY_INCREMENT &&
			   cs->epoch_s) {
			order = "collector, epoch, row, column";
			shard = "cityHash64(collector, epoch)";
		} else {
			continue;
		}
		fprintf(out, "\nCREATE TABLE IF NOT EXISTS `%s`.`%s%s_local`%s "
			     "(\n    collector String,\n    structure String,\n",
			db, prefix, cs->name, oc);
		if (cs->layout.primitive == DTA_PRIM_APPEND) {
			fprintf(out, "    list UInt32,\n    position UInt64,\n"
				     "    time_ns UInt64,\n    time DateTime,\n"
				     "    entry String");
			for (unsigned k = 0; cs->schema && k < cs->schema->nfields;
			     k++) {
				char c[64], t[64];

				field_col(&cs->schema->f[k], c, sizeof(c));
				field_type(&cs->schema->f[k], t, sizeof(t));
				fprintf(out, ",\n    `%s` %s", c, t);
			}
		} else {
			fprintf(out, "    epoch UInt64,\n    epoch_start_ns "
				     "UInt64,\n    epoch_len_ns UInt64,\n    "
				     "time_ns UInt64,\n    time DateTime,\n    "
				     "row UInt32,\n    `column` UInt32,\n    "
				     "count UInt64,\n    key String");
		}
		fprintf(out, "\n) ENGINE = ReplacingMergeTree()\nORDER BY "
			     "(%s);\n", order);
		fprintf(out, "\nCREATE TABLE IF NOT EXISTS `%s`.`%s%s`%s\nAS "
			     "`%s`.`%s%s_local`\nENGINE = Distributed(`%s`, "
			     "`%s`, `%s%s_local`, %s);\n", db, prefix, cs->name,
			oc, db, prefix, cs->name, cluster, db, prefix, cs->name,
			shard);
		n++;
	}
	if (!n)
		return tool_fail(err, errlen, -ENOENT,
				 "no structure to export");
	return 0;
}

/* ---- RowBinary ---- */

static void put(struct export_sink *s, const void *p, size_t n)
{
	if (s->oom)
		return;
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 1 << 20;
		uint8_t *b;

		while (cap < s->len + n)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b) {
			s->oom = true;
			return;
		}
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_varint(struct export_sink *s, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	put(s, b, n);
}

static void put_u64(struct export_sink *s, uint64_t v, size_t size)
{
	uint8_t b[8];

	for (size_t i = 0; i < size; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(s, b, size);
}

static void put_str(struct export_sink *s, const void *p, size_t n)
{
	put_varint(s, n);
	put(s, p, n);
}

/* One field of @e (@elen bytes) in RowBinary: integers little-endian. */
static void put_field(struct export_sink *s, const struct dta_field *f,
		      const uint8_t *e, size_t elen)
{
	size_t esz = f->size / f->count;
	uint8_t zero[256] = { 0 };
	const uint8_t *p = f->offset + (size_t)f->size <= elen ? e + f->offset
							     : NULL;

	if (f->type == DTA_FIELD_BYTES) {
		put(s, p ? p : zero, f->size <= sizeof(zero) ? f->size : 0);
		return;
	}
	if (f->count > 1)
		put_varint(s, f->count);
	for (unsigned k = 0; k < f->count; k++) {
		uint8_t b[8] = { 0 };

		if (p) {
			const uint8_t *q = p + k * esz;

			for (size_t i = 0; i < esz; i++)
				b[i] = f->little ? q[i] : q[esz - 1 - i];
		}
		put(s, b, esz);
	}
}

static void put_row(struct export_sink *s, const struct export_row *r)
{
	put_str(s, r->collector, strlen(r->collector));
	put_str(s, r->structure, strlen(r->structure));
	if (r->kind == EXPORT_APPEND) {
		put_u64(s, r->list, 4);
		put_u64(s, r->position, 8);
		put_u64(s, r->time_ns, 8);
		put_u64(s, r->time_ns / 1000000000ull, 4);
		put_str(s, r->entry, r->entry_len);
		for (unsigned k = 0; r->schema && k < r->schema->nfields; k++)
			put_field(s, &r->schema->f[k], r->entry, r->entry_len);
	} else {
		put_u64(s, r->epoch, 8);
		put_u64(s, r->epoch_start_ns, 8);
		put_u64(s, r->epoch_len_ns, 8);
		put_u64(s, r->time_ns, 8);
		put_u64(s, r->time_ns / 1000000000ull, 4);
		put_u64(s, r->row, 4);
		put_u64(s, r->column, 4);
		put_u64(s, r->count, 8);
		put_str(s, r->key ? (const void *)r->key : "", r->key_len);
	}
}

/* ---- HTTP ---- */

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct export_sink *s = ctx;
	size_t len = size * n, room = sizeof(s->resp) - 1 - s->resp_len;

	if (len < room)
		room = len;
	memcpy(s->resp + s->resp_len, p, room);
	s->resp_len += room;
	s->resp[s->resp_len] = 0;
	if (s->want_ans) {
		if (s->ans_len + len + 1 > s->ans_cap) {
			size_t cap = s->ans_cap ? s->ans_cap : 4096;
			char *a;

			while (cap < s->ans_len + len + 1)
				cap *= 2;
			if (cap > (64u << 20))
				return 0; /* fails the transfer */
			a = realloc(s->ans, cap);
			if (!a)
				return 0;
			s->ans = a;
			s->ans_cap = cap;
		}
		memcpy(s->ans + s->ans_len, p, len);
		s->ans_len += len;
		s->ans[s->ans_len] = 0;
	}
	return len;
}

/* POST the buffer as the body of @query. */
static int post(struct export_sink *s, const char *query, char *err,
		size_t errlen)
{
	char url[4096];
	char *q;
	long code = 0;
	CURLcode cc;

	q = curl_easy_escape(s->curl, query, 0);
	if (!q)
		return tool_fail(err, errlen, -ENOMEM, "out of memory");
	snprintf(url, sizeof(url), "%s/?insert_distributed_sync=1&query=%s",
		 s->urls[s->cur], q);
	curl_free(q);
	s->resp_len = 0;
	s->resp[0] = 0;
	curl_easy_setopt(s->curl, CURLOPT_URL, url);
	/* (never NULL: libcurl would then read the body from stdin) */
	curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS,
			 s->buf ? (const char *)s->buf : "");
	curl_easy_setopt(s->curl, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)s->len);
	cc = curl_easy_perform(s->curl);
	if (cc != CURLE_OK) {
		tool_fail(err, errlen, -EAGAIN, "%s: %s", s->urls[s->cur],
			  curl_easy_strerror(cc));
		s->cur = (s->cur + 1) % s->nurls;
		return -EAGAIN;
	}
	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		size_t n = strlen(s->resp);

		while (n && (s->resp[n - 1] == '\n' || s->resp[n - 1] == '\r'))
			s->resp[--n] = 0;
		tool_fail(err, errlen, -EAGAIN, "%s: HTTP %ld: %.300s",
			  s->urls[s->cur], code, s->resp);
		s->cur = (s->cur + 1) % s->nurls;
		return -EAGAIN;
	}
	return 0;
}

static int ch_write(struct export_sink *s, const struct export_batch *b,
		    char *err, size_t errlen)
{
	const char *done[64];
	size_t ndone = 0;
	int rc;

	/* One INSERT per structure, in the order they first appear. */
	for (size_t i = 0; i < b->n; i++) {
		const char *st = b->rows[i].structure;
		char query[512];
		bool seen = false;

		for (size_t k = 0; k < ndone; k++)
			if (!strcmp(done[k], st))
				seen = true;
		if (seen)
			continue;
		if (ndone == sizeof(done) / sizeof(done[0]))
			return tool_fail(err, errlen, -E2BIG, "more than %zu "
					 "structures in one batch", ndone);
		done[ndone++] = st;
		s->len = 0;
		s->oom = false;
		for (size_t k = i; k < b->n; k++)
			if (!strcmp(b->rows[k].structure, st))
				put_row(s, &b->rows[k]);
		if (s->oom)
			return tool_fail(err, errlen, -ENOMEM,
					 "out of memory for "
					 "a batch of %zu rows", b->n);
		snprintf(query, sizeof(query), "INSERT INTO `%s`.`%s%s` FORMAT "
			 "RowBinary", s->db, s->prefix, st);
		rc = post(s, query, err, errlen);
		if (rc) {
			s->retries++;
			return rc;
		}
	}
	s->batches++;
	s->rows += b->n;
	return 0;
}

static int read_password(const char *path, char *out, size_t cap, char *err,
			 size_t errlen)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return tool_fail(err, errlen, -errno,
				 "clickhouse_password_file %s: " "%s", path,
				 strerror(errno));
	if (fstat(fd, &st) < 0 || (st.st_mode & 077) ||
	    (st.st_uid != geteuid() && st.st_uid != 0)) {
		close(fd);
		return tool_fail(err, errlen, -EPERM,
				 "clickhouse_password_file %s "
				 "must be ours or root's and not readable by group "
				 "or others", path);
	}
	n = read(fd, out, cap - 1);
	close(fd);
	if (n < 0)
		return tool_fail(err, errlen, -EIO,
				 "clickhouse_password_file %s: " "unreadable",
				 path);
	out[n] = 0;
	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = 0;
	return 0;
}

/* A string literal of @v for a query: quotes and backslashes escaped. */
static void quote(const char *v, char *out, size_t cap)
{
	size_t n = 0;

	out[n++] = '\'';
	for (; *v && n + 3 < cap; v++) {
		if (*v == '\'' || *v == '\\')
			out[n++] = '\\';
		out[n++] = *v;
	}
	out[n++] = '\'';
	out[n] = 0;
}

static int ch_resume(struct export_sink *s, const char *collector,
		     const char *structure, uint32_t list, uint64_t *pos,
		     char *err, size_t errlen)
{
	*pos = 0;
	if (!s->rc_valid || strcmp(s->rc_coll, collector) ||
	    strcmp(s->rc_st, structure)) {
		char q[1024], lit[2 * DTA_CONFIG_NAME_MAX + 4];
		char *p, *save = NULL;
		int rc = -EAGAIN;

		s->rc_valid = false;
		s->rc_n = 0;
		quote(collector, lit, sizeof(lit));
		snprintf(q, sizeof(q), "SELECT list, max(position) + 1 FROM "
			 "`%s`.`%s%s` WHERE collector = %s GROUP BY list "
			 "FORMAT TabSeparated", s->db, s->prefix, structure, lit);
		s->len = 0;
		s->ans_len = 0;
		s->want_ans = true;
		/* Every URL once: the first that answers. */
		for (unsigned i = 0; i < s->nurls && rc; i++)
			rc = post(s, q, err, errlen);
		s->want_ans = false;
		if (rc)
			return rc;
		for (p = s->ans ? strtok_r(s->ans, "\n", &save) : NULL; p;
		     p = strtok_r(NULL, "\n", &save)) {
			unsigned long long l, e;
			uint32_t *nl;
			uint64_t *np;

			if (sscanf(p, "%llu\t%llu", &l, &e) != 2 ||
			    l > UINT32_MAX)
				return tool_fail(err, errlen, -EPROTO,
						 "an answer "
						 "line that is not LIST\tEND: "
						 "%.100s", p);
			nl = realloc(s->rc_list, (s->rc_n + 1) * sizeof(*nl));
			if (nl)
				s->rc_list = nl;
			np = realloc(s->rc_pos, (s->rc_n + 1) * sizeof(*np));
			if (np)
				s->rc_pos = np;
			if (!nl || !np)
				return tool_fail(err, errlen, -ENOMEM,
						 "out of memory");
			s->rc_list[s->rc_n] = (uint32_t)l;
			s->rc_pos[s->rc_n++] = e;
		}
		snprintf(s->rc_coll, sizeof(s->rc_coll), "%s", collector);
		snprintf(s->rc_st, sizeof(s->rc_st), "%s", structure);
		s->rc_valid = true;
	}
	for (size_t i = 0; i < s->rc_n; i++)
		if (s->rc_list[i] == list)
			*pos = s->rc_pos[i];
	return 0;
}

static void ch_close(struct export_sink *s)
{
	if (!s)
		return;
	free(s->ans);
	free(s->rc_list);
	free(s->rc_pos);
	if (s->curl)
		curl_easy_cleanup(s->curl);
	for (unsigned i = 0; i < s->nurls; i++)
		free(s->urls[i]);
	explicit_bzero(s->password, sizeof(s->password));
	free(s->buf);
	free(s);
}

static int ch_open(const struct dta_config *cfg, struct export_sink **out,
		   char *err, size_t errlen)
{
	const char *url = dta_config_get(cfg, "export", "clickhouse_url");
	const char *v;
	struct export_sink *s;
	char *copy, *save = NULL, *tok;
	int rc = 0;

	*out = NULL;
	if (!url)
		return -ENOENT;
	s = calloc(1, sizeof(*s));
	copy = strdup(url);
	if (!s || !copy) {
		free(s);
		free(copy);
		return tool_fail(err, errlen, -ENOMEM, "out of memory");
	}
	/* Several URLs, comma-separated: the next one after a failure. */
	for (tok = strtok_r(copy, ", ", &save); tok && s->nurls < URLS_MAX;
	     tok = strtok_r(NULL, ", ", &save)) {
		size_t n = strlen(tok);

		while (n && tok[n - 1] == '/')
			tok[--n] = 0;
		if (strncmp(tok, "http://", 7) && strncmp(tok, "https://", 8)) {
			rc = tool_fail(err, errlen, -EINVAL,
				       "clickhouse_url %s: not "
				       "an http:// or https:// URL", tok);
			break;
		}
		s->urls[s->nurls] = strdup(tok);
		if (!s->urls[s->nurls++]) {
			rc = tool_fail(err, errlen, -ENOMEM, "out of memory");
			break;
		}
	}
	free(copy);
	if (!rc && !s->nurls)
		rc = tool_fail(err, errlen, -EINVAL, "clickhouse_url is empty");
	names(cfg, s->db, sizeof(s->db), s->prefix, sizeof(s->prefix));
	v = dta_config_get(cfg, "export", "clickhouse_user");
	snprintf(s->user, sizeof(s->user), "%s", v ? v : "default");
	v = dta_config_get(cfg, "export", "clickhouse_password_file");
	if (!rc && v)
		rc = read_password(v, s->password, sizeof(s->password), err,
				   errlen);
	if (!rc && curl_global_init(CURL_GLOBAL_DEFAULT))
		rc = tool_fail(err, errlen, -EIO,
			       "libcurl does not initialise");
	if (!rc) {
		s->curl = curl_easy_init();
		if (!s->curl)
			rc = tool_fail(err, errlen, -ENOMEM,
				       "libcurl: no handle");
	}
	if (rc) {
		ch_close(s);
		return rc;
	}
	curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(s->curl, CURLOPT_TIMEOUT_MS, 60000L);
	curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->curl, CURLOPT_USERNAME, s->user);
	curl_easy_setopt(s->curl, CURLOPT_PASSWORD, s->password);
	curl_easy_setopt(s->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	v = dta_config_get(cfg, "export", "tls_ca");
	if (v)
		curl_easy_setopt(s->curl, CURLOPT_CAINFO, v);
	v = dta_config_get(cfg, "export", "tls_cert");
	if (v)
		curl_easy_setopt(s->curl, CURLOPT_SSLCERT, v);
	v = dta_config_get(cfg, "export", "tls_key");
	if (v)
		curl_easy_setopt(s->curl, CURLOPT_SSLKEY, v);
	*out = s;
	return 0;
}

static void ch_stats(const struct export_sink *s, uint64_t *batches,
		     uint64_t *rows, uint64_t *retries)
{
	*batches = s->batches;
	*rows = s->rows;
	*retries = s->retries;
}

const struct export_sink_ops export_sink_clickhouse = {
	.name = "clickhouse",
	.open = ch_open,
	.write = ch_write,
	.stats = ch_stats,
	.close = ch_close,
	.resume = ch_resume,
};
