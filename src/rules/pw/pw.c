/* pw: Big Board Portable Wargame: Modern (seed 002): the unit table,
 * geometry and terrain helpers, the order window and the order parser.
 * The rules themselves are in pw_rules.c, the opponent in pw_ai.c and the
 * scenario and map in pw_map.c. Every reading of the seed is in
 * docs/rules/portable-wargame.md.
 *
 * Speed (issue 17): between pw_los_cache_begin and pw_los_cache_end the
 * map's per-thread cache (los_cache below) answers the terrain, the
 * neighbours, the hex at a position, lines of sight and the steps of each
 * pair's line, and unit kinds; docs/ARCHITECTURE.md §3.2, "Caches", says
 * what is kept and why each answer is the uncached one.
 *
 * The resolution (issue 17, third round) also arms an index of the units
 * by hex for each step (uidx below, "the units by hex"): pw_rules.c tells
 * it every move, placement and attachment it makes (pw_unit_moved,
 * pw_unit_attached) and reads the units in and next to a hex from it;
 * docs/ARCHITECTURE.md §3.2, "The units by hex", says how it stays right.
 *
 * The next step of the same resolution (issue 17, last round) arms both
 * without the whole-map compare and without comparing each unit with its
 * filing (pw_los_cache_continue, pw_units_index_continue; pw_resolve says
 * when): docs/ARCHITECTURE.md §3.2, "The next step of a resolution". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pw.h"

/* Movement, range and close combat from the seed's tables; SP are
 * hexpost's own (the seed's SP column was lost). */
const struct pw_type pw_types[PW_NKINDS] = {
	[PW_INF] = { "infantry", "Infantry", 'I', 4, 2, PW_W_SMALL, 3, 3, 5,
	    PW_C_ADVANCE | PW_C_CARRY | PW_C_RIDER },
	[PW_INF_AT] = { "infantry-at", "Infantry Anti-tank", 'A', 3, 2,
	    PW_W_AT, 2, 3, 5, PW_C_ADVANCE | PW_C_CARRY | PW_C_RIDER },
	[PW_ENG] = { "engineers", "Engineers", 'E', 4, 2, PW_W_SMALL, 3, 3, 5,
	    PW_C_ADVANCE | PW_C_CARRY },
	[PW_DCAV] = { "dismounted-cavalry", "Dismounted Cavalry", 'D', 3, 2,
	    PW_W_SMALL, 3, 3, 5, PW_C_ADVANCE | PW_C_CARRY },
	[PW_MCAV] = { "mounted-cavalry", "Mounted Cavalry", 'C', 3, 3,
	    PW_W_NONE, 0, 2, 4, PW_C_ADVANCE },
	[PW_MG] = { "machine-gun", "Machine Guns", 'G', 3, 2, PW_W_MG, 3, 3, 5,
	    PW_C_CARRY },
	[PW_MORTAR] = { "mortar", "Mortars", 'M', 2, 2, PW_W_MORTAR, 4, 3, 5,
	    PW_C_CARRY },
	[PW_ART_HEAVY] = { "heavy-artillery", "Heavy Artillery", 'H', 2, 2,
	    PW_W_NONE, 12, 4, 5, PW_C_ART | PW_C_STAR | PW_C_TOW },
	[PW_ART_MEDIUM] = { "medium-artillery", "Medium Artillery", 'R', 2, 2,
	    PW_W_NONE, 10, 4, 5, PW_C_ART | PW_C_STAR | PW_C_TOW },
	[PW_ART_FIELD] = { "field-artillery", "Field Artillery", 'F', 2, 2,
	    PW_W_NONE, 8, 4, 5, PW_C_ART | PW_C_STAR | PW_C_TOW },
	[PW_ART_MOUNTAIN] = { "mountain-artillery", "Mountain Artillery", 'N',
	    2, 2, PW_W_NONE, 6, 4, 5, PW_C_ART | PW_C_STAR | PW_C_TOW },
	[PW_INF_GUN] = { "infantry-gun", "Infantry Gun", 'Q', 2, 2, PW_W_NONE,
	    4, 4, 5, PW_C_ART | PW_C_STAR | PW_C_TOW },
	[PW_AT_GUN] = { "anti-tank-gun", "Anti-tank Gun", 'K', 2, 2,
	    PW_W_NONE, 4, 4, 5, PW_C_ART | PW_C_TOW },
	[PW_AA_GUN] = { "anti-aircraft-gun", "Anti-aircraft Gun", 'Y', 2, 2,
	    PW_W_NONE, 4, 4, 5, PW_C_ART | PW_C_TOW },
	[PW_AC] = { "armoured-car", "Armoured Cars", 'Z', 2, 4, PW_W_AC, 3, 3,
	    5, PW_C_360 },
	[PW_LTANK] = { "light-tank", "Light Tanks", 'L', 2, 4, PW_W_LT, 3, 3,
	    4, PW_C_TANK | PW_C_360 | PW_C_ADVANCE | PW_C_WIRE },
	[PW_TANK] = { "tank", "Tanks", 'T', 3, 3, PW_W_TANK, 4, 3, 4,
	    PW_C_TANK | PW_C_360 | PW_C_ADVANCE | PW_C_WIRE },
	[PW_AG] = { "assault-gun", "Assault Guns", 'U', 3, 3, PW_W_AG, 4, 3, 4,
	    PW_C_WIRE },
	[PW_SPA] = { "sp-artillery", "Self-propelled Artillery", 'S', 2, 3,
	    PW_W_NONE, 8, 3, 5, PW_C_ART | PW_C_STAR | PW_C_SELFPROP |
	    PW_C_WIRE },
	[PW_HT] = { "half-track", "Half-tracks", 'V', 2, 4, PW_W_NONE, 0, 3, 5,
	    PW_C_TRANSPORT | PW_C_MOTOR },
	[PW_TRUCK] = { "truck", "Trucks", 'W', 1, 4, PW_W_NONE, 0, 4, 5,
	    PW_C_TRANSPORT | PW_C_MOTOR },
	[PW_HORSE] = { "horse-transport", "Horse-drawn Transport", 'X', 1, 2,
	    PW_W_NONE, 0, 5, 6, PW_C_TRANSPORT },
	[PW_SPOTTER] = { "spotter", "Artillery Spotters", 'O', 1, 2, PW_W_NONE,
	    0, 3, 4, PW_C_EXEMPT },
	[PW_CMD] = { "commander", "Commanders", 'P', 2, 3, PW_W_NONE, 0, 3, 3,
	    PW_C_EXEMPT | PW_C_CARRY },
	[PW_CYCLIST] = { "cyclists", "Cyclists", 'B', 4, 3, PW_W_SMALL, 3, 3,
	    5, PW_C_ADVANCE | PW_C_CARRY },
};

/* The length of each kind's name in pw_types (test_sim checks that every
 * name is found through it). */
static const unsigned char kind_len[PW_NKINDS] = {
	[PW_INF] = sizeof "infantry" - 1,
	[PW_INF_AT] = sizeof "infantry-at" - 1,
	[PW_ENG] = sizeof "engineers" - 1,
	[PW_DCAV] = sizeof "dismounted-cavalry" - 1,
	[PW_MCAV] = sizeof "mounted-cavalry" - 1,
	[PW_MG] = sizeof "machine-gun" - 1,
	[PW_MORTAR] = sizeof "mortar" - 1,
	[PW_ART_HEAVY] = sizeof "heavy-artillery" - 1,
	[PW_ART_MEDIUM] = sizeof "medium-artillery" - 1,
	[PW_ART_FIELD] = sizeof "field-artillery" - 1,
	[PW_ART_MOUNTAIN] = sizeof "mountain-artillery" - 1,
	[PW_INF_GUN] = sizeof "infantry-gun" - 1,
	[PW_AT_GUN] = sizeof "anti-tank-gun" - 1,
	[PW_AA_GUN] = sizeof "anti-aircraft-gun" - 1,
	[PW_AC] = sizeof "armoured-car" - 1,
	[PW_LTANK] = sizeof "light-tank" - 1,
	[PW_TANK] = sizeof "tank" - 1,
	[PW_AG] = sizeof "assault-gun" - 1,
	[PW_SPA] = sizeof "sp-artillery" - 1,
	[PW_HT] = sizeof "half-track" - 1,
	[PW_TRUCK] = sizeof "truck" - 1,
	[PW_HORSE] = sizeof "horse-transport" - 1,
	[PW_SPOTTER] = sizeof "spotter" - 1,
	[PW_CMD] = sizeof "commander" - 1,
	[PW_CYCLIST] = sizeof "cyclists" - 1,
};

int
pw_kind_by_name(const char *kind)
{
	size_t n = strlen(kind);
	int k;

	/* Same length and first letter before the bytes are compared. */
	for (k = 0; k < PW_NKINDS; k++)
		if (kind_len[k] == n && pw_types[k].kind[0] == kind[0] &&
		    memcmp(pw_types[k].kind, kind, n) == 0)
			return k;
	return -1;
}

/* The kinds by the first letter of their name ('a' to 'z'), each as its
 * kind + 1, 0 ending the list (test_sim checks that every name is found
 * through it). */
static const unsigned char kind_first[26][6] = {
	['a' - 'a'] = { PW_AT_GUN + 1, PW_AA_GUN + 1, PW_AC + 1, PW_AG + 1 },
	['c' - 'a'] = { PW_CMD + 1, PW_CYCLIST + 1 },
	['d' - 'a'] = { PW_DCAV + 1 },
	['e' - 'a'] = { PW_ENG + 1 },
	['f' - 'a'] = { PW_ART_FIELD + 1 },
	['h' - 'a'] = { PW_ART_HEAVY + 1, PW_HT + 1, PW_HORSE + 1 },
	['i' - 'a'] = { PW_INF + 1, PW_INF_AT + 1, PW_INF_GUN + 1 },
	['l' - 'a'] = { PW_LTANK + 1 },
	['m' - 'a'] = { PW_MCAV + 1, PW_MG + 1, PW_MORTAR + 1,
	    PW_ART_MEDIUM + 1, PW_ART_MOUNTAIN + 1 },
	['s' - 'a'] = { PW_SPA + 1, PW_SPOTTER + 1 },
	['t' - 'a'] = { PW_TANK + 1, PW_TRUCK + 1 },
};

/* One hex strictly between the ends of a line (hex_line's step), with
 * what the terrain says for the line's pair of ends. */
struct los_step {
	struct hex h, alt;
	bool tie;
	bool terrain_h, terrain_alt;  /* does the terrain block h, alt */
	int kh, kalt;  /* the hex indexes of h and alt, -1 off the map */
};
#define LINE_UNKNOWN 255
#define LINE_NONE 254

/* The per-thread caches of one game's map and units (pw_los_cache_begin
 * arms them for a resolution step or an opponent's plan; pw_kind reads
 * the kinds, so they are declared here). */
#define LOS_CACHE_MAXH 1024
#define KIND_UNKNOWN (-2)
static _Thread_local struct {
	const struct game *armed;  /* the game between begin and end */
	struct game_hex *map;      /* copy of the hexes it holds answers for */
	int nhex;
	unsigned char *ans;        /* nhex * nhex: 0 unknown, 1 clear, 2 not */
	signed char *terr;         /* terrain_of each hex */
	bool *road;                /* pw_road of each hex */
	/* By unit index (kindcap of them, grown to the units there are at
	 * each begin; units added later are looked up by name): pw_kind of
	 * the unit whose kind field was kindkey[i] (all its bytes), kept from
	 * one begin to the next and from game to game: a unit with other
	 * bytes there is looked up again. */
	signed char *kind;
	char (*kindkey)[GAME_KIND_MAX];
	int kindcap;
	int nkind;  /* the units checked at this begin: kind[i], i < nkind */
	/* The key of unit i is checked (against its kind field) at the first
	 * pw_kind of it after each begin: kindgen[i] == gen once it is. */
	unsigned *kindgen, gen;
	/* By hex index: the index of each neighbour (-1 off the map), and
	 * whether it is the hex game_hex_at_c finds at its position. */
	int (*nbr)[6];
	bool *first;
	/* The index (+ 1, 0 none) of the hex game_hex_at_c finds at each
	 * position of the box [q0, q0 + bw) x [r0, r0 + bh) around the map;
	 * cell NULL when the box would be much larger than the map. */
	int *cell, q0, r0, bw, bh;
	/* By pair of hexes (as ans), the hexes strictly between them on
	 * their line, each with whether the terrain blocks it (and the
	 * other hex of a tie) for that pair: linen[p] steps from
	 * line[lineoff[p]]; LINE_UNKNOWN not drawn yet, LINE_NONE no line.
	 * A line with units blocking walks these instead of drawing it. */
	int *lineoff;
	unsigned char *linen;
	struct los_step *line;
	size_t nline, linecap;
	unsigned mapgen;  /* counts the maps the cache has been made for */
	/* The armed game when the box (cell) answers for it, else NULL:
	 * one test for hex_at and box_index. */
	const struct game *boxg;
} los_cache;

