/* log: where log_msg (hexpost.h) writes: stderr, or syslog for the daemon,
 * with a level below which messages are dropped. */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>

#include "hexpost.h"

/* Send messages at level or more urgent to syslog (facility daemon) or to
 * stderr. A level set by log_set_level (the -v option) is kept. */
void log_open(bool use_syslog, enum log_level level);
/* "error", "warning", "info" or "debug". */
const char *log_strlevel(int level);

#endif
