/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What dta-query's command files share: the global options, fatal
 * errors, and the tallies verify prints. Not part of libdta.
 */
#ifndef DTA_QUERY_H
#define DTA_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/dta.h"
#include "dta/schema.h"

/* The options given before the command. */
struct query_opts {
	const char *config, *socket, *dir, *coll_name;
	const char *target; /* --collector tls://..: every request goes there */
	int coll; /* the default collector's index */
	const char *files[DTA_CONFIG_MAX_STRUCTURES];
	unsigned nfiles;
	int json, map;
	const char *via;  /* --via: config:'s ?via= */
	int timeout_ms;   /* --timeout (0: the client's default) */
	struct dta_config *cfg;
	/* Collectors missing from some answer so far (bit i: collector i,
	 * named missing[i]): the answer is partial, exit status 4. */
	uint32_t missing;
	char missing_name[DTA_CONFIG_MAX_COLLECTORS][DTA_CONFIG_NAME_MAX];
};
extern struct query_opts G;

/* Print "dta-query: ..." on stderr and exit 3. */
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);

struct dta_client;
/* The client's last error: with --json also {"error":MSG} on stdout (as
 * a collector answers); then die(). */
__attribute__((noreturn))
void query_fail(const struct dta_client *c);

/* Exit status of an answer that lacks collectors (partial). */
#define QUERY_EXIT_PARTIAL 4

/* After a client call: when its answer is partial, remember the missing
 * collectors and warn on stderr (once per collector). */
void query_note_partial(const struct dta_client *c);
/* The same for collectors @missing (bit i: collector i of @c) that some
 * fan-out over several calls lacked (dta_int_events_partial()). */
void query_note_missing(const struct dta_client *c, uint32_t missing);
/* The JSON members ,"partial":true|false,"missing":[NAMES..] of what
 * query_note_partial() saw. */
void query_json_partial(void);

/* A numeric option's value in [@lo, @hi], or exit 2 saying why. */
uint64_t opt_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi);

/* Load --config into G.cfg once (dies on errors); no-op without one. */
void load_config(void);

/**
 * query_client() - a client over what the options name: --map (the
 * configuration's collectors' shared memory), --file or --snapshot-dir
 * (snapshot files), --socket (that collector), else with --config every
 * collector of the configuration through its socket (keys routed to the
 * collector holding their share), else the default socket. With
 * --collector, only that collector's share of each structure. Dies with
 * the client's message when it cannot be opened. @how receives a few
 * words for summaries ("over the collector socket", ...).
 */
struct dta_client *query_client(const char **how);

/* Value @v (@len bytes) decoded with @sch as one JSON object on stdout
 * (dta_schema_json()); dies when it cannot be. */
void query_schema_json(const struct dta_schema *sch, const void *v,
		       size_t len);
/* The same as the member ,"fields":{..}; nothing when @sch is NULL. */
void query_json_fields(const struct dta_schema *sch, const void *v,
		       size_t len);

/* ---- the commands (point.c, ap.c, info.c) ---- */

