/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client_wait TARGET NAME SEQ TIMEOUT_MS: dta_client_wait() once, for the
 * e2e tests (tests/e2e/client_wait.sh). Prints "ready" on stderr once the
 * client is open, then "moved N" or "same N" (N: the sequence after the
 * call) on stdout; exit 0, or 1 with the client's message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "dta/dta.h"

int main(int argc, char **argv)
{
	struct dta_client *c;
	char err[512], *end;
	unsigned long long seq;
	uint32_t s;
	long ms;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: client_wait TARGET NAME SEQ TIMEOUT_MS\n");
		return 2;
	}
	errno = 0;
	seq = strtoull(argv[3], &end, 10);
	if (*end || errno || seq > UINT32_MAX)
		return 2;
	ms = strtol(argv[4], &end, 10);
	if (*end || ms < 0 || ms > 3600000)
		return 2;
	if (dta_client_open(argv[1], NULL, &c, err, sizeof(err))) {
		fprintf(stderr, "client_wait: %s\n", err);
		return 1;
	}
	fprintf(stderr, "ready\n");
	s = (uint32_t)seq;
	rc = dta_client_wait(c, argv[2], &s, (int)ms);
	if (rc < 0) {
		fprintf(stderr, "client_wait: %s\n", dta_client_error(c));
		dta_client_close(c);
		return 1;
	}
	printf("%s %" PRIu32 "\n", rc ? "moved" : "same", s);
	dta_client_close(c);
	return 0;
}
