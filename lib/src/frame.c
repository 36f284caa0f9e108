/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Binary frames (dta/frame.h): the length check every reader starts with,
 * request and answer encoding and decoding, and the answers a server
 * writes itself (text, errors).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "dta/exec.h"
#include "dta/frame.h"
#include "dta/hash.h"
#include "frame_internal.h"
#include "internal.h"

static_assert(DTA_FRAME_REQ_HDR == sizeof(struct dta_frame_hdr) +
					   sizeof(struct dta_frame_params),
	      "request header");
static_assert(DTA_FRAME_ANS_HDR == sizeof(struct dta_frame_hdr) +
					   sizeof(struct dta_frame_status),
	      "answer header");

static bool op_known(unsigned op)
{
	return op >= DTA_FRAME_KW && op <= DTA_FRAME_TEXT;
}

DTA_API long dta_frame_length(const void *buf, size_t have)
{
	uint32_t len;

	if (have < 4)
		return 0;
	len = dta__be32(buf);
	if (len < DTA_FRAME_REQ_HDR || len > DTA_FRAME_MAX)
		return -DTA_E_MALFORMED;
	return (long)len;
}

/* The header checks requests and answers share. */
static int hdr_check(const uint8_t *p, size_t len)
{
	if (!p || len < sizeof(struct dta_frame_hdr) + 8 ||
	    len > DTA_FRAME_MAX || dta__be32(p) != len ||
	    !op_known(p[offsetof(struct dta_frame_hdr, op)]))
		return -DTA_E_MALFORMED;
	return 0;
}

int dta__frame_request_put(struct dta_buf *out,
			   const struct dta__frame_request *r)
{
	uint8_t h[DTA_FRAME_REQ_HDR];
	struct dta_frame_hdr *hdr = (struct dta_frame_hdr *)h;
	struct dta_frame_params *par =
		(struct dta_frame_params *)(h + sizeof(*hdr));

	if (!op_known(r->op) || r->flags > 255 || r->structure > 65535 ||
	    r->klen > 255 || r->redundancy > 255 || r->threshold > 255 ||
	    r->from > 255 || (!r->payload && r->payload_len))
		return -EINVAL;
	if (r->payload_len > DTA_FRAME_MAX - DTA_FRAME_REQ_HDR)
		return -EMSGSIZE;
	dta__put_be32(hdr->len, (uint32_t)(DTA_FRAME_REQ_HDR + r->payload_len));
	hdr->op = (uint8_t)r->op;
	hdr->flags = (uint8_t)r->flags;
	dta__put_be16(hdr->structure, (uint16_t)r->structure);
	dta__put_be32(hdr->id, r->id);
	dta__put_be32(hdr->n, r->n);
	par->klen = (uint8_t)r->klen;
	par->redundancy = (uint8_t)r->redundancy;
	par->threshold = (uint8_t)r->threshold;
	par->from = (uint8_t)r->from;
	dta__put_be32(par->arg, r->arg);
	if (!dta__buf_room(out, sizeof(h) + r->payload_len))
		return -ENOMEM;
	dta_buf_put(out, h, sizeof(h));
	dta_buf_put(out, r->payload, r->payload_len);
	return 0;
}

int dta__frame_request_parse(const void *buf, size_t len,
			     struct dta__frame_request *r)
{
	const uint8_t *p = buf;
	const struct dta_frame_hdr *hdr = buf;
	const struct dta_frame_params *par;

	if (hdr_check(p, len))
		return -DTA_E_MALFORMED;
	par = (const struct dta_frame_params *)(p + sizeof(*hdr));
	r->op = hdr->op;
	r->flags = hdr->flags;
	r->structure = dta__be16(hdr->structure);
	r->id = dta__be32(hdr->id);
	r->n = dta__be32(hdr->n);
	r->klen = par->klen;
	r->redundancy = par->redundancy;
	r->threshold = par->threshold;
	r->from = par->from;
	r->arg = dta__be32(par->arg);
	r->payload = p + DTA_FRAME_REQ_HDR;
	r->payload_len = len - DTA_FRAME_REQ_HDR;
	return 0;
}

