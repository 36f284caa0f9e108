/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AF_XDP path's XDP program (translator/xdp/dta_xdp.bpf.c) on frames
 * built here, run by the kernel without attaching it
 * (BPF_PROG_TEST_RUN): what it steers (the DTA and INT ports, IPv4 to
 * bind or IPv6 with any bind, behind VLAN tags) and what it passes to
 * the kernel untouched (ARP, other ports, TCP, fragments, another
 * address, short frames), and its counters. With no socket in its map
 * every frame it means to redirect is passed and counted no_socket.
 * Needs CAP_BPF (root) and a build with XDP: skips (77) otherwise.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>

#include "xdp_rx.h"

#define PORT 40040
#define INT_PORT 32766
#define BIND 0x0a000002u /* 10.0.0.2, host order */

static size_t put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

/* An Ethernet frame with @tags VLAN tags, IPv4 (or IPv6) and UDP (or
 * TCP: @proto) to @dport, 16 bytes of payload; @frag sets the IPv4
 * fragment offset, @bad spoils the IPv4 header checksum, @pad makes the
 * frame that much longer. Return: its length. */
static size_t frame(uint8_t *f, int tags, bool v6, uint8_t proto,
		    uint16_t dport, uint32_t daddr, bool frag, bool bad,
		    size_t pad)
{
	size_t o = 12, ip, l4, plen = 16 + pad;

	memset(f, 0, 14 + 8 + 40 + 8 + plen);
	for (int i = 0; i < tags; i++) {
		o += put16(f + o, i == 0 && tags == 2 ? 0x88a8 : 0x8100);
		o += put16(f + o, 7);
	}
	o += put16(f + o, v6 ? 0x86dd : 0x0800);
	ip = o;
	if (v6) {
		f[ip] = 0x60;
		put16(f + ip + 4, (uint16_t)(8 + plen));
		f[ip + 6] = proto;
		f[ip + 7] = 64;
		f[ip + 39] = 2;
		l4 = ip + 40;
	} else {
		uint32_t s = 0;

		f[ip] = 0x45;
		put16(f + ip + 2, (uint16_t)(20 + 8 + plen));
		if (frag)
			put16(f + ip + 6, 0x0010);
		f[ip + 8] = 64;
		f[ip + 9] = proto;
		f[ip + 12] = 10;
		f[ip + 15] = 1;
		for (int i = 0; i < 4; i++)
			f[ip + 16 + i] = (uint8_t)(daddr >> (24 - 8 * i));
		for (int i = 0; i < 20; i += 2)
			s += (uint32_t)(f[ip + i] << 8 | f[ip + i + 1]);
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		put16(f + ip + 10, (uint16_t)(~s ^ (bad ? 1 : 0)));
		l4 = ip + 20;
	}
	put16(f + l4, 40000);
	put16(f + l4 + 2, dport);
	put16(f + l4 + 4, (uint16_t)(8 + plen));
	return l4 + 8 + plen;
}

static uint8_t bufs[16][512];

