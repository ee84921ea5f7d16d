/* Unit tests for Big Board Portable Wargame: Modern (seed 002,
 * src/rules/pw/): every rule resolved with scripted dice on the empty
 * test board, asserting on the resulting state and on the dice log; the
 * seed's tricky cases; order parse errors; fog of war; the built-in
 * opponent playing whole battles. Geometry: the board is flat-topped, so
 * a column (E2, E3, E4 ...) is a straight line running "s". */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "pw.h"
#include "render.h"
#include "report.h"
#include "sim.h"
#include "turn.h"
#include "window.h"

#define N 2
#define NE 1
#define SE 0
#define S 5
#define SW 4
#define NW 3
#define BLUE PW_BLUE
#define RED PW_RED

/* --- helpers ------------------------------------------------------------ */

/* Set up a fresh game of the ruleset: scenario NULL is the default battle,
 * options NULL none. */
static void
new_game(struct game *g, const char *options, const char *scenario)
{
	struct hp_error err = { 0, "" };

	game_init(g);
	g->rules = ruleset_find("portable-modern");
	assert_non_null(g->rules);
	strlcpy_(g->name, "test", sizeof g->name);
	strlcpy_(g->options, options ? options : "", sizeof g->options);
	assert_int_equal(ruleset_setup(g, scenario, NULL, NULL, NULL, &err),
	    HP_OK);
}

/* Set up the empty test board (options NULL: none). */
static void
empty_game(struct game *g, const char *options)
{
	new_game(g, options, "empty");
}

static int
add(struct game *g, const char *id, int kind, const char *at, int facing,
    int quality)
{
	return pw_add_unit(g, id, kind, id[0] == 'b' ? BLUE : RED, at, facing,
	    quality);
}

static struct game_unit *
U(struct game *g, const char *id)
{
	struct game_unit *u = game_unit(g, id);

	assert_non_null(u);
	return u;
}

static const char *
at(const struct game *g, const char *id)
{
	static char buf[4][8];
	static int k;
	const struct game_unit *u = &g->units[game_unit_index(g, id)];

	k = (k + 1) % 4;
	return hex_label(&g->layout, u->pos, buf[k], 8);
}

static void
set_terrain(struct game *g, const char *label, const char *t, int elev)
{
	struct game_hex *gh = game_hex_at(g, fx_hex(g, label));

	assert_non_null(gh);
	strlcpy_(gh->terrain, t, sizeof gh->terrain);
	gh->elevation = elev;
}

static void
dump(const struct dice *d, const struct events *ev)
{
	size_t i;

	for (i = 0; i < d->nlog; i++)
		fprintf(stderr, "  roll %zu: %d (%s)\n", i + 1, d->log[i].result,
		    d->log[i].purpose);
	for (i = 0; i < ev->n; i++)
		fprintf(stderr, "  [%s] %s\n", ev->v[i].phase, ev->v[i].text);
}

/* Resolve the turn's window with the bodies (NULL: none) and exactly the n
 * scripted dice. */
static void
turn(struct game *g, const char *blue, const char *red, const int *script,
    size_t n, struct dice *d, struct events *ev)
{
	struct hp_error err = { 0, "" };
	struct window_spec w;
	char *raw[GAME_MAX_SIDES] = { 0 };
	int rc;

	assert_true(g->rules->next_window(g, &w));
	if (blue)
		raw[BLUE] = fx_orders(g, "orders", "blue", blue);
	if (red)
		raw[RED] = fx_orders(g, "orders", "red", red);
	dice_init_scripted(d, script, n);
	events_init(ev);
	rc = window_resolve(g, &w, (const char *const *)raw, d, ev, &err);
	if (rc != HP_OK || d->nlog != n || d->script_exhausted) {
		fprintf(stderr, "turn: rc %d (%s), %zu rolls, wanted %zu\n", rc,
		    err.msg, d->nlog, n);
		dump(d, ev);
	}
	free(raw[BLUE]);
	free(raw[RED]);
	assert_int_equal(rc, HP_OK);
	assert_false(d->script_exhausted);
	assert_int_equal(d->nlog, n);
}

static void
has(const struct dice *d, const struct events *ev, const char *s)
{
	if (!fx_event_has(ev, s)) {
		fprintf(stderr, "no event with '%s'\n", s);
		dump(d, ev);
	}
	assert_true(fx_event_has(ev, s));
}

static void
done(struct game *g, struct dice *d, struct events *ev)
{
	dice_free(d);
	events_free(ev);
	game_free(g);
}

/* Parse body for side; returns the number of errors (errs kept). */
static int
parse(const struct game *g, int side, const char *body,
    struct order_errors *errs, struct pw_orders **out)
{
	struct order_header h;
	struct order_body b;
	struct window_spec w;
	struct sbuf canon;
	char *raw = fx_orders(g, "orders", side == BLUE ? "blue" : "red", body);
	void *o = NULL;

	orders_errors_init(errs);
	sbuf_init(&canon);
	assert_int_equal(orders_parse_file(raw, strlen(raw), &h, &b, errs),
	    HP_OK);
	g->rules->next_window(g, &w);
	g->rules->parse(g, &w, side, &b, &o, &canon, errs);
	if (out)
		*out = o;
	else
		free(o);
	orders_body_free(&b);
	sbuf_free(&canon);
	free(raw);
	return (int)errs->n;
}

/* --- the test board: a game and the dice and events of its last turn ---- */

struct board {
	struct game g;
	struct dice d;
	struct events ev;
	bool played;            /* d and ev hold a turn's, to be freed */
};

/* Copy the next item of the comma-separated *list into buf and step past
 * it; false at the end of the list. */
static bool
next_item(const char **list, char *buf, size_t len)
{
	size_t n;

	while (**list == ',' || **list == ' ')
		(*list)++;
	if (**list == '\0')
		return false;
	n = strcspn(*list, ",");
	assert_true(n < len);
	memcpy(buf, *list, n);
	buf[n] = '\0';
	*list += n;
	return true;
}

/* Set terrain from a list of "HEX TERRAIN [ELEVATION]" (NULL: none). */
static void
board_terrain(struct game *g, const char *list)
{
	char item[64], hex[8], t[32];
	int elev;

	while (list != NULL && next_item(&list, item, sizeof item)) {
		elev = 0;
		assert_true(sscanf(item, "%7s %31s %d", hex, t, &elev) >= 2);
		set_terrain(g, hex, t, elev);
	}
}

/* Place units from a list of "ID KIND HEX FACING [QUALITY]" (NULL: none):
 * the side from the id ("b..." Blue, else Red), KIND as in pw_types, FACING
 * a direction name, QUALITY elite, average (the default) or poor. */
static void
board_units(struct game *g, const char *list)
{
	static const char *const quality[] = { "elite", "average", "poor" };
	char item[80], id[8], kind[32], hex[8], dir[4], q[16];
	int k, f, qi;

	while (list != NULL && next_item(&list, item, sizeof item)) {
		strlcpy_(q, "average", sizeof q);
		assert_true(sscanf(item, "%7s %31s %7s %3s %15s", id, kind, hex,
		    dir, q) >= 4);
		k = pw_kind_by_name(kind);
		f = pw_dir_parse(g, dir);
		for (qi = 0; qi < 3 && strcmp(q, quality[qi]) != 0; qi++)
			;
		if (k < 0 || f < 0 || qi == 3)
			fprintf(stderr, "bad unit '%s'\n", item);
		assert_true(k >= 0 && f >= 0 && qi < 3);
		add(g, id, k, hex, f, qi);
		assert_true(U(g, id)->placed);
	}
}

/* Build the empty test board with options, terrain and units (each NULL:
 * none; lists as board_terrain and board_units take them). */
static void
board(struct board *b, const char *options, const char *terrain,
    const char *units)
{
	empty_game(&b->g, options);
	board_terrain(&b->g, terrain);
	board_units(&b->g, units);
	b->played = false;
}

/* Resolve the board's next turn as turn() does, after dropping the dice and
 * events of the last one. */
static void
board_turn(struct board *b, const char *blue, const char *red,
    const int *script, size_t n)
{
	if (b->played) {
		dice_free(&b->d);
		events_free(&b->ev);
	}
	b->played = true;
	turn(&b->g, blue, red, script, n, &b->d, &b->ev);
}

/* board_turn with exactly the scripted dice listed after the bodies. */
#define PLAY(b, blue, red, ...) board_turn((b), (blue), (red), \
	(const int[]){ __VA_ARGS__ }, \
	sizeof (const int[]){ __VA_ARGS__ } / sizeof (int))

/* Assert that an event of the board's last turn contains s. */
static void
board_has(const struct board *b, const char *s)
{
	has(&b->d, &b->ev, s);
}

/* Free the board's game and its last turn's dice and events. */
static void
board_free(struct board *b)
{
	if (b->played)
		done(&b->g, &b->d, &b->ev);
	else
		game_free(&b->g);
}

/* --- the unit table --------------------------------------------------------- */

static void
t_table(void **state)
{
	(void)state;
	/* Movement column of the seed. */
	assert_int_equal(pw_types[PW_INF].move, 2);
	assert_int_equal(pw_types[PW_MCAV].move, 3);
	assert_int_equal(pw_types[PW_AC].move, 4);
	assert_int_equal(pw_types[PW_TANK].move, 3);
	assert_int_equal(pw_types[PW_TRUCK].move, 4);
	assert_int_equal(pw_types[PW_HORSE].move, 2);
	assert_int_equal(pw_types[PW_CMD].move, 3);
	/* Ranges: firing and artillery tables. */
	assert_int_equal(pw_types[PW_INF].range, 3);
	assert_int_equal(pw_types[PW_INF_AT].range, 2);
	assert_int_equal(pw_types[PW_MORTAR].range, 4);
	assert_int_equal(pw_types[PW_TANK].range, 4);
	assert_int_equal(pw_types[PW_ART_HEAVY].range, 12);
	assert_int_equal(pw_types[PW_ART_MEDIUM].range, 10);
	assert_int_equal(pw_types[PW_ART_FIELD].range, 8);
	assert_int_equal(pw_types[PW_ART_MOUNTAIN].range, 6);
	assert_int_equal(pw_types[PW_AT_GUN].range, 4);
	assert_true(pw_types[PW_INF_GUN].cls & PW_C_STAR);
	assert_false(pw_types[PW_AT_GUN].cls & PW_C_STAR);
	assert_false(pw_types[PW_AA_GUN].cls & PW_C_STAR);
	/* Close combat columns. */
	assert_int_equal(pw_types[PW_MCAV].cc_front, 2);
	assert_int_equal(pw_types[PW_MCAV].cc_flank, 4);
	assert_int_equal(pw_types[PW_HORSE].cc_front, 5);
	assert_int_equal(pw_types[PW_HORSE].cc_flank, 6);
	assert_int_equal(pw_types[PW_CMD].cc_flank, 3);
	assert_int_equal(pw_types[PW_ART_FIELD].cc_front, 4);
}

static void
t_geometry(void **state)
{
	struct game g;

	(void)state;
	empty_game(&g, NULL);
	/* The 120 degree arc: the faced edge and the two beside it. */
	assert_true(pw_in_arc(S, fx_hex(&g, "E2"), fx_hex(&g, "E5")));
	assert_true(pw_in_arc(S, fx_hex(&g, "E4"), hex_neighbour(fx_hex(&g,
	    "E4"), SE)));
	assert_true(pw_in_arc(S, fx_hex(&g, "E4"), hex_neighbour(fx_hex(&g,
	    "E4"), SW)));
	assert_false(pw_in_arc(S, fx_hex(&g, "E4"), hex_neighbour(fx_hex(&g,
	    "E4"), NE)));
	assert_false(pw_in_arc(S, fx_hex(&g, "E4"), fx_hex(&g, "E2")));
	/* In front of / behind a target, from the firer. */
	assert_true(hex_eq(pw_in_front(fx_hex(&g, "E5"), fx_hex(&g, "E1")),
	    fx_hex(&g, "E4")));
	assert_true(hex_eq(pw_behind(fx_hex(&g, "E5"), fx_hex(&g, "E1")),
	    fx_hex(&g, "E6")));
	/* Woods block the line, open ground does not; cover hides. */
	assert_true(pw_los(&g, fx_hex(&g, "E1"), fx_hex(&g, "E5"), false));
	set_terrain(&g, "E3", "wood", 0);
	assert_false(pw_los(&g, fx_hex(&g, "E1"), fx_hex(&g, "E5"), false));
	set_terrain(&g, "E3", "open", 0);
	set_terrain(&g, "E5", "bua", 0);
	assert_true(pw_los(&g, fx_hex(&g, "E1"), fx_hex(&g, "E5"), false));
	assert_false(pw_sees(&g, fx_hex(&g, "E1"), fx_hex(&g, "E5")));
	/* A hill between two low hexes blocks. */
	set_terrain(&g, "E3", "open", 1);
	assert_false(pw_los(&g, fx_hex(&g, "E1"), fx_hex(&g, "E4"), false));
	game_free(&g);
}

/* --- activation ------------------------------------------------------------- */

