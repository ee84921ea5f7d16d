/* intake: signed orders by mail (see include/intake.h). */
#include <ctype.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deadline.h"
#include "intake.h"
#include "mail.h"
#include "maildir.h"
#include "mime.h"
#include "minisign.h"
#include "moderator.h"
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
	const struct prepared *pre;
};

#define INTAKE_MAX_VERIFY 4
#define INTAKE_AHEAD 256   /* messages prepared ahead of the transaction */
#define INTAKE_WORKERS 2

/* What can be worked out of a message without the database, on a worker
 * thread: the message read and parsed, and its signature checked against
 * every registered key with the signature's key id. */
struct prepared {
	unsigned char *raw;       /* NULL: could not be read now */
	size_t len;
	unsigned char hash[32];   /* BLAKE2b-256 of raw */
	bool parsed;
	struct mime_msg mm;       /* owned when parsed */
	struct hp_error perr;
	int nver;
	struct {
		char *pubkey;
		int rc;
		char msg[HP_ERRLEN];
	} ver[INTAKE_MAX_VERIFY];
};

/* The registered public keys, by key id, loaded once per run. */
struct keyring {
	struct {
		char key_id[17];
		char *pubkey;
	} *v;
	size_t n;
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

/* A signed command file from player p (its signature verified): carry it
 * out and answer, or refuse it. */
static int
take_command(struct msgctx *m, const struct store_player *p, const char *name,
    const struct mime_part *file, enum intake_outcome *out,
    struct hp_error *err)
{
	struct mod_command cmd;
	struct hp_error cerr = { 0, "" };
	struct sbuf reply;
	char reason[900];
	int rc;

	sbuf_init(&reply);
	sbuf_add(&reply, "", 0);
	rc = moderator_parse((const char *)file->data, file->len, &cmd, &cerr);
	if (rc == HP_OK)
		rc = moderator_exec(m->st, m->cfg, &cmd, p, deadline_now(),
		    &reply, &cerr);
	if (rc == HP_EDB || rc == HP_EINTERNAL || rc == HP_EIO) {
		*err = cerr;
	} else if (rc != HP_OK) {
		snprintf(reason, sizeof reason, "Your command file %s was "
		    "refused: %s", name, cerr.msg);
		rc = refuse(m, p->email, p->campaign_id, p->id, reason, NULL,
		    NULL, err);
	} else if ((rc = answer(m, p->campaign_id, "command", p->email,
	    reply.buf, err)) == HP_OK &&
	    (rc = store_message_record(m->st, m->hash, m->message_id[0] ?
	    m->message_id : NULL, m->mailbox, "request", cmd.verb,
	    p->campaign_id, p->id, err)) == HP_OK)
		*out = INTAKE_ACCEPTED;
	sbuf_free(&reply);
	return rc;
}

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
	struct mod_command cmd;
	bool command;
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
	if ((command = moderator_is_command((const char *)file->data,
	    file->len)) && moderator_parse((const char *)file->data, file->len,
	    &cmd, NULL) == HP_OK)
		for (i = 0; i < np; i++)
			if (strcmp(players[i].campaign, cmd.campaign) == 0)
				p = &players[i];
	for (i = 0; i < m->pre->nver; i++)
		if (strcmp(m->pre->ver[i].pubkey, p->pubkey) == 0)
			break;
	if (i < m->pre->nver) {
		/* Checked ahead, on a worker thread, with this very key. */
		rc = m->pre->ver[i].rc;
		hp_seterr(&verr, rc, "%s", m->pre->ver[i].msg);
	} else if (minisign_pubkey_parse(p->pubkey, strlen(p->pubkey), &pk,
	    &verr) != HP_OK) {
		hp_seterr(err, HP_EINTERNAL, "stored key of %s: %s", p->name,
		    verr.msg);
		return HP_EINTERNAL;
	} else
		rc = minisign_verify(&pk, &sig, file->data, file->len, &verr);
	if (rc != HP_OK) {
		snprintf(reason, sizeof reason, "The signature of %s does not "
		    "verify with your key %s: %s", name, keyhex, verr.msg);
		return refuse(m, p->email, p->campaign_id, p->id, reason, NULL,
		    NULL, err);
	}
	if (command)
		return take_command(m, p, name, file, out, err);
	turn_submit_init(&res);
	/* The signer's campaign, never the one the file names: a key gives
	 * orders only where it plays. */
	rc = turn_submit_tx(m->st, p->campaign, (const char *)file->data,
	    file->len, p->side, p->id, "mail", &res, err);
	if (rc == HP_OK) {
		/* The audit checks each order file against its signature. */
		unsigned char fh[32];

		crypto_generichash(fh, sizeof fh, file->data, file->len, NULL,
		    0);
		rc = store_ordersig_put(m->st, fh, (const char *)sigs[0]->data,
		    sigs[0]->len, p->pubkey, p->key_id, p->id, err);
	}
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
    const struct prepared *pre, enum intake_outcome *out,
    struct hp_error *err)
{
	const unsigned char *raw = pre->raw;
	size_t len = pre->len, i;
	struct msgctx m;
	bool seen, parsed = pre->parsed;
	int rc;

