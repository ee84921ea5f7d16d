/* turn: order windows from opening to resolution (see include/turn.h). */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dicelog.h"
#include "sealed.h"
#include "seedchain.h"
#include "turn.h"

void
turn_submit_init(struct turn_submit *r)
{
	memset(r, 0, sizeof *r);
	r->side = -1;
	orders_errors_init(&r->errs);
}

void
turn_submit_free(struct turn_submit *r)
{
	free(r->canon);
	orders_errors_free(&r->errs);
	memset(r, 0, sizeof *r);
}

/* Take the seed of a new window from the campaign's seed chain (drawn,
 * with its statement, when the first window opens: docs/AUDIT.md, "Seed
 * chain") and record the window as open. A campaign made before the seed
 * chain draws each seed when the window opens, as it did then. */
static int
window_open(struct store *st, int64_t cid, const struct game *g,
    const struct window_spec *w, int64_t *widp, struct hp_error *err)
{
	unsigned char seed[DICE_SEEDLEN], commit[32], master[64], hash[32];
	size_t mlen = sizeof master;
	int64_t wid = 0;
	int rc, k, i;

	if ((rc = store_master_seed(st, cid, master, &mlen, err)) != HP_OK ||
	    (rc = store_window_count(st, cid, &k, err)) != HP_OK)
		goto out;
	if (k == 0 && (rc = seedchain_create(st, cid, g->name, master, mlen,
	    err)) != HP_OK)
		goto out;
	rc = seedchain_window_seed(st, cid, k + 1, seed, err);
	if (rc == HP_ENOENT && mlen > 0)
		dice_seed_from_master(master, mlen, g->name, w->turn, w->number,
		    seed);
	else if (rc == HP_ENOENT)
		dice_new_seed(seed);
	else if (rc != HP_OK)
		goto out;
	dice_commit(seed, commit);
	rc = store_window_insert(st, cid, w, seed, commit, &wid, err);
	if (rc == HP_OK)
		rc = turn_observers_opened(st, wid, err);
	/* The standing orders in force now are the window's (G3). */
	for (i = 0; i < g->nsides && rc == HP_OK; i++)
		if (g->sides[i].standing != NULL) {
			window_order_hash(g->sides[i].standing, hash);
			rc = store_standing_put(st, wid, i, g->sides[i].standing,
			    hash, err);
		}
	if (rc == HP_OK)
		rc = store_standing_fix(st, wid, err);
	if (widp != NULL)
		*widp = wid;
out:
	sodium_memzero(seed, sizeof seed);
	sodium_memzero(master, sizeof master);
	return rc;
}

