/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's TLS transport (client_tls.h), GnuTLS. The collector asks
 * every client for a certificate its CA signed (collector/remote.c); the
 * client checks the collector's against its own CA and the name it dialed,
 * so neither side talks to an impostor.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "client_tls.h"
#include "internal.h"

/* TLS 1.2 and 1.3 only (as the collector, collector/tls.h). */
#define TLS_PRIORITY "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

struct dta__tls_ctx {
	gnutls_certificate_credentials_t cred;
};

struct dta__tls {
	gnutls_session_t s;
	bool wpending; /* a record's sending was interrupted */
	char why[256];
};

DTA__PRINTF(4, 5)
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int dta__tls_target_parse(const char *spec, struct dta__tls_target *t,
			  char *err, size_t errlen)
{
	static const char *const keys[4] = { "ca", "cert", "key", "name" };
	char *fields[4] = { t->ca, t->cert, t->key, t->name };
	const size_t caps[4] = { sizeof(t->ca), sizeof(t->cert),
				 sizeof(t->key), sizeof(t->name) };
	const char *q = strchr(spec, '?'), *end = q ? q : spec + strlen(spec);
	const char *h = spec, *hend, *port;
	unsigned long pn;
	char *e;

	memset(t, 0, sizeof(*t));
	if (*h == '[') {
		hend = memchr(h, ']', (size_t)(end - h));
		port = hend ? hend + 1 : NULL;
		h++;
	} else {
		for (hend = end; hend > h && hend[-1] != ':'; hend--)
			;
		port = hend > h ? --hend : NULL;
	}
	if (!port || port >= end || *port != ':' || hend <= h ||
	    (size_t)(hend - h) >= sizeof(t->host) || memchr(h, '/', (size_t)(hend - h)))
		goto usage;
	port++;
	if (end - port < 1 || end - port > 5 ||
	    strspn(port, "0123456789") < (size_t)(end - port))
		goto usage;
	pn = strtoul(port, &e, 10);
	if (pn < 1 || pn > 65535)
		goto usage;
	memcpy(t->host, h, (size_t)(hend - h));
	memcpy(t->port, port, (size_t)(end - port));
	while (q && *++q) {
		const char *amp = strchr(q, '&'), *eq;
		size_t len = amp ? (size_t)(amp - q) : strlen(q), vl;
		int k;

		eq = memchr(q, '=', len);
		for (k = 0; eq && k < 4; k++)
			if (strlen(keys[k]) == (size_t)(eq - q) &&
			    !memcmp(q, keys[k], (size_t)(eq - q)))
				break;
		vl = eq ? len - (size_t)(eq - q) - 1 : 0;
		if (!eq || k == 4 || fields[k][0] || !vl || vl >= caps[k])
			return fail(err, errlen, -EINVAL, "tls target parameter "
				    "\"%.*s\": %s (ca=FILE, cert=FILE, key=FILE, "
				    "name=NAME, each once)", (int)len, q,
				    !eq || k == 4 ? "unknown"
				    : fields[k][0] ? "given twice"
				    : !vl ? "no value" : "too long");
		memcpy(fields[k], eq + 1, vl);
		q = amp;
	}
	return 0;
usage:
	return fail(err, errlen, -EINVAL, "tls://%.300s: want tls://HOST:PORT"
		    "[?ca=FILE&cert=FILE&key=FILE&name=NAME] (PORT 1-65535)",
		    spec);
}

