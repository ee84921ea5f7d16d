/* skm_rules: the skirmish ruleset's tables (6.2, 6.3, 8.2, 8.3, 9.1, 10.1,
 * 11.1, 16.1) and the turn of 3.1/3.2 resolved from one simultaneous order
 * window: spotting, rally, initiative, movement with opportunity-fire
 * markers, stationary and moving fire, indirect HE and smoke, morale,
 * close assault and melee, and the end of the turn. Dice of what a side may
 * not see are sealed to the side that owns the hidden element. Readings:
 * docs/rules/skirmish-ww2.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skirmish.h"

#define ALL EVENT_ALL_SIDES
#define NONE_HEX_ROW (-1)

/* --- the tables ----------------------------------------------------------- */

/* 6.2 To Hit by cover class. */
int
skm_to_hit(int cover)
{
	static const int t[] = { 4, 5, 5, 6 };

	return cover >= 0 && cover <= SKM_REINF ? t[cover] : 4;
}

/* 6.2 To Kill by cover class. */
int
skm_to_kill(int cover)
{
	static const int t[] = { 4, 4, 5, 5 };

	return cover >= 0 && cover <= SKM_REINF ? t[cover] : 4;
}

/* Append the words of one modifier to why. */
static void
note(char *why, size_t len, const char *what, int v)
{
	size_t n;

	if (why == NULL || len == 0)
		return;
	n = strlen(why);
	snprintf(why + n, len - n, "%s%s %+d", n ? ", " : "", what, v);
}

/* Does a friendly leader (hq) stand within 3 hexes (6") of u? */
static bool
led(const struct game *g, int u)
{
	struct skm_kind k;
	int i;

	for (i = 0; i < g->nunits; i++)
		if (skm_alive(g, i) && g->units[i].side == g->units[u].side &&
		    g->units[i].status < SKM_BROKEN &&
		    skm_kind_of(g, g->units[i].kind, &k) && k.leader &&
		    hex_distance(g->units[i].pos, g->units[u].pos) <= 3)
			return true;
	return false;
}

/* 6.3: the to-hit modifier of fire from f at t standing at th. */
int
skm_fire_mod(const struct game *g, int f, int t, struct hex th,
    bool stationary, bool direct_he, char *why, size_t len)
{
	const struct game_unit *uf = &g->units[f], *ut = &g->units[t];
	struct skm_kind k;
	int m = 0, h, v;

	if (why != NULL && len > 0)
		why[0] = '\0';
	skm_kind_of(g, uf->kind, &k);
	h = skm_sight(g, uf->pos, uf->x[SKM_X_FLOOR], th, ut->x[SKM_X_FLOOR]);
	if (h > 0) {
		m += h;
		note(why, len, "hindrance", h);
	}
	if (stationary && !direct_he && (ut->flags & SKM_F_MOVED) &&
	    skm_cover(g, th, uf->pos) == SKM_OPEN) {
		m -= 1;
		note(why, len, "stationary fire vs movement in open", -1);
	}
	if (!direct_he && (ut->flags & SKM_F_DOUBLE)) {
		m -= 1;
		note(why, len, "target At the Double", -1);
	}
	if (hex_distance(uf->pos, th) > k.longr) {
		m += 1;
		note(why, len, "long range", 1);
	}
	if (k.sw && (v = uf->x[SKM_X_FULL] - uf->strength) > 0) {
		m += v;
		note(why, len, "SW lack of crew", v);
	}
	if (uf->flags & SKM_F_MOVED) {
		m += 1;
		note(why, len, "moving and firing", 1);
	}
	if (uf->status == SKM_SUPP) {
		m += 1;
		note(why, len, "suppressed firing", 1);
	}
	if (skm_elev(g, th) > skm_elev(g, uf->pos)) {
		m += 1;
		note(why, len, "target uphill", 1);
	}
	if (uf->x[SKM_X_QUAL] == SKM_GREEN) {
		m += 1;
		note(why, len, "green firing", 1);
	}
	if (uf->x[SKM_X_QUAL] == SKM_VETERAN) {
		m -= 1;
		note(why, len, "veteran firing", -1);
	}
	return m;
}

/* 8.2: targeting number of indirect fire from f spotted by s at h. */
int
skm_target_number(const struct game *g, int f, int s, struct hex h,
    bool smoke, bool subsequent, char *why, size_t len)
{
	const struct game_unit *uf = &g->units[f], *us;
	struct skm_kind kf, ks;
	int n, w, v;

	if (why != NULL && len > 0)
		why[0] = '\0';
	if (s < 0)
		s = f;
	us = &g->units[s];
	skm_kind_of(g, uf->kind, &kf);
	skm_kind_of(g, us->kind, &ks);
	if (s == f)
		n = smoke ? 1 : 3;          /* attached */
	else if (ks.spotter)
		n = smoke ? 2 : 4;          /* direct */
	else
		n = smoke ? 3 : 5;          /* general */
	w = skm_sight(g, us->pos, us->x[SKM_X_FLOOR], h, 0);
	if (w > 0) {
		n += w;
		note(why, len, "hindrance spotter-target", w);
	}
	if (uf->x[SKM_X_QUAL] == SKM_VETERAN ||
	    us->x[SKM_X_QUAL] == SKM_VETERAN) {
		n -= 1;
		note(why, len, "veteran firer or spotter", -1);
	}
	if (uf->x[SKM_X_QUAL] == SKM_GREEN || us->x[SKM_X_QUAL] == SKM_GREEN) {
		n += 1;
		note(why, len, "green firer or spotter", 1);
	}
	if (uf->status == SKM_SUPP || us->status == SKM_SUPP) {
		n += 1;
		note(why, len, "suppressed firer or spotter", 1);
	}
	if (subsequent) {
		n -= 1;
		note(why, len, "subsequent attempt", -1);
	}
	if (kf.sw && (v = uf->x[SKM_X_FULL] - uf->strength) > 0) {
		n += v;
		note(why, len, "SW lack of crew", v);
	}
	return n;
}

/* 8.3: HE hit and kill numbers of unit t from firer f's blast at c. */
void
skm_he_numbers(const struct game *g, int f, int t, struct hex c, int *hit,
    int *kill)
{
	const struct game_unit *ut = &g->units[t], *uf = &g->units[f];
	const struct skm_terrain *tt = skm_terrain(g, ut->pos);
	struct skm_kind k;
	int cover = tt != NULL ? tt->cover : SKM_OPEN, d, e;

	skm_kind_of(g, uf->kind, &k);
	if (!hex_eq(ut->pos, c) && (d = hex_direction_to(ut->pos, c)) >= 0 &&
	    (e = skm_edge(g, ut->pos, d)) != SKM_E_NONE) {
		/* behind a linear obstacle from the blast's centre */
		int oc = e == SKM_E_WALL ? SKM_HEAVY : SKM_LIGHT;

		if (oc > cover)
			cover = oc;
	}
	*hit = skm_to_hit(cover);
	*kill = skm_to_kill(cover);
	if (tt != NULL && tt->woods) {
		*hit = 4;   /* tree bursts */
		*kill = 4;
	}
	if (tt != NULL && tt->floors > 0) {
		int above = tt->floors - ut->x[SKM_X_FLOOR];

		*hit += above;
		*kill += above;
	}
	if (uf->status == SKM_SUPP || (k.sw && uf->strength <
	    uf->x[SKM_X_FULL])) {
		*hit += 1;
		*kill += 1;
	}
	*hit -= k.heweight;
	*kill -= k.heweight;
}

/* 10.1: the morale test number of u. */
int
skm_morale_number(const struct game *g, int u, int kills, bool rally,
    bool severe)
{
	int n = game_var(g, "morale", 4) + kills;

	if (rally)
		n += 1;
	if (!severe && led(g, u))
		n -= 1;
	return n;
}

/* 9.1: the close combat number of u (4+). */
int
skm_cc_number(const struct game *g, int u)
{
	const struct game_unit *x = &g->units[u];

	return 4 + (x->x[SKM_X_QUAL] == SKM_GREEN) -
	    (x->x[SKM_X_QUAL] == SKM_VETERAN) + (x->status == SKM_SUPP);
}

/* --- resolution state ---------------------------------------------------- */

