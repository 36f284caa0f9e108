/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The query executor (dta/exec.h): typed batched queries against the
 * single-key library functions, the text protocol (answers recorded from
 * the collector's executor before it moved into libdta, answers computed
 * from the single-key queries, every error, bytes that are not UTF-8,
 * NULs), binary frames (every op round-trips, malformed headers, error
 * answers, limits), dta_buf.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "dta/dta.h"
#include "frame_internal.h"
#include "internal.h"

/* The structures every test queries, filled by the writer functions. */
enum { S_FLOWS, S_PATHS, S_NOPATHS, S_COUNTS, S_LOG, S_BIG, S_COUNT };

#define KEYS 300   /* keys looked up: more than one 256-key chunk */
#define WRITTEN 150 /* of which written */
#define PC_VALUES 50

static struct {
	struct dta_layout l[S_COUNT];
	uint8_t *area[S_COUNT];
	uint32_t values[PC_VALUES];
	struct dta_pc_codebook *cb;
	struct dta_exec *x;
} T;

static const char *const names[S_COUNT] = { "flows", "paths", "nopaths",
					    "counts", "log", "big" };

/* Key @i: 8 bytes, big-endian @i + 1000. */
static void key_of(unsigned i, uint8_t k[8])
{
	dta__put_be64(k, (uint64_t)i + 1000);
}

static void apply(int s, const struct dta_memop *ops, int n)
{
	assert_true(n > 0);
	assert_int_equal(dta_memops_apply(T.area[s], T.l[s].data_size, ops,
					  (size_t)n), n);
}

static void fill(void)
{
	static uint8_t buf[1 << 16];
	struct dta_memop ops[2 * DTA_MAX_REDUNDANCY];
	uint8_t k[8], data[DTA_DATA_MAX];
	uint32_t path[DTA_MAX_HOPS];

	for (unsigned i = 0; i < WRITTEN; i++) {
		key_of(i, k);
		memset(data, (int)(i * 7 + 1), sizeof(data));
		data[0] = (uint8_t)i;
		apply(S_FLOWS, ops, dta_kw_ops(&T.l[S_FLOWS], k, 8, data, 4,
					       1 + i % 3, buf, sizeof(buf), ops,
					       DTA_MAX_REDUNDANCY));
		apply(S_BIG, ops, dta_kw_ops(&T.l[S_BIG], k, 8, data, 1024, 1,
					     buf, sizeof(buf), ops,
					     DTA_MAX_REDUNDANCY));
		for (unsigned h = 0; h < 4; h++)
			path[h] = T.values[(i + 3 * h) % PC_VALUES];
		apply(S_PATHS, ops, dta_pc_ops(&T.l[S_PATHS], k, 8, path,
					       1 + i % 4, buf, sizeof(buf), ops,
					       DTA_MAX_REDUNDANCY));
		for (unsigned b = 0; b < 2; b++)
			apply(S_COUNTS, ops,
			      dta_ki_ops(&T.l[S_COUNTS], k, 8, i + 1 + 10 * b, b,
					 ops, DTA_MAX_REDUNDANCY));
	}
	/* Append: list 0 wraps its 4-batch ring, list 1 has one batch. */
	for (uint32_t list = 0; list < 2; list++) {
		struct dta_ap_cursor cur = { 0 };
		unsigned batches = list ? 1 : 6;

		for (unsigned b = 0; b < batches; b++) {
			uint8_t e[4 * 8];

			for (unsigned j = 0; j < sizeof(e); j++)
				e[j] = (uint8_t)(list * 100 + b * 8 + j);
			apply(S_LOG, ops, dta_ap_ops(&T.l[S_LOG], list, &cur, e, 4,
						     buf, sizeof(buf), ops, 2));
		}
	}
}

static int setup(void **state)
{
	(void)state;
	if (dta_layout_kw(&T.l[S_FLOWS], 256, 4, 4, 3, DTA_HASH_CRC32C, 1) ||
	    dta_layout_pc(&T.l[S_PATHS], 1024, 4, 2, 2, DTA_HASH_CRC32C, 2) ||
	    dta_layout_pc(&T.l[S_NOPATHS], 16, 4, 2, 2, DTA_HASH_CRC32C, 3) ||
	    dta_layout_ki(&T.l[S_COUNTS], 64, 3, 2, DTA_HASH_CRC32, 4) ||
	    dta_layout_ap(&T.l[S_LOG], 70, 4, 4, 8, 0) ||
	    dta_layout_kw(&T.l[S_BIG], 512, 1024, 4, 1, DTA_HASH_XXH3, 5))
		return -1;
	for (unsigned v = 0; v < PC_VALUES; v++)
		T.values[v] = 100 + 3 * v;
	if (dta_pc_codebook_create(&T.l[S_PATHS], T.values, PC_VALUES, &T.cb) ||
	    dta_exec_create(&T.x))
		return -1;
	for (int s = 0; s < S_COUNT; s++) {
		struct dta_exec_structure es = {
			.name = names[s], .layout = &T.l[s],
			.values = s == S_PATHS ? T.values : NULL,
			.nvalues = s == S_PATHS ? PC_VALUES : 0,
			.list_base = s == S_LOG ? 7 : 0,
		};

		T.area[s] = calloc(1, T.l[s].data_size);
		if (!T.area[s])
			return -1;
		es.area = T.area[s];
		if (dta_exec_add(T.x, &es) != s)
			return -1;
	}
	fill();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dta_exec_destroy(T.x);
	dta_pc_codebook_destroy(T.cb);
	for (int s = 0; s < S_COUNT; s++)
		free(T.area[s]);
	return 0;
}

/* ---- structures ---- */

static void test_add_and_find(void **state)
{
	struct dta_exec *x;
	struct dta_exec_structure es = { .name = "a", .layout = &T.l[S_FLOWS],
					 .area = T.area[S_FLOWS] };
	struct dta_layout bad = T.l[S_FLOWS];
	struct dta_schema sch = { .nfields = 1, .size = 3, .time = -1 };
	char name[DTA_CONFIG_NAME_MAX + 1];
	const struct dta_exec_structure *got;

	(void)state;
	assert_int_equal(dta_exec_count(T.x), S_COUNT);
	assert_int_equal(dta_exec_find(T.x, "counts"), S_COUNTS);
	assert_int_equal(dta_exec_find(T.x, "nosuch"), -ENOENT);
	got = dta_exec_structure(T.x, S_LOG);
	assert_non_null(got);
	assert_string_equal(got->name, "log");
	assert_int_equal(got->list_base, 7);
	assert_ptr_equal(got->area, T.area[S_LOG]);
	assert_null(got->schema);
	assert_int_equal(dta_exec_structure(T.x, S_PATHS)->nvalues, PC_VALUES);
	assert_null(dta_exec_structure(T.x, S_COUNT));
	assert_null(dta_exec_structure(NULL, 0));

	assert_int_equal(dta_exec_create(&x), 0);
	assert_int_equal(dta_exec_add(x, &es), 0);
	assert_int_equal(dta_exec_add(x, &es), -EEXIST);
	es.name = "";
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	es.name = "two words";
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	memset(name, 'n', DTA_CONFIG_NAME_MAX);
	name[DTA_CONFIG_NAME_MAX] = 0; /* DTA_CONFIG_NAME_MAX bytes: too long */
	es.name = name;
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	name[DTA_CONFIG_NAME_MAX - 1] = 0; /* the longest */
	assert_int_equal(dta_exec_add(x, &es), 1);
	es.name = "b";
	es.area = NULL;
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	es.area = T.area[S_FLOWS];
	bad.primitive = 9;
	es.layout = &bad;
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	bad = T.l[S_FLOWS];
	bad.g.kw.slots = 0;
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	es.layout = &T.l[S_FLOWS];
	/* A schema must describe the data's bytes (4, not 3). */
	es.schema = &sch;
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	es.schema = NULL;
	for (int i = 2; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		es.name = name;
		assert_int_equal(dta_exec_add(x, &es), i);
	}
	es.name = "onemore";
	assert_int_equal(dta_exec_add(x, &es), -ENOSPC);
	dta_exec_destroy(x);
	dta_exec_destroy(NULL);
	assert_int_equal(dta_exec_create(&x), 0);
	/* A value count without values. */
	es.name = "p";
	es.layout = &T.l[S_PATHS];
	es.values = NULL;
	es.nvalues = 2;
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	assert_int_equal(dta_exec_count(x), 0);
	dta_exec_destroy(x);
}

