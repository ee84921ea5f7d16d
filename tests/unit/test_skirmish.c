/* Unit tests for the WWII skirmish ruleset (seed 003, src/rules/skirmish/):
 * every table entry and modifier (6.2, 6.3, 8.2, 8.3, 9.1, 10.1, 11.1,
 * 16.1) checked directly and through whole turns resolved with scripted
 * dice, asserting on the state and on the dice log (each roll's target);
 * the order parser's errors with their lines, the same words for an
 * unseen and a non-existent enemy; hidden deployment and what a side is
 * shown; the built-in opponent playing whole games of crossroads. The
 * board is flat-topped, so a column (A1, A2, A3 ...) is a straight line
 * of adjacent hexes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "skirmish.h"
#include "view.h"
#include "window.h"

#define BLUE 0
#define RED 1

/* A 10 x 10 open board with the unit lines units; every element starts
 * visible (the tests hide what they need). */
static void
board(struct game *g, const char *units, const char *options)
{
	struct hp_error err = { 0, "" };
	struct order_errors errs;
	struct sbuf t;
	int r, i;

	sbuf_init(&t);
	sbuf_puts(&t, "ruleset: skirmish-ww2\nname: test\nmap: 10 10\n"
	    "legend: . open\n");
	for (r = 0; r < 10; r++)
		sbuf_puts(&t, "terrain: ..........\n");
	sbuf_printf(&t, "side: blue Blue\nside: red Red\n"
	    "option: home blue west\noption: home red east\n%s", units);
	game_init(g);
	g->rules = ruleset_find("skirmish-ww2");
	assert_non_null(g->rules);
	strlcpy_(g->name, "test", sizeof g->name);
	strlcpy_(g->options, options ? options : "turns=10", sizeof g->options);
	orders_errors_init(&errs);
	if (ruleset_setup(g, NULL, t.buf, NULL, &errs, &err) != HP_OK) {
		char *e = orders_errors_text(&errs);

		fprintf(stderr, "setup: %s\n%s", err.msg, e);
		free(e);
		fail();
	}
	orders_errors_free(&errs);
	sbuf_free(&t);
	for (i = 0; i < g->nunits; i++)
		g->units[i].flags &= ~(unsigned)SKM_F_HIDDEN;
}

static int
I(const struct game *g, const char *id)
{
	int i = game_unit_index(g, id);

	assert_true(i >= 0);
	return i;
}

static struct game_unit *
U(struct game *g, const char *id)
{
	return &g->units[I(g, id)];
}

/* Set the terrain of hex label. */
static void
terrain(struct game *g, const char *label, const char *t)
{
	struct game_hex *gh = game_hex_at(g, fx_hex(g, label));

	assert_non_null(gh);
	strlcpy_(gh->terrain, t, sizeof gh->terrain);
}

/* Print the dice log and events (on a failed expectation). */
static void
dump(const struct dice *d, const struct events *ev)
{
	size_t k;

	for (k = 0; k < d->nlog; k++)
		fprintf(stderr, "  #%d %s (target %d): %d\n", d->log[k].seq,
		    d->log[k].purpose, d->log[k].target, d->log[k].result);
	for (k = 0; k < d->nslog; k++)
		fprintf(stderr, "  S%d %s (target %d): %d\n", d->slog[k].seq,
		    d->slog[k].purpose, d->slog[k].target, d->slog[k].result);
	for (k = 0; k < ev->n; k++)
		fprintf(stderr, "  [%s] %s\n", ev->v[k].phase, ev->v[k].text);
}

/* Resolve the turn's window with both sides' bodies and scripted dice,
 * which must be used up exactly (public and sealed together). */
static void
turn(struct game *g, const char *blue, const char *red, const int *script,
    size_t n, struct dice *d, struct events *ev)
{
	struct hp_error err = { 0, "" };
	struct window_spec w;
	char *raw[GAME_MAX_SIDES] = { 0 };

	assert_true(skm_next_window(g, &w));
	raw[BLUE] = fx_orders(g, "orders", "blue", blue);
	raw[RED] = fx_orders(g, "orders", "red", red);
	dice_init_scripted(d, script, n);
	events_init(ev);
	if (window_resolve(g, &w, (const char *const *)raw, d, ev, &err) !=
	    HP_OK)
		fprintf(stderr, "resolve: %s\n", err.msg);
	if (d->script_exhausted || d->scriptpos != n)
		dump(d, ev);
	assert_false(d->script_exhausted);
	assert_int_equal(d->scriptpos, n);
	free(raw[BLUE]);
	free(raw[RED]);
}

static void
done(struct dice *d, struct events *ev)
{
	dice_free(d);
	events_free(ev);
}

/* The public roll seq (1-based), asserting its target. */
static void
roll_target(const struct dice *d, int seq, int target, const char *what)
{
	assert_true(seq >= 1 && (size_t)seq <= d->nlog);
	if (d->log[seq - 1].target != target ||
	    strstr(d->log[seq - 1].purpose, what) == NULL)
		fprintf(stderr, "roll %d: %s target %d\n", seq,
		    d->log[seq - 1].purpose, d->log[seq - 1].target);
	assert_int_equal(d->log[seq - 1].target, target);
	assert_non_null(strstr(d->log[seq - 1].purpose, what));
}

/* Parse body for side; the errors as text (caller frees), NULL if none. */
static char *
parse_errs(const struct game *g, int side, const char *body)
{
	struct order_errors errs;
	struct order_header h;
	struct order_body b;
	struct window_spec w;
	struct sbuf canon;
	char *text = fx_orders(g, "orders", g->sides[side].name, body), *e;
	void *o = NULL;

	assert_true(skm_next_window(g, &w));
	orders_errors_init(&errs);
	assert_int_equal(orders_parse_file(text, strlen(text), &h, &b, &errs),
	    HP_OK);
	sbuf_init(&canon);
	skm_parse(g, &w, side, &b, &o, &canon, &errs);
	skm_free_orders(o);
	e = errs.n ? orders_errors_text(&errs) : NULL;
	orders_errors_free(&errs);
	orders_body_free(&b);
	sbuf_free(&canon);
	free(text);
	return e;
}

/* --- the tables -------------------------------------------------------- */

/* 6.2: to hit and to kill by cover. */
static void
t_table_62(void **state)
{
	struct game g;

	(void)state;
	assert_int_equal(skm_to_hit(SKM_OPEN), 4);
	assert_int_equal(skm_to_kill(SKM_OPEN), 4);
	assert_int_equal(skm_to_hit(SKM_LIGHT), 5);
	assert_int_equal(skm_to_kill(SKM_LIGHT), 4);
	assert_int_equal(skm_to_hit(SKM_HEAVY), 5);
	assert_int_equal(skm_to_kill(SKM_HEAVY), 5);
	assert_int_equal(skm_to_hit(SKM_REINF), 6);
	assert_int_equal(skm_to_kill(SKM_REINF), 5);
	/* Cover classes of the terrain and of a linear obstacle. */
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A5\n", NULL);
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_OPEN);
	terrain(&g, "A5", "woods");
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_LIGHT);
	terrain(&g, "A5", "house");
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_LIGHT);
	terrain(&g, "A5", "stone");
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_HEAVY);
	terrain(&g, "A5", "rubble");
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_HEAVY);
	terrain(&g, "A5", "trench");
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_HEAVY);
	terrain(&g, "A5", "bunker");
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_REINF);
	terrain(&g, "A5", "open");
	/* A hedge on the side of A5 facing the firer (north, dir 2). */
	game_hex_at(&g, fx_hex(&g, "A5"))->edge[2] = SKM_E_HEDGE;
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_LIGHT);
	game_hex_at(&g, fx_hex(&g, "A5"))->edge[2] = SKM_E_WALL;
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A1")),
	    SKM_HEAVY);
	/* The obstacle on the far side gives nothing. */
	assert_int_equal(skm_cover(&g, fx_hex(&g, "A5"), fx_hex(&g, "A9")),
	    SKM_OPEN);
	game_free(&g);
}

