/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire format: hand-written packets, legacy variants, every error path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "dta/wire.h"

/* Key-Write, N=2, IPv4 5-tuple key 10.0.0.1 -> 10.0.0.2 :8080 -> :80 TCP,
 * 4-byte data, reporter 7, seq 0x01020304, immediate flag. */
static const uint8_t kw_v1[] = {
	0xD1, 0x01, 0x01, 0x00, 0x00, 0x15, 0x00, 0x07, 0x01, 0x02, 0x03, 0x04,
	0x02, 0x0D, 0x00, 0x04,
	10, 0, 0, 1, 10, 0, 0, 2, 0x1F, 0x90, 0x00, 0x50, 6,
	0xDE, 0xAD, 0xBE, 0xEF,
};

static const uint8_t pc_v1[] = {
	0xD1, 0x04, 0x00, 0x00, 0x00, 0x0C, 0x00, 0x01, 0x00, 0x00, 0x00, 0x09,
	0x02, 0x05, 0x04, 0x00, 0x00, 0x00, 0x0B, 0xB8, 'f', 'l', 'o', 'w',
};

static const uint8_t ap_v1[] = {
	0xD1, 0x02, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x02, 0xFF, 0xFF, 0xFF, 0xFF,
	0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0xAB, 0xCD,
};

static const uint8_t ki_v1[] = {
	0xD1, 0x03, 0x02, 0x00, 0x00, 0x0E, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x03, 0x02, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 'a', 'b',
};

static void test_v1_fields(void **state)
{
	struct dta_report r[4];
	uint8_t buf[64];

	(void)state;
	assert_int_equal(dta_wire_decode(kw_v1, sizeof(kw_v1), r, 4, 0), 1);
	assert_int_equal(r[0].format, DTA_FORMAT_V1);
	assert_int_equal(r[0].opcode, DTA_OP_KEY_WRITE);
	assert_int_equal(r[0].flags, DTA_FLAG_IMMEDIATE);
	assert_int_equal(r[0].reporter, 7);
	assert_int_equal(r[0].seq, 0x01020304);
	assert_int_equal(r[0].u.kw.redundancy, 2);
	assert_int_equal(r[0].u.kw.key_len, 13);
	assert_int_equal(r[0].u.kw.data_len, 4);
	assert_ptr_equal(r[0].u.kw.key, kw_v1 + 16);
	assert_memory_equal(r[0].u.kw.data, "\xDE\xAD\xBE\xEF", 4);
	assert_int_equal(dta_wire_encode(&r[0], buf, sizeof(buf)), sizeof(kw_v1));
	assert_memory_equal(buf, kw_v1, sizeof(kw_v1));

	assert_int_equal(dta_wire_decode(pc_v1, sizeof(pc_v1), r, 4, 0), 1);
	assert_int_equal(r[0].u.pc.hop, 2);
	assert_int_equal(r[0].u.pc.path_len, 5);
	assert_int_equal(r[0].u.pc.value, 3000);
	assert_int_equal(r[0].u.pc.key_len, 4);
	assert_int_equal(dta_wire_encode(&r[0], buf, sizeof(buf)), sizeof(pc_v1));
	assert_memory_equal(buf, pc_v1, sizeof(pc_v1));

	assert_int_equal(dta_wire_decode(ap_v1, sizeof(ap_v1), r, 4, 0), 1);
	assert_int_equal(r[0].u.ap.list_id, 3);
	assert_int_equal(r[0].u.ap.data_len, 2);
	assert_int_equal(r[0].seq, 0xFFFFFFFFu);

	assert_int_equal(dta_wire_decode(ki_v1, sizeof(ki_v1), r, 4, 0), 1);
	assert_int_equal(r[0].u.ki.counter, 256);
	assert_int_equal(r[0].flags, DTA_FLAG_ACK_REQUEST);
	assert_int_equal(dta_wire_encode(&r[0], buf, sizeof(buf)), sizeof(ki_v1));
	assert_memory_equal(buf, ki_v1, sizeof(ki_v1));
}

