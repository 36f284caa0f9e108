/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The translator's reporter allow-list: IPv4 addresses and a.b.c.d/len
 * prefixes, in the grammar of every access list (tool_parse_allow()).
 * Reports are not authenticated (docs/translator.md "Trust"): the list
 * only narrows who can send them.
 */
#ifndef DTA_TRANSLATOR_ALLOW_H
#define DTA_TRANSLATOR_ALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools.h"

#define ALLOW_MAX 64

struct allow_list {
	size_t n; /* 0: every source is allowed */
	struct tool_net net[ALLOW_MAX];
};

/* Parse "10.0.0.0/8, 192.0.2.7" (commas and/or blanks) into @a. An empty
 * list is refused (it would refuse everyone).
 * Return: 0, or -EINVAL with the reason in @err. */
int allow_parse(const char *s, struct allow_list *a, char *err, size_t errlen);

/* Is @addr (host byte order) allowed? Thread-safe. */
bool allow_ok(const struct allow_list *a, uint32_t addr);

#endif
