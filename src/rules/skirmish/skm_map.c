/* skm_map: the skirmish ruleset's data and geometry: the terrain table
 * (cover classes, hindrances, buildings), element kinds, the scenario
 * set-up with hidden deployment, line of sight, cover, smoke and call-fire
 * markers, the map as a side sees it and the status lines. Readings:
 * docs/rules/skirmish-ww2.md.
 *
 * Speed (issue 17): a line of sight reads the smoke lines of the rstate
 * once (smoke_read), not once per crossed hex; between skm_sight_begin and
 * skm_sight_end (a resolution step, an opponent's plan, hidden deployment)
 * the sight cache keeps a copy of the map with each hex's terrain row and
 * remembers each line walked while no smoke lies anywhere (see the
 * comment "The sight cache" below and docs/ARCHITECTURE.md 3.3). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "scenario.h"
#include "skirmish.h"

const char *const skm_morale_names[] = { "good", "suppressed", "broken",
	"dispersed" };
const char *const skm_cover_names[] = { "open", "light", "heavy",
	"reinforced" };

/* The terrain table (docs/rules/skirmish-ww2.md, "Terrain"). */
static const struct skm_terrain terrains[] = {
	/* name     code cover      hind h  solid fl woods cost */
	{ "open", ' ', SKM_OPEN, 0, 0, false, 0, false, 1 },
	{ "scrub", ',', SKM_OPEN, 1, 0, false, 0, false, 1 },
	{ "crops", '"', SKM_OPEN, 1, 0, false, 0, false, 1 },
	{ "woods", 'w', SKM_LIGHT, 1, 1, false, 0, true, 2 },
	{ "house", 'h', SKM_LIGHT, 0, 1, true, 1, false, 2 },
	{ "stone", 'B', SKM_HEAVY, 0, 2, true, 2, false, 2 },
	{ "rubble", 'r', SKM_HEAVY, 1, 0, false, 0, false, 2 },
	{ "trench", 'T', SKM_HEAVY, 0, 0, false, 0, false, 1 },
	{ "bunker", 'K', SKM_REINF, 0, 1, true, 1, false, 2 },
};
#define NTERRAIN (int)(sizeof terrains / sizeof terrains[0])

static const char *const edge_names[SKM_E_NKINDS] = { "none", "hedge",
	"wall" };
static const int edge_cover[SKM_E_NKINDS] = { SKM_OPEN, SKM_LIGHT,
	SKM_HEAVY };

/* The element kinds (placeholders: the sheet gives no weapon table). */
static const struct skm_kind kinds[] = {
	/* id  name  figures dice sw range long indirect heweight spotter
	 * leader dhe */
	{ "rifle", "Rifle section", 8, 1, false, 12, 6, false, 0, false,
	    false, false },
	{ "mmg", "MMG team", 3, 5, true, 15, 8, false, 0, false, false,
	    false },
	{ "mortar", "Light mortar", 3, 0, true, 0, 0, true, 0, false, false,
	    false },
	{ "fo", "Forward observer", 2, 1, false, 12, 6, false, 0, true,
	    false, false },
	{ "hq", "Platoon HQ", 3, 1, false, 12, 6, false, 0, false, true,
	    false },
	{ "gun", "Infantry gun (direct HE)", 4, 2, true, 15, 8, false, 1,
	    false, false, true },
};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

/* --- small helpers --------------------------------------------------------- */

/* The game hex at h (row-major fast path), or NULL. */
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

/* Index of terrain name, -1 if unknown. Every name in the table starts
 * with its own letter, so one byte picks the only candidate (lines of
 * sight ask for the terrain of every hex they cross). */
static int
terrain_index(const char *name)
{
	int i;

	switch (name[0]) {
	case 'o': i = 0; break;
	case 's': i = name[1] == 'c' ? 1 : 5; break;
	case 'c': i = 2; break;
	case 'w': i = 3; break;
	case 'h': i = 4; break;
	case 'r': i = 6; break;
	case 't': i = 7; break;
	case 'b': i = 8; break;
	default: return -1;
	}
	return strcmp(terrains[i].name, name) == 0 ? i : -1;
}

/* The terrain entry of h (a static row), NULL off the map. */
const struct skm_terrain *
skm_terrain(const struct game *g, struct hex h)
{
	const struct game_hex *gh = hex_at(g, h);
	int i;

	if (gh == NULL || (i = terrain_index(gh->terrain)) < 0)
		return NULL;
	return &terrains[i];
}

/* Fill k with the element kind named kind; false if none. */
bool
skm_kind_of(const struct game *g, const char *kind, struct skm_kind *k)
{
	int i;

	(void)g;
	for (i = 0; i < NKINDS; i++)    /* the first letter before the rest */
		if (kinds[i].id[0] == kind[0] && strcmp(kinds[i].id, kind) ==
		    0) {
			*k = kinds[i];
			return true;
		}
	return false;
}

/* Is unit on the map and in play (not dispersed, not wiped out)? */
bool
skm_alive(const struct game *g, int unit)
{
	const struct game_unit *u;

	if (unit < 0 || unit >= g->nunits)
		return false;
	u = &g->units[unit];
	return u->placed && u->strength > 0 && u->status != SKM_DISPERSED &&
	    u->side >= 0;
}

