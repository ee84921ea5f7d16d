/* plt_rules: resolution of a platoon turn: initiative, the interleaved
 * reveal of the sides' order lists, movement, shooting, hits and saves,
 * close combat, recovery, coherency and morale, and victory. Every rule's
 * reading is in docs/rules/platoon.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platoon.h"

#define ALL EVENT_ALL_SIDES


/* A hit waiting for its save: target squad, the hex it came from, close
 * combat (cover only against a striker outside it). */
struct hit {
	int target;
	int side;
	struct hex from;
	bool cc;
};

struct hits {
	struct hit *v;
	int n, cap;
};

/* Add a hit on target by a squad of side at from; h owns the array. */
static void
add_hit(struct hits *h, int target, int side, struct hex from, bool cc)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 32;
		h->v = xrealloc(h->v, sizeof *h->v * (size_t)h->cap);
	}
	h->v[h->n].target = target;
	h->v[h->n].side = side;
	h->v[h->n].from = from;
	h->v[h->n].cc = cc;
	h->n++;
}

static void pur(const struct events *, char *, size_t, const char *, ...)
    __attribute__((format(printf, 4, 5)));

/* The purpose of a roll for the dice log into buf (size bytes): not
 * formatted when the events are quiet (a simulation: the dice do not
 * depend on it, and nobody reads the log). */
