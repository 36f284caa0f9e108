/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame_probe: a client of the collector's binary frames
 * (docs/collector-protocol.md "Binary frames") for
 * tests/e2e/binary_socket.sh. Its frames are built and read here from the
 * layouts of dta/frame.h, not with the library's frame code, so the wire
 * format is checked against its description.
 *
 *   frame_probe PATH < REQUESTS
 *
 * REQUESTS: lines "kw NAME KEYHEX", "pc NAME KEYHEX", "ki NAME KEYHEX
 * BANK", "ap NAME LIST MAX". One connection switches to frames with
 * `binary` and sends, in one write (pipelined), a frame per run of
 * consecutive kw/pc/ki lines of one structure (the keys of the run as one
 * batch) and per ap line, then TEXT frames (info, stats, an unknown
 * request, binary again) and requests that must get error answers (no
 * such structure, key length 0, Key-Increment on another primitive). A
 * second connection asks the same as text lines. Every answer frame must
 * echo its request's op and id and say what the text answer says, key by
 * key; TEXT answers must equal the text answers byte for byte. Then a
 * frame shorter than its header, and one of an unknown op, must each end
 * their connection (after the answers before them), and the collector
 * must go on serving. Prints "ok: ..." and exits 0, or says what differs
 * and exits 1. A failure timeout only; nothing measures speed.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "dta/exec.h"
#include "dta/frame.h"
#include "dta/dta.h"
#include "tools.h"

#define MAX_LINES 100000
#define MAX_STRUCT 64

__attribute__((format(printf, 1, 2), noreturn))
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("frame_probe: FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void on_alarm(int sig)
{
	static const char m[] = "frame_probe: FAIL: timed out\n";

	(void)sig;
	(void)!write(2, m, sizeof(m) - 1);
	_exit(1);
}

static int conn(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail("connect %s: %s", path, strerror(errno));
	return fd;
}

static void send_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = send(fd, c, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail("send: %s", strerror(errno));
		c += n;
		len -= (size_t)n;
	}
}

/* Read exactly @len bytes; false when the connection ends first. */
static bool read_all(int fd, void *p, size_t len)
{
	char *c = p;

	while (len) {
		ssize_t n = read(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ECONNRESET)
			return false;
		if (n < 0)
			fail("read: %s", strerror(errno));
		if (n == 0)
			return false;
		c += n;
		len -= (size_t)n;
	}
	return true;
}

/* One text answer line (malloc'd, no newline). */
static char *read_line(int fd)
{
	size_t cap = 256, len = 0;
	char *s = malloc(cap);

	for (;;) {
		if (len + 1 >= cap)
			s = realloc(s, cap *= 2);
		if (!s)
			fail("out of memory");
		if (!read_all(fd, s + len, 1))
			fail("the text connection ended");
		if (s[len] == '\n')
			break;
		len++;
	}
	s[len] = 0;
	return s;
}

static char *ask_text(int fd, const char *req)
{
	send_all(fd, req, strlen(req));
	send_all(fd, "\n", 1);
	return read_line(fd);
}

