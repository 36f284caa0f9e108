/* SPDX-License-Identifier: BSD-3-Clause */
/* Regions: backings, self-describing header, snapshots, huge pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "dta/hash.h"
#include "dta/keywrite.h"
#include "dta/region.h"
#include "dta/schema.h"

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

/* AnonHugePages of the mapping holding @p, from /proc/self/smaps; -1 if
 * not found. */
static long long smaps_thp_kb(const void *p)
{
	char line[256];
	unsigned long lo, hi;
	long long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (in && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1) {
			break;
		}
	}
	fclose(f);
	return kb;
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
		assert_non_null(strstr(last_log, "transparent huge page"));
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

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *p;
	long len;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = ftell(fp);
	assert_true(len > 0);
	rewind(fp);
	p = malloc((size_t)len);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	*n = (size_t)len;
	return p;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* A snapshot's data carries a CRC-32C over exactly the bytes saved: a
 * flipped data byte, bytes appended or bytes cut off are refused, never
 * loaded. The header keeps the source's origin and creation time and
 * says when it was saved (docs/layouts.md, "Region header"). */
static void test_snapshot_checksum(void **state)
{
	char path[128], bad[128];
	struct dta_layout l;
	struct dta_region *r, *s, *t;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0);
	struct dta_region_opts f;
	uint8_t *file;
	size_t n;
	struct stat st;
	uint32_t v;

	(void)state;
	snprintf(path, sizeof(path), "%s/sum.dta", tmpdir);
	snprintf(bad, sizeof(bad), "%s/sum-bad.dta", tmpdir);
	assert_int_equal(dta_layout_kw(&l, 1000, 4, 4, 2, DTA_HASH_CRC32C, 3), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_int_not_equal(dta_region_origin(r), 0);
	assert_int_equal(dta_region_saved_ns(r), 0);
	for (uint32_t k = 0; k < 50; k++)
		kw_put(r, k, k + 1000);
	assert_int_equal(dta_region_save(r, path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	file = read_file(path, &n);
	assert_int_equal(n, DTA_REGION_HEADER_SIZE + 8000);
	assert_int_equal(le(file + 8, 2), 2);                 /* version */
	assert_int_equal(le(file + 12, 4) & 2, 2);            /* saved flag */
	assert_true(le(file + 880, 8) == dta_region_origin(r));
	assert_true(le(file + 888, 8) == dta_region_created_ns(r));
	assert_true(le(file + 896, 8) >= dta_region_created_ns(r));
	/* Independently computed: the CRC-32C of the data bytes as stored. */
	assert_int_equal(le(file + 904, 4),
			 dta_crc32c_sw(0, file + DTA_REGION_HEADER_SIZE, 8000));

	f = opts(DTA_BACKING_FILE, path, DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&f, &s), 0);
	assert_true(dta_region_origin(s) == dta_region_origin(r));
	assert_true(dta_region_saved_ns(s) == le(file + 896, 8));
	assert_int_equal(dta_region_state(s), 0);
	dta_region_destroy(s);

	assert_int_equal(dta_region_create(&l, &o, &t), 0);
	file[DTA_REGION_HEADER_SIZE + 4321] ^= 0x10; /* one data bit */
	write_file(bad, file, n);
	assert_int_equal(dta_region_load(t, bad), -DTA_E_CHECKSUM);
	assert_int_equal(kw_get(t, 7, &v), DTA_Q_NOT_FOUND); /* untouched */
	assert_string_equal(dta_strerror(-DTA_E_CHECKSUM),
			    "region data does not match its checksum");
	file[DTA_REGION_HEADER_SIZE + 4321] ^= 0x10;
	file = realloc(file, n + 100);
	memset(file + n, 0xAB, 100); /* garbage after the data */
	write_file(bad, file, n + 100);
	assert_int_equal(dta_region_load(t, bad), -DTA_E_BADREGION);
	write_file(bad, file, n - 8); /* data cut short */
	assert_int_equal(dta_region_load(t, bad), -DTA_E_BADREGION);
	file[896] ^= 1; /* save time: covered by the header CRC */
	write_file(bad, file, n);
	assert_int_equal(dta_region_load(t, bad), -DTA_E_BADREGION);
	file[896] ^= 1;
	write_file(bad, file, n);
	assert_int_equal(dta_region_load(t, bad), 0);
	assert_int_equal(kw_get(t, 7, &v), DTA_Q_FOUND);
	assert_int_equal(v, 1007);
	/* The loaded region is still itself, not its source. */
	assert_true(dta_region_origin(t) != dta_region_origin(r));
	free(file);
	dta_region_destroy(t);
	dta_region_destroy(r);
}

/* Snapshot files of format version 1 (no origin, no data CRC, CRC over the
 * whole header page) still load; a version-1 region is not opened for
 * writing (it has no state words). */
static void test_version1_file(void **state)
{
	char path[128];
	struct dta_layout l;
	struct dta_region *r, *s;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0), f;
	uint8_t *file;
	size_t n;
	uint32_t crc, v;

	(void)state;
	snprintf(path, sizeof(path), "%s/v1.dta", tmpdir);
	assert_int_equal(dta_layout_kw(&l, 200, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	kw_put(r, 5, 55);
	assert_int_equal(dta_region_save(r, path), 0);
	file = read_file(path, &n);
	/* What version 1 wrote: version 1, flags only the byte order, time in
	 * seconds at 40, zeros after the layout, CRC over bytes 0..4091. */
	file[8] = 1;
	file[12] &= 1;
	memset(file + 880, 0, DTA_REGION_HEADER_SIZE - 880);
	file[40] = 100;
	memset(file + 41, 0, 7);
	crc = dta_crc32c_sw(0, file, DTA_REGION_HEADER_SIZE - 4);
	for (int i = 0; i < 4; i++)
		file[DTA_REGION_HEADER_SIZE - 4 + i] = (uint8_t)(crc >> (8 * i));
	write_file(path, file, n);
	f = opts(DTA_BACKING_FILE, path, DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&f, &s), 0);
	assert_int_equal(dta_region_origin(s), 0);
	assert_true(dta_region_created_ns(s) == 100000000000ull);
	assert_int_equal(dta_region_enter(s), -EINVAL);
	dta_region_destroy(s);
	memset(dta_region_data(r), 0, dta_region_data_size(r));
	assert_int_equal(dta_region_load(r, path), 0);
	assert_int_equal(kw_get(r, 5, &v), DTA_Q_FOUND);
	assert_int_equal(v, 55);
	f = opts(DTA_BACKING_FILE, path, 0);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_REGIONVERSION);
	free(file);
	dta_region_destroy(r);
}