/* The elevation of h, 0 off the map. */
int
skm_elev(const struct game *g, struct hex h)
{
	const struct game_hex *gh = hex_at(g, h);

	return gh != NULL ? gh->elevation : 0;
}

/* The obstacle (enum skm_edge) on side dir of h. */
int
skm_edge(const struct game *g, struct hex h, int dir)
{
	const struct game_hex *gh = hex_at(g, h);

	if (gh == NULL || dir < 0 || dir > 5 || gh->edge[dir] < 0 ||
	    gh->edge[dir] >= SKM_E_NKINDS)
		return SKM_E_NONE;
	return gh->edge[dir];
}

/* The home edge of side (0 north, 1 south, 2 east, 3 west). */
int
skm_home(const struct game *g, int side)
{
	char key[24];

	if (side == 0 || side == 1)     /* the keys without printf */
		return game_var(g, side ? "home.1" : "home.0", side == 0 ?
		    3 : 2);
	snprintf(key, sizeof key, "home.%d", side);
	return game_var(g, key, side == 0 ? 3 : 2);
}

/* The k-th direction (0..5) side tries when it steps: mirrored left to
 * right for a side whose home is the east edge, so a mirrored map plays
 * the same for both sides. */
int
skm_dir(const struct game *g, int side, int k)
{
	static const int mirror[6] = { 4, 3, 2, 1, 0, 5 };

	return skm_home(g, side) == 2 ? mirror[k] : k;
}

/* The six directions side tries, in order (skm_dir of k = 0..5), into d:
 * its home edge looked up once. */
void
skm_dirs(const struct game *g, int side, int d[6])
{
	static const int mirror[6] = { 4, 3, 2, 1, 0, 5 };
	int k, mirrored = skm_home(g, side) == 2;

	for (k = 0; k < 6; k++)
		d[k] = mirrored ? mirror[k] : k;
}

/* Hexes from h to side's home edge. */
int
skm_home_dist(const struct game *g, int side, struct hex h)
{
	struct hex_offset o = hex_to_offset(&g->layout, h);

	switch (skm_home(g, side)) {
	case 0: return o.row;
	case 1: return g->layout.rows - 1 - o.row;
	case 2: return g->layout.cols - 1 - o.col;
	default: return o.col;
	}
}

/* --- smoke and call-fire markers (rstate) -------------------------------- */

/* The value of the rstate line starting with key, or -1; rest gets what
 * follows the key (up to 31 bytes). */
static int
rline(const struct game *g, const char *key, char *rest, size_t len)
{
	const char *p, *e;
	size_t kl = strlen(key), n;

	for (p = g->rstate; p != NULL && *p != '\0'; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (strncmp(p, key, kl) != 0 || p[kl] != ' ')
			continue;
		n = e ? (size_t)(e - p - (ptrdiff_t)kl - 1) : strlen(p + kl + 1);
		if (n >= len)
			n = len - 1;
		memcpy(rest, p + kl + 1, n);
		rest[n] = '\0';
		return 1;
	}
	return -1;
}

/* Replace (or drop, val NULL) the rstate line of key, keeping lines sorted. */
static void
set_rline(struct game *g, const char *key, const char *val)
{
	char *lines[512], *copy = g->rstate ? xstrdup(g->rstate) : NULL;
	char *p, *save = NULL, mine[96];
	int n = 0, i, j;
	struct sbuf b;
	size_t kl = strlen(key);

	for (p = copy ? strtok_r(copy, "\n", &save) : NULL; p != NULL && n <
	    510; p = strtok_r(NULL, "\n", &save))
		if (!(strncmp(p, key, kl) == 0 && p[kl] == ' '))
			lines[n++] = p;
	if (val != NULL) {
		snprintf(mine, sizeof mine, "%s %s", key, val);
		lines[n++] = mine;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			char *t = lines[j];

			lines[j] = lines[j - 1];
			lines[j - 1] = t;
		}
	sbuf_init(&b);
	for (i = 0; i < n; i++) {
		sbuf_puts(&b, lines[i]);
		sbuf_add(&b, "\n", 1);
	}
	game_set_rstate(g, n ? b.buf : NULL);
	sbuf_free(&b);
	free(copy);
}

/* Smoke in h by its rstate line (the reference reading; smoke_in reads
 * the same lines once for many hexes). */
static int
smoke_line(const struct game *g, struct hex h)
{
	char key[24], lbl[8], rest[32];

	snprintf(key, sizeof key, "smoke %s", hex_label(&g->layout, h, lbl,
	    sizeof lbl));
	return rline(g, key, rest, sizeof rest) < 0 ? 0 : atoi(rest);
}

/* The smoke lines of g's rstate read once ("smoke LABEL N", the first
 * line of a label counting, as rline finds it), so that a line of sight
 * or a pass over the hexes asks no printf and no scan per hex. slow:
 * a line this table cannot stand for (a label that is not a hex's own
 * label, too many lines): ask smoke_line. */
#define SMOKE_TAB_MAX 64
struct smoke_tab {
	const struct game *g;
	int n;
	bool slow;
	struct hex h[SMOKE_TAB_MAX];
	int level[SMOKE_TAB_MAX];
};

