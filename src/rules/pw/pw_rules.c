/* pw_rules: the resolution of one turn of Big Board Portable Wargame:
 * Modern (seed 002): artillery fire phase, initiative, the two sides'
 * activations (movement, firing, close combat, transport, engineering),
 * hits by quality and the exhaustion check. docs/rules/portable-wargame.md
 * maps each rule of the seed to the functions below. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pw.h"

#define ALL EVENT_ALL_SIDES

struct pw_res {
	struct resolve_ctx *c;
	struct game *g;
	const struct pw_orders *o[2];
};

/* Are the events of the resolution running on this thread quiet (a
 * simulation)? Then the hexes' labels and the reasons that only events
 * carry are not written. */
static _Thread_local bool quiet_text;

/* Add a modifier's words to mt (the dice line's text), unless nobody
 * reads it. */
#define MT(words) do { if (!quiet_text) strcat(mt, (words)); } while (0)

/* h's label in buf (8 bytes) for an event's text; "" when the events are
 * quiet. */
static const char *
lbl(const struct game *g, struct hex h, char *buf)
{
	if (quiet_text) {
		buf[0] = '\0';
		return buf;
	}
	return hex_label(&g->layout, h, buf, 8);
}

static const char *
side_name(const struct game *g, int side)
{
	return g->sides[side].name;
}

static int
roll(struct pw_res *r, int target, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Roll a d6 for the purpose fmt (not formatted when the events are quiet,
 * a simulation: the dice do not depend on it). */
static int
roll(struct pw_res *r, int target, const char *fmt, ...)
{
	char purpose[DICE_PURPOSE_MAX];
	va_list ap;

	purpose[0] = '\0';
	if (!r->c->ev->quiet) {
		va_start(ap, fmt);
		vsnprintf(purpose, sizeof purpose, fmt, ap);
		va_end(ap);
	}
	return dice_roll(r->c->dice, 6, target, purpose);
}

/* roll(r, target, fmt, ...) without the variadic call when the events
 * are quiet (the purpose is then "", as roll makes it). */
#define ROLL(r, target, ...) ((r)->c->ev->quiet ? \
	dice_roll((r)->c->dice, 6, (target), "") : \
	roll((r), (target), __VA_ARGS__))

/* events_add(r->c->ev, ...) with nothing evaluated when the events are
 * quiet (a simulation: no event is recorded, and the arguments only make
 * its text). */
#define EVENT(r, ...) do { \
	if (!(r)->c->ev->quiet) \
		events_add((r)->c->ev, __VA_ARGS__); \
} while (0)

static int
last_roll(const struct pw_res *r)
{
	return (int)r->c->dice->nlog;
}

/* The sides that may see an event about unit i now: its owner, and the
 * enemy if it can see the unit (fog of war: docs/rules/portable-wargame.md,
 * "What each side learns"). Only events use it: when they are quiet (a
 * simulation) nobody asks, and every side is answered. */
static unsigned
seen_by(const struct pw_res *r, int i)
{
	const struct game *g = r->g;
	const struct game_unit *u = &g->units[i];

	if (r->c->ev->quiet)
		return ALL;

	if (u->side < 0 || u->side > 1)
		return ALL;
	return (1u << u->side) | (pw_visible(g, 1 - u->side, i) ?
	    1u << (1 - u->side) : 0);
}

/* Only the owner of unit i. */
static unsigned
own(const struct game *g, int i)
{
	return 1u << g->units[i].side;
}

/* Is a friendly commander (other than unit i) in i's hex or adjacent? */
static bool
commander_near(const struct game *g, int i)
{
	const struct game_unit *u = &g->units[i];
	struct pw_unit_lists L;
	int j, d, k, h;

	/* The units in its hex and next to it, from the index. */
	if ((k = pw_unit_lists_at(g, u->pos, &L)) >= 0) {
		for (d = -1; d < 6; d++)
			for (j = (h = d < 0 ? k : L.nbr[k][d]) < 0 ? -1 :
			    L.head[h]; j >= 0; j = L.next[j]) {
				const struct game_unit *o = &g->units[j];

				if (j != i && o->side == u->side &&
				    pw_alive(o) && pw_is_commander(o))
					return true;
			}
		return false;
	}
	for (j = 0; j < g->nunits; j++) {
		const struct game_unit *o = &g->units[j];

		/* Where it stands first: the cheapest test. */
		if (j != i && o->side == u->side && (hex_eq(o->pos, u->pos) ||
		    hex_adjacent(o->pos, u->pos)) && pw_alive(o) &&
		    pw_is_commander(o))
			return true;
	}
	return false;
}

/* Is unit i crossing a ford or a trench ("turn A ... turn B")? */
static bool
crossing(const struct game *g, int i)
{
	return (g->units[i].flags & PW_F_CROSSING) != 0;
}

static void
follow_transport(struct game *g, int i)
{
	int j;

	/* Nothing to do for a unit that carries none (the index knows). */
	if (!pw_unit_carries(g, i))
		return;
	for (j = 0; j < g->nunits; j++)
		if (g->units[j].attached == i && g->units[j].placed) {
			g->units[j].pos = g->units[i].pos;
			g->units[j].facing = g->units[i].facing;
			pw_unit_moved(g, j);
		}
}

static enum pw_retreat
retreat_choice(const struct pw_res *r, int i)
{
	const struct pw_orders *o = r->o[r->g->units[i].side];

	if (o == NULL)
		return PW_RETREAT_ALWAYS;
	if (i < GAME_MAX_UNITS && i < o->nunit_retreat &&
	    o->unit_retreat[i] >= 0)
		return (enum pw_retreat)o->unit_retreat[i];
	return o->retreat;
}

/* A buffer of one int (or unsigned) per unit of g: small (SMALL_UNITS
 * entries, on the caller's stack) when there are that few units, else
 * allocated (unit_buf_free frees it). Not GAME_MAX_UNITS entries on the
 * stack: their pages would be probed at every call. */
#define SMALL_UNITS 128
static void *
unit_buf(void *small, const struct game *g)
{
	if (g->nunits <= SMALL_UNITS)
		return small;
	return xmalloc(sizeof(int) * (size_t)g->nunits);
}

static void
unit_buf_free(void *buf, void *small)
{
	if (buf != small)
		free(buf);
}

static void destroy(struct pw_res *, int i);
static void hit(struct pw_res *r, int i, bool can_destroy, const char *cause,
    bool moved_with);

/* Unit i has just entered h, how ("moves", "advances", "retreats"): a
 * minefield or a gas cloud there hits it. The seed: "A Unit may move
 * through a minefield without stopping but in doing so it is
 * automatically hit"; the same for a gas cloud, and for every way of
 * entering a hex (issue 13 item 3). The side now knows the minefield.
 * False if the unit is gone or was driven out of h. */
static bool
enter_hazards(struct pw_res *r, int i, struct hex h, const char *how)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[i];
	int m, gas = 0, k, j;
	struct pw_unit_lists L;
	char a[8];

	/* The minefield and whether a gas cloud is there, in one pass over
	 * the units in h when the index answers (the hit below moves no
	 * marker). */
	if ((k = pw_unit_lists_at(g, h, &L)) >= 0) {
		m = -1;
		for (j = L.head[k]; j >= 0; j = L.next[j]) {
			if (!pw_is_marker(&g->units[j]))
				continue;
			if (m < 0 && pw_kind_is(&g->units[j], PW_MINES))
				m = j;
			else if (pw_kind_is(&g->units[j], PW_GAS))
				gas = 1;
		}
	} else {
		m = pw_marker_at(g, h, PW_MINES);
		gas = -1;  /* looked up below */
	}
	if (m >= 0) {
		g->units[m].x[0] |= 1 << u->side;
		EVENT(r, seen_by(r, i), 0, "%s %s into the "
		    "minefield in %s.", u->id, how, lbl(g, h, a));
		hit(r, i, true, "the minefield", false);
	}
	if (pw_alive(u) && hex_eq(u->pos, h) && (gas < 0 ?
	    pw_marker_at(g, h, PW_GAS) >= 0 : gas)) {
		EVENT(r, seen_by(r, i), 0, "%s %s into the gas "
		    "cloud in %s.", u->id, how, lbl(g, h, a));
		hit(r, i, true, "the gas cloud", false);
	}
	return pw_alive(u) && hex_eq(u->pos, h);
}

/* Take one SP from unit i (unless it is a Tank Unit at its last SP and the
 * weapon cannot destroy tanks). */
