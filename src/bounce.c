/* bounce: mail that came back (see include/bounce.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce.h"
#include "deadline.h"
#include "mail.h"

#define BOUNCE_MAX_PLAYERS 64

/* The fields of one group of a message/delivery-status part. */
struct dsn_group {
	char rcpt[256];
	char action[16];
	char status[16];
	char diagnostic[256];
};

/* The header fields of the quoted original that matter. */
struct original {
	char message_id[256];
	char date[128];
};

/* Copy v into out (len bytes) without white space at either end; v may
 * be out itself. */
static void
trimmed(char *out, size_t len, const char *v)
{
	size_t n;

	while (*v == ' ' || *v == '\t')
		v++;
	n = strlen(v);
	if (n >= len)
		n = len - 1;
	memmove(out, v, n);
	out[n] = '\0';
	n = strlen(out);
	while (n > 0 && isspace((unsigned char)out[n - 1]))
		out[--n] = '\0';
}

/* "rfc822; a@b" or "smtp; 550 ..." without its type: the part after the
 * first ';', trimmed, into out. */
static void
typed_value(char *out, size_t len, const char *v)
{
	const char *semi = strchr(v, ';');
	size_t i, j;

	trimmed(out, len, semi != NULL ? semi + 1 : v);
	/* A folded line unfolds to a run of blanks: one is enough. */
	for (i = j = 0; out[i] != '\0'; i++)
		if (!((out[i] == ' ' || out[i] == '\t') && j > 0 &&
		    out[j - 1] == ' '))
			out[j++] = out[i] == '\t' ? ' ' : out[i];
	out[j] = '\0';
}

/* mime_fields callback: a field of a delivery-status group. */
static void
dsn_field(const char *name, const char *value, void *arg)
{
	struct dsn_group *g = arg;
	char *lt, *gt;

	if (strcasecmp(name, "Final-Recipient") == 0 ||
	    (strcasecmp(name, "Original-Recipient") == 0 && g->rcpt[0] == '\0')) {
		typed_value(g->rcpt, sizeof g->rcpt, value);
		if ((lt = strchr(g->rcpt, '<')) != NULL &&
		    (gt = strchr(lt, '>')) != NULL) {
			*gt = '\0';
			memmove(g->rcpt, lt + 1, strlen(lt + 1) + 1);
		}
	} else if (strcasecmp(name, "Action") == 0) {
		trimmed(g->action, sizeof g->action, value);
		for (lt = g->action; *lt != '\0'; lt++)
			*lt = (char)tolower((unsigned char)*lt);
	} else if (strcasecmp(name, "Status") == 0)
		trimmed(g->status, sizeof g->status, value);
	else if (strcasecmp(name, "Diagnostic-Code") == 0)
		typed_value(g->diagnostic, sizeof g->diagnostic, value);
}

/* mime_fields callback: a field of the quoted original's header. */
static void
original_field(const char *name, const char *value, void *arg)
{
	struct original *o = arg;
	char id[256], *lt, *gt;

	if (strcasecmp(name, "Message-ID") == 0 && o->message_id[0] == '\0') {
		trimmed(id, sizeof id, value);
		if ((lt = strchr(id, '<')) != NULL &&
		    (gt = strchr(lt, '>')) != NULL) {
			*gt = '\0';
			memmove(id, lt + 1, strlen(lt + 1) + 1);
		}
		if (id[0] != '\0' && strpbrk(id, " \t<>") == NULL)
			strlcpy_(o->message_id, id, sizeof o->message_id);
	} else if (strcasecmp(name, "Date") == 0 && o->date[0] == '\0')
		trimmed(o->date, sizeof o->date, value);
}

/* The end of the line starting at p (before [p, e)'s end). */
static const char *
line_end(const char *p, const char *e)
{
	const char *q = memchr(p, '\n', (size_t)(e - p));

	return q != NULL ? q : e;
}

/* Is [p, q) an empty line (CR allowed)? */
static bool
blank(const char *p, const char *q)
{
	return q == p || (q == p + 1 && *p == '\r');
}

