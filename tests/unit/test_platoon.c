/* Unit tests for the platoon ruleset (seed 001, src/rules/platoon/): every
 * rule resolved with scripted dice on a small open test board, asserting on
 * the state and on the dice log (each roll's target number); coherency and
 * line-of-sight geometry; order parse errors; the built-in opponent playing
 * whole games of both shipped scenarios. The board is flat-topped, so a
 * column (E1, E2, E3 ...) is a straight line of adjacent hexes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "platoon.h"
#include "sim.h"
#include "turn.h"
#include "window.h"

#define BLUE 0
#define RED 1
#define GREEN 2

/* 16 x 16 open hexes; Blue (west): platoon b (b1 b2 rifles, b3 heavy) and
 * single-squad platoons bx (rifle), bh (heavy); Red (east): r (3 rifles),
 * rx (rifle); Green (north): g (one rifle). */
static const char board[] =
    "ruleset: platoon\nname: test\nmap: 16 16\nlegend: . open\n"
    "legend: w lightwoods\nlegend: W heavywoods\nlegend: r rough\n"
    "legend: U urban\nlegend: L lake\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "side: blue Blue\nside: red Red\nside: green Green\n"
    "option: home blue west\noption: home red east\n"
    "option: home green north\n"
    "unit: b platoon blue -\nunit: b1 rifle blue B2 - - b\n"
    "unit: b2 rifle blue B3 - - b\nunit: b3 heavy blue B4 - - b\n"
    "unit: bx platoon blue -\nunit: bx1 rifle blue B8 - - bx\n"
    "unit: bh platoon blue -\nunit: bh1 heavy blue B10 - - bh\n"
    "unit: r platoon red -\nunit: r1 rifle red O2 - - r\n"
    "unit: r2 rifle red O3 - - r\nunit: r3 rifle red O4 - - r\n"
    "unit: rx platoon red -\nunit: rx1 rifle red O8 - - rx\n"
    "unit: g platoon green -\nunit: g1 rifle green H16 - - g\n";

static void
new_game(struct game *g, const char *options, const char *text)
{
	struct hp_error err = { 0, "" };
	struct order_errors errs;

	game_init(g);
	g->rules = ruleset_find("platoon");
	assert_non_null(g->rules);
	strlcpy_(g->name, "test", sizeof g->name);
	strlcpy_(g->options, options ? options : "", sizeof g->options);
	orders_errors_init(&errs);
	if (ruleset_setup(g, NULL, text ? text : board, NULL, &errs, &err) !=
	    HP_OK) {
		char *t = orders_errors_text(&errs);

		fprintf(stderr, "setup: %s\n%s", err.msg, t);
		free(t);
		fail();
	}
	orders_errors_free(&errs);
}

/* A board of 2 columns and rows open hexes with Blue's squad b1 (profile
 * kind) at A1 and Red's r1 at A<rows>, into g. */
static void
column_game(struct game *g, int rows, const char *kind)
{
	struct sbuf t;
	int r;

	sbuf_init(&t);
	sbuf_printf(&t, "ruleset: platoon\nname: long\nmap: 2 %d\n"
	    "legend: . open\n", rows);
	for (r = 0; r < rows; r++)
		sbuf_puts(&t, "terrain: ..\n");
	sbuf_printf(&t, "side: blue B\nside: red R\nunit: b platoon blue -\n"
	    "unit: b1 %s blue A1 - - b\nunit: r platoon red -\n"
	    "unit: r1 rifle red A%d - - r\n", kind, rows);
	new_game(g, NULL, t.buf);
	sbuf_free(&t);
}

static int
I(const struct game *g, const char *id)
{
	int i = game_unit_index(g, id);

	assert_true(i >= 0);
	return i;
}

static void
put(struct game *g, const char *id, const char *label)
{
	g->units[I(g, id)].pos = fx_hex(g, label);
}

static const char *
at(const struct game *g, const char *id)
{
	static char buf[4][8];
	static int k;

	k = (k + 1) % 4;
	return hex_label(&g->layout, g->units[I(g, id)].pos, buf[k], 8);
}

static void
terrain(struct game *g, const char *label, const char *t, int elev)
{
	struct game_hex *gh = game_hex_at(g, fx_hex(g, label));

	assert_non_null(gh);
	strlcpy_(gh->terrain, t, sizeof gh->terrain);
	gh->elevation = elev;
}

/* Parse body as side's orders: HP_OK and *o, or the errors' text in
 * *msg (caller frees). */
static int
parse(const struct game *g, int side, const char *body,
    struct plt_orders **o, char **msg)
{
	char *raw = fx_orders(g, "orders", g->sides[side].name, body);
	struct order_header hd;
	struct order_body b;
	struct order_errors errs;
	struct window_spec w;
	struct sbuf canon;
	void *out = NULL;
	int rc;

	orders_errors_init(&errs);
	sbuf_init(&canon);
	assert_true(plt_next_window(g, &w));
	assert_int_equal(orders_parse_file(raw, strlen(raw), &hd, &b, &errs),
	    HP_OK);
	rc = plt_parse(g, &w, side, &b, &out, &canon, &errs);
	*o = out;
	if (msg != NULL)
		*msg = orders_errors_text(&errs);
	orders_body_free(&b);
	orders_errors_free(&errs);
	sbuf_free(&canon);
	free(raw);
	return rc;
}

static void
dump(const struct dice *d, const struct events *ev)
{
	size_t i;

	for (i = 0; i < d->nlog; i++)
		fprintf(stderr, "  roll %zu: %d needs %d (%s)\n", i + 1,
		    d->log[i].result, d->log[i].target, d->log[i].purpose);
	for (i = 0; i < ev->n; i++)
		fprintf(stderr, "  [%s] %s\n", ev->v[i].phase, ev->v[i].text);
}

/* Parse body for side and enact its first order with exactly the n
 * scripted dice; the log and events stay in d and ev. */
static void
enact(struct game *g, int side, const char *body, const int *script,
    size_t n, struct dice *d, struct events *ev)
{
	const struct plt_orders *all[GAME_MAX_SIDES] = { 0 };
	struct plt_orders *o;
	char *msg;

	if (parse(g, side, body, &o, &msg) != HP_OK) {
		fprintf(stderr, "parse: %s\n", msg);
		free(msg);
		fail();
	}
	free(msg);
	all[side] = o;
	dice_init_scripted(d, script, n);
	events_init(ev);
	plt_enact(g, all, &o->o[0], d, ev);
	if (d->nlog != n || d->script_exhausted)
		dump(d, ev);
	assert_false(d->script_exhausted);
	assert_int_equal(d->nlog, n);
	plt_free_orders(o);
}

static void
done(struct dice *d, struct events *ev, struct game *g)
{
	dice_free(d);
	events_free(ev);
	game_free(g);
}

/* Parse must fail with an error containing s. */
static void
refused(const struct game *g, int side, const char *body, const char *s)
{
	struct plt_orders *o;
	char *msg;

	assert_int_equal(parse(g, side, body, &o, &msg), HP_EINVAL);
	if (strstr(msg, s) == NULL)
		fprintf(stderr, "wanted \"%s\" in:\n%s", s, msg);
	assert_non_null(strstr(msg, s));
	free(msg);
}

/* --- tests ---------------------------------------------------------------- */

/* The seed's profiles, a scenario's own, the scale. */
static void
t_profiles(void **state)
{
	struct game g;
	struct plt_profile p;
	struct sbuf sc;

	(void)state;
	new_game(&g, NULL, NULL);
	assert_true(plt_profile(&g, I(&g, "b1"), &p));
	assert_int_equal(p.move, 10);
	assert_int_equal(p.ff[0], 3);
	assert_int_equal(p.ff[1], 1);
	assert_int_equal(p.hw[0], 1);
	assert_int_equal(p.hw[1], 0);
	assert_int_equal(p.cc[0], 2);
	assert_int_equal(p.cc[1], 1);
	assert_int_equal(p.armour, 2);
	assert_string_equal(p.name, "Regular Infantry Squad");
	assert_true(plt_profile(&g, I(&g, "b3"), &p));
	assert_int_equal(p.hw[0], 2);
	assert_int_equal(p.hw[1], 1);
	assert_int_equal(p.ff[0], 2);
	assert_false(plt_profile(&g, I(&g, "b"), &p));
	assert_int_equal(plt_dist_cm(fx_hex(&g, "E1"), fx_hex(&g, "E6")), 10);
	game_free(&g);
	/* A club's profile. */
	sbuf_init(&sc);
	sbuf_puts(&sc, board);
	sbuf_puts(&sc, "option: profile marine 12 4/2 1/1 3/1 3 4 Marine "
	    "Squad\nunit: m platoon blue -\nunit: m1 marine blue D14 - - m\n");
	new_game(&g, NULL, sc.buf);
	assert_true(plt_profile(&g, I(&g, "m1"), &p));
	assert_int_equal(p.move, 12);
	assert_int_equal(p.ff[0], 4);
	assert_int_equal(p.hw[1], 1);
	assert_int_equal(p.armour, 3);
	assert_int_equal(p.points, 4);
	assert_string_equal(p.name, "Marine Squad");
	game_free(&g);
	sbuf_free(&sc);
}

