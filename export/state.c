/* SPDX-License-Identifier: BSD-3-Clause */
/* dta-export's state file parser (state.h). */
#include <errno.h>
#include <string.h>

#include "state.h"

/* Word @i of the line (words[i], lens[i]); names: printable, no space. */
static int name_ok(const char *p, size_t n)
{
	if (n == 0 || n > EXPORT_STATE_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] == 0x7f)
			return 0;
	return 1;
}

static int num(const char *p, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20 || (n > 1 && p[0] == '0'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d;

		if (p[i] < '0' || p[i] > '9')
			return 0;
		d = (unsigned)(p[i] - '0');
		if (v > (max - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return 1;
}

/* Split @p (@n bytes, no '\n') on single spaces into at most 5 words. */
static int split(const char *p, size_t n, const char **w, size_t *wl)
{
	int k = 0;
	size_t s = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && p[i] != ' ')
			continue;
		if (k == 5 || i == s)
			return -1; /* too many words, or an empty one */
		w[k] = p + s;
		wl[k++] = i - s;
		s = i + 1;
	}
	return k;
}

static int one_line(const char *p, size_t n, const struct export_state_cb *cb)
{
	char a[EXPORT_STATE_NAME_MAX + 1], b[EXPORT_STATE_NAME_MAX + 1];
	char c[EXPORT_STATE_NAME_MAX + 1];
	const char *w[5];
	size_t wl[5];
	uint64_t x, y;
	int k;

	if (n == 0 || p[0] == '#')
		return 0;
	k = split(p, n, w, wl);
	if (k != 5 || !name_ok(w[1], wl[1]) || !name_ok(w[2], wl[2]))
		return -EINVAL;
	memcpy(a, w[1], wl[1]);
	a[wl[1]] = 0;
	memcpy(b, w[2], wl[2]);
	b[wl[2]] = 0;
	if (wl[0] == 6 && !memcmp(w[0], "cursor", 6)) {
		if (!num(w[3], wl[3], UINT32_MAX, &x) ||
		    !num(w[4], wl[4], UINT64_MAX, &y))
			return -EINVAL;
		return cb->cursor ? cb->cursor(cb->ctx, a, b, (uint32_t)x, y) : 0;
	}
	if (wl[0] == 4 && !memcmp(w[0], "lost", 4)) {
		if (!name_ok(w[3], wl[3]) || !num(w[4], wl[4], UINT64_MAX, &y))
			return -EINVAL;
		memcpy(c, w[3], wl[3]);
		c[wl[3]] = 0;
		return cb->lost ? cb->lost(cb->ctx, a, b, c, y) : 0;
	}
	return -EINVAL;
}

int export_state_parse(const char *text, size_t len,
		       const struct export_state_cb *cb, unsigned *line)
{
	size_t off = 0;
	unsigned ln = 0;

	*line = 0;
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n;
		int rc;

		ln++;
		if (!nl || memchr(text + off, 0, (size_t)(nl - text) - off)) {
			*line = ln; /* no end, or a NUL inside */
			return -EINVAL;
		}
		n = (size_t)(nl - text) - off;
		if (n + 1 > EXPORT_STATE_LINE_MAX) {
			*line = ln;
			return -EINVAL;
		}
		rc = one_line(text + off, n, cb);
		if (rc) {
			*line = ln;
			return rc;
		}
		off += n + 1;
	}
	return 0;
}
