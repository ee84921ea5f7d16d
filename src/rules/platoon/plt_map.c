/* plt_map: the platoon ruleset's data and geometry: profiles (as game
 * vars, so a scenario can add its own), the terrain table, the scenario
 * set-up, line of sight, cover, paths and coherency, the map as drawn in
 * reports and the status lines. Readings: docs/rules/platoon.md. The map
 * cache (per thread: look-ups by hex index, lines of sight by pair of
 * hexes, profiles by kind; plt_cache_begin/_end) and the path search are
 * described where they are defined and in docs/ARCHITECTURE.md, 3.1; so
 * are the set-up kept per thread ("the set-up kept"), the straight-cost
 * paths read off a cone and the guided search that give the same paths
 * as the whole search ("straight-cost paths", "guided search"). */
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platoon.h"
#include "render.h"
#include "scenario.h"

/* The terrain table (docs/rules/platoon.md, "1.4" and "1.5.3"). */
static const struct plt_terrain terrains[] = {
	{ "open", 0, false, false, false },
	{ "scrub", 1, false, false, false },
	{ "grass", 1, false, false, false },
	{ "lightwoods", 2, true, false, false },
	{ "heavywoods", 4, true, false, false },
	{ "urban", 4, true, false, false },
	{ "closeurban", 4, true, true, false },
	{ "fortified", 5, true, false, false },
	{ "bunker", 6, true, false, false },
	{ "trench", 4, false, false, false },
	{ "sandbags", 3, false, false, false },
	{ "rough", 0, false, true, false },
	{ "river", 0, false, true, false },
	{ "lake", 0, false, false, true },
	{ "cliff", 0, false, false, true },
	{ "volcano", 0, false, false, true },
};
#define NTERRAIN (int)(sizeof terrains / sizeof terrains[0])
static const char tcode[NTERRAIN + 1] = " ,\"wWUCFKTSr~LXV";

static const char *const edge_names[PLT_E_NKINDS] = { "none", "hedge",
	"fence", "wall", "bocage", "highwall", "wire" };
static const int edge_cost[PLT_E_NKINDS] = { 0, 1, 1, 1, 3, 3, 3 };
static const int edge_cover[PLT_E_NKINDS] = { 0, 1, 0, 2, 2, 3, 0 };

static const char *const home_names[] = { "north", "south", "east", "west" };

const char *const plt_order_names[] = { "none", "advance", "assault",
	"fallback", "engage", "reform" };

/* --- small helpers --------------------------------------------------------- */

/* Kept inside a scope (plt_cache_begin; see "the map cache" below). */
struct pcache {
	char kind[GAME_KIND_MAX];
	bool ok;
	struct plt_profile p;
};
#define PCACHE_MAX 32
static _Thread_local int scope;
static _Thread_local struct pcache pcache[PCACHE_MAX];
static _Thread_local int npcache;
/* The pcache entry of each unit, for the units array it was found in
 * inside one top-level scope (pgen: counted up as each begins). */
static _Thread_local unsigned pgen;
static _Thread_local struct {
	const struct game_unit *units;
	unsigned gen, stamp;
	int cap;
	unsigned *at;
	int *slot;
} ucache;
struct mapc {
	struct game_hex *map;  /* copy of the hexes it was built from */
	const struct game_hex *src; /* the array last compared whole */
	int nmap, n;
	struct hex_layout lay;
	const struct plt_terrain **ter;  /* NULL: no hex or unknown terrain */
	int *elev;             /* 0 off the map */
	int *ghi;              /* index of the game hex, -1 none */
	int *enter;            /* cm to enter, -1 impassable or no hex */
	int *nb;               /* nb[i * 6 + d]: neighbour's index, -1 off */
	int *step;             /* step[i * 6 + d]: cm to step there (entry
	                        * and the obstacle between), -1 impossible */
	int *nbs;              /* nbs[i * 6 + d]: nb, or n where step is -1
	                        * (the path search's hex never entered) */
	struct hex *hx;        /* hx[i]: the hex of index i */
	char *road;            /* road[i]: the hex carries a road */
	signed char *cov;      /* cov[t * n + f]: plt_cover + 1, 0 not yet
	                        * (made when first asked) */
	int *los;              /* los[a * n + b]: 0 not yet walked, 1 blocked
	                        * whatever the squads, else 2 + offset in st */
	int *st;               /* at an offset: count, then (h, alt) pairs */
	size_t nst, capst;
};

static _Thread_local struct mapc mc;
/* A lazy scope (plt_cache_begin_lazy) whose map, or profiles, nobody
 * asked for yet: checked when first asked. */
static _Thread_local bool lazy_map, lazy_pf;
static void lazy_profiles(const struct game *);
static _Thread_local const struct game *scope_game; /* see mapc_get */
static struct mapc *mapc_scoped(const struct game *);
static inline int hidx(const struct game *, struct hex);

/* The game hex at h (row-major fast path, then a search), or NULL. */
static const struct game_hex *
hex_at(const struct game *g, struct hex h)
{
	struct hex_offset o = hex_to_offset(&g->layout, h);
	int i;

	if (o.col < 0 || o.row < 0 || o.col >= g->layout.cols ||
	    o.row >= g->layout.rows)
		return NULL;
	i = o.row * g->layout.cols + o.col;
	if (i < g->nhex && hex_eq(g->hexes[i].h, h))
		return &g->hexes[i];
	return game_hex_at_c(g, h);
}

/* Index of terrain name (up to '+'), -1 if unknown. */
static int
terrain_index(const char *name)
{
	size_t n = strcspn(name, "+");
	int i;

	for (i = 0; i < NTERRAIN; i++)
		if (terrains[i].name[0] == name[0] &&
		    strncmp(terrains[i].name, name, n) == 0 &&
		    terrains[i].name[n] == '\0')
			return i;
	return -1;
}

/* The terrain entry of h (a static table row), NULL off the map. */
const struct plt_terrain *
plt_terrain(const struct game *g, struct hex h)
{
	const struct mapc *m = mapc_scoped(g);
	const struct game_hex *gh;
	int i;

	if (m != NULL)
		return (i = hidx(g, h)) >= 0 ? m->ter[i] : NULL;
	if ((gh = hex_at(g, h)) == NULL || (i = terrain_index(gh->terrain)) <
	    0)
		return NULL;
	return &terrains[i];
}

/* Does h carry a road? */
bool
plt_road(const struct game *g, struct hex h)
{
	const struct mapc *m = mapc_scoped(g);
	const struct game_hex *gh;
	int i;

	if (m != NULL)
		return (i = hidx(g, h)) >= 0 && m->road[i];
	gh = hex_at(g, h);

	return gh != NULL && strstr(gh->terrain, "+road") != NULL;
}

/* The elevation of h, 0 off the map. */
int
plt_elev(const struct game *g, struct hex h)
{
	const struct mapc *m = mapc_scoped(g);
	const struct game_hex *gh;
	int i;

	if (m != NULL)
		return (i = hidx(g, h)) >= 0 ? m->elev[i] : 0;
	gh = hex_at(g, h);

	return gh != NULL ? gh->elevation : 0;
}

/* The obstacle (enum plt_edge) on the side dir of h. */
int
plt_edge(const struct game *g, struct hex h, int dir)
{
	const struct mapc *m = mapc_scoped(g);
	const struct game_hex *gh;
	int i;

	if (m != NULL)
		gh = (i = hidx(g, h)) >= 0 && m->ghi[i] >= 0 ?
		    &g->hexes[m->ghi[i]] : NULL;
	else
		gh = hex_at(g, h);

	if (gh == NULL || dir < 0 || dir > 5 || gh->edge[dir] < 0 ||
	    gh->edge[dir] >= PLT_E_NKINDS)
		return PLT_E_NONE;
	return gh->edge[dir];
}

/* The squad standing in h, -1 if none. */
int
plt_squad_at(const struct game *g, struct hex h)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (hex_eq(g->units[i].pos, h) && plt_alive(g, i))
			return i;
	return -1;
}

/* The distance between two hex centres in cm. */
int
plt_dist_cm(struct hex a, struct hex b)
{
	return PLT_CM_PER_HEX * hex_distance(a, b);
}

/* "PREFIX.N" into key (size bytes, cut short as snprintf would), without
 * printf: such keys are read at every resolution step. */