/* 6.3: every to-hit modifier, one at a time. */
static void
t_table_63(void **state)
{
	struct game g;
	char why[200];
	struct hex th;
	int b1, bmg, r1;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: bmg mmg blue C1\n"
	    "unit: r1 rifle red A5\n", NULL);
	b1 = I(&g, "b1");
	bmg = I(&g, "bmg");
	r1 = I(&g, "r1");
	th = U(&g, "r1")->pos;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), 0);
	/* Hindrance: +1 for each instance. */
	terrain(&g, "A3", "scrub");
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), 1);
	terrain(&g, "A2", "crops");
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), 2);
	assert_non_null(strstr(why, "hindrance +2"));
	terrain(&g, "A2", "open");
	terrain(&g, "A3", "open");
	/* Stationary fire vs movement in open: -1, not for direct HE, not
	 * when the target is in cover or the fire is moving. */
	U(&g, "r1")->flags |= SKM_F_MOVED;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), -1);
	assert_non_null(strstr(why, "stationary fire vs movement in open -1"));
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, true, NULL, 0), 0);
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, false, false, NULL, 0),
	    0);
	terrain(&g, "A5", "woods");
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, NULL, 0),
	    0);
	terrain(&g, "A5", "open");
	/* Target using At the Double: -1, not for direct HE. */
	U(&g, "r1")->flags |= SKM_F_DOUBLE;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, false, false, why,
	    sizeof why), -1);
	assert_non_null(strstr(why, "target At the Double -1"));
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, false, true, NULL, 0),
	    0);
	U(&g, "r1")->flags = 0;
	/* Long range: +1 beyond 6 hexes (12") for a rifle. */
	U(&g, "r1")->pos = fx_hex(&g, "A7");
	assert_int_equal(skm_fire_mod(&g, b1, r1, fx_hex(&g, "A7"), true,
	    false, NULL, 0), 0);
	U(&g, "r1")->pos = fx_hex(&g, "A8");
	assert_int_equal(skm_fire_mod(&g, b1, r1, fx_hex(&g, "A8"), true,
	    false, why, sizeof why), 1);
	assert_non_null(strstr(why, "long range +1"));
	U(&g, "r1")->pos = th;
	/* SW lack of crew: +1 for each crewman less than full. */
	U(&g, "bmg")->pos = fx_hex(&g, "A2");
	assert_int_equal(skm_fire_mod(&g, bmg, r1, th, true, false, NULL, 0),
	    0);
	U(&g, "bmg")->strength = 1;
	assert_int_equal(skm_fire_mod(&g, bmg, r1, th, true, false, why,
	    sizeof why), 2);
	assert_non_null(strstr(why, "SW lack of crew +2"));
	/* A rifle section that lost men is no support weapon. */
	U(&g, "b1")->strength = 3;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, NULL, 0),
	    0);
	/* Moving and firing +1; suppressed +1; uphill +1; green +1;
	 * veteran -1. */
	U(&g, "b1")->flags |= SKM_F_MOVED;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, false, false, why,
	    sizeof why), 1);
	assert_non_null(strstr(why, "moving and firing +1"));
	U(&g, "b1")->flags = 0;
	U(&g, "b1")->status = SKM_SUPP;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), 1);
	assert_non_null(strstr(why, "suppressed firing +1"));
	U(&g, "b1")->status = SKM_GOOD;
	game_hex_at(&g, th)->elevation = 1;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), 1);
	assert_non_null(strstr(why, "target uphill +1"));
	/* Firing downhill is no modifier. */
	assert_int_equal(skm_fire_mod(&g, r1, b1, U(&g, "b1")->pos, true,
	    false, NULL, 0), 0);
	game_hex_at(&g, th)->elevation = 0;
	U(&g, "b1")->x[SKM_X_QUAL] = SKM_GREEN;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), 1);
	assert_non_null(strstr(why, "green firing +1"));
	U(&g, "b1")->x[SKM_X_QUAL] = SKM_VETERAN;
	assert_int_equal(skm_fire_mod(&g, b1, r1, th, true, false, why,
	    sizeof why), -1);
	assert_non_null(strstr(why, "veteran firing -1"));
	game_free(&g);
}

/* 8.2: the targeting table and every modifier. */
static void
t_table_82(void **state)
{
	struct game g;
	char why[200];
	struct hex h;
	int m, fo, b1;

	(void)state;
	board(&g, "unit: bmor mortar blue A1\nunit: bfo fo blue C1\n"
	    "unit: b1 rifle blue E1\nunit: r1 rifle red A6\n", NULL);
	m = I(&g, "bmor");
	fo = I(&g, "bfo");
	b1 = I(&g, "b1");
	h = fx_hex(&g, "A6");
	/* Attached (the firer sees), direct (an observer), general. */
	assert_int_equal(skm_target_number(&g, m, -1, h, false, false, NULL,
	    0), 3);
	assert_int_equal(skm_target_number(&g, m, -1, h, true, false, NULL,
	    0), 1);
	assert_int_equal(skm_target_number(&g, m, fo, h, false, false, NULL,
	    0), 4);
	assert_int_equal(skm_target_number(&g, m, fo, h, true, false, NULL,
	    0), 2);
	assert_int_equal(skm_target_number(&g, m, b1, h, false, false, NULL,
	    0), 5);
	assert_int_equal(skm_target_number(&g, m, b1, h, true, false, NULL,
	    0), 3);
	/* Hindrance between spotter and target: +1 each. */
	terrain(&g, "A3", "scrub");
	terrain(&g, "A4", "crops");
	assert_int_equal(skm_target_number(&g, m, -1, h, false, false, why,
	    sizeof why), 5);
	assert_non_null(strstr(why, "hindrance spotter-target +2"));
	terrain(&g, "A3", "open");
	terrain(&g, "A4", "open");
	/* Veteran firer or spotter -1 (once), green +1, suppressed +1. */
	U(&g, "bfo")->x[SKM_X_QUAL] = SKM_VETERAN;
	assert_int_equal(skm_target_number(&g, m, fo, h, false, false, NULL,
	    0), 3);
	U(&g, "bmor")->x[SKM_X_QUAL] = SKM_VETERAN;
	assert_int_equal(skm_target_number(&g, m, fo, h, false, false, NULL,
	    0), 3);
	U(&g, "bfo")->x[SKM_X_QUAL] = SKM_GREEN;
	U(&g, "bmor")->x[SKM_X_QUAL] = SKM_REGULAR;
	assert_int_equal(skm_target_number(&g, m, fo, h, false, false, why,
	    sizeof why), 5);
	assert_non_null(strstr(why, "green firer or spotter +1"));
	U(&g, "bfo")->x[SKM_X_QUAL] = SKM_REGULAR;
	U(&g, "bmor")->status = SKM_SUPP;
	assert_int_equal(skm_target_number(&g, m, fo, h, false, false, why,
	    sizeof why), 5);
	assert_non_null(strstr(why, "suppressed firer or spotter +1"));
	U(&g, "bmor")->status = SKM_GOOD;
	/* Subsequent attempts at the same point: -1. */
	assert_int_equal(skm_target_number(&g, m, fo, h, false, true, why,
	    sizeof why), 3);
	assert_non_null(strstr(why, "subsequent attempt -1"));
	/* SW lack of crew: +1 for each crewman less. */
	U(&g, "bmor")->strength = 1;
	assert_int_equal(skm_target_number(&g, m, fo, h, false, false, why,
	    sizeof why), 6);
	assert_non_null(strstr(why, "SW lack of crew +2"));
	game_free(&g);
}

/* 8.3: HE situation modifiers. */
static void
t_table_83(void **state)
{
	struct game g;
	int m, r1, hit, kill;
	struct hex c;

	(void)state;
	board(&g, "unit: bmor mortar blue A1\nunit: r1 rifle red E5\n", NULL);
	m = I(&g, "bmor");
	r1 = I(&g, "r1");
	c = fx_hex(&g, "E5");
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 4);
	assert_int_equal(kill, 4);
	/* Table 6.2 by cover, e.g. rubble 5+/5+. */
	terrain(&g, "E5", "rubble");
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 5);
	assert_int_equal(kill, 5);
	/* Woods: tree bursts make it 4+/4+ (not light cover's 5+/4+). */
	terrain(&g, "E5", "woods");
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 4);
	assert_int_equal(kill, 4);
	/* Multi-level building: +1/+1 for each floor or roof above. The
	 * stone building has two storeys: on the ground floor a storey and
	 * the roof are above (heavy 5+/5+ becomes 7+/7+), upstairs the roof. */
	terrain(&g, "E5", "stone");
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 7);
	assert_int_equal(kill, 7);
	U(&g, "r1")->x[SKM_X_FLOOR] = 1;
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 6);
	assert_int_equal(kill, 6);
	U(&g, "r1")->x[SKM_X_FLOOR] = 0;
	terrain(&g, "E5", "open");
	/* Behind a linear obstacle: cover counts when the blast's centre is
	 * on its other side. The centre E4 is north (dir 2) of E5. */
	game_hex_at(&g, fx_hex(&g, "E5"))->edge[2] = SKM_E_HEDGE;
	skm_he_numbers(&g, m, r1, fx_hex(&g, "E4"), &hit, &kill);
	assert_int_equal(hit, 5);
	assert_int_equal(kill, 4);
	game_hex_at(&g, fx_hex(&g, "E5"))->edge[2] = SKM_E_WALL;
	skm_he_numbers(&g, m, r1, fx_hex(&g, "E4"), &hit, &kill);
	assert_int_equal(hit, 5);
	assert_int_equal(kill, 5);
	/* From the south the wall is no cover. */
	skm_he_numbers(&g, m, r1, fx_hex(&g, "E6"), &hit, &kill);
	assert_int_equal(hit, 4);
	assert_int_equal(kill, 4);
	/* Suppressed or lack of crew firing: +1 to hit and to kill (not
	 * cumulative). */
	U(&g, "bmor")->status = SKM_SUPP;
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 5);
	assert_int_equal(kill, 5);
	U(&g, "bmor")->strength = 2;
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 5);
	assert_int_equal(kill, 5);
	U(&g, "bmor")->status = SKM_GOOD;
	skm_he_numbers(&g, m, r1, c, &hit, &kill);
	assert_int_equal(hit, 5);
	assert_int_equal(kill, 5);
	game_free(&g);
}

