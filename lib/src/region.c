/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regions: mapping, self-describing header, snapshots (docs/layouts.md,
 * "Region header").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "dta/region.h"
#include "internal.h"

#define REGION_MAGIC "DTAREGN1"
#define REGION_VERSION 1
#define REGION_F_LITTLE_ENDIAN 0x1 /* counters are little-endian */
#define REGION_LAYOUT_OFF 112
#define REGION_CRC_OFF (DTA_REGION_HEADER_SIZE - 4)
#define HUGETLBFS_DIR "/dev/hugepages"
#define HUGETLBFS_MAGIC_NR 0x958458f6

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static_assert(REGION_LAYOUT_OFF + DTA_LAYOUT_WIRE_SIZE <= REGION_CRC_OFF,
	      "region header too small");

struct dta_region {
	struct dta_layout layout;
	char name[DTA_REGION_NAME_MAX];
	uint8_t *base;
	uint64_t map_size;
	uint64_t page_size;
	int backing;
	unsigned flags;
	char *path; /* backing object to unlink on destroy, or NULL */
};

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
	dta__put_le(h + 12, host_little_endian() ? REGION_F_LITTLE_ENDIAN : 0, 4);
	dta__put_le(h + 16, r->map_size, 8);
	dta__put_le(h + 24, DTA_REGION_HEADER_SIZE, 8);
	dta__put_le(h + 32, r->layout.data_size, 8);
	dta__put_le(h + 40, (uint64_t)time(NULL), 8);
	memcpy(h + 48, r->name, strnlen(r->name, DTA_REGION_NAME_MAX - 1));
	err = dta_layout_encode(&r->layout, h + REGION_LAYOUT_OFF,
				DTA_LAYOUT_WIRE_SIZE);
	if (err < 0)
		return err;
	dta__put_le(h + REGION_CRC_OFF, dta_crc32c(0, h, REGION_CRC_OFF), 4);
	return 0;
}

/* Validate a header read from a file of @file_size bytes. */
static int header_decode(const uint8_t *h, uint64_t file_size,
			 struct dta_region *r)
{
	uint64_t data_off, data_size, map_size;
	uint32_t flags;
	int err;

	if (memcmp(h, REGION_MAGIC, 8) != 0)
		return -DTA_E_BADREGION;
	if (dta__get_le(h + REGION_CRC_OFF, 4) != dta_crc32c(0, h, REGION_CRC_OFF))
		return -DTA_E_BADREGION;
	if (dta__get_le(h + 8, 2) != REGION_VERSION)
		return -DTA_E_REGIONVERSION;
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
	memcpy(r->name, h + 48, DTA_REGION_NAME_MAX - 1);
	r->name[DTA_REGION_NAME_MAX - 1] = '\0';
	r->map_size = data_off + data_size;
	return 0;
}

static int opts_ok(const struct dta_region_opts *o)
{
	if (!o || o->sz < sizeof(struct dta_region_opts))
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

/* Anonymous mapping, huge pages first when asked (1 GiB pages only for
 * regions of at least 1 GiB, where they cost no more than they save). */
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
				return 0;
			}
			dta__log(DTA_LOG_INFO,
				 "region: no %s huge pages (%s), trying smaller",
				 i == 0 ? "1 GiB" : "2 MiB", strerror(errno));
		}
		dta__log(DTA_LOG_WARN,
			 "region: huge pages unavailable; using 4 KiB pages "
			 "with transparent huge page advice");
	}
	r->map_size = round_up(need, 4096);
	p = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (huge)
		(void)madvise(p, r->map_size, MADV_HUGEPAGE);
	r->base = p;
	r->page_size = 4096;
	return 0;
}

