/* config: the configuration file (see include/config.h). */
#include <ctype.h>
#include <libgen.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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
	c->retention_days = 90;
	strlcpy_(c->missing, "ai", sizeof c->missing);
	c->imap_starttls = CONFIG_TLS_REQUIRED;
	c->smtp_starttls = CONFIG_TLS_REQUIRED;
	c->imap_after = CONFIG_AFTER_SEEN;
	c->imap_batch = 100;
	c->mail_timeout = 60;
	c->mail_budget = 300;
}

void
config_free(struct config *c)
{
	if (c->secrets != NULL)
		sodium_free(c->secrets);
	c->secrets = NULL;
}

/* The secrets block of c, allocated on first use. */
static struct config_secrets *
secrets(struct config *c)
{
	if (c->secrets == NULL) {
		if ((c->secrets = sodium_malloc(sizeof *c->secrets)) == NULL)
			fatal("sodium_malloc");
		sodium_memzero(c->secrets, sizeof *c->secrets);
	}
	return c->secrets;
}

/* Check a mail server URL given for key: one of the schemes, a host, no
 * password in it, nothing but printable ASCII. */
static bool
mail_url_ok(const char *v, const char *s1, const char *s2, bool need_path,
    char *why, size_t whylen)
{
	const char *host, *at, *slash;
	size_t i;

	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f) {
			snprintf(why, whylen, "spaces and control characters "
			    "must be %%-encoded");
			return false;
		}
	if (strncmp(v, s1, strlen(s1)) == 0)
		host = v + strlen(s1);
	else if (strncmp(v, s2, strlen(s2)) == 0)
		host = v + strlen(s2);
	else {
		snprintf(why, whylen, "expected %sHOST[:PORT]%s or %s...", s1,
		    need_path ? "/MAILBOX" : "", s2);
		return false;
	}
	slash = strchr(host, '/');
	at = strchr(host, '@');
	if (at != NULL && (slash == NULL || at < slash)) {
		if (memchr(host, ':', (size_t)(at - host)) != NULL) {
			snprintf(why, whylen, "no password in the URL: use the "
			    "*_password key or the environment");
			return false;
		}
		host = at + 1;
	}
	if (*host == '\0' || *host == '/' || *host == ':') {
		snprintf(why, whylen, "no host");
		return false;
	}
	if (!need_path && slash != NULL && slash[1] != '\0') {
		snprintf(why, whylen, "no path expected");
		return false;
	}
	return true;
}

/* Whether host (from a URL, [..] around an IPv6 address allowed) is a
 * loopback address by its text alone: localhost, 127.0.0.0/8 or ::1. No
 * name is resolved, so a name that merely resolves to 127.0.0.1 is not. */
static bool
loopback_host(const char *host, size_t n)
{
	char h[64], *ep;
	int i;
	long part;
	const char *p;

	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host++;
		n -= 2;
	}
	if (n == 0 || n >= sizeof h)
		return false;
	memcpy(h, host, n);
	h[n] = '\0';
	if (strcasecmp(h, "localhost") == 0 || strcmp(h, "::1") == 0 ||
	    strcmp(h, "0:0:0:0:0:0:0:1") == 0)
		return true;
	/* Dotted quad, first part 127, each part 0-255 in decimal. */
	for (p = h, i = 0; i < 4; i++) {
		if (!isdigit((unsigned char)*p))
			return false;
		part = strtol(p, &ep, 10);
		if (part < 0 || part > 255 || ep - p > 3 || (i == 0 &&
		    part != 127))
			return false;
		if (i < 3 && *ep != '.')
			return false;
		p = ep + (i < 3);
	}
	return *p == '\0';
}

