/* test_cards: every rule of seed 004 in the ruleset cards-ap, with
 * injected dice and injected card and token draws (scripted dice: a
 * sealed draw of position k takes the scripted value k + 1), the plan
 * language (exact errors with their lines, guards, stops), the
 * alternation of the plans with its stops (RESOLVE_ASK), and what each
 * side's view hides (hands, deck, token values). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/rules/cards/cap.h"
#include "fixtures.h"
#include "view.h"

static struct game G;
static struct cap_state *ST;
static struct dice D;
static struct events EV;
static struct cap_ctx X;

/* The shipped scenario, set up; scripted dice; every unit off the map. */
static void
start(const int *script, size_t n)
{
	struct hp_error err = { 0, "" };
	int i;

	game_init(&G);
	G.rules = ruleset_find("cards-ap");
	assert_non_null(G.rules);
	strlcpy_(G.name, "t", sizeof G.name);
	assert_int_equal(ruleset_setup(&G, NULL, NULL, NULL, NULL, &err),
	    HP_OK);
	for (i = 0; i < G.nunits; i++)
		G.units[i].placed = false;
	G.sides[0].ai = G.sides[1].ai = false;
	ST = cap_state_load(&G);
	dice_init_scripted(&D, script, n);
	events_init(&EV);
	memset(&X, 0, sizeof X);
	X.g = &G;
	X.st = ST;
	X.dice = &D;
	X.ev = &EV;
}

/* Release what start made. */
static void
finish(void)
{
	cap_state_free(ST);
	dice_free(&D);
	events_free(&EV);
	game_free(&G);
}

/* Unit id's index. */
static int
U(const char *id)
{
	int i = game_unit_index(&G, id);

	assert_true(i >= 0);
	return i;
}

/* Put unit id on hex h facing dir, fresh. */
static struct game_unit *
put(const char *id, struct hex h, int dir)
{
	struct game_unit *u = &G.units[U(id)];

	u->placed = true;
	u->pos = h;
	u->facing = dir;
	u->status = 0;
	u->flags = 0;
	u->x[0] = u->x[1] = 0;
	return u;
}

/* Does an event contain s? */
static bool
has(const char *s)
{
	return fx_event_has(&EV, s);
}

/* A hex of the open ground (row 8). */
static struct hex
H(const char *label)
{
	return fx_hex(&G, label);
}

/* Spent check: spent when APs >= the card's number; the ignore symbol
 * saves a person's unit, never the AI's. */
static void
test_spent_check(void **st)
{
	/* Deck in order: #1-4 are 1s, #5-10 2s, #11-16 3s with the ignore
	 * symbol. Draws: #5 (2), then #5 of what is left = #6 (2), then #11
	 * twice. */
	int script[] = { 5, 5, 9, 9 };

	(void)st;
	start(script, 4);
	put("b1", H("C8"), 0);
	assert_int_equal(cap_spent_check(&X, 0, U("b1"), 1), 0);
	assert_int_equal(G.units[U("b1")].status, 0);
	assert_true(has("card #5 (2) vs 1 AP: not spent"));
	assert_int_equal(cap_spent_check(&X, 0, U("b1"), 2), 1);
	assert_int_equal(G.units[U("b1")].status, CAP_SPENT);
	G.units[U("b1")].status = 0;
	assert_int_equal(cap_spent_check(&X, 0, U("b1"), 3), 0);
	assert_true(has("ignore symbol) vs 3 AP: ignored"));
	G.sides[0].ai = true;
	assert_int_equal(cap_spent_check(&X, 0, U("b1"), 3), 1);
	assert_int_equal(ST->ndisc, 4);
	assert_int_equal(D.nslog, 4);
	assert_false(D.script_exhausted);
	finish();
}

/* An empty deck takes the discards back. */
static void
test_reshuffle(void **st)
{
	int script[] = { 1, 1 };

	(void)st;
	start(script, 2);
	ST->ndisc = 0;
	ST->disc[ST->ndisc++] = ST->deck[0];
	ST->disc[ST->ndisc++] = ST->deck[1];
	ST->ndeck = 0;
	assert_int_equal(cap_draw_card(&X, 3, "t"), 1);
	assert_true(has("shuffled into it"));
	assert_int_equal(ST->ndeck, 1);
	assert_int_equal(ST->ndisc, 0);
	finish();
}

/* Movement: counter cost + terrain, +1 backwards, bonus moves of
 * vehicles only, a free pivot at the end, a pivot alone 1 AP or 1 CAP. */
