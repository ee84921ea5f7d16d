/* Unit tests for sim's worker processes (src/sim.c: sim_run_jobs plays
 * the same games as sim_run, whatever the number of workers) and for the
 * index behind game_hex_at (src/game.c: every lookup answers what a scan
 * of the hexes answers, through adds, copies, reloads and odd maps). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "pw.h"
#include "ruleset.h"
#include "sim.h"

/* The games, outcomes, windows and rolls of a and b are the same. */
static void
check_same(const struct sim_result *a, const struct sim_result *b)
{
	assert_int_equal(a->games, b->games);
	assert_int_equal(a->outcome[0], b->outcome[0]);
	assert_int_equal(a->outcome[1], b->outcome[1]);
	assert_int_equal(a->outcome[2], b->outcome[2]);
	assert_int_equal(a->windows, b->windows);
	assert_int_equal(a->rolls, b->rolls);
}

/* sim_run's histogram of mails per side per round is, for every N, the sum
 * over the same games of each game's var "mh.N" (cards-ap keeps them). */
static void
test_mails_histogram(void **state)
{
	const struct ruleset *rules = ruleset_find("cards-ap");
	static const unsigned char master[] = "test_sim mails";
	struct hp_error err = { 0, "" };
	struct sim_result res;
	long want[21] = { 0 }, windows = 0, rolls = 0, total = 0;
	int i, k, outcome;

	(void)state;
	assert_non_null(rules);
	assert_int_equal(sim_run(rules, NULL, 4, master, sizeof master - 1,
	    &res, &err), HP_OK);
	for (i = 0; i < 4; i++) {
		struct game g;
		char key[16];

		game_init(&g);
		assert_int_equal(sim_game(rules, NULL, i, master,
		    sizeof master - 1, &g, &outcome, &windows, &rolls, &err),
		    HP_OK);
		for (k = 0; k < 21; k++) {
			snprintf(key, sizeof key, "mh.%d", k);
			want[k] += game_var(&g, key, 0);
		}
		game_free(&g);
	}
	for (k = 0; k < 21; k++) {
		assert_int_equal(res.mails[k], want[k]);
		total += want[k];
	}
	assert_true(total > 0);  /* the games did keep a histogram */
}

/* Every non-test ruleset: 2, 3 and 7 workers give sim_run's totals. */
static void
test_jobs_equal_serial(void **state)
{
	const struct ruleset *const *all = ruleset_all();
	static const unsigned char master[] = "test_sim jobs";
	struct hp_error err = { 0, "" };
	struct sim_result one, many;
	static const int jobs[] = { 2, 3, 7 };
	int i, j, games, checked = 0;

	(void)state;
	for (i = 0; all[i] != NULL; i++) {
		if (all[i]->test)
			continue;
		games = strcmp(all[i]->name, "fire-and-movement") == 0 ? 120 : 3;
		assert_int_equal(sim_run(all[i], NULL, games, master,
		    sizeof master - 1, &one, &err), HP_OK);
		assert_int_equal(one.games, games);
		for (j = 0; j < (int)(sizeof jobs / sizeof jobs[0]); j++) {
			memset(&many, 0x55, sizeof many);
			assert_int_equal(sim_run_jobs(all[i], NULL, games,
			    master, sizeof master - 1, jobs[j], &many, &err),
			    HP_OK);
			check_same(&one, &many);
		}
		/* More workers than games, and one worker. */
		assert_int_equal(sim_run_jobs(all[i], NULL, 2, master,
		    sizeof master - 1, 5, &many, &err), HP_OK);
		assert_int_equal(many.games, 2);
		assert_int_equal(sim_run_jobs(all[i], NULL, games, master,
		    sizeof master - 1, 1, &many, &err), HP_OK);
		check_same(&one, &many);
		checked++;
	}
	assert_true(checked >= 3);
}

/* Options reach the workers: fire-and-movement's red-standing changes the
 * games, and two workers still play the serial ones. */
