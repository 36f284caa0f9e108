/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regions: mapping, self-describing header, snapshots (docs/layouts.md,
 * "Region header").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "dta/region.h"
#include "dta/schema.h"
#include "internal.h"

#define REGION_MAGIC "DTAREGN1"
#define REGION_VERSION 2
#define REGION_F_LITTLE_ENDIAN 0x1 /* counters are little-endian */
#define REGION_F_SAVED 0x2         /* a snapshot file: data CRC, exact size */
#define REGION_LAYOUT_OFF 112
#define REGION_ORIGIN_OFF 880   /* v2: random id given at creation */
#define REGION_CREATED_OFF 888  /* v2: creation time, Unix ns */
#define REGION_SAVED_OFF 896    /* v2: snapshot time, Unix ns (0: live) */
#define REGION_DATACRC_OFF 904  /* v2: CRC-32C of the data (saved files) */
/* The value schema's canonical text, NUL-terminated; all zeros: none
 * (regions and files from before schemas read as having none). */
#define REGION_SCHEMA_OFF 1024
#define REGION_SCHEMA_LEN DTA_SCHEMA_TEXT_MAX
/* v2: bytes from here to the CRC change while the region is in use and are
 * outside the header CRC: the state word and the writers count, host byte
 * order, used atomically. */
#define REGION_MUTABLE_OFF 3840
#define REGION_STATE_OFF REGION_MUTABLE_OFF
#define REGION_WRITERS_OFF (REGION_MUTABLE_OFF + 4)
#define REGION_NOTIFY_OFF (REGION_MUTABLE_OFF + 8) /* notify.c */
#define REGION_CRC_OFF (DTA_REGION_HEADER_SIZE - 4)
#define REGION_DEFAULT_MODE 0600
#define SAVE_CHUNK (1u << 20)
#define HUGETLBFS_DIR "/dev/hugepages"
#define HUGETLBFS_MAGIC_NR 0x958458f6

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static_assert(REGION_LAYOUT_OFF + DTA_LAYOUT_WIRE_SIZE <= REGION_ORIGIN_OFF,
	      "region header too small");
static_assert(REGION_DATACRC_OFF + 4 <= REGION_MUTABLE_OFF &&
		      REGION_NOTIFY_OFF + 4 <= REGION_CRC_OFF &&
		      REGION_MUTABLE_OFF % 64 == 0,
	      "region header fields overlap");
static_assert(REGION_SCHEMA_OFF >= REGION_DATACRC_OFF + 4 &&
		      REGION_SCHEMA_OFF + REGION_SCHEMA_LEN <= REGION_MUTABLE_OFF,
	      "region schema field overlaps");
static_assert(ATOMIC_INT_LOCK_FREE == 2,
	      "region state is shared between processes: needs lock-free atomics");

struct dta_region {
	struct dta_layout layout;
	char name[DTA_REGION_NAME_MAX];
	uint8_t *base;
	uint64_t map_size;
	uint64_t page_size;
	uint64_t huge_bytes; /* of the mapping, on huge pages */
	int backing;
	unsigned flags;
	unsigned version; /* format version of the header that was read */
	int writable;     /* mapped read-write */
	uint64_t origin, created_ns, saved_ns;
	uint32_t data_crc; /* saved files only */
	char *path; /* backing object to unlink on destroy, or NULL */
	int has_schema;
	struct dta_schema schema;
	uint64_t populate_ns; /* DTA_REGION_POPULATE: how long it took */
};

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Wall-clock time, for the header's times. */
static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

/* A random id that tells one region's lifetime from another's. */
static uint64_t new_origin(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = now_ns() ^ ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&v;
	return v ? v : 1; /* 0 means "unknown" (version-1 files) */
}

static _Atomic uint32_t *state_word(const struct dta_region *r)
{
	return (_Atomic uint32_t *)(void *)(r->base + REGION_STATE_OFF);
}

static _Atomic uint32_t *writers_word(const struct dta_region *r)
{
	return (_Atomic uint32_t *)(void *)(r->base + REGION_WRITERS_OFF);
}

/* The notification sequence word (lib/src/notify.c); NULL where the
 * header has no mutable area (version 1), nobody writes (snapshots) or,
 * with @write, the mapping is read-only. */
