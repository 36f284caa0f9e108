/* SPDX-License-Identifier: BSD-3-Clause */
/* Value schemas (schema.h, docs/config.md "Value schemas"). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dta/schema.h"
#include "dta/translator.h"
#include "internal.h"

static const struct {
	const char *name;
	uint8_t type;
	uint8_t esize;
	uint8_t is_signed;
} types[] = {
	{ "u8", DTA_FIELD_U8, 1, 0 },   { "u16", DTA_FIELD_U16, 2, 0 },
	{ "u32", DTA_FIELD_U32, 4, 0 }, { "u64", DTA_FIELD_U64, 8, 0 },
	{ "i8", DTA_FIELD_I8, 1, 1 },   { "i16", DTA_FIELD_I16, 2, 1 },
	{ "i32", DTA_FIELD_I32, 4, 1 }, { "i64", DTA_FIELD_I64, 8, 1 },
	{ "bytes", DTA_FIELD_BYTES, 1, 0 },
};

/* The suffixes of a time field, indexed by enum dta_field_time; ":time"
 * alone is accepted as nanoseconds but never written. */
static const char *const time_units[] = {
	[DTA_TIME_NS] = "ns", [DTA_TIME_US] = "us",
	[DTA_TIME_MS] = "ms", [DTA_TIME_S] = "s",
};

static int type_index(unsigned type)
{
	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return (int)i;
	return -1;
}

static int is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/* "field N (NAME): why" or "field N: why" before the name is known. */
DTA__PRINTF(5, 6)
static int fail(char *err, size_t errlen, unsigned n, const char *name,
		const char *fmt, ...)
{
	char why[160];
	va_list ap;

	if (!err || errlen == 0)
		return -DTA_E_MALFORMED;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (n == 0)
		snprintf(err, errlen, "%s", why);
	else if (name && name[0])
		snprintf(err, errlen, "field %u (%s): %s", n, name, why);
	else
		snprintf(err, errlen, "field %u: %s", n, why);
	return -DTA_E_MALFORMED;
}

/* Parse one field's text [p, end) into @f (number @n, 1-based). */
static int parse_field(const char *p, const char *end, unsigned n,
		       struct dta_field *f, char *err, size_t errlen)
{
	const char *q = p;
	size_t len;
	int ti = -1;

	memset(f, 0, sizeof(*f));
	if (!is_name_start(*q))
		return fail(err, errlen, n, NULL,
			    "name must start with a letter or '_', not '%.*s'",
			    (int)(end - p), p);
	while (q < end && is_name_char(*q))
		q++;
	len = (size_t)(q - p);
	if (len >= DTA_SCHEMA_NAME_MAX)
		return fail(err, errlen, n, NULL,
			    "name '%.*s' is longer than %d bytes", (int)len, p,
			    DTA_SCHEMA_NAME_MAX - 1);
	memcpy(f->name, p, len);
	f->name[len] = '\0';
	if (q == end)
		return fail(err, errlen, n, f->name, "missing ':TYPE'");
	if (*q != ':')
		return fail(err, errlen, n, f->name,
			    "unexpected '%c' in the name", *q);
	p = ++q;
	while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')))
		q++;
	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t tl = strlen(types[i].name);