static void
test_jobs_options(void **state)
{
	static const unsigned char master[] = "test_sim options";
	struct hp_error err = { 0, "" };
	struct sim_result a, b, plain;

	(void)state;
	assert_int_equal(sim_run(&ruleset_fam, "red-standing", 60, master,
	    sizeof master - 1, &a, &err), HP_OK);
	assert_int_equal(sim_run_jobs(&ruleset_fam, "red-standing", 60,
	    master, sizeof master - 1, 2, &b, &err), HP_OK);
	check_same(&a, &b);
	assert_int_equal(sim_run(&ruleset_fam, NULL, 60, master,
	    sizeof master - 1, &plain, &err), HP_OK);
	assert_true(plain.windows != a.windows || plain.rolls != a.rolls ||
	    plain.outcome[0] != a.outcome[0]);
}

/* HEXPOST_JOBS picks the default; nonsense falls back to the cores. */
static void
test_default_jobs(void **state)
{
	int cores;

	(void)state;
	unsetenv("HEXPOST_JOBS");
	cores = sim_default_jobs();
	assert_true(cores >= 1 && cores <= SIM_JOBS_MAX);
	setenv("HEXPOST_JOBS", "3", 1);
	assert_int_equal(sim_default_jobs(), 3);
	setenv("HEXPOST_JOBS", "100000", 1);
	assert_int_equal(sim_default_jobs(), SIM_JOBS_MAX);
	setenv("HEXPOST_JOBS", "0", 1);
	assert_int_equal(sim_default_jobs(), cores);
	setenv("HEXPOST_JOBS", "two", 1);
	assert_int_equal(sim_default_jobs(), cores);
	unsetenv("HEXPOST_JOBS");
}

/* The first hex of g at h by a scan, or NULL. */
static const struct game_hex *
scan(const struct game *g, struct hex h)
{
	int i;

	for (i = 0; i < g->nhex; i++)
		if (hex_eq(g->hexes[i].h, h))
			return &g->hexes[i];
	return NULL;
}

/* Every position in a box around the map answers as a scan does. */
static void
check_lookups(const struct game *g)
{
	struct hex h;

	for (h.q = -40; h.q <= 40; h.q++)
		for (h.r = -40; h.r <= 40; h.r++)
			assert_ptr_equal(game_hex_at_c(g, h), scan(g, h));
}

/* Lookups between adds, hexes outside the layout, a duplicate (the first
 * one answers), a copy, a reload (nhex reset), a far hex. */
static void
test_hex_index(void **state)
{
	struct game g, c;
	struct hex h;
	int i;

	(void)state;
	game_init(&g);
	check_lookups(&g);
	g.layout.cols = 12;
	g.layout.rows = 9;
	for (i = 0; i < 108; i++) {
		struct hex_offset o = { (i * 7) % 12, (i * 5) % 9 };

		h = hex_from_offset(&g.layout, o);
		(void)game_add_hex(&g, h, i % 3 ? "open" : "wood");
		if (i % 17 == 0)
			check_lookups(&g);
	}
	check_lookups(&g);
	h.q = 3;
	h.r = 2;
	(void)game_add_hex(&g, h, "duplicate");
	h.q = -20;
	h.r = 30;
	(void)game_add_hex(&g, h, "outside");
	check_lookups(&g);
	assert_string_equal(game_hex_at(&g, h)->terrain, "outside");
	h.q = 3;
	h.r = 2;
	assert_string_not_equal(game_hex_at(&g, h)->terrain, "duplicate");
	game_copy(&c, &g);
	check_lookups(&c);
	(void)game_add_hex(&c, (struct hex){ 39, -39 }, "far");
	check_lookups(&c);
	check_lookups(&g);
	assert_null(game_hex_at(&g, (struct hex){ 39, -39 }));
	/* A reload: the hexes again, from nothing, in another order. */
	g.nhex = 0;
	check_lookups(&g);
	for (i = 107; i >= 0; i--) {
		struct hex_offset o = { i % 12, i / 12 };

		(void)game_add_hex(&g, hex_from_offset(&g.layout, o), "open");
	}
	check_lookups(&g);
	/* Reloaded in place with as many hexes, elsewhere: the old index
	 * must not answer. */
	g.nhex = 0;
	for (i = 0; i < 108; i++)
		(void)game_add_hex(&g, (struct hex){ -30 + i % 12, 20 + i / 12 },
		    "moved");
	assert_int_equal(g.nhex, 108);
	check_lookups(&g);
	assert_string_equal(game_hex_at(&g, (struct hex){ -30, 20 })->terrain,
	    "moved");
	game_free(&c);
	game_free(&g);
	/* A map far wider than it is full: lookups still right (scanned). */
	game_init(&g);
	(void)game_add_hex(&g, (struct hex){ -30000, 0 }, "open");
	(void)game_add_hex(&g, (struct hex){ 30000, 30000 }, "open");
	(void)game_add_hex(&g, (struct hex){ 1, 1 }, "open");
	check_lookups(&g);
	assert_non_null(game_hex_at(&g, (struct hex){ 30000, 30000 }));
	assert_null(game_hex_at(&g, (struct hex){ 30000, 29999 }));
	game_free(&g);
}