void
plt_key(char *key, size_t size, const char *prefix, int n)
{
	char t[12];
	unsigned u = n < 0 ? 0u - (unsigned)n : (unsigned)n;
	size_t k = 0;
	int m = 0;

	do
		t[m++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (n < 0)
		t[m++] = '-';
	for (; *prefix != '\0' && k + 1 < size; prefix++)
		key[k++] = *prefix;
	if (k + 1 < size)
		key[k++] = '.';
	while (m > 0 && k + 1 < size)
		key[k++] = t[--m];
	key[k] = '\0';
}

/* --- profiles (game vars "pf.KIND.x") ------------------------------------- */

/* Write "pf.KIND.WHAT" into key (size bytes, cut short as snprintf
 * would), without printf: profiles are read in hot loops. */
static void
pkey(char *key, size_t size, const char *kind, const char *what)
{
	const char *part[4] = { "pf.", kind, ".", what };
	size_t n = 0;
	int k;

	for (k = 0; k < 4; k++)
		for (const char *c = part[k]; *c != '\0' && n + 1 < size; c++)
			key[n++] = *c;
	key[n] = '\0';
}

/* The profile value what of kind (game var pf.KIND.WHAT), -1 if none. */
static int
pvar(const struct game *g, const char *kind, const char *what)
{
	char key[40];

	pkey(key, sizeof key, kind, what);
	return game_var(g, key, -1);
}

/* Whether kind has a profile (pvar "m" not -1), and then its points
 * (pvar "pt") in *pt: the vars read in one pass, each key's first as
 * game_var finds it. */
static bool
pvar2(const struct game *g, const char *kind, int *pt)
{
	char km[40], kp[40];
	int i, m = -1, fm = 0, fp = 0;

	pkey(km, sizeof km, kind, "m");
	pkey(kp, sizeof kp, kind, "pt");
	*pt = -1;
	for (i = 0; i < g->nvars && !(fm && fp); i++) {
		const char *k = g->vars[i].key;

		if (k[0] != 'p')
			continue;
		if (!fm && strcmp(k, km) == 0) {
			m = g->vars[i].val;
			fm = 1;
		} else if (!fp && strcmp(k, kp) == 0) {
			*pt = g->vars[i].val;
			fp = 1;
		}
	}
	return m >= 0;
}

/* Set the profile value what of kind. */
static void
set_pvar(struct game *g, const char *kind, const char *what, int v)
{
	char key[40];

	pkey(key, sizeof key, kind, what);
	game_set_var(g, key, v);
}

/* Fill p from the vars of kind; false if kind is no profile. */
static bool
profile_of_kind(const struct game *g, const char *kind,
    struct plt_profile *p)
{
	int v;

	memset(p, 0, sizeof *p);
	if ((p->move = pvar(g, kind, "m")) < 0)
		return false;
	strlcpy_(p->id, kind, sizeof p->id);
	v = pvar(g, kind, "ff");
	p->ff[0] = v / 100;
	p->ff[1] = v % 100;
	v = pvar(g, kind, "hw");
	p->hw[0] = v / 100;
	p->hw[1] = v % 100;
	v = pvar(g, kind, "cc");
	p->cc[0] = v / 100;
	p->cc[1] = v % 100;
	p->armour = pvar(g, kind, "ar");
	p->points = pvar(g, kind, "pt");
	return true;
}

/* Fill p with squad unit's profile (its name: the squad's description). */
bool
plt_profile(const struct game *g, int unit, struct plt_profile *p)
{
	const struct plt_profile *r;

	if (unit < 0 || unit >= g->nunits)
		return false;
	if ((r = plt_profile_ref(g, unit)) == NULL) {
		memset(p, 0, sizeof *p); /* as profile_of_kind leaves it */
		return false;
	}
	*p = *r;
	strlcpy_(p->name, g->units[unit].name, sizeof p->name);
	return true;
}

/* Squad unit's profile without its name (see platoon.h). */
const struct plt_profile *
plt_profile_ref(const struct game *g, int unit)
{
	static _Thread_local struct plt_profile one;
	const char *kind;
	int k;

	if (unit < 0 || unit >= g->nunits)
		return NULL;
	kind = g->units[unit].kind;
	if (scope == 0)
		return profile_of_kind(g, kind, &one) ? &one : NULL;
	if (lazy_pf)
		lazy_profiles(g);
	/* The entry found for this unit before in this scope, if any (a
	 * unit's kind does not change). */
	if (ucache.units != g->units || ucache.gen != pgen) {
		ucache.units = g->units;
		ucache.gen = pgen;
		if (++ucache.stamp == 0) { /* wrapped: none is good */
			if (ucache.cap > 0)
				memset(ucache.at, 0, sizeof(unsigned) *
				    (size_t)ucache.cap);
			ucache.stamp = 1;
		}
	}
	if (unit < ucache.cap && ucache.at[unit] == ucache.stamp) {
		k = ucache.slot[unit];
		return pcache[k].ok ? &pcache[k].p : NULL;
	}
	for (k = 0; k < npcache; k++)
		if (pcache[k].kind[0] == kind[0] &&
		    strcmp(pcache[k].kind, kind) == 0)
			break;
	if (k == npcache) {
		if (npcache == PCACHE_MAX || strlen(kind) >= sizeof
		    pcache[0].kind)
			return profile_of_kind(g, kind, &one) ? &one : NULL;
		strlcpy_(pcache[npcache].kind, kind, sizeof pcache[0].kind);
		pcache[npcache].ok = profile_of_kind(g, kind,
		    &pcache[npcache].p);
		npcache++;
	}
	if (unit >= ucache.cap) {
		int cap = unit + 64;

		ucache.at = xrealloc(ucache.at, sizeof(unsigned) *
		    (size_t)cap);
		ucache.slot = xrealloc(ucache.slot, sizeof(int) * (size_t)cap);
		memset(ucache.at + ucache.cap, 0, sizeof(unsigned) *
		    (size_t)(cap - ucache.cap));
		ucache.cap = cap;
	}
	ucache.at[unit] = ucache.stamp;
	ucache.slot[unit] = k;
	return pcache[k].ok ? &pcache[k].p : NULL;
}

/* "A/B" into v[2], each 0..99; false if malformed. */
static bool
slash_pair(const char *s, int *v)
{
	char a[8], *sl;

	if (strlen(s) >= sizeof a)
		return false;
	strlcpy_(a, s, sizeof a);
	if ((sl = strchr(a, '/')) == NULL)
		return false;
	*sl = '\0';
	return orders_parse_int(a, 0, 99, &v[0]) == HP_OK &&
	    orders_parse_int(sl + 1, 0, 99, &v[1]) == HP_OK && v[1] <= v[0];
}

/* Store profile p as game vars (a squad's name keeps the description). */
static void
store_profile(struct game *g, const struct plt_profile *p)
{
	set_pvar(g, p->id, "m", p->move);
	set_pvar(g, p->id, "ff", p->ff[0] * 100 + p->ff[1]);
	set_pvar(g, p->id, "hw", p->hw[0] * 100 + p->hw[1]);
	set_pvar(g, p->id, "cc", p->cc[0] * 100 + p->cc[1]);
	set_pvar(g, p->id, "ar", p->armour);
	set_pvar(g, p->id, "pt", p->points);
}

/* The seed's table ("Points" is a placeholder: the column is missing). */
static const struct plt_profile builtin[] = {
	{ "rifle", "Regular Infantry Squad", 10, { 3, 1 }, { 1, 0 },
	    { 2, 1 }, 2, 2 },
	{ "heavy", "Regular Heavy Weapon Squad", 10, { 2, 1 }, { 2, 1 },
	    { 2, 1 }, 2, 2 },
};

/* --- line of sight, cover, movement ---------------------------------------- */

/* Does hex m block the view of a squad of side between a and b (the
 * squads in occ, or NULL: plt_squad_at)? */
static bool
blocks(const struct game *g, const int *occ, int side, struct hex m, int hi)
{
	const struct plt_terrain *t = plt_terrain(g, m);
	int em = plt_elev(g, m), s;

	if (em > hi)
		return true;
	if (em < hi)
		return false; /* "elements above ... can ALWAYS trace a LoS" */
	if (t != NULL && t->area)
		return true;
	if (occ == NULL)
		s = plt_squad_at(g, m);
	else
		s = (s = hidx(g, m)) >= 0 ? occ[s] : -1;
	return s >= 0 && g->units[s].side != side;
}

/* Can a squad of side at a see b (range, terrain, elevation, squads)? */
bool
plt_los(const struct game *g, int side, struct hex a, struct hex b)
{
	return plt_los_in(g, NULL, side, a, b);
}

/* The cover of a squad at target against fire from from: its terrain or
 * the obstacle on the side facing from, whichever is higher. */
int
plt_cover(const struct game *g, struct hex target, struct hex from)
{
	struct mapc *m = mapc_scoped(g);
	const struct plt_terrain *t;
	int c, n, i, e, dirs[2], it, ifr;
	size_t at = 0;

	/* Inside a scope, kept by pair of hexes (a map's answer). */
	if (m != NULL && (it = hidx(g, target)) >= 0 && (ifr = hidx(g,
	    from)) >= 0) {
		if (m->cov == NULL)
			m->cov = xcalloc((size_t)m->n * (size_t)m->n, 1);
		at = (size_t)it * (size_t)m->n + (size_t)ifr;
		if (m->cov[at] != 0)
			return m->cov[at] - 1;
	} else
		m = NULL;
	t = plt_terrain(g, target);
	c = t != NULL ? t->cover : 0;
	n = hex_facing(target, from, dirs);
	for (i = 0; i < n; i++)
		if ((e = edge_cover[plt_edge(g, target, dirs[i])]) > c)
			c = e;
	if (m != NULL && c >= 0 && c < 120)
		m->cov[at] = (signed char)(c + 1);
	return c;
}

/* The cm it costs to step from a into its neighbour b, -1 if impossible. */
int
plt_step_cost(const struct game *g, struct hex a, struct hex b)
{
	const struct mapc *m = mapc_scoped(g);
	const struct plt_terrain *t;
	int d = hex_direction_to(a, b), i;

	if (d < 0)
		return -1;
	if (m != NULL && (i = hidx(g, a)) >= 0)
		return m->step[i * 6 + d]; /* the same sum, kept */
	t = plt_terrain(g, b);
	if (t == NULL || t->impassable)
		return -1;
	return (t->rough ? 2 : 1) * PLT_CM_PER_HEX +
	    edge_cost[plt_edge(g, a, d)];
}

/* Dijkstra over the map from a: dist[] in cm (-1 unreached) and prev[]
 * by the row-major index; hexes with a squad are closed, and (unless
 * contact) so is every hex next to an enemy squad except as an end. */
struct plt_dij {
	int n;
	int *dist, *prev;
};

/* The row-major index of h, -1 off the layout (platoon's own layout,
 * flat and odd, worked out in line as hex_to_offset does; any other by
 * hex_to_offset). */
static inline int
hidx(const struct game *g, struct hex h)
{
	struct hex_offset o;

	if (g->layout.orient == HEX_FLAT && g->layout.parity == HEX_ODD) {
		o.col = h.q;
		o.row = h.r + (h.q - (h.q % 2 != 0)) / 2;
	} else
		o = hex_to_offset(&g->layout, h);

	if (o.col < 0 || o.row < 0 || o.col >= g->layout.cols ||
	    o.row >= g->layout.rows)
		return -1;
	return o.row * g->layout.cols + o.col;
}

/* The hex of row-major index i. */
static struct hex
hex_of(const struct game *g, int i)
{
	struct hex_offset o = { i % g->layout.cols, i / g->layout.cols };

	return hex_from_offset(&g->layout, o);
}

/* The squads on the map by row-major hex index: occ[i] the lowest-index
 * squad in hex i (as plt_squad_at finds it) or -1. Caller frees. */
static void occ_fill(const struct game *, int *, int);

/* plt_occupancy into occ (see platoon.h). */
void
plt_occupancy_fill(const struct game *g, int *occ, int without)
{
	occ_fill(g, occ, without);
}

int *
plt_occupancy(const struct game *g)
{
	int n = g->layout.cols * g->layout.rows;
	int *occ = xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));

	occ_fill(g, occ, -1);
	return occ;
}

/* plt_occupancy into occ (cols * rows entries), without the squads of
 * platoon without (-1: none left out). */
static void
occ_fill(const struct game *g, int *occ, int without)
{
	int n = g->layout.cols * g->layout.rows, i, j;

	if (n > 0)
		memset(occ, 0xff, sizeof(int) * (size_t)n); /* -1 */
	for (i = g->nunits - 1; i >= 0; i--)
		if (plt_alive(g, i) && (without < 0 || g->units[i].attached !=
		    without) && (j = hidx(g, g->units[i].pos)) >= 0)
			occ[j] = i;
}

/* --- the map cache ---------------------------------------------------------
 *
 * What the hot loops read of one map, by row-major hex index: terrain,
 * elevation, game hex, entry cost, neighbours, and the lines of sight
 * between pairs of hexes as far as the terrain decides them (the hexes
 * where a squad could still block are kept, so a look-up with squads walks
 * only those). One cache a thread (games are resolved and planned on one
 * thread; simulate's workers are processes), for the last map asked: a
 * copy of its hexes and layout is compared whole when it is asked for
 * outside a scope (plt_cache_begin/_end); inside one, where the map of
 * every game asked is the same (a game and its copies), only the layout
 * and the count of hexes are compared. Profiles are kept by kind inside a
 * scope only (nothing sets a profile while a turn is planned or
 * resolved). */

/* Free the arrays of the cache. */
static void
mapc_clear(void)
{
	free(mc.map);
	free(mc.ter);
	free(mc.elev);
	free(mc.ghi);
	free(mc.enter);
	free(mc.nb);
	free(mc.step);
	free(mc.nbs);
	free(mc.hx);
	free(mc.road);
	free(mc.cov);
	free(mc.los);
	free(mc.st);
	memset(&mc, 0, sizeof mc);
}

/* Rebuild the cache for g's map. */
static void
mapc_build(const struct game *g)
{
	size_t sz = sizeof *g->hexes * (size_t)(g->nhex > 0 ? g->nhex : 0);
	int n = g->layout.cols * g->layout.rows, j, d;
	size_t nn = (size_t)(n > 0 ? n : 1);

	mapc_clear();
	mc.map = xmalloc(sz > 0 ? sz : 1);
	if (sz > 0)
		memcpy(mc.map, g->hexes, sz);
	mc.nmap = g->nhex;
	mc.src = g->hexes;
	mc.lay = g->layout;
	mc.n = n > 0 ? n : 0;
	mc.ter = xcalloc(nn, sizeof *mc.ter);
	mc.elev = xcalloc(nn, sizeof *mc.elev);
	mc.ghi = xmalloc(sizeof(int) * nn);
	mc.enter = xmalloc(sizeof(int) * nn);
	mc.nb = xmalloc(sizeof(int) * 6 * nn);
	mc.step = xmalloc(sizeof(int) * 6 * nn);
	mc.nbs = xmalloc(sizeof(int) * 6 * nn);
	mc.los = xcalloc(nn * nn, sizeof *mc.los);
	mc.hx = xmalloc(sizeof *mc.hx * nn);
	mc.road = xcalloc(nn, 1);
	for (j = 0; j < mc.n; j++) {
		struct hex h = hex_of(g, j);
		const struct game_hex *gh = hex_at(g, h);
		int t = gh != NULL ? terrain_index(gh->terrain) : -1;

		mc.ghi[j] = gh != NULL ? (int)(gh - g->hexes) : -1;
		mc.hx[j] = h;
		mc.road[j] = gh != NULL && strstr(gh->terrain, "+road") != NULL;
		mc.elev[j] = gh != NULL ? gh->elevation : 0;
		mc.ter[j] = t >= 0 ? &terrains[t] : NULL;
		mc.enter[j] = t < 0 || terrains[t].impassable ? -1 :
		    (terrains[t].rough ? 2 : 1) * PLT_CM_PER_HEX;
		for (d = 0; d < 6; d++)
			mc.nb[j * 6 + d] = hidx(g, hex_neighbour(h, d));
	}
	for (j = 0; j < mc.n; j++)
		for (d = 0; d < 6; d++) {
			int k = mc.nb[j * 6 + d], e = mc.ghi[j] >= 0 ?
			    g->hexes[mc.ghi[j]].edge[d] : 0;

			mc.step[j * 6 + d] = k < 0 || mc.enter[k] < 0 ? -1 :
			    mc.enter[k] + (e > 0 && e < PLT_E_NKINDS ?
			    edge_cost[e] : 0);
			mc.nbs[j * 6 + d] = mc.step[j * 6 + d] < 0 ? mc.n : k;
		}
}

/* mapc_get past its first test (not inlined: the rare case). */
static __attribute__((noinline)) struct mapc *
mapc_check(const struct game *g)
{
	size_t sz = sizeof *g->hexes * (size_t)(g->nhex > 0 ? g->nhex : 0);
	bool whole = scope == 0 || lazy_map;

	/* A lazy scope's first look at the map: its whole check now. */
	lazy_map = false;
	if (!(mc.map != NULL && mc.nmap == g->nhex &&
	    memcmp(&mc.lay, &g->layout, sizeof mc.lay) == 0 &&
	    (!whole || memcmp(mc.map, g->hexes, sz) == 0)))
		mapc_build(g);
	else if (whole)
		mc.src = g->hexes; /* compared whole: these are the same */
	if (scope > 0)
		scope_game = g;
	return &mc;
}

