/* game: the in-memory state of one campaign, loaded from and saved to the
 * store. The engine core knows no rule of any game: every field below that
 * carries game meaning (unit status, strength, flags, vars) is interpreted
 * by the campaign's ruleset. */
#ifndef GAME_H
#define GAME_H

#include <stdbool.h>

#include "hex.h"
#include "hexpost.h"

#define GAME_NAME_MAX 64
#define GAME_ID_MAX 16
#define GAME_KIND_MAX 24
#define GAME_MAX_SIDES 4
/* Limits far above any table (a 6'x4' table at 1 cm a hex is 22,326 hexes);
 * data that reaches one sets the game's error (game_error), never aborts. */
#define GAME_MAX_UNITS 16384
#define GAME_MAX_VARS 4096
#define GAME_MAX_HEXES 65536
#define GAME_SIDE_NONE (-1)  /* unit side of a neutral marker (wire, smoke) */
#define GAME_UNIT_X 8 /* ruleset-defined extra integer slots per unit */
#define GAME_TERRAIN_MAX 16

enum game_status { GAME_SETUP, GAME_ACTIVE, GAME_FINISHED };

struct game_side {
	char name[GAME_ID_MAX];   /* order-file name, e.g. "blue" */
	char label[GAME_NAME_MAX];/* for people, e.g. "Blue platoon" */
	bool ai;                  /* played by the built-in opponent */
	char *standing;           /* raw standing orders or NULL; owned */
};

struct game_unit {
	char id[GAME_ID_MAX];     /* order-file name, e.g. "1", "pc" */
	char kind[GAME_KIND_MAX]; /* ruleset type name */
	char name[GAME_NAME_MAX]; /* for people, e.g. "1 Section" */
	int side;                 /* 0..nsides-1, or GAME_SIDE_NONE */
	bool placed;              /* on the map */
	struct hex pos;
	int status;               /* ruleset meaning, e.g. fresh/spent */
	int strength;
	int facing;               /* 0..5, -1 none */
	int attached;             /* index of the unit this one is with, -1 */
	int flags;
	int x[GAME_UNIT_X];
};

struct game_hex {
	struct hex h;
	char terrain[GAME_TERRAIN_MAX];
	int elevation;
	int edge[6];              /* hexside feature codes, ruleset meaning */
};

struct game_var {
	char key[32];
	int val;
};

struct game {
	char name[GAME_NAME_MAX];
	const struct ruleset *rules;
	char scenario[GAME_NAME_MAX];
	char options[256];        /* "key=value,key" as given at creation */
	enum game_status status;
	char result[128];         /* final result in words, when finished */
	int turn;                 /* current turn, 1-based */
	int window;               /* current window number within the turn */

	struct hex_layout layout;
	struct game_hex *hexes;   /* owned, nhex entries */
	int nhex;

	struct game_side sides[GAME_MAX_SIDES];
	int nsides;

	struct game_unit *units;  /* owned, nunits entries */
	int nunits;

	struct game_var *vars;    /* owned, nvars entries */
	int nvars;

	/* Ruleset-owned state of any shape and size (decks, hands, queued
	 * plans, records): canonical text that the ruleset alone writes and
	 * parses, saved and loaded with the campaign, copied by game_copy and
	 * compared by the audit's replay. NULL: none. Owned. */
	char *rstate;

	/* Sticky error: set when data reached a limit (GAME_MAX_*); adding
	 * more then writes into the sinks below, harmlessly, and the engine
	 * stops that campaign with the message (game_error). */
	char error[160];
	struct game_unit sink_unit;
	struct game_hex sink_hex;

	/* Index of hexes by position (game.c), for game_hex_at: cell
	 * (q - hexidx_q0) + (r - hexidx_r0) * hexidx_w holds index + 1, 0
	 * for no hex. It is good for the hexes array hexidx_of holding
	 * hexidx_n hexes and is rebuilt on a lookup when those change.
	 * Owned like the arrays above (game_copy copies it, game_free frees
	 * it); NULL until the first lookup. */
	int *hexidx;
	const struct game_hex *hexidx_of;
	int hexidx_n, hexidx_q0, hexidx_r0, hexidx_w, hexidx_h;
};

/* Allocate the arrays of an empty game; game_free releases them. */
void game_init(struct game *);
void game_free(struct game *);
/* Deep copy (for replays and the opponent's look-ahead); dst is initialised. */
void game_copy(struct game *dst, const struct game *src);

int game_side_index(const struct game *, const char *name);
/* The arrays grow as units and hexes are added, and may move: a pointer
 * into units or hexes (from game_add_unit, game_unit, game_add_hex,
 * game_hex_at) is good until the next game_add_unit or game_add_hex. */
struct game_unit *game_add_unit(struct game *, const char *id,
    const char *kind, const char *name, int side);
struct game_unit *game_unit(struct game *, const char *id);
int game_unit_index(const struct game *, const char *id);
struct game_hex *game_add_hex(struct game *, struct hex, const char *terrain);
struct game_hex *game_hex_at(struct game *, struct hex);
const struct game_hex *game_hex_at_c(const struct game *, struct hex);
bool game_on_map(const struct game *, struct hex);

int game_var(const struct game *, const char *key, int dflt);
/* The limit the game's data reached (its message), or NULL when none. */
const char *game_error(const struct game *);
/* Replace the ruleset-owned state with a copy of text (NULL clears it). */
void game_set_rstate(struct game *, const char *text);
void game_set_var(struct game *, const char *key, int val);

/* Campaign options: "a=1,b" style. Returns the value of key (or "" for a bare
 * flag) or NULL when absent. The returned pointer is into a static buffer. */
const char *game_option(const struct game *, const char *key);
bool game_option_flag(const struct game *, const char *key);

const char *game_strstatus(enum game_status);

/* Label of a hex for people; buf must be >= 8 bytes. */
char *game_label(const struct game *, struct hex, char *buf, size_t len);

#endif
