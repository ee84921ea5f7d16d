/* Unit tests for the fire-and-movement ruleset (seed 000,
 * src/rules/fam.c): every rule resolved with scripted dice, asserting on
 * the resulting state (positions, fresh/spent, the victory counter, the
 * game's status and result) and on the dice log; the worked examples of
 * the seed; the windows; the built-in opponent; self-play. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fam.h"
#include "fixtures.h"
#include "orders.h"
#include "ruleset.h"
#include "sim.h"
#include "window.h"

/* Unit indices and statuses of the ruleset (include/fam.h, fam_setup). */
#define PC 3
#define RED 4
#define FRESH 0
#define SPENT 1

/* --- helpers ------------------------------------------------------------ */

#define assert_at(g, unit, lab) do {					\
	char b_[8];							\
	assert_string_equal(hex_label(&(g)->layout,			\
	    (g)->units[(unit)].pos, b_, sizeof b_), (lab));		\
} while (0)

static void
dump_rolls(const struct dice *d)
{
	size_t i;

	for (i = 0; i < d->nlog; i++)
		fprintf(stderr, "  roll %zu: d%d target %d -> %d (%s)\n", i,
		    d->log[i].sides, d->log[i].target, d->log[i].result,
		    d->log[i].purpose);
}

static void
dump_events(const struct events *ev)
{
	size_t i;

	for (i = 0; i < ev->n; i++)
		fprintf(stderr, "  [%s] %s\n", ev->v[i].phase, ev->v[i].text);
}

/* Resolve window with the orders (NULL: none) and exactly the n scripted
 * dice: every die of the script is used and no more are asked for. */
static void
resolve_n(struct game *g, const char *window, const char *blue,
    const char *red, const int *script, size_t n, struct dice *d,
    struct events *ev)
{
	int rc = fx_resolve(g, window, blue, red, script, n, d, ev);

	if (rc != HP_OK || d->nlog != n || d->script_exhausted) {
		fprintf(stderr, "resolve: rc %d, %zu rolls (wanted %zu)%s\n",
		    rc, d->nlog, n, d->script_exhausted ? ", exhausted" : "");
		dump_rolls(d);
		dump_events(ev);
	}
	assert_int_equal(rc, HP_OK);
	assert_false(d->script_exhausted);
	assert_int_equal(d->nlog, n);
}

static void
done(struct dice *d, struct events *ev)
{
	dice_free(d);
	events_free(ev);
}

/* Roll i of the log: a d6 whose purpose mentions what, with target and
 * result. */
static void
assert_roll(const struct dice *d, size_t i, const char *what, int target,
    int result)
{
	assert_true(i < d->nlog);
	if (strstr(d->log[i].purpose, what) == NULL)
		fprintf(stderr, "roll %zu is '%s', wanted '%s'\n", i,
		    d->log[i].purpose, what);
	assert_non_null(strstr(d->log[i].purpose, what));
	assert_int_equal(d->log[i].seq, (int)i + 1);
	assert_int_equal(d->log[i].sides, 6);
	assert_int_equal(d->log[i].target, target);
	assert_int_equal(d->log[i].result, result);
}

static bool
any_roll_mentions(const struct dice *d, const char *what)
{
	size_t i;

	for (i = 0; i < d->nlog; i++)
		if (strstr(d->log[i].purpose, what) != NULL)
			return true;
	return false;
}

static int
victory(const struct game *g)
{
	return game_var(g, "victory", 0);
}

/* A game in progress (turn 2, Blue's window) with the sections placed. */
static void
position(struct game *g, const char *options, const char *p1, int s1,
    const char *p2, int s2, const char *p3, int s3, int pc_with)
{
	fx_fam_game(g, options);
	g->turn = 2;
	fx_fam_place(g, p1, s1, p2, s2, p3, s3, pc_with);
}

/* Parse body as side's orders in window through the shared parser and
 * the ruleset. On success the parsed orders are copied to *o (if not
 * NULL). Errors are left in errs (initialised here). */
static int
parse_orders(const struct game *g, const char *window, int side,
    const char *body, struct fam_orders *o, struct order_errors *errs)
{
	struct window_spec w;
	struct order_header h;
	struct order_body b;
	struct sbuf canon;
	void *out = NULL;
	char *text;
	int rc;

	memset(&w, 0, sizeof w);
	w.turn = g->turn;
	w.number = strcmp(window, "red") == 0 ? 2 : 1;
	w.sides = side == 0 ? 1 : 2;
	strlcpy_(w.name, window, sizeof w.name);
	text = fx_orders(g, window, side == 0 ? "blue" : "red", body);
	orders_errors_init(errs);
	rc = orders_parse_file(text, strlen(text), &h, &b, errs);
	if (rc == HP_OK) {
		sbuf_init(&canon);
		rc = g->rules->parse(g, &w, side, &b, &out, &canon, errs);
		sbuf_free(&canon);
		orders_body_free(&b);
	}
	if (out != NULL) {
		if (o != NULL)
			*o = *(struct fam_orders *)out;
		g->rules->free_orders(out);
	}
	free(text);
	return rc;
}

/* Blue's body must be refused with one error on line saying s, and
 * resolving it must fail without touching the state or rolling. */
static void
blue_refused(struct game *g, const char *body, int line, const char *s)
{
	struct order_errors e;
	struct game before;
	struct dice d;
	struct events ev;
	int rc = parse_orders(g, "blue", 0, body, NULL, &e);

	if (e.n != 1 || !fx_has_error(&e, line, s)) {
		char *t = orders_errors_text(&e);

		fprintf(stderr, "errors:\n%swanted line %d: %s\n", t, line, s);
		free(t);
	}
	assert_int_equal(rc, HP_EINVAL);
	assert_int_equal(e.n, 1);
	assert_true(fx_has_error(&e, line, s));
	orders_errors_free(&e);

	game_copy(&before, g);
	assert_int_equal(fx_resolve(g, "blue", body, NULL, NULL, 0, &d, &ev),
	    HP_EINTERNAL);
	assert_int_equal(d.nlog, 0);
	assert_memory_equal(g->units, before.units,
	    sizeof *g->units * (size_t)g->nunits);
	assert_int_equal(victory(g), victory(&before));
	assert_int_equal(g->turn, before.turn);
	game_free(&before);
	done(&d, &ev);
}

static void
next_window_is(const struct game *g, const char *name, int number, int turn)
{
	struct window_spec w;

	assert_true(g->rules->next_window(g, &w));
	assert_string_equal(w.name, name);
	assert_int_equal(w.number, number);
	assert_int_equal(w.turn, turn);
	assert_int_equal(w.kind, WINDOW_ORDERS);
	assert_int_equal(w.sides, strcmp(name, "red") == 0 ? 2u : 1u);
}

/* Tiny deterministic generator for the randomised tests. */
static uint32_t rng_state = 12345;

static uint32_t
rng(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state % n;
}

static const char *const board[15] = {
	"A0", "B0", "C0", "A1", "B1", "C1", "A2", "B2", "C2",
	"A3", "B3", "C3", "A4", "B4", "C4"
};

/* --- set-up and map ----------------------------------------------------- */

