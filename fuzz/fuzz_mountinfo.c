/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness for the collector's reading of /proc/self/mountinfo
 * (coll_shm_mountinfo_huge(), collector/shmdir.c: which huge= option the
 * tmpfs under shm_dir or /dev/shm has). The input's first two bytes are
 * the device's major and minor number, the rest is the text. Whatever the
 * text, the answer fits its buffer, is NUL-terminated and holds no ','
 * or ' '; a second call with a buffer one byte long answers the same
 * found/not found, with an empty string. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shmdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[32], one[1];
	int rc, rc1;

	if (size < 2)
		return 0;
	memset(out, 'x', sizeof(out));
	rc = coll_shm_mountinfo_huge((const char *)data + 2, size - 2, data[0],
				     data[1], out, sizeof(out));
	if (rc != 0 && rc != 1)
		abort();
	if (!memchr(out, 0, sizeof(out)) || strpbrk(out, ", "))
		abort();
	if (rc == 0 && out[0])
		abort();
	rc1 = coll_shm_mountinfo_huge((const char *)data + 2, size - 2, data[0],
				      data[1], one, sizeof(one));
	if (rc1 != rc || one[0])
		abort();
	if (coll_shm_mountinfo_huge((const char *)data + 2, size - 2, data[0],
				    data[1], out, 0) != -1)
		abort();
	return 0;
}
