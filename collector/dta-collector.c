/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-collector: owns the memory DTA reports are written into.
 *
 * Creates one region per configured structure in POSIX shared memory
 * (hugetlbfs when mounted; anonymous memory on huge pages with
 * shared_memory = no) for local translators to write into, answers
 * queries over a Unix socket (docs/collector-protocol.md), keeps Append
 * consumers per client, and writes snapshots on request and on a clean
 * shutdown (SIGTERM, SIGINT). Runs in the foreground; use a service manager
 * to run it as a service (dist/systemd/dta-collector.service.in).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dta/exec.h"
#include "dta/frame.h"
#include "epochs.h"
#include "log.h"
#include "metrics.h"
#ifdef DTA_HAVE_MHD
#include "api.h"
#endif
#include "notify.h"
#include "own.h"
#include "shmdir.h"
#include "remote.h"
#include "service.h"
#include "tools.h"
#ifdef DTA_HAVE_RDMA
#include "rdma.h"
#endif

#define MAX_CLIENTS 64
#define STR_(x) #x
#define STR(x) STR_(x) /* a number macro's digits, in a string literal */
#define LINE_MAX_BYTES (DTA_EXEC_REQUEST_MAX + 1) /* a request and its newline */
/* Requests read at once: a pipelining client's lines are answered a
 * read at a time, into one buffer, sent with one send(). */
#define IN_BYTES (64 * 1024)
/* Answers waiting for a client beyond this: its requests wait too. */
#define OUT_CAP (256 * 1024)
#define IDLE_TIMEOUT_S 60
#define STALL_TIMEOUT_S 10
/* A request's bytes, from its first to its end, must come within this. */
#define REQUEST_TIMEOUT_S 10
#define SOCKET_MODE 0660

/*
 * One connection. Requests are read into in[] and answered in order into
 * out (by the library's executor, dta/exec.h: runs of point queries of one
 * structure together); out is sent as the socket takes it, so no client
 * ever waits for another. Over OUT_CAP unsent, its requests are not read
 * until it reads its answers. A connection starts with text lines; the
 * request `binary` switches it to frames (dta/frame.h) for good.
 */
struct client {
	int fd;
	uid_t uid;     /* SO_PEERCRED at accept; (uid_t)-1 unknown */
	bool eof;      /* it shut its side: answer what it sent, then close */
	bool skipping; /* inside a request over DTA_EXEC_REQUEST_MAX: drop to \n */
	bool binary;   /* frames, not lines */
	size_t len;
	/* IN_BYTES + 1 bytes (+ 1: room to end a last line); in binary mode
	 * as large as the frame being read needs, up to DTA_FRAME_MAX + 1. */
	char *in;
	size_t in_cap;
	struct dta_buf out;
	size_t out_sent;
	/* The last request read whole, or answer bytes sent: bytes that end
	 * no request do not count, or a byte a second would hold the slot. */
	uint64_t last_ns;
	uint64_t req_ns; /* first byte of the request being read; 0: none */
	struct dta_exec_session *sess;
	struct coll_wait wait; /* a `wait` unanswered: later requests wait */
	/* Its `snapshot` or `ki-reset` runs on the job thread: later requests
	 * wait for its answer (struct own_job). */
	bool busy;
	uint64_t id; /* which connection this slot holds (the job's answer) */
	/* Remote (query_listen): its TLS session, NULL for the Unix socket;
	 * until its handshake is over it sends and answers nothing. Its
	 * certificate's name decides what it may read (remote.h). */
	struct coll_tls_conn *tls;
	char reader[COLL_REMOTE_NAME_MAX];
	size_t nvisible; /* remote: the structures it may read */
};

/*
 * `snapshot` and `ki-reset` take seconds on large structures: they run on
 * this thread, off the loop, one at a time (a second is refused while
 * one runs). The loop keeps answering everyone else; the requester's
 * later requests wait for its answer, which the loop writes when the
 * thread says it is done (done_fd). Shutdown joins it first. The loop
 * owns every field but answer/len, which the thread writes before it
 * signals done_fd and the loop reads after pthread_join().
 */
struct own_job {
	pthread_t th;
	bool running; /* started, not yet joined */
	int done_fd;  /* eventfd; -1 until the first job */
	int slot;     /* the requester: c->cl[slot] while its id matches */
	uint64_t client_id;
	bool frame; /* asked in a TEXT frame: answer framed, with its header */
	uint8_t hdr[DTA_FRAME_REQ_HDR];
	bool ki; /* ki-reset (of structure i, bank), else snapshot */
	size_t i;
	unsigned bank;
	char *answer; /* JSON, no newline; NULL: out of memory */
	size_t len;
};

struct collector {
	struct dta_config *cfg;
	struct coll_own_req own_req; /* own_request()'s, 8 KiB off the stack */
	int idx; /* which collector of the configuration this is */
	const char *name;
	struct dta_config_structure cs[DTA_CONFIG_MAX_STRUCTURES]; /* our shares */
	char socket_path[4096];
	bool socket_default;  /* dta_default_socket(): ours to create */
	unsigned socket_mode;
	uint64_t idle_ns, stall_ns, request_ns; /* 0: never */
	uint64_t refused, idle_closed, stalled, request_closed, last_refusal_ns;
	const char *snapshot_dir;
	size_t n;
	struct dta_region *r[DTA_CONFIG_MAX_STRUCTURES];
	char shm[DTA_CONFIG_MAX_STRUCTURES][NAME_MAX + 1]; /* shm_open names */
	bool reattached[DTA_CONFIG_MAX_STRUCTURES];
	bool keep_shm; /* at exit: leave every shm object for the next one */
	bool anon;     /* shared_memory = no: regions in anonymous memory */
	unsigned shm_mode;
	const char *shm_dir; /* NULL: /dev/shm */
	struct coll_shm_place shm_place;
	struct dta_exec *x; /* answers every query, text and frames */
	int listen_fd;
	struct client cl[MAX_CLIENTS];
	uint64_t started_ns, requests, errors;
	uint64_t snapshots; /* written by the job thread too: atomic access */
	struct own_job job;
	uint64_t next_client_id;
	uint64_t frames, keys;      /* binary requests, keys they asked about */
	uint64_t last_malformed_ns; /* last malformed frame logged */
	int quiet;
	struct metrics_server *metrics; /* NULL: metrics_listen not set */
	struct metrics_hist answer_ns;  /* request latency (metrics only) */
	struct coll_notify *notify;     /* `wait` requests (collector/notify.c) */
	struct coll_remote *remote;     /* query_listen (collector/remote.c) */
#ifdef DTA_HAVE_MHD
	struct coll_api *api; /* NULL: api_listen not set (collector/api.c) */
#endif
	struct coll_epochs *epochs;     /* Key-Increment epochs (collector/epochs.c) */
#ifdef DTA_HAVE_RDMA
	struct coll_rdma *rdma;
#endif
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dta-collector -c CONFIG [options]\n"
		"Create the configured structures in shared memory, answer queries\n"
		"and keep snapshots. Runs in the foreground until SIGTERM/SIGINT.\n"
		"\n"
		"  -c, --config FILE      configuration (docs/config.md), required\n"
		"  -C, --collector NAME   be the collector of section [collector NAME]\n"
		"                         and hold the structures (or shares) it lists\n"
		"                         (default: the unnamed [collector])\n"
		"  -s, --socket PATH      query socket (default: [collector] socket,\n"
		"                         else DIR/dta-NAME.sock, DIR the first of\n"
		"                         $RUNTIME_DIRECTORY, /run/dta (if root or it\n"
		"                         exists; created mode 0750), $XDG_RUNTIME_DIR;\n"
		"                         at most 107 bytes). Mode: [collector]\n"
		"                         socket_mode (default 0660)\n"
		"  -d, --snapshot-dir DIR where snapshots go (default: [collector]\n"
		"                         snapshot_dir; none: no snapshot on shutdown)\n"
		"  -r, --restore          load DIR/STRUCTURE.dta at start when present\n"
		"                         (also [collector] restore = yes); a region\n"
		"                         reattached from shared memory is kept when\n"
		"                         it is newer than the snapshot; a corrupt\n"
		"                         snapshot stops the start\n"
		"      --no-huge          do not try huge pages\n"
		"  -f, --force            replace shared-memory objects that exist with\n"
		"                         a different layout (default: refuse; same\n"
		"                         layout: reattach, keeping their contents)\n"
		"      --metrics [ADDR:]PORT  serve Prometheus metrics and /health\n"
		"                         over HTTP there (default: [collector]\n"
		"                         metrics_listen, else none; ADDR default\n"
		"                         127.0.0.1; docs/metrics.md)\n"
		"  -q, --quiet            no log messages\n"
		"  -h, --help             this text\n"
		"      --version          print \"dta-collector VERSION\" and exit\n"
		"\n"
		"Structure S of collector NAME lives in shared memory /dta-NAME.S\n"
		"(the section's name key, else its NAME, else \"dta\"), mode\n"
		"[collector] shm_mode (default 0600): the file SHM_DIR/dta-NAME.S when\n"
		"[collector] shm_dir is set (a tmpfs; mounted huge=within_size it\n"
		"gives 2 MiB pages: docs/performance.md), else /dev/shm, or hugetlbfs\n"
		"when mounted at /dev/hugepages with pages free. Local translators\n"
		"open it there, and analysis tools may map it read-only\n"
		"(dta-query --map). With\n"
		"[collector] shared_memory = no (RDMA translators only) structures are\n"
		"in anonymous memory on transparent huge pages. The log gives the page\n"
		"size each structure got.\n"
		"Key-Increment structures with `epoch = T` have each closed epoch\n"
		"written to a file in [collector] epoch_dir (default: DIR/epochs\n"
		"of the snapshot directory, else /var/lib/dta/epochs) before its\n"
		"bank is reset (docs/layouts.md \"Epochs\").\n"
		"On shutdown the regions are retired (translators stop writing),\n"
		"snapshotted, then removed; if a snapshot fails they are kept for the\n"
		"next collector to reattach, and the exit status is 1.\n"
		"The docs/NAME.md files named here are installed as\n"
		"/usr/share/doc/dta-tools/NAME.md by the dta-tools package\n"
		"(PREFIX/share/doc/dta-tools/ by cmake --install).\n");
}