_Atomic uint32_t *dta__region_notify_word(const struct dta_region *r,
					  int write)
{
	if (!r || r->version != REGION_VERSION || r->saved_ns ||
	    (write && !r->writable))
		return NULL;
	return (_Atomic uint32_t *)(void *)(r->base + REGION_NOTIFY_OFF);
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static int host_little_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

static int header_encode(const struct dta_region *r, uint8_t *h)
{
	int err;

	memset(h, 0, DTA_REGION_HEADER_SIZE);
	memcpy(h, REGION_MAGIC, 8);
	dta__put_le(h + 8, REGION_VERSION, 2);
	dta__put_le(h + 10, DTA_REGION_HEADER_SIZE, 2);
	dta__put_le(h + 12, (host_little_endian() ? REGION_F_LITTLE_ENDIAN : 0) |
			    (r->saved_ns ? REGION_F_SAVED : 0), 4);
	dta__put_le(h + 16, r->map_size, 8);
	dta__put_le(h + 24, DTA_REGION_HEADER_SIZE, 8);
	dta__put_le(h + 32, r->layout.data_size, 8);
	dta__put_le(h + 40, r->created_ns / 1000000000ull, 8);
	memcpy(h + 48, r->name, strnlen(r->name, DTA_REGION_NAME_MAX - 1));
	err = dta_layout_encode(&r->layout, h + REGION_LAYOUT_OFF,
				DTA_LAYOUT_WIRE_SIZE);
	if (err < 0)
		return err;
	dta__put_le(h + REGION_ORIGIN_OFF, r->origin, 8);
	dta__put_le(h + REGION_CREATED_OFF, r->created_ns, 8);
	dta__put_le(h + REGION_SAVED_OFF, r->saved_ns, 8);
	dta__put_le(h + REGION_DATACRC_OFF, r->data_crc, 4);
	if (r->has_schema) {
		err = dta_schema_format(&r->schema, (char *)h + REGION_SCHEMA_OFF,
					REGION_SCHEMA_LEN);
		if (err < 0)
			return err;
	}
	dta__put_le(h + REGION_CRC_OFF, dta_crc32c(0, h, REGION_MUTABLE_OFF), 4);
	return 0;
}

/* Bytes of one value of @l a schema describes: Key-Write data, an Append
 * entry; 0 for the primitives whose values have no schema. */
static uint32_t schema_value_size(const struct dta_layout *l)
{
	switch (l->primitive) {
	case DTA_PRIM_KEY_WRITE:
		return l->g.kw.data_len;
	case DTA_PRIM_APPEND:
		return l->g.ap.entry_size;
	default:
		return 0;
	}
}

/* @s as @r's schema, when it describes @r's values. */
static int schema_set(struct dta_region *r, const struct dta_schema *s)
{
	char text[DTA_SCHEMA_TEXT_MAX];

	/* Through the canonical text: what a reader of the header gets. */
	if (dta_schema_format(s, text, sizeof(text)) < 0 ||
	    dta_schema_parse(text, &r->schema, NULL, 0) != 0 ||
	    r->schema.size != schema_value_size(&r->layout))
		return -EINVAL;
	r->has_schema = 1;
	return 0;
}

/* The header's schema field at @f (REGION_SCHEMA_LEN bytes) into @r,
 * whose layout is known: -DTA_E_BADREGION unless it is all zeros or the
 * text of a schema of the layout's value size. */
static int schema_decode(const uint8_t *f, struct dta_region *r)
{
	char text[REGION_SCHEMA_LEN];

	r->has_schema = 0;
	if (f[0] == 0) {
		for (unsigned i = 1; i < REGION_SCHEMA_LEN; i++)
			if (f[i])
				return -DTA_E_BADREGION;
		return 0;
	}
	if (!memchr(f, 0, REGION_SCHEMA_LEN))
		return -DTA_E_BADREGION;
	memcpy(text, f, REGION_SCHEMA_LEN);
	if (dta_schema_parse(text, &r->schema, NULL, 0) != 0 ||
	    r->schema.size != schema_value_size(&r->layout)) {
		dta__log(DTA_LOG_ERROR, "region: the header's schema '%.80s' "
			 "is malformed or not of the layout's value size",
			 text);
		return -DTA_E_BADREGION;
	}
	r->has_schema = 1;
	return 0;
}

/* Validate a header read from a file of @file_size bytes. */
static int header_decode(const uint8_t *h, uint64_t file_size,
			 struct dta_region *r)
{
	uint64_t data_off, data_size, map_size;
	uint32_t flags;
	unsigned version;
	int err;

	if (memcmp(h, REGION_MAGIC, 8) != 0)
		return -DTA_E_BADREGION;
	version = (unsigned)dta__get_le(h + 8, 2);
	if (version != 1 && version != REGION_VERSION)
		return -DTA_E_REGIONVERSION;
	/* Version 1 has no mutable area: its CRC covers the whole page. */
	if (dta__get_le(h + REGION_CRC_OFF, 4) !=
	    dta_crc32c(0, h, version == 1 ? REGION_CRC_OFF : REGION_MUTABLE_OFF))
		return -DTA_E_BADREGION;
	flags = (uint32_t)dta__get_le(h + 12, 4);
	map_size = dta__get_le(h + 16, 8);
	data_off = dta__get_le(h + 24, 8);
	data_size = dta__get_le(h + 32, 8);
	if (dta__get_le(h + 10, 2) != DTA_REGION_HEADER_SIZE ||
	    data_off != DTA_REGION_HEADER_SIZE)
		return -DTA_E_BADREGION;
	err = dta_layout_decode(h + REGION_LAYOUT_OFF, DTA_LAYOUT_WIRE_SIZE,
				&r->layout);
	if (err)
		return err;
	if (r->layout.data_size != data_size ||
	    data_size > UINT64_MAX - data_off ||
	    data_off + data_size > file_size || map_size < data_off + data_size)
		return -DTA_E_BADREGION;
	/* Key-Increment counters are in the writing host's byte order. */
	if (r->layout.primitive == DTA_PRIM_KEY_INCREMENT &&
	    !!(flags & REGION_F_LITTLE_ENDIAN) != host_little_endian())
		return -DTA_E_MISMATCH;
	/* A snapshot file is exactly header and data: anything after it was
	 * not written by dta_region_save(). */
	if ((flags & REGION_F_SAVED) && file_size != data_off + data_size) {
		dta__log(DTA_LOG_ERROR, "region: file is %llu bytes, its header "
			 "says %llu", (unsigned long long)file_size,
			 (unsigned long long)(data_off + data_size));
		return -DTA_E_BADREGION;
	}
	err = schema_decode(h + REGION_SCHEMA_OFF, r);
	if (err)
		return err;
	memcpy(r->name, h + 48, DTA_REGION_NAME_MAX - 1);
	r->name[DTA_REGION_NAME_MAX - 1] = '\0';
	r->map_size = data_off + data_size;
	r->version = version;
	if (version == 1) {
		/* Written at save time in version 1 (or at creation). */
		r->origin = 0;
		r->created_ns = dta__get_le(h + 40, 8) * 1000000000ull;
		r->saved_ns = r->created_ns;
	} else {
		r->origin = dta__get_le(h + REGION_ORIGIN_OFF, 8);
		r->created_ns = dta__get_le(h + REGION_CREATED_OFF, 8);
		r->saved_ns = dta__get_le(h + REGION_SAVED_OFF, 8);
		r->data_crc = (uint32_t)dta__get_le(h + REGION_DATACRC_OFF, 4);
		if (!!(flags & REGION_F_SAVED) != !!r->saved_ns)
			return -DTA_E_BADREGION;
	}
	return 0;
}

/* Callers built against the first struct dta_region_opts (no mode). */
/* The first version ended after @flags, padded to 8 bytes. */
#define OPTS_V1_SIZE offsetof(struct dta_region_opts, mode)
static_assert(sizeof(void *) != 8 || OPTS_V1_SIZE == 40,
	      "@mode begins where the first version (40 bytes on LP64) ended");

/* @schema is there for callers that know it (not the first two versions). */
static const struct dta_schema *opts_schema(const struct dta_region_opts *o)
{
	if (o->sz < offsetof(struct dta_region_opts, schema) + sizeof(o->schema))
		return NULL;
	return o->schema;
}

/* @dir is there for callers that know it. */
static const char *opts_dir(const struct dta_region_opts *o)
{
	if (o->sz < offsetof(struct dta_region_opts, dir) + sizeof(o->dir))
		return NULL;
	return o->dir;
}

static mode_t opts_mode(const struct dta_region_opts *o)
{
	if (o->sz < offsetof(struct dta_region_opts, mode) + sizeof(o->mode) ||
	    !o->mode)
		return REGION_DEFAULT_MODE;
	return (mode_t)o->mode;
}

static int opts_ok(const struct dta_region_opts *o)
{
	if (!o || o->sz < OPTS_V1_SIZE)
		return 0;
	if (o->sz >= offsetof(struct dta_region_opts, mode) + sizeof(o->mode) &&
	    (o->mode & ~(uint64_t)0777))
		return 0;
	if (opts_dir(o) && (o->backing != DTA_BACKING_SHM || !opts_dir(o)[0]))
		return 0;
	switch (o->backing) {
	case DTA_BACKING_ANON:
		return 1;
	case DTA_BACKING_SHM:
		return o->path && o->path[0] == '/' && !strchr(o->path + 1, '/') &&
		       strlen(o->path) < NAME_MAX;
	case DTA_BACKING_FILE:
		return o->path && o->path[0];
	default:
		return 0;
	}
}

static int hugetlbfs_available(void)
{
	struct statfs st;

	return statfs(HUGETLBFS_DIR, &st) == 0 &&
	       (unsigned long)st.f_type == HUGETLBFS_MAGIC_NR;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The size of a transparent huge page (PMD), 2 MiB when unknown. */
static uint64_t thp_size(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
			"re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v >= 4096 && !(v & (v - 1)) ? v : 2ull << 20;
}

/* Bytes of the mapping that holds @p that lie on transparent huge pages
 * (/proc/self/smaps: AnonHugePages for private memory, ShmemPmdMapped for
 * shared memory, FilePmdMapped for other files), and that mapping's size;
 * 0 when unknown. */
static uint64_t thp_bytes(const void *p, uint64_t *vma_size)
{
	char line[256];
	unsigned long lo, hi;
	unsigned long long kb;
	int in = 0;
	uint64_t got = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	*vma_size = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			if (in)
				*vma_size = hi - lo;
		} else if (in && (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1 ||
				  sscanf(line, "ShmemPmdMapped: %llu kB", &kb) == 1 ||
				  sscanf(line, "FilePmdMapped: %llu kB", &kb) == 1)) {
			got += kb * 1024;
		}
	}
	fclose(f);
	return got;
}

