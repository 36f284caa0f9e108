/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_forge: a misbehaving translator for the RDMA tests. It connects to
 * a collector like dta-translator does, takes the first structure's
 * description, and writes 8 bytes just past the end of its registered area
 * (offset = length). The NIC must refuse that WRITE: the tool exits 0 if the
 * completion reports a remote access error, 1 if the write succeeded, 2 on
 * any other failure. Usage: rdma_forge HOST PORT
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "dta/dta.h"

static struct rdma_event_channel *ec;

static int expect(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;

	if (rdma_get_cm_event(ec, &ev))
		return -1;
	got = ev->event;
	rdma_ack_cm_event(ev);
	if (got != want)
		fprintf(stderr, "rdma_forge: got %s\n", rdma_event_str(got));
	return got == want ? 0 : -1;
}

static int poll1(struct ibv_cq *cq, struct ibv_wc *wc)
{
	for (int i = 0; i < 30000; i++) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		usleep(1000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct addrinfo *ai;
	struct rdma_cm_id *id;
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_conn_param cp = { .initiator_depth = 1, .retry_count = 7 };
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct dta_meta m;
	/* Room to receive every description the collector sends: a send
	 * without a posted receive would stall the queue pair (RNR). */
	static uint8_t buf[DTA_CONFIG_MAX_STRUCTURES * DTA_META_SIZE + 64];

	if (argc != 3 || getaddrinfo(argv[1], argv[2], NULL, &ai)) {
		fprintf(stderr, "usage: rdma_forge HOST PORT\n");
		return 2;
	}
	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, ai->ai_addr, 5000) ||
	    expect(RDMA_CM_EVENT_ADDR_RESOLVED) || rdma_resolve_route(id, 5000) ||
	    expect(RDMA_CM_EVENT_ROUTE_RESOLVED))
		return 2;
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 64, NULL, NULL, 0);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = DTA_CONFIG_MAX_STRUCTURES;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (!pd || !cq || !mr || rdma_create_qp(id, pd, &qa))
		return 2;
	for (int i = 0; i < DTA_CONFIG_MAX_STRUCTURES; i++) {
		struct ibv_sge sge = { (uintptr_t)(buf + i * DTA_META_SIZE),
				       DTA_META_SIZE, mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(id->qp, &wr, &bad))
			return 2;
	}
	if (rdma_connect(id, &cp) || expect(RDMA_CM_EVENT_ESTABLISHED))
		return 2;
	if (poll1(cq, &wc) != 1 || wc.status != IBV_WC_SUCCESS ||
	    dta_meta_decode(buf + wc.wr_id * DTA_META_SIZE, wc.byte_len, &m)) {
		fprintf(stderr, "rdma_forge: no description received\n");
		return 2;
	}
	{
		struct ibv_sge sge = { (uintptr_t)(buf + sizeof(buf) - 64), 8, mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		/* The first byte past the structure's data area. */
		wr.wr.rdma.remote_addr = m.addr + m.length;
		wr.wr.rdma.rkey = m.rkey;
		if (ibv_post_send(id->qp, &wr, &bad))
			return 2;
	}
	/* Skip the other descriptions' receive completions. */
	do {
		if (poll1(cq, &wc) != 1) {
			fprintf(stderr, "rdma_forge: no completion\n");
			return 2;
		}
	} while (wc.opcode == IBV_WC_RECV && wc.status == IBV_WC_SUCCESS);
	printf("rdma_forge: write past %s: %s\n", m.name, ibv_wc_status_str(wc.status));
	/* Clean up everything (the sanitizer build checks for leaks). */
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	freeaddrinfo(ai);
	return wc.status == IBV_WC_REM_ACCESS_ERR ? 0
	       : wc.status == IBV_WC_SUCCESS ? 1 : 2;
}
