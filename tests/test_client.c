/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client (dta/client.h): targets, batched gets against the single-key
 * library queries on the same memory, routing over two collectors'
 * shares against dta_shard(), Append cursors and lost counts worked out
 * by hand, sockets (an in-process server answering through the executor,
 * binary frames split by a small max_frame, and text lines), malformed
 * targets, and the configuration's names (lib/src/runtime.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

/* Paths here are built in PATH_MAX buffers from a short temporary
 * directory; GCC cannot know they fit. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include "dta/append.h"
#include "dta/client.h"
#include "dta/config.h"
#include "dta/exec.h"
#include "dta/frame.h"
#include "dta/hash.h"
#include "dta/keyincr.h"
#include "dta/keywrite.h"
#include "dta/postcard.h"
#include "dta/region.h"
#include "dta/wire.h"

#define KW_KEYS 1500   /* written; twice as many asked */
#define PC_FLOWS 300
#define KI_KEYS 200
#define KLEN 12

static char dir[PATH_MAX];

/* ---- building structures ---- */

static void key_of(unsigned i, uint8_t *k)
{
	memset(k, 0, KLEN);
	memcpy(k, "client", 6);
	k[8] = (uint8_t)(i >> 24);
	k[9] = (uint8_t)(i >> 16);
	k[10] = (uint8_t)(i >> 8);
	k[11] = (uint8_t)i;
}

static void apply(const struct dta_layout *l, void *area,
		  const struct dta_memop *ops, int n)
{
	assert_true(n > 0);
	assert_int_equal(dta_memops_apply(area, l->data_size, ops, (size_t)n),
			 n);
}

static void kw_put(const struct dta_layout *l, void *area, unsigned i,
		   uint8_t tag)
{
	uint8_t key[KLEN], data[64], slot[128];
	struct dta_memop ops[DTA_MAX_REDUNDANCY];

	key_of(i, key);
	for (unsigned j = 0; j < l->g.kw.data_len; j++)
		data[j] = (uint8_t)(i * 7 + j + tag);
	apply(l, area, ops, dta_kw_ops(l, key, KLEN, data, l->g.kw.data_len, 2,
				       slot, sizeof(slot), ops, 8));
}

static void pc_put(const struct dta_layout *l, void *area, unsigned i)
{
	uint8_t key[KLEN], chunk[256];
	uint32_t v[DTA_MAX_HOPS];
	unsigned len = 1 + i % l->g.pc.hops;
	struct dta_memop ops[DTA_MAX_REDUNDANCY];

	key_of(i, key);
	for (unsigned h = 0; h < len; h++)
		v[h] = 1 + (i * 3 + h) % 40;
	apply(l, area, ops, dta_pc_ops(l, key, KLEN, v, len, chunk,
				       sizeof(chunk), ops, 8));
}

static void ki_put(const struct dta_layout *l, void *area, unsigned i,
		   unsigned bank)
{
	uint8_t key[KLEN];
	struct dta_memop ops[DTA_MAX_REDUNDANCY];

	key_of(i, key);
	apply(l, area, ops, dta_ki_ops(l, key, KLEN, 1 + i % 7 + bank * 100,
				       bank, ops, 8));
}

/* Entry j of list @list: bytes that say which they are. */
static void ap_entry(unsigned list, unsigned j, uint8_t *e, size_t size)
{
	for (size_t b = 0; b < size; b++)
		e[b] = (uint8_t)(list * 50 + j + b * 3);
}

static void ap_put(const struct dta_layout *l, void *area, unsigned list,
		   struct dta_ap_cursor *cur, unsigned first, unsigned count)
{
	uint8_t e[2 * 64], frame[512];
	struct dta_memop ops[2];

	for (unsigned j = 0; j < count; j++)
		ap_entry(list, first + j, e + j * l->g.ap.entry_size,
			 l->g.ap.entry_size);
	apply(l, area, ops, dta_ap_ops(l, list, cur, e, count, frame,
				       sizeof(frame), ops, 2));
}

static const char one_conf[] =
	"[collector]\n"
	"name = %s\n"
	"\n"
	"[structure flows]\n"
	"primitive = key-write\n"
	"slots = 4096\n"
	"data = 8\n"
	"schema = a:u32, b:u16le, c:bytes[2]\n"
	"\n"
	"[structure paths]\n"
	"primitive = postcard\n"
	"chunks = 4096\n"
	"hops = 4\n"
	"values = 1-40\n"
	"\n"
	"[structure events]\n"
	"primitive = append\n"
	"lists = 3\n"
	"first_list = 10\n"
	"batches = 4\n"
	"batch = 2\n"
	"entry = 16\n"
	"\n"
	"[structure counts]\n"
	"primitive = key-increment\n"
	"width = 512\n"
	"rows = 3\n"
	"banks = 2\n";

struct set {
	struct dta_config *cfg;
	struct dta_region *r[8];
	size_t n;
	struct dta_ap_cursor apc[3];
	char conf[PATH_MAX];
	char name[64];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static struct dta_region *region_of(struct set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(dta_region_name(s->r[i]), name))
			return s->r[i];
	fail_msg("no region %s", name);
	return NULL;
}

/*
 * The configuration @one_conf under collector name @name, its structures
 * in regions (@shm: shared memory /dta-NAME.S; else anonymous), filled
 * with the writers; with @save each saved to DIR/S.dta.
 */
static void set_build(struct set *s, const char *name, bool shm, bool save)
{
	char text[sizeof(one_conf) + 64], path[PATH_MAX], err[256];

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(text, sizeof(text), one_conf, name);
	snprintf(s->conf, sizeof(s->conf), "%s/%s.conf", dir, name);
	write_file(s->conf, text);
	assert_int_equal(dta_config_load(s->conf, &s->cfg, err, sizeof(err)), 0);
	for (size_t i = 0; i < dta_config_count(s->cfg); i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(s->cfg, i);
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = shm ? DTA_BACKING_SHM
							    : DTA_BACKING_ANON,
					     .name = cs->name,
					     .flags = shm ? DTA_REGION_UNLINK
							  : 0,
					     .schema = cs->schema };
		const struct dta_layout *l = &cs->layout;
		void *a;

		if (shm) {
			assert_int_equal(dta_config_shm_name(name, cs->name,
							     path,
							     sizeof(path)),
					 0);
			o.path = path;
		}
		assert_int_equal(dta_region_create(l, &o, &s->r[s->n]), 0);
		a = dta_region_data(s->r[s->n]);
		switch (l->primitive) {
		case DTA_PRIM_KEY_WRITE:
			for (unsigned k = 0; k < KW_KEYS; k++)
				kw_put(l, a, k, 0);
			break;
		case DTA_PRIM_POSTCARD:
			for (unsigned k = 0; k < PC_FLOWS; k++)
				pc_put(l, a, k);
			break;
		case DTA_PRIM_KEY_INCREMENT:
			for (unsigned k = 0; k < KI_KEYS; k++) {
				ki_put(l, a, k, 0);
				if (k % 3 == 0)
					ki_put(l, a, k, 1);
			}
			break;
		case DTA_PRIM_APPEND:
			/* List 0: 9 batches (the ring holds 4), list 1: one
			 * full batch, list 2: nothing. */
			for (unsigned b = 0; b < 9; b++)
				ap_put(l, a, 0, &s->apc[0], 2 * b, 2);
			ap_put(l, a, 1, &s->apc[1], 0, 2);
			break;
		}
		if (save) {
			snprintf(path, sizeof(path), "%s/%s.dta", dir, cs->name);
			assert_int_equal(dta_region_save(s->r[s->n], path), 0);
		}
		s->n++;
	}
}

