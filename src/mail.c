/* mail: composing and queueing hexpost's messages (see include/mail.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sodium.h>

#include "export.h"
#include "mail.h"
#include "mailpref.h"
#include "mapout.h"
#include "mime.h"
#include "report.h"
#include "window.h"
#include "sealed.h"
#include "view.h"

char *
mail_render(const char *name, const struct tmpl_ctx *c, struct hp_error *err)
{
	struct sbuf out;
	char *tpl;

	if ((tpl = report_template(name, err)) == NULL)
		return NULL;
	sbuf_init(&out);
	if (tmpl_render(tpl, c, &out, err) != HP_OK) {
		free(tpl);
		sbuf_free(&out);
		err->code = HP_EINTERNAL;
		return NULL;
	}
	free(tpl);
	return sbuf_steal(&out);
}

/* A Message-ID from seed raw: only safe characters survive, and a seed
 * that had to change gets a hash of itself so ids stay distinct. */
static void
make_id(char *buf, size_t len, const char *raw, const char *domain)
{
	unsigned char h[crypto_generichash_BYTES_MIN];
	char tmp[200], hex[9];
	size_t i, j = 0;
	bool changed = false;

	for (i = 0; raw[i] != '\0' && j + 1 < sizeof tmp - 9; i++) {
		char ch = raw[i];

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' ||
		    ch == '_')
			tmp[j++] = ch;
		else {
			tmp[j++] = '_';
			changed = true;
		}
	}
	tmp[j] = '\0';
	/* A seed folded or cut short could meet another's ("a b", "a_b"):
	 * a hash of the whole seed keeps them apart. */
	if (changed || raw[i] != '\0') {
		crypto_generichash(h, sizeof h, (const unsigned char *)raw,
		    strlen(raw), NULL, 0);
		sodium_bin2hex(hex, sizeof hex, h, 4);
		snprintf(buf, len, "hexpost.%s.%s@%s", tmp, hex, domain);
	} else
		snprintf(buf, len, "hexpost.%s@%s", tmp, domain);
}

/* The thread of one campaign and player (docs/ARCHITECTURE.md §1a):
 * every message hexpost sends that player in that campaign refers to the
 * player's first message (the welcome) and carries the same subject. */
struct thread {
	char campaign[GAME_NAME_MAX];
	char player[GAME_NAME_MAX];
	char root[300];          /* the welcome's Message-ID, "" if no player */
	char subject[300];       /* "[hexpost] hill: blue" */
	char list_id[640];       /* "hexpost hill <hill.hexpost.DOMAIN>", or "" */
};

/* The Message-ID of the welcome of player (row id pid) of campaign. */
static void
welcome_id(char *buf, size_t len, const struct config *cfg,
    const char *campaign, const char *player, int64_t pid)
{
	char raw[200];

	snprintf(raw, sizeof raw, "welcome.%s.%s.%lld", campaign, player,
	    (long long)pid);
	make_id(buf, len, raw, cfg->domain);
}

/* Fill *t for the message to player (by name; NULL: the active player of
 * campaign cid whose address is rcpt) of campaign cid. A recipient who is
 * no player gets the campaign's List-Id alone (if the campaign has a
 * player to name it by); t->root is then "". */
static void
thread_find(struct store *st, const struct config *cfg, int64_t cid,
    const char *player, const char *rcpt, struct thread *t)
{
	struct store_player p[64];
	char label[GAME_NAME_MAX];
	int i, n, k = 0;

	memset(t, 0, sizeof *t);
	if (cid <= 0 || (n = store_players_of(st, cid, p, 64, NULL)) <= 0)
		return;
	if (n > 64)
		n = 64;
	strlcpy_(t->campaign, p[0].campaign, sizeof t->campaign);
	/* A list label is letters, digits and '-' (RFC 2919). */
	for (i = 0; p[0].campaign[i] != '\0' && k + 1 < (int)sizeof label; i++) {
		char ch = p[0].campaign[i];

		label[k++] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') :
		    ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) ?
		    ch : '-';
	}
	label[k] = '\0';
	snprintf(t->list_id, sizeof t->list_id, "hexpost %s <%s.hexpost.%s>",
	    label, label, cfg->domain);
	for (i = 0; i < n; i++)
		if (player != NULL ? strcmp(p[i].name, player) == 0 :
		    rcpt != NULL && strcasecmp(p[i].email, rcpt) == 0)
			break;
	if (i == n)
		return;
	strlcpy_(t->player, p[i].name, sizeof t->player);
	welcome_id(t->root, sizeof t->root, cfg, p[i].campaign, p[i].name,
	    p[i].id);
	snprintf(t->subject, sizeof t->subject, "[hexpost] %s: %s",
	    p[i].campaign, p[i].name);
}

