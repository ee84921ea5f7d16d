/* Helpers the order-file harnesses share (see common.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common.h"
#include "turn.h"

/* A fresh game of rules with options into g (caller frees). */
void
fuzz_new_game(struct game *g, const struct ruleset *rules,
    const char *options, const char *who)
{
	struct hp_error err;

	game_init(g);
	strlcpy_(g->name, "fuzz", sizeof g->name);
	strlcpy_(g->options, options, sizeof g->options);
	g->rules = rules;
	memset(&err, 0, sizeof err);
	if (ruleset_setup(g, NULL, NULL, NULL, NULL, &err) != HP_OK) {
		fprintf(stderr, "%s: setup: %s\n", who, err.msg);
		abort();
	}
}

/* The order file of side for window w: header and body (caller frees). */
char *
fuzz_order_file(const struct game *g, const struct window_spec *w, int side,
    const char *body)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "campaign: %s\nturn: %d\nwindow: %s\nside: %s\n%s",
	    g->name, w->turn, w->name, g->sides[side].name, body);
	return sbuf_steal(&b);
}

/* The built-in opponent's order file of side (caller frees). */
char *
fuzz_opponent_file(const struct game *g, const struct window_spec *w,
    int side)
{
	struct sbuf b;
	char *f;

	sbuf_init(&b);
	g->rules->opponent(g, w, side, &b);
	f = fuzz_order_file(g, w, side, b.buf ? b.buf : "");
	sbuf_free(&b);
	return f;
}

/* Resolve w with the files raw (freed here) and the dice stream of key. */
void
fuzz_resolve(struct game *g, const struct window_spec *w,
    char *raw[GAME_MAX_SIDES], const unsigned char key[DICE_KEYLEN],
    const char *who, const char *what)
{
	struct hp_error err;
	struct events ev;
	struct dice d;
	int s;

	dice_init_stream(&d, key);
	/* A ruleset with hidden information draws sealed dice: one seed per
	 * visibility set, derived from the key. */
	for (s = 1; g->rules->hidden && s < (1 << g->nsides) &&
	    s < DICE_SEALED_SETS; s++) {
		unsigned char seed[DICE_SEEDLEN];

		crypto_generichash(seed, sizeof seed, key, DICE_KEYLEN,
		    (const unsigned char *)&s, sizeof s);
		dice_sealed_enable(&d, (unsigned)s, seed);
	}
	events_init(&ev);
	memset(&err, 0, sizeof err);
	if (window_resolve(g, w, (const char *const *)raw, &d, &ev,
	    &err) != HP_OK) {
		fprintf(stderr, "%s: %s: %s\n", who, what, err.msg);
		abort();
	}
	dice_free(&d);
	events_free(&ev);
	for (s = 0; s < GAME_MAX_SIDES; s++)
		free(raw[s]);
}

/* Resolve the turn of a copy of g with canon as side's orders and the
 * other sides' the opponent's, the dice keyed by the input's hash; then draw
 * every side's map (view, when not NULL, checks each) and status. */
void
fuzz_check_resolve(const struct game *g, const struct window_spec *w,
    int side, const char *canon, const uint8_t *data, size_t size,
    const char *who, void (*view)(const struct sbuf *, int))
{
	unsigned char key[DICE_KEYLEN];
	char *raw[GAME_MAX_SIDES] = { 0 };
	struct game work;
	struct sbuf b;
	int s;

	game_copy(&work, g);
	for (s = 0; s < work.nsides; s++)
		raw[s] = s == side ? fuzz_order_file(&work, w, s, canon) :
		    fuzz_opponent_file(&work, w, s);
	crypto_generichash(key, sizeof key, data, size, NULL, 0);
	fuzz_resolve(&work, w, raw, key, who, "resolution failed");
	for (s = -1; s < work.nsides; s++) {
		sbuf_init(&b);
		work.rules->render_map(&work, s, &b);
		if (view != NULL)
			view(&b, s);
		work.rules->status(&work, s, &b);
		sbuf_free(&b);
	}
	game_free(&work);
}