static void set_free(struct set *s)
{
	for (size_t i = 0; i < s->n; i++)
		dta_region_destroy(s->r[i]);
	dta_config_destroy(s->cfg);
	unlink(s->conf);
}

static struct dta_client *open_ok(const char *target, unsigned flags)
{
	struct dta_client_opts o = { .sz = sizeof(o), .flags = flags };
	struct dta_client *c = NULL;
	char err[512];
	int rc = dta_client_open(target, &o, &c, err, sizeof(err));

	if (rc)
		fail_msg("%s: %d %s", target, rc, err);
	assert_string_equal(dta_client_error(c), "");
	return c;
}

/* ---- answers against the single-key library queries ---- */

static void check_kw(struct dta_client *c, const char *name,
		     const struct dta_layout *l, const void *area, size_t n)
{
	uint8_t *keys = malloc(n * KLEN), *data;
	struct dta_kw_result *res = malloc(n * sizeof(*res)), r1;
	size_t dl = l->g.kw.data_len, found = 0;
	uint8_t one[64], zero[64] = { 0 };

	data = malloc(n * dl);
	assert_non_null(keys);
	assert_non_null(res);
	assert_non_null(data);
	for (size_t i = 0; i < n; i++)
		key_of((unsigned)i, keys + i * KLEN);
	assert_int_equal(dta_client_kw_get(c, name, keys, KLEN, n, NULL, res,
					   data), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(dta_kw_query(l, area, keys + i * KLEN, KLEN,
					      NULL, one, sizeof(one), &r1), 0);
		assert_int_equal(res[i].status, r1.status);
		assert_int_equal(res[i].votes, r1.votes);
		assert_int_equal(res[i].candidates, r1.candidates);
		if (r1.status == DTA_Q_FOUND) {
			assert_memory_equal(data + i * dl, one, dl);
			found++;
		} else {
			assert_memory_equal(data + i * dl, zero, dl);
		}
	}
	/* Most of the written half is found; none of the other half. */
	assert_true(found > KW_KEYS / 2 && found <= KW_KEYS);
	free(data);
	free(res);
	free(keys);
}

static void check_pc(struct dta_client *c, const char *name,
		     const struct dta_layout *l, const void *area,
		     const uint32_t *values, size_t nvalues, size_t n)
{
	struct dta_pc_codebook *cb;
	uint8_t *keys = malloc(n * KLEN);
	struct dta_pc_result *res = malloc(n * sizeof(*res)), r1;
	size_t found = 0;

	assert_non_null(keys);
	assert_non_null(res);
	assert_int_equal(dta_pc_codebook_create(l, values, nvalues, &cb), 0);
	for (size_t i = 0; i < n; i++)
		key_of((unsigned)i, keys + i * KLEN);
	assert_int_equal(dta_client_pc_get(c, name, keys, KLEN, n, res), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(dta_pc_query(l, area, cb, keys + i * KLEN, KLEN,
					      0, &r1), 0);
		assert_int_equal(res[i].status, r1.status);
		assert_int_equal(res[i].valid_copies, r1.valid_copies);
		if (r1.status != DTA_Q_FOUND)
			continue;
		found++;
		assert_int_equal(res[i].path_len, r1.path_len);
		assert_memory_equal(res[i].values, r1.values,
				    r1.path_len * sizeof(uint32_t));
		/* And what was written (hand-computed). */
		if (i < PC_FLOWS) {
			assert_int_equal(r1.path_len, 1 + i % l->g.pc.hops);
			assert_int_equal(r1.values[0], 1 + (i * 3) % 40);
		}
	}
	assert_true(found > PC_FLOWS / 2 && found <= PC_FLOWS);
	dta_pc_codebook_destroy(cb);
	free(res);
	free(keys);
}

static void check_ki(struct dta_client *c, const char *name,
		     const struct dta_layout *l, const void *area, size_t n)
{
	uint8_t *keys = malloc(n * KLEN);
	uint64_t *cnt = malloc(n * sizeof(*cnt)), c1;

	assert_non_null(keys);
	assert_non_null(cnt);
	for (size_t i = 0; i < n; i++)
		key_of((unsigned)i, keys + i * KLEN);
	for (unsigned bank = 0; bank < 2; bank++) {
		assert_int_equal(dta_client_ki_get(c, name, keys, KLEN, n, bank,
						   cnt), 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(dta_ki_query(l, area, keys + i * KLEN,
						      KLEN, bank, &c1), 0);
			assert_int_equal(cnt[i], c1);
			/* Count-min never under-estimates. */
			if (i < KI_KEYS && (bank == 0 || i % 3 == 0))
				assert_true(cnt[i] >= 1 + i % 7 + bank * 100);
		}
	}
	free(cnt);
	free(keys);
}

/* List @list (of the client's numbering) read from the oldest: the
 * entries of @list_written (hand-computed: the last @kept of @written
 * entries), against a library reader on the same area. */
