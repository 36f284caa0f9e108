/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hash functions for slot indices and checksums.
 *
 * Every structure uses a set of hash functions, one per *role* (slot index
 * for redundancy copy n, key checksum, Postcarding value code, Postcarding
 * hop checksum i). Each function is described by a plain, serialisable
 * struct dta_hashfn, which is what region headers and translators record:
 * a switch ASIC's CRC engine can be programmed from it directly.
 *
 * Families generate the functions for all roles from one 64-bit seed:
 *
 *  - DTA_HASH_CRC32C (default): every role is a reflected CRC-32 with its own
 *    polynomial, pairwise coprime, so that for keys of at least 8 bytes the
 *    outputs of two roles are independent (CRT). Role DTA_HF_SLOT(0) uses
 *    the Castagnoli polynomial and runs on the CPU's CRC-32C instruction
 *    (SSE4.2) when present; the others on carry-less multiply (PCLMULQDQ)
 *    when present, on tables otherwise (docs/hashing.md). Functions that share one polynomial and
 *    differ only in init value are affine shifts of each other and make
 *    redundancy useless; see docs/hashing.md.
 *  - DTA_HASH_CRC32: standard CRC-32 for every role with per-role init values,
 *    for switches that only have the standard CRC engine.
 *  - DTA_HASH_PROTOTYPE: the research prototype's Tofino translator, bit for
 *    bit, so memory it wrote can be queried and a collector can serve it
 *    (docs/layouts.md, "Prototype-compatible layouts"). Slot and checksum
 *    roles are standard CRC-32 (the seed is ignored); Postcarding hop roles
 *    0..4 are its five custom polynomials and values are not encoded. The
 *    layouts change their byte formats for this family, not only their
 *    functions, and only the prototype's geometries are accepted.
 *  - DTA_HASH_XXH3: XXH3-64 with per-role seeds, for software-only
 *    deployments that want speed and 64-bit outputs.
 *
 * All functions here are pure and thread-safe once the function is prepared.
 */
#ifndef DTA_HASH_H
#define DTA_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum dta_hash_family {
	DTA_HASH_CRC32C = 1,
	DTA_HASH_CRC32 = 2,
	DTA_HASH_XXH3 = 3,
	DTA_HASH_PROTOTYPE = 4,
};

/* Postcarding hops the prototype family supports (its B). */
#define DTA_PROTOTYPE_HOPS 5

/* Roles: which function of a structure's set computes what. */
#define DTA_MAX_REDUNDANCY 8 /* N, copies per key */
#define DTA_MAX_HOPS 16      /* B, Postcarding hops per chunk */
#define DTA_HF_SLOT(n) (n)   /* slot/chunk/row index for copy n < 8 */
#define DTA_HF_CHECKSUM 8    /* Key-Write key checksum */
#define DTA_HF_VALUE 9       /* Postcarding value code g(v) */
#define DTA_HF_HOP(i) (10 + (i)) /* Postcarding checksum(x, i), i < 16 */
#define DTA_HF_COUNT 26

struct dta_crc_tables; /* private, see struct dta_hashfn */

enum dta_hashfn_kind {
	DTA_HASHFN_NONE = 0,
	DTA_HASHFN_CRC32 = 1, /* reflected CRC-32, any polynomial */
	DTA_HASHFN_XXH3 = 2,  /* XXH3_64bits_withSeed */
};

/**
 * struct dta_hashfn - one hash function, as a switch's CRC engine sees it.
 * @kind:   enum dta_hashfn_kind.
 * @poly:   CRC polynomial in normal (MSB-first) notation, x^32 implicit,
 *          e.g. 0x1EDC6F41 for CRC-32C. Input and output are reflected.
 * @init:   CRC register value before the first byte.
 * @xorout: value XORed into the register after the last byte.
 * @seed:   XXH3 seed (DTA_HASHFN_XXH3 only).
 * @tab:    private: the polynomial's tables and carry-less multiply
 *          constants, set by dta_hashfn_prepare(). Not part of the
 *          serialised form.
 *
 * With init = xorout = 0xFFFFFFFF this is the usual zlib/iSCSI convention:
 * CRC-32C("123456789") = 0xE3069283 and CRC-32("123456789") = 0xCBF43926.
 */
