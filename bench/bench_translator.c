/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_translator: reports per second per core of the software translator
 * (libdta's translator core writing into collector memory) next to a
 * baseline CPU collector doing what the DTA paper's section 2 measured:
 * parse each report and insert it into a conventional data structure
 * (a hash table keyed by flow, an append log, a counter table).
 *
 * The DTA side writes into a POSIX shared-memory region, as dta-translator
 * does into a collector's, through a sink that brackets writes with the
 * region's writer guard (once per batch, through the sink's batch hooks)
 * and prefetches through the prefetch hook, as dta-translator's does.
 * Both sides get the same pre-built UDP payloads, -r reports per payload
 * (1 as INT reporters send them; 8-32 as batching exporters do), from 8
 * reporters with consecutive sequence numbers, and are measured as:
 *  - "process": payloads from memory, single thread, one
 *    dta_translator_process() call per payload;
 *  - "batch": the same, dta_translator_process_batch() on 64 payloads at
 *    a time (what one recvmmsg() gives a worker);
 *  - with -S N, "slots": "batch" again, counting losses by reporter as
 *    dta-translator does with reporter_labels (docs/metrics.md): N
 *    reporter slots, each payload's slot given with it
 *    (dta_translator_process_batch_from()), payload i from slot i mod N;
 *    the ratio column is then slots / batch, the cost of the labels;
 *  - "udp": payloads over loopback UDP, received with recvmmsg; the rate
 *    is reports per CPU-second of the receiving thread (the sender runs on
 *    the other core), so it is per core.
 * Rates are reports per CPU-second of the measuring thread; with -m each
 * figure is the median of that many runs, the ratio the median of the
 * runs' ratios (DTA batch / baseline).
 *
 * The point of DTA is that in a deployment the translator runs on the
 * switch (or a NIC) and the collector's CPU does nothing per report; this
 * benchmark shows what the translation itself costs when done in software.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "dta/dta.h"
#include "bench.h"

/*
 * Built against an older libdta by bench/translator_versions.sh, to set
 * versions side by side in one run: -DBENCH_OLD_API (no sink hooks, no
 * dta_translator_process_batch() before issue 13: a loop stands in) and
 * -DBENCH_NO_GUARD (no region writer guard before issue 12);
 * -DBENCH_NO_SLOTS (no reporter slots before issue 23: -S does nothing);
 * -DBENCH_NO_MERGE (no dta_sink.merge_ops before issue 27).
 */
#ifndef DTA_WIRE_REPORTS_MAX
#define DTA_WIRE_REPORTS_MAX 256
#endif
#ifdef BENCH_OLD_API
struct bench_payload {
	const void *buf;
	size_t len;
};
#define dta_payload bench_payload
static int bench_batch(struct dta_translator *t, const struct dta_payload *p,
		       size_t n, uint64_t now_ns)
{
	for (size_t i = 0; i < n; i++)
		dta_translator_process(t, p[i].buf, p[i].len, now_ns);
	return 0;
}
#define dta_translator_process_batch bench_batch
#endif
#ifdef BENCH_NO_GUARD
#define dta_region_enter(r) ((void)(r), 0)
#define dta_region_leave(r) ((void)(r))
#endif

static uint64_t rng = 42;

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_translator: %s: %s\n", what, dta_strerror(err));
	exit(1);
}

/* ---- workload: pre-encoded payloads ---- */