static void
t_activation_dice(void **state)
{
	struct game g;
	char id[8];
	int i;

	(void)state;
	empty_game(&g, NULL);
	add(&g, "b1", PW_CMD, "A1", S, PW_AVERAGE);
	for (i = 0; i < 6; i++) {
		snprintf(id, sizeof id, "b%d", i + 2);
		add(&g, id, PW_INF, NULL, S, PW_AVERAGE);
		g.units[g.nunits - 1].placed = true;
		g.units[g.nunits - 1].pos = fx_hex(&g, "B2");
	}
	/* One for the commander, one per five others rounded up. */
	assert_int_equal(pw_activation_dice(&g, BLUE), 1 + 2);
	U(&g, "b7")->strength = 0;
	U(&g, "b7")->placed = false;
	/* Down to five others: one die fewer. */
	assert_int_equal(pw_activation_dice(&g, BLUE), 1 + 1);
	U(&g, "b1")->placed = false;
	assert_int_equal(pw_activation_dice(&g, BLUE), 1);
	assert_int_equal(pw_activation_dice(&g, RED), 0);
	game_free(&g);
}

static void
t_activation_list(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry A2 se, b2 infantry A4 se, "
	    "b3 infantry A6 se, r1 infantry J8 n");
	/* initiative blue 6 red 1; blue's one die: 2; red's die. */
	PLAY(&b, "b3 move A7\nb1 move A1\nb2 move A5\n", NULL, 6, 1, 2, 1);
	board_has(&b, "blue moves first");
	board_has(&b, "1 activation dice: 2 = 2 units");
	assert_string_equal(at(&b.g, "b3"), "A7");
	assert_string_equal(at(&b.g, "b1"), "A1");
	assert_string_equal(at(&b.g, "b2"), "A4");
	board_has(&b, "b2 (line 7) is not activated");
	assert_int_equal(b.g.turn, 2);
	board_free(&b);
}

static void
t_initiative_tie(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry A2 se, r1 infantry J2 sw");
	PLAY(&b, NULL, NULL, 4, 4, 2, 5, 1, 1);
	board_has(&b, "roll again");
	assert_int_equal(game_var(&b.g, "first", -1), RED);
	assert_non_null(strstr(b.d.log[4].purpose, "red activation"));
	board_free(&b);
}

/* --- artillery ------------------------------------------------------------ */

static void
t_artillery_behind(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 field-artillery E1 s, r1 infantry E5 n, "
	    "r2 infantry E6 n");
	/* Shot: 1 +2 (the gun sees the target) = 3: behind. Hit on r2: 1.
	 * Initiative, blue 1 die, red 1 die. */
	PLAY(&b, "shoot b1 E5\n", NULL, 1, 1, 6, 5, 1, 1);
	board_has(&b, "rolls 1+2 = 3, lands behind it in E6");
	assert_int_equal(U(&b.g, "r1")->strength, 4);
	assert_int_equal(U(&b.g, "r2")->strength, 3);
	assert_true(U(&b.g, "b1")->flags & PW_F_ARTFIRED);
	assert_int_equal(U(&b.g, "b1")->x[PW_X_LASTT], 1);
	board_free(&b);
}

static void
t_artillery_front_modifiers(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, "E6 wood", "b1 medium-artillery E1 s, "
	    "b2 commander E2 s, r1 infantry E6 n, r2 infantry E5 n");
	U(&b.g, "b1")->x[PW_X_LASTQ] = fx_hex(&b.g, "E6").q;
	U(&b.g, "b1")->x[PW_X_LASTR] = fx_hex(&b.g, "E6").r;
	b.g.turn = 2;
	U(&b.g, "b1")->x[PW_X_LASTT] = 1;
	/* Target in a wood: -1 and no line of sight bonus; same target as
	 * last turn +1; commander adjacent +1. 3 + 1 = 4: in front (E4). */
	PLAY(&b, "shoot b1 E6\n", NULL, 3, 2, 6, 5, 1, 1, 1);
	board_has(&b, "(indirect fire): rolls 3+1 = 4, lands in front of it "
	    "in E5");
	board_has(&b, "r2 (average) is hit by artillery fire from b1: rolls "
	    "2");
	assert_int_equal(U(&b.g, "r2")->strength, 3);
	assert_int_equal(U(&b.g, "r1")->strength, 4);
	board_free(&b);
}

static void
t_artillery_rules(void **state)
{
	struct board b;
	struct order_errors e;

	(void)state;
	board(&b, NULL, "C2 wood, C3 wood",
	    "b1 field-artillery E1 n, "     /* faces away */
	    "b2 anti-tank-gun G1 s, "       /* direct only */
	    "b3 mountain-artillery A1 s, "
	    "b4 infantry G3 s, "            /* in the way */
	    "b5 field-artillery C2 s, "     /* deep in a wood */
	    "r1 infantry E5 n, r2 infantry G5 n");
	/* No shot is possible, and nothing moves before the artillery
	 * phase: the file is refused, each line with its error (issue 13
	 * item 6: they were accepted and failed in the turn). */
	assert_int_equal(parse(&b.g, BLUE, "shoot b1 E5\nshoot b2 G5\n"
	    "shoot b3 J8\nshoot b5 C6\n", &e, NULL), 4);
	assert_int_equal(e.v[0].line, 5);
	assert_string_equal(e.v[0].msg, "b1 cannot shoot at E5: the target is "
	    "outside its 120 degree arc");
	assert_int_equal(e.v[1].line, 6);
	assert_string_equal(e.v[1].msg, "b2 cannot shoot at G5: it fires only "
	    "directly and the line is blocked");
	assert_int_equal(e.v[2].line, 7);
	assert_string_equal(e.v[2].msg, "b3 cannot shoot at J8: range 12, "
	    "Mountain Artillery reaches 6");
	assert_int_equal(e.v[3].line, 8);
	assert_non_null(strstr(e.v[3].msg, "b5 cannot shoot at C6: it is not "
	    "on the edge"));
	orders_errors_free(&e);
	board_free(&b);
}

static void
t_artillery_simultaneous(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 field-artillery E1 s, "
	    "r1 field-artillery E7 n");
	U(&b.g, "b1")->strength = 1;
	U(&b.g, "r1")->strength = 1;
	/* Both guns fire before any effect: blue 6, red 6, then the hits. */
	PLAY(&b, "shoot b1 E7\n", "shoot r1 E1\n", 6, 6, 1, 1, 6, 5);
	/* Purposes say whose roll and what for, never which unit. */
	assert_string_equal(b.d.log[0].purpose, "blue artillery: lands 5+ "
	    "on target, 2/4 in front, 1/3 behind, with +2 seen");
	assert_string_equal(b.d.log[1].purpose, "red artillery: lands 5+ "
	    "on target, 2/4 in front, 1/3 behind, with +2 seen");
	assert_string_equal(b.d.log[2].purpose, "hit: the result for a unit "
	    "hit, lose 1 SP on 1-2 elite, 1-3 average, 1-4 poor, else retreat "
	    "or lose 1 SP");
	assert_false(pw_alive(U(&b.g, "b1")));
	assert_false(pw_alive(U(&b.g, "r1")));
	/* Both sides lost everything: the battle is over. */
	assert_int_equal(b.g.status, GAME_FINISHED);
	board_free(&b);
}

/* --- firing --------------------------------------------------------------- */

static void
t_fire_mg_tank(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 machine-gun E2 s, r1 tank E4 n");
	U(&b.g, "r1")->strength = 1;
	/* Initiative; blue 1 die; MG three dice 5,6,1 (+1 not moved); two
	 * hits on the tank at its last SP: 1, 1 (cannot destroy); red die. */
	PLAY(&b, "b1 fire E4\n", NULL, 6, 5, 1, 4, 5, 0 + 1, 1, 1, 1);
	/* The dice line agrees with the event (issue 13 item 5: it said
	 * "(needs 5+): 4 -- failure" for this hit): the die needs 4+, and
	 * the purpose says why. */
	assert_int_equal(b.d.log[3].target, 4);
	assert_string_equal(b.d.log[3].purpose, "blue fire, die 1 of 3: a hit "
	    "on 5+ with +1 not moved");
	assert_true(b.d.log[3].result >= b.d.log[3].target);
	assert_true(b.d.log[5].result < b.d.log[5].target);
	board_has(&b, "rolls 4+1 = 5, a hit");
	board_has(&b, "rolls 1+1 = 2, a miss");
	board_has(&b, "cannot destroy Tank Units");
	assert_true(pw_alive(U(&b.g, "r1")));
	assert_int_equal(U(&b.g, "r1")->strength, 1);
	board_free(&b);
}

static void
t_fire_modifiers_and_at(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, "E5 bua", "b1 infantry-at E2 s, b2 commander D2 s, "
	    "r1 tank E5 n");
	U(&b.g, "r1")->strength = 1;
	/* AT infantry moves (no +1), commander adjacent +1, target in BUA -1:
	 * rolls 5 = 5 hit; the tank (1 SP) is destroyed by an AT weapon. */
	PLAY(&b, "b1 move E3 fire E5\n", NULL, 6, 5, 6, 1, 5, 1);
	board_has(&b, "b1 fires at E5: rolls 5+0 = 5, a hit");
	assert_false(pw_alive(U(&b.g, "r1")));
	board_free(&b);
}

static void
t_fire_restrictions(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, "A3 wood",
	    "b1 infantry E2 n, "            /* faces away */
	    "b2 tank G2 n, "                /* 360 */
	    "b3 mortar C1 s, "
	    "b4 infantry C2 s, "            /* between, observes */
	    "b5 infantry A2 s, "            /* wood blocks */
	    "r1 infantry E4 n, r2 infantry G4 n, r3 infantry C4 n, "
	    "r4 infantry A5 n");
	/* Only the tank (360 degrees) and the mortar (over units, seen by
	 * its neighbour) roll. */
	PLAY(&b, "b1 fire E4\nb2 fire G4\nb3 fire C4\nb5 fire A5\n", NULL, 6, 5,
	    6, 1, 1, 1);
	board_has(&b, "b1 cannot fire at E4: the target is outside its 120");
	board_has(&b, "b2 fires at G4");
	board_has(&b, "b3 fires at C4");
	board_has(&b, "b5 cannot fire at A5: no direct line of sight");
	board_free(&b);
}

static void
t_fire_woods(void **state)
{
	struct board b;

	(void)state;
	/* b1 deep in a wood: range 1 within it. r1 two hexes into a wood. */
	board(&b, NULL, "E2 wood, E3 wood, G3 wood, G4 wood",
	    "b1 infantry E2 s, b2 infantry G2 s, r1 infantry E5 n, "
	    "r2 infantry G4 n");
	PLAY(&b, "b1 fire E5\nb2 fire G4\n", NULL, 6, 5, 6, 1);
	board_has(&b, "b1 cannot fire at E5: range 3, it reaches 1");
	board_has(&b, "b2 cannot fire at G4: fire reaches only 1 hex into");
	board_free(&b);
}

/* --- movement ------------------------------------------------------------- */

static void
t_move_adjacent_stop(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 armoured-car E1 s, r1 infantry F4 n");
	/* E4 touches F4 (F is shoved half a hex down): the car stops
	 * there. */
	PLAY(&b, "b1 move E2 E3 E4 E5 face s\n", NULL, 6, 5, 6, 1);
	assert_string_equal(at(&b.g, "b1"), "E4");
	board_has(&b, "stops: next to an enemy unit");
	/* Turned to face the enemy, not the ordered facing. */
	assert_int_equal(U(&b.g, "b1")->facing, pw_dir_towards(fx_hex(&b.g,
	    "E4"), fx_hex(&b.g, "F4")));
	assert_int_equal(U(&b.g, "b1")->facing, hex_direction_to(fx_hex(&b.g,
	    "E4"), fx_hex(&b.g, "F4")));
	board_free(&b);
}

static void
t_move_stacking_and_enemy(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry A2 s, b2 infantry A4 s, "
	    "b3 commander C2 s, b4 infantry C4 s, r1 infantry J8 n");
	/* b1 may not end on b2: it stops in A3. The commander may. */
	PLAY(&b, "b1 move A3 A4\nb3 move C3 C4\n", NULL, 6, 5, 6, 1, 1);
	assert_string_equal(at(&b.g, "b1"), "A3");
	board_has(&b, "no stacking with friendly units");
	assert_string_equal(at(&b.g, "b3"), "C4");
	board_free(&b);
}

static void
t_move_firing_costs_a_hex(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry E2 s, b2 infantry A1 s, "
	    "r1 infantry E5 n");
	/* Fire (miss 1), then move: only 1 of 2 hexes. A second unit moves
	 * its whole allowance and may not fire after. */
	PLAY(&b, "b1 fire E5 move D1 C1\nb2 move A2 A3 fire A6\n", NULL, 6, 5,
	    6, 1, 1);
	assert_string_equal(at(&b.g, "b1"), "D1");
	assert_string_equal(at(&b.g, "b2"), "A3");
	board_has(&b, "b2 cannot fire at A6: it moved its whole allowance");
	board_free(&b);
}

