/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemons' embedded HTTP server (libmicrohttpd): one listener run by
 * the daemon's own poll loop, without a thread of its own, so handlers run
 * on the thread that owns the daemon's state. The metrics endpoint
 * (metrics.c) and the collector's HTTPS query API (collector/api.c) are
 * two of these. Not part of libdta's API; built only with libmicrohttpd.
 *
 * What every listener gets, so no endpoint forgets one:
 *  - a connection cap and a per-IP connection cap that never refuse the
 *    newest connection: when either is reached, the oldest connection
 *    (one still sending its request first) is shut to make room, so slow
 *    or silent clients cannot keep a scraper out;
 *  - an inactivity timeout (libmicrohttpd's) and a total deadline per
 *    request: a connection is shut once it has spent @deadline_s on one
 *    request (TLS handshake, headers, body and answer included), however
 *    steadily it trickles bytes;
 *  - with TLS and a client CA: client certificates required and their
 *    chain verified during the handshake (a client without one, or with
 *    one another CA signed, never gets to send a request).
 *
 * Use: poll httpd_fd() for POLLIN with the loop's other descriptors, call
 * httpd_run() when it is readable and when the poll times out, and bound
 * the poll's timeout with httpd_timeout().
 */
#ifndef DTA_HTTPD_H
#define DTA_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

struct httpd_opts {
	const char *name;   /* for log lines: "metrics", "api" */
	const char *listen; /* metrics_listen_parse() form: [A.B.C.D:]PORT */
	/* Every request; libmicrohttpd's contract (called with the headers,
	 * then with each piece of the body, then once more). */
	MHD_AccessHandlerCallback handler;
	void *cls;
	/* When a request ends, answered or not: free what *@req_cls holds.
	 * May be NULL. */
	void (*completed)(void *cls, struct MHD_Connection *conn,
			  void **req_cls);
	unsigned conn_limit;   /* connections at once (0: 16) */
	unsigned per_ip_limit; /* from one address (0: 8) */
	unsigned timeout_s;    /* inactivity (0: 10) */
	unsigned deadline_s;   /* one request, in total (0: none) */
	/* Bytes per connection for its request line, headers and query
	 * arguments (libmicrohttpd's pool; 0: its default, 32 KiB). */
	size_t conn_memory;
	/* HTTPS when set: PEM text of the server's certificate (chain) and
	 * key; with @tls_ca_pem, clients must present a certificate that
	 * chains to it. */
	const char *tls_cert_pem, *tls_key_pem, *tls_ca_pem;
	const char *tls_priorities; /* GnuTLS priority string; NULL: default */
	void (*log)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

struct httpd;

/**
 * httpd_start() - listen as @o says.
 * Return: 0; -EINVAL (bad listen address, no handler, a key without a
 * certificate); -EADDRINUSE or another -errno when the socket cannot be
 * opened or TLS set up (logged).
 */
int httpd_start(const struct httpd_opts *o, struct httpd **out);
/* The epoll descriptor to poll for POLLIN. */
int httpd_fd(const struct httpd *h);
/* The port it listens on. */
uint16_t httpd_port(const struct httpd *h);
/* Serve what is pending and enforce the deadlines; never blocks. NULL is
 * fine. */
void httpd_run(struct httpd *h);
/* The most milliseconds to wait before the next httpd_run(), at most @ms
 * (@ms < 0: no bound of the caller's). NULL: @ms. */
int httpd_timeout(const struct httpd *h, int ms);
/* Connections shut for overrunning the request deadline. */
uint64_t httpd_deadline_closed(const struct httpd *h);
/* Connections shut to make room for a newer one (a cap was reached). */
uint64_t httpd_evicted(const struct httpd *h);
/* Close everything; NULL is fine. */
void httpd_stop(struct httpd *h);

/*
 * httpd_reply() - queue an answer of @len bytes of @body with
 * Content-Type @type (and an Allow header when @allow is set). @owned:
 * @body was malloc()ed and is freed here, whatever happens.
 */
enum MHD_Result httpd_reply(struct MHD_Connection *conn, unsigned status,
			    const char *type, char *body, size_t len,
			    bool owned, const char *allow);

#endif
