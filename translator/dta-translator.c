/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-translator: the software translator. Receives DTA reports (UDP,
 * a pcap file, or a live interface through libpcap), runs them through the
 * libdta translator core and writes the resulting memory operations into the
 * collector's structures. This build's sink is local shared memory (the
 * paper's section 7 "translator next to the collector" case); other sinks
 * (RDMA, raw RoCEv2) plug into the same struct dta_sink.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <net/if.h>
#include <time.h>
#include <unistd.h>
#ifdef DTA_HAVE_URING
#include <liburing.h>
#endif

#include "allow.h"
#include "metrics.h"
#include "losswatch.h"
#include "reporters.h"
#include "switch_sink.h"
#include "xdp_rx.h"
#include "log.h"
#include "service.h"
#include "tools.h"
#ifdef DTA_HAVE_RDMA
#include "rdma_sink.h"
#endif

#define MAX_WORKERS 64

/* Where one structure's writes go: a mapping of the collector's region. */
struct target {
	struct dta_region *r;
	void *area;
	uint64_t size;
	dev_t dev;
	ino_t ino; /* identity of the shm object, to notice a new collector */
	struct target *old; /* replaced targets, unmapped at exit */
};

struct shm_sink {
	size_t n;
	char path[DTA_CONFIG_MAX_STRUCTURES][NAME_MAX + 1];
	_Atomic(struct target *) t[DTA_CONFIG_MAX_STRUCTURES];
	/* Replacing a target: workers finding theirs retired, and the
	 * periodic check, one at a time per structure. */
	pthread_mutex_t lock[DTA_CONFIG_MAX_STRUCTURES];
	uint64_t next_try[DTA_CONFIG_MAX_STRUCTURES]; /* under lock */
	bool retired[DTA_CONFIG_MAX_STRUCTURES];      /* under lock */
	atomic_uint_fast64_t lost; /* ops refused: region retired, no successor */
};

/* What the translator core writes to: every structure, or every share of
 * a structure partitioned over several collectors. The index is the core's
 * structure index and the sink index. */
struct share {
	struct dta_config_structure cs; /* list_base of the share */
	unsigned coll;                  /* collector index in the config */
	unsigned k, n;                  /* share k of n */
	int bank;                       /* Key-Increment epochs: the bank
					 * set (-1: none yet) */
};

struct translator {
	uint64_t stats_sum; /* counters' sum when the file was last written */
	uint64_t status_packets; /* packets in the last STATUS= line */
	struct dta_config *cfg;
	struct dta_translator *core;
	struct shm_sink sink;
	size_t nshares;
	struct share sh[DTA_CONFIG_MAX_STRUCTURES];
	uint16_t port;
	bool int_on;                /* [int]: INT reports on int_port */
	uint16_t int_port;
	struct dta_int_map im;      /* config structure indices until applied */
	const char *bind_addr;
	unsigned workers;
	uint64_t tick_ns;
	uint64_t horizon_ns;        /* the longest timeout: nothing is pending
				     * that long after the last report */
	enum { RX_RECVMMSG, RX_URING } rx; /* [translator] rx */
	/* [translator] receive: the AF_XDP path (xdp_rx.h) or sockets only */
	enum { RECV_SOCKET, RECV_XDP, RECV_AUTO } receive;
	const char *xdp_if;         /* xdp_interface */
	enum xdp_rx_mode xdp_mode;
	bool workers_set;           /* workers given: else one per rx queue */
	struct xdp_rx *xdp;         /* attached, or NULL: sockets only */
	/* The AF_XDP sockets' losses, summed (also in socket_drops), and
	 * frames the parser refused (in rx_truncated). */
	atomic_uint_fast64_t xdp_rx_dropped, xdp_rx_ring_full;
	atomic_uint_fast64_t xdp_rx_invalid, xdp_fill_empty, xdp_bad_frames;
	unsigned rx_batch;          /* datagrams per receive */
	uint64_t rx_wait_ns;        /* wait for a fuller batch, at most */
	bool no_populate;           /* [translator] populate = no */
	atomic_bool rx_said;        /* the receive path is logged once */
	int wake_fd;                /* eventfd: counters move (main thread) */
	int stop_fd;                /* eventfd: stopping (workers) */
	atomic_bool active;         /* counters moved since the last refresh */
	int rcvbuf;                 /* the sockets' receive queue, bytes */
	uint64_t queue_datagrams;   /* datagrams that queue surely holds */
	struct allow_list allow;    /* reporters' source addresses */
	atomic_bool refused_said;   /* the first refused source is logged */
	double stats_interval;
	const char *stats_file;
	atomic_uint_fast64_t rx_errors;
	bool collector_gone;
	const char *rdma_collector; /* HOST:PORT of the default collector */
	bool use_rdma;              /* RDMA sink instead of shm */
	struct worker *w;           /* the running UDP workers (main thread) */
	unsigned nw;
	const char *switch_if;      /* switch sink: raw RoCEv2 on this interface */
	struct switch_sink *sw;
	unsigned rdma_qps;
#ifdef DTA_HAVE_RDMA
	struct rdma_sink *rdma;
#endif
	/* Metrics (docs/metrics.md), NULL/unused without metrics_listen. */
	struct metrics_server *metrics;
	struct dta_sink inner;      /* the sink fill_submit() passes on to */
	struct metrics_hist *fill[DTA_CONFIG_MAX_STRUCTURES]; /* Append shares */
	struct metrics_hist *rdma_lat; /* RDMA completion latency, or NULL */
	/* Losses by reporter (reporter_labels, with metrics only): the
	 * sources with a slot; 0: not counted by reporter. */
	unsigned rep_max;
	struct reporters rep;
	/* The watch on losses (watch_losses(), docs/operations.md
	 * "Configuration mismatches"): each share's mismatches seen and its
	 * log lines' limit; the health window ([translator]
	 * health_loss_ratio, health_window_s) and its state. */
	uint64_t mm_seen[DTA_CONFIG_MAX_STRUCTURES];
	struct lw_limit mm_limit[DTA_CONFIG_MAX_STRUCTURES];
	struct lw_window health_win;
	double health_ratio;
	double health_window_s;
	bool degraded;
	uint64_t deg_lost, deg_total; /* the window's, while degraded */
};

/* Seconds between two mismatch lines of one structure. */
#define MISMATCH_LOG_S 10

static volatile sig_atomic_t stop;
static pcap_t *volatile live_pcap; /* for pcap_breakloop() on a signal */

static void on_signal(int sig)
{
	pcap_t *pc = live_pcap;

	(void)sig;
	stop = 1;
	if (pc)
		pcap_breakloop(pc);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-translator -c CONFIG [options]\n"
		"Translate DTA reports into writes to the collectors' memory: local\n"
		"shared memory, or RDMA. Listens on UDP until SIGTERM/SIGINT, or\n"
		"replays a pcap file.\n"
		"\n"
		"  -c, --config FILE        configuration shared with the collector\n"
		"                           (docs/config.md), required\n"
		"  -p, --port N             UDP port (default: [translator] port, 40040)\n"
		"  -b, --bind ADDR          IPv4 address to listen on (default: [translator]\n"
		"                           bind, else 127.0.0.1: this host only; reports\n"
		"                           are not authenticated, see --allow)\n"
		"  -a, --allow LIST         accept datagrams only from these sources:\n"
		"                           addresses or a.b.c.d/len, comma-separated\n"
		"                           (default: [translator] allow, else any);\n"
		"                           others are dropped and counted (refused_source)\n"
		"  -w, --workers N          receive threads on the port (default:\n"
		"                           [translator] workers, else 1); several share\n"
		"                           it with SO_REUSEPORT within this process only:\n"
		"                           a port another process holds is refused\n"
		"  -r, --pcap FILE          replay UDP packets to PORT from a pcap file,\n"
		"                           using the packets' own timestamps, then exit\n"
		"  -i, --interface IF       read packets to PORT from a live interface\n"
		"                           with libpcap instead of a socket\n"
		"  -s, --stats-interval S   print counters to stderr every S seconds\n"
		"                           (default: [translator] stats_interval_s, 0=off)\n"
		"  -o, --stats-file FILE    keep the counters there as JSON (rewritten\n"
		"                           every interval; without one, every 10 ms\n"
		"                           when a counter moved,\n"
		"                           and at exit)\n"
		"  -R, --rdma HOST[:PORT]   write into the collectors with RDMA instead\n"
		"                           of local shared memory; HOST[:PORT] is the\n"
		"                           [collector]'s address (default: [translator]\n"
		"                           rdma_collector; port 40050). Named collectors\n"
		"                           are reached at their rdma_bind:rdma_port.\n"
		"                           Also [translator] sink = rdma.\n"
		"  -X, --switch IF          act as a switch: send raw RoCEv2 frames on\n"
		"                           interface IF into the collector's switch-mode\n"
		"                           queue pairs (default: [translator]\n"
		"                           switch_interface; description from\n"
		"                           switch_meta, else the collector's socket)\n"
		"      --metrics [ADDR:]PORT  serve Prometheus metrics and /health\n"
		"                           over HTTP there (default: [translator]\n"
		"                           metrics_listen, else none; ADDR default\n"
		"                           127.0.0.1; not with --pcap; docs/metrics.md)\n"
		"  -q, --quiet              no log messages\n"
		"  -h, --help               this text\n"
		"      --version            print \"dta-translator VERSION\" and exit\n"
		"\n"
		"Translator core settings ([translator] section): pc_cache (entries,\n"
		"32768), pc_timeout_ms (10), ap_timeout_ms (1), ki_window_us (0: no\n"
		"pre-aggregation), legacy (auto, plain, nack or off), rdma_qps (queue\n"
		"pairs per collector, 1), health_loss_ratio (0.01) and health_window_s\n"
		"(60): /health degraded while more reports than that are lost.\n"
		"Receive path: rx (recvmmsg), rx_batch (256), rx_wait_us (200);\n"
		"receive (socket; xdp or auto: AF_XDP sockets fed by an XDP program\n"
		"on xdp_interface, xdp_mode native; docs/translator.md).\n"
		"Reports refused for a configuration mismatch are logged (structure,\n"
		"its sizes and the report's; docs/operations.md).\n"
		"At exit the counters are printed to stdout as one JSON object\n"
		"(docs/translator.md, \"Loss accounting\") and summed up in one log\n"
		"line. sink_errors counts memory operations that were not written\n"
		"(lost), ops_lost_no_region those of them refused because the\n"
		"collector had retired its shared memory (stopping) and no new\n"
		"collector's was there. If the collector restarts, the translator\n"
		"notices before its next write and writes into the new collector's\n"
		"shared memory.\n"
		"The docs/NAME.md files named here are installed as\n"
		"/usr/share/doc/dta-tools/NAME.md by the dta-tools package\n"
		"(PREFIX/share/doc/dta-tools/ by cmake --install).\n");
}

/* Map structure @i's region; NULL with a message on failure. */
static struct target *open_target(struct translator *t, size_t i, bool quiet_enoent)
{
	const struct dta_config_structure *cs = &t->sh[i].cs;
	const char *path = t->sink.path[i];
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_SHM,
				     .path = path,
				     .dir = dta_config_collector_get(
					     t->cfg, t->sh[i].coll, "shm_dir") };
	struct target *tg;
	struct stat st;
	int err;

	/* The collector's mode; another user's region is fine when that
	 * mode lets its group in (we are then a group member). */
	unsigned mode;

	if (dta_config_collector_mode(t->cfg, t->sh[i].coll, "shm_mode", 0600, &mode)) {
		tool_log(LOG_ERR, "bad shm_mode in the "
			"configuration");
		return NULL;
	}
	o.mode = mode;
	if (o.mode & 0060)
		o.flags |= DTA_REGION_ANY_OWNER;
	/* Page tables filled now, not by a fault at each page's first
	 * write (a fresh translator's first pass ran at half its rate). */
	if (!t->no_populate)
		o.flags |= DTA_REGION_POPULATE;
	tg = calloc(1, sizeof(*tg));
	if (!tg)
		return NULL;
	/* The object's identity first: if the collector replaces it between
	 * the stat and the open, the next check sees a new inode again. */
	if (dta_region_shm_stat_in(o.dir, path, &st) == 0) {
		tg->dev = st.st_dev;
		tg->ino = st.st_ino;
	}
	err = dta_region_open(&o, &tg->r);
	if (err) {
		if (!(quiet_enoent && err == -ENOENT))
			tool_log(LOG_ERR, "%s: cannot open %s: %s%s",
				cs->name, path, dta_strerror(err),
				err == -ENOENT ? " (is dta-collector running "
						 "with this configuration?)"
				: err == -EPERM ? " (owned by another user or "
						  "mode wider than shm_mode)" : "");
		free(tg);
		return NULL;
	}
	if (!tool_same_layout(dta_region_layout(tg->r), &cs->layout)) {
		tool_log(LOG_ERR, "%s: the collector's %s has a "
			"different layout than this configuration says",
			cs->name, path);
		dta_region_destroy(tg->r);
		free(tg);
		return NULL;
	}
	tg->area = dta_region_data(tg->r);
	tg->size = dta_region_data_size(tg->r);
	/* Not populated although asked: the library logged why. */
	if (dta_region_populate_ns(tg->r))
		tool_log(LOG_INFO, "%s: %s mapped, %.1f MiB populated in "
			 "%.1f ms", cs->name, path,
			 (double)dta_region_map_size(tg->r) / (1 << 20),
			 (double)dta_region_populate_ns(tg->r) / 1e6);
	return tg;
}

/*
 * Structure @s's region was retired by its collector (shutting down).
 * Find the region that replaced it: a new collector's, under the same
 * name. Called with nothing held; returns the target entered (the caller
 * leaves it), or NULL when there is none yet: the operations are lost.
 */
static struct target *successor(struct translator *t, unsigned s)
{
	struct shm_sink *k = &t->sink;
	struct target *cur, *tg = NULL;
	uint64_t now = tool_now_ns();

	pthread_mutex_lock(&k->lock[s]);
	cur = atomic_load(&k->t[s]);
	if (dta_region_enter(cur->r) == 0) {
		tg = cur; /* another worker switched already */
		goto out;
	}
	if (now < k->next_try[s])
		goto out;
	/* Reopening is a few system calls: not for every report while the
	 * collector is away. */
	k->next_try[s] = now + 10000000ull;
	if (!k->retired[s])
		tool_log(LOG_WARNING, "%s was retired by its collector; writes "
			 "are lost (counted in sink_errors) until a new "
			 "collector creates it", k->path[s]);
	k->retired[s] = true;
	tg = open_target(t, s, true);
	if (!tg)
		goto out;
	if (dta_region_enter(tg->r) != 0) {
		dta_region_destroy(tg->r); /* the same retired object */
		free(tg);
		tg = NULL;
		goto out;
	}
	/* Workers may still hold the old target: unmapped only at exit. */
	tg->old = cur;
	atomic_store_explicit(&k->t[s], tg, memory_order_release);
	k->retired[s] = false;
	t->collector_gone = false;
	tool_log(LOG_INFO, "%s was re-created by a new collector: writing "
		 "there now", k->path[s]);
out:
	pthread_mutex_unlock(&k->lock[s]);
	return tg;
}

/*
 * A thread's run of submits (the core's batch_begin .. batch_end): the
 * targets it entered, left together at the end. A run lasts one batch of
 * payloads (microseconds), so a collector retiring a region waits no
 * longer than for one write.
 */
struct shm_run {
	bool on;
	unsigned n;
	unsigned s[DTA_CONFIG_MAX_STRUCTURES];                 /* entered ... */
	struct target *entered[DTA_CONFIG_MAX_STRUCTURES];     /* ... by index */
};
static _Thread_local struct shm_run shm_run;

static void shm_begin(void *ctx)
{
	(void)ctx;
	shm_run.on = true;
	shm_run.n = 0;
}

static void shm_end(void *ctx)
{
	(void)ctx;
	for (unsigned i = 0; i < shm_run.n; i++) {
		unsigned s = shm_run.s[i];

		dta_region_leave(shm_run.entered[s]->r);
		shm_run.entered[s] = NULL;
	}
	shm_run.n = 0;
	shm_run.on = false;
}

/* A hint: the mapping of a target stays until exit, entered or not. */
static void shm_prefetch(void *ctx, unsigned s, uint64_t off, uint32_t len)
{
	struct translator *t = ctx;
	const struct target *tg = atomic_load_explicit(&t->sink.t[s],
						       memory_order_acquire);
	const uint8_t *p;

	if (off >= tg->size || len > tg->size - off)
		return;
	p = (const uint8_t *)tg->area + off;
	__builtin_prefetch(p, 1);
	if (((uintptr_t)p & 63) + len > 64)
		__builtin_prefetch(p + len - 1, 1);
}

/* Every write is inside dta_region_enter/leave, so the collector never
 * snapshots or removes a region with a write of ours half done, and no
 * write goes into a region it gave up. Within a run the guard is entered
 * at a structure's first write and left at the run's end. */
static int shm_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		      size_t n)
{
	struct translator *t = ctx;
	struct target *tg = shm_run.on ? shm_run.entered[s] : NULL;
	int k;

	if (!tg) {
		tg = atomic_load_explicit(&t->sink.t[s], memory_order_acquire);
		if (dta_region_enter(tg->r) != 0) {
			tg = successor(t, s);
			if (!tg) {
				atomic_fetch_add(&t->sink.lost, n);
				return -ESTALE;
			}
		}
		if (shm_run.on) {
			shm_run.entered[s] = tg;
			shm_run.s[shm_run.n++] = s;
		}
	}
	k = dta_memops_apply(tg->area, tg->size, ops, n);
	if (!shm_run.on)
		dta_region_leave(tg->r);
	return k < 0 ? k : 0;
}

/* Reports with DTA_FLAG_IMMEDIATE were written into @s in this run: wake
 * the collector's waiters (its notifier thread, analysis tools sleeping in
 * dta_region_wait()). The core calls this after the run's writes and
 * before shm_end(), so the region is still entered. */