static void
test_setup(void **state)
{
	static const char *off[] = { "A5", "C5", "D0", "A6", "B6", "D4" };
	struct game g;
	struct hp_error err = { 0, "" };
	struct hex h;
	size_t i;

	(void)state;
	fx_fam_game(&g, NULL);
	assert_int_equal(g.nhex, 16);
	for (i = 0; i < 15; i++)
		assert_true(game_on_map(&g, fx_hex(&g, board[i])));
	assert_true(game_on_map(&g, fx_hex(&g, "B5")));
	for (i = 0; i < sizeof off / sizeof off[0]; i++) {
		assert_true(hex_parse_label(&g.layout, off[i], &h));
		assert_false(game_on_map(&g, h));
	}
	assert_string_equal(game_hex_at(&g, fx_hex(&g, "B0"))->terrain, "wood");
	assert_string_equal(game_hex_at(&g, fx_hex(&g, "C2"))->terrain, "open");
	assert_string_equal(game_hex_at(&g, fx_hex(&g, "A4"))->terrain, "fup");
	assert_string_equal(game_hex_at(&g, fx_hex(&g, "B5"))->terrain, "hill");

	/* The seed's distances under the lead's reading of the map. */
	assert_int_equal(hex_distance(fx_hex(&g, "B1"), fx_hex(&g, "B5")), 4);
	assert_int_equal(hex_distance(fx_hex(&g, "A2"), fx_hex(&g, "C3")), 2);
	assert_true(hex_adjacent(fx_hex(&g, "A1"), fx_hex(&g, "B2")));
	assert_false(hex_adjacent(fx_hex(&g, "A1"), fx_hex(&g, "B3")));
	assert_true(hex_adjacent(fx_hex(&g, "B3"), fx_hex(&g, "B2")));
	assert_true(hex_adjacent(fx_hex(&g, "A4"), fx_hex(&g, "B5")));
	assert_true(hex_adjacent(fx_hex(&g, "B4"), fx_hex(&g, "B5")));
	assert_true(hex_adjacent(fx_hex(&g, "C4"), fx_hex(&g, "B5")));
	assert_false(hex_adjacent(fx_hex(&g, "A3"), fx_hex(&g, "B5")));
	assert_true(hex_adjacent(fx_hex(&g, "A0"), fx_hex(&g, "A1")));

	assert_int_equal(g.nunits, 5);
	for (i = 0; i < 3; i++) {
		assert_string_equal(g.units[i].kind, "section");
		assert_int_equal(g.units[i].side, 0);
		assert_false(g.units[i].placed);
		assert_int_equal(g.units[i].status, FRESH);
	}
	assert_string_equal(g.units[0].id, "1");
	assert_string_equal(g.units[2].name, "3 Section");
	assert_string_equal(g.units[PC].id, "pc");
	assert_int_equal(g.units[PC].attached, 0);
	assert_string_equal(g.units[RED].id, "red");
	assert_int_equal(g.units[RED].side, 1);
	assert_true(g.units[RED].placed);
	assert_at(&g, RED, "B5");
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_equal(victory(&g), 0);
	assert_int_equal(g.turn, 1);
	assert_int_not_equal(g.status, GAME_FINISHED);
	assert_string_equal(g.result, "");
	next_window_is(&g, "blue", 1, 1);
	game_free(&g);

	/* Unknown scenario or option. */
	game_init(&g);
	g.rules = &ruleset_fam;
	assert_int_equal(ruleset_setup(&g, "desert", NULL, NULL, NULL, &err),
	    HP_EINVAL);
	game_free(&g);
	game_init(&g);
	g.rules = &ruleset_fam;
	strlcpy_(g.options, "fog", sizeof g.options);
	assert_int_equal(ruleset_setup(&g, NULL, NULL, NULL, NULL, &err),
	    HP_EINVAL);
	assert_non_null(strstr(err.msg, "red-standing"));
	game_free(&g);
	assert_ptr_equal(ruleset_find("fire-and-movement"), &ruleset_fam);
}

/* --- phase 1: deployment and movement ----------------------------------- */

/* "Example: 1Section moves from A into A1 becoming spent, 2 and 3 section
 * with the Pl Comd remain in B and stay fresh" -- deployed in turn 1. */
static void
test_move_seed_example(void **state)
{
	static const int dice[] = { 2 };
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	fx_fam_game(&g, NULL);
	/* 1 Section in A1 is 2 hexes from the Pl Comd in B0: it rolls to
	 * rally, needing 3+, and the 2 keeps it spent. */
	resolve_n(&g, "blue", "deploy 1 A0\ndeploy 2 B0\ndeploy 3 B0\n"
	    "deploy pc 2\nmove 1 A1\n", NULL, dice, 1, &d, &ev);
	assert_true(g.units[0].placed && g.units[1].placed &&
	    g.units[2].placed && g.units[PC].placed);
	assert_at(&g, 0, "A1");
	assert_int_equal(g.units[0].status, SPENT);
	assert_at(&g, 1, "B0");
	assert_int_equal(g.units[1].status, FRESH);
	assert_at(&g, 2, "B0");
	assert_int_equal(g.units[2].status, FRESH);
	assert_at(&g, PC, "B0");
	assert_int_equal(g.units[PC].attached, 1);
	assert_roll(&d, 0, "1 Section in A1 rallies, 2 hexes", 3, 2);
	/* Red is fresh: its window comes next, nothing has been counted. */
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_equal(victory(&g), 0);
	assert_int_equal(g.turn, 1);
	assert_int_equal(game_var(&g, "stage", 0), 1);
	next_window_is(&g, "red", 2, 1);
	assert_true(fx_event_has(&ev, "1 Section moves A0 -> A1 and is spent"));
	done(&d, &ev);
	game_free(&g);
}

static void
test_deploy_defaults(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* Any stacking; without 'deploy pc' the Pl Comd is with 1 Section. */
	fx_fam_game(&g, NULL);
	resolve_n(&g, "blue", "deploy 1 C0\ndeploy 2 C0\ndeploy 3 C0\n", NULL,
	    NULL, 0, &d, &ev);
	assert_at(&g, 0, "C0");
	assert_at(&g, 1, "C0");
	assert_at(&g, 2, "C0");
	assert_at(&g, PC, "C0");
	assert_int_equal(g.units[PC].attached, 0);
	assert_int_equal(g.units[0].status, FRESH);
	done(&d, &ev);
	game_free(&g);

	fx_fam_game(&g, NULL);
	resolve_n(&g, "blue", "deploy 1 A0\ndeploy 2 B0\ndeploy 3 C0\n"
	    "deploy pc 3\n", NULL, NULL, 0, &d, &ev);
	assert_at(&g, PC, "C0");
	assert_int_equal(g.units[PC].attached, 2);
	done(&d, &ev);
	game_free(&g);

	/* Deploying out of the wood, twice, or after turn 1 is refused. */
	fx_fam_game(&g, NULL);
	blue_refused(&g, "deploy 1 A0\ndeploy 2 B0\ndeploy 3 C1\n"
	    "deploy 3 C0\n", 7, "sections deploy in the wood");
	game_free(&g);
	position(&g, NULL, "B1", FRESH, "B0", FRESH, "C0", FRESH, 0);
	blue_refused(&g, "deploy 1 A0\n", 5, "already deployed");
	game_free(&g);
}

static void
test_move_rules(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* A section that stays still stays fresh; a moving one is spent
	 * (1 Section in B2 is 2 hexes from the Pl Comd in B0 and keeps
	 * spent on a 1). */
	{
		static const int dice[] = { 1 };

		position(&g, NULL, "B1", FRESH, "B0", FRESH, "C0", FRESH, 1);
		resolve_n(&g, "blue", "move 1 B2\n", NULL, dice, 1, &d, &ev);
		assert_at(&g, 0, "B2");
		assert_int_equal(g.units[0].status, SPENT);
		assert_at(&g, 1, "B0");
		assert_int_equal(g.units[1].status, FRESH);
		assert_at(&g, 2, "C0");
		assert_int_equal(g.units[2].status, FRESH);
		assert_roll(&d, 0, "1 Section in B2", 3, 1);
		done(&d, &ev);
		game_free(&g);
	}
	/* Moving backwards, sideways and into the wood is allowed. */
	position(&g, NULL, "B1", FRESH, "B2", FRESH, "A4", FRESH, 1);
	resolve_n(&g, "blue", "move 1 A0\nmove 2 C1\nmove 3 A3\n", NULL,
	    (const int[]){ 6, 6 }, 2, &d, &ev);
	assert_at(&g, 0, "A0");
	assert_at(&g, 1, "C1");
	assert_at(&g, 2, "A3");
	assert_at(&g, PC, "C1");
	assert_int_equal(g.units[1].status, FRESH); /* with the Pl Comd */
	done(&d, &ev);
	game_free(&g);

	/* Refused: a spent section moving, a move of two hexes, a move off
	 * the map, moving and firing. */
	position(&g, NULL, "B1", SPENT, "B2", FRESH, "A3", FRESH, 1);
	blue_refused(&g, "move 1 B2\n", 5, "1 Section is spent and may not "
	    "move");
	blue_refused(&g, "move 2 B4\n", 5, "B4 is not adjacent to B2");
	blue_refused(&g, "move 3 A5\n", 5, "expected a hex of the map");
	blue_refused(&g, "move 2 B3\nfire 2\n", 5, "cannot both move and "
	    "fire");
	/* The hill is assaulted only from the FUP. */
	blue_refused(&g, "move 3 B5\n", 5, "B5 is not adjacent to A3");
	game_free(&g);
}

/* --- phase 2: firing ---------------------------------------------------- */

