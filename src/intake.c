/* intake: signed orders by mail (see include/intake.h). */
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intake.h"
#include "mail.h"
#include "maildir.h"
#include "mime.h"
#include "minisign.h"
#include "tmpl.h"
#include "turn.h"

#define INTAKE_MAX_PLAYERS 16
#define INTAKE_BATCH 100   /* messages a transaction */

static const char *outcome_names[] = { "accepted", "rejected", "ignored",
	"duplicate" };

const char *
intake_stroutcome(enum intake_outcome o)
{
	return (unsigned)o < 4 ? outcome_names[o] : "unknown";
}

/* What we know of a message while deciding on it. */
struct msgctx {
	struct store *st;
	const struct config *cfg;
	const char *mailbox;
	unsigned char hash[32];
	char hashhex[65];
	char from[256];          /* From: addr-spec, for unattributed refusals */
	char message_id[256];
	char subject[256];
	bool automatic;
};

/* Header value of name in the raw header block (unfolded, first line
 * only), or false. Used only when MIME parsing failed. */
static bool
raw_header(const unsigned char *raw, size_t len, const char *name, char *out,
    size_t outlen)
{
	size_t i = 0, nlen = strlen(name);

	while (i < len) {
		size_t e = i;

		while (e < len && raw[e] != '\n')
			e++;
		if (e == i || (e == i + 1 && raw[i] == '\r'))
			break;  /* end of headers */
		if (e - i > nlen && strncasecmp((const char *)raw + i, name,
		    nlen) == 0 && raw[i + nlen] == ':') {
			size_t a = i + nlen + 1, n;

			while (a < e && (raw[a] == ' ' || raw[a] == '\t'))
				a++;
			n = e - a;
			if (n > 0 && raw[a + n - 1] == '\r')
				n--;
			if (n >= outlen)
				n = outlen - 1;
			memcpy(out, raw + a, n);
			out[n] = '\0';
			return true;
		}
		i = e + 1;
	}
	return false;
}

/* Reduce "Name <a@b>" to "a@b"; empty if no plausible address. */
static void
addr_spec(char *s)
{
	char *lt = strchr(s, '<'), *gt;

	if (lt != NULL && (gt = strchr(lt, '>')) != NULL) {
		memmove(s, lt + 1, (size_t)(gt - lt - 1));
		s[gt - lt - 1] = '\0';
	}
	if (strchr(s, '@') == NULL || strpbrk(s, " \t\r\n\"<>,;") != NULL)
		s[0] = '\0';
}

/* Queue a reply of kind to rcpt. A message mime_build cannot write (a
 * sender address, Message-ID or Subject it refuses) is tried again without
 * In-Reply-To and with a plain subject, then given up with a warning:
 * never an error, which would leave the message to be retried forever.
 * Only a database error is one. */
static int
answer(struct msgctx *m, int64_t cid, const char *kind, const char *rcpt,
    const char *body, struct hp_error *err)
{
	struct hp_error qerr = { 0, "" };
	int rc;

	rc = mail_queue_reply(m->st, m->cfg, cid, kind, rcpt,
	    m->message_id[0] ? m->message_id : NULL, m->subject, body,
	    m->hashhex, &qerr);
	if (rc != HP_OK && rc != HP_EDB)
		rc = mail_queue_reply(m->st, m->cfg, cid, kind, rcpt, NULL,
		    NULL, body, m->hashhex, &qerr);
	if (rc == HP_EDB) {
		*err = qerr;
		return rc;
	}
	if (rc != HP_OK)
		log_warn("no %s sent to \"%s\": %s", kind, rcpt, qerr.msg);
	return HP_OK;
}

/* Queue a refusal to rcpt and record the message as rejected. */
static int
refuse(struct msgctx *m, const char *rcpt, int64_t cid, int64_t player,
    const char *reason, const char *errors, const char *help,
    struct hp_error *err)
{
	struct tmpl_ctx *c;
	char *body;
	int rc;

	if (rcpt != NULL && *rcpt != '\0') {
		c = tmpl_ctx_new();
		tmpl_set(c, "subject", m->subject);
		tmpl_set(c, "reason", reason);
		tmpl_set(c, "errors", errors ? errors : "");
		tmpl_set(c, "help", help ? help : "");
		body = mail_render("refusal.txt", c, err);
		tmpl_ctx_free(c);
		if (body == NULL)
			return HP_EINTERNAL;
		rc = answer(m, cid, "refusal", rcpt, body, err);
		free(body);
		if (rc != HP_OK)
			return rc;
	}
	return store_message_record(m->st, m->hash, m->message_id[0] ?
	    m->message_id : NULL, m->mailbox, "rejected", reason, cid, player,
	    err);
}