/* Build and queue one message. With a thread t (may be NULL): a message of
 * hexpost's own (in_reply_to NULL) gets the thread's subject, its own
 * subject going to X-Hexpost-Topic, and refers to the thread's root
 * unless it is the root; a reply refers to the root and the mail it
 * answers. */
static int
queue_files(struct store *st, const struct config *cfg, int64_t cid,
    const char *kind, const char *rcpt, const char *envelope,
    const char *auto_submitted, const char *subject, const char *msgid,
    const char *in_reply_to, const char *body, const struct thread *t,
    const struct mime_file *files, size_t nfiles, struct hp_error *err)
{
	struct mime_out mo;
	char date[64], *data = NULL, refs[700];
	const char *extra[12];
	size_t len, nx = 0;
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
	memset(&mo, 0, sizeof mo);
	mo.from = cfg->from;
	mo.to = rcpt;
	mo.subject = subject;
	mo.message_id = msgid;
	mo.in_reply_to = in_reply_to;
	mo.auto_submitted = auto_submitted;
	mo.date = date;
	mo.body = body;
	mo.files = files;
	mo.nfiles = nfiles;
	if (t != NULL && t->list_id[0] != '\0') {
		mo.list_id = t->list_id;
		extra[nx++] = "X-Hexpost-Campaign";
		extra[nx++] = t->campaign;
	}
	if (t != NULL && t->root[0] != '\0') {
		extra[nx++] = "X-Hexpost-Player";
		extra[nx++] = t->player;
		if (in_reply_to != NULL && strcmp(in_reply_to, t->root) != 0) {
			snprintf(refs, sizeof refs, "%s %s", t->root,
			    in_reply_to);
			mo.references = refs;
		} else if (strcmp(msgid, t->root) != 0) {
			mo.in_reply_to = t->root;
			mo.references = t->root;
		}
		if (in_reply_to == NULL) {
			mo.subject = t->subject;
			if (subject != NULL && *subject != '\0' &&
			    strcmp(subject, t->subject) != 0) {
				extra[nx++] = "X-Hexpost-Topic";
				extra[nx++] = subject;
			}
		}
	}
	extra[nx++] = "X-Hexpost-Kind";
	extra[nx++] = kind;
	extra[nx] = NULL;
	mo.extra = extra;
	if ((rc = mime_build(&mo, &data, &len, err)) != HP_OK)
		return rc;
	rc = store_outbox_add(st, cid, kind, msgid, rcpt, envelope, data, len,
	    NULL, err);
	free(data);
	return rc;
}

/* queue_files without attachments. */
static int
queue(struct store *st, const struct config *cfg, int64_t cid,
    const char *kind, const char *rcpt, const char *envelope,
    const char *auto_submitted, const char *subject, const char *msgid,
    const char *in_reply_to, const char *body, const struct thread *t,
    struct hp_error *err)
{
	return queue_files(st, cfg, cid, kind, rcpt, envelope, auto_submitted,
	    subject, msgid, in_reply_to, body, t, NULL, 0, err);
}

int
mail_queue_reply(struct store *st, const struct config *cfg, int64_t cid,
    const char *kind, const char *rcpt, const char *in_reply_to,
    const char *subject, const char *body, const char *id_seed,
    struct hp_error *err)
{
	char msgid[300], raw[200], subj[300];
	struct thread t;

	snprintf(raw, sizeof raw, "%s.%s", kind, id_seed);
	make_id(msgid, sizeof msgid, raw, cfg->domain);
	/* "Re: Re: x" would start a subject of its own in some clients. */
	while (subject != NULL && strncasecmp(subject, "Re: ", 4) == 0)
		subject += 4;
	snprintf(subj, sizeof subj, "Re: %s", subject && *subject ? subject :
	    "your orders");
	thread_find(st, cfg, cid, NULL, rcpt, &t);
	return queue(st, cfg, cid, kind, rcpt, "", "auto-replied", subj, msgid,
	    in_reply_to, body, &t, err);
}

struct report_rcpt {
	struct store *st;
	const struct config *cfg;
	int64_t cid;
	const struct game *g;
	const struct store_window *w;
	struct hp_error *err;
	int rc;
	char *footer;     /* the server's public key, or NULL */
};

