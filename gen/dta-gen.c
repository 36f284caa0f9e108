/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-gen: DTA report generator for the paper's workloads, with a ground-
 * truth file to check a collector's answers against (dta-query verify).
 *
 *   kw  INT path tracing: Key-Write of a flow's 5 x 4-byte switch ids
 *   pc  INT postcards: one Postcarding report per hop of a fat-tree path
 *   ap  congestion / loss events: Append entries to event lists
 *   ki  TurboFlow / Marple counters: Key-Increment of packet or byte counts
 *   int-pc, int-md, int-drop, int-q  INT telemetry reports (v0.5, v1.0,
 *       v2.0) for a translator's [int] port: postcards, INT-MD stacks,
 *       drop and congestion reports (docs/int.md)
 *
 * Reports go over UDP or into a pcap file. Keys are IPv4 5-tuples, drawn
 * uniformly or with Zipf popularity, or taken from a packet trace.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <xxhash.h>

#include "dta/config.h"
#include "dta/hash.h"
#include "dta/int.h"
#include "tools.h"

enum { W_KW, W_PC, W_AP, W_KI, W_INT_PC, W_INT_MD, W_INT_DROP, W_INT_Q };
#define IS_INT(t) ((t) >= W_INT_PC)

struct gen {
	const char *source; /* --source: the sending socket's address */
	int type;
	uint64_t count, keys;
	double zipf, rate;
	uint64_t seed;
	unsigned redundancy, data_len, batch, lists, first_list, fat_k;
	unsigned entry, pc_window;
	uint64_t malformed, malformed_sent; /* junk packets to mix in */
	uint16_t reporter;
	uint32_t seq;
	int legacy;
	int immediate; /* --immediate: DTA_FLAG_IMMEDIATE on every v1 report */
	const char *dest, *pcap_out, *truth, *trace;
	const char *config;     /* -c: check the reports fit its structures */
	int allow_mismatch;     /* --allow-mismatch: send them anyway */
	const char *sync;       /* the translator's stats file (-o) */
	uint64_t window;        /* datagrams between waits on @sync */
	double sync_timeout;
	uint64_t sync_base;     /* datagrams the translator had before us */
	uint64_t unsynced;      /* datagrams sent since the last wait */
	uint64_t datagrams;     /* all sent, malformed ones too (not failed sends) */

	/* output */
	int fd;
	struct sockaddr_in to;
	pcap_t *dead;
	pcap_dumper_t *dump;
	uint64_t ts_ns, sent_packets, sent_reports, send_errors;
	uint64_t t0;
	uint8_t pkt[DTA_PAYLOAD_MAX];
	size_t pkt_len;
	unsigned pkt_reports;

	/* INT reports (run_int) */
	unsigned int_version, int_ttl, int_n;
	int int_ipv6;
	int int_sink_md;     /* v2.0 INT-MD: the sink's metadata in the header */
	uint8_t int_stack;   /* INT-MD stack layout, enum dta_int_md_layout */
	int int_egress;      /* copies taken after each hop's TTL decrement */
	size_t int_bytes;
	struct dta_int_report int_r[256];
	uint8_t int_inner[256][256];
	uint32_t *int_seq;   /* next sequence number per node id */
	uint64_t *int_queue; /* reports per switch id * 8 + queue id */

	/* keys */
	uint8_t (*trace_keys)[13];
	uint64_t ntrace;
	uint32_t *trace_seq; /* key index per trace packet */
	uint16_t *trace_len;
	uint64_t ntrace_pkts;
	double *cdf;
	uint64_t rng;
};

static uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double rnd01(struct gen *g)
{
	return (double)(rnd(g) >> 11) * 0x1.0p-53;
}

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "dta-gen: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-gen -t kw|pc|ap|ki|int-pc|int-md|int-drop|int-q [options]\n"
		"Generate DTA reports like the paper's workloads.\n"
		"\n"
		"  -t, --type T          kw (INT path tracing), pc (INT postcards),\n"
		"                        ap (congestion/loss events), ki (flow counters);\n"
		"                        INT telemetry reports (docs/int.md \"dta-gen INT\n"
		"                        workloads and truth\"): int-pc (one postcard per\n"
		"                        hop, hop index by TTL), int-md (one report per\n"
		"                        flow from the sink, INT-MD stack of the path),\n"
		"                        int-drop (D, drop reason), int-q (Q, queue)\n"
		"  -n, --count N         reports (pc, int-pc: flows, one report per hop;\n"
		"                        int-md: flows; int-drop, int-q: events)\n"
		"                        (default 100000)\n"
		"  -k, --keys K          distinct flows/keys (default: N for kw and pc,\n"
		"                        N/10 for ki)\n"
		"  -z, --zipf S          Zipf popularity exponent (default 0: uniform)\n"
		"  -s, --seed S          random seed (default 1)\n"
		"  -r, --rate R          reports per second (default 0: as fast as possible)\n"
		"  -d, --dest HOST:PORT  send over UDP (default 127.0.0.1:40040; INT types\n"
		"                        127.0.0.1:32766)\n"
		"  -w, --pcap FILE       write the packets to a pcap file instead\n"
		"  -T, --truth FILE      write the ground truth (for dta-query verify;\n"
		"                        INT lines: int-path, int-hop, int-event,\n"
		"                        int-flow, int-queue, see docs/int.md)\n"
		"  -R, --redundancy N    kw/ki: N in each report (default 2)\n"
		"      --data BYTES      kw: data bytes, a multiple of 4 (default 20:\n"
		"                        5 switch ids)\n"
		"      --entry BYTES     ap: entry bytes, >= 4 (default 4)\n"
		"      --lists L         ap: lists written round-robin (default 1)\n"
		"      --first-list ID   ap: first list id (default 0)\n"
		"      --fat-tree K      pc/kw: fat-tree arity; switch ids are\n"
		"                        1..5K^2/4 (default 8: ids 1-80)\n"
		"      --batch M         reports per UDP packet, v1 and INT v2.0 (one\n"
		"                        reporting switch per datagram) only (default 1)\n"
		"      --int-version V   INT report format 0.5, 1.0 or 2.0 (default 2.0)\n"
		"      --int-ttl T       INT: initial inner TTL; hop h has TTL T-h\n"
		"                        (default 64)\n"
		"      --int-egress      INT: switches copy after their TTL decrement:\n"
		"                        hop h has TTL T-h-1 (default: before, T-h)\n"
		"      --int-stack L     int-md: INT-MD stack layout 2 (INT v2.x),\n"
		"                        1.0 or 0.5, in any report version (default 2)\n"
		"      --int-sink-md     int-md, v2.0: the sink puts its own metadata in\n"
		"                        the report header, not on the stack\n"
		"      --int-ipv6        INT: IPv6 flows (the IPv4 ones inside\n"
		"                        2001:db8::/96; 37-byte keys)\n"
		"      --legacy          the research prototype's wire format\n"
		"      --immediate       v1: set the immediate (notify) flag on every\n"
		"                        report: waiting clients are woken\n"
		"      --reporter ID     v1 reporter id (default 1); INT: the hw_id\n"
		"                        (0-63) of every report, so runs with different\n"
		"                        ids are different INT reporters\n"
		"      --source ADDR     send from this local IPv4 address (default:\n"
		"                        the kernel's choice), e.g. 127.0.0.2 to\n"
		"                        look like another switch\n"
		"      --seq N           v1 sequence number of the first report; INT:\n"
		"                        of every reporting switch's first datagram\n"
		"                        (default 0, as a restarted reporter)\n"
		"      --trace FILE      take flows and packet order from a pcap trace\n"
		"                        (IPv4 TCP/UDP); ki counts bytes\n"
		"      --malformed M     also send M malformed packets, spread over the\n"
		"                        run (truncated, bad version, bad lengths)\n"
		"      --sync FILE       the translator's stats file (dta-translator -o):\n"
		"                        after every --window datagrams, wait until the\n"
		"                        translator has accounted for all sent so far\n"
		"                        (received, dropped or refused), so its socket\n"
		"                        queue never holds more than a window\n"
		"      --window N        datagrams per --sync window (default: what\n"
		"                        the translator's receive queue surely holds,\n"
		"                        its queue_datagrams)\n"
		"      --sync-timeout S  give up waiting after S seconds (default 60)\n"
		"  -c, --config FILE     the configuration the translator reads:\n"
		"                        refuse (exit 1) to send reports its\n"
		"                        structures cannot take (Append entry size\n"
		"                        and lists, Key-Write data size and\n"
		"                        redundancy, Postcarding hops, a structure\n"
		"                        of the type at all); INT types unchecked\n"
		"      --allow-mismatch  with -c: say so, and send them anyway (tests\n"
		"                        of the translator's mismatch accounting)\n"
		"  -h, --help            this text\n"
		"      --version         print \"dta-gen VERSION\" and exit\n"
		"\n"
		"The docs/NAME.md files named here are installed as\n"
		"/usr/share/doc/dta-tools/NAME.md by the dta-tools package\n"
		"(PREFIX/share/doc/dta-tools/ by cmake --install).\n");
}

