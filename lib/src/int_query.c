/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The INT questions over the query client (dta/int_query.h): each role's
 * structure is asked with the client's batched calls, and the answers are
 * read with the INT mapping's own decoders (dta_int_hop_decode(),
 * dta_int_event_decode()), so they mean what the translator wrote
 * (docs/int.md "Roles").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/int_query.h"
#include "dta/exec.h"
#include "dta/keywrite.h"
#include "dta/postcard.h"
#include "internal.h"

#define FLOW4_LEN 13 /* docs/int.md "Keys" */
#define FLOW6_LEN 37

/* ---- roles ---- */

static void role_name(const struct dta_config *cfg, int idx, char *out)
{
	const struct dta_config_structure *cs =
		idx == DTA_INT_MAP_NONE ? NULL
					: dta_config_structure(cfg, (size_t)idx);

	out[0] = 0;
	if (cs)
		snprintf(out, DTA_CONFIG_NAME_MAX, "%s", cs->name);
}

DTA_API int dta_int_roles_config(const struct dta_config *cfg,
				 struct dta_int_roles *r)
{
	struct dta_int_map m;
	int rc;

	if (!cfg || !r || r->sz < sizeof(*r))
		return -EINVAL;
	rc = dta_config_int_map(cfg, &m, NULL);
	if (rc < 0)
		return rc;
	memset(r, 0, sizeof(*r));
	r->sz = sizeof(*r);
	role_name(cfg, m.path_kw, r->path_kw);
	role_name(cfg, m.path_pc, r->path_pc);
	role_name(cfg, m.hop_kw, r->hop_kw);
	role_name(cfg, m.events_ap, r->events_ap);
	role_name(cfg, m.flow_ki, r->flow_ki);
	role_name(cfg, m.queue_ki, r->queue_ki);
	r->events_by = m.events_by;
	r->redundancy = m.redundancy;
	return rc;
}

/*
 * The structure of role @name ([int] key @key), checked to have primitive
 * @prim: its client description, or NULL with *@rc set and the client's
 * message saying why.
 */
static const struct dta_client_structure *
role(struct dta_client *c, const char *name, const char *key, int prim,
     int *rc)
{
	const struct dta_client_structure *st;
	int i;

	if (!name[0]) {
		*rc = dta__client_fail(c, -ENOENT, "[int] has no %s structure "
				       "(%s = NAME)", key, key);
		return NULL;
	}
	i = dta_client_find(c, name);
	if (i < 0) {
		*rc = dta__client_fail(c, -ENOENT, "%s: no such structure here "
				       "(the [int] %s structure)", name, key);
		return NULL;
	}
	st = dta_client_structure(c, (size_t)i);
	if (st->layout.primitive != prim) {
		*rc = dta__client_fail(c, -DTA_E_PRIMITIVE, "%s: a %s structure, "
				       "but [int] %s wants %s", name,
				       dta_primitive_name(st->layout.primitive),
				       key, dta_primitive_name(prim));
		return NULL;
	}
	return st;
}

static bool roles_ok(const struct dta_int_roles *r)
{
	return r && r->sz >= sizeof(*r);
}

static bool flow_len_ok(size_t klen)
{
	return klen == FLOW4_LEN || klen == FLOW6_LEN;
}

static int bad_args(struct dta_client *c, const char *why)
{
	if (!c)
		return -EINVAL;
	return dta__client_fail(c, -EINVAL, "%s", why);
}

/* Trailing DTA_INT_NONE of @p: padding after the last hop. */
static void trim(struct dta_int_path *p)
{
	while (p->n && p->sw[p->n - 1] == DTA_INT_NONE)
		p->n--;
}

/* ---- paths ---- */

static int paths_kw(struct dta_client *c, const struct dta_int_roles *r,
		    const void *flows, size_t klen, size_t n,
		    struct dta_int_path *out)
{
	const struct dta_client_structure *st;
	struct dta_kw_query_opts o = { .redundancy = r->redundancy };
	struct dta_kw_result *res = NULL;
	uint8_t *data = NULL;
	size_t dl;
	int rc = 0;