/* floor(a / b), b > 0. */
static long long
fdiv(long long a, long long b)
{
	return a / b - (a % b != 0 && a < 0);
}

/* The reference line: each sample rounded by divisions, ties found by
 * comparing squared distances to every neighbour (as hex_line did before
 * it stepped its roundings). */
static int
ref_line(struct hex a, struct hex b, struct hex_line_step *st)
{
	long long n = hex_distance(a, b), dq = b.q - a.q, dr = b.r - a.r;
	long long ds = -dq - dr;
	int i, k;

	if (n == 0) {
		st[0].h = st[0].alt = a;
		st[0].tie = false;
		return 1;
	}
	for (i = 0; i <= n; i++) {
		long long x = dq * i, y = dr * i, z = ds * i, rx, ry, rz;
		long long ex, ey, ez, d2 = -1;
		struct hex h, t;

		rx = fdiv(2 * x + n, 2 * n);
		ry = fdiv(2 * y + n, 2 * n);
		rz = fdiv(2 * z + n, 2 * n);
		ex = llabs(x - rx * n);
		ey = llabs(y - ry * n);
		ez = llabs(z - rz * n);
		if (ex > ey && ex > ez)
			rx = -ry - rz;
		else if (ey > ez)
			ry = -rx - rz;
		h.q = (int)rx;
		h.r = (int)ry;
		st[i].h = st[i].alt = h;
		st[i].tie = false;
		for (k = -1; k < 6; k++) {
			struct hex c = k < 0 ? h : hex_neighbour(h, k);
			long long fx = x - c.q * n, fy = y - c.r * n;
			long long fz = z + (c.q + c.r) * n;
			long long e = fx * fx + fy * fy + fz * fz;

			if (k < 0)
				d2 = e;
			else if (e == d2) {
				st[i].tie = true;
				st[i].alt = c;
				break;
			}
		}
		if (st[i].tie && (st[i].alt.q < h.q || (st[i].alt.q == h.q &&
		    st[i].alt.r < h.r))) {
			t = st[i].h;
			st[i].h = st[i].alt;
			st[i].alt = t;
		}
		st[i].h = hex_add(st[i].h, a);
		st[i].alt = hex_add(st[i].alt, a);
	}
	return (int)n + 1;
}

/* hex_line, which steps its roundings without dividing, draws every line
 * between the hexes of a box as the reference does, ties included. */
static void
test_hex_line_exact(void **state)
{
	struct hex_line_step got[HEX_LINE_MAX], want[HEX_LINE_MAX];
	struct hex a, b;
	int n, i, ties = 0;

	(void)state;
	for (a.q = -4; a.q <= 4; a.q++)
		for (a.r = -4; a.r <= 4; a.r++)
			for (b.q = -9; b.q <= 9; b.q++)
				for (b.r = -9; b.r <= 9; b.r++) {
					n = hex_line(a, b, got, HEX_LINE_MAX);
					assert_int_equal(n, ref_line(a, b,
					    want));
					for (i = 0; i < n; i++) {
						assert_true(hex_eq(got[i].h,
						    want[i].h));
						assert_int_equal(got[i].tie,
						    want[i].tie);
						assert_true(hex_eq(got[i].alt,
						    want[i].alt));
						ties += got[i].tie;
					}
				}
	assert_true(ties > 0);
}

