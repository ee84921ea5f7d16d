/* libFuzzer harness for platoon (seed 001) order files. The first input
 * byte chooses a position and the side; the rest is an order file.
 * orders_parse_file runs on it and, when it parses, the ruleset's parse for
 * that side against the chosen position. Positions are the fresh outpost
 * battle (with and without the options no-order-advance, move-move-move),
 * the fresh three-side three-way battle, and every turn of a few
 * self-played outpost battles of the built-in opponent. (Seeds in
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
 *    map and status can be drawn. */
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

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_STATES 96
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
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	struct window_spec w;
	const struct game *g;
	char *canon;
	int side;

	if (rules == NULL)
		init();
	if (size < 1 || !fuzz_parse_file(data + 1, size - 1, &h, &body, &errs))
		return 0;
	g = &states[(data[0] >> 2) % nstates];
	side = (data[0] & 3) % g->nsides;
	if (rules->next_window(g, &w) &&
	    (canon = fuzz_parse(g, &w, side, &body)) != NULL) {
		fuzz_check_canon(g, &w, side, canon, WHO);
		fuzz_check_resolve(g, &w, side, canon, data, size, WHO,
		    NULL);
		free(canon);
	}
	orders_body_free(&body);
	orders_errors_free(&errs);
	return 0;
}