static void
test_fire(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* "A section firing from B1 would require a 5 or 6": a 4 fails.
	 * The firer is spent; 1 hex from the Pl Comd it fails to rally on
	 * a 1. Red is fresh, so Red's window follows. */
	position(&g, NULL, "B1", FRESH, "B0", FRESH, "B0", FRESH, 1);
	resolve_n(&g, "blue", "fire 1\n", NULL, (const int[]){ 4, 1 }, 2, &d,
	    &ev);
	assert_roll(&d, 0, "1 Section fires from B1 at range 4", 5, 4);
	assert_roll(&d, 1, "1 Section in B1 rallies, 1 hex from", 2, 1);
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_equal(game_var(&g, "stage", 0), 1);
	assert_int_equal(g.turn, 2);
	assert_int_equal(victory(&g), 0);
	next_window_is(&g, "red", 2, 2);
	done(&d, &ev);
	game_free(&g);

	/* A 5 suppresses: Red is spent at phase 4, so it recovers at once
	 * in Blue's window, fires no die, and the turn ends. */
	position(&g, NULL, "B1", FRESH, "B0", FRESH, "B0", FRESH, 1);
	resolve_n(&g, "blue", "fire 1\n", NULL, (const int[]){ 5, 1 }, 2, &d,
	    &ev);
	assert_roll(&d, 0, "1 Section fires from B1", 5, 5);
	assert_roll(&d, 1, "rallies", 2, 1);
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_equal(game_var(&g, "stage", 0), 0);
	assert_int_equal(g.turn, 3);
	assert_int_equal(victory(&g), 1);
	next_window_is(&g, "blue", 1, 3);
	assert_true(fx_event_has(&ev, "the enemy is suppressed"));
	done(&d, &ev);
	game_free(&g);

	/* Several firers: every declared fire is rolled, even after the
	 * enemy is already suppressed, and every firer is spent. Then the
	 * rally: 1 with the Pl Comd automatically, 2 in A2 (2 hexes away)
	 * on a 3, 3 in C3 (3 hexes away) not on a 3. */
	position(&g, NULL, "B1", FRESH, "A2", FRESH, "C3", FRESH, 0);
	resolve_n(&g, "blue", "fire 3\nfire 2\nfire 1\n", NULL,
	    (const int[]){ 6, 1, 1, 3, 3 }, 5, &d, &ev);
	assert_roll(&d, 0, "1 Section fires from B1 at range 4", 5, 6);
	assert_roll(&d, 1, "2 Section fires from A2 at range 3", 4, 1);
	assert_roll(&d, 2, "3 Section fires from C3 at range 2", 3, 1);
	assert_roll(&d, 3, "2 Section in A2 rallies, 2 hexes", 3, 3);
	assert_roll(&d, 4, "3 Section in C3 rallies, 3 hexes", 4, 3);
	assert_int_equal(g.units[0].status, FRESH);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(g.units[2].status, SPENT);
	assert_int_equal(g.turn, 3);        /* Red recovered: turn over */
	assert_int_equal(victory(&g), 1);
	done(&d, &ev);
	game_free(&g);

	/* Only the last of three suppresses: that is enough. */
	position(&g, NULL, "B1", FRESH, "B1", FRESH, "C3", FRESH, 0);
	resolve_n(&g, "blue", "fire 1\nfire 2\nfire 3\n", NULL,
	    (const int[]){ 4, 4, 3, 6 }, 4, &d, &ev);
	assert_roll(&d, 2, "3 Section fires from C3 at range 2", 3, 3);
	assert_roll(&d, 3, "3 Section in C3 rallies", 4, 6);
	assert_int_equal(g.units[2].status, FRESH);
	assert_int_equal(g.turn, 3);
	done(&d, &ev);
	game_free(&g);

	/* No fire at all: nothing is rolled, Red's window is next. */
	position(&g, NULL, "B1", FRESH, "B1", FRESH, "C3", FRESH, 0);
	resolve_n(&g, "blue", "", NULL, NULL, 0, &d, &ev);
	assert_int_equal(game_var(&g, "stage", 0), 1);
	done(&d, &ev);
	game_free(&g);

	/* A spent section may not fire. */
	position(&g, NULL, "B1", FRESH, "B2", SPENT, "C3", FRESH, 0);
	blue_refused(&g, "fire 1\nfire 2\n", 6, "2 Section is spent and may "
	    "not fire");
	blue_refused(&g, "fire 1\nfire 1\n", 6, "1 Section already fires on "
	    "line 5");
	game_free(&g);
}

/* --- phase 3: rally ----------------------------------------------------- */

/* "2 Section is spent in A2 and the Pl Comd is with 1 and 3 Sections in
 * C3, it must roll a 3 or higher to become fresh again". */
static void
test_rally_seed_example(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	int roll;

	(void)state;
	for (roll = 1; roll <= 6; roll++) {
		position(&g, NULL, "C3", FRESH, "A2", SPENT, "C3", FRESH, 0);
		resolve_n(&g, "blue", "", NULL, (const int[]){ roll }, 1, &d,
		    &ev);
		assert_roll(&d, 0, "2 Section in A2 rallies, 2 hexes from the "
		    "Pl Comd", 3, roll);
		assert_int_equal(g.units[1].status, roll >= 3 ? FRESH : SPENT);
		assert_int_equal(g.units[0].status, FRESH);
		assert_int_equal(g.units[2].status, FRESH);
		assert_at(&g, 1, "A2");
		done(&d, &ev);
		game_free(&g);
	}
}

static void
test_rally_rules(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* In the Pl Comd's hex: fresh automatically, no die. */
	position(&g, NULL, "B2", SPENT, "B2", SPENT, "B0", FRESH, 1);
	resolve_n(&g, "blue", "", NULL, NULL, 0, &d, &ev);
	assert_int_equal(g.units[0].status, FRESH);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(g.units[2].status, FRESH);
	done(&d, &ev);
	game_free(&g);

	/* Adjacent to the hill: stays spent without a roll (A4), unless with
	 * the Pl Comd (B4); a section further back still rolls (C3, 1 hex
	 * from the Pl Comd: needs 2+). */
	position(&g, NULL, "A4", SPENT, "B4", SPENT, "C3", SPENT, 1);
	resolve_n(&g, "blue", "", NULL, (const int[]){ 2 }, 1, &d, &ev);
	assert_roll(&d, 0, "3 Section in C3 rallies, 1 hex from", 2, 2);
	assert_false(any_roll_mentions(&d, "1 Section"));
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(g.units[2].status, FRESH);
	done(&d, &ev);
	game_free(&g);

	/* The far corner: 5 hexes from the Pl Comd needs a 6. */
	position(&g, NULL, "A0", SPENT, "C4", FRESH, "C4", FRESH, 1);
	resolve_n(&g, "blue", "", NULL, (const int[]){ 5 }, 1, &d, &ev);
	assert_roll(&d, 0, "1 Section in A0", 6, 5);
	assert_int_equal(g.units[0].status, SPENT);
	done(&d, &ev);
	game_free(&g);
	position(&g, NULL, "A0", SPENT, "C4", FRESH, "C4", FRESH, 1);
	resolve_n(&g, "blue", "", NULL, (const int[]){ 6 }, 1, &d, &ev);
	assert_int_equal(g.units[0].status, FRESH);
	done(&d, &ev);
	game_free(&g);
}

/* --- the Platoon Commander ---------------------------------------------- */

