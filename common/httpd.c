/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemons' embedded HTTP server (httpd.h): libmicrohttpd in its
 * external-event mode (MHD_USE_EPOLL without an internal thread), plus
 * what libmicrohttpd does not do by itself: a total deadline per request,
 * a slot always free for a new connection (the oldest is shut instead of
 * the newest refused) and, for HTTPS with a client CA, certificates
 * required at the handshake.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <gnutls/gnutls.h>

#include "httpd.h"
#include "metrics.h"

/* A connection, from accept to close, for the deadline. */
struct hconn {
	struct hconn *prev, *next;
	uint64_t start_ns; /* accept, or the end of its previous request */
	uint64_t accept_ns;
	uint32_t addr; /* IPv4 peer, network order (the listener is IPv4) */
	int fd;
	bool shut;
	bool answering; /* its request's headers came: the handler has it */
};

struct httpd {
	struct MHD_Daemon *d;
	struct httpd_opts o;
	uint16_t port;
	struct hconn conns; /* list head */
	uint64_t deadline_closed, evicted;
	uint64_t last_log_ns, unlogged; /* libmicrohttpd's lines, rate-limited */
	uint64_t last_evict_log_ns, evict_unlogged;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

enum MHD_Result httpd_reply(struct MHD_Connection *conn, unsigned status,
			    const char *type, char *body, size_t len,
			    bool owned, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body,
					    owned ? MHD_RESPMEM_MUST_FREE
						  : MHD_RESPMEM_MUST_COPY);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) ==
		    MHD_NO ||
	    (allow && MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW,
					      allow) == MHD_NO)) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * Make room after @c came in: when the live connections (not shut) reach
 * the cap, or those from @c's address exceed the per-address cap, shut
 * the oldest of them (one still sending its request first: a slowloris
 * client's, never one being answered if another will do). So a slow or
 * silent client delays a new one by nothing: it is the one that goes,
 * and the scraper's request, sent at once, finds a slot.
 */
static void make_room(struct httpd *h, struct hconn *c)
{
	unsigned cap = h->o.conn_limit ? h->o.conn_limit : 16u;
	unsigned ip_cap = h->o.per_ip_limit ? h->o.per_ip_limit : 8u;
	uint64_t now = now_ns();

	for (int pass = 0; pass < 2; pass++) {
		struct hconn *victim = NULL;
		unsigned n = 0;

		for (struct hconn *o = h->conns.next; o != &h->conns;
		     o = o->next) {
			if (o->shut || (pass == 1 && o->addr != c->addr))
				continue;
			n++;
			if (o == c)
				continue;
			if (!victim || (victim->answering && !o->answering) ||
			    (victim->answering == o->answering &&
			     o->accept_ns < victim->accept_ns))
				victim = o;
		}
		if (!victim || n < (pass == 0 ? cap : ip_cap + 1))
			continue;
		if (victim->fd >= 0)
			shutdown(victim->fd, SHUT_RDWR);
		victim->shut = true;
		h->evicted++;
		if (!h->o.log)
			continue;
		if (h->last_evict_log_ns &&
		    now - h->last_evict_log_ns < 1000000000ull) {
			h->evict_unlogged++;
			continue;
		}
		h->o.log("%s: %s full: the oldest connection closed for a new "
			 "one (%" PRIu64 " so far)", h->o.name,
			 pass ? "the per-address cap is" : "every slot is",
			 h->evicted);
		h->last_evict_log_ns = now;
		h->evict_unlogged = 0;
	}
}

/* The handler has the request: its connection is being answered. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *data,
				  size_t *data_size, void **req_cls)
{
	struct httpd *h = cls;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	if (ci && ci->socket_context)
		((struct hconn *)ci->socket_context)->answering = true;
	return h->o.handler(h->o.cls, conn, url, method, version, data,
			    data_size, req_cls);
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **sock_ctx, enum MHD_ConnectionNotificationCode what)
{
	struct httpd *h = cls;
	struct hconn *c = *sock_ctx;
	const union MHD_ConnectionInfo *ci;

	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c) {
			c->prev->next = c->next;
			c->next->prev = c->prev;
			free(c);
			*sock_ctx = NULL;
		}
		return;
	}
	c = calloc(1, sizeof(*c));
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (c) {
		const union MHD_ConnectionInfo *ai = MHD_get_connection_info(
			conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

		c->start_ns = c->accept_ns = now_ns();
		c->fd = ci ? ci->connect_fd : -1;
		if (ai && ai->client_addr &&
		    ai->client_addr->sa_family == AF_INET)
			c->addr = ((const struct sockaddr_in *)
					   (const void *)ai->client_addr)
					  ->sin_addr.s_addr;
		c->next = h->conns.next;
		c->prev = &h->conns;
		c->next->prev = c;
		h->conns.next = c;
		*sock_ctx = c;
		make_room(h, c);
	} else if (ci) {
		/* No memory to watch it: do not serve it unwatched. */
		shutdown(ci->connect_fd, SHUT_RDWR);
	}
	if (h->o.tls_ca_pem) {
		/* libmicrohttpd only requests a certificate (a client may send
		 * none) and leaves the chain unchecked: require one, and
		 * verify it against the CA during the handshake. The session
		 * exists (TLS is set up before this notification) and its
		 * handshake has not started yet. */
		ci = MHD_get_connection_info(conn,
					     MHD_CONNECTION_INFO_GNUTLS_SESSION);
		if (ci && ci->tls_session) {
			gnutls_session_t s = ci->tls_session;

			gnutls_certificate_server_set_request(s,
							      GNUTLS_CERT_REQUIRE);
			gnutls_session_set_verify_cert(s, NULL, 0);
		} else if (c) {
			shutdown(c->fd, SHUT_RDWR);
			c->shut = true;
		}
	}
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **req_cls, enum MHD_RequestTerminationCode toe)
{
	struct httpd *h = cls;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	(void)toe;
	if (h->o.completed)
		h->o.completed(h->o.cls, conn, req_cls);
	/* The next request's deadline starts now. */
	if (ci && ci->socket_context) {
		((struct hconn *)ci->socket_context)->start_ns = now_ns();
		((struct hconn *)ci->socket_context)->answering = false;
	}
}

