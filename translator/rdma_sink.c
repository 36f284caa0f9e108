/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The translator's RDMA sink: connects to a collector with rdma_cm, learns
 * where every structure lives (struct dta_meta messages), and turns memory
 * operations into RDMA WRITE and FETCH_AND_ADD work requests on one RC
 * queue pair: small writes inline, the others from a registered staging
 * ring; one doorbell per submit; only every SIGNAL_EVERY-th request
 * signalled; a bounded number outstanding. Notifications (reports with
 * the immediate flag) are a zero-length RDMA WRITE WITH IMMEDIATE after
 * the batch's writes on the same queue pair, so the collector's receive
 * completion comes after they are placed (RC ordering), to collectors
 * that accepted with DTA_META_ACCEPT_NOTIFY. Protocol: docs/rdma.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "metrics.h"
#include "rdma_sink.h"

#define SEND_DEPTH 256    /* send queue entries */
#define SIGNAL_EVERY 32   /* one signalled request per this many */
#define STAGE_SIZE (8u << 20)
#define META_RECVS 64
#define RECV_SIZE 4096 /* a description or a cursor message */

struct remote {
	uint64_t addr;
	uint32_t rkey;
	uint64_t length;
	bool append;
	uint32_t cidx; /* the collector's index for it (immediate data) */
};

/* An Append frame written but not known complete, or not yet written
 * because the connection is down: re-sent after a reconnect so no entry
 * is lost (frames are idempotent: same bytes, same place). */
struct pending {
	uint64_t wr_id; /* UINT64_MAX: not posted yet */
	unsigned structure;
	uint64_t offset;
	uint32_t len;
	uint8_t *data;
};

#define MAX_PENDING 65536

/* One rdma_cm connection and what it learned: replaced as a whole when
 * the sink reconnects, so a new one can be set up without the lock. */
struct link {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *stage_mr, *meta_mr;
	uint32_t max_inline;
	bool notify_ok; /* the collector takes writes with immediate */
	struct remote remote[DTA_CONFIG_MAX_STRUCTURES]; /* by sink index */
};

struct conn {
	pthread_mutex_t lock;
	char host[256];
	uint16_t port;
	const struct rdma_sink_target *tg; /* the shares it holds */
	unsigned marker; /* sink index of a structure it holds */
	uint64_t next_try_ns, backoff_ns;
	int step_ms; /* how long each connection step may take */
	uint64_t reconnects, dropped;
	struct pending *pend; /* ring of MAX_PENDING */
	uint64_t pend_head, pend_tail;
	struct link l;  /* the current connection (zero while reconnecting) */
	bool connected_once, reconnecting;
	bool append[DTA_CONFIG_MAX_STRUCTURES]; /* by sink index */
	uint8_t *stage; /* ring of staging bytes */
	uint8_t *meta;
	/* Append lists' cursors as the collector reported them (by sink
	 * index; NULL for other primitives), from the first connection. */
	struct dta_ap_cursor *cursors[DTA_CONFIG_MAX_STRUCTURES];

	/* Outstanding work: requests posted but not known complete. Requests
	 * complete in order on an RC queue pair, so a signalled completion
	 * retires it and everything posted before it. */
	uint64_t posted, retired, unsignalled;
	uint64_t signalled; /* wr_id + 1 of the last signalled request */
	uint64_t stage_head, stage_tail; /* bytes allocated / released */
	uint64_t stage_end[SEND_DEPTH];  /* stage_head after request i */
	uint64_t errors, ops, bytes;
	uint64_t notifies, notifies_lost;
	int broken;
	/* Completion latency (rdma_sink_set_latency()): when each signalled
	 * request was posted, and where its posting-to-completion time goes
	 * (NULL: not measured). */
	uint64_t post_ns[SEND_DEPTH];
	struct metrics_hist *lat;
};

/* The next connection event, within @ms; a dead or restarting collector
 * must not stall the translator's workers for long. */
