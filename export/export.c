/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-export's core (export.h, docs/export.md): Append cursors that resume
 * where the state file says, a bounded buffer of rows, sinks fed in order
 * with retries and backoff, the state (cursors and loss totals) saved
 * only for rows every sink acknowledged.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dta/client.h"
#include "dta/dta.h"
#include "export.h"
#include "log.h"
#include "metrics.h"
#include "state.h"
#include "tools.h"

#define MAX_PRODUCERS 8
#define MAX_SINKS 4
#define MAX_LOSS 512
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
#define SAVE_EVERY_NS 250000000ull
/* How long a stop waits for the sinks to take what the buffer holds. */
#define DRAIN_NS 10000000000ull

const struct export_sink_ops *const export_sinks[] = {
	&export_sink_clickhouse,
#ifdef DTA_HAVE_NATS
	&export_sink_nats,
#endif
};
const size_t export_nsinks = sizeof(export_sinks) / sizeof(export_sinks[0]);

/* A (collector, structure, schema) triple rows refer to by index. */
struct meta {
	char *collector, *structure;
	const struct dta_schema *schema;
};

/* A row in the buffer; its bytes (entry, then key) are in the byte ring. */
struct brow {
	uint8_t kind;
	uint8_t producer; /* MAX_PRODUCERS: the core's cursors */
	uint32_t meta;
	uint32_t list;    /* Append: list; epochs: row */
	uint32_t column;
	uint32_t entry_len, key_len;
	uint64_t time_ns, enq_ns;
	uint64_t position; /* Append: position; epochs: epoch */
	uint64_t count, epoch_start_ns, epoch_len_ns;
	uint64_t tag;      /* core: cursor index; producers: theirs */
	uint64_t off;      /* absolute offset in the byte ring */
};

/* Entries a cursor found overwritten, counted (and saved) only once the
 * cursor's saved position passes them: a restart from an earlier saved
 * position finds them lost again and must not count them twice. */
struct pending_loss {
	uint64_t end; /* position just after the lost entries */
	uint64_t n;
	bool starved;
};

struct cursor {
	struct dta_client_cursor *c;
	struct pending_loss *pl;
	size_t npl;
	uint32_t meta;
	uint32_t list;
	size_t es;
	uint64_t readpos;   /* next position the client will give */
	uint64_t committed; /* next position not yet acknowledged by all */
	uint64_t pending;   /* rows of this list in the buffer */
	bool starved;       /* skipped a read because the buffer was full */
};

/*
 * A sink and the thread that writes to it, so that reading goes on while
 * a write takes long (a slow or unreachable server). The main thread
 * hands over a batch (@busy) and takes the result (@done); under @mu.
 */
struct sink {
	const struct export_sink_ops *ops;
	struct export_sink *s;
	uint64_t acked;      /* absolute row index: rows before it delivered */
	uint64_t next_try_ns;
	uint64_t backoff_ms;
	uint64_t failures;   /* writes that failed */
	bool down;
	bool resume_failed; /* ops->resume failed once: not asked again */
	char err[512];
	/* the worker */
	pthread_t th;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool busy, done, quit;
	struct export_row *batch; /* batch_rows; built by the main thread */
	size_t n;
	int rc;
	char werr[512];
	uint64_t st_batches, st_rows, st_retries; /* ops->stats() after a write */
	int wake; /* the core's eventfd */
};

struct loss {
	char *collector, *structure, *cause;
	uint64_t n;
};

struct saved {
	char *collector, *structure;
	uint32_t list;
	uint64_t position;
};

struct export_core {
	const struct dta_config *cfg;
	struct export_settings set;
	struct dta_client *client;
	struct meta *meta;
	size_t nmeta;
	struct cursor *cur;
	size_t ncur;
	struct export_producer prod[MAX_PRODUCERS];
	size_t nprod;
	struct sink sink[MAX_SINKS];
	size_t nsink;
	/* rows: absolute indices head..tail, slot i % cap */
	struct brow *rows;
	uint64_t cap, head, tail;
	/* bytes: absolute offsets bhead..btail, offset o at o % bcap */
	uint8_t *bytes;
	uint64_t bcap, bhead, btail;
	size_t max_row_bytes, es_max;
	size_t read_min;          /* fewer rows of room than this: wait */
	int wake;                 /* eventfd: a sink's write finished */
	uint8_t *readbuf;
	size_t readmax;           /* entries of readbuf */
	struct loss loss[MAX_LOSS];
	size_t nloss;
	struct saved *saved;
	size_t nsaved;
	bool dirty;
	uint64_t last_save_ns;
	struct metrics_server *ms;
	/* the source failed: reconnect at source_retry_ns */
	bool source_down;
	uint64_t source_retry_ns, source_backoff_ms;
	uint64_t reconnects;
	/* counters */
	uint64_t rows_read, rows_delivered, reads, read_errors, save_errors;
	uint64_t skipped; /* entries before a resumed cursor's position */
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- settings ---- */

static int get_u64(const struct dta_config *cfg, const char *key, uint64_t def,
		   uint64_t *out)
{
	const char *v = dta_config_get(cfg, "export", key);

	*out = def;
	if (v && dta_parse_size(v, out))
		return -EINVAL;
	return 0;
}

static void get_str(const struct dta_config *cfg, const char *key,
		    const char *def, char *out, size_t cap)
{
	const char *v = dta_config_get(cfg, "export", key);

	snprintf(out, cap, "%s", v ? v : def);
}

int export_settings_read(const struct dta_config *cfg, const char *conf_path,
			 struct export_settings *s, char *err, size_t errlen)
{
	char def[sizeof(s->source)];