/* Read g's smoke lines into t. */
static void
smoke_read(const struct game *g, struct smoke_tab *t)
{
	const char *p, *e, *sp;
	char lbl[8], canon[8], rest[32];
	size_t n;
	struct hex h;
	int i;

	t->g = g;
	t->n = 0;
	t->slow = false;
	if (g->rstate == NULL || strstr(g->rstate, "smoke ") == NULL)
		return;
	for (p = g->rstate; *p != '\0'; p = e ? e + 1 : p + strlen(p)) {
		e = strchr(p, '\n');
		if (strncmp(p, "smoke ", 6) != 0)
			continue;
		/* rline matches "smoke LABEL" followed by a space */
		for (sp = p + 6; *sp != ' ' && *sp != '\n' && *sp != '\0';
		    sp++)
			;
		if (*sp != ' ')
			continue;
		n = (size_t)(sp - (p + 6));
		if (n == 0 || n >= sizeof lbl || t->n == SMOKE_TAB_MAX) {
			t->slow = true;
			return;
		}
		memcpy(lbl, p + 6, n);
		lbl[n] = '\0';
		if (!hex_parse_label(&g->layout, lbl, &h) ||
		    strcmp(hex_label(&g->layout, h, canon, sizeof canon),
		    lbl) != 0) {
			/* no hex's label is a letters-and-digits label
			 * that does not read back to itself; anything
			 * else (an off-map "(q,r)") goes the slow way */
			if (lbl[0] == '(')
				t->slow = true;
			if (t->slow)
				return;
			continue;
		}
		for (i = 0; i < t->n && !hex_eq(t->h[i], h); i++)
			;
		if (i < t->n)
			continue;       /* rline finds the first line */
		n = e ? (size_t)(e - sp - 1) : strlen(sp + 1);
		if (n >= sizeof rest)
			n = sizeof rest - 1;
		memcpy(rest, sp + 1, n);
		rest[n] = '\0';
		t->h[t->n] = h;
		t->level[t->n++] = atoi(rest);
	}
}

/* Smoke in h by the table t of t->g's lines. */
static int
smoke_in(const struct smoke_tab *t, struct hex h)
{
	int i;

	if (t->slow)
		return smoke_line(t->g, h);
	for (i = 0; i < t->n; i++)
		if (hex_eq(t->h[i], h))
			return t->level[i];
	return 0;
}

/* Does smoke lie anywhere (may skm_smoke be other than 0)? */
bool
skm_smoke_any(const struct game *g)
{
	struct smoke_tab t;

	smoke_read(g, &t);
	return t.n > 0 || t.slow;
}

/* Smoke in h: 4, 2 or 0. */
int
skm_smoke(const struct game *g, struct hex h)
{
	struct smoke_tab t;

	smoke_read(g, &t);
	return smoke_in(&t, h);
}

/* Set the smoke in h (0 removes it). */
void
skm_set_smoke(struct game *g, struct hex h, int level)
{
	char key[24], lbl[8], v[8];

	snprintf(key, sizeof key, "smoke %s", hex_label(&g->layout, h, lbl,
	    sizeof lbl));
	snprintf(v, sizeof v, "%d", level);
	set_rline(g, key, level > 0 ? v : NULL);
}

/* The call-fire marker of unit: 0 none, 1 call fire, 2 fire for effect. */
int
skm_cf(const struct game *g, int unit, struct hex *h)
{
	char key[40], rest[32], lbl[8];
	int st = 0;

	snprintf(key, sizeof key, "cf %s", g->units[unit].id);
	if (rline(g, key, rest, sizeof rest) < 0 ||
	    sscanf(rest, "%7s %d", lbl, &st) != 2 ||
	    !hex_parse_label(&g->layout, lbl, h))
		return 0;
	return st;
}

/* Set (state 0: remove) the call-fire marker of unit. */
void
skm_set_cf(struct game *g, int unit, struct hex h, int state)
{
	char key[40], v[24], lbl[8];

	snprintf(key, sizeof key, "cf %s", g->units[unit].id);
	snprintf(v, sizeof v, "%s %d", hex_label(&g->layout, h, lbl,
	    sizeof lbl), state);
	set_rline(g, key, state ? v : NULL);
}

/* --- sight and cover --------------------------------------------------------- */

/* The elevation and terrain row (NULL: off the map or unknown terrain)
 * of h, with one lookup of its hex. */
static int
cell(const struct game *g, struct hex h, const struct skm_terrain **t)
{
	const struct game_hex *gh = hex_at(g, h);
	int i;

	*t = NULL;
	if (gh == NULL)
		return 0;
	if ((i = terrain_index(gh->terrain)) >= 0)
		*t = &terrains[i];
	return gh->elevation;
}

/* The sight cache (skm_sight_begin/_end around a resolution step or an
 * opponent's plan, per thread): a copy of the map of the game begun (its
 * hexes compared whole at each begin: another map, or a changed one,
 * starts afresh) with each hex's terrain row, and the lines of sight
 * already walked on it, by their two ends and floors. A line's weight
 * depends only on the map and the smoke, so it is kept only while no
 * smoke lies anywhere (a simulation's opponent never lays smoke). */
#define SIGHT_MEMO 8192                 /* slots, a power of two */
struct sight_memo {
	int aq, ar, fa, bq, br, fb;
	unsigned gen;                   /* slot good when it is sgt.gen */
	int w;
};
static _Thread_local struct {
	int depth;
	const struct game *g;           /* the game begun, NULL: none */
	struct hex_layout layout;
	struct game_hex *map;           /* owned copy of the hexes */
	int nmap, cap;
	signed char *tidx;              /* terrain index of map[i], -1 */
	struct sight_memo *memo;        /* SIGHT_MEMO slots */
	unsigned gen;
} sgt;

