/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_layouts: single-core rates of the layouts' writer and query paths.
 *
 * Prints millions of operations per CPU-second of the measuring thread
 * (medians of 3 runs) for Key-Write insert and query (N = 1, 2, 4; one by
 * one and batched), Postcarding insert and query, Append produce+consume
 * and Key-Increment update and query, on a structure that fits in cache and
 * on one far larger than the caches, and the hash functions on their own.
 *
 * Each large structure is measured against the memory system it lives in:
 * R, random independent 8-byte reads per CPU-second on the structure's own
 * memory (same size, same pages), and every large row prints its share of
 * R / N, where N is the number of slots, chunks or counters one operation
 * touches. Large structures run on 4 KiB pages (MADV_NOHUGEPAGE) and on
 * 2 MiB transparent huge pages (MADV_HUGEPAGE); the page size each one got
 * is read back from /proc/self/smaps.
 * The paper's C++ collector answered about 1.8 M Key-Write queries/s per
 * core at N = 2 (section 6.5.1, figure 11a).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "dta/dta.h"

enum { REPS = 3 };

/* Page advice for the structures being created (--pages). */
enum { PG_4K = 1, PG_2M = 2, PG_BOTH = 3 };
static int page_advice = PG_2M;

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

/* CPU time of this thread: rates stay comparable on a loaded machine. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink; /* keeps results alive */

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_layouts: %s: %s\n", what, dta_strerror(err));
	exit(1);
}

static double med3(const double *v)
{
	double a = v[0], b = v[1], c = v[2];

	if (a > b) {
		double t = a;

		a = b;
		b = t;
	}
	/* a <= b: the median is b clamped to [a, c]'s order */
	return c < a ? a : c > b ? b : c;
}

/*
 * A region on the pages asked for: plain anonymous memory advised with
 * MADV_HUGEPAGE or MADV_NOHUGEPAGE before it is touched, so the kernel
 * backs it with 2 MiB or 4 KiB pages (no hugetlbfs needed).
 */
static struct dta_region *region(const struct dta_layout *l)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_ANON };
	struct dta_region *r;
	int err = dta_region_create(l, &o, &r);

	if (err)
		die("region", err);
	if (madvise(dta_region_base(r), dta_region_map_size(r),
		    page_advice == PG_2M ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		perror("bench_layouts: madvise");
	/* Touch every page so page faults are not measured. */
	memset(dta_region_data(r), 0, dta_region_data_size(r));
	return r;
}

/* Share of [@p, @p + @len) backed by transparent huge pages, from the
 * AnonHugePages and Rss lines of /proc/self/smaps. */
static double huge_share(const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	unsigned long long rss = 0, huge = 0, v;
	int inside = 0;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t s, e;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			inside = s < hi && e > lo;
		else if (inside && sscanf(line, "Rss: %llu kB", &v) == 1)
			rss += v;
		else if (inside && sscanf(line, "AnonHugePages: %llu kB", &v) == 1)
			huge += v;
	}
	fclose(f);
	return rss ? (double)huge / (double)rss : 0;
}

static const char *page_label(const struct dta_region *r, char *buf,
			      size_t len)
{
	double h = huge_share(dta_region_data(r), dta_region_data_size(r));

	if (dta_region_page_size(r) > 4096)
		snprintf(buf, len, "%" PRIu64 " MiB",
			 dta_region_page_size(r) >> 20);
	else if (h >= 0.995)
		snprintf(buf, len, "2 MiB");
	else if (h <= 0.005)
		snprintf(buf, len, "4 KiB");
	else
		snprintf(buf, len, "2M %2.0f%%", h * 100);
	return buf;
}

static void row(const char *what, const char *size, double n, double secs)
{
	printf("%-34s %-8s %8.2f M/s  %6.1f ns/op\n", what, size, n / secs / 1e6,
	       secs / n * 1e9);
}

/* A row of a large structure: the median of REPS rates, its pages, R
 * (random 8-byte reads/s on the same memory) and the share of R / @n_mem
 * it reaches, the median of the per-run ratios. */
static void row_large(const char *what, const char *pages, unsigned n_mem,
		      const double *rate, const double *rr)
{
	double share[REPS], r = med3(rate);

	for (unsigned i = 0; i < REPS; i++)
		share[i] = rate[i] * n_mem / rr[i];
	printf("%-34s %-8s %8.2f M/s  %6.1f ns/op  %-6s %7.1f %5.0f%%\n", what,
	       "large", r / 1e6, 1e9 / r, pages, med3(rr) / 1e6,
	       med3(share) * 100);
}

/*
 * R: the best rate of random, independent 8-byte loads this memory gives
 * on @area: indices precomputed, loads summed so none is optimised away,
 * many in flight (the out-of-order window alone, and with software
 * prefetches 32 and 128 loads ahead; the best of the three counts).
 */