	memset(s, 0, sizeof(*s));
	if ((size_t)snprintf(def, sizeof(def), "config:%.4080s", conf_path) >=
	    sizeof(def)) {
		tool_fail(err, errlen, -1, "configuration path too long");
		return -ENAMETOOLONG;
	}
	get_str(cfg, "source", def, s->source, sizeof(s->source));
	get_str(cfg, "structures", "", s->structures, sizeof(s->structures));
	get_str(cfg, "state_dir", EXPORT_STATE_DIR, s->state_dir,
		sizeof(s->state_dir));
	get_str(cfg, "metrics_listen", "", s->metrics_listen,
		sizeof(s->metrics_listen));
	if (get_u64(cfg, "batch_rows", 65536, &s->batch_rows) ||
	    get_u64(cfg, "flush_ms", 1000, &s->flush_ms) ||
	    get_u64(cfg, "buffer_rows", 1000000, &s->buffer_rows) ||
	    get_u64(cfg, "poll_ms", 100, &s->poll_ms)) {
		tool_fail(err, errlen, -1,
			  "[export]: a number that does not parse");
		return -EINVAL;
	}
	if (s->buffer_rows < s->batch_rows) {
		tool_fail(err, errlen, -1, "[export]: buffer_rows (%" PRIu64
			  ") is below " "batch_rows (%" PRIu64 ")",
			  s->buffer_rows, s->batch_rows);
		return -EINVAL;
	}
	return 0;
}

bool export_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!*list)
		return true;
	while (*p) {
		const char *e;

		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		e = p;
		while (*e && *e != ',' && *e != ' ' && *e != '\t')
			e++;
		if ((size_t)(e - p) == n && !memcmp(p, name, n))
			return true;
		p = e;
	}
	return false;
}

/* ---- state directory and files ---- */

static int check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int e = -errno;

		tool_fail(err, errlen, -1, "state_dir %s: %s", dir,
			  strerror(-e));
		return e;
	}
	if (lstat(dir, &st) < 0) {
		int e = -errno;

		tool_fail(err, errlen, -1, "state_dir %s: %s", dir,
			  strerror(-e));
		return e;
	}
	if (!S_ISDIR(st.st_mode)) {
		tool_fail(err, errlen, -1, "state_dir %s is not a directory",
			  dir);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		tool_fail(err, errlen, -1,
			  "state_dir %s must be ours (uid %u) and mode "
			  "0700, not uid %u mode %04o (docs/export.md)", dir,
			  (unsigned)geteuid(), (unsigned)st.st_uid,
			  (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

const char *export_state_dir(const struct export_core *x)
{
	return x->set.state_dir;
}

static int state_cursor(void *ctx, const char *coll, const char *st,
			uint32_t list, uint64_t position)
{
	struct export_core *x = ctx;
	struct saved *sv = realloc(x->saved, (x->nsaved + 1) * sizeof(*sv));

	if (!sv)
		return -ENOMEM;
	x->saved = sv;
	sv = &sv[x->nsaved];
	sv->collector = strdup(coll);
	sv->structure = strdup(st);
	sv->list = list;
	sv->position = position;
	if (!sv->collector || !sv->structure) {
		free(sv->collector);
		free(sv->structure);
		return -ENOMEM;
	}
	x->nsaved++;
	return 0;
}

static int state_lost(void *ctx, const char *coll, const char *st,
		      const char *cause, uint64_t n)
{
	return export_count_lost(ctx, coll, st, cause, n);
}

/* The saved cursors and loss totals (state.h), when there are. */
static int load_state(struct export_core *x, char *err, size_t errlen)
{
	struct export_state_cb cb = { state_cursor, state_lost, x };
	char path[4200], *text = NULL;
	size_t len = 0, cap = 0;
	unsigned ln;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/cursors", x->set.state_dir);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		tool_fail(err, errlen, -1, "%s: %s", path, strerror(-rc));
		return rc;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *t = cap < (64u << 20) ? realloc(text, cap ? 2 * cap
								   : 65536)
						    : NULL;

			if (!t) {
				rc = cap ? -EFBIG : -ENOMEM;
				break;
			}
			text = t;
			cap = cap ? 2 * cap : 65536;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				rc = -EIO;
			break;
		}
	}
	fclose(f);
	if (!rc) {
		rc = export_state_parse(text, len, &cb, &ln);
		if (rc == -EINVAL)
			tool_fail(err, errlen, -1, "%s:%u: not a state line",
				  path, ln);
	}
	free(text);
	if (rc && rc != -EINVAL)
		tool_fail(err, errlen, -1, "%s: %s", path, strerror(-rc));
	return rc;
}

static int save_state(struct export_core *x)
{
	char path[4200], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -ENOMEM;
	fprintf(f, "# dta-export cursors: the next position of each list "
		   "that every sink has not acknowledged yet (docs/export.md)\n");
	for (size_t i = 0; i < x->ncur; i++) {
		const struct cursor *c = &x->cur[i];
		const struct meta *m = &x->meta[c->meta];

		fprintf(f, "cursor %s %s %" PRIu32 " %" PRIu64 "\n",
			m->collector, m->structure, c->list, c->committed);
	}
	for (size_t i = 0; i < x->nloss; i++)
		fprintf(f, "lost %s %s %s %" PRIu64 "\n", x->loss[i].collector,
			x->loss[i].structure, x->loss[i].cause, x->loss[i].n);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/cursors",
			     x->set.state_dir) >= sizeof(path))
		rc = -ENAMETOOLONG;
	else
		rc = tool_write_private(path, buf, len);
	free(buf);
	if (rc) {
		x->save_errors++;
		tool_log(LOG_ERR, "saving %s/cursors: %s", x->set.state_dir,
			 strerror(-rc));
	} else {
		x->dirty = false;
	}
	return rc;
}

int export_count_lost(struct export_core *x, const char *collector,
		      const char *structure, const char *cause, uint64_t n)
{
	struct loss *l;

	for (size_t i = 0; i < x->nloss; i++) {
		l = &x->loss[i];
		if (!strcmp(l->collector, collector) &&
		    !strcmp(l->structure, structure) && !strcmp(l->cause, cause)) {
			l->n += n;
			x->dirty = true;
			return 0;
		}
	}
	if (x->nloss == MAX_LOSS)
		return -ENOSPC;
	l = &x->loss[x->nloss];
	l->collector = strdup(collector);
	l->structure = strdup(structure);
	l->cause = strdup(cause);
	if (!l->collector || !l->structure || !l->cause) {
		free(l->collector);
		free(l->structure);
		free(l->cause);
		return -ENOMEM;
	}
	l->n = n;
	x->nloss++;
	x->dirty = true;
	return 0;
}

