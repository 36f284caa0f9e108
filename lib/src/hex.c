/* SPDX-License-Identifier: BSD-3-Clause */
/* Hex text of bytes, both ways, for the library's own text (the
 * executor's answers and requests, the client's text lines). */
#include <string.h>

#include "internal.h"

/* A hex digit's value plus one; 0 for anything else: a table, as every
 * query decodes a key. */
static const signed char hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14,
	['E'] = 15, ['F'] = 16,
};

void dta__hex_put(char *out, const void *p, size_t len)
{
	static const char d[] = "0123456789abcdef";
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
}

int dta__hex_decode(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex1[(unsigned char)s[2 * i]] - 1;
		int lo = hex1[(unsigned char)s[2 * i + 1]] - 1;

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return n % 2 ? -1 : (int)(n / 2);
}