		/* The longest type that prefixes the word; the rest may be
		 * the byte order ("u32le"). */
		if ((size_t)(q - p) >= tl && memcmp(p, types[i].name, tl) == 0 &&
		    (ti < 0 || tl > strlen(types[ti].name)))
			ti = (int)i;
	}
	if (ti < 0 || p + strlen(types[ti].name) != q) {
		const char *rest = ti < 0 ? q : p + strlen(types[ti].name);

		if (ti >= 0 && q - rest == 2 &&
		    (memcmp(rest, "be", 2) == 0 || memcmp(rest, "le", 2) == 0)) {
			if (types[ti].esize == 1)
				return fail(err, errlen, n, f->name,
					    "byte order '%.2s' on the one-byte "
					    "type %s", rest, types[ti].name);
			f->little = rest[0] == 'l';
		} else {
			return fail(err, errlen, n, f->name,
				    "unknown type '%.*s' (u8 u16 u32 u64 i8 "
				    "i16 i32 i64 bytes, optionally be or le)",
				    (int)(q > p ? q - p : end - p), p);
		}
	}
	f->type = types[ti].type;
	f->count = 1;
	if (q < end && *q == '[') {
		unsigned long c = 0;
		const char *d = ++q;

		while (q < end && *q >= '0' && *q <= '9') {
			if (c <= 100000)
				c = c * 10 + (unsigned long)(*q - '0');
			q++;
		}
		if (q == d || q == end || *q != ']')
			return fail(err, errlen, n, f->name,
				    "count must be digits in [ ]");
		if (c < 1 || c > DTA_SCHEMA_COUNT_MAX)
			return fail(err, errlen, n, f->name,
				    "count %.*s is not 1..%d", (int)(q - d), d,
				    DTA_SCHEMA_COUNT_MAX);
		f->count = (uint16_t)c;
		q++;
	}
	if (q < end && *q == ':') {
		size_t ul = (size_t)(end - q);

		if (ul == 5 && memcmp(q, ":time", 5) == 0) {
			f->time = DTA_TIME_NS;
		} else if (ul > 6 && memcmp(q, ":time_", 6) == 0) {
			for (unsigned u = DTA_TIME_NS; u <= DTA_TIME_S; u++)
				if (ul - 6 == strlen(time_units[u]) &&
				    memcmp(q + 6, time_units[u], ul - 6) == 0)
					f->time = (uint8_t)u;
		}
		if (!f->time)
			return fail(err, errlen, n, f->name,
				    "unknown suffix '%.*s' (:time, :time_s, "
				    ":time_ms, :time_us, :time_ns)",
				    (int)ul, q);
		if ((f->type != DTA_FIELD_U32 && f->type != DTA_FIELD_U64) ||
		    f->count != 1)
			return fail(err, errlen, n, f->name,
				    "a time field must be a u32 or u64 scalar");
		q = end;
	}
	if (q != end)
		return fail(err, errlen, n, f->name, "unexpected '%.*s'",
			    (int)(end - q), q);
	f->size = (uint32_t)types[ti].esize * f->count;
	return 0;
}

DTA_API int dta_schema_parse(const char *text, struct dta_schema *s,
			     char *err, size_t errlen)
{
	struct dta_schema t;
	const char *p;
	char canon[DTA_SCHEMA_TEXT_MAX];
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!text || !s)
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	t.time = -1;
	p = text;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (!*p)
		return fail(err, errlen, 0, NULL, "no fields");
	while (*p) {
		const char *start = p, *end;
		struct dta_field *f;

		while (*p && !is_sep(*p))
			p++;
		end = p;
		if (end == start)
			return fail(err, errlen, t.nfields + 1, NULL,
				    "empty (two commas in a row?)");
		if (t.nfields == DTA_SCHEMA_FIELDS_MAX)
			return fail(err, errlen, 0, NULL,
				    "more than %d fields", DTA_SCHEMA_FIELDS_MAX);
		f = &t.f[t.nfields];
		rc = parse_field(start, end, t.nfields + 1, f, err, errlen);
		if (rc)
			return rc;
		for (unsigned i = 0; i < t.nfields; i++)
			if (strcmp(t.f[i].name, f->name) == 0)
				return fail(err, errlen, t.nfields + 1, f->name,
					    "name already used by field %u",
					    i + 1);
		if (f->time) {
			if (t.time >= 0)
				return fail(err, errlen, t.nfields + 1, f->name,
					    "second time field (field %d "
					    "is one)", t.time + 1);
			t.time = (int)t.nfields;
		}
		f->offset = t.size;
		t.size += f->size;
		if (t.size > 65535)
			return fail(err, errlen, t.nfields + 1, f->name,
				    "the value exceeds 65535 bytes");
		t.nfields++;
		/* Blanks around one comma, or blanks alone, separate. */
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == ',') {
			p++;
			while (*p == ' ' || *p == '\t' || *p == '\n' ||
			       *p == '\r')
				p++;
			if (!*p)
				return fail(err, errlen, 0, NULL,
					    "trailing comma");
		}
	}
	/* The canonical text must fit the region header's field. */
	rc = dta_schema_format(&t, canon, sizeof(canon));
	if (rc < 0)
		return fail(err, errlen, 0, NULL,
			    "canonical text longer than %d bytes",
			    DTA_SCHEMA_TEXT_MAX - 1);
	*s = t;
	return 0;
}

