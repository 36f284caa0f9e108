/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for access lists (tool_parse_allow(), the collector's
 * rdma_allow): every network accepted is well formed and prints back to
 * an item that parses to the same network; a list that cannot be read
 * whole, or an item with an empty prefix length, is refused rather than
 * read as something more permissive. */
#include <stdlib.h>
#include <string.h>

#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An item "a.b.c.d/" (empty prefix length) somewhere in @s. */
static int empty_prefix(const char *s)
{
	for (const char *p = strchr(s, '/'); p; p = strchr(p + 1, '/'))
		if (!p[1] || strchr(", \t", p[1]))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tool_net nets[8], back;
	char *s = malloc(size + 1), item[32];
	int n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	n = tool_parse_allow(s, nets, 8);
	if (n > 8 || (n >= 0 && (strlen(s) >= 1024 || empty_prefix(s))))
		abort();
	for (int i = 0; i < n; i++) {
		uint32_t host = ~nets[i].mask;
		unsigned bits = (unsigned)__builtin_popcount(nets[i].mask);

		if ((nets[i].net & host) || (host & (host + 1)))
			abort(); /* not a prefix */
		snprintf(item, sizeof(item), "%u.%u.%u.%u/%u",
			 nets[i].net >> 24, (nets[i].net >> 16) & 255,
			 (nets[i].net >> 8) & 255, nets[i].net & 255, bits);
		if (tool_parse_allow(item, &back, 1) != 1 ||
		    back.net != nets[i].net || back.mask != nets[i].mask)
			abort();
	}
	free(s);
	return 0;
}
