/* fetch_imap: mail in over IMAP (see include/fetch_imap.h). */
#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fetch_imap.h"
#include "maildir.h"
#include "mime.h"

/* Largest message fetched whole; a larger one is fetched cut at this size
 * (intake refuses it for its size, which it still is). */
#define IMAP_MAX_FETCH (4 * (size_t)MIME_MAX_MESSAGE)
#define IMAP_MAX_RESPONSE (IMAP_MAX_FETCH + 65536)
#define IMAP_BATCH_BYTES (32u << 20)   /* bytes a FETCH, at most */
#define IMAP_MARK_CHUNK 200            /* UIDs in one STORE/MOVE */
#define IMAP_DEPTH 16                  /* nested lists in a response */

static const char *state_names[] = { "disconnected", "authenticated",
	"selected", "logout", "broken" };

const char *
fetch_imap_strstate(enum imap_state s)
{
	return (unsigned)s < 5 ? state_names[s] : "unknown";
}

/* ---- the response parser ---------------------------------------------- */

struct cur {
	const unsigned char *p, *end;
	const unsigned char *base;
};

/* Find the end of the response at buf: its last line's LF, after any
 * literals. 1 found (*end one past it), 0 incomplete, -1 too long. */
static int
frame(const unsigned char *buf, size_t len, size_t max, size_t *end)
{
	size_t pos = 0;

	for (;;) {
		const unsigned char *nl = pos < len ? memchr(buf + pos, '\n',
		    len - pos) : NULL;
		size_t e, i, n = 0;

		if (nl == NULL)
			return len > max ? -1 : 0;
		e = (size_t)(nl - buf);
		i = e;
		if (i > pos && buf[i - 1] == '\r')
			i--;
		if (i > pos && buf[i - 1] == '}') {
			size_t j = i - 1, digits = 0;

			if (j > pos && buf[j - 1] == '+')
				j--;
			while (j > pos && isdigit(buf[j - 1]) && digits < 12) {
				j--;
				digits++;
			}
			if (digits > 0 && j > pos && buf[j - 1] == '{') {
				for (; digits > 0; digits--, j++)
					n = n * 10 + (size_t)(buf[j] - '0');
				if (n > max)
					return -1;
				pos = e + 1 + n;
				if (pos > max)
					return -1;
				if (pos > len)
					return 0;
				continue;
			}
		}
		*end = e + 1;
		return e + 1 > max ? -1 : 1;
	}
}

/* Is the cursor at the end of the line (or of the buffer)? */
static bool
at_end(const struct cur *c)
{
	return c->p >= c->end || *c->p == '\r' || *c->p == '\n';
}

/* Consume ch if it is next; true if it was. */
static bool
eat(struct cur *c, char ch)
{
	if (c->p < c->end && *c->p == (unsigned char)ch) {
		c->p++;
		return true;
	}
	return false;
}

/* An atom: anything up to a space, bracket or parenthesis. */
static size_t
atom(struct cur *c, char *out, size_t outlen)
{
	size_t n = 0;

	while (c->p < c->end && *c->p > ' ' && *c->p < 0x7f &&
	    strchr("()[]{\"", *c->p) == NULL) {
		if (n + 1 < outlen)
			out[n] = (char)*c->p;
		n++;
		c->p++;
	}
	if (outlen > 0)
		out[n < outlen ? n : outlen - 1] = '\0';
	return n;
}

/* A decimal number of up to 19 digits into *v; false if none or longer. */
static bool
number(struct cur *c, uint64_t *v)
{
	int digits = 0;

	*v = 0;
	while (c->p < c->end && isdigit(*c->p) && digits < 19) {
		*v = *v * 10 + (uint64_t)(*c->p - '0');
		c->p++;
		digits++;
	}
	return digits > 0 && (c->p >= c->end || !isdigit(*c->p));
}

/* A string: quoted, a literal {N}CRLF + N bytes, or NIL (*s NULL). The
 * quoted form is returned with its escapes in place (bodies never come
 * quoted from a real server; the text is only logged). */
static bool
string(struct cur *c, const unsigned char **s, size_t *n)
{
	uint64_t len;

	*s = NULL;
	*n = 0;
	if (eat(c, '"')) {
		const unsigned char *b = c->p;

		while (c->p < c->end && *c->p != '"') {
			if (*c->p == '\\' && c->p + 1 < c->end)
				c->p++;
			if (*c->p == '\r' || *c->p == '\n')
				return false;
			c->p++;
		}
		if (c->p >= c->end)
			return false;
		*s = b;
		*n = (size_t)(c->p - b);
		c->p++;
		return true;
	}
	if (eat(c, '{')) {
		if (!number(c, &len))
			return false;
		eat(c, '+');
		if (!eat(c, '}'))
			return false;
		eat(c, '\r');
		if (!eat(c, '\n') || len > (uint64_t)(c->end - c->p))
			return false;
		*s = c->p;
		*n = (size_t)len;
		c->p += len;
		return true;
	}
	if (c->end - c->p >= 3 && strncasecmp((const char *)c->p, "NIL", 3) ==
	    0) {
		c->p += 3;
		return true;
	}
	return false;
}

/* Skip one value of any kind: list, string, number or atom (an atom may
 * carry a [section] and a <partial>). */
static bool
skip_value(struct cur *c, int depth)
{
	const unsigned char *s;
	size_t n;
	char a[2];

	if (depth > IMAP_DEPTH || c->p >= c->end)
		return false;
	if (eat(c, '(')) {
		while (!eat(c, ')')) {
			if (c->p >= c->end || !skip_value(c, depth + 1))
				return false;
			eat(c, ' ');
		}
		return true;
	}
	if (*c->p == '"' || *c->p == '{')
		return string(c, &s, &n);
	if (atom(c, a, sizeof a) == 0 && (c->p >= c->end || *c->p != '['))
		return false;
	if (eat(c, '[')) {
		while (c->p < c->end && *c->p != ']' && *c->p != '\n')
			c->p++;
		if (!eat(c, ']'))
			return false;
		atom(c, a, sizeof a);
	}
	return true;
}