/* The units of one game by hex, per thread, for a resolution step
 * (pw_units_index_begin .. pw_units_index_end, while los_cache is armed
 * for the same game): each placed unit is filed in the list of the hex
 * (by index) at its position, each list in unit order, so that "the
 * units in h" and "the units next to h" (through los_cache.nbr) are read
 * without a scan of every unit, in the order a scan meets them. The
 * resolution tells it each change of a unit's position or of its placed
 * flag (pw_unit_moved) and pw_add_marker files the units it adds; it
 * answers nothing (the callers scan) while a placed unit stands off the
 * map or the units are not the ones it filed. Debug builds check every
 * unit's filing at each question. The lists are kept from one step to
 * the next with what each unit was filed by (rec: position, placed,
 * attached): the next step, of this game or of another at the same
 * address with the same map, refiles only the units whose fields
 * differ, so a step costs a comparison of each unit, not a new index. */
struct uidx_rec {
	struct hex pos;
	int attached;
	bool placed;
};
static _Thread_local struct {
	const struct game *g;  /* armed for, NULL when not armed */
	int nunits;            /* units filed (0 .. nunits - 1) */
	int *head;             /* by hex index: the first unit there, -1 */
	int *next;             /* by unit: the next unit in its hex, -1 */
	int *at;               /* by unit: its hex index, -1 not placed,
	                        * -2 placed off the map */
	int hcap, ucap;
	bool pending;          /* armed, filed at the first question */
	int offmap;            /* units filed at -2 */
	/* By unit: how many units have it as attached (pw_unit_attached
	 * tells each change). */
	int *carry;
	struct uidx_rec *rec;  /* by unit: what it was filed by */
	/* The lists are good for built's units 0 .. nunits - 1 as rec says
	 * and the map of los_cache.mapgen built_map (when valid). */
	const struct game *built;
	unsigned built_map;
	bool valid;
	/* Set by pw_units_index_end: the step that ended had the lists
	 * answering (filed at a question, every change told since), so
	 * they matched its units at its end. */
	bool fresh;
} uidx;

static inline bool uidx_on(const struct game *);
static const struct game_hex *hex_at(const struct game *, struct hex);
static void uidx_add_new(const struct game *);

/* pw_kind by the name, without the cache. */
static int
kind_lookup(const struct game_unit *u)
{
	const unsigned char *c;
	int k, i;

	/* As pw_kind_by_name(u->kind), without measuring the name: kind is
	 * an array longer than any kind's name, so the byte after a
	 * candidate's length may be read (it must end the name there).
	 * Only the kinds with the same first letter are tried. */
	if (u->kind[0] < 'a' || u->kind[0] > 'z')
		return -1;
	for (c = kind_first[u->kind[0] - 'a']; *c != 0; c++) {
		const char *n = pw_types[k = *c - 1].kind;

		if (u->kind[kind_len[k]] != '\0')
			continue;
		for (i = 1; i < kind_len[k] && n[i] == u->kind[i]; i++)
			;
		if (i == kind_len[k])
			return k;
	}
	return -1;
}

static int kind_check(const struct game_unit *, size_t)
    __attribute__((noinline));

/* pw_kind of unit i of the armed game, u, at its first question since
 * begin: its key checked, its kind looked up if it is new. */
static int
kind_check(const struct game_unit *u, size_t i)
{
	if (memcmp(los_cache.kindkey[i], u->kind, GAME_KIND_MAX) != 0) {
		memcpy(los_cache.kindkey[i], u->kind, GAME_KIND_MAX);
		los_cache.kind[i] = KIND_UNKNOWN;
	}
	los_cache.kindgen[i] = los_cache.gen;
	if (los_cache.kind[i] == KIND_UNKNOWN)
		los_cache.kind[i] = (signed char)kind_lookup(u);
	return los_cache.kind[i];
}

int
pw_kind(const struct game_unit *u)
{
	const struct game *g = los_cache.armed;
	uintptr_t p = (uintptr_t)u, base;
	size_t i;

	/* A unit of the armed game: its kind is looked up once for the
	 * bytes of its kind field. */
	if (g != NULL && g->units != NULL) {
		base = (uintptr_t)g->units;
		if (p >= base && (i = (p - base) / sizeof *u) <
		    (size_t)los_cache.nkind && &g->units[i] == u) {
			/* Its key is checked once after each begin (a kind
			 * kept for other bytes, another game or another unit
			 * at that index, is looked up again), and a unit's
			 * kind does not change. */
			if (los_cache.kindgen[i] != los_cache.gen)
				return kind_check(u, i);
			return los_cache.kind[i];
		}
	}
	return kind_lookup(u);
}

const struct pw_type *
pw_type(const struct game_unit *u)
{
	int k = pw_kind(u);

	return k < 0 ? NULL : &pw_types[k];
}

int
pw_add_unit(struct game *g, const char *id, int kind, int side,
    const char *label, int facing, int quality)
{
	const struct pw_type *t = &pw_types[kind];
	struct game_unit *u = game_add_unit(g, id, t->kind, t->name, side);
	struct hex h;

	if (label != NULL && hex_parse_label(&g->layout, label, &h)) {
		u->placed = true;
		u->pos = h;
	}
	u->facing = facing;
	u->status = quality;
	u->strength = t->sp;
	u->x[PW_X_SP0] = t->sp;
	return (int)(u - g->units);
}

int
pw_add_marker(struct game *g, const char *kind, int side, struct hex h)
{
	struct game_unit *u;
	char id[GAME_ID_MAX];
	int n = game_var(g, "markers", 0) + 1;

	game_set_var(g, "markers", n);
	snprintf(id, sizeof id, "%c%d", kind[7], n);
	u = game_add_unit(g, id, kind, kind + 7, side);
	u->placed = true;
	u->pos = h;
	u->facing = -1;
	uidx_add_new(g);
	return (int)(u - g->units);
}

static int uidx_first(const struct game *, struct hex);

int
pw_marker_at(const struct game *g, struct hex h, const char *kind)
{
	int i;

	/* The units in h from the resolution's index. */
	if ((i = uidx_first(g, h)) != -2) {
		for (; i >= 0; i = uidx.next[i])
			if (g->units[i].kind[0] == kind[0] &&
			    strcmp(g->units[i].kind, kind) == 0)
				return i;
		return -1;
	}
	for (i = 0; i < g->nunits; i++)
		if (hex_eq(g->units[i].pos, h) && g->units[i].placed &&
		    strcmp(g->units[i].kind, kind) == 0)
			return i;
	return -1;
}

/* The terrain-only lines of sight of one map, and the terrain of each of
 * its hexes, per thread: between pw_los_cache_begin and pw_los_cache_end
 * (a resolution step or an opponent's plan, during which the map does not
 * change) the answer for each pair of hexes (by index) is kept. The map it was made for is kept
 * as a copy and compared whole at each begin, so another game, or another
 * map at the same address, finds it empty (los_cache is declared above
 * pw_kind). */

/* The index of the hex game_hex_at_c(g, h) finds, -1 none, from the box
 * of the armed cache when it is armed for g and has one; -2 when it does
 * not answer. */
static inline int
box_index(const struct game *g, struct hex h)
{
	unsigned long dq, dr;

	if (los_cache.boxg != g)
		return -2;
	/* Below the box wraps to a large number: one test a side. */
	dq = (unsigned long)((long)h.q - los_cache.q0);
	dr = (unsigned long)((long)h.r - los_cache.r0);
	if (dq >= (unsigned long)los_cache.bw ||
	    dr >= (unsigned long)los_cache.bh)
		return -1;
	return los_cache.cell[dq + dr * (unsigned long)los_cache.bw] - 1;
}

/* game_hex_at_c(g, h), from the box of the armed cache when it is armed
 * for g (the same hex: the box holds what game_hex_at_c finds). */
static inline const struct game_hex *
hex_at(const struct game *g, struct hex h)
{
	int k = box_index(g, h);

	if (k == -2)
		return game_hex_at_c(g, h);
	return k < 0 ? NULL : &g->hexes[k];
}

/* The index of hex_at(g, h), -1 off the map. */
static inline int
hex_index_at(const struct game *g, struct hex h)
{
	const struct game_hex *gh;
	int k = box_index(g, h);

	if (k != -2)
		return k;
	gh = game_hex_at_c(g, h);
	return gh == NULL ? -1 : (int)(gh - g->hexes);
}

int
pw_hex_index(const struct game *g, struct hex h)
{
	return hex_index_at(g, h);
}

/* --- the units by hex (uidx) ---------------------------------------------- */

/* The index unit u is filed at: its hex's, -1 not placed, -2 placed off
 * the map. */
static int
uidx_place(const struct game *g, const struct game_unit *u)
{
	const struct game_hex *gh;

	if (!u->placed)
		return -1;
	gh = hex_at(g, u->pos);
	return gh == NULL ? -2 : (int)(gh - g->hexes);
}

/* File unit i at k (its list kept in unit order). */
static void
uidx_file(int i, int k)
{
	int *p;

	uidx.at[i] = k;
	uidx.next[i] = -1;
	if (k == -2)
		uidx.offmap++;
	if (k < 0)
		return;
	for (p = &uidx.head[k]; *p >= 0 && *p < i; p = &uidx.next[*p])
		;
	uidx.next[i] = *p;
	*p = i;
}

/* Take unit i out of its list. */
static void
uidx_unfile(int i)
{
	int k = uidx.at[i], *p;

	if (k == -2)
		uidx.offmap--;
	if (k < 0)
		return;
	for (p = &uidx.head[k]; *p != i; p = &uidx.next[*p])
		;
	*p = uidx.next[i];
}

/* Room for n units in the index. */
static void
uidx_room(int n)
{
	if (n <= uidx.ucap)
		return;
	uidx.ucap = n * 2 > 64 ? n * 2 : 64;
	uidx.next = xrealloc(uidx.next, sizeof *uidx.next * (size_t)uidx.ucap);
	uidx.at = xrealloc(uidx.at, sizeof *uidx.at * (size_t)uidx.ucap);
	uidx.carry = xrealloc(uidx.carry, sizeof *uidx.carry *
	    (size_t)uidx.ucap);
	uidx.rec = xrealloc(uidx.rec, sizeof *uidx.rec * (size_t)uidx.ucap);
}

/* Note what unit i of g is filed by now. */
static inline void
uidx_record(const struct game *g, int i)
{
	uidx.rec[i].pos = g->units[i].pos;
	uidx.rec[i].attached = g->units[i].attached;
	uidx.rec[i].placed = g->units[i].placed;
}

/* File the units g has added since the index was made (pw_add_marker). */
static void
uidx_add_new(const struct game *g)
{
	if (uidx.g != g || uidx.pending || g->nunits < uidx.nunits)
		return;
	uidx_room(g->nunits);
	for (; uidx.nunits < g->nunits; uidx.nunits++) {
		int a = g->units[uidx.nunits].attached;

		uidx.carry[uidx.nunits] = 0;
		uidx_file(uidx.nunits, uidx_place(g, &g->units[uidx.nunits]));
		uidx_record(g, uidx.nunits);
		if (a >= 0 && a < uidx.nunits)
			uidx.carry[a]++;
	}
}

/* File g's units (the index is armed for g): at the first question of
 * a step, so that a step that asks nothing costs nothing (out of
 * uidx_on, which stays small). */
static void uidx_build(const struct game *) __attribute__((noinline));

static void
uidx_build(const struct game *g)
{
	const int *cell = los_cache.cell;
	long q0 = los_cache.q0, r0 = los_cache.r0, bw = los_cache.bw,
	    bh = los_cache.bh;
	int i, n = g->nunits > 0 ? g->nunits : 0, *at, *next, *head, *carry,
	    offmap = 0;

	uidx.pending = false;
	/* The same units as filed (by the fields they were filed by) and
	 * map: only those that changed are filed again. */
	if (uidx.valid && uidx.built == g && uidx.nunits == n &&
	    uidx.built_map == los_cache.mapgen) {
		const struct uidx_rec *r = uidx.rec;

		for (i = 0; i < n; i++) {
			const struct game_unit *u = &g->units[i];
			int a = u->attached;

			if (r[i].placed == u->placed && r[i].attached == a &&
			    hex_eq(r[i].pos, u->pos))
				continue;
			if (r[i].attached != a) {
				if (r[i].attached >= 0 && r[i].attached < n)
					uidx.carry[r[i].attached]--;
				if (a >= 0 && a < n)
					uidx.carry[a]++;
			}
			uidx_unfile(i);
			uidx_file(i, uidx_place(g, u));
			uidx_record(g, i);
		}
		return;
	}
	uidx_room(n);
	for (i = 0; i < g->nhex; i++)
		uidx.head[i] = -1;
	/* Locals: the stores below cannot change them. */
	at = uidx.at;
	next = uidx.next;
	head = uidx.head;
	carry = uidx.carry;
	memset(carry, 0, sizeof *carry * (size_t)n);
	/* From the last unit to the first, each put first in its hex: the
	 * lists come out in unit order. The box of the cache read here
	 * (uidx_place's hex_at) when there is one. */
	for (i = n - 1; i >= 0; i--) {
		const struct game_unit *u = &g->units[i];
		int k, a = u->attached;

		if (cell != NULL && u->placed) {
			long dq = (long)u->pos.q - q0, dr = (long)u->pos.r - r0;

			k = dq < 0 || dr < 0 || dq >= bw || dr >= bh ? -2 :
			    cell[dq + dr * bw] - 1;
			if (k == -1)
				k = -2;
		} else
			k = uidx_place(g, u);
		if (a >= 0 && a < n)
			carry[a]++;
		uidx_record(g, i);
		at[i] = k;
		if (k >= 0) {
			next[i] = head[k];
			head[k] = i;
		} else {
			next[i] = -1;
			offmap += k == -2;
		}
	}
	uidx.offmap = offmap;
	uidx.nunits = n;
	uidx.built = g;
	uidx.built_map = los_cache.mapgen;
	uidx.valid = true;
}

