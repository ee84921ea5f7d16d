/* plt_orders: the platoon ruleset's order window, its order parser (the
 * checks that need nothing but the orders and the map), the order template
 * and the ruleset's registration. Format and readings:
 * docs/rules/platoon.md, "Play by mail". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platoon.h"

/* Is the campaign in the faithful mode (reveal=each)? */
bool
plt_each(const struct game *g)
{
	return game_var(g, "reveal", 0) == 1;
}

/* The side asked for its next reveal (reveal=each), -1 if none. */
int
plt_asked(const struct game *g)
{
	return game_var(g, "rv.ask", 0) - 1;
}

/* Platoon p's order marker (reveal=each): its kind, or -1 if it has none
 * left to reveal this turn; *mmm its Move, Move, Move. */
int
plt_marker(const struct game *g, int p, bool *mmm)
{
	int m = g->units[p].x[PLT_X_MARK];

	if (mmm != NULL)
		*mmm = (m & PLT_MARK_MMM) != 0;
	if (m == 0 || (g->units[p].flags & PLT_F_DONE))
		return -1;
	return (m & ~PLT_MARK_MMM) - 1;
}

/* One simultaneous window per turn for every side, until the end; in the
 * faithful mode, after it, a decision window "reveal" for each reveal
 * (numbered 2, 3, ... within the turn), naming the side asked. */
bool
plt_next_window(const struct game *g, struct window_spec *w)
{
	int s, p, left = 0;

	if (g->status == GAME_FINISHED)
		return false;
	memset(w, 0, sizeof *w);
	w->turn = g->turn;
	w->number = 1;
	w->kind = WINDOW_ORDERS;
	if ((s = plt_asked(g)) >= 0) {
		for (p = 0; p < g->nunits; p++)
			if (plt_is_platoon(&g->units[p]) && g->units[p].side ==
			    s && plt_marker(g, p, NULL) >= 0)
				left++;
		w->number = game_var(g, "rv.n", 2);
		w->kind = WINDOW_DECISION;
		w->sides = 1u << s;
		strlcpy_(w->name, "reveal", sizeof w->name);
		snprintf(w->prompt, sizeof w->prompt, "%s: reveal one of your "
		    "%d order marker%s", g->sides[s].name, left, left == 1 ?
		    "" : "s");
		return true;
	}
	strlcpy_(w->name, "orders", sizeof w->name);
	for (s = 0; s < g->nsides; s++)
		w->sides |= 1u << s;
	return true;
}