static void
test_commander(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* Joining a section in his own hex is not a move: he then travels
	 * with it (and rallies it there). */
	position(&g, NULL, "B1", FRESH, "B1", FRESH, "B0", FRESH, 0);
	resolve_n(&g, "blue", "move 2 B2\ncommander 2\n", NULL, NULL, 0, &d,
	    &ev);
	assert_int_equal(g.units[PC].attached, 1);
	assert_at(&g, PC, "B2");
	assert_at(&g, 1, "B2");
	assert_at(&g, 0, "B1");
	assert_int_equal(g.units[0].status, FRESH);
	assert_int_equal(g.units[1].status, FRESH);
	assert_true(fx_event_has(&ev, "joins 2 Section"));
	done(&d, &ev);
	game_free(&g);

	/* He travels with the section he joined even into the assault. */
	position(&g, NULL, "B4", FRESH, "B4", FRESH, "B0", FRESH, 0);
	resolve_n(&g, "blue", "commander 2\nmove 2 B5\n", NULL, NULL, 0, &d,
	    &ev);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_int_equal(game_var(&g, "assault", 0), 2);
	assert_int_equal(g.units[PC].attached, 1);
	assert_at(&g, PC, "B5");
	assert_at(&g, 0, "B4");
	done(&d, &ev);
	game_free(&g);

	/* He may join in his own hex even when his section is spent. */
	position(&g, NULL, "B1", SPENT, "B1", FRESH, "B0", FRESH, 0);
	resolve_n(&g, "blue", "commander 2\nmove 2 B2\n", NULL,
	    (const int[]){ 1 }, 1, &d, &ev);
	assert_int_equal(g.units[PC].attached, 1);
	assert_at(&g, PC, "B2");
	assert_roll(&d, 0, "1 Section in B1 rallies, 1 hex from", 2, 1);
	assert_int_equal(g.units[0].status, SPENT);
	done(&d, &ev);
	game_free(&g);

	/* Transfer after moves from a fresh section that stays, to a spent
	 * section in an adjacent hex; it rallies with him. */
	position(&g, NULL, "B1", FRESH, "B2", SPENT, "B0", FRESH, 0);
	resolve_n(&g, "blue", "commander 2\n", NULL, NULL, 0, &d, &ev);
	assert_int_equal(g.units[PC].attached, 1);
	assert_at(&g, PC, "B2");
	assert_at(&g, 0, "B1");
	assert_int_equal(g.units[0].status, FRESH);
	assert_int_equal(g.units[1].status, FRESH);
	assert_true(fx_event_has(&ev, "transfers to 2 Section in B2"));
	done(&d, &ev);
	game_free(&g);

	/* The transfer is after moves: to where the section has moved. */
	position(&g, NULL, "B0", FRESH, "B2", FRESH, "C0", FRESH, 0);
	resolve_n(&g, "blue", "commander 2\nmove 2 B1\n", NULL, NULL, 0, &d,
	    &ev);
	assert_int_equal(g.units[PC].attached, 1);
	assert_at(&g, PC, "B1");
	assert_at(&g, 1, "B1");
	assert_at(&g, 0, "B0");
	done(&d, &ev);
	game_free(&g);

	/* He may leave his section and it may then fire (firing is after
	 * the transfer); 1 Section in B1 is then 1 hex from him and its
	 * rally roll decides. */
	position(&g, NULL, "B1", FRESH, "B2", FRESH, "C0", FRESH, 0);
	resolve_n(&g, "blue", "commander 2\nfire 1\n", NULL,
	    (const int[]){ 1, 2 }, 2, &d, &ev);
	assert_roll(&d, 0, "1 Section fires", 5, 1);
	assert_roll(&d, 1, "1 Section in B1 rallies, 1 hex from", 2, 2);
	assert_int_equal(g.units[0].status, FRESH);
	assert_at(&g, PC, "B2");
	done(&d, &ev);
	game_free(&g);

	/* A section that ends its move in his hex he joins after the moves,
	 * even from a spent section (not a move). */
	position(&g, NULL, "B1", SPENT, "B0", FRESH, "C0", FRESH, 0);
	resolve_n(&g, "blue", "commander 2\nmove 2 B1\n", NULL, NULL, 0, &d,
	    &ev);
	assert_int_equal(g.units[PC].attached, 1);
	assert_at(&g, PC, "B1");
	assert_true(fx_event_has(&ev, "joins 2 Section in B1"));
	done(&d, &ev);
	game_free(&g);

	/* Refused: from a spent section, from a moving one, to a hex that
	 * is not adjacent, and a join and a transfer in one turn. */
	position(&g, NULL, "B1", SPENT, "B2", FRESH, "B1", FRESH, 0);
	blue_refused(&g, "commander 2\n", 5, "the Pl Comd can only leave a "
	    "fresh section that does not move (1 Section is spent)");
	game_free(&g);
	position(&g, NULL, "B1", FRESH, "A1", FRESH, "B1", FRESH, 0);
	blue_refused(&g, "move 1 B2\ncommander 2\n", 6, "the Pl Comd can only "
	    "leave a fresh section that does not move (1 Section moves)");
	blue_refused(&g, "commander 2\nmove 2 A2\n", 5, "2 Section will be in "
	    "A2, not adjacent to the Pl Comd in B1");
	blue_refused(&g, "commander 3\ncommander 2\n", 6, "the Pl Comd already "
	    "has an order on line 5");
	game_free(&g);
}

/* --- phase 4: enemy action ---------------------------------------------- */

/* The seed's example: "1 Section (spent) is in B3, 2 Section (fresh) and
 * the Pl comd are in B2 and 3 Section (spent) is in A1. Red chooses to fire
 * on 1 Section first ... 2 Section ... will also be engaged. 3 Section
 * although adjacent to 2 Section is not engaged ... Red rolls a 3 and hits,
 * though it is already spent the victory counter moves up 1. 2 Section are
 * further away, Red rolls a 2 which is ineffective." */
static void
red_example(struct game *g)
{
	position(g, NULL, "B3", SPENT, "B2", FRESH, "A1", SPENT, 1);
	game_set_var(g, "stage", 1);
	game_set_var(g, "victory", 4);
}

static void
test_red_seed_example(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* With the Pl Comd engaged: the roll of 3 hits him too (2 Section,
	 * his section, was not hit), so +1 for 1 Section, +1 for him, +1
	 * for the turn. */
	red_example(&g);
	resolve_n(&g, "red", NULL, "target B3\nbeaten B2\ncommander yes\n",
	    (const int[]){ 3, 2, 3 }, 3, &d, &ev);
	assert_roll(&d, 0, "Red fires on 1 Section in B3 at range 2", 2, 3);
	assert_roll(&d, 1, "Red fires on 2 Section in B2 at range 3", 3, 2);
	assert_roll(&d, 2, "Red engages the Pl Comd in B2 at range 3", 3, 3);
	assert_false(any_roll_mentions(&d, "3 Section"));
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(g.units[2].status, SPENT);
	assert_at(&g, 0, "B3");
	assert_at(&g, PC, "B2");
	assert_int_equal(victory(&g), 7);
	assert_int_equal(g.turn, 3);
	assert_int_equal(game_var(&g, "stage", 0), 0);
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_not_equal(g.status, GAME_FINISHED);
	next_window_is(&g, "blue", 1, 3);
	done(&d, &ev);
	game_free(&g);

	/* The Pl Comd's roll misses: +1 (1 Section) +1 (turn). */
	red_example(&g);
	resolve_n(&g, "red", NULL, "target B3\nbeaten B2\ncommander yes\n",
	    (const int[]){ 3, 2, 2 }, 3, &d, &ev);
	assert_roll(&d, 2, "Pl Comd", 3, 2);
	assert_int_equal(victory(&g), 6);
	done(&d, &ev);
	game_free(&g);

	/* Without 'commander yes' he is not engaged: two rolls only. */
	red_example(&g);
	resolve_n(&g, "red", NULL, "target B3\nbeaten B2\n",
	    (const int[]){ 3, 2 }, 2, &d, &ev);
	assert_false(any_roll_mentions(&d, "Pl Comd"));
	assert_int_equal(victory(&g), 6);
	done(&d, &ev);
	game_free(&g);
	red_example(&g);
	resolve_n(&g, "red", NULL, "target B3\nbeaten B2\ncommander no\n",
	    (const int[]){ 1, 6 }, 2, &d, &ev);
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(g.units[1].status, SPENT);  /* hit on a 6 */
	assert_int_equal(victory(&g), 6);
	done(&d, &ev);
	game_free(&g);

	/* Target only: the beaten zone is optional. */
	red_example(&g);
	resolve_n(&g, "red", NULL, "target A1\n", (const int[]){ 4 }, 1, &d,
	    &ev);
	assert_roll(&d, 0, "3 Section in A1 at range 4", 4, 4);
	assert_int_equal(victory(&g), 6);
	done(&d, &ev);
	game_free(&g);

	/* Hold: nothing rolled, only the turn counts. */
	red_example(&g);
	resolve_n(&g, "red", NULL, "hold\n", NULL, 0, &d, &ev);
	assert_int_equal(victory(&g), 5);
	assert_int_equal(g.turn, 3);
	done(&d, &ev);
	game_free(&g);

	/* The beaten zone must be adjacent: A1 is not adjacent to B3. */
	{
		struct order_errors e;

		red_example(&g);
		assert_int_equal(parse_orders(&g, "red", 1, "target B3\n"
		    "beaten A1\n", NULL, &e), HP_EINVAL);
		assert_true(fx_has_error(&e, 6, "must be adjacent"));
		orders_errors_free(&e);
		game_free(&g);
	}
}