struct dta_hashfn {
	uint8_t kind;
	uint32_t poly;
	uint32_t init;
	uint32_t xorout;
	uint64_t seed;
	const struct dta_crc_tables *tab;
};

/**
 * dta_crc32c() - CRC-32C (Castagnoli), zlib-style running API.
 * @crc: 0 to start, or the previous return value to continue.
 *
 * Uses the CPU instruction when available, carry-less multiply or a table
 * otherwise; all give the same results. Return: the CRC. Thread-safe.
 */
DTA_API uint32_t dta_crc32c(uint32_t crc, const void *buf, size_t len);

/* Portable table implementation of dta_crc32c(), exported for tests. */
DTA_API uint32_t dta_crc32c_sw(uint32_t crc, const void *buf, size_t len);

/* True if dta_crc32c() runs on a CPU instruction on this machine. */
DTA_API bool dta_crc32c_hw_available(void);

/**
 * dta_crc32() - standard CRC-32 (IEEE 802.3, zlib), running API as above.
 */
DTA_API uint32_t dta_crc32(uint32_t crc, const void *buf, size_t len);

/**
 * dta_hash_family_fn() - the function a family uses for a role.
 * @family: enum dta_hash_family.
 * @seed:   the structure's seed.
 * @role:   DTA_HF_* role, < DTA_HF_COUNT.
 * @out:    filled and prepared (ready for dta_hashfn_eval()).
 *
 * Return: 0, -DTA_E_HASHFAMILY for an unknown family, -EINVAL for a bad role
 * or NULL @out, -ENOMEM if tables cannot be allocated.
 */
DTA_API int dta_hash_family_fn(int family, uint64_t seed, unsigned role,
			       struct dta_hashfn *out);

/**
 * dta_hashfn_prepare() - attach the tables and carry-less multiply
 * constants of its polynomial to a function read from a region header or
 * the network, and choose the fastest path for this CPU.
 *
 * They are shared per polynomial and live until the process exits.
 * Return: 0, -EINVAL for an unknown kind or NULL @fn, -ENOMEM.
 * Thread-safe.
 */
DTA_API int dta_hashfn_prepare(struct dta_hashfn *fn);

/**
 * dta_hashfn_eval() - hash @len bytes at @buf.
 * @fn: a prepared function.
 *
 * Return: the hash; CRC functions give 32-bit values zero-extended.
 * Thread-safe. Calling it on an unprepared function is a contract violation.
 */
DTA_API uint64_t dta_hashfn_eval(const struct dta_hashfn *fn, const void *buf,
				 size_t len);

/**
 * dta_hashfn_eval_n() - hash @n keys of @len bytes each.
 * @fn:     a prepared function.
 * @keys:   the first key; key i starts at @keys + i * @stride (any alignment;
 *          @stride may be smaller than @len, keys may overlap).
 * @out:    @n results, out[i] = dta_hashfn_eval(@fn, key i, @len); must not
 *          overlap the keys.
 *
 * The same values as @n calls of dta_hashfn_eval(), with the choice of
 * implementation made once for the batch. @n = 0 touches nothing.
 * Thread-safe.
 */
DTA_API void dta_hashfn_eval_n(const struct dta_hashfn *fn, const void *keys,
			       size_t stride, size_t len, size_t n,
			       uint64_t *out);

/* Name of a family ("crc32c", "crc32", "xxh3", "prototype") or NULL; and
 * back (<0: error). */
DTA_API const char *dta_hash_family_name(int family);
DTA_API int dta_hash_family_parse(const char *name);

/* Initial CRC-32C state of the shard function (see dta_shard()). */
#define DTA_SHARD_INIT 0x9E3779B9u

/**
 * dta_shard() - which of @nshards collectors holds @key when a structure is
 * partitioned by key (docs/config.md, "Several collectors"): CRC-32C of the
 * key continued from state DTA_SHARD_INIT (a CRC engine with that initial
 * value computes it), modulo @nshards. Independent of every structure's own
 * hash functions, so a collector's share spreads over all its slots.
 * Return: 0 .. @nshards - 1 (0 when @nshards <= 1).
 */
DTA_API unsigned dta_shard(const void *key, size_t len, unsigned nshards);

#ifdef __cplusplus
}
#endif
#endif /* DTA_HASH_H */
