/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the queries and the Append reader over memory written
 * by anyone (a buggy or hostile translator, a corrupt snapshot): the input
 * is XORed over the data areas of small structures of every primitive,
 * populated first by real writers (an empty input queries intact
 * structures), and every query and read kind runs over the result. The
 * last bytes of the input are also looked up as a key. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fixture *f = fixture_get();
	size_t pos = 0, klen = size < FIX_KEY_LEN ? size : FIX_KEY_LEN;

	fixture_restore(f);
	for (size_t i = 0; i < f->n && pos < size; i++) {
		size_t len = f->v[i].l->data_size;

		for (size_t j = 0; j < len && pos < size; j++)
			f->area[i][j] ^= data[pos++];
	}
	for (size_t i = 0; i < f->n; i++)
		fixture_query_all(f->v[i].l, f->area[i], f->v[i].cs->values,
				  f->v[i].cs->nvalues, data + size - klen, klen);
	return 0;
}
