/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The query client (dta/client.h): one handle over a collector's socket,
 * its shared memory, its snapshot files, or every collector of a
 * configuration.
 *
 * Units: the client talks to "units", one per collector (index = the
 * configuration's collector index; 0 without a configuration). A unit is
 * either a socket link or a local executor over regions this process
 * maps. A structure has shares, share k on unit unit[k] where the unit
 * knows it by index idx[k] (its executor's, or its place in the
 * collector's `info`).
 *
 * Sockets are non-blocking and driven by poll(): requests of a batch are
 * sent while answers are read, a bounded window ahead, so neither side
 * ever waits for the other with both buffers full (the collector stops
 * reading a client whose answers pile up; a client that only wrote would
 * then wait forever).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dta/client.h"
#include "dta/config.h"
#include "dta/exec.h"
#include "dta/frame.h"
#include "dta/hash.h"
#include "dta/region.h"
#include "dta/schema.h"
#include "dta/wire.h"
#include "client_internal.h"
#include "client_tls.h"
#include "frame_internal.h"
#include "internal.h"

#define ERR_MAX 512
/* Keys per request frame: small enough that the collector starts on the
 * first frame while the next ones are on their way, large enough that a
 * frame's fixed costs vanish. */
#define FRAME_KEYS 8192
/* Request frames (binary) or lines (text) in flight per connection. */
#define WINDOW_FRAMES 8
#define WINDOW_LINES 1024
/* Unsent request bytes buffered ahead at most. */
#define SEND_AHEAD (4u << 20)
#define RECV_CHUNK (256u << 10)

enum { KIND_SOCKET = 1, KIND_LOCAL };

struct followed {
	int s;         /* the collector's structure index */
	uint32_t list; /* list within it */
};

/* One connection to a collector. */
struct link {
	int fd; /* -1: closed */
	struct dta__tls *tls; /* over TCP with TLS; NULL: a Unix socket */
	bool text;
	bool dead; /* lost: every later use fails */
	uint32_t max_frame;
	uint32_t id;
	uint8_t *rb; /* received, rb[roff..rlen) not consumed yet */
	size_t roff, rlen, rcap;
	struct dta_buf sb; /* to send, sb.p[soff..sb.len) */
	size_t soff;
	/* Append lists this connection's session ever followed: the
	 * collector keeps a consumer for each until the connection ends. */
	struct followed f[DTA_EXEC_READERS_MAX];
	unsigned nf;
};

struct unit {
	bool used; /* holds a share of some structure */
	/* "config:" through sockets: this collector did not answer (-errno
	 * or -DTA_E_UNAVAILABLE: why, in @down_msg); it is tried again at
	 * the next call that needs it. 0: answering as far as we know. */
	int down;
	char down_msg[ERR_MAX];
	int kind;
	char what[PATH_MAX + 160]; /* for messages */
	char path[DTA_SOCKET_PATH_MAX + 1];   /* socket */
	char ep[256]; /* endpoint HOST:PORT when reached through it, else "" */
	unsigned gen; /* connections made so far (cursors see reconnects) */
	struct link ln;
	struct dta_exec *x; /* local */
	struct dta_exec_session *sess;
	int wfd; /* socket: a text connection for `wait`, -1: none */
	struct dta__tls *wtls; /* its TLS session (a tls unit) */
	/* A collector reached over TCP with TLS (tls:HOST:PORT): where, and
	 * the name its certificate must carry; else path is its socket. */
	bool tls;
	char host[256], port[8], tls_name[256];
	struct dta_region *r[DTA_CONFIG_MAX_STRUCTURES];
	size_t nr;
};

struct cstruct {
	struct dta_client_structure pub;
	char name[DTA_CONFIG_NAME_MAX];
	struct dta_schema schema;
	uint32_t *values;
	uint32_t lps; /* Append: lists of one share */
	unsigned nshares;
	uint8_t unit[DTA_CONFIG_MAX_COLLECTORS];
	int idx[DTA_CONFIG_MAX_COLLECTORS];
	uint32_t base[DTA_CONFIG_MAX_COLLECTORS]; /* list base of share k */
};

enum { VIA_AUTO = 0, VIA_SOCKET, VIA_ENDPOINT };

struct dta_client {
	unsigned flags;
	bool sockets; /* config: every collector through its socket */
	/* "config:" through sockets or endpoints: a collector that does not
	 * answer makes answers partial, not calls fail (dta_client_partial). */
	bool fleet;
	int via;        /* VIA_*: the target's ?via= */
	int timeout_ms; /* -1: none */
	uint32_t missing; /* collectors the last call lacked (bit = index) */
	char conf[PATH_MAX]; /* the configuration's path, for messages */
	/* ?ca=&cert=&key= of a "config:" target, for endpoints ("": unset) */
	char tls_ca[PATH_MAX], tls_cert[PATH_MAX], tls_key[PATH_MAX];
	struct dta_config *cfg;
	struct unit u[DTA_CONFIG_MAX_COLLECTORS];
	size_t nu;
	struct cstruct s[DTA_CONFIG_MAX_STRUCTURES];
	size_t ns;
	struct dta_client_cursor *cursors;
	struct dta__tls_ctx *tls; /* credentials of the tls units */
	char err[ERR_MAX];
};

struct dta_client_cursor {
	struct dta_client *c;
	struct dta_client_cursor *next;
	size_t si;
	unsigned share;
	uint32_t list; /* within the share */
	int from;
	uint64_t position;
	uint64_t at; /* DTA_EXEC_AP_AT: where the first read resumes */
	struct unit *u;
	struct dta_exec_session *sess; /* local: its own consumer */
	struct unit *own;              /* socket: its own connection, or NULL */
	unsigned gen; /* its unit's connection it follows on (unit.gen) */
	/* Entries read when the cursor was opened (DTA_EXEC_AP_NOW fixes
	 * its start then), not yet returned: pend[poff..npend). */
	uint8_t *pend;
	size_t poff, npend;
	uint64_t plost;
};

/* ---- errors ---- */

DTA__PRINTF(3, 4)
static int fail(struct dta_client *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return code;
}

/* For the layers over the client (int_query.c): their errors in the
 * client's message. */
int dta__client_fail(struct dta_client *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return code;
}

static int ok(struct dta_client *c)
{
	c->err[0] = 0;
	return 0;
}

DTA_API const char *dta_client_error(const struct dta_client *c)
{
	return c ? c->err : "no client";
}

/* ---- small helpers ---- */

/* @len bytes as hex into @out, NUL-terminated. */
static void hex_put(char *out, const uint8_t *p, size_t len)
{
	dta__hex_put(out, p, len);
	out[2 * len] = 0;
}

/* Exactly @len bytes of hex text @s into @out; false when it is not. */
static bool hex_get(const char *s, uint8_t *out, size_t len)
{
	return s && strlen(s) == 2 * len &&
	       dta__hex_decode(s, 2 * len, out) == (int)len;
}

static bool same_layout(const struct dta_layout *a, const struct dta_layout *b)
{
	uint8_t x[DTA_LAYOUT_WIRE_SIZE], y[DTA_LAYOUT_WIRE_SIZE];

	return dta_layout_encode(a, x, sizeof(x)) == DTA_LAYOUT_WIRE_SIZE &&
	       dta_layout_encode(b, y, sizeof(y)) == DTA_LAYOUT_WIRE_SIZE &&
	       !memcmp(x, y, sizeof(x));
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* ---- sockets ---- */

static void dir_of(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, cap, ".");
	else if (slash == path)
		snprintf(out, cap, "/");
	else
		snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

/*
 * Connect to the collector socket at @path and check who answers: the
 * peer's uid (SO_PEERCRED) must be our effective uid, root, or the owner
 * of the socket's directory (docs/security.md): anyone may create a
 * socket where they can write, and whoever owns the directory could
 * replace ours anyway.
 */
static int sock_connect(struct dta_client *c, const char *path,
			const char *what)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	struct stat st;
	char dir[PATH_MAX];
	int fd, e;

	if (strlen(path) > DTA_SOCKET_PATH_MAX)
		return fail(c, -ENAMETOOLONG, "%s: socket path %s is %zu bytes; "
			    "a Unix socket path has at most %d", what, path,
			    strlen(path), DTA_SOCKET_PATH_MAX);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(c, -errno, "%s: socket: %s", what, strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		close(fd);
		return fail(c, -e, "cannot reach %s: %s", what, strerror(e));
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0) {
		e = errno;
		close(fd);
		return fail(c, -e, "%s: cannot learn who answers (SO_PEERCRED): "
			    "%s", what, strerror(e));
	}
	dir_of(path, dir, sizeof(dir));
	if (cr.uid == geteuid() || cr.uid == 0 ||
	    (stat(dir, &st) == 0 && st.st_uid == cr.uid)) {
		if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
			e = errno;
			close(fd);
			return fail(c, -e, "%s: %s", what, strerror(e));
		}
		return fd;
	}
	close(fd);
	return fail(c, -EPERM, "%s is answered by a process of uid %u, which "
		    "is neither you (uid %u), root, nor the owner of %s: "
		    "refusing to talk to it (docs/security.md)", what,
		    (unsigned)cr.uid, (unsigned)geteuid(), dir);
}

static void link_close(struct link *ln)
{
	dta__tls_free(ln->tls);
	ln->tls = NULL;
	if (ln->fd >= 0)
		close(ln->fd);
	ln->fd = -1;
	free(ln->rb);
	ln->rb = NULL;
	ln->roff = ln->rlen = ln->rcap = 0;
	dta_buf_free(&ln->sb);
	ln->soff = 0;
}

/* The connection broke or the collector said something we cannot follow:
 * nothing later on it can be trusted to match its requests. */
static int link_lost(struct dta_client *c, struct unit *u, int code,
		     const char *why)
{
	/* (@why may be the session's: said before it goes) */
	fail(c, code, "%s: %s", u->what, why);
	u->ln.dead = true;
	dta__tls_free(u->ln.tls);
	u->ln.tls = NULL;
	if (u->ln.fd >= 0)
		close(u->ln.fd);
	u->ln.fd = -1;
	return code;
}

/* Read what the socket has now into rb (0 when nothing: EAGAIN). */
static int link_recv(struct dta_client *c, struct unit *u)
{
	struct link *ln = &u->ln;
	ssize_t n;

	if (ln->rcap - ln->rlen < RECV_CHUNK / 4 && ln->roff) {
		memmove(ln->rb, ln->rb + ln->roff, ln->rlen - ln->roff);
		ln->rlen -= ln->roff;
		ln->roff = 0;
	}
	if (ln->rcap - ln->rlen < RECV_CHUNK / 4) {
		size_t cap = ln->rcap ? 2 * ln->rcap : RECV_CHUNK;
		uint8_t *p = realloc(ln->rb, cap);

		if (!p)
			return fail(c, -ENOMEM, "%s: out of memory", u->what);
		ln->rb = p;
		ln->rcap = cap;
	}
	for (;;) {
		n = ln->tls ? dta__tls_recv(ln->tls, ln->rb + ln->rlen,
					    ln->rcap - ln->rlen)
			    : recv(ln->fd, ln->rb + ln->rlen, ln->rcap - ln->rlen,
				   0);
		if (n > 0) {
			ln->rlen += (size_t)n;
			return 1;
		}
		if (n == 0)
			return link_lost(c, u, -ECONNRESET,
					 "the collector closed the connection "
					 "(it stopped, or dropped this client: "
					 "see its log)");
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return link_lost(c, u, -errno, ln->tls ? dta__tls_why(ln->tls)
						       : strerror(errno));
	}
}

/* Make room for a frame of @len bytes at roff. */
static int link_room(struct dta_client *c, struct unit *u, size_t len)
{
	struct link *ln = &u->ln;
	uint8_t *p;

	if (ln->rcap - ln->roff >= len)
		return 0;
	if (ln->roff) {
		memmove(ln->rb, ln->rb + ln->roff, ln->rlen - ln->roff);
		ln->rlen -= ln->roff;
		ln->roff = 0;
	}
	if (ln->rcap >= len)
		return 0;
	p = realloc(ln->rb, len + RECV_CHUNK);
	if (!p)
		return fail(c, -ENOMEM, "%s: out of memory", u->what);
	ln->rb = p;
	ln->rcap = len + RECV_CHUNK;
	return 0;
}

/*
 * The next complete answer in rb, if any: a frame (binary) or a line
 * without its newline (text, and @line). Return 1 with *@p and *@len set
 * (*@used: bytes to consume), 0 when not complete yet, or an error.
 */
static int link_answer(struct dta_client *c, struct unit *u, bool line,
		       const uint8_t **p, size_t *len, size_t *used)
{
	struct link *ln = &u->ln;
	size_t have = ln->rlen - ln->roff;
	const uint8_t *b = ln->rb + ln->roff;
	long flen;

	if (line) {
		const uint8_t *nl = have ? memchr(b, '\n', have) : NULL;

		if (!nl)
			return 0;
		*p = b;
		*len = (size_t)(nl - b);
		*used = *len + 1;
		return 1;
	}
	flen = dta_frame_length(b, have);
	if (flen < 0)
		return link_lost(c, u, -DTA_E_PROTOCOL,
				 "the collector sent a frame with a bad length");
	if (flen == 0)
		return 0;
	if (have < (size_t)flen)
		return link_room(c, u, (size_t)flen)
			       ? link_lost(c, u, -ENOMEM, "out of memory for "
					   "an answer frame")
			       : 0;
	*p = b;
	*len = (size_t)flen;
	*used = (size_t)flen;
	return 1;
}

/*
 * A pipeline of @n requests on unit @u's connection (or @u's own): put()
 * appends request i to the send buffer, take() consumes its answer (a
 * frame, or a line with @line). At most @window requests are in flight.
 * A put() or take() error stops new requests; the answers to those sent
 * are still read (so the connection stays in step) and the first error
 * is returned.
 */
struct pipe {
	bool line;
	size_t window;
	int (*put)(struct dta_client *c, void *ctx, size_t i, struct dta_buf *sb);
	int (*take)(struct dta_client *c, void *ctx, size_t i, const uint8_t *p,
		    size_t len);
	void *ctx;
};

/* One pipeline in progress, on one connection. */
struct job {
	struct unit *u;
	const struct pipe *pp;
	size_t n, built, done;
	int first;   /* the first error of a put() or take() */
	int end;     /* 1 while running, then its outcome */
	char msg[ERR_MAX];
};

/* Job @j is over with @rc; its message is c->err's now (or the one of
 * its first error). */
static void job_end(struct dta_client *c, struct job *j, int rc)
{
	j->end = rc;
	if (rc && rc != j->first)
		memcpy(j->msg, c->err, sizeof(j->msg));
}

static void job_error(struct dta_client *c, struct job *j, int rc)
{
	if (j->first)
		return;
	j->first = rc;
	memcpy(j->msg, c->err, sizeof(j->msg));
}

/* What job @j can do without waiting: build requests while the window
 * lets it, take the answers already received. */
static void job_step(struct dta_client *c, struct job *j)
{
	struct link *ln = &j->u->ln;
	const struct pipe *pp = j->pp;
	bool more = true;
	int rc;

	while (more && j->end == 1) {
		const uint8_t *p = NULL;
		size_t len = 0, used = 0;

		more = false;
		while (!j->first && j->built < j->n &&
		       j->built - j->done < pp->window &&
		       ln->sb.len - ln->soff < SEND_AHEAD) {
			rc = pp->put(c, pp->ctx, j->built, &ln->sb);
			if (!rc && ln->sb.oom)
				rc = fail(c, -ENOMEM, "out of memory");
			if (rc) {
				job_error(c, j, rc);
				break;
			}
			j->built++;
		}
		while (j->done < j->built) {
			rc = link_answer(c, j->u, pp->line, &p, &len, &used);
			if (rc < 0) {
				job_end(c, j, rc);
				return;
			}
			if (rc == 0)
				break;
			rc = pp->take(c, pp->ctx, j->done, p, len);
			ln->roff += used;
			j->done++;
			more = true; /* room for more requests, maybe */
			if (ln->dead) {
				job_end(c, j, rc); /* link_lost(): out of step */
				return;
			}
			if (rc)
				job_error(c, j, rc);
		}
		if (j->done == (j->first ? j->built : j->n))
			job_end(c, j, j->first);
	}
}

/*
 * A send to @u failed with @rc. A collector that turns a client away
 * ("too many clients") says why in one line, then closes: that line,
 * received or still waiting (peeked, not taken), is the message.
 */
static int send_failed(struct dta_client *c, struct unit *u, int rc)
{
	struct link *ln = &u->ln;
	char peek[512];
	const char *p = ln->rb ? (const char *)ln->rb + ln->roff : NULL;
	size_t len = ln->rb ? ln->rlen - ln->roff : 0;
	json_t *o = NULL, *e;
	const char *nl;

	/* (TLS: no peeking; a collector refuses a TLS client without a
	 * line, and a refused certificate is its own error.) */
	if (!len && !ln->tls && (rc == -EPIPE || rc == -ECONNRESET)) {
		ssize_t n = recv(ln->fd, peek, sizeof(peek), MSG_PEEK |
				 MSG_DONTWAIT);

		p = peek;
		len = n > 0 ? (size_t)n : 0;
	}
	nl = len ? memchr(p, '\n', len) : NULL;
	if (nl && len > 9 && !memcmp(p, "{\"error\":", 9))
		o = json_loadb(p, (size_t)(nl - p), 0, NULL);
	e = json_object_get(o, "error");
	if (json_is_string(e))
		rc = fail(c, rc, "%.300s (%s then closed the connection)",
			  json_string_value(e), u->what);
	else
		rc = fail(c, rc, "%s: %s", u->what, ln->tls ? dta__tls_why(ln->tls)
							    : strerror(-rc));
	json_decref(o);
	return rc;
}

/* Wait on every running job's connection at once: send what waits to be
 * sent, receive what has come. */
static int jobs_wait(struct dta_client *c, struct job *jobs, size_t nj)
{
	struct pollfd pfd[DTA_CONFIG_MAX_COLLECTORS];
	struct job *map[DTA_CONFIG_MAX_COLLECTORS];
	bool pend[DTA_CONFIG_MAX_COLLECTORS], any_pend = false;
	size_t np = 0;
	int rc;

	for (size_t i = 0; i < nj && np < DTA_CONFIG_MAX_COLLECTORS; i++) {
		struct link *ln = &jobs[i].u->ln;

		if (jobs[i].end != 1)
			continue;
		pfd[np] = (struct pollfd){ .fd = ln->fd, .events = POLLIN };
		if (ln->soff < ln->sb.len)
			pfd[np].events |= POLLOUT;
		/* Answers TLS decrypted already: the socket may stay quiet. */
		pend[np] = dta__tls_pending(ln->tls);
		any_pend |= pend[np];
		map[np++] = &jobs[i];
	}
	if (!np)
		return 0;
	rc = poll(pfd, np, any_pend ? 0 : c->timeout_ms);
	if (rc < 0) {
		if (errno == EINTR)
			return 1;
		rc = fail(c, -errno, "poll: %s", strerror(errno));
		for (size_t i = 0; i < np; i++)
			job_end(c, map[i], rc);
		return 0;
	}
	if (rc == 0 && !any_pend) {
		/* Nothing moved on any connection for timeout_ms: the
		 * collectors still owing answers count as gone (a later
		 * answer could not be matched to its request any more). */
		char why[96];

		snprintf(why, sizeof(why), "no answer within %d ms (the "
			 "client's timeout_ms)", c->timeout_ms);
		for (size_t i = 0; i < np; i++)
			job_end(c, map[i], link_lost(c, map[i]->u, -ETIMEDOUT,
						      why));
		return 1;
	}
	for (size_t i = 0; i < np; i++) {
		struct job *j = map[i];
		struct link *ln = &j->u->ln;

		if ((pfd[i].revents & POLLOUT) && ln->soff < ln->sb.len) {
			ssize_t w = ln->tls ? dta__tls_send(ln->tls,
						ln->sb.p + ln->soff,
						ln->sb.len - ln->soff)
					    : send(ln->fd, ln->sb.p + ln->soff,
						   ln->sb.len - ln->soff,
						   MSG_NOSIGNAL | MSG_DONTWAIT);

			if (w > 0) {
				ln->soff += (size_t)w;
				if (ln->soff == ln->sb.len)
					ln->sb.len = ln->soff = 0;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR &&
				   errno != EWOULDBLOCK) {
				/* EPIPE, ECONNRESET: read what it said
				 * before it went. */
				ln->sb.len = ln->soff = 0;
				job_error(c, j, send_failed(c, j->u, -errno));
				j->n = j->built;
			}
		}
		if (j->end == 1 && ln->fd >= 0 &&
		    (pend[i] || (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))) {
			rc = link_recv(c, j->u);
			if (rc < 0 && j->first && j->first != -EPIPE &&
			    j->first != -ECONNRESET)
				job_end(c, j, j->first);
			else if (rc < 0)
				job_end(c, j, rc);
		}
	}
	return 1;
}

/*
 * Run pipelines on several connections at once (one per collector, so
 * that they all work at the same time); return the first failed job's
 * error, with its message.
 */
static int jobs_run(struct dta_client *c, struct job *jobs, size_t nj)
{
	bool running = true;

	for (size_t i = 0; i < nj; i++) {
		struct job *j = &jobs[i];
		struct link *ln = &j->u->ln;

		j->built = j->done = 0;
		j->first = 0;
		j->end = 1;
		if (ln->dead || ln->fd < 0) {
			job_end(c, j, fail(c, -EPIPE, "%s: the connection was "
					   "lost earlier; open the client again",
					   j->u->what));
			continue;
		}
		if (ln->sb.oom)
			dta_buf_free(&ln->sb); /* out of memory last time */
		ln->sb.len = ln->soff = 0;
	}
	while (running) {
		running = false;
		for (size_t i = 0; i < nj; i++) {
			job_step(c, &jobs[i]);
			running |= jobs[i].end == 1;
		}
		if (running && !jobs_wait(c, jobs, nj))
			break;
	}
	for (size_t i = 0; i < nj; i++)
		if (jobs[i].end) {
			memcpy(c->err, jobs[i].msg, sizeof(c->err));
			return jobs[i].end;
		}
	return 0;
}

static int pipeline(struct dta_client *c, struct unit *u, size_t n,
		    const struct pipe *pp)
{
	struct job j = { .u = u, .pp = pp, .n = n };

	return jobs_run(c, &j, 1);
}

/* ---- one request, one answer ---- */

struct one {
	const void *req;
	size_t len;
	uint8_t *ans; /* malloc'd copy, NUL-terminated */
	size_t ans_len;
};

static int one_put(struct dta_client *c, void *ctx, size_t i,
		   struct dta_buf *sb)
{
	struct one *o = ctx;

	(void)c;
	(void)i;
	dta_buf_put(sb, o->req, o->len);
	return 0;
}

static int one_take(struct dta_client *c, void *ctx, size_t i,
		    const uint8_t *p, size_t len)
{
	struct one *o = ctx;

	(void)i;
	o->ans = malloc(len + 1);
	if (!o->ans)
		return fail(c, -ENOMEM, "out of memory");
	memcpy(o->ans, p, len);
	o->ans[len] = 0;
	o->ans_len = len;
	return 0;
}

/* Send @len bytes and read one answer (a line with @line, else a frame)
 * into *@ans (malloc'd, NUL-terminated; the caller frees it). */
static int ask_raw(struct dta_client *c, struct unit *u, const void *req,
		   size_t len, bool line, uint8_t **ans, size_t *ans_len)
{
	struct one o = { .req = req, .len = len };
	struct pipe pp = { .line = line, .window = 1, .put = one_put,
			   .take = one_take, .ctx = &o };
	int rc = pipeline(c, u, 1, &pp);

	if (rc) {
		free(o.ans);
		return rc;
	}
	*ans = o.ans;
	*ans_len = o.ans_len;
	return 0;
}

/* Text request @req to @u, in the connection's mode: its JSON answer in
 * *@json (malloc'd). An error frame becomes {"error":MSG}. */
static int ask_text(struct dta_client *c, struct unit *u, const char *req,
		    char **json)
{
	struct dta__frame_request r = { .op = DTA_FRAME_TEXT };
	struct dta__frame_answer a;
	struct dta_buf b = { 0 };
	uint8_t *ans = NULL;
	size_t alen;
	int rc;

	if (u->ln.text) {
		dta_buf_put(&b, req, strlen(req));
		dta_buf_put(&b, "\n", 1);
	} else {
		r.id = u->ln.id++;
		r.payload = (const uint8_t *)req;
		r.payload_len = strlen(req);
		rc = dta__frame_request_put(&b, &r);
		if (rc) {
			dta_buf_free(&b);
			return fail(c, rc, "%s: request %.40s: %s", u->what,
				    req, dta_strerror(rc));
		}
	}
	if (b.oom) {
		dta_buf_free(&b);
		return fail(c, -ENOMEM, "out of memory");
	}
	rc = ask_raw(c, u, b.p, b.len, u->ln.text, &ans, &alen);
	dta_buf_free(&b);
	if (rc)
		return rc;
	if (u->ln.text) {
		*json = (char *)ans;
		return 0;
	}
	if (dta__frame_answer_parse(ans, alen, &a) || a.op != DTA_FRAME_TEXT ||
	    a.id != r.id) {
		free(ans);
		return link_lost(c, u, -DTA_E_PROTOCOL,
				 "the collector's answer does not match the "
				 "request");
	}
	if (a.status) {
		json_t *o = json_pack("{s:s%}", "error", a.msg, a.msg_len);

		*json = o ? json_dumps(o, JSON_COMPACT) : NULL;
		json_decref(o);
	} else {
		*json = strndup((const char *)a.data, a.data_len);
	}
	free(ans);
	if (!*json)
		return fail(c, -ENOMEM, "out of memory");
	return 0;
}

/* Parse @js, which must be a JSON object. */
static json_t *parse_obj(const char *js, size_t len)
{
	json_t *o = json_loadb(js, len, JSON_REJECT_DUPLICATES, NULL);

	if (o && !json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The connection's mode: `binary` switches it to frames unless the caller
 * asked for text lines. */
static int link_start(struct dta_client *c, struct unit *u)
{
	static const char req[] = "binary\n";
	uint8_t *ans;
	size_t alen;
	json_t *o, *mf;
	int rc;

	u->ln.max_frame = DTA_FRAME_MAX;
	if (u->ln.text)
		return 0;
	rc = ask_raw(c, u, req, sizeof(req) - 1, true, &ans, &alen);
	if (rc)
		return rc;
	o = parse_obj((const char *)ans, alen);
	mf = o ? json_object_get(o, "max_frame") : NULL;
	if (!o || !json_is_integer(json_object_get(o, "binary")) ||
	    !json_is_integer(mf) || json_integer_value(mf) < 256) {
		json_t *e = o ? json_object_get(o, "error") : NULL;

		/* An error answer comes first: it may be why we are turned
		 * away ("too many clients"), not the protocol. */
		if (json_is_string(e))
			rc = fail(c, -DTA_E_PROTOCOL, "%.200s (%s answered "
				  "this to `binary`; for a collector without "
				  "binary frames use DTA_CLIENT_TEXT)",
				  json_string_value(e), u->what);
		else
			rc = fail(c, -DTA_E_PROTOCOL, "%s does not speak "
				  "binary frames (it answered %.200s); use "
				  "DTA_CLIENT_TEXT for text lines", u->what,
				  (const char *)ans);
		json_decref(o);
		free(ans);
		return rc;
	}
	if (json_integer_value(mf) < (json_int_t)DTA_FRAME_MAX)
		u->ln.max_frame = (uint32_t)json_integer_value(mf);
	json_decref(o);
	free(ans);
	return 0;
}

/* ---- structures from a collector's `info` ---- */

static int json_u64(json_t *o, const char *key, uint64_t *v)
{
	json_t *j = json_object_get(o, key);

	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return -1;
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

/* The layout of an `info` entry: "layout" (the encoded layout, exact)
 * when the collector gives it, else rebuilt from the geometry keys. */
static int info_layout(json_t *e, struct dta_layout *l)
{
	const char *hex = json_string_value(json_object_get(e, "layout"));
	const char *prim = json_string_value(json_object_get(e, "primitive"));
	const char *hash = json_string_value(json_object_get(e, "hash"));
	uint64_t a = 0, b = 0, d = 0, f = 0, seed = 0;
	int p, fam;

	if (hex) {
		uint8_t buf[DTA_LAYOUT_WIRE_SIZE];

		if (!hex_get(hex, buf, sizeof(buf)))
			return -DTA_E_PROTOCOL;
		return dta_layout_decode(buf, sizeof(buf), l);
	}
	p = prim ? dta_primitive_parse(prim) : -1;
	fam = hash ? dta_hash_family_parse(hash) : -1;
	if (p < 0 || (p != DTA_PRIM_APPEND && (fam < 0 ||
					       json_u64(e, "seed", &seed))))
		return -DTA_E_PROTOCOL;
	switch (p) {
	case DTA_PRIM_KEY_WRITE:
		if (json_u64(e, "slots", &a) || json_u64(e, "data", &b) ||
		    json_u64(e, "checksum", &d) || json_u64(e, "redundancy", &f))
			return -DTA_E_PROTOCOL;
		return dta_layout_kw(l, a, (unsigned)b, (unsigned)d,
				     (unsigned)f, fam, seed);
	case DTA_PRIM_POSTCARD:
		if (json_u64(e, "chunks", &a) || json_u64(e, "hops", &b) ||
		    json_u64(e, "slot_bytes", &d) ||
		    json_u64(e, "redundancy", &f))
			return -DTA_E_PROTOCOL;
		return dta_layout_pc(l, a, (unsigned)b, (unsigned)d,
				     (unsigned)f, fam, seed);
	case DTA_PRIM_APPEND:
		if (json_u64(e, "lists", &a) || json_u64(e, "batches", &b) ||
		    json_u64(e, "batch", &d) || json_u64(e, "entry", &f) ||
		    a > UINT32_MAX || b > UINT32_MAX)
			return -DTA_E_PROTOCOL;
		return dta_layout_ap(l, (uint32_t)a, (uint32_t)b, (unsigned)d,
				     (unsigned)f, 0);
	case DTA_PRIM_KEY_INCREMENT:
		if (json_u64(e, "width", &a) || json_u64(e, "rows", &b) ||
		    json_u64(e, "banks", &d))
			return -DTA_E_PROTOCOL;
		return dta_layout_ki(l, a, (unsigned)b, (unsigned)d, fam, seed);
	}
	return -DTA_E_PROTOCOL;
}

/* Ask @u for `info`: its structures array in *@arr (a reference the
 * caller drops with json_decref(*@root)). */
static int link_info(struct dta_client *c, struct unit *u, json_t **root,
		     json_t **arr)
{
	char *js = NULL;
	json_t *o;
	int rc = ask_text(c, u, "info", &js);

	if (rc)
		return rc;
	o = parse_obj(js, strlen(js));
	*arr = o ? json_object_get(o, "structures") : NULL;
	if (!json_is_array(*arr)) {
		json_t *e = o ? json_object_get(o, "error") : NULL;

		rc = fail(c, -DTA_E_PROTOCOL, "%s: bad answer to info: %.200s",
			  u->what, json_is_string(e) ? json_string_value(e)
						     : js);
		json_decref(o);
		free(js);
		return rc;
	}
	free(js);
	*root = o;
	return 0;
}

/* The entry of @arr named @name (its index in *@idx), or NULL. */
static json_t *info_find(json_t *arr, const char *name, int *idx)
{
	size_t i;
	json_t *e;

	json_array_foreach(arr, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));

		if (n && !strcmp(n, name)) {
			*idx = (int)i;
			return e;
		}
	}
	return NULL;
}

/* Schema and values of an `info` entry, into @s (when not known yet). */
static int info_extras(struct dta_client *c, struct unit *u, json_t *e,
		       struct cstruct *s)
{
	const char *sch = json_string_value(json_object_get(e, "schema"));
	json_t *vals = json_object_get(e, "values");
	char why[160];

	if (sch && !s->pub.schema) {
		if (dta_schema_parse(sch, &s->schema, why, sizeof(why)))
			return fail(c, -DTA_E_PROTOCOL, "%s: structure %s: bad "
				    "schema: %s", u->what, s->name, why);
		s->pub.schema = &s->schema;
	}
	if (json_is_array(vals) && !s->values && json_array_size(vals)) {
		size_t i, n = json_array_size(vals);
		json_t *v;

		s->values = calloc(n, sizeof(*s->values));
		if (!s->values)
			return fail(c, -ENOMEM, "out of memory");
		json_array_foreach(vals, i, v) {
			if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			    json_integer_value(v) > UINT32_MAX)
				return fail(c, -DTA_E_PROTOCOL, "%s: structure "
					    "%s: bad values", u->what, s->name);
			s->values[i] = (uint32_t)json_integer_value(v);
		}
		s->pub.values = s->values;
		s->pub.nvalues = n;
	}
	return 0;
}

/* ---- opening ---- */

static void unit_init(struct unit *u)
{
	memset(u, 0, sizeof(*u));
	u->ln.fd = -1;
	u->wfd = -1;
}

/* The `wait` connection, if any. */
static void wait_close(struct unit *u)
{
	dta__tls_free(u->wtls);
	u->wtls = NULL;
	if (u->wfd >= 0)
		close(u->wfd);
	u->wfd = -1;
}

/* A connection to @u's collector: its socket (and *@tls for a tls unit),
 * or an error. */
static int unit_dial(struct dta_client *c, struct unit *u, const char *path,
		     struct dta__tls **tls)
{
	*tls = NULL;
	if (!u->tls)
		return sock_connect(c, path, u->what);
	return dta__tls_dial(c->tls, u->host, u->port, u->tls_name,
			     c->timeout_ms < 0 ? INT_MAX : c->timeout_ms, tls,
			     c->err, sizeof(c->err));
}

static void unit_free(struct unit *u)
{
	dta_exec_session_destroy(u->sess);
	dta_exec_destroy(u->x);
	for (size_t i = 0; i < u->nr; i++)
		dta_region_destroy(u->r[i]);
	link_close(&u->ln);
	wait_close(u);
	unit_init(u);
}

static int unit_socket(struct dta_client *c, struct unit *u, const char *path)
{
	int fd;

	u->kind = KIND_SOCKET;
	u->ln.text = c->flags & DTA_CLIENT_TEXT;
	fd = unit_dial(c, u, path, &u->ln.tls);
	if (fd >= 0 && !u->tls)
		memcpy(u->path, path, strlen(path) + 1); /* checked there */
	if (fd < 0)
		return fd;
	u->ln.fd = fd;
	return link_start(c, u);
}

/* Make @to reach the collector @from reaches (over TLS: the same host,
 * port and name; a Unix socket: the path unit_socket() is given). */
static void unit_copy_place(struct unit *to, const struct unit *from)
{
	to->tls = from->tls;
	memcpy(to->host, from->host, sizeof(to->host));
	memcpy(to->port, from->port, sizeof(to->port));
	memcpy(to->tls_name, from->tls_name, sizeof(to->tls_name));
}

static int unit_local(struct dta_client *c, struct unit *u)
{
	int rc;

	u->kind = KIND_LOCAL;
	rc = dta_exec_create(&u->x);
	if (!rc)
		rc = dta_exec_session_create(u->x, &u->sess);
	if (rc)
		return fail(c, rc, "%s", dta_strerror(rc));
	return 0;
}

/* A new structure; NULL (with the message set) when there are too many. */
static struct cstruct *add_struct(struct dta_client *c, const char *name,
				  const struct dta_layout *l)
{
	struct cstruct *s;

	if (c->ns == DTA_CONFIG_MAX_STRUCTURES) {
		fail(c, -ENOSPC, "more than %d structures",
		     DTA_CONFIG_MAX_STRUCTURES);
		return NULL;
	}
	s = &c->s[c->ns++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->pub.name = s->name;
	s->pub.layout = *l;
	s->pub.shares = 1;
	s->nshares = 1;
	for (unsigned k = 0; k < DTA_CONFIG_MAX_COLLECTORS; k++)
		s->idx[k] = -1;
	if (l->primitive == DTA_PRIM_APPEND) {
		s->lps = l->g.ap.lists;
		s->pub.lists = s->lps;
	}
	return s;
}

/* Value set and schema of @s from its configuration section @cs. */
static int take_config(struct dta_client *c, struct cstruct *s,
		       const struct dta_config_structure *cs)
{
	if (cs->nvalues) {
		s->values = malloc(cs->nvalues * sizeof(*s->values));
		if (!s->values)
			return fail(c, -ENOMEM, "out of memory");
		memcpy(s->values, cs->values, cs->nvalues * sizeof(*s->values));
		s->pub.values = s->values;
		s->pub.nvalues = cs->nvalues;
	}
	if (cs->schema) {
		s->schema = *cs->schema;
		s->pub.schema = &s->schema;
	}
	return 0;
}

/*
 * Open region @path (a shared-memory name with @shm, else a file) for
 * share @k of @s on local unit @u.
 */
static int add_region(struct dta_client *c, struct unit *u,
		      struct cstruct *s, unsigned k, const char *path,
		      bool shm, bool any_owner, bool check, const char *dir)
{
	struct dta_region_opts o = { .sz = sizeof(o),
				     .backing = shm ? DTA_BACKING_SHM
						    : DTA_BACKING_FILE,
				     .path = path, .dir = shm ? dir : NULL,
				     .flags = DTA_REGION_RDONLY |
					      (any_owner ? DTA_REGION_ANY_OWNER
							 : 0) };
	struct dta_exec_structure xs = { 0 };
	struct dta_region *r;
	int rc = dta_region_open(&o, &r), idx;

	if (rc == -ENOENT && shm)
		return fail(c, rc, "%s: structure %s: no shared-memory object "
			    "%s: the collector is not running on this machine, "
			    "or keeps it in anonymous memory (shared_memory = "
			    "no); ask over its socket", u->what, s->name, path);
	if (rc == -EPERM && shm)
		return fail(c, rc, "%s: structure %s: refusing %s: owned by "
			    "another user or writable by anyone "
			    "(docs/security.md; DTA_CLIENT_ANY_OWNER accepts "
			    "another owner)", u->what, s->name, path);
	if (rc)
		return fail(c, rc, "%s%s%s: %s", shm ? "structure " : "",
			    shm ? s->name : "", shm ? path : path,
			    dta_strerror(rc));
	u->r[u->nr++] = r;
	if (check && !same_layout(dta_region_layout(r), &s->pub.layout))
		return fail(c, -DTA_E_MISMATCH, "%s: structure %s has another "
			    "geometry or hashing than the configuration says",
			    path, s->name);
	if (!s->pub.schema && dta_region_schema(r)) {
		/* The header's (file:, or a configuration without one). */
		s->schema = *dta_region_schema(r);
		s->pub.schema = &s->schema;
	}
	xs.name = s->name;
	xs.layout = dta_region_layout(r);
	xs.area = dta_region_data(r);
	xs.values = s->values;
	xs.nvalues = s->pub.nvalues;
	xs.list_base = s->base[k];
	xs.schema = s->pub.schema;
	idx = dta_exec_add(u->x, &xs);
	if (idx < 0)
		return fail(c, idx, "%s: structure %s: %s", path, s->name,
			    dta_strerror(idx));
	s->idx[k] = idx;
	return 0;
}

enum cfg_mode { CFG_SOCKET = 1, CFG_MAP, CFG_SNAPSHOT };

/* The structures of configuration @c->cfg, or with @only >= 0 the shares
 * collector @only holds; marks the units that hold a share. */
static int config_structures(struct dta_client *c, int only)
{
	for (size_t i = 0; i < dta_config_count(c->cfg); i++) {
		const struct dta_config_structure *cs =
			dta_config_structure(c->cfg, i);
		struct cstruct *s;
		int k = only >= 0 ? dta_config_share(cs, (size_t)only) : 0, rc;

		if (k < 0)
			continue; /* not on the collector asked for */
		s = add_struct(c, cs->name, &cs->layout);
		if (!s)
			return -ENOSPC;
		rc = take_config(c, s, cs);
		if (rc)
			return rc;
		if (only >= 0) {
			s->unit[0] = (uint8_t)only;
			s->base[0] = dta_config_share_list_base(cs, (unsigned)k);
		} else {
			s->nshares = cs->ncollectors;
			for (unsigned j = 0; j < cs->ncollectors; j++) {
				s->unit[j] = cs->collectors[j];
				s->base[j] = dta_config_share_list_base(cs, j);
			}
		}
		s->pub.shares = s->nshares;
		s->pub.list_base = s->base[0];
		if (s->lps)
			s->pub.lists = s->lps * s->nshares;
		for (unsigned j = 0; j < s->nshares; j++)
			c->u[s->unit[j]].used = true;
	}
	return 0;
}

/* The name messages give collector @i: its section's, else its own. */
static const char *coll_label(const struct dta_client *c, size_t i)
{
	const char *sec = dta_config_collector_name(c->cfg, i);

	return sec && *sec ? sec : dta_config_collector_id(c->cfg, i);
}

/*
 * Unit @u over a TLS connection to @endpoint (HOST:PORT), with the
 * target's ?ca=&cert=&key= (or DTA_TLS_CA, DTA_TLS_CERT, DTA_TLS_KEY).
 */
static int unit_endpoint(struct dta_client *c, struct unit *u,
			 const char *endpoint)
{
	static const char *const env[3] = { "DTA_TLS_CA", "DTA_TLS_CERT",
					    "DTA_TLS_KEY" };
	const char *f[3] = { c->tls_ca, c->tls_cert, c->tls_key };
	const char *colon;
	size_t hl;
	int rc;

	/* HOST:PORT or [V6]:PORT, as the configuration checked it. */
	colon = strrchr(endpoint, ':');
	hl = colon ? (size_t)(colon - endpoint) : 0;
	if (hl && endpoint[0] == '[' && endpoint[hl - 1] == ']') {
		endpoint++;
		hl -= 2;
	}
	if (!colon || !hl || hl >= sizeof(u->host) || !colon[1] ||
	    strlen(colon + 1) >= sizeof(u->port))
		return fail(c, -EINVAL, "%s: endpoint %s is not HOST:PORT",
			    u->what, endpoint);
	memcpy(u->host, endpoint, hl);
	u->host[hl] = 0;
	snprintf(u->port, sizeof(u->port), "%s", colon + 1);
	/* The collector's certificate names its endpoint's host. */
	memcpy(u->tls_name, u->host, hl + 1);
	u->tls = true;
	if (!c->tls) {
		for (int k = 0; k < 3; k++)
			if (!*f[k])
				f[k] = secure_getenv(env[k]) ? secure_getenv(env[k])
							     : "";
		rc = dta__tls_ctx_create(*f[0] ? f[0] : NULL,
					 *f[1] ? f[1] : NULL,
					 *f[2] ? f[2] : NULL, &c->tls, c->err,
					 sizeof(c->err));
		if (rc)
			return rc;
	}
	return unit_socket(c, u, NULL);
}

/* Connect unit @i to collector @i: its socket when the socket exists on
 * this host (or ?via=socket), else its endpoint (or ?via=endpoint). */
static int unit_connect(struct dta_client *c, size_t i)
{
	struct unit *u = &c->u[i];
	const char *ep = dta_config_collector_get(c->cfg, i, "endpoint");
	char path[PATH_MAX];
	struct stat st;
	int rc = dta_config_collector_socket(c->cfg, i, path, sizeof(path));

	if (c->via == VIA_ENDPOINT && !ep)
		return fail(c, -EINVAL, "collector %s has no endpoint in %s "
			    "(the target says ?via=endpoint)", coll_label(c, i),
			    c->conf);
	if (ep && (c->via == VIA_ENDPOINT ||
		   (c->via == VIA_AUTO &&
		    (rc || stat(path, &st) < 0 || !S_ISSOCK(st.st_mode))))) {
		snprintf(u->what, sizeof(u->what), "collector %s (%s)",
			 coll_label(c, i), ep);
		snprintf(u->ep, sizeof(u->ep), "%s", ep);
		u->gen++;
		u->kind = KIND_SOCKET;
		u->ln.text = c->flags & DTA_CLIENT_TEXT;
		return unit_endpoint(c, u, ep);
	}
	snprintf(u->what, sizeof(u->what), "collector %s (%s)",
		 coll_label(c, i), rc ? "no socket" : path);
	if (rc == -ENOENT)
		return fail(c, rc, "%s: no directory for the default socket "
			    "(not root, no $XDG_RUNTIME_DIR, no %s): set its "
			    "socket in the configuration", u->what,
			    DTA_RUN_DIR);
	if (rc)
		return fail(c, rc, "%s: socket path too long", u->what);
	u->ep[0] = 0;
	u->tls = false;
	u->gen++;
	return unit_socket(c, u, path);
}

/* Which of socket unit @i's structures (its `info`) is each share it
 * holds; the layout must be the configuration's when `info` gives it. */
static int unit_shares(struct dta_client *c, size_t i, const char *conf)
{
	struct unit *u = &c->u[i];
	json_t *root = NULL, *arr = NULL;
	int rc = link_info(c, u, &root, &arr);

	for (size_t j = 0; !rc && j < c->ns; j++) {
		struct cstruct *s = &c->s[j];

		for (unsigned k = 0; !rc && k < s->nshares; k++) {
			struct dta_layout l;
			json_t *e;
			int idx;

			if (s->unit[k] != i)
				continue;
			e = info_find(arr, s->name, &idx);
			if (!e)
				rc = fail(c, -ENOENT, "%s does not serve "
					  "structure %s (does it run with %s?)",
					  u->what, s->name, conf);
			else if (json_object_get(e, "layout") &&
				 (info_layout(e, &l) ||
				  !same_layout(&l, &s->pub.layout)))
				rc = fail(c, -DTA_E_MISMATCH, "%s serves "
					  "structure %s with another geometry "
					  "or hashing than %s says", u->what,
					  s->name, conf);
			else
				s->idx[k] = idx;
			if (!rc)
				rc = info_extras(c, u, e, s);
		}
	}
	json_decref(root);
	return rc;
}

/* ---- a fleet: collectors that do not answer ---- */

/* Whether @rc says that a collector did not answer (gone, refused, reset,
 * silent), rather than that it answered something we refuse. */
static bool no_answer(int rc)
{
	switch (-rc) {
	case ECONNREFUSED:
	case ENOENT: /* no socket: the collector is not running */
	case ECONNRESET:
	case ECONNABORTED:
	case EPIPE:
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case EHOSTDOWN:
	case ENETUNREACH:
	case ENETDOWN:
	case DTA_E_UNAVAILABLE:
		return true;
	}
	return false;
}

/* Unit @i did not answer (@rc; c->err says why): it is down until a call
 * reconnects it, and missing from this call's answer. */
static void unit_down(struct dta_client *c, size_t i, int rc)
{
	struct unit *u = &c->u[i];

	u->down = rc ? rc : -DTA_E_UNAVAILABLE;
	memcpy(u->down_msg, c->err, sizeof(u->down_msg));
	link_close(&u->ln);
	u->ln.dead = false;
	u->ln.nf = 0;
	if (u->wfd >= 0)
		close(u->wfd);
	u->wfd = -1;
	c->missing |= 1u << i;
}

/*
 * "config:" over sockets: unit @i ready to answer, reconnected (and its
 * structures looked up again) when it was down or its connection was
 * lost: a collector that returned answers again. Return 0, or
 * -DTA_E_UNAVAILABLE with the unit marked down and c->err saying why.
 */
static int unit_ready(struct dta_client *c, size_t i)
{
	struct unit *u = &c->u[i];
	int rc;

	if (!c->fleet || u->kind == KIND_LOCAL)
		return 0;
	if (!u->down && !u->ln.dead && u->ln.fd >= 0)
		return 0;
	link_close(&u->ln);
	u->ln.dead = false;
	u->ln.nf = 0;
	if (u->wfd >= 0)
		close(u->wfd);
	u->wfd = -1;
	rc = unit_connect(c, i);
	if (!rc)
		rc = unit_shares(c, i, c->conf);
	if (rc) {
		unit_down(c, i, rc);
		return -DTA_E_UNAVAILABLE;
	}
	u->down = 0;
	return 0;
}

/* After a call that lost unit @i's connection with @rc: in a fleet the
 * collector counts as not answering. Return true when it does. */
static bool unit_gone(struct dta_client *c, size_t i, int rc)
{
	struct unit *u = &c->u[i];

	/* The connection is gone, or broke (ENOENT here is an answer: a
	 * collector saying "no such structure" answered). */
	bool broke = rc == -ECONNRESET || rc == -EPIPE || rc == -ETIMEDOUT ||
		     rc == -ECONNABORTED || rc == -DTA_E_UNAVAILABLE;

	if (!c->fleet || u->kind != KIND_SOCKET ||
	    !(u->down || u->ln.dead || u->ln.fd < 0 || broke))
		return false;
	if (!u->down)
		unit_down(c, i, rc);
	c->missing |= 1u << i;
	return true;
}

/* The end of a call: whole (c->err ""), or partial, c->err naming the
 * collectors missing and why. Return 0. */
static int done(struct dta_client *c)
{
	size_t len = 0;

	c->err[0] = 0;
	if (!c->missing)
		return 0;
	len = (size_t)snprintf(c->err, sizeof(c->err), "partial answer: ");
	for (size_t i = 0; i < c->nu && len < sizeof(c->err); i++)
		if (c->missing & (1u << i))
			len += (size_t)snprintf(c->err + len, sizeof(c->err) - len,
						"%s%s", len > 16 ? "; " : "",
						c->u[i].down_msg);
	return 0;
}

/*
 * Local unit @i: the regions of the shares collector @i holds, from its
 * shared memory (@mode CFG_MAP) or snapshot files in @dir (in
 * @dir/COLLECTOR/ with @nested).
 */
static int unit_regions(struct dta_client *c, size_t i, int mode,
			const char *dir, bool nested)
{
	struct unit *u = &c->u[i];
	const char *id = dta_config_collector_id(c->cfg, i);
	/* [collector] shm_dir: where that collector keeps its objects. */
	const char *shm_dir = dta_config_collector_get(c->cfg, i, "shm_dir");
	char path[PATH_MAX];
	unsigned shm_mode;
	bool any;
	int rc, n;

	if (mode == CFG_MAP)
		snprintf(u->what, sizeof(u->what),
			 "collector %s (shared memory %s/dta-%s.*)",
			 coll_label(c, i), shm_dir ? shm_dir : "/dev/shm", id);
	else
		snprintf(u->what, sizeof(u->what), "collector %s (snapshots)",
			 coll_label(c, i));
	rc = unit_local(c, u);
	if (rc)
		return rc;
	if (dta_config_collector_mode(c->cfg, i, "shm_mode", 0600, &shm_mode))
		return fail(c, -DTA_E_MALFORMED, "%s: bad shm_mode", u->what);
	/* A member of the collector's group reads its objects when the
	 * mode lets the group in, as translators do. */
	any = (c->flags & DTA_CLIENT_ANY_OWNER) || (shm_mode & 0060);
	for (size_t j = 0; j < c->ns; j++) {
		struct cstruct *s = &c->s[j];

		for (unsigned k = 0; k < s->nshares; k++) {
			if (s->unit[k] != i)
				continue;
			if (mode == CFG_MAP) {
				rc = dta_config_shm_name(id, s->name, path,
							 sizeof(path));
				if (rc)
					return fail(c, rc, "%s: structure %s: "
						    "shared-memory name too "
						    "long", u->what, s->name);
				rc = add_region(c, u, s, k, path, true, any,
						true, shm_dir);
			} else {
				n = nested ? snprintf(path, sizeof(path),
						      "%s/%s/%s.dta", dir, id,
						      s->name)
					   : snprintf(path, sizeof(path),
						      "%s/%s.dta", dir, s->name);
				if (n < 0 || (size_t)n >= sizeof(path))
					return fail(c, -ENAMETOOLONG,
						    "%s: path too long", dir);
				rc = add_region(c, u, s, k, path, false, false,
						true, NULL);
			}
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int open_config(struct dta_client *c, const char *conf, int mode,
		       const char *coll, const char *dir)
{
	char why[512], first_msg[ERR_MAX];
	int only = -1, rc, first = 0;
	unsigned holders = 0, down = 0;
	bool gone;

	rc = dta_config_load(conf, &c->cfg, why, sizeof(why));
	if (rc == -DTA_E_MALFORMED)
		return fail(c, rc, "%s", why);
	if (rc)
		return fail(c, rc, "%s: %s", conf, dta_strerror(rc));
	if (coll) {
		only = dta_config_collector_find(c->cfg, coll);
		if (only < 0)
			return fail(c, -ENOENT, "%s has no collector %s", conf,
				    coll);
	}
	c->nu = dta_config_collectors(c->cfg);
	c->sockets = mode == CFG_SOCKET && only < 0;
	c->fleet = mode == CFG_SOCKET;
	snprintf(c->conf, sizeof(c->conf), "%s", conf);
	rc = config_structures(c, only);
	if (rc)
		return rc;
	for (size_t i = 0; i < c->nu; i++)
		holders += c->u[i].used;
	for (size_t i = 0; i < c->nu && !rc; i++) {
		if (!c->u[i].used)
			continue;
		if (mode != CFG_SOCKET) {
			rc = unit_regions(c, i, mode, dir,
					  only < 0 && holders > 1);
			continue;
		}
		/* Sockets: connected, and where each collector keeps each
		 * share. One that does not answer is down, not fatal. */
		rc = unit_connect(c, i);
		gone = rc && no_answer(rc);
		if (!rc) {
			rc = unit_shares(c, i, conf);
			gone = rc && (c->u[i].ln.dead || c->u[i].ln.fd < 0);
		}
		if (gone) {
			if (!first) {
				first = rc;
				memcpy(first_msg, c->err, sizeof(first_msg));
			}
			unit_down(c, i, rc);
			rc = 0;
			down++;
		}
	}
	if (!rc && down == holders && first) {
		/* Nobody to ask: the open fails as with one collector. */
		memcpy(c->err, first_msg, sizeof(c->err));
		return first;
	}
	return rc;
}

/* The structures of the collector on unit 0's connection (its `info`). */
static int open_info(struct dta_client *c)
{
	struct unit *u = &c->u[0];
	json_t *root, *arr, *e;
	size_t i;
	int rc;

	rc = link_info(c, u, &root, &arr);
	if (rc)
		return rc;
	json_array_foreach(arr, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		struct dta_layout l;
		struct cstruct *s;
		uint64_t base = 0;

		rc = name && strlen(name) < DTA_CONFIG_NAME_MAX ? info_layout(e, &l)
								: -DTA_E_PROTOCOL;
		if (rc) {
			rc = fail(c, -DTA_E_PROTOCOL, "%s: info: structure %zu "
				  "(%.48s): cannot read its layout", u->what, i,
				  name ? name : "no name");
			break;
		}
		s = add_struct(c, name, &l);
		if (!s) {
			rc = -ENOSPC;
			break;
		}
		json_u64(e, "first_list", &base);
		s->base[0] = (uint32_t)base;
		s->pub.list_base = (uint32_t)base;
		s->idx[0] = (int)i;
		rc = info_extras(c, u, e, s);
		if (rc)
			break;
	}
	json_decref(root);
	return rc;
}

static int open_unix(struct dta_client *c, const char *path)
{
	struct unit *u = &c->u[0];
	int rc;

	c->nu = 1;
	u->used = true;
	snprintf(u->what, sizeof(u->what), "collector at %s", path);
	rc = unit_socket(c, u, path);
	return rc ? rc : open_info(c);
}

int dta__client_open_fd(int fd, unsigned flags, struct dta_client **out)
{
	struct dta_client *c = calloc(1, sizeof(*c));
	struct unit *u;
	int rc;

	*out = NULL;
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < DTA_CONFIG_MAX_COLLECTORS; i++)
		unit_init(&c->u[i]);
	c->flags = flags;
	c->timeout_ms = DTA_CLIENT_TIMEOUT_MS;
	c->nu = 1;
	u = &c->u[0];
	u->used = true;
	u->kind = KIND_SOCKET;
	u->ln.text = flags & DTA_CLIENT_TEXT;
	u->ln.fd = fd;
	snprintf(u->what, sizeof(u->what), "collector on fd %d", fd);
	rc = fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ? -errno : link_start(c, u);
	if (!rc)
		rc = open_info(c);
	if (rc) {
		dta_client_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

static int open_files(struct dta_client *c, const char *list)
{
	struct unit *u = &c->u[0];
	char path[PATH_MAX];
	const char *p = list;
	int rc;

	for (const char *q = list; *q; q++)
		if (*q == ',' && (q == list || q[1] == ',' || !q[1]))
			return fail(c, -EINVAL, "file: wants PATH[,PATH..]; "
				    "\"%s\" has an empty path", list);
	c->nu = 1;
	u->used = true;
	snprintf(u->what, sizeof(u->what), "snapshot files");
	rc = unit_local(c, u);
	if (rc)
		return rc;
	for (;;) {
		size_t len = strcspn(p, ",");
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = DTA_BACKING_FILE,
					     .path = path,
					     .flags = DTA_REGION_RDONLY };
		const struct dta_config_structure *cs;
		struct dta_region *r;
		struct cstruct *s;

		if (len == 0 || len >= sizeof(path))
			return fail(c, -EINVAL, "file: wants PATH[,PATH..]; "
				    "\"%s\" has an empty or too long path",
				    list);
		memcpy(path, p, len);
		path[len] = 0;
		rc = dta_region_open(&o, &r);
		if (rc)
			return fail(c, rc, "%s: %s", path, dta_strerror(rc));
		u->r[u->nr++] = r;
		if (dta_client_find(c, dta_region_name(r)) >= 0)
			return fail(c, -EEXIST, "%s: a structure named %s is "
				    "open already", path, dta_region_name(r));
		s = add_struct(c, dta_region_name(r), dta_region_layout(r));
		if (!s)
			return -ENOSPC;
		u->nr--; /* add_region() maps it again, by its path */
		dta_region_destroy(r);
		cs = dta_config_find(c->cfg, s->name);
		if (cs) { /* ?config=: what the file's header does not say */
			rc = take_config(c, s, cs);
			if (rc)
				return rc;
			s->base[0] = cs->list_base;
			s->pub.list_base = cs->list_base;
		}
		rc = add_region(c, u, s, 0, path, false, false, false, NULL);
		if (rc)
			return rc;
		if (!p[len])
			break;
		p += len + 1;
		if (u->nr == DTA_CONFIG_MAX_STRUCTURES)
			return fail(c, -ENOSPC, "more than %d files",
				    DTA_CONFIG_MAX_STRUCTURES);
	}
	return 0;
}

/*
 * The ?KEY=VALUE&.. part of a target, for "config:", "map:" and
 * "snapshot:": collector=NAME (all three), config=CONF (snapshot only);
 * with @tls ("config:"), via=auto|socket|endpoint and the TLS files
 * ca=, cert=, key= (kept in c->tls_* for the endpoints).
 */
static int target_params_tls(struct dta_client *c, char *q, bool want_config,
			     bool tls, const char **coll, const char **conf)
{
	const char *via = NULL, *ca = NULL, *cert = NULL, *key = NULL;

	*coll = NULL;
	*conf = NULL;
	while (q && *q) {
		char *amp = strchr(q, '&'), *eq;
		const char **slot = NULL;

		if (amp)
			*amp = 0;
		eq = strchr(q, '=');
		if (eq) {
			*eq = 0;
			if (!strcmp(q, "collector"))
				slot = coll;
			else if (!strcmp(q, "config") && want_config)
				slot = conf;
			else if (tls && !strcmp(q, "via"))
				slot = &via;
			else if (tls && !strcmp(q, "ca"))
				slot = &ca;
			else if (tls && !strcmp(q, "cert"))
				slot = &cert;
			else if (tls && !strcmp(q, "key"))
				slot = &key;
		}
		if (!slot)
			return fail(c, -EINVAL, "unknown target parameter "
				    "\"%s\" (collector=NAME%s%s)", q,
				    want_config ? ", config=CONF" : "",
				    tls ? ", via=auto|socket|endpoint, ca=, "
					  "cert=, key=" : "");
		if (*slot)
			return fail(c, -EINVAL, "target parameter %s given twice",
				    q);
		if (!eq[1])
			return fail(c, -EINVAL, "target parameter %s has no "
				    "value", q);
		*slot = eq + 1;
		q = amp ? amp + 1 : NULL;
	}
	if (via && !strcmp(via, "socket"))
		c->via = VIA_SOCKET;
	else if (via && !strcmp(via, "endpoint"))
		c->via = VIA_ENDPOINT;
	else if (via && strcmp(via, "auto"))
		return fail(c, -EINVAL, "via=%s: auto, socket or endpoint", via);
	if ((ca && strlen(ca) >= sizeof(c->tls_ca)) ||
	    (cert && strlen(cert) >= sizeof(c->tls_cert)) ||
	    (key && strlen(key) >= sizeof(c->tls_key)))
		return fail(c, -ENAMETOOLONG, "ca=, cert=, key=: too long");
	snprintf(c->tls_ca, sizeof(c->tls_ca), "%s", ca ? ca : "");
	snprintf(c->tls_cert, sizeof(c->tls_cert), "%s", cert ? cert : "");
	snprintf(c->tls_key, sizeof(c->tls_key), "%s", key ? key : "");
	return 0;
}

static int target_params(struct dta_client *c, char *q, bool want_config,
			 const char **coll, const char **conf)
{
	return target_params_tls(c, q, want_config, false, coll, conf);
}

/*
 * "tls://HOST:PORT[?ca=FILE&cert=FILE&key=FILE&name=NAME]" (HOST may be
 * [IPv6]): a collector's query_listen, over TLS. Unset files default to
 * $DTA_TLS_CA, $DTA_TLS_CERT, $DTA_TLS_KEY; without a CA, the system's
 * trust store. The collector's certificate must carry NAME (default
 * HOST). docs/client.md "Targets".
 */
static int open_tls(struct dta_client *c, const char *spec)
{
	static const char *const env[3] = { "DTA_TLS_CA", "DTA_TLS_CERT",
					    "DTA_TLS_KEY" };
	struct unit *u = &c->u[0];
	struct dta__tls_target *t = malloc(sizeof(*t));
	const char *p[3];
	int rc;

	if (!t)
		return fail(c, -ENOMEM, "out of memory");
	rc = dta__tls_target_parse(spec, t, c->err, sizeof(c->err));
	if (rc)
		goto out;
	p[0] = t->ca;
	p[1] = t->cert;
	p[2] = t->key;
	for (int k = 0; k < 3; k++) {
		const char *v = p[k][0] ? p[k] : secure_getenv(env[k]);

		p[k] = v && *v ? v : NULL;
	}
	rc = dta__tls_ctx_create(p[0], p[1], p[2], &c->tls, c->err,
				 sizeof(c->err));
	if (rc)
		goto out;
	c->nu = 1;
	u->used = true;
	u->tls = true;
	memcpy(u->host, t->host, sizeof(u->host));
	snprintf(u->port, sizeof(u->port), "%s", t->port);
	memcpy(u->tls_name, t->name[0] ? t->name : t->host,
	       sizeof(u->tls_name));
	snprintf(u->what, sizeof(u->what), "collector at tls://%s:%s", u->host,
		 u->port);
	rc = unit_socket(c, u, NULL);
	if (!rc)
		rc = open_info(c);
out:
	free(t);
	return rc;
}

static int open_target(struct dta_client *c, const char *target)
{
	static const char usage[] =
		"(unix:PATH, tls://HOST:PORT[?ca=..&cert=..&key=..&name=..], "
		"config:CONF, map:CONF, snapshot:DIR?config=CONF, "
		"file:PATH[,PATH..], or the path of a socket)";
	char *t, *q, *rest, why[512];
	const char *coll = NULL, *conf = NULL, *slash;
	struct stat st;
	int rc = 0;

	if (!*target)
		return fail(c, -EINVAL, "empty target %s", usage);
	if (!strncmp(target, "tls://", 6))
		return open_tls(c, target + 6);
	if (!strncmp(target, "unix:", 5))
		return target[5] ? open_unix(c, target + 5)
				 : fail(c, -EINVAL, "unix: needs a path");
	if (!strncmp(target, "file:", 5) && !strchr(target, '?'))
		return target[5] ? open_files(c, target + 5)
				 : fail(c, -EINVAL, "file: needs a path");
	rest = strchr(target, ':');
	slash = strchr(target, '/');
	if (!rest || (slash && slash < rest)) {
		/* A path: a socket is the collector behind it. */
		if (stat(target, &st) < 0)
			return fail(c, -errno, "%s: %s %s", target,
				    strerror(errno), usage);
		if (!S_ISSOCK(st.st_mode))
			return fail(c, -EINVAL, "%s is not a socket %s", target,
				    usage);
		return open_unix(c, target);
	}
	t = strdup(target);
	if (!t)
		return fail(c, -ENOMEM, "out of memory");
	rest = t + (rest - target) + 1;
	q = strchr(rest, '?');
	if (q)
		*q++ = 0;
	if (!strncmp(t, "config:", 7) || !strncmp(t, "map:", 4)) {
		rc = target_params_tls(c, q, false, t[0] == 'c', &coll, &conf);
		if (!rc && !*rest)
			rc = fail(c, -EINVAL, "%.*s needs a configuration file",
				  (int)(rest - t), t);
		if (!rc)
			rc = open_config(c, rest, t[0] == 'c' ? CFG_SOCKET
							      : CFG_MAP, coll,
					 NULL);
	} else if (!strncmp(t, "file:", 5)) {
		/* file:PATH,..?config=CONF: value sets, list bases and
		 * schemas from the configuration's sections of those names. */
		rc = target_params(c, q, true, &coll, &conf);
		if (!rc && (coll || !conf || !*rest))
			rc = fail(c, -EINVAL, "file: wants PATH[,PATH..]"
				  "[?config=CONF]");
		if (!rc)
			rc = dta_config_load(conf, &c->cfg, why, sizeof(why));
		if (rc == -DTA_E_MALFORMED)
			rc = fail(c, rc, "%s", why);
		else if (rc && !*c->err)
			rc = fail(c, rc, "%s: %s", conf, dta_strerror(rc));
		if (!rc)
			rc = open_files(c, rest);
	} else if (!strncmp(t, "snapshot:", 9)) {
		rc = target_params(c, q, true, &coll, &conf);
		if (!rc && (!*rest || !conf))
			rc = fail(c, -EINVAL, "snapshot: wants DIR?config=CONF");
		if (!rc)
			rc = open_config(c, conf, CFG_SNAPSHOT, coll, rest);
	} else {
		rc = fail(c, -EINVAL, "unknown target \"%s\" %s", target, usage);
	}
	free(t);
	return rc;
}

DTA_API int dta_client_open(const char *target,
			    const struct dta_client_opts *opts,
			    struct dta_client **out, char *err, size_t errlen)
{
	struct dta_client *c;
	int rc;

	if (out)
		*out = NULL;
	if (err && errlen)
		err[0] = 0;
	if (!target || !out ||
	    (opts && opts->sz < offsetof(struct dta_client_opts, flags) +
					sizeof(opts->flags)) ||
	    (opts && opts->sz >= offsetof(struct dta_client_opts, timeout_ms) +
					 sizeof(opts->timeout_ms) &&
	     opts->timeout_ms < -1)) {
		if (err && errlen)
			snprintf(err, errlen, "dta_client_open: %s",
				 !target ? "no target" : !out ? "no handle"
				 : "bad opts->sz or opts->timeout_ms");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < DTA_CONFIG_MAX_COLLECTORS; i++)
		unit_init(&c->u[i]);
	c->flags = opts ? opts->flags : 0;
	c->timeout_ms = DTA_CLIENT_TIMEOUT_MS;
	if (opts && opts->sz >= offsetof(struct dta_client_opts, timeout_ms) +
				       sizeof(opts->timeout_ms) &&
	    opts->timeout_ms)
		c->timeout_ms = opts->timeout_ms;
	rc = open_target(c, target);
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s", c->err);
		dta_client_close(c);
		return rc;
	}
	*out = c;
	done(c); /* collectors that did not answer at open, named */
	return 0;
}

DTA_API void dta_client_close(struct dta_client *c)
{
	if (!c)
		return;
	while (c->cursors)
		dta_client_ap_close(c->cursors);
	for (size_t i = 0; i < DTA_CONFIG_MAX_COLLECTORS; i++)
		unit_free(&c->u[i]);
	for (size_t i = 0; i < c->ns; i++)
		free(c->s[i].values);
	dta_config_destroy(c->cfg);
	dta__tls_ctx_destroy(c->tls);
	free(c);
}

DTA_API size_t dta_client_count(const struct dta_client *c)
{
	return c ? c->ns : 0;
}

DTA_API const struct dta_client_structure *
dta_client_structure(const struct dta_client *c, size_t i)
{
	return c && i < c->ns ? &c->s[i].pub : NULL;
}

DTA_API int dta_client_find(const struct dta_client *c, const char *name)
{
	if (!c || !name)
		return -ENOENT;
	for (size_t i = 0; i < c->ns; i++)
		if (!strcmp(c->s[i].name, name))
			return (int)i;
	return -ENOENT;
}

/* ---- batched gets ---- */

/* One batch query: what it asks and where the results go. */
struct query {
	struct cstruct *s;
	int prim;
	size_t klen;
	const struct dta_kw_query_opts *o;
	unsigned bank;
	struct dta_kw_result *kw;
	uint8_t *data;
	struct dta_pc_result *pc;
	uint64_t *counts;
};

static size_t data_len(const struct query *q)
{
	return q->prim == DTA_PRIM_KEY_WRITE ? q->s->pub.layout.g.kw.data_len
					     : 0;
}

/* @q's result arrays moved to key @i. */
static struct query query_at(const struct query *q, size_t i)
{
	struct query r = *q;

	if (r.kw)
		r.kw += i;
	if (r.data)
		r.data += i * data_len(q);
	if (r.pc)
		r.pc += i;
	if (r.counts)
		r.counts += i;
	return r;
}

static int local_run(struct dta_client *c, struct unit *u, int idx,
		     const struct query *q, const uint8_t *keys, size_t n)
{
	for (size_t off = 0; off < n; off += DTA_EXEC_BATCH_MAX) {
		size_t m = min_sz(n - off, DTA_EXEC_BATCH_MAX);
		struct query r = query_at(q, off);
		const uint8_t *k = keys + off * q->klen;
		int rc;

		switch (q->prim) {
		case DTA_PRIM_KEY_WRITE:
			rc = dta_exec_kw(u->x, (size_t)idx, k, q->klen, m, q->o,
					 r.kw, r.data);
			break;
		case DTA_PRIM_POSTCARD:
			rc = dta_exec_pc(u->x, (size_t)idx, k, q->klen, m, r.pc);
			break;
		default:
			rc = dta_exec_ki(u->x, (size_t)idx, k, q->klen, m,
					 q->bank, r.counts);
			break;
		}
		if (rc)
			return fail(c, rc, "%s: structure %s: %s", u->what,
				    q->s->name, dta_strerror(rc));
	}
	return 0;
}

/* A batch on one socket: frames of up to @per keys, or text lines. */
struct batch {
	struct unit *u;
	int idx;
	const struct query *q;
	const uint8_t *keys;
	size_t n, per;
	uint32_t id0;
};

static int batch_put(struct dta_client *c, void *ctx, size_t i,
		     struct dta_buf *sb)
{
	struct batch *b = ctx;
	const struct query *q = b->q;
	size_t first = i * b->per, m = min_sz(b->per, b->n - first);
	struct dta__frame_request r = {
		.op = q->prim == DTA_PRIM_KEY_WRITE ? DTA_FRAME_KW
		      : q->prim == DTA_PRIM_POSTCARD ? DTA_FRAME_PC
						     : DTA_FRAME_KI,
		.structure = (unsigned)b->idx,
		.id = b->id0 + (uint32_t)i,
		.n = (uint32_t)m,
		.klen = (unsigned)q->klen,
		.redundancy = q->o ? q->o->redundancy : 0,
		.threshold = q->o ? q->o->threshold : 0,
		.arg = q->bank,
		.payload = b->keys + first * q->klen,
		.payload_len = m * q->klen,
	};
	int rc;

	if (b->u->ln.text) {
		char line[DTA_CONFIG_NAME_MAX + 2 * DTA_KEY_MAX + 64];
		char hex[2 * DTA_KEY_MAX + 1];
		int len;

		hex_put(hex, b->keys + i * q->klen, q->klen);
		if (q->prim == DTA_PRIM_KEY_WRITE)
			len = snprintf(line, sizeof(line), "kw %s %s %u %u\n",
				       q->s->name, hex, r.redundancy,
				       r.threshold);
		else if (q->prim == DTA_PRIM_POSTCARD)
			len = snprintf(line, sizeof(line), "pc %s %s\n",
				       q->s->name, hex);
		else
			len = snprintf(line, sizeof(line), "ki %s %s %u\n",
				       q->s->name, hex, q->bank);
		dta_buf_put(sb, line, (size_t)len);
		return 0;
	}
	rc = dta__frame_request_put(sb, &r);
	if (rc)
		return fail(c, rc, "%s: structure %s: %s", b->u->what,
			    q->s->name, dta_strerror(rc));
	return 0;
}

static int answer_error(struct dta_client *c, const struct batch *b,
			int code, const char *msg, size_t len)
{
	return fail(c, code, "%s: structure %s: %.*s", b->u->what,
		    b->q->s->name, (int)min_sz(len, 300), msg);
}

/* An error answer's status as a code: a positive errno or DTA_E_*; -EIO
 * for anything else a peer may send. */
static int status_code(uint32_t st)
{
	return st && st < DTA_E__LAST ? -(int)st : -EIO;
}

static int status_of(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "found"))
		return DTA_Q_FOUND;
	if (!strcmp(s, "not-found"))
		return DTA_Q_NOT_FOUND;
	if (!strcmp(s, "conflict"))
		return DTA_Q_CONFLICT;
	return -1;
}

/* A text answer to key @i. */
static int batch_take_line(struct dta_client *c, struct batch *b, size_t i,
			   const uint8_t *p, size_t len)
{
	struct query r = query_at(b->q, i);
	json_t *o = parse_obj((const char *)p, len), *e;
	uint64_t v = 0;
	int rc = 0, st;

	if (!o)
		return link_lost(c, b->u, -DTA_E_PROTOCOL,
				 "an answer is not a JSON object");
	e = json_object_get(o, "error");
	if (json_is_string(e)) {
		rc = answer_error(c, b, -EIO, json_string_value(e),
				  strlen(json_string_value(e)));
		json_decref(o);
		return rc;
	}
	st = status_of(json_string_value(json_object_get(o, "status")));
	switch (b->q->prim) {
	case DTA_PRIM_KEY_WRITE: {
		size_t dl = data_len(b->q);
		const char *d = json_string_value(json_object_get(o, "data"));
		uint64_t votes = 0, cand = 0;

		memset(r.data, 0, dl);
		if (st < 0 || json_u64(o, "votes", &votes) ||
		    json_u64(o, "candidates", &cand) ||
		    (st == DTA_Q_FOUND && !hex_get(d, r.data, dl)))
			rc = -DTA_E_PROTOCOL;
		r.kw->status = st;
		r.kw->votes = (unsigned)votes;
		r.kw->candidates = (unsigned)cand;
		break;
	}
	case DTA_PRIM_POSTCARD: {
		json_t *path = json_object_get(o, "path"), *h;
		size_t j;

		memset(r.pc, 0, sizeof(*r.pc));
		if (st < 0 || json_u64(o, "valid_copies", &v) ||
		    (st == DTA_Q_FOUND && (!json_is_array(path) ||
					   json_array_size(path) > DTA_MAX_HOPS))) {
			rc = -DTA_E_PROTOCOL;
			break;
		}
		r.pc->status = st;
		r.pc->valid_copies = (unsigned)v;
		json_array_foreach(path, j, h) {
			if (!json_is_integer(h))
				rc = -DTA_E_PROTOCOL;
			r.pc->values[j] = (uint32_t)json_integer_value(h);
		}
		r.pc->path_len = st == DTA_Q_FOUND ? (unsigned)json_array_size(path)
						   : 0;
		break;
	}
	default:
		if (json_u64(o, "count", &v))
			rc = -DTA_E_PROTOCOL;
		*r.counts = v;
		break;
	}
	json_decref(o);
	if (rc)
		return link_lost(c, b->u, rc, "an answer does not read as its "
				 "request's");
	return 0;
}

static int batch_take(struct dta_client *c, void *ctx, size_t i,
		      const uint8_t *p, size_t len)
{
	struct batch *b = ctx;
	const struct query *q = b->q;
	struct dta__frame_answer a;
	size_t first = i * b->per, m;
	struct query r;

	if (b->u->ln.text)
		return batch_take_line(c, b, i, p, len);
	m = min_sz(b->per, b->n - first);
	r = query_at(q, first);
	if (dta__frame_answer_parse(p, len, &a) || a.id != b->id0 + i ||
	    a.op != (q->prim == DTA_PRIM_KEY_WRITE ? DTA_FRAME_KW
		     : q->prim == DTA_PRIM_POSTCARD ? DTA_FRAME_PC
						    : DTA_FRAME_KI))
		return link_lost(c, b->u, -DTA_E_PROTOCOL,
				 "an answer frame does not match its request");
	if (a.status)
		return answer_error(c, b, status_code(a.status), a.msg, a.msg_len);
	if (a.n != m)
		return link_lost(c, b->u, -DTA_E_PROTOCOL,
				 "an answer frame holds another number of "
				 "results than keys asked");
	switch (q->prim) {
	case DTA_PRIM_KEY_WRITE:
		if (a.size != data_len(q))
			return link_lost(c, b->u, -DTA_E_PROTOCOL,
					 "Key-Write data of another size");
		for (size_t j = 0; j < m; j++) {
			const struct dta_frame_kw *k =
				(const void *)(a.results + j * sizeof(*k));

			if (k->status > DTA_Q_CONFLICT)
				return link_lost(c, b->u, -DTA_E_PROTOCOL,
						 "an unknown Key-Write status");
			r.kw[j].status = k->status;
			r.kw[j].votes = k->votes;
			r.kw[j].candidates = k->candidates;
		}
		memcpy(r.data, a.data, m * a.size);
		break;
	case DTA_PRIM_POSTCARD:
		for (size_t j = 0; j < m; j++) {
			const struct dta_frame_pc *k =
				(const void *)(a.results + j * sizeof(*k));
			const uint8_t *v = a.data + j * a.size * 4;

			if (k->path_len > a.size || k->status > DTA_Q_CONFLICT)
				return link_lost(c, b->u, -DTA_E_PROTOCOL,
						 "a path longer than the "
						 "structure's hops, or an "
						 "unknown status");
			memset(&r.pc[j], 0, sizeof(r.pc[j]));
			r.pc[j].status = k->status;
			r.pc[j].valid_copies = k->valid_copies;
			r.pc[j].path_len = k->path_len;
			for (unsigned h = 0; h < k->path_len; h++)
				r.pc[j].values[h] = dta__be32(v + 4 * h);
		}
		break;
	default:
		for (size_t j = 0; j < m; j++)
			r.counts[j] = dta__be64(a.data + 8 * j);
		break;
	}
	return 0;
}

/* Batch @b and pipe @pp of @n keys on socket unit @u; *@nreq: requests. */
static int batch_prepare(struct dta_client *c, struct unit *u, int idx,
			 const struct query *q, const uint8_t *keys, size_t n,
			 struct batch *b, struct pipe *pp, size_t *nreq)
{
	size_t ans = q->prim == DTA_PRIM_KEY_WRITE
			     ? sizeof(struct dta_frame_kw) + data_len(q)
		     : q->prim == DTA_PRIM_POSTCARD
			     ? sizeof(struct dta_frame_pc) +
				       4u * q->s->pub.layout.g.pc.hops
			     : 8;
	size_t room = u->ln.max_frame - DTA_FRAME_ANS_HDR;

	*b = (struct batch){ .u = u, .idx = idx, .q = q, .keys = keys, .n = n };
	*pp = (struct pipe){ .put = batch_put, .take = batch_take, .ctx = b };
	/* Frames whose request and answer both fit max_frame. */
	b->per = min_sz(FRAME_KEYS, room / (ans > q->klen ? ans : q->klen));
	if (u->ln.text) {
		b->per = 1;
		pp->line = true;
		pp->window = WINDOW_LINES;
	} else {
		pp->window = WINDOW_FRAMES;
	}
	if (!b->per)
		return fail(c, -EMSGSIZE, "%s: structure %s: one answer does not "
			    "fit a frame", u->what, q->s->name);
	*nreq = (n + b->per - 1) / b->per;
	b->id0 = u->ln.id;
	u->ln.id += (uint32_t)*nreq;
	return 0;
}

static int socket_run(struct dta_client *c, struct unit *u, int idx,
		      const struct query *q, const uint8_t *keys, size_t n)
{
	struct batch b;
	struct pipe pp;
	size_t nreq;
	int rc = batch_prepare(c, u, idx, q, keys, n, &b, &pp, &nreq);

	return rc ? rc : pipeline(c, u, nreq, &pp);
}

static int unit_run(struct dta_client *c, struct cstruct *s, unsigned k,
		    const struct query *q, const uint8_t *keys, size_t n)
{
	struct unit *u = &c->u[s->unit[k]];

	if (s->idx[k] < 0)
		return fail(c, -ENOENT, "%s: structure %s is not there", u->what,
			    s->name);
	if (u->kind == KIND_LOCAL)
		return local_run(c, u, s->idx[k], q, keys, n);
	return socket_run(c, u, s->idx[k], q, keys, n);
}

/* @q's result arrays replaced by @res (room for @n results), from 0. */
static struct query query_into(const struct query *q, uint8_t *res, size_t n)
{
	struct query t = *q;

	if (q->prim == DTA_PRIM_KEY_WRITE) {
		t.kw = (struct dta_kw_result *)res;
		t.data = res + n * sizeof(struct dta_kw_result);
	} else if (q->prim == DTA_PRIM_POSTCARD) {
		t.pc = (struct dta_pc_result *)res;
	} else {
		t.counts = (uint64_t *)res;
	}
	return t;
}

/* Results @from..@to of @q: unavailable (their collector did not
 * answer). */
static void query_unavailable(const struct query *q, size_t from, size_t to)
{
	size_t dl = data_len(q);

	for (size_t i = from; i < to; i++) {
		if (q->kw) {
			memset(&q->kw[i], 0, sizeof(q->kw[i]));
			q->kw[i].status = DTA_Q_UNAVAILABLE;
			memset(q->data + i * dl, 0, dl);
		} else if (q->pc) {
			memset(&q->pc[i], 0, sizeof(q->pc[i]));
			q->pc[i].status = DTA_Q_UNAVAILABLE;
		} else {
			q->counts[i] = DTA_CLIENT_KI_UNAVAILABLE;
		}
	}
}

/* unit_run() on share @k, in a fleet: a collector that does not answer
 * makes every key's result unavailable. */
static int share_run(struct dta_client *c, struct cstruct *s, unsigned k,
		     const struct query *q, const uint8_t *keys, size_t n)
{
	int rc = unit_ready(c, s->unit[k]);

	if (!rc)
		rc = unit_run(c, s, k, q, keys, n);
	if (rc && unit_gone(c, s->unit[k], rc)) {
		query_unavailable(q, 0, n);
		return 0;
	}
	return rc;
}

/*
 * Route @n keys to their shares: each share's keys are gathered, every
 * collector asked at the same time (local shares in turn), and the
 * results scattered back to key order. In a fleet, the keys of a share
 * whose collector does not answer are unavailable.
 */
static int route(struct dta_client *c, const struct query *q,
		 const uint8_t *keys, size_t n)
{
	struct cstruct *s = q->s;
	size_t count[DTA_CONFIG_MAX_COLLECTORS] = { 0 };
	size_t first[DTA_CONFIG_MAX_COLLECTORS], dl = data_len(q), nj = 0;
	size_t rsize = q->prim == DTA_PRIM_KEY_WRITE
			       ? sizeof(struct dta_kw_result) + dl
		       : q->prim == DTA_PRIM_POSTCARD
			       ? sizeof(struct dta_pc_result)
			       : sizeof(uint64_t);
	struct query tq, sq[DTA_CONFIG_MAX_COLLECTORS];
	struct batch b[DTA_CONFIG_MAX_COLLECTORS];
	struct pipe pp[DTA_CONFIG_MAX_COLLECTORS];
	struct job jobs[DTA_CONFIG_MAX_COLLECTORS];
	unsigned jshare[DTA_CONFIG_MAX_COLLECTORS];
	uint8_t *shard, *kbuf = NULL, *res = NULL;
	size_t *pos = NULL;
	int rc = 0;

	if (s->nshares == 1)
		return share_run(c, s, 0, q, keys, n);
	shard = malloc(n);
	if (!shard)
		return fail(c, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		shard[i] = (uint8_t)dta_shard(keys + i * q->klen, q->klen,
					      s->nshares);
		count[shard[i]]++;
	}
	for (unsigned k = 0; k < s->nshares; k++)
		if (count[k] == n) {
			rc = share_run(c, s, k, q, keys, n);
			goto free_shard;
		}
	kbuf = malloc(n * q->klen);
	pos = malloc(n * sizeof(*pos));
	res = malloc(n * rsize);
	if (!kbuf || !pos || !res) {
		rc = fail(c, -ENOMEM, "out of memory");
		goto free_bufs;
	}
	/* Share k's keys at first[k].., in key order; pos: where from. */
	first[0] = 0;
	for (unsigned k = 1; k < s->nshares; k++)
		first[k] = first[k - 1] + count[k - 1];
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		size_t at = first[shard[i]] + count[shard[i]]++;

		memcpy(kbuf + at * q->klen, keys + i * q->klen, q->klen);
		pos[at] = i;
	}
	tq = query_into(q, res, n);
	for (unsigned k = 0; k < s->nshares && !rc; k++) {
		struct unit *u = &c->u[s->unit[k]];
		const uint8_t *kk = kbuf + first[k] * q->klen;
		size_t nreq;

		if (!count[k])
			continue;
		sq[k] = query_at(&tq, first[k]);
		if (unit_ready(c, s->unit[k])) {
			query_unavailable(&sq[k], 0, count[k]);
			continue;
		}
		if (s->idx[k] < 0)
			rc = fail(c, -ENOENT, "%s: structure %s is not there",
				  u->what, s->name);
		else if (u->kind == KIND_LOCAL)
			rc = local_run(c, u, s->idx[k], &sq[k], kk, count[k]);
		else
			rc = batch_prepare(c, u, s->idx[k], &sq[k], kk,
					   count[k], &b[k], &pp[k], &nreq);
		if (!rc && u->kind == KIND_SOCKET) {
			jshare[nj] = k;
			jobs[nj++] = (struct job){ .u = u, .pp = &pp[k],
						   .n = nreq };
		}
	}
	if (!rc && nj)
		rc = jobs_run(c, jobs, nj);
	if (rc && c->fleet) {
		/* The shares whose collector went away are unavailable;
		 * any other failure is the call's. */
		rc = 0;
		for (size_t j = 0; j < nj; j++) {
			unsigned k = jshare[j];

			if (!jobs[j].end)
				continue;
			memcpy(c->err, jobs[j].msg, sizeof(c->err));
			if (unit_gone(c, s->unit[k], jobs[j].end))
				query_unavailable(&sq[k], 0, count[k]);
			else if (!rc)
				rc = jobs[j].end;
		}
		for (size_t j = 0; rc && j < nj; j++)
			if (jobs[j].end == rc) {
				memcpy(c->err, jobs[j].msg, sizeof(c->err));
				break;
			}
	}
	for (size_t j = 0; j < n && !rc; j++) {
		if (q->kw) {
			q->kw[pos[j]] = tq.kw[j];
			memcpy(q->data + pos[j] * dl, tq.data + j * dl, dl);
		} else if (q->pc) {
			q->pc[pos[j]] = tq.pc[j];
		} else {
			q->counts[pos[j]] = tq.counts[j];
		}
	}
free_bufs:
	free(res);
	free(pos);
	free(kbuf);
free_shard:
	free(shard);
	return rc;
}

/* The index of structure @name in @c if it is of primitive @prim (-1:
 * any), or a negative code with @c's error message set. */
static int find_struct(struct dta_client *c, const char *name, int prim)
{
	int i = dta_client_find(c, name);

	if (i < 0)
		return fail(c, -ENOENT, "no structure named %s",
			    name ? name : "(null)");
	if (prim >= 0 && (int)c->s[i].pub.layout.primitive != prim)
		return fail(c, -DTA_E_PRIMITIVE, "%s is a %s structure", name,
			    dta_primitive_name(c->s[i].pub.layout.primitive));
	return i;
}

static int get(struct dta_client *c, const char *name, int prim,
	       const void *keys, size_t klen, size_t n, struct query *q)
{
	int i, rc;

	if (!c)
		return -EINVAL;
	i = find_struct(c, name, prim);
	if (i < 0)
		return i;
	q->s = &c->s[i];
	q->prim = prim;
	q->klen = klen;
	if (klen < 1 || klen > DTA_KEY_MAX)
		return fail(c, -EINVAL, "keys must be 1..%d bytes, not %zu",
			    DTA_KEY_MAX, klen);
	if (n && (!keys || (!q->kw && !q->pc && !q->counts) ||
		  (prim == DTA_PRIM_KEY_WRITE && !q->data)))
		return fail(c, -EINVAL, "no keys or no room for results");
	if (q->o && (q->o->redundancy > DTA_MAX_REDUNDANCY ||
		     q->o->threshold > 255))
		return fail(c, -EINVAL, "redundancy must be 0..%d",
			    DTA_MAX_REDUNDANCY);
	if (prim == DTA_PRIM_KEY_INCREMENT &&
	    q->bank >= q->s->pub.layout.g.ki.banks)
		return fail(c, -EINVAL, "%s has %u bank(s): no bank %u", name,
			    q->s->pub.layout.g.ki.banks, q->bank);
	if (!n)
		return ok(c);
	c->missing = 0;
	rc = route(c, q, keys, n);
	return rc ? rc : done(c);
}

DTA_API int dta_client_kw_get(struct dta_client *c, const char *name,
			      const void *keys, size_t klen, size_t n,
			      const struct dta_kw_query_opts *o,
			      struct dta_kw_result *res, void *data)
{
	struct query q = { .o = o, .kw = res, .data = data };

	return get(c, name, DTA_PRIM_KEY_WRITE, keys, klen, n, &q);
}

DTA_API int dta_client_pc_get(struct dta_client *c, const char *name,
			      const void *keys, size_t klen, size_t n,
			      struct dta_pc_result *res)
{
	struct query q = { .pc = res };

	return get(c, name, DTA_PRIM_POSTCARD, keys, klen, n, &q);
}

DTA_API int dta_client_ki_get(struct dta_client *c, const char *name,
			      const void *keys, size_t klen, size_t n,
			      unsigned bank, uint64_t *counts)
{
	struct query q = { .bank = bank, .counts = counts };

	return get(c, name, DTA_PRIM_KEY_INCREMENT, keys, klen, n, &q);
}

DTA_API int dta_client_ki_total(struct dta_client *c, const char *name,
				unsigned bank, uint64_t *total)
{
	struct cstruct *s;
	uint64_t sum = 0;
	unsigned answered = 0;
	char req[DTA_CONFIG_NAME_MAX + 32];
	int i, rc;

	if (!c || !total)
		return -EINVAL;
	*total = 0;
	i = find_struct(c, name, DTA_PRIM_KEY_INCREMENT);
	if (i < 0)
		return i;
	s = &c->s[i];
	if (bank >= s->pub.layout.g.ki.banks)
		return fail(c, -EINVAL, "%s has %u bank(s): no bank %u", name,
			    s->pub.layout.g.ki.banks, bank);
	c->missing = 0;
	snprintf(req, sizeof(req), "kitotal %s %u", s->name, bank);
	for (unsigned k = 0; k < s->nshares; k++) {
		size_t ui = s->unit[k];
		struct unit *u = &c->u[ui];
		uint64_t v = 0;
		char *js = NULL;
		json_t *o;

		if (u->kind == KIND_LOCAL) {
			rc = dta_exec_ki_total(u->x, (size_t)s->idx[k], bank, &v);
			if (rc)
				return fail(c, rc, "%s: structure %s: %s",
					    u->what, s->name, dta_strerror(rc));
			sum += v;
			answered++;
			continue;
		}
		if (unit_ready(c, ui))
			continue;
		rc = ask_text(c, u, req, &js);
		if (rc && unit_gone(c, ui, rc))
			continue;
		if (rc)
			return rc;
		o = parse_obj(js, strlen(js));
		if (!o || json_u64(o, "total", &v)) {
			json_t *e = o ? json_object_get(o, "error") : NULL;

			rc = fail(c, json_is_string(e) ? -EIO : -DTA_E_PROTOCOL,
				  "%s: kitotal %s: %.200s", u->what, s->name,
				  json_is_string(e) ? json_string_value(e) : js);
			json_decref(o);
			free(js);
			return rc;
		}
		json_decref(o);
		free(js);
		sum += v;
		answered++;
	}
	if (!answered)
		return fail(c, -DTA_E_UNAVAILABLE, "no collector holding %s "
			    "answered: %s", s->name,
			    c->u[s->unit[0]].down_msg);
	*total = sum;
	return done(c);
}

DTA_API unsigned dta_client_partial(const struct dta_client *c,
				    uint32_t *missing)
{
	unsigned n = 0;

	if (missing)
		*missing = c ? c->missing : 0;
	for (uint32_t m = c ? c->missing : 0; m; m &= m - 1)
		n++;
	return n;
}

DTA_API size_t dta_client_collectors(const struct dta_client *c)
{
	return c ? c->nu : 0;
}

DTA_API const char *dta_client_collector_name(const struct dta_client *c,
					      unsigned i)
{
	if (!c || i >= c->nu)
		return NULL;
	return c->cfg ? coll_label(c, i) : "";
}

/* ---- Append cursors ---- */

static bool link_follows(const struct link *ln, int s, uint32_t list)
{
	for (unsigned i = 0; i < ln->nf; i++)
		if (ln->f[i].s == s && ln->f[i].list == list)
			return true;
	return false;
}

static long ap_fetch(struct dta_client *c, struct dta_client_cursor *cur,
		     void *buf, size_t max, uint64_t *lost);

/* Connect @own, a cursor's own connection, to where unit @u is. */
static int own_connect(struct dta_client *c, struct unit *own,
		       const struct unit *u)
{
	unit_free(own);
	own->used = true;
	snprintf(own->what, sizeof(own->what), "%s", u->what);
	unit_copy_place(own, u);
	return unit_socket(c, own, u->path);
}

/* A cursor's collector did not answer (@rc, c->err why): in a fleet,
 * -DTA_E_UNAVAILABLE and the collector is missing from the answer. */
static int cursor_gone(struct dta_client *c, struct dta_client_cursor *cur,
		       int rc)
{
	unsigned i = c->s[cur->si].unit[cur->share];

	if (!c->fleet)
		return rc;
	if (cur->own) {
		char why[ERR_MAX];

		/* Lost, or never reached (own_connect()). */
		if (!(cur->own->ln.dead ||
		      (cur->own->ln.fd < 0 && no_answer(rc))))
			return rc;
		c->missing |= 1u << i;
		memcpy(why, c->err, sizeof(why));
		return fail(c, -DTA_E_UNAVAILABLE, "%s", why);
	}
	if (rc == -DTA_E_UNAVAILABLE || unit_gone(c, i, rc))
		return fail(c, -DTA_E_UNAVAILABLE, "%s", c->u[i].down_msg);
	return rc;
}

/*
 * In a fleet, cursor @cur's connection ready: its collector reconnected
 * when it went away. A new connection is a new consumer on the
 * collector, placed at the cursor's position (as dta_client_ap_open_at()
 * places one): nothing read before comes again, and what the ring
 * overwrote meanwhile is counted in the next read's lost.
 */
static int cursor_ready(struct dta_client *c, struct dta_client_cursor *cur)
{
	unsigned i = c->s[cur->si].unit[cur->share];
	int rc;

	if (!c->fleet || cur->u->kind != KIND_SOCKET)
		return 0;
	if (cur->own) {
		if (!cur->own->ln.dead && cur->own->ln.fd >= 0)
			return 0;
		rc = unit_ready(c, i); /* where it is, and its indices */
		if (!rc)
			rc = own_connect(c, cur->own, &c->u[i]);
		if (rc)
			return cursor_gone(c, cur, rc);
		cur->own->ln.f[cur->own->ln.nf].s = c->s[cur->si].idx[cur->share];
		cur->own->ln.f[cur->own->ln.nf++].list = cur->list;
		cur->from = DTA_EXEC_AP_AT;
		cur->at = cur->position;
		return 0;
	}
	rc = unit_ready(c, i);
	if (rc)
		return cursor_gone(c, cur, rc);
	if (cur->gen != c->u[i].gen) {
		struct link *ln = &c->u[i].ln;

		cur->gen = c->u[i].gen;
		cur->from = DTA_EXEC_AP_AT;
		cur->at = cur->position;
		if (!link_follows(ln, c->s[cur->si].idx[cur->share], cur->list) &&
		    ln->nf < DTA_EXEC_READERS_MAX) {
			ln->f[ln->nf].s = c->s[cur->si].idx[cur->share];
			ln->f[ln->nf++].list = cur->list;
		}
	}
	return 0;
}

static int ap_open(struct dta_client *c, const char *name, uint32_t list,
		   int from, uint64_t at, struct dta_client_cursor **out);

DTA_API int dta_client_ap_open(struct dta_client *c, const char *name,
			       uint32_t list, int from,
			       struct dta_client_cursor **out)
{
	if (c && from != DTA_EXEC_AP_OLDEST && from != DTA_EXEC_AP_NOW) {
		if (out)
			*out = NULL;
		return fail(c, -EINVAL, "from must be DTA_EXEC_AP_OLDEST or "
			    "DTA_EXEC_AP_NOW");
	}
	return ap_open(c, name, list, from, 0, out);
}

DTA_API int dta_client_ap_open_at(struct dta_client *c, const char *name,
				  uint32_t list, uint64_t position,
				  struct dta_client_cursor **out)
{
	return ap_open(c, name, list, DTA_EXEC_AP_AT, position, out);
}

static int ap_open(struct dta_client *c, const char *name, uint32_t list,
		   int from, uint64_t at, struct dta_client_cursor **out)
{
	struct dta_client_cursor *cur;
	struct cstruct *s;
	struct unit *u;
	unsigned k;
	int i, rc;

	if (!c || !out)
		return -EINVAL;
	*out = NULL;
	i = find_struct(c, name, DTA_PRIM_APPEND);
	if (i < 0)
		return i;
	s = &c->s[i];
	if (list >= s->pub.lists)
		return fail(c, -DTA_E_MISMATCH, "%s has lists 0..%u, not %u",
			    name, s->pub.lists - 1, list);
	k = list / s->lps;
	u = &c->u[s->unit[k]];
	c->missing = 0;
	if (unit_ready(c, s->unit[k]))
		return fail(c, -DTA_E_UNAVAILABLE, "%s", u->down_msg);
	if (s->idx[k] < 0)
		return fail(c, -ENOENT, "%s: structure %s is not there", u->what,
			    name);
	cur = calloc(1, sizeof(*cur));
	if (!cur)
		return fail(c, -ENOMEM, "out of memory");
	cur->c = c;
	cur->si = (size_t)i;
	cur->share = k;
	cur->list = list % s->lps;
	cur->from = from;
	cur->at = at;
	cur->position = at;
	cur->u = u;
	cur->gen = u->gen;
	if (u->kind == KIND_LOCAL) {
		/* A session of its own: its consumer is the cursor's alone. */
		rc = dta_exec_session_create(u->x, &cur->sess);
		if (!rc && from == DTA_EXEC_AP_AT) {
			rc = dta_exec_ap_seek(cur->sess, (size_t)s->idx[k],
					      cur->list, at);
			cur->from = DTA_EXEC_AP_OLDEST; /* the consumer is there */
			if (rc)
				dta_exec_session_destroy(cur->sess);
		}
		if (rc) {
			free(cur);
			return fail(c, rc, "%s", dta_strerror(rc));
		}
	} else if (link_follows(&u->ln, s->idx[k], cur->list) ||
		   u->ln.nf == DTA_EXEC_READERS_MAX) {
		/* The collector keeps a consumer per list and connection for
		 * as long as the connection lasts: a second cursor on the
		 * list gets a connection of its own, and so its own
		 * consumer starting at @from. */
		cur->own = malloc(sizeof(*cur->own));
		if (!cur->own) {
			free(cur);
			return fail(c, -ENOMEM, "out of memory");
		}
		unit_init(cur->own);
		rc = own_connect(c, cur->own, u);
		if (rc) {
			unit_free(cur->own);
			free(cur->own);
			free(cur);
			if (c->fleet && no_answer(rc)) {
				char why[ERR_MAX];

				memcpy(why, c->err, sizeof(why));
				c->missing |= 1u << s->unit[k];
				return fail(c, -DTA_E_UNAVAILABLE, "%s", why);
			}
			return rc;
		}
		cur->u = cur->own;
	}
	if (cur->u->kind == KIND_SOCKET) {
		struct link *ln = &cur->u->ln;

		ln->f[ln->nf].s = s->idx[k];
		ln->f[ln->nf++].list = cur->list;
	}
	cur->next = c->cursors;
	c->cursors = cur;
	if (from == DTA_EXEC_AP_NOW) {
		/* The consumer is created at its first read: read now, so
		 * that "now" is the time of opening, and keep what comes. */
		const struct dta_layout *l = &s->pub.layout;
		size_t max = 4u * l->g.ap.batch_entries;
		long got;

		cur->pend = malloc(max * l->g.ap.entry_size);
		if (!cur->pend) {
			dta_client_ap_close(cur);
			return fail(c, -ENOMEM, "out of memory");
		}
		got = ap_fetch(c, cur, cur->pend, max, &cur->plost);
		if (got < 0) {
			rc = cursor_gone(c, cur, (int)got);
			dta_client_ap_close(cur);
			return rc;
		}
		cur->npend = (size_t)got;
	}
	*out = cur;
	return ok(c);
}

/* An Append read over a socket, binary or text. */
static long ap_socket(struct dta_client *c, struct dta_client_cursor *cur,
		      void *buf, size_t max, uint64_t *lost)
{
	struct cstruct *s = &c->s[cur->si];
	struct unit *u = cur->u;
	size_t es = s->pub.layout.g.ap.entry_size;
	struct dta__frame_request r = { .op = DTA_FRAME_AP };
	struct dta__frame_answer a;
	struct dta_buf b = { 0 };
	uint8_t *ans, atbuf[8];
	size_t alen;
	long got;
	int rc;

	max = min_sz(max, (u->ln.max_frame - DTA_FRAME_ANS_HDR -
			   sizeof(struct dta_frame_ap)) / es);
	if (!max)
		return fail(c, -EMSGSIZE, "%s: structure %s: an entry does not "
			    "fit the collector's frames", u->what, s->name);
	if (u->ln.text) {
		char line[DTA_CONFIG_NAME_MAX + 64];
		json_t *o, *ents, *e;
		uint64_t l = 0, pos = 0;
		size_t i;

		if (cur->from == DTA_EXEC_AP_AT)
			snprintf(line, sizeof(line), "ap %s %u %zu at %" PRIu64,
				 s->name, cur->list, max, cur->at);
		else
			snprintf(line, sizeof(line), "ap %s %u %zu %s", s->name,
				 cur->list, max,
				 cur->from == DTA_EXEC_AP_NOW ? "now" : "oldest");
		rc = ask_text(c, u, line, (char **)&ans);
		if (rc)
			return rc;
		o = parse_obj((const char *)ans, strlen((const char *)ans));
		ents = o ? json_object_get(o, "entries") : NULL;
		if (!json_is_array(ents) || json_array_size(ents) > max ||
		    json_u64(o, "lost", &l) || json_u64(o, "position", &pos)) {
			e = o ? json_object_get(o, "error") : NULL;
			rc = fail(c, json_is_string(e) ? -EIO : -DTA_E_PROTOCOL,
				  "%s: structure %s list %u: %.300s", u->what,
				  s->name, cur->list,
				  json_is_string(e) ? json_string_value(e)
						    : "bad answer");
			json_decref(o);
			free(ans);
			return rc;
		}
		json_array_foreach(ents, i, e) {
			if (!hex_get(json_string_value(e),
				     (uint8_t *)buf + i * es, es)) {
				json_decref(o);
				free(ans);
				return link_lost(c, u, -DTA_E_PROTOCOL,
						 "an Append entry of another "
						 "size");
			}
		}
		got = (long)json_array_size(ents);
		json_decref(o);
		free(ans);
		*lost = l;
		cur->position = pos;
		cur->from = DTA_EXEC_AP_OLDEST; /* the consumer is there now */
		return got;
	}
	r.structure = (unsigned)s->idx[cur->share];
	r.id = u->ln.id++;
	r.n = (uint32_t)max;
	r.from = (unsigned)cur->from;
	r.arg = cur->list;
	if (cur->from == DTA_EXEC_AP_AT) {
		dta__put_be64(atbuf, cur->at);
		r.payload = atbuf;
		r.payload_len = sizeof(atbuf);
	}
	rc = dta__frame_request_put(&b, &r);
	if (!rc && b.oom)
		rc = -ENOMEM;
	if (rc) {
		dta_buf_free(&b);
		return fail(c, rc, "%s: %s", u->what, dta_strerror(rc));
	}
	rc = ask_raw(c, u, b.p, b.len, false, &ans, &alen);
	dta_buf_free(&b);
	if (rc)
		return rc;
	if (dta__frame_answer_parse(ans, alen, &a) || a.op != DTA_FRAME_AP ||
	    a.id != r.id) {
		free(ans);
		return link_lost(c, u, -DTA_E_PROTOCOL, "an answer frame does "
				 "not match its request");
	}
	if (a.status) {
		rc = fail(c, status_code(a.status), "%s: structure %s list %u: %.*s",
			  u->what, s->name, cur->list,
			  (int)min_sz(a.msg_len, 300), a.msg);
		free(ans);
		return rc;
	}
	if (a.n > max || (a.n && a.size != es)) {
		free(ans);
		return link_lost(c, u, -DTA_E_PROTOCOL, "an Append answer "
				 "larger than asked, or of another entry size");
	}
	memcpy(buf, a.data, (size_t)a.n * es);
	*lost = dta__be64(a.results);
	cur->position = dta__be64(a.results + 8);
	cur->from = DTA_EXEC_AP_OLDEST; /* the consumer is there now */
	got = (long)a.n;
	free(ans);
	return got;
}

/* Up to @max entries from the collector or the local memory. */
static long ap_fetch(struct dta_client *c, struct dta_client_cursor *cur,
		     void *buf, size_t max, uint64_t *lost)
{
	uint64_t l = 0, pos;
	long got;
	int rc;

	max = min_sz(max, DTA_EXEC_BATCH_MAX);
	if (cur->u->kind == KIND_LOCAL) {
		struct cstruct *s = &c->s[cur->si];

		rc = dta_exec_ap_read(cur->sess, (size_t)s->idx[cur->share],
				      cur->list, cur->from, buf, max, &l, &pos);
		if (rc < 0)
			return fail(c, rc, "%s: structure %s list %u: %s",
				    cur->u->what, s->name, cur->list,
				    dta_strerror(rc));
		cur->position = pos;
		got = rc;
	} else {
		got = ap_socket(c, cur, buf, max, &l);
		if (got < 0)
			return got;
	}
	*lost = l;
	return got;
}

DTA_API long dta_client_ap_read(struct dta_client_cursor *cur, void *buf,
				size_t max, uint64_t *lost)
{
	struct dta_client *c;
	uint64_t l = 0;
	long got;
	int rc;

	if (!cur || (!buf && max))
		return -EINVAL;
	c = cur->c;
	if (lost)
		*lost = 0;
	if (!max)
		return ok(c);
	if (cur->npend > cur->poff) {
		size_t es = c->s[cur->si].pub.layout.g.ap.entry_size;
		size_t m = min_sz(max, cur->npend - cur->poff);

		memcpy(buf, cur->pend + cur->poff * es, m * es);
		cur->poff += m;
		if (lost)
			*lost = cur->plost;
		cur->plost = 0;
		ok(c);
		return (long)m;
	}
	c->missing = 0;
	rc = cursor_ready(c, cur);
	if (rc)
		return rc;
	got = ap_fetch(c, cur, buf, max, &l);
	if (got < 0)
		return cursor_gone(c, cur, (int)got);
	if (lost)
		*lost = l;
	ok(c);
	return got;
}

DTA_API uint64_t dta_client_ap_position(const struct dta_client_cursor *cur)
{
	return cur ? cur->position - (cur->npend - cur->poff) : 0;
}

DTA_API void dta_client_ap_close(struct dta_client_cursor *cur)
{
	struct dta_client_cursor **pp;

	if (!cur)
		return;
	for (pp = &cur->c->cursors; *pp; pp = &(*pp)->next)
		if (*pp == cur) {
			*pp = cur->next;
			break;
		}
	dta_exec_session_destroy(cur->sess);
	free(cur->pend);
	if (cur->own) {
		unit_free(cur->own);
		free(cur->own);
	}
	free(cur);
}

/* ---- text requests ---- */

DTA_API int dta_client_request(struct dta_client *c, unsigned collector,
			       const char *req, char **answer)
{
	struct dta_buf b = { 0 };
	struct unit *u;
	size_t len;
	int rc;

	if (!c || !req || !answer)
		return -EINVAL;
	*answer = NULL;
	len = strlen(req);
	if (!len || len > DTA_EXEC_REQUEST_MAX || memchr(req, '\n', len))
		return fail(c, -EINVAL, "a request is one line of 1..%d bytes",
			    DTA_EXEC_REQUEST_MAX);
	if (collector >= c->nu)
		return fail(c, -ENOENT, "no collector %u here", collector);
	u = &c->u[collector];
	if (!u->used && c->sockets) {
		/* A collector of the configuration holding no share (not
		 * connected at open): its `stats` still make sense. */
		rc = unit_connect(c, collector);
		if (rc) {
			link_close(&u->ln);
			if (c->fleet && no_answer(rc)) {
				char why[ERR_MAX];

				memcpy(why, c->err, sizeof(why));
				return fail(c, -DTA_E_UNAVAILABLE, "%s", why);
			}
			return rc;
		}
		u->used = true;
	}
	if (!u->used)
		return fail(c, -ENOENT, "no collector %u here", collector);
	if (u->kind == KIND_SOCKET) {
		c->missing = 0;
		if (unit_ready(c, collector))
			return fail(c, -DTA_E_UNAVAILABLE, "%s", u->down_msg);
		rc = ask_text(c, u, req, answer);
		if (rc && unit_gone(c, collector, rc))
			return fail(c, -DTA_E_UNAVAILABLE, "%s", u->down_msg);
		return rc ? rc : ok(c);
	}
	if (dta_exec_text(u->sess, req, len, &b) == 1) {
		dta_buf_free(&b);
		return fail(c, -EOPNOTSUPP, "%s: \"%.40s\" needs a running "
			    "collector; this client reads its memory itself",
			    u->what, req);
	}
	dta_exec_text_flush(u->sess, &b);
	while (!b.oom && b.len && b.p[b.len - 1] == '\n')
		b.len--;
	*answer = b.oom ? NULL : strndup(b.p ? b.p : "", b.len);
	dta_buf_free(&b);
	if (!*answer)
		return fail(c, -ENOMEM, "out of memory");
	return ok(c);
}

/* ---- notifications ---- */

/* Milliseconds since some fixed point. */
static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Ask socket unit @u, on its `wait` connection (text lines: the collector
 * holds a wait's answer, and the requests behind it, until the structure
 * moves), to answer when structure @name's sequence is not @seen, within
 * @timeout_ms. Only sends.
 */
static int wait_send(struct dta_client *c, struct unit *u, const char *name,
		     uint32_t seen, int timeout_ms)
{
	char req[DTA_CONFIG_NAME_MAX + 64];
	int len = snprintf(req, sizeof(req), "wait %s %" PRIu32 " %d\n", name,
			   seen, timeout_ms);
	size_t off = 0;
	int rc;

	if (u->wfd < 0) {
		u->wfd = unit_dial(c, u, u->path, &u->wtls);
		if (u->wfd < 0)
			return u->wfd;
	}
	while (off < (size_t)len) {
		ssize_t k = u->wtls ? dta__tls_send(u->wtls, req + off,
						    (size_t)len - off)
				    : send(u->wfd, req + off, (size_t)len - off,
					   MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = u->wfd, .events = POLLOUT };

			poll(&pf, 1, 1000);
			continue;
		}
		if (k < 0) {
			int e = -errno;

			rc = fail(c, e, "%s: wait: %s", u->what, u->wtls ?
				  dta__tls_why(u->wtls) : strerror(-e));
			wait_close(u);
			return rc;
		}
		off += (size_t)k;
	}
	return 0;
}