/* 9.1 and 10.1: the close combat and morale numbers. */
static void
t_tables_91_101(void **state)
{
	struct game g;
	int r1;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: bhq hq blue A9\n"
	    "unit: r1 rifle red E5\n", NULL);
	r1 = I(&g, "r1");
	assert_int_equal(skm_cc_number(&g, r1), 4);
	U(&g, "r1")->x[SKM_X_QUAL] = SKM_GREEN;
	assert_int_equal(skm_cc_number(&g, r1), 5);
	U(&g, "r1")->x[SKM_X_QUAL] = SKM_VETERAN;
	assert_int_equal(skm_cc_number(&g, r1), 3);
	U(&g, "r1")->status = SKM_SUPP;
	assert_int_equal(skm_cc_number(&g, r1), 4);
	/* Morale: base 4+ (placeholder), +1 per kill during the test, +1 to
	 * rally while suppressed or broken, -1 with a leader (not on severe
	 * tests). */
	assert_int_equal(skm_morale_number(&g, I(&g, "b1"), 0, false, false),
	    4);
	assert_int_equal(skm_morale_number(&g, I(&g, "b1"), 3, false, false),
	    7);
	assert_int_equal(skm_morale_number(&g, I(&g, "b1"), 0, true, false),
	    5);
	U(&g, "bhq")->pos = fx_hex(&g, "A4");
	assert_int_equal(skm_morale_number(&g, I(&g, "b1"), 2, false, false),
	    5);
	assert_int_equal(skm_morale_number(&g, I(&g, "b1"), 2, false, true),
	    6);
	/* 4 hexes (8") away is too far for the leader. */
	U(&g, "bhq")->pos = fx_hex(&g, "A5");
	assert_int_equal(skm_morale_number(&g, I(&g, "b1"), 2, false, false),
	    6);
	game_free(&g);
}

/* --- whole turns ---------------------------------------------------------- */

/* Stationary fire, 6.2 open, kills applied, then the morale test. */
static void
t_fire_turn(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* Initiative 5/2; 8 to-hit dice at 4+ (3 hits); 3 to-kill at 4+
	 * (2 kills); r1's morale 4 + 2 kills = 6+: a 5 fails. */
	static const int script[] = { 5, 2, 4, 4, 4, 3, 3, 3, 3, 3, 4, 4, 1,
		5 };
	int k;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A5\n", NULL);
	turn(&g, "b1 F fire r1\n", "", script, 14, &d, &ev);
	for (k = 3; k <= 10; k++)
		roll_target(&d, k, 4, "b1 fires at r1: to hit");
	for (k = 11; k <= 13; k++)
		roll_target(&d, k, 4, "b1 fires at r1: to kill");
	roll_target(&d, 14, 6, "morale r1");
	assert_int_equal(U(&g, "r1")->strength, 6);
	assert_int_equal(U(&g, "r1")->status, SKM_SUPP);
	assert_int_equal(g.turn, 2);
	done(&d, &ev);
	/* Reinforced cover: 6+ to hit, 5+ to kill; a suppressed element
	 * adds +1 (7+: no chance, no dice). */
	terrain(&g, "A1", "bunker");
	{
		static const int s2[] = { 3, 1, 6 };

		/* r1 first rallies (4 + 1 = 5+: a 3 fails), then fires. */
		turn(&g, "", "r1 F fire b1\n", s2, 3, &d, &ev);
		assert_true(fx_event_has(&ev, "fails to rally"));
		assert_true(fx_event_has(&ev, "needs 7 to hit, no chance"));
		done(&d, &ev);
	}
	U(&g, "r1")->status = SKM_GOOD;
	{
		/* Initiative, 6 dice at 6+ (2 hits), 5+ to kill: 1 kill;
		 * b1's morale 5+ passes on a 6. */
		static const int s3[] = { 2, 1, 6, 6, 1, 1, 1, 1, 5, 4, 6 };

		turn(&g, "", "r1 F fire b1\n", s3, 11, &d, &ev);
		roll_target(&d, 3, 6, "r1 fires at b1: to hit");
		roll_target(&d, 9, 5, "r1 fires at b1: to kill");
		assert_int_equal(U(&g, "b1")->strength, 7);
		done(&d, &ev);
	}
	game_free(&g);
}

/* Direct HE (a gun): no stationary-vs-movement or At the Double
 * modifier; its HE weight (1) lowers the to-kill number. */
static void
t_direct_he(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* Initiative; r1 moves At the Double to A6 in the open; the gun's 2
	 * dice at 4+ (the -1s do not apply): 2 hits; to kill 3+ (4 - 1):
	 * 2 kills; r1 morale 6+: 6. */
	static const int script[] = { 1, 6, 4, 4, 3, 3, 6 };

	(void)state;
	board(&g, "unit: bg gun blue A1\nunit: r1 rifle red A8\n", NULL);
	turn(&g, "bg F fire r1\n", "r1 A A7 A6\n", script, 7, &d, &ev);
	roll_target(&d, 3, 4, "bg fires at r1: to hit");
	roll_target(&d, 5, 3, "bg fires at r1: to kill");
	assert_int_equal(U(&g, "r1")->strength, 6);
	assert_false(fx_event_has(&ev, "At the Double -1"));
	done(&d, &ev);
	game_free(&g);
}

/* Opportunity fire: the marker goes on the mover where it came into
 * range, the fire happens in the stationary phase at that spot. */
static void
t_opportunity_fire(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* Initiative; 8 dice at 3+ (4 - 1 stationary vs movement in open,
	 * -1 At the Double, +1 long range at 7 hexes): 2 hits; 2 to kill,
	 * 1 kill; r1 morale 5+: 6 passes. */
	static const int script[] = { 1, 6, 3, 3, 1, 1, 1, 1, 1, 1, 4, 1, 6 };
	int k;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A9\n", NULL);
	turn(&g, "b1 F opfire\n", "r1 A A8 A7 A6\n", script, 13, &d, &ev);
	assert_true(fx_event_has(&ev, "b1 places an Opportunity Fire marker "
	    "on r1 at A8"));
	for (k = 3; k <= 10; k++)
		roll_target(&d, k, 3, "b1 fires at r1: to hit");
	assert_true(fx_event_has(&ev, "opportunity fire at r1 at A8"));
	assert_true(fx_event_has(&ev, "long range +1"));
	assert_int_equal(U(&g, "r1")->strength, 7);
	assert_true(hex_eq(U(&g, "r1")->pos, fx_hex(&g, "A6")));
	done(&d, &ev);
	game_free(&g);
}

/* Moving fire: Move & Fire fires after the stationary phase with +1. */
static void
t_moving_fire(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* Initiative; b1 moves A2 A3 and fires 8 dice at 5+ (no hits). */
	static const int script[] = { 4, 3, 1, 1, 1, 1, 1, 1, 1, 1 };
	int k;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A7\n", NULL);
	turn(&g, "b1 M A2 A3 fire r1\n", "", script, 10, &d, &ev);
	for (k = 3; k <= 10; k++)
		roll_target(&d, k, 5, "b1 fires at r1: to hit");
	assert_true(fx_event_has(&ev, "moving and firing +1"));
	assert_true(hex_eq(U(&g, "b1")->pos, fx_hex(&g, "A3")));
	done(&d, &ev);
	game_free(&g);
}