	memset(&m, 0, sizeof m);
	m.st = st;
	m.cfg = cfg;
	m.mailbox = mailbox;
	m.pre = pre;
	memcpy(m.hash, pre->hash, sizeof m.hash);
	for (i = 0; i < 32; i++)
		snprintf(m.hashhex + 2 * i, 3, "%02x", m.hash[i]);
	if (parsed) {
		const struct mime_msg *mm = &pre->mm;

		strlcpy_(m.from, mm->reply_to ? mm->reply_to : mm->from ?
		    mm->from : "", sizeof m.from);
		strlcpy_(m.message_id, mm->message_id ? mm->message_id : "",
		    sizeof m.message_id);
		strlcpy_(m.subject, pre->mm.subject ? pre->mm.subject : "",
		    sizeof m.subject);
		m.automatic = pre->mm.automatic;
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
		m.automatic = pre->mm.automatic ||
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
		    m.message_id : NULL, mailbox, "ignored",
		    pre->mm.auto_reason[0] ? pre->mm.auto_reason :
		    "automatic mail", 0, 0, err);
	} else if (!parsed) {
		char reason[700];

		*out = INTAKE_REJECTED;
		snprintf(reason, sizeof reason, "The message could not be read: "
		    "%s", pre->perr.msg);
		rc = refuse(&m, m.from, 0, 0, reason, NULL, help_attach, err);
	} else
		rc = take_orders(&m, &pre->mm, out, err);
done:
	return rc;
}

/* Work out pre for raw (taking ownership of raw) without the database:
 * parse it, and if it carries one signed file, verify that file against
 * every key of kr (may be NULL) with the signature's key id. Safe on any
 * thread once mime_init has run. */
static void
prepare(struct prepared *pre, unsigned char *raw, size_t len,
    const struct keyring *kr)
{
	const struct mime_part *sigs[2], *file;
	struct minisign_sig sig;
	struct minisign_pubkey pk;
	struct hp_error verr;
	char keyhex[17], name[256];
	size_t i;

	memset(pre, 0, sizeof *pre);
	pre->raw = raw;
	pre->len = len;
	crypto_generichash(pre->hash, sizeof pre->hash, raw, len, NULL, 0);
	pre->parsed = mime_parse(raw, len, &pre->mm, &pre->perr) == HP_OK;
	if (!pre->parsed || kr == NULL || pre->mm.automatic ||
	    pre->mm.html_only ||
	    mime_find_suffix(&pre->mm, ".minisig", sigs, 2) != 1)
		return;
	strlcpy_(name, sigs[0]->filename, sizeof name);
	name[strlen(name) - strlen(".minisig")] = '\0';
	if ((file = mime_find(&pre->mm, name)) == NULL ||
	    minisign_sig_parse((const char *)sigs[0]->data, sigs[0]->len, &sig,
	    &verr) != HP_OK)
		return;
	minisign_keyid_hex(sig.keyid, keyhex);
	for (i = 0; i < kr->n && pre->nver < INTAKE_MAX_VERIFY; i++) {
		if (strcmp(kr->v[i].key_id, keyhex) != 0 ||
		    minisign_pubkey_parse(kr->v[i].pubkey,
		    strlen(kr->v[i].pubkey), &pk, &verr) != HP_OK)
			continue;
		memset(&verr, 0, sizeof verr);
		pre->ver[pre->nver].rc = minisign_verify(&pk, &sig, file->data,
		    file->len, &verr);
		strlcpy_(pre->ver[pre->nver].msg, verr.msg,
		    sizeof pre->ver[0].msg);
		pre->ver[pre->nver++].pubkey = xstrdup(kr->v[i].pubkey);
	}
}

