/* SPDX-License-Identifier: BSD-3-Clause */
/* DTA report encoding and decoding, v1 and legacy (docs/wire-format.md). */
#include <errno.h>
#include <string.h>

#include "dta/hash.h"
#include "dta/wire.h"
#include "internal.h"

static const char *const op_names[] = {
	[DTA_OP_KEY_WRITE] = "key-write",
	[DTA_OP_APPEND] = "append",
	[DTA_OP_KEY_INCREMENT] = "key-increment",
	[DTA_OP_POSTCARD] = "postcard",
};

DTA_API const char *dta_opcode_name(int opcode)
{
	if (opcode < DTA_OP_KEY_WRITE || opcode > DTA_OP_POSTCARD)
		return NULL;
	return op_names[opcode];
}

static int red_ok(unsigned n)
{
	return n >= 1 && n <= DTA_MAX_REDUNDANCY;
}

/* Body of one v1 report; @len is exactly the declared body length. */
static int v1_body(const uint8_t *b, size_t len, struct dta_report *r)
{
	switch (r->opcode) {
	case DTA_OP_KEY_WRITE:
		if (len < 4)
			return -DTA_E_TRUNCATED;
		r->u.kw.redundancy = b[0];
		r->u.kw.key_len = b[1];
		r->u.kw.data_len = dta__be16(b + 2);
		if (!red_ok(b[0]) || b[1] == 0 || b[1] > DTA_KEY_MAX ||
		    r->u.kw.data_len == 0 || r->u.kw.data_len > DTA_DATA_MAX)
			return -DTA_E_MALFORMED;
		if (len != 4u + b[1] + r->u.kw.data_len)
			return len < 4u + b[1] + r->u.kw.data_len ? -DTA_E_TRUNCATED
								  : -DTA_E_MALFORMED;
		r->u.kw.key = b + 4;
		r->u.kw.data = b + 4 + b[1];
		return 0;
	case DTA_OP_POSTCARD:
		if (len < 8)
			return -DTA_E_TRUNCATED;
		r->u.pc.hop = b[0];
		r->u.pc.path_len = b[1];
		r->u.pc.key_len = b[2];
		r->u.pc.value = dta__be32(b + 4);
		if (b[3] || b[0] >= DTA_MAX_HOPS || b[1] > DTA_MAX_HOPS ||
		    (b[1] && b[0] >= b[1]) || b[2] == 0 || b[2] > DTA_KEY_MAX)
			return -DTA_E_MALFORMED;
		if (len != 8u + b[2])
			return len < 8u + b[2] ? -DTA_E_TRUNCATED : -DTA_E_MALFORMED;
		r->u.pc.key = b + 8;
		return 0;
	case DTA_OP_APPEND:
		if (len < 8)
			return -DTA_E_TRUNCATED;
		r->u.ap.list_id = dta__be32(b);
		r->u.ap.data_len = dta__be16(b + 4);
		if (dta__be16(b + 6) || r->u.ap.data_len == 0 ||
		    r->u.ap.data_len > DTA_DATA_MAX)
			return -DTA_E_MALFORMED;
		if (len != 8u + r->u.ap.data_len)
			return len < 8u + r->u.ap.data_len ? -DTA_E_TRUNCATED
							   : -DTA_E_MALFORMED;
		r->u.ap.data = b + 8;
		return 0;
	case DTA_OP_KEY_INCREMENT:
		if (len < 12)
			return -DTA_E_TRUNCATED;
		r->u.ki.redundancy = b[0];
		r->u.ki.key_len = b[1];
		r->u.ki.counter = dta__be64(b + 4);
		if (!red_ok(b[0]) || b[1] == 0 || b[1] > DTA_KEY_MAX ||
		    dta__be16(b + 2))
			return -DTA_E_MALFORMED;
		if (len != 12u + b[1])
			return len < 12u + b[1] ? -DTA_E_TRUNCATED : -DTA_E_MALFORMED;
		r->u.ki.key = b + 12;
		return 0;
	default:
		return -DTA_E_OPCODE;
	}
}