/* tolower in the C locale (hexpost sets no other), in line. */
static inline int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* The units by id while one order file is parsed (ids_begin/ids_end
 * around it: the units do not change meanwhile): an open-addressing table
 * of unit index + 1 by the hash of the id in lower case, the first unit
 * of an id only (game_unit_index's answer). Per thread. */
#define IDS_MAX 1024
static _Thread_local struct {
	const struct game *g;  /* the game it holds, NULL: none */
	int mask;
	int slot[IDS_MAX * 2];
	/* The ids it was filled from, by unit (n of them): when a game's
	 * are the same, so is the table. */
	int n;
	char id[IDS_MAX][GAME_ID_MAX];
} ids;

/* The hash of id in lower case. */
static unsigned
ids_hash(const char *id)
{
	unsigned h = 2166136261u;

	for (; *id != '\0'; id++)
		h = (h ^ (unsigned)lower((unsigned char)*id)) * 16777619u;
	return h;
}

/* Are a and b the same id, case aside? */
static bool
ids_same(const char *a, const char *b)
{
	for (; lower((unsigned char)*a) == lower((unsigned char)*b); a++, b++)
		if (*a == '\0')
			return true;
	return false;
}

/* Fill the table with g's units (none when more than it holds). */
static void
ids_begin(const struct game *g)
{
	int i, k, n = 16;

	ids.g = NULL;
	if (g->nunits > IDS_MAX)
		return;
	if (ids.n == g->nunits) {
		for (i = 0; i < g->nunits && memcmp(ids.id[i], g->units[i].id,
		    GAME_ID_MAX) == 0; i++)
			;
		if (i == g->nunits) {
			ids.g = g;
			return;
		}
	}
	ids.n = -1;
	while (n < 2 * g->nunits)
		n *= 2;
	ids.mask = n - 1;
	memset(ids.slot, 0, sizeof(int) * (size_t)n);
	for (i = 0; i < g->nunits; i++) {
		for (k = (int)(ids_hash(g->units[i].id) & (unsigned)ids.mask);
		    ids.slot[k] != 0 && !ids_same(g->units[ids.slot[k] -
		    1].id, g->units[i].id); k = (k + 1) & ids.mask)
			;
		if (ids.slot[k] == 0)
			ids.slot[k] = i + 1; /* else an earlier unit has it */
		memcpy(ids.id[i], g->units[i].id, GAME_ID_MAX);
	}
	ids.n = g->nunits;
	ids.g = g;
}

/* The table is no longer good. */
static void
ids_end(void)
{
	ids.g = NULL;
}

/* game_unit_index (the first unit whose id is id, case aside): from the
 * table when it holds g, else with the bytes compared in line. */
static int
unit_index(const struct game *g, const char *id)
{
	int i;

	if (ids.g == g) {
		for (i = (int)(ids_hash(id) & (unsigned)ids.mask);
		    ids.slot[i] != 0; i = (i + 1) & ids.mask)
			if (ids_same(g->units[ids.slot[i] - 1].id, id))
				return ids.slot[i] - 1;
		return -1;
	}

	for (i = 0; i < g->nunits; i++) {
		const unsigned char *a = (const unsigned char *)g->units[i].id;
		const unsigned char *b = (const unsigned char *)id;

		for (; lower(*a) == lower(*b); a++, b++)
			if (*a == '\0')
				return i;
	}
	return -1;
}

/* A unit of the side by id (a platoon when platoon, else a squad on the
 * map); -1 with an error otherwise. */
static int
own(const struct game *g, int side, const struct order_line *l,
    const char *id, bool platoon, struct order_errors *errs)
{
	int i = unit_index(g, id);

	if (i < 0 || plt_is_platoon(&g->units[i]) != platoon) {
		orders_error(errs, l->lineno, "no %s '%s' (the order template "
		    "lists yours)", platoon ? "platoon" : "squad", id);
		return -1;
	}
	if (g->units[i].side != side) {
		orders_error(errs, l->lineno, "%s %s is not yours", platoon ?
		    "platoon" : "squad", id);
		return -1;
	}
	if (!platoon && !plt_alive(g, i)) {
		orders_error(errs, l->lineno, "squad %s has been removed", id);
		return -1;
	}
	return i;
}

/* The order named w (enum plt_order), -1 if none. */
static int
order_kind(const char *w)
{
	int k;

	for (k = 0; k <= PLT_O_REFORM; k++)
		if (strcmp(w, plt_order_names[k]) == 0)
			return k;
	return -1;
}

/* The item of platoon p in o, or NULL. */
static struct plt_order_item *
item_of(struct plt_orders *o, int p)
{
	int k;

	for (k = 0; k < o->n; k++)
		if (o->o[k].platoon == p)
			return &o->o[k];
	return NULL;
}

/* "order PLATOON KIND [mmm] [SQUAD]"; marks (reveal=each's order window):
 * only "order PLATOON KIND [mmm]", and once the turn's reveals have begun
 * (a stored file parsed again, docs/ARCHITECTURE.md "Mid-resolution
 * decisions") none of the checks of the state, which resolve makes. */
static void
parse_order(const struct game *g, int side, const struct order_line *l,
    struct plt_orders *o, bool marks, struct order_errors *errs)
{
	struct plt_order_item *it;
	int p, k, w = 3, al, re, lo;
	bool mid = marks && game_var(g, "rv.mid", 0) != 0;

	if (l->nwords < 3) {
		orders_error(errs, l->lineno, "expected 'order PLATOON advance|"
		    "assault|fallback|engage|reform|none'");
		return;
	}
	if ((p = own(g, side, l, l->words[1], true, errs)) < 0)
		return;
	if ((k = order_kind(l->words[2])) < 0) {
		orders_error(errs, l->lineno, "no order '%s' (advance, assault, "
		    "fallback, engage, reform, none)", l->words[2]);
		return;
	}
	if ((it = item_of(o, p)) != NULL) {
		orders_error(errs, l->lineno, "platoon %s already has an order "
		    "on line %d (one order per platoon)", l->words[1],
		    it->line);
		return;
	}
	plt_counts(g, p, &al, &re, &lo);
	if (al == 0 && !mid) {
		orders_error(errs, l->lineno, "platoon %s has no squads left",
		    l->words[1]);
		return;
	}
	if (o->n == PLT_ORDERS_MAX) {
		orders_error(errs, l->lineno, "too many orders");
		return;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4;
		o->o = xrealloc(o->o, sizeof *o->o * (size_t)o->cap);
	}
	it = &o->o[o->n];
	memset(it, 0, sizeof *it);
	it->platoon = p;
	it->line = l->lineno;
	it->kind = k;
	it->reform = -1;
	if (w < l->nwords && strcmp(l->words[w], "mmm") == 0) {
		if (!game_option_flag(g, "move-move-move")) {
			orders_error(errs, l->lineno, "'mmm' (Move, Move, Move) "
			    "needs the campaign option move-move-move");
			return;
		}
		if (k != PLT_O_ADVANCE && k != PLT_O_ASSAULT &&
		    k != PLT_O_FALLBACK) {
			orders_error(errs, l->lineno, "'mmm' goes with advance, "
			    "assault or fallback (it is a move)");
			return;
		}
		it->mmm = true;
		w++;
	}
	if (k == PLT_O_REFORM && w < l->nwords && !marks) {
		int s = own(g, side, l, l->words[w], false, errs);

		if (s < 0)
			return;
		if (g->units[s].attached != p || g->units[s].strength != 1) {
			orders_error(errs, l->lineno, "squad %s is not a "
			    "reduced squad of platoon %s", l->words[w],
			    l->words[1]);
			return;
		}
		it->reform = s;
		w++;
	}
	if (w < l->nwords) {
		orders_error(errs, l->lineno, "unexpected '%s' after the order%s",
		    l->words[w], marks ? " (reveal=each: name the reduced "
		    "squad when you reveal the reform)" : "");
		return;
	}
	if (mid) {
		o->n++;
		return;
	}
	if ((g->units[p].flags & PLT_F_SUPP) && (k == PLT_O_ADVANCE ||
	    k == PLT_O_ASSAULT)) {
		orders_error(errs, l->lineno, "platoon %s is suppressed: it "
		    "may fall back, engage, reform or do nothing, not %s",
		    l->words[1], l->words[2]);
		return;
	}
	if (k == PLT_O_ENGAGE && !plt_coherent(g, p)) {
		orders_error(errs, l->lineno, "platoon %s is out of coherency: "
		    "it may only be given a movement order (advance, assault, "
		    "fallback, reform)", l->words[1]);
		return;
	}
	if (k == PLT_O_ASSAULT) {
		const struct plt_profile *pf;
		int cost, e, i, low = 99;

		for (i = 0; i < g->nunits; i++)
			if (plt_alive(g, i) && g->units[i].attached == p &&
			    (pf = plt_profile_ref(g, i)) != NULL && pf->move <
			    low)
				low = pf->move;
		/* The search stops at the limit; past it, the whole search
		 * tells why (no way, or too far). */
		e = plt_nearest_enemy_within(g, p, low + 10 + (it->mmm ? 10 :
		    0), &cost);
		if (e >= 0 && cost < 0)
			e = plt_nearest_enemy(g, p, &cost);
		if (e < 0 || cost < 0 || cost > low + 10 + (it->mmm ? 10 : 0)) {
			orders_error(errs, l->lineno, "platoon %s cannot "
			    "assault: %s", l->words[1], e < 0 ? "it sees no "
			    "enemy squad" : cost < 0 ? "no way reaches the "
			    "nearest enemy it sees" : "the nearest enemy it "
			    "sees is out of reach of its maximum move");
			return;
		}
	}
	o->n++;
}

/* "move SQUAD HEX..." */
static void
parse_move(const struct game *g, int side, const struct order_line *l,
    struct plt_orders *o, struct order_errors *errs)
{
	struct plt_order_item *it;
	struct plt_move *m;
	int s, k;

	if (l->nwords < 3) {
		orders_error(errs, l->lineno, "expected 'move SQUAD HEX [HEX..]'");
		return;
	}
	if ((s = own(g, side, l, l->words[1], false, errs)) < 0)
		return;
	if ((it = item_of(o, g->units[s].attached)) == NULL) {
		orders_error(errs, l->lineno, "platoon %s of squad %s has no "
		    "order line before this one", g->units[g->units[s].attached].id,
		    l->words[1]);
		return;
	}
	if (it->kind != PLT_O_ADVANCE && it->kind != PLT_O_FALLBACK &&
	    it->kind != PLT_O_REFORM) {
		orders_error(errs, l->lineno, "%s: a %s order has no 'move' "
		    "lines%s", l->words[1], plt_order_names[it->kind],
		    it->kind == PLT_O_ASSAULT ? " (the assault moves towards "
		    "the nearest enemy by itself)" : "");
		return;
	}
	for (k = 0; k < it->nmove; k++)
		if (it->move[k].squad == s) {
			orders_error(errs, l->lineno, "squad %s already moves "
			    "(one move line a squad)", l->words[1]);
			return;
		}
	if (l->nwords - 2 > PLT_PATH_MAX ||
	    it->nmove == (int)(sizeof it->move / sizeof it->move[0])) {
		orders_error(errs, l->lineno, "too many hexes (at most %d "
		    "waypoints)", PLT_PATH_MAX);
		return;
	}
	m = &it->move[it->nmove];
	m->squad = s;
	m->n = 0;
	for (k = 2; k < l->nwords; k++) {
		struct hex h;
		const struct plt_terrain *t;

		if (!hex_parse_label(&g->layout, l->words[k], &h) ||
		    (t = plt_terrain(g, h)) == NULL) {
			orders_error(errs, l->lineno, "expected a hex of the map "
			    "(A1 to %c%d), got '%s'", 'A' + g->layout.cols - 1,
			    g->layout.rows, l->words[k]);
			return;
		}
		if (t->impassable) {
			orders_error(errs, l->lineno, "%s is impassable (%s)",
			    l->words[k], t->name);
			return;
		}
		if (it->kind == PLT_O_FALLBACK || (g->units[it->platoon].flags &
		    PLT_F_SUPP)) {
			struct hex prev = m->n ? m->h[m->n - 1] :
			    g->units[s].pos;

			if (plt_home_dist(g, side, h) >
			    plt_home_dist(g, side, prev)) {
				orders_error(errs, l->lineno, "%s leads away "
				    "from your home edge (%s may only move "
				    "towards it)", l->words[k],
				    it->kind == PLT_O_FALLBACK ? "a fall back" :
				    "a suppressed platoon");
				return;
			}
		}
		m->h[m->n++] = h;
	}
	it->nmove++;
}

/* "fire SQUAD ff|hw N TARGET [ap|av]" */
static void
parse_fire(const struct game *g, int side, const struct order_line *l,
    struct plt_orders *o, struct order_errors *errs)
{
	struct plt_order_item *it;
	struct plt_fire *f;
	int s, t, n, k, used = 0, have;
	bool hw;

	if (l->nwords < 5 || l->nwords > 6 || (strcmp(l->words[2], "ff") &&
	    strcmp(l->words[2], "hw")) || (l->nwords == 6 &&
	    strcmp(l->words[5], "ap") && strcmp(l->words[5], "av"))) {
		orders_error(errs, l->lineno, "expected 'fire SQUAD ff|hw "
		    "DICE TARGET [ap|av]'");
		return;
	}
	if ((s = own(g, side, l, l->words[1], false, errs)) < 0)
		return;
	hw = strcmp(l->words[2], "hw") == 0;
	if (orders_parse_int(l->words[3], 1, 99, &n) != HP_OK) {
		orders_error(errs, l->lineno, "expected a number of dice, got "
		    "'%s'", l->words[3]);
		return;
	}
	t = unit_index(g, l->words[4]);
	if (t < 0 || plt_is_platoon(&g->units[t]) || !plt_alive(g, t) ||
	    g->units[t].side == side) {
		orders_error(errs, l->lineno, "no enemy squad '%s' on the map",
		    l->words[4]);
		return;
	}
	if (l->nwords == 6 && strcmp(l->words[5], "av") == 0) {
		orders_error(errs, l->lineno, "anti-vehicle fire needs a "
		    "vehicle: the seed has none yet (use ap)");
		return;
	}
	if (l->nwords == 6 && !hw) {
		orders_error(errs, l->lineno, "ap/av is a Heavy Weapon mode");
		return;
	}
	if ((it = item_of(o, g->units[s].attached)) == NULL) {
		orders_error(errs, l->lineno, "platoon %s of squad %s has no "
		    "order line before this one",
		    g->units[g->units[s].attached].id, l->words[1]);
		return;
	}
	if (it->kind == PLT_O_REFORM || it->kind == PLT_O_NONE) {
		orders_error(errs, l->lineno, "a %s order may not fire",
		    plt_order_names[it->kind]);
		return;
	}
	have = plt_points(g, s, hw, it->kind, it->mmm);
	for (k = 0; k < it->nfire; k++)
		if (it->fire[k].squad == s && it->fire[k].hw == hw)
			used += it->fire[k].n;
	if (used + n > have) {
		orders_error(errs, l->lineno, "squad %s has %d %s point%s "
		    "under this order, and this line makes %d", l->words[1],
		    have, hw ? "Heavy Weapon" : "Firefight", have == 1 ? "" :
		    "s", used + n);
		return;
	}
	if (it->nfire == (int)(sizeof it->fire / sizeof it->fire[0])) {
		orders_error(errs, l->lineno, "too many fire lines");
		return;
	}
	f = &it->fire[it->nfire++];
	f->squad = s;
	f->hw = hw;
	f->n = n;
	f->target = t;
}

/* "cc SQUAD N TARGET" */
static void
parse_cc(const struct game *g, int side, const struct order_line *l,
    struct plt_orders *o, struct order_errors *errs)
{
	struct plt_order_item *it;
	int s, t, n, k, used = 0;

	if (l->nwords != 4) {
		orders_error(errs, l->lineno, "expected 'cc SQUAD DICE TARGET'");
		return;
	}
	if ((s = own(g, side, l, l->words[1], false, errs)) < 0)
		return;
	if (orders_parse_int(l->words[2], 1, 99, &n) != HP_OK) {
		orders_error(errs, l->lineno, "expected a number of dice, got "
		    "'%s'", l->words[2]);
		return;
	}
	t = unit_index(g, l->words[3]);
	if (t < 0 || plt_is_platoon(&g->units[t]) || !plt_alive(g, t) ||
	    g->units[t].side == side) {
		orders_error(errs, l->lineno, "no enemy squad '%s' on the map",
		    l->words[3]);
		return;
	}
	if ((it = item_of(o, g->units[s].attached)) == NULL ||
	    it->kind != PLT_O_ASSAULT) {
		orders_error(errs, l->lineno, "close combat comes only with an "
		    "assault order for platoon %s",
		    g->units[g->units[s].attached].id);
		return;
	}
	for (k = 0; k < it->ncc; k++)
		if (it->cc[k].squad == s)
			used += it->cc[k].n;
	if (used + n > plt_points(g, s, 2, it->kind, false) ||
	    it->ncc == (int)(sizeof it->cc / sizeof it->cc[0])) {
		orders_error(errs, l->lineno, "squad %s has %d Close Combat "
		    "points, and this line makes %d", l->words[1],
		    plt_points(g, s, 2, it->kind, false), used + n);
		return;
	}
	it->cc[it->ncc].squad = s;
	it->cc[it->ncc].n = n;
	it->cc[it->ncc].target = t;
	it->ncc++;
}

/* The checks of a whole order: Engage uses every point, "MUST move", the
 * coherency of the planned end hexes (with the terrain exception), and a
 * suppressed platoon safe in cover stays put. */
static void
check_item(const struct game *g, int side, const struct plt_order_item *it,
    bool reveal, struct order_errors *errs)
{
	const struct game_unit *pu = &g->units[it->platoon];
	struct hex end[64];
	int sq[64], n = 0, i, k, j, kind;

	for (i = 0; i < g->nunits && n < 64; i++) {
		if (!plt_alive(g, i) || g->units[i].attached != it->platoon)
			continue;
		sq[n] = i;
		end[n] = g->units[i].pos;
		for (k = 0; k < it->nmove; k++)
			if (it->move[k].squad == i)
				end[n] = it->move[k].h[it->move[k].n - 1];
		n++;
	}
	/* A reveal's engage fires the points its lines leave at the nearest
	 * enemy (as fire_phase does for every engage). */
	if (it->kind == PLT_O_ENGAGE && !reveal)
		for (k = 0; k < n; k++)
			for (kind = 0; kind < 2; kind++) {
				int used = 0, have = plt_points(g, sq[k], kind,
				    it->kind, false);

				for (j = 0; j < it->nfire; j++)
					if (it->fire[j].squad == sq[k] &&
					    it->fire[j].hw == kind)
						used += it->fire[j].n;
				if (used < have)
					orders_error(errs, it->line, "engage: "
					    "squad %s must fire all %d %s "
					    "point%s (it has %d in fire "
					    "lines)", g->units[sq[k]].id, have,
					    kind ? "Heavy Weapon" : "Firefight",
					    have == 1 ? "" : "s", used);
			}
	if (it->mmm && it->kind != PLT_O_ASSAULT && it->nmove < n)
		orders_error(errs, it->line, "Move, Move, Move: every squad of "
		    "%s MUST move (a move line each)", pu->id);
	if ((pu->flags & PLT_F_SUPP) && it->nmove > 0 &&
	    plt_cover_level(g, it->platoon) == 2) {
		bool near = false;

		for (k = 0; k < n; k++)
			for (j = 0; j < g->nunits; j++)
				if (plt_alive(g, j) && g->units[j].side != side &&
				    plt_dist_cm(g->units[j].pos,
				    g->units[sq[k]].pos) <= PLT_FF_CM)
					near = true;
		if (!near)
			orders_error(errs, it->line, "platoon %s is suppressed, "
			    "in cover and out of Firefight range of the enemy: "
			    "it will not leave its position (no move lines)",
			    pu->id);
	}
	if (it->nmove == 0)
		return;
	/* Coherency of the plan: one chain of adjacent end hexes. */
	{
		char seen[64] = { 0 };
		int q[64], nq = 0, h = 0, reached = 0;
		bool incoherent, nearer = true;

		for (k = 0; k < n; k++)
			for (j = 0; j < k; j++)
				if (hex_eq(end[k], end[j]))
					orders_error(errs, it->line, "squads "
					    "%s and %s would end in the same "
					    "hex", g->units[sq[j]].id,
					    g->units[sq[k]].id);
		if (n == 0)
			return;
		q[nq++] = 0;
		seen[0] = 1;
		while (h < nq) {
			int c = q[h++];

			reached++;
			for (k = 0; k < n; k++)
				if (!seen[k] && hex_distance(end[k], end[c]) <=
				    1) {
					seen[k] = 1;
					q[nq++] = k;
				}
		}
		incoherent = reached < n;
		if (!incoherent)
			return;
		/* The exception: out of coherency now, and every squad
		 * that moves ends nearer its nearest mate. */
		for (k = 0; k < n; k++) {
			int before = 1000, after = 1000;

			if (hex_eq(end[k], g->units[sq[k]].pos))
				continue;
			for (j = 0; j < n; j++) {
				if (j == k)
					continue;
				if (hex_distance(g->units[sq[j]].pos,
				    g->units[sq[k]].pos) < before)
					before = hex_distance(
					    g->units[sq[j]].pos,
					    g->units[sq[k]].pos);
				if (hex_distance(end[j], end[k]) < after)
					after = hex_distance(end[j], end[k]);
			}
			if (after >= before)
				nearer = false;
		}
		if (plt_coherent(g, it->platoon) || !nearer)
			orders_error(errs, it->line, "platoon %s would end out "
			    "of coherency (every squad within 2 cm, an adjacent "
			    "hex, of the next)", pu->id);
	}
}

/* Write the canonical text of o. */
static void
canon_text(const struct game *g, const struct plt_orders *o, struct sbuf *c)
{
	static const char *const dn[] = { "even", "weakest", "strongest" };
	char a[8];
	int k, j, m;

	for (k = 0; k < o->n; k++) {
		const struct plt_order_item *it = &o->o[k];

		sbuf_printf(c, "order %s %s%s%s%s\n", g->units[it->platoon].id,
		    plt_order_names[it->kind], it->mmm ? " mmm" : "",
		    it->reform >= 0 ? " " : "", it->reform >= 0 ?
		    g->units[it->reform].id : "");
		for (j = 0; j < it->nmove; j++) {
			sbuf_printf(c, "move %s", g->units[it->move[j].squad].id);
			for (m = 0; m < it->move[j].n; m++)
				sbuf_printf(c, " %s", hex_label(&g->layout,
				    it->move[j].h[m], a, sizeof a));
			sbuf_puts(c, "\n");
		}
		for (j = 0; j < it->nfire; j++)
			sbuf_printf(c, "fire %s %s %d %s%s\n",
			    g->units[it->fire[j].squad].id, it->fire[j].hw ?
			    "hw" : "ff", it->fire[j].n,
			    g->units[it->fire[j].target].id, it->fire[j].hw ?
			    " ap" : "");
		for (j = 0; j < it->ncc; j++)
			sbuf_printf(c, "cc %s %d %s\n",
			    g->units[it->cc[j].squad].id, it->cc[j].n,
			    g->units[it->cc[j].target].id);
	}
	sbuf_printf(c, "defend %s\n", dn[o->defend]);
}

/* The first word of an order line: 'o' order, 'm' move, 'f' fire, 'c' cc,
 * 'd' defend, 0 any other (strcmp's verdicts, its first byte tested
 * first). */
static int
line_kind(const char *v)
{
	switch (v[0]) {
	case 'o':
		return strcmp(v, "order") == 0 ? 'o' : 0;
	case 'm':
		return strcmp(v, "move") == 0 ? 'm' : 0;
	case 'f':
		return strcmp(v, "fire") == 0 ? 'f' : 0;
	case 'c':
		return v[1] == 'c' && v[2] == '\0' ? 'c' : 0;
	case 'd':
		return strcmp(v, "defend") == 0 ? 'd' : 0;
	default:
		return 0;
	}
}

/* Parse and check side's order list (marks: reveal=each's order markers,
 * no move, fire or cc lines). */
static int
parse_lines(const struct game *g, int side, const struct order_body *b,
    bool marks, void **out, struct sbuf *canon, struct order_errors *errs)
{
	struct plt_orders *o = xcalloc(1, sizeof *o);
	size_t before = errs->n, k;
	int defend_line = 0;

	o->side = side;
	o->defend = PLT_D_EVEN;
	*out = NULL;
	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];
		const char *v = l->words[0];

		int kind = line_kind(v);

		if (kind == 'o')
			parse_order(g, side, l, o, marks, errs);
		else if (marks && (kind == 'm' || kind == 'f' || kind == 'c'))
			orders_error(errs, l->lineno, "reveal=each: this file "
			    "only places order markers ('order PLATOON KIND "
			    "[mmm]'); give '%s' lines when hexpost asks for the "
			    "platoon's reveal", v);
		else if (kind == 'm')
			parse_move(g, side, l, o, errs);
		else if (kind == 'f')
			parse_fire(g, side, l, o, errs);
		else if (kind == 'c')
			parse_cc(g, side, l, o, errs);
		else if (kind == 'd') {
			static const char *const dn[] = { "even", "weakest",
				"strongest" };
			int d;

			for (d = 0; d < 3 && (l->nwords != 2 ||
			    strcmp(l->words[1], dn[d])); d++)
				;
			if (d == 3)
				orders_error(errs, l->lineno, "expected 'defend "
				    "even|weakest|strongest'");
			else if (defend_line)
				orders_error(errs, l->lineno, "'defend' is "
				    "already given on line %d", defend_line);
			else {
				o->defend = d;
				defend_line = l->lineno;
			}
		} else
			orders_error(errs, l->lineno, "unknown order '%s' "
			    "(expected order, move, fire, cc or defend)", v);
	}
	if (errs->n == before && !marks)
		for (k = 0; k < (size_t)o->n; k++)
			check_item(g, side, &o->o[k], false, errs);
	if (errs->n > before) {
		plt_free_orders(o);
		return HP_EINVAL;
	}
	if (!canon->discard)
		canon_text(g, o, canon);
	*out = o;
	return HP_OK;
}

