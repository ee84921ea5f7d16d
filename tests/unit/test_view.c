/* test_view: the one place deciding what each side sees (src/view.c):
 * units the ruleset hides are dropped from a side's copy of the game (and
 * so from its map, status and order template), the ruleset's own state is
 * redacted, events and rolls follow their visibility, sealed rolls their
 * set, and a ruleset without callbacks shows everything. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ruleset.h"
#include "view.h"

/* A test-fog game from its shipped scenario. */
static void
fog_game(struct game *g)
{
	struct hp_error err = { 0, "" };

	game_init(g);
	g->rules = ruleset_find("test-fog");
	assert_non_null(g->rules);
	strlcpy_(g->name, "v", sizeof g->name);
	strlcpy_(g->options, "blue-start=B1,red-start=C2", sizeof g->options);
	assert_int_equal(ruleset_setup(g, NULL, NULL, NULL, NULL, &err),
	    HP_OK);
	game_set_rstate(g, "deck blue abc\nhand blue xy\ndeck red def\n"
	    "hand red zq\n");
}

static void
test_units_and_state(void **state)
{
	struct game g, v;
	struct sbuf b;
	char *t;

	(void)state;
	fog_game(&g);
	assert_int_equal(g.nunits, 2);
	assert_true(view_unit(&g, 0, 0));
	assert_false(view_unit(&g, 0, 1));
	assert_true(view_unit(&g, -1, 1));
	view_game(&g, 0, &v);
	assert_int_equal(v.nunits, 1);
	assert_string_equal(v.units[0].id, "bs");
	assert_null(strstr(v.rstate, "zq"));
	assert_null(strstr(v.rstate, "abc"));
	assert_non_null(strstr(v.rstate, "hand blue xy"));
	game_free(&v);
	view_game(&g, -1, &v);
	assert_int_equal(v.nunits, 2);
	assert_string_equal(v.rstate, g.rstate);
	game_free(&v);
	sbuf_init(&b);
	view_map(&g, 0, &b);
	view_status(&g, 0, &b);
	assert_non_null(strstr(b.buf, "B1"));
	assert_null(strstr(b.buf, "C2"));
	assert_null(strstr(b.buf, "zq"));
	assert_non_null(strstr(b.buf, "xy"));
	sbuf_free(&b);
	{
		struct window_spec w;

		assert_true(g.rules->next_window(&g, &w));
		t = view_order_template(&g, &w, 1);
		assert_non_null(strstr(t, "move C2"));
		assert_null(strstr(t, "B1"));
		assert_null(strstr(t, "xy"));
		free(t);
	}
	game_free(&g);
}

static void
test_events_and_rolls(void **state)
{
	struct events ev;
	struct dice_roll pub1, pub2, pub3, sealed;

	(void)state;
	events_init(&ev);
	events_add(&ev, 1, 1, "blue sees roll 1");
	events_add_rolls(&ev, 3, 1, 1, 1, "cites blue's sealed roll 1");
	events_add_rolls(&ev, 2, 0, 2, 1, "red sees roll 2");
	assert_true(view_event(&ev.v[0], 0));
	assert_false(view_event(&ev.v[0], 1));
	/* Shown to both, but it cites blue's sealed roll: red may not. */
	assert_true(view_event(&ev.v[1], 0));
	assert_false(view_event(&ev.v[1], 1));
	assert_true(view_event(&ev.v[1], -1));
	memset(&pub1, 0, sizeof pub1);
	pub1.seq = 1;
	pub1.visible = DICE_ALL_SIDES;
	pub2 = pub3 = pub1;
	pub2.seq = 2;
	pub3.seq = 3;
	assert_true(view_roll(&ev, &pub1, 0));
	assert_false(view_roll(&ev, &pub1, 1));
	assert_false(view_roll(&ev, &pub2, 0));
	assert_true(view_roll(&ev, &pub2, 1));
	assert_true(view_roll(&ev, &pub3, 0));   /* cited by none */
	assert_true(view_roll(&ev, &pub3, 1));
	sealed = pub1;
	sealed.sealed = true;
	sealed.visible = 1;
	assert_true(view_roll(&ev, &sealed, 0));
	assert_false(view_roll(&ev, &sealed, 1));
	assert_true(view_roll(&ev, &sealed, -1));
	events_free(&ev);
}

/* A ruleset without callbacks: every side sees everything. */
static void
test_default_all_visible(void **state)
{
	struct hp_error err = { 0, "" };
	struct game g, v;

	(void)state;
	game_init(&g);
	g.rules = ruleset_find("portable-modern");
	strlcpy_(g.name, "v", sizeof g.name);
	assert_int_equal(ruleset_setup(&g, NULL, NULL, NULL, NULL, &err),
	    HP_OK);
	assert_null(g.rules->visible);
	view_game(&g, 0, &v);
	assert_int_equal(v.nunits, g.nunits);
	assert_memory_equal(v.units, g.units, sizeof *g.units *
	    (size_t)g.nunits);
	game_free(&v);
	game_free(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_and_state),
		cmocka_unit_test(test_events_and_rolls),
		cmocka_unit_test(test_default_all_visible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