bool
config_cleartext_ok(const char *url, bool tls, bool password, char *why,
    size_t whylen)
{
	const char *host, *end, *at, *colon;

	if (tls || !password)
		return true;
	if ((host = strstr(url, "://")) == NULL)
		host = url;
	else
		host += 3;
	end = host + strcspn(host, "/?#");
	if ((at = memchr(host, '@', (size_t)(end - host))) != NULL)
		host = at + 1;
	if (*host == '[')
		colon = memchr(host, ']', (size_t)(end - host)) != NULL ?
		    (const char *)memchr(host, ']', (size_t)(end - host)) + 1 :
		    end;
	else if ((colon = memchr(host, ':', (size_t)(end - host))) == NULL)
		colon = end;
	if (loopback_host(host, (size_t)(colon - host)))
		return true;
	snprintf(why, whylen, "refusing to send a password in clear text to "
	    "%.*s (not a loopback address): use TLS (imaps:// or smtps://, "
	    "or *_starttls = required)", (int)(colon - host), host);
	return false;
}

/* An IMAP atom (a keyword): letters, digits and a few safe signs. */
static bool
imap_atom_ok(const char *v)
{
	size_t i;

	if (*v == '\0' || strlen(v) > 64)
		return false;
	for (i = 0; v[i] != '\0'; i++)
		if (!isalnum((unsigned char)v[i]) && strchr("$_-.", v[i]) ==
		    NULL)
			return false;
	return true;
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
	} else if (strcmp(k, "retention_days") == 0) {
		n = strtol(v, &ep, 10);
		if (*v == '\0' || *ep != '\0' || n < 0 || n > 100000) {
			snprintf(why, whylen, "retention_days must be a number "
			    "from 0 (keep for ever) to 100000");
			*rc = HP_EINVAL;
		} else
			c->retention_days = (int)n;
	} else if (strcmp(k, "mail_wait") == 0) {
		if (strcmp(v, "watch") != 0 && strcmp(v, "poll") != 0) {
			snprintf(why, whylen, "mail_wait must be watch or poll");
			*rc = HP_EINVAL;
		}
		c->wait_poll = strcmp(v, "poll") == 0;
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

/* Resolve a path value against the data directory; false if the result
 * would not fit in len bytes. */
static bool
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
	if (*val == '\0' || strlen(tmp) >= len)
		return false;
	strlcpy_(dst, tmp, len);
	return true;
}

/* Whether line sets imap_password or smtp_password. */
static bool
config_secret_line(const char *line)
{
	size_t n;

	while (isspace((unsigned char)*line))
		line++;
	if (strncmp(line, "imap_password", 13) != 0 &&
	    strncmp(line, "smtp_password", 13) != 0)
		return false;
	for (n = 13; line[n] == ' ' || line[n] == '\t'; n++)
		;
	return line[n] == '=';
}

/* Whether v is a domain name: dot-separated labels of letters, digits and
 * inner hyphens, 1 to 63 bytes each, at most 253 in all. */
static bool
domain_ok(const char *v)
{
	size_t n = strlen(v), lab = 0, i;

	if (n == 0 || n > 253 || v[0] == '.' || v[n - 1] == '.')
		return false;
	for (i = 0; i <= n; i++) {
		if (v[i] == '.' || v[i] == '\0') {
			if (lab == 0 || lab > 63 || v[i - 1] == '-' ||
			    v[i - lab] == '-')
				return false;
			lab = 0;
		} else if (isalnum((unsigned char)v[i]) || v[i] == '-')
			lab++;
		else
			return false;
	}
	return true;
}

/* Whether v is a bare address local@domain: the local part of atext and
 * inner dots, the domain as domain_ok. */
static bool
address_ok(const char *v)
{
	const char *at = strchr(v, '@'), *p;

	if (at == NULL || at == v || strchr(at + 1, '@') != NULL ||
	    at - v > 64 || v[0] == '.' || at[-1] == '.')
		return false;
	for (p = v; p < at; p++)
		if (!isalnum((unsigned char)*p) &&
		    strchr("!#$%&'*+-/=?^_`{|}~.", *p) == NULL)
			return false;
		else if (p[0] == '.' && p[1] == '.')
			return false;
	return domain_ok(at + 1);
}

/* Whether v has no control byte (tab aside) and, if ascii, only printable
 * ASCII. */
static bool
value_clean(const char *v, bool ascii)
{
	for (; *v != '\0'; v++) {
		unsigned char ch = (unsigned char)*v;

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f ||
		    (ascii && ch >= 0x80))
			return false;
	}
	return true;
}

/* The value of the datadir key in text (the last one), into dir; its line
 * in *lineno (0: none). Read first, so keys before it are resolved
 * against it and never reset by it. */
