/* ruleset: the pluggable game rules. One implementation per file (or folder)
 * under src/rules/, registered statically in ruleset.c. The engine opens
 * order windows, collects and stores orders, draws dice and persists state;
 * every rule of a game lives behind this interface. See docs/ARCHITECTURE.md
 * for how each of the five seeds maps onto it. */
#ifndef RULESET_H
#define RULESET_H

#include <stdbool.h>

#include "dice.h"
#include "events.h"
#include "game.h"
#include "hexpost.h"
#include "orders.h"
#include "picture.h"
#include "scenario.h"

/* A window is a round of orders: which sides must send a file before it can
 * be resolved. Simultaneous windows name several sides, sequential ones one;
 * a turn may have several; a decision window asks one or more sides, each
 * its own question (its order_template), raised mid-resolution by
 * RESOLVE_ASK. Window numbers are unique within a turn (decision windows
 * included). A window may name no side (a turn-0 `deploy` window that only
 * rolls dice before the first turn, G7): it resolves at once. */
enum window_kind { WINDOW_ORDERS, WINDOW_DECISION };

#define WINDOW_NAME_MAX 24
struct window_spec {
	int turn;
	int number;                 /* 1-based within the turn */
	char name[WINDOW_NAME_MAX]; /* header "window:" value, e.g. "blue" */
	enum window_kind kind;
	unsigned sides;             /* bit per side that must send orders */
	char prompt[256];           /* for a decision: the question */
};

/* What a resolution step returns. */
enum resolve_rc {
	RESOLVE_CONTINUE = 1, /* step done; call again with step + 1 */
	RESOLVE_DONE = 0,     /* window resolved */
	RESOLVE_ERROR = -1,   /* broken invariant; message in ctx->err */
	/* Stop and ask the sides in ctx->ask (G1, G4): the window closes as
	 * resolved so far (its dice log, events and report), the ruleset's
	 * state is saved, and next_window must then return a WINDOW_DECISION
	 * naming exactly ctx->ask (each side's question is its
	 * order_template). When the answers are in, that window resolves by
	 * calling resolve again with step + 1, ctx->resumed set, the answers
	 * in ctx->orders and the stopped window's orders in ctx->prior. */
	RESOLVE_ASK = 2
};

struct resolve_ctx {
	struct game *g;
	const struct window_spec *w;
	/* Parsed orders per side, or NULL. For a side that w->sides does not
	 * name, these are its standing orders (parsed with window "standing"),
	 * recorded with the window so a replay sees exactly what was used. */
	void *orders[GAME_MAX_SIDES];
	struct dice *dice;
	struct events *ev;
	int step;                       /* 0-based */
	struct hp_error *err;
	/* Resuming a stopped resolution (RESOLVE_ASK): resumed is set and
	 * prior[side] holds the parsed orders of the window whose resolution
	 * stopped (the first window of a chain of stops), parsed again from
	 * their stored files with that window's spec; ctx->orders holds the
	 * answers. A ruleset whose resolution stops must accept its own
	 * orders again in any state its resolution reaches before the stop
	 * (check feasibility in resolve, not parse). NULL otherwise. */
	bool resumed;
	void *prior[GAME_MAX_SIDES];
	/* Standing orders of every side that has them (G3), parsed with
	 * window "standing" from the text in force when the window opened
	 * (a later file, a replacement player's, counts from the next
	 * window); their hashes are in the dice key. NULL: none. */
	void *standing[GAME_MAX_SIDES];
	/* Set by resolve before it returns RESOLVE_ASK: bit per side asked. */
	unsigned ask;
	/* This resolution's number, unique in the process (never 0): a
	 * ruleset keeping something from one step to the next of the same
	 * resolution (platoon's map cache) tells the next step from the
	 * first step of another resolution by it. Set by window.c. */
	unsigned long serial;
};

struct ruleset {
	const char *name;          /* "fire-and-movement" */
	const char *title;
	const char *seed;          /* seed document it implements */
	const char *options_help;  /* campaign options, one per line */

