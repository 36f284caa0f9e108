/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query kw get, pc path, ki get: keys of Key-Write, Postcarding and
 * Key-Increment structures, one or many, asked through the client
 * (query_client()) in batches, one line per key.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "dta/client.h"
#include "query.h"
#include "tools.h"

/* One run of keys of one length: their texts (as given) and bytes. */
struct run {
	char **text;
	uint8_t *keys;
	size_t n, klen;
};

#define RUN_MAX 65536

/* What to ask: the structure, its primitive, the query's options. */
struct point_q {
	int prim;
	const char *name;
	const struct dta_kw_query_opts *kwo;
	unsigned bank;
	/* One KEY given: lines without the key in front, as the collector's
	 * answer to that one request (JSON) or its text. */
	bool single;
};

/* "KEY: " before a line of several keys' answers (nothing for one). */
static void lead(const struct point_q *q, const char *text)
{
	if (!q->single)
		printf("%s: ", text);
}

/* The JSON object's start: {"key":"HEX", with several keys. */
static void jlead(const struct point_q *q, const uint8_t *key, size_t klen)
{
	char hex[2 * DTA_KEY_MAX + 1];

	putchar('{');
	if (q->single)
		return;
	tool_hex(key, klen, hex);
	printf("\"key\":\"%s\",", hex);
}

static const char *const status_name[] = { "found", "not-found", "conflict",
					   "unavailable" };

static void print_kw(const struct point_q *q, const struct dta_schema *sch,
		     const struct dta_kw_result *r, const uint8_t *data,
		     size_t dl, const uint8_t *key, size_t klen,
		     const char *text)
{
	char hex[2 * DTA_DATA_MAX + 1];

	tool_hex(data, dl, hex);
	if (G.json) {
		jlead(q, key, klen);
		printf("\"status\":\"%s\"", status_name[r->status]);
		if (r->status == DTA_Q_FOUND) {
			printf(",\"data\":\"%s\"", hex);
			query_json_fields(sch, data, dl);
		}
		printf(",\"votes\":%u,\"candidates\":%u}\n", r->votes,
		       r->candidates);
		return;
	}
	lead(q, text);
	if (r->status == DTA_Q_FOUND)
		printf("found: 0x%s (%u of %u matching slots agree)\n", hex,
		       r->votes, r->candidates);
	else if (r->status == DTA_Q_UNAVAILABLE)
		puts("unavailable (the collector holding it did not answer)");
	else
		printf("%s (%u slots matched the key's checksum)\n",
		       status_name[r->status], r->candidates);
}

static void print_pc(const struct point_q *q, const struct dta_pc_result *r,
		     const uint8_t *key, size_t klen, const char *text)
{
	if (G.json) {
		jlead(q, key, klen);
		printf("\"status\":\"%s\"%s", status_name[r->status],
		       r->status ? "" : ",\"path\":[");
	} else if (r->status == DTA_Q_FOUND) {
		lead(q, text);
		fputs("found: ", stdout);
	} else if (r->status == DTA_Q_UNAVAILABLE) {
		lead(q, text);
		puts("unavailable (the collector holding it did not answer)");
		return;
	} else {
		lead(q, text);
		printf("%s (%u copies decoded validly)\n",
		       status_name[r->status], r->valid_copies);
	}
	for (unsigned h = 0; !r->status && h < r->path_len; h++)
		printf("%s%u", h ? "," : "", r->values[h]);
	if (G.json)
		printf("%s\"valid_copies\":%u}\n", r->status ? "," : "],",
		       r->valid_copies);
	else if (r->status == DTA_Q_FOUND)
		fputs(" (hop values, first hop first)\n", stdout);
}

static void print_ki(const struct point_q *q, uint64_t cnt,
		     const uint8_t *key, size_t klen, const char *text)
{
	if (cnt == DTA_CLIENT_KI_UNAVAILABLE) {
		if (G.json) {
			jlead(q, key, klen);
			puts("\"status\":\"unavailable\"}");
		} else {
			lead(q, text);
			puts("unavailable (the collector holding it did not "
			     "answer)");
		}
	} else if (G.json) {
		jlead(q, key, klen);
		printf("\"count\":%" PRIu64 "}\n", cnt);
	} else if (q->single) {
		printf("%" PRIu64 "\n", cnt);
	} else {
		printf("%s: %" PRIu64 "\n", text, cnt);
	}
}