/* Scenario mistakes are listed with their lines. */
static void
t_scenario_errors(void **state)
{
	struct order_errors errs;
	struct scenario sc;
	struct sbuf t;
	char *msg;

	(void)state;
	sbuf_init(&t);
	sbuf_puts(&t, board);
	sbuf_puts(&t, "option: profile bad 10 3-1 1/0 2/1 2 2 X\n"
	    "unit: z platoon blue -\nunit: z1 rifle blue B2 - - z\n"
	    "unit: z2 dragon blue C9 - - z\nunit: z3 rifle blue C12 - - b\n"
	    "option: edge B2 up hedge\n");
	orders_errors_init(&errs);
	assert_int_equal(ruleset_scenario_check(t.buf, t.len, "", &sc, &errs),
	    HP_EINVAL);
	msg = orders_errors_text(&errs);
	assert_non_null(strstr(msg, "option: profile ID MOVE"));
	assert_non_null(strstr(msg, "B2 is taken (one squad a hex)"));
	assert_non_null(strstr(msg, "no profile \"dragon\""));
	assert_non_null(strstr(msg, "option: edge: expected a direction (n ne "
	    "se s sw nw) and an obstacle (hedge fence wall bocage highwall "
	    "wire), got \"up hedge\""));
	assert_non_null(strstr(msg, "starts out of coherency"));
	assert_non_null(strstr(msg, "platoon z has no squads"));
	free(msg);
	orders_errors_free(&errs);
	scenario_free(&sc);
	sbuf_free(&t);
}

/* 1.0: a chain of squads each within 2 cm (adjacent) of the next. */
static void
t_coherency(void **state)
{
	struct game g;
	int b = 0;

	(void)state;
	new_game(&g, NULL, NULL);
	b = I(&g, "b");
	assert_true(plt_coherent(&g, b));
	put(&g, "b3", "B6");            /* a 2-hex gap: out */
	assert_false(plt_coherent(&g, b));
	put(&g, "b3", "C3");            /* next to b2 only: a chain */
	assert_true(plt_coherent(&g, b));
	put(&g, "b1", "E2");
	assert_false(plt_coherent(&g, b));
	/* A platoon of one squad is coherent. */
	assert_true(plt_coherent(&g, I(&g, "bx")));
	game_free(&g);
}

/* 1.0.1: an order must end in coherency; the terrain exception; failure
 * suppresses. */
static void
t_coherency_orders(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int die[] = { 1, 1 };
	int b;

	(void)state;
	new_game(&g, NULL, NULL);
	b = I(&g, "b");
	refused(&g, BLUE, "order b advance\nmove b1 B1\nmove b3 B6\n",
	    "would end out of coherency");
	/* Out of coherency now: a move that closes up is the only kind of
	 * order ("he can only issue movement orders"). */
	put(&g, "b3", "B7");
	refused(&g, BLUE, "order b engage\nfire b1 ff 3 r1\nfire b1 hw 1 r1 "
	    "ap\n", "out of coherency");
	/* The exception: every mover ends nearer its mates; a die of 1
	 * (11 cm: 5 hexes) brings b3 back next to b2. */
	enact(&g, BLUE, "order b advance\nmove b3 B4\n", die, 1, &d, &ev);
	assert_string_equal(at(&g, "b3"), "B4");
	assert_true(plt_coherent(&g, b));
	assert_false(g.units[b].flags & PLT_F_SUPP);
	dice_free(&d);
	events_free(&ev);
	/* A lake in the way: b3 stops short; it moved nearer, so the
	 * terrain exception holds and it is not suppressed. */
	put(&g, "b3", "B9");
	terrain(&g, "B5", "lake", 0);
	terrain(&g, "A5", "lake", 0);
	terrain(&g, "C5", "lake", 0);
	terrain(&g, "C6", "lake", 0);
	terrain(&g, "A6", "lake", 0);
	enact(&g, BLUE, "order b advance\nmove b3 B4\n", die, 1, &d, &ev);
	assert_false(plt_coherent(&g, b));
	assert_false(g.units[b].flags & PLT_F_SUPP);
	assert_true(fx_event_has(&ev, "closed up as the terrain allowed"));
	dice_free(&d);
	events_free(&ev);
	/* A casualty leaves a gap: failing to restore coherency with an
	 * order that does not close up suppresses. */
	put(&g, "b3", "B12");
	{
		static const int none[] = { 0 };

		enact(&g, BLUE, "order b reform\n", none, 0, &d, &ev);
	}
	assert_true(g.units[b].flags & PLT_F_SUPP);
	assert_true(fx_event_has(&ev, "out of coherency: it is suppressed"));
	dice_free(&d);
	events_free(&ev);
	/* Removing the order marker ('none') does not excuse it either. */
	g.units[b].flags = 0;
	{
		static const int none[] = { 0 };

		enact(&g, BLUE, "order b none\n", none, 0, &d, &ev);
	}
	assert_true(g.units[b].flags & PLT_F_SUPP);
	done(&d, &ev, &g);
}

/* 1.1: range 100 cm, area terrain 1 cm in and out, hills, squads. */
static void
t_los(void **state)
{
	struct game g;
	struct hex e1, e6;

	(void)state;
	new_game(&g, NULL, NULL);
	e1 = fx_hex(&g, "E1");
	e6 = fx_hex(&g, "E6");
	assert_true(plt_los(&g, BLUE, e1, e6));
	terrain(&g, "E3", "lightwoods", 0);     /* a wood between: blocked */
	assert_false(plt_los(&g, BLUE, e1, e6));
	/* Into the first hex of a wood: seen; one hex deeper: not. */
	terrain(&g, "E3", "open", 0);
	terrain(&g, "E6", "heavywoods", 0);
	terrain(&g, "E7", "heavywoods", 0);
	assert_true(plt_los(&g, BLUE, e1, e6));
	assert_false(plt_los(&g, BLUE, e1, fx_hex(&g, "E7")));
	/* ... and out of it the same way. */
	assert_true(plt_los(&g, BLUE, e6, e1));
	assert_false(plt_los(&g, BLUE, fx_hex(&g, "E7"), e1));
	/* Higher ground sees over lower elements, also a wood. */
	terrain(&g, "E1", "open", 1);
	assert_true(plt_los(&g, BLUE, e1, fx_hex(&g, "E7")));
	/* A hill between two lower squads blocks. */
	terrain(&g, "E1", "open", 0);
	terrain(&g, "E6", "open", 0);
	terrain(&g, "E7", "open", 0);
	terrain(&g, "E4", "open", 1);
	assert_false(plt_los(&g, BLUE, e1, e6));
	terrain(&g, "E4", "open", 0);
	/* Through friendly squads, not through enemy ones. */
	put(&g, "b1", "E3");
	assert_true(plt_los(&g, BLUE, e1, e6));
	assert_false(plt_los(&g, RED, e1, e6));
	game_free(&g);
	/* 100 cm: 50 hexes; 51 is out of sight. */
	column_game(&g, 60, "rifle");
	assert_true(plt_los(&g, BLUE, fx_hex(&g, "A1"), fx_hex(&g, "A51")));
	assert_false(plt_los(&g, BLUE, fx_hex(&g, "A1"), fx_hex(&g, "A52")));
	game_free(&g);
}

/* 1.2: 1D10 each, ties re-rolled among the tied sides. */
static void
t_initiative(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int script[] = { 5, 5, 3, 2, 7 };
	static const int ties[] = { 4, 4, 4, 6, 6, 1, 2, 9 };
	int order[GAME_MAX_SIDES];

	(void)state;
	new_game(&g, NULL, NULL);
	dice_init_scripted(&d, script, 5);
	events_init(&ev);
	plt_initiative(&g, &d, &ev, order);
	assert_int_equal(d.nlog, 5);
	assert_int_equal(order[0], RED);
	assert_int_equal(order[1], BLUE);
	assert_int_equal(order[2], GREEN);
	dice_free(&d);
	events_free(&ev);
	/* All three tie, then two tie again. */
	dice_init_scripted(&d, ties, 8);
	events_init(&ev);
	plt_initiative(&g, &d, &ev, order);
	assert_false(d.script_exhausted);
	assert_int_equal(d.nlog, 8);
	assert_int_equal(order[0], RED);
	assert_int_equal(order[1], BLUE);
	assert_int_equal(order[2], GREEN);
	done(&d, &ev, &g);
}

/* 1.2: the lists interleave one order at a time in initiative order; a
 * side out of orders waits. */
static void
t_interleave(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	struct hp_error err = { 0, "" };
	struct window_spec w;
	char *raw[GAME_MAX_SIDES] = { 0 };
	/* Initiative red 9, blue 5, green 1; then no roll is needed: the
	 * orders are 'none'. */
	static const int script[] = { 5, 9, 1 };
	size_t k, first_b = 0, first_r = 0, second_b = 0;

	(void)state;
	new_game(&g, NULL, NULL);
	assert_true(plt_next_window(&g, &w));
	assert_int_equal(w.sides, 7);
	raw[BLUE] = fx_orders(&g, "orders", "blue", "order bx none\n"
	    "order bh none\n");
	raw[RED] = fx_orders(&g, "orders", "red", "order rx none\n");
	raw[GREEN] = fx_orders(&g, "orders", "green", "");
	dice_init_scripted(&d, script, 3);
	events_init(&ev);
	assert_int_equal(window_resolve(&g, &w,
	    (const char *const *)raw, &d, &ev, &err), HP_OK);
	for (k = 0; k < ev.n; k++) {
		if (strstr(ev.v[k].text, "reveals bx") && !first_b)
			first_b = k;
		if (strstr(ev.v[k].text, "reveals rx"))
			first_r = k;
		if (strstr(ev.v[k].text, "reveals bh"))
			second_b = k;
	}
	assert_true(first_r > 0 && first_r < first_b && first_b < second_b);
	assert_int_equal(g.turn, 2);
	for (k = 0; k < GAME_MAX_SIDES; k++)
		free(raw[k]);
	done(&d, &ev, &g);
}

