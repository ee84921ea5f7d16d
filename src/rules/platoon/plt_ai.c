/* plt_ai: the built-in opponent of the platoon ruleset, for any side. Per
 * platoon, in the order of the scenario: a suppressed platoon engages if
 * an enemy is near, else reforms; a platoon with a reduced squad and no
 * enemy in Firefight range reforms; one that can surely reach the nearest
 * enemy it sees assaults; one with enemies in Firefight range engages;
 * the others advance as a block towards the nearest enemy (a move short
 * enough to stay coherent whatever the die) and fire at the nearest. Its
 * orders always pass the parser (tests: t_opponent_orders_parse). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orders.h"
#include "platoon.h"

/* Append the words given (up to a NULL) to b, a space between, and a
 * newline: order lines without printf (they are parsed back at once). */
static void
wline(struct sbuf *b, const char *w, ...)
{
	va_list ap;
	bool first = true;

	va_start(ap, w);
	for (; w != NULL; w = va_arg(ap, const char *)) {
		if (!first)
			sbuf_add(b, " ", 1);
		sbuf_puts(b, w);
		first = false;
	}
	va_end(ap);
	sbuf_add(b, "\n", 1);
}

/* The decimal text of v (>= 0 or not) in buf (12 bytes); buf. */
static char *
itoa_(int v, char *buf)
{
	char t[12];
	unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
	int n = 0, k = 0;

	do
		t[n++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		buf[k++] = '-';
	while (n > 0)
		buf[k++] = t[--n];
	buf[k] = '\0';
	return buf;
}

/* Does text (one platoon's lines) pass the parser for side: the list
 * parser, or with w the parser of window w (a reveal)? */
static bool
passes(const struct game *g, const struct window_spec *w, int side,
    const char *text)
{
	struct sbuf f, canon;
	struct order_header hd;
	struct order_body body;
	struct order_errors errs;
	void *out = NULL;
	bool ok = false;

	char num[12];

	sbuf_init(&f);
	sbuf_init(&canon);
	canon.discard = true; /* nobody reads it */
	orders_errors_init(&errs);
	memset(&body, 0, sizeof body);
	sbuf_puts(&f, "campaign: x\nturn: ");
	sbuf_puts(&f, itoa_(g->turn, num));
	sbuf_puts(&f, "\nwindow: ");
	sbuf_puts(&f, w != NULL ? w->name : "orders");
	sbuf_puts(&f, "\nside: ");
	sbuf_puts(&f, g->sides[side].name);
	sbuf_puts(&f, "\n");
	sbuf_puts(&f, text);
	if (orders_parse_file(f.buf, f.len, &hd, &body, &errs) == HP_OK &&
	    (w != NULL ? plt_parse(g, w, side, &body, &out, &canon, &errs) :
	    plt_parse_list(g, side, &body, &out, &canon, &errs)) == HP_OK)
		ok = true;
	plt_free_orders(out);
	orders_body_free(&body);
	orders_errors_free(&errs);
	sbuf_free(&f);
	sbuf_free(&canon);
	return ok;
}

/* The direction (0..5) from a that points most nearly at b; of two
 * equally good, the northern one (the same choice for both sides of a
 * map that is a mirror image left to right). */
static int
dir_towards(struct hex a, struct hex b)
{
	struct hex v = hex_sub(b, a);
	double vx = 1.5 * v.q, vy = sqrt(3.0) * (v.r + v.q / 2.0), best = -1e9;
	double by = 0;
	int d, bd = 0;

	for (d = 0; d < 6; d++) {
		struct hex u = hex_directions[d];
		double uy = sqrt(3.0) * (u.r + u.q / 2.0);
		double c = vx * 1.5 * u.q + vy * uy;

		if (c > best + 1e-9 || (c > best - 1e-9 && uy < by)) {
			best = c;
			bd = d;
			by = uy;
		}
	}
	return bd;
}

/* The nearest live enemy squad to h: any (cm < 0), or one seen from h
 * within cm; -1 if none. */
static int
nearest_enemy_to(const struct game *g, const int *occ, int side, struct hex h,
    int cm)
{
	int j, best = -1, bd = 0;

	for (j = 0; j < g->nunits; j++) {
		int k;

		if (!plt_alive(g, j) || g->units[j].side == side ||
		    (best >= 0 && hex_distance(g->units[j].pos, h) >= bd) ||
		    (cm >= 0 && (plt_dist_cm(g->units[j].pos, h) > cm ||
		    !plt_los_in(g, occ, side, h, g->units[j].pos))))
			continue;
		k = hex_distance(g->units[j].pos, h);
		if (best < 0 || k < bd) {
			best = j;
			bd = k;
		}
	}
	return best;
}

/* Fire lines for every point of the platoon's squads (at pos[k]) at the
 * nearest enemy to each. */
static void
fire_all(const struct game *g, const int *occ, int side, const int *sq,
    const struct hex *pos, int n, enum plt_order o, bool mmm, struct sbuf *b)
{
	int k, kind, pts, t;
	char num[12];

	for (k = 0; k < n; k++)
		for (kind = 0; kind < 2; kind++) {
			pts = plt_points(g, sq[k], kind, o, mmm);
			if (pts <= 0)
				continue;
			if ((t = nearest_enemy_to(g, occ, side, pos[k], kind ?
			    PLT_HW_LONG_CM : PLT_FF_LONG_CM)) < 0 &&
			    (t = nearest_enemy_to(g, occ, side, pos[k], -1)) < 0)
				continue;
			wline(b, "fire", g->units[sq[k]].id, kind ? "hw" :
			    "ff", itoa_(pts, num), g->units[t].id, kind ?
			    "ap" : NULL, NULL);
		}
}

/* Is h a hex a squad of side may end an advance in? */
static bool
free_hex(const struct game *g, int side, struct hex h, int self)
{
	const struct plt_terrain *t = plt_terrain(g, h);
	int d, s;

	if (t == NULL || t->impassable)
		return false;
	s = plt_squad_at(g, h);
	if (s >= 0 && s != self)
		return false;
	for (d = 0; d < 6; d++)
		if ((s = plt_squad_at(g, hex_neighbour(h, d))) >= 0 &&
		    g->units[s].side != side)
			return false;
	return true;
}

/* plan_platoon with the squads of g looked up in occ (plt_occupancy). */
static void
plan_with(const struct game *g, const int *occ, int side, int p,
    struct sbuf *b)
{
	const struct game_unit *pu = &g->units[p];
	const struct plt_profile *pf;
	struct hex pos[64], dest[64];
	int sq[64], n = 0, i, k, e, cost, low = 99, reduced = -1, near = 0;
	int steps, dir, *reach[64] = { NULL }, coh = -1, *wo = NULL;
	size_t nhex = (size_t)g->layout.cols * (size_t)g->layout.rows + 1;
	char a[8];

	for (i = 0; i < g->nunits && n < 64; i++)
		if (plt_alive(g, i) && g->units[i].attached == p) {
			sq[n] = i;
			pos[n++] = g->units[i].pos;
			if ((pf = plt_profile_ref(g, i)) != NULL &&
			    pf->move < low)
				low = pf->move;
			if (g->units[i].strength == 1 && reduced < 0)
				reduced = i;
		}
	if (n == 0)
		return;
	for (k = 0; k < n; k++) {
		e = nearest_enemy_to(g, occ, side, pos[k], -1);
		if (e >= 0 && plt_dist_cm(pos[k], g->units[e].pos) <=
		    PLT_FF_CM && plt_los_in(g, occ, side, pos[k],
		    g->units[e].pos))
			near++;
	}
	if (pu->flags & PLT_F_SUPP) {
		if (near > 0 && plt_coherent(g, p)) {
			wline(b, "order", pu->id, "engage", NULL);
			fire_all(g, occ, side, sq, pos, n, PLT_O_ENGAGE, false, b);
		} else if (reduced >= 0)
			wline(b, "order", pu->id, "reform",
			    g->units[reduced].id, NULL);
		else
			wline(b, "order", pu->id, "reform", NULL);
		return;
	}
	if (reduced >= 0 && near == 0) {
		wline(b, "order", pu->id, "reform", g->units[reduced].id,
		    NULL);
		return;
	}
	e = plt_nearest_enemy_within(g, p, low + 3, &cost);
	if (e >= 0 && cost >= 0 && cost <= low + 3) {
		wline(b, "order", pu->id, "assault", NULL);
		return;
	}
	if (near * 2 >= n && plt_coherent(g, p)) {
		wline(b, "order", pu->id, "engage", NULL);
		fire_all(g, occ, side, sq, pos, n, PLT_O_ENGAGE, false, b);
		return;
	}
	/* Advance as a block: the longest shift (up to 5 hexes) that every
	 * squad can pay with the lowest possible allowance (low + 1). */
	e = nearest_enemy_to(g, occ, side, pos[0], -1);
	if (e < 0) {
		wline(b, "order", pu->id, "none", NULL);
		return;
	}
	dir = dir_towards(pos[0], g->units[e].pos);
	for (steps = 5; steps > 0; steps--) {
		bool ok = true;

		for (k = 0; k < n && ok; k++) {
			int m, j;

			dest[k] = pos[k];
			for (m = 0; m < steps; m++)
				dest[k] = hex_neighbour(dest[k], dir);
			if (!free_hex(g, side, dest[k], sq[k])) {
				ok = false;
				break;
			}
			/* Squads of the platoon move one after the other:
			 * a mate's hex may be free later, so only measure.
			 * One search a squad for every shift: the costs
			 * plt_path finds, up to low + 1 (a path that cheap
			 * has at most 50 hexes: never too long for 64). */
			if (wo == NULL)
				wo = plt_occupancy_without(g, p);
			if ((j = plt_straight_cost(g, side, wo, pos[k], dir,
			    steps)) >= 0) {
				/* The cheapest: no search needed. */
				if (j > low + 1)
					ok = false;
				continue;
			}
			if (reach[k] == NULL) {
				reach[k] = xmalloc(sizeof(int) * nhex);
				plt_costs_within(g, side, pos[k], low + 1, p,
				    reach[k]);
			}
			if ((j = plt_hex_index(g, dest[k])) < 0 ||
			    reach[k][j] < 0)
				ok = false;
		}
		if (ok && (coh >= 0 ? coh : (coh = plt_coherent(g, p))))
			break;
	}
	for (k = 0; k < n; k++)
		free(reach[k]);
	free(wo);
	wline(b, "order", pu->id, "advance", NULL);
	if (steps > 0)
		for (k = 0; k < n; k++)
			wline(b, "move", g->units[sq[k]].id,
			    hex_label(&g->layout, dest[k], a, sizeof a), NULL);
	fire_all(g, occ, side, sq, steps > 0 ? dest : pos, n, PLT_O_ADVANCE, false,
	    b);
}

/* The orders of platoon p as the opponent would give them, appended to
 * b (its paths measured as if p's squads were not on the map). */
static void
plan_platoon(const struct game *g, int side, int p, struct sbuf *b)
{
	int *occ = plt_occupancy(g);

	plan_with(g, occ, side, p, b);
	free(occ);
}

/* The orders of platoon p: the plan if the parser takes it, else a
 * platoon that stays put (reform or none), which always passes. */
static void
one_platoon(const struct game *g, int side, int p, struct sbuf *b)
{
	struct sbuf t;

	sbuf_init(&t);
	plan_platoon(g, side, p, &t);
	if (t.buf != NULL && passes(g, NULL, side, t.buf))
		sbuf_puts(b, t.buf);
	else if (t.buf != NULL)
		sbuf_printf(b, "order %s %s\n", g->units[p].id,
		    (g->units[p].flags & PLT_F_SUPP) || !plt_coherent(g, p) ?
		    "reform" : "none");
	sbuf_free(&t);
}

/* reveal=each: side's answer in the reveal window w: its first platoon
 * with a marker left, with the lines of the plan for it when the plan
 * gives the marker's order, else bare, else (a Move, Move, Move marker
 * cannot reveal bare) removed. */
static void
reveal_answer(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	struct sbuf t, r;
	int p, kind = -1;
	bool mmm = false;
	char want[64];
	const char *nl;

	for (p = 0; p < g->nunits; p++)
		if (plt_is_platoon(&g->units[p]) && g->units[p].side == side &&
		    (kind = plt_marker(g, p, &mmm)) >= 0)
			break;
	if (kind < 0)
		return;
	sbuf_init(&t);
	sbuf_init(&r);
	one_platoon(g, side, p, &t);
	snprintf(want, sizeof want, "order %s %s%s", g->units[p].id,
	    plt_order_names[kind], mmm ? " mmm" : "");
	if (t.buf != NULL && strncmp(t.buf, want, strlen(want)) == 0 &&
	    (t.buf[strlen(want)] == '\n' || t.buf[strlen(want)] == ' ') &&
	    (nl = strchr(t.buf, '\n')) != NULL) {
		/* "order P KIND [mmm] [SQUAD]" becomes "reveal P [SQUAD]". */
		const char *sq = t.buf + strlen(want);

		sbuf_printf(&r, "reveal %s%.*s%s", g->units[p].id,
		    (int)(nl - sq), sq, nl);
	}
	if (r.buf == NULL || !passes(g, w, side, r.buf)) {
		sbuf_free(&r);
		sbuf_init(&r);
		sbuf_printf(&r, "reveal %s\n", g->units[p].id);
		if (!passes(g, w, side, r.buf)) {
			sbuf_free(&r);
			sbuf_init(&r);
			sbuf_printf(&r, "remove %s\n", g->units[p].id);
		}
	}
	sbuf_puts(b, r.buf);
	sbuf_free(&r);
	sbuf_free(&t);
}

/* The built-in opponent's order body for side: every platoon, then the
 * close combat defence; appended to b. reveal=each: the markers of the
 * same plans (their "order" lines), and in a reveal window the reveal. */
static void opponent(const struct game *, const struct window_spec *, int,
    struct sbuf *);

/* The built-in opponent's order body (below), with the map cache kept
 * for the plan. */
void
plt_opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	plt_cache_begin(g);
	opponent(g, w, side, b);
	plt_cache_end();
}

/* plt_opponent without the scope. */
static void
opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	struct sbuf t;
	int p;

	if (w->kind == WINDOW_DECISION) {
		sbuf_printf(b, "# %s: the built-in opponent's reveal.\n",
		    g->sides[side].label);
		reveal_answer(g, w, side, b);
		return;
	}
	sbuf_printf(b, "# %s: the built-in opponent's orders.\n",
	    g->sides[side].label);
	for (p = 0; p < g->nunits; p++) {
		if (!plt_is_platoon(&g->units[p]) || g->units[p].side != side)
			continue;
		if (!plt_each(g)) {
			one_platoon(g, side, p, b);
			continue;
		}
		sbuf_init(&t);
		one_platoon(g, side, p, &t);
		if (t.buf != NULL) {
			/* The marker: the plan's "order P KIND [mmm]". */
			char id[GAME_ID_MAX + 1], kind[16], mmm[8] = "";

			if (sscanf(t.buf, "order %16s %15s %7s", id, kind,
			    mmm) >= 2)
				sbuf_printf(b, "order %s %s%s\n", id, kind,
				    strcmp(mmm, "mmm") == 0 ? " mmm" : "");
		}
		sbuf_free(&t);
	}
	sbuf_puts(b, "defend weakest\n");
}