/* Append to out[*len] what fits; remember overflow in *len > cap. */
DTA__PRINTF(4, 5)
static void put(char *out, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < cap ? out + *len : NULL,
		      *len < cap ? cap - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

static int finish(char *out, size_t cap, size_t len)
{
	if (len >= cap) {
		if (cap)
			out[cap - 1] = '\0';
		return -ENOSPC;
	}
	return (int)len;
}

static int schema_ok(const struct dta_schema *s)
{
	if (s->nfields < 1 || s->nfields > DTA_SCHEMA_FIELDS_MAX)
		return 0;
	for (unsigned i = 0; i < s->nfields; i++) {
		const struct dta_field *f = &s->f[i];

		if (type_index(f->type) < 0 || f->time > DTA_TIME_S ||
		    f->count < 1 || f->count > DTA_SCHEMA_COUNT_MAX ||
		    strnlen(f->name, DTA_SCHEMA_NAME_MAX) == DTA_SCHEMA_NAME_MAX)
			return 0;
	}
	return 1;
}

DTA_API int dta_schema_format(const struct dta_schema *s, char *out,
			      size_t cap)
{
	size_t len = 0;

	if (!s || (!out && cap) || !schema_ok(s))
		return -EINVAL;
	for (unsigned i = 0; i < s->nfields; i++) {
		const struct dta_field *f = &s->f[i];
		int ti = type_index(f->type);

		put(out, cap, &len, "%s%s:%s%s", i ? ", " : "", f->name,
		    types[ti].name, f->little && types[ti].esize > 1 ? "le" : "");
		if (f->count != 1)
			put(out, cap, &len, "[%u]", f->count);
		if (f->time)
			put(out, cap, &len, ":time_%s", time_units[f->time]);
	}
	return finish(out, cap, len);
}

static uint64_t load(const struct dta_field *f, unsigned esize,
		     const uint8_t *p)
{
	return f->little ? dta__get_le(p, esize) : dta__get_be(p, esize);
}

static int64_t extend(uint64_t v, unsigned esize, int is_signed)
{
	unsigned shift = 64 - 8 * esize;

	if (!is_signed || shift == 0)
		return (int64_t)v;
	/* Sign-extend without shifting into the sign bit of a signed type. */
	if (v & (UINT64_C(1) << (8 * esize - 1)))
		v |= ~UINT64_C(0) << (8 * esize);
	return (int64_t)v;
}

DTA_API int dta_schema_get(const struct dta_schema *s, unsigned field,
			   unsigned elem, const void *v, size_t len,
			   int64_t *out)
{
	const struct dta_field *f;
	int ti;

	if (!s || !v || !out || field >= s->nfields ||
	    field >= DTA_SCHEMA_FIELDS_MAX || len < s->size)
		return -EINVAL;
	f = &s->f[field];
	ti = type_index(f->type);
	if (ti < 0 || f->type == DTA_FIELD_BYTES || elem >= f->count ||
	    (size_t)f->offset + (size_t)(elem + 1) * types[ti].esize > len)
		return -EINVAL;
	*out = extend(load(f, types[ti].esize, (const uint8_t *)v + f->offset +
				       (size_t)elem * types[ti].esize),
		      types[ti].esize, types[ti].is_signed);
	return 0;
}

DTA_API int dta_schema_json(const struct dta_schema *s, const void *v,
			    size_t len, char *out, size_t cap)
{
	const uint8_t *b = v;
	size_t n = 0;

	if (!s || !v || (!out && cap) || !schema_ok(s) || len < s->size)
		return -EINVAL;
	put(out, cap, &n, "{");
	for (unsigned i = 0; i < s->nfields; i++) {
		const struct dta_field *f = &s->f[i];
		int ti = type_index(f->type);
		unsigned es = types[ti].esize;

		if ((size_t)f->offset + (size_t)f->count * es > len)
			return -EINVAL;
		put(out, cap, &n, "%s\"%s\":", i ? "," : "", f->name);
		if (f->type == DTA_FIELD_BYTES) {
			put(out, cap, &n, "\"");
			for (unsigned k = 0; k < f->count; k++)
				put(out, cap, &n, "%02x", b[f->offset + k]);
			put(out, cap, &n, "\"");
			continue;
		}
		if (f->count > 1)
			put(out, cap, &n, "[");
		for (unsigned k = 0; k < f->count; k++) {
			uint64_t x = load(f, es, b + f->offset + (size_t)k * es);

			if (types[ti].is_signed)
				put(out, cap, &n, "%s%" PRId64, k ? "," : "",
				    extend(x, es, 1));
			else
				put(out, cap, &n, "%s%" PRIu64, k ? "," : "", x);
		}
		if (f->count > 1)
			put(out, cap, &n, "]");
	}
	put(out, cap, &n, "}");
	return finish(out, cap, n);
}

/* Append field NAME of @type, @count elements, to @s (built-in schemas:
 * the names are valid and unique by construction). */
static void add(struct dta_schema *s, const char *name, uint8_t type,
		unsigned count, uint8_t time)
{
	struct dta_field *f = &s->f[s->nfields];

	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->type = type;
	f->count = (uint16_t)count;
	f->time = time;
	f->offset = s->size;
	f->size = (uint32_t)types[type_index(type)].esize * count;
	if (time)
		s->time = (int)s->nfields;
	s->size += f->size;
	s->nfields++;
}

/* Bytes past a record: "pad", then "pad1", "pad2"... of at most
 * DTA_SCHEMA_COUNT_MAX bytes each. */
static int add_pad(struct dta_schema *s, size_t pad)
{
	for (unsigned k = 0; pad > 0; k++) {
		unsigned c = pad > DTA_SCHEMA_COUNT_MAX ? DTA_SCHEMA_COUNT_MAX
							: (unsigned)pad;
		char name[16];

		if (s->nfields == DTA_SCHEMA_FIELDS_MAX)
			return -DTA_E_MISMATCH;
		if (k == 0)
			snprintf(name, sizeof(name), "pad");
		else
			snprintf(name, sizeof(name), "pad%u", k);
		add(s, name, DTA_FIELD_BYTES, c, DTA_TIME_NONE);
		pad -= c;
	}
	return 0;
}

DTA_API int dta_schema_int(int role, size_t size, struct dta_schema *s)
{
	struct dta_schema t;
	int rc;

	if (!s)
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	t.time = -1;
	switch (role) {
	case DTA_SCHEMA_INT_PATH:
		if (size == 0 || size % 4 || size / 4 > DTA_SCHEMA_COUNT_MAX)
			return -DTA_E_MISMATCH;
		add(&t, "path", DTA_FIELD_U32, (unsigned)(size / 4),
		    DTA_TIME_NONE);
		break;
	case DTA_SCHEMA_INT_HOP:
		if (size < DTA_INT_HOP_DATA_LEN)
			return -DTA_E_MISMATCH;
		add(&t, "hop_latency", DTA_FIELD_U32, 1, DTA_TIME_NONE);
		add(&t, "queue_occupancy", DTA_FIELD_U32, 1, DTA_TIME_NONE);
		add(&t, "egress_ts", DTA_FIELD_U64, 1, DTA_TIME_NS);
		static_assert(DTA_INT_HOP_DATA_LEN == 16, "hop record");
		rc = add_pad(&t, size - DTA_INT_HOP_DATA_LEN);
		if (rc)
			return rc;
		break;
	case DTA_SCHEMA_INT_EVENT:
		if (size < DTA_INT_EVENT_SIZE)
			return -DTA_E_MISMATCH;
		add(&t, "switch_id", DTA_FIELD_U32, 1, DTA_TIME_NONE);
		add(&t, "ingress_port", DTA_FIELD_U16, 1, DTA_TIME_NONE);
		add(&t, "egress_port", DTA_FIELD_U16, 1, DTA_TIME_NONE);
		add(&t, "flags", DTA_FIELD_U8, 1, DTA_TIME_NONE);
		add(&t, "queue_id", DTA_FIELD_U8, 1, DTA_TIME_NONE);
		add(&t, "drop_reason", DTA_FIELD_U8, 1, DTA_TIME_NONE);
		add(&t, "version", DTA_FIELD_U8, 1, DTA_TIME_NONE);
		add(&t, "queue_occupancy", DTA_FIELD_U32, 1, DTA_TIME_NONE);
		add(&t, "flow_hash", DTA_FIELD_U32, 1, DTA_TIME_NONE);
		add(&t, "hop_latency", DTA_FIELD_U32, 1, DTA_TIME_NONE);
		add(&t, "time", DTA_FIELD_U64, 1, DTA_TIME_NS);
		static_assert(DTA_INT_EVENT_SIZE == 32, "event entry");
		rc = add_pad(&t, size - DTA_INT_EVENT_SIZE);
		if (rc)
			return rc;
		break;
	default:
		return -EINVAL;
	}
	*s = t;
	return 0;
}
