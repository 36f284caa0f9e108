/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_int: INT telemetry reports per CPU-second through the translator
 * core (decode, map, write into collector memory), side by side in one run
 * with DTA v1 reports doing the same writes.
 *
 * The workloads are pcap files (dta-gen -w: exactly the datagrams the e2e
 * tests send and verify), given as -i FILE (INT datagrams, to
 * dta_translator_process_int_batch()) or -d FILE (DTA datagrams, to
 * dta_translator_process_batch()). Structures and the INT map come from a
 * configuration file (-c, the format of docs/config.md with an [int]
 * section), each structure in its own shared-memory region written inside
 * the region's writer guard, as dta-translator's shm sink does
 * (bench_translator's sink). bench/int_rates.sh writes the workloads and
 * the configuration.
 *
 * A run gives every workload a fresh translator core and feeds it its
 * datagrams in batches of 64 (one recvmmsg's worth), then flushes; the
 * rate is reports (as counted by the core: reports_in for DTA, int_reports_in
 * for INT) per CPU-second of this thread. Runs interleave the workloads, so
 * a change in the machine's load touches all of them alike; each figure is
 * the median of -m runs, each ratio the median of the runs' ratios to the
 * reference workload (-R NAME, default the first given).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "dta/dta.h"
#include "bench.h"

#define BATCH 64
#define MAX_WORK 32
#define MAX_STRUCT 16

struct work {
	const char *name; /* the file's base name */
	int is_int;
	struct dta_payload *p;
	size_t n;          /* datagrams */
	uint8_t *bytes;
	double *rate;      /* per run */
	double *ratio;
	uint64_t reports, applied;
	uint64_t ops; /* memory operations handed to the sink */
};

struct mem {
	struct dta_region *r[MAX_STRUCT];
	void *area[MAX_STRUCT];
	uint64_t size[MAX_STRUCT];
	unsigned n;
	int in_batch;
	uint32_t entered; /* regions whose guard is held until batch_end */
};

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_int: %s: %s\n", what,
		err ? dta_strerror(err) : "failed");
	exit(1);
}

/* ---- the sink: as dta-translator's shm sink, per structure ---- */

static int sink_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		       size_t n)
{
	struct mem *m = ctx;
	int k, err;

	if (s >= m->n)
		return -EINVAL;
	if (!(m->entered & 1u << s)) {
		if ((err = dta_region_enter(m->r[s])))
			return err;
		if (m->in_batch)
			m->entered |= 1u << s;
	}
	k = dta_memops_apply(m->area[s], m->size[s], ops, n);
	if (!m->in_batch)
		dta_region_leave(m->r[s]);
	return k < 0 ? k : 0;
}

static void sink_prefetch(void *ctx, unsigned s, uint64_t off, uint32_t len)
{
	struct mem *m = ctx;
	const uint8_t *p;

	if (s >= m->n)
		return;
	p = (const uint8_t *)m->area[s] + off;
	__builtin_prefetch(p, 1);
	if (((uintptr_t)p & 63) + len > 64)
		__builtin_prefetch(p + len - 1, 1);
}

static void sink_begin(void *ctx)
{
	((struct mem *)ctx)->in_batch = 1;
}

static void sink_end(void *ctx)
{
	struct mem *m = ctx;

	for (unsigned s = 0; s < m->n; s++)
		if (m->entered & 1u << s)
			dta_region_leave(m->r[s]);
	m->entered = 0;
	m->in_batch = 0;
}

static void mem_create(struct mem *m, const struct dta_config *cfg)
{
	size_t n = dta_config_count(cfg);

	memset(m, 0, sizeof(*m));
	if (n > MAX_STRUCT)
		die("more structures than bench_int takes", -E2BIG);
	for (size_t i = 0; i < n; i++) {
		const struct dta_config_structure *cs = dta_config_structure(cfg, i);
		char name[64];
		struct dta_region_opts ro = {
			.sz = sizeof(ro), .backing = DTA_BACKING_SHM, .path = name,
			.flags = DTA_REGION_HUGE | DTA_REGION_UNLINK | DTA_REGION_EXCL,
		};
		int err;

		snprintf(name, sizeof(name), "/dta-bench-int-%d-%zu", (int)getpid(), i);
		if ((err = dta_region_create(&cs->layout, &ro, &m->r[i])))
			die("region", err);
		m->area[i] = dta_region_data(m->r[i]);
		m->size[i] = dta_region_data_size(m->r[i]);
		memset(m->area[i], 0, m->size[i]); /* fault the pages in */
		m->n++;
	}
}

