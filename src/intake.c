/* intake: signed orders by mail (see include/intake.h). How a burst is
 * made cheap (worker threads, batches with a savepoint a message, the
 * statement journal in memory, flagging on a thread, the campaign cache):
 * docs/ARCHITECTURE.md section 1b. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bounce.h"
#include "deadline.h"
#include "intake.h"
#include "mail.h"
#include "maildir.h"
#include "mime.h"
#include "minisign.h"
#include "moderator.h"
#include "modstmt.h"
#include "seedchain.h"
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
	bool unanswered;         /* a refusal to a stranger not mailed */
	const struct prepared *pre;
	struct turn_cache *tc;   /* campaigns read once a run; may be NULL */
	const unsigned char *content; /* the body hash, kept with the record */
	bool content_kept;       /* recorded with it: no UPDATE after */
};

/* Record the message (store_message_record) with its body hash in the
 * same row (issue 17: one statement, not an INSERT and an UPDATE). */
static int
record(struct msgctx *m, const char *outcome, const char *detail,
    int64_t cid, int64_t player, struct hp_error *err)
{
	int rc;

	rc = store_message_record_content(m->st, m->hash, m->message_id[0] ?
	    m->message_id : NULL, m->mailbox, outcome, detail, cid, player,
	    m->content, err);
	if (rc == HP_OK)
		m->content_kept = true;
	return rc;
}

#define INTAKE_MAX_VERIFY 4
#define INTAKE_AHEAD 256   /* messages prepared ahead of the transaction */
/* Bytes of prepared messages held at once (at least one is always
 * prepared, however large: at most MIME_MAX_MESSAGE and its parts). */
#define INTAKE_AHEAD_BYTES (32 * 1024 * 1024)
/* What is read of a message too large to take in: its beginning, for
 * the headers that say whether it is automatic mail. */
#define INTAKE_HEAD (64 * 1024)
#define INTAKE_WORKERS 2
#define INTAKE_VARIANTS 9  /* line-ending variants of a text part */
#define INTAKE_DAY 86400

/* What can be worked out of a message without the database, on a worker
 * thread: the message read and parsed, and its signature checked against
 * every registered key with the signature's key id. */
struct prepared {
	unsigned char *raw;       /* NULL: could not be read now */
	size_t len;
	unsigned char hash[32];   /* BLAKE2b-256 of the whole message */
	unsigned char content[32]; /* of its body, CRLF read as LF */
	uint64_t total;           /* its size: more than len when too large */
	bool parsed;
	struct mime_msg mm;       /* owned when parsed */
	struct hp_error perr;
	size_t cost;              /* bytes held, for the pipeline's cap */
	int nver;
	struct {
		char *pubkey;
		int rc;
		char msg[HP_ERRLEN];
		unsigned char *bytes; /* what verified (rc HP_OK), owned */
		size_t blen;
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

/* Should a refusal of no player's (player 0) go to rcpt? Only to an
 * address some player registered: mail from strangers is mostly spam with
 * forged senders, and answering it is backscatter. A stranger gets one
 * short answer a day with stranger_replies = daily (*stranger set), else
 * nothing; the refusal is logged and counted instead. */
static int
refusal_wanted(struct msgctx *m, const char *rcpt, int64_t player,
    const char *reason, bool *wanted, bool *stranger, struct hp_error *err)
{
	bool reg = false, may = false;
	int rc;

	*wanted = rcpt != NULL && *rcpt != '\0';
	*stranger = false;
	if (!*wanted || player > 0)
		return HP_OK;
	if ((rc = store_email_registered(m->st, rcpt, &reg, err)) != HP_OK)
		return rc;
	if (reg)
		return HP_OK;
	if (m->cfg->stranger_daily && (rc = store_stranger_answer(m->st, rcpt,
	    deadline_now(), INTAKE_DAY, &may, err)) != HP_OK)
		return rc;
	if (may) {
		*stranger = true;
		return HP_OK;
	}
	log_info("message %.12s from %s, no registered player's address: "
	    "not answered: %s", m->hashhex, rcpt, reason);
	m->unanswered = true;
	*wanted = false;
	return HP_OK;
}

/* Queue a refusal to rcpt (see refusal_wanted) and record the message as
 * rejected. */
static int
refuse(struct msgctx *m, const char *rcpt, int64_t cid, int64_t player,
    const char *reason, const char *errors, const char *help,
    struct hp_error *err)
{
	struct tmpl_ctx *c;
	char *body;
	bool wanted, stranger;
	int rc;

