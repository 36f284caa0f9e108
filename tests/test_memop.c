/* SPDX-License-Identifier: BSD-3-Clause */
/* dta_memops_apply(): exact placement, all-or-nothing validation, bounds,
 * alignment, atomic fetch-and-add and the WRITE placement order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dta/layout.h"

#define AREA 256

static uint64_t rng_state = 7;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* 8-aligned area filled with a pattern, so "nothing applied" is visible. */
static uint64_t area_words[AREA / 8];

static uint8_t *fresh_area(void)
{
	uint8_t *a = (uint8_t *)area_words;

	for (unsigned i = 0; i < AREA; i++)
		a[i] = (uint8_t)(0x5A ^ i);
	return a;
}

static void assert_untouched(const uint8_t *a)
{
	for (unsigned i = 0; i < AREA; i++)
		assert_int_equal(a[i], (uint8_t)(0x5A ^ i));
}

static struct dta_memop wr(uint64_t off, uint32_t len, const void *data)
{
	struct dta_memop op = { .kind = DTA_MEMOP_WRITE, .len = len,
				.offset = off, .data = data };

	return op;
}

static struct dta_memop fa(uint64_t off, uint64_t add)
{
	struct dta_memop op = { .kind = DTA_MEMOP_FETCH_ADD, .len = 8,
				.offset = off, .add = add };

	return op;
}

/* Writes of every length 1..64 at odd and even offsets land exactly where
 * memcpy into a shadow copy puts them, and touch nothing else. */
static void test_write_exact(void **state)
{
	uint8_t src[64], shadow[AREA];
	uint8_t *a;

	(void)state;
	for (uint32_t len = 1; len <= 64; len++) {
		for (uint64_t off = 0; off + len <= AREA; off += 37) {
			struct dta_memop op;

			a = fresh_area();
			memcpy(shadow, a, AREA);
			for (unsigned i = 0; i < len; i++)
				src[i] = (uint8_t)rnd();
			memcpy(shadow + off, src, len);
			op = wr(off, len, src);
			assert_int_equal(dta_memops_apply(a, AREA, &op, 1), 1);
			assert_memory_equal(a, shadow, AREA);
		}
	}
	/* Last byte and a write that exactly fills the area. */
	a = fresh_area();
	src[0] = 0xC3;
	struct dta_memop last = wr(AREA - 1, 1, src);
	assert_int_equal(dta_memops_apply(a, AREA, &last, 1), 1);
	assert_int_equal(a[AREA - 1], 0xC3);
	assert_int_equal(a[AREA - 2], (uint8_t)(0x5A ^ (AREA - 2)));
	static uint8_t full[AREA];
	memset(full, 0x11, AREA);
	struct dta_memop all = wr(0, AREA, full);
	assert_int_equal(dta_memops_apply(a, AREA, &all, 1), 1);
	assert_memory_equal(a, full, AREA);
}

/* Fetch-add is 64-bit host order and wraps modulo 2^64; ops of one call are
 * applied in array order (a later WRITE wins over an earlier one). */
static void test_fetch_add_values(void **state)
{
	uint64_t w[4] = { 0, UINT64_MAX - 1, 41, 0 };
	const uint8_t ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	const uint8_t twos[8] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	struct dta_memop ops[6] = {
		fa(0, 5), fa(8, 3), fa(16, 1), fa(0, 10), wr(24, 8, ones),
		wr(24, 8, twos),
	};

	(void)state;
	assert_int_equal(dta_memops_apply(w, sizeof(w), ops, 6), 6);
	assert_true(w[0] == 15);
	assert_true(w[1] == 1); /* (2^64 - 2) + 3 */
	assert_true(w[2] == 42);
	assert_memory_equal(&w[3], twos, 8);
	assert_int_equal(dta_memops_apply(w, sizeof(w), ops, 0), 0);
	assert_int_equal(dta_memops_apply(w, sizeof(w), NULL, 0), 0);
	assert_true(w[0] == 15);
}

