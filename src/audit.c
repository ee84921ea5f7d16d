/* audit: campaign audits and audit bundles (see include/audit.h). Both the
 * database and a bundle are loaded into the same model, struct acamp, which
 * one checker verifies; export writes the model out as files. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "audit.h"
#include "dicelog.h"
#include "minisign.h"
#include "orders.h"
#include "modstmt.h"
#include "report.h"
#include "sealed.h"
#include "seedchain.h"
#include "serverkey.h"
#include "window.h"

#define BUNDLE_MAGIC "hexpost audit bundle v1"

/* One stored order file. */
struct aorder {
	int side;
	char source[16];
	char *raw;
	unsigned char hash[32];  /* as stored */
	char *sig;               /* .minisig text, NULL if none */
	char *sigpub;            /* key to verify sig with */
	char *playerpub;         /* the signing player's key; NULL: unknown */
	char *playername;        /* that player's name (bundle: players.txt) */
	int player_side;         /* that player's side; -1: unknown */
	bool player_retired;     /* replaced since (database only) */
	bool player_mismatch;    /* orders and signature name two players */
	bool current;
	bool snap;               /* not an order file: the standing orders in
	                          * force when the window opened of a side it
	                          * names, in its dice key (G3) */
};

struct awin {
	struct store_window w;
	struct aorder *o;
	int no;
	char *log, *logsig, *logpub;
	bool have_dice;          /* stored rolls (database only) */
	struct dice dice;
	bool have_events;        /* stored events (database only) */
	struct events ev;
	bool have_sealed;        /* sealed rolls on record (sdice.slog) */
	struct dice sdice;
	char *reports[GAME_MAX_SIDES + 1];  /* [side + 1] */
};

/* One rotation statement of the server key, as recorded. */
struct arot {
	int num;                 /* its number in the record (seq, file) */
	char *text, *sig, *csig; /* statement, by the old key, by the new */
	char *oldpub, *newpub;   /* key file texts (database; for export) */
};

/* The server keys an audit accepts: the trusted one and those the rotation
 * statements link to it, in the order of the chain (docs/AUDIT.md, "Key
 * rotation"). */
struct keychain {
	struct minisign_pubkey *k;
	int n;
	int trusted;             /* index of the trusted key */
	int top;                 /* highest index that signed a log; -1 */
};

struct acamp {
	char name[GAME_NAME_MAX];
	char ruleset[GAME_NAME_MAX];
	char scenario[GAME_NAME_MAX];
	char options[256];
	int nsides;
	char sides[GAME_MAX_SIDES][GAME_ID_MAX];
	char labels[GAME_MAX_SIDES][GAME_NAME_MAX];
	char *state;             /* canonical dump of the stored state */
	char *scenario_text;     /* the scenario file played, or NULL */
	struct awin *w;
	int nw;
	char *server_pub;        /* trusted server key text, or NULL */
	struct arot *rot;        /* the server's rotation statements */
	int nrot;
	int nends;               /* moderator's "end" commands on record */
	char end_arg[128];       /* the argument of the last one */
	bool test_dice;          /* --seed campaign: anyone with the text
	                          * knows every die (docs/AUDIT.md) */
	char *chain, *chainsig;  /* seed chain statement and its signature */
	char *chainpub;          /* the key recorded with it (database) */
	/* Sealed dice (docs/AUDIT.md, "Sealed dice"): per visibility set its
	 * statement's signature and, once revealed, its seed. */
	unsigned sealed_sets;    /* bit (1 << mask) per set on record */
	unsigned sealed_known;   /* bit per set whose seed is revealed */
	unsigned char sealed_seed[DICE_SEALED_SETS][32];
	char *sealed_sig[DICE_SEALED_SETS];
	bool finished;           /* the stored game has ended (database) */
	unsigned keyed;          /* bit per side a player with a key played */
	unsigned pinned;         /* bit per side the auditor pinned keys of */
	int npin;
	struct {
		int side;
		unsigned char keyid[MINISIGN_KEYID_LEN];
		unsigned char pk[32];
	} pin[32];
	char *modpub;            /* the moderator's key (NULL: none) */
	struct amod {            /* moderator statements, in order */
		int num;
		char *text, *sig;
	} *mod;
	int nmod;
};

static void
acamp_free(struct acamp *c)
{
	int i, j;

	for (i = 0; i < c->nw; i++) {
		struct awin *aw = &c->w[i];

		for (j = 0; j < aw->no; j++) {
			free(aw->o[j].raw);
			free(aw->o[j].sig);
			free(aw->o[j].sigpub);
			free(aw->o[j].playerpub);
			free(aw->o[j].playername);
		}
		free(aw->o);
		free(aw->log);
		free(aw->logsig);
		free(aw->logpub);
		dice_free(&aw->dice);
		dice_free(&aw->sdice);
		events_free(&aw->ev);
		for (j = 0; j <= GAME_MAX_SIDES; j++)
			free(aw->reports[j]);
		sodium_memzero(&aw->w, sizeof aw->w);
	}
	for (i = 0; i < c->nrot; i++) {
		free(c->rot[i].text);
		free(c->rot[i].sig);
		free(c->rot[i].csig);
		free(c->rot[i].oldpub);
		free(c->rot[i].newpub);
	}
	free(c->rot);
	for (i = 0; i < c->nmod; i++) {
		free(c->mod[i].text);
		free(c->mod[i].sig);
	}
	free(c->mod);
	free(c->modpub);
	for (i = 0; i < DICE_SEALED_SETS; i++)
		free(c->sealed_sig[i]);
	free(c->chain);
	free(c->chainsig);
	free(c->chainpub);
	free(c->w);
	free(c->state);
	free(c->scenario_text);
	free(c->server_pub);
	memset(c, 0, sizeof *c);
}

/* The state a replay must reach, as text: everything the rules keep. */
static void
state_dump(const struct game *g, struct sbuf *b)
{
	int i, j, *order = xcalloc((size_t)g->nvars + 1, sizeof *order);

	sbuf_printf(b, "status: %s\nresult: %s\nturn: %d\nwindow: %d\n",
	    game_strstatus(g->status), g->result, g->turn, g->window);
	for (i = 0; i < g->nsides; i++)
		sbuf_printf(b, "side: %d %s %s\n", i, g->sides[i].name,
		    g->sides[i].label);
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		sbuf_printf(b, "unit: %d %s %s %d %d %d %d %d %d %d %d %d", i,
		    u->id, u->kind, u->side, (int)u->placed, u->pos.q, u->pos.r,
		    u->status, u->strength, u->facing, u->attached, u->flags);
		for (j = 0; j < GAME_UNIT_X; j++)
			sbuf_printf(b, " %d", u->x[j]);
		sbuf_printf(b, " %s\n", u->name);
	}
	/* By key: the store does not keep the order vars were set in. */
	for (i = 0; i < g->nvars; i++)
		order[i] = i;
	for (i = 1; i < g->nvars; i++)
		for (j = i; j > 0 && strcmp(g->vars[order[j - 1]].key,
		    g->vars[order[j]].key) > 0; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < g->nvars; i++)
		sbuf_printf(b, "var: %s %d\n", g->vars[order[i]].key,
		    g->vars[order[i]].val);
	free(order);
	/* The ruleset's own state, when it keeps one: its length, then its
	 * text as the ruleset wrote it. */
	if (g->rstate != NULL)
		sbuf_printf(b, "rstate: %zu\n%s\n", strlen(g->rstate),
		    g->rstate);
}

static void
where(const struct awin *aw, char *buf, size_t len)
{
	snprintf(buf, len, "turn %d window %d '%s'", aw->w.spec.turn,
	    aw->w.spec.number, aw->w.spec.name);
}

static int
discrepancy(struct hp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Record the first discrepancy found. */
static int
discrepancy(struct hp_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->code = HP_EINVAL;
	return HP_EINVAL;
}

/* Same public key (id and key bytes) in two key file texts? */
static bool
same_key(const char *a, const char *b)
{
	struct minisign_pubkey ka, kb;

	if (a == NULL || b == NULL)
		return false;
	if (minisign_pubkey_parse(a, strlen(a), &ka, NULL) != HP_OK ||
	    minisign_pubkey_parse(b, strlen(b), &kb, NULL) != HP_OK)
		return false;
	return memcmp(ka.keyid, kb.keyid, 8) == 0 &&
	    memcmp(ka.pk, kb.pk, 32) == 0;
}

/* Verify text against a signature and a key file; why in err. */
static int
verify_sig(const char *pubtext, const char *sigtext, const char *text,
    struct minisign_sig *sig, struct hp_error *err)
{
	struct minisign_pubkey pk;
	int rc;

	if ((rc = minisign_pubkey_parse(pubtext, strlen(pubtext), &pk,
	    err)) != HP_OK)
		return rc;
	if ((rc = minisign_sig_parse(sigtext, strlen(sigtext), sig, err)) !=
	    HP_OK)
		return rc;
	return minisign_verify(&pk, sig, (const unsigned char *)text,
	    strlen(text), err);
}

#define SOURCES "mail, cli, opponent, standing, deadline-ai, deadline-hold"

/* Is source one an order file may come from (docs/AUDIT.md)? */
static bool
known_source(const char *source)
{
	static const char *const known[] = { "mail", "cli", "opponent",
		"standing", "deadline-ai", "deadline-hold" };
	size_t i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(source, known[i]) == 0)
			return true;
	return false;
}

/* Does an order file's header name the campaign, the side and the window
 * it is used in (standing orders: the window "standing", any turn)? A file
 * signed for another window must not be passed off as this one's
 * (docs/AUDIT.md, "Order file headers"). */
/* A file's "chain:" header against the head of the campaign's seed chain
 * statement: a player's file naming another head shows the chain was
 * replaced after the player got it (docs/AUDIT.md, "Order file
 * headers"). */
static int
check_file_chain(const struct acamp *c, const struct order_header *h,
    const char *wh, const char *side, const char *source,
    struct hp_error *err)
{
	struct seedchain sc;
	char head[65];

	if (c->chain == NULL || seedchain_parse(c->chain, &sc, NULL) != HP_OK)
		return discrepancy(err, "%s: %s's order file names a seed chain "
		    "head, but the campaign has no valid seed chain statement",
		    wh, side);
	sodium_bin2hex(head, sizeof head, sc.head, sizeof sc.head);
	if (strcmp(head, h->chain) != 0)
		return discrepancy(err, "%s: %s's order file (%s) names seed "
		    "chain head %.16s..., not %.16s... of the campaign's seed "
		    "chain statement: the seed chain was replaced after the "
		    "player got it", wh, side, source, h->chain, head);
	return HP_OK;
}

static int
check_file_header(const struct acamp *c, const struct awin *aw,
    const struct aorder *o, const char *wh, const char *side,
    struct hp_error *err)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	bool standing = strcmp(o->source, "standing") == 0;
	bool hstanding;
	int rc;

	orders_errors_init(&errs);
	rc = orders_parse_file(o->raw, strlen(o->raw), &h, &body, &errs);
	orders_errors_free(&errs);
	if (rc != HP_OK)
		return discrepancy(err, "%s: %s's order file (%s) has no valid "
		    "order file header", wh, side, o->source);
	orders_body_free(&body);
	if (strcmp(h.campaign, c->name) != 0 || strcasecmp(h.side, side) != 0)
		return discrepancy(err, "%s: %s's order file (%s) is for "
		    "campaign '%s' side '%s', not this campaign and side", wh,
		    side, o->source, h.campaign, h.side);
	if ((h.have & ORDERS_H_CHAIN) && (rc = check_file_chain(c, &h, wh,
	    side, o->source, err)) != HP_OK)
		return rc;
	hstanding = strcasecmp(h.window, "standing") == 0;
	if (standing && !hstanding)
		return discrepancy(err, "%s: %s's order file is marked as "
		    "standing orders, but its header is for turn %d window "
		    "'%s', not 'window: standing'", wh, side, h.turn, h.window);
	if (!standing && (hstanding || h.turn != aw->w.spec.turn ||
	    strcasecmp(h.window, aw->w.spec.name) != 0))
		return discrepancy(err, "%s: %s's order file (%s) is for turn %d "
		    "window '%s', not this window: a file sent for another "
		    "window was used in this one", wh, side, o->source, h.turn,
		    h.window);
	return HP_OK;
}

/* An order file: its hash, and its player's signature if it has one. */
static int
check_order(const struct acamp *c, const struct awin *aw,
    const struct aorder *o, struct audit_stats *s, struct hp_error *err)
{
	struct minisign_sig sig;
	struct hp_error verr = { 0, "" };
	unsigned char h[32];
	char wh[128];
	const char *side = o->side >= 0 && o->side < c->nsides ?
	    c->sides[o->side] : "?";
	int rc;

	where(aw, wh, sizeof wh);
	window_order_hash(o->raw, h);
	if (sodium_memcmp(h, o->hash, 32) != 0)
		return discrepancy(err, "%s: %s's order file (%s%s) does not "
		    "hash to the hash recorded when it was accepted: the file "
		    "was changed", wh, side, o->source, o->current ? "" :
		    o->snap ? ", in force when the window opened" :
		    ", superseded");
	if (!known_source(o->source))
		return discrepancy(err, "%s: %s's order file has source '%s', "
		    "which is none of %s", wh, side, o->source, SOURCES);
	if ((rc = check_file_header(c, aw, o, wh, side, err)) != HP_OK)
		return rc;
	if (o->sig == NULL) {
		if (strcmp(o->source, "mail") == 0)
			return discrepancy(err, "%s: %s's order file came by "
			    "mail but no signature is recorded for it", wh,
			    side);
		/* Entered by hand for a player's side: whoever runs the
		 * server could have chosen it, nonce and all, to steer the
		 * dice key (docs/AUDIT.md, "Signatures by source"). */
		if (o->current && (strcmp(o->source, "cli") == 0 ||
		    strcmp(o->source, "standing") == 0) && o->side >= 0 &&
		    o->side < GAME_MAX_SIDES && (c->keyed & (1u << o->side)))
			return discrepancy(err, "%s: %s's order file (%s) is "
			    "unsigned, but %s is played by a player with a key: "
			    "a file entered on the command line for a player's "
			    "side must carry that player's signature, else "
			    "whoever runs the server could have chosen it to "
			    "steer the dice", wh, side, o->source, side);
		/* opponent and deadline-* files are checked by the replay. */
		if (o->current && (strcmp(o->source, "cli") == 0 ||
		    strcmp(o->source, "standing") == 0))
			s->unsigned_orders++;
		return HP_OK;
	}
	if (o->sigpub == NULL)
		return discrepancy(err, "%s: no public key for the signature of "
		    "%s's order file", wh, side);
	if (verify_sig(o->sigpub, o->sig, o->raw, &sig, &verr) != HP_OK)
		return discrepancy(err, "%s: the signature of %s's order file "
		    "does not verify with the player's key: %s", wh, side,
		    verr.msg);
	/* Key history: the key must be the one registered for the player
	 * who sent the file, that player must play the file's side; a
	 * player replaced since keeps the key (docs/AUDIT.md, "Keys"). */
	if (o->player_mismatch)
		return discrepancy(err, "%s: %s's order file is recorded as sent "
		    "by one player and signed by another", wh, side);
	if (o->playerpub == NULL)
		return discrepancy(err, "%s: %s's order file is signed, but no "
		    "player is on record for its signature", wh, side);
	if (!same_key(o->playerpub, o->sigpub))
		return discrepancy(err, "%s: %s's order file is signed by a key "
		    "that is not the key registered for that player%s", wh,
		    side, o->playerpub[0] == '\0' ? " (no player of that side "
		    "has that key)" : "");
	if (o->player_side != o->side)
		return discrepancy(err, "%s: %s's order file is signed by %s, "
		    "who plays %s", wh, side, o->playername ? o->playername :
		    "a player", o->player_side >= 0 && o->player_side <
		    c->nsides ? c->sides[o->player_side] : "no side");
	if (o->current && o->side >= 0 && o->side < GAME_MAX_SIDES &&
	    (c->pinned & (1u << o->side))) {
		struct minisign_pubkey pk;
		char id[17];
		int k;

		if (minisign_pubkey_parse(o->sigpub, strlen(o->sigpub), &pk,
		    NULL) != HP_OK)
			return discrepancy(err, "%s: %s's order file is signed "
			    "by a key that does not parse", wh, side);
		for (k = 0; k < c->npin; k++)
			if (c->pin[k].side == o->side && memcmp(c->pin[k].keyid,
			    pk.keyid, sizeof pk.keyid) == 0 && memcmp(
			    c->pin[k].pk, pk.pk, sizeof pk.pk) == 0)
				break;
		if (k == c->npin)
			return discrepancy(err, "%s: %s's order file is signed "
			    "by key %s, which is not a key you pinned for %s: "
			    "the server may have registered a key of its own",
			    wh, side, minisign_keyid_hex(pk.keyid, id), side);
	}
	if (o->current) {
		s->signed_orders++;
		if (o->player_retired)
			s->replaced_signed++;
	}
	return HP_OK;
}

