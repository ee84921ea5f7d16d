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

#include "orders.h"
#include "pw.h"
#include "ruleset.h"
#include "turn.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAX_STATES 96

static const struct ruleset *rules;
static struct game states[MAX_STATES];
static int nstates;

static const char *const option_sets[] = { "", "cyclists,tank-riders,gas",
	"gas,turns=6" };

/* A fresh river-crossing battle with options into g (caller frees). */
static void
new_game(struct game *g, const char *options)
{
	struct hp_error err;

	game_init(g);
	strlcpy_(g->name, "fuzz", sizeof g->name);
	strlcpy_(g->options, options, sizeof g->options);
	g->rules = rules;
	memset(&err, 0, sizeof err);
	if (rules->setup(g, NULL, &err) != HP_OK) {
		fprintf(stderr, "fuzz_pw_orders: setup: %s\n", err.msg);
		abort();
	}
}

/* Keep a copy of g as a position (owned by states[]). */
static void
snapshot(const struct game *g)
{
	if (nstates < MAX_STATES)
		game_copy(&states[nstates++], g);
}

/* The order file of side for window w: a header and the body. Caller
 * frees. */
static char *
file_of(const struct game *g, const struct window_spec *w, int side,
    const char *body)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "campaign: %s\nturn: %d\nwindow: %s\nside: %s\n%s",
	    g->name, w->turn, w->name, g->sides[side].name, body);
	return sbuf_steal(&b);
}

/* The built-in opponent's order file for side (caller frees). */
static char *
opponent_file(const struct game *g, const struct window_spec *w, int side)
{
	struct sbuf b;
	char *f;

	sbuf_init(&b);
	rules->opponent(g, w, side, &b);
	f = file_of(g, w, side, b.buf ? b.buf : "");
	sbuf_free(&b);
	return f;
}

/* Self-play of one battle, keeping the position of every turn. */
static void
play(const char *options, int index)
{
	unsigned char master[32], seed[DICE_SEEDLEN], key[DICE_KEYLEN];
	struct window_spec w;
	struct game g;
	int guard, s;

	memset(master, 0, sizeof master);
	master[0] = (unsigned char)index;
	new_game(&g, options);
	for (guard = 0; guard < 60 && rules->next_window(&g, &w); guard++) {
		char *raw[GAME_MAX_SIDES] = { 0 };
		struct hp_error err;
		struct events ev;
		struct dice d;

		if (guard > 0)
			snapshot(&g);
		for (s = 0; s < g.nsides; s++)
			raw[s] = opponent_file(&g, &w, s);
		dice_seed_from_master(master, sizeof master, g.name, w.turn,
		    w.number, seed);
		dice_derive_key(seed, g.name, w.turn, w.number, NULL, 0, key);
		dice_init_stream(&d, key);
		events_init(&ev);
		memset(&err, 0, sizeof err);
		if (turn_resolve_window(&g, &w, (const char *const *)raw, &d,
		    &ev, &err) != HP_OK) {
			fprintf(stderr, "fuzz_pw_orders: self-play: %s\n",
			    err.msg);
			abort();
		}
		dice_free(&d);
		events_free(&ev);
		for (s = 0; s < GAME_MAX_SIDES; s++)
			free(raw[s]);
		if (g.status == GAME_FINISHED)
			break;
	}
	game_free(&g);
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
		new_game(&g, option_sets[k]);
		snapshot(&g);
		game_free(&g);
	}
	for (i = 0; i < 6 && nstates < MAX_STATES; i++)
		play(option_sets[i % 3], i);
}

/* Parse body as side's orders against g; the normalised text (caller
 * frees) or NULL if rejected. */
static char *
parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *body)
{
	struct order_errors errs;
	struct sbuf canon;
	void *out = NULL;
	int rc;

	orders_errors_init(&errs);
	sbuf_init(&canon);
	rc = rules->parse(g, w, side, body, &out, &canon, &errs);
	if (rc == HP_OK) {
		if (out == NULL || errs.n != 0)
			abort();
		rules->free_orders(out);
	} else {
		if (rc != HP_EINVAL || errs.n == 0 || out != NULL)
			abort();
		free(orders_errors_text(&errs));
		sbuf_free(&canon);
	}
	orders_errors_free(&errs);
	if (rc != HP_OK)
		return NULL;
	if (canon.buf == NULL)
		sbuf_puts(&canon, "");
	return sbuf_steal(&canon);
}

/* The normalised text must parse again, to itself. */
static void
check_canon(const struct game *g, const struct window_spec *w, int side,
    const char *canon)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	char *f = file_of(g, w, side, canon), *again;

	orders_errors_init(&errs);
	if (orders_parse_file(f, strlen(f), &h, &body, &errs) != HP_OK) {
		fprintf(stderr, "fuzz_pw_orders: normalised orders do not "
		    "parse:\n%s", f);
		abort();
	}
	again = parse(g, w, side, &body);
	if (again == NULL || strcmp(again, canon) != 0) {
		fprintf(stderr, "fuzz_pw_orders: normalised orders change:\n"
		    "%s---\n%s", canon, again ? again : "(rejected)\n");
		abort();
	}
	free(again);
	free(f);
	orders_body_free(&body);
	orders_errors_free(&errs);
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

/* Resolve the turn of a copy of g with canon as side's orders. */
static void
check_resolve(const struct game *g, const struct window_spec *w, int side,
    const char *canon, const uint8_t *data, size_t size)
{
	unsigned char key[DICE_KEYLEN];
	char *raw[GAME_MAX_SIDES] = { 0 };
	struct hp_error err;
	struct events ev;
	struct game work;
	struct dice d;
	struct sbuf b;
	int s;

	game_copy(&work, g);
	for (s = 0; s < work.nsides; s++)
		raw[s] = s == side ? file_of(&work, w, s, canon) :
		    opponent_file(&work, w, s);
	crypto_generichash(key, sizeof key, data, size, NULL, 0);
	dice_init_stream(&d, key);
	events_init(&ev);
	memset(&err, 0, sizeof err);
	if (turn_resolve_window(&work, w, (const char *const *)raw, &d, &ev,
	    &err) != HP_OK) {
		fprintf(stderr, "fuzz_pw_orders: resolution failed: %s\n",
		    err.msg);
		abort();
	}
	for (s = -1; s < work.nsides; s++) {
		sbuf_init(&b);
		rules->render_map(&work, s, &b);
		check_width(&b, s);
		rules->status(&work, s, &b);
		sbuf_free(&b);
	}
	dice_free(&d);
	events_free(&ev);
	game_free(&work);
	for (s = 0; s < GAME_MAX_SIDES; s++)
		free(raw[s]);
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
	int rc, side;

	if (rules == NULL)
		init();
	if (size < 1)
		return 0;
	orders_errors_init(&errs);
	rc = orders_parse_file((const char *)data + 1, size - 1, &h, &body,
	    &errs);
	if (rc != HP_OK) {
		if (rc != HP_EINVAL || errs.n == 0 || body.v != NULL ||
		    body.n != 0)
			abort();
		free(orders_errors_text(&errs));
		orders_errors_free(&errs);
		return 0;
	}
	if (errs.n != 0 || (h.have & 15) != 15)
		abort();
	g = &states[(data[0] >> 1) % nstates];
	side = data[0] & 1;
	if (rules->next_window(g, &w) &&
	    (canon = parse(g, &w, side, &body)) != NULL) {
		check_canon(g, &w, side, canon);
		check_resolve(g, &w, side, canon, data, size);
		free(canon);
	}
	orders_body_free(&body);
	orders_errors_free(&errs);
	return 0;
}