	if ((rc = refusal_wanted(m, rcpt, player, reason, &wanted, &stranger,
	    err)) != HP_OK)
		return rc;
	if (wanted) {
		c = tmpl_ctx_new();
		tmpl_set(c, "subject", m->subject);
		tmpl_set(c, "reason", reason);
		/* A stranger's answer is short: the reason alone. */
		tmpl_set(c, "errors", errors && !stranger ? errors : "");
		tmpl_set(c, "help", help && !stranger ? help : "");
		if (stranger)
			tmpl_set(c, "stranger", "yes");
		body = mail_render("refusal.txt", c, err);
		tmpl_ctx_free(c);
		if (body == NULL)
			return HP_EINTERNAL;
		rc = answer(m, cid, "refusal", rcpt, body, err);
		free(body);
		if (rc != HP_OK)
			return rc;
	}
	return record(m, "rejected", reason, cid, player, err);
}

/* The signature of a message and the file it signs. */
struct signed_pair {
	const struct mime_part *sig;   /* NAME.minisig, or NAME.sig */
	const struct mime_part *file;  /* NAME, or NAME.EXT for NAME.minisig */
	char name[256];                /* the file's name */
};

/* Does name end with suffix (case-insensitive)? */
static bool
ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && strcasecmp(name + n - k, suffix) == 0;
}

/* Find the one signature of mm and the file it signs into sp. The
 * signature may be named FILE.minisig (minisign's name), FILE.sig, or
 * STEM.minisig beside STEM.EXT. Returns 0 if found, else 1 (no
 * signature), 2 (several) or 3 (a signature without its file) with
 * reason, and *help whether the "attach your file" advice applies. */
static int
signed_pair_find(const struct mime_msg *mm, struct signed_pair *sp,
    char *reason, size_t rlen, bool *help)
{
	const struct mime_part *sigs[4], *cand = NULL;
	size_t nsig, i, n;
	int ncand = 0;

	memset(sp, 0, sizeof *sp);
	*help = true;
	nsig = mime_find_suffix(mm, ".minisig", sigs, 4);
	if (nsig < 4)
		nsig += mime_find_suffix(mm, ".sig", sigs + nsig, 4 - nsig);
	if (nsig == 0) {
		snprintf(reason, rlen, "%s", mm->nparts > 0 &&
		    mime_find(mm, "orders.txt") != NULL ? "The order file is "
		    "not signed: there is no orders.txt.minisig attached." :
		    "No signed order file is attached.");
		return 1;
	}
	if (nsig > 1) {
		*help = false;
		snprintf(reason, rlen, "The message holds more than one "
		    "signed file; send one order file per mail.");
		return 2;
	}
	sp->sig = sigs[0];
	strlcpy_(sp->name, sigs[0]->filename, sizeof sp->name);
	n = strlen(sp->name);
	sp->name[n - (ends_with(sp->name, ".minisig") ? 8 : 4)] = '\0';
	if ((sp->file = mime_find(mm, sp->name)) != NULL)
		return 0;
	/* orders.minisig beside orders.txt; or else the one other file. */
	n = strlen(sp->name);
	for (i = 0; i < mm->nparts; i++) {
		const char *f = mm->parts[i].filename;

		if (f == NULL || &mm->parts[i] == sp->sig)
			continue;
		if (strncasecmp(f, sp->name, n) == 0 && f[n] == '.' &&
		    strchr(f + n + 1, '.') == NULL) {
			sp->file = &mm->parts[i];
			strlcpy_(sp->name, f, sizeof sp->name);
			return 0;
		}
		cand = &mm->parts[i];
		ncand++;
	}
	if (ncand == 1)
		snprintf(reason, rlen, "The signature %s came without the file "
		    "it signs, %s. If it signs %s, name the signature "
		    "%s.minisig (minisign -S -m %s names it so).",
		    sigs[0]->filename, sp->name, cand->filename,
		    cand->filename, cand->filename);
	else
		snprintf(reason, rlen, "The signature %s came without the file "
		    "it signs, %s.", sigs[0]->filename, sp->name);
	sp->sig = NULL;
	return 3;
}

/* A copy of len bytes of data with CRLF turned LF (crlf false) or every
 * line end CRLF (crlf true); *outlen its length. Caller frees. */
static unsigned char *
line_ends(const unsigned char *data, size_t len, bool crlf, size_t *outlen)
{
	unsigned char *out = xmalloc(2 * len + 3);
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (data[i] == '\r' && i + 1 < len && data[i + 1] == '\n')
			continue;   /* the LF below writes the line end */
		if (data[i] == '\n' && crlf)
			out[o++] = '\r';
		out[o++] = data[i];
	}
	*outlen = o;
	return out;
}

/* Verify part f with key pk and signature sig. A part sent base64 is
 * checked as decoded: its bytes are exact. Any other transfer encoding
 * (7bit, 8bit, quoted-printable) leaves line ends to the mail system:
 * IMAP hands out CRLF, a Maildir holds what the server wrote, Outlook
 * writes CRLF in quoted-printable, and a file without a final newline gets
 * one from some clients. So the part as decoded, with LF line ends, and
 * with CRLF, each also without and with a final line end, is tried: the
 * signature decides which are the bytes the player signed. On success
 * *out is a copy of those bytes (caller frees). rc and verr are those of
 * the part as decoded when none verifies. */
static int
verify_part(const struct minisign_pubkey *pk, const struct minisign_sig *sig,
    const struct mime_part *f, unsigned char **out, size_t *outlen,
    struct hp_error *verr)
{
	unsigned char *v[INTAKE_VARIANTS];
	size_t vl[INTAKE_VARIANTS], nv = 0, b, j, k;
	struct hp_error e;
	int rc, first = HP_EINVAL;

	*out = NULL;
	*outlen = 0;
	v[nv] = xmalloc(f->len + 3);
	memcpy(v[nv], f->data, f->len);
	vl[nv++] = f->len;
	if (!f->base64) {
		v[nv] = line_ends(f->data, f->len, false, &vl[nv]);
		nv++;
		v[nv] = line_ends(f->data, f->len, true, &vl[nv]);
		nv++;
		for (b = 0; b < 3; b++) {
			size_t l = vl[b];
			bool crlf = b == 2 || (b == 0 && l >= 2 &&
			    v[0][l - 2] == '\r');

			v[nv] = xmalloc(l + 3);
			memcpy(v[nv], v[b], l);
			if (l > 0 && v[b][l - 1] == '\n')
				vl[nv] = l - (l >= 2 && v[b][l - 2] == '\r' ?
				    2 : 1);
			else {
				if (crlf)
					v[nv][l++] = '\r';
				v[nv][l++] = '\n';
				vl[nv] = l;
			}
			nv++;
		}
	}
	for (j = 0; j < nv; j++) {
		for (k = 0; k < j; k++)
			if (vl[k] == vl[j] && memcmp(v[k], v[j], vl[j]) == 0)
				break;
		if (k < j)
			continue;   /* tried already */
		memset(&e, 0, sizeof e);
		rc = minisign_verify(pk, sig, v[j], vl[j], &e);
		if (j == 0) {
			first = rc;
			*verr = e;
		}
		if (rc == HP_OK) {
			*out = v[j];
			*outlen = vl[j];
			v[j] = NULL;
			first = HP_OK;
			break;
		}
	}
	for (j = 0; j < nv; j++)
		free(v[j]);
	return first;
}

/* The header of order file data into h, as far as it parses. */
static void
header_of(const unsigned char *data, size_t len, struct order_header *h)
{
	struct order_body body;
	struct order_errors oerrs;

	orders_errors_init(&oerrs);
	memset(h, 0, sizeof *h);
	if (orders_parse_file((const char *)data, len, h, &body, &oerrs) ==
	    HP_OK)
		orders_body_free(&body);
	orders_errors_free(&oerrs);
}

/* A file's "chain:" header against campaign cid's seed chain head: into
 * reason (size rlen) why not, "" when it names that head or none. */
static int
chain_header_check(struct store *st, int64_t cid, const unsigned char *data,
    size_t len, char *reason, size_t rlen, struct hp_error *err)
{
	struct order_header h;
	struct store_chain ch;
	struct seedchain sc;
	char head[65];
	int rc;

	reason[0] = '\0';
	header_of(data, len, &h);
	if (!(h.have & ORDERS_H_CHAIN))
		return HP_OK;
	if ((rc = store_chain_get(st, cid, &ch, err)) != HP_OK &&
	    rc != HP_ENOENT)
		return rc;
	head[0] = '\0';
	if (rc == HP_OK && seedchain_parse(ch.statement, &sc, NULL) == HP_OK)
		sodium_bin2hex(head, sizeof head, sc.head, sizeof sc.head);
	if (rc == HP_OK)
		store_chain_free(&ch);
	if (strcmp(head, h.chain) != 0)
		snprintf(reason, rlen, "Your order file names the seed chain "
		    "head %.16s..., but this campaign's seed chain statement "
		    "has %.16s...: compare it with the statement in your "
		    "welcome mail (if they differ, the server replaced the "
		    "chain; keep that mail).", h.chain, head[0] ? head :
		    "(none)");
	return HP_OK;
}

