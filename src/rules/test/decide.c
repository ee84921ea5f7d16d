/* test-decide: the engine's test ruleset for resolutions that stop to ask
 * (issue 10, G1/G3/G4/G7). Not a game anyone should play: it exists so the
 * engine's stops, resumptions, standing orders inside a window and dice
 * before the first turn are exercised by a real ruleset, by mail and by
 * the audit (docs/ARCHITECTURE.md §4).
 *
 * Two sides, north and south, each with a strength. Turn 0 has one window,
 * `deploy`, naming no side: it rolls the first initiative (G7). Each turn
 * then has the window `orders` (both sides: `attack N` or `hold`), whose
 * resolution
 *   step 0  fire: each attacker rolls N d6, 4+ with the initiative, else 5+;
 *   step 1  asks both sides a different question (G4) and stops, unless a
 *           side's standing orders (`answer ...`, G3) answer it;
 *   step 2  resumes in the decision window `decide` with the answers and
 *           the interrupted window's orders (ctx->prior, G1): north presses
 *           (rolls its attack dice again) or withdraws (halves the hits on
 *           it); south commits K reserves (K d6, each 4+ saves a hit on it).
 * The game ends after the scenario's turns or when a side is destroyed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ruleset.h"

#define NORTH 0
#define SOUTH 1
#define ANS_PRESS 1
#define ANS_WITHDRAW 2

/* Parsed orders of one file. */
struct td_orders {
	int attack;      /* dice to roll; 0: hold */
	int answer;      /* north: ANS_*; south: reserves + 1; 0: none */
};

static const char *const side_names[2] = { "north", "south" };

/* The var "KEY.SIDE". */
static int
svar(const struct game *g, const char *key, int side, int dflt)
{
	char k[32];

	snprintf(k, sizeof k, "%s.%s", key, side_names[side]);
	return game_var(g, k, dflt);
}

/* Set the var "KEY.SIDE". */
static void
set_svar(struct game *g, const char *key, int side, int val)
{
	char k[32];

	snprintf(k, sizeof k, "%s.%s", key, side_names[side]);
	game_set_var(g, k, val);
}

/* Two sides of the scenario's strength, no initiative yet (G7). */
static int
td_setup(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	int i, strength;

	if (sc->nsides != 2 || strcmp(sc->sides[0].name, "north") != 0 ||
	    strcmp(sc->sides[1].name, "south") != 0) {
		scenario_error(sc, sc->nsides > 0 ? sc->sides[0].line : 0,
		    "test-decide needs the sides north and south, in that "
		    "order");
		hp_seterr(err, HP_EINVAL, "scenario %s: 1 error", sc->name);
		return HP_EINVAL;
	}
	strength = scenario_var(sc, "strength", 8);
	if (strength < 1 || strength > 99) {
		scenario_error(sc, 0, "var strength: expected 1 to 99");
		hp_seterr(err, HP_EINVAL, "scenario %s: 1 error", sc->name);
		return HP_EINVAL;
	}
	strlcpy_(g->scenario, sc->name, sizeof g->scenario);
	g->layout.orient = HEX_FLAT;
	g->layout.parity = HEX_EVEN;
	g->layout.cols = 2;
	g->layout.rows = 1;
	game_add_hex(g, (struct hex){ 0, 0 }, "open");
	g->nsides = 2;
	for (i = 0; i < 2; i++) {
		strlcpy_(g->sides[i].name, side_names[i],
		    sizeof g->sides[i].name);
		strlcpy_(g->sides[i].label, sc->sides[i].label,
		    sizeof g->sides[i].label);
		g->sides[i].ai = true;
		set_svar(g, "str", i, strength);
	}
	game_set_var(g, "turns", sc->turns > 0 ? sc->turns : 3);
	game_set_var(g, "round", 0);
	game_set_var(g, "init", -1);
	game_set_var(g, "asked", 0);
	g->turn = 0;
	g->window = 1;
	return HP_OK;
}

