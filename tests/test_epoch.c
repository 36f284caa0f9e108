/* SPDX-License-Identifier: BSD-3-Clause */
/* Key-Increment epochs: bank selection by time, the copy-and-subtract
 * reset, the epoch file written and read back, and damaged files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <cmocka.h>

#include "dta/epoch.h"
#include "dta/keyincr.h"
#include "dta/layout.h"

#define NS 1000000000ull
#define WIDTH 64
#define ROWS 3
#define NKEYS 40

static uint64_t rng = 99;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void make_layout(struct dta_layout *l, unsigned banks)
{
	assert_int_equal(dta_layout_ki(l, WIDTH, ROWS, banks,
				       DTA_HASH_CRC32C, 7), 0);
}

/* Add @add for key @k into bank @bank the way a translator does. */
static void incr(const struct dta_layout *l, uint64_t *area, uint32_t k,
		 uint64_t add, unsigned bank)
{
	struct dta_memop ops[ROWS];

	assert_int_equal(dta_ki_ops(l, &k, sizeof(k), add, bank, ops, ROWS),
			 ROWS);
	assert_int_equal(dta_memops_apply(area, l->data_size, ops, ROWS), ROWS);
}

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_epoch.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	char p[512];

	(void)state;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", tmpdir, de->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	return rmdir(tmpdir);
}

static void test_epoch_at(void **state)
{
	uint64_t e = 99;

	(void)state;
	/* T = 2 s: [0, 2) is epoch 0 (bank 0), [2, 4) epoch 1 (bank 1). */
	assert_int_equal(dta_epoch_at(0, 2 * NS, &e), 0);
	assert_int_equal(e, 0);
	assert_int_equal(dta_epoch_at(2 * NS - 1, 2 * NS, &e), 0);
	assert_int_equal(e, 0);
	assert_int_equal(dta_epoch_at(2 * NS, 2 * NS, &e), 1);
	assert_int_equal(e, 1);
	assert_int_equal(dta_epoch_at(5 * NS, 2 * NS, &e), 0);
	assert_int_equal(e, 2);
	/* 2026-11-27T00:00:00Z with T = 60 s: epoch 29,928,960, even. */
	assert_int_equal(dta_epoch_at(1795737600ull * NS, 60 * NS, &e), 0);
	assert_int_equal(e, 29928960);
	assert_int_equal(dta_epoch_at(1, 0, NULL), -EINVAL);
	assert_int_equal(dta_epoch_grace_ns(2 * NS), NS / 2);
	assert_int_equal(dta_epoch_grace_ns(60 * NS), 5 * NS);
	assert_int_equal(dta_epoch_grace_ns(0), 0);
}

static void test_epoch_name(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(dta_epoch_name(b, sizeof(b), "flows", 12), 14);
	assert_string_equal(b, "flows.12.epoch");
	assert_int_equal(dta_epoch_name(b, 10, "flows", 12), -ENAMETOOLONG);
	assert_int_equal(dta_epoch_name(b, sizeof(b), "a/b", 1), -EINVAL);
	assert_int_equal(dta_epoch_name(b, sizeof(b), "", 1), -EINVAL);
}

/* Increments go to the bank of their time; the other stays zero. */
static void test_bank_selection(void **state)
{
	struct dta_layout l;
	uint64_t *area, sum[2] = { 0, 0 }, want[2] = { 0, 0 };
	uint64_t t0 = 1000 * NS; /* epoch 500 of T = 2 s: bank 0 */

	(void)state;
	make_layout(&l, 2);
	area = calloc(1, l.data_size);
	assert_non_null(area);
	for (unsigned i = 0; i < 100; i++) {
		uint64_t t = t0 + i * (NS / 25); /* 4 s: epochs 500, 501 */
		int bank = dta_epoch_at(t, 2 * NS, NULL);

		assert_true(bank == 0 || bank == 1);
		incr(&l, area, i % 7, i + 1, (unsigned)bank);
		want[bank] += i + 1;
	}
	for (unsigned b = 0; b < 2; b++)
		for (unsigned c = 0; c < WIDTH; c++)
			sum[b] += area[(uint64_t)b * ROWS * WIDTH + c];
	/* i = 0..49 land in epoch 500, 50..99 in 501. */
	assert_int_equal(want[0], 50 * 51 / 2);
	assert_int_equal(sum[0], want[0]);
	assert_int_equal(sum[1], want[1]);
	assert_int_equal(want[0] + want[1], 100 * 101 / 2);
	free(area);
}

