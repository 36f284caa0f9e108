/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_layouts: single-core rates of the layouts' writer and query paths.
 *
 * Prints millions of operations per second for Key-Write insert and query
 * (N = 1, 2, 4; one by one and batched with prefetch), Postcarding insert
 * and query, Append produce+consume and Key-Increment update and query, on
 * a structure that fits in cache and on one far larger than the caches,
 * and the hash functions on their own.
 * The paper's C++ collector answered about 1.8 M Key-Write queries/s per
 * core at N = 2 (section 6.5.1, figure 11a).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dta/dta.h"

static uint64_t rng_state = 1;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink; /* keeps results alive */

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_layouts: %s: %s\n", what, dta_strerror(err));
	exit(1);
}

static struct dta_region *region(const struct dta_layout *l)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_ANON,
				     .flags = DTA_REGION_HUGE };
	struct dta_region *r;
	int err = dta_region_create(l, &o, &r);

	if (err)
		die("region", err);
	/* Touch every page so page faults are not measured. */
	memset(dta_region_data(r), 0, dta_region_data_size(r));
	return r;
}

static void row(const char *what, const char *size, double n, double secs)
{
	printf("%-34s %-8s %8.2f M/s  %6.1f ns/op\n", what, size, n / secs / 1e6,
	       secs / n * 1e9);
}

static uint8_t *make_keys(size_t n, size_t len)
{
	uint8_t *k = malloc(n * len);

	if (!k)
		die("keys", -12);
	for (size_t i = 0; i < n * len; i++)
		k[i] = (uint8_t)rnd();
	return k;
}

static void bench_kw(unsigned log2_slots, size_t nkeys, const char *label)
{
	static const unsigned ns[] = { 1, 2, 4 };

	for (unsigned t = 0; t < 3; t++) {
		unsigned n = ns[t];
		struct dta_layout l;
		struct dta_region *r;
		uint8_t *keys = make_keys(nkeys, 13), data[20] = { 1 }, slot[32];
		uint8_t *out = malloc(nkeys * 20);
		struct dta_kw_result *res = malloc(nkeys * sizeof(*res));
		struct dta_kw_query_opts qo = { .redundancy = n };
		struct dta_memop ops[8];
		char what[64];
		double t0, t1;
		int err;

		err = dta_layout_kw(&l, 1ull << log2_slots, 20, 4, n,
				    DTA_HASH_CRC32C, 1);
		if (err)
			die("layout", err);
		r = region(&l);
		t0 = now();
		for (size_t i = 0; i < nkeys; i++) {
			int k = dta_kw_ops(&l, keys + i * 13, 13, data, 20, n, slot,
					   sizeof(slot), ops, 8);

			dta_memops_apply(dta_region_data(r), l.data_size, ops,
					 (size_t)k);
		}
		t1 = now();
		snprintf(what, sizeof(what), "Key-Write insert N=%u", n);
		row(what, label, (double)nkeys, t1 - t0);

		t0 = now();
		for (size_t i = 0; i < nkeys; i++) {
			dta_kw_query(&l, dta_region_data(r), keys + i * 13, 13, &qo,
				     out, 20, &res[0]);
			sink += (uint64_t)res[0].status;
		}
		t1 = now();
		snprintf(what, sizeof(what), "Key-Write query N=%u", n);
		row(what, label, (double)nkeys, t1 - t0);

		t0 = now();
		dta_kw_query_batch(&l, dta_region_data(r), keys, 13, nkeys, &qo, out,
				   nkeys * 20, res);
		t1 = now();
		for (size_t i = 0; i < nkeys; i++)
			sink += res[i].status;
		snprintf(what, sizeof(what), "Key-Write query N=%u, batched", n);
		row(what, label, (double)nkeys, t1 - t0);
		dta_region_destroy(r);
		free(res);
		free(out);
		free(keys);
	}
}

static void bench_pc(unsigned log2_chunks, size_t nflows, const char *label)
{
	struct dta_layout l;
	struct dta_region *r;
	struct dta_pc_codebook *cb;
	uint32_t values[1024], path[5];
	uint8_t *keys = make_keys(nflows, 13), chunk[64];
	struct dta_memop ops[8];
	double t0, t1;
	int err;

	for (unsigned i = 0; i < 1024; i++)
		values[i] = 100000 + i;
	err = dta_layout_pc(&l, 1ull << log2_chunks, 5, 4, 2, DTA_HASH_CRC32C, 1);
	if (err)
		die("layout", err);
	r = region(&l);
	err = dta_pc_codebook_create(&l, values, 1024, &cb);
	if (err)
		die("codebook", err);
	t0 = now();
	for (size_t i = 0; i < nflows; i++) {
		for (int h = 0; h < 5; h++)
			path[h] = values[(i * 7 + (size_t)h * 131) % 1024];
		int k = dta_pc_ops(&l, keys + i * 13, 13, path, 5, chunk, sizeof(chunk),
				   ops, 8);
		dta_memops_apply(dta_region_data(r), l.data_size, ops, (size_t)k);
	}
	t1 = now();
	row("Postcarding insert (B=5, N=2)", label, (double)nflows, t1 - t0);
	t0 = now();
	for (size_t i = 0; i < nflows; i++) {
		struct dta_pc_result res;

		dta_pc_query(&l, dta_region_data(r), cb, keys + i * 13, 13, 0, &res);
		sink += res.path_len;
	}
	t1 = now();
	row("Postcarding query (B=5, N=2)", label, (double)nflows, t1 - t0);
	dta_pc_codebook_destroy(cb);
	dta_region_destroy(r);
	free(keys);
}