static void shm_notify(void *ctx, unsigned s)
{
	struct translator *t = ctx;
	struct target *tg = shm_run.on ? shm_run.entered[s] : NULL;

	if (!tg)
		tg = atomic_load_explicit(&t->sink.t[s], memory_order_acquire);
	dta_region_notify(tg->r);
}

/* Every structure, or every collector's share of it, in configuration
 * order: the translator core's structures. */
static int plan_shares(struct translator *t)
{
	for (size_t i = 0; i < dta_config_count(t->cfg); i++) {
		const struct dta_config_structure *cs = dta_config_structure(t->cfg, i);

		for (unsigned k = 0; k < cs->ncollectors; k++) {
			struct share *sh = &t->sh[t->nshares];

			if (t->nshares == DTA_CONFIG_MAX_STRUCTURES) {
				tool_log(LOG_ERR, "more than %d "
					"structure shares",
					DTA_CONFIG_MAX_STRUCTURES);
				return -1;
			}
			sh->cs = tool_share(cs, k);
			sh->coll = cs->collectors[k];
			sh->k = k;
			sh->n = cs->ncollectors;
			t->nshares++;
		}
	}
	return 0;
}

/* Give the core every share; Append lists continue at @cursor's answer. */
static int add_shares(struct translator *t,
		      int (*cursor)(struct translator *, unsigned, uint32_t,
				    struct dta_ap_cursor *))
{
	for (size_t i = 0; i < t->nshares; i++) {
		const struct share *sh = &t->sh[i];
		const struct dta_layout *l = &sh->cs.layout;
		int s = l->primitive == DTA_PRIM_APPEND
			? dta_translator_add(t->core, l, sh->cs.list_base)
			: dta_translator_add_shard(t->core, l, sh->cs.list_base,
						   sh->k, sh->n);

		if (s < 0 || (size_t)s != i) {
			tool_log(LOG_ERR, "%s: %s", sh->cs.name,
				dta_strerror(s < 0 ? s : -EINVAL));
			return -1;
		}
		/* Append lists continue after what the collector holds, so
		 * a restarted translator's batches follow the previous one's. */
		for (uint32_t j = 0; l->primitive == DTA_PRIM_APPEND &&
				     j < l->g.ap.lists; j++) {
			struct dta_ap_cursor cur;

			if (cursor(t, (unsigned)i, j, &cur) > 0)
				dta_translator_set_ap_cursor(t->core, (unsigned)i, j,
							     &cur);
		}
	}
	return 0;
}

static int shm_cursor(struct translator *t, unsigned i, uint32_t list,
		      struct dta_ap_cursor *cur)
{
	return dta_ap_cursor_recover(&t->sh[i].cs.layout,
				     atomic_load(&t->sink.t[i])->area, list, cur);
}

/* Open every structure share where its collector created it. */
static int open_sink(struct translator *t)
{
	for (size_t i = 0; i < t->nshares; i++) {
		struct target *tg;

		if (dta_config_shm_name(dta_config_collector_id(t->cfg, t->sh[i].coll),
				  t->sh[i].cs.name, t->sink.path[i],
				  sizeof(t->sink.path[i]))) {
			tool_log(LOG_ERR, "%s: shared-memory name "
				"too long", t->sh[i].cs.name);
			return -1;
		}
		pthread_mutex_init(&t->sink.lock[i], NULL);
		tg = open_target(t, i, false);
		if (!tg)
			return -1;
		atomic_store(&t->sink.t[i], tg);
		t->sink.n = i + 1;
	}
	return add_shares(t, shm_cursor);
}

/*
 * A collector that restarts creates new shared-memory objects. A clean
 * stop retires the old ones, which writers notice before their next write
 * (successor()); this check also catches a collector killed and replaced
 * by one started with --force: every second, compare each object's
 * identity with the one mapped and switch to the new one. Workers may
 * still be writing into the old mapping, so it stays mapped until exit.
 */
static void check_collector(struct translator *t)
{
	for (size_t i = 0; i < t->sink.n; i++) {
		struct target *cur, *tg;
		struct stat st;

		if (dta_region_shm_stat_in(dta_config_collector_get(
						   t->cfg, t->sh[i].coll,
						   "shm_dir"),
					   t->sink.path[i], &st) != 0) {
			if (!t->collector_gone)
				tool_log(LOG_WARNING, "%s is gone (collector "
					 "stopped?)", t->sink.path[i]);
			t->collector_gone = true;
			continue;
		}
		pthread_mutex_lock(&t->sink.lock[i]);
		cur = atomic_load(&t->sink.t[i]);
		if (st.st_dev == cur->dev && st.st_ino == cur->ino) {
			pthread_mutex_unlock(&t->sink.lock[i]);
			continue;
		}
		tg = open_target(t, i, true);
		if (tg) {
			tg->old = cur;
			atomic_store_explicit(&t->sink.t[i], tg,
					      memory_order_release);
			t->collector_gone = false;
			t->sink.retired[i] = false;
		}
		pthread_mutex_unlock(&t->sink.lock[i]);
		if (tg)
			tool_log(LOG_INFO, "%s was re-created by a new "
				 "collector: writing there now",
				 t->sink.path[i]);
	}
}

static void close_sink(struct translator *t)
{
	for (size_t i = 0; i < t->sink.n; i++) {
		struct target *tg = atomic_load(&t->sink.t[i]);

		while (tg) {
			struct target *old = tg->old;

			dta_region_destroy(tg->r);
			free(tg);
			tg = old;
		}
	}
}

#ifdef DTA_HAVE_RDMA
static int rdma_cursor(struct translator *t, unsigned i, uint32_t list,
		       struct dta_ap_cursor *cur)
{
	return rdma_sink_ap_cursor(t->rdma, i, list, cur);
}
#endif

/* Connect to the collectors with RDMA instead of opening their shared
 * memory: collector 0 (the unnamed one) at --rdma/rdma_collector or its
 * rdma_bind, the named ones at their rdma_bind and rdma_port. */
static int open_rdma(struct translator *t, struct dta_sink *sink)
{
#ifdef DTA_HAVE_RDMA
	static struct rdma_sink_target tg[DTA_CONFIG_MAX_COLLECTORS];
	size_t ntg = 0;
	char err[512] = "";

	for (size_t c = 0; c < dta_config_collectors(t->cfg); c++) {
		struct rdma_sink_target *g = &tg[ntg];
		const char *addr = c == 0 ? t->rdma_collector : NULL;
		const char *port = dta_config_collector_get(t->cfg, c, "rdma_port");
		const char *cn = dta_config_collector_name(t->cfg, c);
		char *colon;
		uint64_t p = 40050;

		memset(g, 0, sizeof(*g));
		for (size_t i = 0; i < t->nshares; i++)
			if (t->sh[i].coll == c)
				g->share[g->n++] = (struct rdma_sink_share){
					.index = (unsigned)i,
					.name = t->sh[i].cs.name,
					.layout = &t->sh[i].cs.layout,
					.list_base = t->sh[i].cs.list_base };
		if (!g->n)
			continue;
		if (!addr)
			addr = dta_config_collector_get(t->cfg, c, "rdma_bind");
		else
			port = NULL;
		if (!addr) {
			tool_log(LOG_ERR, "collector %s holds "
				"structures but has no RDMA address (%s)",
				*cn ? cn : "[collector]",
				c == 0 ? "give --rdma, rdma_collector or rdma_bind"
				       : "give its rdma_bind");
			return -1;
		}
		snprintf(g->host, sizeof(g->host), "%s", addr);
		colon = strrchr(g->host, ':');
		if (colon) {
			*colon = 0;
			port = colon + 1;
		}
		if (port && (dta_parse_size(port, &p) || !p || p > 65535)) {
			tool_log(LOG_ERR, "bad RDMA port in %s", addr);
			return -1;
		}
		g->port = (uint16_t)p;
		ntg++;
	}
	if (rdma_sink_connect(tg, ntg, t->rdma_qps, &t->rdma, err, sizeof(err))) {
		tool_log(LOG_ERR, "RDMA: %s", err);
		return -1;
	}
	sink->submit = rdma_sink_submit;
	sink->flush = rdma_sink_flush;
	sink->notify = rdma_sink_notify;
	sink->ctx = t->rdma;
	for (size_t i = 0; i < ntg; i++)
		tool_log(LOG_INFO, "connected to collector %s:%u over RDMA (%u "
			 "queue pair%s)",
			 tg[i].host, tg[i].port, t->rdma_qps,
			 t->rdma_qps == 1 ? "" : "s");
	return 0;
#else
	(void)sink;
	tool_log(LOG_ERR, "RDMA is configured but this build "
		"has no RDMA support");
	return -1;
#endif
}

static int no_cursor(struct translator *t, unsigned i, uint32_t list,
		     struct dta_ap_cursor *cur)
{
	(void)t; (void)i; (void)list; (void)cur;
	return 0; /* a switch starts its lists at the beginning */
}

/* Raw RoCEv2 frames on an interface into the collector's switch-mode
 * queue pairs, described by [translator] switch_meta or by the collector's
 * "switch" answer. */
static int open_switch(struct translator *t, struct dta_sink *sink)
{
	static struct switch_sink_share sh[DTA_CONFIG_MAX_STRUCTURES];
	const char *meta = dta_config_get(t->cfg, "translator", "switch_meta");
	char *desc = NULL, err[512];
	size_t cap = 0;
	int rc;

	if (meta) {
		FILE *f = fopen(meta, "r");

		if (!f || getline(&desc, &cap, f) < 0) {
			tool_log(LOG_ERR, "switch_meta %s: %s", meta,
				strerror(errno));
			if (f)
				fclose(f);
			free(desc);
			return -1;
		}
		fclose(f);
	} else {
		char path[4096];
		FILE *in;
		int fd;

		dta_config_collector_socket(t->cfg, 0, path, sizeof(path));
		fd = tool_connect(path);
		in = fd >= 0 ? fdopen(dup(fd), "r") : NULL;
		if (!in || tool_request(fd, in, "switch", &desc, &cap) < 0) {
			tool_log(LOG_ERR, "cannot ask the collector at %s for "
				 "its switch description (or set switch_meta)",
				 path);
			if (in)
				fclose(in);
			if (fd >= 0)
				close(fd);
			free(desc);
			return -1;
		}
		fclose(in);
		close(fd);
	}
	for (size_t i = 0; i < t->nshares; i++) {
		if (t->sh[i].n > 1 || t->sh[i].coll != 0) {
			tool_log(LOG_ERR, "the switch sink writes "
				"into one collector ([collector]); %s is on "
				"another", t->sh[i].cs.name);
			free(desc);
			return -1;
		}
		sh[i] = (struct switch_sink_share){ .index = (unsigned)i,
						    .name = t->sh[i].cs.name,
						    .layout = &t->sh[i].cs.layout };
	}
	rc = switch_sink_open(t->switch_if, desc, sh, t->nshares, &t->sw, err,
			      sizeof(err));
	free(desc);
	if (rc) {
		tool_log(LOG_ERR, "switch sink: %s", err);
		return -1;
	}
	sink->submit = switch_sink_submit;
	sink->flush = switch_sink_flush;
	sink->notify = switch_sink_notify;
	sink->ctx = t->sw;
	tool_log(LOG_INFO, "writing RoCEv2 frames on %s into the collector's "
		 "switch-mode queue pairs", t->switch_if);
	return 0;
}

static int add_rdma_shares(struct translator *t)
{
#ifdef DTA_HAVE_RDMA
	return add_shares(t, rdma_cursor);
#else
	(void)t;
	return -1;
#endif
}

/* The [int] map, its roles turned from configuration structure indices
 * into the core's (a structure's first share). */
static int set_int_map(struct translator *t)
{
	int *roles[] = { &t->im.path_kw, &t->im.path_pc, &t->im.hop_kw,
			 &t->im.events_ap, &t->im.flow_ki, &t->im.queue_ki };
	int rc;

	for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++) {
		int first = 0;

		if (*roles[r] < 0)
			continue;
		for (int i = 0; i < *roles[r]; i++)
			first += (int)dta_config_structure(t->cfg, (size_t)i)
					 ->ncollectors;
		*roles[r] = first;
	}
	rc = dta_translator_set_int_map(t->core, &t->im);
	if (rc) {
		tool_log(LOG_ERR, "[int]: %s", dta_strerror(rc));
		return -1;
	}
	return 0;
}

static int cfg_u64(struct dta_config *c, const char *key, uint64_t def,
		   uint64_t *out)
{
	const char *v = dta_config_get(c, "translator", key);

	if (!v) {
		*out = def;
		return 0;
	}
	if (dta_parse_size(v, out)) {
		tool_log(LOG_ERR, "[translator] %s: not a number: "
			"%s", key, v);
		return -1;
	}
	return 0;
}

/* Names of struct dta_translator_stats' fields, in order. */
static const char *const stat_names[] = {
	"packets", "reports_0", "reports_key_write", "reports_append",
	"reports_key_increment", "reports_postcard", "malformed",
	"unknown_structure", "mismatch", "seq_lost", "seq_late", "seq_restarts",
	"ops_write",
	"ops_fetch_add", "bytes_written", "sink_errors", "pc_emitted",
	"pc_evictions", "pc_timeouts", "pc_hops_dropped", "pc_duplicates",
	"ap_batches", "ap_partial", "ki_merged", "reports_in",
	"malformed_truncated", "malformed_version", "malformed_opcode",
	"malformed_field", "malformed_ambiguous", "malformed_too_many",
	"seq_duplicates", "seq_suspect", "seq_jumps", "sink_lost_reports",
	"socket_drops", "rx_truncated", "refused_source", "int_datagrams",
	"int_reports_in", "int_applied", "int_unmapped", "int_malformed",
	"int_malformed_truncated", "int_malformed_version",
	"int_malformed_unsupported", "int_malformed_length",
	"int_malformed_hops", "int_malformed_other", "int_updates",
	"int_mismatch", "int_path_truncated", "int_seq_lost", "int_seq_late",
	"int_seq_duplicates", "int_seq_jumps", "int_seq_restarts",
	"int_seq_suspect", "int_seq_untracked", "reports_immediate",
	"notifications",
	"pc_ttl_ties",
	"int_seq_skipped",
};
static_assert(sizeof(stat_names) / sizeof(stat_names[0]) * sizeof(uint64_t) ==
	      sizeof(struct dta_translator_stats), "a name for every counter");

static void write_stats(struct translator *t, FILE *f, int pretty)
{
	struct dta_translator_stats st;
	const uint64_t *p = (const uint64_t *)&st;

	dta_translator_stats(t->core, &st);
	fputc('{', f);
	for (size_t i = 0; i < sizeof(stat_names) / sizeof(stat_names[0]); i++) {
		if (i == 1)
			continue; /* reports[0]: no opcode 0 */
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", stat_names[i], p[i]);
		if (pretty && i % 6 == 5)
			fputc('\n', f);
	}
	fprintf(f, ",\"reports_applied\":%" PRIu64 ",\"rx_errors\":%" PRIu64
		",\"rcvbuf_bytes\":%d,\"queue_datagrams\":%" PRIu64,
		st.reports[1] + st.reports[2] + st.reports[3] + st.reports[4],
		(uint64_t)atomic_load(&t->rx_errors), t->rcvbuf,
		t->queue_datagrams);
	if (!t->use_rdma && !t->sw)
		fprintf(f, ",\"ops_lost_no_region\":%" PRIu64,
			(uint64_t)atomic_load(&t->sink.lost));
#ifdef DTA_HAVE_RDMA
	if (t->rdma) {
		struct rdma_sink_stats rs;

		rdma_sink_stats(t->rdma, &rs);
		fprintf(f, ",\"rdma_ops\":%" PRIu64 ",\"rdma_bytes\":%" PRIu64
			",\"rdma_errors\":%" PRIu64 ",\"rdma_reconnects\":%" PRIu64
			",\"rdma_dropped\":%" PRIu64 ",\"rdma_queued\":%" PRIu64
			",\"rdma_qps\":%" PRIu64 ",\"rdma_notifies\":%" PRIu64
			",\"rdma_notifies_lost\":%" PRIu64,
			rs.ops, rs.bytes, rs.errors, rs.reconnects, rs.dropped,
			rs.queued, rs.connections, rs.notifies, rs.notifies_lost);
	}
#endif
	if (t->sw)
		switch_sink_stats_json(t->sw, f);
	if (t->xdp) {
		uint64_t c[DTA_XDP_NCOUNTS];

		xdp_rx_counts(t->xdp, c);
		fprintf(f, ",\"xdp_redirected\":%" PRIu64 ",\"xdp_passed\":%"
			PRIu64 ",\"xdp_no_socket\":%" PRIu64 ",\"xdp_too_long\":%"
			PRIu64 ",\"xdp_bad_checksum\":%" PRIu64
			",\"xdp_rx_dropped\":%" PRIu64 ",\"xdp_rx_ring_full\":%"
			PRIu64 ",\"xdp_rx_invalid_descs\":%" PRIu64
			",\"xdp_fill_ring_empty\":%" PRIu64
			",\"xdp_bad_frames\":%" PRIu64,
			c[DTA_XDP_REDIRECTED], c[DTA_XDP_PASSED],
			c[DTA_XDP_NO_SOCKET], c[DTA_XDP_TOO_LONG],
			c[DTA_XDP_BAD_CSUM],
			(uint64_t)atomic_load(&t->xdp_rx_dropped),
			(uint64_t)atomic_load(&t->xdp_rx_ring_full),
			(uint64_t)atomic_load(&t->xdp_rx_invalid),
			(uint64_t)atomic_load(&t->xdp_fill_empty),
			(uint64_t)atomic_load(&t->xdp_bad_frames));
	}
	fputs("}\n", f);
}

static void save_stats_file(struct translator *t);