	st = role(c, r->path_kw, "path", DTA_PRIM_KEY_WRITE, &rc);
	if (!st)
		return rc;
	dl = st->layout.g.kw.data_len;
	if (dl % 4)
		return dta__client_fail(c, -DTA_E_MISMATCH, "%s: data of %zu "
					"bytes, not whole switch ids", st->name,
					dl);
	res = calloc(n ? n : 1, sizeof(*res));
	data = calloc(n ? n : 1, dl);
	if (!res || !data) {
		rc = dta__client_fail(c, -ENOMEM, "out of memory");
		goto out;
	}
	rc = dta_client_kw_get(c, st->name, flows, klen, n, &o, res, data);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct dta_int_path *p = &out[i];
		const uint8_t *d = data + i * dl;

		memset(p, 0, sizeof(*p));
		p->status = res[i].status;
		p->primitive = DTA_PRIM_KEY_WRITE;
		p->votes = res[i].votes;
		p->candidates = res[i].candidates;
		if (res[i].status != DTA_Q_FOUND)
			continue;
		for (size_t j = 0; j + 4 <= dl && p->n < DTA_INT_PATH_MAX; j += 4)
			p->sw[p->n++] = dta__be32(d + j);
		trim(p);
	}
out:
	free(res);
	free(data);
	return rc;
}

static int paths_pc(struct dta_client *c, const struct dta_int_roles *r,
		    const void *flows, size_t klen, size_t n,
		    struct dta_int_path *out)
{
	const struct dta_client_structure *st;
	struct dta_pc_result *res;
	int rc = 0;

	st = role(c, r->path_pc, "path", DTA_PRIM_POSTCARD, &rc);
	if (!st)
		return rc;
	res = calloc(n ? n : 1, sizeof(*res));
	if (!res)
		return dta__client_fail(c, -ENOMEM, "out of memory");
	rc = dta_client_pc_get(c, st->name, flows, klen, n, res);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct dta_int_path *p = &out[i];

		memset(p, 0, sizeof(*p));
		p->status = res[i].status;
		p->primitive = DTA_PRIM_POSTCARD;
		p->valid_copies = res[i].valid_copies;
		if (res[i].status != DTA_Q_FOUND)
			continue;
		for (unsigned j = 0; j < res[i].path_len && j < DTA_MAX_HOPS &&
				     p->n < DTA_INT_PATH_MAX; j++)
			p->sw[p->n++] = res[i].values[j];
		trim(p);
	}
	free(res);
	return rc;
}

DTA_API int dta_int_paths(struct dta_client *c, const struct dta_int_roles *r,
			  unsigned which, const void *flows, size_t klen,
			  size_t n, struct dta_int_path *out)
{
	if (!c || !roles_ok(r) || (n && (!flows || !out)))
		return bad_args(c, "dta_int_paths: NULL argument or roles of "
				"another size");
	if (!flow_len_ok(klen))
		return bad_args(c, "a flow key is 13 (IPv4) or 37 (IPv6) bytes");
	if (which == DTA_INT_PATH_AUTO)
		which = r->path_kw[0] ? DTA_INT_PATH_KW : DTA_INT_PATH_PC;
	if (which == DTA_INT_PATH_KW)
		return paths_kw(c, r, flows, klen, n, out);
	if (which == DTA_INT_PATH_PC)
		return paths_pc(c, r, flows, klen, n, out);
	return bad_args(c, "dta_int_paths: unknown path role");
}

/* ---- hop records ---- */

DTA_API int dta_int_hop_records(struct dta_client *c,
				const struct dta_int_roles *r,
				const void *flows, size_t klen,
				const uint32_t *sw, size_t n,
				struct dta_int_hop_record *out)
{
	const struct dta_client_structure *st;
	struct dta_kw_query_opts o;
	struct dta_kw_result *res = NULL;
	uint8_t *keys = NULL, *data = NULL;
	size_t *at = NULL, nk = 0, dl, kl = klen + 4;
	int rc = 0;

