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
#include "bench.h"

enum { REPS = 3 };

/* Page advice for the structures being created (--pages). */
enum { PG_4K = 1, PG_2M = 2, PG_BOTH = 3 };
static int page_advice = PG_2M;

static uint64_t rng_state = 1;

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
		idx[i] = bench_rnd(&rng_state) % words;
	for (unsigned v = 0; v < 3; v++) {
		size_t d = ahead[v], i = 0;
		double t0 = bench_cpu_s(), t1;

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
		t1 = bench_cpu_s();
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
		k[i] = (uint8_t)bench_rnd(&rng_state);
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
	return (double)n / (bench_cpu_s() - t0);
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
			t0 = bench_cpu_s();
			for (size_t i = 0; i < nkeys; i++) {
				int k = dta_kw_ops(&l, keys + i * 13, 13, data, 20,
						   n, slot, sizeof(slot), ops, 8);

				dta_memops_apply(area, l.data_size, ops, (size_t)k);
			}
			rate[0][rep] = rate_since(t0, nkeys);

			t0 = bench_cpu_s();
			for (size_t i = 0; i < nkeys; i++) {
				dta_kw_query(&l, area, keys + i * 13, 13, &qo, out,
					     20, &res[0]);
				sink += (uint64_t)res[0].status;
			}
			rate[1][rep] = rate_since(t0, nkeys);

			t0 = bench_cpu_s();
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
		t0 = bench_cpu_s();
		for (size_t i = 0; i < nflows; i++) {
			for (int h = 0; h < 5; h++)
				path[h] = values[(i * 7 + (size_t)h * 131) % 1024];
			int k = dta_pc_ops(&l, keys + i * 13, 13, path, 5, chunk,
					   sizeof(chunk), ops, 8);
			dta_memops_apply(area, l.data_size, ops, (size_t)k);
		}
		rate[0][rep] = rate_since(t0, nflows);

		t0 = bench_cpu_s();
		for (size_t i = 0; i < nflows; i++) {
			dta_pc_query(&l, area, cb, keys + i * 13, 13, 0, &res[0]);
			sink += res[0].path_len;
		}
		rate[1][rep] = rate_since(t0, nflows);

		t0 = bench_cpu_s();
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
	t0 = bench_cpu_s();
	for (size_t i = 0; i < entries / K; i++) {
		int k = dta_ap_ops(&l, 0, &cur, batch, K, frame, sizeof(frame), ops, 2);

		dta_memops_apply(dta_region_data(r), l.data_size, ops, (size_t)k);
	}
	t1 = bench_cpu_s();
	for (;;) {
		int n = dta_ap_read(rd, out, K * 64, &lost);

		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	t2 = bench_cpu_s();
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
		t0 = bench_cpu_s();
		for (size_t i = 0; i < nkeys; i++) {
			int k = dta_ki_ops(&l, keys + i * 13, 13, 1, 0, ops, 8);

			dta_memops_apply(area, l.data_size, ops, (size_t)k);
		}
		rate[0][rep] = rate_since(t0, nkeys);

		t0 = bench_cpu_s();
		for (size_t i = 0; i < nkeys; i++) {
			uint64_t v;

			dta_ki_query(&l, area, keys + i * 13, 13, 0, &v);
			sink += v;
		}
		rate[1][rep] = rate_since(t0, nkeys);

		t0 = bench_cpu_s();
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

/* ---- hashing (issue 13): every role against the bare CRC32C instruction ---- */

int dta__hashfn_eval_path(const struct dta_hashfn *fn, int path,
			  const void *buf, size_t len, uint64_t *out);

enum { HB_KEYS = 1 << 16, HB_LEN = 13 }; /* 832 KiB of keys: in L2 */

static double hb_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#if defined(__x86_64__)
#include <nmmintrin.h>
/* The reference: crc32 u64 + u32 + u8 per 13-byte key, inlined, keys
 * independent, results summed so nothing is optimised away. */
__attribute__((target("sse4.2"))) static uint64_t hb_insn(const uint8_t *keys)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < HB_KEYS; i++) {
		const uint8_t *k = keys + i * HB_LEN;
		uint64_t a, c;
		uint32_t b;

		memcpy(&a, k, 8);
		memcpy(&b, k + 8, 4);
		c = _mm_crc32_u64(0xFFFFFFFFu, a);
		c = _mm_crc32_u32((uint32_t)c, b);
		c = _mm_crc32_u8((uint32_t)c, k[12]);
		acc += c;
	}
	return acc;
}

