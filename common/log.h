/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemons' log: one line per message on stderr, with a level.
 *
 * On a terminal a line reads "dta-collector: message". When stderr is
 * connected to the journal (systemd sets JOURNAL_STREAM to stderr's
 * device:inode, see systemd.exec(5)) each line starts with an sd-daemon
 * priority prefix instead ("<3>message", sd-daemon(3)) and without the
 * program name, which the journal records itself: journald then keeps the
 * level (journalctl -p). DTA_LOG_FORMAT=journal or plain in the
 * environment overrides the detection (docs/operations.md).
 *
 * Not part of libdta's API (the library never prints).
 */
#ifndef DTA_LOG_H
#define DTA_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <syslog.h> /* LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG */

#include "dta/dta.h"

/**
 * tool_log_init() - set the program name and choose the line format
 * (journal prefixes or plain) from DTA_LOG_FORMAT and JOURNAL_STREAM.
 * Call once, before any other thread starts.
 */
void tool_log_init(const char *prog);
/* Quiet: only LOG_ERR lines are written (the daemons' --quiet). */
void tool_log_quiet(bool quiet);
/* Whether lines carry "<N>" priority prefixes. */
bool tool_log_journal(void);

/**
 * tool_log() - one line at @prio (LOG_ERR, LOG_WARNING, LOG_INFO,
 * LOG_DEBUG), without a trailing newline in @fmt. Written with one
 * write(2), so lines from several threads do not mix. Thread-safe.
 */
void tool_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tool_vlog(int prio, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* tool_log(LOG_WARNING, ...), for callbacks that take a plain printf-like
 * function (the metrics server's log). */
void tool_log_warning(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* libdta's log callback (dta_set_log()): its lines at their level,
 * marked "libdta: ". */
void tool_log_lib(enum dta_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
