/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_touch: the first pass of a fresh translator over a collector's
 * structure against its warm second pass, with and without populating
 * the mapping at open (DTA_REGION_POPULATE).
 *
 * Per round and mode the parent creates a Key-Write region as
 * dta-collector does (shared memory, DTA_REGION_HUGE | DTA_REGION_EXCL,
 * mode 0600: /dev/shm, or hugetlbfs when mounted with pages free; a
 * huge-page tmpfs mounted over /dev/shm in a private mount namespace
 * gives shmem THP; in mode coll+populate with DTA_REGION_POPULATE, as
 * dta-collector now does), never touching its data, and a fresh process
 * (fork) opens it for writing as dta-translator's open_target() does
 * (DTA_REGION_POPULATE but in mode lazy), then writes three
 * passes of Key-Write reports (N = 2, 13-byte keys, 20-byte
 * data, keys = slots / 4 as in bench_translator; -r reports per payload)
 * through the translator core, 64 payloads per dta_translator_process_batch()
 * call, into a sink that brackets writes with the region's writer guard
 * and prefetches, as dta-translator's shared-memory sink does. Pass 2
 * ("warm") writes other keys of the same key space, so it touches every
 * page pass 1 did but finds in the cache only what chance leaves there;
 * pass 3 ("rep") repeats pass 1's keys in their order, which on a machine
 * whose cache holds a good part of the structure runs faster for that
 * alone. Sequence numbers continue from pass to pass.
 *
 * Printed per mode (medians of the rounds): the open's CPU time (almost
 * all of it populating) and wall time, each pass's reports per CPU-second
 * of the writing thread with its minor faults (getrusage, RUSAGE_THREAD),
 * first / warm, and first / warm with the open's CPU time counted in the
 * first pass. The page size the writer's mapping got is read from
 * /proc/self/smaps (ShmemPmdMapped / FilePmdMapped: 2 MiB mappings).
 *
 *   bench_touch [-s LOG2_SLOTS]... [-n REPORTS] [-r PER] [-m ROUNDS]
 *
 * Sizes that do not fit in MemAvailable (less 2 GiB for everyone else)
 * are skipped, and the skip is printed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dta/dta.h"
#include "bench.h"

#define ROUNDS_MAX 15
#define BATCH 64
#define NM 3

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_touch: %s: %s\n", what, dta_strerror(err));
	exit(1);
}

/* ---- workload ---- */

struct payloads {
	size_t n, slot;
	uint8_t *buf;
	uint16_t *len;
};

#define REPORTERS 8

static void key13(uint8_t *k, uint64_t i)
{
	memset(k, 0, 13);
	k[0] = 10;
	k[1] = (uint8_t)(i >> 16);
	k[2] = (uint8_t)(i >> 8);
	k[3] = (uint8_t)i;
	k[4] = 10;
	k[5] = 200;
	k[8] = (uint8_t)(i >> 24);
	k[12] = 6;
}

/* @n Key-Write reports over @keys keys, @per a payload, from the seeded
 * generator *@rng; sequence numbers continue from @seq. */
static void make(struct payloads *p, size_t n, uint64_t keys, unsigned per,
		 uint64_t rng, uint32_t *seq)
{
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE };
	uint8_t key[13], data[20];

	p->n = n / per;
	p->slot = 64 * (size_t)per + 32;
	p->buf = malloc(p->n * p->slot);
	p->len = calloc(p->n, sizeof(*p->len));
	if (!p->buf || !p->len)
		die("payloads", -ENOMEM);
	for (size_t i = 0; i < p->n * per; i++) {
		size_t pl = i / per;
		int len;

		r.reporter = (uint16_t)(1 + pl % REPORTERS);
		r.seq = seq[pl % REPORTERS]++;
		key13(key, bench_rnd(&rng) % keys);
		for (int j = 0; j < 20; j++)
			data[j] = (uint8_t)(key[3] + j);
		r.u.kw.redundancy = 2;
		r.u.kw.key_len = 13;
		r.u.kw.key = key;
		r.u.kw.data_len = 20;
		r.u.kw.data = data;
		len = dta_wire_encode(&r, p->buf + pl * p->slot + p->len[pl],
				      p->slot - p->len[pl]);
		if (len < 0)
			die("encode", len);
		p->len[pl] = (uint16_t)(p->len[pl] + len);
	}
}

/* ---- the writer: a fresh process, as a translator starting ---- */

struct side {
	struct dta_region *r;
	void *area;
	uint64_t size;
	int in_batch, entered;
};

