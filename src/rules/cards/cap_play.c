/* cap_play: the windows and the resolution of cards-ap. An engine turn is
 * one round. Turn 0 has the window `deploy`, naming no side, which runs
 * the first round's steps (cards need dice). Each round opens the window
 * `plan` (both sides send a round plan); its resolution rolls the
 * initiative and alternates the two plans action by action. It stops
 * (RESOLVE_ASK) only for a side whose stop condition fired or whose plan
 * ran dry while the opponent still acts; the decision window `answer`
 * takes that side's new plan, the other side's rest is kept. When both
 * sides pass in a row the round ends and the next one's steps 1-6 run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"

#define ALL EVENT_ALL_SIDES

/* Does side have a placed, unit (not smoke) in h; enemy: of the other. */
static bool
unit_in(const struct game *g, struct hex h, int side, bool enemy)
{
	int i;

	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (!u->placed || u->side < 0 || !hex_eq(u->pos, h))
			continue;
		if (side < 0 || (enemy ? u->side != side : u->side == side))
			return true;
	}
	return false;
}

/* Enemies of side in sight of its unit (any arc): count. */
static int
in_los(const struct cap_state *st, const struct game *g, int unit)
{
	const struct game_unit *u = &g->units[unit];
	int i, n = 0;

	if (!u->placed)
		return 0;
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *t = &g->units[i];

		if (t->placed && t->side >= 0 && t->side != u->side &&
		    cap_los(st, g, u->pos, t->pos))
			n++;
	}
	return n;
}

/* Enemies unit may fire on: count. */
static int
in_range(const struct cap_state *st, const struct game *g, int unit)
{
	int i, n = 0;

	for (i = 0; i < g->nunits; i++)
		if (cap_can_fire(st, g, unit, i))
			n++;
	return n;
}

/* Enemies seen by any unit of side: count of distinct enemy units. */
static int
seen_by(const struct cap_state *st, const struct game *g, int side)
{
	int i, j, n = 0;

	for (j = 0; j < g->nunits; j++) {
		const struct game_unit *t = &g->units[j];

		if (!t->placed || t->side < 0 || t->side == side)
			continue;
		for (i = 0; i < g->nunits; i++)
			if (g->units[i].placed && g->units[i].side == side &&
			    cap_los(st, g, g->units[i].pos, t->pos)) {
				n++;
				break;
			}
	}
	return n;
}

/* Does guard e of side hold now? An 'inrange' guard leaves whom its unit
 * may fire at in x (row_ok) for the action it guards. */
static bool
guard_holds(struct cap_ctx *x, int side, const struct cap_entry *e)
{
	const struct cap_state *st = x->st;
	const struct game *g = x->g;
	bool v;
	int i;

	switch (e->cond) {
	case COND_OCCUPIED:
		v = unit_in(g, e->chex, -1, false);
		break;
	case COND_ENEMY:
		v = unit_in(g, e->chex, side, true);
		break;
	case COND_INRANGE:
		if (g->nunits > CAP_FIRE_ROW) {
			v = in_range(st, g, e->cunit) > 0;
			break;
		}
		/* in_range() > 0, the row kept */
		cap_fire_row(st, g, e->cunit, x->row);
		x->row_unit = e->cunit;
		x->row_ok = true;
		for (v = false, i = 0; i < g->nunits; i++)
			v |= x->row[i] != 0;
		break;
	case COND_INLOS:
		v = in_los(st, g, e->cunit) > 0;
		break;
	case COND_CAPS:
		v = cap_svar(g, "cap", side, 0) >= e->cn;
		break;
	case COND_PASSED:
		v = cap_svar(g, "lastpass", 1 - side, 0) != 0;
		break;
	default:
		return true;
	}
	return e->neg ? !v : v;
}

/* Take the first entry of side's plan off it. */
static void
pop_entry(struct cap_plan *p)
{
	memmove(p->e, p->e + 1, (size_t)(p->n - 1) * sizeof p->e[0]);
	p->n--;
}

/* What the stops watch, before an action. */
struct watch {
	int seen[CAP_SIDES];
	int range[CAP_SIDES][CAP_MAX_STOPS];
};

/* Take the counts the stops of both plans compare with. */
static void
watch_take(const struct cap_state *st, const struct game *g,
    struct watch *w)
{
	int s, k;

