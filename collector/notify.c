/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's notifier (collector/notify.h). One thread sleeps in
 * futex_waitv() (Linux >= 5.16) on every structure's sequence word and on
 * a private word of its own (bumped to stop, or when clients start
 * waiting); when a sequence moved it writes the eventfd the event loop
 * polls. While no client waits it sleeps on its own word only, so
 * notifications nobody waits for cost the collector nothing. Without
 * futex_waitv it looks at the words every 10 ms instead.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>

#include "notify.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#ifndef FUTEX_32
#define FUTEX_32 2
#endif

/* Own definition: struct futex_waitv is in <linux/futex.h> only from
 * kernel headers 5.16 on; the ABI is fixed. */
struct notify_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

struct coll_notify {
	size_t n;
	const uint32_t *word[DTA_CONFIG_MAX_STRUCTURES];
	uint32_t last[DTA_CONFIG_MAX_STRUCTURES];
	_Atomic uint32_t ctl; /* bumped to stop the thread or make it watch */
	atomic_bool stop;
	atomic_bool want;     /* some client waits: watch the sequences */
	int efd;
	pthread_t th;
	bool running;
};

static uint32_t load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void wake_loop(struct coll_notify *nt)
{
	uint64_t one = 1;

	(void)!write(nt->efd, &one, sizeof(one));
}

/* Tell the loop when a sequence moved since the last look. */
static void look(struct coll_notify *nt)
{
	bool moved = false;

	for (size_t i = 0; i < nt->n; i++) {
		uint32_t v = load(nt->word[i]);

		if (v != nt->last[i]) {
			nt->last[i] = v;
			moved = true;
		}
	}
	if (moved)
		wake_loop(nt);
}

static void *notifier(void *arg)
{
	struct coll_notify *nt = arg;
	struct notify_waitv wv[DTA_CONFIG_MAX_STRUCTURES + 1];
	bool have_waitv = true, watching = false;

	while (!atomic_load(&nt->stop)) {
		uint32_t ctl = atomic_load(&nt->ctl);
		size_t k = 0;

		if (!atomic_load(&nt->want)) {
			watching = false;
			syscall(SYS_futex, &nt->ctl, FUTEX_WAIT_PRIVATE, ctl,
				NULL, NULL, 0);
			continue;
		}
		look(nt);
		if (!watching) {
			/* A sequence may have moved between the loop's own
			 * look at a new wait and look() above: the loop looks
			 * again. */
			wake_loop(nt);
			watching = true;
		}
		if (!have_waitv) {
			struct timespec ts = { .tv_nsec = 10000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		/* Sleep until any word differs from what look() saw (the
		 * kernel compares them all under its locks: a change in
		 * between returns at once). */
		for (size_t i = 0; i < nt->n; i++)
			wv[k++] = (struct notify_waitv){
				.val = nt->last[i],
				.uaddr = (uintptr_t)nt->word[i],
				.flags = FUTEX_32 };
		wv[k++] = (struct notify_waitv){
			.val = ctl, .uaddr = (uintptr_t)&nt->ctl,
			.flags = FUTEX_32 | FUTEX_PRIVATE_FLAG };
		if (syscall(SYS_futex_waitv, wv, (unsigned)k, 0, NULL, 0) < 0 &&
		    errno == ENOSYS)
			have_waitv = false;
	}
	return NULL;
}

int coll_notify_start(struct dta_region *const *r, size_t n,
		      struct coll_notify **out)
{
	struct coll_notify *nt;
	int err;

	if (n > DTA_CONFIG_MAX_STRUCTURES)
		return -EINVAL;
	nt = calloc(1, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	nt->n = n;
	for (size_t i = 0; i < n; i++) {
		nt->word[i] = dta_region_notify_addr(r[i]);
		if (!nt->word[i]) {
			err = -EINVAL;
			goto free_nt;
		}
		nt->last[i] = load(nt->word[i]);
	}
	nt->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (nt->efd < 0) {
		err = -errno;
		goto free_nt;
	}
	err = -pthread_create(&nt->th, NULL, notifier, nt);
	if (err)
		goto close_efd;
	nt->running = true;
	*out = nt;
	return 0;
close_efd:
	close(nt->efd);
free_nt:
	free(nt);
	return err;
}

int coll_notify_fd(const struct coll_notify *nt)
{
	return nt->efd;
}

void coll_notify_drain(struct coll_notify *nt)
{
	uint64_t v;

	(void)!read(nt->efd, &v, sizeof(v));
}

void coll_notify_want(struct coll_notify *nt, bool any)
{
	if (atomic_load(&nt->want) == any)
		return;
	atomic_store(&nt->want, any);
	if (any) {
		atomic_fetch_add(&nt->ctl, 1);
		syscall(SYS_futex, &nt->ctl, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
			NULL, 0);
	}
}

void coll_notify_stop(struct coll_notify *nt)
{
	if (!nt)
		return;
	if (nt->running) {
		atomic_store(&nt->stop, true);
		atomic_fetch_add(&nt->ctl, 1);
		syscall(SYS_futex, &nt->ctl, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
			NULL, 0);
		pthread_join(nt->th, NULL);
	}
	close(nt->efd);
	free(nt);
}

static int answer(struct coll_wait *wt, uint32_t seq, bool timeout,
		  char *ans)
{
	wt->on = false;
	return snprintf(ans, COLL_WAIT_ANSWER_MAX, "{\"seq\":%u%s}\n",
			(unsigned)seq, timeout ? ",\"timeout\":true" : "");
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > max)
		return false;
	*v = x;
	return true;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int coll_wait_request(struct coll_wait *wt, char **w, int nw,
		      struct dta_region *const *r, const char *const *names,
		      size_t n, char *ans)
{
	uint64_t seen, ms = COLL_WAIT_DEFAULT_MS, now;
	size_t i;

	if (nw < 3 || nw > 4 || !parse_u64(w[2], UINT32_MAX, &seen) ||
	    (nw == 4 && !parse_u64(w[3], COLL_WAIT_MAX_MS, &ms)))
		return snprintf(ans, COLL_WAIT_ANSWER_MAX, "{\"error\":\"usage: "
				"wait NAME SEQ [TIMEOUT_MS] (SEQ 0..4294967295, "
				"TIMEOUT_MS 0..3600000)\"}\n");
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], w[1]))
			break;
	if (i == n)
		return snprintf(ans, COLL_WAIT_ANSWER_MAX, "{\"error\":\"no "
				"structure %.64s\"}\n", w[1]);
	now = now_ns();
	*wt = (struct coll_wait){ .on = true, .s = (unsigned)i,
				  .seen = (uint32_t)seen,
				  .deadline_ns = now + ms * 1000000ull };
	return coll_wait_check(wt, r, now, ans);
}

int coll_wait_check(struct coll_wait *wt, struct dta_region *const *r,
		    uint64_t now_ns, char *ans)
{
	uint32_t seq;

	if (!wt->on)
		return 0;
	seq = dta_region_notify_seq(r[wt->s]);
	if (seq != wt->seen)
		return answer(wt, seq, false, ans);
	if (now_ns >= wt->deadline_ns)
		return answer(wt, seq, true, ans);
	return 0;
}

int coll_wait_timeout_ms(const struct coll_wait *wt, uint64_t now_ns, int ms)
{
	uint64_t left;

	if (!wt->on)
		return ms;
	if (now_ns >= wt->deadline_ns)
		return 0;
	left = (wt->deadline_ns - now_ns + 999999) / 1000000;
	return ms < 0 || left < (uint64_t)ms ? (int)left : ms;
}