/* ---- keys and paths ---- */

static void flow_key(struct gen *g, uint64_t i, uint8_t k[13])
{
	uint64_t h;

	if (g->trace_keys) {
		memcpy(k, g->trace_keys[i], 13);
		return;
	}
	/* A distinct 5-tuple per flow index: 10.x.y.z -> 10.128+..., ports
	 * from a hash so keys are not sequential. */
	h = i * 0x9E3779B97F4A7C15ull + g->seed;
	h ^= h >> 29;
	k[0] = 10;
	k[1] = (uint8_t)(i >> 16);
	k[2] = (uint8_t)(i >> 8);
	k[3] = (uint8_t)i;
	k[4] = 10;
	k[5] = (uint8_t)(128 | (h & 127));
	k[6] = (uint8_t)(h >> 8);
	k[7] = (uint8_t)(h >> 16);
	k[8] = (uint8_t)(h >> 24);
	k[9] = (uint8_t)(h >> 32);
	k[10] = (uint8_t)(i >> 24); /* keeps flows distinct beyond 2^24 */
	k[11] = (uint8_t)(h >> 48);
	k[12] = (h >> 56) & 1 ? 17 : 6;
}

/* The fat-tree path of flow @i: 1 hop (same edge), 3 (same pod) or 5. */
static unsigned flow_path(struct gen *g, uint64_t i, uint32_t *ids)
{
	unsigned k = g->fat_k, half = k / 2;
	unsigned edges = k * half, aggs = k * half;
	uint64_t h = (i + 1) * 0xD1B54A32D192ED03ull ^ g->seed;
	unsigned src_edge, dst_edge, pod_s, pod_d;

	h ^= h >> 31;
	src_edge = (unsigned)(h % edges);
	dst_edge = (unsigned)((h >> 20) % edges);
	pod_s = src_edge / half;
	pod_d = dst_edge / half;
	ids[0] = 1 + src_edge;
	if (src_edge == dst_edge)
		return 1;
	ids[1] = 1 + edges + pod_s * half + (unsigned)((h >> 40) % half);
	if (pod_s == pod_d) {
		ids[2] = 1 + dst_edge;
		return 3;
	}
	ids[2] = 1 + edges + aggs + (unsigned)((h >> 44) % (half * half));
	ids[3] = 1 + edges + pod_d * half + (unsigned)((h >> 52) % half);
	ids[4] = 1 + dst_edge;
	return 5;
}

static void make_zipf(struct gen *g)
{
	double sum = 0;

	g->cdf = malloc(g->keys * sizeof(*g->cdf));
	if (!g->cdf)
		die("out of memory for %s", "the Zipf table");
	for (uint64_t i = 0; i < g->keys; i++) {
		sum += 1.0 / pow((double)(i + 1), g->zipf);
		g->cdf[i] = sum;
	}
	for (uint64_t i = 0; i < g->keys; i++)
		g->cdf[i] /= sum;
}

static uint64_t pick(struct gen *g, uint64_t n)
{
	double u;
	uint64_t lo = 0, hi;

	if (g->trace_seq)
		return g->trace_seq[n % g->ntrace_pkts];
	if (!g->cdf)
		return rnd(g) % g->keys;
	u = rnd01(g);
	hi = g->keys - 1;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (g->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Popular ranks are scattered over the key space. */
	return (lo * 0x9E3779B97F4A7C15ull) % g->keys;
}

/* ---- trace input ---- */

static void load_trace(struct gen *g)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(g->trace, errbuf);
	struct pcap_pkthdr *h;
	const uint8_t *p;
	uint64_t cap_keys = 0, cap_pkts = 0;
	uint64_t *tab; /* open addressing: key index + 1 */
	const uint64_t tabsize = 1u << 24;

	if (!pc)
		die("%s", errbuf);
	tab = calloc(tabsize, sizeof(*tab));
	if (!tab)
		die("out of memory for %s", "the trace");
	while (pcap_next_ex(pc, &h, &p) == 1) {
		size_t off = 14, ihl;
		uint8_t key[13], proto;
		uint64_t hh, slot;

		if (pcap_datalink(pc) != DLT_EN10MB)
			die("%s: only Ethernet captures are supported", g->trace);
		if (h->caplen < 14 + 20 || p[12] != 0x08 || p[13] != 0x00)
			continue;
		ihl = (size_t)(p[off] & 15) * 4;
		proto = p[off + 9];
		if ((proto != 6 && proto != 17) || h->caplen < off + ihl + 4)
			continue;
		memcpy(key, p + off + 12, 8);
		memcpy(key + 8, p + off + ihl, 4);
		key[12] = proto;
		hh = XXH3_64bits(key, 13);
		for (slot = hh & (tabsize - 1); tab[slot];
		     slot = (slot + 1) & (tabsize - 1))
			if (!memcmp(g->trace_keys[tab[slot] - 1], key, 13))
				break;
		if (!tab[slot]) {
			if (g->ntrace == tabsize / 2)
				die("%s: more than 8M flows", g->trace);
			if (g->ntrace == cap_keys) {
				cap_keys = cap_keys ? 2 * cap_keys : 4096;
				g->trace_keys = realloc(g->trace_keys, cap_keys * 13);
			}
			memcpy(g->trace_keys[g->ntrace], key, 13);
			tab[slot] = ++g->ntrace;
		}
		if (g->ntrace_pkts == cap_pkts) {
			cap_pkts = cap_pkts ? 2 * cap_pkts : 4096;
			g->trace_seq = realloc(g->trace_seq, cap_pkts * 4);
			g->trace_len = realloc(g->trace_len, cap_pkts * 2);
			if (!g->trace_seq || !g->trace_len)
				die("out of memory for %s", "the trace");
		}
		g->trace_seq[g->ntrace_pkts] = (uint32_t)(tab[slot] - 1);
		g->trace_len[g->ntrace_pkts++] = (uint16_t)(h->len > 65535 ? 65535 : h->len);
	}
	pcap_close(pc);
	free(tab);
	if (!g->ntrace_pkts)
		die("%s: no IPv4 TCP/UDP packets", g->trace);
	g->keys = g->ntrace;
}

/* ---- output ---- */

