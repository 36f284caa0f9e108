/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translator core: DTA reports in, memory operations out (DTA paper section
 * 5.2). Every translator (the software dta-translator, the RoCE packet
 * builder, the P4 reference model) runs reports through this logic and
 * hands the resulting operations to a *sink* (local shared memory, RDMA,
 * raw RoCEv2 frames).
 *
 * Routing: a translator serves a set of structures, added with
 * dta_translator_add(). A report goes to
 *  - Key-Write: the first Key-Write structure whose data length equals the
 *    report's;
 *  - Postcarding: the first Postcarding structure with hops >= the report's
 *    path length;
 *  - Key-Increment: the first Key-Increment structure;
 *  - Append: the structure whose list range [list_base, list_base + lists)
 *    holds the report's list id (list - list_base is the list written).
 * A report no structure accepts is counted as unknown_structure.
 * INT telemetry reports (dta_translator_process_int()) are not routed
 * this way: a map names the structure of each role (struct dta_int_map,
 * docs/int.md "Mapping").
 *
 * Stateful parts:
 *  - Postcarding cache (default 32768 entries) indexed by a hash of the flow
 *    key that is independent of the chunk hashes. A flow's chunk is emitted
 *    when all hops of its path are present (path length from the report, or
 *    all B hops when reports do not carry it, as legacy ones do), when a
 *    different flow needs the entry (the *evicted* flow is written at the
 *    evicted flow's own chunks), or when the entry is older than the
 *    timeout. Emitting frees the entry: the flow's next postcard starts a
 *    fresh one. An incomplete flow is written as its longest prefix of
 *    consecutive hops from hop 0; hops after a gap are counted as dropped.
 *  - Append batching: per list, entries are collected into a batch of K and
 *    written when full; a partial batch is written when it is older than the
 *    timeout. Ring position and batch sequence numbers come from
 *    dta_ap_ops(), so the ring wraps without double-writing a frame.
 *  - Key-Increment pre-aggregation (optional): increments for the same key
 *    within a window are summed and issued as one fetch-and-add per row.
 *
 * Time is passed in by the caller (nanoseconds, any monotonic origin) so the
 * core is deterministic under test. Timeouts take effect in
 * dta_translator_tick().
 *
 * Thread safety: dta_translator_process(), _process_batch(),
 * _process_int(), _process_int_batch(), _tick() and _flush() may be
 * called concurrently from several threads once all structures are added
 * (and the INT map set); the sink must then be thread-safe too. Postcarding,
 * aggregation and sequence state is protected by striped locks, Append
 * lists by a lock each. While only one thread has ever called, the locks
 * are skipped; the first call from another thread waits for the first
 * thread's call in progress to end and switches every thread to locking
 * for good.
 */
#ifndef DTA_TRANSLATOR_H
#define DTA_TRANSLATOR_H

#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/int.h"
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct dta_sink - where a translator's memory operations go.
 * @submit: perform @n operations on structure @structure (the index
 *          dta_translator_add() returned). WRITE data pointers are valid
 *          only during the call: a sink that defers must copy. Return 0,
 *          or a negative errno; the operations are then counted as
 *          sink_errors (nothing is retried by the core).
 * @flush:  optional; make everything submitted so far visible (e.g. ring a
 *          doorbell, wait for completions). Called by dta_translator_flush().
 * @ctx:    passed back to every hook.
 *
 * Optional hooks (appended; leave them NULL, e.g. by zero-initialising the
 * struct, when the sink has no use for them):
 * @prefetch:    the core will soon write @len bytes at @offset of
 *               @structure: start fetching that memory. A hint only; it
 *               must not fail or write. dta_translator_process_batch()
 *               calls it for the Key-Write and Key-Increment operations of
 *               a window of reports (up to 64, when more than one) before
 *               it submits any of them, for structures of more than 1 MiB
 *               (smaller ones stay in the writing core's cache).
 * @batch_begin: the calling thread is about to submit a run of operations
 *               (one _process() or _process_batch() call, a _tick() or
 *               _flush()); @batch_end follows on the same thread before
 *               the core returns. Never nested on one thread; several
 *               threads may be inside their own runs at once. A sink may
 *               e.g. take a guard once per run instead of once per submit.
 * @notify:      operations submitted in this run to @structure (accepted
 *               by @submit) carried reports with DTA_FLAG_IMMEDIATE: tell
 *               whoever waits on it (dta_region_notify() for local
 *               memory, an RDMA write with immediate). Called on the
 *               run's thread after its last submit and before
 *               @batch_end, at most once per structure per run, however
 *               many such reports the run had. A buffered report
 *               (Postcarding, Append, aggregated Key-Increment) notifies
 *               in the run that writes it, a _tick() or _flush() maybe.
 *               Counted in notifications; without the hook the flag only
 *               counts in reports_immediate.
 * @merge_ops:   0 (the default): @submit gets one report's operations per
 *               call. A sink whose @submit performs all of its operations
 *               or none (it fails only before performing any, as
 *               dta_memops_apply() into local memory does) may set the
 *               most operations it takes in one call: the core then hands
 *               it the Key-Write operations of consecutive reports to one
 *               structure together (reports of one reporter slot, with
 *               dta_translator_set_reporter_slots()), fewer calls for the
 *               same writes in the same order. An error then counts every
 *               report of the call in sink_lost_reports, as it would have
 *               report by report.
 */
struct dta_sink {
	int (*submit)(void *ctx, unsigned structure, const struct dta_memop *ops,
		      size_t n);
	int (*flush)(void *ctx);
	void *ctx;
	void (*prefetch)(void *ctx, unsigned structure, uint64_t offset,
			 uint32_t len);
	void (*batch_begin)(void *ctx);
	void (*batch_end)(void *ctx);
	void (*notify)(void *ctx, unsigned structure);
	unsigned merge_ops;
};

/**
 * struct dta_translator_opts - zero means default for every field.
 * @sz:               sizeof(struct dta_translator_opts) (ABI guard).
 * @pc_cache_entries: Postcarding cache entries (32768).
 * @pc_timeout_ns:    incomplete postcard flows are written after (10 ms).
 * @ap_timeout_ns:    partial Append batches are written after (1 ms).
 * @ki_window_ns:     Key-Increment pre-aggregation window; 0 disables it.
 * @ki_agg_entries:   pre-aggregation table entries (16384).
 * @decode_flags:     DTA_DECODE_* for dta_wire_decode().
 */
struct dta_translator_opts {
	size_t sz;
	uint32_t pc_cache_entries;
	uint64_t pc_timeout_ns;
	uint64_t ap_timeout_ns;
	uint64_t ki_window_ns;
	uint32_t ki_agg_entries;
	unsigned decode_flags;
};

/* Counters; all monotonic since creation. */
struct dta_translator_stats {
	uint64_t packets;            /* payloads given to _process(), counted
				      * when it is done with them */
	uint64_t reports[5];         /* accepted reports, by opcode 1..4 */
	uint64_t malformed;          /* payloads rejected by the decoder */
	uint64_t unknown_structure;  /* reports no structure accepts */
	uint64_t mismatch;           /* reports a structure rejects (sizes) */
	uint64_t seq_lost;           /* reports missing from a reporter's
				      * sequence, once confirmed (below) */
	uint64_t seq_late;           /* reports that arrived out of order
				      * within the window and filled a gap */
	uint64_t seq_restarts;       /* confirmed moves back (restarts) */
	uint64_t ops_write;          /* operations handed to the sink */
	uint64_t ops_fetch_add;
	uint64_t bytes_written;
	uint64_t sink_errors;        /* operations the sink refused: not written, lost */
	uint64_t pc_emitted;         /* chunks written, complete */
	uint64_t pc_evictions;       /* chunks written because evicted */
	uint64_t pc_timeouts;        /* chunks written because timed out */
	uint64_t pc_hops_dropped;    /* hops after a gap, not representable */
	uint64_t pc_duplicates;      /* a hop reported twice for one entry */
	uint64_t ap_batches;         /* full batches written */
	uint64_t ap_partial;         /* partial batches written on timeout */
	uint64_t ki_merged;          /* increments folded into another */
	/* Appended fields; see "Loss accounting" in docs/translator.md. */
	uint64_t reports_in;         /* reports decoded, applied or not */
	uint64_t malformed_truncated; /* malformed, by decoder error: */
	uint64_t malformed_version;
	uint64_t malformed_opcode;
	uint64_t malformed_field;    /* DTA_E_MALFORMED: a bad field value */
	uint64_t malformed_ambiguous;
	uint64_t malformed_too_many; /* more than DTA_WIRE_REPORTS_MAX */
	uint64_t seq_duplicates;     /* a sequence number seen again */
	uint64_t seq_suspect;        /* out-of-window reports nothing confirmed */
	uint64_t seq_jumps;          /* confirmed jumps >= DTA_SEQ_WINDOW ahead */
	uint64_t sink_lost_reports;  /* reports whose refused operations
				      * (sink_errors) carried them */
	uint64_t socket_drops;       /* datagrams the kernel dropped */
	uint64_t rx_truncated;       /* datagrams longer than the buffer */
	uint64_t refused_source;     /* datagrams from outside the allow-list */
	/* INT telemetry reports (dta_translator_process_int(); docs/int.md
	 * "Mapping"). int_reports_in = int_applied + int_unmapped. */
	uint64_t int_datagrams;      /* INT datagrams given to _process_int() */
	uint64_t int_reports_in;     /* reports decoded from them */
	uint64_t int_applied;        /* reports that updated a structure */
	uint64_t int_unmapped;       /* reports no configured role could use */
	uint64_t int_malformed;      /* reports refused (alone, or a datagram whole), by cause: */
	uint64_t int_malformed_truncated;
	uint64_t int_malformed_version;
	uint64_t int_malformed_unsupported;
	uint64_t int_malformed_length;
	uint64_t int_malformed_hops;
	uint64_t int_malformed_other; /* too many reports, bad inner header */
	uint64_t int_updates;        /* structure updates issued for INT */
	uint64_t int_mismatch;       /* updates a structure could not take */
	uint64_t int_path_truncated; /* paths longer than the path structure */
	uint64_t int_seq_lost;       /* INT sequence accounting, as seq_* */
	uint64_t int_seq_late;
	uint64_t int_seq_duplicates;
	uint64_t int_seq_jumps;
	uint64_t int_seq_restarts;
	uint64_t int_seq_suspect;
	uint64_t int_seq_untracked;  /* datagrams of reporters beyond the
				      * table (DTA_INT_REPORTERS_MAX) */
	/* Notifications (struct dta_sink @notify). */
	uint64_t reports_immediate;  /* applied reports carrying
				      * DTA_FLAG_IMMEDIATE */
	uint64_t notifications;      /* sink notify calls: at most one per
				      * structure per run */
	uint64_t pc_ttl_ties;        /* INT postcards not placed: another
				      * switch id already holds their TTL
				      * (docs/int.md "Hop index") */
	uint64_t int_seq_skipped;    /* INT sequence numbers confirmed jumps
				      * went over (lost, or never sent: not
				      * in int_seq_lost) */
};

/*
 * Sequence accounting (v1 reports; docs/translator.md "Sequence
 * accounting" is the normative rule). Per reporter the translator keeps
 * the highest accepted sequence number and which of the DTA_SEQ_WINDOW
 * numbers below it have arrived. A report up to DTA_SEQ_WINDOW - 1 ahead
 * is accepted at once; a number that leaves the window unseen counts as
 * seq_lost. A report further ahead, or more than DTA_SEQ_WINDOW behind, is
 * only a candidate: the reporter's next report confirms it (it follows the
 * candidate within the window: a jump, or a restart when it went back) or
 * dismisses it (it is in the old window: the candidate counts as
 * seq_suspect). Every decodable report is applied whatever its number.
 */
#define DTA_SEQ_WINDOW 64

/* Losses a receiver sees before the core: dta_translator_count_input(). */
enum dta_input_loss {
	DTA_INPUT_SOCKET_DROP = 1, /* datagrams the kernel dropped */
	DTA_INPUT_TRUNCATED,       /* datagrams longer than the buffer */
	DTA_INPUT_REFUSED_SOURCE,  /* datagrams from a refused source */
};

struct dta_translator; /* opaque */

/**
 * dta_translator_create() - a translator core with no structures.
 * @opts: may be NULL for defaults.
 * @sink: copied; submit is required.
 * Return: 0, -EINVAL, -ENOMEM.
 */
DTA_API int dta_translator_create(const struct dta_translator_opts *opts,
				  const struct dta_sink *sink,
				  struct dta_translator **out);

/* Flushes nothing: call dta_translator_flush() first to keep pending
 * postcards, batches and aggregated increments. NULL is fine. */
DTA_API void dta_translator_destroy(struct dta_translator *t);

/**
 * dta_translator_add() - serve a structure.
 * @l:         its layout (copied).
 * @list_base: Append only: report list id of the structure's list 0.
 * Must not race with _process().
 * Return: the structure's index (>= 0) for the sink, -EINVAL, -ENOMEM,
 * -EEXIST (an Append list range overlaps another structure's).
 */
DTA_API int dta_translator_add(struct dta_translator *t,
			       const struct dta_layout *l, uint32_t list_base);

/**
 * dta_translator_add_shard() - serve share @shard of a Key-Write,
 * Postcarding or Key-Increment structure partitioned by key over @nshards
 * collectors: a report the structure takes goes to the share
 * dta_shard(key, @nshards). Add the shares one after another, 0 first, all
 * with the same layout; each gets its own index for the sink. (Append
 * structures are partitioned by list id instead: add each collector's
 * lists as a structure with its own @list_base.)
 * Return: as dta_translator_add(), and -EINVAL for shares out of order or
 * an Append layout with @nshards > 1.
 */
DTA_API int dta_translator_add_shard(struct dta_translator *t,
				     const struct dta_layout *l,
				     uint32_t list_base, unsigned shard,
				     unsigned nshards);

/**
 * dta_translator_set_ap_cursor() - resume an Append list where a previous
 * writer stopped (see dta_ap_cursor_recover()). Must not race with
 * _process(). Return: 0, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH.
 */
struct dta_ap_cursor;
DTA_API int dta_translator_set_ap_cursor(struct dta_translator *t,
					 unsigned structure, uint32_t list,
					 const struct dta_ap_cursor *cur);

/**
 * dta_translator_set_ki_bank() - which bank Key-Increment updates of
 * @structure go to (epoch switching with two banks). Aggregated increments
 * still pending go to the bank current when they are issued.
 * Return: 0, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_RANGE.
 */
DTA_API int dta_translator_set_ki_bank(struct dta_translator *t,
				       unsigned structure, unsigned bank);

/**
 * dta_translator_process() - decode one UDP payload and translate every
 * report in it.
 * @now_ns: the caller's clock.
 * Every report of a payload up to DTA_PAYLOAD_MAX bytes is decoded (at
 * most DTA_WIRE_REPORTS_MAX fit); a longer payload with more reports is
 * refused whole as malformed_too_many.
 * Return: reports translated (possibly 0 if none had a structure), or the
 * decoder's negative error (the payload is counted as malformed, and by
 * cause, and nothing of it is applied).
 */
DTA_API int dta_translator_process(struct dta_translator *t, const void *buf,
				   size_t len, uint64_t now_ns);

/**
 * struct dta_payload - one received UDP payload, for
 * dta_translator_process_batch().
 */
struct dta_payload {
	const void *buf;
	size_t len;
};

/**
 * dta_translator_process_batch() - dta_translator_process() for @n payloads
 * received together, with the same results and counters as calling it on
 * each in order. The batch lets the core hash every report first and start
 * the memory accesses of all of them before it writes any.
 * Return: reports translated in all payloads (malformed payloads are
 * counted and skipped), or -EINVAL for NULL @t or @p with @n > 0.
 */
DTA_API int dta_translator_process_batch(struct dta_translator *t,
					 const struct dta_payload *p, size_t n,
					 uint64_t now_ns);

/**
 * dta_translator_tick() - write what has timed out at @now_ns: incomplete
 * postcard flows, partial Append batches, aggregated increments. Call it
 * regularly (e.g. every quarter of the shortest timeout). Return: operations
 * issued, or -EINVAL.
 */
DTA_API int dta_translator_tick(struct dta_translator *t, uint64_t now_ns);

/**
 * dta_translator_flush() - write everything pending regardless of age, then
 * call the sink's flush. Use before shutdown. It also settles sequence
 * accounting: numbers still missing inside a reporter's window count as
 * seq_lost and an unconfirmed candidate as seq_suspect (a missing number
 * arriving later counts as seq_duplicates). Must not race with
 * _process() for the settling to be exact. Return: 0, or the sink flush
 * error.
 */
DTA_API int dta_translator_flush(struct dta_translator *t);

/**
 * dta_translator_count_input() - add @n to the counter of @cause (enum
 * dta_input_loss): datagrams the receiving program lost or refused before
 * they reached dta_translator_process(), so every loss is in one struct.
 * Thread-safe. Return: 0, -EINVAL (NULL @t or unknown @cause).
 */
DTA_API int dta_translator_count_input(struct dta_translator *t,
				       unsigned cause, uint64_t n);

/* ---- INT telemetry reports (docs/int.md "Mapping") ---- */

/* struct dta_int_map: a role left unused. */
#define DTA_INT_MAP_NONE (-1)

/* struct dta_int_map.events_by: how an event picks its Append list. */
enum dta_int_events_by {
	DTA_INT_EVENTS_ONE = 0,    /* every event to list 0 */
	DTA_INT_EVENTS_SWITCH = 1, /* list = switch id mod lists */
	DTA_INT_EVENTS_REASON = 2, /* list = drop reason mod lists
				    * (congestion-only events: reason 0) */
};

/* Hop of a postcard-style INT report in the path structure. */
enum dta_int_pc_order {
	/* By falling TTL among the flow's postcards in the Postcarding
	 * cache: hop 0 is the highest TTL seen, hop i TTL (highest - i). */
	DTA_INT_PC_BY_TTL = 0,
	/* struct dta_int_report.hop_index: initial TTL (ttl_init or the
	 * guess) - TTL. */
	DTA_INT_PC_ABSOLUTE = 1,
};

/* INT reporters (node id, hw id, version) whose sequence is tracked. */
#define DTA_INT_REPORTERS_MAX 4096

/**
 * struct dta_int_map - which structure (index from dta_translator_add(),
 * the first share of a sharded one) takes which part of INT reports, or
 * DTA_INT_MAP_NONE. Start from dta_int_map_init().
 * @sz:         sizeof(struct dta_int_map).
 * @path_kw:    Key-Write, flow key -> switch ids of its path (INT-MD
 *              reports), 4 bytes each, first hop first, padded with
 *              0xFFFFFFFF; data_len a multiple of 4.
 * @path_pc:    Postcarding, (flow key, hop) -> switch id (postcard-style
 *              reports, and INT-MD reports when @path_kw is unused).
 * @hop_kw:     Key-Write, flow key + switch id -> the hop's measurements
 *              (DTA_INT_HOP_DATA_LEN bytes, data_len at least that).
 * @events_ap:  Append, drop (D) and congestion (Q) events, entries of
 *              DTA_INT_EVENT_SIZE bytes (entry_size exactly that).
 * @events_by:  enum dta_int_events_by.
 * @flow_ki:    Key-Increment, flow key -> reports.
 * @queue_ki:   Key-Increment, switch id + queue id (5 bytes) -> reports.
 * @redundancy: Key-Write copies N; 0: the layout's max_redundancy.
 * @decode:     options for dta_int_decode(); its defaults (NULL opts)
 *              when @decode.sz is 0.
 * @pc_order:   enum dta_int_pc_order: where a postcard-style report goes
 *              in @path_pc (docs/int.md "Hop index").
 */
struct dta_int_map {
	size_t sz;
	int path_kw;
	int path_pc;
	int hop_kw;
	int events_ap;
	unsigned events_by;
	int flow_ki;
	int queue_ki;
	unsigned redundancy;
	struct dta_int_opts decode;
	unsigned pc_order;
};

/* Every role unused, list choice ONE, decoder defaults. */
DTA_API void dta_int_map_init(struct dta_int_map *m);

/* Per-hop measurement record (@hop_kw data), big-endian:
 *  0 hop latency (4)  4 queue occupancy (4)  8 egress timestamp (8)
 * A field the hop did not report is all ones. Bytes past 16 are zero. */
#define DTA_INT_HOP_DATA_LEN 16

/** struct dta_int_hop - a hop record decoded (host order); a field the hop
 * did not report is all ones. */
struct dta_int_hop {
	uint32_t hop_latency;
	uint32_t queue_occupancy;
	uint64_t egress_ts;
};

/**
 * dta_int_hop_decode() - read one hop record (DTA_INT_HOP_DATA_LEN bytes
 * of @hop_kw data) at @buf into @h. Return: 0, -EINVAL (NULL argument).
 */
DTA_API int dta_int_hop_decode(const void *buf, struct dta_int_hop *h);

/* Event entry (@events_ap), DTA_INT_EVENT_SIZE bytes, big-endian:
 *  0 switch id (4)       4 ingress port (2)   6 egress port (2)
 *  8 flags (1: DTA_INT_F_DROPPED | DTA_INT_F_CONGESTED)
 *  9 queue id (1)       10 drop reason (1)   11 report version (1)
 * 12 queue occupancy (4) 16 flow hash (4: CRC-32C of the flow key, 0
 *                          without a flow)   20 hop latency (4)
 * 24 time (8: egress timestamp, else ingress timestamp, else 0)
 * Fields the report did not carry are all ones (ports, queue, reason,
 * occupancy, latency). */
#define DTA_INT_EVENT_SIZE 32

/** struct dta_int_event - an event entry decoded (host order). */
struct dta_int_event {
	uint32_t switch_id;
	uint16_t ingress_port;
	uint16_t egress_port;
	uint8_t flags;
	uint8_t queue_id;
	uint8_t drop_reason;
	uint8_t version;
	uint32_t queue_occupancy;
	uint32_t flow_hash;
	uint32_t hop_latency;
	uint64_t time;
};

/**
 * dta_int_event_decode() - read one event entry of DTA_INT_EVENT_SIZE
 * bytes at @buf into @ev. Return: 0, -EINVAL (NULL argument).
 */
DTA_API int dta_int_event_decode(const void *buf, struct dta_int_event *ev);

/**
 * dta_int_flow_key() - the key of a flow as the mapping writes it (the
 * 5-tuple forms of docs/keys.md): 13 bytes for IPv4, 37 for IPv6.
 * @f:   a decoded flow (struct dta_int_flow of dta/int.h).
 * @key: room for 37 bytes.
 * Return: the key length, or 0 when @f has no IP flow (family 0).
 */
DTA_API size_t dta_int_flow_key(const struct dta_int_flow *f, uint8_t *key);

/**
 * dta_translator_set_int_map() - map INT reports onto structures.
 * Checks every role's structure: it exists, has the role's primitive, and
 * its sizes fit (path_kw data_len a multiple of 4, hop_kw data_len >=
 * DTA_INT_HOP_DATA_LEN, events_ap entry_size == DTA_INT_EVENT_SIZE).
 * Must not race with _process_int(). The map is copied.
 * Return: 0, -EINVAL (NULL, @m->sz too small, bad @events_by or
 * @redundancy, a role index out of range), -DTA_E_PRIMITIVE,
 * -DTA_E_MISMATCH (sizes).
 */
DTA_API int dta_translator_set_int_map(struct dta_translator *t,
				       const struct dta_int_map *m);

/**
 * dta_translator_process_int() - decode one INT telemetry report datagram
 * (UDP payload) with dta_int_decode() (dta_int_opts.separate set) and
 * apply every report read through the map. A report that cannot be read
 * is refused alone (counted in int_malformed and by cause; the datagram's
 * other reports apply and its sequence number counts); a datagram whose
 * header cannot be read is refused whole (counted once, nothing applied).
 * Without a map every report read counts as int_unmapped.
 * Return: reports applied; or the decoder's negative error when the
 * datagram or one of its reports was refused (the last report's code);
 * or -EINVAL.
 * Thread-safety as dta_translator_process().
 */
DTA_API int dta_translator_process_int(struct dta_translator *t,
				       const void *buf, size_t len,
				       uint64_t now_ns);

/**
 * dta_translator_process_int_batch() - dta_translator_process_int() for
 * @n datagrams in order. Return: reports applied in all of them, or
 * -EINVAL for NULL @t or @p with @n > 0.
 */
DTA_API int dta_translator_process_int_batch(struct dta_translator *t,
					     const struct dta_payload *p,
					     size_t n, uint64_t now_ns);

/* ---- Losses by reporter and by structure (docs/metrics.md) ---- */

/*
 * struct dta_translator_losses - the loss counters of struct
 * dta_translator_stats, for one reporter slot or one structure. Reporter
 * slots: every field; for each, the sum over all slots (the unattributed
 * one included) equals the stats field of the same name once the
 * translator is at rest (each slot is counted when the loss happens, the
 * stats when the call that saw it returns). Structures: only mismatch,
 * sink_lost_reports, sink_errors and int_mismatch (the losses that happen
 * in a structure); their sums over structures equal the stats fields.
 */
struct dta_translator_losses {
	uint64_t socket_drops;      /* datagrams */
	uint64_t rx_truncated;      /* datagrams */
	uint64_t refused_source;    /* datagrams */
	uint64_t malformed;         /* payloads */
	uint64_t seq_lost;          /* reports */
	uint64_t unknown_structure; /* reports */
	uint64_t mismatch;          /* reports */
	uint64_t sink_lost_reports; /* reports */
	uint64_t sink_errors;       /* memory operations */
	uint64_t int_malformed;     /* INT reports refused (or datagrams whole) */
	uint64_t int_unmapped;      /* INT reports */
	uint64_t int_mismatch;      /* INT structure updates */
	uint64_t int_seq_lost;      /* INT datagrams */
	/* malformed by cause, as the stats' malformed_* */
	uint64_t malformed_truncated;
	uint64_t malformed_version;
	uint64_t malformed_opcode;
	uint64_t malformed_field;
	uint64_t malformed_ambiguous;
	uint64_t malformed_too_many;
	/* int_malformed by cause, as the stats' int_malformed_* */
	uint64_t int_malformed_truncated;
	uint64_t int_malformed_version;
	uint64_t int_malformed_unsupported;
	uint64_t int_malformed_length;
	uint64_t int_malformed_hops;
	uint64_t int_malformed_other;
};

/* The most reporter slots dta_translator_set_reporter_slots() takes. */
#define DTA_REPORTER_SLOTS_MAX 65535

/**
 * dta_translator_set_reporter_slots() - count losses by reporter too, in
 * @n slots the caller names (0 .. @n-1; e.g. one per source address and
 * one for the rest) and one more, slot @n, for losses no payload can be
 * blamed for: the kernel's drops counted without a slot, what is lost
 * writing data several reporters share (an Append batch, a Postcarding
 * chunk, an aggregated increment: their sink and mismatch losses), and
 * losses of payloads given without slots. A reporter's sequence gaps
 * settled by dta_translator_flush() go to the slot of its last payload.
 * Call once, before any payload is processed. @n = 0 turns it off.
 * Return: 0, -EINVAL (@n over DTA_REPORTER_SLOTS_MAX, NULL @t), -EBUSY
 * (already set), -ENOMEM.
 */
DTA_API int dta_translator_set_reporter_slots(struct dta_translator *t,
					      unsigned n);

/**
 * dta_translator_process_batch_from() - dta_translator_process_batch()
 * with the reporter slot of each payload: @slot[i] (< the slots set) for
 * @p[i]. Its losses are counted in that slot besides the totals. Slots
 * not set, or @slot NULL: as dta_translator_process_batch().
 * Return: as dta_translator_process_batch(); -EINVAL for a slot out of
 * range (nothing processed).
 */
DTA_API int dta_translator_process_batch_from(struct dta_translator *t,
					      const struct dta_payload *p,
					      const uint16_t *slot, size_t n,
					      uint64_t now_ns);

/* The same for INT datagrams (dta_translator_process_int_batch()). */
DTA_API int dta_translator_process_int_batch_from(struct dta_translator *t,
						  const struct dta_payload *p,
						  const uint16_t *slot,
						  size_t n, uint64_t now_ns);

/**
 * dta_translator_count_input_from() - dta_translator_count_input() in
 * reporter slot @slot as well (the slots' count: unattributed).
 * Return: 0, -EINVAL (NULL @t, unknown @cause, @slot out of range).
 */
DTA_API int dta_translator_count_input_from(struct dta_translator *t,
					    unsigned cause, unsigned slot,
					    uint64_t n);

/**
 * dta_translator_reporter_losses() - the losses counted in slot @slot
 * (0 .. n, n the unattributed slot). Thread-safe; each field read
 * atomically. Return: 0, -EINVAL (NULL, slots not set, @slot > n).
 */
DTA_API int dta_translator_reporter_losses(const struct dta_translator *t,
					   unsigned slot,
					   struct dta_translator_losses *out);

/**
 * dta_translator_structure_losses() - the losses counted in structure
 * @structure (dta_translator_add()'s index): mismatch, sink_lost_reports,
 * sink_errors, int_mismatch; the other fields 0. Always counted.
 * Return: 0, -EINVAL (NULL, @structure not added).
 */
DTA_API int dta_translator_structure_losses(const struct dta_translator *t,
					    unsigned structure,
					    struct dta_translator_losses *out);

/*
 * struct dta_translator_mismatch - the last report a structure refused
 * for its sizes (a configuration mismatch between reporter and
 * collector: counted in its losses' mismatch, or int_mismatch when the
 * INT mapping wrote it). What the report carried, by @opcode:
 *  DTA_OP_APPEND:    @received its entry's data bytes, @detail its list id;
 *  DTA_OP_POSTCARD:  @received its hop index (or, for a flow's write, the
 *                    hops written), @detail its path length (0: unknown);
 *  DTA_OP_KEY_WRITE: @received its data bytes, @detail its redundancy.
 * The structure's own geometry is its layout's (the caller's).
 */
struct dta_translator_mismatch {
	unsigned opcode; /* DTA_OP_*; 0: none refused yet */
	uint32_t received;
	uint32_t detail;
};

/**
 * dta_translator_last_mismatch() - the last report structure @structure
 * refused for its sizes. Thread-safe (one atomic word); a report refused
 * while this runs may be the one read or the one before.
 * Return: 1 (@out filled), 0 (none yet; @out's opcode 0), -EINVAL (NULL,
 * @structure not added).
 */
DTA_API int dta_translator_last_mismatch(const struct dta_translator *t,
					 unsigned structure,
					 struct dta_translator_mismatch *out);

/* A consistent-enough copy of the counters (each read atomically). */
DTA_API void dta_translator_stats(const struct dta_translator *t,
				  struct dta_translator_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* DTA_TRANSLATOR_H */