/* The cache for g's map, built or checked (see above). Inside a scope
 * the game last checked is not asked again: its map and layout do not
 * change before the scope ends. */
static inline struct mapc *
mapc_get(const struct game *g)
{
	if (scope > 0 && g == scope_game)
		return &mc;
	return mapc_check(g);
}

/* Inside a scope, the cache for g's map (built if need be); else NULL. */
static struct mapc *
mapc_scoped(const struct game *g)
{
	return scope > 0 ? mapc_get(g) : NULL;
}

/* Are g's profile vars ("pf.*", in order) those the kept profiles were
 * read from? If not, they are noted as the ones now read from. */
static bool
pf_same(const struct game *g)
{
	static _Thread_local struct game_var saved[GAME_MAX_VARS];
	static _Thread_local int nsaved = -1;
	int i, n = 0;
	bool same = true;

	/* Keys compared whole first (equal arrays: equal keys), by strcmp
	 * only when their bytes past the end differ. */
	for (i = 0; i < g->nvars && same; i++)
		if (g->vars[i].key[0] == 'p' && memcmp(g->vars[i].key, "pf.",
		    3) == 0)
			same = n < nsaved && saved[n].val == g->vars[i].val &&
			    (memcmp(saved[n].key, g->vars[i].key, sizeof
			    saved[n].key) == 0 || strcmp(saved[n].key,
			    g->vars[i].key) == 0) && ++n;
	if (same && n == nsaved)
		return true;
	for (i = n = 0; i < g->nvars && n < GAME_MAX_VARS; i++)
		if (memcmp(g->vars[i].key, "pf.", 3) == 0)
			saved[n++] = g->vars[i];
	nsaved = n;
	return false;
}

/* Begin a scope (nested scopes count): g's map and its profiles are not
 * changed before the matching plt_cache_end. */
void
plt_cache_begin(const struct game *g)
{
	if (scope == 0) {
		pgen++;
		if (!pf_same(g))
			npcache = 0;
		scope_game = NULL;
		(void)mapc_get(g); /* compared whole: not in a scope yet */
		scope_game = g;
	}
	scope++;
}

/* plt_cache_begin for one more step of a resolution whose last step the
 * caller saw end (see plt_resolve): the map was checked whole when that
 * resolution began and nothing but its steps ran since, so only the
 * hexes' array and count are compared, and the profiles kept stay. */
void
plt_cache_continue(const struct game *g)
{
	if (scope == 0 && mc.map != NULL && mc.nmap == g->nhex && mc.src ==
	    g->hexes && memcmp(&mc.lay, &g->layout, sizeof mc.lay) == 0) {
		/* The profiles too are as the step before left them (no
		 * step sets one), and the units are the same: those kept,
		 * and each unit's entry, stay. */
		scope_game = g;
		scope++;
		return;
	}
	plt_cache_begin(g);
}

/* A lazy scope's first look at the profiles: the check begin makes. */
static void
lazy_profiles(const struct game *g)
{
	lazy_pf = false;
	if (!pf_same(g))
		npcache = 0;
	pgen++;
}

/* plt_cache_begin whose checks wait until the map or a profile is first
 * asked for (see platoon.h). */
void
plt_cache_begin_lazy(const struct game *g)
{
	(void)g; /* checked when first asked, whichever game asks */
	if (scope == 0) {
		lazy_map = lazy_pf = true;
		scope_game = NULL; /* mapc_get checks g when first asked */
	}
	scope++;
}

/* End the scope plt_cache_begin began. */
void
plt_cache_end(void)
{
	if (scope > 0 && --scope == 0) {
		scope_game = NULL;
		lazy_map = lazy_pf = false;
	}
}
/* plt_los_in walking the line (a or b off the layout). */
static bool
los_walk(const struct game *g, const int *occ, int side, struct hex a,
    struct hex b)
{
	struct hex_line_step st[HEX_LINE_MAX];
	int n, i, ea = plt_elev(g, a), eb = plt_elev(g, b);
	int hi = ea > eb ? ea : eb;

	if ((n = hex_line(a, b, st, HEX_LINE_MAX)) < 0)
		return false;
	for (i = 1; i < n - 1; i++) {
		if (!blocks(g, occ, side, st[i].h, hi))
			continue;
		if (st[i].tie && !blocks(g, occ, side, st[i].alt, hi))
			continue;
		return false;
	}
	return true;
}

#define LOS_ALWAYS (-1)   /* a step's hex blocks whatever the squads */
#define LOS_NEVER (-2)    /* it never blocks */
#define LOS_NOTIE (-3)    /* the step has no second hex */

/* How hex x blocks a line whose highest end is at hi: LOS_ALWAYS,
 * LOS_NEVER, or its index (a squad of another side there blocks). */
static int
los_class(const struct game *g, const struct mapc *m, struct hex x, int hi)
{
	int i = hidx(g, x);

	if (i < 0)
		return LOS_NEVER; /* no hex, no squad */
	if (m->elev[i] > hi)
		return LOS_ALWAYS;
	if (m->elev[i] < hi)
		return LOS_NEVER;
	if (m->ter[i] != NULL && m->ter[i]->area)
		return LOS_ALWAYS;
	return i;
}

/* Walk the line from index ia to ib once: its entry in m->los. */
static int
los_entry(const struct game *g, struct mapc *m, int ia, int ib)
{
	struct hex_line_step st[HEX_LINE_MAX];
	int n, i, ch, ca, hi = m->elev[ia] > m->elev[ib] ? m->elev[ia] :
	    m->elev[ib];
	size_t at = m->nst, cnt = 0;

	if ((n = hex_line(hex_of(g, ia), hex_of(g, ib), st,
	    HEX_LINE_MAX)) < 0)
		return 1;
	if (m->capst < m->nst + 1 + 2 * (size_t)n) {
		m->capst = (m->nst + 1 + 2 * (size_t)n) * 2;
		m->st = xrealloc(m->st, sizeof *m->st * m->capst);
	}
	m->nst++;
	for (i = 1; i < n - 1; i++) {
		if ((ch = los_class(g, m, st[i].h, hi)) == LOS_NEVER)
			continue;
		ca = st[i].tie ? los_class(g, m, st[i].alt, hi) : LOS_NOTIE;
		if (ca == LOS_NEVER)
			continue;
		if (ch == LOS_ALWAYS && (ca == LOS_NOTIE || ca == LOS_ALWAYS)) {
			m->nst = at;
			return 1;
		}
		m->st[m->nst++] = ch;
		m->st[m->nst++] = ca;
		cnt++;
	}
	m->st[at] = (int)cnt;
	return 2 + (int)at;
}

/* Is there a squad of another side than side in index i (the squads of
 * occ, or NULL: plt_squad_at)? */
static bool
los_enemy(const struct game *g, const int *occ, int side, int i)
{
	int s = occ != NULL ? occ[i] : plt_squad_at(g, hex_of(g, i));

	return s >= 0 && g->units[s].side != side;
}

/* plt_los with the squads of occ (see platoon.h): the terrain's verdict
 * kept per pair of hexes (the map cache), the squads looked at in the
 * hexes where one could block. The same answer as walking the line. */
static bool los_core(const struct game *, const int *,
    struct plt_occ_lazy *, int, struct hex, struct hex);

bool
plt_los_in(const struct game *g, const int *occ, int side, struct hex a,
    struct hex b)
{
	return los_core(g, occ, NULL, side, a, b);
}

/* plt_los_in with the squads filled in lz the first time one could
 * block (see platoon.h). */
bool
plt_los_lazy(const struct game *g, struct plt_occ_lazy *lz, int side,
    struct hex a, struct hex b)
{
	return los_core(g, NULL, lz, side, a, b);
}

/* The squads of lz, filled now if they are not yet. */
static const int *
lazy_occ(const struct game *g, struct plt_occ_lazy *lz)
{
	if (!lz->filled) {
		occ_fill(g, lz->occ, -1);
		lz->filled = true;
	}
	return lz->occ;
}

/* plt_los_in, the squads in occ or (lz not NULL) in lz. */
static bool
los_core(const struct game *g, const int *occ, struct plt_occ_lazy *lz,
    int side, struct hex a, struct hex b)
{
	int ia, ib, e, k, cnt;
	struct mapc *m;
	const int *v;

	if (plt_dist_cm(a, b) > PLT_SIGHT_CM)
		return false;
	if ((ia = hidx(g, a)) < 0 || (ib = hidx(g, b)) < 0)
		return los_walk(g, lz != NULL ? lazy_occ(g, lz) : occ, side, a,
		    b);
	m = mapc_get(g);
	if ((e = m->los[(size_t)ia * (size_t)m->n + (size_t)ib]) == 0)
		e = m->los[(size_t)ia * (size_t)m->n + (size_t)ib] =
		    los_entry(g, m, ia, ib);
	if (e == 1)
		return false;
	v = m->st + (e - 2);
	cnt = v[0];
	if (cnt > 0 && lz != NULL)
		occ = lazy_occ(g, lz);
	for (k = 0; k < cnt; k++) {
		int ch = v[1 + 2 * k], ca = v[2 + 2 * k];

		if (ch != LOS_ALWAYS && !los_enemy(g, occ, side, ch))
			continue;
		if (ca == LOS_NOTIE || ca == LOS_ALWAYS ||
		    los_enemy(g, occ, side, ca))
			return false;
	}
	return true;
}

/* Buckets of the search by cost modulo DIJ_NB: a step costs at most
 * 2 * PLT_CM_PER_HEX + 3 (rough, and the dearest obstacle) = 7 cm. */
#define DIJ_NB 16