/* resp-text: an optional [CODE args] then text. */
static void
resp_text(struct cur *c, struct imap_resp *r)
{
	size_t n = 0;

	eat(c, ' ');
	if (eat(c, '[')) {
		atom(c, r->code, sizeof r->code);
		if (eat(c, ' ')) {
			const unsigned char *save = c->p;

			if (strcasecmp(r->code, "CAPABILITY") == 0) {
				char cap[64];

				while (c->p < c->end && *c->p != ']' &&
				    !at_end(c)) {
					if (atom(c, cap, sizeof cap) == 0) {
						c->p++;
						continue;
					}
					if (strcasecmp(cap, "MOVE") == 0)
						r->caps |= IMAP_CAP_MOVE;
					else if (strcasecmp(cap, "UIDPLUS") == 0)
						r->caps |= IMAP_CAP_UIDPLUS;
					else if (strcasecmp(cap, "IDLE") == 0)
						r->caps |= IMAP_CAP_IDLE;
					eat(c, ' ');
				}
			} else if (!number(c, &r->code_num))
				c->p = save;
		}
		while (c->p < c->end && *c->p != ']' && !at_end(c))
			c->p++;
		eat(c, ']');
		eat(c, ' ');
	}
	while (!at_end(c)) {
		if (n + 1 < sizeof r->text)
			r->text[n++] = *c->p >= ' ' && *c->p < 0x7f ?
			    (char)*c->p : '?';
		c->p++;
	}
	r->text[n] = '\0';
}

/* The parenthesised list of a FETCH response. */
static bool
fetch_items(struct cur *c, struct imap_resp *r)
{
	char name[64];
	uint64_t v;

	if (!eat(c, '('))
		return false;
	while (!eat(c, ')')) {
		if (atom(c, name, sizeof name) == 0)
			return false;
		if (strcasecmp(name, "BODY") == 0 && eat(c, '[')) {
			/* BODY[] or BODY[]<origin>: the whole message. */
			bool whole = eat(c, ']');

			if (!whole) {
				while (c->p < c->end && *c->p != ']' &&
				    *c->p != '\n')
					c->p++;
				if (!eat(c, ']'))
					return false;
			}
			if (eat(c, '<') && (!number(c, &v) || !eat(c, '>')))
				return false;
			if (!eat(c, ' '))
				return false;
			if (whole) {
				if (!string(c, &r->body, &r->body_len))
					return false;
				r->has_body = r->body != NULL;
			} else if (!skip_value(c, 1))
				return false;
		} else if (!eat(c, ' '))
			return false;
		else if (strcasecmp(name, "UID") == 0) {
			if (!number(c, &v) || v == 0 || v > UINT32_MAX)
				return false;
			r->uid = (uint32_t)v;
		} else if (strcasecmp(name, "RFC822.SIZE") == 0) {
			if (!number(c, &v))
				return false;
			r->has_size = true;
			r->size = v;
		} else if (strcasecmp(name, "RFC822") == 0) {
			if (!string(c, &r->body, &r->body_len))
				return false;
			r->has_body = r->body != NULL;
		} else if (!skip_value(c, 1))
			return false;
		if (!eat(c, ' ') && (c->p >= c->end || *c->p != ')'))
			return false;
	}
	return true;
}

long
fetch_imap_parse(const unsigned char *buf, size_t len, size_t max,
    struct imap_resp *r, struct hp_error *err)
{
	struct cur c;
	size_t end;
	char word[64];
	uint64_t v;
	int f;

	memset(r, 0, sizeof *r);
	if ((f = frame(buf, len, max, &end)) <= 0) {
		if (f < 0)
			hp_seterr(err, HP_EINVAL, "IMAP response longer than "
			    "%zu bytes", max);
		return f;
	}
	c.base = c.p = buf;
	c.end = buf + end;
	if (eat(&c, '+')) {
		r->type = IMAP_R_CONTINUE;
		resp_text(&c, r);
		return (long)end;
	}
	if (eat(&c, '*')) {
		if (!eat(&c, ' '))
			goto bad;
		if (c.p < c.end && isdigit(*c.p)) {
			if (!number(&c, &v) || v > UINT32_MAX || !eat(&c, ' '))
				goto bad;
			atom(&c, word, sizeof word);
			if (strcasecmp(word, "FETCH") != 0) {
				r->type = IMAP_R_OTHER;
				return (long)end;
			}
			r->type = IMAP_R_FETCH;
			r->seq = (uint32_t)v;
			if (!eat(&c, ' ') || !fetch_items(&c, r))
				goto bad;
			eat(&c, '\r');
			if (!eat(&c, '\n'))
				goto bad;
			return (long)end;
		}
		atom(&c, word, sizeof word);
		if (strcasecmp(word, "CAPABILITY") == 0) {
			char cap[64];

			r->type = IMAP_R_CAPABILITY;
			while (eat(&c, ' '))
				if (atom(&c, cap, sizeof cap) > 0) {
					if (strcasecmp(cap, "MOVE") == 0)
						r->caps |= IMAP_CAP_MOVE;
					else if (strcasecmp(cap, "UIDPLUS") == 0)
						r->caps |= IMAP_CAP_UIDPLUS;
					else if (strcasecmp(cap, "IDLE") == 0)
						r->caps |= IMAP_CAP_IDLE;
				}
			return (long)end;
		}
		r->type = IMAP_R_STATUS;
		if (strcasecmp(word, "OK") == 0)
			r->status = IMAP_ST_OK;
		else if (strcasecmp(word, "NO") == 0)
			r->status = IMAP_ST_NO;
		else if (strcasecmp(word, "BAD") == 0)
			r->status = IMAP_ST_BAD;
		else if (strcasecmp(word, "BYE") == 0)
			r->status = IMAP_ST_BYE;
		else if (strcasecmp(word, "PREAUTH") == 0)
			r->status = IMAP_ST_PREAUTH;
		else {
			r->type = IMAP_R_OTHER;
			return (long)end;
		}
		resp_text(&c, r);
		return (long)end;
	}
	if (atom(&c, r->tag, sizeof r->tag) == 0 ||
	    strlen(r->tag) >= sizeof r->tag - 1 || !eat(&c, ' '))
		goto bad;
	atom(&c, word, sizeof word);
	r->type = IMAP_R_TAGGED;
	if (strcasecmp(word, "OK") == 0)
		r->status = IMAP_ST_OK;
	else if (strcasecmp(word, "NO") == 0)
		r->status = IMAP_ST_NO;
	else if (strcasecmp(word, "BAD") == 0)
		r->status = IMAP_ST_BAD;
	else
		goto bad;
	resp_text(&c, r);
	return (long)end;
bad:
	hp_seterr(err, HP_EINVAL, "malformed IMAP response near byte %zu",
	    (size_t)(c.p - buf));
	return -1;
}

