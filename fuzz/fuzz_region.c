/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for region files (dta_region_open() of a snapshot or a
 * shared-memory object: header, its CRC, the layout descriptor, sizes
 * against the file's). The input is the file. Most mutations break the
 * layout descriptor's or the header's CRC-32C, so each input is also tried
 * with both repaired. An accepted region must describe memory inside the
 * file, and every query and read kind must run over its data area. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LAYOUT_OFF 112 /* lib/src/region.c: REGION_LAYOUT_OFF */

static void put_crc(uint8_t *p, size_t len)
{
	uint32_t crc = dta_crc32c(0, p, len - 4);

	for (unsigned i = 0; i < 4; i++)
		p[len - 4 + i] = (uint8_t)(crc >> (8 * i));
}

static void one(int fd, const char *path, const uint8_t *data, size_t size)
{
	static const unsigned flags[] = { DTA_REGION_RDONLY, 0 };
	struct dta_region *r;

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	for (size_t i = 0; i < 2; i++) {
		struct dta_region_opts o = { .sz = sizeof(o),
					     .backing = DTA_BACKING_FILE,
					     .path = path, .flags = flags[i] };
		const struct dta_layout *l;
		uint8_t enc[DTA_LAYOUT_WIRE_SIZE];

		if (dta_region_open(&o, &r) != 0)
			continue;
		l = dta_region_layout(r);
		if (dta_region_data_size(r) != l->data_size ||
		    DTA_REGION_HEADER_SIZE + l->data_size > size ||
		    (uint8_t *)dta_region_data(r) !=
			    (uint8_t *)dta_region_base(r) + DTA_REGION_HEADER_SIZE ||
		    strlen(dta_region_name(r)) >= DTA_REGION_NAME_MAX ||
		    dta_layout_encode(l, enc, sizeof(enc)) != DTA_LAYOUT_WIRE_SIZE)
			abort();
		if (i == 0) /* one pass of queries is enough */
			fixture_query_all(l, dta_region_data(r), NULL, 0,
					  data + LAYOUT_OFF, FIX_KEY_LEN);
		dta_region_destroy(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	uint8_t *fixed;

	if (fd < 0) {
		fd = memfd_create("fuzz_region", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	one(fd, path, data, size);
	if (size < DTA_REGION_HEADER_SIZE)
		return 0;
	fixed = malloc(size);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	put_crc(fixed + LAYOUT_OFF, DTA_LAYOUT_WIRE_SIZE);
	put_crc(fixed, DTA_REGION_HEADER_SIZE);
	one(fd, path, fixed, size);
	free(fixed);
	return 0;
}