static void
config_find_datadir(const char *text, char *dir, size_t len, int *lineno)
{
	const char *line = text, *next, *k, *v, *e;
	size_t n2;
	int n = 0;

	*lineno = 0;
	for (; line != NULL && *line != '\0'; line = next) {
		n++;
		next = strchr(line, '\n');
		e = next != NULL ? next : line + strlen(line);
		if (next != NULL)
			next++;
		for (k = line; k < e && isspace((unsigned char)*k); k++)
			;
		if ((size_t)(e - k) < 7 || strncmp(k, "datadir", 7) != 0)
			continue;
		for (v = k + 7; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		if (v == e || *v != '=')
			continue;
		for (v++; v < e && isspace((unsigned char)*v); v++)
			;
		for (n2 = 0; v + n2 < e && v[n2] != '#'; n2++)
			;
		while (n2 > 0 && isspace((unsigned char)v[n2 - 1]))
			n2--;
		if (n2 >= len)
			n2 = len - 1;
		memcpy(dir, v, n2);
		dir[n2] = '\0';
		*lineno = n;
	}
}

/* Read the systemd credential name (a file in $CREDENTIALS_DIRECTORY, from
 * LoadCredential=) into dst (len bytes), one trailing newline dropped: HP_OK
 * with nothing changed if there is no such directory or file; an empty
 * file means no password. */
static int
config_credential(struct config *c, const char *name, struct hp_error *err)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY");
	char path[CONFIG_PATH_MAX + 32], *t, *dst;
	size_t len = sizeof c->secrets->imap_password;
	struct stat sb;
	size_t n;

	if (dir == NULL || *dir == '\0')
		return HP_OK;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (access(path, F_OK) != 0)
		return HP_OK;
	if ((t = util_read_file_nofollow(path, &sb, &n, err)) == NULL)
		return HP_EIO;
	if (n > 0 && t[n - 1] == '\n')
		t[--n] = '\0';
	if (n > 0 && t[n - 1] == '\r')
		t[--n] = '\0';
	if (n >= len || strlen(t) != n) {
		hp_seterr(err, HP_EINVAL, "credential %s: too long or has a NUL "
		    "byte", path);
		sodium_memzero(t, n);
		free(t);
		return HP_EINVAL;
	}
	dst = name[0] == 'i' ? secrets(c)->imap_password :
	    secrets(c)->smtp_password;
	memcpy(dst, t, n + 1);
	sodium_memzero(t, n);
	free(t);
	return HP_OK;
}

