/* SPDX-License-Identifier: BSD-3-Clause */
/* Structure descriptions: round trip, and every field checked on decode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "dta/dta.h"

static struct dta_meta sample(void)
{
	struct dta_meta m;

	memset(&m, 0, sizeof(m));
	assert_int_equal(dta_layout_ki(&m.layout, 4096, 2, 2, DTA_HASH_CRC32C, 3), 0);
	m.index = 2;
	m.count = 4;
	strcpy(m.name, "counters");
	m.addr = 0x7f0012345000ull;
	m.rkey = 0xabcdef01;
	m.length = m.layout.data_size;
	m.list_base = 0;
	return m;
}

static void test_round_trip(void **state)
{
	struct dta_meta m = sample(), back;
	uint8_t buf[DTA_META_SIZE];

	(void)state;
	assert_int_equal(dta_meta_encode(&m, buf, sizeof(buf)), DTA_META_SIZE);
	/* Big-endian rkey at offset 12, as docs/rdma.md says. */
	assert_int_equal(buf[12], 0xab);
	assert_int_equal(buf[15], 0x01);
	assert_int_equal(dta_meta_decode(buf, sizeof(buf), &back), 0);
	assert_int_equal(back.index, 2);
	assert_int_equal(back.count, 4);
	assert_string_equal(back.name, "counters");
	assert_int_equal(back.addr, m.addr);
	assert_int_equal(back.rkey, m.rkey);
	assert_int_equal(back.length, m.length);
	assert_int_equal(back.layout.g.ki.banks, 2);
	assert_int_equal(back.layout.fn[1].poly, m.layout.fn[1].poly);
}

static void test_rejects(void **state)
{
	struct dta_meta m = sample(), back;
	uint8_t buf[DTA_META_SIZE], bad[DTA_META_SIZE];

	(void)state;
	assert_int_equal(dta_meta_encode(&m, buf, sizeof(buf)), DTA_META_SIZE);
	assert_int_equal(dta_meta_decode(buf, sizeof(buf) - 1, &back),
			 -DTA_E_TRUNCATED);
	for (size_t i = 0; i < sizeof(buf); i += 7) {
		memcpy(bad, buf, sizeof(buf));
		bad[i] ^= 0x10;
		assert_int_not_equal(dta_meta_decode(bad, sizeof(bad), &back), 0);
	}
	m.index = 4; /* not < count */
	assert_int_equal(dta_meta_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample();
	m.length++;
	assert_int_equal(dta_meta_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample();
	m.name[0] = 0;
	assert_int_equal(dta_meta_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample();
	assert_int_equal(dta_meta_encode(&m, buf, 100), -ENOSPC);
	/* A Key-Increment area must be 8-byte aligned for atomics. */
	m.addr |= 4;
	assert_int_equal(dta_meta_encode(&m, buf, sizeof(buf)), DTA_META_SIZE);
	assert_int_equal(dta_meta_decode(buf, sizeof(buf), &back), -DTA_E_MALFORMED);
}

static void test_cursors(void **state)
{
	static struct dta_meta_cursors c, back;
	uint8_t buf[DTA_CURSORS_SIZE(DTA_CURSORS_MAX)];
	int len;

	(void)state;
	c.structure = 3;
	c.first_list = 1016;
	c.n = DTA_CURSORS_MAX;
	for (unsigned i = 0; i < c.n; i++) {
		c.cur[i].next_seq = 7 * i + 1;
		c.cur[i].next_entry = 100 * i;
	}
	len = dta_meta_cursors_encode(&c, buf, sizeof(buf));
	assert_int_equal(len, (int)sizeof(buf));
	assert_true(len <= 4096);
	assert_int_equal(dta_meta_cursors_decode(buf, (size_t)len, &back), 0);
	assert_int_equal(back.first_list, 1016);
	assert_int_equal(back.n, DTA_CURSORS_MAX);
	assert_int_equal(back.cur[507].next_seq, 7 * 507 + 1);
	assert_int_equal(back.cur[9].next_entry, 900);
	/* Truncated, extended, corrupted, and a description instead. */
	assert_int_equal(dta_meta_cursors_decode(buf, (size_t)len - 1, &back),
			 -DTA_E_TRUNCATED);
	assert_int_equal(dta_meta_cursors_decode(buf, 10, &back), -DTA_E_TRUNCATED);
	buf[100] ^= 1;
	assert_int_equal(dta_meta_cursors_decode(buf, (size_t)len, &back),
			 -DTA_E_MALFORMED);
	c.n = 0;
	assert_int_equal(dta_meta_cursors_encode(&c, buf, sizeof(buf)), -EINVAL);
	c.n = 2;
	assert_int_equal(dta_meta_cursors_encode(&c, buf, 10), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_cursors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