	if (!c || !roles_ok(r) || (n && (!flows || !sw || !out)))
		return bad_args(c, "dta_int_hop_records: NULL argument or roles "
				"of another size");
	if (!flow_len_ok(klen))
		return bad_args(c, "a flow key is 13 (IPv4) or 37 (IPv6) bytes");
	st = role(c, r->hop_kw, "hops", DTA_PRIM_KEY_WRITE, &rc);
	if (!st)
		return rc;
	dl = st->layout.g.kw.data_len;
	if (dl < DTA_INT_HOP_DATA_LEN)
		return dta__client_fail(c, -DTA_E_MISMATCH, "%s: data of %zu "
					"bytes, shorter than a hop record (%d)",
					st->name, dl, DTA_INT_HOP_DATA_LEN);
	keys = malloc((n ? n : 1) * kl);
	at = malloc((n ? n : 1) * sizeof(*at));
	res = calloc(n ? n : 1, sizeof(*res));
	data = calloc(n ? n : 1, dl);
	if (!keys || !at || !res || !data) {
		rc = dta__client_fail(c, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].switch_id = sw[i];
		out[i].status = DTA_INT_NO_SWITCH;
		if (sw[i] == DTA_INT_NONE)
			continue;
		memcpy(keys + nk * kl, (const uint8_t *)flows + i * klen, klen);
		dta__put_be32(keys + nk * kl + klen, sw[i]);
		at[nk++] = i;
	}
	memset(&o, 0, sizeof(o));
	o.redundancy = r->redundancy;
	rc = nk ? dta_client_kw_get(c, st->name, keys, kl, nk, &o, res, data)
		: 0;
	for (size_t j = 0; rc == 0 && j < nk; j++) {
		struct dta_int_hop_record *h = &out[at[j]];
		const uint8_t *d = data + j * dl;

		h->status = res[j].status;
		h->votes = res[j].votes;
		h->candidates = res[j].candidates;
		if (res[j].status != DTA_Q_FOUND)
			continue;
		dta_int_hop_decode(d, &h->hop);
		h->clean = true;
		for (size_t b = DTA_INT_HOP_DATA_LEN; b < dl; b++)
			h->clean &= d[b] == 0;
	}
out:
	free(keys);
	free(at);
	free(res);
	free(data);
	return rc;
}

/* ---- counts ---- */

DTA_API int dta_int_flow_counts(struct dta_client *c,
				const struct dta_int_roles *r,
				const void *flows, size_t klen, size_t n,
				uint64_t *counts)
{
	const struct dta_client_structure *st;
	int rc = 0;

	if (!c || !roles_ok(r) || (n && (!flows || !counts)))
		return bad_args(c, "dta_int_flow_counts: NULL argument or roles "
				"of another size");
	if (!flow_len_ok(klen))
		return bad_args(c, "a flow key is 13 (IPv4) or 37 (IPv6) bytes");
	st = role(c, r->flow_ki, "flow_counts", DTA_PRIM_KEY_INCREMENT, &rc);
	if (!st)
		return rc;
	return n ? dta_client_ki_get(c, st->name, flows, klen, n, 0, counts)
		 : 0;
}

DTA_API int dta_int_queue_counts(struct dta_client *c,
				 const struct dta_int_roles *r,
				 const uint32_t *sw, const uint8_t *queue,
				 size_t n, uint64_t *counts)
{
	const struct dta_client_structure *st;
	uint8_t *keys;
	int rc = 0;

	if (!c || !roles_ok(r) || (n && (!sw || !queue || !counts)))
		return bad_args(c, "dta_int_queue_counts: NULL argument or "
				"roles of another size");
	st = role(c, r->queue_ki, "queue_counts", DTA_PRIM_KEY_INCREMENT, &rc);
	if (!st)
		return rc;
	if (!n)
		return 0;
	keys = malloc(n * 5);
	if (!keys)
		return dta__client_fail(c, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		dta__put_be32(keys + 5 * i, sw[i]);
		keys[5 * i + 4] = queue[i];
	}
	rc = dta_client_ki_get(c, st->name, keys, 5, n, 0, counts);
	free(keys);
	return rc;
}

