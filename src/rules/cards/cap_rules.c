/* cap_rules: every rule of seed 004 (docs/rules/cards-ap.md): the spent
 * check by an order card, movement and its AP costs, pivots, combat (AV
 * against DV), hits by tokens drawn from the pool, rally, initiative and
 * the steps of a new round. Card and token draws are sealed draws without
 * replacement; the other dice are public 2D6. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"

#define ALL EVENT_ALL_SIDES
#define BOTH ((1u << CAP_SIDES) - 1)

/* The seq of the last sealed roll when one was made since before. */
static int
last_sealed(const struct dice *d, int before)
{
	return (int)d->nslog > before ? d->slog[d->nslog - 1].seq : 0;
}

/* Is a roll's purpose read (not in a quiet simulation: issue 17)? */
static bool
purposes(const struct cap_ctx *x)
{
	return !x->ev->quiet;
}

/* 2D6 for purpose why: dice_roll_sum, or, when no purpose is read, the
 * same two dice without their purposes written. */
static int
roll_2d6(struct cap_ctx *x, const char *why)
{
	int r;

	if (purposes(x))
		return dice_roll_sum(x->dice, 2, 6, why);
	r = dice_roll(x->dice, 6, 0, "");
	return r + dice_roll(x->dice, 6, 0, "");
}

/* Draw a card from the deck (the discards reshuffled into it when it is
 * empty) as a sealed draw shown to the sides in visible; the card's
 * number in the deck (1-based), 0 when there is none at all. */
int
cap_draw_card(struct cap_ctx *x, unsigned visible, const char *why)
{
	struct cap_state *st = x->st;
	int pos, card;

	if (st->ndeck == 0 && st->ndisc > 0) {
		memcpy(st->deck, st->disc, (size_t)st->ndisc * sizeof(int));
		st->ndeck = st->ndisc;
		st->ndisc = 0;
		events_add(x->ev, ALL, 0, "The deck is empty: the %d discarded "
		    "cards are shuffled into it.", st->ndeck);
	}
	if (st->ndeck == 0)
		return 0;
	pos = dice_draw_sealed(x->dice, visible, st->ndeck, why);
	card = st->deck[pos];
	memmove(st->deck + pos, st->deck + pos + 1,
	    (size_t)(st->ndeck - pos - 1) * sizeof(int));
	st->ndeck--;
	return card;
}

/* Text built without printf (issue 17: an action's log line is written
 * for every action): buf of size cap, len used, cut as snprintf cuts. */
struct line {
	char *buf;
	size_t cap, len;
};

/* Append s to l. */
static void
line_add(struct line *l, const char *s)
{
	while (*s != '\0' && l->len + 1 < l->cap)
		l->buf[l->len++] = *s++;
	l->buf[l->len] = '\0';
}

/* Append v to l, as "%d" writes it. */
static void
line_int(struct line *l, int v)
{
	char d[16];

	d[cap_fmt_int(d, v)] = '\0';
	line_add(l, d);
}

/* Append to side's action log of the round. */
static void
log_side(struct cap_ctx *x, int side, const char *text)
{
	char *l = x->st->log[side];
	size_t n = strlen(l), t = strlen(text);

	/* As snprintf "%s%s" would write it (there is room for both). */
	if (n + t + 3 < sizeof x->st->log[side]) {
		if (n > 0) {
			memcpy(l + n, " | ", 3);
			n += 3;
		}
		memcpy(l + n, text, t + 1);
	}
}

/* The spent check of unit after an action of aps APs by side: draw an
 * order card (shown to both); spent when aps >= its number, unless it
 * bears the 'ignore spent check' symbol and side is a person (the AI
 * cannot ignore it). Returns 1 when the unit is spent, 0 if not, -1 when
 * no card is left at all (the unit stays unspent). */
