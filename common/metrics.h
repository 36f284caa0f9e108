/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prometheus metrics for the daemons (docs/metrics.md): the text
 * exposition format 0.0.4 writer and the HTTP endpoint (libmicrohttpd)
 * that serves it. Not part of libdta's API.
 *
 * The counters come from the stats JSON each daemon already writes (the
 * translator's write_stats(), the collector's stats answer): the daemon
 * writes that JSON, and metrics_write_json() turns its numeric members
 * into samples through a table. One snapshot path, so a scrape and a
 * stats answer taken at rest carry the same numbers, digit for digit.
 *
 * Names follow Prometheus's conventions and the writer enforces them:
 * every family starts with "dta_", counters end in "_total", names match
 * [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (not
 * "__..." nor "le", which histograms own). A refused name is -EINVAL and
 * nothing is written for it.
 */
#ifndef DTA_METRICS_H
#define DTA_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum metrics_type {
	METRICS_COUNTER,
	METRICS_GAUGE,
	METRICS_HISTOGRAM,
};

struct metrics_label {
	const char *name;
	const char *value; /* any UTF-8; escaped on output */
};

/* Is @name a metric (family) name we write: "dta_" + [a-zA-Z0-9_:]*? */
bool metrics_name_ok(const char *name);
/* Is @name a label name we write (not reserved, not "le")? */
bool metrics_label_ok(const char *name);

/**
 * metrics_write_header() - the "# HELP" and "# TYPE" lines of a family.
 * @help: one line of text; backslashes and newlines are escaped.
 * Return: 0; -EINVAL for a refused name (a counter not ending in
 * "_total", a histogram ending in _total/_bucket/_sum/_count), an unknown
 * type or NULL @help; -EIO if @f failed.
 */
int metrics_write_header(FILE *f, const char *family, enum metrics_type type,
			 const char *help);

/**
 * metrics_write_sample() - one line: @name{@labels} @value.
 * @value: the number's text as it should appear (a JSON number is valid).
 * Return: 0; -EINVAL for a refused metric or label name, or a @value that
 * is not a number; -EIO if @f failed.
 */
int metrics_write_sample(FILE *f, const char *name,
			 const struct metrics_label *labels, size_t nlabels,
			 const char *value);

/* ---- histograms ---- */

#define METRICS_BUCKETS_MAX 24

/*
 * struct metrics_hist - a histogram of integer observations (nanoseconds,
 * entries), exposed multiplied by @scale (1e-9: seconds). Observing is
 * lock-free and thread-safe (relaxed atomics: a scrape may see a sum and
 * the counts of slightly different moments, never torn values); the
 * exposed _count is the sum of the buckets the same scrape read, so it
 * always equals the +Inf bucket.
 */
struct metrics_hist {
	unsigned n;                            /* finite upper bounds */
	uint64_t bound[METRICS_BUCKETS_MAX];   /* strictly increasing */
	double scale;
	_Atomic uint64_t count[METRICS_BUCKETS_MAX + 1]; /* per bucket; [n]: +Inf */
	_Atomic uint64_t sum;
};

/* Set up @h with @n upper bounds. Return 0, or -EINVAL when @n is 0 or
 * over METRICS_BUCKETS_MAX, the bounds do not increase, or @scale <= 0. */
int metrics_hist_init(struct metrics_hist *h, const uint64_t *bounds,
		      unsigned n, double scale);
/* Add @k observations of value @v (thread-safe). */
void metrics_hist_observe_n(struct metrics_hist *h, uint64_t v, uint64_t k);
static inline void metrics_hist_observe(struct metrics_hist *h, uint64_t v)
{
	metrics_hist_observe_n(h, v, 1);
}

/**
 * metrics_write_hist() - the samples of one histogram: cumulative
 * @family_bucket{...,le="B"} lines (le the bound times scale, then
 * "+Inf"), @family_sum and @family_count. The header is the caller's
 * (metrics_write_header(..., METRICS_HISTOGRAM, ...)), once per family.
 * Return: as metrics_write_sample().
 */
int metrics_write_hist(FILE *f, const char *family,
		       const struct metrics_label *labels, size_t nlabels,
		       const struct metrics_hist *h);

/* ---- samples from a stats JSON object ---- */

/*
 * struct metrics_def - one member of a daemon's stats JSON as a sample.
 * @key:    the member's name; "outer.inner" for a member of a nested
 *          object ("rdma.accepted").
 * @family: the family it belongs to. Entries of one family are adjacent
 *          in the table; the first carries @help.
 * @label, @value: one label of the sample, or NULL.
 */
struct metrics_def {
	const char *key;
	const char *family;
	enum metrics_type type; /* METRICS_COUNTER or METRICS_GAUGE */
	const char *label, *value;
	const char *help;
};