static void
lose_sp(struct pw_res *r, int i, bool can_destroy, int rl, unsigned vis)
{
	struct game_unit *u = &r->g->units[i];

	if (!can_destroy && (pw_type(u)->cls & PW_C_TANK) && u->strength <= 1) {
		EVENT(r, vis, rl, "%s keeps its last SP: small arms "
		    "and machine guns cannot destroy Tank Units.", u->id);
		return;
	}
	u->strength--;
	if (u->strength > 0) {
		EVENT(r, vis, rl, "%s loses 1 SP (%d left).", u->id,
		    u->strength);
		return;
	}
	EVENT(r, vis, rl, "%s loses its last SP and is "
	    "destroyed.", u->id);
	destroy(r, i);
}

static void
destroy(struct pw_res *r, int i)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[i];
	unsigned small[SMALL_UNITS], *vis;
	int j;

	/* A unit that carries none (the index may know): nothing to leave
	 * or destroy with it. */
	if (!pw_unit_carries(g, i)) {
		u->strength = 0;
		u->placed = false;
		pw_unit_moved(g, i);
		j = u->attached;
		u->attached = -1;
		pw_unit_attached(g, i, j);
		return;
	}
	vis = unit_buf(small, g);
	for (j = 0; j < g->nunits && j < GAME_MAX_UNITS; j++)
		vis[j] = g->units[j].attached == i ? seen_by(r, j) : 0;
	u->strength = 0;
	u->placed = false;
	pw_unit_moved(g, i);
	j = u->attached;
	u->attached = -1;
	pw_unit_attached(g, i, j);
	for (j = 0; j < g->nunits && j < GAME_MAX_UNITS; j++) {
		struct game_unit *p = &g->units[j];

		if (p->attached != i)
			continue;
		p->attached = -1;
		pw_unit_attached(g, j, i);
		if (pw_kind(u) == PW_TANK || pw_kind(u) == PW_LTANK) {
			EVENT(r, vis[j], 0, "%s riding on %s is "
			    "destroyed with it.", p->id, u->id);
			p->strength = 0;
			p->placed = false;
			pw_unit_moved(g, j);
		} else
			EVENT(r, vis[j], 0, "%s, carried by %s, is "
			    "left in %s.", p->id, u->id,
			    lbl(g, p->pos, (char[8]){ 0 }));
	}
	unit_buf_free(vis, small);
}

/* Resolve a hit on unit i: one d6 read by its quality ("RESOLVING HITS ON
 * UNITS"), then a hit on every unit it carries or tows. moved_with: the
 * transport retreated in this same hit, so a retreat result is met. */
static void
hit(struct pw_res *r, int i, bool can_destroy, const char *cause,
    bool moved_with)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[i];
	static const int lose_max[3] = { 2, 3, 4 };
	static const char *const qname[3] = { "elite", "average", "poor" };
	int small[SMALL_UNITS], *carried, nc = 0, j, d, rl;
	bool retreated = false;
	unsigned vis;
	struct hex to;
	char a[8], b[8];

	if (!pw_alive(u))
		return;
	carried = unit_buf(small, g);
	/* The units it carries (none, the index may know). */
	for (j = pw_unit_carries(g, i) ? 0 : g->nunits;
	    j < g->nunits && nc < GAME_MAX_UNITS; j++)
		if (g->units[j].attached == i && pw_alive(&g->units[j]))
			carried[nc++] = j;
	vis = seen_by(r, i);
	d = ROLL(r, 0, "hit: the result for a unit hit, lose 1 SP on 1-2 "
	    "elite, 1-3 average, 1-4 poor, else retreat or lose 1 SP");
	rl = last_roll(r);
	if (d <= lose_max[u->status % 3]) {
		EVENT(r, vis, rl, "%s (%s) is hit by %s: rolls %d.",
		    u->id, qname[u->status % 3], cause, d);
		lose_sp(r, i, can_destroy, rl, vis);
	} else {
		/* Every quality: survives but must retreat or lose 1 SP (the
		 * Elite row's reading, docs/rules/portable-wargame.md). */
		enum pw_retreat ch = retreat_choice(r, i);

		EVENT(r, vis, rl, "%s (%s) is hit by %s: rolls %d, "
		    "must retreat 1 hex or lose 1 SP.", u->id,
		    qname[u->status % 3], cause, d);
		if (u->attached >= 0) {
			if (moved_with)
				EVENT(r, vis, 0, "%s retreated with "
				    "its transport.", u->id);
			else {
				EVENT(r, vis, 0, "%s is carried and "
				    "cannot retreat alone.", u->id);
				lose_sp(r, i, can_destroy, 0, vis);
			}
		} else if (ch == PW_RETREAT_NEVER ||
		    (ch == PW_RETREAT_COVER && pw_cover(g, u->pos))) {
			EVENT(r, vis, 0, "%s stands (retreat %s).",
			    u->id, ch == PW_RETREAT_NEVER ? "never" : "cover");
			lose_sp(r, i, can_destroy, 0, vis);
		} else if (!pw_retreat_hex(g, i, &to)) {
			EVENT(r, vis, 0, "%s has no empty hex to "
			    "retreat to that is not next to an enemy.", u->id);
			lose_sp(r, i, can_destroy, 0, vis);
		} else {
			struct hex from = u->pos;
			unsigned after;

			u->pos = to;
			pw_unit_moved(g, i);
			u->flags &= ~(PW_F_CROSSING | PW_F_SETTLING);
			follow_transport(g, i);
			/* The enemy sees where it went only if it can see
			 * it there. */
			after = seen_by(r, i);
			EVENT(r, after, 0, "%s retreats %s -> %s.",
			    u->id, lbl(g, from, a), lbl(g, to, b));
			if (vis & ~after)
				EVENT(r, vis & ~after, 0, "%s "
				    "falls back out of sight.", u->id);
			retreated = true;
			enter_hazards(r, i, to, "retreats");
		}
	}
	for (j = 0; j < nc; j++) {
		char why[64];

		if (!pw_alive(&g->units[carried[j]]))
			continue;
		/* The cause is only an event's text. */
		why[0] = '\0';
		if (!r->c->ev->quiet)
			snprintf(why, sizeof why, "the hit on its transport %s",
			    u->id);
		hit(r, carried[j], true, why, retreated);
	}
	unit_buf_free(carried, small);
}

/* Hit every unit in h (not those carried: the hit on a transport reaches
 * them). */
static void
hit_hex(struct pw_res *r, struct hex h, int only_enemy_of, bool can_destroy,
    const char *cause)
{
	struct game *g = r->g;
	int small[SMALL_UNITS], *list = unit_buf(small, g), n = 0, i, k;
	struct pw_unit_lists L;

	/* The units in h from the index (in unit order), else a scan. */
	if ((k = pw_unit_lists_at(g, h, &L)) >= 0) {
		for (i = L.head[k]; i >= 0; i = L.next[i]) {
			const struct game_unit *u = &g->units[i];

			if (pw_alive(u) && u->attached < 0 &&
			    u->side != only_enemy_of)
				list[n++] = i;
		}
	} else
		for (i = 0; i < g->nunits; i++) {
			const struct game_unit *u = &g->units[i];

			if (hex_eq(u->pos, h) && pw_alive(u) &&
			    u->attached < 0 && u->side != only_enemy_of)
				list[n++] = i;
		}
	for (i = 0; i < n; i++) {
		bool cd = can_destroy;

		hit(r, list[i], cd, cause, false);
	}
	unit_buf_free(list, small);
}

/* --- artillery phase ---------------------------------------------------- */

/* Write the reason why (len bytes) from fmt; nothing when why is NULL
 * (the opponent asks only whether, and formatting is costly). */
