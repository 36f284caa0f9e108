/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Closing a Key-Increment epoch (docs/layouts.md "Epochs"), step by step,
 * as the collector's closer does it: copy a bank, write its non-zero
 * counters to a durable file, subtract the copy. Prints CPU seconds and
 * wall seconds (the file's fsync) per step and the rate per counter, for
 * a bank of ROWS x WIDTH counters of which a fraction is non-zero; the
 * ratio to one plain pass over the bank (memcpy) says what the closer
 * costs beyond reading its memory once.
 *
 *   bench_epoch [WIDTH [ROWS [NONZERO_PERMILLE [DIR]]]]
 *   (defaults 1048576 4 100 /tmp)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "dta/dta.h"

#define RUNS 5

int main(int argc, char **argv)
{
	uint64_t width = argc > 1 ? strtoull(argv[1], NULL, 0) : 1u << 20;
	unsigned rows = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
	unsigned permille = argc > 3 ? (unsigned)atoi(argv[3]) : 100;
	const char *dir = argc > 4 ? argv[4] : "/tmp";
	struct dta_layout l;
	uint64_t *area, *copy, *plain, n, seed = 1, late;
	double t_copy[RUNS], t_write[RUNS], w_write[RUNS], t_sub[RUNS],
		t_plain[RUNS];
	struct dta_epoch_meta m = { .collector = "bench", .structure = "bench",
				    .epoch = 0, .epoch_len_ns = 60000000000ull,
				    .bank = 0 };
	char path[4096];
	struct stat st;

	if (dta_layout_ki(&l, width, rows, 2, DTA_HASH_CRC32C, 0)) {
		fprintf(stderr, "bad geometry\n");
		return 2;
	}
	n = (uint64_t)rows * width;
	area = calloc(1, l.data_size);
	copy = malloc(n * 8);
	plain = malloc(n * 8);
	if (!area || !copy || !plain)
		return 1;
	m.layout = l;
	snprintf(path, sizeof(path), "%s/bench.0.epoch", dir);
	for (int r = 0; r < RUNS; r++) {
		double c0, w0;

		for (uint64_t i = 0; i < n; i++)
			area[i] = bench_rnd(&seed) % 1000 < permille ? 1 + i % 7 : 0;
		c0 = bench_cpu_s();
		memcpy(plain, area, n * 8);
		t_plain[r] = bench_cpu_s() - c0;
		c0 = bench_cpu_s();
		dta_ki_copy(&l, area, 0, copy);
		t_copy[r] = bench_cpu_s() - c0;
		c0 = bench_cpu_s();
		w0 = bench_clock_s(CLOCK_MONOTONIC);
		if (dta_epoch_write(path, &m, copy)) {
			fprintf(stderr, "cannot write %s\n", path);
			return 1;
		}
		t_write[r] = bench_cpu_s() - c0;
		w_write[r] = bench_clock_s(CLOCK_MONOTONIC) - w0;
		c0 = bench_cpu_s();
		dta_ki_subtract(&l, area, 0, copy, &late);
		t_sub[r] = bench_cpu_s() - c0;
	}
	stat(path, &st);
	unlink(path);
	printf("bank %u x %" PRIu64 " counters (%.1f MiB), %.1f%% non-zero; "
	       "file %.1f MiB; medians of %d\n", rows, width,
	       (double)n * 8 / 1048576, permille / 10.0,
	       (double)st.st_size / 1048576, RUNS);
	printf("  memcpy of the bank    %8.4f s CPU  (%.0f M counters/s)\n",
	       bench_median(t_plain, RUNS), n / bench_median(t_plain, RUNS) / 1e6);
	printf("  dta_ki_copy           %8.4f s CPU  (%.2f x memcpy)\n",
	       bench_median(t_copy, RUNS),
	       bench_median(t_copy, RUNS) / bench_median(t_plain, RUNS));
	printf("  dta_epoch_write       %8.4f s CPU, %.4f s wall with fsync "
	       "(%.2f x memcpy CPU)\n", bench_median(t_write, RUNS),
	       bench_median(w_write, RUNS),
	       bench_median(t_write, RUNS) / bench_median(t_plain, RUNS));
	printf("  dta_ki_subtract       %8.4f s CPU  (%.2f x memcpy)\n",
	       bench_median(t_sub, RUNS),
	       bench_median(t_sub, RUNS) / bench_median(t_plain, RUNS));
	free(area);
	free(copy);
	free(plain);
	return 0;
}
