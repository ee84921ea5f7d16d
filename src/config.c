/* config: the configuration file (see include/config.h). */
#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

void
config_defaults(struct config *c, const char *datadir)
{
	memset(c, 0, sizeof *c);
	strlcpy_(c->datadir, datadir, sizeof c->datadir);
	snprintf(c->database, sizeof c->database, "%s/hexpost.db", datadir);
	snprintf(c->mailbox, sizeof c->mailbox, "maildir:%s/inbox", datadir);
	snprintf(c->outbox, sizeof c->outbox, "maildir:%s/outbox", datadir);
	snprintf(c->server_key, sizeof c->server_key, "%s/server.key", datadir);
	snprintf(c->server_pub, sizeof c->server_pub, "%s/server.pub", datadir);
	strlcpy_(c->from, "hexpost@localhost", sizeof c->from);
	strlcpy_(c->domain, "localhost", sizeof c->domain);
	c->poll_interval = 60;
	c->retry_base = 60;
	c->retry_max = 8;
	c->log_level = LOG_LVL_WARN;
	c->remind_hours = 24;
	strlcpy_(c->missing, "ai", sizeof c->missing);
}

/* The daemon's and the deadlines' keys; false if k is none of them. */
static bool
config_daemon_key(struct config *c, const char *k, const char *v, int *rc,
    char *why, size_t whylen)
{
	static const char *levels[] = { "error", "warning", "info", "debug" };
	char *ep;
	long n;
	int i;

	*rc = HP_OK;
	if (strcmp(k, "log") == 0) {
		if (strcmp(v, "stderr") != 0 && strcmp(v, "syslog") != 0) {
			snprintf(why, whylen, "log must be stderr or syslog");
			*rc = HP_EINVAL;
		}
		c->log_syslog = strcmp(v, "syslog") == 0;
	} else if (strcmp(k, "log_level") == 0) {
		for (i = 0; i < 4 && strcmp(v, levels[i]) != 0; i++)
			;
		if (i == 4) {
			snprintf(why, whylen, "log_level must be error, warning, "
			    "info or debug");
			*rc = HP_EINVAL;
		}
		c->log_level = i;
	} else if (strcmp(k, "deadline_hours") == 0 ||
	    strcmp(k, "remind_hours") == 0) {
		n = strtol(v, &ep, 10);
		if (*v == '\0' || *ep != '\0' || n < 0 || n > 10000) {
			snprintf(why, whylen, "%s must be a number from 0 to "
			    "10000", k);
			*rc = HP_EINVAL;
		} else if (k[0] == 'd')
			c->deadline_hours = (int)n;
		else
			c->remind_hours = (int)n;
	} else if (strcmp(k, "missing") == 0) {
		if (strcmp(v, "ai") != 0 && strcmp(v, "hold") != 0 &&
		    strcmp(v, "wait") != 0) {
			snprintf(why, whylen, "missing must be ai, hold or wait");
			*rc = HP_EINVAL;
		}
		strlcpy_(c->missing, v, sizeof c->missing);
	} else
		return false;
	return true;
}

/* Resolve a path value against the data directory. */
static void
set_path(const struct config *c, char *dst, size_t len, const char *val)
{
	const char *prefix = "";
	char tmp[3 * CONFIG_PATH_MAX];

	if (strncmp(val, "maildir:", 8) == 0) {
		prefix = "maildir:";
		val += 8;
	}
	if (val[0] == '/')
		snprintf(tmp, sizeof tmp, "%s%s", prefix, val);
	else
		snprintf(tmp, sizeof tmp, "%s%s/%s", prefix, c->datadir, val);
	strlcpy_(dst, tmp, len);
}

