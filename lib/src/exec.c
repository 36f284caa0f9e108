/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The query executor (dta/exec.h): typed batched queries, the text
 * protocol and the binary frames of docs/collector-protocol.md, over
 * structures whose memory is in this process.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/append.h"
#include "dta/config.h"
#include "dta/exec.h"
#include "dta/frame.h"
#include "dta/keyincr.h"
#include "dta/wire.h"
#include "frame_internal.h"
#include "internal.h"

/* Keys per batched library call: enough to keep the pipelines of
 * dta_kw_query_batch() and friends full, small enough for the session's
 * scratch arrays. */
#define EXEC_CHUNK 256
/* Text point queries queued per session before they are answered. */
#define TEXT_QUEUE 64

/* One structure: the caller's description, copied. */
struct xs {
	struct dta_exec_structure pub; /* points into this struct */
	char name[DTA_CONFIG_NAME_MAX];
	struct dta_layout layout;
	uint32_t *values;
	struct dta_schema schema;
	char schema_text[DTA_SCHEMA_TEXT_MAX]; /* "" when none */
	struct dta_pc_codebook *cb;            /* Postcarding with values */
};

struct dta_exec {
	size_t n;
	struct xs *s[DTA_CONFIG_MAX_STRUCTURES];
};

/* The point queries dta_exec_text() holds back: one structure, one key
 * length, one set of options. */
struct text_queue {
	size_t i, n;
	int prim;
	size_t klen;
	struct dta_kw_query_opts kwo;
	unsigned bank;
	uint8_t keys[TEXT_QUEUE * DTA_KEY_MAX];
	union {
		struct {
			struct dta_kw_result res[TEXT_QUEUE];
			uint8_t data[TEXT_QUEUE * DTA_DATA_MAX];
		} kw;
		struct dta_pc_result pc[TEXT_QUEUE];
		uint64_t ki[TEXT_QUEUE];
	} u;
};

struct dta_exec_session {
	struct dta_exec *x;
	struct {
		size_t i;
		uint32_t list;
		struct dta_ap_reader *rd;
	} rd[DTA_EXEC_READERS_MAX];
	unsigned nrd;
	/* dta_exec_session_set_filter(): the structures this session sees,
	 * by the executor's index, in order; its numbers are their places
	 * here. Without a filter it sees all, numbered as added. */
	bool filtered;
	size_t nview;
	uint8_t view[DTA_CONFIG_MAX_STRUCTURES];
	struct text_queue q;
	struct dta_buf text; /* a TEXT frame's answer, before framing */
	uint8_t *apbuf;      /* a text `ap` request's entries */
	size_t apcap;
	union { /* a frame's results, a chunk at a time */
		struct dta_kw_result kw[EXEC_CHUNK];
		struct dta_pc_result pc[EXEC_CHUNK];
		uint64_t ki[EXEC_CHUNK];
	} fr;
};

/* ---- structures ---- */

DTA_API int dta_exec_create(struct dta_exec **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void xs_free(struct xs *s)
{
	if (!s)
		return;
	dta_pc_codebook_destroy(s->cb);
	free(s->values);
	free(s);
}

DTA_API void dta_exec_destroy(struct dta_exec *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		xs_free(x->s[i]);
	free(x);
}

/* A name the text protocol can carry as one word. */
static bool name_ok(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strnlen(name, DTA_CONFIG_NAME_MAX);
	if (len == 0 || len >= DTA_CONFIG_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] >= 0x7f)
			return false;
	return true;
}

/* A layout the library accepts: it round-trips through its encoding,
 * which checks the geometry. */
static bool layout_ok(const struct dta_layout *l)
{
	uint8_t buf[DTA_LAYOUT_WIRE_SIZE];
	struct dta_layout back;

	return l && dta_layout_encode(l, buf, sizeof(buf)) > 0 &&
	       dta_layout_decode(buf, sizeof(buf), &back) == 0;
}

/* The bytes a schema describes: Key-Write data or Append entries. */
static int schema_check(const struct dta_exec_structure *s)
{
	const struct dta_layout *l = s->layout;

	if (!s->schema || !s->schema->nfields)
		return 0;
	if (l->primitive == DTA_PRIM_KEY_WRITE)
		return s->schema->size == l->g.kw.data_len ? 0 : -EINVAL;
	if (l->primitive == DTA_PRIM_APPEND)
		return s->schema->size == l->g.ap.entry_size ? 0 : -EINVAL;
	return -EINVAL;
}

DTA_API int dta_exec_add(struct dta_exec *x, const struct dta_exec_structure *s)
{
	struct xs *c;
	int err;

	if (!x || !s || !name_ok(s->name) || !s->area || !layout_ok(s->layout) ||
	    (s->nvalues && !s->values) || schema_check(s))
		return -EINVAL;
	if (dta_exec_find(x, s->name) >= 0)
		return -EEXIST;
	if (x->n == DTA_CONFIG_MAX_STRUCTURES)
		return -ENOSPC;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	strcpy(c->name, s->name);
	c->layout = *s->layout;
	if (s->values && s->nvalues) {
		c->values = malloc(s->nvalues * sizeof(*c->values));
		if (!c->values) {
			err = -ENOMEM;
			goto free_c;
		}
		memcpy(c->values, s->values, s->nvalues * sizeof(*c->values));
	}
	if (s->schema && s->schema->nfields) {
		c->schema = *s->schema;
		err = dta_schema_format(&c->schema, c->schema_text,
					sizeof(c->schema_text));
		if (err < 0)
			goto free_c;
	}
	/* Built now, never later: queries then only read the executor. */
	if (c->layout.primitive == DTA_PRIM_POSTCARD && c->values) {
		err = dta_pc_codebook_create(&c->layout, c->values, s->nvalues,
					     &c->cb);
		if (err)
			goto free_c;
	}
	c->pub = (struct dta_exec_structure){
		.name = c->name,
		.layout = &c->layout,
		.area = s->area,
		.values = c->values,
		.nvalues = c->values ? s->nvalues : 0,
		.list_base = s->list_base,
		.schema = c->schema_text[0] ? &c->schema : NULL,
	};
	x->s[x->n] = c;
	return (int)x->n++;

free_c:
	xs_free(c);
	return err;
}

DTA_API size_t dta_exec_count(const struct dta_exec *x)
{
	return x ? x->n : 0;
}