/* Side's order list in the default mode (see platoon.h). */
int
plt_parse_list(const struct game *g, int side, const struct order_body *b,
    void **out, struct sbuf *canon, struct order_errors *errs)
{
	int rc;

	plt_cache_begin_lazy(g);
	ids_begin(g);
	rc = parse_lines(g, side, b, false, out, canon, errs);
	ids_end();
	plt_cache_end();
	return rc;
}

/* The canonical text of a reveal (one item). */
static void
canon_reveal(const struct game *g, const struct plt_orders *o,
    struct sbuf *c)
{
	const struct plt_order_item *it = &o->o[0];
	struct sbuf t;
	const char *nl;

	if (it->removed) {
		sbuf_printf(c, "remove %s\n", g->units[it->platoon].id);
		return;
	}
	sbuf_printf(c, "reveal %s%s%s\n", g->units[it->platoon].id,
	    it->reform >= 0 ? " " : "", it->reform >= 0 ?
	    g->units[it->reform].id : "");
	/* The lines after canon_text's "order" line, without "defend". */
	sbuf_init(&t);
	canon_text(g, o, &t);
	nl = strchr(t.buf, '\n');
	sbuf_printf(c, "%.*s", (int)(strlen(nl + 1) - strlen("defend even\n")),
	    nl + 1);
	sbuf_free(&t);
}

