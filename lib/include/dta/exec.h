/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The query executor: answers queries about a set of structures whose
 * memory is in this process (a collector's own regions, a read-only
 * mapping of them, snapshot files). It is the one code path behind every
 * answer: the collector's socket (text lines and binary frames,
 * docs/collector-protocol.md), the client's local mapping and snapshot
 * backends (dta/client.h) and dta-query all answer through it, so a live
 * collector, its mapping and its snapshot give identical answers.
 *
 * Three layers, each usable on its own:
 *  1. typed batched queries (dta_exec_kw(), dta_exec_pc(), dta_exec_ki(),
 *     dta_exec_ap_read()): arrays in, arrays out, no formatting;
 *  2. the text protocol (dta_exec_text()): one request line, one JSON
 *     answer line, runs of point queries batched internally;
 *  3. the binary protocol (dta_exec_frame()): one request frame, one
 *     answer frame (docs/collector-protocol.md "Binary frames").
 *
 * Thread safety: an executor may be queried from several threads at once
 * once every structure is added (it builds Postcarding codebooks when a
 * structure is added, never later); a session belongs to one thread at a
 * time.
 */
#ifndef DTA_EXEC_H
#define DTA_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/keywrite.h"
#include "dta/layout.h"
#include "dta/postcard.h"
#include "dta/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest text request the executor answers, newline excluded. */
#define DTA_EXEC_REQUEST_MAX 4095
/* Keys in one batched query, and Append entries in one read, at most. */
#define DTA_EXEC_BATCH_MAX 65536
/* Append consumers one session keeps at most. */
#define DTA_EXEC_READERS_MAX 64

/**
 * struct dta_exec_structure - one structure, as dta_exec_add() takes it.
 * @name:      its name (1..DTA_CONFIG_NAME_MAX - 1 bytes), copied.
 * @layout:    its layout, copied.
 * @area:      its data area (@layout->data_size bytes), borrowed: it must
 *             stay mapped while the executor lives. Read only.
 * @values:    Postcarding: the known value set (sorted, unique), copied;
 *             NULL when the structure has none (paths cannot be decoded).
 * @nvalues:   entries in @values.
 * @list_base: Append: report list id of the structure's list 0 (of this
 *             share, for a partitioned structure).
 * @schema:    the schema of its data (Key-Write) or entries (Append),
 *             copied; NULL when none was declared.
 */
struct dta_exec_structure {
	const char *name;
	const struct dta_layout *layout;
	const void *area;
	const uint32_t *values;
	size_t nvalues;
	uint32_t list_base;
	const struct dta_schema *schema;
};

struct dta_exec;         /* opaque */
struct dta_exec_session; /* opaque: one client's state (Append readers) */

/* Return 0 or -ENOMEM. */
DTA_API int dta_exec_create(struct dta_exec **out);
/* NULL is fine. Every session must be destroyed first. */
DTA_API void dta_exec_destroy(struct dta_exec *x);

/**
 * dta_exec_add() - add a structure; its index is the number of structures
 * added before it (the index the binary protocol names it by).
 * Return: the index; -EINVAL (bad name or layout, @area NULL, a schema
 * whose size is not the data or entry size); -EEXIST (name taken);
 * -ENOSPC (DTA_CONFIG_MAX_STRUCTURES already); -ENOMEM;
 * dta_pc_codebook_create()'s errors for @values.
 */
DTA_API int dta_exec_add(struct dta_exec *x,
			 const struct dta_exec_structure *s);

DTA_API size_t dta_exec_count(const struct dta_exec *x);
/* Structure @i as added (its own copies), or NULL out of range. */
DTA_API const struct dta_exec_structure *
dta_exec_structure(const struct dta_exec *x, size_t i);
/* Index of structure @name, or -ENOENT. */
DTA_API int dta_exec_find(const struct dta_exec *x, const char *name);