/* 1.4: movement stat + 1D10; rough half; obstacles; impassable. */
static void
t_move_terrain(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int die1[] = { 1 };
	struct game_hex *gh;

	(void)state;
	new_game(&g, NULL, NULL);
	/* Costs. */
	assert_int_equal(plt_step_cost(&g, fx_hex(&g, "E1"), fx_hex(&g, "E2")),
	    2);
	terrain(&g, "E2", "rough", 0);
	assert_int_equal(plt_step_cost(&g, fx_hex(&g, "E1"), fx_hex(&g, "E2")),
	    4);
	terrain(&g, "E2", "lake", 0);
	assert_int_equal(plt_step_cost(&g, fx_hex(&g, "E1"), fx_hex(&g, "E2")),
	    -1);
	terrain(&g, "E2", "open", 0);
	gh = game_hex_at(&g, fx_hex(&g, "E1"));
	gh->edge[5] = PLT_E_HEDGE;      /* s of E1 */
	assert_int_equal(plt_step_cost(&g, fx_hex(&g, "E1"), fx_hex(&g, "E2")),
	    3);
	gh->edge[5] = PLT_E_BOCAGE;
	assert_int_equal(plt_step_cost(&g, fx_hex(&g, "E1"), fx_hex(&g, "E2")),
	    5);
	gh->edge[5] = 0;
	/* 10 + 1 = 11 cm: five open hexes (10 cm), not six. */
	put(&g, "bx1", "E1");
	enact(&g, BLUE, "order bx advance\nmove bx1 E9\n", die1, 1, &d, &ev);
	assert_string_equal(at(&g, "bx1"), "E6");
	assert_true(fx_event_has(&ev, "stopping short"));
	dice_free(&d);
	events_free(&ev);
	/* Rough costs double: 11 cm is two rough hexes (8) and one open. */
	put(&g, "bx1", "E1");
	terrain(&g, "E2", "rough", 0);
	terrain(&g, "E3", "rough", 0);
	enact(&g, BLUE, "order bx advance\nmove bx1 E2 E3 E9\n", die1, 1, &d,
	    &ev);
	assert_string_equal(at(&g, "bx1"), "E4");
	/* A move into an impassable hex is refused when written. */
	terrain(&g, "E9", "lake", 0);
	refused(&g, BLUE, "order bx advance\nmove bx1 E9\n", "impassable");
	done(&d, &ev, &g);
}

/* Road +5 cm when the whole move is on road; Fall Back +5 cm towards the
 * home edge only. */
static void
t_road_fallback(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int die1[] = { 1 };
	int r;

	(void)state;
	new_game(&g, NULL, NULL);
	for (r = 1; r <= 16; r++) {
		char l[8];

		snprintf(l, sizeof l, "E%d", r);
		terrain(&g, l, "open+road", 0);
	}
	put(&g, "bx1", "E1");
	/* 11 + 5 = 16 cm: eight hexes along the road. */
	enact(&g, BLUE, "order bx advance\nmove bx1 E12\n", die1, 1, &d, &ev);
	assert_string_equal(at(&g, "bx1"), "E9");
	dice_free(&d);
	events_free(&ev);
	/* Off the road at the end: no bonus, five hexes. */
	put(&g, "bx1", "E1");
	terrain(&g, "E5", "open", 0);
	enact(&g, BLUE, "order bx advance\nmove bx1 E12\n", die1, 1, &d, &ev);
	assert_string_equal(at(&g, "bx1"), "E6");
	dice_free(&d);
	events_free(&ev);
	/* Fall back (home west): 11 + 5 = 16 cm, eight hexes west. */
	put(&g, "bx1", "K8");
	enact(&g, BLUE, "order bx fallback\nmove bx1 A8\n", die1, 1, &d, &ev);
	assert_int_equal(at(&g, "bx1")[0], 'C');
	assert_true(fx_event_has(&ev, "+ 5 (Fall Back)"));
	refused(&g, BLUE, "order bx fallback\nmove bx1 P8\n",
	    "leads away from your home edge");
	done(&d, &ev, &g);
}

/* 1.4.1 Move, Move, Move: + 1D10 cm, armour - 1, reduced fire. */
static void
t_mmm(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* move 1, mmm 10: 21 cm = 10 hexes; fire 1 die (reduced) needs 7
	 * at 4 hexes (8 cm: short, -2 = 5): roll 5 hits; rx1 saves on 9. */
	static const int script[] = { 1, 10, 5, 2, 1 };

	(void)state;
	new_game(&g, NULL, NULL);
	refused(&g, BLUE, "order bx advance mmm\nmove bx1 B1\n",
	    "needs the campaign option move-move-move");
	game_free(&g);
	new_game(&g, "move-move-move", NULL);
	put(&g, "bx1", "E1");
	put(&g, "rx1", "E15");
	refused(&g, BLUE, "order bx advance mmm\nfire bx1 ff 3 rx1\n",
	    "has 1 Firefight point");
	refused(&g, BLUE, "order bx advance mmm\n", "MUST move");
	enact(&g, BLUE, "order bx advance mmm\nmove bx1 E14\n"
	    "fire bx1 ff 1 rx1\n", script, 5, &d, &ev);
	assert_string_equal(at(&g, "bx1"), "E11");
	assert_int_equal(d.log[2].target, 5);
	assert_int_equal(d.log[3].target, 9);     /* rx1 saves on 9 */
	assert_int_equal(g.units[I(&g, "rx1")].strength, 1);
	/* bx's armour is 1 this turn: a hit on it saves on 10. */
	assert_true(g.units[I(&g, "bx")].flags & PLT_F_MMM);
	done(&d, &ev, &g);
}

/* 1.5.1, 1.5.2: Base Seven and every range and order modifier. */
static void
t_fire_mods(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* Engage at 8 cm: Firefight 7 - 2 (short) - 1 (engage) = 4, Heavy
	 * Weapon 7 - 2 (< 12 cm) = 5; two hits (4, 10), saves 9 and 2:
	 * one unsaved, rx1 reduced; morale (MCP 0): 5 + 1 = 6, rolls 6. */
	static const int engage[] = { 4, 3, 10, 4, 9, 2, 6 };
	/* Advance, no move, 24 cm: Firefight long 7 + 2 = 9; Heavy Weapon
	 * 7 (normal). */
	static const int longr[] = { 1, 1, 1, 1 };
	static const int hw[] = { 1, 1 };

	(void)state;
	new_game(&g, NULL, NULL);
	put(&g, "bx1", "E1");
	put(&g, "rx1", "E5");
	enact(&g, BLUE, "order bx engage\nfire bx1 ff 3 rx1\n"
	    "fire bx1 hw 1 rx1 ap\n", engage, 7, &d, &ev);
	assert_int_equal(d.log[0].target, 4);
	assert_int_equal(d.log[3].target, 5);
	assert_int_equal(d.log[4].target, 9);
	assert_int_equal(g.units[I(&g, "rx1")].strength, 1);
	assert_int_equal(d.log[6].target, 6);
	assert_false(g.units[I(&g, "rx")].flags & PLT_F_SUPP);
	dice_free(&d);
	events_free(&ev);
	put(&g, "rx1", "E13");
	enact(&g, BLUE, "order bx advance\nfire bx1 ff 3 rx1\n"
	    "fire bx1 hw 1 rx1\n", longr, 4, &d, &ev);
	assert_int_equal(d.log[0].target, 9);
	assert_int_equal(d.log[3].target, 7);
	dice_free(&d);
	events_free(&ev);
	/* Heavy Weapon: long range > 40 cm (+1); short < 12 cm (-2) but
	 * not at 12 cm; the table's 20 cm with var hw.short.cm 20. */
	put(&g, "bh1", "F1");
	put(&g, "rx1", "F16");     /* 30 cm */
	enact(&g, BLUE, "order bh advance\nfire bh1 hw 1 rx1\n", hw, 1, &d,
	    &ev);
	assert_int_equal(d.log[0].target, 7);
	dice_free(&d);
	events_free(&ev);
	put(&g, "rx1", "F7");      /* 12 cm */
	enact(&g, BLUE, "order bh advance\nfire bh1 hw 1 rx1\n", hw, 1, &d,
	    &ev);
	assert_int_equal(d.log[0].target, 7);
	dice_free(&d);
	events_free(&ev);
	game_set_var(&g, "hw.short.cm", 20);
	enact(&g, BLUE, "order bh advance\nfire bh1 hw 1 rx1\n", hw, 1, &d,
	    &ev);
	assert_int_equal(d.log[0].target, 5);
	dice_free(&d);
	events_free(&ev);
	game_free(&g);
	/* 42 cm: long Heavy Weapon range (+1); Firefight out of range. */
	column_game(&g, 22, "heavy");
	enact(&g, BLUE, "order b advance\nfire b1 hw 2 r1\nfire b1 ff 2 r1\n",
	    hw, 2, &d, &ev);
	assert_int_equal(d.log[0].target, 8);
	assert_true(fx_event_has(&ev, "b1 cannot fire at r1"));
	done(&d, &ev, &g);
}

/* Splitting points among targets; never more than the profile; Engage
 * must use them all; AV mode has no target. */
static void
t_split(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int script[] = { 1, 1, 1, 1, 1, 1 };

	(void)state;
	new_game(&g, NULL, NULL);
	put(&g, "b1", "E1");
	put(&g, "b2", "E2");
	put(&g, "b3", "E3");
	put(&g, "r1", "J1");
	put(&g, "r2", "J2");
	put(&g, "r3", "J3");
	refused(&g, BLUE, "order b advance\nfire b1 ff 2 r1\nfire b1 ff 2 r2\n",
	    "squad b1 has 3 Firefight points under this order, and this line "
	    "makes 4");
	refused(&g, BLUE, "order b engage\nfire b1 ff 3 r1\n",
	    "must fire all");
	refused(&g, BLUE, "order b advance\nfire b3 hw 1 r1 av\n",
	    "anti-vehicle fire needs a vehicle");
	enact(&g, BLUE, "order b advance\nfire b1 ff 1 r1\nfire b1 ff 1 r2\n"
	    "fire b1 ff 1 r3\nfire b3 hw 2 r2 ap\nfire b3 ff 1 r3\n", script, 6,
	    &d, &ev);
	assert_non_null(strstr(d.log[0].purpose, "b1 at r1"));
	assert_non_null(strstr(d.log[1].purpose, "b1 at r2"));
	assert_non_null(strstr(d.log[2].purpose, "b1 at r3"));
	assert_non_null(strstr(d.log[3].purpose, "heavy weapon b3 at r2"));
	done(&d, &ev, &g);
}

