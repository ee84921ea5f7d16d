/* platoon: the sci-fi infantry platoon rules (seed 001), two to four
 * sides. Profiles, terrain, geometry and the parsed order form are exposed
 * for the unit tests; every reading of the seed is in docs/rules/platoon.md.
 * Scale: one hex is 2 cm; rule arithmetic is in cm. */
#ifndef PLATOON_H
#define PLATOON_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "game.h"
#include "hex.h"
#include "ruleset.h"

#define PLT_CM_PER_HEX 2
#define PLT_SIGHT_CM 100
#define PLT_FF_CM 20
#define PLT_FF_LONG_CM 30
#define PLT_FF_SHORT_CM 10     /* "< 10cm" */
#define PLT_HW_CM 40
#define PLT_HW_LONG_CM 100
#define PLT_HW_SHORT_CM 12     /* "< 12cm" (text); var hw.short.cm */

/* A profile (the seed's table, or a scenario's "option: profile"). */
#define PLT_PROFILES_MAX 16
struct plt_profile {
	char id[GAME_KIND_MAX];
	char name[GAME_NAME_MAX];
	int move;          /* cm */
	int ff[2];         /* fresh / reduced */
	int hw[2];
	int cc[2];
	int armour;
	int points;
};

/* Terrain kinds (game_hex.terrain names). */
struct plt_terrain {
	const char *name;
	int cover;         /* armour bonus */
	bool area;         /* blocks sight beyond its first hex */
	bool rough;        /* costs double */
	bool impassable;
};

/* Linear obstacles on hexsides: game_hex.edge[dir] codes. */
enum plt_edge { PLT_E_NONE, PLT_E_HEDGE, PLT_E_FENCE, PLT_E_WALL,
	PLT_E_BOCAGE, PLT_E_HIGHWALL, PLT_E_WIRE, PLT_E_NKINDS };

/* Squad (unit of a profile kind): strength 2 fresh, 1 reduced, 0 removed;
 * attached: its platoon's index. Platoon (kind "platoon", not placed):
 * x[] below, flags below. */
#define PLT_PLATOON "platoon"
#define PLT_X_SQUADS0 0   /* squads at the start of the game */
#define PLT_X_ORDER 1     /* order enacted this turn (enum plt_order) */
#define PLT_X_BAD 2       /* lost + reduced after its last morale check */
/* reveal=each: the order marker of the turn, 0 none, else the enum
 * plt_order + 1, plus PLT_MARK_MMM for Move, Move, Move. */
#define PLT_X_MARK 3
#define PLT_MARK_MMM 16
#define PLT_F_SUPP 0x1    /* suppressed */
#define PLT_F_MMM 0x2     /* Move, Move, Move this turn: armour -1 */
#define PLT_F_DONE 0x4    /* has enacted its order this turn */
/* Squad x[] slots. */
#define PLT_X_KILLER 0    /* side+1 that removed or reduced it last */

enum plt_order { PLT_O_NONE, PLT_O_ADVANCE, PLT_O_ASSAULT, PLT_O_FALLBACK,
	PLT_O_ENGAGE, PLT_O_REFORM };
extern const char *const plt_order_names[];

enum plt_home { PLT_NORTH, PLT_SOUTH, PLT_EAST, PLT_WEST };

/* --- parsed orders ------------------------------------------------------ */

#define PLT_PATH_MAX 12
#define PLT_LINES_MAX 64
#define PLT_ORDERS_MAX 64

struct plt_move {
	int squad;
	int n;
	struct hex h[PLT_PATH_MAX];   /* waypoints */
};

struct plt_fire {
	int squad;
	bool hw;
	bool av;
	int n;                        /* dice */
	int target;                   /* squad index */
};

struct plt_cc {
	int squad;
	int n;
	int target;
};

struct plt_order_item {
	int platoon;
	int line;
	enum plt_order kind;
	bool mmm;
	int reform;                   /* squad recovering at once, -1 */
	bool removed;                 /* reveal=each: the marker removed */
	int nmove, nfire, ncc;
	struct plt_move move[PLT_LINES_MAX / 4];
	struct plt_fire fire[PLT_LINES_MAX / 2];
	struct plt_cc cc[PLT_LINES_MAX / 4];
};

enum plt_defend { PLT_D_EVEN, PLT_D_WEAKEST, PLT_D_STRONGEST };

struct plt_orders {
	int side;
	enum plt_defend defend;
	int n, cap;
	struct plt_order_item *o;     /* n items (cap allocated), owned */
};

/* --- map and geometry (plt_map.c) ---------------------------------------- */

/* The profile of squad unit (reduced values in [1]); false if none. */
bool plt_profile(const struct game *, int unit, struct plt_profile *);
const struct plt_terrain *plt_terrain(const struct game *, struct hex);
/* Is u a platoon (not a squad)? (Inline: the rules ask it in every loop;
 * the kind's first sizeof PLT_PLATOON bytes, its NUL included, compared
 * at once: the same as strcmp, kind being a longer array.) */
