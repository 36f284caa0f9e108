/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key-Increment epochs (docs/layouts.md "Epochs"): the counters' memory
 * "may be reset periodically" (DTA paper, section 4 "Key-Increment").
 *
 * Epoch e of a structure with epoch length T covers Unix time
 * [e * T, (e + 1) * T); its reports increment bank e % 2 of a two-bank
 * Key-Increment structure. Translators pick the bank from their real-time
 * clock (dta_epoch_at()); the collector closes epoch e a grace period
 * after it ends (dta_epoch_grace_ns()): it copies bank e % 2
 * (dta_ki_copy()), writes the copy's non-zero counters to an epoch file
 * (dta_epoch_write()), and only once that file is durable subtracts the
 * copy from the bank (dta_ki_subtract()), well before the bank is written
 * again at (e + 2) * T.
 *
 * An epoch file is sparse: a header (who, which epoch, the structure's
 * layout) and the non-zero counters of the closed bank as (index, count)
 * records, index = row * width + column, ascending. dta_epoch_read()
 * gives it back; dta_epoch_query() answers a key from it exactly as
 * dta_ki_query() answered it from the bank when the epoch was closed
 * (count-min over the rows). Format (little-endian) in docs/layouts.md.
 */
#ifndef DTA_EPOCH_H
#define DTA_EPOCH_H

#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_EPOCH_NAME_MAX 64      /* collector / structure, with the NUL */
#define DTA_EPOCH_HEADER_SIZE 1024 /* bytes before the first record */
#define DTA_EPOCH_RECORD_SIZE 16   /* u64 index, u64 count */
#define DTA_EPOCH_SUFFIX ".epoch"  /* file names: STRUCTURE.EPOCH.epoch */

/**
 * struct dta_epoch_meta - what an epoch file says about itself.
 * @collector:    dta_config_collector_id() of the collector that closed it.
 * @structure:    the structure (or share) name.
 * @epoch:        epoch number: its start in Unix time / @epoch_len_ns.
 * @epoch_len_ns: T, nanoseconds.
 * @closed_ns:    Unix time the collector copied the bank, nanoseconds.
 * @bank:         the bank it came from (@epoch % 2).
 * @layout:       the structure's layout (two banks; the file holds one).
 * @counters:     non-zero counters (records) in the file.
 * @row0_sum:     the sum of row 0's counters: every increment adds to
 *                exactly one counter per row, so this is the epoch's total
 *                of increments (the sum of every report's value).
 */
struct dta_epoch_meta {
	char collector[DTA_EPOCH_NAME_MAX];
	char structure[DTA_EPOCH_NAME_MAX];
	uint64_t epoch;
	uint64_t epoch_len_ns;
	uint64_t closed_ns;
	unsigned bank;
	struct dta_layout layout;
	uint64_t counters;
	uint64_t row0_sum;
};

/* One non-zero counter of a closed bank. */
struct dta_epoch_counter {
	uint32_t row;
	uint64_t column;
	uint64_t count;
};

struct dta_epoch; /* opaque: an epoch file read back */

/**
 * dta_epoch_at() - the epoch @unix_ns falls in, for epochs of @len_ns.
 * @epoch: receives the epoch number (may be NULL).
 * Return: its bank (epoch % 2), or -EINVAL when @len_ns is 0. Pure.
 */
DTA_API int dta_epoch_at(uint64_t unix_ns, uint64_t len_ns, uint64_t *epoch);

/**
 * dta_epoch_grace_ns() - how long after an epoch ends its collector waits
 * before closing it: min(T / 4, 5 s). Translators' clocks must agree with
 * the collector's within it (NTP). 0 when @len_ns is 0. Pure.
 */
DTA_API uint64_t dta_epoch_grace_ns(uint64_t len_ns);

/**
 * dta_epoch_name() - "STRUCTURE.EPOCH.epoch" into @out.
 * Return: its length, -EINVAL (NULL, empty or over-long structure name),
 * -ENAMETOOLONG (@cap too small).
 */
