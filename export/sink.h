/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-export's sinks: where drained rows go (ClickHouse, NATS JetStream).
 * The exporter's core reads Append lists, INT events and closed Key-
 * Increment epochs through a dta_client, turns them into rows and hands
 * each sink batches of rows; a sink answers only when the batch is
 * durably accepted (ClickHouse answered 200 to the INSERT; JetStream
 * acknowledged every message), so the core may then advance and persist
 * its cursors. Delivery is at-least-once: a batch the core sends again
 * after a restart or a failure carries the same row ids, which each sink
 * uses to drop duplicates (ReplacingMergeTree on the id columns;
 * JetStream's Nats-Msg-Id header) -- docs/export.md.
 *
 * Contract: functions return 0 or negative errno; -EAGAIN means "not
 * accepted now, nothing is lost: send the same batch again later" (the
 * server is down or refused); anything else is a fault of the batch or
 * the configuration that retrying cannot fix. Sinks never print: they put
 * a message into @err.
 */
#ifndef DTA_EXPORT_SINK_H
#define DTA_EXPORT_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "dta/config.h"
#include "dta/schema.h"

enum export_kind {
	EXPORT_APPEND = 1, /* one Append entry (INT events are Append too) */
	EXPORT_KI_EPOCH,   /* one non-zero counter of a closed epoch */
};

/*
 * One row. The id of a row, unique over everything exported from one
 * configuration, is (collector, structure, list, position) for Append and
 * (collector, structure, epoch, row, column) for epochs.
 */
struct export_row {
	enum export_kind kind;
	const char *collector; /* dta_config_collector_id() of its collector */
	const char *structure;
	uint64_t time_ns;      /* Unix time: when the exporter read it (Append),
				* the epoch's end (epochs) */
	/* EXPORT_APPEND */
	uint32_t list;         /* numbered over all shares (dta/client.h) */
	uint64_t position;     /* index of the entry in its list */
	const uint8_t *entry;  /* the entry's bytes */
	uint32_t entry_len;
	const struct dta_schema *schema; /* decodes @entry; NULL: raw only */
	/* EXPORT_KI_EPOCH */
	uint64_t epoch;        /* epoch number: start time / epoch length */
	uint64_t epoch_start_ns, epoch_len_ns;
	uint32_t row, column;  /* the counter's place in its bank */
	uint64_t count;
	const uint8_t *key;    /* the key, when known; else NULL */
	uint32_t key_len;
};

struct export_batch {
	const struct export_row *rows;
	size_t n;
};

struct export_sink;

struct export_sink_ops {
	const char *name; /* "clickhouse", "nats" */
	/* Open from [export] of @cfg; -ENOENT when this sink is not
	 * configured (its keys are absent). */
	int (*open)(const struct dta_config *cfg, struct export_sink **out,
		    char *err, size_t errlen);
	/* Deliver @b; 0 only once every row is durably accepted. */
	int (*write)(struct export_sink *s, const struct export_batch *b,
		     char *err, size_t errlen);
	/* Counters for metrics: batches and rows accepted, retries. */
	void (*stats)(const struct export_sink *s, uint64_t *batches,
		      uint64_t *rows, uint64_t *retries);
	void (*close)(struct export_sink *s);
	/* Optional (NULL: the sink cannot tell). In *@pos, the position
	 * after the last row of Append list (@collector, @structure, @list)
	 * the sink holds (0: none); -EAGAIN when it cannot tell now. The
	 * core resumes a list at the greater of its saved cursor and the
	 * least answer over all sinks (when every sink answers), so rows
	 * delivered just before a crash, after the last saved cursor, are
	 * neither sent again nor, if the ring overwrote them meanwhile,
	 * counted lost. Rows of a list reach a sink in order. */
	int (*resume)(struct export_sink *s, const char *collector,
		      const char *structure, uint32_t list, uint64_t *pos,
		      char *err, size_t errlen);
};

extern const struct export_sink_ops export_sink_clickhouse;
extern const struct export_sink_ops export_sink_nats;

#endif
