/* log: where log_msg (hexpost.h) writes: stderr, or syslog for the daemon,
 * with a level below which messages are dropped. */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "hexpost.h"

/* Send messages at level or more urgent to syslog (facility daemon) or to
 * stderr. A level set by log_set_level (the -v option) is kept. */
void log_open(bool use_syslog, enum log_level level);
/* "error", "warning", "info" or "debug". */
const char *log_strlevel(int level);
/* Write in into out (len bytes, always NUL-terminated, cut if short) with
 * every byte outside printable ASCII as \xNN and '\' as "\\": what
 * log_msg does to each line. */
void log_escape(const char *in, char *out, size_t len);

#endif