struct payloads {
	size_t n;          /* payloads */
	size_t slot;       /* bytes per payload slot */
	uint8_t *buf;      /* n slots of @slot bytes */
	uint16_t *len;
	unsigned per;      /* reports per payload */
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

/* @n reports in payloads of @per. */
static void make(struct payloads *p, int prim, size_t n, uint64_t keys,
		 unsigned per)
{
	struct dta_report r = { .format = DTA_FORMAT_V1 };
	uint8_t key[13], data[20];
	uint32_t seq[REPORTERS] = { 0 };
	uint64_t flow = 0;
	unsigned hop = 0;

	p->per = per;
	p->n = n / per;
	p->slot = 64 * (size_t)per + 32;
	p->buf = malloc(p->n * p->slot);
	p->len = calloc(p->n, sizeof(*p->len));
	if (!p->buf || !p->len)
		die("payloads", -ENOMEM);
	for (size_t i = 0; i < p->n * per; i++) {
		size_t pl = i / per;
		int len;

		r.opcode = (uint8_t)prim;
		r.reporter = (uint16_t)(1 + pl % REPORTERS);
		r.seq = seq[pl % REPORTERS]++;
		switch (prim) {
		case DTA_OP_KEY_WRITE:
			key13(key, bench_rnd(&rng) % keys);
			for (int j = 0; j < 20; j++)
				data[j] = (uint8_t)(key[3] + j);
			r.u.kw.redundancy = 2;
			r.u.kw.key_len = 13;
			r.u.kw.key = key;
			r.u.kw.data_len = 20;
			r.u.kw.data = data;
			break;
		case DTA_OP_POSTCARD: /* 5-hop paths, hops in order */
			if (hop == 5) {
				hop = 0;
				flow++;
			}
			key13(key, flow % keys);
			r.u.pc.hop = (uint8_t)hop;
			r.u.pc.path_len = 5;
			r.u.pc.key_len = 13;
			r.u.pc.key = key;
			r.u.pc.value = 1 + (uint32_t)((flow * 7 + hop) % 80);
			hop++;
			break;
		case DTA_OP_APPEND:
			memcpy(data, &i, 4);
			r.u.ap.list_id = (uint32_t)(i % 4);
			r.u.ap.data_len = 4;
			r.u.ap.data = data;
			break;
		case DTA_OP_KEY_INCREMENT: /* Zipf-ish: squares favour low ids */
			{
				uint64_t u = bench_rnd(&rng) % keys;

				key13(key, (u * u) / keys);
			}
			r.u.ki.redundancy = 2;
			r.u.ki.key_len = 13;
			r.u.ki.key = key;
			r.u.ki.counter = 1;
			break;
		}
		len = dta_wire_encode(&r, p->buf + pl * p->slot + p->len[pl],
				      p->slot - p->len[pl]);
		if (len < 0)
			die("encode", len);
		p->len[pl] = (uint16_t)(p->len[pl] + len);
	}
}

/* ---- DTA side: translator core into collector memory ---- */

struct dta_side {
	struct dta_translator *t;
	struct dta_region *r;
	void *area;
	uint64_t size;
	int in_batch; /* inside the core's batch_begin .. batch_end */
	int entered;  /* the region's writer guard is held until batch_end */
};

/* As dta-translator's shared-memory sink: every write inside the region's
 * writer guard, entered at the first write of a batch and left at its end
 * when the core announces batches. */
static int sink_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		       size_t n)
{
	struct dta_side *d = ctx;
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
	struct dta_side *d = ctx;
	const uint8_t *p = (const uint8_t *)d->area + off;

	(void)s;
	__builtin_prefetch(p, 1);
	if (((uintptr_t)p & 63) + len > 64)
		__builtin_prefetch(p + len - 1, 1);
}

static void sink_begin(void *ctx)
{
	struct dta_side *d = ctx;

	d->in_batch = 1;
}

static void sink_end(void *ctx)
{
	struct dta_side *d = ctx;

	if (d->entered)
		dta_region_leave(d->r);
	d->in_batch = d->entered = 0;
}

static void dta_setup(struct dta_side *d, int prim, uint64_t keys,
		      uint64_t ki_window)
{
	struct dta_translator_opts o = { .sz = sizeof(o), .ki_window_ns = ki_window };
#ifdef BENCH_OLD_API
	struct dta_sink sink = { .submit = sink_submit, .ctx = d };

	(void)sink_prefetch;
	(void)sink_begin;
	(void)sink_end;
#else
	struct dta_sink sink = { .submit = sink_submit, .ctx = d,
				 .prefetch = sink_prefetch,
				 .batch_begin = sink_begin,
				 .batch_end = sink_end,
#ifndef BENCH_NO_MERGE
				 /* all or nothing, as dta_memops_apply() */
				 .merge_ops = 64,
#endif
			       };
#endif
	char name[64];
	struct dta_region_opts ro = { .sz = sizeof(ro), .backing = DTA_BACKING_SHM,
				      .path = name,
				      .flags = DTA_REGION_HUGE | DTA_REGION_UNLINK };
	struct dta_layout l;
	int err = 0;

	switch (prim) {
	case DTA_OP_KEY_WRITE:
		err = dta_layout_kw(&l, 4 * keys, 20, 4, 2, DTA_HASH_CRC32C, 1);
		break;
	case DTA_OP_POSTCARD:
		err = dta_layout_pc(&l, 2 * keys, 5, 4, 2, DTA_HASH_CRC32C, 1);
		break;
	case DTA_OP_APPEND:
		err = dta_layout_ap(&l, 4, 65536, 16, 4, 0);
		break;
	case DTA_OP_KEY_INCREMENT:
		err = dta_layout_ki(&l, 2 * keys, 2, 1, DTA_HASH_CRC32C, 1);
		break;
	}
	if (err)
		die("layout", err);
	/* Shared memory, as a collector would give a local translator. */
	memset(d, 0, sizeof(*d));
	snprintf(name, sizeof(name), "/dta-bench-%d", (int)getpid());
	if ((err = dta_region_create(&l, &ro, &d->r)))
		die("region", err);
	d->area = dta_region_data(d->r);
	d->size = dta_region_data_size(d->r);
	memset(d->area, 0, d->size);
	if ((err = dta_translator_create(&o, &sink, &d->t)))
		die("translator", err);
	if ((err = dta_translator_add(d->t, &l, 0)) < 0)
		die("add", err);
}

