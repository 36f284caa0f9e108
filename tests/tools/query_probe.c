/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * query_probe: clients that misbehave on a collector's query socket, for
 * tests/e2e/query_socket.sh and socket_security.sh.
 *
 *   pipe PATH [DELAY_S]   send every line of stdin at once, wait DELAY_S,
 *                         then print one answer per line sent
 *   stall PATH N [REQ]    client A sends requests (REQ, default "info")
 *                         without reading until the collector stops
 *                         taking them; client B must then get N answers
 *                         while A is still connected, and A must then get
 *                         every answer, complete and equal to B's
 *   stall-binary PATH N   the same with A on binary frames (`binary`, then
 *                         TEXT frames of "info"): B's text answers and
 *                         A's answer frames must carry the same JSON
 *   fill PATH             send requests without reading until the
 *                         collector stops taking them; exit 0 once it
 *                         closes the connection (stall_timeout)
 *   hold PATH N STOPFILE  hold N connections, active until STOPFILE
 *                         exists, then idle: exit 0 once the collector
 *                         has closed all N
 *   listen PATH ANSWER    answer every line with ANSWER (an impostor)
 *   shut PATH             close every connection at once (a collector that
 *                         hangs up)
 *
 * Each phase has a generous failure timeout; none measures speed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *phase = "start";