	memset(w, 0, sizeof *w);
	for (s = 0; s < CAP_SIDES; s++) {
		bool seen = false;

		if (!st->have_plan[s])
			continue;
		for (k = 0; k < st->plan[s].nstops; k++) {
			if (st->plan[s].stops[k].kind == STOP_INRANGE)
				w->range[s][k] = in_range(st, g,
				    st->plan[s].stops[k].unit);
			seen |= st->plan[s].stops[k].kind == STOP_SEEN;
		}
		/* Only a 'stop seen' reads the count (issue 17: it is
		 * a line of sight for each pair of units). */
		if (seen)
			w->seen[s] = seen_by(st, g, s);
	}
}

/* The sides whose stops fire after side actor did act (kind). */
static unsigned
stops_fired(struct cap_ctx *x, const struct watch *before, int actor,
    int act)
{
	const struct game *g = x->g;
	unsigned mask = 0;
	int s, k, i;

	for (s = 0; s < CAP_SIDES; s++) {
		const struct cap_plan *p = &x->st->plan[s];

		if (!x->st->have_plan[s])
			continue;
		for (k = 0; k < p->nstops; k++) {
			const struct cap_stop *t = &p->stops[k];
			bool f = false;

			switch (t->kind) {
			case STOP_HIT:
				for (i = 0; i < x->nhitunit; i++)
					f |= g->units[x->hitunit[i]].side == s &&
					    (t->unit < 0 || t->unit ==
					    x->hitunit[i]);
				/* an elimination is a hit too */
				for (i = 0; i < x->nlostunit; i++)
					f |= g->units[x->lostunit[i]].side ==
					    s && (t->unit < 0 || t->unit ==
					    x->lostunit[i]);
				break;
			case STOP_LOST:
				for (i = 0; i < x->nlostunit; i++)
					f |= g->units[x->lostunit[i]].side ==
					    s && (t->unit < 0 || t->unit ==
					    x->lostunit[i]);
				break;
			case STOP_SEEN:
				f = seen_by(x->st, g, s) > before->seen[s];
				break;
			case STOP_INRANGE:
				f = in_range(x->st, g, t->unit) >
				    before->range[s][k];
				break;
			case STOP_ANSWER:
				f = actor != s && act != ACT_PASS &&
				    (t->act == ACT_NONE || t->act == act);
				break;
			default:
				break;
			}
			if (f) {
				mask |= 1u << s;
				events_add(x->ev, 1u << s, 0, "Your stop '%s' "
				    "fires.", t->kind == STOP_HIT ? "hit" :
				    t->kind == STOP_LOST ? "lost" : t->kind ==
				    STOP_SEEN ? "seen" : t->kind ==
				    STOP_INRANGE ? "inrange" : "answer");
			}
		}
	}
	return mask;
}

/* The end of a round: the mail count per side goes to the histogram
 * (vars mh.N), then the next round starts unless the last one was the
 * scenario's last. */
static void
round_end(struct cap_ctx *x)
{
	struct game *g = x->g;
	int s, m, round = game_var(g, "round", 1);
	char k[32];

	for (s = 0; s < CAP_SIDES; s++) {
		m = cap_svar(g, "mails", s, 0);
		snprintf(k, sizeof k, "mh.%d", m > 20 ? 20 : m);
		game_set_var(g, k, game_var(g, k, 0) + 1);
		cap_set_svar(g, "mails", s, 0);
		x->st->have_plan[s] = false;
		cap_plan_clear(&x->st->plan[s]);
	}
	events_add(x->ev, ALL, 0, "Both sides passed in a row: round %d ends.",
	    round);
	if (round >= game_var(g, "rounds", 6)) {
		game_set_var(g, "over", 1);
		return;
	}
	cap_round_start(x, round + 1);
	g->turn = round + 1;
}

/* Alternate the plans from side turnside on until the round ends or a
 * side must be asked. */