/* Rewrite a v2 header's CRC (bytes 0..3839, little-endian at 4092). */
static void fix_crc(uint8_t *h)
{
	uint32_t crc = dta_crc32c_sw(0, h, 3840);

	for (int i = 0; i < 4; i++)
		h[DTA_REGION_HEADER_SIZE - 4 + i] = (uint8_t)(crc >> (8 * i));
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void expect_schema(const struct dta_region *r, const char *canon)
{
	char text[DTA_SCHEMA_TEXT_MAX];

	assert_non_null(dta_region_schema(r));
	assert_int_equal(dta_schema_format(dta_region_schema(r), text,
					   sizeof(text)), (int)strlen(canon));
	assert_string_equal(text, canon);
}

/* The schema travels in the header at 1024: create, open, save, open the
 * snapshot; the text is there byte for byte, zeros after it. */
static void test_schema_header(void **state)
{
	static const char canon[] = "a:u32, b:u16le, c:i16";
	char live[128], snap[128];
	struct dta_layout l;
	struct dta_schema sc;
	struct dta_region *r, *s, *t;
	struct dta_region_opts o, f;
	uint8_t *file;
	size_t n;

	(void)state;
	snprintf(live, sizeof(live), "%s/schema.live", tmpdir);
	snprintf(snap, sizeof(snap), "%s/schema.dta", tmpdir);
	assert_int_equal(dta_layout_kw(&l, 200, 8, 4, 2, DTA_HASH_CRC32C, 0), 0);
	/* Not canonical as written: the header holds the canonical text. */
	assert_int_equal(dta_schema_parse("a:u32be b:u16le[1] c:i16", &sc,
					  NULL, 0), 0);
	o = opts(DTA_BACKING_FILE, live, DTA_REGION_EXCL);
	o.schema = &sc;
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	memset(&sc, 0, sizeof(sc)); /* copied at creation */
	expect_schema(r, canon);
	assert_memory_equal((uint8_t *)dta_region_base(r) + 1024, canon,
			    sizeof(canon));
	assert_true(all_zero((uint8_t *)dta_region_base(r) + 1024 +
				     sizeof(canon), 1024 - sizeof(canon)));

	f = opts(DTA_BACKING_FILE, live, DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&f, &s), 0);
	expect_schema(s, canon);
	assert_int_equal(dta_region_schema(s)->f[2].offset, 6);
	dta_region_destroy(s);

	assert_int_equal(dta_region_save(r, snap), 0);
	file = read_file(snap, &n);
	assert_memory_equal(file + 1024, canon, sizeof(canon));
	free(file);
	f = opts(DTA_BACKING_FILE, snap, DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&f, &s), 0);
	expect_schema(s, canon);
	/* A snapshot of the snapshot keeps it too. */
	assert_int_equal(dta_region_save(s, live), 0);
	dta_region_destroy(s);
	assert_int_equal(dta_region_open(&f, &s), 0);
	expect_schema(s, canon);
	dta_region_destroy(s);

	/* Loading data keeps the target's own schema (here: none). */
	o = opts(DTA_BACKING_ANON, NULL, 0);
	assert_int_equal(dta_region_create(&l, &o, &t), 0);
	assert_null(dta_region_schema(t));
	assert_int_equal(dta_region_load(t, snap), 0);
	assert_null(dta_region_schema(t));
	assert_true(all_zero((uint8_t *)dta_region_base(t) + 1024, 1024));
	dta_region_destroy(t);
	dta_region_destroy(r);
	assert_null(dta_region_schema(NULL));
}