/* The auditor's pinned player keys ("SIDE=FILE") into c; a pinned side
 * counts as played by a player with a key. */
static int
load_pins(struct acamp *c, const struct audit_opts *opts,
    struct hp_error *err)
{
	struct minisign_pubkey pk;
	char side[GAME_ID_MAX], *text;
	const char *eq;
	int i, j;

	for (i = 0; opts != NULL && i < opts->npins; i++) {
		eq = strchr(opts->pins[i], '=');
		if (eq == NULL || eq == opts->pins[i] || (size_t)(eq -
		    opts->pins[i]) >= sizeof side || c->npin >= 32) {
			hp_seterr(err, HP_EINVAL, "--player-key %s: expected "
			    "SIDE=FILE", opts->pins[i]);
			return HP_EINVAL;
		}
		memcpy(side, opts->pins[i], (size_t)(eq - opts->pins[i]));
		side[eq - opts->pins[i]] = '\0';
		for (j = 0; j < c->nsides; j++)
			if (strcmp(c->sides[j], side) == 0)
				break;
		if (j == c->nsides) {
			hp_seterr(err, HP_EINVAL, "--player-key %s: %s has no "
			    "side %s", opts->pins[i], c->name, side);
			return HP_EINVAL;
		}
		if ((text = util_read_file(eq + 1, NULL, err)) == NULL)
			return err->code;
		if (minisign_pubkey_parse(text, strlen(text), &pk, err) !=
		    HP_OK) {
			free(text);
			return HP_EINVAL;
		}
		free(text);
		c->pin[c->npin].side = j;
		memcpy(c->pin[c->npin].keyid, pk.keyid, sizeof pk.keyid);
		memcpy(c->pin[c->npin].pk, pk.pk, sizeof pk.pk);
		c->npin++;
		c->pinned |= 1u << j;
		c->keyed |= 1u << j;
	}
	return HP_OK;
}

/* Did the replay roll exactly what the log lists? */
static int
same_rolls(const char *wh, const char *what, const struct dice_roll *a,
    size_t na, const struct dice_roll *b, size_t nb, struct hp_error *err)
{
	size_t i;

	for (i = 0; i < na && i < nb; i++)
		if (a[i].seq != b[i].seq || a[i].sides != b[i].sides ||
		    a[i].target != b[i].target || a[i].result != b[i].result ||
		    strcmp(a[i].purpose, b[i].purpose) != 0)
			return discrepancy(err, "%s: roll #%zu differs: %s has "
			    "#%d d%d target %d result %d (%s), the signed dice "
			    "log #%d d%d target %d result %d (%s)", wh, i + 1,
			    what, a[i].seq, a[i].sides, a[i].target,
			    a[i].result, a[i].purpose, b[i].seq, b[i].sides,
			    b[i].target, b[i].result, b[i].purpose);
	if (na != nb)
		return discrepancy(err, "%s: %s has %zu rolls, the signed dice "
		    "log %zu", wh, what, na, nb);
	return HP_OK;
}

/* Did the replay draw exactly the sealed rolls on record (set, number,
 * die, target, result, purpose, in the order drawn)? */
static int
same_sealed(const char *wh, const struct dice *d, const struct dice *rec,
    struct audit_stats *s, struct hp_error *err)
{
	size_t i;

	for (i = 0; i < d->nslog && i < rec->nslog; i++) {
		const struct dice_roll *a = &d->slog[i], *b = &rec->slog[i];

		if (a->visible != b->visible || a->seq != b->seq ||
		    a->sides != b->sides || a->target != b->target ||
		    a->result != b->result || strcmp(a->purpose, b->purpose) !=
		    0)
			return discrepancy(err, "%s: sealed roll %zu differs: the "
			    "replay has set %u #%d d%d target %d result %d (%s), "
			    "the record set %u #%d d%d target %d result %d (%s)",
			    wh, i + 1, a->visible, a->seq, a->sides, a->target,
			    a->result, a->purpose, b->visible, b->seq, b->sides,
			    b->target, b->result, b->purpose);
	}
	if (d->nslog != rec->nslog)
		return discrepancy(err, "%s: the replay draws %zu sealed rolls, "
		    "the record has %zu", wh, d->nslog, rec->nslog);
	s->sealed_rolls += (long)d->nslog;
	return HP_OK;
}

static int
same_events(const char *wh, const struct events *a, const struct events *b,
    struct hp_error *err)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		const struct event *x = &a->v[i], *y = &b->v[i];

		if (x->seq != y->seq || x->step != y->step ||
		    x->visible != y->visible || x->roll != y->roll ||
		    x->nroll != y->nroll || x->roll_set != y->roll_set ||
		    strcmp(x->phase, y->phase) != 0 ||
		    strcmp(x->text, y->text) != 0)
			return discrepancy(err, "%s: event %zu differs: stored "
			    "'%s', replayed '%s'", wh, i + 1, x->text, y->text);
	}
	if (a->n != b->n)
		return discrepancy(err, "%s: %zu events stored, %zu replayed",
		    wh, a->n, b->n);
	return HP_OK;
}

/* Same key id and key? */
static bool
same_pk(const struct minisign_pubkey *a, const struct minisign_pubkey *b)
{
	return memcmp(a->keyid, b->keyid, MINISIGN_KEYID_LEN) == 0 &&
	    memcmp(a->pk, b->pk, 32) == 0;
}

/* Check every rotation statement of c and build the keys the audit accepts
 * from the trusted key c->server_pub: the whole chain of statements if the
 * trusted key is in it, else the trusted key alone. */
static int
keychain_build(const struct acamp *c, struct keychain *kc,
    struct audit_stats *s, struct hp_error *err)
{
	struct minisign_pubkey t, *chain;
	struct serverkey_statement stm;
	struct hp_error verr = { 0, "" };
	char a[17], b[17];
	int i, j;

	memset(kc, 0, sizeof *kc);
	kc->top = -1;
	chain = xcalloc((size_t)c->nrot + 1, sizeof *chain);
	for (i = 0; i < c->nrot; i++) {
		const struct arot *r = &c->rot[i];

		if (r->num != i + 1) {
			free(chain);
			return discrepancy(err, "key rotation statement %d is "
			    "missing: the record goes on with statement %d", i + 1,
			    r->num);
		}
		if (serverkey_statement_check(r->text, r->sig, r->csig, &stm,
		    &verr) != HP_OK) {
			free(chain);
			return discrepancy(err, "key rotation statement %d: %s",
			    r->num, verr.msg);
		}
		if (stm.seq != r->num) {
			free(chain);
			return discrepancy(err, "key rotation statement %d says it "
			    "is statement %d", r->num, stm.seq);
		}
		if (i == 0)
			chain[0] = stm.old_key;
		else if (!same_pk(&stm.old_key, &chain[i])) {
			minisign_keyid_hex(stm.old_key.keyid, a);
			minisign_keyid_hex(chain[i].keyid, b);
			free(chain);
			return discrepancy(err, "key rotation statement %d hands "
			    "over from key %s, but statement %d handed over to key "
			    "%s: a statement is missing or was changed", r->num, a,
			    i, b);
		}
		for (j = 0; j <= i; j++)
			if (memcmp(chain[j].keyid, stm.new_key.keyid,
			    MINISIGN_KEYID_LEN) == 0) {
				minisign_keyid_hex(stm.new_key.keyid, a);
				free(chain);
				return discrepancy(err, "key rotation statement %d "
				    "hands over to key %s, which the chain had "
				    "before", r->num, a);
			}
		chain[i + 1] = stm.new_key;
	}
	s->rotations = c->nrot;
	if (c->server_pub == NULL) {
		free(chain);
		return HP_OK;
	}
	if (minisign_pubkey_parse(c->server_pub, strlen(c->server_pub), &t,
	    err) != HP_OK) {
		free(chain);
		return HP_EINVAL;
	}
	t.comment[0] = '\0';
	for (i = 0; i <= c->nrot && c->nrot > 0; i++)
		if (same_pk(&t, &chain[i]))
			break;
	if (c->nrot > 0 && i <= c->nrot) {
		kc->k = chain;
		kc->n = c->nrot + 1;
		kc->trusted = i;
		s->rotations_followed = c->nrot;
	} else {
		chain[0] = t;
		kc->k = chain;
		kc->n = 1;
	}
	return HP_OK;
}

/* Which accepted key signed a dice log: verify it, and check that the
 * campaign's logs follow the chain (a key once replaced signs no later
 * window). */
static int
keychain_verify(struct keychain *kc, const char *wh, const char *what,
    const char *log, const char *sigtext, struct minisign_sig *sig,
    struct audit_stats *s, struct hp_error *err)
{
	struct hp_error verr = { 0, "" };
	char id[17], tid[17], top[17];
	int i;

	if (kc->n == 0)
		return discrepancy(err, "%s: no server public key to check the "
		    "%s's signature with", wh, what);
	if (minisign_sig_parse(sigtext, strlen(sigtext), sig, &verr) != HP_OK)
		return discrepancy(err, "%s: the %s does not match its "
		    "server signature: %s", wh, what, verr.msg);
	for (i = 0; i < kc->n; i++)
		if (memcmp(kc->k[i].keyid, sig->keyid, MINISIGN_KEYID_LEN) == 0)
			break;
	if (i == kc->n) {
		minisign_keyid_hex(sig->keyid, id);
		minisign_keyid_hex(kc->k[kc->trusted].keyid, tid);
		return discrepancy(err, "%s: the %s does not match its "
		    "server signature: it is signed by server key %s, which is "
		    "not the trusted key %s and which no key rotation statement "
		    "links to it", wh, what, id, tid);
	}
	if (minisign_verify(&kc->k[i], sig, (const unsigned char *)log,
	    strlen(log), &verr) != HP_OK)
		return discrepancy(err, "%s: the %s does not match its "
		    "server signature: %s", wh, what, verr.msg);
	if (i < kc->top) {
		minisign_keyid_hex(kc->k[i].keyid, id);
		minisign_keyid_hex(kc->k[kc->top].keyid, top);
		return discrepancy(err, "%s: the %s is signed by server "
		    "key %s, which key rotation statement %d had replaced: an "
		    "earlier window's log is signed by the later key %s", wh,
		    what, id, i + 1, top);
	}
	if (i != kc->top)
		s->server_keys++;
	kc->top = i;
	return HP_OK;
}

/* The opponent line names known sides, each once, in side order; each
 * order line's source fits the sides the window names and the opponent
 * line; every side the window names has a file (docs/AUDIT.md, "Dice
 * log"). */
static int
check_sources(const struct acamp *c, const struct awin *aw,
    const struct dicelog *l, const char *wh, struct hp_error *err)
{
	unsigned opp = 0, have = 0, bit;
	int k, j, last = -1;

	for (k = 0; k < l->nopponent; k++) {
		for (j = 0; j < c->nsides; j++)
			if (strcmp(l->opponent[k], c->sides[j]) == 0)
				break;
		if (j == c->nsides || j <= last)
			return discrepancy(err, "%s: the dice log's opponent line "
			    "names '%s', which is not a side after the ones "
			    "before it", wh, l->opponent[k]);
		last = j;
		opp |= 1u << j;
	}
	for (k = 0; k < l->norders; k++) {
		const char *src = l->orders[k].source;
		bool on, named;

		for (j = 0; j < c->nsides; j++)
			if (strcmp(l->orders[k].side, c->sides[j]) == 0)
				break;
		if (j == c->nsides)
			return discrepancy(err, "%s: the dice log has orders of "
			    "'%s', which is not a side", wh, l->orders[k].side);
		bit = 1u << j;
		have |= bit;
		on = (opp & bit) != 0;
		named = (aw->w.spec.sides & bit) != 0;
		if (strcmp(src, "standing") == 0 ? named : !named)
			return discrepancy(err, "%s: %s's order file has source "
			    "'%s', but the window %s that side", wh, c->sides[j],
			    src, named ? "names" : "does not name");
		if ((strcmp(src, "cli") == 0 || strcmp(src, "standing") ==
		    0) && on && c->keyed != 0)
			return discrepancy(err, "%s: %s's order file has source "
			    "'%s', but the opponent line lists %s as played by "
			    "the built-in opponent: a file entered by hand for "
			    "the opponent's side could have been chosen to steer "
			    "the dice", wh, c->sides[j], src, c->sides[j]);
		if (strcmp(src, "opponent") == 0 && !on)
			return discrepancy(err, "%s: %s's order file has source "
			    "'opponent', but the dice log's opponent line does "
			    "not list %s", wh, c->sides[j], c->sides[j]);
		if (strncmp(src, "deadline-", 9) == 0 && on)
			return discrepancy(err, "%s: %s's order file has source "
			    "'%s', but the opponent line lists %s as played by "
			    "the built-in opponent, which never misses a deadline",
			    wh, c->sides[j], src, c->sides[j]);
	}
	for (j = 0; j < c->nsides; j++)
		if ((aw->w.spec.sides & (1u << j)) && !(have & (1u << j)))
			return discrepancy(err, "%s: the window names %s, but the "
			    "dice log has no order file of %s", wh, c->sides[j],
			    c->sides[j]);
	return HP_OK;
}

/* The windows, logs and signatures of window i, before the replay. */
static int
check_window_records(const struct acamp *c, int i, struct keychain *kc,
    unsigned char *prev, struct dicelog *l, struct audit_stats *s,
    struct hp_error *err)
{
	const struct awin *aw = &c->w[i];
	struct minisign_sig sig;
	struct hp_error verr = { 0, "" };
	char wh[128], tc[256];
	int k, n, rc, j;

