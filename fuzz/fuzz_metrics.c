/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the metrics endpoint's readers (common/metrics.c): the
 * stats JSON scanner behind metrics_write_json() and the metrics_listen
 * parser. The JSON is the daemons' own, but a scanner still reads only
 * within its input and writes only lines promtool would take. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct metrics_def defs[] = {
	{ "packets", "dta_f_packets_total", METRICS_COUNTER, NULL, NULL, "P." },
	{ "a", "dta_f_lost_total", METRICS_COUNTER, "cause", "a", "L." },
	{ "rdma.b", "dta_f_lost_total", METRICS_COUNTER, "cause", "b", NULL },
	{ "uptime_s", "dta_f_uptime_seconds", METRICS_GAUGE, NULL, NULL, "U." },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_label l = { "collector", "c\"1" };
	char *js = malloc(size + 1), *out = NULL;
	size_t len = 0;
	unsigned unmapped;
	uint32_t addr;
	uint16_t port;
	FILE *f;

	if (!js)
		return 0;
	memcpy(js, data, size);
	js[size] = 0;
	f = open_memstream(&out, &len);
	if (f) {
		int rc = metrics_write_json(f, js, defs, 4, &l, 1, &unmapped);

		if (fclose(f) || (rc && rc != -EINVAL && rc != -ENOMEM))
			abort();
		/* Every line written is a comment or a dta_f_ sample. */
		for (char *p = out; rc == 0 && p && *p;) {
			char *nl = strchr(p, '\n');

			if (!nl || (strncmp(p, "# ", 2) && strncmp(p, "dta_f_", 6)))
				abort();
			p = nl + 1;
		}
		free(out);
	}
	if (metrics_listen_parse(js, &addr, &port) == 0 && port == 0)
		abort();
	free(js);
	return 0;
}
