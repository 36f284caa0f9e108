/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query ap tail|follow: an Append list's entries through the client's
 * cursors (dta_client_ap_open()/ap_read()).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dta/client.h"
#include "dta/exec.h"
#include "query.h"
#include "tools.h"

/* Entries asked per read. */
#define AP_CHUNK 4096

/* Print @n entries of @es bytes at @buf: "0x.." lines, or (@json) the
 * members "entries" and, with a schema, "fields" (no braces). */
static void print_entries(const uint8_t *buf, size_t n, size_t es,
			  const struct dta_schema *sch, bool json)
{
	char hex[2 * DTA_DATA_MAX + 1];

	if (!json) {
		for (size_t k = 0; k < n; k++) {
			tool_hex(buf + k * es, es, hex);
			printf("0x%s\n", hex);
		}
		return;
	}
	fputs("\"entries\":[", stdout);
	for (size_t k = 0; k < n; k++) {
		tool_hex(buf + k * es, es, hex);
		printf("%s\"%s\"", k ? "," : "", hex);
	}
	putchar(']');
	if (!sch)
		return;
	fputs(",\"fields\":[", stdout);
	for (size_t k = 0; k < n; k++) {
		if (k)
			putchar(',');
		query_schema_json(sch, buf + k * es, es);
	}
	putchar(']');
}

/* follow: entries as they arrive, until interrupted. */
__attribute__((noreturn))
static void follow(struct dta_client *c, struct dta_client_cursor *cur,
		   size_t es, const struct dta_schema *sch)
{
	uint8_t *buf = malloc(AP_CHUNK * es);

	if (!buf)
		die("out of memory");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		uint64_t lost = 0;
		long got = dta_client_ap_read(cur, buf, AP_CHUNK, &lost);

		if (got < 0)
			query_fail(c);
		if (G.json && got) {
			putchar('{');
			print_entries(buf, (size_t)got, es, sch, true);
			printf(",\"lost\":%" PRIu64 ",\"position\":%" PRIu64
			       "}\n", lost, dta_client_ap_position(cur));
		} else if (!G.json) {
			print_entries(buf, (size_t)got, es, NULL, false);
			if (lost)
				fprintf(stderr, "dta-query: %" PRIu64 " entries "
					"overwritten before they were read\n",
					lost);
		}
		if (!got)
			usleep(20000);
	}
}

/* tail: read everything still stored, print the last @tail. @list >= 0:
 * one list of `tail NAME all` (JSON: an element of "lists", no newline;
 * text: a "# list L" line first). Return 0, or -DTA_E_UNAVAILABLE when
 * the list's collector stopped answering (all: the others go on). */
static int tail(struct dta_client *c, struct dta_client_cursor *cur,
		size_t es, const struct dta_schema *sch, size_t tail, long list)
{
	uint8_t *keep = NULL, *buf = malloc(AP_CHUNK * es);
	bool show = !G.json && isatty(STDERR_FILENO);
	uint64_t total = 0, first, lost;
	size_t kcap = 0; /* entries @keep holds: grows to @tail, then a ring */
	long got;

	if (!buf)
		die("out of memory");
	while ((got = dta_client_ap_read(cur, buf, AP_CHUNK, &lost)) > 0) {
		if (kcap < tail && total + (uint64_t)got > kcap) {
			/* Room as entries come, not -n's 2^24 up front. */
			while (kcap < tail && total + (uint64_t)got > kcap)
				kcap = kcap ? 2 * kcap : AP_CHUNK;
			kcap = kcap < tail ? kcap : tail;
			keep = realloc(keep, kcap * es);
			if (!keep)
				die("out of memory");
		}
		/* Below @tail entries the index is the position itself. */
		for (size_t k = 0; tail && k < (size_t)got; k++)
			memcpy(keep + ((total + k) % tail) * es, buf + k * es,
			       es);
		total += (uint64_t)got;
		/* A long read (more than one chunk) shows how far it is. */
		if (show && total > AP_CHUNK)
			fprintf(stderr, "\rap: %" PRIu64 " entries read   ",
				total);
	}
	if (got == -DTA_E_UNAVAILABLE && list >= 0) {
		free(buf);
		free(keep);
		return (int)got;
	}
	if (got < 0)
		query_fail(c);
	if (show && total > AP_CHUNK)
		fputc('\n', stderr);
	first = total > tail ? total - tail : 0;
	/* The kept ones in order, into @buf's place: oldest first. */
	free(buf);
	buf = malloc((size_t)(total - first) * es + 1);
	if (!buf)
		die("out of memory");
	for (uint64_t i = first; i < total; i++)
		memcpy(buf + (i - first) * es, keep + (i % tail) * es, es);
	if (G.json && list >= 0)
		printf("{\"list\":%ld,", list);
	else if (G.json)
		putchar('{');
	else if (list >= 0)
		printf("# list %ld\n", list);
	print_entries(buf, (size_t)(total - first), es, sch, G.json);
	if (G.json)
		printf(",\"stored\":%" PRIu64 "}%s", total, list >= 0 ? "" : "\n");
	free(buf);
	free(keep);
	return 0;
}