/* The address part of hexpost's own "Name <addr>" or "addr" from into
 * out. */
static void
own_address(const char *from, char *out, size_t outlen)
{
	strlcpy_(out, from, outlen);
	addr_spec(out);
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
	    (rc = record(m, "request", cmd.verb, p->campaign_id, p->id,
	    err)) == HP_OK)
		*out = INTAKE_ACCEPTED;
	sbuf_free(&reply);
	return rc;
}

/* Refuse a statement whose signature by the campaign's moderator key
 * verified: its sender is the moderator (or replays the moderator's mail),
 * so the refusal goes to the sender even if no player has that address. */
static int
refuse_moderator(struct msgctx *m, int64_t cid, const char *reason,
    struct hp_error *err)
{
	struct tmpl_ctx *c = tmpl_ctx_new();
	char *body;
	int rc;

	tmpl_set(c, "subject", m->subject);
	tmpl_set(c, "reason", reason);
	tmpl_set(c, "errors", "");
	tmpl_set(c, "help", "");
	body = mail_render("refusal.txt", c, err);
	tmpl_ctx_free(c);
	if (body == NULL)
		return HP_EINTERNAL;
	rc = answer(m, cid, "refusal", m->from, body, err);
	free(body);
	if (rc != HP_OK)
		return rc;
	return record(m, "rejected", reason, cid, 0, err);
}

/* For a mailed 'replace' statement: the new player's email, name and key
 * from a command file attached beside it (command: replace SIDE), which
 * must name the statement's campaign and side. *reason set if refused. */
static void
statement_replace_details(const struct mime_msg *mm,
    const struct signed_pair *sp, const struct modstmt *ms,
    struct mod_command *cmd, char *reason, size_t rlen)
{
	struct mod_command c2;
	size_t i;

	reason[0] = '\0';
	for (i = 0; i < mm->nparts; i++) {
		const struct mime_part *p = &mm->parts[i];

		if (p == sp->file || p == sp->sig || p->filename == NULL ||
		    !moderator_is_command((const char *)p->data, p->len))
			continue;
		if (moderator_parse((const char *)p->data, p->len, &c2,
		    NULL) != HP_OK || strcmp(c2.verb, "replace") != 0 ||
		    strcmp(c2.campaign, ms->campaign) != 0 ||
		    strncasecmp(c2.arg, ms->arg, strlen(c2.arg)) != 0 ||
		    ms->arg[strlen(c2.arg)] != ' ') {
			snprintf(reason, rlen, "The command file %s beside the "
			    "statement is not 'command: replace' for campaign "
			    "%s and the statement's side.", p->filename,
			    ms->campaign);
			return;
		}
		strlcpy_(cmd->arg, c2.arg, sizeof cmd->arg);
		strlcpy_(cmd->email, c2.email, sizeof cmd->email);
		strlcpy_(cmd->name, c2.name, sizeof cmd->name);
		strlcpy_(cmd->key, c2.key, sizeof cmd->key);
		return;
	}
	snprintf(reason, rlen, "A 'replace' statement by mail needs the new "
	    "player's details beside it: attach command.txt with the lines "
	    "'campaign: %s', 'command: replace SIDE', 'email: ADDRESS', "
	    "'name: NAME' and 'key: ' and the base64 line of their minisign "
	    "public key.", ms->campaign);
}

/* A moderator statement mailed with its signature (docs/AUDIT.md,
 * "Moderator statements"): checked against the campaign's moderator key
 * and carried out exactly as 'hexpost moderate ... --sig', or refused. */
static int
take_statement(struct msgctx *m, const struct mime_msg *mm,
    const struct signed_pair *sp, const struct minisign_sig *sig,
    enum intake_outcome *out, struct hp_error *err)
{
	struct hp_error verr = { 0, "" }, cerr = { 0, "" };
	struct minisign_pubkey pk;
	struct mod_command cmd;
	struct modstmt ms;
	struct game g;
	struct sbuf reply;
	unsigned char *lf, *fdata = NULL;
	size_t lflen, flen = 0;
	char reason[1200], keyhex[17], modhex[17], *pub = NULL, *sigtext;
	int64_t cid = 0;
	int rc;

