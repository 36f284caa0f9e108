/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Value schemas: what the bytes of a Key-Write structure's data, or of an
 * Append structure's entries, mean. A schema is a list of named fields of
 * fixed-width integer types (or raw bytes), each with a byte order and an
 * element count (arrays, such as a path of five 32-bit switch ids:
 * "path:u32[5]"), laid out back to back from offset 0. One field may be
 * marked as the time the reporter stamped (":time", nanoseconds since the
 * Unix epoch unless the field says otherwise).
 *
 * A structure declares its schema in the configuration ("schema = ..." in
 * its [structure NAME] section, docs/config.md "Value schemas"); the
 * collector writes the schema's canonical text into the region header, so
 * every reader (the socket's `info`, a local mapping, a snapshot file,
 * dta-query --json, the client, Python) sees the same schema. INT roles
 * get their schemas built in (dta_schema_int()).
 *
 * Text form (dta_schema_parse()), fields separated by commas or blanks:
 *
 *   NAME:TYPE[ENDIAN][[COUNT]][:time]
 *
 *   NAME    [A-Za-z_][A-Za-z0-9_]*, at most DTA_SCHEMA_NAME_MAX - 1 bytes,
 *           unique within the schema
 *   TYPE    u8 u16 u32 u64 i8 i16 i32 i64, or bytes (COUNT bytes of
 *           opaque data, shown as hex)
 *   ENDIAN  "be" (default: network order, as reports carry values) or "le";
 *           not on one-byte types and bytes
 *   COUNT   elements, 1..DTA_SCHEMA_COUNT_MAX (default 1)
 *   :time   this field is the reporter's timestamp (a u32 or u64 scalar);
 *           ":time_s", ":time_ms", ":time_us", ":time_ns" name its unit
 *           (":time" is nanoseconds). At most one field per schema.
 *
 * Example: "src:u32, dst:u32, hops:u8, pad:bytes[3], path:u32[5], ts:u64:time".
 * The canonical text (dta_schema_format()) writes every field as
 * "NAME:TYPE[le][[COUNT]][:time_UNIT]" separated by ", ", omitting the
 * defaults ("be", count 1); parsing it gives the same schema.
 */
#ifndef DTA_SCHEMA_H
#define DTA_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "dta/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DTA_SCHEMA_FIELDS_MAX 32
#define DTA_SCHEMA_NAME_MAX 32   /* bytes of a field name, NUL included */
#define DTA_SCHEMA_COUNT_MAX 255 /* elements of one field */
#define DTA_SCHEMA_TEXT_MAX 1024 /* canonical text, NUL included */

enum dta_field_type {
	DTA_FIELD_U8 = 1,
	DTA_FIELD_U16,
	DTA_FIELD_U32,
	DTA_FIELD_U64,
	DTA_FIELD_I8,
	DTA_FIELD_I16,
	DTA_FIELD_I32,
	DTA_FIELD_I64,
	DTA_FIELD_BYTES, /* @count opaque bytes */
};

/* struct dta_field.time: which unit the reporter's timestamp is in. */
enum dta_field_time {
	DTA_TIME_NONE = 0,
	DTA_TIME_NS,
	DTA_TIME_US,
	DTA_TIME_MS,
	DTA_TIME_S,
};

/**
 * struct dta_field - one field of a schema.
 * @name:       its name, NUL-terminated.
 * @type:       enum dta_field_type.
 * @little:     1: little-endian; 0: big-endian (network order). Always 0
 *              for one-byte types and bytes.
 * @count:      elements (array length; bytes for DTA_FIELD_BYTES), >= 1.
 * @time:       enum dta_field_time: DTA_TIME_NONE, or this field is the
 *              reporter's timestamp in that unit.
 * @offset:     bytes from the start of the value to the field.
 * @size:       bytes of the whole field (element size * @count).
 */
