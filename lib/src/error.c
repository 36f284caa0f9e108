/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dta/common.h"
#include "internal.h"

static const char *const dta_errtext[] = {
#define DTA_ERRNO_TEXT(name, text) text,
	DTA_ERRNO_MAP(DTA_ERRNO_TEXT)
#undef DTA_ERRNO_TEXT
};

DTA_API const char *dta_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	if (err >= DTA_ERRNO_BASE && err < DTA_E__LAST)
		return dta_errtext[err - DTA_ERRNO_BASE];
	if (err < DTA_ERRNO_BASE) {
		/* strerror() may use a shared buffer only for unknown codes;
		 * known ones are static strings in glibc and musl. */
		const char *s = strerror(err);

		return s ? s : "unknown error";
	}
	return "unknown error";
}

static dta_log_fn dta_log_cb;

DTA_API dta_log_fn dta_set_log(dta_log_fn fn)
{
	dta_log_fn old = dta_log_cb;

	dta_log_cb = fn;
	return old;
}

void dta__log(enum dta_log_level level, const char *fmt, ...)
{
	dta_log_fn fn = dta_log_cb;
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
}