/* Read unit @u's answer to its `wait` (one line), blocking up to
 * @timeout_ms; its sequence in *@seq. Return 0, -ETIMEDOUT, -errno. */
static int wait_recv(struct dta_client *c, struct unit *u, int timeout_ms,
		     uint32_t *seq)
{
	char line[512];
	size_t len = 0;
	int64_t end = now_ms() + timeout_ms;
	json_t *o, *v;

	for (;;) {
		struct pollfd pf = { .fd = u->wfd, .events = POLLIN };
		int64_t left = end - now_ms();
		ssize_t k;

		if (memchr(line, '\n', len))
			break;
		if (!dta__tls_pending(u->wtls) &&
		    poll(&pf, 1, left > 0 ? (int)left : 0) == 0)
			return -ETIMEDOUT;
		k = u->wtls ? dta__tls_recv(u->wtls, line + len,
					    sizeof(line) - 1 - len)
			    : recv(u->wfd, line + len, sizeof(line) - 1 - len, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0 || len + (size_t)k >= sizeof(line) - 1) {
			int rc = fail(c, k < 0 ? -errno : -ECONNRESET,
				      "%s: wait: the connection %s", u->what,
				      k < 0 ? "failed" : "closed or overflowed");

			wait_close(u);
			return rc;
		}
		len += (size_t)k;
	}
	/* One request, one answer: nothing can follow this line. */
	o = parse_obj(line, (size_t)((char *)memchr(line, '\n', len) - line));
	v = o ? json_object_get(o, "seq") : NULL;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > UINT32_MAX) {
		json_t *e = o ? json_object_get(o, "error") : NULL;
		int rc = fail(c, json_is_string(e) ? -EINVAL : -DTA_E_PROTOCOL,
			      "%s: wait: %s", u->what,
			      json_is_string(e) ? json_string_value(e)
						: "an answer without a sequence");

		json_decref(o);
		return rc;
	}
	*seq = (uint32_t)json_integer_value(v);
	json_decref(o);
	return 0;
}