struct skm_res {
	struct resolve_ctx *c;
	struct game *g;
	const struct skm_orders *o[2];
	const struct skm_orders *st[2];
	int first;                 /* the side moving first */
	int winner;                /* the initiative winner */
	int *pending;              /* kills waiting for the end of a phase */
	int *optarget;             /* opportunity fire: target unit, -1 */
	struct hex *ophex;
	unsigned lastset;          /* stream of the last die (0 public) */
	unsigned ask;              /* faithful mode: the side to ask */
	int lastseq;
};

/* The label of h (one of 4 rotating buffers). */
static const char *
L(const struct game *g, struct hex h)
{
	static char buf[4][8];
	static int k;

	k = (k + 1) % 4;
	return hex_label(&g->layout, h, buf[k], sizeof buf[k]);
}

/* The code of hex h in a var (col*1000+row+1). */
static int
hcode(const struct game *g, struct hex h)
{
	struct hex_offset o = hex_to_offset(&g->layout, h);

	return o.col * 1000 + o.row + 1;
}

/* The hex of a var's code. */
static struct hex
hdecode(const struct game *g, int v)
{
	struct hex_offset o;

	o.col = (v - 1) / 1000;
	o.row = (v - 1) % 1000;
	return hex_from_offset(&g->layout, o);
}

/* Who may see news of unit u: everyone, or its side while it is hidden. */
static unsigned
seen_by(const struct game *g, int u)
{
	return (g->units[u].flags & SKM_F_HIDDEN) ? 1u << g->units[u].side :
	    ALL;
}

/* The purpose of a roll, for the dice log, into buf; empty in a
 * simulation (quiet events), which reads no log: the dice do not depend
 * on it. */
static void purpose(const struct skm_res *, char *, size_t, const char *,
    ...) __attribute__((format(printf, 4, 5)));