	where(aw, wh, sizeof wh);
	for (k = 0; k < aw->no; k++)
		if ((rc = check_order(c, aw, &aw->o[k], s, err)) != HP_OK)
			return rc;
	if (aw->log == NULL)
		return discrepancy(err, "%s: the window was resolved but its "
		    "dice log is missing", wh);
	if (aw->logsig == NULL)
		return discrepancy(err, "%s: the dice log is not signed (the "
		    "window was resolved without a server key)", wh);
	if ((rc = keychain_verify(kc, wh, "dice log", aw->log, aw->logsig, &sig,
	    s, err)) != HP_OK)
		return rc;
	s->log_signatures++;
	if (dicelog_parse(aw->log, l, &verr) != HP_OK)
		return discrepancy(err, "%s: %s", wh, verr.msg);
	dicelog_trusted_comment(l, tc, sizeof tc);
	if (strcmp(tc, sig.trusted) != 0)
		return discrepancy(err, "%s: the dice log signature's trusted "
		    "comment is '%s', expected '%s'", wh, sig.trusted, tc);
	if (strcmp(l->campaign, c->name) != 0 || l->turn != aw->w.spec.turn ||
	    l->window != aw->w.spec.number ||
	    strcmp(l->window_name, aw->w.spec.name) != 0)
		return discrepancy(err, "%s: the dice log is for campaign %s "
		    "turn %d window %d '%s'", wh, l->campaign, l->turn,
		    l->window, l->window_name);
	if (sodium_memcmp(l->previous, prev, 32) != 0)
		return discrepancy(err, "%s: the hash chain is broken: the dice "
		    "log's 'previous' is not the hash of the %s", wh, i == 0 ?
		    "empty chain (zeros) for the first window" :
		    "previous window's dice log");
	if (sodium_memcmp(l->commitment, aw->w.commitment, 32) != 0)
		return discrepancy(err, "%s: the commitment in the dice log is "
		    "not the one published when the window opened", wh);
	if (sodium_memcmp(l->seed, aw->w.seed, DICE_SEEDLEN) != 0)
		return discrepancy(err, "%s: the revealed seed differs from the "
		    "seed in the signed dice log", wh);
	if ((rc = dicelog_check(l, &verr)) != HP_OK)
		return discrepancy(err, "%s", verr.msg);
	if (aw->w.have_key && sodium_memcmp(aw->w.dice_key, l->key,
	    DICE_KEYLEN) != 0)
		return discrepancy(err, "%s: the stored dice key differs from "
		    "the signed dice log's", wh);
	if (i + 1 < c->nw) {
		if (!l->have_next || sodium_memcmp(l->next_commitment,
		    c->w[i + 1].w.commitment, 32) != 0)
			return discrepancy(err, "%s: the next window's "
			    "commitment differs from the one the dice log "
			    "published", wh);
	} else if (l->have_next)
		return discrepancy(err, "%s: the dice log names a next window "
		    "that does not exist", wh);
	if ((rc = check_sources(c, aw, l, wh, err)) != HP_OK)
		return rc;
	/* The log's order lines are the current files, in side order (not
	 * the order stored: a standing file is stored at the resolution,
	 * after a later side's file filled at a deadline). */
	n = 0;
	for (k = 0; k < aw->no * c->nsides; k++) {
		const struct aorder *o = &aw->o[k % aw->no];

		unsigned char nc[32];
		const unsigned char *want = o->hash;

		if (!o->current || o->side != k / aw->no)
			continue;
		/* Hidden orders: the line carries the file's nonce
		 * commitment (docs/AUDIT.md, "Hidden orders"). */
		if (l->nonce_form && n < l->norders) {
			if (sealed_file_commitment(o->raw, c->sides[o->side],
			    nc) != HP_OK)
				return discrepancy(err, "%s: %s's order file "
				    "does not parse", wh, c->sides[o->side]);
			want = nc;
		}
		if (n >= l->norders || strcmp(l->orders[n].side,
		    c->sides[o->side]) != 0 || strcmp(l->orders[n].source,
		    o->source) != 0 || sodium_memcmp(l->orders[n].hash,
		    want, 32) != 0)
			return discrepancy(err, "%s: the order files do not "
			    "match the dice log's order lines (%s's file)", wh,
			    c->sides[o->side]);
		n++;
	}
	if (n != l->norders)
		return discrepancy(err, "%s: the dice log lists %d order files, "
		    "%d are stored", wh, l->norders, n);
	/* The standing lines are the standing orders in force when the
	 * window opened of the sides it names, in side order (G3). */
	n = 0;
	for (k = 0; k < aw->no; k++) {
		const struct aorder *o = &aw->o[k];
		unsigned char nc[32];
		const unsigned char *want = o->hash;

		if (!o->snap)
			continue;
		/* Hidden orders: its nonce commitment ("Hidden orders"). */
		if (l->nonce_form) {
			if (sealed_file_commitment(o->raw, c->sides[o->side],
			    nc) != HP_OK)
				return discrepancy(err, "%s: %s's standing file "
				    "does not parse", wh, c->sides[o->side]);
			want = nc;
		}
		if (!(aw->w.spec.sides & (1u << o->side)) || n >=
		    l->nstanding || strcmp(l->standing[n].side,
		    c->sides[o->side]) != 0 || sodium_memcmp(l->standing[n].hash,
		    want, 32) != 0)
			return discrepancy(err, "%s: the standing orders of %s "
			    "in force when the window opened do not match the "
			    "dice log's standing lines", wh, c->sides[o->side]);
		for (j = 0; j < l->nopponent && c->keyed != 0; j++)
			if (strcmp(l->opponent[j], c->sides[o->side]) == 0)
				return discrepancy(err, "%s: %s has standing orders "
				    "in the dice key, but the opponent line lists "
				    "%s as played by the built-in opponent: a file "
				    "entered by hand for the opponent's side could "
				    "have been chosen to steer the dice", wh,
				    c->sides[o->side], c->sides[o->side]);
		n++;
	}
	if (n != l->nstanding)
		return discrepancy(err, "%s: the dice log lists %d standing "
		    "files of sides the window names, %d are stored", wh,
		    l->nstanding, n);
	if (aw->have_dice && (rc = same_rolls(wh, "the stored dice table",
	    aw->dice.log, aw->dice.nlog, l->rolls, l->nrolls, err)) != HP_OK)
		return rc;
	s->rolls += (long)l->nrolls;
	return HP_OK;
}

/* The seed chain statement: signed by a key the audit accepts (before any
 * log: it is the campaign's first signed word), canonical, for this
 * campaign, saying test dice exactly when the campaign has them, and long
 * enough (docs/AUDIT.md, "Seed chain"). */
static int
check_chain(const struct acamp *c, struct keychain *kc, struct seedchain *sc,
    struct audit_stats *s, struct hp_error *err)
{
	struct hp_error verr = { 0, "" };
	struct minisign_sig sig;
	char wh[GAME_NAME_MAX + 16], tc[256];
	int rc;

	snprintf(wh, sizeof wh, "campaign %s", c->name);
	if (c->chain == NULL)
		return discrepancy(err, "%s has no seed chain statement: its "
		    "seeds were not fixed when it was created, so the server "
		    "could have chosen each one (a campaign made before the "
		    "seed chain, or the statement was removed)", wh);
	if (c->chainsig == NULL)
		return discrepancy(err, "%s: the seed chain statement is not "
		    "signed (the campaign was created without a server key)",
		    wh);
	if ((rc = keychain_verify(kc, wh, "seed chain statement", c->chain,
	    c->chainsig, &sig, s, err)) != HP_OK)
		return rc;
	if (seedchain_parse(c->chain, sc, &verr) != HP_OK)
		return discrepancy(err, "%s: %s", wh, verr.msg);
	seedchain_trusted_comment(sc, tc, sizeof tc);
	if (strcmp(tc, sig.trusted) != 0)
		return discrepancy(err, "%s: the seed chain statement's trusted "
		    "comment is '%s', expected '%s'", wh, sig.trusted, tc);
	if (strcmp(sc->campaign, c->name) != 0)
		return discrepancy(err, "%s: the seed chain statement is for "
		    "campaign %s", wh, sc->campaign);
	if (sc->test != c->test_dice)
		return discrepancy(err, "%s: the signed seed chain statement "
		    "says '%s' dice, but the campaign says it has %s dice", wh,
		    sc->test ? "test" : "random", c->test_dice ? "test" :
		    "random");
	if (sc->length < c->nw)
		return discrepancy(err, "%s has %d windows, but its seed chain "
		    "has only %d seeds", wh, c->nw, sc->length);
	return HP_OK;
}

/* The sealed sets (docs/AUDIT.md, "Sealed dice"): a ruleset with hidden
 * information has one per non-empty set of sides, each statement signed by
 * a key the audit accepts, and each seed revealed and matching its
 * statement's commitment; sealed dice are checked only after the game's
 * end, when every seed is revealed. */
static int
check_sealed(const struct acamp *c, struct keychain *kc, const struct game *g,
    struct audit_stats *s, struct hp_error *err)
{
	struct minisign_sig sig;
	struct sbuf text;
	char wh[GAME_NAME_MAX + 40], tc[256];
	unsigned m, all;
	int rc = HP_OK;

	all = 0;
	for (m = 1; m < (1u << g->nsides) && m < DICE_SEALED_SETS; m++)
		all |= 1u << m;
	if (!g->rules->hidden) {
		if (c->sealed_sets != 0)
			return discrepancy(err, "campaign %s has sealed dice, but "
			    "its ruleset %s has no hidden information", c->name,
			    c->ruleset);
		return HP_OK;
	}
	if (c->sealed_sets != all)
		return discrepancy(err, "campaign %s: ruleset %s has hidden "
		    "information, but the sealed sets on record are not one per "
		    "set of sides", c->name, c->ruleset);
	sbuf_init(&text);
	for (m = 1; m < DICE_SEALED_SETS && rc == HP_OK; m++) {
		if (!(all & (1u << m)))
			continue;
		snprintf(wh, sizeof wh, "campaign %s sealed set %u", c->name, m);
		if (!(c->sealed_known & (1u << m))) {
			rc = discrepancy(err, "%s: its seed is not revealed: sealed "
			    "dice are audited after the game's end (a bundle "
			    "carries the seeds only then)", wh);
			break;
		}
		if (c->sealed_sig[m] == NULL) {
			rc = discrepancy(err, "%s: the set statement is not signed",
			    wh);
			break;
		}
		sbuf_free(&text);
		sealed_format(g, c->test_dice, m, c->sealed_seed[m], &text);
		if ((rc = keychain_verify(kc, wh, "sealed set statement (made "
		    "from the revealed seed)", text.buf, c->sealed_sig[m], &sig,
		    s, err)) != HP_OK)
			break;
		sealed_trusted_comment(g, m, tc, sizeof tc);
		if (strcmp(tc, sig.trusted) != 0)
			rc = discrepancy(err, "%s: the statement's trusted comment "
			    "is '%s', expected '%s'", wh, sig.trusted, tc);
		else
			s->sealed_sets++;
	}
	sbuf_free(&text);
	return rc;
}

/* Is window i's revealed seed the next link of the chain: does it hash to
 * the previous window's seed (the head for the first window)? */
static int
check_link(const struct acamp *c, int i, const struct seedchain *sc,
    struct audit_stats *s, struct hp_error *err)
{
	unsigned char l[32];
	char wh[128];

	seedchain_link(c->w[i].w.seed, l);
	if (sodium_memcmp(l, i == 0 ? sc->head : c->w[i - 1].w.seed, 32) !=
	    0) {
		where(&c->w[i], wh, sizeof wh);
		return discrepancy(err, "%s: the revealed seed is not seed %d of "
		    "the signed seed chain: it does not hash to %s", wh, i + 1,
		    i == 0 ? "the chain's head" : "the previous window's seed");
	}
	s->chain_links++;
	return HP_OK;
}

/* Does the window the rules open now match the stored one? */
static int
check_spec(const struct game *g, const struct awin *aw, struct hp_error *err)
{
	struct window_spec spec;
	char wh[128];

	where(aw, wh, sizeof wh);
	if (g->status == GAME_FINISHED || !g->rules->next_window(g, &spec))
		return discrepancy(err, "%s: in the replay the game had ended "
		    "before this window", wh);
	if (spec.turn != aw->w.spec.turn || spec.number != aw->w.spec.number ||
	    strcmp(spec.name, aw->w.spec.name) != 0 ||
	    spec.kind != aw->w.spec.kind || spec.sides != aw->w.spec.sides)
		return discrepancy(err, "%s: the replay opens turn %d window %d "
		    "'%s' here", wh, spec.turn, spec.number, spec.name);
	return HP_OK;
}

/* Window cont's files as the resumption of a stopped resolution that
 * asked at step (G1): what the resumed window's ctx->prior is parsed from. */
static void
replay_resume(const struct acamp *c, int cont, int step,
    struct window_resume *res)
{
	const struct awin *ow = &c->w[cont];
	int k;

	memset(res, 0, sizeof *res);
	res->step = step;
	res->w = ow->w.spec;
	for (k = 0; k < ow->no; k++)
		if (ow->o[k].current)
			res->prior[ow->o[k].side] = ow->o[k].raw;
}

/* Report text t with the order files of window aw (log l) appended as
 * side sees them, as report_render stores it; NULL (t freed) on error. */
static char *
replay_files(const struct acamp *c, const struct game *g,
    const struct dicelog *l, const struct awin *aw, int side, char *t,
    struct hp_error *err)
{
	struct sbuf b;
	int k, stmt = 0;

	for (k = 0; k < c->nmod && stmt == 0; k++)
		stmt = modstmt_proceed_in(c->mod[k].text, aw->w.spec.turn,
		    aw->w.spec.number);
	sbuf_init(&b);
	sbuf_puts(&b, t);
	free(t);
	if (report_files(g, l, side, stmt, &b, err) != HP_OK) {
		sbuf_free(&b);
		return NULL;
	}
	return sbuf_steal(&b);
}

/* Replay window i on g, resuming res (NULL: none), and compare everything
 * it produces; *stop says whether it stopped to ask. */
static int
replay_window(const struct acamp *c, int i, struct game *g,
    const struct dicelog *l, const struct window_resume *res,
    struct window_stop *stop, struct audit_stats *s, struct hp_error *err)
{
	const struct awin *aw = &c->w[i];
	const char *raw[GAME_MAX_SIDES] = { 0 };
	const char *standing[GAME_MAX_SIDES] = { 0 };
	bool more;
	struct hp_error rerr = { 0, "" };
	struct window_spec next;
	struct events ev;
	struct dice d;
	char wh[128], *t;
	int k, j, rc;