static void test_steering(void **state)
{
	struct xdp_rx_opts o = { .port = PORT, .int_port = INT_PORT,
				 .bind_v4 = 0, .batch = 64 };
	const uint8_t *fr[16];
	size_t len[16];
	int act[16];
	uint64_t c[DTA_XDP_NCOUNTS];
	unsigned n = 0;
	int err;

	(void)state;
	/* meant for a socket (no_socket): 5 */
	len[n] = frame(bufs[n], 0, false, 17, PORT, BIND, false, false, 0); n++;
	len[n] = frame(bufs[n], 0, false, 17, INT_PORT, BIND, false, false, 0); n++;
	len[n] = frame(bufs[n], 1, false, 17, PORT, BIND, false, false, 0); n++;
	len[n] = frame(bufs[n], 2, false, 17, PORT, BIND, false, false, 0); n++;
	len[n] = frame(bufs[n], 0, true, 17, PORT, 0, false, false, 0); n++;
	/* UDP to another port (passed): 2 */
	len[n] = frame(bufs[n], 0, false, 17, 53, BIND, false, false, 0); n++;
	len[n] = frame(bufs[n], 1, true, 17, 22, 0, false, false, 0); n++;
	/* ours, but a bad IPv4 header checksum: 1. (Frames too long for a
	 * UMEM frame cannot be made here: the test run hands a program
	 * without multi-buffer support at most a page's linear data,
	 * 3520 bytes, as drivers do.) */
	len[n] = frame(bufs[n], 0, false, 17, PORT, BIND, false, true, 0); n++;
	/* passed without a count: TCP, a fragment, ARP, a short frame */
	len[n] = frame(bufs[n], 0, false, 6, PORT, BIND, false, false, 0); n++;
	len[n] = frame(bufs[n], 0, false, 17, PORT, BIND, true, false, 0); n++;
	len[n] = frame(bufs[n], 0, false, 17, PORT, BIND, false, false, 0);
	put16(bufs[n] + 12, 0x0806); n++;
	len[n] = 20; n++; /* Ethernet and 6 bytes */
	for (unsigned i = 0; i < n; i++)
		fr[i] = bufs[i];
	err = xdp_rx_test_prog(&o, fr, len, n, act, c);
	if (err == -EOPNOTSUPP || err == -EPERM || err == -EACCES)
		skip();
	assert_int_equal(err, 0);
	for (unsigned i = 0; i < n; i++)
		if (act[i] != XDP_PASS)
			fail_msg("frame %u: action %d, not XDP_PASS", i, act[i]);
	assert_int_equal(c[DTA_XDP_NO_SOCKET], 5);
	assert_int_equal(c[DTA_XDP_PASSED], 2);
	assert_int_equal(c[DTA_XDP_BAD_CSUM], 1);
	assert_int_equal(c[DTA_XDP_TOO_LONG], 0);
	assert_int_equal(c[DTA_XDP_REDIRECTED], 0);
}

/* With a bind address: IPv4 to another address and IPv6 are passed
 * without a count; IPv4 to bind is meant for a socket. No INT port:
 * port 0 steers nothing. */
static void test_bind(void **state)
{
	struct xdp_rx_opts o = { .port = PORT, .int_port = 0,
				 .bind_v4 = __builtin_bswap32(BIND), .batch = 64 };
	const uint8_t *fr[4];
	size_t len[4];
	int act[4];
	uint64_t c[DTA_XDP_NCOUNTS];
	int err;

	(void)state;
	len[0] = frame(bufs[0], 0, false, 17, PORT, BIND, false, false, 0);
	len[1] = frame(bufs[1], 0, false, 17, PORT, BIND + 1, false, false, 0);
	len[2] = frame(bufs[2], 0, true, 17, PORT, 0, false, false, 0);
	len[3] = frame(bufs[3], 0, false, 17, 0, BIND, false, false, 0);
	for (int i = 0; i < 4; i++)
		fr[i] = bufs[i];
	err = xdp_rx_test_prog(&o, fr, len, 4, act, c);
	if (err == -EOPNOTSUPP || err == -EPERM || err == -EACCES)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(c[DTA_XDP_NO_SOCKET], 1);
	assert_int_equal(c[DTA_XDP_PASSED], 1); /* port 0: not ours */
	assert_int_equal(c[DTA_XDP_BAD_CSUM] + c[DTA_XDP_TOO_LONG], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steering),
		cmocka_unit_test(test_bind),
	};
	uint8_t f[128];
	const uint8_t *fp = f;
	size_t l = frame(f, 0, false, 17, PORT, BIND, false, false, 0);
	struct xdp_rx_opts o = { .port = PORT, .batch = 1 };
	uint64_t c[DTA_XDP_NCOUNTS];
	int a, err = xdp_rx_test_prog(&o, &fp, &l, 1, &a, c);

	if (err == -EOPNOTSUPP || err == -EPERM || err == -EACCES) {
		printf("SKIP: %s\n", err == -EOPNOTSUPP
		       ? "this build has no AF_XDP path"
		       : "loading a BPF program needs CAP_BPF (root)");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