/**
 * metrics_write_json() - samples for the numeric members of @json (one
 * JSON object; nested objects one level deep) that @defs name, family by
 * family in table order. A family none of whose keys is in @json (a sink
 * not in use) is left out. @common labels are added to every sample.
 * @unmapped: receives how many numeric members no entry names (may be
 * NULL): a daemon whose table lags its JSON shows up in its tests.
 * Return: 0; -EINVAL for malformed JSON, a refused name, or a table entry
 * out of order (a family split in two); -ENOMEM; -EIO.
 */
int metrics_write_json(FILE *f, const char *json,
		       const struct metrics_def *defs, size_t ndefs,
		       const struct metrics_label *common, size_t ncommon,
		       unsigned *unmapped);

/**
 * metrics_write_stats() - metrics_write_json() on the JSON @stats writes
 * (a daemon's stats writer, called with @ctx and a memory stream).
 * Return: as metrics_write_json(); -ENOMEM when the stream fails.
 */
int metrics_write_stats(FILE *f, void (*stats)(void *ctx, FILE *json),
			void *ctx, const struct metrics_def *defs,
			size_t ndefs, const struct metrics_label *common,
			size_t ncommon);

/* ---- the process ---- */

/* The calling process, as Prometheus's client libraries describe one. */
struct metrics_process {
	double cpu_seconds;        /* user + system, /proc/self/stat */
	double start_time_seconds; /* since the epoch: btime + starttime */
	uint64_t resident_bytes;   /* rss pages x page size */
	uint64_t virtual_bytes;    /* vsize */
	uint64_t open_fds;         /* entries of /proc/self/fd */
	uint64_t max_fds;          /* RLIMIT_NOFILE's soft limit */
};

/* Read @p from /proc (Linux). Return 0 or a negative errno. */
int metrics_process_read(struct metrics_process *p);

/**
 * metrics_write_process() - the standard process_* families of
 * Prometheus's client libraries (cpu_seconds_total, resident and virtual
 * memory_bytes, start_time_seconds, open_fds, max_fds), without labels:
 * the one place the writer takes names without the "dta_" prefix.
 * Return: 0; as metrics_process_read(); -EIO.
 */
int metrics_write_process(FILE *f);

/* ---- the HTTP endpoint ---- */

/**
 * metrics_listen_parse() - "[A.B.C.D:]PORT" (PORT 1..65535), as the
 * [collector]/[translator] metrics_listen key takes it; without an
 * address, 127.0.0.1. @addr receives the address in network order, @port
 * in host order. Return 0 or -EINVAL.
 */
int metrics_listen_parse(const char *s, uint32_t *addr, uint16_t *port);

#define METRICS_DEGRADED 2 /* a health callback's answer */

struct metrics_server_opts {
	const char *listen; /* metrics_listen_parse() form */
	/* The exposition, written into @f. Return 0 or a negative errno
	 * (the scrape then gets 500). */
	int (*write)(void *ctx, FILE *f);
	/* 0 when healthy; else nonzero with the reason in @why: 503
	 * "unhealthy: WHY", or for METRICS_DEGRADED 503 "degraded: WHY"
	 * (serving, but losing more than it may). */
	int (*health)(void *ctx, char *why, size_t cap);
	void *ctx;
	void (*log)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

struct metrics_server;

/**
 * metrics_server_start() - listen for HTTP on @o->listen with
 * libmicrohttpd, without a thread of its own: the caller polls
 * metrics_server_fd() for POLLIN with its other descriptors and calls
 * metrics_server_run() when it is readable (and now and then, for
 * connection timeouts), so @o->write and @o->health run on the caller's
 * thread. GET (and HEAD) /metrics: the exposition; /health and /healthz:
 * 200 "ok" or 503 with the reason; other paths 404; other methods 405.
 * Return: 0; -EINVAL (bad listen address, missing callbacks);
 * -EADDRINUSE or another -errno when the socket cannot be opened (logged).
 */
int metrics_server_start(const struct metrics_server_opts *o,
			 struct metrics_server **out);
/* The epoll descriptor to poll for POLLIN. */
int metrics_server_fd(const struct metrics_server *s);
/* The port it listens on. */
uint16_t metrics_server_port(const struct metrics_server *s);
/* Serve what is pending; never blocks. */
void metrics_server_run(struct metrics_server *s);
/* The most milliseconds to wait before the next metrics_server_run()
 * (connection timeouts), at most @ms. */
int metrics_server_timeout(const struct metrics_server *s, int ms);
/* Close everything; NULL is fine. */
void metrics_server_stop(struct metrics_server *s);

#endif