DTA_API const struct dta_exec_structure *
dta_exec_structure(const struct dta_exec *x, size_t i)
{
	return x && i < x->n ? &x->s[i]->pub : NULL;
}

DTA_API int dta_exec_find(const struct dta_exec *x, const char *name)
{
	if (!x || !name)
		return -ENOENT;
	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->s[i]->name, name))
			return (int)i;
	return -ENOENT;
}

/* ---- typed queries ---- */

static int query_check(const struct dta_exec *x, size_t i, const void *keys,
		       size_t klen, size_t n, const void *res, int prim,
		       const struct xs **out)
{
	if (!x || klen == 0 || klen > DTA_KEY_MAX || n > DTA_EXEC_BATCH_MAX ||
	    (n && (!keys || !res)))
		return -EINVAL;
	if (i >= x->n)
		return -ENOENT;
	if (x->s[i]->layout.primitive != prim)
		return -DTA_E_PRIMITIVE;
	*out = x->s[i];
	return 0;
}

DTA_API int dta_exec_kw(const struct dta_exec *x, size_t i, const void *keys,
			size_t klen, size_t n,
			const struct dta_kw_query_opts *o,
			struct dta_kw_result *res, void *data)
{
	const struct xs *s;
	const uint8_t *k = keys;
	uint8_t *d = data;
	size_t dl;
	int err = query_check(x, i, keys, klen, n, res, DTA_PRIM_KEY_WRITE, &s);

	if (err)
		return err;
	if (n && !data)
		return -EINVAL;
	dl = s->layout.g.kw.data_len;
	for (size_t off = 0; off < n; off += EXEC_CHUNK) {
		size_t c = n - off < EXEC_CHUNK ? n - off : EXEC_CHUNK;

		if (dta_kw_query_batch(&s->layout, s->pub.area, k + off * klen,
				       klen, c, o, d + off * dl, c * dl,
				       res + off)) {
			/* A batch fails for all its keys at once; single
			 * queries say which error each key has. */
			for (size_t j = off; j < off + c; j++) {
				err = dta_kw_query(&s->layout, s->pub.area,
						   k + j * klen, klen, o,
						   d + j * dl, dl, &res[j]);
				if (err)
					return err;
			}
		}
		/* Only a found key's data is defined: zeros for the rest,
		 * while the chunk is still in the cache. */
		for (size_t j = off; j < off + c; j++)
			if (res[j].status != DTA_Q_FOUND)
				memset(d + j * dl, 0, dl);
	}
	return 0;
}

DTA_API int dta_exec_pc(const struct dta_exec *x, size_t i, const void *keys,
			size_t klen, size_t n, struct dta_pc_result *res)
{
	const struct xs *s;
	const uint8_t *k = keys;
	int err = query_check(x, i, keys, klen, n, res, DTA_PRIM_POSTCARD, &s);

	if (err)
		return err;
	if (!s->cb)
		return -DTA_E_NOVALUES;
	for (size_t off = 0; off < n; off += EXEC_CHUNK) {
		size_t c = n - off < EXEC_CHUNK ? n - off : EXEC_CHUNK;

		if (!dta_pc_query_batch(&s->layout, s->pub.area, s->cb,
					k + off * klen, klen, c, 0, res + off))
			continue;
		for (size_t j = off; j < off + c; j++) {
			err = dta_pc_query(&s->layout, s->pub.area, s->cb,
					   k + j * klen, klen, 0, &res[j]);
			if (err)
				return err;
		}
	}
	return 0;
}

DTA_API int dta_exec_ki(const struct dta_exec *x, size_t i, const void *keys,
			size_t klen, size_t n, unsigned bank, uint64_t *counts)
{
	const struct xs *s;
	const uint8_t *k = keys;
	int err = query_check(x, i, keys, klen, n, counts,
			      DTA_PRIM_KEY_INCREMENT, &s);

	if (err)
		return err;
	for (size_t off = 0; off < n; off += EXEC_CHUNK) {
		size_t c = n - off < EXEC_CHUNK ? n - off : EXEC_CHUNK;

		if (!dta_ki_query_batch(&s->layout, s->pub.area, k + off * klen,
					klen, c, bank, counts + off))
			continue;
		for (size_t j = off; j < off + c; j++) {
			err = dta_ki_query(&s->layout, s->pub.area, k + j * klen,
					   klen, bank, &counts[j]);
			if (err)
				return err;
		}
	}
	return 0;
}

DTA_API int dta_exec_ki_total(const struct dta_exec *x, size_t i,
			      unsigned bank, uint64_t *total)
{
	const struct xs *s;
	const uint64_t *row;
	uint64_t sum = 0;
	uint8_t k = 0;
	int err = query_check(x, i, &k, 1, 1, total, DTA_PRIM_KEY_INCREMENT,
			      &s);

	if (err)
		return err;
	if (bank >= s->layout.g.ki.banks)
		return -DTA_E_MISMATCH;
	/* docs/layouts.md: row j of bank e at ((e * rows + j) * width) * 8;
	 * the counters are updated by the NIC's fetch-and-add, read once. */
	row = (const uint64_t *)s->pub.area +
	      (uint64_t)bank * s->layout.g.ki.rows * s->layout.g.ki.width;
	for (uint64_t j = 0; j < s->layout.g.ki.width; j++)
		sum += __atomic_load_n(&row[j], __ATOMIC_RELAXED);
	*total = sum;
	return 0;
}

/* ---- sessions and Append readers ---- */

DTA_API int dta_exec_session_create(struct dta_exec *x,
				    struct dta_exec_session **out)
{
	if (!x || !out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->x = x;
	return 0;
}

DTA_API void dta_exec_session_destroy(struct dta_exec_session *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nrd; i++)
		dta_ap_reader_destroy(s->rd[i].rd);
	dta_buf_free(&s->text);
	free(s->apbuf);
	free(s);
}

DTA_API int dta_exec_session_set_filter(struct dta_exec_session *s,
					bool (*may_read)(void *ctx, size_t i),
					void *ctx)
{
	if (!s || !may_read)
		return -EINVAL;
	s->nview = 0;
	for (size_t i = 0; i < s->x->n; i++)
		if (may_read(ctx, i))
			s->view[s->nview++] = (uint8_t)i;
	s->filtered = true;
	return (int)s->nview;
}