static void
purpose(const struct skm_res *r, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	buf[0] = '\0';
	if (r->c->ev->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* The room for the words of the modifiers in why (len bytes): none in a
 * simulation, which shows no text (why is left empty). */
static size_t
why_room(const struct skm_res *r, char *why, size_t len)
{
	why[0] = '\0';
	return r->c->ev->quiet ? 0 : len;
}

/* Roll a die about unit u: public, or sealed to its side while hidden. */
static int
die(struct skm_res *r, int u, int target, const char *purpose)
{
	struct dice *d = r->c->dice;
	int v;

	if (u >= 0 && (r->g->units[u].flags & SKM_F_HIDDEN)) {
		r->lastset = 1u << r->g->units[u].side;
		v = dice_roll_sealed(d, r->lastset, 6, target, purpose);
		r->lastseq = d->slog[d->nslog - 1].seq;
	} else {
		r->lastset = 0;
		v = dice_roll(d, 6, target, purpose);
		r->lastseq = (int)d->nlog;
	}
	return v;
}

/* Reveal unit u to the enemy, saying why. */
static void
reveal(struct skm_res *r, int u, const char *why)
{
	struct game_unit *x = &r->g->units[u];

	if (!(x->flags & SKM_F_HIDDEN))
		return;
	x->flags &= ~(unsigned)SKM_F_HIDDEN;
	events_add(r->c->ev, ALL, 0, "%s's %s (%s) is revealed at %s: %s.",
	    r->g->sides[x->side].name, x->id, x->name, L(r->g, x->pos), why);
}

/* Reveal what comes into sight after unit m moved: hidden enemies in the
 * open or within 4" that m sees, and m itself when seen so. */
static void
sight_check(struct skm_res *r, int m)
{
	struct game *g = r->g;
	int i;

	for (i = 0; i < g->nunits; i++) {
		const struct skm_terrain *t;

		if (!skm_alive(g, i) || g->units[i].side == g->units[m].side ||
		    !skm_los_units(g, m, i))
			continue;
		t = skm_terrain(g, g->units[i].pos);
		if ((g->units[i].flags & SKM_F_HIDDEN) && ((t != NULL &&
		    t->cover == SKM_OPEN) || hex_distance(g->units[i].pos,
		    g->units[m].pos) <= SKM_AUTO_SPOT))
			reveal(r, i, "it comes into sight");
		t = skm_terrain(g, g->units[m].pos);
		if ((g->units[m].flags & SKM_F_HIDDEN) && ((t != NULL &&
		    t->cover == SKM_OPEN) || hex_distance(g->units[i].pos,
		    g->units[m].pos) <= SKM_AUTO_SPOT))
			reveal(r, m, "it comes into sight");
	}
}

/* Is there an element in play at h (of side, or any side with -1)? */
static int
unit_at(const struct game *g, struct hex h, int side)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (skm_alive(g, i) && hex_eq(g->units[i].pos, h) &&
		    (side < 0 || g->units[i].side == side))
			return i;
	return -1;
}

/* Apply the kills waiting in pending (the end of a simultaneous phase). */
static void
apply_kills(struct skm_res *r)
{
	struct game *g = r->g;
	int i;

	for (i = 0; i < g->nunits; i++) {
		struct game_unit *u = &g->units[i];

		if (r->pending[i] == 0)
			continue;
		u->strength -= r->pending[i];
		u->x[SKM_X_KILLS] += r->pending[i];
		if (u->strength <= 0) {
			u->strength = 0;
			events_add(r->c->ev, ALL, 0, "%s is wiped out.", u->id);
		} else
			events_add(r->c->ev, ALL, 0, "%s loses %d figure%s "
			    "(%d left).", u->id, r->pending[i],
			    r->pending[i] == 1 ? "" : "s", u->strength);
		r->pending[i] = 0;
	}
}

/* --- phases ------------------------------------------------------------------ */

/* 11.1: the number to spot hidden unit u from the best enemy spotter that
 * sees it: 5+, +1 each hindrance, +1 over 16"; 0 within 4" (automatic);
 * -1 when no enemy sees it. */
int
skm_spot_number(const struct game *g, int u)
{
	int best = -1, j, n;

	for (j = 0; j < g->nunits; j++) {
		int w, d;

		if (!skm_alive(g, j) || g->units[j].side == g->units[u].side ||
		    (w = skm_sight(g, g->units[j].pos,
		    g->units[j].x[SKM_X_FLOOR], g->units[u].pos,
		    g->units[u].x[SKM_X_FLOOR])) < 0)
			continue;
		d = hex_distance(g->units[j].pos, g->units[u].pos);
		n = d <= SKM_AUTO_SPOT ? 0 : 5 + w + (d > SKM_FAR_SPOT);
		if (best < 0 || n < best)
			best = n;
	}
	return best;
}

/* 11.1: the spotting phase. Every hidden element gets one sealed roll,
 * shown to its own side only, whether or not an enemy sees it (so that
 * neither the roll nor its number tells the owner where the enemy is);
 * it is spotted when an enemy sees it and the roll makes the number. */
static void
spotting(struct skm_res *r)
{
	struct game *g = r->g;
	char p[80];
	int i, best, v;

	events_phase(r->c->ev, "Spotting");
	for (i = 0; i < g->nunits; i++) {
		if (!skm_alive(g, i) || !(g->units[i].flags & SKM_F_HIDDEN))
			continue;
		best = skm_spot_number(g, i);
		if (best == 0) {
			reveal(r, i, "within 4\" of an enemy, spotted "
			    "automatically");
			continue;
		}
		purpose(r, p, sizeof p, "spotting %s", g->units[i].id);
		v = die(r, i, 0, p);
		events_add_rolls(r->c->ev, seen_by(g, i), r->lastset,
		    r->lastseq, 1, "Spotting roll for hidden %s: %d - %s.",
		    g->units[i].id, v, best > 0 && v >= best ? "spotted" :
		    "still hidden");
		if (best > 0 && v >= best)
			reveal(r, i, "spotted (11.1)");
	}
}

/* Move broken unit u up to n hexes toward its home edge. */
static void
rout(struct skm_res *r, int u, int n)
{
	struct game *g = r->g;
	struct game_unit *x = &g->units[u];
	struct hex from = x->pos;
	int k, d, k2, dirs[6];

	skm_dirs(g, x->side, dirs);
	for (k = 0; k < n; k++) {
		int bestd = -1, best = skm_home_dist(g, x->side, x->pos);

		for (k2 = 0; k2 < 6; k2++) {
			struct hex h;
			int hd;

			d = dirs[k2];
			h = hex_neighbour(x->pos, d);
			if (!game_on_map(g, h) || unit_at(g, h, 1 - x->side) >=
			    0)
				continue;
			hd = skm_home_dist(g, x->side, h);
			if (hd < best) {
				best = hd;
				bestd = d;
			}
		}
		if (bestd < 0)
			break;
		x->pos = hex_neighbour(x->pos, bestd);
		x->x[SKM_X_FLOOR] = 0;
		sight_check(r, u);
	}
	if (!hex_eq(from, x->pos))
		events_add(r->c->ev, seen_by(g, u), 0, "%s falls back from %s "
		    "to %s.", x->id, L(g, from), L(g, x->pos));
}

/* 3.1 rally: suppressed and broken elements test; broken ones that fail
 * make their compulsory move. */
static void
rally(struct skm_res *r)
{
	struct game *g = r->g;
	char p[80];
	int i, n, v;

	events_phase(r->c->ev, "Rally");
	for (i = 0; i < g->nunits; i++) {
		struct game_unit *u = &g->units[i];

		if (!skm_alive(g, i) || (u->status != SKM_SUPP &&
		    u->status != SKM_BROKEN))
			continue;
		n = skm_morale_number(g, i, 0, true, false);
		purpose(r, p, sizeof p, "rally %s", u->id);
		v = die(r, i, n <= 6 ? n : 0, p);
		if (v >= n || v == 6) {
			u->status--;
			events_add_rolls(r->c->ev, seen_by(g, i), r->lastset,
			    r->lastseq, 1, "%s rallies (%d, needs %d+): now "
			    "%s.", u->id, v, n, skm_morale_names[u->status]);
			continue;
		}
		events_add_rolls(r->c->ev, seen_by(g, i), r->lastset,
		    r->lastseq, 1, "%s fails to rally (%d, needs %d+).",
		    u->id, v, n);
		if (u->status == SKM_BROKEN)
			rout(r, i, SKM_ROUT_HEX);
	}
}

/* The item of unit u in side's orders, or NULL. */
static const struct skm_item *
item_of(const struct skm_res *r, int u)
{
	const struct skm_orders *o;
	int k;

	if (u < 0 || (o = r->o[r->g->units[u].side]) == NULL)
		return NULL;
	for (k = 0; k < o->n; k++)
		if (o->it[k].unit == u)
			return &o->it[k];
	return NULL;
}

/* Is the item still good (its element in play and not broken)? */
static bool
active(const struct skm_res *r, const struct skm_item *it)
{
	return skm_alive(r->g, it->unit) &&
	    r->g->units[it->unit].status < SKM_BROKEN;
}

/* The initiative roll: the winner chooses to move first or second. */
static void
initiative(struct skm_res *r)
{
	int a, b, k, pref;

	events_phase(r->c->ev, "Initiative");
	for (k = 0;; k++) {
		a = dice_roll(r->c->dice, 6, 0, "initiative (first side)");
		b = dice_roll(r->c->dice, 6, 0, "initiative (second side)");
		events_add_rolls(r->c->ev, ALL, 0, (int)r->c->dice->nlog - 1, 2,
		    "Initiative: %s %d, %s %d.", r->g->sides[0].name, a,
		    r->g->sides[1].name, b);
		if (a != b || k == 9)
			break;
	}
	r->winner = a >= b ? 0 : 1;
	game_set_var(r->g, "ini.win", r->winner);
	if (game_option_flag(r->g, "faithful") && !(r->o[r->winner] &&
	    r->o[r->winner]->initiative >= 0)) {
		/* The faithful mode asks the winner (a decision window). */
		r->ask = 1u << r->winner;
		events_add(r->c->ev, ALL, 0, "%s wins the initiative and is "
		    "asked to move first or second.",
		    r->g->sides[r->winner].name);
		return;
	}
	pref = r->o[r->winner] && r->o[r->winner]->initiative >= 0 ?
	    r->o[r->winner]->initiative : r->st[r->winner] &&
	    r->st[r->winner]->initiative >= 0 ? r->st[r->winner]->initiative :
	    0;
	r->first = pref ? 1 - r->winner : r->winner;
	game_set_var(r->g, "ini.first", r->first);
	events_add(r->c->ev, ALL, 0, "%s wins the initiative and moves %s.",
	    r->g->sides[r->winner].name, pref ? "second" : "first");
}

/* Opportunity-fire markers of the side not moving, after m's step. */
static void
opfire_markers(struct skm_res *r, int m)
{
	struct game *g = r->g;
	const struct skm_orders *o = r->o[1 - g->units[m].side];
	struct skm_kind k;
	int j;

	if (o == NULL)
		return;
	for (j = 0; j < o->n; j++) {
		const struct skm_item *it = &o->it[j];
		int f = it->unit, rng;

		if (!it->opfire || !active(r, it) || (g->units[f].flags &
		    SKM_F_OPFIRE) || !skm_visible(g, g->units[f].side, m) ||
		    !skm_los_units(g, f, m))
			continue;
		skm_kind_of(g, g->units[f].kind, &k);
		rng = it->oprange && it->oprange < k.range ? it->oprange :
		    k.range;
		if (hex_distance(g->units[f].pos, g->units[m].pos) > rng)
			continue;
		g->units[f].flags |= SKM_F_OPFIRE;
		r->optarget[f] = m;
		r->ophex[f] = g->units[m].pos;
		events_add(r->c->ev, seen_by(g, f), 0, "%s places an "
		    "Opportunity Fire marker on %s at %s.", g->units[f].id,
		    g->units[m].id, L(g, g->units[m].pos));
	}
}

/* Move the elements of side along their paths, step by step. */
static void
movement(struct skm_res *r, int side)
{
	struct game *g = r->g;
	const struct skm_orders *o = r->o[side];
	char ph[48];
	int j, k;

	snprintf(ph, sizeof ph, "Movement (%s)", g->sides[side].name);
	events_phase(r->c->ev, ph);
	if (o == NULL)
		return;
	for (j = 0; j < o->n; j++) {
		const struct skm_item *it = &o->it[j];
		struct game_unit *u = &g->units[it->unit];
		struct hex from = u->pos;

		if (!active(r, it) || it->order == 'F')
			continue;
		for (k = 0; k < it->npath; k++) {
			int e = unit_at(g, it->path[k], 1 - side);

			if (e >= 0) {
				reveal(r, e, "an enemy bumps into it");
				events_add(r->c->ev, seen_by(g, it->unit), 0,
				    "%s stops: %s holds %s.", u->id,
				    g->units[e].id, L(g, it->path[k]));
				break;
			}
			u->pos = it->path[k];
			u->x[SKM_X_FLOOR] = 0;
			u->flags |= SKM_F_MOVED;
			if (it->order == 'A')
				u->flags |= SKM_F_DOUBLE;
			sight_check(r, it->unit);
			if (game_option_flag(g, "faithful")) {
				char key[40];

				snprintf(key, sizeof key, "mv.%s.%d", u->id,
				    k);
				game_set_var(g, key, hcode(g, u->pos));
				snprintf(key, sizeof key, "mv.%s.n", u->id);
				game_set_var(g, key, k + 1);
			} else
				opfire_markers(r, it->unit);
		}
		if (k == it->npath && it->floor >= 0)
			u->x[SKM_X_FLOOR] = it->floor;
		if (!hex_eq(from, u->pos))
			events_add(r->c->ev, seen_by(g, it->unit), 0, "%s (%s) "
			    "moves from %s to %s%s.", u->id, it->order == 'A' ?
			    "At the Double" : it->order == 'M' ? "Move & Fire" :
			    "Cautious Advance", L(g, from), L(g, u->pos),
			    u->x[SKM_X_FLOOR] ? " (upper storey)" : "");
		else if (it->floor >= 0)
			u->x[SKM_X_FLOOR] = it->floor;
	}
}

/* Direct fire of f at t standing at th; kills go to pending. */
static void
direct_fire(struct skm_res *r, int f, int t, struct hex th, bool stationary,
    const char *how)
{
	struct game *g = r->g;
	struct game_unit *uf = &g->units[f];
	struct skm_kind k;
	char why[200], p[80];
	int n, cover, hit, kill, i, v, hits = 0, kills = 0, first;

	skm_kind_of(g, uf->kind, &k);
	if (k.range == 0)
		return;
	if (skm_sight(g, uf->pos, uf->x[SKM_X_FLOOR], th,
	    g->units[t].x[SKM_X_FLOOR]) < 0 || hex_distance(uf->pos, th) >
	    k.range) {
		events_add(r->c->ev, seen_by(g, f), 0, "%s cannot fire at %s: "
		    "%s.", uf->id, g->units[t].id, hex_distance(uf->pos, th) >
		    k.range ? "out of range" : "no line of sight");
		return;
	}
	reveal(r, f, "it opens fire");
	n = k.sw ? k.dice : uf->strength * k.dice;
	cover = skm_cover(g, th, uf->pos);
	hit = skm_to_hit(cover) + skm_fire_mod(g, f, t, th, stationary,
	    k.dhe, why, why_room(r, why, sizeof why));
	/* "to kill roll is only modified by special weapons or HE": the HE
	 * weight of a gun firing direct HE. */
	kill = skm_to_kill(cover) - (k.dhe ? k.heweight : 0);
	if (hit < 2)
		hit = 2;
	if (hit > 6) {
		events_add(r->c->ev, ALL, 0, "%s %s %s at %s (%s cover%s%s): "
		    "needs %d to hit, no chance.", uf->id, how,
		    g->units[t].id, L(g, th), skm_cover_names[cover],
		    why[0] ? "; " : "", why, hit);
		return;
	}
	first = (int)r->c->dice->nlog + 1;
	purpose(r, p, sizeof p, "%s fires at %s: to hit", uf->id,
	    g->units[t].id);
	for (i = 0; i < n; i++)
		if (dice_roll(r->c->dice, 6, hit, p) >= hit)
			hits++;
	purpose(r, p, sizeof p, "%s fires at %s: to kill", uf->id,
	    g->units[t].id);
	for (i = 0; i < hits; i++)
		if ((v = dice_roll(r->c->dice, 6, kill, p)) >= kill)
			kills++;
	events_add_rolls(r->c->ev, ALL, 0, first, n + hits, "%s %s %s at %s "
	    "(%s cover%s%s): %d dice at %d+ to hit, %d hit%s; %d+ to kill, "
	    "%d kill%s.", uf->id, how, g->units[t].id, L(g, th),
	    skm_cover_names[cover], why[0] ? "; " : "", why, n, hit, hits,
	    hits == 1 ? "" : "s", kill, kills, kills == 1 ? "" : "s");
	r->pending[t] += kills;
}

/* Are there enemies of f's side it can see within the blast around h? */
static bool
targets_in_area(const struct game *g, int f, struct hex h)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (skm_alive(g, i) && g->units[i].side != g->units[f].side &&
		    skm_visible(g, g->units[f].side, i) &&
		    hex_distance(g->units[i].pos, h) <= 1)
			return true;
	return false;
}