/* reveal=each's answer in a "reveal" window: "reveal PLATOON [SQUAD]"
 * with that platoon's move, fire and cc lines, or "remove PLATOON" (not an
 * assault); nothing or "hold": the first marker left (in the scenario's
 * order), with no lines. */
static int
parse_reveal(const struct game *g, int side, const struct order_body *b,
    void **out, struct sbuf *canon, struct order_errors *errs)
{
	struct plt_orders *o = xcalloc(1, sizeof *o);
	struct plt_order_item *it;
	size_t before = errs->n, k = 0;
	int p = -1, kind = -1;
	bool mmm = false;

	o->side = side;
	o->cap = 1;
	o->o = it = xcalloc(1, sizeof *it);
	*out = NULL;
	if (plt_asked(g) != side) {
		orders_error(errs, 0, "%s is not asked for a reveal now",
		    g->sides[side].name);
		plt_free_orders(o);
		return HP_EINVAL;
	}
	memset(it, 0, sizeof *it);
	it->reform = -1;
	if (b->n == 0 || (b->n == 1 && b->v[0].nwords == 1 &&
	    strcmp(b->v[0].words[0], "hold") == 0)) {
		for (p = 0; p < g->nunits && kind < 0; p++)
			if (plt_is_platoon(&g->units[p]) && g->units[p].side ==
			    side && (kind = plt_marker(g, p, &mmm)) >= 0)
				break;
		if (kind < 0)
			orders_error(errs, 0, "no order marker left to reveal");
		/* A Move, Move, Move marker must move: with no move lines
		 * the default answer removes it (an assault moves itself). */
		it->removed = mmm && kind != PLT_O_ASSAULT;
		k = b->n;
	} else {
		const struct order_line *l = &b->v[0];
		bool rm = strcmp(l->words[0], "remove") == 0;

		k = 1;
		if ((!rm && strcmp(l->words[0], "reveal") != 0) ||
		    l->nwords < 2 || l->nwords > (rm ? 2 : 3)) {
			orders_error(errs, l->lineno, "expected 'reveal PLATOON "
			    "[SQUAD]' or 'remove PLATOON' first");
		} else if ((p = own(g, side, l, l->words[1], true,
		    errs)) < 0) {
			;
		} else if ((kind = plt_marker(g, p, &mmm)) < 0) {
			orders_error(errs, l->lineno, "platoon %s has no order "
			    "marker left to reveal this turn", l->words[1]);
		} else if (rm && kind == PLT_O_ASSAULT) {
			orders_error(errs, l->lineno, "an assault order may not "
			    "be removed (it always remains)");
		} else if (rm) {
			it->removed = true;
		} else if (l->nwords == 3) {
			int s = own(g, side, l, l->words[2], false, errs);

			if (s >= 0 && (kind != PLT_O_REFORM ||
			    g->units[s].attached != p ||
			    g->units[s].strength != 1))
				orders_error(errs, l->lineno, "squad %s is not a "
				    "reduced squad of platoon %s under a reform "
				    "order", l->words[2], l->words[1]);
			else if (s >= 0)
				it->reform = s;
		}
		it->line = l->lineno;
	}
	if (errs->n > before) {
		plt_free_orders(o);
		return HP_EINVAL;
	}
	it->platoon = p;
	it->kind = kind;
	it->mmm = mmm;
	o->n = 1;
	for (; k < b->n; k++) {
		const struct order_line *l = &b->v[k];
		const char *v = l->words[0];

		if (it->removed)
			orders_error(errs, l->lineno, "a removed order has no "
			    "more lines");
		else if (strcmp(v, "move") == 0)
			parse_move(g, side, l, o, errs);
		else if (strcmp(v, "fire") == 0)
			parse_fire(g, side, l, o, errs);
		else if (strcmp(v, "cc") == 0)
			parse_cc(g, side, l, o, errs);
		else
			orders_error(errs, l->lineno, "unknown line '%s' in a "
			    "reveal (expected move, fire or cc)", v);
	}
	if (errs->n == before && !it->removed)
		check_item(g, side, it, true, errs);
	if (errs->n > before) {
		plt_free_orders(o);
		return HP_EINVAL;
	}
	if (!canon->discard)
		canon_reveal(g, o, canon);
	*out = o;
	return HP_OK;
}

