/* SPDX-License-Identifier: BSD-3-Clause */
/* Value schemas: the text form, exact offsets, values read from hand-built
 * bytes in both byte orders and signed, JSON compared with hand-written
 * text, every parse error by its message, and the INT built-ins checked
 * against the INT decoders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dta/dta.h"

static const char example[] =
	"src:u32, dst:u32, hops:u8, pad:bytes[3], path:u32[5], ts:u64:time";

static void check_field(const struct dta_field *f, const char *name,
			int type, int little, unsigned count, int time,
			uint32_t offset, uint32_t size)
{
	assert_string_equal(f->name, name);
	assert_int_equal(f->type, type);
	assert_int_equal(f->little, little);
	assert_int_equal(f->count, count);
	assert_int_equal(f->time, time);
	assert_int_equal(f->offset, offset);
	assert_int_equal(f->size, size);
}

static void test_parse_example(void **state)
{
	struct dta_schema s;
	char err[128];

	(void)state;
	assert_int_equal(dta_schema_parse(example, &s, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(s.nfields, 6);
	/* 4 + 4 + 1 + 3 + 5*4 + 8 */
	assert_int_equal(s.size, 40);
	assert_int_equal(s.time, 5);
	check_field(&s.f[0], "src", DTA_FIELD_U32, 0, 1, DTA_TIME_NONE, 0, 4);
	check_field(&s.f[1], "dst", DTA_FIELD_U32, 0, 1, DTA_TIME_NONE, 4, 4);
	check_field(&s.f[2], "hops", DTA_FIELD_U8, 0, 1, DTA_TIME_NONE, 8, 1);
	check_field(&s.f[3], "pad", DTA_FIELD_BYTES, 0, 3, DTA_TIME_NONE, 9, 3);
	check_field(&s.f[4], "path", DTA_FIELD_U32, 0, 5, DTA_TIME_NONE, 12, 20);
	check_field(&s.f[5], "ts", DTA_FIELD_U64, 0, 1, DTA_TIME_NS, 32, 8);
}

/* Member by member: struct copies need not keep padding bytes. */
static int same_field(const struct dta_field *x, const struct dta_field *y)
{
	return !strcmp(x->name, y->name) && x->type == y->type &&
	       x->little == y->little && x->time == y->time &&
	       x->count == y->count && x->offset == y->offset &&
	       x->size == y->size;
}

