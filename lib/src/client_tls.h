/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's TLS transport (client.c's "tls:" target and any unit it
 * reaches over TCP): GnuTLS sessions on connected TCP sockets, with the
 * read and write calls client.c makes on Unix sockets. Trust model:
 * docs/security.md "Remote queries".
 */
#ifndef DTA_CLIENT_TLS_H
#define DTA_CLIENT_TLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A "tls://" target's rest, "HOST:PORT[?ca=FILE&cert=FILE&key=FILE&
 * name=NAME]" (HOST may be [IPv6]), parsed: each string "" when not
 * given. No defaults applied, nothing opened.
 */
struct dta__tls_target {
	char host[256], port[6];
	char ca[PATH_MAX], cert[PATH_MAX], key[PATH_MAX], name[256];
};

/* Return 0 with @t filled, or -EINVAL with a message in @err (a missing
 * or empty host, a port not 1-65535, an unknown, repeated or empty
 * parameter, a value too long). */
int dta__tls_target_parse(const char *spec, struct dta__tls_target *t,
			  char *err, size_t errlen);

/* Credentials: the CA the collector's certificate must chain to, and the
 * client's own certificate and key (what the collector knows it by). */
struct dta__tls_ctx;
/* One session over one connected socket. */
struct dta__tls;

/*
 * dta__tls_ctx_create() - @ca: PEM file of the CA(s) to trust (NULL: the
 * system's trust store); @cert and @key: PEM files of the client's
 * certificate and private key, both or neither; the key must be owned by
 * the effective user and not readable by group or other.
 * Return: 0; -EINVAL (one of @cert/@key without the other, a file that is
 * not what it should be), -EACCES (key file mode or owner), -ENOENT,
 * -ENOMEM; a message in @err.
 */
int dta__tls_ctx_create(const char *ca, const char *cert, const char *key,
			struct dta__tls_ctx **out, char *err, size_t errlen);
void dta__tls_ctx_destroy(struct dta__tls_ctx *x); /* NULL is fine */

/*
 * dta__tls_dial() - connect to @host:@port over TCP and complete a TLS
 * 1.2+ handshake within @timeout_ms, verifying the server's certificate
 * against @x's CA and against @name (a DNS name or an IP address; NULL:
 * @host). Return the socket (non-blocking, close-on-exec) with its session
 * in *@out; else a negative errno with a message in @err: -ECONNREFUSED,
 * -ETIMEDOUT, -EHOSTUNREACH...(connecting), -ENOENT (host unknown),
 * -EACCES (a certificate refused, either way), -EPROTO (TLS failed).
 */
int dta__tls_dial(struct dta__tls_ctx *x, const char *host, const char *port,
		  const char *name, int timeout_ms, struct dta__tls **out,
		  char *err, size_t errlen);

/*
 * recv() and send() on the session's non-blocking socket: > 0 bytes; 0
 * at the peer's end (recv); -1 with errno EAGAIN, or another errno
 * (EACCES: the peer refused us with an alert; EPROTO, EPIPE: broken;
 * dta__tls_why() says more). A send interrupted with EAGAIN must be
 * repeated with at least the bytes it was given.
 */
ssize_t dta__tls_recv(struct dta__tls *t, void *buf, size_t len);
ssize_t dta__tls_send(struct dta__tls *t, const void *buf, size_t len);
/* Decrypted bytes buffered and not yet returned by dta__tls_recv(): the
 * socket may stay quiet; read without poll(). */
bool dta__tls_pending(const struct dta__tls *t);
/* Why the last call failed, for messages. */
const char *dta__tls_why(const struct dta__tls *t);
/* Say goodbye (without waiting) and free; the caller closes the socket.
 * NULL is fine. */
void dta__tls_free(struct dta__tls *t);

#endif
