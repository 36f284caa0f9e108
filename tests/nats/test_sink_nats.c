/* SPDX-License-Identifier: BSD-3-Clause */
/* dta-export's NATS JetStream sink without a server: message bodies,
 * subjects and Nats-Msg-Ids compared with hand-written text, every size
 * too small refused, the configurations open() refuses, and a cluster
 * that cannot be reached answered -EAGAIN (nothing accepted, a retry
 * counted). tests/e2e/nats_cluster.sh and nats_export.sh run it against
 * real servers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "dta/dta.h"
#include "sink.h"
#include "sink_nats.h"

static const uint8_t entry[8] = { 0x00, 0x01, 0xff, 0xfe, 0x80, 0, 0, 1 };

static void append_row(struct export_row *r, struct dta_schema *s)
{
	memset(r, 0, sizeof(*r));
	r->kind = EXPORT_APPEND;
	r->collector = "c1";
	r->structure = "ev";
	r->time_ns = 1700000000123456789ull; /* 2023-11-14T22:13:20Z + */
	r->list = 2;
	r->position = 7;
	r->entry = entry;
	r->entry_len = sizeof(entry);
	r->schema = s;
}

static void test_body_append(void **state)
{
	static const char want[] =
		"{\"kind\":\"append\",\"collector\":\"c1\",\"structure\":\"ev\","
		"\"time\":\"2023-11-14T22:13:20.123456789Z\","
		"\"time_ns\":1700000000123456789,\"list\":2,\"position\":7,"
		"\"raw\":\"0001fffe80000001\","
		"\"fields\":{\"a\":1,\"b\":-2,\"c\":2147483649}}";
	struct dta_schema s;
	struct export_row r;
	char out[512];

	(void)state;
	assert_int_equal(dta_schema_parse("a:u16, b:i16, c:u32", &s, NULL, 0), 0);
	append_row(&r, &s);
	assert_int_equal(export_nats_body(&r, out, sizeof(out)),
			 (int)strlen(want));
	assert_string_equal(out, want);
	/* every buffer too small by even one byte is refused */
	for (size_t cap = 0; cap <= strlen(want); cap++)
		assert_int_equal(export_nats_body(&r, out, cap), -ENOSPC);
	assert_int_equal(export_nats_body(&r, out, strlen(want) + 1),
			 (int)strlen(want));
}

static void test_body_raw_only(void **state)
{
	static const char want[] =
		"{\"kind\":\"append\",\"collector\":\"c1\",\"structure\":\"ev\","
		"\"time\":\"2023-11-14T22:13:20.123456789Z\","
		"\"time_ns\":1700000000123456789,\"list\":2,\"position\":7,"
		"\"raw\":\"0001fffe80000001\"}";
	struct export_row r;
	char out[512];

	(void)state;
	append_row(&r, NULL);
	assert_int_equal(export_nats_body(&r, out, sizeof(out)),
			 (int)strlen(want));
	assert_string_equal(out, want);
}

static void test_body_epoch(void **state)
{
	static const char nokey[] =
		"{\"kind\":\"epoch\",\"collector\":\"c1\",\"structure\":\"cnt\","
		"\"time\":\"1970-01-01T00:00:02.000000000Z\",\"time_ns\":2000000000,"
		"\"epoch\":1,\"epoch_start_ns\":1000000000,"
		"\"epoch_len_ns\":1000000000,\"row\":2,\"column\":3,\"count\":9,"
		"\"key\":null}";
	static const uint8_t key[3] = { 0x0a, 0x00, 0xff };
	struct export_row r = {
		.kind = EXPORT_KI_EPOCH, .collector = "c1", .structure = "cnt",
		.time_ns = 2000000000ull, .epoch = 1,
		.epoch_start_ns = 1000000000ull, .epoch_len_ns = 1000000000ull,
		.row = 2, .column = 3, .count = 9,
	};
	char out[512], id[64];

	(void)state;
	assert_int_equal(export_nats_body(&r, out, sizeof(out)),
			 (int)strlen(nokey));
	assert_string_equal(out, nokey);
	r.key = key;
	r.key_len = sizeof(key);
	assert_true(export_nats_body(&r, out, sizeof(out)) > 0);
	assert_non_null(strstr(out, ",\"key\":\"0a00ff\"}"));
	assert_int_equal(export_nats_msg_id(&r, id, sizeof(id)), 14);
	assert_string_equal(id, "c1/cnt/e/1/2/3");
	assert_int_equal(export_nats_msg_id(&r, id, 14), -ENOSPC);
}

static void test_body_refused(void **state)
{
	struct dta_schema s;
	struct export_row r;
	char out[512];

	(void)state;
	/* a schema longer than the entry */
	assert_int_equal(dta_schema_parse("a:u64, b:u32", &s, NULL, 0), 0);
	append_row(&r, &s);
	assert_int_equal(export_nats_body(&r, out, sizeof(out)), -EINVAL);
	append_row(&r, NULL);
	r.kind = 0;
	assert_int_equal(export_nats_body(&r, out, sizeof(out)), -EINVAL);
	assert_int_equal(export_nats_msg_id(&r, out, sizeof(out)), -EINVAL);
	append_row(&r, NULL);
	r.collector = NULL;
	assert_int_equal(export_nats_body(&r, out, sizeof(out)), -EINVAL);
}

/* Names are [A-Za-z0-9_-] in a valid configuration; whatever they hold,
 * the body stays JSON and the subject three tokens without wildcards. */