static void test_schema_create_rejects(void **state)
{
	struct dta_layout kw, ap, ki;
	struct dta_schema sc;
	struct dta_region *r;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0);

	(void)state;
	assert_int_equal(dta_layout_kw(&kw, 200, 8, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_layout_ap(&ap, 2, 16, 4, 12, 0), 0);
	assert_int_equal(dta_layout_ki(&ki, 64, 2, 1, DTA_HASH_CRC32C, 0), 0);
	o.schema = &sc;
	assert_int_equal(dta_schema_parse("a:u32", &sc, NULL, 0), 0);
	assert_int_equal(dta_region_create(&kw, &o, &r), -EINVAL);
	assert_int_equal(dta_region_create(&ap, &o, &r), -EINVAL);
	assert_int_equal(dta_region_create(&ki, &o, &r), -EINVAL);
	assert_int_equal(dta_schema_parse("x:u32 y:u64le:time", &sc, NULL, 0), 0);
	assert_int_equal(dta_region_create(&ap, &o, &r), 0);
	expect_schema(r, "x:u32, y:u64le:time_ns");
	dta_region_destroy(r);
	sc.nfields = 0; /* not a schema */
	assert_int_equal(dta_region_create(&ap, &o, &r), -EINVAL);
	/* A caller built before @schema: its @sz ends before it, so whatever
	 * lies there is not read. */
	o.sz = offsetof(struct dta_region_opts, schema);
	assert_int_equal(dta_region_create(&ap, &o, &r), 0);
	assert_null(dta_region_schema(r));
	dta_region_destroy(r);
}

/* A header without schema (every region and file written before schemas
 * had zeros there) opens as having none; a malformed schema field is a
 * bad region even with a correct CRC. */
static void test_schema_open_rejects(void **state)
{
	char path[128], bad[128];
	struct dta_layout l;
	struct dta_schema sc;
	struct dta_region *r, *s;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, 0), f;
	uint8_t *file;
	size_t n;
	uint32_t v;

	(void)state;
	snprintf(path, sizeof(path), "%s/sch.dta", tmpdir);
	snprintf(bad, sizeof(bad), "%s/sch-bad.dta", tmpdir);
	assert_int_equal(dta_layout_kw(&l, 200, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_schema_parse("v:u32", &sc, NULL, 0), 0);
	o.schema = &sc;
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	kw_put(r, 9, 99);
	assert_int_equal(dta_region_save(r, path), 0);
	file = read_file(path, &n);
	f = opts(DTA_BACKING_FILE, bad, DTA_REGION_RDONLY);

	/* The old format: zeros. */
	memset(file + 1024, 0, 1024);
	fix_crc(file);
	write_file(bad, file, n);
	assert_int_equal(dta_region_open(&f, &s), 0);
	assert_null(dta_region_schema(s));
	assert_int_equal(kw_get(s, 9, &v), DTA_Q_FOUND);
	assert_int_equal(v, 99);
	dta_region_destroy(s);

	/* Text that is no schema, a schema of the wrong size, no NUL, bytes
	 * after an empty text. */
	memcpy(file + 1024, "v:u32[0]", 9);
	fix_crc(file);
	write_file(bad, file, n);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	memcpy(file + 1024, "v:u64\0\0\0", 9);
	fix_crc(file);
	write_file(bad, file, n);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	memset(file + 1024, 'a', 1024);
	fix_crc(file);
	write_file(bad, file, n);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	memset(file + 1024, 0, 1024);
	file[1500] = 1;
	fix_crc(file);
	write_file(bad, file, n);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	/* Back to the saved text: fine again (the checks above were about
	 * the field, not the CRC). */
	memset(file + 1024, 0, 1024);
	memcpy(file + 1024, "v:u32", 6);
	fix_crc(file);
	write_file(bad, file, n);
	assert_int_equal(dta_region_open(&f, &s), 0);
	expect_schema(s, "v:u32");
	dta_region_destroy(s);
	/* The field is under the header CRC. */
	file[1024] = 'w';
	write_file(bad, file, n);
	assert_int_equal(dta_region_open(&f, &s), -DTA_E_BADREGION);
	free(file);
	dta_region_destroy(r);
}

