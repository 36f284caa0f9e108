/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_layout_decode(), the parser of region headers and of
 * the descriptors a collector hands to translators: an accepted descriptor
 * must re-encode to one that decodes to the same layout, and its writer and
 * query functions must stay inside the data area it declares. */
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct dta_layout *a, const struct dta_layout *b)
{
	if (a->primitive != b->primitive || a->hash_family != b->hash_family ||
	    a->hash_seed != b->hash_seed || a->data_size != b->data_size ||
	    memcmp(&a->g, &b->g, sizeof(a->g)))
		abort();
	for (unsigned r = 0; r < DTA_HF_COUNT; r++)
		if (a->fn[r].kind != b->fn[r].kind ||
		    a->fn[r].poly != b->fn[r].poly ||
		    a->fn[r].init != b->fn[r].init ||
		    a->fn[r].xorout != b->fn[r].xorout ||
		    a->fn[r].seed != b->fn[r].seed)
			abort();
}

/* Every op a writer emits for this layout lies inside data_size. */
static void ops_in_range(const struct dta_layout *l)
{
	static const uint8_t key[13] = { 10, 0, 0, 1, 10, 0, 0, 2, 0, 80, 1, 187, 6 };
	static uint8_t data[DTA_DATA_MAX], buf[2 * DTA_DATA_MAX + 4096];
	struct dta_memop ops[2 * DTA_MAX_REDUNDANCY];
	uint32_t path[DTA_MAX_HOPS] = { 1, 2, 3 };
	int n = 0;

	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE:
		n = dta_kw_ops(l, key, sizeof(key), data, l->g.kw.data_len,
			       l->g.kw.max_redundancy, buf, sizeof(buf), ops,
			       DTA_MAX_REDUNDANCY);
		break;
	case DTA_PRIM_POSTCARD:
		n = dta_pc_ops(l, key, sizeof(key), path, 1, buf, sizeof(buf),
			       ops, DTA_MAX_REDUNDANCY);
		break;
	case DTA_PRIM_KEY_INCREMENT:
		n = dta_ki_ops(l, key, sizeof(key), 1, 0, ops,
			       DTA_MAX_REDUNDANCY);
		break;
	default:
		return;
	}
	for (int i = 0; i < n; i++)
		if (ops[i].offset > l->data_size ||
		    ops[i].len > l->data_size - ops[i].offset)
			abort();
}

static void one(const uint8_t *data, size_t size)
{
	uint8_t buf[DTA_LAYOUT_WIRE_SIZE];
	struct dta_layout l, back;

	if (dta_layout_decode(data, size, &l) != 0)
		return;
	if (dta_layout_encode(&l, buf, sizeof(buf)) != DTA_LAYOUT_WIRE_SIZE)
		abort();
	if (dta_layout_decode(buf, sizeof(buf), &back) != 0)
		abort();
	same(&l, &back);
	ops_in_range(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t fixed[DTA_LAYOUT_WIRE_SIZE];
	uint32_t crc;

	one(data, size);
	/* Most mutations break the descriptor's CRC-32C (last 4 bytes, LE);
	 * repair it so the geometry and function checks are reached too. */
	if (size >= DTA_LAYOUT_WIRE_SIZE) {
		memcpy(fixed, data, sizeof(fixed));
		crc = dta_crc32c(0, fixed, sizeof(fixed) - 4);
		for (unsigned i = 0; i < 4; i++)
			fixed[sizeof(fixed) - 4 + i] = (uint8_t)(crc >> (8 * i));
		one(fixed, sizeof(fixed));
	}
	return 0;
}
