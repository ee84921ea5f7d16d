/* Unit tests for game (src/game.c): units and hexes growing on demand past
 * their first allocation up to the limits, game_copy as a deep copy,
 * lookups, vars and campaign options. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "game.h"

/* Unit i as test_units adds it. */
static void
add_unit(struct game *g, int i)
{
	struct game_unit *u;
	char id[16], name[32];

	snprintf(id, sizeof id, "u%d", i);
	snprintf(name, sizeof name, "Unit %d", i);
	u = game_add_unit(g, id, i % 2 ? "section" : "commander", name, i % 3);
	/* Fields set through the returned pointer, before the next add. */
	u->strength = i * 10;
	u->pos.q = i;
	u->pos.r = -i;
	u->x[GAME_UNIT_X - 1] = i + 1;
}

/* The first n units of g are those add_unit(0 .. n-1) made, plus delta on
 * their strength. */
static void
check_units(const struct game *g, int n, int delta)
{
	char id[16], name[32];
	int i;

	assert_int_equal(g->nunits, n);
	for (i = 0; i < n; i++) {
		const struct game_unit *u = &g->units[i];

		snprintf(id, sizeof id, "u%d", i);
		snprintf(name, sizeof name, "Unit %d", i);
		assert_string_equal(u->id, id);
		assert_string_equal(u->kind, i % 2 ? "section" : "commander");
		assert_string_equal(u->name, name);
		assert_int_equal(u->side, i % 3);
		assert_false(u->placed);
		assert_int_equal(u->facing, -1);
		assert_int_equal(u->attached, -1);
		assert_int_equal(u->strength, i * 10 + delta);
		assert_int_equal(u->pos.q, i);
		assert_int_equal(u->pos.r, -i);
		assert_int_equal(u->x[GAME_UNIT_X - 1], i + 1);
		assert_int_equal(u->x[0], 0);
	}
}

static struct hex
H(int q, int r)
{
	struct hex h = { q, r };

	return h;
}

/* Hex i as the tests add it: a 64-column strip. */
static void
add_hex(struct game *g, int i)
{
	struct game_hex *gh;

	gh = game_add_hex(g, H(i % 256, i / 256), i % 5 ? "open" : "wood");
	gh->elevation = i;
	gh->edge[5] = -i;
}

static void
check_hexes(const struct game *g, int n)
{
	int i;

	assert_int_equal(g->nhex, n);
	for (i = 0; i < n; i++) {
		const struct game_hex *gh = &g->hexes[i];

		assert_int_equal(gh->h.q, i % 256);
		assert_int_equal(gh->h.r, i / 256);
		assert_string_equal(gh->terrain, i % 5 ? "open" : "wood");
		assert_int_equal(gh->elevation, i);
		assert_int_equal(gh->edge[0], 0);
		assert_int_equal(gh->edge[5], -i);
	}
}

static void
test_init(void **state)
{
	struct game g;

	(void)state;
	game_init(&g);
	assert_int_equal(g.nunits, 0);
	assert_int_equal(g.nhex, 0);
	assert_int_equal(g.nsides, 0);
	assert_int_equal(g.nvars, 0);
	assert_int_equal(g.turn, 1);
	assert_int_equal(g.window, 1);
	assert_int_equal(g.status, GAME_ACTIVE);
	assert_non_null(g.units);
	assert_non_null(g.hexes);
	assert_null(game_unit(&g, "1"));
	assert_int_equal(game_unit_index(&g, "1"), -1);
	assert_null(game_hex_at(&g, H(0, 0)));
	assert_false(game_on_map(&g, H(0, 0)));
	game_free(&g);
	/* game_free leaves an empty game that can be freed again. */
	assert_null(g.units);
	assert_null(g.hexes);
	game_free(&g);
}

/* Units keep their fields and stay found through every growth, at the
 * doubling boundaries and up to GAME_MAX_UNITS. */
static void
test_units(void **state)
{
	struct game g;
	char id[16];
	int i;

	(void)state;
	game_init(&g);
	for (i = 0; i < GAME_MAX_UNITS; i++) {
		add_unit(&g, i);
		if (i == 15 || i == 16 || i == 17 || i == 33 || i == 200)
			check_units(&g, i + 1, 0);
	}
	check_units(&g, GAME_MAX_UNITS, 0);
	for (i = 0; i < GAME_MAX_UNITS; i += 7) {
		snprintf(id, sizeof id, "U%d", i);  /* case-insensitive */
		assert_int_equal(game_unit_index(&g, id), i);
		assert_ptr_equal(game_unit(&g, id), &g.units[i]);
	}
	snprintf(id, sizeof id, "u%d", GAME_MAX_UNITS);
	assert_null(game_unit(&g, id));
	assert_null(game_unit(&g, "u"));
	assert_null(game_unit(&g, ""));
	assert_int_equal(game_unit_index(&g, "nope"), -1);
	/* A pointer from game_unit writes into the game. */
	game_unit(&g, "u300")->strength += 1;
	assert_int_equal(g.units[300].strength, 3001);
	game_free(&g);
}