static void bench_ap(size_t entries)
{
	enum { K = 16, ES = 16 };
	struct dta_layout l;
	struct dta_region *r;
	struct dta_ap_cursor cur = { 0, 0 };
	struct dta_ap_reader *rd;
	uint8_t batch[K][ES], frame[16 + K * ES], out[K * 64][ES];
	struct dta_memop ops[2];
	uint64_t lost = 0, got = 0;
	double t0, t1, t2;
	int err;

	err = dta_layout_ap(&l, 1, (uint32_t)(entries / K + 1), K, ES, 0);
	if (err)
		die("layout", err);
	r = region(&l);
	err = dta_ap_reader_create(&l, dta_region_data(r), 0, 0, &rd);
	if (err)
		die("reader", err);
	memset(batch, 7, sizeof(batch));
	t0 = now();
	for (size_t i = 0; i < entries / K; i++) {
		int k = dta_ap_ops(&l, 0, &cur, batch, K, frame, sizeof(frame), ops, 2);

		dta_memops_apply(dta_region_data(r), l.data_size, ops, (size_t)k);
	}
	t1 = now();
	for (;;) {
		int n = dta_ap_read(rd, out, K * 64, &lost);

		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	t2 = now();
	if (got + lost != entries / K * K)
		fprintf(stderr, "bench_layouts: append read %llu of %zu\n",
			(unsigned long long)got, entries / K * K);
	row("Append produce (K=16, 16 B entries)", "ring", (double)got, t1 - t0);
	row("Append consume (K=16, 16 B entries)", "ring", (double)got, t2 - t1);
	dta_ap_reader_destroy(rd);
	dta_region_destroy(r);
}

static void bench_ki(unsigned log2_width, size_t nkeys, const char *label)
{
	struct dta_layout l;
	struct dta_region *r;
	uint8_t *keys = make_keys(nkeys, 13);
	struct dta_memop ops[8];
	double t0, t1;
	int err;

	err = dta_layout_ki(&l, 1ull << log2_width, 2, 1, DTA_HASH_CRC32C, 1);
	if (err)
		die("layout", err);
	r = region(&l);
	t0 = now();
	for (size_t i = 0; i < nkeys; i++) {
		int k = dta_ki_ops(&l, keys + i * 13, 13, 1, 0, ops, 8);

		dta_memops_apply(dta_region_data(r), l.data_size, ops, (size_t)k);
	}
	t1 = now();
	row("Key-Increment update (N=2)", label, (double)nkeys, t1 - t0);
	t0 = now();
	for (size_t i = 0; i < nkeys; i++) {
		uint64_t v;

		dta_ki_query(&l, dta_region_data(r), keys + i * 13, 13, 0, &v);
		sink += v;
	}
	t1 = now();
	row("Key-Increment query (N=2)", label, (double)nkeys, t1 - t0);
	dta_region_destroy(r);
	free(keys);
}

/* The hash functions alone, on 13-byte keys (an IPv4 5-tuple): what every
 * insert and query above pays per copy before touching memory. */
static void bench_hash(size_t nkeys)
{
	static const struct {
		int family;
		unsigned role;
		const char *what;
	} fns[] = {
		{ DTA_HASH_CRC32C, DTA_HF_SLOT(0), "hash crc32c (Castagnoli, CPU)" },
		{ DTA_HASH_CRC32C, DTA_HF_SLOT(1), "hash crc32c family, other poly" },
		{ DTA_HASH_CRC32, DTA_HF_SLOT(0), "hash crc32 (IEEE, table)" },
		{ DTA_HASH_XXH3, DTA_HF_SLOT(0), "hash xxh3-64" },
	};
	uint8_t *keys = make_keys(nkeys, 13);

	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		struct dta_hashfn fn;
		uint64_t acc = 0;
		double t0, t1;
		int err = dta_hash_family_fn(fns[f].family, 1, fns[f].role, &fn);

		if (err)
			die("hash", err);
		t0 = now();
		for (size_t i = 0; i < nkeys; i++)
			acc += dta_hashfn_eval(&fn, keys + i * 13, 13);
		t1 = now();
		sink += acc;
		row(fns[f].what, "13 B", (double)nkeys, t1 - t0);
	}
	free(keys);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ops", required_argument, NULL, 'n' },
		{ "large-log2", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t nops = 2000000;
	unsigned large = 26;
	int c;

	while ((c = getopt_long(argc, argv, "n:L:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			nops = strtoull(optarg, NULL, 0);
			break;
		case 'L':
			large = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'h':
			printf("Usage: bench_layouts [--ops N] [--large-log2 K]\n"
			       "  --ops N         operations per measurement (default 2000000)\n"
			       "  --large-log2 K  slots/chunks/counters of the large\n"
			       "                  structures = 2^K (default 26: 1.5 GiB of\n"
			       "                  Key-Write slots)\n"
			       "Small structures have 2^14 slots (fit in L2).\n");
			return 0;
		default:
			return 2;
		}
	}
	if (nops < 1000 || large < 15 || large > 32) {
		fprintf(stderr, "bench_layouts: option out of range\n");
		return 2;
	}
	printf("libdta %s, one core, CRC-32C family (hardware CRC: %s)\n",
	       DTA_VERSION_STRING, dta_crc32c_hw_available() ? "yes" : "no");
	printf("%-34s %-8s %10s  %s\n", "operation", "size", "rate", "latency");
	bench_hash(nops);
	bench_kw(14, nops, "2^14");
	bench_kw(large, nops, "large");
	bench_pc(14, nops, "2^14");
	bench_pc(large - 1, nops, "large");
	bench_ap(nops);
	bench_ki(14, nops, "2^14");
	bench_ki(large, nops, "large");
	return 0;
}