/* Writers bracket writes with enter/leave; retiring refuses new writers,
 * waits for those inside, and a writer in another mapping sees it. */
static void test_retire(void **state)
{
	char name[64];
	struct dta_layout l;
	struct dta_region *coll, *tr;
	struct dta_region_opts o;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-retire-%d", (int)getpid());
	assert_int_equal(dta_layout_kw(&l, 64, 4, 4, 1, DTA_HASH_CRC32C, 0), 0);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL | DTA_REGION_UNLINK);
	assert_int_equal(dta_region_create(&l, &o, &coll), 0);
	assert_int_equal(dta_region_state(coll), DTA_REGION_LIVE);
	o = opts(DTA_BACKING_SHM, name, 0);
	assert_int_equal(dta_region_open(&o, &tr), 0);
	assert_int_equal(dta_region_state(tr), DTA_REGION_LIVE);

	assert_int_equal(dta_region_enter(tr), 0);
	assert_int_equal(dta_region_enter(tr), 0);
	/* Two writers inside: retiring times out but the state is set. */
	assert_int_equal(dta_region_retire(coll, 20), -ETIMEDOUT);
	assert_int_equal(dta_region_state(tr), DTA_REGION_RETIRED);
	assert_int_equal(dta_region_enter(tr), -ESTALE);
	dta_region_leave(tr);
	dta_region_leave(tr);
	assert_int_equal(dta_region_retire(coll, 20), 0);
	assert_int_equal(dta_region_enter(tr), -ESTALE);
	/* A new owner reattaching revives it. */
	assert_int_equal(dta_region_revive(coll), 0);
	assert_int_equal(dta_region_enter(tr), 0);
	dta_region_leave(tr);
	assert_int_equal(dta_region_retire(coll, 0), 0);

	assert_int_equal(dta_region_enter(NULL), -EINVAL);
	assert_int_equal(dta_region_retire(NULL, 1), -EINVAL);
	assert_int_equal(dta_region_state(NULL), 0);
	dta_region_destroy(tr);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&o, &tr), 0);
	assert_int_equal(dta_region_enter(tr), -EINVAL); /* read-only */
	assert_int_equal(dta_region_state(tr), DTA_REGION_RETIRED);
	dta_region_destroy(tr);
	dta_region_destroy(coll);
}

static mode_t shm_mode_of(const char *name)
{
	char p[128];
	struct stat st;

	snprintf(p, sizeof(p), "/dev/shm%s", name);
	assert_int_equal(stat(p, &st), 0);
	return st.st_mode & 07777;
}

/* Nobody else's object is taken for ours: objects are created O_EXCL with
 * an explicit mode (whatever the umask), and opening one for writing
 * refuses a foreign owner or a mode wider than asked. */