int
turn_campaign_new(struct store *st, const char *name, const char *rules,
    const char *scenario, const char *options, const unsigned char *master,
    size_t masterlen, struct hp_error *err)
{
	struct game g;
	struct window_spec w;
	char *text = NULL;
	int64_t cid;
	int rc;

	game_init(&g);
	if ((g.rules = ruleset_find(rules)) == NULL) {
		hp_seterr(err, HP_ENOENT, "no ruleset called %s (see 'hexpost "
		    "rules list')", rules);
		rc = HP_ENOENT;
		goto out;
	}
	if (strlen(name) == 0 || strlen(name) >= sizeof g.name ||
	    strcspn(name, " \t\r\n:#") != strlen(name)) {
		hp_seterr(err, HP_EINVAL, "campaign name '%s' must be 1-%zu "
		    "characters without spaces, ':' or '#'", name,
		    sizeof g.name - 1);
		rc = HP_EINVAL;
		goto out;
	}
	strlcpy_(g.name, name, sizeof g.name);
	strlcpy_(g.options, options ? options : "", sizeof g.options);
	if ((rc = ruleset_setup(&g, scenario, NULL, &text, NULL, err)) !=
	    HP_OK)
		goto out;
	if (game_error(&g) != NULL) {
		hp_seterr(err, HP_ESTATE, "%s", game_error(&g));
		rc = HP_ESTATE;
		goto out;
	}
	if (!g.rules->next_window(&g, &w)) {
		hp_seterr(err, HP_EINTERNAL, "ruleset %s opened no window",
		    rules);
		rc = HP_EINTERNAL;
		goto out;
	}
	g.turn = w.turn;
	g.window = w.number;
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = store_campaign_create(st, &g, master, masterlen, &cid,
	    err)) != HP_OK || (rc = store_campaign_set_scenario(st, cid, text,
	    err)) != HP_OK || (g.rules->hidden && (rc = sealed_create(st, cid,
	    &g, master, masterlen, err)) != HP_OK) ||
	    (rc = window_open(st, cid, &g, &w, NULL, err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	rc = store_commit(st, err);
out:
	free(text);
	game_free(&g);
	return rc;
}

/* Check an order file's header against the campaign and window; errors to
 * errs. Returns the side index or -1. */
static int
check_header(const struct game *g, const struct store_window *w,
    const struct order_header *h, int side_only, bool *standing,
    struct order_errors *errs)
{
	int side;

	if (strcmp(h->campaign, g->name) != 0) {
		orders_error(errs, 0, "this file is for campaign '%s', not "
		    "'%s'", h->campaign, g->name);
		return -1;
	}
	if ((side = game_side_index(g, h->side)) < 0) {
		orders_error(errs, 0, "no side called '%s' in %s (sides: %s%s%s)",
		    h->side, g->name, g->sides[0].name, g->nsides > 1 ? ", " :
		    "", g->nsides > 1 ? g->sides[1].name : "");
		return -1;
	}
	if (side_only >= 0 && side != side_only) {
		orders_error(errs, 0, "you play %s, but this file gives orders "
		    "for %s", g->sides[side_only].name, g->sides[side].name);
		return -1;
	}
	if (g->status == GAME_FINISHED) {
		orders_error(errs, 0, "campaign %s has ended: %s", g->name,
		    g->result);
		return -1;
	}
	*standing = strcasecmp(h->window, "standing") == 0;
	if (*standing)
		return side;
	if (h->turn != w->spec.turn || strcasecmp(h->window,
	    w->spec.name) != 0) {
		orders_error(errs, 0, "this file is for turn %d window '%s', "
		    "but the open window is turn %d window '%s'", h->turn,
		    h->window, w->spec.turn, w->spec.name);
		return -1;
	}
	if (!(w->spec.sides & (1u << side))) {
		orders_error(errs, 0, "%s sends no orders in turn %d window "
		    "'%s'", g->sides[side].name, w->spec.turn, w->spec.name);
		return -1;
	}
	return side;
}

/* The "sequence:" of a stored standing file (0: none or unreadable). */
static long long
standing_sequence(const char *raw)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	long long seq = 0;

	orders_errors_init(&errs);
	if (orders_parse_file(raw, strlen(raw), &h, &body, &errs) == HP_OK) {
		seq = h.sequence;
		orders_body_free(&body);
	}
	orders_errors_free(&errs);
	return seq;
}

/* A new standing file must carry a sequence greater than the one in force,
 * so no older signed file can be put back (docs/AUDIT.md, "Standing
 * orders' sequence"); errors to errs. */
static int
check_standing_sequence(const struct game *g, int side,
    const struct order_header *h, struct order_errors *errs)
{
	long long cur;

	if (g->sides[side].standing == NULL ||
	    (cur = standing_sequence(g->sides[side].standing)) == 0)
		return HP_OK;
	if (!(h->have & ORDERS_H_SEQUENCE)) {
		orders_error(errs, 0, "standing orders need a 'sequence:' "
		    "header greater than %lld, the sequence of %s's standing "
		    "orders in force (an older standing file cannot be put "
		    "back)", cur, g->sides[side].name);
		return HP_EINVAL;
	}
	if (h->sequence <= cur) {
		orders_error(errs, h->sequence_line, "sequence %lld is not "
		    "greater than %lld, the sequence of %s's standing orders "
		    "in force: give a greater one (an older standing file "
		    "cannot be put back)", h->sequence, cur,
		    g->sides[side].name);
		return HP_EINVAL;
	}
	return HP_OK;
}