/* The files player name's report mail carries (issue 18): the map's
 * picture as view sees it (unless turned off, mailpref.h) and, when asked
 * for, the JSON export of that view; a line naming them is added to *body.
 * A picture that cannot be drawn is left out with a warning: the text
 * report goes anyway. */
static void
report_attach(struct report_rcpt *r, const char *name, int view, char **body,
    struct sbuf *png, struct sbuf *json, char fname[2][96],
    struct mime_file *files, size_t *nfiles)
{
	struct hp_error e = { 0, "" };
	struct sbuf note;

	sbuf_init(&note);
	if (mailpref_get(r->st, r->cid, name, MAILPREF_PICTURE)) {
		if (mapout_picture(r->st, r->cid, r->g, r->w->id, view,
		    MAPOUT_PNG, png, &e) == HP_OK) {
			snprintf(fname[0], sizeof fname[0], "map-turn%d-%s.png",
			    r->w->spec.turn, r->w->spec.name);
			files[*nfiles] = (struct mime_file){ fname[0],
			    "image/png", png->buf, png->len };
			(*nfiles)++;
			sbuf_printf(&note, "\nThe map above is attached as a "
			    "picture, %s (a signed command file with\n"
			    "'command: mail picture-mail off' leaves it out).\n",
			    fname[0]);
		} else
			log_warn("%s: no picture for %s: %s", r->g->name, name,
			    e.msg);
	}
	if (mailpref_get(r->st, r->cid, name, MAILPREF_JSON)) {
		if (export_json(r->st, r->cid, r->g, view, json, &e) == HP_OK) {
			snprintf(fname[1], sizeof fname[1], "view-turn%d-%s.json",
			    r->w->spec.turn, r->w->spec.name);
			files[*nfiles] = (struct mime_file){ fname[1],
			    "application/json", json->buf, json->len };
			(*nfiles)++;
			sbuf_printf(&note, "Your view as JSON is attached, %s "
			    "(docs/export.schema.json).\n", fname[1]);
		} else
			log_warn("%s: no JSON for %s: %s", r->g->name, name,
			    e.msg);
	}
	if (note.len > 0) {
		size_t n = strlen(*body);

		*body = xrealloc(*body, n + note.len + 1);
		memcpy(*body + n, note.buf, note.len + 1);
	}
	sbuf_free(&note);
}

static void
report_one(int side, const char *name, const char *email, bool mod,
    void *arg)
{
	struct report_rcpt *r = arg;
	struct thread t;
	char msgid[300], raw[200], subj[300], *body;
	int view = mod ? -1 : side;
	struct mime_file files[2];
	struct sbuf png, json;
	char fname[2][96];
	size_t nfiles = 0;

	sbuf_init(&png);
	sbuf_init(&json);
	if (r->rc != HP_OK)
		return;
	if ((body = store_report_get(r->st, r->w->id, view, r->err)) == NULL) {
		r->rc = r->err->code ? r->err->code : HP_ENOENT;
		return;
	}
	snprintf(raw, sizeof raw, "report.%s.t%d.w%d.%s", r->g->name,
	    r->w->spec.turn, r->w->spec.number, name);
	make_id(msgid, sizeof msgid, raw, r->cfg->domain);
	snprintf(subj, sizeof subj, "[hexpost] %s: turn %d '%s' report%s%s",
	    r->g->name, r->w->spec.turn, r->w->spec.name,
	    r->g->status == GAME_FINISHED ? " -- game over: " : "",
	    r->g->status == GAME_FINISHED ? r->g->result : "");
	report_attach(r, name, view, &body, &png, &json, fname, files, &nfiles);
	if (r->footer != NULL) {
		/* The stored report stays as rendered (audits replay it). */
		size_t n = strlen(body), m = strlen(r->footer);

		body = xrealloc(body, n + m + 1);
		memcpy(body + n, r->footer, m + 1);
	}
	thread_find(r->st, r->cfg, r->cid, name, NULL, &t);
	r->rc = queue_files(r->st, r->cfg, r->cid, "report", email,
	    r->cfg->from, "auto-generated", subj, msgid, NULL, body, &t, files,
	    nfiles, r->err);
	sbuf_free(&png);
	sbuf_free(&json);
	free(body);
}