static void
test_movement(void **st)
{
	int script[] = { 30, 30, 30, 30 };
	struct hex a = H("C8"), path[3];
	struct cap_action mv;
	char why[128];
	int w;

	(void)st;
	start(script, 4);
	put("b1", a, 0);
	path[0] = hex_neighbour(a, 0);
	assert_int_equal(cap_move_cost(ST, &G, U("b1"), path, 1, why,
	    sizeof why), 1);
	path[0] = hex_neighbour(a, 3);
	assert_int_equal(cap_move_cost(ST, &G, U("b1"), path, 1, why,
	    sizeof why), 2);
	path[0] = hex_neighbour(a, 1);
	path[1] = hex_neighbour(path[0], 1);
	assert_int_equal(cap_move_cost(ST, &G, U("b1"), path, 2, why,
	    sizeof why), -1);
	assert_string_equal(why, "b1 may move 1 hex in one action");
	/* Woods cost 1 more: E7 from its neighbour. */
	put("b2", hex_neighbour(H("E7"), 3), 0);
	path[0] = H("E7");
	assert_int_equal(cap_move_cost(ST, &G, U("b2"), path, 1, why,
	    sizeof why), 2);
	/* The tank: one bonus move. */
	put("b4", a, 0);
	path[0] = hex_neighbour(a, 0);
	path[1] = hex_neighbour(path[0], 0);
	path[2] = hex_neighbour(path[1], 0);
	assert_int_equal(cap_move_cost(ST, &G, U("b4"), path, 2, why,
	    sizeof why), 2);
	assert_int_equal(cap_move_cost(ST, &G, U("b4"), path, 3, why,
	    sizeof why), -1);
	/* A move with a free pivot: faces sw at the end, one spent check. */
	memset(&mv, 0, sizeof mv);
	mv.kind = ACT_MOVE;
	mv.unit = U("b1");
	mv.tunit = -1;
	mv.npath = 1;
	mv.path[0] = hex_neighbour(a, 0);
	mv.facing = 4;
	assert_int_equal(cap_do_action(&X, 0, &mv, why, sizeof why), HP_OK);
	assert_int_equal(G.units[U("b1")].facing, 4);
	assert_true(has("faces") || has("facing sw (1 AP)"));
	assert_int_equal(D.nslog, 1);
	/* A pivot alone: 1 AP and a spent check, or 1 CAP and none. */
	mv.kind = ACT_PIVOT;
	mv.facing = 2;
	assert_int_equal(cap_do_action(&X, 0, &mv, why, sizeof why), HP_OK);
	assert_int_equal(D.nslog, 2);
	w = cap_svar(&G, "cap", 0, 0);
	mv.cmd = true;
	mv.facing = 3;
	G.units[U("b1")].status = CAP_SPENT;
	assert_int_equal(cap_do_action(&X, 0, &mv, why, sizeof why), HP_OK);
	assert_int_equal(cap_svar(&G, "cap", 0, 0), w - 1);
	assert_int_equal(D.nslog, 2);
	assert_int_equal(G.units[U("b1")].facing, 3);
	/* A spent unit takes no action but a command action. */
	mv.cmd = false;
	assert_int_equal(cap_do_action(&X, 0, &mv, why, sizeof why),
	    HP_EINVAL);
	assert_string_equal(why, "b1 is spent");
	finish();
}

/* The frontal arc: the three hexes in front extended outwards. */
static void
test_arc(void **st)
{
	struct hex o = { 0, 0 };

	(void)st;
	assert_true(cap_in_arc(o, 0, (struct hex){ 1, 0 }));
	assert_true(cap_in_arc(o, 0, (struct hex){ 1, -1 }));
	assert_true(cap_in_arc(o, 0, (struct hex){ 0, 1 }));
	assert_true(cap_in_arc(o, 0, (struct hex){ 2, -1 }));
	assert_true(cap_in_arc(o, 0, (struct hex){ 1, 1 }));
	assert_true(cap_in_arc(o, 0, (struct hex){ 3, -3 }));
	assert_false(cap_in_arc(o, 0, (struct hex){ 0, -1 }));
	assert_false(cap_in_arc(o, 0, (struct hex){ -1, 0 }));
	assert_false(cap_in_arc(o, 0, (struct hex){ -1, 1 }));
	assert_false(cap_in_arc(o, 0, o));
	assert_true(cap_backwards(0, 3));
	assert_true(cap_backwards(0, 2));
	assert_false(cap_backwards(0, 1));
}

