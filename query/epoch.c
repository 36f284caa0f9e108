/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-query epoch: closed Key-Increment epochs, read from their files
 * (dta/epoch.h, docs/layouts.md "Epochs"): what a file holds, and keys'
 * estimates in it. Needs no collector: the files are read here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "query.h"
#include "tools.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-query epoch FILE [KEY..]\n"
		"  A closed Key-Increment epoch's file (in the collector's\n"
		"  epoch_dir, STRUCTURE.EPOCH.epoch): without KEYs its header,\n"
		"  one JSON object: collector, structure, epoch, start_ns,\n"
		"  len_ns, closed_ns, bank, width, rows, counters (non-zero\n"
		"  counters in it) and increments (row 0's sum: every increment\n"
		"  of the epoch); with --counters also every counter as\n"
		"  [row,column,count]. With KEYs, each key's count-min estimate\n"
		"  in that epoch, one line each (as `ki get` answered for the\n"
		"  bank when the epoch was closed). Keys as docs/keys.md.\n");
}

int cmd_epoch(int argc, char **argv)
{
	const struct dta_epoch_meta *m;
	struct dta_epoch *e;
	bool counters = false;
	int a = 1, err;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--counters")) {
		counters = true;
		a++;
	}
	if (a >= argc) {
		usage(stderr);
		return 2;
	}
	err = dta_epoch_read(argv[a], &e);
	if (err)
		die("%s: %s", argv[a], dta_strerror(err));
	m = dta_epoch_meta(e);
	if (a + 1 == argc) {
		printf("{\"collector\":");
		tool_json_str(stdout, m->collector);
		printf(",\"structure\":");
		tool_json_str(stdout, m->structure);
		printf(",\"epoch\":%" PRIu64 ",\"start_ns\":%" PRIu64
		       ",\"len_ns\":%" PRIu64 ",\"closed_ns\":%" PRIu64
		       ",\"bank\":%u,\"width\":%" PRIu64 ",\"rows\":%u"
		       ",\"counters\":%" PRIu64 ",\"increments\":%" PRIu64,
		       m->epoch, m->epoch * m->epoch_len_ns, m->epoch_len_ns,
		       m->closed_ns, m->bank, m->layout.g.ki.width,
		       m->layout.g.ki.rows, m->counters, m->row0_sum);
		if (counters) {
			printf(",\"values\":[");
			for (uint64_t i = 0; i < m->counters; i++) {
				struct dta_epoch_counter c;

				dta_epoch_counter(e, i, &c);
				printf("%s[%u,%" PRIu64 ",%" PRIu64 "]",
				       i ? "," : "", c.row, c.column, c.count);
			}
			printf("]");
		}
		printf("}\n");
	}
	for (int i = a + 1; i < argc; i++) {
		uint8_t key[DTA_KEY_MAX];
		char msg[256], shown[256];
		uint64_t v;
		int len = tool_parse_key(argv[i], key, sizeof(key), msg,
					 sizeof(msg));

		if (len < 0)
			die("%s: %s", argv[i], msg);
		dta_epoch_query(e, key, (size_t)len, &v);
		tool_format_key(key, (size_t)len, shown, sizeof(shown));
		if (G.json) {
			printf("{\"key\":");
			tool_json_str(stdout, shown);
			printf(",\"epoch\":%" PRIu64 ",\"count\":%" PRIu64 "}\n",
			       m->epoch, v);
		} else {
			printf("%s %" PRIu64 "\n", shown, v);
		}
	}
	dta_epoch_destroy(e);
	return 0;
}