static const uint8_t legacy_sub[] = {
	[DTA_OP_KEY_WRITE] = 9, [DTA_OP_APPEND] = 8,
	[DTA_OP_KEY_INCREMENT] = 13, [DTA_OP_POSTCARD] = 9,
};

static int decode_legacy(const uint8_t *p, size_t len, struct dta_report *r,
			 unsigned flags)
{
	unsigned op = p[0], sub = legacy_sub[op], hdr;
	const uint8_t *b;

	if (flags & DTA_DECODE_LEGACY_PLAIN)
		hdr = 2;
	else if (flags & DTA_DECODE_LEGACY_NACK)
		hdr = 3;
	else if (len == 2 + sub)
		hdr = 2;
	else if (len == 3 + sub)
		hdr = 3;
	else
		return len < 2 + sub ? -DTA_E_TRUNCATED : -DTA_E_AMBIGUOUS;
	if (len < hdr + sub)
		return -DTA_E_TRUNCATED;
	if (len > hdr + sub)
		return -DTA_E_MALFORMED;
	memset(r, 0, sizeof(*r));
	r->opcode = (uint8_t)op;
	if (hdr == 2) {
		r->format = DTA_FORMAT_LEGACY;
		r->flags = (p[1] & 0x80) ? DTA_FLAG_IMMEDIATE : 0;
	} else {
		r->format = DTA_FORMAT_LEGACY_NACK;
		r->has_seq = true;
		r->seq = p[1];
		r->flags = (uint8_t)(((p[2] & 0x80) ? DTA_FLAG_IMMEDIATE : 0) |
				     ((p[2] & 0x40) ? DTA_FLAG_RETRANSMIT : 0));
	}
	b = p + hdr;
	switch (op) {
	case DTA_OP_KEY_WRITE:
		if (!red_ok(b[0]))
			return -DTA_E_MALFORMED;
		r->u.kw.redundancy = b[0];
		r->u.kw.key_len = 4;
		r->u.kw.key = b + 1;
		r->u.kw.data_len = 4;
		r->u.kw.data = b + 5;
		break;
	case DTA_OP_KEY_INCREMENT:
		if (!red_ok(b[0]))
			return -DTA_E_MALFORMED;
		r->u.ki.redundancy = b[0];
		r->u.ki.key_len = 4;
		r->u.ki.key = b + 1;
		r->u.ki.counter = dta__be64(b + 5);
		break;
	case DTA_OP_APPEND:
		r->u.ap.list_id = dta__be32(b);
		r->u.ap.data_len = 4;
		r->u.ap.data = b + 4;
		break;
	default: /* DTA_OP_POSTCARD */
		/* The prototype numbers hops from 1; v1 and our layouts from 0. */
		if (b[4] == 0 || b[4] > DTA_MAX_HOPS)
			return -DTA_E_MALFORMED;
		r->u.pc.key_len = 4;
		r->u.pc.key = b;
		r->u.pc.hop = (uint8_t)(b[4] - 1);
		r->u.pc.value = dta__be32(b + 5);
		break;
	}
	return 1;
}

