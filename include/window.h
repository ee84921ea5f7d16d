/* window: what an order window is, without its lifecycle: the order file's
 * header, template and hash, the built-in opponent's and the "hold"
 * policy's order files, parsing an accepted file again and resolving a
 * window in memory. Pure functions of the game, the window and the orders
 * (no store, no mail): the lifecycle (turn), the deadline policy, mail,
 * reports, the simulator and the audit all use them. */
#ifndef WINDOW_H
#define WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include "dice.h"
#include "events.h"
#include "game.h"
#include "hexpost.h"
#include "orders.h"
#include "ruleset.h"

/* Resolve a window in memory: parse each side's order file (raw[side], or
 * NULL), run the ruleset step by step with dice d, then decide victory.
 * Pure: the same state, orders and dice give the same result. */
int window_resolve(struct game *, const struct window_spec *,
    const char *const raw[GAME_MAX_SIDES], struct dice *, struct events *,
    struct hp_error *);

/* A resolution that stopped to ask (RESOLVE_ASK) and resumes in the
 * decision window opened after it: the step that asked, and the window
 * whose resolution stopped first, with its order files (its ctx->orders
 * become the resumed ctx->prior). */
struct window_resume {
	int step;                           /* the step that asked */
	struct window_spec w;               /* the window that stopped first */
	const char *prior[GAME_MAX_SIDES];  /* its order files, raw, or NULL */
};

/* How a resolution ended: step is -1 when it was done, else the step that
 * returned RESOLVE_ASK and ask the sides it asked. */
struct window_stop {
	int step;
	unsigned ask;
};

/* A chain of stopped resolutions as a driver that keeps its order files
 * in memory follows it (sim.c, tests): while resuming, res names the
 * window that stopped first and its files, which prior owns. Zeroed:
 * no chain. */
struct window_chain {
	bool resuming;
	struct window_resume res;
	char *prior[GAME_MAX_SIDES];
};

/* The resume to hand the next resolution: &c->res while resuming, else
 * NULL. */
const struct window_resume *window_chain_resume(const struct window_chain *);

/* After window w's resolution, which stopped at step stopstep (-1: it
 * was done): the first stop of a chain takes w's files from raw (set to
 * NULL there), every stop records its step; a resolution that was done
 * ends the chain and frees its files. */
void window_chain_after(struct window_chain *, const struct window_spec *w,
    char *raw[GAME_MAX_SIDES], int stopstep);

/* Free the chain's files (the driver stops). */
void window_chain_free(struct window_chain *);

/* window_resolve with what the engine keeps between windows: the
 * standing orders in force when w opened (standing[side], raw, or NULL;
 * NULL for all), and the stopped resolution w resumes (NULL: none). On a
 * stop (*stop, may be NULL) victory is not decided: the resolution is not
 * over. */
int window_resolve_resume(struct game *, const struct window_spec *,
    const char *const raw[GAME_MAX_SIDES],
    const char *const standing[GAME_MAX_SIDES], const struct window_resume *,
    struct window_stop *stop, struct dice *, struct events *,
    struct hp_error *);

/* window_resolve_resume with this window's orders already parsed
 * (orders[side], the ruleset's form or NULL; taken: freed here and set to
 * NULL, whatever the result). For a caller that has the parsed orders
 * exactly as the text it hashed would parse (sim.c, opponent_parsed). */
int window_resolve_parsed(struct game *, const struct window_spec *,
    void *orders[GAME_MAX_SIDES], const char *const standing[GAME_MAX_SIDES],
    const struct window_resume *, struct window_stop *stop, struct dice *,
    struct events *, struct hp_error *);

/* After a window's resolution ended as stop says: set g's turn and window
 * to the next window (*next; *more false when the game ended, which it
 * then marks finished). After a stop the next window must be a decision
 * window naming exactly the sides asked (else HP_EINTERNAL). */
int window_advance(struct game *, const struct window_stop *,
    struct window_spec *next, bool *more, struct hp_error *);

/* Parse an order file already accepted for window w (standing orders if
 * its header says so). *parsed is the ruleset's form (free_orders), canon
 * (may be NULL) gets the normalised text. A failure here means stored or
 * generated orders no longer parse: a broken invariant, HP_EINTERNAL. */
int window_parse_stored(const struct game *, const struct window_spec *w,
    int side, const char *raw, void **parsed, struct sbuf *canon,
    struct hp_error *);

/* The order file a side should edit for the open window: header and the
 * ruleset's template. Caller frees. */
char *window_order_template(const struct game *, const struct window_spec *,
    int side);

/* Append the header lines (campaign, turn, window, side) of side's order
 * file for window w. */
void window_order_header(const struct game *, const struct window_spec *,
    int side, struct sbuf *);
/* The built-in opponent's order file for side in window w, header and
 * all. Caller frees. */
char *window_opponent_orders(const struct game *, const struct window_spec *,
    int side);
/* The hash of an order file as it enters the dice key: BLAKE2b-256 of its
 * bytes (docs/AUDIT.md). out is 32 bytes. */
void window_order_hash(const char *raw, unsigned char *out);

/* The order file the "hold" deadline policy writes for side in window w
 * (source deadline-hold): the order header with an empty body if the
 * ruleset accepts that, else with the one line "hold". NULL if the ruleset
 * takes neither. Caller frees. deadline.c writes it, the audit checks it. */
char *window_hold_orders(const struct game *, const struct window_spec *w,
    int side);
/* The result a moderator's "end ARG" gives the game (ARG may be ""). */
void window_end_result(const char *arg, char *buf, size_t len);

#endif
