/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_notify: what notifications (DTA_FLAG_IMMEDIATE, dta_region_wait())
 * cost and how fast they wake.
 *
 *  1. Wake-up latency: reports with the immediate flag sent at a paced rate
 *     (-r per second, -n of them) into the translator core, whose sink
 *     writes a POSIX shared-memory region (as dta-translator writes a
 *     collector's) and calls dta_region_notify() from the notify hook. A
 *     waiter thread has the region open read-only, as an analysis tool
 *     would, and sleeps in dta_region_wait(). Latency: from just before
 *     the report is handed over to the waiter's return, CLOCK_MONOTONIC;
 *     p50, p99 and max. Two paths: "core" (dta_translator_process() on
 *     the sending thread) and "udp" (a datagram over loopback to a
 *     receiving thread that runs the core, as dta-translator's workers).
 *  2. Translator CPU cost: Key-Write reports from memory, 64 payloads per
 *     dta_translator_process_batch() (one notification per batch) and one
 *     payload per dta_translator_process() (one per payload, the worst
 *     case), without and with the flag; ns per report on the thread's CPU
 *     clock, and the ratio with / without, in the same run. Nobody waits
 *     during this part (a wake with no waiter is one system call).
 *
 * Figures only; no pass/fail.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dta/dta.h"
#include "bench.h"

#define BATCH 64

struct shm_sink {
	struct dta_region *r;
	uint8_t *area;
	uint64_t size;
};

static int sink_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		       size_t n)
{
	struct shm_sink *k = ctx;
	int rc;

	(void)s;
	rc = dta_memops_apply(k->area, k->size, ops, n);
	return rc < 0 ? rc : 0;
}

static void sink_begin(void *ctx)
{
	struct shm_sink *k = ctx;

	(void)!dta_region_enter(k->r);
}

static void sink_end(void *ctx)
{
	struct shm_sink *k = ctx;

	dta_region_leave(k->r);
}

static void sink_notify(void *ctx, unsigned s)
{
	struct shm_sink *k = ctx;

	(void)s;
	dta_region_notify(k->r);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_notify: %s: %s\n", what, dta_strerror(err));
	exit(1);
}

static double mono_s(void)
{
	return bench_clock_s(CLOCK_MONOTONIC);
}

static char shm_name[64];

static struct dta_translator *make(struct shm_sink *k, struct dta_layout *l)
{
	struct dta_sink sink = { .submit = sink_submit, .ctx = k,
				 .batch_begin = sink_begin,
				 .batch_end = sink_end, .notify = sink_notify };
	struct dta_translator *t;
	int err;

	err = dta_translator_create(NULL, &sink, &t);
	if (err)
		die("translator", err);
	err = dta_translator_add(t, l, 0);
	if (err < 0)
		die("structure", err);
	return t;
}

/* A payload of one Key-Write report for key @i. */
static size_t payload(uint8_t *buf, size_t cap, uint64_t i, uint32_t seq,
		      bool imm)
{
	static const uint8_t data[20] = { 1, 2, 3, 4, 5 };
	struct dta_report r = { .format = DTA_FORMAT_V1,
				.opcode = DTA_OP_KEY_WRITE,
				.flags = imm ? DTA_FLAG_IMMEDIATE : 0,
				.reporter = 1, .seq = seq };
	uint8_t key[13] = { 10, 0, 0, 0, 10, 0, 0, 1, 0, 1, 0, 2, 6 };
	int n;

	memcpy(key, &i, 4);
	r.u.kw.redundancy = 2;
	r.u.kw.key_len = 13;
	r.u.kw.key = key;
	r.u.kw.data_len = 20;
	r.u.kw.data = data;
	n = dta_wire_encode(&r, buf, cap);
	if (n < 0)
		die("encode", n);
	return (size_t)n;
}

/* ---- 1. latency ---- */

struct lat {
	struct dta_region *ro;  /* the waiter's read-only mapping */
	size_t n;
	double *sent;           /* send time of report k (sequence k + 1) */
	double *woke;           /* wake time for sequence k + 1, or 0 */
	atomic_bool ready, done;
	/* udp */
	int fd;
	struct dta_translator *t;
};

static void *waiter(void *arg)
{
	struct lat *L = arg;
	uint32_t seen = dta_region_notify_seq(L->ro);

	atomic_store(&L->ready, true);
	while (!atomic_load(&L->done)) {
		int rc = dta_region_wait(L->ro, seen, 200);
		double now = mono_s();
		uint32_t s;

		if (rc == -ETIMEDOUT || rc == -EINTR)
			continue;
		if (rc)
			die("wait", rc);
		s = dta_region_notify_seq(L->ro);
		/* Several notifications in one wake: only the newest is
		 * timed (the others woke nobody by themselves). */
		if (s >= 1 && s <= L->n)
			L->woke[s - 1] = now;
		seen = s;
		if (s >= L->n)
			break;
	}
	return NULL;
}

static void *receiver(void *arg)
{
	struct lat *L = arg;
	uint8_t buf[2048];

	while (!atomic_load(&L->done)) {
		ssize_t n = recv(L->fd, buf, sizeof(buf), 0);

		if (n > 0)
			dta_translator_process(L->t, buf, (size_t)n, 0);
	}
	return NULL;
}

static void latency(struct dta_layout *l, size_t n, double rate, bool udp)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_SHM,
				     .path = shm_name, .name = "paths",
				     .flags = DTA_REGION_UNLINK };
	struct dta_region_opts oro = { .sz = sizeof(oro),
				       .backing = DTA_BACKING_SHM,
				       .path = shm_name,
				       .flags = DTA_REGION_RDONLY };
	struct shm_sink k;
	struct lat L = { .n = n, .fd = -1 };
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	pthread_t wt, rt;
	double *v, period = 1.0 / rate, t0;
	int tx = -1, err;
	size_t got = 0;

	err = dta_region_create(l, &o, &k.r);
	if (err)
		die("region", err);
	err = dta_region_open(&oro, &L.ro);
	if (err)
		die("read-only region", err);
	k.area = dta_region_data(k.r);
	k.size = dta_region_data_size(k.r);
	L.t = make(&k, l);
	L.sent = calloc(n, sizeof(double));
	L.woke = calloc(n, sizeof(double));
	v = calloc(n, sizeof(double));
	if (!L.sent || !L.woke || !v)
		die("memory", -ENOMEM);
	if (udp) {
		struct timeval tv = { .tv_usec = 100000 };

		L.fd = socket(AF_INET, SOCK_DGRAM, 0);
		tx = socket(AF_INET, SOCK_DGRAM, 0);
		if (L.fd < 0 || tx < 0 ||
		    bind(L.fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    getsockname(L.fd, (struct sockaddr *)&sa, &salen) ||
		    setsockopt(L.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			die("socket", -errno);
		pthread_create(&rt, NULL, receiver, &L);
	}
	pthread_create(&wt, NULL, waiter, &L);
	while (!atomic_load(&L.ready))
		usleep(100);
	usleep(10000);
	t0 = mono_s();
	for (size_t i = 0; i < n; i++) {
		uint8_t buf[256];
		size_t len = payload(buf, sizeof(buf), i, (uint32_t)i, true);
		double due = t0 + (double)i * period, now;

		while ((now = mono_s()) < due) {
			struct timespec ts = { .tv_nsec = (long)((due - now) * 1e9) };

			nanosleep(&ts, NULL);
		}
		L.sent[i] = mono_s();
		if (udp)
			sendto(tx, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa));
		else
			dta_translator_process(L.t, buf, len, 0);
	}
	/* The last wake, or give up after a second. */
	for (int i = 0; i < 1000 && dta_region_notify_seq(L.ro) < n; i++)
		usleep(1000);
	usleep(20000);
	atomic_store(&L.done, true);
	pthread_join(wt, NULL);
	if (udp) {
		pthread_join(rt, NULL);
		close(L.fd);
		close(tx);
	}
	for (size_t i = 0; i < n; i++)
		if (L.woke[i] > 0)
			v[got++] = (L.woke[i] - L.sent[i]) * 1e6;
	if (got) {
		qsort(v, got, sizeof(*v), bench_cmp_double);
		printf("%-6s %8zu %8zu %10.1f %10.1f %10.1f\n", udp ? "udp" : "core",
		       n, got, v[got / 2], v[(size_t)((double)(got - 1) * 0.99)],
		       v[got - 1]);
	} else {
		printf("%-6s %8zu %8zu (no wake timed)\n", udp ? "udp" : "core",
		       n, got);
	}
	free(v);
	free(L.sent);
	free(L.woke);
	dta_translator_destroy(L.t);
	dta_region_destroy(L.ro);
	dta_region_destroy(k.r);
}

/* ---- 2. CPU cost ---- */

/* ns of thread CPU per report for @n payloads, @batch per call. */
static double cost(struct dta_layout *l, size_t n, bool imm, size_t batch)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_SHM,
				     .path = shm_name, .name = "paths",
				     .flags = DTA_REGION_UNLINK };
	struct shm_sink k;
	struct dta_translator *t;
	struct dta_payload *p = calloc(n, sizeof(*p));
	uint8_t *bufs = malloc(n * 128);
	double c0, c;
	int err;

	if (!p || !bufs)
		die("memory", -ENOMEM);
	err = dta_region_create(l, &o, &k.r);
	if (err)
		die("region", err);
	k.area = dta_region_data(k.r);
	k.size = dta_region_data_size(k.r);
	t = make(&k, l);
	for (size_t i = 0; i < n; i++) {
		p[i].buf = bufs + i * 128;
		p[i].len = payload(bufs + i * 128, 128, i * 2654435761u, (uint32_t)i,
				   imm);
	}
	c0 = bench_cpu_s();
	for (size_t i = 0; i < n; i += batch)
		dta_translator_process_batch(t, p + i,
					     n - i < batch ? n - i : batch, 0);
	c = bench_cpu_s() - c0;
	dta_translator_destroy(t);
	dta_region_destroy(k.r);
	free(bufs);
	free(p);
	return c / (double)n * 1e9;
}