static void
t_move_road_woods_ford(void **state)
{
	struct board b;
	struct order_errors e;

	(void)state;
	board(&b, NULL, "A1 open+road, B1 open+road, C1 open+road, "
	    "D1 open+road, A6 wood, C6 ford, C7 river",
	    "b1 infantry A1 se, b2 infantry A5 s, b3 infantry C5 s, "
	    "r1 infantry J8 n");
	/* Past a wood or a ford, or out of a wood by 2 hexes, can never be
	 * followed: refused at submission (issue 13 item 7). */
	assert_int_equal(parse(&b.g, BLUE, "b2 move A6 A7\n", &e, NULL), 1);
	assert_non_null(strstr(e.v[0].msg, "b2 must stop in A6 (a wood)"));
	orders_errors_free(&e);
	assert_int_equal(parse(&b.g, BLUE, "b3 move C6 C7\n", &e, NULL), 1);
	assert_non_null(strstr(e.v[0].msg, "b3 must stop in C6 (a ford)"));
	orders_errors_free(&e);
	PLAY(&b, "b1 move B1 C1 D1\nb2 move A6\nb3 move C6\n", NULL, 6, 5,
	    6, 1);
	/* All along the road: +1 hex. */
	assert_string_equal(at(&b.g, "b1"), "D1");
	/* Entering a wood stops; entering a ford stops. */
	assert_string_equal(at(&b.g, "b2"), "A6");
	assert_string_equal(at(&b.g, "b3"), "C6");
	assert_true(U(&b.g, "b3")->flags & PW_F_CROSSING);
	/* Next turn: out of the wood at 1 hex; out of the ford 1 hex; the
	 * ford's unit moves 1 hex. */
	assert_int_equal(parse(&b.g, BLUE, "b2 move A7 A8\n", &e, NULL), 1);
	assert_non_null(strstr(e.v[0].msg, "b2 moves 1 hex this turn (out of "
	    "a wood), the path has 2"));
	orders_errors_free(&e);
	assert_int_equal(parse(&b.g, BLUE, "b3 move B6 B5\n", &e, NULL), 1);
	assert_non_null(strstr(e.v[0].msg, "b3 moves 1 hex this turn (out of "
	    "a ford or trench"));
	orders_errors_free(&e);
	PLAY(&b, "b2 move A7\nb3 move B6\n", NULL, 6, 5, 6, 1);
	assert_string_equal(at(&b.g, "b2"), "A7");
	assert_string_equal(at(&b.g, "b3"), "B6");
	assert_false(U(&b.g, "b3")->flags & PW_F_CROSSING);
	board_free(&b);
}

static void
t_withdrawal(void **state)
{
	struct board b;

	(void)state;
	/* b1 in E4 is faced by r1 in E5 (facing n). It withdraws north;
	 * b2 tries to withdraw into a hex next to r2's front. */
	board(&b, NULL, NULL, "b1 infantry E4 s, r1 infantry E5 n, "
	    "b2 infantry H4 s, r2 infantry H5 n, r3 infantry I2 sw");
	PLAY(&b, "b1 move E3 E2\nb2 move H3 H2\n", NULL, 6, 5, 6, 1);
	assert_string_equal(at(&b.g, "b1"), "E2");
	board_has(&b, "(a withdrawal)");
	assert_string_equal(at(&b.g, "b2"), "H3");
	board_has(&b, "a withdrawal may not end next to the front of another");
	board_free(&b);
}

/* --- close combat ------------------------------------------------------------- */

static void
t_cc_flank_advance_fight_on(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry E4 s, r1 infantry E5 s, "
	    "r2 infantry E7 n");
	U(&b.g, "r2")->pos = fx_hex(&b.g, "E6");
	/* b1 attacks r1 from its rear: b1 rolls 3 (front: hit below 3), r1
	 * rolls 4 (flank: hit below 5) -> hit roll 5 (average: retreat).
	 * b1 advances into E5 and fights r2 in E6 on its front: 6 and 1,
	 * r2's hit roll 1: loses an SP. */
	PLAY(&b, "b1 cc E5 cc E6\n", "retreat always\n", 6, 5, 6, 3, 4, 5, 6,
	    1, 1, 1);
	board_has(&b, "on its flank or rear");
	board_has(&b, "b1 wins the close combat");
	assert_string_equal(at(&b.g, "b1"), "E5");
	assert_int_equal(U(&b.g, "r1")->strength, 4);
	assert_false(hex_eq(U(&b.g, "r1")->pos, fx_hex(&b.g, "E5")));
	assert_int_equal(U(&b.g, "r2")->strength, 3);
	assert_int_equal(b.d.log[6].target, 3); /* r2 on its front */
	board_free(&b);
}

/* An attacker its own close combat drove back has not won it and does not
 * advance from the hex it retreated to (issue 13 item 1: it did, two hexes
 * into the defender's hex). */
static void
t_cc_no_advance_after_retreat(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry E4 s, r1 infantry E5 n");
	/* Both are hit (1 and 1), both roll 5: retreat or lose, both
	 * retreat ('always'); E5 is empty. */
	PLAY(&b, "b1 cc E5\n", "retreat always\n", 6, 5, 6, 1, 1, 5, 5, 1);
	board_has(&b, "b1 retreats E4 -> ");
	board_has(&b, "r1 retreats E5 -> ");
	board_has(&b, "b1 has fallen back from E4: it has not won");
	assert_false(fx_event_has(&b.ev, "b1 wins the close combat"));
	assert_false(fx_event_has(&b.ev, "b1 advances"));
	assert_false(hex_eq(U(&b.g, "b1")->pos, fx_hex(&b.g, "E5")));
	assert_false(hex_eq(U(&b.g, "b1")->pos, fx_hex(&b.g, "E4")));
	board_free(&b);
}

/* An advance after a close combat into a minefield or a gas cloud is hit,
 * as every other way of entering the hex (issue 13 item 3); a retreat
 * does not go into a gas cloud. */
static void
t_advance_into_mines_and_gas(void **state)
{
	struct board b;
	struct hex h1, h2;
	int m, i;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry E4 s, r1 infantry E5 n, "
	    "r2 infantry A8 n");
	U(&b.g, "r1")->strength = 1;
	m = pw_add_marker(&b.g, PW_MINES, RED, fx_hex(&b.g, "E5"));
	b.g.units[m].x[0] = 1 << RED;
	/* b1 6 (no hit), r1 1 (hit), r1's hit roll 1: destroyed; b1
	 * advances into the minefield: hit roll 2, loses 1 SP. */
	PLAY(&b, "b1 cc E5\n", NULL, 6, 5, 6, 6, 1, 1, 2, 1);
	board_has(&b, "b1 advances E4 -> E5");
	board_has(&b, "b1 advances into the minefield in E5");
	board_has(&b, "b1 (average) is hit by the minefield: rolls 2");
	assert_int_equal(U(&b.g, "b1")->strength, 3);
	assert_true(pw_visible(&b.g, BLUE, m));
	board_free(&b);

	board(&b, "gas", NULL, "b1 infantry E4 s, r1 infantry E5 n, "
	    "r2 infantry A8 n");
	U(&b.g, "r1")->strength = 1;
	m = pw_add_marker(&b.g, PW_GAS, RED, fx_hex(&b.g, "E5"));
	b.g.units[m].x[0] = 3;
	b.g.units[m].x[1] = 0;
	b.g.units[m].x[2] = -1;
	/* The cloud rolls 6 and stays; then as above, the gas hit roll 3:
	 * b1 loses 1 SP. */
	PLAY(&b, "b1 cc E5\n", NULL, 6, 6, 5, 6, 6, 1, 1, 3, 1);
	board_has(&b, "b1 advances into the gas cloud in E5");
	assert_int_equal(U(&b.g, "b1")->strength, 3);
	/* A retreat picks another hex than a gas cloud. */
	i = game_unit_index(&b.g, "r2");
	assert_true(pw_retreat_hex(&b.g, i, &h1));
	m = pw_add_marker(&b.g, PW_GAS, RED, h1);
	b.g.units[m].x[0] = 3;
	assert_true(pw_retreat_hex(&b.g, i, &h2));
	assert_false(hex_eq(h1, h2));
	board_free(&b);
}

static void
t_cc_modifiers(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, "E4 ford, E5 wood 1", "b1 infantry E4 s, "
	    "r1 infantry E5 n, r2 commander E6 n");
	/* b1 in a ford attacks uphill (-1 -1); r1 in a wood (+1 cover +1
	 * wood) with r2 (commander) adjacent (+1). */
	PLAY(&b, "b1 cc E5\n", "retreat never\n", 6, 5, 6, 4, 1, 3, 1, 1);
	board_has(&b, "b1 rolls 4 -1 uphill -1 river = 2 (hit below 3)");
	board_has(&b, "r1 rolls 1 +1 commander +1 cover +1 wood = 4");
	/* The dice lines say the same (issue 13 item 5: they said "needs
	 * 3+" without the modifiers): b1's 4 needs 5+ not to be hit, a
	 * failure; r1's 1 needs 0+, that is any die. */
	assert_string_equal(b.d.log[3].purpose, "close combat: the blue "
	    "attacker, not hit on 3+ with -1 uphill -1 river");
	assert_int_equal(b.d.log[3].target, 5);
	assert_true(b.d.log[3].result < b.d.log[3].target);
	assert_string_equal(b.d.log[4].purpose, "close combat: the red "
	    "defender, not hit on 3+ with +1 commander +1 cover +1 wood");
	assert_int_equal(b.d.log[4].target, 1);
	/* b1 hit (roll 3: retreat, but "never": loses 1 SP). */
	assert_int_equal(U(&b.g, "b1")->strength, 3);
	board_free(&b);
}

/* --- hits ------------------------------------------------------------------ */

static void
t_hits_by_quality(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 heavy-artillery C1 s, "
	    "b2 heavy-artillery E1 s, b3 heavy-artillery G1 s, "
	    "r1 infantry C6 n elite, r2 infantry E6 n elite, "
	    "r3 infantry G6 n poor");
	/* Artillery on target (6+2), three units in the hex would break
	 * stacking, so three shots at three hexes: elite 2 (loses), elite 5
	 * (retreat or lose: the Elite row's reading, issue 13 item 4; it
	 * used to survive unharmed on 5-6), poor 4 (loses). */
	PLAY(&b, "shoot b1 C6\nshoot b2 E6\nshoot b3 G6\n", "retreat never\n",
	    6, 6, 6, 2, 5, 4, 6, 5, 1, 1);
	board_has(&b, "r1 (elite) is hit by artillery fire from b1: rolls 2.");
	assert_int_equal(U(&b.g, "r1")->strength, 3);
	board_has(&b, "r2 (elite) is hit by artillery fire from b2: rolls 5, "
	    "must retreat 1 hex or lose 1 SP");
	board_has(&b, "r2 stands (retreat never)");
	assert_int_equal(U(&b.g, "r2")->strength, 3);
	assert_false(fx_event_has(&b.ev, "unharmed"));
	assert_int_equal(U(&b.g, "r3")->strength, 3);
	board_free(&b);
}

static void
t_retreat_blocked(void **state)
{
	struct board b;
	struct hex h;

	(void)state;
	board(&b, NULL, "B5 wood", "b1 heavy-artillery E1 s, "
	    "b2 heavy-artillery H1 s, b3 heavy-artillery B1 s, "
	    "r1 infantry E4 n, b4 infantry D3 s, b5 infantry F5 s, "
	    "b6 infantry E6 s, b7 infantry G3 s, r2 infantry H4 n, "
	    "r3 infantry B5 n");
	assert_false(pw_retreat_hex(&b.g, game_unit_index(&b.g, "r1"), &h));
	/* r1 in E4 is hit (average 5: retreat or lose). Every empty hex
	 * next to it is next to an enemy: it loses 1 SP. r2 in H4 with
	 * room retreats, away from the enemy; with "cover" in a wood r3
	 * stays and loses. */
	PLAY(&b, "shoot b1 E4\nshoot b2 H4\nshoot b3 B5\n", "retreat cover\n",
	    6, 6, 6, 5, 5, 5, 6, 5, 1, 1, 1);
	board_has(&b, "r1 has no empty hex to retreat to");
	assert_int_equal(U(&b.g, "r1")->strength, 3);
	assert_string_equal(at(&b.g, "r1"), "E4");
	assert_int_equal(U(&b.g, "r2")->strength, 4);
	assert_false(hex_eq(U(&b.g, "r2")->pos, fx_hex(&b.g, "H4")));
	board_has(&b, "r3 stands (retreat cover)");
	assert_int_equal(U(&b.g, "r3")->strength, 3);
	board_free(&b);
}

/* --- transport ------------------------------------------------------------ */

static void
t_transport_hit_with_passengers(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "r1 heavy-artillery E8 n, "
	    "r2 heavy-artillery H8 n, b1 half-track E3 s, b2 infantry E3 s, "
	    "b3 truck H3 s, b4 anti-tank-gun H3 s");
	U(&b.g, "b2")->attached = game_unit_index(&b.g, "b1");
	U(&b.g, "b4")->attached = game_unit_index(&b.g, "b3");
	/* Artillery lands on a half-track carrying infantry: the half-track
	 * rolls 5 (retreats), its passenger rolls 6 (retreat: it went with
	 * the half-track); then a truck (1 SP) towing a gun: truck 1
	 * (destroyed), the gun 2 (loses 1 SP) and is left in the hex. */
	PLAY(&b, "retreat always\n", "shoot r1 E3\nshoot r2 H3\n", 6, 6, 5, 6,
	    1, 2, 6, 5, 1, 1);
	board_has(&b, "b2 (average) is hit by the hit on its transport b1");
	board_has(&b, "b2 retreated with its transport");
	assert_true(hex_eq(U(&b.g, "b2")->pos, U(&b.g, "b1")->pos));
	assert_false(hex_eq(U(&b.g, "b1")->pos, fx_hex(&b.g, "E3")));
	assert_int_equal(U(&b.g, "b2")->strength, 4);
	assert_false(pw_alive(U(&b.g, "b3")));
	assert_int_equal(U(&b.g, "b4")->attached, -1);
	assert_int_equal(U(&b.g, "b4")->strength, 1);
	assert_string_equal(at(&b.g, "b4"), "H3");
	board_free(&b);
}