static void say(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Can artillery unit i fire at target now? why says why not (why NULL:
 * the reason is not wanted). */
bool
pw_art_can_fire(const struct game *g, int i, struct hex target, char *why,
    size_t len)
{
	const struct game_unit *u = &g->units[i];
	const struct pw_type *t = pw_type(u);
	struct hex second = target, penult = target;
	int d = hex_distance(u->pos, target), n, tu;

	if (!pw_alive(u)) {
		say(why, len, "it has been destroyed");
		return false;
	}
	if (u->attached >= 0) {
		say(why, len, "it is limbered (towed)");
		return false;
	}
	if (d < 1 || d > t->range) {
		say(why, len, "range %d, %s reaches %d", d, t->name,
		    t->range);
		return false;
	}
	if (!pw_in_arc(u->facing, u->pos, target)) {
		say(why, len, "the target is outside its 120 degree arc");
		return false;
	}
	/* The terrain of its hex, looked up once; the line is wanted only
	 * out of an area. */
	tu = pw_terrain(g, u->pos);
	if ((tu == PW_T_WOOD || tu == PW_T_BUA || tu == PW_T_FORT) &&
	    (n = pw_line_ends(g, u->pos, target, &second, &penult)) > 1 &&
	    !hex_eq(second, target) && pw_area(g, second)) {
		say(why, len, "it is not on the edge of its wood, "
		    "built-up area or fortification");
		return false;
	}
	if (!(t->cls & PW_C_STAR) && !pw_los_side(g, u->pos, target, u->side)) {
		say(why, len, "it fires only directly and the line is "
		    "blocked");
		return false;
	}
	if (tu == PW_T_FORD) {
		say(why, len, "units in rivers may not fire");
		return false;
	}
	return true;
}

/* Does a friendly Artillery Spotter of side have direct line of sight to
 * h? */
static bool
spotter_sees(const struct game *g, int side, struct hex h)
{
	int j;

	for (j = 0; j < g->nunits; j++) {
		const struct game_unit *o = &g->units[j];

		if (o->side == side && pw_alive(o) && pw_is_spotter(o) &&
		    pw_sees(g, o->pos, h))
			return true;
	}
	return false;
}

struct landing {
	int unit;
	struct hex at;
	bool on_map;
	bool gas;
	struct hex front;   /* gas: the direction of "in front" */
};

static void
gas_drift(struct pw_res *r)
{
	struct game *g = r->g;
	int i, d;
	char a[8], b[8];

	for (i = 0; i < g->nunits; i++) {
		struct game_unit *m = &g->units[i];
		struct hex to, dir;

		if (!m->placed || !pw_kind_is(m, PW_GAS))
			continue;
		if (--m->x[0] <= 0) {
			m->placed = false;
			pw_unit_moved(g, i);
			EVENT(r, ALL, 0, "The gas cloud in %s "
			    "disperses.", lbl(g, m->pos, a));
			continue;
		}
		dir.q = m->x[1];
		dir.r = m->x[2];
		d = ROLL(r, 0, "gas cloud drift: 5-6 stays, 2/4 forward, 1/3 "
		    "back");
		if (d >= 5) {
			EVENT(r, ALL, last_roll(r), "The gas cloud "
			    "in %s rolls %d and stays.", lbl(g, m->pos, a), d);
			continue;
		}
		to = (d == 2 || d == 4) ? hex_add(m->pos, dir) :
		    hex_sub(m->pos, dir);
		EVENT(r, ALL, last_roll(r), "The gas cloud in %s "
		    "rolls %d and drifts %s to %s.", lbl(g, m->pos, a), d,
		    (d == 2 || d == 4) ? "forward" : "back", lbl(g, to, b));
		if (!game_on_map(g, to)) {
			m->placed = false;
			pw_unit_moved(g, i);
			continue;
		}
		m->pos = to;
		pw_unit_moved(g, i);
		hit_hex(r, to, -1, true, "the gas cloud");
	}
}

static void
phase_artillery(struct pw_res *r)
{
	struct game *g = r->g;
	struct landing land[2 * PW_SHOTS_MAX];
	int nl = 0, s, k, d, score;
	char a[8], b[8], why[160], mt[64];

	events_phase(r->c->ev, "1. Artillery fire phase");
	gas_drift(r);
	for (s = 0; s < 2; s++) {
		const struct pw_orders *o = r->o[s];

		for (k = 0; o != NULL && k < o->nshot; k++) {
			const struct pw_shot *sh = &o->shot[k];
			struct game_unit *u = &g->units[sh->unit];
			struct landing *L = &land[nl];
			bool direct, sees;
			struct hex front;

			/* The reason is only an event's text. */
			why[0] = '\0';
			if (!pw_art_can_fire(g, sh->unit, sh->target,
			    quiet_text ? NULL : why, sizeof why)) {
				EVENT(r, own(g, sh->unit), 0, "%s "
				    "cannot fire at %s: %s.", u->id,
				    lbl(g, sh->target, a), why);
				continue;
			}
			/* Nothing changes between the shot's questions: each
			 * is asked once. */
			sees = pw_sees(g, u->pos, sh->target);
			direct = sees && pw_los_side(g, u->pos, sh->target,
			    u->side);
			score = 0;
			mt[0] = '\0';
			if (pw_cover(g, sh->target)) {
				score -= 1;
				MT(" -1 cover");
			}
			if (sees || spotter_sees(g, s, sh->target)) {
				score += 2;
				MT(" +2 seen");
			}
			if (u->x[PW_X_LASTT] == g->turn - 1 &&
			    u->x[PW_X_LASTQ] == sh->target.q &&
			    u->x[PW_X_LASTR] == sh->target.r) {
				score += 1;
				MT(" +1 same target");
			}
			if (commander_near(g, sh->unit)) {
				score += 1;
				MT(" +1 commander");
			}
			/* The dice line says what decides the landing, with
			 * the modifiers the event adds (issue 13 item 5). */
			d = ROLL(r, 0, "%s artillery: lands 5+ on target, 2/4 in "
			    "front, 1/3 behind%s%s", side_name(g, s),
			    mt[0] ? ", with" : "", mt);
			u->flags |= PW_F_FIRED | PW_F_ARTFIRED;
			u->x[PW_X_LASTQ] = sh->target.q;
			u->x[PW_X_LASTR] = sh->target.r;
			u->x[PW_X_LASTT] = g->turn;
			if (sh->gas)
				u->flags |= PW_F_GAS;
			L->unit = sh->unit;
			L->gas = sh->gas;
			front = pw_in_front(sh->target, u->pos);
			L->front = hex_sub(front, sh->target);
			if (d + score >= 5)
				L->at = sh->target;
			else if (d + score == 2 || d + score == 4)
				L->at = front;
			else if (d + score >= 1)
				/* pw_behind: the hex past the target from the
				 * one in front. */
				L->at = hex_add(sh->target, hex_sub(sh->target,
				    front));
			else {
				EVENT(r, ALL, last_roll(r), "%s fires "
				    "%sat %s (%s fire): rolls %d%+d = %d, "
				    "totally ineffective.", u->id,
				    sh->gas ? "a gas shell " : "",
				    lbl(g, sh->target, a),
				    direct ? "direct" : "indirect", d, score,
				    d + score);
				continue;
			}
			L->on_map = game_on_map(g, L->at);
			EVENT(r, ALL, last_roll(r), "%s fires %sat %s "
			    "(%s fire): rolls %d%+d = %d, lands %s%s%s.", u->id,
			    sh->gas ? "a gas shell " : "", lbl(g, sh->target, a),
			    direct ? "direct" : "indirect", d, score, d + score,
			    d + score >= 5 ? "on the target" : (d + score == 2 ||
			    d + score == 4) ? "in front of it in " :
			    "behind it in ", d + score >= 5 ? "" : lbl(g, L->at,
			    b), L->on_map ? "" : " (off the map)");
			nl++;
		}
	}
	if (nl == 0)
		EVENT(r, ALL, 0, "No artillery fires.");
	/* Effects after all artillery has fired. */
	for (k = 0; k < nl; k++) {
		char cause[64];

		if (!land[k].on_map)
			continue;
		cause[0] = '\0';
		if (!r->c->ev->quiet)  /* only an event's text */
			snprintf(cause, sizeof cause, "%s from %s",
			    land[k].gas ? "gas" : "artillery fire",
			    g->units[land[k].unit].id);
		if (land[k].gas) {
			int m = pw_add_marker(g, PW_GAS, g->units[land[k].unit].side,
			    land[k].at);

			g->units[m].x[0] = 3;
			g->units[m].x[1] = land[k].front.q;
			g->units[m].x[2] = land[k].front.r;
			EVENT(r, ALL, 0, "A gas cloud forms in %s.",
			    lbl(g, land[k].at, a));
		}
		hit_hex(r, land[k].at, -1, true, cause);
	}
}

/* --- initiative and activation ------------------------------------------- */

static void
phase_initiative(struct pw_res *r)
{
	struct game *g = r->g;
	int b, d, tries;

	events_phase(r->c->ev, "2. Initiative");
	for (tries = 0; tries < 50; tries++) {
		b = ROLL(r, 0, "initiative: %s", side_name(g, PW_BLUE));
		d = ROLL(r, 0, "initiative: %s", side_name(g, PW_RED));
		if (b != d) {
			game_set_var(g, "first", b > d ? PW_BLUE : PW_RED);
			EVENT(r, ALL, last_roll(r), "Initiative: %s "
			    "%d, %s %d: %s moves first.", side_name(g, PW_BLUE),
			    b, side_name(g, PW_RED), d,
			    side_name(g, b > d ? PW_BLUE : PW_RED));
			return;
		}
		EVENT(r, ALL, last_roll(r), "Initiative: both roll "
		    "%d; roll again.", b);
	}
	game_set_var(g, "first", PW_BLUE);
}

/* May unit i end its move in h (stacking, enemies)? */
static bool
may_end_in(const struct game *g, int i, struct hex h)
{
	const struct game_unit *u = &g->units[i];
	bool exempt = (pw_type(u)->cls & (PW_C_TRANSPORT | PW_C_EXEMPT)) != 0,
	    indexed;
	struct pw_unit_lists L;
	int j, k;

	/* The units in h from the index, else a scan. */
	indexed = (k = pw_unit_lists_at(g, h, &L)) >= 0;
	for (j = indexed ? L.head[k] : 0; indexed ? j >= 0 : j < g->nunits;
	    j = indexed ? L.next[j] : j + 1) {
		const struct game_unit *o = &g->units[j];

		if (j == i || !hex_eq(o->pos, h) || !pw_alive(o) ||
		    o->attached >= 0)
			continue;
		if (o->side != u->side)
			return false;
		if (!exempt && !(pw_type(o)->cls & (PW_C_TRANSPORT |
		    PW_C_EXEMPT)))
			return false;
	}
	return true;
}

static bool
enemy_in(const struct game *g, int side, struct hex h)
{
	struct pw_unit_lists L;
	int j, k;

	if ((k = pw_unit_lists_at(g, h, &L)) >= 0) {
		for (j = L.head[k]; j >= 0; j = L.next[j])
			if (g->units[j].side != side && pw_alive(&g->units[j]))
				return true;
		return false;
	}
	for (j = 0; j < g->nunits; j++)
		if (hex_eq(g->units[j].pos, h) && g->units[j].side != side &&
		    pw_alive(&g->units[j]))
			return true;
	return false;
}

/* An enemy of unit i adjacent to h, preferring one whose front faces h;
 * -1 if none. */
static int
adjacent_enemy(const struct game *g, int side, struct hex h, bool facing_only)
{
	int j, any = -1, arc = -1, d, k;
	struct pw_unit_lists L;

	/* The units next to h from the index: the first (by index) whose
	 * front faces h, else the first, as the scan finds them. */
	if ((k = pw_unit_lists_at(g, h, &L)) >= 0) {
		for (d = 0; d < 6; d++)
			for (j = L.nbr[k][d] < 0 ? -1 : L.head[L.nbr[k][d]];
			    j >= 0; j = L.next[j]) {
				const struct game_unit *o = &g->units[j];

				if (o->side == side || !pw_alive(o) ||
				    o->attached >= 0)
					continue;
				if ((arc < 0 || j < arc) &&
				    pw_in_arc(o->facing, o->pos, h))
					arc = j;
				if (any < 0 || j < any)
					any = j;
			}
		return arc >= 0 ? arc : facing_only ? -1 : any;
	}
	for (j = 0; j < g->nunits; j++) {
		const struct game_unit *o = &g->units[j];

		if (o->side == side || !hex_adjacent(o->pos, h) ||
		    !pw_alive(o) || o->attached >= 0)
			continue;
		if (pw_in_arc(o->facing, o->pos, h))
			return j;
		if (!facing_only && any < 0)
			any = j;
	}
	return any;
}

/* Move unit i along path (the seed's movement rules a-h, the withdrawal
 * rule and the special terrain rules). face: the facing asked for, -1. */
static void
do_move(struct pw_res *r, int i, const struct pw_clause *c, int face)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[i];
	const struct pw_type *t = pw_type(u);
	struct hex path[PW_PATH_MAX], start = u->pos, prev;
	int allow, n = 0, k, stopper = -1, pin, steps;
	/* adjacent_enemy(g, u->side, path[k], false) as the dry run found
	 * it: only the unit and what it carries move or are hit on the way,
	 * so it is still the answer where the move ends. */
	int stop_at[PW_PATH_MAX];
	int terr_at[PW_PATH_MAX];  /* pw_terrain of path[k] */
	bool road = pw_road(g, start), wood_start = pw_terrain(g, start) ==
	    PW_T_WOOD, withdrawing, exhausted;
	char a[8], b[8], whybuf[96];
	const char *why = NULL, *spent = "its movement allowance is spent";

	if (u->flags & PW_F_MOVED) {
		EVENT(r, own(g, i), 0, "%s has already moved this "
		    "turn.",
		    u->id);
		return;
	}
	if ((u->flags & PW_F_ARTFIRED) && !(t->cls & PW_C_SELFPROP)) {
		EVENT(r, own(g, i), 0, "%s fired in the artillery phase "
		    "and may not move.", u->id);
		return;
	}
	if (u->attached >= 0) {
		EVENT(r, own(g, i), 0, "%s is carried and does not move "
		    "by itself.", u->id);
		return;
	}
	for (k = 0; k < c->n; k++)
		road = road && pw_road(g, c->h[k]);
	allow = t->move + (road ? 1 : 0) - ((u->flags & PW_F_FIRED) ? 1 : 0);
	if (u->flags & PW_F_FIRED)
		spent = "its movement allowance is spent (firing costs a hex)";
	/* The stop names its cause (issue 13 item 9). */
	if ((wood_start || crossing(g, i)) && allow > 1) {
		allow = 1;
		spent = wood_start ? "1 hex out of a wood" : "1 hex on from a "
		    "ford or trench it is crossing";
	}
	pin = adjacent_enemy(g, u->side, start, true);
	withdrawing = pin >= 0;
	/* Nothing in the dry run below changes it. */
	exhausted = pw_exhausted(g, u->side);
	/* Dry run: where does the unit stop? */
	prev = start;
	for (k = 0; k < c->n && n < allow; k++) {
		struct hex h = c->h[k];
		int tt = pw_terrain(g, h), w;

		if (!hex_adjacent(prev, h)) {
			why = "the path is broken";
			break;
		}
		if (tt < 0 || tt == PW_T_RIVER) {
			why = tt < 0 ? "off the map" : "a river (cross at a ford)";
			break;
		}
		if (enemy_in(g, u->side, h)) {
			snprintf(whybuf, sizeof whybuf, "an enemy unit is in %s",
			    lbl(g, h, a));
			why = whybuf;
			break;
		}
		/* Towards the enemy the side sees: hidden units are not
		 * known to it (fog of war, issue 13 item 8). */
		if (exhausted &&
		    pw_nearest_seen_enemy(g, u->side, h) <
		    pw_nearest_seen_enemy(g, u->side, start)) {
			why = "the side is exhausted: no move towards the "
			    "enemy";
			break;
		}
		if (withdrawing) {
			w = adjacent_enemy(g, u->side, h, true);
			if (w >= 0 && w != pin && !hex_adjacent(g->units[w].pos,
			    start)) {
				why = "a withdrawal may not end next to the front "
				    "of another enemy unit";
				break;
			}
		}
		terr_at[n] = tt;
		path[n++] = h;
		prev = h;
		if ((stopper = stop_at[n - 1] = adjacent_enemy(g, u->side, h,
		    false)) >= 0) {
			why = "next to an enemy unit";
			break;
		}
		stopper = -1;
		if (tt == PW_T_WOOD) {
			why = "entered a wood";
			break;
		}
		if (tt == PW_T_FORD || tt == PW_T_TRENCH) {
			why = tt == PW_T_FORD ? "entered the river at a ford" :
			    "entered a trench";
			break;
		}
		if (pw_marker_at(g, h, PW_WIRE) >= 0 && !(t->cls & PW_C_WIRE)) {
			why = "stopped by barbed wire";
			break;
		}
	}
	if (n < c->n && why == NULL)
		why = spent;
	/* Stacking: back up to the last hex it may end in. */
	while (n > 0 && !may_end_in(g, i, path[n - 1])) {
		n--;
		why = "no stacking with friendly units";
		stopper = -1;
	}
	if (n == 0) {
		EVENT(r, 1u << u->side, 0, "%s cannot move from %s (%s).",
		    u->id, lbl(g, start, a), why ? why : "no path");
		return;
	}
	u->flags |= PW_F_MOVED;
	u->flags &= ~(PW_F_CROSSING | PW_F_SETTLING);
	if (n >= t->move + (road ? 1 : 0))
		u->flags |= PW_F_FULLMOVE;
	steps = n;
	for (k = 0; k < steps; k++) {
		int tt = terr_at[k];

		u->facing = hex_direction_to(u->pos, path[k]);
		u->pos = path[k];
		pw_unit_moved(g, i);
		follow_transport(g, i);
		if (tt == PW_T_FORD || tt == PW_T_TRENCH)
			u->flags |= PW_F_CROSSING;
		if (!enter_hazards(r, i, path[k], "moves"))
			break;
	}
	if (!pw_alive(u))
		return;
	if (k < steps) {
		EVENT(r, seen_by(r, i), 0, "%s's move ends: it fell "
		    "back to "
		    "%s.", u->id, lbl(g, u->pos, a));
		return;
	}
	/* u->pos is path[steps - 1] (k == steps). */
	if ((stopper = stop_at[steps - 1]) >= 0) {
		u->facing = pw_dir_towards(u->pos, g->units[stopper].pos);
		why = "next to an enemy unit";
	} else if (face >= 0)
		u->facing = face;
	follow_transport(g, i);
	EVENT(r, seen_by(r, i), 0, "%s moves %s -> %s (%d hex%s)%s%s%s, "
	    "facing %s.", u->id, lbl(g, start, a), lbl(g, u->pos, b), steps,
	    steps == 1 ? "" : "es",
	    why ? " and stops: " : "", why ? why : "",
	    withdrawing ? " (a withdrawal)" : "", pw_dir_name(g, u->facing));
}

