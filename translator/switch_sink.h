/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-translator's switch sink (translator/switch_sink.c, docs/roce.md):
 * the software stand-in for a switch translator. Memory operations become
 * raw RoCEv2 frames built by dta_roce_build() and sent on an interface
 * (AF_PACKET) to a collector's switch-mode queue pairs; ACKs and NAKs come
 * back on the same interface. Like an RC requester it keeps the frames
 * not yet acknowledged (translator/switch_ring.h) and sends them again
 * (go-back-N) after a PSN sequence NAK or a timeout; what it must give up
 * is counted (switch_lost). The start-up probe's NAK resynchronises the
 * queue pair's PSN.
 */
#ifndef DTA_TRANSLATOR_SWITCH_SINK_H
#define DTA_TRANSLATOR_SWITCH_SINK_H

#include <stdio.h>

#include "tools.h"

struct switch_sink;

/* A structure the sink writes: sink index and the collector's name. */
struct switch_sink_share {
	unsigned index;
	const char *name;
	const struct dta_layout *layout;
};

/*
 * Open @ifname and set up one queue pair per share from the collector's
 * switch description @desc (its "switch" answer, docs/roce.md). Return 0,
 * or -1 with a message in @err.
 */
int switch_sink_open(const char *ifname, const char *desc,
		     const struct switch_sink_share *sh, size_t n,
		     struct switch_sink **out, char *err, size_t errlen);
/* struct dta_sink callbacks (ctx: the switch_sink); thread-safe. submit
 * waits (up to 500 ms, polling) for room when a queue pair has
 * SWITCH_RING_K frames unacknowledged, then refuses (-ENOBUFS). flush
 * waits (up to 6 s) until every frame sent is acknowledged or given up. */
int switch_sink_submit(void *ctx, unsigned structure,
		       const struct dta_memop *ops, size_t n);
int switch_sink_flush(void *ctx);
/* The notify hook: a zero-length RDMA WRITE Only with Immediate on the
 * structure's queue pair, kept and resent like its writes; nothing when
 * the collector's description lacks "notify":1. */
void switch_sink_notify(void *ctx, unsigned structure);
/* Read and act on what came back (ACKs, NAKs: resends), and resend what
 * timed out; call it regularly (every 10 ms or so). Thread-safe. */
void switch_sink_poll(struct switch_sink *s);
/* ,"switch_...":N counters for the translator's JSON. */
void switch_sink_stats_json(struct switch_sink *s, FILE *out);
void switch_sink_destroy(struct switch_sink *s);

#endif
