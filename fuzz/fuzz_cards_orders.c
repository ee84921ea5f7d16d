/* libFuzzer harness for cards-ap (seed 004) round plans and answers. The
 * first input byte chooses a position and the side; the rest is an order
 * file. orders_parse_file runs on it and, when it parses, the ruleset's
 * parse for that side against the chosen position, and the plan parser on
 * the body again as the ruleset's own state stores a plan
 * (cap_plan_from_text). Positions are the first plan window of the
 * crossroads (with and without the option per-action) and every plan
 * window of a few self-played games. (Seeds in fuzz/corpus/cards_orders
 * start with one selector character before "campaign:".)
 *
 * Checked on every run:
 *  - parse either succeeds with orders and no errors or fails with errors
 *    and no orders; the normalised text parses again, to itself;
 *  - accepted plans resolve (the other side's plan from the built-in
 *    opponent, stream dice keyed by the input, sealed sets enabled) to a
 *    stop or the end of the round without error, and every side's map and
 *    status can be drawn. */
#include <sodium.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/rules/cards/cap.h"
#include "common.h"
#include "orders.h"
#include "ruleset.h"
#include "window.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_STATES 64
#define WHO "fuzz_cards_orders"

static const struct ruleset *rules;
static struct game states[MAX_STATES];
static int nstates;

/* Resolve w of g from the files raw (freed here), dice keyed by key with
 * every sealed set enabled; *stop says how it ended. */
static void
resolve(struct game *g, const struct window_spec *w,
    char *raw[GAME_MAX_SIDES], const struct window_resume *res,
    const unsigned char key[DICE_KEYLEN], struct window_stop *stop)
{
	struct hp_error err = { 0, "" };
	struct events ev;
	struct dice d;
	unsigned m;
	int s;

	dice_init_stream(&d, key);
	for (m = 1; m < 4; m++)
		dice_sealed_enable(&d, m, key);
	events_init(&ev);
	stop->step = -1;
	stop->ask = 0;
	if (window_resolve_resume(g, w, (const char *const *)raw, NULL, res,
	    stop, &d, &ev, &err) != HP_OK) {
		fprintf(stderr, "%s: resolution failed: %s\n", WHO, err.msg);
		abort();
	}
	dice_free(&d);
	events_free(&ev);
	for (s = 0; s < GAME_MAX_SIDES; s++)
		free(raw[s]);
}

/* Self-play of one game; every plan window's position is kept. */
static void
self_play(const char *options, int seed)
{
	struct window_spec w, next;
	struct window_resume res;
	struct hp_error err = { 0, "" };
	unsigned char key[DICE_KEYLEN];
	struct window_stop stop = { -1, 0 };
	struct game g;
	int guard, s;
	bool resuming = false, more;

	fuzz_new_game(&g, rules, options, WHO);
	memset(&res, 0, sizeof res);
	for (guard = 0; guard < 60 && rules->next_window(&g, &w); guard++) {
		char *raw[GAME_MAX_SIDES] = { 0 };

		if (strcmp(w.name, "plan") == 0 && nstates < MAX_STATES)
			game_copy(&states[nstates++], &g);
		for (s = 0; s < g.nsides; s++)
			if (w.sides & (1u << s))
				raw[s] = fuzz_opponent_file(&g, &w, s);
		memset(key, 0, sizeof key);
		key[0] = (unsigned char)seed;
		key[1] = (unsigned char)guard;
		resolve(&g, &w, raw, resuming ? &res : NULL, key, &stop);
		if (stop.step >= 0) {
			if (!resuming) {
				res.w = w;
				for (s = 0; s < GAME_MAX_SIDES; s++)
					res.prior[s] = NULL;
			}
			res.step = stop.step;
			resuming = true;
		} else
			resuming = false;
		if (window_advance(&g, &stop, &next, &more, &err) != HP_OK) {
			fprintf(stderr, "%s: advance: %s\n", WHO, err.msg);
			abort();
		}
		if (!more || g.status == GAME_FINISHED)
			break;
	}
	game_free(&g);
}

/* The positions: the plan windows of a few self-played games. */
static void
init(void)
{
	int i;

	if ((rules = ruleset_find("cards-ap")) == NULL)
		abort();
	self_play("", 0);
	self_play("per-action,rounds=2", 1);
	for (i = 2; i < 5 && nstates < MAX_STATES; i++)
		self_play("", i);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	struct window_spec w;
	struct window_stop stop;
	unsigned char key[DICE_KEYLEN];
	const struct game *g;
	char *canon, *text, *raw[GAME_MAX_SIDES] = { 0 };
	struct cap_plan *p;
	struct game work;
	int side, s;

	if (rules == NULL)
		init();
	if (nstates == 0 || size < 1 ||
	    !fuzz_parse_file(data + 1, size - 1, &h, &body, &errs))
		return 0;
	g = &states[(data[0] >> 1) % nstates];
	side = data[0] & 1;
	p = xcalloc(1, sizeof *p);
	text = xmalloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	(void)cap_plan_from_text(g, side, text, p);
	free(text);
	free(p);
	if (rules->next_window(g, &w) &&
	    (canon = fuzz_parse(g, &w, side, &body)) != NULL) {
		fuzz_check_canon(g, &w, side, canon, WHO);
		game_copy(&work, g);
		for (s = 0; s < work.nsides; s++)
			raw[s] = s == side ? fuzz_order_file(&work, &w, s, canon) :
			    fuzz_opponent_file(&work, &w, s);
		crypto_generichash(key, sizeof key, data, size, NULL, 0);
		resolve(&work, &w, raw, NULL, key, &stop);
		for (s = -1; s < work.nsides; s++) {
			struct sbuf b;

			sbuf_init(&b);
			work.rules->render_map(&work, s, &b);
			work.rules->status(&work, s, &b);
			sbuf_free(&b);
		}
		game_free(&work);
		free(canon);
	}
	orders_body_free(&body);
	orders_errors_free(&errs);
	return 0;
}
