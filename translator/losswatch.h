/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-translator's watch on losses (docs/operations.md "Configuration
 * mismatches", docs/metrics.md "Healthy"): the arithmetic only, driven by
 * the caller's clock, so it is tested with a fake one.
 *
 *  - lw_limit: a log line for a stream of events (a structure's refused
 *    reports): the first at once, then at most one per interval, each
 *    standing for the events since the last line (the suppressed ones).
 *  - lw_window: the loss ratio lost / (applied + lost) over the last
 *    window of cumulative totals, against a threshold (degraded above).
 *
 * Not thread-safe: one owner (the translator's main thread).
 */
#ifndef DTA_LOSSWATCH_H
#define DTA_LOSSWATCH_H

#include <stdbool.h>
#include <stdint.h>

struct lw_limit {
	uint64_t interval_ns;
	uint64_t next;    /* no line before this (0: the first is due) */
	uint64_t pending; /* events since the last line */
	uint64_t lines;   /* lines given so far */
};

/* Start with no events; lines at least @interval_ns apart. */
void lw_limit_init(struct lw_limit *l, uint64_t interval_ns);
/**
 * lw_limit() - @n more events at @now (0: none, but a line for the
 * events held back may be due). Return: the events the line due now
 * stands for (the first event alone on the very first line counts every
 * event seen with it), 0 when no line is due.
 */
uint64_t lw_limit(struct lw_limit *l, uint64_t now, uint64_t n);

#define LW_SAMPLES 40 /* kept samples: one per window / 32 at most */

struct lw_window {
	uint64_t window_ns;
	double limit;
	unsigned head, n; /* ring of samples, oldest at head */
	struct lw_sample {
		uint64_t t, applied, lost;
	} s[LW_SAMPLES];
};

/* A window of @window_ns (> 0), degraded above @limit (0 .. 1; 1 never). */
void lw_window_init(struct lw_window *w, uint64_t window_ns, double limit);
/**
 * lw_window_update() - the cumulative totals at @now (non-decreasing
 * calls). The ratio is taken against the newest sample at least a window
 * old (the oldest kept while the first window fills), so it covers
 * between one window and one window + window / 32 of time.
 * @dl, @dt (may be NULL): the losses and the reports (applied + lost) in
 * that span. Return: true (degraded) when dt > 0 and dl / dt > limit.
 */
bool lw_window_update(struct lw_window *w, uint64_t now, uint64_t applied,
		      uint64_t lost, uint64_t *dl, uint64_t *dt);

#endif