static void dta_teardown(struct dta_side *d)
{
	dta_translator_destroy(d->t);
	dta_region_destroy(d->r);
}

/* ---- baseline: a conventional CPU collector ---- */

struct entry {
	uint8_t key[13];
	uint8_t used;
	uint8_t hops_seen;
	uint8_t pad[1];
	union {
		uint8_t data[20];
		uint32_t hops[5];
		uint64_t count;
	} v;
};

struct baseline {
	struct entry *tab;
	uint64_t mask;
	uint8_t *log; /* Append: one growing log per list */
	size_t log_len, log_cap;
	uint64_t sink;
};

static void base_setup(struct baseline *b, uint64_t keys)
{
	uint64_t size = 1;

	while (size < 2 * keys)
		size <<= 1;
	memset(b, 0, sizeof(*b));
	b->tab = calloc(size, sizeof(*b->tab));
	b->mask = size - 1;
	b->log_cap = 64 << 20;
	b->log = malloc(b->log_cap);
	if (!b->tab || !b->log)
		die("baseline", -ENOMEM);
	/* Touch every page now, as the DTA side's region is, so neither side
	 * pays page faults while measured. */
	memset(b->tab, 0, size * sizeof(*b->tab));
	memset(b->log, 0, b->log_cap);
}

static struct entry *base_find(struct baseline *b, const uint8_t *key)
{
	uint64_t i = XXH3_64bits(key, 13) & b->mask;

	while (b->tab[i].used && memcmp(b->tab[i].key, key, 13))
		i = (i + 1) & b->mask;
	if (!b->tab[i].used) {
		b->tab[i].used = 1;
		memcpy(b->tab[i].key, key, 13);
	}
	return &b->tab[i];
}

/* Parse and insert one payload, as a CPU collector would. */
static void base_process(struct baseline *b, const uint8_t *buf, size_t len)
{
	static struct dta_report r[DTA_WIRE_REPORTS_MAX];
	int n = dta_wire_decode(buf, len, r, DTA_WIRE_REPORTS_MAX,
				DTA_DECODE_NO_LEGACY);

	for (int i = 0; i < n; i++) {
		struct entry *e;

		switch (r[i].opcode) {
		case DTA_OP_KEY_WRITE:
			e = base_find(b, r[i].u.kw.key);
			memcpy(e->v.data, r[i].u.kw.data, 20);
			break;
		case DTA_OP_POSTCARD:
			e = base_find(b, r[i].u.pc.key);
			e->v.hops[r[i].u.pc.hop] = r[i].u.pc.value;
			e->hops_seen++;
			break;
		case DTA_OP_APPEND:
			if (b->log_len + 4 > b->log_cap)
				b->log_len = 0; /* a ring, like the DTA side */
			memcpy(b->log + b->log_len, r[i].u.ap.data, 4);
			b->log_len += 4;
			break;
		case DTA_OP_KEY_INCREMENT:
			e = base_find(b, r[i].u.ki.key);
			e->v.count += r[i].u.ki.counter;
			break;
		}
	}
}

/* ---- UDP path ---- */

struct sender {
	const struct payloads *p;
	uint16_t port;
	volatile int *stop;
};

static void *send_all(void *arg)
{
	struct sender *s = arg;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(s->port) };
	struct mmsghdr m[64];
	struct iovec iov[64];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	memset(m, 0, sizeof(m));
	for (size_t i = 0; i < s->p->n && !*s->stop; i += 64) {
		unsigned k = 0;

		for (; k < 64 && i + k < s->p->n; k++) {
			iov[k].iov_base = s->p->buf + (i + k) * s->p->slot;
			iov[k].iov_len = s->p->len[i + k];
			m[k].msg_hdr.msg_iov = &iov[k];
			m[k].msg_hdr.msg_iovlen = 1;
			m[k].msg_hdr.msg_name = &to;
			m[k].msg_hdr.msg_namelen = sizeof(to);
		}
		while (sendmmsg(fd, m, k, 0) < 0 && errno == ENOBUFS)
			usleep(10);
	}
	close(fd);
	return NULL;
}

