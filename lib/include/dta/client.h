/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The query client: one handle for "a collector", whatever it is, opened
 * from one target string (docs/client.md):
 *
 *   unix:PATH            a collector's query socket (binary frames)
 *   PATH                 the same, when PATH names a socket
 *   config:CONF          every collector of configuration file CONF, each
 *                        through its socket; keys are routed to the
 *                        collector holding their share (dta_shard()),
 *                        Append lists to the collector holding them
 *   map:CONF             the same structures mapped read-only from the
 *                        collectors' shared memory on this machine:
 *                        queries run in this process at the library's rate
 *   snapshot:DIR?config=CONF
 *                        the snapshot files DIR/NAME.dta of CONF's
 *                        structures (one collector's; with several, DIR
 *                        holds each collector's files in DIR/COLLECTOR/,
 *                        COLLECTOR its dta_config_collector_id(); with
 *                        ?collector=NAME, DIR holds that one's files)
 *   file:PATH[,PATH..][?config=CONF]
 *                        snapshot files, each one structure (value sets,
 *                        list bases and schemas from CONF's sections of
 *                        the same names, when given)
 *
 * "config:", "map:" and "snapshot:" take ?collector=NAME to use only that
 * collector's share of each structure (its own list numbering for Append).
 * "config:" connects at open to every collector holding a share; "map:"
 * also accepts objects of another owner when the collector's shm_mode
 * lets its group read them (as translators do).
 *
 * Every structure is listed with its primitive, geometry, value schema
 * and how many collectors share it; every query takes a batch of keys and
 * answers it with arrays, whichever backend answers. Answers are the
 * executor's (dta/exec.h): identical from a socket, a mapping or a
 * snapshot of the same memory.
 *
 * Errors: negative errno or -DTA_E_*; dta_client_error() then holds a
 * message naming what failed (the collector, the structure, the file).
 * A handle is used by one thread at a time; open one per thread.
 */
#ifndef DTA_CLIENT_H
#define DTA_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/keywrite.h"
#include "dta/layout.h"
#include "dta/postcard.h"
#include "dta/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dta_client_opts.flags */
#define DTA_CLIENT_TEXT 0x1 /* sockets: speak text lines, not frames (for
			     * comparison and old collectors) */