DTA_API int dta_wire_decode(const void *buf, size_t len,
			    struct dta_report *reports, size_t max,
			    unsigned flags)
{
	const uint8_t *p = buf;
	size_t off = 0, n = 0;

	if ((!buf && len) || !reports || max == 0)
		return -EINVAL;
	if (len == 0)
		return -DTA_E_TRUNCATED;
	if ((p[0] & 0xF0) != 0xD0) {
		if (p[0] < DTA_OP_KEY_WRITE || p[0] > DTA_OP_POSTCARD ||
		    (flags & DTA_DECODE_NO_LEGACY))
			return -DTA_E_VERSION;
		return decode_legacy(p, len, &reports[0], flags);
	}
	while (off < len) {
		const uint8_t *h = p + off;
		struct dta_report *r;
		size_t body;
		int err;

		if (len - off < sizeof(struct dta_wire_base))
			return -DTA_E_TRUNCATED;
		if (h[0] != DTA_WIRE_V1_MAGIC)
			return -DTA_E_VERSION;
		if (h[1] < DTA_OP_KEY_WRITE || h[1] > DTA_OP_POSTCARD)
			return -DTA_E_OPCODE;
		if ((h[2] & ~DTA_FLAGS_V1_VALID) || h[3])
			return -DTA_E_MALFORMED;
		body = dta__be16(h + 4);
		if (body > len - off - sizeof(struct dta_wire_base))
			return -DTA_E_TRUNCATED;
		if (n == max)
			return -ENOSPC;
		r = &reports[n];
		memset(r, 0, sizeof(*r));
		r->format = DTA_FORMAT_V1;
		r->opcode = h[1];
		r->flags = h[2];
		r->reporter = dta__be16(h + 6);
		r->seq = dta__be32(h + 8);
		r->has_seq = true;
		err = v1_body(h + sizeof(struct dta_wire_base), body, r);
		if (err)
			return err;
		n++;
		off += sizeof(struct dta_wire_base) + body;
	}
	return (int)n;
}

DTA_API int dta_wire_encoded_size(const struct dta_report *r)
{
	if (!r)
		return -EINVAL;
	if (r->opcode < DTA_OP_KEY_WRITE || r->opcode > DTA_OP_POSTCARD)
		return -DTA_E_OPCODE;
	if (r->format == DTA_FORMAT_LEGACY || r->format == DTA_FORMAT_LEGACY_NACK)
		return (r->format == DTA_FORMAT_LEGACY ? 2 : 3) +
		       legacy_sub[r->opcode];
	if (r->format != DTA_FORMAT_V1)
		return -DTA_E_MALFORMED;
	switch (r->opcode) {
	case DTA_OP_KEY_WRITE:
		return 12 + 4 + r->u.kw.key_len + r->u.kw.data_len;
	case DTA_OP_POSTCARD:
		return 12 + 8 + r->u.pc.key_len;
	case DTA_OP_APPEND:
		return 12 + 8 + r->u.ap.data_len;
	default:
		return 12 + 12 + r->u.ki.key_len;
	}
}

static int encode_check(const struct dta_report *r)
{
	int legacy = r->format != DTA_FORMAT_V1;

	if (!legacy && (r->flags & ~DTA_FLAGS_V1_VALID))
		return -DTA_E_MALFORMED;
	switch (r->opcode) {
	case DTA_OP_KEY_WRITE:
		if (!red_ok(r->u.kw.redundancy) || !r->u.kw.key || !r->u.kw.data ||
		    r->u.kw.key_len == 0 || r->u.kw.key_len > DTA_KEY_MAX ||
		    r->u.kw.data_len == 0 || r->u.kw.data_len > DTA_DATA_MAX ||
		    (legacy && (r->u.kw.key_len != 4 || r->u.kw.data_len != 4)))
			return -DTA_E_MALFORMED;
		return 0;
	case DTA_OP_POSTCARD:
		if (!r->u.pc.key || r->u.pc.key_len == 0 ||
		    r->u.pc.key_len > DTA_KEY_MAX || r->u.pc.hop >= DTA_MAX_HOPS ||
		    r->u.pc.path_len > DTA_MAX_HOPS ||
		    (r->u.pc.path_len && r->u.pc.hop >= r->u.pc.path_len) ||
		    (legacy && r->u.pc.key_len != 4))
			return -DTA_E_MALFORMED;
		return 0;
	case DTA_OP_APPEND:
		if (!r->u.ap.data || r->u.ap.data_len == 0 ||
		    r->u.ap.data_len > DTA_DATA_MAX ||
		    (legacy && r->u.ap.data_len != 4))
			return -DTA_E_MALFORMED;
		return 0;
	default:
		if (!red_ok(r->u.ki.redundancy) || !r->u.ki.key ||
		    r->u.ki.key_len == 0 || r->u.ki.key_len > DTA_KEY_MAX ||
		    (legacy && r->u.ki.key_len != 4))
			return -DTA_E_MALFORMED;
		return 0;
	}
}