/* Ask @r's keys, print one line each; return how many were not found
 * (kw, pc). */
static size_t run_ask(struct dta_client *c, const struct point_q *q,
		      const struct run *r)
{
	static struct dta_kw_result kw[RUN_MAX];
	static struct dta_pc_result pc[RUN_MAX];
	static uint64_t cnt[RUN_MAX];
	const struct dta_schema *sch = NULL;
	uint8_t *data = NULL;
	size_t dl = 0, missing = 0;
	int rc, i = dta_client_find(c, q->name);

	if (i >= 0 && q->prim == DTA_PRIM_KEY_WRITE) {
		const struct dta_client_structure *s =
			dta_client_structure(c, (size_t)i);

		dl = s->layout.g.kw.data_len;
		sch = s->schema;
		data = malloc(r->n * dl + 1);
		if (!data)
			die("out of memory");
	}
	rc = q->prim == DTA_PRIM_KEY_WRITE
		     ? dta_client_kw_get(c, q->name, r->keys, r->klen, r->n,
					 q->kwo, kw, data)
	     : q->prim == DTA_PRIM_POSTCARD
		     ? dta_client_pc_get(c, q->name, r->keys, r->klen, r->n, pc)
		     : dta_client_ki_get(c, q->name, r->keys, r->klen, r->n,
					 q->bank, cnt);
	if (rc)
		query_fail(c);
	query_note_partial(c);
	for (size_t k = 0; k < r->n; k++) {
		const uint8_t *key = r->keys + k * r->klen;

		if (q->prim == DTA_PRIM_KEY_INCREMENT) {
			print_ki(q, cnt[k], key, r->klen, r->text[k]);
		} else if (q->prim == DTA_PRIM_KEY_WRITE) {
			missing += kw[k].status != DTA_Q_FOUND;
			print_kw(q, sch, &kw[k], data + k * dl, dl, key,
				 r->klen, r->text[k]);
		} else {
			missing += pc[k].status != DTA_Q_FOUND;
			print_pc(q, &pc[k], key, r->klen, r->text[k]);
		}
	}
	free(data);
	return missing;
}

/*
 * kw get / pc path / ki get with KEYs, or "-" (keys from stdin, one a
 * line): one batched request per run of keys of one length, one line per
 * key, in order. Exit status 1 when some key was not found (kw, pc).
 */
static int ask_keys(struct point_q *q, char **args, int nargs)
{
	struct dta_client *c;
	struct run r = { 0 };
	char *line = NULL, err[256];
	size_t cap = 0, missing = 0;
	const char *how;
	int a = 0;

	q->single = nargs == 1 && strcmp(args[0], "-");
	c = query_client(&how);
	r.text = calloc(RUN_MAX, sizeof(*r.text));
	r.keys = malloc((size_t)RUN_MAX * DTA_KEY_MAX);
	if (!r.text || !r.keys)
		die("out of memory");
	for (;;) {
		uint8_t key[DTA_KEY_MAX];
		const char *s = NULL;
		ssize_t len;
		int kl;

		if (a < nargs && strcmp(args[a], "-")) {
			s = args[a++];
		} else if (a < nargs) {
			len = getline(&line, &cap, stdin);
			if (len < 0) {
				a++; /* stdin is done: the next argument */
				continue;
			}
			while (len && (line[len - 1] == '\n' ||
				       line[len - 1] == '\r'))
				line[--len] = 0;
			if (!len)
				continue;
			s = line;
		}
		kl = s ? tool_parse_key(s, key, sizeof(key), err, sizeof(err))
		       : 0;
		if (kl < 0)
			die("%s", err);
		if (r.n && (!s || (size_t)kl != r.klen || r.n == RUN_MAX)) {
			missing += run_ask(c, q, &r);
			for (size_t k = 0; k < r.n; k++)
				free(r.text[k]);
			r.n = 0;
		}
		if (!s)
			break;
		r.klen = (size_t)kl;
		memcpy(r.keys + r.n * r.klen, key, r.klen);
		r.text[r.n] = strdup(s);
		if (!r.text[r.n++])
			die("out of memory");
	}
	free(line);
	free(r.text);
	free(r.keys);
	dta_client_close(c);
	return missing ? 1 : 0;
}