/* The copy-and-subtract reset keeps increments that land after the copy. */
static void test_copy_subtract(void **state)
{
	struct dta_layout l;
	uint64_t *area, *late_only, *copy, late = 0;

	(void)state;
	make_layout(&l, 2);
	area = calloc(1, l.data_size);
	late_only = calloc(1, l.data_size);
	copy = calloc(ROWS * WIDTH, 8);
	assert_non_null(area);
	assert_non_null(late_only);
	assert_non_null(copy);
	for (uint32_t k = 0; k < NKEYS; k++)
		incr(&l, area, k, 1 + k % 5, 1);
	incr(&l, area, 3, 9, 0); /* the other bank is not touched */
	assert_int_equal(dta_ki_copy(&l, area, 1, copy), 0);
	/* Late increments between the copy and the subtraction. */
	incr(&l, area, 5, 4, 1);
	incr(&l, late_only, 5, 4, 1);
	incr(&l, area, 1000, 6, 1);
	incr(&l, late_only, 1000, 6, 1);
	assert_int_equal(dta_ki_subtract(&l, area, 1, copy, &late), 0);
	assert_int_equal(late, 10);
	assert_memory_equal((uint8_t *)area + l.data_size / 2,
			    (uint8_t *)late_only + l.data_size / 2,
			    l.data_size / 2);
	/* Bank 0 kept its 9 in each row. */
	{
		uint64_t v;

		assert_int_equal(dta_ki_query(&l, area, &(uint32_t){ 3 }, 4, 0,
					      &v), 0);
		assert_int_equal(v, 9);
	}
	/* With no late increment the bank ends all zero. */
	assert_int_equal(dta_ki_copy(&l, area, 1, copy), 0);
	assert_int_equal(dta_ki_subtract(&l, area, 1, copy, &late), 0);
	assert_int_equal(late, 0);
	for (uint64_t i = 0; i < ROWS * WIDTH; i++)
		assert_int_equal(area[ROWS * WIDTH + i], 0);
	/* Bad arguments. */
	assert_int_equal(dta_ki_copy(&l, area, 2, copy), -DTA_E_MISMATCH);
	assert_int_equal(dta_ki_copy(&l, NULL, 0, copy), -EINVAL);
	assert_int_equal(dta_ki_subtract(&l, area, 0, NULL, NULL), -EINVAL);
	free(area);
	free(late_only);
	free(copy);
}

static void meta_for(struct dta_epoch_meta *m, const struct dta_layout *l,
		     uint64_t epoch)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->collector, sizeof(m->collector), "c1");
	snprintf(m->structure, sizeof(m->structure), "flows");
	m->epoch = epoch;
	m->epoch_len_ns = 2 * NS;
	m->closed_ns = (epoch + 1) * 2 * NS + NS / 2;
	m->bank = (unsigned)(epoch % 2);
	m->layout = *l;
}

static void test_write_read(void **state)
{
	struct dta_layout l;
	struct dta_epoch_meta m;
	const struct dta_epoch_meta *rm;
	struct dta_epoch *e;
	uint64_t *area, *copy, *back, truth[NKEYS], total = 0, nonzero = 0;
	char path[128];
	struct stat st;

	(void)state;
	make_layout(&l, 2);
	area = calloc(1, l.data_size);
	copy = calloc(ROWS * WIDTH, 8);
	back = calloc(ROWS * WIDTH, 8);
	assert_non_null(area);
	assert_non_null(copy);
	assert_non_null(back);
	for (uint32_t k = 0; k < NKEYS; k++) {
		truth[k] = 1 + rnd() % 1000;
		total += truth[k];
		incr(&l, area, k, truth[k], 1);
	}
	assert_int_equal(dta_ki_copy(&l, area, 1, copy), 0);
	for (uint64_t i = 0; i < ROWS * WIDTH; i++)
		nonzero += copy[i] != 0;
	meta_for(&m, &l, 77);
	snprintf(path, sizeof(path), "%s/flows.77.epoch", tmpdir);
	assert_int_equal(dta_epoch_write(path, &m, copy), 0);
	assert_int_equal(m.counters, nonzero);
	assert_int_equal(m.row0_sum, total);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, DTA_EPOCH_HEADER_SIZE +
					     nonzero * DTA_EPOCH_RECORD_SIZE);

	assert_int_equal(dta_epoch_read(path, &e), 0);
	rm = dta_epoch_meta(e);
	assert_string_equal(rm->collector, "c1");
	assert_string_equal(rm->structure, "flows");
	assert_int_equal(rm->epoch, 77);
	assert_int_equal(rm->bank, 1);
	assert_int_equal(rm->epoch_len_ns, 2 * NS);
	assert_int_equal(rm->closed_ns, m.closed_ns);
	assert_int_equal(rm->counters, nonzero);
	assert_int_equal(rm->row0_sum, total);
	assert_int_equal(rm->layout.g.ki.width, WIDTH);
	assert_int_equal(rm->layout.g.ki.rows, ROWS);
	/* The records rebuild the bank exactly. */
	for (uint64_t i = 0; i < rm->counters; i++) {
		struct dta_epoch_counter c;

		assert_int_equal(dta_epoch_counter(e, i, &c), 0);
		assert_true(c.row < ROWS && c.column < WIDTH && c.count);
		back[c.row * WIDTH + c.column] = c.count;
	}
	assert_memory_equal(back, copy, ROWS * WIDTH * 8);
	{
		struct dta_epoch_counter c;

		assert_int_equal(dta_epoch_counter(e, rm->counters, &c),
				 -ERANGE);
	}
	/* Keys answer as the bank answered, and never below the truth. */
	for (uint32_t k = 0; k < NKEYS + 20; k++) {
		uint64_t from_file, from_bank;

		assert_int_equal(dta_epoch_query(e, &k, sizeof(k), &from_file), 0);
		assert_int_equal(dta_ki_query(&l, area, &k, sizeof(k), 1,
					      &from_bank), 0);
		assert_int_equal(from_file, from_bank);
		if (k < NKEYS)
			assert_true(from_file >= truth[k]);
	}
	dta_epoch_destroy(e);
	free(area);
	free(copy);
	free(back);
}