/*
 * Normal pages with transparent huge page advice: the mapping is aligned
 * to the huge page size (the kernel only backs aligned ranges with them)
 * and populated now, so the pages are chosen here and the page size can be
 * reported: the huge page size when at least half of it got huge pages.
 */
static int map_anon_thp(struct dta_region *r, uint64_t need)
{
	uint64_t hp = thp_size(), size = round_up(need, hp), vma, got;
	uint8_t *p, *a;

	p = mmap(NULL, size + hp, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a = (uint8_t *)round_up((uintptr_t)p, hp);
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + size < p + size + hp)
		munmap(a + size, (size_t)(p + size + hp - (a + size)));
	r->base = a;
	r->map_size = size;
	r->page_size = 4096;
	if (madvise(a, size, MADV_HUGEPAGE) != 0) {
		dta__log(DTA_LOG_INFO, "region: no transparent huge pages (%s)",
			 strerror(errno));
		return 0;
	}
	if (madvise(a, size, MADV_POPULATE_WRITE) != 0) {
		int err = errno;

		if (err != EINVAL) { /* EINVAL: a kernel before 5.14 */
			munmap(a, size);
			r->base = NULL;
			dta__log(DTA_LOG_ERROR, "region: cannot populate %llu "
				 "bytes: %s", (unsigned long long)size,
				 strerror(err));
			return -err;
		}
		for (uint64_t off = 0; off < size; off += 4096)
			*(volatile uint8_t *)(a + off) = 0;
	}
	got = thp_bytes(a, &vma);
	r->huge_bytes = got;
	if (vma && got >= vma / 2)
		r->page_size = hp;
	dta__log(DTA_LOG_INFO, "region: %llu of %llu bytes on transparent "
		 "huge pages of %llu bytes", (unsigned long long)got,
		 (unsigned long long)vma, (unsigned long long)hp);
	return 0;
}

/* Anonymous mapping, huge pages first when asked (1 GiB pages only for
 * regions of at least 1 GiB, where they cost no more than they save),
 * then transparent huge pages. */
static int map_anon(struct dta_region *r, uint64_t need, int huge)
{
	static const struct {
		uint64_t size;
		int shift;
	} hp[] = { { 1ull << 30, 30 }, { 2ull << 20, 21 } };
	void *p;

	if (huge) {
		for (unsigned i = 0; i < 2; i++) {
			uint64_t sz = round_up(need, hp[i].size);

			if (need < hp[i].size && i == 0)
				continue;
			p = mmap(NULL, sz, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
					 (hp[i].shift << MAP_HUGE_SHIFT),
				 -1, 0);
			if (p != MAP_FAILED) {
				r->base = p;
				r->map_size = sz;
				r->page_size = hp[i].size;
				r->huge_bytes = sz;
				return 0;
			}
			dta__log(DTA_LOG_INFO,
				 "region: no %s huge pages (%s), trying smaller",
				 i == 0 ? "1 GiB" : "2 MiB", strerror(errno));
		}
		dta__log(DTA_LOG_INFO,
			 "region: no reserved huge pages; trying transparent "
			 "huge pages");
		return map_anon_thp(r, need);
	}
	r->map_size = round_up(need, 4096);
	p = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->base = p;
	r->page_size = 4096;
	return 0;
}