/* Is g's map the one the cache holds (hexes, elevations, terrain)? */
static bool
sight_same_map(const struct game *g)
{
	int i;

	if (sgt.map == NULL || g->nhex != sgt.nmap || memcmp(&g->layout,
	    &sgt.layout, sizeof sgt.layout) != 0)
		return false;
	if (g->nhex == 0 || memcmp(g->hexes, sgt.map, (size_t)g->nhex *
	    sizeof *g->hexes) == 0)
		return true;
	for (i = 0; i < g->nhex; i++)   /* bytes past a name may differ */
		if (!hex_eq(g->hexes[i].h, sgt.map[i].h) ||
		    g->hexes[i].elevation != sgt.map[i].elevation ||
		    strncmp(g->hexes[i].terrain, sgt.map[i].terrain,
		    GAME_TERRAIN_MAX) != 0)
			return false;
	return true;
}

/* Start using the sight cache for g (nested calls only count). */
void
skm_sight_begin(const struct game *g)
{
	int i;

	if (sgt.depth++ > 0)
		return;
	sgt.g = g;
	if (sight_same_map(g))
		return;
	if (g->nhex > sgt.cap) {
		sgt.cap = g->nhex;
		sgt.map = xrealloc(sgt.map, (size_t)sgt.cap * sizeof *sgt.map);
		sgt.tidx = xrealloc(sgt.tidx, (size_t)sgt.cap);
	}
	if (sgt.map == NULL)
		sgt.map = xcalloc(1, sizeof *sgt.map);
	if (sgt.memo == NULL)
		sgt.memo = xcalloc(SIGHT_MEMO, sizeof *sgt.memo);
	if (g->nhex > 0)
		memcpy(sgt.map, g->hexes, (size_t)g->nhex * sizeof *g->hexes);
	for (i = 0; i < g->nhex; i++)
		sgt.tidx[i] = (signed char)terrain_index(g->hexes[i].terrain);
	sgt.nmap = g->nhex;
	sgt.layout = g->layout;
	if (++sgt.gen == 0)      /* wrapped: forget every slot */
		memset(sgt.memo, 0, SIGHT_MEMO * sizeof *sgt.memo);
	if (sgt.gen == 0)
		sgt.gen = 1;
}

/* Stop using the sight cache (the outermost end). */
void
skm_sight_end(void)
{
	if (sgt.depth > 0 && --sgt.depth == 0)
		sgt.g = NULL;
}

/* cell() through the cache's copy of the map (h in row-major place),
 * else cell(). */
static int
cell_cached(const struct game *g, struct hex h, const struct skm_terrain **t)
{
	struct hex_offset o = hex_to_offset(&sgt.layout, h);
	int i;

	if (o.col >= 0 && o.row >= 0 && o.col < sgt.layout.cols &&
	    o.row < sgt.layout.rows && (i = o.row * sgt.layout.cols + o.col) <
	    sgt.nmap && hex_eq(sgt.map[i].h, h)) {
		*t = sgt.tidx[i] >= 0 ? &terrains[(int)sgt.tidx[i]] : NULL;
		return sgt.map[i].elevation;
	}
	return cell(g, h, t);
}

/* The walk of skm_sight (cached: the cache holds g's map). */
static int
sight_walk(const struct game *g, struct hex a, int fa, struct hex b, int fb,
    const struct smoke_tab *sm, bool cached)
{
	struct hex_line_step st[HEX_LINE_MAX];
	const struct skm_terrain *t;
	int n, i, ea, eb, w = 0, k, hi;

	ea = (cached ? cell_cached(g, a, &t) : cell(g, a, &t)) + fa;
	eb = (cached ? cell_cached(g, b, &t) : cell(g, b, &t)) + fb;
	hi = ea > eb ? ea : eb;
	if ((n = hex_line(a, b, st, HEX_LINE_MAX)) < 0)
		return -1;
	for (i = 1; i < n - 1; i++) {
		int best = -1;

		for (k = 0; k < (st[i].tie ? 2 : 1); k++) {
			struct hex m = k ? st[i].alt : st[i].h;
			int el = cached ? cell_cached(g, m, &t) : cell(g, m, &t);
			int top = el + (t ? t->height : 0), c;

			if (el > hi || (t != NULL && t->solid && top >= hi))
				c = -1;
			else
				c = (t != NULL && top >= hi ? t->hindrance : 0)
				    + smoke_in(sm, m);
			if (c >= 0 && (best < 0 || c < best))
				best = c;
		}
		if (best < 0)
			return -1;
		w += best;
	}
	w += smoke_in(sm, b);
	return w >= SKM_LOS_BLOCK ? -1 : w;
}