/* ---- the session ------------------------------------------------------ */

struct mailbox_url {
	char base[CONFIG_PATH_MAX];   /* scheme://host[:port]/ */
	char user[256];               /* from the URL, or "" */
	char name[CONFIG_PATH_MAX];   /* the mailbox, %-decoded */
	bool tls;                     /* imaps:// */
};

struct imap_sess {
	CURL *curl;
	curl_socket_t fd;
	enum imap_state state;
	const char *where;            /* the mailbox URL, for messages */
	int timeout_ms;               /* without progress */
	int budget_s;                 /* mail_budget: the whole session */
	long long deadline_ms;        /* monotonic end of the session */
	unsigned char *buf;
	size_t len, cap, off;
	unsigned tagn;
	unsigned caps;
	uint64_t uidvalidity;
	uint64_t uidnext;
	char errbuf[CURL_ERROR_SIZE];
};

/* Split an imap[s]://[user@]host[:port]/mailbox URL (checked by config). */
static int
url_split(const char *url, struct mailbox_url *u, struct hp_error *err)
{
	const char *rest, *slash, *at, *p;
	size_t n = 0;

	memset(u, 0, sizeof *u);
	u->tls = strncmp(url, "imaps://", 8) == 0;
	rest = url + (u->tls ? 8 : 7);
	slash = strchr(rest, '/');
	at = strchr(rest, '@');
	if (at != NULL && (slash == NULL || at < slash)) {
		if ((size_t)(at - rest) >= sizeof u->user)
			goto bad;
		memcpy(u->user, rest, (size_t)(at - rest));
		rest = at + 1;
	}
	if (slash == NULL)
		slash = rest + strlen(rest);
	if ((size_t)(slash - rest) + 16 >= sizeof u->base)
		goto bad;
	snprintf(u->base, sizeof u->base, "%s%.*s/", u->tls ? "imaps://" :
	    "imap://", (int)(slash - rest), rest);
	p = *slash == '/' ? slash + 1 : slash;
	if (*p == '\0')
		p = "INBOX";
	for (; *p != '\0' && *p != ';' && *p != '?'; p++) {
		int ch = (unsigned char)*p;

		if (*p == '%' && isxdigit((unsigned char)p[1]) &&
		    isxdigit((unsigned char)p[2])) {
			char hex[3] = { p[1], p[2], '\0' };

			ch = (int)strtol(hex, NULL, 16);
			p += 2;
		}
		if (ch < ' ' || ch >= 0x7f || ch == '"' || ch == '\\' ||
		    n + 1 >= sizeof u->name)
			goto bad;
		u->name[n++] = (char)ch;
	}
	u->name[n] = '\0';
	if (n == 0)
		goto bad;
	return HP_OK;
bad:
	hp_seterr(err, HP_EINVAL, "%s: cannot use this mailbox URL (the "
	    "mailbox name must be printable ASCII without quotes or "
	    "backslashes)", url);
	return HP_EINVAL;
}