/* ---- typed queries ---- */

static uint8_t keys[KEYS * 8];

static void make_keys(void)
{
	for (unsigned i = 0; i < KEYS; i++)
		key_of(i, keys + 8 * i);
}

static void test_kw_equals_single(void **state)
{
	static const struct dta_kw_query_opts opts[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 2 }, { 3, 1 }, { 8, 0 },
	};
	static struct dta_kw_result res[KEYS];
	static uint8_t data[KEYS * 1024];
	unsigned found = 0, conflict = 0;

	(void)state;
	make_keys();
	for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
		assert_int_equal(dta_exec_kw(T.x, S_FLOWS, keys, 8, KEYS, &opts[o],
					     res, data), 0);
		for (unsigned i = 0; i < KEYS; i++) {
			struct dta_kw_result r;
			uint8_t d[4] = { 0 };

			assert_int_equal(dta_kw_query(&T.l[S_FLOWS], T.area[S_FLOWS],
						      keys + 8 * i, 8, &opts[o], d,
						      sizeof(d), &r), 0);
			assert_int_equal(res[i].status, r.status);
			assert_int_equal(res[i].votes, r.votes);
			assert_int_equal(res[i].candidates, r.candidates);
			if (r.status != DTA_Q_FOUND)
				memset(d, 0, sizeof(d));
			assert_memory_equal(data + 4 * i, d, 4);
			found += r.status == DTA_Q_FOUND;
			conflict += r.status == DTA_Q_CONFLICT;
		}
	}
	/* The table is small enough for every answer kind. */
	assert_true(found > 0);
	assert_true(found < 5 * KEYS);
	/* NULL options are the defaults. */
	assert_int_equal(dta_exec_kw(T.x, S_BIG, keys, 8, KEYS, NULL, res, data), 0);
	for (unsigned i = 0; i < KEYS; i++) {
		struct dta_kw_result r;
		uint8_t d[1024] = { 0 };

		assert_int_equal(dta_kw_query(&T.l[S_BIG], T.area[S_BIG],
					      keys + 8 * i, 8, NULL, d, sizeof(d),
					      &r), 0);
		assert_int_equal(res[i].status, r.status);
		if (r.status == DTA_Q_FOUND)
			assert_memory_equal(data + 1024 * i, d, 1024);
	}
	(void)conflict;
}

static void test_pc_ki_equal_single(void **state)
{
	static struct dta_pc_result res[KEYS];
	static uint64_t cnt[KEYS];
	unsigned found = 0;

	(void)state;
	make_keys();
	assert_int_equal(dta_exec_pc(T.x, S_PATHS, keys, 8, KEYS, res), 0);
	for (unsigned i = 0; i < KEYS; i++) {
		struct dta_pc_result r;

		assert_int_equal(dta_pc_query(&T.l[S_PATHS], T.area[S_PATHS], T.cb,
					      keys + 8 * i, 8, 0, &r), 0);
		assert_int_equal(res[i].status, r.status);
		assert_int_equal(res[i].valid_copies, r.valid_copies);
		if (r.status == DTA_Q_FOUND) {
			found++;
			assert_int_equal(res[i].path_len, r.path_len);
			assert_memory_equal(res[i].values, r.values,
					    r.path_len * sizeof(uint32_t));
		}
	}
	assert_true(found > 0);
	for (unsigned bank = 0; bank < 2; bank++) {
		assert_int_equal(dta_exec_ki(T.x, S_COUNTS, keys, 8, KEYS, bank,
					     cnt), 0);
		for (unsigned i = 0; i < KEYS; i++) {
			uint64_t c;

			assert_int_equal(dta_ki_query(&T.l[S_COUNTS],
						      T.area[S_COUNTS],
						      keys + 8 * i, 8, bank, &c), 0);
			assert_int_equal(cnt[i], c);
			/* Written keys count at least what was added. */
			if (i < WRITTEN)
				assert_true(c >= i + 1 + 10 * bank);
		}
	}
}

static void test_typed_errors(void **state)
{
	struct dta_kw_result kr[2];
	struct dta_pc_result pr[2];
	struct dta_kw_query_opts bad = { 9, 0 };
	uint64_t c[2];
	uint8_t d[8];

	(void)state;
	make_keys();
	assert_int_equal(dta_exec_kw(T.x, S_COUNT, keys, 8, 1, NULL, kr, d), -ENOENT);
	assert_int_equal(dta_exec_kw(T.x, S_PATHS, keys, 8, 1, NULL, kr, d),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_exec_pc(T.x, S_FLOWS, keys, 8, 1, pr), -DTA_E_PRIMITIVE);
	assert_int_equal(dta_exec_ki(T.x, S_LOG, keys, 8, 1, 0, c), -DTA_E_PRIMITIVE);
	assert_int_equal(dta_exec_pc(T.x, S_NOPATHS, keys, 8, 1, pr),
			 -DTA_E_NOVALUES);
	assert_int_equal(dta_exec_kw(T.x, S_FLOWS, keys, 0, 1, NULL, kr, d), -EINVAL);
	assert_int_equal(dta_exec_kw(T.x, S_FLOWS, keys, DTA_KEY_MAX + 1, 1, NULL,
				     kr, d), -EINVAL);
	assert_int_equal(dta_exec_kw(T.x, S_FLOWS, NULL, 8, 1, NULL, kr, d), -EINVAL);
	assert_int_equal(dta_exec_kw(T.x, S_FLOWS, keys, 8, 1, NULL, kr, NULL),
			 -EINVAL);
	assert_int_equal(dta_exec_kw(T.x, S_FLOWS, keys, 8, DTA_EXEC_BATCH_MAX + 1,
				     NULL, kr, d), -EINVAL);
	assert_int_equal(dta_exec_kw(NULL, 0, keys, 8, 1, NULL, kr, d), -EINVAL);
	/* Errors the library's queries report come through. */
	assert_int_equal(dta_exec_kw(T.x, S_FLOWS, keys, 8, 2, &bad, kr, d), -EINVAL);
	assert_int_equal(dta_exec_ki(T.x, S_COUNTS, keys, 8, 2, 2, c),
			 -DTA_E_MISMATCH);
	/* Zero keys: nothing to do, NULL arrays fine. */
	assert_int_equal(dta_exec_kw(T.x, S_FLOWS, NULL, 8, 0, NULL, NULL, NULL), 0);
	assert_int_equal(dta_exec_pc(T.x, S_PATHS, NULL, 8, 0, NULL), 0);
	assert_int_equal(dta_exec_ki(T.x, S_COUNTS, NULL, 8, 0, 0, NULL), 0);
}

