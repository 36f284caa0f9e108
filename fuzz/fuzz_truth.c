/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the truth-file reader of dta-query verify
 * (tool_truth_parse()), followed by what verify does with each line:
 * route it to a structure of a configuration and decode its key. Fields
 * must point into the line and agree with its words. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(char *line, size_t cap)
{
	const struct dta_config *c = fixture_get()->cfg;
	uint8_t key[DTA_KEY_MAX];
	struct tool_truth t;
	const char *commas;

	if (tool_truth_parse(line, &t) != 0)
		return;
	if ((t.key && (t.key < line || t.key >= line + cap)) ||
	    (t.value && (t.value < line || t.value >= line + cap)))
		abort();
	switch (t.kind) {
	case TOOL_TRUTH_NONE:
		return;
	case TOOL_TRUTH_KW:
		if (t.data_len != strlen(t.value) / 2)
			abort();
		(void)tool_route(c, DTA_PRIM_KEY_WRITE, t.data_len, 0, 0);
		break;
	case TOOL_TRUTH_PC:
		commas = t.value;
		for (unsigned h = 1; h < t.hops; h++) {
			commas = strchr(commas, ',');
			if (!commas++)
				abort();
		}
		if (strchr(commas, ','))
			abort();
		(void)tool_route(c, DTA_PRIM_POSTCARD, 0, t.hops, 0);
		break;
	case TOOL_TRUTH_KI:
		(void)tool_route(c, DTA_PRIM_KEY_INCREMENT, 0, 0, 0);
		break;
	case TOOL_TRUTH_AP:
		if (t.key)
			abort();
		(void)tool_route(c, DTA_PRIM_APPEND, 0, 0, t.list);
		return;
	case TOOL_TRUTH_INT_PATH:
		if (t.hops == 0 || t.hops > TOOL_TRUTH_PATH_MAX)
			abort();
		/* fall through */
	case TOOL_TRUTH_INT_HOP:
	case TOOL_TRUTH_INT_EVENT:
	case TOOL_TRUTH_INT_FLOW:
	case TOOL_TRUTH_INT_QUEUE:
		/* The key's bytes are those of its word. */
		if (tool_unhex(t.key, key, sizeof(key)) != (int)t.ikey_len ||
		    memcmp(key, t.ikey, t.ikey_len) ||
		    (t.kind == TOOL_TRUTH_INT_QUEUE ? t.ikey_len != 5
		     : t.ikey_len != 13 && t.ikey_len != 37))
			abort();
		if (t.kind == TOOL_TRUTH_INT_EVENT &&
		    ((t.event != 'D' && t.event != 'Q') ||
		     tool_unhex(t.value, key, sizeof(key)) !=
			     TOOL_TRUTH_EVENT_SIZE ||
		     memcmp(key, t.entry, TOOL_TRUTH_EVENT_SIZE)))
			abort();
		return;
	default:
		abort();
	}
	if (!t.key || tool_unhex(t.key, key, sizeof(key)) > DTA_KEY_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[1024]; /* what dta-query verify copies a line into */
	size_t pos = 0;

	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, data + pos, len);
		line[len] = 0;
		pos += len + 1;
		one(line, sizeof(line));
	}
	return 0;
}
