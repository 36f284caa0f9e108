/* SPDX-License-Identifier: BSD-3-Clause */
/* Internals shared between libdta's .c files (dta__ names). */
#ifndef DTA_INTERNAL_H
#define DTA_INTERNAL_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "dta/common.h"

#if defined(__GNUC__)
#define DTA__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define DTA__LIKELY(x) __builtin_expect(!!(x), 1)
#define DTA__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define DTA__PRINTF(a, b)
#define DTA__LIKELY(x) (x)
#define DTA__UNLIKELY(x) (x)
#endif

void dta__log(enum dta_log_level level, const char *fmt, ...) DTA__PRINTF(2, 3);

/* Set client @c's error message (dta_client_error()); returns @code. */
struct dta_client;
int dta__client_fail(struct dta_client *c, int code, const char *fmt, ...)
	DTA__PRINTF(3, 4);

/* A region's notification sequence word, shared between processes
 * (region.c), or NULL (version-1 regions, snapshot files; read-only
 * mappings when @write). */
struct dta_region;
_Atomic uint32_t *dta__region_notify_word(const struct dta_region *r,
					  int write);

/* Write all @len bytes at @buf to @fd (retrying short writes and EINTR):
 * 0 or a negative errno (-EIO when the file takes no more). */
int dta__write_all(int fd, const void *buf, size_t len);

/*
 * A file replaced whole (file.c): dta__file_begin() opens a temporary file
 * beside @path, mode 0600 whatever the umask, positioned after
 * @header_size bytes left for the header; the caller writes the body to
 * @f->fd; dta__file_commit() writes the header at offset 0, syncs, renames
 * the file over @path and syncs its directory. Both return 0 or a negative
 * errno; on failure the temporary file is gone (dta__file_commit() and
 * dta__file_begin() clean up themselves, dta__file_abort() is for the
 * caller's own failures in between).
 */
struct dta__file_tmp {
	char *tmp;
	int fd;
};
int dta__file_begin(const char *path, size_t header_size,
		    struct dta__file_tmp *f);
int dta__file_commit(struct dta__file_tmp *f, const char *path,
		     const void *hdr, size_t hdr_len);
void dta__file_abort(struct dta__file_tmp *f);

/* Bank @bank's counters of Key-Increment layout @l in @area (rows x
 * width, row-major; keyincr.c), or NULL with *@err -EINVAL (no @l or
 * @area), -DTA_E_PRIMITIVE or -DTA_E_MISMATCH (no such bank). */
struct dta_layout;
uint64_t *dta__ki_bank(const struct dta_layout *l, const void *area,
		       unsigned bank, int *err);

/* Lowercase hex of @len bytes at @p into @out (2 * @len chars, no NUL). */
void dta__hex_put(char *out, const void *p, size_t len);
/* @n hex digits at @s into @out (@n / 2 bytes): their count, or -1 when
 * @n is odd or a character is not a hex digit. */
int dta__hex_decode(const char *s, size_t n, uint8_t *out);

/* Big-endian load/store of 1..8 byte fields. */
static inline uint64_t dta__get_be(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = (v << 8) | p[i];
	return v;
}

static inline void dta__put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = bytes; i-- > 0;) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static inline uint16_t dta__be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t dta__be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t dta__be64(const uint8_t *p)
{
	return (uint64_t)dta__be32(p) << 32 | dta__be32(p + 4);
}

static inline void dta__put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void dta__put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void dta__put_be64(uint8_t *p, uint64_t v)
{
	dta__put_be32(p, (uint32_t)(v >> 32));
	dta__put_be32(p + 4, (uint32_t)v);
}

/* Little-endian helpers for the host-side region header. */
static inline void dta__put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static inline uint64_t dta__get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

/* Index in [0, m) from a hash value: mask for powers of two, else modulo. */
static inline uint64_t dta__reduce(uint64_t h, uint64_t m)
{
	return (m & (m - 1)) == 0 ? (h & (m - 1)) : (h % m);
}

#endif /* DTA_INTERNAL_H */