static void
t_transport_load_unload(void **state)
{
	struct board b;
	struct order_errors e;

	(void)state;
	board(&b, NULL, NULL, "b1 truck A2 s, b2 infantry A2 s, "
	    "b3 horse-transport C2 s, b4 infantry C2 s, r1 infantry J8 n");
	/* Turn 1: load (the truck may not move that turn); horses carry no
	 * infantry. */
	PLAY(&b, "b2 load b1\nb1 move A3\n", NULL, 6, 5, 6, 1);
	assert_int_equal(U(&b.g, "b2")->attached, game_unit_index(&b.g, "b1"));
	assert_string_equal(at(&b.g, "b1"), "A2");
	board_has(&b, "b1 is busy and stays put");
	/* Horses carrying infantry, loading into a transport in another
	 * hex: never legal, refused at submission (issue 13 item 7). */
	assert_int_equal(parse(&b.g, BLUE, "b4 load b3\n", &e, NULL), 1);
	assert_non_null(strstr(e.v[0].msg, "b3 (Horse-drawn Transport) "
	    "cannot carry or tow b4"));
	orders_errors_free(&e);
	assert_int_equal(parse(&b.g, BLUE, "b4 load b1\n", &e, NULL), 1);
	assert_non_null(strstr(e.v[0].msg, "both must be in the same hex"));
	orders_errors_free(&e);
	board_free(&b);
	/* A fresh board for turns 2 and 3, b2 already aboard b1. */
	board(&b, NULL, NULL, "b1 truck A2 s, b2 infantry A2 s, "
	    "r1 infantry J8 n");
	U(&b.g, "b2")->attached = 0;
	/* Turn 2: the truck moves 4 and its passenger with it. */
	PLAY(&b, "b1 move A3 A4 A5 A6\n", NULL, 6, 5, 6, 1);
	assert_string_equal(at(&b.g, "b2"), "A6");
	/* Turn 3: unload. */
	PLAY(&b, "b2 unload\n", NULL, 6, 5, 6, 1);
	assert_int_equal(U(&b.g, "b2")->attached, -1);
	assert_string_equal(at(&b.g, "b2"), "A6");
	board_free(&b);
}

static void
t_tank_riders(void **state)
{
	struct board b;

	(void)state;
	/* Rifle fire at a tank carrying infantry: the hit reaches the rider
	 * too; later a gun destroys the tank and the rider with it. */
	board(&b, "tank-riders", NULL, "b1 tank E3 s, b2 infantry E3 s, "
	    "r1 infantry E5 n, r2 infantry J8 n");
	U(&b.g, "b2")->attached = 0;
	U(&b.g, "b1")->strength = 1;
	/* Red first (6 vs 1): red 1 die 6; r1 fires 4+1: hit. The tank: 1
	 * (small arms cannot destroy it); the rider 1: loses 1 SP. Blue's
	 * die. */
	PLAY(&b, NULL, "r1 fire E3\n", 1, 6, 6, 4, 1, 1, 1);
	assert_true(pw_alive(U(&b.g, "b1")));
	assert_int_equal(U(&b.g, "b2")->strength, 3);
	board_has(&b, "hit by the hit on its transport b1");
	board_free(&b);

	board(&b, "tank-riders", NULL, "b1 tank E3 s, b2 infantry E3 s, "
	    "r1 field-artillery E8 n");
	U(&b.g, "b2")->attached = 0;
	U(&b.g, "b1")->strength = 1;
	PLAY(&b, NULL, "shoot r1 E3\n", 6, 1, 6, 5, 1);
	assert_false(pw_alive(U(&b.g, "b1")));
	assert_false(pw_alive(U(&b.g, "b2")));
	board_has(&b, "b2 riding on b1 is destroyed with it");
	board_free(&b);
}

/* --- special terrain ------------------------------------------------------ */

static void
t_minefield_and_wire(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 armoured-car A1 s, b2 infantry C1 s, "
	    "b3 tank E1 s, r1 infantry J8 n");
	pw_add_marker(&b.g, PW_MINES, RED, fx_hex(&b.g, "A2"));
	b.g.units[b.g.nunits - 1].x[0] = 1 << RED;
	pw_add_marker(&b.g, PW_WIRE, RED, fx_hex(&b.g, "C2"));
	pw_add_marker(&b.g, PW_WIRE, RED, fx_hex(&b.g, "E2"));
	assert_false(pw_visible(&b.g, BLUE, pw_marker_at(&b.g, fx_hex(&b.g,
	    "A2"), PW_MINES)));
	/* b1 moves through a minefield without stopping and is hit (1:
	 * loses an SP); b2 stops at wire; b3 (tank) drives through it. */
	PLAY(&b, "b1 move A2 A3 A4\nb2 move C2 C3\nb3 move E2 E3\n", NULL, 6, 5,
	    6, 1, 1);
	assert_string_equal(at(&b.g, "b1"), "A4");
	assert_int_equal(U(&b.g, "b1")->strength, 1);
	assert_true(pw_visible(&b.g, BLUE, pw_marker_at(&b.g, fx_hex(&b.g,
	    "A2"), PW_MINES)));
	assert_string_equal(at(&b.g, "b2"), "C2");
	board_has(&b, "stopped by barbed wire");
	assert_string_equal(at(&b.g, "b3"), "E3");
	board_free(&b);
}

static void
t_engineers_and_wire_work(void **state)
{
	struct board b;
	int t, m;

	(void)state;
	board(&b, NULL, NULL, "b1 engineers E4 s, b2 engineers A4 s, "
	    "b3 infantry H4 s, r1 infantry J8 n");
	pw_add_marker(&b.g, PW_MINES, RED, fx_hex(&b.g, "A5"));
	/* Turn 1: lay in E5, clear A5, wire H4. */
	PLAY(&b, "b1 lay E5\nb2 clear A5\nb3 wire\n", NULL, 6, 5, 6, 1);
	assert_true(pw_marker_at(&b.g, fx_hex(&b.g, "H4"), PW_WIRE) >= 0);
	for (t = 2; t <= 5; t++) {
		PLAY(&b, NULL, NULL, 6, 5, 6, 1);
		m = pw_marker_at(&b.g, fx_hex(&b.g, "E5"), PW_MINES);
		/* Three turns to lay. */
		assert_true(t >= 3 ? m >= 0 : m < 0);
		m = pw_marker_at(&b.g, fx_hex(&b.g, "A5"), PW_MINES);
		/* Five turns to clear. */
		assert_true(t >= 5 ? m < 0 : m >= 0);
	}
	/* The mines are Blue's: Red does not know of them. */
	assert_false(pw_visible(&b.g, RED, pw_marker_at(&b.g, fx_hex(&b.g,
	    "E5"), PW_MINES)));
	PLAY(&b, "b3 unwire\n", NULL, 6, 5, 6, 1);
	assert_true(pw_marker_at(&b.g, fx_hex(&b.g, "H4"), PW_WIRE) < 0);
	board_free(&b);
}

static void
t_trench(void **state)
{
	struct board b;
	struct order_errors e;

	(void)state;
	board(&b, NULL, "E4 trench", "b1 infantry E3 s, r1 infantry J8 n");
	assert_int_equal(parse(&b.g, BLUE, "b1 move E4 E5\n", &e, NULL), 1);
	assert_non_null(strstr(e.v[0].msg, "b1 must stop in E4 (a trench)"));
	orders_errors_free(&e);
	PLAY(&b, "b1 move E4\n", NULL, 6, 5, 6, 1);
	assert_string_equal(at(&b.g, "b1"), "E4");
	board_has(&b, "entered a trench");
	/* Crossing: may not fire. */
	PLAY(&b, "b1 fire E7\n", NULL, 6, 5, 6, 1);
	board_has(&b, "units crossing trenches may not fire");
	board_free(&b);
}

static void
t_gas(void **state)
{
	struct board b;
	int m;

	(void)state;
	board(&b, "gas", NULL, "b1 field-artillery E1 s, r1 infantry E5 n, "
	    "r2 infantry E4 n");
	U(&b.g, "r2")->pos = fx_hex(&b.g, "G4");
	/* A gas shell on target (6+2): r1 hit (1). Next turn the cloud
	 * rolls 2: it drifts in front (towards the gun), into E4: r2 hit. */
	PLAY(&b, "shoot b1 E5 gas\n", NULL, 6, 1, 6, 5, 1, 1);
	m = pw_marker_at(&b.g, fx_hex(&b.g, "E5"), PW_GAS);
	assert_true(m >= 0);
	assert_true(U(&b.g, "b1")->flags & PW_F_GAS);
	assert_int_equal(U(&b.g, "r1")->strength, 3);
	U(&b.g, "r2")->pos = fx_hex(&b.g, "E4");
	PLAY(&b, NULL, NULL, 2, 1, 6, 5, 1, 1);
	board_has(&b, "drifts forward to E4");
	assert_int_equal(U(&b.g, "r2")->strength, 3);
	/* Turn 3: it rolls 5 and stays; turn 4: after 3 turns it disperses
	 * (no roll). */
	PLAY(&b, NULL, NULL, 5, 6, 5, 1, 1);
	board_has(&b, "rolls 5 and stays");
	assert_true(pw_marker_at(&b.g, fx_hex(&b.g, "E4"), PW_GAS) >= 0);
	PLAY(&b, NULL, NULL, 6, 5, 1, 1);
	board_has(&b, "The gas cloud in E4 disperses");
	assert_true(pw_marker_at(&b.g, fx_hex(&b.g, "E4"), PW_GAS) < 0);
	board_free(&b);
}

static void
t_cyclists(void **state)
{
	struct game g;

	(void)state;
	empty_game(&g, "cyclists");
	assert_int_equal(pw_types[PW_CYCLIST].move, pw_types[PW_MCAV].move);
	assert_int_equal(pw_types[PW_CYCLIST].weapon, PW_W_SMALL);
	assert_int_equal(pw_types[PW_CYCLIST].cc_front,
	    pw_types[PW_INF].cc_front);
	game_free(&g);
	new_game(&g, "cyclists", NULL);
	assert_string_equal(U(&g, "b6")->kind, "cyclists");
	game_free(&g);
}

/* --- exhaustion ------------------------------------------------------------ */

static void
t_exhaustion(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, NULL, "b1 infantry E3 s, b2 infantry A1 s, "
	    "r1 infantry E5 n, r2 infantry J8 n");
	/* 8 SP each: exhaustion point 3. */
	assert_int_equal(pw_exhaustion_point(&b.g, BLUE), 3);
	U(&b.g, "b2")->strength = 1;
	PLAY(&b, NULL, NULL, 6, 5, 6, 1);
	assert_true(pw_exhausted(&b.g, BLUE));
	assert_false(pw_exhausted(&b.g, RED));
	assert_int_equal(b.g.status, GAME_ACTIVE);
	/* Exhausted: no close combat, no move towards the enemy. */
	PLAY(&b, "b1 cc E4\nb2 move A2\n", NULL, 6, 5, 6, 1);
	board_has(&b, "b1 makes no close combat: its side is exhausted");
	board_has(&b, "no move towards the enemy");
	assert_string_equal(at(&b.g, "b2"), "A1");
	/* Both exhausted: the battle ends. */
	U(&b.g, "r2")->strength = 1;
	PLAY(&b, NULL, NULL, 6, 5, 6, 1);
	assert_true(pw_exhausted(&b.g, RED));
	assert_int_equal(b.g.status, GAME_FINISHED);
	assert_non_null(strstr(b.g.result, "both sides reached their "
	    "Exhaustion"));
	board_free(&b);
}

/* --- orders ------------------------------------------------------------------ */

/* Orders that can never be legal, whatever the enemy does, are refused at
 * submission with their line (issue 13 item 7: they were accepted and cut
 * short in the turn); what only the enemy's moves can spoil is accepted,
 * and the acknowledgement says so. */
