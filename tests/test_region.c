/* SPDX-License-Identifier: BSD-3-Clause */
/* Regions: backings, self-describing header, snapshots, huge pages. */
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

#include <cmocka.h>

#include "dta/keywrite.h"
#include "dta/region.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/dta-region-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct dta_region_opts opts(int backing, const char *path,
				   unsigned flags)
{
	struct dta_region_opts o = {
		.sz = sizeof(o), .backing = backing, .path = path,
		.name = "int-paths", .flags = flags,
	};
	return o;
}

static void kw_put(const struct dta_region *r, uint32_t key, uint32_t val)
{
	const struct dta_layout *l = dta_region_layout(r);
	uint8_t slot[16];
	struct dta_memop ops[8];
	int n = dta_kw_ops(l, &key, 4, &val, 4, 2, slot, sizeof(slot), ops, 8);

	assert_int_equal(n, 2);
	assert_int_equal(dta_memops_apply(dta_region_data(r),
					  dta_region_data_size(r), ops, 2), 2);
}

static int kw_get(const struct dta_region *r, uint32_t key, uint32_t *val)
{
	struct dta_kw_result res;

	assert_int_equal(dta_kw_query(dta_region_layout(r), dta_region_data(r),
				      &key, 4, NULL, val, 4, &res), 0);
	return res.status;
}

static void test_anon(void **state)
{
	struct dta_layout l;
	struct dta_region *r;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0);
	const uint8_t *d;
	uint32_t v;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 4096, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_string_equal(dta_region_name(r), "int-paths");
	assert_int_equal(dta_region_data_size(r), 4096 * 8);
	assert_true(dta_region_map_size(r) >= DTA_REGION_HEADER_SIZE + 4096 * 8);
	assert_ptr_equal(dta_region_data(r),
			 (uint8_t *)dta_region_base(r) + DTA_REGION_HEADER_SIZE);
	d = dta_region_data(r);
	for (size_t i = 0; i < dta_region_data_size(r); i++)
		assert_int_equal(d[i], 0);
	assert_memory_equal(dta_region_base(r), "DTAREGN1", 8);
	kw_put(r, 7, 700);
	assert_int_equal(kw_get(r, 7, &v), DTA_Q_FOUND);
	assert_int_equal(v, 700);
	dta_region_destroy(r);
	dta_region_destroy(NULL);
}

static const char *last_log;
static int log_calls;

static void capture_log(enum dta_log_level level, const char *fmt, va_list ap)
{
	static char buf[256];

	(void)level;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	last_log = buf;
	log_calls++;
}

/* Huge pages are tried; where the machine has none the region still works
 * on normal pages and the reason is logged, not printed. */
static void test_huge_fallback(void **state)
{
	struct dta_layout l;
	struct dta_region *r;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, DTA_REGION_HUGE);
	uint32_t v;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1u << 20, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	log_calls = 0;
	dta_set_log(capture_log);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	dta_set_log(NULL);
	if (dta_region_page_size(r) == 4096) {
		assert_true(log_calls > 0);
		assert_non_null(strstr(last_log, "huge pages unavailable"));
	} else {
		assert_true(dta_region_page_size(r) == (2u << 20) ||
			    dta_region_page_size(r) == (1u << 30));
		assert_int_equal(dta_region_map_size(r) % dta_region_page_size(r), 0);
	}
	kw_put(r, 1, 2);
	assert_int_equal(kw_get(r, 1, &v), DTA_Q_FOUND);
	dta_region_destroy(r);
}

/* A translator maps the collector's shared-memory object by name and its
 * writes are visible to the collector's queries. */
static void test_shm_shared(void **state)
{
	char name[64];
	struct dta_layout l;
	struct dta_region *coll, *tr;
	struct dta_region_opts o;
	uint32_t v;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-%d", (int)getpid());
	assert_int_equal(dta_layout_kw(&l, 512, 4, 4, 2, DTA_HASH_XXH3, 5), 0);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL | DTA_REGION_UNLINK);
	assert_int_equal(dta_region_create(&l, &o, &coll), 0);
	assert_int_equal(dta_region_create(&l, &o, &tr), -EEXIST);
	o = opts(DTA_BACKING_SHM, name, 0);
	assert_int_equal(dta_region_open(&o, &tr), 0);
	assert_int_equal(dta_region_layout(tr)->hash_family, DTA_HASH_XXH3);
	kw_put(tr, 99, 12345);
	assert_int_equal(kw_get(coll, 99, &v), DTA_Q_FOUND);
	assert_int_equal(v, 12345);
	dta_region_destroy(tr);
	dta_region_destroy(coll); /* unlinks */
	assert_int_equal(dta_region_open(&o, &tr), -ENOENT);

	o = opts(DTA_BACKING_SHM, "no-slash", 0);
	assert_int_equal(dta_region_create(&l, &o, &tr), -EINVAL);
}