/* ---- events ---- */

struct dta_int_events {
	struct dta_client *c;
	char name[DTA_CONFIG_NAME_MAX];
	struct dta_int_event_filter f;
	int from;
	/* The lists read: in each of @shares shares of @lps lists, lists
	 * @jf .. @jf + @w - 1; @cur (0..@n-1) is being read. */
	uint32_t jf, w, lps, shares, n, cur;
	uint32_t first, last;      /* the lowest and highest list read */
	uint32_t idle;             /* lists in a row with nothing new */
	struct dta_client_cursor **cursor; /* [n], lazily */
	uint32_t missing, pass_missing; /* collectors not answering */
	uint64_t read, lost;
	uint8_t *raw;
	size_t rawcap; /* entries */
};

DTA_API void dta_int_event_filter_init(struct dta_int_event_filter *f)
{
	if (!f)
		return;
	memset(f, 0, sizeof(*f));
	f->sz = sizeof(*f);
	f->switch_id = f->flow_hash = f->reason = f->queue = DTA_INT_ANY;
	f->time_to = DTA_INT_ANY;
}

static bool match(const struct dta_int_event_filter *f,
		  const struct dta_int_event *e)
{
	return (!f->flags || (e->flags & f->flags)) &&
	       (f->switch_id == DTA_INT_ANY || e->switch_id == f->switch_id) &&
	       (f->flow_hash == DTA_INT_ANY || e->flow_hash == f->flow_hash) &&
	       (f->reason == DTA_INT_ANY || e->drop_reason == f->reason) &&
	       (f->queue == DTA_INT_ANY || e->queue_id == f->queue) &&
	       e->time >= f->time_from && e->time <= f->time_to;
}

DTA_API int dta_int_events_open(struct dta_client *c,
				const struct dta_int_roles *r,
				const struct dta_int_event_filter *f, int from,
				struct dta_int_events **out)
{
	const struct dta_client_structure *st;
	struct dta_int_events *e;
	uint32_t lists;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!c || !roles_ok(r) || !out || (f && f->sz < sizeof(*f)))
		return bad_args(c, "dta_int_events_open: NULL argument, or roles "
				"or filter of another size");
	if (from != DTA_EXEC_AP_OLDEST && from != DTA_EXEC_AP_NOW)
		return bad_args(c, "dta_int_events_open: from is "
				"DTA_EXEC_AP_OLDEST or DTA_EXEC_AP_NOW");
	if (r->events_by > DTA_INT_EVENTS_REASON)
		return bad_args(c, "dta_int_events_open: unknown events_by");
	st = role(c, r->events_ap, "events", DTA_PRIM_APPEND, &rc);
	if (!st)
		return rc;
	if (st->layout.g.ap.entry_size != DTA_INT_EVENT_SIZE)
		return dta__client_fail(c, -DTA_E_MISMATCH, "%s: entries of %u "
					"bytes, not INT events (%d)", st->name,
					(unsigned)st->layout.g.ap.entry_size,
					DTA_INT_EVENT_SIZE);
	e = calloc(1, sizeof(*e));
	if (!e)
		return dta__client_fail(c, -ENOMEM, "out of memory");
	e->c = c;
	snprintf(e->name, sizeof(e->name), "%s", st->name);
	if (f)
		e->f = *f;
	else
		dta_int_event_filter_init(&e->f);
	e->f.sz = sizeof(e->f);
	e->from = from;
	/* The lists events_by can have put a matching event in, in every
	 * share: a fleet's collectors each hold theirs. */
	lists = st->layout.g.ap.lists;
	e->w = lists;
	if (r->events_by == DTA_INT_EVENTS_ONE) {
		e->w = 1;
	} else if (r->events_by == DTA_INT_EVENTS_SWITCH &&
		   e->f.switch_id != DTA_INT_ANY) {
		e->jf = (uint32_t)(e->f.switch_id % lists);
		e->w = 1;
	} else if (r->events_by == DTA_INT_EVENTS_REASON &&
		   e->f.reason != DTA_INT_ANY) {
		e->jf = (uint32_t)(e->f.reason % lists);
		e->w = 1;
	}
	e->lps = lists;
	e->shares = st->shares ? st->shares : 1;
	e->n = e->shares * e->w;
	e->first = e->jf;
	e->last = (e->shares - 1) * lists + e->jf + e->w - 1;
	e->cursor = calloc(e->n, sizeof(*e->cursor));
	if (!e->cursor) {
		free(e);
		return dta__client_fail(c, -ENOMEM, "out of memory");
	}
	*out = e;
	return 0;
}