/* Fewer units by hand (as the store tests do), then more again. */
static void
test_units_shrink(void **state)
{
	struct game g;
	int i;

	(void)state;
	game_init(&g);
	for (i = 0; i < 40; i++)
		add_unit(&g, i);
	g.nunits = 10;
	for (i = 10; i < 100; i++)
		add_unit(&g, i);
	check_units(&g, 100, 0);
	g.nunits = 16;
	add_unit(&g, 16);
	check_units(&g, 17, 0);
	g.nunits = 0;
	for (i = 0; i < 40; i++)
		add_unit(&g, i);
	check_units(&g, 40, 0);
	game_free(&g);
}

/* A zeroed game (not game_init'ed) takes units and hexes too. */
static void
test_zeroed(void **state)
{
	struct game g;
	int i;

	(void)state;
	memset(&g, 0, sizeof g);
	for (i = 0; i < 20; i++) {
		add_unit(&g, i);
		add_hex(&g, i);
	}
	check_units(&g, 20, 0);
	check_hexes(&g, 20);
	game_free(&g);
}

static void
test_hexes(void **state)
{
	struct game g;
	const struct game_hex *c;
	int i;

	(void)state;
	game_init(&g);
	for (i = 0; i < GAME_MAX_HEXES; i++) {
		add_hex(&g, i);
		if (i == 15 || i == 16 || i == 17 || i == 1000)
			check_hexes(&g, i + 1);
	}
	check_hexes(&g, GAME_MAX_HEXES);
	for (i = 0; i < GAME_MAX_HEXES; i += 97) {
		assert_ptr_equal(game_hex_at(&g, H(i % 256, i / 256)),
		    &g.hexes[i]);
		c = game_hex_at_c(&g, H(i % 256, i / 256));
		assert_ptr_equal(c, &g.hexes[i]);
		assert_true(game_on_map(&g, H(i % 256, i / 256)));
	}
	assert_null(game_hex_at(&g, H(256, 0)));
	assert_null(game_hex_at(&g, H(0, 256)));
	assert_null(game_hex_at(&g, H(-1, 0)));
	assert_false(game_on_map(&g, H(0, -1)));
	game_free(&g);
}

/* Adding past GAME_MAX_UNITS, GAME_MAX_HEXES or GAME_MAX_VARS does not
 * abort (a campaign's data must never bring the daemon down): the count
 * stays at the limit, what the caller writes lands in a sink, and
 * game_error names the limit so the engine stops that campaign alone. */
static void
beyond_limit(int what)
{
	struct game g;
	struct game_unit *u;
	struct game_hex *h;
	char key[32];
	int i, max = what == 0 ? GAME_MAX_UNITS : what == 1 ? GAME_MAX_HEXES :
	    GAME_MAX_VARS;

	game_init(&g);
	strlcpy_(g.name, "big", sizeof g.name);
	for (i = 0; i < max; i++)
		if (what == 0)
			add_unit(&g, i);
		else if (what == 1)
			add_hex(&g, i);
		else {
			snprintf(key, sizeof key, "k%d", i);
			game_set_var(&g, key, i);
		}
	assert_null(game_error(&g));
	if (what == 0) {
		u = game_add_unit(&g, "extra", "section", "Extra", 0);
		assert_non_null(u);
		u->strength = 99;   /* harmless */
		assert_int_equal(g.nunits, GAME_MAX_UNITS);
		assert_string_equal(game_error(&g), "campaign big has more than "
		    "16384 units (GAME_MAX_UNITS in include/game.h)");
	} else if (what == 1) {
		h = game_add_hex(&g, H(9999, 9999), "open");
		assert_non_null(h);
		h->elevation = 3;
		assert_int_equal(g.nhex, GAME_MAX_HEXES);
		assert_null(game_hex_at(&g, H(9999, 9999)));
		assert_string_equal(game_error(&g), "campaign big has more than "
		    "65536 hexes (GAME_MAX_HEXES in include/game.h)");
	} else {
		game_set_var(&g, "extra", 1);
		assert_int_equal(g.nvars, GAME_MAX_VARS);
		assert_int_equal(game_var(&g, "extra", -1), -1);
		/* A var that exists can still be set. */
		game_set_var(&g, "k7", 70);
		assert_int_equal(game_var(&g, "k7", -1), 70);
		assert_string_equal(game_error(&g), "campaign big has more than "
		    "4096 variables (GAME_MAX_VARS in include/game.h)");
	}
	game_free(&g);
}