/* Fire for effect of HE from f centred on h (radius 1 hex). */
static void
fire_for_effect(struct skm_res *r, int f, struct hex h)
{
	struct game *g = r->g;
	char p[80];
	int i, j, hit, kill, hits, kills, first, n;

	for (i = 0; i < g->nunits; i++) {
		if (!skm_alive(g, i) || hex_distance(g->units[i].pos, h) > 1)
			continue;
		reveal(r, i, "the barrage falls on it");
		skm_he_numbers(g, f, i, h, &hit, &kill);
		n = g->units[i].strength;
		hits = kills = 0;
		first = (int)r->c->dice->nlog + 1;
		if (hit <= 6) {
			purpose(r, p, sizeof p, "HE on %s: to hit",
			    g->units[i].id);
			for (j = 0; j < n; j++)
				if (dice_roll(r->c->dice, 6, hit, p) >= hit)
					hits++;
			purpose(r, p, sizeof p, "HE on %s: to kill",
			    g->units[i].id);
			for (j = 0; j < hits && kill <= 6; j++)
				if (dice_roll(r->c->dice, 6, kill, p) >= kill)
					kills++;
		}
		if (hit <= 6)
			events_add_rolls(r->c->ev, ALL, 0, first, n + (kill <= 6 ?
			    hits : 0), "HE on %s at %s: %d figures at %d+ to "
			    "hit, %d hit; %d+ to kill, %d kill%s.",
			    g->units[i].id, L(g, g->units[i].pos), n, hit, hits,
			    kill, kills, kills == 1 ? "" : "s");
		else
			events_add(r->c->ev, ALL, 0, "HE on %s at %s: needs %d "
			    "to hit, no effect.", g->units[i].id,
			    L(g, g->units[i].pos), hit);
		r->pending[i] += kills;
	}
}

/* 8.2: indirect HE or smoke of item it. */
static void
indirect(struct skm_res *r, const struct skm_item *it)
{
	struct game *g = r->g;
	int f = it->unit, s = it->spotter >= 0 ? it->spotter : f;
	struct hex mk, h = it->indhex;
	int st = skm_cf(g, f, &mk), n, v;
	bool smoke = it->ind == SKM_IND_SMOKE;
	char why[200];
	unsigned own = 1u << g->units[f].side;

	if (!smoke && st == 2 && hex_eq(mk, h) && targets_in_area(g, f, h)) {
		events_add(r->c->ev, ALL, 0, "HE continues on %s (fire for "
		    "effect, no roll).", L(g, h));
		fire_for_effect(r, f, h);
		return;
	}
	if (!smoke && st == 2 && hex_distance(mk, h) <= SKM_ADJUST_HEX &&
	    !hex_eq(mk, h) && skm_sight(g, g->units[f].pos,
	    g->units[f].x[SKM_X_FLOOR], h, 0) >= 0 &&
	    targets_in_area(g, f, h) && unit_at(g, h, 1 -
	    g->units[f].side) >= 0 && skm_visible(g, g->units[f].side,
	    unit_at(g, h, 1 - g->units[f].side))) {
		events_add(r->c->ev, ALL, 0, "HE adjusts from %s to %s (fire "
		    "for effect, no roll).", L(g, mk), L(g, h));
		skm_set_cf(g, f, h, 2);
		fire_for_effect(r, f, h);
		return;
	}
	if (!skm_alive(g, s) || skm_sight(g, g->units[s].pos,
	    g->units[s].x[SKM_X_FLOOR], h, 0) < 0) {
		events_add(r->c->ev, own, 0, "%s cannot call fire on %s: %s "
		    "does not see it.", g->units[f].id, L(g, h),
		    g->units[s].id);
		return;
	}
	n = skm_target_number(g, f, s, h, smoke, st == 1 && hex_eq(mk, h),
	    why, why_room(r, why, sizeof why));
	if (n < 1)
		n = 1;
	v = dice_roll(r->c->dice, 6, n <= 6 ? n : 0, smoke ? "smoke called" :
	    "HE called");
	events_add(r->c->ev, ALL, (int)r->c->dice->nlog, "%s called on %s: "
	    "%d, needs %d+ - %s.", smoke ? "Smoke" : "HE", L(g, h), v, n,
	    v >= n ? "on target" : "off target");
	events_add(r->c->ev, own, 0, "(%s fires, spotted by %s%s%s.)",
	    g->units[f].id, s == f ? "itself" : g->units[s].id,
	    why[0] ? "; " : "", why);
	if (v < n) {
		if (!smoke)
			skm_set_cf(g, f, h, 1);
		return;
	}
	if (smoke) {
		skm_set_smoke(g, h, 4);
		events_add(r->c->ev, ALL, 0, "Smoke +4 lands on %s.", L(g, h));
		return;
	}
	skm_set_cf(g, f, h, 2);
	fire_for_effect(r, f, h);
}

/* The fire of item it in the stationary phase (F orders: direct,
 * indirect, opportunity) or the moving phase (Move & Fire and Cautious
 * Advance orders with a target). */
static void
fire_item(struct skm_res *r, const struct skm_item *it, bool stationary)
{
	struct game *g = r->g;
	int f = it->unit;

	if (!stationary) {
		if ((it->order == 'M' || it->order == 'C') && active(r, it) &&
		    it->target >= 0 && skm_alive(g, it->target))
			direct_fire(r, f, it->target, g->units[it->target].pos,
			    false, "fires on the move at");
		return;
	}
	if (it->order != 'F' || !active(r, it))
		return;
	g->units[f].x[SKM_X_ORDER] = 'F';
	if (it->ind)
		indirect(r, it);
	else if (it->target >= 0 && skm_alive(g, it->target))
		direct_fire(r, f, it->target, g->units[it->target].pos, true,
		    "fires at");
	else if (it->opfire && r->optarget[f] >= 0 &&
	    skm_alive(g, r->optarget[f]))
		direct_fire(r, f, r->optarget[f], r->ophex[f], true,
		    "opportunity fire at");
}