/* deploy (turn 0, no side), then each turn orders and, after a stop,
 * decide for the sides asked. */
static bool
td_next_window(const struct game *g, struct window_spec *w)
{
	unsigned asked = (unsigned)game_var(g, "asked", 0);

	if (g->status == GAME_FINISHED)
		return false;
	memset(w, 0, sizeof *w);
	w->kind = WINDOW_ORDERS;
	if (game_var(g, "round", 0) == 0) {
		/* Before the first turn: the first initiative (G7). */
		w->turn = 0;
		w->number = 1;
		strlcpy_(w->name, "deploy", sizeof w->name);
		return true;
	}
	w->turn = game_var(g, "round", 1);
	if (asked != 0) {
		w->number = 2;
		w->kind = WINDOW_DECISION;
		strlcpy_(w->name, "decide", sizeof w->name);
		w->sides = asked;
		snprintf(w->prompt, sizeof w->prompt, "%s%s%s",
		    asked & 1 ? "north: press or withdraw" : "",
		    asked == 3 ? "; " : "", asked & 2 ? "south: reserves" : "");
		return true;
	}
	w->number = 1;
	strlcpy_(w->name, "orders", sizeof w->name);
	w->sides = 3;
	return true;
}

/* Parse side's answer words into o->answer; false if they are none. */
static bool
parse_answer(int side, const struct order_line *l, struct td_orders *o)
{
	int k;

	if (side == NORTH && l->nwords == 1 && (strcmp(l->words[0], "press") ==
	    0 || strcmp(l->words[0], "hold") == 0))
		o->answer = ANS_PRESS;
	else if (side == NORTH && l->nwords == 1 &&
	    strcmp(l->words[0], "withdraw") == 0)
		o->answer = ANS_WITHDRAW;
	else if (side == SOUTH && l->nwords == 1 &&
	    strcmp(l->words[0], "hold") == 0)
		o->answer = 2;
	else if (side == SOUTH && l->nwords == 2 &&
	    strcmp(l->words[0], "reserve") == 0 &&
	    orders_parse_int(l->words[1], 0, 2, &k) == HP_OK)
		o->answer = k + 1;
	else
		return false;
	return true;
}

/* One order a file: attack N or hold; an answer in a decision window;
 * answer ... in standing orders. *out is a struct td_orders (owned). */
static int
td_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *body, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	struct td_orders *o = xcalloc(1, sizeof *o);
	const char *want;
	bool standing = strcmp(w->name, "standing") == 0;
	size_t i;
	int n;

	(void)g;
	want = standing ? (side == NORTH ? "'answer press' or 'answer "
	    "withdraw'" : "'answer reserve K' (K 0-2)") : w->kind ==
	    WINDOW_DECISION ? (side == NORTH ? "'press', 'withdraw' or "
	    "'hold'" : "'reserve K' (K 0-2) or 'hold'") : "'attack N' (N 1-3) "
	    "or 'hold'";
	if (!standing && body->n == 0)
		orders_error(errs, 0, "no order: expected %s", want);
	for (i = 0; i < body->n; i++) {
		const struct order_line *l = &body->v[i];
		struct order_line rest = *l;
		bool ok;

		if (i > 0) {
			orders_error(errs, l->lineno, "one order only: "
			    "expected %s once", want);
			continue;
		}
		if (standing) {
			memmove(rest.words[0], rest.words[1],
			    sizeof rest.words - sizeof rest.words[0]);
			rest.nwords--;
			ok = l->nwords >= 2 && strcmp(l->words[0], "answer") == 0 &&
			    parse_answer(side, &rest, o);
			if (ok)
				sbuf_printf(canon, "%s\n", l->text);
		} else if (w->kind == WINDOW_DECISION) {
			ok = parse_answer(side, l, o);
			if (ok)
				sbuf_printf(canon, "%s\n", l->text);
		} else if (l->nwords == 1 && strcmp(l->words[0], "hold") == 0) {
			ok = true;
			sbuf_puts(canon, "hold\n");
		} else {
			ok = l->nwords == 2 && strcmp(l->words[0], "attack") == 0 &&
			    orders_parse_int(l->words[1], 1, 3, &n) == HP_OK;
			if (ok) {
				o->attack = n;
				sbuf_printf(canon, "attack %d\n", n);
			}
		}
		if (!ok)
			orders_error(errs, l->lineno, "'%s': expected %s",
			    l->text, want);
	}
	if (errs->n > 0) {
		free(o);
		*out = NULL;
		return HP_EINVAL;
	}
	*out = o;
	return HP_OK;
}

