/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a configuration's collectors are: their sockets and shared-memory
 * objects (dta/config.h). Collectors, translators, dta-query and the
 * client all derive these names here, so they cannot disagree.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dta/config.h"

DTA_API uint32_t dta_config_share_list_base(const struct dta_config_structure *cs,
					    unsigned k)
{
	if (cs->layout.primitive != DTA_PRIM_APPEND)
		return cs->list_base;
	return cs->list_base + k * cs->layout.g.ap.lists;
}

DTA_API int dta_runtime_dir(char *out, size_t cap)
{
	const char *rd = getenv("RUNTIME_DIRECTORY");
	const char *x = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (!out)
		return -EINVAL;
	if (rd && *rd) /* systemd: several directories are ':'-separated */
		n = snprintf(out, cap, "%.*s", (int)strcspn(rd, ":"), rd);
	else if (geteuid() == 0 || stat(DTA_RUN_DIR, &st) == 0)
		n = snprintf(out, cap, "%s", DTA_RUN_DIR);
	else if (x && *x)
		n = snprintf(out, cap, "%s", x);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

DTA_API int dta_default_socket(const char *name, char *out, size_t cap)
{
	char dir[PATH_MAX];
	int n, err;

	if (!name || !out)
		return -EINVAL;
	err = dta_runtime_dir(dir, sizeof(dir));
	if (err)
		return err;
	n = snprintf(out, cap, "%s/dta-%s.sock", dir, name);
	return n < 0 || (size_t)n >= cap || n > DTA_SOCKET_PATH_MAX
		       ? -ENAMETOOLONG : 0;
}

DTA_API const char *dta_config_collector_id(const struct dta_config *c,
					    size_t i)
{
	const char *n = dta_config_collector_get(c, i, "name");
	const char *sec = dta_config_collector_name(c, i);

	if (!sec)
		return NULL;
	return n ? n : *sec ? sec : "dta";
}

DTA_API int dta_config_collector_socket(const struct dta_config *c, size_t i,
					char *out, size_t cap)
{
	const char *s = dta_config_collector_get(c, i, "socket");
	int n;

	if (!out)
		return -EINVAL;
	if (!dta_config_collector_name(c, i))
		return -ENOENT;
	if (!s)
		return dta_default_socket(dta_config_collector_id(c, i), out,
					  cap);
	n = snprintf(out, cap, "%s", s);
	return n < 0 || (size_t)n >= cap || n > DTA_SOCKET_PATH_MAX
		       ? -ENAMETOOLONG : 0;
}

DTA_API int dta_config_shm_name(const char *coll, const char *st, char *out,
				size_t cap)
{
	int n;

	if (!coll || !st || !out)
		return -EINVAL;
	n = snprintf(out, cap, "/dta-%s.%s", coll, st);
	/* The limit libdta's regions take (dta_region_opts.path shorter
	 * than NAME_MAX); shm_open() itself names a file in /dev/shm. */
	if (n < 0 || (size_t)n >= cap || (size_t)n > NAME_MAX - 1)
		return -ENAMETOOLONG;
	return 0;
}

DTA_API int dta_config_collector_mode(const struct dta_config *c, size_t i,
				      const char *key, unsigned def,
				      unsigned *mode)
{
	const char *v;
	unsigned long m;
	char *end;

	if (!mode || !key || !dta_config_collector_name(c, i))
		return -EINVAL;
	v = dta_config_collector_get(c, i, key);
	*mode = def;
	if (!v)
		return 0;
	errno = 0;
	m = strtoul(v, &end, 8);
	if (errno || end == v || *end || m > 0777)
		return -EINVAL;
	*mode = (unsigned)m;
	return 0;
}
