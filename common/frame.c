/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP payload of a captured frame; see tools.h. Kept apart from
 * dta-translator so the fuzz harness fuzz/fuzz_frame.c can reach it. */
#include <pcap/dlt.h>

#include "tools.h"

const uint8_t *tool_udp_payload(int dlt, const uint8_t *p, size_t caplen,
				uint16_t port, size_t *len, uint32_t *src)
{
	size_t off = 0, ihl;
	uint16_t ethertype;
	const uint8_t *ip;
	uint8_t proto;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return NULL;
		ethertype = (uint16_t)(p[12] << 8 | p[13]);
		off = 14;
		while ((ethertype == 0x8100 || ethertype == 0x88a8) &&
		       caplen >= off + 4) {
			ethertype = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
			off += 4;
		}
		break;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return NULL;
		ethertype = (uint16_t)(p[14] << 8 | p[15]);
		off = 16;
		break;
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
#endif
		ethertype = caplen && (p[0] >> 4) == 6 ? 0x86dd : 0x0800;
		break;
	default:
		return NULL;
	}
	ip = p + off;
	if (ethertype == 0x0800) {
		if (caplen < off + 20 || (ip[0] >> 4) != 4 || (ip[0] & 15) < 5)
			return NULL; /* IHL below 5: no room for its own fields */
		ihl = (size_t)(ip[0] & 15) * 4;
		proto = ip[9];
		*src = (uint32_t)ip[12] << 24 | (uint32_t)ip[13] << 16 |
		       (uint32_t)ip[14] << 8 | ip[15];
		if ((ip[6] & 0x3f) || ip[7]) /* fragments: not reassembled */
			return NULL;
	} else if (ethertype == 0x86dd) {
		if (caplen < off + 40)
			return NULL;
		ihl = 40;
		proto = ip[6]; /* extension headers are not followed */
		*src = 0;
	} else {
		return NULL;
	}
	if (proto != 17 || caplen < off + ihl + 8)
		return NULL;
	ip += ihl;
	if ((uint16_t)(ip[2] << 8 | ip[3]) != port)
		return NULL;
	{
		size_t ulen = (size_t)(ip[4] << 8 | ip[5]);

		if (ulen < 8 || off + ihl + ulen > caplen)
			return NULL; /* truncated capture */
		*len = ulen - 8;
	}
	return ip + 8;
}