/* 11.1: the spotting number and the spotting phase's sealed rolls. */
static void
t_spotting(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int s1[] = { 5, 3, 1 };
	static const int s2[] = { 5, 3, 1 };
	static const int s3[] = { 6, 3, 1 };
	static const int s4[] = { 3, 1 };
	size_t k;
	int r1;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A5\n", NULL);
	r1 = I(&g, "r1");
	/* The table: 5+; +1 each hindrance; +1 over 16" (8 hexes); 4" or
	 * less automatic; the best spotter counts. */
	assert_int_equal(skm_spot_number(&g, r1), 5);
	terrain(&g, "A3", "scrub");
	assert_int_equal(skm_spot_number(&g, r1), 6);
	terrain(&g, "A3", "open");
	U(&g, "r1")->pos = fx_hex(&g, "A9");
	assert_int_equal(skm_spot_number(&g, r1), 5);
	U(&g, "r1")->pos = fx_hex(&g, "A10");
	assert_int_equal(skm_spot_number(&g, r1), 6);
	U(&g, "r1")->pos = fx_hex(&g, "A3");
	assert_int_equal(skm_spot_number(&g, r1), 0);
	U(&g, "r1")->pos = fx_hex(&g, "A5");
	terrain(&g, "A3", "stone");
	assert_int_equal(skm_spot_number(&g, r1), -1);
	terrain(&g, "A3", "open");
	/* The phase: r1 hidden in woods 4 hexes away, a 5 spots it. */
	terrain(&g, "A5", "woods");
	U(&g, "r1")->flags |= SKM_F_HIDDEN;
	assert_false(skm_visible(&g, BLUE, r1));
	assert_true(skm_visible(&g, RED, r1));
	turn(&g, "", "", s1, 3, &d, &ev);
	/* The spotting roll is sealed, shown to red (whose element it is),
	 * with no number that would tell red where blue is. */
	assert_int_equal(d.nslog, 1);
	assert_int_equal(d.slog[0].visible, 1u << RED);
	assert_int_equal(d.slog[0].target, 0);
	assert_false(U(&g, "r1")->flags & SKM_F_HIDDEN);
	assert_true(fx_event_has(&ev, "spotted (11.1)"));
	for (k = 0; k < ev.n; k++)
		if (strstr(ev.v[k].text, "Spotting roll"))
			assert_int_equal(ev.v[k].visible, 1u << RED);
	done(&d, &ev);
	/* Over 16" (9 hexes): 6+; a 5 fails. */
	terrain(&g, "A5", "open");
	U(&g, "r1")->flags |= SKM_F_HIDDEN;
	U(&g, "r1")->pos = fx_hex(&g, "A10");
	terrain(&g, "A10", "woods");
	turn(&g, "", "", s2, 3, &d, &ev);
	assert_true(U(&g, "r1")->flags & SKM_F_HIDDEN);
	assert_true(fx_event_has(&ev, "Spotting roll for hidden r1: 5 - "
	    "still hidden"));
	done(&d, &ev);
	/* Out of every enemy sight: still a roll (the owner learns nothing),
	 * and even a 6 spots nothing. */
	terrain(&g, "A5", "stone");
	turn(&g, "", "", s3, 3, &d, &ev);
	assert_int_equal(d.nslog, 1);
	assert_true(U(&g, "r1")->flags & SKM_F_HIDDEN);
	done(&d, &ev);
	terrain(&g, "A5", "open");
	/* 4" or less: automatically, no roll. */
	U(&g, "r1")->pos = fx_hex(&g, "A3");
	terrain(&g, "A3", "woods");
	turn(&g, "", "", s4, 2, &d, &ev);
	assert_int_equal(d.nslog, 0);
	assert_false(U(&g, "r1")->flags & SKM_F_HIDDEN);
	done(&d, &ev);
	game_free(&g);
}

/* Hidden deployment at set-up: out of every enemy sight, or in cover
 * more than 4" away, an element starts hidden; in the open in sight, not. */
static void
t_hidden_deployment(void **state)
{
	struct game g;
	struct hp_error err = { 0, "" };
	struct order_errors errs;
	static const char sc[] = "ruleset: skirmish-ww2\nname: h\nmap: 3 10\n"
	    "legend: . open\nlegend: w woods\nlegend: B stone\n"
	    "terrain: ...\nterrain: ...\nterrain: ...\nterrain: BBB\n"
	    "terrain: ...\nterrain: w..\nterrain: ...\nterrain: ...\n"
	    "terrain: ...\nterrain: ...\nside: blue B\nside: red R\n"
	    "unit: b1 rifle blue A1\nunit: b2 rifle blue C1\n"
	    "unit: r1 rifle red A6\nunit: r2 rifle red C8\n"
	    "unit: r3 rifle red B2\n";

	(void)state;
	game_init(&g);
	g.rules = ruleset_find("skirmish-ww2");
	strlcpy_(g.name, "h", sizeof g.name);
	strlcpy_(g.options, "turns=10", sizeof g.options);
	orders_errors_init(&errs);
	assert_int_equal(ruleset_setup(&g, NULL, sc, NULL, &errs, &err),
	    HP_OK);
	orders_errors_free(&errs);
	/* Behind the stone row: out of every enemy sight, hidden. */
	assert_true(U(&g, "r1")->flags & SKM_F_HIDDEN);
	assert_true(U(&g, "r2")->flags & SKM_F_HIDDEN);
	/* r3 in the open in sight of blue: not hidden; nor are b1, b2. */
	assert_false(U(&g, "r3")->flags & SKM_F_HIDDEN);
	assert_false(U(&g, "b1")->flags & SKM_F_HIDDEN);
	assert_false(U(&g, "b2")->flags & SKM_F_HIDDEN);
	game_free(&g);
}

/* Revealed the moment it comes into sight (after a failed spotting). */
static void
t_reveal_on_sight(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int script[] = { 1, 2, 1 };
	size_t k, mv = 0, rv = 0;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r2 rifle red E8\n", NULL);
	U(&g, "r2")->flags |= SKM_F_HIDDEN;
	turn(&g, "b1 M A2\n", "", script, 3, &d, &ev);
	assert_int_equal(d.nslog, 1);
	assert_false(U(&g, "r2")->flags & SKM_F_HIDDEN);
	for (k = 0; k < ev.n; k++) {
		if (strstr(ev.v[k].text, "r2 (Rifle section) is revealed at "
		    "E8: it comes into sight"))
			rv = k;
		if (strstr(ev.v[k].text, "b1 (Move & Fire) moves"))
			mv = k;
	}
	assert_true(rv > 0 && rv < mv);
	done(&d, &ev);
	game_free(&g);
}

/* Rally: +1 to rally; an unrallied broken element's compulsory move. */
static void
t_rally_rout(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int s1[] = { 2, 5, 3, 1 };

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red E5\n"
	    "unit: r2 rifle red E8\nunit: r3 rifle red J1\n", NULL);
	U(&g, "r1")->status = SKM_BROKEN;
	U(&g, "r2")->status = SKM_SUPP;
	turn(&g, "", "", s1, 4, &d, &ev);
	roll_target(&d, 1, 5, "rally r1");
	roll_target(&d, 2, 5, "rally r2");
	assert_int_equal(U(&g, "r1")->status, SKM_BROKEN);
	assert_int_equal(U(&g, "r2")->status, SKM_GOOD);
	/* Red's home is east: 5 hexes from E to J, the edge. */
	assert_int_equal(hex_to_offset(&g.layout, U(&g, "r1")->pos).col, 9);
	assert_true(fx_event_has(&ev, "r1 falls back from E5"));
	done(&d, &ev);
	game_free(&g);
}

/* 9.1: close assault within 4", melee at 4+, the loser breaks; the
 * target's reaction (withdraw) as a standing trigger. */
static void
t_close_assault(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int s1[] = { 2, 1, 4, 4, 4, 1, 1, 1, 1, 1, 4, 1, 1, 1, 1,
		1, 1, 1 };
	static const int s2[] = { 2, 1 };
	int k;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A3\n", NULL);
	turn(&g, "b1 C assault r1\n", "", s1, 18, &d, &ev);
	for (k = 3; k <= 18; k++)
		assert_int_equal(d.log[k - 1].target, 4);
	assert_int_equal(U(&g, "r1")->strength, 5);
	assert_int_equal(U(&g, "b1")->strength, 7);
	assert_int_equal(U(&g, "r1")->status, SKM_BROKEN);
	assert_true(fx_event_has(&ev, "r1 loses the melee and breaks"));
	done(&d, &ev);
	game_free(&g);
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A3\n", NULL);
	turn(&g, "b1 C assault r1\n", "react r1 withdraw\n", s2, 2, &d, &ev);
	assert_true(fx_event_has(&ev, "r1 withdraws from A3"));
	assert_true(fx_event_has(&ev, "finds no one"));
	done(&d, &ev);
	game_free(&g);
	/* Out of reach (3 hexes): the assault does not go in. */
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A4\n", NULL);
	turn(&g, "b1 C assault r1\n", "", s2, 2, &d, &ev);
	assert_true(fx_event_has(&ev, "does not go in"));
	done(&d, &ev);
	game_free(&g);
}

/* 8.2: call fire, off target, subsequent attempt, fire for effect,
 * continuing fire without a roll; smoke and its decay. */
