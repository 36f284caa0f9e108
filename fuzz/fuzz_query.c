/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the collector's query protocol (tool_exec(), what
 * dta-collector runs for every request line it does not handle itself):
 * the input is request lines against small structures of every primitive,
 * with one session across the lines as one client would have. Every
 * answer must be one JSON object on one line; a line that is no request
 * must produce nothing (the collector then answers for it). The same
 * lines through the batched executor (tool_exec_batched(), what the
 * collector runs) must give the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_answer(const char *buf, size_t len, int rc)
{
	if (rc == -1) {
		if (len)
			abort();
		return;
	}
	if (rc != 0 || len < 2 || buf[0] != '{' || buf[len - 1] != '}' ||
	    memchr(buf, '\n', len) || strlen(buf) != len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fixture *f = fixture_get();
	struct tool_session sess = { 0 }, bsess = { 0 };
	struct tool_out ref = { 0 }, bat = { 0 };
	static struct tool_batch *b;
	char line[2048];
	size_t pos = 0;

	if (!b && tool_batch_create(&b))
		abort();

	for (unsigned lines = 0; pos < size && lines < 64; lines++) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
		char *buf = NULL;
		size_t blen = 0;
		FILE *out;
		int rc;

		/* A line is a C string to the collector: it stops at a NUL. */
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, data + pos, len);
		line[len] = 0;
		pos += len + 1;
		out = open_memstream(&buf, &blen);
		if (!out)
			abort();
		rc = tool_exec(f->v, f->n, &sess, line, out);
		fclose(out);
		check_answer(buf, blen, rc);
		if (rc == 0) {
			tool_out_put(&ref, buf, blen);
			tool_out_put(&ref, "\n", 1);
		} else {
			tool_out_str(&ref, "-\n");
		}
		free(buf);
		if (tool_exec_batched(b, f->v, f->n, &bsess, line, &bat) != rc)
			abort();
		if (rc != 0)
			tool_out_str(&bat, "-\n");
	}
	tool_batch_flush(b, &bat);
	if (ref.oom || bat.oom || ref.len != bat.len ||
	    (ref.len && memcmp(ref.p, bat.p, ref.len)))
		abort();
	tool_out_free(&ref);
	tool_out_free(&bat);
	tool_session_free(&sess);
	tool_session_free(&bsess);
	return 0;
}
