/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static const char *log_prog = "dta";
static bool log_journal;
static bool log_quiet;

/* systemd.exec(5), $JOURNAL_STREAM: "DEVICE:INODE" of the stream it
 * connected; stderr is the journal only if it is still that stream (not
 * redirected by a wrapper). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &end) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void tool_log_init(const char *prog)
{
	const char *f = getenv("DTA_LOG_FORMAT");

	log_prog = prog;
	if (f && !strcmp(f, "journal"))
		log_journal = true;
	else if (f && !strcmp(f, "plain"))
		log_journal = false;
	else
		log_journal = stderr_is_journal();
}

void tool_log_quiet(bool quiet)
{
	log_quiet = quiet;
}

bool tool_log_journal(void)
{
	return log_journal;
}

void tool_vlog(int prio, const char *fmt, va_list ap)
{
	char line[2048];
	int n, k;

	if (log_quiet && prio > LOG_ERR)
		return;
	if (prio < 0 || prio > LOG_DEBUG)
		prio = LOG_ERR;
	/* sd-daemon(3): "<N>" with N the syslog priority, SD_ERR == "<3>". */
	n = log_journal ? snprintf(line, sizeof(line), "<%d>", prio)
			: snprintf(line, sizeof(line), "%s: ", log_prog);
	k = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (k < 0)
		k = 0;
	n += k;
	if ((size_t)n > sizeof(line) - 2) { /* cut: mark it, keep the line */
		n = (int)sizeof(line) - 2;
		memcpy(line + n - 3, "...", 3);
	}
	line[n++] = '\n';
	while (write(STDERR_FILENO, line, (size_t)n) < 0 && errno == EINTR)
		;
}

void tool_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vlog(prio, fmt, ap);
	va_end(ap);
}

void tool_log_lib(enum dta_log_level level, const char *fmt, va_list ap)
{
	static const int prio[] = { [DTA_LOG_ERROR] = LOG_ERR,
				    [DTA_LOG_WARN] = LOG_WARNING,
				    [DTA_LOG_INFO] = LOG_INFO,
				    [DTA_LOG_DEBUG] = LOG_DEBUG };
	char msg[1536];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	tool_log((unsigned)level < sizeof(prio) / sizeof(prio[0])
		 ? prio[level] : LOG_ERR, "libdta: %s", msg);
}

void tool_log_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vlog(LOG_WARNING, fmt, ap);
	va_end(ap);
}