	where(aw, wh, sizeof wh);
	for (j = 0; j < g->nsides; j++) {
		g->sides[j].ai = false;
		for (k = 0; k < l->nopponent; k++)
			if (strcmp(l->opponent[k], g->sides[j].name) == 0)
				g->sides[j].ai = true;
	}
	for (k = 0; k < aw->no; k++) {
		const struct aorder *o = &aw->o[k];

		if (o->snap)
			standing[o->side] = o->raw;
		if (!o->current)
			continue;
		raw[o->side] = o->raw;
		if (strcmp(o->source, "standing") == 0)
			standing[o->side] = o->raw;
		if (strcmp(o->source, "opponent") == 0 ||
		    strcmp(o->source, "deadline-ai") == 0) {
			t = window_opponent_orders(g, &aw->w.spec, o->side);
			rc = strcmp(t, o->raw);
			free(t);
			if (rc != 0)
				return discrepancy(err, "%s: %s's order file is "
				    "marked as the built-in opponent's (%s), but "
				    "the opponent writes different orders in the "
				    "replayed state", wh, g->sides[o->side].name,
				    o->source);
			if (o->source[0] == 'o')
				s->opponent_orders++;
			else
				s->deadline_orders++;
		} else if (strcmp(o->source, "deadline-hold") == 0) {
			t = window_hold_orders(g, &aw->w.spec, o->side);
			rc = t == NULL ? 1 : strcmp(t, o->raw);
			free(t);
			if (rc != 0)
				return discrepancy(err, "%s: %s's order file is "
				    "marked as written by the hold policy at the "
				    "deadline (deadline-hold), but it is not the "
				    "hold file that policy writes", wh,
				    g->sides[o->side].name);
			s->deadline_orders++;
		}
	}
	s->orders += l->norders;
	events_init(&ev);
	dice_init_stream(&d, l->key);
	for (k = 1; k < DICE_SEALED_SETS; k++)
		if (c->sealed_known & (1u << k))
			dice_sealed_enable(&d, (unsigned)k, c->sealed_seed[k]);
	rc = window_resolve_resume(g, &aw->w.spec, raw, standing, res,
	    stop, &d, &ev, &rerr);
	if (rc == HP_OK)
		rc = window_advance(g, stop, &next, &more, &rerr);
	if (rc != HP_OK) {
		rc = discrepancy(err, "%s: the replay fails: %s", wh, rerr.msg);
		goto out;
	}
	if ((rc = same_rolls(wh, "the replay", d.log, d.nlog, l->rolls,
	    l->nrolls, err)) != HP_OK)
		goto out;
	if ((d.nslog > 0 || aw->have_sealed) &&
	    (rc = same_sealed(wh, &d, &aw->sdice, s, err)) != HP_OK)
		goto out;
	if (aw->have_events) {
		if ((rc = same_events(wh, &aw->ev, &ev, err)) != HP_OK)
			goto out;
		s->events++;
	}
	for (j = -1; j < g->nsides; j++) {
		const char *stored = aw->reports[j + 1];

		if (stored == NULL)
			continue;
		if ((t = report_render_text(g, &aw->w, i + 1 < c->nw ?
		    &c->w[i + 1].w : NULL, &ev, &d, j, &rerr)) == NULL ||
		    (t = replay_files(c, g, l, aw, j, t, &rerr)) == NULL) {
			rc = discrepancy(err, "%s: cannot render the report: %s",
			    wh, rerr.msg);
			goto out;
		}
		rc = strcmp(t, stored);
		free(t);
		if (rc != 0) {
			rc = discrepancy(err, "%s: the report for %s differs from "
			    "the replay's", wh, j < 0 ? "the moderator" :
			    g->sides[j].name);
			goto out;
		}
		s->reports++;
	}
	rc = HP_OK;
out:
	dice_free(&d);
	events_free(&ev);
	return rc;
}

/* Line number (1-based) of the first difference between two texts. */
static int
first_diff(const char *a, const char *b)
{
	int line = 1;

	for (; *a != '\0' && *a == *b; a++, b++)
		if (*a == '\n')
			line++;
	return line;
}

/* Check the whole model. */
/* Moderator statements (docs/AUDIT.md, "Moderator statements"). */

/* Per side, the keys seated so far: the current one ("" none yet, "-"
 * none) and every one the side had. */
struct seats {
	char cur[GAME_MAX_SIDES][17];
	char hist[GAME_MAX_SIDES][17 * 32];
};

/* Does window i (0-based) have a file written at a deadline? How many. */
static int
deadline_filled(const struct awin *aw)
{
	int k, n = 0;

	for (k = 0; k < aw->no; k++)
		if (aw->o[k].current && strncmp(aw->o[k].source, "deadline-",
		    9) == 0)
			n++;
	return n;
}

/* "replace of SIDE", or "VERB ARG": what moderator statement m does, for
 * the message of an unsigned one. */
static void
mod_action(const struct modstmt *m, char *buf, size_t len)
{
	if (strcmp(m->verb, "replace") == 0)
		snprintf(buf, len, "replace of %.*s", (int)strcspn(m->arg, " "),
		    m->arg);
	else
		snprintf(buf, len, "%s%s%s", m->verb, m->arg[0] ? " " : "",
		    m->arg);
}

/* Fail naming an unsigned moderator action (docs/AUDIT.md, "Unsigned
 * moderator actions"). */
static int
unsigned_action(struct hp_error *err, const char *what, int window,
    const char *more)
{
	return discrepancy(err, "unsigned moderator action: %s in window %d%s; "
	    "register a moderator key, or pass --accept-unsigned-moderation",
	    what, window, more);
}

/* The moderator key against the pinned one, and every statement: signed
 * by the moderator key, numbered, for its window; an end on record must
 * be one of them, and each proceed must have filled a side. A statement
 * with no signature is an unsigned moderator action: it fails unless the
 * auditor accepts unsigned moderation, and comes before any signed one. */
static int
check_statements(const struct acamp *c, const struct audit_opts *opts,
    struct audit_stats *s, struct hp_error *err)
{
	struct hp_error verr = { 0, "" };
	struct modstmt m;
	char wh[128], pinned_id[17] = "", what[200];
	bool proceeded[1024];
	bool accept = opts != NULL && opts->accept_unsigned_moderation;
	int i, last = 1, ends = 0, first_signed = 0, nsigned = 0;

	memset(proceeded, 0, sizeof proceeded);
	if (opts != NULL && opts->moderator_key != NULL) {
		char *pin = util_read_file(opts->moderator_key, NULL, err);

		if (pin == NULL)
			return err->code;
		if (!modstmt_keyid(pin, pinned_id)) {
			free(pin);
			hp_seterr(err, HP_EINVAL, "--moderator-key %s: not a "
			    "minisign public key", opts->moderator_key);
			return HP_EINVAL;
		}
		i = c->modpub != NULL && same_key(c->modpub, pin);
		free(pin);
		if (c->modpub == NULL)
			return discrepancy(err, "you pinned moderator key %s, but "
			    "campaign %s has no moderator key: its moderator "
			    "actions (replace, proceed, end, extensions) are on "
			    "the server's word", pinned_id, c->name);
		if (!i)
			return discrepancy(err, "campaign %s's moderator key is "
			    "not the key you pinned (%s): the server may have "
			    "registered a moderator key of its own", c->name,
			    pinned_id);
		s->mod_pinned = 1;
	}
	if (c->modpub != NULL && !modstmt_keyid(c->modpub,
	    s->moderator_key_id))
		return discrepancy(err, "campaign %s's moderator key does not "
		    "parse", c->name);
	for (i = 0; i < c->nmod; i++) {
		const struct amod *a = &c->mod[i];
		const struct awin *aw;
		bool uns = a->sig == NULL || a->sig[0] == '\0';

		if (a->num != i + 1)
			return discrepancy(err, "moderator statement %d is "
			    "missing", i + 1);
		if (!uns && c->modpub == NULL)
			return discrepancy(err, "campaign %s has a signed "
			    "moderator statement (%d) but no moderator key",
			    c->name, a->num);
		if (!uns && modstmt_verify(c->modpub, a->text, a->sig,
		    &verr) != HP_OK)
			return discrepancy(err, "moderator statement %d is not "
			    "signed by the moderator's key %s: %s", a->num,
			    s->moderator_key_id, verr.msg);
		if (modstmt_parse(a->text, &m, &verr) != HP_OK)
			return discrepancy(err, "moderator statement %d: %s",
			    a->num, verr.msg);
		if (m.seq != a->num || strcmp(m.campaign, c->name) != 0)
			return discrepancy(err, "moderator statement %d names "
			    "campaign %s, number %d", a->num, m.campaign, m.seq);
		if (m.window < last || m.window > c->nw)
			return discrepancy(err, "moderator statement %d is for "
			    "window %d, not one from %d to %d (statements follow "
			    "the windows)", a->num, m.window, last, c->nw);
		last = m.window;
		aw = &c->w[m.window - 1];
		where(aw, wh, sizeof wh);
		if (aw->w.spec.turn != m.turn || aw->w.spec.number != m.number ||
		    strcmp(aw->w.spec.name, m.name) != 0)
			return discrepancy(err, "moderator statement %d names "
			    "turn %d window %d '%s', but the campaign's window %d "
			    "is %s", a->num, m.turn, m.number, m.name, m.window,
			    wh);
		if (!uns && nsigned++ == 0)
			first_signed = a->num;
		if (uns && first_signed > 0)
			return discrepancy(err, "moderator statement %d is "
			    "unsigned, after statement %d signed by the "
			    "moderator's key (once registered, the key signs "
			    "every statement)", a->num, first_signed);
		if (uns) {
			mod_action(&m, what, sizeof what);
			if (!accept)
				return unsigned_action(err, what, m.window, "");
			s->mod_unsigned++;
		}
		if (strcmp(m.verb, "end") == 0) {
			if (ends++ > 0 || c->nends == 0 || m.window != c->nw ||
			    aw->w.state == WSTATE_RESOLVED ||
			    strcmp(m.arg, c->end_arg) != 0)
				return discrepancy(err, "moderator statement %d "
				    "ends the game ('%s') in %s, but the end on "
				    "record is %s%s%s", a->num, m.arg, wh,
				    c->nends ? "'" : "none", c->nends ?
				    c->end_arg : "", c->nends ? "'" : "");
		}
		if (strcmp(m.verb, "proceed") == 0) {
			if (aw->w.state != WSTATE_RESOLVED ||
			    deadline_filled(aw) == 0)
				return discrepancy(err, "moderator statement %d "
				    "says 'proceed %s' in %s, but no side of that "
				    "window was filled (no deadline-ai or "
				    "deadline-hold file)", a->num, m.arg, wh);
			if (m.window - 1 < (int)sizeof proceeded)
				proceeded[m.window - 1] = true;
		}
	}
	if (c->nends > 0 && ends == 0 && c->modpub != NULL)
		return discrepancy(err, "the moderator's end of %s ('%s') is on "
		    "record, but no statement signed by the moderator's key %s "
		    "ends it: whoever runs the server may have ended the game",
		    c->name, c->end_arg, s->moderator_key_id);
	if (c->nends > 0 && ends == 0) {
		/* No key, and not even an unsigned statement of the end. */
		snprintf(what, sizeof what, "end%s%s", c->end_arg[0] ? " " : "",
		    c->end_arg);
		if (!accept)
			return unsigned_action(err, what, c->nw, " (on record "
			    "with no statement)");
		s->mod_unsigned++;
	}
	for (i = 0; i < c->nw; i++)
		if (i >= (int)sizeof proceeded || !proceeded[i])
			s->deadline_fills += deadline_filled(&c->w[i]);
	s->mod_statements = nsigned;
	return HP_OK;
}

/* Window i's signed files against the seats: a side's files are signed
 * by its first key until a moderator statement replaces it (in that
 * window, the old key or the new one); standing files by any key the side
 * had. In a campaign without a moderator key a key change is an unsigned
 * moderator action: checked only unless the auditor accepts those. */
static int
check_seats(const struct acamp *c, int i, bool accept, struct seats *seat,
    struct hp_error *err)
{
	const struct awin *aw = &c->w[i];
	char newk[GAME_MAX_SIDES][17], id[17], wh[128];
	struct modstmt m;
	int k, side;

	if (c->modpub == NULL && accept)
		return HP_OK;
	memset(newk, 0, sizeof newk);
	for (k = 0; k < c->nmod; k++) {
		char sname[GAME_ID_MAX + 1], kid[17];

		if (modstmt_parse(c->mod[k].text, &m, NULL) != HP_OK ||
		    m.window != i + 1 || strcmp(m.verb, "replace") != 0 ||
		    sscanf(m.arg, "%16s %16s", sname, kid) != 2)
			continue;
		for (side = 0; side < c->nsides; side++)
			if (strcmp(c->sides[side], sname) == 0)
				strlcpy_(newk[side], kid, sizeof newk[side]);
	}
	where(aw, wh, sizeof wh);
	for (k = 0; k < aw->no; k++) {
		const struct aorder *o = &aw->o[k];
		char *cur;

		if (!o->current || o->sig == NULL || o->sigpub == NULL ||
		    o->side < 0 || o->side >= c->nsides ||
		    !modstmt_keyid(o->sigpub, id))
			continue;
		cur = seat->cur[o->side];
		if (strcmp(o->source, "standing") == 0 &&
		    strstr(seat->hist[o->side], id) != NULL)
			continue;
		if (cur[0] == '\0' || strcmp(cur, id) == 0 ||
		    strcmp(newk[o->side], id) == 0) {
			if (cur[0] == '\0') {
				strlcpy_(cur, id, 17);
				strcat(seat->hist[o->side], id);
			}
			continue;
		}
		if (c->modpub == NULL) {
			char what[200], more[300];

			snprintf(what, sizeof what, "replace of %s",
			    c->sides[o->side]);
			snprintf(more, sizeof more, " (%s's order file in %s is "
			    "signed by key %s, but its key was %s and no "
			    "statement on record replaced it)", c->sides[o->side],
			    wh, id, cur);
			return unsigned_action(err, what, i + 1, more);
		}
		return discrepancy(err, "%s: %s's order file is signed by key "
		    "%s, but %s's key was %s and no statement signed by the "
		    "moderator's key replaced it: the server may have seated a "
		    "key of its own", wh, c->sides[o->side], id,
		    c->sides[o->side], cur);
	}
	for (side = 0; side < c->nsides; side++)
		if (newk[side][0] != '\0') {
			strlcpy_(seat->cur[side], newk[side], 17);
			if (strlen(seat->hist[side]) + 17 <
			    sizeof seat->hist[side])
				strcat(seat->hist[side], newk[side]);
		}
	return HP_OK;
}

/* Per side, the newest standing file any window used so far (docs/AUDIT.md,
 * "Standing orders' sequence"). */
struct standing_seen {
	bool have;               /* a file with a sequence was used */
	long long seq;
	unsigned char hash[32];
	int win;                 /* index of the window that used it */
};

/* The standing files window i used (its snapshot, and the standing files
 * of the sides it does not name) against the newest each side had used
 * before: an older signed file put back in force fails. */
static int
check_standing_seq(const struct acamp *c, int i, struct standing_seen *seen,
    struct hp_error *err)
{
	const struct awin *aw = &c->w[i];
	int k;