/* Structures the session sees. */
static size_t sess_count(const struct dta_exec_session *s)
{
	return s->filtered ? s->nview : s->x->n;
}

/* The executor's index of the session's structure number @vi, or -1 when
 * it sees no such structure. */
static long sess_real(const struct dta_exec_session *s, size_t vi)
{
	if (vi >= sess_count(s))
		return -1;
	return s->filtered ? s->view[vi] : (long)vi;
}

/* The executor's index of structure @name if the session sees it, else
 * -ENOENT: one it may not see is one that does not exist. */
static long sess_find(const struct dta_exec_session *s, const char *name)
{
	int i = dta_exec_find(s->x, name);

	if (i < 0 || !s->filtered)
		return i;
	for (size_t k = 0; k < s->nview; k++)
		if (s->view[k] == i)
			return i;
	return -ENOENT;
}

/* Where an Append read failed: finding the structure and list, creating
 * the consumer, or reading (the text protocol words them differently). */
enum ap_stage { AP_ARGS, AP_FOLLOW, AP_READ };

/* Structure @i of @x if it is an Append structure with a list @list:
 * 0 and *@out, or -ENOENT, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH. */
static int ap_list(const struct dta_exec *x, size_t i, uint32_t list,
		   const struct xs **out)
{
	if (i >= x->n)
		return -ENOENT;
	if (x->s[i]->layout.primitive != DTA_PRIM_APPEND)
		return -DTA_E_PRIMITIVE;
	if (list >= x->s[i]->layout.g.ap.lists)
		return -DTA_E_MISMATCH;
	*out = x->s[i];
	return 0;
}

static int ap_read(struct dta_exec_session *s, size_t i, uint32_t list,
		   int from, void *buf, size_t max, uint64_t *lost,
		   uint64_t *position, enum ap_stage *stage)
{
	const struct xs *xs;
	struct dta_ap_reader *rd = NULL;
	uint64_t l = 0;
	int n, err;

	*stage = AP_ARGS;
	if (!s || !buf || max == 0 || max > DTA_EXEC_BATCH_MAX ||
	    (from != DTA_EXEC_AP_OLDEST && from != DTA_EXEC_AP_NOW))
		return -EINVAL;
	err = ap_list(s->x, i, list, &xs);
	if (err)
		return err;
	*stage = AP_FOLLOW;
	for (unsigned k = 0; k < s->nrd; k++)
		if (s->rd[k].i == i && s->rd[k].list == list)
			rd = s->rd[k].rd;
	if (!rd) {
		if (s->nrd == DTA_EXEC_READERS_MAX)
			return -ENOSPC;
		err = dta_ap_reader_create(&xs->layout, xs->pub.area, list,
					   from == DTA_EXEC_AP_NOW, &rd);
		if (err)
			return err;
		s->rd[s->nrd].i = i;
		s->rd[s->nrd].list = list;
		s->rd[s->nrd++].rd = rd;
	}
	*stage = AP_READ;
	n = dta_ap_read(rd, buf, max, &l);
	if (n < 0)
		return n;
	if (lost)
		*lost = l;
	if (position)
		*position = dta_ap_reader_position(rd);
	return n;
}

DTA_API int dta_exec_ap_seek(struct dta_exec_session *s, size_t i,
			     uint32_t list, uint64_t position)
{
	const struct xs *xs;
	struct dta_ap_reader *rd = NULL;
	int err;

	if (!s)
		return -EINVAL;
	err = ap_list(s->x, i, list, &xs);
	if (err)
		return err;
	err = dta_ap_reader_create_at(&xs->layout, xs->pub.area, list,
				      position, &rd);
	if (err)
		return err;
	for (unsigned k = 0; k < s->nrd; k++)
		if (s->rd[k].i == i && s->rd[k].list == list) {
			dta_ap_reader_destroy(s->rd[k].rd);
			s->rd[k].rd = rd;
			return 0;
		}
	if (s->nrd == DTA_EXEC_READERS_MAX) {
		dta_ap_reader_destroy(rd);
		return -ENOSPC;
	}
	s->rd[s->nrd].i = i;
	s->rd[s->nrd].list = list;
	s->rd[s->nrd++].rd = rd;
	return 0;
}

DTA_API int dta_exec_ap_read(struct dta_exec_session *s, size_t i,
			     uint32_t list, int from, void *buf, size_t max,
			     uint64_t *lost, uint64_t *position)
{
	enum ap_stage stage;
	long ri = s ? sess_real(s, i) : -1;

	if (s && ri < 0)
		return -ENOENT;
	return ap_read(s, (size_t)ri, list, from, buf, max, lost, position,
		       &stage);
}

DTA_API int dta_exec_ap_read_at(const struct dta_exec *x, size_t i,
				uint32_t list, uint64_t cursor, void *buf,
				size_t max, uint64_t *lost, uint64_t *next)
{
	const struct xs *xs;
	struct dta_ap_reader *rd;
	uint64_t l = 0, pos;
	int n, err;

	if (!x || !buf || max == 0 || max > DTA_EXEC_BATCH_MAX)
		return -EINVAL;
	err = ap_list(x, i, list, &xs);
	if (err)
		return err;
	if (cursor == DTA_EXEC_AP_CURSOR_OLDEST)
		err = dta_ap_reader_create(&xs->layout, xs->pub.area, list, 0,
					   &rd);
	else
		err = dta_ap_reader_create_at(&xs->layout, xs->pub.area, list,
					      cursor, &rd);
	if (err)
		return err;
	/* The reader returns entries from @cursor exactly (the head of a
	 * batch the cursor points into is skipped) and counts the ones the
	 * ring overwrote since in @l. */
	n = dta_ap_read(rd, buf, max, &l);
	pos = dta_ap_reader_position(rd);
	dta_ap_reader_destroy(rd);
	if (n < 0)
		return n;
	if (lost)
		*lost = l;
	if (next)
		*next = n == 0 && cursor != DTA_EXEC_AP_CURSOR_OLDEST ? cursor
								       : pos;
	return n;
}

/* ---- JSON output ---- */

/* dta_buf_put() with the common case (room enough) inlined: answers are
 * written a few bytes at a time. */
static inline void put(struct dta_buf *o, const void *p, size_t len)
{
	if (DTA__LIKELY(len <= o->cap - o->len && !o->oom)) {
		memcpy(o->p + o->len, p, len);
		o->len += len;
		return;
	}
	dta_buf_put(o, p, len);
}

