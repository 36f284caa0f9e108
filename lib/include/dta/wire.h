/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DTA report wire format (UDP payload), version 1 and legacy.
 * The normative description is docs/wire-format.md.
 *
 * A v1 UDP payload is a sequence of one or more reports; each report is a
 * 12-byte base header followed by its body (primitive sub-header, key,
 * data). All multi-byte fields are big-endian.
 *
 * A legacy payload (the research prototype's reporter) holds exactly one
 * report: a 2-byte base header (or 3 bytes in its NACK build) and a fixed
 * sub-header with 4-byte keys and data. The first byte tells the two apart:
 * legacy payloads start with an opcode 0x01..0x04, v1 payloads with 0xD1.
 */
#ifndef DTA_WIRE_H
#define DTA_WIRE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_UDP_PORT 40040

/* First byte of every v1 report: high nibble 0xD marks v1+, low = version. */
#define DTA_WIRE_VERSION 1
#define DTA_WIRE_V1_MAGIC 0xD1

/* Primitive opcodes, shared by v1 and legacy. */
enum dta_opcode {
	DTA_OP_KEY_WRITE = 0x01,
	DTA_OP_APPEND = 0x02,
	DTA_OP_KEY_INCREMENT = 0x03,
	DTA_OP_POSTCARD = 0x04,
};

/* Base header flags. Bits not defined here must be zero. */
#define DTA_FLAG_IMMEDIATE 0x01   /* notify the collector (RDMA immediate) */
#define DTA_FLAG_ACK_REQUEST 0x02 /* reporter wants an acknowledgement */
#define DTA_FLAG_RETRANSMIT 0x04  /* legacy NACK build: retransmittable */
#define DTA_FLAGS_V1_VALID (DTA_FLAG_IMMEDIATE | DTA_FLAG_ACK_REQUEST)

/* Limits a v1 report may carry. */
#define DTA_KEY_MAX 64    /* bytes: IPv6 5-tuple (37 B) and more fit */
#define DTA_DATA_MAX 1024 /* bytes of Key-Write / Append data */
#define DTA_PAYLOAD_MAX 9000
/* The shortest v1 report: base header, Key-Write sub-header, a 1-byte key
 * and 1 byte of data (12 + 4 + 1 + 1). */
#define DTA_WIRE_REPORT_MIN 18
/* Reports a payload of DTA_PAYLOAD_MAX bytes can hold (500). */
#define DTA_WIRE_REPORTS_MAX (DTA_PAYLOAD_MAX / DTA_WIRE_REPORT_MIN)

/* ---- v1 wire structs (big-endian; see docs/wire-format.md) ---- */

struct dta_wire_base {
	uint8_t version;  /* DTA_WIRE_V1_MAGIC */
	uint8_t opcode;   /* enum dta_opcode */
	uint8_t flags;    /* DTA_FLAG_* */
	uint8_t reserved; /* zero */
	uint16_t length;  /* bytes of body following this header */
	uint16_t reporter; /* reporter id, scope of @seq */
	uint32_t seq;     /* per-reporter report sequence number */
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_base) == 12, "v1 base header size");

struct dta_wire_kw {
	uint8_t redundancy; /* N, 1..DTA_MAX_REDUNDANCY */
	uint8_t key_len;    /* 1..DTA_KEY_MAX */
	uint16_t data_len;  /* 1..DTA_DATA_MAX */
	/* key[key_len], data[data_len] */
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_kw) == 4, "v1 Key-Write sub-header");

struct dta_wire_pc {
	uint8_t hop;      /* 0-based hop index, < path_len when path_len != 0 */
	uint8_t path_len; /* hops on this flow's path, 0 = unknown */
	uint8_t key_len;  /* 1..DTA_KEY_MAX */
	uint8_t reserved; /* zero */
	uint32_t value;   /* the hop's 4-byte value (e.g. switch id) */
	/* key[key_len] */
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_pc) == 8, "v1 Postcarding sub-header");

struct dta_wire_ap {
	uint32_t list_id;
	uint16_t data_len; /* 1..DTA_DATA_MAX */
	uint16_t reserved; /* zero */
	/* data[data_len] */
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_ap) == 8, "v1 Append sub-header");

struct dta_wire_ki {
	uint8_t redundancy; /* N, 1..DTA_MAX_REDUNDANCY */
	uint8_t key_len;    /* 1..DTA_KEY_MAX */
	uint16_t reserved;  /* zero */
	uint64_t counter;   /* increment */
	/* key[key_len] */
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_ki) == 12, "v1 Key-Increment sub-header");

/* ---- legacy (research prototype) wire structs ---- */

struct dta_wire_legacy_base {
	uint8_t opcode;
	uint8_t flags; /* immediate(1) reserved(7), MSB first */
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_legacy_base) == 2, "legacy base header");

struct dta_wire_legacy_nack_base {
	uint8_t opcode;
	uint8_t seq;
	uint8_t flags; /* immediate(1) retransmittable(1) reserved(6) */
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_legacy_nack_base) == 3,
	      "legacy NACK base header");

struct dta_wire_legacy_kw {
	uint8_t redundancy;
	uint32_t key;
	uint32_t data;
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_legacy_kw) == 9, "legacy Key-Write");

