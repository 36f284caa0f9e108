/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [collector] shm_dir: checked like snapshot_dir (tool_private_dir()'s
 * rules, without creating it: it is a mount point), and its tmpfs mount's
 * huge= option read from /proc/self/mountinfo, so that a collector whose
 * regions land on 4 KiB pages can say why.
 */
#include "shmdir.h"
#include "tools.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#define TMPFS_MAGIC_NR 0x01021994

int coll_shm_mountinfo_huge(const char *text, size_t len, unsigned maj,
			    unsigned min, char *out, size_t cap)
{
	char line[4096];
	size_t off = 0;

	if (!cap)
		return -1;
	out[0] = '\0';
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		unsigned a, b;
		const char *sep, *h;

		if (n >= sizeof(line) || memchr(text + off, '\0', n)) {
			off += n + 1; /* not a line proc(5) writes */
			continue;
		}
		memcpy(line, text + off, n);
		line[n] = '\0';
		off += n + 1;
		if (sscanf(line, "%*u %*u %u:%u ", &a, &b) != 2 || a != maj ||
		    b != min)
			continue;
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		h = strstr(sep, "huge=");
		if (h && (h[-1] == ',' || h[-1] == ' ')) {
			h += 5;
			snprintf(out, cap, "%.*s", (int)strcspn(h, ", "), h);
		}
		return 1;
	}
	return 0;
}

/* The huge= option of the mount whose device is @dev, from
 * /proc/self/mountinfo. */
static void mount_huge(dev_t dev, char *out, size_t cap)
{
	char *text = NULL;
	size_t len = 0, got;
	FILE *m, *f = fopen("/proc/self/mountinfo", "re");
	char buf[4096];

	out[0] = '\0';
	if (!f)
		return;
	m = open_memstream(&text, &len);
	if (m) {
		while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, got, m);
		if (fclose(m) == 0)
			coll_shm_mountinfo_huge(text, len, major(dev),
						minor(dev), out, cap);
	}
	free(text);
	fclose(f);
}

static void describe(int fd, struct coll_shm_place *place)
{
	struct statfs sf;
	struct stat st;

	memset(place, 0, sizeof(*place));
	if (fstatfs(fd, &sf) == 0)
		place->tmpfs = (unsigned long)sf.f_type == TMPFS_MAGIC_NR;
	if (fstat(fd, &st) == 0)
		mount_huge(st.st_dev, place->huge, sizeof(place->huge));
}

int coll_shm_dir_check(const char *dir, struct coll_shm_place *place,
		       char *why, size_t cap)
{
	int fd = tool_private_dir_open(dir, why, cap);

	if (fd < 0) {
		if (errno == ENOENT)
			snprintf(why, cap, "%s does not exist: mount a tmpfs "
				 "there (docs/performance.md#huge-pages)", dir);
		return -1;
	}
	describe(fd, place);
	close(fd);
	if (!place->tmpfs) {
		snprintf(why, cap, "refusing %s: not on a tmpfs (the kernel "
			 "would write the structures back to disk); mount a "
			 "tmpfs there, huge=within_size "
			 "(docs/performance.md#huge-pages)", dir);
		return -1;
	}
	return 0;
}

void coll_shm_default(struct coll_shm_place *place)
{
	int fd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	memset(place, 0, sizeof(*place));
	if (fd < 0)
		return;
	describe(fd, place);
	close(fd);
}

/* /sys/kernel/mm/transparent_hugepage/shmem_enabled's chosen value. */
static void shmem_enabled(char *out, size_t cap)
{
	char line[256], *a, *b;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled",
			"re");

	snprintf(out, cap, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (a = strchr(line, '[')) &&
	    (b = strchr(a, ']')))
		snprintf(out, cap, "%.*s", (int)(b - a - 1), a + 1);
	fclose(f);
}

void coll_shm_why_small(const char *dir, const struct coll_shm_place *place,
			char *out, size_t cap)
{
	const char *where = dir ? dir : "/dev/shm";
	char se[64];

	if (!place->tmpfs) {
		snprintf(out, cap, "%s is not a tmpfs", where);
		return;
	}
	if (!place->huge[0] || !strcmp(place->huge, "never") ||
	    !strcmp(place->huge, "deny")) {
		shmem_enabled(se, sizeof(se));
		snprintf(out, cap, "%s has no huge pages (its tmpfs is mounted "
			 "%s%s; shmem_enabled %s)%s", where,
			 place->huge[0] ? "huge=" : "without huge=",
			 place->huge, se,
			 dir ? "; remount it with huge=within_size, see "
			       "docs/performance.md#huge-pages"
			     : "; set shm_dir to a tmpfs mounted with "
			       "huge=within_size, see "
			       "docs/performance.md#huge-pages");
		return;
	}
	snprintf(out, cap, "%s is mounted huge=%s but the kernel gave 4 KiB "
		 "pages (memory too fragmented for 2 MiB pages, or "
		 "transparent huge pages disabled: "
		 "/sys/kernel/mm/transparent_hugepage/enabled never)", where,
		 place->huge);
}