/* Snapshot to a file, reopen with nothing but the path, same answers. */
static void test_snapshot(void **state)
{
	char path[128];
	struct dta_layout l, other;
	struct dta_region *r, *s, *t;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0);
	struct dta_region_opts f;
	uint32_t v;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/kw.dta", tmpdir);
	assert_int_equal(dta_layout_kw(&l, 1000, 4, 4, 2, DTA_HASH_CRC32C, 17), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	for (uint32_t k = 0; k < 100; k++)
		kw_put(r, k, k * 3 + 1);
	assert_int_equal(dta_region_save(r, path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, DTA_REGION_HEADER_SIZE + 8000);

	f = opts(DTA_BACKING_FILE, path, DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&f, &s), 0);
	assert_string_equal(dta_region_name(s), "int-paths");
	assert_int_equal(dta_region_layout(s)->hash_seed, 17);
	for (uint32_t k = 0; k < 100; k++) {
		assert_int_equal(kw_get(s, k, &v), DTA_Q_FOUND);
		assert_int_equal(v, k * 3 + 1);
	}

	/* Load into a fresh region of the same layout (collector restart). */
	assert_int_equal(dta_region_create(&l, &o, &t), 0);
	assert_int_equal(dta_region_load(t, path), 0);
	assert_int_equal(kw_get(t, 42, &v), DTA_Q_FOUND);
	assert_int_equal(v, 127);
	dta_region_destroy(t);

	/* ... but not into a different one. */
	assert_int_equal(dta_layout_kw(&other, 1000, 4, 4, 2, DTA_HASH_CRC32C, 18), 0);
	assert_int_equal(dta_region_create(&other, &o, &t), 0);
	assert_int_equal(dta_region_load(t, path), -DTA_E_MISMATCH);
	dta_region_destroy(t);
	dta_region_destroy(s);
	dta_region_destroy(r);
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	fclose(fp);
}

static void test_open_rejects(void **state)
{
	char path[128], bad[128];
	struct dta_layout l;
	struct dta_region *r, *s;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0), f;
	uint8_t *copy;
	size_t size;

	(void)state;
	snprintf(path, sizeof(path), "%s/ok.dta", tmpdir);
	snprintf(bad, sizeof(bad), "%s/bad.dta", tmpdir);
	assert_int_equal(dta_layout_kw(&l, 100, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_int_equal(dta_region_save(r, path), 0);
	size = DTA_REGION_HEADER_SIZE + 800;
	copy = malloc(size);
	memcpy(copy, dta_region_base(r), DTA_REGION_HEADER_SIZE);
	memset(copy + DTA_REGION_HEADER_SIZE, 0, 800);
	f = opts(DTA_BACKING_FILE, bad, DTA_REGION_RDONLY);

	copy[0] = 'X'; /* magic */
	write_file(bad, copy, size);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	copy[0] = 'D';
	copy[60] ^= 1; /* name byte: caught by the header CRC */
	write_file(bad, copy, size);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	copy[60] ^= 1;
	write_file(bad, copy, size - 1); /* data cut short */
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	write_file(bad, copy, 100); /* header cut short */
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	write_file(bad, copy, size);
	assert_int_equal(dta_region_open(&f, &s), 0);
	dta_region_destroy(s);

	f = opts(DTA_BACKING_FILE, "/nonexistent/x.dta", DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&f, &s), -ENOENT);
	f = opts(DTA_BACKING_ANON, NULL, 0);
	assert_int_equal(dta_region_open(&f, &s), -EINVAL);
	f.sz = 4;
	assert_int_equal(dta_region_create(&l, &f, &s), -EINVAL);
	assert_int_equal(dta_region_save(r, "/nonexistent/dir/x.dta"), -ENOENT);
	free(copy);
	dta_region_destroy(r);
}

/* Regions beyond 4 GiB: offsets past 2^32 address correctly. Pages are
 * only touched where written (MAP_NORESERVE), so this is cheap. */
static void test_beyond_4gib(void **state)
{
	struct dta_layout l;
	struct dta_region *r;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0);
	uint8_t *d;
	uint32_t key, v;
	int found = 0;

	(void)state;
	/* 2^30 slots of 8 bytes = 8 GiB of data. */
	assert_int_equal(dta_layout_kw(&l, 1u << 30, 4, 4, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(l.data_size, 8ull << 30);
	if (dta_region_create(&l, &o, &r) != 0) {
		skip(); /* address space limits (e.g. under ASan) */
		return;
	}
	d = dta_region_data(r);
	for (key = 0; key < 1000 && !found; key++) {
		uint64_t slot = dta_kw_slot(&l, &key, 4, 0);

		if (slot * 8 < (4ull << 30))
			continue;
		{
			uint8_t buf[16];
			struct dta_memop op;
			uint32_t val = 0xC0FFEE;

			assert_int_equal(dta_kw_ops(&l, &key, 4, &val, 4, 1, buf,
						    sizeof(buf), &op, 1), 1);
			assert_true(op.offset >= (4ull << 30));
			assert_int_equal(dta_memops_apply(d, l.data_size, &op, 1), 1);
			assert_int_equal(kw_get(r, key, &v), DTA_Q_FOUND);
			assert_int_equal(v, 0xC0FFEE);
			assert_memory_equal(d + op.offset + 4, &val, 4);
			found = 1;
		}
	}
	assert_true(found);
	dta_region_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon),
		cmocka_unit_test(test_huge_fallback),
		cmocka_unit_test(test_shm_shared),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_open_rejects),
		cmocka_unit_test(test_beyond_4gib),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