/* Several threads query one executor at once (codebooks were built by
 * dta_exec_add(), so queries only read): every thread gets the answers
 * one thread gets. */
struct worker {
	struct dta_kw_result kw[KEYS];
	struct dta_pc_result pc[KEYS];
	uint64_t ki[KEYS];
	uint8_t data[KEYS * 4];
	int err;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	for (int r = 0; r < 20 && !w->err; r++)
		w->err = dta_exec_kw(T.x, S_FLOWS, keys, 8, KEYS, NULL, w->kw,
				     w->data) ||
			 dta_exec_pc(T.x, S_PATHS, keys, 8, KEYS, w->pc) ||
			 dta_exec_ki(T.x, S_COUNTS, keys, 8, KEYS, 1, w->ki);
	return NULL;
}

static void test_threads(void **state)
{
	static struct worker w[5];
	pthread_t t[4];

	(void)state;
	make_keys();
	work(&w[4]);
	assert_int_equal(w[4].err, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].err, 0);
		assert_memory_equal(w[i].kw, w[4].kw, sizeof(w[i].kw));
		assert_memory_equal(w[i].data, w[4].data, sizeof(w[i].data));
		assert_memory_equal(w[i].ki, w[4].ki, sizeof(w[i].ki));
		for (unsigned k = 0; k < KEYS; k++) {
			assert_int_equal(w[i].pc[k].status, w[4].pc[k].status);
			assert_int_equal(w[i].pc[k].path_len, w[4].pc[k].path_len);
			assert_memory_equal(w[i].pc[k].values, w[4].pc[k].values,
					    w[4].pc[k].path_len * 4);
		}
	}
}

/* ---- Append ---- */

static void test_ap_read(void **state)
{
	struct dta_exec_session *s;
	struct dta_ap_reader *rd;
	uint8_t got[64 * 8], want[64 * 8];
	uint64_t lost, wlost = 0, pos;
	int n, w;

	(void)state;
	assert_int_equal(dta_exec_session_create(T.x, &s), 0);
	assert_int_equal(dta_ap_reader_create(&T.l[S_LOG], T.area[S_LOG], 0, 0,
					      &rd), 0);
	/* Batch by batch, as a reader of our own reads them. */
	for (int round = 0; round < 6; round++) {
		lost = 99;
		n = dta_exec_ap_read(s, S_LOG, 0, DTA_EXEC_AP_OLDEST, got, 4,
				     &lost, &pos);
		wlost = 0;
		w = dta_ap_read(rd, want, 4, &wlost);
		assert_int_equal(n, w);
		assert_int_equal(lost, wlost);
		assert_int_equal(pos, dta_ap_reader_position(rd));
		assert_memory_equal(got, want, (size_t)(n > 0 ? n : 0) * 8);
		if (round == 0) {
			/* 6 batches into a ring of 4: 2 lost, then the third. */
			/* 6 batches in a ring of 4: the oldest kept is the
			 * third (entries 8..11, bytes from 2 * 8). Starting
			 * there loses nothing. */
			assert_int_equal(n, 4);
			assert_int_equal(lost, 0);
			assert_int_equal(pos, 12);
			assert_int_equal(got[0], 2 * 8);
		}
	}
	assert_int_equal(n, 0);
	dta_ap_reader_destroy(rd);
	/* A consumer from now sees nothing old; one from the oldest the
	 * single batch of list 1. */
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 2, DTA_EXEC_AP_NOW, got, 64,
					  &lost, NULL), 0);
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 1, DTA_EXEC_AP_OLDEST, got,
					  64, &lost, &pos), 4);
	assert_int_equal(got[0], 100);
	assert_int_equal(pos, 4);
	/* Errors. */
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 70, 0, got, 64, NULL, NULL),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_exec_ap_read(s, S_FLOWS, 0, 0, got, 64, NULL, NULL),
			 -DTA_E_PRIMITIVE);
	assert_int_equal(dta_exec_ap_read(s, S_COUNT, 0, 0, got, 64, NULL, NULL),
			 -ENOENT);
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 0, 2, got, 64, NULL, NULL),
			 -EINVAL);
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 0, 0, got, 0, NULL, NULL),
			 -EINVAL);
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 0, 0, NULL, 4, NULL, NULL),
			 -EINVAL);
	/* Fewer than a batch: the library's -ENOSPC. */
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 1, 0, got, 2, NULL, NULL),
			 -ENOSPC);
	/* DTA_EXEC_READERS_MAX consumers per session (3 so far). */
	for (uint32_t list = 3; list < DTA_EXEC_READERS_MAX - 1; list++)
		assert_int_equal(dta_exec_ap_read(s, S_LOG, list, 0, got, 64,
						  NULL, NULL), 0);
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 63, 0, got, 64, NULL, NULL),
			 0); /* the 64th */
	assert_int_equal(dta_exec_ap_read(s, S_LOG, 65, 0, got, 64, NULL, NULL),
			 -ENOSPC);
	dta_exec_session_destroy(s);
	dta_exec_session_destroy(NULL);
}

/* ---- text ---- */

/* The answers to @req, one request per line, flushed at the end. */
static char *text_all(struct dta_exec_session *s, const char *req,
		      int *rc_sum)
{
	struct dta_buf b = { 0 };
	char *copy = strdup(req), *save = NULL, *line;
	char *out;

	assert_non_null(copy);
	*rc_sum = 0;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int rc = dta_exec_text(s, line, strlen(line), &b);

		assert_true(rc == 0 || rc == 1);
		*rc_sum += rc;
		if (rc)
			dta_buf_put(&b, "-\n", 2);
	}
	dta_exec_text_flush(s, &b);
	dta_buf_put(&b, "", 1);
	assert_false(b.oom);
	out = strdup(b.p);
	dta_buf_free(&b);
	free(copy);
	return out;
}

/* Every line of @answers parses as a JSON object (jansson checks UTF-8
 * too) or is "-". */
static void assert_json_lines(const char *answers)
{
	const char *p = answers;

	while (*p) {
		const char *nl = strchr(p, '\n');
		json_error_t e;
		json_t *j;

		assert_non_null(nl);
		if (!(nl - p == 1 && *p == '-')) {
			j = json_loadb(p, (size_t)(nl - p), 0, &e);
			if (!j)
				fail_msg("not JSON (%s): %.*s", e.text,
					 (int)(nl - p), p);
			assert_true(json_is_object(j));
			json_decref(j);
		}
		p = nl + 1;
	}
}

/*
 * Answers recorded from common/tools.c's tool_exec_out() (the collector's
 * executor before it moved into libdta) on the structures of setup(), one
 * request at a time with one session.
 */
