/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the text protocol of the query executor
 * (dta_exec_text(), what dta-collector runs for every request line it
 * does not handle itself): the input is request lines of any bytes (NULs
 * included) against small structures of every primitive, with one session
 * across the lines as one client would have. Every answer must be one
 * valid-UTF-8 JSON object on one line; a line that is no request must
 * produce nothing (the collector then answers for it). The lines answered
 * as they come (queued point queries batched) and answered one at a time
 * (flushed after each) must give the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "json_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every line of @b (@len bytes) a JSON object, or "-". */
static void check_lines(const char *p, size_t len)
{
	while (len) {
		const char *nl = memchr(p, '\n', len);
		size_t n;

		if (!nl)
			abort(); /* every answer ends with a newline */
		n = (size_t)(nl - p);
		if (!(n == 1 && p[0] == '-') && !fuzz_json_object_ok(p, n))
			abort();
		p += n + 1;
		len -= n + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dta_exec *x = fixture_exec();
	struct dta_exec_session *one, *bat;
	struct dta_buf ref = { 0 }, b = { 0 };
	size_t pos = 0;

	if (dta_exec_session_create(x, &one) || dta_exec_session_create(x, &bat))
		abort();
	for (unsigned lines = 0; pos < size && lines < 64; lines++) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
		const char *line = (const char *)data + pos;
		size_t mark = ref.len;
		int rc;

		pos += len + 1;
		rc = dta_exec_text(one, line, len, &ref);
		dta_exec_text_flush(one, &ref);
		if (rc == 1 ? ref.len != mark : rc != 0 || ref.len == mark)
			abort();
		if (rc == 1)
			dta_buf_put(&ref, "-\n", 2);
		if (dta_exec_text(bat, line, len, &b) != rc)
			abort();
		if (rc == 1)
			dta_buf_put(&b, "-\n", 2);
	}
	dta_exec_text_flush(bat, &b);
	if (ref.oom || b.oom || ref.len != b.len ||
	    (ref.len && memcmp(ref.p, b.p, ref.len)) || ref.errors != b.errors)
		abort();
	check_lines(ref.p, ref.len);
	dta_buf_free(&ref);
	dta_buf_free(&b);
	dta_exec_session_destroy(one);
	dta_exec_session_destroy(bat);
	return 0;
}