static void
test_red_fire_rules(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* Several sections in the target hex, then the beaten zone: each
	 * rolled, target first; hits on "equal to or more than" the
	 * distance. A section in the FUP is always hit. */
	position(&g, NULL, "C3", FRESH, "C3", SPENT, "B4", FRESH, 2);
	game_set_var(&g, "stage", 1);
	resolve_n(&g, "red", NULL, "target C3\nbeaten B4\n",
	    (const int[]){ 2, 1, 1 }, 3, &d, &ev);
	assert_roll(&d, 0, "1 Section in C3 at range 2", 2, 2);
	assert_roll(&d, 1, "2 Section in C3 at range 2", 2, 1);
	assert_roll(&d, 2, "3 Section in B4 at range 1", 1, 1);
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(g.units[1].status, SPENT);
	assert_int_equal(g.units[2].status, SPENT);
	assert_int_equal(victory(&g), 3);
	done(&d, &ev);
	game_free(&g);

	/* From the wood, at range 5, a 4 misses and a 5 hits. */
	position(&g, NULL, "A0", FRESH, "B0", FRESH, "B0", FRESH, 0);
	resolve_n(&g, "red", NULL, "target B0\n", (const int[]){ 4, 5 }, 2,
	    &d, &ev);
	assert_roll(&d, 0, "2 Section in B0 at range 5", 5, 4);
	assert_roll(&d, 1, "3 Section in B0 at range 5", 5, 5);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(g.units[2].status, SPENT);
	assert_int_equal(victory(&g), 2);
	done(&d, &ev);
	game_free(&g);
}

/* The Pl Comd's hit counts only if his section was not hit. */
static void
test_pc_hit(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* His section hit, he is hit: one count for both (+1 turn). */
	position(&g, NULL, "A0", FRESH, "B2", FRESH, "C0", FRESH, 1);
	resolve_n(&g, "red", NULL, "target B2\ncommander yes\n",
	    (const int[]){ 3, 6 }, 2, &d, &ev);
	assert_roll(&d, 1, "Pl Comd in B2 at range 3", 3, 6);
	assert_int_equal(g.units[1].status, SPENT);
	assert_int_equal(victory(&g), 2);
	assert_true(fx_event_has(&ev, "no extra count"));
	done(&d, &ev);
	game_free(&g);

	/* His section missed, he is hit: his hit counts. */
	position(&g, NULL, "A0", FRESH, "B2", FRESH, "C0", FRESH, 1);
	resolve_n(&g, "red", NULL, "target B2\ncommander yes\n",
	    (const int[]){ 2, 3 }, 2, &d, &ev);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(victory(&g), 2);
	done(&d, &ev);
	game_free(&g);

	/* Both missed. */
	position(&g, NULL, "A0", FRESH, "B2", FRESH, "C0", FRESH, 1);
	resolve_n(&g, "red", NULL, "target B2\ncommander yes\n",
	    (const int[]){ 2, 2 }, 2, &d, &ev);
	assert_int_equal(victory(&g), 1);
	done(&d, &ev);
	game_free(&g);

	/* Another section in his hex hit, his own missed: his hit counts
	 * (it is his section that matters, not his hex). */
	position(&g, NULL, "B2", FRESH, "B2", FRESH, "C0", FRESH, 1);
	resolve_n(&g, "red", NULL, "target B2\ncommander yes\n",
	    (const int[]){ 3, 2, 3 }, 3, &d, &ev);
	assert_roll(&d, 0, "1 Section", 3, 3);
	assert_roll(&d, 1, "2 Section", 3, 2);
	assert_roll(&d, 2, "Pl Comd", 3, 3);
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(victory(&g), 3);
	done(&d, &ev);
	game_free(&g);

	/* He is engaged in the beaten zone too; his section was hit there. */
	position(&g, NULL, "B3", FRESH, "B2", FRESH, "C0", FRESH, 1);
	resolve_n(&g, "red", NULL, "target B3\nbeaten B2\ncommander yes\n",
	    (const int[]){ 1, 4, 4 }, 3, &d, &ev);
	assert_roll(&d, 2, "Pl Comd in B2", 3, 4);
	assert_int_equal(g.units[0].status, FRESH);
	assert_int_equal(g.units[1].status, SPENT);
	assert_int_equal(victory(&g), 2);
	done(&d, &ev);
	game_free(&g);

	/* Not in an engaged hex: not rolled for despite 'commander yes'. */
	position(&g, NULL, "B3", FRESH, "B1", FRESH, "C0", FRESH, 1);
	resolve_n(&g, "red", NULL, "target B3\ncommander yes\n",
	    (const int[]){ 1 }, 1, &d, &ev);
	assert_false(any_roll_mentions(&d, "Pl Comd"));
	assert_int_equal(victory(&g), 1);
	done(&d, &ev);
	game_free(&g);
}

/* "If the enemy section is spent when this phase commences it
 * automatically becomes fresh and then the phase ends." */
static void
test_red_suppressed(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* Suppressed in phase 2 (1 Section with the Pl Comd rallies
	 * without a roll): one die in all, Red never fires. */
	position(&g, NULL, "B4", FRESH, "B4", FRESH, "B3", FRESH, 0);
	resolve_n(&g, "blue", "fire 1\n", NULL, (const int[]){ 2 }, 1, &d,
	    &ev);
	assert_roll(&d, 0, "1 Section fires from B4 at range 1", 2, 2);
	assert_false(any_roll_mentions(&d, "Red"));
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_equal(g.units[1].status, FRESH);
	assert_int_equal(g.units[2].status, FRESH);
	assert_int_equal(victory(&g), 1);
	assert_int_equal(g.turn, 3);
	next_window_is(&g, "blue", 1, 3);
	assert_true(fx_event_has(&ev, "recovers and does not fire"));
	done(&d, &ev);
	game_free(&g);

	/* Spent at the start of Red's window: its target is ignored. */
	position(&g, NULL, "B4", FRESH, "B4", FRESH, "B3", FRESH, 0);
	g.units[RED].status = SPENT;
	resolve_n(&g, "red", NULL, "target B4\ncommander yes\n", NULL, 0, &d,
	    &ev);
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_equal(g.units[0].status, FRESH);
	assert_int_equal(victory(&g), 1);
	assert_int_equal(g.turn, 3);
	done(&d, &ev);
	game_free(&g);
}

/* --- victory ------------------------------------------------------------ */

static void
assault(int counter, const char *from, const char *want)
{
	struct game g;
	struct dice d;
	struct events ev;

	position(&g, NULL, from, FRESH, "B2", FRESH, "B2", FRESH, 1);
	game_set_var(&g, "victory", counter);
	/* The assault ends the game at once: the fire is never rolled. */
	resolve_n(&g, "blue", "fire 2\nfire 3\nmove 1 B5\n", NULL, NULL, 0,
	    &d, &ev);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_int_equal(strncmp(g.result, want, strlen(want)), 0);
	assert_int_equal(victory(&g), counter);
	assert_int_equal(game_var(&g, "assault", 0), 1);
	assert_at(&g, 0, "B5");
	assert_int_equal(g.turn, 2);
	assert_false(g.rules->next_window(&g, &(struct window_spec){ 0 }));
	done(&d, &ev);
	game_free(&g);
}