/* One bad op anywhere in the array: error, and not one byte applied, even
 * when the ops before it were valid. */
static void test_range_nothing_applied(void **state)
{
	static const uint8_t src[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4,
					 5, 6, 7, 8, 9, 10, 11, 12 };
	struct {
		struct dta_memop bad;
		const char *why;
	} cases[] = {
		{ wr(AREA - 7, 8, src), "write one byte past the end" },
		{ wr(AREA, 1, src), "write at offset == size" },
		{ wr(AREA + 1000, 1, src), "write far past the end" },
		{ wr(0, AREA + 1, src), "write longer than the area" },
		{ fa(AREA, 1), "fetch-add at offset == size" },
		{ fa(AREA + 8, 1), "fetch-add one word past the end" },
		{ fa(1ull << 40, 1), "fetch-add far past the end" },
		/* offset + len wraps past 2^64 to a small number */
		{ wr(UINT64_MAX - 3, 8, src), "write offset + len overflows" },
		{ wr(UINT64_MAX, 1, src), "write at 2^64-1" },
		{ wr(UINT64_MAX - 15, 16, src), "write ends exactly at 2^64" },
		{ fa(UINT64_MAX - 7, 1), "aligned fetch-add, offset + 8 = 2^64" },
		{ fa(0xFFFFFFFFFFFFFF00ull, 1), "fetch-add offset near 2^64" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct dta_memop ops[4] = { wr(0, 16, src), fa(16, 99),
					    cases[c].bad, wr(32, 4, src) };
		uint8_t *a = fresh_area();

		print_message("case: %s\n", cases[c].why);
		assert_int_equal(dta_memops_apply(a, AREA, &cases[c].bad, 1),
				 -DTA_E_RANGE);
		assert_untouched(a);
		assert_int_equal(dta_memops_apply(a, AREA, ops, 4), -DTA_E_RANGE);
		assert_untouched(a);
		/* bad op first */
		ops[0] = cases[c].bad;
		ops[2] = wr(64, 16, src);
		assert_int_equal(dta_memops_apply(a, AREA, ops, 4), -DTA_E_RANGE);
		assert_untouched(a);
	}
}

/* offset + len computed naively wraps past 2^64 and looks in range when
 * the area is (claimed to be) huge: must still be refused, without touching
 * memory. */
static void test_offset_len_overflow(void **state)
{
	static const uint8_t src[16] = { 1 };
	static const uint64_t sizes[] = { UINT64_MAX, UINT64_MAX - 1,
					  UINT64_MAX - 4 };

	(void)state;
	for (size_t z = 0; z < 3; z++) {
		const uint64_t size = sizes[z];
		struct dta_memop bad[] = {
			wr(UINT64_MAX - 3, 8, src), wr(UINT64_MAX, 2, src),
			wr(UINT64_MAX - 14, 16, src), wr(size - 1, 2, src),
			fa(UINT64_MAX - 7, 1),
		};

		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			struct dta_memop ops[2] = { wr(0, 16, src), bad[b] };
			uint8_t *a = fresh_area();

			assert_int_equal(dta_memops_apply(a, size, ops, 2),
					 -DTA_E_RANGE);
			assert_untouched(a);
		}
	}
	/* one byte past an area of 2^32 + 8 bytes with a 32-bit length */
	{
		struct dta_memop ops[2] = { fa(8, 1), wr(10, UINT32_MAX, src) };
		uint8_t *a = fresh_area();

		assert_int_equal(dta_memops_apply(a, (1ull << 32) + 8, ops, 2),
				 -DTA_E_RANGE);
		assert_untouched(a);
	}
}