/* The counters file, kept fresh for dta-gen --sync when no interval is
 * set: rewritten only when a core counter moved since the last write. */
static void refresh_stats_file(struct translator *t)
{
	struct dta_translator_stats st;
	const uint64_t *c = (const uint64_t *)&st;
	uint64_t sum = 0;

	dta_translator_stats(t->core, &st);
	for (size_t i = 0; i < sizeof(st) / sizeof(*c); i++)
		sum += c[i]; /* monotonic: the sum moves when any does */
	if (sum == t->stats_sum)
		return;
	t->stats_sum = sum;
	save_stats_file(t);
}

static void save_stats_file(struct translator *t)
{
	char tmp[4096];
	FILE *f;

	if (!t->stats_file)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", t->stats_file);
	f = fopen(tmp, "w");
	if (!f)
		return;
	write_stats(t, f, 0);
	if (fclose(f) == 0)
		rename(tmp, t->stats_file);
}

static void print_interval(struct translator *t)
{
	struct dta_translator_stats st;

	dta_translator_stats(t->core, &st);
	tool_log(LOG_INFO, "packets %" PRIu64 " kw %" PRIu64 " pc %" PRIu64
		" ap %" PRIu64 " ki %" PRIu64 " malformed %" PRIu64
		" unknown %" PRIu64 " lost %" PRIu64 " socket_drops %" PRIu64
		" refused %" PRIu64 " ops %" PRIu64,
		st.packets, st.reports[DTA_OP_KEY_WRITE],
		st.reports[DTA_OP_POSTCARD], st.reports[DTA_OP_APPEND],
		st.reports[DTA_OP_KEY_INCREMENT], st.malformed,
		st.unknown_structure, st.seq_lost, st.socket_drops,
		st.refused_source, st.ops_write + st.ops_fetch_add);
}

/* ---- metrics (docs/metrics.md) ----
 *
 * The counters are write_stats()'s, turned into samples by this table: a
 * scrape and the stats file are one snapshot path (dta_translator_stats(),
 * atomic loads, as the stats file reads them). MHD runs in the main
 * thread's loop (main_loop(); the live-capture loop of run_pcap()), never
 * in a worker: the callbacks read what the main thread owns. */

#define TM(key, fam, type, help) \
	{ key, "dta_translator_" fam, type, NULL, NULL, help }
#define TL(key, fam, label, value, help) \
	{ key, "dta_translator_" fam, METRICS_COUNTER, label, value, help }
#define C METRICS_COUNTER
#define G METRICS_GAUGE
static const struct metrics_def translator_metrics[] = {
	TM("packets", "packets_total", C,
	   "Payloads (datagrams, captured frames) given to the core."),
	TM("reports_in", "reports_in_total", C, "DTA reports decoded."),
	TM("reports_applied", "reports_applied_total", C,
	   "Reports a structure took (the sum over primitive)."),
	TL("reports_key_write", "reports_by_primitive_total", "primitive",
	   "key_write", "Reports a structure took, by primitive."),
	TL("reports_append", "reports_by_primitive_total", "primitive",
	   "append", NULL),
	TL("reports_key_increment", "reports_by_primitive_total", "primitive",
	   "key_increment", NULL),
	TL("reports_postcard", "reports_by_primitive_total", "primitive",
	   "postcard", NULL),
	TL("seq_lost", "reports_lost_total", "cause", "sequence_gap",
	   "Reports lost, by cause: missing from a reporter's sequence "
	   "(sequence_gap), taken by no structure (unknown_structure), refused "
	   "by a structure's sizes (mismatch), carried by operations the sink "
	   "refused (sink)."),
	TL("unknown_structure", "reports_lost_total", "cause",
	   "unknown_structure", NULL),
	TL("mismatch", "reports_lost_total", "cause", "mismatch", NULL),
	TL("sink_lost_reports", "reports_lost_total", "cause", "sink", NULL),
	TL("socket_drops", "datagrams_lost_total", "cause", "socket_drops",
	   "Datagrams lost before the core, by cause: the kernel dropped them "
	   "(socket_drops), longer than the receive buffer (rx_truncated), "
	   "from a source outside allow (refused_source)."),
	TL("rx_truncated", "datagrams_lost_total", "cause", "rx_truncated",
	   NULL),
	TL("refused_source", "datagrams_lost_total", "cause",
	   "refused_source", NULL),
	TM("malformed", "malformed_total", C,
	   "Payloads the decoder refused (the sum over cause)."),
	TL("malformed_truncated", "malformed_by_cause_total", "cause",
	   "truncated", "Payloads the decoder refused, by cause."),
	TL("malformed_version", "malformed_by_cause_total", "cause", "version",
	   NULL),
	TL("malformed_opcode", "malformed_by_cause_total", "cause", "opcode",
	   NULL),
	TL("malformed_field", "malformed_by_cause_total", "cause", "field",
	   NULL),
	TL("malformed_ambiguous", "malformed_by_cause_total", "cause",
	   "ambiguous", NULL),
	TL("malformed_too_many", "malformed_by_cause_total", "cause",
	   "too_many", NULL),
	TM("seq_late", "seq_late_total", C,
	   "Reports that arrived out of order and filled a gap."),
	TM("seq_restarts", "seq_restarts_total", C,
	   "Reporter sequences that restarted (confirmed moves back)."),
	TM("seq_duplicates", "seq_duplicates_total", C,
	   "Reports whose sequence number was seen again."),
	TM("seq_suspect", "seq_suspect_total", C,
	   "Out-of-window reports nothing confirmed."),
	TM("seq_jumps", "seq_jumps_total", C,
	   "Confirmed sequence jumps of a window or more."),
	TL("ops_write", "memory_ops_total", "kind", "write",
	   "Memory operations handed to the sink, by kind."),
	TL("ops_fetch_add", "memory_ops_total", "kind", "fetch_add", NULL),
	TM("bytes_written", "written_bytes_total", C,
	   "Bytes of WRITE operations handed to the sink."),
	TM("sink_errors", "sink_errors_total", C,
	   "Memory operations the sink refused (not written)."),
	TM("ops_lost_no_region", "ops_lost_no_region_total", C,
	   "Of sink_errors: refused because the collector had retired its "
	   "shared memory and no new one was there."),
	TL("pc_emitted", "postcard_chunks_total", "reason", "complete",
	   "Postcarding chunks written, by why: complete, evicted, timeout."),
	TL("pc_evictions", "postcard_chunks_total", "reason", "evicted", NULL),
	TL("pc_timeouts", "postcard_chunks_total", "reason", "timeout", NULL),
	TM("pc_hops_dropped", "postcard_hops_dropped_total", C,
	   "Postcards taken but not representable (a gap before them)."),
	TM("pc_duplicates", "postcard_duplicates_total", C,
	   "Postcards for a hop already reported."),
	TM("pc_ttl_ties", "postcard_ttl_ties_total", C,
	   "INT postcards not placed: another switch id holds their TTL."),
	TL("ap_batches", "append_batches_total", "fill", "full",
	   "Append batches written: full, or partial on the timeout."),
	TL("ap_partial", "append_batches_total", "fill", "partial", NULL),
	TM("ki_merged", "key_increments_merged_total", C,
	   "Key-Increment reports folded into another (pre-aggregation)."),
	TM("rx_errors", "receive_errors_total", C,
	   "Failed receive calls or completions."),
	TM("rcvbuf_bytes", "socket_receive_buffer_bytes", G,
	   "The UDP sockets' receive buffer."),
	TM("queue_datagrams", "receive_queue_datagrams", G,
	   "Datagrams the receive queue surely holds."),
	TM("int_datagrams", "int_datagrams_total", C,
	   "INT datagrams given to the core."),
	TM("int_reports_in", "int_reports_in_total", C, "INT reports decoded."),
	TM("int_applied", "int_reports_applied_total", C,
	   "INT reports that updated a structure."),
	TM("int_unmapped", "int_reports_unmapped_total", C,
	   "INT reports no configured role could use."),
	TM("int_malformed", "int_malformed_total", C,
	   "INT reports the decoder refused (a datagram refused whole counts once; the sum over cause)."),
	TL("int_malformed_truncated", "int_malformed_by_cause_total", "cause",
	   "truncated", "INT reports the decoder refused (a datagram refused whole counts once), by cause."),
	TL("int_malformed_version", "int_malformed_by_cause_total", "cause",
	   "version", NULL),
	TL("int_malformed_unsupported", "int_malformed_by_cause_total",
	   "cause", "unsupported", NULL),
	TL("int_malformed_length", "int_malformed_by_cause_total", "cause",
	   "length", NULL),
	TL("int_malformed_hops", "int_malformed_by_cause_total", "cause",
	   "hops", NULL),
	TL("int_malformed_other", "int_malformed_by_cause_total", "cause",
	   "other", NULL),
	TM("int_updates", "int_updates_total", C,
	   "Structure updates issued for INT reports."),
	TM("int_mismatch", "int_updates_mismatch_total", C,
	   "INT updates a structure could not take."),
	TM("int_path_truncated", "int_paths_truncated_total", C,
	   "INT-MD paths longer than the path structure holds."),
	TM("int_seq_lost", "int_seq_lost_total", C,
	   "INT datagrams missing from a reporter's sequence."),
	TM("int_seq_late", "int_seq_late_total", C,
	   "INT datagrams out of order that filled a gap."),
	TM("int_seq_duplicates", "int_seq_duplicates_total", C,
	   "INT datagrams whose sequence number was seen again."),
	TM("int_seq_jumps", "int_seq_jumps_total", C,
	   "Confirmed INT sequence jumps."),
	TM("int_seq_restarts", "int_seq_restarts_total", C,
	   "INT reporter sequences that restarted."),
	TM("int_seq_suspect", "int_seq_suspect_total", C,
	   "Out-of-window INT datagrams nothing confirmed."),
	TM("int_seq_skipped", "int_seq_skipped_total", C,
	   "INT sequence numbers confirmed jumps went over (not in int_seq_lost)."),
	TM("int_seq_untracked", "int_seq_untracked_total", C,
	   "INT datagrams of reporters beyond the sequence table."),
	TM("reports_immediate", "reports_immediate_total", C,
	   "Applied reports carrying the immediate (notify) flag."),
	TM("notifications", "notifications_total", C,
	   "Structure notifications issued (at most one per structure per batch)."),
	TM("rdma_ops", "rdma_ops_total", C, "RDMA work requests posted."),
	TM("rdma_bytes", "rdma_written_bytes_total", C, "Bytes written with RDMA."),
	TM("rdma_errors", "rdma_completion_errors_total", C,
	   "RDMA completion errors (each breaks its connection)."),
	TM("rdma_reconnects", "rdma_reconnects_total", C,
	   "RDMA reconnections."),
	TM("rdma_dropped", "rdma_append_frames_dropped_total", C,
	   "Append frames that could not be kept for resending."),
	TM("rdma_queued", "rdma_append_frames_queued", G,
	   "Append frames not yet known written."),
	TM("rdma_qps", "rdma_queue_pairs", G,
	   "RDMA queue pairs, over all collectors."),
	TM("switch_frames", "switch_frames_total", C, "RoCEv2 frames sent."),
	TM("switch_bytes", "switch_sent_bytes_total", C, "RoCEv2 bytes sent."),
	TL("switch_send_errors", "switch_errors_total", "cause", "send",
	   "Frames not sent, by cause: send, build."),
	TL("switch_build_errors", "switch_errors_total", "cause", "build",
	   NULL),
	TL("switch_acks", "switch_acks_total", "kind", "plain",
	   "Acknowledgements received, by kind: plain, atomic."),
	TL("switch_atomic_acks", "switch_acks_total", "kind", "atomic", NULL),
	TL("switch_nak_psn", "switch_naks_total", "cause", "psn_sequence",
	   "NAKs received, by cause."),
	TL("switch_nak_invalid", "switch_naks_total", "cause",
	   "invalid_request", NULL),
	TL("switch_nak_access", "switch_naks_total", "cause", "remote_access",
	   NULL),
	TL("switch_nak_remote_op", "switch_naks_total", "cause",
	   "remote_operation", NULL),
	TL("switch_nak_other", "switch_naks_total", "cause", "other", NULL),
	TM("switch_rnr_naks", "switch_rnr_naks_total", C,
	   "Receiver-not-ready NAKs."),
	TM("switch_resyncs", "switch_resyncs_total", C,
	   "Queue pairs resynchronised to the responder's PSN."),
	TM("switch_skipped", "switch_skipped_total", C,
	   "Requests the responder dropped (counted at a resync)."),
	TM("switch_bad_replies", "switch_bad_replies_total", C,
	   "RoCEv2 replies the parser refused."),
	TM("switch_unacked", "switch_unacked_frames", G,
	   "Frames sent and not yet acknowledged."),
	TM("switch_unsynced", "switch_unsynced_total", C,
	   "Queue pairs whose probe drew no answer."),
	TM("switch_retransmits", "switch_retransmits_total", C,
	   "Frames sent again (NAK or timeout)."),
	TM("switch_timeouts", "switch_timeouts_total", C,
	   "Resends for lack of any acknowledgement."),
	TM("switch_lost", "switch_lost_total", C,
	   "Operations sent but given up (lost)."),
	TM("switch_window_full", "switch_window_full_total", C,
	   "Operations refused: no room to keep them for resending."),
	TL("xdp_redirected", "xdp_frames_total", "action", "redirected",
	   "Frames to the DTA and INT ports the XDP program saw, by what it "
	   "did: redirected to an AF_XDP socket; passed to the kernel for "
	   "want of a socket on the queue (no_socket), longer than a UMEM "
	   "frame (too_long) or with a bad IPv4 header checksum "
	   "(bad_checksum); UDP to other ports it passed (other_port)."),
	TL("xdp_no_socket", "xdp_frames_total", "action", "no_socket", NULL),
	TL("xdp_too_long", "xdp_frames_total", "action", "too_long", NULL),
	TL("xdp_bad_checksum", "xdp_frames_total", "action", "bad_checksum",
	   NULL),
	TL("xdp_passed", "xdp_frames_total", "action", "other_port", NULL),
	TL("xdp_rx_dropped", "xdp_drops_total", "cause", "rx_dropped",
	   "Of socket_drops: datagrams the kernel dropped at the AF_XDP "
	   "sockets (XDP_STATISTICS), by cause: no fill-ring frame "
	   "(rx_dropped), rx ring full (rx_ring_full), invalid descriptors "
	   "(rx_invalid_descs)."),
	TL("xdp_rx_ring_full", "xdp_drops_total", "cause", "rx_ring_full",
	   NULL),
	TL("xdp_rx_invalid_descs", "xdp_drops_total", "cause",
	   "rx_invalid_descs", NULL),
	TM("xdp_fill_ring_empty", "xdp_fill_ring_empty_total", C,
	   "Times the kernel found an AF_XDP fill ring empty."),
	TM("xdp_bad_frames", "xdp_bad_frames_total", C,
	   "Of rx_truncated: steered frames whose UDP length runs past the "
	   "frame."),
};
#undef TM
#undef TL
#undef C
#undef G

/* write_stats() as metrics_write_stats() calls it. */
static void write_stats_cb(void *ctx, FILE *out)
{
	write_stats(ctx, out, 0);
}

/*
 * Losses by reporter and by structure (docs/metrics.md "Losses by reporter
 * and structure"): one family per unit, as the totals, each sample one
 * field of struct dta_translator_losses. Per family, the sum over its
 * labels equals the total's sample of the same cause at rest.
 */
struct loss_def {
	const char *family; /* after "dta_translator_" */
	const char *cause;  /* the cause label's value, or NULL: none */
	size_t off;         /* the field */
	bool int_only;      /* only with [int] */
	const char *help;   /* the family's first entry */
};
#define LF(f) offsetof(struct dta_translator_losses, f)
static const struct loss_def reporter_losses[] = {
	{ "datagrams_lost_by_reporter_total", "socket_drops", LF(socket_drops),
	  false, "Datagrams lost before the core, by reporter (source "
	  "address; other: beyond reporter_labels; unknown: no source known, "
	  "as for the kernel's drops) and cause." },
	{ "datagrams_lost_by_reporter_total", "rx_truncated", LF(rx_truncated),
	  false, NULL },
	{ "datagrams_lost_by_reporter_total", "refused_source",
	  LF(refused_source), false, NULL },
	{ "reports_lost_by_reporter_total", "sequence_gap", LF(seq_lost), false,
	  "Reports lost, by reporter and cause (unknown: losses of data "
	  "several reporters share, an Append batch or a Postcarding chunk)." },
	{ "reports_lost_by_reporter_total", "unknown_structure",
	  LF(unknown_structure), false, NULL },
	{ "reports_lost_by_reporter_total", "mismatch", LF(mismatch), false,
	  NULL },
	{ "reports_lost_by_reporter_total", "sink", LF(sink_lost_reports),
	  false, NULL },
	{ "malformed_by_reporter_total", "truncated", LF(malformed_truncated),
	  false, "Payloads the decoder refused, by reporter and cause." },
	{ "malformed_by_reporter_total", "version", LF(malformed_version),
	  false, NULL },
	{ "malformed_by_reporter_total", "opcode", LF(malformed_opcode),
	  false, NULL },
	{ "malformed_by_reporter_total", "field", LF(malformed_field), false,
	  NULL },
	{ "malformed_by_reporter_total", "ambiguous", LF(malformed_ambiguous),
	  false, NULL },
	{ "malformed_by_reporter_total", "too_many", LF(malformed_too_many),
	  false, NULL },
	{ "sink_errors_by_reporter_total", NULL, LF(sink_errors), false,
	  "Memory operations the sink refused, by reporter." },
	{ "int_malformed_by_reporter_total", "truncated",
	  LF(int_malformed_truncated), true,
	  "INT reports the decoder refused (a datagram refused whole counts once), by reporter and cause." },
	{ "int_malformed_by_reporter_total", "version",
	  LF(int_malformed_version), true, NULL },
	{ "int_malformed_by_reporter_total", "unsupported",
	  LF(int_malformed_unsupported), true, NULL },
	{ "int_malformed_by_reporter_total", "length",
	  LF(int_malformed_length), true, NULL },
	{ "int_malformed_by_reporter_total", "hops", LF(int_malformed_hops),
	  true, NULL },
	{ "int_malformed_by_reporter_total", "other", LF(int_malformed_other),
	  true, NULL },
	{ "int_reports_unmapped_by_reporter_total", NULL, LF(int_unmapped),
	  true, "INT reports no configured role could use, by reporter." },
	{ "int_updates_mismatch_by_reporter_total", NULL, LF(int_mismatch),
	  true, "INT updates a structure could not take, by reporter." },
	{ "int_seq_lost_by_reporter_total", NULL, LF(int_seq_lost), true,
	  "INT datagrams missing from a reporter's sequence, by reporter." },
};
static const struct loss_def structure_losses[] = {
	{ "reports_lost_by_structure_total", "mismatch", LF(mismatch), false,
	  "Reports lost in a structure (share), by cause: refused by its "
	  "sizes (mismatch), carried by operations the sink refused (sink)." },
	{ "reports_lost_by_structure_total", "sink", LF(sink_lost_reports),
	  false, NULL },
	{ "sink_errors_by_structure_total", NULL, LF(sink_errors), false,
	  "Memory operations the sink refused, by structure (share)." },
	{ "int_updates_mismatch_by_structure_total", NULL, LF(int_mismatch),
	  true, "INT updates a structure (share) could not take." },
};
#undef LF