static struct dta_translator *core_create(struct mem *m,
					  const struct dta_config *cfg)
{
	struct dta_sink sink = { .submit = sink_submit, .ctx = m,
				 .prefetch = sink_prefetch,
				 .batch_begin = sink_begin, .batch_end = sink_end };
	struct dta_translator *t;
	struct dta_int_map im;
	int err, idx[MAX_STRUCT];
	int *roles[] = { &im.path_kw, &im.path_pc, &im.hop_kw, &im.events_ap,
			 &im.flow_ki, &im.queue_ki };

	if ((err = dta_translator_create(NULL, &sink, &t)))
		die("translator", err);
	for (unsigned i = 0; i < m->n; i++) {
		const struct dta_config_structure *cs = dta_config_structure(cfg, i);

		if ((idx[i] = dta_translator_add(t, &cs->layout, cs->list_base)) < 0)
			die("add", idx[i]);
	}
	if ((err = dta_config_int_map(cfg, &im, NULL)) < 0)
		die("[int]", err);
	if (err > 0) {
		for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++)
			if (*roles[r] != DTA_INT_MAP_NONE)
				*roles[r] = idx[*roles[r]];
		if ((err = dta_translator_set_int_map(t, &im)))
			die("int map", err);
	}
	return t;
}

/* ---- workloads from pcap files ---- */

/* The UDP payload of an Ethernet frame (VLAN tags, IPv4 or IPv6 without
 * extension headers), or NULL. */
static const uint8_t *udp_payload(const uint8_t *f, size_t len, size_t *plen)
{
	size_t off = 12, l4;
	uint16_t type;

	if (len < 14)
		return NULL;
	type = (uint16_t)(f[12] << 8 | f[13]);
	while ((type == 0x8100 || type == 0x88a8) && len >= off + 6) {
		off += 4;
		type = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	off += 2;
	if (type == 0x0800 && len >= off + 20 && f[off + 9] == 17)
		l4 = off + (size_t)(f[off] & 0x0F) * 4;
	else if (type == 0x86DD && len >= off + 40 && f[off + 6] == 17)
		l4 = off + 40;
	else
		return NULL;
	if (len < l4 + 8)
		return NULL;
	*plen = len - l4 - 8;
	return f + l4 + 8;
}

static void work_load(struct work *w, const char *path, int is_int,
		      unsigned runs)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t cap = 0, used = 0, ncap = 0;
	size_t *off = NULL;
	const char *slash = strrchr(path, '/');
	int rc;

	if (!pc) {
		fprintf(stderr, "bench_int: %s: %s\n", path, err);
		exit(1);
	}
	memset(w, 0, sizeof(*w));
	w->name = slash ? slash + 1 : path;
	w->is_int = is_int;
	while ((rc = pcap_next_ex(pc, &h, &d)) == 1) {
		size_t pl;
		const uint8_t *p = udp_payload(d, h->caplen, &pl);

		if (!p)
			continue;
		if (used + pl > cap) {
			cap = cap ? 2 * cap : 1 << 20;
			while (cap < used + pl)
				cap *= 2;
			if (!(w->bytes = realloc(w->bytes, cap)))
				die("payloads", -ENOMEM);
		}
		if (w->n == ncap) {
			ncap = ncap ? 2 * ncap : 4096;
			if (!(off = realloc(off, ncap * sizeof(*off))) ||
			    !(w->p = realloc(w->p, ncap * sizeof(*w->p))))
				die("payloads", -ENOMEM);
		}
		memcpy(w->bytes + used, p, pl);
		off[w->n] = used;
		w->p[w->n++].len = pl;
		used += pl;
	}
	pcap_close(pc);
	if (!w->n) {
		fprintf(stderr, "bench_int: %s: no UDP datagrams\n", path);
		exit(1);
	}
	for (size_t i = 0; i < w->n; i++)
		w->p[i].buf = w->bytes + off[i];
	free(off);
	w->rate = calloc(runs, sizeof(double));
	w->ratio = calloc(runs, sizeof(double));
	if (!w->rate || !w->ratio)
		die("runs", -ENOMEM);
}