DTA_API void dta_int_events_lists(const struct dta_int_events *e,
				  uint32_t *first, uint32_t *last)
{
	if (first)
		*first = e ? e->first : 0;
	if (last)
		*last = e ? e->last : 0;
}

/* The next list (wrapping to the first). */
static void next_list(struct dta_int_events *e)
{
	e->cur = e->cur + 1 == e->n ? 0 : e->cur + 1;
}

/* The client's list number of list @t of the reader. */
static uint32_t list_of(const struct dta_int_events *e, uint32_t t)
{
	return t / e->w * e->lps + e->jf + t % e->w;
}

DTA_API unsigned dta_int_events_partial(const struct dta_int_events *e,
					uint32_t *missing)
{
	uint32_t m = e ? e->missing | e->pass_missing : 0;
	unsigned n = 0;

	if (missing)
		*missing = m;
	for (; m; m &= m - 1)
		n++;
	return n;
}

DTA_API long dta_int_events_read(struct dta_int_events *e,
				 struct dta_int_event *ev, uint32_t *list,
				 size_t max)
{
	struct dta_client_cursor **cur;
	long got = 0;

	if (!e || !ev || !max)
		return -EINVAL;
	if (max > e->rawcap) {
		uint8_t *p = realloc(e->raw, max * DTA_INT_EVENT_SIZE);

		if (!p)
			return dta__client_fail(e->c, -ENOMEM, "out of memory");
		e->raw = p;
		e->rawcap = max;
	}
	while (got == 0) {
		uint64_t lost = 0;
		uint32_t m;
		long n = 0;
		int rc = 0;

		cur = &e->cursor[e->cur];
		if (!*cur)
			rc = dta_client_ap_open(e->c, e->name,
						list_of(e, e->cur), e->from, cur);
		if (!rc) {
			n = dta_client_ap_read(*cur, e->raw, max, &lost);
			rc = n < 0 ? (int)n : 0;
		}
		if (rc == -DTA_E_UNAVAILABLE) {
			/* Its collector does not answer: the others are
			 * read, the answer is partial. */
			dta_client_partial(e->c, &m);
			e->pass_missing |= m;
			n = 0;
		} else if (rc) {
			return rc;
		}
		e->lost += lost;
		if (n == 0) {
			next_list(e);
			if (++e->idle >= e->n) {
				/* A whole pass found nothing new. */
				e->idle = 0;
				e->cur = 0;
				e->missing = e->pass_missing;
				e->pass_missing = 0;
				return 0;
			}
			continue;
		}
		e->idle = 0;
		e->read += (uint64_t)n;
		for (long i = 0; i < n; i++) {
			struct dta_int_event x;

			dta_int_event_decode(e->raw + (size_t)i *
							     DTA_INT_EVENT_SIZE,
					     &x);
			if (!match(&e->f, &x))
				continue;
			if (list)
				list[got] = list_of(e, e->cur);
			ev[got++] = x;
		}
	}
	return got;
}

DTA_API void dta_int_events_counts(const struct dta_int_events *e,
				   uint64_t *read, uint64_t *lost)
{
	if (read)
		*read = e ? e->read : 0;
	if (lost)
		*lost = e ? e->lost : 0;
}

DTA_API void dta_int_events_close(struct dta_int_events *e)
{
	if (!e)
		return;
	for (uint32_t i = 0; i < e->n; i++)
		dta_client_ap_close(e->cursor[i]);
	free(e->cursor);
	free(e->raw);
	free(e);
}
