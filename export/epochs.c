/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-export's producer of Key-Increment epoch rows (docs/export.md
 * "Epochs"): scans the epoch directory of every collector of the
 * configuration that holds a structure with `epoch = T` (tool_epoch_dir():
 * the files are local, so the exporter runs on the collector's host, as
 * its user), turns each closed epoch file (dta/epoch.h) into one
 * EXPORT_KI_EPOCH row per non-zero counter, and deletes the file only once
 * every sink acknowledged every row of it. A file is the only copy of its
 * epoch: one that cannot be read is left where it is, logged and counted
 * (lost cause "epoch_unreadable", in files), never deleted.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dta/dta.h"
#include "export.h"
#include "log.h"
#include "tools.h"

#define SCAN_NS 500000000ull /* directories are listed this often */
#define MAX_FLIGHT 64        /* files pushed and not yet acknowledged */
#define MAX_SKIP 256         /* unreadable files remembered */

struct ep_dir {
	char collector[DTA_EPOCH_NAME_MAX];
	char path[4096];
	bool said; /* its absence or unsafety was logged */
};

/* A file being exported: its rows pushed from @next on. */
struct flight {
	char path[4200];
	struct dta_epoch *e;
	const struct ep_dir *d;
	uint64_t next;     /* the next counter to push */
	uint64_t last_tag; /* the tag of its last row, once all are pushed */
	bool pushed;
};

struct epochs {
	int id; /* producer id */
	const struct dta_config *cfg;
	char structures[1024];
	struct ep_dir dir[DTA_CONFIG_MAX_COLLECTORS];
	size_t ndir;
	struct flight fl[MAX_FLIGHT];
	size_t nfl;
	char *skip[MAX_SKIP]; /* unreadable files: not read again */
	size_t nskip;
	uint64_t tag, next_scan_ns;
	uint64_t files, rows; /* exported (acknowledged and deleted) */
};

/* "STRUCTURE.EPOCH.epoch" of a structure with epochs we export. */
static bool wanted(const struct epochs *ep, const char *name)
{
	size_t len = strlen(name), sl = strlen(DTA_EPOCH_SUFFIX);
	const struct dta_config_structure *cs;
	char st[DTA_EPOCH_NAME_MAX];
	const char *dot;

	if (len <= sl || strcmp(name + len - sl, DTA_EPOCH_SUFFIX) ||
	    name[0] == '.')
		return false;
	dot = strchr(name, '.');
	if (!dot || (size_t)(dot - name) >= sizeof(st))
		return false;
	memcpy(st, name, (size_t)(dot - name));
	st[dot - name] = 0;
	/* STRUCTURE.DIGITS.epoch, nothing else (not the writer's .tmp.). */
	if (dot + 1 + strspn(dot + 1, "0123456789") != name + len - sl ||
	    dot + 1 == name + len - sl)
		return false;
	cs = dta_config_find(ep->cfg, st);
	return cs && cs->epoch_s && export_listed(ep->structures, st);
}

static bool in_flight(const struct epochs *ep, const char *path)
{
	for (size_t i = 0; i < ep->nfl; i++)
		if (!strcmp(ep->fl[i].path, path))
			return true;
	for (size_t i = 0; i < ep->nskip; i++)
		if (!strcmp(ep->skip[i], path))
			return true;
	return false;
}

/* The directory is there, a directory, ours or root's, and nobody else
 * can write it (or plant files we would export and delete). */
static bool dir_usable(struct ep_dir *d)
{
	struct stat st;

	if (lstat(d->path, &st) != 0) {
		if (!d->said && errno != ENOENT)
			tool_log(LOG_WARNING, "epochs of %s: %s: %s",
				 d->collector, d->path, strerror(errno));
		d->said = errno != ENOENT;
		return false;
	}
	if (!S_ISDIR(st.st_mode) || (st.st_uid != geteuid() && st.st_uid) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		if (!d->said)
			tool_log(LOG_ERR, "epochs of %s: not reading %s: it "
				 "must be a directory owned by us or root that "
				 "neither group nor others can write",
				 d->collector, d->path);
		d->said = true;
		return false;
	}
	d->said = false;
	return true;
}