static const char *help_attach = "Attach your order file as orders.txt and "
    "its signature as orders.txt.minisig\n(minisign -S -m orders.txt), as "
    "plain-text attachments; contrib/hexpost-player\ndoes this for you.";

/* The signed-orders part of intake: MIME already parsed, not automatic. */
static int
take_orders(struct msgctx *m, const struct mime_msg *mm,
    enum intake_outcome *out, struct hp_error *err)
{
	const struct mime_part *sigs[4], *file;
	struct store_player players[INTAKE_MAX_PLAYERS], *p = NULL;
	struct minisign_sig sig;
	struct minisign_pubkey pk;
	struct order_header h;
	struct order_body body;
	struct order_errors oerrs;
	struct turn_submit res;
	struct hp_error verr = { 0, "" };
	char keyhex[17], name[256], reason[1200];
	size_t nsig;
	int np, i, rc;

	*out = INTAKE_REJECTED;
	if (mm->html_only)
		return refuse(m, m->from, 0, 0, "The message has only an HTML "
		    "part; hexpost reads plain-text order files.", NULL,
		    help_attach, err);
	nsig = mime_find_suffix(mm, ".minisig", sigs, 4);
	if (nsig == 0)
		return refuse(m, m->from, 0, 0, mm->nparts > 0 &&
		    mime_find(mm, "orders.txt") != NULL ? "The order file is not "
		    "signed: there is no orders.txt.minisig attached." :
		    "No signed order file is attached.", NULL, help_attach,
		    err);
	if (nsig > 1)
		return refuse(m, m->from, 0, 0, "The message holds more than "
		    "one signed file; send one order file per mail.", NULL,
		    NULL, err);
	strlcpy_(name, sigs[0]->filename, sizeof name);
	name[strlen(name) - strlen(".minisig")] = '\0';
	if ((file = mime_find(mm, name)) == NULL) {
		snprintf(reason, sizeof reason, "The signature %s came without "
		    "the file it signs, %s.", sigs[0]->filename, name);
		return refuse(m, m->from, 0, 0, reason, NULL, help_attach, err);
	}
	if (minisign_sig_parse((const char *)sigs[0]->data, sigs[0]->len, &sig,
	    &verr) != HP_OK) {
		snprintf(reason, sizeof reason, "%s is not a minisign "
		    "signature: %s", sigs[0]->filename, verr.msg);
		return refuse(m, m->from, 0, 0, reason, NULL, NULL, err);
	}
	minisign_keyid_hex(sig.keyid, keyhex);
	if ((np = store_players_by_key(m->st, keyhex, players,
	    INTAKE_MAX_PLAYERS, err)) < 0)
		return np;
	if (np == 0) {
		snprintf(reason, sizeof reason, "The file is signed by key %s, "
		    "which belongs to no player here.", keyhex);
		return refuse(m, m->from, 0, 0, reason, NULL, "Ask the "
		    "moderator to register your minisign public key.", err);
	}
	if (np > INTAKE_MAX_PLAYERS)
		np = INTAKE_MAX_PLAYERS;
	/* Which of the key's campaigns: the one the file's header names. */
	orders_errors_init(&oerrs);
	p = &players[0];
	if (orders_parse_file((const char *)file->data, file->len, &h, &body,
	    &oerrs) == HP_OK) {
		for (i = 0; i < np; i++)
			if (strcmp(players[i].campaign, h.campaign) == 0)
				p = &players[i];
		orders_body_free(&body);
	}
	orders_errors_free(&oerrs);
	if (minisign_pubkey_parse(p->pubkey, strlen(p->pubkey), &pk, &verr) !=
	    HP_OK) {
		hp_seterr(err, HP_EINTERNAL, "stored key of %s: %s", p->name,
		    verr.msg);
		return HP_EINTERNAL;
	}
	if (minisign_verify(&pk, &sig, file->data, file->len, &verr) !=
	    HP_OK) {
		snprintf(reason, sizeof reason, "The signature of %s does not "
		    "verify with your key %s: %s", name, keyhex, verr.msg);
		return refuse(m, p->email, p->campaign_id, p->id, reason, NULL,
		    NULL, err);
	}
	turn_submit_init(&res);
	/* The signer's campaign, never the one the file names: a key gives
	 * orders only where it plays. */
	rc = turn_submit_tx(m->st, p->campaign, (const char *)file->data,
	    file->len, p->side, p->id, "mail", &res, err);
	if (rc == HP_EINVAL) {
		char *etext = orders_errors_text(&res.errs);

		snprintf(reason, sizeof reason, "Your order file %s was "
		    "rejected whole.", name);
		rc = refuse(m, p->email, p->campaign_id, p->id, reason, etext,
		    NULL, err);
		free(etext);
	} else if (rc == HP_OK) {
		struct tmpl_ctx *c = tmpl_ctx_new();
		char *ack;

		tmpl_set(c, "campaign", p->campaign);
		tmpl_set_int(c, "turn", res.turn);
		tmpl_set(c, "window", res.window);
		tmpl_set(c, "key_id", keyhex);
		tmpl_set(c, "player", p->name);
		tmpl_set(c, "orders", res.canon);
		tmpl_set(c, "side", res.side_name);
		if (res.replaced)
			tmpl_set(c, "replaced", "yes");
		/* For standing orders too: they are not the open window's, so
		 * the ack never says every order is in because of them. */
		tmpl_set(c, "waiting", res.waiting);
		ack = mail_render("ack.txt", c, err);
		tmpl_ctx_free(c);
		if (ack == NULL)
			rc = HP_EINTERNAL;
		else {
			rc = answer(m, p->campaign_id, "ack", p->email, ack,
			    err);
			free(ack);
		}
		if (rc == HP_OK)
			rc = store_message_record(m->st, m->hash,
			    m->message_id[0] ? m->message_id : NULL, m->mailbox,
			    "accepted", res.canon, p->campaign_id, p->id, err);
		if (rc == HP_OK)
			*out = INTAKE_ACCEPTED;
	}
	turn_submit_free(&res);
	return rc;
}

