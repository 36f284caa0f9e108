/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdta common definitions: export macro, error codes, logging.
 *
 * Error convention: functions returning int return 0 (or a non-negative
 * count) on success and a negative error code on failure. The negative code
 * is either -errno (ENOMEM, EINVAL, ...) or -DTA_E_* from the range below.
 * Functions returning a pointer return NULL and set errno.
 *
 * The library never prints. Diagnostics go through the log callback
 * installed with dta_set_log(); without one they are dropped.
 */
#ifndef DTA_COMMON_H
#define DTA_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(DTA_BUILDING_LIBRARY) && defined(__GNUC__)
#define DTA_API __attribute__((visibility("default")))
#else
#define DTA_API
#endif

/* Project error codes live above every system errno value. */
#define DTA_ERRNO_BASE 4000

/* X-macro: name, text. Append only; values are part of the ABI. */
#define DTA_ERRNO_MAP(X)                                                      \
	X(TRUNCATED, "report or buffer truncated")                            \
	X(MALFORMED, "malformed report")                                      \
	X(VERSION, "unsupported protocol version")                            \
	X(OPCODE, "unknown primitive opcode")                                 \
	X(BADREGION, "region header is invalid or corrupt")                   \
	X(REGIONVERSION, "unsupported region format version")                 \
	X(MISMATCH, "report does not match the structure's geometry")         \
	X(HASHFAMILY, "unknown hash family")                                  \
	X(PRIMITIVE, "operation not valid for this primitive")                \
	X(RANGE, "memory operation outside the region")                       \
	X(AMBIGUOUS, "legacy report length fits no known header variant")     \
	X(CHECKSUM, "region data does not match its checksum")               \
	X(INT_UNSUPPORTED, "INT report type, next protocol or inner header not supported") \
	X(INT_LENGTH, "INT report length fields disagree")                    \
	X(INT_HOPS, "INT-MD stack holds more hops than DTA_INT_HOPS_MAX")     \
	X(INT_TOOMANY, "more INT reports in the datagram than the output holds") \
	X(NOVALUES, "Postcarding structure has no value set: paths cannot be decoded") \
	X(PROTOCOL, "the peer does not speak the collector protocol")        \
	X(UNAVAILABLE, "a collector does not answer (refused, reset or timed out)")

enum dta_errno {
	DTA_E__FIRST = DTA_ERRNO_BASE - 1,
#define DTA_ERRNO_ENUM(name, text) DTA_E_##name,
	DTA_ERRNO_MAP(DTA_ERRNO_ENUM)
#undef DTA_ERRNO_ENUM
	DTA_E__LAST
};

/**
 * dta_strerror() - text for an error code.
 * @err: a code as returned by libdta, negative or positive, DTA_E_* or errno.
 *
 * Return: a static string; never NULL. Thread-safe.
 */
DTA_API const char *dta_strerror(int err);

enum dta_log_level {
	DTA_LOG_ERROR = 0,
	DTA_LOG_WARN = 1,
	DTA_LOG_INFO = 2,
	DTA_LOG_DEBUG = 3,
};

typedef void (*dta_log_fn)(enum dta_log_level level, const char *fmt,
			   va_list ap);

/**
 * dta_set_log() - install the library's log callback.
 * @fn: the callback, or NULL to drop all library messages (the default).
 *
 * Return: the previous callback. Not thread-safe against concurrent calls
 * of itself; the callback may be called from any thread.
 */
DTA_API dta_log_fn dta_set_log(dta_log_fn fn);

#ifdef __cplusplus
}
#endif
#endif /* DTA_COMMON_H */