static enum resolve_rc
alternate(struct resolve_ctx *c, struct cap_ctx *x)
{
	struct game *g = c->g;
	bool per_action = game_option_flag(g, "per-action");
	int guard, s, o, rc;
	char why[160];

	events_phase(c->ev, "Turns");
	for (guard = 0; guard < 2000; guard++) {
		struct cap_plan *p;
		struct cap_action pass = { .kind = ACT_PASS, .unit = -1,
			.tunit = -1, .facing = -1 };
		const struct cap_action *a = NULL;
		struct watch before;
		unsigned mask;
		int kind = ACT_PASS;

		s = game_var(g, "turnside", 0);
		o = 1 - s;
		p = &x->st->plan[s];
		watch_take(x->st, g, &before);
		x->nhitunit = x->nlostunit = 0;
		while (p->n > 0) {
			struct cap_entry e = p->e[0];

			pop_entry(p);
			x->row_ok = false;
			a = guard_holds(x, s, &e) ? &e.then :
			    e.has_else ? &e.els : NULL;
			if (a == NULL) {
				events_add(c->ev, 1u << s, 0, "Your line %d: the "
				    "condition does not hold; skipped.", e.line);
				continue;
			}
			rc = cap_do_action(x, s, a, why, sizeof why);
			x->row_ok = false;
			if (rc == HP_OK) {
				kind = a->kind;
				break;
			}
			events_add(c->ev, 1u << s, 0, "Your line %d is not "
			    "possible now (%s); skipped.", e.line, why);
			a = NULL;
		}
		x->row_ok = false;
		if (a == NULL) {
			bool opp_acts = cap_svar(g, "lastpass", o, 0) == 0;

			if ((per_action || !p->dry_pass) && opp_acts &&
			    !cap_svar(g, "dryasked", s, 0) &&
			    x->st->have_plan[s]) {
				cap_set_svar(g, "dryasked", s, 1);
				events_add(c->ev, ALL, 0, "The plan of %s has run "
				    "dry while %s still acts: %s is asked.",
				    g->sides[s].name, g->sides[o].name,
				    g->sides[s].name);
				game_set_var(g, "asked", 1 << s);
				c->ask = 1u << s;
				return RESOLVE_ASK;
			}
			if (per_action && !cap_svar(g, "dryasked", s, 0)) {
				cap_set_svar(g, "dryasked", s, 1);
				game_set_var(g, "asked", 1 << s);
				c->ask = 1u << s;
				return RESOLVE_ASK;
			}
			(void)cap_do_action(x, s, &pass, why, sizeof why);
		}
		if (kind != ACT_PASS)
			cap_set_svar(g, "dryasked", s, 0);
		cap_set_svar(g, "lastpass", s, kind == ACT_PASS);
		game_set_var(g, "passes", kind == ACT_PASS ?
		    game_var(g, "passes", 0) + 1 : 0);
		game_set_var(g, "turnside", o);
		if (game_var(g, "passes", 0) >= 2) {
			round_end(x);
			return RESOLVE_DONE;
		}
		mask = stops_fired(x, &before, s, kind);
		if (per_action && x->st->plan[o].n == 0)
			mask &= ~(1u << o);
		if (mask != 0) {
			for (s = 0; s < CAP_SIDES; s++)
				if (mask & (1u << s))
					events_add(c->ev, ALL, 0, "%s is asked.",
					    g->sides[s].name);
			game_set_var(g, "asked", (int)mask);
			c->ask = mask;
			return RESOLVE_ASK;
		}
	}
	hp_seterr(c->err, HP_EINTERNAL, "cards-ap: a round of %d turns", guard);
	return RESOLVE_ERROR;
}

/* Resolve a window: deploy (the first round's steps), plan (initiative and
 * the alternation) or answer (the asked sides' new plans, then on). */
enum resolve_rc
cap_resolve(struct resolve_ctx *c)
{
	struct game *g = c->g;
	struct cap_ctx x;
	enum resolve_rc rc;
	int s, bid[CAP_SIDES] = { 0, 0 };

	memset(&x, 0, sizeof x);
	x.g = g;
	x.dice = c->dice;
	x.ev = c->ev;
	x.st = cap_state_load(g);
	cap_los_begin(x.st, g);  /* the terrain's lines of sight, kept */
	if (strcmp(c->w->name, "deploy") == 0) {
		cap_round_start(&x, 1);
		g->turn = 1;
		cap_los_end();
		cap_state_save(g, x.st);
		cap_state_free(x.st);
		return RESOLVE_DONE;
	}
	for (s = 0; s < CAP_SIDES; s++)
		if (c->w->sides & (1u << s))
			cap_set_svar(g, "mails", s, cap_svar(g, "mails", s, 0) +
			    1);
	if (c->w->kind == WINDOW_DECISION) {
		unsigned asked = (unsigned)game_var(g, "asked", 0);

		for (s = 0; s < CAP_SIDES; s++) {
			const struct cap_plan *p = c->orders[s];

			if (!(asked & (1u << s)))
				continue;
			x.st->have_plan[s] = true;
			if (p != NULL && p->n == 0) {
				/* No action: the rest of the plan goes on (the
				 * hold answer), with the answer's stops if any. */
				if (p->nstops > 0) {
					memcpy(x.st->plan[s].stops, p->stops,
					    sizeof p->stops);
					x.st->plan[s].nstops = p->nstops;
				}
				x.st->plan[s].dry_pass |= p->dry_pass;
			} else if (p != NULL)
				cap_plan_copy(&x.st->plan[s], p);
			else
				cap_plan_clear(&x.st->plan[s]);
			events_add(c->ev, 1u << s, 0, "Your new plan has %d "
			    "action%s.", x.st->plan[s].n, x.st->plan[s].n == 1 ?
			    "" : "s");
		}
		game_set_var(g, "asked", 0);
		game_set_var(g, "wnum", game_var(g, "wnum", 1) + 1);
	} else {
		events_phase(c->ev, "Initiative");
		for (s = 0; s < CAP_SIDES; s++) {
			const struct cap_plan *p = c->orders[s];

			x.st->have_plan[s] = true;
			if (p != NULL) {
				cap_plan_copy(&x.st->plan[s], p);
				bid[s] = p->initiative;
			} else
				cap_plan_clear(&x.st->plan[s]);
			cap_set_svar(g, "lastpass", s, 0);
			cap_set_svar(g, "dryasked", s, 0);
		}
		game_set_var(g, "wnum", 1);
		game_set_var(g, "passes", 0);
		game_set_var(g, "turnside", cap_initiative(&x, bid));
	}
	rc = alternate(c, &x);
	cap_los_end();
	cap_state_save(g, x.st);
	cap_state_free(x.st);
	return rc;
}

