/* SPDX-License-Identifier: BSD-3-Clause */
/* Structure descriptions for translators (meta.h, docs/rdma.md). */
#include <errno.h>
#include <string.h>

#include "dta/hash.h"
#include "dta/meta.h"
#include "internal.h"

/* Offsets of the encoded form. */
enum {
	M_MAGIC = 0, M_VERSION = 4, M_INDEX = 6, M_COUNT = 8, M_RSVD = 10,
	M_RKEY = 12, M_ADDR = 16, M_LENGTH = 24, M_LIST = 32, M_RSVD2 = 36,
	M_NAME = 40, M_LAYOUT = M_NAME + DTA_CONFIG_NAME_MAX,
	M_CRC = M_LAYOUT + DTA_LAYOUT_WIRE_SIZE,
	M_END = M_CRC + 4,
};
static_assert(M_END == DTA_META_SIZE, "meta size");

static int name_ok(const char *n)
{
	size_t len = strnlen(n, DTA_CONFIG_NAME_MAX);

	return len > 0 && len < DTA_CONFIG_NAME_MAX;
}

DTA_API int dta_meta_encode(const struct dta_meta *m, void *buf, size_t cap)
{
	uint8_t *p = buf;
	int err;

	if (!m || !buf || m->index >= m->count || !name_ok(m->name) ||
	    m->length != m->layout.data_size)
		return -EINVAL;
	if (cap < DTA_META_SIZE)
		return -ENOSPC;
	memset(p, 0, DTA_META_SIZE);
	dta__put_be32(p + M_MAGIC, DTA_META_MAGIC);
	dta__put_be16(p + M_VERSION, DTA_META_VERSION);
	dta__put_be16(p + M_INDEX, m->index);
	dta__put_be16(p + M_COUNT, m->count);
	dta__put_be32(p + M_RKEY, m->rkey);
	dta__put_be(p + M_ADDR, m->addr, 8);
	dta__put_be(p + M_LENGTH, m->length, 8);
	dta__put_be32(p + M_LIST, m->list_base);
	memcpy(p + M_NAME, m->name, strnlen(m->name, DTA_CONFIG_NAME_MAX));
	err = dta_layout_encode(&m->layout, p + M_LAYOUT, DTA_LAYOUT_WIRE_SIZE);
	if (err < 0)
		return err;
	dta__put_be32(p + M_CRC, dta_crc32c(0, p, M_CRC));
	return DTA_META_SIZE;
}

DTA_API int dta_meta_decode(const void *buf, size_t len, struct dta_meta *m)
{
	const uint8_t *p = buf;
	struct dta_meta t;
	int err;

	if (!buf || !m)
		return -EINVAL;
	if (len < DTA_META_SIZE)
		return -DTA_E_TRUNCATED;
	if (dta__be32(p + M_MAGIC) != DTA_META_MAGIC ||
	    dta__be32(p + M_CRC) != dta_crc32c(0, p, M_CRC))
		return -DTA_E_MALFORMED;
	if (dta__be16(p + M_VERSION) != DTA_META_VERSION)
		return -DTA_E_VERSION;
	memset(&t, 0, sizeof(t));
	t.index = dta__be16(p + M_INDEX);
	t.count = dta__be16(p + M_COUNT);
	t.rkey = dta__be32(p + M_RKEY);
	t.addr = dta__get_be(p + M_ADDR, 8);
	t.length = dta__get_be(p + M_LENGTH, 8);
	t.list_base = dta__be32(p + M_LIST);
	memcpy(t.name, p + M_NAME, DTA_CONFIG_NAME_MAX);
	if (t.index >= t.count || !name_ok(t.name) ||
	    dta__be16(p + M_RSVD) || dta__be32(p + M_RSVD2))
		return -DTA_E_MALFORMED;
	/* Bytes after the name's terminator must be zero too. */
	for (size_t i = strnlen(t.name, DTA_CONFIG_NAME_MAX); i < DTA_CONFIG_NAME_MAX; i++)
		if (t.name[i])
			return -DTA_E_MALFORMED;
	err = dta_layout_decode(p + M_LAYOUT, DTA_LAYOUT_WIRE_SIZE, &t.layout);
	if (err)
		return err;
	if (t.length != t.layout.data_size ||
	    (t.layout.primitive == DTA_PRIM_KEY_INCREMENT && t.addr % 8))
		return -DTA_E_MALFORMED;
	*m = t;
	return 0;
}

DTA_API int dta_meta_cursors_encode(const struct dta_meta_cursors *c, void *buf,
				    size_t cap)
{
	uint8_t *p = buf;
	size_t size;

	if (!c || !buf || c->n == 0 || c->n > DTA_CURSORS_MAX)
		return -EINVAL;
	size = DTA_CURSORS_SIZE(c->n);
	if (cap < size)
		return -ENOSPC;
	dta__put_be32(p, DTA_CURSORS_MAGIC);
	dta__put_be16(p + 4, DTA_META_VERSION);
	dta__put_be16(p + 6, c->structure);
	dta__put_be32(p + 8, c->first_list);
	dta__put_be16(p + 12, c->n);
	dta__put_be16(p + 14, 0);
	for (unsigned i = 0; i < c->n; i++) {
		dta__put_be32(p + 16 + 8 * i, c->cur[i].next_seq);
		dta__put_be32(p + 20 + 8 * i, c->cur[i].next_entry);
	}
	dta__put_be32(p + size - 4, dta_crc32c(0, p, size - 4));
	return (int)size;
}

DTA_API int dta_meta_cursors_decode(const void *buf, size_t len,
				    struct dta_meta_cursors *c)
{
	const uint8_t *p = buf;
	unsigned n;
	size_t size;

	if (!buf || !c)
		return -EINVAL;
	if (len < DTA_CURSORS_SIZE(0))
		return -DTA_E_TRUNCATED;
	if (dta__be32(p) != DTA_CURSORS_MAGIC)
		return -DTA_E_MALFORMED;
	if (dta__be16(p + 4) != DTA_META_VERSION)
		return -DTA_E_VERSION;
	n = dta__be16(p + 12);
	if (n == 0 || n > DTA_CURSORS_MAX || dta__be16(p + 14))
		return -DTA_E_MALFORMED;
	size = DTA_CURSORS_SIZE(n);
	if (len < size)
		return -DTA_E_TRUNCATED;
	if (len != size || dta__be32(p + size - 4) != dta_crc32c(0, p, size - 4))
		return -DTA_E_MALFORMED;
	c->structure = dta__be16(p + 6);
	c->first_list = dta__be32(p + 8);
	c->n = (uint16_t)n;
	for (unsigned i = 0; i < n; i++) {
		c->cur[i].next_seq = dta__be32(p + 16 + 8 * i);
		c->cur[i].next_entry = dta__be32(p + 20 + 8 * i);
	}
	return 0;
}
