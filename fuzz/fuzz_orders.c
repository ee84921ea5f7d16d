/* libFuzzer harness for order files. The first input byte chooses a
 * mid-game position; the rest is an order file. orders_parse_file runs on
 * it and, when it parses, the fire-and-movement ruleset's parse for both
 * sides and for the windows "blue", "red" and "standing", against a fresh
 * game (with and without the red-standing option) and against the chosen
 * position. Positions come from self-play of the built-in opponent and from
 * random but plausible placements. (Seeds in fuzz/corpus/orders therefore
 * start with one selector character before "campaign:".)
 *
 * Checked on every run:
 *  - a file that does not parse has errors and no body; one that does has
 *    no errors;
 *  - parse either succeeds with orders and no errors or fails with errors
 *    and no orders;
 *  - the normalised text of accepted orders parses again, to itself;
 *  - when the orders are for the position's open window (or are standing
 *    orders it would use), the window resolves without error (the other
 *    sides' orders from the built-in opponent, dice keyed by the input),
 *    and the map, status and order template of the result draw. */
#include <sodium.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fam.h"
#include "orders.h"
#include "ruleset.h"
#include "turn.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_STATES 256
#define WHO "fuzz_orders"
#define FRESH_STATES 2 /* states[0]: no options, states[1]: red-standing */

static const struct ruleset *rules;
static struct game states[MAX_STATES]; /* positions, each a full copy */
static int nstates;
static struct game work;    /* positions are restored into this one */

static const char *const window_names[] = { "blue", "red", "standing" };

/* Keep a full copy of g as the next position (freed never: the harness
 * keeps them for the whole run). */
static void
snapshot(const struct game *g)
{
	if (nstates >= MAX_STATES)
		return;
	game_copy(&states[nstates++], g);
}

/* Restore position i into the working game. */
static void
restore(int i)
{
	game_free(&work);
	game_copy(&work, &states[i]);
}

/* Self-play of one game, keeping every position a window opens on. */
static void
play(const char *options, int index)
{
	unsigned char master[32];

	memset(master, 0, sizeof master);
	master[0] = (unsigned char)index;
	master[1] = (unsigned char)(options[0] != '\0');
	fuzz_self_play(rules, options, master, sizeof master, 200, true,
	    snapshot, WHO);
}

static unsigned
lcg(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return (*x >> 16) & 0x7fff;
}

/* A random position a window could open on: sections anywhere but the
 * hill, fresh or spent, the Pl Comd with one of them, Red fresh (it always
 * is when a window opens), Red's window only without standing orders. */
static void
random_position(const char *options, unsigned *x)
{
	struct game g;
	struct hex open[GAME_MAX_HEXES];
	int nopen = 0, i, pcs, stage, victory;

	fuzz_new_game(&g, rules, options, WHO);
	for (i = 0; i < g.nhex; i++)
		if (strcmp(g.hexes[i].terrain, "hill") != 0)
			open[nopen++] = g.hexes[i].h;
	for (i = 0; i < 3; i++) {
		g.units[i].placed = true;
		g.units[i].pos = open[lcg(x) % (unsigned)nopen];
		g.units[i].status = (int)(lcg(x) % 2);
	}
	pcs = (int)(lcg(x) % 3);
	g.units[3].placed = true;
	g.units[3].attached = pcs;
	g.units[3].pos = g.units[pcs].pos;
	stage = options[0] == '\0' ? (int)(lcg(x) % 2) : 0;
	g.turn = (stage ? 1 : 2) + (int)(lcg(x) % 12);
	game_set_var(&g, "stage", stage);
	victory = g.turn - 1 + (int)(lcg(x) % 4);
	game_set_var(&g, "victory", victory < 15 ? victory : 15);
	if (lcg(x) % 16 == 0) {
		game_set_var(&g, "victory", 16);
		g.status = GAME_FINISHED;
		strlcpy_(g.result, "Red wins", sizeof g.result);
	}
	snapshot(&g);
	game_free(&g);
}

