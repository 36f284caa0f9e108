/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "service.h"
#include "tools.h"

static uint64_t wd_period_ns; /* half the manager's interval; 0: none */
static uint64_t wd_next;

uint64_t tool_service_init(void)
{
	uint64_t usec = 0;

	/* Keep the variables: nothing we start inherits them anyway. */
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		wd_period_ns = usec * 1000 / 2;
		if (!wd_period_ns)
			wd_period_ns = 1;
		wd_next = tool_now_ns(); /* the first one at once */
	}
	return wd_period_ns;
}

static void notify(const char *head, const char *fmt, va_list ap)
{
	char status[512];

	vsnprintf(status, sizeof(status), fmt, ap);
	sd_notifyf(0, "%sSTATUS=%s", head, status);
}

void tool_service_ready(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notify("READY=1\n", fmt, ap);
	va_end(ap);
}

void tool_service_status(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notify("", fmt, ap);
	va_end(ap);
}

void tool_service_stopping(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notify("STOPPING=1\n", fmt, ap);
	va_end(ap);
}

bool tool_service_alive_due(uint64_t now)
{
	return wd_period_ns && now >= wd_next;
}

void tool_service_alive(uint64_t now, bool going)
{
	if (!tool_service_alive_due(now))
		return;
	if (going)
		sd_notify(0, "WATCHDOG=1");
	wd_next = now + wd_period_ns;
}

int tool_service_timeout_ms(uint64_t now, int ms)
{
	uint64_t left;

	if (!wd_period_ns)
		return ms;
	left = wd_next > now ? (wd_next - now + 999999) / 1000000 : 0;
	if (ms < 0 || left < (uint64_t)ms)
		ms = (int)(left > 60000 ? 60000 : left);
	return ms;
}

uint64_t tool_service_due(void)
{
	return wd_period_ns ? wd_next : UINT64_MAX;
}