/* Campaigns read once for many order files (turn.h, issue 17). */
#define TURN_CACHE_MAX 64

struct turn_cache_entry {
	char name[GAME_NAME_MAX];
	int64_t cid;
	struct game g;
	struct store_window w;
	int wrc;                  /* store_window_current's: HP_OK or ENOENT */
};

struct turn_cache {
	struct turn_cache_entry *e[TURN_CACHE_MAX];
	int n;
};

struct turn_cache *
turn_cache_new(void)
{
	return xcalloc(1, sizeof(struct turn_cache));
}

void
turn_cache_clear(struct turn_cache *c)
{
	int i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		game_free(&c->e[i]->g);
		free(c->e[i]);
	}
	c->n = 0;
}

void
turn_cache_free(struct turn_cache *c)
{
	turn_cache_clear(c);
	free(c);
}

/* Forget campaign name in c. */
static void
cache_drop(struct turn_cache *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->e[i]->name, name) == 0) {
			game_free(&c->e[i]->g);
			free(c->e[i]);
			c->e[i] = c->e[--c->n];
			return;
		}
}

/* Campaign name from c, read into it first if it is not there: its game
 * and current window, as store_game_load and store_window_current give
 * them (HP_ENOENT: no such campaign). The entry is owned by c. */
static int
cache_get(struct store *st, struct turn_cache *c, const char *name,
    struct turn_cache_entry **out, struct hp_error *err)
{
	struct turn_cache_entry *e;
	int i, rc;

	*out = NULL;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->e[i]->name, name) == 0) {
			*out = c->e[i];
			return HP_OK;
		}
	if (strlen(name) >= sizeof e->name)
		return HP_ENOENT;   /* no campaign has so long a name */
	e = xcalloc(1, sizeof *e);
	game_init(&e->g);
	if ((rc = store_game_load(st, name, &e->g, &e->cid, err)) != HP_OK)
		goto fail;
	e->wrc = store_window_current(st, e->cid, &e->w, err);
	if (e->wrc == HP_ENOENT)
		memset(&e->w, 0, sizeof e->w);
	else if (e->wrc != HP_OK) {
		rc = e->wrc;
		goto fail;
	}
	strlcpy_(e->name, name, sizeof e->name);
	if (c->n == TURN_CACHE_MAX)
		turn_cache_clear(c);
	c->e[c->n++] = e;
	*out = e;
	return HP_OK;
fail:
	game_free(&e->g);
	free(e);
	return rc;
}

/* turn.h: the file's nonce, read as store_orders_replay's callers read
 * a file whose nonce was not kept. */
void
turn_file_nonce(const char *raw, size_t len, char *out, size_t outlen)
{
	struct order_header h;
	struct order_body body;
	struct order_errors oerrs;

	orders_errors_init(&oerrs);
	memset(&h, 0, sizeof h);
	if (orders_parse_file(raw, len, &h, &body, &oerrs) == HP_OK)
		orders_body_free(&body);
	orders_errors_free(&oerrs);
	out[0] = '\0';
	if (h.have & ORDERS_H_NONCE)
		strlcpy_(out, h.nonce, outlen);
}

/* turn_submit_tx, reading the campaign through cache (may be NULL) and
 * keeping nonce with a window's orders (NULL: the file's own, from its
 * header; every player's file has its nonce kept, migration 29). */
static int
submit(struct store *st, struct turn_cache *cache, const char *campaign,
    const char *text, size_t len, int side_only, int64_t player,
    const char *source, const char *nonce, struct turn_submit *res,
    struct hp_error *err)
{
	struct order_header h;
	struct order_body body = { NULL, 0 };
	struct store_window w;
	struct window_spec spec;
	struct game g;
	const struct game *gp = &g;
	struct turn_cache_entry *ce = NULL;
	struct sbuf canon;
	void *parsed = NULL;
	unsigned char hash[32];
	int64_t cid = 0;
	int rc, side;
	bool found;
	char *raw = NULL;