static bool yes(const char *v)
{
	return v && (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"));
}

static void snap_path(const struct collector *c, const char *st, char *out,
		      size_t cap)
{
	snprintf(out, cap, "%s/%s.dta", c->snapshot_dir, st);
}

/* What to do when shared memory could not be had; libdta's log line just
 * before says why (the sizes, or the owner and mode it refused). */
static void creation_failed(const struct collector *c, size_t i, int err)
{
	const char *name = c->cs[i].name;

	const char *dir = c->shm_dir ? c->shm_dir : "/dev/shm";

	if (err == -ENOSPC || err == -EFBIG)
		tool_log(LOG_ERR, "%s: cannot create %s: make the "
			"structure smaller or %s larger", name,
			c->shm[i], dir);
	else if (err == -EPERM)
		tool_log(LOG_ERR, "%s: refusing %s: whoever made "
			"it could read or forge the structure; inspect "
			"%s%s and remove it", name, c->shm[i], dir,
			c->shm[i]);
	else
		tool_log(LOG_ERR, "%s: cannot create %s: %s",
			name, c->shm[i], dta_strerror(err));
}

/*
 * --restore onto region @i. A fresh region takes the snapshot. A
 * reattached one survived its collector and may hold newer data: keep it
 * when the snapshot is a copy of it (same origin id) or was saved before
 * it was created; load the snapshot only when it is another region's and
 * younger than this one.
 */
static int restore_one(struct collector *c, size_t i)
{
	const char *name = c->cs[i].name;
	struct dta_region_opts fo = { .sz = sizeof(fo),
				      .backing = DTA_BACKING_FILE,
				      .flags = DTA_REGION_RDONLY };
	struct dta_region *snap;
	uint64_t s_origin, s_saved, r_origin, r_created;
	char sp[4096];
	int err;

	char fp[64], fname[4096], why[1024];
	int dfd, ffd;

	snap_path(c, name, sp, sizeof(sp));
	/* Only a file nobody else could have planted or changed, in a
	 * directory nobody else can change, is loaded: the collector would
	 * answer its contents as measured data. */
	dfd = tool_private_dir(c->snapshot_dir, why, sizeof(why));
	if (dfd < 0) {
		tool_log(LOG_ERR, "%s: cannot restore: %s; not starting "
			 "(docs/security.md)", name, why);
		return -1;
	}
	snprintf(fname, sizeof(fname), "%s.dta", name);
	ffd = tool_private_file(dfd, fname, why, sizeof(why));
	close(dfd);
	if (ffd == -1) {
		tool_log(LOG_ERR, "%s: cannot restore %s: %s; not starting "
			 "(docs/security.md)", name, sp, why);
		return -1;
	}
	/* Opened again through the checked descriptor: the same file. */
	tool_fd_path(ffd, "", fp, sizeof(fp));
	fo.path = fp;
	err = ffd == -2 ? -ENOENT : dta_region_open(&fo, &snap);
	if (ffd >= 0)
		close(ffd);
	if (err == -ENOENT) {
		tool_log(LOG_INFO, "%s: no snapshot %s, %s", name, sp,
		    c->reattached[i] ? "keeping the reattached contents"
				     : "starting empty");
		return 0;
	}
	if (err)
		goto bad;
	s_origin = dta_region_origin(snap);
	s_saved = dta_region_saved_ns(snap);
	if (c->reattached[i]) {
		r_origin = dta_region_origin(c->r[i]);
		r_created = dta_region_created_ns(c->r[i]);
		if (s_origin == r_origin) {
			tool_log(LOG_INFO, "%s: keeping the reattached region, "
				 "not restoring %s: the snapshot is an older "
				 "copy of it (same origin %016" PRIx64 ")",
				 name, sp, r_origin);
			dta_region_destroy(snap);
			return 0;
		}
		if (s_saved <= r_created) {
			tool_log(LOG_INFO, "%s: keeping the reattached region, "
				 "not restoring %s: the snapshot was saved "
				 "before the region was created", name, sp);
			dta_region_destroy(snap);
			return 0;
		}
		tool_log(LOG_INFO, "%s: restoring %s over the reattached "
			 "region: the snapshot is of another region and was "
			 "saved after this one was created", name, sp);
	}
	/* The snapshot was opened (and its checksum checked) once, above. */
	err = dta_region_copy(c->r[i], snap);
	dta_region_destroy(snap);
	if (err)
		goto bad;
	tool_log(LOG_INFO, "%s: restored from %s", name, sp);
	return 0;

bad:
	tool_log(LOG_ERR, "%s: cannot restore %s: %s; not "
		"starting (move the file aside, e.g. mv %s %s.bad, to start "
		"without it)", name, sp, dta_strerror(err), sp, sp);
	return -1;
}

/* Create structure @i's region, or reattach the one a previous collector
 * left. It is not open to writers yet (RETIRED): open_regions() revives it
 * once any snapshot is in. */
static int open_region(struct collector *c, size_t i, bool huge, bool force,
		       bool restore)
{
	const struct dta_config_structure *cs = &c->cs[i];
	const char *path = c->shm[i];
	struct dta_region_opts o = { .sz = sizeof(o),
				     .backing = DTA_BACKING_SHM,
				     .path = path, .name = cs->name,
				     /* POPULATE: tmpfs zeroes a page at its
				      * first fault, not at fallocate; done
				      * here, a translator's first pass (or
				      * its populate) does not pay it. */
				     .flags = DTA_REGION_EXCL |
					      DTA_REGION_DORMANT |
					      DTA_REGION_POPULATE |
					      (huge ? DTA_REGION_HUGE : 0),
				     .mode = c->shm_mode,
				     .schema = cs->schema,
				     .dir = c->shm_dir };
	struct dta_region_opts oo = o;
	int err;

	if (c->anon) {
		/* Only RDMA translators write (and the socket reads): no
		 * object to share, so private memory, on huge pages. */
		o.backing = DTA_BACKING_ANON;
		o.path = NULL;
		o.flags &= ~DTA_REGION_EXCL;
		snprintf(c->shm[i], sizeof(c->shm[i]), "anonymous memory");
		err = dta_region_create(&cs->layout, &o, &c->r[i]);
		if (err) {
			c->r[i] = NULL;
			tool_log(LOG_ERR, "%s: cannot allocate %" PRIu64
				" bytes: %s", cs->name, cs->layout.data_size,
				dta_strerror(err));
			return -1;
		}
		return 0;
	}
	if (dta_config_shm_name(c->name, cs->name, c->shm[i], sizeof(c->shm[i]))) {
		tool_log(LOG_ERR, "%s: the shared-memory name "
			"/dta-%s.%s is longer than %d bytes; choose a shorter "
			"collector name (or structure name)", cs->name,
			c->name, cs->name, NAME_MAX - 1);
		return -1;
	}
	err = dta_region_create(&cs->layout, &o, &c->r[i]);
	if (err != -EEXIST)
		goto done;
	oo.flags = 0;
	err = dta_region_open(&oo, &c->r[i]);
	if (err == -EPERM)
		goto done; /* someone else's object: never reuse or remove */
	if (!err && tool_same_layout(dta_region_layout(c->r[i]), &cs->layout)) {
		c->reattached[i] = true;
		if (dta_region_state(c->r[i]) == DTA_REGION_RETIRED)
			tool_log(LOG_INFO, "%s: %s was retired by the "
				 "collector before us", cs->name, path);
		/* Translators may be writing into it (its collector was
		 * killed): hold them off while a snapshot may be loaded. */
		else if (restore && c->snapshot_dir &&
			 dta_region_retire(c->r[i], 1000) == -ETIMEDOUT)
			tool_log(LOG_WARNING, "%s: the writer count of %s is "
				 "not 0 after 1 s: a translator is still "
				 "writing, or was killed while writing (its "
				 "count then stays)", cs->name, path);
		tool_log(LOG_INFO, "%s: reattached to existing %s (contents "
			 "kept)", cs->name, path);
		return 0;
	}
	if (!force) {
		if (!err)
			dta_region_destroy(c->r[i]);
		c->r[i] = NULL;
		tool_log(LOG_ERR, "%s exists with another layout (another "
			 "collector named %s, or an old configuration)%s%s; "
			 "use --force to replace it", path, c->name,
			 err ? ": " : "", err ? dta_strerror(err) : "");
		return -1;
	}
	/* Translators still writing into the old object notice it is
	 * retired, and find the new one. */
	if (!err) {
		dta_region_retire(c->r[i], 1000);
		dta_region_destroy(c->r[i]);
	}
	c->r[i] = NULL;
	dta_region_shm_unlink_in(c->shm_dir, path);
	err = dta_region_create(&cs->layout, &o, &c->r[i]);
done:
	if (err) {
		c->r[i] = NULL;
		creation_failed(c, i, err);
		return -1;
	}
	return 0;
}

/* Region @i joins the executor, with index @i (the binary protocol's
 * structure number: its place in `info`), and the schema the
 * configuration gives it (else the one a reattached region has). */
static int exec_add(struct collector *c, size_t i)
{
	const struct dta_config_structure *cs = &c->cs[i];
	struct dta_exec_structure s = {
		.name = cs->name, .layout = dta_region_layout(c->r[i]),
		.area = dta_region_data(c->r[i]), .values = cs->values,
		.nvalues = cs->nvalues, .list_base = cs->list_base,
		.schema = cs->schema ? cs->schema : dta_region_schema(c->r[i]),
	};
	int err = dta_exec_add(c->x, &s);

	if (err != (int)i) {
		tool_log(LOG_ERR, "%s: cannot serve it: %s", cs->name,
			 dta_strerror(err < 0 ? err : -EINVAL));
		return -1;
	}
	return 0;
}

/* One line when shared-memory regions landed on 4 KiB pages: why, and
 * what gives them huge pages. */
static void small_pages_why(const struct collector *c)
{
	char why[512];

	if (c->anon)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (dta_region_page_size(c->r[i]) <= 4096) {
			coll_shm_why_small(c->shm_dir, &c->shm_place, why,
					   sizeof(why));
			tool_log(LOG_WARNING, "structures on 4 KiB pages: %s",
				 why);
			return;
		}
}

static int open_regions(struct collector *c, bool huge, bool force,
			bool restore)
{
	for (size_t j = 0, i = 0; j < dta_config_count(c->cfg); j++) {
		const struct dta_config_structure *cs = &c->cs[i];
		int share = dta_config_share(dta_config_structure(c->cfg, j),
					     (size_t)c->idx);

		if (share < 0)
			continue; /* another collector's structure */
		c->cs[i] = tool_share(dta_config_structure(c->cfg, j),
				      (unsigned)share);
		if (open_region(c, i, huge, force, restore))
			return -1;
		c->n = i + 1;
		if (restore && c->snapshot_dir && restore_one(c, i))
			return -1;
		dta_region_revive(c->r[i]);
		if (exec_add(c, i))
			return -1;
		tool_log(LOG_INFO, "%s: %s, %" PRIu64 " bytes %s %s%s (%" PRIu64
			 "-byte pages)",
			 cs->name, dta_primitive_name(cs->layout.primitive),
			 cs->layout.data_size, c->anon ? "in" : "at",
			 c->anon || !c->shm_dir ? "" : c->shm_dir, c->shm[i],
			 dta_region_page_size(c->r[i]));
		i++;
	}
	small_pages_why(c);
	return 0;
}

/* RDMA for remote translators, when [collector] rdma_bind is set. */
static int start_rdma(struct collector *c)
{
	const char *bind = dta_config_collector_get(c->cfg, (size_t)c->idx,
						    "rdma_bind");
	const char *port = dta_config_collector_get(c->cfg, (size_t)c->idx,
						    "rdma_port");
	uint64_t p = 40050;

	if (!bind) {
		/* Keys only RDMA reads, set without it: refused, not ignored
		 * (switch mode would silently never start). */
		static const char *const only_rdma[] = {
			"switch_peer", "switch_qpn", "switch_psn", "switch_meta",
			"rdma_port", "rdma_allow",
		};

		for (size_t k = 0; k < sizeof(only_rdma) / sizeof(*only_rdma);
		     k++)
			if (dta_config_collector_get(c->cfg, (size_t)c->idx,
						     only_rdma[k])) {
				tool_log(LOG_ERR, "%s is set but rdma_bind is "
					 "not: %s works only over RDMA; set "
					 "rdma_bind (docs/rdma.md) or remove %s",
					 only_rdma[k],
					 k < 4 ? "switch mode" : "it",
					 only_rdma[k]);
				return -1;
			}
		return 0;
	}
#ifdef DTA_HAVE_RDMA
	{
		struct coll_rdma_opts o = { .bind = bind, .log = tool_log,
			.allow = dta_config_collector_get(c->cfg, (size_t)c->idx,
							  "rdma_allow") };

		if (port && (dta_parse_size(port, &p) || p == 0 || p > 65535)) {
			tool_log(LOG_ERR, "bad rdma_port %s", port);
			return -1;
		}
		o.port = (uint16_t)p;
		o.switch_peer = dta_config_collector_get(c->cfg, (size_t)c->idx,
							 "switch_peer");
		o.switch_meta = dta_config_collector_get(c->cfg, (size_t)c->idx,
							 "switch_meta");
		if (o.switch_peer) {
			const char *q = dta_config_collector_get(c->cfg, (size_t)c->idx,
								 "switch_qpn");
			const char *ps = dta_config_collector_get(c->cfg, (size_t)c->idx,
								  "switch_psn");
			uint64_t x = 0x100, y = 0;

			if ((q && (dta_parse_size(q, &x) || !x || x > 0xFFFFFF)) ||
			    (ps && (dta_parse_size(ps, &y) || y > 0xFFFFFF))) {
				tool_log(LOG_ERR, "switch_qpn and switch_psn "
					 "are 24-bit numbers (QPN > 0)");
				return -1;
			}
			o.switch_qpn = (uint32_t)x;
			o.switch_psn = (uint32_t)y;
		}
		o.n = c->n;
		for (size_t i = 0; i < c->n; i++) {
			o.s[i].name = c->cs[i].name;
			o.s[i].area = dta_region_data(c->r[i]);
			o.s[i].region = c->r[i];
			o.s[i].layout = dta_region_layout(c->r[i]);
			o.s[i].list_base = c->cs[i].list_base;
		}
		return coll_rdma_start(&o, &c->rdma) ? -1 : 0;
	}
#else
	(void)port;
	(void)p;
	tool_log(LOG_ERR, "rdma_bind is set but this build has no "
		"RDMA support (libibverbs-dev and librdmacm-dev were missing)");
	return -1;
#endif
}

/*
 * Snapshot every structure into the snapshot directory (mode 0700 when we
 * create it; files 0600). With @out, answer the `snapshot` request: the
 * files saved, and per structure that failed, why.
 */
static int save_all(struct collector *c, FILE *out)
{
	char *fail_buf = NULL;
	size_t fail_len = 0, nsaved = 0;
	FILE *failed;
	char why[1024];
	int bad = 0, dfd;

	if (!c->snapshot_dir) {
		if (out)
			fputs("{\"error\":\"no snapshot directory configured\"}",
			      out);
		return -1;
	}
	failed = open_memstream(&fail_buf, &fail_len);
	if (!failed) {
		if (out)
			fputs("{\"error\":\"out of memory\"}", out);
		return -1;
	}
	/* Written through the checked directory's descriptor: a directory
	 * someone else owns or can write, or a symlink in its place, gets
	 * nothing (they could remove or replace the only copy). */
	dfd = tool_private_dir(c->snapshot_dir, why, sizeof(why));
	if (dfd < 0)
		tool_log(LOG_ERR, "snapshot: %s (docs/security.md)", why);
	if (out)
		fputs("{\"saved\":[", out);
	for (size_t i = 0; i < c->n; i++) {
		char sp[4096], fp[4096], fname[4096];
		int err = 0;

		snap_path(c, c->cs[i].name, sp, sizeof(sp));
		snprintf(fname, sizeof(fname), "%s.dta", c->cs[i].name);
		if (dfd >= 0) {
			tool_fd_path(dfd, fname, fp, sizeof(fp));
			err = dta_region_save(c->r[i], fp);
		}
		if (dfd < 0 || err) {
			const char *e = dfd < 0 ? why : dta_strerror(err);

			if (dfd >= 0)
				tool_log(LOG_ERR, "%s: snapshot %s: %s",
					 c->cs[i].name, sp, e);
			fprintf(failed, "%s{\"structure\":", bad ? "," : "");
			tool_json_str(failed, c->cs[i].name);
			fputs(",\"file\":", failed);
			tool_json_str(failed, sp);
			fputs(",\"error\":", failed);
			tool_json_str(failed, e);
			fputc('}', failed);
			bad = 1;
			continue;
		}
		if (out) {
			fputs(nsaved++ ? "," : "", out);
			tool_json_str(out, sp);
		}
	}
	fclose(failed);
	if (dfd >= 0)
		close(dfd);
	if (out)
		fprintf(out, "],\"failed\":[%s],\"ok\":%s}",
			fail_buf ? fail_buf : "", bad ? "false" : "true");
	free(fail_buf);
	if (!bad)
		__atomic_fetch_add(&c->snapshots, 1, __ATOMIC_RELAXED);
	return bad ? -1 : 0;
}

/* A snapshot directory that exists (or a symlink in its place) is checked
 * at start: one another user owns or can write is refused now, not found
 * out at shutdown. One not there yet is created at the first snapshot; a
 * file in its place fails the snapshots (and keeps the shared memory). */
static int snapshot_dir_ok(const char *dir)
{
	char why[1024];
	struct stat st;
	int fd;

	if (lstat(dir, &st) != 0 || S_ISREG(st.st_mode))
		return 0;
	fd = tool_private_dir(dir, why, sizeof(why));
	if (fd < 0) {
		tool_log(LOG_ERR, "snapshot_dir: %s; not starting "
			 "(docs/security.md)", why);
		return -1;
	}
	close(fd);
	return 0;
}

/* [collector] shm_dir, checked at start (shmdir.c); without it /dev/shm,
 * described for the log line that says why pages are small. */
static int shm_dir_ok(struct collector *c)
{
	char why[1024];

	c->shm_dir = dta_config_collector_get(c->cfg, (size_t)c->idx,
					      "shm_dir");
	if (!c->shm_dir) {
		coll_shm_default(&c->shm_place);
		return 0;
	}
	if (coll_shm_dir_check(c->shm_dir, &c->shm_place, why, sizeof(why))) {
		tool_log(LOG_ERR, "shm_dir: %s; not starting "
			 "(docs/security.md)", why);
		return -1;
	}
	tool_log(LOG_INFO, "shared memory in %s (tmpfs, %s%s)", c->shm_dir,
		 c->shm_place.huge[0] ? "huge=" : "no huge= option",
		 c->shm_place.huge);
	return 0;
}

/* The directory of socket_path: created (mode 0750) when it is the default
 * one; refused if another user could replace the socket in it. */
static int socket_dir(struct collector *c)
{
	char dir[4096];
	struct stat st;

	tool_dir_of(c->socket_path, dir, sizeof(dir));
	if (c->socket_default) {
		if (mkdir(dir, 0750) == 0) {
			chmod(dir, 0750); /* not what the umask left */
			tool_log(LOG_INFO, "created %s (mode 0750)", dir);
		} else if (errno != EEXIST) {
			tool_log(LOG_ERR, "cannot create %s: %s",
				dir, strerror(errno));
			return -1;
		}
	}
	if ((c->socket_default ? lstat : stat)(dir, &st) < 0) {
		tool_log(LOG_ERR, "socket directory %s: %s", dir,
			strerror(errno));
		return -1;
	}
	if (!c->socket_default) {
		if ((st.st_mode & S_IWOTH) && S_ISDIR(st.st_mode))
			tool_log(LOG_WARNING, "anyone can write %s: another "
				 "user can take the socket's name while the "
				 "collector is not running (docs/security.md)",
				 dir);
		return 0;
	}
	if (!S_ISDIR(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		tool_log(LOG_ERR, "refusing the default socket "
			"directory %s: it must be a directory owned by us "
			"(uid %u) or root that neither group nor others can "
			"write (it is %s, uid %u, mode %04o); fix it or set "
			"[collector] socket (docs/security.md)", dir,
			(unsigned)geteuid(),
			S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
			(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/*
 * Clean shutdown: retire every region (translators stop writing into it
 * and go looking for a successor), wait for writers inside to leave, then
 * snapshot the data, which no longer changes. If a snapshot fails the
 * shared memory is all there is left of the data: keep it.
 */
static int shut_down(struct collector *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (dta_region_retire(c->r[i], 1000) == -ETIMEDOUT)
			tool_log(LOG_WARNING, "%s: the writer count is not 0 "
				 "after 1 s (a translator is still writing, or "
				 "was killed while writing); snapshotting "
				 "anyway", c->cs[i].name);
	if (!c->snapshot_dir)
		return 0;
	if (save_all(c, NULL) == 0) {
		tool_log(LOG_INFO, "snapshots written to %s", c->snapshot_dir);
		return 0;
	}
	if (c->anon) {
		tool_log(LOG_ERR, "a snapshot failed: the data in anonymous "
			 "memory is lost with this collector");
		return -1;
	}
	c->keep_shm = true;
	for (size_t i = 0; i < c->n; i++)
		tool_log(LOG_WARNING, "%s: keeping shared memory %s: a "
			 "snapshot failed, and a collector started with this "
			 "configuration reattaches it with its contents",
			 c->cs[i].name, c->shm[i]);
	return -1;
}

static int listen_on(struct collector *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int fd, err;

	if (socket_dir(c))
		return -1;
	/* socket_setup() refused paths longer than DTA_SOCKET_PATH_MAX. */
	strcpy(sa.sun_path, c->socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* A socket file left by a collector that died: replace it, unless
	 * something still answers there. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		tool_log(LOG_ERR, "a collector already answers on "
			"%s", c->socket_path);
		close(fd);
		return -1;
	}
	if (lstat(c->socket_path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		tool_log(LOG_ERR, "%s exists and is not a socket: "
			"not replacing it", c->socket_path);
		close(fd);
		return -1;
	}
	unlink(c->socket_path);
	/* Born with the configured mode, whatever the umask... */
	old = umask(~c->socket_mode & 0777);
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (err < 0 || lstat(c->socket_path, &st) < 0)
		goto fail;
	/* ...unless a default ACL decided: then set it, never through a
	 * symbolic link someone put in its place. */
	if ((st.st_mode & 0777) != c->socket_mode &&
	    fchmodat(AT_FDCWD, c->socket_path, c->socket_mode,
		     AT_SYMLINK_NOFOLLOW) < 0)
		goto fail;
	if (listen(fd, MAX_CLIENTS) < 0)
		goto fail;
	c->listen_fd = fd;
	return 0;
fail:
	tool_log(LOG_ERR, "socket %s: %s", c->socket_path,
		strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The socket's path: --socket, else [collector] socket, else the default
 * (dta_default_socket()); whole, or refused. */
static int socket_setup(struct collector *c, const char *sock)
{
	int err;

	c->socket_default = !sock && !dta_config_collector_get(c->cfg,
							       (size_t)c->idx,
							       "socket");
	if (sock)
		err = snprintf(c->socket_path, sizeof(c->socket_path), "%s",
			       sock) > DTA_SOCKET_PATH_MAX ? -ENAMETOOLONG : 0;
	else
		err = dta_config_collector_socket(c->cfg, (size_t)c->idx,
					    c->socket_path,
					    sizeof(c->socket_path));
	if (err == -ENOENT)
		tool_log(LOG_ERR, "no directory for the default socket: not "
			 "root, and neither $RUNTIME_DIRECTORY nor "
			 "$XDG_RUNTIME_DIR is set nor %s exists; set "
			 "[collector] socket or --socket", DTA_RUN_DIR);
	else if (err)
		tool_log(LOG_ERR, "socket path %s%s is too long: a "
			"Unix socket path has at most %d bytes",
			c->socket_path, strlen(c->socket_path) ==
			sizeof(c->socket_path) - 1 ? "..." : "",
			DTA_SOCKET_PATH_MAX);
	return err ? -1 : 0;
}

/* [collector] socket_mode, idle_timeout, stall_timeout, request_timeout. */
static int client_limits(struct collector *c)
{
	const char *keys[] = { "idle_timeout", "stall_timeout",
			       "request_timeout" };
	uint64_t *to[] = { &c->idle_ns, &c->stall_ns, &c->request_ns };
	const uint64_t def[] = { IDLE_TIMEOUT_S, STALL_TIMEOUT_S,
				 REQUEST_TIMEOUT_S };

	if (dta_config_collector_mode(c->cfg, (size_t)c->idx, "socket_mode", SOCKET_MODE,
			     &c->socket_mode)) {
		tool_log(LOG_ERR, "socket_mode is not octal");
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		const char *v = dta_config_collector_get(c->cfg, (size_t)c->idx,
							 keys[i]);
		uint64_t s = def[i];

		if (v && (dta_parse_size(v, &s) || s > 86400 * 365)) {
			tool_log(LOG_ERR, "%s %s: want seconds "
				"(0: never)", keys[i], v);
			return -1;
		}
		*to[i] = s * 1000000000ull;
	}
	return 0;
}

static size_t unsent(const struct client *cl)
{
	return cl->out.len - cl->out_sent;
}

/* @nstruct: the structures the asking client may see. */
static void stats_json(struct collector *c, FILE *out, size_t nstruct)
{
	unsigned clients = 0, blocked = 0;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		clients += c->cl[i].fd >= 0;
		blocked += c->cl[i].fd >= 0 && unsent(&c->cl[i]) >= OUT_CAP;
	}
	fprintf(out, "{\"name\":");
	tool_json_str(out, c->name);
	fprintf(out, ",\"version\":\"%s\",\"uptime_s\":%.3f,\"structures\":%zu,"
		"\"requests\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"frames\":%"
		PRIu64 ",\"keys\":%" PRIu64 ",\"clients\":%u,"
		"\"clients_blocked\":%u,\"clients_refused\":%" PRIu64
		",\"clients_idle_closed\":%" PRIu64 ",\"clients_stalled\":%" PRIu64
		",\"clients_request_closed\":%" PRIu64
		",\"snapshots\":%" PRIu64, DTA_VERSION_STRING,
		(double)(tool_now_ns() - c->started_ns) / 1e9, nstruct, c->requests,
		c->errors, c->frames, c->keys, clients, blocked, c->refused, c->idle_closed,
		c->stalled, c->request_closed,
		__atomic_load_n(&c->snapshots, __ATOMIC_RELAXED));
	if (c->remote)
		fprintf(out, ",\"remote_refused\":%" PRIu64,
			coll_remote_refused(c->remote));
#ifdef DTA_HAVE_MHD
	if (c->api) {
		struct coll_api_stats st;

		coll_api_stats(c->api, &st);
		fprintf(out, ",\"api\":{\"requests\":%" PRIu64 ",\"errors\":%"
			PRIu64 ",\"refused\":%" PRIu64 ",\"deadline_closed\":%"
			PRIu64 ",\"evicted\":%" PRIu64 "}", st.requests,
			st.errors, st.refused, st.deadline, st.evicted);
	}
#endif
#ifdef DTA_HAVE_RDMA
	if (c->rdma) {
		fputc(',', out);
		coll_rdma_stats_json(c->rdma, out);
	}
#endif
	if (c->epochs) {
		fputc(',', out);
		coll_epochs_stats_json(c->epochs, out);
	}
	fputc('}', out);
}

/* ---- metrics (docs/metrics.md) ----
 *
 * The counters are stats_json()'s, turned into samples by this table: a
 * scrape and a "stats" answer are one snapshot path. MHD runs in serve()'s
 * poll loop, so these callbacks run on the thread that owns the state. */

#define CM(key, fam, type, help) { key, "dta_collector_" fam, type, NULL, NULL, help }
#define CL(key, fam, type, label, value, help) \
	{ key, "dta_collector_" fam, type, label, value, help }
static const struct metrics_def collector_metrics[] = {
	CM("uptime_s", "uptime_seconds", METRICS_GAUGE,
	   "Seconds since the collector started."),
	CM("structures", "structures", METRICS_GAUGE,
	   "Structures (or shares of them) this collector holds."),
	CM("requests", "requests_total", METRICS_COUNTER,
	   "Requests answered on the query socket."),
	CM("errors", "request_errors_total", METRICS_COUNTER,
	   "Requests answered with an error."),
	CM("frames", "frames_total", METRICS_COUNTER,
	   "Binary request frames answered (counted in requests too)."),
	CM("keys", "frame_keys_total", METRICS_COUNTER,
	   "Keys asked about in binary kw, pc and ki frames."),
	CM("clients", "clients", METRICS_GAUGE,
	   "Query-socket clients connected."),
	CM("clients_blocked", "clients_blocked", METRICS_GAUGE,
	   "Clients whose unread answers reached the cap (their requests wait)."),
	CM("clients_refused", "clients_refused_total", METRICS_COUNTER,
	   "Connections refused: all client slots taken."),
	CL("clients_idle_closed", "clients_closed_total", METRICS_COUNTER,
	   "cause", "idle_timeout",
	   "Clients the collector closed, by cause (idle_timeout, stall_timeout, "
	   "request_timeout)."),
	CL("clients_stalled", "clients_closed_total", METRICS_COUNTER, "cause",
	   "stall_timeout", NULL),
	CL("clients_request_closed", "clients_closed_total", METRICS_COUNTER,
	   "cause", "request_timeout", NULL),
	CM("snapshots", "snapshots_total", METRICS_COUNTER,
	   "Snapshots written completely (on request and at shutdown)."),
	CM("rdma.translators", "rdma_translators", METRICS_GAUGE,
	   "RDMA translators connected."),
	CM("rdma.accepted", "rdma_connections_accepted_total", METRICS_COUNTER,
	   "RDMA connections accepted."),
	CM("rdma.refused", "rdma_connections_refused_total", METRICS_COUNTER,
	   "RDMA connections refused (rdma_allow, no room)."),
	CM("rdma.disconnected", "rdma_disconnects_total", METRICS_COUNTER,
	   "RDMA connections that ended."),
	CM("api.requests", "api_requests_total", METRICS_COUNTER,
	   "HTTPS API requests answered (docs/api.md)."),
	CM("api.errors", "api_request_errors_total", METRICS_COUNTER,
	   "HTTPS API requests answered with a 4xx or 5xx status."),
	CM("api.refused", "api_refused_total", METRICS_COUNTER,
	   "HTTPS API requests refused (403): no usable client name."),
	CM("api.deadline_closed", "api_deadline_closed_total", METRICS_COUNTER,
	   "HTTPS API connections shut at the request deadline."),
	CM("api.evicted", "api_evicted_total", METRICS_COUNTER,
	   "HTTPS API connections shut for a newer one (a connection cap reached)."),
	CM("epochs.closed", "epochs_closed_total", METRICS_COUNTER,
	   "Key-Increment epochs closed (their file durable, their bank reset)."),
	CM("epochs.files", "epoch_files_total", METRICS_COUNTER,
	   "Epoch files written (epochs with no increment write none)."),
	CM("epochs.counters", "epoch_counters_total", METRICS_COUNTER,
	   "Non-zero counters written into epoch files."),
	CM("epochs.increments", "epoch_increments_total", METRICS_COUNTER,
	   "Increments (row 0's sum) moved from banks into epoch files."),
	CM("epochs.late_increments", "epoch_late_increments_total",
	   METRICS_COUNTER, "Increments that reached a bank after its epoch was "
	   "copied: kept there, they go with the bank's next epoch."),
	CM("epochs.abandoned", "epochs_abandoned_total", METRICS_COUNTER,
	   "Epochs not closed before their bank was reused: their counts go "
	   "with the epoch two later."),
	CM("epochs.pending", "epochs_pending", METRICS_GAUGE,
	   "Epochs over their grace period whose close failed and is retried."),
	CL("epochs.failed_dir", "epoch_close_failures_total", METRICS_COUNTER,
	   "cause", "dir", "Failed attempts to close an epoch, by cause (dir: "
	   "epoch_dir missing or unsafe; write: the file; memory)."),
	CL("epochs.failed_write", "epoch_close_failures_total", METRICS_COUNTER,
	   "cause", "write", NULL),
	CL("epochs.failed_memory", "epoch_close_failures_total",
	   METRICS_COUNTER, "cause", "memory", NULL),
};
#undef CM
#undef CL

/* stats_json() as metrics_write_stats() calls it. */
static void stats_json_cb(void *ctx, FILE *out)
{
	stats_json(ctx, out, ((struct collector *)ctx)->n);
}

/* Per structure: the pages its region got (docs/metrics.md). */
static int region_metrics(const struct collector *c, FILE *f)
{
	static const struct {
		const char *family, *help;
	} fam[] = {
		{ "dta_collector_region_page_bytes", "Page size backing the "
		  "structure's region: 4096, 2097152 (2 MiB huge pages) or "
		  "1073741824." },
		{ "dta_collector_region_huge_bytes", "Bytes of the structure's "
		  "region on huge pages, measured when it was created (0: none "
		  "or reattached)." },
	};
	char v[32];
	int err = 0;

	for (size_t k = 0; k < 2 && !err; k++) {
		err = metrics_write_header(f, fam[k].family, METRICS_GAUGE,
					   fam[k].help);
		for (size_t i = 0; i < c->n && !err; i++) {
			struct metrics_label l[] = {
				{ "collector", c->name },
				{ "structure", c->cs[i].name },
			};

			snprintf(v, sizeof(v), "%" PRIu64,
				 k ? dta_region_huge_bytes(c->r[i])
				   : dta_region_page_size(c->r[i]));
			err = metrics_write_sample(f, fam[k].family, l, 2, v);
		}
	}
	return err;
}

static int metrics_write(void *ctx, FILE *f)
{
	struct collector *c = ctx;
	struct metrics_label l[] = {
		{ "collector", c->name }, { "version", DTA_VERSION_STRING },
	};
	int err;

	err = metrics_write_stats(f, stats_json_cb, c, collector_metrics,
				  sizeof(collector_metrics) /
					  sizeof(collector_metrics[0]),
				  l, 1);
	if (!err)
		err = metrics_write_header(f, "dta_collector_info",
					   METRICS_GAUGE, "Always 1: the "
					   "collector's name and version.");
	if (!err)
		err = metrics_write_sample(f, "dta_collector_info", l, 2, "1");
	if (!err)
		err = metrics_write_header(f,
			"dta_collector_request_duration_seconds",
			METRICS_HISTOGRAM, "Time the collector took to answer "
			"the requests of one read, observed once per request.");
	if (!err)
		err = metrics_write_hist(f,
			"dta_collector_request_duration_seconds", l, 1,
			&c->answer_ns);
	if (!err)
		err = region_metrics(c, f);
	if (!err)
		err = metrics_write_process(f);
	return err;
}

/* Healthy: the query socket listens and every region is live (none
 * retired: a collector retires its regions only when it stops). That this
 * is answered at all says serve()'s loop turns. */
static int metrics_health(void *ctx, char *why, size_t cap)
{
	struct collector *c = ctx;

	if (c->listen_fd < 0) {
		snprintf(why, cap, "the query socket is closed");
		return 1;
	}
	for (size_t i = 0; i < c->n; i++)
		if (dta_region_state(c->r[i]) == DTA_REGION_RETIRED) {
			snprintf(why, cap, "structure %s is retired",
				 c->cs[i].name);
			return 1;
		}
	return 0;
}

/* Serve metrics on @listen (command line, else [collector]
 * metrics_listen; neither: no endpoint). */
static int start_metrics(struct collector *c, const char *listen)
{
	/* 1 us .. 1 s: a point query takes microseconds, a snapshot more. */
	static const uint64_t bounds[] = {
		1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000,
		500000, 1000000, 2500000, 5000000, 10000000, 25000000,
		100000000, 1000000000,
	};
	struct metrics_server_opts o = {
		.write = metrics_write, .health = metrics_health, .ctx = c,
		.log = tool_log_warning,
	};

	if (!listen)
		listen = dta_config_collector_get(c->cfg, (size_t)c->idx,
						  "metrics_listen");
	if (!listen)
		return 0;
	o.listen = listen;
	metrics_hist_init(&c->answer_ns, bounds,
			  sizeof(bounds) / sizeof(bounds[0]), 1e-9);
	if (metrics_server_start(&o, &c->metrics)) {
		tool_log(LOG_ERR, "metrics: cannot serve on %s", listen);
		return -1;
	}
	tool_log(LOG_INFO, "metrics on http://%s%s/metrics",
		 strchr(listen, ':') ? "" : "127.0.0.1:", listen);
	return 0;
}

/* The HTTPS JSON API on [collector] api_listen (docs/api.md): HTTPS only,
 * so the TLS keys must be set too. */
static int start_api(struct collector *c)
{
	const char *listen = dta_config_collector_get(c->cfg, (size_t)c->idx,
						      "api_listen");
#ifdef DTA_HAVE_MHD
	struct coll_api_opts o = {
		.listen = listen, .collector = c->name, .x = c->x, .cs = c->cs,
		.n = c->n,
	};
	char err[512] = "";

	if (!listen)
		return 0;
	o.tls_cert = dta_config_collector_get(c->cfg, (size_t)c->idx,
					      "tls_cert");
	o.tls_key = dta_config_collector_get(c->cfg, (size_t)c->idx, "tls_key");
	o.tls_ca = dta_config_collector_get(c->cfg, (size_t)c->idx, "tls_ca");
	if (coll_api_start(&o, &c->api, err, sizeof(err))) {
		tool_log(LOG_ERR, "api_listen = %s: %s", listen, err);
		return -1;
	}
	tool_log(LOG_INFO, "HTTPS API on https://%s%s/v1/structures",
		 strchr(listen, ':') ? "" : "127.0.0.1:", listen);
	return 0;
#else
	if (!listen)
		return 0;
	tool_log(LOG_ERR, "api_listen = %s: this build has no libmicrohttpd",
		 listen);
	return -1;
#endif
}

/* Answer a request the collector handles itself (rare ones: the FILE
 * they are written to costs an allocation), checked by coll_own_parse(),
 * into @out: one JSON object, no newline. `snapshot` and `ki-reset` start
 * the job thread: their answer comes when it is done. */
static int job_start(struct collector *c, struct client *cl);

static void handle_own(struct collector *c, struct client *cl,
		       const struct coll_own_req *q, struct dta_buf *out)
{
	uid_t uid = cl->uid;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		out->oom = true;
		return;
	}
	if (q->kind == COLL_OWN_STATS) {
		stats_json(c, f, cl->tls ? cl->nvisible : c->n);
	} else if (q->kind == COLL_OWN_SWITCH) {
		/* Its rkeys let the holder write into our memory. */
		if (uid != geteuid() && uid != 0) {
			fprintf(f, "{\"error\":\"switch: only the collector's "
				"user (uid %u) and root may read the switch "
				"description\"}", (unsigned)geteuid());
		} else {
#ifdef DTA_HAVE_RDMA
			coll_rdma_switch_json(c->rdma, f);
#else
			fputs("{\"error\":\"this build has no RDMA support\"}",
			      f);
#endif
		}
	} else if (c->job.running) {
		fprintf(f, "{\"error\":\"%s: a snapshot or ki-reset is running "
			"already; ask again once it has answered\"}",
			q->kind == COLL_OWN_SNAPSHOT ? "snapshot" : "ki-reset");
	} else if (q->kind == COLL_OWN_SNAPSHOT) {
		c->job.ki = false;
		if (job_start(c, cl))
			fputs("{\"error\":\"snapshot: cannot start its thread\"}",
			      f);
	} else { /* ki-reset, its structure and bank checked */
		c->job.ki = true;
		c->job.i = q->structure;
		c->job.bank = q->bank;
		if (job_start(c, cl))
			fputs("{\"error\":\"ki-reset: cannot start its "
			      "thread\"}", f);
	}
	if (fclose(f)) {
		out->oom = true;
	} else {
		c->errors += len >= 8 && !memcmp(buf, "{\"error\"", 8);
		dta_buf_put(out, buf, len);
	}
	free(buf);
}

/* {"error":MSG}, @msg escaped (it may echo request bytes). */
static void put_error(struct collector *c, struct dta_buf *out,
		      const char *msg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		out->oom = true;
		return;
	}
	fputs("{\"error\":", f);
	tool_json_str(f, msg);
	fputc('}', f);
	if (fclose(f))
		out->oom = true;
	else
		dta_buf_put(out, buf, len);
	free(buf);
	c->errors++;
}

/*
 * A request that is not the executor's, @line (NUL-terminated), from a
 * text line or a TEXT frame: its JSON answer (no newline) into @out.
 * Return true when it is `binary` in text mode: the caller switches the
 * connection to frames once the answer is queued.
 */
static bool own_request(struct collector *c, struct client *cl,
			const char *line, struct dta_buf *out)
{
	const char *names[DTA_CONFIG_MAX_STRUCTURES];
	const struct dta_layout *layouts[DTA_CONFIG_MAX_STRUCTURES];
	struct coll_own_ctx x = { .names = names, .layouts = layouts,
				  .n = c->n, .remote = cl->tls,
				  .binary = cl->binary };
	struct coll_own_req *q = &c->own_req;

	for (size_t i = 0; i < c->n; i++) {
		names[i] = c->cs[i].name;
		layouts[i] = dta_region_layout(c->r[i]);
	}
	coll_own_parse(&x, line, q);
	if (q->kind == COLL_OWN_ERROR) {
		put_error(c, out, q->error);
	} else if (q->kind == COLL_OWN_BINARY) {
		char a[64];

		dta_buf_put(out, a, (size_t)snprintf(a, sizeof(a),
			    "{\"binary\":1,\"max_frame\":%u}", DTA_FRAME_MAX));
		return true;
	} else {
		handle_own(c, cl, q, out);
	}
	return false;
}

/* A `wait` line: answered now (error, or the sequence moved already) or
 * armed, its answer then written by answer_waits(). Return false for any
 * other request. */
static bool wait_request(struct collector *c, struct client *cl,
			 const char *line)
{
	const char *names[DTA_CONFIG_MAX_STRUCTURES];
	struct dta_region *r[DTA_CONFIG_MAX_STRUCTURES];
	size_t real[DTA_CONFIG_MAX_STRUCTURES], n = 0;
	char copy[LINE_MAX_BYTES], *w[4], a[COLL_WAIT_ANSWER_MAX];
	int nw, k;

	snprintf(copy, sizeof(copy), "%s", line);
	nw = tool_split(copy, w, 4);
	if (nw == 0 || strcmp(w[0], "wait"))
		return false;
	/* A remote client waits only on what it may read: another structure
	 * is, to it, one that does not exist. */
	for (size_t i = 0; i < c->n; i++) {
		if (cl->tls && !dta_config_may_read(&c->cs[i], cl->reader))
			continue;
		names[n] = c->cs[i].name;
		r[n] = c->r[i];
		real[n++] = i;
	}
	k = coll_wait_request(&cl->wait, w, nw, r, names, n, a);
	if (cl->wait.on)
		cl->wait.s = (unsigned)real[cl->wait.s];
	dta_buf_put(&cl->out, a, (size_t)k);
	c->errors += k && !memcmp(a, "{\"error\"", 8);
	return true;
}

/* Answer one text request of @len bytes (NUL-terminated at @len); a
 * point query may be queued in the session: its answer is written when
 * the run ends. */
static void handle_line(struct collector *c, struct client *cl, char *line,
			size_t len)
{
	c->requests++;
	/* The executor's requests first: they are the many. */
	if (dta_exec_text(cl->sess, line, len, &cl->out) == 0)
		return;
	/* Not the executor's: the queue was flushed, answers stay in order. */
	if (wait_request(c, cl, line))
		return;
	if (own_request(c, cl, line, &cl->out))
		cl->binary = true; /* what follows its newline is frames */
	if (!cl->busy) /* else job_finish() answers */
		dta_buf_put(&cl->out, "\n", 1);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * Answer the request frame of @len bytes at @f (its length checked by
 * dta_frame_length()). Return -1 when it is malformed: the connection
 * must end, as nothing after it can be framed.
 */
static int handle_frame(struct collector *c, struct client *cl,
			const uint8_t *f, size_t len)
{
	size_t tl = len - DTA_FRAME_REQ_HDR;
	char line[LINE_MAX_BYTES];
	struct dta_buf js = { 0 };
	uint64_t errors = cl->out.errors;
	int rc;

	rc = dta_exec_frame(cl->sess, f, len, &cl->out);
	if (rc < 0)
		return -1;
	c->requests++;
	c->frames++;
	if (rc == 0) {
		/* Keys of point queries answered (not an error answer). */
		if (f[4] >= DTA_FRAME_KW && f[4] <= DTA_FRAME_KI &&
		    cl->out.errors == errors)
			c->keys += be32(f + 12);
		return 0;
	}
	/* A TEXT request the executor left to us. */
	if (tl > DTA_EXEC_REQUEST_MAX || memchr(f + DTA_FRAME_REQ_HDR, 0, tl)) {
		dta_frame_answer_error(&cl->out, f, EINVAL, tl >
				       DTA_EXEC_REQUEST_MAX ? "request too long"
				       : "a NUL byte in the request");
		return 0;
	}
	memcpy(line, f + DTA_FRAME_REQ_HDR, tl);
	line[tl] = 0;
	own_request(c, cl, line, &js);
	if (cl->busy) { /* job_finish() answers, with this header */
		c->job.frame = true;
		memcpy(c->job.hdr, f, DTA_FRAME_REQ_HDR);
	} else if (js.oom)
		cl->out.oom = true;
	else
		dta_frame_answer_text(&cl->out, f, js.p, js.len);
	dta_buf_free(&js);
	return 0;
}

static void drop_client(struct client *cl)
{
	coll_tls_conn_free(cl->tls);
	cl->tls = NULL;
	close(cl->fd);
	cl->fd = -1;
	cl->len = 0;
	cl->eof = cl->skipping = cl->binary = false;
	free(cl->in);
	cl->in = NULL;
	cl->in_cap = 0;
	dta_buf_free(&cl->out);
	cl->out_sent = 0;
	dta_exec_session_destroy(cl->sess);
	cl->sess = NULL;
	cl->wait.on = false;
	cl->busy = false; /* a job's answer finds no one (struct own_job) */
}

static void drop_client_why(struct client *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void drop_client_why(struct client *cl, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (cl->tls)
		tool_log(LOG_INFO, "remote client %s: %s; connection closed",
			 cl->reader, why);
	else
		tool_log(LOG_INFO, "client (uid %d): %s; connection closed",
			 (int)cl->uid, why);
	drop_client(cl);
}

/* Send what the socket takes now. Return -1 if the client is gone. */
static int flush_out(struct client *cl)
{
	while (unsent(cl)) {
		ssize_t n = cl->tls ? coll_tls_conn_write(cl->tls, cl->out.p +
							  cl->out_sent, unsent(cl))
				    : send(cl->fd, cl->out.p + cl->out_sent,
					   unsent(cl), MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		cl->out_sent += (size_t)n;
		cl->last_ns = tool_now_ns();
	}
	cl->out.len = cl->out_sent = 0;
	if (cl->out.cap > OUT_CAP) /* a huge answer is gone: its memory too */
		dta_buf_free(&cl->out);
	return 0;
}

/* Keep the unsent answers at the start of cl->out. */
static void out_compact(struct client *cl)
{
	if (cl->out_sent) {
		memmove(cl->out.p, cl->out.p + cl->out_sent, unsent(cl));
		cl->out.len -= cl->out_sent;
		cl->out_sent = 0;
	}
}

/*
 * Binary mode: answer the complete frames in in[] while the answers fit
 * under the cap, into cl->out. Then make room for the frame being read
 * (in[] doubles as it fills, up to the frame's length, at most
 * DTA_FRAME_MAX, and shrinks back when a large one is gone). A frame cut short by the client's end of sending is
 * dropped. Return -1 when an answer could not be queued (out of memory),
 * -2 for a malformed frame (the connection must end).
 */
static int answer_frames(struct collector *c, struct client *cl)
{
	size_t pos = 0, want = IN_BYTES + 1;
	long fl = 0;
	int rc = 0;

	while (pos < cl->len && unsent(cl) < OUT_CAP && !cl->busy) {
		fl = dta_frame_length(cl->in + pos, cl->len - pos);
		if (fl < 0 || (fl > 0 && (size_t)fl <= cl->len - pos &&
			       handle_frame(c, cl, (const uint8_t *)cl->in + pos,
					    (size_t)fl))) {
			rc = -2;
			break;
		}
		if (fl == 0 || (size_t)fl > cl->len - pos) {
			if (cl->eof)
				pos = cl->len; /* the rest never comes */
			break;
		}
		pos += (size_t)fl;
	}
	memmove(cl->in, cl->in + pos, cl->len - pos);
	cl->len -= pos;
	if (rc)
		return rc;
	fl = dta_frame_length(cl->in, cl->len);
	if (fl > 0 && (size_t)fl + 1 > want) {
		/* Grow as its bytes arrive, doubling when full, not at once
		 * to what a header claims: 64 clients could claim 16 MiB
		 * each and send nothing more. */
		want = cl->in_cap;
		if (cl->len + 1 >= cl->in_cap)
			want = (size_t)fl + 1 < 2 * cl->in_cap ? (size_t)fl + 1
							      : 2 * cl->in_cap;
	}
	if (want < cl->len + 1)
		want = cl->len + 1;
	if (want != cl->in_cap) {
		char *p = realloc(cl->in, want);

		if (!p && want > cl->in_cap)
			return -1;
		if (p) {
			cl->in = p;
			cl->in_cap = want;
		}
	}
	return cl->out.oom ? -1 : 0;
}

/*
 * Text mode: answer the complete requests in in[] while the answers fit
 * under the cap, into cl->out (sent once for them all). A request is at
 * most DTA_EXEC_REQUEST_MAX bytes before its newline; a longer one is
 * answered with one error and skipped to its newline. Stops after
 * `binary`: what follows is frames. Return -1 when an answer could not be
 * queued (out of memory).
 */
static int answer_lines(struct collector *c, struct client *cl)
{
	static const char too_long[] = "{\"error\":\"request too long (the "
		"limit is " STR(DTA_EXEC_REQUEST_MAX) " bytes)\"}\n";
	size_t pos = 0;

	while (pos < cl->len && unsent(cl) < OUT_CAP && !cl->binary &&
	       !cl->wait.on && !cl->busy) {
		char *line = cl->in + pos;
		size_t avail = cl->len - pos, n;
		char *nl = memchr(line, '\n', avail);

		if (!nl && cl->eof && !cl->skipping) {
			/* The last request may lack its newline. */
			nl = line + avail;
			pos++; /* for the newline it lacks */
		}
		if (!nl) {
			if (cl->skipping) {
				pos = cl->len;
			} else if (avail > DTA_EXEC_REQUEST_MAX) {
				dta_exec_text_flush(cl->sess, &cl->out);
				c->requests++;
				c->errors++;
				dta_buf_put(&cl->out, too_long, sizeof(too_long) - 1);
				cl->skipping = true;
				pos = cl->len;
			}
			break;
		}
		n = (size_t)(nl - line);
		pos += n + 1;
		if (cl->skipping) { /* the end of an over-long request */
			cl->skipping = false;
		} else if (n > DTA_EXEC_REQUEST_MAX) {
			dta_exec_text_flush(cl->sess, &cl->out);
			c->requests++;
			c->errors++;
			dta_buf_put(&cl->out, too_long, sizeof(too_long) - 1);
		} else {
			*nl = 0;
			handle_line(c, cl, line, n);
		}
	}
	dta_exec_text_flush(cl->sess, &cl->out);
	if (pos > cl->len) /* the last line, without its newline */
		pos = cl->len;
	memmove(cl->in, cl->in + pos, cl->len - pos);
	cl->len -= pos;
	return cl->out.oom ? -1 : 0;
}

/* Answer what in[] holds, lines or frames, and count. Return as
 * answer_frames(). */
static int answer_requests(struct collector *c, struct client *cl)
{
	uint64_t t0 = c->metrics ? tool_now_ns() : 0, n0 = c->requests;
	int rc;

	out_compact(cl);
	rc = cl->binary ? answer_frames(c, cl) : answer_lines(c, cl);
	if (c->metrics)
		metrics_hist_observe_n(&c->answer_ns, tool_now_ns() - t0,
				       c->requests - n0);
	c->errors += cl->out.errors;
	cl->out.errors = 0;
	return rc;
}

/* A malformed frame: send what was answered before it (as far as the
 * socket takes it now), say so (at most once a second), and close. */
static void drop_malformed(struct collector *c, struct client *cl)
{
	uint64_t now = tool_now_ns();

	(void)flush_out(cl);
	if (now - c->last_malformed_ns > 1000000000ull) {
		c->last_malformed_ns = now;
		drop_client_why(cl, "malformed frame (length or header "
				"wrong)");
		return;
	}
	drop_client(cl);
}

static void answer_and_send(struct collector *c, struct client *cl);

/* Answer, send, and close a client that is done; then its clocks: only
 * a request read whole resets the idle clock (bytes that end none do
 * not, or a byte a second would hold a slot for ever), and the bytes of
 * one not yet whole run against its own deadline (request_timeout). */
static void client_progress(struct collector *c, struct client *cl)
{
	uint64_t n0 = c->requests, now;

	answer_and_send(c, cl);
	if (cl->fd < 0)
		return;
	now = tool_now_ns();
	if (c->requests != n0)
		cl->last_ns = now;
	if (!cl->len && !cl->skipping)
		cl->req_ns = 0;
	else if (c->requests != n0 || !cl->req_ns)
		cl->req_ns = now;
}

static void answer_and_send(struct collector *c, struct client *cl)
{
	size_t before;
	bool capped, binary;
	int rc;

	/* Requests held back by the cap are answered once their
	 * predecessors are sent: if one send took them all, nothing else
	 * (no POLLOUT, perhaps no more input) would come back for them.
	 * That holds also when this round answered nothing because the cap
	 * was still reached when it began (a POLLOUT wake-up whose send then
	 * emptied the buffer): bench_socket hung there. A `binary` request
	 * also ends a round: the frames after it are answered in the next. */
	do {
		before = cl->len;
		capped = unsent(cl) >= OUT_CAP;
		binary = cl->binary;
		rc = answer_requests(c, cl);
		if (rc == -2) {
			drop_malformed(c, cl);
			return;
		}
		if (rc) {
			/* A request without its answer would desynchronise
			 * it. */
			drop_client_why(cl, "out of memory for an answer");
			return;
		}
		if (flush_out(cl) < 0) {
			drop_client(cl); /* it closed its end */
			return;
		}
	} while (!unsent(cl) && cl->len &&
		 (cl->len < before || capped || binary != cl->binary));
	if (cl->eof && !unsent(cl) && !cl->len && !cl->wait.on && !cl->busy)
		drop_client(cl);
}

static void client_input(struct collector *c, struct client *cl)
{
	size_t room = cl->in_cap - 1 - cl->len;
	ssize_t n = cl->tls ? coll_tls_conn_read(cl->tls, cl->in + cl->len, room)
			    : read(cl->fd, cl->in + cl->len, room);

	if (n < 0) {
		if (errno != EINTR && errno != EAGAIN)
			drop_client(cl);
		return;
	}
	if (n == 0)
		cl->eof = true;
	cl->len += (size_t)n;
	client_progress(c, cl);
}

static void accept_clients(struct collector *c)
{
	static const char full[] = "{\"error\":\"too many clients: the "
		"collector serves " STR(MAX_CLIENTS) " at a time; try again "
		"later\"}\n";

	for (;;) {
		int fd = accept4(c->listen_fd, NULL, NULL,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct ucred cr;
		socklen_t crlen = sizeof(cr);
		struct client *cl = NULL;

		if (fd < 0)
			return;
		for (int i = 0; i < MAX_CLIENTS && !cl; i++)
			if (c->cl[i].fd < 0)
				cl = &c->cl[i];
		if (!cl) {
			uint64_t now = tool_now_ns();
			char junk[4096];

			/* A fresh socket has room for one line. Closing with
			 * its request unread would turn the client's read
			 * into ECONNRESET before it saw the line: read it. */
			(void)!send(fd, full, sizeof(full) - 1,
				    MSG_DONTWAIT | MSG_NOSIGNAL);
			for (int k = 0; k < 16 && recv(fd, junk, sizeof(junk),
						       MSG_DONTWAIT) > 0; k++)
				;
			close(fd);
			c->refused++;
			if (now - c->last_refusal_ns > 1000000000ull) {
				tool_log(LOG_WARNING, "refused a client: %d "
					 "clients connected (%" PRIu64 " "
					 "refused so far)",
					 MAX_CLIENTS, c->refused);
				c->last_refusal_ns = now;
			}
			continue;
		}
		memset(cl, 0, sizeof(*cl));
		cl->in = malloc(IN_BYTES + 1);
		if (!cl->in || dta_exec_session_create(c->x, &cl->sess)) {
			static const char oom[] = "{\"error\":\"out of "
				"memory\"}\n";

			(void)!send(fd, oom, sizeof(oom) - 1,
				    MSG_DONTWAIT | MSG_NOSIGNAL);
			close(fd);
			free(cl->in);
			memset(cl, 0, sizeof(*cl));
			cl->fd = -1;
			tool_log(LOG_WARNING, "refused a client: out of memory");
			continue;
		}
		cl->in_cap = IN_BYTES + 1;
		cl->fd = fd;
		cl->uid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen)
				  ? (uid_t)-1 : cr.uid;
		cl->id = ++c->next_client_id;
		cl->last_ns = tool_now_ns();
	}
}

/* ---- remote clients (query_listen; collector/remote.c) ---- */

struct reader_ctx {
	const struct collector *c;
	const struct client *cl;
};

/* dta_exec_session_set_filter()'s predicate: structure @i's readers. */
static bool may_read(void *ctx, size_t i)
{
	const struct reader_ctx *r = ctx;

	return dta_config_may_read(&r->c->cs[i], r->cl->reader);
}

/* Remote connections take client slots as local ones do; their handshake
 * runs in the poll loop (remote_handshake()). */
static void accept_remote(struct collector *c)
{
	for (;;) {
		struct coll_tls_conn *t;
		struct client *cl = NULL;
		int fd = coll_remote_accept(c->remote, &t);

		if (fd == -EAGAIN)
			return;
		if (fd < 0) {
			if (fd == -ECONNABORTED || fd == -EINTR)
				continue;
			return; /* EMFILE...: poll says when to try again */
		}
		for (int i = 0; i < MAX_CLIENTS && !cl; i++)
			if (c->cl[i].fd < 0)
				cl = &c->cl[i];
		if (cl) {
			memset(cl, 0, sizeof(*cl));
			cl->fd = -1;
			cl->in = malloc(IN_BYTES + 1);
			if (!cl->in || dta_exec_session_create(c->x, &cl->sess)) {
				free(cl->in);
				cl->in = NULL;
				cl = NULL;
			}
		}
		if (!cl) {
			uint64_t now = tool_now_ns();

			/* No line to say so before TLS: just close. */
			coll_tls_conn_free(t);
			close(fd);
			c->refused++;
			if (now - c->last_refusal_ns > 1000000000ull) {
				tool_log(LOG_WARNING, "refused a remote client: "
					 "%d clients connected, or out of memory "
					 "(%" PRIu64 " refused so far)",
					 MAX_CLIENTS, c->refused);
				c->last_refusal_ns = now;
			}
			continue;
		}
		cl->in_cap = IN_BYTES + 1;
		cl->fd = fd;
		cl->tls = t;
		cl->uid = (uid_t)-1;
		cl->id = ++c->next_client_id;
		cl->last_ns = tool_now_ns();
	}
}

/* Advance @cl's handshake; once its certificate named it, it sees the
 * structures their readers let it read, and is served as any client. */
static void remote_handshake(struct collector *c, struct client *cl)
{
	struct reader_ctx rc_ = { c, cl };
	int rc = coll_tls_conn_handshake(c->remote, cl->tls, cl->reader);

	if (rc == 0)
		return;
	if (rc < 0) { /* logged and counted by remote.c */
		drop_client(cl);
		return;
	}
	rc = dta_exec_session_set_filter(cl->sess, may_read, &rc_);
	cl->nvisible = rc > 0 ? (size_t)rc : 0;
	cl->last_ns = tool_now_ns();
	tool_log(LOG_DEBUG, "remote client %s connected; it may read %zu of "
		 "%zu structures", cl->reader, cl->nvisible, c->n);
	/* Its first requests may have come with its last handshake bytes. */
	client_input(c, cl);
}

/* [collector] query_listen with tls_cert, tls_key, tls_ca. */
static int start_remote(struct collector *c)
{
	const char *listen = dta_config_collector_get(c->cfg, (size_t)c->idx,
						      "query_listen");
	const char *k[3] = { "tls_cert", "tls_key", "tls_ca" }, *v[3];

	if (!listen)
		return 0;
	for (int i = 0; i < 3; i++) {
		v[i] = dta_config_collector_get(c->cfg, (size_t)c->idx, k[i]);
		if (!v[i] || !*v[i]) {
			tool_log(LOG_ERR, "query_listen needs tls_cert, tls_key "
				 "and tls_ca: remote clients are served over "
				 "TLS with client certificates only (%s is not "
				 "set; docs/security.md \"Remote queries\")",
				 k[i]);
			return -1;
		}
	}
	if (coll_remote_start(listen, v[0], v[1], v[2], &c->remote))
		return -1;
	tool_log(LOG_INFO, "remote queries on %s (TLS, client certificates "
		 "of %s)", listen, v[2]);
	return 0;
}

/* Close clients idle (nothing unsent) or stalled (answers unsent, not
 * read) too long; return the milliseconds until the next such deadline
 * (at most @ms). */
static int client_timeouts(struct collector *c, int ms)
{
	uint64_t now = tool_now_ns();

	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &c->cl[i];
		uint64_t limit, left;

		if (cl->fd < 0)
			continue;
		if (cl->tls && !coll_tls_conn_ready(cl->tls)) {
			limit = COLL_REMOTE_HANDSHAKE_S * 1000000000ull;
			if (now - cl->last_ns >= limit) {
				coll_tls_conn_timed_out(c->remote, cl->tls);
				drop_client(cl);
				continue;
			}
			left = (limit - (now - cl->last_ns)) / 1000000 + 1;
			if (left < (uint64_t)ms)
				ms = (int)left;
			continue;
		}
		ms = coll_wait_timeout_ms(&cl->wait, now, ms);
		if ((cl->wait.on || cl->busy) && !unsent(cl))
			continue; /* waiting is not idling */
		if (cl->req_ns && c->request_ns && !unsent(cl)) {
			if (now - cl->req_ns >= c->request_ns) {
				c->request_closed++;
				drop_client_why(cl, "a request unfinished after "
						"%" PRIu64 " s (request_timeout)",
						c->request_ns / UINT64_C(1000000000));
				continue;
			}
			left = (c->request_ns - (now - cl->req_ns)) / 1000000 + 1;
			if (left < (uint64_t)ms)
				ms = (int)left;
		}
		limit = unsent(cl) ? c->stall_ns : c->idle_ns;
		if (!limit)
			continue;
		if (now - cl->last_ns >= limit) {
			if (unsent(cl)) {
				c->stalled++;
				drop_client_why(cl, "%zu bytes of answers unread "
						"for %" PRIu64 " s (stall_timeout)",
						unsent(cl), limit / UINT64_C(1000000000));
			} else {
				c->idle_closed++;
				drop_client_why(cl, "no request for %" PRIu64
						" s (idle_timeout)",
						limit / UINT64_C(1000000000));
			}
			continue;
		}
		left = (limit - (now - cl->last_ns)) / 1000000 + 1;
		if (left < (uint64_t)ms)
			ms = (int)left;
	}
	return ms;
}

/* The service manager's STATUS= line, when what it says has changed. */
static void service_status(struct collector *c)
{
	static uint64_t said_requests = UINT64_MAX;
	static unsigned said_clients;
	unsigned clients = 0;

	for (int i = 0; i < MAX_CLIENTS; i++)
		clients += c->cl[i].fd >= 0;
	if (c->requests == said_requests && clients == said_clients)
		return;
	said_requests = c->requests;
	said_clients = clients;
	tool_service_status("serving %zu structures on %s; %u clients, "
			    "%" PRIu64 " requests, %" PRIu64 " errors", c->n,
			    c->socket_path, clients, c->requests, c->errors);
}

/* Answer the waits whose structure moved or whose time is up, then the
 * requests they held back. */
static void answer_waits(struct collector *c)
{
	uint64_t now = tool_now_ns();
	bool any = false;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &c->cl[i];
		char a[COLL_WAIT_ANSWER_MAX];
		int k;

		if (cl->fd < 0)
			continue;
		k = coll_wait_check(&cl->wait, c->r, now, a);
		if (k) {
			dta_buf_put(&cl->out, a, (size_t)k);
			client_progress(c, cl);
		}
		any |= cl->fd >= 0 && cl->wait.on;
	}
	if (c->notify)
		coll_notify_want(c->notify, any);
}

static int api_timeout(struct collector *c, int ms)
{
#ifdef DTA_HAVE_MHD
	return coll_api_timeout(c->api, ms);
#else
	(void)c;
	return ms;
#endif
}

static void api_run(struct collector *c)
{
#ifdef DTA_HAVE_MHD
	coll_api_run(c->api);
#else
	(void)c;
#endif
}

static void api_stop(struct collector *c)
{
#ifdef DTA_HAVE_MHD
	coll_api_stop(c->api);
	c->api = NULL;
#else
	(void)c;
#endif
}

/* ---- snapshot and ki-reset off the loop (struct own_job) ---- */

/*
 * Test only (tests/e2e/snapshot_offloop.sh, docs/collector-protocol.md):
 * with DTA_COLLECTOR_TEST_JOB_GATE=PATH (a FIFO) in the environment, a
 * job first reads PATH to its end, so a test decides when it may finish
 * instead of guessing how long a large snapshot takes.
 */
static void job_test_gate(void)
{
	const char *gate = getenv("DTA_COLLECTOR_TEST_JOB_GATE");
	char b[64];
	int fd;

	if (!gate || !*gate)
		return;
	fd = open(gate, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (read(fd, b, sizeof(b)) > 0)
		;
	close(fd);
}

static void *job_thread(void *arg)
{
	struct collector *c = arg;
	struct own_job *j = &c->job;
	uint64_t one = 1;
	FILE *f;

	job_test_gate();
	j->answer = NULL;
	j->len = 0;
	f = open_memstream(&j->answer, &j->len);
	if (f) {
		if (!j->ki) {
			save_all(c, f);
		} else {
			int err = dta_ki_reset(dta_region_layout(c->r[j->i]),
					       dta_region_data(c->r[j->i]),
					       j->bank);

			if (err)
				fprintf(f, "{\"error\":\"%s\"}", dta_strerror(err));
			else
				fputs("{\"ok\":true}", f);
		}
		if (fclose(f)) {
			free(j->answer);
			j->answer = NULL;
		}
	}
	(void)!write(j->done_fd, &one, sizeof(one));
	return NULL;
}

/* Start the job c->job describes (ki, i, bank) for @cl: it is busy until
 * job_finish(). Signals go to the loop's thread, not this one. */
static int job_start(struct collector *c, struct client *cl)
{
	struct own_job *j = &c->job;
	sigset_t all, old;
	int err;

	if (j->done_fd < 0) {
		j->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (j->done_fd < 0)
			return -errno;
	}
	j->slot = (int)(cl - c->cl);
	j->client_id = cl->id;
	j->frame = false;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&j->th, NULL, job_thread, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	j->running = true;
	cl->busy = true;
	return 0;
}

/* The job is done (done_fd): its answer to its requester, if still
 * connected, then the requests that waited behind it. */
static void job_finish(struct collector *c)
{
	static const char oom[] = "{\"error\":\"out of memory\"}";
	struct own_job *j = &c->job;
	struct client *cl = &c->cl[j->slot];
	const char *a;
	size_t len;
	uint64_t v;

	if (!j->running || read(j->done_fd, &v, sizeof(v)) != sizeof(v))
		return;
	pthread_join(j->th, NULL);
	j->running = false;
	a = j->answer ? j->answer : oom;
	len = j->answer ? j->len : sizeof(oom) - 1;
	c->errors += len >= 8 && !memcmp(a, "{\"error\"", 8);
	if (cl->fd >= 0 && cl->id == j->client_id && cl->busy) {
		cl->busy = false;
		if (j->frame) {
			dta_frame_answer_text(&cl->out, j->hdr, a, len);
		} else {
			dta_buf_put(&cl->out, a, len);
			dta_buf_put(&cl->out, "\n", 1);
		}
		client_progress(c, cl);
	}
	free(j->answer);
	j->answer = NULL;
}

/* At shutdown: a job running ends first (its snapshot is whole). */
static void job_wait(struct collector *c)
{
	if (c->job.running) {
		tool_log(LOG_INFO, "waiting for a snapshot or ki-reset to "
			 "finish");
		pthread_join(c->job.th, NULL);
		c->job.running = false;
		free(c->job.answer);
		c->job.answer = NULL;
	}
	if (c->job.done_fd >= 0)
		close(c->job.done_fd);
	c->job.done_fd = -1;
}

/* The loop's own descriptors besides the clients': each one that is
 * readable runs its handler. */
struct source {
	int fd;
	void (*run)(struct collector *c);
};

#ifdef DTA_HAVE_RDMA
static void rdma_run(struct collector *c)
{
	coll_rdma_handle(c->rdma);
}
#endif

static void metrics_run(struct collector *c)
{
	metrics_server_run(c->metrics);
}

static void notify_run(struct collector *c)
{
	coll_notify_drain(c->notify);
}

/* Fills @s with the sources this collector has; returns how many. */
static int sources(struct collector *c, struct source *s)
{
	int n = 0;

	s[n++] = (struct source){ c->listen_fd, accept_clients };
#ifdef DTA_HAVE_RDMA
	if (c->rdma)
		s[n++] = (struct source){ coll_rdma_fd(c->rdma), rdma_run };
#endif
	if (c->metrics)
		s[n++] = (struct source){ metrics_server_fd(c->metrics),
					  metrics_run };
	if (c->notify)
		s[n++] = (struct source){ coll_notify_fd(c->notify),
					  notify_run };
	if (c->remote)
		s[n++] = (struct source){ coll_remote_fd(c->remote),
					  accept_remote };
#ifdef DTA_HAVE_MHD
	if (c->api)
		s[n++] = (struct source){ coll_api_fd(c->api), api_run };
#endif
	if (c->job.running)
		s[n++] = (struct source){ c->job.done_fd, job_finish };
	return n;
}

#define MAX_SOURCES 7

static void serve(struct collector *c)
{
	uint64_t next_status = tool_now_ns() + 5000000000ull;

	while (!stop_signal) {
		struct source src[MAX_SOURCES];
		struct pollfd p[MAX_CLIENTS + MAX_SOURCES];
		int idx[MAX_CLIENTS + MAX_SOURCES], ns, np, n, ms;
		bool pend[MAX_CLIENTS + MAX_SOURCES] = { false };
		bool any_pend = false;
		uint64_t now;

		/* p[k] for k < ns is source k; the clients follow. */
		ns = sources(c, src);
		for (np = 0; np < ns; np++)
			p[np] = (struct pollfd){ .fd = src[np].fd,
						 .events = POLLIN };
		for (int i = 0; i < MAX_CLIENTS; i++) {
			struct client *cl = &c->cl[i];

			if (cl->fd < 0)
				continue;
			p[np].fd = cl->fd;
			p[np].events = 0;
			if (cl->tls && !coll_tls_conn_ready(cl->tls)) {
				p[np].events = coll_tls_conn_events(cl->tls);
				idx[np++] = i;
				continue;
			}
			if (!cl->eof && unsent(cl) < OUT_CAP &&
			    cl->len + 1 < cl->in_cap) {
				p[np].events |= POLLIN;
				/* Records TLS already decrypted: the socket
				 * may have nothing more to say. */
				pend[np] = cl->tls &&
					   coll_tls_conn_pending(cl->tls);
				any_pend |= pend[np];
			}
			if (unsent(cl))
				p[np].events |= POLLOUT;
			idx[np++] = i;
		}
		ms = api_timeout(c, metrics_server_timeout(c->metrics,
			tool_service_timeout_ms(tool_now_ns(),
						client_timeouts(c, 500))));
		n = poll(p, (nfds_t)np, any_pend ? 0 : ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			tool_log(LOG_ERR, "poll: %s", strerror(errno));
			return;
		}
		if (n == 0 && !any_pend) { /* MHD's timeouts, API deadlines */
			metrics_server_run(c->metrics);
			api_run(c);
		}
		/* The watchdog's keep-alive comes from this loop only: a
		 * collector stuck in a request stops sending it. */
		now = tool_now_ns();
		tool_service_alive(now, true);
		if (now >= next_status) {
			service_status(c);
			next_status = now + 5000000000ull;
		}
		/* The sources, then the clients, new clients last. */
		for (int k = 1; k < ns; k++)
			if (p[k].revents)
				src[k].run(c);
		for (int k = ns; k < np; k++) {
			struct client *cl = &c->cl[idx[k]];

			if ((!p[k].revents && !pend[k]) || cl->fd < 0)
				continue;
			if (cl->tls && !coll_tls_conn_ready(cl->tls))
				remote_handshake(c, cl);
			else if ((p[k].events & POLLIN) &&
			    (pend[k] ||
			     (p[k].revents & (POLLIN | POLLHUP | POLLERR))))
				client_input(c, cl);
			else
				client_progress(c, cl);
		}
		if (p[0].revents & POLLIN)
			src[0].run(c); /* accept_clients() */
		answer_waits(c);
	}
}

/* Key-Increment epochs: [collector] epoch_dir, else SNAPSHOT_DIR/epochs,
 * else /var/lib/dta/epochs (docs/layouts.md "Epochs"). */
static int start_epochs(struct collector *c)
{
	static char dir[4096];
	struct coll_epochs_opts o = { .collector = c->name, .n = c->n };

	o.dir_default = !tool_epoch_dir(c->cfg, (size_t)c->idx, c->snapshot_dir,
					dir, sizeof(dir));
	o.dir = dir;
	for (size_t i = 0; i < c->n; i++) {
		o.s[i].name = c->cs[i].name;
		o.s[i].layout = dta_region_layout(c->r[i]);
		o.s[i].area = dta_region_data(c->r[i]);
		o.s[i].epoch_s = c->cs[i].epoch_s;
	}
	return coll_epochs_start(&o, &c->epochs) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "collector", required_argument, NULL, 'C' },
		{ "socket", required_argument, NULL, 's' },
		{ "snapshot-dir", required_argument, NULL, 'd' },
		{ "restore", no_argument, NULL, 'r' },
		{ "no-huge", no_argument, NULL, 'H' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "metrics", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	static struct collector c = { .job = { .done_fd = -1 } };
	const char *cfg_path = NULL, *sock = NULL, *v, *me = NULL;
	const char *metrics_listen = NULL;
	bool huge = true, force = false, restore = false;
	struct sigaction sa = { .sa_handler = on_signal };
	char err[256];
	int opt, rc = 1;

	tool_log_init("dta-collector");
	while ((opt = getopt_long(argc, argv, "c:C:s:d:rfqh", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': cfg_path = optarg; break;
		case 'C': me = optarg; break;
		case 's': sock = optarg; break;
		case 'd': c.snapshot_dir = optarg; break;
		case 'r': restore = true; break;
		case 'H': huge = false; break;
		case 'f': force = true; break;
		case 'q': tool_log_quiet(true); break;
		case 'M': metrics_listen = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("dta-collector %s\n", DTA_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!cfg_path || optind != argc) {
		usage(stderr);
		return 2;
	}
	dta_set_log(tool_log_lib);
	opt = dta_config_load(cfg_path, &c.cfg, err, sizeof(err));
	if (opt) {
		if (opt == -DTA_E_MALFORMED) /* err names the file */
			tool_log(LOG_ERR, "%s", err);
		else
			tool_log(LOG_ERR, "%s: %s", cfg_path,
				dta_strerror(opt));
		return 1;
	}
	c.idx = dta_config_collector_find(c.cfg, me);
	if (c.idx < 0) {
		tool_log(LOG_ERR, "%s has no [collector %s]",
			cfg_path, me);
		goto out;
	}
	for (size_t i = 0; i < dta_config_count(c.cfg); i++)
		opt |= dta_config_share(dta_config_structure(c.cfg, i),
					(size_t)c.idx) >= 0;
	if (!opt) {
		tool_log(LOG_ERR, "%s declares no structures for "
			"this collector%s%s", cfg_path, me ? " " : "",
			me ? me : "");
		goto out;
	}
	c.name = dta_config_collector_id(c.cfg, (size_t)c.idx);
	if (socket_setup(&c, sock) || client_limits(&c))
		goto out;
	if (!c.snapshot_dir)
		c.snapshot_dir = dta_config_collector_get(c.cfg, (size_t)c.idx,
							  "snapshot_dir");
	v = dta_config_collector_get(c.cfg, (size_t)c.idx, "restore");
	restore |= yes(v);
	v = dta_config_collector_get(c.cfg, (size_t)c.idx, "huge_pages");
	if (v && !yes(v))
		huge = false;
	v = dta_config_collector_get(c.cfg, (size_t)c.idx, "shared_memory");
	c.anon = v && !yes(v);
	if (c.anon && !dta_config_collector_get(c.cfg, (size_t)c.idx,
						"rdma_bind"))
		tool_log(LOG_WARNING, "shared_memory = no and no rdma_bind: no "
			 "translator can write these structures (local "
			 "translators need shared memory)");
	if (dta_config_collector_mode(c.cfg, (size_t)c.idx, "shm_mode", 0600,
			     &c.shm_mode)) {
		tool_log(LOG_ERR, "shm_mode is not octal");
		goto out;
	}
	if (restore && !c.snapshot_dir) {
		tool_log(LOG_ERR, "--restore needs a snapshot "
			"directory");
		goto out;
	}
	if (c.snapshot_dir && snapshot_dir_ok(c.snapshot_dir))
		goto out;
	if (!c.anon && shm_dir_ok(&c))
		goto out;
	for (int i = 0; i < MAX_CLIENTS; i++)
		c.cl[i].fd = -1;
	c.listen_fd = -1;
	c.started_ns = tool_now_ns();
	if (dta_exec_create(&c.x)) {
		tool_log(LOG_ERR, "out of memory");
		goto out;
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	tool_service_init();
	tool_service_status("starting: creating the structures");

	if (start_remote(&c) || listen_on(&c) ||
	    open_regions(&c, huge, force, restore))
		goto out;
	if (start_rdma(&c) || start_metrics(&c, metrics_listen) ||
	    start_api(&c))
		goto out;
	opt = coll_notify_start(c.r, c.n, &c.notify);
	if (opt) {
		tool_log(LOG_ERR, "notifier: %s", strerror(-opt));
		goto out;
	}
	if (start_epochs(&c))
		goto out;
	tool_log(LOG_INFO, "serving %zu structures on %s", c.n, c.socket_path);
	/* One line on stdout when ready, for scripts that start us; and
	 * READY=1 for a service manager (Type=notify). */
	printf("ready %s\n", c.socket_path);
	fflush(stdout);
	tool_service_ready("serving %zu structures on %s", c.n, c.socket_path);
	serve(&c);
	job_wait(&c);
	coll_epochs_stop(c.epochs);
	c.epochs = NULL;
	coll_notify_stop(c.notify);
	c.notify = NULL;
	metrics_server_stop(c.metrics);
	c.metrics = NULL;
	api_stop(&c);
	tool_log(LOG_INFO, "%s: shutting down",
		 stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
	tool_service_stopping("shutting down: retiring the regions%s",
			      c.snapshot_dir ? ", writing snapshots" : "");
	rc = 0;
#ifdef DTA_HAVE_RDMA
	/* Disconnect RDMA translators before the snapshot: every write they
	 * saw complete is then in it, and what did not complete they keep
	 * and re-send to the next collector (Append). */
	coll_rdma_stop(c.rdma);
	c.rdma = NULL;
#endif
	if (shut_down(&c))
		rc = 1;
out:
	job_wait(&c);
	coll_epochs_stop(c.epochs);
	coll_notify_stop(c.notify);
	metrics_server_stop(c.metrics);
	api_stop(&c);
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (c.cl[i].fd >= 0)
			drop_client(&c.cl[i]);
	coll_remote_stop(c.remote);
	if (c.listen_fd >= 0) {
		close(c.listen_fd);
		unlink(c.socket_path);
	}
#ifdef DTA_HAVE_RDMA
	coll_rdma_stop(c.rdma);
#endif
	dta_exec_destroy(c.x); /* before the memory it reads */
	/* Objects go with a clean exit. After a failed snapshot they all
	 * stay; after a failed start, the ones we reattached stay (they may
	 * hold a dead collector's data). */
	for (size_t i = 0; i < c.n; i++) {
		dta_region_destroy(c.r[i]);
		if (!c.anon && !c.keep_shm && !(rc && c.reattached[i]))
			dta_region_shm_unlink_in(c.shm_dir, c.shm[i]);
	}
	dta_config_destroy(c.cfg);
	return rc;
}