/* One run of @w on a fresh core: the rate, in reports per CPU-second. */
static double work_run(struct work *w, struct mem *m,
		       const struct dta_config *cfg)
{
	struct dta_translator *t = core_create(m, cfg);
	struct dta_translator_stats st;
	double t0, t1;
	int err;

	t0 = bench_cpu_s();
	for (size_t i = 0; i < w->n; i += BATCH) {
		size_t k = w->n - i < BATCH ? w->n - i : BATCH;

		err = w->is_int ? dta_translator_process_int_batch(t, w->p + i, k, 0)
				: dta_translator_process_batch(t, w->p + i, k, 0);
		if (err < 0)
			die(w->name, err);
	}
	dta_translator_flush(t);
	t1 = bench_cpu_s();
	dta_translator_stats(t, &st);
	w->ops = st.ops_write + st.ops_fetch_add;
	if (w->is_int) {
		w->reports = st.int_reports_in;
		w->applied = st.int_applied;
	} else {
		w->reports = st.reports_in;
		w->applied = 0;
		for (int op = 1; op <= 4; op++)
			w->applied += st.reports[op];
	}
	dta_translator_destroy(t);
	return (double)w->reports / (t1 - t0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: bench_int -c CONFIG [-m RUNS] [-R NAME] {-i|-d} PCAP ...\n"
		"INT and DTA v1 reports per CPU-second of the translator core,\n"
		"side by side in one run (bench/int_rates.sh runs it).\n"
		"  -c, --config FILE   structures and the [int] map (docs/config.md)\n"
		"  -i, --int PCAP      INT report datagrams (dta-gen -t int-* -w)\n"
		"  -d, --dta PCAP      DTA v1 datagrams (dta-gen -t kw|pc|ap|ki -w)\n"
		"  -m, --runs N        runs; figures are medians (default 5)\n"
		"  -R, --ref NAME      ratios against this workload (a pcap's file\n"
		"                      name; default the first given)\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "int", required_argument, NULL, 'i' },
		{ "dta", required_argument, NULL, 'd' },
		{ "runs", required_argument, NULL, 'm' },
		{ "ref", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf = NULL, *refname = NULL;
	const char *files[MAX_WORK];
	int kinds[MAX_WORK];
	struct work w[MAX_WORK];
	struct dta_config *cfg;
	struct mem m;
	unsigned runs = 5, nw = 0, ref = 0;
	char err[256];
	int c, rc;

	while ((c = getopt_long(argc, argv, "c:i:d:m:R:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': conf = optarg; break;
		case 'i':
		case 'd':
			if (nw == MAX_WORK)
				die("too many workloads", -E2BIG);
			kinds[nw] = c == 'i';
			files[nw++] = optarg;
			break;
		case 'm': runs = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'R': refname = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!conf || !nw || !runs || optind != argc) {
		usage(stderr);
		return 2;
	}
	if ((rc = dta_config_load(conf, &cfg, err, sizeof(err)))) {
		fprintf(stderr, "bench_int: %s\n", rc == -DTA_E_MALFORMED ? err : dta_strerror(rc));
		return 1;
	}
	for (unsigned i = 0; i < nw; i++) {
		work_load(&w[i], files[i], kinds[i], runs);
		if (refname && !strcmp(w[i].name, refname))
			ref = i;
	}
	if (refname && strcmp(w[ref].name, refname)) {
		fprintf(stderr, "bench_int: -R %s: no such workload\n", refname);
		return 2;
	}
	mem_create(&m, cfg);
	for (unsigned r = 0; r < runs; r++) {
		for (unsigned i = 0; i < nw; i++)
			w[i].rate[r] = work_run(&w[i], &m, cfg);
		for (unsigned i = 0; i < nw; i++)
			w[i].ratio[r] = w[i].rate[r] / w[ref].rate[r];
	}
	printf("# reports per CPU-second of the translator core, median of %u runs;\n"
	       "# ratio: median of the runs' ratios to %s\n", runs, w[ref].name);
	printf("# ops/rep: memory operations (RDMA WRITEs and FETCH_ADDs) per report\n");
	printf("%-20s %4s %9s %9s %9s %7s %8s %7s\n", "workload", "kind", "datagrams",
	       "reports", "applied", "ops/rep", "M/CPU-s", "ratio");
	for (unsigned i = 0; i < nw; i++) {
		double rate = bench_median(w[i].rate, runs);
		double ratio = bench_median(w[i].ratio, runs);

		printf("%-20s %4s %9zu %9llu %9llu %7.2f %8.2f %7.2f\n", w[i].name,
		       w[i].is_int ? "INT" : "DTA", w[i].n,
		       (unsigned long long)w[i].reports,
		       (unsigned long long)w[i].applied,
		       w[i].reports ? (double)w[i].ops / (double)w[i].reports : 0,
		       rate / 1e6, ratio);
	}
	for (unsigned s = 0; s < m.n; s++)
		dta_region_destroy(m.r[s]);
	for (unsigned i = 0; i < nw; i++) {
		free(w[i].p);
		free(w[i].bytes);
		free(w[i].rate);
		free(w[i].ratio);
	}
	dta_config_destroy(cfg);
	return 0;
}
