/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the key forms of the command line (tool_parse_key(),
 * docs/keys.md) and hex (tool_unhex()): a parsed key fits the caller's
 * buffer, and its printed form (tool_format_key()) parses back to the
 * same bytes. */
#include <stdlib.h>
#include <string.h>

#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t caps[] = { DTA_KEY_MAX, 37, 16, 13, 8, 4, 1 };
	uint8_t key[DTA_KEY_MAX + 8], back[DTA_KEY_MAX];
	char s[512], text[2 * DTA_KEY_MAX + 64], err[128], hex[2 * DTA_KEY_MAX + 1];
	int n, m;

	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = 0;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		/* Canary bytes after @cap catch writes past it. */
		memset(key, 0xA5, sizeof(key));
		err[0] = 0;
		n = tool_parse_key(s, key, caps[i], err, sizeof(err));
		if (n < 0) {
			if (n != -1 || !err[0] || !memchr(err, 0, sizeof(err)))
				abort();
		} else if (n == 0 || (size_t)n > caps[i]) {
			abort();
		}
		for (size_t j = caps[i]; j < sizeof(key); j++)
			if (key[j] != 0xA5)
				abort();
	}
	n = tool_parse_key(s, key, DTA_KEY_MAX, NULL, 0);
	if (n > 0) {
		tool_format_key(key, (size_t)n, text, sizeof(text));
		m = tool_parse_key(text, back, sizeof(back), err, sizeof(err));
		if (m != n || memcmp(key, back, (size_t)n))
			abort();
	}
	n = tool_unhex(s, key, DTA_KEY_MAX);
	if (n > DTA_KEY_MAX)
		abort();
	if (n > 0) {
		tool_hex(key, (size_t)n, hex);
		if (tool_unhex(hex, back, sizeof(back)) != n ||
		    memcmp(key, back, (size_t)n))
			abort();
	}
	return 0;
}