	for (k = 0; k < aw->no; k++) {
		const struct aorder *o = &aw->o[k];
		struct standing_seen *sn;
		struct order_header h;
		struct order_body body;
		struct order_errors errs;
		unsigned char hash[32];
		char wh[128], pw[128];
		int rc;

		if (!(o->current || o->snap) || strcmp(o->source,
		    "standing") != 0 || o->side < 0 || o->side >= c->nsides)
			continue;
		orders_errors_init(&errs);
		rc = orders_parse_file(o->raw, strlen(o->raw), &h, &body, &errs);
		orders_errors_free(&errs);
		if (rc != HP_OK)
			continue;        /* check_order has said so */
		orders_body_free(&body);
		window_order_hash(o->raw, hash);
		sn = &seen[o->side];
		if (sn->have && (h.sequence < sn->seq || (h.sequence ==
		    sn->seq && sodium_memcmp(hash, sn->hash, 32) != 0))) {
			where(aw, wh, sizeof wh);
			where(&c->w[sn->win], pw, sizeof pw);
			if (h.sequence == 0)
				return discrepancy(err, "%s: %s's standing "
				    "orders have no sequence, but standing "
				    "orders of sequence %lld were in force in "
				    "%s: an older standing file was put back in "
				    "force", wh, c->sides[o->side], sn->seq, pw);
			return discrepancy(err, "%s: %s's standing orders have "
			    "sequence %lld, but standing orders of sequence "
			    "%lld were in force in %s: an older standing file "
			    "was put back in force", wh, c->sides[o->side],
			    h.sequence, sn->seq, pw);
		}
		if (h.sequence > 0 && (!sn->have || h.sequence > sn->seq)) {
			sn->have = true;
			sn->seq = h.sequence;
			memcpy(sn->hash, hash, 32);
			sn->win = i;
		}
	}
	return HP_OK;
}

static int
acamp_check(const struct acamp *c, const struct audit_opts *opts,
    struct audit_stats *s, struct hp_error *err)
{
	struct hp_error rerr = { 0, "" };
	unsigned char prev[32];
	struct keychain kc;
	struct seedchain sc;
	struct seats seat;
	struct standing_seen seen[GAME_MAX_SIDES];
	struct game g;
	struct sbuf dump;
	char wh[128];
	int i, k, rc, cont = -1, cont_step = 0;
	bool input = false;

	memset(prev, 0, sizeof prev);
	memset(&kc, 0, sizeof kc);
	memset(&seat, 0, sizeof seat);
	memset(seen, 0, sizeof seen);
	game_init(&g);
	sbuf_init(&dump);
	if (c->test_dice) {
		if (opts == NULL || !opts->accept_test_dice) {
			rc = discrepancy(err, "campaign %s is a TEST campaign: "
			    "its dice come from 'campaign new --seed TEXT', so "
			    "anyone who knows or guesses the text knows every "
			    "die; it proves nothing about fair dice (pass "
			    "--accept-test-dice to check it anyway)", c->name);
			goto out;
		}
		s->test_dice = true;
	}
	if ((rc = keychain_build(c, &kc, s, err)) != HP_OK ||
	    (rc = check_chain(c, &kc, &sc, s, err)) != HP_OK ||
	    (rc = check_statements(c, opts, s, err)) != HP_OK)
		goto out;
	if ((g.rules = ruleset_find(c->ruleset)) == NULL) {
		rc = discrepancy(err, "campaign %s uses ruleset %s, which this "
		    "hexpost does not have", c->name, c->ruleset);
		goto out;
	}
	strlcpy_(g.name, c->name, sizeof g.name);
	strlcpy_(g.options, c->options, sizeof g.options);
	if (ruleset_setup(&g, c->scenario[0] ? c->scenario : NULL,
	    c->scenario_text, NULL, NULL, &rerr) != HP_OK) {
		rc = discrepancy(err, "the scenario does not set up: %s",
		    rerr.msg);
		goto out;
	}
	if (c->nw == 0) {
		rc = discrepancy(err, "campaign %s has no windows", c->name);
		goto out;
	}
	if ((rc = check_sealed(c, &kc, &g, s, err)) != HP_OK)
		goto out;
	for (i = 0; i < c->nw; i++) {
		const struct awin *aw = &c->w[i];
		struct dicelog l;

		where(aw, wh, sizeof wh);
		if ((rc = check_spec(&g, aw, err)) != HP_OK)
			goto out;
		g.turn = aw->w.spec.turn;
		g.window = aw->w.spec.number;
		if (aw->w.state != WSTATE_RESOLVED) {
			if (i + 1 != c->nw) {
				rc = discrepancy(err, "%s is not resolved, but "
				    "later windows exist", wh);
				goto out;
			}
			break;
		}
		if ((rc = check_link(c, i, &sc, s, err)) != HP_OK)
			goto out;
		dicelog_init(&l);
		rc = check_window_records(c, i, &kc, prev, &l, s, err);
		if (rc == HP_OK)
			rc = check_seats(c, i, opts != NULL &&
			    opts->accept_unsigned_moderation, &seat, err);
		if (rc == HP_OK)
			rc = check_standing_seq(c, i, seen, err);
		if (rc == HP_OK) {
			struct window_resume res;
			struct window_stop stop = { -1, 0 };

			if (cont >= 0)
				replay_resume(c, cont, cont_step, &res);
			rc = replay_window(c, i, &g, &l, cont >= 0 ? &res :
			    NULL, &stop, s, err);
			/* A stop: the next window resumes this resolution
			 * (or the one this window resumed). */
			if (stop.step >= 0) {
				cont = cont >= 0 ? cont : i;
				cont_step = stop.step;
				s->stops++;
			} else
				cont = -1;
		}
		if (rc == HP_OK)
			dicelog_hash(aw->log, prev);
		dicelog_free(&l);
		if (rc != HP_OK)
			goto out;
		/* Player input: a file signed by a player (docs/AUDIT.md,
		 * "Threat model"); it reaches every later key. */
		for (k = 0; k < aw->no; k++)
			if ((aw->o[k].current || aw->o[k].snap) &&
			    aw->o[k].sig != NULL)
				input = true;
		if (!input)
			s->no_input_windows++;
		s->windows++;
		if (opts != NULL && opts->progress != NULL)
			fprintf(opts->progress, "ok %s\n", wh);
	}
	if (c->nends > 0) {
		/* A moderator's end is on record: it came while the last
		 * window was open (an ended game resolves nothing more), and
		 * changed nothing but the status and the result. */
		if (c->nends > 1) {
			rc = discrepancy(err, "%d 'end' commands are on record "
			    "for %s; a game ends once", c->nends, c->name);
			goto out;
		}
		if (g.status == GAME_FINISHED ||
		    c->w[c->nw - 1].w.state == WSTATE_RESOLVED) {
			rc = discrepancy(err, "the moderator's 'end' of %s is on "
			    "record, but in the replay the game %s", c->name,
			    g.status == GAME_FINISHED ? "had already ended" :
			    "has no open window for it to end in");
			goto out;
		}
		g.status = GAME_FINISHED;
		window_end_result(c->end_arg, g.result, sizeof g.result);
		s->moderator_end = true;
	}
	if (c->w[c->nw - 1].w.state == WSTATE_RESOLVED &&
	    g.status != GAME_FINISHED) {
		rc = discrepancy(err, "the replay says the game goes on after "
		    "the last window, but no window is open");
		goto out;
	}
	state_dump(&g, &dump);
	if (c->state != NULL && g.status != GAME_FINISHED &&
	    strncmp(c->state, "status: finished\n", 17) == 0) {
		rc = discrepancy(err, "the stored state of %s says the game has "
		    "ended, but the replay's goes on and no moderator's 'end' "
		    "is on record", c->name);
		goto out;
	}
	if (c->state != NULL && strcmp(dump.buf, c->state) != 0) {
		rc = discrepancy(err, "the stored state of %s differs from the "
		    "replay's at line %d", c->name, first_diff(dump.buf,
		    c->state));
		goto out;
	}
	rc = HP_OK;
out:
	free(kc.k);
	sbuf_free(&dump);
	game_free(&g);
	return rc;
}

/* Fill in the trusted key: opts->server_pub, else the key recorded with
 * the first signed log. */
static int
load_server_pub(struct acamp *c, const struct audit_opts *opts,
    struct audit_stats *s, struct hp_error *err)
{
	struct minisign_pubkey pk;
	int i;

	if (opts != NULL && opts->server_pub != NULL) {
		if ((c->server_pub = util_read_file(opts->server_pub, NULL,
		    err)) == NULL)
			return err->code;
		strlcpy_(s->key_source, "the key given", sizeof s->key_source);
	} else {
		if (c->chainpub != NULL)
			c->server_pub = xstrdup(c->chainpub);
		for (i = 0; c->server_pub == NULL && i < c->nw; i++)
			if (c->w[i].logpub != NULL)
				c->server_pub = xstrdup(c->w[i].logpub);
		strlcpy_(s->key_source, c->chainpub != NULL ? "the key recorded "
		    "with the seed chain" : "the key recorded with the first "
		    "log", sizeof s->key_source);
	}
	if (c->server_pub != NULL && minisign_pubkey_parse(c->server_pub,
	    strlen(c->server_pub), &pk, err) != HP_OK)
		return HP_EINVAL;
	if (c->server_pub != NULL)
		minisign_keyid_hex(pk.keyid, s->server_key_id);
	return HP_OK;
}

/* The server's rotation statements from the database into c. */
static int
load_db_rotations(struct store *st, struct acamp *c, struct hp_error *err)
{
	struct store_rotation *r = NULL;
	int i, n = 0, rc;

	if ((rc = store_rotations_all(st, &r, &n, err)) != HP_OK)
		return rc;
	c->rot = xcalloc((size_t)(n > 0 ? n : 1), sizeof *c->rot);
	for (i = 0; i < n; i++) {
		struct arot *a = &c->rot[c->nrot++];

		a->num = r[i].seq;
		a->text = r[i].statement;
		a->sig = r[i].signature;
		a->csig = r[i].countersignature;
		a->oldpub = r[i].old_pubkey;
		a->newpub = r[i].new_pubkey;
		memset(&r[i], 0, sizeof r[i]);
	}
	store_rotations_free(r, n);
	return HP_OK;
}

/* The signature of stored file o (by its hash) and its signer: the player
 * recorded with the signature, else player (the file's sender, 0: none). */
static int
load_db_sig(struct store *st, struct aorder *o, int64_t player,
    struct hp_error *err)
{
	struct hp_error e2 = { 0, "" };
	char pname[GAME_NAME_MAX], pub[256];
	int64_t pid;
	bool active;
	int rc, pside;

	o->player_side = -1;
	rc = store_ordersig_get(st, o->hash, &o->sig, &o->sigpub, &e2);
	if (rc != HP_OK && rc != HP_ENOENT) {
		*err = e2;
		return rc;
	}
	if (o->sig == NULL)
		return HP_OK;
	/* The signer as recorded with the signature; standing orders copied
	 * into a window name no sender. */
	if ((rc = store_ordersig_player(st, o->hash, &pid, err)) != HP_OK)
		return rc;
	if (pid == 0)
		pid = player;
	else if (player > 0 && player != pid)
		o->player_mismatch = true;
	if (pid > 0 && store_player_get(st, pid, &pside, pname, sizeof pname,
	    pub, sizeof pub, &e2) == HP_OK && store_player_active(st, pid,
	    &active, &e2) == HP_OK) {
		o->playerpub = xstrdup(pub);
		o->playername = xstrdup(pname);
		o->player_side = pside;
		o->player_retired = !active;
	}
	return HP_OK;
}

/* Window aw's standing snapshot of the sides it names (G3), appended to
 * its files as snap entries. */
static int
load_db_standing(struct store *st, struct awin *aw, struct hp_error *err)
{
	struct store_order snap[GAME_MAX_SIDES];
	int rc, k;

	if ((rc = store_standing_get(st, aw->w.id, snap, err)) != HP_OK)
		return rc;
	for (k = 0; k < GAME_MAX_SIDES && rc == HP_OK; k++) {
		struct aorder *o;

		if (snap[k].raw == NULL || !(aw->w.spec.sides & (1u << k)))
			continue;
		aw->o = xrealloc(aw->o, (size_t)(aw->no + 1) * sizeof *aw->o);
		o = &aw->o[aw->no++];
		memset(o, 0, sizeof *o);
		o->side = k;
		o->snap = true;
		strlcpy_(o->source, "standing", sizeof o->source);
		o->raw = snap[k].raw;
		snap[k].raw = NULL;
		memcpy(o->hash, snap[k].hash, 32);
		rc = load_db_sig(st, o, 0, err);
	}
	store_orders_free(snap);
	return rc;
}

/* Load campaign name from the database into c. */
static int
load_db(struct store *st, const char *name, struct acamp *c,
    struct hp_error *err)
{
	struct hp_error e2 = { 0, "" };
	struct store_window *ws = NULL;
	struct store_order_row *rows = NULL;
	struct game g;
	struct sbuf dump;
	int64_t cid;
	int rc, i, k, n = 0, nrows = 0;

