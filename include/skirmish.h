/* skirmish: the WWII skirmish quick-reference sheet (seed 003), two sides,
 * with hidden deployment and spotting. One hex is 2 inches; every distance
 * of the sheet is converted in docs/rules/skirmish-ww2.md. Tables, terrain,
 * geometry and the parsed order form are exposed for the unit tests. */
#ifndef SKIRMISH_H
#define SKIRMISH_H

#include <stdbool.h>
#include <stddef.h>

#include "game.h"
#include "hex.h"
#include "ruleset.h"

#define SKM_IN_PER_HEX 2
#define SKM_MOVE_A 6            /* 12" At the Double */
#define SKM_MOVE_M 4            /* 8" Move & Fire */
#define SKM_MOVE_C 2            /* 4" Cautious Advance */
#define SKM_CA_HEX 2            /* 4" close assault and its reaction */
#define SKM_AUTO_SPOT 2         /* 4" or less: spotted automatically */
#define SKM_FAR_SPOT 8          /* over 16": +1 to spot */
#define SKM_ADJUST_HEX 2        /* adjust fire by up to 4" */
#define SKM_ROUT_HEX 6          /* compulsory move of broken troops: 12" */
#define SKM_LOS_BLOCK 4         /* hindrance weight that blocks sight */

/* Morale levels (unit status). */
enum skm_morale { SKM_GOOD, SKM_SUPP, SKM_BROKEN, SKM_DISPERSED };
extern const char *const skm_morale_names[];

/* Cover classes of table 6.2. */
enum skm_cover { SKM_OPEN, SKM_LIGHT, SKM_HEAVY, SKM_REINF };
extern const char *const skm_cover_names[];

/* Terrain kinds (game_hex.terrain names). */
struct skm_terrain {
	const char *name;
	char code;          /* on the drawn map */
	int cover;          /* enum skm_cover */
	int hindrance;      /* +1 to hit for each instance on the line */
	int height;         /* above its hex's elevation, for sight */
	bool solid;         /* blocks sight at its height (buildings) */
	int floors;         /* storeys an element may stand on (buildings) */
	bool woods;         /* tree bursts (8.3) */
	int cost;           /* hexes of allowance to enter */
};
const struct skm_terrain *skm_terrain(const struct game *, struct hex);

/* Linear obstacles on hexsides: game_hex.edge[dir] codes. */
enum skm_edge { SKM_E_NONE, SKM_E_HEDGE, SKM_E_WALL, SKM_E_NKINDS };

/* Element kinds (the scenario file may change the numbers). */
struct skm_kind {
	char id[GAME_KIND_MAX];
	char name[GAME_NAME_MAX];
	int figures;        /* men (a support weapon: its full crew) */
	int dice;           /* fire dice: per figure, or fixed for a weapon */
	bool sw;            /* support weapon with a crew */
	int range;          /* hexes; 0: no direct fire */
	int longr;          /* beyond this many hexes: long range */
	bool indirect;      /* fires indirect HE and smoke (8.2) */
	int heweight;       /* subtracted from HE target numbers */
	bool spotter;       /* a direct spotter (8.2) */
	bool leader;        /* leadership bonus (10.1) within 3 hexes */
	bool dhe;           /* fires direct HE (6.3 exceptions, HE weight) */
};
bool skm_kind_of(const struct game *, const char *kind, struct skm_kind *);

/* Unit fields: strength = figures left; status = enum skm_morale. */
#define SKM_X_FULL 0      /* figures (crew) at full strength */
#define SKM_X_QUAL 1      /* 0 regular, 1 green, 2 veteran */
#define SKM_X_FLOOR 2     /* storey in a building, 0 ground */
#define SKM_X_KILLS 3     /* figures lost this turn (for morale) */
#define SKM_X_ORDER 4     /* order letter of this turn, 0 none */
#define SKM_X_START 5     /* hex at the turn's start, col*1000+row+1 (0:
                           * unset): paths are read from it */
#define SKM_F_HIDDEN 0x1  /* hidden from the enemy */
#define SKM_F_MOVED 0x2   /* moved this turn */
#define SKM_F_DOUBLE 0x4  /* used At the Double this turn */
#define SKM_F_OPFIRE 0x8  /* has placed its opportunity-fire marker */

enum skm_qual { SKM_REGULAR, SKM_GREEN, SKM_VETERAN };

/* --- parsed orders ------------------------------------------------------ */

#define SKM_PATH_MAX 8
#define SKM_ITEMS_MAX 64

enum skm_ind { SKM_IND_NONE, SKM_IND_HE, SKM_IND_SMOKE };
enum skm_react { SKM_R_STAND, SKM_R_COUNTER, SKM_R_WITHDRAW };

struct skm_item {
	int line;
	int unit;
	char order;                  /* 'A' 'M' 'C' 'F' */
	int npath;
	struct hex path[SKM_PATH_MAX];
	int floor;                   /* -1: unchanged */
	int target;                  /* direct fire target unit, -1 */
	bool opfire;
	int oprange;                 /* 0: the weapon's range */
	int ind;                     /* enum skm_ind */
	struct hex indhex;
	int spotter;                 /* unit, -1: the firer itself */
	int assault;                 /* CA target unit, -1 */
};

struct skm_orders {
	int n;
	struct skm_item it[SKM_ITEMS_MAX];
	int initiative;              /* -1 not given, 0 move first, 1 second */
	int nreact;
	int react_unit[SKM_ITEMS_MAX];
	int react[SKM_ITEMS_MAX];
	/* The faithful mode's answers: opportunity-fire markers placed. */
	int nop;
	int op_unit[SKM_ITEMS_MAX];
	int op_target[SKM_ITEMS_MAX];     /* -1: none */
	struct hex op_hex[SKM_ITEMS_MAX];
	/* The faithful mode's answer: the order of the melees (attackers). */
	int nmelee;
	int melee[SKM_ITEMS_MAX];
};