/* Hindrance weight from a to b, or -1 when sight is blocked. */
int
skm_sight(const struct game *g, struct hex a, int fa, struct hex b, int fb)
{
	struct smoke_tab sm;
	struct sight_memo *m;
	unsigned hsh;
	int w;

	smoke_read(g, &sm);
	if (sgt.g != g || sgt.depth == 0)
		return sight_walk(g, a, fa, b, fb, &sm, false);
	if (sm.n > 0 || sm.slow)
		return sight_walk(g, a, fa, b, fb, &sm, true);
	hsh = (unsigned)a.q * 0x9e3779b1u ^ (unsigned)a.r * 0x85ebca77u ^
	    (unsigned)b.q * 0xc2b2ae3du ^ (unsigned)b.r * 0x27d4eb2fu ^
	    (unsigned)fa * 0x165667b1u ^ (unsigned)fb * 0xd3a2646cu;
	hsh ^= hsh >> 15;
	m = &sgt.memo[hsh & (SIGHT_MEMO - 1)];
	if (m->gen == sgt.gen && m->aq == a.q && m->ar == a.r && m->bq == b.q &&
	    m->br == b.r && m->fa == fa && m->fb == fb)
		return m->w;
	w = sight_walk(g, a, fa, b, fb, &sm, true);
	m->aq = a.q;
	m->ar = a.r;
	m->fa = fa;
	m->bq = b.q;
	m->br = b.r;
	m->fb = fb;
	m->gen = sgt.gen;
	m->w = w;
	return w;
}

/* Does unit a see unit b (line of sight)? */
bool
skm_los_units(const struct game *g, int a, int b)
{
	const struct game_unit *ua = &g->units[a], *ub = &g->units[b];

	return skm_sight(g, ua->pos, ua->x[SKM_X_FLOOR], ub->pos,
	    ub->x[SKM_X_FLOOR]) >= 0;
}

/* The cover of a target at t against fire from f: its terrain, or the
 * obstacle on its side facing f when that is better. */
int
skm_cover(const struct game *g, struct hex t, struct hex f)
{
	const struct skm_terrain *tt = skm_terrain(g, t);
	int c = tt != NULL ? tt->cover : SKM_OPEN, n, i, e, dirs[2];

	n = hex_facing(t, f, dirs);
	for (i = 0; i < n; i++)
		if ((e = edge_cover[skm_edge(g, t, dirs[i])]) > c)
			c = e;
	return c;
}

/* Hexes of allowance to step from a into its neighbour b, -1 if not. */
int
skm_step_cost(const struct game *g, struct hex a, struct hex b)
{
	const struct skm_terrain *t = skm_terrain(g, b);
	int d = hex_direction_to(a, b);

	if (t == NULL || d < 0)
		return -1;
	return t->cost + (skm_edge(g, a, d) != SKM_E_NONE ? 1 : 0);
}

/* May side see unit (its own, or an enemy not hidden)? */
bool
skm_visible(const struct game *g, int side, int unit)
{
	const struct game_unit *u = &g->units[unit];

	if (side < 0 || u->side == side || u->side < 0)
		return true;
	return !(u->flags & SKM_F_HIDDEN);
}

/* The view callback: what side may see (the dead are seen by all). */
bool
skm_vis_cb(const struct game *g, int side, int unit)
{
	return skm_visible(g, side, unit);
}

/* Drop from side's copy the per-element vars (the faithful mode's
 * records: mv., op., oph., ra., rq., oq.) of elements not in it (the
 * view removed those it may not see) or of the enemy's opportunity
 * fire and reactions. */
static void
redact_vars(struct game *g, int side)
{
	static const char *const pre[] = { "mv.", "op.", "oph.", "ra.", "rq.",
		"oq." };
	char id[GAME_ID_MAX + 1];
	int i, n = 0, k, u;

	for (i = 0; i < g->nvars; i++) {
		const char *key = g->vars[i].key;
		bool drop = false;

		for (k = 0; k < (int)(sizeof pre / sizeof pre[0]); k++) {
			size_t pl = strlen(pre[k]), il;

			if (strncmp(key, pre[k], pl) != 0)
				continue;
			il = strcspn(key + pl, ".");
			if (il > GAME_ID_MAX)
				il = GAME_ID_MAX;
			memcpy(id, key + pl, il);
			id[il] = '\0';
			u = game_unit_index(g, id);
			drop = u < 0 || (k > 0 && g->units[u].side != side);
			break;
		}
		if (!drop)
			g->vars[n++] = g->vars[i];
	}
	g->nvars = n;
}

/* Strip the other side's call-fire markers and hidden records from
 * side's copy. */
void
skm_redact(struct game *g, int side)
{
	struct sbuf b;
	const char *p, *e;
	char id[GAME_ID_MAX + 1];
	int u;

	if (side < 0)
		return;
	redact_vars(g, side);
	if (g->rstate == NULL)
		return;
	sbuf_init(&b);
	for (p = g->rstate; *p != '\0'; p = e ? e + 1 : p + strlen(p)) {
		e = strchr(p, '\n');
		if (strncmp(p, "cf ", 3) == 0 && sscanf(p + 3, "%16s",
		    id) == 1 && ((u = game_unit_index(g, id)) < 0 ||
		    g->units[u].side != side)) {
			if (e == NULL)
				break;
			continue;
		}
		sbuf_printf(&b, "%.*s\n", e ? (int)(e - p) : (int)strlen(p), p);
		if (e == NULL)
			break;
	}
	game_set_rstate(g, b.len ? b.buf : NULL);
	sbuf_free(&b);
}

/* --- set-up ------------------------------------------------------------------ */