	game_init(&g);
	sbuf_init(&canon);
	if (orders_parse_file(text, len, &h, &body, &res->errs) != HP_OK) {
		rc = HP_EINVAL;
		goto out;
	}
	if (campaign == NULL)
		campaign = h.campaign;
	/* Standing orders change the game: read afresh, and forgotten. */
	if (cache != NULL && strcasecmp(h.window, "standing") == 0) {
		cache_drop(cache, campaign);
		cache = NULL;
	}
	if (cache != NULL) {
		rc = cache_get(st, cache, campaign, &ce, err);
		found = rc != HP_ENOENT;
		if (rc == HP_OK) {
			gp = &ce->g;
			cid = ce->cid;
			w = ce->w;
			rc = ce->wrc;
		}
	} else {
		rc = store_game_load(st, campaign, &g, &cid, err);
		found = rc != HP_ENOENT;
		if (rc == HP_OK)
			rc = store_window_current(st, cid, &w, err);
	}
	if (!found) {
		orders_error(&res->errs, 0, "no campaign called '%s'",
		    campaign);
		rc = HP_EINVAL;
		goto out;
	}
	if (rc == HP_ENOENT)
		memset(&w, 0, sizeof w);
	else if (rc != HP_OK)
		goto out;
	if ((side = check_header(gp, &w, &h, side_only, &res->standing,
	    &res->errs)) < 0) {
		rc = HP_EINVAL;
		goto out;
	}
	if (!res->standing && w.state != WSTATE_OPEN) {
		orders_error(&res->errs, 0, "turn %d window '%s' is closed",
		    w.spec.turn, w.spec.name);
		rc = HP_EINVAL;
		goto out;
	}
	if (res->standing && check_standing_sequence(gp, side, &h,
	    &res->errs) != HP_OK) {
		rc = HP_EINVAL;
		goto out;
	}
	spec = w.spec;
	if (res->standing) {
		memset(&spec, 0, sizeof spec);
		strlcpy_(spec.name, "standing", sizeof spec.name);
		spec.turn = gp->turn;
	}
	if (gp->rules->parse(gp, &spec, side, &body, &parsed, &canon,
	    &res->errs) != HP_OK || res->errs.n > 0) {
		rc = HP_EINVAL;
		goto out;
	}
	raw = xmalloc(len + 1);
	memcpy(raw, text, len);
	raw[len] = '\0';
	if (w.id != 0) {
		struct sbuf wb;
		unsigned have;
		int i;

		/* Which sides have orders, not the orders themselves (issue
		 * 17: reading them back cost a mail 86K instructions). */
		if ((rc = store_orders_sides(st, w.id, &have, err)) != HP_OK)
			goto out;
		if (!res->standing)
			res->replaced = (have & (1u << side)) != 0;
		sbuf_init(&wb);
		for (i = 0; i < gp->nsides; i++)
			if ((w.spec.sides & (1u << i)) && !gp->sides[i].ai &&
			    !(have & (1u << i)) && (res->standing || i != side))
				sbuf_printf(&wb, "%s%s", wb.len ? ", " : "",
				    gp->sides[i].name);
		strlcpy_(res->waiting, wb.buf ? wb.buf : "",
		    sizeof res->waiting);
		sbuf_free(&wb);
	}
	if (res->standing) {
		/* Never from the cache (see above): g is this call's own. */
		res->replaced = g.sides[side].standing != NULL;
		free(g.sides[side].standing);
		g.sides[side].standing = xstrdup(raw);
		rc = store_game_save(st, cid, &g, err);
	} else {
		window_order_hash(raw, hash);
		rc = store_orders_put_nonce(st, w.id, side, player, source,
		    raw, canon.buf ? canon.buf : "", hash, nonce != NULL ?
		    nonce : (h.have & ORDERS_H_NONCE) ? h.nonce : "", err);
	}
	if (rc != HP_OK)
		goto out;
	res->side = side;
	strlcpy_(res->side_name, gp->sides[side].name, sizeof res->side_name);
	res->turn = spec.turn;
	strlcpy_(res->window, spec.name, sizeof res->window);
	res->canon = sbuf_steal(&canon);
out:
	if (parsed != NULL)
		gp->rules->free_orders(parsed);
	orders_body_free(&body);
	sbuf_free(&canon);
	free(raw);
	game_free(&g);
	return rc;
}

