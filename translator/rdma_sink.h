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
/* struct dta_sink callbacks (ctx: the rdma_sink); thread-safe. */
int rdma_sink_submit(void *ctx, unsigned structure, const struct dta_memop *ops,
		     size_t n);
int rdma_sink_flush(void *ctx);
void rdma_sink_stats(struct rdma_sink *s, uint64_t *ops, uint64_t *bytes,
		     uint64_t *errors);
void rdma_sink_destroy(struct rdma_sink *s);

#endif
