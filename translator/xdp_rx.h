/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dta-translator's AF_XDP receive path (docs/translator.md "AF_XDP
 * receive path"): the XDP program (xdp/dta_xdp.bpf.c) on one interface,
 * steering the DTA and INT ports to one AF_XDP socket (XSK) per receive
 * queue, and those sockets. One worker thread owns each queue: it takes
 * the frames the socket received as a batch (xdp_rxq_recv()), hands the
 * payloads to the core where they lie in the UMEM, then gives the frames
 * back to the fill ring (xdp_rxq_release()). Losses the kernel counts on
 * the socket (XDP_STATISTICS) are read with xdp_rxq_drops().
 *
 * Built only with libxdp, libbpf and clang (DTA_HAVE_XDP); without them
 * xdp_rx_open() answers -EOPNOTSUPP and the translator receives with its
 * UDP sockets.
 */
#ifndef DTA_XDP_RX_H
#define DTA_XDP_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The program's per-CPU counters: enum dta_xdp_count. */
#include "xdp/dta_xdp.h"

enum xdp_rx_mode { XDP_RX_NATIVE, XDP_RX_GENERIC };

struct xdp_rx_opts {
	const char *ifname;
	enum xdp_rx_mode mode;
	unsigned queues;     /* queues 0 .. queues-1 get a socket */
	uint16_t port;       /* DTA port */
	uint16_t int_port;   /* INT port, 0: none */
	uint32_t bind_v4;    /* network order, 0: any (then IPv6 too) */
	unsigned batch;      /* frames taken per xdp_rxq_recv() at most */
};

/* One received frame, as the frame parser (tool_udp_payload()) found it. */
struct xdp_rx_pkt {
	const uint8_t *payload; /* in the UMEM, valid until xdp_rxq_release() */
	uint32_t len;
	uint32_t src;           /* IPv4 source, host order; 0: IPv6 */
	uint8_t kind;           /* XDP_PKT_DTA, XDP_PKT_INT, XDP_PKT_BAD */
};
enum { XDP_PKT_DTA, XDP_PKT_INT, XDP_PKT_BAD };

/* A socket's kernel counters (struct xdp_statistics), cumulative. */
struct xdp_rx_drops {
	uint64_t rx_dropped;       /* no fill-ring frame, or too long */
	uint64_t rx_ring_full;     /* the rx ring was full */
	uint64_t rx_invalid_descs; /* invalid descriptors */
	uint64_t fill_ring_empty;  /* times the fill ring was found empty
				    * (a cause of rx_dropped in copy mode) */
};

struct xdp_rx;  /* the program and the sockets */
struct xdp_rxq; /* one queue's socket and UMEM */

/**
 * xdp_rx_available() - whether this build has the AF_XDP path.
 */
bool xdp_rx_available(void);

/**
 * xdp_rx_rx_queues() - the receive queues of interface @ifname.
 * Return: their count (>= 1), or a negative errno (-ENODEV: no such
 * interface).
 */
int xdp_rx_rx_queues(const char *ifname);

/**
 * xdp_rx_open() - attach the program to @o->ifname and create a socket on
 * each of its first @o->queues receive queues. A program of ours left
 * attached by a translator that did not exit cleanly is removed first; a
 * live translator on the interface makes it fail with -EADDRINUSE.
 * @why:  receives a sentence saying what failed, for the log.
 * Return: 0, or a negative errno (-EOPNOTSUPP: not built in; -EPERM:
 * without CAP_NET_ADMIN/CAP_BPF; others from the kernel or libxdp).
 * Not thread-safe; the caller logs.
 */
int xdp_rx_open(const struct xdp_rx_opts *o, struct xdp_rx **out,
		char *why, size_t cap);

/* Detach the program and close every socket. NULL is fine. */
void xdp_rx_close(struct xdp_rx *x);

/* Detach the program only (stopping: new frames go to the kernel's
 * sockets while the workers empty their rings). NULL is fine. */
void xdp_rx_detach(struct xdp_rx *x);

/**
 * xdp_rx_ifname_for() - the interface holding IPv4 address @addr
 * (network order) into @name (IF_NAMESIZE bytes).
 * Return: 0, -ENOENT (none), or a negative errno.
 */
int xdp_rx_ifname_for(uint32_t addr, char *name);

/* Queue @i's socket (i < queues). */
struct xdp_rxq *xdp_rx_queue(struct xdp_rx *x, unsigned i);

/* What the attach got: "native" or "generic", and "copy" or "zero-copy". */
const char *xdp_rx_mode_name(const struct xdp_rx *x);
const char *xdp_rx_bind_name(const struct xdp_rx *x);

/* The program's counters summed over CPUs (@c: DTA_XDP_NCOUNTS values). */
int xdp_rx_counts(const struct xdp_rx *x, uint64_t *c);

/* Frames each queue's socket can hold before the worker takes them (its
 * rx ring). */
unsigned xdp_rx_ring_frames(const struct xdp_rx *x);

/* The socket's fd, to poll for POLLIN. */
int xdp_rxq_fd(const struct xdp_rxq *q);

/**
 * xdp_rxq_recv() - take up to @max received frames (at most the opts'
 * batch) and parse each. Return: frames taken (0: none waiting). Only the
 * queue's worker calls it; each call must be followed by
 * xdp_rxq_release() before the next.
 */
unsigned xdp_rxq_recv(struct xdp_rxq *q, struct xdp_rx_pkt *pkts,
		      unsigned max);

/* Give the frames of the last xdp_rxq_recv() back to the fill ring. */
void xdp_rxq_release(struct xdp_rxq *q);

/* The socket's counters (XDP_STATISTICS). Return: 0 or a negative errno. */
int xdp_rxq_drops(const struct xdp_rxq *q, struct xdp_rx_drops *d);

/**
 * xdp_rx_test_prog() - for tests: load the program with @o's
 * configuration without attaching it, run it once on each of @n frames
 * (BPF_PROG_TEST_RUN, receive queue 0, no socket in its map) and give
 * each frame's XDP action in @act and the counters after in @c
 * (DTA_XDP_NCOUNTS values).
 * Return: 0, -EOPNOTSUPP (not built in), -EPERM (no CAP_BPF), or another
 * negative errno.
 */
int xdp_rx_test_prog(const struct xdp_rx_opts *o, const uint8_t *const *frames,
		     const size_t *lens, unsigned n, int *act, uint64_t *c);

#endif /* DTA_XDP_RX_H */
