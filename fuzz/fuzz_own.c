/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the collector's own requests (stats, switch, snapshot,
 * ki-reset, binary, wait in text mode: coll_own_parse(), collector/own.c,
 * the classification own_request() runs on every line the socket gets
 * that is not the executor's): the input is request lines, each parsed
 * for a local and a remote connection, in text and frame mode, against a
 * Key-Write and a two-bank Key-Increment structure. Every line is either
 * refused with a message whose escaped JSON answer is valid UTF-8 JSON,
 * or is a request whose words are exactly what it is: no arguments for
 * stats/switch/snapshot, and for ki-reset an existing Key-Increment
 * structure and a bank below its banks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "own.h"
#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dta_layout kw, ki;
static const char *const names[2] = { "paths", "counters" };
static const struct dta_layout *layouts[2] = { &kw, &ki };
static struct coll_own_req req;

static void layouts_init(void)
{
	static int done;

	if (done)
		return;
	if (dta_layout_kw(&kw, 64, 4, 4, 1, DTA_HASH_CRC32C, 0) ||
	    dta_layout_ki(&ki, 64, 2, 2, DTA_HASH_CRC32C, 0))
		abort();
	done = 1;
}

static void check_error(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!req.error[0] || !memchr(req.error, 0, sizeof(req.error)))
		abort();
	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	fputs("{\"error\":", f);
	tool_json_str(f, req.error);
	fputc('}', f);
	if (fclose(f) || !fuzz_json_object_ok(buf, len))
		abort();
	free(buf);
}

/* What the words of @line say it is, computed apart from the parser. */
static void check_request(const char *line, const struct coll_own_ctx *x)
{
	char copy[DTA_EXEC_REQUEST_MAX + 1], *w[8];
	int nw;

	snprintf(copy, sizeof(copy), "%s", line);
	nw = tool_split(copy, w, 8);
	if (nw < 1)
		abort();
	switch (req.kind) {
	case COLL_OWN_STATS:
	case COLL_OWN_SWITCH:
	case COLL_OWN_SNAPSHOT:
		if (nw != 1 || strcmp(w[0], req.kind == COLL_OWN_STATS ? "stats" :
				      req.kind == COLL_OWN_SWITCH ? "switch" :
								    "snapshot") ||
		    (x->remote && req.kind != COLL_OWN_STATS))
			abort();
		break;
	case COLL_OWN_KI_RESET:
		if (x->remote || nw != 3 || strcmp(w[0], "ki-reset") ||
		    req.structure != 1 || strcmp(w[1], "counters") ||
		    req.bank >= 2 || strtoul(w[2], NULL, 10) != req.bank ||
		    w[2][0] < '0' || w[2][0] > '9')
			abort();
		break;
	case COLL_OWN_BINARY:
		if (x->binary || strcmp(w[0], "binary") || nw > 2 ||
		    (nw == 2 && strcmp(w[1], "1")))
			abort();
		break;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[DTA_EXEC_REQUEST_MAX + 1];
	size_t pos = 0;

	layouts_init();
	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : size - pos;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, data + pos, n);
		line[n] = 0; /* the socket refuses a line holding a NUL first */
		pos += n + 1;
		for (unsigned m = 0; m < 4; m++) {
			struct coll_own_ctx x = { .names = names,
						  .layouts = layouts, .n = 2,
						  .remote = m & 1,
						  .binary = m >> 1 };

			coll_own_parse(&x, line, &req);
			if (req.kind == COLL_OWN_ERROR)
				check_error();
			else
				check_request(line, &x);
		}
	}
	return 0;
}