	/* Build the initial state from a parsed scenario (scenario.h).
	 * Complaints about the scenario go to scenario_error with their line;
	 * err says how many. */
	int (*setup)(struct game *, const struct scenario *sc,
	    struct hp_error *);
	/* The shipped scenario used when none is named (a file
	 * scenarios/<name>/<default_scenario>.scn). */
	const char *default_scenario;
	/* Describe the window to open now. False when the game has ended. */
	bool (*next_window)(const struct game *, struct window_spec *);
	/* Parse and validate a side's order lines for window w (w->name may be
	 * "standing" for standing orders). On success *out is the ruleset's
	 * parsed form and canon its normalised text; on failure every problem
	 * is appended to errs with its line number. */
	int (*parse)(const struct game *, const struct window_spec *, int side,
	    const struct order_body *, void **out, struct sbuf *canon,
	    struct order_errors *errs);
	void (*free_orders)(void *);
	/* Resolve one step of the window (phases, in order). Pure: the result
	 * depends only on the state, the orders and the dice. */
	enum resolve_rc (*resolve)(struct resolve_ctx *);
	/* After each window: decide victory, set g->status and g->result. */
	void (*victory)(struct game *, struct events *);
	/* The built-in opponent: write an order body for side in window w. */
	void (*opponent)(const struct game *, const struct window_spec *,
	    int side, struct sbuf *);
	/* Draw the map as side sees it (-1: the moderator, who sees all). */
	void (*render_map)(const struct game *, int side, struct sbuf *);
	/* Status lines for reports (victory track, strengths). */
	void (*status)(const struct game *, int side, struct sbuf *);
	/* A ready-to-edit order body for side in window w, commented. */
	void (*order_template)(const struct game *, const struct window_spec *,
	    int side, struct sbuf *);
	/* A ruleset for tests of the engine: `rules list` marks it "(test)"
	 * and `campaign new` takes it only with --allow-test-ruleset. */
	bool test;
	/* Hidden information (include/view.h, docs/AUDIT.md "Sealed dice"):
	 * the campaign gets a sealed dice stream, and each side's order file
	 * enters the dice key through its nonce alone (an opaque commitment),
	 * so no side's public dice depend on another's hidden orders. */
	bool hidden;
	/* May side see unit (index)? NULL: every unit is visible. The view
	 * (view.h) drops the others from everything side is shown. */
	bool (*visible)(const struct game *, int side, int unit);
	/* May side see hex h? NULL: every hex. */
	bool (*hex_visible)(const struct game *, int side, struct hex h);
	/* Strip from g (side's copy, from view_game) the ruleset-owned state
	 * (rstate, vars) side may not see. NULL: nothing to strip. */
	void (*redact)(struct game *, int side);
	/* The map model of side's picture (picture.h), from side's view
	 * (view_game) and the events side may see (ev), the same view its
	 * ASCII map is drawn from. NULL: picmodel_default and
	 * picmodel_arrows (picmodel.h), which draw every placed unit of the
	 * view with its id, kind, strength and facing: a ruleset whose map
	 * shows less of a unit it lets a side see supplies its own. */
	void (*picture)(const struct game *, int side, const struct events *ev,
	    struct pic_model *);
	/* The built-in opponent with its orders already parsed (optional,
	 * for `simulate`): append to b exactly the body opponent appends, and
	 * return what parse makes of the order file (window_order_header's
	 * four lines, then that body) for w and side, byte for byte (free it
	 * with free_orders). NULL here: simulate parses the text again. */
	void *(*opponent_parsed)(const struct game *, const struct window_spec *,
	    int side, struct sbuf *b);
};

extern const struct ruleset ruleset_fam;
extern const struct ruleset ruleset_pw;
extern const struct ruleset ruleset_test_decide;
extern const struct ruleset ruleset_test_fog;
extern const struct ruleset ruleset_platoon;
extern const struct ruleset ruleset_skirmish;
extern const struct ruleset ruleset_cards_ap;

const struct ruleset *ruleset_find(const char *name);
const struct ruleset *const *ruleset_all(void);

/* Build g's initial state (g->rules, name and options set) from a
 * scenario: text, a stored scenario's exact text, when not NULL, else spec
 * (a shipped scenario's name or a file's path; NULL or "": the ruleset's
 * default). On success *sc_text (when sc_text is not NULL) is the text used,
 * NULL for a built-in scenario (caller frees). errs, when not NULL, gets
 * every complaint about the scenario with its line. */
int ruleset_setup(struct game *g, const char *spec, const char *text,
    char **sc_text, struct order_errors *errs, struct hp_error *err);

/* Check a scenario file (len bytes of text) as `hexpost scenario check`
 * does: its shape, then, if that is clean, what its ruleset makes of it
 * with campaign options. *sc is the parse (caller frees with
 * scenario_free); every error goes to errs. HP_OK or HP_EINVAL. */
int ruleset_scenario_check(const char *text, size_t len, const char *options,
    struct scenario *sc, struct order_errors *errs);

#endif