static void
test_victory(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	assault(10, "B4", "Blue wins");
	assault(10, "A4", "Blue wins");
	assault(10, "C4", "Blue wins");
	assault(0, "B4", "Blue wins");
	assault(11, "B4", "Draw");
	assault(15, "C4", "Draw");

	/* 16 in the middle of phase 4: Red wins at once, nothing more is
	 * rolled (not 3 Section in the target hex, not the Pl Comd). */
	position(&g, NULL, "B3", FRESH, "B3", FRESH, "B3", FRESH, 0);
	game_set_var(&g, "victory", 15);
	resolve_n(&g, "red", NULL, "target B3\ncommander yes\n",
	    (const int[]){ 1, 2 }, 2, &d, &ev);
	assert_int_equal(victory(&g), 16);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_int_equal(strncmp(g.result, "Red wins", 8), 0);
	assert_int_equal(g.units[0].status, FRESH);
	assert_int_equal(g.units[1].status, SPENT);
	assert_int_equal(g.units[2].status, FRESH);
	assert_false(g.rules->next_window(&g, &(struct window_spec){ 0 }));
	done(&d, &ev);
	game_free(&g);

	/* ...and by the Pl Comd's hit. */
	position(&g, NULL, "B3", FRESH, "A0", FRESH, "A0", FRESH, 0);
	game_set_var(&g, "victory", 15);
	resolve_n(&g, "red", NULL, "target B3\ncommander yes\n",
	    (const int[]){ 1, 2 }, 2, &d, &ev);
	assert_int_equal(victory(&g), 16);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_int_equal(strncmp(g.result, "Red wins", 8), 0);
	done(&d, &ev);
	game_free(&g);

	/* 16 at the end of the turn. */
	position(&g, NULL, "B3", FRESH, "A0", FRESH, "A0", FRESH, 0);
	game_set_var(&g, "victory", 15);
	resolve_n(&g, "red", NULL, "hold\n", NULL, 0, &d, &ev);
	assert_int_equal(victory(&g), 16);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_int_equal(strncmp(g.result, "Red wins", 8), 0);
	done(&d, &ev);
	game_free(&g);

	/* ...also when the turn ends in Blue's window (Red suppressed). */
	position(&g, NULL, "B4", FRESH, "B4", FRESH, "A0", FRESH, 0);
	game_set_var(&g, "victory", 15);
	resolve_n(&g, "blue", "fire 1\n", NULL, (const int[]){ 6 }, 1, &d,
	    &ev);
	assert_int_equal(victory(&g), 16);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_int_equal(strncmp(g.result, "Red wins", 8), 0);
	done(&d, &ev);
	game_free(&g);

	/* 14 + the turn is 15: the game goes on. */
	position(&g, NULL, "B3", FRESH, "A0", FRESH, "A0", FRESH, 0);
	game_set_var(&g, "victory", 14);
	resolve_n(&g, "red", NULL, "hold\n", NULL, 0, &d, &ev);
	assert_int_equal(victory(&g), 15);
	assert_int_not_equal(g.status, GAME_FINISHED);
	assert_string_equal(g.result, "");
	assert_int_equal(g.turn, 3);
	next_window_is(&g, "blue", 1, 3);
	done(&d, &ev);
	game_free(&g);

	/* A section that only reaches the FUP does not end the game. */
	position(&g, NULL, "B3", FRESH, "A0", FRESH, "A0", FRESH, 1);
	resolve_n(&g, "blue", "move 1 B4\n", NULL, NULL, 0, &d, &ev);
	assert_int_not_equal(g.status, GAME_FINISHED);
	assert_int_equal(game_var(&g, "assault", 0), 0);
	assert_int_equal(g.units[0].status, SPENT); /* adjacent: no rally */
	done(&d, &ev);
	game_free(&g);
}

/* --- windows and standing orders ---------------------------------------- */

static void
test_windows(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	fx_fam_game(&g, NULL);
	next_window_is(&g, "blue", 1, 1);
	resolve_n(&g, "blue", "deploy 1 B0\ndeploy 2 B0\ndeploy 3 B0\n", NULL,
	    NULL, 0, &d, &ev);
	done(&d, &ev);
	next_window_is(&g, "red", 2, 1);
	assert_int_equal(victory(&g), 0);
	resolve_n(&g, "red", NULL, "target B0\ncommander yes\n",
	    (const int[]){ 1, 1, 1, 1 }, 4, &d, &ev);
	assert_roll(&d, 3, "Pl Comd in B0 at range 5", 5, 1);
	done(&d, &ev);
	next_window_is(&g, "blue", 1, 2);
	assert_int_equal(victory(&g), 1);
	/* The Pl Comd moves with 1 Section and rallies it: no die. */
	resolve_n(&g, "blue", "move 1 B1\n", NULL, NULL, 0, &d, &ev);
	assert_at(&g, PC, "B1");
	assert_int_equal(g.units[0].status, FRESH);
	done(&d, &ev);
	next_window_is(&g, "red", 2, 2);
	resolve_n(&g, "red", NULL, "target B1\n", (const int[]){ 6 }, 1, &d,
	    &ev);
	done(&d, &ev);
	next_window_is(&g, "blue", 1, 3);
	assert_int_equal(victory(&g), 3);
	game_free(&g);
}

static void
test_red_standing(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;

	(void)state;
	/* No standing orders: the default policy (best), in Blue's window,
	 * the Pl Comd engaged. Deployed all in B0 with him: three sections
	 * and the Pl Comd rolled at range 5. */
	fx_fam_game(&g, "red-standing");
	next_window_is(&g, "blue", 1, 1);
	resolve_n(&g, "blue", "deploy 1 B0\ndeploy 2 B0\ndeploy 3 B0\n", NULL,
	    (const int[]){ 5, 1, 1, 1 }, 4, &d, &ev);
	assert_roll(&d, 0, "Red fires on 1 Section in B0", 5, 5);
	assert_roll(&d, 3, "Pl Comd in B0", 5, 1);
	assert_int_equal(g.units[0].status, SPENT);
	assert_int_equal(victory(&g), 2);
	assert_true(fx_event_has(&ev, "default policy"));
	next_window_is(&g, "blue", 1, 2);
	assert_int_equal(game_var(&g, "stage", 0), 0);
	done(&d, &ev);
	game_free(&g);

	/* policy nearest, commander no, on the seed's position: rally
	 * first (1 and 3 Sections, each 1 hex from the Pl Comd, stay spent
	 * on 1s), then B3 (nearest) with B2 (the adjacent hex with most
	 * sections); 3 Section in A1 is not engaged, nor the Pl Comd. */
	position(&g, "red-standing", "B3", SPENT, "B2", FRESH, "A1", SPENT, 1);
	resolve_n(&g, "blue", "", "policy nearest\ncommander no\n",
	    (const int[]){ 1, 1, 3, 2 }, 4, &d, &ev);
	assert_roll(&d, 0, "1 Section in B3 rallies", 2, 1);
	assert_roll(&d, 1, "3 Section in A1 rallies", 2, 1);
	assert_roll(&d, 2, "Red fires on 1 Section in B3", 2, 3);
	assert_roll(&d, 3, "Red fires on 2 Section in B2", 3, 2);
	assert_int_equal(victory(&g), 2);
	assert_int_equal(g.turn, 3);
	assert_true(fx_event_has(&ev, "standing 'nearest'"));
	next_window_is(&g, "blue", 1, 3);
	done(&d, &ev);
	game_free(&g);

	/* policy best: same hexes here, and the Pl Comd (commander yes by
	 * default) too. */
	position(&g, "red-standing", "B3", SPENT, "B2", FRESH, "A1", SPENT, 1);
	resolve_n(&g, "blue", "", "policy best\n",
	    (const int[]){ 1, 1, 1, 1, 6 }, 5, &d, &ev);
	assert_roll(&d, 2, "1 Section in B3", 2, 1);
	assert_roll(&d, 3, "2 Section in B2", 3, 1);
	assert_roll(&d, 4, "Pl Comd in B2", 3, 6);
	assert_int_equal(victory(&g), 2);
	done(&d, &ev);
	game_free(&g);

	/* policy hold: nothing fired. */
	position(&g, "red-standing", "B3", FRESH, "B2", FRESH, "A1", FRESH, 1);
	resolve_n(&g, "blue", "", "policy hold\ncommander yes\n", NULL, 0, &d,
	    &ev);
	assert_int_equal(victory(&g), 1);
	assert_int_equal(g.turn, 3);
	done(&d, &ev);
	game_free(&g);

	/* Red suppressed in Blue's window: recovers, standing orders or
	 * not. */
	position(&g, "red-standing", "B4", FRESH, "B4", FRESH, "A1", FRESH, 1);
	resolve_n(&g, "blue", "fire 1\n", "policy best\n", (const int[]){ 3 },
	    1, &d, &ev);
	assert_int_equal(g.units[RED].status, FRESH);
	assert_int_equal(victory(&g), 1);
	done(&d, &ev);
	game_free(&g);

	/* Without the option Red's window follows and standing orders are
	 * refused. */
	position(&g, NULL, "B3", FRESH, "B2", FRESH, "A1", FRESH, 1);
	{
		struct order_errors e;

		assert_int_equal(parse_orders(&g, "standing", 1, "policy best\n",
		    NULL, &e), HP_EINVAL);
		assert_true(fx_has_error(&e, 0, "option red-standing"));
		orders_errors_free(&e);
	}
	resolve_n(&g, "blue", "", NULL, NULL, 0, &d, &ev);
	next_window_is(&g, "red", 2, 2);
	done(&d, &ev);
	game_free(&g);
}