static void put_str(struct dta_buf *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_printf(struct dta_buf *o, const char *fmt, ...)
	DTA__PRINTF(2, 3);

static void put_printf(struct dta_buf *o, const char *fmt, ...)
{
	va_list ap;
	char *d = dta__buf_room(o, 256);
	int n;

	if (!d)
		return;
	va_start(ap, fmt);
	n = vsnprintf(d, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		d = dta__buf_room(o, (size_t)n + 1);
		if (!d)
			return;
		va_start(ap, fmt);
		vsnprintf(d, o->cap - o->len, fmt, ap);
		va_end(ap);
	}
	o->len += (size_t)n;
}

/* Decimal, no locale, no allocation. */
static void put_u64(struct dta_buf *o, uint64_t v)
{
	char b[20];
	int i = 20;

	do
		b[--i] = (char)('0' + v % 10);
	while (v /= 10);
	put(o, b + i, (size_t)(20 - i));
}

static void put_hex(struct dta_buf *o, const uint8_t *p, size_t len)
{
	char *w = dta__buf_room(o, 2 * len);

	if (!w)
		return;
	dta__hex_put(w, p, len);
	o->len += 2 * len;
}

/* Bytes of the well-formed UTF-8 sequence at @p (@len bytes left), or 0
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const uint8_t *p, size_t len)
{
	size_t n;
	uint8_t lo = 0x80, hi = 0xbf;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (len < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* @len bytes at @s as a JSON string: quotes, backslashes and control
 * characters escaped, and every byte that is not part of well-formed
 * UTF-8 written as \u00XX of its value, so the answer is valid UTF-8
 * JSON whatever the bytes. */
static void put_json_str(struct dta_buf *o, const char *s, size_t len)
{
	static const char d[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0, run = 0;

	put(o, "\"", 1);
	while (i < len) {
		size_t n = utf8_seq(p + i, len - i);
		char esc[6];

		if (n && p[i] >= 0x20 && p[i] != '"' && p[i] != '\\') {
			i += n;
			run += n;
			continue;
		}
		put(o, p + i - run, run);
		run = 0;
		if (p[i] == '"' || p[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)p[i];
			put(o, esc, 2);
		} else {
			memcpy(esc, "\\u00", 4);
			esc[4] = d[p[i] >> 4];
			esc[5] = d[p[i] & 15];
			put(o, esc, 6);
		}
		i++;
	}
	put(o, p + i - run, run);
	put(o, "\"", 1);
}

static void json_error(struct dta_buf *o, const char *fmt, ...)
	DTA__PRINTF(2, 3);

static void json_error(struct dta_buf *o, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	put_str(o, "{\"error\":");
	put_json_str(o, msg, (size_t)n < sizeof(msg) ? (size_t)n
						      : sizeof(msg) - 1);
	put(o, "}", 1);
	o->errors++;
}

/* ---- text answers ---- */

DTA_API void dta_structure_json(struct dta_buf *o, const char *name,
				const struct dta_layout *l, uint32_t lists,
				uint32_t list_base, size_t nvalues,
				const char *schema_text)
{
	put_str(o, "{\"name\":");
	put_json_str(o, name, strlen(name));
	put_printf(o, ",\"primitive\":\"%s\",\"hash\":\"%s\",\"seed\":%" PRIu64
		   ",\"bytes\":%" PRIu64, dta_primitive_name(l->primitive),
		   dta_hash_family_name(l->hash_family), l->hash_seed,
		   l->data_size);
	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE:
		put_printf(o, ",\"slots\":%" PRIu64 ",\"data\":%u,\"checksum\":%u,"
			   "\"redundancy\":%u", l->g.kw.slots, l->g.kw.data_len,
			   l->g.kw.csum_bytes, l->g.kw.max_redundancy);
		break;
	case DTA_PRIM_POSTCARD:
		put_printf(o, ",\"chunks\":%" PRIu64 ",\"hops\":%u,\"slot_bytes\":%u,"
			   "\"redundancy\":%u,\"values\":%zu", l->g.pc.chunks,
			   l->g.pc.hops, l->g.pc.slot_bytes, l->g.pc.redundancy,
			   nvalues);
		break;
	case DTA_PRIM_APPEND:
		put_printf(o, ",\"lists\":%u,\"first_list\":%u,\"batches\":%u,"
			   "\"batch\":%u,\"entry\":%u", lists, list_base,
			   l->g.ap.ring_batches, l->g.ap.batch_entries,
			   l->g.ap.entry_size);
		break;
	case DTA_PRIM_KEY_INCREMENT:
		put_printf(o, ",\"width\":%" PRIu64 ",\"rows\":%u,\"banks\":%u",
			   l->g.ki.width, l->g.ki.rows, l->g.ki.banks);
		break;
	}
	if (schema_text && schema_text[0]) {
		put_str(o, ",\"schema\":");
		put_json_str(o, schema_text, strlen(schema_text));
	}
	put(o, "}", 1);
}

static void info_one(struct dta_buf *o, const struct xs *s)
{
	dta_structure_json(o, s->name, &s->layout, s->layout.g.ap.lists,
			   s->pub.list_base, s->pub.nvalues, s->schema_text);
}

static void put_status(struct dta_buf *o, int status)
{
	put_str(o, status == DTA_Q_FOUND      ? "{\"status\":\"found\""
		   : status == DTA_Q_CONFLICT ? "{\"status\":\"conflict\""
					      : "{\"status\":\"not-found\"");
}

static void put_kw(struct dta_buf *o, const struct xs *s, int err,
		   const struct dta_kw_result *res, const uint8_t *data)
{
	if (err) {
		json_error(o, "query: %s", dta_strerror(err));
		return;
	}
	put_status(o, res->status);
	if (res->status == DTA_Q_FOUND) {
		put_str(o, ",\"data\":\"");
		put_hex(o, data, s->layout.g.kw.data_len);
		put(o, "\"", 1);
	}
	put_str(o, ",\"votes\":");
	put_u64(o, res->votes);
	put_str(o, ",\"candidates\":");
	put_u64(o, res->candidates);
	put(o, "}", 1);
}

static void put_pc(struct dta_buf *o, int err, const struct dta_pc_result *res)
{
	if (err) {
		json_error(o, "query: %s", dta_strerror(err));
		return;
	}
	put_status(o, res->status);
	if (res->status == DTA_Q_FOUND) {
		put_str(o, ",\"path\":[");
		for (unsigned i = 0; i < res->path_len; i++) {
			if (i)
				put(o, ",", 1);
			put_u64(o, res->values[i]);
		}
		put(o, "]", 1);
	}
	put_str(o, ",\"valid_copies\":");
	put_u64(o, res->valid_copies);
	put(o, "}", 1);
}

static void put_ki(struct dta_buf *o, int err, uint64_t cnt)
{
	if (err) {
		json_error(o, "query: %s", dta_strerror(err));
		return;
	}
	put_str(o, "{\"count\":");
	put_u64(o, cnt);
	put(o, "}", 1);
}

/* ---- text requests ---- */

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* Split @line in place into at most @max words; the rest is ignored. */
static int split(char *line, char **w, int max)
{
	int n = 0;

	while (n < max) {
		while (is_blank(*line))
			line++;
		if (!*line)
			break;
		w[n++] = line;
		while (*line && !is_blank(*line))
			line++;
		if (!*line)
			break;
		*line++ = 0;
	}
	return n;
}

/* Hex bytes (optional 0x) into @out: their count, or -1. */
static int unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n % 2 || n / 2 > cap)
		return -1;
	return dta__hex_decode(s, n, out);
}