int
config_load(struct config *c, const char *path, struct hp_error *err)
{
	char *text, *line, *next, *copy, dir[CONFIG_PATH_MAX], why[128];
	int lineno = 0, rc = HP_OK;

	if ((text = util_read_file(path, NULL, err)) == NULL)
		return HP_EIO;
	copy = xstrdup(path);
	strlcpy_(dir, dirname(copy), sizeof dir);
	free(copy);
	config_defaults(c, dir);
	strlcpy_(c->path, path, sizeof c->path);
	for (line = text; line != NULL && rc == HP_OK; line = next) {
		char *eq, *k, *v, *end;

		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((end = strchr(line, '#')) != NULL)
			*end = '\0';
		k = line;
		while (isspace((unsigned char)*k))
			k++;
		if (*k == '\0')
			continue;
		if ((eq = strchr(k, '=')) == NULL) {
			hp_seterr(err, HP_EINVAL, "%s:%d: expected 'key = "
			    "value'", path, lineno);
			rc = HP_EINVAL;
			break;
		}
		v = eq + 1;
		for (end = eq; end > k && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		while (isspace((unsigned char)*v))
			v++;
		for (end = v + strlen(v); end > v &&
		    isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		if (strcmp(k, "datadir") == 0) {
			char keep[CONFIG_PATH_MAX];

			strlcpy_(keep, c->path, sizeof keep);
			if (v[0] != '/') {
				hp_seterr(err, HP_EINVAL, "%s:%d: datadir must "
				    "be an absolute path", path, lineno);
				rc = HP_EINVAL;
				break;
			}
			config_defaults(c, v);
			strlcpy_(c->path, keep, sizeof c->path);
		} else if (strcmp(k, "database") == 0)
			set_path(c, c->database, sizeof c->database, v);
		else if (strcmp(k, "mailbox") == 0)
			set_path(c, c->mailbox, sizeof c->mailbox, v);
		else if (strcmp(k, "outbox") == 0)
			set_path(c, c->outbox, sizeof c->outbox, v);
		else if (strcmp(k, "server_key") == 0)
			set_path(c, c->server_key, sizeof c->server_key, v);
		else if (strcmp(k, "server_pub") == 0)
			set_path(c, c->server_pub, sizeof c->server_pub, v);
		else if (strcmp(k, "from") == 0)
			strlcpy_(c->from, v, sizeof c->from);
		else if (strcmp(k, "domain") == 0)
			strlcpy_(c->domain, v, sizeof c->domain);
		else if (strcmp(k, "poll_interval") == 0 ||
		    strcmp(k, "retry_base") == 0 || strcmp(k, "retry_max") == 0) {
			char *ep;
			long n = strtol(v, &ep, 10);

			if (*v == '\0' || *ep != '\0' || n < 1 || n > 86400) {
				hp_seterr(err, HP_EINVAL, "%s:%d: %s must be a "
				    "number from 1 to 86400", path, lineno, k);
				rc = HP_EINVAL;
				break;
			}
			if (k[0] == 'p')
				c->poll_interval = (int)n;
			else if (k[6] == 'b')
				c->retry_base = (int)n;
			else
				c->retry_max = (int)n;
		} else if (config_daemon_key(c, k, v, &rc, why, sizeof why)) {
			if (rc != HP_OK)
				hp_seterr(err, rc, "%s:%d: %s", path, lineno, why);
		} else {
			hp_seterr(err, HP_EINVAL, "%s:%d: unknown key '%s'", path,
			    lineno, k);
			rc = HP_EINVAL;
		}
	}
	free(text);
	return rc;
}

int
config_write(const struct config *c, const char *path, struct hp_error *err)
{
	struct sbuf b;
	int rc;

	sbuf_init(&b);
	sbuf_printf(&b,
	    "# hexpost configuration (see contrib/hexpost.conf for every key).\n"
	    "# Relative paths are under datadir.\n"
	    "datadir = %s\n"
	    "database = %s\n"
	    "# Where players' mail arrives, and where outgoing mail is written.\n"
	    "mailbox = %s\n"
	    "outbox = %s\n"
	    "# hexpost's own address, and the domain of its Message-IDs.\n"
	    "from = %s\n"
	    "domain = %s\n"
	    "# The server's minisign key pair (signs dice logs).\n"
	    "server_key = %s\n"
	    "server_pub = %s\n"
	    "# Seconds between runs of 'hexpost run'.\n"
	    "poll_interval = %d\n"
	    "# Delivery retries: first after retry_base seconds, doubling,\n"
	    "# given up after retry_max attempts.\n"
	    "retry_base = %d\n"
	    "retry_max = %d\n"
	    "# Logging of 'hexpost run': stderr or syslog; error, warning,\n"
	    "# info or debug.\n"
	    "log = %s\n"
	    "log_level = %s\n"
	    "# Deadlines of campaigns without their own: hours after a window\n"
	    "# opens (0: none), reminders that long before, and what a side\n"
	    "# that sent nothing gets: ai, hold or wait (for the moderator).\n"
	    "deadline_hours = %d\n"
	    "remind_hours = %d\n"
	    "missing = %s\n",
	    c->datadir, c->database, c->mailbox, c->outbox, c->from, c->domain,
	    c->server_key, c->server_pub, c->poll_interval, c->retry_base,
	    c->retry_max, c->log_syslog ? "syslog" : "stderr",
	    log_strlevel(c->log_level), c->deadline_hours, c->remind_hours,
	    c->missing);
	rc = util_write_file_atomic(path, b.buf, b.len, 0600, err);
	sbuf_free(&b);
	return rc;
}