/* --- the built-in opponent ---------------------------------------------- */

/* Expected hits, computed independently of the ruleset: each engaged
 * section hits on d6 >= its distance to the hill; the Pl Comd, engaged,
 * counts only when his section (always in his hex) is not hit. */
static double
expect_hits(const struct game *g, struct hex t, const struct hex *bz,
    bool cmd)
{
	struct hex hill = fx_hex(g, "B5");
	double e = 0, p;
	int s;

	for (s = 0; s < 3; s++)
		if (hex_eq(g->units[s].pos, t) ||
		    (bz && hex_eq(g->units[s].pos, *bz)))
			e += (7 - hex_distance(g->units[s].pos, hill)) / 6.0;
	if (cmd && (hex_eq(g->units[PC].pos, t) ||
	    (bz && hex_eq(g->units[PC].pos, *bz)))) {
		p = (7 - hex_distance(g->units[PC].pos, hill)) / 6.0;
		e += p * (1 - p);
	}
	return e;
}

static double
best_expect(const struct game *g)
{
	double best = 0, e;
	int s, t;

	for (s = 0; s < 3; s++) {
		e = expect_hits(g, g->units[s].pos, NULL, true);
		if (e > best)
			best = e;
		for (t = 0; t < 3; t++) {
			if (!hex_adjacent(g->units[s].pos, g->units[t].pos))
				continue;
			e = expect_hits(g, g->units[s].pos, &g->units[t].pos,
			    true);
			if (e > best)
				best = e;
		}
	}
	return best;
}

static bool
holds_section(const struct game *g, struct hex h)
{
	int s;

	for (s = 0; s < 3; s++)
		if (hex_eq(g->units[s].pos, h))
			return true;
	return false;
}

static void
test_red_choose(void **state)
{
	struct game g;
	struct fam_orders o;
	struct sbuf b;
	struct window_spec w;
	struct order_errors e;
	int i;

	(void)state;
	/* 1 Section alone in C3 is nearest; 2 and 3 stacked in B1 with the
	 * Pl Comd: 1/2 + 1/2 + 1/2 * 1/2 = 1.25 expected hits against
	 * 5/6. */
	position(&g, NULL, "C3", FRESH, "B1", FRESH, "B1", FRESH, 1);
	fam_parsed_init(&o);
	fam_red_choose(&g, FAM_POLICY_BEST, &o);
	assert_true(o.has_target);
	assert_true(hex_eq(o.target, fx_hex(&g, "B1")));
	assert_false(o.has_beaten);
	assert_int_equal(o.engage_cmd, 1);
	assert_false(o.hold);
	fam_parsed_init(&o);
	fam_red_choose(&g, FAM_POLICY_NEAREST, &o);
	assert_true(hex_eq(o.target, fx_hex(&g, "C3")));
	assert_false(o.has_beaten);
	fam_parsed_init(&o);
	fam_red_choose(&g, FAM_POLICY_HOLD, &o);
	assert_true(o.hold);
	assert_false(o.has_target);
	game_free(&g);

	/* 1 alone in the FUP (1.0) against 2 in A1 with the Pl Comd and 3
	 * in B1, adjacent: 1/2 + 1/2 + 1/4 = 1.25. */
	position(&g, NULL, "B4", FRESH, "A1", FRESH, "B1", FRESH, 1);
	fam_parsed_init(&o);
	fam_red_choose(&g, FAM_POLICY_BEST, &o);
	assert_true(o.has_target && o.has_beaten);
	assert_true((hex_eq(o.target, fx_hex(&g, "A1")) &&
	    hex_eq(o.beaten, fx_hex(&g, "B1"))) ||
	    (hex_eq(o.target, fx_hex(&g, "B1")) &&
	    hex_eq(o.beaten, fx_hex(&g, "A1"))));
	fam_parsed_init(&o);
	fam_red_choose(&g, FAM_POLICY_NEAREST, &o);
	assert_true(hex_eq(o.target, fx_hex(&g, "B4")));
	assert_false(o.has_beaten);

	/* The opponent's Red orders say the same and parse. */
	memset(&w, 0, sizeof w);
	w.turn = g.turn;
	w.number = 2;
	w.sides = 2;
	strlcpy_(w.name, "red", sizeof w.name);
	sbuf_init(&b);
	g.rules->opponent(&g, &w, 1, &b);
	assert_true(strcmp(b.buf, "target A1\nbeaten B1\ncommander yes\n")
	    == 0 || strcmp(b.buf, "target B1\nbeaten A1\ncommander yes\n")
	    == 0);
	assert_int_equal(parse_orders(&g, "red", 1, b.buf, NULL, &e), HP_OK);
	orders_errors_free(&e);
	sbuf_free(&b);
	game_free(&g);

	/* The seed's position: B3 and B2 under both policies. */
	red_example(&g);
	for (i = FAM_POLICY_BEST; i <= FAM_POLICY_NEAREST; i++) {
		fam_parsed_init(&o);
		fam_red_choose(&g, i, &o);
		assert_true(o.has_target && o.has_beaten);
		assert_true(hex_eq(o.target, fx_hex(&g, "B3")));
		assert_true(hex_eq(o.beaten, fx_hex(&g, "B2")));
	}
	game_free(&g);

	/* Random positions: 'best' attains the maximum expected hits over
	 * every legal choice, and its choice is legal. */
	rng_state = 2024;
	for (i = 0; i < 500; i++) {
		double got;

		position(&g, NULL, board[rng(15)], (int)rng(2),
		    board[rng(15)], (int)rng(2), board[rng(15)], (int)rng(2),
		    (int)rng(3));
		fam_parsed_init(&o);
		fam_red_choose(&g, FAM_POLICY_BEST, &o);
		assert_true(o.has_target);
		assert_true(holds_section(&g, o.target));
		if (o.has_beaten) {
			assert_true(holds_section(&g, o.beaten));
			assert_true(hex_adjacent(o.target, o.beaten));
		}
		got = expect_hits(&g, o.target, o.has_beaten ? &o.beaten :
		    NULL, o.engage_cmd > 0);
		assert_true(fabs(got - best_expect(&g)) < 1e-9);
		/* The opponent's orders parse in Red's window. */
		sbuf_init(&b);
		g.rules->opponent(&g, &w, 1, &b);
		if (parse_orders(&g, "red", 1, b.buf, NULL, &e) != HP_OK)
			fprintf(stderr, "red opponent:\n%s", b.buf);
		assert_int_equal(e.n, 0);
		orders_errors_free(&e);
		sbuf_free(&b);
		game_free(&g);
	}
}

static bool
fresh_in_fup(const struct game *g, int s)
{
	return g->units[s].status == FRESH &&
	    hex_adjacent(g->units[s].pos, fx_hex(g, "B5"));
}