static int sink_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		       size_t n)
{
	struct side *d = ctx;
	int k, err;

	(void)s;
	if (!d->entered) {
		if ((err = dta_region_enter(d->r)))
			return err;
		d->entered = d->in_batch;
	}
	k = dta_memops_apply(d->area, d->size, ops, n);
	if (!d->in_batch)
		dta_region_leave(d->r);
	return k < 0 ? k : 0;
}

static void sink_prefetch(void *ctx, unsigned s, uint64_t off, uint32_t len)
{
	struct side *d = ctx;
	const uint8_t *p = (const uint8_t *)d->area + off;

	(void)s;
	__builtin_prefetch(p, 1);
	if (((uintptr_t)p & 63) + len > 64)
		__builtin_prefetch(p + len - 1, 1);
}

static void sink_begin(void *ctx)
{
	((struct side *)ctx)->in_batch = 1;
}

static void sink_end(void *ctx)
{
	struct side *d = ctx;

	if (d->entered)
		dta_region_leave(d->r);
	d->in_batch = d->entered = 0;
}

/* What one fresh writer measured. */
struct result {
	int ok;
	double create_cpu;          /* the collector's, seconds */
	double open_cpu, open_wall; /* seconds */
	long open_flt;
	double cpu[3], user[3], sys[3]; /* per pass, seconds */
	long flt[3];
	uint64_t pmd_kb, map_kb;   /* smaps of the mapping after pass 1 */
	uint64_t applied;
};

static void thread_usage(double *user, double *sys, long *flt)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	*flt = ru.ru_minflt;
}

/* Size of the mapping holding @p and how much of it is mapped with PMDs
 * (2 MiB pages), kB; 0 / 0 when unknown. */
static void smaps_pmd(const void *p, uint64_t *map_kb, uint64_t *pmd_kb)
{
	char line[256];
	unsigned long lo, hi;
	unsigned long long kb;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	*map_kb = *pmd_kb = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			if (in)
				*map_kb = (hi - lo) / 1024;
		} else if (in && (sscanf(line, "ShmemPmdMapped: %llu kB", &kb) == 1 ||
				  sscanf(line, "FilePmdMapped: %llu kB", &kb) == 1)) {
			*pmd_kb += kb;
		}
	}
	fclose(f);
}

static void writer(const char *name, const struct dta_layout *l,
		   const struct payloads pass[3], unsigned flags,
		   struct result *res)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_SHM,
				     .path = name, .mode = 0600, .flags = flags };
	struct side d = { 0 };
	struct dta_sink sink = { .submit = sink_submit, .ctx = &d,
				 .prefetch = sink_prefetch,
				 .batch_begin = sink_begin,
				 .batch_end = sink_end };
	struct dta_translator_opts to = { .sz = sizeof(to) };
	struct dta_translator *t;
	struct dta_translator_stats st;
	struct dta_payload pl[BATCH];
	double c0, w0, u0, s0, u1, s1;
	long f0, f1;
	int err;

	thread_usage(&u0, &s0, &f0);
	c0 = bench_cpu_s();
	w0 = bench_clock_s(CLOCK_MONOTONIC);
	if ((err = dta_region_open(&o, &d.r)))
		die("open", err);
	res->open_cpu = bench_cpu_s() - c0;
	res->open_wall = bench_clock_s(CLOCK_MONOTONIC) - w0;
	thread_usage(&u1, &s1, &f1);
	res->open_flt = f1 - f0;
	d.area = dta_region_data(d.r);
	d.size = dta_region_data_size(d.r);
	if ((err = dta_translator_create(&to, &sink, &t)))
		die("translator", err);
	if ((err = dta_translator_add(t, l, 0)) < 0)
		die("add", err);
	for (int k = 0; k < 3; k++) {
		const struct payloads *p = &pass[k];

		thread_usage(&u0, &s0, &f0);
		c0 = bench_cpu_s();
		for (size_t j = 0; j < p->n; j += BATCH) {
			size_t m = 0;

			for (; m < BATCH && j + m < p->n; m++) {
				pl[m].buf = p->buf + (j + m) * p->slot;
				pl[m].len = p->len[j + m];
			}
			dta_translator_process_batch(t, pl, m, j * 100);
		}
		dta_translator_flush(t);
		res->cpu[k] = bench_cpu_s() - c0;
		thread_usage(&u1, &s1, &f1);
		res->user[k] = u1 - u0;
		res->sys[k] = s1 - s0;
		res->flt[k] = f1 - f0;
		if (k == 0)
			smaps_pmd(d.area, &res->map_kb, &res->pmd_kb);
	}
	dta_translator_stats(t, &st);
	res->applied = st.reports[DTA_OP_KEY_WRITE];
	dta_translator_destroy(t);
	dta_region_destroy(d.r);
	res->ok = 1;
}