/* Sort the n indices of v in increasing order (a bucket: a few). */
static void
dij_sort(int *v, int n)
{
	int i, j, x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Fill r (caller calls dij_free) with the cheapest costs from a, the
 * hexes settled in (cost, index) order, as a heap of (cost, index) would
 * (the same paths): a queue of buckets by cost (Dial's), each sorted by
 * index when its turn comes (every step costs at least 2 cm, so no hex
 * joins the bucket being settled), stale entries skipped; per-search
 * indices of the squads and the terrain by hex, so that no step of the
 * search scans the units or the terrain table. With goals (ngoal > 0
 * row-major indices) it stops once the cheapest goal and every goal as
 * cheap are settled: their costs and paths are final; past bound it
 * stops too (costs up to bound are final). From several starts (src,
 * nsrc; those off the layout left out) each cost is the cheapest from
 * any of them: a path never enters another start's hex (a squad is
 * there). The squads of platoon without (-1: none) are left out, as if
 * not on the map. Inside the search a squad's hex holds -2 - squad in
 * dist (put back to -1 before it returns), the goals are marked by index,
 * and a step that cannot be taken leads to the sentinel index n (mc.nbs;
 * dist[n] is -2): so each step is one test of the cost found. */
static void
dijkstra_from(const struct game *g, int side, const struct hex *src,
    int nsrc, bool contact, const int *goal, int ngoal, int bound,
    int without, struct plt_dij *r)
{
	static _Thread_local int *sdist, *sprev, *socc, *sbk;
	static _Thread_local char *snear, *sgoal;
	static _Thread_local size_t cap;
	int n = g->layout.cols * g->layout.rows, i, d, ia, k, ns = 0;
	int best = -1, *occ, *dist, *prev, nbk[DIJ_NB] = { 0 }, left = 0;
	int cd, nocc = 0;
	const struct mapc *m = mapc_get(g);
	const int *nb = m->nb, *step = m->step, *nbs = m->nbs;
	size_t nn = (size_t)(n > 0 ? n : 1);
	char *near, *isgoal;

	/* Scratch kept per thread: one search's result is read before the
	 * next search begins (dij_free frees nothing). A hex is in a
	 * bucket at most once (it joins one only when its cost drops). */
	if (cap < nn + 1) {
		cap = nn + 1; /* dist[n]: the hex never entered (m->nbs) */
		free(sdist);
		free(sprev);
		free(socc);
		free(snear);
		free(sbk);
		free(sgoal);
		sgoal = xcalloc(cap, 1); /* 0 between searches */
		sdist = xmalloc(sizeof(int) * cap);
		sprev = xmalloc(sizeof(int) * cap);
		socc = xmalloc(sizeof(int) * cap);
		snear = xmalloc(cap);
		sbk = xmalloc(sizeof(int) * cap * DIJ_NB);
	}
	r->n = n;
	r->dist = dist = sdist;
	r->prev = prev = sprev;
	memset(dist, 0xff, sizeof(int) * nn); /* -1 */
	memset(prev, 0xff, sizeof(int) * nn);
	dist[n > 0 ? n : 0] = -2; /* as a squad's hex: never entered */
	for (k = 0; k < nsrc; k++)
		if (hidx(g, src[k]) >= 0)
			ns++;
	if (ns == 0)
		return;
	occ = socc;
	near = snear;
	/* The squads on the map, the lowest-index one of a hex as occ_fill
	 * finds it (those of platoon without left out), marked in dist as
	 * -2 - squad: never entered (below -1: neither unreached nor a
	 * cost); their hexes listed in occ, unmarked when the search ends. */
	for (i = g->nunits - 1; i >= 0; i--)
		if (plt_alive(g, i) && (without < 0 || g->units[i].attached !=
		    without) && (ia = hidx(g, g->units[i].pos)) >= 0) {
			if (dist[ia] == -1)
				occ[nocc++] = ia;
			dist[ia] = -2 - i;
		}
	/* Hexes next to a squad of another side: entered, not passed. */
	if (!contact) {
		memset(near, 0, nn);
		for (k = 0; k < nocc; k++)
			if (g->units[-2 - dist[i = occ[k]]].side != side)
				for (d = 0; d < 6; d++)
					if (nb[i * 6 + d] >= 0)
						near[nb[i * 6 + d]] = 1;
	}
	for (k = 0; k < nsrc; k++)
		if ((ia = hidx(g, src[k])) >= 0 && dist[ia] < 0) {
			dist[ia] = 0;
			sbk[nbk[0]++] = ia;
			left++;
		}
	/* The goals marked by index (unmarked when the search ends). */
	isgoal = sgoal;
	for (k = 0; k < ngoal; k++)
		if (goal[k] >= 0 && goal[k] < n)
			isgoal[goal[k]] = 1;
	for (cd = 0; left > 0; cd++) {
		int *bk = sbk + (size_t)(cd & (DIJ_NB - 1)) * cap, nk, q;

		if ((nk = nbk[cd & (DIJ_NB - 1)]) == 0)
			continue;
		if ((best >= 0 && cd > best) || cd > bound)
			break;
		nbk[cd & (DIJ_NB - 1)] = 0;
		left -= nk;
		dij_sort(bk, nk);
		for (q = 0; q < nk; q++) {
			int cur = bk[q];

			if (dist[cur] != cd)
				continue; /* stale: a cheaper way was found */
			if (best < 0 && isgoal[cur])
				best = cd;
			/* Not a start (a start has no previous hex): may end
			 * next to an enemy, not pass through. */
			if (!contact && prev[cur] >= 0 && near[cur])
				continue;
			for (d = 0; d < 6; d++) {
				int j = nbs[cur * 6 + d], c = step[cur * 6 + d], t;

				if (dist[j] != -1 && dist[j] <= cd + c)
					continue; /* a squad's hex, no step
					           * (j == n) or as cheap */
				dist[j] = cd + c;
				prev[j] = cur;
				t = (int)((unsigned)dist[j] & (DIJ_NB - 1));
				sbk[(size_t)t * cap + (size_t)nbk[t]++] = j;
				left++;
			}
		}
	}
	for (k = 0; k < ngoal; k++)
		if (goal[k] >= 0 && goal[k] < n)
			isgoal[goal[k]] = 0;
	for (k = 0; k < nocc; k++)
		if (dist[occ[k]] < -1)
			dist[occ[k]] = -1; /* a squad's hex: not reached */
}

/* --- straight-cost paths ---------------------------------------------------
 *
 * Every step costs at least PLT_CM_PER_HEX, so a path of k steps to a hex
 * k hexes away whose every step costs that least is a cheapest path, and
 * so is its every prefix: each hex x on it costs PLT_CM_PER_HEX * (hexes
 * from the start). Such hexes ("perfect") lie in the cone of hexes on the
 * shortest step paths from the start to the target, found layer by layer
 * (layer t: t hexes from the start). When the target is perfect,
 * dijkstra_from's path to it is read off the layers without a search: its
 * cost is the least possible, and the previous hex dijkstra_from keeps for
 * a hex x is, among the hexes from which a step of the least cost reaches
 * x at x's cost (the perfect hexes of the layer before that may be passed
 * through), the one it settles first, in (cost, index) order: all cost
 * the same, so the lowest index. Any other case (target not perfect)
 * searches as before. */

struct cone {
	const struct mapc *m;
	int n;                /* m->n the scratch was made for */
	int gen;              /* stamp of this cone in lay_at */
	int *lay_at;          /* index: gen * 64 + layer, when in the cone */
	int *occ_at;          /* index: gen, when a squad is there */
	int *occ_of;          /* the lowest-index squad there */
	int *list;            /* the layers' indices, in order */
	int *occl, nocc;      /* the indices holding a squad */
	int start[PLT_PATH_MAX * 32]; /* layer t starts at list[start[t]] */
};

/* Scratch of the cones, per thread (as dijkstra_from's). */
static _Thread_local struct cone cn;

/* Scratch of the guided search (per thread; stamped by cn.gen). */
static _Thread_local struct {
	int n;
	int *g_at, *g, *done_at, *bk, *goal_at;
} gs;

/* Is there a squad of another side than side next to index i? */
static bool
cone_near(const struct game *g, int side, int i)
{
	const struct mapc *m = cn.m;
	int d, j;

	for (d = 0; d < 6; d++)
		if ((j = m->nb[i * 6 + d]) >= 0 && cn.occ_at[j] == cn.gen &&
		    g->units[cn.occ_of[j]].side != side)
			return true;
	return false;
}

/* May a path pass through index x of layer t (a start may always; else
 * not next to an enemy, unless contact)? */
static bool
cone_pass(const struct game *g, int side, bool contact, int x, int t)
{
	return t == 0 || contact || !cone_near(g, side, x);
}

/* The perfect hexes from a towards target, layers 0..k (k: hexes from a
 * to target; with contact the last layer k is not built, as target holds
 * a squad): into cn; false when not every layer could be (no perfect
 * hex left, or too far for the scratch). */
static bool
cone_build(const struct game *g, int side, struct hex a, struct hex target,
    int k, bool contact, int last)
{
	const struct mapc *m = mapc_get(g);
	int n = m->n, i, t, q, d, ia = hidx(g, a), nl = 0;

	if (cn.m != m || cn.n != n || cn.gen >= INT_MAX / 64 - 1) {
		free(cn.lay_at);
		free(cn.occ_at);
		free(cn.occ_of);
		free(cn.list);
		free(cn.occl);
		cn.occl = xmalloc(sizeof(int) * ((size_t)n + 1));
		cn.lay_at = xcalloc((size_t)n + 1, sizeof(int));
		cn.occ_at = xcalloc((size_t)n + 1, sizeof(int));
		cn.occ_of = xcalloc((size_t)n + 1, sizeof(int));
		cn.list = xmalloc(sizeof(int) * ((size_t)n + 1));
		cn.m = m;
		cn.n = n;
		cn.gen = 0;
		gs.n = -1; /* its stamps are cn.gen's: cleared too */
	}
	cn.gen++;
	/* The squads on the map, the lowest index of a hex last (as
	 * dijkstra_from marks them). */
	cn.nocc = 0;
	for (i = g->nunits - 1; i >= 0; i--)
		if (plt_alive(g, i) && (q = hidx(g, g->units[i].pos)) >= 0) {
			if (cn.occ_at[q] != cn.gen)
				cn.occl[cn.nocc++] = q;
			cn.occ_at[q] = cn.gen;
			cn.occ_of[q] = i;
		}
	/* (The squads above are marked whatever the answer: guided reads
	 * them.) */
	if (ia < 0 || k < 1 || last > k || last < 1 || k >= (int)(sizeof
	    cn.start / sizeof cn.start[0]) - 1 || k >= 64)
		return false;
	cn.start[0] = 0;
	cn.list[nl++] = ia;
	cn.lay_at[ia] = cn.gen * 64;
	for (t = 0; t < last; t++) {
		cn.start[t + 1] = nl;
		for (q = cn.start[t]; q < cn.start[t + 1]; q++) {
			int x = cn.list[q];

			if (!cone_pass(g, side, contact, x, t))
				continue;
			for (d = 0; d < 6; d++) {
				int y = m->nb[x * 6 + d];

				if (y < 0 || m->step[x * 6 + d] != PLT_CM_PER_HEX ||
				    cn.occ_at[y] == cn.gen ||
				    cn.lay_at[y] / 64 == cn.gen ||
				    hex_distance(m->hx[y], target) != k - t - 1)
					continue;
				cn.lay_at[y] = cn.gen * 64 + t + 1;
				cn.list[nl++] = y;
			}
		}
		if (nl == cn.start[t + 1])
			return false;
	}
	cn.start[last + 1] = nl;
	return true;
}

/* The path (without a) to index j of layer t of the cone into path, as
 * dijkstra_from's previous hexes give it; its length, or -1 when longer
 * than max. */
static int
cone_path(const struct game *g, int side, bool contact, int j, int t,
    struct hex *path, int max)
{
	const struct mapc *m = cn.m;
	int d, u, best, len = t;

	if (t > max)
		return -1;
	for (; t > 0; t--) {
		path[t - 1] = m->hx[j];
		best = -1;
		for (d = 0; d < 6; d++)
			if ((u = m->nb[j * 6 + d]) >= 0 && (best < 0 || u < best) &&
			    cn.lay_at[u] == cn.gen * 64 + t - 1 &&
			    m->step[u * 6 + (d + 3) % 6] == PLT_CM_PER_HEX &&
			    cone_pass(g, side, contact, u, t - 1))
				best = u;
		j = best;
	}
	return len;
}

/* --- guided search -----------------------------------------------------------
 *
 * When no straight-cost path reaches the target, the search is guided
 * (A*): hexes are taken by cost + PLT_CM_PER_HEX * (hexes left to the
 * target, less sub), which never exceeds what is left to pay (every step
 * costs at least PLT_CM_PER_HEX, and a step changes the hexes left by at
 * most one), and every hex whose sum is at most the cheapest goal's cost
 * is taken, with its cost final. That covers every hex a cheapest path to
 * a goal passes through, so the path is read back as dijkstra_from's
 * previous hexes give it: from each hex, the hex from which a step of
 * its cost leads there, cheapest first, then the lowest index (the order
 * dijkstra_from settles them in), among the hexes taken that a path may
 * pass through. The goals: the cheapest, then the lowest index. */


/* The heuristic of index x: PLT_CM_PER_HEX * (hexes to tgt - sub). */
static inline int
gs_h(const struct mapc *m, int x, struct hex tgt, int sub)
{
	int k = hex_distance(m->hx[x], tgt) - sub;

	return k > 0 ? PLT_CM_PER_HEX * k : 0;
}

/* Search from a to the ngoal goals (indices) guided towards tgt (see
 * above): the cheapest goal's cost (-1 if none is reached), that goal in
 * *bj and the path to it (without a) in path, its length in *len (-1 if
 * longer than max). The squads as cone_build found them (call it first:
 * cn.gen current). */
static int
guided(const struct game *g, int side, int ia, const int *goal, int ngoal,
    struct hex tgt, int sub, bool contact, int *bj, struct hex *path,
    int max, int *len)
{
	const struct mapc *m = cn.m;
	int n = m->n, gen = cn.gen, nbk[16] = { 0 }, left = 0, f, best = -1;
	int q, d, k, x, y, c, t, j, u, nb2;

	if (gs.n != n) {
		free(gs.g_at);
		free(gs.g);
		free(gs.done_at);
		free(gs.bk);
		free(gs.goal_at);
		gs.goal_at = xcalloc((size_t)n + 1, sizeof(int));
		gs.g_at = xcalloc((size_t)n + 1, sizeof(int));
		gs.g = xcalloc((size_t)n + 1, sizeof(int));
		gs.done_at = xcalloc((size_t)n + 1, sizeof(int));
		gs.bk = xmalloc(sizeof(int) * 16 * ((size_t)n + 1));
		gs.n = n;
	}
	*bj = -1;
	*len = -1;
	for (k = 0; k < ngoal; k++) /* the goals marked for this search */
		if (goal[k] >= 0 && goal[k] < n)
			gs.goal_at[goal[k]] = gen;
	gs.g_at[ia] = gen;
	gs.g[ia] = 0;
	f = gs_h(m, ia, tgt, sub);
	gs.bk[(f & 15) * (n + 1) + nbk[f & 15]++] = ia;
	left = 1;
	for (; left > 0; f++) {
		int *b = gs.bk + (f & 15) * (n + 1);

		if (best >= 0 && f > best)
			break;
		/* The bucket grows while it is read (a step may keep f). */
		for (q = 0; q < nbk[f & 15]; q++) {
			x = b[q];
			left--;
			if (gs.done_at[x] == gen || gs.g[x] + gs_h(m, x, tgt,
			    sub) != f)
				continue; /* taken, or a dearer way to it */
			gs.done_at[x] = gen;
			if (best < 0 && gs.goal_at[x] == gen)
				best = gs.g[x];
			if (x != ia && !contact && cone_near(g, side, x))
				continue; /* ends there, does not pass */
			for (d = 0; d < 6; d++) {
				if ((y = m->nb[x * 6 + d]) < 0 || (c = m->step[x *
				    6 + d]) < 0 || cn.occ_at[y] == gen)
					continue;
				if (gs.g_at[y] == gen && gs.g[y] <= gs.g[x] + c)
					continue;
				gs.g_at[y] = gen;
				gs.g[y] = gs.g[x] + c;
				t = gs.g[y] + gs_h(m, y, tgt, sub);
				gs.bk[(t & 15) * (n + 1) + nbk[t & 15]++] = y;
				left++;
			}
		}
		nbk[f & 15] = 0;
	}
	if (best < 0)
		return -1;
	for (k = 0; k < ngoal; k++)
		if (goal[k] >= 0 && gs.done_at[goal[k]] == gen &&
		    gs.g[goal[k]] == best && (*bj < 0 || goal[k] < *bj))
			*bj = goal[k];
	/* Its length, then the hexes. */
	for (nb2 = 0, j = *bj; j != ia; nb2++) {
		for (u = -1, d = 0; d < 6; d++) {
			int v = m->nb[j * 6 + d];

			if (v < 0 || gs.done_at[v] != gen || m->step[v * 6 +
			    (d + 3) % 6] < 0 || gs.g[v] + m->step[v * 6 +
			    (d + 3) % 6] != gs.g[j] || (v != ia && !contact &&
			    cone_near(g, side, v)))
				continue;
			if (u < 0 || gs.g[v] < gs.g[u] || (gs.g[v] == gs.g[u] &&
			    v < u))
				u = v;
		}
		if (u < 0)
			return -2; /* cannot be: the caller searches */
		if (nb2 < max)
			cn.list[nb2] = j;
		j = u;
	}
	if (nb2 > max)
		return best;
	for (k = 0; k < nb2; k++)
		path[nb2 - 1 - k] = m->hx[cn.list[k]];
	*len = nb2;
	return best;
}

/* The squads as this thread's last path search found them, and mover
 * at its hex, into occ (see platoon.h). */
bool
plt_path_squads(const struct game *g, int *occ, int mover)
{
	const struct mapc *m = mapc_scoped(g);
	int n = g->layout.cols * g->layout.rows, k, q;

	if (m == NULL || cn.m != m || cn.n != n || n < 1 || cn.gen == 0 ||
	    mover < 0 || mover >= g->nunits)
		return false;
	memset(occ, 0xff, sizeof(int) * (size_t)n); /* -1 */
	for (k = 0; k < cn.nocc; k++)
		occ[cn.occl[k]] = cn.occ_of[cn.occl[k]];
	if (plt_alive(g, mover) && (q = hidx(g, g->units[mover].pos)) >= 0 &&
	    (occ[q] < 0 || mover < occ[q]))
		occ[q] = mover;
	return true;
}

/* dijkstra_from the one start a. */
static void
dijkstra(const struct game *g, int side, struct hex a, bool contact,
    const int *goal, int ngoal, struct plt_dij *r)
{
	dijkstra_from(g, side, &a, 1, contact, goal, ngoal, INT_MAX, -1, r);
}

static void dij_free(struct plt_dij *);

/* The cheapest cost of any of squads mates (nm) to contact with squad e
 * (as the least plt_path_to_contact of each, in one search), -1 if none
 * can reach it for at most bound cm (the search stops past it). */
static int
contact_cost(const struct game *g, int side, const int *mates, int nm,
    int e, int bound)
{
	struct plt_dij r;
	struct hex few[64], *src = nm <= 64 ? few : xmalloc(sizeof *src *
	    (size_t)nm);
	int d, m, j, best = -1, goal[6], ng = 0, near = -1;

	for (m = 0; m < nm; m++) {
		src[m] = g->units[mates[m]].pos;
		if (hex_adjacent(src[m], g->units[e].pos)) {
			if (src != few)
				free(src);
			return 0;
		}
		d = hex_distance(src[m], g->units[e].pos);
		if (near < 0 || d < near)
			near = d;
	}
	/* Every step costs at least PLT_CM_PER_HEX: a squad near hexes
	 * away pays at least that for the near - 1 steps to contact. */
	if (near >= 1 && bound < INT_MAX / 2 && (long)PLT_CM_PER_HEX *
	    (near - 1) > bound) {
		if (src != few)
			free(src);
		return -1;
	}
	/* That least cost is the answer when a squad that near has a
	 * straight-cost path to contact (the cone below; every other
	 * squad's hex is left out of it, as the search leaves it). */
	for (m = 0; m < nm && near >= 2; m++)
		if (hex_distance(src[m], g->units[e].pos) == near &&
		    cone_build(g, side, src[m], g->units[e].pos, near, true,
		    near - 1)) {
			if (src != few)
				free(src);
			best = PLT_CM_PER_HEX * (near - 1);
			return best > bound ? -1 : best;
		}
	for (d = 0; d < 6; d++)
		if ((goal[ng] = hidx(g, hex_neighbour(g->units[e].pos,
		    d))) >= 0)
			ng++;
	dijkstra_from(g, side, src, nm, true, goal, ng, bound, -1, &r);
	for (d = 0; d < ng; d++)
		if ((j = goal[d]) >= 0 && r.dist[j] >= 0 && (best < 0 ||
		    r.dist[j] < best))
			best = r.dist[j];
	dij_free(&r);
	if (src != few)
		free(src);
	return best > bound ? -1 : best;
}

/* Free what dijkstra allocated in r. */
static void
dij_free(struct plt_dij *r)
{
	r->dist = r->prev = NULL; /* scratch of dijkstra_from */
}

/* Write the path of r ending at index j (without its start) into path;
 * its length, or -1 when longer than max. */
static int
dij_path(const struct game *g, const struct plt_dij *r, int j,
    struct hex *path, int max)
{
	int n = 0, k;

	for (k = j; r->prev[k] >= 0; k = r->prev[k])
		n++;
	if (n > max)
		return -1;
	for (k = j, j = n - 1; r->prev[k] >= 0; k = r->prev[k])
		path[j--] = hex_of(g, k);
	return n;
}

/* The squads by hex as plt_occupancy, without platoon p's (see
 * platoon.h). Caller frees. */
int *
plt_occupancy_without(const struct game *g, int p)
{
	int n = g->layout.cols * g->layout.rows;
	int *occ = xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));

	occ_fill(g, occ, p);
	return occ;
}

