/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta_demo: every DTA primitive end to end on one machine, in one process.
 *
 * For each primitive a workload like the paper's is encoded as DTA reports
 * (wire format v1), decoded as a translator would, turned into memory
 * operations by the layout's writer functions, applied to a structure in
 * shared memory (the local-DMA case of the paper's section 7), and then
 * queried back. It prints query success next to the analytic bound, and
 * the rates achieved.
 *
 *   INT path tracing   Key-Write: 13-byte 5-tuple -> 5 x 4-byte switch ids
 *   INT postcards      Postcarding: one report per hop, B = 5
 *   Congestion events  Append: 16-byte events into 4 lists, batches of 16
 *   TurboFlow counters Key-Increment: per-flow packet counts
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dta/dta.h>

struct opts {
	unsigned flows;
	unsigned kw_log2_slots;
	double pc_alpha;
	uint64_t seed;
};

static uint64_t rng_state;

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

static void die(const char *what, int err)
{
	fprintf(stderr, "dta_demo: %s: %s\n", what, dta_strerror(err));
	exit(1);
}

/* Flow i's 5-tuple, as an INT sink would put it in the key. */
static void flow_key(unsigned i, uint8_t key[13])
{
	uint32_t src = 0x0A000000u | (i & 0xFFFFF), dst = 0x0A800000u | (i >> 4);

	for (int b = 0; b < 4; b++) {
		key[b] = (uint8_t)(src >> (24 - 8 * b));
		key[4 + b] = (uint8_t)(dst >> (24 - 8 * b));
	}
	key[8] = (uint8_t)((1024 + i % 50000) >> 8);
	key[9] = (uint8_t)(1024 + i % 50000);
	key[10] = 0x01;
	key[11] = 0xBB;
	key[12] = 6;
}

/* Fat-tree path of flow i: 5 switch ids (edge, agg, core, agg, edge). */
static void flow_path(unsigned i, uint32_t sw[5])
{
	sw[0] = 1000 + i % 64;
	sw[1] = 2000 + (i / 64) % 32;
	sw[2] = 3000 + (i / 7) % 16;
	sw[3] = 2000 + (i / 3) % 32;
	sw[4] = 1000 + (i / 5) % 64;
}

static struct dta_region *make_region(const struct dta_layout *l,
				      const char *name)
{
	char shm[64];
	struct dta_region_opts o = { .sz = sizeof(o),
				     .backing = DTA_BACKING_SHM,
				     .path = shm,
				     .name = name,
				     .flags = DTA_REGION_HUGE | DTA_REGION_UNLINK };
	struct dta_region *r;
	int err;

	snprintf(shm, sizeof(shm), "/dta-demo-%s-%d", name, (int)getpid());
	err = dta_region_create(l, &o, &r);
	if (err)
		die("create region", err);
	return r;
}

/* The translator's path for one UDP payload: decode, ops, apply. */
struct sink {
	const struct dta_layout *l;
	struct dta_region *r;
	uint64_t reports, ops, bad;
};

static void translate(struct sink *s, const uint8_t *pkt, size_t len)
{
	struct dta_report rep[4];
	struct dta_memop ops[8];
	uint8_t buf[256];
	int n = dta_wire_decode(pkt, len, rep, 4, 0);

	if (n < 0) {
		s->bad++;
		return;
	}
	for (int i = 0; i < n; i++) {
		int k = -EINVAL;

		if (rep[i].opcode == DTA_OP_KEY_WRITE)
			k = dta_kw_ops(s->l, rep[i].u.kw.key, rep[i].u.kw.key_len,
				       rep[i].u.kw.data, rep[i].u.kw.data_len,
				       rep[i].u.kw.redundancy, buf, sizeof(buf),
				       ops, 8);
		else if (rep[i].opcode == DTA_OP_KEY_INCREMENT)
			k = dta_ki_ops(s->l, rep[i].u.ki.key, rep[i].u.ki.key_len,
				       rep[i].u.ki.counter, 0, ops, 8);
		if (k < 0 || dta_memops_apply(dta_region_data(s->r),
					      dta_region_data_size(s->r), ops,
					      (size_t)k) < 0) {
			s->bad++;
			continue;
		}
		s->reports++;
		s->ops += (uint64_t)k;
	}
}

static void demo_keywrite(const struct opts *o)
{
	const unsigned n_red = 2, flows = o->flows;
	const uint64_t slots = 1ull << o->kw_log2_slots;
	struct dta_layout l;
	struct sink s = { .l = &l };
	uint8_t pkt[128], key[13], out[20];
	uint32_t sw[5];
	unsigned found = 0, wrong = 0;
	double t0, t1, t2, expect = 0;
	int err;

	err = dta_layout_kw(&l, slots, 20, 4, 4, DTA_HASH_CRC32C, o->seed);
	if (err)
		die("Key-Write layout", err);
	s.r = make_region(&l, "int-paths");
	t0 = now();
	for (unsigned i = 0; i < flows; i++) {
		uint8_t data[20];
		struct dta_report r = { .format = DTA_FORMAT_V1,
					.opcode = DTA_OP_KEY_WRITE,
					.reporter = (uint16_t)(i % 7),
					.seq = i };
		int len;

		flow_key(i, key);
		flow_path(i, sw);
		for (int h = 0; h < 5; h++)
			for (int b = 0; b < 4; b++)
				data[4 * h + b] = (uint8_t)(sw[h] >> (24 - 8 * b));
		r.u.kw.redundancy = n_red;
		r.u.kw.key_len = 13;
		r.u.kw.key = key;
		r.u.kw.data_len = 20;
		r.u.kw.data = data;
		len = dta_wire_encode(&r, pkt, sizeof(pkt));
		if (len < 0)
			die("encode", len);
		translate(&s, pkt, (size_t)len);
	}
	t1 = now();
	for (unsigned i = 0; i < flows; i++) {
		struct dta_kw_result res;
		struct dta_kw_query_opts qo = { .redundancy = 4 };
		uint8_t want[20];

		flow_key(i, key);
		flow_path(i, sw);
		for (int h = 0; h < 5; h++)
			for (int b = 0; b < 4; b++)
				want[4 * h + b] = (uint8_t)(sw[h] >> (24 - 8 * b));
		dta_kw_query(&l, dta_region_data(s.r), key, 13, &qo, out,
			     sizeof(out), &res);
		if (res.status == DTA_Q_FOUND) {
			if (memcmp(out, want, 20))
				wrong++;
			else
				found++;
		}
		/* Flow i has flows-1-i newer flows behind it. */
		expect += 1 - dta_bound_kw_empty(n_red, 32,
						 (double)(flows - 1 - i) / slots);
	}
	t2 = now();
	printf("INT path tracing (Key-Write, N=%u, %llu slots, %.1f MiB, %s pages)\n",
	       n_red, (unsigned long long)slots,
	       dta_region_data_size(s.r) / 1048576.0,
	       dta_region_page_size(s.r) > 4096 ? "huge" : "4 KiB");
	printf("  %u flows reported, %llu RDMA-equivalent writes, %llu rejected\n",
	       flows, (unsigned long long)s.ops, (unsigned long long)s.bad);
	printf("  query success %.4f (%u wrong); paper bound predicts >= %.4f\n",
	       (double)found / flows, wrong, expect / flows);
	printf("  translate %.2f M reports/s, query %.2f M queries/s (1 core)\n\n",
	       flows / (t1 - t0) / 1e6, flows / (t2 - t1) / 1e6);
	dta_region_destroy(s.r);
}

static void demo_postcard(const struct opts *o)
{
	const unsigned flows = o->flows;
	const uint64_t chunks = (uint64_t)(flows / (2 * o->pc_alpha)) | 1;
	struct dta_layout l;
	struct dta_region *r;
	struct dta_pc_codebook *cb;
	uint32_t values[64 + 32 + 16], sw[5];
	uint8_t key[13], chunk[64];
	struct dta_memop ops[8];
	unsigned nv = 0, found = 0, wrong = 0, partial = 0;
	uint64_t nops = 0;
	double t0, t1, t2, expect = 0;
	int err;

	for (unsigned i = 0; i < 64; i++)
		values[nv++] = 1000 + i;
	for (unsigned i = 0; i < 32; i++)
		values[nv++] = 2000 + i;
	for (unsigned i = 0; i < 16; i++)
		values[nv++] = 3000 + i;
	err = dta_layout_pc(&l, chunks, 5, 4, 2, DTA_HASH_CRC32C, o->seed);
	if (err)
		die("Postcarding layout", err);
	r = make_region(&l, "int-postcards");
	err = dta_pc_codebook_create(&l, values, nv, &cb);
	if (err)
		die("codebook", err);

	/* Postcards arrive one per hop; a translator caches them and writes
	 * the chunk when the path length is reached (issue: translator core).
	 * Here each flow's postcards are gathered directly. One in eight
	 * flows takes a 3-hop path (same pod), so blanks are exercised. */
	t0 = now();
	for (unsigned i = 0; i < flows; i++) {
		unsigned len = i % 8 == 0 ? 3 : 5;
		int k;

		flow_key(i, key);
		flow_path(i, sw);
		if (len == 3)
			sw[2] = sw[4];
		k = dta_pc_ops(&l, key, 13, sw, len, chunk, sizeof(chunk), ops, 8);
		if (k < 0 || dta_memops_apply(dta_region_data(r), l.data_size, ops,
					      (size_t)k) < 0)
			die("postcard write", k);
		nops += (uint64_t)k;
	}
	t1 = now();
	for (unsigned i = 0; i < flows; i++) {
		struct dta_pc_result res;
		unsigned len = i % 8 == 0 ? 3 : 5;

		flow_key(i, key);
		flow_path(i, sw);
		if (len == 3)
			sw[2] = sw[4];
		dta_pc_query(&l, dta_region_data(r), cb, key, 13, 0, &res);
		if (res.status == DTA_Q_FOUND) {
			if (res.path_len != len ||
			    memcmp(res.values, sw, len * sizeof(sw[0])))
				wrong++;
			else
				found++;
			partial += len == 3;
		}
		expect += 1 - dta_bound_pc_empty(2, 32,
						 (double)(flows - 1 - i) / chunks,
						 nv, 5);
	}
	t2 = now();
	printf("INT postcards (Postcarding, B=5, b=32, N=2, %llu chunks, |V|=%u)\n",
	       (unsigned long long)chunks, nv);
	printf("  %u flows, %llu chunk writes (one per copy, not one per hop)\n",
	       flows, (unsigned long long)nops);
	printf("  query success %.4f (%u wrong, %u short paths); bound predicts >= %.4f\n",
	       (double)found / flows, wrong, partial, expect / flows);
	printf("  write %.2f M flows/s, query %.2f M queries/s (1 core)\n\n",
	       flows / (t1 - t0) / 1e6, flows / (t2 - t1) / 1e6);
	dta_pc_codebook_destroy(cb);
	dta_region_destroy(r);
}

static void demo_append(const struct opts *o)
{
	enum { LISTS = 4, K = 16, ES = 16 };
	const unsigned events = o->flows;
	struct dta_layout l;
	struct dta_region *r;
	struct dta_ap_cursor cur[LISTS] = { { 0, 0 } };
	struct dta_ap_reader *rd[LISTS];
	uint8_t pending[LISTS][K][ES], frame[16 + K * ES + 8];
	unsigned npend[LISTS] = { 0 }, next_read[LISTS] = { 0 };
	uint8_t out[K * 64][ES];
	uint64_t lost = 0, read = 0, batches = 0, disorder = 0;
	struct dta_memop ops[2];
	double t0, t1;
	int err;

	err = dta_layout_ap(&l, LISTS, 1024, K, ES, 0);
	if (err)
		die("Append layout", err);
	r = make_region(&l, "congestion");
	for (unsigned i = 0; i < LISTS; i++) {
		err = dta_ap_reader_create(&l, dta_region_data(r), i, 0, &rd[i]);
		if (err)
			die("reader", err);
	}
	t0 = now();
	for (unsigned e = 0; e < events; e++) {
		unsigned list = (unsigned)(rnd() % LISTS);
		uint8_t *ev = pending[list][npend[list]++];
		uint32_t seqno = e;

		/* Event: {switch id, queue id, timestamp, per-list number}. */
		memset(ev, 0, ES);
		ev[0] = (uint8_t)(e % 64);
		ev[5] = (uint8_t)(e % 8);
		memcpy(ev + 8, &seqno, 4);
		if (npend[list] == K || e + 1 == events) {
			int k = dta_ap_ops(&l, list, &cur[list], pending[list],
					   npend[list], frame, sizeof(frame), ops, 2);

			if (k < 0 || dta_memops_apply(dta_region_data(r),
						      l.data_size, ops, (size_t)k) < 0)
				die("append write", k);
			npend[list] = 0;
			batches++;
		}
		/* The consumer polls now and then, as an analysis loop would. */
		if (e % 4096 == 4095 || e + 1 == events) {
			for (unsigned i = 0; i < LISTS; i++) {
				int n;

				while ((n = dta_ap_read(rd[i], out, K * 64, &lost)) > 0) {
					for (int j = 0; j < n; j++) {
						uint32_t v;

						memcpy(&v, out[j] + 8, 4);
						if (v < next_read[i])
							disorder++;
						next_read[i] = v;
					}
					read += (uint64_t)n;
				}
			}
		}
	}
	t1 = now();
	/* Partial batches left over in lists other than the last one's. */
	for (unsigned i = 0; i < LISTS; i++) {
		if (!npend[i])
			continue;
		int k = dta_ap_ops(&l, i, &cur[i], pending[i], npend[i], frame,
				   sizeof(frame), ops, 2);

		if (k < 0 || dta_memops_apply(dta_region_data(r), l.data_size,
					      ops, (size_t)k) < 0)
			die("append flush", k);
		batches++;
		int n;

		while ((n = dta_ap_read(rd[i], out, K * 64, &lost)) > 0)
			read += (uint64_t)n;
	}
	printf("Congestion events (Append, %d lists, batches of %d, %u-frame rings)\n",
	       LISTS, K, l.g.ap.ring_batches);
	printf("  %u events in %llu batch writes; consumer read %llu, lost %llu, "
	       "out of order %llu\n",
	       events, (unsigned long long)batches, (unsigned long long)read,
	       (unsigned long long)lost, (unsigned long long)disorder);
	printf("  %.2f M events/s appended and consumed (1 core)\n\n",
	       events / (t1 - t0) / 1e6);
	for (unsigned i = 0; i < LISTS; i++)
		dta_ap_reader_destroy(rd[i]);
	dta_region_destroy(r);
}

static void demo_keyincr(const struct opts *o)
{
	const unsigned flows = o->flows / 8 ? o->flows / 8 : 1;
	struct dta_layout l;
	struct sink s = { .l = &l };
	uint64_t *truth, exact = 0, over = 0, under = 0, reports = 0;
	uint8_t pkt[64], key[13];
	double t0, t1;
	int err;

	err = dta_layout_ki(&l, 1u << 20, 2, 1, DTA_HASH_CRC32C, o->seed);
	if (err)
		die("Key-Increment layout", err);
	s.r = make_region(&l, "turboflow");
	truth = calloc(flows, sizeof(*truth));
	if (!truth)
		die("memory", -ENOMEM);
	/* TurboFlow evicts microflow records with packet counts; popular
	 * flows are evicted many times. */
	t0 = now();
	for (unsigned e = 0; e < o->flows; e++) {
		unsigned f = (unsigned)(rnd() % flows);
		uint64_t pkts = 1 + rnd() % 100;
		struct dta_report r = { .format = DTA_FORMAT_V1,
					.opcode = DTA_OP_KEY_INCREMENT };
		int len;

		if (e % 3 == 0)
			f %= 16; /* a few heavy hitters */
		flow_key(f, key);
		r.u.ki.redundancy = 2;
		r.u.ki.key_len = 13;
		r.u.ki.key = key;
		r.u.ki.counter = pkts;
		len = dta_wire_encode(&r, pkt, sizeof(pkt));
		if (len < 0)
			die("encode", len);
		translate(&s, pkt, (size_t)len);
		truth[f] += pkts;
		reports++;
	}
	t1 = now();
	for (unsigned f = 0; f < flows; f++) {
		uint64_t v;

		flow_key(f, key);
		dta_ki_query(&l, dta_region_data(s.r), key, 13, 0, &v);
		if (v == truth[f])
			exact++;
		else if (v > truth[f])
			over++;
		else
			under++;
	}
	printf("TurboFlow counters (Key-Increment, count-min 2 x %llu)\n",
	       (unsigned long long)l.g.ki.width);
	printf("  %llu evictions of %u flows, %llu fetch-and-adds\n",
	       (unsigned long long)reports, flows, (unsigned long long)s.ops);
	printf("  exact %llu, overestimated %llu, underestimated %llu (must be 0)\n",
	       (unsigned long long)exact, (unsigned long long)over,
	       (unsigned long long)under);
	printf("  %.2f M updates/s (1 core)\n", reports / (t1 - t0) / 1e6);
	free(truth);
	dta_region_destroy(s.r);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dta_demo [options]\n"
		"Runs every DTA primitive end to end in one process and prints\n"
		"query success against the paper's bounds.\n\n"
		"  -f, --flows N       flows / events per primitive (default 1000000)\n"
		"  -s, --slots-log2 K  Key-Write slots = 2^K (default 22)\n"
		"  -a, --pc-alpha A    Postcarding load: chunks = flows / (2 A)\n"
		"                      (default 0.1)\n"
		"      --seed S        hash seed and workload seed (default 1)\n"
		"  -h, --help          this text\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "flows", required_argument, NULL, 'f' },
		{ "slots-log2", required_argument, NULL, 's' },
		{ "pc-alpha", required_argument, NULL, 'a' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .flows = 1000000, .kw_log2_slots = 22,
			  .pc_alpha = 0.1, .seed = 1 };
	int c;

	while ((c = getopt_long(argc, argv, "f:s:a:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.flows = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o.kw_log2_slots = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'a':
			o.pc_alpha = strtod(optarg, NULL);
			break;
		case 'S':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (o.flows == 0 || o.kw_log2_slots < 4 || o.kw_log2_slots > 32 ||
	    !(o.pc_alpha > 0 && o.pc_alpha < 100)) {
		fprintf(stderr, "dta_demo: option out of range\n");
		usage(stderr);
		return 2;
	}
	rng_state = o.seed;
	printf("libdta %s demo: %u flows per primitive, structures in shared memory\n\n",
	       DTA_VERSION_STRING, o.flows);
	demo_keywrite(&o);
	demo_postcard(&o);
	demo_append(&o);
	demo_keyincr(&o);
	return 0;
}