static uint64_t loss_field(const struct dta_translator_losses *l, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)l + off, sizeof(v));
	return v;
}

/* The families of @defs, @n labelled rows each: row i's losses in @rows[i]
 * and its labels in @lab[i * nl ...] (the cause is added after them). */
static int write_losses(struct translator *t, FILE *f,
			const struct loss_def *defs, size_t ndefs,
			const struct dta_translator_losses *rows,
			const struct metrics_label *lab, size_t nl, size_t n)
{
	char fam[128], num[32];
	int err = 0;

	for (size_t d = 0; d < ndefs && !err; d++) {
		if (defs[d].int_only && !t->int_on)
			continue;
		snprintf(fam, sizeof(fam), "dta_translator_%s", defs[d].family);
		if (defs[d].help)
			err = metrics_write_header(f, fam, METRICS_COUNTER,
						   defs[d].help);
		for (size_t i = 0; i < n && !err; i++) {
			struct metrics_label l[4];

			memcpy(l, lab + i * nl, nl * sizeof(*l));
			if (defs[d].cause)
				l[nl] = (struct metrics_label){ "cause",
								defs[d].cause };
			snprintf(num, sizeof(num), "%" PRIu64,
				 loss_field(&rows[i], defs[d].off));
			err = metrics_write_sample(f, fam, l,
						   nl + !!defs[d].cause, num);
		}
	}
	return err;
}

static int metrics_write_losses(struct translator *t, FILE *f)
{
	/* Sources that get a slot while this runs wait for the next scrape. */
	unsigned k = t->rep_max ? reporters_count(&t->rep) : 0;
	size_t n = t->rep_max ? k + 2 : 0;
	struct dta_translator_losses *rows;
	struct metrics_label *lab;
	char (*name)[INET_ADDRSTRLEN + 8];
	int err = 0;

	if (n < t->nshares)
		n = t->nshares;
	rows = calloc(n ? n : 1, sizeof(*rows));
	lab = calloc(2 * (n ? n : 1), sizeof(*lab));
	name = calloc(n ? n : 1, sizeof(*name));
	if (!rows || !lab || !name) {
		err = -ENOMEM;
		goto out;
	}
	if (t->rep_max) {
		/* The sources given a slot, then other (slot max) and
		 * unknown (the core's unattributed slot, max + 1). */
		for (unsigned i = 0; i < k + 2; i++) {
			unsigned slot = i < k ? i : t->rep_max + (i - k);

			dta_translator_reporter_losses(t->core, slot, &rows[i]);
			lab[i] = (struct metrics_label){
				"reporter", reporters_label(&t->rep, slot,
							    name[i],
							    sizeof(name[i])) };
		}
		err = write_losses(t, f, reporter_losses,
				   sizeof(reporter_losses) /
					   sizeof(reporter_losses[0]),
				   rows, lab, 1, k + 2);
	}
	for (size_t i = 0; !err && i < t->nshares; i++) {
		dta_translator_structure_losses(t->core, (unsigned)i, &rows[i]);
		lab[2 * i] = (struct metrics_label){ "structure",
						     t->sh[i].cs.name };
		lab[2 * i + 1] = (struct metrics_label){
			"collector", dta_config_collector_id(t->cfg,
							     t->sh[i].coll) };
	}
	if (!err && t->nshares)
		err = write_losses(t, f, structure_losses,
				   sizeof(structure_losses) /
					   sizeof(structure_losses[0]),
				   rows, lab, 2, t->nshares);
out:
	free(rows);
	free(lab);
	free(name);
	return err;
}

/* dta_translator_info: what runs, as the collector's. */
static int metrics_write_info(struct translator *t, FILE *f)
{
	struct metrics_label l[] = {
		{ "version", DTA_VERSION_STRING },
		{ "sink", t->switch_if ? "switch" : t->use_rdma ? "rdma" : "shm" },
	};
	int err = metrics_write_header(f, "dta_translator_info", METRICS_GAUGE,
				       "Always 1: the translator's version "
				       "and sink (shm, rdma, switch).");

	return err ? err : metrics_write_sample(f, "dta_translator_info", l, 2,
						"1");
}

static int metrics_write(void *ctx, FILE *f)
{
	struct translator *t = ctx;
	int err;

	err = metrics_write_stats(f, write_stats_cb, t, translator_metrics,
				  sizeof(translator_metrics) /
					  sizeof(translator_metrics[0]),
				  NULL, 0);
	if (!err)
		err = metrics_write_losses(t, f);
	if (!err)
		err = metrics_write_info(t, f);
	if (!err)
		err = metrics_write_process(f);
	for (size_t i = 0, first = 1; !err && i < t->nshares; i++) {
		struct metrics_label l[] = {
			{ "structure", t->sh[i].cs.name },
			{ "collector", dta_config_collector_id(t->cfg, t->sh[i].coll) },
		};

		if (!t->fill[i])
			continue;
		if (first)
			err = metrics_write_header(f,
				"dta_translator_append_batch_entries",
				METRICS_HISTOGRAM, "Entries in each Append batch "
				"written (a full batch holds the structure's "
				"batch entries).");
		first = 0;
		if (!err)
			err = metrics_write_hist(f,
				"dta_translator_append_batch_entries", l, 2,
				t->fill[i]);
	}
	if (!err && t->rdma_lat)
		err = metrics_write_header(f,
			"dta_translator_rdma_completion_seconds",
			METRICS_HISTOGRAM, "RDMA requests from posting to "
			"completion (signalled ones: one in 32, and flush "
			"markers).");
	if (!err && t->rdma_lat)
		err = metrics_write_hist(f,
			"dta_translator_rdma_completion_seconds", NULL, 0,
			t->rdma_lat);
	return err;
}

/* Healthy: every structure has somewhere to go. Shared memory: no
 * collector's region is gone (check_collector() notices within a second);
 * RDMA: at least one queue pair is connected. That this is answered at
 * all says the main loop turns. */
static int metrics_health(void *ctx, char *why, size_t cap)
{
	struct translator *t = ctx;

	if (!t->use_rdma && !t->sw && t->collector_gone) {
		snprintf(why, cap, "a collector's shared memory is gone");
		return 1;
	}
#ifdef DTA_HAVE_RDMA
	if (t->rdma) {
		struct rdma_sink_stats rs;

		rdma_sink_stats(t->rdma, &rs);
		if (!rs.connections) {
			snprintf(why, cap, "no RDMA connection to a collector");
			return 1;
		}
	}
#endif
	if (t->degraded) {
		snprintf(why, cap, "%" PRIu64 " of %" PRIu64 " reports lost "
			 "in the last %g s, over health_loss_ratio %g",
			 t->deg_lost, t->deg_total, t->health_window_s,
			 t->health_ratio);
		return METRICS_DEGRADED;
	}
	return 0;
}

/* The sink between the core and the real one while metrics are on: reads
 * each Append batch's entry count from the frame it writes (the trailer's
 * count, docs/wire.md; the last 4 bytes of the last operation are count
 * and magic) and passes everything on. Called from the workers: the
 * histogram is atomic. */
static int fill_submit(void *ctx, unsigned s, const struct dta_memop *ops,
		       size_t n)
{
	struct translator *t = ctx;

	if (s < DTA_CONFIG_MAX_STRUCTURES && t->fill[s] && n &&
	    ops[n - 1].kind == DTA_MEMOP_WRITE && ops[n - 1].len >= 4) {
		const uint8_t *p = (const uint8_t *)ops[n - 1].data +
				   ops[n - 1].len - 4;

		if ((p[2] << 8 | p[3]) == DTA_AP_TRAILER_MAGIC)
			metrics_hist_observe(t->fill[s],
					     (uint64_t)p[0] << 8 | p[1]);
	}
	return t->inner.submit(t->inner.ctx, s, ops, n);
}

static int fill_flush(void *ctx)
{
	struct translator *t = ctx;

	return t->inner.flush(t->inner.ctx);
}

static void fill_prefetch(void *ctx, unsigned s, uint64_t off, uint32_t len)
{
	struct translator *t = ctx;

	t->inner.prefetch(t->inner.ctx, s, off, len);
}

static void fill_begin(void *ctx)
{
	struct translator *t = ctx;

	t->inner.batch_begin(t->inner.ctx);
}

static void fill_end(void *ctx)
{
	struct translator *t = ctx;

	t->inner.batch_end(t->inner.ctx);
}

static void fill_notify(void *ctx, unsigned s)
{
	struct translator *t = ctx;

	t->inner.notify(t->inner.ctx, s);
}

#ifdef DTA_HAVE_RDMA
/* Time RDMA requests from posting to completion (1 us .. 1 s). */
static int watch_rdma(struct translator *t)
{
	static const uint64_t bounds[] = {
		1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000,
		500000, 1000000, 2500000, 5000000, 10000000, 25000000,
		100000000, 1000000000,
	};

	t->rdma_lat = calloc(1, sizeof(*t->rdma_lat));
	if (!t->rdma_lat)
		return -ENOMEM;
	metrics_hist_init(t->rdma_lat, bounds,
			  sizeof(bounds) / sizeof(bounds[0]), 1e-9);
	rdma_sink_set_latency(t->rdma, t->rdma_lat);
	return 0;
}
#endif

/* Put fill_submit() in front of @sink for the Append shares. */
static int watch_fill(struct translator *t, struct dta_sink *sink)
{
	static const uint64_t bounds[] = {
		1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024,
	};

	for (size_t i = 0; i < t->nshares; i++) {
		if (t->sh[i].cs.layout.primitive != DTA_PRIM_APPEND)
			continue;
		t->fill[i] = calloc(1, sizeof(*t->fill[i]));
		if (!t->fill[i])
			return -ENOMEM;
		metrics_hist_init(t->fill[i], bounds,
				  sizeof(bounds) / sizeof(bounds[0]), 1);
	}
	t->inner = *sink;
	sink->submit = fill_submit;
	sink->ctx = t;
	sink->flush = t->inner.flush ? fill_flush : NULL;
	sink->prefetch = t->inner.prefetch ? fill_prefetch : NULL;
	sink->batch_begin = t->inner.batch_begin ? fill_begin : NULL;
	sink->batch_end = t->inner.batch_end ? fill_end : NULL;
	sink->notify = t->inner.notify ? fill_notify : NULL;
	return 0;
}

/* Count losses by reporter: [translator] reporter_labels sources (64 by
 * default; 0: not by reporter), the rest as "other". */
static int watch_reporters(struct translator *t)
{
	uint64_t n;
	int err;

	if (cfg_u64(t->cfg, "reporter_labels", 64, &n))
		return -1;
	if (!n)
		return 0;
	err = reporters_init(&t->rep, (unsigned)n);
	/* Slots 0..n-1 the sources, n "other"; the core's n+1: unknown. */
	if (!err)
		err = dta_translator_set_reporter_slots(t->core,
							(unsigned)n + 1);
	if (err) {
		tool_log(LOG_ERR, "reporter_labels: %s", strerror(-err));
		return -1;
	}
	t->rep_max = (unsigned)n;
	return 0;
}

static int start_metrics(struct translator *t, const char *listen)
{
	struct metrics_server_opts o = {
		.listen = listen, .write = metrics_write,
		.health = metrics_health, .ctx = t, .log = tool_log_warning,
	};

	if (metrics_server_start(&o, &t->metrics)) {
		tool_log(LOG_ERR, "metrics: cannot serve on %s", listen);
		return -1;
	}
	tool_log(LOG_INFO, "metrics on http://%s%s/metrics",
		 strchr(listen, ':') ? "" : "127.0.0.1:", listen);
	return 0;
}

/* Where the reports go, for the status line. */
static const char *sink_name(const struct translator *t)
{
	static char s[300];

	if (t->switch_if)
		snprintf(s, sizeof(s), "RoCEv2 frames on %s", t->switch_if);
	else if (t->use_rdma)
		snprintf(s, sizeof(s), "over RDMA");
	else
		snprintf(s, sizeof(s), "into shared memory (%zu structures)",
			 t->nshares);
	return s;
}

/* ---- UDP workers ---- */

static int udp_socket(struct translator *t, uint16_t port, bool reuseport)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd, one = 1, rcvbuf = 8 << 20;
	socklen_t len;

	if (inet_pton(AF_INET, t->bind_addr, &sa.sin_addr) != 1) {
		tool_log(LOG_ERR, "bad bind address %s",
			t->bind_addr);
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (reuseport &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)))
		goto fail;
	/* Losses in the kernel's queue become socket_drops: the workers
	 * read the socket's drop count (SO_MEMINFO) at every tick and at the
	 * end, rather than have it copied out with every datagram as a
	 * SO_RXQ_OVFL control message (5-7% of the receive path). */
	/* A larger queue absorbs bursts between receives. Beyond
	 * net.core.rmem_max only with CAP_NET_ADMIN (SO_RCVBUFFORCE). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	len = sizeof(t->rcvbuf);
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &t->rcvbuf, &len);
	/* A queued datagram of up to 1500 bytes costs at most about 4 KiB
	 * of the queue (its truesize). */
	t->queue_datagrams = (uint64_t)t->rcvbuf / 4096;
	return fd;
fail:
	tool_log(LOG_ERR, "UDP %s:%u: %s%s", t->bind_addr, port,
		strerror(errno),
		errno == EADDRINUSE ? " (another dta-translator, or another "
				      "program, receives on this port: stop it "
				      "or choose another --port)" : "");
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * Several workers share the port with SO_REUSEPORT, which would also let
 * another process (same user) join the group and take a share of the
 * reports. Before: a socket without SO_REUSEPORT must be able to bind
 * (nobody holds the port). After: /proc/net/udp must list no socket on
 * the port but ours (closes the window between the two).
 */