/* Line of sight into a blocking hex but not beyond it; smoke blocks. */
static void
test_los(void **st)
{
	struct hex w, a, b, c;

	(void)st;
	start(NULL, 0);
	w = H("E7");
	a = hex_neighbour(w, 3);
	b = hex_neighbour(w, 0);
	c = hex_neighbour(a, 3);
	assert_true(cap_los(ST, &G, a, w));
	assert_false(cap_los(ST, &G, a, b));
	assert_true(cap_los(ST, &G, c, a));
	a = H("A8");
	c = hex_neighbour(a, 1);
	b = hex_neighbour(c, 1);
	assert_true(cap_los(ST, &G, a, b));
	{
		struct game_unit *m = game_add_unit(&G, "sm", CAP_SMOKE, "smoke",
		    GAME_SIDE_NONE);

		m->placed = true;
		m->pos = c;
		m->strength = 2;
	}
	assert_true(cap_los(ST, &G, a, c));
	assert_false(cap_los(ST, &G, a, b));
	finish();
}

/* Combat: AV = FP (colour of the target's DR) + 2D6 + CAPs against DV =
 * front or flank DR + terrain; a hit at AV >= DV draws a token (its value
 * seen by the attacker only); at AV >= DV + 4 the unit is eliminated; a
 * second hit eliminates and returns the token; -1 total CAPs. */
static void
test_combat(void **st)
{
	/* 1: 2D6 3+2 (AV 4+5 = 9 vs DV 9 front): a hit, token draw 3 (a 6);
	 * 2: 1+1 (AV 6): nothing; 3: 4+1 (AV 9): second hit, eliminated. */
	int script[] = { 3, 2, 3, 1, 1, 4, 1 };
	struct hex a = H("C8"), t;
	int tok;

	(void)st;
	start(script, 7);
	t = hex_neighbour(hex_neighbour(a, 0), 0);
	put("b1", a, 0);
	put("r1", t, 3);
	assert_true(cap_can_fire(ST, &G, U("b1"), U("r1")));
	assert_int_equal(ST->npool, 17);
	assert_int_equal(cap_fire(&X, U("b1"), t, -1, 0), HP_OK);
	assert_true(has("AV 9 (FP 4, 2D6 5, CAPs 0) against DV 9 (front DR 9, "
	    "open +0): a hit"));
	assert_true(G.units[U("r1")].flags & CAP_HIT);
	tok = G.units[U("r1")].x[0];
	assert_int_equal(tok, 6);
	assert_int_equal(ST->npool, 16);
	assert_int_equal(D.nslog, 1);
	assert_int_equal(D.slog[0].visible, 1u);
	assert_int_equal(cap_fire(&X, U("b1"), t, -1, 0), HP_OK);
	assert_true(has("AV 6 (FP 4, 2D6 2, CAPs 0) against DV 9 (front DR 9, "
	    "open +0): no effect"));
	assert_int_equal(cap_fire(&X, U("b1"), t, -1, 0), HP_OK);
	assert_true(has("is hit a second time"));
	assert_int_equal(G.units[U("r1")].status, CAP_GONE);
	assert_int_equal(ST->npool, 17);
	assert_int_equal(cap_svar(&G, "capmax", 1, 0), 3);
	assert_false(D.script_exhausted);
	finish();
}

/* AV >= DV + 4 eliminates at once; flank DR; +3 adjacent; -2 beyond the
 * range; out of the arc or beyond twice the range no fire; CAPs add. */
static void
test_combat_mods(void **st)
{
	int script[] = { 6, 3, 1, 1, 1, 1 };
	struct hex a = H("A8"), t;

	(void)st;
	start(script, 6);
	put("b1", a, 0);
	t = hex_neighbour(a, 0);
	put("r1", t, 0); /* its back to b1: flank DR 7 */
	assert_int_equal(cap_fire(&X, U("b1"), t, -1, 0), HP_OK);
	assert_true(has("AV 16 (FP 4, adjacent +3, 2D6 9, CAPs 0) against DV 7 "
	    "(flank DR 7, open +0): eliminated"));
	t = hex_neighbour(hex_neighbour(hex_neighbour(hex_neighbour(a, 0), 0),
	    0), 0);
	put("r3", t, 3);
	assert_int_equal(cap_fire(&X, U("b1"), t, -1, 2), HP_OK);
	assert_true(has("AV 6 (FP 4, beyond range -2, 2D6 2, CAPs 2) against "
	    "DV 9"));
	G.units[U("b1")].facing = 3;
	assert_false(cap_can_fire(ST, &G, U("b1"), U("r3")));
	assert_int_equal(cap_fire(&X, U("b1"), t, -1, 0), HP_EINVAL);
	G.units[U("b1")].facing = 0;
	G.units[U("r3")].pos = hex_neighbour(hex_neighbour(t, 0), 0);
	G.units[U("r3")].pos = hex_neighbour(G.units[U("r3")].pos, 0);
	assert_false(cap_can_fire(ST, &G, U("b1"), U("r3")));
	finish();
}