/* Parse and check side's order lines (see struct ruleset.parse): the
 * list, reveal=each's markers, or a reveal. */
static int parse_window(const struct game *, const struct window_spec *,
    int, const struct order_body *, void **, struct sbuf *,
    struct order_errors *);

/* Parse and check side's order lines (see struct ruleset.parse), with
 * the map cache kept while it checks them. */
int
plt_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	int rc;

	plt_cache_begin_lazy(g);
	ids_begin(g);
	rc = parse_window(g, w, side, b, out, canon, errs);
	ids_end();
	plt_cache_end();
	return rc;
}

/* plt_parse without the scope. */
static int
parse_window(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	*out = NULL;
	if (strcmp(w->name, "standing") == 0) {
		orders_error(errs, 0, "platoon takes no standing orders: put "
		    "'defend even|weakest|strongest' in each turn's file");
		return HP_EINVAL;
	}
	if (w->kind == WINDOW_DECISION)
		return parse_reveal(g, side, b, out, canon, errs);
	return parse_lines(g, side, b, plt_each(g), out, canon, errs);
}

/* Free parsed orders. */
void
plt_free_orders(void *p)
{
	struct plt_orders *o = p;

	if (o != NULL)
		free(o->o);
	free(o);
}

/* Side's platoons and their squads, as template comments. */
static void
template_squads(const struct game *g, int side, bool markers, struct sbuf *b)
{
	struct plt_profile pf;
	char a[8];
	int p, i, m;
	bool mmm;

	for (p = 0; p < g->nunits; p++) {
		int al, re, lo;

		if (!plt_is_platoon(&g->units[p]) || g->units[p].side != side)
			continue;
		plt_counts(g, p, &al, &re, &lo);
		if (al == 0)
			continue;
		m = markers ? plt_marker(g, p, &mmm) : -1;
		sbuf_printf(b, "# Platoon %s%s%s%s%s:\n", g->units[p].id,
		    (g->units[p].flags & PLT_F_SUPP) ? " (SUPPRESSED)" : "",
		    m >= 0 ? ", order marker: " : "", m >= 0 ?
		    plt_order_names[m] : "", m >= 0 && mmm ? " mmm" : "");
		for (i = 0; i < g->nunits; i++) {
			int r;

			if (!plt_alive(g, i) || g->units[i].attached != p ||
			    !plt_profile(g, i, &pf))
				continue;
			r = g->units[i].strength == 1;
			sbuf_printf(b, "#   %-6s %-4s %-7s FF %d HW %d CC %d "
			    "move %d cm\n", g->units[i].id, hex_label(
			    &g->layout, g->units[i].pos, a, sizeof a), r ?
			    "reduced" : "fresh", pf.ff[r], pf.hw[r], pf.cc[r],
			    pf.move);
		}
	}
}

