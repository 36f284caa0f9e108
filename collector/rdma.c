/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's RDMA side: register every structure's memory with the
 * least access it needs, accept translators through rdma_cm (only those on
 * the allow-list), and send each one the structure descriptions
 * (struct dta_meta) it needs to write. After that the collector's CPU is
 * not involved: the translator's WRITEs and FETCH_ADDs land directly;
 * only notifications (RDMA WRITE WITH IMMEDIATE, for reports with the
 * immediate flag) come to it, as receive completions on a completion
 * channel: it advances the structure's notification sequence.
 * Protocol: docs/rdma.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rdma.h"
#include "tools.h"

#define MAX_ALLOW 32
#define MAX_CONNS 64
#define NOTIFY_RECVS 64            /* receives posted per translator */
#define RECV_TAG (1ull << 63)      /* wr_id of a receive */
#define SW_TAG (1ull << 62)        /* ... on a switch-mode queue pair; the
				    * structure index in bits 16-31 */

struct conn {
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	uint8_t *cur;   /* encoded Append cursor messages for this translator */
	struct ibv_mr *cur_mr;
	char peer[INET6_ADDRSTRLEN];
};

#define CUR_MSG 4096 /* room per cursor message */

struct coll_rdma {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen;
	struct ibv_pd *pd;
	struct ibv_mr *mr[DTA_CONFIG_MAX_STRUCTURES];
	struct ibv_mr *meta_mr;
	uint8_t *meta;  /* count encoded descriptions */
	size_t n;
	size_t ncur;    /* cursor messages a translator gets */
	struct coll_rdma_structure s[DTA_CONFIG_MAX_STRUCTURES];
	unsigned nallow;
	struct tool_net allow[MAX_ALLOW];
	struct conn conns[MAX_CONNS];
	int max_rd_atom;
	/* switch mode */
	struct ibv_cq *sw_cq;
	struct ibv_qp *sw_qp[DTA_CONFIG_MAX_STRUCTURES];
	uint32_t sw_peer_ip, sw_ip, sw_qpn, sw_psn;
	uint8_t sw_mac[6];
	char *sw_json; /* the published description */
	void (*log)(int prio, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
	uint64_t accepted, refused, disconnected;
	/* Notifications: every connection's CQ reports to @cc; @epfd holds
	 * it and @ec's descriptor (coll_rdma_fd()). */
	struct ibv_comp_channel *cc;
	int epfd;
	uint64_t notified, notify_bad;
};

static int parse_allow(struct coll_rdma *r, const char *list)
{
	int n = tool_parse_allow(list, r->allow, MAX_ALLOW);

	if (n < 0)
		return n;
	r->nallow = (unsigned)n;
	return 0;
}

static int allowed(const struct coll_rdma *r, const struct sockaddr *sa)
{
	uint32_t a;

	if (sa->sa_family != AF_INET)
		return 0;
	a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
	return tool_net_match(r->allow, r->nallow, a);
}

static unsigned access_for(const struct dta_layout *l)
{
	/* Writers only ever write (and add): no remote read. */
	unsigned a = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	if (l->primitive == DTA_PRIM_KEY_INCREMENT)
		a = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	return a;
}

/* The GID table entry of @ip (RoCEv2, IPv4-mapped) on port 1. */
static int find_gid(struct ibv_context *ctx, uint32_t ip, struct ibv_gid_entry *e)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, 1, &pa))
		return -errno;
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		const uint8_t *g;

		if (ibv_query_gid_ex(ctx, 1, (uint32_t)i, e, 0) ||
		    e->gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		g = e->gid.raw;
		if (g[10] == 0xFF && g[11] == 0xFF &&
		    ((uint32_t)g[12] << 24 | (uint32_t)g[13] << 16 |
		     (uint32_t)g[14] << 8 | g[15]) == ip)
			return 0;
	}
	return -ENOENT;
}