static const char golden_req[] =
#include "test_exec_golden_req.inc"
	;
static const char golden_ans[] =
#include "test_exec_golden_ans.inc"
	;

static void test_text_golden(void **state)
{
	struct dta_exec_session *s;
	char *got;
	int rc;

	(void)state;
	assert_int_equal(dta_exec_session_create(T.x, &s), 0);
	got = text_all(s, golden_req, &rc);
	assert_string_equal(got, golden_ans);
	assert_json_lines(got);
	free(got);
	dta_exec_session_destroy(s);
}

static void hex8(const uint8_t *k, char *out)
{
	for (int i = 0; i < 8; i++)
		sprintf(out + 2 * i, "%02x", k[i]);
}

static const char *status_name(int st)
{
	return st == DTA_Q_FOUND ? "found"
	       : st == DTA_Q_CONFLICT ? "conflict" : "not-found";
}

/* The protocol's answers written here from the single-key queries (a
 * second implementation of the formatting, docs/collector-protocol.md),
 * for runs of kw, pc and ki requests interleaved with info and requests
 * that are not the executor's: batching must not change a byte. */
static void test_text_equals_single(void **state)
{
	struct dta_exec_session *s;
	struct dta_buf req = { 0 }, want = { 0 };
	char line[256], hex[17], ans[512];
	char *got;
	int rc, ones = 0;

	(void)state;
	for (unsigned i = 0; i < KEYS; i++) {
		uint8_t k[8];
		int kind = (i / 70) % 3, n;

		key_of(i, k);
		hex8(k, hex);
		if (kind == 0) {
			struct dta_kw_result r;
			struct dta_kw_query_opts o = { i % 4, i % 3 == 0 ? 2 : 0 };
			uint8_t d[4];

			/* Options change every key here and there. */
			if (i % 5 == 0)
				snprintf(line, sizeof(line), "kw flows %s %u %u",
					 hex, o.redundancy, o.threshold);
			else {
				o.redundancy = o.threshold = 0;
				snprintf(line, sizeof(line), "kw flows 0x%s", hex);
			}
			assert_int_equal(dta_kw_query(&T.l[S_FLOWS],
						      T.area[S_FLOWS], k, 8, &o,
						      d, 4, &r), 0);
			n = snprintf(ans, sizeof(ans), "{\"status\":\"%s\"",
				     status_name(r.status));
			if (r.status == DTA_Q_FOUND)
				n += snprintf(ans + n, sizeof(ans) - (size_t)n,
					      ",\"data\":\"%02x%02x%02x%02x\"",
					      d[0], d[1], d[2], d[3]);
			snprintf(ans + n, sizeof(ans) - (size_t)n,
				 ",\"votes\":%u,\"candidates\":%u}\n", r.votes,
				 r.candidates);
		} else if (kind == 1) {
			struct dta_pc_result r;

			snprintf(line, sizeof(line), "pc paths %s", hex);
			assert_int_equal(dta_pc_query(&T.l[S_PATHS],
						      T.area[S_PATHS], T.cb, k, 8,
						      0, &r), 0);
			n = snprintf(ans, sizeof(ans), "{\"status\":\"%s\"",
				     status_name(r.status));
			if (r.status == DTA_Q_FOUND) {
				n += snprintf(ans + n, sizeof(ans) - (size_t)n,
					      ",\"path\":[");
				for (unsigned h = 0; h < r.path_len; h++)
					n += snprintf(ans + n, sizeof(ans) - (size_t)n,
						      "%s%u", h ? "," : "",
						      r.values[h]);
				n += snprintf(ans + n, sizeof(ans) - (size_t)n, "]");
			}
			snprintf(ans + n, sizeof(ans) - (size_t)n,
				 ",\"valid_copies\":%u}\n", r.valid_copies);
		} else {
			uint64_t c;
			unsigned bank = i % 7 == 0;

			snprintf(line, sizeof(line), "ki counts %s %u", hex, bank);
			assert_int_equal(dta_ki_query(&T.l[S_COUNTS],
						      T.area[S_COUNTS], k, 8,
						      bank, &c), 0);
			snprintf(ans, sizeof(ans), "{\"count\":%" PRIu64 "}\n", c);
		}
		dta_buf_put(&req, line, strlen(line));
		dta_buf_put(&req, "\n", 1);
		dta_buf_put(&want, ans, strlen(ans));
		if (i % 97 == 0) {
			/* Not the executor's: the caller answers, in order. */
			dta_buf_put(&req, "stats\n", 6);
			dta_buf_put(&want, "-\n", 2);
			ones++;
		}
		if (i % 101 == 50) {
			/* An error in the middle of a run. */
			dta_buf_put(&req, "kw nosuch 00\n", 13);
			snprintf(ans, sizeof(ans),
				 "{\"error\":\"no structure named nosuch\"}\n");
			dta_buf_put(&want, ans, strlen(ans));
		}
	}
	dta_buf_put(&req, "", 1);
	dta_buf_put(&want, "", 1);
	assert_int_equal(dta_exec_session_create(T.x, &s), 0);
	got = text_all(s, req.p, &rc);
	assert_int_equal(rc, ones);
	assert_string_equal(got, want.p);
	assert_json_lines(got);
	free(got);
	dta_buf_free(&req);
	dta_buf_free(&want);
	dta_exec_session_destroy(s);
}

/* One request of @len bytes (any bytes), its answer (newline stripped). */
static char *text_one(const char *line, size_t len, int *rc,
		      uint64_t *errors)
{
	struct dta_exec_session *s;
	struct dta_buf b = { 0 };
	char *out;

	assert_int_equal(dta_exec_session_create(T.x, &s), 0);
	*rc = dta_exec_text(s, line, len, &b);
	dta_exec_text_flush(s, &b);
	if (errors)
		*errors = b.errors;
	if (b.len) {
		assert_int_equal(b.p[b.len - 1], '\n');
		b.p[b.len - 1] = 0;
	} else {
		dta_buf_put(&b, "", 1);
	}
	out = strdup(b.p);
	dta_buf_free(&b);
	dta_exec_session_destroy(s);
	return out;
}

/* The error message of one JSON answer, checked with jansson. */
static void assert_error(const char *line, size_t len, const char *msg)
{
	uint64_t errors;
	json_error_t e;
	json_t *j;
	int rc;
	char *a = text_one(line, len, &rc, &errors);

	assert_int_equal(rc, 0);
	assert_int_equal(errors, 1);
	j = json_loads(a, 0, &e);
	if (!j)
		fail_msg("not JSON (%s): %s", e.text, a);
	assert_true(json_is_string(json_object_get(j, "error")));
	assert_string_equal(json_string_value(json_object_get(j, "error")), msg);
	json_decref(j);
	free(a);
}

