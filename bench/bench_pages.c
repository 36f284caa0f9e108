/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_pages: the same Key-Write queries on regions that differ only in
 * their pages, side by side in one run.
 *
 * Regions (the same layout, the same keys written):
 *   anon 4 KiB   anonymous memory, MADV_NOHUGEPAGE
 *   anon huge    anonymous memory with DTA_REGION_HUGE (reserved huge
 *                pages if any, else transparent huge pages: what a
 *                collector with shared_memory = no gets)
 *   shm          DTA_BACKING_SHM with DTA_REGION_HUGE: /dev/shm (4 KiB
 *                here unless shmem THP is on), or hugetlbfs when mounted
 *                at /dev/hugepages with pages free
 * Per round and region: dta_kw_query_batch() over the keys in batches of
 * 64, queries per CPU-second of this thread; medians of the rounds, and
 * each region's rate over the anon 4 KiB one.
 *
 *   bench_pages [-s LOG2_SLOTS] [-n QUERIES] [-r ROUNDS]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dta/dta.h"
#include "bench.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_pages: %s: %s\n", what, dta_strerror(err));
	exit(1);
}

static uint64_t rng_state = 11;

#define NREG 3

int main(int argc, char **argv)
{
	static const char *const label[NREG] = { "anon 4 KiB", "anon huge",
						  "shm" };
	unsigned log2_slots = 24, rounds = 5;
	size_t nq = 2000000;
	struct dta_region *r[NREG];
	struct dta_layout l;
	char shm[64];
	uint8_t *keys, data[20], slot[64], out[64 * 20];
	struct dta_kw_result res[64];
	struct dta_memop ops[8];
	static double rate[NREG][99];
	int opt, err;

	while ((opt = getopt(argc, argv, "s:n:r:")) != -1) {
		switch (opt) {
		case 's': log2_slots = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'n': nq = strtoull(optarg, NULL, 0); break;
		case 'r': rounds = (unsigned)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: bench_pages [-s LOG2_SLOTS] "
				"[-n QUERIES] [-r ROUNDS]\n");
			return 2;
		}
	}
	if (log2_slots < 10 || log2_slots > 30 || !nq || !rounds || rounds > 99)
		die("arguments", -EINVAL);
	err = dta_layout_kw(&l, 1ull << log2_slots, 20, 4, 2, DTA_HASH_CRC32C, 1);
	if (err)
		die("layout", err);
	snprintf(shm, sizeof(shm), "/dta-bench-pages-%d", (int)getpid());
	for (int k = 0; k < NREG; k++) {
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = DTA_BACKING_ANON };

		if (k >= 1)
			o.flags = DTA_REGION_HUGE;
		if (k == 2) {
			o.backing = DTA_BACKING_SHM;
			o.path = shm;
			o.flags |= DTA_REGION_UNLINK;
		}
		err = dta_region_create(&l, &o, &r[k]);
		if (err)
			die(label[k], err);
		if (k == 0)
			(void)madvise(dta_region_base(r[0]),
				      dta_region_map_size(r[0]), MADV_NOHUGEPAGE);
	}
	keys = malloc(nq * 13);
	if (!keys)
		die("keys", -ENOMEM);
	for (size_t i = 0; i < nq * 13; i++)
		keys[i] = (uint8_t)bench_rnd(&rng_state);
	for (size_t i = 0; i < nq; i++) {
		int n;

		memcpy(data, keys + i * 13, 13);
		n = dta_kw_ops(&l, keys + i * 13, 13, data, 20, 2, slot,
			       sizeof(slot), ops, 8);
		if (n < 0)
			die("ops", n);
		for (int k = 0; k < NREG; k++)
			dta_memops_apply(dta_region_data(r[k]), l.data_size, ops,
					 (size_t)n);
	}
	printf("Key-Write N=2 batched queries, %llu slots (%llu MiB), %zu "
	       "keys, %u rounds\n", 1ull << log2_slots,
	       (unsigned long long)(l.data_size >> 20), nq, rounds);
	for (int k = 0; k < NREG; k++)
		printf("  %-10s pages of %llu bytes\n", label[k],
		       (unsigned long long)dta_region_page_size(r[k]));
	for (unsigned t = 0; t < rounds; t++)
		for (int k = 0; k < NREG; k++) {
			size_t found = 0;
			double t0 = bench_cpu_s();

			for (size_t i = 0; i < nq; i += 64) {
				size_t m = nq - i < 64 ? nq - i : 64;

				err = dta_kw_query_batch(&l, dta_region_data(r[k]),
							 keys + i * 13, 13, m,
							 NULL, out, sizeof(out),
							 res);
				if (err)
					die("query", err);
				for (size_t j = 0; j < m; j++)
					found += res[j].status == DTA_Q_FOUND;
			}
			rate[k][t] = (double)nq / (bench_cpu_s() - t0);
			if (found == 0)
				die("nothing found", -EINVAL);
		}
	for (int k = 0; k < NREG; k++) {
		double ratio[99];

		for (unsigned t = 0; t < rounds; t++)
			ratio[t] = rate[k][t] / rate[0][t];
		printf("%-10s (%7llu-byte pages): %6.2f M queries/CPU-s, "
		       "%.2fx anon 4 KiB\n", label[k],
		       (unsigned long long)dta_region_page_size(r[k]),
		       bench_median(rate[k], (int)rounds) / 1e6,
		       bench_median(ratio, (int)rounds));
	}
	for (int k = 0; k < NREG; k++)
		dta_region_destroy(r[k]);
	free(keys);
	return 0;
}
