/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Binary frames of the collector's query protocol
 * (docs/collector-protocol.md "Binary frames"). A connection starts in
 * text mode; the text request `binary` switches it: the collector answers
 * {"binary":1,"max_frame":N} and a newline, and from then on every request
 * and every answer is a frame. Frames carry a batch of keys and a batch of
 * fixed-size answers, so a client pays one request per batch, not per key,
 * and reads answers without parsing text.
 *
 * Every frame starts with struct dta_frame_hdr; all multi-byte integers
 * are big-endian (network order), as in every other DTA wire format.
 *
 * Request: header, struct dta_frame_params, then the payload:
 *   DTA_FRAME_KW, _PC, _KI: @n keys of params.klen bytes back to back;
 *   DTA_FRAME_AP:            nothing (@n is the most entries wanted);
 *   DTA_FRAME_TEXT:          a text request line, no newline (@n is 0).
 * Answer: header (same @op, @structure, @id as the request; @n the count
 * of results), struct dta_frame_status, then:
 *   an error (status != 0): a UTF-8 message;
 *   KW:   @n struct dta_frame_kw, then @n * data_len bytes of data (a
 *         key's data where it was found, zeros otherwise);
 *   PC:   @n struct dta_frame_pc, then @n * hops big-endian u32 values
 *         (each path zero-padded to the structure's hops);
 *   KI:   @n big-endian u64 counts;
 *   AP:   struct dta_frame_ap, then @n * entry_size bytes of entries;
 *   TEXT: the JSON answer, no newline.
 * A frame whose header is malformed (length below the header, above
 * DTA_FRAME_MAX, unknown op) ends the connection; an error in a request
 * that parses (unknown structure, bad key length, ...) is an error answer.
 */
#ifndef DTA_FRAME_H
#define DTA_FRAME_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_FRAME_VERSION 1
/* Bytes of one frame at most, header included; a client splits batches so
 * that request and answer both fit. */
#define DTA_FRAME_MAX (16u << 20)

enum dta_frame_op {
	DTA_FRAME_KW = 1,
	DTA_FRAME_PC = 2,
	DTA_FRAME_KI = 3,
	DTA_FRAME_AP = 4,
	DTA_FRAME_TEXT = 5,
};

/**
 * struct dta_frame_hdr - the first 16 bytes of every frame.
 * @len:       bytes of the whole frame, this header included.
 * @op:        enum dta_frame_op.
 * @flags:     0 (reserved).
 * @structure: the structure's index (its place in `info`'s list); 0 for
 *             TEXT.
 * @id:        chosen by the client, echoed in the answer.
 * @n:         request: keys (KW, PC, KI; 1..DTA_EXEC_BATCH_MAX) or the
 *             most entries (AP, 1..DTA_EXEC_BATCH_MAX); answer: results.
 */
struct dta_frame_hdr {
	uint8_t len[4];
	uint8_t op;
	uint8_t flags;
	uint8_t structure[2];
	uint8_t id[4];
	uint8_t n[4];
};
static_assert(sizeof(struct dta_frame_hdr) == 16, "frame header");

/**
 * struct dta_frame_params - a request's parameters, after its header.
 * @klen:       KW, PC, KI: bytes of each key (1..DTA_KEY_MAX).
 * @redundancy: KW: copies to examine (0: the structure's).
 * @threshold:  KW: votes needed (0: plurality).
 * @from:       AP: where a new consumer starts (DTA_EXEC_AP_OLDEST, _NOW).
 * @arg:        KI: the bank; AP: the list (index within the structure).
 */
struct dta_frame_params {
	uint8_t klen;
	uint8_t redundancy;
	uint8_t threshold;
	uint8_t from;
	uint8_t arg[4];
};
static_assert(sizeof(struct dta_frame_params) == 8, "frame params");

/**
 * struct dta_frame_status - an answer's status, after its header.
 * @status: 0, or the positive error code (errno or DTA_E_*, as
 *          dta_strerror() takes it) with a message as payload.
 * @size:   KW: data_len; PC: hops; KI: 8; AP: entry_size; else 0.
 */
struct dta_frame_status {
	uint8_t status[4];
	uint8_t size[4];
};
static_assert(sizeof(struct dta_frame_status) == 8, "frame status");

/* One Key-Write answer: enum dta_query_status, votes, candidates. */
struct dta_frame_kw {
	uint8_t status;
	uint8_t votes;
	uint8_t candidates;
	uint8_t zero;
};
static_assert(sizeof(struct dta_frame_kw) == 4, "frame kw");

/* One Postcarding answer: status, copies that decoded validly, hops in
 * the path. */
struct dta_frame_pc {
	uint8_t status;
	uint8_t valid_copies;
	uint8_t path_len;
	uint8_t zero;
};
static_assert(sizeof(struct dta_frame_pc) == 4, "frame pc");

/* An Append read: entries lost before the first returned, next position. */
struct dta_frame_ap {
	uint8_t lost[8];
	uint8_t position[8];
};
static_assert(sizeof(struct dta_frame_ap) == 16, "frame ap");

/* Request header + params, and answer header + status: 24 bytes each. */
#define DTA_FRAME_REQ_HDR 24
#define DTA_FRAME_ANS_HDR 24

/**
 * dta_frame_length() - how long the frame starting at @buf is, from the
 * @have bytes read so far.
 * Return: its length once at least 4 bytes are there; 0 when fewer;
 * -DTA_E_MALFORMED when the length is below 24 or above DTA_FRAME_MAX.
 */
DTA_API long dta_frame_length(const void *buf, size_t have);

#ifdef __cplusplus
}
#endif
#endif /* DTA_FRAME_H */
