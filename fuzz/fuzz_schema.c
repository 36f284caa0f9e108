/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_schema_parse() (the configuration's and the region
 * header's schema text). The input up to its first NUL is the text; what
 * follows is a value to read with the schema. An accepted schema must be
 * consistent (offsets back to back, one time field at most), its canonical
 * text must fit DTA_SCHEMA_TEXT_MAX and parse to the same schema, and
 * every field of the value must read without fault. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct dta_schema *s)
{
	uint32_t off = 0;
	int times = 0;

	if (s->nfields < 1 || s->nfields > DTA_SCHEMA_FIELDS_MAX)
		abort();
	for (unsigned i = 0; i < s->nfields; i++) {
		const struct dta_field *f = &s->f[i];

		if (f->offset != off || f->count < 1 ||
		    f->count > DTA_SCHEMA_COUNT_MAX ||
		    strnlen(f->name, DTA_SCHEMA_NAME_MAX) >= DTA_SCHEMA_NAME_MAX)
			abort();
		off += f->size;
		if (f->time) {
			times++;
			if (s->time != (int)i)
				abort();
		}
	}
	if (off != s->size || times > 1 || (times == 0 && s->time != -1))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* 32 fields of 255 20-digit numbers: under 200 KiB of JSON. */
	static char json[256 * 1024];
	static uint8_t value[65536];
	struct dta_schema s, t;
	char text[DTA_SCHEMA_TEXT_MAX], err[128], *in;
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size, vlen;
	int n;

	in = malloc(tlen + 1);
	if (!in)
		return 0;
	memcpy(in, data, tlen);
	in[tlen] = '\0';
	n = dta_schema_parse(in, &s, err, sizeof(err));
	free(in);
	if (n != 0) {
		if (n != -DTA_E_MALFORMED || !err[0])
			abort();
		return 0;
	}
	check(&s);
	n = dta_schema_format(&s, text, sizeof(text));
	if (n < 0 || (size_t)n != strlen(text))
		abort();
	if (dta_schema_parse(text, &t, NULL, 0) != 0 ||
	    s.nfields != t.nfields || s.size != t.size || s.time != t.time)
		abort();
	for (unsigned i = 0; i < s.nfields; i++)
		if (strcmp(s.f[i].name, t.f[i].name) || s.f[i].type != t.f[i].type ||
		    s.f[i].little != t.f[i].little || s.f[i].time != t.f[i].time ||
		    s.f[i].count != t.f[i].count ||
		    s.f[i].offset != t.f[i].offset || s.f[i].size != t.f[i].size)
			abort();

	/* The rest of the input, zero-padded, as a value. */
	vlen = nul ? size - tlen - 1 : 0;
	if (vlen > sizeof(value))
		vlen = sizeof(value);
	memset(value, 0, s.size);
	if (vlen)
		memcpy(value, nul + 1, vlen);
	for (unsigned i = 0; i < s.nfields; i++)
		for (unsigned k = 0; k < s.f[i].count; k++) {
			int64_t x;
			int rc = dta_schema_get(&s, i, k, value, s.size, &x);

			if ((rc == 0) == (s.f[i].type == DTA_FIELD_BYTES))
				abort();
		}
	n = dta_schema_json(&s, value, s.size, json, sizeof(json));
	if (n < 0 || (size_t)n != strlen(json))
		abort();
	if (s.size > 0 &&
	    dta_schema_json(&s, value, s.size - 1, json, sizeof(json)) !=
		    -EINVAL)
		abort();
	if (dta_schema_json(&s, value, s.size, json, (size_t)n) != -ENOSPC ||
	    strlen(json) != (size_t)n - (n > 0))
		abort();
	/* The INT built-ins for the same size never fail to format. */
	for (int role = DTA_SCHEMA_INT_PATH; role <= DTA_SCHEMA_INT_EVENT;
	     role++)
		if (dta_schema_int(role, s.size, &t) == 0) {
			check(&t);
			if (t.size != s.size ||
			    dta_schema_format(&t, text, sizeof(text)) < 0)
				abort();
		}
	return 0;
}