/* The cost of the straight line of steps hexes from a towards dir when
 * it is a cheapest path for plt_costs_within (see platoon.h), else -1. */
int
plt_straight_cost(const struct game *g, int side, const int *occ,
    struct hex a, int dir, int steps)
{
	const struct mapc *m = mapc_get(g);
	int i = hidx(g, a), k, d, j;

	if (i < 0 || dir < 0 || dir > 5)
		return -1;
	for (k = 0; k < steps; k++) {
		/* The hex left (not the start) may not be next to an enemy:
		 * a path ends there, it does not pass. */
		if (k > 0)
			for (d = 0; d < 6; d++)
				if ((j = m->nb[i * 6 + d]) >= 0 && occ[j] >= 0 &&
				    g->units[occ[j]].side != side)
					return -1;
		if (m->step[i * 6 + dir] != PLT_CM_PER_HEX)
			return -1; /* dearer than the least a step costs */
		i = m->nb[i * 6 + dir];
		if (occ[i] >= 0)
			return -1;
	}
	return PLT_CM_PER_HEX * steps;
}

/* The index of the neighbour of the hex of index i in direction d (see
 * platoon.h). */
int
plt_neighbour_index(const struct game *g, int i, int d)
{
	const struct mapc *m = mapc_scoped(g);

	if (i < 0 || i >= g->layout.cols * g->layout.rows || d < 0 || d > 5)
		return -1;
	return m != NULL ? m->nb[i * 6 + d] : hidx(g,
	    hex_neighbour(hex_of(g, i), d));
}

/* The steps a squad of side walks along path (see platoon.h). */
int
plt_walk_steps(const struct game *g, const int *occ, int side, bool contact,
    struct hex start, const struct hex *path, int np, int lim, int *cost,
    bool *road)
{
	const struct mapc *m = mapc_scoped(g);
	struct hex at = start;
	int k, d, c, j, s, ia = m != NULL ? hidx(g, start) : -1, spent = 0;
	bool touch;

	for (k = 0; k < np; k++) {
		j = m != NULL ? hidx(g, path[k]) : -1;
		if (ia >= 0 && j >= 0) {
			/* The map cache: plt_step_cost's sum, the neighbours
			 * and the road flags kept by index. */
			for (d = 0; d < 6 && m->nb[ia * 6 + d] != j; d++)
				;
			c = d < 6 ? m->step[ia * 6 + d] : -1;
			for (touch = false, d = 0; d < 6 && !contact && !touch;
			    d++)
				touch = (s = m->nb[j * 6 + d]) >= 0 && (s =
				    occ[s]) >= 0 && g->units[s].side != side;
			road[k] = m->road[j];
		} else {
			c = plt_step_cost(g, at, path[k]);
			touch = false;
			if (!contact)
				for (d = 0; d < 6 && !touch; d++)
					touch = (s = hidx(g, hex_neighbour(path[k],
					    d))) >= 0 && (s = occ[s]) >= 0 &&
					    g->units[s].side != side;
			road[k] = plt_road(g, path[k]);
			if (j < 0)
				j = hidx(g, path[k]);
		}
		if (c < 0 || spent + c > lim || (j >= 0 && occ[j] >= 0) ||
		    touch)
			break;
		cost[k] = c;
		spent += c;
		at = path[k];
		ia = j;
		if (m == NULL)
			ia = -1;
	}
	return k;
}

/* The row-major index of h (see platoon.h). */
int
plt_hex_index(const struct game *g, struct hex h)
{
	return hidx(g, h);
}

/* The costs of plt_path from a within bound (see platoon.h): one search
 * stopped past bound, whose costs up to it are those of a search to any
 * one goal (hexes are settled in the same order, and a settled cost and
 * path never change). */
void
plt_costs_within(const struct game *g, int side, struct hex a, int bound,
    int without, int *dist)
{
	struct plt_dij r;
	int i;

	dijkstra_from(g, side, &a, 1, false, NULL, 0, bound, without, &r);
	for (i = 0; i < r.n; i++)
		dist[i] = r.dist[i] >= 0 && r.dist[i] <= bound ? r.dist[i] : -1;
	dij_free(&r);
}

/* Cheapest path from a to b (see platoon.h); its length or -1. */
int
plt_path(const struct game *g, int side, struct hex a, struct hex b,
    bool allow_contact, struct hex *path, int max, int *cost)
{
	struct plt_dij r;
	int j = hidx(g, b), n = -1, k, ia, c, bj;

	*cost = -1;
	if (j < 0)
		return -1;
	k = hex_distance(a, b);
	if (cone_build(g, side, a, b, k, allow_contact, k) &&
	    cn.lay_at[j] == cn.gen * 64 + k) {
		*cost = PLT_CM_PER_HEX * k;
		return cone_path(g, side, allow_contact, j, k, path, max);
	}
	if (k >= 1 && (ia = hidx(g, a)) >= 0 && (c = guided(g, side, ia, &j,
	    1, b, 0, allow_contact, &bj, path, max, &n)) >= -1) {
		*cost = c;
		return c < 0 ? -1 : n;
	}
	dijkstra(g, side, a, allow_contact, &j, 1, &r);
	if (r.dist[j] >= 0) {
		*cost = r.dist[j];
		n = dij_path(g, &r, j, path, max);
	}
	dij_free(&r);
	return n;
}

/* Cheapest path from a to contact with squad e (see platoon.h). */
int
plt_path_to_contact(const struct game *g, int side, struct hex a, int e,
    struct hex *path, int max, int *len)
{
	struct plt_dij r;
	int d, best = -1, bj = -1, goal[6], ng = 0, k, ia;

