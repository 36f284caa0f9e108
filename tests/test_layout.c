/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout descriptors: geometry, serialised form, validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "dta/layout.h"

static void assert_same_layout(const struct dta_layout *a,
			       const struct dta_layout *b)
{
	assert_int_equal(a->primitive, b->primitive);
	assert_int_equal(a->hash_family, b->hash_family);
	assert_int_equal(a->hash_seed, b->hash_seed);
	assert_int_equal(a->data_size, b->data_size);
	assert_memory_equal(&a->g, &b->g, sizeof(a->g));
	for (unsigned r = 0; r < DTA_HF_COUNT; r++) {
		assert_int_equal(a->fn[r].kind, b->fn[r].kind);
		assert_int_equal(a->fn[r].poly, b->fn[r].poly);
		assert_int_equal(a->fn[r].init, b->fn[r].init);
		assert_int_equal(a->fn[r].xorout, b->fn[r].xorout);
		assert_int_equal(a->fn[r].seed, b->fn[r].seed);
		if (a->fn[r].kind != DTA_HASHFN_NONE)
			assert_int_equal(dta_hashfn_eval(&a->fn[r], "abc", 3),
					 dta_hashfn_eval(&b->fn[r], "abc", 3));
	}
}

static void round_trip(const struct dta_layout *l)
{
	uint8_t buf[DTA_LAYOUT_WIRE_SIZE];
	struct dta_layout d;

	assert_int_equal(dta_layout_encode(l, buf, sizeof(buf)),
			 DTA_LAYOUT_WIRE_SIZE);
	assert_int_equal(dta_layout_decode(buf, sizeof(buf), &d), 0);
	assert_same_layout(l, &d);
}

/* Sizes worked by hand from docs/layouts.md. */
static void test_geometry(void **state)
{
	struct dta_layout l;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1000, 20, 4, 2, DTA_HASH_CRC32C, 1), 0);
	assert_int_equal(l.g.kw.slot_size, 24);
	assert_int_equal(l.data_size, 24000);
	round_trip(&l);

	/* B = 5 hops of 4 bytes = 20 bytes, padded to 32. */
	assert_int_equal(dta_layout_pc(&l, 100, 5, 4, 2, DTA_HASH_CRC32C, 1), 0);
	assert_int_equal(l.g.pc.chunk_size, 32);
	assert_int_equal(l.data_size, 3200);
	assert_int_equal(dta_layout_pc(&l, 100, 5, 1, 2, DTA_HASH_XXH3, 1), 0);
	assert_int_equal(l.g.pc.chunk_size, 8);
	round_trip(&l);

	/* 16 + 16 entries * 13 bytes = 224 (already 8-aligned); 13 * 3 + 16 =
	 * 55 -> 56. */
	assert_int_equal(dta_layout_ap(&l, 3, 10, 16, 13, 0), 0);
	assert_int_equal(l.g.ap.frame_size, 224);
	assert_int_equal(l.data_size, 3 * 10 * 224);
	assert_int_equal(dta_layout_ap(&l, 1, 2, 3, 13, DTA_AP_SEPARATE_TRAILER), 0);
	assert_int_equal(l.g.ap.frame_size, 56);
	round_trip(&l);

	assert_int_equal(dta_layout_ki(&l, 1000, 3, 2, DTA_HASH_CRC32, 1), 0);
	assert_int_equal(l.data_size, 1000 * 3 * 2 * 8);
	round_trip(&l);

	/* Beyond 4 GiB of data. */
	assert_int_equal(dta_layout_kw(&l, 1ull << 32, 20, 4, 2, DTA_HASH_CRC32C, 1), 0);
	assert_int_equal(l.data_size, (1ull << 32) * 24);
	round_trip(&l);
}

