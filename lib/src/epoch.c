/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key-Increment epochs: bank selection and the epoch file (dta/epoch.h,
 * docs/layouts.md "Epochs").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dta/epoch.h"
#include "dta/hash.h"
#include "dta/keyincr.h"
#include "dta/wire.h"
#include "internal.h"

#define EPOCH_VERSION 1
static const char epoch_magic[8] = { 'D', 'T', 'A', 'E', 'P', 'O', 'C', 'H' };

/* Header fields (little-endian), DTA_EPOCH_HEADER_SIZE bytes in all. */
enum {
	H_MAGIC = 0,
	H_VERSION = 8,
	H_HDR_CRC = 12, /* CRC-32C of the header with this field 0 */
	H_EPOCH = 16,
	H_LEN_NS = 24,
	H_CLOSED_NS = 32,
	H_COUNTERS = 40,
	H_ROW0_SUM = 48,
	H_BANK = 56,
	H_DATA_CRC = 60, /* CRC-32C of the records */
	H_COLLECTOR = 64,
	H_STRUCTURE = H_COLLECTOR + DTA_EPOCH_NAME_MAX,
	H_LAYOUT = H_STRUCTURE + DTA_EPOCH_NAME_MAX,
	H_END = H_LAYOUT + DTA_LAYOUT_WIRE_SIZE, /* zeros up to the size */
};
static_assert(H_END <= DTA_EPOCH_HEADER_SIZE, "epoch header fits");

#define GRACE_MAX_NS 5000000000ull
#define WRITE_CHUNK 4096 /* records buffered per write() */

struct dta_epoch {
	struct dta_epoch_meta m;
	uint64_t *index; /* m.counters record indexes, ascending */
	uint64_t *count;
};

DTA_API int dta_epoch_at(uint64_t unix_ns, uint64_t len_ns, uint64_t *epoch)
{
	uint64_t e;

	if (!len_ns)
		return -EINVAL;
	e = unix_ns / len_ns;
	if (epoch)
		*epoch = e;
	return (int)(e % 2);
}

DTA_API uint64_t dta_epoch_grace_ns(uint64_t len_ns)
{
	uint64_t g = len_ns / 4;

	return g < GRACE_MAX_NS ? g : GRACE_MAX_NS;
}

DTA_API int dta_epoch_name(char *out, size_t cap, const char *structure,
			   uint64_t epoch)
{
	int n;

	if (!out || !structure || !structure[0] ||
	    strlen(structure) >= DTA_EPOCH_NAME_MAX || strchr(structure, '/'))
		return -EINVAL;
	n = snprintf(out, cap, "%s.%" PRIu64 "%s", structure, epoch,
		     DTA_EPOCH_SUFFIX);
	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	return n;
}

DTA_API int dta_ki_copy(const struct dta_layout *l, const void *area,
			unsigned bank, uint64_t *out)
{
	const uint64_t *c;
	uint64_t n;
	int err;

	c = dta__ki_bank(l, area, bank, &err);
	if (!c)
		return err;
	if (!out)
		return -EINVAL;
	n = (uint64_t)l->g.ki.rows * l->g.ki.width;
	for (uint64_t i = 0; i < n; i++)
		out[i] = __atomic_load_n(&c[i], __ATOMIC_RELAXED);
	return 0;
}

DTA_API int dta_ki_subtract(const struct dta_layout *l, void *area,
			    unsigned bank, const uint64_t *copy,
			    uint64_t *late)
{
	uint64_t *c, n, left = 0;
	int err;

	c = dta__ki_bank(l, area, bank, &err);
	if (!c)
		return err;
	if (!copy)
		return -EINVAL;
	n = (uint64_t)l->g.ki.rows * l->g.ki.width;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t was = copy[i] ? __atomic_fetch_sub(&c[i], copy[i],
							    __ATOMIC_RELAXED)
				       : __atomic_load_n(&c[i],
							 __ATOMIC_RELAXED);

		if (i < l->g.ki.width)
			left += was - copy[i];
	}
	if (late)
		*late = left;
	return 0;
}

static bool meta_ok(const struct dta_epoch_meta *m)
{
	return m->layout.primitive == DTA_PRIM_KEY_INCREMENT &&
	       m->layout.g.ki.banks == 2 && m->layout.g.ki.rows >= 1 &&
	       m->layout.g.ki.width >= 1 && m->epoch_len_ns &&
	       m->bank == m->epoch % 2 &&
	       memchr(m->collector, 0, DTA_EPOCH_NAME_MAX) &&
	       memchr(m->structure, 0, DTA_EPOCH_NAME_MAX) &&
	       m->structure[0];
}