static int wait_event(struct conn *s, struct link *L, enum rdma_cm_event_type want,
		      char *err, size_t errlen)
{
	struct pollfd p = { .fd = L->ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;
	int status;

	if (poll(&p, 1, s->step_ms) != 1) {
		snprintf(err, errlen, "no answer from %s:%u within %d ms (%s)",
			 s->host, s->port, s->step_ms, rdma_event_str(want));
		return -1;
	}
	if (rdma_get_cm_event(L->ec, &ev)) {
		snprintf(err, errlen, "rdma_cm: %s", strerror(errno));
		return -1;
	}
	got = ev->event;
	status = ev->status;
	if (got == RDMA_CM_EVENT_ESTABLISHED) {
		const uint8_t *pd = ev->param.conn.private_data;

		L->notify_ok = pd && ev->param.conn.private_data_len >= 4 &&
			       ((uint32_t)pd[0] << 24 | (uint32_t)pd[1] << 16 |
				(uint32_t)pd[2] << 8 | pd[3]) ==
				       DTA_META_ACCEPT_NOTIFY;
	}
	rdma_ack_cm_event(ev);
	if (got == want)
		return 0;
	if (got == RDMA_CM_EVENT_REJECTED)
		snprintf(err, errlen, "the collector refused the connection "
			 "(is this translator's address in its rdma_allow?)");
	else
		snprintf(err, errlen, "rdma_cm: expected %s, got %s (status %d)",
			 rdma_event_str(want), rdma_event_str(got), status);
	return -1;
}

static int post_recv(struct conn *s, struct link *L, uint64_t i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(s->meta + i * RECV_SIZE),
			       .length = RECV_SIZE, .lkey = L->meta_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(L->id->qp, &wr, &bad) ? -1 : 0;
}

static int post_recvs(struct conn *s, struct link *L)
{
	for (int i = 0; i < META_RECVS; i++)
		if (post_recv(s, L, (uint64_t)i))
			return -1;
	return 0;
}

/* Receive the collector's descriptions and Append cursors, and map the
 * shares this connection serves. */
static int learn(struct conn *s, struct link *L, char *err, size_t errlen)
{
	struct dta_meta got[DTA_CONFIG_MAX_STRUCTURES];
	static _Thread_local struct dta_meta_cursors mc;
	const struct rdma_sink_target *tg = s->tg;
	unsigned have = 0, want = 0, cur_have = 0, cur_want = 0;
	int map[DTA_CONFIG_MAX_STRUCTURES]; /* collector index -> sink index */
	uint64_t deadline = tool_now_ns() + (uint64_t)s->step_ms * 1000000;

	while (!want || have < want || cur_have < cur_want) {
		struct ibv_wc wc;
		const uint8_t *msg;
		int n = ibv_poll_cq(L->cq, 1, &wc);

		if (n == 0) {
			if (tool_now_ns() > deadline) {
				snprintf(err, errlen, "no structure descriptions "
					 "from the collector within %d ms", s->step_ms);
				return -1;
			}
			usleep(1000);
			continue;
		}
		if (n < 0 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV) {
			snprintf(err, errlen, "receiving descriptions: %s",
				 n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
			return -1;
		}
		msg = s->meta + wc.wr_id * RECV_SIZE;
		if (have < want || !want) {
			struct dta_meta m;
			int rc = dta_meta_decode(msg, wc.byte_len, &m);

			if (rc || m.count > DTA_CONFIG_MAX_STRUCTURES ||
			    (want && m.count != want)) {
				snprintf(err, errlen, "bad structure description: %s",
					 rc ? dta_strerror(rc) : "inconsistent count");
				return -1;
			}
			want = m.count;
			got[m.index] = m;
			if (m.layout.primitive == DTA_PRIM_APPEND)
				cur_want += (m.layout.g.ap.lists + DTA_CURSORS_MAX - 1) /
					    DTA_CURSORS_MAX;
			if (++have < want)
				goto next;
			/* All known: map them before cursors arrive. */
			for (unsigned j = 0; j < want; j++)
				map[j] = -1;
			for (size_t i = 0; i < tg->n; i++) {
				const struct rdma_sink_share *sh = &tg->share[i];
				struct remote *rm = &L->remote[sh->index];
				unsigned j;

				for (j = 0; j < want; j++)
					if (!strcmp(got[j].name, sh->name))
						break;
				if (j == want) {
					snprintf(err, errlen, "the collector has "
						 "no structure %s", sh->name);
					return -1;
				}
				if (!tool_same_layout(&got[j].layout, sh->layout) ||
				    got[j].list_base != sh->list_base) {
					snprintf(err, errlen, "the collector's %s "
						 "has a different layout than this "
						 "configuration says", sh->name);
					return -1;
				}
				map[j] = (int)sh->index;
				rm->cidx = j;
				rm->addr = got[j].addr;
				rm->rkey = got[j].rkey;
				rm->length = got[j].length;
				rm->append = sh->layout->primitive == DTA_PRIM_APPEND;
				if (rm->append && !s->connected_once) {
					s->cursors[sh->index] =
						calloc(sh->layout->g.ap.lists,
						       sizeof(*s->cursors[0]));
					if (!s->cursors[sh->index]) {
						snprintf(err, errlen, "out of memory");
						return -1;
					}
				}
			}
		} else {
			int rc = dta_meta_cursors_decode(msg, wc.byte_len, &mc);
			int i;

			if (rc || mc.structure >= want ||
			    got[mc.structure].layout.primitive != DTA_PRIM_APPEND ||
			    mc.first_list + mc.n > got[mc.structure].layout.g.ap.lists) {
				snprintf(err, errlen, "bad cursor message: %s",
					 rc ? dta_strerror(rc) : "out of range");
				return -1;
			}
			/* Kept from the first connection only: later the
			 * translator's own cursors are ahead of them. */
			i = s->connected_once ? -1 : map[mc.structure];
			for (unsigned j = 0; i >= 0 && j < mc.n; j++) {
				s->cursors[i][mc.first_list + j].next_seq = mc.cur[j].next_seq;
				s->cursors[i][mc.first_list + j].next_entry =
					mc.cur[j].next_entry;
			}
			cur_have++;
		}
next:
		if (post_recv(s, L, wc.wr_id)) {
			snprintf(err, errlen, "rdma receives: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}


static void sink_close(struct conn *s, struct link *L)
{
	if (L->id && L->id->qp) {
		rdma_disconnect(L->id);
		rdma_destroy_qp(L->id);
	}
	if (L->stage_mr)
		ibv_dereg_mr(L->stage_mr);
	if (L->meta_mr)
		ibv_dereg_mr(L->meta_mr);
	if (L->cq)
		ibv_destroy_cq(L->cq);
	if (L->pd)
		ibv_dealloc_pd(L->pd);
	if (L->id)
		rdma_destroy_id(L->id);
	if (L->ec)
		rdma_destroy_event_channel(L->ec);
	L->id = NULL;
	L->stage_mr = L->meta_mr = NULL;
	L->cq = NULL;
	L->pd = NULL;
	L->ec = NULL;
}

/* Connect, receive the descriptions, check them. 0 or -1 with @err. */
static int sink_open(struct conn *s, struct link *L, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_INET };
	struct addrinfo *ai = NULL;
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_conn_param cp = { 0 };
	struct ibv_device_attr da;
	char ps[8];

	*err = 0;
	snprintf(ps, sizeof(ps), "%u", s->port);
	L->ec = rdma_create_event_channel();
	if (!L->ec || rdma_create_id(L->ec, &L->id, s, RDMA_PS_TCP)) {
		snprintf(err, errlen, "rdma_cm: %s (no RDMA device?)", strerror(errno));
		goto fail;
	}
	if (getaddrinfo(s->host, ps, &hints, &ai)) {
		snprintf(err, errlen, "rdma_collector %s: unknown host", s->host);
		goto fail;
	}
	if (rdma_resolve_addr(L->id, NULL, ai->ai_addr, 5000) ||
	    wait_event(s, L, RDMA_CM_EVENT_ADDR_RESOLVED, err, errlen) ||
	    rdma_resolve_route(L->id, 5000) ||
	    wait_event(s, L, RDMA_CM_EVENT_ROUTE_RESOLVED, err, errlen)) {
		if (!*err)
			snprintf(err, errlen, "resolving %s: %s", s->host, strerror(errno));
		goto fail;
	}
	L->pd = ibv_alloc_pd(L->id->verbs);
	L->cq = ibv_create_cq(L->id->verbs, SEND_DEPTH + META_RECVS, NULL, NULL, 0);
	if (!L->pd || !L->cq) {
		snprintf(err, errlen, "rdma resources: %s", strerror(errno));
		goto fail;
	}
	L->stage_mr = ibv_reg_mr(L->pd, s->stage, STAGE_SIZE, IBV_ACCESS_LOCAL_WRITE);
	L->meta_mr = ibv_reg_mr(L->pd, s->meta, META_RECVS * RECV_SIZE,
				IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = qa.recv_cq = L->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = SEND_DEPTH;
	qa.cap.max_recv_wr = META_RECVS;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = 64;
	qa.sq_sig_all = 0;
	if (!L->stage_mr || !L->meta_mr || rdma_create_qp(L->id, L->pd, &qa)) {
		snprintf(err, errlen, "rdma queue pair: %s", strerror(errno));
		goto fail;
	}
	L->max_inline = qa.cap.max_inline_data;
	if (post_recvs(s, L)) {
		snprintf(err, errlen, "rdma receives: %s", strerror(errno));
		goto fail;
	}
	/* Atomics in flight at once are bounded by initiator depth. */
	cp.initiator_depth = 16;
	if (ibv_query_device(L->id->verbs, &da) == 0 &&
	    da.max_qp_init_rd_atom < cp.initiator_depth)
		cp.initiator_depth = (uint8_t)da.max_qp_init_rd_atom;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(L->id, &cp) ||
	    wait_event(s, L, RDMA_CM_EVENT_ESTABLISHED, err, errlen)) {
		if (!*err)
			snprintf(err, errlen, "connecting: %s", strerror(errno));
		goto fail;
	}
	if (learn(s, L, err, errlen))
		goto fail;
	freeaddrinfo(ai);
	/* From now on events are only polled for (a disconnect). */
	fcntl(L->ec->fd, F_SETFL, fcntl(L->ec->fd, F_GETFL) | O_NONBLOCK);
	return 0;
fail:
	if (ai)
		freeaddrinfo(ai);
	sink_close(s, L);
	return -1;
}

static void conn_destroy(struct conn *s)
{
	if (!s)
		return;
	sink_close(s, &s->l);
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++)
		free(s->cursors[i]);
	for (uint64_t i = s->pend_tail; i < s->pend_head; i++)
		free(s->pend[i % MAX_PENDING].data);
	free(s->pend);
	free(s->stage);
	free(s->meta);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int conn_open(const struct rdma_sink_target *tg, struct conn **out,
		     char *err, size_t errlen)
{
	struct conn *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&s->lock, NULL);
	snprintf(s->host, sizeof(s->host), "%s", tg->host);
	s->port = tg->port;
	s->tg = tg;
	s->marker = tg->share[0].index;
	for (size_t i = 0; i < tg->n; i++)
		s->append[tg->share[i].index] =
			tg->share[i].layout->primitive == DTA_PRIM_APPEND;
	s->step_ms = 10000; /* first connection: emulated RDMA can be slow */
	s->stage = aligned_alloc(4096, STAGE_SIZE);
	s->meta = calloc(META_RECVS, RECV_SIZE);
	s->pend = calloc(MAX_PENDING, sizeof(*s->pend));
	if (!s->stage || !s->meta || !s->pend) {
		snprintf(err, errlen, "out of memory");
		conn_destroy(s);
		return -1;
	}
	if (sink_open(s, &s->l, err, errlen)) {
		conn_destroy(s);
		return -1;
	}
	s->connected_once = true;
	s->step_ms = 2000; /* each step of a reconnection */
	*out = s;
	return 0;
}

/* A signalled zero-length write: its completion retires everything
 * posted before it. Called with the lock held and a free queue entry. */
static int post_marker(struct conn *s)
{
	struct ibv_send_wr w = { 0 }, *bad;

	w.wr_id = s->posted;
	w.opcode = IBV_WR_RDMA_WRITE;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.rdma.remote_addr = s->l.remote[s->marker].addr;
	w.wr.rdma.rkey = s->l.remote[s->marker].rkey;
	s->stage_end[w.wr_id % SEND_DEPTH] = s->stage_head;
	if (s->lat)
		s->post_ns[w.wr_id % SEND_DEPTH] = tool_now_ns();
	if (ibv_post_send(s->l.id->qp, &w, &bad)) {
		s->broken = 1;
		return -EIO;
	}
	s->posted++;
	s->signalled = s->posted;
	s->unsignalled = 0;
	return 0;
}

/* Retire completed requests until @need send queue entries and @bytes of
 * staging are free. Called with the lock held. */
/* True if the connection has ended (the collector disconnected us or
 * went away): an event on the channel, which is non-blocking by now. */
static int disconnected(struct conn *s)
{
	struct pollfd p = { .fd = s->l.ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int gone = 0;

	if (poll(&p, 1, 0) != 1)
		return 0;
	while (rdma_get_cm_event(s->l.ec, &ev) == 0) {
		gone |= ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ||
			ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT;
		rdma_ack_cm_event(ev);
	}
	return gone;
}

static int reap(struct conn *s, unsigned need, uint64_t bytes)
{
	uint64_t since = 0, last_retired = s->retired;

	for (;;) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(s->l.cq, 16, wc);

		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				/* A remote access error (forged offset, revoked
				 * key) or a broken connection: everything after
				 * it is flushed too. */
				s->errors++;
				s->broken = 1;
				continue;
			}
			if (wc[i].opcode == IBV_WC_RECV)
				continue;
			/* Only signalled requests complete successfully
			 * with a completion of their own. */
			if (s->lat)
				metrics_hist_observe(s->lat, tool_now_ns() -
					s->post_ns[wc[i].wr_id % SEND_DEPTH]);
			s->retired = wc[i].wr_id + 1;
			s->stage_tail = s->stage_end[wc[i].wr_id % SEND_DEPTH];
		}
		/* Append frames known to be in the collector's memory. */
		while (!s->broken && s->pend_tail < s->pend_head &&
		       s->pend[s->pend_tail % MAX_PENDING].wr_id < s->retired) {
			free(s->pend[s->pend_tail % MAX_PENDING].data);
			s->pend[s->pend_tail % MAX_PENDING].data = NULL;
			s->pend_tail++;
		}
		if (n < 0)
			s->broken = 1;
		if (s->broken) {
			/* No more completions will come for what was posted;
			 * pending Append frames stay queued for a resend. */
			return -ECONNRESET;
		}
		if (s->posted - s->retired + need <= SEND_DEPTH - 1 &&
		    STAGE_SIZE - (s->stage_head - s->stage_tail) >= bytes)
			return 0;
		/* Waiting for space, but nothing signalled is outstanding:
		 * post a marker whose completion will retire the rest. */
		if (n == 0 && s->retired >= s->signalled && s->posted > s->retired &&
		    post_marker(s))
			return -ECONNRESET; /* the queue pair is in error */
		if (n == 0) {
			/* No progress: has the collector gone? Give up after
			 * step_ms rather than let the workers hang. */
			uint64_t now = tool_now_ns();

			if (s->retired != last_retired || !since) {
				since = now;
				last_retired = s->retired;
			}
			if (disconnected(s) ||
			    now - since > (uint64_t)s->step_ms * 1000000) {
				s->broken = 1;
				return -ECONNRESET;
			}
		}
	}
}

/* Staging bytes for @len, contiguous (the ring wraps by skipping the tail
 * end). Returns the offset; space was checked by reap(). */
static uint64_t stage_alloc(struct conn *s, uint32_t len)
{
	uint64_t off = s->stage_head % STAGE_SIZE;

	if (off + len > STAGE_SIZE) {
		s->stage_head += STAGE_SIZE - off;
		off = 0;
	}
	s->stage_head += len;
	return off;
}

/* Remember an Append frame (posted as @wr_id, or UINT64_MAX if not). */
static int pend_add(struct conn *s, unsigned structure,
		    const struct dta_memop *op, uint64_t wr_id)
{
	struct pending *p;

	if (s->pend_head - s->pend_tail == MAX_PENDING)
		return -ENOBUFS;
	p = &s->pend[s->pend_head % MAX_PENDING];
	p->data = malloc(op->len);
	if (!p->data)
		return -ENOMEM;
	memcpy(p->data, op->data, op->len);
	p->wr_id = wr_id;
	p->structure = structure;
	p->offset = op->offset;
	p->len = op->len;
	s->pend_head++;
	return 0;
}

static int post_ops(struct conn *s, unsigned structure,
		    const struct dta_memop *ops, size_t n, int track);

/*
 * Reconnect a broken connection (at most once per backoff period unless
 * @force) and re-send the pending Append frames. Called without the lock:
 * connecting takes a while (seconds when the collector is away), and the
 * workers meanwhile keep queueing Append frames instead of waiting (a
 * blocked worker would let its UDP socket overflow).
 */
static void reconnect(struct conn *s, bool force)
{
	struct link old, nl = { 0 };
	char err[256];
	uint64_t now = tool_now_ns(), first, last;
	int rc;

	pthread_mutex_lock(&s->lock);
	if (!s->broken || s->reconnecting || (!force && now < s->next_try_ns)) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	s->reconnecting = true;
	/* Nobody uses a broken link: take it out and destroy its queue pair
	 * first, so nothing posted on it is sent after the staging ring is
	 * reused. */
	old = s->l;
	memset(&s->l, 0, sizeof(s->l));
	pthread_mutex_unlock(&s->lock);
	sink_close(s, &old);
	rc = sink_open(s, &nl, err, sizeof(err));

	pthread_mutex_lock(&s->lock);
	s->reconnecting = false;
	if (rc) {
		s->backoff_ns = s->backoff_ns ? s->backoff_ns * 2 : 100000000;
		if (s->backoff_ns > 5000000000ull)
			s->backoff_ns = 5000000000ull;
		s->next_try_ns = tool_now_ns() + s->backoff_ns;
		pthread_mutex_unlock(&s->lock);
		return;
	}
	s->l = nl;
	/* A fresh queue pair: nothing outstanding. */
	s->posted = s->retired = s->signalled = s->unsignalled = 0;
	s->stage_head = s->stage_tail = 0;
	s->broken = 0;
	s->backoff_ns = 0;
	s->reconnects++;
	/* Everything pending is re-posted (and re-tracked) in order. */
	first = s->pend_tail;
	last = s->pend_head;
	s->pend_tail = s->pend_head = last;
	for (uint64_t i = first; i < last; i++) {
		struct pending p = s->pend[i % MAX_PENDING];
		struct dta_memop op = { .kind = DTA_MEMOP_WRITE, .len = p.len,
					.offset = p.offset, .data = p.data };

		s->pend[i % MAX_PENDING].data = NULL;
		if (s->broken || post_ops(s, p.structure, &op, 1, 1)) {
			/* Broken again: keep the rest for the next try. */
			if (pend_add(s, p.structure, &op, UINT64_MAX))
				s->dropped++;
		}
		free(p.data);
	}
	pthread_mutex_unlock(&s->lock);
}

/* Post @n operations as one chain. With @track, Append writes are kept
 * until complete. Called with the lock held. */
static int post_ops(struct conn *s, unsigned structure,
		    const struct dta_memop *ops, size_t n, int track)
{
	struct ibv_send_wr wr[16], *bad;
	struct ibv_sge sge[16];
	uint64_t bytes = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		bytes += (ops[i].kind == DTA_MEMOP_WRITE ? ops[i].len : 8) + 64;
	rc = reap(s, (unsigned)n + 1, 2 * bytes);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		const struct dta_memop *op = &ops[i];
		const struct remote *rm = &s->l.remote[structure];
		struct ibv_send_wr *w = &wr[i];

		if (op->offset > rm->length || op->len > rm->length - op->offset)
			return -DTA_E_RANGE;
		memset(w, 0, sizeof(*w));
		w->wr_id = s->posted + i;
		w->sg_list = &sge[i];
		w->num_sge = 1;
		w->next = i + 1 < n ? &wr[i + 1] : NULL;
		if (op->kind == DTA_MEMOP_FETCH_ADD) {
			uint64_t off = stage_alloc(s, 8);

			w->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			w->wr.atomic.remote_addr = rm->addr + op->offset;
			w->wr.atomic.rkey = rm->rkey;
			w->wr.atomic.compare_add = op->add;
			sge[i].addr = (uintptr_t)(s->stage + off);
			sge[i].length = 8;
			sge[i].lkey = s->l.stage_mr->lkey;
		} else {
			w->opcode = IBV_WR_RDMA_WRITE;
			w->wr.rdma.remote_addr = rm->addr + op->offset;
			w->wr.rdma.rkey = rm->rkey;
			if (op->len <= s->l.max_inline) {
				w->send_flags |= IBV_SEND_INLINE;
				sge[i].addr = (uintptr_t)op->data;
			} else {
				uint64_t off = stage_alloc(s, op->len);

				memcpy(s->stage + off, op->data, op->len);
				sge[i].addr = (uintptr_t)(s->stage + off);
				sge[i].lkey = s->l.stage_mr->lkey;
			}
			sge[i].length = op->len;
			s->bytes += op->len;
			if (track && pend_add(s, structure, op, w->wr_id))
				s->dropped++; /* resend buffer full */
		}
		s->stage_end[w->wr_id % SEND_DEPTH] = s->stage_head;
		if (++s->unsignalled >= SIGNAL_EVERY) {
			w->send_flags |= IBV_SEND_SIGNALED;
			s->unsignalled = 0;
			s->signalled = w->wr_id + 1;
			if (s->lat)
				s->post_ns[w->wr_id % SEND_DEPTH] = tool_now_ns();
		}
	}
	if (ibv_post_send(s->l.id->qp, wr, &bad)) {
		s->broken = 1;
		return -ECONNRESET;
	}
	s->posted += n;
	s->ops += n;
	return 0;
}

static int conn_submit(struct conn *s, unsigned structure,
		       const struct dta_memop *ops, size_t n)
{
	int track = s->append[structure], rc;

	pthread_mutex_lock(&s->lock);
	if (s->broken) {
		/* rdma_sink_retry() reconnects, off the workers' path. */
		rc = -ECONNRESET;
		/* Not lost: queued for when the collector is back. */
		for (size_t i = 0; track && i < n; i++)
			if (ops[i].kind == DTA_MEMOP_WRITE &&
			    pend_add(s, structure, &ops[i], UINT64_MAX) == 0)
				rc = 0;
		goto out;
	}
	rc = post_ops(s, structure, ops, n, track);
	if (rc && rc != -DTA_E_RANGE && track) {
		/* Broken while posting: what was not tracked is queued. */
		for (size_t i = 0; i < n; i++)
			if (ops[i].kind == DTA_MEMOP_WRITE) {
				int known = 0;

				for (uint64_t j = s->pend_tail; j < s->pend_head; j++)
					known |= s->pend[j % MAX_PENDING].offset == ops[i].offset &&
						 s->pend[j % MAX_PENDING].structure == structure;
				if (!known)
					pend_add(s, structure, &ops[i], UINT64_MAX);
			}
		rc = 0;
	}
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* A zero-length RDMA WRITE WITH IMMEDIATE to @structure, after what this
 * connection posted for it. Lost (counted) when the connection is down:
 * the collector's waiters then see the data at their next look. */
static void conn_notify(struct conn *s, unsigned structure)
{
	struct ibv_send_wr w = { 0 }, *bad;
	const struct remote *rm;

	pthread_mutex_lock(&s->lock);
	if (s->broken || !s->l.notify_ok || reap(s, 1, 0)) {
		s->notifies_lost += s->l.notify_ok || s->broken;
		goto out;
	}
	rm = &s->l.remote[structure];
	w.wr_id = s->posted;
	w.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w.imm_data = htonl(rm->cidx);
	w.wr.rdma.remote_addr = rm->addr;
	w.wr.rdma.rkey = rm->rkey;
	s->stage_end[w.wr_id % SEND_DEPTH] = s->stage_head;
	if (++s->unsignalled >= SIGNAL_EVERY) {
		w.send_flags |= IBV_SEND_SIGNALED;
		s->unsignalled = 0;
		s->signalled = w.wr_id + 1;
		if (s->lat)
			s->post_ns[w.wr_id % SEND_DEPTH] = tool_now_ns();
	}
	if (ibv_post_send(s->l.id->qp, &w, &bad)) {
		s->broken = 1;
		s->notifies_lost++;
		goto out;
	}
	s->posted++;
	s->ops++;
	s->notifies++;
out:
	pthread_mutex_unlock(&s->lock);
}

/* Make everything posted so far complete: post a signalled marker and
 * wait for it (and so for all before it). */
static int conn_flush(struct conn *s)
{
	int rc = 0;

	/* Last chance for queued Append frames: try once more now. */
	reconnect(s, true);
	pthread_mutex_lock(&s->lock);
	if (!s->broken && s->posted > s->retired) {
		rc = reap(s, 1, 0);
		if (!rc && s->posted > s->retired)
			rc = post_marker(s);
		while (!rc && s->retired < s->posted)
			rc = reap(s, SEND_DEPTH - 1, 0);
	}
	if (s->broken)
		rc = -ECONNRESET;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* ---- the sink: every collector's queue pairs ---- */

#define MAX_CONNS 64

struct rdma_sink {
	size_t nconn;
	struct conn *conn[MAX_CONNS];
	struct { uint16_t first, n; } route[DTA_CONFIG_MAX_STRUCTURES];
	struct rdma_sink_target *tg; /* copies: connections point here */
	size_t ntg;
};

/* Each thread sticks to one queue pair of a collector: no lock contention
 * between workers, and one worker's operations stay in order. */
static atomic_uint next_slot;
static _Thread_local unsigned my_slot;

int rdma_sink_connect(const struct rdma_sink_target *tg, size_t ntg,
		      unsigned qps, struct rdma_sink **out, char *err,
		      size_t errlen)
{
	struct rdma_sink *s;

	if (!tg || !ntg || !qps || ntg * qps > MAX_CONNS) {
		snprintf(err, errlen, "%zu collectors x %u queue pairs: at most "
			 "%d connections", ntg, qps, MAX_CONNS);
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->tg = calloc(ntg, sizeof(*tg)))) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(s->tg, tg, ntg * sizeof(*tg));
	s->ntg = ntg;
	for (size_t i = 0; i < ntg; i++) {
		for (size_t j = 0; j < tg[i].n; j++) {
			unsigned x = tg[i].share[j].index;

			if (x >= DTA_CONFIG_MAX_STRUCTURES || s->route[x].n) {
				snprintf(err, errlen, "bad share index %u", x);
				goto fail;
			}
			s->route[x].first = (uint16_t)s->nconn;
			s->route[x].n = (uint16_t)qps;
		}
		for (unsigned q = 0; q < qps; q++) {
			char e[1024];

			if (conn_open(&s->tg[i], &s->conn[s->nconn], e, sizeof(e))) {
				snprintf(err, errlen, "%s:%u: %s", tg[i].host,
					 tg[i].port, e);
				goto fail;
			}
			s->nconn++;
		}
	}
	*out = s;
	return 0;
fail:
	rdma_sink_destroy(s);
	return -1;
}

int rdma_sink_submit(void *ctx, unsigned structure, const struct dta_memop *ops,
		     size_t n)
{
	struct rdma_sink *s = ctx;
	unsigned slot = my_slot;

	if (n > 16 || structure >= DTA_CONFIG_MAX_STRUCTURES ||
	    !s->route[structure].n)
		return -EINVAL;
	if (!slot)
		slot = my_slot = atomic_fetch_add(&next_slot, 1) + 1;
	return conn_submit(s->conn[s->route[structure].first +
				   slot % s->route[structure].n],
			   structure, ops, n);
}

void rdma_sink_notify(void *ctx, unsigned structure)
{
	struct rdma_sink *s = ctx;
	unsigned slot = my_slot;

	if (structure >= DTA_CONFIG_MAX_STRUCTURES || !s->route[structure].n)
		return;
	if (!slot)
		slot = my_slot = atomic_fetch_add(&next_slot, 1) + 1;
	/* The queue pair this thread's writes to @structure went on. */
	conn_notify(s->conn[s->route[structure].first +
			    slot % s->route[structure].n], structure);
}

int rdma_sink_flush(void *ctx)
{
	struct rdma_sink *s = ctx;
	int rc = 0;

	for (size_t i = 0; i < s->nconn; i++) {
		int r = conn_flush(s->conn[i]);

		if (!rc)
			rc = r;
	}
	return rc;
}

void rdma_sink_retry(struct rdma_sink *s)
{
	for (size_t i = 0; i < s->nconn; i++) {
		struct conn *c = s->conn[i];

		reconnect(c, false);
		/* Idle: retire what completed, and make the unsignalled tail
		 * complete, so queued Append frames are known written. */
		pthread_mutex_lock(&c->lock);
		if (!c->broken && c->posted > c->retired &&
		    reap(c, 0, 0) == 0 && c->retired >= c->signalled &&
		    c->posted > c->retired)
			post_marker(c);
		pthread_mutex_unlock(&c->lock);
	}
}

void rdma_sink_set_latency(struct rdma_sink *s, struct metrics_hist *h)
{
	for (size_t i = 0; i < s->nconn; i++) {
		pthread_mutex_lock(&s->conn[i]->lock);
		s->conn[i]->lat = h;
		pthread_mutex_unlock(&s->conn[i]->lock);
	}
}

void rdma_sink_stats(struct rdma_sink *s, struct rdma_sink_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < s->nconn; i++) {
		struct conn *c = s->conn[i];

		pthread_mutex_lock(&c->lock);
		st->ops += c->ops;
		st->bytes += c->bytes;
		st->errors += c->errors;
		st->reconnects += c->reconnects;
		st->dropped += c->dropped;
		st->queued += c->pend_head - c->pend_tail;
		st->notifies += c->notifies;
		st->notifies_lost += c->notifies_lost;
		pthread_mutex_unlock(&c->lock);
	}
	st->connections = s->nconn;
}

int rdma_sink_ap_cursor(const struct rdma_sink *s, unsigned structure,
			uint32_t list, struct dta_ap_cursor *out)
{
	const struct conn *c;

	if (structure >= DTA_CONFIG_MAX_STRUCTURES || !s->route[structure].n)
		return 0;
	c = s->conn[s->route[structure].first];
	if (!c->cursors[structure])
		return 0;
	*out = c->cursors[structure][list];
	return out->next_seq != 0;
}

void rdma_sink_destroy(struct rdma_sink *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nconn; i++)
		conn_destroy(s->conn[i]);
	free(s->tg);
	free(s);
}