/* Range combat rolls for every enemy unit in the hex; close combat hits
 * one unit, with the same-hex modifier (white box -2, else +4). */
static void
test_range_and_close(void **st)
{
	int script[] = { 1, 1, 1, 1, 1, 1 };
	struct hex a = H("C8"), t;

	(void)st;
	start(script, 6);
	put("b3", a, 0);
	t = hex_neighbour(hex_neighbour(a, 0), 0);
	put("r1", t, 3);
	put("r3", t, 3);
	assert_int_equal(cap_fire(&X, U("b3"), t, -1, 0), HP_OK);
	assert_int_equal(D.nlog, 4);
	assert_true(has("fires on r1"));
	assert_true(has("fires on r3"));
	put("b1", t, 0);
	assert_int_equal(cap_fire(&X, U("b1"), t, U("r1"), 0), HP_OK);
	assert_int_equal(D.nlog, 6);
	assert_true(has("AV 4 (FP 4, same hex -2, 2D6 2, CAPs 0)"));
	finish();
}

/* Rally: 2D6 +1 cover +1 stacked with an unhit friend >= the token; not
 * with an enemy in the hex; the token is shown and goes back. */
static void
test_rally(void **st)
{
	int script[] = { 5, 1, 3, 2 };
	struct game_unit *u;
	struct hex w;

	(void)st;
	start(script, 4);
	w = H("E7");
	u = put("b1", w, 0);
	u->flags = CAP_HIT;
	u->x[0] = 8;
	ST->npool = 0;
	put("b2", w, 0);
	assert_int_equal(cap_rally(&X, U("b1"), "5 APs"), HP_OK);
	assert_true(has("2D6 6 +2 against its token 8: rallied"));
	assert_false(u->flags & CAP_HIT);
	assert_int_equal(ST->npool, 1);
	u->flags = CAP_HIT;
	u->x[0] = 8;
	G.units[U("b2")].flags = CAP_HIT;
	assert_int_equal(cap_rally(&X, U("b1"), "5 APs"), HP_OK);
	assert_true(has("2D6 5 +1 against its token 8: still hit"));
	assert_int_equal(u->x[1], 1);
	put("r1", w, 3);
	assert_int_equal(cap_rally(&X, U("b1"), "5 APs"), HP_EINVAL);
	finish();
}

/* Initiative: 2D6 each + up to 2 CAPs (paid), ties rolled again. */
static void
test_initiative(void **st)
{
	int script[] = { 2, 2, 3, 3, 1, 1, 1, 2 };
	int bid[2] = { 2, 0 };

	(void)st;
	start(script, 8);
	cap_set_svar(&G, "cap", 0, 3);
	assert_int_equal(cap_initiative(&X, bid), 0);
	assert_true(has("a tie, rolled again"));
	assert_true(has("Initiative: blue 4 (2 CAPs), red 3 (0 CAPs)."));
	assert_int_equal(cap_svar(&G, "cap", 0, 0), 1);
	finish();
}

/* A new round: spent flipped, smoke thins, CAPs reset, cards drawn as per
 * scenario (sealed, shown to the owner), artillery, reinforcements. */
static void
test_round_start(void **st)
{
	int script[] = { 1, 1, 1, 6, 6 };
	struct game_unit *m;

	(void)st;
	start(script, 5);
	put("b1", H("C8"), 0)->status = CAP_SPENT;
	m = game_add_unit(&G, "sm", CAP_SMOKE, "smoke", GAME_SIDE_NONE);
	m->placed = true;
	m->pos = H("B8");
	m->strength = 2;
	cap_set_svar(&G, "cap", 0, 0);
	put("r1", H("F3"), 3);
	cap_round_start(&X, 3);
	assert_int_equal(G.units[U("b1")].status, 0);
	assert_int_equal(game_unit(&G, "sm")->strength, 1);
	assert_int_equal(cap_svar(&G, "cap", 0, 0), cap_svar(&G, "capmax", 0,
	    0));
	assert_int_equal(ST->nhand[0], 1);
	assert_int_equal(ST->nhand[1], 2);
	assert_int_equal(D.slog[0].visible, 1u);
	assert_int_equal(D.slog[1].visible, 2u);
	assert_true(has("Off-board artillery of blue falls on F3."));
	assert_true(has("Artillery on r1: AV 16 (FP 4, 2D6 12) against DV 10."));
	assert_int_equal(G.units[U("r1")].status, CAP_GONE);
	/* Reinforcements come in round 2. */
	cap_round_start(&X, 2);
	assert_true(G.units[U("b5")].placed);
	assert_true(has("Reinforcement: b5 enters at A4."));
	finish();
}

