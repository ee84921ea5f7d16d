/* pw: the Big Board Portable Wargame: Modern ruleset (seed 002). The unit
 * table, the terrain and geometry helpers, the parsed order form and the
 * built-in opponent are exposed for the unit tests; every reading of the
 * seed is in docs/rules/portable-wargame.md. */
#ifndef PW_H
#define PW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "game.h"
#include "picture.h"
#include "hex.h"
#include "ruleset.h"

#define PW_BLUE 0
#define PW_RED 1

/* Unit quality: game_unit.status. */
enum pw_quality { PW_ELITE, PW_AVERAGE, PW_POOR };

enum pw_kind {
	PW_INF, PW_INF_AT, PW_ENG, PW_DCAV, PW_MCAV, PW_MG, PW_MORTAR,
	PW_ART_HEAVY, PW_ART_MEDIUM, PW_ART_FIELD, PW_ART_MOUNTAIN,
	PW_INF_GUN, PW_AT_GUN, PW_AA_GUN, PW_AC, PW_LTANK, PW_TANK, PW_AG,
	PW_SPA, PW_HT, PW_TRUCK, PW_HORSE, PW_SPOTTER, PW_CMD, PW_CYCLIST,
	PW_NKINDS
};

/* Weapons of the firing table (non-artillery). */
enum pw_weapon { PW_W_NONE, PW_W_SMALL, PW_W_AT, PW_W_MG, PW_W_MORTAR,
	PW_W_AC, PW_W_LT, PW_W_TANK, PW_W_AG };

/* Classes of unit (bits of pw_type.cls). */
#define PW_C_ART 0x1        /* fires in the artillery phase */
#define PW_C_STAR 0x2       /* may fire indirectly ("*") */
#define PW_C_SELFPROP 0x4   /* may move after firing */
#define PW_C_TANK 0x8       /* "Tank Units" */
#define PW_C_360 0x10       /* 360 degree arc of fire */
#define PW_C_TRANSPORT 0x20 /* "#": stacking exempt */
#define PW_C_MOTOR 0x40     /* carries a unit or tows a gun */
#define PW_C_EXEMPT 0x80    /* spotters and commanders: stacking exempt */
#define PW_C_ADVANCE 0x100  /* advances after winning a close combat */
#define PW_C_CARRY 0x200    /* may be carried by motorised transport */
#define PW_C_TOW 0x400      /* may be towed (non-self-propelled guns) */
#define PW_C_WIRE 0x800     /* crosses barbed wire without stopping */
#define PW_C_RIDER 0x1000   /* may ride a tank (option tank-riders) */

struct pw_type {
	const char *kind;   /* game_unit.kind */
	const char *name;
	char code;          /* one letter for the map */
	int sp;             /* initial Strength Points */
	int move;           /* hexes */
	enum pw_weapon weapon;
	int range;          /* weapon or artillery range in hexes */
	int cc_front;       /* close combat: lowest score not hit, front */
	int cc_flank;       /* ... attacked on the flank or rear */
	unsigned cls;
};

extern const struct pw_type pw_types[PW_NKINDS];

/* Per-turn and persistent unit flags (game_unit.flags). */
#define PW_F_MOVED 0x1      /* moved (or turned, loaded) this turn */
#define PW_F_FIRED 0x2      /* fired this turn */
#define PW_F_ACTIVE 0x4     /* activated this turn */
#define PW_F_ARTFIRED 0x8   /* fired in this turn's artillery phase */
#define PW_F_BUSY 0x10      /* loading, unloading or wiring: stays put */
#define PW_F_FULLMOVE 0x20  /* moved its whole allowance: may not fire */
#define PW_F_TURN_MASK 0xff /* cleared at the start of each turn */
#define PW_F_GAS 0x100      /* its one gas shell is spent */
#define PW_F_CROSSING 0x200 /* in a ford or trench: "turn A" done */
#define PW_F_SETTLING 0x400 /* ... and a turn has ended since */

/* x[] slots. */
#define PW_X_LASTQ 0   /* artillery: last target q */
#define PW_X_LASTR 1   /* artillery: last target r */
#define PW_X_LASTT 2   /* artillery: turn of that shot, 0 none */
#define PW_X_JOB 3     /* engineer/wire job (enum pw_job) */
#define PW_X_JOBQ 4
#define PW_X_JOBR 5
#define PW_X_JOBN 6    /* turns of work done */
#define PW_X_SP0 7     /* initial SP */

