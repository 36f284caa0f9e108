/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the hand-made seeds of the corpora whose inputs are hard to find
 * by mutation alone (docs/fuzzing.md): region files of the fixture's
 * populated structures (fuzz_region), request lines that hit them
 * (fuzz_query) and request frames of every operation (fuzz_exec_frame).
 * Usage: fuzz-seeds CORPUS-DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "frame_internal.h"

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
 * them in one; each must be the executor's and answered. */
static void requests(struct fixture *f, const char *corpus)
{
	char dir[4096], name[64], hex[2 * FIX_KEY_LEN + 1], req[256];
	uint8_t key[FIX_KEY_LEN];
	struct dta_exec_session *sess;
	char *all = NULL;
	size_t alllen = 0;
	FILE *script = open_memstream(&all, &alllen);
	unsigned n = 0;

	if (dta_exec_session_create(fixture_exec(), &sess))
		exit(1);
	for (size_t i = 0; i < f->n + 1; i++) {
		const char *st = i < f->n ? f->v[i].cs->name : "nosuch";
		int prim = i < f->n ? f->v[i].l->primitive : 0;

		for (unsigned k = 0; k < 3; k++) {
			struct dta_buf out = { 0 };

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
			if (dta_exec_text(sess, req, strlen(req), &out))
				exit(1);
			dta_exec_text_flush(sess, &out);
			if (out.oom || !out.len)
				exit(1);
			dta_buf_free(&out);
			n++;
		}
	}
	fclose(script);
	snprintf(dir, sizeof(dir), "%s/fuzz_query", corpus);
	write_file(dir, "seed-all", all, alllen);
	free(all);
	dta_exec_session_destroy(sess);
}

/* One fuzz_exec_frame record: mode 1 (length as written), its length,
 * the frame. */
static void frame_record(struct dta_buf *b, const struct dta__frame_request *r)
{
	struct dta_buf fr = { 0 };
	uint8_t h[3] = { 1 };

	if (dta__frame_request_put(&fr, r))
		exit(1);
	h[1] = (uint8_t)(fr.len >> 8);
	h[2] = (uint8_t)fr.len;
	dta_buf_put(b, h, sizeof(h));
	dta_buf_put(b, fr.p, fr.len);
	dta_buf_free(&fr);
}

/* Request frames of every operation on every structure (the right one
 * and the others), TEXT requests, and one frame cut short. */
static void frames(struct fixture *f, const char *corpus)
{
	static const char *const text[] = { "info", "stats", "kw flows 0x0a",
					    "ap log 0 8 oldest" };
	char dir[4096], name[64];
	uint8_t keys[3 * FIX_KEY_LEN];
	struct dta_buf all = { 0 };

	snprintf(dir, sizeof(dir), "%s/fuzz_exec_frame", corpus);
	for (unsigned k = 0; k < 3; k++)
		fixture_key(k * 5, keys + k * FIX_KEY_LEN);
	for (size_t i = 0; i < f->n; i++) {
		for (unsigned op = DTA_FRAME_KW; op <= DTA_FRAME_AP; op++) {
			struct dta__frame_request r = {
				.op = op, .structure = (unsigned)i,
				.id = (uint32_t)(i * 8 + op), .n = 3,
				.klen = FIX_KEY_LEN, .arg = op == DTA_FRAME_KI,
				.payload = keys, .payload_len = sizeof(keys),
			};
			struct dta_buf b = { 0 };

			if (op == DTA_FRAME_AP) {
				r.n = 8;
				r.klen = 0;
				r.arg = 0;
				r.payload_len = 0;
			}
			frame_record(&b, &r);
			if (f->v[i].l->primitive == (op == DTA_FRAME_KW ? DTA_PRIM_KEY_WRITE
						     : op == DTA_FRAME_PC ? DTA_PRIM_POSTCARD
						     : op == DTA_FRAME_KI ? DTA_PRIM_KEY_INCREMENT
									  : DTA_PRIM_APPEND)) {
				snprintf(name, sizeof(name), "seed-%s-%u",
					 f->v[i].cs->name, op);
				write_file(dir, name, b.p, b.len);
			}
			dta_buf_put(&all, b.p, b.len);
			dta_buf_free(&b);
		}
	}
	for (size_t t = 0; t < sizeof(text) / sizeof(text[0]); t++) {
		struct dta__frame_request r = {
			.op = DTA_FRAME_TEXT, .id = (uint32_t)t,
			.payload = (const uint8_t *)text[t],
			.payload_len = strlen(text[t]),
		};
		struct dta_buf b = { 0 };

		frame_record(&b, &r);
		snprintf(name, sizeof(name), "seed-text-%zu", t);
		write_file(dir, name, b.p, b.len);
		dta_buf_put(&all, b.p, b.len);
		dta_buf_free(&b);
	}
	if (all.oom)
		exit(1);
	write_file(dir, "seed-all", all.p, all.len);
	/* A frame whose length field says more than there is. */
	write_file(dir, "seed-short", all.p, 20);
	dta_buf_free(&all);
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
	frames(f, argv[1]);
	return 0;
}
