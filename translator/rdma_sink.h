/* SPDX-License-Identifier: BSD-3-Clause */
/* dta-translator's RDMA sink (translator/rdma_sink.c, docs/rdma.md). */
#ifndef DTA_TRANSLATOR_RDMA_SINK_H
#define DTA_TRANSLATOR_RDMA_SINK_H

#include "tools.h"

struct rdma_sink;

/* A structure (or a share of a partitioned one) a collector holds. */
struct rdma_sink_share {
	unsigned index;                /* sink index: the translator core's */
	const char *name;              /* the collector's name for it */
	const struct dta_layout *layout;
	uint32_t list_base;            /* Append: must match the collector's */
};

/* One collector and what it holds. */
struct rdma_sink_target {
	char host[256];
	uint16_t port;
	size_t n;
	struct rdma_sink_share share[DTA_CONFIG_MAX_STRUCTURES];
};

/*
 * Connect @qps queue pairs to each of the @ntg collectors, receive their
 * structure descriptions and check them against what @tg says they hold.
 * Names and layouts in @tg must outlive the sink. Each thread that submits
 * sticks to one queue pair per collector. Return 0, or -1 with a message
 * in @err.
 */
int rdma_sink_connect(const struct rdma_sink_target *tg, size_t ntg,
		      unsigned qps, struct rdma_sink **out, char *err,
		      size_t errlen);
/*
 * struct dta_sink callbacks (ctx: the rdma_sink); thread-safe. When a
 * connection breaks (completion error, collector gone), rdma_sink_retry()
 * reconnects it with backoff (0.1 s doubling to 5 s), without holding up
 * the workers: meanwhile Key-Write, Postcarding and Key-Increment
 * operations on it fail (the core counts them) while Append frames are
 * kept, with those written but not known complete, and re-sent after the
 * reconnect: no Append entry is lost.
 */
int rdma_sink_submit(void *ctx, unsigned structure, const struct dta_memop *ops,
		     size_t n);
int rdma_sink_flush(void *ctx);
/* struct dta_sink's notify hook: a write with immediate to @structure on
 * the queue pair the calling thread writes it on (collectors that do not
 * take them: nothing). */
void rdma_sink_notify(void *ctx, unsigned structure);
struct rdma_sink_stats {
	uint64_t ops, bytes; /* work requests posted, bytes written */
	uint64_t errors;     /* completion errors (each breaks the connection) */
	uint64_t reconnects; /* successful reconnections */
	uint64_t dropped;    /* Append frames that could not be kept for resend */
	uint64_t queued;     /* Append frames not yet known written */
	uint64_t connections; /* queue pairs, over all collectors */
	uint64_t notifies;      /* writes with immediate posted */
	uint64_t notifies_lost; /* not posted: connection down */
};
void rdma_sink_stats(struct rdma_sink *s, struct rdma_sink_stats *st);
/* Observe into @h (ns; NULL: stop) the time from posting each signalled
 * request to its completion: one request in SIGNAL_EVERY (32) and every
 * flush marker; the unsignalled ones before it complete with it. */
struct metrics_hist;
void rdma_sink_set_latency(struct rdma_sink *s, struct metrics_hist *h);
/* Reconnect broken connections (within the backoff) and re-send their
 * queued Append frames. The only place connections are re-established:
 * call it regularly from a thread that is not a worker (dta-translator:
 * its main loop, every 50 ms); it may take seconds. */
void rdma_sink_retry(struct rdma_sink *s);
/* Where Append list @list of sink structure @structure should continue, as
 * its collector reported when the sink first connected. Return 1 with
 * *@out, or 0 when the list is empty (or not an Append structure). */
int rdma_sink_ap_cursor(const struct rdma_sink *s, unsigned structure,
			uint32_t list, struct dta_ap_cursor *out);
void rdma_sink_destroy(struct rdma_sink *s);

#endif
