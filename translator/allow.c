/* SPDX-License-Identifier: BSD-3-Clause */
/* Reporter allow-list of dta-translator (allow.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allow.h"

int allow_parse(const char *s, struct allow_list *a, char *err, size_t errlen)
{
	const char *p = s;

	a->n = 0;
	while (*p) {
		char item[64], *slash;
		size_t len = strcspn(p, ", \t");
		struct in_addr in;
		unsigned long bits = 32;

		if (len == 0) {
			p++;
			continue;
		}
		if (len >= sizeof(item) || a->n == ALLOW_MAX)
			goto bad;
		memcpy(item, p, len);
		item[len] = 0;
		slash = strchr(item, '/');
		if (slash) {
			char *end;

			*slash = 0;
			errno = 0;
			bits = strtoul(slash + 1, &end, 10);
			if (errno || end == slash + 1 || *end || bits > 32)
				goto bad;
		}
		if (inet_pton(AF_INET, item, &in) != 1)
			goto bad;
		a->mask[a->n] = bits ? ~0u << (32 - bits) : 0;
		a->net[a->n] = ntohl(in.s_addr) & a->mask[a->n];
		a->n++;
		p += len;
		continue;
bad:
		snprintf(err, errlen, "bad address or a.b.c.d/len: %.*s",
			 (int)(len < 64 ? len : 64), p);
		return -EINVAL;
	}
	if (!a->n) {
		snprintf(err, errlen, "an empty allow-list would refuse everyone");
		return -EINVAL;
	}
	return 0;
}

bool allow_ok(const struct allow_list *a, uint32_t addr)
{
	if (!a->n)
		return true;
	for (size_t i = 0; i < a->n; i++)
		if ((addr & a->mask[i]) == a->net[i])
			return true;
	return false;
}
