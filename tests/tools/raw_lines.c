/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw_lines TARGET < REQUESTS > ANSWERS: send the text request lines read
 * from stdin to a collector and write its answers to stdout byte for byte,
 * to compare transports (tests/e2e/remote_tls.sh). TARGET is unix:PATH or
 * tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE (libdta's transport,
 * lib/src/client_tls.h). One answer line per request line; requests are
 * sent while answers are read, so neither side waits on a full buffer.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client_tls.h"

static void die(const char *what)
{
	fprintf(stderr, "raw_lines: %s\n", what);
	exit(1);
}

int main(int argc, char **argv)
{
	struct dta__tls_ctx *x = NULL;
	struct dta__tls *t = NULL;
	char *req = NULL, buf[65536], err[512];
	size_t rlen = 0, rcap = 0, off = 0, want = 0, got = 0;
	int fd;

	if (argc != 2)
		die("usage: raw_lines unix:PATH|tls://HOST:PORT?ca=&cert=&key=");
	for (;;) {
		size_t n;

		if (rcap - rlen < 65536) {
			rcap = rcap ? 2 * rcap : 1 << 20;
			req = realloc(req, rcap);
			if (!req)
				die("out of memory");
		}
		n = fread(req + rlen, 1, rcap - rlen, stdin);
		if (!n)
			break;
		rlen += n;
	}
	for (size_t i = 0; i < rlen; i++)
		want += req[i] == '\n';
	if (!strncmp(argv[1], "unix:", 5)) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1] + 5);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die(strerror(errno));
	} else if (!strncmp(argv[1], "tls://", 6)) {
		char *h = strdup(argv[1] + 6), *q = strchr(h, '?'), *p, *v[3] = { 0 };
		static const char *const k[3] = { "ca=", "cert=", "key=" };

		if (!q || !(p = strchr(h, ':')) || p > q)
			die("want tls://HOST:PORT?ca=..&cert=..&key=..");
		*q++ = 0;
		*p++ = 0;
		for (char *a = strtok(q, "&"); a; a = strtok(NULL, "&"))
			for (int i = 0; i < 3; i++)
				if (!strncmp(a, k[i], strlen(k[i])))
					v[i] = a + strlen(k[i]);
		if (dta__tls_ctx_create(v[0], v[1], v[2], &x, err, sizeof(err)))
			die(err);
		fd = dta__tls_dial(x, h, p, NULL, 10000, &t, err, sizeof(err));
		if (fd < 0)
			die(err);
		free(h);
	} else {
		die("TARGET: unix:PATH or tls://...");
	}
	while (got < want) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (off < rlen)
			pf.events |= POLLOUT;
		if (!(t && dta__tls_pending(t)) && poll(&pf, 1, 30000) <= 0)
			die("no answer for 30 s");
		if (off < rlen) {
			n = t ? dta__tls_send(t, req + off, rlen - off)
			      : send(fd, req + off, rlen - off, MSG_NOSIGNAL);
			if (n > 0)
				off += (size_t)n;
			else if (errno != EAGAIN)
				die(t ? dta__tls_why(t) : strerror(errno));
		}
		n = t ? dta__tls_recv(t, buf, sizeof(buf))
		      : recv(fd, buf, sizeof(buf), 0);
		if (n == 0)
			die("the collector closed the connection");
		if (n < 0 && errno != EAGAIN)
			die(t ? dta__tls_why(t) : strerror(errno));
		for (ssize_t i = 0; i < n; i++)
			got += buf[i] == '\n';
		if (n > 0)
			fwrite(buf, 1, (size_t)n, stdout);
	}
	dta__tls_free(t);
	dta__tls_ctx_destroy(x);
	close(fd);
	free(req);
	return 0;
}