/* A fetch-add must be 8-byte aligned within the area. */
static void test_misaligned_fetch_add(void **state)
{
	static const uint8_t src[4] = { 9, 9, 9, 9 };

	(void)state;
	for (uint64_t off = 1; off < 8; off++) {
		struct dta_memop ops[3] = { wr(100, 4, src), fa(off, 1),
					    fa(16, 1) };
		uint8_t *a = fresh_area();

		assert_int_equal(dta_memops_apply(a, AREA, &ops[1], 1),
				 -DTA_E_RANGE);
		assert_int_equal(dta_memops_apply(a, AREA, ops, 3), -DTA_E_RANGE);
		assert_untouched(a);
		ops[1].offset = 64 + off;
		assert_int_equal(dta_memops_apply(a, AREA, ops, 3), -DTA_E_RANGE);
		assert_untouched(a);
	}
	/* A FETCH_ADD that is not 8 bytes wide is refused too. */
	for (uint32_t len = 0; len < 17; len++) {
		struct dta_memop op = fa(8, 1);
		uint8_t *a = fresh_area();

		if (len == 8)
			continue;
		op.len = len;
		assert_true(dta_memops_apply(a, AREA, &op, 1) < 0);
		assert_untouched(a);
	}
}

/* Unknown kinds are -EINVAL, again with nothing applied. */
static void test_bad_kind_and_args(void **state)
{
	static const uint8_t src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint8_t kinds[] = { 0, 3, 4, 0x7f, 0xff };

	(void)state;
	for (size_t k = 0; k < sizeof(kinds); k++) {
		struct dta_memop ops[3] = { wr(0, 8, src), fa(8, 1), fa(16, 1) };
		uint8_t *a = fresh_area();

		ops[2].kind = kinds[k];
		assert_int_equal(dta_memops_apply(a, AREA, &ops[2], 1), -EINVAL);
		assert_int_equal(dta_memops_apply(a, AREA, ops, 3), -EINVAL);
		assert_untouched(a);
	}
	/* WRITE without a source. */
	{
		struct dta_memop ops[2] = { fa(8, 1), wr(0, 8, NULL) };
		uint8_t *a = fresh_area();

		assert_int_equal(dta_memops_apply(a, AREA, ops, 2), -EINVAL);
		assert_untouched(a);
	}
	/* NULL area, NULL ops with n > 0. */
	{
		struct dta_memop op = fa(8, 1);
		uint8_t *a = fresh_area();

		assert_int_equal(dta_memops_apply(NULL, AREA, &op, 1), -EINVAL);
		assert_int_equal(dta_memops_apply(a, AREA, NULL, 1), -EINVAL);
		assert_untouched(a);
	}
	/* A zero-sized area accepts nothing. */
	{
		struct dta_memop op = wr(0, 1, src);
		uint8_t *a = fresh_area();

		assert_int_equal(dta_memops_apply(a, 0, &op, 1), -DTA_E_RANGE);
		op = fa(0, 1);
		assert_int_equal(dta_memops_apply(a, 0, &op, 1), -DTA_E_RANGE);
		assert_untouched(a);
	}
}

/* ---- concurrency ---- */

#define FA_ITERS 400000u

struct fa_arg {
	uint64_t *area;
	unsigned id;
	int err;
};

/* Each thread adds to a shared counter (distinct operands per thread), to a
 * counter both threads hit through a two-op array, and to its own one. */
static void *fa_thread(void *p)
{
	struct fa_arg *a = p;

	for (uint32_t i = 0; i < FA_ITERS; i++) {
		struct dta_memop ops[2] = { fa(0, a->id ? 1000003 : 1),
					    fa(8, (uint64_t)i) };
		struct dta_memop own = fa(16 + 8 * a->id, 3);

		if (dta_memops_apply(a->area, 64, ops, 2) != 2 ||
		    dta_memops_apply(a->area, 64, &own, 1) != 1)
			a->err = 1;
	}
	return NULL;
}