/* Structure @name of primitive @prim, or -1 with an error answered. */
static long find_for(const struct dta_exec_session *s, const char *name,
		     int prim, struct dta_buf *o)
{
	const struct dta_exec *x = s->x;
	long i = sess_find(s, name);

	if (i < 0) {
		json_error(o, "no structure named %s", name);
		return -1;
	}
	if (x->s[i]->layout.primitive != prim) {
		json_error(o, "%s is a %s structure", name,
			   dta_primitive_name(x->s[i]->layout.primitive));
		return -1;
	}
	return i;
}

static void text_info(const struct dta_exec_session *s, struct dta_buf *o)
{
	put_str(o, "{\"structures\":[");
	for (size_t i = 0; i < sess_count(s); i++) {
		if (i)
			put(o, ",", 1);
		info_one(o, s->x->s[sess_real(s, i)]);
	}
	put_str(o, "]}");
}

static void text_ki_total(const struct dta_exec_session *s, char **w, int nw,
			  struct dta_buf *o)
{
	const struct dta_exec *x = s->x;
	unsigned long bank;
	uint64_t total;
	char *end, num[32];
	long i;

	if (nw != 3) {
		json_error(o, "usage: kitotal NAME BANK");
		return;
	}
	i = find_for(s, w[1], DTA_PRIM_KEY_INCREMENT, o);
	if (i < 0)
		return;
	bank = strtoul(w[2], &end, 0);
	if (*end || end == w[2] || bank >= x->s[i]->layout.g.ki.banks) {
		json_error(o, "bank must be 0..%u", x->s[i]->layout.g.ki.banks - 1);
		return;
	}
	dta_exec_ki_total(x, (size_t)i, (unsigned)bank, &total);
	snprintf(num, sizeof(num), "%" PRIu64, total);
	put_str(o, "{\"total\":");
	put_str(o, num);
	put_str(o, "}");
}

static void text_ap(struct dta_exec_session *s, char **w, int nw,
		    struct dta_buf *o)
{
	const struct xs *xs;
	unsigned long list, max;
	uint64_t lost = 0, pos = 0;
	enum ap_stage stage;
	size_t es;
	char *end;
	long i;
	int n, from = nw > 4 && !strcmp(w[4], "now") ? DTA_EXEC_AP_NOW
						     : DTA_EXEC_AP_OLDEST;
	unsigned long long at = 0;
	bool seek = nw == 6 && !strcmp(w[4], "at");

	if (seek) {
		at = strtoull(w[5], &end, 10);
		if (!isdigit((unsigned char)w[5][0]) || *end)
			seek = false, nw = 0;
	}
	if (nw < 4 || (nw > 4 && !seek && strcmp(w[4], "now") &&
		       strcmp(w[4], "oldest"))) {
		json_error(o, "usage: ap NAME LIST MAX [oldest|now|at POS]");
		return;
	}
	i = find_for(s, w[1], DTA_PRIM_APPEND, o);
	if (i < 0)
		return;
	xs = s->x->s[i];
	list = strtoul(w[2], &end, 0);
	if (*end || list >= xs->layout.g.ap.lists) {
		json_error(o, "list must be 0..%u (index within %s)",
			   xs->layout.g.ap.lists - 1, w[1]);
		return;
	}
	max = strtoul(w[3], &end, 0);
	if (*end || max == 0 || max > DTA_EXEC_BATCH_MAX) {
		json_error(o, "MAX must be 1..%d", DTA_EXEC_BATCH_MAX);
		return;
	}
	es = xs->layout.g.ap.entry_size;
	if (s->apcap < max * es) {
		uint8_t *b = realloc(s->apbuf, max * es);

		if (!b) {
			json_error(o, "out of memory");
			return;
		}
		s->apbuf = b;
		s->apcap = max * es;
	}
	if (seek) {
		n = dta_exec_ap_seek(s, (size_t)i, (uint32_t)list, at);
		if (n < 0) {
			json_error(o, "cannot follow %s list %lu: %s", w[1],
				   list, dta_strerror(n));
			return;
		}
	}
	n = ap_read(s, (size_t)i, (uint32_t)list, from, s->apbuf, max, &lost,
		    &pos, &stage);
	if (n < 0) {
		if (stage == AP_READ)
			json_error(o, "read: %s", dta_strerror(n));
		else
			json_error(o, "cannot follow %s list %lu: %s", w[1],
				   list, dta_strerror(n));
		return;
	}
	put_str(o, "{\"entries\":[");
	for (int k = 0; k < n; k++) {
		put_str(o, k ? ",\"" : "\"");
		put_hex(o, s->apbuf + (size_t)k * es, es);
		put(o, "\"", 1);
	}
	put_str(o, "],\"lost\":");
	put_u64(o, lost);
	put_str(o, ",\"position\":");
	put_u64(o, pos);
	put(o, "}", 1);
}

/* A checked kw, pc or ki request. */
struct point {
	size_t i;
	int prim;
	size_t klen;
	uint8_t key[DTA_KEY_MAX];
	struct dta_kw_query_opts kwo;
	unsigned bank;
};