	/* The campaign it names (read with LF line ends; the signature
	 * decides the exact bytes below). */
	lf = line_ends(sp->file->data, sp->file->len, false, &lflen);
	lf[lflen] = '\0';
	rc = modstmt_parse((const char *)lf, &ms, &verr);
	free(lf);
	if (rc != HP_OK) {
		snprintf(reason, sizeof reason, "%s is not a moderator statement "
		    "hexpost can read: %s", sp->name, verr.msg);
		return refuse(m, m->from, 0, 0, reason, NULL, NULL, err);
	}
	game_init(&g);
	rc = store_game_load(m->st, ms.campaign, &g, &cid, &verr);
	game_free(&g);
	if (rc == HP_ENOENT) {
		snprintf(reason, sizeof reason, "The statement is for campaign "
		    "'%s', which does not exist here.", ms.campaign);
		return refuse(m, m->from, 0, 0, reason, NULL, NULL, err);
	}
	if (rc != HP_OK) {
		*err = verr;
		return rc;
	}
	if ((rc = store_modkey_get(m->st, cid, &pub, err)) != HP_OK)
		return rc;
	if (pub == NULL) {
		snprintf(reason, sizeof reason, "Campaign %s has no moderator "
		    "key, so it takes no moderator statements (the operator "
		    "registers one with 'hexpost moderate %s moderator-key "
		    "--key FILE').", ms.campaign, ms.campaign);
		return refuse(m, m->from, cid, 0, reason, NULL, NULL, err);
	}
	minisign_keyid_hex(sig->keyid, keyhex);
	if (minisign_pubkey_parse(pub, strlen(pub), &pk, &verr) != HP_OK) {
		free(pub);
		hp_seterr(err, HP_EINTERNAL, "stored moderator key of %s: %s",
		    ms.campaign, verr.msg);
		return HP_EINTERNAL;
	}
	free(pub);
	minisign_keyid_hex(pk.keyid, modhex);
	if (strcmp(keyhex, modhex) != 0) {
		snprintf(reason, sizeof reason, "The statement is signed by key "
		    "%s, not by campaign %s's moderator key %s: a moderator "
		    "statement is signed by the moderator's own key.", keyhex,
		    ms.campaign, modhex);
		return refuse(m, m->from, cid, 0, reason, NULL, NULL, err);
	}
	if (verify_part(&pk, sig, sp->file, &fdata, &flen, &verr) != HP_OK) {
		snprintf(reason, sizeof reason, "The signature of %s does not "
		    "verify with campaign %s's moderator key %s: %s", sp->name,
		    ms.campaign, modhex, verr.msg);
		return refuse(m, m->from, cid, 0, reason, NULL, NULL, err);
	}
	fdata[flen] = '\0';
	/* Signed by the moderator: from here on the sender gets answers. */
	memset(&cmd, 0, sizeof cmd);
	strlcpy_(cmd.campaign, ms.campaign, sizeof cmd.campaign);
	strlcpy_(cmd.verb, ms.verb, sizeof cmd.verb);
	strlcpy_(cmd.arg, ms.arg, sizeof cmd.arg);
	reason[0] = '\0';
	if (strcmp(ms.verb, "replace") == 0)
		statement_replace_details(mm, sp, &ms, &cmd, reason,
		    sizeof reason);
	if (reason[0] != '\0') {
		free(fdata);
		return refuse_moderator(m, cid, reason, err);
	}
	sigtext = xmalloc(sp->sig->len + 1);
	memcpy(sigtext, sp->sig->data, sp->sig->len);
	sigtext[sp->sig->len] = '\0';
	cmd.sig = sigtext;
	cmd.stmt_text = (const char *)fdata;
	sbuf_init(&reply);
	sbuf_add(&reply, "", 0);
	rc = moderator_exec(m->st, m->cfg, &cmd, NULL, deadline_now(), &reply,
	    &cerr);
	if (rc == HP_EDB || rc == HP_EINTERNAL || rc == HP_EIO) {
		*err = cerr;
	} else if (rc != HP_OK) {
		snprintf(reason, sizeof reason, "Your moderator statement %s was "
		    "refused: %s", sp->name, cerr.msg);
		rc = refuse_moderator(m, cid, reason, err);
	} else if ((rc = answer(m, cid, "command", m->from, reply.buf,
	    err)) == HP_OK && (rc = record(m, "request", cmd.verb, cid, 0,
	    err)) == HP_OK)
		*out = INTAKE_ACCEPTED;
	sbuf_free(&reply);
	free(sigtext);
	free(fdata);
	return rc;
}

/* The signed-orders part of intake: MIME already parsed, not automatic. */
static int
take_orders(struct msgctx *m, const struct mime_msg *mm,
    enum intake_outcome *out, struct hp_error *err)
{
	const struct mime_part *file;
	struct signed_pair sp;
	struct store_player players[INTAKE_MAX_PLAYERS], named, *p = NULL;
	struct minisign_sig sig;
	struct minisign_pubkey pk;
	struct order_header h;
	struct order_body body;
	struct order_errors oerrs;
	struct turn_submit res;
	struct hp_error verr = { 0, "" };
	struct mod_command cmd;
	struct store_settings ss;
	bool same_file, same_nonce;
	unsigned char *fdata = NULL, fh[32];
	size_t flen = 0;
	bool command, help;
	char keyhex[17], name[256], reason[1200], nonce[80];
	int np, i, rc;