#include <immintrin.h>
/* The ceiling of a carry-less CRC of any polynomial on one key at a time:
 * the three dependent products of a 13-byte key, inlined, no call (any
 * constants do for timing). */
__attribute__((target("pclmul,sse4.1"))) static uint64_t
hb_clmul(const uint8_t *keys)
{
	const __m128i kr = _mm_set_epi64x(0x5A5A5A5A5A5A5A5Bll, 0x1F0F0F0F1ll);
	const __m128i kp = _mm_set_epi64x(0, 0x1E0E0E0E1ll);
	uint64_t acc = 0;

	for (size_t i = 0; i < HB_KEYS; i++) {
		const uint8_t *k = keys + i * HB_LEN;
		uint64_t lo, hi;
		__m128i s, q;

		memcpy(&lo, k, 8);
		memcpy(&hi, k + 5, 8);
		lo = (lo ^ 0xFFFFFFFFu) << 24;
		s = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)lo), kr, 0x00);
		s = _mm_xor_si128(s, _mm_cvtsi64_si128((long long)hi));
		q = _mm_clmulepi64_si128(s, kr, 0x10);
		q = _mm_xor_si128(s, _mm_slli_epi64(q, 1));
		q = _mm_clmulepi64_si128(q, kp, 0x00);
		acc += (uint32_t)_mm_extract_epi32(_mm_xor_si128(q, s), 2);
	}
	return acc;
}
#else
static uint64_t hb_insn(const uint8_t *keys)
{
	(void)keys;
	return 0;
}

static uint64_t hb_clmul(const uint8_t *keys)
{
	(void)keys;
	return 0;
}
#endif

enum hb_how { HB_INSN, HB_CLMUL, HB_EVAL, HB_EVAL_N, HB_EVAL_32, HB_TABLE, HB_CRC32 };

/* One pass over the keys; returns a sum of the results. */
static uint64_t hb_pass(enum hb_how how, const struct dta_hashfn *fn,
			const uint8_t *keys, uint64_t *out)
{
	uint64_t acc = 0, v;

	switch (how) {
	case HB_INSN:
		return hb_insn(keys);
	case HB_CLMUL:
		return hb_clmul(keys);
	case HB_EVAL:
		for (size_t i = 0; i < HB_KEYS; i++)
			acc += dta_hashfn_eval(fn, keys + i * HB_LEN, HB_LEN);
		return acc;
	case HB_EVAL_N:
		dta_hashfn_eval_n(fn, keys, HB_LEN, HB_LEN, HB_KEYS, out);
		for (size_t i = 0; i < HB_KEYS; i++)
			acc += out[i];
		return acc;
	case HB_EVAL_32: /* batches the size of a receive batch */
		for (size_t i = 0; i < HB_KEYS; i += 32) {
			dta_hashfn_eval_n(fn, keys + i * HB_LEN, HB_LEN, HB_LEN, 32, out);
			for (size_t j = 0; j < 32; j++)
				acc += out[j];
		}
		return acc;
	case HB_TABLE:
		for (size_t i = 0; i < HB_KEYS; i++) {
			dta__hashfn_eval_path(fn, 0, keys + i * HB_LEN, HB_LEN, &v);
			acc += v;
		}
		return acc;
	case HB_CRC32:
		for (size_t i = 0; i < HB_KEYS; i++)
			acc += dta_crc32(0, keys + i * HB_LEN, HB_LEN);
		return acc;
	}
	return 0;
}

static int hb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of 5 rates, keys per CPU-second of this thread; each measurement
 * runs at least @nops keys and 40 ms, so that a burst of steal time or an
 * interrupt on this shared machine moves one measurement, not the row. */
