/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_config_parse(): any text either parses into
 * structures whose layouts (and value schemas) are consistent, or fails
 * with a message. */
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dta_config *c;
	char err[256];
	int rc = dta_config_parse((const char *)data, size, &c, err, sizeof(err));

	if (rc) {
		if (c || !err[0] || !memchr(err, 0, sizeof(err)))
			abort();
		return 0;
	}
	for (size_t i = 0; i < dta_config_count(c); i++) {
		const struct dta_config_structure *s = dta_config_structure(c, i);

		if (!s || !s->name[0] || s->layout.data_size == 0 ||
		    dta_config_find(c, s->name) != s)
			abort();
		for (size_t j = 1; j < s->nvalues; j++)
			if (s->values[j - 1] >= s->values[j])
				abort();
		/* A schema describes exactly a Key-Write data or an Append
		 * entry. */
		if (s->schema &&
		    !(s->layout.primitive == DTA_PRIM_KEY_WRITE &&
		      s->schema->size == s->layout.g.kw.data_len) &&
		    !(s->layout.primitive == DTA_PRIM_APPEND &&
		      s->schema->size == s->layout.g.ap.entry_size))
			abort();
	}
	dta_config_destroy(c);
	return 0;
}
