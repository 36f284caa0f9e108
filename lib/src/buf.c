/* SPDX-License-Identifier: BSD-3-Clause */
/* struct dta_buf (dta/exec.h): the growable buffer answers go into. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dta/exec.h"
#include "frame_internal.h"

char *dta__buf_room(struct dta_buf *b, size_t more)
{
	size_t cap;
	char *n;

	if (b->oom)
		return NULL;
	if (more <= b->cap - b->len)
		return b->p + b->len;
	if (more > SIZE_MAX / 2 - b->len) {
		b->oom = true;
		return NULL;
	}
	/* Doubling keeps appending amortised O(1) per byte. */
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	n = realloc(b->p, cap);
	if (!n) {
		b->oom = true;
		return NULL;
	}
	b->p = n;
	b->cap = cap;
	return b->p + b->len;
}

DTA_API void dta_buf_put(struct dta_buf *b, const void *p, size_t len)
{
	char *d;

	if (!len)
		return;
	d = dta__buf_room(b, len);
	if (!d)
		return;
	memcpy(d, p, len);
	b->len += len;
}

DTA_API void dta_buf_free(struct dta_buf *b)
{
	if (!b)
		return;
	free(b->p);
	memset(b, 0, sizeof(*b));
}