/* 1.5.3: saves 11 - (armour + cover), the cover table, obstacles facing
 * the firer. */
static void
t_saves_cover(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* One hit (10), save needs 11 - (2 + 4) = 5. */
	static const int script[] = { 10, 5 };
	struct game_hex *gh;

	(void)state;
	new_game(&g, NULL, NULL);
	put(&g, "bx1", "E1");
	put(&g, "rx1", "E5");
	terrain(&g, "E5", "urban", 0);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 4);
	enact(&g, BLUE, "order bx advance\nfire bx1 ff 1 rx1\n", script, 2,
	    &d, &ev);
	assert_int_equal(d.log[1].target, 5);
	assert_int_equal(g.units[I(&g, "rx1")].strength, 2);
	/* Cover of every kind. */
	terrain(&g, "E5", "scrub", 0);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 1);
	terrain(&g, "E5", "lightwoods", 0);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 2);
	terrain(&g, "E5", "sandbags", 0);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 3);
	terrain(&g, "E5", "fortified", 0);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 5);
	terrain(&g, "E5", "bunker", 0);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 6);
	terrain(&g, "E5", "trench", 0);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 4);
	/* A high wall on the side facing the firer (n of E5): 3; from the
	 * other side it gives nothing. */
	terrain(&g, "E5", "open", 0);
	gh = game_hex_at(&g, fx_hex(&g, "E5"));
	gh->edge[2] = PLT_E_HIGHWALL;
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 3);
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E9")), 0);
	gh->edge[2] = PLT_E_HEDGE;
	assert_int_equal(plt_cover(&g, fx_hex(&g, "E5"), fx_hex(&g, "E1")), 1);
	done(&d, &ev, &g);
}

/* 1.5.4: one unsaved hit reduces (values after the slash), a second
 * removes. */
static void
t_reduced_removed(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* Three hits; saves 1, 1: reduced then removed; the third is lost.
	 * Morale of rx (MCP 0): 1 lost > 0, needs 6, rolls 1: suppressed
	 * (but it has no squads). */
	static const int script[] = { 10, 10, 10, 1, 1 };
	int r;

	(void)state;
	new_game(&g, NULL, NULL);
	put(&g, "bx1", "E1");
	put(&g, "rx1", "E5");
	enact(&g, BLUE, "order bx advance\nfire bx1 ff 3 rx1\n", script, 5,
	    &d, &ev);
	r = I(&g, "rx1");
	assert_int_equal(g.units[r].strength, 0);
	assert_false(plt_alive(&g, r));
	assert_true(fx_event_has(&ev, "it is reduced"));
	assert_true(fx_event_has(&ev, "it is removed"));
	assert_true(fx_event_has(&ev, "already removed"));
	assert_int_equal(plt_score(&g, BLUE), 2);
	dice_free(&d);
	events_free(&ev);
	/* A reduced squad fires its reduced values: 1 Firefight, 0 HW. */
	g.units[I(&g, "bx1")].strength = 1;
	assert_int_equal(plt_points(&g, I(&g, "bx1"), 0, PLT_O_ADVANCE,
	    false), 1);
	assert_int_equal(plt_points(&g, I(&g, "bx1"), 1, PLT_O_ADVANCE,
	    false), 0);
	assert_int_equal(plt_points(&g, I(&g, "bx1"), 2, PLT_O_ADVANCE,
	    false), 1);
	/* Assault and Fall Back fire at the reduced rating. */
	assert_int_equal(plt_points(&g, I(&g, "b1"), 0, PLT_O_FALLBACK,
	    false), 1);
	assert_int_equal(plt_points(&g, I(&g, "b1"), 0, PLT_O_ADVANCE,
	    false), 3);
	done(&d, &ev, &g);
}

/* 1.5.4 Recovery/Reforming: 5 + D5 cm, one squad recovers, the others
 * check Base Seven with the MCP, cover and suppression modifiers. */
static void
t_reform(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* D5 = 1 (6 cm: 3 hexes); b1 recovers at once; b2's check: 7, + 0
	 * over MCP (1 reduced, MCP 1), suppressed +1 = 8: rolls 9, recovers;
	 * the rally (8) rolls 9. */
	static const int script[] = { 1, 9, 9 };
	int b;

	(void)state;
	new_game(&g, NULL, NULL);
	b = I(&g, "b");
	g.units[I(&g, "b1")].strength = 1;
	g.units[I(&g, "b2")].strength = 1;
	g.units[b].flags |= PLT_F_SUPP;
	refused(&g, BLUE, "order b reform b3\n", "not a reduced squad");
	refused(&g, BLUE, "order b reform b1\nfire b2 ff 1 r1\n",
	    "may not fire");
	refused(&g, BLUE, "order b advance\n", "suppressed");
	enact(&g, BLUE, "order b reform b1\nmove b1 A1\nmove b2 A2\n"
	    "move b3 A3\n", script, 3, &d, &ev);
	assert_int_equal(g.units[I(&g, "b1")].strength, 2);
	assert_int_equal(g.units[I(&g, "b2")].strength, 2);
	assert_int_equal(d.log[0].sides, 5);
	assert_int_equal(d.log[1].target, 8);
	assert_false(g.units[b].flags & PLT_F_SUPP);
	assert_string_equal(at(&g, "b1"), "A1");
	dice_free(&d);
	events_free(&ev);
	/* Cover: the whole platoon in cover -2. */
	g.units[I(&g, "b2")].strength = 1;
	terrain(&g, "A1", "scrub", 0);
	terrain(&g, "A2", "scrub", 0);
	terrain(&g, "A3", "scrub", 0);
	{
		static const int s2[] = { 6 };

		enact(&g, BLUE, "order b reform\n", s2, 1, &d, &ev);
		/* 7 + 0 (1 reduced, MCP 1) - 2 = 5 */
		assert_int_equal(d.log[0].target, 5);
	}
	done(&d, &ev, &g);
}

/* 1.3 Assault and 1.6 close combat: the move into contact, Base Five,
 * elan, the defender's cover, both sides allocating. */
static void
t_close_combat(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* move 10 (20 cm); b1 attacks with 2 at r1 (needs 4), r1 defends
	 * with 2 at b1 (in cover vs one outside: needs 4). Rolls: 4 3 | 4 1.
	 * Saves: r1 in cover but b1 outside: 11-(2+4)=5 rolls 1: reduced;
	 * b1: 9, rolls 1: reduced. Morale b (MCP 0): 5+1 = 6: 6 passes;
	 * r (MCP 0): 6: 1 fails. */
	static const int script[] = { 10, 4, 3, 4, 1, 1, 1, 6, 1 };
	struct sbuf t;

	(void)state;
	sbuf_init(&t);
	sbuf_puts(&t, "ruleset: platoon\nname: cc\nmap: 6 14\nlegend: . open\n"
	    "legend: U urban\n");
	sbuf_puts(&t, "terrain: ......\nterrain: ......\nterrain: ......\n"
	    "terrain: ......\nterrain: ......\nterrain: ......\n"
	    "terrain: ......\nterrain: ......\nterrain: ..U...\n"
	    "terrain: ......\nterrain: ......\nterrain: ......\n"
	    "terrain: ......\nterrain: ......\n"
	    "side: blue B\nside: red R\noption: home blue north\n"
	    "option: home red south\n"
	    "unit: b platoon blue -\nunit: b1 rifle blue C1 - - b\n"
	    "unit: r platoon red -\nunit: r1 rifle red C9 - - r\n");
	new_game(&g, NULL, t.buf);
	/* No move line under an assault; the enemy must be in reach. */
	refused(&g, BLUE, "order b assault\nmove b1 C5\n", "no 'move' lines");
	put(&g, "r1", "C14");
	terrain(&g, "C9", "open", 0);
	refused(&g, BLUE, "order b assault\n", "out of reach");
	terrain(&g, "C9", "urban", 0);
	put(&g, "r1", "C9");
	enact(&g, BLUE, "order b assault\ncc b1 2 r1\n", script, 9, &d, &ev);
	assert_string_equal(at(&g, "b1"), "C8");
	assert_int_equal(d.log[1].target, 4);
	assert_int_equal(d.log[3].target, 4);
	assert_int_equal(d.log[5].target, 5);
	assert_int_equal(d.log[6].target, 9);
	assert_int_equal(g.units[I(&g, "r1")].strength, 1);
	assert_int_equal(g.units[I(&g, "b1")].strength, 1);
	assert_false(g.units[I(&g, "b")].flags & PLT_F_SUPP);
	assert_true(g.units[I(&g, "r")].flags & PLT_F_SUPP);
	dice_free(&d);
	events_free(&ev);
	/* Both inside cover: no-one benefits (defender needs 5, saves 9). */
	terrain(&g, "C8", "urban", 0);
	g.units[I(&g, "r")].flags = 0;
	{
		/* No move die: already in contact, but the allowance is still
		 * rolled. b1 (reduced) 1 die needs 4; r1 (reduced) 1 needs 5;
		 * both hit, saves 9 and 9. */
		static const int s2[] = { 3, 4, 5, 9, 9 };

		enact(&g, BLUE, "order b assault\n", s2, 5, &d, &ev);
		assert_int_equal(d.log[1].target, 4);
		assert_int_equal(d.log[2].target, 5);
		assert_int_equal(d.log[3].target, 9);
		assert_int_equal(d.log[4].target, 9);
	}
	sbuf_free(&t);
	done(&d, &ev, &g);
}

