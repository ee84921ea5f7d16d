/* config: the configuration file, "key = value" lines with '#' comments.
 * See contrib/hexpost.conf for every key. */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>

#include "hexpost.h"

#define CONFIG_PATH_MAX 1024
#define CONFIG_MAX_IMAP 8      /* imap = lines */

/* TLS on imap:// and smtp:// (imaps:// and smtps:// are always TLS). */
enum config_tls { CONFIG_TLS_REQUIRED, CONFIG_TLS_OFF };
/* What is done on the server to a message taken in. */
enum config_imap_after { CONFIG_AFTER_SEEN, CONFIG_AFTER_KEYWORD,
	CONFIG_AFTER_MOVE };

/* Passwords, in sodium_malloc'ed memory (config_free wipes them). */
struct config_secrets {
	char imap_password[256];
	char smtp_password[256];
};

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
	/* Mail servers (outbox may also be smtp://HOST[:PORT] or smtps://). */
	char imap[CONFIG_MAX_IMAP][CONFIG_PATH_MAX]; /* imap[s]://HOST[:PORT]/BOX */
	int nimap;
	char imap_user[256];
	int imap_starttls;                /* enum config_tls */
	int imap_after;                   /* enum config_imap_after */
	char imap_after_arg[256];         /* the keyword or the folder */
	int imap_batch;                   /* messages a FETCH */
	char smtp_user[256];
	int smtp_starttls;                /* enum config_tls */
	char tls_ca_file[CONFIG_PATH_MAX]; /* "": the system's CAs */
	int mail_timeout;                 /* seconds without progress */
	int mail_budget;                  /* wall-clock seconds an IMAP
	                                   * session or SMTP batch may take */
	struct config_secrets *secrets;   /* NULL: no password given */
	/* Refusals to addresses of no registered player: none (default), or
	 * one short answer per address per day ("stranger_replies"). */
	bool stranger_daily;
	/* mail_wait = poll: between passes only sleep poll_interval, no IMAP
	 * IDLE or inotify watch (mail_wait = watch, the default). */
	bool wait_poll;
	/* web_dir = DIR: the daemon rewrites the campaign web archive there
	 * after each pass (`hexpost web DIR`, issue 18); "": none. */
	char web_dir[CONFIG_PATH_MAX];
	/* retention_days (issue 17): delivered and failed outbox rows, the
	 * inbox's cur/ and the outbox Maildir's files older than this are
	 * removed once a day (0: kept for ever); sent copies are compacted
	 * after a day. */
	int retention_days;
};

/* Defaults for a data directory: everything inside dir. */
void config_defaults(struct config *, const char *datadir);
/* Read path over the defaults (datadir defaults to path's directory).
 * A file holding a password must be mode 0600 (no group or other bits);
 * $HEXPOST_IMAP_PASSWORD and $HEXPOST_SMTP_PASSWORD override the file's.
 * The caller releases the result with config_free. */
int config_load(struct config *, const char *path, struct hp_error *);
/* Wipe and free the passwords of a loaded configuration. */
void config_free(struct config *);
/* Whether a password may go to the server of url (imap[s]://, smtp[s]://):
 * always over TLS (tls true) or without a password; in clear text only to a
 * loopback address (localhost, 127.0.0.0/8, ::1), judged from the URL's
 * text before any connection. If not, why says so. */
bool config_cleartext_ok(const char *url, bool tls, bool password,
    char *why, size_t whylen);
/* Write a documented configuration file for c. */
int config_write(const struct config *, const char *path, struct hp_error *);

#endif