static void test_multi_report(void **state)
{
	uint8_t pkt[sizeof(kw_v1) + sizeof(pc_v1) + sizeof(ap_v1)];
	struct dta_report r[3];

	(void)state;
	memcpy(pkt, kw_v1, sizeof(kw_v1));
	memcpy(pkt + sizeof(kw_v1), pc_v1, sizeof(pc_v1));
	memcpy(pkt + sizeof(kw_v1) + sizeof(pc_v1), ap_v1, sizeof(ap_v1));
	assert_int_equal(dta_wire_decode(pkt, sizeof(pkt), r, 3, 0), 3);
	assert_int_equal(r[0].opcode, DTA_OP_KEY_WRITE);
	assert_int_equal(r[1].opcode, DTA_OP_POSTCARD);
	assert_int_equal(r[2].opcode, DTA_OP_APPEND);
	assert_int_equal(dta_wire_decode(pkt, sizeof(pkt), r, 2, 0), -ENOSPC);
	/* Every truncation of a valid packet is an error, never a report. */
	for (size_t len = 0; len < sizeof(pkt); len++)
		if (len != sizeof(kw_v1) && len != sizeof(kw_v1) + sizeof(pc_v1))
			assert_true(dta_wire_decode(pkt, len, r, 3, 0) < 0);
}

static void test_legacy(void **state)
{
	static const uint8_t kw[] = { 0x01, 0x80, 0x02, 0, 0, 0, 7, 0, 0, 0, 42 };
	static const uint8_t kw_nack[] = { 0x01, 0x09, 0xC0, 0x03, 0, 0, 0, 7,
					   0, 0, 0, 42 };
	static const uint8_t pc[] = { 0x04, 0x00, 0, 0, 0, 5, 3, 0, 0, 0x0B, 0xB8 };
	static const uint8_t ki[] = { 0x03, 0x00, 0x02, 0, 0, 0, 1,
				      0, 0, 0, 0, 0, 0, 0, 9 };
	struct dta_report r;
	uint8_t buf[32];

	(void)state;
	assert_int_equal(dta_wire_decode(kw, sizeof(kw), &r, 1, 0), 1);
	assert_int_equal(r.format, DTA_FORMAT_LEGACY);
	assert_int_equal(r.flags, DTA_FLAG_IMMEDIATE);
	assert_false(r.has_seq);
	assert_int_equal(r.u.kw.redundancy, 2);
	assert_memory_equal(r.u.kw.key, "\0\0\0\7", 4);
	assert_memory_equal(r.u.kw.data, "\0\0\0\52", 4);
	assert_int_equal(dta_wire_encode(&r, buf, sizeof(buf)), sizeof(kw));
	assert_memory_equal(buf, kw, sizeof(kw));

	assert_int_equal(dta_wire_decode(kw_nack, sizeof(kw_nack), &r, 1, 0), 1);
	assert_int_equal(r.format, DTA_FORMAT_LEGACY_NACK);
	assert_true(r.has_seq);
	assert_int_equal(r.seq, 9);
	assert_int_equal(r.flags, DTA_FLAG_IMMEDIATE | DTA_FLAG_RETRANSMIT);
	assert_int_equal(dta_wire_encode(&r, buf, sizeof(buf)), sizeof(kw_nack));
	assert_memory_equal(buf, kw_nack, sizeof(kw_nack));

	assert_int_equal(dta_wire_decode(pc, sizeof(pc), &r, 1, 0), 1);
	assert_int_equal(r.u.pc.hop, 2); /* legacy hop 3 is the third hop */
	assert_int_equal(dta_wire_encode(&r, buf, sizeof(buf)), sizeof(pc));
	assert_memory_equal(buf, pc, sizeof(pc));
	assert_int_equal(r.u.pc.value, 3000);
	assert_int_equal(r.u.pc.path_len, 0);
	{
		uint8_t pc0[sizeof(pc)];

		memcpy(pc0, pc, sizeof(pc));
		pc0[6] = 0; /* hop 0 does not exist in the legacy numbering */
		assert_int_equal(dta_wire_decode(pc0, sizeof(pc0), &r, 1, 0),
				 -DTA_E_MALFORMED);
	}
	assert_int_equal(dta_wire_decode(ki, sizeof(ki), &r, 1, 0), 1);
	assert_int_equal(r.u.ki.counter, 9);

	/* Length fits neither variant; forced variants; rejected legacy. */
	assert_int_equal(dta_wire_decode(kw, sizeof(kw) - 1, &r, 1, 0),
			 -DTA_E_TRUNCATED);
	assert_int_equal(dta_wire_decode(kw_nack, sizeof(kw_nack), &r, 1,
					 DTA_DECODE_LEGACY_PLAIN), -DTA_E_MALFORMED);
	uint8_t longer[14] = { 0x01 };
	longer[3] = 1;
	assert_int_equal(dta_wire_decode(longer, sizeof(longer), &r, 1, 0),
			 -DTA_E_AMBIGUOUS);
	assert_int_equal(dta_wire_decode(kw, sizeof(kw), &r, 1,
					 DTA_DECODE_NO_LEGACY), -DTA_E_VERSION);
	uint8_t bad_n[sizeof(kw)];
	memcpy(bad_n, kw, sizeof(kw));
	bad_n[2] = 0;
	assert_int_equal(dta_wire_decode(bad_n, sizeof(bad_n), &r, 1, 0),
			 -DTA_E_MALFORMED);
	bad_n[2] = 9;
	assert_int_equal(dta_wire_decode(bad_n, sizeof(bad_n), &r, 1, 0),
			 -DTA_E_MALFORMED);
}

