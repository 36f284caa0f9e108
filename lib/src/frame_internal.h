/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the binary frames (dta/frame.h) and of struct dta_buf,
 * shared by the executor (exec.c) and the client (client.c): building a
 * request frame, parsing request and answer frames with every length
 * checked, and writing answer frames.
 */
#ifndef DTA_FRAME_INTERNAL_H
#define DTA_FRAME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "dta/exec.h"
#include "dta/frame.h"

/* ---- struct dta_buf ---- */

/*
 * dta__buf_room() - room for @more bytes after @b's contents (amortised
 * doubling). Return: where they go (the caller writes there and adds what
 * it wrote to @b->len), or NULL when memory ran out (@b->oom is set) or
 * @b->oom was set already.
 */
char *dta__buf_room(struct dta_buf *b, size_t more);

/* ---- requests ---- */

/**
 * struct dta__frame_request - a request frame, fields in host order.
 * @op:          enum dta_frame_op.
 * @flags:       as sent (0 in a valid request).
 * @structure:   the structure's index (0..65535).
 * @id:          the client's request id.
 * @n:           keys (KW, PC, KI), most entries (AP), 0 (TEXT).
 * @klen, @redundancy, @threshold, @from, @arg: struct dta_frame_params.
 * @payload:     what follows the 24 bytes of header and parameters.
 * @payload_len: its bytes.
 */
struct dta__frame_request {
	unsigned op, flags, structure;
	uint32_t id, n;
	unsigned klen, redundancy, threshold, from;
	uint32_t arg;
	const uint8_t *payload;
	size_t payload_len;
};

/*
 * dta__frame_request_put() - append request frame @r (with @r->payload)
 * to @out.
 * Return: 0; -EINVAL (@op unknown, a field out of its wire range,
 * @payload NULL with a length); -EMSGSIZE (the frame would exceed
 * DTA_FRAME_MAX); -ENOMEM (@out->oom, now or before).
 */
int dta__frame_request_put(struct dta_buf *out,
			   const struct dta__frame_request *r);

/*
 * dta__frame_request_parse() - the request frame of @len bytes at @buf.
 * Only the header is checked: @len at least DTA_FRAME_REQ_HDR and at most
 * DTA_FRAME_MAX, equal to the header's length field, a known op.
 * Return: 0 with @r filled (pointing into @buf), or -DTA_E_MALFORMED.
 */
int dta__frame_request_parse(const void *buf, size_t len,
			     struct dta__frame_request *r);

/* ---- answers ---- */

/**
 * struct dta__frame_answer - an answer frame, fields in host order.
 * @op, @structure, @id: echoed from the request.
 * @n:        results.
 * @status:   0 or a positive error code (errno or DTA_E_*).
 * @size:     KW: data_len; PC: hops; KI: 8; AP: entry_size; else 0.
 * @results:  KW: @n struct dta_frame_kw; PC: @n struct dta_frame_pc; AP:
 *            one struct dta_frame_ap; otherwise NULL.
 * @data:     KW: @n * @size bytes of data; PC: @n * @size big-endian u32;
 *            KI: @n big-endian u64; AP: @n * @size bytes of entries;
 *            TEXT: the JSON answer (not terminated). NULL on an error.
 * @data_len: bytes at @data.
 * @msg:      the error message (not terminated) when @status != 0.
 * @msg_len:  its bytes.
 */
struct dta__frame_answer {
	unsigned op, structure;
	uint32_t id, n, status, size;
	const uint8_t *results;
	const uint8_t *data;
	size_t data_len;
	const char *msg;
	size_t msg_len;
};

/*
 * dta__frame_answer_parse() - the answer frame of @len bytes at @buf,
 * every length checked: @len within DTA_FRAME_ANS_HDR..DTA_FRAME_MAX and
 * equal to the header's, a known op, flags 0, and a payload of exactly the
 * bytes its op, @n and @size call for (KI: @size 8; PC: @size at most
 * DTA_MAX_HOPS).
 * Return: 0 with @a filled (pointing into @buf), or -DTA_E_MALFORMED.
 */
int dta__frame_answer_parse(const void *buf, size_t len,
			    struct dta__frame_answer *a);

/*
 * dta__frame_answer_begin() - append the header and status of an answer
 * to the request whose header is at @req (op, structure and id echoed),
 * with length 0 for now. Return: the frame's offset in @out, to give to
 * dta__frame_answer_end() once the payload is appended.
 */
size_t dta__frame_answer_begin(struct dta_buf *out, const void *req,
			       uint32_t n, uint32_t status, uint32_t size);
/* Write the length of the frame at offset @start, which ends at the end of
 * @out. */
void dta__frame_answer_end(struct dta_buf *out, size_t start);

#endif /* DTA_FRAME_INTERNAL_H */