static void check_ap(struct dta_client *c, const char *name, uint32_t list,
		     const struct dta_layout *l, const void *area,
		     uint32_t local, unsigned written, unsigned kept)
{
	struct dta_client_cursor *cur;
	struct dta_ap_reader *rd;
	size_t es = l->g.ap.entry_size;
	uint8_t buf[64 * 16], lib[64 * 16], e[16];
	uint64_t lost = 99, lost1 = 0;
	long got;
	int n1;

	assert_int_equal(dta_client_ap_open(c, name, list, DTA_EXEC_AP_OLDEST,
					    &cur), 0);
	assert_int_equal(dta_client_ap_position(cur), 0);
	got = dta_client_ap_read(cur, buf, 64, &lost);
	assert_int_equal(dta_ap_reader_create(l, area, local, 0, &rd), 0);
	n1 = dta_ap_read(rd, lib, 64, &lost1);
	assert_int_equal(got, n1);
	assert_int_equal(lost, lost1);
	assert_memory_equal(buf, lib, (size_t)n1 * es);
	assert_int_equal(dta_client_ap_position(cur),
			 dta_ap_reader_position(rd));
	assert_int_equal(got, kept);
	for (unsigned j = 0; j < kept; j++) {
		ap_entry(local, written - kept + j, e, es);
		assert_memory_equal(buf + j * es, e, es);
	}
	assert_int_equal(dta_client_ap_position(cur), written);
	/* Nothing new. */
	assert_int_equal(dta_client_ap_read(cur, buf, 64, &lost), 0);
	assert_int_equal(lost, 0);
	dta_ap_reader_destroy(rd);
	dta_client_ap_close(cur);

	/* Resumed at a saved position (dta_client_ap_open_at()): one entry
	 * into what is kept, the entries after it; at 0, what the ring
	 * overwrote counted lost; at the end, nothing. */
	for (unsigned k = 0; k < 3 && kept; k++) {
		uint64_t at = k == 0 ? written - kept + 1 : k == 1 ? 0 : written;
		unsigned want = k == 0 ? kept - 1 : k == 1 ? kept : 0;

		assert_int_equal(dta_client_ap_open_at(c, name, list, at, &cur),
				 0);
		assert_int_equal(dta_client_ap_position(cur), at);
		got = dta_client_ap_read(cur, buf, 64, &lost);
		assert_int_equal(got, want);
		assert_int_equal(lost, k == 1 ? written - kept : 0);
		for (unsigned j = 0; j < want; j++) {
			ap_entry(local, written - want + j, e, es);
			assert_memory_equal(buf + j * es, e, es);
		}
		assert_int_equal(dta_client_ap_position(cur), written);
		dta_client_ap_close(cur);
	}
}

/* Every primitive through @c against the set's own memory. */
static void check_all(struct dta_client *c, struct set *s, bool values)
{
	struct dta_region *r;
	const struct dta_config_structure *pc =
		dta_config_find(s->cfg, "paths");

	r = region_of(s, "flows");
	check_kw(c, "flows", dta_region_layout(r), dta_region_data(r),
		 2 * KW_KEYS);
	r = region_of(s, "counts");
	check_ki(c, "counts", dta_region_layout(r), dta_region_data(r),
		 2 * KI_KEYS);
	r = region_of(s, "paths");
	if (values)
		check_pc(c, "paths", dta_region_layout(r), dta_region_data(r),
			 pc->values, pc->nvalues, 2 * PC_FLOWS);
	r = region_of(s, "events");
	/* List 0: 18 written, the ring kept the last 4 batches (8). */
	check_ap(c, "events", 0, dta_region_layout(r), dta_region_data(r), 0,
		 18, 8);
	check_ap(c, "events", 1, dta_region_layout(r), dta_region_data(r), 1,
		 2, 2);
	check_ap(c, "events", 2, dta_region_layout(r), dta_region_data(r), 2,
		 0, 0);
}

/* The structures as the client lists them: as configured. */
static void check_listing(struct dta_client *c, struct set *s, bool sch)
{
	const struct dta_client_structure *st;
	int i;

	assert_int_equal(dta_client_count(c), 4);
	assert_null(dta_client_structure(c, 4));
	assert_int_equal(dta_client_find(c, "nope"), -ENOENT);
	i = dta_client_find(c, "events");
	assert_true(i >= 0);
	st = dta_client_structure(c, (size_t)i);
	assert_string_equal(st->name, "events");
	assert_int_equal(st->layout.primitive, DTA_PRIM_APPEND);
	assert_int_equal(st->layout.g.ap.entry_size, 16);
	assert_int_equal(st->shares, 1);
	assert_int_equal(st->lists, 3);
	assert_int_equal(st->list_base, 10);
	st = dta_client_structure(c, (size_t)dta_client_find(c, "flows"));
	assert_int_equal(st->layout.g.kw.data_len, 8);
	assert_int_equal(st->lists, 0);
	if (sch) {
		assert_non_null(st->schema);
		assert_int_equal(st->schema->nfields, 3);
		assert_string_equal(st->schema->f[1].name, "b");
		assert_int_equal(st->schema->f[1].little, 1);
	}
	(void)s;
}

/* ---- tests ---- */

static void expect_open(const char *target, int code);

static void test_snapshot_and_file(void **state)
{
	struct set s;
	struct dta_client *c;
	char t[4 * PATH_MAX];
	struct dta_pc_result pr;
	uint8_t key[KLEN] = { 1 };
	char *ans;

	(void)state;
	set_build(&s, "tcs", false, true);
	snprintf(t, sizeof(t), "snapshot:%s?config=%s", dir, s.conf);
	c = open_ok(t, 0);
	check_listing(c, &s, true);
	check_all(c, &s, true);
	/* Local backends answer the executor's text requests only. */
	assert_int_equal(dta_client_request(c, 0, "info", &ans), 0);
	assert_non_null(strstr(ans, "{\"structures\":[{\"name\":\"flows\""));
	free(ans);
	assert_int_equal(dta_client_request(c, 0, "stats", &ans),
			 -EOPNOTSUPP);
	assert_null(ans);
	assert_int_equal(dta_client_request(c, 1, "info", &ans), -ENOENT);
	assert_int_equal(dta_client_request(c, 0, "in\nfo", &ans), -EINVAL);
	dta_client_close(c);

	/* file: the files alone, named by their headers, no value set. */
	snprintf(t, sizeof(t), "file:%s/flows.dta,%s/events.dta,%s/counts.dta,"
		 "%s/paths.dta", dir, dir, dir, dir);
	c = open_ok(t, 0);
	assert_int_equal(dta_client_count(c), 4);
	assert_int_equal(dta_client_structure(c, 1)->list_base, 0);
	/* The schema from the file's header. */
	assert_non_null(dta_client_structure(c, 0)->schema);
	assert_int_equal(dta_client_structure(c, 0)->schema->nfields, 3);
	assert_null(dta_client_structure(c, 2)->schema);
	check_all(c, &s, false);
	assert_int_equal(dta_client_pc_get(c, "paths", key, KLEN, 1, &pr),
			 -DTA_E_NOVALUES);
	assert_non_null(strstr(dta_client_error(c), "paths"));
	dta_client_close(c);
	/* With ?config=: values and list bases from the configuration. */
	snprintf(t, sizeof(t), "file:%s/flows.dta,%s/events.dta,%s/counts.dta,"
		 "%s/paths.dta?config=%s", dir, dir, dir, dir, s.conf);
	c = open_ok(t, 0);
	assert_int_equal(dta_client_structure(c, 1)->list_base, 10);
	check_all(c, &s, true);
	dta_client_close(c);
	snprintf(t, sizeof(t), "file:%s/flows.dta?config=%s&collector=x", dir,
		 s.conf);
	expect_open(t, -EINVAL);
	set_free(&s);
}

