/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_roce_parse(): what a switch-style translator reads
 * back from the network (ACKs, NAKs). Whatever parses must be consistent,
 * and a parsed NAK fed to dta_roce_on_reply() must keep the PSN in range. */
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dta_roce_packet p;
	struct dta_roce_qp qp = { .psn = 0xFFFFF0 };
	struct dta_roce_stats st = { 0 };

	if (dta_roce_parse(data, size, &p) != 0)
		return 0;
	if (p.qpn > DTA_ROCE_QPN_MASK || p.psn > DTA_ROCE_PSN_MASK ||
	    p.kind < DTA_ROCE_ACK || p.kind > DTA_ROCE_REQUEST ||
	    (p.kind == DTA_ROCE_NAK && (p.nak < 0 || p.nak > 31)))
		abort();
	if (dta_roce_on_reply(&qp, DTA_ROCE_ANY_QPN, &p, &st) < 0 ||
	    qp.psn > DTA_ROCE_PSN_MASK)
		abort();
	return 0;
}