/*
 * Typed batched queries on structure @i: @n keys of @klen bytes back to
 * back in @keys (1 <= @klen <= DTA_KEY_MAX, @n <= DTA_EXEC_BATCH_MAX; 0 is
 * allowed and does nothing). Each result is exactly what the single query
 * of dta/keywrite.h, postcard.h or keyincr.h gives for that key.
 * Return: 0; -EINVAL (arguments); -ENOENT (no structure @i);
 * -DTA_E_PRIMITIVE (structure @i is another primitive); -DTA_E_NOVALUES
 * (Postcarding without a value set). Thread-safe.
 */
/* Key-Write: @data receives @n * data_len bytes (a key's data where its
 * result is DTA_Q_FOUND, zeros otherwise). @o may be NULL. */
DTA_API int dta_exec_kw(const struct dta_exec *x, size_t i, const void *keys,
			size_t klen, size_t n,
			const struct dta_kw_query_opts *o,
			struct dta_kw_result *res, void *data);
DTA_API int dta_exec_pc(const struct dta_exec *x, size_t i, const void *keys,
			size_t klen, size_t n, struct dta_pc_result *res);
/* Key-Increment: the count-min estimate of each key in bank @bank. */
DTA_API int dta_exec_ki(const struct dta_exec *x, size_t i, const void *keys,
			size_t klen, size_t n, unsigned bank, uint64_t *counts);

/* Sessions: create one per client (connection, client handle). Return 0
 * or -ENOMEM. */
DTA_API int dta_exec_session_create(struct dta_exec *x,
				    struct dta_exec_session **out);
DTA_API void dta_exec_session_destroy(struct dta_exec_session *s);

/* dta_exec_ap_read() @from: where a new consumer starts. */
#define DTA_EXEC_AP_OLDEST 0 /* the oldest batch still stored */
#define DTA_EXEC_AP_NOW 1    /* after the newest batch */
/* (frames only: the AP request carries an 8-byte big-endian position as
 * payload, dta_exec_ap_seek(); text: "ap NAME LIST MAX at POS") */
#define DTA_EXEC_AP_AT 2

/**
 * dta_exec_ap_read() - up to @max new entries of Append list @list (index
 * within structure @i) for this session's consumer of that list, created
 * at the first read, starting at @from (ignored afterwards).
 * @buf:      receives the entries (@max * entry_size bytes of room).
 * @lost:     receives entries overwritten (or in corrupt frames) before
 *            this consumer read them, all just before the first entry
 *            returned (one read never spans a gap).
 * @position: receives the index of the next entry expected (may be NULL).
 * Return: entries read (0: nothing new); -EINVAL; -ENOENT;
 * -DTA_E_PRIMITIVE; -DTA_E_MISMATCH (@list out of range); -ENOSPC (the
 * session follows DTA_EXEC_READERS_MAX lists already, or @max is below
 * the structure's batch_entries: batches are returned whole,
 * dta_ap_read()); -ENOMEM.
 */
DTA_API int dta_exec_ap_read(struct dta_exec_session *s, size_t i,
			     uint32_t list, int from, void *buf, size_t max,
			     uint64_t *lost, uint64_t *position);

/**
 * dta_exec_ap_seek() - (re)position this session's consumer of Append
 * list @list of structure @i at entry @position (a position an earlier
 * read returned: a cursor saved across restarts), as
 * dta_ap_reader_create_at() does: the next dta_exec_ap_read() returns
 * the entries from @position on and counts those the ring overwrote since
 * as lost.
 * Return: 0; -EINVAL; -ENOENT; -DTA_E_PRIMITIVE; -DTA_E_MISMATCH; -ENOSPC
 * (DTA_EXEC_READERS_MAX lists followed already); -ENOMEM.
 */
DTA_API int dta_exec_ap_seek(struct dta_exec_session *s, size_t i,
			     uint32_t list, uint64_t position);

/**
 * struct dta_buf - a growable output buffer. Appending never fails
 * visibly: when memory runs out, @oom is set and later appends do nothing
 * (the contents are then incomplete; answer the client with an error).
 * Zero it to start; dta_buf_free() frees it. @errors counts the error
 * answers the executor wrote into it.
 */