static void
t_indirect(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	struct hex h;
	/* Turn 1: initiative, the call (4+ direct spotter): 3, off. */
	static const int s1[] = { 2, 1, 3 };
	/* Turn 2: the call at 3+ (subsequent): 3, on; 8 HE dice at 4+
	 * (2 hits), 2 to kill (2 kills); r1 morale 6+: 6. */
	static const int s2[] = { 2, 1, 3, 4, 4, 1, 1, 1, 1, 1, 1, 4, 4, 6 };
	/* Turn 3: continuing fire, no roll: 6 dice, no hits. */
	static const int s3[] = { 2, 1, 1, 1, 1, 1, 1, 1 };
	/* Turn 4: smoke (attached, 1+). */
	static const int s4[] = { 2, 1, 1 };
	static const int s5[] = { 2, 1 };

	(void)state;
	board(&g, "unit: bmor mortar blue A1\nunit: bfo fo blue C1\n"
	    "unit: r1 rifle red C6\n", NULL);
	turn(&g, "bmor F he C6 by bfo\n", "", s1, 3, &d, &ev);
	roll_target(&d, 3, 4, "HE called");
	assert_int_equal(skm_cf(&g, I(&g, "bmor"), &h), 1);
	done(&d, &ev);
	turn(&g, "bmor F he C6 by bfo\n", "", s2, 14, &d, &ev);
	roll_target(&d, 3, 3, "HE called");
	roll_target(&d, 4, 4, "HE on r1: to hit");
	assert_int_equal(skm_cf(&g, I(&g, "bmor"), &h), 2);
	assert_true(hex_eq(h, fx_hex(&g, "C6")));
	assert_int_equal(U(&g, "r1")->strength, 6);
	done(&d, &ev);
	turn(&g, "bmor F he C6 by bfo\n", "", s3, 8, &d, &ev);
	assert_true(fx_event_has(&ev, "HE continues on C6"));
	roll_target(&d, 3, 4, "HE on r1: to hit");
	done(&d, &ev);
	/* Adjusting fire: up to 2 hexes (4") onto a hex the firer sees with
	 * an enemy in it: fire for effect, no roll (r1 now at C7, 6 dice). */
	U(&g, "r1")->pos = fx_hex(&g, "C7");
	{
		static const int sa[] = { 2, 1, 1, 1, 1, 1, 1, 1 };

		turn(&g, "bmor F he C7\n", "", sa, 8, &d, &ev);
		assert_true(fx_event_has(&ev, "HE adjusts from C6 to C7"));
		roll_target(&d, 3, 4, "HE on r1: to hit");
		assert_int_equal(skm_cf(&g, I(&g, "bmor"), &h), 2);
		assert_true(hex_eq(h, fx_hex(&g, "C7")));
		done(&d, &ev);
	}
	/* 3 hexes away is too far to adjust: a new call (attached, 3+). */
	U(&g, "r1")->pos = fx_hex(&g, "C10");
	{
		static const int sb[] = { 2, 1, 1 };

		turn(&g, "bmor F he C10\n", "", sb, 3, &d, &ev);
		roll_target(&d, 3, 3, "HE called");
		done(&d, &ev);
	}
	turn(&g, "bmor F smoke E6\n", "", s4, 3, &d, &ev);
	roll_target(&d, 3, 1, "smoke called");
	/* Smoke +4 at once, flipped to +2 at the end of the turn. */
	assert_int_equal(skm_smoke(&g, fx_hex(&g, "E6")), 2);
	done(&d, &ev);
	turn(&g, "", "", s5, 2, &d, &ev);
	assert_int_equal(skm_smoke(&g, fx_hex(&g, "E6")), 0);
	done(&d, &ev);
	game_free(&g);
}

/* Every line of sight of the board with eyes on floors 0 and 1 into w
 * (100 x 100 x 2 x 2 weights). */
static void
all_sights(const struct game *g, int *w)
{
	int a, b, fa, fb, n = 0;

	for (a = 0; a < g->nhex; a++)
		for (b = 0; b < g->nhex; b++)
			for (fa = 0; fa < 2; fa++)
				for (fb = 0; fb < 2; fb++)
					w[n++] = skm_sight(g, g->hexes[a].h, fa,
					    g->hexes[b].h, fb);
}

/* The sight cache (skm_sight_begin/_end) gives every line the weight the
 * walk gives without it: twice over (remembered lines), with smoke laid
 * inside it, and on a map changed between two begins. Smoke lines are
 * read as the rstate has them (first line of a label; a label that is
 * not a hex's own matches nothing). */
static void
t_sight_cache(void **state)
{
	struct game g;
	int *ref = xcalloc(40000, sizeof(int)), *got = xcalloc(40000,
	    sizeof(int)), blocked = 0, k;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red J10\n", NULL);
	terrain(&g, "C3", "woods");
	terrain(&g, "C4", "woods");
	terrain(&g, "E5", "stone");
	terrain(&g, "F2", "house");
	terrain(&g, "G7", "scrub");
	game_hex_at(&g, fx_hex(&g, "D8"))->elevation = 2;
	all_sights(&g, ref);
	skm_sight_begin(&g);
	all_sights(&g, got);
	assert_memory_equal(ref, got, 40000 * sizeof(int));
	all_sights(&g, got);
	assert_memory_equal(ref, got, 40000 * sizeof(int));
	skm_set_smoke(&g, fx_hex(&g, "D4"), 4);
	skm_set_smoke(&g, fx_hex(&g, "H8"), 2);
	all_sights(&g, got);
	skm_sight_end();
	all_sights(&g, ref);
	assert_memory_equal(ref, got, 40000 * sizeof(int));
	for (k = 0; k < 40000; k++)
		blocked += ref[k] < 0;
	assert_true(blocked > 0);
	assert_int_equal(skm_smoke(&g, fx_hex(&g, "D4")), 4);
	assert_int_equal(skm_smoke(&g, fx_hex(&g, "H8")), 2);
	assert_true(skm_smoke_any(&g));
	/* smoke gone, the map changed: a new begin starts afresh */
	game_set_rstate(&g, NULL);
	assert_false(skm_smoke_any(&g));
	terrain(&g, "C4", "open");
	terrain(&g, "B2", "stone");
	all_sights(&g, ref);
	skm_sight_begin(&g);
	all_sights(&g, got);
	skm_sight_end();
	assert_memory_equal(ref, got, 40000 * sizeof(int));
	/* the rstate as it stands: first line of a label, exact labels */
	for (k = 0; k < 2; k++) {
		game_set_rstate(&g, k ? "smoke (1,2) 4\nsmoke E6 4\n"
		    "smoke E6 2\nsmoke e7 4\nsmoke E8x 2\n" : "smoke E6 4\n"
		    "smoke E6 2\nsmoke e7 4\nsmoke E8x 2\nsmoke E9 2");
		assert_int_equal(skm_smoke(&g, fx_hex(&g, "E6")), 4);
		assert_int_equal(skm_smoke(&g, fx_hex(&g, "E7")), 0);
		assert_int_equal(skm_smoke(&g, fx_hex(&g, "E8")), 0);
		assert_int_equal(skm_smoke(&g, fx_hex(&g, "E9")), k ? 0 : 2);
	}
	game_set_rstate(&g, "cf b1 C3 2\n");
	assert_false(skm_smoke_any(&g));
	assert_int_equal(skm_smoke(&g, fx_hex(&g, "C3")), 0);
	free(ref);
	free(got);
	game_free(&g);
}

/* 16.1 and 3.2: the variable end, Force Morale, objectives. */
static void
t_end_turn(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	static const int s1[] = { 2, 1, 2 };     /* turn 1 of 1: 1 ends; 2 */
	static const int s2[] = { 2, 1, 4 };     /* turn +1: 1-3; 4 goes on */
	static const int s3[] = { 2, 1, 5 };     /* turn +2: 1-5; 5 ends */
	static const int s4[] = { 2, 1, 3 };     /* severe test: 3 fails */
	static const int s5[] = { 2, 1 };        /* turn + 3: no roll */

	(void)state;
	board(&g, "unit: b1 rifle blue H5\nunit: r1 rifle red A1\n"
	    "unit: r2 rifle red A9\nmarker: objective none H6\n", "turns=1");
	turn(&g, "", "", s1, 3, &d, &ev);
	roll_target(&d, 3, 0, "game end");
	assert_int_not_equal(g.status, GAME_FINISHED);
	/* Objective status: blue stands next to it, alone. */
	assert_int_equal(game_var(&g, "obj.0", 0), 1);
	done(&d, &ev);
	turn(&g, "", "", s2, 3, &d, &ev);
	assert_true(fx_event_has(&ev, "the game ends on 1-3"));
	assert_int_equal(g.turn, 3);
	done(&d, &ev);
	turn(&g, "", "", s3, 3, &d, &ev);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_string_equal(g.result, "blue wins (objectives 1-0)");
	done(&d, &ev);
	game_free(&g);
	/* Force Break Point: half of red lost -> severe tests. */
	board(&g, "unit: b1 rifle blue H5\nunit: r1 rifle red A1\n"
	    "unit: r2 rifle red A9\n", NULL);
	U(&g, "r1")->strength = 0;
	turn(&g, "", "", s4, 3, &d, &ev);
	roll_target(&d, 3, 4, "force morale r2");
	assert_int_equal(U(&g, "r2")->status, SKM_SUPP);
	done(&d, &ev);
	game_free(&g);
	/* Turn # + 3: the end without a roll. */
	board(&g, "unit: b1 rifle blue H5\nunit: r1 rifle red A1\n", "turns=1");
	g.turn = 4;
	turn(&g, "", "", s5, 2, &d, &ev);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_string_equal(g.result, "Draw (objectives 0-0)");
	done(&d, &ev);
	game_free(&g);
}

/* --- orders ---------------------------------------------------------------- */

/* Every parse error with its line; an unseen enemy and one that does not
 * exist give the same words. */
