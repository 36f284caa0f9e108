/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Structure descriptions a collector sends to the translators it accepts:
 * for every structure, where it lives in the collector's memory and how it
 * is laid out, so a translator can write into it with RDMA. The format is
 * described in docs/rdma.md.
 */
#ifndef DTA_META_H
#define DTA_META_H

#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"
#include "dta/config.h"
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_META_MAGIC 0x4454414Du /* "DTAM" */
#define DTA_META_VERSION 1
#define DTA_META_SIZE 860 /* bytes of one encoded description */
/*
 * Notifications over RDMA (docs/rdma.md "Notifications"): a collector that
 * posts receives for RDMA WRITE WITH IMMEDIATE (immediate data: the
 * structure's @index, big-endian) accepts a translator's connection with
 * these 4 bytes, big-endian, at the start of the rdma_cm private data. A
 * translator sends writes with immediate only to collectors that did, so
 * neither side's older version stalls the other.
 */
#define DTA_META_ACCEPT_NOTIFY 0x44544E31u /* "DTN1" */

/**
 * struct dta_meta - one structure as a translator needs to know it.
 * @index, @count: this is structure @index of @count the collector offers.
 * @name:      the structure's name (configuration section name).
 * @addr:      remote virtual address of the structure's data area.
 * @rkey:      remote key of the memory region registered for it.
 * @length:    bytes of the data area (== @layout.data_size).
 * @list_base: Append: report list id of list 0.
 * @layout:    geometry and hash functions.
 */
struct dta_meta {
	uint16_t index;
	uint16_t count;
	char name[DTA_CONFIG_NAME_MAX];
	uint64_t addr;
	uint32_t rkey;
	uint64_t length;
	uint32_t list_base;
	struct dta_layout layout;
};

/**
 * dta_meta_encode() - serialise @m into DTA_META_SIZE bytes (big-endian,
 * CRC-32C protected).
 * Return: DTA_META_SIZE, -EINVAL (bad fields: index >= count, name not
 * terminated or empty, length not the layout's data size), -ENOSPC.
 */
DTA_API int dta_meta_encode(const struct dta_meta *m, void *buf, size_t cap);

/**
 * dta_meta_decode() - parse and validate one description.
 * Return: 0; -DTA_E_TRUNCATED; -DTA_E_MALFORMED (bad magic, CRC, fields or
 * inconsistent length); -DTA_E_VERSION; or dta_layout_decode()'s errors.
 */
DTA_API int dta_meta_decode(const void *buf, size_t len, struct dta_meta *m);

/*
 * Append cursors: after the descriptions, for every Append structure, the
 * collector sends where each list's writer should continue (the newest
 * batch stored, dta_ap_cursor_recover()), so a translator that starts while
 * the rings hold batches writes after them. Lists are sent in runs of at
 * most DTA_CURSORS_MAX per message.
 */
#define DTA_CURSORS_MAGIC 0x44544143u /* "DTAC" */
#define DTA_CURSORS_MAX 508
#define DTA_CURSORS_SIZE(n) (20 + 8 * (size_t)(n)) /* encoded bytes */

struct dta_ap_cursor;

struct dta_meta_cursors {
	uint16_t structure;  /* index, as in struct dta_meta */
	uint32_t first_list; /* list index (within the structure) of cur[0] */
	uint16_t n;          /* 1..DTA_CURSORS_MAX */
	struct { uint32_t next_seq, next_entry; } cur[DTA_CURSORS_MAX];
};

/* Return: DTA_CURSORS_SIZE(n), -EINVAL, -ENOSPC. */
DTA_API int dta_meta_cursors_encode(const struct dta_meta_cursors *c, void *buf,
				    size_t cap);
/* Return: 0, -DTA_E_TRUNCATED, -DTA_E_MALFORMED, -DTA_E_VERSION. */
DTA_API int dta_meta_cursors_decode(const void *buf, size_t len,
				    struct dta_meta_cursors *c);

#ifdef __cplusplus
}
#endif
#endif /* DTA_META_H */