/* Free what td_parse made. */
static void
td_free_orders(void *p)
{
	free(p);
}

/* Roll n dice for side's fire at its target; the hits. */
static int
fire(struct resolve_ctx *c, int side, int n, const char *what)
{
	char purpose[64];
	int k, r, target, hits = 0;

	target = game_var(c->g, "init", 0) == side ? 4 : 5;
	for (k = 1; k <= n; k++) {
		snprintf(purpose, sizeof purpose, "%s %s (die %d of %d)",
		    side_names[side], what, k, n);
		r = dice_roll(c->dice, 6, target, purpose);
		if (r >= target)
			hits++;
	}
	events_add(c->ev, EVENT_ALL_SIDES, 0, "%s %s: %d di%s, %d hit%s "
	    "(needs %d+).", c->g->sides[side].label, what, n, n == 1 ? "e" :
	    "ce", hits, hits == 1 ? "" : "s", target);
	return hits;
}

/* Turn 0: the first initiative, 1d6 each, ties rolled again. */
static enum resolve_rc
deploy(struct resolve_ctx *c)
{
	int a, b, guard;

	events_phase(c->ev, "Initiative");
	for (guard = 0; guard < 100; guard++) {
		a = dice_roll(c->dice, 6, 0, "north initiative");
		b = dice_roll(c->dice, 6, 0, "south initiative");
		events_add(c->ev, EVENT_ALL_SIDES, c->dice->nlog, "Initiative: "
		    "north %d, south %d%s.", a, b, a == b ? ", a tie" : "");
		if (a != b)
			break;
	}
	game_set_var(c->g, "init", a > b ? NORTH : SOUTH);
	game_set_var(c->g, "round", 1);
	events_add(c->ev, EVENT_ALL_SIDES, 0, "%s has the initiative.",
	    c->g->sides[a > b ? NORTH : SOUTH].label);
	return RESOLVE_DONE;
}

/* The attack dice side ordered in the window that was interrupted (or
 * this one, when nothing stopped). */
static int
attack_of(const struct resolve_ctx *c, int side)
{
	const struct td_orders *o = c->resumed ? c->prior[side] :
	    c->orders[side];
	int n = o != NULL ? o->attack : 0, str = svar(c->g, "str", side, 0);

	return n < str ? n : str;
}

/* Step 1: take the answers standing orders give; ask the others. */
static enum resolve_rc
ask(struct resolve_ctx *c)
{
	const struct td_orders *st;
	unsigned asked = 0;
	int s;

	events_phase(c->ev, "Decisions");
	for (s = 0; s < 2; s++) {
		st = c->standing[s];
		if (st != NULL && st->answer != 0) {
			set_svar(c->g, "ans", s, st->answer);
			events_add(c->ev, EVENT_ALL_SIDES, 0, "%s answers by its "
			    "standing orders.", c->g->sides[s].label);
			continue;
		}
		asked |= 1u << s;
		events_add(c->ev, EVENT_ALL_SIDES, 0, "%s is asked: %s.",
		    c->g->sides[s].label, s == NORTH ? "press or withdraw" :
		    "how many reserves to commit");
	}
	game_set_var(c->g, "asked", (int)asked);
	c->ask = asked;
	return asked != 0 ? RESOLVE_ASK : RESOLVE_CONTINUE;
}

