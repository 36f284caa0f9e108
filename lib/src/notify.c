/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Region notifications: a sequence word in the region header (region.c
 * keeps where) that writers advance and readers sleep on with a futex.
 *
 * The futex is process-shared (no FUTEX_PRIVATE_FLAG): the kernel keys it
 * by the backing page, so a translator mapping the region read-write and
 * an analysis tool mapping it read-only wait and wake on the same word.
 * FUTEX_WAIT only reads the word, which a PROT_READ mapping allows
 * (tests/test_notify.c waits on one).
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "dta/region.h"
#include "internal.h"

DTA_API int dta_region_notify(struct dta_region *r)
{
	_Atomic uint32_t *w = dta__region_notify_word(r, 1);

	if (!w)
		return -EINVAL;
	/* Sequentially consistent: the data written before is visible to
	 * whoever reads the new value. */
	atomic_fetch_add(w, 1);
#ifdef __linux__
	/* Unconditional: read-only waiters cannot announce themselves in
	 * the header, so the writer cannot know whether anyone sleeps. A
	 * wake nobody waits for is one system call. */
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
#endif
	return 0;
}

DTA_API uint32_t dta_region_notify_seq(const struct dta_region *r)
{
	_Atomic uint32_t *w = dta__region_notify_word(r, 0);

	return w ? atomic_load(w) : 0;
}

DTA_API const uint32_t *dta_region_notify_addr(const struct dta_region *r)
{
	return (const uint32_t *)dta__region_notify_word(r, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

DTA_API int dta_region_wait(const struct dta_region *r, uint32_t seen,
			    int timeout_ms)
{
	_Atomic uint32_t *w = dta__region_notify_word(r, 0);
	uint64_t deadline = 0;

	if (!w)
		return -EINVAL;
	if (timeout_ms >= 0)
		deadline = mono_ns() + (uint64_t)timeout_ms * 1000000ull;
	for (;;) {
#ifdef __linux__
		struct timespec ts, *tp = NULL;
		long rc;
#endif

		if (atomic_load(w) != seen)
			return 0;
		if (timeout_ms >= 0) {
			uint64_t now = mono_ns();

			if (now >= deadline)
				return -ETIMEDOUT;
#ifdef __linux__
			ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
			ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
			tp = &ts;
#endif
		}
#ifdef __linux__
		/* The kernel compares the word with @seen under its lock:
		 * a notify between our load and the sleep is not missed. */
		rc = syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, seen, tp,
			     NULL, 0);
		if (rc == -1 && errno == EINTR)
			return -EINTR;
		if (rc == -1 && errno != EAGAIN && errno != ETIMEDOUT)
			return -errno;
		/* Woken, changed already (EAGAIN), timed out or spurious:
		 * look again. */
#else
		return -ENOSYS;
#endif
	}
}