/* The stationary or the moving fire phase: every item of both sides
 * (fire_item), then the kills. */
static void
fire_phase(struct skm_res *r, bool stationary)
{
	int s, j;

	events_phase(r->c->ev, stationary ? "Stationary fire" : "Moving fire");
	for (s = 0; s < 2; s++) {
		const struct skm_orders *o = r->o[s];

		for (j = 0; o != NULL && j < o->n; j++)
			fire_item(r, &o->it[j], stationary);
	}
	apply_kills(r);
}

/* One morale test of u; returns true if passed, worsening u otherwise. */
static bool
morale_test(struct skm_res *r, int u, int kills, bool severe)
{
	struct game *g = r->g;
	struct game_unit *x = &g->units[u];
	int n = skm_morale_number(g, u, kills, false, severe), v;
	char p[80];

	purpose(r, p, sizeof p, "%smorale %s", severe ? "force " : "", x->id);
	v = die(r, u, n <= 6 ? n : 0, p);
	if (v >= n || v == 6) {
		events_add_rolls(r->c->ev, seen_by(g, u), r->lastset,
		    r->lastseq, 1, "%s passes its %smorale test (%d, needs "
		    "%d+).", x->id, severe ? "severe " : "", v, n);
		return true;
	}
	x->status++;
	events_add_rolls(r->c->ev, seen_by(g, u), r->lastset, r->lastseq, 1,
	    "%s fails its %smorale test (%d, needs %d+): %s.", x->id,
	    severe ? "severe " : "", v, n, skm_morale_names[x->status]);
	return false;
}

/* 10.1: every element that lost figures this turn tests. */
static void
morale(struct skm_res *r)
{
	struct game *g = r->g;
	int i;

	events_phase(r->c->ev, "Morale");
	for (i = 0; i < g->nunits; i++)
		if (skm_alive(g, i) && g->units[i].x[SKM_X_KILLS] > 0)
			morale_test(r, i, g->units[i].x[SKM_X_KILLS], false);
}

/* The reaction of unit t to a close assault. */
static int
reaction(const struct skm_res *r, int t)
{
	int s = r->g->units[t].side, k, pass;

	char key[40];

	for (pass = 0; pass < 2; pass++) {
		const struct skm_orders *o = pass == 0 ? r->o[s] : r->st[s];

		for (k = 0; o != NULL && k < o->nreact; k++)
			if (o->react_unit[k] == t)
				return o->react[k];
	}
	/* The faithful mode's answer, kept until the melee. */
	snprintf(key, sizeof key, "ra.%s", r->g->units[t].id);
	if (game_var(r->g, key, 0) > 0)
		return game_var(r->g, key, 0) - 1;
	return SKM_R_STAND;
}

/* Was a reaction of unit t given in advance (orders or standing)? */
static bool
reaction_given(const struct skm_res *r, int t)
{
	int s = r->g->units[t].side, k, pass;

	for (pass = 0; pass < 2; pass++) {
		const struct skm_orders *o = pass == 0 ? r->o[s] : r->st[s];

		for (k = 0; o != NULL && k < o->nreact; k++)
			if (o->react_unit[k] == t)
				return true;
	}
	return false;
}

/* The faithful mode: mark (var rq.ID) each target of an assault that will
 * go in and whose reaction its side has not given; the sides to ask. */
static unsigned
react_asks(struct skm_res *r)
{
	struct game *g = r->g;
	unsigned mask = 0;
	char key[40];
	int s, j;

	for (s = 0; s < 2; s++) {
		const struct skm_orders *o = r->o[s];

		for (j = 0; o != NULL && j < o->n; j++) {
			int a = o->it[j].unit, t = o->it[j].assault;

			if (t < 0 || !skm_alive(g, a) || g->units[a].status !=
			    SKM_GOOD || !skm_alive(g, t) ||
			    !skm_visible(g, g->units[a].side, t) ||
			    reaction_given(r, t))
				continue;
			reveal(r, a, "it declares a close assault");
			snprintf(key, sizeof key, "rq.%s", g->units[t].id);
			game_set_var(g, key, 1);
			mask |= 1u << g->units[t].side;
			events_add(r->c->ev, ALL, 0, "%s is asked how %s reacts "
			    "to %s's close assault.",
			    g->sides[g->units[t].side].name, g->units[t].id,
			    g->units[a].id);
		}
	}
	return mask;
}

/* Is the faithful mode's question var PRE + u's id (rq., oq., mq.) set? */
static bool
asked_var(const struct game *g, const char *pre, int u)
{
	char key[40];

	snprintf(key, sizeof key, "%s%s", pre, g->units[u].id);
	return game_var(g, key, 0) != 0;
}

/* Is unit u asked for its reaction (faithful mode)? */
bool
skm_react_asked(const struct game *g, int u)
{
	return asked_var(g, "rq.", u);
}

/* Is unit u asked where to place its opportunity-fire marker? */
bool
skm_op_asked(const struct game *g, int u)
{
	return asked_var(g, "oq.", u);
}

/* How many hexes unit u entered in this turn's movement. */
int
skm_moved_n(const struct game *g, int u)
{
	char key[40];

	snprintf(key, sizeof key, "mv.%s.n", g->units[u].id);
	return game_var(g, key, 0);
}

/* The k-th hex unit u entered in this turn's movement. */
struct hex
skm_moved_hex(const struct game *g, int u, int k)
{
	char key[40];

	snprintf(key, sizeof key, "mv.%s.%d", g->units[u].id, k);
	return hdecode(g, game_var(g, key, 1));
}

/* Did unit u pass through h in this turn's movement? */
bool
skm_moved_through(const struct game *g, int u, struct hex h)
{
	int k, n;

	n = skm_moved_n(g, u);
	for (k = 0; k < n; k++)
		if (hex_eq(skm_moved_hex(g, u, k), h))
			return true;
	return false;
}

/* May f place a marker on t at h: sight and range (rng, or the weapon's)? */
bool
skm_op_ok(const struct game *g, int f, int t, struct hex h, int rng)
{
	struct skm_kind k;

	skm_kind_of(g, g->units[f].kind, &k);
	if (rng == 0 || rng > k.range)
		rng = k.range;
	return skm_sight(g, g->units[f].pos, g->units[f].x[SKM_X_FLOOR], h,
	    g->units[t].x[SKM_X_FLOOR]) >= 0 && hex_distance(g->units[f].pos,
	    h) <= rng;
}

/* The faithful mode: after side mover moved, mark (var oq.ID) each
 * element of the other side with an 'opfire' order that could place its
 * marker on a visible mover; the side to ask (0: none). */
static unsigned
op_asks(struct skm_res *r, int mover)
{
	struct game *g = r->g;
	const struct skm_orders *o = r->o[1 - mover];
	unsigned mask = 0;
	char key[40];
	int j, t, k, n;

	for (j = 0; o != NULL && j < o->n; j++) {
		const struct skm_item *it = &o->it[j];
		bool any = false;

		if (!it->opfire || !active(r, it))
			continue;
		for (t = 0; t < g->nunits && !any; t++) {
			if (!skm_alive(g, t) || g->units[t].side != mover ||
			    !skm_visible(g, 1 - mover, t))
				continue;
			n = skm_moved_n(g, t);
			for (k = 0; k < n && !any; k++)
				any = skm_op_ok(g, it->unit, t,
				    skm_moved_hex(g, t, k), it->oprange);
		}
		if (!any)
			continue;
		snprintf(key, sizeof key, "oq.%s", g->units[it->unit].id);
		game_set_var(g, key, 1);
		mask = 1u << (1 - mover);
	}
	if (mask)
		events_add(r->c->ev, ALL, 0, "%s is asked where to place its "
		    "Opportunity Fire markers.", g->sides[1 - mover].name);
	return mask;
}