static inline bool
plt_is_platoon(const struct game_unit *u)
{
	_Static_assert(sizeof u->kind >= sizeof PLT_PLATOON, "kind too short");
	return memcmp(u->kind, PLT_PLATOON, sizeof PLT_PLATOON) == 0;
}
/* A squad on the map (not removed). */
static inline bool
plt_alive(const struct game *g, int unit)
{
	const struct game_unit *u = &g->units[unit];

	return u->placed && u->strength > 0 && !plt_is_platoon(u);
}
/* The squad in h, or -1. */
int plt_squad_at(const struct game *, struct hex);
int plt_edge(const struct game *, struct hex, int dir);
bool plt_road(const struct game *, struct hex);
int plt_elev(const struct game *, struct hex);
/* Cost in cm of moving from a into adjacent b, -1 if impossible. */
int plt_step_cost(const struct game *, struct hex a, struct hex b);
/* Can a squad of side standing at a see b (range, terrain, elevation,
 * non-friendly squads)? */
bool plt_los(const struct game *, int side, struct hex a, struct hex b);
/* The squads on the map by row-major hex index (the squad plt_squad_at
 * finds, or -1): built once for a loop of plt_los_in while no squad moves
 * or is removed. Caller frees. */
int *plt_occupancy(const struct game *);
/* plt_occupancy into occ (cols * rows entries), without the squads of
 * platoon without (-1: none left out). */
void plt_occupancy_fill(const struct game *, int *occ, int without);
/* plt_los with the squads looked up in occ (plt_occupancy; NULL: found
 * by plt_squad_at). */
bool plt_los_in(const struct game *, const int *occ, int side, struct hex a,
    struct hex b);
/* The squads by hex (plt_occupancy) in occ, the caller's (cols * rows
 * entries), filled the first time a line of sight needs them (filled set
 * then; start with it false). */
struct plt_occ_lazy {
	int *occ;
	bool filled;
};
/* plt_los_in with the squads of lz (see above). */
bool plt_los_lazy(const struct game *, struct plt_occ_lazy *, int side,
    struct hex a, struct hex b);
/* Cover of a squad at target against an attacker at from. */
int plt_cover(const struct game *, struct hex target, struct hex from);
int plt_dist_cm(struct hex, struct hex);
/* Squads of platoon p on the map: is it one chain of adjacent squads? */
bool plt_coherent(const struct game *, int platoon);
/* Squad counts of platoon p: on the map, reduced, removed. */
void plt_counts(const struct game *, int platoon, int *alive, int *reduced,
    int *lost);
int plt_mcp(const struct game *, int platoon);
/* All (2) or at least half (1) of its squads in cover, else 0. */
int plt_cover_level(const struct game *, int platoon);
/* Cheapest path from a to a hex next to enemy squad e (contact allowed):
 * its cost in cm (0 if already in contact), the path (without a) in path
 * and its length in *len; -1 if none. */
int plt_path_to_contact(const struct game *, int side, struct hex a, int e,
    struct hex *path, int max, int *len);
/* Victory points of side: the Points of enemy squads it removed, +1 per
 * enemy squad it reduced that is still reduced. */
int plt_score(const struct game *, int side);
/* side's home table edge (enum plt_home). */
int plt_home(const struct game *, int side);
/* Hexes from h to side's home edge. */
int plt_home_dist(const struct game *, int side, struct hex);
/* The nearest enemy squad platoon p sees, -1 if none; *cost its path cost
 * in cm to contact. */
int plt_nearest_enemy(const struct game *, int platoon, int *cost);
/* plt_nearest_enemy with *cost -1 also when dearer than bound cm (the
 * search stops there); bound < 0: no search, *cost -1. */
int plt_nearest_enemy_within(const struct game *, int platoon, int bound,
    int *cost);
/* Cheapest path (cm) from a to b for a squad of side, avoiding other
 * squads' hexes and (unless allow_contact) hexes next to enemy squads
 * except b. Fills path (without a), returns its length or -1. */
int plt_path(const struct game *, int side, struct hex a, struct hex b,
    bool allow_contact, struct hex *path, int max, int *cost);
int plt_setup(struct game *, const struct scenario *, struct hp_error *);
/* A scope in which g's map and the profiles do not change (a turn planned
 * or one step resolved): map look-ups, lines of sight and profiles are
 * kept for it (plt_map.c, "the map cache"). Scopes nest; each begin has
 * its end. Outside one, the same answers, found by a whole check. */
void plt_cache_begin(const struct game *);
void plt_cache_end(void);
/* plt_cache_begin whose checks (the whole map, the profiles) are made
 * when the map or a profile is first asked for inside the scope, if ever
 * (an order file that names no hex checks no map). */
void plt_cache_begin_lazy(const struct game *);
/* plt_cache_begin for a step of a resolution after a step of the same
 * resolution ended (plt_resolve knows): the whole check is left out when
 * the game's hexes are the array last checked whole. */
void plt_cache_continue(const struct game *);
/* "PREFIX.N" into key (size bytes, cut short as snprintf would). */
void plt_key(char *key, size_t size, const char *prefix, int n);
/* The row-major index of the neighbour in direction d of the hex of
 * row-major index i, -1 off the layout. */
