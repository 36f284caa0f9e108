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