/* tail NAME all: every list of the structure over all its collectors;
 * the lists of a collector that does not answer are left out, and said
 * so (partial). */
static void tail_all(struct dta_client *c, const char *name, size_t n)
{
	const struct dta_client_structure *s;
	struct dta_client_cursor *cur;
	bool first = true;
	int i = dta_client_find(c, name), rc;

	if (i < 0 || dta_client_structure(c, (size_t)i)->layout.primitive !=
			     DTA_PRIM_APPEND) {
		/* The client's own message: no such structure, primitive. */
		dta_client_ap_open(c, name, 0, DTA_EXEC_AP_OLDEST, &cur);
		query_fail(c);
	}
	s = dta_client_structure(c, (size_t)i);
	if (G.json)
		fputs("{\"lists\":[", stdout);
	for (uint32_t l = 0; l < s->lists; l++) {
		rc = dta_client_ap_open(c, name, l, DTA_EXEC_AP_OLDEST, &cur);
		if (rc == -DTA_E_UNAVAILABLE) {
			query_note_partial(c);
			continue;
		}
		if (rc)
			query_fail(c);
		if (G.json && !first)
			putchar(',');
		rc = tail(c, cur, s->layout.g.ap.entry_size, s->schema, n,
			  (long)l);
		if (rc)
			query_note_partial(c);
		else
			first = false;
		dta_client_ap_close(cur);
	}
	if (G.json) {
		putchar(']');
		query_json_partial();
		puts("}");
	}
}

int cmd_ap(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "lines", required_argument, NULL, 'n' },
		{ "from-start", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct dta_client_structure *s;
	struct dta_client_cursor *cur;
	struct dta_client *c;
	unsigned long n = 10, l;
	int from_start = 0, opt;
	const char *how;
	bool fol;
	char *end;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:sh", lo, NULL)) != -1) {
		if (opt == 'n') {
			n = (unsigned long)opt_uint("--lines", optarg, 0,
						    1u << 24);
		} else if (opt == 's') {
			from_start = 1;
		} else {
			printf("Usage: dta-query ap tail NAME LIST|all [-n N]\n"
			       "       dta-query ap follow NAME LIST [--from-start]\n"
			       "  tail: the newest N entries still in the list's ring (default 10)\n"
			       "  follow: print entries as they arrive (from now, or from the\n"
			       "  oldest still stored) until interrupted; needs a collector\n"
			       "  (its socket, or --map).\n"
			       "  LIST is the list index within structure NAME (0-based;\n"
			       "  with the structure on several collectors, lists count on\n"
			       "  across them: the first collector's, then the next's).\n"
			       "  all: every list over every collector (each after a line\n"
			       "  \"# list L\"; --json: {\"lists\":[{\"list\":L,..}..],\n"
			       "  \"partial\":..,\"missing\":[..]}); the lists of a collector\n"
			       "  that does not answer are left out and named (exit status 4).\n"
			       "  Entries are printed in hex, oldest first; with --json and\n"
			       "  a value schema, \"fields\" holds them decoded.\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (argc - optind != 3 ||
	    (strcmp(argv[optind], "tail") && strcmp(argv[optind], "follow")))
		die("usage: dta-query ap tail|follow NAME LIST");
	fol = !strcmp(argv[optind], "follow");
	if (!fol && !strcmp(argv[optind + 2], "all")) {
		c = query_client(&how);
		tail_all(c, argv[optind + 1], n);
		dta_client_close(c);
		return 0;
	}
	l = strtoul(argv[optind + 2], &end, 0);
	if (*end || end == argv[optind + 2] || l > UINT32_MAX)
		die("LIST must be a list index, not %s", argv[optind + 2]);
	if (fol && (G.nfiles || G.dir))
		die("follow needs a running collector");
	c = query_client(&how);
	if (dta_client_ap_open(c, argv[optind + 1], (uint32_t)l,
			       fol && !from_start ? DTA_EXEC_AP_NOW
						  : DTA_EXEC_AP_OLDEST, &cur))
		query_fail(c);
	s = dta_client_structure(c, (size_t)dta_client_find(c, argv[optind + 1]));
	if (fol)
		follow(c, cur, s->layout.g.ap.entry_size, s->schema);
	tail(c, cur, s->layout.g.ap.entry_size, s->schema, n, -1);
	dta_client_ap_close(cur);
	dta_client_close(c);
	return 0;
}
