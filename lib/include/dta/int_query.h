/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The INT questions (docs/int.md "Querying INT structures", "From C"),
 * asked through a query client (dta/client.h): which switches a flow
 * crossed, what each hop measured, the drop and congestion events stored,
 * and the report counts of flows and queues. Each call takes a batch and
 * answers it with arrays, in as few client calls as the question needs
 * (paths of n flows: one; n hop records: one), whatever the
 * client is opened on (a collector's socket, the collectors of a
 * configuration, their shared memory, snapshot files).
 *
 * Which structure answers which question is the [int] section of the
 * configuration the translator was given (docs/int.md "Roles"):
 * dta_int_roles_config() reads it. A client opened on a bare socket has no
 * configuration, and collectors do not report roles in `info`: fill
 * struct dta_int_roles by hand (the structure names) or read the
 * configuration file.
 *
 * Keys: a flow is its 13-byte (IPv4) or 37-byte (IPv6) 5-tuple key
 * (docs/int.md "Keys", dta_int_flow_key()); switch ids are host-order
 * integers, written big-endian into keys as the translator does.
 *
 * Errors: negative errno or -DTA_E_*, and dta_client_error() of the
 * client then says what failed. A role the roles leave out is -ENOENT
 * ("[int] has no hops structure (hops = NAME)"). The library does not
 * print. Calls use the client, so one thread at a time per client.
 */
#ifndef DTA_INT_QUERY_H
#define DTA_INT_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/client.h"
#include "dta/common.h"
#include "dta/config.h"
#include "dta/translator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A switch id or measurement the switch did not report (all ones). */
#define DTA_INT_NONE UINT32_MAX
/* Switch ids of a path at most: a Key-Write path of DTA_DATA_MAX bytes. */
#define DTA_INT_PATH_MAX 256

/**
 * struct dta_int_roles - the structure (name, "" when unused) of each INT
 * role, as the [int] section gives them (docs/int.md "Roles").
 * @sz:         sizeof(struct dta_int_roles).
 * @path_kw:    Key-Write, flow -> switch ids of its path.
 * @path_pc:    Postcarding, (flow, hop) -> switch id.
 * @hop_kw:     Key-Write, flow + switch id -> DTA_INT_HOP_DATA_LEN record.
 * @events_ap:  Append, DTA_INT_EVENT_SIZE entries.
 * @events_by:  enum dta_int_events_by: which list an event went to.
 * @flow_ki:    Key-Increment, flow -> reports.
 * @queue_ki:   Key-Increment, switch id + queue id -> reports.
 * @redundancy: Key-Write copies a query looks at (the translator's N);
 *              0: each structure's max_redundancy.
 */
struct dta_int_roles {
	size_t sz;
	char path_kw[DTA_CONFIG_NAME_MAX];
	char path_pc[DTA_CONFIG_NAME_MAX];
	char hop_kw[DTA_CONFIG_NAME_MAX];
	char events_ap[DTA_CONFIG_NAME_MAX];
	unsigned events_by;
	char flow_ki[DTA_CONFIG_NAME_MAX];
	char queue_ki[DTA_CONFIG_NAME_MAX];
	unsigned redundancy;
};

/**
 * dta_int_roles_config() - the roles of @cfg's [int] section
 * (dta_config_int_map()). @r->sz must be set.
 * Return: 1 (an [int] section), 0 (none: every role ""), -EINVAL.
 */
DTA_API int dta_int_roles_config(const struct dta_config *cfg,
				 struct dta_int_roles *r);

/* dta_int_paths() @which */
#define DTA_INT_PATH_AUTO 0 /* path_kw when there is one, else path_pc */
#define DTA_INT_PATH_KW 1   /* path_kw (paths of INT-MD reports) */
#define DTA_INT_PATH_PC 2   /* path_pc (postcard-style reports) */