	*out = INTAKE_REJECTED;
	if (mm->html_only)
		return refuse(m, m->from, 0, 0, "The message has only an HTML "
		    "part; hexpost reads plain-text order files.", NULL,
		    help_attach, err);
	if (signed_pair_find(mm, &sp, reason, sizeof reason, &help) != 0)
		return refuse(m, m->from, 0, 0, reason, NULL, help ?
		    help_attach : NULL, err);
	file = sp.file;
	strlcpy_(name, sp.name, sizeof name);
	if (minisign_sig_parse((const char *)sp.sig->data, sp.sig->len, &sig,
	    &verr) != HP_OK) {
		snprintf(reason, sizeof reason, "%s is not a minisign "
		    "signature: %s", sp.sig->filename, verr.msg);
		return refuse(m, m->from, 0, 0, reason, NULL, NULL, err);
	}
	/* A moderator statement, signed by the moderator's key. */
	if (file->len >= sizeof MODSTMT_MAGIC - 1 && memcmp(file->data,
	    MODSTMT_MAGIC, sizeof MODSTMT_MAGIC - 1) == 0) {
		turn_cache_clear(m->tc);   /* it may change any campaign */
		return take_statement(m, mm, &sp, &sig, out, err);
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
	/* Which of the key's campaigns, however many it plays in: the one
	 * the file's header names (looked up by name), else the first (an
	 * active campaign before finished ones), whose header check then
	 * says what is wrong. */
	orders_errors_init(&oerrs);
	p = &players[0];
	if (orders_parse_file((const char *)file->data, file->len, &h, &body,
	    &oerrs) == HP_OK) {
		orders_body_free(&body);
		if (np <= INTAKE_MAX_PLAYERS) {
			/* Every player of the key is in players: what
			 * store_player_by_key_in would give, the campaign's
			 * first by id, without asking again (issue 17). */
			rc = 0;
			for (i = 0; i < np; i++)
				if (strcmp(players[i].campaign, h.campaign) ==
				    0 && (rc == 0 || players[i].id < named.id)) {
					named = players[i];
					rc = 1;
				}
		} else if ((rc = store_player_by_key_in(m->st, keyhex,
		    h.campaign, &named, err)) < 0) {
			orders_errors_free(&oerrs);
			return rc;
		}
		if (rc == 1)
			p = &named;
		else {
			orders_errors_free(&oerrs);
			if (np == 1)
				snprintf(reason, sizeof reason, "The file is "
				    "for campaign '%.64s', but key %s plays "
				    "only in '%.64s'. Check the campaign: "
				    "line.", h.campaign, keyhex,
				    players[0].campaign);
			else
				snprintf(reason, sizeof reason, "The file is "
				    "for campaign '%.64s', but key %s plays in "
				    "no campaign of that name (it plays in %d "
				    "campaigns, among them '%.64s'). Check the "
				    "campaign: line.", h.campaign, keyhex, np,
				    players[0].campaign);
			return refuse(m, p->email, p->campaign_id, p->id,
			    reason, NULL, NULL, err);
		}
	}
	orders_errors_free(&oerrs);
	if ((command = moderator_is_command((const char *)file->data,
	    file->len)) && moderator_parse((const char *)file->data, file->len,
	    &cmd, NULL) == HP_OK) {
		if ((rc = store_player_by_key_in(m->st, keyhex, cmd.campaign,
		    &named, err)) < 0)
			return rc;
		if (rc == 1)
			p = &named;
	}
	for (i = 0; i < m->pre->nver; i++)
		if (strcmp(m->pre->ver[i].pubkey, p->pubkey) == 0)
			break;
	if (i < m->pre->nver) {
		/* Checked ahead, on a worker thread, with this very key. */
		rc = m->pre->ver[i].rc;
		hp_seterr(&verr, rc, "%s", m->pre->ver[i].msg);
		if (rc == HP_OK) {
			flen = m->pre->ver[i].blen;
			fdata = xmalloc(flen + 1);
			memcpy(fdata, m->pre->ver[i].bytes, flen);
		}
	} else if (minisign_pubkey_parse(p->pubkey, strlen(p->pubkey), &pk,
	    &verr) != HP_OK) {
		hp_seterr(err, HP_EINTERNAL, "stored key of %s: %s", p->name,
		    verr.msg);
		return HP_EINTERNAL;
	} else
		rc = verify_part(&pk, &sig, file, &fdata, &flen, &verr);
	if (rc != HP_OK) {
		snprintf(reason, sizeof reason, "The signature of %s does not "
		    "verify with your key %s: %s", name, keyhex, verr.msg);
		return refuse(m, p->email, p->campaign_id, p->id, reason, NULL,
		    NULL, err);
	}
	/* From here on the bytes the player signed, exactly. */
	fdata[flen] = '\0';
	if (command) {
		struct mime_part signed_file = *file;

		/* A command may change any campaign. */
		turn_cache_clear(m->tc);
		signed_file.data = fdata;
		signed_file.len = flen;
		rc = take_command(m, p, name, &signed_file, out, err);
		free(fdata);
		return rc;
	}
	/* A signed file taken in before (its bytes, or its nonce) is a
	 * replay: anyone holding a copy of the mail could send it again. */
	crypto_generichash(fh, sizeof fh, fdata, flen, NULL, 0);
	turn_file_nonce((const char *)fdata, flen, nonce, sizeof nonce);
	if ((rc = store_orders_replay(m->st, p->campaign_id, fh, nonce,
	    turn_file_nonce, &same_file, &same_nonce, err)) != HP_OK) {
		free(fdata);
		return rc;
	}
	if (same_file || same_nonce) {
		snprintf(reason, sizeof reason, "This order file %s was taken "
		    "in before (%s), so it is not taken again: a mail can be "
		    "sent again by anyone holding a copy of it, and hexpost "
		    "takes each signed order file once.\nIf you meant to send "
		    "these orders again, write a new nonce: line (any text you "
		    "have not used) and sign the file again.", name,
		    same_file ? "the very same file" : "a file with the same "
		    "nonce");
		free(fdata);
		return refuse(m, p->email, p->campaign_id, p->id, reason, NULL,
		    NULL, err);
	}
	if ((rc = chain_header_check(m->st, p->campaign_id, fdata, flen,
	    reason, sizeof reason, err)) != HP_OK || reason[0] != '\0') {
		free(fdata);
		return rc != HP_OK ? rc : refuse(m, p->email, p->campaign_id,
		    p->id, reason, NULL, NULL, err);
	}
	turn_submit_init(&res);
	/* The signer's campaign, never the one the file names: a key gives
	 * orders only where it plays. */
	/* Its nonce kept with it, for the next replay checks (issue 17). */
	rc = turn_submit_cached(m->st, m->tc, p->campaign, (const char *)fdata,
	    flen, p->side, p->id, "mail", nonce, &res, err);
	/* The audit checks each order file against its signature. */
	if (rc == HP_OK)
		rc = store_ordersig_put(m->st, fh, (const char *)sp.sig->data,
		    sp.sig->len, p->pubkey, p->key_id, p->id, err);
	free(fdata);
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
		{	/* The file's hash: the report names the one used. */
			char hex[65];

			sodium_bin2hex(hex, sizeof hex, fh, sizeof fh);
			tmpl_set(c, "hash", hex);
		}
		if (res.replaced)
			tmpl_set(c, "replaced", "yes");
		/* While paused nothing is resolved, all orders in or not. */
		if (store_settings_get(m->st, p->campaign_id, &ss, NULL) ==
		    HP_OK && ss.paused)
			tmpl_set(c, "paused", "yes");
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
			rc = record(m, "accepted", res.canon, p->campaign_id,
			    p->id, err);
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
    const struct prepared *pre, struct turn_cache *tc,
    enum intake_outcome *out, bool *unanswered, struct hp_error *err)
{
	char own[256];
	const unsigned char *raw = pre->raw;
	size_t len = pre->len, i;
	struct msgctx m;
	struct bounce_info bi;
	bool seen, parsed = pre->parsed;
	int rc;