/* Receive until @n payloads or a quiet 200 ms; return payloads handled and
 * the receiver's CPU seconds in *@cpu. */
static size_t recv_loop(int fd, size_t n, struct dta_side *d,
			struct baseline *b, double *cpu)
{
	static uint8_t bufs[64][DTA_PAYLOAD_MAX];
	struct dta_payload pl[64];
	struct mmsghdr m[64];
	struct iovec iov[64];
	size_t got = 0;
	double c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
	uint64_t t = 0;

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 64; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	while (got < n) {
		struct timespec ts = { .tv_nsec = 200000000 };
		int k = recvmmsg(fd, m, 64, MSG_WAITFORONE, &ts);

		if (k <= 0)
			break;
		for (int i = 0; i < k; i++) {
			pl[i].buf = bufs[i];
			pl[i].len = m[i].msg_len;
			if (!d)
				base_process(b, bufs[i], m[i].msg_len);
		}
		if (d)
			dta_translator_process_batch(d->t, pl, (size_t)k, t++);
		got += (size_t)k;
	}
	*cpu = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	return got;
}

static int udp_bound(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), big = 64 << 20;
	struct timeval tv = { .tv_sec = 1 };

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl))
		die("udp", -errno);
	*port = ntohs(sa.sin_port);
	return fd;
}

static double udp_rate(const struct payloads *p, struct dta_side *d,
		       struct baseline *b, size_t *received)
{
	volatile int stop = 0;
	uint16_t port;
	int fd = udp_bound(&port);
	struct sender s = { .p = p, .port = port, .stop = &stop };
	pthread_t th;
	double cpu;
	size_t got;

	pthread_create(&th, NULL, send_all, &s);
	got = recv_loop(fd, p->n, d, b, &cpu);
	stop = 1;
	pthread_join(th, NULL);
	close(fd);
	*received = got;
	return (double)got * p->per / cpu;
}

/* Reports per CPU-second of the DTA side: one _process() call per
 * payload, or _process_batch() on @batch payloads at a time. */
static double dta_rate(const struct payloads *p, int prim, uint64_t keys,
		       uint64_t ki_window, size_t batch, unsigned slots)
{
	struct dta_payload pl[64];
	uint16_t sl[64];
	struct dta_side d;
	double c0, c;

	dta_setup(&d, prim, keys, ki_window);
#ifndef BENCH_NO_SLOTS
	if (slots && dta_translator_set_reporter_slots(d.t, slots))
		die("reporter slots", -EINVAL);
#endif
	c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (size_t j = 0; j < p->n;) {
		size_t k = 0;

		if (batch == 1) {
			dta_translator_process(d.t, p->buf + j * p->slot, p->len[j],
					       j * 100); /* 10 M payloads/s clock */
			j++;
			continue;
		}
		for (; k < batch && j + k < p->n; k++) {
			pl[k].buf = p->buf + (j + k) * p->slot;
			pl[k].len = p->len[j + k];
			sl[k] = (uint16_t)(slots ? (j + k) % slots : 0);
		}
#ifndef BENCH_NO_SLOTS
		if (slots)
			dta_translator_process_batch_from(d.t, pl, sl, k, j * 100);
		else
#endif
			dta_translator_process_batch(d.t, pl, k, j * 100);
		j += k;
	}
	dta_translator_flush(d.t);
	c = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	dta_teardown(&d);
	return (double)(p->n * p->per) / c;
}

static double base_rate(const struct payloads *p, uint64_t keys)
{
	struct baseline b;
	double c0, c;

	base_setup(&b, keys);
	c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (size_t j = 0; j < p->n; j++)
		base_process(&b, p->buf + j * p->slot, p->len[j]);
	c = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	free(b.tab);
	free(b.log);
	return (double)(p->n * p->per) / c;
}

#define RUNS_MAX 15