static int open_backing(const struct dta_region_opts *o, int oflags,
			mode_t mode, char **used_path)
{
	int fd;

	if (o->backing == DTA_BACKING_FILE) {
		fd = open(o->path, oflags | O_CLOEXEC, mode);
		if (fd >= 0)
			*used_path = strdup(o->path);
		return fd < 0 ? -errno : fd;
	}
	fd = shm_open(o->path, oflags, mode);
	if (fd >= 0) {
		char buf[PATH_MAX];

		snprintf(buf, sizeof(buf), "shm:%s", o->path);
		*used_path = strdup(buf);
	}
	return fd < 0 ? -errno : fd;
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

static void unlink_backing(const char *path)
{
	if (!path)
		return;
	if (!strncmp(path, "shm:", 4))
		shm_unlink(path + 4);
	else
		unlink(path);
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
	if (opts->name)
		snprintf(r->name, sizeof(r->name), "%s", opts->name);
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
		int oflags = O_RDWR | O_CREAT | O_TRUNC |
			     ((opts->flags & DTA_REGION_EXCL) ? O_EXCL : 0);

		if ((opts->flags & DTA_REGION_HUGE) &&
		    opts->backing == DTA_BACKING_SHM)
			dta__log(DTA_LOG_INFO,
				 "region %s: shared memory uses 4 KiB pages%s",
				 opts->path,
				 hugetlbfs_available()
					 ? " (hugetlbfs objects are not "
					   "supported for shm regions yet)"
					 : " (no hugetlbfs mounted)");
		fd = open_backing(opts, oflags, 0600, &r->path);
		if (fd < 0) {
			err = fd;
			goto err_free;
		}
		need = round_up(need, 4096);
		if (ftruncate(fd, (off_t)need) != 0) {
			err = -errno;
			goto err_unlink;
		}
		err = map_fd(r, fd, need, PROT_READ | PROT_WRITE);
		if (err)
			goto err_unlink;
		close(fd);
		fd = -1;
	}
	err = header_encode(r, r->base);
	if (err)
		goto err_unmap;
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

DTA_API int dta_region_open(const struct dta_region_opts *opts,
			    struct dta_region **out)
{
	uint8_t hdr[DTA_REGION_HEADER_SIZE];
	struct dta_region *r;
	struct stat st;
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
	fd = open_backing(opts, rdonly ? O_RDONLY : O_RDWR, 0, &r->path);
	if (fd < 0) {
		err = fd;
		goto err_free;
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
	err = map_fd(r, fd, r->map_size,
		     rdonly ? PROT_READ : PROT_READ | PROT_WRITE);
	if (err)
		goto err_close;
	close(fd);
	if (!(opts->flags & DTA_REGION_UNLINK)) {
		free(r->path);
		r->path = NULL;
	}
	*out = r;
	return 0;

err_close:
	close(fd);
err_free:
	free(r->path);
	free(r);
	return err;
}

static int write_all(int fd, const uint8_t *p, uint64_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len > (1u << 30) ? (1u << 30) : len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

DTA_API int dta_region_save(const struct dta_region *r, const char *path)
{
	uint8_t hdr[DTA_REGION_HEADER_SIZE];
	struct dta_region tmp_r;
	char *tmp;
	int fd, err;

	if (!r || !path || !path[0])
		return -EINVAL;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto err_free;
	}
	/* A saved file is exactly header + data, whatever the mapping's
	 * page rounding was. */
	tmp_r = *r;
	tmp_r.map_size = DTA_REGION_HEADER_SIZE + r->layout.data_size;
	err = header_encode(&tmp_r, hdr);
	if (err)
		goto err_unlink;
	err = write_all(fd, hdr, sizeof(hdr));
	if (!err)
		err = write_all(fd, r->base + DTA_REGION_HEADER_SIZE,
				r->layout.data_size);
	if (!err && fsync(fd) != 0)
		err = -errno;
	if (err)
		goto err_unlink;
	if (close(fd) != 0) {
		fd = -1;
		err = -errno;
		goto err_unlink;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		err = -errno;
		goto err_unlink;
	}
	free(tmp);
	return 0;

err_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
err_free:
	free(tmp);
	return err;
}

DTA_API int dta_region_load(struct dta_region *r, const char *path)
{
	struct dta_region_opts o = {
		.sz = sizeof(o),
		.backing = DTA_BACKING_FILE,
		.path = path,
		.flags = DTA_REGION_RDONLY,
	};
	uint8_t a[DTA_LAYOUT_WIRE_SIZE], b[DTA_LAYOUT_WIRE_SIZE];
	struct dta_region *src;
	int err;

	if (!r || !path)
		return -EINVAL;
	err = dta_region_open(&o, &src);
	if (err)
		return err;
	dta_layout_encode(&r->layout, a, sizeof(a));
	dta_layout_encode(&src->layout, b, sizeof(b));
	if (memcmp(a, b, sizeof(a)) != 0) {
		err = -DTA_E_MISMATCH;
		goto out;
	}
	memcpy(r->base + DTA_REGION_HEADER_SIZE,
	       src->base + DTA_REGION_HEADER_SIZE, r->layout.data_size);
out:
	dta_region_destroy(src);
	return err;
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