/* Only an assault ends in contact: other moves stop short. */
static void
t_no_contact(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int die[] = { 10 };

	(void)state;
	new_game(&g, NULL, NULL);
	put(&g, "bx1", "E1");
	put(&g, "rx1", "E8");
	enact(&g, BLUE, "order bx advance\nmove bx1 E7\n", die, 1, &d, &ev);
	assert_string_equal(at(&g, "bx1"), "E6");
	done(&d, &ev, &g);
}

/* 1.7: the Morale Check Point and the check; suppression. */
static void
t_morale(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* r: 3 squads, MCP 1. r1 already reduced; a hit on r2 unsaved: 2
	 * reduced > 1: check 5 + 1 = 6, all in cover -2 = 4: rolls 3,
	 * fails. */
	static const int script[] = { 10, 1, 3 };
	int r;

	(void)state;
	new_game(&g, NULL, NULL);
	r = I(&g, "r");
	assert_int_equal(plt_mcp(&g, r), 1);
	g.units[I(&g, "r1")].strength = 1;
	g.units[r].x[PLT_X_BAD] = 1;
	terrain(&g, "O2", "scrub", 0);
	terrain(&g, "O3", "scrub", 0);
	terrain(&g, "O4", "scrub", 0);
	put(&g, "bx1", "K3");
	enact(&g, BLUE, "order bx advance\nfire bx1 ff 1 r2\n", script, 3, &d,
	    &ev);
	assert_int_equal(d.log[2].target, 4);
	assert_true(g.units[r].flags & PLT_F_SUPP);
	dice_free(&d);
	events_free(&ev);
	/* Half in cover: -1. */
	terrain(&g, "O2", "open", 0);
	terrain(&g, "O3", "open", 0);
	g.units[r].flags = 0;
	{
		static const int s2[] = { 10, 1, 9 };

		enact(&g, BLUE, "order bx advance\nfire bx1 ff 1 r3\n", s2, 3,
		    &d, &ev);
		/* 3 reduced, MCP 1: 5 + 2; one of three in cover: no bonus
		 * (less than half). */
		assert_int_equal(d.log[2].target, 7);
		assert_false(g.units[r].flags & PLT_F_SUPP);
	}
	assert_int_equal(plt_cover_level(&g, r), 0);
	terrain(&g, "O2", "scrub", 0);
	assert_int_equal(plt_cover_level(&g, r), 1);
	done(&d, &ev, &g);
}

/* 1.7.2: a suppressed platoon cannot advance, only moves towards its
 * edge, and stays put in cover out of Firefight range. */
static void
t_suppressed(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int die[] = { 1 };
	int bx;

	(void)state;
	new_game(&g, NULL, NULL);
	bx = I(&g, "bx");
	g.units[bx].flags |= PLT_F_SUPP;
	put(&g, "bx1", "H8");
	refused(&g, BLUE, "order bx advance\n", "suppressed");
	refused(&g, BLUE, "order bx assault\n", "suppressed");
	refused(&g, BLUE, "order bx reform\nmove bx1 J8\n",
	    "leads away from your home edge");
	enact(&g, BLUE, "order bx reform\nmove bx1 G8\n", (const int[]){ 1, 1 },
	    2, &d, &ev);
	assert_string_equal(at(&g, "bx1"), "G8");
	dice_free(&d);
	events_free(&ev);
	g.units[bx].flags |= PLT_F_SUPP;
	/* In cover, every enemy over 20 cm away: it stays put. */
	put(&g, "bx1", "E16");
	terrain(&g, "E16", "scrub", 0);
	put(&g, "r1", "P1");
	put(&g, "r2", "P2");
	put(&g, "r3", "P3");
	put(&g, "g1", "P5");
	put(&g, "rx1", "P16");
	refused(&g, BLUE, "order bx fallback\nmove bx1 C16\n",
	    "will not leave its position");
	/* Within 20 cm of an enemy it may fall back. */
	put(&g, "rx1", "K16");
	enact(&g, BLUE, "order bx fallback\nmove bx1 C16\n", die, 1, &d,
	    &ev);
	assert_string_equal(at(&g, "bx1"), "C16");
	done(&d, &ev, &g);
}

/* Parse errors name their lines and say what was expected. */
static void
t_parse_errors(void **state)
{
	struct game g;

	(void)state;
	new_game(&g, NULL, NULL);
	refused(&g, BLUE, "order r1 advance\n", "line 5: no platoon 'r1'");
	refused(&g, BLUE, "order r advance\n", "platoon r is not yours");
	refused(&g, BLUE, "order b charge\n", "no order 'charge'");
	refused(&g, BLUE, "order b advance\norder b engage\n",
	    "line 6: platoon b already has an order on line 5");
	refused(&g, BLUE, "move b1 C2\n", "has no order line");
	refused(&g, BLUE, "order b advance\nmove b1 Z99\n",
	    "expected a hex of the map");
	refused(&g, BLUE, "order b advance\nfire b1 zz 1 r1\n",
	    "expected 'fire SQUAD ff|hw DICE TARGET [ap|av]'");
	refused(&g, BLUE, "order b advance\nfire b1 ff 1 b2\n",
	    "no enemy squad 'b2'");
	refused(&g, BLUE, "order b engage\nmove b1 C2\n", "no 'move' lines");
	refused(&g, BLUE, "order b advance\ncc b1 1 r1\n",
	    "close combat comes only with an assault");
	refused(&g, BLUE, "defend bravely\n", "expected 'defend even|weakest|"
	    "strongest'");
	refused(&g, BLUE, "hold\n", "unknown order 'hold'");
	refused(&g, BLUE, "order b advance\nmove b1 B1\nmove b1 B1\n",
	    "already moves");
	refused(&g, BLUE, "order b advance\nmove b1 C3\nmove b2 C3\n",
	    "would end in the same hex");
	game_free(&g);
}

/* No order: nothing happens; with the option, one platoon advances and
 * fires at the nearest. */
static void
t_no_order_advance(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	struct hp_error err = { 0, "" };
	struct window_spec w;
	char *raw[GAME_MAX_SIDES] = { 0 };
	/* initiative 9 1 2 (blue first); blue's first platoon without an
	 * order, b, fires every point at the nearest: b1 3+1, b2 3+1, b3
	 * 2+2 dice, all 1 (misses). */
	static const int script[] = { 9, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1 };

	(void)state;
	new_game(&g, "no-order-advance", NULL);
	put(&g, "r1", "D2");
	put(&g, "r2", "D3");
	put(&g, "r3", "D4");
	assert_true(plt_next_window(&g, &w));
	raw[BLUE] = fx_orders(&g, "orders", "blue", "order bx none\n"
	    "order bh none\n");
	raw[RED] = fx_orders(&g, "orders", "red", "order r none\n"
	    "order rx none\n");
	raw[GREEN] = fx_orders(&g, "orders", "green", "order g none\n");
	dice_init_scripted(&d, script, 15);
	events_init(&ev);
	assert_int_equal(window_resolve(&g, &w,
	    (const char *const *)raw, &d, &ev, &err), HP_OK);
	if (d.nlog != 15)
		dump(&d, &ev);
	assert_int_equal(d.nlog, 15);
	assert_true(fx_event_has(&ev, "blue reveals b: advance"));
	free(raw[BLUE]);
	free(raw[RED]);
	free(raw[GREEN]);
	done(&d, &ev, &g);
}

/* The end: at the turn limit the higher score wins; one side left. */
static void
t_victory(void **state)
{
	struct game g;
	struct events ev;

	(void)state;
	new_game(&g, "turns=3", NULL);
	assert_int_equal(game_var(&g, "turns", 0), 3);
	events_init(&ev);
	g.units[I(&g, "r1")].strength = 0;
	g.units[I(&g, "r1")].placed = false;
	g.units[I(&g, "r1")].x[PLT_X_KILLER] = BLUE + 1;
	game_set_var(&g, "over", 3);
	plt_victory(&g, &ev);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_non_null(strstr(g.result, "blue wins"));
	assert_non_null(strstr(g.result, "blue 2, red 0, green 0"));
	events_free(&ev);
	game_free(&g);
}

/* The built-in opponent's orders always parse, for every side, turn after
 * turn, and whole games end: both shipped scenarios. */
static void
t_opponent_games(void **state)
{
	static const char *const scen[] = { "outpost", "three-way" };
	size_t k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct game g;
		struct hp_error err = { 0, "" };
		unsigned char key[32];
		int turns = 0, s;

		game_init(&g);
		g.rules = ruleset_find("platoon");
		strlcpy_(g.name, "ai", sizeof g.name);
		assert_int_equal(ruleset_setup(&g, scen[k], NULL, NULL, NULL,
		    &err), HP_OK);
		memset(key, (int)k + 1, sizeof key);
		while (g.status != GAME_FINISHED && turns < 40) {
			struct window_spec w;
			char *raw[GAME_MAX_SIDES] = { 0 };
			struct dice d;
			struct events ev;

			assert_true(plt_next_window(&g, &w));
			for (s = 0; s < g.nsides; s++) {
				struct sbuf b;
				struct plt_orders *o;
				char *msg;

				sbuf_init(&b);
				plt_opponent(&g, &w, s, &b);
				if (parse(&g, s, b.buf, &o, &msg) != HP_OK)
					fprintf(stderr, "%s\n%s", b.buf, msg);
				assert_non_null(o);
				plt_free_orders(o);
				free(msg);
				raw[s] = fx_orders(&g, "orders",
				    g.sides[s].name, b.buf);
				sbuf_free(&b);
			}
			key[0] = (unsigned char)turns;
			dice_init_stream(&d, key);
			events_init(&ev);
			assert_int_equal(window_resolve(&g, &w,
			    (const char *const *)raw, &d, &ev, &err), HP_OK);
			for (s = 0; s < GAME_MAX_SIDES; s++)
				free(raw[s]);
			dice_free(&d);
			events_free(&ev);
			turns++;
		}
		assert_int_equal(g.status, GAME_FINISHED);
		assert_true(g.result[0] != '\0');
		game_free(&g);
	}
}