static void
t_parse_never_legal(void **state)
{
	struct board b;
	struct order_errors e;
	struct order_header h;
	struct order_body body;
	struct window_spec w;
	struct sbuf canon;
	void *o = NULL;
	char *raw, *txt;
	int n;

	(void)state;
	board(&b, NULL, "C4 river, A1 open+road, A2 open+road, A4 open+road, "
	    "A3 open+road", "b1 infantry C3 s, b2 infantry A1 s, "
	    "b3 machine-gun F2 s, b4 infantry H2 s, b5 half-track J2 s, "
	    "b6 infantry J2 s, b7 truck A8 n, b8 infantry H7 n, "
	    "r1 infantry F8 n");
	U(&b.g, "b6")->attached = game_unit_index(&b.g, "b5");
	n = parse(&b.g, BLUE, "b1 move C4 C5\n"     /* 5: a river */
	    "b2 move B1 B2 B3\n"                    /* 6: off the road */
	    "b3 fire F6\n"                           /* 7: range 3, it is 4 */
	    "b4 move H3 cc H6\n"                     /* 8: not next to H6 */
	    "b6 cc J3\n"                             /* 9: carried */
	    "b8 load b7\n", &e, NULL);              /* 10: another hex */
	if (n != 6) {
		txt = orders_errors_text(&e);
		fprintf(stderr, "%s", txt);
		free(txt);
	}
	assert_int_equal(n, 6);
	assert_true(fx_has_error(&e, 5, "C4 is river: no unit enters it"));
	assert_true(fx_has_error(&e, 6, "b2 moves at most 2 hexes; 3 only if "
	    "the whole move is along a road"));
	assert_true(fx_has_error(&e, 7, "b3 (Machine Guns) reaches 3 hexes: "
	    "F6 is 4 from F2"));
	assert_true(fx_has_error(&e, 8, "b4 cannot close with H6: it is not "
	    "next to any hex b4 can be in"));
	assert_true(fx_has_error(&e, 9, "b6 is carried: unload it before it "
	    "fights"));
	assert_true(fx_has_error(&e, 10, "b8 cannot load into b7: b8 is in "
	    "H7, b7 in A8"));
	orders_errors_free(&e);
	/* Along the road the bonus hex is fine; fire at a hex in reach of
	 * the path; close combat next to the path's end; a passenger that
	 * unloads first. Accepted, and the acknowledgement says what the
	 * enemy can still spoil. */
	raw = fx_orders(&b.g, "orders", "blue", "b2 move A2 A3 A4\n"
	    "b3 move F3 F4 fire F7\nb4 move H3 H4 cc H5\nb6 unload\n");
	orders_errors_init(&e);
	sbuf_init(&canon);
	assert_int_equal(orders_parse_file(raw, strlen(raw), &h, &body, &e),
	    HP_OK);
	assert_true(b.g.rules->next_window(&b.g, &w));
	if (b.g.rules->parse(&b.g, &w, BLUE, &body, &o, &canon, &e) != HP_OK) {
		txt = orders_errors_text(&e);
		fprintf(stderr, "%s", txt);
		free(txt);
	}
	assert_int_equal(e.n, 0);
	assert_non_null(strstr(canon.buf, "# Accepted. Only the enemy's moves "
	    "this turn can still spoil these"));
	assert_non_null(strstr(canon.buf, "#   b2 move: it stops on entering "
	    "a hex next to an enemy unit"));
	assert_non_null(strstr(canon.buf, "#   b3 fire F7: a unit moving into "
	    "the line of sight blocks it"));
	assert_non_null(strstr(canon.buf, "#   b4 cc H5: an enemy unit must be "
	    "in H5, next to b4, when it acts"));
	free(o);
	orders_body_free(&body);
	orders_errors_free(&e);
	sbuf_free(&canon);
	free(raw);
	board_free(&b);
}

/* Count the characters c in s. */
static int
count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* Blue's map of the board with the markers given (NULL: none). */
static char *
blue_map(bool wire, bool mines)
{
	struct game g;
	struct sbuf b;
	int m;

	empty_game(&g, NULL);
	if (wire)
		pw_add_marker(&g, PW_WIRE, BLUE, fx_hex(&g, "E4"));
	if (mines) {
		m = pw_add_marker(&g, PW_MINES, BLUE, fx_hex(&g, "E5"));
		g.units[m].x[0] = 1 << BLUE;
	}
	sbuf_init(&b);
	pw_render_map(&g, BLUE, &b);
	game_free(&g);
	return b.buf;
}

/* Issue 13 item 9, the smaller ones: unloading keeps the stacking rule; a
 * unit's retreat choice given twice is an error, as the side's is; a path
 * over 6 hexes names the unit's allowance; a stop names its cause; a move
 * into an enemy's hex names the hex; two different markers side by side
 * do not share an edge marker; the order template lists each unit's
 * neighbours by direction. */
static void
t_smaller_ones(void **state)
{
	struct board b;
	struct order_errors e;
	struct window_spec w;
	struct sbuf t;
	char *alone_x, *alone_m, *both;

	(void)state;
	board(&b, NULL, NULL, "b1 half-track E4 s, b2 infantry E4 s, "
	    "b3 infantry E4 s, b4 infantry B2 s, b5 infantry H4 s, "
	    "r1 infantry B5 n, r2 infantry H5 n");
	U(&b.g, "b2")->attached = game_unit_index(&b.g, "b1");
	assert_int_equal(parse(&b.g, BLUE, "retreat b4 never\n"
	    "retreat b4 always\n", &e, NULL), 1);
	assert_true(fx_has_error(&e, 6, "the retreat choice for b4 is already "
	    "given on line 5"));
	orders_errors_free(&e);
	assert_int_equal(parse(&b.g, BLUE, "b4 move B1 C1 D1 E1 F1 G1 H1\n", &e,
	    NULL), 1);
	assert_true(fx_has_error(&e, 5, "b4 moves at most 2 hexes (3 along a "
	    "road), the path has more than 6"));
	orders_errors_free(&e);
	/* b2 may not get off into b3's hex; b4 fires (1: a miss) and then
	 * has one hex; b5 tries to walk into r2. */
	PLAY(&b, "b2 unload\nb4 fire B5 move B3 B4\nb5 move H5\n", NULL,
	    6, 5, 6, 1, 1);
	board_has(&b, "b2 cannot unload in E4: no stacking with another "
	    "friendly unit");
	assert_int_equal(U(&b.g, "b2")->attached, game_unit_index(&b.g, "b1"));
	board_has(&b, "b4 moves B2 -> B3 (1 hex) and stops: its movement "
	    "allowance is spent (firing costs a hex)");
	board_has(&b, "b5 cannot move from H4 (an enemy unit is in H5)");
	board_free(&b);

	/* Wire in E4 and Blue's minefield in E5: their shared edge is plain,
	 * so each keeps fewer marks than alone (it used to carry one of the
	 * two, as if both hexes were the same). */
	alone_x = blue_map(true, false);
	alone_m = blue_map(false, true);
	both = blue_map(true, true);
	assert_true(count_char(both, 'x') < count_char(alone_x, 'x'));
	assert_true(count_char(both, '*') < count_char(alone_m, '*'));
	assert_true(count_char(both, 'x') > 0 && count_char(both, '*') > 0);
	free(alone_x);
	free(alone_m);
	free(both);

	/* The template: E4's neighbours, clockwise from the top. */
	empty_game(&b.g, NULL);
	add(&b.g, "b1", PW_INF, "E4", S, PW_AVERAGE);
	assert_true(b.g.rules->next_window(&b.g, &w));
	sbuf_init(&t);
	b.g.rules->order_template(&b.g, &w, BLUE, &t);
	assert_non_null(strstr(t.buf, "#        next: n E3 ne F3 se F4 s E5 "
	    "sw D4 nw D3\n"));
	sbuf_free(&t);
	game_free(&b.g);
}

static void
t_parse_errors(void **state)
{
	struct order_errors e;
	struct game g;
	int n;

	(void)state;
	new_game(&g, NULL, NULL);
	/* Body lines start at file line 5. */
	n = parse(&g, BLUE, "shoot b3 E5\nb3 move D6 D7 D8 D9\n"
	    "b99 hold\nr3 hold\nb3 fire Z99\nb10 move B7\nb12 teleport\n"
	    "shoot b10 G3 gas\nretreat sometimes\nb4 move D8\nb4 fire E8\n"
	    "frobnicate\n", &e, NULL);
	if (n != 11) {
		char *txt = orders_errors_text(&e);

		fprintf(stderr, "%s", txt);
		free(txt);
	}
	assert_int_equal(n, 11);
	assert_true(fx_has_error(&e, 5, "is not artillery"));
	assert_true(fx_has_error(&e, 6, "moves at most 2 hexes"));
	assert_true(fx_has_error(&e, 7, "unknown order 'b99'"));
	assert_true(fx_has_error(&e, 8, "is not yours"));
	assert_true(fx_has_error(&e, 9, "expected a hex of the map (A1 to M12)"));
	assert_true(fx_has_error(&e, 10, "is not adjacent"));
	assert_true(fx_has_error(&e, 11, "unknown action 'teleport'"));
	assert_true(fx_has_error(&e, 12, "campaign option 'gas'"));
	assert_true(fx_has_error(&e, 13, "expected 'retreat always|never|cover'"));
	assert_true(fx_has_error(&e, 15, "already on the activation list on "
	    "line 14"));
	assert_true(fx_has_error(&e, 16, "unknown order 'frobnicate'"));
	orders_errors_free(&e);
	assert_int_equal(parse(&g, BLUE, "shoot b10 F6\nb10 move B5\n", &e,
	    NULL), 1);
	assert_true(fx_has_error(&e, 6, "artillery that fired may not move"));
	orders_errors_free(&e);
	assert_int_equal(parse(&g, BLUE, "b6 move B7\nb2 fire E3\nb3 lay E4\n"
	    "b3 face up\n", &e, NULL), 4);
	assert_true(fx_has_error(&e, 5, "is carried"));
	assert_true(fx_has_error(&e, 6, "has no weapon"));
	assert_true(fx_has_error(&e, 7, "only Engineers"));
	assert_true(fx_has_error(&e, 8, "expected a direction"));
	orders_errors_free(&e);
	/* A good file, and its canonical form is stable. */
	assert_int_equal(parse(&g, BLUE, "shoot b10 J6\nb3 move E6 face se fire "
	    "G6\nb6 unload\nretreat cover\nretreat b3 never\n", &e, NULL), 0);
	orders_errors_free(&e);
	game_free(&g);
}

/* The landing roll's other results and modifiers: "Less than 1 ...
 * totally ineffective" (1 -1 for the wood); a spotter's line of sight
 * gives +2 when the gun has none (indirect fire); a gun that sees its
 * target fires directly; self-propelled artillery may move after firing. */
static void
t_artillery_ineffective_spotter_spa(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, "E6 wood, A4 wood", "b1 field-artillery E1 s, "
	    "b2 field-artillery A1 s, b3 spotter C7 s, b4 sp-artillery H1 s, "
	    "r1 infantry E6 n, r2 infantry A7 n, r3 infantry H5 n");
	assert_false(pw_los(&b.g, fx_hex(&b.g, "A1"), fx_hex(&b.g, "A7"),
	    false));
	/* Landings b1 1, b2 3, b4 6; hits on r2 and r3 1, 1; initiative 6 1;
	 * blue's die 6; red's die 1. */
	PLAY(&b, "shoot b1 E6\nshoot b2 A7\nshoot b4 H5\nb4 move I1\n", NULL,
	    1, 3, 6, 1, 1, 6, 1, 6, 1);
	board_has(&b, "b1 fires at E6 (indirect fire): rolls 1-1 = 0, totally "
	    "ineffective");
	board_has(&b, "b2 fires at A7 (indirect fire): rolls 3+2 = 5, lands "
	    "on the target");
	board_has(&b, "b4 fires at H5 (direct fire): rolls 6+2 = 8, lands on "
	    "the target");
	assert_int_equal(U(&b.g, "r1")->strength, 4);
	assert_int_equal(U(&b.g, "r2")->strength, 3);
	assert_int_equal(U(&b.g, "r3")->strength, 3);
	assert_string_equal(at(&b.g, "b4"), "I1");
	board_free(&b);
}

/* Towing: a truck and horse-drawn transport each limber a gun (one turn,
 * same hex); a limbered gun cannot shoot and moves with its transport;
 * unlimbering takes a turn. */
static void
t_transport_tow(void **state)
{
	struct board b;
	struct order_errors e;

	(void)state;
	board(&b, NULL, NULL, "b1 truck A2 s, b2 anti-tank-gun A2 s, "
	    "b3 horse-transport C2 s, b4 field-artillery C2 s, "
	    "r1 infantry J8 n");
	PLAY(&b, "b2 load b1\nb4 load b3\n", NULL, 6, 5, 6, 1);
	board_has(&b, "b2 is limbered to b1");
	board_has(&b, "b4 is limbered to b3");
	assert_int_equal(U(&b.g, "b4")->attached, game_unit_index(&b.g, "b3"));
	assert_int_equal(parse(&b.g, BLUE, "shoot b4 C6\n", &e, NULL), 1);
	assert_string_equal(e.v[0].msg, "b4 cannot shoot at C6: it is "
	    "limbered (towed)");
	orders_errors_free(&e);
	PLAY(&b, "b3 move C3 C4\n", NULL, 6, 5, 6, 1);
	assert_string_equal(at(&b.g, "b4"), "C4");
	PLAY(&b, "b4 unload\n", NULL, 6, 5, 6, 1);
	board_has(&b, "b4 is unlimbered from b3 in C4");
	assert_int_equal(U(&b.g, "b4")->attached, -1);
	board_free(&b);
}

/* "Units in rivers may not fire"; a Machine Gun that wins a close combat
 * does not advance (only Infantry, Engineers, Cavalry and Tanks do);
 * transports and spotters may end their move on a friendly unit. */