/* Errors: each names what failed; the handle stays usable. */
static void test_errors(void **state)
{
	struct set s;
	struct dta_client *c;
	struct dta_client_cursor *cur = (void *)1;
	char t[2 * PATH_MAX];
	uint8_t key[KLEN] = { 0 }, data[8];
	struct dta_kw_result r;
	struct dta_kw_query_opts big = { .redundancy = 9 };
	uint64_t cnt;

	(void)state;
	set_build(&s, "tce", false, true);
	snprintf(t, sizeof(t), "snapshot:%s?config=%s", dir, s.conf);
	c = open_ok(t, 0);
	assert_int_equal(dta_client_kw_get(c, "nope", key, KLEN, 1, NULL, &r,
					   data), -ENOENT);
	assert_non_null(strstr(dta_client_error(c), "nope"));
	assert_int_equal(dta_client_kw_get(c, "counts", key, KLEN, 1, NULL, &r,
					   data), -DTA_E_PRIMITIVE);
	assert_int_equal(dta_client_kw_get(c, "flows", key, 0, 1, NULL, &r,
					   data), -EINVAL);
	assert_int_equal(dta_client_kw_get(c, "flows", key, DTA_KEY_MAX + 1, 1,
					   NULL, &r, data), -EINVAL);
	assert_int_equal(dta_client_kw_get(c, "flows", NULL, KLEN, 1, NULL, &r,
					   data), -EINVAL);
	assert_int_equal(dta_client_kw_get(c, "flows", key, KLEN, 1, &big, &r,
					   data), -EINVAL);
	assert_int_equal(dta_client_ki_get(c, "counts", key, KLEN, 1, 2, &cnt),
			 -EINVAL);
	/* n = 0 does nothing and succeeds. */
	assert_int_equal(dta_client_kw_get(c, "flows", NULL, KLEN, 0, NULL,
					   NULL, NULL), 0);
	assert_string_equal(dta_client_error(c), "");
	assert_int_equal(dta_client_ap_open(c, "events", 3, DTA_EXEC_AP_OLDEST,
					    &cur), -DTA_E_MISMATCH);
	assert_null(cur);
	assert_int_equal(dta_client_ap_open(c, "flows", 0, DTA_EXEC_AP_OLDEST,
					    &cur), -DTA_E_PRIMITIVE);
	assert_int_equal(dta_client_ap_open(c, "events", 0, 7, &cur), -EINVAL);
	/* Still answers. */
	assert_int_equal(dta_client_kw_get(c, "flows", key, KLEN, 1, NULL, &r,
					   data), 0);
	dta_client_close(c);
	dta_client_close(NULL);
	dta_client_ap_close(NULL);
	assert_int_equal(dta_client_count(NULL), 0);
	set_free(&s);
}

static void expect_open(const char *target, int code)
{
	struct dta_client *c = (void *)1;
	char err[512] = "x";
	int rc = dta_client_open(target, NULL, &c, err, sizeof(err));

	if (rc != code)
		fail_msg("%s: got %d (%s), want %d", target, rc, err, code);
	assert_null(c);
	assert_true(strlen(err) > 0);
}

static void test_malformed_targets(void **state)
{
	char t[2 * PATH_MAX], conf[PATH_MAX], bad[PATH_MAX];
	struct dta_client *c;

	(void)state;
	snprintf(conf, sizeof(conf), "%s/m.conf", dir);
	write_file(conf, "[collector]\nname = tcm\n[structure a]\n"
			 "primitive = kw\nslots = 64\n");
	snprintf(bad, sizeof(bad), "%s/bad.conf", dir);
	write_file(bad, "[structure a]\nprimitive = kw\nslotz = 64\n");
	expect_open("", -EINVAL);
	expect_open("bogus:x", -EINVAL);
	expect_open("unix:", -EINVAL);
	expect_open("file:", -EINVAL);
	expect_open("config:", -EINVAL);
	expect_open("map:", -EINVAL);
	snprintf(t, sizeof(t), "file:%s,,%s", conf, conf);
	expect_open(t, -EINVAL);
	snprintf(t, sizeof(t), "snapshot:%s", dir);
	expect_open(t, -EINVAL); /* no config */
	snprintf(t, sizeof(t), "snapshot:%s?config=%s&config=%s", dir, conf,
		 conf);
	expect_open(t, -EINVAL);
	snprintf(t, sizeof(t), "map:%s?colector=x", conf);
	expect_open(t, -EINVAL);
	snprintf(t, sizeof(t), "map:%s?config=%s", conf, conf);
	expect_open(t, -EINVAL); /* config= is snapshot's */
	snprintf(t, sizeof(t), "map:%s?collector=", conf);
	expect_open(t, -EINVAL);
	snprintf(t, sizeof(t), "map:%s?collector=nosuch", conf);
	expect_open(t, -ENOENT);
	snprintf(t, sizeof(t), "map:%s", bad);
	expect_open(t, -DTA_E_MALFORMED);
	snprintf(t, sizeof(t), "map:%s/none.conf", dir);
	expect_open(t, -ENOENT);
	/* No collector runs under that name. */
	snprintf(t, sizeof(t), "map:%s", conf);
	expect_open(t, -ENOENT);
	snprintf(t, sizeof(t), "snapshot:%s/nodir?config=%s", dir, conf);
	expect_open(t, -ENOENT);
	/* A path that is not a socket, one that does not exist. */
	expect_open(conf, -EINVAL);
	snprintf(t, sizeof(t), "%s/no.sock", dir);
	expect_open(t, -ENOENT);
	snprintf(t, sizeof(t), "unix:%s/no.sock", dir);
	expect_open(t, -ENOENT);
	snprintf(t, sizeof(t), "unix:/%0200d", 1);
	expect_open(t, -ENAMETOOLONG);
	/* A file that is not a region. */
	snprintf(t, sizeof(t), "file:%s", conf);
	expect_open(t, -DTA_E_BADREGION);
	assert_int_equal(dta_client_open(NULL, NULL, &c, NULL, 0), -EINVAL);
	unlink(conf);
	unlink(bad);
}