/* An epoch nothing was sent in: a header alone. */
static void test_empty(void **state)
{
	struct dta_layout l;
	struct dta_epoch_meta m;
	struct dta_epoch *e;
	uint64_t zeros[ROWS * WIDTH] = { 0 }, v = 1;
	char path[128];
	struct stat st;

	(void)state;
	make_layout(&l, 2);
	meta_for(&m, &l, 4);
	snprintf(path, sizeof(path), "%s/flows.4.epoch", tmpdir);
	assert_int_equal(dta_epoch_write(path, &m, zeros), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, DTA_EPOCH_HEADER_SIZE);
	assert_int_equal(dta_epoch_read(path, &e), 0);
	assert_int_equal(dta_epoch_meta(e)->counters, 0);
	assert_int_equal(dta_epoch_query(e, "k", 1, &v), 0);
	assert_int_equal(v, 0);
	dta_epoch_destroy(e);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 16);
	assert_non_null(b);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void test_damaged(void **state)
{
	struct dta_layout l, one;
	struct dta_epoch_meta m;
	struct dta_epoch *e = (struct dta_epoch *)1;
	uint64_t copy[ROWS * WIDTH] = { 0 };
	uint8_t *b;
	size_t len;
	char path[128], bad[160];
	DIR *d;
	struct dirent *de;
	unsigned files = 0;

	(void)state;
	make_layout(&l, 2);
	copy[3] = 5;
	copy[WIDTH + 9] = 5;
	copy[2 * WIDTH + 1] = 5;
	meta_for(&m, &l, 10);
	snprintf(path, sizeof(path), "%s/flows.10.epoch", tmpdir);
	assert_int_equal(dta_epoch_write(path, &m, copy), 0);
	b = slurp(path, &len);
	assert_int_equal(len, DTA_EPOCH_HEADER_SIZE + 3 * 16);

	assert_int_equal(dta_epoch_parse(b, len, &e), 0);
	dta_epoch_destroy(e);
	/* Truncated: inside the header, then inside the records. */
	assert_int_equal(dta_epoch_parse(b, 100, &e), -DTA_E_TRUNCATED);
	assert_null(e);
	assert_int_equal(dta_epoch_parse(b, len - 1, &e), -DTA_E_TRUNCATED);
	/* A byte after the records. */
	b[len] = 0;
	assert_int_equal(dta_epoch_parse(b, len + 1, &e), -DTA_E_BADREGION);
	/* A flipped count: the data CRC. */
	b[DTA_EPOCH_HEADER_SIZE + 8] ^= 1;
	assert_int_equal(dta_epoch_parse(b, len, &e), -DTA_E_BADREGION);
	b[DTA_EPOCH_HEADER_SIZE + 8] ^= 1;
	/* A flipped epoch number: the header CRC. */
	b[16] ^= 1;
	assert_int_equal(dta_epoch_parse(b, len, &e), -DTA_E_BADREGION);
	b[16] ^= 1;
	b[0] = 'X';
	assert_int_equal(dta_epoch_parse(b, len, &e), -DTA_E_BADREGION);
	b[0] = 'D';
	b[8] = 2;
	assert_int_equal(dta_epoch_parse(b, len, &e), -DTA_E_REGIONVERSION);
	b[8] = 1;
	assert_int_equal(dta_epoch_parse(b, len, &e), 0);
	dta_epoch_destroy(e);
	assert_int_equal(dta_epoch_parse(NULL, len, &e), -EINVAL);
	free(b);

	/* Writes refused: a bank that is not the epoch's, one bank, no dir. */
	m.bank = 0; /* epoch 10 is bank 0: fine */
	m.epoch = 11;
	assert_int_equal(dta_epoch_write(path, &m, copy), -EINVAL);
	m.epoch = 10;
	make_layout(&one, 1);
	m.layout = one;
	assert_int_equal(dta_epoch_write(path, &m, copy), -EINVAL);
	m.layout = l;
	snprintf(bad, sizeof(bad), "%s/nodir/flows.10.epoch", tmpdir);
	assert_int_equal(dta_epoch_write(bad, &m, copy), -ENOENT);
	assert_int_equal(dta_epoch_read(bad, &e), -ENOENT);
	assert_int_equal(dta_epoch_read(tmpdir, &e), -EINVAL);
	/* No temporary file is left behind. */
	d = opendir(tmpdir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			files++;
			assert_null(strstr(de->d_name, ".tmp."));
		}
	closedir(d);
	assert_int_equal(files, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_epoch_at),
		cmocka_unit_test(test_epoch_name),
		cmocka_unit_test(test_bank_selection),
		cmocka_unit_test(test_copy_subtract),
		cmocka_unit_test_setup_teardown(test_write_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