enum pw_job { PW_JOB_NONE, PW_JOB_LAY, PW_JOB_CLEAR, PW_JOB_WIRE,
	PW_JOB_UNWIRE };

/* Markers are units of these kinds (x0: sides that know of it, for
 * mines; turns left for gas, x1/x2 its "front" direction). */
#define PW_MINES "marker:mines"
#define PW_WIRE "marker:wire"
#define PW_GAS "marker:gas"
/* An objective of the scenario (docs, "The scenario and victory"): its
 * side is the side that holds it. */
#define PW_OBJECTIVE "marker:objective"

enum pw_terrain { PW_T_OPEN, PW_T_WOOD, PW_T_BUA, PW_T_FORT, PW_T_TRENCH,
	PW_T_RIVER, PW_T_FORD };

/* Retreat choice for "retreat 1 hex or lose 1 SP". */
enum pw_retreat { PW_RETREAT_ALWAYS, PW_RETREAT_NEVER, PW_RETREAT_COVER };

/* --- parsed orders ------------------------------------------------------ */

enum pw_clause_kind { PW_CL_MOVE, PW_CL_FACE, PW_CL_FIRE, PW_CL_CC,
	PW_CL_LOAD, PW_CL_UNLOAD, PW_CL_WIRE, PW_CL_UNWIRE, PW_CL_LAY,
	PW_CL_CLEAR, PW_CL_HOLD };

#define PW_PATH_MAX 6
#define PW_CLAUSES_MAX 6
#define PW_ACTS_MAX 64
#define PW_SHOTS_MAX 32

struct pw_clause {
	enum pw_clause_kind kind;
	int n;                      /* hexes in h */
	struct hex h[PW_PATH_MAX];  /* path, target or job hex */
	int arg;                    /* facing, unit to load, cc: 1 stay */
};

struct pw_act {
	int unit;
	int line;
	int nclause;
	struct pw_clause c[PW_CLAUSES_MAX];
};

struct pw_shot {
	int unit;
	int line;
	struct hex target;
	bool gas;
};

struct pw_orders {
	int side;
	int nshot;
	struct pw_shot shot[PW_SHOTS_MAX];
	int nact;
	struct pw_act act[PW_ACTS_MAX];
	enum pw_retreat retreat;          /* the side's default */
	signed char unit_retreat[GAME_MAX_UNITS]; /* -1: the default */
	/* unit_retreat is set for the units below this index (the units
	 * the game had when the orders were parsed: pw_parse clears no
	 * more); the units at or above it take the side's default. */
	int nunit_retreat;
};

/* --- helpers shared by the pw files and the tests ------------------------ */

/* strcmp(u->kind, name) == 0 for a name of at least 8 letters (the
 * markers' PW_MINES ... PW_OBJECTIVE): the first and eighth letters
 * (those of "marker:" names differ there) before the whole names. */
static inline bool
pw_kind_is(const struct game_unit *u, const char *name)
{
	return u->kind[0] == name[0] && u->kind[7] == name[7] &&
	    strcmp(u->kind, name) == 0;
}

/* pw_kind(u) == PW_CMD and pw_kind(u) == PW_SPOTTER, by the name (kind
 * is an array longer than either name: its bytes and the end compared,
 * no call). */
static inline bool
pw_is_commander(const struct game_unit *u)
{
	return u->kind[0] == 'c' && memcmp(u->kind, "commander",
	    sizeof "commander") == 0;
}
static inline bool
pw_is_spotter(const struct game_unit *u)
{
	return u->kind[0] == 's' && memcmp(u->kind, "spotter",
	    sizeof "spotter") == 0;
}

/* The type of a unit, or NULL for a marker. */
const struct pw_type *pw_type(const struct game_unit *);
int pw_kind(const struct game_unit *);
int pw_kind_by_name(const char *kind);
/* A marker (its kind starts "marker:"; kind is an array longer than
 * the prefix: a fixed-size compare). Inline: the resolution asks it of
 * every unit it looks at. */
