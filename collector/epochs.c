/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Closing Key-Increment epochs (collector/epochs.h, docs/layouts.md
 * "Epochs"). Epoch e of a structure with epoch length T ends at (e+1)*T;
 * its bank (e % 2) is written again from (e+2)*T. The closer waits the
 * grace period G = min(T/4, 5 s) after the end, copies the bank, writes
 * the copy's non-zero counters to DIR/STRUCTURE.e.epoch (durable: tmp,
 * fsync, rename, fsync of the directory), and only then subtracts the
 * copy from the bank. The file is the only copy of those counts after
 * that, so a failure to write it leaves the bank as it is, counted and
 * logged, and the close is retried every second until the bank is written
 * again; from then the bank holds epoch e + 2 on top of e, and both go
 * into e + 2's file (counted as abandoned: nothing is lost, the counts of
 * e are attributed to e + 2).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "epochs.h"
#include "log.h"
#include "tools.h"

#define NS 1000000000ull
#define RETRY_NS NS /* a failed close is tried again this often */

enum fail_cause { FAIL_DIR, FAIL_WRITE, FAIL_MEMORY, FAIL_CAUSES };
static const char *const cause_name[FAIL_CAUSES] = { "dir", "write",
						      "memory" };

struct ep_struct {
	const char *name;
	const struct dta_layout *l;
	void *area;
	uint64_t len_ns, grace_ns;
	uint64_t next;    /* the next epoch to close */
	uint64_t *copy;   /* one bank */
	uint64_t *base;   /* an earlier run's file of epoch next, or NULL */
	uint64_t base_epoch; /* next + 1 once base was looked for; 0: not */
	bool failing;     /* the last attempt failed */
	char said[256];   /* the reason last logged */
	bool said_abandon; /* an abandon was logged since the last close */
	uint64_t retry_ns; /* wall time of the next attempt after a failure */
};