/* The hexes: terrain by the legend and elevation. */
static void
build_map(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	int col, row, c;

	for (c = 0; c < 256; c++)
		if (sc->legend_line[c] != 0 && terrain_index(sc->legend[c]) < 0)
			scenario_build_bad(b, sc->legend_line[c],
			    "legend: no terrain \"%s\" "
			    "in skirmish-ww2 (open scrub crops woods house "
			    "stone rubble trench bunker)",
			    sc->legend[c]);
	if (sc->roads[0] != '\0')
		scenario_build_bad(
		    b, sc->roads_line, "road: skirmish-ww2 has no roads");
	if (sc->nterrain != sc->rows)
		return;
	for (row = 0; row < sc->rows; row++)
		for (col = 0; col < sc->cols; col++) {
			struct hex_offset o = { col, row };
			struct game_hex *gh;

			c = (unsigned char)sc->terrain[row][col];
			gh = game_add_hex(b->g, hex_from_offset(&b->g->layout,
			    o), sc->legend[c]);
			gh->elevation = sc->nelevation ?
			    sc->elevation[row][col] - '0' : 0;
		}
}

/* "option: edge HEX DIR KIND", "home SIDE EDGE", "floor UNIT N". */
static void
build_options(struct scenario_build *b, bool units)
{
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	int i, k;

	for (i = 0; i < sc->noptions; i++) {
		const struct scenario_item *it = &sc->options[i];
		char w1[64] = "", w2[64] = "", w3[64] = "", extra[8] = "";

		k = sscanf(it->value, "%63s %63s %63s %7s", w1, w2, w3, extra);
		if (strcmp(it->name, "floor") == 0) {
			const struct skm_terrain *t;
			int u, f;

			if (!units)
				continue;
			u = game_unit_index(g, w1);
			if (k != 2 || u < 0 || orders_parse_int(w2, 0, 9, &f)) {
				scenario_build_bad(
				    b, it->line, "option: floor UNIT N");
				continue;
			}
			t = skm_terrain(g, g->units[u].pos);
			if (t == NULL || f >= (t->floors ? t->floors : 1)) {
				scenario_build_bad(b, it->line,
				    "option: floor: %s stands in "
				    "no building with a storey %d",
				    w1, f);
				continue;
			}
			g->units[u].x[SKM_X_FLOOR] = f;
			continue;
		}
		if (units)
			continue;
		if (strcmp(it->name, "edge") == 0)
			scenario_build_edge(b, it->line, k, w1, w2, w3,
			    edge_names, SKM_E_NKINDS);
		else if (strcmp(it->name, "home") == 0)
			scenario_build_home(b, it->line, k, w1, w2);
		else
			scenario_build_bad(b, it->line,
			    "option: skirmish-ww2 knows edge, home "
			    "and floor (docs/rules/skirmish-ww2.md)");
	}
}

/* The elements, in the file's order, with every check. */
static void
build_units(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	struct skm_kind k;
	int i, s;
	struct hex h;

	for (i = 0; i < sc->nunits; i++) {
		const struct scenario_unit *su = &sc->units[i];
		struct game_unit *u;
		int q = SKM_REGULAR;

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
		if (!skm_kind_of(g, su->kind, &k)) {
			scenario_build_bad(b, su->line,
			    "unit: no element kind \"%s\" (rifle "
			    "mmg mortar fo hq gun)",
			    su->kind);
			continue;
		}
		if (!scenario_build_hex(b, su->line, "unit", su->at, &h))
			continue;
		if (su->quality[0] && strcmp(su->quality, "regular") != 0) {
			if (strcmp(su->quality, "green") == 0)
				q = SKM_GREEN;
			else if (strcmp(su->quality, "veteran") == 0)
				q = SKM_VETERAN;
			else {
				scenario_build_bad(b, su->line,
				    "unit: quality is green, "
				    "regular or veteran");
				continue;
			}
		}
		if (su->facing[0] || su->carried_by[0]) {
			scenario_build_bad(
			    b, su->line, "unit: ID KIND SIDE HEX [- QUALITY]");
			continue;
		}
		u = game_add_unit(g, su->id, su->kind, k.name, s);
		u->placed = true;
		u->pos = h;
		u->facing = -1;
		u->strength = k.figures;
		u->x[SKM_X_FULL] = k.figures;
		u->x[SKM_X_QUAL] = q;
	}
}

/* Objectives: "marker: objective none HEX", as vars obj.N.hex / obj.N. */
static void
build_markers(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	char key[32];
	struct hex h;
	int i, n = 0;

	for (i = 0; i < sc->nmarkers; i++) {
		const struct scenario_marker *m = &sc->markers[i];
		struct hex_offset o;

		if (strcmp(m->kind, "objective") != 0) {
			scenario_build_bad(b, m->line,
			    "marker: skirmish-ww2 has objectives "
			    "only");
			continue;
		}
		if (strcmp(m->side, "none") != 0 &&
		    game_side_index(g, m->side) < 0) {
			scenario_build_bad(
			    b, m->line, "marker: no side \"%s\"", m->side);
			continue;
		}
		if (!scenario_build_hex(b, m->line, "marker", m->at, &h))
			continue;
		o = hex_to_offset(&g->layout, h);
		snprintf(key, sizeof key, "obj.%d.hex", n);
		game_set_var(g, key, o.row * 1000 + o.col);
		snprintf(key, sizeof key, "obj.%d", n);
		game_set_var(g, key, strcmp(m->side, "none") == 0 ? 0 :
		    game_side_index(g, m->side) + 1);
		n++;
	}
	game_set_var(g, "obj.n", n);
}