static int qp_to_rts(struct coll_rdma *r, struct ibv_qp *qp, uint32_t peer_qpn,
		     const struct ibv_gid_entry *ge)
{
	struct ibv_qp_attr a = { 0 };

	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = r->sw_psn;
	a.max_dest_rd_atomic = (uint8_t)(r->max_rd_atom > 0 ? r->max_rd_atom : 1);
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = (uint8_t)ge->gid_index;
	memset(a.ah_attr.grh.dgid.raw + 10, 0xFF, 2);
	a.ah_attr.grh.dgid.raw[12] = (uint8_t)(r->sw_peer_ip >> 24);
	a.ah_attr.grh.dgid.raw[13] = (uint8_t)(r->sw_peer_ip >> 16);
	a.ah_attr.grh.dgid.raw[14] = (uint8_t)(r->sw_peer_ip >> 8);
	a.ah_attr.grh.dgid.raw[15] = (uint8_t)r->sw_peer_ip;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		return -errno;
	return 0;
}

static void ip_str(uint32_t ip, char *out)
{
	snprintf(out, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255,
		 (ip >> 8) & 255, ip & 255);
}

static int post_notify_recv(struct ibv_qp *qp, uint64_t k);

/* Queue pairs for a switch translator, and the description it needs. */
static int start_switch(struct coll_rdma *r, const struct coll_rdma_opts *o,
			uint32_t bind_ip)
{
	struct ibv_context *ctx = r->listen->verbs;
	struct ibv_gid_entry ge;
	struct in_addr a;
	struct ifreq ifr = { 0 };
	char *buf = NULL, ip1[16], ip2[16];
	size_t len = 0;
	FILE *f;
	int fd, err;

	if (inet_pton(AF_INET, o->switch_peer, &a) != 1) {
		r->log(LOG_ERR, "switch_peer %s: not an IPv4 address", o->switch_peer);
		return -EINVAL;
	}
	r->sw_peer_ip = ntohl(a.s_addr);
	r->sw_ip = bind_ip;
	r->sw_qpn = o->switch_qpn;
	r->sw_psn = o->switch_psn & 0xFFFFFF;
	err = find_gid(ctx, bind_ip, &ge);
	if (err) {
		r->log(LOG_ERR, "switch mode: no RoCEv2 GID for the bound "
		       "address");
		return err;
	}
	/* The collector's MAC: what the switch puts in its frames. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || !if_indextoname(ge.ndev_ifindex, ifr.ifr_name) ||
	    ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		r->log(LOG_ERR, "switch mode: cannot read the interface's MAC: "
		       "%s", strerror(-err));
		return err;
	}
	close(fd);
	memcpy(r->sw_mac, ifr.ifr_hwaddr.sa_data, 6);
	/* Receives for notifications (writes with immediate), reported on
	 * the completion channel as the translators' are. */
	r->sw_cq = ibv_create_cq(ctx, 16 + (int)r->n * NOTIFY_RECVS, NULL,
				 r->cc, 0);
	if (!r->sw_cq || ibv_req_notify_cq(r->sw_cq, 0))
		return -errno;
	for (size_t i = 0; i < r->n; i++) {
		struct ibv_qp_init_attr qa = { .send_cq = r->sw_cq,
					       .recv_cq = r->sw_cq,
					       .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = 1,
							.max_recv_wr = NOTIFY_RECVS,
							.max_send_sge = 1,
							.max_recv_sge = 1 } };

		r->sw_qp[i] = ibv_create_qp(r->pd, &qa);
		if (!r->sw_qp[i])
			return -errno;
		err = qp_to_rts(r, r->sw_qp[i], (r->sw_qpn + (uint32_t)i) & 0xFFFFFF,
				&ge);
		if (err) {
			r->log(LOG_ERR, "switch mode: queue pair for %s: %s "
			       "(is %s reachable on %s?)",
			       r->s[i].name, strerror(-err),
			       o->switch_peer, ifr.ifr_name);
			return err;
		}
		for (uint64_t k = 0; k < NOTIFY_RECVS; k++)
			if (post_notify_recv(r->sw_qp[i], SW_TAG | (uint64_t)i << 16 | k))
				return -errno;
	}
	/* The description, once: it does not change while we run. */
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	ip_str(r->sw_ip, ip1);
	ip_str(r->sw_peer_ip, ip2);
	fprintf(f, "{\"switch\":{\"version\":1,\"collector_ip\":\"%s\","
		"\"collector_mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\","
		"\"interface\":\"%s\",\"gid_index\":%u,\"udp_port\":4791,"
		"\"mtu\":1024,\"peer_ip\":\"%s\",\"notify\":1,\"structures\":[",
		ip1, r->sw_mac[0], r->sw_mac[1], r->sw_mac[2], r->sw_mac[3],
		r->sw_mac[4], r->sw_mac[5], ifr.ifr_name, ge.gid_index, ip2);
	for (size_t i = 0; i < r->n; i++) {
		uint8_t lw[DTA_LAYOUT_WIRE_SIZE];

		dta_layout_encode(r->s[i].layout, lw, sizeof(lw));
		fprintf(f, "%s{\"name\":\"%s\",\"index\":%zu,\"qpn\":%u,\"peer_qpn\":%u,"
			"\"psn\":%u,\"rkey\":%u,\"addr\":%" PRIu64
			",\"length\":%" PRIu64 ",\"list_base\":%u,"
			"\"primitive\":\"%s\",\"layout\":\"", i ? "," : "",
			r->s[i].name, i, r->sw_qp[i]->qp_num,
			(r->sw_qpn + (uint32_t)i) & 0xFFFFFF, r->sw_psn,
			r->mr[i]->rkey, (uint64_t)(uintptr_t)r->s[i].area,
			r->s[i].layout->data_size, r->s[i].list_base,
			dta_primitive_name(r->s[i].layout->primitive));
		for (size_t k = 0; k < sizeof(lw); k++)
			fprintf(f, "%02x", lw[k]);
		fputc('"', f);
		tool_switch_layout_json(f, r->s[i].layout);
		fputc('}', f);
	}
	fputs("]}}", f);
	if (fclose(f))
		return -ENOMEM;
	r->sw_json = buf;
	if (o->switch_meta) {
		/* Its rkeys and addresses let the reader write into our
		 * memory: owner only (docs/security.md). */
		int werr;

		buf[len] = '\n'; /* the buffer's NUL, for the file's newline */
		werr = tool_write_private(o->switch_meta, buf, len + 1);
		buf[len] = 0;
		if (werr) {
			r->log(LOG_ERR, "switch_meta %s: %s", o->switch_meta,
			       strerror(-werr));
			return werr;
		}
	}
	r->log(LOG_INFO, "switch mode: %zu queue pairs towards %s (QPN %u..), "
	       "description in %s", r->n, o->switch_peer, r->sw_qpn,
	       o->switch_meta ? o->switch_meta : "the query socket only");
	return 0;
}