	memset(&m, 0, sizeof m);
	m.st = st;
	m.cfg = cfg;
	m.mailbox = mailbox;
	m.pre = pre;
	m.tc = tc;
	m.content = pre->content;
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
	/* Several senders: no one to answer (the signer's player still is). */
	if (pre->mm.from_ambiguous)
		m.from[0] = '\0';
	/* A duplicate is the same content: the same bytes, or the same
	 * Message-ID with the same body. Another body under an old
	 * Message-ID is a message of its own. */
	if ((rc = store_message_seen_content(st, m.hash, m.message_id[0] ?
	    m.message_id : NULL, pre->content, &seen, err)) != HP_OK)
		goto done;
	if (seen) {
		*out = INTAKE_DUPLICATE;
		goto done;
	}
	own_address(cfg->from, own, sizeof own);
	if (parsed && bounce_detect(&pre->mm, &bi)) {
		/* Mail that came back: recorded, never answered (bounce.h). */
		*out = INTAKE_IGNORED;
		rc = bounce_take(st, cfg, &bi, m.hash, m.message_id, mailbox,
		    err);
	} else if (m.automatic) {
		*out = INTAKE_IGNORED;
		rc = record(&m, "ignored", pre->mm.auto_reason[0] ?
		    pre->mm.auto_reason : "automatic mail", 0, 0, err);
	} else if (own[0] != '\0' && ((pre->mm.from != NULL &&
	    strcasecmp(pre->mm.from, own) == 0) || strcasecmp(m.from, own) ==
	    0)) {
		/* hexpost's own mail come back: nothing to answer. */
		*out = INTAKE_IGNORED;
		rc = record(&m, "ignored", "mail from hexpost's own address",
		    0, 0, err);
	} else if (!parsed) {
		char reason[700];

		*out = INTAKE_REJECTED;
		snprintf(reason, sizeof reason, "The message could not be read: "
		    "%s", pre->perr.msg);
		/* The attachment advice helps only with the message's
		 * structure, not with its size or its headers. */
		rc = refuse(&m, m.from, 0, 0, reason, NULL,
		    strstr(pre->perr.msg, "MIME") != NULL ||
		    strstr(pre->perr.msg, "attachment") != NULL ? help_attach :
		    NULL, err);
	} else
		rc = take_orders(&m, &pre->mm, out, err);
	if (rc == HP_OK && !m.content_kept)   /* bounce_take's record */
		rc = store_message_set_content(st, m.hash, pre->content, err);
	*unanswered = m.unanswered;
done:
	return rc;
}

/* The body hash of raw (what follows the header block, every CRLF read
 * as LF) into out: the same message through another relay (another
 * Received: line) or fetched by IMAP (CRLF) has the same one. */
static void
content_hash(const unsigned char *raw, size_t len, unsigned char out[32])
{
	crypto_generichash_state h;
	size_t i = 0, start, k;

	/* The header block ends at the first empty line. */
	while (i < len) {
		size_t e = i;

		while (e < len && raw[e] != '\n')
			e++;
		if (e == i || (e == i + 1 && raw[i] == '\r')) {
			i = e + 1;
			break;
		}
		i = e + 1;
	}
	if (i > len)
		i = len;
	crypto_generichash_init(&h, NULL, 0, 32);
	for (start = i, k = i; k < len; k++)
		if (raw[k] == '\r' && k + 1 < len && raw[k + 1] == '\n') {
			crypto_generichash_update(&h, raw + start, k - start);
			start = k + 1;
		}
	crypto_generichash_update(&h, raw + start, len - start);
	crypto_generichash_final(&h, out, 32);
}

/* Work out pre for raw (taking ownership of raw) without the database:
 * parse it, and if it carries one signed file, verify that file against
 * every key of kr (may be NULL) with the signature's key id. Safe on any
 * thread once mime_init has run. */
static void
prepare(struct prepared *pre, unsigned char *raw, size_t len,
    const struct keyring *kr)
{
	struct signed_pair sp;
	struct minisign_sig sig;
	struct minisign_pubkey pk;
	struct hp_error verr;
	char keyhex[17], reason[600];
	bool help;
	size_t i, k;

	memset(pre, 0, sizeof *pre);
	pre->raw = raw;
	pre->len = len;
	pre->total = len;
	pre->cost = len;
	crypto_generichash(pre->hash, sizeof pre->hash, raw, len, NULL, 0);
	content_hash(raw, len, pre->content);
	pre->parsed = mime_parse(raw, len, &pre->mm, &pre->perr) == HP_OK;
	if (pre->parsed)
		for (k = 0; k < pre->mm.nparts; k++)
			pre->cost += pre->mm.parts[k].len;
	if (!pre->parsed || kr == NULL || pre->mm.automatic ||
	    pre->mm.html_only ||
	    signed_pair_find(&pre->mm, &sp, reason, sizeof reason, &help) != 0 ||
	    minisign_sig_parse((const char *)sp.sig->data, sp.sig->len, &sig,
	    &verr) != HP_OK)
		return;
	minisign_keyid_hex(sig.keyid, keyhex);
	for (i = 0; i < kr->n && pre->nver < INTAKE_MAX_VERIFY; i++) {
		if (strcmp(kr->v[i].key_id, keyhex) != 0 ||
		    minisign_pubkey_parse(kr->v[i].pubkey,
		    strlen(kr->v[i].pubkey), &pk, &verr) != HP_OK)
			continue;
		memset(&verr, 0, sizeof verr);
		pre->ver[pre->nver].rc = verify_part(&pk, &sig, sp.file,
		    &pre->ver[pre->nver].bytes, &pre->ver[pre->nver].blen,
		    &verr);
		pre->cost += pre->ver[pre->nver].blen;
		strlcpy_(pre->ver[pre->nver].msg, verr.msg,
		    sizeof pre->ver[0].msg);
		pre->ver[pre->nver++].pubkey = xstrdup(kr->v[i].pubkey);
	}
}

/* Work out pre for a message too large to take in (total bytes, open as
 * fd, its first len bytes in head, whose ownership pre takes): hash the
 * rest as a stream, never holding it, and read the automatic-mail
 * headers from the head alone. *merr is set if it cannot be read. */
static int
prepare_large(struct prepared *pre, int fd, unsigned char *head, size_t len,
    uint64_t total, struct hp_error *merr, const char *path)
{
	crypto_generichash_state h;
	unsigned char buf[65536];
	uint64_t mb = 1024 * 1024, tenths;
	ssize_t r;

	memset(pre, 0, sizeof *pre);
	crypto_generichash_init(&h, NULL, 0, sizeof pre->hash);
	crypto_generichash_update(&h, head, len);
	for (;;) {
		r = read(fd, buf, sizeof buf);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			hp_seterr(merr, HP_EIO, "%s: %s", path, strerror(errno));
			free(head);
			return HP_EIO;
		}
		if (r == 0)
			break;
		crypto_generichash_update(&h, buf, (size_t)r);
	}
	crypto_generichash_final(&h, pre->hash, sizeof pre->hash);
	/* Nothing short of the whole says what its body is. */
	memcpy(pre->content, pre->hash, sizeof pre->content);
	pre->raw = head;
	pre->len = len;
	pre->total = total;
	pre->cost = len;
	mime_head_automatic(head, len, &pre->mm);
	tenths = (total / mb) * 10 + ((total % mb) * 10 + mb - 1) / mb;
	hp_seterr(&pre->perr, HP_EINVAL, "the message is %llu.%llu MB; the "
	    "limit is %d MB", (unsigned long long)(tenths / 10),
	    (unsigned long long)(tenths % 10), MIME_MAX_MESSAGE / (1024 * 1024));
	return HP_OK;
}