bool
pw_units_index_begin(const struct game *g)
{
	int i;

	uidx.fresh = false;
	if (uidx.g != NULL || los_cache.armed != g || g->nhex != los_cache.nhex)
		return false;
	if (g->nhex > uidx.hcap) {
		uidx.head = xrealloc(uidx.head, sizeof *uidx.head *
		    (size_t)g->nhex);
		for (i = uidx.hcap; i < g->nhex; i++)
			uidx.head[i] = -1;
		uidx.hcap = g->nhex;
	}
	uidx.pending = true;
	uidx.g = g;
	return true;
}

bool
pw_units_index_continue(const struct game *g)
{
	/* The step before filed the lists for g on this map and was told
	 * every change after (fresh), and the caller vouches that nothing
	 * changed since: they answer from the start, without comparing each
	 * unit with what it was filed by (changes are told from the start:
	 * not pending). Debug builds still check every filing at each
	 * question. */
	bool trusted = uidx.fresh && uidx.valid && uidx.built == g &&
	    uidx.nunits == g->nunits && uidx.built_map == los_cache.mapgen;

	if (!pw_units_index_begin(g))
		return false;
	if (trusted)
		uidx.pending = false;
	return true;
}

void
pw_units_index_end(bool begun)
{
	/* The lists stay for the next step (uidx_build checks them). */
	if (!begun)
		return;
	uidx.fresh = !uidx.pending && uidx.valid && uidx.built == uidx.g;
	uidx.pending = false;
	uidx.g = NULL;
}

void
pw_unit_moved(const struct game *g, int i)
{
	/* Not filed yet: the filing reads where it is then. */
	if (uidx.g != g || uidx.pending || i < 0 || i >= uidx.nunits)
		return;
	uidx_unfile(i);
	uidx_file(i, uidx_place(g, &g->units[i]));
	uidx_record(g, i);
}

void
pw_unit_attached(const struct game *g, int i, int from)
{
	int a;

	if (uidx.g != g || uidx.pending || i < 0 || i >= uidx.nunits)
		return;
	/* from is what the index noted (rec), which it goes by. */
	(void)from;
	if ((a = uidx.rec[i].attached) >= 0 && a < uidx.nunits)
		uidx.carry[a]--;
	if ((a = g->units[i].attached) >= 0 && a < uidx.nunits)
		uidx.carry[a]++;
	uidx.rec[i].attached = a;
}

bool
pw_unit_carries(const struct game *g, int i)
{
	return !uidx_on(g) || i < 0 || i >= uidx.nunits || uidx.carry[i] > 0;
}

#ifndef NDEBUG
static void uidx_check(const struct game *);
#endif

/* Does the index answer for g now? In a debug build, every unit's filing
 * is checked first (a change pw_unit_moved was not told of is a bug). */
static inline bool
uidx_on(const struct game *g)
{
	if (uidx.g != g || los_cache.armed != g)
		return false;
	if (uidx.pending)
		uidx_build(g);
	if (uidx.offmap != 0 || g->nunits != uidx.nunits)
		return false;
#ifndef NDEBUG
	uidx_check(g);
#endif
	return true;
}

#ifndef NDEBUG
/* The debug builds' check of the index against the units. */
static void
uidx_check(const struct game *g)
{
	{
		int i, k, n = 0, *cnt;

		for (i = 0; i < g->nunits; i++)
			if (uidx.at[i] != uidx_place(g, &g->units[i]) ||
			    uidx.rec[i].placed != g->units[i].placed ||
			    uidx.rec[i].attached != g->units[i].attached ||
			    !hex_eq(uidx.rec[i].pos, g->units[i].pos))
				fatal("pw: unit %s moved without "
				    "pw_unit_moved", g->units[i].id);
		for (k = 0; k < g->nhex; k++)
			for (i = uidx.head[k]; i >= 0; i = uidx.next[i], n++)
				if (uidx.at[i] != k || (uidx.next[i] >= 0 &&
				    uidx.next[i] <= i))
					fatal("pw: the units' index is broken");
		for (i = 0; i < g->nunits; i++)
			n -= uidx.at[i] >= 0;
		if (n != 0)
			fatal("pw: the units' index is broken");
		cnt = xcalloc((size_t)g->nunits + 1, sizeof *cnt);
		for (i = 0; i < g->nunits; i++)
			if (g->units[i].attached >= 0 &&
			    g->units[i].attached < g->nunits)
				cnt[g->units[i].attached]++;
		for (k = 0; k < g->nunits; k++)
			if (cnt[k] != uidx.carry[k])
				fatal("pw: unit %s's carried count is wrong",
				    g->units[k].id);
		free(cnt);
	}
}
#endif

/* The first unit in h (then uidx.next) when the index answers for g, -1
 * none; -2 when it does not answer (the caller scans). */
static int
uidx_first(const struct game *g, struct hex h)
{
	int k;

	if (!uidx_on(g))
		return -2;
	/* No placed unit is off the map while the index answers. */
	k = hex_index_at(g, h);
	return k < 0 ? -1 : uidx.head[k];
}

/* The hex index of h and its neighbours' (nb, -1 off the map) when the
 * index answers for g and h is on the map; -2 otherwise. */
static int
uidx_around(const struct game *g, struct hex h, const int **nb)
{
	int k;

	if (!uidx_on(g) || (k = hex_index_at(g, h)) < 0)
		return -2;
	*nb = los_cache.nbr[k];
	return k;
}

int
pw_unit_lists_at(const struct game *g, struct hex h, struct pw_unit_lists *L)
{
	int k;

	if (!uidx_on(g) || (k = hex_index_at(g, h)) < 0)
		return -2;
	L->head = uidx.head;
	L->next = uidx.next;
	L->nbr = (const int (*)[6])los_cache.nbr;
	return k;
}


/* The first unit filed in hex index k, -1 none (or k < 0). */
static inline int
uidx_head_of(int k)
{
	return k < 0 ? -1 : uidx.head[k];
}

/* The terrain (enum pw_terrain) of game hex gh, -1 for NULL (off the
 * map). */
static int
terrain_of(const struct game_hex *gh)
{
	static const char *names[] = { "open", "wood", "bua", "fort",
		"trench", "river", "ford" };
	size_t i, n;

	if (gh == NULL)
		return -1;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		/* The terrain starts with the name (compared letter by letter:
		 * the names are a few letters long), then ends or goes on with
		 * '+'. */
		for (n = 0; names[i][n] != '\0' && gh->terrain[n] ==
		    names[i][n]; n++)
			;
		if (names[i][n] == '\0' && (gh->terrain[n] == '\0' ||
		    gh->terrain[n] == '+'))
			return (int)i;
	}
	return PW_T_OPEN;
}

/* terrain_of(gh) for a hex of g, from the cache when it is armed for g. */
static int
terrain_in(const struct game *g, const struct game_hex *gh)
{
	if (gh != NULL && los_cache.armed == g)
		return los_cache.terr[gh - g->hexes];
	return terrain_of(gh);
}

int
pw_terrain(const struct game *g, struct hex h)
{
	int k = box_index(g, h);

	/* The box answers only for the armed game: its terrains. */
	if (k != -2)
		return k < 0 ? -1 : los_cache.terr[k];
	return terrain_in(g, hex_at(g, h));
}

bool
pw_road(const struct game *g, struct hex h)
{
	const struct game_hex *gh;
	int k = box_index(g, h);

	/* The box answers only for the armed game: its roads. */
	if (k != -2)
		return k >= 0 && los_cache.road[k];
	gh = hex_at(g, h);

	return gh != NULL && strstr(gh->terrain, "+road") != NULL;
}

int
pw_elev(const struct game *g, struct hex h)
{
	const struct game_hex *gh = hex_at(g, h);

	return gh == NULL ? 0 : gh->elevation;
}

bool
pw_area(const struct game *g, struct hex h)
{
	int t = pw_terrain(g, h);

	return t == PW_T_WOOD || t == PW_T_BUA || t == PW_T_FORT;
}

bool
pw_cover(const struct game *g, struct hex h)
{
	/* pw_area or a trench, the terrain looked up once. */
	int t = pw_terrain(g, h);

	return t == PW_T_WOOD || t == PW_T_BUA || t == PW_T_FORT ||
	    t == PW_T_TRENCH;
}

#define LOS_NO_UNITS (-3)    /* units do not block */
#define LOS_ALL_UNITS (-2)   /* every unit blocks */

/* Does hex m, between a and b (at elevations ea and eb), block the view?
 * units: LOS_NO_UNITS, LOS_ALL_UNITS, or a side: its own units and the
 * enemy units it sees block, hidden ones do not. */
/* Does a unit in m block the view (units as for blocks)? */
static bool
unit_blocks(const struct game *g, struct hex m, int units)
{
	int i;

	if (units != LOS_NO_UNITS && (i = uidx_first(g, m)) != -2) {
		for (; i >= 0; i = uidx.next[i])
			if (pw_alive(&g->units[i]) &&
			    (units == LOS_ALL_UNITS ||
			    pw_visible(g, units, i)))
				return true;
		return false;
	}
	if (units != LOS_NO_UNITS)
		for (i = 0; i < g->nunits; i++)
			if (hex_eq(g->units[i].pos, m) &&
			    pw_alive(&g->units[i]) &&
			    (units == LOS_ALL_UNITS ||
			    pw_visible(g, units, i)))
				return true;
	return false;
}

static bool
blocks(const struct game *g, struct hex m, int ea, int eb, int units)
{
	const struct game_hex *gh = hex_at(g, m);
	int t = terrain_in(g, gh), em = gh == NULL ? 0 : gh->elevation;

	if (t == PW_T_WOOD || t == PW_T_BUA)
		return true;
	if (em > (ea < eb ? ea : eb) && em >= (ea > eb ? ea : eb))
		return true;
	return unit_blocks(g, m, units);
}


/* Make los_cache's box of g's hexes (cell), unless it would be more
 * than a few times the map. */
static void
box_cells(const struct game *g)
{
	int k, q0, q1, r0, r1;
	long cells;

	q0 = q1 = g->hexes[0].h.q;
	r0 = r1 = g->hexes[0].h.r;
	for (k = 1; k < g->nhex; k++) {
		struct hex h = g->hexes[k].h;

		q0 = h.q < q0 ? h.q : q0;
		q1 = h.q > q1 ? h.q : q1;
		r0 = h.r < r0 ? h.r : r0;
		r1 = h.r > r1 ? h.r : r1;
	}
	cells = ((long)q1 - q0 + 1) * ((long)r1 - r0 + 1);
	if (cells > 4L * g->nhex + 64)
		return;
	los_cache.q0 = q0;
	los_cache.r0 = r0;
	los_cache.bw = q1 - q0 + 1;
	los_cache.bh = r1 - r0 + 1;
	los_cache.cell = xcalloc((size_t)cells, sizeof *los_cache.cell);
	for (k = 0; k < g->nhex; k++) {
		struct hex h = g->hexes[k].h;
		const struct game_hex *gh = game_hex_at_c(g, h);

		los_cache.cell[(h.q - q0) + (long)(h.r - r0) * los_cache.bw] =
		    gh == NULL ? 0 : (int)(gh - g->hexes) + 1;
	}
}

/* pw_los_cache_begin, the map compared with the cache's copy unless
 * trusted (the caller vouches that g's hexes are the copy's: see
 * pw_los_cache_continue). */