int
cap_spent_check(struct cap_ctx *x, int side, int unit, int aps)
{
	struct game_unit *u = &x->g->units[unit];
	const struct cap_card *k;
	int before = (int)x->dice->nslog, card, seq, spent;
	char why[96], line[160];
	struct line ln;

	why[0] = '\0';
	if (purposes(x))
		snprintf(why, sizeof why, "spent check of %s", u->id);
	card = cap_draw_card(x, BOTH, why);
	if (card == 0) {
		events_add(x->ev, ALL, 0, "No order card is left for %s's spent "
		    "check: it stays unspent.", u->name);
		return -1;
	}
	k = &x->st->card[card - 1];
	spent = aps >= k->num;
	if (spent && k->ignore && !x->g->sides[side].ai)
		spent = 2;
	/* "spent check: card #%d (%d%s) vs %d AP: %s" */
	ln.buf = line;
	ln.cap = sizeof line;
	ln.len = 0;
	line_add(&ln, "spent check: card #");
	line_int(&ln, card);
	line_add(&ln, " (");
	line_int(&ln, k->num);
	line_add(&ln, k->ignore ? ", ignore symbol" : "");
	line_add(&ln, ") vs ");
	line_int(&ln, aps);
	line_add(&ln, " AP: ");
	line_add(&ln, spent == 2 ? "ignored" : spent ? "spent" : "not spent");
	seq = last_sealed(x->dice, before);
	if (seq > 0)
		events_add_rolls(x->ev, ALL, BOTH, seq, 1, "%s: %s.", u->name,
		    line);
	else
		events_add(x->ev, ALL, 0, "%s: %s.", u->name, line);
	log_side(x, side, line);
	x->st->disc[x->st->ndisc++] = card;
	if (spent == 1)
		u->status = CAP_SPENT;
	return spent == 1;
}

/* Eliminate unit: off the map, its token back to the pool, -1 total CAPs
 * of its side for the rest of the game. */
void
cap_eliminate(struct cap_ctx *x, int unit)
{
	struct game_unit *u = &x->g->units[unit];
	int s = u->side, m;

	if (u->x[0] > 0 && x->st->npool < CAP_MAX_TOKENS)
		x->st->pool[x->st->npool++] = u->x[0];
	u->x[0] = 0;
	u->x[1] = 0;
	u->flags &= ~CAP_HIT;
	u->status = CAP_GONE;
	u->placed = false;
	m = cap_svar(x->g, "capmax", s, 0) - 1;
	cap_set_svar(x->g, "capmax", s, m > 0 ? m : 0);
	if (cap_svar(x->g, "cap", s, 0) > (m > 0 ? m : 0))
		cap_set_svar(x->g, "cap", s, m > 0 ? m : 0);
	cap_set_svar(x->g, "lost", s, cap_svar(x->g, "lost", s, 0) + 1);
	events_add(x->ev, ALL, 0, "%s is eliminated (%s: %d CAPs in all from "
	    "now on).", u->name, x->g->sides[s].name, m > 0 ? m : 0);
	if (x->nlostunit < CAP_MAX_EVENTS)
		x->lostunit[x->nlostunit++] = unit;
}

/* unit takes a hit from by_side: a second hit eliminates it and returns
 * its token; else the opponent (by_side) draws a token from the pool,
 * sees it and puts it under the counter, hidden from the owner. */
void
cap_take_hit(struct cap_ctx *x, int unit, int by_side)
{
	struct game_unit *u = &x->g->units[unit];
	int before = (int)x->dice->nslog, pos, seq;
	unsigned vis = by_side >= 0 ? 1u << by_side : BOTH;
	char why[96];

	if (x->nhitunit < CAP_MAX_EVENTS)
		x->hitunit[x->nhitunit++] = unit;
	if (u->flags & CAP_HIT) {
		events_add(x->ev, ALL, 0, "%s is hit a second time.", u->name);
		cap_eliminate(x, unit);
		return;
	}
	u->flags |= CAP_HIT;
	if (x->st->npool == 0) {
		u->x[0] = 12;
		events_add(x->ev, ALL, 0, "%s is hit; the token pool is empty: "
		    "it rallies on 12.", u->name);
		return;
	}
	why[0] = '\0';
	if (purposes(x))
		snprintf(why, sizeof why, "hit token for %s", u->id);
	pos = dice_draw_sealed(x->dice, vis, x->st->npool, why);
	u->x[0] = x->st->pool[pos];
	u->x[1] = 0;
	memmove(x->st->pool + pos, x->st->pool + pos + 1,
	    (size_t)(x->st->npool - pos - 1) * sizeof(int));
	x->st->npool--;
	events_add(x->ev, ALL, 0, "%s is hit: %s draws a hit token and puts "
	    "it under the counter.", u->name, by_side >= 0 ?
	    x->g->sides[by_side].name : "the umpire");
	seq = last_sealed(x->dice, before);
	if (seq > 0)
		events_add_rolls(x->ev, vis, vis, seq, 1, "The token under %s "
		    "reads %d.", u->name, u->x[0]);
	else
		events_add(x->ev, vis, 0, "The token under %s reads %d.",
		    u->name, u->x[0]);
}