static void test_invalid_geometry(void **state)
{
	struct dta_layout l;

	(void)state;
	assert_int_equal(dta_layout_pc(&l, 0, 5, 4, 2, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_pc(&l, 9, 17, 4, 2, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_pc(&l, 9, 5, 3, 2, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_pc(&l, 9, 5, 4, 0, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_ap(&l, 0, 4, 4, 4, 0), -EINVAL);
	assert_int_equal(dta_layout_ap(&l, 1, 1, 4, 4, 0), -EINVAL);
	assert_int_equal(dta_layout_ap(&l, 1, 4, 0, 4, 0), -EINVAL);
	assert_int_equal(dta_layout_ap(&l, 1, 4, 1025, 4, 0), -EINVAL);
	assert_int_equal(dta_layout_ap(&l, 1, 4, 4, 0, 0), -EINVAL);
	assert_int_equal(dta_layout_ap(&l, 1, 4, 4, 4, 0x80), -EINVAL);
	assert_int_equal(dta_layout_ki(&l, 0, 2, 1, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_ki(&l, 8, 0, 1, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_ki(&l, 8, 2, 3, DTA_HASH_CRC32C, 0), -EINVAL);
	assert_int_equal(dta_layout_ki(NULL, 8, 2, 1, DTA_HASH_CRC32C, 0), -EINVAL);
}

/* Any single corrupted byte is caught; a consistent-looking header whose
 * sizes disagree with its geometry is rejected too. */
static void test_decode_rejects(void **state)
{
	uint8_t buf[DTA_LAYOUT_WIRE_SIZE], bad[DTA_LAYOUT_WIRE_SIZE];
	struct dta_layout l, d;

	(void)state;
	assert_int_equal(dta_layout_kw(&l, 1000, 20, 4, 2, DTA_HASH_CRC32C, 1), 0);
	dta_layout_encode(&l, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i += 7) {
		memcpy(bad, buf, sizeof(buf));
		bad[i] ^= 0x04;
		assert_int_equal(dta_layout_decode(bad, sizeof(bad), &d),
				 -DTA_E_BADREGION);
	}
	assert_int_equal(dta_layout_decode(buf, sizeof(buf) - 1, &d),
			 -DTA_E_TRUNCATED);

	/* data_size edited and the CRC recomputed: still caught. */
	memcpy(bad, buf, sizeof(buf));
	bad[24] ^= 1;
	{
		uint32_t c = dta_crc32c(0, bad, sizeof(bad) - 4);

		for (int k = 0; k < 4; k++)
			bad[sizeof(bad) - 4 + k] = (uint8_t)(c >> (8 * k));
	}
	assert_int_equal(dta_layout_decode(bad, sizeof(bad), &d), -DTA_E_BADREGION);

	/* A newer format version is reported as such. */
	memcpy(bad, buf, sizeof(buf));
	bad[8] = 2;
	{
		uint32_t c = dta_crc32c(0, bad, sizeof(bad) - 4);

		for (int k = 0; k < 4; k++)
			bad[sizeof(bad) - 4 + k] = (uint8_t)(c >> (8 * k));
	}
	assert_int_equal(dta_layout_decode(bad, sizeof(bad), &d),
			 -DTA_E_REGIONVERSION);
	assert_int_equal(dta_layout_encode(&l, buf, 100), -ENOSPC);
}

static void test_names(void **state)
{
	(void)state;
	for (int p = DTA_PRIM_KEY_WRITE; p <= DTA_PRIM_POSTCARD; p++)
		assert_int_equal(dta_primitive_parse(dta_primitive_name(p)), p);
	assert_int_equal(dta_primitive_parse("kw"), DTA_PRIM_KEY_WRITE);
	assert_int_equal(dta_primitive_parse("pc"), DTA_PRIM_POSTCARD);
	assert_int_equal(dta_primitive_parse("nope"), -EINVAL);
	assert_null(dta_primitive_name(0));
	assert_string_equal(dta_strerror(-DTA_E_BADREGION),
			    "region header is invalid or corrupt");
	assert_string_equal(dta_strerror(DTA_E_TRUNCATED),
			    "report or buffer truncated");
	assert_non_null(dta_strerror(-ENOMEM));
	assert_string_equal(dta_strerror(DTA_E__LAST + 5), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_invalid_geometry),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
