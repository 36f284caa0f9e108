/* SPDX-License-Identifier: BSD-3-Clause */
/* dta-collector's epoch closer (collector/epochs.c) on a heap structure
 * with 1-second epochs, increments applied as a translator would (the bank
 * of the wall clock's epoch). No timing asserts: conditions are waited
 * for (bounded only against a hang); the invariant is exact: row 0 over
 * the epoch files plus both banks equals every increment applied. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "epochs.h"
#include "log.h"

#define NS 1000000000ull
#define WIDTH 128
#define ROWS 2
#define GUARD_S 60 /* only against a hang */

static struct dta_layout l;
static uint64_t *area;
static char tmp[64], dir[128];

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

/* @n increments of 1 for key @k into the bank of now. */
static void incr(uint32_t k, unsigned n)
{
	struct dta_memop ops[ROWS];
	int bank = dta_epoch_at(wall_ns(), NS, NULL);

	assert_int_equal(dta_ki_ops(&l, &k, sizeof(k), 1, (unsigned)bank, ops,
				    ROWS), ROWS);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(dta_memops_apply(area, l.data_size, ops, ROWS),
				 ROWS);
}

/* Row 0 summed over every epoch file of @d. */
static uint64_t in_files(const char *d, unsigned *files)
{
	DIR *dh = opendir(d);
	struct dirent *de;
	uint64_t sum = 0;

	*files = 0;
	if (!dh)
		return 0;
	while ((de = readdir(dh))) {
		char p[512];
		struct dta_epoch *e;
		struct stat st;

		if (!strstr(de->d_name, ".epoch") || strstr(de->d_name, ".tmp."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", d, de->d_name);
		assert_int_equal(dta_epoch_read(p, &e), 0);
		assert_string_equal(dta_epoch_meta(e)->structure, "counters");
		assert_string_equal(dta_epoch_meta(e)->collector, "c1");
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0600);
		sum += dta_epoch_meta(e)->row0_sum;
		dta_epoch_destroy(e);
		(*files)++;
	}
	closedir(dh);
	return sum;
}

static uint64_t in_banks(void)
{
	uint64_t sum = 0;

	for (unsigned b = 0; b < 2; b++)
		for (unsigned c = 0; c < WIDTH; c++)
			sum += __atomic_load_n(&area[b * ROWS * WIDTH + c],
					       __ATOMIC_RELAXED);
	return sum;
}

/* A member of the closer's stats. */
static uint64_t stat_of(struct coll_epochs *e, const char *key)
{
	char *buf = NULL, pat[64], *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t v = UINT64_MAX;

	assert_non_null(f);
	coll_epochs_stats_json(e, f);
	fclose(f);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(buf, pat);
	if (p)
		v = strtoull(p + strlen(pat), NULL, 10);
	free(buf);
	assert_true(v != UINT64_MAX);
	return v;
}

static void wait_for(struct coll_epochs *e, const char *key, uint64_t atleast)
{
	uint64_t end = wall_ns() + GUARD_S * NS;

	while (stat_of(e, key) < atleast) {
		if (wall_ns() > end)
			fail_msg("%s stayed below %llu", key,
				 (unsigned long long)atleast);
		usleep(20000);
	}
}

static int setup(void **state)
{
	(void)state;
	tool_log_quiet(true);
	if (dta_layout_ki(&l, WIDTH, ROWS, 2, DTA_HASH_CRC32C, 3))
		return -1;
	area = calloc(1, l.data_size);
	snprintf(tmp, sizeof(tmp), "/tmp/test_coll_epochs.XXXXXX");
	if (!area || !mkdtemp(tmp))
		return -1;
	snprintf(dir, sizeof(dir), "%s/epochs", tmp);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	free(area);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

static struct coll_epochs *start(void)
{
	struct coll_epochs_opts o = { .collector = "c1", .dir = dir, .n = 2 };
	struct coll_epochs *e;

	o.s[0].name = "counters";
	o.s[0].layout = &l;
	o.s[0].area = area;
	o.s[0].epoch_s = 1;
	o.s[1].name = "no-epochs"; /* not closed: epoch_s 0 */
	o.s[1].layout = &l;
	o.s[1].area = area;
	assert_int_equal(coll_epochs_start(&o, &e), 0);
	assert_non_null(e);
	return e;
}

/* Increments over several epochs all end in files; the banks empty. */
static void test_closes(void **state)
{
	struct coll_epochs *e;
	uint64_t total = 0, end;
	unsigned files;
	struct stat st;

	(void)state;
	e = start();
	end = wall_ns() + 2500000000ull;
	for (uint32_t k = 0; wall_ns() < end; k++) {
		incr(k % 50, 1 + k % 3);
		total += 1 + k % 3;
		usleep(2000);
	}
	wait_for(e, "increments", total);
	assert_int_equal(in_files(dir, &files) + in_banks(), total);
	assert_int_equal(in_banks(), 0);
	assert_true(files >= 2);
	assert_int_equal(stat_of(e, "files"), files);
	assert_int_equal(stat_of(e, "failed_dir") + stat_of(e, "failed_write") +
			 stat_of(e, "failed_memory"), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	coll_epochs_stop(e);
	coll_epochs_stop(NULL);
}

/* The directory blocked for longer than a bank's cycle: failures are
 * counted, the bank is never reset while its file cannot be written, the
 * epoch is given up (its counts then go with the epoch two later), and
 * once the directory is back every increment is in a file. */
static void test_blocked_then_abandoned(void **state)
{
	struct coll_epochs *e;
	uint64_t total = 0;
	unsigned files;
	FILE *f;

	(void)state;
	f = fopen(dir, "w"); /* a file where the directory should be */
	assert_non_null(f);
	fclose(f);
	e = start();
	for (uint32_t k = 0; k < 200; k++) {
		incr(k, 2);
		total += 2;
	}
	wait_for(e, "failed_dir", 1);
	assert_int_equal(in_banks(), total); /* nothing reset */
	wait_for(e, "abandoned", 1);
	assert_int_equal(in_banks(), total);
	assert_int_equal(stat_of(e, "files"), 0);
	assert_true(stat_of(e, "pending") <= 1);
	assert_int_equal(unlink(dir), 0);
	wait_for(e, "increments", total);
	assert_int_equal(in_files(dir, &files) + in_banks(), total);
	assert_int_equal(in_banks(), 0);
	coll_epochs_stop(e);
}

/* A file of the epoch to close is there already (a collector restarted
 * within the epoch after closing it): the close adds the bank to it. */
static void test_merges_earlier_file(void **state)
{
	struct coll_epochs *e;
	struct dta_epoch_meta m = { .collector = "c1", .structure = "counters",
				    .epoch_len_ns = NS };
	struct dta_epoch *back;
	uint64_t copy[ROWS * WIDTH] = { 0 }, cur, v, file_total = 0;
	char path[256];
	unsigned files;
	struct dta_memop ops[ROWS];

	(void)state;
	/* Away from a boundary, so that the closer's first epoch is ours. */
	while (wall_ns() % NS > NS - 200000000ull)
		usleep(10000);
	dta_epoch_at(wall_ns(), NS, &cur);
	assert_int_equal(mkdir(dir, 0700), 0);
	/* The earlier run's file of epoch cur - 1: key 7 counted 5 times. */
	assert_int_equal(dta_ki_ops(&l, &(uint32_t){ 7 }, 4, 5, 0, ops, ROWS),
			 ROWS);
	for (unsigned r = 0; r < ROWS; r++)
		copy[ops[r].offset / 8] += 5;
	file_total = 5;
	m.epoch = cur - 1;
	m.bank = (unsigned)(m.epoch % 2);
	m.layout = l;
	snprintf(path, sizeof(path), "%s/counters.%llu.epoch", dir,
		 (unsigned long long)m.epoch);
	assert_int_equal(dta_epoch_write(path, &m, copy), 0);
	/* What is left in its bank: key 7 three more times, key 8 twice. */
	assert_int_equal(dta_ki_ops(&l, &(uint32_t){ 7 }, 4, 3, m.bank, ops,
				    ROWS), ROWS);
	assert_int_equal(dta_memops_apply(area, l.data_size, ops, ROWS), ROWS);
	assert_int_equal(dta_ki_ops(&l, &(uint32_t){ 8 }, 4, 2, m.bank, ops,
				    ROWS), ROWS);
	assert_int_equal(dta_memops_apply(area, l.data_size, ops, ROWS), ROWS);
	e = start();
	wait_for(e, "files", 1);
	assert_int_equal(stat_of(e, "increments"), 5); /* the bank's only */
	assert_int_equal(in_files(dir, &files), file_total + 5);
	assert_int_equal(files, 1);
	assert_int_equal(in_banks(), 0);
	assert_int_equal(dta_epoch_read(path, &back), 0);
	assert_int_equal(dta_epoch_query(back, &(uint32_t){ 7 }, 4, &v), 0);
	assert_true(v >= 8);
	assert_int_equal(dta_epoch_query(back, &(uint32_t){ 8 }, 4, &v), 0);
	assert_true(v >= 2);
	dta_epoch_destroy(back);
	coll_epochs_stop(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocked_then_abandoned,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_merges_earlier_file,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