int coll_rdma_start(const struct coll_rdma_opts *o, struct coll_rdma **out)
{
	struct coll_rdma *r = calloc(1, sizeof(*r));
	struct addrinfo hints = { .ai_family = AF_INET, .ai_flags = AI_NUMERICHOST };
	struct addrinfo *ai = NULL;
	struct ibv_device_attr da;
	char port[8];
	int err;

	if (!r)
		return -ENOMEM;
	r->log = o->log;
	r->n = o->n;
	memcpy(r->s, o->s, sizeof(r->s));
	for (size_t i = 0; i < o->n; i++)
		if (o->s[i].layout->primitive == DTA_PRIM_APPEND)
			r->ncur += (o->s[i].layout->g.ap.lists + DTA_CURSORS_MAX - 1) /
				   DTA_CURSORS_MAX;
	if (r->n + r->ncur > 4000) {
		r->log(LOG_ERR, "rdma: too many Append lists to hand over "
		       "cursors (%zu messages; at most about 2 million lists)",
		       r->ncur);
		err = -E2BIG;
		goto fail;
	}
	err = parse_allow(r, o->allow);
	if (err) {
		r->log(LOG_ERR, "rdma_allow: expected addresses or "
		       "a.b.c.d/len, comma-separated");
		goto fail;
	}
	r->ec = rdma_create_event_channel();
	if (!r->ec) {
		err = -errno;
		r->log(LOG_ERR, "rdma: no event channel: %s (no RDMA device or "
		       "rdma_cm?)", strerror(errno));
		goto fail;
	}
	fcntl(r->ec->fd, F_SETFL, fcntl(r->ec->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_create_id(r->ec, &r->listen, r, RDMA_PS_TCP)) {
		err = -errno;
		goto fail_errno;
	}
	snprintf(port, sizeof(port), "%u", o->port);
	if (getaddrinfo(o->bind, port, &hints, &ai)) {
		err = -EINVAL;
		r->log(LOG_ERR, "rdma_bind %s: not an IPv4 address", o->bind);
		goto fail;
	}
	if (rdma_bind_addr(r->listen, ai->ai_addr)) {
		err = -errno;
		r->log(LOG_ERR, "rdma: cannot bind %s:%u: %s (is it an RDMA "
		       "device's address?)", o->bind, o->port, strerror(errno));
		goto fail;
	}
	if (!r->listen->verbs) {
		err = -ENODEV;
		r->log(LOG_ERR, "rdma: %s is not the address of an RDMA device", o->bind);
		goto fail;
	}
	if (ibv_query_device(r->listen->verbs, &da) == 0)
		r->max_rd_atom = da.max_qp_rd_atom;
	r->cc = ibv_create_comp_channel(r->listen->verbs);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!r->cc || r->epfd < 0) {
		err = -errno;
		goto fail_errno;
	}
	fcntl(r->cc->fd, F_SETFL, fcntl(r->cc->fd, F_GETFL) | O_NONBLOCK);
	{
		struct epoll_event e1 = { .events = EPOLLIN, .data.fd = r->ec->fd };
		struct epoll_event e2 = { .events = EPOLLIN, .data.fd = r->cc->fd };

		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->ec->fd, &e1) ||
		    epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->cc->fd, &e2)) {
			err = -errno;
			goto fail_errno;
		}
	}
	r->pd = ibv_alloc_pd(r->listen->verbs);
	if (!r->pd) {
		err = -errno;
		goto fail_errno;
	}
	r->meta = calloc(o->n, DTA_META_SIZE);
	if (!r->meta) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < o->n; i++) {
		struct dta_meta m;

		r->mr[i] = ibv_reg_mr(r->pd, o->s[i].area, o->s[i].layout->data_size,
				      (int)access_for(o->s[i].layout));
		if (!r->mr[i]) {
			err = -errno;
			r->log(LOG_ERR, "rdma: cannot register %s (%" PRIu64 " "
			       "bytes): %s",
			       o->s[i].name, o->s[i].layout->data_size,
			       strerror(errno));
			goto fail;
		}
		memset(&m, 0, sizeof(m));
		m.index = (uint16_t)i;
		m.count = (uint16_t)o->n;
		snprintf(m.name, sizeof(m.name), "%s", o->s[i].name);
		m.addr = (uint64_t)(uintptr_t)o->s[i].area;
		m.rkey = r->mr[i]->rkey;
		m.length = o->s[i].layout->data_size;
		m.list_base = o->s[i].list_base;
		m.layout = *o->s[i].layout;
		err = dta_meta_encode(&m, r->meta + i * DTA_META_SIZE, DTA_META_SIZE);
		if (err < 0)
			goto fail;
	}
	r->meta_mr = ibv_reg_mr(r->pd, r->meta, o->n * DTA_META_SIZE, 0);
	if (!r->meta_mr) {
		err = -errno;
		goto fail_errno;
	}
	if (rdma_listen(r->listen, 16)) {
		err = -errno;
		goto fail_errno;
	}
	if (o->switch_peer) {
		err = start_switch(r, o, ntohl(((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr));
		if (err)
			goto fail;
	}
	freeaddrinfo(ai);
	r->log(LOG_INFO, "rdma: %zu structures registered on %s, accepting "
	       "translators on %s:%u from %s",
	       o->n, ibv_get_device_name(r->listen->verbs->device),
	       o->bind, o->port, r->nallow ? o->allow : "nowhere (rdma_allow empty)");
	*out = r;
	return 0;
fail_errno:
	r->log(LOG_ERR, "rdma: %s", strerror(-err));
fail:
	if (ai)
		freeaddrinfo(ai);
	coll_rdma_stop(r);
	return err;
}

int coll_rdma_fd(const struct coll_rdma *r)
{
	return r->epfd;
}

/* A receive for one write with immediate (no data lands in it). */
static int post_notify_recv(struct ibv_qp *qp, uint64_t k)
{
	struct ibv_recv_wr wr = { .wr_id = RECV_TAG | k, .num_sge = 0 }, *bad;

	return ibv_post_recv(qp, &wr, &bad) ? -1 : 0;
}

static struct conn *conn_of(struct coll_rdma *r, struct rdma_cm_id *id)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (r->conns[i].id == id)
			return &r->conns[i];
	return NULL;
}

