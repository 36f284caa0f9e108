/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Layout descriptors: the geometry and hash functions of one structure.
 *
 * A struct dta_layout says everything needed to write into or query a
 * structure's memory: which primitive, how the data area is carved up and
 * which hash function serves each role. It is what a region header stores
 * (dta_layout_encode()) and what a collector hands to translators.
 *
 * Memory formats (docs/layouts.md):
 *  Key-Write     slots[slots] of {checksum (csum_bytes, BE), data[data_len]}
 *  Postcarding   chunks[chunks] of {hops x slot_bytes (BE), zero padding},
 *                chunk_size = next power of two of hops * slot_bytes
 *  Append        lists[lists] x ring of ring_batches frames; a frame is
 *                {header 8 B, batch_entries x entry_size, trailer 8 B}
 *  Key-Increment banks x rows x width 64-bit counters, host byte order
 *                (RDMA fetch-and-add works on the responder's native order)
 */
#ifndef DTA_LAYOUT_H
#define DTA_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/hash.h"

#ifdef __cplusplus
extern "C" {
#endif

enum dta_primitive {
	DTA_PRIM_KEY_WRITE = 1, /* same values as the wire opcodes */
	DTA_PRIM_APPEND = 2,
	DTA_PRIM_KEY_INCREMENT = 3,
	DTA_PRIM_POSTCARD = 4,
};

/* Append frame header and trailer sizes (see docs/layouts.md). */
#define DTA_AP_FRAME_OVERHEAD 16
/* Append layout flag: the trailer is written by a second, separate memory
 * operation (for NICs that do not place a WRITE in address order). */
#define DTA_AP_SEPARATE_TRAILER 0x01

#define DTA_KW_DEFAULT_REDUNDANCY 4 /* max N a query assumes by default */

struct dta_layout {
	uint8_t primitive;   /* enum dta_primitive */
	uint8_t hash_family; /* enum dta_hash_family the functions came from */
	uint64_t hash_seed;
	uint64_t data_size; /* bytes of the data area, derived */
	union {
		struct {
			uint64_t slots;
			uint32_t slot_size; /* csum_bytes + data_len */
			uint16_t data_len;
			uint8_t csum_bytes; /* 1, 2, 4 or 8 */
			uint8_t max_redundancy;
		} kw;
		struct {
			uint64_t chunks;
			uint32_t chunk_size; /* power of two */
			uint8_t hops;        /* B */
			uint8_t slot_bytes;  /* b / 8: 1, 2 or 4 */
			uint8_t redundancy;  /* N */
		} pc;
		struct {
			uint32_t lists;
			uint32_t ring_batches;  /* frames per list */
			uint32_t frame_size;    /* 16 + batch_entries * entry_size, 8-aligned */
			uint16_t batch_entries; /* K */
			uint16_t entry_size;
			uint8_t flags; /* DTA_AP_* */
		} ap;
		struct {
			uint64_t width; /* counters per row */
			uint8_t rows;   /* N */
			uint8_t banks;  /* 1, or 2 for epoch double-buffering */
		} ki;
	} g;
	/* Functions by role (DTA_HF_*); unused roles have kind NONE. */
	struct dta_hashfn fn[DTA_HF_COUNT];
};

/**
 * dta_layout_kw() - describe a Key-Write structure.
 * @l:        filled in.
 * @slots:    number of slots, 1..2^32 for 32-bit hash families.
 * @data_len: bytes of data per key, 1..DTA_DATA_MAX.
 * @csum_bytes: key checksum width: 1, 2, 4 (default) or 8 (8 needs XXH3).
 * @max_redundancy: largest N writers may use and queries assume by default,
 *          1..DTA_MAX_REDUNDANCY.
 * @family, @seed: hash family and seed.
 *
 * Return: 0, -EINVAL for an out-of-range parameter, -DTA_E_HASHFAMILY,
 * -ENOMEM. The same contract holds for the other dta_layout_*() below.
 */
DTA_API int dta_layout_kw(struct dta_layout *l, uint64_t slots,
			  unsigned data_len, unsigned csum_bytes,
			  unsigned max_redundancy, int family, uint64_t seed);

/**
 * dta_layout_pc() - describe a Postcarding structure.
 * @chunks:     number of chunks C.
 * @hops:       B, 1..DTA_MAX_HOPS.
 * @slot_bytes: b/8, 1, 2 or 4.
 * @redundancy: N chunks per flow, 1..DTA_MAX_REDUNDANCY.
 */
DTA_API int dta_layout_pc(struct dta_layout *l, uint64_t chunks,
			  unsigned hops, unsigned slot_bytes,
			  unsigned redundancy, int family, uint64_t seed);

/**
 * dta_layout_ap() - describe an Append structure.
 * @lists:         number of lists, >= 1.
 * @ring_batches:  frames per list ring, >= 2.
 * @batch_entries: K, entries per frame, 1..1024.
 * @entry_size:    bytes per entry, 1..DTA_DATA_MAX.
 * @flags:         DTA_AP_*.
 * Append uses no hash functions (@family is recorded only).
 */
DTA_API int dta_layout_ap(struct dta_layout *l, uint32_t lists,
			  uint32_t ring_batches, unsigned batch_entries,
			  unsigned entry_size, unsigned flags);

/**
 * dta_layout_ki() - describe a Key-Increment (count-min) structure.
 * @width: counters per row.
 * @rows:  N, 1..DTA_MAX_REDUNDANCY; every update touches all rows.
 * @banks: 1, or 2 to let a collector read/reset one epoch while the other
 *         is written.
 */
DTA_API int dta_layout_ki(struct dta_layout *l, uint64_t width,
			  unsigned rows, unsigned banks, int family,
			  uint64_t seed);

/* Serialised size of a layout descriptor (fixed). */
#define DTA_LAYOUT_WIRE_SIZE 768

/**
 * dta_layout_encode() - serialise @l (little-endian, versioned, with a
 * CRC-32C over the whole) into exactly DTA_LAYOUT_WIRE_SIZE bytes at @buf.
 * Return: DTA_LAYOUT_WIRE_SIZE, -EINVAL, -ENOSPC.
 */
DTA_API int dta_layout_encode(const struct dta_layout *l, void *buf,
			      size_t cap);

/**
 * dta_layout_decode() - parse and validate a serialised layout; prepares its
 * hash functions.
 * Return: 0, -DTA_E_TRUNCATED, -DTA_E_BADREGION (bad magic, CRC or
 * geometry), -DTA_E_REGIONVERSION, -ENOMEM.
 */
DTA_API int dta_layout_decode(const void *buf, size_t len,
			      struct dta_layout *l);

/* "key-write", "append", "key-increment", "postcard" or NULL. */
DTA_API const char *dta_primitive_name(int primitive);
/* Inverse of dta_primitive_name(); also accepts "kw", "ap", "ki", "pc". */
DTA_API int dta_primitive_parse(const char *name);

/* ---- memory operations: what a writer (translator) emits ---- */

enum dta_memop_kind {
	DTA_MEMOP_WRITE = 1,
	DTA_MEMOP_FETCH_ADD = 2, /* 64-bit, 8-byte aligned, host order */
};

/**
 * struct dta_memop - one memory operation on a structure's data area.
 * @offset: byte offset into the data area.
 * @len:    bytes written (WRITE) or 8 (FETCH_ADD).
 * @data:   WRITE source, owned by the caller of the op builder.
 * @add:    FETCH_ADD operand.
 */
struct dta_memop {
	uint8_t kind;
	uint32_t len;
	uint64_t offset;
	const void *data;
	uint64_t add;
};

/**
 * dta_memops_apply() - perform operations on local memory (a shared-memory
 * sink, tests, benchmarks).
 * @area: the data area; @size: its bytes.
 *
 * WRITEs become visible in ascending address order at 8-byte granularity
 * (first 8 bytes, then the middle, then the last 8 bytes, separated by
 * release fences), the order an RDMA NIC places a WRITE in, which the Append
 * reader relies on. FETCH_ADDs are atomic.
 *
 * Return: number applied, or -DTA_E_RANGE (nothing applied) if any op lies
 * outside [0, @size) or a FETCH_ADD is misaligned; -EINVAL for bad kinds.
 * Thread-safe with respect to other appliers and readers.
 */
DTA_API int dta_memops_apply(void *area, uint64_t size,
			     const struct dta_memop *ops, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* DTA_LAYOUT_H */