static bool
los_cache_arm(const struct game *g, bool trusted)
{
	size_t sz = sizeof *g->hexes * (size_t)g->nhex;
	int k, d;

	if (los_cache.armed != NULL || g->nhex <= 0 ||
	    g->nhex > LOS_CACHE_MAXH)
		return false;
	if (los_cache.map == NULL || los_cache.nhex != g->nhex ||
	    (!trusted && memcmp(los_cache.map, g->hexes, sz) != 0)) {
		free(los_cache.map);
		free(los_cache.ans);
		free(los_cache.terr);
		free(los_cache.road);
		los_cache.map = xmalloc(sz);
		memcpy(los_cache.map, g->hexes, sz);
		los_cache.mapgen++;
		los_cache.nhex = g->nhex;
		los_cache.ans = xcalloc((size_t)g->nhex * (size_t)g->nhex, 1);
		los_cache.terr = xmalloc((size_t)g->nhex);
		for (k = 0; k < g->nhex; k++)
			los_cache.terr[k] = (signed char)terrain_of(&g->hexes[k]);
		los_cache.road = xmalloc(sizeof *los_cache.road *
		    (size_t)g->nhex);
		for (k = 0; k < g->nhex; k++)
			los_cache.road[k] = strstr(g->hexes[k].terrain,
			    "+road") != NULL;
		free(los_cache.lineoff);
		free(los_cache.linen);
		free(los_cache.line);
		los_cache.lineoff = xmalloc(sizeof *los_cache.lineoff *
		    (size_t)g->nhex * (size_t)g->nhex);
		los_cache.linen = xmalloc((size_t)g->nhex * (size_t)g->nhex);
		memset(los_cache.linen, LINE_UNKNOWN, (size_t)g->nhex *
		    (size_t)g->nhex);
		los_cache.line = NULL;
		los_cache.nline = los_cache.linecap = 0;
		free(los_cache.cell);
		los_cache.cell = NULL;
		box_cells(g);
		free(los_cache.first);
		los_cache.first = xmalloc(sizeof *los_cache.first *
		    (size_t)g->nhex);
		for (k = 0; k < g->nhex; k++)
			los_cache.first[k] = game_hex_at_c(g, g->hexes[k].h) ==
			    &g->hexes[k];
		free(los_cache.nbr);
		los_cache.nbr = xmalloc(sizeof *los_cache.nbr * (size_t)g->nhex);
		for (k = 0; k < g->nhex; k++)
			for (d = 0; d < 6; d++) {
				const struct game_hex *nh = game_hex_at_c(g,
				    hex_neighbour(g->hexes[k].h, d));

				los_cache.nbr[k][d] = nh == NULL ? -1 :
				    (int)(nh - g->hexes);
			}
	}
	/* Room for the kinds of the units there are now (kept from the
	 * last begin: pw_kind checks each against the unit's kind field). */
	if (g->nunits > los_cache.kindcap) {
		int cap = g->nunits;

		los_cache.kind = xrealloc(los_cache.kind, (size_t)cap);
		los_cache.kindkey = xrealloc(los_cache.kindkey, (size_t)cap *
		    sizeof *los_cache.kindkey);
		los_cache.kindgen = xrealloc(los_cache.kindgen, (size_t)cap *
		    sizeof *los_cache.kindgen);
		memset(los_cache.kindgen + los_cache.kindcap, 0,
		    (size_t)(cap - los_cache.kindcap) *
		    sizeof *los_cache.kindgen);
		memset(los_cache.kind + los_cache.kindcap, KIND_UNKNOWN,
		    (size_t)(cap - los_cache.kindcap));
		memset(los_cache.kindkey + los_cache.kindcap, 0,
		    (size_t)(cap - los_cache.kindcap) *
		    sizeof *los_cache.kindkey);
		los_cache.kindcap = cap;
	}
	/* Every unit's key is to be checked again (pw_kind, at its first
	 * question); gen 0 is never current. */
	if (++los_cache.gen == 0) {
		memset(los_cache.kindgen, 0, (size_t)los_cache.kindcap *
		    sizeof *los_cache.kindgen);
		los_cache.gen = 1;
	}
	los_cache.nkind = g->nunits > 0 ? g->nunits : 0;
	los_cache.armed = g;
	los_cache.boxg = los_cache.cell != NULL ? g : NULL;
	return true;
}

bool
pw_los_cache_begin(const struct game *g)
{
	return los_cache_arm(g, false);
}

unsigned
pw_los_cache_map(void)
{
	return los_cache.mapgen;
}

bool
pw_los_cache_continue(const struct game *g, unsigned map)
{
	/* map is the number of the map the cache held when the caller last
	 * armed it for g's hexes: the copy is still that one (each new copy
	 * takes a new number), and the caller vouches that g's hexes have
	 * not changed since. */
	return los_cache_arm(g, map != 0 && map == los_cache.mapgen &&
	    los_cache.map != NULL && los_cache.nhex == g->nhex);
}

const int (*pw_map_neighbours(const struct game *g))[6]
{
	if (los_cache.armed != g || g->nhex != los_cache.nhex)
		return NULL;
	return (const int (*)[6])los_cache.nbr;
}

const signed char *
pw_map_terrain(const struct game *g, const bool **first)
{
	if (los_cache.armed != g || g->nhex != los_cache.nhex)
		return NULL;
	*first = los_cache.first;
	return los_cache.terr;
}

void
pw_los_cache_end(bool begun)
{
	if (begun) {
		los_cache.armed = NULL;
		los_cache.boxg = NULL;
		los_cache.nkind = 0;
	}
}

static bool los_walk(const struct game *, struct hex, struct hex, int);

/* los_walk(g, a, b, units) for the pair p of the armed cache: the line's
 * steps and what the terrain says of them drawn once, the units looked
 * up each time. */
static void line_keep(const struct game *, struct hex, struct hex, size_t)
    __attribute__((noinline));

/* blocks(g, m, ea, eb, LOS_NO_UNITS) for the hex m of index k of the armed
 * cache (-1: m is off the map), read from the cache (no unit blocks). */
static inline bool
terrain_blocks_k(const struct game *g, int k, int ea, int eb)
{
	int t = k < 0 ? -1 : los_cache.terr[k],
	    em = k < 0 ? 0 : g->hexes[k].elevation;

	if (t == PW_T_WOOD || t == PW_T_BUA)
		return true;
	return em > (ea < eb ? ea : eb) && em >= (ea > eb ? ea : eb);
}

/* Draw the line from a to b (pair p) into the armed cache (out of
 * los_steps, whose frame stays small). */
static void
line_keep(const struct game *g, struct hex a, struct hex b, size_t p)
{
	struct hex_line_step ls[HEX_LINE_MAX];
	int i, n = hex_line(a, b, ls, HEX_LINE_MAX), ea, eb;

	if (n < 0 || n - 2 >= LINE_NONE) {
		/* No line (or one too long to keep): walked each time. */
		los_cache.linen[p] = LINE_NONE;
		return;
	}
	ea = pw_elev(g, a);
	eb = pw_elev(g, b);
	if (los_cache.nline + (size_t)n > los_cache.linecap) {
		los_cache.linecap = los_cache.linecap * 2 + (size_t)n + 256;
		los_cache.line = xrealloc(los_cache.line, los_cache.linecap *
		    sizeof *los_cache.line);
	}
	los_cache.lineoff[p] = (int)los_cache.nline;
	for (i = 1; i < n - 1; i++) {
		struct los_step *s = &los_cache.line[los_cache.nline++];

		s->h = ls[i].h;
		s->tie = ls[i].tie;
		s->alt = ls[i].alt;
		s->kh = hex_index_at(g, ls[i].h);
		s->kalt = ls[i].tie ? hex_index_at(g, ls[i].alt) : -1;
		s->terrain_h = terrain_blocks_k(g, s->kh, ea, eb);
		s->terrain_alt = ls[i].tie && terrain_blocks_k(g, s->kalt, ea,
		    eb);
	}
	los_cache.linen[p] = (unsigned char)(n < 2 ? 0 : n - 2);
}

/* unit_blocks for the hex of index k (-1 off the map: no unit there)
 * while the index answers. */
static bool
blocks_k(const struct game *g, int k, int units)
{
	int j;

	for (j = k < 0 ? -1 : uidx.head[k]; j >= 0; j = uidx.next[j])
		if (pw_alive(&g->units[j]) && (units == LOS_ALL_UNITS ||
		    pw_visible(g, units, j)))
			return true;
	return false;
}

static bool
los_steps(const struct game *g, struct hex a, struct hex b, size_t p,
    int units)
{
	const struct los_step *st;
	int i, n;

	if (los_cache.linen[p] == LINE_UNKNOWN)
		line_keep(g, a, b, p);
	if (los_cache.linen[p] == LINE_NONE)
		return los_walk(g, a, b, units);
	st = &los_cache.line[los_cache.lineoff[p]];
	n = los_cache.linen[p];
	/* The units by the steps' hex indexes when the index answers. */
	if (units != LOS_NO_UNITS && uidx_on(g)) {
		for (i = 0; i < n; i++) {
			if (!st[i].terrain_h && !blocks_k(g, st[i].kh, units))
				continue;
			if (st[i].tie && !st[i].terrain_alt &&
			    !blocks_k(g, st[i].kalt, units))
				continue;
			return false;
		}
		return true;
	}
	/* As los_walk: a step blocks when the terrain or a unit in it does
	 * (along an edge, only if both sides block). */
	for (i = 0; i < n; i++) {
		if (!st[i].terrain_h && !unit_blocks(g, st[i].h, units))
			continue;
		if (st[i].tie && !st[i].terrain_alt &&
		    !unit_blocks(g, st[i].alt, units))
			continue;
		return false;
	}
	return true;
}

/* los_walk(g, a, b, LOS_NO_UNITS) for the pair p of the armed cache, read
 * from the pair's kept line (drawn here when it is not yet): line_keep
 * notes for each step what blocks(..., LOS_NO_UNITS) says of it and of
 * the other hex of a tie, with the same elevations of a and b, so the
 * walk's answer is read off the steps without drawing the line again. */
static bool
terrain_clear(const struct game *g, struct hex a, struct hex b, size_t p)
{
	const struct los_step *st;
	int i, n;

	if (los_cache.linen[p] == LINE_UNKNOWN)
		line_keep(g, a, b, p);
	if (los_cache.linen[p] == LINE_NONE)
		return los_walk(g, a, b, LOS_NO_UNITS);
	st = &los_cache.line[los_cache.lineoff[p]];
	n = los_cache.linen[p];
	for (i = 0; i < n; i++)
		if (st[i].terrain_h && !(st[i].tie && !st[i].terrain_alt))
			return false;
	return true;
}

/* Line of sight from a to b with units blocking as blocks() says; the
 * terrain's answer from the cache when it is armed for g (units only
 * ever block more: a line the terrain blocks is blocked). */
static bool
los(const struct game *g, struct hex a, struct hex b, int units)
{
	unsigned char *c;
	int ka, kb;
	size_t p;

	if (los_cache.armed != g || g->nhex != los_cache.nhex)
		return los_walk(g, a, b, units);
	ka = hex_index_at(g, a);
	kb = hex_index_at(g, b);
	if (ka < 0 || kb < 0)
		return los_walk(g, a, b, units);
	p = (size_t)ka * (size_t)g->nhex + (size_t)kb;
	c = &los_cache.ans[p];
	if (*c == 0)
		*c = terrain_clear(g, a, b, p) ? 1 : 2;
	if (*c == 2)
		return false;
	return units == LOS_NO_UNITS ? true : los_steps(g, a, b, p, units);
}

static int line_ends_drawn(struct hex, struct hex, struct hex *,
    struct hex *) __attribute__((noinline));

/* pw_line_ends by drawing the line (out of pw_line_ends, whose frame
 * stays small). */
static int
line_ends_drawn(struct hex a, struct hex b, struct hex *second,
    struct hex *penult)
{
	struct hex_line_step st[HEX_LINE_MAX];
	int n = hex_line(a, b, st, HEX_LINE_MAX);

	if (n > 1) {
		*second = st[1].h;
		*penult = st[n - 2].h;
	}
	return n;
}

int
pw_line_ends(const struct game *g, struct hex a, struct hex b,
    struct hex *second, struct hex *penult)
{
	size_t p;
	int n, ka, kb;

	if (g == NULL || los_cache.armed != g || g->nhex != los_cache.nhex ||
	    hex_eq(a, b) || (ka = hex_index_at(g, a)) < 0 ||
	    (kb = hex_index_at(g, b)) < 0)
		return line_ends_drawn(a, b, second, penult);
	p = (size_t)ka * (size_t)g->nhex + (size_t)kb;
	if (los_cache.linen[p] == LINE_UNKNOWN)
		line_keep(g, a, b, p);
	if (los_cache.linen[p] == LINE_NONE)
		return line_ends_drawn(a, b, second, penult);
	/* The kept steps are the hexes strictly between a and b. */
	n = los_cache.linen[p] + 2;
	*second = n > 2 ? los_cache.line[los_cache.lineoff[p]].h : b;
	*penult = n > 2 ? los_cache.line[los_cache.lineoff[p] + n - 3].h : a;
	return n;
}

/* Line of sight from a to b, walked hex by hex. */
static bool
los_walk(const struct game *g, struct hex a, struct hex b, int units)
{
	struct hex_line_step st[HEX_LINE_MAX];
	int n = hex_line(a, b, st, HEX_LINE_MAX), i, ea, eb;

	if (n < 0)
		return false;
	ea = pw_elev(g, a);
	eb = pw_elev(g, b);
	for (i = 1; i < n - 1; i++) {
		if (!blocks(g, st[i].h, ea, eb, units))
			continue;
		/* Along an edge: blocked only if both sides block. */
		if (st[i].tie && !blocks(g, st[i].alt, ea, eb, units))
			continue;
		return false;
	}
	return true;
}

bool
pw_los(const struct game *g, struct hex a, struct hex b, bool units_block)
{
	return los(g, a, b, units_block ? LOS_ALL_UNITS : LOS_NO_UNITS);
}

/* Line of sight of side from a to b: units block, but only those the side
 * sees (its own and the enemy units it sees): a hidden unit, which must be
 * in a trench or a fortification to be hidden on an open line, is below
 * the line of fire (fog of war, issue 13 item 8). */
bool
pw_los_side(const struct game *g, struct hex a, struct hex b, int side)
{
	return los(g, a, b, side);
}

bool
pw_sees(const struct game *g, struct hex a, struct hex b)
{
	if (hex_eq(a, b) || hex_adjacent(a, b))
		return true;
	return !pw_cover(g, b) && pw_los(g, a, b, false);
}

static void
cart(struct hex v, double *x, double *y)
{
	*x = 1.5 * v.q;
	*y = sqrt(3.0) * (v.r + v.q / 2.0);
}

