/* SPDX-License-Identifier: BSD-3-Clause */
/* Region notifications: dta_region_notify(), _notify_seq(), _wait(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "dta/region.h"

/* Only a guard against a hang: no test depends on how long anything takes. */
#define GUARD_MS 60000

static char shm_name[64];

static int setup(void **state)
{
	(void)state;
	snprintf(shm_name, sizeof(shm_name), "/dta-test-notify-%d", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dta_region_unlink(DTA_BACKING_SHM, shm_name);
	return 0;
}

static struct dta_region *make(int backing)
{
	struct dta_layout l;
	struct dta_region_opts o = { .sz = sizeof(o), .backing = backing,
				     .path = backing == DTA_BACKING_SHM ? shm_name : NULL,
				     .name = "flows" };
	struct dta_region *r;

	assert_int_equal(dta_layout_kw(&l, 1024, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	return r;
}

static struct dta_region *open_ro(void)
{
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_SHM,
				     .path = shm_name, .flags = DTA_REGION_RDONLY };
	struct dta_region *r;

	if (dta_region_open(&o, &r))
		return NULL;
	return r;
}

/* Child's state letter from /proc (S: sleeping), or 0. */
static char proc_state(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Wait (bounded by the guard) until @pid sleeps. */
static void until_asleep(pid_t pid)
{
	struct timespec ts = { .tv_nsec = 1000000 };

	for (int i = 0; i < GUARD_MS && proc_state(pid) != 'S'; i++)
		nanosleep(&ts, NULL);
	assert_int_equal(proc_state(pid), 'S');
}

static void test_sequence(void **state)
{
	struct dta_region *r = make(DTA_BACKING_ANON);

	(void)state;
	assert_int_equal(dta_region_notify_seq(r), 0);
	assert_int_equal(dta_region_notify(r), 0);
	assert_int_equal(dta_region_notify(r), 0);
	assert_int_equal(dta_region_notify_seq(r), 2);
	/* Differs already: at once, whatever the timeout. */
	assert_int_equal(dta_region_wait(r, 0, 0), 0);
	assert_int_equal(dta_region_wait(r, 1, -1), 0);
	/* Equal: only looking, or a short timeout. */
	assert_int_equal(dta_region_wait(r, 2, 0), -ETIMEDOUT);
	assert_int_equal(dta_region_wait(r, 2, 5), -ETIMEDOUT);
	dta_region_destroy(r);
}

static void test_negative(void **state)
{
	struct dta_region *w = make(DTA_BACKING_SHM), *ro = open_ro();

	(void)state;
	assert_non_null(ro);
	assert_int_equal(dta_region_notify(NULL), -EINVAL);
	assert_int_equal(dta_region_notify_seq(NULL), 0);
	assert_int_equal(dta_region_wait(NULL, 0, 0), -EINVAL);
	/* A read-only mapping cannot notify, but sees the writer's. */
	assert_int_equal(dta_region_notify(ro), -EINVAL);
	assert_int_equal(dta_region_notify(w), 0);
	assert_int_equal(dta_region_notify_seq(ro), 1);
	assert_int_equal(dta_region_wait(ro, 0, 0), 0);
	assert_int_equal(dta_region_wait(ro, 1, 0), -ETIMEDOUT);
	dta_region_destroy(ro);
	dta_region_destroy(w);
}

static void test_snapshot_has_none(void **state)
{
	struct dta_region *w = make(DTA_BACKING_ANON), *snap;
	struct dta_region_opts o = { .sz = sizeof(o), .backing = DTA_BACKING_FILE,
				     .flags = DTA_REGION_RDONLY };
	char path[64];

	(void)state;
	snprintf(path, sizeof(path), "/tmp/dta-test-notify-%d.snap", (int)getpid());
	o.path = path;
	assert_int_equal(dta_region_notify(w), 0);
	assert_int_equal(dta_region_save(w, path), 0);
	assert_int_equal(dta_region_open(&o, &snap), 0);
	assert_int_equal(dta_region_notify_seq(snap), 0);
	assert_int_equal(dta_region_wait(snap, 0, 0), -EINVAL);
	dta_region_destroy(snap);
	unlink(path);
	dta_region_destroy(w);
}

/*
 * Children open the region read-only (as analysis tools do), each waits
 * for the sequence to move from what it read, and reports the value it
 * then reads. The parent notifies only once all of them sleep, @rounds
 * times: each child must see exactly 1, 2, ... rounds.
 */
static void waiters(int nchild, int rounds)
{
	struct dta_region *w = make(DTA_BACKING_SHM);
	pid_t pid[8];
	int fd[8][2];

	assert_true(nchild <= 8);
	for (int c = 0; c < nchild; c++) {
		assert_int_equal(pipe(fd[c]), 0);
		pid[c] = fork();
		assert_true(pid[c] >= 0);
		if (pid[c] == 0) {
			struct dta_region *ro = open_ro();
			uint32_t seen = 0;

			if (!ro)
				_exit(2);
			for (int k = 0; k < rounds; k++) {
				int rc = dta_region_wait(ro, seen, GUARD_MS);
				uint32_t now = dta_region_notify_seq(ro);

				if (rc)
					_exit(3);
				if (write(fd[c][1], &now, 4) != 4)
					_exit(4);
				seen = now;
			}
			dta_region_destroy(ro);
			_exit(0);
		}
		close(fd[c][1]);
	}
	for (int k = 1; k <= rounds; k++) {
		for (int c = 0; c < nchild; c++)
			until_asleep(pid[c]);
		assert_int_equal(dta_region_notify(w), 0);
		for (int c = 0; c < nchild; c++) {
			uint32_t got;

			assert_int_equal(read(fd[c][0], &got, 4), 4);
			assert_int_equal(got, (uint32_t)k);
		}
	}
	for (int c = 0; c < nchild; c++) {
		int st;

		assert_int_equal(waitpid(pid[c], &st, 0), pid[c]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
		close(fd[c][0]);
	}
	dta_region_destroy(w);
	dta_region_unlink(DTA_BACKING_SHM, shm_name);
}

static void test_readonly_waiter(void **state)
{
	(void)state;
	waiters(1, 5);
}

static void test_all_woken(void **state)
{
	(void)state;
	waiters(4, 3);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A signal ends the wait with -EINTR, the sequence unchanged. */
static void test_eintr(void **state)
{
	struct dta_region *w = make(DTA_BACKING_SHM);
	int st;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
		struct dta_region *ro = open_ro();

		if (!ro || sigaction(SIGUSR1, &sa, NULL))
			_exit(2);
		_exit(dta_region_wait(ro, 0, GUARD_MS) == -EINTR &&
		      dta_region_notify_seq(ro) == 0 ? 0 : 3);
	}
	/* Again until it ends: a signal that came before the child slept
	 * would only run the handler. */
	until_asleep(pid);
	for (int i = 0; i < GUARD_MS; i++) {
		struct timespec ts = { .tv_nsec = 1000000 };
		pid_t got;

		assert_int_equal(kill(pid, SIGUSR1), 0);
		got = waitpid(pid, &st, WNOHANG);
		assert_true(got == 0 || got == pid);
		if (got == pid)
			break;
		nanosleep(&ts, NULL);
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	dta_region_destroy(w);
	dta_region_unlink(DTA_BACKING_SHM, shm_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_negative),
		cmocka_unit_test(test_snapshot_has_none),
		cmocka_unit_test(test_readonly_waiter),
		cmocka_unit_test(test_all_woken),
		cmocka_unit_test(test_eintr),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