/* ---- frames, from dta/frame.h ---- */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t len)
{
	if (b->len + len > b->cap) {
		while (b->len + len > b->cap)
			b->cap = b->cap ? 2 * b->cap : 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			fail("out of memory");
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

static void be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

/* A request frame: header, params, @plen bytes of payload. */
static void put_frame(struct buf *b, unsigned op, unsigned st, uint32_t id,
		      uint32_t n, const struct dta_frame_params *pa,
		      const void *payload, size_t plen)
{
	struct dta_frame_hdr h = { .op = (uint8_t)op };

	be32(h.len, (uint32_t)(sizeof(h) + sizeof(*pa) + plen));
	be16(h.structure, st);
	be32(h.id, id);
	be32(h.n, n);
	put(b, &h, sizeof(h));
	put(b, pa, sizeof(*pa));
	if (plen)
		put(b, payload, plen);
}

static void put_text(struct buf *b, uint32_t id, const char *req)
{
	struct dta_frame_params pa = { 0 };

	put_frame(b, DTA_FRAME_TEXT, 0, id, 0, &pa, req, strlen(req));
}

/* One answer frame, read whole (malloc'd); NULL at the end of the
 * connection. */
static uint8_t *read_frame(int fd, size_t *len)
{
	uint8_t l[4], *f;
	uint32_t n;

	if (!read_all(fd, l, 4))
		return NULL;
	n = rd32(l);
	if (n < DTA_FRAME_ANS_HDR || n > DTA_FRAME_MAX)
		fail("an answer frame of %" PRIu32 " bytes", n);
	f = malloc(n);
	if (!f)
		fail("out of memory");
	memcpy(f, l, 4);
	if (!read_all(fd, f + 4, n - 4))
		fail("an answer frame cut short");
	*len = n;
	return f;
}

struct sender {
	int fd;
	const struct buf *b;
};

static void *sender(void *arg)
{
	const struct sender *s = arg;

	send_all(s->fd, s->b->p, s->b->len);
	return NULL;
}

/* ---- the requests ---- */

enum { OP_KW = DTA_FRAME_KW, OP_PC = DTA_FRAME_PC, OP_KI = DTA_FRAME_KI,
       OP_AP = DTA_FRAME_AP };

struct req {
	unsigned op, st, bank, list, max;
	char name[64];
	char hex[2 * DTA_KEY_MAX + 1];
	uint8_t key[DTA_KEY_MAX];
	size_t klen;
};

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

static const char *status_name(unsigned st)
{
	return st == DTA_Q_FOUND ? "found" : st == DTA_Q_CONFLICT ? "conflict"
		: st == DTA_Q_NOT_FOUND ? "not-found" : "?";
}

static json_t *parse(const char *js)
{
	json_error_t e;
	json_t *o = json_loads(js, 0, &e);

	if (!json_is_object(o))
		fail("not a JSON object: %s (%s)", js, e.text);
	return o;
}

static uint64_t num(const json_t *o, const char *key, const char *js)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail("no %s in %s", key, js);
	return (uint64_t)json_integer_value(v);
}

static const char *str(const json_t *o, const char *key, const char *js)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail("no %s in %s", key, js);
	return json_string_value(v);
}

/* Answers compared that found their key (kw, pc), that were not zero
 * (ki), and Append entries compared. */
static size_t found_kw, found_pc, counted_ki, entries_ap;

/* Answer @i of a kw/pc/ki frame @a against text answer @js. */
static void cmp_point(const struct req *r, const uint8_t *a, uint32_t n,
		      uint32_t size, size_t i, const char *js)
{
	json_t *o = parse(js);
	const uint8_t *res = a + DTA_FRAME_ANS_HDR;

	if (json_object_get(o, "error"))
		fail("%s %s: the text answer is an error: %s", r->name, r->hex,
		     js);
	if (r->op == OP_KI) {
		uint64_t got = rd64(a + DTA_FRAME_ANS_HDR + 8 * i);

		if (size != 8 || got != num(o, "count", js))
			fail("ki %s %s: frame count %" PRIu64 " (size %" PRIu32
			     "), text %s", r->name, r->hex, got, size, js);
		counted_ki += got != 0;
	} else if (r->op == OP_KW) {
		const struct dta_frame_kw *k = (const void *)(res + 4 * i);
		const uint8_t *d = res + 4 * n + (size_t)size * i;
		json_t *dv = json_object_get(o, "data");
		char dh[2 * DTA_DATA_MAX + 1];

		if (size > DTA_DATA_MAX)
			fail("kw data size %" PRIu32, size);
		hex(d, size, dh);
		if (strcmp(status_name(k->status), str(o, "status", js)) ||
		    k->votes != num(o, "votes", js) ||
		    k->candidates != num(o, "candidates", js) || k->zero ||
		    (k->status == DTA_Q_FOUND) != (dv != NULL) ||
		    (dv && strcmp(dh, json_string_value(dv))))
			fail("kw %s %s: frame %s votes %u candidates %u data "
			     "%s, text %s", r->name, r->hex,
			     status_name(k->status), k->votes, k->candidates,
			     dh, js);
		found_kw += k->status == DTA_Q_FOUND;
		for (size_t b = 0; !dv && b < size; b++)
			if (d[b])
				fail("kw %s %s: data not zero when not found",
				     r->name, r->hex);
	} else {
		const struct dta_frame_pc *p = (const void *)(res + 4 * i);
		const uint8_t *v = res + 4 * n + 4 * (size_t)size * i;
		json_t *path = json_object_get(o, "path");

		if (strcmp(status_name(p->status), str(o, "status", js)) ||
		    p->valid_copies != num(o, "valid_copies", js) ||
		    p->path_len > size || p->zero ||
		    (p->status == DTA_Q_FOUND) != (path != NULL) ||
		    (path && json_array_size(path) != p->path_len))
			fail("pc %s %s: frame %s copies %u hops %u of %" PRIu32
			     ", text %s", r->name, r->hex,
			     status_name(p->status), p->valid_copies,
			     p->path_len, size, js);
		found_pc += p->status == DTA_Q_FOUND;
		for (size_t h = 0; h < size; h++) {
			uint32_t x = rd32(v + 4 * h);
			json_t *t = json_array_get(path, h);

			if (h < p->path_len ? x != (uint32_t)
			    json_integer_value(t) : x != 0)
				fail("pc %s %s: hop %zu is %" PRIu32 ", text %s",
				     r->name, r->hex, h, x, js);
		}
	}
	json_decref(o);
}

