/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz harness for the binary frames of the query executor
 * (dta_exec_frame(), what dta-collector runs for every frame in binary
 * mode) against the fixture's structures, one session across the frames.
 *
 * Input: records of [mode (1)][length (2, big-endian)][bytes]; the bytes
 * are one request frame, whose length field is first set to the record's
 * length when mode bit 0 is set (so most records parse). Checked:
 *  - a frame that cannot be parsed returns -DTA_E_MALFORMED and appends
 *    nothing; a TEXT request that is not the executor's returns 1 and
 *    appends nothing; anything else appends exactly one answer frame,
 *    which parses with every length checked and echoes op, structure, id;
 *  - an error answer has a positive status and a non-empty UTF-8 message,
 *    and comes only for a request a precondition rejects or a key the
 *    single-key query rejects;
 *  - every KW, PC, KI result equals the single-key library function's
 *    for that key, and every AP read what a reader of our own reads
 *    (from 2, "at": a reader of ours placed at the payload's position),
 *    until a TEXT request that may be "ap" (it moves the same session
 *    readers; after it, AP answers are checked for whole entries only);
 *  - TEXT answers are one valid UTF-8 JSON object.
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "frame_internal.h"
#include "internal.h"
#include "json_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dta_pc_codebook *codebook(size_t i)
{
	static struct dta_pc_codebook *cb[FIX_MAX];
	struct fixture *f = fixture_get();
	const struct dta_config_structure *cs = f->v[i].cs;

	if (!cb[i] && cs->nvalues &&
	    dta_pc_codebook_create(f->v[i].l, cs->values, cs->nvalues, &cb[i]))
		abort();
	return cb[i];
}

/* Our own Append readers, created as the session's are. */
struct mirror {
	struct {
		size_t i;
		uint32_t list;
		struct dta_ap_reader *rd;
	} r[DTA_EXEC_READERS_MAX];
	unsigned n;
	/* A text request may have read or placed the session's readers
	 * (text "ap" shares them with frames): from then on only the shape
	 * of AP answers is checked. */
	bool text_ap;
};

/* Would the executor take request @r on structure @l (primitive and
 * bounds), and how many answer bytes would it need? */
static bool precondition(const struct dta__frame_request *r,
			 const struct dta_layout *l)
{
	static const int prim[] = { 0, DTA_PRIM_KEY_WRITE, DTA_PRIM_POSTCARD,
				    DTA_PRIM_KEY_INCREMENT, DTA_PRIM_APPEND };
	uint64_t n = r->n, size;

	if (r->flags || l->primitive != prim[r->op] || n == 0 ||
	    n > DTA_EXEC_BATCH_MAX)
		return false;
	if (r->op == DTA_FRAME_AP) {
		if (r->arg >= l->g.ap.lists || r->from > 2 ||
		    r->payload_len != (r->from == 2 ? 8u : 0u))
			return false;
		size = 16 + n * l->g.ap.entry_size;
	} else {
		if (r->klen == 0 || r->klen > DTA_KEY_MAX ||
		    r->payload_len != n * r->klen)
			return false;
		size = r->op == DTA_FRAME_KW   ? n * (4 + l->g.kw.data_len)
		       : r->op == DTA_FRAME_PC ? n * (4 + 4 * l->g.pc.hops)
					       : n * 8;
	}
	return size + DTA_FRAME_ANS_HDR <= DTA_FRAME_MAX;
}

/* The answer @a to @r checked against the single-key queries. */
static void check_points(const struct dta__frame_request *r, size_t i,
			 const struct dta__frame_answer *a)
{
	struct fixture *f = fixture_get();
	const struct dta_layout *l = f->v[i].l;
	const void *area = f->area[i];
	bool ok = precondition(r, l);

	for (size_t k = 0; ok && k < r->n; k++) {
		const uint8_t *key = r->payload + k * r->klen;

		if (r->op == DTA_FRAME_KW) {
			struct dta_kw_query_opts o = { r->redundancy,
						       r->threshold };
			struct dta_kw_result res;
			uint8_t d[DTA_DATA_MAX] = { 0 };
			const uint8_t *w = a->status ? NULL
						     : a->results + 4 * k;
			unsigned dl = l->g.kw.data_len;

			if (dta_kw_query(l, area, key, r->klen, &o, d, sizeof(d),
					 &res)) {
				ok = false;
				break;
			}
			if (res.status != DTA_Q_FOUND)
				memset(d, 0, dl);
			if (a->status || w[0] != res.status ||
			    w[1] != res.votes || w[2] != res.candidates || w[3] ||
			    memcmp(a->data + k * dl, d, dl))
				abort();
		} else if (r->op == DTA_FRAME_PC) {
			struct dta_pc_result res;
			const uint8_t *w = a->status ? NULL
						     : a->results + 4 * k;
			unsigned hops = l->g.pc.hops, len;

			if (!codebook(i) || dta_pc_query(l, area, codebook(i), key,
							 r->klen, 0, &res)) {
				ok = false;
				break;
			}
			len = res.status == DTA_Q_FOUND ? res.path_len : 0;
			if (a->status || w[0] != res.status ||
			    w[1] != res.valid_copies || w[2] != len || w[3])
				abort();
			for (unsigned h = 0; h < hops; h++)
				if (dta__be32(a->data + (k * hops + h) * 4) !=
				    (h < len ? res.values[h] : 0))
					abort();
		} else {
			uint64_t c;

			if (dta_ki_query(l, area, key, r->klen, r->arg, &c)) {
				ok = false;
				break;
			}
			if (a->status || dta__be64(a->data + 8 * k) != c)
				abort();
		}
	}
	/* An error only where a precondition or a key's query fails. */
	if (ok && a->status)
		abort();
	if (!ok && !a->status)
		abort();
}

static void check_ap(struct mirror *m, const struct dta__frame_request *r,
		     size_t i, const struct dta__frame_answer *a)
{
	static uint8_t buf[DTA_EXEC_BATCH_MAX * 64];
	struct fixture *f = fixture_get();
	const struct dta_layout *l = f->v[i].l;
	struct dta_ap_reader *rd = NULL;
	uint64_t lost = 0;
	int n;

	if (!precondition(r, l)) {
		if (!a->status)
			abort();
		return;
	}
	if ((size_t)r->n * l->g.ap.entry_size > sizeof(buf))
		abort(); /* the fixture's entries are at most 64 bytes */
	if (m->text_ap) {
		/* Whole entries, at most as many as asked for. Refusals are
		 * possible: text readers take slots of the session's. */
		if (!a->status &&
		    (a->n > r->n || a->size != l->g.ap.entry_size ||
		     a->data_len != (size_t)a->n * a->size))
			abort();
		return;
	}
	for (unsigned k = 0; k < m->n; k++)
		if (m->r[k].i == i && m->r[k].list == r->arg) {
			if (r->from == 2) {
				/* AT: the consumer is placed anew. */
				dta_ap_reader_destroy(m->r[k].rd);
				if (dta_ap_reader_create_at(l, f->area[i], r->arg,
							    dta__be64(r->payload),
							    &m->r[k].rd))
					abort();
			}
			rd = m->r[k].rd;
		}
	if (!rd && r->from == 2) {
		if (m->n == DTA_EXEC_READERS_MAX ||
		    dta_ap_reader_create_at(l, f->area[i], r->arg,
					    dta__be64(r->payload), &rd))
			abort();
		m->r[m->n].i = i;
		m->r[m->n].list = r->arg;
		m->r[m->n++].rd = rd;
	}
	if (!rd) {
		if (m->n == DTA_EXEC_READERS_MAX ||
		    dta_ap_reader_create(l, f->area[i], r->arg, r->from, &rd))
			abort(); /* the fixture has fewer lists than that */
		m->r[m->n].i = i;
		m->r[m->n].list = r->arg;
		m->r[m->n++].rd = rd;
	}
	n = dta_ap_read(rd, buf, r->n, &lost);
	if (n < 0) {
		if (!a->status)
			abort();
		return;
	}
	if (a->status || a->n != (uint32_t)n ||
	    a->size != l->g.ap.entry_size ||
	    dta__be64(a->results) != lost ||
	    dta__be64(a->results + 8) != dta_ap_reader_position(rd) ||
	    memcmp(a->data, buf, (size_t)n * l->g.ap.entry_size))
		abort();
}

static void check_one(struct dta_exec_session *s, struct mirror *m,
		      const uint8_t *req, size_t len, struct dta_buf *out)
{
	struct dta__frame_request r;
	struct dta__frame_answer a;
	size_t mark = out->len;
	int perr = dta__frame_request_parse(req, len, &r);
	int rc = dta_exec_frame(s, req, len, out);

	if (rc == -DTA_E_MALFORMED) {
		if (!perr || out->len != mark)
			abort();
		return;
	}
	if (perr)
		abort();
	if (rc == 1) {
		if (r.op != DTA_FRAME_TEXT || out->len != mark)
			abort();
		return;
	}
	if (rc != 0 || out->oom ||
	    dta__frame_answer_parse(out->p + mark, out->len - mark, &a) ||
	    a.op != r.op || a.structure != r.structure || a.id != r.id)
		abort();
	if (a.status) {
		if (!a.msg_len || !fuzz_utf8_ok((const uint8_t *)a.msg, a.msg_len))
			abort();
	}
	if (r.op == DTA_FRAME_TEXT) {
		if (!a.status && !fuzz_json_object_ok((const char *)a.data,
						       a.data_len))
			abort();
		/* Any text that may hold an "ap" request. */
		if (memmem(r.payload, r.payload_len, "ap", 2))
			m->text_ap = true;
		return;
	}
	if (r.structure >= fixture_get()->n) {
		if (!a.status)
			abort();
		return;
	}
	if (r.op == DTA_FRAME_AP)
		check_ap(m, &r, r.structure, &a);
	else
		check_points(&r, r.structure, &a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dta_exec *x = fixture_exec();
	struct dta_exec_session *s;
	struct dta_buf out = { 0 };
	struct mirror m = { .n = 0 };
	size_t pos = 0;

	if (dta_exec_session_create(x, &s))
		abort();
	for (unsigned k = 0; k < 32 && size - pos >= 3; k++) {
		uint8_t mode = data[pos];
		size_t len = (size_t)data[pos + 1] << 8 | data[pos + 2];
		uint8_t *req;

		pos += 3;
		if (len > size - pos)
			len = size - pos;
		/* An exact-size copy, so reading past the frame is caught. */
		req = malloc(len ? len : 1);
		if (!req)
			abort();
		if (len)
			memcpy(req, data + pos, len);
		pos += len;
		if ((mode & 1) && len >= 4)
			dta__put_be32(req, (uint32_t)len);
		check_one(s, &m, req, len, &out);
		free(req);
		out.len = 0;
	}
	for (unsigned k = 0; k < m.n; k++)
		dta_ap_reader_destroy(m.r[k].rd);
	dta_buf_free(&out);
	dta_exec_session_destroy(s);
	return 0;
}
