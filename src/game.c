/* game: in-memory campaign state (see include/game.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

/*
 * units and hexes grow as they are added to: room for GAME_ROOM_MIN entries
 * at first, doubled each time the array is full, up to the GAME_MAX_*
 * limits. The room is not stored but follows from the count (room()), so
 * that a game copied by assignment and given other arrays, as the fuzzer
 * does, carries no stale capacity; lowering nunits or nhex by hand only
 * leaves more room than needed. Entries never used are zero. Growing moves
 * the array: a pointer into it (from game_add_unit, game_unit, game_add_hex,
 * game_hex_at) is good until the next game_add_unit or game_add_hex.
 */
#define GAME_ROOM_MIN 16

/* Record (once) that the game's data reached the limit of max things. */
static void
limit(struct game *g, const char *things, int max)
{
	if (g->error[0] == '\0')
		snprintf(g->error, sizeof g->error, "campaign %s has more than "
		    "%d %s (GAME_MAX_%s in include/game.h)", g->name, max,
		    things, strcmp(things, "variables") == 0 ? "VARS" :
		    strcmp(things, "units") == 0 ? "UNITS" : "HEXES");
}

/* Entries allocated for an array of n entries (at most max). */
static size_t
room(int n, int max)
{
	size_t r = GAME_ROOM_MIN;

	while (r < (size_t)n)
		r *= 2;
	return r < (size_t)max ? r : (size_t)max;
}

/* a, holding n entries of size sz, with room for one more (n < max). */
static void *
grow(void *a, int n, int max, size_t sz)
{
	size_t have = room(n, max), want = room(n + 1, max);

	if (a == NULL)
		return xcalloc(want, sz);
	if (want == have)
		return a;
	a = xrealloc(a, want * sz);
	memset((char *)a + have * sz, 0, (want - have) * sz);
	return a;
}

void
game_init(struct game *g)
{
	memset(g, 0, sizeof *g);
	g->units = xcalloc(room(0, GAME_MAX_UNITS), sizeof *g->units);
	g->hexes = xcalloc(room(0, GAME_MAX_HEXES), sizeof *g->hexes);
	g->vars = xcalloc(room(0, GAME_MAX_VARS), sizeof *g->vars);
	g->turn = 1;
	g->window = 1;
	g->status = GAME_ACTIVE;
}

void
game_free(struct game *g)
{
	int i;

	for (i = 0; i < GAME_MAX_SIDES; i++)
		free(g->sides[i].standing);
	free(g->units);
	free(g->hexes);
	free(g->vars);
	free(g->rstate);
	free(g->hexidx);
	memset(g, 0, sizeof *g);
}

void
game_copy(struct game *dst, const struct game *src)
{
	int i;

	*dst = *src;
	dst->units = xcalloc(room(src->nunits, GAME_MAX_UNITS),
	    sizeof *dst->units);
	dst->hexes = xcalloc(room(src->nhex, GAME_MAX_HEXES),
	    sizeof *dst->hexes);
	if (src->nunits > 0)
		memcpy(dst->units, src->units,
		    sizeof *src->units * (size_t)src->nunits);
	if (src->nhex > 0)
		memcpy(dst->hexes, src->hexes,
		    sizeof *src->hexes * (size_t)src->nhex);
	dst->vars = xcalloc(room(src->nvars, GAME_MAX_VARS),
	    sizeof *dst->vars);
	if (src->nvars > 0)
		memcpy(dst->vars, src->vars,
		    sizeof *src->vars * (size_t)src->nvars);
	dst->rstate = src->rstate ? xstrdup(src->rstate) : NULL;
	dst->hexidx = NULL;
	dst->hexidx_of = NULL;
	if (src->hexidx != NULL && src->hexidx_of == src->hexes &&
	    src->hexidx_n == src->nhex) {
		size_t cells = (size_t)src->hexidx_w * (size_t)src->hexidx_h;

		dst->hexidx = xcalloc(cells, sizeof *dst->hexidx);
		memcpy(dst->hexidx, src->hexidx, cells * sizeof *dst->hexidx);
		dst->hexidx_of = dst->hexes;
	}
	for (i = 0; i < GAME_MAX_SIDES; i++)
		dst->sides[i].standing = src->sides[i].standing ?
		    xstrdup(src->sides[i].standing) : NULL;
}