/* Place the markers side answered (and clear what was asked). */
static void
op_apply(struct skm_res *r, const struct skm_orders *a)
{
	struct game *g = r->g;
	char key[40];
	int i, k;

	for (k = 0; a != NULL && k < a->nop; k++) {
		int f = a->op_unit[k], t = a->op_target[k];

		if (t < 0 || !skm_op_asked(g, f))
			continue;
		g->units[f].flags |= SKM_F_OPFIRE;
		snprintf(key, sizeof key, "op.%s", g->units[f].id);
		game_set_var(g, key, t + 1);
		snprintf(key, sizeof key, "oph.%s", g->units[f].id);
		game_set_var(g, key, hcode(g, a->op_hex[k]));
		events_add(r->c->ev, seen_by(g, f), 0, "%s places an "
		    "Opportunity Fire marker on %s at %s.", g->units[f].id,
		    g->units[t].id, L(g, a->op_hex[k]));
	}
	for (i = 0; i < g->nunits; i++)
		if (skm_op_asked(g, i)) {
			snprintf(key, sizeof key, "oq.%s", g->units[i].id);
			game_set_var(g, key, 0);
		}
}

/* Step u up to n hexes toward (closer) or away from unit v. */
static void
step_rel(struct skm_res *r, int u, int v, int n, bool closer)
{
	struct game *g = r->g;
	struct game_unit *x = &g->units[u];
	int k, d, k2, dirs[6];

	skm_dirs(g, x->side, dirs);
	for (k = 0; k < n; k++) {
		int cur = hex_distance(x->pos, g->units[v].pos), bestd = -1;

		if (closer && cur <= 1)
			break;
		for (k2 = 0; k2 < 6; k2++) {
			struct hex h;
			int hd;

			d = dirs[k2];
			h = hex_neighbour(x->pos, d);
			if (!game_on_map(g, h) || unit_at(g, h, -1) >= 0)
				continue;
			hd = hex_distance(h, g->units[v].pos);
			if (closer ? hd < cur : hd > cur) {
				cur = hd;
				bestd = d;
			}
		}
		if (bestd < 0)
			break;
		x->pos = hex_neighbour(x->pos, bestd);
		x->x[SKM_X_FLOOR] = 0;
	}
}

/* 9.1: one close assault of a on t. */
static void
assault(struct skm_res *r, int a, int t)
{
	struct game *g = r->g;
	struct game_unit *ua = &g->units[a], *ut = &g->units[t];
	int re, na, nt, ka = 0, kt = 0, i, first, ca, ct;
	char p[80];

	if (!skm_alive(g, a) || ua->status != SKM_GOOD || !skm_alive(g, t) ||
	    !skm_visible(g, ua->side, t) || hex_distance(ua->pos, ut->pos) >
	    SKM_CA_HEX) {
		events_add(r->c->ev, seen_by(g, a), 0, "%s's close assault on "
		    "%s does not go in (it must be unsuppressed and within "
		    "4\").", ua->id, ut->id);
		return;
	}
	reveal(r, a, "it charges");
	reveal(r, t, "it is charged");
	re = reaction(r, t);
	if (re == SKM_R_WITHDRAW && ut->status == SKM_GOOD) {
		struct hex from = ut->pos;

		step_rel(r, t, a, SKM_CA_HEX, false);
		events_add(r->c->ev, ALL, 0, "%s withdraws from %s to %s.",
		    ut->id, L(g, from), L(g, ut->pos));
		step_rel(r, a, t, SKM_CA_HEX, true);
		if (hex_distance(ua->pos, ut->pos) > 1) {
			events_add(r->c->ev, ALL, 0, "%s's close assault "
			    "finds no one: %s got away.", ua->id, ut->id);
			return;
		}
	} else if (re == SKM_R_COUNTER && ut->status == SKM_GOOD) {
		step_rel(r, t, a, SKM_CA_HEX, true);
		events_add(r->c->ev, ALL, 0, "%s counter-charges %s.", ut->id,
		    ua->id);
	} else
		step_rel(r, a, t, SKM_CA_HEX, true);
	if (hex_distance(ua->pos, ut->pos) > 1) {
		events_add(r->c->ev, ALL, 0, "%s cannot reach %s.", ua->id,
		    ut->id);
		return;
	}
	ca = skm_cc_number(g, a);
	ct = skm_cc_number(g, t);
	na = ua->strength;
	nt = ut->strength;
	first = (int)r->c->dice->nlog + 1;
	purpose(r, p, sizeof p, "close combat: %s", ua->id);
	for (i = 0; i < na; i++)
		if (dice_roll(r->c->dice, 6, ca, p) >= ca)
			kt++;
	purpose(r, p, sizeof p, "close combat: %s", ut->id);
	for (i = 0; i < nt; i++)
		if (dice_roll(r->c->dice, 6, ct, p) >= ct)
			ka++;
	if (kt > nt)
		kt = nt;
	if (ka > na)
		ka = na;
	events_add_rolls(r->c->ev, ALL, 0, first, na + nt, "Melee: %s (%d at "
	    "%d+) kills %d of %s; %s (%d at %d+) kills %d of %s.", ua->id,
	    na, ca, kt, ut->id, ut->id, nt, ct, ka, ua->id);
	ua->strength -= ka;
	ut->strength -= kt;
	if (ka != kt) {
		int l = ka > kt ? a : t, w = l == a ? t : a;

		if (skm_alive(g, l)) {
			g->units[l].status = SKM_BROKEN;
			events_add(r->c->ev, ALL, 0, "%s loses the melee and "
			    "breaks.", g->units[l].id);
			rout(r, l, SKM_CA_HEX);
		}
		(void)w;
	} else
		events_add(r->c->ev, ALL, 0, "The melee is drawn.");
	if (ua->strength <= 0)
		events_add(r->c->ev, ALL, 0, "%s is wiped out.", ua->id);
	if (ut->strength <= 0)
		events_add(r->c->ev, ALL, 0, "%s is wiped out.", ut->id);
}

/* Is unit u's assault one whose order is asked? */
bool
skm_melee_asked(const struct game *g, int u)
{
	return asked_var(g, "mq.", u);
}

/* Is unit u mid-turn (its turn-start hex recorded)? */
bool
skm_mid_turn(const struct game *g, int u)
{
	return g->units[u].x[SKM_X_START] > 0;
}

/* The item of side s whose element u assaults, or NULL. */
static const struct skm_item *
assault_of(const struct skm_res *r, int u)
{
	const struct skm_item *it = item_of(r, u);

	return it != NULL && it->assault >= 0 ? it : NULL;
}

/* 3.1 melee: the initiative winner's order (the faithful mode's answer
 * ord, n attackers) first, then the winner's assaults, then the
 * other's, each once. */
static void
melee_in(struct skm_res *r, const int *ord, int n)
{
	bool *done = xcalloc((size_t)r->g->nunits + 1, sizeof(bool));
	const struct skm_item *it;
	int k, j;

	events_phase(r->c->ev, "Melee");
	for (k = 0; k < n; k++)
		if ((it = assault_of(r, ord[k])) != NULL && !done[ord[k]]) {
			done[ord[k]] = true;
			assault(r, it->unit, it->assault);
		}
	for (k = 0; k < 2; k++) {
		int s = k ? 1 - r->winner : r->winner;
		const struct skm_orders *o = r->o[s];

		for (j = 0; o != NULL && j < o->n; j++)
			if (o->it[j].assault >= 0 && !done[o->it[j].unit]) {
				done[o->it[j].unit] = true;
				assault(r, o->it[j].unit, o->it[j].assault);
			}
	}
	free(done);
}

/* The faithful mode: mark (var mq.ID) the assaults that will go in when
 * there are two or more; the initiative winner is asked their order. */
static unsigned
melee_asks(struct skm_res *r)
{
	struct game *g = r->g;
	char key[40];
	int s, j, n = 0, k;
	int who[SKM_ITEMS_MAX * 2];

	for (s = 0; s < 2; s++) {
		const struct skm_orders *o = r->o[s];

		for (j = 0; o != NULL && j < o->n; j++) {
			int a = o->it[j].unit, t = o->it[j].assault;

			if (t < 0 || !skm_alive(g, a) || g->units[a].status !=
			    SKM_GOOD || !skm_alive(g, t) ||
			    hex_distance(g->units[a].pos, g->units[t].pos) >
			    SKM_CA_HEX)
				continue;
			who[n++] = a;
		}
	}
	if (n < 2)
		return 0;
	for (k = 0; k < n; k++) {
		snprintf(key, sizeof key, "mq.%s", g->units[who[k]].id);
		game_set_var(g, key, 1);
	}
	events_add(r->c->ev, ALL, 0, "%s is asked the order of the %d "
	    "melees.", g->sides[r->winner].name, n);
	return 1u << r->winner;
}