static void pace(struct gen *g)
{
	uint64_t due, now;

	if (g->rate <= 0)
		return;
	due = g->t0 + (uint64_t)((double)g->sent_reports / g->rate * 1e9);
	now = tool_now_ns();
	if (due > now + 50000) {
		struct timespec ts = { .tv_sec = (time_t)((due - now) / 1000000000u),
				       .tv_nsec = (long)((due - now) % 1000000000u) };

		nanosleep(&ts, NULL);
	}
}

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Datagrams the translator accounted for (received, dropped by the
 * kernel, refused, truncated) per its stats file; *@js gets the file,
 * *@window (may be NULL) its receive queue's size in datagrams. */
/* Counter @key of stats object @o: 0 when absent or not a count. */
static uint64_t jcount(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) > 0
		       ? (uint64_t)json_integer_value(v) : 0;
}

static int accounted(const char *path, bool intp, uint64_t *n,
		     uint64_t *window, char *js, size_t cap)
{
	FILE *f = fopen(path, "r");
	json_t *o;
	size_t len;

	if (!f)
		return -1;
	len = fread(js, 1, cap - 1, f);
	fclose(f);
	js[len] = 0;
	o = json_loads(js, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return -1; /* not a whole object (being rewritten) */
	}
	if (intp) { /* the INT port's datagrams, decoded or not */
		*n = jcount(o, "int_datagrams");
	} else {
		*n = jcount(o, "packets") + jcount(o, "socket_drops") +
		     jcount(o, "refused_source") + jcount(o, "rx_truncated");
	}
	if (window)
		*window = jcount(o, "queue_datagrams");
	json_decref(o);
	return 0;
}

/* Wait until the translator has accounted for every datagram sent. */
static void sync_wait(struct gen *g, bool first)
{
	uint64_t deadline = tool_now_ns() + (uint64_t)(g->sync_timeout * 1e9);
	uint64_t want = g->sync_base + g->datagrams;
	uint64_t have = 0, window = 0;
	char js[8192];
	struct timespec ts = { .tv_nsec = 2000000 };

	for (;;) {
		if (accounted(g->sync, IS_INT(g->type), &have, &window, js,
			      sizeof(js)) == 0 &&
		    (first || have >= want))
			break;
		if (tool_now_ns() > deadline) {
			if (first)
				die("--sync %s: no stats file from the translator "
				    "after %g s", g->sync, g->sync_timeout);
			die("--sync %s: the translator accounted for %" PRIu64
			    " of %" PRIu64 " datagrams after %g s; its counters: %s",
			    g->sync, have - g->sync_base, want - g->sync_base,
			    g->sync_timeout, js);
		}
		nanosleep(&ts, NULL);
	}
	if (first) {
		g->sync_base = have;
		/* What the translator's receive queue surely holds. */
		if (!g->window)
			g->window = window;
		if (!g->window)
			g->window = 16;
	}
	g->unsynced = 0;
}