struct coll_epochs {
	const char *collector, *dir;
	bool dir_default;
	size_t n;
	struct ep_struct s[DTA_CONFIG_MAX_STRUCTURES];
	pthread_t th;
	pthread_mutex_t lock; /* stop and its condition only */
	pthread_cond_t cond;
	bool stop;
	/* Counters (stats "epochs"): read by the query loop. */
	atomic_uint_fast64_t closed, files, counters, increments, late,
		abandoned, failed[FAIL_CAUSES];
	atomic_uint_fast64_t pending; /* epochs over their grace, not closed */
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

/* The directory exists (0700 when we make it), is a directory (not a
 * symlink) owned by us or root and neither group nor others can write it
 * (tool_private_dir(), as the snapshot directory): nobody else can plant or
 * replace the files an exporter ships and deletes. */
static int dir_ok(struct coll_epochs *e, char *why, size_t cap)
{
	int fd;

	if (e->dir_default) {
		char parent[4096];
		char *slash;

		snprintf(parent, sizeof(parent), "%s", e->dir);
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = 0;
			if (mkdir(parent, 0700) != 0 && errno != EEXIST) {
				snprintf(why, cap, "cannot create %s: %s",
					 parent, strerror(errno));
				return -1;
			}
		}
	}
	fd = tool_private_dir(e->dir, why, cap);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* A file of this epoch from an earlier run (a collector restarted
 * within the epoch after closing it) is read once, at the first attempt,
 * into s->base: rewriting the file then keeps its counts. A file this run
 * wrote itself (a failure after the rename) is not merged again. */
static int load_base(const char *path, struct ep_struct *s, uint64_t n)
{
	struct dta_epoch *old;
	struct dta_epoch_counter c;
	int err;

	if (s->base_epoch == s->next + 1)
		return 0;
	free(s->base);
	s->base = NULL;
	s->base_epoch = s->next + 1;
	err = dta_epoch_read(path, &old);
	if (err == -ENOENT)
		return 0;
	if (err)
		goto fail;
	err = -DTA_E_MISMATCH;
	if (dta_epoch_meta(old)->layout.g.ki.width != s->l->g.ki.width ||
	    dta_epoch_meta(old)->layout.g.ki.rows != s->l->g.ki.rows)
		goto fail_old;
	err = -ENOMEM;
	s->base = calloc(n, sizeof(*s->base));
	if (!s->base)
		goto fail_old;
	for (uint64_t i = 0; i < dta_epoch_meta(old)->counters; i++) {
		dta_epoch_counter(old, i, &c);
		s->base[c.row * s->l->g.ki.width + c.column] += c.count;
	}
	dta_epoch_destroy(old);
	return 0;

fail_old:
	dta_epoch_destroy(old);
fail:
	s->base_epoch = 0; /* read it again next time */
	return err;
}

static void base_done(struct ep_struct *s)
{
	free(s->base);
	s->base = NULL;
	s->base_epoch = 0;
}

static void fail(struct coll_epochs *e, struct ep_struct *s,
		 enum fail_cause cause, uint64_t now, const char *why)
{
	atomic_fetch_add(&e->failed[cause], 1);
	/* Said once per failure, and again when the reason changes. */
	if (!s->failing || strncmp(s->said, why, sizeof(s->said) - 1))
		tool_log(LOG_ERR, "%s: epoch %" PRIu64 " not closed (%s): %s; "
			 "bank %" PRIu64 " is kept as it is and the close is "
			 "retried every second", s->name, s->next,
			 cause_name[cause], why, s->next % 2);
	snprintf(s->said, sizeof(s->said), "%s", why);
	s->failing = true;
	s->retry_ns = now + RETRY_NS;
}

/* Close epoch s->next. 0, or -1 with the failure counted. */
static int close_one(struct coll_epochs *e, struct ep_struct *s, uint64_t now)
{
	struct dta_epoch_meta m = { .epoch = s->next, .epoch_len_ns = s->len_ns,
				    .closed_ns = now,
				    .bank = (unsigned)(s->next % 2),
				    .layout = *s->l };
	uint64_t n = (uint64_t)s->l->g.ki.rows * s->l->g.ki.width, late = 0;
	uint64_t *out = s->copy;
	char why[9000], name[DTA_EPOCH_NAME_MAX + 32], path[4096 + 128];
	bool any = false;
	int err;

	if (dir_ok(e, why, sizeof(why))) {
		fail(e, s, FAIL_DIR, now, why);
		return -1;
	}
	dta_ki_copy(s->l, s->area, m.bank, s->copy);
	for (uint64_t i = 0; i < n && !any; i++)
		any = s->copy[i] != 0;
	if (any) {
		snprintf(m.collector, sizeof(m.collector), "%s", e->collector);
		snprintf(m.structure, sizeof(m.structure), "%s", s->name);
		dta_epoch_name(name, sizeof(name), s->name, s->next);
		snprintf(path, sizeof(path), "%s/%s", e->dir, name);
		err = load_base(path, s, n);
		if (err) {
			snprintf(why, sizeof(why), "%s exists and cannot be "
				 "read: %s (move it aside)", path,
				 dta_strerror(err));
			fail(e, s, err == -ENOMEM ? FAIL_MEMORY : FAIL_WRITE,
			     now, why);
			return -1;
		}
		if (s->base) {
			out = malloc(n * sizeof(*out));
			if (!out) {
				fail(e, s, FAIL_MEMORY, now, "out of memory");
				return -1;
			}
			for (uint64_t i = 0; i < n; i++)
				out[i] = s->copy[i] + s->base[i];
		}
		err = dta_epoch_write(path, &m, out);
		if (out != s->copy)
			free(out);
		if (err) {
			snprintf(why, sizeof(why), "writing %s: %s", path,
				 dta_strerror(err));
			fail(e, s, FAIL_WRITE, now, why);
			return -1;
		}
		atomic_fetch_add(&e->files, 1);
		atomic_fetch_add(&e->counters, m.counters);
		/* The file may hold a merged earlier file: count only this
		 * bank's row 0. */
		{
			uint64_t inc = 0;

			for (uint64_t i = 0; i < s->l->g.ki.width; i++)
				inc += s->copy[i];
			atomic_fetch_add(&e->increments, inc);
		}
		/* Durable: now the bank may give the counts up. */
		dta_ki_subtract(s->l, s->area, m.bank, s->copy, &late);
		atomic_fetch_add(&e->late, late);
	}
	base_done(s);
	s->said_abandon = false;
	if (s->failing)
		tool_log(LOG_INFO, "%s: epoch %" PRIu64 " closed after all",
			 s->name, s->next);
	s->failing = false;
	atomic_fetch_add(&e->closed, 1);
	return 0;
}

/* Close what is due of @s at @now; returns ns until its next deadline. */
static uint64_t run_one(struct coll_epochs *e, struct ep_struct *s,
			uint64_t now)
{
	for (;;) {
		uint64_t due = (s->next + 1) * s->len_ns + s->grace_ns;

		/* Its bank is being written again, for epoch next + 2: give
		 * next up (its counts go with next + 2), so that next + 1,
		 * in the other bank, is closed in time. */
		if (now >= (s->next + 2) * s->len_ns) {
			atomic_fetch_add(&e->abandoned, 1);
			/* Once per failure streak: a directory that stays
			 * broken would say it every epoch (the counter goes
			 * on counting). */
			if (!s->said_abandon)
				tool_log(LOG_WARNING, "%s: epoch %" PRIu64 " was "
					 "not closed before its bank was reused: "
					 "its counts go with epoch %" PRIu64 " (and "
					 "so on while closing fails; "
					 "epochs_abandoned counts them)", s->name,
					 s->next, s->next + 2);
			s->said_abandon = true;
			base_done(s);
			s->next++;
			continue; /* still failing: its reason is not said again */
		}
		if (now < due)
			return due - now;
		if (s->failing && now < s->retry_ns)
			return s->retry_ns - now;
		if (close_one(e, s, now))
			return RETRY_NS;
		s->next++;
	}
}

static void *closer(void *arg)
{
	struct coll_epochs *e = arg;

	pthread_mutex_lock(&e->lock);
	while (!e->stop) {
		uint64_t now, wait = RETRY_NS, pending = 0;
		struct timespec ts;

		pthread_mutex_unlock(&e->lock);
		now = wall_ns();
		for (size_t i = 0; i < e->n; i++) {
			struct ep_struct *s = &e->s[i];
			uint64_t w;

			if (!s->len_ns)
				continue;
			w = run_one(e, s, now);
			if (w < wait)
				wait = w;
			pending += s->failing &&
				   now >= (s->next + 1) * s->len_ns + s->grace_ns;
		}
		atomic_store(&e->pending, pending);
		pthread_mutex_lock(&e->lock);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)(wait / NS);
		ts.tv_nsec += (long)(wait % NS);
		if (ts.tv_nsec >= (long)NS) {
			ts.tv_sec++;
			ts.tv_nsec -= (long)NS;
		}
		if (!e->stop)
			pthread_cond_timedwait(&e->cond, &e->lock, &ts);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

int coll_epochs_start(const struct coll_epochs_opts *o,
		      struct coll_epochs **out)
{
	struct coll_epochs *e;
	pthread_condattr_t ca;
	uint64_t now = wall_ns();
	size_t with = 0;
	int err;

	*out = NULL;
	for (size_t i = 0; i < o->n; i++)
		with += o->s[i].epoch_s != 0;
	if (!with)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->collector = o->collector;
	e->dir = o->dir;
	e->dir_default = o->dir_default;
	e->n = o->n;
	for (size_t i = 0; i < o->n; i++) {
		struct ep_struct *s = &e->s[i];
		uint64_t cur;

		if (!o->s[i].epoch_s)
			continue;
		s->name = o->s[i].name;
		s->l = o->s[i].layout;
		s->area = o->s[i].area;
		s->len_ns = (uint64_t)o->s[i].epoch_s * NS;
		s->grace_ns = dta_epoch_grace_ns(s->len_ns);
		/* The first epoch closed is the one before the current:
		 * whatever a previous run left in its bank goes with it. */
		dta_epoch_at(now, s->len_ns, &cur);
		s->next = cur ? cur - 1 : 0;
		s->copy = malloc((size_t)s->l->g.ki.rows * s->l->g.ki.width *
				 sizeof(uint64_t));
		if (!s->copy) {
			err = -ENOMEM;
			goto err_free;
		}
		tool_log(LOG_INFO, "%s: epochs of %u s (grace %.3f s) into %s; "
			 "first to close: %" PRIu64, s->name, o->s[i].epoch_s,
			 (double)s->grace_ns / 1e9, e->dir, s->next);
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->cond, &ca);
	pthread_condattr_destroy(&ca);
	err = -pthread_create(&e->th, NULL, closer, e);
	if (err) {
		pthread_cond_destroy(&e->cond);
		pthread_mutex_destroy(&e->lock);
		goto err_free;
	}
	*out = e;
	return 0;

err_free:
	for (size_t i = 0; i < e->n; i++)
		free(e->s[i].copy);
	free(e);
	tool_log(LOG_ERR, "epochs: cannot start: %s", strerror(-err));
	return err;
}

void coll_epochs_stop(struct coll_epochs *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	e->stop = true;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
	pthread_join(e->th, NULL);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	for (size_t i = 0; i < e->n; i++) {
		free(e->s[i].copy);
		free(e->s[i].base);
	}
	free(e);
}

void coll_epochs_stats_json(const struct coll_epochs *e, FILE *out)
{
	fprintf(out, "\"epochs\":{\"closed\":%" PRIu64 ",\"files\":%" PRIu64
		",\"counters\":%" PRIu64 ",\"increments\":%" PRIu64
		",\"late_increments\":%" PRIu64 ",\"abandoned\":%" PRIu64
		",\"pending\":%" PRIu64,
		(uint64_t)atomic_load(&e->closed), (uint64_t)atomic_load(&e->files),
		(uint64_t)atomic_load(&e->counters),
		(uint64_t)atomic_load(&e->increments),
		(uint64_t)atomic_load(&e->late),
		(uint64_t)atomic_load(&e->abandoned),
		(uint64_t)atomic_load(&e->pending));
	for (int i = 0; i < FAIL_CAUSES; i++)
		fprintf(out, ",\"failed_%s\":%" PRIu64, cause_name[i],
			(uint64_t)atomic_load(&e->failed[i]));
	fputc('}', out);
}
