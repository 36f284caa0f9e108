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

/*
 * dta__reduce() without a division for the 32-bit hash families: @fm from
 * dta__fastmod_init(@m) once per structure, then h mod m for h < 2^32 is
 * one multiply (Lemire, Kaser, Kurz, "Faster remainder by direct
 * computation", 2019: exact for 32-bit h and m). @fm = 0: dta__reduce().
 */
static inline uint64_t dta__fastmod_init(uint64_t m)
{
	return (m & (m - 1)) && m < (1ull << 32) ? UINT64_MAX / m + 1 : 0;
}

static inline uint64_t dta__reduce_fm(uint64_t h, uint64_t m, uint64_t fm)
{
	if (fm && !(h >> 32))
		return (uint64_t)(((unsigned __int128)(fm * h) * m) >> 64);
	return dta__reduce(h, m);
}

struct dta_hashfn;
struct dta_layout;
struct dta_memop;

/* out[i] = dta_hashfn_eval(fn[i], key, len) for i < n (hash.c): one key
 * through several roles, loaded once, no call per role for CRC keys of
 * 9..16 bytes. */
void dta__hashfn_eval_fns(const struct dta_hashfn *const *fn, unsigned n,
			  const void *key, size_t len, uint64_t *out);

/*
 * Up to four roles of one key in one 512-bit carry-less multiply, a role
 * per 128-bit lane (hash.c): the constants of each role's polynomial and
 * register, for keys of 4..16 bytes. Usable when dta__hash_lanes_init()
 * returned 0 (the CPU has VPCLMULQDQ and AVX-512, every role is a CRC).
 */
#define DTA__LANES 4
struct dta__hash_lanes {
	uint64_t kr[8]; /* read unaligned: the holder may be calloc()ed */
	uint64_t kp[8];
	uint32_t xo[4];
	uint64_t cz[13][8]; /* the registers for keys of 4 + i bytes */
	unsigned n;
};
int dta__hash_lanes_init(struct dta__hash_lanes *h,
			 const struct dta_hashfn *const *fn, unsigned n);
/* out[i] = dta_hashfn_eval(fn[i], key, len) for the @h->n roles, for
 * 4 <= @len <= 16; @out has room for DTA__LANES. */
void dta__hash_lanes_eval(const struct dta__hash_lanes *h, const void *key,
			  size_t len, uint64_t *out);

/* dta_kw_ops() for the translator's per-report loop (keywrite.c): the
 * same operations and return values, for a report routed to @l by its
 * data length (@data_len is l->g.kw.data_len), @slotbuf with room for a
 * slot and @ops for DTA_MAX_REDUNDANCY; @fm = dta__fastmod_init(slots);
 * @hl from dta__kw_lanes_init(), or NULL. */
int dta__kw_ops_fast(const struct dta_layout *l, uint64_t fm,
		     const struct dta__hash_lanes *hl, const void *key,
		     size_t key_len, const void *data, unsigned redundancy,
		     uint8_t *slotbuf, struct dta_memop *ops);
/* The lanes dta__kw_ops_fast() uses for @l: its checksum role, then its
 * slot roles; -ENOTSUP when they do not fit or the CPU cannot. */
int dta__kw_lanes_init(const struct dta_layout *l, struct dta__hash_lanes *hl);

/* dta_ki_ops() likewise (keyincr.c), @ops with room for
 * DTA_MAX_REDUNDANCY, @fm = dta__fastmod_init(width), @hl from
 * dta__ki_lanes_init() (its row roles) or NULL. */
int dta__ki_ops_fast(const struct dta_layout *l, uint64_t fm,
		     const struct dta__hash_lanes *hl, const void *key,
		     size_t key_len, uint64_t add, unsigned bank,
		     struct dta_memop *ops);
int dta__ki_lanes_init(const struct dta_layout *l, struct dta__hash_lanes *hl);

#endif /* DTA_INTERNAL_H */
