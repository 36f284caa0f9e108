/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NATS JetStream sink's pieces that tests and tools use besides the
 * ops table (export/sink.h): how a row becomes a message, and counters
 * beyond export_sink_ops.stats. docs/export.md "NATS JetStream".
 */
#ifndef DTA_EXPORT_SINK_NATS_H
#define DTA_EXPORT_SINK_NATS_H

#include <stddef.h>
#include <stdint.h>

#include "sink.h"

/* 1 when @p is a subject prefix: tokens of printable non-blank ASCII
 * separated by single dots, no wildcard ('*', '>'), 1..200 bytes. */
int export_nats_prefix_ok(const char *p);

/* The subject of row @r: PREFIX.COLLECTOR.STRUCTURE (a byte of a name
 * that would split or wildcard the subject becomes '_').
 * Return: its length; -ENOSPC when it does not fit @cap. */
int export_nats_subject(const char *prefix, const struct export_row *r,
			char *out, size_t cap);

/* The row's id, the message's Nats-Msg-Id: COLLECTOR/STRUCTURE/a/LIST/
 * POSITION (Append) or COLLECTOR/STRUCTURE/e/EPOCH/ROW/COLUMN (epochs).
 * Return: its length; -ENOSPC; -EINVAL (unknown kind). */
int export_nats_msg_id(const struct export_row *r, char *out, size_t cap);

/* The message body of row @r: one JSON object (docs/export.md).
 * Return: its length (NUL written when it fits); -ENOSPC when it does
 * not fit @cap; -EINVAL (unknown kind, missing names, an entry shorter
 * than its schema). */
int export_nats_body(const struct export_row *r, char *out, size_t cap);

struct export_nats_counters {
	uint64_t batches, rows, retries; /* as export_sink_ops.stats */
	uint64_t acked;      /* positive acks, duplicates included */
	uint64_t duplicates; /* acks saying JetStream had the Msg-Id */
	uint64_t failed;     /* negative acks (no leader, stream errors); a
			      * message with no ack in time fails its batch
			      * without being counted here */
};

/* @s's counters (zero for NULL). @s must come from export_sink_nats. */
void export_nats_counters(const struct export_sink *s,
			  struct export_nats_counters *c);

#endif