static void test_text_errors(void **state)
{
	char big[DTA_EXEC_REQUEST_MAX + 2];
	char *a;
	int rc;

	(void)state;
	assert_error("kw", 2, "usage: kw NAME KEYHEX ...");
	assert_error("pc paths", 8, "usage: pc NAME KEYHEX ...");
	assert_error("kw nosuch 00", 12, "no structure named nosuch");
	assert_error("kw counts 00", 12, "counts is a key-increment structure");
	assert_error("ki flows 00", 11, "flows is a key-write structure");
	assert_error("pc flows 00", 11, "flows is a key-write structure");
	assert_error("kw flows 0x", 11, "KEYHEX must be 1..64 bytes of hex");
	assert_error("kw flows abc", 12, "KEYHEX must be 1..64 bytes of hex");
	assert_error("kw flows zz", 11, "KEYHEX must be 1..64 bytes of hex");
	memset(big, 'a', sizeof(big));
	memcpy(big, "kw flows ", 9);
	big[9 + 130] = 0;
	assert_error(big, strlen(big), "KEYHEX must be 1..64 bytes of hex");
	assert_error("pc nopaths 00", 13,
		     "structure nopaths has no 'values' set in the "
		     "configuration: paths cannot be decoded");
	assert_error("kw flows 00 9", 13, "query: Invalid argument");
	assert_error("ki counts 00 2", 14,
		     "query: report does not match the structure's geometry");
	assert_error("ap log", 6, "usage: ap NAME LIST MAX [oldest|now|at POS]");
	assert_error("ap log 0 4 later", 16,
		     "usage: ap NAME LIST MAX [oldest|now|at POS]");
	assert_error("ap flows 0 4", 12, "flows is a key-write structure");
	assert_error("ap log 70 4", 11, "list must be 0..69 (index within log)");
	assert_error("ap log x 4", 10, "list must be 0..69 (index within log)");
	assert_error("ap log 0 0", 10, "MAX must be 1..65536");
	assert_error("ap log 0 65537", 14, "MAX must be 1..65536");
	assert_error("ap log 0 2", 10, "read: No space left on device");
	/* Too long: one byte over the limit, whatever it holds. */
	memset(big, 'x', sizeof(big));
	assert_error(big, DTA_EXEC_REQUEST_MAX + 1,
		     "request too long (the limit is 4095 bytes)");
	/* The longest request is still read. */
	memcpy(big, "kw nosuch", 9);
	memset(big + 9, ' ', DTA_EXEC_REQUEST_MAX - 9);
	assert_error(big, DTA_EXEC_REQUEST_MAX, "usage: kw NAME KEYHEX ...");
	/* A NUL anywhere, even after a valid request. */
	assert_error("info\0", 5, "request contains a NUL byte");
	assert_error("kw flows 00\0 junk", 17, "request contains a NUL byte");
	assert_error("\0", 1, "request contains a NUL byte");
	/* Not the executor's: nothing written, 1 returned. */
	a = text_one("stats", 5, &rc, NULL);
	assert_int_equal(rc, 1);
	assert_string_equal(a, "");
	free(a);
	a = text_one("   ", 3, &rc, NULL);
	assert_int_equal(rc, 1);
	free(a);
	a = text_one("", 0, &rc, NULL);
	assert_int_equal(rc, 1);
	free(a);
	a = text_one("kwx flows 00", 12, &rc, NULL);
	assert_int_equal(rc, 1);
	free(a);
}

/* Bytes that are not UTF-8 come back as \u00XX; valid UTF-8 as it was;
 * control characters escaped. jansson rejects invalid UTF-8, so parsing
 * the answer checks it. */
static void test_text_utf8(void **state)
{
#define C(req, msg, json) { req, sizeof(req) - 1, msg, json }
	static const struct {
		const char *req;
		size_t len;
		const char *msg;  /* the decoded error message */
		const char *json; /* a piece of the raw answer */
	} c[] = {
		C("kw \xff\xfe 00", "no structure named \xc3\xbf\xc3\xbe",
		  "named \\u00ff\\u00fe\""),
		C("kw caf\xc3\xa9 00", "no structure named caf\xc3\xa9",
		  "named caf\xc3\xa9\""),
		/* Overlong '/', a surrogate, above U+10FFFF, truncated. */
		C("kw \xc0\xaf 00", "no structure named \xc3\x80\xc2\xaf",
		  "\\u00c0\\u00af"),
		C("kw \xed\xa0\x80 00",
		  "no structure named \xc3\xad\xc2\xa0\xc2\x80",
		  "\\u00ed\\u00a0\\u0080"),
		C("kw \xf4\x90\x80\x80 00",
		  "no structure named \xc3\xb4\xc2\x90\xc2\x80\xc2\x80",
		  "\\u00f4\\u0090"),
		C("kw a\xe2\x82 00", "no structure named a\xc3\xa2\xc2\x82",
		  "a\\u00e2\\u0082\""),
		C("kw \xf0\x9f\x98\x80 00", "no structure named \xf0\x9f\x98\x80",
		  "\xf0\x9f\x98\x80"),
		C("kw a\"b\\c\x01\x1f 00", "no structure named a\"b\\c\x01\x1f",
		  "a\\\"b\\\\c\\u0001\\u001f"),
	};
#undef C

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc;
		char *a = text_one(c[i].req, c[i].len, &rc, NULL);

		if (!strstr(a, c[i].json))
			fail_msg("case %zu: %s", i, a);
		free(a);
		assert_error(c[i].req, c[i].len, c[i].msg);
	}
}

static void test_text_info(void **state)
{
	json_error_t e;
	json_t *j, *st;
	int rc;
	char *a = text_one("info", 4, &rc, NULL);

	(void)state;
	assert_int_equal(rc, 0);
	j = json_loads(a, 0, &e);
	assert_non_null(j);
	st = json_object_get(j, "structures");
	assert_int_equal(json_array_size(st), S_COUNT);
	for (size_t i = 0; i < S_COUNT; i++) {
		json_t *o = json_array_get(st, i);

		assert_string_equal(json_string_value(json_object_get(o, "name")),
				    names[i]);
		assert_string_equal(
			json_string_value(json_object_get(o, "primitive")),
			dta_primitive_name(T.l[i].primitive));
		assert_int_equal(json_integer_value(json_object_get(o, "bytes")),
				 T.l[i].data_size);
		/* No schema declared, no member. */
		assert_null(json_object_get(o, "schema"));
	}
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(st, S_PATHS), "values")),
			 PC_VALUES);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(st, S_LOG), "first_list")),
			 7);
	json_decref(j);
	free(a);
}

/* A declared schema: in dta_exec_structure() and as `info`'s "schema"
 * member, the canonical text (dta_schema_format()), which parses back to
 * the same fields. Schemas must describe the data or entry bytes. */
