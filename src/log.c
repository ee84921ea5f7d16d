/* log: messages to stderr or syslog, with levels (see include/log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "log.h"

static enum log_level log_level = LOG_LVL_WARN;
static bool log_syslog;
static bool log_pinned;   /* set by log_set_level (-v): log_open keeps it */

const char *
log_strlevel(int l)
{
	static const char *names[] = { "error", "warning", "info", "debug" };

	return l >= 0 && l < 4 ? names[l] : "unknown";
}

void
log_set_level(enum log_level l)
{
	log_level = l;
	log_pinned = true;
}

void
log_open(bool use_syslog, enum log_level level)
{
	if (use_syslog && !log_syslog)
		openlog("hexpost", LOG_PID, LOG_DAEMON);
	else if (!use_syslog && log_syslog)
		closelog();
	log_syslog = use_syslog;
	if (!log_pinned)
		log_level = level;
}

void
log_msg(enum log_level l, const char *fmt, ...)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	va_list ap;

	if (l > log_level)
		return;
	va_start(ap, fmt);
	if (log_syslog)
		vsyslog(prio[l], fmt, ap);
	else {
		fprintf(stderr, "hexpost: %s: ", log_strlevel(l));
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