static void test_squatting(void **state)
{
	char name[64];
	struct dta_layout l;
	struct dta_region *r, *w;
	struct dta_region_opts o;
	mode_t old_umask;
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-squat-%d", (int)getpid());
	assert_int_equal(dta_layout_kw(&l, 64, 4, 4, 1, DTA_HASH_CRC32C, 0), 0);
	old_umask = umask(0);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL | DTA_REGION_UNLINK);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_int_equal(shm_mode_of(name), 0600);
	dta_region_destroy(r);
	/* A caller built before @mode passes the first version's size (40
	 * bytes on LP64, its tail padded): whatever follows is not read. */
	o.sz = offsetof(struct dta_region_opts, mode);
	memset(&o.mode, 0xff, sizeof(o.mode));
	assert_true(sizeof(void *) != 8 || o.sz == 40);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_int_equal(shm_mode_of(name), 0600);
	dta_region_destroy(r);
	o.sz = sizeof(o);
	o.mode = 0;
	umask(0077);
	o.mode = 0660;
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_int_equal(shm_mode_of(name), 0660);
	umask(old_umask);
	/* A group member's translator, expecting 0660, may write. */
	o = opts(DTA_BACKING_SHM, name, 0);
	o.mode = 0660;
	assert_int_equal(dta_region_open(&o, &w), 0);
	dta_region_destroy(w);
	/* Expecting 0600, the same object grants too much. */
	o.mode = 0;
	assert_int_equal(dta_region_open(&o, &w), -EPERM);
	/* Read-only opens (queries) are not refused. */
	o.flags = DTA_REGION_RDONLY;
	assert_int_equal(dta_region_open(&o, &w), 0);
	dta_region_destroy(w);
	o.flags = 0;
	o.mode = 0777 + 1;
	assert_int_equal(dta_region_open(&o, &w), -EINVAL);

	/* A squatter's object, world-writable: refused. */
	fd = shm_open(name, O_RDWR, 0);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0666), 0);
	o.mode = 0660;
	assert_int_equal(dta_region_open(&o, &w), -EPERM);
	assert_int_equal(fchmod(fd, 0600), 0);
	assert_int_equal(dta_region_open(&o, &w), 0);
	dta_region_destroy(w);
	close(fd); /* another owner's object: test_foreign_owner */
	/* Creating without EXCL replaces the object with one of our own. */
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_UNLINK);
	assert_int_equal(dta_region_create(&l, &o, &w), 0);
	assert_int_equal(shm_mode_of(name), 0600);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL);
	assert_int_equal(dta_region_create(&l, &o, &r), -EEXIST);
	dta_region_destroy(w);
	dta_region_destroy(r); /* the 0660 one, replaced above */
}

/* Anonymous regions asking for huge pages where none are reserved get
 * transparent ones (MADV_HUGEPAGE, populated at creation), and the page
 * size they report is what the kernel gave: the mapping is aligned to it
 * and /proc/self/smaps agrees. */
static void test_thp(void **state)
{
	struct dta_layout l;
	struct dta_region *r;
	struct dta_region_opts o = opts(DTA_BACKING_ANON, NULL, DTA_REGION_HUGE);
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	long long kb;
	uint64_t ps;
	uint32_t v;

	(void)state;
	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	if (!strstr(mode, "[always]") && !strstr(mode, "[madvise]"))
		skip(); /* no transparent huge pages on this machine */
	/* 16 MiB of slots: 8 huge pages. */
	assert_int_equal(dta_layout_kw(&l, 2u << 20, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	ps = dta_region_page_size(r);
	kb = smaps_thp_kb(dta_region_base(r));
	assert_true(kb >= 0);
	if (ps == 4096) {
		/* the kernel had none to give (memory fragmented): smaps
		 * says so too */
		assert_true((uint64_t)kb * 1024 < dta_region_map_size(r) / 2);
	} else {
		assert_true(ps >= (2u << 20));
		assert_int_equal((uintptr_t)dta_region_base(r) % ps, 0);
		assert_int_equal(dta_region_map_size(r) % ps, 0);
		assert_true((uint64_t)kb * 1024 >= dta_region_map_size(r) / 2);
	}
	kw_put(r, 3, 4);
	assert_int_equal(kw_get(r, 3, &v), DTA_Q_FOUND);
	assert_int_equal(v, 4);
	dta_region_destroy(r);
}

/* The local mapping path: an analysis tool maps a collector's live
 * region read-only and queries it. It sees what writers put there as
 * they do; it cannot write (a write through the mapping faults); and it
 * refuses an object that someone else could have planted and filled. */
static void test_readonly_map(void **state)
{
	char name[64];
	struct dta_layout l;
	struct dta_region *coll, *ro;
	struct dta_region_opts o;
	uint32_t v;
	pid_t pid;
	int st, fd;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-romap-%d", (int)getpid());
	assert_int_equal(dta_layout_kw(&l, 4096, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL | DTA_REGION_UNLINK);
	o.mode = 0640;
	assert_int_equal(dta_region_create(&l, &o, &coll), 0);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_RDONLY);
	assert_int_equal(dta_region_open(&o, &ro), 0);
	assert_int_equal(kw_get(ro, 9, &v), DTA_Q_NOT_FOUND);
	kw_put(coll, 9, 900); /* lands while the reader has it mapped */
	assert_int_equal(kw_get(ro, 9, &v), DTA_Q_FOUND);
	assert_int_equal(v, 900);
	/* Writing through the read-only mapping faults. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		volatile uint8_t *d = dta_region_data(ro);

		signal(SIGSEGV, SIG_DFL); /* cmocka catches it otherwise */
		d[0] = 1;
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	assert_int_equal(dta_region_enter(ro), -EINVAL);
	dta_region_destroy(ro);

	/* Anyone may have written a world-writable object: refused. */
	fd = shm_open(name, O_RDWR, 0);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0646), 0);
	assert_int_equal(dta_region_open(&o, &ro), -EPERM);
	assert_int_equal(fchmod(fd, 0640), 0);
	close(fd); /* another user's object: test_foreign_owner */
	dta_region_destroy(coll);
	assert_int_equal(dta_region_open(&o, &ro), -ENOENT);
}