static int port_free(struct translator *t)
{
	int fd = udp_socket(t, t->port, false);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int port_ours(struct translator *t, const int *fds, unsigned n)
{
	FILE *f = fopen("/proc/net/udp", "r");
	uint32_t want = ntohl(inet_addr(t->bind_addr));
	char line[512];
	int rc = 0;

	if (!f)
		return 0; /* no procfs: the probe before binding has to do */
	while (fgets(line, sizeof(line), f)) {
		unsigned addr, port;
		unsigned long ino;
		bool mine = false;

		if (sscanf(line, " %*u: %8x:%4x %*x:%*x %*x %*x:%*x %*x:%*x %*x "
			   "%*u %*u %lu", &addr, &port, &ino) != 3 ||
		    port != t->port)
			continue;
		/* The kernel prints the address as the host reads the
		 * network-order word. */
		addr = ntohl(addr);
		if (addr != want && addr != 0 && want != 0)
			continue;
		for (unsigned i = 0; i < n; i++) {
			struct stat st;

			if (fstat(fds[i], &st) == 0 && st.st_ino == ino)
				mine = true;
		}
		if (!mine) {
			tool_log(LOG_ERR, "UDP %s:%u: another process joined "
				 "the port (socket inode %lu): refusing to "
				 "share it", t->bind_addr, t->port, ino);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}

struct worker {
	struct translator *t;
	int fd;
	bool is_int; /* the INT port's: datagrams are INT reports */
	uint32_t drops; /* the socket's drop count as last seen */
	pthread_t th;
	uint64_t last_rx;   /* when datagrams last arrived */
	uint64_t last_tick; /* when the core was last ticked */
	bool settled;       /* nothing pending since: no deadline */
	atomic_uint_fast64_t turns; /* rounds of its receive loop */
	uint64_t seen_turns;        /* main thread: turns at its last look */
	unsigned still;             /* main thread: looks it seemed stuck at */
	bool stuck;                 /* main thread: it was, at that look */
	uint32_t last_src;          /* the last source's reporter slot */
	unsigned last_slot;         /* (UINT_MAX: none yet) */
	struct xdp_rxq *xq;         /* its AF_XDP socket, or NULL */
	struct xdp_rx_drops xd;     /* that socket's counters as last seen */
	uint64_t last_sock;         /* xdp: when its UDP socket was last read */
};

static void xdp_note_drops(struct worker *w);

/* The reporter slot of source @addr (host order; 0: not IPv4): the last
 * source's again without a lookup (a switch sends in bursts). */
static inline unsigned src_slot(struct translator *t, struct worker *w,
				uint32_t addr)
{
	if (!t->rep_max)
		return 0;
	if (w && w->last_slot != UINT_MAX && w->last_src == addr)
		return w->last_slot;
	if (!w)
		return reporters_slot(&t->rep, addr);
	w->last_src = addr;
	return w->last_slot = reporters_slot(&t->rep, addr);
}

/* The socket's cumulative drop count is @now: count what is new. */
static void note_drops(struct worker *w, uint32_t now)
{
	uint32_t d = now - w->drops;

	if (d && d < 1u << 31) {
		dta_translator_count_input(w->t->core, DTA_INPUT_SOCKET_DROP, d);
		w->drops = now;
	}
}

/* Drops after the last datagram received carry no cmsg: ask the socket. */
static void poll_drops(struct worker *w)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(w->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
	    len > SK_MEMINFO_DROPS * sizeof(uint32_t))
		note_drops(w, mem[SK_MEMINFO_DROPS]);
}

/* Is IPv4 source @addr (host order; 0 for an IPv6 one, which an
 * allow-list never admits) allowed? A refusal is counted, and the first
 * one said. */
static bool source_ok(struct translator *t, uint32_t addr, unsigned slot)
{
	struct in_addr in = { .s_addr = htonl(addr) };
	char a[INET_ADDRSTRLEN];

	if (!t->allow.n || (addr && allow_ok(&t->allow, addr)))
		return true;
	dta_translator_count_input_from(t->core, DTA_INPUT_REFUSED_SOURCE,
					slot, 1);
	if (!atomic_exchange(&t->refused_said, true))
		tool_log(LOG_WARNING, "refused a datagram from %s (not in "
			 "allow); further ones are counted as refused_source",
			 !addr ? "an IPv6 address"
			 : inet_ntop(AF_INET, &in, a, sizeof(a)) ? a : "?");
	return false;
}

/*
 * ---- When the workers and the main thread wake ----
 *
 * An idle translator sleeps until something needs it: a datagram, the
 * stop, or a deadline. After traffic the core may hold state that only
 * time writes (partial Append batches, postcard flows, aggregated
 * increments): a worker ticks the core every tick_ns until the longest of
 * those timeouts (horizon_ns) has passed since its last datagram, and one
 * tick more; then nothing is pending and it sleeps without a timeout. The
 * main thread keeps the stats file fresh every 10 ms only while workers
 * say counters move (t->active), and else wakes for its own deadlines.
 */

/* Counters moved: have the main thread refresh the stats file. One
 * eventfd write per idle-to-active change, not per batch. */
static void note_active(struct translator *t)
{
	uint64_t one = 1;

	if (t->wake_fd < 0 ||
	    atomic_load_explicit(&t->active, memory_order_relaxed) ||
	    atomic_exchange(&t->active, true))
		return;
	if (write(t->wake_fd, &one, sizeof(one)) < 0)
		atomic_fetch_add(&t->rx_errors, 1);
}

/* Datagrams arrived at @now. */
static void worker_rx(struct worker *w, uint64_t now)
{
	w->last_rx = now;
	w->settled = false;
	note_active(w->t);
}

/* Tick the core if due. Return: ns until the next tick, or -1 when
 * nothing is pending any more (sleep until a datagram). */
static int64_t worker_due(struct worker *w, uint64_t now)
{
	struct translator *t = w->t;

	if (w->settled)
		return -1;
	if (now - w->last_tick >= t->tick_ns) {
		dta_translator_tick(t->core, now);
		poll_drops(w);
		xdp_note_drops(w);
		w->last_tick = now;
		note_active(t);
		if (now - w->last_rx >= t->horizon_ns + t->tick_ns) {
			w->settled = true;
			return -1;
		}
	}
	return (int64_t)(w->last_tick + t->tick_ns - now);
}

static struct timespec ns_ts(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000,
				  .tv_nsec = ns % 1000000000 };
}

/* ---- recvmmsg receive ---- */

struct rx {
	unsigned batch;
	uint8_t (*bufs)[DTA_PAYLOAD_MAX];
	struct sockaddr_in *from;
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct dta_payload *p;
	uint16_t *slot; /* each payload's reporter slot */
};

static void rx_free(struct rx *x)
{
	if (!x)
		return;
	free(x->bufs);
	free(x->from);
	free(x->msgs);
	free(x->iov);
	free(x->p);
	free(x->slot);
	free(x);
}

/* @names: receive the sources' addresses (for an allow-list). */
static struct rx *rx_alloc(unsigned batch, bool names)
{
	struct rx *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->batch = batch;
	x->bufs = calloc(batch, sizeof(*x->bufs));
	x->from = calloc(batch, sizeof(*x->from));
	x->msgs = calloc(batch, sizeof(*x->msgs));
	x->iov = calloc(batch, sizeof(*x->iov));
	x->p = calloc(batch, sizeof(*x->p));
	x->slot = calloc(batch, sizeof(*x->slot));
	if (!x->bufs || !x->from || !x->msgs || !x->iov || !x->p || !x->slot) {
		rx_free(x);
		return NULL;
	}
	for (unsigned i = 0; i < batch; i++) {
		x->iov[i].iov_base = x->bufs[i];
		x->iov[i].iov_len = sizeof(x->bufs[i]);
		x->msgs[i].msg_hdr.msg_iov = &x->iov[i];
		x->msgs[i].msg_hdr.msg_iovlen = 1;
		x->msgs[i].msg_hdr.msg_name = names ? &x->from[i] : NULL;
	}
	return x;
}

/* Receive what is queued, up to a batch, without waiting, and hand the
 * core the datagrams as one batch. Return: datagrams received, 0 if none. */
static int rx_batch(struct worker *w, struct rx *x)
{
	struct translator *t = w->t;
	size_t np = 0;
	int n;

	for (unsigned i = 0; i < x->batch; i++)
		if (x->msgs[i].msg_hdr.msg_name)
			x->msgs[i].msg_hdr.msg_namelen = sizeof(x->from[i]);
	n = recvmmsg(w->fd, x->msgs, x->batch, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			atomic_fetch_add(&t->rx_errors, 1);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct msghdr *h = &x->msgs[i].msg_hdr;
		uint32_t src = 0;
		unsigned slot = 0;

		if (h->msg_name) {
			src = h->msg_namelen >= sizeof(x->from[i])
				      ? ntohl(x->from[i].sin_addr.s_addr) : 0;
			slot = src_slot(t, w, src);
			if (!source_ok(t, src, slot))
				continue;
		}
		if (h->msg_flags & MSG_TRUNC) {
			dta_translator_count_input_from(t->core,
							DTA_INPUT_TRUNCATED,
							slot, 1);
			continue;
		}
		x->slot[np] = (uint16_t)slot;
		x->p[np++] = (struct dta_payload){ x->bufs[i], x->msgs[i].msg_len };
	}
	if (np && w->is_int)
		dta_translator_process_int_batch_from(t->core, x->p, x->slot,
						      np, tool_now_ns());
	else if (np)
		dta_translator_process_batch_from(t->core, x->p, x->slot, np,
						  tool_now_ns());
	return n;
}

/* Stopping: what the queue holds was sent to us; apply it rather than
 * lose it uncounted with the socket (for at most a second, in case
 * senders keep sending). */
static void rx_drain(struct worker *w, struct rx *x)
{
	for (uint64_t end = tool_now_ns() + 1000000000ull;
	     tool_now_ns() < end && rx_batch(w, x) > 0;)
		;
	poll_drops(w);
}

static void recvmmsg_loop(struct worker *w, struct rx *x)
{
	struct translator *t = w->t;

	while (!stop) {
		atomic_fetch_add_explicit(&w->turns, 1, memory_order_relaxed);
		struct pollfd p[2] = { { .fd = w->fd, .events = POLLIN },
				       { .fd = t->stop_fd, .events = POLLIN } };
		int n = rx_batch(w, x);
		uint64_t now = tool_now_ns();
		int64_t due;
		struct timespec ts;

		if (n > 0)
			worker_rx(w, now);
		due = worker_due(w, now);
		if (n == (int)x->batch)
			continue; /* more queued, surely */
		if (n > 0 && t->rx_wait_ns) {
			/* A partial batch: let the queue fill for a bounded
			 * while rather than wake for every few datagrams. */
			ts = ns_ts(due >= 0 && (uint64_t)due < t->rx_wait_ns
				   ? due : (int64_t)t->rx_wait_ns);
			nanosleep(&ts, NULL);
			continue;
		}
		if (n > 0)
			continue; /* the queue may hold more by now */
		ts = ns_ts(due);
		ppoll(p, 2, due >= 0 ? &ts : NULL, NULL);
	}
}

/* ---- io_uring receive: multishot recvmsg into a provided buffer ring ---- */

#ifdef DTA_HAVE_URING
enum { UD_RECV = 1, UD_STOP, UD_CANCEL };

struct urx {
	struct io_uring ring;
	bool ring_up;
	struct io_uring_buf_ring *br;
	size_t br_size;
	uint8_t *mem;
	unsigned nbuf;
	size_t bufsz;       /* buffer spacing */
	unsigned buflen;    /* buffer length given to the kernel */
	struct msghdr tmpl; /* the name and control room of every buffer */
	struct dta_payload *p;
	uint16_t *slot;     /* each payload's reporter slot */
	uint16_t *bid;      /* buffers of the batch being applied */
	bool armed;         /* the multishot receive is active */
	bool stopping;
};

static void urx_close(struct urx *u)
{
	if (u->ring_up)
		io_uring_queue_exit(&u->ring);
	if (u->br)
		munmap(u->br, u->br_size);
	free(u->mem);
	free(u->p);
	free(u->slot);
	free(u->bid);
}

static int urx_arm(struct worker *w, struct urx *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_recvmsg_multishot(sqe, w->fd, &u->tmpl, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 0;
	io_uring_sqe_set_data64(sqe, UD_RECV);
	u->armed = true;
	return 0;
}

/* Set up the ring in the worker's own thread (it is the ring's only
 * submitter). Return: 0, or a negative errno (the caller falls back to
 * recvmmsg). */
static int urx_open(struct worker *w, struct urx *u)
{
	struct translator *t = w->t;
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN,
	};
	struct io_uring_buf_reg reg = { 0 };
	struct io_uring_sqe *sqe;
	unsigned mask;
	int err;

	/* Four batches of buffers in flight, a power of two. */
	for (u->nbuf = 64; u->nbuf < 4 * t->rx_batch && u->nbuf < 32768;)
		u->nbuf *= 2;
	p.cq_entries = 2 * u->nbuf;
	err = io_uring_queue_init_params(8, &u->ring, &p);
	if (err == -EINVAL) { /* before Linux 6.1: no deferred task work */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = 2 * u->nbuf;
		err = io_uring_queue_init_params(8, &u->ring, &p);
	}
	if (err)
		return err;
	u->ring_up = true;
	if (!(p.features & IORING_FEAT_EXT_ARG))
		return -EOPNOTSUPP; /* waits with a timeout need it */
	/* Sources' addresses only for an allow-list; no control messages
	 * (drops are read at every tick). */
	u->tmpl.msg_namelen = t->allow.n || t->rep_max
				      ? sizeof(struct sockaddr_in) : 0;
	/* The kernel gets exactly room for a report, so that a longer
	 * datagram is truncated (and counted) as with recvmmsg; buffers are
	 * spaced a cache line apart. */
	u->buflen = (unsigned)(sizeof(struct io_uring_recvmsg_out) +
			       u->tmpl.msg_namelen + DTA_PAYLOAD_MAX);
	u->bufsz = (u->buflen + 63) & ~(size_t)63;
	u->br_size = u->nbuf * sizeof(struct io_uring_buf);
	u->br = mmap(NULL, u->br_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->br == MAP_FAILED) {
		u->br = NULL;
		return -ENOMEM;
	}
	u->mem = malloc(u->nbuf * u->bufsz);
	u->p = calloc(u->nbuf, sizeof(*u->p));
	u->slot = calloc(u->nbuf, sizeof(*u->slot));
	u->bid = calloc(u->nbuf, sizeof(*u->bid));
	if (!u->mem || !u->p || !u->slot || !u->bid)
		return -ENOMEM;
	reg.ring_addr = (uint64_t)(uintptr_t)u->br;
	reg.ring_entries = u->nbuf;
	reg.bgid = 0;
	err = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (err)
		return err;
	io_uring_buf_ring_init(u->br);
	mask = io_uring_buf_ring_mask(u->nbuf);
	for (unsigned i = 0; i < u->nbuf; i++)
		io_uring_buf_ring_add(u->br, u->mem + (size_t)i * u->bufsz,
				      u->buflen, (unsigned short)i, mask,
				      (int)i);
	io_uring_buf_ring_advance(u->br, (int)u->nbuf);
	sqe = io_uring_get_sqe(&u->ring);
	io_uring_prep_poll_add(sqe, t->stop_fd, POLLIN);
	io_uring_sqe_set_data64(sqe, UD_STOP);
	urx_arm(w, u);
	err = io_uring_submit(&u->ring);
	return err < 0 ? err : 0;
}

/* Apply the completions there are, up to a batch, as one batch; give
 * their buffers back. Return: completions seen. */
static unsigned urx_reap(struct worker *w, struct urx *u, unsigned *datagrams)
{
	struct translator *t = w->t;
	unsigned head, seen = 0, nb = 0, mask = io_uring_buf_ring_mask(u->nbuf);
	struct io_uring_cqe *cqe;
	size_t np = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		uint64_t ud = io_uring_cqe_get_data64(cqe);
		struct io_uring_recvmsg_out *o;
		struct sockaddr_in *from;
		unsigned slot = 0;
		uint8_t *buf;

		if (seen == t->rx_batch)
			break;
		seen++;
		if (ud == UD_STOP) {
			u->stopping = true;
			continue;
		}
		if (ud != UD_RECV)
			continue;
		if (!(cqe->flags & IORING_CQE_F_MORE))
			u->armed = false; /* ended: out of buffers, or cancelled */
		if (!(cqe->flags & IORING_CQE_F_BUFFER)) {
			if (cqe->res < 0 && cqe->res != -ENOBUFS &&
			    cqe->res != -ECANCELED)
				atomic_fetch_add(&t->rx_errors, 1);
			continue;
		}
		u->bid[nb] = (uint16_t)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
		buf = u->mem + (size_t)u->bid[nb++] * u->bufsz;
		if (cqe->res < 0) {
			atomic_fetch_add(&t->rx_errors, 1);
			continue;
		}
		(*datagrams)++;
		o = io_uring_recvmsg_validate(buf, cqe->res, &u->tmpl);
		if (!o) {
			atomic_fetch_add(&t->rx_errors, 1);
			continue;
		}
		from = io_uring_recvmsg_name(o);
		if (u->tmpl.msg_namelen) {
			uint32_t src = o->namelen >= sizeof(*from)
					       ? ntohl(from->sin_addr.s_addr) : 0;

			slot = src_slot(t, w, src);
			if (!source_ok(t, src, slot))
				continue;
		}
		if (o->flags & MSG_TRUNC) {
			dta_translator_count_input_from(t->core,
							DTA_INPUT_TRUNCATED,
							slot, 1);
			continue;
		}
		u->slot[np] = (uint16_t)slot;
		u->p[np++] = (struct dta_payload){
			io_uring_recvmsg_payload(o, &u->tmpl),
			io_uring_recvmsg_payload_length(o, cqe->res, &u->tmpl) };
	}
	if (np)
		dta_translator_process_batch_from(t->core, u->p, u->slot, np,
						  tool_now_ns());
	for (unsigned i = 0; i < nb; i++)
		io_uring_buf_ring_add(u->br, u->mem + (size_t)u->bid[i] * u->bufsz,
				      u->buflen, u->bid[i], mask, (int)i);
	io_uring_buf_ring_advance(u->br, (int)nb);
	io_uring_cq_advance(&u->ring, seen);
	return seen;
}

static void uring_loop(struct worker *w, struct urx *u)
{
	struct translator *t = w->t;
	struct io_uring_cqe *cqe;

	while (!stop && !u->stopping) {
		unsigned got = 0, seen = urx_reap(w, u, &got), nr = 1;
		uint64_t now = tool_now_ns();
		int64_t due, wait;
		struct timespec ts;
		struct __kernel_timespec kts;

		atomic_fetch_add_explicit(&w->turns, 1, memory_order_relaxed);
		if (!u->armed && urx_arm(w, u))
			atomic_fetch_add(&t->rx_errors, 1);
		if (got)
			worker_rx(w, now);
		due = worker_due(w, now);
		if (seen == t->rx_batch)
			continue;
		wait = due;
		if (got && t->rx_wait_ns) {
			/* A partial batch: wait for a whole one, for a
			 * bounded while. */
			nr = t->rx_batch;
			if (wait < 0 || (uint64_t)wait > t->rx_wait_ns)
				wait = (int64_t)t->rx_wait_ns;
		}
		ts = ns_ts(wait);
		kts.tv_sec = ts.tv_sec;
		kts.tv_nsec = ts.tv_nsec;
		io_uring_submit_and_wait_timeout(&u->ring, &cqe, nr,
						 wait >= 0 ? &kts : NULL, NULL);
	}
	/* Stopping: end the receive, apply what it took from the socket,
	 * then what the socket still holds goes through recvmmsg. */
	if (u->armed) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

		if (sqe) {
			io_uring_prep_cancel64(sqe, UD_RECV, 0);
			io_uring_sqe_set_data64(sqe, UD_CANCEL);
		}
	}
	for (uint64_t end = tool_now_ns() + 1000000000ull;
	     u->armed && tool_now_ns() < end;) {
		struct __kernel_timespec kts = { .tv_nsec = 10000000 };
		unsigned got = 0;

		io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, &kts, NULL);
		urx_reap(w, u, &got);
	}
	/* Completions still posted (the receive had ended already, or the
	 * loop left with more than a batch waiting). */
	for (unsigned got = 0; io_uring_get_events(&u->ring) >= 0 &&
			       urx_reap(w, u, &got) > 0;)
		;
}
#endif /* DTA_HAVE_URING */