static void conn_drop(struct conn *c)
{
	if (c->cur_mr)
		ibv_dereg_mr(c->cur_mr);
	free(c->cur);
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->id)
		rdma_destroy_id(c->id);
	memset(c, 0, sizeof(*c));
}

static void on_request(struct coll_rdma *r, struct rdma_cm_id *id)
{
	struct rdma_conn_param cp = { 0 };
	struct ibv_qp_init_attr qa = { 0 };
	struct conn *c = NULL;
	char peer[INET6_ADDRSTRLEN] = "?";
	struct sockaddr *sa = rdma_get_peer_addr(id);

	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, peer,
			  sizeof(peer));
	if (!allowed(r, sa)) {
		r->log(LOG_WARNING, "rdma: refused translator %s: not in "
		       "rdma_allow", peer);
		r->refused++;
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	for (int i = 0; i < MAX_CONNS && !c; i++)
		if (!r->conns[i].id)
			c = &r->conns[i];
	if (!c || id->verbs != r->listen->verbs) {
		r->log(LOG_WARNING, "rdma: refused translator %s: %s", peer,
		       c ? "arrived on another device" : "too many translators");
		r->refused++;
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	c->id = id;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	c->cq = ibv_create_cq(id->verbs, (int)(r->n + r->ncur) + 4 + NOTIFY_RECVS,
			      NULL, r->cc, 0);
	qa.send_cq = qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = (uint32_t)(r->n + r->ncur) + 2;
	qa.cap.max_recv_wr = NOTIFY_RECVS;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (!c->cq || ibv_req_notify_cq(c->cq, 0) ||
	    rdma_create_qp(id, r->pd, &qa)) {
		r->log(LOG_WARNING, "rdma: translator %s: cannot create a "
		       "queue pair: %s", peer, strerror(errno));
		rdma_reject(id, NULL, 0);
		conn_drop(c);
		return;
	}
	/* Before accepting: a write with immediate that finds no receive
	 * would stall the translator's queue pair (RNR retries). */
	for (uint64_t k = 0; k < NOTIFY_RECVS; k++)
		if (post_notify_recv(id->qp, k)) {
			r->log(LOG_WARNING, "rdma: translator %s: cannot post "
			       "receives: %s", peer, strerror(errno));
			rdma_reject(id, NULL, 0);
			conn_drop(c);
			return;
		}
	/* Responder resources bound how many atomics (FETCH_ADD) a translator
	 * may have in flight towards us: as many as the device allows. */
	cp.responder_resources = (uint8_t)(r->max_rd_atom > 255 ? 255 :
					   r->max_rd_atom > 0 ? r->max_rd_atom : 1);
	cp.initiator_depth = 0;
	cp.rnr_retry_count = 7;
	{
		static const uint8_t notify_ok[4] = {
			DTA_META_ACCEPT_NOTIFY >> 24, DTA_META_ACCEPT_NOTIFY >> 16 & 0xff,
			DTA_META_ACCEPT_NOTIFY >> 8 & 0xff, DTA_META_ACCEPT_NOTIFY & 0xff };

		cp.private_data = notify_ok;
		cp.private_data_len = sizeof(notify_ok);
	}
	if (rdma_accept(id, &cp)) {
		r->log(LOG_WARNING, "rdma: translator %s: accept failed: %s", peer, strerror(errno));
		conn_drop(c);
	}
}

/* Connection established: send every description, then nothing more. */
static void on_established(struct coll_rdma *r, struct rdma_cm_id *id)
{
	struct conn *c = conn_of(r, id);

	if (!c)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(r->meta + i * DTA_META_SIZE),
			.length = DTA_META_SIZE,
			.lkey = r->meta_mr->lkey,
		};
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		if (ibv_post_send(id->qp, &wr, &bad)) {
			r->log(LOG_WARNING, "rdma: translator %s: cannot send "
			       "descriptions: %s", c->peer, strerror(errno));
			rdma_disconnect(id);
			return;
		}
	}
	/* Then where each Append list's writer should continue: the newest
	 * batch stored now (single writer per list assumed). */
	if (r->ncur) {
		size_t k = 0;

		c->cur = calloc(r->ncur, CUR_MSG);
		c->cur_mr = c->cur ? ibv_reg_mr(r->pd, c->cur, r->ncur * CUR_MSG, 0)
				   : NULL;
		if (!c->cur_mr) {
			r->log(LOG_WARNING, "rdma: translator %s: no memory "
			       "for cursors", c->peer);
			rdma_disconnect(id);
			return;
		}
		for (size_t i = 0; i < r->n; i++) {
			const struct dta_layout *l = r->s[i].layout;

			if (l->primitive != DTA_PRIM_APPEND)
				continue;
			for (uint32_t first = 0; first < l->g.ap.lists;
			     first += DTA_CURSORS_MAX, k++) {
				static struct dta_meta_cursors mc;
				uint32_t left = l->g.ap.lists - first;
				struct ibv_sge sge;
				struct ibv_send_wr wr = { .wr_id = r->n + k,
							  .sg_list = &sge, .num_sge = 1,
							  .opcode = IBV_WR_SEND,
							  .send_flags = IBV_SEND_SIGNALED }, *bad;
				int len;

				mc.structure = (uint16_t)i;
				mc.first_list = first;
				mc.n = (uint16_t)(left < DTA_CURSORS_MAX ? left : DTA_CURSORS_MAX);
				for (unsigned j = 0; j < mc.n; j++) {
					struct dta_ap_cursor cur;

					dta_ap_cursor_recover(l, r->s[i].area, first + j, &cur);
					mc.cur[j].next_seq = cur.next_seq;
					mc.cur[j].next_entry = cur.next_entry;
				}
				len = dta_meta_cursors_encode(&mc, c->cur + k * CUR_MSG,
							      CUR_MSG);
				sge.addr = (uintptr_t)(c->cur + k * CUR_MSG);
				sge.length = (uint32_t)len;
				sge.lkey = c->cur_mr->lkey;
				if (len < 0 || ibv_post_send(id->qp, &wr, &bad)) {
					r->log(LOG_WARNING, "rdma: translator "
					       "%s: cannot send cursors",
					       c->peer);
					rdma_disconnect(id);
					return;
				}
			}
		}
	}
	r->accepted++;
	r->log(LOG_INFO, "rdma: translator %s connected; %zu structure "
	       "descriptions and %zu cursor messages sent",
	       c->peer, r->n, r->ncur);
}