static void test_text_schema(void **state)
{
	struct dta_exec *x;
	struct dta_exec_session *s;
	struct dta_schema kw, ap, back;
	struct dta_exec_structure es = { .name = "kw", .layout = &T.l[S_FLOWS],
					 .area = T.area[S_FLOWS],
					 .schema = &kw };
	struct dta_buf b = { 0 };
	char text[DTA_SCHEMA_TEXT_MAX];
	json_error_t e;
	json_t *j, *st;

	(void)state;
	assert_int_equal(dta_schema_parse("a:u16 b:bytes[2]", &kw, NULL, 0), 0);
	assert_int_equal(dta_schema_parse("x:u32le, t:u32:time_us", &ap, NULL, 0),
			 0);
	assert_int_equal(dta_exec_create(&x), 0);
	assert_int_equal(dta_exec_add(x, &es), 0);
	es.name = "ap";
	es.layout = &T.l[S_LOG];
	es.area = T.area[S_LOG];
	es.schema = &ap;
	assert_int_equal(dta_exec_add(x, &es), 1);
	es.name = "none";
	es.schema = NULL;
	assert_int_equal(dta_exec_add(x, &es), 2);
	/* Sizes that do not match, a schema on a counter structure. */
	es.name = "bad";
	es.schema = &kw;
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	es.layout = &T.l[S_COUNTS];
	es.area = T.area[S_COUNTS];
	assert_int_equal(dta_exec_add(x, &es), -EINVAL);
	assert_non_null(dta_exec_structure(x, 0)->schema);
	assert_int_equal(dta_exec_structure(x, 0)->schema->nfields, 2);
	assert_null(dta_exec_structure(x, 2)->schema);

	assert_int_equal(dta_exec_session_create(x, &s), 0);
	assert_int_equal(dta_exec_text(s, "info", 4, &b), 0);
	j = json_loadb(b.p, b.len, 0, &e);
	assert_non_null(j);
	st = json_object_get(j, "structures");
	for (size_t i = 0; i < 2; i++) {
		const char *got = json_string_value(
			json_object_get(json_array_get(st, i), "schema"));

		assert_non_null(got);
		assert_true(dta_schema_format(i ? &ap : &kw, text,
					      sizeof(text)) > 0);
		assert_string_equal(got, text);
		assert_int_equal(dta_schema_parse(got, &back, NULL, 0), 0);
		assert_int_equal(back.nfields, i ? ap.nfields : kw.nfields);
		assert_int_equal(back.size, i ? 8 : 4);
	}
	/* The member comes last, after the geometry. */
	assert_non_null(strstr(b.p, "\"entry\":8,\"schema\":\""));
	assert_null(json_object_get(json_array_get(st, 2), "schema"));
	json_decref(j);
	dta_buf_free(&b);
	dta_exec_session_destroy(s);
	dta_exec_destroy(x);
}

/* ---- frames ---- */

/* Request frame: @op on structure @st, @n keys @keys of @klen bytes. */
static void put_req(struct dta_buf *b, unsigned op, unsigned st, uint32_t id,
		    uint32_t n, unsigned klen, uint32_t arg, const void *payload,
		    size_t plen)
{
	struct dta__frame_request r = {
		.op = op, .structure = st, .id = id, .n = n, .klen = klen,
		.arg = arg, .payload = payload, .payload_len = plen,
	};

	b->len = 0;
	assert_int_equal(dta__frame_request_put(b, &r), 0);
}

/* dta_exec_frame() on @req, its answer parsed. */
static void frame_run(struct dta_exec_session *s, const struct dta_buf *req,
		      struct dta_buf *out, struct dta__frame_answer *a)
{
	out->len = 0;
	assert_int_equal(dta_exec_frame(s, req->p, req->len, out), 0);
	assert_false(out->oom);
	assert_int_equal(dta_frame_length(out->p, out->len), (long)out->len);
	assert_int_equal(dta__frame_answer_parse(out->p, out->len, a), 0);
	assert_int_equal(a->op, (uint8_t)req->p[4]);
	assert_int_equal(a->id, dta__be32((const uint8_t *)req->p + 8));
}

static void test_frame_ops(void **state)
{
	struct dta_exec_session *s;
	struct dta_buf req = { 0 }, out = { 0 }, t = { 0 };
	struct dta__frame_answer a;
	uint8_t got[64 * 8], want[64 * 8];
	struct dta_ap_reader *rd;
	uint64_t lost = 0;
	int n;

	(void)state;
	make_keys();
	assert_int_equal(dta_exec_session_create(T.x, &s), 0);
	/* KW, redundancy and threshold from the parameters. */
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 11, KEYS, 8, 0, keys, sizeof(keys));
	req.p[17] = 2; /* redundancy */
	req.p[18] = 1; /* threshold */
	frame_run(s, &req, &out, &a);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.n, KEYS);
	assert_int_equal(a.size, 4);
	assert_int_equal(a.structure, S_FLOWS);
	for (unsigned i = 0; i < KEYS; i++) {
		struct dta_kw_query_opts o = { 2, 1 };
		struct dta_kw_result r;
		uint8_t d[4] = { 0 };

		assert_int_equal(dta_kw_query(&T.l[S_FLOWS], T.area[S_FLOWS],
					      keys + 8 * i, 8, &o, d, 4, &r), 0);
		if (r.status != DTA_Q_FOUND)
			memset(d, 0, 4);
		assert_int_equal(a.results[4 * i], r.status);
		assert_int_equal(a.results[4 * i + 1], r.votes);
		assert_int_equal(a.results[4 * i + 2], r.candidates);
		assert_int_equal(a.results[4 * i + 3], 0);
		assert_memory_equal(a.data + 4 * i, d, 4);
	}
	/* PC: paths padded to the hops with zeros. */
	put_req(&req, DTA_FRAME_PC, S_PATHS, 12, KEYS, 8, 0, keys, sizeof(keys));
	frame_run(s, &req, &out, &a);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.size, 4);
	for (unsigned i = 0; i < KEYS; i++) {
		struct dta_pc_result r;
		unsigned len;

		assert_int_equal(dta_pc_query(&T.l[S_PATHS], T.area[S_PATHS], T.cb,
					      keys + 8 * i, 8, 0, &r), 0);
		len = r.status == DTA_Q_FOUND ? r.path_len : 0;
		assert_int_equal(a.results[4 * i], r.status);
		assert_int_equal(a.results[4 * i + 1], r.valid_copies);
		assert_int_equal(a.results[4 * i + 2], len);
		for (unsigned h = 0; h < 4; h++)
			assert_int_equal(dta__be32(a.data + 16 * i + 4 * h),
					 h < len ? r.values[h] : 0);
	}
	/* KI, bank 1 from @arg. */
	put_req(&req, DTA_FRAME_KI, S_COUNTS, 13, KEYS, 8, 1, keys, sizeof(keys));
	frame_run(s, &req, &out, &a);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.size, 8);
	for (unsigned i = 0; i < KEYS; i++) {
		uint64_t c;

		assert_int_equal(dta_ki_query(&T.l[S_COUNTS], T.area[S_COUNTS],
					      keys + 8 * i, 8, 1, &c), 0);
		assert_int_equal(dta__be64(a.data + 8 * i), c);
	}
	/* AP: list 0 from the oldest, against a reader of our own. */
	assert_int_equal(dta_ap_reader_create(&T.l[S_LOG], T.area[S_LOG], 0, 0,
					      &rd), 0);
	for (int round = 0; round < 3; round++) {
		put_req(&req, DTA_FRAME_AP, S_LOG, 14, 8, 0, 0, NULL, 0);
		frame_run(s, &req, &out, &a);
		lost = 0;
		n = dta_ap_read(rd, want, 8, &lost);
		assert_int_equal(a.status, 0);
		assert_int_equal(a.n, n);
		assert_int_equal(a.size, 8);
		assert_int_equal(dta__be64(a.results), lost);
		assert_int_equal(dta__be64(a.results + 8),
				 dta_ap_reader_position(rd));
		assert_int_equal(a.data_len, (size_t)n * 8);
		memcpy(got, a.data, a.data_len);
		assert_memory_equal(got, want, a.data_len);
	}
	assert_int_equal(a.n, 0);
	dta_ap_reader_destroy(rd);
	/* TEXT: the text answer, without its newline. */
	put_req(&req, DTA_FRAME_TEXT, 0, 15, 0, 0, 0, "info", 4);
	frame_run(s, &req, &out, &a);
	assert_int_equal(a.status, 0);
	{
		struct dta_exec_session *s2;

		assert_int_equal(dta_exec_session_create(T.x, &s2), 0);
		assert_int_equal(dta_exec_text(s2, "info", 4, &t), 0);
		dta_exec_session_destroy(s2);
	}
	assert_int_equal(a.data_len + 1, t.len);
	assert_memory_equal(a.data, t.p, a.data_len);
	/* A text point query is answered at once, not queued. */
	put_req(&req, DTA_FRAME_TEXT, 0, 16, 0, 0, 0, "ki counts 00000000000003e8",
		26);
	frame_run(s, &req, &out, &a);
	assert_int_equal(a.status, 0);
	assert_true(a.data_len > 10);
	assert_memory_equal(a.data, "{\"count\":", 9);
	/* Text errors stay JSON answers with status 0. */
	put_req(&req, DTA_FRAME_TEXT, 0, 17, 0, 0, 0, "kw nosuch 00", 12);
	frame_run(s, &req, &out, &a);
	assert_int_equal(a.status, 0);
	assert_int_equal(out.errors, 1);
	/* Not the executor's: 1, nothing appended. */
	put_req(&req, DTA_FRAME_TEXT, 0, 18, 0, 0, 0, "stats", 5);
	out.len = 0;
	assert_int_equal(dta_exec_frame(s, req.p, req.len, &out), 1);
	assert_int_equal(out.len, 0);
	dta_buf_free(&t);
	dta_buf_free(&req);
	dta_buf_free(&out);
	dta_exec_session_destroy(s);
}