struct dta_buf {
	char *p;
	size_t len, cap;
	bool oom;
	uint64_t errors;
};
DTA_API void dta_buf_put(struct dta_buf *b, const void *p, size_t len);
DTA_API void dta_buf_free(struct dta_buf *b);

/**
 * dta_structure_json() - one structure as the `info` request describes it
 * (docs/collector-protocol.md): {"name","primitive","hash","seed","bytes",
 * geometry..[,"schema"]}, appended to @out. The executor's `info` and
 * dta-query's (from a client's structures) are this text.
 * @lists:       Append: the lists to report (one share's, or a client's
 *               over all shares); ignored for other primitives.
 * @list_base:   Append: the report list id of list 0.
 * @nvalues:     Postcarding: the size of the value set.
 * @schema_text: the canonical schema text, or NULL or "" for none.
 */
DTA_API void dta_structure_json(struct dta_buf *out, const char *name,
				const struct dta_layout *l, uint32_t lists,
				uint32_t list_base, size_t nvalues,
				const char *schema_text);

/**
 * dta_exec_text() - answer one text request (docs/collector-protocol.md)
 * into @out: one JSON object and a newline, always valid UTF-8 JSON
 * whatever the request's bytes (bytes that are not UTF-8 are escaped as
 * \u00XX of their value, never echoed raw). Requests: info | kw NAME
 * KEYHEX [N [T]] | pc NAME KEYHEX | ki NAME KEYHEX [BANK] | ap NAME LIST
 * MAX [oldest|now|at POS]. A kw, pc or ki request may be queued and answered by
 * a later call (runs of point queries of one structure are answered
 * together, byte-identical to one at a time); answers always appear in
 * request order. @line is @len bytes, no newline, and may hold any bytes
 * (a NUL makes the request malformed).
 * Return: 0 when answered or queued; 1 when @line is not the executor's
 * request (its first word is none of the above): the queue has then been
 * flushed, so the caller may answer it itself, in order.
 */
DTA_API int dta_exec_text(struct dta_exec_session *s, const char *line,
			  size_t len, struct dta_buf *out);
/* Answer every request queued by dta_exec_text() into @out. Call before
 * sending what @out holds. */
DTA_API void dta_exec_text_flush(struct dta_exec_session *s,
				 struct dta_buf *out);

/**
 * dta_exec_frame() - answer one binary request frame
 * (docs/collector-protocol.md "Binary frames"; dta/frame.h) of @len bytes,
 * length field included, appending the answer frame to @out. A request
 * whose operation is DTA_FRAME_TEXT carries a text request: it is answered
 * by dta_exec_text() with the JSON in the answer frame.
 * Return: 0 when answered (an error answer included); 1 when the frame is
 * a DTA_FRAME_TEXT request that is not the executor's (the caller answers
 * it, e.g. `stats`, with dta_frame_answer_text()); -DTA_E_MALFORMED when
 * the frame cannot be parsed at all (length or header wrong: the caller
 * should close the connection; nothing was appended).
 */
DTA_API int dta_exec_frame(struct dta_exec_session *s, const void *req,
			   size_t len, struct dta_buf *out);

/*
 * Answers a server writes itself, to the request frame at @req (its
 * header, at least 16 bytes, is echoed: op, structure, id), appended to
 * @out: dta_frame_answer_text() a TEXT answer carrying @len bytes of JSON
 * (no newline; for the text requests the server answers itself, such as
 * `stats`), dta_frame_answer_error() an error answer with status |@err|
 * (EINVAL if 0) and message @msg (dta_strerror(@err) if NULL or empty;
 * counted in @out->errors).
 */
DTA_API void dta_frame_answer_text(struct dta_buf *out, const void *req,
				   const char *json, size_t len);
DTA_API void dta_frame_answer_error(struct dta_buf *out, const void *req,
				    int err, const char *msg);

#ifdef __cplusplus
}
#endif
#endif /* DTA_EXEC_H */