/* Read the delivery-status part (data, len): each group of fields (the
 * per-message one, then one per recipient) with GMime; the first
 * recipient that failed, else the first with an action, into *b. */
static void
dsn_read(const unsigned char *data, size_t len, struct bounce_info *b)
{
	const char *p = (const char *)data, *e = p + len, *start = p, *q;
	struct dsn_group g, best;
	bool have = false;

	memset(&best, 0, sizeof best);
	for (;;) {
		q = p < e ? line_end(p, e) : e;
		if (p >= e || blank(p, q)) {
			if (p > start) {
				memset(&g, 0, sizeof g);
				mime_fields((const unsigned char *)start,
				    (size_t)(p - start), dsn_field, &g);
				if (g.action[0] != '\0' && (!have ||
				    (strcmp(best.action, "failed") != 0 &&
				    strcmp(g.action, "failed") == 0))) {
					best = g;
					have = true;
				}
			}
			if (p >= e)
				break;
			start = q < e ? q + 1 : e;
		}
		p = q < e ? q + 1 : e;
	}
	if (!have)
		return;
	strlcpy_(b->rcpt, best.rcpt, sizeof b->rcpt);
	strlcpy_(b->action, strcmp(best.action, "failed") == 0 ? "failed" :
	    strcmp(best.action, "delayed") == 0 ? "delayed" : best.action,
	    sizeof b->action);
	strlcpy_(b->status, best.status, sizeof b->status);
	strlcpy_(b->diagnostic, best.diagnostic, sizeof b->diagnostic);
}

/* Does [p, q) look like the first line of a header field ("Name: ...")? */
static bool
field_line(const char *p, const char *q)
{
	const char *c = p;

	while (c < q && (isalnum((unsigned char)*c) || *c == '-'))
		c++;
	return c > p && c < q && *c == ':';
}

/* Find the header of the message a text bounce quotes (after an empty
 * line or a "---" marker line, as qmail and Exim write it) and read it
 * with GMime into *o. */
static void
quoted_read(const unsigned char *data, size_t len, struct original *o)
{
	const char *p = (const char *)data, *e = p + len, *q;
	bool after = true;   /* the previous line could precede a header */

	for (; p < e && o->message_id[0] == '\0'; p = q < e ? q + 1 : e) {
		q = line_end(p, e);
		if (after && field_line(p, q)) {
			struct original t;

			memset(&t, 0, sizeof t);
			mime_fields((const unsigned char *)p, (size_t)(e - p),
			    original_field, &t);
			if (t.message_id[0] != '\0')
				*o = t;
		}
		after = blank(p, q) || (q - p >= 3 && strncmp(p, "---", 3) == 0);
	}
	/* Last resort: the Message-ID line alone. */
	for (p = (const char *)data; p < e && o->message_id[0] == '\0';
	    p = q < e ? q + 1 : e) {
		q = line_end(p, e);
		if (q - p > 11 && strncasecmp(p, "Message-ID:", 11) == 0)
			mime_fields((const unsigned char *)p, (size_t)(q - p),
			    original_field, o);
	}
}

/* In a text bounce, the first line that carries an SMTP reply code
 * (4xx/5xx), and an enhanced status code in it, into *b. */
