/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prototype hash family: memory laid out exactly as the research
 * prototype's Tofino translator (jonlanglet/DTA, dta_translator.p4) writes
 * it. The expected bytes are computed here from that program's description
 * with a bit-serial CRC written for this test, not with libdta's tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dta/hash.h"
#include "dta/keywrite.h"
#include "dta/layout.h"
#include "dta/postcard.h"

/* Reflected CRC-32, one bit at a time; @poly in normal notation. */
static uint32_t crc_bits(uint32_t poly, const uint8_t *p, size_t n)
{
	uint32_t rev = 0, crc = 0xFFFFFFFFu;

	for (int i = 0; i < 32; i++)
		if (poly & (1u << i))
			rev |= 1u << (31 - i);
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ ((crc & 1) ? rev : 0);
	}
	return crc ^ 0xFFFFFFFFu;
}

#define CRC32_POLY 0x04C11DB7u

/* What the prototype does for Key-Write copy @n of a 4-byte key: hash
 * {key[7:0] ++ key[15:8] ++ key[23:16] ++ key[31:24], n} and mask. */
static uint32_t proto_kw_slot(const uint8_t key[4], unsigned n, uint32_t mask)
{
	uint8_t in[5] = { key[3], key[2], key[1], key[0], (uint8_t)n };

	return crc_bits(CRC32_POLY, in, 5) & mask;
}

static uint32_t proto_kw_csum(const uint8_t key[4])
{
	uint8_t in[4] = { key[3], key[2], key[1], key[0] };

	return crc_bits(CRC32_POLY, in, 4);
}

static void test_check_value(void **state)
{
	(void)state;
	/* The bit-serial CRC agrees with the published check value. */
	assert_int_equal(crc_bits(CRC32_POLY, (const uint8_t *)"123456789", 9),
			 0xCBF43926u);
	assert_int_equal(dta_hash_family_parse("prototype"), DTA_HASH_PROTOTYPE);
}

static void test_kw_bytes(void **state)
{
	static const uint8_t key[4] = { 10, 0, 0, 7 };
	static const uint8_t data[4] = { 0x00, 0x00, 0x01, 0x2c };
	const uint32_t slots = 1u << 16;
	struct dta_layout l;
	struct dta_memop ops[8];
	uint8_t slot[16];
	uint32_t c = proto_kw_csum(key);

	(void)state;
	assert_int_equal(dta_layout_kw(&l, slots, 4, 4, 4, DTA_HASH_PROTOTYPE, 0),
			 0);
	assert_int_equal(dta_kw_ops(&l, key, 4, data, 4, 3, slot, sizeof(slot),
				    ops, 8), 3);
	for (unsigned n = 0; n < 3; n++) {
		assert_int_equal(ops[n].len, 8);
		assert_int_equal(ops[n].offset,
				 (uint64_t)proto_kw_slot(key, n, slots - 1) * 8);
	}
	/* Checksum byte-swapped by the translator: little-endian in memory;
	 * data left as the reporter sent it. */
	assert_int_equal(slot[0], (uint8_t)c);
	assert_int_equal(slot[3], (uint8_t)(c >> 24));
	assert_memory_equal(slot + 4, data, 4);
}

/* Memory filled the way the prototype fills it (not through libdta's
 * writer) answers libdta's query. */
static void test_kw_query_prototype_memory(void **state)
{
	const uint32_t slots = 1u << 12;
	uint8_t *area = calloc(slots, 8);
	struct dta_layout l;

	(void)state;
	assert_non_null(area);
	assert_int_equal(dta_layout_kw(&l, slots, 4, 4, 2, DTA_HASH_PROTOTYPE, 0),
			 0);
	for (uint32_t k = 1; k <= 500; k++) {
		uint8_t key[4] = { 0, 0, (uint8_t)(k >> 8), (uint8_t)k };
		uint32_t c = proto_kw_csum(key);

		for (unsigned n = 0; n < 2; n++) {
			uint8_t *s = area + (size_t)proto_kw_slot(key, n, slots - 1) * 8;

			s[0] = (uint8_t)c;
			s[1] = (uint8_t)(c >> 8);
			s[2] = (uint8_t)(c >> 16);
			s[3] = (uint8_t)(c >> 24);
			memcpy(s + 4, key, 4); /* data: the key itself */
		}
	}
	for (uint32_t k = 1; k <= 500; k++) {
		uint8_t key[4] = { 0, 0, (uint8_t)(k >> 8), (uint8_t)k };
		struct dta_kw_query_opts o = { .redundancy = 2 };
		struct dta_kw_result res;
		uint8_t out[4];

		assert_int_equal(dta_kw_query(&l, area, key, 4, &o, out, 4, &res), 0);
		/* 500 keys in 4096 slots with N=2: most survive; a survivor
		 * must carry the right data. */
		if (res.status == DTA_Q_FOUND)
			assert_memory_equal(out, key, 4);
	}
	{
		uint8_t key[4] = { 0, 0, 0, 42 };
		struct dta_kw_result res;
		uint8_t out[4];

		assert_int_equal(dta_kw_query(&l, area, key, 4, NULL, out, 4, &res),
				 0);
		assert_int_equal(res.status, DTA_Q_FOUND);
	}
	free(area);
}