/* deploy (turn 0, no side), then each round plan and, after a stop,
 * answer for the sides asked. */
bool
cap_next_window(const struct game *g, struct window_spec *w)
{
	unsigned asked = (unsigned)game_var(g, "asked", 0);
	int round = game_var(g, "round", 0);

	if (g->status == GAME_FINISHED)
		return false;
	memset(w, 0, sizeof *w);
	w->kind = WINDOW_ORDERS;
	if (round == 0) {
		w->turn = 0;
		w->number = 1;
		strlcpy_(w->name, "deploy", sizeof w->name);
		return true;
	}
	w->turn = round;
	if (asked != 0) {
		w->kind = WINDOW_DECISION;
		w->number = game_var(g, "wnum", 1) + 1;
		strlcpy_(w->name, "answer", sizeof w->name);
		w->sides = asked;
		snprintf(w->prompt, sizeof w->prompt, "round %d: a new plan for "
		    "the rest of the round", round);
		return true;
	}
	w->number = 1;
	strlcpy_(w->name, "plan", sizeof w->name);
	w->sides = (1u << CAP_SIDES) - 1;
	snprintf(w->prompt, sizeof w->prompt, "round %d: your plan", round);
	return true;
}

/* Victory points of side: enemy units eliminated, +2 holding the
 * objective (a unit there and no enemy). */
static int
points(const struct game *g, int side)
{
	struct hex obj = { game_var(g, "obj.q", 0), game_var(g, "obj.r", 0) };
	int vp = cap_svar(g, "lost", 1 - side, 0);

	if (unit_in(g, obj, side, false) && !unit_in(g, obj, side, true))
		vp += 2;
	return vp;
}

/* The game ends after the last round or when a side has nothing left. */
void
cap_victory(struct game *g, struct events *ev)
{
	int s, left[CAP_SIDES] = { 0, 0 }, i, vp[CAP_SIDES];

	if (game_var(g, "round", 0) == 0 || game_var(g, "asked", 0) != 0)
		return;
	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side >= 0 && g->units[i].side < CAP_SIDES &&
		    g->units[i].status != CAP_GONE)
			left[g->units[i].side]++;
	for (s = 0; s < CAP_SIDES; s++)
		if (left[s] == 0) {
			g->status = GAME_FINISHED;
			snprintf(g->result, sizeof g->result, "%s wins: %s has "
			    "no unit left", g->sides[1 - s].name,
			    g->sides[s].name);
			events_add(ev, ALL, 0, "The game ends: %s.", g->result);
			return;
		}
	if (!game_var(g, "over", 0))
		return;
	for (s = 0; s < CAP_SIDES; s++)
		vp[s] = points(g, s);
	g->status = GAME_FINISHED;
	if (vp[0] == vp[1])
		snprintf(g->result, sizeof g->result, "Draw, %d points each",
		    vp[0]);
	else
		snprintf(g->result, sizeof g->result, "%s wins by %d points to "
		    "%d", g->sides[vp[0] > vp[1] ? 0 : 1].name, vp[0] > vp[1] ?
		    vp[0] : vp[1], vp[0] > vp[1] ? vp[1] : vp[0]);
	events_add(ev, ALL, 0, "The game ends: %s.", g->result);
}
