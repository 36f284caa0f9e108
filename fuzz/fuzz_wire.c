/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_wire_decode(): decode under every flag combination;
 * every accepted report must re-encode and decode to the same fields. */
#include <stdlib.h>
#include <string.h>

#include "dta/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned flags[] = { 0, DTA_DECODE_NO_LEGACY,
					  DTA_DECODE_LEGACY_PLAIN,
					  DTA_DECODE_LEGACY_NACK };
	struct dta_report r[64], back;
	uint8_t buf[DTA_PAYLOAD_MAX + 64];

	for (unsigned f = 0; f < 4; f++) {
		int n = dta_wire_decode(data, size, r, 64, flags[f]);

		for (int i = 0; i < n; i++) {
			int len = dta_wire_encode(&r[i], buf, sizeof(buf));

			if (len < 0 || dta_wire_decode(buf, (size_t)len, &back, 1,
						       flags[f] & ~DTA_DECODE_NO_LEGACY) != 1)
				abort();
			if (back.opcode != r[i].opcode || back.flags != r[i].flags ||
			    back.format != r[i].format)
				abort();
		}
	}
	return 0;
}