/* Can unit i fire at h in its activation? why says why not (why NULL:
 * the reason is not wanted). */
bool
pw_can_fire(const struct game *g, int i, struct hex h, int *range, char *why,
    size_t len)
{
	const struct game_unit *u = &g->units[i];
	const struct pw_type *t = pw_type(u);
	struct hex second = h, penult = h;
	/* The terrain of its hex and of h, each looked up once. */
	int d = hex_distance(u->pos, h), n, j, tu = pw_terrain(g, u->pos), th;
	bool seen = false, area_u = tu == PW_T_WOOD || tu == PW_T_BUA ||
	    tu == PW_T_FORT, area_h;

	*range = t->range;
	/* Out of range whatever the line: every check below says no then,
	 * so a caller that does not want the reason (why NULL) has its
	 * answer before the others are made. */
	if (why == NULL && (d < 1 || (d > t->range && tu != PW_T_WOOD)))
		return false;
	if (t->weapon == PW_W_NONE || (t->cls & PW_C_ART)) {
		say(why, len, "%s do not fire in the activation phase",
		    t->name);
		return false;
	}
	if (u->flags & PW_F_FIRED) {
		say(why, len, "it has already fired this turn");
		return false;
	}
	if (u->flags & PW_F_FULLMOVE) {
		say(why, len, "it moved its whole allowance and firing "
		    "costs a hex of movement");
		return false;
	}
	if (u->attached >= 0) {
		say(why, len, "it is carried");
		return false;
	}
	if (tu == PW_T_FORD) {
		say(why, len, "units in rivers may not fire");
		return false;
	}
	if (crossing(g, i) && tu == PW_T_TRENCH) {
		say(why, len, "units crossing trenches may not fire");
		return false;
	}
	/* Out of range whatever the line (a wood only shortens the range):
	 * no line drawn. */
	if (d < 1 || (d > t->range && tu != PW_T_WOOD)) {
		say(why, len, "range %d, it reaches %d", d, *range);
		return false;
	}
	th = pw_terrain(g, h);
	area_h = th == PW_T_WOOD || th == PW_T_BUA || th == PW_T_FORT;
	/* The line is wanted only from or into an area (a wood is one). */
	n = area_u || area_h ? pw_line_ends(g, u->pos, h, &second, &penult) :
	    0;
	if (tu == PW_T_WOOD && n > 1 && pw_terrain(g, second) == PW_T_WOOD)
		*range = 1;
	if (d < 1 || d > *range) {
		say(why, len, "range %d, it reaches %d", d, *range);
		return false;
	}
	if (!(t->cls & PW_C_360) && !pw_in_arc(u->facing, u->pos, h)) {
		say(why, len, "the target is outside its 120 degree arc");
		return false;
	}
	if (area_u && n > 1 && !hex_eq(second, h) && pw_area(g, second)) {
		say(why, len, "it is not on the edge of its wood, "
		    "built-up area or fortification");
		return false;
	}
	if (area_h && n > 2 && pw_area(g, penult)) {
		say(why, len, "fire reaches only 1 hex into woods, "
		    "built-up areas and fortifications");
		return false;
	}
	if (t->weapon != PW_W_MORTAR) {
		if (!pw_los_side(g, u->pos, h, u->side)) {
			say(why, len, "no direct line of sight");
			return false;
		}
		return true;
	}
	/* Mortars: over units; the target seen by the mortar, an adjacent
	 * friendly unit, or a spotter or commander with it or adjacent. */
	if (pw_los(g, u->pos, h, false))
		seen = true;
	for (j = 0; j < g->nunits && !seen; j++) {
		const struct game_unit *o = &g->units[j];

		if (j == i || o->side != u->side || !pw_alive(o))
			continue;
		if ((hex_adjacent(o->pos, u->pos) || ((pw_kind(o) == PW_SPOTTER
		    || pw_kind(o) == PW_CMD) && hex_eq(o->pos, u->pos))) &&
		    pw_los(g, o->pos, h, false))
			seen = true;
	}
	if (!seen)
		say(why, len, "nobody in reach of the mortar sees the "
		    "target");
	return seen;
}