/* Parse body as side's plan (per_action as given); the errors' text. */
static char *
plan_errors(const char *body, int side, bool per_action, struct cap_plan *p,
    struct sbuf *canon)
{
	struct order_header h;
	struct order_body b;
	struct order_errors errs;
	char *f = fx_orders(&G, "plan", side ? "red" : "blue", body), *t;

	orders_errors_init(&errs);
	assert_int_equal(orders_parse_file(f, strlen(f), &h, &b, &errs), HP_OK);
	(void)cap_plan_parse(&G, side, &b, per_action, p, &errs);
	if (errs.n == 0 && canon != NULL)
		cap_plan_canon(&G, p, canon);
	t = orders_errors_text(&errs);
	orders_errors_free(&errs);
	orders_body_free(&b);
	free(f);
	return t;
}

/* The plan language: exact errors with their lines; canonical text. */
static void
test_plan_parse(void **st)
{
	static struct cap_plan p;
	struct sbuf c;
	char *t;

	(void)st;
	start(NULL, 0);
	sbuf_init(&c);
	t = plan_errors("initiative 2\nstop hit b1\nstop answer fire\n"
	    "dry pass\nIF inrange b1 then fire b1 best caps 1 else move b1 "
	    "toward F4\nif not occupied F4 then cmd move b4 B6 C6 face ne\n"
	    "card 3 smoke D4\npass\n", 0, false, &p, &c);
	assert_string_equal(t, "");
	free(t);
	assert_string_equal(c.buf, "initiative 2\nstop hit b1\nstop answer "
	    "fire\ndry pass\nif inrange b1 then fire b1 best caps 1 else move "
	    "b1 toward F4\nif not occupied F4 then cmd move b4 B6 C6 face ne\n"
	    "card 3 smoke D4\npass\n");
	assert_int_equal(p.n, 4);
	sbuf_free(&c);
	t = plan_errors("move r1 B3\nfire b1 Z9\njump b1\nif caps then pass\n"
	    "stop maybe\ninitiative 3\npivot b1 up\nfire b1 C3 caps 3\n"
	    "cmd pass\nclose b1 b2\nif inrange b1 fire b1 best\n", 0, false, &p,
	    NULL);
	assert_string_equal(t,
	    "line 5: no unit 'r1' of yours\n"
	    "line 6: expected a hex of the map (A1-J8) or 'best', got 'z9'\n"
	    "line 7: unknown action 'jump' (expected move, pivot, fire, close, "
	    "rally, card, stall or pass)\n"
	    "line 8: expected a condition: [not] occupied HEX, enemy HEX, "
	    "inrange UNIT, inlos UNIT, caps N or passed\n"
	    "line 9: expected 'stop hit [UNIT]', 'stop lost [UNIT]', 'stop "
	    "seen', 'stop inrange UNIT', 'stop dry' or 'stop answer ACTION'\n"
	    "line 10: expected 'initiative N' with N 0 to 2 (CAPs added to the "
	    "roll)\n"
	    "line 11: expected 'pivot UNIT DIR' with DIR one of n, ne, se, s, "
	    "sw, nw\n"
	    "line 12: expected 'caps N' with N 0 to 2\n"
	    "line 13: 'cmd' goes with move, pivot, fire, close or rally, not "
	    "'pass'\n"
	    "line 14: no enemy unit 'b2'\n"
	    "line 15: expected 'if CONDITION then ACTION [else ACTION]'\n");
	free(t);
	t = plan_errors("pass\npass\n", 0, true, &p, NULL);
	assert_string_equal(t, "line 6: one action a mail in this campaign "
	    "(option per-action)\n");
	free(t);
	finish();
}

/* Resolve window name (plan or answer) with the bodies as the two sides'
 * files (NULL: none); scripted dice all 1 (cards #1.. of number 1, so
 * every action spends its unit; 2D6 = 2: no hit). */