/* A receive completed on @qp (of translator @peer): a notification for
 * a structure, or the flush of a connection going away. A switch-mode
 * queue pair serves one structure, named by its receives' wr_id. */
static void on_recv(struct coll_rdma *r, struct ibv_qp *qp, const char *peer,
		    const struct ibv_wc *wc)
{
	uint32_t s;

	if (wc->status != IBV_WC_SUCCESS)
		return; /* flushed: the connection is ending */
	s = wc->wr_id & SW_TAG ? (uint32_t)(wc->wr_id >> 16 & 0xffff)
			       : ntohl(wc->imm_data);
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM && s < r->n &&
	    r->s[s].region) {
		dta_region_notify(r->s[s].region);
		r->notified++;
	} else {
		r->notify_bad++; /* a SEND, or an index we do not hold */
	}
	if (post_notify_recv(qp, wc->wr_id & ~RECV_TAG))
		r->log(LOG_WARNING, "rdma: translator %s: cannot repost a "
		       "receive: %s", peer, strerror(errno));
}

void coll_rdma_handle(struct coll_rdma *r)
{
	struct rdma_cm_event *ev;
	struct ibv_cq *evcq;
	void *evctx;

	/* Completion events: acknowledged and re-armed before the queues
	 * are polled below, so a completion after the poll raises a new
	 * event. */
	while (r->cc && ibv_get_cq_event(r->cc, &evcq, &evctx) == 0) {
		ibv_ack_cq_events(evcq, 1);
		ibv_req_notify_cq(evcq, 0);
	}

	while (rdma_get_cm_event(r->ec, &ev) == 0) {
		struct rdma_cm_id *id = ev->id;
		enum rdma_cm_event_type type = ev->event;
		struct conn *c;

		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			on_request(r, id);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			on_established(r, id);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			c = conn_of(r, id);
			if (c) {
				r->log(LOG_INFO, "rdma: translator %s "
				       "disconnected", c->peer);
				r->disconnected++;
				rdma_disconnect(id);
				conn_drop(c);
			}
			break;
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			c = conn_of(r, id);
			if (c)
				conn_drop(c);
			break;
		default:
			break;
		}
	}
	/* Reap the descriptions' send completions; notifications. */
	for (int i = 0; i < MAX_CONNS; i++) {
		struct ibv_wc wc[8];
		int n;

		if (!r->conns[i].cq)
			continue;
		while ((n = ibv_poll_cq(r->conns[i].cq, 8, wc)) > 0)
			for (int k = 0; k < n; k++)
				if (wc[k].wr_id & RECV_TAG)
					on_recv(r, r->conns[i].id->qp,
						r->conns[i].peer, &wc[k]);
	}
	if (r->sw_cq) {
		struct ibv_wc wc[8];
		int n;

		while ((n = ibv_poll_cq(r->sw_cq, 8, wc)) > 0)
			for (int k = 0; k < n; k++)
				if (wc[k].wr_id & RECV_TAG &&
				    (wc[k].wr_id >> 16 & 0xffff) < r->n)
					on_recv(r, r->sw_qp[wc[k].wr_id >> 16 & 0xffff],
						"switch", &wc[k]);
	}
}