/* map: the live regions; an Append cursor lapped by the writer. */
static void test_map_and_lost(void **state)
{
	struct set s;
	struct dta_client *c;
	struct dta_client_cursor *cur, *cur2;
	struct dta_region *r;
	const struct dta_layout *l;
	char t[PATH_MAX + 16], name[32];
	uint8_t buf[64 * 16], e[16];
	uint64_t lost;
	void *area;

	(void)state;
	snprintf(name, sizeof(name), "tcmap-%d", (int)getpid());
	set_build(&s, name, true, false);
	snprintf(t, sizeof(t), "map:%s", s.conf);
	c = open_ok(t, 0);
	check_listing(c, &s, true);
	check_all(c, &s, true);

	/* List 2 (empty): a cursor from the oldest reads the 4 entries of
	 * batches 0-1; then 10 batches lap the ring of 4: the next read
	 * gets batches 8-11 (entries 16-23), 12 lost (4-15), position 24. */
	r = region_of(&s, "events");
	l = dta_region_layout(r);
	area = dta_region_data(r);
	ap_put(l, area, 2, &s.apc[2], 0, 2);
	ap_put(l, area, 2, &s.apc[2], 2, 2);
	assert_int_equal(dta_client_ap_open(c, "events", 2, DTA_EXEC_AP_OLDEST,
					    &cur), 0);
	assert_int_equal(dta_client_ap_read(cur, buf, 64, &lost), 4);
	assert_int_equal(lost, 0);
	assert_int_equal(dta_client_ap_position(cur), 4);
	/* A second cursor from now sees only what comes next. */
	assert_int_equal(dta_client_ap_open(c, "events", 2, DTA_EXEC_AP_NOW,
					    &cur2), 0);
	for (unsigned b = 2; b < 12; b++)
		ap_put(l, area, 2, &s.apc[2], 2 * b, 2);
	/* Room for 3 entries: one batch of 2 fits, not two. */
	assert_int_equal(dta_client_ap_read(cur, buf, 3, &lost), 2);
	assert_int_equal(lost, 12);
	ap_entry(2, 16, e, 16);
	assert_memory_equal(buf, e, 16);
	assert_int_equal(dta_client_ap_read(cur, buf, 64, &lost), 6);
	assert_int_equal(lost, 0);
	ap_entry(2, 23, e, 16);
	assert_memory_equal(buf + 5 * 16, e, 16);
	assert_int_equal(dta_client_ap_position(cur), 24);
	/* The NOW cursor started after batch 1: 4-15 overwritten. */
	assert_int_equal(dta_client_ap_read(cur2, buf, 64, &lost), 8);
	assert_int_equal(lost, 12);
	assert_int_equal(dta_client_ap_position(cur2), 24);
	dta_client_ap_close(cur);
	/* cur2 is closed with the client. */
	dta_client_close(c);

	/* ?collector= names the only collector: the same. */
	snprintf(t, sizeof(t), "map:%s?collector=default", s.conf);
	c = open_ok(t, 0);
	assert_int_equal(dta_client_count(c), 4);
	dta_client_close(c);
	set_free(&s);
}

/* ---- two collectors, one configuration ---- */

static const char two_conf[] =
	"[collector]\n"
	"name = %s-a\n"
	"[collector east]\n"
	"name = %s-b\n"
	"\n"
	"[structure flows]\n"
	"primitive = key-write\n"
	"slots = 4096\n"
	"data = 8\n"
	"collector = default, east\n"
	"\n"
	"[structure paths]\n"
	"primitive = postcard\n"
	"chunks = 4096\n"
	"hops = 4\n"
	"values = 1-40\n"
	"collector = east, default\n"
	"\n"
	"[structure events]\n"
	"primitive = append\n"
	"lists = 2\n"
	"first_list = 100\n"
	"batches = 4\n"
	"batch = 2\n"
	"entry = 16\n"
	"collector = default, east\n"
	"\n"
	"[structure counts]\n"
	"primitive = key-increment\n"
	"width = 512\n"
	"rows = 3\n"
	"collector = east\n";

struct two {
	struct dta_config *cfg;
	struct dta_region *r[8]; /* share regions, in order of creation */
	const char *rname[8];
	unsigned rshare[8];
	size_t n;
	char conf[PATH_MAX];
};

/*
 * Each share's regions, saved to DIR/COLLECTOR/S.dta. Every Key-Write key
 * is written with tag 0 into the share dta_shard() gives it and with tag
 * 1 into the other share (a decoy a misrouted query would find); every
 * Postcarding flow into its own share only. Append: share 1 list 1 gets
 * 3 entries. Key-Increment: one share.
 */
static void two_build(struct two *w, const char *base)
{
	char text[sizeof(two_conf) + 128], path[PATH_MAX], err[256];
	struct dta_ap_cursor apc = { 0 };

	memset(w, 0, sizeof(*w));
	snprintf(text, sizeof(text), two_conf, base, base);
	snprintf(w->conf, sizeof(w->conf), "%s/%s.conf", dir, base);
	write_file(w->conf, text);
	assert_int_equal(dta_config_load(w->conf, &w->cfg, err, sizeof(err)), 0);
	for (size_t i = 0; i < dta_config_count(w->cfg); i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(w->cfg, i);
		const struct dta_layout *l = &cs->layout;

		for (unsigned k = 0; k < cs->ncollectors; k++) {
			struct dta_region_opts o = { .sz = sizeof(o),
						     .backing = DTA_BACKING_ANON,
						     .name = cs->name };
			const char *id = dta_config_collector_id(w->cfg,
							cs->collectors[k]);
			uint8_t key[KLEN];
			void *a;

			assert_int_equal(dta_region_create(l, &o, &w->r[w->n]),
					 0);
			a = dta_region_data(w->r[w->n]);
			for (unsigned j = 0; l->primitive == DTA_PRIM_KEY_WRITE &&
					     j < KW_KEYS; j++) {
				key_of(j, key);
				kw_put(l, a, j, dta_shard(key, KLEN, 2) == k
							? 0 : 1);
			}
			for (unsigned j = 0; l->primitive == DTA_PRIM_POSTCARD &&
					     j < PC_FLOWS; j++) {
				key_of(j, key);
				if (dta_shard(key, KLEN, 2) == k)
					pc_put(l, a, j);
			}
			for (unsigned j = 0; l->primitive ==
					     DTA_PRIM_KEY_INCREMENT &&
					     j < KI_KEYS; j++)
				ki_put(l, a, j, 0);
			if (l->primitive == DTA_PRIM_APPEND && k == 1) {
				ap_put(l, a, 1, &apc, 0, 2);
				ap_put(l, a, 1, &apc, 2, 1);
			}
			snprintf(path, sizeof(path), "%s/%s", dir, id);
			mkdir(path, 0700);
			snprintf(path, sizeof(path), "%s/%s/%s.dta", dir, id,
				 cs->name);
			assert_int_equal(dta_region_save(w->r[w->n], path), 0);
			w->rname[w->n] = cs->name;
			w->rshare[w->n] = k;
			w->n++;
		}
	}
}

static struct dta_region *share_of(struct two *w, const char *name, unsigned k)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->rname[i], name) && w->rshare[i] == k)
			return w->r[i];
	fail_msg("no share %u of %s", k, name);
	return NULL;
}