#define DTA_CLIENT_ANY_OWNER 0x2 /* map: accept shared-memory objects of
				  * another user (a member of the
				  * collector's group) */

/**
 * struct dta_client_opts - options for dta_client_open(); may be NULL.
 * @sz:    sizeof(struct dta_client_opts).
 * @flags: DTA_CLIENT_*.
 */
struct dta_client_opts {
	size_t sz;
	unsigned flags;
};

struct dta_client;        /* opaque */
struct dta_client_cursor; /* opaque: one Append list being followed */

/**
 * dta_client_open() - open @target (above).
 * @err: receives why not (may be NULL; truncated to @errlen).
 * Return: 0; -EINVAL (malformed target); -ENOENT (no such socket, file or
 * shared-memory object); -EPERM (a peer or object whose owner we do not
 * trust, docs/security.md); -ECONNREFUSED; -DTA_E_MALFORMED (bad
 * configuration); -DTA_E_PROTOCOL (the peer does not speak the protocol);
 * other -errno. On error *@out is NULL.
 */
DTA_API int dta_client_open(const char *target,
			    const struct dta_client_opts *opts,
			    struct dta_client **out, char *err, size_t errlen);
/* NULL is fine; closes every cursor too. */
DTA_API void dta_client_close(struct dta_client *c);

/* The message of the last error this handle returned ("" after success). */
DTA_API const char *dta_client_error(const struct dta_client *c);

/**
 * struct dta_client_structure - a structure as the client sees it.
 * @name:      its name.
 * @layout:    geometry and hash functions (of each share).
 * @schema:    its values' schema (Key-Write data, Append entries), or
 *             NULL when none is declared.
 * @shares:    collectors it is partitioned over (1: not partitioned).
 * @lists:     Append: lists over all shares (lists of one share times
 *             @shares); 0 otherwise.
 * @list_base: Append: report list id of list 0.
 * @values, @nvalues: Postcarding: the known value set, or NULL and 0.
 */
struct dta_client_structure {
	const char *name;
	struct dta_layout layout;
	const struct dta_schema *schema;
	unsigned shares;
	uint32_t lists;
	uint32_t list_base;
	const uint32_t *values;
	size_t nvalues;
};

DTA_API size_t dta_client_count(const struct dta_client *c);
/* Structure @i (0..count-1), or NULL. Valid while @c is open. */
DTA_API const struct dta_client_structure *
dta_client_structure(const struct dta_client *c, size_t i);
/* Index of structure @name, or -ENOENT. */
DTA_API int dta_client_find(const struct dta_client *c, const char *name);

/*
 * Batched gets on structure @name: @n keys of @klen bytes back to back in
 * @keys (any @n: the client splits it into frames and routes each key to
 * its share). Results as dta_exec_kw(), _pc(), _ki() give them, in key
 * order.
 * Return: 0; -ENOENT (no such structure); -DTA_E_PRIMITIVE; -EINVAL;
 * -DTA_E_NOVALUES; -EPIPE or -ECONNRESET (a collector went away; the
 * message names it); -ENOMEM.
 */
/* Key-Write: @data receives @n * data_len bytes. @o may be NULL. */
DTA_API int dta_client_kw_get(struct dta_client *c, const char *name,
			      const void *keys, size_t klen, size_t n,
			      const struct dta_kw_query_opts *o,
			      struct dta_kw_result *res, void *data);
DTA_API int dta_client_pc_get(struct dta_client *c, const char *name,
			      const void *keys, size_t klen, size_t n,
			      struct dta_pc_result *res);
DTA_API int dta_client_ki_get(struct dta_client *c, const char *name,
			      const void *keys, size_t klen, size_t n,
			      unsigned bank, uint64_t *counts);

/**
 * dta_client_ap_open() - follow Append list @list of structure @name
 * (numbered over all shares: share k holds lists k * lists-per-share ..),
 * starting at @from (DTA_EXEC_AP_OLDEST or DTA_EXEC_AP_NOW of dta/exec.h).
 * Return: 0; -ENOENT; -DTA_E_PRIMITIVE; -DTA_E_MISMATCH (@list out of
 * range); -ENOSPC (too many lists followed on one collector connection);
 * -ENOMEM.
 */
DTA_API int dta_client_ap_open(struct dta_client *c, const char *name,
			       uint32_t list, int from,
			       struct dta_client_cursor **out);
/**
 * dta_client_ap_open_at() - dta_client_ap_open() resuming at entry
 * @position of the list: a value dta_client_ap_position() gave an earlier
 * cursor on the same list (dta-export saves them across restarts). The
 * first read returns the entries from @position on that the ring still
 * holds, and counts the ones it overwrote since in *@lost
 * (dta_ap_reader_create_at(); sockets: AP frames with from = 2 and the
 * position as payload, or text "ap NAME LIST MAX at POS", which older
 * collectors refuse). dta_client_ap_position() is @position until then.
 * Return: as dta_client_ap_open().
 */
DTA_API int dta_client_ap_open_at(struct dta_client *c, const char *name,
				  uint32_t list, uint64_t position,
				  struct dta_client_cursor **out);
/**
 * dta_client_ap_read() - up to @max new entries into @buf (@max *
 * entry_size bytes of room); *@lost receives the entries overwritten
 * before this cursor read them (all just before the first returned).
 * Batches are returned whole: @max below the structure's batch_entries
 * is -ENOSPC.
 * Return: entries read (0: nothing new now), or -errno.
 */
DTA_API long dta_client_ap_read(struct dta_client_cursor *cur, void *buf,
				size_t max, uint64_t *lost);
/* Index of the next entry this cursor expects (entries read or lost). */
DTA_API uint64_t dta_client_ap_position(const struct dta_client_cursor *cur);
/* NULL is fine. */
DTA_API void dta_client_ap_close(struct dta_client_cursor *cur);

/**
 * dta_client_wait() - wait for a notification on structure @name: a
 * report carrying the immediate flag (DTA_FLAG_IMMEDIATE) written to it
 * (docs/client.md "Notifications"). Locally (map:) the caller waits on the
 * structure's own sequence word in the collector's memory (a futex);
 * through a socket, on a second connection the client opens for it, the
 * collector answers a `wait` when the structure moves.
 * @seq:        in: the sequence last seen (what the last call gave; any
 *              value the first time); out: the structure's sequence now
 *              (over all shares: their sum, mod 2^32).
 * @timeout_ms: how long to wait at most (0: only read the sequence).
 * Return: 1 when the sequence differs from *@seq on entry (at once if it
 * already did), 0 when the time ran out; -ENOENT; -EOPNOTSUPP (snapshot
 * files: nothing arrives); -EINVAL; -errno of the connection.
 */
DTA_API int dta_client_wait(struct dta_client *c, const char *name,
			    uint32_t *seq, int timeout_ms);

/**
 * dta_client_request() - send text request @req (docs/collector-protocol.md,
 * e.g. "stats", "snapshot") to collector @collector (configuration index;
 * 0 for a single socket) and return its JSON answer in *@answer (malloc'd,
 * the caller frees it). Local backends (map, snapshot, file) answer only
 * the executor's requests (info, kw, pc, ki, ap).
 * Return: 0; -EOPNOTSUPP (a local backend and a request only a collector
 * answers); -ENOENT (no such collector); -EPIPE, -ECONNRESET; -ENOMEM.
 */
DTA_API int dta_client_request(struct dta_client *c, unsigned collector,
			       const char *req, char **answer);

#ifdef __cplusplus
}
#endif
#endif /* DTA_CLIENT_H */