static const uint32_t hop_polys[5] = { 0x1e12a700u, 0x65b96595u, 0x49cf878bu,
				       0x36518f0du, 0x7a40a908u };

static void test_pc_bytes_and_query(void **state)
{
	static const uint8_t key[4] = { 0xc0, 0xa8, 0x01, 0x02 };
	static const uint32_t path[3] = { 101, 205, 309 };
	static const uint32_t known[] = { 101, 102, 205, 206, 309, 310 };
	const uint32_t chunks = 1u << 10;
	struct dta_layout l, dec;
	struct dta_pc_codebook *cb;
	struct dta_pc_result res;
	struct dta_memop op;
	uint8_t chunk[32], wire[DTA_LAYOUT_WIRE_SIZE];
	uint8_t *area = calloc(chunks, 32);

	(void)state;
	assert_non_null(area);
	assert_int_equal(dta_layout_pc(&l, chunks, 5, 4, 1, DTA_HASH_PROTOTYPE, 0),
			 0);
	assert_int_equal(l.g.pc.chunk_size, 32);
	assert_int_equal(dta_pc_ops(&l, key, 4, path, 3, chunk, sizeof(chunk),
				    &op, 1), 1);
	assert_int_equal(op.offset,
			 (uint64_t)(crc_bits(CRC32_POLY, key, 4) & (chunks - 1)) * 32);
	for (unsigned i = 0; i < 5; i++) {
		uint32_t want = i < 3 ? path[i] ^ crc_bits(hop_polys[i], key, 4) : 0;
		uint32_t got = (uint32_t)chunk[4 * i] << 24 |
			       (uint32_t)chunk[4 * i + 1] << 16 |
			       (uint32_t)chunk[4 * i + 2] << 8 | chunk[4 * i + 3];

		assert_int_equal(got, want);
	}
	assert_int_equal(dta_memops_apply(area, l.data_size, &op, 1), 1);

	/* The descriptor survives a region header round trip. */
	assert_int_equal(dta_layout_encode(&l, wire, sizeof(wire)),
			 DTA_LAYOUT_WIRE_SIZE);
	assert_int_equal(dta_layout_decode(wire, sizeof(wire), &dec), 0);
	assert_int_equal(dec.hash_family, DTA_HASH_PROTOTYPE);

	assert_int_equal(dta_pc_codebook_create(&dec, known, 6, &cb), 0);
	assert_int_equal(dta_pc_query(&dec, area, cb, key, 4, 1, &res), 0);
	assert_int_equal(res.status, DTA_Q_FOUND);
	assert_int_equal(res.path_len, 3);
	assert_memory_equal(res.values, path, sizeof(path));
	/* A flow never written reads as all-blank: not a path. */
	{
		static const uint8_t other[4] = { 1, 2, 3, 4 };

		assert_int_equal(dta_pc_query(&dec, area, cb, other, 4, 1, &res), 0);
		assert_int_not_equal(res.status, DTA_Q_FOUND);
	}
	dta_pc_codebook_destroy(cb);
	free(area);
}

static void test_geometry_limits(void **state)
{
	struct dta_layout l;

	(void)state;
	/* Only the prototype's geometries. */
	assert_int_equal(dta_layout_kw(&l, 1000, 4, 4, 2, DTA_HASH_PROTOTYPE, 0),
			 -EINVAL); /* not a power of two */
	assert_int_equal(dta_layout_kw(&l, 1024, 4, 2, 2, DTA_HASH_PROTOTYPE, 0),
			 -EINVAL); /* 16-bit checksum */
	assert_int_equal(dta_layout_kw(&l, 1ull << 32, 4, 4, 2,
				       DTA_HASH_PROTOTYPE, 0), -EINVAL);
	assert_int_equal(dta_layout_kw(&l, 1024, 12, 4, 2, DTA_HASH_PROTOTYPE, 0),
			 0); /* its 16-byte slot build */
	assert_int_equal(dta_layout_pc(&l, 1024, 6, 4, 1, DTA_HASH_PROTOTYPE, 0),
			 -EINVAL);
	assert_int_equal(dta_layout_pc(&l, 1024, 5, 4, 2, DTA_HASH_PROTOTYPE, 0),
			 -EINVAL);
	assert_int_equal(dta_layout_pc(&l, 1024, 5, 2, 1, DTA_HASH_PROTOTYPE, 0),
			 -EINVAL);
	assert_int_equal(dta_layout_ki(&l, 1024, 2, 1, DTA_HASH_PROTOTYPE, 0),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_kw_bytes),
		cmocka_unit_test(test_kw_query_prototype_memory),
		cmocka_unit_test(test_pc_bytes_and_query),
		cmocka_unit_test(test_geometry_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
