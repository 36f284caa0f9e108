/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the XDP program (dta_xdp.bpf.c) and the translator
 * (xdp_rx.c): the indices of the program's per-CPU counters. No
 * includes: the BPF target compiles it too.
 */
#ifndef DTA_XDP_H
#define DTA_XDP_H

enum dta_xdp_count {
	DTA_XDP_REDIRECTED, /* frames sent to their queue's AF_XDP socket */
	DTA_XDP_PASSED,     /* UDP to other ports: passed to the kernel */
	DTA_XDP_NO_SOCKET,  /* ours, on a queue without a socket: to the
			     * kernel (the translator's UDP socket) */
	DTA_XDP_TOO_LONG,   /* ours, longer than a UMEM frame: to the kernel */
	DTA_XDP_BAD_CSUM,   /* ours, bad IPv4 header checksum: to the kernel,
			     * which drops it as on the socket path */
	DTA_XDP_NCOUNTS
};

#endif
