/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the collector's shared-memory objects live, and which pages they
 * get there (docs/performance.md "Huge pages"): [collector] shm_dir, a
 * directory on a tmpfs (mounted huge=within_size for 2 MiB pages), checked
 * like snapshot_dir; without it /dev/shm.
 */
#ifndef DTA_COLLECTOR_SHMDIR_H
#define DTA_COLLECTOR_SHMDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * struct coll_shm_place - what the collector learnt of the file system
 * that holds its objects.
 * @tmpfs: it is a tmpfs (statfs TMPFS_MAGIC).
 * @huge:  its mount's huge= option ("within_size", "always", "advise",
 *         "never"; "" when the mount has none, which means never).
 */
struct coll_shm_place {
	bool tmpfs;
	char huge[32];
};

/*
 * coll_shm_dir_check() - is @dir fit to hold the structures' objects:
 * a directory (not a symbolic link: O_DIRECTORY|O_NOFOLLOW) owned by us
 * or root that neither group nor others can write, on a tmpfs (a disk
 * file system would write the structures back to disk). Fills @place.
 * Return: 0, or -1 with the reason in @why.
 */
int coll_shm_dir_check(const char *dir, struct coll_shm_place *place,
		       char *why, size_t cap);

/*
 * coll_shm_mountinfo_huge() - the huge= option of the mount of device
 * @maj:@min in @len bytes of /proc/self/mountinfo text @text ("MOUNTID
 * PARENT MAJ:MIN ROOT POINT OPTS ... - TYPE SOURCE SUPEROPTS", proc(5);
 * tmpfs lists huge= among its super options) into @out ("" when that
 * mount has none; never more than @cap - 1 bytes, no ',' or ' ').
 * Lines of 4096 bytes or more, or holding a NUL, are skipped.
 * Return: 1 (the mount's line found), 0 (not found), -1 (@cap 0).
 * fuzz/fuzz_mountinfo.c.
 */
int coll_shm_mountinfo_huge(const char *text, size_t len, unsigned maj,
			    unsigned min, char *out, size_t cap);

/* @place for /dev/shm (no shm_dir): never refused, only described. */
void coll_shm_default(struct coll_shm_place *place);

/*
 * coll_shm_why_small() - one sentence saying why regions in @dir (NULL:
 * /dev/shm), described by @place, got 4 KiB pages, and what to do.
 */
void coll_shm_why_small(const char *dir, const struct coll_shm_place *place,
			char *out, size_t cap);

#endif