DTA_API int dta_epoch_name(char *out, size_t cap, const char *structure,
			   uint64_t epoch);

/**
 * dta_ki_copy() - copy bank @bank of a Key-Increment area into @out
 * (rows * width counters, row-major), each counter read atomically.
 * Return: 0, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH (@bank).
 * Thread-safe with writers (their increments land before or after).
 */
DTA_API int dta_ki_copy(const struct dta_layout *l, const void *area,
			unsigned bank, uint64_t *out);

/**
 * dta_ki_subtract() - take @copy (from dta_ki_copy() of the same bank)
 * out of bank @bank, counter by counter with atomic fetch-and-subtract:
 * the reset that loses nothing. Increments that landed after the copy
 * stay in the bank (late ones: they are in the next epoch file of this
 * bank); with no writer, the bank ends all zero, as dta_ki_reset() leaves
 * it.
 * @late: receives the sum of row 0 left in the bank afterwards (the late
 *        increments); may be NULL.
 * Return: 0, -EINVAL, -DTA_E_PRIMITIVE, -DTA_E_MISMATCH. Thread-safe with
 * writers using CPU atomics (the shared-memory sink); RDMA atomics are
 * atomic only among themselves, which is why the collector waits a grace
 * period before it copies and subtracts.
 */
DTA_API int dta_ki_subtract(const struct dta_layout *l, void *area,
			    unsigned bank, const uint64_t *copy,
			    uint64_t *late);

/**
 * dta_epoch_write() - write epoch file @path from @counters (one bank,
 * rows * width counters of @m->layout, e.g. from dta_ki_copy()): header
 * from @m, then every non-zero counter. Durable when it returns 0: a
 * temporary file (mode 0600) in the same directory, fsync, rename over
 * @path, fsync of the directory. Sets @m->counters and @m->row0_sum.
 * Return: 0; -EINVAL (NULL, a name that does not fit, not a two-bank
 * Key-Increment layout, @m->bank not 0 or 1, @m->epoch_len_ns 0); -errno
 * from the file system (nothing is left under @path's name then, except
 * a previous file, untouched).
 */
DTA_API int dta_epoch_write(const char *path, struct dta_epoch_meta *m,
			    const uint64_t *counters);

/**
 * dta_epoch_parse() - check and take an epoch file's bytes.
 * @buf, @len: the whole file; copied.
 * @out: receives the handle (dta_epoch_destroy()).
 * Return: 0; -EINVAL (NULL); -DTA_E_TRUNCATED (shorter than its header or
 * than its records); -DTA_E_BADREGION (magic, header CRC, data CRC,
 * bytes after the records, a layout that is not two-bank Key-Increment,
 * a bank that is not epoch % 2, names not NUL-terminated, records out of
 * order, out of range or zero); -DTA_E_REGIONVERSION; -ENOMEM. Never
 * reads outside @buf.
 */
DTA_API int dta_epoch_parse(const void *buf, size_t len,
			    struct dta_epoch **out);

/* dta_epoch_parse() of the file at @path; also -errno from open/read. */
DTA_API int dta_epoch_read(const char *path, struct dta_epoch **out);

/* NULL is fine. */
DTA_API void dta_epoch_destroy(struct dta_epoch *e);

/* The header; valid while @e lives. */
DTA_API const struct dta_epoch_meta *dta_epoch_meta(const struct dta_epoch *e);

/**
 * dta_epoch_counter() - record @i (0..meta->counters - 1), in index order.
 * Return: 0, -EINVAL, -ERANGE.
 */
DTA_API int dta_epoch_counter(const struct dta_epoch *e, uint64_t i,
			      struct dta_epoch_counter *out);

/**
 * dta_epoch_query() - the count-min estimate of @key in the closed epoch:
 * the minimum over rows of the key's counters (0 where a counter has no
 * record). Equal to dta_ki_query() on the bank the file was written from.
 * Return: 0 with *@out set, -EINVAL. Reads only; thread-safe.
 */
DTA_API int dta_epoch_query(const struct dta_epoch *e, const void *key,
			    size_t key_len, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* DTA_EPOCH_H */