static void
do_fire(struct pw_res *r, int i, struct hex h)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[i];
	const struct pw_type *t = pw_type(u);
	int range, dice = t->weapon == PW_W_MG ? 3 : 1, k, d, mod = 0, hits = 0;
	bool can_destroy = t->weapon != PW_W_SMALL && t->weapon != PW_W_MG;
	char a[8], why[160], cause[64], mt[64];

	/* The reason is only an event's text. */
	why[0] = '\0';
	if (!pw_can_fire(g, i, h, &range, quiet_text ? NULL : why,
	    sizeof why)) {
		EVENT(r, own(g, i), 0, "%s cannot fire at %s: %s.",
		    u->id, lbl(g, h, a), why);
		return;
	}
	/* A hex with no enemy in it is fired at all the same: "holding fire"
	 * would tell the player whether a hidden unit is there. */
	mt[0] = '\0';
	if (pw_cover(g, h)) {
		mod -= 1;
		MT(" -1 cover");
	}
	if (!(u->flags & PW_F_MOVED)) {
		mod += 1;
		MT(" +1 not moved");
	}
	if (commander_near(g, i)) {
		mod += 1;
		MT(" +1 commander");
	}
	u->flags |= PW_F_FIRED;
	for (k = 0; k < dice; k++) {
		/* The die needs 5 less the modifiers: the dice line says so
		 * and agrees with the event (issue 13 item 5). */
		d = ROLL(r, 5 - mod < 1 ? 1 : 5 - mod, "%s fire, die %d of "
		    "%d: a hit on 5+%s%s", side_name(g, u->side), k + 1, dice,
		    mt[0] ? " with" : "", mt);
		EVENT(r, ALL, last_roll(r), "%s fires at %s: rolls "
		    "%d%+d = %d, %s.", u->id, lbl(g, h, a), d, mod, d + mod,
		    d + mod >= 5 ? "a hit" : "a miss");
		if (d + mod >= 5)
			hits++;
	}
	cause[0] = '\0';
	if (!r->c->ev->quiet)  /* only an event's text */
		snprintf(cause, sizeof cause, "fire from %s", u->id);
	for (k = 0; k < hits; k++)
		hit_hex(r, h, u->side, can_destroy, cause);
}

static int
cc_mods(const struct game *g, int i, int enemy, char *txt, size_t len)
{
	const struct game_unit *u = &g->units[i];
	int m = 0, tt = pw_terrain(g, u->pos);
	size_t n = 0;

	txt[0] = '\0';
	/* len 0: the text is not wanted (no event reads it). */
#define NOTE(s) do { if (len > 0) n += (size_t)snprintf(txt + n, n < len ? \
	len - n : 0, "%s", s); } while (0)
	if (commander_near(g, i)) {
		m++;
		NOTE(" +1 commander");
	}
	if (pw_cover(g, u->pos) && !(tt == PW_T_TRENCH && crossing(g, i))) {
		m++;
		NOTE(" +1 cover");
	}
	if (enemy >= 0 && pw_elev(g, u->pos) < pw_elev(g, g->units[enemy].pos)) {
		m--;
		NOTE(" -1 uphill");
	}
	if (tt == PW_T_FORD) {
		m--;
		NOTE(" -1 river");
	}
	if (tt == PW_T_TRENCH && crossing(g, i)) {
		m--;
		NOTE(" -1 crossing a trench");
	}
	if (tt == PW_T_WOOD) {
		m++;
		NOTE(" +1 wood");
	}
#undef NOTE
	return m;
}

/* Close combat of unit i against the enemy in h; true if i won and may
 * go on. */