/* An ap frame's answer against the text answer @js (each connection has
 * its own consumer, both from the oldest batch). */
static void cmp_ap(const struct req *r, const uint8_t *a, uint32_t n,
		   uint32_t size, const char *js)
{
	json_t *o = parse(js), *ents = json_object_get(o, "entries");
	const uint8_t *ap = a + DTA_FRAME_ANS_HDR;
	char eh[2 * 4096 + 1];

	if (!json_is_array(ents) || json_array_size(ents) != n ||
	    rd64(ap) != num(o, "lost", js) ||
	    rd64(ap + 8) != num(o, "position", js) || size > 4096)
		fail("ap %s %u: frame %" PRIu32 " entries lost %" PRIu64
		     " position %" PRIu64 ", text %.200s", r->name, r->list,
		     n, rd64(ap), rd64(ap + 8), js);
	for (uint32_t i = 0; i < n; i++) {
		hex(ap + 16 + (size_t)size * i, size, eh);
		if (strcmp(eh, json_string_value(json_array_get(ents, i))))
			fail("ap %s %u: entry %" PRIu32 " differs", r->name,
			     r->list, i);
	}
	entries_ap += n;
	json_decref(o);
}

/* An answer frame's header: op and id echoed; its n, status, size. */
static void answer_hdr(const uint8_t *a, size_t len, unsigned op,
		       uint32_t id, uint32_t *n, uint32_t *status,
		       uint32_t *size)
{
	if (rd32(a) != len || a[4] != op || a[5] || rd32(a + 8) != id)
		fail("answer frame %" PRIu32 ": op %u id %" PRIu32 " len %"
		     PRIu32 ", want op %u", id, a[4], rd32(a + 8), rd32(a), op);
	*n = rd32(a + 12);
	*status = rd32(a + 16);
	*size = rd32(a + 20);
}

/* A frame that must end the connection (after the info answer before
 * it, in the same write); the collector must serve on. */