static void
t_parse_errors(void **state)
{
	struct game g;
	char *e;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: b2 rifle blue C1\n"
	    "unit: bmor mortar blue E1\nunit: r1 rifle red A5\n"
	    "unit: r2 rifle red C5\n", NULL);
	U(&g, "b2")->status = SKM_BROKEN;
	U(&g, "r2")->flags |= SKM_F_HIDDEN;
	assert_null(parse_errs(&g, BLUE, "b1 M A2 A3 fire r1\n"
	    "initiative second\nreact b1 counter\nbmor F he C5\n"));
	e = parse_errs(&g, BLUE, "zz F\nb1 X\nb1 F A2\nb1 C A2 A3 A4\n"
	    "b1 A fire r1\nb1 M A3\nb2 F\nb1 F fire r2\nb1 F fire r9\n"
	    "b1 F fire b2\nbmor F fire r1\nb1 F he A5\nb1 F\nb1 C\n"
	    "initiative maybe\nreact b1 flee\nb1 F opfire 3 fire r1\n");
	assert_non_null(e);
	fprintf(stderr, "%s", e);
	/* The order file's body starts on line 5 (after 4 header lines). */
	assert_non_null(strstr(e, "line 5: no element 'zz' of yours in play "
	    "(the order template lists them)"));
	assert_non_null(strstr(e, "line 6: expected an order letter after "
	    "b1: A (At the Double), M (Move & Fire), C (Cautious Advance) or "
	    "F (Fire)"));
	assert_non_null(strstr(e, "line 7: a Fire order does not move: no "
	    "path after F"));
	assert_non_null(strstr(e, "line 8: the path costs 3 hexes of "
	    "movement; Cautious Advance allows 2 (4\")"));
	assert_non_null(strstr(e, "line 9: At the Double may not fire "
	    "(4.1)"));
	assert_non_null(strstr(e, "line 10: A3 is not next to the hex before "
	    "it on the path"));
	assert_non_null(strstr(e, "line 11: element b2 is broken: broken "
	    "troops may not be issued any orders (4.1)"));
	assert_non_null(strstr(e, "line 12: no enemy element 'r2' in sight "
	    "(the map lists those you have spotted)"));
	assert_non_null(strstr(e, "line 13: no enemy element 'r9' in sight "
	    "(the map lists those you have spotted)"));
	assert_non_null(strstr(e, "line 14: 'b2' is your own element"));
	assert_non_null(strstr(e, "line 15: bmor (Light mortar) has no direct "
	    "fire"));
	assert_non_null(strstr(e, "line 16: indirect he needs a Fire order "
	    "(F) by an HE-capable element (mortar)"));
	assert_non_null(strstr(e, "line 18: element b1 already has an order "
	    "on line 17 (one order per element, 4.1)"));
	assert_non_null(strstr(e, "line 19: expected 'initiative first' or "
	    "'initiative second'"));
	assert_non_null(strstr(e, "line 20: react: stand, counter or "
	    "withdraw, not 'flee'"));
	free(e);
	e = parse_errs(&g, BLUE, "b1 F opfire 3 fire r1\n");
	assert_non_null(strstr(e, "line 5: either fire at a target or "
	    "opportunity fire, not both"));
	free(e);
	/* Standing orders may name an element no longer in play (they are
	 * parsed again every window), not one that never was. */
	U(&g, "b2")->strength = 0;
	{
		struct order_errors errs;
		struct order_header h;
		struct order_body b;
		struct window_spec w;
		struct sbuf canon;
		char *text = fx_orders(&g, "standing", "blue",
		    "react b2 counter\ninitiative second\n");
		void *o = NULL;

		memset(&w, 0, sizeof w);
		strlcpy_(w.name, "standing", sizeof w.name);
		orders_errors_init(&errs);
		assert_int_equal(orders_parse_file(text, strlen(text), &h, &b,
		    &errs), HP_OK);
		sbuf_init(&canon);
		assert_int_equal(skm_parse(&g, &w, BLUE, &b, &o, &canon,
		    &errs), HP_OK);
		assert_string_equal(canon.buf, "initiative second\n"
		    "react b2 counter\n");
		skm_free_orders(o);
		orders_body_free(&b);
		free(text);
		sbuf_free(&canon);
		text = fx_orders(&g, "standing", "blue", "react zz counter\n"
		    "b1 F\n");
		sbuf_init(&canon);
		assert_int_equal(orders_parse_file(text, strlen(text), &h, &b,
		    &errs), HP_OK);
		assert_int_equal(skm_parse(&g, &w, BLUE, &b, &o, &canon,
		    &errs), HP_EINVAL);
		e = orders_errors_text(&errs);
		assert_non_null(strstr(e, "line 5: no element 'zz' of yours"));
		assert_non_null(strstr(e, "line 6: standing orders take "
		    "'initiative first|second' and 'react ELEMENT "
		    "stand|counter|withdraw' only"));
		free(e);
		orders_errors_free(&errs);
		orders_body_free(&b);
		free(text);
		sbuf_free(&canon);
	}
	U(&g, "b1")->status = SKM_SUPP;
	e = parse_errs(&g, BLUE, "b1 C assault r1\n");
	assert_non_null(strstr(e, "line 5: only an unsuppressed element may "
	    "initiate close assault (9.1)"));
	free(e);
	game_free(&g);
}

/* What a side is shown: its view has no hidden enemy; the template and
 * the map name none; the moderator sees all. */
static void
t_fog_views(void **state)
{
	struct game g, v;
	struct window_spec w;
	char *t;
	struct sbuf m;

	(void)state;
	board(&g, "unit: b1 rifle blue A1\nunit: r1 rifle red A5\n"
	    "unit: r2 rifle red J9\n", NULL);
	U(&g, "r2")->flags |= SKM_F_HIDDEN;
	assert_true(skm_next_window(&g, &w));
	t = view_order_template(&g, &w, BLUE);
	assert_non_null(strstr(t, "r1 (rifle) at A5"));
	assert_null(strstr(t, "r2"));
	free(t);
	sbuf_init(&m);
	view_map(&g, BLUE, &m);
	assert_null(strstr(m.buf, "r2"));
	assert_non_null(strstr(m.buf, "r1"));
	sbuf_free(&m);
	sbuf_init(&m);
	view_map(&g, -1, &m);
	assert_non_null(strstr(m.buf, "r2"));
	sbuf_free(&m);
	t = view_order_template(&g, &w, RED);
	assert_non_null(strstr(t, "r2: Rifle section at J9, 8/8 figures, "
	    "good, hidden"));
	free(t);
	view_game(&g, BLUE, &v);
	assert_int_equal(v.nunits, 2);
	game_free(&v);
	/* The other side's call-fire markers are redacted. */
	skm_set_cf(&g, I(&g, "r1"), fx_hex(&g, "A2"), 1);
	view_game(&g, BLUE, &v);
	assert_true(v.rstate == NULL || strstr(v.rstate, "cf r1") == NULL);
	game_free(&v);
	view_game(&g, RED, &v);
	assert_non_null(strstr(v.rstate, "cf r1 A2 1"));
	game_free(&v);
	/* The faithful mode's records of a hidden element do not reach the
	 * other side's copy; the other side's markers neither. */
	game_set_var(&g, "mv.r2.n", 1);
	game_set_var(&g, "mv.r2.0", 5);
	game_set_var(&g, "op.r1", 1);
	game_set_var(&g, "mv.r1.n", 1);
	view_game(&g, BLUE, &v);
	assert_int_equal(game_var(&v, "mv.r2.n", -1), -1);
	assert_int_equal(game_var(&v, "mv.r2.0", -1), -1);
	assert_int_equal(game_var(&v, "op.r1", -1), -1);
	assert_int_equal(game_var(&v, "mv.r1.n", -1), 1);
	game_free(&v);
	view_game(&g, RED, &v);
	assert_int_equal(game_var(&v, "mv.r2.n", -1), 1);
	assert_int_equal(game_var(&v, "op.r1", -1), 1);
	game_free(&v);
	game_free(&g);
}

/* The built-in opponent plays whole games of crossroads from both sides:
 * its orders always parse, and every game ends. */
