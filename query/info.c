/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query info, stats, snapshot, switch: what the client knows of its
 * structures, and the requests only a collector answers
 * (dta_client_request()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dta/client.h"
#include "dta/exec.h"
#include "query.h"
#include "tools.h"

/* One structure as the collector's `info` answers it: libdta's text, with
 * the client's lists over all shares. */
static void info_one(FILE *f, const struct dta_client_structure *s)
{
	char text[DTA_SCHEMA_TEXT_MAX] = "";
	struct dta_buf b = { 0 };

	if (s->schema && dta_schema_format(s->schema, text, sizeof(text)) < 0)
		die("%s: its schema cannot be formatted", s->name);
	dta_structure_json(&b, s->name, &s->layout, s->lists, s->list_base,
			   s->nvalues, text);
	if (b.oom)
		die("out of memory");
	fwrite(b.p, 1, b.len, f);
	dta_buf_free(&b);
}

/* Text: one line per structure, its members as key=value, then the hash
 * functions of each. */
static void info_text(struct dta_client *c, const char *js)
{
	json_t *root = json_loads(js, 0, NULL), *st;
	json_t *all = json_object_get(root, "structures");
	size_t k;

	json_array_foreach(all, k, st) {
		const char *key;
		json_t *v;
		bool first = true;

		json_object_foreach(st, key, v) {
			char *text = json_is_string(v) ? NULL
				: json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			printf("%s%s=%s", first ? "" : " ", key,
			       text ? text : json_is_string(v)
					? json_string_value(v) : "?");
			free(text);
			first = false;
		}
		putchar('\n');
	}
	json_decref(root);
	for (size_t i = 0; i < dta_client_count(c); i++) {
		const struct dta_layout *l =
			&dta_client_structure(c, i)->layout;

		for (unsigned r = 0; r < DTA_HF_COUNT; r++)
			if (l->fn[r].kind == DTA_HASHFN_CRC32)
				printf("  role %2u: crc32 poly 0x%08x init 0x%08x "
				       "xorout 0x%08x\n", r, l->fn[r].poly,
				       l->fn[r].init, l->fn[r].xorout);
			else if (l->fn[r].kind == DTA_HASHFN_XXH3)
				printf("  role %2u: xxh3 seed 0x%016" PRIx64 "\n",
				       r, l->fn[r].seed);
	}
}

int cmd_info(int argc, char **argv)
{
	struct dta_client *c;
	const char *how;
	char *js = NULL;
	size_t len = 0;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("Usage: dta-query [--file F | --socket S | ...] info [FILE]\n"
		       "  The structures (geometry, hashing) of a collector or snapshot.\n");
		return 0;
	}
	if (argc == 2) /* dta-query info FILE, as before */
		G.files[G.nfiles++] = argv[1];
	c = query_client(&how);
	f = open_memstream(&js, &len);
	if (!f)
		die("out of memory");
	fputs("{\"structures\":[", f);
	for (size_t i = 0; i < dta_client_count(c); i++) {
		if (i)
			fputc(',', f);
		info_one(f, dta_client_structure(c, i));
	}
	fputs("]}", f);
	if (fclose(f))
		die("out of memory");
	if (G.json)
		printf("%s\n", js);
	else
		info_text(c, js);
	free(js);
	dta_client_close(c);
	return 0;
}

/* A request only a collector answers, to the --collector's (or the one
 * socket's) collector; its JSON answer printed. Exit status 1 when a
 * snapshot failed. */
static int cmd_simple(int argc, char **argv, const char *req,
		      const char *help)
{
	struct dta_client *c;
	const char *how;
	char *js;
	json_t *root;
	int rc;

	if (argc > 1) {
		printf("%s", help);
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	c = query_client(&how);
	/* A client over one socket numbers its collector 0. */
	rc = dta_client_request(c,
				G.socket || G.target || !G.cfg ? 0 : (unsigned)G.coll,
				req, &js);
	if (rc == -EOPNOTSUPP)
		die("%s needs a running collector", req);
	if (rc)
		query_fail(c);
	root = json_loads(js, 0, NULL);
	/* Only a top-level error is the request's: the snapshot answer names
	 * per-structure errors inside "failed". */
	if (!strncmp(js, "{\"error\"", 8)) {
		json_t *e = json_object_get(root, "error");

		if (G.json)
			printf("%s\n", js);
		die("%s", json_is_string(e) ? json_string_value(e) : js);
	}
	printf("%s\n", js);
	/* A snapshot that failed is a failure, whatever else was saved. */
	rc = !strcmp(req, "snapshot") &&
	     json_is_false(json_object_get(root, "ok"));
	json_decref(root);
	free(js);
	dta_client_close(c);
	return rc;
}

int cmd_stats(int argc, char **argv)
{
	return cmd_simple(argc, argv, "stats",
			  "Usage: dta-query stats\n  The collector's counters (JSON).\n");
}

int cmd_switch(int argc, char **argv)
{
	return cmd_simple(argc, argv, "switch",
			  "Usage: dta-query switch\n  What a switch translator "
			  "needs to write into the collector (JSON, docs/roce.md):\n"
			  "  its MAC, IP, GID index, and per structure the queue pair,\n"
			  "  first PSN, R_Key, address, length and layout. Only for\n"
			  "  the collector's own uid and root (docs/security.md).\n");
}

int cmd_snapshot(int argc, char **argv)
{
	return cmd_simple(argc, argv, "snapshot",
			  "Usage: dta-query snapshot\n  Ask the collector to write "
			  "snapshots of every structure now; exit status 1\n"
			  "  when any failed (the answer says which and why).\n");
}