static enum resolve_rc
run(const char *name, enum window_kind kind, unsigned sides,
    const char *blue, const char *red, struct cap_plan *pl)
{
	static int ones[400];
	struct resolve_ctx c;
	struct window_spec w;
	struct hp_error err = { 0, "" };
	char *t;
	int i;

	for (i = 0; i < 400; i++)
		ones[i] = 1;
	memset(&w, 0, sizeof w);
	strlcpy_(w.name, name, sizeof w.name);
	w.kind = kind;
	w.sides = sides;
	memset(&c, 0, sizeof c);
	c.g = &G;
	c.w = &w;
	c.err = &err;
	c.resumed = kind == WINDOW_DECISION;
	if (blue != NULL) {
		t = plan_errors(blue, 0, false, &pl[0], NULL);
		assert_string_equal(t, "");
		free(t);
		c.orders[0] = &pl[0];
	}
	if (red != NULL) {
		t = plan_errors(red, 1, false, &pl[1], NULL);
		assert_string_equal(t, "");
		free(t);
		c.orders[1] = &pl[1];
	}
	dice_free(&D);
	events_free(&EV);
	dice_init_scripted(&D, ones, 400);
	events_init(&EV);
	c.dice = &D;
	c.ev = &EV;
	return cap_resolve(&c);
}

/* Alternation: a plan runs dry while the other side still acts (asked);
 * a stop on an opponent's action (asked); a side with `dry pass` passes;
 * the answer takes the asked side's new plan, the other's rest is kept;
 * both pass in a row: the round ends and the next starts. */
static void
test_alternation(void **st)
{
	static struct cap_plan pl[2];
	enum resolve_rc rc;

	(void)st;
	start(NULL, 0);
	put("b1", H("A8"), 0);
	put("b2", H("A7"), 0);
	put("r1", H("J8"), 3);
	put("r3", H("J7"), 3);
	game_set_var(&G, "round", 1);
	G.turn = 1;
	cap_state_save(&G, ST);
	/* Initiative: 1+1 each, a tie... all dice are 1: ties forever would
	 * loop, so red bids a CAP. */
	rc = run("plan", WINDOW_ORDERS, 3, "move b1 B8\nmove b2 B7\n",
	    "initiative 1\nstop answer move\nmove r1 I8\nmove r3 I7\n", pl);
	assert_int_equal(rc, RESOLVE_ASK);
	assert_true(has("red takes the first turn") ||
	    has("Red platoon (the village) takes the first turn"));
	assert_true(has("Red platoon (the village) moves") || has("r1 moves"));
	assert_true(has("b1 moves to B8"));
	assert_int_equal(game_var(&G, "asked", 0), 2);
	/* Red answers with a pass and no stop: blue moves b2, red passes. */
	rc = run("answer", WINDOW_DECISION, 2, NULL, "dry pass\npass\n", pl);
	assert_true(has("b2 moves to B7"));
	/* Blue's plan is dry, red passed: blue passes, the round ends. */
	assert_int_equal(rc, RESOLVE_DONE);
	assert_true(has("round 1 ends"));
	assert_int_equal(game_var(&G, "round", 0), 2);
	assert_int_equal(game_var(&G, "mh.2", 0), 1);
	assert_int_equal(game_var(&G, "mh.1", 0), 1);
	finish();
}

/* A plan that runs dry while the opponent still acts opens a window for
 * that side only; guards choose then or else on what the side sees. */
static void
test_dry_and_guards(void **st)
{
	static struct cap_plan pl[2];
	enum resolve_rc rc;

	(void)st;
	start(NULL, 0);
	put("b1", H("A8"), 0);
	put("r1", H("J8"), 3);
	put("r3", H("J7"), 3);
	game_set_var(&G, "round", 1);
	cap_state_save(&G, ST);
	rc = run("plan", WINDOW_ORDERS, 3, "initiative 1\nif occupied J8 then "
	    "move b1 B8 else pass\n", "move r1 I8\nmove r3 I7\n", pl);
	assert_int_equal(rc, RESOLVE_ASK);
	assert_true(has("b1 moves to B8"));
	assert_true(has("The plan of blue has run dry while red still acts: "
	    "blue is asked."));
	assert_int_equal(game_var(&G, "asked", 0), 1);
	finish();
}

/* Stops: a unit hit (an adjacent enemy fires: all dice 1, AV 4 + 3 + 2
 * = DV 9); an enemy newly in range of a named unit. */