static bool
do_cc(struct pw_res *r, int i, struct hex h, bool stay)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[i];
	int j, def = -1, am, dm, ad, dd, an, dn, k;
	bool front, indexed;
	struct pw_unit_lists L;
	struct hex from;
	char a[8], b[8], at[96], dt[96], cause[64];

	if (pw_exhausted(g, u->side)) {
		EVENT(r, own(g, i), 0, "%s makes no close combat: its "
		    "side is exhausted (no aggressive action).", u->id);
		return false;
	}
	if (u->attached >= 0 || !hex_adjacent(u->pos, h)) {
		EVENT(r, own(g, i), 0, "%s cannot close with %s: %s.",
		    u->id, lbl(g, h, a), u->attached >= 0 ? "it is carried" :
		    "not adjacent");
		return false;
	}
	/* The units in h from the index (in unit order), else a scan. */
	indexed = (k = pw_unit_lists_at(g, h, &L)) >= 0;
	for (j = indexed ? L.head[k] : 0; indexed ? j >= 0 : j < g->nunits;
	    j = indexed ? L.next[j] : j + 1) {
		const struct game_unit *o = &g->units[j];

		if (o->side == u->side || !pw_alive(o) || o->attached >= 0 ||
		    !hex_eq(o->pos, h))
			continue;
		if (def < 0 || ((pw_type(&g->units[def])->cls & (PW_C_EXEMPT |
		    PW_C_TRANSPORT)) && !(pw_type(o)->cls & (PW_C_EXEMPT |
		    PW_C_TRANSPORT))))
			def = j;
	}
	if (def < 0) {
		EVENT(r, own(g, i), 0, "%s finds no enemy in %s to close "
		    "with.", u->id, lbl(g, h, a));
		return false;
	}
	from = u->pos;
	u->facing = hex_direction_to(u->pos, h);
	follow_transport(g, i);
	front = pw_in_arc(g->units[def].facing, g->units[def].pos, u->pos);
	at[0] = dt[0] = '\0';
	am = cc_mods(g, i, def, at, r->c->ev->quiet ? 0 : sizeof at);
	dm = cc_mods(g, def, -1, dt, r->c->ev->quiet ? 0 : sizeof dt);
	an = pw_type(u)->cc_front;
	dn = front ? pw_type(&g->units[def])->cc_front :
	    pw_type(&g->units[def])->cc_flank;
	/* Not hit on the column's number less the modifiers: the dice
	 * line says so, with the modifiers the event lists (issue 13 item
	 * 5). */
	ad = ROLL(r, an - am < 1 ? 1 : an - am, "close combat: the %s "
	    "attacker, not hit on %d+%s%s", side_name(g, u->side), an,
	    at[0] ? " with" : "", at);
	dd = ROLL(r, dn - dm < 1 ? 1 : dn - dm, "close combat: the %s "
	    "defender, not hit on %d+%s%s", side_name(g, g->units[def].side),
	    dn, dt[0] ? " with" : "", dt);
	EVENT(r, ALL, last_roll(r), "%s in %s attacks %s in %s on "
	    "its %s: %s rolls %d%s = %d (hit below %d), %s rolls %d%s = %d "
	    "(hit below %d).", u->id, lbl(g, u->pos, a), g->units[def].id,
	    lbl(g, h, b), front ? "front" : "flank or rear", u->id, ad, at,
	    ad + am, an, g->units[def].id, dd, dt, dd + dm, dn);
	/* The causes are only events' text. */
	cause[0] = '\0';
	if (!r->c->ev->quiet)
		snprintf(cause, sizeof cause, "close combat with %s",
		    g->units[def].id);
	if (ad + am < an)
		hit(r, i, true, cause, false);
	if (!r->c->ev->quiet)
		snprintf(cause, sizeof cause, "close combat with %s", u->id);
	if (dd + dm < dn)
		hit(r, def, true, cause, false);
	if (!pw_alive(u) || enemy_in(g, u->side, h))
		return false;
	/* Only an attacker still in the hex it attacked from has won: one
	 * its own close combat drove back did not, and may not advance
	 * (issue 13 item 1; "move forward and occupy the hex"). */
	if (!hex_eq(u->pos, from)) {
		EVENT(r, seen_by(r, i), 0, "%s has fallen back "
		    "from %s: it has not won the close combat and does not "
		    "advance.", u->id, lbl(g, from, a));
		return false;
	}
	EVENT(r, ALL, 0, "%s wins the close combat.", u->id);
	if (stay || !(pw_type(u)->cls & PW_C_ADVANCE) || !may_end_in(g, i, h) ||
	    pw_terrain(g, h) == PW_T_RIVER) {
		if (!stay && !(pw_type(u)->cls & PW_C_ADVANCE))
			EVENT(r, ALL, 0, "%s (%s) does not advance.",
			    u->id, pw_type(u)->name);
		return true;
	}
	lbl(g, u->pos, a);
	u->pos = h;
	pw_unit_moved(g, i);
	u->flags |= PW_F_MOVED;
	u->flags &= ~(PW_F_CROSSING | PW_F_SETTLING);
	follow_transport(g, i);
	EVENT(r, seen_by(r, i), 0, "%s advances %s -> %s.", u->id,
	    a, lbl(g, h, b));
	/* A minefield or gas cloud in the hex hits it; driven out, it
	 * fights on no more. */
	return enter_hazards(r, i, h, "advances");
}

/* May transport tr carry or tow unit p (the options decide tank riders)? */
bool
pw_can_carry(const struct game *g, int tr, int p)
{
	unsigned tc = pw_type(&g->units[tr])->cls,
	    pc = pw_type(&g->units[p])->cls;
	int tk = pw_kind(&g->units[tr]);

	if ((tk == PW_TANK || tk == PW_LTANK) &&
	    game_option_flag(g, "tank-riders"))
		return (pc & PW_C_RIDER) != 0;
	if (tc & PW_C_MOTOR)
		return (pc & (PW_C_CARRY | PW_C_TOW)) != 0;
	if (tc & PW_C_TRANSPORT)
		return (pc & PW_C_TOW) != 0;
	return false;
}

static void
do_load(struct pw_res *r, int i, int tr, bool unload)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[i];
	struct game_unit *t;
	int j;

	if (unload) {
		t = &g->units[u->attached];
		if (t->flags & PW_F_MOVED) {
			EVENT(r, own(g, i), 0, "%s cannot unload: %s has "
			    "moved this turn.", u->id, t->id);
			return;
		}
		/* The stacking rule holds for a unit getting off too (issue
		 * 13 item 9). */
		u->pos = t->pos;
		pw_unit_moved(g, i);
		u->attached = -1;
		pw_unit_attached(g, i, (int)(t - g->units));
		if (!may_end_in(g, i, t->pos)) {
			u->attached = (int)(t - g->units);
			pw_unit_attached(g, i, -1);
			EVENT(r, own(g, i), 0, "%s cannot unload in "
			    "%s: no stacking with another friendly unit.",
			    u->id, lbl(g, t->pos, (char[8]){ 0 }));
			return;
		}
		u->flags |= PW_F_MOVED | PW_F_BUSY;
		t->flags |= PW_F_MOVED | PW_F_BUSY;
		EVENT(r, seen_by(r, i), 0, "%s %s from %s in %s.",
		    u->id, (pw_type(u)->cls & PW_C_TOW) ? "is unlimbered" :
		    "unloads", t->id, lbl(g, t->pos, (char[8]){ 0 }));
		return;
	}
	t = &g->units[tr];
	if (u->attached >= 0 || !pw_alive(t) || !hex_eq(t->pos, u->pos) ||
	    !pw_can_carry(g, tr, i) || (u->flags & PW_F_MOVED) ||
	    (t->flags & PW_F_MOVED)) {
		EVENT(r, own(g, i), 0, "%s cannot load into %s (%s).",
		    u->id, t->id, u->attached >= 0 ? "already carried" :
		    !pw_alive(t) ? "it is gone" : !hex_eq(t->pos, u->pos) ?
		    "not in the same hex" : !pw_can_carry(g, tr, i) ?
		    "it cannot carry that unit" : "one of them has moved");
		return;
	}
	for (j = 0; j < g->nunits; j++)
		if (g->units[j].attached == tr && pw_alive(&g->units[j])) {
			EVENT(r, own(g, i), 0, "%s cannot load into %s: "
			    "it already carries %s.", u->id, t->id,
			    g->units[j].id);
			return;
		}
	u->attached = tr;
	pw_unit_attached(g, i, -1);
	u->facing = t->facing;
	u->flags |= PW_F_MOVED | PW_F_BUSY;
	t->flags |= PW_F_MOVED | PW_F_BUSY;
	EVENT(r, 1u << u->side, 0, "%s %s %s.", u->id,
	    (pw_type(u)->cls & PW_C_TOW) ? "is limbered to" : "loads into",
	    t->id);
}

static void
set_job(struct pw_res *r, int i, int job, struct hex h)
{
	struct game_unit *u = &r->g->units[i];
	static const char *const names[] = { "", "lay a minefield in",
		"clear the minefield in", "lay barbed wire in",
		"remove the barbed wire in" };
	char a[8];

	u->x[PW_X_JOB] = job;
	u->x[PW_X_JOBQ] = h.q;
	u->x[PW_X_JOBR] = h.r;
	u->x[PW_X_JOBN] = 0;
	u->flags |= PW_F_BUSY;
	EVENT(r, 1u << u->side, 0, "%s begins to %s %s.", u->id,
	    names[job], lbl(r->g, h, a));
}

