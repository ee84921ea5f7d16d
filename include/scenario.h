/* scenario: scenarios as data files a club can write (docs/SCENARIOS.md).
 *
 * A scenario file is parsed by the generic line parser (parser.h) into
 * this ruleset-neutral form: the map (terrain letters with their legend,
 * elevation, roads), the sides, the units and the markers owned by a side
 * or by nobody, named values and ruleset options, each with the line it
 * came from. A ruleset's setup builds its game from it and reports what
 * it cannot use with scenario_error, so `hexpost scenario check` lists
 * every mistake of a file with its line. The shipped scenarios live in
 * scenarios/<ruleset>/<name>.scn and are compiled into the binary. */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "game.h"
#include "orders.h"

#define SCENARIO_MAX_BYTES (1024 * 1024)
#define SCENARIO_NAME_MAX 32
#define SCENARIO_DIM_MAX 256

struct scenario_unit {
	int line;
	char id[GAME_ID_MAX];
	char kind[GAME_KIND_MAX];
	char side[GAME_ID_MAX];
	char at[8];
	char facing[8];      /* "" when not given */
	char quality[16];    /* "" when not given */
	char carried_by[GAME_ID_MAX]; /* "" when not given */
};

struct scenario_marker {
	int line;
	char kind[GAME_KIND_MAX];
	char side[GAME_ID_MAX]; /* "none": owned by nobody */
	char at[8];
};

struct scenario_side {
	int line;
	char name[GAME_ID_MAX];
	char label[GAME_NAME_MAX];
};

/* A statement the ruleset interprets: "var: NAME VALUE" or
 * "option: NAME ARGS...". */
struct scenario_item {
	int line;
	char name[32];
	char value[128];
};

struct scenario {
	char ruleset[32];
	char name[SCENARIO_NAME_MAX];
	char title[GAME_NAME_MAX];
	int cols, rows;
	int map_line;
	char legend[256][GAME_TERRAIN_MAX]; /* terrain of each letter (byte) */
	int legend_line[256];               /* 0: letter not defined */
	char **terrain;      /* rows strings of cols letters */
	int *terrain_line;
	int nterrain;
	char **elevation;    /* rows strings of cols digits, or none */
	int *elevation_line;
	int nelevation;
	char roads[1024];    /* hex labels, blank-separated */
	int roads_line;
	struct scenario_side sides[GAME_MAX_SIDES];
	int nsides;
	struct scenario_unit *units;
	int nunits;
	struct scenario_marker *markers;
	int nmarkers;
	struct scenario_item *vars;
	int nvars;
	struct scenario_item *options;
	int noptions;
	struct scenario_item *placeholders;
	int nplaceholders;
	int turns;           /* 0: the ruleset's default */
	int turns_line;
	/* The file as read, its SHA-256 in hex, and where errors go. */
	char *text;
	size_t len;
	char hash[65];
	struct order_errors *errs;
};

/* Parse text into sc (freed with scenario_free); every error goes to errs
 * with its line, and sc->errs keeps pointing at errs for the ruleset's
 * setup. Returns HP_OK, HP_EINVAL or HP_ENOMEM-like codes. */
int scenario_parse(struct scenario *sc, const char *text, size_t len,
    struct order_errors *errs);
void scenario_free(struct scenario *sc);

/* Load the scenario named by spec for ruleset: a shipped scenario's name
 * ("river-crossing"), or the path of a file (anything with a '/' or
 * ending in ".scn"). NULL or "" is the ruleset's default. On a parse
 * error err says how many and errs lists them. */
int scenario_load(struct scenario *sc, const char *ruleset,
    const char *default_name, const char *spec, struct order_errors *errs,
    struct hp_error *err);

/* Parse a scenario from its stored text (a campaign's or a bundle's). */
int scenario_from_text(struct scenario *sc, const char *text,
    struct order_errors *errs, struct hp_error *err);

/* Record a ruleset's complaint about line of the scenario. */
void scenario_error(const struct scenario *sc, int line, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/* The value of "var: NAME" (def when absent). */
int scenario_var(const struct scenario *sc, const char *name, int def);
/* The option statement NAME, or NULL. */
const struct scenario_item *scenario_option(const struct scenario *sc,
    const char *name);

/* The shipped scenarios of ruleset (NULL: all), one "ruleset/name" per
 * entry; *n is set. The array is the caller's; the strings are static. */
const char **scenario_list(const char *ruleset, size_t *n);

/* A scenario being built into a game by a ruleset's setup: the game (the
 * caller's), the scenario and how many complaints were made so far. */
struct scenario_build {
	struct game *g;
	const struct scenario *sc;
	int errors;
};

/* Record a complaint about line of b's scenario and count it. */
void scenario_build_bad(struct scenario_build *b, int line, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
/* Parse label into h, a hex of b's map; false after a complaint
 * "WHAT: "LABEL" is not a hex of this CxR map". */
bool scenario_build_hex(struct scenario_build *b, int line, const char *what,
    const char *label, struct hex *h);

/* The option "edge HEX DIR KIND" (nwords the words given): the obstacle
 * KIND, one of names[1..nkinds-1], on HEX's hexside toward DIR (n ne se s
 * sw nw) and its neighbour's, as edge codes; false after a complaint. */
bool scenario_build_edge(struct scenario_build *b, int line, int nwords,
    const char *hex, const char *dir, const char *kind,
    const char *const *names, int nkinds);
/* The option "home SIDE north|south|east|west" (nwords the words given):
 * var home.SIDE, the edge's index; false after a complaint. */
bool scenario_build_home(struct scenario_build *b, int line, int nwords,
    const char *side, const char *edge);

#endif