static void unreadable(struct epochs *ep, struct export_core *x,
		       const struct ep_dir *d, const char *path,
		       const char *name, int err)
{
	char st[DTA_EPOCH_NAME_MAX] = "";
	const char *dot = strchr(name, '.');

	if (dot && (size_t)(dot - name) < sizeof(st))
		memcpy(st, name, (size_t)(dot - name));
	tool_log(LOG_ERR, "epochs: %s: %s; left in place, not exported "
		 "(move it aside once looked at)", path, dta_strerror(err));
	export_count_lost(x, d->collector, st, "epoch_unreadable", 1);
	if (ep->nskip < MAX_SKIP)
		ep->skip[ep->nskip++] = strdup(path);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* New closed-epoch files of directory @d into flight, oldest names first
 * (STRUCTURE, then EPOCH as text: order does not matter for delivery). */
static void scan_dir(struct epochs *ep, struct export_core *x, struct ep_dir *d)
{
	DIR *dh;
	struct dirent *de;
	char *names[MAX_FLIGHT];
	size_t n = 0;

	if (!dir_usable(d))
		return;
	dh = opendir(d->path);
	if (!dh)
		return;
	while ((de = readdir(dh)) && n < MAX_FLIGHT - ep->nfl) {
		char path[4200];

		if (!wanted(ep, de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->path, de->d_name);
		if (in_flight(ep, path))
			continue;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(dh);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct flight *f = &ep->fl[ep->nfl];
		const struct dta_epoch_meta *m;
		struct stat st;
		int err;

		snprintf(f->path, sizeof(f->path), "%s/%s", d->path, names[i]);
		err = lstat(f->path, &st) ? -errno
		      : S_ISREG(st.st_mode) ? 0 : -EINVAL;
		if (!err)
			err = dta_epoch_read(f->path, &f->e);
		if (err == -ENOENT) { /* gone meanwhile */
			free(names[i]);
			continue;
		}
		if (!err) {
			m = dta_epoch_meta(f->e);
			/* The header must say what the name and place say. */
			if (strcmp(m->collector, d->collector) ||
			    strncmp(m->structure, names[i], strlen(m->structure)) ||
			    names[i][strlen(m->structure)] != '.' ||
			    strtoull(names[i] + strlen(m->structure) + 1, NULL,
				     10) != m->epoch) {
				dta_epoch_destroy(f->e);
				f->e = NULL;
				err = -DTA_E_MISMATCH;
			}
		}
		if (err) {
			unreadable(ep, x, d, f->path, names[i], err);
			free(names[i]);
			continue;
		}
		f->d = d;
		f->next = 0;
		f->pushed = false;
		ep->nfl++;
		free(names[i]);
	}
}

/* Push what the buffer takes of file @f. Return rows pushed. */
static int push_file(struct epochs *ep, struct export_core *x,
		     struct flight *f)
{
	const struct dta_epoch_meta *m = dta_epoch_meta(f->e);
	struct export_row r = {
		.kind = EXPORT_KI_EPOCH, .collector = f->d->collector,
		.structure = m->structure,
		.time_ns = (m->epoch + 1) * m->epoch_len_ns,
		.epoch = m->epoch, .epoch_start_ns = m->epoch * m->epoch_len_ns,
		.epoch_len_ns = m->epoch_len_ns,
	};
	int pushed = 0;

	while (f->next < m->counters && export_room(x)) {
		struct dta_epoch_counter c;

		dta_epoch_counter(f->e, f->next, &c);
		r.row = c.row;
		r.column = (uint32_t)c.column;
		r.count = c.count;
		if (export_push(x, ep->id, &r, ep->tag + 1))
			break;
		ep->tag++;
		f->next++;
		pushed++;
	}
	if (f->next == m->counters) {
		f->pushed = true;
		f->last_tag = ep->tag; /* an empty file: acknowledged already */
	}
	return pushed;
}

static void done(struct epochs *ep, size_t i)
{
	struct flight *f = &ep->fl[i];
	const struct dta_epoch_meta *m = dta_epoch_meta(f->e);

	/* Not made durable with a directory fsync: a deletion lost in a
	 * crash exports the file again, and the sinks drop the duplicates. */
	if (unlink(f->path) != 0 && errno != ENOENT) {
		tool_log(LOG_ERR, "epochs: %s exported but not deleted: %s "
			 "(exported again at the next start)", f->path,
			 strerror(errno));
	} else {
		ep->files++;
		ep->rows += m->counters;
		tool_log(LOG_DEBUG, "epochs: %s exported (%" PRIu64 " rows)",
			 f->path, m->counters);
	}
	dta_epoch_destroy(f->e);
	ep->fl[i] = ep->fl[--ep->nfl];
}

static int epochs_poll(void *ctx, struct export_core *x)
{
	struct epochs *ep = ctx;
	uint64_t now = tool_now_ns();
	int pushed = 0;

	if (now >= ep->next_scan_ns) {
		ep->next_scan_ns = now + SCAN_NS;
		for (size_t i = 0; i < ep->ndir && ep->nfl < MAX_FLIGHT; i++)
			scan_dir(ep, x, &ep->dir[i]);
	}
	for (size_t i = 0; i < ep->nfl && export_room(x); i++)
		if (!ep->fl[i].pushed)
			pushed += push_file(ep, x, &ep->fl[i]);
	/* Files with no rows need no acknowledgement. */
	for (size_t i = 0; i < ep->nfl;)
		if (ep->fl[i].pushed && !dta_epoch_meta(ep->fl[i].e)->counters &&
		    ep->fl[i].last_tag <= ep->tag)
			done(ep, i);
		else
			i++;
	return pushed;
}

static void epochs_delivered(void *ctx, uint64_t tag)
{
	struct epochs *ep = ctx;

	for (size_t i = 0; i < ep->nfl;)
		if (ep->fl[i].pushed && ep->fl[i].last_tag <= tag)
			done(ep, i);
		else
			i++;
}

static void epochs_close(void *ctx)
{
	struct epochs *ep = ctx;

	for (size_t i = 0; i < ep->nfl; i++)
		dta_epoch_destroy(ep->fl[i].e);
	for (size_t i = 0; i < ep->nskip; i++)
		free(ep->skip[i]);
	if (ep->files)
		tool_log(LOG_INFO, "epochs: %" PRIu64 " file(s), %" PRIu64
			 " row(s) exported", ep->files, ep->rows);
	free(ep);
}

int export_epochs_open(struct export_core *x, const struct dta_config *cfg,
		       const struct export_settings *s, char *err,
		       size_t errlen)
{
	struct export_producer p = { .name = "epochs", .poll = epochs_poll,
				     .delivered = epochs_delivered,
				     .close = epochs_close };
	struct epochs *ep = calloc(1, sizeof(*ep));
	int id;

	if (!ep)
		return -ENOMEM;
	ep->cfg = cfg;
	snprintf(ep->structures, sizeof(ep->structures), "%s", s->structures);
	for (size_t k = 0; k < dta_config_collectors(cfg); k++) {
		bool any = false;

		for (size_t i = 0; i < dta_config_count(cfg); i++) {
			const struct dta_config_structure *cs =
				dta_config_structure(cfg, i);

			any |= cs->epoch_s && export_listed(s->structures, cs->name) &&
			       dta_config_share(cs, k) >= 0;
		}
		if (!any)
			continue;
		snprintf(ep->dir[ep->ndir].collector,
			 sizeof(ep->dir[ep->ndir].collector), "%s",
			 dta_config_collector_id(cfg, k));
		tool_epoch_dir(cfg, k, NULL, ep->dir[ep->ndir].path,
			       sizeof(ep->dir[ep->ndir].path));
		tool_log(LOG_INFO, "epochs of %s from %s",
			 ep->dir[ep->ndir].collector, ep->dir[ep->ndir].path);
		ep->ndir++;
	}
	if (!ep->ndir) {
		free(ep);
		return 0;
	}
	p.ctx = ep;
	id = export_add_producer(x, &p);
	if (id < 0) {
		free(ep);
		snprintf(err, errlen, "epochs: too many producers");
		return id;
	}
	ep->id = id;
	return 1;
}