/* An object another user owns is refused for writing and for a read-only
 * mapping alike, unless the caller asks for DTA_REGION_ANY_OWNER. Giving
 * an object away takes CAP_CHOWN: without it the test is skipped, saying
 * so. The other owner is a uid that is not ours (65534, or 65533 when we
 * are 65534: a chown to oneself would succeed and prove nothing). */
static void test_foreign_owner(void **state)
{
	char name[64];
	struct dta_layout l;
	struct dta_region *coll, *r;
	struct dta_region_opts o;
	uid_t other = geteuid() == 65534 ? 65533 : 65534;
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-owner-%d", (int)getpid());
	assert_int_equal(dta_layout_kw(&l, 64, 4, 4, 1, DTA_HASH_CRC32C, 0), 0);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL | DTA_REGION_UNLINK);
	o.mode = 0640;
	assert_int_equal(dta_region_create(&l, &o, &coll), 0);
	fd = shm_open(name, O_RDWR, 0);
	assert_true(fd >= 0);
	if (fchown(fd, other, (gid_t)other) != 0) {
		print_message("SKIP test_foreign_owner: giving an object to "
			      "uid %u needs root (CAP_CHOWN): %s\n",
			      (unsigned)other, strerror(errno));
		close(fd);
		dta_region_destroy(coll);
		skip();
		return;
	}
	o = opts(DTA_BACKING_SHM, name, 0);
	o.mode = 0640;
	assert_int_equal(dta_region_open(&o, &r), -EPERM);
	o.flags = DTA_REGION_RDONLY;
	assert_int_equal(dta_region_open(&o, &r), -EPERM);
	o.flags = DTA_REGION_ANY_OWNER;
	assert_int_equal(dta_region_open(&o, &r), 0);
	dta_region_destroy(r);
	o.flags = DTA_REGION_RDONLY | DTA_REGION_ANY_OWNER;
	assert_int_equal(dta_region_open(&o, &r), 0);
	dta_region_destroy(r);
	/* Ours again: opened without the flag. */
	assert_int_equal(fchown(fd, geteuid(), getegid()), 0);
	o.flags = 0;
	assert_int_equal(dta_region_open(&o, &r), 0);
	dta_region_destroy(r);
	close(fd);
	dta_region_destroy(coll);
}

/* Where a shared-memory object lives is the library's business: tools
 * stat and remove it by name (it may be on hugetlbfs). */
