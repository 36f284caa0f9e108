/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-collector's TLS module (collector/tls.h): loading credentials (the
 * key file's mode and owner, files that are not what they should be) and
 * naming the peer of a real handshake over a socket pair: a certificate
 * of the CA, none, another CA's, one for servers only, CNs that are no
 * reader name. Certificates are made by tests/tls_certs.sh (certtool);
 * without certtool the tests are skipped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <gnutls/gnutls.h>

#include "tls.h"

static char dir[256];
static bool have_certs;

static const char *f(const char *name)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static int setup(void **state)
{
	char cmd[1024];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/dta-test-tls.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	if (system("command -v certtool >/dev/null 2>&1"))
		return 0; /* the tests skip */
	snprintf(cmd, sizeof(cmd),
		 "sh '%s/tests/tls_certs.sh' '%s' analyst 'badcn=bad name' "
		 "long=%s", DTA_SOURCE_DIR, dir,
		 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	if (system(cmd))
		return -1;
	have_certs = true;
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

#define NEED_CERTS()                                                        \
	do {                                                                \
		if (!have_certs) {                                          \
			print_message("certtool (gnutls-bin) missing\n");   \
			skip();                                             \
		}                                                           \
	} while (0)

static void test_load(void **state)
{
	gnutls_certificate_credentials_t cr;
	char err[512];

	(void)state;
	NEED_CERTS();
	assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"),
				       f("ca.pem"), &cr, err, sizeof(err)), 0);
	assert_non_null(cr);
	gnutls_certificate_free_credentials(cr);
	/* missing files */
	assert_int_equal(coll_tls_load(f("none.pem"), f("server.key"),
				       f("ca.pem"), &cr, err, sizeof(err)),
			 -ENOENT);
	assert_null(cr);
	assert_non_null(strstr(err, "none.pem"));
	assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"), NULL,
				       &cr, err, sizeof(err)), -EINVAL);
	/* a CA file without a certificate; a key of another certificate */
	assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"),
				       f("ca.key"), &cr, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "tls_ca"));
	assert_int_equal(coll_tls_load(f("server.pem"), f("analyst.key"),
				       f("ca.pem"), &cr, err, sizeof(err)),
			 -EINVAL);
	assert_null(cr);
}

static void test_load_key_mode(void **state)
{
	gnutls_certificate_credentials_t cr;
	char err[512];

	(void)state;
	NEED_CERTS();
	assert_int_equal(chmod(f("server.key"), 0640), 0);
	assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"),
				       f("ca.pem"), &cr, err, sizeof(err)),
			 -EACCES);
	assert_non_null(strstr(err, "0640"));
	assert_non_null(strstr(err, "chmod 600"));
	assert_int_equal(chmod(f("server.key"), 0604), 0);
	assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"),
				       f("ca.pem"), &cr, err, sizeof(err)),
			 -EACCES);
	assert_int_equal(chmod(f("server.key"), 0400), 0);
	assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"),
				       f("ca.pem"), &cr, err, sizeof(err)), 0);
	gnutls_certificate_free_credentials(cr);
	if (geteuid() == 0) {
		/* root: give it away, and it is refused */
		assert_int_equal(chown(f("server.key"), 65534, 65534), 0);
		assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"),
					       f("ca.pem"), &cr, err,
					       sizeof(err)), -EACCES);
		assert_non_null(strstr(err, "owned by uid 65534"));
		assert_int_equal(chown(f("server.key"), 0, 0), 0);
	}
	assert_int_equal(chmod(f("server.key"), 0600), 0);
}

/*
 * A handshake over a socket pair between the collector's credentials
 * (certificate requested, not required: the check under test decides)
 * and a client with certificate @name (NULL: none); then
 * coll_tls_peer_name() with @cap bytes. Returns its result, the name in
 * @out.
 */