/* The private key: ours alone (as ssh wants of its keys). */
static int check_key(const char *key, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc = 0;

	fd = open(key, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, errno == ENOENT ? -ENOENT : -EACCES,
			    "TLS key %s: %s", key, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		rc = fail(err, errlen, -EACCES, "TLS key %s: not a regular "
			  "file", key);
	else if (st.st_uid != geteuid())
		rc = fail(err, errlen, -EACCES, "TLS key %s: owned by uid %u, "
			  "not by you (uid %u)", key, (unsigned)st.st_uid,
			  (unsigned)geteuid());
	else if (st.st_mode & 077)
		rc = fail(err, errlen, -EACCES, "TLS key %s: mode %04o lets "
			  "group or other read the private key; chmod 600 it",
			  key, (unsigned)(st.st_mode & 07777));
	close(fd);
	return rc;
}

int dta__tls_ctx_create(const char *ca, const char *cert, const char *key,
			struct dta__tls_ctx **out, char *err, size_t errlen)
{
	struct dta__tls_ctx *x;
	int rc;

	*out = NULL;
	if (!cert != !key)
		return fail(err, errlen, -EINVAL, "a TLS client certificate "
			    "needs its key, and a key its certificate (cert= "
			    "and key=, or DTA_TLS_CERT and DTA_TLS_KEY)");
	if (ca && access(ca, R_OK) < 0)
		return fail(err, errlen, errno == ENOENT ? -ENOENT : -EACCES,
			    "TLS CA %s: %s", ca, strerror(errno));
	if (cert && access(cert, R_OK) < 0)
		return fail(err, errlen, errno == ENOENT ? -ENOENT : -EACCES,
			    "TLS certificate %s: %s", cert, strerror(errno));
	if (key && (rc = check_key(key, err, errlen)))
		return rc;
	x = calloc(1, sizeof(*x));
	if (!x)
		return fail(err, errlen, -ENOMEM, "out of memory");
	if (gnutls_certificate_allocate_credentials(&x->cred) < 0) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto free_x;
	}
	rc = ca ? gnutls_certificate_set_x509_trust_file(x->cred, ca,
							 GNUTLS_X509_FMT_PEM)
		: gnutls_certificate_set_x509_system_trust(x->cred);
	if (rc <= 0) {
		rc = fail(err, errlen, -EINVAL, "TLS CA %s: %s",
			  ca ? ca : "(the system's)",
			  rc < 0 ? gnutls_strerror(rc) : "no certificate in it");
		goto free_cred;
	}
	if (cert) {
		rc = gnutls_certificate_set_x509_key_file(x->cred, cert, key,
							  GNUTLS_X509_FMT_PEM);
		if (rc < 0) {
			rc = fail(err, errlen, -EINVAL, "TLS certificate %s, "
				  "key %s: %s", cert, key, gnutls_strerror(rc));
			goto free_cred;
		}
	}
	*out = x;
	return 0;
free_cred:
	gnutls_certificate_free_credentials(x->cred);
free_x:
	free(x);
	return rc;
}

void dta__tls_ctx_destroy(struct dta__tls_ctx *x)
{
	if (!x)
		return;
	gnutls_certificate_free_credentials(x->cred);
	free(x);
}

static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @ev on @fd until @end (ms_now() clock): 1, 0 at the end, or
 * -errno. */
static int wait_fd(int fd, short ev, int64_t end)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		int64_t left = end - ms_now();
		int n;

		if (left <= 0)
			return 0;
		n = poll(&p, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : n;
	}
}

/* A TCP connection to @host:@port, non-blocking, by @end. */
static int tcp_connect(const char *host, const char *port, int64_t end,
		       char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM }, *ai, *a;
	int fd = -1, rc, e = ECONNREFUSED, one = 1;

	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc)
		return fail(err, errlen, -ENOENT, "%s:%s: %s", host, port,
			    gai_strerror(rc));
	for (a = ai; a; a = a->ai_next) {
		socklen_t elen = sizeof(e);

		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC |
					  SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			rc = wait_fd(fd, POLLOUT, end);
			if (rc > 0 && !getsockopt(fd, SOL_SOCKET, SO_ERROR, &e,
						  &elen) && !e)
				break;
			if (rc == 0)
				e = ETIMEDOUT;
			else if (rc < 0)
				e = -rc;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return fail(err, errlen, -e, "cannot reach %s:%s: %s", host,
			    port, strerror(e));
	/* Requests go out as soon as they are sealed. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static bool is_ip(const char *s)
{
	unsigned char a[16];

	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

/* Why a handshake failed, in words, and the errno it maps to. */
static int handshake_error(gnutls_session_t s, int rc, const char *host,
			   const char *port, const char *name, char *err,
			   size_t errlen)
{
	gnutls_datum_t txt;

	if (rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
		unsigned st = gnutls_session_get_verify_cert_status(s);

		if (gnutls_certificate_verification_status_print(
			    st, GNUTLS_CRT_X509, &txt, 0) >= 0) {
			char *e = (char *)txt.data + strlen((char *)txt.data);

			while (e > (char *)txt.data && e[-1] == ' ')
				*--e = 0;
			fail(err, errlen, 0, "%s:%s: the collector's certificate "
			     "is refused (expected name %s): %s", host, port,
			     name, (const char *)txt.data);
			gnutls_free(txt.data);
			return -EACCES;
		}
		return fail(err, errlen, -EACCES, "%s:%s: the collector's "
			    "certificate is refused (expected name %s)", host,
			    port, name);
	}
	if (rc == GNUTLS_E_FATAL_ALERT_RECEIVED)
		return fail(err, errlen, -EACCES, "%s:%s: the collector refused "
			    "this client (%s): it takes certificates its CA "
			    "signed whose CN is a reader name (cert=, key=); its "
			    "log says why", host,
			    port, gnutls_alert_get_name(gnutls_alert_get(s)));
	return fail(err, errlen, -EPROTO, "%s:%s: TLS handshake: %s", host,
		    port, gnutls_strerror(rc));
}

int dta__tls_dial(struct dta__tls_ctx *x, const char *host, const char *port,
		  const char *name, int timeout_ms, struct dta__tls **out,
		  char *err, size_t errlen)
{
	int64_t end = ms_now() + timeout_ms;
	struct dta__tls *t;
	int fd, rc;

	*out = NULL;
	if (!name || !*name)
		name = host;
	fd = tcp_connect(host, port, end, err, errlen);
	if (fd < 0)
		return fd;
	t = calloc(1, sizeof(*t));
	if (!t) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto close_fd;
	}
	if (gnutls_init(&t->s, GNUTLS_CLIENT | GNUTLS_NONBLOCK) < 0) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto free_t;
	}
	if (gnutls_priority_set_direct(t->s, TLS_PRIORITY, NULL) < 0 ||
	    gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE, x->cred) < 0 ||
	    (!is_ip(name) && gnutls_server_name_set(t->s, GNUTLS_NAME_DNS, name,
						    strlen(name)) < 0)) {
		rc = fail(err, errlen, -ENOMEM, "TLS session setup failed");
		goto deinit;
	}
	/* The chain against the CA and @name (a DNS name, or an address
	 * against the certificate's IP addresses), in the handshake. */
	gnutls_session_set_verify_cert(t->s, name, 0);
	gnutls_transport_set_int(t->s, fd);
	for (;;) {
		rc = gnutls_handshake(t->s);
		if (rc == 0)
			break;
		if (rc != GNUTLS_E_AGAIN && rc != GNUTLS_E_INTERRUPTED &&
		    gnutls_error_is_fatal(rc)) {
			rc = handshake_error(t->s, rc, host, port, name, err,
					     errlen);
			goto deinit;
		}
		rc = wait_fd(fd, gnutls_record_get_direction(t->s) ? POLLOUT
								    : POLLIN,
			     end);
		if (rc <= 0) {
			rc = fail(err, errlen, rc ? rc : -ETIMEDOUT, "%s:%s: TLS "
				  "handshake: %s", host, port,
				  rc ? strerror(-rc) : "no answer in time");
			goto deinit;
		}
	}
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

