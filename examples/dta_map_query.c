/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta_map_query: the local mapping path (docs/collector-protocol.md). Maps
 * a running collector's Key-Write structure read-only and looks keys up
 * in this process, batched, at the library's rate.
 *
 *   dta_map_query [-g] /dta-NAME.S KEYHEX...
 *
 * -g: the structure may belong to another user of its group (the tool runs
 * as a group member: shm_mode 0640). Prints one line per key: the key,
 * then found DATAHEX, not-found or conflict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

#define BATCH 64

static int unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = strlen(s);

	if (n == 0 || n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

int main(int argc, char **argv)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_SHM,
				     .flags = DTA_REGION_RDONLY };
	struct dta_region *r;
	const struct dta_layout *l;
	uint8_t keys[BATCH * DTA_KEY_MAX], out[BATCH * DTA_DATA_MAX];
	struct dta_kw_result res[BATCH];
	int a = 1, err, klen = 0, rc = 0;

	if (argc > 1 && !strcmp(argv[1], "-g")) {
		o.flags |= DTA_REGION_ANY_OWNER;
		a++;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: dta_map_query [-g] /dta-NAME.S KEYHEX...\n");
		return 2;
	}
	o.path = argv[a++];
	err = dta_region_open(&o, &r);
	if (err) {
		fprintf(stderr, "dta_map_query: %s: %s\n", o.path,
			dta_strerror(err));
		return 1;
	}
	l = dta_region_layout(r);
	if (l->primitive != DTA_PRIM_KEY_WRITE) {
		fprintf(stderr, "dta_map_query: %s is not a Key-Write structure\n",
			o.path);
		dta_region_destroy(r);
		return 1;
	}
	/* Keys of one length go together: one batch per up to 64 keys. */
	while (a < argc) {
		int n = 0, first = a;

		for (; a < argc && n < BATCH; a++, n++) {
			int k = unhex(argv[a], keys + (size_t)n * DTA_KEY_MAX,
				      DTA_KEY_MAX);

			if (k < 0 || (n && k != klen))
				break;
			klen = k;
		}
		if (n == 0) {
			fprintf(stderr, "dta_map_query: bad key %s\n", argv[a]);
			rc = 2;
			break;
		}
		for (int i = 1; i < n; i++) /* back to back for the batch */
			memmove(keys + (size_t)i * klen,
				keys + (size_t)i * DTA_KEY_MAX, (size_t)klen);
		err = dta_kw_query_batch(l, dta_region_data(r), keys, (size_t)klen,
					 (size_t)n, NULL, out, sizeof(out), res);
		if (err) {
			fprintf(stderr, "dta_map_query: %s\n", dta_strerror(err));
			rc = 1;
			break;
		}
		for (int i = 0; i < n; i++) {
			printf("%s ", argv[first + i]);
			if (res[i].status == DTA_Q_FOUND) {
				printf("found ");
				for (unsigned j = 0; j < l->g.kw.data_len; j++)
					printf("%02x", out[(size_t)i * l->g.kw.data_len + j]);
				putchar('\n');
			} else {
				puts(res[i].status == DTA_Q_CONFLICT ? "conflict"
								     : "not-found");
			}
		}
	}
	dta_region_destroy(r);
	return rc;
}