/* Mark the session broken with a temporary failure. */
static int
broken(struct imap_sess *s, struct hp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
broken(struct imap_sess *s, struct hp_error *err, const char *fmt, ...)
{
	char msg[HP_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hp_seterr(err, HP_ESTATE, "%s: %s (session %s)", s->where, msg,
	    fetch_imap_strstate(s->state));
	s->state = IMAP_BROKEN;
	return HP_ESTATE;
}

/* Milliseconds on the monotonic clock. */
static long long
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events, up to the session's timeout without
 * progress and never past the session's deadline (mail_budget): a server
 * that trickles a byte now and then cannot hold the pass. */
static int
wait_fd(struct imap_sess *s, short events, struct hp_error *err)
{
	struct pollfd pfd = { .fd = s->fd, .events = events };
	long long left = s->deadline_ms - mono_ms();
	int r, t = s->timeout_ms;

	if (left <= 0)
		return broken(s, err, "session over its budget of %d s "
		    "(mail_budget)", s->budget_s);
	if (left < t)
		t = (int)left;
	do
		r = poll(&pfd, 1, t);
	while (r == -1 && errno == EINTR);
	if (r == 0 && t < s->timeout_ms)
		return broken(s, err, "session over its budget of %d s "
		    "(mail_budget)", s->budget_s);
	if (r == 0)
		return broken(s, err, "no answer for %d s", s->timeout_ms /
		    1000);
	if (r == -1)
		return broken(s, err, "poll: %s", strerror(errno));
	return HP_OK;
}

/* Send all of data on the session's connection, waiting as needed. */
static int
sess_send(struct imap_sess *s, const char *data, size_t len,
    struct hp_error *err)
{
	size_t off = 0, n;
	CURLcode cc;

	while (off < len) {
		cc = curl_easy_send(s->curl, data + off, len - off, &n);
		if (cc == CURLE_AGAIN) {
			if (wait_fd(s, POLLOUT, err) != HP_OK)
				return HP_ESTATE;
			continue;
		}
		if (cc != CURLE_OK)
			return broken(s, err, "send: %s",
			    curl_easy_strerror(cc));
		off += n;
	}
	return HP_OK;
}

/* Read more from the server into the buffer. */
static int
sess_fill(struct imap_sess *s, struct hp_error *err)
{
	size_t n;
	CURLcode cc;

	if (s->off > 0 && (s->off == s->len || s->off > s->cap / 2)) {
		memmove(s->buf, s->buf + s->off, s->len - s->off);
		s->len -= s->off;
		s->off = 0;
	}
	if (s->cap - s->len < 65536) {
		s->cap = s->cap == 0 ? 262144 : s->cap * 2;
		s->buf = xrealloc(s->buf, s->cap);
	}
	for (;;) {
		cc = curl_easy_recv(s->curl, s->buf + s->len, s->cap - s->len,
		    &n);
		if (cc == CURLE_AGAIN) {
			if (wait_fd(s, POLLIN, err) != HP_OK)
				return HP_ESTATE;
			continue;
		}
		if (cc != CURLE_OK)
			return broken(s, err, "receive: %s",
			    curl_easy_strerror(cc));
		if (n == 0)
			return broken(s, err, "the server closed the "
			    "connection");
		s->len += n;
		return HP_OK;
	}
}

/* Called for each untagged response of a command; returns HP_OK or an
 * error that ends the command once its tagged response has come. */
typedef int (*untagged_fn)(struct imap_sess *, const struct imap_resp *,
    void *, struct hp_error *);

/* Send one command and read up to its tagged response. HP_OK on OK;
 * HP_EINVAL when the server says NO or BAD (the session stays usable);
 * HP_ESTATE when the connection failed (the session is broken). */
static int
sess_cmd(struct imap_sess *s, untagged_fn fn, void *arg,
    struct hp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
sess_cmd(struct imap_sess *s, untagged_fn fn, void *arg,
    struct hp_error *err, const char *fmt, ...)
{
	struct hp_error ferr = { 0, "" };
	struct imap_resp r;
	struct sbuf cmd;
	char tag[16], verb[32], *line;
	va_list ap;
	int rc, frc = HP_OK;
	long n;

	if (s->state == IMAP_BROKEN || s->state == IMAP_DISCONNECTED)
		return broken(s, err, "not connected");
	snprintf(tag, sizeof tag, "h%u", ++s->tagn);
	sbuf_init(&cmd);
	sbuf_printf(&cmd, "%s ", tag);
	/* Whole, however long: a UID set cut short would skip messages. */
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sbuf_free(&cmd);
		return broken(s, err, "cannot format a command");
	}
	line = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(line, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sbuf_puts(&cmd, line);
	verb[0] = '\0';
	sscanf(line, "%31s", verb);
	if (strcasecmp(verb, "UID") == 0)
		sscanf(line, "%*s %31s", verb);
	free(line);
	sbuf_puts(&cmd, "\r\n");
	rc = sess_send(s, cmd.buf, cmd.len, err);
	sbuf_free(&cmd);
	if (rc != HP_OK)
		return rc;
	for (;;) {
		n = fetch_imap_parse(s->buf + s->off, s->len - s->off,
		    IMAP_MAX_RESPONSE, &r, &ferr);
		if (n < 0)
			return broken(s, err, "%s", ferr.msg);
		if (n == 0) {
			if ((rc = sess_fill(s, err)) != HP_OK)
				return rc;
			continue;
		}
		s->off += (size_t)n;
		s->caps |= r.caps;
		if (r.type == IMAP_R_TAGGED) {
			if (strcmp(r.tag, tag) != 0)
				continue;  /* not ours: ignore */
			if (r.status != IMAP_ST_OK) {
				hp_seterr(err, HP_EINVAL, "%s: %s refused: %s",
				    s->where, verb, r.text);
				return HP_EINVAL;
			}
			if (frc != HP_OK)
				*err = ferr;
			return frc;
		}
		if (r.type == IMAP_R_STATUS && r.status == IMAP_ST_BYE &&
		    strcasecmp(verb, "LOGOUT") != 0)
			return broken(s, err, "the server said goodbye: %s",
			    r.text);
		if (r.type == IMAP_R_STATUS && strcasecmp(r.code,
		    "UIDVALIDITY") == 0)
			s->uidvalidity = r.code_num;
		if (r.type == IMAP_R_STATUS && strcasecmp(r.code, "UIDNEXT") ==
		    0)
			s->uidnext = r.code_num;
		if (fn != NULL && frc == HP_OK)
			frc = fn(s, &r, arg, &ferr);
	}
}

/* Connect, secure and log in (all by libcurl), then ask the capabilities. */
static int
sess_open(struct imap_sess *s, const struct config *cfg, const char *where,
    const struct mailbox_url *u, struct hp_error *err)
{
	const char *user = u->user[0] ? u->user : cfg->imap_user;
	curl_socket_t fd;
	CURLcode cc;

	memset(s, 0, sizeof *s);
	s->where = where;
	s->state = IMAP_DISCONNECTED;
	s->timeout_ms = cfg->mail_timeout * 1000;
	s->budget_s = cfg->mail_budget;
	s->deadline_ms = mono_ms() + (long long)cfg->mail_budget * 1000;
	if ((s->curl = curl_easy_init()) == NULL) {
		hp_seterr(err, HP_ENOMEM, "curl_easy_init failed");
		return HP_ENOMEM;
	}
	curl_easy_setopt(s->curl, CURLOPT_URL, u->base);
	curl_easy_setopt(s->curl, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT, (long)cfg->
	    mail_timeout);
	curl_easy_setopt(s->curl, CURLOPT_TIMEOUT, (long)cfg->mail_timeout);
	curl_easy_setopt(s->curl, CURLOPT_PROTOCOLS_STR, "imap,imaps");
	curl_easy_setopt(s->curl, CURLOPT_SSLVERSION,
	    (long)CURL_SSLVERSION_TLSv1_2);
	if (!config_cleartext_ok(u->base, u->tls || cfg->imap_starttls !=
	    CONFIG_TLS_OFF, cfg->secrets != NULL &&
	    cfg->secrets->imap_password[0] != '\0', s->errbuf,
	    sizeof s->errbuf)) {
		hp_seterr(err, HP_ESTATE, "%s: %s", where, s->errbuf);
		return HP_ESTATE;
	}
	if (!u->tls)
		curl_easy_setopt(s->curl, CURLOPT_USE_SSL, (long)
		    (cfg->imap_starttls == CONFIG_TLS_OFF ? CURLUSESSL_NONE :
		    CURLUSESSL_ALL));
	if (cfg->tls_ca_file[0] != '\0')
		curl_easy_setopt(s->curl, CURLOPT_CAINFO, cfg->tls_ca_file);
	if (user[0] != '\0')
		curl_easy_setopt(s->curl, CURLOPT_USERNAME, user);
	if (cfg->secrets != NULL && cfg->secrets->imap_password[0] != '\0')
		curl_easy_setopt(s->curl, CURLOPT_PASSWORD,
		    cfg->secrets->imap_password);
	if ((cc = curl_easy_perform(s->curl)) != CURLE_OK) {
		hp_seterr(err, HP_ESTATE, "%s: cannot log in: %s", where,
		    s->errbuf[0] ? s->errbuf : curl_easy_strerror(cc));
		return HP_ESTATE;
	}
	/* The connection libcurl made and logged in is ours from here. */
	curl_easy_setopt(s->curl, CURLOPT_PASSWORD, "");
	if (curl_easy_getinfo(s->curl, CURLINFO_ACTIVESOCKET, &fd) !=
	    CURLE_OK || fd == CURL_SOCKET_BAD) {
		hp_seterr(err, HP_ESTATE, "%s: no connection after login",
		    where);
		return HP_ESTATE;
	}
	s->fd = fd;
	s->state = IMAP_AUTHENTICATED;
	return sess_cmd(s, NULL, NULL, err, "CAPABILITY");
}

/* Log out (best effort) and release everything. */
static void
sess_close(struct imap_sess *s)
{
	struct hp_error ignore = { 0, "" };

	if (s->state == IMAP_AUTHENTICATED || s->state == IMAP_SELECTED) {
		int saved = s->timeout_ms;

		s->timeout_ms = saved < 5000 ? saved : 5000;
		s->state = IMAP_LOGOUT;
		sess_cmd(s, NULL, NULL, &ignore, "LOGOUT");
	}
	if (s->curl != NULL)
		curl_easy_cleanup(s->curl);
	free(s->buf);
	memset(s, 0, sizeof *s);
}

/* SELECT the mailbox name; a refusal breaks the session. */
static int
sess_select(struct imap_sess *s, const char *name, struct hp_error *err)
{
	int rc;

	s->uidvalidity = s->uidnext = 0;
	if ((rc = sess_cmd(s, NULL, NULL, err, "SELECT \"%s\"", name)) !=
	    HP_OK)
		return rc == HP_EINVAL ? HP_ESTATE : rc;
	if (s->uidvalidity == 0 || s->uidvalidity > UINT32_MAX)
		return broken(s, err, "SELECT gave no UIDVALIDITY");
	s->state = IMAP_SELECTED;
	return HP_OK;
}

/* ---- marking what intake took in -------------------------------------- */

/* The spool's view of a fetched message. */
enum spool_state { SPOOL_WAITING, SPOOL_DONE, SPOOL_GONE };

struct spool_name {
	char *name;      /* file name in cur/ */
	size_t hintlen;  /* length of the hint part (before ":2,") */
	bool seen;       /* flag S */
};

struct spool {
	char dir[CONFIG_PATH_MAX];
	struct spool_name *cur;   /* sorted by name */
	size_t ncur;
};

/* qsort order of spool names. */
static int
cmp_name(const void *a, const void *b)
{
	const struct spool_name *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Free the names sp owns. */
static void
spool_free(struct spool *sp)
{
	size_t i;

	for (i = 0; i < sp->ncur; i++)
		free(sp->cur[i].name);
	free(sp->cur);
	sp->cur = NULL;
	sp->ncur = 0;
}

/* List the spool's cur/ names that come from IMAP. */
static int
spool_load(struct spool *sp, const struct config *cfg, struct hp_error *err)
{
	char path[CONFIG_PATH_MAX + 8];
	struct dirent *de;
	DIR *d;
	size_t cap = 0;

	memset(sp, 0, sizeof *sp);
	if (strncmp(cfg->mailbox, "maildir:", 8) != 0) {
		hp_seterr(err, HP_EINVAL, "mailbox '%s': IMAP needs a local "
		    "maildir:DIR spool", cfg->mailbox);
		return HP_EINVAL;
	}
	strlcpy_(sp->dir, cfg->mailbox + 8, sizeof sp->dir);
	snprintf(path, sizeof path, "%s/cur", sp->dir);
	if ((d = opendir(path)) == NULL) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	while ((de = readdir(d)) != NULL) {
		const char *colon;

		if (strncmp(de->d_name, "imap.", 5) != 0 ||
		    (colon = strstr(de->d_name, ":2,")) == NULL)
			continue;
		if (sp->ncur == cap) {
			cap = cap ? cap * 2 : 64;
			sp->cur = xrealloc(sp->cur, cap * sizeof *sp->cur);
		}
		sp->cur[sp->ncur].name = xstrdup(de->d_name);
		sp->cur[sp->ncur].hintlen = (size_t)(colon - de->d_name);
		sp->cur[sp->ncur].seen = strchr(colon + 3, 'S') != NULL;
		sp->ncur++;
	}
	closedir(d);
	if (sp->ncur > 0)
		qsort(sp->cur, sp->ncur, sizeof *sp->cur, cmp_name);
	return HP_OK;
}

/* The spool file name (Maildir hint) of a fetched message, into out. */
static void
spool_hint(char *out, size_t len, int64_t mbox, uint32_t uidvalidity,
    uint32_t uid)
{
	snprintf(out, len, "imap.%" PRId64 ".%" PRIu32 ".%" PRIu32, mbox,
	    uidvalidity, uid);
}

/* Where the spooled message hint is: waiting in new/ or unflagged in cur/,
 * taken in (cur/ with S; *curname its name there), or gone. */
static enum spool_state
spool_find(const struct spool *sp, const char *hint, const char **curname)
{
	char path[CONFIG_PATH_MAX + 300];
	size_t lo = 0, hi = sp->ncur, hl = strlen(hint);

	*curname = NULL;
	snprintf(path, sizeof path, "%s/new/%s", sp->dir, hint);
	if (access(path, F_OK) == 0)
		return SPOOL_WAITING;
	/* cur/ names are hint + ":2,FLAGS"; ':' sorts after the digits and
	 * '.', so the first name >= hint is the one if any. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(sp->cur[mid].name, hint) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < sp->ncur && strncmp(sp->cur[lo].name, hint, hl) == 0;
	    lo++) {
		if (sp->cur[lo].hintlen != hl)
			continue;
		*curname = sp->cur[lo].name;
		return sp->cur[lo].seen ? SPOOL_DONE : SPOOL_WAITING;
	}
	return SPOOL_GONE;
}

struct uidlist {
	uint32_t *v;
	size_t n, cap;
};

/* Append uid to l (grown as needed; the caller frees l->v). */
static void
uid_add(struct uidlist *l, uint32_t uid)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = uid;
}

/* The UIDs v[0, n) as an IMAP sequence set ("3:7,9"); caller frees. */
static char *
uid_set(const uint32_t *v, size_t n)
{
	struct sbuf b;
	size_t i, j;

	sbuf_init(&b);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j] == v[j - 1] + 1; j++)
			;
		if (b.len > 0)
			sbuf_puts(&b, ",");
		if (j - i > 1)
			sbuf_printf(&b, "%" PRIu32 ":%" PRIu32, v[i], v[j - 1]);
		else
			sbuf_printf(&b, "%" PRIu32, v[i]);
	}
	return sbuf_steal(&b);
}

struct pending {
	struct uidlist uids;
	uint32_t uidvalidity;
};

/* store_imap_pending callback: keep the UIDs of the current UIDVALIDITY. */
static void
collect_pending(uint32_t uidvalidity, uint32_t uid, void *arg)
{
	struct pending *p = arg;

	if (uidvalidity == p->uidvalidity)
		uid_add(&p->uids, uid);
}

/* Mark on the server (of the selected mailbox mbox) every recorded message
 * intake has taken in, then remove its spool file and its record. */
static int
mark_done(struct imap_sess *s, struct store *st, const struct config *cfg,
    int64_t mbox, const struct spool *sp, struct fetch_imap_stats *stats,
    struct hp_error *err)
{
	struct pending p = { { NULL, 0, 0 }, (uint32_t)s->uidvalidity };
	struct uidlist done = { NULL, 0, 0 };
	char hint[96], path[CONFIG_PATH_MAX + 300];
	size_t i, k;
	int rc;

	if ((rc = store_imap_pending(st, mbox, collect_pending, &p, err)) !=
	    HP_OK)
		goto out;
	for (i = 0; i < p.uids.n; i++) {
		const char *curname;

		spool_hint(hint, sizeof hint, mbox, p.uidvalidity, p.uids.v[i]);
		if (spool_find(sp, hint, &curname) != SPOOL_WAITING)
			uid_add(&done, p.uids.v[i]);
	}
	for (i = 0; i < done.n; i += k) {
		char *set;

		k = done.n - i < IMAP_MARK_CHUNK ? done.n - i : IMAP_MARK_CHUNK;
		set = uid_set(done.v + i, k);
		switch (cfg->imap_after) {
		case CONFIG_AFTER_SEEN:
			rc = sess_cmd(s, NULL, NULL, err, "UID STORE %s "
			    "+FLAGS.SILENT (\\Seen)", set);
			break;
		case CONFIG_AFTER_KEYWORD:
			rc = sess_cmd(s, NULL, NULL, err, "UID STORE %s "
			    "+FLAGS.SILENT (%s)", set, cfg->imap_after_arg);
			break;
		default:
			if (s->caps & IMAP_CAP_MOVE) {
				rc = sess_cmd(s, NULL, NULL, err, "UID MOVE %s "
				    "\"%s\"", set, cfg->imap_after_arg);
				break;
			}
			/* Without MOVE: copy, then delete the originals (and
			 * expunge just them where UIDPLUS allows it). */
			rc = sess_cmd(s, NULL, NULL, err, "UID COPY %s \"%s\"",
			    set, cfg->imap_after_arg);
			if (rc == HP_OK)
				rc = sess_cmd(s, NULL, NULL, err, "UID STORE %s "
				    "+FLAGS.SILENT (\\Deleted)", set);
			if (rc == HP_OK && (s->caps & IMAP_CAP_UIDPLUS))
				rc = sess_cmd(s, NULL, NULL, err, "UID EXPUNGE "
				    "%s", set);
		}
		free(set);
		if (rc == HP_EINVAL)
			rc = HP_ESTATE;
		if (rc != HP_OK)
			goto out;
		/* Marked: now the spool files, then the records. A crash
		 * between the two marks again, which changes nothing. */
		for (size_t j = i; j < i + k; j++) {
			const char *curname;

			spool_hint(hint, sizeof hint, mbox, p.uidvalidity,
			    done.v[j]);
			if (spool_find(sp, hint, &curname) == SPOOL_DONE) {
				snprintf(path, sizeof path, "%s/cur/%s",
				    sp->dir, curname);
				if (unlink(path) == -1 && errno != ENOENT)
					log_warn("%s: %s", path,
					    strerror(errno));
			}
		}
		if ((rc = store_imap_forget(st, mbox, p.uidvalidity, done.v + i,
		    k, err)) != HP_OK)
			goto out;
		stats->marked += (int)k;
	}
	if (done.n > 0)
		log_info("%s: %zu message%s marked (%s)", s->where, done.n,
		    done.n == 1 ? "" : "s", cfg->imap_after ==
		    CONFIG_AFTER_MOVE ? "moved" : cfg->imap_after ==
		    CONFIG_AFTER_KEYWORD ? cfg->imap_after_arg : "\\Seen");
out:
	free(p.uids.v);
	free(done.v);
	return rc;
}

/* ---- fetching --------------------------------------------------------- */

struct listing {
	struct uidlist uids;
	uint64_t *sizes;
	uint32_t after;       /* only UIDs above this */
};

/* Untagged FETCH of the listing: keep each new UID (ascending) and size. */
static int
on_list(struct imap_sess *s, const struct imap_resp *r, void *arg,
    struct hp_error *err)
{
	struct listing *l = arg;

	(void)s;
	(void)err;
	if (r->type != IMAP_R_FETCH || r->uid <= l->after)
		return HP_OK;   /* "N:*" names the last message even below N */
	if (l->uids.n > 0 && r->uid <= l->uids.v[l->uids.n - 1])
		return HP_OK;
	uid_add(&l->uids, r->uid);
	l->sizes = xrealloc(l->sizes, l->uids.cap * sizeof *l->sizes);
	l->sizes[l->uids.n - 1] = r->has_size ? r->size : 0;
	return HP_OK;
}

struct batch {
	const struct spool *sp;
	int64_t mbox;
	uint32_t uidvalidity;
	uint32_t lo, hi;          /* the UIDs asked for */
	struct uidlist got;
};

/* Untagged FETCH of a batch: write the message into the spool. */
static int
on_body(struct imap_sess *s, const struct imap_resp *r, void *arg,
    struct hp_error *err)
{
	struct batch *b = arg;
	char hint[96];
	bool existed;
	int rc;

	(void)s;
	if (r->type != IMAP_R_FETCH || !r->has_body || r->uid < b->lo ||
	    r->uid > b->hi)
		return HP_OK;
	spool_hint(hint, sizeof hint, b->mbox, b->uidvalidity, r->uid);
	if ((rc = maildir_deliver(b->sp->dir, hint, r->body, r->body_len,
	    &existed, NULL, err)) != HP_OK)
		return rc;
	uid_add(&b->got, r->uid);
	return HP_OK;
}

/* Fetch UIDs v[0, n) (ascending) into the spool and record them. */
static int
fetch_batch(struct imap_sess *s, struct store *st, int64_t mbox,
    const struct spool *sp, const uint32_t *v, const uint64_t *sizes,
    size_t n, struct fetch_imap_stats *stats, struct hp_error *err)
{
	struct batch b = { sp, mbox, (uint32_t)s->uidvalidity, v[0],
	    v[n - 1], { NULL, 0, 0 } };
	char *set;
	int rc;

	set = uid_set(v, n);
	if (n == 1 && sizes[0] > IMAP_MAX_FETCH)
		rc = sess_cmd(s, on_body, &b, err, "UID FETCH %s (UID "
		    "BODY.PEEK[]<0.%zu>)", set, IMAP_MAX_FETCH);
	else
		rc = sess_cmd(s, on_body, &b, err, "UID FETCH %s (UID "
		    "BODY.PEEK[])", set);
	free(set);
	if (rc == HP_EINVAL)
		rc = HP_ESTATE;
	/* What was spooled is recorded even if the batch broke off. last_uid
	 * moves over a complete batch (messages missing from a complete
	 * answer were expunged meanwhile), or over the unbroken run of
	 * messages received first. */
	if (b.got.n > 0 || rc == HP_OK) {
		struct hp_error derr = { 0, "" };
		uint32_t last = 0;
		size_t j;
		int drc;

		if (rc == HP_OK)
			last = v[n - 1];
		else
			for (j = 0; j < b.got.n && j < n && b.got.v[j] == v[j];
			    j++)
				last = v[j];
		drc = store_imap_spooled(st, mbox, b.uidvalidity, b.got.v,
		    b.got.n, last, &derr);

		if (drc != HP_OK) {
			*err = derr;
			rc = drc;
		} else
			stats->fetched += (int)b.got.n;
	}
	free(b.got.v);
	return rc;
}

/* One mailbox: select, mark what intake took in, fetch what is new. */
static int
do_mailbox(struct store *st, const struct config *cfg, const char *url,
    bool fetch, struct fetch_imap_stats *stats, struct hp_error *err)
{
	struct mailbox_url u;
	struct imap_sess s;
	struct spool sp;
	struct listing l = { { NULL, 0, 0 }, NULL, 0 };
	int64_t mbox;
	uint32_t known_validity, last_uid;
	size_t i, k;
	int rc;

	memset(&s, 0, sizeof s);
	memset(&sp, 0, sizeof sp);
	if ((rc = url_split(url, &u, err)) != HP_OK)
		return rc;
	if ((rc = store_imap_mailbox(st, url, &mbox, &known_validity,
	    &last_uid, err)) != HP_OK)
		return rc;
	if (!fetch) {
		bool any = false;

		if ((rc = spool_load(&sp, cfg, err)) != HP_OK ||
		    (rc = store_imap_any_pending(st, mbox, &any, err)) != HP_OK ||
		    !any)
			goto out;
	}
	if ((rc = sess_open(&s, cfg, url, &u, err)) != HP_OK ||
	    (rc = sess_select(&s, u.name, err)) != HP_OK)
		goto out;
	if (known_validity != s.uidvalidity) {
		if (known_validity != 0)
			log_warn("%s: UIDVALIDITY changed from %" PRIu32 " to "
			    "%" PRIu64 ": every message is read again (those "
			    "taken in before are known by their content and "
			    "not applied twice)", url, known_validity,
			    s.uidvalidity);
		if ((rc = store_imap_reset(st, mbox, (uint32_t)s.uidvalidity,
		    err)) != HP_OK)
			goto out;
		last_uid = 0;
	}
	/* The spool is read after intake ran, so the marks are current. */
	spool_free(&sp);
	if ((rc = spool_load(&sp, cfg, err)) != HP_OK ||
	    (rc = mark_done(&s, st, cfg, mbox, &sp, stats, err)) != HP_OK ||
	    !fetch)
		goto out;
	if (s.uidnext != 0 && s.uidnext <= (uint64_t)last_uid + 1)
		goto done;   /* nothing new */
	l.after = last_uid;
	if ((rc = sess_cmd(&s, on_list, &l, err, "UID FETCH %" PRIu32 ":* "
	    "(UID RFC822.SIZE)", last_uid + 1)) != HP_OK) {
		if (rc == HP_EINVAL)
			rc = HP_ESTATE;
		goto out;
	}
	for (i = 0; i < l.uids.n; i += k) {
		uint64_t bytes = 0;

		/* A batch: up to imap_batch messages and IMAP_BATCH_BYTES,
		 * an oversized message alone. */
		for (k = 0; i + k < l.uids.n && k < (size_t)cfg->imap_batch;
		    k++) {
			uint64_t sz = l.sizes[i + k];

			if (sz > IMAP_MAX_FETCH) {
				if (k == 0)
					k = 1;
				break;
			}
			if (k > 0 && bytes + sz > IMAP_BATCH_BYTES)
				break;
			bytes += sz;
		}
		if ((rc = fetch_batch(&s, st, mbox, &sp, l.uids.v + i,
		    l.sizes + i, k, stats, err)) != HP_OK)
			goto out;
	}
	if (l.uids.n > 0)
		log_info("%s: %zu new message%s", url, l.uids.n,
		    l.uids.n == 1 ? "" : "s");
done:
	stats->mailboxes++;
out:
	sess_close(&s);
	spool_free(&sp);
	free(l.uids.v);
	free(l.sizes);
	return rc;
}

/* Every configured mailbox, each on its own; the first failure is kept. */
static int
each_mailbox(struct store *st, const struct config *cfg, bool fetch,
    struct fetch_imap_stats *stats, struct hp_error *err)
{
	int i, rc, first = HP_OK;

	memset(stats, 0, sizeof *stats);
	for (i = 0; i < cfg->nimap; i++) {
		struct hp_error merr = { 0, "" };

		if ((rc = do_mailbox(st, cfg, cfg->imap[i], fetch, stats,
		    &merr)) == HP_OK)
			continue;
		stats->failed++;
		log_warn("%s", merr.msg);
		if (first == HP_OK) {
			first = rc;
			*err = merr;
		}
		if (rc == HP_EDB)
			break;
	}
	return first;
}

int
fetch_imap_run(struct store *st, const struct config *cfg,
    struct fetch_imap_stats *stats, struct hp_error *err)
{
	return each_mailbox(st, cfg, true, stats, err);
}

int
fetch_imap_mark(struct store *st, const struct config *cfg,
    struct fetch_imap_stats *stats, struct hp_error *err)
{
	return each_mailbox(st, cfg, false, stats, err);
}

/* ---- waiting for mail (IMAP IDLE) --------------------------------------- */

/* The UIDVALIDITY and UIDNEXT fetch_imap_idle last woke for without
 * waiting. */
static uint64_t idle_woke[2];

/* Is the response r[0, n) "* N EXISTS" (a message arrived)? */
static bool
idle_exists(const unsigned char *r, size_t n)
{
	size_t i = 2;

	if (n < 10 || r[0] != '*' || r[1] != ' ' || !isdigit(r[2]))
		return false;
	while (i < n && isdigit(r[i]))
		i++;
	return n - i >= 7 && strncasecmp((const char *)r + i, " EXISTS", 7) == 0;
}

/* Read what the server sent during IDLE (the socket is readable): set
 * *arrived on EXISTS; HP_OK, or HP_ESTATE if the connection broke or the
 * server ended the IDLE (a tagged answer, BYE). */
static int
idle_read(struct imap_sess *s, const char *tag, bool *arrived,
    struct hp_error *err)
{
	struct hp_error ferr = { 0, "" };
	struct imap_resp r;
	long n;
	int rc;

	if ((rc = sess_fill(s, err)) != HP_OK)
		return rc;
	while ((n = fetch_imap_parse(s->buf + s->off, s->len - s->off,
	    IMAP_MAX_RESPONSE, &r, &ferr)) > 0) {
		if (idle_exists(s->buf + s->off, (size_t)n))
			*arrived = true;
		s->off += (size_t)n;
		if ((r.type == IMAP_R_TAGGED && strcmp(r.tag, tag) == 0) ||
		    (r.type == IMAP_R_STATUS && r.status == IMAP_ST_BYE))
			return broken(s, err, "the server ended IDLE: %s",
			    r.text);
	}
	if (n < 0)
		return broken(s, err, "%s", ferr.msg);
	return HP_OK;
}

/* Read responses up to the tagged answer to tag (or, if cont, a "+"
 * continuation before it) into *r, setting *arrived on EXISTS. */
static int
idle_until(struct imap_sess *s, const char *tag, bool cont, bool *arrived,
    struct imap_resp *r, struct hp_error *err)
{
	struct hp_error ferr = { 0, "" };
	long n;
	int rc;

	for (;;) {
		n = fetch_imap_parse(s->buf + s->off, s->len - s->off,
		    IMAP_MAX_RESPONSE, r, &ferr);
		if (n < 0)
			return broken(s, err, "%s", ferr.msg);
		if (n == 0) {
			if ((rc = sess_fill(s, err)) != HP_OK)
				return rc;
			continue;
		}
		if (idle_exists(s->buf + s->off, (size_t)n))
			*arrived = true;
		s->off += (size_t)n;
		if ((cont && r->type == IMAP_R_CONTINUE) ||
		    (r->type == IMAP_R_TAGGED && strcmp(r->tag, tag) == 0))
			return HP_OK;
	}
}

int
fetch_imap_idle(struct store *st, const struct config *cfg, int seconds,
    const volatile sig_atomic_t *stop, const volatile sig_atomic_t *reload,
    bool *arrived, struct hp_error *err)
{
	struct mailbox_url u;
	struct imap_sess s;
	struct imap_resp r;
	char tag[16], line[32];
	uint32_t validity, last;
	int64_t mbox;
	long long end;
	int rc;

	*arrived = false;
	memset(&s, 0, sizeof s);
	if (cfg->nimap == 0) {
		hp_seterr(err, HP_ENOENT, "no IMAP mailbox");
		return HP_ENOENT;
	}
	if ((rc = url_split(cfg->imap[0], &u, err)) != HP_OK ||
	    (rc = store_imap_mailbox(st, cfg->imap[0], &mbox, &validity,
	    &last, err)) != HP_OK)
		return rc;
	if ((rc = sess_open(&s, cfg, cfg->imap[0], &u, err)) != HP_OK)
		goto out;
	/* The wait is not a session's work: no mail_budget over it. */
	s.deadline_ms = mono_ms() + ((long long)seconds + cfg->mail_budget) *
	    1000;
	if (!(s.caps & IMAP_CAP_IDLE)) {
		hp_seterr(err, HP_ENOENT, "%s: the server has no IDLE",
		    cfg->imap[0]);
		rc = HP_ENOENT;
		goto out;
	}
	if ((rc = sess_select(&s, u.name, err)) != HP_OK)
		goto out;
	/* Mail that came after the pass fetched: no need to wait. Once
	 * only for the same UIDVALIDITY and UIDNEXT: messages deleted before
	 * they were fetched leave UIDNEXT past the last UID for good, and a
	 * mailbox that cannot be fetched keeps it there. */
	if ((validity != s.uidvalidity || (s.uidnext != 0 &&
	    s.uidnext > (uint64_t)last + 1)) && (s.uidvalidity !=
	    idle_woke[0] || s.uidnext != idle_woke[1])) {
		idle_woke[0] = s.uidvalidity;
		idle_woke[1] = s.uidnext;
		*arrived = true;
		goto out;
	}
	snprintf(tag, sizeof tag, "h%u", ++s.tagn);
	snprintf(line, sizeof line, "%s IDLE\r\n", tag);
	if ((rc = sess_send(&s, line, strlen(line), err)) != HP_OK)
		goto out;
	if ((rc = idle_until(&s, tag, true, arrived, &r, err)) != HP_OK)
		goto out;
	if (r.type == IMAP_R_TAGGED) {
		hp_seterr(err, HP_ENOENT, "%s: IDLE refused: %s", cfg->imap[0],
		    r.text);
		rc = HP_ENOENT;
		goto out;
	}
	end = mono_ms() + (long long)seconds * 1000;
	while (!*arrived && !*stop && !*reload && mono_ms() < end) {
		struct pollfd pfd = { .fd = s.fd, .events = POLLIN };
		long long left = end - mono_ms();
		int pr = poll(&pfd, 1, left < 1000 ? (int)left : 1000);

		if (pr == -1 && errno != EINTR) {
			rc = broken(&s, err, "poll: %s", strerror(errno));
			goto out;
		}
		if (pr > 0 && (rc = idle_read(&s, tag, arrived, err)) != HP_OK)
			goto out;
	}
	/* Stopping: no goodbyes a frozen server could hold up. */
	if (*stop) {
		s.state = IMAP_BROKEN;
		goto out;
	}
	/* End the IDLE; its tagged OK comes after DONE. */
	if ((rc = sess_send(&s, "DONE\r\n", 6, err)) != HP_OK)
		goto out;
	rc = idle_until(&s, tag, false, arrived, &r, err);
out:
	sess_close(&s);
	return rc;
}
