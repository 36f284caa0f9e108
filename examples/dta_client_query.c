/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta_client_query: every primitive through the client (docs/client.md),
 * whatever the target: a collector's socket, its configuration (all its
 * collectors, keys routed by shard), its shared memory, its snapshots.
 *
 *   dta_client_query TARGET                  list the structures
 *   dta_client_query TARGET NAME KEYHEX...   kw, pc, ki: one line a key
 *   dta_client_query TARGET NAME LIST        ap: the list from its oldest
 *                                            entry, one entry a line
 *
 * e.g. dta_client_query config:/etc/dta/dta.conf paths 0a000001...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

static int unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = strlen(s);

	if (n == 0 || n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

static void hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void list(struct dta_client *c)
{
	for (size_t i = 0; i < dta_client_count(c); i++) {
		const struct dta_client_structure *s = dta_client_structure(c, i);
		char sch[DTA_SCHEMA_TEXT_MAX] = "";

		if (s->schema)
			dta_schema_format(s->schema, sch, sizeof(sch));
		printf("%s: %s, %" PRIu64 " bytes, %u share(s)", s->name,
		       dta_primitive_name(s->layout.primitive),
		       s->layout.data_size, s->shares);
		if (s->layout.primitive == DTA_PRIM_APPEND)
			printf(", lists %u (ids %u..)", s->lists, s->list_base);
		printf("%s%s\n", *sch ? ", schema " : "", sch);
	}
}

static int follow(struct dta_client *c, const char *name, uint32_t l,
		  size_t es)
{
	struct dta_client_cursor *cur;
	uint8_t *buf = malloc(1024 * es);
	uint64_t lost;
	long n;

	if (!buf || dta_client_ap_open(c, name, l, DTA_EXEC_AP_OLDEST, &cur))
		return 1;
	while ((n = dta_client_ap_read(cur, buf, 1024, &lost)) > 0) {
		if (lost)
			printf("(%" PRIu64 " entries lost)\n", lost);
		for (long i = 0; i < n; i++) {
			hex(buf + (size_t)i * es, es);
			putchar('\n');
		}
	}
	dta_client_ap_close(cur);
	free(buf);
	return n < 0;
}

int main(int argc, char **argv)
{
	static const char *const st[] = { "found", "not-found", "conflict" };
	const struct dta_client_structure *s;
	struct dta_client *c;
	uint8_t *keys = NULL;
	size_t n = (size_t)(argc > 3 ? argc - 3 : 0), klen = 0;
	char err[512];
	int i, rc = 0;

	if (argc < 2 || argc == 3) {
		fprintf(stderr, "usage: dta_client_query TARGET [NAME KEYHEX..|"
				"NAME LIST]\n");
		return 2;
	}
	if (dta_client_open(argv[1], NULL, &c, err, sizeof(err))) {
		fprintf(stderr, "dta_client_query: %s\n", err);
		return 1;
	}
	if (argc == 2) {
		list(c);
		dta_client_close(c);
		return 0;
	}
	i = dta_client_find(c, argv[2]);
	if (i < 0) {
		fprintf(stderr, "dta_client_query: no structure %s\n", argv[2]);
		dta_client_close(c);
		return 1;
	}
	s = dta_client_structure(c, (size_t)i);
	if (s->layout.primitive == DTA_PRIM_APPEND) {
		rc = follow(c, argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
			    s->layout.g.ap.entry_size);
		goto out;
	}
	keys = malloc(n * DTA_KEY_MAX);
	for (size_t k = 0; keys && k < n; k++) {
		int len = unhex(argv[3 + k], keys + k * klen, DTA_KEY_MAX);

		if (len < 0 || (klen && (size_t)len != klen)) {
			fprintf(stderr, "dta_client_query: %s: keys are hex, "
					"all of one length\n", argv[3 + k]);
			rc = 1;
			goto out;
		}
		klen = (size_t)len; /* the first key sets the stride */
	}
	if (s->layout.primitive == DTA_PRIM_KEY_WRITE) {
		size_t dl = s->layout.g.kw.data_len;
		struct dta_kw_result *r = calloc(n, sizeof(*r));
		uint8_t *d = malloc(n * dl);

		rc = r && d ? dta_client_kw_get(c, argv[2], keys, klen, n, NULL,
						r, d) : -1;
		for (size_t k = 0; !rc && k < n; k++) {
			printf("%s %s", argv[3 + k], st[r[k].status]);
			if (r[k].status == DTA_Q_FOUND) {
				putchar(' ');
				hex(d + k * dl, dl);
			}
			putchar('\n');
		}
		free(r);
		free(d);
	} else if (s->layout.primitive == DTA_PRIM_POSTCARD) {
		struct dta_pc_result *r = calloc(n, sizeof(*r));

		rc = r ? dta_client_pc_get(c, argv[2], keys, klen, n, r) : -1;
		for (size_t k = 0; !rc && k < n; k++) {
			printf("%s %s", argv[3 + k], st[r[k].status]);
			for (unsigned h = 0; h < r[k].path_len; h++)
				printf("%c%u", h ? ',' : ' ', r[k].values[h]);
			putchar('\n');
		}
		free(r);
	} else {
		uint64_t *cnt = calloc(n, sizeof(*cnt));

		rc = cnt ? dta_client_ki_get(c, argv[2], keys, klen, n, 0, cnt)
			 : -1;
		for (size_t k = 0; !rc && k < n; k++)
			printf("%s %" PRIu64 "\n", argv[3 + k], cnt[k]);
		free(cnt);
	}
	if (rc)
		fprintf(stderr, "dta_client_query: %s\n", dta_client_error(c));
out:
	free(keys);
	dta_client_close(c);
	return rc ? 1 : 0;
}