/* Take in one message inside the caller's transaction. Nothing is left
 * written unless it returns HP_OK; after an error the caller rolls back. */
static int
message_tx(struct store *st, const struct config *cfg, const char *mailbox,
    const unsigned char *raw, size_t len, enum intake_outcome *out,
    struct hp_error *err)
{
	struct msgctx m;
	struct mime_msg mm;
	struct hp_error perr = { 0, "" };
	bool seen, parsed = false;
	int rc;
	size_t i;

	memset(&m, 0, sizeof m);
	memset(&mm, 0, sizeof mm);
	m.st = st;
	m.cfg = cfg;
	m.mailbox = mailbox;
	crypto_generichash(m.hash, 32, raw, len, NULL, 0);
	for (i = 0; i < 32; i++)
		snprintf(m.hashhex + 2 * i, 3, "%02x", m.hash[i]);
	if (mime_parse(raw, len, &mm, &perr) == HP_OK) {
		parsed = true;
		strlcpy_(m.from, mm.reply_to ? mm.reply_to : mm.from ? mm.from :
		    "", sizeof m.from);
		strlcpy_(m.message_id, mm.message_id ? mm.message_id : "",
		    sizeof m.message_id);
		strlcpy_(m.subject, mm.subject ? mm.subject : "",
		    sizeof m.subject);
		m.automatic = mm.automatic;
	} else {
		char v[256];

		if (raw_header(raw, len, "From", m.from, sizeof m.from))
			addr_spec(m.from);
		if (raw_header(raw, len, "Message-ID", v, sizeof v)) {
			addr_spec(v);
			strlcpy_(m.message_id, v, sizeof m.message_id);
		}
		raw_header(raw, len, "Subject", m.subject, sizeof m.subject);
		for (i = 0; m.subject[i] != '\0'; i++)
			if ((unsigned char)m.subject[i] < 0x20 ||
			    (unsigned char)m.subject[i] >= 0x7f)
				m.subject[i] = '?';
		/* mime_parse says what it could read of the headers (a
		 * multipart/report, From postmaster, Precedence, ...). */
		m.automatic = mm.automatic ||
		    (raw_header(raw, len, "Auto-Submitted", v, sizeof v) &&
		    strncasecmp(v, "no", 2) != 0) ||
		    (raw_header(raw, len, "Return-Path", v, sizeof v) &&
		    strcmp(v, "<>") == 0) ||
		    raw_header(raw, len, "List-Id", v, sizeof v) ||
		    strncasecmp(m.from, "mailer-daemon@", 14) == 0;
	}
	if ((rc = store_message_seen(st, m.hash, m.message_id[0] ?
	    m.message_id : NULL, &seen, err)) != HP_OK)
		goto done;
	if (seen) {
		*out = INTAKE_DUPLICATE;
		goto done;
	}
	if (m.automatic) {
		*out = INTAKE_IGNORED;
		rc = store_message_record(st, m.hash, m.message_id[0] ?
		    m.message_id : NULL, mailbox, "ignored", mm.auto_reason[0] ?
		    mm.auto_reason : "automatic mail", 0, 0, err);
	} else if (!parsed) {
		char reason[700];

		*out = INTAKE_REJECTED;
		snprintf(reason, sizeof reason, "The message could not be read: "
		    "%s", perr.msg);
		rc = refuse(&m, m.from, 0, 0, reason, NULL, help_attach, err);
	} else
		rc = take_orders(&m, &mm, out, err);
done:
	if (parsed)
		mime_msg_free(&mm);
	return rc;
}