static void
init(void)
{
	static const char *const opts[2] = { "", "red-standing" };
	struct game g;
	unsigned x = 12345;
	int i;

	if ((rules = ruleset_find("fire-and-movement")) == NULL)
		abort();
	for (i = 0; i < 2; i++) {
		fuzz_new_game(&g, rules, opts[i], WHO);
		snapshot(&g);
		game_free(&g);
	}
	for (i = 0; i < 24 && nstates < MAX_STATES - 64; i++)
		play(opts[i % 2], i);
	while (nstates < MAX_STATES)
		random_position(opts[nstates % 2], &x);
	fuzz_new_game(&work, rules, "", WHO);
}

/* The file a resolution reads: a header and the body's lines. */
static char *
order_file(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *body)
{
	struct sbuf b;
	size_t i;

	sbuf_init(&b);
	sbuf_printf(&b, "campaign: %s\nturn: %d\nwindow: %s\nside: %s\n",
	    g->name, w->turn, w->name, g->sides[side].name);
	for (i = 0; i < body->n; i++)
		sbuf_printf(&b, "%s\n", body->v[i].text);
	return sbuf_steal(&b);
}

/* Resolve the working game's open window with body as side's orders for
 * window w, if the position would use them. */
static void
check_resolve(const struct window_spec *w, int side,
    const struct order_body *body, const uint8_t *data, size_t size)
{
	unsigned char key[DICE_KEYLEN];
	char *raw[GAME_MAX_SIDES] = { 0 };
	struct window_spec cur;
	struct sbuf b;
	bool standing = strcmp(w->name, "standing") == 0;
	int s;

	if (work.status == GAME_FINISHED || !rules->next_window(&work, &cur))
		return;
	if (standing ? (cur.sides & (1u << side)) != 0 :
	    ((cur.sides & (1u << side)) == 0 || strcmp(cur.name, w->name) != 0 ||
	    cur.turn != w->turn))
		return;
	for (s = 0; s < work.nsides; s++)
		if (s == side)
			raw[s] = order_file(&work, w, side, body);
		else if (cur.sides & (1u << s))
			raw[s] = fuzz_opponent_file(&work, &cur, s);
	crypto_generichash(key, sizeof key, data, size, NULL, 0);
	fuzz_resolve(&work, &cur, raw, key, WHO, "resolution failed");
	sbuf_init(&b);
	for (s = -1; s < work.nsides; s++) {
		rules->render_map(&work, s, &b);
		rules->status(&work, s, &b);
	}
	if (rules->next_window(&work, &cur))
		for (s = 0; s < work.nsides; s++)
			free(window_order_template(&work, &cur, s));
	sbuf_free(&b);
}

static void
try_state(int index, const struct order_body *body, const uint8_t *data,
    size_t size)
{
	struct window_spec w;
	size_t k;
	int side;

	for (side = 0; side < 2; side++)
		for (k = 0; k < sizeof window_names / sizeof window_names[0];
		    k++) {
			char *canon;

			restore(index);
			memset(&w, 0, sizeof w);
			w.turn = work.turn;
			w.kind = WINDOW_ORDERS;
			strlcpy_(w.name, window_names[k], sizeof w.name);
			if (k < 2) {
				w.number = (int)k + 1;
				w.sides = 1u << k;
			}
			if ((canon = fuzz_parse(&work, &w, side, body)) == NULL)
				continue;
			fuzz_check_canon(&work, &w, side, canon, WHO);
			free(canon);
			check_resolve(&w, side, body, data, size);
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;

	if (rules == NULL)
		init();
	if (size < 1 || !fuzz_parse_file(data + 1, size - 1, &h, &body, &errs))
		return 0;
	try_state(0, &body, data, size);
	try_state(1, &body, data, size);
	try_state(FRESH_STATES + data[0] % (nstates - FRESH_STATES), &body,
	    data, size);
	orders_body_free(&body);
	orders_errors_free(&errs);
	return 0;
}