static void
text_diagnostic(const unsigned char *data, size_t len, struct bounce_info *b)
{
	const char *p = (const char *)data, *e = p + len, *q, *c;
	char d;

	for (; p < e; p = q < e ? q + 1 : e) {
		q = line_end(p, e);
		if (blank(p, q) && b->diagnostic[0] != '\0')
			return;
		for (c = p; c + 4 <= q; c++)
			if ((c[0] == '4' || c[0] == '5') && isdigit((unsigned
			    char)c[1]) && isdigit((unsigned char)c[2]) &&
			    (c[3] == ' ' || c[3] == '-') && (c == p ||
			    !isalnum((unsigned char)c[-1])))
				break;
		if (c + 4 > q)
			continue;
		snprintf(b->diagnostic, sizeof b->diagnostic, "%.*s",
		    (int)(q - p), p);
		trimmed(b->diagnostic, sizeof b->diagnostic, b->diagnostic);
		strlcpy_(b->action, c[0] == '4' ? "delayed" : "failed",
		    sizeof b->action);
		/* "550 5.1.1": the status class is the reply's. */
		for (d = c[0], c += 4; c + 3 <= q; c++)
			if (c[0] == d && c[1] == '.' && isdigit((unsigned
			    char)c[2]) && !isalnum((unsigned char)c[-1])) {
				size_t n = strspn(c, "0123456789.");

				if (n > (size_t)(q - c))
					n = (size_t)(q - c);
				while (n > 0 && c[n - 1] == '.')
					n--;
				if (n < sizeof b->status)
					snprintf(b->status, sizeof b->status,
					    "%.*s", (int)n, c);
				break;
			}
		return;
	}
}

/* Words in the Subject of a non-standard bounce. */
static const char *const bounce_subjects[] = { "undeliver", "undelivered",
	"delivery status notification", "failure notice",
	"mail delivery failed", "returned mail", "delivery failure",
	"could not be delivered", "delivery has failed", NULL };

/* Is the From of m a mailer daemon's? */
static bool
daemon_sender(const struct mime_msg *m)
{
	static const char *const who[] = { "mailer-daemon@", "postmaster@",
		"mail-daemon@", "mailerdaemon@", NULL };
	int i;

	for (i = 0; m->from != NULL && who[i] != NULL; i++)
		if (strncasecmp(m->from, who[i], strlen(who[i])) == 0)
			return true;
	return false;
}

bool
bounce_detect(const struct mime_msg *m, struct bounce_info *b)
{
	const struct mime_part *sigs[1];
	struct original o;
	size_t i;
	int dsn = -1;
	bool quoted = false;

	memset(b, 0, sizeof *b);
	if (!m->automatic)
		return false;
	for (i = 0; i < m->nparts && dsn < 0; i++)
		if (strcmp(m->parts[i].content_type,
		    "message/delivery-status") == 0 ||
		    strcmp(m->parts[i].content_type,
		    "message/global-delivery-status") == 0)
			dsn = (int)i;
	if (dsn < 0) {
		quoted = daemon_sender(m);
		for (i = 0; !quoted && m->subject != NULL &&
		    bounce_subjects[i] != NULL; i++)
			quoted = strcasestr(m->subject, bounce_subjects[i]) !=
			    NULL;
		if (!quoted)
			return false;
	}
	strlcpy_(b->format, dsn >= 0 ? "dsn" : "quoted", sizeof b->format);
	strlcpy_(b->action, "failed", sizeof b->action);
	memset(&o, 0, sizeof o);
	if (dsn >= 0)
		dsn_read(m->parts[dsn].data, m->parts[dsn].len, b);
	/* The original: a message/rfc822 or text/rfc822-headers part, else
	 * quoted in the text. */
	for (i = 0; i < m->nparts && o.message_id[0] == '\0'; i++)
		if (strcmp(m->parts[i].content_type, "message/rfc822") == 0 ||
		    strcmp(m->parts[i].content_type, "message/global") == 0 ||
		    strcmp(m->parts[i].content_type,
		    "text/rfc822-headers") == 0)
			mime_fields(m->parts[i].data, m->parts[i].len,
			    original_field, &o);
	for (i = 0; i < m->nparts && o.message_id[0] == '\0'; i++)
		if (strcmp(m->parts[i].content_type, "text/plain") == 0)
			quoted_read(m->parts[i].data, m->parts[i].len, &o);
	if (dsn < 0)
		for (i = 0; i < m->nparts && b->diagnostic[0] == '\0'; i++)
			if (strcmp(m->parts[i].content_type, "text/plain") == 0)
				text_diagnostic(m->parts[i].data,
				    m->parts[i].len, b);
	if (b->action[0] == '\0')
		strlcpy_(b->action, "failed", sizeof b->action);
	strlcpy_(b->message_id, o.message_id, sizeof b->message_id);
	strlcpy_(b->date, o.date, sizeof b->date);
	b->has_orders = mime_find_suffix(m, ".minisig", sigs, 1) > 0 ||
	    mime_find_suffix(m, ".sig", sigs, 1) > 0;
	return true;
}