static void
run_act(struct pw_res *r, const struct pw_act *a)
{
	struct game *g = r->g;
	struct game_unit *u = &g->units[a->unit];
	int k, face = -1, j;
	bool cc_won = false, cc_tried = false;

	for (k = 0; k < a->nclause; k++)
		if (a->c[k].kind == PW_CL_FACE)
			face = a->c[k].arg;
	for (k = 0; k < a->nclause && pw_alive(u); k++) {
		const struct pw_clause *c = &a->c[k];

		switch (c->kind) {
		case PW_CL_MOVE:
			if (u->flags & PW_F_BUSY)
				EVENT(r, own(g, a->unit), 0, "%s is "
				    "busy and "
				    "stays put.", u->id);
			else
				do_move(r, a->unit, c, face);
			break;
		case PW_CL_FACE:
			for (j = 0; j < a->nclause; j++)
				if (a->c[j].kind == PW_CL_MOVE)
					break;
			if (j < a->nclause)
				break;
			if (adjacent_enemy(g, u->side, u->pos, false) >= 0 &&
			    u->attached < 0) {
				EVENT(r, own(g, a->unit), 0, "%s keeps "
				    "facing "
				    "the enemy next to it.", u->id);
				break;
			}
			u->facing = c->arg;
			follow_transport(g, a->unit);
			EVENT(r, 1u << u->side, 0, "%s turns to "
			    "face %s.", u->id, pw_dir_name(g, c->arg));
			break;
		case PW_CL_FIRE:
			do_fire(r, a->unit, c->h[0]);
			break;
		case PW_CL_CC:
			if (cc_tried && !cc_won)
				break;
			cc_tried = true;
			cc_won = do_cc(r, a->unit, c->h[0], c->arg != 0);
			break;
		case PW_CL_LOAD:
			do_load(r, a->unit, c->arg, false);
			break;
		case PW_CL_UNLOAD:
			if (u->attached >= 0)
				do_load(r, a->unit, -1, true);
			break;
		case PW_CL_WIRE:
		case PW_CL_UNWIRE:
			if (u->flags & PW_F_MOVED) {
				EVENT(r, own(g, a->unit), 0, "%s has "
				    "moved and "
				    "cannot work on wire.", u->id);
				break;
			}
			set_job(r, a->unit, c->kind == PW_CL_WIRE ?
			    PW_JOB_WIRE : PW_JOB_UNWIRE, u->pos);
			break;
		case PW_CL_LAY:
		case PW_CL_CLEAR:
			if (u->flags & PW_F_MOVED || !hex_adjacent(u->pos,
			    c->h[0])) {
				EVENT(r, own(g, a->unit), 0, "%s cannot "
				    "start "
				    "work: it must stay adjacent to the "
				    "minefield hex.", u->id);
				break;
			}
			set_job(r, a->unit, c->kind == PW_CL_LAY ? PW_JOB_LAY :
			    PW_JOB_CLEAR, c->h[0]);
			break;
		case PW_CL_HOLD:
			EVENT(r, 1u << u->side, 0, "%s holds.",
			    u->id);
			break;
		}
	}
}

static void
phase_activation(struct pw_res *r, int side, int which)
{
	struct game *g = r->g;
	const struct pw_orders *o = r->o[side];
	int n = pw_activation_dice(g, side), total = 0, k, d, used = 0;
	char phase[96], buf[256];
	size_t len = 0;

	phase[0] = '\0';
	if (!r->c->ev->quiet)  /* no event carries the phase */
		snprintf(phase, sizeof phase, "%d. %.30s activates", 2 + which,
		    g->sides[side].label);
	events_phase(r->c->ev, phase);
	buf[0] = '\0';
	for (k = 0; k < n; k++) {
		d = ROLL(r, 0, "%s activation die %d of %d",
		    side_name(g, side), k + 1, n);
		total += d;
		if (!r->c->ev->quiet)
			len += (size_t)snprintf(buf + len, len < sizeof buf ?
			    sizeof buf - len : 0, "%s%d", k ? "+" : "", d);
	}
	EVENT(r, ALL, n ? last_roll(r) : 0, "%s throws %d "
	    "activation dice: %s = %d unit%s may activate.",
	    side_name(g, side), n, n ? buf : "none", total, total == 1 ? "" :
	    "s");
	for (k = 0; o != NULL && k < o->nact; k++) {
		const struct pw_act *a = &o->act[k];
		struct game_unit *u = &g->units[a->unit];

		if (!pw_alive(u)) {
			EVENT(r, 1u << side, 0, "%s (line %d) is "
			    "gone: no activation used.", u->id, a->line);
			continue;
		}
		if (used >= total) {
			EVENT(r, 1u << side, 0, "%s (line %d) is not "
			    "activated: the dice allow %d.", u->id, a->line,
			    total);
			continue;
		}
		used++;
		u->flags |= PW_F_ACTIVE;
		run_act(r, a);
	}
	if (o == NULL || o->nact == 0)
		EVENT(r, ALL, 0, "%s activates no unit.",
		    side_name(g, side));
}

/* --- end of turn ---------------------------------------------------------- */

/* Work of unit i finished in hex label: "UNIT what HEX." for the sides
 * that see the unit, "anon HEX." (the work shows, not who did it) for the
 * other. */
static void
work_done(struct pw_res *r, int i, const char *what, const char *anon,
    const char *label)
{
	unsigned vis = seen_by(r, i);

	EVENT(r, vis, 0, "%s %s %s.", r->g->units[i].id, what,
	    label);
	if (vis != 3u)
		EVENT(r, 3u & ~vis, 0, "%s %s.", anon, label);
}

static void
work(struct pw_res *r)
{
	struct game *g = r->g;
	int i, m;
	char a[8];

	for (i = 0; i < g->nunits; i++) {
		struct game_unit *u = &g->units[i];
		struct hex h = { u->x[PW_X_JOBQ], u->x[PW_X_JOBR] };
		int job = u->x[PW_X_JOB];

		if (pw_is_marker(u)) {
			continue;
		}
		/* Crossings: "turn A" then "turn B". */
		if (u->flags & PW_F_CROSSING) {
			if (u->flags & PW_F_SETTLING)
				u->flags &= ~(PW_F_CROSSING | PW_F_SETTLING);
			else
				u->flags |= PW_F_SETTLING;
		}
		if (job == PW_JOB_NONE || !pw_alive(u))
			continue;
		if ((u->flags & PW_F_MOVED) && !(u->flags & PW_F_BUSY)) {
			u->x[PW_X_JOB] = PW_JOB_NONE;
			EVENT(r, 1u << u->side, 0, "%s moved: its "
			    "work stops.", u->id);
			continue;
		}
		u->x[PW_X_JOBN]++;
		lbl(g, h, a);
		switch (job) {
		case PW_JOB_WIRE:
			if (pw_marker_at(g, h, PW_WIRE) < 0)
				pw_add_marker(g, PW_WIRE, u->side, h);
			u = &g->units[i];
			u->x[PW_X_JOB] = PW_JOB_NONE;
			work_done(r, i, "has laid barbed wire in", "Barbed "
			    "wire has been laid in", a);
			break;
		case PW_JOB_UNWIRE:
			if ((m = pw_marker_at(g, h, PW_WIRE)) >= 0) {
				g->units[m].placed = false;
				pw_unit_moved(g, m);
			}
			u->x[PW_X_JOB] = PW_JOB_NONE;
			work_done(r, i, "has removed the barbed wire in",
			    "The barbed wire has been removed from", a);
			break;
		case PW_JOB_LAY:
			if (u->x[PW_X_JOBN] < 3) {
				EVENT(r, 1u << u->side, 0, "%s: "
				    "minefield in %s, %d of 3 turns.", u->id, a,
				    u->x[PW_X_JOBN]);
				break;
			}
			if (pw_marker_at(g, h, PW_MINES) < 0) {
				int side = u->side;

				m = pw_add_marker(g, PW_MINES, side, h);
				g->units[m].x[0] = 1 << side;
			}
			u = &g->units[i];
			u->x[PW_X_JOB] = PW_JOB_NONE;
			EVENT(r, 1u << u->side, 0, "%s has laid a "
			    "minefield in %s.", u->id, a);
			break;
		case PW_JOB_CLEAR:
			if (u->x[PW_X_JOBN] < 5) {
				EVENT(r, 1u << u->side, 0, "%s: "
				    "clearing %s, %d of 5 turns.", u->id, a,
				    u->x[PW_X_JOBN]);
				break;
			}
			if ((m = pw_marker_at(g, h, PW_MINES)) >= 0) {
				g->units[m].placed = false;
				pw_unit_moved(g, m);
			}
			u->x[PW_X_JOB] = PW_JOB_NONE;
			work_done(r, i, "has cleared the minefield in",
			    "The minefield has been cleared in", a);
			break;
		}
	}
}