DTA_API int dta_wire_encode(const struct dta_report *r, void *buf, size_t cap)
{
	uint8_t *p = buf, *b;
	int size, err;

	if (!r || !buf)
		return -EINVAL;
	size = dta_wire_encoded_size(r);
	if (size < 0)
		return size;
	err = encode_check(r);
	if (err)
		return err;
	if ((size_t)size > cap)
		return -ENOSPC;
	if (r->format == DTA_FORMAT_V1) {
		p[0] = DTA_WIRE_V1_MAGIC;
		p[1] = r->opcode;
		p[2] = r->flags;
		p[3] = 0;
		dta__put_be16(p + 4, (uint16_t)(size - 12));
		dta__put_be16(p + 6, r->reporter);
		dta__put_be32(p + 8, r->seq);
		b = p + 12;
		switch (r->opcode) {
		case DTA_OP_KEY_WRITE:
			b[0] = r->u.kw.redundancy;
			b[1] = r->u.kw.key_len;
			dta__put_be16(b + 2, r->u.kw.data_len);
			memcpy(b + 4, r->u.kw.key, r->u.kw.key_len);
			memcpy(b + 4 + r->u.kw.key_len, r->u.kw.data, r->u.kw.data_len);
			break;
		case DTA_OP_POSTCARD:
			b[0] = r->u.pc.hop;
			b[1] = r->u.pc.path_len;
			b[2] = r->u.pc.key_len;
			b[3] = 0;
			dta__put_be32(b + 4, r->u.pc.value);
			memcpy(b + 8, r->u.pc.key, r->u.pc.key_len);
			break;
		case DTA_OP_APPEND:
			dta__put_be32(b, r->u.ap.list_id);
			dta__put_be16(b + 4, r->u.ap.data_len);
			dta__put_be16(b + 6, 0);
			memcpy(b + 8, r->u.ap.data, r->u.ap.data_len);
			break;
		default:
			b[0] = r->u.ki.redundancy;
			b[1] = r->u.ki.key_len;
			dta__put_be16(b + 2, 0);
			dta__put_be64(b + 4, r->u.ki.counter);
			memcpy(b + 12, r->u.ki.key, r->u.ki.key_len);
			break;
		}
		return size;
	}
	p[0] = r->opcode;
	if (r->format == DTA_FORMAT_LEGACY) {
		p[1] = (r->flags & DTA_FLAG_IMMEDIATE) ? 0x80 : 0;
		b = p + 2;
	} else {
		p[1] = (uint8_t)r->seq;
		p[2] = (uint8_t)(((r->flags & DTA_FLAG_IMMEDIATE) ? 0x80 : 0) |
				 ((r->flags & DTA_FLAG_RETRANSMIT) ? 0x40 : 0));
		b = p + 3;
	}
	switch (r->opcode) {
	case DTA_OP_KEY_WRITE:
		b[0] = r->u.kw.redundancy;
		memcpy(b + 1, r->u.kw.key, 4);
		memcpy(b + 5, r->u.kw.data, 4);
		break;
	case DTA_OP_KEY_INCREMENT:
		b[0] = r->u.ki.redundancy;
		memcpy(b + 1, r->u.ki.key, 4);
		dta__put_be64(b + 5, r->u.ki.counter);
		break;
	case DTA_OP_APPEND:
		dta__put_be32(b, r->u.ap.list_id);
		memcpy(b + 4, r->u.ap.data, 4);
		break;
	default:
		memcpy(b, r->u.pc.key, 4);
		b[4] = (uint8_t)(r->u.pc.hop + 1); /* 1-based on the legacy wire */
		dta__put_be32(b + 5, r->u.pc.value);
		break;
	}
	return size;
}
