/* libFuzzer harness for skirmish-ww2 (seed 003) order files. The first
 * input byte chooses a position and the side; the rest is an order file.
 * orders_parse_file runs on it and, when it parses, the ruleset's parse for
 * that side against the chosen position. Positions are the fresh crossroads
 * battle (hidden elements on both sides) and every window of a few
 * self-played crossroads battles of the built-in opponent, some in the
 * faithful mode (so the decision windows' answers are fuzzed too). (Seeds in
 * fuzz/corpus/skirmish_orders therefore start with one selector character
 * before "campaign:".)
 *
 * Checked on every run:
 *  - a file that does not parse has errors and no body; one that does has
 *    no errors;
 *  - parse either succeeds with orders and no errors or fails with errors
 *    and no orders;
 *  - the normalised text of accepted orders parses again, to itself;
 *  - accepted orders resolve (the other side's orders from the built-in
 *    opponent, public and sealed dice keyed by the input) without error,
 *    and every side's map and status can be drawn; a side's map never
 *    names an enemy element that side has not spotted. */
#include <sodium.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "orders.h"
#include "ruleset.h"
#include "skirmish.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_STATES 64
#define WHO "fuzz_skirmish_orders"

static const struct ruleset *rules;
static struct game states[MAX_STATES];
static int nstates;

/* Keep a copy of g as a position (owned by states[]). */
static void
snapshot(const struct game *g)
{
	if (nstates < MAX_STATES)
		game_copy(&states[nstates++], g);
}

/* The positions: the fresh battle, then self-played ones. */
static void
init(void)
{
	unsigned char master[32];
	struct game g;
	int i;

	if ((rules = ruleset_find("skirmish-ww2")) == NULL)
		abort();
	fuzz_new_game(&g, rules, "", WHO);
	snapshot(&g);
	game_free(&g);
	for (i = 0; i < 5 && nstates < MAX_STATES; i++) {
		memset(master, 0, sizeof master);
		master[0] = (unsigned char)i;
		fuzz_self_play(rules, i % 2 ? "faithful" : "", master,
		    sizeof master, 16, false, snapshot, WHO);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (rules == NULL)
		init();
	fuzz_check_input(rules, states, nstates, 1, true, data, size, WHO,
	    NULL);
	return 0;
}
