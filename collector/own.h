/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's own text requests (docs/collector-protocol.md): which
 * one a line is, and whether its arguments are right, before anything is
 * done. Used by the socket's request path (own_request() in
 * dta-collector.c) and by fuzz/fuzz_own.c.
 */
#ifndef DTA_COLLECTOR_OWN_H
#define DTA_COLLECTOR_OWN_H

#include <stdbool.h>
#include <stddef.h>

#include <dta/layout.h>

enum coll_own_kind {
	COLL_OWN_ERROR = 0, /* refused: req->error says why */
	COLL_OWN_STATS,
	COLL_OWN_SWITCH,
	COLL_OWN_SNAPSHOT,
	COLL_OWN_KI_RESET,  /* req->structure, req->bank are valid */
	COLL_OWN_BINARY,
};

#define COLL_OWN_ERROR_MAX 8192 /* a message echoing a 4095-byte request */

struct coll_own_req {
	enum coll_own_kind kind;
	size_t structure;          /* ki-reset: index into the context's */
	unsigned bank;             /* ki-reset: < the structure's banks */
	char error[COLL_OWN_ERROR_MAX]; /* raw text; escape it for JSON */
};

/* What the request may name: @n structures (@names, @layouts), whether
 * the connection is remote (TLS: switch, snapshot, ki-reset refused) and
 * speaks frames already. */
struct coll_own_ctx {
	const char *const *names;
	const struct dta_layout *const *layouts;
	size_t n;
	bool remote;
	bool binary;
};

/*
 * coll_own_parse() - classify @line (NUL-terminated, not the executor's
 * nor `wait`) for @x into @req. Never fails: a line that is no valid own
 * request gets COLL_OWN_ERROR and a message naming what is wrong (it may
 * echo request bytes: escape them).
 */
void coll_own_parse(const struct coll_own_ctx *x, const char *line,
		    struct coll_own_req *req);

#endif
