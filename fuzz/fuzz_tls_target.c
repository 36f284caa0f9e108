/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz harness for the client's "tls://" target (lib/src/client_tls.c
 * dta__tls_target_parse()): the input, up to its first NUL, is what
 * follows "tls://". Checked: an accepted target has a host of 1-255 bytes
 * without '/' and a port of 1-5 digits in 1-65535, and every string it
 * returns is NUL-terminated within its field and occurs in the input; a
 * refused one is -EINVAL with a message; nothing is written past the
 * struct.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client_tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void in_input(const char *s, size_t cap, const char *spec)
{
	if (!memchr(s, 0, cap))
		abort();
	if (*s && !strstr(spec, s))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dta__tls_target *t = malloc(sizeof(*t));
	char *spec = malloc(size + 1), err[256];
	int rc;

	if (!t || !spec)
		abort();
	memcpy(spec, data, size);
	spec[size] = 0;
	err[0] = 0;
	rc = dta__tls_target_parse(spec, t, err, sizeof(err));
	if (rc == 0) {
		unsigned long p = strtoul(t->port, NULL, 10);

		in_input(t->host, sizeof(t->host), spec);
		in_input(t->port, sizeof(t->port), spec);
		in_input(t->ca, sizeof(t->ca), spec);
		in_input(t->cert, sizeof(t->cert), spec);
		in_input(t->key, sizeof(t->key), spec);
		in_input(t->name, sizeof(t->name), spec);
		if (!t->host[0] || strchr(t->host, '/') || p < 1 || p > 65535 ||
		    strspn(t->port, "0123456789") != strlen(t->port))
			abort();
	} else if (rc != -EINVAL || !err[0]) {
		abort();
	}
	free(t);
	free(spec);
	return 0;
}