/* Step 2: the answers, the dice after them, the damage. */
static enum resolve_rc
apply(struct resolve_ctx *c)
{
	struct game *g = c->g;
	unsigned asked = (unsigned)game_var(g, "asked", 0);
	const struct td_orders *o;
	int s, k, r, ans, saved = 0, hits_n, hits_s, str;

	if (asked != 0 && !c->resumed) {
		hp_seterr(c->err, HP_EINTERNAL, "test-decide: step 2 without "
		    "the answers");
		return RESOLVE_ERROR;
	}
	for (s = 0; s < 2; s++) {
		if (!(asked & (1u << s)))
			continue;
		if ((o = c->orders[s]) == NULL || o->answer == 0) {
			hp_seterr(c->err, HP_EINTERNAL, "test-decide: no answer "
			    "of %s", side_names[s]);
			return RESOLVE_ERROR;
		}
		set_svar(g, "ans", s, o->answer);
	}
	game_set_var(g, "asked", 0);
	events_phase(c->ev, "Answers");
	hits_n = svar(g, "hits", NORTH, 0);
	hits_s = svar(g, "hits", SOUTH, 0);
	ans = svar(g, "ans", NORTH, ANS_PRESS);
	if (ans == ANS_PRESS && attack_of(c, NORTH) > 0)
		hits_n += fire(c, NORTH, attack_of(c, NORTH), "presses");
	else if (ans == ANS_WITHDRAW) {
		events_add(c->ev, EVENT_ALL_SIDES, 0, "%s withdraws: %d hit%s on "
		    "it become %d.", g->sides[NORTH].label, hits_s, hits_s == 1 ?
		    "" : "s", hits_s / 2);
		hits_s /= 2;
	} else
		events_add(c->ev, EVENT_ALL_SIDES, 0, "%s presses with no "
		    "dice.", g->sides[NORTH].label);
	ans = svar(g, "ans", SOUTH, 1) - 1;
	for (k = 1; k <= ans; k++) {
		char purpose[48];

		snprintf(purpose, sizeof purpose, "south reserve (die %d of %d)",
		    k, ans);
		r = dice_roll(c->dice, 6, 4, purpose);
		if (r >= 4 && saved < hits_n)
			saved++;
	}
	events_add(c->ev, EVENT_ALL_SIDES, 0, "%s commits %d reserve%s: %d "
	    "hit%s saved.", g->sides[SOUTH].label, ans, ans == 1 ? "" : "s",
	    saved, saved == 1 ? "" : "s");
	hits_n -= saved;
	for (s = 0; s < 2; s++) {
		str = svar(g, "str", s, 0) - (s == NORTH ? hits_s : hits_n);
		set_svar(g, "str", s, str > 0 ? str : 0);
		set_svar(g, "hits", s, 0);
		set_svar(g, "ans", s, 0);
	}
	events_add(c->ev, EVENT_ALL_SIDES, 0, "Strength: north %d, south %d.",
	    svar(g, "str", NORTH, 0), svar(g, "str", SOUTH, 0));
	game_set_var(g, "round", game_var(g, "round", 1) + 1);
	return RESOLVE_DONE;
}

/* deploy: the initiative; orders: fire (0), ask (1), answers (2). */
static enum resolve_rc
td_resolve(struct resolve_ctx *c)
{
	int s;

	if (strcmp(c->w->name, "deploy") == 0)
		return deploy(c);
	switch (c->step) {
	case 0:
		events_phase(c->ev, "Fire");
		for (s = 0; s < 2; s++) {
			int first = game_var(c->g, "init", 0);
			int side = s == 0 ? first : 1 - first;

			set_svar(c->g, "hits", side, attack_of(c, side) > 0 ?
			    fire(c, side, attack_of(c, side), "fires") : 0);
		}
		return RESOLVE_CONTINUE;
	case 1:
		return ask(c);
	case 2:
		return apply(c);
	default:
		hp_seterr(c->err, HP_EINTERNAL, "test-decide: no step %d",
		    c->step);
		return RESOLVE_ERROR;
	}
}