static void flush_packet(struct gen *g)
{
	if (!g->pkt_len)
		return;
	if (g->dump) {
		uint8_t frame[14 + 20 + 8 + DTA_PAYLOAD_MAX];
		struct pcap_pkthdr h;
		uint8_t *ip = frame + 14, *udp = ip + 20;
		size_t ulen = 8 + g->pkt_len;

		memset(frame, 0, 42);
		memcpy(frame, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
		frame[12] = 0x08;
		ip[0] = 0x45;
		ip[2] = (uint8_t)((20 + ulen) >> 8);
		ip[3] = (uint8_t)(20 + ulen);
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
		{
			uint16_t c = ip_csum(ip, 20);

			ip[10] = (uint8_t)(c >> 8);
			ip[11] = (uint8_t)c;
		}
		udp[0] = 0x9c;
		udp[1] = 0x40;
		udp[2] = (uint8_t)(ntohs(g->to.sin_port) >> 8);
		udp[3] = (uint8_t)ntohs(g->to.sin_port);
		udp[4] = (uint8_t)(ulen >> 8);
		udp[5] = (uint8_t)ulen;
		memcpy(udp + 8, g->pkt, g->pkt_len);
		h.ts.tv_sec = (time_t)(g->ts_ns / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(g->ts_ns % 1000000000u / 1000);
		h.caplen = h.len = (bpf_u_int32)(42 + g->pkt_len);
		pcap_dump((u_char *)g->dump, &h, frame);
		g->ts_ns += g->rate > 0 ? (uint64_t)(1e9 / g->rate * g->pkt_reports)
					: 1000;
	} else {
		pace(g);
		while (sendto(g->fd, g->pkt, g->pkt_len, 0,
			      (struct sockaddr *)&g->to, sizeof(g->to)) < 0) {
			if (errno == ENOBUFS || errno == EAGAIN) {
				usleep(100);
				continue;
			}
			g->send_errors++;
			g->datagrams--; /* undone below: never sent, so
					 * --sync must not wait for it */
			break;
		}
	}
	g->sent_packets++;
	g->datagrams++;
	g->pkt_len = 0;
	g->pkt_reports = 0;
	if (g->sync && ++g->unsynced >= g->window)
		sync_wait(g, false);
}

/* A packet the translator must reject whole: cycles through truncation,
 * an unknown version, a length field past the end and a bad opcode. */
static void junk(struct gen *g)
{
	static const uint8_t kinds[4][16] = {
		{ 0xD1, 0x01, 0x00, 0x00, 0x00, 0x40 },             /* truncated */
		{ 0xD7, 0x01, 0x00, 0x00, 0x00, 0x04, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1 },
		{ 0xD1, 0x01, 0x00, 0x00, 0x7f, 0xff, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1 },
		{ 0xD1, 0x09, 0x00, 0x00, 0x00, 0x04, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1 },
	};
	static const size_t lens[4] = { 6, 16, 16, 16 };
	unsigned k = (unsigned)(g->malformed_sent++ % 4);

	flush_packet(g);
	memcpy(g->pkt, kinds[k], lens[k]);
	g->pkt_len = lens[k];
	g->pkt_reports = 0;
	flush_packet(g);
	g->sent_packets--; /* counted separately */
}

static void emit(struct gen *g, struct dta_report *r)
{
	int n;

	/* Spread the malformed packets evenly over the reports. */
	while (g->malformed_sent < g->malformed &&
	       g->malformed_sent * g->count <= g->sent_reports * g->malformed)
		junk(g);

	r->format = g->legacy ? DTA_FORMAT_LEGACY : DTA_FORMAT_V1;
	r->reporter = g->reporter;
	r->seq = g->seq++;
	r->flags = !g->legacy && g->immediate ? DTA_FLAG_IMMEDIATE : 0;
	n = dta_wire_encoded_size(r);
	if (n < 0)
		die("cannot encode a report: %s", dta_strerror(n));
	if (g->legacy || g->pkt_reports == g->batch ||
	    g->pkt_len + (size_t)n > 1400)
		flush_packet(g);
	n = dta_wire_encode(r, g->pkt + g->pkt_len, sizeof(g->pkt) - g->pkt_len);
	if (n < 0)
		die("cannot encode a report: %s", dta_strerror(n));
	g->pkt_len += (size_t)n;
	g->pkt_reports++;
	g->sent_reports++;
	if (g->legacy)
		flush_packet(g);
}

/* ---- workloads ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void hex_line(FILE *t, const char *tag, const uint8_t *k, size_t kl)
{
	char hex[2 * DTA_KEY_MAX + 1];

	tool_hex(k, kl, hex);
	fprintf(t, "%s %s", tag, hex);
}

static void run_kw(struct gen *g, FILE *t)
{
	uint64_t *last = calloc(g->keys, sizeof(*last)); /* report index + 1 */
	uint64_t *order;
	uint8_t key[13], data[DTA_DATA_MAX];
	struct dta_report r = { .opcode = DTA_OP_KEY_WRITE };

	if (!last)
		die("out of memory for %s", "key-write truth");
	for (uint64_t n = 0; n < g->count; n++) {
		uint64_t i = pick(g, n);
		uint32_t ids[5] = { 0 };
		unsigned len = flow_path(g, i, ids);

		flow_key(g, i, key);
		memset(data, 0, g->data_len);
		for (unsigned h = 0; h < len && 4 * h + 4 <= g->data_len; h++)
			put_be32(data + 4 * h, ids[h]);
		r.u.kw.redundancy = (uint8_t)g->redundancy;
		r.u.kw.key_len = g->legacy ? 4 : 13;
		r.u.kw.key = g->legacy ? key + 0 : key;
		r.u.kw.data_len = (uint16_t)(g->legacy ? 4 : g->data_len);
		r.u.kw.data = data;
		emit(g, &r);
		last[i] = n + 1;
	}
	if (!t) {
		free(last);
		return;
	}
	/* Truth in order of each key's last write: oldest first, so a
	 * verifier can compute every key's age. */
	order = malloc(g->count * sizeof(*order));
	if (!order)
		die("out of memory for %s", "key-write truth");
	memset(order, 0xff, g->count * sizeof(*order));
	for (uint64_t i = 0; i < g->keys; i++)
		if (last[i])
			order[last[i] - 1] = i;
	for (uint64_t n = 0; n < g->count; n++) {
		uint64_t i = order[n];
		uint32_t ids[5] = { 0 };
		unsigned len;
		char hex[2 * DTA_DATA_MAX + 1];

		if (i == UINT64_MAX)
			continue;
		len = flow_path(g, i, ids);
		flow_key(g, i, key);
		memset(data, 0, g->data_len);
		for (unsigned h = 0; h < len && 4 * h + 4 <= g->data_len; h++)
			put_be32(data + 4 * h, ids[h]);
		hex_line(t, "kw", key, g->legacy ? 4 : 13);
		tool_hex(data, g->legacy ? 4 : g->data_len, hex);
		fprintf(t, " %s\n", hex);
	}
	free(order);
	free(last);
}

static void run_pc(struct gen *g, FILE *t)
{
	/* Postcards of a window of flows in flight are interleaved, as
	 * switches along different paths report at different times. */
	uint64_t W = g->pc_window;
	struct dta_report r = { .opcode = DTA_OP_POSTCARD };

	for (uint64_t base = 0; base < g->count; base += W) {
		uint64_t n = g->count - base < W ? g->count - base : W;
		uint32_t ids[64][5];
		unsigned len[64], next[64] = { 0 }, left = 0;
		uint8_t keys[64][13];

		for (uint64_t j = 0; j < n; j++) {
			uint64_t i = g->trace_seq ? pick(g, base + j) : base + j;

			flow_key(g, i, keys[j]);
			len[j] = flow_path(g, i, ids[j]);
			left += len[j];
			if (t) {
				hex_line(t, "pc", keys[j], g->legacy ? 4 : 13);
				for (unsigned h = 0; h < len[j]; h++)
					fprintf(t, "%c%u", h ? ',' : ' ', ids[j][h]);
				fputc('\n', t);
			}
		}
		while (left) {
			uint64_t j = rnd(g) % n;

			if (next[j] == len[j])
				continue;
			r.u.pc.hop = (uint8_t)next[j];
			r.u.pc.path_len = (uint8_t)len[j];
			r.u.pc.key_len = g->legacy ? 4 : 13;
			r.u.pc.key = keys[j];
			r.u.pc.value = ids[j][next[j]++];
			emit(g, &r);
			left--;
		}
	}
}

static void run_ap(struct gen *g, FILE *t)
{
	struct dta_report r = { .opcode = DTA_OP_APPEND };
	uint8_t data[DTA_DATA_MAX];
	char hex[2 * DTA_DATA_MAX + 1];

	for (uint64_t n = 0; n < g->count; n++) {
		uint32_t list = g->first_list + (uint32_t)(n % g->lists);

		/* An event: its sequence number, then a flow id. */
		memset(data, 0, g->entry);
		put_be32(data, (uint32_t)n);
		if (g->entry >= 8)
			put_be32(data + 4, (uint32_t)pick(g, n));
		r.u.ap.list_id = list;
		r.u.ap.data_len = (uint16_t)g->entry;
		r.u.ap.data = data;
		emit(g, &r);
		if (t) {
			tool_hex(data, g->entry, hex);
			fprintf(t, "ap %u %s\n", list, hex);
		}
	}
}

static void run_ki(struct gen *g, FILE *t)
{
	uint64_t *sum = calloc(g->keys, sizeof(*sum));
	struct dta_report r = { .opcode = DTA_OP_KEY_INCREMENT };
	uint8_t key[13];

	if (!sum)
		die("out of memory for %s", "key-increment truth");
	for (uint64_t n = 0; n < g->count; n++) {
		uint64_t i = pick(g, n);
		uint64_t add = g->trace_len ? g->trace_len[n % g->ntrace_pkts] : 1;

		flow_key(g, i, key);
		r.u.ki.redundancy = (uint8_t)g->redundancy;
		r.u.ki.key_len = g->legacy ? 4 : 13;
		r.u.ki.key = key;
		r.u.ki.counter = add;
		emit(g, &r);
		sum[i] += add;
	}
	for (uint64_t i = 0; t && i < g->keys; i++) {
		if (!sum[i])
			continue;
		flow_key(g, i, key);
		hex_line(t, "ki", key, g->legacy ? 4 : 13);
		fprintf(t, " %" PRIu64 "\n", sum[i]);
	}
	free(sum);
}

/* ---- INT telemetry reports (docs/int.md "dta-gen INT workloads") ---- */

/* One report to build: flow @i, hop @h of its path (int-md: the sink). */
struct int_item {
	uint64_t i;
	uint32_t reporter; /* switch id; the v2.0 group's node id */
	uint32_t order;    /* position after shuffling */
	uint8_t h, len;
	uint32_t ids[5];
};

/* The metadata of flow @i at hop @h: deterministic, so the truth file
 * can be written without keeping it. Values stay below 2^31 (timestamps
 * fit the 32-bit fields of v0.5/v1.0, and shell arithmetic). */
static void int_hop_md(struct gen *g, uint64_t i, unsigned h, uint32_t sw,
		       struct dta_int_md *m)
{
	uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (h + 1) * 0xC2B2AE3D27D4EB4Full ^ g->seed;

	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 32;
	memset(m, 0, sizeof(*m));
	m->switch_id = sw;
	m->ingress_port = (uint16_t)(1 + x % 48);
	m->egress_port = (uint16_t)(1 + (x >> 8) % 48);
	m->queue_id = (uint8_t)((x >> 16) % 8);
	m->queue_occupancy = (uint32_t)((x >> 20) % 50000);
	m->hop_latency = (uint32_t)(200 + (x >> 36) % 20000);
	m->egress_ts = (1000000 + i * 1000 + h * 10) & 0x7FFFFFFF;
	m->ingress_ts = m->egress_ts - m->hop_latency;
	m->drop_queue_id = m->queue_id;
	m->drop_reason = (uint8_t)(1 + (x >> 48) % 254);
}

/* Flow @i as the mapping keys it (docs/keys.md): flow_key()'s IPv4
 * 5-tuple, or with --int-ipv6 the same addresses inside 2001:db8::/96
 * (37 bytes). Returns the key length. */
static size_t int_key(struct gen *g, uint64_t i, uint8_t k[37])
{
	uint8_t v4[13];

	flow_key(g, i, v4);
	if (!g->int_ipv6) {
		memcpy(k, v4, 13);
		return 13;
	}
	memset(k, 0, 37);
	memcpy(k, "\x20\x01\x0d\xb8", 4);
	memcpy(k + 12, v4, 4);
	memcpy(k + 16, k, 12);
	memcpy(k + 28, v4 + 4, 4);
	memcpy(k + 32, v4 + 8, 5);
	return 37;
}

static void int_flow(const uint8_t *k, size_t kl, struct dta_int_flow *f)
{
	size_t al = kl == 13 ? 4 : 16;

	memset(f, 0, sizeof(*f));
	f->family = kl == 13 ? 4 : 6;
	memcpy(f->src, k, al);
	memcpy(f->dst, k + al, al);
	f->sport = (uint16_t)(k[2 * al] << 8 | k[2 * al + 1]);
	f->dport = (uint16_t)(k[2 * al + 2] << 8 | k[2 * al + 3]);
	f->proto = k[2 * al + 4];
}

static void int_flush(struct gen *g)
{
	int n;

	if (!g->int_n)
		return;
	n = dta_int_encode(g->int_r, g->int_n, g->pkt, sizeof(g->pkt));
	if (n < 0)
		die("cannot encode an INT report: %s", dta_strerror(n));
	g->pkt_len = (size_t)n;
	g->pkt_reports = g->int_n;
	g->int_n = 0;
	g->int_bytes = 0;
	flush_packet(g);
}

static void hop_truth(FILE *t, const uint8_t *key, size_t kl,
		      const struct dta_int_md *m, bool lat)
{
	hex_line(t, "int-hop", key, kl);
	fprintf(t, " %u ", m->switch_id);
	if (lat)
		fprintf(t, "%u", m->hop_latency);
	else
		fputc('-', t);
	fprintf(t, " %u %" PRIu64 "\n", m->queue_occupancy, m->egress_ts);
}

/* Build, batch and send the report of @it; its truth lines. */
static void int_emit(struct gen *g, const struct int_item *it, FILE *t,
		     uint64_t *flow_reports)
{
	struct dta_int_report *r;
	struct dta_int_md hops[5], m;
	struct dta_int_inner in = { .sz = sizeof(in) };
	uint8_t key[37];
	size_t kl;
	unsigned ver = g->int_version;
	/* hops on the stack: all, or all but the sink (--int-sink-md) */
	unsigned ns = it->len - (g->int_sink_md ? 1u : 0u);
	size_t need;
	int il;

	kl = int_key(g, it->i, key);
	int_flow(key, kl, &in.flow);
	/* Hop h copies the packet after h decrements (ingress), or h + 1
	 * (egress: the switch routed it first). */
	in.ttl = (uint8_t)(g->int_ttl - it->h - (g->int_egress ? 1 : 0));
	if (g->type == W_INT_MD) {
		/* The stack, newest (the sink's, unless it reports its own
		 * metadata in the header) first. */
		for (unsigned h = 0; h < ns; h++)
			int_hop_md(g, it->i, h, it->ids[h], &hops[ns - 1 - h]);
		in.dscp = 1; /* the decoder's default INT DSCP bit */
		in.int_md = true;
		in.instructions = 0xF400; /* node id, ports, latency, queue, egress ts */
		in.remaining_hops = (uint8_t)(8 - ns);
		in.n_hops = (uint8_t)ns;
		in.hops = hops;
		in.md_layout = g->int_stack;
	}
	il = dta_int_inner_build(&in, g->int_inner[g->int_n], sizeof(g->int_inner[0]));
	if (il > 0 && il % 4) {
		in.payload_len = (size_t)(4 - il % 4);
		il = dta_int_inner_build(&in, g->int_inner[g->int_n],
					 sizeof(g->int_inner[0]));
	}
	if (il < 0)
		die("cannot build an inner packet: %s", dta_strerror(il));
	need = (size_t)il + 64;
	if (g->int_n && (ver != DTA_INT_V2_0 || g->int_n == g->batch ||
			 g->int_r[0].node_id != it->reporter ||
			 g->int_bytes + need > 1400)) {
		/* The inner packet was built into the next slot: move it. */
		uint8_t tmp[sizeof(g->int_inner[0])];

		memcpy(tmp, g->int_inner[g->int_n], (size_t)il);
		int_flush(g);
		memcpy(g->int_inner[0], tmp, (size_t)il);
	}
	r = &g->int_r[g->int_n];
	memset(r, 0, sizeof(*r));
	r->inner = g->int_inner[g->int_n];
	r->inner_len = (size_t)il;
	r->version = (uint8_t)ver;
	r->rep_type = DTA_INT_REPTYPE_INT;
	r->hw_id = (uint8_t)g->reporter;
	/* v0.5 INT-MD reports (NProto 0) carry no switch id: one sequence
	 * for all of them, as the translator counts them. */
	r->node_id = g->type == W_INT_MD && ver == DTA_INT_V0_5 ? 0 : it->reporter;
	r->next = ver == DTA_INT_V2_0 ? DTA_INT_INTYPE_ETHERNET : 0;
	/* A v2.0 group's reports share its sequence number. */
	if (g->int_n)
		r->seq = g->int_r[0].seq;
	else
		r->seq = g->int_seq[r->node_id]++ &
			 (ver == DTA_INT_V2_0 ? 0x3FFFFFu : ~0u);
	int_hop_md(g, it->i, it->h, it->ids[it->h], &m);
	switch (g->type) {
	case W_INT_PC:
		r->local = m;
		r->local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
				   DTA_INT_MD_QUEUE | DTA_INT_MD_EGRESS_TS |
				   (ver == DTA_INT_V0_5 ? 0 : DTA_INT_MD_HOP_LATENCY);
		if (ver == DTA_INT_V0_5)
			r->next = DTA_INT_V05_LOCAL;
		if (t)
			hop_truth(t, key, kl, &m, ver != DTA_INT_V0_5);
		break;
	case W_INT_MD:
		/* The sink reports: its own metadata is on the stack, or
		 * (--int-sink-md) in the header, the path's last hop
		 * (INT.mdk v2.1, the sink's second option). */
		r->local.present = 0;
		r->local.switch_id = it->reporter;
		if (g->int_sink_md) {
			r->local = m;
			r->local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
					   DTA_INT_MD_HOP_LATENCY |
					   DTA_INT_MD_QUEUE | DTA_INT_MD_EGRESS_TS;
		}
		for (unsigned h = 0; t && h < ns; h++)
			hop_truth(t, key, kl, &hops[ns - 1 - h], true);
		if (t && g->int_sink_md)
			hop_truth(t, key, kl, &m, true);
		break;
	case W_INT_DROP:
	case W_INT_Q: {
		uint8_t e[32];
		char hex[65];
		bool drop = g->type == W_INT_DROP;

		r->local = m;
		r->flags = drop ? DTA_INT_F_DROPPED : DTA_INT_F_CONGESTED;
		if (drop) {
			r->local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
					   DTA_INT_MD_DROP | DTA_INT_MD_INGRESS_TS;
			if (ver == DTA_INT_V0_5)
				r->next = DTA_INT_V05_DROP;
		} else {
			r->local.present = DTA_INT_MD_SWITCH_ID | DTA_INT_MD_PORTS |
					   DTA_INT_MD_QUEUE | DTA_INT_MD_EGRESS_TS;
			if (ver == DTA_INT_V0_5)
				r->next = DTA_INT_V05_LOCAL;
		}
		if (!t)
			break;
		/* The events entry the mapping writes (docs/int.md), built
		 * here from the layout's description on purpose, not with
		 * the translator's code: it is the truth that code is checked
		 * against. */
		put_be32(e, m.switch_id);
		e[4] = (uint8_t)(m.ingress_port >> 8);
		e[5] = (uint8_t)m.ingress_port;
		e[6] = (uint8_t)(m.egress_port >> 8);
		e[7] = (uint8_t)m.egress_port;
		e[8] = r->flags;
		e[9] = m.queue_id;
		e[10] = drop ? m.drop_reason : 0xFF;
		e[11] = (uint8_t)ver;
		put_be32(e + 12, drop ? 0xFFFFFFFF : m.queue_occupancy);
		put_be32(e + 16, dta_crc32c(0, key, kl));
		put_be32(e + 20, 0xFFFFFFFF);
		put_be32(e + 24, 0);
		put_be32(e + 28, (uint32_t)(drop ? m.ingress_ts : m.egress_ts));
		tool_hex(e, 32, hex);
		hex_line(t, "int-event", key, kl);
		fprintf(t, " %u %u %u %s %u %u %u %s\n", m.switch_id,
			m.ingress_port, m.egress_port, drop ? "D" : "Q",
			m.queue_id, drop ? m.drop_reason : 255,
			drop ? 0 : m.queue_occupancy, hex);
		if (!drop)
			hop_truth(t, key, kl, &m, false);
		break;
	}
	}
	/* Per (switch, queue) counts: every described hop with a queue. */
	if (g->type == W_INT_MD) {
		for (unsigned h = 0; h < it->len; h++)
			g->int_queue[(uint64_t)it->ids[h] * 8 +
				     (h < ns ? hops[ns - 1 - h].queue_id
					     : m.queue_id)]++;
	} else {
		g->int_queue[(uint64_t)m.switch_id * 8 + m.queue_id]++;
	}
	flow_reports[it->i]++;
	g->int_bytes += need;
	g->int_n++;
	g->sent_reports++;
	if (ver != DTA_INT_V2_0)
		int_flush(g);
}

static int item_cmp(const void *a, const void *b)
{
	const struct int_item *x = a, *y = b;

	if (x->reporter != y->reporter)
		return x->reporter < y->reporter ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void run_int(struct gen *g, FILE *t)
{
	const uint64_t W = g->type == W_INT_PC || g->type == W_INT_MD ? 16 : 64;
	uint64_t nsw = (uint64_t)5 * g->fat_k * g->fat_k / 4 + 2;
	uint64_t *flow_reports = calloc(g->keys, sizeof(uint64_t));
	struct int_item items[16 * 5 > 64 ? 16 * 5 : 64];
	uint8_t key[37];
	size_t kl;

	g->int_seq = calloc(nsw, sizeof(*g->int_seq));
	g->int_queue = calloc(nsw * 8, sizeof(*g->int_queue));
	if (!flow_reports || !g->int_seq || !g->int_queue)
		die("out of memory for %s", "INT reports");
	for (uint64_t s = 0; s < nsw; s++)
		g->int_seq[s] = g->seq; /* every reporter starts at --seq */
	for (uint64_t base = 0; base < g->count; base += W) {
		uint64_t n = g->count - base < W ? g->count - base : W;
		unsigned m = 0;

		for (uint64_t j = 0; j < n; j++) {
			struct int_item it = { 0 };

			if (g->type == W_INT_PC || g->type == W_INT_MD)
				it.i = g->trace_seq ? pick(g, base + j) : base + j;
			else
				it.i = pick(g, base + j);
			it.len = (uint8_t)flow_path(g, it.i, it.ids);
			if (t && (g->type == W_INT_PC || g->type == W_INT_MD)) {
				kl = int_key(g, it.i, key);
				hex_line(t, "int-path", key, kl);
				for (unsigned h = 0; h < it.len; h++)
					fprintf(t, "%c%u", h ? ',' : ' ', it.ids[h]);
				fputc('\n', t);
			}
			if (g->type == W_INT_PC) {
				for (unsigned h = 0; h < it.len; h++) {
					it.h = (uint8_t)h;
					it.reporter = it.ids[h];
					items[m++] = it;
				}
			} else if (g->type == W_INT_MD) {
				it.h = (uint8_t)(it.len - 1);
				it.reporter = it.ids[it.len - 1];
				items[m++] = it;
			} else {
				it.h = (uint8_t)(rnd(g) % it.len);
				it.reporter = it.ids[it.h];
				items[m++] = it;
			}
		}
		/* Reports of flows in flight interleave; a v2.0 datagram
		 * holds one reporter's reports, so those are grouped. */
		for (unsigned a = m; a > 1; a--) {
			unsigned b = (unsigned)(rnd(g) % a);
			struct int_item x = items[a - 1];

			items[a - 1] = items[b];
			items[b] = x;
		}
		for (unsigned a = 0; a < m; a++)
			items[a].order = a;
		if (g->int_version == DTA_INT_V2_0 && g->batch > 1)
			qsort(items, m, sizeof(items[0]), item_cmp);
		for (unsigned a = 0; a < m; a++)
			int_emit(g, &items[a], t, flow_reports);
		int_flush(g);
	}
	for (uint64_t i = 0; t && i < g->keys; i++) {
		if (!flow_reports[i])
			continue;
		kl = int_key(g, i, key);
		hex_line(t, "int-flow", key, kl);
		fprintf(t, " %" PRIu64 "\n", flow_reports[i]);
	}
	for (uint64_t q = 0; t && q < nsw * 8; q++)
		if (g->int_queue[q])
			fprintf(t, "int-queue %08x%02x %" PRIu64 "\n",
				(unsigned)(q / 8), (unsigned)(q % 8), g->int_queue[q]);
	free(flow_reports);
	free(g->int_seq);
	free(g->int_queue);
}

static unsigned long num(const char *s, const char *what, unsigned long lo,
			 unsigned long hi)
{
	uint64_t v;

	if (dta_parse_size(s, &v) || v < lo || v > hi) {
		fprintf(stderr, "dta-gen: %s must be %lu..%lu\n", what, lo, hi);
		exit(2);
	}
	return (unsigned long)v;
}

/* ---- the configuration's structures (-c) ---- */

/* The longest path the workloads send (flow_path(): 1, 3 or 5 hops). */
#define GEN_MAX_HOPS 5

/*
 * Whether the translator of configuration @path would take every report
 * this run sends (its routing, docs/translator.md): the Append structure
 * of each list and its entry size, a Key-Write structure for the data
 * size and its redundancy, a Postcarding structure for the longest path,
 * a Key-Increment structure. Return: NULL, or why not (in @why).
 */
static const char *check_config(const struct gen *g, const char *path,
				char *why, size_t cap)
{
	struct dta_config *c;
	char err[256];
	const char *res = NULL;
	size_t n;
	int e = dta_config_load(path, &c, err, sizeof(err));

	if (e)
		die("-c %s: %s", path, e == -DTA_E_MALFORMED ? err : strerror(-e));
	n = dta_config_count(c);
	switch (g->type) {
	case W_AP:
		for (uint64_t k = 0; k < g->lists && !res; k++) {
			uint64_t list = (uint64_t)g->first_list + k;
			const struct dta_config_structure *cs = NULL;

			for (size_t i = 0; i < n && !cs; i++) {
				const struct dta_config_structure *x =
					dta_config_structure(c, i);

				if (x->layout.primitive == DTA_PRIM_APPEND &&
				    list >= x->list_base &&
				    list - x->list_base < x->layout.g.ap.lists)
					cs = x;
			}
			if (!cs) {
				snprintf(why, cap, "no Append structure holds "
					 "list %" PRIu64 " (--first-list, "
					 "--lists): the translator would count "
					 "every report to it as unknown_structure",
					 list);
				res = why;
			} else if (cs->layout.g.ap.entry_size != g->entry) {
				snprintf(why, cap, "structure %s takes entries "
					 "of %u bytes, these reports carry %u "
					 "(--entry): the translator would refuse "
					 "every one (mismatch)", cs->name,
					 cs->layout.g.ap.entry_size, g->entry);
				res = why;
			}
		}
		break;
	case W_KW: {
		const struct dta_config_structure *cs = NULL;
		char have[128] = "";
		size_t hl = 0;

		for (size_t i = 0; i < n && !cs; i++) {
			const struct dta_config_structure *x =
				dta_config_structure(c, i);

			if (x->layout.primitive != DTA_PRIM_KEY_WRITE)
				continue;
			if (x->layout.g.kw.data_len == g->data_len)
				cs = x;
			else if (hl < sizeof(have))
				hl += (size_t)snprintf(have + hl, sizeof(have) - hl,
						       "%s%s takes %u", hl ? ", " : "",
						       x->name, x->layout.g.kw.data_len);
		}
		if (!cs) {
			snprintf(why, cap, "no Key-Write structure takes data "
				 "of %u bytes (--data)%s%s: the translator "
				 "would count every report as unknown_structure",
				 g->data_len, hl ? "; " : "", have);
			res = why;
		} else if (g->redundancy > cs->layout.g.kw.max_redundancy) {
			snprintf(why, cap, "structure %s takes redundancy up to "
				 "%u, these reports ask for %u (--redundancy): "
				 "the translator would refuse every one "
				 "(mismatch)", cs->name,
				 cs->layout.g.kw.max_redundancy, g->redundancy);
			res = why;
		}
		break;
	}
	case W_PC: {
		unsigned most = 0;
		const char *name = NULL;

		for (size_t i = 0; i < n; i++) {
			const struct dta_config_structure *x =
				dta_config_structure(c, i);

			if (x->layout.primitive == DTA_PRIM_POSTCARD &&
			    x->layout.g.pc.hops >= most) {
				most = x->layout.g.pc.hops;
				name = x->name;
			}
		}
		if (!name) {
			snprintf(why, cap, "no Postcarding structure: the "
				 "translator would count every report as "
				 "unknown_structure");
			res = why;
		} else if (most < GEN_MAX_HOPS) {
			snprintf(why, cap, "structure %s takes paths of at most "
				 "%u hops, these flows have up to %u (fat-tree "
				 "paths): the translator would refuse or drop "
				 "their longer paths", name, most, GEN_MAX_HOPS);
			res = why;
		}
		break;
	}
	case W_KI: {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any = any || dta_config_structure(c, i)->layout.primitive ==
					     DTA_PRIM_KEY_INCREMENT;
		if (!any) {
			snprintf(why, cap, "no Key-Increment structure: the "
				 "translator would count every report as "
				 "unknown_structure");
			res = why;
		}
		break;
	}
	default: /* INT: the translator's [int] mapping decides */
		break;
	}
	dta_config_destroy(c);
	return res;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "type", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "keys", required_argument, NULL, 'k' },
		{ "zipf", required_argument, NULL, 'z' },
		{ "seed", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "dest", required_argument, NULL, 'd' },
		{ "pcap", required_argument, NULL, 'w' },
		{ "truth", required_argument, NULL, 'T' },
		{ "redundancy", required_argument, NULL, 'R' },
		{ "data", required_argument, NULL, 1 },
		{ "entry", required_argument, NULL, 2 },
		{ "lists", required_argument, NULL, 3 },
		{ "first-list", required_argument, NULL, 4 },
		{ "fat-tree", required_argument, NULL, 5 },
		{ "batch", required_argument, NULL, 6 },
		{ "legacy", no_argument, NULL, 7 },
		{ "reporter", required_argument, NULL, 8 },
		{ "trace", required_argument, NULL, 9 },
		{ "malformed", required_argument, NULL, 10 },
		{ "sync", required_argument, NULL, 11 },
		{ "window", required_argument, NULL, 12 },
		{ "sync-timeout", required_argument, NULL, 13 },
		{ "seq", required_argument, NULL, 14 },
		{ "int-version", required_argument, NULL, 15 },
		{ "int-ttl", required_argument, NULL, 16 },
		{ "int-ipv6", no_argument, NULL, 17 },
		{ "int-stack", required_argument, NULL, 20 },
		{ "int-sink-md", no_argument, NULL, 21 },
		{ "immediate", no_argument, NULL, 18 },
		{ "source", required_argument, NULL, 19 },
		{ "int-egress", no_argument, NULL, 22 },
		{ "config", required_argument, NULL, 'c' },
		{ "allow-mismatch", no_argument, NULL, 23 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct gen g = { .type = -1, .count = 100000, .seed = 1,
				.redundancy = 2, .data_len = 20, .batch = 1,
				.lists = 1, .fat_k = 8, .entry = 4,
				.pc_window = 16, .reporter = 1,
				.sync_timeout = 60, .int_version = DTA_INT_V2_0,
				.int_ttl = 64 };
	FILE *t = NULL;
	char host[256], *colon;
	int opt;

	while ((opt = getopt_long(argc, argv, "t:n:k:z:s:r:d:w:T:R:c:h", lo,
				  NULL)) != -1) {
		switch (opt) {
		case 't':
			g.type = !strcmp(optarg, "kw") ? W_KW
				 : !strcmp(optarg, "pc") ? W_PC
				 : !strcmp(optarg, "ap") ? W_AP
				 : !strcmp(optarg, "ki") ? W_KI
				 : !strcmp(optarg, "int-pc") ? W_INT_PC
				 : !strcmp(optarg, "int-md") ? W_INT_MD
				 : !strcmp(optarg, "int-drop") ? W_INT_DROP
				 : !strcmp(optarg, "int-q") ? W_INT_Q : -2;
			if (g.type == -2)
				die("unknown type %s (kw, pc, ap, ki, int-pc, int-md, "
				    "int-drop or int-q)", optarg);
			break;
		case 'n': g.count = num(optarg, "--count", 1, 1ul << 40); break;
		case 'k': g.keys = num(optarg, "--keys", 1, 1ul << 32); break;
		case 'z': g.zipf = strtod(optarg, NULL); break;
		case 's': g.seed = num(optarg, "--seed", 0, ~0ul); break;
		case 'r': g.rate = strtod(optarg, NULL); break;
		case 'd': g.dest = optarg; break;
		case 'w': g.pcap_out = optarg; break;
		case 'T': g.truth = optarg; break;
		case 'R': g.redundancy = (unsigned)num(optarg, "--redundancy", 1,
						       DTA_MAX_REDUNDANCY); break;
		case 1: g.data_len = (unsigned)num(optarg, "--data", 4, DTA_DATA_MAX); break;
		case 2: g.entry = (unsigned)num(optarg, "--entry", 4, DTA_DATA_MAX); break;
		case 3: g.lists = (unsigned)num(optarg, "--lists", 1, 1u << 20); break;
		case 4: g.first_list = (unsigned)num(optarg, "--first-list", 0, ~0u); break;
		case 5: g.fat_k = (unsigned)num(optarg, "--fat-tree", 2, 254); break;
		case 6: g.batch = (unsigned)num(optarg, "--batch", 1, 255); break;
		case 7: g.legacy = 1; break;
		case 8: g.reporter = (uint16_t)num(optarg, "--reporter", 0, 65535); break;
		case 9: g.trace = optarg; break;
		case 10: g.malformed = num(optarg, "--malformed", 0, 1ul << 32); break;
		case 11: g.sync = optarg; break;
		case 12: g.window = num(optarg, "--window", 1, 1ul << 32); break;
		case 13: g.sync_timeout = strtod(optarg, NULL); break;
		case 14: g.seq = (uint32_t)num(optarg, "--seq", 0, ~0u); break;
		case 19: g.source = optarg; break;
		case 22: g.int_egress = 1; break;
		case 'c': g.config = optarg; break;
		case 23: g.allow_mismatch = 1; break;
		case 15:
			g.int_version = !strcmp(optarg, "0.5") ? DTA_INT_V0_5
					: !strcmp(optarg, "1.0") ? DTA_INT_V1_0
					: !strcmp(optarg, "2.0") ? DTA_INT_V2_0 : 99;
			if (g.int_version == 99)
				die("--int-version %s: want 0.5, 1.0 or 2.0", optarg);
			break;
		case 17: g.int_ipv6 = 1; break;
		case 20:
			if (!strcmp(optarg, "2"))
				g.int_stack = DTA_INT_MD_LAYOUT_V2;
			else if (!strcmp(optarg, "1.0"))
				g.int_stack = DTA_INT_MD_LAYOUT_V1_0;
			else if (!strcmp(optarg, "0.5"))
				g.int_stack = DTA_INT_MD_LAYOUT_V0_5;
			else
				die("--int-stack %s: want 2, 1.0 or 0.5", optarg);
			break;
		case 21: g.int_sink_md = 1; break;
		case 18: g.immediate = 1; break;
		case 16: g.int_ttl = (unsigned)num(optarg, "--int-ttl", 5, 255); break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("dta-gen %s\n", DTA_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (g.type < 0 || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (g.zipf < 0 || g.rate < 0 || g.fat_k % 2)
		die("%s", "--zipf and --rate must be >= 0, --fat-tree even");
	if (g.data_len % 4)
		die("%s", "--data must be a multiple of 4 (switch ids)");
	if (g.legacy) {
		g.data_len = 4;
		g.entry = 4;
		g.batch = 1;
	}
	if (g.config) {
		char why[512];

		if (check_config(&g, g.config, why, sizeof(why))) {
			if (!g.allow_mismatch)
				die("%s: %s; not sending (--allow-mismatch "
				    "sends them anyway)", g.config, why);
			fprintf(stderr, "dta-gen: %s: %s; sending anyway "
				"(--allow-mismatch)\n", g.config, why);
		}
	}
	if (!g.dest)
		g.dest = IS_INT(g.type) ? "127.0.0.1:32766" : "127.0.0.1:40040";
	if (IS_INT(g.type) && (g.legacy || g.malformed))
		die("%s", "--legacy and --malformed are not for INT types");
	if (IS_INT(g.type) && g.reporter > 63)
		die("%s", "--reporter: an INT hw_id is 0..63");
	if (g.int_sink_md && (g.type != W_INT_MD || g.int_version != DTA_INT_V2_0))
		die("--int-sink-md: only with -t int-md and --int-version 2.0 (%s)",
		    "the report header's metadata is a v2.0 sink's option");
	if (g.int_stack && g.type != W_INT_MD)
		die("--int-stack: only with -t int-md (%s)", "no stack otherwise");
	if ((g.type == W_INT_PC || g.type == W_INT_MD) && !g.trace)
		g.keys = g.count; /* one flow per report group */
	if (!g.keys)
		g.keys = g.type == W_KI ? (g.count / 10 ? g.count / 10 : 1)
					: g.count;
	g.rng = g.seed;
	if (g.trace)
		load_trace(&g);
	else if (g.zipf > 0 && g.type != W_PC && g.type != W_INT_PC &&
		 g.type != W_INT_MD)
		make_zipf(&g);

	snprintf(host, sizeof(host), "%s", g.dest);
	colon = strrchr(host, ':');
	if (!colon)
		die("--dest %s: want HOST:PORT", g.dest);
	*colon = 0;
	g.to.sin_family = AF_INET;
	g.to.sin_port = htons((uint16_t)num(colon + 1, "port", 1, 65535));
	if (inet_pton(AF_INET, host, &g.to.sin_addr) != 1)
		die("--dest %s: want an IPv4 address", g.dest);
	if (g.pcap_out) {
		g.dead = pcap_open_dead(DLT_EN10MB, 65535);
		g.dump = g.dead ? pcap_dump_open(g.dead, g.pcap_out) : NULL;
		if (!g.dump)
			die("cannot write %s", g.pcap_out);
		g.ts_ns = 1700000000ull * 1000000000ull;
	} else {
		int sndbuf = 4 << 20;

		g.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (g.fd < 0)
			die("socket: %s", strerror(errno));
		setsockopt(g.fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
		if (g.source) {
			struct sockaddr_in src = { .sin_family = AF_INET };

			if (inet_pton(AF_INET, g.source, &src.sin_addr) != 1)
				die("--source %s: want an IPv4 address",
				    g.source);
			if (bind(g.fd, (struct sockaddr *)&src, sizeof(src)))
				die("--source %s: %s", g.source,
				    strerror(errno));
		}
	}
	if (g.truth) {
		t = fopen(g.truth, "w");
		if (!t)
			die("cannot write %s", g.truth);
		fprintf(t, "# dta-gen truth v1 type=%s count=%" PRIu64 " keys=%" PRIu64
			" redundancy=%u seed=%" PRIu64 " zipf=%g legacy=%d",
			(const char *[]){ "kw", "pc", "ap", "ki", "int-pc", "int-md",
					  "int-drop", "int-q" }[g.type], g.count,
			g.keys, g.redundancy, g.seed, g.zipf, g.legacy);
		if (IS_INT(g.type))
			fprintf(t, " int_version=%s int_ttl=%u int_egress=%d",
				(const char *[]){ "0.5", "1.0", "2.0" }[g.int_version],
				g.int_ttl, g.int_egress);
		fputc('\n', t);
	}
	if (g.sync && g.pcap_out)
		die("%s", "--sync is for UDP, not --pcap");
	if (g.sync)
		sync_wait(&g, true);
	g.t0 = tool_now_ns();
	switch (g.type) {
	case W_KW: run_kw(&g, t); break;
	case W_PC: run_pc(&g, t); break;
	case W_AP: run_ap(&g, t); break;
	case W_KI: run_ki(&g, t); break;
	default: run_int(&g, t); break;
	}
	flush_packet(&g);
	while (g.malformed_sent < g.malformed)
		junk(&g);
	if (g.sync)
		sync_wait(&g, false);
	{
		double secs = (double)(tool_now_ns() - g.t0) / 1e9;

		/* Datagrams and reports sent: what the translator's counters
		 * must account for (docs/translator.md "Loss accounting"). */
		fprintf(stderr, "dta-gen: %" PRIu64 " reports in %" PRIu64
			" datagrams, %" PRIu64 " malformed datagrams, %.3f s "
			"(%.2f M reports/s)%s\n", g.sent_reports, g.sent_packets,
			g.malformed_sent, secs, (double)g.sent_reports / secs / 1e6,
			g.send_errors ? ", SOME SENDS FAILED" : "");
	}
	if (t && fclose(t))
		die("writing %s failed", g.truth);
	if (g.dump) {
		pcap_dump_close(g.dump);
		pcap_close(g.dead);
	} else {
		close(g.fd);
	}
	free(g.cdf);
	free(g.trace_keys);
	free(g.trace_seq);
	free(g.trace_len);
	return g.send_errors ? 1 : 0;
}