/* Resume the stopped resolution res with side's answer body in the open
 * reveal window (*w, advanced to the next window after it) and the n
 * scripted dice; *stop says how it ended. */
static void
answer(struct game *g, struct window_spec *w, struct window_resume *res,
    int side, const char *body, const int *script, size_t n,
    struct window_stop *stop, struct events *ev)
{
	struct hp_error err = { 0, "" };
	char *raw[GAME_MAX_SIDES] = { 0 };
	struct dice d;
	bool more;

	assert_int_equal(w->kind, WINDOW_DECISION);
	assert_string_equal(w->name, "reveal");
	assert_int_equal(w->sides, 1u << side);
	raw[side] = fx_orders(g, "reveal", g->sides[side].name, body);
	dice_init_scripted(&d, script, n);
	events_init(ev);
	if (window_resolve_resume(g, w, (const char *const *)raw, NULL, res,
	    stop, &d, ev, &err) != HP_OK)
		fprintf(stderr, "resume: %s\n", err.msg);
	assert_int_equal(err.code, 0);
	if (d.nlog != n || d.script_exhausted)
		dump(&d, ev);
	assert_int_equal(d.nlog, n);
	if (stop->step >= 0)
		res->step = stop->step;
	assert_int_equal(window_advance(g, stop, w, &more, &err), HP_OK);
	free(raw[side]);
	dice_free(&d);
}

/* reveal=each: the turn's window places order markers (no move or fire
 * lines; the state's checks when placed, none when parsed again mid-turn);
 * then each side in initiative order is asked for its next reveal in a
 * decision window of its own, a side with no marker waits, "remove" takes
 * a marker off (never an assault's), nothing or "hold" reveals the first
 * marker left, and the turn ends when none is left. */
static void
t_reveal_each(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	struct hp_error err = { 0, "" };
	struct window_spec w;
	struct window_resume res;
	struct window_stop stop;
	struct plt_orders *o;
	char *raw[GAME_MAX_SIDES] = { 0 };
	bool more;
	/* initiative: blue 9, red 5, green 1. */
	static const int init[] = { 9, 5, 1 };
	/* b's engage at r (26 cm, long range): b1's 3 FF dice by its
	 * line, need 7 + 2 - 1 = 8; the rest at the nearest: b1 1 HW (7),
	 * b2 3 FF 1 HW, b3 2 FF 2 HW; all miss. */
	static const int engage[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };

	(void)state;
	new_game(&g, "reveal=each", NULL);
	assert_true(plt_each(&g));
	assert_true(plt_next_window(&g, &w));
	assert_int_equal(w.kind, WINDOW_ORDERS);
	refused(&g, BLUE, "order b advance\nmove b1 C2\n", "only places "
	    "order markers");
	refused(&g, BLUE, "order b reform b1\n", "name the reduced squad "
	    "when you reveal");
	refused(&g, RED, "order r assault\n", "cannot assault");
	assert_int_equal(parse(&g, BLUE, "order b engage\norder bx none\n"
	    "defend weakest\n", &o, NULL), HP_OK);
	assert_int_equal(o->n, 2);
	plt_free_orders(o);
	raw[BLUE] = fx_orders(&g, "orders", "blue", "order b engage\n"
	    "order bx none\ndefend weakest\n");
	raw[RED] = fx_orders(&g, "orders", "red", "order rx fallback\n"
	    "order r none\n");
	raw[GREEN] = fx_orders(&g, "orders", "green", "defend even\n");
	dice_init_scripted(&d, init, 3);
	events_init(&ev);
	assert_int_equal(window_resolve_resume(&g, &w,
	    (const char *const *)raw, NULL, NULL, &stop, &d, &ev, &err), HP_OK);
	assert_int_equal(d.nlog, 3);
	assert_int_equal(stop.ask, 1u << BLUE);
	assert_true(fx_event_has(&ev, "blue is asked for its next reveal"));
	assert_int_equal(game_var(&g, "defend.0", -1), PLT_D_WEAKEST);
	assert_int_equal(plt_marker(&g, I(&g, "b"), NULL), PLT_O_ENGAGE);
	assert_int_equal(plt_marker(&g, I(&g, "g"), NULL), -1);
	dice_free(&d);
	events_free(&ev);
	memset(&res, 0, sizeof res);
	res.step = stop.step;
	res.w = w;
	memcpy(res.prior, raw, sizeof res.prior);
	assert_int_equal(window_advance(&g, &stop, &w, &more, &err), HP_OK);
	assert_true(more);
	assert_int_equal(w.number, 2);
	assert_int_equal(w.turn, 1);
	/* Blue's answer: only blue, only its own markers. */
	refused(&g, RED, "reveal r\n", "red is not asked");
	refused(&g, BLUE, "reveal bh\n", "no order marker left");
	refused(&g, BLUE, "reveal rx\n", "not yours");
	refused(&g, BLUE, "advance b\n", "expected 'reveal PLATOON");
	/* A marker file parsed again mid-turn (the orders window's spec):
	 * no state checks; before the reveals began, the checks. */
	g.units[I(&g, "bx1")].strength = 0;
	game_set_var(&g, "rv.ask", 0);
	assert_int_equal(parse(&g, BLUE, "order bx advance\n", &o, NULL),
	    HP_OK);
	plt_free_orders(o);
	game_set_var(&g, "rv.mid", 0);
	refused(&g, BLUE, "order bx advance\n", "no squads left");
	game_set_var(&g, "rv.mid", 1);
	game_set_var(&g, "rv.ask", BLUE + 1);
	g.units[I(&g, "bx1")].strength = 2;
	answer(&g, &w, &res, BLUE, "reveal b\nfire b1 ff 3 r1\n", engage, 12,
	    &stop, &ev);
	assert_true(fx_event_has(&ev, "blue reveals b: engage"));
	assert_true(fx_event_has(&ev, "b1 (B2) fires 3 Firefight dice at r1 "
	    "(O2, 26 cm): needs 8"));
	assert_true(fx_event_has(&ev, "b3 (B4) fires 2 Heavy Weapon dice"));
	assert_true(fx_event_has(&ev, "red is asked for its next reveal"));
	assert_int_equal(stop.ask, 1u << RED);
	assert_int_equal(w.number, 3);
	events_free(&ev);
	/* Red removes its fall back; an assault marker could not be. */
	g.units[I(&g, "r")].x[PLT_X_MARK] = PLT_O_ASSAULT + 1;
	refused(&g, RED, "remove r\n", "may not be removed");
	g.units[I(&g, "r")].x[PLT_X_MARK] = PLT_O_NONE + 1;
	refused(&g, RED, "remove rx\nfire rx1 ff 1 b1\n", "no more lines");
	answer(&g, &w, &res, RED, "remove rx\n", NULL, 0, &stop, &ev);
	assert_true(fx_event_has(&ev, "red removes the order marker of rx"));
	assert_int_equal(stop.ask, 1u << BLUE);
	events_free(&ev);
	/* Blue's default answer: its first marker left, bx. */
	answer(&g, &w, &res, BLUE, "", NULL, 0, &stop, &ev);
	assert_true(fx_event_has(&ev, "blue reveals bx: none"));
	assert_int_equal(stop.ask, 1u << RED);
	events_free(&ev);
	/* Green placed no marker: it waits; red's last ends the turn. */
	answer(&g, &w, &res, RED, "hold\n", NULL, 0, &stop, &ev);
	assert_true(fx_event_has(&ev, "red reveals r: none"));
	assert_true(fx_event_has(&ev, "End of turn 1"));
	assert_int_equal(stop.step, -1);
	assert_int_equal(g.turn, 2);
	assert_int_equal(w.kind, WINDOW_ORDERS);
	assert_int_equal(w.number, 1);
	assert_int_equal(plt_marker(&g, I(&g, "b"), NULL), -1);
	assert_int_equal(game_var(&g, "rv.mid", 1), 0);
	events_free(&ev);
	free(raw[BLUE]);
	free(raw[RED]);
	free(raw[GREEN]);
	game_free(&g);
}

/* reveal=each: a Move, Move, Move marker must move, so the default
 * answer removes it; the scenario's option and the campaign's; the
 * optional no order becomes Advance as a marker; the opponent answers
 * reveals that parse, and whole
 * games of the two-side scenario end (simulate's loop; the three-way
 * one: platoon_each_game.sh). */