/* Check kw/pc/ki request @w: 0 with @p filled, -1 with an error answered
 * into @o. */
static int point_parse(const struct dta_exec_session *s, char **w, int nw,
		       struct point *p, struct dta_buf *o)
{
	const struct dta_exec *x = s->x;
	long i;
	int klen;

	if (nw < 3) {
		json_error(o, "usage: %s NAME KEYHEX ...", w[0]);
		return -1;
	}
	p->prim = w[0][0] == 'p'    ? DTA_PRIM_POSTCARD
		  : w[0][1] == 'w' ? DTA_PRIM_KEY_WRITE
				   : DTA_PRIM_KEY_INCREMENT;
	i = find_for(s, w[1], p->prim, o);
	if (i < 0)
		return -1;
	p->i = (size_t)i;
	klen = unhex(w[2], p->key, sizeof(p->key));
	if (klen <= 0) {
		json_error(o, "KEYHEX must be 1..%d bytes of hex", DTA_KEY_MAX);
		return -1;
	}
	p->klen = (size_t)klen;
	memset(&p->kwo, 0, sizeof(p->kwo));
	p->bank = 0;
	/* Options as strtoul() reads them; the query judges their range. */
	if (p->prim == DTA_PRIM_KEY_WRITE) {
		if (nw > 3)
			p->kwo.redundancy = (unsigned)strtoul(w[3], NULL, 0);
		if (nw > 4)
			p->kwo.threshold = (unsigned)strtoul(w[4], NULL, 0);
	} else if (p->prim == DTA_PRIM_KEY_INCREMENT) {
		if (nw > 3)
			p->bank = (unsigned)strtoul(w[3], NULL, 0);
	} else if (!x->s[i]->cb) {
		json_error(o, "structure %s has no 'values' set in the "
			   "configuration: paths cannot be decoded", w[1]);
		return -1;
	}
	return 0;
}

/* The queued keys of @q one at a time through the single-key queries:
 * each key gets the answer (or error) a lone request gets. */
static void queue_one_by_one(const struct dta_exec *x, struct text_queue *q,
			     struct dta_buf *o)
{
	const struct xs *s = x->s[q->i];

	for (size_t k = 0; k < q->n; k++) {
		const uint8_t *key = q->keys + k * q->klen;
		int err;

		if (q->prim == DTA_PRIM_KEY_WRITE) {
			struct dta_kw_result res;
			uint8_t data[DTA_DATA_MAX];

			err = dta_kw_query(&s->layout, s->pub.area, key, q->klen,
					   &q->kwo, data, sizeof(data), &res);
			put_kw(o, s, err, &res, data);
		} else if (q->prim == DTA_PRIM_POSTCARD) {
			struct dta_pc_result res;

			err = dta_pc_query(&s->layout, s->pub.area, s->cb, key,
					   q->klen, 0, &res);
			put_pc(o, err, &res);
		} else {
			uint64_t cnt = 0;

			err = dta_ki_query(&s->layout, s->pub.area, key, q->klen,
					   q->bank, &cnt);
			put_ki(o, err, cnt);
		}
		put(o, "\n", 1);
	}
}

DTA_API void dta_exec_text_flush(struct dta_exec_session *s,
				 struct dta_buf *o)
{
	struct text_queue *q;
	const struct xs *xs;
	int err;

	if (!s || !o || !s->q.n)
		return;
	q = &s->q;
	xs = s->x->s[q->i];
	if (q->prim == DTA_PRIM_KEY_WRITE) {
		size_t dl = xs->layout.g.kw.data_len;

		err = dta_exec_kw(s->x, q->i, q->keys, q->klen, q->n, &q->kwo,
				  q->u.kw.res, q->u.kw.data);
		for (size_t k = 0; !err && k < q->n; k++) {
			put_kw(o, xs, 0, &q->u.kw.res[k], q->u.kw.data + k * dl);
			put(o, "\n", 1);
		}
	} else if (q->prim == DTA_PRIM_POSTCARD) {
		err = dta_exec_pc(s->x, q->i, q->keys, q->klen, q->n, q->u.pc);
		for (size_t k = 0; !err && k < q->n; k++) {
			put_pc(o, 0, &q->u.pc[k]);
			put(o, "\n", 1);
		}
	} else {
		err = dta_exec_ki(s->x, q->i, q->keys, q->klen, q->n, q->bank,
				  q->u.ki);
		for (size_t k = 0; !err && k < q->n; k++) {
			put_ki(o, 0, q->u.ki[k]);
			put(o, "\n", 1);
		}
	}
	if (err)
		queue_one_by_one(s->x, q, o);
	q->n = 0;
}

/* Can @p join the queries queued in @q? */
static bool queue_fits(const struct text_queue *q, const struct point *p)
{
	return q->n && q->n < TEXT_QUEUE && q->i == p->i &&
	       q->prim == p->prim && q->klen == p->klen &&
	       (p->prim != DTA_PRIM_KEY_WRITE ||
		(q->kwo.redundancy == p->kwo.redundancy &&
		 q->kwo.threshold == p->kwo.threshold)) &&
	       (p->prim != DTA_PRIM_KEY_INCREMENT || q->bank == p->bank);
}