static void test_sharded(void **state)
{
	struct two w;
	struct dta_client *c;
	struct dta_client_cursor *cur;
	const struct dta_client_structure *st;
	char t[2 * PATH_MAX], base[32];
	uint8_t *keys = malloc(2 * KW_KEYS * KLEN), data[2 * KW_KEYS * 8],
		one[8], buf[16 * 16], e[16];
	struct dta_kw_result res[2 * KW_KEYS], r1;
	struct dta_pc_result *pr = malloc(2 * PC_FLOWS * sizeof(*pr)), p1;
	struct dta_pc_codebook *cb;
	uint64_t cnt[KI_KEYS], c1, lost;
	const struct dta_config_structure *pcs;
	unsigned per_share[2] = { 0 };

	(void)state;
	assert_non_null(keys);
	assert_non_null(pr);
	snprintf(base, sizeof(base), "tc2-%d", (int)getpid());
	two_build(&w, base);
	snprintf(t, sizeof(t), "snapshot:%s?config=%s", dir, w.conf);
	c = open_ok(t, 0);
	assert_int_equal(dta_client_count(c), 4);
	st = dta_client_structure(c, (size_t)dta_client_find(c, "events"));
	assert_int_equal(st->shares, 2);
	assert_int_equal(st->lists, 4);
	assert_int_equal(st->list_base, 100);
	st = dta_client_structure(c, (size_t)dta_client_find(c, "counts"));
	assert_int_equal(st->shares, 1);

	/* Key-Write: each key answered by its own share (tag 0), never
	 * the decoy. */
	for (unsigned i = 0; i < 2 * KW_KEYS; i++)
		key_of(i, keys + i * KLEN);
	assert_int_equal(dta_client_kw_get(c, "flows", keys, KLEN, 2 * KW_KEYS,
					   NULL, res, data), 0);
	for (unsigned i = 0; i < 2 * KW_KEYS; i++) {
		unsigned k = dta_shard(keys + i * KLEN, KLEN, 2);
		struct dta_region *r = share_of(&w, "flows", k);

		per_share[k]++;
		assert_int_equal(dta_kw_query(dta_region_layout(r),
					      dta_region_data(r),
					      keys + i * KLEN, KLEN, NULL, one,
					      sizeof(one), &r1), 0);
		assert_int_equal(res[i].status, r1.status);
		assert_int_equal(res[i].votes, r1.votes);
		if (r1.status == DTA_Q_FOUND)
			assert_memory_equal(data + i * 8, one, 8);
		if (r1.status == DTA_Q_FOUND && i < KW_KEYS)
			assert_int_equal(data[i * 8], (uint8_t)(i * 7));
	}
	assert_true(per_share[0] > KW_KEYS / 2 && per_share[1] > KW_KEYS / 2);

	/* Postcarding: the same, the flows only in their share. */
	pcs = dta_config_find(w.cfg, "paths");
	assert_int_equal(dta_client_pc_get(c, "paths", keys, KLEN, 2 * PC_FLOWS,
					   pr), 0);
	for (unsigned k = 0; k < 2; k++) {
		struct dta_region *r = share_of(&w, "paths", k);

		assert_int_equal(dta_pc_codebook_create(dta_region_layout(r),
							pcs->values,
							pcs->nvalues, &cb), 0);
		for (unsigned i = 0; i < 2 * PC_FLOWS; i++) {
			if (dta_shard(keys + i * KLEN, KLEN, 2) != k)
				continue;
			assert_int_equal(dta_pc_query(dta_region_layout(r),
						      dta_region_data(r), cb,
						      keys + i * KLEN, KLEN, 0,
						      &p1), 0);
			assert_int_equal(pr[i].status, p1.status);
			assert_int_equal(pr[i].path_len, p1.path_len);
			assert_memory_equal(pr[i].values, p1.values,
					    p1.path_len * 4);
		}
		dta_pc_codebook_destroy(cb);
	}

	/* Key-Increment on east alone. */
	assert_int_equal(dta_client_ki_get(c, "counts", keys, KLEN, KI_KEYS, 0,
					   cnt), 0);
	for (unsigned i = 0; i < KI_KEYS; i++) {
		struct dta_region *r = share_of(&w, "counts", 0);

		assert_int_equal(dta_ki_query(dta_region_layout(r),
					      dta_region_data(r),
					      keys + i * KLEN, KLEN, 0, &c1), 0);
		assert_int_equal(cnt[i], c1);
	}

	/* Append list 3 over all shares = share 1's list 1 (report list
	 * 103): its 3 entries. */
	assert_int_equal(dta_client_ap_open(c, "events", 3, DTA_EXEC_AP_OLDEST,
					    &cur), 0);
	assert_int_equal(dta_client_ap_read(cur, buf, 16, &lost), 3);
	assert_int_equal(lost, 0);
	for (unsigned j = 0; j < 3; j++) {
		ap_entry(1, j, e, 16);
		assert_memory_equal(buf + j * 16, e, 16);
	}
	dta_client_ap_close(cur);
	assert_int_equal(dta_client_ap_open(c, "events", 1, DTA_EXEC_AP_OLDEST,
					    &cur), 0);
	assert_int_equal(dta_client_ap_read(cur, buf, 16, &lost), 0);
	dta_client_ap_close(cur);
	assert_int_equal(dta_client_ap_open(c, "events", 4, DTA_EXEC_AP_OLDEST,
					    &cur), -DTA_E_MISMATCH);
	dta_client_close(c);

	/* ?collector=east: east's shares only, with its own list
	 * numbering; every key asked there, so a key of the default
	 * collector finds the decoy east holds (tag 1). */
	snprintf(t, sizeof(t), "snapshot:%s/%s-b?config=%s&collector=east", dir,
		 base, w.conf);
	c = open_ok(t, 0);
	assert_int_equal(dta_client_count(c), 4);
	st = dta_client_structure(c, (size_t)dta_client_find(c, "events"));
	assert_int_equal(st->shares, 1);
	assert_int_equal(st->lists, 2);
	assert_int_equal(st->list_base, 102);
	assert_int_equal(dta_client_kw_get(c, "flows", keys, KLEN, KW_KEYS, NULL,
					   res, data), 0);
	for (unsigned i = 0; i < KW_KEYS; i++) {
		struct dta_region *r = share_of(&w, "flows", 1);

		assert_int_equal(dta_kw_query(dta_region_layout(r),
					      dta_region_data(r),
					      keys + i * KLEN, KLEN, NULL, one,
					      sizeof(one), &r1), 0);
		assert_int_equal(res[i].status, r1.status);
		if (r1.status == DTA_Q_FOUND)
			assert_int_equal(data[i * 8],
					 (uint8_t)(i * 7 +
						   (dta_shard(keys + i * KLEN,
							      KLEN, 2) == 1
							    ? 0 : 1)));
	}
	assert_int_equal(dta_client_ap_open(c, "events", 1, DTA_EXEC_AP_OLDEST,
					    &cur), 0);
	assert_int_equal(dta_client_ap_read(cur, buf, 16, &lost), 3);
	dta_client_ap_close(cur);
	dta_client_close(c);
	/* The default collector holds no share of counts: 3 structures. */
	snprintf(t, sizeof(t), "snapshot:%s/%s-a?config=%s&collector=default",
		 dir, base, w.conf);
	c = open_ok(t, 0);
	assert_int_equal(dta_client_count(c), 3);
	assert_int_equal(dta_client_find(c, "counts"), -ENOENT);
	dta_client_close(c);

	for (size_t i = 0; i < w.n; i++)
		dta_region_destroy(w.r[i]);
	dta_config_destroy(w.cfg);
	free(pr);
	free(keys);
}