static void
test_blue_opponent(void **state)
{
	struct game g;
	struct fam_orders o;
	struct window_spec w;
	struct order_errors e;
	struct sbuf b;
	struct dice d;
	struct events ev;
	int i, s, fup, assaults = 0;

	(void)state;
	memset(&w, 0, sizeof w);
	w.number = 1;
	w.sides = 1;
	strlcpy_(w.name, "blue", sizeof w.name);

	/* Turn 1: a deployment that parses and resolves. */
	fx_fam_game(&g, NULL);
	w.turn = 1;
	sbuf_init(&b);
	g.rules->opponent(&g, &w, 0, &b);
	assert_int_equal(parse_orders(&g, "blue", 0, b.buf, &o, &e), HP_OK);
	orders_errors_free(&e);
	for (s = 0; s < 3; s++)
		assert_int_not_equal(o.deploy_line[s], 0);
	{
		static const int six[10] = { 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 };

		assert_int_equal(fx_resolve(&g, "blue", b.buf, NULL, six, 10,
		    &d, &ev), HP_OK);
		assert_false(d.script_exhausted);
	}
	assert_true(g.units[0].placed && g.units[PC].placed);
	assert_int_equal(g.units[PC].attached, o.pc_deploy >= 0 ?
	    o.pc_deploy : 0);
	done(&d, &ev);
	sbuf_free(&b);
	game_free(&g);

	rng_state = 777;
	for (i = 0; i < 2000; i++) {
		position(&g, NULL, board[rng(15)], (int)rng(2),
		    board[rng(15)], (int)rng(2), board[rng(15)], (int)rng(2),
		    (int)rng(3));
		g.turn = 2 + (int)rng(14);
		game_set_var(&g, "victory", (int)rng(16));
		g.units[RED].status = (int)rng(2);
		w.turn = g.turn;
		sbuf_init(&b);
		g.rules->opponent(&g, &w, 0, &b);
		if (parse_orders(&g, "blue", 0, b.buf ? b.buf : "", &o, &e) !=
		    HP_OK) {
			char *t = orders_errors_text(&e);

			fprintf(stderr, "blue opponent:\n%s--\n%s", b.buf, t);
			free(t);
		}
		assert_int_equal(e.n, 0);
		orders_errors_free(&e);
		fup = -1;
		for (s = 0; s < 3; s++)
			if (fresh_in_fup(&g, s))
				fup = s;
		if (fup >= 0) {
			/* It assaults, with a fresh section of the FUP,
			 * and that ends the game. */
			int v = victory(&g), who = -1;

			for (s = 0; s < 3; s++)
				if (o.move_line[s] && hex_eq(o.move_to[s],
				    fx_hex(&g, "B5")))
					who = s;
			assert_true(who >= 0);
			assert_true(fresh_in_fup(&g, who));
			resolve_n(&g, "blue", b.buf, NULL, NULL, 0, &d, &ev);
			assert_int_equal(g.status, GAME_FINISHED);
			assert_int_equal(strncmp(g.result, v <= 10 ?
			    "Blue wins" : "Draw", v <= 10 ? 9 : 4), 0);
			done(&d, &ev);
			assaults++;
		} else {
			for (s = 0; s < 3; s++)
				assert_false(o.move_line[s] && hex_eq(
				    o.move_to[s], fx_hex(&g, "B5")));
		}
		sbuf_free(&b);
		game_free(&g);
	}
	/* The random positions did exercise the assault. */
	assert_true(assaults > 100);
}

/* --- self-play ---------------------------------------------------------- */

static void
test_self_play(void **state)
{
	static const unsigned char master[] = "hexpost test master";
	struct sim_result r;
	struct hp_error err = { 0, "" };
	int i, rc, outcome;

	(void)state;
	rc = sim_run(&ruleset_fam, NULL, 200, master, sizeof master - 1, &r,
	    &err);
	if (rc != HP_OK)
		fprintf(stderr, "sim_run: %s\n", err.msg);
	assert_int_equal(rc, HP_OK);
	assert_int_equal(r.games, 200);
	assert_int_equal(r.outcome[0] + r.outcome[1] + r.outcome[2], 200);
	/* At least one window a game, at most two a turn for 16 turns. */
	assert_true(r.windows >= 200 && r.windows <= 200 * 32);
	assert_true(r.rolls > 200);
	/* Every outcome happens (these dice give 24, 38 and 138). */
	assert_true(r.outcome[0] > 0 && r.outcome[1] > 0 && r.outcome[2] > 0);

	/* Each final state agrees with its result. */
	for (i = 0; i < 100; i++) {
		struct game g;
		long windows = 0, rolls = 0;
		int v;

		game_init(&g);
		rc = sim_game(&ruleset_fam, i % 2 ? "red-standing" : NULL, i,
		    master, sizeof master - 1, &g, &outcome, &windows, &rolls,
		    &err);
		assert_int_equal(rc, HP_OK);
		assert_int_equal(g.status, GAME_FINISHED);
		v = victory(&g);
		assert_true(windows >= 1);
		assert_true(g.turn >= 1 && g.turn <= 16);
		switch (outcome) {
		case 0:
			assert_int_equal(strncmp(g.result, "Blue wins", 9), 0);
			assert_true(game_var(&g, "assault", 0) > 0);
			assert_true(v <= 10);
			break;
		case 1:
			assert_int_equal(strncmp(g.result, "Draw", 4), 0);
			assert_true(game_var(&g, "assault", 0) > 0);
			assert_true(v >= 11 && v <= 15);
			break;
		case 2:
			assert_int_equal(strncmp(g.result, "Red wins", 8), 0);
			assert_int_equal(game_var(&g, "assault", 0), 0);
			assert_int_equal(v, 16);
			break;
		default:
			fail();
		}
		/* The assaulting section is on the hill. */
		if (outcome != 2)
			assert_true(hex_eq(g.units[game_var(&g, "assault", 0) -
			    1].pos, fx_hex(&g, "B5")));
		game_free(&g);
	}

	rc = sim_run(&ruleset_fam, "red-standing", 50, master,
	    sizeof master - 1, &r, &err);
	assert_int_equal(rc, HP_OK);
	assert_int_equal(r.outcome[0] + r.outcome[1] + r.outcome[2], 50);
	assert_true(r.windows >= 50 && r.windows <= 50 * 16);
}

/* The opponent's parsed orders (opponent_parsed, which simulate resolves)
 * are what parsing its order file gives, byte for byte, and its text is
 * fam_opponent's: in every window of 300 games, both options. */
static void
test_opponent_parsed(void **state)
{
	struct hp_error err = { 0, "" };
	int i, s, guard, windows = 0, blue = 0, red = 0;

	(void)state;
	assert_non_null(ruleset_fam.opponent_parsed);
	for (i = 0; i < 300; i++) {
		struct window_spec w, next;
		struct game g;
		bool more;

		game_init(&g);
		g.rules = &ruleset_fam;
		snprintf(g.name, sizeof g.name, "op-%d", i);
		if (i % 2)
			strcpy(g.options, "red-standing");
		assert_int_equal(ruleset_setup(&g, NULL, NULL, NULL, NULL,
		    &err), HP_OK);
		for (guard = 0; guard < 100 && g.status != GAME_FINISHED &&
		    ruleset_fam.next_window(&g, &w); guard++) {
			unsigned char key[DICE_KEYLEN];
			char *raw[GAME_MAX_SIDES] = { 0 };
			struct window_stop stop = { -1, 0 };
			struct events ev;
			struct dice d;

			for (s = 0; s < g.nsides; s++) {
				struct sbuf b;
				void *mine, *parsed = NULL;

				if (!(w.sides & (1u << s)))
					continue;
				sbuf_init(&b);
				window_order_header(&g, &w, s, &b);
				mine = ruleset_fam.opponent_parsed(&g, &w, s, &b);
				raw[s] = window_opponent_orders(&g, &w, s);
				assert_string_equal(b.buf, raw[s]);
				assert_int_equal(window_parse_stored(&g, &w, s,
				    raw[s], &parsed, NULL, &err), HP_OK);
				assert_non_null(mine);
				assert_memory_equal(mine, parsed,
				    sizeof(struct fam_orders));
				ruleset_fam.free_orders(mine);
				ruleset_fam.free_orders(parsed);
				sbuf_free(&b);
				if (s == 0)
					blue++;
				else
					red++;
			}
			memset(key, 0, sizeof key);
			key[0] = (unsigned char)i;
			key[1] = (unsigned char)(i >> 8);
			key[2] = (unsigned char)guard;
			dice_init_stream(&d, key);
			events_init(&ev);
			ev.quiet = true;
			assert_int_equal(window_resolve_resume(&g, &w,
			    (const char *const *)raw, NULL, NULL, &stop, &d, &ev,
			    &err), HP_OK);
			assert_int_equal(window_advance(&g, &stop, &next, &more,
			    &err), HP_OK);
			dice_free(&d);
			events_free(&ev);
			for (s = 0; s < GAME_MAX_SIDES; s++)
				free(raw[s]);
			windows++;
		}
		assert_int_equal(g.status, GAME_FINISHED);
		game_free(&g);
	}
	/* Both sides' opponents were compared, many times. */
	assert_true(windows > 1000 && blue > 1000 && red > 100);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_move_seed_example),
		cmocka_unit_test(test_deploy_defaults),
		cmocka_unit_test(test_move_rules),
		cmocka_unit_test(test_fire),
		cmocka_unit_test(test_rally_seed_example),
		cmocka_unit_test(test_rally_rules),
		cmocka_unit_test(test_commander),
		cmocka_unit_test(test_red_seed_example),
		cmocka_unit_test(test_red_fire_rules),
		cmocka_unit_test(test_pc_hit),
		cmocka_unit_test(test_red_suppressed),
		cmocka_unit_test(test_victory),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_red_standing),
		cmocka_unit_test(test_red_choose),
		cmocka_unit_test(test_blue_opponent),
		cmocka_unit_test(test_self_play),
		cmocka_unit_test(test_opponent_parsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