static inline bool
pw_is_marker(const struct game_unit *u)
{
	return u->kind[0] == 'm' && u->kind[1] == 'a' &&
	    memcmp(u->kind, "marker:", 7) == 0;
}
/* Alive and on the map (not a marker). */
static inline bool
pw_alive(const struct game_unit *u)
{
	return u->placed && u->strength > 0 && !pw_is_marker(u);
}
/* Add a unit of kind at label facing dir with quality q; its SP and x[SP0]
 * come from the table. Returns the unit's index. */
int pw_add_unit(struct game *, const char *id, int kind, int side,
    const char *label, int facing, int quality);
/* Add a marker of kind (PW_MINES, ...) owned by side at h; its index. */
int pw_add_marker(struct game *, const char *kind, int side, struct hex h);
/* The index of a marker of kind in h, or -1. */
int pw_marker_at(const struct game *, struct hex, const char *kind);

int pw_terrain(const struct game *, struct hex); /* -1 off the map */
bool pw_road(const struct game *, struct hex);
int pw_elev(const struct game *, struct hex);
/* Woods, built-up areas and fortifications ("area" terrain). */
bool pw_area(const struct game *, struct hex);
/* Cover or fortifications (woods, BUA, fortifications, trenches). */
bool pw_cover(const struct game *, struct hex);
/* Line of sight from a to b: not blocked by woods, BUA or higher ground
 * between them (and by units between them if units_block). */
bool pw_los(const struct game *, struct hex a, struct hex b,
    bool units_block);
/* Line of sight of side from a to b: as pw_los with units blocking, but
 * only units the side sees (its own, and enemy units pw_visible). */
bool pw_los_side(const struct game *, struct hex a, struct hex b, int side);
/* Distance from h to the nearest enemy unit side sees, 1000 if none. */
int pw_nearest_seen_enemy(const struct game *, int side, struct hex h);
/* Direct line of sight to a target hex: adjacent, or a clear line to a
 * hex that is not in cover. */
bool pw_sees(const struct game *, struct hex a, struct hex b);
/* Keep the terrain's lines of sight of g's map (per thread) until
 * pw_los_cache_end(the value returned): g's hexes must not change in
 * between. False (nothing kept) when a cache is already armed. */
bool pw_los_cache_begin(const struct game *);
void pw_los_cache_end(bool begun);
/* The number of the map the cache holds (0 before the first; each new
 * copy of a map takes a new number). pw_los_cache_continue(g, map) is
 * pw_los_cache_begin(g) without comparing g's hexes with the cache's copy
 * when the copy is still map's: only for a caller that armed the cache
 * for g when it held map and knows g's hexes have not changed since (the
 * next step of the same resolution, pw_resolve). */
unsigned pw_los_cache_map(void);
bool pw_los_cache_continue(const struct game *, unsigned map);
/* While the cache is armed for g: the index of each neighbour (direction
 * 0-5) of each of g's hexes by hex index, -1 off the map; NULL when it is
 * not armed for g. */
const int (*pw_map_neighbours(const struct game *))[6];
/* While the cache is armed for g: the terrain of each hex by index (as
 * pw_terrain of its position when *first says it is the hex found there);
 * NULL when it is not armed for g. */
const signed char *pw_map_terrain(const struct game *, const bool **first);
/* hex_line(a, b)'s length (-1: no line), its second hex and the one
 * before its last (set when the length is at least 2), from the armed
 * cache of g when it can (g may be NULL). */
/* The index of the hex of g at h (as game_hex_at_c), -1 off the map;
 * from the armed cache's box when it can. */
int pw_hex_index(const struct game *, struct hex);
int pw_line_ends(const struct game *, struct hex a, struct hex b,
    struct hex *second, struct hex *penult);
/* The units of g by hex during a resolution step (pw.c, "the units by
 * hex"): pw_units_index_begin(g) while the cache above is armed for g
 * (false: nothing armed), pw_units_index_end(the value returned). The
 * resolution calls pw_unit_moved(g, i) right after it changes unit i's
 * pos or placed (pw_add_marker files the units it adds). While it
 * answers, pw_unit_lists_at(g, h, &L) is h's hex index k, with L.head[k]
 * the first placed unit in h by unit index (-1 none), L.next[i] the next
 * unit in the same hex, L.nbr[k][d] the index of h's neighbour in
 * direction d (-1 off the map); -2 when it does not answer or h is off
 * the map (scan the units). */