/* The records: every non-zero counter, ascending index. */
static int write_records(int fd, struct dta_epoch_meta *m,
			 const uint64_t *counters, uint32_t *crc)
{
	uint8_t buf[WRITE_CHUNK * DTA_EPOCH_RECORD_SIZE];
	uint64_t n = (uint64_t)m->layout.g.ki.rows * m->layout.g.ki.width;
	size_t used = 0;
	int err;

	m->counters = 0;
	m->row0_sum = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (!counters[i])
			continue;
		dta__put_le(buf + used, i, 8);
		dta__put_le(buf + used + 8, counters[i], 8);
		used += DTA_EPOCH_RECORD_SIZE;
		m->counters++;
		if (i < m->layout.g.ki.width)
			m->row0_sum += counters[i];
		if (used == sizeof(buf)) {
			*crc = dta_crc32c(*crc, buf, used);
			err = dta__write_all(fd, buf, used);
			if (err)
				return err;
			used = 0;
		}
	}
	*crc = dta_crc32c(*crc, buf, used);
	return dta__write_all(fd, buf, used);
}

static void header_encode(const struct dta_epoch_meta *m, uint32_t data_crc,
			  uint8_t *h)
{
	memset(h, 0, DTA_EPOCH_HEADER_SIZE);
	memcpy(h + H_MAGIC, epoch_magic, sizeof(epoch_magic));
	dta__put_le(h + H_VERSION, EPOCH_VERSION, 4);
	dta__put_le(h + H_EPOCH, m->epoch, 8);
	dta__put_le(h + H_LEN_NS, m->epoch_len_ns, 8);
	dta__put_le(h + H_CLOSED_NS, m->closed_ns, 8);
	dta__put_le(h + H_COUNTERS, m->counters, 8);
	dta__put_le(h + H_ROW0_SUM, m->row0_sum, 8);
	dta__put_le(h + H_BANK, m->bank, 4);
	dta__put_le(h + H_DATA_CRC, data_crc, 4);
	memcpy(h + H_COLLECTOR, m->collector, strlen(m->collector));
	memcpy(h + H_STRUCTURE, m->structure, strlen(m->structure));
	dta_layout_encode(&m->layout, h + H_LAYOUT, DTA_LAYOUT_WIRE_SIZE);
	dta__put_le(h + H_HDR_CRC, dta_crc32c(0, h, DTA_EPOCH_HEADER_SIZE), 4);
}

DTA_API int dta_epoch_write(const char *path, struct dta_epoch_meta *m,
			    const uint64_t *counters)
{
	uint8_t hdr[DTA_EPOCH_HEADER_SIZE];
	struct dta__file_tmp f;
	uint32_t crc = 0;
	int err;

	if (!path || !path[0] || !m || !counters || !meta_ok(m) ||
	    m->bank > 1)
		return -EINVAL;
	/* The file is the epoch's only copy once the bank is reset: the
	 * owner's alone (dta__file_begin()). */
	err = dta__file_begin(path, DTA_EPOCH_HEADER_SIZE, &f);
	if (err)
		return err;
	err = write_records(f.fd, m, counters, &crc);
	if (err) {
		dta__file_abort(&f);
		return err;
	}
	header_encode(m, crc, hdr);
	return dta__file_commit(&f, path, hdr, sizeof(hdr));
}