/* ---- sockets: an in-process server answering through the executor ---- */

struct conn {
	int fd;
	bool binary;
	struct dta_exec_session *sess;
	uint8_t *in;
	size_t len, cap;
};

struct server {
	struct dta_exec *x;
	int lfd, stop[2];
	uint32_t max_frame;
	pthread_t th;
	struct conn cn[8];
	_Atomic unsigned connections; /* accepted so far */
};

static void put_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t w = send(fd, b, len, MSG_NOSIGNAL);

		if (w <= 0)
			return; /* the client went away */
		b += w;
		len -= (size_t)w;
	}
}

/* Answer every complete request in @k's buffer. */
static void serve_input(struct server *sv, struct conn *k)
{
	struct dta_buf out = { 0 };
	size_t off = 0;

	for (;;) {
		uint8_t *p = k->in + off;
		size_t have = k->len - off;

		if (k->binary) {
			long flen = dta_frame_length(p, have);

			if (flen <= 0 || (size_t)flen > have)
				break;
			if (dta_exec_frame(k->sess, p, (size_t)flen, &out) == 1)
				dta_frame_answer_error(&out, p, EOPNOTSUPP,
						       "not here");
			off += (size_t)flen;
		} else {
			uint8_t *nl = memchr(p, '\n', have);
			size_t ll;

			if (!nl)
				break;
			ll = (size_t)(nl - p);
			off += ll + 1;
			if (ll == 6 && !memcmp(p, "binary", 6)) {
				char a[64];
				int n = snprintf(a, sizeof(a),
						 "{\"binary\":1,\"max_frame\":%u}\n",
						 sv->max_frame);

				dta_exec_text_flush(k->sess, &out);
				dta_buf_put(&out, a, (size_t)n);
				k->binary = true;
				continue;
			}
			if (dta_exec_text(k->sess, (char *)p, ll, &out) == 1)
				dta_buf_put(&out, "{\"error\":\"not here\"}\n",
					    21);
		}
	}
	if (!k->binary)
		dta_exec_text_flush(k->sess, &out);
	memmove(k->in, k->in + off, k->len - off);
	k->len -= off;
	put_all(k->fd, out.p, out.len);
	dta_buf_free(&out);
}

static void *serve(void *arg)
{
	struct server *sv = arg;

	for (;;) {
		struct pollfd p[10];
		unsigned n = 0, map[8];

		p[n++] = (struct pollfd){ .fd = sv->stop[0], .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = sv->lfd, .events = POLLIN };
		for (unsigned i = 0; i < 8; i++)
			if (sv->cn[i].fd >= 0) {
				map[n - 2] = i;
				p[n++] = (struct pollfd){ .fd = sv->cn[i].fd,
							  .events = POLLIN };
			}
		if (poll(p, n, -1) < 0)
			continue;
		if (p[0].revents)
			break;
		if (p[1].revents & POLLIN) {
			int fd = accept(sv->lfd, NULL, NULL);

			for (unsigned i = 0; fd >= 0 && i < 8; i++)
				if (sv->cn[i].fd < 0) {
					struct conn *k = &sv->cn[i];

					memset(k, 0, sizeof(*k));
					k->fd = fd;
					dta_exec_session_create(sv->x, &k->sess);
					sv->connections++;
					fd = -1;
				}
			if (fd >= 0)
				close(fd);
		}
		for (unsigned j = 2; j < n; j++) {
			struct conn *k = &sv->cn[map[j - 2]];
			ssize_t r;

			if (!p[j].revents)
				continue;
			if (k->cap - k->len < 65536) {
				k->cap = k->cap ? 2 * k->cap : 1 << 20;
				k->in = realloc(k->in, k->cap);
			}
			r = recv(k->fd, k->in + k->len, k->cap - k->len, 0);
			if (r <= 0) {
				close(k->fd);
				k->fd = -1;
				dta_exec_session_destroy(k->sess);
				free(k->in);
				continue;
			}
			k->len += (size_t)r;
			serve_input(sv, k);
		}
	}
	for (unsigned i = 0; i < 8; i++)
		if (sv->cn[i].fd >= 0) {
			close(sv->cn[i].fd);
			dta_exec_session_destroy(sv->cn[i].sess);
			free(sv->cn[i].in);
		}
	return NULL;
}

static void server_start(struct server *sv, struct set *s, const char *path,
			 uint32_t max_frame)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(sv, 0, sizeof(*sv));
	for (unsigned i = 0; i < 8; i++)
		sv->cn[i].fd = -1;
	sv->max_frame = max_frame;
	assert_int_equal(dta_exec_create(&sv->x), 0);
	for (size_t i = 0; i < dta_config_count(s->cfg); i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(s->cfg, i);
		struct dta_region *r = region_of(s, cs->name);
		struct dta_exec_structure xs = {
			.name = cs->name, .layout = dta_region_layout(r),
			.area = dta_region_data(r), .values = cs->values,
			.nvalues = cs->nvalues, .list_base = cs->list_base,
			.schema = cs->schema,
		};

		assert_int_equal(dta_exec_add(sv->x, &xs), (int)i);
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	sv->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sv->lfd >= 0);
	assert_int_equal(bind(sv->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(sv->lfd, 16), 0);
	assert_int_equal(pipe(sv->stop), 0);
	assert_int_equal(pthread_create(&sv->th, NULL, serve, sv), 0);
}

static void server_stop(struct server *sv, const char *path)
{
	assert_int_equal(write(sv->stop[1], "x", 1), 1);
	pthread_join(sv->th, NULL);
	close(sv->stop[0]);
	close(sv->stop[1]);
	close(sv->lfd);
	dta_exec_destroy(sv->x);
	unlink(path);
}