/* ---- AF_XDP receive (xdp_rx.h, docs/translator.md "AF_XDP receive
 * path") ---- */

/* The AF_XDP socket's losses since the last look: datagrams the kernel
 * dropped (socket_drops), and by cause. */
static void xdp_note_drops(struct worker *w)
{
	struct translator *t = w->t;
	struct xdp_rx_drops d;
	uint64_t a, b, c;

	if (!w->xq || xdp_rxq_drops(w->xq, &d))
		return;
	a = d.rx_dropped - w->xd.rx_dropped;
	b = d.rx_ring_full - w->xd.rx_ring_full;
	c = d.rx_invalid_descs - w->xd.rx_invalid_descs;
	atomic_fetch_add(&t->xdp_rx_dropped, a);
	atomic_fetch_add(&t->xdp_rx_ring_full, b);
	atomic_fetch_add(&t->xdp_rx_invalid, c);
	atomic_fetch_add(&t->xdp_fill_empty,
			 d.fill_ring_empty - w->xd.fill_ring_empty);
	if (a + b + c)
		dta_translator_count_input(t->core, DTA_INPUT_SOCKET_DROP,
					   a + b + c);
	w->xd = d;
}

struct xbuf {
	struct xdp_rx_pkt *pk;
	struct dta_payload *p; /* DTA payloads from 0, INT ones from batch */
	uint16_t *slot;
};

/* Take what the AF_XDP socket received, up to a batch, and hand the core
 * the payloads where they lie in the UMEM; then give the frames back.
 * Return: frames taken. */
static unsigned xdp_batch(struct worker *w, struct xbuf *b)
{
	struct translator *t = w->t;
	unsigned n = xdp_rxq_recv(w->xq, b->pk, t->rx_batch);
	size_t nd = 0, ni = t->rx_batch;

	for (unsigned i = 0; i < n; i++) {
		const struct xdp_rx_pkt *k = &b->pk[i];
		unsigned slot;
		size_t j;

		if (k->kind == XDP_PKT_BAD) {
			/* The program steered it and the parser refused it:
			 * its UDP length runs past the frame. */
			atomic_fetch_add(&t->xdp_bad_frames, 1);
			dta_translator_count_input(t->core, DTA_INPUT_TRUNCATED, 1);
			continue;
		}
		slot = src_slot(t, w, k->src);
		if (!source_ok(t, k->src, slot))
			continue;
		j = k->kind == XDP_PKT_INT ? ni++ : nd++;
		b->slot[j] = (uint16_t)slot;
		b->p[j] = (struct dta_payload){ k->payload, k->len };
	}
	if (nd)
		dta_translator_process_batch_from(t->core, b->p, b->slot, nd,
						  tool_now_ns());
	if (ni > t->rx_batch)
		dta_translator_process_int_batch_from(
			t->core, b->p + t->rx_batch, b->slot + t->rx_batch,
			ni - t->rx_batch, tool_now_ns());
	xdp_rxq_release(w->xq);
	return n;
}

/* As recvmmsg_loop(), from the AF_XDP socket; the worker's UDP socket
 * takes what the program passes to the kernel (a queue without a socket,
 * frames too long for the UMEM), read when the AF_XDP socket is empty and
 * at every tick. */
static void xdp_loop(struct worker *w, struct rx *x, struct xbuf *b)
{
	struct translator *t = w->t;

	while (!stop) {
		atomic_fetch_add_explicit(&w->turns, 1, memory_order_relaxed);
		struct pollfd p[3] = {
			{ .fd = xdp_rxq_fd(w->xq), .events = POLLIN },
			{ .fd = w->fd, .events = POLLIN },
			{ .fd = t->stop_fd, .events = POLLIN } };
		unsigned n = xdp_batch(w, b);
		uint64_t now = tool_now_ns();
		int64_t due;
		struct timespec ts;

		if (n > 0)
			worker_rx(w, now);
		if (!n || now - w->last_sock >= t->tick_ns) {
			w->last_sock = now;
			if (rx_batch(w, x) > 0) {
				worker_rx(w, now);
				continue;
			}
		}
		due = worker_due(w, now);
		if (n == t->rx_batch)
			continue;
		if (n > 0 && t->rx_wait_ns) {
			ts = ns_ts(due >= 0 && (uint64_t)due < t->rx_wait_ns
				   ? due : (int64_t)t->rx_wait_ns);
			nanosleep(&ts, NULL);
			continue;
		}
		if (n > 0)
			continue;
		ts = ns_ts(due);
		ppoll(p, 3, due >= 0 ? &ts : NULL, NULL);
	}
	/* Stopping: the program is detached by now (run_udp()); apply what
	 * the ring still holds, then the socket's. */
	for (uint64_t end = tool_now_ns() + 1000000000ull;
	     tool_now_ns() < end && xdp_batch(w, b) > 0;)
		;
	xdp_note_drops(w);
}

static void xdp_worker(struct worker *w, struct rx *x)
{
	unsigned batch = w->t->rx_batch;
	struct xbuf b = { calloc(batch, sizeof(*b.pk)),
			  calloc(2 * (size_t)batch, sizeof(*b.p)),
			  calloc(2 * (size_t)batch, sizeof(*b.slot)) };

	if (!b.pk || !b.p || !b.slot)
		tool_log(LOG_ERR, "out of memory for a worker");
	else
		xdp_loop(w, x, &b);
	free(b.pk);
	free(b.p);
	free(b.slot);
}

static void *udp_worker(void *arg)
{
	struct worker *w = arg;
	struct translator *t = w->t;
	struct rx *x = rx_alloc(t->rx_batch, t->allow.n > 0 || t->rep_max);

	if (!x) {
		tool_log(LOG_ERR, "out of memory for a worker");
		return NULL;
	}
	w->last_tick = w->last_rx = tool_now_ns();
	w->settled = false;
	if (w->xq) {
		xdp_worker(w, x);
		rx_drain(w, x);
		rx_free(x);
		return NULL;
	}
#ifdef DTA_HAVE_URING
	if (t->rx == RX_URING && !w->is_int) {
		struct urx u = { 0 };
		int err = urx_open(w, &u);

		if (!err) {
			if (!atomic_exchange(&t->rx_said, true))
				tool_log(LOG_INFO, "receiving with io_uring "
					 "(multishot recvmsg, %u buffers of %u "
					 "bytes per worker)", u.nbuf, u.buflen);
			uring_loop(w, &u);
		} else if (!atomic_exchange(&t->rx_said, true)) {
			tool_log(LOG_WARNING, "io_uring is not available here "
				 "(%s): receiving with recvmmsg",
				 strerror(-err));
		}
		urx_close(&u);
		if (!err) {
			rx_drain(w, x);
			rx_free(x);
			return NULL;
		}
	}
#else
	if (t->rx == RX_URING && !atomic_exchange(&t->rx_said, true))
		tool_log(LOG_INFO, "this build has no io_uring support: "
			 "receiving with recvmmsg");
#endif
	recvmmsg_loop(w, x);
	rx_drain(w, x);
	rx_free(x);
	return NULL;
}

/* ---- the watch on losses (docs/operations.md "Configuration
 * mismatches") ---- */

/* What share @i takes (@exp) and what its last refused report carried
 * (@got), as words for the log. */
static void mismatch_words(struct translator *t, size_t i, char *exp,
			   size_t ecap, char *got, size_t gcap)
{
	const struct dta_layout *l = &t->sh[i].cs.layout;
	struct dta_translator_mismatch m;

	if (dta_translator_last_mismatch(t->core, (unsigned)i, &m) <= 0)
		m.opcode = 0;
	/* Only INT updates refused outside Append are not kept. */
	snprintf(got, gcap, "an INT update it could not take (int_mismatch)");
	switch (l->primitive) {
	case DTA_PRIM_APPEND:
		snprintf(exp, ecap, "entries of %u bytes in lists %" PRIu32
			 "..%" PRIu32, l->g.ap.entry_size, t->sh[i].cs.list_base,
			 t->sh[i].cs.list_base + l->g.ap.lists - 1);
		if (m.opcode == DTA_OP_APPEND)
			snprintf(got, gcap, "an entry of %" PRIu32 " bytes for "
				 "list %" PRIu32, m.received, m.detail);
		break;
	case DTA_PRIM_POSTCARD:
		snprintf(exp, ecap, "paths of at most %u hops", l->g.pc.hops);
		if (m.opcode == DTA_OP_POSTCARD && m.detail)
			snprintf(got, gcap, "hop %" PRIu32 " of a path of %"
				 PRIu32 " hops", m.received, m.detail);
		else if (m.opcode == DTA_OP_POSTCARD)
			snprintf(got, gcap, "hop %" PRIu32 " (path length "
				 "unknown)", m.received);
		break;
	case DTA_PRIM_KEY_WRITE:
		snprintf(exp, ecap, "data of %u bytes, redundancy up to %u",
			 l->g.kw.data_len, l->g.kw.max_redundancy);
		if (m.opcode == DTA_OP_KEY_WRITE)
			snprintf(got, gcap, "data of %" PRIu32 " bytes, "
				 "redundancy %" PRIu32, m.received, m.detail);
		break;
	default:
		snprintf(exp, ecap, "its own sizes");
		break;
	}
}

/* Reports of every cause in dta_translator_reports_lost_total. */
static uint64_t reports_lost(const struct dta_translator_stats *st)
{
	return st->seq_lost + st->unknown_structure + st->mismatch +
	       st->sink_lost_reports;
}

/*
 * Once a second and while counters move: log each structure's reports
 * refused for a configuration mismatch (the first at once, then at most
 * a line per MISMATCH_LOG_S per structure, counting those in between),
 * and turn health degraded while the window's loss ratio is above
 * health_loss_ratio.
 */
static void watch_mismatches(struct translator *t, uint64_t now)
{
	for (size_t i = 0; i < t->nshares; i++) {
		struct dta_translator_losses lz;
		char exp[128], got[128], share[32] = "";
		uint64_t n, k;

		if (dta_translator_structure_losses(t->core, (unsigned)i, &lz))
			continue;
		n = lz.mismatch + lz.int_mismatch;
		k = lw_limit(&t->mm_limit[i], now, n - t->mm_seen[i]);
		t->mm_seen[i] = n;
		if (!k)
			continue;
		mismatch_words(t, i, exp, sizeof(exp), got, sizeof(got));
		if (t->sh[i].n > 1)
			snprintf(share, sizeof(share), " (share %u of %u)",
				 t->sh[i].k + 1, t->sh[i].n);
		if (t->mm_limit[i].lines == 1)
			tool_log(LOG_ERR, "structure %s%s: %" PRIu64 " report%s "
				 "refused for a configuration mismatch: it "
				 "takes %s; the report carried %s (reporters "
				 "and dta.conf disagree; further lines at most "
				 "every %d s)", t->sh[i].cs.name, share, k,
				 k == 1 ? "" : "s", exp, got, MISMATCH_LOG_S);
		else
			tool_log(LOG_ERR, "structure %s%s: %" PRIu64 " more "
				 "report%s refused for a configuration mismatch "
				 "(%" PRIu64 " in all): it takes %s; the last "
				 "carried %s", t->sh[i].cs.name, share, k,
				 k == 1 ? "" : "s", n, exp, got);
	}
}

static void watch_losses(struct translator *t, uint64_t now)
{
	struct dta_translator_stats st;
	uint64_t applied, lost, dl, dt;
	bool deg;

	watch_mismatches(t, now);
	if (t->health_ratio >= 1)
		return; /* 1: never degraded */
	dta_translator_stats(t->core, &st);
	applied = st.reports[1] + st.reports[2] + st.reports[3] + st.reports[4];
	lost = reports_lost(&st);
	deg = lw_window_update(&t->health_win, now, applied, lost, &dl, &dt);
	if (deg) {
		t->deg_lost = dl;
		t->deg_total = dt;
	}
	if (deg == t->degraded)
		return;
	t->degraded = deg;
	if (deg)
		tool_log(LOG_WARNING, "degraded: %" PRIu64 " of %" PRIu64
			 " reports lost in the last %g s, over health_loss_ratio"
			 " %g (dta_translator_reports_lost_total has the causes)",
			 dl, dt, t->health_window_s, t->health_ratio);
	else
		tool_log(LOG_INFO, "healthy again: %" PRIu64 " of %" PRIu64
			 " reports lost in the last %g s", dl, dt,
			 t->health_window_s);
	t->status_packets = UINT64_MAX; /* a new STATUS= line */
}

/* At exit: what was applied and lost, one line in the log (a warning when
 * anything was lost); the JSON on stdout has every counter. */
static void log_summary(struct translator *t)
{
	struct dta_translator_stats st;
	uint64_t applied, lost;

	dta_translator_stats(t->core, &st);
	applied = st.reports[1] + st.reports[2] + st.reports[3] + st.reports[4];
	lost = reports_lost(&st);
	tool_log(lost || st.malformed || st.socket_drops || st.int_malformed ||
			 st.int_unmapped || st.int_mismatch || st.sink_errors
			 ? LOG_WARNING : LOG_INFO,
		 "at exit: %" PRIu64 " packets, %" PRIu64 " reports applied, %"
		 PRIu64 " lost (sequence gaps %" PRIu64 ", unknown structure %"
		 PRIu64 ", mismatch %" PRIu64 ", sink %" PRIu64 "); %" PRIu64
		 " malformed, %" PRIu64 " socket drops, %" PRIu64 " sink errors"
		 "; INT: %" PRIu64 " malformed, %" PRIu64 " unmapped, %" PRIu64
		 " mismatched updates", st.packets, applied, lost, st.seq_lost,
		 st.unknown_structure, st.mismatch, st.sink_lost_reports,
		 st.malformed, st.socket_drops, st.sink_errors,
		 st.int_malformed, st.int_unmapped, st.int_mismatch);
}

/* The service manager's STATUS= line: what came in and what was lost,
 * when it changed. */
static void service_status(struct translator *t)
{
	struct dta_translator_stats st;
	uint64_t applied;

	dta_translator_stats(t->core, &st);
	applied = st.reports[1] + st.reports[2] + st.reports[3] + st.reports[4];
	if (st.packets == t->status_packets && t->status_packets != UINT64_MAX)
		return;
	t->status_packets = st.packets;
	tool_service_status("%sreceiving on %s:%u; %" PRIu64 " packets, %" PRIu64
			    " reports applied, %" PRIu64 " malformed, %" PRIu64
			    " lost in sequence, %" PRIu64 " socket drops",
			    t->degraded ? "degraded (losses over "
					  "health_loss_ratio); " : "",
			    t->bind_addr, t->port, st.packets, applied,
			    st.malformed, st.seq_lost, st.socket_drops);
}

/*
 * Whether every UDP worker is going: it went round its receive loop since
 * the last look (one keep-alive period ago), or it has nothing to receive
 * (asleep on an empty socket: idle, not stuck). A worker that neither
 * turns nor takes the datagrams waiting for it, or that died, holds the
 * watchdog's keep-alive back, and systemd restarts the translator. Only
 * at the second look in a row: at one look, an idle worker may have been
 * woken by a datagram a moment before, and not have turned yet.
 */
static bool workers_going(struct translator *t)
{
	bool going = true;

	for (unsigned i = 0; i < t->nw; i++) {
		struct worker *w = &t->w[i];
		uint64_t turns = atomic_load_explicit(&w->turns,
						      memory_order_relaxed);
		int queued = 0;
		bool ok;

		if (turns != w->seen_turns ||
		    (ioctl(w->fd, FIONREAD, &queued) == 0 && !queued))
			w->still = 0;
		else
			w->still++;
		ok = w->still < 2;
		w->seen_turns = turns;
		if (!ok && !w->stuck) {
			tool_log(LOG_WARNING, "worker %u (port %u) went no round "
				 "of its loop with datagrams waiting: holding "
				 "back the watchdog keep-alive", i,
				 w->is_int ? t->int_port : t->port);
			tool_service_status("worker %u stuck with datagrams "
					    "waiting", i);
		} else if (ok && w->stuck) {
			tool_log(LOG_INFO, "worker %u is going again", i);
			tool_service_status("worker %u going again", i);
		}
		w->stuck = !ok;
		going = going && ok;
	}
	return going;
}

/* Unix time (CLOCK_REALTIME), ns: epochs are Unix time, so translators
 * on several hosts agree on the bank (their clocks kept by NTP). */
static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Key-Increment epochs (docs/layouts.md "Epochs"): every structure with
 * `epoch = T` writes bank (unix_ns / T) % 2. Sets the banks for @unix_ns;
 * returns ns until the next boundary of any of them (UINT64_MAX: none).
 */
static uint64_t epoch_banks(struct translator *t, uint64_t unix_ns)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; i < t->nshares; i++) {
		uint64_t len = (uint64_t)t->sh[i].cs.epoch_s * 1000000000ull;
		uint64_t e, left;
		int bank = len ? dta_epoch_at(unix_ns, len, &e) : -1;

		if (bank < 0)
			continue;
		if (t->sh[i].bank != bank) {
			dta_translator_set_ki_bank(t->core, (unsigned)i,
						   (unsigned)bank);
			if (t->sh[i].bank >= 0)
				tool_log(LOG_DEBUG, "%s: epoch %" PRIu64
					 ", writing bank %d", t->sh[i].cs.name,
					 e, bank);
			t->sh[i].bank = bank;
		}
		left = (e + 1) * len - unix_ns;
		if (left < next)
			next = left;
	}
	return next;
}

/* The main thread: stats, collector checks, sink upkeep, each at its own
 * deadline; asleep in between. Signals reach only this thread. */
