/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Files replaced whole: written under a temporary name beside their path,
 * synced, renamed over it and the directory synced, so that a reader finds
 * the old file or the complete new one, never a part (region snapshots,
 * epoch files).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int dta__write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len > (1u << 30) ? (1u << 30) : len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int dta__file_begin(const char *path, size_t header_size,
		    struct dta__file_tmp *f)
{
	f->fd = -1;
	if (asprintf(&f->tmp, "%s.tmp.XXXXXX", path) < 0) {
		f->tmp = NULL;
		return -ENOMEM;
	}
	f->fd = mkstemp(f->tmp);
	if (f->fd < 0) {
		int err = -errno;

		free(f->tmp);
		f->tmp = NULL;
		return err;
	}
	/* The owner's alone, whatever the umask. */
	if (fchmod(f->fd, 0600) != 0 ||
	    lseek(f->fd, (off_t)header_size, SEEK_SET) < 0) {
		int err = -errno;

		dta__file_abort(f);
		return err;
	}
	return 0;
}

void dta__file_abort(struct dta__file_tmp *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp) {
		unlink(f->tmp);
		free(f->tmp);
	}
	f->tmp = NULL;
}

/* The rename is durable only once the directory holding it is synced. */
static int sync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, err = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	else if (fsync(fd) != 0 && errno != EINVAL)
		err = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return err;
}

int dta__file_commit(struct dta__file_tmp *f, const char *path,
		     const void *hdr, size_t hdr_len)
{
	ssize_t n = pwrite(f->fd, hdr, hdr_len, 0);
	int err;

	if (n != (ssize_t)hdr_len) {
		err = n < 0 ? -errno : -EIO;
		goto err_abort;
	}
	if (fsync(f->fd) != 0) {
		err = -errno;
		goto err_abort;
	}
	err = close(f->fd) ? -errno : 0;
	f->fd = -1;
	if (err)
		goto err_abort;
	if (rename(f->tmp, path) != 0) {
		err = -errno;
		goto err_abort;
	}
	free(f->tmp);
	f->tmp = NULL;
	return sync_dir_of(path);

err_abort:
	dta__file_abort(f);
	return err;
}
