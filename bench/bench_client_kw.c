/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_client_kw: the C client's batched Key-Write get rate, for
 * bench/bench_python.py to print beside the Python binding's on the same
 * structure and keys in one run (issue 22: Python's batched gets against
 * the C client's rate).
 *
 *   bench_client_kw TARGET NAME KEYFILE KLEN BATCH REPEATS
 *
 * KEYFILE holds the keys back to back, KLEN bytes each. Every key is
 * looked up REPEATS times in batches of BATCH with dta_client_kw_get().
 * Prints one JSON line: keys, found (of one pass), wall and CPU seconds
 * (this process only: a socket collector's work is not in it) and the
 * rates per second of each, medians of the passes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dta/client.h"

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto close_file;
	p = malloc((size_t)n + 1);
	if (!p)
		goto close_file;
	if (fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
		goto close_file;
	}
	*len = (size_t)n;
close_file:
	fclose(f);
	return p;
}

int main(int argc, char **argv)
{
	struct dta_client *c = NULL;
	struct dta_kw_result *res = NULL;
	double wall[64], cpu[64];
	size_t len = 0, n, klen, batch, found = 0;
	unsigned repeats;
	uint8_t *keys, *data = NULL;
	char err[256];
	int rc = 1, idx;

	if (argc != 7) {
		fprintf(stderr, "usage: bench_client_kw TARGET NAME KEYFILE KLEN "
				"BATCH REPEATS\n");
		return 2;
	}
	klen = strtoul(argv[4], NULL, 10);
	batch = strtoul(argv[5], NULL, 10);
	repeats = (unsigned)strtoul(argv[6], NULL, 10);
	if (!klen || !batch || !repeats || repeats > 64) {
		fprintf(stderr, "bench_client_kw: KLEN, BATCH >= 1, REPEATS 1..64\n");
		return 2;
	}
	keys = read_file(argv[3], &len);
	if (!keys || len % klen) {
		fprintf(stderr, "bench_client_kw: %s: %s\n", argv[3],
			keys ? "not a whole number of keys" : strerror(errno));
		goto free_keys;
	}
	n = len / klen;
	if (dta_client_open(argv[1], NULL, &c, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_client_kw: %s\n", err);
		goto free_keys;
	}
	idx = dta_client_find(c, argv[2]);
	if (idx < 0) {
		fprintf(stderr, "bench_client_kw: no structure %s\n", argv[2]);
		goto close_client;
	}
	res = calloc(batch, sizeof(*res));
	data = calloc(batch, dta_client_structure(c, (size_t)idx)->layout.g.kw.data_len);
	if (!res || !data)
		goto free_bufs;
	for (unsigned r = 0; r < repeats; r++) {
		double w0 = bench_clock_s(CLOCK_MONOTONIC);
		double c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);

		for (size_t i = 0; i < n; i += batch) {
			size_t m = n - i < batch ? n - i : batch;
			int e = dta_client_kw_get(c, argv[2], keys + i * klen,
						  klen, m, NULL, res, data);

			if (e < 0) {
				fprintf(stderr, "bench_client_kw: %s\n",
					dta_client_error(c));
				goto free_bufs;
			}
			if (r == 0)
				for (size_t j = 0; j < m; j++)
					found += res[j].status == DTA_Q_FOUND;
		}
		wall[r] = bench_clock_s(CLOCK_MONOTONIC) - w0;
		cpu[r] = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	{
		double w = bench_median(wall, repeats), u = bench_median(cpu, repeats);

		printf("{\"keys\":%zu,\"found\":%zu,\"wall_s\":%.6f,\"cpu_s\":%.6f,"
		       "\"keys_per_s\":%.0f,\"keys_per_cpu_s\":%.0f}\n",
		       n, found, w, u, w > 0 ? n / w : 0, u > 0 ? n / u : 0);
	}
	rc = 0;
free_bufs:
	free(data);
	free(res);
close_client:
	dta_client_close(c);
free_keys:
	free(keys);
	return rc;
}