/* 3.1 melee in the default order. */
static void
melee(struct skm_res *r)
{
	melee_in(r, NULL, 0);
}

/* The elements of side lost (dispersed, wiped out) or broken. */
static int
lost_or_broken(const struct game *g, int side)
{
	int i, n = 0;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side == side && (!skm_alive(g, i) ||
		    g->units[i].status >= SKM_BROKEN))
			n++;
	return n;
}

/* Has g a var of the faithful mode's records end_turn clears (mv., op.,
 * ra.)? Without one it need not look each element's up. */
static bool
has_records(const struct game *g)
{
	int i;

	for (i = 0; i < g->nvars; i++) {
		const char *k = g->vars[i].key;

		if ((k[0] == 'm' && k[1] == 'v' && k[2] == '.') ||
		    (k[0] == 'o' && k[1] == 'p' && k[2] == '.') ||
		    (k[0] == 'r' && k[1] == 'a' && k[2] == '.'))
			return true;
	}
	return false;
}

/* 3.2 end turn. */
static void
end_turn(struct skm_res *r)
{
	struct game *g = r->g;
	char key[32];
	int s, i, v, turns = game_var(g, "turns", 8), d;
	bool records;

	events_phase(r->c->ev, "End turn");
	/* Automatic victory: a side with nothing left in good order (both
	 * at once: a draw, winner 3). */
	for (s = 0, v = 0; s < 2; s++) {
		char fk[24];

		snprintf(fk, sizeof fk, "force.%d", s);
		if (lost_or_broken(g, s) >= game_var(g, fk, 0)) {
			v |= 2 - s;
			events_add(r->c->ev, ALL, 0, "%s has no element left "
			    "in good order.", g->sides[s].name);
		}
	}
	if (v != 0) {
		game_set_var(g, "winner", v);
		events_add(r->c->ev, ALL, 0, v == 3 ? "Both forces are spent: "
		    "the game ends." : "Automatic victory for %s.",
		    g->sides[v - 1 < 2 ? v - 1 : 0].name);
	}
	/* 16.1 game end. */
	d = g->turn - turns;
	if (game_var(g, "winner", 0) == 0 && d >= 0) {
		if (d >= 3) {
			game_set_var(g, "ended", 1);
			events_add(r->c->ev, ALL, 0, "The game ends (turn %d + "
			    "3: automatic).", turns);
		} else {
			int top = d == 0 ? 1 : d == 1 ? 3 : 5;

			v = dice_roll(r->c->dice, 6, 0, "game end");
			events_add(r->c->ev, ALL, (int)r->c->dice->nlog, "Game "
			    "end roll: %d (the game ends on 1-%d).", v, top);
			if (v <= top)
				game_set_var(g, "ended", 1);
		}
	}
	/* Order markers go (with the faithful mode's records). */
	records = has_records(g);
	for (i = 0; i < g->nunits; i++) {
		char mk[40];

		g->units[i].x[SKM_X_START] = 0;
		if (!records)
			continue;
		snprintf(mk, sizeof mk, "mv.%s.n", g->units[i].id);
		if (game_var(g, mk, 0))
			game_set_var(g, mk, 0);
		snprintf(mk, sizeof mk, "op.%s", g->units[i].id);
		if (game_var(g, mk, 0))
			game_set_var(g, mk, 0);
		snprintf(mk, sizeof mk, "ra.%s", g->units[i].id);
		if (game_var(g, mk, 0))
			game_set_var(g, mk, 0);
	}
	for (i = 0; i < g->nunits; i++) {
		g->units[i].flags &= ~(unsigned)(SKM_F_MOVED | SKM_F_DOUBLE |
		    SKM_F_OPFIRE);
		g->units[i].x[SKM_X_ORDER] = 0;
		g->units[i].x[SKM_X_KILLS] = 0;
	}
	/* Smoke: +2 goes, +4 becomes +2 (no hex to look at without any). */
	for (i = 0; skm_smoke_any(g) && i < g->nhex; i++) {
		int sm = skm_smoke(g, g->hexes[i].h);

		if (sm == 2)
			skm_set_smoke(g, g->hexes[i].h, 0);
		else if (sm == 4)
			skm_set_smoke(g, g->hexes[i].h, 2);
	}
	/* Force Morale. */
	for (s = 0; s < 2; s++) {
		char fk[24];
		int bp;

		snprintf(fk, sizeof fk, "force.%d", s);
		bp = (game_var(g, fk, 0) * game_var(g, "break", 50) + 99) / 100;
		if (lost_or_broken(g, s) < bp || game_var(g, "winner", 0))
			continue;
		events_add(r->c->ev, ALL, 0, "%s is at its Force Break Point "
		    "(%d of %d elements lost or broken): severe morale "
		    "tests.", g->sides[s].name, lost_or_broken(g, s),
		    game_var(g, fk, 0));
		for (i = 0; i < g->nunits; i++)
			if (skm_alive(g, i) && g->units[i].side == s &&
			    g->units[i].status < SKM_BROKEN)
				morale_test(r, i, 0, true);
	}
	/* Objectives: held by the only side with an element in good order
	 * (not hidden) on it or next to it. */
	for (i = 0; i < game_var(g, "obj.n", 0); i++) {
		struct hex_offset off;
		struct hex h;
		unsigned near = 0;
		int j, now;

		snprintf(key, sizeof key, "obj.%d.hex", i);
		v = game_var(g, key, 0);
		off.row = v / 1000;
		off.col = v % 1000;
		h = hex_from_offset(&g->layout, off);
		for (j = 0; j < g->nunits; j++)
			if (skm_alive(g, j) && g->units[j].status < SKM_BROKEN &&
			    !(g->units[j].flags & SKM_F_HIDDEN) &&
			    hex_distance(g->units[j].pos, h) <= 1)
				near |= 1u << g->units[j].side;
		snprintf(key, sizeof key, "obj.%d", i);
		now = game_var(g, key, 0);
		if (near == 1u || near == 2u) {
			int hold = near == 1u ? 1 : 2;

			if (hold != now)
				events_add(r->c->ev, ALL, 0, "%s takes the "
				    "objective at %s.", g->sides[hold - 1].name,
				    L(g, h));
			game_set_var(g, key, hold);
		}
	}
}

/* Fire, morale, melee and the end of the turn (r's arrays freed). */
static void
after_movement(struct skm_res *r)
{
	fire_phase(r, true);
	fire_phase(r, false);
	morale(r);
	melee(r);
	end_turn(r);
	free(r->pending);
	free(r->optarget);
	free(r->ophex);
}

/* Ask side asked (askk 3 or 4) where its markers go. */
static enum resolve_rc
ask_op(struct skm_res *r, unsigned asked, int kind)
{
	struct game *g = r->g;

	game_set_var(g, "asked", (int)asked);
	game_set_var(g, "askk", kind);
	game_set_var(g, "wnum", game_var(g, "wnum", 1) + 1);
	r->c->ask = asked;
	return RESOLVE_ASK;
}

/* The faithful mode's steps 2-4: the first side moves, the second side
 * is asked for its markers; the second side moves, the first is asked;
 * then the markers fire with the rest of the turn. */