/* ---- the parent: the collector's region, and the rounds ---- */

static uint64_t mem_available(void)
{
	char line[128];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

static double med(double *v, unsigned n)
{
	return bench_median(v, n);
}

static void run_size(unsigned log2_slots, size_t n, unsigned per,
		     unsigned rounds)
{
	/* Each writer is the first of a region the collector just made:
	 * tmpfs zeroes a page at its first fault, not at fallocate, so the
	 * first writer pays that too unless the collector populated. */
	static const struct {
		const char *name;
		unsigned coll, writer;
	} mode[] = {
		{ "lazy", 0, 0 },
		{ "populate", 0, DTA_REGION_POPULATE },
		{ "coll+populate", DTA_REGION_POPULATE, DTA_REGION_POPULATE },
	};
	uint64_t slots = 1ull << log2_slots, keys = slots / 4, avail;
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_SHM,
				     .flags = DTA_REGION_HUGE | DTA_REGION_EXCL |
					      DTA_REGION_UNLINK,
				     .mode = 0600 };
	struct dta_region *coll;
	uint64_t page = 0;
	struct dta_layout l;
	struct payloads pass[3];
	struct result *res;
	uint32_t seq[REPORTERS] = { 0 };
	char name[64];
	int err;

	if ((err = dta_layout_kw(&l, slots, 20, 4, 2, DTA_HASH_CRC32C, 1)))
		die("layout", err);
	avail = mem_available();
	if (l.data_size + (2ull << 30) > avail) {
		printf("2^%u slots: %.2f GiB region, MemAvailable %.2f GiB (2 "
		       "GiB kept for others): skipped\n\n", log2_slots,
		       (double)l.data_size / (1 << 30), (double)avail / (1 << 30));
		return;
	}
	snprintf(name, sizeof(name), "/dta-bench-touch-%d", (int)getpid());
	o.path = name;
	make(&pass[0], n, keys, per, 42, seq);
	/* Pass 2: other keys of the same key space (every page again, but
	 * not the lines pass 1 left in the cache in the order it left
	 * them), the sequence numbers continuing. */
	make(&pass[1], n, keys, per, 43, seq);
	/* Pass 3: pass 1's keys in pass 1's order again, for comparison:
	 * what a cache as large as this machine's gains from that. */
	make(&pass[2], n, keys, per, 42, seq);
	res = mmap(NULL, sizeof(*res) * NM * ROUNDS_MAX, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		die("results", -errno);
	memset(res, 0, sizeof(*res) * NM * ROUNDS_MAX);
	for (unsigned k = 0; k < rounds; k++) {
		for (unsigned m = 0; m < NM; m++) {
			struct result *x = &res[k * NM + m];
			double c0 = bench_cpu_s();
			pid_t pid;
			int ws;

			o.flags = DTA_REGION_HUGE | DTA_REGION_EXCL |
				  DTA_REGION_UNLINK | mode[m].coll;
			if ((err = dta_region_create(&l, &o, &coll)))
				die("region", err);
			x->create_cpu = bench_cpu_s() - c0;
			page = dta_region_page_size(coll);
			fflush(stdout);
			pid = fork();
			if (pid < 0)
				die("fork", -errno);
			if (pid == 0) {
				writer(name, &l, pass, mode[m].writer, x);
				_exit(0);
			}
			if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) ||
			    WEXITSTATUS(ws) || !x->ok)
				die("writer", -ECHILD);
			dta_region_destroy(coll);
		}
	}
	printf("2^%u slots (%.2f GiB, %s region page %llu B), %zu reports a "
	       "pass, %u per payload, %u round%s\n", log2_slots,
	       (double)l.data_size / (1 << 30), name,
	       (unsigned long long)page, n, per, rounds,
	       rounds == 1 ? "" : "s");
	printf("%-14s %9s | %9s %9s %8s | %8s %6s %6s %9s | %8s %8s | %8s | %6s %6s "
	       "%5s\n", "writer", "create", "open-cpu", "open-wall", "open-flt",
	       "1st M/s", "user", "sys", "1st-flt", "warm M/s", "warm-flt",
	       "rep M/s", "1st/wm", "+open", "2MiB");
	for (unsigned m = 0; m < NM; m++) {
		double cc[ROUNDS_MAX], oc[ROUNDS_MAX], ow[ROUNDS_MAX], r1[ROUNDS_MAX],
			r2[ROUNDS_MAX], r3[ROUNDS_MAX], q[ROUNDS_MAX],
			qo[ROUNDS_MAX], us[ROUNDS_MAX], sy[ROUNDS_MAX],
			of[ROUNDS_MAX], f1[ROUNDS_MAX], f2[ROUNDS_MAX],
			pmd[ROUNDS_MAX];
		char each[16 * ROUNDS_MAX] = "";

		for (unsigned k = 0; k < rounds; k++) {
			const struct result *x = &res[k * NM + m];
			double reports = (double)(pass[0].n * per);
			size_t at = strlen(each);

			cc[k] = x->create_cpu * 1e3;
			oc[k] = x->open_cpu * 1e3;
			ow[k] = x->open_wall * 1e3;
			r1[k] = reports / x->cpu[0];
			r2[k] = reports / x->cpu[1];
			r3[k] = reports / x->cpu[2];
			q[k] = x->cpu[1] / x->cpu[0];
			qo[k] = x->cpu[1] / (x->cpu[0] + x->open_cpu);
			us[k] = x->user[0];
			sy[k] = x->sys[0];
			of[k] = (double)x->open_flt;
			f1[k] = (double)x->flt[0];
			f2[k] = (double)x->flt[1];
			pmd[k] = x->map_kb ? 100.0 * (double)x->pmd_kb /
						     (double)x->map_kb : 0;
			snprintf(each + at, sizeof(each) - at, " %.2f", q[k]);
		}
		printf("%-14s %7.1fms | %7.1fms %7.1fms %8.0f | %8.2f %5.2fs %5.2fs %9.0f | "
		       "%8.2f %8.0f | %8.2f | %5.2fx %5.2fx %4.0f%%   (1st/wm:%s)\n",
		       mode[m].name, med(cc, rounds), med(oc, rounds), med(ow, rounds),
		       med(of, rounds), med(r1, rounds) / 1e6, med(us, rounds),
		       med(sy, rounds), med(f1, rounds), med(r2, rounds) / 1e6,
		       med(f2, rounds), med(r3, rounds) / 1e6, med(q, rounds),
		       med(qo, rounds), med(pmd, rounds), each);
	}
	printf("(reports applied by the last writer over its three passes: "
	       "%llu of %zu)\n\n",
	       (unsigned long long)res[(rounds - 1) * NM + 1].applied,
	       3 * pass[0].n * per);
	munmap(res, sizeof(*res) * NM * ROUNDS_MAX);
	for (int k = 0; k < 3; k++) {
		free(pass[k].buf);
		free(pass[k].len);
	}
}