/* --- geometry and state (skm_map.c) -------------------------------------- */

bool skm_alive(const struct game *, int unit);
int skm_elev(const struct game *, struct hex);
int skm_edge(const struct game *, struct hex, int dir);
int skm_home(const struct game *, int side);   /* 0 n, 1 s, 2 e, 3 w */
int skm_home_dist(const struct game *, int side, struct hex);
int skm_dir(const struct game *, int side, int k);
void skm_dirs(const struct game *, int side, int d[6]);
/* Hindrance weight on the line from a to b (ends excluded, smoke in b
 * included); -1 when sight is blocked. Eyes at floors fa and fb. */
int skm_sight(const struct game *, struct hex a, int fa, struct hex b,
    int fb);
bool skm_los_units(const struct game *, int a, int b);
/* The sight cache (skm_map.c): between begin and end, lines of sight of
 * g (the same game pointer) reuse a copy of its map and the lines already
 * walked on it while no smoke lies. g's map must not change in between;
 * calls nest; per thread. */
void skm_sight_begin(const struct game *g);
void skm_sight_end(void);
/* Cover class of a target at t against fire from f (terrain or obstacle). */
int skm_cover(const struct game *, struct hex t, struct hex f);
/* May side see unit (own, or not hidden)? */
bool skm_visible(const struct game *, int side, int unit);
int skm_smoke(const struct game *, struct hex);   /* 0, 2 or 4 */
bool skm_smoke_any(const struct game *);         /* smoke anywhere? */
void skm_set_smoke(struct game *, struct hex, int level);
/* The rstate line "cf UNIT HEX STATE" of unit: state 0 none, 1 call fire
 * (failed), 2 fire for effect. */
int skm_cf(const struct game *, int unit, struct hex *h);
void skm_set_cf(struct game *, int unit, struct hex h, int state);
int skm_setup(struct game *, const struct scenario *, struct hp_error *);
void skm_render_map(const struct game *, int side, struct sbuf *);
void skm_status(const struct game *, int side, struct sbuf *);
void skm_redact(struct game *, int side);
bool skm_vis_cb(const struct game *, int side, int unit);
int skm_step_cost(const struct game *, struct hex a, struct hex b);

/* --- orders (skm_orders.c) ------------------------------------------------ */

bool skm_next_window(const struct game *, struct window_spec *);
int skm_parse(const struct game *, const struct window_spec *, int side,
    const struct order_body *, void **out, struct sbuf *canon,
    struct order_errors *);
void skm_free_orders(void *);
void skm_order_template(const struct game *, const struct window_spec *,
    int side, struct sbuf *);
/* The line "melee A B ..." of the attackers asked, in the units' order. */
void skm_melee_answer(const struct game *, struct sbuf *);
/* The lines "react ID stand" of side's elements asked to react. */
void skm_react_answer(const struct game *, int side, struct sbuf *);

/* --- tables and resolution (skm_rules.c) ---------------------------------- */

/* 6.2: the to-hit and to-kill numbers of a cover class. */
int skm_to_hit(int cover);
int skm_to_kill(int cover);
/* 6.3: the to-hit modifier of direct fire from unit f at unit t standing
 * at th (its opportunity-fire spot), and the words of each into why. */
int skm_fire_mod(const struct game *, int f, int t, struct hex th,
    bool stationary, bool direct_he, char *why, size_t len);
/* 8.2: the targeting number of firer f with spotter s (-1: f) at h. */
int skm_target_number(const struct game *, int f, int s, struct hex h,
    bool smoke, bool subsequent, char *why, size_t len);
/* 8.3: HE hit and kill numbers of unit t from a blast centred at c. */
void skm_he_numbers(const struct game *, int f, int t, struct hex c,
    int *hit, int *kill);
/* 10.1: the morale test number of unit u (kills this test, rally, severe). */
int skm_morale_number(const struct game *, int u, int kills, bool rally,
    bool severe);
/* 11.1: the number to spot hidden unit u (0 automatic, -1 unseen). */
int skm_spot_number(const struct game *, int u);
/* 9.1: the close combat number of unit u. */
int skm_cc_number(const struct game *, int u);
enum resolve_rc skm_resolve(struct resolve_ctx *);
/* Is unit asked for its close-assault reaction (the faithful mode)? */
bool skm_react_asked(const struct game *, int unit);
/* Is unit's close assault one whose order the initiative winner is
 * asked (the faithful mode)? */
bool skm_melee_asked(const struct game *, int unit);
/* Is unit's state mid-turn (a stopped resolution of the faithful mode)? */
bool skm_mid_turn(const struct game *, int unit);
/* Is unit asked where to place its opportunity-fire marker? */
bool skm_op_asked(const struct game *, int unit);
/* Did unit pass through h in this turn's movement (the faithful mode)? */
bool skm_moved_through(const struct game *, int unit, struct hex h);
/* How many hexes unit entered in this turn's movement (the faithful
 * mode), and the k-th of them (0-based). */
int skm_moved_n(const struct game *, int unit);
struct hex skm_moved_hex(const struct game *, int unit, int k);
/* May unit f place an opportunity-fire marker on unit t at h (sight and
 * range, the marker's own range rng or 0)? */
bool skm_op_ok(const struct game *, int f, int t, struct hex h, int rng);
void skm_victory(struct game *, struct events *);

/* --- the built-in opponent (skm_ai.c) ------------------------------------- */

void skm_opponent(const struct game *, const struct window_spec *, int side,
    struct sbuf *);

#endif