/* End of turn: an objective with units of one side only in its hex
 * passes to that side (and stays with it until the enemy is there alone);
 * who holds an objective is public. */
static void
hold_objectives(struct pw_res *r)
{
	struct game *g = r->g;
	int i, j, in, k;
	struct pw_unit_lists L;
	char a[8];

	for (i = 0; i < g->nunits; i++) {
		struct game_unit *o = &g->units[i];

		if (!o->placed || !pw_kind_is(o, PW_OBJECTIVE))
			continue;
		in = 0;
		if ((k = pw_unit_lists_at(g, o->pos, &L)) >= 0) {
			for (j = L.head[k]; j >= 0; j = L.next[j])
				if (pw_alive(&g->units[j]))
					in |= 1 << g->units[j].side;
		} else
			for (j = 0; j < g->nunits; j++)
				if (pw_alive(&g->units[j]) &&
				    hex_eq(g->units[j].pos, o->pos))
					in |= 1 << g->units[j].side;
		if ((in == 1 << PW_BLUE || in == 1 << PW_RED) &&
		    !(in & 1 << o->side)) {
			o->side = in == 1 << PW_BLUE ? PW_BLUE : PW_RED;
			EVENT(r, ALL, 0, "%s takes the objective "
			    "%s (%d of %d held).", side_name(g, o->side),
			    lbl(g, o->pos, a),
			    pw_objectives(g, o->side), pw_objectives_total(g));
		}
	}
}

static void
phase_exhaustion(struct pw_res *r)
{
	struct game *g = r->g;
	int s, lost, ep, alive[2] = { 0, 0 }, i;
	char key[16];

	events_phase(r->c->ev, "5. Exhaustion check");
	work(r);
	hold_objectives(r);
	for (i = 0; i < g->nunits; i++)
		if (pw_alive(&g->units[i]) && g->units[i].side < 2)
			alive[g->units[i].side]++;
	for (s = 0; s < 2; s++) {
		/* The initial SP summed once: pw_exhaustion_point is a third
		 * of it, rounded up. */
		int init = pw_initial_sp(g, s);

		lost = init - pw_current_sp(g, s);
		ep = (init + 2) / 3;
		strlcpy_(key, s == 0 ? "exh.0" : "exh.1", sizeof key);
		if (!game_var(g, key, 0) && lost >= ep) {
			game_set_var(g, key, 1);
			EVENT(r, ALL, 0, "%s has lost %d SP and "
			    "reached its Exhaustion Point (%d): no more "
			    "aggressive action.", side_name(g, s), lost, ep);
		} else
			/* The count includes hits the enemy did not see: its
			 * own side only. */
			EVENT(r, 1u << s, 0, "%s: %d SP lost, "
			    "Exhaustion "
			    "Point %d%s.", side_name(g, s), lost, ep,
			    game_var(g, key, 0) ? " (exhausted)" : "");
	}
	if (pw_exhausted(g, 0) && pw_exhausted(g, 1))
		game_set_var(g, "over", 1);
	else if (alive[0] == 0 || alive[1] == 0)
		game_set_var(g, "over", 2);
	else if (g->turn >= game_var(g, "turns", 20))
		game_set_var(g, "over", 3);
}

static void
start_turn(struct game *g)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		g->units[i].flags &= ~PW_F_TURN_MASK;
}

/* One step of the resolution. */
static enum resolve_rc
resolve_step(struct resolve_ctx *c)
{
	struct pw_res r;
	int first;

	r.c = c;
	r.g = c->g;
	r.o[0] = c->orders[0];
	r.o[1] = c->orders[1];
	switch (c->step) {
	case 0:
		start_turn(c->g);
		phase_artillery(&r);
		return RESOLVE_CONTINUE;
	case 1:
		phase_initiative(&r);
		first = game_var(c->g, "first", PW_BLUE);
		phase_activation(&r, first, 1);
		return RESOLVE_CONTINUE;
	case 2:
		first = game_var(c->g, "first", PW_BLUE);
		phase_activation(&r, 1 - first, 2);
		return RESOLVE_CONTINUE;
	default:
		phase_exhaustion(&r);
		if (!game_var(c->g, "over", 0))
			c->g->turn++;
		return RESOLVE_DONE;
	}
}

void
pw_victory(struct game *g, struct events *ev)
{
	int over = game_var(g, "over", 0), s, win = -1, nobj, need;
	double frac[2];
	const char *why;

	/* Asked after every window: nothing more to look up until the
	 * battle is over. */
	if (g->status == GAME_FINISHED || !over)
		return;
	nobj = pw_objectives_total(g);
	need = game_var(g, "obj.need", 1);
	for (s = 0; s < 2; s++) {
		int init = pw_initial_sp(g, s);

		frac[s] = init ? (double)(init - pw_current_sp(g, s)) / init : 0;
	}
	why = over == 1 ? "both sides reached their Exhaustion Point" :
	    over == 2 ? "a side has no units left" : "the turn limit was "
	    "reached";
	g->status = GAME_FINISHED;
	if (nobj > 0) {
		struct sbuf t;

		/* The scenario's victory: Blue must hold need objectives
		 * when the battle ends, else Red wins; a side with no units
		 * left loses. */
		if (over == 2 && pw_current_sp(g, PW_BLUE) == 0)
			win = PW_RED;
		else if (over == 2 && pw_current_sp(g, PW_RED) == 0)
			win = PW_BLUE;
		else
			win = pw_objectives(g, PW_BLUE) >= need ? PW_BLUE :
			    PW_RED;
		sbuf_init(&t);
		sbuf_printf(&t, "%s wins: %s; %s holds %d of %d objectives "
		    "(needs %d); SP lost %s %.0f%%, %s %.0f%%",
		    g->sides[win].name, why, side_name(g, PW_BLUE),
		    pw_objectives(g, PW_BLUE), nobj, need, g->sides[0].name,
		    frac[0] * 100, g->sides[1].name, frac[1] * 100);
		strlcpy_(g->result, t.buf, sizeof g->result);
		sbuf_free(&t);
	} else if (frac[0] + 1e-9 < frac[1])
		snprintf(g->result, sizeof g->result, "%s wins: %s; it lost "
		    "%.0f%% of its SP against %.0f%%", g->sides[0].name, why,
		    frac[0] * 100, frac[1] * 100);
	else if (frac[1] + 1e-9 < frac[0])
		snprintf(g->result, sizeof g->result, "%s wins: %s; it lost "
		    "%.0f%% of its SP against %.0f%%", g->sides[1].name, why,
		    frac[1] * 100, frac[0] * 100);
	else
		snprintf(g->result, sizeof g->result, "Draw: %s; both lost "
		    "%.0f%% of their SP", why, frac[0] * 100);
	events_phase(ev, "Result");
	events_add(ev, ALL, 0, "%s.", g->result);
}

enum resolve_rc
pw_resolve(struct resolve_ctx *c)
{
	/* The last step seen to end with the map cache armed: the next step
	 * of the same resolution (the same resolution number, context, game
	 * and turn, the step after it, which asked for nothing) finds g's
	 * hexes as that step armed the cache for them (nothing but
	 * window.c's loop runs in between, and the resolution never writes a
	 * hex), so the cache's copy of the map is not compared whole again
	 * when it is still the same copy (pw_los_cache_continue). */
	static _Thread_local struct {
		unsigned long serial;
		const struct resolve_ctx *c;
		const struct game *g;
		const struct game_hex *hexes;
		int nhex, step, turn;
		unsigned map;
	} last;
	bool next = c->serial != 0 && last.serial == c->serial &&
	    last.c == c && last.g == c->g && last.hexes == c->g->hexes &&
	    last.nhex == c->g->nhex && c->step == last.step + 1 &&
	    c->step > 0 && last.turn == c->g->turn;
	bool begun, indexed;
	bool was_quiet = quiet_text;
	enum resolve_rc rc;

	last.c = NULL;
	begun = next ? pw_los_cache_continue(c->g, last.map) :
	    pw_los_cache_begin(c->g);
	indexed = next && begun ? pw_units_index_continue(c->g) :
	    pw_units_index_begin(c->g);
	quiet_text = c->ev->quiet;
	rc = resolve_step(c);
	quiet_text = was_quiet;
	pw_units_index_end(indexed);
	if (begun && rc == RESOLVE_CONTINUE) {
		last.serial = c->serial;
		last.c = c;
		last.g = c->g;
		last.hexes = c->g->hexes;
		last.nhex = c->g->nhex;
		last.step = c->step;
		last.turn = c->g->turn;
		last.map = pw_los_cache_map();
	}
	pw_los_cache_end(begun);
	return rc;
}