int main(int argc, char **argv)
{
	static const struct { int prim; const char *tag, *name; } prims[] = {
		{ DTA_OP_KEY_WRITE, "kw", "Key-Write (INT paths, N=2)" },
		{ DTA_OP_POSTCARD, "pc", "Postcarding (5-hop postcards)" },
		{ DTA_OP_APPEND, "ap", "Append (4-byte events)" },
		{ DTA_OP_KEY_INCREMENT, "ki", "Key-Increment (N=2)" },
		{ -DTA_OP_KEY_INCREMENT, "kia", "Key-Increment, 100 us aggregation" },
	};
	const char *only = NULL;
	size_t n = 2000000;
	uint64_t keys = 1u << 20;
	unsigned per = 1, runs = 1, slots = 0;
	int udp = 1, c;

	while ((c = getopt(argc, argv, "n:k:r:m:p:S:Uh")) != -1) {
		switch (c) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'k': keys = strtoull(optarg, NULL, 0); break;
		case 'r': per = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'm': runs = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'p': only = optarg; break;
		case 'U': udp = 0; break;
		case 'S': slots = (unsigned)strtoul(optarg, NULL, 0); break;
		default:
			printf("Usage: bench_translator [-n REPORTS] [-k KEYS] [-r PER] [-m RUNS] [-p PRIM] [-S SLOTS] [-U]\n"
			       "  -n  reports per measurement (default 2000000)\n"
			       "  -k  distinct flows/keys (default 1048576)\n"
			       "  -r  reports per payload, 1..128 (default 1)\n"
			       "  -m  runs per figure, medians printed (default 1)\n"
			       "  -p  only this row: kw, pc, ap, ki or kia\n"
			       "  -S  also 'slots': batch with losses counted in\n"
			       "      SLOTS reporter slots (1..65535; default 0: not)\n"
			       "  -U  skip the loopback UDP measurement\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (n < 1000 || keys < 16 || per < 1 || per > 128 || runs < 1 ||
	    runs > RUNS_MAX || slots > 65535) {
		fprintf(stderr, "bench_translator: -n >= 1000, -k >= 16, "
			"-r 1..128, -m 1..%d\n", RUNS_MAX);
		return 2;
	}
	printf("bench_translator: libdta %s, %zu reports, %llu keys, %u report%s "
	       "per payload, median of %u\n", DTA_VERSION_STRING, n,
	       (unsigned long long)keys, per, per == 1 ? "" : "s", runs);
	printf("M reports per CPU-second; 'baseline' parses and inserts into a "
	       "hash table / log;\n'process' is one call per payload, 'batch' "
	       "64 payloads per call; ratio = batch / baseline\n\n");
	printf("%-36s %-8s %9s %9s %9s %7s\n", "primitive", "input", "process",
	       "batch", "baseline", "ratio");
	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++) {
		int prim = prims[i].prim < 0 ? -prims[i].prim : prims[i].prim;
		uint64_t ki_window = prims[i].prim < 0 ? 100000 : 0;
		double tp[RUNS_MAX], tq[RUNS_MAX], tb[RUNS_MAX], ratio[RUNS_MAX];
		double ts[RUNS_MAX], sratio[RUNS_MAX];
		struct payloads p;

		if (only && strcmp(only, prims[i].tag))
			continue;
		rng = 42;
		make(&p, prim, n, keys, per);
		for (unsigned k = 0; k < runs; k++) {
			tp[k] = dta_rate(&p, prim, keys, ki_window, 1, 0);
			tq[k] = dta_rate(&p, prim, keys, ki_window, 64, 0);
			tb[k] = base_rate(&p, keys);
			ratio[k] = tq[k] / tb[k];
			/* right after its batch figure: same cache state */
			ts[k] = slots ? dta_rate(&p, prim, keys, ki_window, 64,
						 slots) : 0;
			sratio[k] = slots ? ts[k] / tq[k] : 0;
		}
		printf("%-36s %-8s %9.2f %9.2f %9.2f %6.2fx\n", prims[i].name,
		       "process", bench_median(tp, runs) / 1e6, bench_median(tq, runs) / 1e6,
		       bench_median(tb, runs) / 1e6, bench_median(ratio, runs));
		if (slots)
			printf("%-36s %-8s %9s %9.2f %9s %6.3fx   (slots / batch, "
			       "%u reporter slots)\n", "", "slots", "",
			       bench_median(ts, runs) / 1e6, "",
			       bench_median(sratio, runs), slots);

		if (udp) {
			struct dta_side d;
			struct baseline b;
			size_t gd, gb;
			double ud, ub;

			dta_setup(&d, prim, keys, ki_window);
			ud = udp_rate(&p, &d, NULL, &gd);
			dta_teardown(&d);
			base_setup(&b, keys);
			ub = udp_rate(&p, NULL, &b, &gb);
			free(b.tab);
			free(b.log);
			printf("%-36s %-8s %9s %9.2f %9.2f %6.2fx   (received %.0f%% / %.0f%%)\n",
			       "", "udp", "", ud / 1e6, ub / 1e6, ud / ub,
			       100.0 * (double)gd / (double)p.n,
			       100.0 * (double)gb / (double)p.n);
		}
		free(p.buf);
		free(p.len);
	}
	return 0;
}