int dta__frame_answer_parse(const void *buf, size_t len,
			    struct dta__frame_answer *a)
{
	const uint8_t *p = buf, *pay;
	const struct dta_frame_hdr *hdr = buf;
	const struct dta_frame_status *st;
	uint64_t n, size, want, plen;

	if (hdr_check(p, len) || hdr->flags)
		return -DTA_E_MALFORMED;
	st = (const struct dta_frame_status *)(p + sizeof(*hdr));
	memset(a, 0, sizeof(*a));
	a->op = hdr->op;
	a->structure = dta__be16(hdr->structure);
	a->id = dta__be32(hdr->id);
	a->n = dta__be32(hdr->n);
	a->status = dta__be32(st->status);
	a->size = dta__be32(st->size);
	pay = p + DTA_FRAME_ANS_HDR;
	plen = len - DTA_FRAME_ANS_HDR;
	if (a->status) {
		a->msg = (const char *)pay;
		a->msg_len = (size_t)plen;
		return 0;
	}
	/* 64-bit arithmetic: n and size are below 2^32, so no product of
	 * two of them and a small factor overflows. */
	n = a->n;
	size = a->size;
	switch (a->op) {
	case DTA_FRAME_KW:
		want = n * sizeof(struct dta_frame_kw) + n * size;
		a->results = pay;
		a->data = pay + n * sizeof(struct dta_frame_kw);
		break;
	case DTA_FRAME_PC:
		if (size > DTA_MAX_HOPS)
			return -DTA_E_MALFORMED;
		want = n * sizeof(struct dta_frame_pc) + n * size * 4;
		a->results = pay;
		a->data = pay + n * sizeof(struct dta_frame_pc);
		break;
	case DTA_FRAME_KI:
		if (size != 8)
			return -DTA_E_MALFORMED;
		want = n * 8;
		a->data = pay;
		break;
	case DTA_FRAME_AP:
		want = sizeof(struct dta_frame_ap) + n * size;
		a->results = pay;
		a->data = pay + sizeof(struct dta_frame_ap);
		break;
	default: /* TEXT */
		want = plen;
		a->data = pay;
		break;
	}
	if (want != plen) {
		memset(a, 0, sizeof(*a));
		return -DTA_E_MALFORMED;
	}
	a->data_len = (size_t)(plen - (uint64_t)(a->data - pay));
	return 0;
}

size_t dta__frame_answer_begin(struct dta_buf *out, const void *req,
			       uint32_t n, uint32_t status, uint32_t size)
{
	const struct dta_frame_hdr *rq = req;
	uint8_t h[DTA_FRAME_ANS_HDR];
	struct dta_frame_hdr *hdr = (struct dta_frame_hdr *)h;
	struct dta_frame_status *st =
		(struct dta_frame_status *)(h + sizeof(*hdr));
	size_t start = out->len;

	memset(h, 0, sizeof(h));
	hdr->op = rq->op;
	memcpy(hdr->structure, rq->structure, sizeof(hdr->structure));
	memcpy(hdr->id, rq->id, sizeof(hdr->id));
	dta__put_be32(hdr->n, n);
	dta__put_be32(st->status, status);
	dta__put_be32(st->size, size);
	dta_buf_put(out, h, sizeof(h));
	return start;
}

void dta__frame_answer_end(struct dta_buf *out, size_t start)
{
	if (out->oom || out->len < start + DTA_FRAME_ANS_HDR)
		return;
	dta__put_be32((uint8_t *)out->p + start, (uint32_t)(out->len - start));
}

DTA_API void dta_frame_answer_text(struct dta_buf *out, const void *req,
				   const char *json, size_t len)
{
	size_t start = dta__frame_answer_begin(out, req, 0, 0, 0);

	dta_buf_put(out, json, len);
	dta__frame_answer_end(out, start);
}

DTA_API void dta_frame_answer_error(struct dta_buf *out, const void *req,
				    int err, const char *msg)
{
	size_t start;

	if (err < 0)
		err = -err;
	if (!err)
		err = EINVAL; /* an error answer always says it is one */
	start = dta__frame_answer_begin(out, req, 0, (uint32_t)err, 0);
	if (!msg || !*msg)
		msg = dta_strerror(err);
	dta_buf_put(out, msg, strlen(msg));
	dta__frame_answer_end(out, start);
	out->errors++;
}