/* The hugetlbfs file that holds shared-memory region @name ("/dta-x.y")
 * when it was created on huge pages. */
static int huge_path(const char *name, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s%s", HUGETLBFS_DIR, name);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* Page size of the file system under @fd when it is hugetlbfs, else 0. */
static uint64_t fd_huge_page(int fd)
{
	struct statfs st;

	if (fstatfs(fd, &st) == 0 &&
	    (unsigned long)st.f_type == HUGETLBFS_MAGIC_NR)
		return (uint64_t)st.f_bsize;
	return 0;
}

/* Shared-memory object @name ("/dta-x") as the file @dir/dta-x: the
 * directory and the object opened without following symbolic links. */
static int open_in_dir(const char *dir, const char *name, int oflags,
		       mode_t mode)
{
	int dfd, fd, err;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, name + 1, oflags | O_NOFOLLOW | O_CLOEXEC, mode);
	err = errno;
	close(dfd);
	return fd < 0 ? -err : fd;
}

static int open_backing(const struct dta_region_opts *o, int oflags,
			mode_t mode, char **used_path)
{
	char buf[PATH_MAX];
	int fd;

	if (o->backing == DTA_BACKING_FILE) {
		fd = open(o->path, oflags | O_CLOEXEC, mode);
		snprintf(buf, sizeof(buf), "%s", o->path);
	} else if (opts_dir(o)) {
		fd = open_in_dir(opts_dir(o), o->path, oflags, mode);
		if (fd < 0)
			return fd;
		snprintf(buf, sizeof(buf), "%s%s", opts_dir(o), o->path);
	} else {
		fd = shm_open(o->path, oflags, mode);
		snprintf(buf, sizeof(buf), "shm:%s", o->path);
		/* Not in /dev/shm: it may live on hugetlbfs. */
		if (fd < 0 && errno == ENOENT && !(oflags & O_CREAT) &&
		    hugetlbfs_available() && !huge_path(o->path, buf, sizeof(buf)))
			fd = open(buf, oflags | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 && errno == ENOENT)
			snprintf(buf, sizeof(buf), "shm:%s", o->path);
	}
	if (fd < 0)
		return -errno;
	*used_path = strdup(buf);
	if (!*used_path) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

static void unlink_backing(const char *path)
{
	if (!path)
		return;
	if (!strncmp(path, "shm:", 4))
		shm_unlink(path + 4);
	else
		unlink(path);
}

DTA_API int dta_region_shm_stat(const char *name, struct stat *st)
{
	char p[PATH_MAX];

	if (!name || name[0] != '/' || !st)
		return -EINVAL;
	/* shm_open() names a file in /dev/shm. */
	if (snprintf(p, sizeof(p), "/dev/shm%s", name) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	if (stat(p, st) == 0)
		return 0;
	if (errno != ENOENT || !hugetlbfs_available() ||
	    huge_path(name, p, sizeof(p)))
		return -ENOENT;
	return stat(p, st) == 0 ? 0 : -errno;
}

DTA_API int dta_region_shm_stat_in(const char *dir, const char *name,
				   struct stat *st)
{
	int fd, err = 0;

	if (!dir)
		return dta_region_shm_stat(name, st);
	if (!name || name[0] != '/' || strchr(name + 1, '/') || !st || !dir[0])
		return -EINVAL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatat(fd, name + 1, st, AT_SYMLINK_NOFOLLOW) != 0)
		err = -errno;
	close(fd);
	return err;
}

DTA_API int dta_region_shm_unlink_in(const char *dir, const char *name)
{
	int fd, err = 0;

	if (!dir)
		return dta_region_unlink(DTA_BACKING_SHM, name);
	if (!name || name[0] != '/' || strchr(name + 1, '/') || !dir[0])
		return -EINVAL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (unlinkat(fd, name + 1, 0) != 0)
		err = -errno;
	close(fd);
	return err;
}

DTA_API int dta_region_unlink(int backing, const char *path)
{
	char p[PATH_MAX];
	int found = 0;

	if (!path || !path[0] ||
	    (backing != DTA_BACKING_SHM && backing != DTA_BACKING_FILE))
		return -EINVAL;
	if (backing == DTA_BACKING_FILE)
		return unlink(path) == 0 ? 0 : -errno;
	found |= shm_unlink(path) == 0;
	if (!huge_path(path, p, sizeof(p)))
		found |= unlink(p) == 0;
	return found ? 0 : -ENOENT;
}

/* Is shared-memory object @name there under the other backing: on
 * hugetlbfs (@huge) or in /dev/shm? Creating one name twice must see
 * both. */
static int shm_exists_as(const char *name, int huge)
{
	char p[PATH_MAX];
	struct stat st;

	if (huge)
		return hugetlbfs_available() && !huge_path(name, p, sizeof(p)) &&
		       lstat(p, &st) == 0;
	snprintf(p, sizeof(p), "/dev/shm%s", name);
	return lstat(p, &st) == 0;
}

/*
 * A shared-memory region on hugetlbfs: the file HUGETLBFS_DIR/NAME,
 * created like any region object (O_EXCL, explicit mode) and filled with
 * huge pages now (fallocate), so a pool too small is known here. Return 0
 * (mapped), 1 to fall back to /dev/shm (no hugetlbfs, or not enough huge
 * pages free: logged), or -errno.
 */
static int create_huge_shm(const struct dta_region_opts *o, uint64_t need,
			   struct dta_region *r)
{
	char p[PATH_MAX];
	struct statfs sf;
	uint64_t size;
	void *m;
	int fd, err;

	if (statfs(HUGETLBFS_DIR, &sf) != 0 ||
	    (unsigned long)sf.f_type != HUGETLBFS_MAGIC_NR) {
		dta__log(DTA_LOG_INFO, "region %s: shared memory uses 4 KiB "
			 "pages (no hugetlbfs mounted at %s)", o->path,
			 HUGETLBFS_DIR);
		return 1;
	}
	if (huge_path(o->path, p, sizeof(p)))
		return -ENAMETOOLONG;
	fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == EEXIST && !(o->flags & DTA_REGION_EXCL)) {
		unlink(p);
		fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			  0600);
	}
	if (fd < 0)
		return -errno;
	size = round_up(need, (uint64_t)sf.f_bsize);
	if (fchmod(fd, opts_mode(o)) != 0) {
		err = -errno;
		goto fail;
	}
	if (ftruncate(fd, (off_t)size) != 0 ||
	    fallocate(fd, 0, 0, (off_t)size) != 0) {
		dta__log(DTA_LOG_INFO, "region %s: %llu bytes of %lu-byte huge "
			 "pages not to be had on %s (%s); using /dev/shm",
			 o->path, (unsigned long long)size,
			 (unsigned long)sf.f_bsize, HUGETLBFS_DIR,
			 strerror(errno));
		err = 1;
		goto fail;
	}
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		err = -errno;
		goto fail;
	}
	r->path = strdup(p);
	if (!r->path) {
		munmap(m, size);
		err = -ENOMEM;
		goto fail;
	}
	close(fd);
	r->base = m;
	r->map_size = size;
	r->page_size = (uint64_t)sf.f_bsize;
	r->huge_bytes = size;
	return 0;