struct dta_wire_legacy_ki {
	uint8_t redundancy;
	uint32_t key;
	uint64_t counter;
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_legacy_ki) == 13, "legacy Key-Increment");

struct dta_wire_legacy_ap {
	uint32_t list_id;
	uint32_t data;
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_legacy_ap) == 8, "legacy Append");

struct dta_wire_legacy_pc {
	uint32_t key;
	uint8_t hop;
	uint32_t data;
} __attribute__((packed));
static_assert(sizeof(struct dta_wire_legacy_pc) == 9, "legacy Postcarding");

/* ---- decoded form ---- */

enum dta_wire_format {
	DTA_FORMAT_V1 = 1,
	DTA_FORMAT_LEGACY = 2,      /* 2-byte base header */
	DTA_FORMAT_LEGACY_NACK = 3, /* 3-byte base header with sequence */
};

/**
 * struct dta_report - one decoded report.
 *
 * Pointers (@key, @data) point into the buffer given to the decoder and are
 * valid as long as it is. Host byte order everywhere.
 *
 * For legacy reports @key/@data point at the 4-byte big-endian fields of the
 * packet, @reporter is 0, and @seq is the 8-bit sequence of the NACK build
 * (@has_seq false for the plain build).
 */
struct dta_report {
	uint8_t format; /* enum dta_wire_format */
	uint8_t opcode; /* enum dta_opcode */
	uint8_t flags;  /* DTA_FLAG_* */
	bool has_seq;
	uint16_t reporter;
	uint32_t seq;
	union {
		struct {
			uint8_t redundancy;
			uint8_t key_len;
			uint16_t data_len;
			const uint8_t *key;
			const uint8_t *data;
		} kw;
		struct {
			uint8_t hop;
			uint8_t path_len; /* 0: unknown (always so for legacy) */
			uint8_t key_len;
			uint32_t value;
			const uint8_t *key;
		} pc;
		struct {
			uint32_t list_id;
			uint16_t data_len;
			const uint8_t *data;
		} ap;
		struct {
			uint8_t redundancy;
			uint8_t key_len;
			uint64_t counter;
			const uint8_t *key;
		} ki;
	} u;
};

/* Decoder options (flags for dta_wire_decode()). */
#define DTA_DECODE_NO_LEGACY 0x1    /* reject legacy payloads */
#define DTA_DECODE_LEGACY_PLAIN 0x2 /* legacy: only the 2-byte header */
#define DTA_DECODE_LEGACY_NACK 0x4  /* legacy: only the 3-byte header */

/**
 * dta_wire_decode() - decode and validate a whole UDP payload.
 * @buf:     payload bytes.
 * @len:     payload length.
 * @reports: array receiving the reports, in order.
 * @max:     capacity of @reports.
 * @flags:   DTA_DECODE_*.
 *
 * All-or-nothing: every report in the payload is validated before the
 * function returns success; on any error the contents of @reports are
 * unspecified and the caller must apply none of them.
 *
 * Legacy payloads: by default the variant is chosen by exact length (a
 * payload is legacy-plain if its length equals 2 + sub-header, NACK if it
 * equals 3 + sub-header); DTA_DECODE_LEGACY_PLAIN / _NACK force one.
 *
 * Return: number of reports (>= 1), or
 *  -EINVAL            NULL @buf/@reports with nonzero sizes, or @max == 0;
 *  -DTA_E_TRUNCATED   payload shorter than a header or than a declared length
 *                     (also for an empty payload);
 *  -DTA_E_MALFORMED   bad field value (zero/oversized length, reserved bits
 *                     set, redundancy 0 or > DTA_MAX_REDUNDANCY, hop >=
 *                     path_len, trailing bytes too short for a report);
 *  -DTA_E_VERSION     v1-style magic nibble with an unsupported version, or
 *                     a first byte that is neither v1 nor a legacy opcode;
 *  -DTA_E_OPCODE      unknown opcode;
 *  -DTA_E_AMBIGUOUS   legacy payload whose length fits neither variant;
 *  -ENOSPC            more reports than @max.
 * Thread-safe (no shared state).
 */
DTA_API int dta_wire_decode(const void *buf, size_t len,
			    struct dta_report *reports, size_t max,
			    unsigned flags);

/**
 * dta_wire_encode() - append one report to a payload buffer.
 * @r:   the report; @r->format selects v1, legacy or legacy-NACK. Legacy
 *       requires 4-byte keys and data (Key-Write, Append) and a 4-byte key
 *       (Key-Increment, Postcarding); Postcarding path_len is dropped.
 * @buf: destination.
 * @cap: bytes available at @buf.
 *
 * Return: bytes written, or -EINVAL (NULL args), -DTA_E_MALFORMED (field out
 * of range for the format), -DTA_E_OPCODE, -ENOSPC (does not fit @cap).
 * Nothing is written on error.
 */
DTA_API int dta_wire_encode(const struct dta_report *r, void *buf, size_t cap);

/* Bytes dta_wire_encode() would write for @r, or a negative error. */
DTA_API int dta_wire_encoded_size(const struct dta_report *r);

/* "key-write", "append", "key-increment", "postcard" or NULL. */
DTA_API const char *dta_opcode_name(int opcode);

#ifdef __cplusplus
}
#endif
#endif /* DTA_WIRE_H */