static void test_odd_names(void **state)
{
	struct export_row r;
	char out[512], subj[64];
	json_t *o;

	(void)state;
	append_row(&r, NULL);
	r.collector = "q\"x.y";
	r.structure = "a*b>\x01";
	assert_true(export_nats_body(&r, out, sizeof(out)) > 0);
	o = json_loads(out, 0, NULL);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "collector")),
			    "q\"x.y");
	assert_string_equal(json_string_value(json_object_get(o, "structure")),
			    "a*b>\x01");
	json_decref(o);
	assert_int_equal(export_nats_subject("dta.site1", &r, subj, sizeof(subj)),
			 21);
	assert_string_equal(subj, "dta.site1.q\"x_y.a_b__");
	assert_int_equal(export_nats_subject("dta.site1", &r, subj, 21), -ENOSPC);
	append_row(&r, NULL);
	assert_int_equal(export_nats_msg_id(&r, out, sizeof(out)), 11);
	assert_string_equal(out, "c1/ev/a/2/7");
	assert_int_equal(export_nats_subject("dta", &r, subj, sizeof(subj)), 9);
	assert_string_equal(subj, "dta.c1.ev");
}

static void test_prefix(void **state)
{
	static const char *const good[] = { "dta", "dta.site-1", "a.b.c" };
	static const char *const bad[] = { "", ".dta", "dta.", "a..b", "a.*",
					   "a.>", "a b", "a\tb", "\x7f" };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_true(export_nats_prefix_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_false(export_nats_prefix_ok(bad[i]));
	assert_false(export_nats_prefix_ok(NULL));
}

/* open() of @text's [export]; its error text into @err. */
static int open_conf(const char *text, struct export_sink **s, char *err,
		     size_t errlen)
{
	struct dta_config *cfg = NULL;
	int rc = dta_config_parse(text, strlen(text), &cfg, err, errlen);

	assert_int_equal(rc, 0);
	rc = export_sink_nats.open(cfg, s, err, errlen);
	dta_config_destroy(cfg);
	return rc;
}

static void test_open_refused(void **state)
{
	static const struct {
		const char *conf;
		int rc;
		const char *says;
	} cases[] = {
		{ "[export]\nclickhouse_url = http://127.0.0.1:1/\n", -ENOENT, "" },
		{ "[export]\nnats_url = nats://127.0.0.1:1\nnats_subject = a..b\n",
		  -EINVAL, "nats_subject 'a..b'" },
		{ "[export]\nnats_url = nats://127.0.0.1:1\nnats_subject = dta.>\n",
		  -EINVAL, "not a subject prefix" },
		{ "[export]\nnats_url = nats://127.0.0.1:1\ntls_cert = /x.pem\n",
		  -EINVAL, "tls_cert and tls_key go together" },
		{ "[export]\nnats_url = ,\n", -EINVAL, "no server" },
		{ "[export]\nnats_url = nats://127.0.0.1:1\n"
		  "nats_creds = /nonexistent/dta.creds\n", -EINVAL, "nats_creds" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct export_sink *s = (void *)1;
		char err[256] = "";

		assert_int_equal(open_conf(cases[i].conf, &s, err, sizeof(err)),
				 cases[i].rc);
		assert_null(s);
		if (!strstr(err, cases[i].says))
			fail_msg("case %zu: '%s' does not say '%s'", i, err,
				 cases[i].says);
	}
}

static void test_config_replicas(void **state)
{
	struct dta_config *cfg = NULL;
	char err[256];

	(void)state;
	assert_int_equal(dta_config_parse("[export]\nnats_replicas = 0\n", 26,
					  &cfg, err, sizeof(err)),
			 -DTA_E_MALFORMED);
	assert_int_equal(dta_config_parse("[export]\nnats_replicas = 6\n", 26,
					  &cfg, err, sizeof(err)),
			 -DTA_E_MALFORMED);
	assert_int_equal(dta_config_parse("[export]\nnats_replicas = 3\n", 26,
					  &cfg, err, sizeof(err)), 0);
	assert_string_equal(dta_config_get(cfg, "export", "nats_replicas"), "3");
	dta_config_destroy(cfg);
}

/* Nothing listens on port 1: open() succeeds (the client keeps trying),
 * write() answers -EAGAIN and counts a retry, never a row. */
static void test_unreachable(void **state)
{
	struct export_sink *s = NULL;
	struct export_row r;
	struct export_batch b = { &r, 1 };
	uint64_t batches = 9, rows = 9, retries = 9;
	char err[256] = "";

	(void)state;
	assert_int_equal(open_conf("[export]\nnats_url = nats://127.0.0.1:1\n",
				   &s, err, sizeof(err)), 0);
	assert_non_null(s);
	append_row(&r, NULL);
	assert_int_equal(export_sink_nats.write(s, &b, err, sizeof(err)),
			 -EAGAIN);
	assert_non_null(strstr(err, "not connected"));
	assert_int_equal(export_sink_nats.write(s, &b, err, sizeof(err)),
			 -EAGAIN);
	export_sink_nats.stats(s, &batches, &rows, &retries);
	assert_int_equal(batches, 0);
	assert_int_equal(rows, 0);
	assert_int_equal(retries, 2);
	assert_int_equal(export_sink_nats.write(s, NULL, err, sizeof(err)),
			 -EINVAL);
	export_sink_nats.close(s);
	export_sink_nats.close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_append),
		cmocka_unit_test(test_body_raw_only),
		cmocka_unit_test(test_body_epoch),
		cmocka_unit_test(test_body_refused),
		cmocka_unit_test(test_odd_names),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_open_refused),
		cmocka_unit_test(test_config_replicas),
		cmocka_unit_test(test_unreachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
