/* SPDX-License-Identifier: BSD-3-Clause */
/* The collector's own requests: see own.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dta/exec.h>

#include "own.h"
#include "tools.h"

static void fail(struct coll_own_req *req, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct coll_own_req *req, const char *fmt, ...)
{
	va_list ap;

	req->kind = COLL_OWN_ERROR;
	va_start(ap, fmt);
	vsnprintf(req->error, sizeof(req->error), fmt, ap);
	va_end(ap);
}

static void ki_reset(const struct coll_own_ctx *x, char **w, int nw,
		     struct coll_own_req *req)
{
	const struct dta_layout *l;
	unsigned long bank;
	char *end;
	size_t i;

	if (nw != 3) {
		fail(req, "usage: ki-reset NAME BANK");
		return;
	}
	for (i = 0; i < x->n; i++)
		if (!strcmp(x->names[i], w[1]))
			break;
	if (i == x->n) {
		fail(req, "ki-reset: no structure named %s", w[1]);
		return;
	}
	l = x->layouts[i];
	if (l->primitive != DTA_PRIM_KEY_INCREMENT) {
		fail(req, "ki-reset: %s is not a Key-Increment structure", w[1]);
		return;
	}
	errno = 0;
	bank = w[2][0] >= '0' && w[2][0] <= '9' ? strtoul(w[2], &end, 10) : 0;
	if (w[2][0] < '0' || w[2][0] > '9' || errno || *end ||
	    bank >= l->g.ki.banks) {
		fail(req, "ki-reset: bank %s is not a bank of %s (it has %u: "
		     "0..%u)", w[2], w[1], (unsigned)l->g.ki.banks,
		     (unsigned)l->g.ki.banks - 1);
		return;
	}
	req->kind = COLL_OWN_KI_RESET;
	req->structure = i;
	req->bank = (unsigned)bank;
}

void coll_own_parse(const struct coll_own_ctx *x, const char *line,
		    struct coll_own_req *req)
{
	char copy[DTA_EXEC_REQUEST_MAX + 1], *w[4];
	int nw;

	req->error[0] = 0;
	req->structure = 0;
	req->bank = 0;
	snprintf(copy, sizeof(copy), "%s", line);
	nw = tool_split(copy, w, 4);
	if (nw == 0) {
		/* Answered all the same: a pipelining client counts lines. */
		fail(req, "empty request");
	} else if (!strcmp(w[0], "binary")) {
		if (nw > 2 || (nw == 2 && strcmp(w[1], "1")))
			fail(req, "usage: binary");
		else if (x->binary)
			fail(req, "binary: this connection speaks frames already");
		else
			req->kind = COLL_OWN_BINARY;
	} else if (x->remote && (!strcmp(w[0], "switch") ||
				 !strcmp(w[0], "snapshot") ||
				 !strcmp(w[0], "ki-reset"))) {
		/* They change the collector, cost it, or hand out write
		 * access: local clients only (docs/security.md). */
		fail(req, "%s: not allowed over a remote connection (use the "
		     "collector's Unix socket)", w[0]);
	} else if (!strcmp(w[0], "stats") || !strcmp(w[0], "switch") ||
		   !strcmp(w[0], "snapshot")) {
		/* Refused, not answered as if the rest were not there. */
		if (nw > 1)
			fail(req, "%s takes no arguments (usage: %s)", w[0], w[0]);
		else
			req->kind = !strcmp(w[0], "stats") ? COLL_OWN_STATS :
				    !strcmp(w[0], "switch") ? COLL_OWN_SWITCH :
							      COLL_OWN_SNAPSHOT;
	} else if (!strcmp(w[0], "ki-reset")) {
		ki_reset(x, w, nw, req);
	} else if (!strcmp(w[0], "wait")) {
		/* Text lines only (wait_request()): a frame's answer would
		 * have to wait with its header. */
		fail(req, "wait: text mode only");
	} else {
		fail(req, "unknown request; see docs/collector-protocol.md");
	}
}