static void test_frame_malformed(void **state)
{
	struct dta_exec_session *s;
	struct dta_buf req = { 0 }, out = { 0 };
	uint8_t h[DTA_FRAME_REQ_HDR];

	(void)state;
	assert_int_equal(dta_exec_session_create(T.x, &s), 0);
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 1, 1, 8, 0, keys, 8);
	/* Shorter than the header, length fields that disagree, too big. */
	assert_int_equal(dta_exec_frame(s, req.p, 20, &out), -DTA_E_MALFORMED);
	assert_int_equal(dta_exec_frame(s, req.p, req.len - 1, &out),
			 -DTA_E_MALFORMED);
	assert_int_equal(dta_exec_frame(s, NULL, 0, &out), -DTA_E_MALFORMED);
	/* Unknown op. */
	req.p[4] = 0;
	assert_int_equal(dta_exec_frame(s, req.p, req.len, &out), -DTA_E_MALFORMED);
	req.p[4] = 6;
	assert_int_equal(dta_exec_frame(s, req.p, req.len, &out), -DTA_E_MALFORMED);
	assert_int_equal(out.len, 0);
	/* dta_frame_length(). */
	assert_int_equal(dta_frame_length(req.p, 3), 0);
	assert_int_equal(dta_frame_length(req.p, 4), (long)req.len);
	memset(h, 0, sizeof(h));
	dta__put_be32(h, 23);
	assert_int_equal(dta_frame_length(h, 4), -DTA_E_MALFORMED);
	dta__put_be32(h, DTA_FRAME_MAX + 1);
	assert_int_equal(dta_frame_length(h, 4), -DTA_E_MALFORMED);
	dta__put_be32(h, DTA_FRAME_MAX);
	assert_int_equal(dta_frame_length(h, 4), DTA_FRAME_MAX);
	dta_buf_free(&req);
	dta_buf_free(&out);
	dta_exec_session_destroy(s);
}

/* One request @req: its error answer's status and a non-empty message. */
static void assert_frame_error(struct dta_exec_session *s,
			       const struct dta_buf *req, uint32_t status)
{
	struct dta_buf out = { 0 };
	struct dta__frame_answer a;

	frame_run(s, req, &out, &a);
	assert_int_equal(a.status, status);
	assert_int_equal(a.n, 0);
	assert_true(a.msg_len > 0);
	assert_null(memchr(a.msg, 0, a.msg_len));
	assert_int_equal(out.errors, 1);
	dta_buf_free(&out);
}

static void test_frame_errors(void **state)
{
	static uint8_t k1[DTA_EXEC_BATCH_MAX];
	struct dta_exec_session *s;
	struct dta_buf req = { 0 };

	(void)state;
	make_keys();
	assert_int_equal(dta_exec_session_create(T.x, &s), 0);
	put_req(&req, DTA_FRAME_KW, S_COUNT, 1, 1, 8, 0, keys, 8);
	assert_frame_error(s, &req, ENOENT);
	put_req(&req, DTA_FRAME_KW, S_PATHS, 1, 1, 8, 0, keys, 8);
	assert_frame_error(s, &req, DTA_E_PRIMITIVE);
	put_req(&req, DTA_FRAME_AP, S_FLOWS, 1, 1, 0, 0, NULL, 0);
	assert_frame_error(s, &req, DTA_E_PRIMITIVE);
	put_req(&req, DTA_FRAME_PC, S_NOPATHS, 1, 1, 8, 0, keys, 8);
	assert_frame_error(s, &req, DTA_E_NOVALUES);
	put_req(&req, DTA_FRAME_KI, S_COUNTS, 1, 1, 8, 2, keys, 8);
	assert_frame_error(s, &req, DTA_E_MISMATCH);
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 1, 1, 8, 0, keys, 8);
	req.p[17] = 9; /* redundancy above DTA_MAX_REDUNDANCY */
	assert_frame_error(s, &req, EINVAL);
	/* Key lengths, n, payload. */
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 1, 1, 0, 0, NULL, 0);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 1, 1, 65, 0, k1, 65);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 1, 0, 8, 0, NULL, 0);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_KI, S_COUNTS, 1, DTA_EXEC_BATCH_MAX + 1, 1, 0, k1,
		sizeof(k1));
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 1, 2, 8, 0, keys, 15);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_AP, S_LOG, 1, 0, 0, 0, NULL, 0);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_AP, S_LOG, 1, DTA_EXEC_BATCH_MAX + 1, 0, 0, NULL, 0);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_AP, S_LOG, 1, 4, 0, 70, NULL, 0);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_AP, S_LOG, 1, 4, 0, 0, keys, 8);
	assert_frame_error(s, &req, EINVAL);
	put_req(&req, DTA_FRAME_AP, S_LOG, 1, 2, 0, 1, NULL, 0);
	assert_frame_error(s, &req, ENOSPC); /* fewer than a batch */
	put_req(&req, DTA_FRAME_TEXT, 0, 1, 1, 0, 0, "info", 4);
	assert_frame_error(s, &req, EINVAL); /* TEXT with n 1 */
	put_req(&req, DTA_FRAME_KW, S_FLOWS, 1, 1, 8, 0, keys, 8);
	req.p[5] = 1; /* flags */
	assert_frame_error(s, &req, EINVAL);
	/* The most keys allowed, but 1 KiB of data each: 64 MiB of answer. */
	put_req(&req, DTA_FRAME_KW, S_BIG, 1, DTA_EXEC_BATCH_MAX, 1, 0, k1,
		sizeof(k1));
	assert_frame_error(s, &req, EMSGSIZE);
	/* The most keys, an answer that fits: answered. */
	{
		struct dta_buf out = { 0 };
		struct dta__frame_answer a;

		put_req(&req, DTA_FRAME_KI, S_COUNTS, 1, DTA_EXEC_BATCH_MAX, 1, 0,
			k1, sizeof(k1));
		frame_run(s, &req, &out, &a);
		assert_int_equal(a.status, 0);
		assert_int_equal(a.n, DTA_EXEC_BATCH_MAX);
		dta_buf_free(&out);
	}
	dta_buf_free(&req);
	dta_exec_session_destroy(s);
}

