/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_meta_decode() and dta_meta_cursors_decode(): what
 * a translator parses from a collector. Accepted messages must re-encode to
 * the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dta_meta_cursors c;
	static uint8_t cbuf[DTA_CURSORS_SIZE(DTA_CURSORS_MAX)];
	struct dta_meta m;
	uint8_t buf[DTA_META_SIZE];
	int n;

	if (dta_meta_cursors_decode(data, size, &c) == 0) {
		n = dta_meta_cursors_encode(&c, cbuf, sizeof(cbuf));
		if (n != (int)size || memcmp(cbuf, data, size))
			abort();
	}
	if (dta_meta_decode(data, size, &m) != 0)
		return 0;
	if (dta_meta_encode(&m, buf, sizeof(buf)) != DTA_META_SIZE ||
	    memcmp(buf, data, DTA_META_SIZE))
		abort();
	return 0;
}