/* A ready-to-edit order body for side, with its platoons and squads: the
 * order list, reveal=each's markers, or a reveal. */
void
plt_order_template(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	int p;

	if (w->kind == WINDOW_DECISION) {
		sbuf_printf(b, "# %s, turn %d: your next reveal (reveal=each).\n"
		    "#   reveal PLATOON [SQUAD]        (SQUAD: a reform's reduced "
		    "squad, recovers at once)\n"
		    "#   move SQUAD HEX [HEX..]         (advance, fallback, "
		    "reform)\n"
		    "#   fire SQUAD ff|hw DICE TARGET [ap]  (an engage fires "
		    "what is left at the nearest)\n"
		    "#   cc SQUAD DICE TARGET           (assault)\n"
		    "#   remove PLATOON                 (it does not act; not "
		    "an assault)\n"
		    "# Nothing, or 'hold': the first marker below, with no "
		    "lines.\n", g->sides[side].label, w->turn);
		template_squads(g, side, true, b);
		for (p = 0; p < g->nunits; p++)
			if (plt_is_platoon(&g->units[p]) && g->units[p].side ==
			    side && plt_marker(g, p, NULL) >= 0) {
				sbuf_printf(b, "reveal %s\n", g->units[p].id);
				break;
			}
		return;
	}
	if (plt_each(g))
		sbuf_printf(b, "# %s, turn %d. One line each; '#' starts a "
		    "comment.\n# reveal=each: place your order markers, one "
		    "per platoon (or none);\n# hexpost rolls initiative and "
		    "then asks each side in turn which one\n# it reveals, "
		    "with its moves and fire.\n"
		    "#   order PLATOON advance|assault|fallback|engage|reform|"
		    "none [mmm]\n"
		    "#   defend even|weakest|strongest  (your close combat split "
		    "when assaulted)\n", g->sides[side].label, w->turn);
	else
		sbuf_printf(b, "# %s, turn %d. One line each; '#' starts a "
		    "comment.\n"
		    "# List your platoons' orders in the sequence you want them "
		    "revealed;\n# hexpost rolls initiative and interleaves the "
		    "sides one order at a time.\n"
		    "#   order PLATOON advance|assault|fallback|engage|none "
		    "[mmm]\n"
		    "#   order PLATOON reform [SQUAD]   (SQUAD: reduced, "
		    "recovers at once)\n"
		    "#   move SQUAD HEX [HEX..]         (waypoints; advance, "
		    "fallback, reform)\n"
		    "#   fire SQUAD ff|hw DICE TARGET [ap]\n"
		    "#   cc SQUAD DICE TARGET           (assault: close combat "
		    "split)\n"
		    "#   defend even|weakest|strongest  (your close combat split "
		    "when assaulted)\n", g->sides[side].label, w->turn);
	sbuf_puts(b, "# One hex is 2 cm. Firefight 10 hexes (long 15), Heavy "
	    "Weapon 20 (long 50).\n");
	template_squads(g, side, false, b);
	sbuf_puts(b, "defend even\n");
}

const struct ruleset ruleset_platoon = {
	.name = "platoon",
	.title = "Sci-fi infantry platoon rules",
	.seed = "001",
	.options_help = "no-order-advance  one platoon with no order "
	    "advances (optional rule)\nmove-move-move    'mmm': +1D10 cm for "
	    "a point of armour (optional rule)\nturns=N           turn limit "
	    "(default 8)\nreveal=each       ask each side for its next reveal "
	    "in turn (faithful)",
	.setup = plt_setup,
	.default_scenario = "outpost",
	.next_window = plt_next_window,
	.parse = plt_parse,
	.free_orders = plt_free_orders,
	.resolve = plt_resolve,
	.victory = plt_victory,
	.opponent = plt_opponent,
	.render_map = plt_render_map,
	.status = plt_status,
	.order_template = plt_order_template,
};
