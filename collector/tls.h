/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TLS for the collector's remote listeners (the TCP query listener,
 * remote.c, and the HTTPS API): loading the collector's certificate, key
 * and the CA that signs client certificates, and naming an authenticated
 * peer. GnuTLS. Trust model: docs/security.md "Remote queries".
 */
#ifndef DTA_COLLECTOR_TLS_H
#define DTA_COLLECTOR_TLS_H

#include <stddef.h>

#include <gnutls/gnutls.h>

/* TLS 1.2 and 1.3 only, GnuTLS's default ciphers otherwise. */
#define COLL_TLS_PRIORITY "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/*
 * coll_tls_load() - credentials from PEM files.
 * @cert: the collector's certificate (chain), PEM.
 * @key:  its private key, PEM; must be owned by the effective user and not
 *        readable or writable by group or other (mode 0600 or 0400), or it
 *        is refused: a key others can read is not a secret.
 * @ca:   the CA certificate(s), PEM, that client certificates must chain to.
 * @out:  set to new credentials on success (gnutls_certificate_free_
 *        credentials() frees them).
 * @err, @errlen: a one-line reason on failure, naming the file.
 *
 * Return: 0; -EACCES (key file mode or owner; a file that cannot be read),
 * -ENOENT (a file missing), -EINVAL (a file that is not what it should be:
 * no certificate in @ca, a key that does not match @cert, bad PEM),
 * -ENOMEM.
 */
int coll_tls_load(const char *cert, const char *key, const char *ca,
		  gnutls_certificate_credentials_t *out, char *err,
		  size_t errlen);

/*
 * coll_tls_peer_name() - the name of the authenticated peer of a session
 * whose handshake completed.
 * Verifies the peer's certificate chain against the trusted CA loaded by
 * coll_tls_load() (validity dates, signatures; a certificate that declares
 * key purposes must allow TLS client authentication) and writes its
 * subject's common name (CN) into @name (@cap bytes, NUL-terminated).
 *
 * Return: 0; -EPERM: no certificate, or one that does not verify;
 * -EINVAL: a verified certificate whose CN is missing, given twice, or is
 * not a valid reader name (dta_config_reader_valid()); -ENOSPC: @cap too
 * small for the name.
 */
int coll_tls_peer_name(gnutls_session_t s, char *name, size_t cap);

/* Same, with a one-line reason in @why (@whylen bytes) on failure, for a
 * log line. */
int coll_tls_peer_check(gnutls_session_t s, char *name, size_t cap,
			char *why, size_t whylen);

#endif