static double hb_rate(enum hb_how how, const struct dta_hashfn *fn,
		      const uint8_t *keys, uint64_t *out, size_t nops)
{
	double r[5];

	for (int m = 0; m < 5; m++) {
		uint64_t acc = 0;
		size_t done = 0;
		double t0 = hb_cpu(), t1;

		do {
			acc += hb_pass(how, fn, keys, out);
			done += HB_KEYS;
			t1 = hb_cpu();
		} while (done < nops || t1 - t0 < 0.04);
		sink += acc;
		r[m] = (double)done / (t1 - t0);
	}
	qsort(r, 5, sizeof(r[0]), hb_cmp);
	return r[2];
}

static void hb_row(const char *what, double rate, double base)
{
	printf("hash %-41s %8.1f M/CPU-s  %5.1f%% of insn\n", what, rate / 1e6,
	       100 * rate / base);
}

/* 13-byte keys (an IPv4 5-tuple): what every insert and query pays per
 * copy before touching memory, as a share of the bare CRC32C instruction
 * measured in the same run (issue 13's goal: every role >= 50%).
 * Medians of 5. */
static void bench_hash(size_t nops)
{
	uint8_t *keys = make_keys(HB_KEYS, HB_LEN);
	uint64_t *out = malloc(HB_KEYS * sizeof(*out));
	struct dta_hashfn fn;
	double base, r, lo = 0, hi = 0;
	unsigned rlo = 0, rhi = 0;
	char what[64];
	int err;

	if (!out)
		die("keys", -12);
	if (!dta_crc32c_hw_available()) {
		printf("hash: no CRC32C instruction on this CPU, no reference\n");
		free(out);
		free(keys);
		return;
	}
	base = hb_rate(HB_INSN, NULL, keys, out, nops);
	hb_row("CRC32C instruction, bare (reference)", base, base);
#if defined(__x86_64__)
	if (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"))
		hb_row("PCLMULQDQ x3 per key, bare (ceiling)",
		       hb_rate(HB_CLMUL, NULL, keys, out, nops), base);
#endif
	for (unsigned role = 0; role < DTA_HF_COUNT; role++) {
		err = dta_hash_family_fn(DTA_HASH_CRC32C, 1, role, &fn);
		if (err)
			die("hash", err);
		r = hb_rate(HB_EVAL, &fn, keys, out, nops);
		snprintf(what, sizeof(what), "crc32c family role %2u, poly %08x", role,
			 (unsigned)fn.poly);
		hb_row(what, r, base);
		if (role > 0 && (!lo || r < lo)) {
			lo = r;
			rlo = role;
		}
		if (role > 0 && r > hi) {
			hi = r;
			rhi = role;
		}
	}
	snprintf(what, sizeof(what), "crc32c family min roles 1..25 (%u)", rlo);
	hb_row(what, lo, base);
	snprintf(what, sizeof(what), "crc32c family max roles 1..25 (%u)", rhi);
	hb_row(what, hi, base);
	for (unsigned role = 0; role < 2; role++) {
		dta_hash_family_fn(DTA_HASH_CRC32C, 1, role, &fn);
		snprintf(what, sizeof(what), "crc32c family role %u, eval_n 65536 keys", role);
		hb_row(what, hb_rate(HB_EVAL_N, &fn, keys, out, nops), base);
		snprintf(what, sizeof(what), "crc32c family role %u, eval_n 32 keys", role);
		hb_row(what, hb_rate(HB_EVAL_32, &fn, keys, out, nops), base);
		snprintf(what, sizeof(what), "crc32c family role %u, old table path", role);
		hb_row(what, hb_rate(HB_TABLE, &fn, keys, out, nops), base);
	}
	lo = hi = 0;
	for (unsigned role = 0; role < DTA_HF_COUNT; role++) {
		dta_hash_family_fn(DTA_HASH_CRC32C, 1, role, &fn);
		r = hb_rate(HB_EVAL_32, &fn, keys, out, nops);
		if (!lo || r < lo) {
			lo = r;
			rlo = role;
		}
		if (r > hi) {
			hi = r;
			rhi = role;
		}
	}
	snprintf(what, sizeof(what), "crc32c family eval_n 32, min roles (%u)", rlo);
	hb_row(what, lo, base);
	snprintf(what, sizeof(what), "crc32c family eval_n 32, max roles (%u)", rhi);
	hb_row(what, hi, base);
	hb_row("crc32 dta_crc32() (IEEE)", hb_rate(HB_CRC32, NULL, keys, out, nops),
	       base);
	dta_hash_family_fn(DTA_HASH_CRC32, 1, 0, &fn);
	hb_row("crc32 family role 0 (IEEE)", hb_rate(HB_EVAL, &fn, keys, out, nops),
	       base);
	dta_hash_family_fn(DTA_HASH_XXH3, 1, 0, &fn);
	hb_row("xxh3 family role 0 (XXH3-64)", hb_rate(HB_EVAL, &fn, keys, out, nops),
	       base);
	free(out);
	free(keys);
}

/* Which rows to run (--only). */
enum {
	ONLY_HASH = 1, ONLY_KW = 2, ONLY_PC = 4, ONLY_AP = 8, ONLY_KI = 16,
	ONLY_SMALL = 32, ONLY_LARGE = 64, ONLY_ALL = 127,
};

/* "kw,large" -> ONLY_KW | ONLY_LARGE; a list naming no structure runs all
 * of them, one naming no size runs both; 0 for an unknown name. */
static unsigned parse_only(const char *list)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{ "hash", ONLY_HASH }, { "kw", ONLY_KW }, { "pc", ONLY_PC },
		{ "ap", ONLY_AP },     { "ki", ONLY_KI }, { "small", ONLY_SMALL },
		{ "large", ONLY_LARGE },
	};
	const unsigned what = ONLY_HASH | ONLY_KW | ONLY_PC | ONLY_AP | ONLY_KI;
	unsigned bits = 0;

	while (*list) {
		size_t len = strcspn(list, ",");
		unsigned b = 0;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len &&
			    !strncmp(names[i].name, list, len))
				b = names[i].bit;
		if (!b)
			return 0;
		bits |= b;
		list += len + (list[len] == ',');
	}
	if (!(bits & what))
		bits |= what;
	if (!(bits & (ONLY_SMALL | ONLY_LARGE)))
		bits |= ONLY_SMALL | ONLY_LARGE;
	return bits;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ops", required_argument, NULL, 'n' },
		{ "large-log2", required_argument, NULL, 'L' },
		{ "pages", required_argument, NULL, 'p' },
		{ "only", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t nops = 2000000;
	unsigned large = 26;
	int pages = PG_BOTH, c;
	unsigned only = ONLY_ALL;

	while ((c = getopt_long(argc, argv, "n:L:p:o:h", lo, NULL)) != -1) {
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
		case 'o':
			only = parse_only(optarg);
			break;
		case 'h':
			printf("Usage: bench_layouts [--ops N] [--large-log2 K] [--pages 4k|2m|both]\n"
			       "                     [--only LIST]\n"
			       "  --ops N         operations per measurement (default 2000000)\n"
			       "  --large-log2 K  slots/chunks/counters of the large\n"
			       "                  structures = 2^K (default 26: 1.5 GiB of\n"
			       "                  Key-Write slots)\n"
			       "  --pages P       pages of the large structures: 4k\n"
			       "                  (MADV_NOHUGEPAGE), 2m (MADV_HUGEPAGE,\n"
			       "                  transparent huge pages) or both (default)\n"
			       "  --only LIST     comma-separated rows to run: hash, kw, pc,\n"
			       "                  ap, ki, small, large (default: all)\n"
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
	if (nops < 1000 || large < 15 || large > 32 || !pages || !only) {
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
	if (only & ONLY_HASH)
		bench_hash(nops);
	if (only & ONLY_SMALL) {
		if (only & ONLY_KW)
			bench_kw(14, nops, "2^14", 0);
		if (only & ONLY_PC)
			bench_pc(14, nops, "2^14", 0);
		if (only & ONLY_AP)
			bench_ap(nops);
		if (only & ONLY_KI)
			bench_ki(14, nops, "2^14", 0);
	}
	for (int pg = PG_4K; pg <= PG_2M && (only & ONLY_LARGE); pg <<= 1) {
		if (!(pages & pg))
			continue;
		page_advice = pg;
		if (only & ONLY_KW)
			bench_kw(large, nops, "large", 1);
		if (only & ONLY_PC)
			bench_pc(large - 1, nops, "large", 1);
		if (only & ONLY_KI)
			bench_ki(large, nops, "large", 1);
	}
	return 0;
}
