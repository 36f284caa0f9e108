// SPDX-License-Identifier: BSD-3-Clause
/*
 * dta_xdp: the XDP program of dta-translator's AF_XDP receive path
 * (docs/translator.md "AF_XDP receive path"). UDP datagrams to the DTA
 * port or the INT port (IPv4, or IPv6 when the translator listens on any
 * address; behind up to two VLAN tags) are redirected to the AF_XDP
 * socket of the receive queue they arrived on; every other frame is
 * passed to the kernel untouched (ARP, ssh, other ports, fragments,
 * datagrams too long for a UMEM frame, IPv4 headers with a bad checksum:
 * the kernel drops those, as it does on the socket path). A frame the
 * program meant to redirect but finds no socket for (a queue without
 * one) is passed to the kernel too, where the translator's UDP socket
 * receives it. What it did is counted per CPU in `counts` (indices:
 * enum dta_xdp_count, dta_xdp.h, shared with the translator).
 *
 * Compiled with clang -target bpf at build time and embedded in
 * dta-translator; xdp_rx.c sets the read-only configuration below before
 * loading it.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "dta_xdp.h"

/* Set by xdp_rx.c before loading. Ports in host order, 0: none. */
volatile const __u16 dta_port;
volatile const __u16 int_port;
volatile const __u32 bind_v4;  /* network order; 0: any address */
volatile const __u8 ipv6_ok;   /* steer IPv6 too (bind is any) */
volatile const __u32 max_frame; /* longest frame a UMEM frame takes */

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DTA_XDP_NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int count(__u32 i, int action)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &i);

	if (c)
		*c += 1;
	return action;
}

/* RFC 1071 sum of a 20-byte IPv4 header without options: 0xffff when
 * its checksum is right. Longer headers are left to the kernel. */
static __always_inline __u16 ip_sum(const __u16 *h)
{
	__u32 s = 0;

#pragma unroll
	for (int i = 0; i < 10; i++)
		s += h[i];
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

SEC("xdp")
int dta_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u8 *l3, *l4, proto;
	__u16 type, dport;
	int rc;

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	type = eth->h_proto;
	l3 = (__u8 *)(eth + 1);
#pragma unroll
	for (int i = 0; i < 2; i++) { /* 802.1Q / 802.1ad tags */
		if (type != bpf_htons(ETH_P_8021Q) &&
		    type != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(l3 + 4) > end)
			return XDP_PASS;
		type = *(__u16 *)(l3 + 2);
		l3 += 4;
	}
	if (type == bpf_htons(ETH_P_IP)) {
		if ((void *)(l3 + 20) > end || (l3[0] >> 4) != 4 ||
		    (l3[0] & 15) < 5)
			return XDP_PASS;
		proto = l3[9];
		/* fragments: the kernel reassembles them */
		if (proto != IPPROTO_UDP || (l3[6] & 0x3f) || l3[7])
			return XDP_PASS;
		if (bind_v4 && *(__u32 *)(l3 + 16) != bind_v4)
			return XDP_PASS;
		l4 = l3 + (l3[0] & 15) * 4;
	} else if (type == bpf_htons(ETH_P_IPV6) && ipv6_ok) {
		if ((void *)(l3 + 40) > end || l3[6] != IPPROTO_UDP)
			return XDP_PASS; /* extension headers: the kernel's */
		l4 = l3 + 40;
	} else {
		return XDP_PASS;
	}
	if ((void *)(l4 + 8) > end)
		return XDP_PASS;
	dport = bpf_ntohs(*(__u16 *)(l4 + 2));
	if (!dport || (dport != dta_port && dport != int_port))
		return count(DTA_XDP_PASSED, XDP_PASS);
	if ((__u32)(end - data) > max_frame)
		return count(DTA_XDP_TOO_LONG, XDP_PASS);
	if (type == bpf_htons(ETH_P_IP) && (l3[0] & 15) == 5 &&
	    ip_sum((const __u16 *)l3) != 0xffff)
		return count(DTA_XDP_BAD_CSUM, XDP_PASS);
	rc = bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
	return count(rc == XDP_REDIRECT ? DTA_XDP_REDIRECTED : DTA_XDP_NO_SOCKET, rc);
}

char _license[] SEC("license") = "Dual BSD/GPL";