static void malformed(const char *path, const void *bad, size_t blen,
		      const char *what, int text_fd, const char *info)
{
	int fd = conn(path);
	char *line = ask_text(fd, "binary");
	struct buf b = { 0 };
	uint8_t *a, junk[64];
	size_t len;
	uint32_t n, st, sz;

	free(line);
	put_text(&b, 1, "info");
	put(&b, bad, blen);
	put(&b, bad, blen); /* more after it: never answered */
	send_all(fd, b.p, b.len);
	a = read_frame(fd, &len);
	if (!a)
		fail("%s: the answer before it is missing", what);
	answer_hdr(a, len, DTA_FRAME_TEXT, 1, &n, &st, &sz);
	if (st || len - DTA_FRAME_ANS_HDR != strlen(info) ||
	    memcmp(a + DTA_FRAME_ANS_HDR, info, strlen(info)))
		fail("%s: the info answer before it differs", what);
	free(a);
	if (read_all(fd, junk, 1))
		fail("%s: the connection goes on", what);
	close(fd);
	free(b.p);
	line = ask_text(text_fd, "info");
	if (strcmp(line, info))
		fail("after %s the collector answers info otherwise", what);
	free(line);
}

int main(int argc, char **argv)
{
	static struct req rq[MAX_LINES];
	char names[MAX_STRUCT][64], line[512];
	struct buf frames = { 0 };
	size_t nr = 0, nst = 0, compared = 0;
	/* Per frame: first request, count, op, id. */
	static size_t f_first[MAX_LINES], f_n[MAX_LINES];
	static unsigned f_op[MAX_LINES];
	size_t nf = 0;
	int tfd, bfd;
	struct sender sd;
	pthread_t th;
	char *info, *ans;
	json_t *o, *sts, *v;
	size_t k;

	if (argc != 2) {
		fprintf(stderr, "usage: frame_probe PATH < REQUESTS\n");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm(120);

	/* The structures, in the order that numbers them. */
	tfd = conn(argv[1]);
	info = ask_text(tfd, "info");
	o = parse(info);
	sts = json_object_get(o, "structures");
	json_array_foreach(sts, k, v) {
		if (k >= MAX_STRUCT)
			fail("too many structures");
		snprintf(names[k], sizeof(names[k]), "%s", str(v, "name", info));
		nst = k + 1;
	}
	json_decref(o);

	while (fgets(line, sizeof(line), stdin)) {
		struct req *r = &rq[nr];
		char op[8], key[2 * DTA_KEY_MAX + 16]; /* %140s: 141 bytes */
		int w, kl;

		if (nr == MAX_LINES)
			fail("too many requests");
		w = sscanf(line, "%7s %63s %140s %u %u", op, r->name, key,
			   &r->bank, &r->max);
		if (w < 3)
			continue;
		for (r->st = 0; r->st < nst; r->st++)
			if (!strcmp(names[r->st], r->name))
				break;
		if (r->st == nst)
			fail("no structure %s", r->name);
		if (!strcmp(op, "ap")) {
			r->op = OP_AP;
			r->list = (unsigned)strtoul(key, NULL, 10);
			r->max = r->bank;
			if (w != 4 || !r->max)
				fail("ap NAME LIST MAX");
			nr++;
			continue;
		}
		r->op = !strcmp(op, "kw") ? OP_KW : !strcmp(op, "pc") ? OP_PC
			: !strcmp(op, "ki") ? OP_KI : 0;
		if (!r->op)
			fail("bad request %s", line);
		kl = tool_unhex(key, r->key, sizeof(r->key));
		if (kl <= 0 || strlen(key) >= sizeof(r->hex))
			fail("bad key %s", key);
		r->klen = (size_t)kl;
		memcpy(r->hex, key, strlen(key) + 1);
		if (r->op != OP_KI)
			r->bank = 0;
		nr++;
	}

	/* Frames: one per run of point queries of one structure, key
	 * length and bank; one per ap. */
	bfd = conn(argv[1]);
	ans = ask_text(bfd, "binary");
	snprintf(line, sizeof(line), "{\"binary\":1,\"max_frame\":%u}",
		 DTA_FRAME_MAX);
	if (strcmp(ans, line))
		fail("the answer to binary is %s", ans);
	free(ans);
	for (size_t i = 0; i < nr;) {
		struct dta_frame_params pa = { 0 };
		size_t j = i + 1;
		struct buf keys = { 0 };

		if (rq[i].op != OP_AP)
			while (j < nr && rq[j].op == rq[i].op &&
			       rq[j].st == rq[i].st && rq[j].klen == rq[i].klen &&
			       rq[j].bank == rq[i].bank && j - i < 65536)
				j++;
		f_first[nf] = i;
		f_n[nf] = j - i;
		f_op[nf] = rq[i].op;
		if (rq[i].op == OP_AP) {
			pa.from = DTA_EXEC_AP_OLDEST;
			be32(pa.arg, rq[i].list);
			put_frame(&frames, OP_AP, rq[i].st, (uint32_t)(1000 + nf),
				  rq[i].max, &pa, NULL, 0);
		} else {
			pa.klen = (uint8_t)rq[i].klen;
			be32(pa.arg, rq[i].bank);
			for (size_t x = i; x < j; x++)
				put(&keys, rq[x].key, rq[x].klen);
			put_frame(&frames, rq[i].op, rq[i].st, (uint32_t)(1000 + nf),
				  (uint32_t)(j - i), &pa, keys.p, keys.len);
			free(keys.p);
		}
		nf++;
		i = j;
	}
	/* TEXT requests, then requests that must be error answers. */
	put_text(&frames, 1, "info");
	put_text(&frames, 2, "stats");
	put_text(&frames, 3, "no-such-request 1 2");
	put_text(&frames, 4, "binary");
	{
		struct dta_frame_params pa = { .klen = 4 };
		uint8_t key[4] = { 1, 2, 3, 4 };
		unsigned kw = nst, ap = nst;

		for (unsigned i = nst; i-- > 0;) {
			for (size_t x = 0; x < nr; x++) {
				if (rq[x].st != i)
					continue;
				if (rq[x].op == OP_KW)
					kw = i;
				if (rq[x].op == OP_AP)
					ap = i;
			}
		}
		if (kw == nst || ap == nst)
			fail("the requests need a kw and an ap structure");
		/* No structure 60000; key length 0; ki on Key-Write; kw on
		 * Append. */
		put_frame(&frames, DTA_FRAME_KW, 60000, 5, 1, &pa, key, 4);
		pa.klen = 0;
		put_frame(&frames, DTA_FRAME_KW, kw, 6, 1, &pa, NULL, 0);
		pa.klen = 4;
		put_frame(&frames, DTA_FRAME_KI, kw, 7, 1, &pa, key, 4);
		put_frame(&frames, DTA_FRAME_KW, ap, 8, 1, &pa, key, 4);
	}
	/* All at once: the collector answers a pipelined batch in order.
	 * Sent by a thread: they may be more than the socket buffers hold
	 * while their answers, not yet read, hold the collector back. */
	sd.fd = bfd;
	sd.b = &frames;
	if (pthread_create(&th, NULL, sender, &sd))
		fail("pthread_create");

	for (size_t f = 0; f < nf; f++) {
		size_t len;
		uint8_t *a = read_frame(bfd, &len);
		uint32_t n, st, sz;
		const struct req *r = &rq[f_first[f]];
		struct buf t = { 0 };

		if (!a)
			fail("the connection ended at frame %zu", f);
		answer_hdr(a, len, f_op[f], (uint32_t)(1000 + f), &n, &st, &sz);
		if (st)
			fail("frame %zu (%s): error %" PRIu32 " %.*s", f, r->name,
			     st, (int)(len - DTA_FRAME_ANS_HDR),
			     a + DTA_FRAME_ANS_HDR);
		if (r->op == OP_AP) {
			char *js;

			snprintf(line, sizeof(line), "ap %s %u %u oldest",
				 r->name, r->list, r->max);
			js = ask_text(tfd, line);
			cmp_ap(r, a, n, sz, js);
			free(js);
			compared++;
			free(a);
			continue;
		}
		{
			size_t want = len - DTA_FRAME_ANS_HDR;
			size_t per = r->op == OP_KI ? 8 : r->op == OP_KW
				? 4 + sz : 4 + 4 * (size_t)sz;

			if (n != f_n[f] || want != per * n)
				fail("frame %zu: %" PRIu32 " results in %zu bytes "
				     "for %zu keys", f, n, want, f_n[f]);
		}
		/* The same keys as text lines, pipelined 1000 at a time (all
		 * at once, unread answers would stop the collector reading
		 * while this still sends). */
		for (size_t c0 = 0; c0 < n; c0 += 1000) {
			size_t c1 = c0 + 1000 < n ? c0 + 1000 : n;

			t.len = 0;
			for (size_t x = c0; x < c1; x++) {
				const struct req *q = &rq[f_first[f] + x];

				if (q->op == OP_KI)
					snprintf(line, sizeof(line), "ki %s %s %u\n",
						 q->name, q->hex, q->bank);
				else
					snprintf(line, sizeof(line), "%s %s %s\n",
						 q->op == OP_KW ? "kw" : "pc",
						 q->name, q->hex);
				put(&t, line, strlen(line));
			}
			send_all(tfd, t.p, t.len);
			for (size_t x = c0; x < c1; x++) {
				char *js = read_line(tfd);

				cmp_point(&rq[f_first[f] + x], a, n, sz, x, js);
				free(js);
				compared++;
			}
		}
		free(t.p);
		free(a);
	}
	/* TEXT answers: byte for byte the text protocol's (stats aside: it
	 * changes; it must be the collector's own, counting frames). */
	{
		static const char *const same[] = { "info", NULL,
						     "no-such-request 1 2" };

		for (uint32_t id = 1; id <= 4; id++) {
			size_t len;
			uint8_t *a = read_frame(bfd, &len);
			uint32_t n, st, sz;
			char *js;

			if (!a)
				fail("no answer to TEXT frame %" PRIu32, id);
			answer_hdr(a, len, DTA_FRAME_TEXT, id, &n, &st, &sz);
			if (st)
				fail("TEXT frame %" PRIu32 ": error status", id);
			js = strndup((const char *)a + DTA_FRAME_ANS_HDR,
				     len - DTA_FRAME_ANS_HDR);
			if (id == 2) {
				o = parse(js);
				if (num(o, "frames", js) < nf + 2 ||
				    !json_object_get(o, "keys"))
					fail("stats over frames: %s", js);
				json_decref(o);
			} else if (id == 4) {
				if (!strstr(js, "\"error\""))
					fail("binary in binary mode: %s", js);
			} else {
				char *t = ask_text(tfd, same[id - 1]);

				if (strcmp(t, js))
					fail("TEXT %s: frame %s, text %s",
					     same[id - 1], js, t);
				free(t);
			}
			free(js);
			free(a);
		}
	}
	for (uint32_t id = 5; id <= 8; id++) {
		size_t len;
		uint8_t *a = read_frame(bfd, &len);
		uint32_t n, st, sz;

		if (!a)
			fail("no answer to error frame %" PRIu32, id);
		answer_hdr(a, len, id == 7 ? DTA_FRAME_KI : DTA_FRAME_KW, id,
			   &n, &st, &sz);
		if (!st || n || len == DTA_FRAME_ANS_HDR)
			fail("frame %" PRIu32 ": status %" PRIu32 ", %" PRIu32
			     " results, %zu bytes: not an error answer with a "
			     "message", id, st, n, len);
		free(a);
	}
	pthread_join(th, NULL);
	close(bfd);

	/* Malformed frames end their connection, nothing else. */
	{
		uint8_t shortf[DTA_FRAME_REQ_HDR] = { 0 }, badop[DTA_FRAME_REQ_HDR] = { 0 };

		be32(shortf, 8);
		be32(badop, DTA_FRAME_REQ_HDR);
		badop[4] = 77;
		malformed(argv[1], shortf, sizeof(shortf), "a frame of 8 bytes",
			  tfd, info);
		malformed(argv[1], badop, sizeof(badop), "op 77", tfd, info);
	}
	close(tfd);
	free(info);
	free(frames.p);
	printf("ok: %zu frames, %zu answers equal to the text protocol's\n",
	       nf, compared);
	printf("found: kw %zu pc %zu, counts not 0: ki %zu, entries: ap %zu\n",
	       found_kw, found_pc, counted_ki, entries_ap);
	return 0;
}
