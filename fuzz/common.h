/* Helpers the order-file harnesses (fuzz_orders.c, fuzz_pw_orders.c)
 * share: games, order files, the built-in opponent's self-play, and the
 * checks every ruleset's parse must pass. Each aborts, naming the harness
 * (who), when a check fails. Named without the fuzz_ prefix so neither the
 * build nor fuzz/run.sh takes it for a harness. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dice.h"
#include "orders.h"
#include "ruleset.h"

/* A fresh game of rules with options into g, named "fuzz" (caller frees
 * with game_free). */
void fuzz_new_game(struct game *g, const struct ruleset *rules,
    const char *options, const char *who);
/* The order file of side for window w: its header, then body. Caller
 * frees. */
char *fuzz_order_file(const struct game *g, const struct window_spec *w,
    int side, const char *body);
/* The built-in opponent's order file of side for window w. Caller frees. */
char *fuzz_opponent_file(const struct game *g, const struct window_spec *w,
    int side);
/* Resolve window w of g from the order files raw (freed here) with the
 * dice stream of key; what names the step in the message on failure. */
void fuzz_resolve(struct game *g, const struct window_spec *w,
    char *raw[GAME_MAX_SIDES], const unsigned char key[DICE_KEYLEN],
    const char *who, const char *what);
/* Self-play of a game of rules with options by the built-in opponent, the
 * dice seeded from master as a demo campaign's are, for at most max
 * windows: keep is called with the position each window but the first
 * opens on and, if keep_end, with the finished game. */
void fuzz_self_play(const struct ruleset *rules, const char *options,
    const unsigned char *master, size_t masterlen, int max, bool keep_end,
    void (*keep)(const struct game *), const char *who);
/* Parse body as side's orders for window w against g: the normalised text
 * (caller frees) if accepted, NULL if rejected; accepted orders come with
 * no errors, rejected ones with errors and no orders. */
char *fuzz_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *body);
/* Resolve the turn of a copy of g with canon as side's orders (the others
 * the opponent's), the dice keyed by data's hash, then draw every side's map
 * (checked by view when not NULL) and status. */
void fuzz_check_resolve(const struct game *g, const struct window_spec *w,
    int side, const char *canon, const uint8_t *data, size_t size,
    const char *who, void (*view)(const struct sbuf *, int));
/* The normalised text canon of side's orders must parse again, to itself. */
void fuzz_check_canon(const struct game *g, const struct window_spec *w,
    int side, const char *canon, const char *who);
/* orders_parse_file on the input: true with h, body and errs filled (the
 * caller frees body and errs) if the file parses, with no errors and the
 * four header fields; false, all freed, if it does not, with errors and no
 * body. */
bool fuzz_parse_file(const uint8_t *data, size_t size,
    struct order_header *h, struct order_body *body,
    struct order_errors *errs);

/* One input against the positions states[0..nstates-1] of rules: the
 * first byte's bits above its low sidebits pick the position, those bits
 * the side (modulo the position's sides); the rest is an order file for
 * fuzz_parse_file. Orders the ruleset accepts pass fuzz_check_canon and,
 * unless the window is a decision and !decisions, fuzz_check_resolve with
 * view. */
void fuzz_check_input(const struct ruleset *rules, const struct game *states,
    int nstates, int sidebits, bool decisions, const uint8_t *data,
    size_t size, const char *who, void (*view)(const struct sbuf *, int));

#endif