static void
test_stops(void **st)
{
	static struct cap_plan pl[2];
	struct hex a = H("C8"), far;
	enum resolve_rc rc;
	int i;

	(void)st;
	start(NULL, 0);
	for (i = 0; i < G.nhex; i++)
		strlcpy_(G.hexes[i].terrain, "open", sizeof G.hexes[i].terrain);
	put("b1", a, 0);
	put("r1", hex_neighbour(a, 0), 3);
	game_set_var(&G, "round", 1);
	cap_state_save(&G, ST);
	rc = run("plan", WINDOW_ORDERS, 3, "stop hit b1\npass\n",
	    "initiative 1\nfire r1 best\n", pl);
	assert_int_equal(rc, RESOLVE_ASK);
	assert_true(has("b1 is hit"));
	assert_true(has("Your stop 'hit' fires."));
	assert_int_equal(game_var(&G, "asked", 0), 1);
	/* An answer with no action keeps the rest of the plan ("pass"). */
	rc = run("answer", WINDOW_DECISION, 1, "", NULL, pl);
	assert_true(has("Your new plan has 1 action."));
	assert_true(has("blue passes."));
	assert_int_equal(rc, RESOLVE_DONE);
	finish();
	/* r1 comes from 7 hexes to 6 in front of b1 (range 3, twice 6). */
	start(NULL, 0);
	for (i = 0; i < G.nhex; i++)
		strlcpy_(G.hexes[i].terrain, "open", sizeof G.hexes[i].terrain);
	a = H("A8");
	far = a;
	for (i = 0; i < 7; i++)
		far = hex_neighbour(far, 1);
	assert_true(game_on_map(&G, far));
	put("b1", a, 1);
	put("r1", far, 4);
	game_set_var(&G, "round", 1);
	cap_state_save(&G, ST);
	{
		char red[64], lbl[8];

		snprintf(red, sizeof red, "initiative 1\nmove r1 toward %s\n",
		    hex_label(&G.layout, a, lbl, sizeof lbl));
		rc = run("plan", WINDOW_ORDERS, 3, "stop inrange b1\npass\n",
		    red, pl);
	}
	assert_int_equal(rc, RESOLVE_ASK);
	assert_true(has("Your stop 'inrange' fires."));
	assert_int_equal(game_var(&G, "asked", 0), 1);
	finish();
}

/* Card actions (a free rally, smoke that blocks sight) and the stall: the
 * card leaves the hand for the discards; a stall is a spent check of 1 AP;
 * a card not in the hand is refused. */
static void
test_card_actions(void **st)
{
	/* 2D6 6+2 rally (token 8: rallied); the stall draws #1 (1): spent. */
	int script[] = { 6, 2, 1 };
	struct cap_action a;
	struct game_unit *u;
	char why[128];
	int n;

	(void)st;
	start(script, 3);
	u = put("b1", H("C8"), 0);
	u->flags = CAP_HIT;
	u->x[0] = 8;
	ST->hand[0][ST->nhand[0]++] = 23;   /* 5, rally */
	ST->hand[0][ST->nhand[0]++] = 27;   /* 6, smoke */
	memset(&a, 0, sizeof a);
	a.kind = ACT_CARD;
	a.unit = -1;
	a.card = 23;
	a.tunit = U("b1");
	assert_int_equal(cap_do_action(&X, 0, &a, why, sizeof why), HP_OK);
	assert_true(has("blue plays card #23: a free rally."));
	assert_true(has("2D6 8 +0 against its token 8: rallied"));
	assert_int_equal(ST->nhand[0], 1);
	assert_int_equal(ST->disc[ST->ndisc - 1], 23);
	assert_int_equal(cap_do_action(&X, 0, &a, why, sizeof why), HP_EINVAL);
	assert_string_equal(why, "card #23 is not in your hand");
	a.card = 27;
	a.tunit = -1;
	a.target = hex_neighbour(H("C8"), 1);
	n = G.nunits;
	assert_int_equal(cap_do_action(&X, 0, &a, why, sizeof why), HP_OK);
	assert_int_equal(G.nunits, n + 1);
	assert_true(cap_smoke_at(&G, a.target));
	assert_false(cap_los(ST, &G, H("C8"), hex_neighbour(a.target, 1)));
	memset(&a, 0, sizeof a);
	a.kind = ACT_STALL;
	a.unit = U("b1");
	a.tunit = -1;
	assert_int_equal(cap_do_action(&X, 0, &a, why, sizeof why), HP_OK);
	assert_true(has("card #1 (1) vs 1 AP: spent"));
	assert_int_equal(u->status, CAP_SPENT);
	assert_false(D.script_exhausted);
	finish();
}

/* The campaign option per-action: a plan holds one action, and the side
 * is asked each time its turn comes again. */