/* libmicrohttpd's own lines (failed handshakes, malformed HTTP): what a
 * client controls, so at most one a second, with the count of those left
 * out. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct httpd *h = cls;
	uint64_t now = now_ns();
	char line[512], more[64] = "";
	size_t n;

	if (!h->o.log)
		return;
	if (h->last_log_ns && now - h->last_log_ns < 1000000000ull) {
		h->unlogged++;
		return;
	}
	if (h->unlogged)
		snprintf(more, sizeof(more), " (and %" PRIu64 " more not logged)",
			 h->unlogged);
	h->last_log_ns = now;
	h->unlogged = 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = 0;
	h->o.log("%s: %s%s", h->o.name, line, more);
}

/*
 * Percent-decoding of paths and query values, as MHD's, except that a
 * string holding %00 is left as it came: decoded, the NUL would end the C
 * string the handlers compare, and /health%00.html would be /health. Left
 * encoded it matches no path (404) and no expected value.
 */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	for (const char *p = s; (p = strchr(p, '%')) != NULL; p++)
		if (p[1] == '0' && p[2] == '0')
			return strlen(s);
	return MHD_http_unescape(s);
}

int httpd_start(const struct httpd_opts *o, struct httpd **out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;
	struct MHD_OptionItem tls[6];
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG, nt = 0;
	struct httpd *h;
	uint32_t addr;
	uint16_t port;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!o || !o->handler || !o->name ||
	    metrics_listen_parse(o->listen, &addr, &port) ||
	    !o->tls_cert_pem != !o->tls_key_pem ||
	    (o->tls_ca_pem && !o->tls_cert_pem))
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->o = *o;
	h->conns.next = h->conns.prev = &h->conns;
	sa.sin_addr.s_addr = addr;
	sa.sin_port = htons(port);
	if (o->tls_cert_pem) {
		flags |= MHD_USE_TLS;
		tls[nt++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						     (void *)o->tls_cert_pem };
		tls[nt++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						     (void *)o->tls_key_pem };
		if (o->tls_ca_pem)
			tls[nt++] = (struct MHD_OptionItem){
				MHD_OPTION_HTTPS_MEM_TRUST, 0,
				(void *)o->tls_ca_pem };
		if (o->tls_priorities)
			tls[nt++] = (struct MHD_OptionItem){
				MHD_OPTION_HTTPS_PRIORITIES, 0,
				(void *)o->tls_priorities };
	}
	tls[nt] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	errno = 0;
	/* The caps are make_room()'s: libmicrohttpd's would refuse the
	 * newest connection, the scraper's, and keep the slow ones. Its own
	 * cap is one more, so it accepts while a shut one is closing. */
	h->d = MHD_start_daemon(flags, port, NULL, NULL, on_request, h,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_CONNECTION_LIMIT,
				(o->conn_limit ? o->conn_limit : 16u) + 1,
				MHD_OPTION_CONNECTION_TIMEOUT,
				o->timeout_s ? o->timeout_s : 10u,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				o->conn_memory ? o->conn_memory
					       : (size_t)32 * 1024,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
				MHD_OPTION_ARRAY, tls,
				MHD_OPTION_END);
	if (!h->d) {
		err = errno ? -errno : -EADDRINUSE;
		if (o->log)
			o->log("%s: cannot listen on %s (%s)", o->name,
			       o->listen, strerror(-err));
		free(h);
		return err;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : port;
	*out = h;
	return 0;
}