bool
pw_in_arc(int facing, struct hex from, struct hex to)
{
	struct hex v = hex_sub(to, from);
	double vx, vy, dx, dy, c;

	if ((v.q == 0 && v.r == 0) || facing < 0 || facing > 5)
		return false;
	/* In integers when the vector is short: with X = 3q and Y = 2r + q
	 * (cart's x and y are X / 2 and sqrt(3) Y / 2), c is N / sqrt(P Q)
	 * for N = X Xd + 3 Y Yd, P = X^2 + 3 Y^2 and Q = Xd^2 + 3 Yd^2 (12
	 * for each direction), so c >= 1/2 exactly when N > 0 and 4 N^2 >=
	 * P Q. Otherwise 4 N^2 <= P Q - 1, c^2 <= 1/4 - 1/(P Q), and for
	 * |q|, |r| <= 512 (P <= 4 * 1536^2, P Q <= 1.2e8) c < 1/2 - 8e-9,
	 * well below the doubles' 1/2 - 1e-9 (their error is about 1e-16):
	 * the same answer as the test in doubles below. */
	if (v.q >= -512 && v.q <= 512 && v.r >= -512 && v.r <= 512) {
		long long X = 3LL * v.q, Y = 2LL * v.r + v.q,
		    Xd = 3LL * hex_directions[facing].q,
		    Yd = 2LL * hex_directions[facing].r +
		    hex_directions[facing].q,
		    N = X * Xd + 3 * Y * Yd, P = X * X + 3 * Y * Y,
		    Q = Xd * Xd + 3 * Yd * Yd;

		return N > 0 && 4 * N * N >= P * Q;
	}
	cart(v, &vx, &vy);
	cart(hex_directions[facing], &dx, &dy);
	c = (vx * dx + vy * dy) / (sqrt(vx * vx + vy * vy) *
	    sqrt(dx * dx + dy * dy));
	return c >= 0.5 - 1e-9;
}

int
pw_dir_towards(struct hex a, struct hex b)
{
	struct hex v = hex_sub(b, a);
	double vx, vy, dx, dy, best = -1e9, c;
	int d, bd = 0;

	cart(v, &vx, &vy);
	for (d = 0; d < 6; d++) {
		cart(hex_directions[d], &dx, &dy);
		c = vx * dx + vy * dy;
		if (c > best + 1e-9) {
			best = c;
			bd = d;
		}
	}
	return bd;
}

struct hex
pw_in_front(struct hex target, struct hex firer)
{
	struct hex second, penult;
	/* The line is geometry: any armed game's cache draws it. */
	int n = pw_line_ends(los_cache.armed, target, firer, &second,
	    &penult);

	if (n < 2)
		return hex_neighbour(target, pw_dir_towards(target, firer));
	return second;
}

struct hex
pw_behind(struct hex target, struct hex firer)
{
	struct hex f = pw_in_front(target, firer);

	return hex_add(target, hex_sub(target, f));
}

static const char *const flat_dirs[6] = { "se", "ne", "n", "nw", "sw", "s" };
static const char *const pointy_dirs[6] = { "e", "ne", "nw", "w", "sw",
	"se" };

int
pw_dir_parse(const struct game *g, const char *s)
{
	const char *const *names = g->layout.orient == HEX_FLAT ? flat_dirs :
	    pointy_dirs;
	int d;

	for (d = 0; d < 6; d++)
		if (s[0] == names[d][0] && strcmp(s, names[d]) == 0)
			return d;
	return -1;
}

const char *
pw_dir_name(const struct game *g, int dir)
{
	if (dir < 0 || dir > 5)
		return "-";
	return g->layout.orient == HEX_FLAT ? flat_dirs[dir] :
	    pointy_dirs[dir];
}

int
pw_activation_dice(const struct game *g, int side)
{
	int i, others = 0, cmd = 0;

	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (u->side != side || !pw_alive(u))
			continue;
		if (pw_is_commander(u))
			cmd = 1;
		else
			others++;
	}
	return cmd + (others + 4) / 5;
}

int
pw_initial_sp(const struct game *g, int side)
{
	int i, n = 0;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side == side && !pw_is_marker(&g->units[i]))
			n += g->units[i].x[PW_X_SP0];
	return n;
}

int
pw_current_sp(const struct game *g, int side)
{
	int i, n = 0;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side == side && pw_alive(&g->units[i]))
			n += g->units[i].strength;
	return n;
}

int
pw_exhaustion_point(const struct game *g, int side)
{
	return (pw_initial_sp(g, side) + 2) / 3;
}

bool
pw_exhausted(const struct game *g, int side)
{
	char key[16];

	/* The two sides' keys without printf. */
	if (side == 0 || side == 1)
		return game_var(g, side == 0 ? "exh.0" : "exh.1", 0) != 0;
	snprintf(key, sizeof key, "exh.%d", side);
	return game_var(g, key, 0) != 0;
}

int
pw_objectives(const struct game *g, int side)
{
	int i, n = 0;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].placed && g->units[i].side == side &&
		    pw_kind_is(&g->units[i], PW_OBJECTIVE))
			n++;
	return n;
}

int
pw_objectives_total(const struct game *g)
{
	int i, n = 0;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].placed && pw_kind_is(&g->units[i],
		    PW_OBJECTIVE))
			n++;
	return n;
}

bool
pw_objective_at(const struct game *g, struct hex h)
{
	return pw_marker_at(g, h, PW_OBJECTIVE) >= 0;
}

/* pw_visible of a unit i that is not a marker, has not fired and is
 * filed in the index, which answers: a unit of side in its hex or next
 * to it from the index, then the terrain's lines of sight from the
 * side's other units (what pw_visible scans for, in any order: the
 * answer is the same). */
static bool
visible_indexed(const struct game *g, int side, int i)
{
	const struct game_unit *u = &g->units[i];
	int k = uidx.at[i], d, j;
	const int *nb = los_cache.nbr[k];
	size_t n = (size_t)g->nhex;

	for (j = uidx.head[k]; j >= 0; j = uidx.next[j])
		if (g->units[j].side == side && pw_alive(&g->units[j]))
			return true;
	for (d = 0; d < 6; d++)
		for (j = nb[d] < 0 ? -1 : uidx.head[nb[d]]; j >= 0;
		    j = uidx.next[j])
			if (g->units[j].side == side && pw_alive(&g->units[j]))
				return true;
	if (los_cache.terr[k] == PW_T_WOOD || los_cache.terr[k] == PW_T_BUA ||
	    los_cache.terr[k] == PW_T_FORT || los_cache.terr[k] == PW_T_TRENCH)
		return false;
	for (j = 0; j < g->nunits; j++) {
		const struct game_unit *o = &g->units[j];
		unsigned char *c;

		if (o->side != side || !pw_alive(o))
			continue;
		/* los(g, o->pos, u->pos, LOS_NO_UNITS) by the hexes' indexes. */
		c = &los_cache.ans[(size_t)uidx.at[j] * n + (size_t)k];
		if (*c == 0)
			*c = los_walk(g, o->pos, u->pos, LOS_NO_UNITS) ? 1 : 2;
		if (*c == 1)
			return true;
	}
	return false;
}

bool
pw_visible(const struct game *g, int side, int i)
{
	const struct game_unit *u = &g->units[i];
	int j, cover = -1;

	if (side < 0 || u->side == side)
		return true;
	if (pw_is_marker(u))
		return !pw_kind_is(u, PW_MINES) ||
		    (u->x[0] & (1 << side)) != 0;
	if (u->flags & PW_F_FIRED)
		return true;
	if (uidx_on(g) && uidx.at[i] >= 0)
		return visible_indexed(g, side, i);
	/* pw_sees(o->pos, u->pos) for each unit o of the side, with the
	 * cover of u's hex (the same for all) looked up once, if needed. */
	for (j = 0; j < g->nunits; j++) {
		const struct game_unit *o = &g->units[j];

		if (o->side != side || !pw_alive(o))
			continue;
		if (hex_eq(o->pos, u->pos) || hex_adjacent(o->pos, u->pos))
			return true;
		if (cover < 0)
			cover = pw_cover(g, u->pos) ? 1 : 0;
		if (!cover && pw_los(g, o->pos, u->pos, false))
			return true;
	}
	return false;
}

/* Is there an enemy of side that side sees adjacent to h? */
static bool
enemy_adjacent(const struct game *g, int side, struct hex h)
{
	const int *nb;
	int i, d;

	if (uidx_around(g, h, &nb) >= 0) {
		for (d = 0; d < 6; d++)
			for (i = uidx_head_of(nb[d]); i >= 0;
			    i = uidx.next[i])
				if (g->units[i].side != side &&
				    pw_alive(&g->units[i]) &&
				    pw_visible(g, side, i))
					return true;
		return false;
	}
	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side != side && hex_adjacent(g->units[i].pos,
		    h) && pw_alive(&g->units[i]) && pw_visible(g, side, i))
			return true;
	return false;
}

int
pw_nearest_seen_enemy(const struct game *g, int side, struct hex h)
{
	int i, best = 1000, d;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side != side &&
		    (d = hex_distance(g->units[i].pos, h)) < best &&
		    pw_alive(&g->units[i]) && pw_visible(g, side, i))
			best = d;
	return best;
}

/* pw_retreat_hex with the index answering: the same choice, with each
 * enemy unit's visibility to the unit's side asked once (nothing moves
 * while it chooses) and the units in and next to each hex read from the
 * index. */
#define RETREAT_SORT_D 64  /* distances retreat_indexed sorts by counting */
static bool
retreat_indexed(const struct game *g, int i, const int *nb, struct hex *out)
{
	const struct game_unit *u = &g->units[i];
	int d, j, e, score, best = -1, ne = 0;
	/* The enemy units by their distance from the unit (d0): a hex next
	 * to it is at least d0 - 1 from each. */
	struct enemy_at { int j, d0; struct hex pos; } small[128], *enemy, x,
	    raw_small[128], *raw;
	/* By unit: 0 not asked, 1 seen, 2 not seen. */
	unsigned char seen_small[128], *seen;
	/* By distance (+ 1): the enemies nearer, for the sort. */
	int cnt[RETREAT_SORT_D + 1], maxd = 0;

	enemy = g->nunits <= 128 ? small : xmalloc(sizeof *enemy *
	    (size_t)g->nunits);
	raw = g->nunits <= 128 ? raw_small : xmalloc(sizeof *raw *
	    (size_t)g->nunits);
	seen = g->nunits <= 128 ? seen_small : xmalloc((size_t)g->nunits);
	memset(seen, 0, (size_t)g->nunits);
	for (j = 0; j < g->nunits; j++)
		if (g->units[j].side != u->side && pw_alive(&g->units[j])) {
			x.j = j;
			x.pos = g->units[j].pos;
			x.d0 = hex_distance(x.pos, u->pos);
			if (x.d0 > maxd)
				maxd = x.d0;
			raw[ne++] = x;
		}
	/* Sorted by d0, those at the same distance in unit order (stable):
	 * by counting when the distances are small, else by insertion. */
	if (maxd < RETREAT_SORT_D) {
		memset(cnt, 0, sizeof *cnt * (size_t)(maxd + 2));
		for (e = 0; e < ne; e++)
			cnt[raw[e].d0 + 1]++;
		for (d = 1; d <= maxd; d++)
			cnt[d] += cnt[d - 1];
		for (e = 0; e < ne; e++)
			enemy[cnt[raw[e].d0]++] = raw[e];
	} else
		for (j = 0; j < ne; j++) {
			x = raw[j];
			for (e = j; e > 0 && enemy[e - 1].d0 > x.d0; e--)
				enemy[e] = enemy[e - 1];
			enemy[e] = x;
		}
#define SEEN(j) (seen[j] ? seen[j] == 1 : (seen[j] = \
	pw_visible(g, u->side, (j)) ? 1 : 2) == 1)
	for (d = 0; d < 6; d++) {
		struct hex n = hex_neighbour(u->pos, d);
		int k = nb[d], t, near = 1000, dd;
		bool empty = true;

		if (k < 0 || (t = los_cache.terr[k]) == PW_T_RIVER)
			continue;
		for (j = uidx.head[k]; j >= 0 && empty; j = uidx.next[j]) {
			const struct game_unit *o = &g->units[j];

			if (pw_alive(o) || (pw_kind_is(o, PW_MINES) &&
			    pw_visible(g, u->side, j)) ||
			    pw_kind_is(o, PW_WIRE) || pw_kind_is(o, PW_GAS))
				empty = false;
		}
		if (!empty)
			continue;
		/* enemy_adjacent(g, u->side, n): an enemy it sees 1 from n
		 * (so at most 2 from the unit: the first of the list). */
		for (e = 0; e < ne && enemy[e].d0 <= 2 && empty; e++)
			if (hex_distance(enemy[e].pos, n) == 1 &&
			    SEEN(enemy[e].j))
				empty = false;
		if (!empty)
			continue;
		/* pw_nearest_seen_enemy(g, u->side, n): the least distance
		 * from n to an enemy its side sees, whichever order the
		 * enemies are tried in (here the nearest to the unit first);
		 * none d0 - 1 or more away can be nearer than one found. */
		for (e = 0; e < ne && enemy[e].d0 - 1 < near; e++)
			if ((dd = hex_distance(enemy[e].pos, n)) < near &&
			    SEEN(enemy[e].j))
				near = dd;
		score = (t == PW_T_WOOD || t == PW_T_BUA || t == PW_T_FORT ||
		    t == PW_T_TRENCH ? 100 : 0) + near;
		if (score > best) {
			best = score;
			*out = n;
		}
	}
