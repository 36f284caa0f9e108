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
 * translators map), or a file. Shared-memory and file regions are created
 * with O_EXCL and the mode of dta_region_opts.mode (set with fchmod, not
 * taken from the umask), and their memory is reserved at creation, so a
 * full /dev/shm is an error at creation, never a SIGBUS later.
 *
 * Lifetime (format version 2): the header holds a random origin id and the
 * creation time, and a mutable area outside the header CRC with a state
 * word (LIVE or RETIRED) and a count of writers inside. The owner retires
 * a region before it stops using it (dta_region_retire()); writers in
 * other processes bracket every write with dta_region_enter() and
 * dta_region_leave(), so no write lands in a region its owner has given
 * up without the writer knowing.
 *
 * Huge pages (DTA_REGION_HUGE), where the platform gives them:
 *  - ANON: reserved 1 GiB (regions of 1 GiB or more), then 2 MiB pages
 *    (MAP_HUGETLB); without a pool, transparent huge pages: the mapping is
 *    aligned to their size, advised MADV_HUGEPAGE and populated at
 *    creation, and dta_region_page_size() reports what the kernel gave
 *    (the huge page size when it backs at least half the mapping).
 *  - SHM: when hugetlbfs is mounted at /dev/hugepages and has the pages
 *    free, the object is the file /dev/hugepages/NAME instead of
 *    /dev/shm/NAME (same owner and mode rules); dta_region_open() finds it
 *    in either place, and dta_region_unlink() removes it from both.
 *    Otherwise 4 KiB pages (shared memory gets transparent huge pages only
 *    when the administrator enables shmem THP).
 *  - SHM in a directory (dta_region_opts.dir, e.g. a tmpfs mounted with
 *    huge=within_size): the object is the file DIR/NAME, and the mount's
 *    huge= option decides; hugetlbfs at /dev/hugepages is not tried.
 * SHM regions are populated at creation, and dta_region_page_size() and
 * dta_region_huge_bytes() report the pages the kernel gave the mapping.
 * Each fallback says why through the log callback.
 *
 * Populating (DTA_REGION_POPULATE): a process that maps a region pays a
 * page fault the first time it writes each page of its own mapping, even
 * when the memory behind it was reserved at creation (that fills the
 * object, not this process's page tables): a fresh writer's first pass
 * over a large structure runs at a fraction of its warm rate. With the
 * flag the mapping is populated for writing when it is made (Linux
 * 5.14: MADV_POPULATE_READ for objects on tmpfs and hugetlbfs, whose
 * shared pages map writable from a read fault, in batches; else
 * MADV_POPULATE_WRITE. On a kernel that refuses them, a shared mapping
 * is made again with MAP_POPULATE and an anonymous one being created is
 * touched page by page), so every later write finds its page mapped.
 * Populating never changes the data (it is safe while other writers
 * write) and costs about a page table entry per page, paid once by the
 * open (dta_region_populate_ns() says how long it took). It is for
 * writers: it is ignored with DTA_REGION_RDONLY. A FILE region populated
 * for writing has every page read in and marked dirty. A populate the
 * kernel fails (e.g. -ENOMEM) is logged as a warning and the region is
 * usable all the same, unpopulated (dta_region_populate_ns() is 0).
 */
#ifndef DTA_REGION_H
#define DTA_REGION_H

#include <stdint.h>
#include <sys/stat.h>

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
#define DTA_REGION_RDONLY 0x02    /* open: map read-only (PROT_READ: a
				   * write through the mapping faults) */
#define DTA_REGION_UNLINK 0x04    /* destroy: shm_unlink()/unlink() too */
#define DTA_REGION_EXCL 0x08      /* create: fail if the object exists
				   * (without it an existing object is
				   * removed and a new one created) */
