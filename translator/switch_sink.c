/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch sink: raw RoCEv2 frames on an interface, the way a switch
 * translator writes into a collector's switch-mode queue pairs
 * (translator/switch_sink.h, docs/roce.md).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "switch_ring.h"
#include "switch_sink.h"

/* How long a submit waits for room when SWITCH_RING_K frames of its queue
 * pair are unacknowledged, before it refuses the operation. */
#define WINDOW_WAIT_NS 500000000ull /* 500 ms */
/* How long flush waits for the last acknowledgements: longer than the
 * whole retransmission schedule (switch_ring.h), so every frame ends
 * acknowledged or counted lost. */
#define FLUSH_WAIT_NS 6000000000ull /* 6 s */

struct sw_qp {
	pthread_mutex_t lock;
	struct dta_roce_qp qp;
	struct dta_roce_target t;
	struct switch_ring *ring; /* frames sent, not yet acknowledged */
	uint32_t my_qpn;  /* the QPN the collector believes we are */
	bool used, probing;
};

struct switch_sink {
	int tx, rx; /* AF_PACKET sockets: send only, receive IPv4 */
	struct sockaddr_ll to;
	struct sw_qp q[DTA_CONFIG_MAX_STRUCTURES]; /* by sink index */
	pthread_mutex_t stat_lock;
	struct dta_roce_stats st;
	uint64_t frames, bytes, send_errors, build_errors, bad_replies;
	uint64_t unsynced; /* queue pairs whose probe drew no answer */
	uint64_t retransmits; /* frames sent again (NAK or timeout) */
	uint64_t timeouts;    /* resends for lack of any acknowledgement */
	uint64_t lost;        /* operations sent but given up */
	uint64_t window_full; /* operations refused: no room to keep them */
};

/* Number @key of object @o, which must be there (a non-negative
 * integer). */
static int jnum(const json_t *o, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* String @key of object @o into @out; -1 when absent, not a string or
 * longer than @cap - 1 bytes. */
static int jstr(const json_t *o, const char *key, char *out, size_t cap)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= cap)
		return -1;
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* The entry of the description's "structures" named @name, or NULL. */
static json_t *desc_structure(const json_t *sw, const char *name)
{
	json_t *all = json_object_get(sw, "structures"), *e;
	size_t i;

	json_array_foreach(all, i, e) {
		json_t *nm = json_object_get(e, "name");

		if (json_is_string(nm) && !strcmp(json_string_value(nm), name))
			return e;
	}
	return NULL;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned m[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)m[i];
	return 0;
}

static int open_socket(int ifindex, uint16_t proto)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(proto),
				   .sll_ifindex = ifindex };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(proto));

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Where is each responder's PSN? The description has the first one, but a
 * restarted translator (or anyone else who wrote on the queue pair) leaves
 * it elsewhere; frames behind it would be taken as duplicates and dropped.
 * A zero-length write far ahead draws a PSN sequence NAK with the PSN the
 * responder expects, and dta_roce_on_reply() moves there.
 */
static void sync_psns(struct switch_sink *s)
{
	uint8_t frame[DTA_ROCE_WRITE_OVERHEAD];
	uint32_t start[DTA_CONFIG_MAX_STRUCTURES];
	unsigned pending = 0;

	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
		struct sw_qp *q = &s->q[i];
		int n;

		if (!q->used)
			continue;
		start[i] = q->qp.psn;
		q->qp.psn = (q->qp.psn + 0x400000) & DTA_ROCE_PSN_MASK;
		n = dta_roce_build_probe(&q->qp, &q->t, frame, sizeof(frame));
		if (n > 0 && sendto(s->tx, frame, (size_t)n, 0,
				    (const struct sockaddr *)&s->to,
				    sizeof(s->to)) == n) {
			q->probing = true;
			pending++;
		} else {
			q->qp.psn = start[i];
		}
	}
	for (int tries = 0; pending && tries < 200; tries++) {
		usleep(10000);
		switch_sink_poll(s);
		pending = 0;
		for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++)
			pending += s->q[i].used && s->q[i].probing;
	}
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
		struct sw_qp *q = &s->q[i];

		if (!q->used || !q->probing)
			continue;
		/* No answer: start where the description says. */
		q->probing = false;
		q->qp.psn = start[i];
		s->unsynced++;
	}
	s->st.skipped = 0; /* the probes were not requests */
}

