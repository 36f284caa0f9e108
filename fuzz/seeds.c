/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the hand-made seeds of the corpora whose inputs are hard to find
 * by mutation alone (docs/fuzzing.md): region files of the fixture's
 * populated structures (fuzz_region) and request lines that hit them
 * (fuzz_query). Usage: fuzz-seeds CORPUS-DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static void write_file(const char *dir, const char *name, const void *p,
		       size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "fuzz-seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void regions(struct fixture *f, const char *corpus)
{
	char dir[4096], path[4200];

	snprintf(dir, sizeof(dir), "%s/fuzz_region", corpus);
	for (size_t i = 0; i < f->n; i++) {
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = DTA_BACKING_ANON,
					     .name = f->v[i].cs->name };
		struct dta_region *r;

		if (dta_region_create(f->v[i].l, &o, &r))
			exit(1);
		memcpy(dta_region_data(r), f->area[i], f->v[i].l->data_size);
		snprintf(path, sizeof(path), "%s/seed-%s", dir, f->v[i].cs->name);
		if (dta_region_save(r, path))
			exit(1);
		dta_region_destroy(r);
	}
}

/* Requests on every structure into fuzz_query, one per file, and all of
 * them in one. */
static void requests(struct fixture *f, const char *corpus)
{
	char dir[4096], name[64], hex[2 * FIX_KEY_LEN + 1], req[256];
	uint8_t key[FIX_KEY_LEN];
	char *all = NULL;
	size_t alllen = 0;
	FILE *script = open_memstream(&all, &alllen);
	unsigned n = 0;

	for (size_t i = 0; i < f->n + 1; i++) {
		const char *st = i < f->n ? f->v[i].cs->name : "nosuch";
		int prim = i < f->n ? f->v[i].l->primitive : 0;

		for (unsigned k = 0; k < 3; k++) {
			fixture_key(k * 7, key);
			tool_hex(key, sizeof(key), hex);
			switch (prim) {
			case DTA_PRIM_KEY_WRITE:
				snprintf(req, sizeof(req), "kw %s %s %u %u", st,
					 hex, k + 1, k);
				break;
			case DTA_PRIM_POSTCARD:
				snprintf(req, sizeof(req), "pc %s %s", st, hex);
				break;
			case DTA_PRIM_KEY_INCREMENT:
				snprintf(req, sizeof(req), "ki %s %s %u", st, hex,
					 k % 2);
				break;
			case DTA_PRIM_APPEND:
				snprintf(req, sizeof(req), "ap %s %u %u %s", st, k % 2,
					 4 * (k + 1), k == 2 ? "now" : "oldest");
				break;
			default:
				snprintf(req, sizeof(req), k ? "info" : "kw %s 0x", st);
			}
			fprintf(script, "%s\n", req);
			snprintf(dir, sizeof(dir), "%s/fuzz_query", corpus);
			snprintf(name, sizeof(name), "seed-%02u", n);
			write_file(dir, name, req, strlen(req));
			n++;
		}
	}
	fclose(script);
	snprintf(dir, sizeof(dir), "%s/fuzz_query", corpus);
	write_file(dir, "seed-all", all, alllen);
	free(all);
}

int main(int argc, char **argv)
{
	struct fixture *f = fixture_get();

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-seeds CORPUS-DIR\n");
		return 2;
	}
	regions(f, argv[1]);
	requests(f, argv[1]);
	return 0;
}