#define DTA_REGION_ANY_OWNER 0x10 /* open: accept an object another user
				   * owns (a translator, or an analysis tool
				   * reading, running as a member of the
				   * region's group) */
#define DTA_REGION_DORMANT 0x20   /* create: start RETIRED, so no writer
				   * enters before the owner has filled it
				   * (dta_region_load()); dta_region_revive()
				   * opens it to writers */
#define DTA_REGION_POPULATE 0x40  /* open for writing, or create: fill the
				   * mapping's page tables for writing now
				   * (see "Populating" above) */

/* dta_region_state() */
#define DTA_REGION_LIVE 1    /* its owner uses it: write */
#define DTA_REGION_RETIRED 2 /* its owner gave it up: do not write */

struct dta_schema; /* dta/schema.h */

/**
 * struct dta_region_opts - how to create or open a region.
 * @sz:      sizeof(struct dta_region_opts), for growth.
 * @backing: enum dta_backing.
 * @path:    shm name or file path (not for ANON).
 * @name:    structure name stored in the header (create only), may be NULL.
 * @flags:   DTA_REGION_*.
 * @mode:    permission bits (0 = 0600). Create: the object's mode. Open for
 *           writing (SHM, FILE): the widest mode accepted; an object that
 *           grants more, or (without DTA_REGION_ANY_OWNER) that another
 *           user owns, is refused with -EPERM, so nobody can plant an
 *           object under a region's name to read or forge its contents.
 *           Bits outside 0777 are -EINVAL. Absent when @sz is the size of
 *           the first version of this struct (before @mode): 0600.
 * @schema:  create: what the values mean (dta/schema.h), written into the
 *           header as its canonical text so every reader of the region
 *           and its snapshots has it (dta_region_schema()); NULL: none.
 *           Only Key-Write (size = data_len) and Append (size =
 *           entry_size) regions take one; anything else is -EINVAL.
 *           Copied: the caller keeps ownership. Ignored by open. Absent
 *           when @sz ends before it (callers built before schemas).
 * @dir:     DTA_BACKING_SHM only: the directory holding the object, as
 *           the file DIR/NAME (@path "/dta-x.y": DIR/dta-x.y), instead of
 *           shm_open()'s /dev/shm (and hugetlbfs). Opened with
 *           O_DIRECTORY|O_NOFOLLOW (a symbolic link is -ELOOP or
 *           -ENOTDIR), the object relative to it with O_NOFOLLOW; the
 *           same owner and mode rules as in /dev/shm. The caller checks
 *           who may write the directory (dta-collector: shm_dir). NULL:
 *           /dev/shm. Absent when @sz ends before it.
 */
struct dta_region_opts {
	size_t sz;
	int backing;
	const char *path;
	const char *name;
	unsigned flags;
	/* 64 bits, so that the struct grew: with a 32-bit field after
	 * @flags it would fill the first version's tail padding, and an old
	 * caller's @sz could not tell it apart. */
	uint64_t mode;
	const struct dta_schema *schema;
	const char *dir;
};

struct dta_region; /* opaque */

/**
 * dta_region_create() - allocate a zeroed region for @layout.
 * @out: receives the handle, owned by the caller (dta_region_destroy()).
 *
 * The region is LIVE (RETIRED with DTA_REGION_DORMANT), with a new random
 * origin id and the current time as
 * its creation time. For SHM and FILE the whole size is reserved
 * (posix_fallocate) after checking the file system's free space.
 *
 * Return: 0; -EINVAL (bad opts/layout, or a schema the layout's values
 * cannot have: see dta_region_opts.schema), -EEXIST (EXCL and exists),
 * -ENOSPC or -EFBIG (not enough room in /dev/shm or the file system; the
 * log callback names the region, the size wanted and the space free),
 * -ENOMEM, or another -errno from shm_open/open/fchmod/ftruncate/mmap.
 * Thread-safe (no shared state).
 */
DTA_API int dta_region_create(const struct dta_layout *layout,
			      const struct dta_region_opts *opts,
			      struct dta_region **out);

/**
 * dta_region_open() - map an existing region (shm object or file) and
 * validate its header.
 *
 * Read-only opens accept format versions 1 and 2; opens for writing only
 * version 2 (the version with the state words). Opening for writing checks
 * owner and mode first (see dta_region_opts.mode).
 *
 * Reading a live collector's structure (the local mapping path,
 * docs/collector-protocol.md): DTA_BACKING_SHM, @path "/dta-COLL.STRUCT",
 * DTA_REGION_RDONLY. The mapping is PROT_READ and shared with the
 * collector, so queries on dta_region_data() see reports as they land,
 * at the library's own rate. Such an object must be owned by us or root
 * (any owner with DTA_REGION_ANY_OWNER) and must not be writable by
 * others (mode o+w), or the open fails with -EPERM: someone else could
 * have put it there and filled it. Structures a collector keeps in
 * anonymous memory (huge pages for RDMA-only collectors) have no object
 * to open: -ENOENT; ask those over the socket. A snapshot file (written
 * by dta_region_save()) must be exactly header plus data long and its data
 * must match the CRC-32C in its header (version 2 files).
 *
 * Return: 0; -EINVAL; -ENOENT; -EPERM (owner or mode: opening for
 * writing, or a shared-memory object read-only); -DTA_E_BADREGION (bad magic, header CRC, size smaller than the
 * header says, a snapshot file with bytes after its data, or a schema
 * field that is not a schema of the layout's value size);
 * -DTA_E_CHECKSUM (snapshot data changed since it was saved);
 * -DTA_E_REGIONVERSION (unknown version, or version 1 opened for
 * writing); other -errno.
 */
DTA_API int dta_region_open(const struct dta_region_opts *opts,
			    struct dta_region **out);

/**
 * dta_region_save() - write the whole region (header and data) to a file,
 * atomically: a temporary file (mode 0600) in the same directory, fsync,
 * rename, fsync of the directory. The data area is copied while writers
 * may still be active: a snapshot of a live region is as consistent as a
 * query of it. The file's header keeps the region's origin id and
 * creation time, adds the save time and the CRC-32C of exactly the data
 * bytes written.
 * Return: 0 or -errno (on failure no file is left under @path's name
 * except a previous snapshot, untouched; a failed fsync of the directory
 * after the rename is reported too).
 */
DTA_API int dta_region_save(const struct dta_region *r, const char *path);

/**
 * dta_region_load() - copy a saved region file's data into @r, whose layout
 * must be identical. @r keeps its own origin id and creation time.
 * Return: 0, -DTA_E_MISMATCH, -DTA_E_BADREGION, -DTA_E_CHECKSUM,
 * -DTA_E_REGIONVERSION, -errno (as dta_region_open()).
 */
DTA_API int dta_region_load(struct dta_region *r, const char *path);

/**
 * dta_region_copy() - copy @src's data area into @dst, whose layout must
 * be identical (e.g. a snapshot already opened with dta_region_open(), to
 * look at its header before loading it). @dst keeps its own origin id and
 * creation time. Return: 0, -EINVAL, -DTA_E_MISMATCH.
 */
DTA_API int dta_region_copy(struct dta_region *dst,
			    const struct dta_region *src);

/**
 * dta_region_unlink() - remove region object @path: a file (FILE), or a
 * shared-memory object (SHM) from /dev/shm and from hugetlbfs.
 * Return: 0 (something was removed), -ENOENT, -EINVAL, other -errno.
 */
DTA_API int dta_region_unlink(int backing, const char *path);

/**
 * dta_region_shm_unlink_in() - remove shared-memory object @name ("/dta-x")
 * from directory @dir (dta_region_opts.dir); @dir NULL: as
 * dta_region_unlink(DTA_BACKING_SHM, @name).
 * Return: 0, -ENOENT, -EINVAL, other -errno.
 */
DTA_API int dta_region_shm_unlink_in(const char *dir, const char *name);

/**
 * dta_region_shm_stat_in() - as dta_region_shm_stat() for an object in
 * directory @dir (dta_region_opts.dir), not following a symbolic link;
 * @dir NULL: dta_region_shm_stat().
 */
DTA_API int dta_region_shm_stat_in(const char *dir, const char *name,
				   struct stat *st);

/**
 * dta_region_shm_stat() - stat() the file behind shared-memory object
 * @name, wherever it lives (/dev/shm, or hugetlbfs): its identity (st_dev,
 * st_ino), owner and mode, e.g. to notice that a collector re-created it.
 * Return: 0, -ENOENT, -EINVAL, -ENAMETOOLONG, other -errno.
 */
DTA_API int dta_region_shm_stat(const char *name, struct stat *st);

/* Unmap and free; NULL is fine. With DTA_REGION_UNLINK also remove the
 * backing object. */
DTA_API void dta_region_destroy(struct dta_region *r);

DTA_API const struct dta_layout *dta_region_layout(const struct dta_region *r);
DTA_API const char *dta_region_name(const struct dta_region *r);
/**
 * dta_region_schema() - the schema of the region's values, from its header
 * (dta_region_opts.schema at creation; a snapshot keeps its source's), or
 * NULL when it has none. Valid as long as @r. dta_region_open() checked
 * it: a header whose schema text does not parse, or whose schema's size
 * is not the layout's data or entry size, fails with -DTA_E_BADREGION.
 */
DTA_API const struct dta_schema *dta_region_schema(const struct dta_region *r);
/* The data area and its size. */
DTA_API void *dta_region_data(const struct dta_region *r);
DTA_API uint64_t dta_region_data_size(const struct dta_region *r);
/* The whole mapping (header + data), e.g. for RDMA registration. */
DTA_API void *dta_region_base(const struct dta_region *r);
DTA_API uint64_t dta_region_map_size(const struct dta_region *r);
/* Page size actually backing the mapping (4096, 2 MiB or 1 GiB): for
 * transparent huge pages (anonymous or shared memory, measured at
 * creation) the huge page size when they back at least half of it. */
DTA_API uint64_t dta_region_page_size(const struct dta_region *r);
/**
 * dta_region_populate_ns() - how long populating @r's mapping took
 * (DTA_REGION_POPULATE), wall-clock ns, at least 1 when it was populated;
 * 0 when it was not (flag not given, read-only, the kernel refused: then
 * logged), and for NULL. Thread-safe.
 */
DTA_API uint64_t dta_region_populate_ns(const struct dta_region *r);

/* Bytes of the mapping on huge pages: all of it on hugetlbfs or reserved
 * huge pages; transparent huge pages as the kernel reported them
 * (/proc/self/smaps) once the mapping was populated at creation; 0 when
 * none or not measured (regions opened rather than created). */
DTA_API uint64_t dta_region_huge_bytes(const struct dta_region *r);

/* Random id given at creation (a snapshot file keeps its source's); 0 for
 * a version-1 file. */
DTA_API uint64_t dta_region_origin(const struct dta_region *r);
/* Creation time, Unix ns (a snapshot file: its source's; version-1
 * files: the save time, whole seconds). */
DTA_API uint64_t dta_region_created_ns(const struct dta_region *r);
/* When a snapshot file was saved, Unix ns; 0 for a live region. */
DTA_API uint64_t dta_region_saved_ns(const struct dta_region *r);

/**
 * dta_region_state() - DTA_REGION_LIVE or DTA_REGION_RETIRED, read from
 * the shared header now; 0 for regions without state (snapshot files,
 * version-1 regions) and NULL. Thread-safe.
 */
DTA_API int dta_region_state(const struct dta_region *r);

/**
 * dta_region_enter() - announce a write into @r, mapped read-write.
 * On 0 the caller may write and must call dta_region_leave() when done
 * (keep the bracket short: the owner waits for it when retiring).
 * Return: 0; -ESTALE when the owner retired the region (do not write:
 * reopen by name to find its successor); -EINVAL (NULL, read-only
 * mapping, version-1 region). Thread- and process-safe (atomics in the
 * shared header).
 */
DTA_API int dta_region_enter(struct dta_region *r);
/* End the write dta_region_enter() allowed. */
DTA_API void dta_region_leave(struct dta_region *r);

/**
 * dta_region_retire() - mark @r RETIRED, then wait up to @timeout_ms for
 * the writers inside to leave. Writers entering after the mark are
 * refused (-ESTALE), so once this returns 0 the data no longer changes
 * (except through writers that do not use dta_region_enter()).
 * Return: 0; -ETIMEDOUT (writers still inside, count logged; the state is
 * RETIRED all the same); -EINVAL (NULL, read-only, version 1).
 * Thread-safe.
 */
DTA_API int dta_region_retire(struct dta_region *r, unsigned timeout_ms);
/* Mark @r LIVE again (an owner reattaching a region its predecessor
 * retired). Return: 0 or -EINVAL as dta_region_retire(). */
DTA_API int dta_region_revive(struct dta_region *r);

/*
 * Notifications (docs/collector-protocol.md "wait"): a 32-bit sequence in
 * the header's mutable area that a writer advances after a write a reader
 * should not have to poll for (a report with DTA_FLAG_IMMEDIATE), and that
 * readers in any process sleep on (a process-shared futex on the shared
 * mapping; read-only mappings can wait too). The sequence wraps; only
 * "differs from what I saw" has meaning. Version-2 regions only (not
 * snapshot files).
 */

/**
 * dta_region_notify() - advance @r's notification sequence and wake every
 * thread and process waiting on it (dta_region_wait()). Call it after the
 * writes it announces: a waiter that sees the new sequence sees them.
 * Return: 0; -EINVAL (NULL, read-only mapping, version-1 region or
 * snapshot). Thread- and process-safe, async-signal-safe.
 */
DTA_API int dta_region_notify(struct dta_region *r);

/**
 * dta_region_notify_seq() - @r's notification sequence now (0 for a new
 * region, for NULL, version-1 regions and snapshots). Pass it to
 * dta_region_wait() to sleep until the next notification. Thread-safe.
 */
DTA_API uint32_t dta_region_notify_seq(const struct dta_region *r);

/**
 * dta_region_wait() - sleep until @r's notification sequence differs from
 * @seen, or @timeout_ms pass (< 0: no limit; 0: just look).
 * Return: 0 (it differs: read dta_region_notify_seq() for the new value),
 * -ETIMEDOUT, -EINTR (a signal handler ran; the caller decides whether
 * to wait again), -EINVAL (NULL, version-1 region, snapshot), -ENOSYS
 * (no futexes on this platform). Thread-safe; any mapping (read-only too).
 */
DTA_API int dta_region_wait(const struct dta_region *r, uint32_t seen,
			    int timeout_ms);

/**
 * dta_region_notify_addr() - the address of @r's sequence word, for a
 * program that sleeps on many regions at once (futex_waitv() with
 * FUTEX_32 and without FUTEX_PRIVATE_FLAG, as dta-collector's notifier
 * does). Read it atomically; never write it. NULL where
 * dta_region_notify_seq() is 0 for want of a word. Thread-safe.
 */
DTA_API const uint32_t *dta_region_notify_addr(const struct dta_region *r);

#ifdef __cplusplus
}
#endif
#endif /* DTA_REGION_H */