static void
t_ford_no_advance_stacking_exempt(void **state)
{
	struct board b;

	(void)state;
	board(&b, NULL, "E4 ford", "b1 infantry E4 n, b2 machine-gun A2 s, "
	    "b3 truck G2 s, b4 infantry G3 s, b5 spotter I2 s, "
	    "b6 infantry I3 s, r1 infantry E2 n, r2 infantry A3 n");
	U(&b.g, "r2")->strength = 1;
	/* Initiative 6 5; blue's two dice 6 6; close combat: b2 6, r2 1;
	 * r2's hit 1; red's die 1. */
	PLAY(&b, "b1 fire E2\nb2 cc A3\nb3 move G3\nb5 move I3\n", NULL, 6,
	    5, 6, 6, 6, 1, 1, 1);
	board_has(&b, "b1 cannot fire at E2: units in rivers may not fire");
	board_has(&b, "b2 wins the close combat");
	board_has(&b, "b2 (Machine Guns) does not advance");
	assert_false(pw_alive(U(&b.g, "r2")));
	assert_string_equal(at(&b.g, "b2"), "A2");
	assert_string_equal(at(&b.g, "b3"), "G3");
	assert_string_equal(at(&b.g, "b5"), "I3");
	board_free(&b);
}

/* --- map, fog, opponent, whole battles ------------------------------------- */

static void
t_map_and_fog(void **state)
{
	struct game g;
	struct sbuf b, r, m;
	const char *p, *line;
	int width, k;

	(void)state;
	new_game(&g, NULL, NULL);
	sbuf_init(&b);
	sbuf_init(&r);
	sbuf_init(&m);
	g.rules->render_map(&g, BLUE, &b);
	g.rules->render_map(&g, RED, &r);
	g.rules->render_map(&g, -1, &m);
	/* Every side's map (roster included) fits in 100 columns and no
	 * line ends in a space. */
	for (k = 0; k < 3; k++) {
		const char *buf = k == 0 ? b.buf : k == 1 ? r.buf : m.buf;

		width = 0;
		for (line = p = buf; *p; p++)
			if (*p == '\n') {
				if (p - line > width)
					width = (int)(p - line);
				assert_false(p > line && p[-1] == ' ');
				line = p + 1;
			}
		assert_true(width <= 100);
	}
	/* Every kind of terrain appears, hexside features on the edges. */
	assert_non_null(strstr(m.buf, "~~~~~"));
	assert_non_null(strstr(m.buf, "====="));
	assert_non_null(strstr(m.buf, "xxxxx"));
	/* Red's hidden minefield: the moderator and Red see it, Blue not. */
	assert_non_null(strstr(m.buf, "mines"));
	assert_non_null(strstr(r.buf, "mines"));
	assert_null(strstr(b.buf, "mines"));
	/* r5 in the village J3 is hidden from Blue (cover, far away). */
	assert_non_null(strstr(m.buf, "  r5 "));
	assert_null(strstr(b.buf, "  r5 "));
	assert_non_null(strstr(b.buf, "  b5 "));
	sbuf_free(&b);
	sbuf_free(&r);
	sbuf_free(&m);
	game_free(&g);
}

/* side's report of the turn just resolved (caller frees). */
static char *
report_of(const struct game *g, const struct dice *d,
    const struct events *ev, int side)
{
	struct store_window w;
	struct hp_error err = { 0, "" };
	char *t;

	memset(&w, 0, sizeof w);
	w.spec.turn = 1;
	strlcpy_(w.spec.name, "orders", sizeof w.spec.name);
	t = report_render_text(g, &w, NULL, ev, d, side, &err);
	if (t == NULL)
		fprintf(stderr, "report: %s\n", err.msg);
	assert_non_null(t);
	return t;
}

/* Fog of war in the reports: Blue's shell lands on r1, hidden in a wood,
 * and r2, hidden in another, cannot fire. Blue's report (events, rolls
 * and map) names neither unit and does not list the hit roll; Red's says
 * all; no roll's purpose (the public dice log) names a unit or a hex. */
static void
t_fog_reports(void **state)
{
	struct board b;
	char *blue, *red, *mod;
	size_t k;

	(void)state;
	board(&b, NULL, "E5 wood, H6 wood", "b1 field-artillery E1 s, "
	    "b2 infantry A8 n, r1 infantry E5 n, r2 machine-gun H6 n");
	assert_false(pw_visible(&b.g, BLUE, game_unit_index(&b.g, "r1")));
	assert_false(pw_visible(&b.g, BLUE, game_unit_index(&b.g, "r2")));
	/* Landing 6-1 = 5 on E5, r1's hit roll 1, initiative 6 1, one
	 * activation die each. */
	PLAY(&b, "shoot b1 E5\n", "r2 fire H8\n", 6, 1, 6, 1, 1, 3);
	assert_int_equal(U(&b.g, "r1")->strength, 3);
	blue = report_of(&b.g, &b.d, &b.ev, BLUE);
	red = report_of(&b.g, &b.d, &b.ev, RED);
	mod = report_of(&b.g, &b.d, &b.ev, -1);
	/* Blue sees its own shot land, nothing of r1 or r2. */
	assert_non_null(strstr(blue, "b1 fires at E5"));
	assert_null(strstr(blue, "r1"));
	assert_null(strstr(blue, "r2"));
	assert_null(strstr(blue, "cannot fire"));
	assert_null(strstr(blue, "is hit"));
	assert_null(strstr(blue, "#2 d6"));
	/* Nor Red's SP lost (the hit it did not see) or its dice. */
	assert_null(strstr(blue, "red: 1 SP lost"));
	assert_null(strstr(blue, "red    SP"));
	assert_non_null(strstr(blue, "red    Exhaustion Point  3 (not "
	    "reached)"));
	assert_non_null(strstr(blue, "blue   SP  6 of  6"));
	assert_non_null(strstr(red, "red: 1 SP lost"));
	assert_non_null(strstr(red, "red    SP  6 of  7"));
	assert_non_null(strstr(blue, "#1 d6 blue artillery"));
	/* Red and the moderator see everything. */
	assert_non_null(strstr(red, "r1 (average) is hit by artillery fire "
	    "from b1: rolls 1."));
	assert_non_null(strstr(red, "r2 cannot fire at H8"));
	assert_non_null(strstr(red, "#2 d6 hit: the result for a unit hit"));
	assert_non_null(strstr(mod, "r1 loses 1 SP"));
	assert_non_null(strstr(mod, "r2 cannot fire"));
	/* The dice log is public: no unit and no hex in any purpose. */
	for (k = 0; k < b.d.nlog; k++) {
		assert_null(strstr(b.d.log[k].purpose, "r1"));
		assert_null(strstr(b.d.log[k].purpose, "b1"));
		assert_null(strstr(b.d.log[k].purpose, "E5"));
	}
	free(blue);
	free(red);
	free(mod);
	board_free(&b);
}

/* The events side reads in the board's last turn, one a line (caller
 * frees). */
static char *
side_events(const struct board *b, int side)
{
	struct sbuf t;
	size_t k;

	sbuf_init(&t);
	for (k = 0; k < b->ev.n; k++)
		if (b->ev.v[k].visible & (1u << side))
			sbuf_printf(&t, "%s\n", b->ev.v[k].text);
	return t.buf ? t.buf : strdup("");
}

/* Play one turn on two boards that differ only in what Blue cannot see
 * (terrain and units as board() takes them, hidden_a and hidden_b the Red
 * units placed on each) and assert that Blue's rendered reports are the
 * same bytes. */
static void
same_for_blue(const char *terrain, const char *units, const char *hidden_a,
    const char *hidden_b, bool blue_exhausted, const char *blue,
    const int *script, size_t n)
{
	struct board a, b;
	char *ra, *rb;

	board(&a, NULL, terrain, units);
	board_units(&a.g, hidden_a);
	board(&b, NULL, terrain, units);
	board_units(&b.g, hidden_b);
	if (blue_exhausted) {
		game_set_var(&a.g, "exh.0", 1);
		game_set_var(&b.g, "exh.0", 1);
	}
	board_turn(&a, blue, NULL, script, n);
	board_turn(&b, blue, NULL, script, n);
	ra = report_of(&a.g, &a.d, &a.ev, BLUE);
	rb = report_of(&b.g, &b.d, &b.ev, BLUE);
	if (strcmp(ra, rb) != 0)
		fprintf(stderr, "--- Blue, variant a:\n%s\n--- variant b:\n%s\n",
		    ra, rb);
	assert_string_equal(ra, rb);
	free(ra);
	free(rb);
	board_free(&a);
	board_free(&b);
}

/* Fog leaks (issue 13 item 8): a side's decisions and messages use only
 * what it sees. Each case plays the same turn twice, varying only what
 * Blue cannot see, and Blue's report must be the same bytes; the retreat
 * cases compare the hex chosen. */
static void
t_fog_leaks(void **state)
{
	struct board b;
	struct hex h1, h2, w;
	char *red, label[8];
	int i, m, d;

	(void)state;
	/* 1. A hidden unit in a trench on the line of fire: b1 fired at r1
	 * through it either way ("cannot fire: no direct line of sight"
	 * told Blue an unseen unit stood in E4). */
	same_for_blue("E4 trench, H8 trench", "b1 infantry E2 s, "
	    "r1 infantry E5 n", "r2 infantry E4 n", "r2 infantry H8 n", false,
	    "b1 fire E5\n", (const int[]){ 6, 5, 6, 1, 1 }, 5);
	/* 2. An exhausted side may not move towards the enemy it sees; a
	 * hidden unit ahead used to stop the move. */
	same_for_blue("C6 wood, J2 wood", "b1 infantry C2 s",
	    "r1 infantry C6 n", "r1 infantry J2 n", true, "b1 move C3 C4\n",
	    (const int[]){ 6, 5, 6, 1 }, 4);

	/* 3. A retreat goes where it would go without a minefield Blue does
	 * not know of, and walks into it (it used to avoid it, so a
	 * refused or odd retreat told of the minefield). */
	board(&b, NULL, NULL, "b1 infantry E4 s, r1 field-artillery E10 n");
	i = game_unit_index(&b.g, "b1");
	assert_true(pw_retreat_hex(&b.g, i, &h1));
	m = pw_add_marker(&b.g, PW_MINES, RED, h1);
	b.g.units[m].x[0] = 1 << RED;
	assert_false(pw_visible(&b.g, BLUE, m));
	assert_true(pw_retreat_hex(&b.g, i, &h2));
	assert_true(hex_eq(h1, h2));
	/* On target (6+2), b1's hit roll 5: it retreats, into the
	 * minefield: hit roll 1, it loses 1 SP. */
	PLAY(&b, NULL, "shoot r1 E4\n", 6, 5, 1, 6, 5, 1, 1);
	board_has(&b, "b1 retreats into the minefield in");
	assert_true(hex_eq(U(&b.g, "b1")->pos, h1));
	assert_int_equal(U(&b.g, "b1")->strength, 3);
	assert_true(pw_visible(&b.g, BLUE, m));
	board_free(&b);

	/* 4. Nor does a hidden enemy next to the best hex change the
	 * choice (the rule's "not adjacent to an enemy Unit" is the enemy
	 * the side sees). */
	board(&b, NULL, NULL, "b1 infantry E4 s, r1 field-artillery E10 n");
	i = game_unit_index(&b.g, "b1");
	assert_true(pw_retreat_hex(&b.g, i, &h1));
	for (d = 0; d < 6; d++) {
		w = hex_neighbour(h1, d);
		if (game_on_map(&b.g, w) && hex_distance(w,
		    fx_hex(&b.g, "E4")) == 2)
			break;
	}
	assert_true(d < 6);
	hex_label(&b.g.layout, w, label, sizeof label);
	set_terrain(&b.g, label, "wood", 0);
	m = add(&b.g, "r2", PW_INF, label, N, PW_AVERAGE);
	assert_false(pw_visible(&b.g, BLUE, m));
	assert_true(pw_retreat_hex(&b.g, i, &h2));
	assert_true(hex_eq(h1, h2));
	board_free(&b);

	/* 5. b1, driven back by its own close combat into a wood out of
	 * Red's sight, does not advance: Red, told it fell back out of
	 * sight, reads no line naming the hex it went to (an advance
	 * "E3 -> E5" did). */
	board(&b, NULL, "E3 wood", "b1 infantry E4 s, r1 infantry E5 n");
	PLAY(&b, "b1 cc E5\n", "retreat always\n", 6, 5, 6, 1, 1, 5, 5, 1);
	assert_string_equal(at(&b.g, "b1"), "E3");
	red = side_events(&b, RED);
	assert_non_null(strstr(red, "b1 falls back out of sight."));
	assert_null(strstr(red, "E3"));
	free(red);
	board_free(&b);
}