fail:
	close(fd);
	unlink(p);
	return err;
}

/*
 * A new object that is ours alone: O_EXCL, so an object someone else put
 * under the name is never reused, and the mode set with fchmod, so the
 * umask neither widens nor narrows it. Without DTA_REGION_EXCL an existing
 * object is removed first (create means "a new region").
 */
static int create_backing(const struct dta_region_opts *o, char **used_path)
{
	int oflags = O_RDWR | O_CREAT | O_EXCL;
	int fd;

	if (o->backing == DTA_BACKING_SHM && !opts_dir(o) &&
	    shm_exists_as(o->path, 1)) {
		char p[PATH_MAX];

		if (o->flags & DTA_REGION_EXCL)
			return -EEXIST;
		if (!huge_path(o->path, p, sizeof(p)))
			unlink(p);
	}
	fd = open_backing(o, oflags, 0600, used_path);

	if (fd == -EEXIST && !(o->flags & DTA_REGION_EXCL)) {
		if (o->backing == DTA_BACKING_FILE)
			unlink(o->path);
		else
			dta_region_shm_unlink_in(opts_dir(o), o->path);
		fd = open_backing(o, oflags, 0600, used_path);
	}
	if (fd < 0)
		return fd;
	if (fchmod(fd, opts_mode(o)) != 0) {
		int err = -errno;

		close(fd);
		unlink_backing(*used_path);
		free(*used_path);
		*used_path = NULL;
		return err;
	}
	return fd;
}

/*
 * Reserve the memory of a shared-memory or file region now, so running out
 * of it is an error here and not a SIGBUS in whoever writes there later.
 * The free space is checked first: posix_fallocate() on tmpfs would
 * otherwise fill memory page by page before it fails.
 */
static int reserve_backing(int fd, uint64_t need, const struct dta_region_opts *o)
{
	const char *what = o->name ? o->name : o->path;
	const char *where = o->backing != DTA_BACKING_SHM ? NULL
			    : opts_dir(o) ? opts_dir(o) : "/dev/shm";
	struct statvfs sv;
	int rc;

	if (fstatvfs(fd, &sv) == 0 && sv.f_frsize &&
	    (uint64_t)sv.f_bavail < (need + sv.f_frsize - 1) / sv.f_frsize) {
		dta__log(DTA_LOG_ERROR,
			 "region %s: needs %llu bytes but %s has %llu free: "
			 "%s is too small for it", what, (unsigned long long)need,
			 where ? where : o->path,
			 (unsigned long long)sv.f_bavail * sv.f_frsize,
			 where ? where : "the file system");
		return -ENOSPC;
	}
	do
		rc = posix_fallocate(fd, 0, (off_t)need);
	while (rc == EINTR);
	if (rc == EOPNOTSUPP || rc == EINVAL)
		return 0; /* no reservation on this file system; ftruncate only */
	if (rc)
		dta__log(DTA_LOG_ERROR, "region %s: cannot reserve %llu bytes: %s",
			 what, (unsigned long long)need, strerror(rc));
	return -rc;
}

/* A region opened for writing must be one nobody else could have planted:
 * owned by us (unless the caller writes into someone else's on purpose)
 * and granting no access beyond the mode the caller expects. */
