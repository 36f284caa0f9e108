/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wait_probe SOCKET NAME [SEQ [TIMEOUT_MS]]: a collector client for the
 * `wait` request (docs/collector-protocol.md "wait"). Without SEQ it asks
 * `wait NAME 4294967295 0`-style for the current sequence first (any
 * answer carries it), then waits from there; prints the answer line.
 * Prints "ready" on stderr once its wait request is sent, so a test can
 * send the reports that should wake it only then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int request(int fd, const char *req, char *ans, size_t cap)
{
	size_t len = 0;

	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return -1;
	while (len + 1 < cap) {
		ssize_t n = read(fd, ans + len, cap - 1 - len);

		if (n <= 0)
			return -1;
		len += (size_t)n;
		if (memchr(ans, '\n', len))
			break;
	}
	ans[len] = 0;
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[512], ans[512];
	const char *seq = argc > 3 ? argv[3] : NULL;
	int fd;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: wait_probe SOCKET NAME [SEQ [TIMEOUT_MS]]\n");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror(argv[1]);
		return 1;
	}
	if (!seq) {
		/* No time to wait: the answer is the current sequence (a
		 * timeout unless it happens to be 4294967295). */
		snprintf(req, sizeof(req), "wait %s 4294967295 0\n", argv[2]);
		if (request(fd, req, ans, sizeof(ans))) {
			fprintf(stderr, "no answer\n");
			return 1;
		}
		if (strncmp(ans, "{\"seq\":", 7)) {
			fputs(ans, stdout);
			return 1;
		}
		ans[7 + strspn(ans + 7, "0123456789")] = 0;
		snprintf(req, sizeof(req), "wait %.100s %.20s\n", argv[2], ans + 7);
	} else {
		snprintf(req, sizeof(req), "wait %.100s %.20s %.20s\n", argv[2],
			 seq, argc > 4 ? argv[4] : "");
	}
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return 1;
	fprintf(stderr, "ready %s", req);
	if (request(fd, "", ans, sizeof(ans))) {
		fprintf(stderr, "no answer\n");
		return 1;
	}
	fputs(ans, stdout);
	close(fd);
	return 0;
}