int
turn_submit_tx(struct store *st, const char *campaign, const char *text,
    size_t len, int side_only, int64_t player, const char *source,
    struct turn_submit *res, struct hp_error *err)
{
	return submit(st, NULL, campaign, text, len, side_only, player, source,
	    NULL, res, err);
}

int
turn_submit_cached(struct store *st, struct turn_cache *cache,
    const char *campaign, const char *text, size_t len, int side_only,
    int64_t player, const char *source, const char *nonce,
    struct turn_submit *res, struct hp_error *err)
{
	return submit(st, cache, campaign, text, len, side_only, player,
	    source, nonce, res, err);
}

int
turn_submit(struct store *st, const char *campaign, const char *text,
    size_t len, int side_only, int64_t player, const char *source,
    struct turn_submit *res, struct hp_error *err)
{
	int rc;

	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	rc = turn_submit_tx(st, campaign, text, len, side_only, player, source,
	    res, err);
	if (rc != HP_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st, err);
}

int
turn_pending(struct store *st, const char *campaign, struct store_window *w,
    unsigned *missing, struct hp_error *err)
{
	struct store_order cur[GAME_MAX_SIDES];
	struct game g;
	int64_t cid;
	int rc, i;

	game_init(&g);
	*missing = 0;
	if ((rc = store_game_load(st, campaign, &g, &cid, err)) != HP_OK)
		goto out;
	if ((rc = store_window_current(st, cid, w, err)) != HP_OK)
		goto out;
	if ((rc = store_orders_current(st, w->id, cur, err)) != HP_OK)
		goto out;
	for (i = 0; i < g.nsides; i++)
		if ((w->spec.sides & (1u << i)) && !g.sides[i].ai &&
		    cur[i].raw == NULL)
			*missing |= 1u << i;
	store_orders_free(cur);
out:
	game_free(&g);
	return rc;
}

/* Fill in orders for sides that need none from a person: the built-in
 * opponent's for AI sides the window names, standing orders for the others
 * (those of the window's snapshot, snap, when it has one: fixed). They are
 * stored with the window like any other order file. */
static int
fill_orders(struct store *st, const struct game *g,
    const struct store_window *w, struct store_order cur[GAME_MAX_SIDES],
    const struct store_order snap[GAME_MAX_SIDES], bool fixed,
    struct hp_error *err)
{
	unsigned char hash[32];
	struct sbuf canon;
	void *parsed;
	int i, rc;
	char *raw;

	for (i = 0; i < g->nsides; i++) {
		const char *source;

		if (cur[i].raw != NULL)
			continue;
		if (w->spec.sides & (1u << i)) {
			if (!g->sides[i].ai)
				continue;
			raw = window_opponent_orders(g, &w->spec, i);
			source = "opponent";
		} else if (fixed && snap[i].raw != NULL) {
			raw = xstrdup(snap[i].raw);
			source = "standing";
		} else if (!fixed && g->sides[i].standing != NULL) {
			raw = xstrdup(g->sides[i].standing);
			source = "standing";
		} else
			continue;
		sbuf_init(&canon);
		if ((rc = window_parse_stored(g, &w->spec, i, raw, &parsed, &canon,
		    err)) != HP_OK) {
			free(raw);
			return rc;
		}
		g->rules->free_orders(parsed);
		window_order_hash(raw, hash);
		if (strcmp(source, "opponent") == 0)
			rc = store_orders_put(st, w->id, i, 0, source, raw,
			    canon.buf ? canon.buf : "", hash, err);
		else {
			/* A player's standing file: its nonce kept. */
			char nonce[128];

			turn_file_nonce(raw, strlen(raw), nonce, sizeof nonce);
			rc = store_orders_put_nonce(st, w->id, i, 0, source,
			    raw, canon.buf ? canon.buf : "", hash, nonce, err);
		}
		sbuf_free(&canon);
		if (rc == HP_OK) {
			cur[i].raw = raw;
			memcpy(cur[i].hash, hash, 32);
			strlcpy_(cur[i].source, source, sizeof cur[i].source);
		} else {
			free(raw);
			return rc;
		}
	}
	return HP_OK;
}

