/* SPDX-License-Identifier: BSD-3-Clause */
/* What the executor harnesses check of a JSON answer: well-formed UTF-8,
 * no raw control characters, one object. */
#ifndef DTA_FUZZ_JSON_CHECK_H
#define DTA_FUZZ_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when @len bytes at @p are well-formed UTF-8 (RFC 3629). */
static inline bool fuzz_utf8_ok(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len;) {
		uint8_t c = p[i], lo = 0x80, hi = 0xbf;
		size_t n;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 2;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4;
		else
			return false;
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
		if (len - i < n || p[i + 1] < lo || p[i + 1] > hi)
			return false;
		for (size_t k = 2; k < n; k++)
			if (p[i + k] < 0x80 || p[i + k] > 0xbf)
				return false;
		i += n;
	}
	return true;
}

/* One JSON object of @len bytes: braces around it, valid UTF-8, no byte
 * below 0x20 (JSON strings escape them, and we write no raw ones). */
static inline bool fuzz_json_object_ok(const char *p, size_t len)
{
	if (len < 2 || p[0] != '{' || p[len - 1] != '}')
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20)
			return false;
	return fuzz_utf8_ok((const uint8_t *)p, len);
}

#endif