static int check_owner(int fd, const struct dta_region_opts *o)
{
	mode_t allowed = opts_mode(o);
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!(o->flags & DTA_REGION_ANY_OWNER) && st.st_uid != geteuid()) {
		dta__log(DTA_LOG_ERROR, "region %s: owned by uid %u, not by us "
			 "(uid %u): refusing to use it", o->path,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (st.st_mode & 07777 & ~allowed) {
		dta__log(DTA_LOG_ERROR, "region %s: mode %04o grants more than "
			 "%04o: refusing to use it", o->path,
			 (unsigned)(st.st_mode & 07777), (unsigned)allowed);
		return -EPERM;
	}
	return 0;
}

/* A shared-memory region opened read-only (an analysis tool mapping a
 * collector's structure) must be one only its owner could have filled:
 * owned by us or root (any owner with DTA_REGION_ANY_OWNER: a member of
 * the region's group reading its collector's), and writable by no one
 * outside its owner and group. Files (snapshots) are not checked: their
 * data has a CRC in the header. */
static int check_reader(int fd, const struct dta_region_opts *o)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!(o->flags & DTA_REGION_ANY_OWNER) && st.st_uid != geteuid() &&
	    st.st_uid != 0) {
		dta__log(DTA_LOG_ERROR, "region %s: owned by uid %u, neither us "
			 "(uid %u) nor root: refusing to read it", o->path,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (st.st_mode & S_IWOTH) {
		dta__log(DTA_LOG_ERROR, "region %s: mode %04o lets anyone write "
			 "it: refusing to read it", o->path,
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#define TMPFS_MAGIC_NR 0x01021994

/* Is @fd a file of tmpfs (/dev/shm) or hugetlbfs? Their shared mappings
 * need no notice of a page's first write, so a page mapped by a read
 * fault is mapped writable. */
static int fd_shmem(int fd)
{
	struct statfs st;

	return fd >= 0 && fstatfs(fd, &st) == 0 &&
	       ((unsigned long)st.f_type == TMPFS_MAGIC_NR ||
		(unsigned long)st.f_type == HUGETLBFS_MAGIC_NR);
}

/*
 * DTA_REGION_POPULATE: fill this process's page tables for @r's mapping
 * now, for writing. The object behind a shared mapping was filled at
 * creation, but every process that maps it still takes a fault at its
 * first write to each page (page cache to page table); a first pass over
 * a structure of a few GiB paid that a million times. Neither advice
 * writes anything, so populating is safe while other writers write.
 * On tmpfs and hugetlbfs (@fd given) MADV_POPULATE_READ: its faults map
 * the pages around each one in a batch, writable there, at half the
 * cost of MADV_POPULATE_WRITE's fault per page (1.5 GiB: 56 against
 * 103 ms of CPU here; the first pass ran as fast after either). Anything
 * else (private memory, where a read maps the zero page; other file
 * systems, which must see each page's first write) MADV_POPULATE_WRITE.
 * Where the kernel knows neither (EINVAL, before 5.14): @fd >= 0 maps
 * the object again with MAP_POPULATE (the mapping is only switched once
 * the new one exists); @fd < 0, only for memory nobody has written yet
 * (a region being created), a zero is written into each page. A failure
 * is logged and the region stays usable, unpopulated.
 */
static void populate(struct dta_region *r, int fd)
{
	static atomic_bool old_kernel_said;
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	int advice = fd_shmem(fd) ? MADV_POPULATE_READ : MADV_POPULATE_WRITE;
	int rc, tries = 0;

	do
		rc = madvise(r->base, r->map_size, advice);
	while (rc != 0 && errno == EINTR && ++tries < 4);
	if (rc != 0 && errno == EINVAL) {
		if (!atomic_exchange(&old_kernel_said, true))
			dta__log(DTA_LOG_INFO, "region: the kernel has no "
				 "MADV_POPULATE_* (before Linux 5.14): "
				 "populating with %s instead",
				 fd >= 0 ? "MAP_POPULATE" : "a write per page");
		if (fd >= 0) {
			void *p = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_POPULATE, fd, 0);

			rc = p == MAP_FAILED ? -1 : 0;
			if (p != MAP_FAILED) {
				munmap(r->base, r->map_size);
				r->base = p;
			}
		} else {
			for (uint64_t off = 0; off < r->map_size; off += 4096)
				*(volatile uint8_t *)(r->base + off) = 0;
			rc = 0;
		}
	}
	if (rc != 0) {
		dta__log(DTA_LOG_WARN, "region %s: cannot populate its %llu "
			 "bytes (%s): its pages fault at their first write "
			 "instead", r->name, (unsigned long long)r->map_size,
			 strerror(errno));
		r->populate_ns = 0;
		return;
	}
	r->populate_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	if (!r->populate_ns)
		r->populate_ns = 1;
}

static int map_fd(struct dta_region *r, int fd, uint64_t size, int prot)
{
	void *p = mmap(NULL, size, prot, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	r->base = p;
	r->map_size = size;
	r->page_size = 4096;
	return 0;
}

/*
 * The pages a new shared-memory region got: its mapping populated now
 * (the memory is reserved already; this builds the page tables, with huge
 * page entries where the file system gave huge pages) and measured in
 * /proc/self/smaps. A failure only leaves the report at 4 KiB.
 */
static void shm_pages(struct dta_region *r, bool asked)
{
	uint64_t vma = 0, got, t0 = clock_ns(CLOCK_MONOTONIC);

	if (madvise(r->base, r->map_size, MADV_POPULATE_WRITE) != 0)
		return; /* EINVAL: a kernel before 5.14; nothing measured */
	/* What DTA_REGION_POPULATE (@asked) asks for is done. */
	if (asked) {
		r->populate_ns = clock_ns(CLOCK_MONOTONIC) - t0;
		if (!r->populate_ns)
			r->populate_ns = 1;
	}
	got = thp_bytes(r->base, &vma);
	r->huge_bytes = got;
	if (vma && got >= vma / 2)
		r->page_size = thp_size();
}

DTA_API int dta_region_create(const struct dta_layout *layout,
			      const struct dta_region_opts *opts,
			      struct dta_region **out)
{
	struct dta_region *r;
	uint64_t need;
	int fd = -1, err;

	if (!layout || !out || !opts_ok(opts))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->layout = *layout;
	r->backing = opts->backing;
	r->flags = opts->flags;
	r->version = REGION_VERSION;
	r->writable = 1;
	r->origin = new_origin();
	r->created_ns = now_ns();
	if (opts->name)
		snprintf(r->name, sizeof(r->name), "%s", opts->name);
	if (opts_schema(opts) && schema_set(r, opts_schema(opts))) {
		err = -EINVAL;
		goto err_free;
	}
	if (layout->data_size > UINT64_MAX - DTA_REGION_HEADER_SIZE - (1ull << 30)) {
		err = -EINVAL;
		goto err_free;
	}
	need = DTA_REGION_HEADER_SIZE + layout->data_size;

	if (opts->backing == DTA_BACKING_ANON) {
		err = map_anon(r, need, !!(opts->flags & DTA_REGION_HUGE));
		if (err)
			goto err_free;
	} else {
		if ((opts->flags & DTA_REGION_HUGE) &&
		    opts->backing == DTA_BACKING_SHM && !opts_dir(opts)) {
			if (shm_exists_as(opts->path, 0)) {
				if (opts->flags & DTA_REGION_EXCL) {
					err = -EEXIST;
					goto err_free;
				}
				shm_unlink(opts->path);
			}
			err = create_huge_shm(opts, need, r);
			if (err < 0)
				goto err_free;
			if (err == 0)
				goto mapped;
		}
		fd = create_backing(opts, &r->path);
		if (fd < 0) {
			err = fd;
			goto err_free;
		}
		/* In a directory (a tmpfs with huge=within_size): whole huge
		 * pages, so the last one is huge too. */
		need = round_up(need, opts_dir(opts) ? thp_size() : 4096);
		if (ftruncate(fd, (off_t)need) != 0) {
			err = -errno;
			goto err_unlink;
		}
		err = reserve_backing(fd, need, opts);
		if (err)
			goto err_unlink;
		err = map_fd(r, fd, need, PROT_READ | PROT_WRITE);
		if (err)
			goto err_unlink;
		close(fd);
		fd = -1;
		if (opts->backing == DTA_BACKING_SHM)
			shm_pages(r, opts->flags & DTA_REGION_POPULATE);
	}
mapped:
	/* Nothing is written yet: no fd needed for the old-kernel path. */
	if ((opts->flags & DTA_REGION_POPULATE) && !r->populate_ns)
		populate(r, -1);
	err = header_encode(r, r->base);
	if (err)
		goto err_unmap;
	atomic_store(state_word(r), (opts->flags & DTA_REGION_DORMANT)
					    ? DTA_REGION_RETIRED
					    : DTA_REGION_LIVE);
	if (!(opts->flags & DTA_REGION_UNLINK)) {
		free(r->path);
		r->path = NULL;
	}
	*out = r;
	return 0;

err_unmap:
	munmap(r->base, r->map_size);
err_unlink:
	if (fd >= 0)
		close(fd);
	unlink_backing(r->path);
err_free:
	free(r->path);
	free(r);
	return err;
}

static int verify_data(const struct dta_region *r)
{
	uint32_t crc = dta_crc32c(0, r->base + DTA_REGION_HEADER_SIZE,
				  r->layout.data_size);

	if (crc == r->data_crc)
		return 0;
	dta__log(DTA_LOG_ERROR, "region %s: data checksum 0x%08x, the header "
		 "says 0x%08x: the file was changed after it was saved",
		 r->name, crc, r->data_crc);
	return -DTA_E_CHECKSUM;
}

DTA_API int dta_region_open(const struct dta_region_opts *opts,
			    struct dta_region **out)
{
	uint8_t hdr[DTA_REGION_HEADER_SIZE];
	struct dta_region *r;
	struct stat st;
	uint64_t hp;
	int rdonly, fd, err;
	ssize_t n;

	if (!out || !opts_ok(opts) || opts->backing == DTA_BACKING_ANON)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	rdonly = !!(opts->flags & DTA_REGION_RDONLY);
	r->backing = opts->backing;
	r->flags = opts->flags;
	r->writable = !rdonly;
	fd = open_backing(opts, rdonly ? O_RDONLY : O_RDWR, 0, &r->path);
	if (fd < 0) {
		err = fd;
		goto err_free;
	}
	if (!rdonly || opts->backing == DTA_BACKING_SHM) {
		err = rdonly ? check_reader(fd, opts) : check_owner(fd, opts);
		if (err)
			goto err_close;
	}
	if (fstat(fd, &st) != 0) {
		err = -errno;
		goto err_close;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n < 0) {
		err = -errno;
		goto err_close;
	}
	if ((size_t)n < sizeof(hdr)) {
		err = -DTA_E_BADREGION;
		goto err_close;
	}
	err = header_decode(hdr, (uint64_t)st.st_size, r);
	if (err)
		goto err_close;
	/* Only a version-2 region has the state words writers use. */
	if (!rdonly && r->version != REGION_VERSION) {
		err = -DTA_E_REGIONVERSION;
		goto err_close;
	}
	hp = fd_huge_page(fd);
	if (hp) /* hugetlbfs maps whole huge pages only */
		r->map_size = round_up(r->map_size, hp);
	err = map_fd(r, fd, r->map_size,
		     rdonly ? PROT_READ : PROT_READ | PROT_WRITE);
	if (err)
		goto err_close;
	if (hp)
		r->page_size = hp;
	if (!rdonly && (opts->flags & DTA_REGION_POPULATE))
		populate(r, fd);
	if (r->saved_ns && r->version != 1) {
		err = verify_data(r);
		if (err)
			goto err_unmap;
	}
	close(fd);
	if (!(opts->flags & DTA_REGION_UNLINK)) {
		free(r->path);
		r->path = NULL;
	}
	*out = r;
	return 0;

err_unmap:
	munmap(r->base, r->map_size);
err_close:
	close(fd);
err_free:
	free(r->path);
	free(r);
	return err;
}

/* The data area through a bounce buffer: the CRC covers exactly the bytes
 * written, although writers may change the live memory meanwhile. */
static int write_data(int fd, const struct dta_region *r, uint32_t *crc)
{
	const uint8_t *src = r->base + DTA_REGION_HEADER_SIZE;
	uint64_t left = r->layout.data_size;
	uint8_t *buf = malloc(SAVE_CHUNK);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	*crc = 0;
	while (left && !err) {
		size_t n = left < SAVE_CHUNK ? (size_t)left : SAVE_CHUNK;

		memcpy(buf, src, n);
		*crc = dta_crc32c(*crc, buf, n);
		err = dta__write_all(fd, buf, n);
		src += n;
		left -= n;
	}
	free(buf);
	return err;
}

DTA_API int dta_region_save(const struct dta_region *r, const char *path)
{
	uint8_t hdr[DTA_REGION_HEADER_SIZE];
	struct dta_region tmp_r;
	struct dta__file_tmp f;
	int err;

	if (!r || !path || !path[0])
		return -EINVAL;
	/* Snapshots are the owner's alone (dta__file_begin()). */
	err = dta__file_begin(path, DTA_REGION_HEADER_SIZE, &f);
	if (err)
		return err;
	/* A saved file is exactly header + data, whatever the mapping's
	 * page rounding was; its header keeps the source's origin. */
	tmp_r = *r;
	tmp_r.map_size = DTA_REGION_HEADER_SIZE + r->layout.data_size;
	tmp_r.saved_ns = now_ns();
	err = write_data(f.fd, r, &tmp_r.data_crc);
	if (!err)
		err = header_encode(&tmp_r, hdr);
	if (err) {
		dta__file_abort(&f);
		return err;
	}
	return dta__file_commit(&f, path, hdr, sizeof(hdr));
}

DTA_API int dta_region_copy(struct dta_region *dst,
			    const struct dta_region *src)
{
	uint8_t a[DTA_LAYOUT_WIRE_SIZE], b[DTA_LAYOUT_WIRE_SIZE];

	if (!dst || !src)
		return -EINVAL;
	dta_layout_encode(&dst->layout, a, sizeof(a));
	dta_layout_encode(&src->layout, b, sizeof(b));
	if (memcmp(a, b, sizeof(a)) != 0)
		return -DTA_E_MISMATCH;
	memcpy(dst->base + DTA_REGION_HEADER_SIZE,
	       src->base + DTA_REGION_HEADER_SIZE, dst->layout.data_size);
	return 0;
}

DTA_API int dta_region_load(struct dta_region *r, const char *path)
{
	struct dta_region_opts o = {
		.sz = sizeof(o),
		.backing = DTA_BACKING_FILE,
		.path = path,
		.flags = DTA_REGION_RDONLY,
	};
	struct dta_region *src;
	int err;

	if (!r || !path)
		return -EINVAL;
	err = dta_region_open(&o, &src);
	if (err)
		return err;
	err = dta_region_copy(r, src);
	dta_region_destroy(src);
	return err;
}

DTA_API int dta_region_enter(struct dta_region *r)
{
	if (!r || !r->writable || r->version != REGION_VERSION)
		return -EINVAL;
	/* Announce first, then look: with dta_region_retire() storing the
	 * state before reading the count (both sequentially consistent),
	 * either it sees this writer or this writer sees RETIRED. */
	atomic_fetch_add(writers_word(r), 1);
	if (atomic_load(state_word(r)) == DTA_REGION_LIVE)
		return 0;
	atomic_fetch_sub(writers_word(r), 1);
	return -ESTALE;
}

DTA_API void dta_region_leave(struct dta_region *r)
{
	if (r && r->writable && r->version == REGION_VERSION)
		atomic_fetch_sub_explicit(writers_word(r), 1, memory_order_release);
}

DTA_API int dta_region_retire(struct dta_region *r, unsigned timeout_ms)
{
	uint64_t deadline;
	uint32_t w;

	if (!r || !r->writable || r->version != REGION_VERSION)
		return -EINVAL;
	atomic_store(state_word(r), DTA_REGION_RETIRED);
	deadline = clock_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_ms * 1000000ull;
	while ((w = atomic_load(writers_word(r))) != 0) {
		struct timespec ts = { .tv_nsec = 200000 };

		if (clock_ns(CLOCK_MONOTONIC) >= deadline) {
			dta__log(DTA_LOG_WARN, "region %s: %u writer%s still "
				 "inside after %u ms", r->name, w,
				 w == 1 ? "" : "s", timeout_ms);
			return -ETIMEDOUT;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

DTA_API int dta_region_revive(struct dta_region *r)
{
	if (!r || !r->writable || r->version != REGION_VERSION)
		return -EINVAL;
	atomic_store(state_word(r), DTA_REGION_LIVE);
	return 0;
}

DTA_API int dta_region_state(const struct dta_region *r)
{
	uint32_t s;

	if (!r || r->version != REGION_VERSION || r->saved_ns)
		return 0;
	s = atomic_load(state_word(r));
	return s == DTA_REGION_LIVE || s == DTA_REGION_RETIRED ? (int)s : 0;
}

DTA_API uint64_t dta_region_origin(const struct dta_region *r)
{
	return r ? r->origin : 0;
}

DTA_API uint64_t dta_region_created_ns(const struct dta_region *r)
{
	return r ? r->created_ns : 0;
}

DTA_API uint64_t dta_region_saved_ns(const struct dta_region *r)
{
	return r ? r->saved_ns : 0;
}

DTA_API void dta_region_destroy(struct dta_region *r)
{
	if (!r)
		return;
	if (r->base)
		munmap(r->base, r->map_size);
	unlink_backing(r->path);
	free(r->path);
	free(r);
}

DTA_API const struct dta_layout *dta_region_layout(const struct dta_region *r)
{
	return r ? &r->layout : NULL;
}

DTA_API const struct dta_schema *dta_region_schema(const struct dta_region *r)
{
	return r && r->has_schema ? &r->schema : NULL;
}

DTA_API const char *dta_region_name(const struct dta_region *r)
{
	return r ? r->name : NULL;
}

DTA_API void *dta_region_data(const struct dta_region *r)
{
	return r ? r->base + DTA_REGION_HEADER_SIZE : NULL;
}

DTA_API uint64_t dta_region_data_size(const struct dta_region *r)
{
	return r ? r->layout.data_size : 0;
}

DTA_API void *dta_region_base(const struct dta_region *r)
{
	return r ? r->base : NULL;
}

DTA_API uint64_t dta_region_map_size(const struct dta_region *r)
{
	return r ? r->map_size : 0;
}

DTA_API uint64_t dta_region_page_size(const struct dta_region *r)
{
	return r ? r->page_size : 0;
}

DTA_API uint64_t dta_region_populate_ns(const struct dta_region *r)
{
	return r ? r->populate_ns : 0;
}

DTA_API uint64_t dta_region_huge_bytes(const struct dta_region *r)
{
	return r ? r->huge_bytes : 0;
}