int main(int argc, char **argv)
{
	unsigned sizes[8], nsizes = 0, per = 8, rounds = 3;
	size_t n = 2000000;
	int c;

	while ((c = getopt(argc, argv, "s:n:r:m:h")) != -1) {
		switch (c) {
		case 's':
			if (nsizes < 8)
				sizes[nsizes++] = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'r': per = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'm': rounds = (unsigned)strtoul(optarg, NULL, 0); break;
		default:
			printf("Usage: bench_touch [-s LOG2_SLOTS]... [-n REPORTS] "
			       "[-r PER] [-m ROUNDS]\n"
			       "  -s  structure of 2^S Key-Write slots, repeatable "
			       "(default 26)\n"
			       "  -n  reports per pass (default 2000000)\n"
			       "  -r  reports per payload, 1..128 (default 8)\n"
			       "  -m  rounds (fresh writers per mode), medians "
			       "printed (default 3)\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!nsizes)
		sizes[nsizes++] = 26;
	if (n < 1000 || per < 1 || per > 128 || rounds < 1 || rounds > ROUNDS_MAX)
		die("arguments", -EINVAL);
	for (unsigned i = 0; i < nsizes; i++)
		if (sizes[i] < 10 || sizes[i] > 32)
			die("arguments", -EINVAL);
	printf("bench_touch: libdta %s; M reports per CPU-second of the "
	       "writing thread; open = dta_region_open() in the fresh process "
	       "(populating, for 'populate');\ncreate = the collector's "
	       "dta_region_create() (CPU); warm = pass 2 (other keys), "
	       "rep = pass 3 (pass 1's keys again); 1st/wm = first rate over "
	       "warm; +open = the same with the open's CPU counted in pass 1; "
	       "2MiB = share of the mapping on PMDs\n\n", DTA_VERSION_STRING);
	for (unsigned i = 0; i < nsizes; i++)
		run_size(sizes[i], n, per, rounds);
	return 0;
}