static void
t_reveal_each_defaults(void **state)
{
	struct game g;
	struct plt_orders *o;
	struct sim_result r;
	struct hp_error err = { 0, "" };
	struct window_spec w;
	struct window_stop stop;
	struct dice d;
	struct events ev;
	struct sbuf sc;
	char *raw[GAME_MAX_SIDES] = { 0 };
	static const int init[] = { 9, 5, 1 };

	(void)state;
	new_game(&g, "reveal=each,move-move-move", NULL);
	g.units[I(&g, "b")].x[PLT_X_MARK] = (PLT_O_ADVANCE + 1) | PLT_MARK_MMM;
	game_set_var(&g, "rv.ask", BLUE + 1);
	game_set_var(&g, "rv.mid", 1);
	assert_int_equal(parse(&g, BLUE, "", &o, NULL), HP_OK);
	assert_true(o->o[0].removed);
	plt_free_orders(o);
	refused(&g, BLUE, "reveal b\n", "MUST move");
	assert_int_equal(parse(&g, BLUE, "reveal b\nmove b1 C2\nmove b2 C3\n"
	    "move b3 C4\n", &o, NULL), HP_OK);
	assert_false(o->o[0].removed);
	assert_true(o->o[0].mmm);
	assert_int_equal(o->o[0].kind, PLT_O_ADVANCE);
	plt_free_orders(o);
	game_free(&g);
	/* A scenario's option, which the campaign's overrides. */
	sbuf_init(&sc);
	sbuf_puts(&sc, board);
	sbuf_puts(&sc, "option: reveal each\n");
	new_game(&g, NULL, sc.buf);
	assert_true(plt_each(&g));
	game_free(&g);
	new_game(&g, "reveal=list", sc.buf);
	assert_false(plt_each(&g));
	game_free(&g);
	sbuf_free(&sc);
	/* no-order-advance: the first platoon without a marker gets an
	 * Advance marker when the turn begins. */
	new_game(&g, "reveal=each,no-order-advance", NULL);
	assert_true(plt_next_window(&g, &w));
	raw[BLUE] = fx_orders(&g, "orders", "blue", "order b none\n");
	dice_init_scripted(&d, init, 3);
	events_init(&ev);
	assert_int_equal(window_resolve_resume(&g, &w,
	    (const char *const *)raw, NULL, NULL, &stop, &d, &ev, &err), HP_OK);
	assert_int_equal(d.nlog, 3);
	assert_int_equal(plt_marker(&g, I(&g, "bx"), NULL), PLT_O_ADVANCE);
	assert_int_equal(plt_marker(&g, I(&g, "bh"), NULL), -1);
	assert_true(fx_event_has(&ev, "platoon bx had no order; it advances"));
	/* Red and Green get theirs too: Blue is asked first. */
	assert_int_equal(plt_marker(&g, I(&g, "r"), NULL), PLT_O_ADVANCE);
	assert_int_equal(stop.ask, 1u << BLUE);
	free(raw[BLUE]);
	dice_free(&d);
	events_free(&ev);
	game_free(&g);
	memset(&r, 0, sizeof r);
	assert_int_equal(sim_run(ruleset_find("platoon"), "reveal=each", 3,
	    (const unsigned char *)"each", 4, &r, &err), HP_OK);
	assert_int_equal(r.games, 3);
	/* Every window after each turn's first is a reveal. */
	assert_true(r.windows > 3 * 4);
}

/* plt_reach_within (the opponent's yes-or-no reach) answers as the path
 * search does: against plt_costs_within (without contact, a platoon's
 * squads left out), plt_path (with contact) and plt_path_to_contact (the
 * goals next to an enemy, guided by its hex), from every squad of both
 * shipped scenarios to every hex, for bounds from 0 to past the map. */
static void
t_reach_within(void **state)
{
	static const char *const scen[] = { "outpost", "three-way" };
	static const int bounds[] = { 0, 2, 3, 7, 11, 13, 20, 60 };
	size_t k, b;
	int checked = 0, yes = 0;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct game g;
		struct hp_error err = { 0, "" };
		int n, i, j, e, *dist;

		game_init(&g);
		g.rules = ruleset_find("platoon");
		strlcpy_(g.name, "reach", sizeof g.name);
		assert_int_equal(ruleset_setup(&g, scen[k], NULL, NULL, NULL,
		    &err), HP_OK);
		n = g.layout.cols * g.layout.rows;
		dist = xmalloc(sizeof(int) * (size_t)n);
		if (k == 1)
			plt_cache_begin(&g); /* in a scope and out of one */
		for (i = 0; i < g.nunits; i++) {
			struct hex a = g.units[i].pos;
			int side = g.units[i].side, p = g.units[i].attached;

			if (!plt_alive(&g, i))
				continue;
			for (b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
				plt_costs_within(&g, side, a, bounds[b], p, dist);
				for (j = 0; j < n; j++) {
					bool r = plt_reach_within(&g, side, &a, 1,
					    false, &j, 1, bounds[b], p, NULL);

					assert_int_equal(r, dist[j] >= 0);
					yes += r;
					checked++;
				}
				for (j = 0; j < n; j += 5) {
					struct hex path[64], to = g.hexes[0].h;
					int cost = -1, m;

					for (m = 0; m < g.nhex; m++)
						if (plt_hex_index(&g,
						    g.hexes[m].h) == j)
							to = g.hexes[m].h;
					if (plt_hex_index(&g, to) != j)
						continue;
					plt_path(&g, side, a, to, true, path, 64,
					    &cost);
					assert_int_equal(plt_reach_within(&g,
					    side, &a, 1, true, &j, 1, bounds[b],
					    -1, NULL), cost >= 0 && cost <=
					    bounds[b]);
					checked++;
				}
				for (e = 0; e < g.nunits; e++) {
					int goal[6], ng = 0, d, len, cost;

					if (!plt_alive(&g, e) ||
					    g.units[e].side == side)
						continue;
					for (d = 0; d < 6; d++)
						if ((goal[ng] = plt_hex_index(&g,
						    hex_neighbour(g.units[e].pos,
						    d))) >= 0)
							ng++;
					cost = plt_path_to_contact(&g, side, a,
					    e, NULL, 0, &len);
					assert_int_equal(plt_reach_within(&g,
					    side, &a, 1, true, goal, ng,
					    bounds[b], -1, &g.units[e].pos),
					    cost >= 0 && cost <= bounds[b]);
					assert_int_equal(plt_reach_within(&g,
					    side, &a, 1, true, goal, ng,
					    bounds[b], -1, NULL), cost >= 0 &&
					    cost <= bounds[b]);
					checked++;
				}
			}
		}
		if (k == 1)
			plt_cache_end();
		free(dist);
		game_free(&g);
	}
	/* Both answers were given, many times. */
	assert_true(checked > 10000);
	assert_true(yes > 1000 && yes < checked / 2);
}

/* a and b are the same parsed orders, field by field: the side, the
 * defence, and every item's fields with the entries its counts cover. */
static void
same_orders(const struct plt_orders *a, const struct plt_orders *b)
{
	int k, j, m;

	assert_int_equal(a->side, b->side);
	assert_int_equal(a->defend, b->defend);
	assert_int_equal(a->n, b->n);
	assert_true(a->cap >= a->n && b->cap >= b->n);
	for (k = 0; k < a->n; k++) {
		const struct plt_order_item *x = &a->o[k], *y = &b->o[k];

		assert_int_equal(x->platoon, y->platoon);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->mmm, y->mmm);
		assert_int_equal(x->reform, y->reform);
		assert_int_equal(x->removed, y->removed);
		assert_int_equal(x->nmove, y->nmove);
		assert_int_equal(x->nfire, y->nfire);
		assert_int_equal(x->ncc, y->ncc);
		for (j = 0; j < x->nmove; j++) {
			assert_int_equal(x->move[j].squad, y->move[j].squad);
			assert_int_equal(x->move[j].n, y->move[j].n);
			for (m = 0; m < x->move[j].n; m++) {
				assert_int_equal(x->move[j].h[m].q,
				    y->move[j].h[m].q);
				assert_int_equal(x->move[j].h[m].r,
				    y->move[j].h[m].r);
			}
		}
		for (j = 0; j < x->nfire; j++) {
			assert_int_equal(x->fire[j].squad, y->fire[j].squad);
			assert_int_equal(x->fire[j].hw, y->fire[j].hw);
			assert_int_equal(x->fire[j].av, y->fire[j].av);
			assert_int_equal(x->fire[j].n, y->fire[j].n);
			assert_int_equal(x->fire[j].target, y->fire[j].target);
		}
		for (j = 0; j < x->ncc; j++) {
			assert_int_equal(x->cc[j].squad, y->cc[j].squad);
			assert_int_equal(x->cc[j].n, y->cc[j].n);
			assert_int_equal(x->cc[j].target, y->cc[j].target);
		}
	}
}

/* What t_opponent_parsed compared. */
struct parsed_count {
	int windows, reveals, files, items, fires, moves, reforms, assaults;
	int big;    /* items of a platoon of more than 16 squads */
};

/* One game (scenario scen, or the text when scen is NULL; game i of
 * option set o) played to its end by the opponent's text, every file of
 * every window compared with the hook's parsed orders (t_opponent_parsed). */
static void
parsed_game(const char *scen, const char *text, const char *options, int i,
    int o, struct parsed_count *n)
{
	const struct ruleset *rs = ruleset_find("platoon");
	struct hp_error err = { 0, "" };
	struct window_spec w, next;
	struct window_chain chain;
	bool more;
	struct game g;
	int s, guard;

	memset(&chain, 0, sizeof chain);
	game_init(&g);
	g.rules = rs;
	snprintf(g.name, sizeof g.name, i % 7 == 3 ? "op %d" : "op-%d", i);
	strlcpy_(g.options, options, sizeof g.options);
	assert_int_equal(ruleset_setup(&g, scen, text, NULL, NULL, &err),
	    HP_OK);
	for (guard = 0; guard < 400 && g.status != GAME_FINISHED &&
	    rs->next_window(&g, &w); guard++) {
		unsigned char key[DICE_KEYLEN];
		char *raw[GAME_MAX_SIDES] = { 0 };
		struct window_stop stop = { -1, 0 };
		struct events ev;
		struct dice d;

		for (s = 0; s < g.nsides; s++) {
			struct plt_orders *mine, *parsed = NULL;
			struct sbuf b;
			int k, j, m;

			if (!(w.sides & (1u << s)))
				continue;
			sbuf_init(&b);
			window_order_header(&g, &w, s, &b);
			mine = rs->opponent_parsed(&g, &w, s, &b);
			raw[s] = window_opponent_orders(&g, &w, s);
			assert_string_equal(b.buf, raw[s]);
			if (window_parse_stored(&g, &w, s, raw[s],
			    (void **)&parsed, NULL, &err) != HP_OK)
				fprintf(stderr, "%s\n%s\n", raw[s], err.msg);
			assert_non_null(parsed);
			assert_non_null(mine);
			same_orders(mine, parsed);
			for (k = 0; k < parsed->n; k++) {
				n->items++;
				n->fires += parsed->o[k].nfire;
				n->moves += parsed->o[k].nmove;
				n->reforms += parsed->o[k].reform >= 0;
				n->assaults += parsed->o[k].kind ==
				    PLT_O_ASSAULT;
				for (j = m = 0; j < g.nunits; j++)
					if (plt_alive(&g, j) && g.units[j].attached
					    == parsed->o[k].platoon)
						m++;
				n->big += m > 16;
			}
			rs->free_orders(mine);
			rs->free_orders(parsed);
			sbuf_free(&b);
			n->files++;
		}
		memset(key, 0, sizeof key);
		key[0] = (unsigned char)i;
		key[1] = (unsigned char)(i >> 8);
		key[2] = (unsigned char)guard;
		key[3] = (unsigned char)o;
		dice_init_stream(&d, key);
		events_init(&ev);
		ev.quiet = true;
		assert_int_equal(window_resolve_resume(&g, &w,
		    (const char *const *)raw, NULL, window_chain_resume(&chain),
		    &stop, &d, &ev, &err), HP_OK);
		if (w.kind == WINDOW_DECISION)
			n->reveals++;
		if (stop.step >= 0)
			assert_int_equal(window_advance(&g, &stop, &next, &more,
			    &err), HP_OK);
		dice_free(&d);
		events_free(&ev);
		/* A stop: the reveal windows resume with the files of the
		 * window that stopped first. */
		window_chain_after(&chain, &w, raw, stop.step);
		for (s = 0; s < GAME_MAX_SIDES; s++)
			free(raw[s]);
		n->windows++;
	}
	window_chain_free(&chain);
	assert_int_equal(g.status, GAME_FINISHED);
	game_free(&g);
}