static void
t_opponent_games(void **state)
{
	int game_no;

	(void)state;
	for (game_no = 0; game_no < 4; game_no++) {
		struct game g;
		struct hp_error err = { 0, "" };
		int turns = 0, s;
		unsigned m;

		game_init(&g);
		g.rules = ruleset_find("skirmish-ww2");
		snprintf(g.name, sizeof g.name, "ai%d", game_no);
		assert_int_equal(ruleset_setup(&g, "crossroads", NULL, NULL,
		    NULL, &err), HP_OK);
		while (g.status != GAME_FINISHED && turns < 20) {
			struct window_spec w;
			char *raw[GAME_MAX_SIDES] = { 0 };
			unsigned char key[DICE_KEYLEN] = { 0 };
			unsigned char seed[DICE_SEEDLEN] = { 0 };
			struct dice d;
			struct events ev;

			assert_true(skm_next_window(&g, &w));
			for (s = 0; s < g.nsides; s++) {
				struct sbuf b;
				char *e;

				sbuf_init(&b);
				skm_opponent(&g, &w, s, &b);
				e = parse_errs(&g, s, b.buf);
				if (e != NULL)
					fprintf(stderr, "%s\n%s", b.buf, e);
				assert_null(e);
				raw[s] = fx_orders(&g, "orders",
				    g.sides[s].name, b.buf);
				sbuf_free(&b);
			}
			key[0] = (unsigned char)turns;
			key[1] = (unsigned char)game_no;
			dice_init_stream(&d, key);
			for (m = 1; m < 4; m++) {
				seed[0] = (unsigned char)m;
				seed[1] = (unsigned char)game_no;
				dice_sealed_enable(&d, m, seed);
			}
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

/* The opponent and the template use only what their side sees: moving a
 * hidden Blue element changes nothing Red is given or writes. */
static void
t_opponent_blind(void **state)
{
	struct game g;
	struct hp_error err = { 0, "" };
	struct window_spec w;
	struct sbuf a, b;
	char *ta, *tb;

	(void)state;
	game_init(&g);
	g.rules = ruleset_find("skirmish-ww2");
	strlcpy_(g.name, "blind", sizeof g.name);
	assert_int_equal(ruleset_setup(&g, "crossroads", NULL, NULL, NULL,
	    &err), HP_OK);
	assert_true(U(&g, "bmg")->flags & SKM_F_HIDDEN);
	assert_true(skm_next_window(&g, &w));
	sbuf_init(&a);
	skm_opponent(&g, &w, RED, &a);
	ta = view_order_template(&g, &w, RED);
	U(&g, "bmg")->pos = fx_hex(&g, "C2");
	sbuf_init(&b);
	skm_opponent(&g, &w, RED, &b);
	tb = view_order_template(&g, &w, RED);
	assert_string_equal(a.buf, b.buf);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	sbuf_free(&a);
	sbuf_free(&b);
	game_free(&g);
}

/* The faithful mode: resolve window w of g with the orders raw and the
 * dice script[0..n-1] (d and ev set up here) until it stops at step,
 * asking the sides ask. */
static void
stop_at(struct game *g, const struct window_spec *w, char **raw,
    const int *script, size_t n, struct dice *d, struct events *ev,
    struct window_stop *stop, int step, unsigned ask)
{
	struct hp_error err = { 0, "" };

	dice_init_scripted(d, script, n);
	events_init(ev);
	assert_int_equal(window_resolve_resume(g, w,
	    (const char *const *)raw, NULL, NULL, stop, d, ev, &err),
	    HP_OK);
	assert_int_equal(stop->step, step);
	assert_int_equal(stop->ask, ask);
}

/* The faithful mode: resume window w (orders raw), stopped at stop, as
 * the decision w2 with the answers ans and the dice script[0..n-1] (d and
 * ev set up here); the turn ends. */
static void
resume_to_end(struct game *g, const struct window_spec *w,
    const struct window_spec *w2, char **raw, char **ans, const int *script,
    size_t n, struct dice *d, struct events *ev, struct window_stop *stop)
{
	struct hp_error err = { 0, "" };
	struct window_resume res;

	memset(&res, 0, sizeof res);
	res.step = stop->step;
	res.w = *w;
	res.prior[BLUE] = raw[BLUE];
	res.prior[RED] = raw[RED];
	dice_init_scripted(d, script, n);
	events_init(ev);
	assert_int_equal(window_resolve_resume(g, w2,
	    (const char *const *)ans, NULL, &res, stop, d, ev, &err),
	    HP_OK);
	assert_int_equal(stop->step, -1);
}

/* The state of a faithful-mode test: the game, its dice and events, the
 * stopped window w and the decision w2, the orders raw and answers ans
 * (freed by faithful_end). */
struct faithful {
	struct game g;
	struct dice d;
	struct events ev;
	struct hp_error err;
	struct window_spec w, w2;
	struct window_stop stop;
	char *raw[GAME_MAX_SIDES], *ans[GAME_MAX_SIDES];
	bool more;
};

/* Free what a faithful-mode test holds (its last dice and events, the
 * orders and answers, the game). */
static void
faithful_end(struct faithful *f)
{
	int s;

	done(&f->d, &f->ev);
	for (s = 0; s < GAME_MAX_SIDES; s++) {
		free(f->raw[s]);
		free(f->ans[s]);
	}
	game_free(&f->g);
}

/* The faithful mode: the initiative winner without an 'initiative' line
 * is asked in a decision window; the turn resumes with its answer and the
 * stopped window's orders. */
static void
t_faithful(void **state)
{
	struct faithful f;
	char *e;
	/* Initiative: blue 5, red 2; no other roll. */
	static const int s1[] = { 5, 2 };
	/* The resumed turn needs no die (nobody fires). */
	static const int s2[] = { 0 };

	(void)state;
	memset(&f, 0, sizeof f);
	board(&f.g, "unit: b1 rifle blue A1\nunit: r1 rifle red J10\n",
	    "turns=10,faithful");
	assert_true(skm_next_window(&f.g, &f.w));
	f.raw[BLUE] = fx_orders(&f.g, "orders", "blue", "b1 M A2\n");
	f.raw[RED] = fx_orders(&f.g, "orders", "red", "r1 M J9\n");
	stop_at(&f.g, &f.w, f.raw, s1, 2, &f.d, &f.ev, &f.stop, 0, 1u << BLUE);
	assert_true(fx_event_has(&f.ev, "blue wins the initiative and is asked "
	    "to move first or second"));
	/* Nothing has moved yet. */
	assert_true(hex_eq(U(&f.g, "b1")->pos, fx_hex(&f.g, "A1")));
	done(&f.d, &f.ev);
	assert_int_equal(window_advance(&f.g, &f.stop, &f.w2, &f.more, &f.err),
	    HP_OK);
	assert_true(f.more);
	assert_int_equal(f.w2.kind, WINDOW_DECISION);
	assert_int_equal(f.w2.sides, 1u << BLUE);
	assert_string_equal(f.w2.name, "initiative");
	e = parse_errs(&f.g, BLUE, "b1 F\n");
	assert_non_null(e);
	free(e);
	f.ans[BLUE] = fx_orders(&f.g, "initiative", "blue",
	    "initiative second\n");
	resume_to_end(&f.g, &f.w, &f.w2, f.raw, f.ans, s2, 0, &f.d, &f.ev,
	    &f.stop);
	assert_true(fx_event_has(&f.ev, "blue chooses to move second"));
	assert_true(hex_eq(U(&f.g, "b1")->pos, fx_hex(&f.g, "A2")));
	assert_true(hex_eq(U(&f.g, "r1")->pos, fx_hex(&f.g, "J9")));
	/* Red moved first: its move's event comes before Blue's. */
	{
		size_t k, rb = 0, bb = 0;

		for (k = 0; k < f.ev.n; k++) {
			if (strstr(f.ev.v[k].text, "r1 (Move & Fire) moves"))
				rb = k;
			if (strstr(f.ev.v[k].text, "b1 (Move & Fire) moves"))
				bb = k;
		}
		assert_true(rb > 0 && rb < bb);
	}
	assert_int_equal(f.g.turn, 2);
	assert_int_equal(game_var(&f.g, "asked", 0), 0);
	faithful_end(&f);
}

/* The faithful mode: the target of a declared close assault whose side
 * gave no 'react' line is asked before anything moves. */
static void
t_faithful_react(void **state)
{
	struct faithful f;
	char *t;
	static const int s1[] = { 5, 2 };
	static const int s2[] = { 0 };

	(void)state;
	memset(&f, 0, sizeof f);
	board(&f.g, "unit: b1 rifle blue A1\nunit: r1 rifle red A3\n"
	    "unit: r2 rifle red J10\n", "turns=10,faithful");
	assert_true(skm_next_window(&f.g, &f.w));
	f.raw[BLUE] = fx_orders(&f.g, "orders", "blue", "initiative first\n"
	    "b1 C assault r1\n");
	f.raw[RED] = fx_orders(&f.g, "orders", "red", "");
	stop_at(&f.g, &f.w, f.raw, s1, 2, &f.d, &f.ev, &f.stop, 1, 1u << RED);
	assert_true(fx_event_has(&f.ev, "red is asked how r1 reacts to b1's "
	    "close assault"));
	done(&f.d, &f.ev);
	assert_int_equal(window_advance(&f.g, &f.stop, &f.w2, &f.more, &f.err),
	    HP_OK);
	assert_int_equal(f.w2.kind, WINDOW_DECISION);
	assert_string_equal(f.w2.name, "react");
	assert_int_equal(f.w2.number, 2);
	t = view_order_template(&f.g, &f.w2, RED);
	assert_non_null(strstr(t, "\nreact r1 stand\n"));
	assert_null(strstr(t, "react r2"));
	free(t);
	t = parse_errs(&f.g, RED, "react r2 withdraw\n");
	assert_non_null(strstr(t, "r2 is not asked to react"));
	free(t);
	f.ans[RED] = fx_orders(&f.g, "react", "red", "react r1 withdraw\n");
	resume_to_end(&f.g, &f.w, &f.w2, f.raw, f.ans, s2, 0, &f.d, &f.ev,
	    &f.stop);
	assert_true(fx_event_has(&f.ev, "r1 withdraws from A3"));
	assert_false(skm_react_asked(&f.g, I(&f.g, "r1")));
	assert_int_equal(f.g.turn, 2);
	faithful_end(&f);
}

/* The faithful mode: after the first side's move, the second side is
 * asked where its Opportunity Fire markers go (a hex the mover passed). */
static void
t_faithful_opfire(void **state)
{
	struct faithful f;
	char *t;
	static const int s1[] = { 1, 6 };
	/* b1 at r1 marked at A7 (6 hexes): 4 - 1 - 1 = 2+: 8 dice, 2 hits;
	 * to kill 4+: 1 kill; r1 morale 5+: 6. */
	static const int s2[] = { 2, 2, 1, 1, 1, 1, 1, 1, 4, 1, 6 };
	int k;

	(void)state;
	memset(&f, 0, sizeof f);
	board(&f.g, "unit: b1 rifle blue A1\nunit: r1 rifle red A9\n",
	    "turns=10,faithful");
	assert_true(skm_next_window(&f.g, &f.w));
	f.raw[BLUE] = fx_orders(&f.g, "orders", "blue", "b1 F opfire\n");
	f.raw[RED] = fx_orders(&f.g, "orders", "red", "initiative first\n"
	    "r1 A A8 A7 A6\n");
	stop_at(&f.g, &f.w, f.raw, s1, 2, &f.d, &f.ev, &f.stop, 2, 1u << BLUE);
	assert_true(hex_eq(U(&f.g, "r1")->pos, fx_hex(&f.g, "A6")));
	done(&f.d, &f.ev);
	assert_int_equal(window_advance(&f.g, &f.stop, &f.w2, &f.more, &f.err),
	    HP_OK);
	assert_string_equal(f.w2.name, "opfire");
	t = view_order_template(&f.g, &f.w2, BLUE);
	assert_non_null(strstr(t, "b1 may mark r1 at A8"));
	assert_non_null(strstr(t, "\nopfire b1 none\n"));
	free(t);
	/* The orders of the stopped window still parse (paths from where
	 * the turn began). */
	t = parse_errs(&f.g, RED, "r1 A A8 A7 A6\n");
	free(t);
	t = parse_errs(&f.g, BLUE, "opfire b1 r1 A9\nopfire zz none\n");
	assert_non_null(strstr(t, "line 5: r1 did not pass A9"));
	assert_non_null(strstr(t, "line 6: no element 'zz' of yours"));
	free(t);
	f.ans[BLUE] = fx_orders(&f.g, "opfire", "blue", "opfire b1 r1 A7\n");
	resume_to_end(&f.g, &f.w, &f.w2, f.raw, f.ans, s2, 11, &f.d, &f.ev,
	    &f.stop);
	assert_false(f.d.script_exhausted);
	assert_int_equal(f.d.scriptpos, 11);
	assert_true(fx_event_has(&f.ev, "b1 places an Opportunity Fire marker "
	    "on r1 at A7"));
	for (k = 1; k <= 8; k++)
		roll_target(&f.d, k, 2, "b1 fires at r1: to hit");
	assert_int_equal(U(&f.g, "r1")->strength, 7);
	assert_int_equal(f.g.turn, 2);
	faithful_end(&f);
}

/* The faithful mode: with two melees or more the initiative winner is
 * asked their order. */
static void
t_faithful_melee(void **state)
{
	struct faithful f;
	char *t;
	static const int s1[] = { 5, 2 };
	int s2[32], k, e1 = -1, e2 = -1;

	(void)state;
	memset(&f, 0, sizeof f);
	for (k = 0; k < 32; k++)
		s2[k] = 1;
	board(&f.g, "unit: b1 rifle blue A1\nunit: b2 rifle blue E1\n"
	    "unit: r1 rifle red A3\nunit: r2 rifle red E3\n",
	    "turns=10,faithful");
	assert_true(skm_next_window(&f.g, &f.w));
	f.raw[BLUE] = fx_orders(&f.g, "orders", "blue", "initiative first\n"
	    "b1 C assault r1\nb2 C assault r2\n");
	f.raw[RED] = fx_orders(&f.g, "orders", "red", "react r1 stand\n"
	    "react r2 stand\n");
	stop_at(&f.g, &f.w, f.raw, s1, 2, &f.d, &f.ev, &f.stop, 4, 1u << BLUE);
	assert_true(fx_event_has(&f.ev, "blue is asked the order of the 2 "
	    "melees"));
	done(&f.d, &f.ev);
	assert_int_equal(window_advance(&f.g, &f.stop, &f.w2, &f.more, &f.err),
	    HP_OK);
	assert_string_equal(f.w2.name, "melee");
	t = view_order_template(&f.g, &f.w2, BLUE);
	assert_non_null(strstr(t, "\nmelee b1 b2\n"));
	free(t);
	t = parse_errs(&f.g, BLUE, "melee b2 zz\n");
	assert_non_null(strstr(t, "line 5: 'zz' is no attacker of this "
	    "turn's melees"));
	free(t);
	f.ans[BLUE] = fx_orders(&f.g, "melee", "blue", "melee b2 b1\n");
	resume_to_end(&f.g, &f.w, &f.w2, f.raw, f.ans, s2, 32, &f.d, &f.ev,
	    &f.stop);
	assert_int_equal(f.d.scriptpos, 32);
	for (k = 0; k < (int)f.ev.n; k++) {
		if (strstr(f.ev.v[k].text, "Melee: b2"))
			e2 = k;
		if (strstr(f.ev.v[k].text, "Melee: b1"))
			e1 = k;
	}
	/* Blue's file lists b1 first; its answer puts b2 first. */
	assert_true(e2 >= 0 && e2 < e1);
	assert_false(skm_melee_asked(&f.g, I(&f.g, "b1")));
	assert_int_equal(f.g.turn, 2);
	faithful_end(&f);
}

/* Scenario mistakes are listed with their lines. */
static void
t_scenario_errors(void **state)
{
	struct scenario sc;
	struct order_errors errs;
	static const char bad[] = "ruleset: skirmish-ww2\nname: bad\n"
	    "map: 2 2\nlegend: . open\nlegend: x lava\nterrain: ..\n"
	    "terrain: .x\nside: blue B\nside: red R\n"
	    "unit: b1 tank blue A1\nunit: r1 rifle red B2 - elite\n"
	    "option: edge A1 up hedge\nmarker: wire none A1\n";
	char *t;

	(void)state;
	orders_errors_init(&errs);
	assert_int_equal(ruleset_scenario_check(bad, strlen(bad), NULL, &sc,
	    &errs), HP_EINVAL);
	t = orders_errors_text(&errs);
	assert_non_null(strstr(t, "line 5: legend: no terrain \"lava\""));
	assert_non_null(strstr(t, "line 10: unit: no element kind \"tank\""));
	assert_non_null(strstr(t, "line 11: unit: quality is green, regular "
	    "or veteran"));
	assert_non_null(strstr(t, "line 12: option: edge: expected a "
	    "direction (n ne se s sw nw) and an obstacle (hedge wall), got "
	    "\"up hedge\""));
	assert_non_null(strstr(t, "line 13: marker: skirmish-ww2 has "
	    "objectives only"));
	free(t);
	scenario_free(&sc);
	orders_errors_free(&errs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_table_62),
		cmocka_unit_test(t_table_63),
		cmocka_unit_test(t_table_82),
		cmocka_unit_test(t_table_83),
		cmocka_unit_test(t_tables_91_101),
		cmocka_unit_test(t_fire_turn),
		cmocka_unit_test(t_opportunity_fire),
		cmocka_unit_test(t_direct_he),
		cmocka_unit_test(t_moving_fire),
		cmocka_unit_test(t_spotting),
		cmocka_unit_test(t_hidden_deployment),
		cmocka_unit_test(t_reveal_on_sight),
		cmocka_unit_test(t_rally_rout),
		cmocka_unit_test(t_close_assault),
		cmocka_unit_test(t_indirect),
		cmocka_unit_test(t_end_turn),
		cmocka_unit_test(t_parse_errors),
		cmocka_unit_test(t_fog_views),
		cmocka_unit_test(t_opponent_games),
		cmocka_unit_test(t_opponent_blind),
		cmocka_unit_test(t_faithful),
		cmocka_unit_test(t_faithful_react),
		cmocka_unit_test(t_faithful_opfire),
		cmocka_unit_test(t_faithful_melee),
		cmocka_unit_test(t_scenario_errors),
		cmocka_unit_test(t_sight_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