int switch_sink_open(const char *ifname, const char *desc,
		     const struct switch_sink_share *sh, size_t n,
		     struct switch_sink **out, char *err, size_t errlen)
{
	struct switch_sink *s = calloc(1, sizeof(*s));
	char cmac[32], cip[32], pip[32];
	uint8_t mac_c[6], mac_me[6];
	struct ifreq ifr = { 0 };
	struct in_addr a;
	uint32_t ip_c, ip_me;
	json_t *root = NULL, *sw;
	int ifindex, fd;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->tx = s->rx = -1;
	pthread_mutex_init(&s->stat_lock, NULL);
	root = desc ? json_loads(desc, 0, NULL) : NULL;
	sw = json_object_get(root, "switch");
	if (!json_is_object(sw) ||
	    jstr(sw, "collector_mac", cmac, sizeof(cmac)) ||
	    jstr(sw, "collector_ip", cip, sizeof(cip)) ||
	    jstr(sw, "peer_ip", pip, sizeof(pip)) || parse_mac(cmac, mac_c)) {
		snprintf(err, errlen, "not a collector's switch description "
			 "(is switch_peer set on the collector?)");
		goto fail;
	}
	inet_pton(AF_INET, cip, &a);
	ip_c = ntohl(a.s_addr);
	inet_pton(AF_INET, pip, &a);
	ip_me = ntohl(a.s_addr);
	ifindex = (int)if_nametoindex(ifname);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (!ifindex || fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		snprintf(err, errlen, "interface %s: %s", ifname, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	close(fd);
	memcpy(mac_me, ifr.ifr_hwaddr.sa_data, 6);
	s->tx = open_socket(ifindex, 0); /* protocol 0: receives nothing */
	s->to.sll_family = AF_PACKET;
	s->to.sll_protocol = htons(ETH_P_IP);
	s->to.sll_ifindex = ifindex;
	s->to.sll_halen = 6;
	memcpy(s->to.sll_addr, mac_c, 6);
	s->rx = open_socket(ifindex, ETH_P_IP);
	if (s->rx >= 0) {
		/* Only what comes back, with room for a burst of ACKs between
		 * two polls (a lost final ACK would make flush wait). */
		int one = 1, sz = 8 << 20;

		setsockopt(s->rx, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
			   sizeof(one));
		setsockopt(s->rx, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		setsockopt(s->rx, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	}
	if (s->tx < 0 || s->rx < 0) {
		snprintf(err, errlen, "raw socket on %s: %s (needs CAP_NET_RAW)",
			 ifname, strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		struct sw_qp *q = &s->q[sh[i].index];
		json_t *e = desc_structure(sw, sh[i].name);
		uint64_t qpn, peer, psn, rkey, addr, len;

		if (!e || jnum(e, "qpn", &qpn) || jnum(e, "peer_qpn", &peer) ||
		    jnum(e, "psn", &psn) || jnum(e, "rkey", &rkey) ||
		    jnum(e, "addr", &addr) || jnum(e, "length", &len)) {
			snprintf(err, errlen, "the collector's switch description "
				 "has no structure %s", sh[i].name);
			goto fail;
		}
		if (len != sh[i].layout->data_size) {
			snprintf(err, errlen, "the collector's %s has a different "
				 "size than this configuration says", sh[i].name);
			goto fail;
		}
		q->ring = switch_ring_create(SWITCH_RING_K, SWITCH_RING_SLOT);
		if (!q->ring) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		pthread_mutex_init(&q->lock, NULL);
		memcpy(q->qp.src_mac, mac_me, 6);
		memcpy(q->qp.dst_mac, mac_c, 6);
		q->qp.src_ip = ip_me;
		q->qp.dst_ip = ip_c;
		/* One UDP source port per queue pair: ECMP entropy. */
		q->qp.src_port = (uint16_t)(49152 + sh[i].index);
		q->qp.dst_qpn = (uint32_t)qpn;
		q->qp.psn = (uint32_t)psn & DTA_ROCE_PSN_MASK;
		q->qp.pkey = 0xFFFF;
		q->qp.ack_req = true;
		q->my_qpn = (uint32_t)peer;
		q->t.addr = addr;
		q->t.rkey = (uint32_t)rkey;
		q->t.length = len;
		q->used = true;
	}
	json_decref(root);
	sync_psns(s);
	*out = s;
	return 0;
fail:
	json_decref(root);
	switch_sink_destroy(s);
	return -1;
}

/* Send @frame; a frame that does not leave is recovered like one the
 * network dropped (it is kept). */
static void send_frame(struct switch_sink *s, const void *frame, size_t len)
{
	if (sendto(s->tx, frame, len, 0, (const struct sockaddr *)&s->to,
		   sizeof(s->to)) != (ssize_t)len)
		__atomic_add_fetch(&s->send_errors, 1, __ATOMIC_RELAXED);
}

/* Go-back-N: send the @n oldest kept frames again, unchanged. Holds q->lock. */
static void resend(struct switch_sink *s, struct sw_qp *q, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		size_t len;
		const void *f = switch_ring_frame(q->ring, i, &len);

		if (!f)
			break;
		send_frame(s, f, len);
		__atomic_add_fetch(&s->retransmits, 1, __ATOMIC_RELAXED);
	}
}

/* Wait (bounded) until @q can keep one more frame: poll for the replies
 * that release kept ones. Holds q->lock, drops it while waiting. */
static bool wait_room(struct switch_sink *s, struct sw_qp *q)
{
	uint64_t until = tool_now_ns() + WINDOW_WAIT_NS;

	while (switch_ring_full(q->ring) && tool_now_ns() < until) {
		pthread_mutex_unlock(&q->lock);
		switch_sink_poll(s);
		usleep(500);
		pthread_mutex_lock(&q->lock);
	}
	return !switch_ring_full(q->ring);
}

int switch_sink_submit(void *ctx, unsigned structure,
		       const struct dta_memop *ops, size_t n)
{
	struct switch_sink *s = ctx;
	struct sw_qp *q;
	uint8_t frame[SWITCH_RING_SLOT];
	int rc = 0;

	if (structure >= DTA_CONFIG_MAX_STRUCTURES || !s->q[structure].used)
		return -EINVAL;
	q = &s->q[structure];
	pthread_mutex_lock(&q->lock);
	for (size_t i = 0; i < n; i++) {
		uint32_t psn;
		int len;

		if (!wait_room(s, q)) {
			/* Sending could not be undone if lost: refuse this and
			 * the rest at once (waiting for each would hold the
			 * caller, maybe under a lock, n times as long); the
			 * core counts them in sink_errors. */
			__atomic_add_fetch(&s->window_full, (uint64_t)(n - i),
					   __ATOMIC_RELAXED);
			rc = -ENOBUFS;
			break;
		}
		/* Read only now: wait_room() let go of the lock, and another
		 * worker or a resync may have moved the PSN meanwhile. */
		psn = q->qp.psn;
		len = dta_roce_build(&q->qp, &q->t, &ops[i], frame, sizeof(frame));
		if (len < 0) {
			__atomic_add_fetch(&s->build_errors, 1, __ATOMIC_RELAXED);
			rc = len;
			continue;
		}
		if (switch_ring_push(q->ring, psn, frame, (size_t)len,
				     tool_now_ns())) {
			/* Not kept, so not sent: it could not be resent. */
			__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
			rc = -EIO;
			continue;
		}
		send_frame(s, frame, (size_t)len);
		__atomic_add_fetch(&s->frames, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->bytes, (uint64_t)len, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

/* Act on reply @p for @q. Holds q->lock. */
static void on_reply(struct switch_sink *s, struct sw_qp *q,
		     const struct dta_roce_packet *p)
{
	uint64_t now = tool_now_ns();
	int n;

	if (p->kind == DTA_ROCE_NAK && p->nak == DTA_ROCE_NAK_PSN_SEQ) {
		q->probing = false;
		n = switch_ring_nak(q->ring, p->psn, now);
		if (n == -ESTALE)
			return;
		if (n >= 0) {
			/* Everything before p->psn landed; the rest goes
			 * again, from the PSN the responder waits for. */
			pthread_mutex_lock(&s->stat_lock);
			s->st.naks[DTA_ROCE_NAK_PSN_SEQ]++;
			pthread_mutex_unlock(&s->stat_lock);
			resend(s, q, (unsigned)n);
			return;
		}
		/* Not about the frames we keep (the start-up probe's, or the
		 * responder waits for a frame given up): continue where it
		 * waits. What is kept was dropped and cannot be rebuilt. */
		__atomic_add_fetch(&s->lost, switch_ring_clear(q->ring),
				   __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&s->stat_lock);
	dta_roce_on_reply(&q->qp, q->my_qpn, p, &s->st);
	pthread_mutex_unlock(&s->stat_lock);
	if (p->kind == DTA_ROCE_ACK || p->kind == DTA_ROCE_ATOMIC_ACK) {
		switch_ring_ack(q->ring, p->psn, now);
	} else if (p->kind == DTA_ROCE_NAK && p->nak != DTA_ROCE_NAK_PSN_SEQ) {
		/* The request at p->psn failed for good (access, invalid,
		 * operational error); those before it were done. */
		if (switch_ring_ack(q->ring, p->psn, now))
			__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
	}
}

/* Frames nobody acknowledged for a while (the last ones of a burst were
 * dropped: no later frame draws a NAK): send them again, or give up. */
static void check_timeouts(struct switch_sink *s)
{
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
		struct sw_qp *q = &s->q[i];
		int n;

		if (!q->used)
			continue;
		pthread_mutex_lock(&q->lock);
		n = switch_ring_timeout(q->ring, tool_now_ns());
		if (n > 0) {
			__atomic_add_fetch(&s->timeouts, 1, __ATOMIC_RELAXED);
			resend(s, q, (unsigned)n);
		} else if (n == -ETIMEDOUT) {
			__atomic_add_fetch(&s->lost, switch_ring_clear(q->ring),
					   __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&q->lock);
	}
}

void switch_sink_poll(struct switch_sink *s)
{
	uint8_t buf[2048];

	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct dta_roce_packet p;
		ssize_t len = recvfrom(s->rx, buf, sizeof(buf), MSG_DONTWAIT,
				       (struct sockaddr *)&from, &fl);
		int rc;

		if (len < 0)
			break;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue; /* our own requests */
		rc = dta_roce_parse(buf, (size_t)len, &p);
		if (rc == -DTA_E_MALFORMED)
			continue; /* not RoCEv2: other traffic */
		if (rc) {
			__atomic_add_fetch(&s->bad_replies, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (p.kind == DTA_ROCE_REQUEST)
			continue;
		for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
			struct sw_qp *q = &s->q[i];

			if (!q->used || q->my_qpn != p.qpn)
				continue;
			pthread_mutex_lock(&q->lock);
			on_reply(s, q, &p);
			pthread_mutex_unlock(&q->lock);
			break;
		}
	}
	check_timeouts(s);
}

int switch_sink_flush(void *ctx)
{
	struct switch_sink *s = ctx;

	uint64_t until = tool_now_ns() + FLUSH_WAIT_NS;

	for (;;) {
		bool all = true;

		switch_sink_poll(s);
		for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
			struct sw_qp *q = &s->q[i];

			if (!q->used)
				continue;
			pthread_mutex_lock(&q->lock);
			all &= switch_ring_count(q->ring) == 0;
			pthread_mutex_unlock(&q->lock);
		}
		if (all)
			return 0;
		if (tool_now_ns() >= until)
			return -ETIMEDOUT;
		usleep(5000);
	}
}

void switch_sink_stats_json(struct switch_sink *s, FILE *out)
{
	struct dta_roce_stats st;
	uint64_t unacked = 0;

	switch_sink_poll(s);
	pthread_mutex_lock(&s->stat_lock);
	st = s->st;
	pthread_mutex_unlock(&s->stat_lock);
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
		struct sw_qp *q = &s->q[i];

		if (!q->used)
			continue;
		pthread_mutex_lock(&q->lock);
		unacked += switch_ring_count(q->ring);
		pthread_mutex_unlock(&q->lock);
	}
	fprintf(out, ",\"switch_frames\":%" PRIu64 ",\"switch_bytes\":%" PRIu64
		",\"switch_send_errors\":%" PRIu64 ",\"switch_build_errors\":%" PRIu64
		",\"switch_acks\":%" PRIu64 ",\"switch_atomic_acks\":%" PRIu64
		",\"switch_nak_psn\":%" PRIu64 ",\"switch_nak_invalid\":%" PRIu64
		",\"switch_nak_access\":%" PRIu64 ",\"switch_nak_remote_op\":%" PRIu64
		",\"switch_nak_other\":%" PRIu64 ",\"switch_rnr_naks\":%" PRIu64
		",\"switch_resyncs\":%" PRIu64 ",\"switch_skipped\":%" PRIu64
		",\"switch_bad_replies\":%" PRIu64 ",\"switch_unacked\":%" PRIu64
		",\"switch_unsynced\":%" PRIu64 ",\"switch_retransmits\":%" PRIu64
		",\"switch_timeouts\":%" PRIu64 ",\"switch_lost\":%" PRIu64
		",\"switch_window_full\":%" PRIu64,
		s->frames, s->bytes, s->send_errors, s->build_errors, st.acks,
		st.atomic_acks, st.naks[DTA_ROCE_NAK_PSN_SEQ],
		st.naks[DTA_ROCE_NAK_INVALID_REQ], st.naks[DTA_ROCE_NAK_REMOTE_ACCESS],
		st.naks[DTA_ROCE_NAK_REMOTE_OP],
		st.naks[DTA_ROCE_NAK_INVALID_RD] + st.naks_other, st.rnr_naks,
		st.resyncs, st.skipped, s->bad_replies, unacked, s->unsynced,
		s->retransmits, s->timeouts, s->lost, s->window_full);
}

void switch_sink_destroy(struct switch_sink *s)
{
	if (!s)
		return;
	if (s->tx >= 0)
		close(s->tx);
	if (s->rx >= 0)
		close(s->rx);
	for (size_t i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
		if (!s->q[i].used)
			continue;
		switch_ring_destroy(s->q[i].ring);
		pthread_mutex_destroy(&s->q[i].lock);
	}
	pthread_mutex_destroy(&s->stat_lock);
	free(s);
}