static double randread_rate(const void *area, size_t size, size_t nreads)
{
	static const size_t ahead[] = { 0, 32, 128 };
	const uint64_t *w = area;
	uint64_t words = size / 8, acc = 0;
	uint64_t *idx = malloc(nreads * sizeof(*idx));
	double best = 0;

	if (!idx)
		die("random-read indices", -12);
	for (size_t i = 0; i < nreads; i++)
		idx[i] = rnd() % words;
	for (unsigned v = 0; v < 3; v++) {
		size_t d = ahead[v], i = 0;
		double t0 = cpu_now(), t1;

		for (; i + 8 <= nreads; i += 8) {
			if (d && i + d + 8 <= nreads)
				for (unsigned j = 0; j < 8; j++)
					__builtin_prefetch(&w[idx[i + d + j]]);
			acc += w[idx[i]] + w[idx[i + 1]] + w[idx[i + 2]] +
			       w[idx[i + 3]] + w[idx[i + 4]] + w[idx[i + 5]] +
			       w[idx[i + 6]] + w[idx[i + 7]];
		}
		for (; i < nreads; i++)
			acc += w[idx[i]];
		t1 = cpu_now();
		if ((double)nreads / (t1 - t0) > best)
			best = (double)nreads / (t1 - t0);
	}
	sink += acc;
	free(idx);
	return best;
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

/* Keys per batched call: a request batch a query server would hand over;
 * its answers stay in the caches. */
enum { BATCH_KEYS = 4096 };

static void print_rows(const char *const *what, unsigned nrows,
		       const char *size, int large, const char *pages,
		       const unsigned *n_mem, double (*rate)[REPS],
		       const double *rr)
{
	for (unsigned k = 0; k < nrows; k++) {
		if (large)
			row_large(what[k], pages, n_mem[k], rate[k], rr);
		else
			row(what[k], size, med3(rate[k]), 1.0);
	}
}

static double rate_since(double t0, size_t n)
{
	return (double)n / (cpu_now() - t0);
}

static void bench_kw(unsigned log2_slots, size_t nkeys, const char *label,
		     int large)
{
	static const unsigned ns[] = { 1, 2, 4 };

	for (unsigned t = 0; t < 3; t++) {
		unsigned n = ns[t];
		struct dta_layout l;
		struct dta_region *r;
		uint8_t *keys = make_keys(nkeys, 13), data[20] = { 1 }, slot[32];
		uint8_t *out = malloc(BATCH_KEYS * 20);
		struct dta_kw_result *res = malloc(BATCH_KEYS * sizeof(*res));
		struct dta_kw_query_opts qo = { .redundancy = n };
		struct dta_memop ops[8];
		double rate[3][REPS], rr[REPS];
		char what[3][64], pages[32];
		const char *w[3] = { what[0], what[1], what[2] };
		const unsigned n_mem[3] = { n, n, n };
		int err;

		if (!out || !res)
			die("buffers", -12);
		err = dta_layout_kw(&l, 1ull << log2_slots, 20, 4, n,
				    DTA_HASH_CRC32C, 1);
		if (err)
			die("layout", err);
		r = region(&l);
		for (unsigned rep = 0; rep < REPS; rep++) {
			uint8_t *area = dta_region_data(r);
			double t0;

			if (large)
				rr[rep] = randread_rate(area, l.data_size, nkeys);
			t0 = cpu_now();
			for (size_t i = 0; i < nkeys; i++) {
				int k = dta_kw_ops(&l, keys + i * 13, 13, data, 20,
						   n, slot, sizeof(slot), ops, 8);

				dta_memops_apply(area, l.data_size, ops, (size_t)k);
			}
			rate[0][rep] = rate_since(t0, nkeys);

			t0 = cpu_now();
			for (size_t i = 0; i < nkeys; i++) {
				dta_kw_query(&l, area, keys + i * 13, 13, &qo, out,
					     20, &res[0]);
				sink += (uint64_t)res[0].status;
			}
			rate[1][rep] = rate_since(t0, nkeys);

			t0 = cpu_now();
			for (size_t i = 0; i < nkeys; i += BATCH_KEYS) {
				size_t c = nkeys - i < BATCH_KEYS ? nkeys - i
								  : BATCH_KEYS;

				dta_kw_query_batch(&l, area, keys + i * 13, 13, c,
						   &qo, out, BATCH_KEYS * 20, res);
				for (size_t j = 0; j < c; j++)
					sink += (uint64_t)res[j].status;
			}
			rate[2][rep] = rate_since(t0, nkeys);
		}
		snprintf(what[0], sizeof(what[0]), "Key-Write insert N=%u", n);
		snprintf(what[1], sizeof(what[1]), "Key-Write query N=%u", n);
		snprintf(what[2], sizeof(what[2]), "Key-Write query N=%u, batched",
			 n);
		print_rows(w, 3, label, large, page_label(r, pages, sizeof(pages)),
			   n_mem, rate, rr);
		dta_region_destroy(r);
		free(res);
		free(out);
		free(keys);
	}
}

static void bench_pc(unsigned log2_chunks, size_t nflows, const char *label,
		     int large)
{
	static const char *const what[3] = {
		"Postcarding insert (B=5, N=2)",
		"Postcarding query (B=5, N=2)",
		"Postcarding query, batched",
	};
	static const unsigned n_mem[3] = { 2, 2, 2 };
	struct dta_layout l;
	struct dta_region *r;
	struct dta_pc_codebook *cb;
	struct dta_pc_result *res = malloc(BATCH_KEYS * sizeof(*res));
	uint32_t values[1024], path[5];
	uint8_t *keys = make_keys(nflows, 13), chunk[64];
	struct dta_memop ops[8];
	double rate[3][REPS], rr[REPS];
	char pages[32];
	int err;

	if (!res)
		die("buffers", -12);
	for (unsigned i = 0; i < 1024; i++)
		values[i] = 100000 + i;
	err = dta_layout_pc(&l, 1ull << log2_chunks, 5, 4, 2, DTA_HASH_CRC32C, 1);
	if (err)
		die("layout", err);
	r = region(&l);
	err = dta_pc_codebook_create(&l, values, 1024, &cb);
	if (err)
		die("codebook", err);
	for (unsigned rep = 0; rep < REPS; rep++) {
		uint8_t *area = dta_region_data(r);
		double t0;

		if (large)
			rr[rep] = randread_rate(area, l.data_size, nflows);
		t0 = cpu_now();
		for (size_t i = 0; i < nflows; i++) {
			for (int h = 0; h < 5; h++)
				path[h] = values[(i * 7 + (size_t)h * 131) % 1024];
			int k = dta_pc_ops(&l, keys + i * 13, 13, path, 5, chunk,
					   sizeof(chunk), ops, 8);
			dta_memops_apply(area, l.data_size, ops, (size_t)k);
		}
		rate[0][rep] = rate_since(t0, nflows);

		t0 = cpu_now();
		for (size_t i = 0; i < nflows; i++) {
			dta_pc_query(&l, area, cb, keys + i * 13, 13, 0, &res[0]);
			sink += res[0].path_len;
		}
		rate[1][rep] = rate_since(t0, nflows);

		t0 = cpu_now();
		for (size_t i = 0; i < nflows; i += BATCH_KEYS) {
			size_t c = nflows - i < BATCH_KEYS ? nflows - i : BATCH_KEYS;

			dta_pc_query_batch(&l, area, cb, keys + i * 13, 13, c, 0,
					   res);
			for (size_t j = 0; j < c; j++)
				sink += res[j].path_len;
		}
		rate[2][rep] = rate_since(t0, nflows);
	}
	print_rows(what, 3, label, large, page_label(r, pages, sizeof(pages)),
		   n_mem, rate, rr);
	dta_pc_codebook_destroy(cb);
	dta_region_destroy(r);
	free(res);
	free(keys);
}

static void bench_ap_once(size_t entries, double *prod, double *cons)
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
	t0 = cpu_now();
	for (size_t i = 0; i < entries / K; i++) {
		int k = dta_ap_ops(&l, 0, &cur, batch, K, frame, sizeof(frame), ops, 2);

		dta_memops_apply(dta_region_data(r), l.data_size, ops, (size_t)k);
	}
	t1 = cpu_now();
	for (;;) {
		int n = dta_ap_read(rd, out, K * 64, &lost);

		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	t2 = cpu_now();
	if (got + lost != entries / K * K)
		fprintf(stderr, "bench_layouts: append read %llu of %zu\n",
			(unsigned long long)got, entries / K * K);
	*prod = (double)got / (t1 - t0);
	*cons = (double)got / (t2 - t1);
	dta_ap_reader_destroy(rd);
	dta_region_destroy(r);
}

static void bench_ap(size_t entries)
{
	double prod[REPS], cons[REPS];

	for (unsigned rep = 0; rep < REPS; rep++)
		bench_ap_once(entries, &prod[rep], &cons[rep]);
	row("Append produce (K=16, 16 B entries)", "ring", med3(prod), 1.0);
	row("Append consume (K=16, 16 B entries)", "ring", med3(cons), 1.0);
}

static void bench_ki(unsigned log2_width, size_t nkeys, const char *label,
		     int large)
{
	static const char *const what[3] = {
		"Key-Increment update (N=2)",
		"Key-Increment query (N=2)",
		"Key-Increment query, batched",
	};
	static const unsigned n_mem[3] = { 2, 2, 2 };
	struct dta_layout l;
	struct dta_region *r;
	uint8_t *keys = make_keys(nkeys, 13);
	uint64_t *vals = malloc(BATCH_KEYS * sizeof(*vals));
	struct dta_memop ops[8];
	double rate[3][REPS], rr[REPS];
	char pages[32];
	int err;

	if (!vals)
		die("buffers", -12);
	err = dta_layout_ki(&l, 1ull << log2_width, 2, 1, DTA_HASH_CRC32C, 1);
	if (err)
		die("layout", err);
	r = region(&l);
	for (unsigned rep = 0; rep < REPS; rep++) {
		uint8_t *area = dta_region_data(r);
		double t0;

		if (large)
			rr[rep] = randread_rate(area, l.data_size, nkeys);
		t0 = cpu_now();
		for (size_t i = 0; i < nkeys; i++) {
			int k = dta_ki_ops(&l, keys + i * 13, 13, 1, 0, ops, 8);

			dta_memops_apply(area, l.data_size, ops, (size_t)k);
		}
		rate[0][rep] = rate_since(t0, nkeys);

		t0 = cpu_now();
		for (size_t i = 0; i < nkeys; i++) {
			uint64_t v;

			dta_ki_query(&l, area, keys + i * 13, 13, 0, &v);
			sink += v;
		}
		rate[1][rep] = rate_since(t0, nkeys);

		t0 = cpu_now();
		for (size_t i = 0; i < nkeys; i += BATCH_KEYS) {
			size_t c = nkeys - i < BATCH_KEYS ? nkeys - i : BATCH_KEYS;

			dta_ki_query_batch(&l, area, keys + i * 13, 13, c, 0, vals);
			for (size_t j = 0; j < c; j++)
				sink += vals[j];
		}
		rate[2][rep] = rate_since(t0, nkeys);
	}
	print_rows(what, 3, label, large, page_label(r, pages, sizeof(pages)),
		   n_mem, rate, rr);
	dta_region_destroy(r);
	free(vals);
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
		{ "pages", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t nops = 2000000;
	unsigned large = 26;
	int pages = PG_BOTH, c;

	while ((c = getopt_long(argc, argv, "n:L:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			nops = strtoull(optarg, NULL, 0);
			break;
		case 'L':
			large = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			if (!strcmp(optarg, "4k"))
				pages = PG_4K;
			else if (!strcmp(optarg, "2m"))
				pages = PG_2M;
			else if (!strcmp(optarg, "both"))
				pages = PG_BOTH;
			else
				pages = 0;
			break;
		case 'h':
			printf("Usage: bench_layouts [--ops N] [--large-log2 K] [--pages 4k|2m|both]\n"
			       "  --ops N         operations per measurement (default 2000000)\n"
			       "  --large-log2 K  slots/chunks/counters of the large\n"
			       "                  structures = 2^K (default 26: 1.5 GiB of\n"
			       "                  Key-Write slots)\n"
			       "  --pages P       pages of the large structures: 4k\n"
			       "                  (MADV_NOHUGEPAGE), 2m (MADV_HUGEPAGE,\n"
			       "                  transparent huge pages) or both (default)\n"
			       "Small structures have 2^14 slots (fit in L2). Rates are per\n"
			       "CPU-second of the measuring thread, medians of 3 runs. Large\n"
			       "rows also print R, random 8-byte reads/s on the structure's\n"
			       "own memory, and their share of R / N (N slots, chunks or\n"
			       "counters touched per operation).\n");
			return 0;
		default:
			return 2;
		}
	}
	if (nops < 1000 || large < 15 || large > 32 || !pages) {
		fprintf(stderr, "bench_layouts: option out of range\n");
		return 2;
	}
	printf("libdta %s, one core, CRC-32C family (hardware CRC: %s)\n",
	       DTA_VERSION_STRING, dta_crc32c_hw_available() ? "yes" : "no");
	printf("M ops per CPU-second of this thread, median of %d runs; large rows:\n"
	       "pages, R = random 8-byte reads/s (M) on the same memory, share of R/N\n",
	       REPS);
	printf("%-34s %-8s %10s  %11s  %-6s %7s %6s\n", "operation", "size",
	       "rate", "latency", "pages", "R", "share");
	bench_hash(nops);
	bench_kw(14, nops, "2^14", 0);
	bench_pc(14, nops, "2^14", 0);
	bench_ap(nops);
	bench_ki(14, nops, "2^14", 0);
	for (int pg = PG_4K; pg <= PG_2M; pg <<= 1) {
		if (!(pages & pg))
			continue;
		page_advice = pg;
		bench_kw(large, nops, "large", 1);
		bench_pc(large - 1, nops, "large", 1);
		bench_ki(large, nops, "large", 1);
	}
	return 0;
}
