/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the readers of our flat JSON (common/tools.c):
 * tool_jfield(), tool_jstr(), tool_jnum() with the keys dta-query and the
 * switch sink read (a collector's answers and its switch description), and
 * tool_jentry() over an Append answer's "entries". Anything a collector
 * (or something pretending to be one) sends must be read within bounds. */
#include <stdlib.h>
#include <string.h>

#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const keys[] = {
	"error", "status", "data", "votes", "candidates", "path",
	"valid_copies", "count", "entries", "lost", "position", "structures",
	"switch", "collector_mac", "collector_ip", "peer_ip", "name", "qpn",
	"peer_qpn", "psn", "rkey", "addr", "length",
};

static void read_fields(const char *js, size_t len)
{
	char out[64];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *p = tool_jfield(js, keys[i]);

		if (p && (p < js || p > js + len))
			abort();
		for (size_t cap = 1; cap <= sizeof(out); cap *= 4) {
			if (!tool_jstr(js, keys[i], out, cap))
				continue;
			if (strlen(out) >= cap || strchr(out, '"'))
				abort();
		}
		(void)tool_jnum(js, keys[i]);
	}
}

static void read_entries(const char *js, size_t len)
{
	const char *p = NULL, *s, *prev = js;
	size_t n = 0, elen, quotes = 0;

	for (size_t i = 0; i < len; i++)
		quotes += js[i] == '"';
	while ((s = tool_jentry(js, &p, &elen)) != NULL) {
		/* Inside the text, after the previous one, ended by a quote. */
		if (s <= prev || s + elen >= js + len || s[elen] != '"' ||
		    memchr(s, '"', elen) || p != s + elen + 1 ||
		    ++n > quotes / 2)
			abort();
		prev = s + elen;
	}
}

/* What switch_sink_open() reads from a collector's description. */
static void read_switch(const char *js, size_t len)
{
	static const char *const names[] = { "flows", "paths", "log", "" };
	const char *desc = strstr(js, "\"switch\":");
	char mac[32], ip[32], pat[80];

	if (!desc)
		return;
	read_fields(desc, len - (size_t)(desc - js));
	(void)tool_jstr(desc, "collector_mac", mac, sizeof(mac));
	(void)tool_jstr(desc, "collector_ip", ip, sizeof(ip));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *e;

		snprintf(pat, sizeof(pat), "{\"name\":\"%s\",", names[i]);
		e = strstr(desc, pat);
		if (e)
			read_fields(e, len - (size_t)(e - js));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *js = malloc(size + 1);
	size_t len;

	if (!js)
		return 0;
	memcpy(js, data, size);
	js[size] = 0;
	len = strlen(js); /* the readers take C strings */
	read_fields(js, len);
	read_entries(js, len);
	read_switch(js, len);
	free(js);
	return 0;
}
