/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemons' side of systemd's service protocol (sd_notify(3)):
 * readiness, status lines, stopping, and the watchdog. Every call is a
 * no-op when the daemon was not started by a service manager
 * ($NOTIFY_SOCKET unset). Main-loop use:
 *
 *	tool_service_ready("serving ...");     // once it actually serves
 *	while (running) {
 *		poll(..., tool_service_timeout_ms(now, ms));
 *		...
 *		tool_service_alive(now, true);  // only from the loop itself
 *	}
 *	tool_service_stopping("...");
 *
 * Not part of libdta's API. Not thread-safe: call from one thread.
 */
#ifndef DTA_SERVICE_H
#define DTA_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

/**
 * tool_service_init() - read the watchdog interval the manager asks for
 * (sd_watchdog_enabled(3): $WATCHDOG_USEC, for this process when
 * $WATCHDOG_PID names it). Keep-alives are then sent every half interval.
 * Call once at start, before tool_service_*() else.
 * Return: the keep-alive period in ns, 0 when there is no watchdog.
 */
uint64_t tool_service_init(void);

/* READY=1 with a STATUS= line (printf-style). */
void tool_service_ready(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* STATUS= line only. */
void tool_service_status(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* STOPPING=1 with a STATUS= line. */
void tool_service_stopping(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Whether a keep-alive is due at @now (never without a watchdog). */
bool tool_service_alive_due(uint64_t now);
/**
 * tool_service_alive() - the main loop went round: when a keep-alive is
 * due (half the interval since the last one), send WATCHDOG=1 if @going,
 * else withhold it, so that the manager's timeout runs on; the next one
 * is due half an interval later either way. @now: tool_now_ns().
 */
void tool_service_alive(uint64_t now, bool going);
/**
 * tool_service_timeout_ms() - @ms (a poll timeout; negative: none)
 * shortened so the loop wakes in time for the next keep-alive.
 */
int tool_service_timeout_ms(uint64_t now, int ms);
/* The next keep-alive's deadline in tool_now_ns() time; UINT64_MAX when
 * there is no watchdog. */
uint64_t tool_service_due(void);

#endif