int
intake_message(struct store *st, const struct config *cfg,
    const char *mailbox, const unsigned char *raw, size_t len,
    enum intake_outcome *out, struct hp_error *err)
{
	int rc;

	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	if ((rc = message_tx(st, cfg, mailbox, raw, len, out, err)) !=
	    HP_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st, err);
}

/* Read message e; NULL (logged) if it cannot be read now. */
static unsigned char *
read_message(const struct maildir_entry *e, size_t *len)
{
	struct hp_error merr = { 0, "" };
	unsigned char *raw;

	raw = maildir_read(e, MIME_MAX_MESSAGE + 1, len, &merr);
	if (raw == NULL && merr.code == HP_EINVAL) {
		/* Too large for the limit: read it whole, to be refused. */
		raw = maildir_read(e, (size_t)-1, len, &merr);
	}
	if (raw == NULL)
		log_warn("%s: %s", e->path, merr.msg);
	return raw;
}

/* Take in ents[0..n) in one transaction, a savepoint each, then flag the
 * ones whose effect was committed. A message that fails is rolled back
 * alone and left for the next run. */
static int
intake_batch(struct store *st, const struct config *cfg, const char *dir,
    struct maildir_entry *ents, size_t n, struct intake_stats *stats,
    struct hp_error *err)
{
	enum intake_outcome *o = xcalloc(n, sizeof *o);
	bool *ok = xcalloc(n, sizeof *ok);
	struct hp_error merr;
	size_t i;
	int rc;

	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	for (i = 0; i < n; i++) {
		unsigned char *raw;
		size_t len;

		if ((raw = read_message(&ents[i], &len)) == NULL)
			continue;
		memset(&merr, 0, sizeof merr);
		if ((rc = store_savepoint(st, &merr)) == HP_OK) {
			rc = message_tx(st, cfg, dir, raw, len, &o[i], &merr);
			if (rc == HP_OK)
				rc = store_release(st, &merr);
			else
				store_rollback_savepoint(st);
		}
		free(raw);
		if (rc == HP_OK) {
			ok[i] = true;
			continue;
		}
		log_warn("%s: left for the next run: %s", ents[i].name,
		    merr.msg);
		if (!store_in_transaction(st)) {
			/* SQLite gave up the whole transaction: what was taken
			 * in is lost with it, and comes back next run. */
			memset(ok, 0, n * sizeof *ok);
			if ((rc = store_begin(st, err)) != HP_OK)
				goto out;
		}
	}
	if ((rc = store_commit(st, err)) != HP_OK)
		goto out;
	for (i = 0; i < n; i++) {
		if (!ok[i]) {
			stats->deferred++;
			continue;
		}
		stats->n[o[i]]++;
		log_info("%s: %s", ents[i].name, intake_stroutcome(o[i]));
		memset(&merr, 0, sizeof merr);
		if (maildir_mark_sync(dir, &ents[i], 'S', false, &merr) !=
		    HP_OK)
			log_warn("%s: %s", ents[i].name, merr.msg);
	}
	memset(&merr, 0, sizeof merr);
	if (maildir_sync(dir, &merr) != HP_OK)
		log_warn("%s", merr.msg);
out:
	free(o);
	free(ok);
	return rc;
}

int
intake_run(struct store *st, const struct config *cfg,
    struct intake_stats *stats, struct hp_error *err)
{
	struct maildir_entry *ents = NULL;
	const char *dir;
	size_t n = 0, i, k;
	int rc = HP_OK;

	memset(stats, 0, sizeof *stats);
	if (strncmp(cfg->mailbox, "maildir:", 8) != 0) {
		hp_seterr(err, HP_EINVAL, "mailbox '%s': expected maildir:DIR",
		    cfg->mailbox);
		return HP_EINVAL;
	}
	dir = cfg->mailbox + 8;
	if ((rc = maildir_list(dir, 'S', &ents, &n, err)) != HP_OK)
		return rc;
	for (i = 0; i < n && rc == HP_OK; i += k) {
		k = n - i < INTAKE_BATCH ? n - i : INTAKE_BATCH;
		if ((rc = intake_batch(st, cfg, dir, ents + i, k, stats,
		    err)) != HP_OK)
			stats->deferred += (int)(n - i);
	}
	maildir_list_free(ents, n);
	return rc;
}