static void test_format_round_trip(void **state)
{
	static const struct {
		const char *in, *canon;
	} cases[] = {
		{ example, "src:u32, dst:u32, hops:u8, pad:bytes[3], "
			   "path:u32[5], ts:u64:time_ns" },
		{ "  a:u16le\tb:i8 ,c:u64be:time_us\n",
		  "a:u16le, b:i8, c:u64:time_us" },
		{ "x:i64le[2] y:u32:time_s", "x:i64le[2], y:u32:time_s" },
		{ "_t:u32le:time_ms,z9:bytes", "_t:u32le:time_ms, z9:bytes" },
		{ "n:u64:time_ns", "n:u64:time_ns" },
		{ "k:i16be[01] v:i32[255]", "k:i16, v:i32[255]" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dta_schema a, b;
		char out[DTA_SCHEMA_TEXT_MAX];
		int n;

		memset(&a, 0xAA, sizeof(a));
		memset(&b, 0x55, sizeof(b));
		assert_int_equal(dta_schema_parse(cases[i].in, &a, NULL, 0), 0);
		n = dta_schema_format(&a, out, sizeof(out));
		assert_int_equal(n, (int)strlen(cases[i].canon));
		assert_string_equal(out, cases[i].canon);
		/* The canonical text parses to the same schema. */
		assert_int_equal(dta_schema_parse(out, &b, NULL, 0), 0);
		assert_int_equal(a.nfields, b.nfields);
		assert_int_equal(a.size, b.size);
		assert_int_equal(a.time, b.time);
		for (unsigned k = 0; k < a.nfields; k++)
			assert_true(same_field(&a.f[k], &b.f[k]));
	}
}

static void test_format_limits(void **state)
{
	struct dta_schema s;
	char out[64];
	const char *canon = "a:u16le, b:u8";

	(void)state;
	assert_int_equal(dta_schema_parse("a:u16le b:u8", &s, NULL, 0), 0);
	/* Exactly the length: no room for the NUL. */
	memset(out, 'x', sizeof(out));
	assert_int_equal(dta_schema_format(&s, out, strlen(canon)), -ENOSPC);
	assert_int_equal(out[strlen(canon) - 1], '\0');
	assert_int_equal(dta_schema_format(&s, out, strlen(canon) + 1),
			 (int)strlen(canon));
	assert_string_equal(out, canon);
	assert_int_equal(dta_schema_format(&s, NULL, 0), -ENOSPC);
	assert_int_equal(dta_schema_format(NULL, out, sizeof(out)), -EINVAL);
	s.nfields = 0;
	assert_int_equal(dta_schema_format(&s, out, sizeof(out)), -EINVAL);
	s.nfields = 2;
	s.f[1].type = 0;
	assert_int_equal(dta_schema_format(&s, out, sizeof(out)), -EINVAL);
}

/* a:u16 b:u16le c:i8 d:i32 e:i32le f:u64 g:i16[2] h:bytes[2]
 * at        0       2    4     5      9    13      21         25 (27). */
static const uint8_t value[30] = {
	0x01, 0x02,			/* a = 0x0102 = 258 */
	0x01, 0x02,			/* b = 0x0201 = 513 */
	0xFE,				/* c = -2 */
	0xFF, 0xFF, 0xFF, 0x85,		/* d = 0xFFFFFF85 = -123 */
	0x85, 0xFF, 0xFF, 0xFF,		/* e = -123 */
	0x80, 0, 0, 0, 0, 0, 0, 0x01,	/* f = 2^63 + 1 */
	0x7F, 0xFF, 0x80, 0x00,		/* g = 32767, -32768 */
	0xAB, 0xCD,			/* h */
	0x11, 0x22, 0x33,		/* beyond the value */
};
static const char value_schema[] =
	"a:u16 b:u16le c:i8 d:i32 e:i32le f:u64 g:i16[2] h:bytes[2]";

static void test_get(void **state)
{
	struct dta_schema s;
	int64_t v = 0;

	(void)state;
	assert_int_equal(dta_schema_parse(value_schema, &s, NULL, 0), 0);
	assert_int_equal(s.size, 27);
	assert_int_equal(s.f[7].offset, 25);
	assert_int_equal(dta_schema_get(&s, 0, 0, value, 27, &v), 0);
	assert_int_equal(v, 258);
	assert_int_equal(dta_schema_get(&s, 1, 0, value, 27, &v), 0);
	assert_int_equal(v, 513);
	assert_int_equal(dta_schema_get(&s, 2, 0, value, 27, &v), 0);
	assert_int_equal(v, -2);
	assert_int_equal(dta_schema_get(&s, 3, 0, value, 27, &v), 0);
	assert_int_equal(v, -123);
	assert_int_equal(dta_schema_get(&s, 4, 0, value, 27, &v), 0);
	assert_int_equal(v, -123);
	assert_int_equal(dta_schema_get(&s, 5, 0, value, 27, &v), 0);
	assert_true((uint64_t)v == 0x8000000000000001ull);
	assert_int_equal(dta_schema_get(&s, 6, 0, value, 27, &v), 0);
	assert_int_equal(v, 32767);
	assert_int_equal(dta_schema_get(&s, 6, 1, value, 27, &v), 0);
	assert_int_equal(v, -32768);
	/* Unsigned types do not sign-extend: 0xFE as u8 is 254. */
	assert_int_equal(dta_schema_parse("x:u8 y:u32le", &s, NULL, 0), 0);
	assert_int_equal(dta_schema_get(&s, 0, 0, value + 4, 5, &v), 0);
	assert_int_equal(v, 254);
	assert_int_equal(dta_schema_get(&s, 1, 0, value + 4, 5, &v), 0);
	assert_int_equal(v, 0x85FFFFFF);
}

static void test_get_bad(void **state)
{
	struct dta_schema s;
	int64_t v = 7;

	(void)state;
	assert_int_equal(dta_schema_parse(value_schema, &s, NULL, 0), 0);
	assert_int_equal(dta_schema_get(&s, 7, 0, value, 27, &v), -EINVAL);
	assert_int_equal(dta_schema_get(&s, 8, 0, value, 27, &v), -EINVAL);
	assert_int_equal(dta_schema_get(&s, 6, 2, value, 27, &v), -EINVAL);
	assert_int_equal(dta_schema_get(&s, 0, 1, value, 27, &v), -EINVAL);
	assert_int_equal(dta_schema_get(&s, 0, 0, value, 26, &v), -EINVAL);
	assert_int_equal(dta_schema_get(NULL, 0, 0, value, 27, &v), -EINVAL);
	assert_int_equal(dta_schema_get(&s, 0, 0, NULL, 27, &v), -EINVAL);
	assert_int_equal(dta_schema_get(&s, 0, 0, value, 27, NULL), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_json(void **state)
{
	static const char want[] =
		"{\"a\":258,\"b\":513,\"c\":-2,\"d\":-123,\"e\":-123,"
		"\"f\":9223372036854775809,\"g\":[32767,-32768],"
		"\"h\":\"abcd\"}";
	struct dta_schema s;
	char out[256];

	(void)state;
	assert_int_equal(dta_schema_parse(value_schema, &s, NULL, 0), 0);
	assert_int_equal(dta_schema_json(&s, value, 27, out, sizeof(out)),
			 (int)strlen(want));
	assert_string_equal(out, want);
	/* Bytes past the value are ignored. */
	assert_int_equal(dta_schema_json(&s, value, sizeof(value), out,
					 sizeof(out)), (int)strlen(want));
	assert_string_equal(out, want);
	/* Too small: -ENOSPC, and still a NUL-terminated string. */
	memset(out, 'x', sizeof(out));
	assert_int_equal(dta_schema_json(&s, value, 27, out, 10), -ENOSPC);
	assert_int_equal(strlen(out), 9);
	assert_int_equal(dta_schema_json(&s, value, 27, out, strlen(want)),
			 -ENOSPC);
	assert_int_equal(dta_schema_json(&s, value, 27, NULL, 0), -ENOSPC);
	assert_int_equal(dta_schema_json(&s, value, 26, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(dta_schema_json(NULL, value, 27, out, sizeof(out)),
			 -EINVAL);
	/* A one-element array is a number, a bytes[1] a two-digit string:
	 * p = FF FF FF 85, q = 85, r = FF FF FF 80 00 00 00 00 read
	 * little-endian = 0x80FFFFFF. */
	assert_int_equal(dta_schema_parse("p:u32[1], q:bytes, r:i64le", &s,
					  NULL, 0), 0);
	assert_int_equal(dta_schema_json(&s, value + 5, 13, out, sizeof(out)),
			 (int)strlen("{\"p\":4294967173,\"q\":\"85\","
				     "\"r\":2164260863}"));
	assert_string_equal(out, "{\"p\":4294967173,\"q\":\"85\","
				 "\"r\":2164260863}");
}

static void test_json_le64(void **state)
{
	/* 8 bytes little-endian 0xFE FF FF FF FF FF FF FF = -2. */
	static const uint8_t v[9] = { 0x00, 0xFE, 0xFF, 0xFF, 0xFF,
				      0xFF, 0xFF, 0xFF, 0xFF };
	struct dta_schema s;
	char out[64];

	(void)state;
	assert_int_equal(dta_schema_parse("z:u8, r:i64le", &s, NULL, 0), 0);
	assert_int_equal(dta_schema_json(&s, v, sizeof(v), out, sizeof(out)),
			 (int)strlen("{\"z\":0,\"r\":-2}"));
	assert_string_equal(out, "{\"z\":0,\"r\":-2}");
	assert_int_equal(dta_schema_parse("z:u8, r:u64le", &s, NULL, 0), 0);
	assert_int_equal(dta_schema_json(&s, v, sizeof(v), out, sizeof(out)),
			 (int)strlen("{\"z\":0,\"r\":18446744073709551614}"));
	assert_string_equal(out, "{\"z\":0,\"r\":18446744073709551614}");
}

static void expect_error(const char *text, const char *msg)
{
	struct dta_schema s;
	char err[200];

	memset(&s, 0x5A, sizeof(s));
	assert_int_equal(dta_schema_parse(text, &s, err, sizeof(err)),
			 -DTA_E_MALFORMED);
	if (strcmp(err, msg) != 0)
		fail_msg("'%s': got '%s', want '%s'", text, err, msg);
	/* @s is untouched on error. */
	assert_int_equal(s.nfields, 0x5A5A5A5A);
}

static void test_errors(void **state)
{
	char name32[40], longtext[2048], *p;

	(void)state;
	expect_error("", "no fields");
	expect_error(" \t\n", "no fields");
	expect_error("a:u32,,b:u8", "field 2: empty (two commas in a row?)");
	expect_error(",a:u32", "field 1: empty (two commas in a row?)");
	expect_error("a:u32,", "trailing comma");
	expect_error("a:u32 , ", "trailing comma");
	expect_error("9a:u8",
		     "field 1: name must start with a letter or '_', not "
		     "'9a:u8'");
	memset(name32, 'n', 32);
	strcpy(name32 + 32, ":u8");
	expect_error(name32, "field 1: name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn' "
			     "is longer than 31 bytes");
	expect_error("a", "field 1 (a): missing ':TYPE'");
	expect_error("a-b:u8", "field 1 (a): unexpected '-' in the name");
	expect_error("x:u8 a:u24",
		     "field 2 (a): unknown type 'u24' (u8 u16 u32 u64 i8 i16 "
		     "i32 i64 bytes, optionally be or le)");
	expect_error("a:U32",
		     "field 1 (a): unknown type 'U32' (u8 u16 u32 u64 i8 i16 "
		     "i32 i64 bytes, optionally be or le)");
	expect_error("a:u32xe",
		     "field 1 (a): unknown type 'u32xe' (u8 u16 u32 u64 i8 "
		     "i16 i32 i64 bytes, optionally be or le)");
	expect_error("a:", "field 1 (a): unknown type '' (u8 u16 u32 u64 i8 "
			   "i16 i32 i64 bytes, optionally be or le)");
	expect_error("a:u8le",
		     "field 1 (a): byte order 'le' on the one-byte type u8");
	expect_error("a:i8be",
		     "field 1 (a): byte order 'be' on the one-byte type i8");
	expect_error("a:bytesle[4]",
		     "field 1 (a): byte order 'le' on the one-byte type bytes");
	expect_error("path:u32[0]", "field 1 (path): count 0 is not 1..255");
	expect_error("a:u8 b:u8 path:u32[256]",
		     "field 3 (path): count 256 is not 1..255");
	expect_error("a:u32[99999999999999999999]",
		     "field 1 (a): count 99999999999999999999 is not 1..255");
	expect_error("a:u32[]", "field 1 (a): count must be digits in [ ]");
	expect_error("a:u32[3", "field 1 (a): count must be digits in [ ]");
	expect_error("a:u32[x]", "field 1 (a): count must be digits in [ ]");
	expect_error("a:u32[3]x", "field 1 (a): unexpected 'x'");
	expect_error("a:u32:tim",
		     "field 1 (a): unknown suffix ':tim' (:time, :time_s, "
		     ":time_ms, :time_us, :time_ns)");
	expect_error("a:u32:time_h",
		     "field 1 (a): unknown suffix ':time_h' (:time, :time_s, "
		     ":time_ms, :time_us, :time_ns)");
	expect_error("a:u32:",
		     "field 1 (a): unknown suffix ':' (:time, :time_s, "
		     ":time_ms, :time_us, :time_ns)");
	expect_error("a:u16:time",
		     "field 1 (a): a time field must be a u32 or u64 scalar");
	expect_error("a:i64:time",
		     "field 1 (a): a time field must be a u32 or u64 scalar");
	expect_error("a:u32[2]:time",
		     "field 1 (a): a time field must be a u32 or u64 scalar");
	expect_error("a:u32:time b:u64:time_ms",
		     "field 2 (b): second time field (field 1 is one)");
	expect_error("a:u8 b:u8 a:u8",
		     "field 3 (a): name already used by field 1");

	/* 33 fields. */
	p = longtext;
	for (int i = 0; i < 33; i++)
		p += sprintf(p, "f%d:u8 ", i);
	expect_error(longtext, "more than 32 fields");
	/* 32 fields are fine. */
	p = longtext;
	for (int i = 0; i < 32; i++)
		p += sprintf(p, "f%d:u8 ", i);
	{
		struct dta_schema s;

		assert_int_equal(dta_schema_parse(longtext, &s, NULL, 0), 0);
		assert_int_equal(s.nfields, 32);
		assert_int_equal(s.size, 32);
	}
	/* 32 fields of 31-byte names: 32 * (31 + ":u64le[255]" + ", ") - 2
	 * = 32 * 44 - 2 = 1406 bytes of canonical text, over 1023. */
	p = longtext;
	for (int i = 0; i < 32; i++)
		p += sprintf(p, "%c%030d:u64le[255],", 'a' + i % 26, i);
	p[-1] = '\0';
	expect_error(longtext, "canonical text longer than 1023 bytes");
}

static void test_error_args(void **state)
{
	struct dta_schema s;
	char err[8];

	(void)state;
	assert_int_equal(dta_schema_parse(NULL, &s, NULL, 0), -EINVAL);
	assert_int_equal(dta_schema_parse("a:u8", NULL, NULL, 0), -EINVAL);
	/* No error buffer, and a short one: truncated, NUL-terminated. */
	assert_int_equal(dta_schema_parse("a:u9", &s, NULL, 0),
			 -DTA_E_MALFORMED);
	assert_int_equal(dta_schema_parse("a:u9", &s, err, sizeof(err)),
			 -DTA_E_MALFORMED);
	assert_string_equal(err, "field 1");
	/* A name of exactly 31 bytes is fine. */
	assert_int_equal(dta_schema_parse("abcdefghijklmnopqrstuvwxyz01234:u8",
					  &s, NULL, 0), 0);
	assert_string_equal(s.f[0].name, "abcdefghijklmnopqrstuvwxyz01234");
}

static void test_int_builtin(void **state)
{
	struct dta_schema s;
	char out[DTA_SCHEMA_TEXT_MAX];

	(void)state;
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_PATH, 20, &s), 0);
	assert_int_equal(dta_schema_format(&s, out, sizeof(out)), 11);
	assert_string_equal(out, "path:u32[5]");
	assert_int_equal(s.size, 20);
	assert_int_equal(s.time, -1);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_PATH, 1020, &s), 0);
	assert_int_equal(s.f[0].count, 255);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_PATH, 1024, &s),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_PATH, 18, &s),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_PATH, 0, &s),
			 -DTA_E_MISMATCH);

	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_HOP, 16, &s), 0);
	dta_schema_format(&s, out, sizeof(out));
	assert_string_equal(out, "hop_latency:u32, queue_occupancy:u32, "
				 "egress_ts:u64:time_ns");
	assert_int_equal(s.time, 2);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_HOP, 20, &s), 0);
	dta_schema_format(&s, out, sizeof(out));
	assert_string_equal(out, "hop_latency:u32, queue_occupancy:u32, "
				 "egress_ts:u64:time_ns, pad:bytes[4]");
	assert_int_equal(s.size, 20);
	/* 600 = 16 + 255 + 255 + 74 */
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_HOP, 600, &s), 0);
	dta_schema_format(&s, out, sizeof(out));
	assert_string_equal(out, "hop_latency:u32, queue_occupancy:u32, "
				 "egress_ts:u64:time_ns, pad:bytes[255], "
				 "pad1:bytes[255], pad2:bytes[74]");
	assert_int_equal(s.size, 600);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_HOP, 15, &s),
			 -DTA_E_MISMATCH);

	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_EVENT, 32, &s), 0);
	dta_schema_format(&s, out, sizeof(out));
	assert_string_equal(out, "switch_id:u32, ingress_port:u16, "
				 "egress_port:u16, flags:u8, queue_id:u8, "
				 "drop_reason:u8, version:u8, "
				 "queue_occupancy:u32, flow_hash:u32, "
				 "hop_latency:u32, time:u64:time_ns");
	assert_int_equal(s.time, 10);
	assert_int_equal(s.f[10].offset, 24);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_EVENT, 31, &s),
			 -DTA_E_MISMATCH);
	assert_int_equal(dta_schema_int(0, 32, &s), -EINVAL);
	assert_int_equal(dta_schema_int(99, 32, &s), -EINVAL);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_HOP, 16, NULL),
			 -EINVAL);
}