/* The dice key of window w of campaign cid, resolved with the files cur
 * (docs/AUDIT.md, "Dice key"): keyed by the seed, over the hash of the
 * campaign's previous dice log (32 zero bytes before the first), which
 * covers every player file of the earlier windows, then the hashes of
 * the window's files in side order, then those of the standing orders in
 * force when it opened of the sides it names (standing, side order). */
static int
window_key(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct store_order *cur,
    const struct store_order *standing, unsigned char *key,
    struct hp_error *err)
{
	unsigned char hashes[2 * GAME_MAX_SIDES + 1][32];
	size_t nh = 1;
	int i, rc;

	rc = store_dicelog_last_hash(st, cid, hashes[0], err);
	if (rc == HP_ENOENT)
		memset(hashes[0], 0, 32);
	else if (rc != HP_OK)
		return rc;
	for (i = 0; i < GAME_MAX_SIDES; i++) {
		if (cur[i].raw == NULL)
			continue;
		/* Hidden orders enter through their nonce alone
		 * (docs/AUDIT.md, "Hidden orders"). */
		if (g->rules->hidden) {
			if (sealed_file_commitment(cur[i].raw,
			    g->sides[i].name, hashes[nh++]) != HP_OK) {
				hp_seterr(err, HP_EINTERNAL, "stored order file "
				    "of %s does not parse", g->sides[i].name);
				return HP_EINTERNAL;
			}
		} else
			memcpy(hashes[nh++], cur[i].hash, 32);
	}
	for (i = 0; i < GAME_MAX_SIDES; i++) {
		if (standing[i].raw == NULL)
			continue;
		/* So do standing files of sides the window names. */
		if (g->rules->hidden) {
			if (sealed_file_commitment(standing[i].raw,
			    g->sides[i].name, hashes[nh++]) != HP_OK) {
				hp_seterr(err, HP_EINTERNAL, "stored standing "
				    "file of %s does not parse",
				    g->sides[i].name);
				return HP_EINTERNAL;
			}
		} else
			memcpy(hashes[nh++], standing[i].hash, 32);
	}
	dice_derive_key(w->seed, g->name, w->spec.turn, w->spec.number,
	    (const unsigned char (*)[32])hashes, nh, key);
	return HP_OK;
}

/* The stopped resolution window w continues (G1), if any: res gets the
 * step and the first stopped window's spec and files (prior, owned by the
 * caller), *of that window's id (0: w continues nothing). */
static int
load_resume(struct store *st, int64_t cid, const struct store_window *w,
    struct window_resume *res, struct store_order prior[GAME_MAX_SIDES],
    int64_t *of, struct hp_error *err)
{
	struct store_window ow;
	int rc, turn, number, i;

	*of = 0;
	rc = store_window_cont_get(st, w->id, of, &turn, &number, &res->step,
	    err);
	if (rc != HP_OK)
		return rc;
	if ((rc = store_window_get(st, cid, turn, number, &ow, err)) != HP_OK ||
	    (rc = store_orders_current(st, ow.id, prior, err)) != HP_OK)
		return rc;
	res->w = ow.spec;
	for (i = 0; i < GAME_MAX_SIDES; i++)
		res->prior[i] = prior[i].raw;
	return HP_OK;
}