static void
test_limits(void **state)
{
	(void)state;
	beyond_limit(0);
	beyond_limit(1);
	beyond_limit(2);
}

/* The ruleset-owned state: any text, copied deep, replaced, cleared. */
static void
test_rstate(void **state)
{
	struct game g, c;
	char *big = xcalloc(1, 300001);

	(void)state;
	memset(big, 'd', 300000);
	big[17] = '\n';
	game_init(&g);
	assert_null(g.rstate);
	game_set_rstate(&g, big);
	game_copy(&c, &g);
	assert_string_equal(c.rstate, big);
	assert_ptr_not_equal(c.rstate, g.rstate);
	game_set_rstate(&g, "deck: 3 1 2\n");
	assert_string_equal(c.rstate, big);
	assert_string_equal(g.rstate, "deck: 3 1 2\n");
	game_set_rstate(&g, NULL);
	assert_null(g.rstate);
	game_free(&c);
	game_free(&g);
	free(big);
}

/* A game with n units, n hexes, two sides (one with standing orders) and
 * a var. */
static void
rich_game(struct game *g, int n)
{
	int i;

	game_init(g);
	strlcpy_(g->name, "rich", sizeof g->name);
	strlcpy_(g->options, "red-standing,x=2", sizeof g->options);
	g->turn = 7;
	g->nsides = 2;
	strlcpy_(g->sides[0].name, "blue", sizeof g->sides[0].name);
	strlcpy_(g->sides[1].name, "red", sizeof g->sides[1].name);
	g->sides[1].standing = xstrdup("hold\n");
	for (i = 0; i < n; i++) {
		add_unit(g, i);
		add_hex(g, i);
	}
	game_set_var(g, "victory", 3);
}

/* game_copy copies exactly, into arrays of its own that grow on their own:
 * a change to either game afterwards leaves the other as it was. */
static void
test_copy(void **state)
{
	static const int sizes[] = { 0, 1, 15, 16, 17, 32, 40, 100 };
	struct game a, b;
	size_t k;
	int i, n;

	(void)state;
	for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		n = sizes[k];
		rich_game(&a, n);
		game_copy(&b, &a);
		assert_ptr_not_equal(b.units, a.units);
		assert_ptr_not_equal(b.hexes, a.hexes);
		assert_ptr_not_equal(b.sides[1].standing, a.sides[1].standing);
		assert_null(b.sides[0].standing);
		assert_string_equal(b.sides[1].standing, "hold\n");
		assert_string_equal(b.name, "rich");
		assert_string_equal(b.options, "red-standing,x=2");
		assert_int_equal(b.turn, 7);
		assert_int_equal(b.nsides, 2);
		assert_int_equal(game_var(&b, "victory", 0), 3);
		check_units(&b, n, 0);
		check_hexes(&b, n);

		/* Change the original, growing its arrays. */
		for (i = 0; i < n; i++)
			a.units[i].strength += 5;
		for (i = n; i < n + 40; i++) {
			add_unit(&a, i);
			add_hex(&a, i);
		}
		a.sides[1].standing[0] = 'H';
		free(a.sides[0].standing);
		a.sides[0].standing = xstrdup("move\n");
		game_set_var(&a, "victory", 9);
		a.turn = 8;
		check_units(&b, n, 0);
		check_hexes(&b, n);
		assert_string_equal(b.sides[1].standing, "hold\n");
		assert_null(b.sides[0].standing);
		assert_int_equal(game_var(&b, "victory", 0), 3);
		assert_int_equal(b.turn, 7);

		/* The copy grows on its own, from any size. */
		for (i = n; i < n + 40; i++) {
			add_unit(&b, i);
			add_hex(&b, i);
		}
		check_units(&b, n + 40, 0);
		check_hexes(&b, n + 40);
		for (i = 0; i < n + 40; i++)
			assert_int_equal(a.units[i].strength,
			    i * 10 + (i < n ? 5 : 0));
		game_free(&b);
		game_free(&a);
	}
}