/* ---- the buffer ---- */

/* The meta of (@collector, @structure), made with a copy of @schema (which
 * may belong to a client that is closed and opened again) the first time. */
static int meta_find(struct export_core *x, const char *collector,
		     const char *structure, const struct dta_schema *schema)
{
	struct meta *m;

	for (size_t i = 0; i < x->nmeta; i++)
		if (!strcmp(x->meta[i].collector, collector) &&
		    !strcmp(x->meta[i].structure, structure))
			return (int)i;
	m = realloc(x->meta, (x->nmeta + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	x->meta = m;
	m = &m[x->nmeta];
	m->collector = strdup(collector);
	m->structure = strdup(structure);
	m->schema = NULL;
	if (schema && schema->nfields) {
		struct dta_schema *c = malloc(sizeof(*c));

		if (c)
			*c = *schema;
		m->schema = c;
	}
	if (!m->collector || !m->structure || (schema && schema->nfields &&
					       !m->schema)) {
		free(m->collector);
		free(m->structure);
		free((void *)m->schema);
		return -ENOMEM;
	}
	return (int)x->nmeta++;
}

/* Bytes the ring can still give @len-byte rows, whatever the wrap. */
static uint64_t bytes_room(const struct export_core *x, size_t len)
{
	uint64_t free_b = x->bcap - (x->btail - x->bhead);
	uint64_t slack = 2 * x->max_row_bytes;

	return free_b > slack ? (free_b - slack) / (len ? len : 1) : 0;
}

size_t export_room(const struct export_core *x)
{
	uint64_t rows = x->cap - (x->tail - x->head);
	uint64_t b = bytes_room(x, x->es_max);

	return (size_t)(rows < b ? rows : b);
}

/* Room for @len bytes in the byte ring: its absolute offset. */
static uint64_t bytes_take(struct export_core *x, size_t len)
{
	uint64_t pos = x->btail % x->bcap;

	if (pos + len > x->bcap)
		x->btail += x->bcap - pos; /* skip the end */
	pos = x->btail;
	x->btail += len;
	return pos;
}

static struct brow *row_add(struct export_core *x, size_t len)
{
	struct brow *b = &x->rows[x->tail % x->cap];

	memset(b, 0, sizeof(*b));
	b->off = bytes_take(x, len);
	b->enq_ns = tool_now_ns();
	x->tail++;
	return b;
}

int export_push(struct export_core *x, int producer, const struct export_row *r,
		uint64_t tag)
{
	struct brow *b;
	int m;

	if (producer < 0 || (size_t)producer >= x->nprod || !r ||
	    (size_t)r->entry_len + r->key_len > x->max_row_bytes)
		return -EINVAL;
	if (x->tail - x->head == x->cap ||
	    !bytes_room(x, (size_t)r->entry_len + r->key_len))
		return -ENOBUFS;
	m = meta_find(x, r->collector, r->structure, r->schema);
	if (m < 0)
		return m;
	b = row_add(x, (size_t)r->entry_len + r->key_len);
	b->kind = (uint8_t)r->kind;
	b->producer = (uint8_t)producer;
	b->meta = (uint32_t)m;
	b->time_ns = r->time_ns;
	if (r->kind == EXPORT_APPEND) {
		b->list = r->list;
		b->position = r->position;
	} else {
		b->list = r->row;
		b->column = r->column;
		b->position = r->epoch;
		b->count = r->count;
		b->epoch_start_ns = r->epoch_start_ns;
		b->epoch_len_ns = r->epoch_len_ns;
	}
	b->entry_len = r->entry_len;
	b->key_len = r->key_len;
	if (r->entry_len)
		memcpy(x->bytes + b->off % x->bcap, r->entry, r->entry_len);
	if (r->key_len)
		memcpy(x->bytes + (b->off + r->entry_len) % x->bcap, r->key,
		       r->key_len);
	b->tag = tag;
	return 0;
}

int export_add_producer(struct export_core *x, const struct export_producer *p)
{
	if (x->nprod == MAX_PRODUCERS)
		return -ENOSPC;
	x->prod[x->nprod] = *p;
	return (int)x->nprod++;
}

static void row_view(const struct export_core *x, const struct brow *b,
		     struct export_row *r)
{
	const struct meta *m = &x->meta[b->meta];
	const uint8_t *p = x->bytes + b->off % x->bcap;

	memset(r, 0, sizeof(*r));
	r->kind = (enum export_kind)b->kind;
	r->collector = m->collector;
	r->structure = m->structure;
	r->schema = m->schema;
	r->time_ns = b->time_ns;
	if (b->kind == EXPORT_APPEND) {
		r->list = b->list;
		r->position = b->position;
		r->entry = p;
		r->entry_len = b->entry_len;
	} else {
		r->epoch = b->position;
		r->epoch_start_ns = b->epoch_start_ns;
		r->epoch_len_ns = b->epoch_len_ns;
		r->row = b->list;
		r->column = b->column;
		r->count = b->count;
		r->key = b->key_len ? p + b->entry_len : NULL;
		r->key_len = b->key_len;
		r->entry = b->entry_len ? p : NULL;
		r->entry_len = b->entry_len;
	}
}

static void settle_losses(struct export_core *x, struct cursor *c);

/* Rows every sink acknowledged leave the buffer; their producers hear. */
static void release(struct export_core *x)
{
	uint64_t upto = x->tail;
	uint64_t last_tag[MAX_PRODUCERS];
	bool any[MAX_PRODUCERS] = { false };

	for (size_t i = 0; i < x->nsink; i++)
		if (x->sink[i].acked < upto)
			upto = x->sink[i].acked;
	while (x->head < upto) {
		const struct brow *b = &x->rows[x->head % x->cap];

		if (b->producer == MAX_PRODUCERS) {
			struct cursor *c = &x->cur[b->tag];

			c->committed = b->position + 1;
			if (!--c->pending)
				c->committed = c->readpos;
			if (c->npl)
				settle_losses(x, c);
			x->dirty = true;
		} else {
			last_tag[b->producer] = b->tag;
			any[b->producer] = true;
		}
		x->bhead = b->off + b->entry_len + b->key_len;
		x->head++;
		x->rows_delivered++;
	}
	if (x->head == x->tail)
		x->bhead = x->btail;
	for (size_t i = 0; i < x->nprod; i++)
		if (any[i] && x->prod[i].delivered)
			x->prod[i].delivered(x->prod[i].ctx, last_tag[i]);
}

/* ---- reading ---- */

static void count_lost(struct export_core *x, struct cursor *c, uint64_t n,
		       uint64_t end)
{
	const struct meta *m = &x->meta[c->meta];
	struct pending_loss *pl;

	tool_log(LOG_WARNING, "%s/%s list %" PRIu32 ": %" PRIu64 " entries "
		 "overwritten before they were read (%s)", m->collector,
		 m->structure, c->list, n,
		 c->starved ? "the buffer was full: a sink is down or slow"
			    : "the exporter fell behind the ring");
	pl = realloc(c->pl, (c->npl + 1) * sizeof(*pl));
	if (!pl) {
		/* Count it now rather than not at all. */
		export_count_lost(x, m->collector, m->structure,
				  c->starved ? "buffer_full" : "overwritten", n);
		return;
	}
	c->pl = pl;
	pl[c->npl].end = end;
	pl[c->npl].n = n;
	pl[c->npl++].starved = c->starved;
}

/* Losses the cursor's saved position has passed: count them. */
static void settle_losses(struct export_core *x, struct cursor *c)
{
	const struct meta *m = &x->meta[c->meta];
	size_t k = 0;

	while (k < c->npl && c->pl[k].end <= c->committed) {
		if (export_count_lost(x, m->collector, m->structure,
				      c->pl[k].starved ? "buffer_full"
						       : "overwritten",
				      c->pl[k].n))
			tool_log(LOG_ERR, "too many loss counters: %" PRIu64
				 " lost entries of %s/%s not counted by cause",
				 c->pl[k].n, m->collector, m->structure);
		k++;
	}
	if (k) {
		memmove(c->pl, c->pl + k, (c->npl - k) * sizeof(*c->pl));
		c->npl -= k;
	}
}

/* Read what cursor @c has, as far as the buffer has room. Return rows. */
static long read_cursor(struct export_core *x, struct cursor *c)
{
	long total = 0;

	for (int rounds = 0; rounds < 16; rounds++) {
		uint64_t rows = x->cap - (x->tail - x->head);
		uint64_t room = bytes_room(x, c->es);
		size_t max = x->readmax;
		uint64_t lost = 0, first, t;
		long n;

		if (room > rows)
			room = rows;
		if (max > room)
			max = (size_t)room;
		if (max < x->read_min) {
			/* Not enough room for a whole read: wait for the
			 * sinks. What the ring overwrites meanwhile is the
			 * full buffer's doing. */
			c->starved = true;
			break;
		}
		n = dta_client_ap_read(c->c, x->readbuf, max, &lost);
		x->reads++;
		if (n < 0) {
			x->read_errors++;
			tool_log(LOG_ERR, "reading %s/%s list %" PRIu32 ": %s; "
				 "reconnecting", x->meta[c->meta].collector,
				 x->meta[c->meta].structure, c->list,
				 dta_client_error(x->client));
			x->source_down = true;
			return n;
		}
		c->readpos = dta_client_ap_position(c->c);
		if (lost)
			count_lost(x, c, lost, c->readpos - (uint64_t)n);
		if (!n) {
			if (!c->pending) {
				if (c->committed != c->readpos)
					x->dirty = true;
				c->committed = c->readpos;
				settle_losses(x, c);
			}
			c->starved = false;
			break;
		}
		c->starved = false;
		first = c->readpos - (uint64_t)n;
		t = wall_ns();
		for (long i = 0; i < n; i++) {
			struct brow *b = row_add(x, c->es);

			b->kind = EXPORT_APPEND;
			b->producer = MAX_PRODUCERS;
			b->meta = c->meta;
			b->list = c->list;
			b->position = first + (uint64_t)i;
			b->time_ns = t;
			b->entry_len = (uint32_t)c->es;
			b->tag = (uint64_t)(c - x->cur);
			memcpy(x->bytes + b->off % x->bcap,
			       x->readbuf + (size_t)i * c->es, c->es);
			c->pending++;
		}
		x->rows_read += (uint64_t)n;
		total += n;
		if ((size_t)n < max / 2)
			break;
	}
	return total;
}

/* ---- sinks ---- */

static void *sink_thread(void *arg)
{
	struct sink *k = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&k->mu);
	for (;;) {
		struct export_batch b;
		char err[512] = "";
		uint64_t nb = 0, nr = 0, nt = 0;
		int rc;

		while (!k->quit && (!k->busy || k->done))
			pthread_cond_wait(&k->cv, &k->mu);
		if (k->quit)
			break;
		b.rows = k->batch;
		b.n = k->n;
		pthread_mutex_unlock(&k->mu);
		rc = k->ops->write(k->s, &b, err, sizeof(err));
		k->ops->stats(k->s, &nb, &nr, &nt);
		pthread_mutex_lock(&k->mu);
		k->rc = rc;
		memcpy(k->werr, err, sizeof(err));
		k->st_batches = nb;
		k->st_rows = nr;
		k->st_retries = nt;
		k->done = true;
		if (write(k->wake, &one, sizeof(one)) < 0) {
			/* the main thread looks again within poll_ms */
		}
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

/* The result of sink @k's write, once there. Return 1 if it took rows. */
static int sink_result(struct sink *k, uint64_t now)
{
	char err[512];
	uint64_t n;
	int rc;

	pthread_mutex_lock(&k->mu);
	if (!k->busy || !k->done) {
		pthread_mutex_unlock(&k->mu);
		return 0;
	}
	rc = k->rc;
	n = k->n;
	memcpy(err, k->werr, sizeof(err));
	k->busy = k->done = false;
	pthread_mutex_unlock(&k->mu);
	if (rc) {
		k->failures++;
		if (!k->down || strcmp(err, k->err))
			tool_log(rc == -EAGAIN ? LOG_WARNING : LOG_ERR,
				 "sink %s: %" PRIu64 " rows not accepted, "
				 "retrying: %s", k->ops->name, n,
				 err[0] ? err : strerror(-rc));
		snprintf(k->err, sizeof(k->err), "%s", err);
		k->down = true;
		k->backoff_ms = k->backoff_ms ? k->backoff_ms * 2 : BACKOFF_MIN_MS;
		if (k->backoff_ms > BACKOFF_MAX_MS)
			k->backoff_ms = BACKOFF_MAX_MS;
		k->next_try_ns = now + k->backoff_ms * 1000000ull;
		return 0;
	}
	if (k->down)
		tool_log(LOG_INFO, "sink %s: accepting rows again", k->ops->name);
	k->down = false;
	k->err[0] = 0;
	k->backoff_ms = 0;
	k->next_try_ns = 0;
	k->acked += n;
	return 1;
}

/* Take sink @k's result, and hand it its next batch when due. Return 1
 * if it acknowledged rows. */
static int feed(struct export_core *x, struct sink *k, uint64_t now, bool force)
{
	int took = sink_result(k, now);
	uint64_t n = x->tail - k->acked, age;

	if (k->busy || !n || now < k->next_try_ns)
		return took;
	age = now - x->rows[k->acked % x->cap].enq_ns;
	if (!force && n < x->set.batch_rows &&
	    age < x->set.flush_ms * 1000000ull)
		return took;
	if (n > x->set.batch_rows)
		n = x->set.batch_rows;
	/* The rows and their bytes stay put until acknowledged: the worker
	 * reads them while this thread appends new ones elsewhere. */
	for (uint64_t i = 0; i < n; i++)
		row_view(x, &x->rows[(k->acked + i) % x->cap], &k->batch[i]);
	pthread_mutex_lock(&k->mu);
	k->n = (size_t)n;
	k->busy = true;
	k->done = false;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	return took;
}

static void sink_stats(struct sink *k, uint64_t *b, uint64_t *r, uint64_t *t)
{
	pthread_mutex_lock(&k->mu);
	*b = k->st_batches;
	*r = k->st_rows;
	*t = k->st_retries;
	pthread_mutex_unlock(&k->mu);
}

static void sink_stop(struct sink *k)
{
	if (!k->started)
		return;
	pthread_mutex_lock(&k->mu);
	k->quit = true;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	pthread_join(k->th, NULL);
	k->started = false;
}

/* ---- metrics ---- */

void export_core_stats(void *ctx, FILE *f)
{
	struct export_core *x = ctx;

	fprintf(f, "{\"rows_read\":%" PRIu64 ",\"rows_delivered\":%" PRIu64
		   ",\"rows_buffered\":%" PRIu64 ",\"buffer_rows\":%" PRIu64
		   ",\"reads\":%" PRIu64 ",\"read_errors\":%" PRIu64
		   ",\"save_errors\":%" PRIu64 ",\"sinks\":{",
		x->rows_read, x->rows_delivered, x->tail - x->head, x->cap,
		x->reads, x->read_errors, x->save_errors);
	for (size_t i = 0; i < x->nsink; i++) {
		uint64_t b = 0, r = 0, t = 0;

		sink_stats(&x->sink[i], &b, &r, &t);
		fprintf(f, "%s\"%s\":{\"up\":%d,\"batches\":%" PRIu64
			   ",\"rows\":%" PRIu64 ",\"retries\":%" PRIu64
			   ",\"failures\":%" PRIu64 ",\"pending\":%" PRIu64 "}",
			i ? "," : "", x->sink[i].ops->name, !x->sink[i].down, b,
			r, t, x->sink[i].failures, x->tail - x->sink[i].acked);
	}
	fprintf(f, "},\"lost\":[");
	for (size_t i = 0; i < x->nloss; i++)
		fprintf(f, "%s{\"collector\":\"%s\",\"structure\":\"%s\","
			   "\"cause\":\"%s\",\"entries\":%" PRIu64 "}",
			i ? "," : "", x->loss[i].collector, x->loss[i].structure,
			x->loss[i].cause, x->loss[i].n);
	fprintf(f, "]}\n");
}

static int metric(FILE *f, const char *name, enum metrics_type t,
		  const char *help, const struct metrics_label *l, size_t nl,
		  uint64_t v)
{
	char num[32];
	int rc = help ? metrics_write_header(f, name, t, help) : 0;

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return rc ? rc : metrics_write_sample(f, name, l, nl, num);
}

static int write_metrics(void *ctx, FILE *f)
{
	struct export_core *x = ctx;
	int rc = 0;

	rc |= metric(f, "dta_export_rows_read_total", METRICS_COUNTER,
		     "Append entries read into the buffer", NULL, 0, x->rows_read);
	rc |= metric(f, "dta_export_rows_delivered_total", METRICS_COUNTER,
		     "rows every sink acknowledged", NULL, 0, x->rows_delivered);
	rc |= metric(f, "dta_export_buffer_rows", METRICS_GAUGE,
		     "rows in the buffer", NULL, 0, x->tail - x->head);
	rc |= metric(f, "dta_export_buffer_capacity_rows", METRICS_GAUGE,
		     "rows the buffer holds at most", NULL, 0, x->cap);
	rc |= metric(f, "dta_export_read_errors_total", METRICS_COUNTER,
		     "reads of a list that failed", NULL, 0, x->read_errors);
	rc |= metric(f, "dta_export_source_up", METRICS_GAUGE,
		     "1 while the collectors are read", NULL, 0, !x->source_down);
	rc |= metric(f, "dta_export_source_reconnects_total", METRICS_COUNTER,
		     "times the source was opened again after a failure", NULL,
		     0, x->reconnects);
	rc |= metric(f, "dta_export_state_save_errors_total", METRICS_COUNTER,
		     "state files that could not be written", NULL, 0,
		     x->save_errors);
	for (int fam = 0; fam < 4; fam++) {
		static const char *const nm[] = {
			"dta_export_sink_up", "dta_export_sink_rows_total",
			"dta_export_sink_failures_total",
			"dta_export_sink_pending_rows" };
		static const char *const hp[] = {
			"1 when the sink's last write succeeded",
			"rows the sink accepted (retried rows again)",
			"writes the sink did not accept (retried)",
			"rows the sink has not acknowledged yet" };
		for (size_t i = 0; i < x->nsink; i++) {
			struct metrics_label l = { "sink", x->sink[i].ops->name };
			uint64_t b = 0, r = 0, t = 0, v;

			sink_stats(&x->sink[i], &b, &r, &t);
			v = fam == 0 ? !x->sink[i].down : fam == 1 ? r
			    : fam == 2 ? x->sink[i].failures
				       : x->tail - x->sink[i].acked;
			rc |= metric(f, nm[fam], fam == 0 || fam == 3
						 ? METRICS_GAUGE : METRICS_COUNTER,
				     i ? NULL : hp[fam], &l, 1, v);
		}
	}
	for (size_t i = 0; i < x->nloss; i++) {
		struct metrics_label l[3] = {
			{ "collector", x->loss[i].collector },
			{ "structure", x->loss[i].structure },
			{ "cause", x->loss[i].cause } };

		rc |= metric(f, "dta_export_lost_total", METRICS_COUNTER,
			     i ? NULL : "Append entries overwritten before the "
					"exporter read them, by cause (persisted "
					"across restarts)", l, 3, x->loss[i].n);
	}
	if (!rc) /* Prometheus's process_* families (docs/metrics.md) */
		rc = metrics_write_process(f);
	return rc ? -EIO : 0;
}

static int health(void *ctx, char *why, size_t cap)
{
	struct export_core *x = ctx;

	if (x->source_down) {
		snprintf(why, cap, "source %s unreachable", x->set.source);
		return 1;
	}
	for (size_t i = 0; i < x->nsink; i++)
		if (x->sink[i].down) {
			snprintf(why, cap, "sink %s down: %s",
				 x->sink[i].ops->name, x->sink[i].err);
			return 1;
		}
	return 0;
}

static void log_fn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

/* ---- open, run, close ---- */

static uint64_t saved_position(const struct export_core *x, const char *coll,
			       const char *st, uint32_t list, bool *found)
{
	for (size_t i = 0; i < x->nsaved; i++)
		if (x->saved[i].list == list &&
		    !strcmp(x->saved[i].collector, coll) &&
		    !strcmp(x->saved[i].structure, st)) {
			*found = true;
			return x->saved[i].position;
		}
	*found = false;
	return 0;
}

/*
 * Where list (@coll, @st, @list) resumes: @saved, or further when every
 * sink holds rows past it (delivered before a crash, after the last save).
 */
static uint64_t sinks_resume(struct export_core *x, const char *coll,
			     const char *st, uint32_t list, uint64_t saved)
{
	uint64_t least = UINT64_MAX;

	for (size_t i = 0; i < x->nsink; i++) {
		struct sink *k = &x->sink[i];
		char e[256] = "";
		uint64_t p = 0;
		int rc;

		if (!k->ops->resume || k->resume_failed)
			return saved;
		rc = k->ops->resume(k->s, coll, st, list, &p, e, sizeof(e));
		if (rc) {
			/* Once: a server that is down would make each list
			 * wait for its timeouts. */
			k->resume_failed = true;
			tool_log(LOG_WARNING, "sink %s cannot tell where the "
				 "lists' rows end (%s): resuming at the saved "
				 "cursors; rows it holds past them are sent "
				 "again", k->ops->name, e[0] ? e : strerror(-rc));
			return saved;
		}
		if (p < least)
			least = p;
	}
	if (least == UINT64_MAX || least <= saved)
		return saved;
	tool_log(LOG_INFO, "%s/%s list %" PRIu32 ": the sinks hold rows up to "
		 "%" PRIu64 ", past the saved cursor %" PRIu64 ": resuming "
		 "there", coll, st, list, least, saved);
	return least;
}

static int open_cursors(struct export_core *x, char *err, size_t errlen)
{
	size_t n = dta_client_count(x->client), es_max = 0, bmax = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		const struct dta_client_structure *cs =
			dta_client_structure(x->client, i);
		const struct dta_config_structure *ccs;
		uint32_t lps;

		if (cs->layout.primitive != DTA_PRIM_APPEND ||
		    !export_listed(x->set.structures, cs->name))
			continue;
		ccs = dta_config_find(x->cfg, cs->name);
		if (!ccs || ccs->ncollectors != cs->shares) {
			tool_fail(err, errlen, -1,
				  "structure %s: the source holds %u "
				  "share(s), the configuration %u: export from a "
				  "config: or map: source of the same file",
				  cs->name, cs->shares,
				  ccs ? ccs->ncollectors : 0);
			return -EINVAL;
		}
		lps = cs->lists / cs->shares;
		for (uint32_t l = 0; l < cs->lists; l++) {
			const char *coll = dta_config_collector_id(
				x->cfg, ccs->collectors[l / lps]);
			struct cursor *c;
			bool found;
			uint64_t pos = saved_position(x, coll, cs->name, l, &found);

			c = realloc(x->cur, (x->ncur + 1) * sizeof(*c));
			if (!c)
				return -ENOMEM;
			x->cur = c;
			c = &c[x->ncur];
			memset(c, 0, sizeof(*c));
			rc = meta_find(x, coll, cs->name, cs->schema);
			if (rc < 0)
				return rc;
			c->meta = (uint32_t)rc;
			c->list = l;
			c->es = cs->layout.g.ap.entry_size;
			if (found)
				pos = sinks_resume(x, coll, cs->name, l, pos);
			if (found)
				rc = dta_client_ap_open_at(x->client, cs->name, l,
							   pos, &c->c);
			else
				rc = dta_client_ap_open(x->client, cs->name, l,
							DTA_EXEC_AP_OLDEST, &c->c);
			if (rc) {
				tool_fail(err, errlen, -1, "following %s list %"
					  PRIu32 ": %s", cs->name, l,
					  dta_client_error(x->client));
				return rc;
			}
			c->readpos = found ? pos : dta_client_ap_position(c->c);
			c->committed = c->readpos;
			x->ncur++;
		}
		if (cs->layout.g.ap.entry_size > es_max)
			es_max = cs->layout.g.ap.entry_size;
		if (cs->layout.g.ap.batch_entries > bmax)
			bmax = cs->layout.g.ap.batch_entries;
	}
	if (!x->ncur) {
		tool_fail(err, errlen, -1,
			  "no Append structure to export (structures " "= %s)",
			  x->set.structures[0] ? x->set.structures : "all");
		return -ENOENT;
	}
	x->readmax = 16384;
	if (x->readmax < bmax)
		x->readmax = bmax;
	x->read_min = bmax > 256 ? bmax : 256;
	if (x->read_min > x->readmax)
		x->read_min = x->readmax;
	x->es_max = es_max;
	x->max_row_bytes = (es_max > 64 ? es_max : 64) + DTA_KEY_MAX;
	x->readbuf = malloc(x->readmax * es_max);
	return x->readbuf ? 0 : -ENOMEM;
}

int export_core_open(const struct dta_config *cfg,
		     const struct export_settings *s, struct export_core **out,
		     char *err, size_t errlen)
{
	struct export_core *x;
	bool epochs = false;
	int rc;

	*out = NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->wake = -1;
	x->cfg = cfg;
	x->set = *s;
	rc = check_dir(s->state_dir, err, errlen);
	if (!rc)
		rc = load_state(x, err, errlen);
	if (rc)
		goto out;
	/* Sinks first: a configuration fault shows before any connection. */
	for (size_t i = 0; i < export_nsinks && x->nsink < MAX_SINKS; i++) {
		struct sink *k = &x->sink[x->nsink];

		rc = export_sinks[i]->open(cfg, &k->s, err, errlen);
		if (rc == -ENOENT)
			continue;
		if (rc)
			goto out;
		k->ops = export_sinks[i];
		x->nsink++;
	}
	rc = 0;
	if (!x->nsink) {
		tool_fail(err, errlen, -1,
			  "no sink configured: set clickhouse_url "
			  "(or nats_url) in [export]");
		rc = -ENOENT;
		goto out;
	}
	rc = dta_client_open(s->source, NULL, &x->client, err, errlen);
	if (rc) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s", err);
		tool_fail(err, errlen, -1, "source %s: %s", s->source, tmp);
		goto out;
	}
#ifdef DTA_HAVE_EPOCHS
	rc = export_epochs_open(x, cfg, s, err, errlen);
	if (rc < 0)
		goto out;
	epochs = rc > 0;
#endif
	rc = open_cursors(x, err, errlen);
	if (rc == -ENOENT && epochs) {
		/* Epochs only: rows carry no entry, keys at most. */
		rc = 0;
		x->es_max = 1;
		x->max_row_bytes = 64 + DTA_KEY_MAX;
	}
	if (rc)
		goto out;
	x->cap = s->buffer_rows;
	x->bcap = x->cap * x->es_max + 4 * x->max_row_bytes;
	x->rows = calloc(x->cap, sizeof(*x->rows));
	x->bytes = malloc(x->bcap);
	x->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	for (size_t i = 0; i < x->nsink; i++) {
		struct sink *k = &x->sink[i];

		k->batch = calloc(s->batch_rows, sizeof(*k->batch));
		if (!k->batch)
			break;
		k->wake = x->wake;
		pthread_mutex_init(&k->mu, NULL);
		pthread_cond_init(&k->cv, NULL);
		if (x->wake < 0 || pthread_create(&k->th, NULL, sink_thread, k)) {
			pthread_mutex_destroy(&k->mu);
			pthread_cond_destroy(&k->cv);
			tool_fail(err, errlen, -1,
				  "cannot start the thread of sink %s",
				  k->ops->name);
			rc = -EAGAIN;
			goto out;
		}
		k->started = true;
	}
	if (!x->rows || !x->bytes || (x->nsink && !x->sink[x->nsink - 1].batch)) {
		tool_fail(err, errlen, -1, "out of memory for a buffer of %"
			  PRIu64 " rows", x->cap);
		rc = -ENOMEM;
		goto out;
	}
	if (s->metrics_listen[0]) {
		struct metrics_server_opts mo = {
			.listen = s->metrics_listen, .write = write_metrics,
			.health = health, .ctx = x, .log = log_fn };

		rc = metrics_server_start(&mo, &x->ms);
		if (rc) {
			tool_fail(err, errlen, -1, "metrics_listen %s: %s",
				  s->metrics_listen, strerror(-rc));
			goto out;
		}
	}
	*out = x;
	return 0;
out:
	export_core_close(x);
	return rc;
}

/* Open the source again and every cursor where it stopped reading. */
static int reconnect(struct export_core *x)
{
	char err[512];
	int rc;

	for (size_t i = 0; i < x->ncur; i++) {
		dta_client_ap_close(x->cur[i].c);
		x->cur[i].c = NULL;
	}
	dta_client_close(x->client);
	x->client = NULL;
	rc = dta_client_open(x->set.source, NULL, &x->client, err, sizeof(err));
	if (rc) {
		tool_log(LOG_WARNING, "source %s: %s", x->set.source, err);
		return rc;
	}
	for (size_t i = 0; i < x->ncur; i++) {
		struct cursor *c = &x->cur[i];

		rc = dta_client_ap_open_at(x->client, x->meta[c->meta].structure,
					   c->list, c->readpos, &c->c);
		if (rc) {
			tool_log(LOG_WARNING, "source %s: following %s list %"
				 PRIu32 ": %s", x->set.source,
				 x->meta[c->meta].structure, c->list,
				 dta_client_error(x->client));
			return rc;
		}
	}
	x->reconnects++;
	tool_log(LOG_INFO, "source %s: reading again", x->set.source);
	return 0;
}

static size_t sinks_pending(const struct export_core *x)
{
	return (size_t)(x->tail - x->head);
}

int export_core_run(struct export_core *x, volatile int *stop)
{
	uint64_t stop_at = 0;

	tool_log(LOG_INFO, "exporting %zu list(s) from %s to %zu sink(s)",
		 x->ncur, x->set.source, x->nsink);
	for (;;) {
		uint64_t now = tool_now_ns(), wait_ns;
		long got = 0;
		bool stopping = *stop != 0;
		int fed = 0;

		if (stopping && !stop_at) {
			stop_at = now + DRAIN_NS;
			tool_log(LOG_INFO, "stopping: delivering %zu buffered "
				 "row(s)", sinks_pending(x));
		}
		if (x->source_down && !stopping && now >= x->source_retry_ns) {
			if (reconnect(x)) {
				x->source_backoff_ms = x->source_backoff_ms
					? x->source_backoff_ms * 2 : BACKOFF_MIN_MS;
				if (x->source_backoff_ms > BACKOFF_MAX_MS)
					x->source_backoff_ms = BACKOFF_MAX_MS;
				x->source_retry_ns = now + x->source_backoff_ms *
								   1000000ull;
			} else {
				x->source_down = false;
				x->source_backoff_ms = 0;
			}
		}
		if (!stopping && !x->source_down) {
			for (size_t i = 0; i < x->ncur && !x->source_down; i++) {
				long n = read_cursor(x, &x->cur[i]);

				if (n > 0)
					got += n;
			}
			for (size_t i = 0; i < x->nprod; i++) {
				int n = x->prod[i].poll(x->prod[i].ctx, x);

				if (n > 0)
					got += n;
			}
		}
		now = tool_now_ns();
		for (size_t i = 0; i < x->nsink; i++)
			fed += feed(x, &x->sink[i], now, stopping);
		if (fed)
			release(x);
		if (x->dirty && (stopping || now - x->last_save_ns >= SAVE_EVERY_NS)) {
			save_state(x);
			x->last_save_ns = now;
		}
		if (stopping && (x->head == x->tail || now >= stop_at))
			break;
		if (x->ms)
			metrics_server_run(x->ms);
		if (got || fed)
			continue;
		/* Nothing new: sleep until the next poll, flush or retry, or
		 * until a sink's write finishes (the eventfd). */
		wait_ns = x->set.poll_ms * 1000000ull;
		if (stopping)
			wait_ns = 10000000ull;
		for (size_t i = 0; i < x->nsink; i++) {
			const struct sink *k = &x->sink[i];
			uint64_t due;

			if (k->acked == x->tail || k->busy)
				continue;
			due = k->next_try_ns;
			if (!k->down) {
				uint64_t e = x->rows[k->acked % x->cap].enq_ns +
					     x->set.flush_ms * 1000000ull;
				due = e;
			}
			due = due > now ? due - now : 0;
			if (due < wait_ns)
				wait_ns = due;
		}
		if (wait_ns) {
			struct pollfd p[2] = {
				{ .fd = x->wake, .events = POLLIN },
				{ .fd = x->ms ? metrics_server_fd(x->ms) : -1,
				  .events = POLLIN } };
			int ms = (int)((wait_ns + 999999) / 1000000);
			uint64_t v;

			if (x->ms)
				ms = metrics_server_timeout(x->ms, ms);
			poll(p, 2, ms);
			if (p[0].revents & POLLIN) {
				if (read(x->wake, &v, sizeof(v)) < 0) {
					/* EAGAIN: another took it */
				}
			}
		}
	}
	for (size_t i = 0; i < x->nsink; i++)
		sink_stop(&x->sink[i]);
	if (x->dirty)
		save_state(x);
	if (x->head != x->tail)
		tool_log(LOG_WARNING, "stopped with %zu row(s) not acknowledged "
			 "by every sink: they are read again at the next start "
			 "(at-least-once)", sinks_pending(x));
	return 0;
}

void export_core_close(struct export_core *x)
{
	if (!x)
		return;
	metrics_server_stop(x->ms);
	for (size_t i = 0; i < x->nprod; i++)
		if (x->prod[i].close)
			x->prod[i].close(x->prod[i].ctx);
	for (size_t i = 0; i < x->nsink; i++) {
		struct sink *k = &x->sink[i];

		if (k->started) {
			sink_stop(k);
			pthread_mutex_destroy(&k->mu);
			pthread_cond_destroy(&k->cv);
		}
		k->ops->close(k->s);
		free(k->batch);
	}
	if (x->wake >= 0)
		close(x->wake);
	for (size_t i = 0; i < x->ncur; i++) {
		dta_client_ap_close(x->cur[i].c);
		free(x->cur[i].pl);
	}
	dta_client_close(x->client);
	for (size_t i = 0; i < x->nmeta; i++) {
		free(x->meta[i].collector);
		free(x->meta[i].structure);
		free((void *)x->meta[i].schema);
	}
	for (size_t i = 0; i < x->nloss; i++) {
		free(x->loss[i].collector);
		free(x->loss[i].structure);
		free(x->loss[i].cause);
	}
	for (size_t i = 0; i < x->nsaved; i++) {
		free(x->saved[i].collector);
		free(x->saved[i].structure);
	}
	free(x->saved);
	free(x->meta);
	free(x->cur);
	free(x->rows);
	free(x->bytes);
	free(x->readbuf);
	free(x);
}