#undef SEEN
	if (enemy != small)
		free(enemy);
	if (raw != raw_small)
		free(raw);
	if (seen != seen_small)
		free(seen);
	return best >= 0;
}

bool
pw_retreat_hex(const struct game *g, int i, struct hex *out)
{
	const struct game_unit *u = &g->units[i];
	int d, j, score, best = -1;
	const int *nb;

	if (uidx_around(g, u->pos, &nb) >= 0)
		return retreat_indexed(g, i, nb, out);
	for (d = 0; d < 6; d++) {
		struct hex n = hex_neighbour(u->pos, d);
		int t = pw_terrain(g, n);
		bool empty = true;

		if (t < 0 || t == PW_T_RIVER)
			continue;
		for (j = 0; j < g->nunits && empty; j++) {
			const struct game_unit *o = &g->units[j];

			/* Not into a gas cloud either: a unit entering one
			 * is hit (issue 13 item 3), and every side sees
			 * gas. */
			/* Minefields only those the side knows of: a hidden
			 * one is walked into, as by a move (fog of war,
			 * issue 13 item 8). */
			if (hex_eq(o->pos, n) && o->placed &&
			    (pw_alive(o) || (pw_kind_is(o, PW_MINES) &&
			    pw_visible(g, u->side, j)) ||
			    pw_kind_is(o, PW_WIRE) ||
			    pw_kind_is(o, PW_GAS)))
				empty = false;
		}
		if (!empty || enemy_adjacent(g, u->side, n))
			continue;
		score = (pw_cover(g, n) ? 100 : 0) +
		    pw_nearest_seen_enemy(g, u->side, n);
		if (score > best) {
			best = score;
			*out = n;
		}
	}
	return best >= 0;
}

void
pw_orders_init(struct pw_orders *o, int side)
{
	memset(o, 0, sizeof *o);
	o->side = side;
	o->retreat = PW_RETREAT_ALWAYS;
	memset(o->unit_retreat, -1, sizeof o->unit_retreat);
	o->nunit_retreat = GAME_MAX_UNITS;
}

/* --- windows -------------------------------------------------------------- */

/* One simultaneous window per turn: both sides send artillery targets, a
 * prioritised activation list and their retreat choices. */
static bool
pw_next_window(const struct game *g, struct window_spec *w)
{
	if (g->status == GAME_FINISHED)
		return false;
	memset(w, 0, sizeof *w);
	w->turn = g->turn;
	w->number = 1;
	w->kind = WINDOW_ORDERS;
	strlcpy_(w->name, "orders", sizeof w->name);
	w->sides = (1u << PW_BLUE) | (1u << PW_RED);
	return true;
}

/* --- parsing -------------------------------------------------------------- */

/* strcmp(w, lit) == 0 for an order word w (an ORDERS_WORD_MAX array, so
 * the literal's bytes and its end may be read from it): one fixed-size
 * compare, no call. */
#define WORD_IS(w, lit) (memcmp((w), lit, sizeof lit) == 0)
_Static_assert(ORDERS_WORD_MAX >= 8, "WORD_IS reads up to 8 bytes");

static int
parse_retreat(const char *s)
{
	/* s is an order word (WORD_IS). */
	if (WORD_IS(s, "always"))
		return PW_RETREAT_ALWAYS;
	if (WORD_IS(s, "never"))
		return PW_RETREAT_NEVER;
	if (WORD_IS(s, "cover"))
		return PW_RETREAT_COVER;
	return -1;
}

static const char *const retreat_names[] = { "always", "never", "cover" };

/* strcasecmp(a, b) == 0, compared here for ASCII (unit ids are short);
 * strcasecmp answers when a byte is not ASCII. */
static bool
same_id(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a,
	    *y = (const unsigned char *)b;
	int c, d;

	for (;; x++, y++) {
		if (*x >= 0x80 || *y >= 0x80)
			return strcasecmp((const char *)x, (const char *)y) == 0;
		c = *x >= 'A' && *x <= 'Z' ? *x - 'A' + 'a' : *x;
		d = *y >= 'A' && *y <= 'Z' ? *y - 'A' + 'a' : *y;
		if (c != d)
			return false;
		if (c == '\0')
			return true;
	}
}

/* The units' ids of one game by a hash of their ASCII lower case (open
 * addressing, the first unit of each id), made for a parse: the parser
 * looks an id up for each line. */
#define IDTAB_MAX 512
struct idtab {
	const struct game *g;
	int size;                 /* a power of two, 0: no table */
	short slot[IDTAB_MAX];    /* unit index + 1, 0 empty */
	/* Each slot's id in ASCII lower case, zero-padded to 16 bytes: two
	 * ids are the same ignoring case (same_id, for ASCII ids) when
	 * their keys are equal. */
	uint64_t key[IDTAB_MAX][2];
};
static _Thread_local const struct idtab *parse_ids;

/* id in ASCII lower case, zero-padded, into key and the hash of it; -1 if
 * a byte is not ASCII, -2 if it is longer than any id (GAME_ID_MAX - 1
 * bytes) can be. */
