/* config: the configuration file, "key = value" lines with '#' comments.
 * See contrib/hexpost.conf for every key. */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>

#include "hexpost.h"

#define CONFIG_PATH_MAX 1024

struct config {
	char path[CONFIG_PATH_MAX];       /* the file read */
	char datadir[CONFIG_PATH_MAX];    /* relative paths are under it */
	char database[CONFIG_PATH_MAX];
	char mailbox[CONFIG_PATH_MAX];    /* "maildir:DIR" */
	char outbox[CONFIG_PATH_MAX];     /* "maildir:DIR" */
	char from[256];                   /* hexpost's own address */
	char domain[256];                 /* right-hand side of Message-IDs */
	char server_key[CONFIG_PATH_MAX]; /* minisign secret key, mode 0600 */
	char server_pub[CONFIG_PATH_MAX];
	int poll_interval;                /* seconds between runs */
	int retry_base;                   /* first delivery retry, seconds */
	int retry_max;                    /* attempts before 'failed' */
	/* The daemon and deadlines (defaults for campaigns without their
	 * own settings). */
	bool log_syslog;                  /* log = syslog (else stderr) */
	int log_level;                    /* enum log_level */
	int deadline_hours;               /* 0: no deadline */
	int remind_hours;                 /* reminder this long before */
	char missing[8];                  /* ai, hold or wait */
};

/* Defaults for a data directory: everything inside dir. */
void config_defaults(struct config *, const char *datadir);
/* Read path over the defaults (datadir defaults to path's directory). */
int config_load(struct config *, const char *path, struct hp_error *);
/* Write a documented configuration file for c. */
int config_write(const struct config *, const char *path, struct hp_error *);

#endif