int
mail_queue_report_again(struct store *st, const struct config *cfg,
    int64_t cid, const struct game *g, const struct store_window *w,
    const char *name, const char *email, int view, const char *id_seed,
    const char *subject, struct hp_error *err)
{
	struct report_rcpt r = { .st = st, .cfg = cfg, .cid = cid, .g = g,
	    .w = w, .err = err, .rc = HP_OK, .footer = NULL };
	struct mime_file files[2];
	struct sbuf png, json;
	char fname[2][96], msgid[300], raw[200], *body;
	struct thread t;
	size_t nfiles = 0;
	int rc;

	if ((body = store_report_get(st, w->id, view, err)) == NULL)
		return err->code ? err->code : HP_ENOENT;
	sbuf_init(&png);
	sbuf_init(&json);
	report_attach(&r, name, view, &body, &png, &json, fname, files,
	    &nfiles);
	snprintf(raw, sizeof raw, "report.%s", id_seed);
	make_id(msgid, sizeof msgid, raw, cfg->domain);
	thread_find(st, cfg, cid, name, NULL, &t);
	rc = queue_files(st, cfg, cid, "report", email, cfg->from,
	    "auto-generated", subject, msgid, NULL, body, &t, files, nfiles,
	    err);
	sbuf_free(&png);
	sbuf_free(&json);
	free(body);
	return rc;
}

int
mail_queue_reports(struct store *st, const struct config *cfg, int64_t cid,
    const struct game *g, const struct store_window *w, struct hp_error *err)
{
	struct report_rcpt r = { st, cfg, cid, g, w, err, HP_OK, NULL };
	char *pub;
	int rc;

	if ((pub = util_read_file(cfg->server_pub, NULL, NULL)) != NULL) {
		struct sbuf f;

		sbuf_init(&f);
		sbuf_printf(&f, "\n-- \nThe dice log of this window is signed "
		    "with the server's minisign key:\n%s", pub);
		r.footer = sbuf_steal(&f);
		free(pub);
	}
	rc = store_player_list(st, cid, report_one, &r, err);
	free(r.footer);
	if (rc != HP_OK)
		return rc;
	return r.rc;
}

/* The row id of the campaign's active player called name, or 0. */
static int64_t
player_id(struct store *st, int64_t cid, const char *name)
{
	struct store_player p[64];
	int i, n;

	n = store_players_of(st, cid, p, 64, NULL);
	for (i = 0; i < n && i < 64; i++)
		if (strcmp(p[i].name, name) == 0)
			return p[i].id;
	return 0;
}

int
mail_queue_welcome(struct store *st, const struct config *cfg, int64_t cid,
    const struct game *g, int side, const char *player, const char *email,
    const char *key_id, struct hp_error *err)
{
	struct tmpl_ctx *c = tmpl_ctx_new();
	struct store_window w;
	struct thread th;
	char msgid[300], subj[300], *body = NULL, *pub;
	int rc;

	tmpl_set(c, "campaign", g->name);
	tmpl_set(c, "ruleset", g->rules->title);
	tmpl_set(c, "side_label", g->sides[side].label);
	tmpl_set(c, "from", cfg->from);
	tmpl_set(c, "key_id", key_id ? key_id : "(none registered)");
	if ((pub = util_read_file(cfg->server_pub, NULL, NULL)) != NULL) {
		tmpl_set(c, "server_pub", pub);
		free(pub);
	}
	if (store_modkey_get(st, cid, &pub, NULL) == HP_OK && pub != NULL) {
		/* docs/AUDIT.md, "Moderator statements" */
		tmpl_set(c, "moderator_pub", pub);
		free(pub);
	}
	if (store_window_current(st, cid, &w, NULL) == HP_OK &&
	    (w.spec.sides & (1u << side))) {
		char *t = view_order_template(g, &w.spec, side);

		tmpl_set(c, "template", t);
		tmpl_set_int(c, "turn", w.spec.turn);
		tmpl_set(c, "window", w.spec.name);
		free(t);
	}
	if (store_window_current(st, cid, &w, NULL) == HP_OK) {
		char hex[65];

		sodium_bin2hex(hex, sizeof hex, w.commitment, 32);
		sodium_memzero(w.seed, sizeof w.seed);
		tmpl_set(c, "commitment", hex);
		tmpl_set_int(c, "commit_turn", w.spec.turn);
		tmpl_set(c, "commit_window", w.spec.name);
	}
	{	/* the signed seed chain statement (docs/AUDIT.md) */
		struct store_chain ch;

		if (store_chain_get(st, cid, &ch, NULL) == HP_OK) {
			tmpl_set(c, "chain", ch.statement);
			if (ch.signature != NULL)
				tmpl_set(c, "chain_sig", ch.signature);
			store_chain_free(&ch);
		}
	}
	{	/* the signed statements of side's sealed sets (docs/AUDIT.md,
		 * "Sealed dice"): only the sets side belongs to */
		struct store_sealed_set *v = NULL;
		unsigned char master[64];
		size_t mlen = sizeof master;
		struct tmpl_ctx *it;
		struct sbuf sb;
		int n = 0, i;

		if (store_master_seed(st, cid, master, &mlen, NULL) == HP_OK &&
		    store_sealed_sets(st, cid, &v, &n, NULL) == HP_OK)
			for (i = 0; i < n; i++) {
				if (!(v[i].mask & (1u << side)))
					continue;
				tmpl_set(c, "sealed_intro", "yes");
				it = tmpl_list_add(c, "sealed");
				sbuf_init(&sb);
				sealed_format(g, mlen > 0, v[i].mask, v[i].seed,
				    &sb);
				tmpl_set(it, "statement", sb.buf);
				sbuf_free(&sb);
				sbuf_init(&sb);
				sealed_set_sides(g, v[i].mask, &sb);
				tmpl_set(it, "set", sb.buf);
				sbuf_free(&sb);
				if (v[i].signature != NULL)
					tmpl_set(it, "sig", v[i].signature);
			}
		store_sealed_sets_free(v, n);
		sodium_memzero(master, sizeof master);
	}
	body = mail_render("welcome.txt", c, err);
	tmpl_ctx_free(c);
	if (body == NULL)
		return HP_EINTERNAL;
	/* A replacement may take a retired player's name: the player's row
	 * id tells the two welcomes apart. */
	welcome_id(msgid, sizeof msgid, cfg, g->name, player,
	    player_id(st, cid, player));
	snprintf(subj, sizeof subj, "[hexpost] %s: welcome, you play %s",
	    g->name, g->sides[side].name);
	thread_find(st, cfg, cid, player, NULL, &th);
	rc = queue(st, cfg, cid, "welcome", email, cfg->from, "auto-generated",
	    subj, msgid, NULL, body, &th, err);
	free(body);
	return rc;
}

