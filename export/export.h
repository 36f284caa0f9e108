/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-export's core (docs/export.md): a bounded buffer of rows between
 * producers (the Append cursors of the core itself; Key-Increment epochs,
 * epochs.c) and the sinks (sink.h). Not part of libdta's API.
 *
 * Rows enter the buffer in order; each sink delivers them in that order
 * and acknowledges a prefix; a row leaves the buffer once every sink
 * acknowledged it, and only then does its producer hear that it is
 * delivered (export_producer.delivered) and may persist its own cursor.
 * That is the whole delivery contract: at-least-once, in order per sink.
 *
 * Single-threaded: everything runs on the thread of export_core_run().
 */
#ifndef DTA_EXPORT_EXPORT_H
#define DTA_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dta/config.h"
#include "sink.h"

struct export_core;

/* [export] settings, with the defaults of docs/export.md applied. */
struct export_settings {
	char source[4096];     /* client target; default "config:CONF" */
	char structures[1024]; /* comma list; "" = every Append structure */
	char state_dir[4096];  /* default EXPORT_STATE_DIR */
	uint64_t batch_rows;   /* default 65536 */
	uint64_t flush_ms;     /* default 1000 */
	uint64_t buffer_rows;  /* default 1000000 */
	uint64_t poll_ms;      /* default 100 */
	char metrics_listen[64];
};

#define EXPORT_STATE_DIR "/var/lib/dta/export"

/* Is @name in the comma (or blank) separated @list? "" holds every name. */
bool export_listed(const char *list, const char *name);

/* Read [export] of @cfg (loaded from @conf_path) into @s. Return 0 or
 * -EINVAL with @err set (a number out of range). */
int export_settings_read(const struct dta_config *cfg, const char *conf_path,
			 struct export_settings *s, char *err, size_t errlen);

/*
 * A producer of rows other than the core's Append cursors (epochs.c).
 * @poll:      push rows with export_push() while export_room() allows;
 *             return rows pushed (0: none now) or -errno (logged; the
 *             core goes on).
 * @delivered: every row this producer pushed with a tag up to @tag (tags
 *             increase) is acknowledged by every sink.
 * @close:     free @ctx.
 */
struct export_producer {
	const char *name;
	int (*poll)(void *ctx, struct export_core *x);
	void (*delivered)(void *ctx, uint64_t tag);
	void (*close)(void *ctx);
	void *ctx;
};

/*
 * export_epochs_open() - the producer of closed Key-Increment epochs
 * (epochs.c): registered when a collector of @cfg holds a structure with
 * epochs that [export] structures lists. Return 1 (registered), 0 (none
 * to export) or -errno with @err set.
 */
int export_epochs_open(struct export_core *x, const struct dta_config *cfg,
		       const struct export_settings *s, char *err,
		       size_t errlen);

/* Register @p (copied). Return its id (>= 0) or -ENOSPC. */
int export_add_producer(struct export_core *x, const struct export_producer *p);
/* Rows the buffer takes now. */
size_t export_room(const struct export_core *x);
/*
 * Copy row @r (its strings, entry and key bytes too) into the buffer for
 * producer @producer with @tag. Return 0; -ENOBUFS (buffer full: push
 * nothing more this poll); -EINVAL.
 */
int export_push(struct export_core *x, int producer, const struct export_row *r,
		uint64_t tag);

/* Losses: add @n to the count of (@collector, @structure, @cause);
 * persisted with the state and exposed as metrics. Causes: "overwritten"
 * (the ring lapped the exporter), "buffer_full" (the ring lapped it while
 * the buffer was full because a sink was down or slow), "epoch" (epochs.c
 * may add its own). Return 0 or -ENOSPC (too many distinct triples). */
int export_count_lost(struct export_core *x, const char *collector,
		      const char *structure, const char *cause, uint64_t n);

/* The state directory (created and checked by export_core_open()). */
const char *export_state_dir(const struct export_core *x);

/*
 * The sinks this build has, in order: ClickHouse, then (with libnats)
 * NATS JetStream. Each opens only when its keys are in [export].
 */
extern const struct export_sink_ops *const export_sinks[];
extern const size_t export_nsinks;

/*
 * export_core_open() - check/create the state directory, open the client
 * on s->source, follow every exported Append list from its saved cursor
 * (or from the oldest entry the first time), open every configured sink.
 * Return: 0; -ENOENT (no sink configured, no structure to export); other
 * -errno with @err set.
 */
int export_core_open(const struct dta_config *cfg,
		     const struct export_settings *s, struct export_core **out,
		     char *err, size_t errlen);
/* Run until *@stop becomes nonzero, then deliver what the buffer holds
 * (within a bounded time) and save the state. Return 0 or -errno. */
int export_core_run(struct export_core *x, volatile int *stop);
void export_core_close(struct export_core *x);

/* Stats JSON (for metrics and --stats). */
void export_core_stats(void *x, FILE *f);

/* ClickHouse DDL for every exported structure (--print-schema). @cluster:
 * the remote_servers cluster of the Distributed tables; @on_cluster: add
 * ON CLUSTER (needs ZooKeeper) instead of running it on every server.
 * Return 0 or -errno. */
int export_clickhouse_ddl(const struct dta_config *cfg,
			  const struct export_settings *s, const char *cluster,
			  bool on_cluster, FILE *out, char *err, size_t errlen);

#endif