static int peer_name_of(const char *name, size_t cap, char *out)
{
	gnutls_certificate_credentials_t scr, ccr;
	gnutls_session_t s, c;
	char err[512], cert[64], key[64];
	int sv[2], rs = 1, rc_ = 1, rc;

	assert_int_equal(coll_tls_load(f("server.pem"), f("server.key"),
				       f("ca.pem"), &scr, err, sizeof(err)), 0);
	assert_int_equal(gnutls_certificate_allocate_credentials(&ccr), 0);
	assert_true(gnutls_certificate_set_x509_trust_file(
			    ccr, f("ca.pem"), GNUTLS_X509_FMT_PEM) > 0);
	if (name) {
		snprintf(cert, sizeof(cert), "%s.pem", name);
		snprintf(key, sizeof(key), "%s.key", name);
		assert_int_equal(gnutls_certificate_set_x509_key_file(
					 ccr, f(cert), f(key),
					 GNUTLS_X509_FMT_PEM), 0);
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sv), 0);
	assert_int_equal(gnutls_init(&s, GNUTLS_SERVER | GNUTLS_NONBLOCK), 0);
	assert_int_equal(gnutls_init(&c, GNUTLS_CLIENT | GNUTLS_NONBLOCK), 0);
	assert_int_equal(gnutls_priority_set_direct(s, COLL_TLS_PRIORITY, NULL), 0);
	assert_int_equal(gnutls_priority_set_direct(c, COLL_TLS_PRIORITY, NULL), 0);
	assert_int_equal(gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, scr), 0);
	assert_int_equal(gnutls_credentials_set(c, GNUTLS_CRD_CERTIFICATE, ccr), 0);
	gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
	/* (any client certificate is sent, not only the CA's) */
	gnutls_certificate_send_x509_rdn_sequence(s, 1);
	gnutls_transport_set_int(s, sv[0]);
	gnutls_transport_set_int(c, sv[1]);
	for (int i = 0; i < 1000 && (rs || rc_); i++) {
		if (rs)
			rs = gnutls_handshake(s);
		if (rc_)
			rc_ = gnutls_handshake(c);
		assert_true(rs == 0 || rs == GNUTLS_E_AGAIN);
		assert_true(rc_ == 0 || rc_ == GNUTLS_E_AGAIN);
	}
	assert_int_equal(rs, 0);
	assert_int_equal(rc_, 0);
	rc = coll_tls_peer_name(s, out, cap);
	gnutls_deinit(s);
	gnutls_deinit(c);
	close(sv[0]);
	close(sv[1]);
	gnutls_certificate_free_credentials(scr);
	gnutls_certificate_free_credentials(ccr);
	return rc;
}

static void test_peer_name(void **state)
{
	char name[80];

	(void)state;
	NEED_CERTS();
	memset(name, 'x', sizeof(name));
	assert_int_equal(peer_name_of("analyst", sizeof(name), name), 0);
	assert_string_equal(name, "analyst");
	/* exactly room for it, and one byte less */
	assert_int_equal(peer_name_of("analyst", 8, name), 0);
	assert_string_equal(name, "analyst");
	assert_int_equal(peer_name_of("analyst", 7, name), -ENOSPC);
}

static void test_peer_refused(void **state)
{
	char name[80] = "unchanged";

	(void)state;
	NEED_CERTS();
	/* no certificate */
	assert_int_equal(peer_name_of(NULL, sizeof(name), name), -EPERM);
	assert_string_equal(name, "");
	/* another CA's, though its CN is a reader's */
	strcpy(name, "x");
	assert_int_equal(peer_name_of("rogue", sizeof(name), name), -EPERM);
	assert_string_equal(name, "");
	/* the CA's, but for TLS servers only */
	assert_int_equal(peer_name_of("server", sizeof(name), name), -EPERM);
	/* the CA's, with a CN that cannot name a reader */
	assert_int_equal(peer_name_of("badcn", sizeof(name), name), -EINVAL);
	assert_int_equal(peer_name_of("long", sizeof(name), name), -EINVAL);
	assert_string_equal(name, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_key_mode),
		cmocka_unit_test(test_peer_name),
		cmocka_unit_test(test_peer_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