/* The built-in schemas read what the INT decoders read. */
static void test_int_against_decoders(void **state)
{
	uint8_t buf[32];
	struct dta_schema s;
	struct dta_int_hop h;
	struct dta_int_event e;
	int64_t v[11];

	(void)state;
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(0x91 + 37 * i);
	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_HOP, 16, &s), 0);
	assert_int_equal(dta_int_hop_decode(buf, &h), 0);
	for (unsigned f = 0; f < 3; f++)
		assert_int_equal(dta_schema_get(&s, f, 0, buf, 16, &v[f]), 0);
	assert_true((uint64_t)v[0] == h.hop_latency);
	assert_true((uint64_t)v[1] == h.queue_occupancy);
	assert_true((uint64_t)v[2] == h.egress_ts);

	assert_int_equal(dta_schema_int(DTA_SCHEMA_INT_EVENT, 32, &s), 0);
	assert_int_equal(dta_int_event_decode(buf, &e), 0);
	for (unsigned f = 0; f < 11; f++)
		assert_int_equal(dta_schema_get(&s, f, 0, buf, 32, &v[f]), 0);
	assert_true((uint64_t)v[0] == e.switch_id);
	assert_true((uint64_t)v[1] == e.ingress_port);
	assert_true((uint64_t)v[2] == e.egress_port);
	assert_true((uint64_t)v[3] == e.flags);
	assert_true((uint64_t)v[4] == e.queue_id);
	assert_true((uint64_t)v[5] == e.drop_reason);
	assert_true((uint64_t)v[6] == e.version);
	assert_true((uint64_t)v[7] == e.queue_occupancy);
	assert_true((uint64_t)v[8] == e.flow_hash);
	assert_true((uint64_t)v[9] == e.hop_latency);
	assert_true((uint64_t)v[10] == e.time);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_example),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_format_limits),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_get_bad),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_le64),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_args),
		cmocka_unit_test(test_int_builtin),
		cmocka_unit_test(test_int_against_decoders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