static void
pur(const struct events *ev, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	buf[0] = '\0';
	if (ev->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* The order-file name of side s. */
static const char *
sname(const struct game *g, int s)
{
	return g->sides[s].name;
}

/* The label of h into buf (8 bytes); buf. */
static char *
lab(const struct game *g, struct hex h, char *buf)
{
	return hex_label(&g->layout, h, buf, 8);
}

/* A buffer of this thread for the squads by hex (cols * rows entries),
 * kept for the caller's slot (0 walk, 1 fire_phase): good until the next
 * call for that slot; not filled, not to be freed. */
static int *
occupancy_buf(const struct game *g, int slot)
{
	static _Thread_local int *buf[2];
	static _Thread_local size_t cap[2];
	size_t n = (size_t)(g->layout.cols * g->layout.rows);

	if (n < 1)
		n = 1;
	if (cap[slot] < n) {
		free(buf[slot]);
		buf[slot] = xmalloc(sizeof(int) * n);
		cap[slot] = n;
	}
	return buf[slot];
}

/* --- initiative ---------------------------------------------------------- */

/* Order the n sides in v by 1D10 each, re-rolling within every tie. */
static void
order_group(const struct game *g, struct dice *d, struct events *ev,
    int *v, int n)
{
	int roll[GAME_MAX_SIDES], i, j, k, seq;
	char purpose[48];

	if (n < 2)
		return;
	for (i = 0; i < n; i++) {
		pur(ev, purpose, sizeof purpose, "initiative %s",
		    sname(g, v[i]));
		roll[i] = dice_roll(d, 10, 0, purpose);
		seq = (int)d->nlog;
		events_add(ev, ALL, seq, "Initiative: %s rolls %d.",
		    sname(g, v[i]), roll[i]);
	}
	/* Highest first; stable insertion sort. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && roll[j] > roll[j - 1]; j--) {
			k = roll[j]; roll[j] = roll[j - 1]; roll[j - 1] = k;
			k = v[j]; v[j] = v[j - 1]; v[j - 1] = k;
		}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && roll[j] == roll[i]; j++)
			;
		if (j - i > 1) {
			events_add(ev, ALL, 0, "Initiative: a tie on %d; the "
			    "tied sides roll again.", roll[i]);
			order_group(g, d, ev, v + i, j - i);
		}
	}
}

/* Roll the initiative of every side into order[], highest first. */
void
plt_initiative(const struct game *g, struct dice *d, struct events *ev,
    int *order)
{
	int i;

	for (i = 0; i < g->nsides; i++)
		order[i] = i;
	order_group(g, d, ev, order, g->nsides);
}

/* --- points -------------------------------------------------------------- */

/* Dice of kind (0 Firefight, 1 Heavy Weapon, 2 Close Combat) squad has
 * under order o. */
int
plt_points(const struct game *g, int squad, int kind, enum plt_order o,
    bool mmm)
{
	const struct plt_profile *pf = plt_profile_ref(g, squad);
	int r;

	if (pf == NULL || g->units[squad].strength <= 0)
		return 0;
	r = g->units[squad].strength == 1;
	if (kind < 2 && (o == PLT_O_ASSAULT || o == PLT_O_FALLBACK || mmm))
		r = 1; /* "fire at your 'reduced' rating" */
	if (kind == 0)
		return pf->ff[r];
	if (kind == 1)
		return pf->hw[r];
	return pf->cc[g->units[squad].strength == 1];
}

/* Squad's armour now (one less under Move, Move, Move). */
static int
armour(const struct game *g, int squad)
{
	const struct plt_profile *pf = plt_profile_ref(g, squad);
	int a = pf != NULL ? pf->armour : 0;

	if (g->units[g->units[squad].attached].flags & PLT_F_MMM)
		a--;
	return a;
}

/* --- hits ------------------------------------------------------------------- */

/* Save every hit in order (11 - (armour + cover)); an unsaved hit reduces,
 * a second removes. */
static void
apply_hits(struct game *g, struct dice *d, struct events *ev,
    const struct hits *h)
{
	char a[8], purpose[48];
	int i;

	for (i = 0; i < h->n; i++) {
		struct game_unit *u = &g->units[h->v[i].target];
		int cover, need, r;

		if (u->strength <= 0) {
			events_add(ev, ALL, 0, "A hit on %s is lost: it is "
			    "already removed.", u->id);
			continue;
		}
		cover = plt_cover(g, u->pos, h->v[i].from);
		if (h->v[i].cc) {
			const struct plt_terrain *t = plt_terrain(g,
			    h->v[i].from);

			/* "Cover can ONLY be claimed if one side is
			 * OUTSIDE of the cover." */
			if (t != NULL && t->cover > 0)
				cover = 0;
		}
		need = 11 - (armour(g, h->v[i].target) + cover);
		pur(ev, purpose, sizeof purpose, "save %s", u->id);
		r = dice_roll(d, 10, need, purpose);
		if (r >= need) {
			if (!ev->quiet) /* no labels written for nothing */
				events_add(ev, ALL, (int)d->nlog, "%s (%s) "
				    "saves: %d (needs %d = 11 - armour %d - "
				    "cover %d).", u->id, lab(g, u->pos, a), r,
				    need, armour(g, h->v[i].target), cover);
			continue;
		}
		u->strength--;
		u->x[PLT_X_KILLER] = h->v[i].side + 1;
		if (ev->quiet) { /* no labels written for nothing */
			if (u->strength != 1)
				u->placed = false;
		} else if (u->strength == 1)
			events_add(ev, ALL, (int)d->nlog, "%s (%s) fails its "
			    "save: %d (needs %d); it is reduced.", u->id,
			    lab(g, u->pos, a), r, need);
		else {
			events_add(ev, ALL, (int)d->nlog, "%s (%s) fails its "
			    "save: %d (needs %d); it is removed.", u->id,
			    lab(g, u->pos, a), r, need);
			u->placed = false;
		}
	}
}

/* --- shooting ------------------------------------------------------------ */

/* The to-hit number of a die of squad at target, or 0 if out of range. */
static int
to_hit(const struct game *g, int squad, int target, bool hw,
    enum plt_order o)
{
	int cm = plt_dist_cm(g->units[squad].pos, g->units[target].pos);
	int need = 7, hs = game_var(g, "hw.short.cm", PLT_HW_SHORT_CM);

	if (!hw) {
		if (cm > PLT_FF_LONG_CM)
			return 0;
		if (cm > PLT_FF_CM)
			need += 2;
		if (cm < PLT_FF_SHORT_CM)
			need -= 2;
		if (o == PLT_O_ENGAGE)
			need -= 1;
	} else {
		if (cm > PLT_HW_LONG_CM)
			return 0;
		if (cm > PLT_HW_CM)
			need += 1;
		if (cm < hs)
			need -= 2;
	}
	return need;
}

/* Can squad fire at target now (seen, in range)? The squads in occ
 * (plt_occupancy, or NULL). */
static bool
eligible(const struct game *g, struct plt_occ_lazy *occ, int squad,
    int target, bool hw)
{
	/* to_hit > 0 is the range alone (every modifier leaves it above
	 * 0): no var read for it, and asked before the line of sight (each
	 * test reads the game alone). */
	return plt_alive(g, target) && g->units[target].side !=
	    g->units[squad].side && plt_dist_cm(g->units[squad].pos,
	    g->units[target].pos) <= (hw ? PLT_HW_LONG_CM : PLT_FF_LONG_CM) &&
	    plt_los_lazy(g, occ, g->units[squad].side, g->units[squad].pos,
	    g->units[target].pos);
}

/* The nearest enemy squad the squad may fire at, -1 if none. */
static int
nearest_target(const struct game *g, struct plt_occ_lazy *occ, int squad,
    bool hw)
{
	int j, best = -1, bd = 0;

	for (j = 0; j < g->nunits; j++) {
		int k;

		k = hex_distance(g->units[squad].pos, g->units[j].pos);
		if ((best >= 0 && k >= bd) || !eligible(g, occ, squad, j, hw))
			continue;
		if (best < 0 || k < bd) {
			best = j;
			bd = k;
		}
	}
	return best;
}

/* Roll n dice of squad at target (hits into h). */
static void
shoot(struct game *g, struct dice *d, struct events *ev, int squad,
    int target, bool hw, int n, enum plt_order o, struct hits *h)
{
	char purpose[48], a[8], b[8];
	int need = to_hit(g, squad, target, hw, o), k, r, hits = 0;
	int first = (int)d->nlog + 1;
	struct sbuf t;

	sbuf_init(&t);
	for (k = 0; k < n; k++) {
		pur(ev, purpose, sizeof purpose, "%s %s at %s",
		    hw ? "heavy weapon" : "firefight", g->units[squad].id,
		    g->units[target].id);
		r = dice_roll(d, 10, need, purpose);
		if (!ev->quiet)
			sbuf_printf(&t, "%s%d", k ? " " : "", r);
		if (r >= need) {
			hits++;
			add_hit(h, target, g->units[squad].side,
			    g->units[squad].pos, false);
		}
	}
	if (!ev->quiet) /* no labels written for nothing */
		events_add(ev, ALL, first, "%s (%s) fires %d %s dice at %s "
		    "(%s, %d cm): needs %d, rolls %s: %d hit%s.",
		    g->units[squad].id, lab(g, g->units[squad].pos, a), n,
		    hw ? "Heavy Weapon" : "Firefight", g->units[target].id,
		    lab(g, g->units[target].pos, b),
		    plt_dist_cm(g->units[squad].pos, g->units[target].pos),
		    need, t.buf ? t.buf : "", hits, hits == 1 ? "" : "s");
	sbuf_free(&t);
}

/* The fire lines of an order, then (engage) every point left at the
 * nearest eligible enemy; then the saves. */
static void
fire_phase(struct game *g, const struct plt_order_item *it, struct dice *d,
    struct events *ev)
{
	int few[128][2], (*used)[2] = g->nunits < 128 ? few :
	    xcalloc((size_t)g->nunits + 1, sizeof *used);
	struct hits h = { NULL, 0, 0 };
	int i, k, n, t;
	bool auto_all = it->kind == PLT_O_ENGAGE || it->nfire < 0;

	if (used == few)
		memset(few, 0, sizeof few[0] * ((size_t)g->nunits + 1));
	/* No squad moves or is removed before the saves below; the squads
	 * by hex are found when a line of sight first needs them. */
	struct plt_occ_lazy occ = { occupancy_buf(g, 1), false };

	for (i = 0; i < it->nfire; i++) {
		const struct plt_fire *f = &it->fire[i];
		int s = f->squad, hw = f->hw;

		if (!plt_alive(g, s))
			continue;
		n = plt_points(g, s, hw, it->kind, it->mmm) - used[s][hw];
		if (n > f->n)
			n = f->n;
		if (n <= 0) {
			events_add(ev, ALL, 0, "%s has no %s points left for "
			    "%s.", g->units[s].id, hw ? "Heavy Weapon" :
			    "Firefight", g->units[f->target].id);
			continue;
		}
		t = f->target;
		if (!eligible(g, &occ, s, t, hw)) {
			if (!auto_all) {
				events_add(ev, ALL, 0, "%s cannot fire at %s "
				    "(removed, unseen or out of range).",
				    g->units[s].id, g->units[t].id);
				continue;
			}
			continue; /* engage: fired below at the nearest */
		}
		used[s][hw] += n;
		shoot(g, d, ev, s, t, hw, n, it->kind, &h);
	}
	if (auto_all)
		for (i = 0; i < g->nunits; i++) {
			if (!plt_alive(g, i) || g->units[i].attached !=
			    it->platoon)
				continue;
			for (k = 0; k < 2; k++) {
				n = plt_points(g, i, k, it->kind, it->mmm) -
				    used[i][k];
				if (n <= 0 || (t = nearest_target(g, &occ, i,
				    k)) < 0)
					continue;
				used[i][k] += n;
				shoot(g, d, ev, i, t, k, n, it->kind, &h);
			}
		}
	apply_hits(g, d, ev, &h);
	free(h.v);
	if (used != few)
		free(used);
}

/* --- movement ------------------------------------------------------------- */

/* Move squad i along the cheapest path through its waypoints, as far as
 * allow cm pay (the road bonus if every hex is road); contact with an
 * enemy squad only when contact. Returns the cm spent. */
static int walk(struct game *, struct events *, int, const struct hex *,
    int, int, int, bool);

static int
move_squad(struct game *g, struct events *ev, int i, const struct hex *wp,
    int nwp, int allow, int road_bonus, bool contact)
{
	struct hex path[256], seg[256], at = g->units[i].pos, start = at;
	int np = 0, n, k, cost;
	char a[8];

	/* The squad itself is no obstacle to its own path. */
	g->units[i].placed = false;
	for (k = 0; k < nwp; k++) {
		if (hex_eq(at, wp[k]))
			continue;
		n = plt_path(g, g->units[i].side, at, wp[k], contact, seg,
		    256 - np, &cost);
		if (n <= 0)
			break;
		memcpy(path + np, seg, sizeof seg[0] * (size_t)n);
		np += n;
		at = wp[k];
	}
	g->units[i].placed = true;
	if (np == 0) {
		if (nwp > 0 && !hex_eq(start, wp[nwp - 1]))
			events_add(ev, ALL, 0, "%s finds no way to %s.",
			    g->units[i].id, lab(g, wp[nwp - 1], a));
		return 0;
	}
	return walk(g, ev, i, path, np, allow, road_bonus, contact);
}

/* Move squad i along path (np > 0 hexes from its hex on), as move_squad
 * does once it has the path. Returns the cm spent. */
static int
walk(struct game *g, struct events *ev, int i, const struct hex *path,
    int np, int allow, int road_bonus, bool contact)
{
	struct hex at, start = g->units[i].pos;
	int k, spent = 0, pass, lim, few[256], *cost = few, ns;
	bool all_road, fewr[256], *road = fewr;
	char a[8], b[8];
	/* No squad moves or is removed while this one walks. Its path was
	 * just found (move_squad, assault_move), and nothing has changed
	 * since but the squad itself left out of the search: the squads as
	 * that search found them. */
	int *occ = occupancy_buf(g, 0);

	if (!plt_path_squads(g, occ, i))
		plt_occupancy_fill(g, occ, -1);

	if (np > 256) {
		cost = xmalloc(sizeof *cost * (size_t)np);
		road = xmalloc(sizeof *road * (size_t)np);
	}
	/* The steps it can take with the most it may spend; each pass below
	 * takes a prefix of them (the other limits are the same). */
	ns = plt_walk_steps(g, occ, g->units[i].side, contact, start, path,
	    np, allow + (road_bonus > 0 ? road_bonus : 0), cost, road);
	/* Road: "The whole move MUST be on road": the bonus counts only if
	 * every hex walked with it is road. */
	for (pass = road_bonus > 0 ? 0 : 1; pass < 2; pass++) {
		lim = allow + (pass == 0 ? road_bonus : 0);
		all_road = plt_road(g, start);
		at = start;
		spent = 0;
		for (k = 0; k < ns && spent + cost[k] <= lim; k++) {
			all_road = all_road && road[k];
			spent += cost[k];
			at = path[k];
		}
		if (pass == 1 || all_road)
			break;
	}
	if (cost != few) {
		free(cost);
		free(road);
	}
	if (!hex_eq(at, start)) {
		g->units[i].pos = at;
		if (!ev->quiet) /* its labels are not written for nothing */
			events_add(ev, ALL, 0, "%s moves %s to %s (%d cm)%s.",
			    g->units[i].id, lab(g, start, a), lab(g, at, b),
			    spent, hex_eq(at, path[np - 1]) ? "" :
			    ", stopping short");
	}
	return spent;
}

/* The platoon's allowance in cm: the lowest Movement + 1D10 (reform:
 * 5 + 1D5), + 5 Fall Back, + 1D10 Move, Move, Move. */
static int
allowance(struct game *g, const struct plt_order_item *it, struct dice *d,
    struct events *ev)
{
	const struct plt_profile *pf;
	int i, low = -1, r, cm;
	char purpose[48];
	const char *pid = g->units[it->platoon].id;

	for (i = 0; i < g->nunits; i++)
		if (plt_alive(g, i) && g->units[i].attached == it->platoon &&
		    (pf = plt_profile_ref(g, i)) != NULL && (low < 0 ||
		    pf->move < low))
			low = pf->move;
	if (low < 0)
		return 0;
	if (it->kind == PLT_O_REFORM) {
		pur(ev, purpose, sizeof purpose, "reform move %s", pid);
		r = dice_roll(d, 5, 0, purpose);
		events_add(ev, ALL, (int)d->nlog, "%s reforms: moves up to 5 + "
		    "D5 (%d) = %d cm.", pid, r, 5 + r);
		return 5 + r;
	}
	pur(ev, purpose, sizeof purpose, "move %s", pid);
	r = dice_roll(d, 10, 0, purpose);
	cm = low + r + (it->kind == PLT_O_FALLBACK ? 5 : 0);
	events_add(ev, ALL, (int)d->nlog, "%s moves up to %d + D10 (%d)%s = "
	    "%d cm.", pid, low, r, it->kind == PLT_O_FALLBACK ?
	    " + 5 (Fall Back)" : "", cm);
	if (it->mmm) {
		pur(ev, purpose, sizeof purpose, "move move move %s", pid);
		r = dice_roll(d, 10, 0, purpose);
		cm += r;
		events_add(ev, ALL, (int)d->nlog, "%s: Move, Move, Move: + D10 "
		    "(%d) = %d cm, armour -1 this turn.", pid, r, cm);
	}
	return cm;
}

/* Each squad of the assault goes towards the nearest enemy squad its
 * platoon sees, its full allowance or into contact. */
static void
assault_move(struct game *g, const struct plt_order_item *it, int allow,
    struct events *ev)
{
	int i, e = -1, cost, len;
	struct hex path[256], was;
	bool fresh = false;

	for (i = 0; i < g->nunits; i++) {
		if (!plt_alive(g, i) || g->units[i].attached != it->platoon)
			continue;
		/* The cost to contact is the squad's own, below. The enemy
		 * is found again only once a squad has moved (nothing else
		 * here changes what it depends on). */
		if (!fresh && (e = plt_nearest_enemy_within(g, it->platoon, -1,
		    &cost)) < 0)
			return;
		fresh = true;
		g->units[i].placed = false;
		cost = plt_path_to_contact(g, g->units[i].side,
		    g->units[i].pos, e, path, 256, &len);
		g->units[i].placed = true;
		if (cost <= 0 || len <= 0)
			continue;
		/* move_squad to path[len - 1] would find this same path
		 * (the same search: the same hexes settled in the same
		 * order). */
		was = g->units[i].pos;
		walk(g, ev, i, path, len, allow, 0, true);
		if (!hex_eq(was, g->units[i].pos))
			fresh = false;
	}
}

/* --- close combat ------------------------------------------------------- */

/* The cover of h's terrain alone. */
static int
hex_cover(const struct game *g, struct hex h)
{
	const struct plt_terrain *t = plt_terrain(g, h);

	return t != NULL ? t->cover : 0;
}

/* Roll n close combat dice of squad s at t (hits into h). */
static void
strike(struct game *g, struct dice *d, struct events *ev, int s, int t,
    int n, bool attacker, struct hits *h)
{
	int need = 5, k, r, hits = 0, first = (int)d->nlog + 1;
	char purpose[48];
	struct sbuf b;

	if (attacker)
		need--; /* elan */
	else if (hex_cover(g, g->units[s].pos) > 0 &&
	    hex_cover(g, g->units[t].pos) == 0)
		need--; /* resisting someone outside their cover */
	sbuf_init(&b);
	for (k = 0; k < n; k++) {
		pur(ev, purpose, sizeof purpose, "close combat %s at %s",
		    g->units[s].id, g->units[t].id);
		r = dice_roll(d, 10, need, purpose);
		if (!ev->quiet)
			sbuf_printf(&b, "%s%d", k ? " " : "", r);
		if (r >= need) {
			hits++;
			add_hit(h, t, g->units[s].side, g->units[s].pos, true);
		}
	}
	events_add(ev, ALL, first, "Close combat: %s %s %d dice at %s: needs "
	    "%d, rolls %s: %d hit%s.", g->units[s].id, attacker ? "attacks "
	    "with" : "defends with", n, g->units[t].id, need, b.buf ? b.buf :
	    "", hits, hits == 1 ? "" : "s");
	sbuf_free(&b);
}

/* Adjacent squads of other sides than side's, in index order. */
static int
contacts(const struct game *g, int s, int *out, int max)
{
	int j, n = 0;

	for (j = 0; j < g->nunits && n < max; j++)
		if (plt_alive(g, j) && g->units[j].side != g->units[s].side &&
		    hex_adjacent(g->units[j].pos, g->units[s].pos))
			out[n++] = j;
	return n;
}

/* The weakest (lowest strength, then lowest index) or strongest of v. */
static int
pick(const struct game *g, const int *v, int n, bool strongest)
{
	int k, b = v[0];

	for (k = 1; k < n; k++)
		if (strongest ? g->units[v[k]].strength >
		    g->units[b].strength : g->units[v[k]].strength <
		    g->units[b].strength)
			b = v[k];
	return b;
}

/* Side's close combat split when assaulted: its order list's (all) or,
 * with no lists (reveal=each), the var defend.SIDE its marker file set. */
static enum plt_defend
defend_of(const struct game *g, const struct plt_orders *all[], int side)
{
	char key[24];

	if (all != NULL)
		return all[side] != NULL ? all[side]->defend : PLT_D_EVEN;
	plt_key(key, sizeof key, "defend", side);
	return (enum plt_defend)game_var(g, key, PLT_D_EVEN);
}

/* Close combat of an assaulting platoon with every enemy squad in
 * contact: both sides roll, then all hits are saved. */
static void
close_combat(struct game *g, const struct plt_orders *all[],
    const struct plt_order_item *it, struct dice *d, struct events *ev)
{
	struct hits h = { NULL, 0, 0 };
	int i, k, c[6], nc, n, left;
	char *defends = xcalloc((size_t)g->nunits, 1);
	bool any = false;

	for (i = 0; i < g->nunits; i++) {
		if (!plt_alive(g, i) || g->units[i].attached != it->platoon ||
		    (nc = contacts(g, i, c, 6)) == 0)
			continue;
		any = true;
		left = plt_points(g, i, 2, it->kind, false);
		for (k = 0; k < it->ncc && left > 0; k++) {
			const struct plt_cc *x = &it->cc[k];

			if (x->squad != i || !plt_alive(g, x->target) ||
			    !hex_adjacent(g->units[x->target].pos,
			    g->units[i].pos))
				continue;
			n = x->n < left ? x->n : left;
			strike(g, d, ev, i, x->target, n, true, &h);
			left -= n;
		}
		if (left > 0)
			strike(g, d, ev, i, pick(g, c, nc, false), left, true,
			    &h);
		for (k = 0; k < nc; k++)
			defends[c[k]] = 1;
	}
	for (i = 0; i < g->nunits; i++) {
		int att[6], na = 0, j, side;
		enum plt_defend how;

		if (!defends[i])
			continue;
		for (j = 0; j < g->nunits && na < 6; j++)
			if (plt_alive(g, j) && g->units[j].attached ==
			    it->platoon && hex_adjacent(g->units[j].pos,
			    g->units[i].pos))
				att[na++] = j;
		if (na == 0)
			continue;
		side = g->units[i].side;
		how = defend_of(g, all, side);
		left = plt_points(g, i, 2, PLT_O_NONE, false);
		if (how != PLT_D_EVEN) {
			strike(g, d, ev, i, pick(g, att, na,
			    how == PLT_D_STRONGEST), left, false, &h);
			continue;
		}
		for (j = 0; j < na; j++) {
			n = left / (na - j);
			if (n > 0)
				strike(g, d, ev, i, att[j], n, false, &h);
			left -= n;
		}
	}
	if (any)
		apply_hits(g, d, ev, &h);
	free(h.v);
	free(defends);
}

/* --- recovery, coherency, morale ----------------------------------------- */

/* The recovery (Base Seven) or morale (Base Five) number of platoon p. */
static int
check_number(const struct game *g, int p, int base, bool supp_counts)
{
	int al, re, lo, over, n = base;

	plt_counts(g, p, &al, &re, &lo);
	over = re + lo - plt_mcp(g, p);
	if (over > 0)
		n += over;
	n -= plt_cover_level(g, p);
	if (supp_counts && (g->units[p].flags & PLT_F_SUPP))
		n += 1;
	return n;
}

/* The reform order's recovery: one squad at once, checks for the others,
 * and a rally from suppression. */
static void
reform(struct game *g, const struct plt_order_item *it, struct dice *d,
    struct events *ev)
{
	struct game_unit *pu = &g->units[it->platoon];
	char purpose[48];
	int i, need, r;

	if (it->reform >= 0 && plt_alive(g, it->reform) &&
	    g->units[it->reform].strength == 1) {
		g->units[it->reform].strength = 2;
		events_add(ev, ALL, 0, "%s recovers: no longer reduced.",
		    g->units[it->reform].id);
	}
	need = check_number(g, it->platoon, 7, true);
	for (i = 0; i < g->nunits; i++) {
		if (!plt_alive(g, i) || g->units[i].attached != it->platoon ||
		    g->units[i].strength != 1)
			continue;
		pur(ev, purpose, sizeof purpose, "recovery %s",
		    g->units[i].id);
		r = dice_roll(d, 10, need, purpose);
		if (r >= need)
			g->units[i].strength = 2;
		events_add(ev, ALL, (int)d->nlog, "%s recovery check: %d "
		    "(needs %d): %s.", g->units[i].id, r, need, r >= need ?
		    "recovers" : "stays reduced");
	}
	if (pu->flags & PLT_F_SUPP) {
		pur(ev, purpose, sizeof purpose, "rally %s", pu->id);
		r = dice_roll(d, 10, need, purpose);
		if (r >= need)
			pu->flags &= ~PLT_F_SUPP;
		events_add(ev, ALL, (int)d->nlog, "%s tries to shake off "
		    "suppression: %d (needs %d): %s.", pu->id, r, need,
		    r >= need ? "no longer suppressed" : "still suppressed");
	}
}

/* Every platoon whose lost + reduced count grew and is over its MCP
 * takes a morale check (Base Five); a failure suppresses it. */
static void
morale(struct game *g, struct dice *d, struct events *ev)
{
	char purpose[48];
	int p, al, re, lo, need, r, i, k, cnt[3][128];
	bool one = g->nunits <= 128;

	/* plt_counts of every platoon in one pass (nothing below changes a
	 * squad). */
	if (one) {
		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < g->nunits; i++) {
			const struct game_unit *u = &g->units[i];

			if ((k = u->attached) < 0 || k >= g->nunits ||
			    plt_is_platoon(u))
				continue;
			if (u->strength <= 0)
				cnt[2][k]++;
			else {
				cnt[0][k]++;
				cnt[1][k] += u->strength == 1;
			}
		}
	}
	for (p = 0; p < g->nunits; p++) {
		if (!plt_is_platoon(&g->units[p]))
			continue;
		if (one) {
			al = cnt[0][p];
			re = cnt[1][p];
			lo = cnt[2][p];
		} else
			plt_counts(g, p, &al, &re, &lo);
		if (re + lo <= g->units[p].x[PLT_X_BAD]) {
			g->units[p].x[PLT_X_BAD] = re + lo;
			continue;
		}
		g->units[p].x[PLT_X_BAD] = re + lo;
		if (re + lo <= plt_mcp(g, p) || al == 0)
			continue;
		need = check_number(g, p, 5, false);
		pur(ev, purpose, sizeof purpose, "morale %s", g->units[p].id);
		r = dice_roll(d, 10, need, purpose);
		events_add(ev, ALL, (int)d->nlog, "%s morale check (%d lost or "
		    "reduced, MCP %d): %d (needs %d): %s.", g->units[p].id,
		    re + lo, plt_mcp(g, p), r, need, r >= need ? "passed" :
		    "FAILED, suppressed");
		if (r < need)
			g->units[p].flags |= PLT_F_SUPP;
	}
}

/* --- one order ------------------------------------------------------------- */

/* Distance from squad i at h to its nearest platoon-mate, the squads of
 * its platoon on the map being the nm of mates (i among them). */
static int
gap_in(const struct game *g, const int *mates, int nm, int i, struct hex h)
{
	int k, d, best = 1000;

	if (nm > 64) { /* more than listed: all of them */
		for (k = 0; k < g->nunits; k++)
			if (k != i && plt_alive(g, k) && g->units[k].attached ==
			    g->units[i].attached && (d = hex_distance(
			    g->units[k].pos, h)) < best)
				best = d;
		return best;
	}
	for (k = 0; k < nm; k++)
		if (mates[k] != i && (d = hex_distance(g->units[mates[k]].pos,
		    h)) < best)
			best = d;
	return best;
}

/* Are the n hexes of pos one chain of adjacent hexes (plt_coherent's
 * answer for squads standing there)? */
static bool
chain(const struct hex *pos, int n)
{
	int q[64], head = 0, tail = 0, k;
	char seen[64] = { 0 };

	if (n > 0) {
		seen[0] = 1;
		q[tail++] = 0;
	}
	while (head < tail) {
		struct hex c = pos[q[head++]];

		for (k = 0; k < n; k++)
			if (!seen[k] && hex_distance(pos[k], c) <= 1) {
				seen[k] = 1;
				q[tail++] = k;
			}
	}
	return tail == n;
}

/* Enact one order it of its side (all: every side's orders, for the
 * defenders' choices), then coherency and morale. */
void
plt_enact(struct game *g, const struct plt_orders *all[],
    const struct plt_order_item *it, struct dice *d, struct events *ev)
{
	struct game_unit *pu = &g->units[it->platoon];
	int al, re, lo, i, k, allow;
	enum plt_order kind;
	bool was_coherent = true, moved = false, nearer = true;
	struct hex start[64];
	int ns = 0, idx[64], mates[64], nm = -1, nall = 0;

	plt_counts(g, it->platoon, &al, &re, &lo);
	pu->flags |= PLT_F_DONE;
	pu->x[PLT_X_ORDER] = it->kind;
	if (al == 0) {
		events_add(ev, ALL, 0, "%s reveals %s: %s, but it has no squads "
		    "left.", sname(g, pu->side), pu->id,
		    plt_order_names[it->kind]);
		return;
	}
	events_add(ev, ALL, 0, "%s reveals %s: %s%s.", sname(g, pu->side),
	    pu->id, plt_order_names[it->kind], it->mmm ?
	    " (Move, Move, Move)" : "");
	/* Its squads where they start; whether they were coherent then is
	 * worked out from these hexes when asked (below), or now for more
	 * than 64 squads. */
	for (i = 0; i < g->nunits; i++)
		if (plt_alive(g, i) && g->units[i].attached == it->platoon &&
		    nall++ < 64) {
			idx[ns] = i;
			start[ns++] = g->units[i].pos;
		}
	if (nall > 64)
		was_coherent = plt_coherent(g, it->platoon);
	kind = it->kind;
	if ((pu->flags & PLT_F_SUPP) && (kind == PLT_O_ADVANCE ||
	    kind == PLT_O_ASSAULT)) {
		/* It became suppressed after its orders were written. */
		events_add(ev, ALL, 0, "%s is suppressed: it cannot advance; "
		    "the order is not enacted.", pu->id);
		kind = PLT_O_NONE;
	}
	if (it->mmm && kind != PLT_O_NONE)
		pu->flags |= PLT_F_MMM;
	switch (kind) {
	case PLT_O_ASSAULT:
		fire_phase(g, it, d, ev);
		allow = allowance(g, it, d, ev);
		assault_move(g, it, allow, ev);
		close_combat(g, all, it, d, ev);
		break;
	case PLT_O_ADVANCE:
	case PLT_O_FALLBACK:
	case PLT_O_REFORM:
		allow = it->nmove > 0 ? allowance(g, it, d, ev) : 0;
		for (k = 0; k < it->nmove; k++)
			if (plt_alive(g, it->move[k].squad))
				move_squad(g, ev, it->move[k].squad,
				    it->move[k].h, it->move[k].n, allow, 5, false);
		if (it->kind == PLT_O_REFORM)
			reform(g, it, d, ev);
		else
			fire_phase(g, it, d, ev);
		break;
	case PLT_O_ENGAGE:
		fire_phase(g, it, d, ev);
		break;
	default:
		break;
	}
	/* Coherency: the terrain exception holds when every squad that
	 * moved ended nearer its nearest platoon-mate than it started (the
	 * mates on the map listed once: gap's). */
	for (k = 0; k < ns; k++) {
		if (!plt_alive(g, idx[k]) ||
		    hex_eq(start[k], g->units[idx[k]].pos))
			continue;
		moved = true;
		if (nm < 0)
			for (i = nm = 0; i < g->nunits; i++)
				if (plt_alive(g, i) && g->units[i].attached ==
				    it->platoon && nm++ < 64)
					mates[nm - 1] = i;
		if (gap_in(g, mates, nm, idx[k], g->units[idx[k]].pos) >=
		    gap_in(g, mates, nm, idx[k], start[k]))
			nearer = false;
	}
	if (!(pu->flags & PLT_F_SUPP) && !plt_coherent(g, it->platoon)) {
		if (nall <= 64)
			was_coherent = chain(start, ns);
		if (!was_coherent && moved && nearer)
			events_add(ev, ALL, 0, "%s is still out of coherency, "
			    "but closed up as the terrain allowed.", pu->id);
		else {
			pu->flags |= PLT_F_SUPP;
			events_add(ev, ALL, 0, "%s ends out of coherency: it "
			    "is suppressed.", pu->id);
		}
	}
	morale(g, d, ev);
}

/* --- the turn --------------------------------------------------------------- */

/* The synthesized order of "no order becomes Advance": the first
 * platoon of side with no order line, firing all at the nearest. */
static bool
no_order_advance(const struct game *g, const struct plt_orders *o,
    int side, struct plt_order_item *it)
{
	int p, k;

	if (!game_option_flag(g, "no-order-advance"))
		return false;
	for (p = 0; p < g->nunits; p++) {
		int al, re, lo;
		bool has = false;

		if (!plt_is_platoon(&g->units[p]) || g->units[p].side != side)
			continue;
		plt_counts(g, p, &al, &re, &lo);
		for (k = 0; o != NULL && k < o->n; k++)
			has |= o->o[k].platoon == p;
		if (has || al == 0)
			continue;
		memset(it, 0, sizeof *it);
		it->platoon = p;
		it->kind = PLT_O_ADVANCE;
		it->reform = -1;
		it->nfire = -1; /* all points at the nearest */
		return true;
	}
	return false;
}

/* The keys "init.SIDE" and "noadv.SIDE" (plt_key's), read at every step. */
_Static_assert(GAME_MAX_SIDES == 4, "one key a side below");
static const char *const init_key[GAME_MAX_SIDES] = { "init.0", "init.1",
	"init.2", "init.3" };
static const char *const noadv_key[GAME_MAX_SIDES] = { "noadv.0",
	"noadv.1", "noadv.2", "noadv.3" };

/* The count of orders a side reveals this turn: its list o, and the
 * platoon "no order becomes Advance" chose when the turn began (noadv: its
 * var noadv.SIDE, the platoon's index + 1), built into *extra. */
static int
list_len(const struct game *g, const struct plt_orders *o, int noadv,
    struct plt_order_item *extra)
{
	int n = o != NULL ? o->n : 0, p;

	if ((p = noadv - 1) < 0 || p >= g->nunits)
		return n;
	memset(extra, 0, sizeof *extra);
	extra->platoon = p;
	extra->kind = PLT_O_ADVANCE;
	extra->reform = -1;
	extra->nfire = -1; /* all points at the nearest */
	return n + 1;
}

/* End of turn: clear the turn's flags and decide whether the battle ends. */
static void
end_turn(struct game *g, struct events *ev)
{
	int s, i, alive = 0;

	for (s = 0; s < g->nsides; s++) {
		for (i = 0; i < g->nunits; i++)
			if (plt_alive(g, i) && g->units[i].side == s)
				break;
		alive += i < g->nunits;
	}
	for (i = 0; i < g->nunits; i++)
		if (plt_is_platoon(&g->units[i])) {
			g->units[i].flags &= ~(PLT_F_MMM | PLT_F_DONE);
			g->units[i].x[PLT_X_MARK] = 0;
		}
	if (plt_each(g)) {
		game_set_var(g, "rv.mid", 0);
		game_set_var(g, "rv.pos", 0);
		game_set_var(g, "rv.n", 0);
	}
	if (alive <= 1)
		game_set_var(g, "over", 2);
	else if (g->turn >= game_var(g, "turns", 8))
		game_set_var(g, "over", 3);
	events_add(ev, ALL, 0, "End of turn %d.", g->turn);
}

/* reveal=each, step 0: the initiative, every side's order markers
 * (x[PLT_X_MARK]) and close combat split (var defend.SIDE), and the
 * platoon "no order becomes Advance" gives an Advance marker. */
static void
each_begin(struct resolve_ctx *c)
{
	struct game *g = c->g;
	struct plt_order_item extra;
	int order[GAME_MAX_SIDES], s, k;
	char key[24];

	events_phase(c->ev, "initiative");
	plt_initiative(g, c->dice, c->ev, order);
	for (s = 0; s < g->nsides; s++) {
		const struct plt_orders *o = c->orders[s];

		plt_key(key, sizeof key, "init", s);
		game_set_var(g, key, order[s]);
		plt_key(key, sizeof key, "defend", s);
		game_set_var(g, key, o != NULL ? (int)o->defend : PLT_D_EVEN);
		for (k = 0; o != NULL && k < o->n; k++)
			g->units[o->o[k].platoon].x[PLT_X_MARK] = o->o[k].kind +
			    1 + (o->o[k].mmm ? PLT_MARK_MMM : 0);
		if (no_order_advance(g, o, s, &extra)) {
			g->units[extra.platoon].x[PLT_X_MARK] = PLT_O_ADVANCE + 1;
			events_add(c->ev, ALL, 0, "%s: platoon %s had no order; "
			    "it advances (no order becomes Advance).",
			    sname(g, s), g->units[extra.platoon].id);
		}
	}
	game_set_var(g, "rv.mid", 1);
	game_set_var(g, "rv.pos", 0);
	game_set_var(g, "rv.n", 1);
}

/* reveal=each: the next side in the round robin with a marker left, from
 * position rv.pos of the initiative order; platoons with no squads left
 * reveal theirs at once. -1 if none: the turn's reveals are over. */
static int
each_next(struct resolve_ctx *c)
{
	struct game *g = c->g;
	int pos = game_var(g, "rv.pos", 0), t, k, s, p, al, re, lo;
	char key[24];

	for (t = 0; t < g->nsides; t++) {
		bool any = false;

		k = (pos + t) % g->nsides;
		plt_key(key, sizeof key, "init", k);
		s = game_var(g, key, k);
		for (p = 0; p < g->nunits; p++) {
			struct plt_order_item it;
			bool mmm;

			if (!plt_is_platoon(&g->units[p]) || g->units[p].side !=
			    s || plt_marker(g, p, &mmm) < 0)
				continue;
			plt_counts(g, p, &al, &re, &lo);
			if (al > 0) {
				any = true;
				continue;
			}
			memset(&it, 0, sizeof it);
			it.platoon = p;
			it.kind = plt_marker(g, p, NULL);
			it.reform = -1;
			plt_enact(g, NULL, &it, c->dice, c->ev);
		}
		if (any) {
			game_set_var(g, "rv.pos", k);
			return s;
		}
	}
	return -1;
}

/* reveal=each (docs/rules/platoon.md, "The faithful mode"): step 0 places
 * the markers; then each step either asks the next side for its reveal
 * (RESOLVE_ASK, the decision window "reveal") or, resumed, enacts the
 * answer; the turn ends when no marker is left. */
static enum resolve_rc
resolve_each(struct resolve_ctx *c)
{
	struct game *g = c->g;
	const struct plt_orders *a;
	int s, k;
	char key[24];

	if (c->step == 0) {
		each_begin(c);
		return RESOLVE_CONTINUE;
	}
	if ((s = plt_asked(g)) >= 0) {
		a = c->orders[s];
		if (!c->resumed || a == NULL || a->n != 1) {
			hp_seterr(c->err, HP_EINTERNAL, "platoon: step %d without "
			    "%s's reveal", c->step, sname(g, s));
			return RESOLVE_ERROR;
		}
		game_set_var(g, "rv.ask", 0);
		events_phase(c->ev, "orders");
		if (a->o[0].removed) {
			struct game_unit *pu = &g->units[a->o[0].platoon];

			pu->flags |= PLT_F_DONE;
			pu->x[PLT_X_ORDER] = PLT_O_NONE;
			events_add(c->ev, ALL, 0, "%s removes the order marker of "
			    "%s: it does not act this turn.", sname(g, s),
			    pu->id);
		} else
			plt_enact(g, NULL, &a->o[0], c->dice, c->ev);
		for (k = 0; k < g->nsides; k++) {
			plt_key(key, sizeof key, "init", k);
			if (game_var(g, key, k) == s)
				game_set_var(g, "rv.pos", (k + 1) % g->nsides);
		}
		return RESOLVE_CONTINUE;
	}
	if ((s = each_next(c)) >= 0) {
		game_set_var(g, "rv.ask", s + 1);
		game_set_var(g, "rv.n", game_var(g, "rv.n", 1) + 1);
		events_add(c->ev, ALL, 0, "%s is asked for its next reveal.",
		    sname(g, s));
		c->ask = 1u << s;
		return RESOLVE_ASK;
	}
	events_phase(c->ev, "end of turn");
	end_turn(g, c->ev);
	if (!game_var(g, "over", 0))
		g->turn++;
	return RESOLVE_DONE;
}

/* One step of the turn's window: initiative, then one order a step (the
 * faithful mode: resolve_each). */
/* What the steps after the first read of the vars the first set (init.SIDE,
 * noadv.SIDE) and of reveal: kept from one step to the next of the same
 * resolution by plt_resolve (no step sets them again); ok when filled. */
struct step_memo {
	bool ok;
	int order[GAME_MAX_SIDES];
	int noadv[GAME_MAX_SIDES];
};

static enum resolve_rc resolve_step(struct resolve_ctx *, struct step_memo *);

/* One step of the turn's window, with the map cache kept for it. */
enum resolve_rc
plt_resolve(struct resolve_ctx *c)
{
	/* The last step seen to end: the next step of the same resolution
	 * (the same resolution number, context, game, dice and events; the
	 * step after it, which asked for nothing) finds the map as that step
	 * left it (no one but the resolution runs in between, and it changes
	 * no hex): the map cache is not checked whole again
	 * (plt_cache_continue). */
	static _Thread_local struct {
		unsigned long serial;
		const struct resolve_ctx *c;
		const struct game *g;
		const struct dice *d;
		const struct events *ev;
		int step, turn;
		char name[GAME_NAME_MAX];
	} last;
	static _Thread_local struct step_memo memo;
	enum resolve_rc rc;
	bool next = c->serial != 0 && last.serial == c->serial &&
	    last.c == c && last.g == c->g && last.d == c->dice &&
	    last.ev == c->ev && c->step == last.step + 1 && c->step > 0 &&
	    last.turn == c->g->turn && memcmp(last.name, c->g->name, sizeof
	    last.name) == 0;

	last.c = NULL;
	if (next)
		plt_cache_continue(c->g);
	else {
		memo.ok = false;
		plt_cache_begin(c->g);
	}
	rc = resolve_step(c, &memo);
	plt_cache_end();
	if (rc == RESOLVE_CONTINUE) {
		last.serial = c->serial;
		last.c = c;
		last.g = c->g;
		last.d = c->dice;
		last.ev = c->ev;
		last.step = c->step;
		last.turn = c->g->turn;
		memcpy(last.name, c->g->name, sizeof last.name);
	}
	return rc;
}

/* plt_resolve without the scope. */
static enum resolve_rc
resolve_step(struct resolve_ctx *c, struct step_memo *memo)
{
	/* The synthesized orders (large: kept per thread, not cleared). */
	static _Thread_local struct plt_order_item one[GAME_MAX_SIDES];
	struct game *g = c->g;
	const struct plt_orders *o[GAME_MAX_SIDES] = { 0 };
	struct plt_order_item *extra;
	int order[GAME_MAX_SIDES], s, k, taken[GAME_MAX_SIDES] = { 0 };
	int len[GAME_MAX_SIDES], step = 0;

	if (!memo->ok && plt_each(g))
		return resolve_each(c);
	for (s = 0; s < g->nsides; s++)
		o[s] = c->orders[s];
	if (c->step == 0) {
		memo->ok = false;
		events_phase(c->ev, "initiative");
		plt_initiative(g, c->dice, c->ev, order);
		extra = &one[0]; /* read only where no_order_advance fills it */
		for (s = 0; s < g->nsides; s++) {
			game_set_var(g, init_key[s], order[s]);
			/* Fixed now: the schedule of the turn's steps must not
			 * change as platoons are lost. */
			game_set_var(g, noadv_key[s], no_order_advance(g, o[s],
			    s, extra) ? extra->platoon + 1 : 0);
		}
		return RESOLVE_CONTINUE;
	}
	/* Not cleared (an item is large): list_len fills extra[s] when it
	 * counts it, and only a counted one is enacted. */
	extra = one;
	if (!memo->ok) { /* not reveal=each: tested above */
		for (s = 0; s < g->nsides; s++) {
			memo->order[s] = game_var(g, init_key[s], s);
			memo->noadv[s] = game_var(g, noadv_key[s], 0);
		}
		memo->ok = true;
	}
	for (s = 0; s < g->nsides; s++) {
		order[s] = memo->order[s];
		len[order[s]] = list_len(g, o[order[s]], memo->noadv[order[s]],
		    &extra[order[s]]);
	}
	/* Step k (1-based) is the k-th reveal of the round-robin over the
	 * sides in initiative order, skipping sides whose lists are spent. */
	for (;;) {
		bool any = false;

		for (k = 0; k < g->nsides; k++) {
			s = order[k];
			if (taken[s] >= len[s])
				continue;
			any = true;
			if (++step == c->step) {
				const struct plt_order_item *it =
				    o[s] != NULL && taken[s] < o[s]->n ?
				    &o[s]->o[taken[s]] : &extra[s];

				events_phase(c->ev, "orders");
				plt_enact(g, o, it, c->dice, c->ev);
				return RESOLVE_CONTINUE;
			}
			taken[s]++;
		}
		if (!any)
			break;
	}
	events_phase(c->ev, "end of turn");
	end_turn(g, c->ev);
	if (!game_var(g, "over", 0))
		g->turn++;
	return RESOLVE_DONE;
}

/* When the battle is over: the highest score wins, a tie is a draw. */
void
plt_victory(struct game *g, struct events *ev)
{
	int over = game_var(g, "over", 0), s, best = -1, bs = -1, tie = 0;
	struct sbuf t;

	if (g->status == GAME_FINISHED || !over)
		return;
	g->status = GAME_FINISHED;
	sbuf_init(&t);
	for (s = 0; s < g->nsides; s++) {
		int sc = plt_score(g, s);

		sbuf_printf(&t, "%s%s %d", s ? ", " : "", sname(g, s), sc);
		if (sc > bs) {
			bs = sc;
			best = s;
			tie = 0;
		} else if (sc == bs)
			tie = 1;
	}
	if (tie)
		snprintf(g->result, sizeof g->result, "Draw: %s; scores %s",
		    over == 2 ? "one side is left" : "the turn limit was "
		    "reached", t.buf);
	else
		snprintf(g->result, sizeof g->result, "%s wins: %s; scores %s",
		    sname(g, best), over == 2 ? "one side is left" :
		    "the turn limit was reached", t.buf);
	sbuf_free(&t);
	events_add(ev, ALL, 0, "The battle is over. %s", g->result);
}