DTA_API int dta_exec_text(struct dta_exec_session *s, const char *line,
			  size_t len, struct dta_buf *o)
{
	char copy[DTA_EXEC_REQUEST_MAX + 1], *w[8];
	struct point p;
	int nw;

	if (!s || !o)
		return 1;
	if (!line)
		len = 0;
	/* Requests answered at once, and those that are not ours, come after
	 * the queued ones: every path below but queuing flushes first. */
	if (len > DTA_EXEC_REQUEST_MAX) {
		dta_exec_text_flush(s, o);
		json_error(o, "request too long (the limit is %d bytes)",
			   DTA_EXEC_REQUEST_MAX);
		put(o, "\n", 1);
		return 0;
	}
	if (len && memchr(line, 0, len)) {
		dta_exec_text_flush(s, o);
		json_error(o, "request contains a NUL byte");
		put(o, "\n", 1);
		return 0;
	}
	if (len)
		memcpy(copy, line, len);
	copy[len] = 0;
	nw = split(copy, w, 8);
	if (nw == 0 || (strcmp(w[0], "info") && strcmp(w[0], "ap") &&
			strcmp(w[0], "kw") && strcmp(w[0], "pc") &&
			strcmp(w[0], "ki") && strcmp(w[0], "kitotal"))) {
		dta_exec_text_flush(s, o);
		return 1;
	}
	if (!strcmp(w[0], "kitotal")) {
		dta_exec_text_flush(s, o);
		text_ki_total(s, w, nw, o);
		put(o, "\n", 1);
		return 0;
	}
	if (w[0][0] == 'i' || w[0][0] == 'a') {
		dta_exec_text_flush(s, o);
		if (w[0][0] == 'i')
			text_info(s, o);
		else
			text_ap(s, w, nw, o);
		put(o, "\n", 1);
		return 0;
	}
	/* A point query's errors are answered at once, in order, too; the
	 * parse writes only when it fails, so flush before it. */
	if (s->q.n) {
		struct dta_buf tmp = { 0 };

		if (point_parse(s, w, nw, &p, &tmp)) {
			dta_exec_text_flush(s, o);
			put(o, tmp.p, tmp.len);
			o->oom |= tmp.oom;
			o->errors += tmp.errors;
			dta_buf_free(&tmp);
			put(o, "\n", 1);
			return 0;
		}
		dta_buf_free(&tmp);
	} else if (point_parse(s, w, nw, &p, o)) {
		put(o, "\n", 1);
		return 0;
	}
	if (!queue_fits(&s->q, &p)) {
		dta_exec_text_flush(s, o);
		s->q.i = p.i;
		s->q.prim = p.prim;
		s->q.klen = p.klen;
		s->q.kwo = p.kwo;
		s->q.bank = p.bank;
	}
	memcpy(s->q.keys + s->q.n * s->q.klen, p.key, p.klen);
	s->q.n++;
	return 0;
}

/* ---- binary frames ---- */

static void frame_error(struct dta_buf *o, const void *req, int err,
			const char *fmt, ...) DTA__PRINTF(4, 5);

static void frame_error(struct dta_buf *o, const void *req, int err,
			const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dta_frame_answer_error(o, req, err, msg);
}

/* A TEXT request: dta_exec_text()'s answer, newline dropped, in a frame. */
static int frame_text(struct dta_exec_session *s, const void *req,
		      const struct dta__frame_request *r, struct dta_buf *o)
{
	struct dta_buf *t = &s->text;
	int rc;

	if (r->n) {
		frame_error(o, req, EINVAL, "a TEXT request has n 0, not %" PRIu32,
			    r->n);
		return 0;
	}
	t->len = 0;
	t->oom = false;
	t->errors = 0;
	dta_exec_text_flush(s, t); /* nothing is queued in binary mode */
	rc = dta_exec_text(s, (const char *)r->payload, r->payload_len, t);
	dta_exec_text_flush(s, t);
	if (rc == 1)
		return 1;
	if (t->oom) {
		frame_error(o, req, ENOMEM, "out of memory");
		return 0;
	}
	if (t->len && t->p[t->len - 1] == '\n')
		t->len--;
	if (t->len > DTA_FRAME_MAX - DTA_FRAME_ANS_HDR) {
		frame_error(o, req, EMSGSIZE,
			    "answer of %zu bytes exceeds the frame limit "
			    "(%u bytes)", t->len, DTA_FRAME_MAX);
		return 0;
	}
	dta_frame_answer_text(o, req, t->p, t->len);
	o->errors += t->errors;
	return 0;
}

static int op_prim(unsigned op)
{
	switch (op) {
	case DTA_FRAME_KW:
		return DTA_PRIM_KEY_WRITE;
	case DTA_FRAME_PC:
		return DTA_PRIM_POSTCARD;
	case DTA_FRAME_KI:
		return DTA_PRIM_KEY_INCREMENT;
	default:
		return DTA_PRIM_APPEND;
	}
}

/* Bytes of the answer to @r on @s after its 24-byte header. */
static uint64_t answer_size(const struct xs *s, const struct dta__frame_request *r)
{
	const struct dta_layout *l = &s->layout;
	uint64_t n = r->n;

	switch (r->op) {
	case DTA_FRAME_KW:
		return n * (sizeof(struct dta_frame_kw) + l->g.kw.data_len);
	case DTA_FRAME_PC:
		return n * (sizeof(struct dta_frame_pc) + 4u * l->g.pc.hops);
	case DTA_FRAME_KI:
		return n * 8;
	default:
		return sizeof(struct dta_frame_ap) + n * l->g.ap.entry_size;
	}
}

/* The results of a KW, PC or KI request, a chunk at a time, into @w
 * (room for answer_size() bytes). Return 0 or the query's error. */
static int frame_points(struct dta_exec_session *s, size_t i,
			const struct dta__frame_request *r, uint8_t *w)
{
	const struct xs *xs = s->x->s[i];
	size_t n = r->n, klen = r->klen;
	const uint8_t *keys = r->payload;
	int err = 0;

	if (r->op == DTA_FRAME_KW) {
		struct dta_kw_query_opts o = { r->redundancy, r->threshold };
		size_t dl = xs->layout.g.kw.data_len;
		uint8_t *data = w + n * sizeof(struct dta_frame_kw);

		for (size_t off = 0; !err && off < n; off += EXEC_CHUNK) {
			size_t c = n - off < EXEC_CHUNK ? n - off : EXEC_CHUNK;

			err = dta_exec_kw(s->x, i, keys + off * klen, klen, c, &o,
					  s->fr.kw, data + off * dl);
			for (size_t k = 0; !err && k < c; k++) {
				struct dta_frame_kw *f =
					(struct dta_frame_kw *)w + off + k;

				f->status = (uint8_t)s->fr.kw[k].status;
				f->votes = (uint8_t)s->fr.kw[k].votes;
				f->candidates = (uint8_t)s->fr.kw[k].candidates;
				f->zero = 0;
			}
		}
	} else if (r->op == DTA_FRAME_PC) {
		unsigned hops = xs->layout.g.pc.hops;
		uint8_t *vals = w + n * sizeof(struct dta_frame_pc);

		for (size_t off = 0; !err && off < n; off += EXEC_CHUNK) {
			size_t c = n - off < EXEC_CHUNK ? n - off : EXEC_CHUNK;

			err = dta_exec_pc(s->x, i, keys + off * klen, klen, c,
					  s->fr.pc);
			for (size_t k = 0; !err && k < c; k++) {
				const struct dta_pc_result *pr = &s->fr.pc[k];
				struct dta_frame_pc *f =
					(struct dta_frame_pc *)w + off + k;
				uint8_t *v = vals + (off + k) * 4u * hops;
				unsigned len = pr->status == DTA_Q_FOUND
						       ? pr->path_len : 0;

				f->status = (uint8_t)pr->status;
				f->valid_copies = (uint8_t)pr->valid_copies;
				f->path_len = (uint8_t)len;
				f->zero = 0;
				for (unsigned h = 0; h < hops; h++)
					dta__put_be32(v + 4 * h,
						      h < len ? pr->values[h] : 0);
			}
		}
	} else {
		for (size_t off = 0; !err && off < n; off += EXEC_CHUNK) {
			size_t c = n - off < EXEC_CHUNK ? n - off : EXEC_CHUNK;

			err = dta_exec_ki(s->x, i, keys + off * klen, klen, c,
					  r->arg, s->fr.ki);
			for (size_t k = 0; !err && k < c; k++)
				dta__put_be64(w + (off + k) * 8, s->fr.ki[k]);
		}
	}
	return err;
}