static void test_concurrent_fetch_add(void **state)
{
	static uint64_t area[8];
	struct fa_arg args[2] = { { area, 0, 0 }, { area, 1, 0 } };
	pthread_t t[2];
	const uint64_t n = FA_ITERS;

	(void)state;
	memset(area, 0, sizeof(area));
	area[1] = UINT64_MAX - 5; /* the sum wraps modulo 2^64 */
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, fa_thread, &args[i]), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(args[0].err, 0);
	assert_int_equal(args[1].err, 0);
	assert_true(area[0] == n * 1 + n * 1000003);
	/* 2 * (0 + 1 + ... + n-1) + (2^64 - 6) mod 2^64 */
	assert_true(area[1] == n * (n - 1) - 6);
	assert_true(area[2] == 3 * n);
	assert_true(area[3] == 3 * n);
	assert_true(area[4] == 0);
}

/* ---- WRITE placement order (what the Append reader relies on) ---- */

#define ORD_WORDS 512     /* a 4 KiB WRITE: first 8, middle, last 8 */
#define ORD_LOOKS 3000000 /* reader observations */

struct ord {
	uint64_t words[ORD_WORDS];
	atomic_int started, done;
	unsigned long bad_last, bad_mid, in_flight;
};

static void *ord_writer(void *p)
{
	struct ord *o = p;
	static uint64_t buf[ORD_WORDS];

	atomic_store(&o->started, 1);
	for (uint64_t v = 1; !atomic_load_explicit(&o->done,
						   memory_order_relaxed); v++) {
		struct dta_memop op;

		for (unsigned i = 0; i < ORD_WORDS; i++)
			buf[i] = v;
		op = wr(0, sizeof(buf), buf);
		if (dta_memops_apply(o->words, sizeof(o->words), &op, 1) != 1)
			break;
	}
	return NULL;
}

static uint64_t ld(const uint64_t *p, int mo)
{
	return __atomic_load_n(p, mo);
}

/* Every word of write v holds v, so versions seen must respect: last word
 * seen => the first word and the middle are at least as new; a middle word
 * of a later write seen => that write's first word is visible. */
static void *ord_reader(void *p)
{
	struct ord *o = p;

	while (!atomic_load(&o->started))
		;
	for (unsigned long k = 0; k < ORD_LOOKS; k++) {
		uint64_t last = ld(&o->words[ORD_WORDS - 1], __ATOMIC_ACQUIRE);
		uint64_t first = ld(&o->words[0], __ATOMIC_RELAXED);
		uint64_t mid = ld(&o->words[ORD_WORDS / 2], __ATOMIC_RELAXED);

		if (first < last || mid < last)
			o->bad_last++;
		if (first != last)
			o->in_flight++;
		mid = ld(&o->words[ORD_WORDS / 2], __ATOMIC_RELAXED);
		atomic_thread_fence(memory_order_acquire);
		first = ld(&o->words[0], __ATOMIC_RELAXED);
		if (first < mid)
			o->bad_mid++;
	}
	atomic_store(&o->done, 1);
	return NULL;
}

static void test_write_order(void **state)
{
	static struct ord o;
	pthread_t w, r;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(pthread_create(&r, NULL, ord_reader, &o), 0);
	assert_int_equal(pthread_create(&w, NULL, ord_writer, &o), 0);
	assert_int_equal(pthread_join(w, NULL), 0);
	assert_int_equal(pthread_join(r, NULL), 0);
	print_message("write order: %lu of %d looks saw a write in flight\n",
		      o.in_flight, ORD_LOOKS);
	assert_true(o.words[0] > 0 && o.words[0] == o.words[ORD_WORDS - 1]);
	assert_int_equal(o.bad_last, 0);
	assert_int_equal(o.bad_mid, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_exact),
		cmocka_unit_test(test_fetch_add_values),
		cmocka_unit_test(test_range_nothing_applied),
		cmocka_unit_test(test_offset_len_overflow),
		cmocka_unit_test(test_misaligned_fetch_add),
		cmocka_unit_test(test_bad_kind_and_args),
		cmocka_unit_test(test_concurrent_fetch_add),
		cmocka_unit_test(test_write_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
