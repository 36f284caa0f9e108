/* SPDX-License-Identifier: BSD-3-Clause */
/* The collector's RDMA side (collector/rdma.c, docs/rdma.md). */
#ifndef DTA_COLLECTOR_RDMA_H
#define DTA_COLLECTOR_RDMA_H

#include <stdio.h>
#include <syslog.h> /* log priorities */

#include "dta/dta.h"

struct coll_rdma_structure {
	const char *name;
	void *area; /* data area, registered as is */
	const struct dta_layout *layout;
	uint32_t list_base;
	struct dta_region *region; /* notifications advance its sequence */
};

struct coll_rdma_opts {
	const char *bind;  /* IPv4 address of the RDMA device to listen on */
	uint16_t port;
	const char *allow; /* "a.b.c.d[/len],..."; empty: refuse everyone */
	size_t n;
	struct coll_rdma_structure s[DTA_CONFIG_MAX_STRUCTURES];
	/* Switch mode (docs/roce.md): queue pairs towards a translator that
	 * crafts RoCEv2 itself, one per structure, moved to ready-to-send
	 * without rdma_cm. NULL switch_peer: none. */
	const char *switch_peer;  /* its IPv4 address */
	uint32_t switch_qpn;      /* its QPN for structure 0; +i for i */
	uint32_t switch_psn;      /* the first PSN it sends */
	const char *switch_meta;  /* where to write the description (or NULL) */
	/* A log line at a syslog priority (LOG_ERR..LOG_DEBUG). */
	void (*log)(int prio, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
};

struct coll_rdma;

/* Register the structures and listen. Return 0 or -errno (logged). */
int coll_rdma_start(const struct coll_rdma_opts *o, struct coll_rdma **out);
/* The descriptor to poll for rdma_cm events and notifications
 * (non-blocking). */
int coll_rdma_fd(const struct coll_rdma *r);
/* Handle every pending connection event and notification. */
void coll_rdma_handle(struct coll_rdma *r);
/* The switch-mode description as one JSON object (docs/roce.md), or
 * {"error":...} when switch mode is off. */
void coll_rdma_switch_json(const struct coll_rdma *r, FILE *out);
/* "rdma":{...} for the stats answer. */
void coll_rdma_stats_json(const struct coll_rdma *r, FILE *out);
void coll_rdma_stop(struct coll_rdma *r);

#endif