	*len = 0;
	if (hex_adjacent(a, g->units[e].pos))
		return 0;
	/* The cheapest goals cost PLT_CM_PER_HEX * (k - 1): the perfect
	 * hexes of the cone's layer k - 1 (each next to e), when any. */
	k = hex_distance(a, g->units[e].pos);
	if (cone_build(g, side, a, g->units[e].pos, k, true, k - 1)) {
		for (d = cn.start[k - 1]; d < cn.start[k]; d++)
			if (bj < 0 || cn.list[d] < bj)
				bj = cn.list[d];
		if (path != NULL)
			*len = cone_path(g, side, true, bj, k - 1, path, max);
		return PLT_CM_PER_HEX * (k - 1);
	}
	for (d = 0; d < 6; d++)
		if ((goal[ng] = hidx(g, hex_neighbour(g->units[e].pos,
		    d))) >= 0)
			ng++;
	if (path != NULL && (ia = hidx(g, a)) >= 0 && (best = guided(g, side,
	    ia, goal, ng, g->units[e].pos, 1, true, &bj, path, max,
	    len)) >= -1) {
		if (best < 0)
			*len = 0;
		return best;
	}
	best = bj = -1;
	dijkstra(g, side, a, true, goal, ng, &r);
	for (d = 0; d < 6; d++) {
		int j = hidx(g, hex_neighbour(g->units[e].pos, d));

		if (j < 0 || r.dist[j] < 0)
			continue;
		if (best < 0 || r.dist[j] < best || (r.dist[j] == best &&
		    j < bj)) {
			best = r.dist[j];
			bj = j;
		}
	}
	if (bj >= 0 && path != NULL)
		*len = dij_path(g, &r, bj, path, max);
	dij_free(&r);
	return best;
}

/* --- platoons ----------------------------------------------------------- */

/* Are platoon p's squads one chain of adjacent hexes? (A search over
 * its squads alone: up to 64 without allocating.) */
bool
plt_coherent(const struct game *g, int p)
{
	int few[64], qfew[64], *sq = few, *q = qfew, n = 0, i, k, head = 0;
	int tail = 0;
	char seenfew[64], *seen = seenfew;

	/* One pass for up to 64 squads; a second one for more. */
	for (i = 0; i < g->nunits; i++)
		if (g->units[i].attached == p && plt_alive(g, i)) {
			if (n < 64) {
				seen[n] = 0;
				sq[n] = i;
			}
			n++;
		}
	if (n > 64) {
		sq = xmalloc(sizeof(int) * (size_t)n);
		q = xmalloc(sizeof(int) * (size_t)n);
		seen = xmalloc((size_t)n);
		for (i = n = 0; i < g->nunits; i++)
			if (g->units[i].attached == p && plt_alive(g, i)) {
				seen[n] = 0;
				sq[n++] = i;
			}
	}
	if (n > 0) {
		seen[0] = 1;
		q[tail++] = 0;
	}
	while (head < tail) {
		struct hex c = g->units[sq[q[head++]]].pos;

		for (k = 0; k < n; k++)
			if (!seen[k] && hex_distance(g->units[sq[k]].pos, c) <=
			    1) {
				seen[k] = 1;
				q[tail++] = k;
			}
	}
	if (sq != few) {
		free(sq);
		free(q);
		free(seen);
	}
	return tail == n;
}

/* Count platoon p's squads on the map, reduced and removed. */
void
plt_counts(const struct game *g, int p, int *alive, int *reduced, int *lost)
{
	int i;

	*alive = *reduced = *lost = 0;
	for (i = 0; i < g->nunits; i++) {
		if (g->units[i].attached != p || plt_is_platoon(&g->units[i]))
			continue;
		if (g->units[i].strength <= 0)
			(*lost)++;
		else {
			(*alive)++;
			if (g->units[i].strength == 1)
				(*reduced)++;
		}
	}
}

/* Platoon p's Morale Check Point: half its initial squads, rounded down. */
int
plt_mcp(const struct game *g, int p)
{
	return g->units[p].x[PLT_X_SQUADS0] / 2;
}

/* 2 if all of platoon p's squads are in cover, 1 if at least half, else 0. */
int
plt_cover_level(const struct game *g, int p)
{
	int i, n = 0, in = 0;

	for (i = 0; i < g->nunits; i++) {
		const struct plt_terrain *t;

		if (!plt_alive(g, i) || g->units[i].attached != p)
			continue;
		n++;
		t = plt_terrain(g, g->units[i].pos);
		if (t != NULL && t->cover > 0)
			in++;
	}
	if (n == 0)
		return 0;
	if (in == n)
		return 2;
	return 2 * in >= n ? 1 : 0;
}

/* Side's home table edge (enum plt_home). */
int
plt_home(const struct game *g, int side)
{
	char key[24];
	int h;

	plt_key(key, sizeof key, "home", side);
	h = game_var(g, key, side == 0 ? PLT_SOUTH : PLT_NORTH);
	return h >= 0 && h < 4 ? h : PLT_NORTH;
}

/* Rows or columns from h to side's home edge. */
int
plt_home_dist(const struct game *g, int side, struct hex h)
{
	struct hex_offset o = hex_to_offset(&g->layout, h);

	switch (plt_home(g, side)) {
	case PLT_NORTH:
		return o.row;
	case PLT_SOUTH:
		return g->layout.rows - 1 - o.row;
	case PLT_EAST:
		return g->layout.cols - 1 - o.col;
	default:
		return o.col;
	}
}

/* The nearest enemy squad platoon p sees, and its cost to contact. */
int
plt_nearest_enemy(const struct game *g, int p, int *cost)
{
	return plt_nearest_enemy_within(g, p, INT_MAX, cost);
}

/* plt_nearest_enemy, the cost only up to bound (see platoon.h). */
int
plt_nearest_enemy_within(const struct game *g, int p, int bound, int *cost)
{
	/* Scratch of this thread (nothing here calls back in). */
	static _Thread_local int *socc, *smates;
	static _Thread_local size_t cocc, cmates;
	int i, j, m, best = -1, bd = 0, side = g->units[p].side, nm = 0;
	size_t n = (size_t)(g->layout.cols * g->layout.rows);
	int *mates;
	/* The squads by hex, found only if a line of sight needs them. */
	struct plt_occ_lazy lz;

	if (n < 1)
		n = 1;
	if (cocc < n) {
		free(socc);
		socc = xmalloc(sizeof(int) * n);
		cocc = n;
	}
	if (cmates < (size_t)g->nunits + 1) {
		free(smates);
		smates = xmalloc(sizeof(int) * ((size_t)g->nunits + 1));
		cmates = (size_t)g->nunits + 1;
	}
	lz.occ = socc;
	lz.filled = false;
	mates = smates;

	*cost = -1;
	for (i = 0; i < g->nunits; i++)
		if (plt_alive(g, i) && g->units[i].attached == p)
			mates[nm++] = i;
	for (j = 0; j < g->nunits; j++) {
		int d = -1;

		if (!plt_alive(g, j) || g->units[j].side == side)
			continue;
		for (m = 0; m < nm; m++) {
			int k;

			i = mates[m];
			k = hex_distance(g->units[i].pos, g->units[j].pos);
			/* Only a nearer mate can change the choice. */
			if ((d >= 0 && k >= d) || (best >= 0 && k >= bd) ||
			    !plt_los_lazy(g, &lz, side, g->units[i].pos,
			    g->units[j].pos))
				continue;
			if (d < 0 || k < d)
				d = k;
		}
		if (d >= 0 && (best < 0 || d < bd)) {
			best = j;
			bd = d;
		}
	}
	/* The cheapest of the mates' paths to contact, in one search. */
	if (best >= 0 && bound >= 0)
		*cost = contact_cost(g, side, mates, nm, best, bound);
	return best;
}

/* --- set-up ------------------------------------------------------------------ */

/* Are the campaign options opt all known to platoon? (err if not) */
static bool
option_ok(const char *opt, struct hp_error *err)
{
	char buf[256], *p, *tok, *save = NULL;
	int n;

	strlcpy_(buf, opt, sizeof buf);
	for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if (strcmp(tok, "no-order-advance") == 0 ||
		    strcmp(tok, "move-move-move") == 0)
			continue;
		if (strncmp(tok, "turns=", 6) == 0 &&
		    orders_parse_int(tok + 6, 1, 500, &n) == HP_OK)
			continue;
		if (strcmp(tok, "reveal=each") == 0 ||
		    strcmp(tok, "reveal=list") == 0)
			continue;
		hp_seterr(err, HP_EINVAL, "unknown option '%s' (options: "
		    "no-order-advance, move-move-move, turns=N, "
		    "reveal=list|each)", tok);
		return false;
	}
	return true;
}