/* Hidden deployment: an element starts hidden unless it stands in the
 * open within an enemy's sight, or within 4" of an enemy that sees it. */
static void
hide_start(struct game *g)
{
	int i, j;

	skm_sight_begin(g);     /* the games of a run share their maps */
	for (i = 0; i < g->nunits; i++) {
		const struct skm_terrain *t = skm_terrain(g, g->units[i].pos);
		bool seen = false;

		for (j = 0; j < g->nunits && !seen; j++) {
			if (g->units[j].side == g->units[i].side ||
			    !skm_los_units(g, j, i))
				continue;
			if ((t != NULL && t->cover == SKM_OPEN) ||
			    hex_distance(g->units[i].pos, g->units[j].pos) <=
			    SKM_AUTO_SPOT)
				seen = true;
		}
		if (!seen)
			g->units[i].flags |= SKM_F_HIDDEN;
	}
	skm_sight_end();
}

/* Is opt a campaign option skirmish-ww2 knows? (err if not) */
static bool
option_ok(const char *opt, struct hp_error *err)
{
	char buf[256], *p, *tok, *save = NULL;
	int n;

	strlcpy_(buf, opt, sizeof buf);
	for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if (strcmp(tok, "faithful") == 0)
			continue;
		if (strncmp(tok, "turns=", 6) == 0 &&
		    orders_parse_int(tok + 6, 1, 100, &n) == HP_OK)
			continue;
		hp_seterr(err, HP_EINVAL, "unknown option '%s' (options: "
		    "turns=N, faithful)", tok);
		return false;
	}
	return true;
}

/* Build g from the scenario sc; HP_EINVAL with every complaint listed. */
int
skm_setup(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	struct scenario_build b = {g, sc, 0};
	const char *turns;
	int i, n, s;

	if (!option_ok(g->options, err))
		return HP_EINVAL;
	strlcpy_(g->scenario, sc->name, sizeof g->scenario);
	g->layout.orient = HEX_FLAT;
	g->layout.parity = HEX_ODD;
	g->layout.row_base = 1;
	g->layout.cols = sc->cols;
	g->layout.rows = sc->rows;
	if (sc->cols > 26)
		scenario_build_bad(
		    &b, sc->map_line, "map: at most 26 columns (A-Z)");
	if (sc->nsides != 2)
		scenario_build_bad(&b, sc->nsides ? sc->sides[0].line : 0,
		    "side: "
		    "skirmish-ww2 needs exactly two sides");
	g->nsides = sc->nsides > 2 ? 2 : sc->nsides;
	for (i = 0; i < g->nsides; i++) {
		strlcpy_(g->sides[i].name, sc->sides[i].name,
		    sizeof g->sides[i].name);
		strlcpy_(g->sides[i].label, sc->sides[i].label,
		    sizeof g->sides[i].label);
		g->sides[i].ai = true;
	}
	build_map(&b);
	build_options(&b, false);
	if (sc->nterrain == sc->rows) {
		build_units(&b);
		build_options(&b, true);
		build_markers(&b);
	}
	for (i = 0; i < sc->nvars; i++) {
		const char *nm = sc->vars[i].name;

		if (strcmp(nm, "morale") != 0 && strcmp(nm, "break") != 0) {
			scenario_build_bad(&b, sc->vars[i].line,
			    "var: skirmish-ww2 knows "
			    "morale (test number) and break (percent)");
			continue;
		}
		n = scenario_var(sc, nm, 0);
		if (n < 2 || n > 100)
			scenario_build_bad(
			    &b, sc->vars[i].line, "var: %s out of range", nm);
		game_set_var(g, nm, n);
	}
	for (s = 0; s < g->nsides; s++) {
		char key[24];

		n = 0;
		for (i = 0; i < g->nunits; i++)
			n += g->units[i].side == s;
		if (n == 0)
			scenario_build_bad(&b, sc->sides[s].line,
			    "side: %s has no elements", sc->sides[s].name);
		snprintf(key, sizeof key, "force.%d", s);
		game_set_var(g, key, n);
	}
	n = sc->turns > 0 ? sc->turns : 8;
	if ((turns = game_option(g, "turns")) != NULL)
		orders_parse_int(turns, 1, 100, &n);
	game_set_var(g, "turns", n);
	if (b.errors == 0)
		hide_start(g);
	g->turn = 1;
	g->window = 1;
	if (b.errors > 0) {
		hp_seterr(err, HP_EINVAL, "scenario %s: %d error%s", sc->name,
		    b.errors, b.errors == 1 ? "" : "s");
		return HP_EINVAL;
	}
	return HP_OK;
}

/* --- the map and status --------------------------------------------------- */

struct skm_render {
	const struct game *g;
	int side;
};

/* Does h exist on the drawn map? */
static bool
r_exists(void *arg, struct hex h)
{
	return hex_at(((struct skm_render *)arg)->g, h) != NULL;
}