/* The frame helpers the client uses: answers that lie about their sizes
 * are rejected; the server's own answers. */
static void test_frame_answers(void **state)
{
	struct dta_buf req = { 0 }, out = { 0 };
	struct dta__frame_answer a;
	uint8_t *p;

	(void)state;
	put_req(&req, DTA_FRAME_TEXT, 0, 77, 0, 0, 0, "stats", 5);
	dta_frame_answer_text(&out, req.p, "{\"a\":1}", 7);
	assert_int_equal(dta__frame_answer_parse(out.p, out.len, &a), 0);
	assert_int_equal(a.op, DTA_FRAME_TEXT);
	assert_int_equal(a.id, 77);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.data_len, 7);
	assert_memory_equal(a.data, "{\"a\":1}", 7);
	out.len = 0;
	dta_frame_answer_error(&out, req.p, -EPERM, "not allowed");
	assert_int_equal(dta__frame_answer_parse(out.p, out.len, &a), 0);
	assert_int_equal(a.status, EPERM);
	assert_int_equal(a.msg_len, 11);
	assert_memory_equal(a.msg, "not allowed", 11);
	assert_int_equal(out.errors, 1);
	out.len = 0;
	dta_frame_answer_error(&out, req.p, DTA_E_NOVALUES, NULL);
	assert_int_equal(dta__frame_answer_parse(out.p, out.len, &a), 0);
	assert_int_equal(a.status, DTA_E_NOVALUES);
	assert_int_equal(a.msg_len, strlen(dta_strerror(DTA_E_NOVALUES)));

	/* A KI answer of 2 counts: sizes must add up. */
	put_req(&req, DTA_FRAME_KI, S_COUNTS, 5, 2, 8, 0, keys, 16);
	out.len = 0;
	{
		struct dta_exec_session *s;

		assert_int_equal(dta_exec_session_create(T.x, &s), 0);
		assert_int_equal(dta_exec_frame(s, req.p, req.len, &out), 0);
		dta_exec_session_destroy(s);
	}
	assert_int_equal(out.len, DTA_FRAME_ANS_HDR + 16);
	assert_int_equal(dta__frame_answer_parse(out.p, out.len, &a), 0);
	p = (uint8_t *)out.p;
	dta__put_be32(p + 12, 3); /* n 3: 24 bytes wanted */
	assert_int_equal(dta__frame_answer_parse(p, out.len, &a), -DTA_E_MALFORMED);
	dta__put_be32(p + 12, 2);
	dta__put_be32(p + 20, 4); /* size 4 for KI */
	assert_int_equal(dta__frame_answer_parse(p, out.len, &a), -DTA_E_MALFORMED);
	dta__put_be32(p + 20, 8);
	p[5] = 1; /* flags */
	assert_int_equal(dta__frame_answer_parse(p, out.len, &a), -DTA_E_MALFORMED);
	p[5] = 0;
	assert_int_equal(dta__frame_answer_parse(p, out.len - 1, &a),
			 -DTA_E_MALFORMED);
	dta__put_be32(p, (uint32_t)out.len + 1);
	assert_int_equal(dta__frame_answer_parse(p, out.len, &a), -DTA_E_MALFORMED);
	dta__put_be32(p, (uint32_t)out.len);
	assert_int_equal(dta__frame_answer_parse(p, 16, &a), -DTA_E_MALFORMED);
	assert_int_equal(dta__frame_answer_parse(p, out.len, &a), 0);
	/* Huge n and size do not overflow the length check. */
	dta__put_be32(p + 4 + 8, UINT32_MAX);
	p[4] = DTA_FRAME_KW;
	dta__put_be32(p + 20, UINT32_MAX);
	assert_int_equal(dta__frame_answer_parse(p, out.len, &a), -DTA_E_MALFORMED);

	/* Requests: fields out of range are refused when built. */
	{
		struct dta__frame_request r = { .op = 9 };

		assert_int_equal(dta__frame_request_put(&out, &r), -EINVAL);
		r.op = DTA_FRAME_KW;
		r.structure = 65536;
		assert_int_equal(dta__frame_request_put(&out, &r), -EINVAL);
		r.structure = 0;
		r.klen = 256;
		assert_int_equal(dta__frame_request_put(&out, &r), -EINVAL);
		r.klen = 8;
		r.payload_len = 8;
		assert_int_equal(dta__frame_request_put(&out, &r), -EINVAL);
		r.payload = keys;
		r.payload_len = DTA_FRAME_MAX;
		assert_int_equal(dta__frame_request_put(&out, &r), -EMSGSIZE);
	}
	dta_buf_free(&req);
	dta_buf_free(&out);
}

/* ---- dta_buf ---- */

static void test_buf(void **state)
{
	struct dta_buf b = { 0 };
	size_t grows = 0, cap = 0;

	(void)state;
	for (unsigned i = 0; i < 100000; i++) {
		uint8_t c = (uint8_t)i;

		dta_buf_put(&b, &c, 1);
		if (b.cap != cap) {
			grows++;
			cap = b.cap;
		}
	}
	assert_int_equal(b.len, 100000);
	for (unsigned i = 0; i < 100000; i++)
		assert_int_equal((uint8_t)b.p[i], (uint8_t)i);
	/* Doubling: a handful of reallocations, not one per append. */
	assert_true(grows <= 6);
	assert_true(b.cap < 2 * 100000 + 4096);
	dta_buf_put(&b, NULL, 0);
	assert_int_equal(b.len, 100000);
	/* Once out of memory, appends do nothing. */
	b.oom = true;
	dta_buf_put(&b, "x", 1);
	assert_int_equal(b.len, 100000);
	dta_buf_free(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	assert_false(b.oom);
	dta_buf_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_find),
		cmocka_unit_test(test_kw_equals_single),
		cmocka_unit_test(test_pc_ki_equal_single),
		cmocka_unit_test(test_typed_errors),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_ap_read),
		cmocka_unit_test(test_text_golden),
		cmocka_unit_test(test_text_equals_single),
		cmocka_unit_test(test_text_errors),
		cmocka_unit_test(test_text_utf8),
		cmocka_unit_test(test_text_info),
		cmocka_unit_test(test_text_schema),
		cmocka_unit_test(test_frame_ops),
		cmocka_unit_test(test_frame_malformed),
		cmocka_unit_test(test_frame_errors),
		cmocka_unit_test(test_frame_answers),
		cmocka_unit_test(test_buf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