/* The hexes of the scenario: terrain by the legend, elevation, roads. */
static void
build_map(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	char roads[sizeof sc->roads], *tok, *save = NULL;
	int col, row, c;
	struct hex h;

	for (c = 0; c < 256; c++)
		if (sc->legend_line[c] != 0 && terrain_index(sc->legend[c]) < 0)
			scenario_build_bad(b, sc->legend_line[c],
			    "legend: no terrain \"%s\" "
			    "in platoon (see docs/rules/platoon.md, \"The "
			    "scenarios\")",
			    sc->legend[c]);
	if (sc->nterrain != sc->rows)
		return;
	for (row = 0; row < sc->rows; row++)
		for (col = 0; col < sc->cols; col++) {
			struct hex_offset o = { col, row };
			struct game_hex *gh;

			c = (unsigned char)sc->terrain[row][col];
			gh = game_add_hex(g, hex_from_offset(&g->layout, o),
			    sc->legend[c]);
			gh->elevation = sc->nelevation ?
			    sc->elevation[row][col] - '0' : 0;
		}
	strlcpy_(roads, sc->roads, sizeof roads);
	for (tok = strtok_r(roads, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		struct game_hex *gh;
		size_t n;

		if (!scenario_build_hex(b, sc->roads_line, "road", tok, &h))
			continue;
		gh = game_hex_at(g, h);
		n = strlen(gh->terrain);
		if (strstr(gh->terrain, "+road") != NULL)
			continue;
		if (n + sizeof "+road" > sizeof gh->terrain) {
			scenario_build_bad(b, sc->roads_line,
			    "road: terrain \"%s\" cannot "
			    "take a road",
			    gh->terrain);
			continue;
		}
		memcpy(gh->terrain + n, "+road", sizeof "+road");
	}
}

/* "option: profile ID MOVE FF HW CC ARMOUR POINTS Description..." */
static void
build_profile(struct scenario_build *b, const struct scenario_item *it)
{
	char w[7][64];
	struct plt_profile p;
	int n = 0;

	memset(&p, 0, sizeof p);
	memset(w, 0, sizeof w);
	n = sscanf(it->value, "%63s %63s %63s %63s %63s %63s %63s %n", w[0],
	    w[1], w[2], w[3], w[4], w[5], w[6], &n) == 7 ? n : -1;
	if (n < 0 || strlen(w[0]) >= sizeof p.id || strcmp(w[0],
	    PLT_PLATOON) == 0 || orders_parse_int(w[1], 1, 99, &p.move) ||
	    !slash_pair(w[2], p.ff) || !slash_pair(w[3], p.hw) ||
	    !slash_pair(w[4], p.cc) || orders_parse_int(w[5], 0, 9,
	    &p.armour) || orders_parse_int(w[6], 0, 999, &p.points)) {
		scenario_build_bad(b, it->line,
		    "option: profile ID MOVE FF/FF HW/HW CC/CC "
		    "ARMOUR POINTS DESCRIPTION (e.g. profile rifle 10 3/1 1/0 "
		    "2/1 2 2 Regular Infantry Squad)");
		return;
	}
	strlcpy_(p.id, w[0], sizeof p.id);
	strlcpy_(p.name, it->value + n, sizeof p.name);
	if (p.name[0] == '\0')
		strlcpy_(p.name, p.id, sizeof p.name);
	store_profile(b->g, &p);
}

/* The description of profile kind (a scenario's, else the built-in). */
static const char *
profile_name(const struct scenario *sc, const char *kind, char *buf,
    size_t len)
{
	int i, n;
	char id[64];

	for (i = sc->noptions - 1; i >= 0; i--) {
		if (strcmp(sc->options[i].name, "profile") != 0 ||
		    sscanf(sc->options[i].value, "%63s %*s %*s %*s %*s %*s "
		    "%*s %n", id, &n) != 1 || strcmp(id, kind) != 0)
			continue;
		strlcpy_(buf, sc->options[i].value + n, len);
		return buf[0] ? buf : kind;
	}
	for (i = 0; i < (int)(sizeof builtin / sizeof builtin[0]); i++)
		if (strcmp(builtin[i].id, kind) == 0)
			return builtin[i].name;
	return kind;
}

/* "option: edge HEX DIR KIND" and "option: home SIDE EDGE". */
static void
build_options(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	int i, k;

	for (i = 0; i < (int)(sizeof builtin / sizeof builtin[0]); i++)
		store_profile(g, &builtin[i]);
	for (i = 0; i < sc->noptions; i++) {
		const struct scenario_item *it = &sc->options[i];
		char w1[64] = "", w2[64] = "", w3[64] = "", extra[8] = "";

		if (strcmp(it->name, "profile") == 0) {
			build_profile(b, it);
			continue;
		}
		k = sscanf(it->value, "%63s %63s %63s %7s", w1, w2, w3, extra);
		if (strcmp(it->name, "edge") == 0)
			scenario_build_edge(b, it->line, k, w1, w2, w3,
			    edge_names, PLT_E_NKINDS);
		else if (strcmp(it->name, "home") == 0)
			scenario_build_home(b, it->line, k, w1, w2);
		else if (strcmp(it->name, "reveal") == 0) {
			if (k != 1 || (strcmp(w1, "each") != 0 &&
			    strcmp(w1, "list") != 0))
				scenario_build_bad(
				    b, it->line, "option: reveal list|each");
			else if (strcmp(w1, "each") == 0)
				game_set_var(g, "reveal", 1);
		} else
			scenario_build_bad(b, it->line,
			    "option: platoon knows profile, edge, "
			    "home and reveal (docs/rules/platoon.md)");
	}
}

/* Platoons and their squads, in the file's order, with every check. */
static void
build_units(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	struct plt_profile pf;
	char name[GAME_NAME_MAX];
	int i, s, p;
	struct hex h;

	for (i = 0; i < sc->nunits; i++) {
		const struct scenario_unit *su = &sc->units[i];
		struct game_unit *u;

		if ((s = game_side_index(g, su->side)) < 0) {
			scenario_build_bad(
			    b, su->line, "unit: no side \"%s\"", su->side);
			continue;
		}
		if (game_unit_index(g, su->id) >= 0) {
			scenario_build_bad(b, su->line,
			    "unit: \"%s\" is listed twice", su->id);
			continue;
		}
		if (strcmp(su->kind, PLT_PLATOON) == 0) {
			if (strcmp(su->at, "-") != 0 || su->carried_by[0]) {
				scenario_build_bad(b, su->line,
				    "unit: a platoon is not on "
				    "the map: unit: ID platoon SIDE -");
				continue;
			}
			u = game_add_unit(g, su->id, PLT_PLATOON, su->id, s);
			u->facing = -1;
			u->strength = 1;
			continue;
		}
		if (!profile_of_kind(g, su->kind, &pf)) {
			scenario_build_bad(b, su->line,
			    "unit: no profile \"%s\" (rifle, "
			    "heavy, or an 'option: profile' line)",
			    su->kind);
			continue;
		}
		p = su->carried_by[0] ? game_unit_index(g, su->carried_by) : -1;
		if (p < 0 || !plt_is_platoon(&g->units[p]) ||
		    g->units[p].side != s) {
			scenario_build_bad(b, su->line,
			    "unit: a squad names its platoon, "
			    "listed before it: unit: ID %s SIDE HEX - - "
			    "PLATOON",
			    su->kind);
			continue;
		}
		if (!scenario_build_hex(b, su->line, "unit", su->at, &h))
			continue;
		if (plt_squad_at(g, h) >= 0) {
			scenario_build_bad(b, su->line,
			    "unit: %s is taken (one squad a hex)", su->at);
			continue;
		}
		if (plt_terrain(g, h) == NULL || plt_terrain(g, h)->impassable) {
			scenario_build_bad(b, su->line,
			    "unit: %s is impassable terrain", su->at);
			continue;
		}
		u = game_add_unit(g, su->id, su->kind, profile_name(sc,
		    su->kind, name, sizeof name), s);
		u->placed = true;
		u->pos = h;
		u->facing = -1;
		u->strength = 2;
		u->attached = p;
		g->units[p].x[PLT_X_SQUADS0]++;
	}
	for (i = 0; i < g->nunits; i++)
		if (plt_is_platoon(&g->units[i]) &&
		    g->units[i].x[PLT_X_SQUADS0] == 0)
			scenario_build_bad(b, 0,
			    "unit: platoon %s has no squads", g->units[i].id);
	for (i = 0; i < g->nunits; i++)
		if (plt_is_platoon(&g->units[i]) && !plt_coherent(g, i))
			scenario_build_bad(b, 0,
			    "unit: platoon %s starts out of coherency "
			    "(its squads must form a chain of adjacent hexes)",
			    g->units[i].id);
}

/* Build g from the scenario sc; HP_EINVAL with every complaint listed. */
static int
setup_build(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	struct scenario_build b = {g, sc, 0};
	const char *turns;
	int i, n;

	if (!option_ok(g->options, err))
		return HP_EINVAL;
	strlcpy_(g->scenario, sc->name, sizeof g->scenario);
	g->layout.orient = HEX_FLAT;
	g->layout.parity = HEX_ODD;
	g->layout.row_base = 1;
	g->layout.cols = sc->cols;
	g->layout.rows = sc->rows;
	if (sc->cols > 26)
		scenario_build_bad(&b, sc->map_line,
		    "map: platoon names columns A to Z: at "
		    "most 26 columns");
	if (sc->nsides < 2)
		scenario_build_bad(&b, sc->nsides ? sc->sides[0].line : 0,
		    "side: platoon "
		    "needs two to four sides");
	g->nsides = sc->nsides;
	for (i = 0; i < sc->nsides; i++) {
		strlcpy_(g->sides[i].name, sc->sides[i].name,
		    sizeof g->sides[i].name);
		strlcpy_(g->sides[i].label, sc->sides[i].label,
		    sizeof g->sides[i].label);
		g->sides[i].ai = true;
	}
	build_map(&b);
	build_options(&b);
	if (sc->nterrain == sc->rows)
		build_units(&b);
	for (i = 0; i < sc->nvars; i++) {
		if (strcmp(sc->vars[i].name, "hw.short.cm") != 0) {
			scenario_build_bad(&b, sc->vars[i].line,
			    "var: platoon knows only "
			    "hw.short.cm (12 or 20)");
			continue;
		}
		n = scenario_var(sc, "hw.short.cm", PLT_HW_SHORT_CM);
		if (n != 12 && n != 20)
			scenario_build_bad(&b, sc->vars[i].line,
			    "var: hw.short.cm is 12 "
			    "(the seed's text) or 20 (its table)");
		game_set_var(g, "hw.short.cm", n);
	}
	for (i = 0; i < sc->nsides; i++) {
		int k, any = 0;

		for (k = 0; k < g->nunits; k++)
			any |= plt_alive(g, k) && g->units[k].side == i;
		if (!any)
			scenario_build_bad(&b, sc->sides[i].line,
			    "side: %s has no squads", sc->sides[i].name);
	}
	n = sc->turns > 0 ? sc->turns : 8;
	if ((turns = game_option(g, "turns")) != NULL)
		orders_parse_int(turns, 1, 500, &n);
	game_set_var(g, "turns", n);
	/* The campaign's option overrides the scenario's. */
	if ((turns = game_option(g, "reveal")) != NULL)
		game_set_var(g, "reveal", strcmp(turns, "each") == 0);
	g->turn = 1;
	g->window = 1;
	if (b.errors > 0) {
		hp_seterr(err, HP_EINVAL, "scenario %s: %d error%s", sc->name,
		    b.errors, b.errors == 1 ? "" : "s");
		return HP_EINVAL;
	}
	return HP_OK;
}

/* --- the set-up kept ------------------------------------------------------
 *
 * A simulation sets up one game after another from the same scenario and
 * options. The set-up reads nothing but the scenario and the game as it
 * is handed over (fresh: no hexes, units or vars), so when both are the
 * same bytes as those of the last set-up that succeeded (the key below:
 * every field of the scenario the set-up reads, arrays by content, and the
 * game's own fields but its name and its array pointers), its result is
 * the same: a copy of the game it built (game_copy), under the new game's
 * name. Kept per thread; any other case builds the game as before. */

struct kbuf {
	unsigned char *p;
	size_t n, cap;
};

/* Append n bytes of v to k. */
static void
kput(struct kbuf *k, const void *v, size_t n)
{
	if (k->n + n > k->cap) {
		k->cap = (k->n + n) * 2;
		k->p = xrealloc(k->p, k->cap);
	}
	if (n > 0)
		memcpy(k->p + k->n, v, n);
	k->n += n;
}

/* Where a key goes: appended to k, or (cmp) compared with k's bytes
 * from at on (same: so far equal). */
struct ksink {
	struct kbuf *k;
	bool cmp, same;
	size_t at;
};

/* Put n bytes of v into the key. */
static void
kemit(struct ksink *o, const void *v, size_t n)
{
	if (!o->cmp) {
		kput(o->k, v, n);
		return;
	}
	if (o->same && (o->at + n > o->k->n || (n > 0 &&
	    memcmp(o->k->p + o->at, v, n) != 0)))
		o->same = false;
	o->at += n;
}

/* A field left out of a struct's bytes: its offset and size. */
struct kskip {
	size_t off, len;
};

/* Put the size bytes at base into the key but the n fields of skip
 * (pointers, the game's name). */
static void
kemit_but(struct ksink *o, const void *base, size_t size,
    struct kskip *skip, int n)
{
	const unsigned char *b = base;
	struct kskip t;
	size_t at = 0;
	int i, j;

	for (i = 1; i < n; i++) /* by offset */
		for (j = i; j > 0 && skip[j - 1].off > skip[j].off; j--) {
			t = skip[j];
			skip[j] = skip[j - 1];
			skip[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		kemit(o, b + at, skip[i].off - at);
		at = skip[i].off + skip[i].len;
	}
	kemit(o, b + at, size - at);
}

#define KSKIP(type, f) { offsetof(type, f), sizeof(((type *)0)->f) }

/* The key of a set-up of g from sc into o; false when g is not fresh
 * (then no key: the set-up is built). */
static bool
setup_key(const struct game *g, const struct scenario *sc, struct ksink *o)
{
	struct kskip gsk[] = { KSKIP(struct game, name),
		KSKIP(struct game, hexes), KSKIP(struct game, units),
		KSKIP(struct game, vars), KSKIP(struct game, hexidx_of) };
	struct kskip ss[] = { KSKIP(struct scenario, terrain),
		KSKIP(struct scenario, terrain_line),
		KSKIP(struct scenario, elevation),
		KSKIP(struct scenario, elevation_line),
		KSKIP(struct scenario, units), KSKIP(struct scenario, markers),
		KSKIP(struct scenario, vars), KSKIP(struct scenario, options),
		KSKIP(struct scenario, placeholders),
		KSKIP(struct scenario, text), KSKIP(struct scenario, errs) };
	int i;

	if (g->nhex != 0 || g->nunits != 0 || g->nvars != 0 ||
	    g->rstate != NULL || g->hexidx != NULL || g->error[0] != '\0')
		return false;
	for (i = 0; i < GAME_MAX_SIDES; i++)
		if (g->sides[i].standing != NULL)
			return false;
	kemit_but(o, g, sizeof *g, gsk, (int)(sizeof gsk / sizeof gsk[0]));
	kemit_but(o, sc, sizeof *sc, ss, (int)(sizeof ss / sizeof ss[0]));
	for (i = 0; i < sc->nterrain; i++)
		kemit(o, sc->terrain[i], strlen(sc->terrain[i]) + 1);
	for (i = 0; i < sc->nelevation; i++)
		kemit(o, sc->elevation[i], strlen(sc->elevation[i]) + 1);
	if (sc->nunits > 0)
		kemit(o, sc->units, sizeof *sc->units * (size_t)sc->nunits);
	if (sc->noptions > 0)
		kemit(o, sc->options, sizeof *sc->options *
		    (size_t)sc->noptions);
	if (sc->nvars > 0)
		kemit(o, sc->vars, sizeof *sc->vars * (size_t)sc->nvars);
	return true;
}

/* A copy of the n entries of src (sz bytes each) in old's place, with
 * room for at least as many as game.c's arrays keep for n (that minimum,
 * GAME_ROOM_MIN (16), doubled until n fit: less than 2 * n past it), so
 * that adding to it later grows it as it would: 2 * n, at least 256 (any
 * such minimum up to 256), at most max. */
static void *
room_copy(void *old, const void *src, int n, int max, size_t sz)
{
	size_t cap = 2 * (size_t)n;
	void *p;

	if (cap < 256)
		cap = 256;
	if (cap > (size_t)max)
		cap = (size_t)max;
	p = xrealloc(old, cap * sz);
	if (n > 0)
		memcpy(p, src, (size_t)n * sz);
	return p;
}

/* Make g, fresh (its arrays from game_init), the set-up b under g's own
 * name: game_copy's result (its index of hexes left to be built when
 * asked) without clearing a whole array for a few entries. */
static void
setup_copy(struct game *g, const struct game *b)
{
	struct game_unit *u = g->units;
	struct game_hex *h = g->hexes;
	struct game_var *v = g->vars;
	char name[GAME_NAME_MAX];

	memcpy(name, g->name, sizeof name);
	free(g->hexidx);
	*g = *b;
	memcpy(g->name, name, sizeof name);
	g->units = room_copy(u, b->units, b->nunits, GAME_MAX_UNITS,
	    sizeof *u);
	g->hexes = room_copy(h, b->hexes, b->nhex, GAME_MAX_HEXES,
	    sizeof *h);
	g->vars = room_copy(v, b->vars, b->nvars, GAME_MAX_VARS, sizeof *v);
	g->hexidx = NULL;
	g->hexidx_of = NULL;
	g->hexidx_n = 0;
}

/* Build g from the scenario sc (see above: a copy of the last set-up
 * when its key is the same). */
int
plt_setup(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	static _Thread_local struct kbuf key, now;
	static _Thread_local struct game built;
	static _Thread_local bool have;
	struct ksink o = { &key, true, true, 0 };
	int rc, i;

	if (!setup_key(g, sc, &o))
		return setup_build(g, sc, err);
	if (have && o.same && o.at == key.n) {
		setup_copy(g, &built);
		return HP_OK;
	}
	now.n = 0;
	o.k = &now;
	o.cmp = false;
	(void)setup_key(g, sc, &o); /* the key before the set-up */
	if ((rc = setup_build(g, sc, err)) != HP_OK || g->error[0] != '\0' ||
	    g->rstate != NULL)
		return rc;
	for (i = 0; i < GAME_MAX_SIDES; i++)
		if (g->sides[i].standing != NULL)
			return rc;
	if (have)
		game_free(&built);
	game_copy(&built, g);
	key.n = 0;
	kput(&key, now.p, now.n);
	have = true;
	return rc;
}

/* --- the map and status --------------------------------------------------- */

struct plt_render {
	const struct game *g;
};

/* Does h exist on the drawn map? */
static bool
r_exists(void *arg, struct hex h)
{
	return hex_at(((struct plt_render *)arg)->g, h) != NULL;
}

/* The two text lines of hex h: label, terrain, height or road; squad. */
static void
r_cell(void *arg, struct hex h, struct render_cell *cell)
{
	const struct game *g = ((struct plt_render *)arg)->g;
	const struct game_hex *gh = hex_at(g, h);
	int t = gh != NULL ? terrain_index(gh->terrain) : -1, s;
	char a[8];

	hex_label(&g->layout, h, a, sizeof a);
	snprintf(cell->line[0], sizeof cell->line[0], "%.3s%c%c", a,
	    t >= 0 ? tcode[t] : ' ', plt_elev(g, h) > 0 ? '^' :
	    plt_road(g, h) ? ':' : ' ');
	if ((s = plt_squad_at(g, h)) >= 0)
		snprintf(cell->line[1], sizeof cell->line[1], "%.4s%s",
		    g->units[s].id, g->units[s].strength == 1 ? "'" : "");
	else
		cell->line[1][0] = '\0';
}

/* The character of an obstacle on side dir of h, 0 for none. */
static char
r_edge(void *arg, struct hex h, int dir)
{
	const struct game *g = ((struct plt_render *)arg)->g;
	int e = plt_edge(g, h, dir);

	if (e == PLT_E_NONE)
		return 0;
	return edge_cost[e] >= 3 ? '#' : '+';
}

/* The map and the squads' roster; every side sees the whole table. */
void
plt_render_map(const struct game *g, int side, struct sbuf *b)
{
	struct plt_render pr = { g };
	struct render_map m;
	struct plt_profile pf;
	char a[8];
	int i;

	(void)side; /* the seed hides nothing on the map but the orders */
	memset(&m, 0, sizeof m);
	m.layout = &g->layout;
	m.arg = &pr;
	m.exists = r_exists;
	m.cell = r_cell;
	m.edge = r_edge;
	render_hexmap(&m, b);
	sbuf_puts(b, "\nTerrain: , scrub \" grass w light woods W heavy woods "
	    "U urban C close urban\nF fortified K bunker T trench S sandbags "
	    "r rough ~ river L lake X cliff\nV volcano; ^ higher ground, : "
	    "road. Hex edges: + simple, # complex obstacle.\nSquads: id (id' "
	    "reduced). One hex is 2 cm.\n\n");
	sbuf_printf(b, "  %-6s %-6s %-28s %-4s %-8s %s\n", "squad", "plt",
	    "profile", "hex", "state", "FF HW CC AR");
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		int r;

		if (!plt_alive(g, i) || !plt_profile(g, i, &pf))
			continue;
		r = u->strength == 1;
		sbuf_printf(b, "  %-6s %-6s %-28.28s %-4s %-8s %d  %d  %d  "
		    "%d\n", u->id, g->units[u->attached].id, u->name,
		    hex_label(&g->layout, u->pos, a, sizeof a), r ? "reduced" :
		    "fresh", pf.ff[r], pf.hw[r], pf.cc[r], pf.armour);
	}
}

/* Side's victory points (see platoon.h). */
int
plt_score(const struct game *g, int side)
{
	const char *kind[8];
	int i, k, n = 0, nk = 0, pts[9];
	bool ok[9];

	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (plt_is_platoon(u) || u->x[PLT_X_KILLER] != side + 1)
			continue;
		/* The points of each kind read once (plt_profile's: nothing
		 * sets a profile here). */
		for (k = 0; k < nk && strcmp(kind[k], u->kind) != 0; k++)
			;
		if (k == nk) {
			/* profile_of_kind's points, when it finds a profile
			 * (a movement var): both vars in one pass. */
			ok[k] = pvar2(g, u->kind, &pts[k]);
			if (nk < 8) {
				kind[nk] = u->kind;
				nk++;
			}
		}
		if (!ok[k])
			continue;
		if (u->strength <= 0)
			n += pts[k];
		else if (u->strength == 1)
			n += 1;
	}
	return n;
}