/* Resolve the open window of campaign in one transaction. HP_ESTATE when
 * orders are missing or the game has ended. */
static int
resolve_one(struct store *st, const char *campaign,
    const struct turn_hooks *hooks, const struct minisign_seckey *sk,
    struct hp_error *err)
{
	struct store_order cur[GAME_MAX_SIDES], snap[GAME_MAX_SIDES];
	struct store_order prior[GAME_MAX_SIDES];
	struct store_window w;
	struct window_spec next;
	struct window_resume res;
	struct window_stop stop;
	struct game g;
	struct events ev;
	struct dice d;
	unsigned char key[DICE_KEYLEN];
	const char *raw[GAME_MAX_SIDES], *standing[GAME_MAX_SIDES];
	struct sbuf miss;
	int64_t cid, of = 0, nwid = 0;
	bool fixed, more;
	int rc, i;

	game_init(&g);
	events_init(&ev);
	memset(&d, 0, sizeof d);
	memset(cur, 0, sizeof cur);
	memset(snap, 0, sizeof snap);
	memset(prior, 0, sizeof prior);
	memset(&res, 0, sizeof res);
	sbuf_init(&miss);
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = store_game_load(st, campaign, &g, &cid, err)) != HP_OK)
		goto rollback;
	if (g.status == GAME_FINISHED) {
		hp_seterr(err, HP_ESTATE, "campaign %s has ended: %s", g.name,
		    g.result);
		rc = HP_ESTATE;
		goto rollback;
	}
	if ((rc = store_window_current(st, cid, &w, err)) != HP_OK)
		goto rollback;
	if ((rc = store_orders_current(st, w.id, cur, err)) != HP_OK ||
	    (rc = store_standing_fixed(st, w.id, &fixed, err)) != HP_OK ||
	    (rc = store_standing_get(st, w.id, snap, err)) != HP_OK)
		goto rollback;
	rc = load_resume(st, cid, &w, &res, prior, &of, err);
	if (rc != HP_OK && rc != HP_ENOENT)
		goto rollback;
	if ((rc = fill_orders(st, &g, &w, cur, snap, fixed, err)) != HP_OK)
		goto rollback;
	for (i = 0; i < g.nsides; i++)
		if ((w.spec.sides & (1u << i)) && cur[i].raw == NULL)
			sbuf_printf(&miss, "%s%s", miss.len ? ", " : "",
			    g.sides[i].name);
	if (miss.len > 0) {
		hp_seterr(err, HP_ESTATE, "turn %d window '%s' is waiting for "
		    "orders from %s", w.spec.turn, w.spec.name, miss.buf);
		rc = HP_ESTATE;
		goto rollback;
	}
	if ((rc = store_window_set_state(st, w.id, WSTATE_CLOSED, NULL,
	    err)) != HP_OK)
		goto rollback;
	for (i = 0; i < GAME_MAX_SIDES; i++) {
		raw[i] = cur[i].raw;
		/* Standing orders: a side the window does not name has them
		 * among its order files; the snapshot of a side it names is
		 * keyed after the order files (G3). */
		if (!(w.spec.sides & (1u << i))) {
			free(snap[i].raw);
			snap[i].raw = NULL;
			standing[i] = cur[i].raw != NULL && strcmp(cur[i].source,
			    "standing") == 0 ? cur[i].raw : NULL;
		} else
			standing[i] = snap[i].raw;
	}
	if ((rc = window_key(st, cid, &g, &w, cur, snap, key, err)) != HP_OK)
		goto rollback;
	dice_init_stream(&d, key);
	if (g.rules->hidden && (rc = sealed_enable(st, cid, &d, err)) !=
	    HP_OK)
		goto rollback;
	if ((rc = window_resolve_resume(&g, &w.spec, raw, standing,
	    of != 0 ? &res : NULL, &stop, &d, &ev, err)) != HP_OK)
		goto rollback;
	if ((rc = window_advance(&g, &stop, &next, &more, err)) != HP_OK)
		goto rollback;
	if ((rc = store_game_save(st, cid, &g, err)) != HP_OK ||
	    (rc = store_events_put(st, w.id, &ev, err)) != HP_OK ||
	    (rc = store_dice_put(st, w.id, &d, err)) != HP_OK ||
	    (rc = store_sealed_dice_put(st, w.id, &d, err)) != HP_OK ||
	    (rc = store_events_put_rolls(st, w.id, &ev, err)) != HP_OK ||
	    (rc = store_window_set_state(st, w.id, WSTATE_RESOLVED, key,
	    err)) != HP_OK)
		goto rollback;
	if (more && (rc = window_open(st, cid, &g, &next, &nwid, err)) !=
	    HP_OK)
		goto rollback;
	/* A stop: the decision window resumes this resolution (or the one
	 * this window itself resumed). */
	if (stop.step >= 0 && (rc = store_window_cont_set(st, nwid, of != 0 ?
	    of : w.id, stop.step, err)) != HP_OK)
		goto rollback;
	if ((rc = dicelog_record_standing(st, cid, &g, &w, cur, snap, key, &d,
	    sk, err)) != HP_OK)
		goto rollback;
	if ((rc = turn_observers_resolved(st, cid, &g, &w, &ev, &d, err)) !=
	    HP_OK)
		goto rollback;
	w.state = WSTATE_RESOLVED;
	if (hooks != NULL && hooks->resolved != NULL &&
	    (rc = hooks->resolved(hooks->arg, st, cid, &g, &w, err)) != HP_OK)
		goto rollback;
	rc = store_commit(st, err);
	goto out;