/* mime_fields callback: the Date of a message we queued. */
static void
date_field(const char *name, const char *value, void *arg)
{
	char *d = arg;

	if (strcasecmp(name, "Date") == 0 && d[0] == '\0')
		trimmed(d, 128, value);
}

/* Tell the moderators of campaign cid (but not at the address that
 * failed) that player p's mail bounces. */
static int
tell_moderators(struct store *st, const struct config *cfg, int64_t cid,
    const struct store_player *p, const struct bounce_info *b,
    const char *hashhex, long now, struct hp_error *err)
{
	struct store_player mods[BOUNCE_MAX_PLAYERS];
	char since[64], seed[128], subj[300];
	struct sbuf body;
	int i, n, told = 0, rc = HP_OK;

	if ((n = store_players_of(st, cid, mods, BOUNCE_MAX_PLAYERS, err)) < 0)
		return -n;
	if (n > BOUNCE_MAX_PLAYERS)
		n = BOUNCE_MAX_PLAYERS;
	deadline_format(now, since, sizeof since);
	sbuf_init(&body);
	sbuf_printf(&body, "Mail to player %s <%s> of campaign %s came back "
	    "undelivered:\n\n  %s%s%s\n\n%s has been unreachable since %s. "
	    "hexpost goes on sending %s's mail; to play on, reach %s another "
	    "way, or give the side a new address or player with\n\n"
	    "  hexpost moderate %s replace SIDE ...\n\n"
	    "(`hexpost campaign show %s` and `hexpost outbox` list unreachable "
	    "players.)\n", p->name, p->email, p->campaign,
	    b->status[0] ? b->status : "", b->status[0] ? " " : "",
	    b->diagnostic[0] ? b->diagnostic : "(no reason given)", p->name,
	    since, p->name, p->name, p->campaign, p->campaign);
	snprintf(subj, sizeof subj, "[hexpost] %s: mail to %s bounces",
	    p->campaign, p->name);
	for (i = 0; i < n && rc == HP_OK; i++) {
		if (!mods[i].moderator || strcasecmp(mods[i].email, p->email) ==
		    0)
			continue;
		snprintf(seed, sizeof seed, "bounce.%.16s.%lld", hashhex,
		    (long long)mods[i].id);
		rc = mail_queue_message(st, cfg, cid, "notice", mods[i].email,
		    seed, subj, body.buf, err);
		told++;
	}
	if (rc == HP_OK && told == 0)
		log_warn("campaign %s: %s <%s> is unreachable, and no other "
		    "moderator address to tell", p->campaign, p->name, p->email);
	sbuf_free(&body);
	return rc;
}

