/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta-export's state file (export/state.c): whatever the
 * bytes, the parser either refuses them naming a line within the text, or
 * gives names of 1-255 printable bytes without spaces; what it accepted,
 * written back line by line as dta-export writes it, parses to the same
 * calls. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rec {
	char out[1 << 16];
	size_t len;
	unsigned calls;
	int overflow;
};

static void check_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > EXPORT_STATE_NAME_MAX)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] == 0x7f)
			abort();
}

static void put(struct rec *r, const char *line)
{
	size_t n = strlen(line);

	if (r->len + n > sizeof(r->out)) {
		r->overflow = 1;
		return;
	}
	memcpy(r->out + r->len, line, n);
	r->len += n;
}

static int on_cursor(void *ctx, const char *c, const char *s, uint32_t list,
		     uint64_t pos)
{
	struct rec *r = ctx;
	char line[3 * EXPORT_STATE_NAME_MAX];

	check_name(c);
	check_name(s);
	snprintf(line, sizeof(line), "cursor %s %s %" PRIu32 " %" PRIu64 "\n",
		 c, s, list, pos);
	put(r, line);
	r->calls++;
	return 0;
}

static int on_lost(void *ctx, const char *c, const char *s, const char *cause,
		   uint64_t n)
{
	struct rec *r = ctx;
	char line[4 * EXPORT_STATE_NAME_MAX];

	check_name(c);
	check_name(s);
	check_name(cause);
	snprintf(line, sizeof(line), "lost %s %s %s %" PRIu64 "\n", c, s, cause,
		 n);
	put(r, line);
	r->calls++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rec a, b;
	struct export_state_cb ca = { on_cursor, on_lost, &a };
	struct export_state_cb cb = { on_cursor, on_lost, &b };
	unsigned line, lines = 0;
	int rc;

	a.len = b.len = 0;
	a.calls = b.calls = 0;
	a.overflow = b.overflow = 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	rc = export_state_parse((const char *)data, size, &ca, &line);
	if (rc) {
		/* Refused: -EINVAL naming a line of the text. */
		if (rc != -EINVAL || line == 0 || line > lines + 1)
			abort();
		return 0;
	}
	/* Accepted: no line named, every line ended. */
	if (line != 0 || (size && data[size - 1] != '\n'))
		abort();
	if (a.overflow)
		return 0;
	rc = export_state_parse(a.out, a.len, &cb, &line);
	if (rc || b.calls != a.calls || b.len != a.len ||
	    memcmp(a.out, b.out, a.len))
		abort();
	return 0;
}
