/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's remote query listener ([collector] query_listen): TCP
 * with TLS 1.2+ and a client certificate required, speaking exactly the
 * Unix socket's protocol (docs/collector-protocol.md "Transports"). The
 * event loop (dta-collector.c) owns the connections; this file owns the
 * listening socket, the credentials and each connection's TLS session:
 * non-blocking handshakes and records. Trust model: docs/security.md
 * "Remote queries".
 */
#ifndef DTA_COLLECTOR_REMOTE_H
#define DTA_COLLECTOR_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A connection must finish its handshake within this. */
#define COLL_REMOTE_HANDSHAKE_S 10
/* Room for a peer's name (a reader name, dta_config_reader_valid()). */
#define COLL_REMOTE_NAME_MAX 65

struct coll_remote;   /* the listener */
struct coll_tls_conn; /* one connection's TLS session */

/*
 * coll_remote_start() - listen on @where ("[A.B.C.D:]PORT", address
 * default 127.0.0.1) with the certificate @cert, key @key and client CA
 * @ca (tls.h coll_tls_load()). Logs why on failure.
 * Return: 0; -EINVAL (a file or address wrong), -EACCES (key file mode
 * or owner), -ENOENT, -ENOMEM, or the socket's -errno (-EADDRINUSE).
 */
int coll_remote_start(const char *where, const char *cert, const char *key,
		      const char *ca, struct coll_remote **out);
int coll_remote_fd(const struct coll_remote *r); /* poll for POLLIN */
uint16_t coll_remote_port(const struct coll_remote *r);
/* Handshakes refused so far (stats, metrics). */
uint64_t coll_remote_refused(const struct coll_remote *r);
void coll_remote_stop(struct coll_remote *r); /* NULL is fine */

/*
 * coll_remote_accept() - one pending connection: its descriptor
 * (non-blocking, close-on-exec) and a TLS session in @out, handshake not
 * yet started. Return the descriptor; -EAGAIN when none is pending;
 * another -errno (the connection is dropped).
 */
int coll_remote_accept(struct coll_remote *r, struct coll_tls_conn **out);

/*
 * coll_tls_conn_handshake() - advance the handshake of @t. Return 1 when
 * it completed and the peer's certificate names a reader (its name in
 * @name, COLL_REMOTE_NAME_MAX bytes); 0 when it waits for the socket
 * (coll_tls_conn_events() says which way); -1 when it failed or the
 * certificate was refused: the caller closes the connection. Each refusal
 * is counted; one log line with its cause a second at most.
 */
int coll_tls_conn_handshake(struct coll_remote *r, struct coll_tls_conn *t,
			    char *name);
/* A handshake not over within COLL_REMOTE_HANDSHAKE_S: counted and
 * logged as a refusal; the caller closes the connection. */
void coll_tls_conn_timed_out(struct coll_remote *r, struct coll_tls_conn *t);
/* The handshake is over (either way). */
bool coll_tls_conn_ready(const struct coll_tls_conn *t);
/* POLLIN or POLLOUT: what the session waits for (handshake, or a record
 * whose sending was interrupted). */
short coll_tls_conn_events(const struct coll_tls_conn *t);
/* Records decrypted and buffered, not yet read: the socket may be quiet,
 * so read without waiting for poll(). */
bool coll_tls_conn_pending(const struct coll_tls_conn *t);
/*
 * Plain bytes in and out, as read() and send() would: > 0 bytes; 0 at
 * the peer's end (read); -1 with errno EAGAIN (try again on poll's word),
 * or another errno (the connection is broken). A write interrupted by
 * EAGAIN must be retried with at least the bytes it was given (the
 * record is already sealed and is sent first).
 */
ssize_t coll_tls_conn_read(struct coll_tls_conn *t, void *buf, size_t len);
ssize_t coll_tls_conn_write(struct coll_tls_conn *t, const void *buf,
			    size_t len);
void coll_tls_conn_free(struct coll_tls_conn *t); /* NULL is fine */

#endif