	game_init(&g);
	sbuf_init(&dump);
	if ((rc = store_game_load(st, name, &g, &cid, err)) != HP_OK)
		goto out;
	strlcpy_(c->name, g.name, sizeof c->name);
	strlcpy_(c->ruleset, g.rules->name, sizeof c->ruleset);
	strlcpy_(c->scenario, g.scenario, sizeof c->scenario);
	strlcpy_(c->options, g.options, sizeof c->options);
	c->nsides = g.nsides;
	for (i = 0; i < g.nsides; i++) {
		strlcpy_(c->sides[i], g.sides[i].name, GAME_ID_MAX);
		strlcpy_(c->labels[i], g.sides[i].label, GAME_NAME_MAX);
	}
	state_dump(&g, &dump);
	c->state = sbuf_steal(&dump);
	c->finished = g.status == GAME_FINISHED;
	if ((rc = store_campaign_scenario(st, cid, &c->scenario_text, err)) !=
	    HP_OK)
		goto out;
	{	/* sealed sets (docs/AUDIT.md, "Sealed dice") */
		struct store_sealed_set *v = NULL;
		int nv = 0;

		if ((rc = store_sealed_sets(st, cid, &v, &nv, err)) != HP_OK)
			goto out;
		for (k = 0; k < nv; k++) {
			unsigned m = v[k].mask;

			if (m == 0 || m >= DICE_SEALED_SETS)
				continue;
			c->sealed_sets |= 1u << m;
			c->sealed_known |= 1u << m;
			memcpy(c->sealed_seed[m], v[k].seed, 32);
			if (v[k].signature != NULL)
				c->sealed_sig[m] = xstrdup(v[k].signature);
		}
		store_sealed_sets_free(v, nv);
	}
	{
		unsigned char master[64];
		size_t mlen = sizeof master;

		if ((rc = store_master_seed(st, cid, master, &mlen, err)) !=
		    HP_OK)
			goto out;
		c->test_dice = mlen > 0;
		sodium_memzero(master, sizeof master);
	}
	{
		struct store_chain ch;

		rc = store_chain_get(st, cid, &ch, &e2);
		if (rc != HP_OK && rc != HP_ENOENT) {
			*err = e2;
			goto out;
		}
		if (rc == HP_OK) {
			c->chain = ch.statement;
			c->chainsig = ch.signature;
			c->chainpub = ch.pubkey;
			ch.statement = ch.signature = ch.pubkey = NULL;
			store_chain_free(&ch);
		}
	}
	{
		struct store_player *pk = NULL;
		int npk = 0;

		if ((rc = store_player_keys(st, cid, &pk, &npk, err)) != HP_OK)
			goto out;
		for (k = 0; k < npk; k++)
			if (pk[k].side >= 0 && pk[k].side < GAME_MAX_SIDES)
				c->keyed |= 1u << pk[k].side;
		free(pk);
	}
	if ((rc = store_command_count(st, cid, "end", &c->nends, c->end_arg,
	    sizeof c->end_arg, err)) != HP_OK)
		goto out;
	{	/* The moderator's key and statements (migration 016). */
		struct store_modstmt *ms = NULL;
		int nms = 0;

		if ((rc = store_modkey_get(st, cid, &c->modpub, err)) !=
		    HP_OK || (rc = store_modstmt_all(st, cid, &ms, &nms,
		    err)) != HP_OK)
			goto out;
		c->mod = xcalloc((size_t)(nms > 0 ? nms : 1), sizeof *c->mod);
		for (k = 0; k < nms; k++) {
			c->mod[k].num = ms[k].seq;
			c->mod[k].text = ms[k].statement;
			c->mod[k].sig = ms[k].signature;
			ms[k].statement = ms[k].signature = NULL;
		}
		c->nmod = nms;
		store_modstmt_free(ms, nms);
	}
	if ((rc = load_db_rotations(st, c, err)) != HP_OK ||
	    (rc = store_windows_all(st, cid, &ws, &n, err)) != HP_OK)
		goto out;
	c->w = xcalloc((size_t)(n > 0 ? n : 1), sizeof *c->w);
	for (i = 0; i < n; i++) {
		struct awin *aw = &c->w[c->nw++];

		aw->w = ws[i];
		events_init(&aw->ev);
		if (aw->w.state != WSTATE_RESOLVED)
			continue;
		if ((rc = store_orders_all(st, aw->w.id, &rows, &nrows,
		    err)) != HP_OK)
			goto out;
		aw->o = xcalloc((size_t)(nrows > 0 ? nrows : 1), sizeof *aw->o);
		for (k = 0; k < nrows; k++) {
			struct aorder *o = &aw->o[aw->no++];

			o->side = rows[k].side;
			if (o->side < 0 || o->side >= g.nsides) {
				rc = discrepancy(err, "an order file of turn %d "
				    "is for side %d, which does not exist",
				    aw->w.spec.turn, o->side);
				goto out;
			}
			strlcpy_(o->source, rows[k].source, sizeof o->source);
			o->raw = rows[k].raw;
			rows[k].raw = NULL;
			memcpy(o->hash, rows[k].hash, 32);
			o->current = rows[k].current;
			if ((rc = load_db_sig(st, o, rows[k].player, err)) !=
			    HP_OK)
				goto out;
		}
		store_order_rows_free(rows, nrows);
		if ((rc = load_db_standing(st, aw, err)) != HP_OK)
			goto out;
		rows = NULL;
		nrows = 0;
		rc = store_dicelog_get(st, aw->w.id, &aw->log, &aw->logsig,
		    &aw->logpub, &e2);
		if (rc != HP_OK && rc != HP_ENOENT) {
			*err = e2;
			goto out;
		}
		memset(&aw->dice, 0, sizeof aw->dice);
		if ((rc = store_dice_load(st, aw->w.id, &aw->dice, err)) !=
		    HP_OK)
			goto out;
		aw->have_dice = true;
		if ((rc = store_events_load(st, aw->w.id, &aw->ev, err)) !=
		    HP_OK || (rc = store_events_load_rolls(st, aw->w.id,
		    &aw->ev, err)) != HP_OK)
			goto out;
		aw->have_events = true;
		memset(&aw->sdice, 0, sizeof aw->sdice);
		if ((rc = store_sealed_dice_load(st, aw->w.id, &aw->sdice,
		    err)) != HP_OK)
			goto out;
		aw->have_sealed = true;
		for (k = -1; k < g.nsides; k++)
			aw->reports[k + 1] = store_report_get(st, aw->w.id, k,
			    &e2);
	}
	rc = HP_OK;
out:
	store_order_rows_free(rows, nrows);
	if (ws != NULL)
		sodium_memzero(ws, (size_t)n * sizeof *ws);
	free(ws);
	sbuf_free(&dump);
	game_free(&g);
	return rc;
}

int
audit_campaign(struct store *st, const char *name,
    const struct audit_opts *opts, struct audit_stats *s,
    struct hp_error *err)
{
	struct acamp c;
	int rc;

	memset(&c, 0, sizeof c);
	memset(s, 0, sizeof *s);
	if ((rc = load_db(st, name, &c, err)) == HP_OK &&
	    (rc = load_pins(&c, opts, err)) == HP_OK &&
	    (rc = load_server_pub(&c, opts, s, err)) == HP_OK)
		rc = acamp_check(&c, opts, s, err);
	acamp_free(&c);
	return rc;
}

/* Bundles. */

/* DIR/NAME into buf (4096 bytes); directories are checked to be at most
 * DIR_MAX bytes on entry, names are short, so it always fits. */
#define DIR_MAX 2048
/* A path that would not fit gives "" (opening it fails with an error for
 * that bundle only) and HP_EINVAL: never an abort of the whole daemon. */
static int
pjoin(char *buf, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	if (na + nb + 2 > 4096) {
		buf[0] = '\0';
		return HP_EINVAL;
	}
	memcpy(buf, a, na);
	buf[na] = '/';
	memcpy(buf + na + 1, b, nb + 1);
	return HP_OK;
}

static int
mkdir_p(const char *path, struct hp_error *err)
{
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	return HP_OK;
}

static int
put_file(const char *dir, const char *name, const char *text,
    struct hp_error *err)
{
	char path[4096];

	if (pjoin(path, dir, name) != HP_OK) {
		hp_seterr(err, HP_EINVAL, "%s/%s: path too long", dir, name);
		return HP_EINVAL;
	}
	return util_write_file_atomic(path, text, strlen(text), 0644, err);
}

static void
hexs(const unsigned char *p, size_t n, char *out)
{
	sodium_bin2hex(out, 2 * n + 1, p, n);
}

/* Directory of window i inside a bundle. */
static void
window_dir(const char *dir, int i, char *buf, size_t len)
{
	char n[32];

	snprintf(n, sizeof n, "windows/%04d", i + 1);
	if (len < 4096)
		fatalx("audit: window_dir buffer");
	pjoin(buf, dir, n);
}

/* Write public key file text into DIR/server-keys/ID.pub, once per key. */
static int
put_server_key(const char *dir, const char *text, struct hp_error *err)
{
	struct minisign_pubkey pk;
	char id[17], name[64], path[4096];

	if (text == NULL || minisign_pubkey_parse(text, strlen(text), &pk,
	    NULL) != HP_OK)
		return HP_OK;
	minisign_keyid_hex(pk.keyid, id);
	snprintf(name, sizeof name, "server-keys/%s.pub", id);
	pjoin(path, dir, name);
	if (access(path, F_OK) == 0)
		return HP_OK;
	return util_write_file_atomic(path, text, strlen(text), 0644, err);
}

/* The rotation statements (rotations/NNNN.txt, with NNNN.txt.minisig by
 * the old key and NNNN.txt.new.minisig by the new) and every server key:
 * the chain's and each key that signed a log (server-keys/ID.pub). */
static int
export_server_keys(const char *dir, const struct acamp *c, const char *pub,
    struct hp_error *err)
{
	char path[4096], name[64];
	int i, rc;

	pjoin(path, dir, "server-keys");
	if ((rc = mkdir_p(path, err)) != HP_OK)
		return rc;
	pjoin(path, dir, "rotations");
	if ((rc = mkdir_p(path, err)) != HP_OK ||
	    (rc = put_server_key(dir, pub, err)) != HP_OK)
		return rc;
	for (i = 0; i < c->nrot; i++) {
		const struct arot *r = &c->rot[i];

		snprintf(name, sizeof name, "%04d.txt", r->num);
		if ((rc = put_file(path, name, r->text, err)) != HP_OK)
			return rc;
		snprintf(name, sizeof name, "%04d.txt.minisig", r->num);
		if ((rc = put_file(path, name, r->sig, err)) != HP_OK)
			return rc;
		snprintf(name, sizeof name, "%04d.txt.new.minisig", r->num);
		if ((rc = put_file(path, name, r->csig, err)) != HP_OK ||
		    (rc = put_server_key(dir, r->oldpub, err)) != HP_OK ||
		    (rc = put_server_key(dir, r->newpub, err)) != HP_OK)
			return rc;
	}
	for (i = 0; i < c->nw; i++)
		if ((rc = put_server_key(dir, c->w[i].logpub, err)) != HP_OK)
			return rc;
	return put_server_key(dir, c->chainpub, err);
}

/* The sealed sets of c into DIR/sealed/: each set's statement and its
 * signature, and its seed once the game has ended (docs/AUDIT.md, "Sealed
 * dice"). */
static int
export_sealed(const char *dir, const struct acamp *c, struct hp_error *err)
{
	struct game g;
	struct sbuf b;
	char path[4096], name[32], hex[65];
	unsigned m;
	int rc = HP_OK, k;

	if (c->sealed_sets == 0)
		return HP_OK;
	pjoin(path, dir, "sealed");
	if ((rc = mkdir_p(path, err)) != HP_OK)
		return rc;
	memset(&g, 0, sizeof g);
	strlcpy_(g.name, c->name, sizeof g.name);
	g.nsides = c->nsides;
	for (k = 0; k < c->nsides; k++)
		strlcpy_(g.sides[k].name, c->sides[k], sizeof g.sides[k].name);
	sbuf_init(&b);
	for (m = 1; m < DICE_SEALED_SETS && rc == HP_OK; m++) {
		if (!(c->sealed_sets & (1u << m)))
			continue;
		sbuf_free(&b);
		sealed_format(&g, c->test_dice, m, c->sealed_seed[m], &b);
		snprintf(name, sizeof name, "%u.txt", m);
		rc = put_file(path, name, b.buf, err);
		snprintf(name, sizeof name, "%u.txt.minisig", m);
		if (rc == HP_OK && c->sealed_sig[m] != NULL)
			rc = put_file(path, name, c->sealed_sig[m], err);
		if (rc != HP_OK || !c->finished)
			continue;
		hexs(c->sealed_seed[m], 32, hex);
		sbuf_free(&b);
		sbuf_printf(&b, "%s\n", hex);
		snprintf(name, sizeof name, "%u.seed", m);
		rc = put_file(path, name, b.buf, err);
	}
	sbuf_free(&b);
	return rc;
}

static const char bundle_readme[] =
    "hexpost audit bundle\n"
    "====================\n\n"
    "Everything needed to check this campaign's dice without the server's\n"
    "database (docs/AUDIT.md in hexpost's sources specifies every byte):\n\n"
    "  campaign.txt        ruleset, scenario, options, dice (random or\n"
    "                      test), sides, windows\n"
    "  chain.txt           the seed chain statement, signed by the server\n"
    "                      key when the campaign was created\n"
    "                      (chain.txt.minisig): compare it with the one in\n"
    "                      your welcome mail\n"
    "  server.pub          the server's minisign public key\n"
    "  rotations/NNNN.txt  the server key's rotation statements, signed by\n"
    "                      the old key (NNNN.txt.minisig) and the new\n"
    "                      (NNNN.txt.new.minisig)\n"
    "  server-keys/ID.pub  every server key (the audit trusts only\n"
    "                      server.pub and the keys the statements link to it)\n"
    "  players.txt         the players' key ids; keys/ID.pub their keys\n"
    "  moderator.pub       the moderator's key, if the campaign has one, and\n"
    "  moderator/NNNN.txt  the statements it signed (NNNN.txt.minisig):\n"
    "                      replace, proceed, end, extend, deadline\n"
    "  state.txt           the campaign's state when exported\n"
    "  scenario.scn        the scenario file it was started from (if any)\n"
    "  windows/NNNN/       one directory per window, in order:\n"
    "    window.txt        turn, number, name, commitment, revealed seed\n"
    "    dice-log.txt      the signed, hash-chained dice log\n"
    "    dice-log.txt.minisig\n"
    "    orders/SIDE.txt   the order files that made the dice key, with\n"
    "                      SIDE.txt.minisig where the player signed it\n"
    "    reports/VIEW.txt  the reports as sent (moderator and each side)\n\n"
    "Check one window's dice log with the stock minisign tool:\n"
    "  minisign -V -p server.pub -m windows/0001/dice-log.txt\n"
    "(after a key rotation, with server-keys/ID.pub of the key that signed)\n"
    "and a rotation statement with the old key:\n"
    "  minisign -V -p server-keys/OLDID.pub -m rotations/0001.txt\n"
    "Check everything, replay included (pin the keys you got from the\n"
    "players and the moderator: --player-key SIDE=FILE, --moderator-key\n"
    "FILE):\n"
    "  hexpost audit --bundle THIS-DIRECTORY\n"
    "Check signatures, chain, seeds and dice with Python alone:\n"
    "  python3 hexpost-audit.py THIS-DIRECTORY\n";