/* "VERB NAME KEY [KEY..|-]" in @args (@what: "kw get", ...): ask them. */
static int ask_args(struct point_q *q, int nargs, char **args,
		    const char *what)
{
	if (nargs < 3 || strcmp(args[0], strchr(what, ' ') + 1))
		die("usage: dta-query %s NAME KEY [KEY..|-]", what);
	q->name = args[1];
	return ask_keys(q, args + 2, nargs - 2);
}

int cmd_kw(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "redundancy", required_argument, NULL, 'n' },
		{ "threshold", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dta_kw_query_opts o = { 0 };
	struct point_q q = { .prim = DTA_PRIM_KEY_WRITE, .kwo = &o };
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:t:h", lo, NULL)) != -1) {
		if (opt == 'n')
			o.redundancy = (unsigned)opt_uint(
				"--redundancy", optarg, 0, DTA_MAX_REDUNDANCY);
		else if (opt == 't')
			o.threshold = (unsigned)opt_uint(
				"--threshold", optarg, 0, DTA_MAX_REDUNDANCY);
		else {
			printf("Usage: dta-query kw get NAME KEY [KEY..|-] [--redundancy N] "
			       "[--threshold T]\n"
			       "  The data last written for KEY (docs/keys.md for key forms).\n"
			       "  Several KEYs, or - (keys from stdin, one a line): one line\n"
			       "  each, asked in batches. With --json and a value schema,\n"
			       "  \"fields\" holds the data decoded beside \"data\".\n"
			       "  --redundancy N  copies to look at (default: the structure's)\n"
			       "  --threshold T   votes the answer needs (default: plurality)\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	return ask_args(&q, argc - optind, argv + optind, "kw get");
}

int cmd_pc(int argc, char **argv)
{
	struct point_q q = { .prim = DTA_PRIM_POSTCARD };

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("Usage: dta-query pc path NAME KEY [KEY..|-]\n"
		       "  The path (hop values) recorded for flow KEY.\n"
		       "  Several KEYs, or - (keys from stdin, one a line): one line\n"
		       "  each, asked in batches.\n");
		return 0;
	}
	return ask_args(&q, argc - 1, argv + 1, "pc path");
}

/* ki total NAME [--bank B]: the bank's total over every share. */
static int ki_total(const char *name, unsigned bank)
{
	const char *how;
	struct dta_client *c = query_client(&how);
	uint64_t total;

	if (dta_client_ki_total(c, name, bank, &total))
		query_fail(c);
	query_note_partial(c);
	if (G.json) {
		printf("{\"total\":%" PRIu64, total);
		query_json_partial();
		puts("}");
	} else {
		printf("%" PRIu64 "\n", total);
	}
	dta_client_close(c);
	return 0;
}

int cmd_ki(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bank", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct point_q q = { .prim = DTA_PRIM_KEY_INCREMENT };
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "b:h", lo, NULL)) != -1) {
		if (opt == 'b') {
			q.bank = (unsigned)opt_uint("--bank", optarg, 0, 1);
		} else {
			printf("Usage: dta-query ki get NAME KEY [KEY..|-] [--bank B]\n"
			       "       dta-query ki total NAME [--bank B]\n"
			       "  get: the count-min estimate for KEY (never below the true\n"
			       "  sum). Several KEYs, or - (keys from stdin, one a line): one\n"
			       "  line each, asked in batches.\n"
			       "  total: everything added to the bank, over every collector\n"
			       "  holding a share (the sum of one row: exact).\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (argc - optind == 2 && !strcmp(argv[optind], "total"))
		return ki_total(argv[optind + 1], q.bank);
	return ask_args(&q, argc - optind, argv + optind, "ki get");
}