/* The two lines of hex h: label, terrain, height or smoke; element. */
static void
r_cell(void *arg, struct hex h, struct render_cell *cell)
{
	const struct skm_render *r = arg;
	const struct game *g = r->g;
	const struct skm_terrain *t = skm_terrain(g, h);
	char a[8];
	int i, sm = skm_smoke(g, h);

	hex_label(&g->layout, h, a, sizeof a);
	snprintf(cell->line[0], sizeof cell->line[0], "%.3s%c%c", a,
	    t != NULL ? t->code : ' ', sm ? (sm == 4 ? 'S' : 's') :
	    skm_elev(g, h) > 0 ? (char)('0' + skm_elev(g, h) % 10) : ' ');
	cell->line[1][0] = '\0';
	for (i = 0; i < g->nunits; i++)
		if (skm_alive(g, i) && hex_eq(g->units[i].pos, h) &&
		    skm_visible(g, r->side, i)) {
			snprintf(cell->line[1], sizeof cell->line[1], "%.5s",
			    g->units[i].id);
			break;
		}
}

/* The character of an obstacle on side dir of h, 0 for none. */
static char
r_edge(void *arg, struct hex h, int dir)
{
	int e = skm_edge(((struct skm_render *)arg)->g, h, dir);

	return e == SKM_E_NONE ? 0 : e == SKM_E_WALL ? '#' : '+';
}

/* The map and the roster of what side sees. */
void
skm_render_map(const struct game *g, int side, struct sbuf *b)
{
	struct skm_render pr = { g, side };
	struct render_map m;
	char a[8], cf[16], notes[48], line[256];
	size_t n;
	int i;

	memset(&m, 0, sizeof m);
	m.layout = &g->layout;
	m.arg = &pr;
	m.exists = r_exists;
	m.cell = r_cell;
	m.edge = r_edge;
	render_hexmap(&m, b);
	sbuf_puts(b, "\nTerrain: , scrub \" crops w woods h house B stone "
	    "building (2 storeys) r rubble\nT trench K bunker; 1-9 "
	    "elevation; S smoke +4, s smoke +2. Edges: + hedge, # wall.\n"
	    "One hex is 2 inches.\n\n");
	sbuf_printf(b, "  %-6s %-5s %-18s %-4s %-3s %-5s %-10s %s\n", "elem",
	    "side", "kind", "hex", "fl", "figs", "morale", "notes");
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		struct hex h;

		if (!skm_alive(g, i) || !skm_visible(g, side, i))
			continue;
		cf[0] = '\0';
		if (skm_cf(g, i, &h))
			snprintf(cf, sizeof cf, "%s %s", skm_cf(g, i, &h) == 2 ?
			    "FFE" : "CF", hex_label(&g->layout, h, a,
			    sizeof a));
		snprintf(notes, sizeof notes, "%s%s%s", u->x[SKM_X_QUAL] ==
		    SKM_GREEN ? "green " : u->x[SKM_X_QUAL] == SKM_VETERAN ?
		    "veteran " : "", (u->flags & SKM_F_HIDDEN) ? "hidden " :
		    "", cf);
		n = strlen(notes);
		while (n > 0 && notes[n - 1] == ' ')
			notes[--n] = '\0';
		snprintf(line, sizeof line, "  %-6s %-5s %-18s %-4s %-3d "
		    "%d/%-3d %-10s %s", u->id, g->sides[u->side].name,
		    u->name, hex_label(&g->layout, u->pos, a, sizeof a),
		    u->x[SKM_X_FLOOR], u->strength, u->x[SKM_X_FULL],
		    skm_morale_names[u->status], notes);
		n = strlen(line);
		while (n > 0 && line[n - 1] == ' ')
			line[--n] = '\0';
		sbuf_printf(b, "%s\n", line);
	}
	for (i = 0; i < game_var(g, "obj.n", 0); i++) {
		char key[32];
		int v, o;
		struct hex_offset off;

		snprintf(key, sizeof key, "obj.%d.hex", i);
		v = game_var(g, key, 0);
		off.row = v / 1000;
		off.col = v % 1000;
		snprintf(key, sizeof key, "obj.%d", i);
		o = game_var(g, key, 0);
		sbuf_printf(b, "  objective %d at %s: %s\n", i + 1,
		    hex_label(&g->layout, hex_from_offset(&g->layout, off), a,
		    sizeof a), o ? g->sides[o - 1].name : "nobody's");
	}
}

/* Status lines: the turn, objectives held and each side's force. */
void
skm_status(const struct game *g, int side, struct sbuf *b)
{
	int s, i, n, lost;
	char key[24];

	sbuf_printf(b, "Turn %d (the game may end from turn %d).\n", g->turn,
	    game_var(g, "turns", 8));
	for (s = 0; s < g->nsides; s++) {
		n = 0;
		for (i = 0; i < game_var(g, "obj.n", 0); i++) {
			snprintf(key, sizeof key, "obj.%d", i);
			n += game_var(g, key, 0) == s + 1;
		}
		snprintf(key, sizeof key, "force.%d", s);
		lost = 0;
		for (i = 0; i < g->nunits; i++)
			if (g->units[i].side == s && (!skm_alive(g, i) ||
			    g->units[i].status == SKM_BROKEN))
				lost++;
		if (side >= 0 && s != side)
			sbuf_printf(b, "  %-8s objectives %d\n",
			    g->sides[s].name, n);
		else
			sbuf_printf(b, "  %-8s objectives %d, force %d "
			    "elements, %d lost or broken\n", g->sides[s].name,
			    n, game_var(g, key, 0), lost);
	}
}