int
audit_export(struct store *st, const char *name, const char *dir,
    const char *server_pub, struct hp_error *err)
{
	struct acamp c;
	struct sbuf b, players;
	struct stat sb;
	char path[4096], sub[4096], sub2[4096], hex[65], id[17];
	char *pub = NULL;
	int rc, i, k;

	memset(&c, 0, sizeof c);
	sbuf_init(&b);
	sbuf_init(&players);
	if (strlen(dir) > DIR_MAX) {
		hp_seterr(err, HP_EINVAL, "%s: path too long", dir);
		return HP_EINVAL;
	}
	if (stat(dir, &sb) == 0) {
		DIR *d = opendir(dir);
		struct dirent *de;
		int n = 0;

		while (d != NULL && (de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 &&
			    strcmp(de->d_name, "..") != 0)
				n++;
		if (d != NULL)
			closedir(d);
		if (n > 0) {
			hp_seterr(err, HP_ESTATE, "%s exists and is not empty",
			    dir);
			return HP_ESTATE;
		}
	}
	if ((rc = load_db(st, name, &c, err)) != HP_OK)
		goto out;
	if (server_pub != NULL) {
		if ((pub = util_read_file(server_pub, NULL, err)) == NULL) {
			rc = err->code;
			goto out;
		}
	} else {
		if (c.chainpub != NULL)
			pub = xstrdup(c.chainpub);
		for (i = 0; i < c.nw && pub == NULL; i++)
			if (c.w[i].logpub != NULL)
				pub = xstrdup(c.w[i].logpub);
	}
	if ((rc = mkdir_p(dir, err)) != HP_OK)
		goto out;
	pjoin(path, dir, "windows");
	if ((rc = mkdir_p(path, err)) != HP_OK)
		goto out;
	pjoin(path, dir, "keys");
	if ((rc = mkdir_p(path, err)) != HP_OK)
		goto out;
	if ((rc = put_file(dir, "README.txt", bundle_readme, err)) != HP_OK ||
	    (pub != NULL && (rc = put_file(dir, "server.pub", pub, err)) !=
	    HP_OK) || (rc = put_file(dir, "state.txt", c.state, err)) != HP_OK ||
	    (c.scenario_text != NULL && (rc = put_file(dir, "scenario.scn",
	    c.scenario_text, err)) != HP_OK))
		goto out;
	sbuf_printf(&b, BUNDLE_MAGIC "\ncampaign: %s\nruleset: %s\nscenario: "
	    "%s\noptions: %s\ndice: %s\nsides: %d\n", c.name, c.ruleset,
	    c.scenario, c.options, c.test_dice ? "test" : "random", c.nsides);
	for (i = 0; i < c.nsides; i++)
		sbuf_printf(&b, "side: %d %s %s\n", i, c.sides[i], c.labels[i]);
	sbuf_printf(&b, "windows: %d\n", c.nw);
	/* The moderator's end (at most one; the audit refuses more). */
	if (c.nends > 0)
		sbuf_printf(&b, "end: %s\n", c.end_arg);
	if ((rc = put_file(dir, "campaign.txt", b.buf, err)) != HP_OK ||
	    (c.chain != NULL && (rc = put_file(dir, "chain.txt", c.chain,
	    err)) != HP_OK) || (c.chainsig != NULL && (rc = put_file(dir,
	    "chain.txt.minisig", c.chainsig, err)) != HP_OK))
		goto out;
	if ((rc = export_sealed(dir, &c, err)) != HP_OK)
		goto out;
	for (i = 0; i < c.nw; i++) {
		struct awin *aw = &c.w[i];
		bool resolved = aw->w.state == WSTATE_RESOLVED;

		window_dir(dir, i, sub, sizeof sub);
		if ((rc = mkdir_p(sub, err)) != HP_OK)
			goto out;
		sbuf_free(&b);
		sbuf_printf(&b, "turn: %d\nnumber: %d\nname: %s\nkind: %d\n"
		    "sides: %u\nstate: %s\n", aw->w.spec.turn,
		    aw->w.spec.number, aw->w.spec.name, (int)aw->w.spec.kind,
		    aw->w.spec.sides, window_strstate(aw->w.state));
		hexs(aw->w.commitment, 32, hex);
		sbuf_printf(&b, "commitment: %s\n", hex);
		if (resolved) {	/* an open window's seed stays secret */
			hexs(aw->w.seed, DICE_SEEDLEN, hex);
			sbuf_printf(&b, "seed: %s\n", hex);
		}
		if ((rc = put_file(sub, "window.txt", b.buf, err)) != HP_OK)
			goto out;
		if (!resolved)
			continue;
		if (c.finished && aw->have_sealed && c.sealed_sets != 0) {
			/* Sealed rolls: only once the game has ended. */
			sbuf_free(&b);
			dicelog_sealed_format(c.name, aw->w.spec.turn,
			    aw->w.spec.number, aw->w.spec.name, &aw->sdice, &b);
			if ((rc = put_file(sub, "sealed-rolls.txt", b.buf,
			    err)) != HP_OK)
				goto out;
		}
		if ((aw->log != NULL && (rc = put_file(sub, "dice-log.txt",
		    aw->log, err)) != HP_OK) || (aw->logsig != NULL &&
		    (rc = put_file(sub, "dice-log.txt.minisig", aw->logsig,
		    err)) != HP_OK))
			goto out;
		pjoin(path, sub, "orders");
		if ((rc = mkdir_p(path, err)) != HP_OK)
			goto out;
		for (k = 0; k < aw->no; k++) {
			struct aorder *o = &aw->o[k];
			struct minisign_pubkey pk;
			char fname[64];

			if (!o->current && !o->snap)
				continue;
			/* Standing orders in the key of a side the window
			 * names: standing/SIDE.txt (G3). */
			pjoin(path, sub, o->snap ? "standing" : "orders");
			if (o->snap && (rc = mkdir_p(path, err)) != HP_OK)
				goto out;
			snprintf(fname, sizeof fname, "%s.txt",
			    c.sides[o->side]);
			if ((rc = put_file(path, fname, o->raw, err)) != HP_OK)
				goto out;
			if (o->sig == NULL)
				continue;
			snprintf(fname, sizeof fname, "%s.txt.minisig",
			    c.sides[o->side]);
			if ((rc = put_file(path, fname, o->sig, err)) != HP_OK)
				goto out;
			if (o->sigpub == NULL || minisign_pubkey_parse(
			    o->sigpub, strlen(o->sigpub), &pk, NULL) != HP_OK)
				continue;
			minisign_keyid_hex(pk.keyid, id);
			snprintf(fname, sizeof fname, "keys/%s.pub", id);
			pjoin(sub2, dir, fname);
			if (access(sub2, F_OK) != 0 &&
			    (rc = util_write_file_atomic(sub2, o->sigpub,
			    strlen(o->sigpub), 0644, err)) != HP_OK)
				goto out;
			/* Every key that signed, with its side and player:
			 * a replaced player's key stays listed. */
			snprintf(fname, sizeof fname, "player: %s %s ",
			    c.sides[o->player_side >= 0 && o->player_side <
			    c.nsides ? o->player_side : o->side], id);
			if (players.buf == NULL || strstr(players.buf, fname) ==
			    NULL)
				sbuf_printf(&players, "%s%s\n", fname,
				    o->playername ? o->playername : "?");
		}
		pjoin(path, sub, "reports");
		if ((rc = mkdir_p(path, err)) != HP_OK)
			goto out;
		for (k = 0; k <= c.nsides; k++) {
			char fname[64];

			if (aw->reports[k] == NULL)
				continue;
			snprintf(fname, sizeof fname, "%s.txt", k == 0 ?
			    "moderator" : c.sides[k - 1]);
			if ((rc = put_file(path, fname, aw->reports[k], err)) !=
			    HP_OK)
				goto out;
		}
	}
	/* Every player who has a key, active or replaced, signed or not: the
	 * sides a file entered by hand must be signed for (docs/AUDIT.md,
	 * "Keys"). */
	{
		struct store_player *pk = NULL;
		struct hp_error e2 = { 0, "" };
		struct game g;
		int64_t cid;
		int npk = 0;

		game_init(&g);
		rc = store_game_load(st, name, &g, &cid, err);
		game_free(&g);
		if (rc != HP_OK || (rc = store_player_keys(st, cid, &pk, &npk,
		    &e2)) != HP_OK) {
			if (rc != HP_OK && e2.msg[0] != '\0')
				*err = e2;
			goto out;
		}
		for (k = 0; k < npk && rc == HP_OK; k++) {
			if (pk[k].side < 0 || pk[k].side >= c.nsides ||
			    pk[k].key_id[0] == '\0')
				continue;
			snprintf(sub2, sizeof sub2, "player: %s %s ",
			    c.sides[pk[k].side], pk[k].key_id);
			if (players.buf != NULL && strstr(players.buf, sub2) !=
			    NULL)
				continue;
			sbuf_printf(&players, "%s%s\n", sub2, pk[k].name);
			snprintf(sub2, sizeof sub2, "keys/%s.pub",
			    pk[k].key_id);
			pjoin(path, dir, sub2);
			if (access(path, F_OK) != 0)
				rc = util_write_file_atomic(path, pk[k].pubkey,
				    strlen(pk[k].pubkey), 0644, err);
		}
		free(pk);
		if (rc != HP_OK)
			goto out;
	}
	if ((rc = put_file(dir, "players.txt", players.buf ? players.buf : "",
	    err)) != HP_OK)
		goto out;
	/* The moderator's key and signed statements ("Moderator
	 * statements"). */
	if (c.modpub != NULL && (rc = put_file(dir, "moderator.pub",
	    c.modpub, err)) != HP_OK)
		goto out;
	for (k = 0; k < c.nmod; k++) {
		char fname[64];

		pjoin(path, dir, "moderator");
		if ((rc = mkdir_p(path, err)) != HP_OK)
			goto out;
		snprintf(fname, sizeof fname, "%04d.txt", c.mod[k].num);
		if ((rc = put_file(path, fname, c.mod[k].text, err)) != HP_OK)
			goto out;
		/* An unsigned statement has no .minisig beside it. */
		snprintf(fname, sizeof fname, "%04d.txt.minisig", c.mod[k].num);
		if (c.mod[k].sig != NULL && c.mod[k].sig[0] != '\0' &&
		    (rc = put_file(path, fname, c.mod[k].sig, err)) != HP_OK)
			goto out;
	}
	rc = export_server_keys(dir, &c, pub, err);
out:
	free(pub);
	sbuf_free(&b);
	sbuf_free(&players);
	acamp_free(&c);
	return rc;
}

/* Read DIR/NAME (NULL if it does not exist; err on other failures). */
static char *
get_file(const char *dir, const char *name, bool need, struct hp_error *err)
{
	char path[4096];
	char *t;

	if (pjoin(path, dir, name) != HP_OK) {
		hp_seterr(err, HP_EINVAL, "%s/%s: path too long", dir, name);
		return NULL;
	}
	if (!need && access(path, F_OK) != 0)
		return NULL;
	if ((t = util_read_file(path, NULL, err)) == NULL && need)
		err->code = HP_EINVAL;
	return t;
}

/* The value of "key: " in a small key-value text, into buf. */
static bool
kv(const char *text, const char *key, char *buf, size_t len)
{
	const char *p = text;
	size_t n = strlen(key);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, n) == 0 && p[n] == ':' && p[n + 1] == ' ') {
			const char *e = strchr(p, '\n');
			size_t m = e ? (size_t)(e - p - n - 2) : strlen(p + n + 2);

			if (m >= len)
				return false;
			memcpy(buf, p + n + 2, m);
			buf[m] = '\0';
			return true;
		}
		if (strncmp(p, key, n) == 0 && p[n] == ':' && p[n + 1] == '\n') {
			buf[0] = '\0';
			return true;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return false;
}

/* qsort order of ints. */
static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The rotation statements of a bundle (rotations/NNNN.txt and their
 * signatures; none if the directory is missing), in number order. */