/* AP cost of unit moving along path (adjacent steps): per hex the
 * counter's move cost plus the terrain's, +1 backwards (into the three
 * rear hexes of the facing it has then). -1 with why when not allowed. */
int
cap_move_cost(const struct cap_state *st, const struct game *g, int unit,
    const struct hex *path, int npath, char *why, size_t whylen)
{
	const struct game_unit *u = &g->units[unit];
	const struct cap_counter *k = cap_counter_of(st, u);
	struct hex at = u->pos;
	int i, dir, cost = 0;

	if (k == NULL) {
		snprintf(why, whylen, "%s has no counter data", u->id);
		return -1;
	}
	if (npath > 1 + (k->vehicle ? k->bonus : 0)) {
		snprintf(why, whylen, "%s may move %d hex%s in one action", u->id,
		    1 + (k->vehicle ? k->bonus : 0), k->vehicle && k->bonus ?
		    "es" : "");
		return -1;
	}
	for (i = 0; i < npath; i++) {
		dir = hex_direction_to(at, path[i]);
		if (dir < 0) {
			snprintf(why, whylen, "the path of %s is not a line of "
			    "adjacent hexes", u->id);
			return -1;
		}
		cost += k->move + cap_terrain_at(st, g, path[i])->move +
		    (cap_backwards(u->facing, dir) ? 1 : 0);
		at = path[i];
	}
	return cost;
}

/* Is an enemy of u's side in hex h? */
static bool
enemy_in(const struct game *g, int side, struct hex h)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].placed && g->units[i].side >= 0 &&
		    g->units[i].side != side && g->units[i].status != CAP_GONE &&
		    hex_eq(g->units[i].pos, h))
			return true;
	return false;
}

/* Resolve one attack of unit on target (rolls 2D6): AV = FP of the colour
 * of the target's DR + 2D6 + caps, -2 FP beyond range, +3 adjacent, same
 * hex -2 (white box) or +4; DV = front or flank DR + terrain. */
static void
attack_one(struct cap_ctx *x, int unit, int target, int caps)
{
	struct game *g = x->g;
	struct game_unit *u = &g->units[unit], *t = &g->units[target];
	const struct cap_counter *ka = cap_counter_of(x->st, u);
	const struct cap_counter *kt = cap_counter_of(x->st, t);
	int fp, d = hex_distance(u->pos, t->pos), roll, av, dv, front, first;
	char why[96], mods[64] = "";

	if (ka == NULL || kt == NULL)
		return;
	fp = ka->fp[kt->drcol];
	if (d == 0) {
		fp += ka->white ? -2 : 4;
		strlcpy_(mods, ka->white ? ", same hex -2" : ", same hex +4",
		    sizeof mods);
	} else if (d == 1) {
		fp += 3;
		strlcpy_(mods, ", adjacent +3", sizeof mods);
	} else if (d > ka->range) {
		fp -= 2;
		strlcpy_(mods, ", beyond range -2", sizeof mods);
	}
	why[0] = '\0';
	if (purposes(x))
		snprintf(why, sizeof why, "%s fires on %s", u->id, t->id);
	first = (int)x->dice->nlog + 1;
	roll = roll_2d6(x, why);
	av = fp + roll + caps;
	front = d > 0 && cap_in_arc(t->pos, t->facing, u->pos);
	dv = kt->dr[front ? 0 : 1] + cap_terrain_at(x->st, g, t->pos)->dv;
	events_add_rolls(x->ev, ALL, 0, first, 2, "%s fires on %s: AV %d (FP "
	    "%d%s, 2D6 %d, CAPs %d) against DV %d (%s DR %d, %s %+d): %s.",
	    u->name, t->name, av, ka->fp[kt->drcol], mods, roll, caps, dv,
	    front ? "front" : "flank", kt->dr[front ? 0 : 1],
	    cap_terrain_at(x->st, g, t->pos)->name,
	    cap_terrain_at(x->st, g, t->pos)->dv, av >= dv + 4 ? "eliminated" :
	    av >= dv ? "a hit" : "no effect");
	if (av >= dv + 4)
		cap_eliminate(x, target);
	else if (av >= dv)
		cap_take_hit(x, target, u->side);
}

/* cap_fire, with row (may be NULL) the units unit may fire at now
 * (cap_fire_row), so that they are not looked at again. */