int
bounce_take(struct store *st, const struct config *cfg,
    const struct bounce_info *b, const unsigned char hash[32],
    const char *msgid, const char *mailbox, struct hp_error *err)
{
	struct store_player p[BOUNCE_MAX_PLAYERS];
	struct store_sent sent;
	struct store_bounce rec;
	char detail[900], hashhex[65], ours[128] = "";
	const char *orders = b->has_orders ? "; it carries an order file, not "
	    "taken as orders" : "";
	long now = deadline_now();
	int64_t cid = 0, pid = 0;
	bool first = false;
	int found, i, n = 0, rc;

	memset(&sent, 0, sizeof sent);
	for (i = 0; i < 32; i++)
		snprintf(hashhex + 2 * i, 3, "%02x", hash[i]);
	if (b->message_id[0] == '\0') {
		snprintf(detail, sizeof detail, "bounce (%s) naming no message "
		    "of ours%s", b->format, orders);
		log_info("message %.12s: %s: ignored", hashhex, detail);
		goto record;
	}
	if ((found = store_outbox_find(st, b->message_id, &sent, err)) < 0)
		return -found;
	if (found == 0 || strcmp(sent.state, "sent") != 0) {
		snprintf(detail, sizeof detail, "forged bounce: names <%.250s>, "
		    "which hexpost never sent%s", b->message_id, orders);
		log_warn("message %.12s: %s: ignored", hashhex, detail);
		goto record;
	}
	cid = sent.campaign_id;
	mime_fields(sent.data, sent.len, date_field, ours);
	if (b->date[0] == '\0' || strcmp(b->date, ours) != 0 ||
	    (b->rcpt[0] != '\0' && strcasecmp(b->rcpt, sent.rcpt) != 0)) {
		snprintf(detail, sizeof detail, "forged bounce: names <%.250s> "
		    "but not as hexpost sent it (%s \"%.128s\")%s",
		    b->message_id, b->date[0] == '\0' ? "no Date quoted" :
		    strcmp(b->date, ours) != 0 ? "Date" : "recipient",
		    strcmp(b->date, ours) != 0 ? b->date : b->rcpt, orders);
		log_warn("message %.12s: %s: ignored", hashhex, detail);
		goto record;
	}
	if (cid > 0 && (n = store_players_of(st, cid, p, BOUNCE_MAX_PLAYERS,
	    err)) < 0) {
		free(sent.data);
		return -n;
	}
	for (i = 0; cid > 0 && i < n && i < BOUNCE_MAX_PLAYERS && pid == 0;
	    i++)
		if (strcasecmp(p[i].email, sent.rcpt) == 0)
			pid = p[i].id;
	memset(&rec, 0, sizeof rec);
	rec.outbox_id = sent.id;
	rec.message_id = b->message_id;
	rec.campaign_id = cid;
	rec.player_id = pid;
	rec.rcpt = sent.rcpt;
	rec.action = strcmp(b->action, "delayed") == 0 ? "delayed" : "failed";
	rec.status = b->status;
	rec.diagnostic = b->diagnostic;
	rec.format = b->format;
	rec.at = now;
	if ((rc = store_bounce_add(st, hash, &rec, &first, err)) != HP_OK) {
		free(sent.data);
		return rc;
	}
	snprintf(detail, sizeof detail, "bounce (%s, %s%s%s) of %s <%.250s> to "
	    "%s%s", b->format, rec.action, b->status[0] ? " " : "", b->status,
	    sent.kind, b->message_id, sent.rcpt, orders);
	log_info("message %.12s: %s", hashhex, detail);
	if (pid > 0 && strcmp(rec.action, "failed") == 0) {
		/* Count only failures: the first makes the player
		 * unreachable. */
		int k = 0;

		for (i = 0; i < n && i < BOUNCE_MAX_PLAYERS; i++)
			if (p[i].id == pid)
				k = i;
		if (first && (rc = tell_moderators(st, cfg, cid, &p[k], b,
		    hashhex, now, err)) != HP_OK) {
			free(sent.data);
			return rc;
		}
	}
record:
	free(sent.data);
	return store_message_record(st, hash, msgid != NULL && *msgid ? msgid :
	    NULL, mailbox, "ignored", detail, cid, pid, err);
}

/* Print one unreachable player (bounce_print). */
struct print_arg {
	FILE *f;
	const char *indent;
};

static void
print_one(const struct store_unreachable *u, void *arg)
{
	struct print_arg *a = arg;
	char since[64], last[64];

	deadline_format(u->since, since, sizeof since);
	deadline_format(u->last, last, sizeof last);
	fprintf(a->f, "%sunreachable: %s/%s <%s> since %s (%d bounce%s, last "
	    "%s: %s%s%s)\n", a->indent, u->campaign, u->player, u->rcpt, since,
	    u->count, u->count == 1 ? "" : "s", last, u->status,
	    u->status[0] ? " " : "", u->diagnostic[0] ? u->diagnostic :
	    "no reason given");
}

int
bounce_print(struct store *st, int64_t cid, FILE *f, const char *indent,
    struct hp_error *err)
{
	struct print_arg a = { f, indent };

	return store_unreachable_each(st, cid, print_one, &a, err);
}