static enum resolve_rc
faithful_steps(struct skm_res *r)
{
	struct resolve_ctx *c = r->c;
	struct game *g = r->g;
	unsigned asked;
	char key[40];
	int i, kind = game_var(g, "askk", 0);

	if (c->resumed && (kind == 3 || kind == 4)) {
		op_apply(r, c->orders[kind == 3 ? 1 - r->first : r->first]);
		game_set_var(g, "asked", 0);
		game_set_var(g, "askk", 0);
	}
	if (c->step == 2) {
		movement(r, r->first);
		if ((asked = op_asks(r, r->first)) != 0)
			return ask_op(r, asked, 3);
		return RESOLVE_CONTINUE;
	}
	if (c->step == 3) {
		movement(r, 1 - r->first);
		if ((asked = op_asks(r, 1 - r->first)) != 0)
			return ask_op(r, asked, 4);
		return RESOLVE_CONTINUE;
	}
	r->pending = xcalloc((size_t)g->nunits + 1, sizeof(int));
	r->optarget = xcalloc((size_t)g->nunits + 1, sizeof(int));
	r->ophex = xcalloc((size_t)g->nunits + 1, sizeof(struct hex));
	for (i = 0; i < g->nunits; i++) {
		int t;

		snprintf(key, sizeof key, "op.%s", g->units[i].id);
		t = game_var(g, key, 0) - 1;
		r->optarget[i] = t;
		if (t >= 0) {
			snprintf(key, sizeof key, "oph.%s", g->units[i].id);
			r->ophex[i] = hdecode(g, game_var(g, key, 1));
		}
	}
	if (c->step == 4) {
		fire_phase(r, true);
		fire_phase(r, false);
		morale(r);
		free(r->pending);
		free(r->optarget);
		free(r->ophex);
		events_phase(c->ev, "Melee");
		if ((asked = melee_asks(r)) != 0)
			return ask_op(r, asked, 5);
		return RESOLVE_CONTINUE;
	}
	free(r->pending);
	free(r->optarget);
	free(r->ophex);
	{
		const struct skm_orders *a = NULL;

		if (c->resumed && kind == 5) {
			a = c->orders[r->winner];
			for (i = 0; i < g->nunits; i++)
				if (skm_melee_asked(g, i)) {
					snprintf(key, sizeof key, "mq.%s",
					    g->units[i].id);
					game_set_var(g, key, 0);
				}
			game_set_var(g, "asked", 0);
			game_set_var(g, "askk", 0);
		}
		melee_in(r, a != NULL ? a->melee : NULL, a != NULL ?
		    a->nmelee : 0);
	}
	end_turn(r);
	return RESOLVE_DONE;
}

/* Resolve the turn: step 0 spotting, rally and the initiative (in the
 * faithful mode it may stop to ask the winner), step 1 the close-assault
 * declarations (in the faithful mode it may stop to ask the targets how
 * they react), step 2 movement, fire, morale, melee and the end of the
 * turn. Nothing before a stop moves an element or changes what an order
 * may name, so the stopped window's orders parse again. After
 * a stop the orders are those of the window that stopped first; the
 * answers are in c->orders (var askk says which question: 1 initiative,
 * 2 reactions). */
static enum resolve_rc
resolve_step(struct resolve_ctx *c)
{
	struct skm_res r;
	struct game *g = c->g;
	int i;

	if (c->step > 5) {
		hp_seterr(c->err, HP_EINTERNAL, "skirmish-ww2: no step %d",
		    c->step);
		return RESOLVE_ERROR;
	}
	memset(&r, 0, sizeof r);
	r.c = c;
	r.g = g;
	for (i = 0; i < 2 && i < g->nsides; i++) {
		r.o[i] = c->resumed ? c->prior[i] : c->orders[i];
		r.st[i] = c->standing[i];
	}
	if (c->step == 0) {
		game_set_var(g, "wnum", 1);
		for (i = 0; i < g->nunits; i++)
			g->units[i].x[SKM_X_START] = hcode(g, g->units[i].pos);
		for (i = 0; i < 2; i++) {
			const struct skm_orders *o = r.o[i];
			int j;

			for (j = 0; o != NULL && j < o->n; j++)
				g->units[o->it[j].unit].x[SKM_X_ORDER] =
				    o->it[j].order;
		}
		spotting(&r);
		rally(&r);
		initiative(&r);
		if (r.ask != 0) {
			game_set_var(g, "askk", 1);
			game_set_var(g, "wnum", game_var(g, "wnum", 1) + 1);
			game_set_var(g, "asked", (int)r.ask);
			c->ask = r.ask;
			return RESOLVE_ASK;
		}
		return RESOLVE_CONTINUE;
	}
	r.winner = game_var(g, "ini.win", 0);
	r.first = game_var(g, "ini.first", r.winner);
	if (c->step == 1) {
		/* The initiative winner's answer; then, in the faithful mode,
		 * the targets of the declared close assaults are asked how
		 * they react ("Declare all CA before moving any troops"). */
		if (c->resumed && game_var(g, "askk", 0) == 1) {
			const struct skm_orders *a = c->orders[r.winner];
			int second = a != NULL && a->initiative == 1;

			r.first = second ? 1 - r.winner : r.winner;
			game_set_var(g, "ini.first", r.first);
			game_set_var(g, "asked", 0);
			game_set_var(g, "askk", 0);
			events_phase(c->ev, "Initiative");
			events_add(c->ev, ALL, 0, "%s chooses to move %s.",
			    g->sides[r.winner].name, second ? "second" :
			    "first");
		}
		if (game_option_flag(g, "faithful")) {
			events_phase(c->ev, "Close assault declarations");
			if ((r.ask = react_asks(&r)) != 0) {
				game_set_var(g, "asked", (int)r.ask);
				game_set_var(g, "askk", 2);
				game_set_var(g, "wnum", game_var(g, "wnum",
				    1) + 1);
				c->ask = r.ask;
				return RESOLVE_ASK;
			}
		}
		return RESOLVE_CONTINUE;
	}
	if (c->step == 2 && c->resumed && game_var(g, "askk", 0) == 2) {
		for (i = 0; i < 2; i++) {
			const struct skm_orders *a = c->orders[i];
			int k;

			for (k = 0; a != NULL && k < a->nreact; k++) {
				char key[40];

				snprintf(key, sizeof key, "ra.%s",
				    g->units[a->react_unit[k]].id);
				game_set_var(g, key, a->react[k] + 1);
			}
		}
		for (i = 0; i < g->nunits; i++)
			if (skm_react_asked(g, i)) {
				char key[40];

				snprintf(key, sizeof key, "rq.%s",
				    g->units[i].id);
				game_set_var(g, key, 0);
			}
		game_set_var(g, "asked", 0);
		game_set_var(g, "askk", 0);
	}
	if (game_option_flag(g, "faithful"))
		return faithful_steps(&r);
	r.pending = xcalloc((size_t)g->nunits + 1, sizeof(int));
	r.optarget = xcalloc((size_t)g->nunits + 1, sizeof(int));
	r.ophex = xcalloc((size_t)g->nunits + 1, sizeof(struct hex));
	for (i = 0; i < g->nunits; i++)
		r.optarget[i] = -1;
	movement(&r, r.first);
	movement(&r, 1 - r.first);
	after_movement(&r);
	(void)item_of;
	return RESOLVE_DONE;
}

/* One step of the turn (resolve_step) with the sight cache on c->g. */
enum resolve_rc
skm_resolve(struct resolve_ctx *c)
{
	enum resolve_rc rc;

	skm_sight_begin(c->g);
	rc = resolve_step(c);
	skm_sight_end();
	return rc;
}

/* After the window: the end of the game, or the next turn. */
void
skm_victory(struct game *g, struct events *ev)
{
	int w = game_var(g, "winner", 0), s, i, obj[2] = { 0, 0 };
	char key[32];

	if (w == 0 && !game_var(g, "ended", 0)) {
		g->turn++;
		return;
	}
	for (i = 0; i < game_var(g, "obj.n", 0); i++) {
		snprintf(key, sizeof key, "obj.%d", i);
		s = game_var(g, key, 0);
		if (s > 0)
			obj[s - 1]++;
	}
	if (w == 3)
		w = 0;
	else if (w == 0 && obj[0] != obj[1])
		w = obj[0] > obj[1] ? 1 : 2;
	g->status = GAME_FINISHED;
	for (i = 0; i < g->nunits; i++)
		g->units[i].flags &= ~(unsigned)SKM_F_HIDDEN;
	if (w)
		snprintf(g->result, sizeof g->result, "%s wins (objectives "
		    "%d-%d)", g->sides[w - 1].name, obj[0], obj[1]);
	else
		snprintf(g->result, sizeof g->result, "Draw (objectives "
		    "%d-%d)", obj[0], obj[1]);
	events_add(ev, ALL, 0, "The game ends: %s. Everything is revealed.",
	    g->result);
}