/**
 * struct dta_int_path - a flow's path.
 * @status:     enum dta_query_status of the path structure's answer.
 * @primitive:  DTA_PRIM_KEY_WRITE or DTA_PRIM_POSTCARD: which answered.
 * @n:          switch ids in @sw (FOUND; else 0).
 * @sw:         first hop first; DTA_INT_NONE for a hop without switch
 *              id. Key-Write: the data as big-endian u32s, the padding
 *              (DTA_INT_NONE) after the last hop removed. Postcarding: the
 *              decoded hop values, trailing DTA_INT_NONE removed too.
 * @votes, @candidates: Key-Write: as struct dta_kw_result.
 * @valid_copies: Postcarding: as struct dta_pc_result.
 */
struct dta_int_path {
	int status;
	int primitive;
	unsigned n;
	uint32_t sw[DTA_INT_PATH_MAX];
	unsigned votes, candidates;
	unsigned valid_copies;
};

/**
 * dta_int_paths() - the paths of @n flows (@flows: @n keys of @klen bytes,
 * 13 or 37, back to back) from the path structure @which names: one
 * batched client call.
 * Return: 0 (@out[0..n-1] filled); -EINVAL (NULL, @r->sz too small, @klen
 * not 13 or 37, @which unknown); -ENOENT (no such role, or the client has
 * no such structure); -DTA_E_PRIMITIVE or -DTA_E_MISMATCH (the structure
 * cannot be the role: a Key-Write data length not a multiple of 4); the
 * client's errors.
 */
DTA_API int dta_int_paths(struct dta_client *c, const struct dta_int_roles *r,
			  unsigned which, const void *flows, size_t klen,
			  size_t n, struct dta_int_path *out);

/* struct dta_int_hop_record.status of a hop without switch id (never
 * asked). */
#define DTA_INT_NO_SWITCH (-1)

/**
 * struct dta_int_hop_record - what hop_kw holds for (flow, switch).
 * @switch_id: the switch asked about (DTA_INT_NONE: none).
 * @status:    enum dta_query_status, or DTA_INT_NO_SWITCH.
 * @hop:       the record decoded (dta_int_hop_decode()), when FOUND.
 * @clean:     FOUND and the data's bytes past DTA_INT_HOP_DATA_LEN are
 *             zero, as the translator writes them.
 * @votes, @candidates: as struct dta_kw_result.
 */
struct dta_int_hop_record {
	uint32_t switch_id;
	int status;
	struct dta_int_hop hop;
	bool clean;
	unsigned votes, candidates;
};

/**
 * dta_int_hop_records() - the hop records of flow @flows[i] (@n keys of
 * @klen bytes, 13 or 37, back to back: repeat one flow's key for the hops
 * of its path) at switch @sw[i] (a path's @sw; DTA_INT_NONE entries are
 * not asked: status DTA_INT_NO_SWITCH): one batched Key-Write get of the
 * keys flow + big-endian switch id.
 * Return: 0; -EINVAL; -ENOENT (no hops role or structure);
 * -DTA_E_MISMATCH (data shorter than DTA_INT_HOP_DATA_LEN); the client's.
 */
DTA_API int dta_int_hop_records(struct dta_client *c,
				const struct dta_int_roles *r,
				const void *flows, size_t klen,
				const uint32_t *sw, size_t n,
				struct dta_int_hop_record *out);

/**
 * dta_int_flow_counts() - the reports counted for @n flows (flow_ki,
 * count-min estimates, never below the truth): one batched client call.
 * Return: 0; -EINVAL; -ENOENT; the client's errors.
 */
DTA_API int dta_int_flow_counts(struct dta_client *c,
				const struct dta_int_roles *r,
				const void *flows, size_t klen, size_t n,
				uint64_t *counts);

/**
 * dta_int_queue_counts() - the reports counted for @n queues (queue_ki,
 * key switch id + queue id) @sw[i], @queue[i]: one batched client call.
 * Return: as dta_int_flow_counts().
 */
DTA_API int dta_int_queue_counts(struct dta_client *c,
				 const struct dta_int_roles *r,
				 const uint32_t *sw, const uint8_t *queue,
				 size_t n, uint64_t *counts);