/* Free what pre owns and clear it. */
static void
prepared_free(struct prepared *pre)
{
	int i;

	if (pre->parsed)
		mime_msg_free(&pre->mm);
	for (i = 0; i < pre->nver; i++) {
		free(pre->ver[i].pubkey);
		free(pre->ver[i].bytes);
	}
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
	bool unanswered = false;
	int rc;

	memcpy(copy, raw, len);
	copy[len] = '\0';
	prepare(&pre, copy, len, NULL);
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = message_tx(st, cfg, mailbox, &pre, NULL, out, &unanswered,
	    err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	rc = store_commit(st, err);
out:
	prepared_free(&pre);
	return rc;
}

/* Read message e and prepare it into pre (see prepare); pre->raw is
 * NULL (logged) if it cannot be read now. A message over the size limit
 * is known by its size alone: only its head is read, to be refused. */
static void
load_message(const struct maildir_entry *e, struct prepared *pre,
    const struct keyring *kr)
{
	struct hp_error merr = { 0, "" };
	unsigned char *raw;
	uint64_t size = 0;
	size_t len = 0;
	ssize_t r;
	int fd;

	memset(pre, 0, sizeof *pre);
	/* The usual message: opened once (issue 17). One maildir_read
	 * refuses with HP_EINVAL (too large, or not a regular file) is
	 * looked at again below. */
	if ((raw = maildir_read(e, MIME_MAX_MESSAGE, &len, &merr)) != NULL) {
		prepare(pre, raw, len, kr);
		return;
	}
	if (merr.code != HP_EINVAL)
		goto fail;
	memset(&merr, 0, sizeof merr);
	len = 0;
	if (maildir_open(e, &fd, &size, &merr) != HP_OK)
		goto fail;
	if (size > MIME_MAX_MESSAGE) {
		raw = xmalloc(INTAKE_HEAD + 1);
		while (len < INTAKE_HEAD) {
			r = read(fd, raw + len, INTAKE_HEAD - len);
			if (r == -1 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		raw[len] = '\0';
		r = prepare_large(pre, fd, raw, len, size, &merr, e->path);
		close(fd);
		if (r != HP_OK)
			goto fail;
		return;
	}
	close(fd);
	if ((raw = maildir_read(e, MIME_MAX_MESSAGE, &len, &merr)) == NULL)
		goto fail;   /* it grew past the limit: next run */
	prepare(pre, raw, len, kr);
	return;
fail:
	/* maildir's messages name the file already. */
	log_warn("%s", merr.msg);
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
	size_t held;               /* bytes of prepared messages not taken */
	bool stop;
	const struct keyring *kr;
	struct turn_cache *tc;     /* the main thread's alone */
	int64_t version;           /* store_data_version when tc was valid */
	struct flagjob *flag;      /* a committed batch being flagged */
	pthread_t flagger;         /* flagging it, when flag_thread */
	bool flag_thread;
};

/* The Maildir files of a committed batch to flag 'S' (seen), then the
 * directories to sync: a crash before that takes the messages again as
 * duplicates (their rows were committed), as it always did. */
struct flagjob {
	const char *dir;
	const struct maildir_entry *ents;
	bool *ok;                  /* which of ents to flag; owned */
	size_t k;
};

/* Flag the files of job j and sync their directories (warnings only: a
 * file left unflagged is a duplicate next run). */
static void
flag_batch(const struct flagjob *j)
{
	struct hp_error merr;
	size_t i;

	for (i = 0; i < j->k; i++) {
		if (!j->ok[i])
			continue;
		memset(&merr, 0, sizeof merr);
		if (maildir_mark_sync(j->dir, &j->ents[i], 'S', false, &merr) !=
		    HP_OK)
			log_warn("%s: %s", j->ents[i].name, merr.msg);
	}
	memset(&merr, 0, sizeof merr);
	if (maildir_sync(j->dir, &merr) != HP_OK)
		log_warn("%s", merr.msg);
}

static void *
flag_main(void *arg)
{
	flag_batch(arg);
	return NULL;
}

/* Wait until the batch being flagged is done, and free its job. */
static void
pipeline_flag_wait(struct pipeline *pl)
{
	if (pl->flag_thread)
		pthread_join(pl->flagger, NULL);
	pl->flag_thread = false;
	if (pl->flag != NULL) {
		free(pl->flag->ok);
		free(pl->flag);
		pl->flag = NULL;
	}
}

/* Flag the committed batch ents[0, k) (ok: which; taken over) on a
 * thread of its own while the next batch is taken in (issue 17: its
 * renames and two directory syncs were the main thread's), or here if
 * no thread can be started. Waits for the batch flagged before. */
static void
pipeline_flag(struct pipeline *pl, const char *dir,
    const struct maildir_entry *ents, bool *ok, size_t k)
{
	struct flagjob *j = xmalloc(sizeof *j);

	pipeline_flag_wait(pl);
	j->dir = dir;
	j->ents = ents;
	j->ok = ok;
	j->k = k;
	pl->flag = j;
	if (pthread_create(&pl->flagger, NULL, flag_main, j) == 0)
		pl->flag_thread = true;
	else
		flag_batch(j);
}

/* May another message be prepared now (pl->mu held)? At most
 * INTAKE_AHEAD messages and INTAKE_AHEAD_BYTES ahead, but always the one
 * the main thread waits for. */
static bool
pipeline_room(const struct pipeline *pl)
{
	return pl->next < pl->n && pl->next < pl->taken + INTAKE_AHEAD &&
	    (pl->held < INTAKE_AHEAD_BYTES || pl->next <= pl->taken);
}

/* Prepare the next message (pl->mu held, pipeline_room true; held again
 * on return). */
static void
pipeline_prepare_next(struct pipeline *pl)
{
	size_t i = pl->next++;

	pthread_mutex_unlock(&pl->mu);
	load_message(&pl->ents[i], &pl->pre[i], pl->kr);
	pthread_mutex_lock(&pl->mu);
	pl->held += pl->pre[i].cost;
	pl->done[i] = true;
	pthread_cond_broadcast(&pl->ready);
}

static void *
pipeline_worker(void *arg)
{
	struct pipeline *pl = arg;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->stop && pl->next < pl->n && !pipeline_room(pl))
			pthread_cond_wait(&pl->room, &pl->mu);
		if (pl->stop || pl->next >= pl->n)
			break;
		pipeline_prepare_next(pl);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Wait until message i is prepared. While it is not, the main thread
 * prepares the next message itself rather than sleep (issue 17: on a busy
 * host a sleeping thread waits long to run again). */
static struct prepared *
pipeline_get(struct pipeline *pl, size_t i)
{
	pthread_mutex_lock(&pl->mu);
	while (!pl->done[i]) {
		if (pipeline_room(pl))
			pipeline_prepare_next(pl);
		else
			pthread_cond_wait(&pl->ready, &pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
	return &pl->pre[i];
}

/* The main thread is done with message i (and every one before it): free
 * it, making room for the workers. */
static void
pipeline_done(struct pipeline *pl, size_t i)
{
	size_t cost = pl->pre[i].cost;

	prepared_free(&pl->pre[i]);
	pthread_mutex_lock(&pl->mu);
	pl->held -= cost;
	pl->taken = i + 1;
	pthread_cond_broadcast(&pl->room);
	pthread_mutex_unlock(&pl->mu);
}

/* Take in messages [first, first + k) in one transaction, a savepoint
 * each, then flag the ones whose effect was committed (pipeline_flag: on
 * a thread, while the next batch runs). A message that fails is rolled
 * back alone and left for the next run. */
static int
intake_batch(struct store *st, const struct config *cfg, const char *dir,
    struct pipeline *pl, size_t first, size_t k, struct intake_stats *stats,
    struct hp_error *err)
{
	enum intake_outcome *o = xcalloc(k, sizeof *o);
	bool *ok = xcalloc(k, sizeof *ok);
	bool *unans = xcalloc(k, sizeof *unans);
	struct maildir_entry *ents = pl->ents + first;
	struct hp_error merr;
	int64_t version;
	size_t i;
	int rc;

	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	/* Campaigns read in an earlier batch stay valid unless another
	 * connection committed since (none can inside this transaction). */
	if ((rc = store_data_version(st, &version, err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	if (version != pl->version)
		turn_cache_clear(pl->tc);
	pl->version = version;
	for (i = 0; i < k; i++) {
		struct prepared *pre = pipeline_get(pl, first + i);

		if (pre->raw == NULL) {
			pipeline_done(pl, first + i);
			continue;
		}
		memset(&merr, 0, sizeof merr);
		if ((rc = store_savepoint(st, &merr)) == HP_OK) {
			rc = message_tx(st, cfg, dir, pre, pl->tc, &o[i],
			    &unans[i], &merr);
			if (rc == HP_OK)
				rc = store_release(st, &merr);
			else
				store_rollback_savepoint(st);
		}
		/* What the cache read may have been rolled back. */
		if (rc != HP_OK)
			turn_cache_clear(pl->tc);
		pipeline_done(pl, first + i);
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
	if ((rc = store_commit(st, err)) != HP_OK) {
		turn_cache_clear(pl->tc);
		goto out;
	}
	for (i = 0; i < k; i++) {
		if (!ok[i]) {
			stats->deferred++;
			continue;
		}
		stats->n[o[i]]++;
		if (unans[i])
			stats->unanswered++;
		log_info("%s: %s", ents[i].name, intake_stroutcome(o[i]));
	}
	pipeline_flag(pl, dir, ents, ok, k);
	ok = NULL;   /* the flagging's now */
out:
	free(o);
	free(ok);
	free(unans);
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
	struct hp_error terr;
	struct pipeline pl;
	bool tmem;
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
	/* Each message's savepoint copies every page it changes to SQLite's
	 * statement journal: in a temporary file that was two writes a page,
	 * about 30 system calls a mail (issue 17). In memory it is emptied at
	 * each release. */
	memset(&terr, 0, sizeof terr);
	tmem = store_temp_memory(st, true, &terr) == HP_OK;
	if (!tmem)
		log_warn("intake: statement journal left on disk: %s", terr.msg);
	pl.pre = xcalloc(pl.n, sizeof *pl.pre);
	pl.done = xcalloc(pl.n, sizeof *pl.done);
	pl.kr = &kr;
	pl.tc = turn_cache_new();
	pl.version = -1;
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
	}
	pipeline_flag_wait(&pl);
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
	memset(&terr, 0, sizeof terr);
	if (tmem && store_temp_memory(st, false, &terr) != HP_OK)
		log_warn("intake: %s", terr.msg);
out:
	turn_cache_free(pl.tc);
	keyring_free(&kr);
	free(pl.pre);
	free(pl.done);
	maildir_list_free(pl.ents, pl.n);
	return rc;
}

/* The raw hash, body hash and Message-ID of message e, as intake computes
 * them for its duplicate check (an oversized message: the hash of all its
 * bytes for both, as prepare_large). HP_OK or an error in err. */
static int
intake_identity(const struct maildir_entry *e, unsigned char hash[32],
    unsigned char content[32], char *msgid, size_t idlen,
    struct hp_error *err)
{
	crypto_generichash_state h;
	unsigned char *raw, buf[65536];
	uint64_t size = 0;
	size_t len = 0;
	ssize_t r;
	int fd;

	msgid[0] = '\0';
	if (maildir_open(e, &fd, &size, err) != HP_OK)
		return HP_EIO;
	if (size > MIME_MAX_MESSAGE) {
		crypto_generichash_init(&h, NULL, 0, 32);
		for (;;) {
			r = read(fd, buf, sizeof buf);
			if (r == -1 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if (len == 0 && raw_header(buf, (size_t)r, "Message-ID",
			    msgid, idlen))
				addr_spec(msgid);
			len += (size_t)r;
			crypto_generichash_update(&h, buf, (size_t)r);
		}
		close(fd);
		if (r == -1) {
			hp_seterr(err, HP_EIO, "%s: %s", e->path,
			    strerror(errno));
			return HP_EIO;
		}
		crypto_generichash_final(&h, hash, 32);
		memcpy(content, hash, 32);
		return HP_OK;
	}
	close(fd);
	if ((raw = maildir_read(e, MIME_MAX_MESSAGE, &len, err)) == NULL)
		return HP_EIO;
	crypto_generichash(hash, 32, raw, len, NULL, 0);
	content_hash(raw, len, content);
	if (raw_header(raw, len, "Message-ID", msgid, idlen))
		addr_spec(msgid);
	free(raw);
	return HP_OK;
}

int
intake_behind(struct store *st, const struct config *cfg,
    struct maildir_entry **out, size_t *n, struct hp_error *err)
{
	struct maildir_entry *all = NULL, *v = NULL;
	struct hp_error merr;
	unsigned char hash[32], content[32];
	char msgid[256];
	size_t nall = 0, i;
	bool seen;
	int rc;

	*out = NULL;
	*n = 0;
	if (strncmp(cfg->mailbox, "maildir:", 8) != 0)
		return HP_OK;
	if ((rc = maildir_list_flagged(cfg->mailbox + 8, 'S', &all, &nall,
	    err)) != HP_OK)
		return rc;
	for (i = 0; i < nall; i++) {
		memset(&merr, 0, sizeof merr);
		if (intake_identity(&all[i], hash, content, msgid, sizeof msgid,
		    &merr) != HP_OK) {
			log_warn("%s", merr.msg);
			continue;
		}
		if ((rc = store_message_seen_content(st, hash, msgid[0] ?
		    msgid : NULL, content, &seen, err)) != HP_OK)
			break;
		if (seen)
			continue;
		/* Moved, not copied: all[i] is emptied. */
		v = xrealloc(v, (*n + 1) * sizeof *v);
		v[(*n)++] = all[i];
		memset(&all[i], 0, sizeof all[i]);
	}
	maildir_list_free(all, nall);
	if (rc != HP_OK) {
		maildir_list_free(v, *n);
		v = NULL;
		*n = 0;
	}
	*out = v;
	return rc;
}

int
intake_take_again(const struct config *cfg, const struct maildir_entry *e,
    size_t n, struct hp_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = maildir_unmark(cfg->mailbox + 8, &e[i], 'S', err)) !=
		    HP_OK)
			return rc;
	return HP_OK;
}