DTA_API int dta_epoch_parse(const void *buf, size_t len,
			    struct dta_epoch **out)
{
	const uint8_t *p = buf, *r;
	uint8_t h[DTA_EPOCH_HEADER_SIZE];
	struct dta_epoch *e;
	uint64_t total, sum = 0, prev = 0;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!buf)
		return -EINVAL;
	if (len < DTA_EPOCH_HEADER_SIZE)
		return -DTA_E_TRUNCATED;
	if (memcmp(p + H_MAGIC, epoch_magic, sizeof(epoch_magic)))
		return -DTA_E_BADREGION;
	if (dta__get_le(p + H_VERSION, 4) != EPOCH_VERSION)
		return -DTA_E_REGIONVERSION;
	memcpy(h, p, sizeof(h));
	memset(h + H_HDR_CRC, 0, 4);
	if (dta_crc32c(0, h, sizeof(h)) != dta__get_le(p + H_HDR_CRC, 4))
		return -DTA_E_BADREGION;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->m.epoch = dta__get_le(p + H_EPOCH, 8);
	e->m.epoch_len_ns = dta__get_le(p + H_LEN_NS, 8);
	e->m.closed_ns = dta__get_le(p + H_CLOSED_NS, 8);
	e->m.counters = dta__get_le(p + H_COUNTERS, 8);
	e->m.row0_sum = dta__get_le(p + H_ROW0_SUM, 8);
	e->m.bank = (unsigned)dta__get_le(p + H_BANK, 4);
	memcpy(e->m.collector, p + H_COLLECTOR, DTA_EPOCH_NAME_MAX);
	memcpy(e->m.structure, p + H_STRUCTURE, DTA_EPOCH_NAME_MAX);
	err = dta_layout_decode(p + H_LAYOUT, DTA_LAYOUT_WIRE_SIZE,
				&e->m.layout);
	if (err == -DTA_E_TRUNCATED)
		err = -DTA_E_BADREGION;
	if (err)
		goto err_free;
	err = -DTA_E_BADREGION;
	if (!meta_ok(&e->m))
		goto err_free;
	total = (uint64_t)e->m.layout.g.ki.rows * e->m.layout.g.ki.width;
	if (e->m.counters > (len - DTA_EPOCH_HEADER_SIZE) /
				    DTA_EPOCH_RECORD_SIZE) {
		err = -DTA_E_TRUNCATED;
		goto err_free;
	}
	if (e->m.counters * DTA_EPOCH_RECORD_SIZE !=
		    len - DTA_EPOCH_HEADER_SIZE ||
	    e->m.counters > total)
		goto err_free;
	r = p + DTA_EPOCH_HEADER_SIZE;
	if (dta_crc32c(0, r, len - DTA_EPOCH_HEADER_SIZE) !=
	    dta__get_le(p + H_DATA_CRC, 4))
		goto err_free;
	e->index = malloc((size_t)(e->m.counters ? e->m.counters : 1) * 8);
	e->count = malloc((size_t)(e->m.counters ? e->m.counters : 1) * 8);
	if (!e->index || !e->count) {
		err = -ENOMEM;
		goto err_free;
	}
	for (uint64_t i = 0; i < e->m.counters; i++, r += DTA_EPOCH_RECORD_SIZE) {
		uint64_t idx = dta__get_le(r, 8), cnt = dta__get_le(r + 8, 8);

		if (idx >= total || (i && idx <= prev) || !cnt)
			goto err_free;
		if (idx < e->m.layout.g.ki.width)
			sum += cnt;
		e->index[i] = prev = idx;
		e->count[i] = cnt;
	}
	if (sum != e->m.row0_sum)
		goto err_free;
	*out = e;
	return 0;

err_free:
	dta_epoch_destroy(e);
	return err;
}

DTA_API int dta_epoch_read(const char *path, struct dta_epoch **out)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;
	int fd, err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		err = -errno;
		goto err_close;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto err_close;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		err = -ENOMEM;
		goto err_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -DTA_E_TRUNCATED;
			goto err_free;
		}
		got += (size_t)n;
	}
	err = dta_epoch_parse(buf, got, out);
err_free:
	free(buf);
err_close:
	close(fd);
	return err;
}

DTA_API void dta_epoch_destroy(struct dta_epoch *e)
{
	if (!e)
		return;
	free(e->index);
	free(e->count);
	free(e);
}

DTA_API const struct dta_epoch_meta *dta_epoch_meta(const struct dta_epoch *e)
{
	return e ? &e->m : NULL;
}

DTA_API int dta_epoch_counter(const struct dta_epoch *e, uint64_t i,
			      struct dta_epoch_counter *out)
{
	if (!e || !out)
		return -EINVAL;
	if (i >= e->m.counters)
		return -ERANGE;
	out->row = (uint32_t)(e->index[i] / e->m.layout.g.ki.width);
	out->column = e->index[i] % e->m.layout.g.ki.width;
	out->count = e->count[i];
	return 0;
}

/* The count at record index @idx, 0 when it has no record. */
static uint64_t lookup(const struct dta_epoch *e, uint64_t idx)
{
	uint64_t lo = 0, hi = e->m.counters;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (e->index[mid] < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->m.counters && e->index[lo] == idx ? e->count[lo] : 0;
}

DTA_API int dta_epoch_query(const struct dta_epoch *e, const void *key,
			    size_t key_len, uint64_t *out)
{
	uint64_t min = UINT64_MAX;

	if (!e || !key || !key_len || key_len > DTA_KEY_MAX || !out)
		return -EINVAL;
	for (unsigned r = 0; r < e->m.layout.g.ki.rows; r++) {
		uint64_t v = lookup(e, (uint64_t)r * e->m.layout.g.ki.width +
				       dta_ki_index(&e->m.layout, key, key_len,
						    r));

		if (v < min)
			min = v;
	}
	*out = min;
	return 0;
}