static void main_loop(struct translator *t, const sigset_t *orig)
{
	const uint64_t fresh = 10000000ull; /* stats file while counters move */
	bool sink_poll = t->sw != NULL;
	uint64_t now = tool_now_ns();
	uint64_t next_check = now + 1000000000ull;
	uint64_t next_stats = now + (uint64_t)(t->stats_interval * 1e9);
	uint64_t next_refresh = 0; /* 0: counters at rest, wait on wake_fd */
	uint64_t next_poll = now + fresh;
	uint64_t epoch_left = epoch_banks(t, wall_ns());

#ifdef DTA_HAVE_RDMA
	sink_poll = sink_poll || t->rdma;
#endif
	if (t->wake_fd >= 0)
		next_refresh = now + fresh;
	while (!stop) {
		/* [0]: counters move; [1]: metrics requests. Negative fds
		 * are skipped. */
		struct pollfd p[2] = {
			{ .fd = next_refresh ? -1 : t->wake_fd, .events = POLLIN },
			{ .fd = t->metrics ? metrics_server_fd(t->metrics) : -1,
			  .events = POLLIN },
		};
		uint64_t due = next_check;
		struct timespec ts;

		if (tool_service_due() < due)
			due = tool_service_due();
		if (t->stats_interval > 0 && next_stats < due)
			due = next_stats;
		if (next_refresh && next_refresh < due)
			due = next_refresh;
		if (sink_poll && next_poll < due)
			due = next_poll;
		now = tool_now_ns();
		if (epoch_left != UINT64_MAX && now + epoch_left < due)
			due = now + epoch_left;
		if (t->metrics) { /* MHD's own deadlines (connection timeouts) */
			uint64_t mt = (uint64_t)metrics_server_timeout(t->metrics,
								       1000) *
				      1000000ull;

			if (now + mt < due)
				due = now + mt;
		}
		ts = ns_ts(due > now ? (int64_t)(due - now) : 0);
		/* While a refresh is due anyway, wake_fd need not wake us. */
		ppoll(p, 2, &ts, orig);
		if (stop)
			break;
		epoch_left = epoch_banks(t, wall_ns());
		now = tool_now_ns();
		if (!next_refresh && t->wake_fd >= 0 && (p[0].revents & POLLIN))
			next_refresh = now; /* counters started moving */
		/* The watchdog's keep-alive comes from this loop, which
		 * also keeps the sink and the collector checks going, and
		 * only while every worker is going too. */
		if (tool_service_alive_due(now))
			tool_service_alive(now, workers_going(t));
		if (now >= next_check) {
			check_collector(t);
			watch_losses(t, now);
			service_status(t);
			next_check = now + 1000000000ull;
		}
		/* Requests, and MHD's deadlines: a no-op when nothing is due. */
		metrics_server_run(t->metrics);
		if (sink_poll && now >= next_poll) {
#ifdef DTA_HAVE_RDMA
			if (t->rdma)
				rdma_sink_retry(t->rdma);
#endif
			if (t->sw)
				switch_sink_poll(t->sw);
			next_poll = now + fresh;
		}
		if (t->stats_interval > 0 && now >= next_stats) {
			print_interval(t);
			save_stats_file(t);
			next_stats += (uint64_t)(t->stats_interval * 1e9);
		}
		if (next_refresh && now >= next_refresh) {
			uint64_t v;
			bool moved;

			/* The wake-up is drained *before* the flag is
			 * cleared, and the flag before the counters are
			 * read: a batch after the clear sets the flag again
			 * and its eventfd write wakes us. Draining after the
			 * clear could swallow that write while the flag
			 * stayed set, and no later batch would write again:
			 * the stats file went stale for good (dta-gen --sync
			 * waited out its timeout in e2e_int_gen once). */
			if (read(t->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				atomic_fetch_add(&t->rx_errors, 1);
			moved = atomic_exchange(&t->active, false);
			refresh_stats_file(t);
			watch_losses(t, now);
			next_refresh = moved ? now + fresh : 0;
		}
	}
}

/* [translator] receive = xdp or auto: attach the AF_XDP path, one socket
 * per worker, worker i on receive queue i (docs/translator.md "AF_XDP
 * receive path"). Return: 0 (attached, or auto keeps the sockets: said
 * in one line), -1 (receive = xdp could not attach: said). */
static int xdp_start(struct translator *t)
{
	struct xdp_rx_opts o = {
		.mode = t->xdp_mode, .port = t->port,
		.int_port = t->int_on ? t->int_port : 0, .batch = t->rx_batch,
	};
	char why[300] = "", ifn[IF_NAMESIZE];
	struct in_addr a = { 0 };
	int q;

	if (t->receive == RECV_SOCKET)
		return 0;
	if (inet_pton(AF_INET, t->bind_addr, &a) != 1)
		a.s_addr = 0;
	o.bind_v4 = a.s_addr;
	o.ifname = t->xdp_if;
	if (!o.ifname && a.s_addr && !xdp_rx_ifname_for(a.s_addr, ifn))
		o.ifname = ifn;
	q = o.ifname ? xdp_rx_rx_queues(o.ifname) : -ENODEV;
	if (!xdp_rx_available())
		xdp_rx_open(&o, &t->xdp, why, sizeof(why));
	else if (!o.ifname)
		snprintf(why, sizeof(why), "no xdp_interface, and bind %s is "
			 "the address of no interface", t->bind_addr);
	else if (q < 0)
		snprintf(why, sizeof(why), "xdp_interface %s: %s", o.ifname,
			 strerror(-q));
	else if (t->workers_set && t->workers > (unsigned)q)
		snprintf(why, sizeof(why), "workers = %u, but %s has %d receive "
			 "queue%s (one worker per queue)", t->workers, o.ifname,
			 q, q == 1 ? "" : "s");
	else {
		o.queues = t->workers_set ? t->workers
			   : q > MAX_WORKERS ? MAX_WORKERS : (unsigned)q;
		xdp_rx_open(&o, &t->xdp, why, sizeof(why));
	}
	if (!t->xdp) {
		if (t->receive == RECV_XDP) {
			tool_log(LOG_ERR, "receive = xdp: %s", why);
			return -1;
		}
		tool_log(LOG_INFO, "receive = auto: receiving with UDP sockets "
			 "(%s)", why);
		return 0;
	}
	t->workers = o.queues;
	tool_log(LOG_INFO, "receiving with AF_XDP on %s (%s XDP, %s, %u "
		 "queue%s); the UDP sockets take what it passes to the kernel",
		 o.ifname, xdp_rx_mode_name(t->xdp), xdp_rx_bind_name(t->xdp),
		 o.queues, o.queues == 1 ? "" : "s");
	return 0;
}

static int run_udp(struct translator *t)
{
	struct worker w[MAX_WORKERS + 1]; /* + the INT port's */
	unsigned started = 0, running = 0, nw = t->workers + t->int_on;
	sigset_t block, orig;
	uint64_t one = 1;
	int rc = 0;

	int fds[MAX_WORKERS];
	bool reuse = t->workers > 1;

	/* Without an interval the stats file is what scripts wait on
	 * (dta-gen --sync): refreshed while counters move. */
	t->wake_fd = t->stop_fd = -1;
	if (t->stats_file && t->stats_interval <= 0) {
		t->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (t->wake_fd < 0) {
			tool_log(LOG_ERR, "eventfd: %s", strerror(errno));
			return -1;
		}
	}
	t->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->stop_fd < 0) {
		tool_log(LOG_ERR, "eventfd: %s", strerror(errno));
		rc = -1;
		goto out;
	}
	if (xdp_start(t)) {
		rc = -1;
		goto out;
	}
	/* With XDP, one worker per receive queue. */
	reuse = t->workers > 1;
	nw = t->workers + t->int_on;
	if (reuse && port_free(t)) {
		rc = -1;
		goto out;
	}
	for (unsigned i = 0; i < t->workers; i++) {
		w[i].t = t;
		w[i].drops = 0;
		atomic_init(&w[i].turns, 0);
		w[i].seen_turns = 0;
		w[i].still = 0;
		w[i].stuck = false;
		w[i].last_slot = UINT_MAX;
		w[i].is_int = false;
		w[i].xq = t->xdp ? xdp_rx_queue(t->xdp, i) : NULL;
		memset(&w[i].xd, 0, sizeof(w[i].xd));
		w[i].last_sock = 0;
		w[i].fd = fds[i] = udp_socket(t, t->port, reuse);
		if (w[i].fd < 0) {
			rc = -1;
			goto out;
		}
		started++;
	}
	if (t->int_on) {
		/* One receiver for INT reports: their rate is the switches'
		 * telemetry rate, and the core is shared with the workers. */
		w[started].t = t;
		w[started].drops = 0;
		atomic_init(&w[started].turns, 0);
		w[started].seen_turns = 0;
		w[started].still = 0;
		w[started].stuck = false;
		w[started].last_slot = UINT_MAX;
		w[started].is_int = true;
		w[started].xq = NULL;
		w[started].fd = udp_socket(t, t->int_port, false);
		if (w[started].fd < 0) {
			rc = -1;
			goto out;
		}
		started++;
	}
	if (reuse && port_ours(t, fds, t->workers)) {
		rc = -1;
		goto out;
	}
	/* What dta-gen --sync may send at once: what an AF_XDP ring surely
	 * holds while its worker applies a batch, if less than a socket. */
	if (t->xdp && xdp_rx_ring_frames(t->xdp) - t->rx_batch < t->queue_datagrams)
		t->queue_datagrams = xdp_rx_ring_frames(t->xdp) - t->rx_batch;
	/* Workers block the stop signals: they reach the main thread, whose
	 * ppoll() they interrupt, and it wakes the workers through stop_fd. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &orig);
	for (unsigned i = 0; i < nw; i++) {
		if (pthread_create(&w[i].th, NULL, udp_worker, &w[i])) {
			tool_log(LOG_ERR, "cannot start a worker");
			stop = 1;
			rc = -1;
			break;
		}
		running++;
	}
	if (!rc) {
		tool_log(LOG_INFO, "listening on %s:%u with %u worker%s", t->bind_addr, t->port,
		    t->workers, t->workers == 1 ? "" : "s");
		if (t->int_on)
			tool_log(LOG_INFO, "INT reports on %s:%u", t->bind_addr, t->int_port);
		save_stats_file(t);
		printf("ready udp %s:%u\n", t->bind_addr, t->port);
		fflush(stdout);
		tool_service_ready("receiving on %s:%u with %u worker%s, writing "
				   "%s", t->bind_addr, t->port, t->workers,
				   t->workers == 1 ? "" : "s", sink_name(t));
		t->w = w;
		t->nw = running;
		main_loop(t, &orig);
		t->nw = 0;
		tool_service_stopping("stopping: applying what the sockets "
				      "hold, flushing pending reports");
	}
	pthread_sigmask(SIG_SETMASK, &orig, NULL);
	/* New frames to the kernel's sockets while the workers empty their
	 * AF_XDP rings. */
	xdp_rx_detach(t->xdp);
	if (write(t->stop_fd, &one, sizeof(one)) < 0)
		tool_log(LOG_ERR, "waking the workers: %s", strerror(errno));
	for (unsigned i = 0; i < running; i++)
		pthread_join(w[i].th, NULL);
out:
	for (unsigned i = 0; i < started; i++)
		close(w[i].fd);
	if (t->stop_fd >= 0)
		close(t->stop_fd);
	if (t->wake_fd >= 0)
		close(t->wake_fd);
	t->stop_fd = t->wake_fd = -1;
	return rc;
}

/* ---- pcap input ---- */

/*
 * Captured datagrams are handed to the core in batches, as the UDP path
 * hands it what one receive gave (a call per packet halved the replay's
 * rate at one report per datagram): copies, since libpcap reuses its
 * buffer for the next packet. The core takes a batch with one clock reading, so a
 * batch holds datagrams of one kind (DTA or INT) with the same time, or
 * with any times where nothing the core writes depends on time
 * (pcap_timeless()): results are those of one call per datagram.
 */
#define PCAP_BATCH 64
#define PCAP_READ_BUF (1u << 20) /* bytes of a capture file read at once */

struct pcap_batch {
	bool timeless;
	bool is_int;
	size_t n;
	uint64_t now;
	uint16_t slot[PCAP_BATCH];
	struct dta_payload p[PCAP_BATCH];
	uint8_t (*buf)[DTA_PAYLOAD_MAX];
};

/* Only Key-Write structures, no INT, no epochs: the core's clock then
 * changes nothing it writes (no postcard flows, Append batches or
 * aggregated increments wait for a timeout; no bank to switch). */
static bool pcap_timeless(const struct translator *t)
{
	if (t->int_on)
		return false;
	for (size_t i = 0; i < t->nshares; i++)
		if (t->sh[i].cs.layout.primitive != DTA_PRIM_KEY_WRITE ||
		    t->sh[i].cs.epoch_s)
			return false;
	return true;
}

static void pcap_apply(struct translator *t, bool is_int,
		       const struct dta_payload *p, const uint16_t *slot,
		       size_t n, uint64_t now)
{
	if (is_int)
		dta_translator_process_int_batch_from(t->core, p, slot, n, now);
	else
		dta_translator_process_batch_from(t->core, p, slot, n, now);
}

/* Hand the core what the batch holds. */
static void pcap_flush(struct translator *t, struct pcap_batch *b)
{
	if (!b->n)
		return;
	pcap_apply(t, b->is_int, b->p, b->slot, b->n, b->now);
	b->n = 0;
}

/* Take one captured frame if it is a datagram to the port (or the INT
 * port) from an allowed source, into the batch (which it flushes first
 * when full, of the other kind, or of another time where time counts).
 * Return: 1 if it was one. */
static int pcap_one(struct translator *t, struct pcap_batch *b, int dlt,
		    const struct pcap_pkthdr *h, const uint8_t *pkt,
		    uint64_t now)
{
	const uint8_t *pl;
	uint32_t src = 0;
	size_t len;
	bool is_int = false;
	uint16_t slot;

	pl = tool_udp_payload(dlt, pkt, h->caplen, t->port, &len, &src);
	if (!pl && t->int_on) {
		pl = tool_udp_payload(dlt, pkt, h->caplen, t->int_port, &len,
				      &src);
		is_int = true;
	}
	if (!pl)
		return 0;
	slot = (uint16_t)src_slot(t, NULL, src);
	if (!source_ok(t, src, slot))
		return 1;
	if (b->n == PCAP_BATCH || (b->n && (b->is_int != is_int ||
					    (!b->timeless && b->now != now))))
		pcap_flush(t, b);
	if (len > DTA_PAYLOAD_MAX) {
		/* Longer than a batch's buffers: alone, uncopied. */
		struct dta_payload p = { pl, len };

		pcap_flush(t, b);
		pcap_apply(t, is_int, &p, &slot, 1, now);
		return 1;
	}
	memcpy(b->buf[b->n], pl, len);
	b->p[b->n] = (struct dta_payload){ b->buf[b->n], len };
	b->slot[b->n] = slot;
	b->is_int = is_int;
	b->now = now;
	b->n++;
	return 1;
}

/* A live capture's kernel drops (of packets to the port, by the filter)
 * are the socket drops of that input. */
static void capture_drops(struct translator *t, pcap_t *pc, unsigned *seen)
{
	struct pcap_stat ps;

	if (pcap_stats(pc, &ps) == 0 && ps.ps_drop != *seen) {
		dta_translator_count_input(t->core, DTA_INPUT_SOCKET_DROP,
					   ps.ps_drop - *seen);
		*seen = ps.ps_drop;
	}
}

static int run_pcap(struct translator *t, const char *file, const char *dev)
{
#ifdef DTA_HAVE_RDMA
	uint64_t next_retry = 0;
#endif
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *pkt;
	pcap_t *pc;
	uint64_t seen = 0, used = 0, last_tick = 0, next_save = 0;
	uint64_t next_check = tool_now_ns() + 1000000000ull;
	unsigned cap_drops = 0; /* the capture's drop count as last seen */
	int sel = -1;           /* live: poll this when nothing is pending */
	int dlt, rc = 0;
	struct pcap_batch b = { .timeless = pcap_timeless(t) };
	char *rdbuf = NULL;     /* the capture file's stdio buffer */

	b.buf = malloc(PCAP_BATCH * sizeof(*b.buf));
	if (!b.buf) {
		tool_log(LOG_ERR, "pcap: out of memory");
		return -1;
	}
	if (file && strcmp(file, "-")) {
		/* Read in large blocks: stdio's default (the file system's
		 * block, 4 KiB) took a system call per 8 datagrams. The
		 * buffer lives until pcap_close() closes the file. */
		FILE *fp = fopen(file, "rbe");

		pc = NULL;
		if (!fp) {
			snprintf(errbuf, sizeof(errbuf), "%s: %s", file,
				 strerror(errno));
		} else {
			rdbuf = malloc(PCAP_READ_BUF);
			if (rdbuf)
				setvbuf(fp, rdbuf, _IOFBF, PCAP_READ_BUF);
			pc = pcap_fopen_offline(fp, errbuf);
			if (!pc)
				fclose(fp);
		}
	} else if (file) {
		pc = pcap_open_offline(file, errbuf);
	} else {
		/* Immediate mode with a short timeout: packets are handed over
		 * at once and an idle capture still returns to check for
		 * shutdown and to run timeouts. */
		pc = pcap_create(dev, errbuf);
		if (pc && (pcap_set_snaplen(pc, 65535) || pcap_set_immediate_mode(pc, 1) ||
			   pcap_set_timeout(pc, 10) || pcap_set_buffer_size(pc, 32 << 20) ||
			   pcap_activate(pc) < 0)) {
			snprintf(errbuf, sizeof(errbuf), "%s: %s", dev, pcap_geterr(pc));
			pcap_close(pc);
			pc = NULL;
		}
	}
	if (!pc) {
		tool_log(LOG_ERR, "%s", errbuf);
		free(rdbuf);
		free(b.buf);
		return -1;
	}
	live_pcap = pc;
	dlt = pcap_datalink(pc);
	if (dev) {
		struct bpf_program prog;
		char filter[64];

		if (t->int_on)
			snprintf(filter, sizeof(filter),
				 "udp dst port %u or udp dst port %u", t->port,
				 t->int_port);
		else
			snprintf(filter, sizeof(filter), "udp dst port %u",
				 t->port);
		if (pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) == 0) {
			pcap_setfilter(pc, &prog);
			pcap_freecode(&prog);
		}
		/* Reports come in: not capturing our own outgoing packets
		 * also keeps loopback from filling the buffer twice. */
		pcap_setdirection(pc, PCAP_D_IN);
		/* Immediate mode captures into frames of the snap length,
		 * a block of 128 KiB each. */
		t->queue_datagrams = (32u << 20) / (128u << 10);
		/* Non-blocking, so that an idle capture still runs timeouts
		 * and keeps the stats file fresh. */
		if (pcap_setnonblock(pc, 1, errbuf) == 0)
			sel = pcap_get_selectable_fd(pc);
		/* Until the filter was set the capture took any traffic on
		 * the interface, and its buffer may have overflowed with it:
		 * apply what it holds, and count as socket drops only what
		 * it drops from now on, when it keeps just our datagrams. */
		while (sel >= 0 && pcap_next_ex(pc, &h, &pkt) == 1)
			used += (uint64_t)pcap_one(t, &b, dlt, h, pkt,
						   tool_now_ns());
		pcap_flush(t, &b);
		{
			struct pcap_stat ps;

			if (pcap_stats(pc, &ps) == 0 && ps.ps_drop) {
				cap_drops = ps.ps_drop;
				tool_log(LOG_INFO, "the capture dropped %u "
					 "packets of any kind before its "
					 "filter was set", cap_drops);
			}
		}
		save_stats_file(t);
		printf("ready pcap %s\n", dev);
		fflush(stdout);
	}
	tool_service_ready("%s %s, writing %s", dev ? "capturing on" :
			   "replaying", dev ? dev : file, sink_name(t));
	while (!stop && (rc = pcap_next_ex(pc, &h, &pkt)) >= 0) {
		uint64_t now;

		/* Keep-alives from this loop: the capture is going. */
		if (tool_service_due() != UINT64_MAX)
			tool_service_alive(tool_now_ns(), true);

		if (rc == 0) { /* live: nothing pending */
			struct pollfd p[2] = {
				{ .fd = sel, .events = POLLIN },
				{ .fd = t->metrics ? metrics_server_fd(t->metrics)
						   : -1, .events = POLLIN },
			};

			pcap_flush(t, &b);
			dta_translator_tick(t->core, tool_now_ns());
			capture_drops(t, pc, &cap_drops);
			watch_losses(t, tool_now_ns());
			if (t->stats_interval <= 0)
				refresh_stats_file(t);
			if (sel >= 0 || t->metrics)
				poll(p, 2, 10);
			metrics_server_run(t->metrics);
			continue;
		}
		seen++;
		now = file ? (uint64_t)h->ts.tv_sec * 1000000000ull +
				     (uint64_t)h->ts.tv_usec * 1000ull
			   : tool_now_ns();
		/* Datagrams of another time go first where time counts:
		 * the bank switch below is for this packet on. */
		if (b.n && !b.timeless && b.now != now)
			pcap_flush(t, &b);
		/* A capture file's epochs are its packets' (Unix) times. */
		epoch_banks(t, file ? now : wall_ns());
		used += (uint64_t)pcap_one(t, &b, dlt, h, pkt, now);
		if (now - last_tick >= t->tick_ns) {
			pcap_flush(t, &b);
			dta_translator_tick(t->core, now);
			last_tick = now;
		}
		if (tool_now_ns() >= next_check) {
			pcap_flush(t, &b);
			if (dev)
				check_collector(t);
			watch_losses(t, tool_now_ns());
			next_check = tool_now_ns() + 1000000000ull;
		}
		if (dev && tool_now_ns() >= next_save) {
			pcap_flush(t, &b); /* the counters are served fresh */
			metrics_server_run(t->metrics); /* a busy capture too */
			capture_drops(t, pc, &cap_drops);
			if (t->stats_interval <= 0)
				refresh_stats_file(t); /* for dta-gen --sync */
			next_save = tool_now_ns() + 10000000ull;
		}
#ifdef DTA_HAVE_RDMA
		if (t->sw)
			switch_sink_poll(t->sw);
		/* Broken RDMA connections reconnect here, not in process(). */
		if (t->rdma && tool_now_ns() >= next_retry) {
			rdma_sink_retry(t->rdma);
			next_retry = tool_now_ns() + 50000000ull;
		}
#endif
	}
	live_pcap = NULL;
	pcap_flush(t, &b);
	tool_service_stopping("stopping: applying what the capture holds");
	/* Stopping a live capture: what its buffer holds was sent to us. */
	for (uint64_t end = tool_now_ns() + 1000000000ull;
	     dev && tool_now_ns() < end && pcap_next_ex(pc, &h, &pkt) == 1;) {
		seen++;
		used += (uint64_t)pcap_one(t, &b, dlt, h, pkt, tool_now_ns());
	}
	pcap_flush(t, &b);
	free(b.buf);
	if (rc == PCAP_ERROR && !stop)
		tool_log(LOG_ERR, "pcap: %s", pcap_geterr(pc));
	tool_log(LOG_INFO, "%" PRIu64 " packets read, %" PRIu64 " UDP to port "
		 "%u", seen, used, t->port);
	if (dev) {
		struct pcap_stat ps;

		capture_drops(t, pc, &cap_drops);
		if (pcap_stats(pc, &ps) == 0 && (ps.ps_drop || ps.ps_ifdrop))
			tool_log(LOG_WARNING, "the capture dropped %u "
				"packets (%u by the interface)", ps.ps_drop,
				ps.ps_ifdrop);
	}
	pcap_close(pc);
	free(rdbuf);
	return rc == PCAP_ERROR && !stop ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'b' },
		{ "allow", required_argument, NULL, 'a' },
		{ "workers", required_argument, NULL, 'w' },
		{ "pcap", required_argument, NULL, 'r' },
		{ "interface", required_argument, NULL, 'i' },
		{ "stats-interval", required_argument, NULL, 's' },
		{ "stats-file", required_argument, NULL, 'o' },
		{ "rdma", required_argument, NULL, 'R' },
		{ "switch", required_argument, NULL, 'X' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "metrics", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	static struct translator t;
	const char *metrics_listen = NULL;
	struct dta_translator_opts o = { .sz = sizeof(o) };
	struct dta_sink sink = { .submit = shm_submit, .ctx = &t };
	struct sigaction sa = { .sa_handler = on_signal };
	const char *cfg_path = NULL, *pcap_file = NULL, *dev = NULL;
	const char *port_s = NULL, *workers_s = NULL, *stats_s = NULL, *v;
	const char *allow_s = NULL;
	uint64_t x;
	char err[256];
	int opt, rc = 1;

	tool_log_init("dta-translator");
	while ((opt = getopt_long(argc, argv, "c:p:b:a:w:r:i:s:o:R:X:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': cfg_path = optarg; break;
		case 'p': port_s = optarg; break;
		case 'b': t.bind_addr = optarg; break;
		case 'a': allow_s = optarg; break;
		case 'w': workers_s = optarg; break;
		case 'r': pcap_file = optarg; break;
		case 'i': dev = optarg; break;
		case 's': stats_s = optarg; break;
		case 'o': t.stats_file = optarg; break;
		case 'R': t.rdma_collector = optarg; break;
		case 'X': t.switch_if = optarg; break;
		case 'q': tool_log_quiet(true); break;
		case 'M': metrics_listen = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("dta-translator %s\n", DTA_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!cfg_path || optind != argc || (pcap_file && dev)) {
		usage(stderr);
		return 2;
	}
	opt = dta_config_load(cfg_path, &t.cfg, err, sizeof(err));
	if (opt) {
		if (opt == -DTA_E_MALFORMED) /* err names the file */
			tool_log(LOG_ERR, "%s", err);
		else
			tool_log(LOG_ERR, "%s: %s", cfg_path,
				dta_strerror(opt));
		return 1;
	}
	t.int_on = dta_config_int_map(t.cfg, &t.im, &t.int_port) > 0;
	if (!port_s)
		port_s = dta_config_get(t.cfg, "translator", "port");
	if (dta_parse_size(port_s ? port_s : "40040", &x) || x == 0 || x > 65535) {
		tool_log(LOG_ERR, "bad port %s", port_s);
		goto out;
	}
	t.port = (uint16_t)x;
	if (!t.bind_addr)
		t.bind_addr = dta_config_get(t.cfg, "translator", "bind");
	if (!t.bind_addr)
		t.bind_addr = "127.0.0.1";
	if (!allow_s)
		allow_s = dta_config_get(t.cfg, "translator", "allow");
	if (allow_s && allow_parse(allow_s, &t.allow, err, sizeof(err))) {
		tool_log(LOG_ERR, "allow: %s", err);
		goto out;
	}
	if (!workers_s)
		workers_s = dta_config_get(t.cfg, "translator", "workers");
	t.workers_set = workers_s != NULL;
	if (dta_parse_size(workers_s ? workers_s : "1", &x) || x == 0 ||
	    x > MAX_WORKERS) {
		tool_log(LOG_ERR, "workers must be 1..%d",
			MAX_WORKERS);
		goto out;
	}
	t.workers = (unsigned)x;
	if (!stats_s)
		stats_s = dta_config_get(t.cfg, "translator", "stats_interval_s");
	t.stats_interval = stats_s ? strtod(stats_s, NULL) : 0;
	if (t.stats_interval < 0) {
		tool_log(LOG_ERR, "bad stats interval");
		goto out;
	}
	/* Health degraded by losses (docs/metrics.md "Healthy"). */
	v = dta_config_get(t.cfg, "translator", "health_loss_ratio");
	t.health_ratio = v ? strtod(v, NULL) : 0.01;
	v = dta_config_get(t.cfg, "translator", "health_window_s");
	t.health_window_s = v ? strtod(v, NULL) : 60;
	if (!(t.health_window_s >= 0.001)) {
		tool_log(LOG_ERR, "health_window_s must be at least 0.001");
		goto out;
	}
	lw_window_init(&t.health_win, (uint64_t)(t.health_window_s * 1e9),
		       t.health_ratio);
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++)
		lw_limit_init(&t.mm_limit[i], MISMATCH_LOG_S * 1000000000ull);

	if (cfg_u64(t.cfg, "pc_cache", 32768, &x) || x == 0 || x > (1u << 30))
		goto out;
	o.pc_cache_entries = (uint32_t)x;
	if (cfg_u64(t.cfg, "pc_timeout_ms", 10, &x) || x == 0)
		goto out;
	o.pc_timeout_ns = x * 1000000;
	if (cfg_u64(t.cfg, "ap_timeout_ms", 1, &x) || x == 0)
		goto out;
	o.ap_timeout_ns = x * 1000000;
	if (cfg_u64(t.cfg, "ki_window_us", 0, &x))
		goto out;
	o.ki_window_ns = x * 1000;
	v = dta_config_get(t.cfg, "translator", "legacy");
	if (!v || !strcmp(v, "auto"))
		o.decode_flags = 0;
	else if (!strcmp(v, "plain"))
		o.decode_flags = DTA_DECODE_LEGACY_PLAIN;
	else if (!strcmp(v, "nack"))
		o.decode_flags = DTA_DECODE_LEGACY_NACK;
	else if (!strcmp(v, "off"))
		o.decode_flags = DTA_DECODE_NO_LEGACY;
	else {
		tool_log(LOG_ERR, "[translator] legacy must be auto, "
			"plain, nack or off");
		goto out;
	}
	/* Tick four times per shortest timeout. */
	t.tick_ns = o.ap_timeout_ns < o.pc_timeout_ns ? o.ap_timeout_ns
						      : o.pc_timeout_ns;
	if (o.ki_window_ns && o.ki_window_ns < t.tick_ns)
		t.tick_ns = o.ki_window_ns;
	t.tick_ns /= 4;
	/* The core visits its postcard and aggregation tables four times
	 * per timeout: an entry is written within a quarter timeout after
	 * it expires. */
	t.horizon_ns = o.pc_timeout_ns + o.pc_timeout_ns / 4;
	if (o.ap_timeout_ns > t.horizon_ns)
		t.horizon_ns = o.ap_timeout_ns;
	if (o.ki_window_ns + o.ki_window_ns / 4 > t.horizon_ns)
		t.horizon_ns = o.ki_window_ns + o.ki_window_ns / 4;
	v = dta_config_get(t.cfg, "translator", "rx");
	t.rx = v && !strcmp(v, "uring") ? RX_URING : RX_RECVMMSG;
	/* The AF_XDP path (the values are checked at load, config.c). */
	v = dta_config_get(t.cfg, "translator", "receive");
	t.receive = !v || !strcmp(v, "socket") ? RECV_SOCKET
		    : !strcmp(v, "xdp") ? RECV_XDP : RECV_AUTO;
	t.xdp_if = dta_config_get(t.cfg, "translator", "xdp_interface");
	v = dta_config_get(t.cfg, "translator", "xdp_mode");
	t.xdp_mode = v && !strcmp(v, "generic") ? XDP_RX_GENERIC
						: XDP_RX_NATIVE;
	if (t.receive != RECV_SOCKET && (pcap_file || dev))
		t.receive = RECV_SOCKET; /* -r/-i read no sockets */
	if (cfg_u64(t.cfg, "rx_batch", 256, &x) || x == 0 || x > 4096) {
		tool_log(LOG_ERR, "[translator] rx_batch must be "
			"1..4096");
		goto out;
	}
	t.rx_batch = (unsigned)x;
	if (cfg_u64(t.cfg, "rx_wait_us", 200, &x) || x > 10000) {
		tool_log(LOG_ERR, "[translator] rx_wait_us must be "
			"0..10000");
		goto out;
	}
	t.rx_wait_ns = x * 1000;
	v = dta_config_get(t.cfg, "translator", "populate");
	t.no_populate = v && (!strcmp(v, "no") || !strcmp(v, "false") ||
			      !strcmp(v, "0"));

	if (!t.rdma_collector)
		t.rdma_collector = dta_config_get(t.cfg, "translator", "rdma_collector");
	v = dta_config_get(t.cfg, "translator", "sink");
	if (v && strcmp(v, "shm") && strcmp(v, "rdma")) {
		tool_log(LOG_ERR, "[translator] sink must be shm or "
			"rdma");
		goto out;
	}
	t.use_rdma = t.rdma_collector || (v && !strcmp(v, "rdma"));
	if (cfg_u64(t.cfg, "rdma_qps", 1, &x) || x == 0 || x > 16) {
		tool_log(LOG_ERR, "[translator] rdma_qps must be "
			"1..16");
		goto out;
	}
	t.rdma_qps = (unsigned)x;
	if (!t.switch_if)
		t.switch_if = dta_config_get(t.cfg, "translator", "switch_interface");
	if (t.switch_if && t.use_rdma) {
		tool_log(LOG_ERR, "choose RDMA or the switch sink, "
			"not both");
		goto out;
	}
	if (plan_shares(&t) || (t.use_rdma && open_rdma(&t, &sink)) ||
	    (t.switch_if && open_switch(&t, &sink)))
		goto out;
	if (sink.submit == shm_submit) { /* the RDMA and switch sinks have no hooks */
		sink.prefetch = shm_prefetch;
		sink.batch_begin = shm_begin;
		sink.batch_end = shm_end;
		sink.notify = shm_notify;
		/* shm_submit() performs all its operations or none */
		sink.merge_ops = 64;
	}
	if (!metrics_listen)
		metrics_listen = dta_config_get(t.cfg, "translator",
						"metrics_listen");
	if (metrics_listen && pcap_file) {
		tool_log(LOG_WARNING,
			 "metrics: not served while replaying a pcap file");
		metrics_listen = NULL;
	}
	if (metrics_listen && watch_fill(&t, &sink)) {
		tool_log(LOG_ERR, "out of memory");
		goto out;
	}
#ifdef DTA_HAVE_RDMA
	if (metrics_listen && t.rdma && watch_rdma(&t)) {
		tool_log(LOG_ERR, "out of memory");
		goto out;
	}
#endif
	opt = dta_translator_create(&o, &sink, &t.core);
	if (opt) {
		tool_log(LOG_ERR, "%s", dta_strerror(opt));
		goto out;
	}
	if (t.switch_if ? add_shares(&t, no_cursor)
	    : t.use_rdma ? add_rdma_shares(&t) : open_sink(&t))
		goto out;
	if (t.int_on && set_int_map(&t))
		goto out;
	for (size_t i = 0; i < t.nshares; i++)
		t.sh[i].bank = -1;
	epoch_banks(&t, wall_ns());
	if (metrics_listen && watch_reporters(&t))
		goto out;
	if (metrics_listen && start_metrics(&t, metrics_listen))
		goto out;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	tool_service_init();
	t.status_packets = UINT64_MAX;
	if (pcap_file || dev)
		rc = run_pcap(&t, pcap_file, dev) ? 1 : 0;
	else
		rc = run_udp(&t) ? 1 : 0;
	dta_translator_flush(t.core);
	save_stats_file(&t);
	/* The counters for scripts on stdout (documented, parsed by the
	 * tests); the mismatches still held back and the summary to the
	 * log, where operators look. */
	write_stats(&t, stdout, 0);
	watch_mismatches(&t, tool_now_ns() + MISMATCH_LOG_S * 1000000000ull);
	log_summary(&t);
out:
	xdp_rx_close(t.xdp);
	dta_translator_destroy(t.core);
	close_sink(&t);
#ifdef DTA_HAVE_RDMA
	rdma_sink_destroy(t.rdma);
	free(t.rdma_lat);
#endif
	switch_sink_destroy(t.sw);
	metrics_server_stop(t.metrics);
	reporters_fini(&t.rep);
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++)
		free(t.fill[i]);
	dta_config_destroy(t.cfg);
	return rc;
}