int
game_side_index(const struct game *g, const char *name)
{
	int i;

	for (i = 0; i < g->nsides; i++)
		if (strcasecmp(g->sides[i].name, name) == 0)
			return i;
	return -1;
}

struct game_unit *
game_add_unit(struct game *g, const char *id, const char *kind,
    const char *name, int side)
{
	struct game_unit *u;

	if (g->nunits >= GAME_MAX_UNITS) {
		limit(g, "units", GAME_MAX_UNITS);
		u = &g->sink_unit;
	} else {
		g->units = grow(g->units, g->nunits, GAME_MAX_UNITS,
		    sizeof *g->units);
		u = &g->units[g->nunits++];
	}
	memset(u, 0, sizeof *u);
	strlcpy_(u->id, id, sizeof u->id);
	strlcpy_(u->kind, kind, sizeof u->kind);
	strlcpy_(u->name, name, sizeof u->name);
	u->side = side;
	u->facing = -1;
	u->attached = -1;
	return u;
}

int
game_unit_index(const struct game *g, const char *id)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (strcasecmp(g->units[i].id, id) == 0)
			return i;
	return -1;
}

struct game_unit *
game_unit(struct game *g, const char *id)
{
	int i = game_unit_index(g, id);

	return i < 0 ? NULL : &g->units[i];
}