struct dta_field {
	char name[DTA_SCHEMA_NAME_MAX];
	uint8_t type;
	uint8_t little;
	uint8_t time;
	uint16_t count;
	uint32_t offset;
	uint32_t size;
};

/**
 * struct dta_schema - a whole schema.
 * @nfields: fields in @f, 1..DTA_SCHEMA_FIELDS_MAX (0: no schema).
 * @size:    bytes of a value: the sum of the fields' sizes.
 * @time:    index of the time field, or -1.
 */
struct dta_schema {
	unsigned nfields;
	uint32_t size;
	int time;
	struct dta_field f[DTA_SCHEMA_FIELDS_MAX];
};

/**
 * dta_schema_parse() - parse a schema's text form (above).
 * @err: receives why it is malformed (may be NULL; truncated to @errlen),
 *       naming the field, e.g. "field 3 (path): count 0 is not 1..255".
 * Return: 0 with @s filled; -DTA_E_MALFORMED (syntax, unknown type or
 * unit, duplicate name, more than DTA_SCHEMA_FIELDS_MAX fields, a time
 * field that is not a u32/u64 scalar or a second one, a value over 65535
 * bytes, a canonical text longer than DTA_SCHEMA_TEXT_MAX - 1 bytes);
 * -EINVAL (NULL @text or @s). @s is written only on success. Thread-safe.
 */
DTA_API int dta_schema_parse(const char *text, struct dta_schema *s,
			     char *err, size_t errlen);

/**
 * dta_schema_format() - the canonical text of @s into @out.
 * Return: its length (without the NUL); -ENOSPC when it does not fit @cap
 * (DTA_SCHEMA_TEXT_MAX always suffices); -EINVAL.
 */
DTA_API int dta_schema_format(const struct dta_schema *s, char *out,
			      size_t cap);

/**
 * dta_schema_get() - element @elem of field @field of the value at @v
 * (@len bytes, at least @s->size), as an unsigned (u*) or sign-extended
 * (i*) 64-bit integer in host order, in *@out.
 * Return: 0; -EINVAL (field, element or type out of range: bytes fields
 * have no integer value; @len too short).
 */
DTA_API int dta_schema_get(const struct dta_schema *s, unsigned field,
			   unsigned elem, const void *v, size_t len,
			   int64_t *out);

/**
 * dta_schema_json() - the value at @v (@len bytes) as one JSON object with
 * a member per field: integers as numbers (arrays as arrays), bytes as a
 * hex string. Bytes of @v beyond @s->size are ignored.
 * Return: the length written (without the NUL, which is always written
 * when @cap > 0); -ENOSPC when it does not fit; -EINVAL (@len shorter
 * than @s->size).
 */
DTA_API int dta_schema_json(const struct dta_schema *s, const void *v,
			    size_t len, char *out, size_t cap);

/* The INT roles whose values have a schema (dta_schema_int()). */
enum dta_schema_int_role {
	DTA_SCHEMA_INT_PATH = 1, /* path_kw data: switch ids, hop 0 first */
	DTA_SCHEMA_INT_HOP,      /* hop_kw data: DTA_INT_HOP_DATA_LEN record */
	DTA_SCHEMA_INT_EVENT,    /* events_ap entries: DTA_INT_EVENT_SIZE */
};

/**
 * dta_schema_int() - the built-in schema of the values an INT role's
 * structure holds (docs/int.md "Schemas"): a path's switch ids
 * ("path:u32[N]", N = @size / 4), a hop record, an event record, laid out
 * as dta/translator.h and dta/int.h describe them. @size is the
 * structure's data or entry size.
 * Return: 0 with @s filled; -EINVAL (unknown @role); -DTA_E_MISMATCH
 * (@size does not fit the role: not a multiple of 4 for paths, smaller
 * than the record otherwise; bytes past the record become a "pad" bytes
 * field).
 */
DTA_API int dta_schema_int(int role, size_t size, struct dta_schema *s);

#ifdef __cplusplus
}
#endif
#endif /* DTA_SCHEMA_H */
