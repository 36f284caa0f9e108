/* SPDX-License-Identifier: BSD-3-Clause */
/* dta-translator's RDMA sink (translator/rdma_sink.c, docs/rdma.md). */
#ifndef DTA_TRANSLATOR_RDMA_SINK_H
#define DTA_TRANSLATOR_RDMA_SINK_H

#include "tools.h"

struct rdma_sink;

/*
 * Connect to the collector at @host:@port, receive its structure
 * descriptions and check them against @cfg: structure i of @cfg becomes
 * sink index i. Return 0, or -1 with a message in @err.
 */
int rdma_sink_connect(const char *host, uint16_t port,
		      const struct dta_config *cfg, struct rdma_sink **out,
		      char *err, size_t errlen);
/*
 * struct dta_sink callbacks (ctx: the rdma_sink); thread-safe. When the
 * connection breaks (completion error, collector gone), submit reconnects
 * with backoff (0.1 s doubling to 5 s); meanwhile Key-Write, Postcarding
 * and Key-Increment operations fail (the core counts them) while Append
 * frames are kept, with those written but not known complete, and re-sent
 * after the reconnect: no Append entry is lost.
 */
int rdma_sink_submit(void *ctx, unsigned structure, const struct dta_memop *ops,
		     size_t n);
int rdma_sink_flush(void *ctx);
struct rdma_sink_stats {
	uint64_t ops, bytes; /* work requests posted, bytes written */
	uint64_t errors;     /* completion errors (each breaks the connection) */
	uint64_t reconnects; /* successful reconnections */
	uint64_t dropped;    /* Append frames that could not be kept for resend */
	uint64_t queued;     /* Append frames not yet known written */
};
void rdma_sink_stats(struct rdma_sink *s, struct rdma_sink_stats *st);
/* If the connection is broken, try to reconnect now (within the backoff)
 * and re-send queued Append frames; call it regularly so a quiet stream
 * does not leave frames queued. */
void rdma_sink_retry(struct rdma_sink *s);
/* Where Append list @list of sink structure @structure should continue, as
 * the collector reported when this sink first connected. Return 1 with
 * *@out, or 0 when the list is empty (or not an Append structure). */
int rdma_sink_ap_cursor(const struct rdma_sink *s, unsigned structure,
			uint32_t list, struct dta_ap_cursor *out);
void rdma_sink_destroy(struct rdma_sink *s);

#endif