/* A failed call's errno, its reason kept. */
static ssize_t tls_error(struct dta__tls *t, ssize_t rc)
{
	if (rc == GNUTLS_E_AGAIN || rc == GNUTLS_E_INTERRUPTED) {
		errno = EAGAIN;
		return -1;
	}
	if (rc == GNUTLS_E_FATAL_ALERT_RECEIVED) {
		/* TLS 1.3: the collector checks our certificate after our
		 * side of the handshake is over, and says no here. */
		snprintf(t->why, sizeof(t->why), "the collector refused this "
			 "client (%s): it takes certificates its CA signed whose "
			 "CN is a reader name (cert=, key=); its log says why",
			 gnutls_alert_get_name(gnutls_alert_get(t->s)));
		errno = EACCES;
		return -1;
	}
	snprintf(t->why, sizeof(t->why), "TLS: %s",
		 gnutls_strerror((int)rc));
	errno = EPROTO;
	return -1;
}

ssize_t dta__tls_recv(struct dta__tls *t, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	/* Records while they come and fit: what one recv() would give. */
	for (;;) {
		n = gnutls_record_recv(t->s, (char *)buf + got, len - got);
		if (n <= 0 || (got += (size_t)n) == len)
			break;
	}
	if (got)
		return (ssize_t)got;
	if (n == 0 || n == GNUTLS_E_PREMATURE_TERMINATION)
		return 0; /* the collector's end; the caller says so */
	return tls_error(t, n);
}

ssize_t dta__tls_send(struct dta__tls *t, const void *buf, size_t len)
{
	ssize_t n = t->wpending ? gnutls_record_send(t->s, NULL, 0)
				: gnutls_record_send(t->s, buf, len);

	t->wpending = false;
	if (n >= 0)
		return n;
	if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
		t->wpending = true;
	else if (n != GNUTLS_E_FATAL_ALERT_RECEIVED) {
		snprintf(t->why, sizeof(t->why), "TLS: %s",
			 gnutls_strerror((int)n));
		errno = EPIPE;
		return -1;
	}
	return tls_error(t, n);
}

bool dta__tls_pending(const struct dta__tls *t)
{
	return t && gnutls_record_check_pending(t->s) > 0;
}

const char *dta__tls_why(const struct dta__tls *t)
{
	return t && t->why[0] ? t->why : "TLS failed";
}

void dta__tls_free(struct dta__tls *t)
{
	if (!t)
		return;
	(void)gnutls_bye(t->s, GNUTLS_SHUT_WR); /* one try, no wait */
	gnutls_deinit(t->s);
	free(t);
}
