/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's `wait` request (docs/collector-protocol.md "wait"): a
 * notifier thread sleeps on every structure's notification sequence
 * (dta_region_notify(), written by translators for reports with
 * DTA_FLAG_IMMEDIATE) and wakes the event loop through an eventfd; the
 * loop answers the waiting clients. The loop never blocks on a wait.
 */
#ifndef DTA_COLLECTOR_NOTIFY_H
#define DTA_COLLECTOR_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "dta/dta.h"

#define COLL_WAIT_DEFAULT_MS 30000
#define COLL_WAIT_MAX_MS 3600000

/* One client's pending wait (zeroed: none). */
struct coll_wait {
	bool on;
	unsigned s;           /* structure index */
	uint32_t seen;        /* the SEQ it sent */
	uint64_t deadline_ns; /* tool_now_ns() clock */
};

struct coll_notify;

/* Start the notifier on @n regions (kept by the caller until
 * coll_notify_stop()). Return 0 or -errno. */
int coll_notify_start(struct dta_region *const *r, size_t n,
		      struct coll_notify **out);
/* The eventfd to poll for POLLIN; call coll_notify_drain() then answer. */
int coll_notify_fd(const struct coll_notify *nt);
void coll_notify_drain(struct coll_notify *nt);
/* Whether any client waits now (after arming or answering waits): the
 * notifier watches the sequences only then. */
void coll_notify_want(struct coll_notify *nt, bool any);
void coll_notify_stop(struct coll_notify *nt); /* NULL is fine */

/* Room for any answer below, newline included. */
#define COLL_WAIT_ANSWER_MAX 160

/*
 * A `wait NAME SEQ [TIMEOUT_MS]` request, split into @w[0..@nw). Structure
 * NAME is r[i] with names[i]. When it can be answered at once (an error,
 * or the sequence already differs) writes the answer line, newline
 * included, into @ans (COLL_WAIT_ANSWER_MAX bytes) and returns its
 * length; otherwise arms @wt and returns 0. Errors start {"error".
 * (Plain bytes, not the collector's buffer type, so the event loop's
 * output handling can change without touching this.)
 */
int coll_wait_request(struct coll_wait *wt, char **w, int nw,
		      struct dta_region *const *r, const char *const *names,
		      size_t n, char *ans);
/* If @wt's structure moved or its time is up: write the answer into @ans
 * (COLL_WAIT_ANSWER_MAX bytes), disarm @wt, return its length; else 0. */
int coll_wait_check(struct coll_wait *wt, struct dta_region *const *r,
		    uint64_t now_ns, char *ans);
/* @ms, or less if @wt's deadline comes sooner. */
int coll_wait_timeout_ms(const struct coll_wait *wt, uint64_t now_ns, int ms);

#endif
