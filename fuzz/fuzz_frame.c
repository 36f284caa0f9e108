/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the translator's frame parsing (tool_udp_payload():
 * Ethernet with VLAN tags, Linux cooked, raw IPv4/IPv6, then UDP) and the
 * report decoder it feeds, as dta-translator runs them on every captured
 * frame. The first input byte picks the link type, the rest is the frame.
 * A payload found must lie inside the frame, after whole headers. */
#include <pcap/dlt.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int dlts[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_RAW,
				    DLT_IPV4, DLT_NULL };
	/* Link header, then at least an IPv4 header and a UDP header. */
	static const size_t before[] = { 14 + 28, 16 + 28, 28, 28, 0 };
	size_t k;
	static struct dta_report r[64];
	const uint8_t *frame, *pl;
	uint8_t *copy;
	size_t len, n;
	uint32_t src;
	int dlt;

	if (size < 1)
		return 0;
	k = data[0] % (sizeof(dlts) / sizeof(dlts[0]));
	dlt = dlts[k];
	n = size - 1;
	/* An exact-size copy, so reading past the frame is caught. */
	copy = malloc(n ? n : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, n);
	frame = copy;
	pl = tool_udp_payload(dlt, frame, n, DTA_UDP_PORT, &len, &src);
	if (pl) {
		if (pl < frame + before[k] || pl > frame + n ||
		    len > (size_t)(frame + n - pl))
			abort();
		(void)dta_wire_decode(pl, len, r, 64, 0);
	}
	free(copy);
	return 0;
}
