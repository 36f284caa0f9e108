/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's HTTPS JSON query API (docs/api.md): the structures it
 * serves, batched key lookups and Append reads from a client-held cursor,
 * for curl, Grafana's JSON data sources and Python `requests`. HTTPS only,
 * client certificates required (collector/tls.h: the certificate's CN is
 * the client's name, [structure] readers says what it may read). Answers
 * come from the executor the unix socket answers from (dta/exec.h), so the
 * values are the socket's. Runs in the collector's poll loop (httpd.h).
 */
#ifndef DTA_COLLECTOR_API_H
#define DTA_COLLECTOR_API_H

#include <stddef.h>
#include <stdint.h>

#include "dta/config.h"
#include "dta/exec.h"

/* Request bodies larger than this are refused (413). */
#define COLL_API_BODY_MAX (1u << 20)
/* Seconds one request may take in all (handshake, headers, body, answer). */
#define COLL_API_DEADLINE_S 30
/* Seconds of silence before a connection is closed. */
#define COLL_API_IDLE_S 10
/* Bytes per connection for a request's line, headers and query arguments
 * (each ?key= costs its text and a record): room for about 2500 13-byte
 * keys in a GET. */
#define COLL_API_CONN_MEMORY (256u * 1024)
/* Connections at once, and from one address. */
#define COLL_API_CONNECTIONS 64
#define COLL_API_PER_IP 16

struct coll_api_opts {
	const char *listen;                   /* [A.B.C.D:]PORT */
	const char *tls_cert, *tls_key, *tls_ca; /* PEM files, all required */
	const char *collector;                /* this collector's name */
	struct dta_exec *x;                   /* structure i is cs[i] */
	const struct dta_config_structure *cs;
	size_t n;
};

/* Counters, for the stats answer. */
struct coll_api_stats {
	uint64_t requests;  /* answered, any status */
	uint64_t errors;    /* answered with 4xx or 5xx */
	uint64_t refused;   /* 403: no usable client identity */
	uint64_t deadline;  /* connections shut at the request deadline */
	uint64_t evicted;   /* connections shut for a newer one (a cap reached) */
};

struct coll_api;

/**
 * coll_api_start() - load the TLS files (coll_tls_load()'s checks: a key
 * file others can read is refused) and listen.
 * Return: 0; -EINVAL (a TLS file missing from @o, a bad listen address,
 * files that are not what they should be); -EACCES; -ENOENT; -ENOMEM;
 * -errno from the listener. @err receives a one-line reason.
 */
int coll_api_start(const struct coll_api_opts *o, struct coll_api **out,
		   char *err, size_t errlen);
int coll_api_fd(const struct coll_api *a);
uint16_t coll_api_port(const struct coll_api *a);
void coll_api_run(struct coll_api *a);
int coll_api_timeout(const struct coll_api *a, int ms);
void coll_api_stats(const struct coll_api *a, struct coll_api_stats *st);
void coll_api_stop(struct coll_api *a);

#endif