DTA_API int dta_exec_frame(struct dta_exec_session *s, const void *req,
			   size_t len, struct dta_buf *o)
{
	struct dta__frame_request r;
	const struct xs *xs;
	uint64_t size;
	uint32_t rsize;
	size_t start;
	uint8_t *w;
	long ri;
	int err;

	if (!s || !o || dta__frame_request_parse(req, len, &r))
		return -DTA_E_MALFORMED;
	if (r.flags) {
		frame_error(o, req, EINVAL, "flags must be 0, not %u", r.flags);
		return 0;
	}
	if (r.op == DTA_FRAME_TEXT)
		return frame_text(s, req, &r, o);
	ri = sess_real(s, r.structure);
	if (ri < 0) {
		frame_error(o, req, ENOENT, "no structure %u (there are %zu)",
			    r.structure, sess_count(s));
		return 0;
	}
	xs = s->x->s[ri];
	if (xs->layout.primitive != op_prim(r.op)) {
		frame_error(o, req, DTA_E_PRIMITIVE,
			    "structure %u (%s) holds %s, not %s", r.structure,
			    xs->name, dta_primitive_name(xs->layout.primitive),
			    dta_primitive_name(op_prim(r.op)));
		return 0;
	}
	if (r.n == 0 || r.n > DTA_EXEC_BATCH_MAX) {
		frame_error(o, req, EINVAL, "n must be 1..%d, not %" PRIu32,
			    DTA_EXEC_BATCH_MAX, r.n);
		return 0;
	}
	if (r.op == DTA_FRAME_AP) {
		if (r.payload_len != (r.from == DTA_EXEC_AP_AT ? 8u : 0u) ||
		    r.arg >= xs->layout.g.ap.lists ||
		    (r.from != DTA_EXEC_AP_OLDEST && r.from != DTA_EXEC_AP_NOW &&
		     r.from != DTA_EXEC_AP_AT)) {
			frame_error(o, req, EINVAL,
				    "an AP request has a list 0..%u and from 0 "
				    "(oldest) or 1 (now) without payload, or 2 "
				    "(at) with an 8-byte position",
				    xs->layout.g.ap.lists - 1);
			return 0;
		}
	} else if (r.klen == 0 || r.klen > DTA_KEY_MAX) {
		frame_error(o, req, EINVAL, "key length must be 1..%d, not %u",
			    DTA_KEY_MAX, r.klen);
		return 0;
	} else if (r.payload_len != (uint64_t)r.n * r.klen) {
		frame_error(o, req, EINVAL,
			    "payload of %zu bytes, not n * klen = %" PRIu64,
			    r.payload_len, (uint64_t)r.n * r.klen);
		return 0;
	}
	size = answer_size(xs, &r);
	if (size > DTA_FRAME_MAX - DTA_FRAME_ANS_HDR) {
		frame_error(o, req, EMSGSIZE,
			    "answer of %" PRIu64 " bytes exceeds the frame "
			    "limit (%u bytes): ask for fewer",
			    size + DTA_FRAME_ANS_HDR, DTA_FRAME_MAX);
		return 0;
	}
	rsize = r.op == DTA_FRAME_KW   ? xs->layout.g.kw.data_len
		: r.op == DTA_FRAME_PC ? xs->layout.g.pc.hops
		: r.op == DTA_FRAME_KI ? 8
				       : xs->layout.g.ap.entry_size;
	start = dta__frame_answer_begin(o, req, r.op == DTA_FRAME_AP ? 0 : r.n,
					0, rsize);
	w = (uint8_t *)dta__buf_room(o, (size_t)size);
	if (!w)
		return 0; /* @o->oom tells the caller */
	if (r.op == DTA_FRAME_AP) {
		uint64_t lost = 0, pos = 0;
		enum ap_stage stage;
		struct dta_frame_ap *fa = (struct dta_frame_ap *)w;

		err = 0;
		if (r.from == DTA_EXEC_AP_AT)
			err = dta_exec_ap_seek(s, (size_t)ri, r.arg,
					       dta__be64(r.payload));
		/* (after a seek the consumer exists: from is not looked at) */
		if (!err)
			err = ap_read(s, (size_t)ri, r.arg,
				      r.from == DTA_EXEC_AP_AT ? DTA_EXEC_AP_OLDEST
							       : (int)r.from,
				      w + sizeof(*fa), r.n, &lost, &pos, &stage);
		if (err >= 0) {
			dta__put_be64(fa->lost, lost);
			dta__put_be64(fa->position, pos);
			dta__put_be32((uint8_t *)o->p + start +
					      offsetof(struct dta_frame_hdr, n),
				      (uint32_t)err);
			o->len += sizeof(*fa) + (size_t)err * rsize;
			dta__frame_answer_end(o, start);
			return 0;
		}
	} else {
		err = frame_points(s, (size_t)ri, &r, w);
		if (!err) {
			o->len += (size_t)size;
			dta__frame_answer_end(o, start);
			return 0;
		}
	}
	o->len = start;
	frame_error(o, req, err, "structure %u (%s): %s", r.structure, xs->name,
		    dta_strerror(err));
	return 0;
}