static int
fire_at(struct cap_ctx *x, int unit, struct hex target, int tunit, int caps,
    const unsigned char *row)
{
	struct game *g = x->g;
	int i, n = 0, targets[64];

	if (tunit >= 0) {
		if (!g->units[tunit].placed || !hex_eq(g->units[tunit].pos,
		    g->units[unit].pos))
			return HP_EINVAL;
		attack_one(x, unit, tunit, caps);
		return HP_OK;
	}
	for (i = 0; i < g->nunits && n < 64; i++)
		if (hex_eq(g->units[i].pos, target) &&
		    (row != NULL ? row[i] != 0 : cap_can_fire(x->st, g, unit,
		    i)))
			targets[n++] = i;
	if (n == 0)
		return HP_EINVAL;
	for (i = 0; i < n; i++)
		if (g->units[targets[i]].placed)
			attack_one(x, unit, targets[i], caps);
	return HP_OK;
}

/* Combat: unit fires on the hex target (range combat: every enemy unit
 * there, rolled one by one) or, tunit >= 0, on the one enemy unit in its
 * own hex (close combat). caps are added to each roll. HP_OK, or
 * HP_EINVAL when the target may not be fired on. */
int
cap_fire(struct cap_ctx *x, int unit, struct hex target, int tunit, int caps)
{
	return fire_at(x, unit, target, tunit, caps, NULL);
}

/* The units unit may fire at: row[i] is cap_can_fire(unit, i) for every
 * unit i (g has at most CAP_FIRE_ROW units). */
void
cap_fire_row(const struct cap_state *st, const struct game *g, int unit,
    unsigned char *row)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		row[i] = cap_can_fire(st, g, unit, i);
}