int httpd_fd(const struct httpd *h)
{
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);

	return info ? info->epoll_fd : -1;
}

uint16_t httpd_port(const struct httpd *h)
{
	return h->port;
}

/* Shut the connections past their deadline; libmicrohttpd then sees them
 * end and closes them (its notification frees our record). */
static void deadlines(struct httpd *h)
{
	uint64_t now = now_ns(), limit = h->o.deadline_s * 1000000000ull;

	if (!limit)
		return;
	for (struct hconn *c = h->conns.next; c != &h->conns; c = c->next) {
		if (c->shut || now - c->start_ns < limit || c->fd < 0)
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->shut = true;
		h->deadline_closed++;
		if (h->o.log)
			h->o.log("%s: a request overran its %u s deadline: "
				 "connection closed", h->o.name,
				 h->o.deadline_s);
	}
}

void httpd_run(struct httpd *h)
{
	if (!h)
		return;
	MHD_run(h->d);
	deadlines(h);
}

int httpd_timeout(const struct httpd *h, int ms)
{
	MHD_UNSIGNED_LONG_LONG t;
	uint64_t now, limit;

	if (!h)
		return ms;
	if (MHD_get_timeout(h->d, &t) == MHD_YES &&
	    (ms < 0 || t < (MHD_UNSIGNED_LONG_LONG)ms))
		ms = (int)t;
	limit = h->o.deadline_s * 1000000000ull;
	if (!limit)
		return ms;
	now = now_ns();
	for (const struct hconn *c = h->conns.next; c != &h->conns;
	     c = c->next) {
		uint64_t left;

		if (c->shut)
			continue;
		left = now - c->start_ns >= limit
			       ? 0
			       : (limit - (now - c->start_ns)) / 1000000 + 1;
		if (ms < 0 || left < (uint64_t)ms)
			ms = (int)left;
	}
	return ms;
}

uint64_t httpd_deadline_closed(const struct httpd *h)
{
	return h ? h->deadline_closed : 0;
}

uint64_t httpd_evicted(const struct httpd *h)
{
	return h ? h->evicted : 0;
}

void httpd_stop(struct httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	/* Every connection's CLOSED notification has freed its record. */
	free(h);
}