rollback:
	store_rollback(st);
out:
	sodium_memzero(key, sizeof key);
	store_orders_free(cur);
	store_orders_free(snap);
	store_orders_free(prior);
	sbuf_free(&miss);
	dice_free(&d);
	events_free(&ev);
	game_free(&g);
	return rc;
}

/* Resolve the campaign's open windows while nothing is missing (only
 * while they name no side, when sideless); *resolved counts them. */
static int
resolve_loop(struct store *st, const char *campaign,
    const struct turn_hooks *hooks, const struct minisign_seckey *sk,
    bool sideless, int *resolved, struct hp_error *err)
{
	int rc, n = 0;

	for (;;) {
		struct store_window w;
		unsigned missing;

		rc = turn_pending(st, campaign, &w, &missing, err);
		if (rc == HP_ENOENT && (n > 0 || sideless)) {
			rc = HP_OK;  /* the game ended */
			break;
		}
		/* No open window at first: resolve_one says why (no such
		 * campaign, or it has ended). */
		if (rc != HP_OK && rc != HP_ENOENT)
			break;
		if (rc == HP_OK && ((missing != 0 && n > 0) || (sideless &&
		    w.spec.sides != 0)))
			break;
		if ((rc = resolve_one(st, campaign, hooks, sk, err)) != HP_OK)
			break;
		n++;
	}
	if (resolved != NULL)
		*resolved = n;
	return rc;
}

int
turn_resolve(struct store *st, const char *campaign, int *resolved,
    struct hp_error *err)
{
	return turn_resolve_hooked(st, campaign, NULL, resolved, err);
}

int
turn_resolve_hooked(struct store *st, const char *campaign,
    const struct turn_hooks *hooks, int *resolved, struct hp_error *err)
{
	return turn_resolve_signed(st, campaign, hooks, NULL, resolved, err);
}

int
turn_resolve_signed(struct store *st, const char *campaign,
    const struct turn_hooks *hooks, const struct minisign_seckey *sk,
    int *resolved, struct hp_error *err)
{
	return resolve_loop(st, campaign, hooks, sk, false, resolved, err);
}

int
turn_resolve_sideless(struct store *st, const char *campaign,
    const struct minisign_seckey *sk, int *resolved, struct hp_error *err)
{
	return resolve_loop(st, campaign, NULL, sk, true, resolved, err);
}