static void
t_opponent_orders_parse(void **state)
{
	struct game g;
	struct window_spec w;
	struct order_errors e;
	struct sbuf b;
	int s;

	(void)state;
	new_game(&g, NULL, NULL);
	assert_true(g.rules->next_window(&g, &w));
	assert_int_equal(w.sides, 3u);
	for (s = 0; s < 2; s++) {
		sbuf_init(&b);
		g.rules->opponent(&g, &w, s, &b);
		assert_non_null(strstr(b.buf, "retreat cover"));
		if (parse(&g, s, b.buf, &e, NULL) != 0)
			fprintf(stderr, "%s", orders_errors_text(&e));
		assert_int_equal(e.n, 0);
		orders_errors_free(&e);
		sbuf_free(&b);
	}
	/* Blue's guns shoot in turn 1. */
	sbuf_init(&b);
	g.rules->opponent(&g, &w, BLUE, &b);
	assert_non_null(strstr(b.buf, "shoot "));
	sbuf_free(&b);
	game_free(&g);
}

/* The built-in opponent's policy: Red counterattacks a weak unit it can
 * reach (out of its arc, so it cannot just fire); Blue's spotter moves up
 * only while it sees no enemy, its commander follows the main body, and its
 * gun prefers a target in the open to a nearer one in cover. */
static void
t_opponent_policy(void **state)
{
	struct game g;
	struct window_spec w;
	struct sbuf b;
	char why[160];
	int k;

	(void)state;
	empty_game(&g, NULL);
	set_terrain(&g, "H4", "wood", 0);
	set_terrain(&g, "E3", "bua", 0);
	add(&g, "r1", PW_INF, "H4", N, PW_AVERAGE);
	add(&g, "r2", PW_INF, "E3", SW, PW_AVERAGE);
	add(&g, "r3", PW_INF, "F5", N, PW_AVERAGE);
	add(&g, "b1", PW_INF, "H6", N, PW_AVERAGE);
	U(&g, "b1")->strength = 1;
	add(&g, "b2", PW_INF, "B7", NE, PW_AVERAGE);
	add(&g, "b3", PW_INF, "C8", NE, PW_AVERAGE);
	add(&g, "b4", PW_MG, "B8", NE, PW_AVERAGE);
	add(&g, "b5", PW_CMD, "A1", SE, PW_AVERAGE);
	add(&g, "b6", PW_SPOTTER, "A2", SE, PW_AVERAGE);
	add(&g, "b7", PW_ART_FIELD, "A5", SE, PW_AVERAGE);
	/* r2 fired: Blue sees it in the village, in cover. */
	U(&g, "r2")->flags |= PW_F_FIRED;
	assert_true(pw_visible(&g, BLUE, game_unit_index(&g, "r2")));
	assert_true(pw_art_can_fire(&g, game_unit_index(&g, "b7"),
	    fx_hex(&g, "E3"), why, sizeof why));
	assert_true(pw_art_can_fire(&g, game_unit_index(&g, "b7"),
	    fx_hex(&g, "F5"), why, sizeof why));
	assert_true(g.rules->next_window(&g, &w));
	sbuf_init(&b);
	g.rules->opponent(&g, &w, RED, &b);
	assert_non_null(strstr(b.buf, "r1 move H5 cc H6\n"));
	sbuf_free(&b);
	/* Not a tank, not a stronger unit. */
	U(&g, "b1")->strength = 4;
	sbuf_init(&b);
	g.rules->opponent(&g, &w, RED, &b);
	assert_null(strstr(b.buf, "r1 move"));
	sbuf_free(&b);
	sbuf_init(&b);
	g.rules->opponent(&g, &w, BLUE, &b);
	assert_non_null(strstr(b.buf, "shoot b7 F5\n"));
	assert_null(strstr(b.buf, "b6 move "));
	assert_non_null(strstr(b.buf, "b5 move B1 B2 B3 "));
	sbuf_free(&b);
	/* r3 in a wood too: the spotter sees nobody and moves up. */
	set_terrain(&g, "F5", "wood", 0);
	sbuf_init(&b);
	g.rules->opponent(&g, &w, BLUE, &b);
	assert_non_null(strstr(b.buf, "b6 move "));
	sbuf_free(&b);
	game_free(&g);

	/* Objectives: Blue's infantry that would fire at r1 in the open
	 * without moving makes instead for the objective Red holds, firing
	 * at r1 after its step; once Blue holds it, it fires again. */
	empty_game(&g, NULL);
	add(&g, "b1", PW_INF, "E6", N, PW_AVERAGE);
	add(&g, "r1", PW_INF, "E3", S, PW_AVERAGE);
	assert_true(g.rules->next_window(&g, &w));
	sbuf_init(&b);
	g.rules->opponent(&g, &w, BLUE, &b);
	assert_non_null(strstr(b.buf, "b1 fire E3\n"));
	sbuf_free(&b);
	k = pw_add_marker(&g, PW_OBJECTIVE, RED, fx_hex(&g, "H4"));
	game_set_var(&g, "obj.need", 1);
	sbuf_init(&b);
	g.rules->opponent(&g, &w, BLUE, &b);
	assert_non_null(strstr(b.buf, "b1 move F5 face n fire E3\n"));
	assert_null(strstr(b.buf, "b1 fire"));
	sbuf_free(&b);
	/* Red's infantry keeps its ground: the policy is Blue's. */
	sbuf_init(&b);
	g.rules->opponent(&g, &w, RED, &b);
	assert_null(strstr(b.buf, "r1 move"));
	sbuf_free(&b);
	g.units[k].side = BLUE;
	sbuf_init(&b);
	g.rules->opponent(&g, &w, BLUE, &b);
	assert_non_null(strstr(b.buf, "b1 fire E3\n"));
	sbuf_free(&b);
	game_free(&g);
}

/* Units next to an enemy they see close in if they may advance (issue 13
 * item 2: an operator-precedence slip kept the opponent from ever finding
 * an adjacent enemy, so such units only fired). A combat unit is chosen
 * over a commander next to it; a unit that may not advance fires. */
static void
t_opponent_adjacent(void **state)
{
	struct game g;
	struct window_spec w;
	struct sbuf b;

	(void)state;
	empty_game(&g, NULL);
	add(&g, "b1", PW_CMD, "E4", S, PW_AVERAGE);
	add(&g, "b2", PW_INF, "F5", N, PW_AVERAGE);
	add(&g, "b3", PW_MG, "H5", S, PW_AVERAGE);
	add(&g, "r1", PW_INF, "E5", N, PW_AVERAGE);
	add(&g, "r2", PW_MG, "H6", N, PW_AVERAGE);
	assert_true(g.rules->next_window(&g, &w));
	sbuf_init(&b);
	g.rules->opponent(&g, &w, RED, &b);
	assert_non_null(strstr(b.buf, "r1 cc F5\n"));
	assert_null(strstr(b.buf, "r1 fire"));
	assert_non_null(strstr(b.buf, "r2 fire H5\n"));
	sbuf_free(&b);
	sbuf_init(&b);
	g.rules->opponent(&g, &w, BLUE, &b);
	assert_non_null(strstr(b.buf, "b2 cc E5\n"));
	sbuf_free(&b);
	/* An exhausted side makes no close combat: it fires. */
	game_set_var(&g, "exh.1", 1);
	sbuf_init(&b);
	g.rules->opponent(&g, &w, RED, &b);
	assert_null(strstr(b.buf, "r1 cc"));
	assert_non_null(strstr(b.buf, "r1 fire "));
	sbuf_free(&b);
	game_free(&g);
}

static void
t_whole_battle(void **state)
{
	const struct ruleset *rs = ruleset_find("portable-modern");
	const unsigned char master[] = "pw-battle";
	struct hp_error err = { 0, "" };
	struct sim_result res;
	struct game g, g2;
	long w = 0, r = 0, w2 = 0, r2 = 0;
	int out, out2;

	(void)state;
	game_init(&g);
	assert_int_equal(sim_game(rs, "", 0, master, sizeof master - 1, &g,
	    &out, &w, &r, &err), HP_OK);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_true(w >= 2 && r > 100);
	/* The same seed plays the same battle. */
	game_init(&g2);
	assert_int_equal(sim_game(rs, "", 0, master, sizeof master - 1, &g2,
	    &out2, &w2, &r2, &err), HP_OK);
	assert_int_equal(out, out2);
	assert_int_equal(w, w2);
	assert_int_equal(r, r2);
	assert_string_equal(g.result, g2.result);
	game_free(&g);
	game_free(&g2);
	/* With every optional rule, battles end too. */
	assert_int_equal(sim_run(rs, "cyclists,tank-riders,gas", 4, master,
	    sizeof master - 1, &res, &err), HP_OK);
	assert_int_equal(res.games, 4);
}

/* The scenario's victory (objectives): an objective passes to a side
 * whose units are alone in its hex at the end of a turn and stays with it
 * when they leave; when the battle ends Blue wins if it holds obj.need of
 * them, whatever the SP lost, else Red wins. Blue takes E5 and holds it at
 * the turn limit: Blue wins although it lost the larger share of SP. */
static void
t_objective_blue_holds(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	/* Initiative 6 1 (Blue first), one activation die each. */
	const int dice[] = { 6, 1, 6, 6 };
	int o;

	(void)state;
	empty_game(&g, NULL);
	game_set_var(&g, "turns", 2);
	game_set_var(&g, "obj.need", 1);
	o = pw_add_marker(&g, PW_OBJECTIVE, RED, fx_hex(&g, "E5"));
	add(&g, "b1", PW_INF, "E3", S, PW_AVERAGE);
	add(&g, "r1", PW_INF, "J8", N, PW_AVERAGE);
	U(&g, "b1")->strength = 2;
	assert_int_equal(pw_objectives_total(&g), 1);
	assert_int_equal(pw_objectives(&g, RED), 1);
	turn(&g, "b1 move E4 E5\n", NULL, dice, 4, &d, &ev);
	has(&d, &ev, "blue takes the objective E5 (1 of 1 held)");
	assert_int_equal(g.units[o].side, BLUE);
	assert_int_equal(pw_objectives(&g, BLUE), 1);
	assert_int_equal(g.status, GAME_ACTIVE);
	dice_free(&d);
	events_free(&ev);
	turn(&g, NULL, NULL, dice, 4, &d, &ev);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_non_null(strstr(g.result, "blue wins: the turn limit was "
	    "reached; blue holds 1 of 1 objectives (needs 1)"));
	has(&d, &ev, "blue wins");
	done(&g, &d, &ev);
}

/* Blue takes E5, leaves it (it stays Blue's while empty), Red walks in
 * and holds it at the turn limit: Red wins although it lost a larger
 * share of its SP (1 of 8 against none). */
static void
t_objective_red_retakes(void **state)
{
	struct game g;
	struct dice d;
	struct events ev;
	const int dice[] = { 6, 1, 6, 6 };
	int o;

	(void)state;
	empty_game(&g, NULL);
	game_set_var(&g, "turns", 4);
	game_set_var(&g, "obj.need", 1);
	o = pw_add_marker(&g, PW_OBJECTIVE, RED, fx_hex(&g, "E5"));
	add(&g, "b1", PW_INF, "E3", S, PW_AVERAGE);
	add(&g, "r1", PW_INF, "E8", N, PW_AVERAGE);
	add(&g, "r2", PW_INF, "J1", S, PW_AVERAGE);
	U(&g, "r1")->strength = 3;
	turn(&g, "b1 move E4 E5\n", NULL, dice, 4, &d, &ev);
	assert_int_equal(g.units[o].side, BLUE);
	dice_free(&d);
	events_free(&ev);
	turn(&g, "b1 move E4 E3\n", NULL, dice, 4, &d, &ev);
	assert_string_equal(at(&g, "b1"), "E3");
	assert_int_equal(g.units[o].side, BLUE);
	assert_false(fx_event_has(&ev, "takes the objective"));
	dice_free(&d);
	events_free(&ev);
	turn(&g, NULL, "r1 move E7 E6\n", dice, 4, &d, &ev);
	dice_free(&d);
	events_free(&ev);
	assert_int_equal(g.status, GAME_ACTIVE);
	assert_int_equal(g.units[o].side, BLUE);
	turn(&g, NULL, "r1 move E5\n", dice, 4, &d, &ev);
	has(&d, &ev, "red takes the objective E5 (1 of 1 held)");
	assert_int_equal(g.units[o].side, RED);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_non_null(strstr(g.result, "red wins: the turn limit was "
	    "reached; blue holds 0 of 1 objectives (needs 1)"));
	done(&g, &d, &ev);
}

/* The shipped scenario's objectives: the three village hexes, Red's at
 * the start, one of them needed by Blue, Red's spotter outside them; the
 * status and the map show them. */