static void test_socket(void **state)
{
	static const uint32_t frames[] = { DTA_FRAME_MAX, 2048 };
	struct set s;
	struct server sv;
	struct dta_client *c;
	struct dta_client_cursor *a, *b;
	char path[PATH_MAX], t[PATH_MAX + 8], *ans;
	const struct dta_client_structure *st;
	uint8_t buf[64 * 16];
	uint64_t lost;

	(void)state;
	set_build(&s, "tcsock", false, false);
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	/* Binary frames (one frame max, then a max_frame so small that
	 * every batch is split into many frames), then text lines; the
	 * socket as unix:PATH and as a bare path. */
	for (unsigned mode = 0; mode < 3; mode++) {
		server_start(&sv, &s, path,
			     mode < 2 ? frames[mode] : DTA_FRAME_MAX);
		snprintf(t, sizeof(t), "%s%s", mode == 1 ? "" : "unix:", path);
		c = open_ok(t, mode == 2 ? DTA_CLIENT_TEXT : 0);
		check_listing(c, &s, true);
		st = dta_client_structure(c, (size_t)dta_client_find(c, "paths"));
		assert_int_equal(st->layout.g.pc.hops, 4);
		check_all(c, &s, true);
		/* A second cursor on a list this connection followed gets a
		 * connection of its own, and so starts over. */
		assert_int_equal(dta_client_ap_open(c, "events", 1,
						    DTA_EXEC_AP_OLDEST, &a), 0);
		assert_int_equal(dta_client_ap_read(a, buf, 64, &lost), 2);
		assert_int_equal(dta_client_ap_open(c, "events", 1,
						    DTA_EXEC_AP_OLDEST, &b), 0);
		assert_int_equal(dta_client_ap_read(b, buf, 64, &lost), 2);
		assert_int_equal(dta_client_ap_read(a, buf, 64, &lost), 0);
		dta_client_ap_close(a);
		dta_client_ap_close(b);
		/* From now: nothing of what the list holds. */
		assert_int_equal(dta_client_ap_open(c, "events", 1,
						    DTA_EXEC_AP_NOW, &a), 0);
		assert_int_equal(dta_client_ap_read(a, buf, 64, &lost), 0);
		assert_int_equal(lost, 0);
		dta_client_ap_close(a);
		/* Requests the server does not answer itself. */
		assert_int_equal(dta_client_request(c, 0, "info", &ans), 0);
		assert_non_null(strstr(ans, "\"name\":\"counts\""));
		free(ans);
		assert_int_equal(dta_client_request(c, 0, "stats", &ans), 0);
		assert_non_null(strstr(ans, "not here"));
		free(ans);
		dta_client_close(c);
		server_stop(&sv, path);
	}
	/* config: the server as the configuration's collector; [collector
	 * east] holds nothing, so it is connected only when asked. */
	server_start(&sv, &s, path, DTA_FRAME_MAX);
	{
		char conf[PATH_MAX], text[sizeof(one_conf) + 2 * PATH_MAX];
		unsigned conns;

		snprintf(conf, sizeof(conf), "%s/lazy.conf", dir);
		snprintf(text, sizeof(text), "[collector]\nname = tcl\n"
			 "socket = %s\n[collector east]\nsocket = %s\n\n%s",
			 path, path, strstr(one_conf, "[structure flows]"));
		write_file(conf, text);
		snprintf(t, sizeof(t), "config:%s", conf);
		c = open_ok(t, 0);
		assert_int_equal(sv.connections, 1);
		check_all(c, &s, true);
		/* (check_all's second cursors on a list had connections of
		 * their own) */
		conns = sv.connections;
		assert_int_equal(dta_client_request(c, 1, "info", &ans), 0);
		assert_non_null(strstr(ans, "\"name\":\"counts\""));
		free(ans);
		assert_int_equal(sv.connections, conns + 1);
		assert_int_equal(dta_client_request(c, 2, "info", &ans),
				 -ENOENT);
		dta_client_close(c);
		unlink(conf);
	}
	server_stop(&sv, path);

	/* The server gone: the next batch says which collector. */
	server_start(&sv, &s, path, DTA_FRAME_MAX);
	snprintf(t, sizeof(t), "unix:%s", path);
	c = open_ok(t, 0);
	server_stop(&sv, path);
	{
		uint8_t key[KLEN] = { 0 };
		uint64_t cnt;
		int rc = dta_client_ki_get(c, "counts", key, KLEN, 1, 0, &cnt);

		assert_true(rc == -ECONNRESET || rc == -EPIPE);
		assert_non_null(strstr(dta_client_error(c), path));
		rc = dta_client_ki_get(c, "counts", key, KLEN, 1, 0, &cnt);
		assert_int_equal(rc, -EPIPE);
	}
	dta_client_close(c);
	set_free(&s);
}

/* ---- the configuration's names (lib/src/runtime.c) ---- */

static void test_names(void **state)
{
	struct dta_config *cfg;
	char out[PATH_MAX], err[256], longname[300];
	static const char text[] =
		"[collector]\nsocket = /tmp/x/c0.sock\nshm_mode = 0640\n"
		"[collector east]\n[collector west]\nname = w1\n"
		"[structure ev]\nprimitive = ap\nlists = 3\nfirst_list = 7\n"
		"collector = east, west\n";
	unsigned mode;

	(void)state;
	assert_int_equal(dta_config_parse(text, strlen(text), &cfg, err,
					  sizeof(err)), 0);
	assert_string_equal(dta_config_collector_id(cfg, 0), "dta");
	assert_string_equal(dta_config_collector_id(cfg, 1), "east");
	assert_string_equal(dta_config_collector_id(cfg, 2), "w1");
	assert_null(dta_config_collector_id(cfg, 3));
	assert_int_equal(dta_config_collector_socket(cfg, 0, out, sizeof(out)),
			 0);
	assert_string_equal(out, "/tmp/x/c0.sock");
	setenv("RUNTIME_DIRECTORY", "/run/a:/run/b", 1);
	assert_int_equal(dta_config_collector_socket(cfg, 2, out, sizeof(out)),
			 0);
	assert_string_equal(out, "/run/a/dta-w1.sock");
	assert_int_equal(dta_config_collector_socket(cfg, 2, out, 10),
			 -ENAMETOOLONG);
	assert_int_equal(dta_config_collector_socket(cfg, 5, out, sizeof(out)),
			 -ENOENT);
	unsetenv("RUNTIME_DIRECTORY");
	assert_int_equal(dta_config_shm_name("east", "ev", out, sizeof(out)), 0);
	assert_string_equal(out, "/dta-east.ev");
	memset(longname, 'a', 250);
	longname[250] = 0;
	assert_int_equal(dta_config_shm_name(longname, "ev", out, sizeof(out)),
			 -ENAMETOOLONG);
	assert_int_equal(dta_config_shm_name("east", "ev", out, 8),
			 -ENAMETOOLONG);
	assert_int_equal(dta_config_collector_mode(cfg, 0, "shm_mode", 0600,
						   &mode), 0);
	assert_int_equal(mode, 0640);
	assert_int_equal(dta_config_collector_mode(cfg, 1, "shm_mode", 0600,
						   &mode), 0);
	assert_int_equal(mode, 0600);
	assert_int_equal(dta_config_share_list_base(dta_config_find(cfg, "ev"),
						    0), 7);
	assert_int_equal(dta_config_share_list_base(dta_config_find(cfg, "ev"),
						    1), 10);
	dta_config_destroy(cfg);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/dta-test-client.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_snapshot_and_file),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_malformed_targets),
		cmocka_unit_test(test_map_and_lost),
		cmocka_unit_test(test_sharded),
		cmocka_unit_test(test_socket),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
