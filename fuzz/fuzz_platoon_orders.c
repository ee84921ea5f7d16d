/* libFuzzer harness for platoon (seed 001) order files. The first input
 * byte chooses a position and the side; the rest is an order file.
 * orders_parse_file runs on it and, when it parses, the ruleset's parse for
 * that side against the chosen position. Positions are the fresh outpost
 * battle (with and without the options no-order-advance, move-move-move),
 * the fresh three-side three-way battle, every turn of a few self-played
 * outpost battles of the built-in opponent, and the faithful mode
 * (reveal=each): its marker window, and the reveal windows of a few
 * turns of a self-played battle (resolutions that stop and resume, each
 * position a side's turn to reveal). (Seeds in
 * fuzz/corpus/platoon_orders therefore start with one selector character
 * before "campaign:".)
 *
 * Checked on every run:
 *  - a file that does not parse has errors and no body; one that does has
 *    no errors;
 *  - parse either succeeds with orders and no errors or fails with errors
 *    and no orders;
 *  - the normalised text of accepted orders parses again, to itself;
 *  - accepted orders resolve (the other sides' orders from the built-in
 *    opponent, dice keyed by the input) without error, and every side's
 *    map and status can be drawn (a reveal: parse and canonical text
 *    only, its resolution needs the stopped window's). */
#include <sodium.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "orders.h"
#include "platoon.h"
#include "ruleset.h"
#include "turn.h"
#include "window.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_STATES 128
#define WHO "fuzz_platoon_orders"

static const struct ruleset *rules;
static struct game states[MAX_STATES];
static int nstates;

static const char *const option_sets[] = { "",
	"no-order-advance,move-move-move", "move-move-move,turns=4" };

/* Keep a copy of g as a position (owned by states[]). */
static void
snapshot(const struct game *g)
{
	if (nstates < MAX_STATES)
		game_copy(&states[nstates++], g);
}

/* A battle in the faithful mode played by the opponent for a few turns,
 * keeping each position that asks a side for a reveal. */
static void
each_positions(void)
{
	struct hp_error err = { 0, "" };
	struct window_spec w, next;
	struct window_resume res;
	char *prior[GAME_MAX_SIDES] = { 0 };
	struct game g;
	bool resuming = false, more = true;
	int s, n;

	fuzz_new_game(&g, rules, "reveal=each,move-move-move", WHO);
	snapshot(&g);
	memset(&res, 0, sizeof res);
	for (n = 0; n < 24 && more && rules->next_window(&g, &w); n++) {
		char *raw[GAME_MAX_SIDES] = { 0 };
		struct window_stop stop;
		unsigned char key[DICE_KEYLEN];
		struct dice d;
		struct events ev;

		if (w.kind == WINDOW_DECISION)
			snapshot(&g);
		for (s = 0; s < g.nsides; s++)
			if (w.sides & (1u << s))
				raw[s] = window_opponent_orders(&g, &w, s);
		memset(key, n + 7, sizeof key);
		dice_init_stream(&d, key);
		events_init(&ev);
		if (window_resolve_resume(&g, &w, (const char *const *)raw,
		    NULL, resuming ? &res : NULL, &stop, &d, &ev, &err) !=
		    HP_OK || window_advance(&g, &stop, &next, &more,
		    &err) != HP_OK) {
			fprintf(stderr, "%s: reveal=each: %s\n", WHO, err.msg);
			abort();
		}
		dice_free(&d);
		events_free(&ev);
		if (stop.step >= 0 && !resuming) {
			res.w = w;
			for (s = 0; s < GAME_MAX_SIDES; s++) {
				prior[s] = raw[s];
				raw[s] = NULL;
				res.prior[s] = prior[s];
			}
			resuming = true;
		} else if (stop.step < 0 && resuming) {
			resuming = false;
			for (s = 0; s < GAME_MAX_SIDES; s++) {
				free(prior[s]);
				prior[s] = NULL;
			}
		}
		if (stop.step >= 0)
			res.step = stop.step;
		for (s = 0; s < GAME_MAX_SIDES; s++)
			free(raw[s]);
	}
	for (s = 0; s < GAME_MAX_SIDES; s++)
		free(prior[s]);
	game_free(&g);
}

/* The positions: fresh battles, then self-played ones. */
static void
init(void)
{
	struct hp_error err = { 0, "" };
	unsigned char master[32];
	struct game g;
	size_t k;
	int i;

	if ((rules = ruleset_find("platoon")) == NULL)
		abort();
	for (k = 0; k < sizeof option_sets / sizeof option_sets[0]; k++) {
		fuzz_new_game(&g, rules, option_sets[k], WHO);
		snapshot(&g);
		game_free(&g);
	}
	game_init(&g);
	g.rules = rules;
	strlcpy_(g.name, "fuzz", sizeof g.name);
	strlcpy_(g.options, "move-move-move", sizeof g.options);
	if (ruleset_setup(&g, "three-way", NULL, NULL, NULL, &err) != HP_OK) {
		fprintf(stderr, "%s: three-way: %s\n", WHO, err.msg);
		abort();
	}
	snapshot(&g);
	game_free(&g);
	for (i = 0; i < 6 && nstates < MAX_STATES; i++) {
		memset(master, 0, sizeof master);
		master[0] = (unsigned char)i;
		fuzz_self_play(rules, option_sets[i % 3], master,
		    sizeof master, 40, false, snapshot, WHO);
	}
	each_positions();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (rules == NULL)
		init();
	fuzz_check_input(rules, states, nstates, 2, false, data, size, WHO,
	    NULL);
	return 0;
}
