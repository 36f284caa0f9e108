/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The remote query listener (remote.h): a TCP socket, GnuTLS sessions
 * driven without blocking by the collector's poll loop. Every client
 * presents a certificate the configured CA signed; the verify callback
 * below checks it during the handshake, so a refused client gets a TLS
 * alert, not a connection that closes after it sent its first request.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "metrics.h"
#include "remote.h"
#include "tls.h"
#include "tools.h"

struct coll_remote {
	int fd;
	uint16_t port;
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	uint64_t refused, last_log_ns;
};

struct coll_tls_conn {
	gnutls_session_t s;
	bool done;        /* handshake over and the peer named */
	bool wpending;    /* a record's sending was interrupted */
	bool checked;     /* the verify callback ran */
	int check_rc;     /* its result */
	char name[COLL_REMOTE_NAME_MAX];
	char why[192];    /* why the certificate was refused */
	char peer[INET_ADDRSTRLEN + 8];
};

/* During the handshake, once the client's certificate arrived: refuse it
 * there (the client sees an alert) unless it verifies and names a reader. */
static int verify_cb(gnutls_session_t s)
{
	struct coll_tls_conn *t = gnutls_session_get_ptr(s);

	if (!t)
		return GNUTLS_E_CERTIFICATE_ERROR;
	t->checked = true;
	t->check_rc = coll_tls_peer_check(s, t->name, sizeof(t->name), t->why,
					  sizeof(t->why));
	return t->check_rc ? GNUTLS_E_CERTIFICATE_ERROR : 0;
}

