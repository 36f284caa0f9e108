/* SPDX-License-Identifier: BSD-3-Clause */
/* Reporter allow-list of dta-translator (allow.h). */
#include <errno.h>
#include <stdio.h>

#include "allow.h"

int allow_parse(const char *s, struct allow_list *a, char *err, size_t errlen)
{
	int n = tool_parse_allow(s, a->net, ALLOW_MAX);

	a->n = 0;
	if (n == -E2BIG) {
		snprintf(err, errlen, "more than %d addresses or prefixes",
			 ALLOW_MAX);
		return -EINVAL;
	}
	if (n < 0) {
		snprintf(err, errlen, "'%.64s' is not a list of IPv4 addresses "
			 "or a.b.c.d/len prefixes", s);
		return -EINVAL;
	}
	if (n == 0) {
		snprintf(err, errlen, "an empty allow-list would refuse everyone");
		return -EINVAL;
	}
	a->n = (size_t)n;
	return 0;
}

bool allow_ok(const struct allow_list *a, uint32_t addr)
{
	return !a->n || tool_net_match(a->net, a->n, addr);
}