int plt_neighbour_index(const struct game *, int i, int d);
/* The squads by hex (plt_occupancy's array) as this thread's last
 * plt_path or plt_path_to_contact found them, with squad mover (left out
 * of that search) at its hex: plt_occupancy's answer when no squad but
 * mover has moved or been removed since that search, inside the scope it
 * ran in. False (occ untouched) when no such search is at hand. */
bool plt_path_squads(const struct game *, int *occ, int mover);
/* The steps a squad of side takes along path (np hexes, from start on),
 * one after another, for at most lim cm in all: each one's cost (cm) into
 * cost[] and its road (plt_road) into road[]; their count. A step stops
 * the walk when it is impossible (plt_step_cost), dearer than what is
 * left, into a squad's hex (occ: plt_occupancy) or, unless contact, into
 * a hex next to a squad of another side. */
int plt_walk_steps(const struct game *, const int *occ, int side,
    bool contact, struct hex start, const struct hex *path, int np, int lim,
    int *cost, bool *road);
/* The row-major index of h on g's layout, -1 off it. */
int plt_hex_index(const struct game *, struct hex);
/* The costs (cm) plt_path finds from a for a squad of side (contact not
 * allowed) to every hex it can reach for at most bound cm, by row-major
 * index into dist (cols * rows entries; -1: dearer or unreached), as if
 * the squads of platoon without (-1: none) were not on the map. */
void plt_costs_within(const struct game *, int side, struct hex a,
    int bound, int without, int *dist);
/* plt_occupancy without the squads of platoon p (as if not on the map).
 * Caller frees. */
int *plt_occupancy_without(const struct game *, int p);
/* When the straight line of steps hexes from a in direction dir is a path
 * plt_costs_within could take (occ: plt_occupancy_without the squads left
 * out) and every step costs the least a step can (PLT_CM_PER_HEX), its
 * cost, which is then the cheapest; else -1 (search). */
int plt_straight_cost(const struct game *, int side, const int *occ,
    struct hex a, int dir, int steps);
/* Squad unit's profile as plt_profile gives it but for its name (empty),
 * NULL if none: inside a scope kept by kind, else good until the next
 * call on this thread. Not to be freed. */
const struct plt_profile *plt_profile_ref(const struct game *, int unit);
void plt_render_map(const struct game *, int side, struct sbuf *);
void plt_status(const struct game *, int side, struct sbuf *);

/* --- orders (plt_orders.c) ----------------------------------------------- */

int plt_parse(const struct game *, const struct window_spec *, int side,
    const struct order_body *, void **out, struct sbuf *canon,
    struct order_errors *errs);
void plt_free_orders(void *);
bool plt_next_window(const struct game *, struct window_spec *);
void plt_order_template(const struct game *, const struct window_spec *,
    int side, struct sbuf *);
/* The default mode's parser of a whole order list (window "orders"),
 * whatever the campaign's reveal mode (the opponent checks its plans). */
int plt_parse_list(const struct game *, int side, const struct order_body *,
    void **out, struct sbuf *canon, struct order_errors *errs);
/* Is the campaign in the faithful mode (reveal=each)? */
bool plt_each(const struct game *);
/* reveal=each: platoon p's order marker, its kind (enum plt_order) or -1
 * if it has none left to reveal this turn; *mmm (may be NULL) its Move,
 * Move, Move. */
int plt_marker(const struct game *, int p, bool *mmm);
/* reveal=each: the side asked for its next reveal, -1 if none. */
int plt_asked(const struct game *);
/* Points of kind (ff/hw/cc: 0/1/2) squad i fires with under order o. */
int plt_points(const struct game *, int squad, int kind, enum plt_order o,
    bool mmm);

/* --- rules (plt_rules.c) --------------------------------------------------- */

/* Initiative order of the g->nsides sides into order[]. */
void plt_initiative(const struct game *, struct dice *, struct events *,
    int *order);
enum resolve_rc plt_resolve(struct resolve_ctx *);
void plt_victory(struct game *, struct events *);
/* Enact one order (tests call it directly). */
void plt_enact(struct game *, const struct plt_orders *all[],
    const struct plt_order_item *, struct dice *, struct events *);

/* --- opponent (plt_ai.c) ---------------------------------------------------- */

void plt_opponent(const struct game *, const struct window_spec *, int side,
    struct sbuf *);


/* --- the opponent's reach test (plt_map.c, appended) ------------------------ */

/* Is some goal (ngoal row-major indices) reached from a start (src, nsrc)
 * for at most bound cm, by the steps of the path search (dijkstra_from:
 * contact, the squads of platoon without left out)? The same answer as
 * that search's costs, found near the way only. centre (may be NULL): a
 * hex every goal is next to (the search is guided by it). */
bool plt_reach_within(const struct game *, int side, const struct hex *src,
    int nsrc, bool contact, const int *goal, int ngoal, int bound,
    int without, const struct hex *centre);

#endif