static void
prepared_free(struct prepared *pre)
{
	int i;

	if (pre->parsed)
		mime_msg_free(&pre->mm);
	for (i = 0; i < pre->nver; i++)
		free(pre->ver[i].pubkey);
	free(pre->raw);
	memset(pre, 0, sizeof *pre);
}

int
intake_message(struct store *st, const struct config *cfg,
    const char *mailbox, const unsigned char *raw, size_t len,
    enum intake_outcome *out, struct hp_error *err)
{
	struct prepared pre;
	unsigned char *copy = xmalloc(len + 1);
	int rc;

	memcpy(copy, raw, len);
	copy[len] = '\0';
	prepare(&pre, copy, len, NULL);
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = message_tx(st, cfg, mailbox, &pre, out, err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	rc = store_commit(st, err);
out:
	prepared_free(&pre);
	return rc;
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

/* Messages are prepared by worker threads, in order and at most
 * INTAKE_AHEAD ahead, while the main thread takes them in. */
struct pipeline {
	pthread_mutex_t mu;
	pthread_cond_t ready;      /* a message was prepared */
	pthread_cond_t room;       /* the main thread took some in */
	struct maildir_entry *ents;
	struct prepared *pre;      /* n entries */
	bool *done;
	size_t n;
	size_t next;               /* next message to prepare */
	size_t taken;              /* messages the main thread is done with */
	bool stop;
	const struct keyring *kr;
};

static void *
pipeline_worker(void *arg)
{
	struct pipeline *pl = arg;
	unsigned char *raw;
	size_t i, len = 0;

	for (;;) {
		pthread_mutex_lock(&pl->mu);
		while (!pl->stop && pl->next < pl->n &&
		    pl->next >= pl->taken + INTAKE_AHEAD)
			pthread_cond_wait(&pl->room, &pl->mu);
		if (pl->stop || pl->next >= pl->n) {
			pthread_mutex_unlock(&pl->mu);
			return NULL;
		}
		i = pl->next++;
		pthread_mutex_unlock(&pl->mu);
		if ((raw = read_message(&pl->ents[i], &len)) != NULL)
			prepare(&pl->pre[i], raw, len, pl->kr);
		pthread_mutex_lock(&pl->mu);
		pl->done[i] = true;
		pthread_cond_broadcast(&pl->ready);
		pthread_mutex_unlock(&pl->mu);
	}
}

/* Wait until message i is prepared. */
static struct prepared *
pipeline_get(struct pipeline *pl, size_t i)
{
	pthread_mutex_lock(&pl->mu);
	while (!pl->done[i])
		pthread_cond_wait(&pl->ready, &pl->mu);
	pthread_mutex_unlock(&pl->mu);
	return &pl->pre[i];
}

/* The main thread is done with messages before upto: free them. */
static void
pipeline_release(struct pipeline *pl, size_t from, size_t upto)
{
	size_t i;

	for (i = from; i < upto; i++)
		prepared_free(&pl->pre[i]);
	pthread_mutex_lock(&pl->mu);
	pl->taken = upto;
	pthread_cond_broadcast(&pl->room);
	pthread_mutex_unlock(&pl->mu);
}

/* Take in messages [first, first + k) in one transaction, a savepoint
 * each, then flag the ones whose effect was committed. A message that
 * fails is rolled back alone and left for the next run. */
static int
intake_batch(struct store *st, const struct config *cfg, const char *dir,
    struct pipeline *pl, size_t first, size_t k, struct intake_stats *stats,
    struct hp_error *err)
{
	enum intake_outcome *o = xcalloc(k, sizeof *o);
	bool *ok = xcalloc(k, sizeof *ok);
	struct maildir_entry *ents = pl->ents + first;
	struct hp_error merr;
	size_t i;
	int rc;

	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	for (i = 0; i < k; i++) {
		struct prepared *pre = pipeline_get(pl, first + i);

		if (pre->raw == NULL)
			continue;
		memset(&merr, 0, sizeof merr);
		if ((rc = store_savepoint(st, &merr)) == HP_OK) {
			rc = message_tx(st, cfg, dir, pre, &o[i], &merr);
			if (rc == HP_OK)
				rc = store_release(st, &merr);
			else
				store_rollback_savepoint(st);
		}
		if (rc == HP_OK) {
			ok[i] = true;
			continue;
		}
		log_warn("%s: left for the next run: %s", ents[i].name,
		    merr.msg);
		if (!store_in_transaction(st)) {
			/* SQLite gave up the whole transaction: what was taken
			 * in is lost with it, and comes back next run. */
			memset(ok, 0, k * sizeof *ok);
			if ((rc = store_begin(st, err)) != HP_OK)
				goto out;
		}
	}
	if ((rc = store_commit(st, err)) != HP_OK)
		goto out;
	for (i = 0; i < k; i++) {
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

static void
keyring_add(const char *key_id, const char *pubkey, void *arg)
{
	struct keyring *kr = arg;

	kr->v = xrealloc(kr->v, (kr->n + 1) * sizeof *kr->v);
	strlcpy_(kr->v[kr->n].key_id, key_id, sizeof kr->v[0].key_id);
	kr->v[kr->n++].pubkey = xstrdup(pubkey);
}

static void
keyring_free(struct keyring *kr)
{
	size_t i;

	for (i = 0; i < kr->n; i++)
		free(kr->v[i].pubkey);
	free(kr->v);
}

int
intake_run(struct store *st, const struct config *cfg,
    struct intake_stats *stats, struct hp_error *err)
{
	struct keyring kr = { NULL, 0 };
	struct pipeline pl;
	pthread_t workers[INTAKE_WORKERS];
	const char *dir;
	size_t i, k;
	int rc, nw = 0, w;

	memset(stats, 0, sizeof *stats);
	memset(&pl, 0, sizeof pl);
	if (strncmp(cfg->mailbox, "maildir:", 8) != 0) {
		hp_seterr(err, HP_EINVAL, "mailbox '%s': expected maildir:DIR",
		    cfg->mailbox);
		return HP_EINVAL;
	}
	dir = cfg->mailbox + 8;
	if ((rc = maildir_list(dir, 'S', &pl.ents, &pl.n, err)) != HP_OK)
		return rc;
	if (pl.n == 0)
		goto out;
	if ((rc = store_keyring(st, keyring_add, &kr, err)) != HP_OK)
		goto out;
	mime_init();
	pl.pre = xcalloc(pl.n, sizeof *pl.pre);
	pl.done = xcalloc(pl.n, sizeof *pl.done);
	pl.kr = &kr;
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.ready, NULL);
	pthread_cond_init(&pl.room, NULL);
	for (w = 0; w < INTAKE_WORKERS && (size_t)w < pl.n; w++) {
		if (pthread_create(&workers[w], NULL, pipeline_worker, &pl) !=
		    0)
			break;
		nw++;
	}
	if (nw == 0) {
		hp_seterr(err, HP_EIO, "intake: cannot start a thread");
		stats->deferred = (int)pl.n;
		rc = HP_EIO;
	}
	for (i = 0; i < pl.n && rc == HP_OK; i += k) {
		k = pl.n - i < INTAKE_BATCH ? pl.n - i : INTAKE_BATCH;
		if ((rc = intake_batch(st, cfg, dir, &pl, i, k, stats, err)) !=
		    HP_OK)
			stats->deferred += (int)(pl.n - i);
		pipeline_release(&pl, i, i + k);
	}
	pthread_mutex_lock(&pl.mu);
	pl.stop = true;
	pthread_cond_broadcast(&pl.room);
	pthread_mutex_unlock(&pl.mu);
	for (w = 0; w < nw; w++)
		pthread_join(workers[w], NULL);
	for (i = 0; i < pl.n; i++)
		prepared_free(&pl.pre[i]);
	pthread_cond_destroy(&pl.room);
	pthread_cond_destroy(&pl.ready);
	pthread_mutex_destroy(&pl.mu);
out:
	keyring_free(&kr);
	free(pl.pre);
	free(pl.done);
	maildir_list_free(pl.ents, pl.n);
	return rc;
}
