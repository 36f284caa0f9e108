/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for dta_epoch_parse(), the reader of closed Key-Increment
 * epoch files (dta/epoch.h): an accepted file's records are in range,
 * ascending and non-zero, its row-0 sum is what the header says, and a
 * key's estimate is the minimum a linear scan of the records finds. Each
 * input is also tried with both CRCs repaired. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dta/dta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The count at record index @idx by a linear scan. */
static uint64_t scan(const struct dta_epoch *e, uint64_t idx)
{
	const struct dta_epoch_meta *m = dta_epoch_meta(e);
	struct dta_epoch_counter c;

	for (uint64_t i = 0; i < m->counters; i++) {
		if (dta_epoch_counter(e, i, &c))
			abort();
		if (c.row * m->layout.g.ki.width + c.column == idx)
			return c.count;
	}
	return 0;
}

static void one(const uint8_t *data, size_t size)
{
	static const uint8_t key[5] = { 1, 2, 3, 4, 5 };
	const struct dta_epoch_meta *m;
	struct dta_epoch *e;
	struct dta_epoch_counter c, prev = { 0 };
	uint64_t sum = 0, est, min = UINT64_MAX;

	if (dta_epoch_parse(data, size, &e) != 0) {
		if (e)
			abort();
		return;
	}
	m = dta_epoch_meta(e);
	if (m->bank != m->epoch % 2 || m->layout.g.ki.banks != 2 ||
	    !memchr(m->structure, 0, sizeof(m->structure)) ||
	    size != DTA_EPOCH_HEADER_SIZE + m->counters * DTA_EPOCH_RECORD_SIZE)
		abort();
	for (uint64_t i = 0; i < m->counters; i++) {
		if (dta_epoch_counter(e, i, &c) || c.row >= m->layout.g.ki.rows ||
		    c.column >= m->layout.g.ki.width || !c.count)
			abort();
		if (i && (c.row < prev.row ||
			  (c.row == prev.row && c.column <= prev.column)))
			abort();
		if (c.row == 0)
			sum += c.count;
		prev = c;
	}
	if (sum != m->row0_sum || dta_epoch_counter(e, m->counters, &c) != -ERANGE)
		abort();
	if (dta_epoch_query(e, key, sizeof(key), &est))
		abort();
	for (unsigned r = 0; r < m->layout.g.ki.rows; r++) {
		uint64_t v = scan(e, r * m->layout.g.ki.width +
					     dta_ki_index(&m->layout, key,
							  sizeof(key), r));

		if (v < min)
			min = v;
	}
	if (est != min)
		abort();
	dta_epoch_destroy(e);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;

	one(data, size);
	/* Most mutations break a CRC-32C: repair the data CRC (offset 60)
	 * and then the header CRC (offset 12, computed with itself 0). */
	if (size < DTA_EPOCH_HEADER_SIZE)
		return 0;
	fixed = malloc(size);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	put_le32(fixed + 60, dta_crc32c(0, fixed + DTA_EPOCH_HEADER_SIZE,
					size - DTA_EPOCH_HEADER_SIZE));
	put_le32(fixed + 12, 0);
	put_le32(fixed + 12, dta_crc32c(0, fixed, DTA_EPOCH_HEADER_SIZE));
	one(fixed, size);
	free(fixed);
	return 0;
}