/* Status lines: the turn, each side's score and its platoons' state. */
void
plt_status(const struct game *g, int side, struct sbuf *b)
{
	int s, i;

	(void)side;
	sbuf_printf(b, "Turn %d of %d.\n", g->turn, game_var(g, "turns", 8));
	for (s = 0; s < g->nsides; s++) {
		sbuf_printf(b, "  %-8s score %d (home edge %s)\n",
		    g->sides[s].name, plt_score(g, s),
		    home_names[plt_home(g, s)]);
		for (i = 0; i < g->nunits; i++) {
			int al, re, lo;

			if (!plt_is_platoon(&g->units[i]) ||
			    g->units[i].side != s)
				continue;
			plt_counts(g, i, &al, &re, &lo);
			sbuf_printf(b, "    platoon %-6s squads %d (reduced "
			    "%d, lost %d), MCP %d%s%s\n", g->units[i].id, al,
			    re, lo, plt_mcp(g, i), (g->units[i].flags &
			    PLT_F_SUPP) ? ", SUPPRESSED" : "", al > 0 &&
			    !plt_coherent(g, i) ? ", out of coherency" : "");
		}
	}
}

/* --- the opponent's reach test (plt_ai.c; issue 17, third round) ----------
 *
 * plt_reach_within answers only "is some goal reached for at most bound
 * cm?", which the opponent asks of a squad's shift and of a platoon's
 * contact. The path search (dijkstra_from) answers it too, by the costs
 * of the whole area within bound; here the steps are those of the search
 * (the map cache's steps, the squads' hexes closed but for the starts,
 * without contact a hex next to a squad of another side entered and not
 * passed unless it is a start) and a hex is labelled only when its label
 * plus 2 cm a hex to the nearest goal is within bound (every step costs
 * at least 2 cm: a path within bound never needs another). Labels are
 * corrected until none improves (a hex is queued again when its label
 * drops), and the answer is yes at the first goal labelled: a label is
 * the cost of a path the search may take, and a path within bound gives
 * each of its hexes a label at most its own cost there. So the answer
 * is the search's (some goal's cost within bound), found in the few hexes
 * near the way. */

/* Is some goal (ngoal row-major indices) reached from a start (src, nsrc;
 * those off the layout left out) for at most bound cm, as dijkstra_from
 * with the same arguments finds it (see platoon.h)? With centre, every
 * goal is next to it: the hexes to centre less one are never more than
 * to the nearest goal (one distance, not one a goal). */
bool
plt_reach_within(const struct game *g, int side, const struct hex *src,
    int nsrc, bool contact, const int *goal, int ngoal, int bound,
    int without, const struct hex *centre)
{
	/* Per thread, between calls: lab and sqm all -1, fl all 0. */
	static _Thread_local int *lab, *sqm, *q, *tl, *um;
	static _Thread_local struct hex *hx;
	static _Thread_local char *fl; /* 1 queued, 2 goal */
	static _Thread_local int cap;
	const struct mapc *m = mapc_get(g);
	int n = m->n, i, k, d, ia, qh = 0, nq = 0, ntl = 0, nsq = 0;
	struct hex gh[8], *ghp = gh;
	bool found = false;

	if (n <= 0 || ngoal <= 0 || bound < 0)
		return false;
	if (cap < n + 1) {
		free(lab);
		free(sqm);
		free(q);
		free(tl);
		free(um);
		free(hx);
		free(fl);
		cap = n + 1;
		lab = xmalloc(sizeof(int) * (size_t)cap);
		sqm = xmalloc(sizeof(int) * (size_t)cap);
		q = xmalloc(sizeof(int) * (size_t)cap);
		tl = xmalloc(sizeof(int) * (size_t)cap);
		um = xmalloc(sizeof(int) * (size_t)cap);
		hx = xmalloc(sizeof *hx * (size_t)cap);
		fl = xcalloc((size_t)cap, 1);
		for (i = 0; i < cap; i++)
			lab[i] = sqm[i] = -1;
	}
	if (ngoal > (int)(sizeof gh / sizeof gh[0]))
		ghp = xmalloc(sizeof *ghp * (size_t)ngoal);
	/* The squads (the lowest-index one of a hex, platoon without's left
	 * out), as the search marks them. */
	for (i = g->nunits - 1; i >= 0; i--)
		if (plt_alive(g, i) && (without < 0 || g->units[i].attached !=
		    without) && (ia = hidx(g, g->units[i].pos)) >= 0) {
			if (sqm[ia] < 0)
				um[nsq++] = ia;
			sqm[ia] = i;
		}
	for (k = 0; k < ngoal; k++)
		if (goal[k] >= 0 && goal[k] < n) {
			fl[goal[k]] |= 2;
			ghp[k] = hex_of(g, goal[k]);
		}
	/* The starts, labelled 0 (a start is never entered again). tl lists
	 * every hex labelled (once), q is a ring of the hexes queued (each
	 * at most once at a time: at most n). */
	for (k = 0; k < nsrc && !found; k++)
		if ((ia = hidx(g, src[k])) >= 0 && lab[ia] < 0) {
			lab[ia] = 0;
			hx[ia] = src[k];
			tl[ntl++] = ia;
			fl[ia] |= 1;
			q[(qh + nq++) % cap] = ia;
			if (fl[ia] & 2)
				found = true;
		}
	while (!found && nq > 0) {
		int cur = q[qh], lc = lab[cur];

		qh = (qh + 1) % cap;
		nq--;
		fl[cur] &= ~1;
		/* Not a start: entered next to an enemy, not passed. */
		if (!contact && lc > 0) {
			bool near = false;

			for (d = 0; d < 6 && !near; d++) {
				int j = m->nb[cur * 6 + d], s;

				near = j >= 0 && (s = sqm[j]) >= 0 &&
				    g->units[s].side != side;
			}
			if (near)
				continue;
		}
		for (d = 0; d < 6 && !found; d++) {
			int j = m->nbs[cur * 6 + d], hd = -1, c;
			struct hex nh;

			/* No step (the sentinel n), a squad's hex (not a
			 * start), or no cheaper. */
			if (j == n || (sqm[j] >= 0 && lab[j] != 0))
				continue;
			c = lc + m->step[cur * 6 + d];
			if (lab[j] >= 0 && lab[j] <= c)
				continue;
			nh.q = hx[cur].q + hex_directions[d].q;
			nh.r = hx[cur].r + hex_directions[d].r;
			if (centre != NULL)
				hd = hex_distance(nh, *centre) - 1;
			else
				for (k = 0; k < ngoal; k++)
					if (goal[k] >= 0 && goal[k] < n) {
						int t = hex_distance(nh,
						    ghp[k]);

						if (hd < 0 || t < hd)
							hd = t;
					}
			if (c + PLT_CM_PER_HEX * hd > bound)
				continue;
			if (lab[j] < 0)
				tl[ntl++] = j;
			lab[j] = c;
			hx[j] = nh;
			if (fl[j] & 2)
				found = true;
			if (!(fl[j] & 1)) {
				fl[j] |= 1;
				q[(qh + nq++) % cap] = j;
			}
		}
	}
	/* Put the scratch back. */
	for (k = 0; k < ntl; k++) {
		lab[tl[k]] = -1;
		fl[tl[k]] = 0;
	}
	for (k = 0; k < nsq; k++)
		sqm[um[k]] = -1;
	for (k = 0; k < ngoal; k++)
		if (goal[k] >= 0 && goal[k] < n)
			fl[goal[k]] = 0;
	if (ghp != gh)
		free(ghp);
	return found;
}