void coll_rdma_stats_json(const struct coll_rdma *r, FILE *out)
{
	unsigned live = 0;

	for (int i = 0; i < MAX_CONNS; i++)
		live += r->conns[i].id != NULL;
	fprintf(out, "\"rdma\":{\"translators\":%u,\"accepted\":%" PRIu64
		",\"refused\":%" PRIu64 ",\"disconnected\":%" PRIu64
		",\"notifications\":%" PRIu64 ",\"notifications_bad\":%" PRIu64 "}",
		live, r->accepted, r->refused, r->disconnected, r->notified,
		r->notify_bad);
}

void coll_rdma_switch_json(const struct coll_rdma *r, FILE *out)
{
	if (r && r->sw_json)
		fputs(r->sw_json, out);
	else
		fputs("{\"error\":\"switch mode is off (set switch_peer)\"}", out);
}

void coll_rdma_stop(struct coll_rdma *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++)
		if (r->sw_qp[i])
			ibv_destroy_qp(r->sw_qp[i]);
	if (r->sw_cq)
		ibv_destroy_cq(r->sw_cq);
	free(r->sw_json);
	for (int i = 0; i < MAX_CONNS; i++)
		if (r->conns[i].id) {
			rdma_disconnect(r->conns[i].id);
			conn_drop(&r->conns[i]);
		}
	if (r->meta_mr)
		ibv_dereg_mr(r->meta_mr);
	for (size_t i = 0; i < r->n; i++)
		if (r->mr[i])
			ibv_dereg_mr(r->mr[i]);
	if (r->cc)
		ibv_destroy_comp_channel(r->cc); /* after every CQ on it */
	if (r->epfd > 0)
		close(r->epfd);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->listen)
		rdma_destroy_id(r->listen);
	if (r->ec)
		rdma_destroy_event_channel(r->ec);
	free(r->meta);
	free(r);
}