int main(int argc, char **argv)
{
	size_t n = 2000, cn = 1000000;
	double rate = 1000;
	unsigned runs = 3;
	struct dta_layout l;
	int c, err;

	while ((c = getopt(argc, argv, "n:r:c:m:h")) != -1) {
		switch (c) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'r': rate = strtod(optarg, NULL); break;
		case 'c': cn = strtoull(optarg, NULL, 0); break;
		case 'm': runs = (unsigned)strtoul(optarg, NULL, 0); break;
		default:
			printf("Usage: bench_notify [-n REPORTS] [-r RATE] [-c REPORTS] [-m RUNS]\n"
			       "  -n  immediate reports timed for latency (default 2000)\n"
			       "  -r  their rate, per second (default 1000)\n"
			       "  -c  reports per CPU-cost measurement (default 1000000)\n"
			       "  -m  CPU-cost runs, medians printed (default 3)\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (n < 10 || rate <= 0 || rate > 1e6 || cn < BATCH || runs < 1 ||
	    runs > 15) {
		fprintf(stderr, "bench_notify: -n >= 10, -r 0..1e6, -c >= %d, "
			"-m 1..15\n", BATCH);
		return 2;
	}
	snprintf(shm_name, sizeof(shm_name), "/dta-bench-notify-%d", (int)getpid());
	err = dta_layout_kw(&l, 1u << 20, 20, 4, 2, DTA_HASH_CRC32C, 1);
	if (err)
		die("layout", err);

	printf("bench_notify: libdta %s\n\n", DTA_VERSION_STRING);
	printf("1. report to wake-up, immediate Key-Write reports at %.0f/s, "
	       "waiter on a read-only mapping (us)\n", rate);
	printf("%-6s %8s %8s %10s %10s %10s\n", "path", "reports", "timed",
	       "p50", "p99", "max");
	latency(&l, n, rate, false);
	latency(&l, n, rate, true);

	printf("\n2. translator CPU per report (ns, thread CPU clock, median of "
	       "%u runs of %zu)\n", runs, cn);
	printf("%-22s %10s %10s %8s\n", "calls", "plain", "immediate", "ratio");
	for (int b = 0; b < 2; b++) {
		size_t batch = b ? 1 : BATCH;
		double pl[15], im[15], ra[15];

		for (unsigned r = 0; r < runs; r++) {
			pl[r] = cost(&l, cn, false, batch);
			im[r] = cost(&l, cn, true, batch);
			ra[r] = im[r] / pl[r];
		}
		printf("%-22s %10.1f %10.1f %8.2f\n",
		       b ? "process (1 payload)" : "batch (64 payloads)",
		       bench_median(pl, runs), bench_median(im, runs),
		       bench_median(ra, runs));
	}
	return 0;
}