static long
id_key(const char *id, uint64_t key[2])
{
	unsigned char b[16];
	const unsigned char *p = (const unsigned char *)id;
	uint64_t h;
	int n, c;

	memset(b, 0, sizeof b);
	for (n = 0; (c = p[n]) != '\0'; n++) {
		if (c >= 0x80)
			return -1;
		if (n >= 15) {
			/* Too long; still -1 for a byte that is not ASCII
			 * (the scan answers then). */
			for (; p[n] != '\0'; n++)
				if (p[n] >= 0x80)
					return -1;
			return -2;
		}
		b[n] = (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	memcpy(&key[0], b, 8);
	memcpy(&key[1], b + 8, 8);
	h = key[0] * 0x9e3779b97f4a7c15ULL ^ key[1] * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (long)(h & 0x7fffffffUL);
}

static bool same_id(const char *, const char *);

/* Fill t with g's units' ids; size 0 (no table) when there are too
 * many units or an id is not ASCII. */
static void
idtab_make(struct idtab *t, const struct game *g)
{
	int i, k;
	long h;
	uint64_t key[2];

	t->g = g;
	t->size = 0;
	if (g->nunits > IDTAB_MAX / 2)
		return;
	for (t->size = 16; t->size < 2 * g->nunits; t->size *= 2)
		;
	memset(t->slot, 0, sizeof t->slot[0] * (size_t)t->size);
	for (i = 0; i < g->nunits; i++) {
		if ((h = id_key(g->units[i].id, key)) < 0) {
			t->size = 0;
			return;
		}
		for (k = (int)(h & (t->size - 1)); t->slot[k] != 0 &&
		    (t->key[k][0] != key[0] || t->key[k][1] != key[1]);
		    k = (k + 1) & (t->size - 1))
			;
		if (t->slot[k] == 0) {  /* the first unit of this id */
			t->slot[k] = (short)(i + 1);
			t->key[k][0] = key[0];
			t->key[k][1] = key[1];
		}
	}
}

/* The last table made on this thread and the ids (all GAME_ID_MAX bytes
 * of each unit's) it was made from: the next parse of a game whose units
 * have the same ids, in the same order, uses it as it is (the two sides'
 * files of a window, the opponent's check, the next turn). */
static _Thread_local struct {
	struct idtab t;
	char (*ids)[GAME_ID_MAX];
	int n, cap;
	bool made;
} idcache;

/* The id table of g's units for a parse (owned by idcache). */
static const struct idtab *
idtab_for(const struct game *g)
{
	int i;

	if (idcache.made && idcache.n == g->nunits) {
		for (i = 0; i < g->nunits; i++)
			if (memcmp(idcache.ids[i], g->units[i].id,
			    GAME_ID_MAX) != 0)
				break;
		if (i == g->nunits) {
			idcache.t.g = g;
			return &idcache.t;
		}
	}
	idtab_make(&idcache.t, g);
	if (g->nunits > idcache.cap) {
		idcache.cap = g->nunits;
		idcache.ids = xrealloc(idcache.ids, sizeof *idcache.ids *
		    (size_t)idcache.cap);
	}
	for (i = 0; i < g->nunits; i++)
		memcpy(idcache.ids[i], g->units[i].id, GAME_ID_MAX);
	idcache.n = g->nunits;
	idcache.made = true;
	return &idcache.t;
}

/* game_unit_index(g, id): the first unit whose id is id ignoring case,
 * from the parse's table when there is one, else with the first letters
 * compared before the whole ids. */
static int
unit_index(const struct game *g, const char *id)
{
	int i, c = (unsigned char)id[0], lc;
	const struct idtab *t = parse_ids;
	long h;
	uint64_t key[2];

	if (t != NULL && t->g == g && t->size > 0 &&
	    (h = id_key(id, key)) != -1) {
		if (h == -2)  /* longer than any id */
			return -1;
		for (i = (int)(h & (t->size - 1)); t->slot[i] != 0;
		    i = (i + 1) & (t->size - 1))
			if (t->key[i][0] == key[0] && t->key[i][1] == key[1])
				return t->slot[i] - 1;
		return -1;
	}

	if (c == '\0')
		return game_unit_index(g, id);
	lc = c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
	for (i = 0; i < g->nunits; i++) {
		int u = (unsigned char)g->units[i].id[0];

		if (u >= 'A' && u <= 'Z')
			u = u - 'A' + 'a';
		if (u == lc && same_id(g->units[i].id, id))
			return i;
	}
	return -1;
}

/* A unit of side by id, alive, given unit_index(g, id) as i; -1 with an
 * error otherwise. */
static int
own_unit_at(const struct game *g, int side, const struct order_line *l,
    const char *id, int i, struct order_errors *errs)
{
	if (i < 0 || pw_is_marker(&g->units[i])) {
		orders_error(errs, l->lineno, "no unit '%s' (expected one of "
		    "your unit ids, e.g. %s)", id, side == PW_BLUE ? "b3" :
		    "r3");
		return -1;
	}
	if (g->units[i].side != side) {
		orders_error(errs, l->lineno, "unit %s is not yours", id);
		return -1;
	}
	if (!pw_alive(&g->units[i])) {
		orders_error(errs, l->lineno, "unit %s has been destroyed", id);
		return -1;
	}
	return i;
}

/* A unit of side by id, alive; -1 with an error otherwise. */
static int
own_unit(const struct game *g, int side, const struct order_line *l,
    const char *id, struct order_errors *errs)
{
	return own_unit_at(g, side, l, id, unit_index(g, id), errs);
}

static bool
hex_word(const struct game *g, const struct order_line *l, int w,
    struct hex *h, struct order_errors *errs)
{
	char a[8], b[8];

	if (w >= l->nwords) {
		orders_error(errs, l->lineno, "expected a hex after '%s'",
		    l->words[w - 1]);
		return false;
	}
	/* game_on_map, from the armed cache's box when it can. */
	if (!hex_parse_label(&g->layout, l->words[w], h) ||
	    hex_at(g, *h) == NULL) {
		struct hex_offset o = { g->layout.cols - 1,
			g->layout.rows - 1 };
		struct hex_offset z = { 0, 0 };

		orders_error(errs, l->lineno, "expected a hex of the map (%s to "
		    "%s), got '%s'", hex_label(&g->layout,
		    hex_from_offset(&g->layout, z), a, sizeof a),
		    hex_label(&g->layout, hex_from_offset(&g->layout, o), b,
		    sizeof b), l->words[w]);
		return false;
	}
	return true;
}

static bool
is_clause_word(const char *w)
{
	/* Only the words with w's first letter are compared, none when a
	 * digit follows it (a hex label). */
	if (w[0] != '\0' && w[1] >= '0' && w[1] <= '9')
		return false;
	switch (w[0]) {
	case 'm':
		return WORD_IS(w, "move");
	case 'f':
		return WORD_IS(w, "face") || WORD_IS(w, "fire");
	case 'c':
		return WORD_IS(w, "cc") || WORD_IS(w, "clear");
	case 'l':
		return WORD_IS(w, "load") || WORD_IS(w, "lay");
	case 'u':
		return WORD_IS(w, "unload") || WORD_IS(w, "unwire");
	case 'w':
		return WORD_IS(w, "wire");
	case 'h':
		return WORD_IS(w, "hold");
	case 's':
		return WORD_IS(w, "stay");
	default:
		return false;
	}
}

/* Refuse the clauses of a (parsed from line l) that can never be legal,
 * whatever the enemy does: nothing but the unit's own orders and the
 * fixed terrain decides them (issue 13 item 7). A path into a river, on
 * past a wood, ford or trench it must stop in, longer than the unit's
 * allowance (the road bonus only along a road, one hex out of a wood or
 * a crossing), fire at a hex beyond its range from every hex it may stand
 * in, close combat with a hex next to none of them, a carried unit that
 * fights, loading into a transport elsewhere or one that cannot carry
 * it. What the enemy's moves can spoil is accepted (pw_parse notes it).
 * False after adding the errors. */
static bool
check_act(const struct game *g, const struct order_line *l,
    const struct pw_act *a, struct order_errors *errs)
{
	const struct game_unit *u = &g->units[a->unit];
	const struct pw_type *t = pw_type(u);
	struct hex at[1 + PW_PATH_MAX + PW_CLAUSES_MAX];
	int nat = 1, k, n, tt, d, best;
	bool carried = u->attached >= 0, ok = true, road;
	char x[8], y[8];

	at[0] = u->pos;
	for (k = 0; k < a->nclause; k++) {
		const struct pw_clause *c = &a->c[k];

		switch (c->kind) {
		case PW_CL_MOVE:
			road = pw_road(g, u->pos);
			for (n = 0; n < c->n; n++) {
				tt = pw_terrain(g, c->h[n]);
				road = road && pw_road(g, c->h[n]);
				if (tt == PW_T_RIVER) {
					orders_error(errs, l->lineno, "%s is "
					    "river: no unit enters it (cross "
					    "at a ford)", hex_label(&g->layout,
					    c->h[n], x, sizeof x));
					return false;
				}
				if ((tt == PW_T_WOOD || tt == PW_T_FORD ||
				    tt == PW_T_TRENCH) && n + 1 < c->n) {
					orders_error(errs, l->lineno, "%s must "
					    "stop in %s (%s): the path cannot "
					    "go on to %s this turn", u->id,
					    hex_label(&g->layout, c->h[n], x,
					    sizeof x), tt == PW_T_WOOD ? "a wood"
					    : tt == PW_T_FORD ? "a ford" :
					    "a trench", hex_label(&g->layout,
					    c->h[n + 1], y, sizeof y));
					return false;
				}
			}
			if ((pw_terrain(g, u->pos) == PW_T_WOOD ||
			    (u->flags & PW_F_CROSSING)) && c->n > 1) {
				orders_error(errs, l->lineno, "%s moves 1 hex "
				    "this turn (out of %s), the path has %d",
				    u->id, (u->flags & PW_F_CROSSING) ?
				    "a ford or trench it is crossing" :
				    "a wood", c->n);
				return false;
			}
			if (c->n > t->move && !road) {
				orders_error(errs, l->lineno, "%s moves at most "
				    "%d hexes; %d only if the whole move is "
				    "along a road, and this path leaves it",
				    u->id, t->move, t->move + 1);
				return false;
			}
			for (n = 0; n < c->n && nat < (int)(sizeof at /
			    sizeof at[0]); n++)
				at[nat++] = c->h[n];
			break;
		case PW_CL_FIRE:
			best = 1000;
			for (n = 0; n < nat; n++)
				if ((d = hex_distance(at[n], c->h[0])) < best)
					best = d;
			if (best > t->range) {
				orders_error(errs, l->lineno, "%s (%s) reaches "
				    "%d hexes: %s is %d from %s%s", u->id,
				    t->name, t->range, hex_label(&g->layout,
				    c->h[0], x, sizeof x), best, nat > 1 ?
				    "the nearest hex of its path, " : "",
				    nat > 1 ? "at best" : hex_label(&g->layout,
				    u->pos, y, sizeof y));
				ok = false;
			}
			break;
		case PW_CL_CC:
			if (carried) {
				orders_error(errs, l->lineno, "%s is carried: "
				    "unload it before it fights", u->id);
				ok = false;
				break;
			}
			for (n = 0; n < nat; n++)
				if (hex_adjacent(at[n], c->h[0]))
					break;
			if (n == nat) {
				orders_error(errs, l->lineno, "%s cannot close "
				    "with %s: it is not next to any hex %s can "
				    "be in when it fights (%s%s)", u->id,
				    hex_label(&g->layout, c->h[0], x, sizeof x),
				    u->id, hex_label(&g->layout, u->pos, y,
				    sizeof y), nat > 1 ? " and its path" : "");
				ok = false;
			}
			/* A win advances into the hex. */
			if (nat < (int)(sizeof at / sizeof at[0]))
				at[nat++] = c->h[0];
			break;
		case PW_CL_LOAD:
			if (!hex_eq(g->units[c->arg].pos, u->pos)) {
				orders_error(errs, l->lineno, "%s cannot load "
				    "into %s: %s is in %s, %s in %s (both "
				    "must be in the same hex)", u->id,
				    g->units[c->arg].id, u->id,
				    hex_label(&g->layout, u->pos, x, sizeof x),
				    g->units[c->arg].id, hex_label(&g->layout,
				    g->units[c->arg].pos, y, sizeof y));
				ok = false;
			} else if (!pw_can_carry(g, c->arg, a->unit)) {
				orders_error(errs, l->lineno, "%s (%s) cannot "
				    "carry or tow %s (%s)", g->units[c->arg].id,
				    pw_type(&g->units[c->arg])->name, u->id,
				    t->name);
				ok = false;
			}
			break;
		case PW_CL_UNLOAD:
			carried = false;
			break;
		default:
			break;
		}
	}
	return ok;
}

/* Parse "UNIT clause..." into a (unit: unit_index of its first word);
 * false on error. */
static bool
parse_act(const struct game *g, int side, const struct order_line *l,
    int unit, struct pw_act *a, struct order_errors *errs)
{
	const struct game_unit *u;
	const struct pw_type *t;
	struct hex cur;
	int w = 1, i, moves = 0, fires = 0, max;
	char x[8], y[8];

	if ((a->unit = own_unit_at(g, side, l, l->words[0], unit, errs)) < 0)
		return false;
	u = &g->units[a->unit];
	t = pw_type(u);
	cur = u->pos;
	a->line = l->lineno;
	if (l->nwords < 2) {
		orders_error(errs, l->lineno, "expected what %s does: move HEX.., "
		    "face DIR, fire HEX, cc HEX, load UNIT, unload, wire, "
		    "unwire, lay HEX, clear HEX or hold", l->words[0]);
		return false;
	}
	while (w < l->nwords) {
		struct pw_clause *c;
		const char *v = l->words[w++];

		if (a->nclause == PW_CLAUSES_MAX) {
			orders_error(errs, l->lineno, "at most %d actions per "
			    "unit", PW_CLAUSES_MAX);
			return false;
		}
		c = &a->c[a->nclause];
		memset(c, 0, sizeof *c);
		if (WORD_IS(v, "move")) {
			c->kind = PW_CL_MOVE;
			if (moves++) {
				orders_error(errs, l->lineno, "a unit moves only "
				    "once a turn");
				return false;
			}
			if (u->attached >= 0) {
				orders_error(errs, l->lineno, "%s is carried: "
				    "unload it first (it moves with its "
				    "transport)", u->id);
				return false;
			}
			while (w < l->nwords && !is_clause_word(l->words[w])) {
				if (c->n == PW_PATH_MAX) {
					/* The unit's allowance, not the
					 * parser's limit (issue 13 item 9). */
					orders_error(errs, l->lineno, "%s moves "
					    "at most %d hexes (%d along a "
					    "road), the path has more than %d",
					    u->id, t->move, t->move + 1,
					    PW_PATH_MAX);
					return false;
				}
				if (!hex_word(g, l, w, &c->h[c->n], errs))
					return false;
				if (!hex_adjacent(cur, c->h[c->n])) {
					orders_error(errs, l->lineno, "%s is not "
					    "adjacent to %s (a path goes hex by "
					    "hex through the edges)",
					    hex_label(&g->layout, c->h[c->n], x,
					    sizeof x), hex_label(&g->layout,
					    cur, y, sizeof y));
					return false;
				}
				cur = c->h[c->n++];
				w++;
			}
			if (c->n == 0) {
				orders_error(errs, l->lineno, "expected the "
				    "hexes of the path after 'move'");
				return false;
			}
			max = t->move + 1;
			if (c->n > max) {
				orders_error(errs, l->lineno, "%s moves at most "
				    "%d hexes (%d with the road bonus), the "
				    "path has %d", u->id, t->move, max, c->n);
				return false;
			}
		} else if (WORD_IS(v, "face")) {
			c->kind = PW_CL_FACE;
			if (w >= l->nwords ||
			    (c->arg = pw_dir_parse(g, l->words[w])) < 0) {
				orders_error(errs, l->lineno, "expected a "
				    "direction after 'face': %s",
				    g->layout.orient == HEX_FLAT ?
				    "n, ne, se, s, sw or nw" :
				    "ne, e, se, sw, w or nw");
				return false;
			}
			w++;
		} else if (WORD_IS(v, "fire")) {
			c->kind = PW_CL_FIRE;
			if (fires++) {
				orders_error(errs, l->lineno, "a unit fires only "
				    "once a turn");
				return false;
			}
			if (t->weapon == PW_W_NONE) {
				orders_error(errs, l->lineno, "%s (%s) has no "
				    "weapon to fire in its activation%s", u->id,
				    t->name, (t->cls & PW_C_ART) ? "; artillery "
				    "fires with 'shoot' in the artillery phase" :
				    "");
				return false;
			}
			if (!hex_word(g, l, w++, &c->h[0], errs))
				return false;
			c->n = 1;
		} else if (WORD_IS(v, "cc")) {
			c->kind = PW_CL_CC;
			if (!hex_word(g, l, w++, &c->h[0], errs))
				return false;
			c->n = 1;
			if (w < l->nwords && WORD_IS(l->words[w], "stay")) {
				c->arg = 1;
				w++;
			}
		} else if (WORD_IS(v, "load")) {
			int ti;

			c->kind = PW_CL_LOAD;
			if (w >= l->nwords) {
				orders_error(errs, l->lineno, "expected 'load "
				    "TRANSPORT'");
				return false;
			}
			if ((ti = own_unit(g, side, l, l->words[w++], errs)) <
			    0)
				return false;
			c->arg = ti;
		} else if (WORD_IS(v, "unload")) {
			c->kind = PW_CL_UNLOAD;
			if (u->attached < 0) {
				orders_error(errs, l->lineno, "%s is not "
				    "carried or towed", u->id);
				return false;
			}
		} else if (WORD_IS(v, "wire") || WORD_IS(v, "unwire")) {
			c->kind = v[0] == 'w' ? PW_CL_WIRE : PW_CL_UNWIRE;
		} else if (WORD_IS(v, "lay") || WORD_IS(v, "clear")) {
			c->kind = v[0] == 'l' ? PW_CL_LAY : PW_CL_CLEAR;
			if (pw_kind(u) != PW_ENG) {
				orders_error(errs, l->lineno, "only Engineers "
				    "lay or clear minefields");
				return false;
			}
			if (!hex_word(g, l, w++, &c->h[0], errs))
				return false;
			c->n = 1;
			if (!hex_adjacent(u->pos, c->h[0])) {
				orders_error(errs, l->lineno, "the minefield hex "
				    "must be adjacent to %s", u->id);
				return false;
			}
		} else if (WORD_IS(v, "hold")) {
			c->kind = PW_CL_HOLD;
		} else {
			orders_error(errs, l->lineno, "unknown action '%s'; "
			    "expected move, face, fire, cc, load, unload, wire, "
			    "unwire, lay, clear or hold", v);
			return false;
		}
		a->nclause++;
	}
	for (i = 0; i < a->nclause; i++)
		if ((a->c[i].kind >= PW_CL_LOAD && a->c[i].kind <= PW_CL_CLEAR)
		    && moves) {
			orders_error(errs, l->lineno, "%s cannot move in the "
			    "turn it loads, unloads, wires or works", u->id);
			return false;
		}
	return check_act(g, l, a, errs);
}

/* Comment lines for the acknowledgement: what in the accepted orders only
 * the enemy's moves this turn can still spoil (everything else that could
 * never be legal was refused). */
static void
spoil_notes(const struct game *g, const struct pw_orders *o,
    struct sbuf *canon)
{
	int i, j, n = 0;
	char a[8];

	for (i = 0; i < o->nact; i++) {
		const struct pw_act *act = &o->act[i];
		const char *id = g->units[act->unit].id;

		for (j = 0; j < act->nclause; j++) {
			const struct pw_clause *c = &act->c[j];

			if (c->kind != PW_CL_MOVE && c->kind != PW_CL_FIRE &&
			    c->kind != PW_CL_CC)
				continue;
			if (n++ == 0)
				sbuf_puts(canon, "# Accepted. Only the enemy's "
				    "moves this turn can still spoil these\n# "
				    "(hexpost checks them when the unit "
				    "acts; the rest can never fail):\n");
			if (c->kind == PW_CL_MOVE)
				sbuf_printf(canon, "#   %s move: it stops on "
				    "entering a hex next to an enemy unit, and "
				    "enters no hex an enemy unit holds\n", id);
			else if (c->kind == PW_CL_FIRE)
				sbuf_printf(canon, "#   %s fire %s: a unit "
				    "moving into the line of sight blocks it, "
				    "and the range counts from where %s "
				    "stands\n", id, hex_label(&g->layout,
				    c->h[0], a, sizeof a), id);
			else
				sbuf_printf(canon, "#   %s cc %s: an enemy unit "
				    "must be in %s, next to %s, when it "
				    "acts\n", id, hex_label(&g->layout, c->h[0],
				    a, sizeof a), a, id);
		}
	}
}

/* pw_parse without the caches of the map and the kinds. */
static int
parse_orders(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs, int *seen)
{
	struct pw_orders *o = xmalloc(sizeof *o);
	size_t before = errs->n, k, nu;
	/* By unit: the line that activates it, that shoots with it, that
	 * gives its retreat choice (0 none), in seen (3 * nu entries). */
	int *seen_act, *seen_shot, *seen_retreat, i, j, r;
	int retreat_line = 0;
	char a[8], why[160];

	/* As pw_orders_init, with only the game's units' retreat choices
	 * cleared (the whole struct is some 40 KB, written twice a window
	 * in a simulation); the shots and activations are written as they
	 * are parsed. */
	nu = (size_t)(g->nunits < GAME_MAX_UNITS ? g->nunits : GAME_MAX_UNITS);
	o->side = side;
	o->nshot = 0;
	o->nact = 0;
	o->retreat = PW_RETREAT_ALWAYS;
	memset(o->unit_retreat, -1, nu);
	o->nunit_retreat = (int)nu;
	/* Indexed by unit only: the game's units are enough to clear. */
	seen_act = seen;
	seen_shot = seen + nu;
	seen_retreat = seen + 2 * nu;
	memset(seen_act, 0, nu * sizeof seen_act[0]);
	memset(seen_shot, 0, nu * sizeof seen_shot[0]);
	memset(seen_retreat, 0, nu * sizeof seen_retreat[0]);
	if (strcmp(w->name, "standing") == 0) {
		orders_error(errs, 0, "portable-modern takes no standing "
		    "orders: put 'retreat always|never|cover' in each turn's "
		    "file");
		free(o);
		*out = NULL;
		return HP_EINVAL;
	}
	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];
		const char *verb = l->words[0];

		if (WORD_IS(verb, "shoot")) {
			struct pw_shot *s = &o->shot[o->nshot];
			const struct pw_type *t;

			if (l->nwords < 3 || l->nwords > 4 || (l->nwords == 4 &&
			    strcmp(l->words[3], "gas") != 0)) {
				orders_error(errs, l->lineno, "expected 'shoot "
				    "UNIT HEX' or 'shoot UNIT HEX gas'");
				continue;
			}
			if (o->nshot == PW_SHOTS_MAX) {
				orders_error(errs, l->lineno, "too many shoot "
				    "lines");
				continue;
			}
			if ((i = own_unit(g, side, l, l->words[1], errs)) < 0)
				continue;
			t = pw_type(&g->units[i]);
			if (!(t->cls & PW_C_ART)) {
				orders_error(errs, l->lineno, "%s (%s) is not "
				    "artillery: it fires with 'fire' in its "
				    "activation", l->words[1], t->name);
				continue;
			}
			if (seen_shot[i]) {
				orders_error(errs, l->lineno, "%s already shoots "
				    "on line %d (once a turn)", l->words[1],
				    seen_shot[i]);
				continue;
			}
			if (!hex_word(g, l, 2, &s->target, errs))
				continue;
			/* Nothing moves before the artillery phase: a shot
			 * that cannot be fired now never can (issue 13 item
			 * 6). */
			if (!pw_art_can_fire(g, i, s->target, why,
			    sizeof why)) {
				orders_error(errs, l->lineno, "%s cannot shoot "
				    "at %s: %s", l->words[1], hex_label(
				    &g->layout, s->target, a, sizeof a), why);
				continue;
			}
			s->gas = l->nwords == 4;
			if (s->gas && !game_option_flag(g, "gas")) {
				orders_error(errs, l->lineno, "gas shells need "
				    "the campaign option 'gas'");
				continue;
			}
			if (s->gas && (g->units[i].flags & PW_F_GAS)) {
				orders_error(errs, l->lineno, "%s has fired its "
				    "one gas shell", l->words[1]);
				continue;
			}
			s->unit = i;
			s->line = l->lineno;
			seen_shot[i] = l->lineno;
			o->nshot++;
		} else if (WORD_IS(verb, "retreat")) {
			if (l->nwords == 2 &&
			    (r = parse_retreat(l->words[1])) >= 0) {
				if (retreat_line) {
					orders_error(errs, l->lineno, "the "
					    "retreat choice is already given on "
					    "line %d", retreat_line);
					continue;
				}
				retreat_line = l->lineno;
				o->retreat = r;
			} else if (l->nwords == 3 &&
			    (r = parse_retreat(l->words[2])) >= 0) {
				if ((i = own_unit(g, side, l, l->words[1],
				    errs)) < 0)
					continue;
				/* Like the side-wide line: a second one is
				 * an error, not a silent override (issue 13
				 * item 9). */
				if (i < GAME_MAX_UNITS && seen_retreat[i]) {
					orders_error(errs, l->lineno, "the "
					    "retreat choice for %s is already "
					    "given on line %d", l->words[1],
					    seen_retreat[i]);
					continue;
				}
				if (i < GAME_MAX_UNITS)
					seen_retreat[i] = l->lineno;
				o->unit_retreat[i] = (signed char)r;
			} else
				orders_error(errs, l->lineno, "expected 'retreat "
				    "always|never|cover' or 'retreat UNIT "
				    "always|never|cover'");
		} else {
			struct pw_act *act = &o->act[o->nact];

			if ((i = unit_index(g, verb)) < 0) {
				orders_error(errs, l->lineno, "unknown order '%s';"
				    " expected shoot, retreat or a unit id "
				    "followed by its actions", verb);
				continue;
			}
			if (o->nact == PW_ACTS_MAX) {
				orders_error(errs, l->lineno, "too many "
				    "activation lines");
				continue;
			}
			/* Only what parse_act reads before it writes: its
			 * clauses are each cleared as they are added, and no
			 * reader goes past nclause. */
			act->unit = -1;
			act->line = 0;
			act->nclause = 0;
			if (!parse_act(g, side, l, i, act, errs))
				continue;
			if (seen_act[act->unit]) {
				orders_error(errs, l->lineno, "%s is already on "
				    "the activation list on line %d (a unit is "
				    "activated once a turn)", verb,
				    seen_act[act->unit]);
				continue;
			}
			if (seen_shot[act->unit] && !(pw_type(&g->units[
			    act->unit])->cls & PW_C_SELFPROP)) {
				for (j = 0; j < act->nclause; j++)
					if (act->c[j].kind == PW_CL_MOVE)
						break;
				if (j < act->nclause) {
					orders_error(errs, l->lineno, "%s shoots "
					    "on line %d: artillery that fired "
					    "may not move", verb,
					    seen_shot[act->unit]);
					continue;
				}
			}
			seen_act[act->unit] = l->lineno;
			o->nact++;
		}
	}
	if (errs->n > before) {
		free(o);
		*out = NULL;
		return HP_EINVAL;
	}
	/* The canonical form, unless nobody reads it. */
	if (canon->discard) {
		*out = o;
		return HP_OK;
	}
	for (i = 0; i < o->nshot; i++)
		sbuf_printf(canon, "shoot %s %s%s\n", g->units[o->shot[i].unit].id,
		    hex_label(&g->layout, o->shot[i].target, a, sizeof a),
		    o->shot[i].gas ? " gas" : "");
	for (i = 0; i < o->nact; i++) {
		const struct pw_act *act = &o->act[i];

		sbuf_puts(canon, g->units[act->unit].id);
		for (j = 0; j < act->nclause; j++) {
			const struct pw_clause *c = &act->c[j];
			int n;

			switch (c->kind) {
			case PW_CL_MOVE:
				sbuf_puts(canon, " move");
				for (n = 0; n < c->n; n++)
					sbuf_printf(canon, " %s", hex_label(
					    &g->layout, c->h[n], a, sizeof a));
				break;
			case PW_CL_FACE:
				sbuf_printf(canon, " face %s",
				    pw_dir_name(g, c->arg));
				break;
			case PW_CL_FIRE:
			case PW_CL_CC:
			case PW_CL_LAY:
			case PW_CL_CLEAR:
				sbuf_printf(canon, " %s %s%s", c->kind ==
				    PW_CL_FIRE ? "fire" : c->kind == PW_CL_CC ?
				    "cc" : c->kind == PW_CL_LAY ? "lay" :
				    "clear", hex_label(&g->layout, c->h[0], a,
				    sizeof a), c->kind == PW_CL_CC && c->arg ?
				    " stay" : "");
				break;
			case PW_CL_LOAD:
				sbuf_printf(canon, " load %s",
				    g->units[c->arg].id);
				break;
			case PW_CL_UNLOAD:
				sbuf_puts(canon, " unload");
				break;
			case PW_CL_WIRE:
				sbuf_puts(canon, " wire");
				break;
			case PW_CL_UNWIRE:
				sbuf_puts(canon, " unwire");
				break;
			case PW_CL_HOLD:
				sbuf_puts(canon, " hold");
				break;
			}
		}
		sbuf_puts(canon, "\n");
	}
	sbuf_printf(canon, "retreat %s\n", retreat_names[o->retreat]);
	for (i = 0; i < g->nunits && i < GAME_MAX_UNITS; i++)
		if (o->unit_retreat[i] >= 0)
			sbuf_printf(canon, "retreat %s %s\n", g->units[i].id,
			    retreat_names[(int)o->unit_retreat[i]]);
	spoil_notes(g, o, canon);
	*out = o;
	return HP_OK;
}

