/* log: messages to stderr or syslog, with levels (see include/log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

/* Copy the formatted message in into out (len bytes), every byte that is
 * not printable ASCII, and the backslash, written as \xNN or \\, so no
 * control sequence from a mail reaches a terminal or the syslog. */
void
log_escape(const char *in, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	unsigned char ch;

	if (len == 0)
		return;
	for (; *in != '\0'; in++) {
		ch = (unsigned char)*in;
		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			if (o + 1 >= len)
				break;
			out[o++] = (char)ch;
		} else if (ch == '\\') {
			if (o + 2 >= len)
				break;
			out[o++] = '\\';
			out[o++] = '\\';
		} else {
			if (o + 4 >= len)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = '\0';
}

void
log_msg(enum log_level l, const char *fmt, ...)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char raw[2048], clean[4 * sizeof raw];
	va_list ap;

	if (l > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	log_escape(raw, clean, sizeof clean);
	if (log_syslog)
		syslog(prio[l], "%s", clean);
	else
		fprintf(stderr, "hexpost: %s: %s\n", log_strlevel(l), clean);
}