/* One window of self-play, the dice seeded from master. */
static void
self_play_window(struct game *g, const struct window_spec *w,
    const unsigned char *master, size_t masterlen, const char *who)
{
	unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];
	char *raw[GAME_MAX_SIDES] = { 0 };
	int s;

	for (s = 0; s < g->nsides; s++)
		if (w->sides & (1u << s))
			raw[s] = fuzz_opponent_file(g, w, s);
	dice_seed_from_master(master, masterlen, g->name, w->turn, w->number,
	    seed);
	dice_derive_key(seed, g->name, w->turn, w->number, NULL, 0, key);
	fuzz_resolve(g, w, raw, key, who, "self-play");
}

/* Self-play of one game, handing positions to keep. */
void
fuzz_self_play(const struct ruleset *rules, const char *options,
    const unsigned char *master, size_t masterlen, int max, bool keep_end,
    void (*keep)(const struct game *), const char *who)
{
	struct window_spec w;
	struct game g;
	int guard;

	fuzz_new_game(&g, rules, options, who);
	for (guard = 0; guard < max && rules->next_window(&g, &w); guard++) {
		if (guard > 0)
			keep(&g);
		self_play_window(&g, &w, master, masterlen, who);
		if (g.status == GAME_FINISHED) {
			if (keep_end)
				keep(&g);
			break;
		}
	}
	game_free(&g);
}

/* Parse body as side's orders: the normalised text (caller frees) or
 * NULL if rejected. */
char *
fuzz_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *body)
{
	struct order_errors errs;
	struct sbuf canon;
	void *out = NULL;
	int rc;

	orders_errors_init(&errs);
	sbuf_init(&canon);
	rc = g->rules->parse(g, w, side, body, &out, &canon, &errs);
	if (rc == HP_OK) {
		if (out == NULL || errs.n != 0)
			abort();
		g->rules->free_orders(out);
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
void
fuzz_check_canon(const struct game *g, const struct window_spec *w,
    int side, const char *canon, const char *who)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	char *f = fuzz_order_file(g, w, side, canon), *again;

	orders_errors_init(&errs);
	if (orders_parse_file(f, strlen(f), &h, &body, &errs) != HP_OK) {
		fprintf(stderr, "%s: normalised orders do not parse:\n%s", who,
		    f);
		abort();
	}
	again = fuzz_parse(g, w, side, &body);
	if (again == NULL || strcmp(again, canon) != 0) {
		fprintf(stderr, "%s: normalised orders change (window %s, side "
		    "%d):\n%s---\n%s", who, w->name, side, canon,
		    again ? again : "(rejected)\n");
		abort();
	}
	free(again);
	free(f);
	orders_body_free(&body);
	orders_errors_free(&errs);
}

/* orders_parse_file on the input, checked; true if it parses. */
bool
fuzz_parse_file(const uint8_t *data, size_t size, struct order_header *h,
    struct order_body *body, struct order_errors *errs)
{
	int rc;

	orders_errors_init(errs);
	rc = orders_parse_file((const char *)data, size, h, body, errs);
	if (rc != HP_OK) {
		if (rc != HP_EINVAL || errs->n == 0 || body->v != NULL ||
		    body->n != 0)
			abort();
		free(orders_errors_text(errs));
		orders_errors_free(errs);
		return false;
	}
	if (errs->n != 0 || (h->have & 15) != 15)
		abort();
	return true;
}

void
fuzz_check_input(const struct ruleset *rules, const struct game *states,
    int nstates, int sidebits, bool decisions, const uint8_t *data,
    size_t size, const char *who, void (*view)(const struct sbuf *, int))
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	struct window_spec w;
	const struct game *g;
	char *canon;
	int side;

	if (size < 1 || !fuzz_parse_file(data + 1, size - 1, &h, &body, &errs))
		return;
	g = &states[(data[0] >> sidebits) % nstates];
	side = (data[0] & ((1 << sidebits) - 1)) % g->nsides;
	if (rules->next_window(g, &w) &&
	    (canon = fuzz_parse(g, &w, side, &body)) != NULL) {
		fuzz_check_canon(g, &w, side, canon, who);
		if (decisions || w.kind != WINDOW_DECISION)
			fuzz_check_resolve(g, &w, side, canon, data, size, who,
			    view);
		free(canon);
	}
	orders_body_free(&body);
	orders_errors_free(&errs);
}