/* Every portable-modern kind is found by its name (pw_kind_by_name and
 * pw_kind check a table of name lengths first), and nothing else is. */
static void
test_pw_kinds(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < PW_NKINDS; k++)
		assert_int_equal(pw_kind_by_name(pw_types[k].kind), k);
	assert_int_equal(pw_kind_by_name(""), -1);
	assert_int_equal(pw_kind_by_name("infantry-"), -1);
	assert_int_equal(pw_kind_by_name("infantr"), -1);
	assert_int_equal(pw_kind_by_name("marker:mines"), -1);
	assert_int_equal(pw_kind_by_name("Infantry"), -1);
	/* The same through a unit (pw_kind reads its kind array). */
	for (k = 0; k < PW_NKINDS; k++) {
		struct game_unit u;

		memset(&u, 'x', sizeof u);
		assert_true(strlen(pw_types[k].kind) < sizeof u.kind);
		strlcpy_(u.kind, pw_types[k].kind, sizeof u.kind);
		assert_int_equal(pw_kind(&u), k);
		assert_non_null(pw_type(&u));
		u.kind[strlen(u.kind)] = 's';  /* "infantrys...": no kind */
		u.kind[sizeof u.kind - 1] = '\0';
		assert_int_equal(pw_kind(&u), -1);
		strlcpy_(u.kind, "marker:mines", sizeof u.kind);
		assert_int_equal(pw_kind(&u), -1);
	}
}

/* A ruleset's opponent_parsed path (fire-and-movement: the opponent's
 * orders resolved as it parsed them, through window_resolve_parsed) plays
 * the same games as parsing its order files back through
 * window_resolve_resume (the same ruleset without the hook): the same
 * totals, and each game the same final state. */
static void
test_parsed_path_same(void **state)
{
	static const unsigned char master[] = "test_sim parsed";
	static const char *const options[] = { NULL, "red-standing" };
	const struct ruleset *fam = ruleset_find("fire-and-movement");
	struct ruleset plain;
	struct sim_result a, b;
	struct hp_error err = { 0, "" };
	int k, i, u, oa, ob;

	(void)state;
	assert_non_null(fam);
	assert_non_null(fam->opponent_parsed);
	plain = *fam;
	plain.opponent_parsed = NULL;
	for (k = 0; k < 2; k++) {
		assert_int_equal(sim_run(fam, options[k], 300, master,
		    sizeof master - 1, &a, &err), HP_OK);
		assert_int_equal(sim_run(&plain, options[k], 300, master,
		    sizeof master - 1, &b, &err), HP_OK);
		check_same(&a, &b);
		assert_int_equal(a.orders, b.orders);
		assert_int_equal(a.order_bytes, b.order_bytes);
		for (i = 0; i < 60; i++) {
			struct game ga, gb;
			long wa = 0, ra = 0, wb = 0, rb = 0;

			game_init(&ga);
			game_init(&gb);
			assert_int_equal(sim_game(fam, options[k], i, master,
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
				assert_int_equal(ga.units[u].status,
				    gb.units[u].status);
				assert_int_equal(ga.units[u].attached,
				    gb.units[u].attached);
			}
			assert_int_equal(ga.nvars, gb.nvars);
			for (u = 0; u < ga.nvars; u++)
				assert_int_equal(ga.vars[u].val, gb.vars[u].val);
			game_free(&ga);
			game_free(&gb);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs_equal_serial),
		cmocka_unit_test(test_mails_histogram),
		cmocka_unit_test(test_jobs_options),
		cmocka_unit_test(test_default_jobs),
		cmocka_unit_test(test_hex_index),
		cmocka_unit_test(test_pw_kinds),
		cmocka_unit_test(test_hex_line_exact),
		cmocka_unit_test(test_parsed_path_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