/* Ends after the last turn or when a side has no strength left. */
static void
td_victory(struct game *g, struct events *ev)
{
	int n = svar(g, "str", NORTH, 0), s = svar(g, "str", SOUTH, 0);

	if (n > 0 && s > 0 && game_var(g, "round", 0) <=
	    game_var(g, "turns", 3))
		return;
	g->status = GAME_FINISHED;
	snprintf(g->result, sizeof g->result, "%s (north %d, south %d)",
	    n > s ? "north wins" : s > n ? "south wins" : "a draw", n, s);
	events_phase(ev, "End");
	events_add(ev, EVENT_ALL_SIDES, 0, "The game ends: %s.", g->result);
}

/* The built-in opponent: attack 2; answers by the hits so far. */
static void
td_opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	if (w->kind != WINDOW_DECISION)
		sbuf_puts(b, "attack 2\n");
	else if (side == NORTH)
		sbuf_puts(b, svar(g, "hits", SOUTH, 0) > svar(g, "hits", NORTH,
		    0) ? "withdraw\n" : "press\n");
	else
		sbuf_printf(b, "reserve %d\n", svar(g, "hits", NORTH, 0) >= 2 ?
		    2 : 0);
}

/* Both strengths on one line (no map to speak of). */
static void
td_render_map(const struct game *g, int side, struct sbuf *b)
{
	(void)side;
	sbuf_printf(b, "  [north %2d]   [south %2d]\n", svar(g, "str", NORTH,
	    0), svar(g, "str", SOUTH, 0));
}

/* Strengths, initiative and turn. */
static void
td_status(const struct game *g, int side, struct sbuf *b)
{
	int init = game_var(g, "init", -1), turns = game_var(g, "turns", 3);
	int round = game_var(g, "round", 0);

	(void)side;
	sbuf_printf(b, "Strength: north %d, south %d. Initiative: %s. Turn %d "
	    "of %d.\n", svar(g, "str", NORTH, 0), svar(g, "str", SOUTH, 0),
	    init < 0 ? "not rolled yet" : side_names[init],
	    round < turns ? round : turns, turns);
}

/* The order form; in a decision window each side its own question. */
static void
td_order_template(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	if (w->kind != WINDOW_DECISION) {
		sbuf_printf(b, "# Your strength: %d. attack N: roll N dice "
		    "(1-3), hitting on %d+; or hold.\nattack 2\n",
		    svar(g, "str", side, 0), game_var(g, "init", 0) == side ?
		    4 : 5);
		return;
	}
	sbuf_printf(b, "# Turn %d: your fire scored %d hit%s; the enemy's "
	    "scored %d on you.\n", w->turn, svar(g, "hits", side, 0),
	    svar(g, "hits", side, 0) == 1 ? "" : "s", svar(g, "hits", 1 - side,
	    0));
	if (side == NORTH)
		sbuf_puts(b, "# press: roll your attack dice again; withdraw: "
		    "halve the hits on you.\n# (hold: press)\npress\n");
	else
		sbuf_puts(b, "# reserve K (0-2): K dice, each 4+ saves one hit "
		    "on you.\n# (hold: reserve 1)\nreserve 1\n");
}

const struct ruleset ruleset_test_decide = {
	.name = "test-decide",
	.title = "Decision drill (engine test ruleset)",
	.seed = "-",
	.setup = td_setup,
	.default_scenario = "duel",
	.next_window = td_next_window,
	.parse = td_parse,
	.free_orders = td_free_orders,
	.resolve = td_resolve,
	.victory = td_victory,
	.opponent = td_opponent,
	.render_map = td_render_map,
	.status = td_status,
	.order_template = td_order_template,
	.test = true,
};