int cmd_kw(int argc, char **argv); /* kw get */
int cmd_pc(int argc, char **argv); /* pc path */
int cmd_ki(int argc, char **argv); /* ki get */
int cmd_epoch(int argc, char **argv); /* epoch FILE (epoch.c) */
int cmd_ap(int argc, char **argv); /* ap tail|follow */
int cmd_info(int argc, char **argv);
/* Requests only a collector answers (dta_client_request()). */
int cmd_stats(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_switch(int argc, char **argv);

/* One structure's verify counts. */
struct tally {
	const char *name;
	int prim;
	uint64_t total, exact, notfound, wrong, conflict, over, under, truncated;
	/* Key-Write and Postcarding: sum over the keys of the success
	 * probability eq. 1-8 give at each key's age, and of its variance
	 * p (1 - p): the exact count is a sum of independent Bernoulli(p)
	 * trials (Poisson binomial), expected @expect, standard error
	 * sqrt(@var). */
	double expect, var;
	bool has_bound;
};

/* The entries dta-gen sent to one Append list, in order (hex, owned). */
struct ap_truth {
	uint32_t id; /* report list id; the list's index once read */
	size_t n, cap;
	char **e;
};

/* Append a copy of @hex to list @id's entries (kept sorted by id). */
void ap_add(struct ap_truth **aps, size_t *naps, uint32_t id,
	    const char *hex);
void ap_truth_free(struct ap_truth *aps, size_t naps);

struct tool_ap_match;
/**
 * ap_read_match() - read list @a->id (its index within @cs, over all
 * shares) from its oldest stored entry through @c, matching every entry
 * in order against @a's (tool_ap_match: initialised here, finished; the
 * caller frees it). *@lost grows by the entries the ring overwrote before
 * they were read. Dies when the list cannot be read.
 */
void ap_read_match(struct dta_client *c, const struct dta_config_structure *cs,
		   const struct ap_truth *a, struct tool_ap_match *m,
		   uint64_t *lost);

/* The INT lines of a truth file, for int_verify(): copies, their line
 * numbers, and whether each stands in a postcard run (type=int-pc). */
struct verify_ints {
	char **lines;
	size_t *lnum;
	bool *pcrun;
	size_t n, cap;
};
void verify_ints_free(struct verify_ints *vi);

/**
 * verify_dta() - check the DTA lines (kw, pc, ki, ap) of a truth file
 * against @c with batched queries, in one pass over the file: the keys of
 * each structure are asked a chunk at a time as they are read, whatever
 * answers them, and compared as bytes; the bounds of eq. 1-8 are added to
 * the tallies once the file's end gives every key its age.
 * @text, @tlen: the truth file as it is (mapped): lines end in newlines.
 *           Comments give the redundancy dta-gen used (the bounds') and
 *           which run follows.
 * @tl, @nt: tallies, one per structure, appended to.
 * @progress: print progress on stderr (a terminal).
 * @vi:      receives the INT lines (int-), for int_verify().
 * Dies on a malformed line or a failed query. Return: answers checked.
 */
uint64_t verify_dta(struct dta_client *c, const char *text, size_t tlen,
		    const char *truth, struct tally *tl, size_t *nt,
		    bool progress, struct verify_ints *vi);

/* ---- INT (int.c) ---- */

/* dta-query int ... (docs/int.md "Querying INT structures"). */
int cmd_int(int argc, char **argv);

/* INT truth lines (docs/int.md "Truth lines"), checked exactly against
 * the structures of the [int] roles: one tally per role. */
enum { IV_PATH, IV_HOPS, IV_EVENTS, IV_FLOWS, IV_QUEUES, IV_ROLES };

struct int_tally {
	const char *name; /* the role's structure, NULL: none checked */
	int prim;
	uint64_t total, exact, notfound, wrong, conflict, over, under, lost;
	uint64_t disagree;  /* int-event lines whose fields are not ENTRY's */
	uint64_t unchecked; /* lines no configured role takes */
	const char *why;    /* why those were not checked */
	unsigned shown;     /* mismatches printed (at most INT_SHOW) */
};

/**
 * int_verify() - check the int- lines of a truth file through @c with
 * the library's INT calls (dta/int_query.h): one batched call per role,
 * path structure and key length; events read list by list and matched in
 * order. @pcrun[i]: line i is of a postcard run (its paths are path_pc's).
 * @t: IV_ROLES tallies, zeroed by the caller. Dies on a malformed line or
 * a failed query.
 */
void int_verify(struct dta_client *c, char **lines, const size_t *lnum,
		const bool *pcrun, size_t nlines, const char *truth,
		struct int_tally *t);
/* Print role @role's tally (text line, or JSON member after *@first). */
void int_verify_print(const struct int_tally *t, int role, bool *first);

#endif /* DTA_QUERY_H */