struct pw_unit_lists {
	const int *head;
	const int *next;
	const int (*nbr)[6];
};
bool pw_units_index_begin(const struct game *);
void pw_units_index_end(bool begun);
/* pw_units_index_begin(g) for the next step of the same resolution, whose
 * caller vouches that no unit changed since the step before ended
 * (pw_resolve): when that step's lists answered to its end they answer
 * from the start, without comparing each unit with its filing. */
bool pw_units_index_continue(const struct game *);
void pw_unit_moved(const struct game *, int i);
int pw_unit_lists_at(const struct game *, struct hex, struct pw_unit_lists *);
/* The resolution calls pw_unit_attached(g, i, from) right after it
 * changes unit i's attached (from: the value before); pw_unit_carries(g,
 * i) is false only when the index answers and no unit has i as attached. */
void pw_unit_attached(const struct game *, int i, int from);
bool pw_unit_carries(const struct game *, int i);
/* Is to within the 120 degree arc of a unit at from facing dir? */
bool pw_in_arc(int facing, struct hex from, struct hex to);
/* The direction (0..5) from a that points most nearly at b. */
int pw_dir_towards(struct hex a, struct hex b);
/* The hex "in front of" target as seen from firer (its neighbour towards
 * the firer) and the one "behind" it. */
struct hex pw_in_front(struct hex target, struct hex firer);
struct hex pw_behind(struct hex target, struct hex firer);
/* Direction names of the layout ("n", "ne", ...); -1 if unknown. */
int pw_dir_parse(const struct game *, const char *);
const char *pw_dir_name(const struct game *, int dir);

/* Activation dice of side now: one for a commander plus one per five
 * other units, rounded up. */
int pw_activation_dice(const struct game *, int side);
int pw_initial_sp(const struct game *, int side);
int pw_current_sp(const struct game *, int side);
/* Exhaustion Point: a third of the initial SP, rounded up. */
int pw_exhaustion_point(const struct game *, int side);
bool pw_exhausted(const struct game *, int side);
/* The scenario's objectives: how many there are, and how many side
 * holds; the number the attacker (Blue) must hold when the battle ends
 * (game var "obj.need"). */
int pw_objectives(const struct game *, int side);
int pw_objectives_total(const struct game *);
/* Is there an objective in h? */
bool pw_objective_at(const struct game *, struct hex);
/* May transport tr carry or tow unit p (tank riders with the option)? */
bool pw_can_carry(const struct game *, int tr, int p);
/* Does side know of (see) unit i (fog of war, docs)? */
bool pw_visible(const struct game *, int side, int i);
/* The hex unit i would retreat to, or false if it cannot: chosen by what
 * its side sees (enemy units it sees, minefields it knows of). */
bool pw_retreat_hex(const struct game *, int i, struct hex *out);

void pw_orders_init(struct pw_orders *, int side);

/* Resolution (pw_rules.c). Can artillery unit i fire at target in the
 * artillery phase, and can unit i fire at h in its activation (range set
 * to its range there)? why (len bytes) says why not;
 * why NULL: only whether. */
bool pw_art_can_fire(const struct game *, int i, struct hex target,
    char *why, size_t len);
bool pw_can_fire(const struct game *, int i, struct hex h, int *range,
    char *why, size_t len);
enum resolve_rc pw_resolve(struct resolve_ctx *);
void pw_victory(struct game *, struct events *);
/* The built-in opponent (pw_ai.c). */
void pw_opponent(const struct game *, const struct window_spec *, int side,
    struct sbuf *);
/* Map and reports (pw_map.c). */
struct scenario;
int pw_setup(struct game *, const struct scenario *, struct hp_error *);
void pw_render_map(const struct game *, int side, struct sbuf *);
void pw_status(const struct game *, int side, struct sbuf *);
/* The map model of side's picture (ruleset.h `picture`): what
 * pw_render_map shows, as a drawing. */
void pw_picture(const struct game *, int side, const struct events *,
    struct pic_model *);
/* The built-in opponent with its orders already parsed (ruleset.h
 * `opponent_parsed`, pw_ai.c): appends pw_opponent's body to b and
 * returns what pw_parse makes of b's order file (caller frees). */
void *pw_opponent_parsed(const struct game *, const struct window_spec *,
    int side, struct sbuf *);

#endif