static void
test_per_action(void **st)
{
	static struct cap_plan pl[2];
	enum resolve_rc rc;

	(void)st;
	start(NULL, 0);
	strlcpy_(G.options, "per-action", sizeof G.options);
	put("b1", H("A8"), 0);
	put("b2", H("A7"), 0);
	put("r1", H("J8"), 3);
	game_set_var(&G, "round", 1);
	cap_state_save(&G, ST);
	rc = run("plan", WINDOW_ORDERS, 3, "move b1 B8\n", "initiative 1\n"
	    "move r1 I8\n", pl);
	assert_int_equal(rc, RESOLVE_ASK);
	assert_true(has("r1 moves to I8"));
	assert_true(has("b1 moves to B8"));
	assert_int_equal(game_var(&G, "asked", 0), 2);
	rc = run("answer", WINDOW_DECISION, 2, NULL, "pass\n", pl);
	assert_int_equal(rc, RESOLVE_ASK);
	assert_int_equal(game_var(&G, "asked", 0), 1);
	rc = run("answer", WINDOW_DECISION, 1, "pass\n", NULL, pl);
	assert_int_equal(rc, RESOLVE_DONE);
	assert_true(has("round 1 ends"));
	finish();
}

/* What a side sees: its own hand, no deck, no pool, no other plan; a token
 * under its own unit is hidden until a rally shows it. */
static void
test_views(void **st)
{
	struct game v;
	struct cap_state *vs;
	struct sbuf s;

	(void)st;
	start(NULL, 0);
	ST->hand[0][ST->nhand[0]++] = 3;
	ST->hand[1][ST->nhand[1]++] = 7;
	cap_state_save(&G, ST);
	put("b1", H("C8"), 0)->flags = CAP_HIT;
	G.units[U("b1")].x[0] = 9;
	view_game(&G, 0, &v);
	vs = cap_state_load(&v);
	assert_int_equal(vs->nhand[0], 1);
	assert_int_equal(vs->hand[0][0], 3);
	assert_int_equal(vs->nhand[1], 1);
	assert_int_equal(vs->hand[1][0], 0);
	assert_int_equal(vs->ndeck, 0);
	assert_int_equal(vs->npool, 0);
	assert_int_equal(v.units[U("b1")].x[0], 0);
	cap_state_free(vs);
	game_free(&v);
	view_game(&G, 1, &v);
	assert_int_equal(v.units[U("b1")].x[0], 9);
	sbuf_init(&s);
	view_status(&G, 1, &s);
	assert_non_null(strstr(s.buf, "Hand of red: #7(2)"));
	assert_non_null(strstr(s.buf, "blue: 4 of 3 CAPs, 1 card in hand") ||
	    strstr(s.buf, "blue: 3 of 3 CAPs, 1 card in hand"));
	assert_null(strstr(s.buf, "Hand of blue"));
	sbuf_free(&s);
	/* The plan form: the side's own hand and units, not the other's. */
	{
		struct window_spec w;
		char *t;

		memset(&w, 0, sizeof w);
		strlcpy_(w.name, "plan", sizeof w.name);
		w.sides = 3;
		t = view_order_template(&G, &w, 1);
		assert_non_null(strstr(t, "Your hand: #7(2)"));
		assert_null(strstr(t, "#3("));
		assert_null(strstr(t, "b1 C8"));
		free(t);
		t = view_order_template(&G, &w, 0);
		assert_non_null(strstr(t, "Your hand: #3(1)"));
		assert_non_null(strstr(t, "b1 C8 se hit"));
		free(t);
	}
	/* The map shows each unit with its facing. */
	sbuf_init(&s);
	G.rules->render_map(&G, 1, &s);
	assert_non_null(strstr(s.buf, "b1se"));
	assert_non_null(strstr(s.buf, "b1     blue  rifles   C8   faces se H"));
	sbuf_free(&s);
	game_free(&v);
	finish();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spent_check),
		cmocka_unit_test(test_reshuffle),
		cmocka_unit_test(test_movement),
		cmocka_unit_test(test_arc),
		cmocka_unit_test(test_los),
		cmocka_unit_test(test_combat),
		cmocka_unit_test(test_combat_mods),
		cmocka_unit_test(test_range_and_close),
		cmocka_unit_test(test_rally),
		cmocka_unit_test(test_initiative),
		cmocka_unit_test(test_round_start),
		cmocka_unit_test(test_plan_parse),
		cmocka_unit_test(test_alternation),
		cmocka_unit_test(test_dry_and_guards),
		cmocka_unit_test(test_stops),
		cmocka_unit_test(test_card_actions),
		cmocka_unit_test(test_per_action),
		cmocka_unit_test(test_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