int
config_load(struct config *c, const char *path, struct hp_error *err)
{
	char *text, *line, *next, *copy, dir[CONFIG_PATH_MAX], why[128];
	size_t textlen;
	int lineno = 0, rc = HP_OK;
	struct stat fsb;

	/* Opened once, no symlink followed; every check below is on what
	 * was read (fsb is fstat of that descriptor). */
	if ((text = util_read_file_nofollow(path, &fsb, &textlen, err)) ==
	    NULL)
		return HP_EIO;
	if ((fsb.st_mode & 022) != 0 || (fsb.st_uid != geteuid() &&
	    fsb.st_uid != 0)) {
		hp_seterr(err, HP_EINVAL, "%s: %s (mode %03o, uid %u): "
		    "refusing a configuration another user could change; "
		    "chmod go-w %s and chown it to the user running hexpost",
		    path, (fsb.st_mode & 022) ? "writable by others" :
		    "owned by another user", (unsigned)(fsb.st_mode & 0777),
		    (unsigned)fsb.st_uid, path);
		sodium_memzero(text, textlen);
		free(text);
		return HP_EINVAL;
	}
	copy = xstrdup(path);
	strlcpy_(dir, dirname(copy), sizeof dir);
	free(copy);
	{
		char dd[CONFIG_PATH_MAX];
		int ddline;

		config_find_datadir(text, dd, sizeof dd, &ddline);
		if (ddline > 0 && (dd[0] != '/' || strlen(dd) >
		    CONFIG_PATH_MAX - 64 || !value_clean(dd, false))) {
			hp_seterr(err, HP_EINVAL, "%s:%d: datadir must be an "
			    "absolute path of at most %d bytes, without control "
			    "characters", path, ddline, CONFIG_PATH_MAX - 64);
			sodium_memzero(text, textlen);
			free(text);
			memset(c, 0, sizeof *c);
			return HP_EINVAL;
		}
		if (ddline > 0)
			strlcpy_(dir, dd, sizeof dir);
	}
	config_defaults(c, dir);
	strlcpy_(c->path, path, sizeof c->path);
	for (line = text; line != NULL && rc == HP_OK; line = next) {
		char *eq, *k, *v, *end;

		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		/* A password is taken whole, '#' and all; elsewhere '#'
		 * starts a comment. */
		if ((end = strchr(line, '#')) != NULL &&
		    !config_secret_line(line))
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
		if (!value_clean(v, false)) {
			hp_seterr(err, HP_EINVAL, "%s:%d: %s: control characters "
			    "in the value", path, lineno, k);
			rc = HP_EINVAL;
			break;
		}
		if (strcmp(k, "datadir") == 0) {
			/* Read before the other keys (config_find_datadir). */
		} else if (strcmp(k, "database") == 0 ||
		    strcmp(k, "mailbox") == 0 || (strcmp(k, "outbox") == 0 &&
		    strncmp(v, "smtp://", 7) != 0 && strncmp(v, "smtps://", 8) !=
		    0) || strcmp(k, "tls_ca_file") == 0 ||
		    strcmp(k, "server_key") == 0 || strcmp(k, "server_pub") == 0) {
			char *dst = k[0] == 'd' ? c->database : k[0] == 'm' ?
			    c->mailbox : k[0] == 'o' ? c->outbox : k[0] == 't' ?
			    c->tls_ca_file : k[7] == 'k' ? c->server_key :
			    c->server_pub;

			if (!set_path(c, dst, CONFIG_PATH_MAX, v)) {
				hp_seterr(err, HP_EINVAL, "%s:%d: %s: expected a "
				    "path of at most %d bytes", path, lineno, k,
				    CONFIG_PATH_MAX - 1);
				rc = HP_EINVAL;
				break;
			}
		} else if (strcmp(k, "outbox") == 0 && (strncmp(v, "smtp://", 7) ==
		    0 || strncmp(v, "smtps://", 8) == 0)) {
			if (!mail_url_ok(v, "smtp://", "smtps://", false, why,
			    sizeof why)) {
				hp_seterr(err, HP_EINVAL, "%s:%d: outbox: %s",
				    path, lineno, why);
				rc = HP_EINVAL;
				break;
			}
			strlcpy_(c->outbox, v, sizeof c->outbox);
		} else if (strcmp(k, "imap") == 0) {
			if (!mail_url_ok(v, "imap://", "imaps://", true, why,
			    sizeof why)) {
				hp_seterr(err, HP_EINVAL, "%s:%d: imap: %s", path,
				    lineno, why);
				rc = HP_EINVAL;
				break;
			}
			if (c->nimap == CONFIG_MAX_IMAP ||
			    strlen(v) >= CONFIG_PATH_MAX) {
				hp_seterr(err, HP_EINVAL, "%s:%d: at most %d imap "
				    "mailboxes", path, lineno, CONFIG_MAX_IMAP);
				rc = HP_EINVAL;
				break;
			}
			strlcpy_(c->imap[c->nimap++], v, CONFIG_PATH_MAX);
		} else if (strcmp(k, "imap_user") == 0 ||
		    strcmp(k, "smtp_user") == 0) {
			if (*v == '\0' || strlen(v) >= sizeof c->imap_user) {
				hp_seterr(err, HP_EINVAL, "%s:%d: %s must be 1 to "
				    "%zu bytes", path, lineno, k,
				    sizeof c->imap_user - 1);
				rc = HP_EINVAL;
				break;
			}
			strlcpy_(k[0] == 'i' ? c->imap_user : c->smtp_user, v,
			    sizeof c->imap_user);
		} else if (strcmp(k, "imap_password") == 0 ||
		    strcmp(k, "smtp_password") == 0) {
			if ((fsb.st_mode & 077) != 0 ||
			    fsb.st_uid != geteuid()) {
				hp_seterr(err, HP_EINVAL, "%s:%d: %s in a file "
				    "others can read (mode %03o, uid %u): chmod 600 "
				    "%s and own it, or set HEXPOST_%s_PASSWORD or a "
				    "systemd credential instead", path, lineno,
				    k, (unsigned)(fsb.st_mode & 0777),
				    (unsigned)fsb.st_uid, path,
				    k[0] == 'i' ? "IMAP" : "SMTP");
				rc = HP_EINVAL;
				break;
			}
			if (strlen(v) >= sizeof c->secrets->imap_password) {
				hp_seterr(err, HP_EINVAL, "%s:%d: %s too long", path,
				    lineno, k);
				rc = HP_EINVAL;
				break;
			}
			strlcpy_(k[0] == 'i' ? secrets(c)->imap_password :
			    secrets(c)->smtp_password, v,
			    sizeof c->secrets->imap_password);
		} else if (strcmp(k, "imap_starttls") == 0 ||
		    strcmp(k, "smtp_starttls") == 0) {
			int t;

			if (strcmp(v, "required") == 0)
				t = CONFIG_TLS_REQUIRED;
			else if (strcmp(v, "off") == 0)
				t = CONFIG_TLS_OFF;
			else {
				hp_seterr(err, HP_EINVAL, "%s:%d: %s must be "
				    "'required' or 'off'", path, lineno, k);
				rc = HP_EINVAL;
				break;
			}
			if (k[0] == 'i')
				c->imap_starttls = t;
			else
				c->smtp_starttls = t;
		} else if (strcmp(k, "imap_after") == 0) {
			const char *arg = strchr(v, ' ');

			while (arg != NULL && *arg == ' ')
				arg++;
			if (strcmp(v, "seen") == 0) {
				c->imap_after = CONFIG_AFTER_SEEN;
				c->imap_after_arg[0] = '\0';
			} else if (strncmp(v, "keyword ", 8) == 0 && arg != NULL &&
			    imap_atom_ok(arg) && arg[0] != '\\') {
				c->imap_after = CONFIG_AFTER_KEYWORD;
				strlcpy_(c->imap_after_arg, arg,
				    sizeof c->imap_after_arg);
			} else if (strncmp(v, "move ", 5) == 0 && arg != NULL &&
			    *arg != '\0' && strlen(arg) < sizeof c->imap_after_arg &&
			    strpbrk(arg, "\"\\\t") == NULL &&
			    value_clean(arg, true)) {
				c->imap_after = CONFIG_AFTER_MOVE;
				strlcpy_(c->imap_after_arg, arg,
				    sizeof c->imap_after_arg);
			} else {
				hp_seterr(err, HP_EINVAL, "%s:%d: imap_after must "
				    "be 'seen', 'keyword NAME' or 'move FOLDER'",
				    path, lineno);
				rc = HP_EINVAL;
				break;
			}
		} else if (strcmp(k, "imap_batch") == 0 ||
		    strcmp(k, "mail_timeout") == 0 ||
		    strcmp(k, "mail_budget") == 0) {
			char *ep;
			long n = strtol(v, &ep, 10);

			if (*v == '\0' || *ep != '\0' || n < 1 || n > 10000) {
				hp_seterr(err, HP_EINVAL, "%s:%d: %s must be a "
				    "number from 1 to 10000", path, lineno, k);
				rc = HP_EINVAL;
				break;
			}
			if (k[0] == 'i')
				c->imap_batch = (int)n;
			else if (k[5] == 't')
				c->mail_timeout = (int)n;
			else
				c->mail_budget = (int)n;
		}
		else if (strcmp(k, "stranger_replies") == 0) {
			if (strcmp(v, "none") == 0 || strcmp(v, "daily") == 0)
				c->stranger_daily = v[0] == 'd';
			else {
				hp_seterr(err, HP_EINVAL, "%s:%d: stranger_replies "
				    "must be 'none' or 'daily'", path, lineno);
				rc = HP_EINVAL;
				break;
			}
		} else if (strcmp(k, "from") == 0) {
			if (!address_ok(v) || strlen(v) >= sizeof c->from) {
				hp_seterr(err, HP_EINVAL, "%s:%d: from must be a "
				    "bare address like hexpost@club.example (ASCII, "
				    "no name or <>)", path, lineno);
				rc = HP_EINVAL;
				break;
			}
			strlcpy_(c->from, v, sizeof c->from);
		} else if (strcmp(k, "domain") == 0) {
			if (!domain_ok(v)) {
				hp_seterr(err, HP_EINVAL, "%s:%d: domain must be a "
				    "domain name like club.example (letters, digits, "
				    "'-' and '.')", path, lineno);
				rc = HP_EINVAL;
				break;
			}
			strlcpy_(c->domain, v, sizeof c->domain);
		} else if (strcmp(k, "poll_interval") == 0 ||
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
		} else if (strcmp(k, "web_dir") == 0) {
			if (!set_path(c, c->web_dir, sizeof c->web_dir, v)) {
				hp_seterr(err, HP_EINVAL, "%s:%d: web_dir is "
				    "empty or too long", path, lineno);
				rc = HP_EINVAL;
				break;
			}
		} else if (config_daemon_key(c, k, v, &rc, why, sizeof why)) {
			if (rc != HP_OK)
				hp_seterr(err, rc, "%s:%d: %s", path, lineno, why);
		} else {
			hp_seterr(err, HP_EINVAL, "%s:%d: unknown key '%s'", path,
			    lineno, k);
			rc = HP_EINVAL;
		}
	}
	sodium_memzero(text, textlen);
	free(text);
	/* systemd credentials (LoadCredential=imap_password:...) over the
	 * file's, the environment over both. */
	if (rc == HP_OK && (rc = config_credential(c, "imap_password",
	    err)) == HP_OK)
		rc = config_credential(c, "smtp_password", err);
	if (rc == HP_OK) {
		const char *e;

		if ((e = getenv("HEXPOST_IMAP_PASSWORD")) != NULL && *e != '\0')
			strlcpy_(secrets(c)->imap_password, e,
			    sizeof c->secrets->imap_password);
		if ((e = getenv("HEXPOST_SMTP_PASSWORD")) != NULL && *e != '\0')
			strlcpy_(secrets(c)->smtp_password, e,
			    sizeof c->secrets->smtp_password);
	} else
		config_free(c);
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
	    "# A run starts as soon as mail arrives (IMAP IDLE, or inotify on\n"
	    "# the Maildir inbox): mail_wait = watch; or only every\n"
	    "# poll_interval seconds: mail_wait = poll.\n"
	    "#mail_wait = watch\n"
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
	    "missing = %s\n"
	    "# Retention: delivered mail rows, the inbox's cur/ and the outbox\n"
	    "# Maildir's files older than this many days are removed (0: kept\n"
	    "# for ever); see 'hexpost storage'.\n"
	    "#retention_days = 90\n"
	    "# A real mail server (man hexpost.conf): IMAP mailboxes fetched into\n"
	    "# the mailbox Maildir, and SMTP submission for the outbox. Passwords\n"
	    "# only with this file mode 0600, or in HEXPOST_IMAP_PASSWORD and\n"
	    "# HEXPOST_SMTP_PASSWORD.\n"
	    "#imap = imaps://mail.club.example/INBOX\n"
	    "#imap_user = hexpost@club.example\n"
	    "#imap_password = secret\n"
	    "#outbox = smtp://mail.club.example:587\n"
	    "#smtp_user = hexpost@club.example\n"
	    "#smtp_password = secret\n"
	    "# The campaign web archive, rewritten after each pass (static\n"
	    "# HTML; serve the directory with any web server).\n"
	    "#web_dir = web\n",
	    c->datadir, c->database, c->mailbox, c->outbox, c->from, c->domain,
	    c->server_key, c->server_pub, c->poll_interval, c->retry_base,
	    c->retry_max, c->log_syslog ? "syslog" : "stderr",
	    log_strlevel(c->log_level), c->deadline_hours, c->remind_hours,
	    c->missing);
	rc = util_write_file_atomic(path, b.buf, b.len, 0600, err);
	sbuf_free(&b);
	return rc;
}