static void test_v1_errors(void **state)
{
	uint8_t p[sizeof(kw_v1) + 4];
	struct dta_report r;

	(void)state;
#define MUTATE(off, val, err)                                           \
	do {                                                            \
		memcpy(p, kw_v1, sizeof(kw_v1));                        \
		p[off] = (val);                                         \
		assert_int_equal(dta_wire_decode(p, sizeof(kw_v1), &r, 1, 0), \
				 (err));                                \
	} while (0)
	MUTATE(0, 0xD2, -DTA_E_VERSION);
	MUTATE(0, 0x42, -DTA_E_VERSION);
	MUTATE(1, 0x05, -DTA_E_OPCODE);
	MUTATE(2, 0x04, -DTA_E_MALFORMED); /* undefined flag */
	MUTATE(3, 0x01, -DTA_E_MALFORMED); /* reserved */
	MUTATE(12, 0, -DTA_E_MALFORMED);   /* N = 0 */
	MUTATE(12, 9, -DTA_E_MALFORMED);   /* N = 9 */
	MUTATE(13, 0, -DTA_E_MALFORMED);   /* key_len 0 */
	MUTATE(13, 65, -DTA_E_MALFORMED);  /* key_len > 64 */
	MUTATE(5, 0x16, -DTA_E_TRUNCATED); /* length past the payload */
	MUTATE(5, 0x14, -DTA_E_TRUNCATED); /* body shorter than it declares */
	/* Trailing garbage after a valid report. */
	memcpy(p, kw_v1, sizeof(kw_v1));
	memset(p + sizeof(kw_v1), 0xD1, 4);
	assert_int_equal(dta_wire_decode(p, sizeof(p), &r, 1, 0), -DTA_E_TRUNCATED);
	/* Postcarding hop >= path length. */
	memcpy(p, pc_v1, sizeof(pc_v1));
	p[12] = 5;
	assert_int_equal(dta_wire_decode(p, sizeof(pc_v1), &r, 1, 0),
			 -DTA_E_MALFORMED);
	assert_int_equal(dta_wire_decode(NULL, 0, &r, 1, 0), -DTA_E_TRUNCATED);
	assert_int_equal(dta_wire_decode(kw_v1, sizeof(kw_v1), &r, 0, 0), -EINVAL);
}

static void test_encode_errors(void **state)
{
	struct dta_report r = { .format = DTA_FORMAT_LEGACY,
				.opcode = DTA_OP_KEY_WRITE };
	uint8_t buf[64];

	(void)state;
	r.u.kw.redundancy = 1;
	r.u.kw.key_len = 13;
	r.u.kw.key = buf;
	r.u.kw.data_len = 4;
	r.u.kw.data = buf;
	assert_int_equal(dta_wire_encode(&r, buf, sizeof(buf)), -DTA_E_MALFORMED);
	r.format = DTA_FORMAT_V1;
	assert_int_equal(dta_wire_encode(&r, buf, 10), -ENOSPC);
	r.opcode = 7;
	assert_int_equal(dta_wire_encode(&r, buf, sizeof(buf)), -DTA_E_OPCODE);
	assert_string_equal(dta_opcode_name(DTA_OP_POSTCARD), "postcard");
	assert_null(dta_opcode_name(9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_fields),
		cmocka_unit_test(test_multi_report),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_v1_errors),
		cmocka_unit_test(test_encode_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