static void test_shm_stat_unlink(void **state)
{
	char name[64], p[128];
	struct dta_layout l;
	struct dta_region *r;
	struct dta_region_opts o;
	struct stat st, st2;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-unlink-%d", (int)getpid());
	assert_int_equal(dta_layout_kw(&l, 64, 4, 4, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_region_shm_stat(name, &st), -ENOENT);
	assert_int_equal(dta_region_unlink(DTA_BACKING_SHM, name), -ENOENT);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_int_equal(dta_region_shm_stat(name, &st), 0);
	snprintf(p, sizeof(p), "/dev/shm%s", name);
	assert_int_equal(stat(p, &st2), 0);
	assert_true(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev);
	assert_int_equal(dta_region_unlink(DTA_BACKING_SHM, name), 0);
	assert_int_equal(dta_region_shm_stat(name, &st), -ENOENT);
	assert_int_equal(dta_region_shm_stat("no-slash", &st), -EINVAL);
	assert_int_equal(dta_region_unlink(DTA_BACKING_ANON, name), -EINVAL);
	dta_region_destroy(r); /* mapped still; the name is gone */
}

/* dta_region_opts.dir: the object is DIR/NAME (not in /dev/shm), found
 * again by open, stat_in and unlink_in; the directory is not followed
 * through a symbolic link, nor the object; dir is only for SHM. */
static void test_shm_dir(void **state)
{
	char name[64], dir[128], link[128], p[256];
	struct dta_layout l;
	struct dta_region *r, *r2;
	struct dta_region_opts o;
	struct stat st, st2;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-dir-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/shm", tmpdir);
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(dta_layout_kw(&l, 4096, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);

	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL);
	o.dir = dir;
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	snprintf(p, sizeof(p), "%s%s", dir, name);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(p, sizeof(p), "/dev/shm%s", name);
	assert_int_equal(stat(p, &st2), -1);
	assert_int_equal(dta_region_shm_stat_in(dir, name, &st2), 0);
	assert_true(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev);
	assert_int_equal(dta_region_shm_stat(name, &st2), -ENOENT);
	kw_put(r, 7, 70);

	/* The same name again: EXCL sees it in the directory. */
	assert_int_equal(dta_region_create(&l, &o, &r2), -EEXIST);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_RDONLY);
	o.dir = dir;
	assert_int_equal(dta_region_open(&o, &r2), 0);
	{
		uint32_t v = 0;

		assert_int_equal(kw_get(r2, 7, &v), DTA_Q_FOUND);
		assert_int_equal(v, 70);
	}
	dta_region_destroy(r2);
	/* Not in /dev/shm, and not through a symbolic link. */
	o.dir = NULL;
	assert_int_equal(dta_region_open(&o, &r2), -ENOENT);
	o.dir = link;
	assert_true(dta_region_open(&o, &r2) == -ELOOP ||
		    dta_region_open(&o, &r2) == -ENOTDIR);
	assert_true(dta_region_shm_stat_in(link, name, &st2) < 0);
	/* dir is for shared memory only. */
	o = opts(DTA_BACKING_FILE, p, 0);
	o.dir = dir;
	assert_int_equal(dta_region_create(&l, &o, &r2), -EINVAL);
	o = opts(DTA_BACKING_SHM, name, 0);
	o.dir = "";
	assert_int_equal(dta_region_open(&o, &r2), -EINVAL);

	assert_true(dta_region_shm_unlink_in(link, name) == -ELOOP ||
		    dta_region_shm_unlink_in(link, name) == -ENOTDIR);
	assert_int_equal(dta_region_shm_unlink_in(dir, name), 0);
	assert_int_equal(dta_region_shm_unlink_in(dir, name), -ENOENT);
	assert_int_equal(dta_region_shm_stat_in(dir, "no-slash", &st2), -EINVAL);
	dta_region_destroy(r);
}

/* A structure larger than /dev/shm is refused at creation, quickly (free
 * space checked before anything is reserved), and leaves nothing behind;
 * one that fits has all its memory reserved. */
static void test_shm_too_small(void **state)
{
	char name[64], p[128];
	struct dta_layout l;
	struct dta_region *r;
	struct dta_region_opts o;
	struct statvfs sv;
	struct stat st;
	struct timespec a, b;
	uint64_t freeb;

	(void)state;
	snprintf(name, sizeof(name), "/dta-test-big-%d", (int)getpid());
	snprintf(p, sizeof(p), "/dev/shm%s", name);
	assert_int_equal(statvfs("/dev/shm", &sv), 0);
	freeb = (uint64_t)sv.f_bavail * sv.f_frsize;
	/* 2^32 slots of 64 bytes: 256 GiB. */
	assert_int_equal(dta_layout_kw(&l, 1ull << 32, 56, 4, 1, DTA_HASH_CRC32C, 0), 0);
	if (l.data_size <= freeb) {
		skip();
		return;
	}
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL | DTA_REGION_UNLINK);
	log_calls = 0;
	dta_set_log(capture_log);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(dta_region_create(&l, &o, &r), -ENOSPC);
	clock_gettime(CLOCK_MONOTONIC, &b);
	dta_set_log(NULL);
	assert_true(b.tv_sec - a.tv_sec < 2);
	assert_true(log_calls > 0);
	assert_non_null(strstr(last_log, "int-paths"));
	assert_non_null(strstr(last_log, "/dev/shm is too small"));
	assert_int_equal(stat(p, &st), -1);

	assert_int_equal(dta_layout_kw(&l, 1u << 16, 4, 4, 1, DTA_HASH_CRC32C, 0), 0);
	assert_int_equal(dta_region_create(&l, &o, &r), 0);
	assert_int_equal(stat(p, &st), 0);
	/* Reserved: every block allocated, not a sparse object. */
	assert_true((uint64_t)st.st_blocks * 512 >= DTA_REGION_HEADER_SIZE + l.data_size);
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

/* Minor faults this thread took so far. */
static long thread_minflt(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
	return ru.ru_minflt;
}

/* Read and write back one byte of every page of @p: the faults it took.
 * Not instrumented: under AddressSanitizer each access would also touch
 * the shadow of @p, whose pages fault in on first use (512 for 16 MiB),
 * and those faults are the thread's too. */
