/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regions: the memory of one structure, self-described by a header.
 *
 * A region is one mapping: a DTA_REGION_HEADER_SIZE header page followed by
 * the data area. The header holds magic, format version, a name and the
 * encoded struct dta_layout, so a region saved to a file can be opened and
 * queried later with no other information.
 *
 * Backings: anonymous memory, a named POSIX shared-memory object (what local
 * translators map), or a file. Huge pages (1 GiB, then 2 MiB) are tried when
 * asked for; when unavailable the region falls back to normal pages and says
 * why through the log callback.
 */
#ifndef DTA_REGION_H
#define DTA_REGION_H

#include <stdint.h>

#include "dta/common.h"
#include "dta/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_REGION_HEADER_SIZE 4096
#define DTA_REGION_NAME_MAX 64 /* bytes including the NUL */

enum dta_backing {
	DTA_BACKING_ANON = 1,
	DTA_BACKING_SHM = 2,  /* @path is a shm_open() name, "/dta-foo" */
	DTA_BACKING_FILE = 3, /* @path is a file path */
};

/* dta_region_opts.flags */
#define DTA_REGION_HUGE 0x01      /* try 1 GiB, then 2 MiB pages (anon, shm) */
#define DTA_REGION_RDONLY 0x02    /* open: map read-only */
#define DTA_REGION_UNLINK 0x04    /* destroy: shm_unlink()/unlink() too */
#define DTA_REGION_EXCL 0x08      /* create: fail if the object exists */

/**
 * struct dta_region_opts - how to create or open a region.
 * @sz:      sizeof(struct dta_region_opts), for growth.
 * @backing: enum dta_backing.
 * @path:    shm name or file path (not for ANON).
 * @name:    structure name stored in the header (create only), may be NULL.
 * @flags:   DTA_REGION_*.
 */
struct dta_region_opts {
	size_t sz;
	int backing;
	const char *path;
	const char *name;
	unsigned flags;
};

struct dta_region; /* opaque */

/**
 * dta_region_create() - allocate a zeroed region for @layout.
 * @out: receives the handle, owned by the caller (dta_region_destroy()).
 *
 * Return: 0; -EINVAL (bad opts/layout), -EEXIST (EXCL and exists),
 * -ENOMEM, or another -errno from shm_open/open/ftruncate/mmap.
 * Thread-safe (no shared state).
 */
DTA_API int dta_region_create(const struct dta_layout *layout,
			      const struct dta_region_opts *opts,
			      struct dta_region **out);

/**
 * dta_region_open() - map an existing region (shm object or file) and
 * validate its header.
 *
 * Return: 0; -EINVAL; -ENOENT; -DTA_E_BADREGION (bad magic, CRC, or size
 * smaller than the header says); -DTA_E_REGIONVERSION; other -errno.
 */
DTA_API int dta_region_open(const struct dta_region_opts *opts,
			    struct dta_region **out);

/**
 * dta_region_save() - write the whole region (header and data) to a file,
 * atomically (temporary file, fsync, rename). The data area is copied
 * while writers may still be active: a snapshot of a live region is as
 * consistent as a query of it.
 * Return: 0 or -errno.
 */
DTA_API int dta_region_save(const struct dta_region *r, const char *path);

/**
 * dta_region_load() - copy a saved region file's data into @r, whose layout
 * must be identical. Return: 0, -DTA_E_MISMATCH, -DTA_E_BADREGION, -errno.
 */
DTA_API int dta_region_load(struct dta_region *r, const char *path);

/* Unmap and free; NULL is fine. With DTA_REGION_UNLINK also remove the
 * backing object. */
DTA_API void dta_region_destroy(struct dta_region *r);

DTA_API const struct dta_layout *dta_region_layout(const struct dta_region *r);
DTA_API const char *dta_region_name(const struct dta_region *r);
/* The data area and its size. */
DTA_API void *dta_region_data(const struct dta_region *r);
DTA_API uint64_t dta_region_data_size(const struct dta_region *r);
/* The whole mapping (header + data), e.g. for RDMA registration. */
DTA_API void *dta_region_base(const struct dta_region *r);
DTA_API uint64_t dta_region_map_size(const struct dta_region *r);
/* Page size actually backing the mapping (4096, 2 MiB or 1 GiB). */
DTA_API uint64_t dta_region_page_size(const struct dta_region *r);

#ifdef __cplusplus
}
#endif
#endif /* DTA_REGION_H */