/* Two platoons of 17 squads each on the open board: the opponent asks the
 * parser about their plans (not sure past 16 squads), and the hook takes
 * that parse or, where the plan is refused, parses the file. */
static const char big_board[] =
    "ruleset: platoon\nname: big\nmap: 16 16\nlegend: . open\n"
    "legend: w lightwoods\n"
    "terrain: ................\nterrain: ......w.........\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: .........w......\nterrain: ................\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: ......w.........\n"
    "terrain: ................\nterrain: ................\n"
    "terrain: ................\nterrain: .........w......\n"
    "terrain: ................\nterrain: ................\n"
    "side: blue Blue\nside: red Red\n"
    "option: home blue west\noption: home red east\n"
    "unit: b platoon blue -\n"
    "unit: b1 rifle blue B1 - - b\nunit: b2 rifle blue B2 - - b\n"
    "unit: b3 rifle blue B3 - - b\nunit: b4 heavy blue B4 - - b\n"
    "unit: b5 rifle blue B5 - - b\nunit: b6 rifle blue B6 - - b\n"
    "unit: b7 rifle blue B7 - - b\nunit: b8 heavy blue B8 - - b\n"
    "unit: b9 rifle blue B9 - - b\nunit: b10 rifle blue B10 - - b\n"
    "unit: b11 rifle blue B11 - - b\nunit: b12 heavy blue B12 - - b\n"
    "unit: b13 rifle blue B13 - - b\nunit: b14 rifle blue B14 - - b\n"
    "unit: b15 rifle blue B15 - - b\nunit: b16 heavy blue B16 - - b\n"
    "unit: b17 rifle blue C8 - - b\n"
    "unit: bx platoon blue -\nunit: bx1 rifle blue A8 - - bx\n"
    "unit: r platoon red -\n"
    "unit: r1 rifle red O1 - - r\nunit: r2 rifle red O2 - - r\n"
    "unit: r3 rifle red O3 - - r\nunit: r4 heavy red O4 - - r\n"
    "unit: r5 rifle red O5 - - r\nunit: r6 rifle red O6 - - r\n"
    "unit: r7 rifle red O7 - - r\nunit: r8 heavy red O8 - - r\n"
    "unit: r9 rifle red O9 - - r\nunit: r10 rifle red O10 - - r\n"
    "unit: r11 rifle red O11 - - r\nunit: r12 heavy red O12 - - r\n"
    "unit: r13 rifle red O13 - - r\nunit: r14 rifle red O14 - - r\n"
    "unit: r15 rifle red O15 - - r\nunit: r16 heavy red O16 - - r\n"
    "unit: r17 rifle red N8 - - r\n"
    "unit: rx platoon red -\nunit: rx1 rifle red P8 - - rx\n";

/* The opponent's parsed orders (opponent_parsed, which simulate resolves)
 * are what plt_parse makes of its order file, field by field, and its
 * text is plt_opponent's: in every window (orders and reveal=each's
 * reveals, resumed as the engine resumes them) of 240 games of each
 * option set, both shipped scenarios, and 40 games of big_board each;
 * every seventh game named so that its header is not plain words (the
 * hook parses the text then). */
static void
t_opponent_parsed(void **state)
{
	static const char *const opts[] = { "", "reveal=each",
		"move-move-move,no-order-advance", "reveal=each,move-move-move",
		"turns=12,reveal=list" };
	static const char *const scen[] = { "outpost", "three-way" };
	struct parsed_count n;
	int o, i;

	(void)state;
	memset(&n, 0, sizeof n);
	assert_true(ruleset_find("platoon")->opponent_parsed ==
	    plt_opponent_parsed);
	for (o = 0; o < (int)(sizeof opts / sizeof opts[0]); o++) {
		for (i = 0; i < 240; i++)
			parsed_game(scen[i % 2], NULL, opts[o], i, o, &n);
		for (i = 0; i < 40; i++)
			parsed_game(NULL, big_board, opts[o], i, o, &n);
	}
	/* Every kind of line was compared, many times. */
	assert_true(n.windows > 3000 && n.reveals > 1000 && n.files > 6000);
	assert_true(n.items > 10000 && n.fires > 1000 && n.moves > 1000 &&
	    n.reforms > 50 && n.assaults > 50 && n.big > 100);
}

/* simulate through platoon's opponent_parsed (the orders resolved as the
 * opponent parsed them, window_resolve_parsed) plays the same games as
 * parsing its order files back (the ruleset without the hook): the same
 * totals, and each game the same final state; both modes of play. */
static void
t_parsed_path_same(void **state)
{
	static const unsigned char master[] = "test_platoon parsed";
	static const char *const options[] = { NULL, "reveal=each" };
	const struct ruleset *plt = ruleset_find("platoon");
	struct ruleset plain;
	struct sim_result a, b;
	struct hp_error err = { 0, "" };
	int k, i, u, oa, ob;

	(void)state;
	assert_non_null(plt);
	assert_non_null(plt->opponent_parsed);
	plain = *plt;
	plain.opponent_parsed = NULL;
	for (k = 0; k < 2; k++) {
		assert_int_equal(sim_run(plt, options[k], 200, master,
		    sizeof master - 1, &a, &err), HP_OK);
		assert_int_equal(sim_run(&plain, options[k], 200, master,
		    sizeof master - 1, &b, &err), HP_OK);
		assert_int_equal(a.games, b.games);
		for (i = 0; i < 3; i++)
			assert_int_equal(a.outcome[i], b.outcome[i]);
		assert_int_equal(a.windows, b.windows);
		assert_int_equal(a.rolls, b.rolls);
		assert_int_equal(a.orders, b.orders);
		assert_int_equal(a.order_bytes, b.order_bytes);
		for (i = 0; i < 40; i++) {
			struct game ga, gb;
			long wa = 0, ra = 0, wb = 0, rb = 0;

			game_init(&ga);
			game_init(&gb);
			assert_int_equal(sim_game(plt, options[k], i, master,
			    sizeof master - 1, &ga, &oa, &wa, &ra, &err), HP_OK);
			assert_int_equal(sim_game(&plain, options[k], i, master,
			    sizeof master - 1, &gb, &ob, &wb, &rb, &err), HP_OK);
			assert_int_equal(oa, ob);
			assert_int_equal(wa, wb);
			assert_int_equal(ra, rb);
			assert_string_equal(ga.result, gb.result);
			assert_int_equal(ga.turn, gb.turn);
			assert_int_equal(ga.nunits, gb.nunits);
			for (u = 0; u < ga.nunits; u++) {
				assert_true(hex_eq(ga.units[u].pos,
				    gb.units[u].pos));
				assert_int_equal(ga.units[u].strength,
				    gb.units[u].strength);
				assert_int_equal(ga.units[u].flags,
				    gb.units[u].flags);
			}
			assert_int_equal(ga.nvars, gb.nvars);
			for (u = 0; u < ga.nvars; u++) {
				assert_string_equal(ga.vars[u].key,
				    gb.vars[u].key);
				assert_int_equal(ga.vars[u].val, gb.vars[u].val);
			}
			game_free(&ga);
			game_free(&gb);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_profiles),
		cmocka_unit_test(t_scenario_errors),
		cmocka_unit_test(t_coherency),
		cmocka_unit_test(t_coherency_orders),
		cmocka_unit_test(t_los),
		cmocka_unit_test(t_initiative),
		cmocka_unit_test(t_interleave),
		cmocka_unit_test(t_move_terrain),
		cmocka_unit_test(t_road_fallback),
		cmocka_unit_test(t_mmm),
		cmocka_unit_test(t_fire_mods),
		cmocka_unit_test(t_split),
		cmocka_unit_test(t_saves_cover),
		cmocka_unit_test(t_reduced_removed),
		cmocka_unit_test(t_reform),
		cmocka_unit_test(t_close_combat),
		cmocka_unit_test(t_no_contact),
		cmocka_unit_test(t_morale),
		cmocka_unit_test(t_suppressed),
		cmocka_unit_test(t_parse_errors),
		cmocka_unit_test(t_no_order_advance),
		cmocka_unit_test(t_victory),
		cmocka_unit_test(t_opponent_games),
		cmocka_unit_test(t_reveal_each),
		cmocka_unit_test(t_reveal_each_defaults),
		cmocka_unit_test(t_reach_within),
		cmocka_unit_test(t_opponent_parsed),
		cmocka_unit_test(t_parsed_path_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