/* cap_best_target from the row of cap_fire_row. */
static int
best_of_row(const struct game *g, int unit, const unsigned char *row)
{
	int i, best = -1, bd = 1 << 30, d;

	for (i = 0; i < g->nunits; i++) {
		if (!row[i])
			continue;
		d = hex_distance(g->units[unit].pos, g->units[i].pos);
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}

/* A rally attempt of unit: 2D6, +1 in cover, +1 stacked with a friendly
 * unhit unit, >= the token's number removes it (the token goes back to
 * the pool). The token is shown to both. HP_EINVAL when not allowed. */
int
cap_rally(struct cap_ctx *x, int unit, const char *how)
{
	struct game *g = x->g;
	struct game_unit *u = &g->units[unit];
	int i, roll, mod = 0, first;
	bool friend = false;
	char why[64];

	if (!(u->flags & CAP_HIT) || !u->placed || enemy_in(g, u->side,
	    u->pos))
		return HP_EINVAL;
	for (i = 0; i < g->nunits; i++)
		if (i != unit && g->units[i].placed && g->units[i].side ==
		    u->side && !(g->units[i].flags & CAP_HIT) &&
		    hex_eq(g->units[i].pos, u->pos))
			friend = true;
	if (cap_terrain_at(x->st, g, u->pos)->cover)
		mod++;
	if (friend)
		mod++;
	why[0] = '\0';
	if (purposes(x))
		snprintf(why, sizeof why, "rally of %s", u->id);
	first = (int)x->dice->nlog + 1;
	roll = roll_2d6(x, why);
	u->x[1] = 1;
	events_add_rolls(x->ev, ALL, 0, first, 2, "%s tries to rally (%s): "
	    "2D6 %d %+d against its token %d: %s.", u->name, how, roll, mod,
	    u->x[0], roll + mod >= u->x[0] ? "rallied" : "still hit");
	if (roll + mod >= u->x[0]) {
		if (x->st->npool < CAP_MAX_TOKENS)
			x->st->pool[x->st->npool++] = u->x[0];
		u->x[0] = 0;
		u->x[1] = 0;
		u->flags &= ~CAP_HIT;
	}
	return HP_OK;
}

/* Initiative: each side 2D6 + its bid (up to 2 CAPs, paid), ties rolled
 * again; the side that takes the first turn. */
int
cap_initiative(struct cap_ctx *x, const int bid[CAP_SIDES])
{
	int s, r[CAP_SIDES], b[CAP_SIDES], guard, first;
	char why[48];

	for (s = 0; s < CAP_SIDES; s++) {
		int caps = cap_svar(x->g, "cap", s, 0);

		b[s] = bid[s] < 0 ? 0 : bid[s] > 2 ? 2 : bid[s];
		if (b[s] > caps)
			b[s] = caps;
		cap_set_svar(x->g, "cap", s, caps - b[s]);
	}
	for (guard = 0; guard < 50; guard++) {
		first = (int)x->dice->nlog + 1;
		for (s = 0; s < CAP_SIDES; s++) {
			why[0] = '\0';
			if (purposes(x))
				snprintf(why, sizeof why, "initiative of %s",
				    x->g->sides[s].name);
			r[s] = roll_2d6(x, why) + b[s];
		}
		events_add_rolls(x->ev, ALL, 0, first, 4, "Initiative: %s %d "
		    "(%d CAP%s), %s %d (%d CAP%s)%s.", x->g->sides[0].name, r[0],
		    b[0], b[0] == 1 ? "" : "s", x->g->sides[1].name, r[1], b[1],
		    b[1] == 1 ? "" : "s", r[0] == r[1] ? ": a tie, rolled again" :
		    "");
		if (r[0] != r[1])
			break;
	}
	s = r[0] >= r[1] ? 0 : 1;
	events_add(x->ev, ALL, 0, "%s takes the first turn.",
	    x->g->sides[s].label);
	return s;
}

/* The steps 1-6 of a new round: flip spent counters, smoke, reset CAPs,
 * draw cards as per scenario, off-board artillery, reinforcements. */
void
cap_round_start(struct cap_ctx *x, int round)
{
	struct game *g = x->g;
	int i, s, k, n, card, before, seq;
	char why[64];

	events_phase(x->ev, "New round");
	game_set_var(g, "round", round);
	events_add(x->ev, ALL, 0, "Round %d begins.", round);
	for (i = 0; i < g->nunits; i++) {
		struct game_unit *u = &g->units[i];

		if (u->status == CAP_SPENT)
			u->status = 0;
		if (strcmp(u->kind, CAP_SMOKE) == 0 && u->placed) {
			char lbl[8];

			if (--u->strength <= 0) {
				u->placed = false;
				events_add(x->ev, ALL, 0, "The smoke in %s "
				    "clears.", hex_label(&g->layout, u->pos,
				    lbl, sizeof lbl));
			} else
				events_add(x->ev, ALL, 0, "The smoke in %s "
				    "thins.", hex_label(&g->layout, u->pos, lbl,
				    sizeof lbl));
		}
	}
	for (s = 0; s < CAP_SIDES; s++) {
		cap_set_svar(g, "cap", s, cap_svar(g, "capmax", s, 0));
		x->st->log[s][0] = '\0';
	}
	for (s = 0; s < CAP_SIDES; s++) {
		n = cap_svar(g, "draw", s, 1);
		for (k = 0; k < n && x->st->nhand[s] < CAP_MAX_CARDS; k++) {
			why[0] = '\0';
			if (purposes(x))
				snprintf(why, sizeof why, "card for %s",
				    g->sides[s].name);
			before = (int)x->dice->nslog;
			if ((card = cap_draw_card(x, 1u << s, why)) == 0)
				break;
			x->st->hand[s][x->st->nhand[s]++] = card;
			seq = last_sealed(x->dice, before);
			if (seq > 0)
				events_add_rolls(x->ev, 1u << s, 1u << s, seq, 1,
				    "You draw card #%d (%d%s%s).", card,
				    x->st->card[card - 1].num,
				    x->st->card[card - 1].ignore ? ", ignore" :
				    "", x->st->card[card - 1].action ==
				    CARD_RALLY ? ", rally" :
				    x->st->card[card - 1].action == CARD_SMOKE ?
				    ", smoke" : "");
			else
				events_add(x->ev, 1u << s, 0, "You draw card #%d.",
				    card);
			events_add(x->ev, ALL, 0, "%s draws a card (%d in "
			    "hand).", g->sides[s].name, x->st->nhand[s]);
		}
	}
	for (k = 0; k < x->st->narty; k++) {
		const struct cap_arty *a = &x->st->arty[k];
		char lbl[8];
		int first;

		if (a->round != round)
			continue;
		events_add(x->ev, ALL, 0, "Off-board artillery of %s falls on "
		    "%s.", a->side >= 0 ? g->sides[a->side].name : "-",
		    hex_label(&g->layout, a->at, lbl, sizeof lbl));
		for (i = 0; i < g->nunits; i++) {
			struct game_unit *u = &g->units[i];
			const struct cap_counter *kt = cap_counter_of(x->st, u);
			int roll, dv;

			if (!u->placed || kt == NULL || u->side == a->side ||
			    !hex_eq(u->pos, a->at))
				continue;
			why[0] = '\0';
			if (purposes(x))
				snprintf(why, sizeof why, "artillery on %s",
				    u->id);
			first = (int)x->dice->nlog + 1;
			roll = roll_2d6(x, why);
			dv = kt->dr[1] + cap_terrain_at(x->st, g, u->pos)->dv;
			events_add_rolls(x->ev, ALL, 0, first, 2, "Artillery "
			    "on %s: AV %d (FP %d, 2D6 %d) against DV %d.",
			    u->name, a->fp + roll, a->fp, roll, dv);
			if (a->fp + roll >= dv + 4)
				cap_eliminate(x, i);
			else if (a->fp + roll >= dv)
				cap_take_hit(x, i, a->side);
		}
	}
	for (k = 0; k < x->st->nreinf; k++) {
		const struct cap_reinf *r = &x->st->reinf[k];
		struct game_unit *u = game_unit(g, r->unit);
		char lbl[8];

		if (r->round != round || u == NULL || u->placed ||
		    u->status == CAP_GONE)
			continue;
		u->placed = true;
		u->pos = r->at;
		events_add(x->ev, ALL, 0, "Reinforcement: %s enters at %s.",
		    u->name, hex_label(&g->layout, r->at, lbl, sizeof lbl));
	}
}

/* Take card number card from side's hand to the discards; false when it
 * is not there. */
static bool
play_card(struct cap_state *st, int side, int card)
{
	int i;

	for (i = 0; i < st->nhand[side]; i++)
		if (st->hand[side][i] == card) {
			memmove(st->hand[side] + i, st->hand[side] + i + 1,
			    (size_t)(st->nhand[side] - i - 1) * sizeof(int));
			st->nhand[side]--;
			st->disc[st->ndisc++] = card;
			return true;
		}
	return false;
}

/* Pay n CAPs of side; false when it has fewer. */
static bool
pay_caps(struct game *g, int side, int n)
{
	int c = cap_svar(g, "cap", side, 0);

	if (c < n)
		return false;
	cap_set_svar(g, "cap", side, c - n);
	return true;
}

/* One step toward goal for unit: the adjacent hex nearest goal, cheapest
 * first. False when no step brings it nearer. */
static bool
step_toward(const struct cap_state *st, const struct game *g, int unit,
    struct hex goal, struct hex *out)
{
	const struct game_unit *u = &g->units[unit];
	int d0 = hex_distance(u->pos, goal), dir, best = -1, bc = 1 << 20, c;
	char why[128];	/* unread: the reason is not needed here */

	for (dir = 0; dir < 6; dir++) {
		struct hex n = hex_neighbour(u->pos, dir);

		if (!game_on_map(g, n) || hex_distance(n, goal) >= d0)
			continue;
		c = cap_move_cost(st, g, unit, &n, 1, why, sizeof why);
		if (c >= 0 && c < bc) {
			bc = c;
			best = dir;
		}
	}
	if (best < 0)
		return false;
	*out = hex_neighbour(u->pos, best);
	return true;
}

/* Carry out action a of side: HP_OK when done (events, costs, spent
 * check), HP_EINVAL with why when it is not possible now (nothing
 * happens). */
int
cap_do_action(struct cap_ctx *x, int side, const struct cap_action *a,
    char *why, size_t whylen)
{
	struct game *g = x->g;
	struct game_unit *u = a->unit >= 0 ? &g->units[a->unit] : NULL;
	struct sbuf t;
	struct hex path[CAP_MAX_PATH], target;
	int aps = 0, npath = a->npath, tunit = a->tunit, i, fire_ap;
	char lbl[8];
	unsigned char cf[CAP_FIRE_ROW];
	bool row;

	why[0] = '\0';
	if (u != NULL && (!u->placed || u->status == CAP_GONE)) {
		snprintf(why, whylen, "%s is not on the map", u->id);
		return HP_EINVAL;
	}
	if (u != NULL && !a->cmd && u->status == CAP_SPENT) {
		snprintf(why, whylen, "%s is spent", u->id);
		return HP_EINVAL;
	}
	sbuf_init(&t);
	if (a->kind == ACT_CARD)  /* only a card's text goes to the log */
		cap_action_text(g, a, &t);
	fire_ap = game_var(g, "fire.ap", 2);
	switch (a->kind) {
	case ACT_PASS:
		events_add(x->ev, ALL, 0, "%s passes.", g->sides[side].name);
		log_side(x, side, "pass");
		sbuf_free(&t);
		return HP_OK;
	case ACT_STALL:
		events_add(x->ev, ALL, 0, "%s stalls with %s (1 AP).",
		    g->sides[side].name, u->name);
		log_side(x, side, "stall (1 AP)");
		(void)cap_spent_check(x, side, a->unit, 1);
		sbuf_free(&t);
		return HP_OK;
	case ACT_CARD: {
		const struct cap_card *k = a->card <= x->st->ncard ?
		    &x->st->card[a->card - 1] : NULL;
		bool in_hand = false;

		for (i = 0; i < x->st->nhand[side]; i++)
			in_hand |= x->st->hand[side][i] == a->card;
		if (k == NULL || !in_hand) {
			snprintf(why, whylen, "card #%d is not in your hand",
			    a->card);
			break;
		}
		if ((k->action == CARD_RALLY) != (a->tunit >= 0) ||
		    k->action == CARD_NONE) {
			snprintf(why, whylen, "card #%d has no such action",
			    a->card);
			break;
		}
		if (k->action == CARD_RALLY) {
			if (!(g->units[a->tunit].flags & CAP_HIT) ||
			    !g->units[a->tunit].placed ||
			    enemy_in(g, side, g->units[a->tunit].pos)) {
				snprintf(why, whylen, "%s cannot rally (no hit, "
				    "or an enemy in its hex)",
				    g->units[a->tunit].id);
				break;
			}
			(void)play_card(x->st, side, a->card);
			events_add(x->ev, ALL, 0, "%s plays card #%d: a free "
			    "rally.", g->sides[side].name, a->card);
			(void)cap_rally(x, a->tunit, "card");
		} else {
			struct game_unit *m;
			char id[GAME_ID_MAX];

			(void)play_card(x->st, side, a->card);
			snprintf(id, sizeof id, "smoke%d", g->nunits);
			m = game_add_unit(g, id, CAP_SMOKE, "smoke",
			    GAME_SIDE_NONE);
			m->placed = true;
			m->pos = a->target;
			m->strength = 2;
			m->facing = -1;
			m->attached = -1;
			events_add(x->ev, ALL, 0, "%s plays card #%d: smoke in "
			    "%s.", g->sides[side].name, a->card,
			    hex_label(&g->layout, a->target, lbl, sizeof lbl));
		}
		log_side(x, side, t.buf);
		sbuf_free(&t);
		return HP_OK;
	}
	case ACT_PIVOT:
		if (a->cmd && !pay_caps(g, side, 1)) {
			snprintf(why, whylen, "no CAP left for a pivot");
			break;
		}
		u->facing = a->facing;
		events_add(x->ev, ALL, 0, "%s pivots to face %s (%s).", u->name,
		    cap_dir_name(a->facing), a->cmd ? "1 CAP" : "1 AP");
		log_side(x, side, a->cmd ? "pivot (1 CAP)" : "pivot (1 AP)");
		if (!a->cmd)
			(void)cap_spent_check(x, side, a->unit, 1);
		sbuf_free(&t);
		return HP_OK;
	case ACT_MOVE:
		memcpy(path, a->path, sizeof path);
		if (a->toward) {
			if (!step_toward(x->st, g, a->unit, a->path[0],
			    &path[0])) {
				snprintf(why, whylen, "%s is as near %s as it can "
				    "get", u->id, hex_label(&g->layout,
				    a->path[0], lbl, sizeof lbl));
				break;
			}
			npath = 1;
		}
		if ((aps = cap_move_cost(x->st, g, a->unit, path, npath, why,
		    whylen)) < 0)
			break;
		if (a->cmd && !pay_caps(g, side, aps)) {
			snprintf(why, whylen, "%d CAPs needed", aps);
			break;
		}
		for (i = 0; i < npath; i++) {
			int dir = hex_direction_to(u->pos, path[i]);

			if (!cap_backwards(u->facing, dir))
				u->facing = dir;
			u->pos = path[i];
		}
		if (a->facing >= 0)
			u->facing = a->facing;
		events_add(x->ev, ALL, 0, "%s moves to %s, facing %s (%d %s).",
		    u->name, hex_label(&g->layout, u->pos, lbl, sizeof lbl),
		    cap_dir_name(u->facing), aps, a->cmd ? "CAPs" : "AP");
		{
			char line[64];
			struct line ln = { line, sizeof line, 0 };

			/* "move to %s (%d %s)" */
			line_add(&ln, "move to ");
			line_add(&ln, lbl);
			line_add(&ln, " (");
			line_int(&ln, aps);
			line_add(&ln, a->cmd ? " CAP)" : " AP)");
			log_side(x, side, line);
		}
		if (!a->cmd)
			(void)cap_spent_check(x, side, a->unit, aps);
		sbuf_free(&t);
		return HP_OK;
	case ACT_FIRE:
	case ACT_CLOSE:
		target = a->target;
		/* Fire at the best target: whom the unit may fire at is
		 * looked at once for the choice, the check and the fire
		 * (nothing they read changes in between). */
		row = a->best && g->nunits <= CAP_FIRE_ROW;
		if (row && x->row_ok && x->row_unit == a->unit)
			memcpy(cf, x->row, (size_t)g->nunits);
		else if (row)
			cap_fire_row(x->st, g, a->unit, cf);
		if (a->best) {
			int b = row ? best_of_row(g, a->unit, cf) :
			    cap_best_target(x->st, g, a->unit);

			if (b < 0) {
				snprintf(why, whylen, "%s sees no enemy to fire "
				    "on", u->id);
				break;
			}
			target = g->units[b].pos;
		}
		if (a->kind == ACT_CLOSE && (!g->units[tunit].placed ||
		    !hex_eq(g->units[tunit].pos, u->pos))) {
			snprintf(why, whylen, "%s is not in %s's hex",
			    g->units[tunit].id, u->id);
			break;
		}
		if (a->kind == ACT_FIRE) {
			bool any = false;

			for (i = 0; i < g->nunits; i++)
				any |= hex_eq(g->units[i].pos, target) &&
				    (row ? cf[i] != 0 : cap_can_fire(x->st, g,
				    a->unit, i));
			if (!any) {
				snprintf(why, whylen, "no enemy in %s that %s "
				    "can see in its arc and range",
				    hex_label(&g->layout, target, lbl,
				    sizeof lbl), u->id);
				break;
			}
		}
		if (a->caps > cap_svar(g, "cap", side, 0) ||
		    (a->cmd && a->caps + fire_ap > cap_svar(g, "cap", side,
		    0))) {
			snprintf(why, whylen, "not enough CAPs");
			break;
		}
		pay_caps(g, side, a->caps + (a->cmd ? fire_ap : 0));
		{
			char line[80];
			struct line ln = { line, sizeof line, 0 };

			/* "%s (%d %s%s)" */
			line_add(&ln, a->kind == ACT_CLOSE ? "close combat (" :
			    "fire (");
			line_int(&ln, a->cmd ? fire_ap + a->caps : fire_ap);
			line_add(&ln, a->cmd ? " CAP" : " AP");
			line_add(&ln, !a->cmd && a->caps ? ", +CAPs)" : ")");
			log_side(x, side, line);
		}
		events_add(x->ev, ALL, 0, "%s: %s %s (%d %s%s).",
		    g->sides[side].name, u->name, a->kind == ACT_CLOSE ?
		    "closes in" : "opens fire", a->cmd ? fire_ap + a->caps :
		    fire_ap, a->cmd ? "CAPs" : "AP", !a->cmd && a->caps ?
		    " and CAPs on the roll" : "");
		(void)fire_at(x, a->unit, target, a->kind == ACT_CLOSE ?
		    tunit : -1, a->caps, row ? cf : NULL);
		if (!a->cmd && u->placed)
			(void)cap_spent_check(x, side, a->unit, fire_ap);
		sbuf_free(&t);
		return HP_OK;
	case ACT_RALLY:
		if (!(u->flags & CAP_HIT) || enemy_in(g, side, u->pos)) {
			snprintf(why, whylen, "%s cannot rally (no hit, or an "
			    "enemy in its hex)", u->id);
			break;
		}
		if (a->cmd && !pay_caps(g, side, 5)) {
			snprintf(why, whylen, "5 CAPs needed");
			break;
		}
		log_side(x, side, a->cmd ? "rally (5 CAP)" : "rally (5 AP)");
		(void)cap_rally(x, a->unit, a->cmd ? "5 CAPs" : "5 APs");
		if (!a->cmd)
			(void)cap_spent_check(x, side, a->unit, 5);
		sbuf_free(&t);
		return HP_OK;
	default:
		snprintf(why, whylen, "no such action");
		break;
	}
	sbuf_free(&t);
	return HP_EINVAL;
}
