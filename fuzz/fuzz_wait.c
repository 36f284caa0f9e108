/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the collector's `wait` request (coll_wait_request(),
 * collector/notify.c): the input is request lines against two structures.
 * A request is either answered at once with exactly one JSON object and
 * its newline, or armed with nothing written, a structure that exists
 * and a deadline within the maximum timeout; an armed wait answers once
 * its time is up. */
#include <stdlib.h>
#include <string.h>

#include "notify.h"
#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dta_region *r[2];
static const char *const names[2] = { "paths", "counts" };

static void regions(void)
{
	struct dta_layout l;
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_ANON };

	if (r[0])
		return;
	if (dta_layout_kw(&l, 64, 4, 4, 1, DTA_HASH_CRC32C, 0) ||
	    dta_region_create(&l, &o, &r[0]) || dta_region_create(&l, &o, &r[1]))
		abort();
	dta_region_notify(r[1]); /* counts at 1, paths at 0 */
}

static void check_line(const char *a, int k)
{
	if (k < 3 || k >= COLL_WAIT_ANSWER_MAX || a[0] != '{' ||
	    a[k - 1] != '\n' || a[k - 2] != '}' || memchr(a, '\n', (size_t)k - 1) ||
	    memchr(a, 0, (size_t)k))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[512], a[COLL_WAIT_ANSWER_MAX];
	size_t pos = 0;

	regions();
	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : size - pos;
		struct coll_wait wt = { 0 };
		uint64_t now;
		char *w[8];
		int nw, k;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, data + pos, n);
		line[n] = 0;
		pos += n + 1;
		n = strlen(line); /* an embedded NUL ends the line */
		nw = tool_split(line, w, 8);
		if (nw < 1 || strcmp(w[0], "wait"))
			continue;
		now = tool_now_ns();
		k = coll_wait_request(&wt, w, nw, r, names, 2, a);
		if (k) {
			if (wt.on)
				abort();
			check_line(a, k);
			continue;
		}
		if (!wt.on || wt.s >= 2 ||
		    wt.deadline_ns > tool_now_ns() + (uint64_t)COLL_WAIT_MAX_MS * 1000000ull ||
		    wt.deadline_ns < now)
			abort();
		k = coll_wait_check(&wt, r, wt.deadline_ns, a);
		if (!k || wt.on)
			abort();
		check_line(a, k);
	}
	return 0;
}