static int
load_bundle_rotations(const char *dir, struct acamp *c, struct hp_error *err)
{
	char path[4096], name[64];
	struct dirent *de;
	DIR *d;
	int *nums = NULL, n = 0, cap = 0, i;

	pjoin(path, dir, "rotations");
	if ((d = opendir(path)) == NULL) {
		if (errno == ENOENT)
			return HP_OK;
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	while ((de = readdir(d)) != NULL) {
		int num, len = 0;

		if (sscanf(de->d_name, "%d.txt%n", &num, &len) != 1 ||
		    de->d_name[len] != '\0' || num < 1 || num > 999999)
			continue;
		snprintf(name, sizeof name, "%04d.txt", num);
		if (strcmp(name, de->d_name) != 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			nums = xrealloc(nums, (size_t)cap * sizeof *nums);
		}
		nums[n++] = num;
	}
	closedir(d);
	if (n > 0)
		qsort(nums, (size_t)n, sizeof *nums, cmp_int);
	c->rot = xcalloc((size_t)(n > 0 ? n : 1), sizeof *c->rot);
	for (i = 0; i < n; i++) {
		struct arot *r = &c->rot[c->nrot++];

		r->num = nums[i];
		snprintf(name, sizeof name, "%04d.txt", nums[i]);
		if ((r->text = get_file(path, name, true, err)) == NULL) {
			free(nums);
			return HP_EINVAL;
		}
		snprintf(name, sizeof name, "%04d.txt.minisig", nums[i]);
		r->sig = get_file(path, name, false, err);
		snprintf(name, sizeof name, "%04d.txt.new.minisig", nums[i]);
		r->csig = get_file(path, name, false, err);
	}
	free(nums);
	return HP_OK;
}

/* The bundle's moderator.pub and moderator/NNNN.txt (with .minisig) into
 * c: statements numbered 1, 2, ...; a gap fails the audit. */
static int
load_bundle_statements(const char *dir, struct acamp *c, struct hp_error *err)
{
	char path[4096], name[64];
	int n;

	c->modpub = get_file(dir, "moderator.pub", false, err);
	pjoin(path, dir, "moderator");
	for (n = 1; n <= 99999; n++) {
		char *text;

		snprintf(name, sizeof name, "%04d.txt", n);
		if ((text = get_file(path, name, false, err)) == NULL)
			break;
		c->mod = xrealloc(c->mod, (size_t)n * sizeof *c->mod);
		c->mod[n - 1].num = n;
		c->mod[n - 1].text = text;
		snprintf(name, sizeof name, "%04d.txt.minisig", n);
		c->mod[n - 1].sig = get_file(path, name, false, err);
		c->nmod = n;
	}
	/* A statement after a gap: the one missing fails the audit. */
	snprintf(name, sizeof name, "moderator/%04d.txt", n + 1);
	pjoin(path, dir, name);
	if (access(path, F_OK) == 0) {
		c->mod = xrealloc(c->mod, (size_t)n * sizeof *c->mod);
		c->mod[n - 1].num = n + 1;
		c->mod[n - 1].text = xstrdup("");
		c->mod[n - 1].sig = NULL;
		c->nmod = n;
	}
	return HP_OK;
}

/* Load a bundle into c. */
static int
load_bundle(const char *dir, struct acamp *c, struct hp_error *err)
{
	char *camp = NULL, *wtxt = NULL, *players = NULL;
	char sub[4096], buf[256], fname[128], *line;
	const char *p;
	int i, k, nw, rc = HP_EINVAL;

	if ((camp = get_file(dir, "campaign.txt", true, err)) == NULL)
		goto out;
	if (strncmp(camp, BUNDLE_MAGIC "\n", strlen(BUNDLE_MAGIC) + 1) != 0 ||
	    !kv(camp, "campaign", c->name, sizeof c->name) ||
	    !kv(camp, "ruleset", c->ruleset, sizeof c->ruleset) ||
	    !kv(camp, "scenario", c->scenario, sizeof c->scenario) ||
	    !kv(camp, "options", c->options, sizeof c->options) ||
	    !kv(camp, "windows", buf, sizeof buf) || (nw = atoi(buf)) < 1 ||
	    nw > 1000000) {
		hp_seterr(err, HP_EINVAL, "%s/campaign.txt is not a hexpost "
		    "audit bundle's", dir);
		goto out;
	}
	/* "dice: random | test" (docs/AUDIT.md, "Audit bundle"). */
	if (!kv(camp, "dice", buf, sizeof buf) || (strcmp(buf, "random") != 0 &&
	    strcmp(buf, "test") != 0)) {
		hp_seterr(err, HP_EINVAL, "%s/campaign.txt has no 'dice: random' "
		    "or 'dice: test' line: it does not say whether its dice are "
		    "test dice", dir);
		goto out;
	}
	c->test_dice = strcmp(buf, "test") == 0;
	for (p = strstr(camp, "\nside: "); p != NULL && c->nsides <
	    GAME_MAX_SIDES; p = strstr(p + 1, "\nside: ")) {
		int idx, n = 0;

		if (sscanf(p, "\nside: %d %15s %n", &idx, c->sides[c->nsides],
		    &n) < 2 || idx != c->nsides) {
			hp_seterr(err, HP_EINVAL, "%s/campaign.txt: bad side "
			    "line", dir);
			goto out;
		}
		c->nsides++;
	}
	/* "end: ARG": the moderator ended the game (docs/AUDIT.md). */
	for (line = strstr(camp, "\nend:"); line != NULL;
	    line = strstr(line + 1, "\nend:"))
		c->nends++;
	if (c->nends > 0 && !kv(camp, "end", c->end_arg, sizeof c->end_arg)) {
		hp_seterr(err, HP_EINVAL, "%s/campaign.txt: bad 'end:' line",
		    dir);
		goto out;
	}
	c->state = get_file(dir, "state.txt", true, err);
	if (c->state == NULL)
		goto out;
	/* The scenario played (absent: built into the ruleset, or a bundle
	 * from before scenarios were files). */
	{
		struct hp_error e = { 0, "" };

		c->scenario_text = get_file(dir, "scenario.scn", false, &e);
		if (c->scenario_text == NULL && e.code != 0) {
			*err = e;
			goto out;
		}
	}
	{	/* sealed sets: statement, signature, seed after the end */
		char name[32], *t;
		unsigned m;

		for (m = 1; m < DICE_SEALED_SETS; m++) {
			snprintf(name, sizeof name, "sealed/%u.txt", m);
			if ((t = get_file(dir, name, false, err)) == NULL)
				continue;
			free(t);
			c->sealed_sets |= 1u << m;
			snprintf(name, sizeof name, "sealed/%u.txt.minisig", m);
			c->sealed_sig[m] = get_file(dir, name, false, err);
			snprintf(name, sizeof name, "sealed/%u.seed", m);
			if ((t = get_file(dir, name, false, err)) == NULL)
				continue;
			if (strlen(t) != 65 || t[64] != '\n' || sodium_hex2bin(
			    c->sealed_seed[m], 32, t, 64, NULL, NULL, NULL) !=
			    0) {
				hp_seterr(err, HP_EINVAL, "%s/%s: expected 64 hex "
				    "digits and a newline", dir, name);
				free(t);
				goto out;
			}
			free(t);
			c->sealed_known |= 1u << m;
		}
	}
	/* Missing: the audit says the campaign has no seed chain. */
	c->chain = get_file(dir, "chain.txt", false, err);
	c->chainsig = get_file(dir, "chain.txt.minisig", false, err);
	players = get_file(dir, "players.txt", false, err);
	/* The sides a player with a key played ("player: SIDE ..."). */
	for (k = 0; players != NULL && k < c->nsides; k++) {
		char pl[GAME_ID_MAX + 16];

		snprintf(pl, sizeof pl, "player: %s ", c->sides[k]);
		for (p = players; (p = strstr(p, pl)) != NULL; p++)
			if (p == players || p[-1] == '\n') {
				c->keyed |= 1u << k;
				break;
			}
	}
	c->w = xcalloc((size_t)nw, sizeof *c->w);
	for (i = 0; i < nw; i++) {
		struct awin *aw = &c->w[c->nw++];

		events_init(&aw->ev);
		window_dir(dir, i, sub, sizeof sub);
		free(wtxt);
		if ((wtxt = get_file(sub, "window.txt", true, err)) == NULL)
			goto out;
		if (!kv(wtxt, "turn", buf, sizeof buf) ||
		    (aw->w.spec.turn = atoi(buf)) < 0 ||
		    !kv(wtxt, "number", buf, sizeof buf) ||
		    (aw->w.spec.number = atoi(buf)) < 0 ||
		    !kv(wtxt, "name", aw->w.spec.name, sizeof aw->w.spec.name) ||
		    !kv(wtxt, "kind", buf, sizeof buf)) {
			hp_seterr(err, HP_EINVAL, "%s/window.txt: missing "
			    "fields", sub);
			goto out;
		}
		aw->w.spec.kind = (enum window_kind)atoi(buf);
		if (!kv(wtxt, "sides", buf, sizeof buf)) {
			hp_seterr(err, HP_EINVAL, "%s/window.txt: no sides", sub);
			goto out;
		}
		aw->w.spec.sides = (unsigned)atoi(buf);
		if (!kv(wtxt, "state", buf, sizeof buf)) {
			hp_seterr(err, HP_EINVAL, "%s/window.txt: no state", sub);
			goto out;
		}
		aw->w.state = strcmp(buf, "resolved") == 0 ? WSTATE_RESOLVED :
		    WSTATE_OPEN;
		if (!kv(wtxt, "commitment", buf, sizeof buf) ||
		    sodium_hex2bin(aw->w.commitment, 32, buf, strlen(buf), NULL,
		    NULL, NULL) != 0) {
			hp_seterr(err, HP_EINVAL, "%s/window.txt: bad "
			    "commitment", sub);
			goto out;
		}
		if (aw->w.state != WSTATE_RESOLVED) {
			/* Forbidden (docs/AUDIT.md, "Settled questions"):
			 * whoever knows it could choose their nonce. */
			if (kv(wtxt, "seed", buf, sizeof buf)) {
				hp_seterr(err, HP_EINVAL, "%s/window.txt: the "
				    "open window's seed is in the bundle; it must "
				    "stay secret until the window is resolved",
				    sub);
				goto out;
			}
			continue;
		}
		if (!kv(wtxt, "seed", buf, sizeof buf) || sodium_hex2bin(
		    aw->w.seed, DICE_SEEDLEN, buf, strlen(buf), NULL, NULL,
		    NULL) != 0) {
			hp_seterr(err, HP_EINVAL, "%s/window.txt: bad seed",
			    sub);
			goto out;
		}
		aw->log = get_file(sub, "dice-log.txt", false, err);
		aw->logsig = get_file(sub, "dice-log.txt.minisig", false, err);
		{	/* sealed rolls, in a bundle of an ended game */
			struct hp_error e3 = { 0, "" };
			char *t = get_file(sub, "sealed-rolls.txt", false, err);

			memset(&aw->sdice, 0, sizeof aw->sdice);
			if (t != NULL) {
				aw->have_sealed = true;
				if (dicelog_sealed_parse(t, c->name,
				    aw->w.spec.turn, aw->w.spec.number,
				    aw->w.spec.name, &aw->sdice, &e3) != HP_OK) {
					hp_seterr(err, HP_EINVAL, "%s/sealed-rolls"
					    ".txt: %s", sub, e3.msg);
					free(t);
					goto out;
				}
				free(t);
			}
		}
		aw->o = xcalloc(2 * GAME_MAX_SIDES, sizeof *aw->o);
		/* The order files, then the standing orders of the sides the
		 * window names (G3). */
		for (k = 0; k < 2 * c->nsides; k++) {
			struct aorder *o;
			struct dicelog l;
			struct minisign_sig sig;
			char *raw, id[17], pl[128];
			const char *at, *dname = k < c->nsides ? "orders" :
			    "standing";
			bool snap = k >= c->nsides;
			int j;

			snprintf(fname, sizeof fname, "%s/%s.txt", dname,
			    c->sides[k % c->nsides]);
			if ((raw = get_file(sub, fname, false, err)) == NULL)
				continue;
			o = &aw->o[aw->no++];
			o->side = k % c->nsides;
			o->raw = raw;
			o->current = !snap;
			o->snap = snap;
			window_order_hash(raw, o->hash);
			/* The source and recorded hash come from the log; a
			 * log that does not parse fails its own check. */
			strlcpy_(o->source, snap ? "standing" : "cli",
			    sizeof o->source);
			dicelog_init(&l);
			if (aw->log != NULL && dicelog_parse(aw->log, &l,
			    NULL) == HP_OK) {
				const struct dicelog_order *lo = snap ?
				    l.standing : l.orders;
				int nlo = snap ? l.nstanding : l.norders;

				for (j = 0; j < nlo; j++)
					if (strcmp(lo[j].side, c->sides[o->side]) ==
					    0) {
						strlcpy_(o->source, lo[j].source,
						    sizeof o->source);
						/* nonce form: an order line holds
						 * the nonce commitment, the
						 * file's hash is its own */
						if (!l.nonce_form)
							memcpy(o->hash,
							    lo[j].hash, 32);
					}
			}
			dicelog_free(&l);
			snprintf(fname, sizeof fname, "%s/%s.txt.minisig",
			    dname, c->sides[o->side]);
			if ((o->sig = get_file(sub, fname, false, err)) == NULL)
				continue;
			if (minisign_sig_parse(o->sig, strlen(o->sig), &sig,
			    NULL) != HP_OK)
				continue;	/* reported by check_order */
			minisign_keyid_hex(sig.keyid, id);
			snprintf(fname, sizeof fname, "keys/%s.pub", id);
			o->sigpub = get_file(dir, fname, false, err);
			/* "player: SIDE KEYID NAME": a key not listed for the
			 * side is nobody's there. */
			snprintf(pl, sizeof pl, "player: %s %s ",
			    c->sides[o->side], id);
			o->player_side = -1;
			at = players != NULL ? strstr(players, pl) : NULL;
			if (at == NULL && players != NULL) {
				/* A bundle from before names were listed. */
				pl[strlen(pl) - 1] = '\n';
				at = strstr(players, pl);
				pl[strlen(pl) - 1] = ' ';
			}
			if (at != NULL && (at == players || at[-1] == '\n') &&
			    o->sigpub != NULL) {
				const char *e;

				o->playerpub = xstrdup(o->sigpub);
				o->player_side = o->side;
				at += strlen(pl) - (at[strlen(pl) - 1] == '\n');
				e = strchr(at, '\n');
				o->playername = xstrdup(at);
				if (e != NULL)
					o->playername[e - at] = '\0';
			} else
				o->playerpub = xstrdup("");
		}
		for (k = 0; k <= c->nsides; k++) {
			snprintf(fname, sizeof fname, "reports/%s.txt", k == 0 ?
			    "moderator" : c->sides[k - 1]);
			aw->reports[k] = get_file(sub, fname, false, err);
		}
	}
	if ((c->server_pub = get_file(dir, "server.pub", false, err)) ==
	    NULL) {
		hp_seterr(err, HP_EINVAL, "%s/server.pub is missing", dir);
		goto out;
	}
	rc = load_bundle_rotations(dir, c, err);
	if (rc == HP_OK)
		rc = load_bundle_statements(dir, c, err);
out:
	free(camp);
	free(wtxt);
	free(players);
	return rc;
}

int
audit_bundle(const char *dir, const struct audit_opts *opts,
    struct audit_stats *s, struct hp_error *err)
{
	struct acamp c;
	int rc;

	memset(&c, 0, sizeof c);
	memset(s, 0, sizeof *s);
	if (strlen(dir) > DIR_MAX) {
		hp_seterr(err, HP_EINVAL, "%s: path too long", dir);
		return HP_EINVAL;
	}
	rc = load_bundle(dir, &c, err);
	if (rc == HP_OK)
		rc = load_pins(&c, opts, err);
	if (rc == HP_OK && opts != NULL && opts->server_pub != NULL) {
		free(c.server_pub);
		c.server_pub = NULL;
	}
	if (rc == HP_OK && (c.server_pub != NULL || (rc = load_server_pub(&c,
	    opts, s, err)) == HP_OK)) {
		if (c.server_pub != NULL && (opts == NULL ||
		    opts->server_pub == NULL)) {
			struct minisign_pubkey pk;

			strlcpy_(s->key_source, "the bundle's server.pub",
			    sizeof s->key_source);
			if (minisign_pubkey_parse(c.server_pub,
			    strlen(c.server_pub), &pk, err) == HP_OK)
				minisign_keyid_hex(pk.keyid, s->server_key_id);
		}
		rc = acamp_check(&c, opts, s, err);
	}
	acamp_free(&c);
	return rc;
}

void
audit_print(FILE *f, const char *what, const struct audit_stats *s)
{
	if (s->test_dice)
		fprintf(f, "WARNING: %s is a TEST campaign (--seed): anyone who "
		    "knows the seed text knows every die. These dice prove "
		    "NOTHING about fairness; checked only because "
		    "--accept-test-dice was given.\n", what);
	fprintf(f, "audit of %s: OK\n"
	    "  %d windows resolved, replayed and matched (state, rolls, events "
	    "of %d, %d reports)\n"
	    "  %ld dice re-derived from the revealed seeds\n"
	    "  %d dice logs: hash chain intact, server signatures verified "
	    "(key %s, %s)\n"
	    "  %d order files in dice keys: %d signed by their players, %d "
	    "written by the built-in opponent, %d unsigned (entered on the "
	    "command line)\n", what, s->windows, s->events, s->reports, s->rolls,
	    s->log_signatures, s->server_key_id[0] ? s->server_key_id : "-",
	    s->key_source, s->orders, s->signed_orders, s->opponent_orders,
	    s->unsigned_orders);
	if (s->rotations_followed > 0)
		fprintf(f, "  %d key rotation statements verified (each signed by "
		    "the old key, countersigned by the new): the dice logs are "
		    "signed by %d server key%s, each linked to the trusted one\n",
		    s->rotations_followed, s->server_keys, s->server_keys == 1 ?
		    "" : "s");
	else if (s->rotations > 0)
		fprintf(f, "  %d key rotation statements verified; the trusted key "
		    "is in none of them, and signed every log\n", s->rotations);
	fprintf(f, "  seed chain statement signed when the campaign was "
	    "created; %d revealed seeds linked to its head\n", s->chain_links);
	if (s->sealed_sets > 0)
		fprintf(f, "  %d sealed set statements signed when the campaign "
		    "was created, each seed matching its commitment; %ld sealed "
		    "dice re-derived\n", s->sealed_sets, s->sealed_rolls);
	if (s->no_input_windows > 0)
		fprintf(f, "  NOTE: %d window%s came before any player's signed "
		    "file: %s dice depend on no player input and were fixed, "
		    "perhaps chosen, when the campaign was created\n",
		    s->no_input_windows, s->no_input_windows == 1 ? "" : "s",
		    s->no_input_windows == 1 ? "its" : "their");
	if (s->deadline_orders > 0)
		fprintf(f, "  %d order files written at a deadline (ai: "
		    "regenerated, hold: the fixed hold file) checked\n",
		    s->deadline_orders);
	if (s->replaced_signed > 0)
		fprintf(f, "  %d of the signed files are by players replaced "
		    "since, checked against the key they had then\n",
		    s->replaced_signed);
	if (s->stops > 0)
		fprintf(f, "  %d resolution%s stopped to ask and resumed in a "
		    "decision window, replayed through %s\n", s->stops,
		    s->stops == 1 ? "" : "s", s->stops == 1 ? "it" : "them");
	if (s->moderator_end)
		fprintf(f, "  ended by the moderator's 'end' on record; the "
		    "replay applied it after the last resolved window\n");
	if (s->moderator_key_id[0] != '\0')
		fprintf(f, "  moderator key %s (%s): %d moderator statements "
		    "verified; every key change of a side is one of them\n",
		    s->moderator_key_id, s->mod_pinned ? "the key you pinned" :
		    "the campaign's, not pinned: pass --moderator-key",
		    s->mod_statements);
	else if (s->mod_unsigned == 0)
		fprintf(f, "  NOTE: no moderator key: no moderator action "
		    "(replace, proceed, end, extensions) is on record; an "
		    "unsigned one would fail the audit\n");
	if (s->mod_unsigned > 0)
		fprintf(f, "  WARNING: %d unsigned moderator action%s (replace, "
		    "proceed, end, extensions) on the server's word, accepted "
		    "only because --accept-unsigned-moderation was given\n",
		    s->mod_unsigned, s->mod_unsigned == 1 ? "" : "s");
	if (s->deadline_fills > 0)
		fprintf(f, "  NOTE: %d side%s filled at a deadline, by the "
		    "server's clock: only %s player can tell whether a file "
		    "was sent in time (acknowledgements name its hash)\n",
		    s->deadline_fills, s->deadline_fills == 1 ? "" : "s",
		    s->deadline_fills == 1 ? "that" : "those");
}
