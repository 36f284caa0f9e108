/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_meta_decode(): what a translator parses from a
 * collector. Accepted descriptions must re-encode to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dta_meta m;
	uint8_t buf[DTA_META_SIZE];

	if (dta_meta_decode(data, size, &m) != 0)
		return 0;
	if (dta_meta_encode(&m, buf, sizeof(buf)) != DTA_META_SIZE ||
	    memcmp(buf, data, DTA_META_SIZE))
		abort();
	return 0;
}