static void
t_objective_scenario(void **state)
{
	struct game g;
	struct hp_error err = { 0, "" };
	struct sbuf b;

	(void)state;
	game_init(&g);
	g.rules = ruleset_find("portable-modern");
	strlcpy_(g.name, "test", sizeof g.name);
	assert_int_equal(ruleset_setup(&g, NULL, NULL, NULL, NULL, &err), HP_OK);
	assert_int_equal(pw_objectives_total(&g), 3);
	assert_int_equal(pw_objectives(&g, RED), 3);
	assert_int_equal(game_var(&g, "obj.need", 0), 1);
	assert_true(pw_objective_at(&g, fx_hex(&g, "J2")));
	assert_true(pw_objective_at(&g, fx_hex(&g, "J3")));
	assert_true(pw_objective_at(&g, fx_hex(&g, "K3")));
	assert_false(pw_objective_at(&g, fx_hex(&g, "K4")));
	/* The balance of issue 13: the spotter with the commander, r5
	 * poor, Blue's b3 b4 b5 elite. */
	assert_string_equal(at(&g, "r2"), "K4");
	assert_string_equal(at(&g, "r1"), "K4");
	assert_string_equal(at(&g, "r5"), "J3");
	assert_int_equal(U(&g, "r5")->status, PW_POOR);
	assert_int_equal(U(&g, "b3")->status, PW_ELITE);
	assert_int_equal(U(&g, "b4")->status, PW_ELITE);
	assert_int_equal(U(&g, "b5")->status, PW_ELITE);
	sbuf_init(&b);
	g.rules->status(&g, BLUE, &b);
	assert_non_null(strstr(b.buf, "Objectives: J2 (red) J3 (red) K3 "
	    "(red)."));
	assert_non_null(strstr(b.buf, "holds at least 1 of the 3 "
	    "objectives, else red wins."));
	sbuf_free(&b);
	sbuf_init(&b);
	g.rules->render_map(&g, BLUE, &b);
	assert_non_null(strstr(b.buf, "obj:R"));
	sbuf_free(&b);
	game_free(&g);
}

/* --- the opponent's parsed orders ---------------------------------------- */

/* a (pw_opponent_parsed's) and b (pw_parse's) are the same orders, field
 * by field: what the resolution reads (not the clauses past nclause,
 * which pw_parse leaves unwritten); kinds[] counts the clause kinds seen, kinds[PW_CL_HOLD + 1]
 * the shots and kinds[PW_CL_HOLD + 2] the gas shots. */
static void
same_orders(const struct pw_orders *a, const struct pw_orders *b,
    long kinds[PW_CL_HOLD + 3])
{
	int i, j, k;

	assert_int_equal(a->side, b->side);
	assert_int_equal(a->retreat, b->retreat);
	assert_int_equal(a->nunit_retreat, b->nunit_retreat);
	for (i = 0; i < a->nunit_retreat; i++)
		assert_int_equal(a->unit_retreat[i], b->unit_retreat[i]);
	assert_int_equal(a->nshot, b->nshot);
	for (i = 0; i < a->nshot; i++) {
		assert_int_equal(a->shot[i].unit, b->shot[i].unit);
		assert_int_equal(a->shot[i].line, b->shot[i].line);
		assert_int_equal(a->shot[i].target.q, b->shot[i].target.q);
		assert_int_equal(a->shot[i].target.r, b->shot[i].target.r);
		assert_int_equal(a->shot[i].gas, b->shot[i].gas);
		kinds[PW_CL_HOLD + 1]++;
		if (a->shot[i].gas)
			kinds[PW_CL_HOLD + 2]++;
	}
	assert_int_equal(a->nact, b->nact);
	for (i = 0; i < a->nact; i++) {
		const struct pw_act *x = &a->act[i], *y = &b->act[i];

		assert_int_equal(x->unit, y->unit);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->nclause, y->nclause);
		for (j = 0; j < x->nclause; j++) {
			const struct pw_clause *c = &x->c[j], *d = &y->c[j];

			assert_int_equal(c->kind, d->kind);
			assert_int_equal(c->n, d->n);
			assert_int_equal(c->arg, d->arg);
			for (k = 0; k < PW_PATH_MAX; k++) {
				assert_int_equal(c->h[k].q, d->h[k].q);
				assert_int_equal(c->h[k].r, d->h[k].r);
			}
			/* No padding in a clause: the bytes too (the
			 * hexes past n are cleared with it). */
			assert_memory_equal(c, d, sizeof *c);
			kinds[c->kind]++;
		}
	}
	/* The lines run in the file's order: the shots, then the list. */
	for (i = 1; i < a->nshot; i++)
		assert_true(a->shot[i].line > a->shot[i - 1].line);
	for (i = 1; i < a->nact; i++)
		assert_true(a->act[i].line > a->act[i - 1].line);
	if (a->nshot > 0 && a->nact > 0)
		assert_true(a->act[0].line > a->shot[a->nshot - 1].line);
}

/* The parsed orders have only the fields same_orders compares, one after
 * the other (a field added to pw_orders, pw_shot, pw_act or pw_clause
 * fails here: pw_opponent_parsed must fill it as pw_parse does and
 * same_orders compare it). */
static void
orders_fields_known(void)
{
	size_t o;

	assert_int_equal(offsetof(struct pw_clause, kind), 0);
	assert_int_equal(offsetof(struct pw_clause, n), sizeof(int));
	assert_int_equal(offsetof(struct pw_clause, h), 2 * sizeof(int));
	assert_int_equal(offsetof(struct pw_clause, arg), 2 * sizeof(int) +
	    PW_PATH_MAX * sizeof(struct hex));
	assert_int_equal(sizeof(struct pw_clause), 3 * sizeof(int) +
	    PW_PATH_MAX * sizeof(struct hex));
	assert_int_equal(sizeof(struct hex), 2 * sizeof(int));
	assert_int_equal(offsetof(struct pw_act, unit), 0);
	assert_int_equal(offsetof(struct pw_act, line), sizeof(int));
	assert_int_equal(offsetof(struct pw_act, nclause), 2 * sizeof(int));
	assert_int_equal(offsetof(struct pw_act, c), 3 * sizeof(int));
	assert_int_equal(sizeof(struct pw_act), 3 * sizeof(int) +
	    PW_CLAUSES_MAX * sizeof(struct pw_clause));
	assert_int_equal(offsetof(struct pw_shot, unit), 0);
	assert_int_equal(offsetof(struct pw_shot, line), sizeof(int));
	assert_int_equal(offsetof(struct pw_shot, target), 2 * sizeof(int));
	assert_int_equal(offsetof(struct pw_shot, gas), 4 * sizeof(int));
	assert_true(sizeof(struct pw_shot) <= 5 * sizeof(int));
	assert_int_equal(offsetof(struct pw_orders, side), 0);
	assert_int_equal(offsetof(struct pw_orders, nshot), sizeof(int));
	assert_int_equal(offsetof(struct pw_orders, shot), 2 * sizeof(int));
	o = 2 * sizeof(int) + PW_SHOTS_MAX * sizeof(struct pw_shot);
	assert_int_equal(offsetof(struct pw_orders, nact), o);
	assert_int_equal(offsetof(struct pw_orders, act), o + sizeof(int));
	o += sizeof(int) + PW_ACTS_MAX * sizeof(struct pw_act);
	assert_int_equal(offsetof(struct pw_orders, retreat), o);
	o += sizeof(enum pw_retreat);
	assert_int_equal(offsetof(struct pw_orders, unit_retreat), o);
	o += GAME_MAX_UNITS;
	o = (o + sizeof(int) - 1) / sizeof(int) * sizeof(int);
	assert_int_equal(offsetof(struct pw_orders, nunit_retreat), o);
	assert_int_equal(sizeof(struct pw_orders), o + sizeof(int));
}

/* The opponent's parsed orders (opponent_parsed, which simulate resolves)
 * are what pw_parse makes of its order file, field by field, and its text
 * is pw_opponent's, byte for byte: in every window of whole games (both
 * sides), with each option and all of them, each game played on by the
 * parse of the text (so a mismatch cannot hide in a game the hook
 * steered). Every clause the opponent writes is seen. */
static void
t_opponent_parsed(void **state)
{
	static const char *const opts[] = { "", "cyclists", "tank-riders",
		"gas", "turns=8", "cyclists,tank-riders,gas" };
	const struct ruleset *pw = ruleset_find("portable-modern");
	struct hp_error err = { 0, "" };
	long kinds[PW_CL_HOLD + 3] = { 0 }, windows = 0;
	const int games = 200;  /* a game, option */
	int o, i, s, guard;

	(void)state;
	assert_non_null(pw);
	assert_true(pw->opponent_parsed == pw_opponent_parsed);
	orders_fields_known();
	for (o = 0; o < (int)(sizeof opts / sizeof opts[0]); o++)
		for (i = 0; i < games; i++) {
			struct window_spec w, next;
			struct game g;
			bool more;

			game_init(&g);
			g.rules = pw;
			snprintf(g.name, sizeof g.name, "pp-%d-%d", o, i);
			strlcpy_(g.options, opts[o], sizeof g.options);
			assert_int_equal(ruleset_setup(&g, NULL, NULL, NULL,
			    NULL, &err), HP_OK);
			for (guard = 0; guard < 100 && g.status !=
			    GAME_FINISHED && pw->next_window(&g, &w);
			    guard++) {
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
					mine = pw->opponent_parsed(&g, &w, s, &b);
					raw[s] = window_opponent_orders(&g, &w, s);
					assert_string_equal(b.buf, raw[s]);
					assert_int_equal(window_parse_stored(&g,
					    &w, s, raw[s], &parsed, NULL, &err),
					    HP_OK);
					assert_non_null(mine);
					assert_non_null(parsed);
					same_orders(mine, parsed, kinds);
					pw->free_orders(mine);
					pw->free_orders(parsed);
					sbuf_free(&b);
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
				    (const char *const *)raw, NULL, NULL, &stop,
				    &d, &ev, &err), HP_OK);
				assert_int_equal(stop.step, -1);
				assert_int_equal(window_advance(&g, &stop, &next,
				    &more, &err), HP_OK);
				dice_free(&d);
				events_free(&ev);
				for (s = 0; s < GAME_MAX_SIDES; s++)
					free(raw[s]);
				windows++;
			}
			assert_int_equal(g.status, GAME_FINISHED);
			game_free(&g);
		}
	fprintf(stderr, "# %ld windows; clauses move %ld face %ld fire %ld "
	    "cc %ld unload %ld lay %ld clear %ld; shots %ld, gas %ld\n",
	    windows, kinds[PW_CL_MOVE], kinds[PW_CL_FACE], kinds[PW_CL_FIRE],
	    kinds[PW_CL_CC], kinds[PW_CL_UNLOAD], kinds[PW_CL_LAY],
	    kinds[PW_CL_CLEAR], kinds[PW_CL_HOLD + 1], kinds[PW_CL_HOLD + 2]);
	assert_true(windows > 6L * games * 5);
	assert_true(kinds[PW_CL_MOVE] > 0 && kinds[PW_CL_FACE] > 0 &&
	    kinds[PW_CL_FIRE] > 0 && kinds[PW_CL_CC] > 0 &&
	    kinds[PW_CL_UNLOAD] > 0 && kinds[PW_CL_LAY] > 0 &&
	    kinds[PW_CL_CLEAR] > 0 && kinds[PW_CL_HOLD + 1] > 0 &&
	    kinds[PW_CL_HOLD + 2] > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_table),
		cmocka_unit_test(t_geometry),
		cmocka_unit_test(t_activation_dice),
		cmocka_unit_test(t_activation_list),
		cmocka_unit_test(t_initiative_tie),
		cmocka_unit_test(t_artillery_behind),
		cmocka_unit_test(t_artillery_front_modifiers),
		cmocka_unit_test(t_artillery_rules),
		cmocka_unit_test(t_artillery_simultaneous),
		cmocka_unit_test(t_fire_mg_tank),
		cmocka_unit_test(t_fire_modifiers_and_at),
		cmocka_unit_test(t_fire_restrictions),
		cmocka_unit_test(t_fire_woods),
		cmocka_unit_test(t_move_adjacent_stop),
		cmocka_unit_test(t_move_stacking_and_enemy),
		cmocka_unit_test(t_move_firing_costs_a_hex),
		cmocka_unit_test(t_move_road_woods_ford),
		cmocka_unit_test(t_withdrawal),
		cmocka_unit_test(t_cc_flank_advance_fight_on),
		cmocka_unit_test(t_cc_modifiers),
		cmocka_unit_test(t_cc_no_advance_after_retreat),
		cmocka_unit_test(t_advance_into_mines_and_gas),
		cmocka_unit_test(t_hits_by_quality),
		cmocka_unit_test(t_retreat_blocked),
		cmocka_unit_test(t_transport_hit_with_passengers),
		cmocka_unit_test(t_transport_load_unload),
		cmocka_unit_test(t_tank_riders),
		cmocka_unit_test(t_minefield_and_wire),
		cmocka_unit_test(t_engineers_and_wire_work),
		cmocka_unit_test(t_trench),
		cmocka_unit_test(t_gas),
		cmocka_unit_test(t_cyclists),
		cmocka_unit_test(t_exhaustion),
		cmocka_unit_test(t_parse_errors),
		cmocka_unit_test(t_smaller_ones),
		cmocka_unit_test(t_parse_never_legal),
		cmocka_unit_test(t_artillery_ineffective_spotter_spa),
		cmocka_unit_test(t_transport_tow),
		cmocka_unit_test(t_ford_no_advance_stacking_exempt),
		cmocka_unit_test(t_map_and_fog),
		cmocka_unit_test(t_fog_reports),
		cmocka_unit_test(t_fog_leaks),
		cmocka_unit_test(t_opponent_orders_parse),
		cmocka_unit_test(t_opponent_policy),
		cmocka_unit_test(t_opponent_adjacent),
		cmocka_unit_test(t_whole_battle),
		cmocka_unit_test(t_objective_blue_holds),
		cmocka_unit_test(t_objective_red_retakes),
		cmocka_unit_test(t_objective_scenario),
		cmocka_unit_test(t_opponent_parsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