/* Share @k of @s: its sequence now, in *@seq. */
static int share_seq(struct dta_client *c, struct cstruct *s, unsigned k,
		     uint32_t *seq)
{
	struct unit *u = &c->u[s->unit[k]];
	int rc;

	if (u->kind == KIND_LOCAL) {
		*seq = dta_region_notify_seq(u->r[s->idx[k]]);
		return 0;
	}
	/* A sequence it surely does not have, and no time: the answer is
	 * the sequence. */
	rc = wait_send(c, u, s->name, 0, 0);
	if (!rc)
		rc = wait_recv(c, u, 30000, seq);
	return rc == -ETIMEDOUT ? fail(c, rc, "%s: wait: no answer", u->what)
				: rc;
}

static int all_seq(struct dta_client *c, struct cstruct *s, uint32_t *seq,
		   uint32_t *sum)
{
	*sum = 0;
	for (unsigned k = 0; k < s->nshares; k++) {
		int rc = share_seq(c, s, k, &seq[k]);

		if (rc)
			return rc;
		*sum += seq[k];
	}
	return 0;
}

DTA_API int dta_client_wait(struct dta_client *c, const char *name,
			    uint32_t *seq, int timeout_ms)
{
	uint32_t cur[DTA_CONFIG_MAX_COLLECTORS], sum;
	struct pollfd pf[DTA_CONFIG_MAX_COLLECTORS];
	int64_t end;
	struct cstruct *s;
	int i, rc;

	if (!c || !seq || timeout_ms < 0)
		return -EINVAL;
	i = find_struct(c, name, -1);
	if (i < 0)
		return i;
	s = &c->s[i];
	for (unsigned k = 0; k < s->nshares; k++) {
		struct unit *u = &c->u[s->unit[k]];

		if (u->kind == KIND_LOCAL && !dta_region_notify_addr(u->r[s->idx[k]]))
			return fail(c, -EOPNOTSUPP, "%s: structure %s: a "
				    "snapshot: nothing arrives there", u->what,
				    s->name);
	}
	rc = all_seq(c, s, cur, &sum);
	if (rc)
		return rc;
	if (sum != *seq || !timeout_ms) {
		rc = sum != *seq;
		*seq = sum;
		return ok(c) + rc;
	}
	end = now_ms() + timeout_ms;
	if (c->u[s->unit[0]].kind == KIND_LOCAL) {
		/* One futex per share: with several, wait on each in turn
		 * for a short while and look at all. */
		for (;;) {
			int64_t left = end - now_ms();
			int slice = s->nshares > 1 ? 10 : (int)left;
			uint32_t now;

			if (left <= 0)
				break;
			rc = dta_region_wait(c->u[s->unit[0]].r[s->idx[0]],
					     cur[0], slice < left ? slice
								  : (int)left);
			if (rc && rc != -ETIMEDOUT && rc != -EINTR)
				return fail(c, rc, "wait: %s", dta_strerror(rc));
			now = 0;
			for (unsigned k = 0; k < s->nshares; k++)
				now += dta_region_notify_seq(
					c->u[s->unit[k]].r[s->idx[k]]);
			if (now != sum) {
				*seq = now;
				return ok(c) + 1;
			}
		}
		*seq = sum;
		return ok(c);
	}
	/* Sockets: every share's collector holds its answer until its
	 * share moves or the time is up; the first answer ends the wait. */
	for (unsigned k = 0; k < s->nshares; k++) {
		rc = wait_send(c, &c->u[s->unit[k]], s->name, cur[k], timeout_ms);
		if (rc)
			return rc;
		pf[k] = (struct pollfd){ .fd = c->u[s->unit[k]].wfd,
					 .events = POLLIN };
	}
	for (;;) {
		int64_t left = end - now_ms();
		int n = poll(pf, s->nshares, left > 0 ? (int)left : 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (unsigned k = 0; k < s->nshares; k++) {
			uint32_t now;

			if (!pf[k].revents)
				continue;
			rc = wait_recv(c, &c->u[s->unit[k]], 1000, &now);
			if (rc)
				return rc;
			pf[k].fd = -1; /* answered */
			if (now != cur[k]) {
				sum += now - cur[k];
				rc = 1;
			}
		}
		if (rc == 1)
			break;
	}
	/* Waits still held by a collector: their connections go, so no
	 * stale answer is read later. */
	for (unsigned k = 0; k < s->nshares; k++) {
		struct unit *u = &c->u[s->unit[k]];

		if (pf[k].fd >= 0 && u->wfd >= 0)
			wait_close(u);
	}
	*seq = sum;
	return ok(c) + (rc == 1);
}