int coll_remote_start(const char *where, const char *cert, const char *key,
		      const char *ca, struct coll_remote **out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	struct coll_remote *r;
	char err[512];
	uint32_t addr;
	uint16_t port;
	int rc, one = 1;

	*out = NULL;
	if (metrics_listen_parse(where, &addr, &port)) {
		tool_log(LOG_ERR, "query_listen %s: want PORT or A.B.C.D:PORT",
			 where);
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	rc = coll_tls_load(cert, key, ca, &r->cred, err, sizeof(err));
	if (rc) {
		tool_log(LOG_ERR, "query_listen: %s", err);
		goto free_r;
	}
	gnutls_certificate_set_verify_function(r->cred, verify_cb);
	rc = gnutls_priority_init(&r->prio, COLL_TLS_PRIORITY, NULL);
	if (rc < 0) {
		tool_log(LOG_ERR, "query_listen: TLS priorities: %s",
			 gnutls_strerror(rc));
		rc = -EINVAL;
		goto free_cred;
	}
	r->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->fd < 0)
		goto sock_fail;
	(void)setsockopt(r->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = addr;
	sa.sin_port = htons(port);
	if (bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(r->fd, 64) < 0 ||
	    getsockname(r->fd, (struct sockaddr *)&sa, &salen) < 0)
		goto sock_fail;
	r->port = ntohs(sa.sin_port);
	*out = r;
	return 0;
sock_fail:
	rc = -errno;
	tool_log(LOG_ERR, "query_listen %s: %s", where, strerror(errno));
	if (r->fd >= 0)
		close(r->fd);
	gnutls_priority_deinit(r->prio);
free_cred:
	gnutls_certificate_free_credentials(r->cred);
free_r:
	free(r);
	return rc;
}

int coll_remote_fd(const struct coll_remote *r)
{
	return r->fd;
}

uint16_t coll_remote_port(const struct coll_remote *r)
{
	return r->port;
}

uint64_t coll_remote_refused(const struct coll_remote *r)
{
	return r ? r->refused : 0;
}

void coll_remote_stop(struct coll_remote *r)
{
	if (!r)
		return;
	close(r->fd);
	gnutls_priority_deinit(r->prio);
	gnutls_certificate_free_credentials(r->cred);
	free(r);
}

int coll_remote_accept(struct coll_remote *r, struct coll_tls_conn **out)
{
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	struct coll_tls_conn *t;
	char a[INET_ADDRSTRLEN] = "?";
	int fd, rc, one = 1;

	*out = NULL;
	fd = accept4(r->fd, (struct sockaddr *)&sa, &salen,
		     SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* Answers go out as soon as they are sealed: a client waits for
	 * each one of a request-answer exchange. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t = calloc(1, sizeof(*t));
	if (!t) {
		rc = -ENOMEM;
		goto close_fd;
	}
	inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
	snprintf(t->peer, sizeof(t->peer), "%s:%u", a, ntohs(sa.sin_port));
	/* No session tickets: every connection shows its certificate. */
	rc = gnutls_init(&t->s, GNUTLS_SERVER | GNUTLS_NONBLOCK |
				       GNUTLS_NO_TICKETS);
	if (rc < 0) {
		rc = -ENOMEM;
		goto free_t;
	}
	if (gnutls_priority_set(t->s, r->prio) < 0 ||
	    gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE, r->cred) < 0) {
		rc = -ENOMEM;
		goto deinit;
	}
	gnutls_certificate_server_set_request(t->s, GNUTLS_CERT_REQUIRE);
	/* Without the CA's name in the request, a client sends the
	 * certificate it has, and a wrong one is refused with its cause
	 * (logged, and told to the client in the alert), not as "none". */
	gnutls_certificate_send_x509_rdn_sequence(t->s, 1);
	gnutls_session_set_ptr(t->s, t);
	gnutls_transport_set_int(t->s, fd);
	*out = t;
	return fd;
deinit:
	gnutls_deinit(t->s);
free_t:
	free(t);
close_fd:
	close(fd);
	return rc;
}

static void refuse(struct coll_remote *r, struct coll_tls_conn *t,
		   const char *why)
{
	uint64_t now = tool_now_ns();

	r->refused++;
	if (now - r->last_log_ns < 1000000000ull && r->last_log_ns)
		return;
	r->last_log_ns = now;
	tool_log(LOG_WARNING, "remote client %s refused: %s (%llu refused so "
		 "far)", t->peer, why, (unsigned long long)r->refused);
}

int coll_tls_conn_handshake(struct coll_remote *r, struct coll_tls_conn *t,
			    char *name)
{
	int rc;

	do {
		rc = gnutls_handshake(t->s);
	} while (rc < 0 && !gnutls_error_is_fatal(rc) && rc != GNUTLS_E_AGAIN);
	if (rc == GNUTLS_E_AGAIN)
		return 0;
	if (rc == 0 && !t->checked) /* (the callback runs with every X.509
				       certificate; never skip the check) */
		verify_cb(t->s);
	if (rc < 0 || t->check_rc) {
		char why[256];

		if (t->checked && t->check_rc)
			snprintf(why, sizeof(why), "%s", t->why);
		else if (rc == GNUTLS_E_NO_CERTIFICATE_FOUND ||
			 rc == GNUTLS_E_CERTIFICATE_REQUIRED)
			snprintf(why, sizeof(why), "no client certificate");
		else
			snprintf(why, sizeof(why), "TLS handshake: %s",
				 gnutls_strerror(rc));
		refuse(r, t, why);
		/* Tell the client why (best effort: the socket is
		 * non-blocking, and closes next). */
		(void)gnutls_alert_send_appropriate(t->s, rc < 0 ? rc
					: GNUTLS_E_CERTIFICATE_ERROR);
		t->done = true;
		return -1;
	}
	t->done = true;
	memcpy(name, t->name, sizeof(t->name));
	return 1;
}

void coll_tls_conn_timed_out(struct coll_remote *r, struct coll_tls_conn *t)
{
	char why[64];

	snprintf(why, sizeof(why), "no TLS handshake within %d s",
		 COLL_REMOTE_HANDSHAKE_S);
	refuse(r, t, why);
}

bool coll_tls_conn_ready(const struct coll_tls_conn *t)
{
	return t->done;
}

short coll_tls_conn_events(const struct coll_tls_conn *t)
{
	if (!t->done || t->wpending)
		return gnutls_record_get_direction(t->s) ? POLLOUT : POLLIN;
	return 0;
}

bool coll_tls_conn_pending(const struct coll_tls_conn *t)
{
	return t->done && gnutls_record_check_pending(t->s) > 0;
}

ssize_t coll_tls_conn_read(struct coll_tls_conn *t, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	/* Records while they come and fit: one poll() round for what one
	 * read() of a Unix socket would give. What follows a record that
	 * filled @len stays buffered: coll_tls_conn_pending(). */
	for (;;) {
		n = gnutls_record_recv(t->s, (char *)buf + got, len - got);
		if (n <= 0 || (got += (size_t)n) == len)
			break;
	}
	if (got)
		return (ssize_t)got; /* an end or error comes with the next */
	if (n >= 0)
		return n;
	if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
		errno = EAGAIN;
		return -1;
	}
	/* A client gone without close_notify: as its end of sending. The
	 * protocol frames its requests, so nothing is cut unnoticed. */
	if (n == GNUTLS_E_PREMATURE_TERMINATION)
		return 0;
	errno = EPROTO;
	return -1;
}

ssize_t coll_tls_conn_write(struct coll_tls_conn *t, const void *buf,
			    size_t len)
{
	ssize_t n;

	/* An interrupted record is sent first; gnutls then returns the
	 * length it was given for it. */
	n = t->wpending ? gnutls_record_send(t->s, NULL, 0)
			: gnutls_record_send(t->s, buf, len);
	t->wpending = false;
	if (n >= 0)
		return n;
	if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
		t->wpending = true;
		errno = EAGAIN;
		return -1;
	}
	errno = EPIPE;
	return -1;
}

void coll_tls_conn_free(struct coll_tls_conn *t)
{
	if (!t)
		return;
	/* No bye: the socket is non-blocking and about to close; the
	 * protocol's answers are complete by themselves. */
	gnutls_deinit(t->s);
	free(t);
}