int
mail_queue_message(struct store *st, const struct config *cfg, int64_t cid,
    const char *kind, const char *rcpt, const char *id_seed,
    const char *subject, const char *body, struct hp_error *err)
{
	char msgid[300], raw[200];
	struct thread t;

	snprintf(raw, sizeof raw, "%s.%s", kind, id_seed);
	make_id(msgid, sizeof msgid, raw, cfg->domain);
	thread_find(st, cfg, cid, NULL, rcpt, &t);
	return queue(st, cfg, cid, kind, rcpt, cfg->from, "auto-generated",
	    subject, msgid, NULL, body, &t, err);
}

int
mail_queue_key_rotation(struct store *st, const struct config *cfg,
    const struct store_rotation *r, int *count, struct hp_error *err)
{
	struct store_player *p = NULL;
	char seed[128], subj[300], when[32], *body;
	time_t t = (time_t)r->created_at;
	struct tm tm;
	int i, n = 0, rc;

	*count = 0;
	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
	if ((rc = store_rotation_recipients(st, &p, &n, err)) != HP_OK)
		return rc;
	for (i = 0; i < n && rc == HP_OK; i++) {
		struct tmpl_ctx *c = tmpl_ctx_new();

		tmpl_set(c, "campaign", p[i].campaign);
		tmpl_set_int(c, "seq", r->seq);
		tmpl_set(c, "when", when);
		tmpl_set(c, "old_id", r->old_key_id);
		tmpl_set(c, "new_id", r->new_key_id);
		tmpl_set(c, "new_pub", r->new_pubkey);
		tmpl_set(c, "statement", r->statement);
		tmpl_set(c, "signature", r->signature);
		tmpl_set(c, "countersignature", r->countersignature);
		body = mail_render("keyrotation.txt", c, err);
		tmpl_ctx_free(c);
		if (body == NULL) {
			rc = HP_EINTERNAL;
			break;
		}
		snprintf(seed, sizeof seed, "%d.%s.%lld", r->seq, p[i].campaign,
		    (long long)p[i].id);
		snprintf(subj, sizeof subj, "[hexpost] %s: the server's signing "
		    "key has changed", p[i].campaign);
		rc = mail_queue_message(st, cfg, p[i].campaign_id, "notice",
		    p[i].email, seed, subj, body, err);
		free(body);
		if (rc == HP_OK)
			(*count)++;
	}
	free(p);
	return rc;
}
