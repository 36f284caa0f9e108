/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's TLS credentials and peer names (tls.h). Every remote
 * client must present a certificate signed by the configured CA; its
 * subject CN is the name "readers" lists (docs/security.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gnutls/x509.h>

#include "dta/config.h"
#include "tls.h"
#include "tools.h"

/* The key file: ours, and nobody else's to read. Checked on the open
 * file, then read by GnuTLS by name; a swap in between needs write access
 * to the directory, which the owner alone should have. */
static int check_key_file(const char *key, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc = 0;

	fd = open(key, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		rc = -errno;
		return tool_fail(err, errlen, rc == -ENOENT ? -ENOENT : -EACCES,
				 "tls_key %s: %s", key, strerror(-rc));
	}
	if (fstat(fd, &st) < 0) {
		rc = tool_fail(err, errlen, -EACCES, "tls_key %s: %s", key,
			       strerror(errno));
		goto close_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = tool_fail(err, errlen, -EACCES,
			       "tls_key %s: not a regular file", key);
		goto close_fd;
	}
	if (st.st_uid != geteuid()) {
		rc = tool_fail(err, errlen, -EACCES,
			       "tls_key %s: owned by uid %u, not by this process's "
			       "user (uid %u); chown it", key,
			       (unsigned)st.st_uid, (unsigned)geteuid());
		goto close_fd;
	}
	if (st.st_mode & 077) {
		rc = tool_fail(err, errlen, -EACCES,
			       "tls_key %s: mode %04o lets group or other at the "
			       "private key; chmod 600 it", key,
			       (unsigned)(st.st_mode & 07777));
		goto close_fd;
	}
close_fd:
	close(fd);
	return rc;
}

static int readable(const char *what, const char *path, char *err,
		    size_t errlen)
{
	if (!path || !*path)
		return tool_fail(err, errlen, -EINVAL, "%s: not set", what);
	if (access(path, R_OK) < 0)
		return tool_fail(err, errlen,
				 errno == ENOENT ? -ENOENT : -EACCES,
				 "%s %s: %s", what, path, strerror(errno));
	return 0;
}

int coll_tls_load(const char *cert, const char *key, const char *ca,
		  gnutls_certificate_credentials_t *out, char *err,
		  size_t errlen)
{
	gnutls_certificate_credentials_t cred;
	int rc;

	*out = NULL;
	if ((rc = readable("tls_cert", cert, err, errlen)) ||
	    (rc = readable("tls_key", key, err, errlen)) ||
	    (rc = readable("tls_ca", ca, err, errlen)))
		return rc;
	if ((rc = check_key_file(key, err, errlen)))
		return rc;
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return tool_fail(err, errlen, -ENOMEM, "tls: out of memory");
	rc = gnutls_certificate_set_x509_key_file(cred, cert, key,
						  GNUTLS_X509_FMT_PEM);
	if (rc < 0) {
		rc = tool_fail(err, errlen, -EINVAL,
			       "tls_cert %s / tls_key %s: %s", cert, key,
			       gnutls_strerror(rc));
		goto free_cred;
	}
	rc = gnutls_certificate_set_x509_trust_file(cred, ca,
						    GNUTLS_X509_FMT_PEM);
	if (rc <= 0) {
		rc = tool_fail(err, errlen, -EINVAL, "tls_ca %s: %s", ca,
			       rc < 0 ? gnutls_strerror(rc) : "no certificate in it");
		goto free_cred;
	}
	*out = cred;
	return 0;
free_cred:
	gnutls_certificate_free_credentials(cred);
	return rc;
}

int coll_tls_peer_check(gnutls_session_t s, char *name, size_t cap,
			char *why, size_t whylen)
{
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
	};
	const gnutls_datum_t *chain;
	gnutls_x509_crt_t crt;
	gnutls_datum_t txt;
	unsigned n = 0, status = 0;
	char cn[128];
	size_t len = sizeof(cn), len2;
	int rc;

	if (cap)
		name[0] = 0;
	if (gnutls_certificate_type_get(s) != GNUTLS_CRT_X509)
		return tool_fail(why, whylen, -EPERM, "no X.509 certificate");
	chain = gnutls_certificate_get_peers(s, &n);
	if (!chain || !n)
		return tool_fail(why, whylen, -EPERM, "no client certificate");
	rc = gnutls_certificate_verify_peers(s, &purpose, 1, &status);
	if (rc < 0)
		return tool_fail(why, whylen, -EPERM,
				 "certificate not verified: %s",
				 gnutls_strerror(rc));
	if (status) {
		if (gnutls_certificate_verification_status_print(
			    status, GNUTLS_CRT_X509, &txt, 0) >= 0) {
			char *e = (char *)txt.data + strlen((char *)txt.data);

			while (e > (char *)txt.data && e[-1] == ' ')
				*--e = 0;
			tool_fail(why, whylen, 0, "certificate refused: %s",
				  (const char *)txt.data);
			gnutls_free(txt.data);
		} else {
			tool_fail(why, whylen, 0,
				  "certificate refused (status %#x)", status);
		}
		return -EPERM;
	}
	if (gnutls_x509_crt_init(&crt) < 0)
		return tool_fail(why, whylen, -ENOMEM, "out of memory");
	rc = gnutls_x509_crt_import(crt, &chain[0], GNUTLS_X509_FMT_DER);
	if (rc < 0) {
		rc = tool_fail(why, whylen, -EPERM,
			       "certificate unreadable: %s",
			       gnutls_strerror(rc));
		goto deinit;
	}
	rc = gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0,
					   0, cn, &len);
	if (rc < 0) {
		rc = tool_fail(why, whylen, -EINVAL,
			       "certificate has no subject CN that can name a reader (%s)",
			       gnutls_strerror(rc));
		goto deinit;
	}
	len2 = 0;
	if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 1,
					  0, NULL, &len2) !=
	    GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) {
		rc = tool_fail(why, whylen, -EINVAL,
			       "certificate subject has more than one CN");
		goto deinit;
	}
	/* An embedded NUL would shorten the name: refuse it. */
	if (strlen(cn) != len || !dta_config_reader_valid(cn)) {
		rc = tool_fail(why, whylen, -EINVAL,
			       "certificate CN is not a reader name (1-64 letters, "
			       "digits, '.', '_', '@' or '-')");
		goto deinit;
	}
	if (len + 1 > cap) {
		rc = tool_fail(why, whylen, -ENOSPC, "name buffer too small");
		goto deinit;
	}
	memcpy(name, cn, len + 1);
	rc = 0;
deinit:
	gnutls_x509_crt_deinit(crt);
	return rc;
}

int coll_tls_peer_name(gnutls_session_t s, char *name, size_t cap)
{
	return coll_tls_peer_check(s, name, cap, NULL, 0);
}