__attribute__((no_sanitize_address))
static long touch_pages(uint8_t *p, uint64_t n)
{
	long f0 = thread_minflt();

	for (uint64_t off = 0; off < n; off += 4096)
		((volatile uint8_t *)p)[off] = ((volatile uint8_t *)p)[off];
	return thread_minflt() - f0;
}

/* DTA_REGION_POPULATE: a writer that maps a collector's region gets its
 * page tables filled by the open, so writing every page takes (next to)
 * no fault; the populate writes nothing (the collector's data is
 * intact); readers and writers without the flag are not populated. */
static void test_populate(void **state)
{
	char name[64];
	struct dta_layout l;
	struct dta_region *coll, *tr;
	struct dta_region_opts o;
	uint8_t *cd, *td;
	uint64_t n, pages;
	long faults;
	uint32_t v;

	(void)state;
	assert_int_equal(dta_region_populate_ns(NULL), 0);
	snprintf(name, sizeof(name), "/dta-test-pop-%d", (int)getpid());
	/* 16 MiB of slots: 4096 pages of 4 KiB. */
	assert_int_equal(dta_layout_kw(&l, 2u << 20, 4, 4, 2, DTA_HASH_CRC32C, 0), 0);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_EXCL | DTA_REGION_UNLINK);
	assert_int_equal(dta_region_create(&l, &o, &coll), 0);
	assert_int_equal(dta_region_populate_ns(coll), 0);
	cd = dta_region_data(coll);
	n = dta_region_data_size(coll);
	pages = n / 4096;
	for (uint64_t i = 0; i < n; i++)
		cd[i] = (uint8_t)(i * 7 + i / 4096);

	o = opts(DTA_BACKING_SHM, name, DTA_REGION_POPULATE);
	assert_int_equal(dta_region_open(&o, &tr), 0);
	assert_true(dta_region_populate_ns(tr) > 0);
	td = dta_region_data(tr);
	assert_memory_equal(td, cd, n);
	faults = touch_pages(td, n);
	assert_true(faults <= (long)(pages / 64));
	kw_put(tr, 77, 4321);
	assert_int_equal(kw_get(coll, 77, &v), DTA_Q_FOUND);
	assert_int_equal(v, 4321);
	dta_region_destroy(tr);

	/* Without the flag, and read-only with it: not populated. */
	o = opts(DTA_BACKING_SHM, name, 0);
	assert_int_equal(dta_region_open(&o, &tr), 0);
	assert_int_equal(dta_region_populate_ns(tr), 0);
	dta_region_destroy(tr);
	o = opts(DTA_BACKING_SHM, name, DTA_REGION_RDONLY | DTA_REGION_POPULATE);
	assert_int_equal(dta_region_open(&o, &tr), 0);
	assert_int_equal(dta_region_populate_ns(tr), 0);
	assert_int_equal(kw_get(tr, 77, &v), DTA_Q_FOUND);
	dta_region_destroy(tr);
	dta_region_destroy(coll);

	/* Anonymous memory created populated: zeros, and no faults. */
	o = opts(DTA_BACKING_ANON, NULL, DTA_REGION_POPULATE);
	assert_int_equal(dta_region_create(&l, &o, &tr), 0);
	assert_true(dta_region_populate_ns(tr) > 0);
	td = dta_region_data(tr);
	for (uint64_t i = 0; i < n; i += 4096)
		assert_int_equal(td[i] | td[i + 4095], 0);
	faults = touch_pages(td, n);
	assert_true(faults <= (long)(pages / 64));
	dta_region_destroy(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon),
		cmocka_unit_test(test_huge_fallback),
		cmocka_unit_test(test_thp),
		cmocka_unit_test(test_shm_shared),
		cmocka_unit_test(test_populate),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_open_rejects),
		cmocka_unit_test(test_snapshot_checksum),
		cmocka_unit_test(test_version1_file),
		cmocka_unit_test(test_retire),
		cmocka_unit_test(test_squatting),
		cmocka_unit_test(test_readonly_map),
		cmocka_unit_test(test_foreign_owner),
		cmocka_unit_test(test_shm_stat_unlink),
		cmocka_unit_test(test_shm_too_small),
		cmocka_unit_test(test_shm_dir),
		cmocka_unit_test(test_beyond_4gib),
		cmocka_unit_test(test_schema_header),
		cmocka_unit_test(test_schema_create_rejects),
		cmocka_unit_test(test_schema_open_rejects),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