static void
test_vars(void **state)
{
	struct game g;
	char key[32];
	int i;

	(void)state;
	game_init(&g);
	assert_int_equal(game_var(&g, "victory", -1), -1);
	game_set_var(&g, "victory", 0);
	assert_int_equal(game_var(&g, "victory", -1), 0);
	game_set_var(&g, "stage", 2);
	game_set_var(&g, "victory", -7);
	assert_int_equal(g.nvars, 2);
	assert_int_equal(game_var(&g, "victory", 0), -7);
	assert_int_equal(game_var(&g, "stage", 0), 2);
	/* Keys are case-sensitive and whole. */
	assert_int_equal(game_var(&g, "Victory", 99), 99);
	assert_int_equal(game_var(&g, "vict", 99), 99);
	assert_int_equal(game_var(&g, "", 99), 99);
	for (i = g.nvars; i < GAME_MAX_VARS; i++) {
		snprintf(key, sizeof key, "k%d", i);
		game_set_var(&g, key, i * i);
	}
	assert_int_equal(g.nvars, GAME_MAX_VARS);
	for (i = 2; i < GAME_MAX_VARS; i++) {
		snprintf(key, sizeof key, "k%d", i);
		assert_int_equal(game_var(&g, key, -1), i * i);
	}
	/* Setting a var that exists needs no new slot. */
	game_set_var(&g, "stage", 3);
	assert_int_equal(game_var(&g, "stage", 0), 3);
	assert_int_equal(g.nvars, GAME_MAX_VARS);
	game_free(&g);
}

static void
test_options(void **state)
{
	struct game g;
	char longopt[256];

	(void)state;
	game_init(&g);
	assert_null(game_option(&g, "a"));
	assert_false(game_option_flag(&g, "a"));

	strlcpy_(g.options, "a=1,b,ab=x,long=hello world,yes=YES,t=True,"
	    "on=on,no=0,off=off,empty=", sizeof g.options);
	assert_string_equal(game_option(&g, "a"), "1");
	assert_string_equal(game_option(&g, "b"), "");
	assert_string_equal(game_option(&g, "ab"), "x");
	assert_string_equal(game_option(&g, "long"), "hello world");
	assert_string_equal(game_option(&g, "empty"), "");
	/* Whole keys only: no prefix, no suffix, no value as a key. */
	assert_null(game_option(&g, "lon"));
	assert_null(game_option(&g, "longer"));
	assert_null(game_option(&g, "1"));
	assert_null(game_option(&g, "x"));
	assert_null(game_option(&g, "missing"));
	/* A flag: bare, or 1/yes/true/on in any case. */
	assert_true(game_option_flag(&g, "a"));
	assert_true(game_option_flag(&g, "b"));
	assert_true(game_option_flag(&g, "yes"));
	assert_true(game_option_flag(&g, "t"));
	assert_true(game_option_flag(&g, "on"));
	assert_true(game_option_flag(&g, "empty"));
	assert_false(game_option_flag(&g, "ab"));
	assert_false(game_option_flag(&g, "no"));
	assert_false(game_option_flag(&g, "off"));
	assert_false(game_option_flag(&g, "long"));
	assert_false(game_option_flag(&g, "missing"));

	/* The first of a key given twice; empty items are skipped. */
	strlcpy_(g.options, ",,k=first,,k=second,", sizeof g.options);
	assert_string_equal(game_option(&g, "k"), "first");

	/* A long value is cut to the static buffer's 127 characters. */
	memset(longopt, 0, sizeof longopt);
	memcpy(longopt, "v=", 2);
	memset(longopt + 2, 'z', 200);
	strlcpy_(g.options, longopt, sizeof g.options);
	assert_int_equal(strlen(game_option(&g, "v")), 127);
	game_free(&g);
}

static void
test_sides_status(void **state)
{
	struct game g;

	(void)state;
	game_init(&g);
	g.nsides = 2;
	strlcpy_(g.sides[0].name, "blue", sizeof g.sides[0].name);
	strlcpy_(g.sides[1].name, "red", sizeof g.sides[1].name);
	assert_int_equal(game_side_index(&g, "blue"), 0);
	assert_int_equal(game_side_index(&g, "RED"), 1);
	assert_int_equal(game_side_index(&g, "green"), -1);
	assert_int_equal(game_side_index(&g, ""), -1);
	assert_string_equal(game_strstatus(GAME_SETUP), "setup");
	assert_string_equal(game_strstatus(GAME_ACTIVE), "active");
	assert_string_equal(game_strstatus(GAME_FINISHED), "finished");
	game_free(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_units_shrink),
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_hexes),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_vars),
		cmocka_unit_test(test_rstate),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_sides_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
