/* libFuzzer harness for portable-modern (seed 002) order files. The first
 * input byte chooses a position and the side; the rest is an order file.
 * orders_parse_file runs on it and, when it parses, the ruleset's parse for
 * that side against the chosen position. Positions are the fresh
 * river-crossing battle (with and without the options cyclists,
 * tank-riders, gas) and every turn of a few self-played battles of the
 * built-in opponent. (Seeds in fuzz/corpus/pw_orders therefore start with
 * one selector character before "campaign:".)
 *
 * Checked on every run:
 *  - a file that does not parse has errors and no body; one that does has
 *    no errors;
 *  - parse either succeeds with orders and no errors or fails with errors
 *    and no orders;
 *  - the normalised text of accepted orders parses again, to itself;
 *  - accepted orders resolve (the other side's orders from the built-in
 *    opponent, dice keyed by the input) without error, and every side's
 *    map (and the moderator's) stays within 100 columns. */
#include <sodium.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "orders.h"
#include "pw.h"
#include "ruleset.h"
#include "turn.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_STATES 96
#define WHO "fuzz_pw_orders"

static const struct ruleset *rules;
static struct game states[MAX_STATES];
static int nstates;

static const char *const option_sets[] = { "", "cyclists,tank-riders,gas",
	"gas,turns=6" };

/* Keep a copy of g as a position (owned by states[]). */
static void
snapshot(const struct game *g)
{
	if (nstates < MAX_STATES)
		game_copy(&states[nstates++], g);
}

/* Self-play of one battle, keeping the position of every turn. */
static void
play(const char *options, int index)
{
	unsigned char master[32];

	memset(master, 0, sizeof master);
	master[0] = (unsigned char)index;
	fuzz_self_play(rules, options, master, sizeof master, 60, false,
	    snapshot, WHO);
}

/* The positions: fresh battles, then self-played ones. */
static void
init(void)
{
	struct game g;
	size_t k;
	int i;

	if ((rules = ruleset_find("portable-modern")) == NULL)
		abort();
	for (k = 0; k < sizeof option_sets / sizeof option_sets[0]; k++) {
		fuzz_new_game(&g, rules, option_sets[k], WHO);
		snapshot(&g);
		game_free(&g);
	}
	for (i = 0; i < 6 && nstates < MAX_STATES; i++)
		play(option_sets[i % 3], i);
}

/* No line of b is wider than 100 columns. */
static void
check_width(const struct sbuf *b, int side)
{
	size_t i, col = 0;

	for (i = 0; i < b->len; i++) {
		if (b->buf[i] == '\n') {
			col = 0;
			continue;
		}
		if (++col > 100) {
			fprintf(stderr, "fuzz_pw_orders: side %d's map is wider "
			    "than 100 columns:\n%s", side, b->buf);
			abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (rules == NULL)
		init();
	fuzz_check_input(rules, states, nstates, 1, true, data, size, WHO,
	    check_width);
	return 0;
}