static int
pw_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	/* The map does not change while orders are parsed. Three ints a
	 * unit for parse_orders, on the stack when the units are few (a
	 * frame of GAME_MAX_UNITS of them has its pages probed at every
	 * call). */
	int small[3 * 128], *seen;
	size_t nu = (size_t)(g->nunits < GAME_MAX_UNITS ? g->nunits :
	    GAME_MAX_UNITS);
	bool begun = pw_los_cache_begin(g);
	int rc;

	const struct idtab *outer = parse_ids;

	seen = nu <= 128 ? small : xmalloc(3 * nu * sizeof *seen);
	parse_ids = idtab_for(g);
	rc = parse_orders(g, w, side, b, out, canon, errs, seen);
	parse_ids = outer;
	if (seen != small)
		free(seen);
	pw_los_cache_end(begun);
	return rc;
}

static void
pw_free_orders(void *p)
{
	free(p);
}

static void
pw_order_template(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	/* Clockwise from the top: n ne se s sw nw (flat), ne e se sw w nw
	 * (pointy). */
	static const int flat_order[6] = { 2, 1, 0, 5, 4, 3 };
	static const int pointy_order[6] = { 1, 0, 5, 4, 3, 2 };
	const int *order = g->layout.orient == HEX_FLAT ? flat_order :
	    pointy_order;
	char a[8];
	int i, d;

	sbuf_printf(b, "# %s, turn %d. One order per line; '#' starts a "
	    "comment.\n", g->sides[side].label, w->turn);
	sbuf_puts(b, "# Artillery phase (artillery fires without activation; "
	    "guns that fire\n# may not move this turn):\n"
	    "#   shoot UNIT HEX [gas]\n"
	    "# Activation list, in priority order: hexpost throws your "
	    "activation dice\n# and activates the first units the score "
	    "allows; the rest are reported\n# as not activated. Actions run "
	    "in the order written:\n"
	    "#   UNIT move HEX HEX.. face DIR fire HEX cc HEX [stay]\n"
	    "#   UNIT load TRANSPORT | unload | wire | unwire | lay HEX | "
	    "clear HEX | hold\n"
	    "# Hits that let a unit retreat 1 hex or lose 1 SP: your "
	    "standing choice\n#   retreat always|never|cover   "
	    "(cover: stay if in cover)\n#   retreat UNIT always|never|cover\n");
	sbuf_printf(b, "# Directions: %s\n", g->layout.orient == HEX_FLAT ?
	    "n ne se s sw nw" : "ne e se sw w nw");
	sbuf_printf(b, "# Activation dice this turn: %d\n",
	    pw_activation_dice(g, side));
	sbuf_puts(b, "# Your units:\n");
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (u->side != side || !pw_alive(u))
			continue;
		sbuf_printf(b, "#   %-4s %-24s %-4s facing %-2s SP %d%s\n",
		    u->id, pw_type(u)->name, hex_label(&g->layout, u->pos, a,
		    sizeof a), pw_dir_name(g, u->facing), u->strength,
		    u->attached >= 0 ? " (carried)" : "");
		/* Its neighbours by direction: odd and even columns make
		 * them easy to get wrong (issue 13 item 9). */
		sbuf_puts(b, "#        next:");
		for (d = 0; d < 6; d++) {
			int dir = order[d];
			struct hex nb = hex_neighbour(u->pos, dir);

			if (game_on_map(g, nb))
				sbuf_printf(b, " %s %s", pw_dir_name(g, dir),
				    hex_label(&g->layout, nb, a, sizeof a));
		}
		sbuf_puts(b, "\n");
	}
	sbuf_puts(b, "retreat cover\n");
}

const struct ruleset ruleset_pw = {
	.name = "portable-modern",
	.title = "Big Board Portable Wargame: Modern",
	.seed = "002",
	.options_help = "cyclists     Blue's b6 Infantry are Cyclists "
	    "(optional rule)\ntank-riders  Tanks may carry an Infantry Unit "
	    "(optional rule)\ngas          each Artillery Unit has one Gas "
	    "Shell (optional rule)\nturns=N      turn limit (default 20)",
	.setup = pw_setup,
	.default_scenario = "river-crossing",
	.next_window = pw_next_window,
	.parse = pw_parse,
	.free_orders = pw_free_orders,
	.resolve = pw_resolve,
	.victory = pw_victory,
	.opponent = pw_opponent,
	.render_map = pw_render_map,
	.status = pw_status,
	.order_template = pw_order_template,
	.picture = pw_picture,
	.opponent_parsed = pw_opponent_parsed,
};