__attribute__((format(printf, 1, 2), noreturn))
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("query_probe: FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void on_alarm(int sig)
{
	static const char m[] = "query_probe: FAIL: timed out in phase ";

	(void)sig;
	(void)!write(2, m, sizeof(m) - 1);
	(void)!write(2, phase, strlen(phase));
	(void)!write(2, "\n", 1);
	_exit(1);
}

/* Start phase @what, failing if it takes over @secs. */
static void begin(const char *what, unsigned secs)
{
	phase = what;
	alarm(secs);
}

static int dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		fail("socket %s", path);
	strcpy(sa.sun_path, path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail("connect %s: %s", path, strerror(errno));
	return fd;
}

static void send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail("send: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

/* A buffered reader of answer lines. */
struct lines {
	int fd;
	char *buf;
	size_t len, cap;
};

/* Read what the socket has into @l's buffer (growing it); false at the
 * end of the stream. */
static bool read_more(struct lines *l)
{
	for (;;) {
		ssize_t n;

		if (l->cap - l->len < 65536) {
			l->cap = l->cap ? 2 * l->cap : 1 << 20;
			l->buf = realloc(l->buf, l->cap);
			if (!l->buf)
				fail("out of memory");
		}
		n = read(l->fd, l->buf + l->len, l->cap - l->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("read: %s", strerror(errno));
		l->len += (size_t)(n > 0 ? n : 0);
		return n > 0;
	}
}

/* The next line (without its newline, valid until the next call), or
 * NULL at end of stream. */
static char *next_line(struct lines *l)
{
	static char *line;
	static size_t lcap;
	char *nl;

	while (!(nl = l->len ? memchr(l->buf, '\n', l->len) : NULL)) {
		if (!read_more(l)) {
			if (l->len)
				fail("%zu bytes without a newline before the "
				     "end of the stream", l->len);
			return NULL;
		}
	}
	if ((size_t)(nl - l->buf) + 1 > lcap) {
		lcap = (size_t)(nl - l->buf) + 1;
		line = realloc(line, lcap);
		if (!line)
			fail("out of memory");
	}
	memcpy(line, l->buf, (size_t)(nl - l->buf));
	line[nl - l->buf] = 0;
	l->len -= (size_t)(nl - l->buf) + 1;
	memmove(l->buf, nl + 1, l->len);
	return line;
}

static char *ask(struct lines *l, const char *req)
{
	char *a;

	send_all(l->fd, req, strlen(req));
	a = next_line(l);
	if (!a)
		fail("%s: connection closed without an answer", phase);
	return a;
}

static int cmd_pipe(int argc, char **argv)
{
	struct lines l = { 0 };
	char *in = NULL, *a;
	size_t cap = 0, len = 0, want = 0;
	FILE *f = open_memstream(&in, &cap);
	int ch;

	if (argc < 3 || !f)
		fail("usage: pipe PATH [DELAY_S]");
	while ((ch = getchar()) != EOF)
		fputc(ch, f);
	fclose(f);
	len = strlen(in);
	for (size_t i = 0; i < len; i++)
		want += in[i] == '\n';
	l.fd = dial(argv[2]);
	begin("pipe: send", 60);
	send_all(l.fd, in, len);
	if (argc > 3) {
		alarm(0);
		sleep((unsigned)atoi(argv[3]));
	}
	begin("pipe: answers", 60);
	for (size_t i = 0; i < want; i++) {
		a = next_line(&l);
		if (!a)
			fail("connection closed after %zu answers of %zu", i,
			     want);
		puts(a);
	}
	free(l.buf);
	free(in);
	close(l.fd);
	return 0;
}

/* The request fill() sends, newline included (or a frame: fill_len
 * bytes). */
static char fill_req[256] = "info\n";
static size_t fill_len;

/* Send fill_req on @fd, never reading, until the collector stops
 * taking them (nothing more fits for a second) or closes the connection
 * (*@hup); return how many. */
static unsigned long fill(int fd, bool *hup)
{
	size_t len = fill_len ? fill_len : strlen(fill_req);
	unsigned long sent = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t w = send(fd, fill_req, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w == (ssize_t)len) {
			sent++;
			continue;
		}
		if (w > 0) /* one short request is one skb: all or nothing */
			fail("partial send");
		*hup = w < 0 && (errno == EPIPE || errno == ECONNRESET);
		if (*hup)
			return sent;
		if (errno != EAGAIN)
			fail("send: %s", strerror(errno));
		if (poll(&p, 1, 1000) == 0)
			return sent;
	}
}

static int cmd_fill(int argc, char **argv)
{
	struct pollfd p = { .events = 0 }; /* POLLHUP needs no asking */
	unsigned long sent;
	bool hup;

	if (argc != 3)
		fail("usage: fill PATH");
	p.fd = dial(argv[2]);
	begin("fill", 120);
	sent = fill(p.fd, &hup);
	printf("sent %lu requests without reading\n", sent);
	begin("fill: wait to be dropped", 60);
	while (!hup && !(p.revents & (POLLHUP | POLLERR)))
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
	printf("dropped\n");
	close(p.fd);
	return 0;
}

/* The next answer frame's payload (its JSON for a TEXT answer; valid
 * until the next call, NUL-terminated), or NULL at end of stream. Its
 * 24-byte header must say a TEXT answer, status 0. */
static char *next_frame(struct lines *l)
{
	static char *pl;
	size_t flen = 0;

	while (l->len < 4 || l->len < (flen = (size_t)(uint8_t)l->buf[0] << 24 |
				      (size_t)(uint8_t)l->buf[1] << 16 |
				      (size_t)(uint8_t)l->buf[2] << 8 |
				      (uint8_t)l->buf[3])) {
		if (!read_more(l)) {
			if (l->len)
				fail("%zu bytes of a frame before the end of "
				     "the stream", l->len);
			return NULL;
		}
	}
	if (flen < 24 || l->buf[4] != 5 || memcmp(l->buf + 16, "\0\0\0\0", 4))
		fail("not a TEXT answer frame (length %zu, op %d)", flen,
		     l->buf[4]);
	free(pl);
	pl = strndup(l->buf + 24, flen - 24);
	if (!pl)
		fail("out of memory");
	l->len -= flen;
	memmove(l->buf, l->buf + flen, l->len);
	return pl;
}

static int cmd_stall(int argc, char **argv)
{
	struct lines a = { 0 }, b = { 0 };
	unsigned long sent, n;
	char *ans, first[4096];
	bool hup, binary = !strcmp(argv[1], "stall-binary");

	if (binary ? argc != 4 : argc != 4 && argc != 5)
		fail("usage: stall PATH N [REQ] | stall-binary PATH N");
	if (argc == 5)
		snprintf(fill_req, sizeof(fill_req), "%s\n", argv[4]);
	n = strtoul(argv[3], NULL, 0);
	a.fd = dial(argv[2]);
	if (binary) {
		/* A TEXT frame of "info" (docs/collector-protocol.md). */
		static const char frame[] = {
			0, 0, 0, 28, 5, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0,
			0, 0, 0, 0, 0, 0, 0, 0, 'i', 'n', 'f', 'o',
		};

		begin("A switches to frames", 60);
		ans = ask(&a, "binary\n");
		if (strncmp(ans, "{\"binary\":1,", 12))
			fail("A: the answer to binary is %s", ans);
		memcpy(fill_req, frame, sizeof(frame));
		fill_len = sizeof(frame);
	}
	/* A: requests, never reading, until the collector stops taking
	 * them. */
	begin("A fills its buffers", 120);
	sent = fill(a.fd, &hup);
	if (hup)
		fail("A was disconnected while sending");
	b.fd = dial(argv[2]);
	/* The collector says it holds A's requests back. */
	begin("B waits for stats to show A blocked", 60);
	for (;;) {
		ans = ask(&b, "stats\n");
		if (strstr(ans, "\"clients_blocked\":1"))
			break;
		if (!strstr(ans, "\"clients_blocked\":"))
			fail("stats without clients_blocked: %s", ans);
		usleep(10000);
	}
	begin("B asks while A is blocked", 60);
	for (unsigned long i = 0; i < n; i++) {
		ans = ask(&b, binary ? "info\n" : fill_req);
		if (argc == 4 && strncmp(ans, "{\"structures\":", 14))
			fail("B: answer %lu: %.200s", i, ans);
		if (!i)
			snprintf(first, sizeof(first), "%s", ans);
	}
	printf("A sent %lu requests without reading; B got %lu answers "
	       "meanwhile\n", sent, n);
	/* A is still connected and gets every answer, whole. */
	begin("A reads its answers", 120);
	for (unsigned long i = 0; i < sent; i++) {
		ans = binary ? next_frame(&a) : next_line(&a);
		if (!ans)
			fail("A: connection closed after %lu answers of %lu", i,
			     sent);
		if (strcmp(ans, first))
			fail("A: answer %lu differs from B's: %.200s", i, ans);
	}
	printf("A then read all %lu answers, complete\n", sent);
	free(a.buf);
	free(b.buf);
	close(a.fd);
	close(b.fd);
	return 0;
}

static int cmd_hold(int argc, char **argv)
{
	struct lines *l;
	unsigned long n, closed = 0;
	struct pollfd *p;

	if (argc != 5)
		fail("usage: hold PATH N STOPFILE");
	n = strtoul(argv[3], NULL, 0);
	l = calloc(n, sizeof(*l));
	p = calloc(n, sizeof(*p));
	if (!l || !p)
		fail("out of memory");
	begin("hold: connect", 60);
	for (unsigned long i = 0; i < n; i++) {
		l[i].fd = dial(argv[2]);
		if (strncmp(ask(&l[i], "stats\n"), "{\"name\"", 7))
			fail("connection %lu refused", i);
	}
	printf("held %lu\n", n);
	fflush(stdout);
	/* Active (never idle) until told to stop: a request on every
	 * connection every 50 ms, all sent before any answer is read so a
	 * round costs one pass of the collector however busy the machine. */
	alarm(0);
	while (access(argv[4], F_OK)) {
		for (unsigned long i = 0; i < n; i++)
			send_all(l[i].fd, "stats\n", 6);
		for (unsigned long i = 0; i < n; i++)
			if (!next_line(&l[i]))
				fail("connection %lu closed while active", i);
		usleep(50000);
	}
	begin("hold: wait until the idle ones are closed", 60);
	for (unsigned long i = 0; i < n; i++) {
		p[i].fd = l[i].fd;
		p[i].events = POLLIN;
	}
	while (closed < n) {
		if (poll(p, (nfds_t)n, -1) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		for (unsigned long i = 0; i < n; i++) {
			char c;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			if (read(p[i].fd, &c, 1) != 0)
				fail("connection %lu: data instead of a close", i);
			close(p[i].fd);
			p[i].fd = -1;
			closed++;
		}
	}
	printf("closed %lu\n", closed);
	for (unsigned long i = 0; i < n; i++)
		free(l[i].buf);
	free(l);
	free(p);
	return 0;
}

static int serve_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		fail("socket %s", path);
	strcpy(sa.sun_path, path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 8) < 0)
		fail("listen %s: %s", path, strerror(errno));
	printf("ready\n");
	fflush(stdout);
	return fd;
}

static int cmd_shut(int argc, char **argv)
{
	int fd;

	if (argc != 3)
		fail("usage: shut PATH");
	fd = serve_on(argv[2]);
	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c >= 0)
			close(c);
	}
}

static int cmd_listen(int argc, char **argv)
{
	int fd;

	if (argc != 4)
		fail("usage: listen PATH ANSWER");
	fd = serve_on(argv[2]);
	for (;;) {
		struct lines l = { .fd = accept(fd, NULL, NULL) };
		char *req;

		if (l.fd < 0)
			continue;
		while ((req = next_line(&l)) != NULL) {
			send_all(l.fd, argv[3], strlen(argv[3]));
			send_all(l.fd, "\n", 1);
		}
		close(l.fd);
		free(l.buf);
	}
}

int main(int argc, char **argv)
{
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "pipe"))
		return cmd_pipe(argc, argv);
	if (argc > 1 && (!strcmp(argv[1], "stall") ||
			 !strcmp(argv[1], "stall-binary")))
		return cmd_stall(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "fill"))
		return cmd_fill(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "hold"))
		return cmd_hold(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "listen"))
		return cmd_listen(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "shut"))
		return cmd_shut(argc, argv);
	fprintf(stderr, "usage: query_probe pipe|stall|stall-binary|fill|hold|listen|shut ...\n");
	return 2;
}