/* struct dta_int_event_filter: a field that matches anything. */
#define DTA_INT_ANY UINT64_MAX

/**
 * struct dta_int_event_filter - which events a reader returns: those with
 * every given field. NULL filter: every event.
 * @sz:        sizeof(struct dta_int_event_filter).
 * @flags:     DTA_INT_F_DROPPED and/or DTA_INT_F_CONGESTED: events with
 *             any of them; 0: any event.
 * @switch_id, @flow_hash, @reason, @queue: equal to the event's switch id,
 *             flow hash, drop reason, queue id; DTA_INT_ANY: any.
 * @time_from, @time_to: the event's time within [from, to]; 0 and
 *             DTA_INT_ANY: any.
 */
struct dta_int_event_filter {
	size_t sz;
	uint8_t flags;
	uint64_t switch_id;
	uint64_t flow_hash;
	uint64_t reason;
	uint64_t queue;
	uint64_t time_from, time_to;
};

/* Every field DTA_INT_ANY, flags 0, times 0..DTA_INT_ANY. */
DTA_API void dta_int_event_filter_init(struct dta_int_event_filter *f);

struct dta_int_events; /* opaque: a reader over the events' lists */

/**
 * dta_int_events_open() - read the events_ap lists an event matching @f
 * can be in (events_by: one reads list 0; switch with a @f->switch_id only
 * that switch's list, reason with a @f->reason only that reason's; else
 * every list), in every share (a structure partitioned over a fleet's
 * collectors: each one's lists; the lists of a share are
 * layout.g.ap.lists), each from @from
 * (DTA_EXEC_AP_OLDEST or DTA_EXEC_AP_NOW of dta/exec.h). Each list is
 * followed with its own client cursor, opened when the reader reaches it.
 * Return: 0; -EINVAL; -ENOENT (no events role or structure);
 * -DTA_E_PRIMITIVE, -DTA_E_MISMATCH (entries not DTA_INT_EVENT_SIZE
 * bytes); -ENOMEM; the client's errors (dta_client_ap_open()).
 */
DTA_API int dta_int_events_open(struct dta_client *c,
				const struct dta_int_roles *r,
				const struct dta_int_event_filter *f, int from,
				struct dta_int_events **out);

/* The lists read: @first..@last (either may be NULL). */
DTA_API void dta_int_events_lists(const struct dta_int_events *e,
				  uint32_t *first, uint32_t *last);

/**
 * dta_int_events_read() - up to @max matching events, decoded
 * (dta_int_event_decode()), into @ev, and the list of each into @list
 * (may be NULL). Lists are read in order, each until it has nothing new,
 * oldest entry first; one call returns events of one list.
 * Return: events written; 0 when a pass over every list found nothing new
 * (the next call starts again at the first list); or the client's -errno.
 */
DTA_API long dta_int_events_read(struct dta_int_events *e,
				 struct dta_int_event *ev, uint32_t *list,
				 size_t max);

/**
 * dta_int_events_partial() - whether the events read lack collectors
 * ("config:" clients): their number, and in @missing (may be NULL) bit i
 * for collector i, whose lists could not be read (-DTA_E_UNAVAILABLE from
 * the client; the reader goes on with the other lists and tries them
 * again in the next pass). After a read that returned 0 (a pass over
 * every list), the collectors missing from that pass; during a pass,
 * those missing so far in it and the last pass's.
 */
DTA_API unsigned dta_int_events_partial(const struct dta_int_events *e,
					uint32_t *missing);

/* Entries read (matching or not) and entries overwritten before they
 * were read, since open. */
DTA_API void dta_int_events_counts(const struct dta_int_events *e,
				   uint64_t *read, uint64_t *lost);

/* NULL is fine. */
DTA_API void dta_int_events_close(struct dta_int_events *e);

#ifdef __cplusplus
}
#endif
#endif /* DTA_INT_QUERY_H */