/* Widen the box [*lo, *hi] to hold v. */
static void
widen(int v, int *lo, int *hi)
{
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

/* (Re)build g's index of hexes by position: a box over every hex and the
 * layout's corners (so hexes added later inside the layout fit), each
 * cell the first hex there. Leaves no index (lookups scan) when the box
 * would be far larger than the map. The index is a cache: g is logically
 * unchanged, hence the const. */
static void
index_hexes(const struct game *cg)
{
	struct game *g = (struct game *)cg;
	int q0 = INT_MAX, q1 = INT_MIN, r0 = INT_MAX, r1 = INT_MIN, i, c;
	long long cells;

	free(g->hexidx);
	g->hexidx = NULL;
	g->hexidx_of = g->hexes;
	g->hexidx_n = g->nhex;
	g->hexidx_w = g->hexidx_h = 0;
	for (i = 0; i < g->nhex; i++) {
		widen(g->hexes[i].h.q, &q0, &q1);
		widen(g->hexes[i].h.r, &r0, &r1);
	}
	if (g->layout.cols > 0 && g->layout.rows > 0 &&
	    g->layout.cols <= 4096 && g->layout.rows <= 4096) {
		struct hex_offset o;

		for (c = 0; c < 4; c++) {
			struct hex h;

			o.col = c & 1 ? g->layout.cols - 1 : 0;
			o.row = c & 2 ? g->layout.rows - 1 : 0;
			h = hex_from_offset(&g->layout, o);
			widen(h.q, &q0, &q1);
			widen(h.r, &r0, &r1);
		}
	}
	if (q0 > q1)
		return;
	cells = ((long long)q1 - q0 + 1) * ((long long)r1 - r0 + 1);
	if (cells > 4LL * GAME_MAX_HEXES + 4LL * g->nhex)
		return;
	g->hexidx = xcalloc((size_t)cells, sizeof *g->hexidx);
	g->hexidx_q0 = q0;
	g->hexidx_r0 = r0;
	g->hexidx_w = q1 - q0 + 1;
	g->hexidx_h = r1 - r0 + 1;
	for (i = 0; i < g->nhex; i++) {
		int *cell = &g->hexidx[(g->hexes[i].h.q - q0) +
		    (long)(g->hexes[i].h.r - r0) * g->hexidx_w];

		if (*cell == 0)
			*cell = i + 1;
	}
}

/* The index cell of h in g's index, or NULL when h is outside its box. */
static int *
index_cell(const struct game *g, struct hex h)
{
	long dq = (long)h.q - g->hexidx_q0, dr = (long)h.r - g->hexidx_r0;

	if (dq < 0 || dr < 0 || dq >= g->hexidx_w || dr >= g->hexidx_h)
		return NULL;
	return &g->hexidx[dq + dr * g->hexidx_w];
}

struct game_hex *
game_add_hex(struct game *g, struct hex h, const char *terrain)
{
	struct game_hex *gh;
	bool indexed = g->hexidx != NULL && g->hexidx_of == g->hexes &&
	    g->hexidx_n == g->nhex;
	int *cell;

	if (g->nhex >= GAME_MAX_HEXES) {
		limit(g, "hexes", GAME_MAX_HEXES);
		gh = &g->sink_hex;
	} else {
		g->hexes = grow(g->hexes, g->nhex, GAME_MAX_HEXES,
		    sizeof *g->hexes);
		gh = &g->hexes[g->nhex++];
		/* Keep the index current when h falls in its box; else mark
		 * it stale for good (a reload that sets nhex to 0 and adds as
		 * many hexes again must not find the old index current). */
		if (indexed && (cell = index_cell(g, h)) != NULL) {
			if (*cell == 0)
				*cell = g->nhex;
			g->hexidx_of = g->hexes;
			g->hexidx_n = g->nhex;
		} else
			g->hexidx_n = -1;
	}
	memset(gh, 0, sizeof *gh);
	gh->h = h;
	strlcpy_(gh->terrain, terrain, sizeof gh->terrain);
	return gh;
}

const struct game_hex *
game_hex_at_c(const struct game *g, struct hex h)
{
	const int *cell;
	int i;

	if (g->hexidx_of != g->hexes || g->hexidx_n != g->nhex)
		index_hexes(g);
	if (g->hexidx != NULL) {
		if ((cell = index_cell(g, h)) == NULL || *cell == 0)
			return NULL;
		return &g->hexes[*cell - 1];
	}
	for (i = 0; i < g->nhex; i++)
		if (hex_eq(g->hexes[i].h, h))
			return &g->hexes[i];
	return NULL;
}

struct game_hex *
game_hex_at(struct game *g, struct hex h)
{
	return (struct game_hex *)game_hex_at_c(g, h);
}

bool
game_on_map(const struct game *g, struct hex h)
{
	return game_hex_at_c(g, h) != NULL;
}

int
game_var(const struct game *g, const char *key, int dflt)
{
	int i;

	for (i = 0; i < g->nvars; i++)
		if (g->vars[i].key[0] == key[0] &&
		    strcmp(g->vars[i].key, key) == 0)
			return g->vars[i].val;
	return dflt;
}

void
game_set_var(struct game *g, const char *key, int val)
{
	int i;

	for (i = 0; i < g->nvars; i++)
		if (g->vars[i].key[0] == key[0] &&
		    strcmp(g->vars[i].key, key) == 0) {
			g->vars[i].val = val;
			return;
		}
	if (g->nvars >= GAME_MAX_VARS) {
		limit(g, "variables", GAME_MAX_VARS);
		return;
	}
	g->vars = grow(g->vars, g->nvars, GAME_MAX_VARS, sizeof *g->vars);
	strlcpy_(g->vars[g->nvars].key, key, sizeof g->vars[0].key);
	g->vars[g->nvars++].val = val;
}

const char *
game_error(const struct game *g)
{
	return g->error[0] != '\0' ? g->error : NULL;
}

void
game_set_rstate(struct game *g, const char *text)
{
	free(g->rstate);
	g->rstate = text != NULL ? xstrdup(text) : NULL;
}

const char *
game_option(const struct game *g, const char *key)
{
	static char val[128];
	const char *p = g->options;
	size_t klen = strlen(key);

	while (*p != '\0') {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len >= klen && strncmp(p, key, klen) == 0 &&
		    (len == klen || p[klen] == '=')) {
			size_t vlen = len == klen ? 0 : len - klen - 1;

			if (vlen >= sizeof val)
				vlen = sizeof val - 1;
			memcpy(val, p + klen + (len == klen ? 0 : 1), vlen);
			val[vlen] = '\0';
			return val;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return NULL;
}

bool
game_option_flag(const struct game *g, const char *key)
{
	const char *v = game_option(g, key);

	if (v == NULL)
		return false;
	return *v == '\0' || strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 ||
	    strcasecmp(v, "true") == 0 || strcasecmp(v, "on") == 0;
}

const char *
game_strstatus(enum game_status s)
{
	switch (s) {
	case GAME_SETUP:
		return "setup";
	case GAME_ACTIVE:
		return "active";
	case GAME_FINISHED:
		return "finished";
	}
	return "unknown";
}

char *
game_label(const struct game *g, struct hex h, char *buf, size_t len)
{
	return hex_label(&g->layout, h, buf, len);
}
