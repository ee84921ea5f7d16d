/* pw_ai: the built-in opponent of Big Board Portable Wargame: Modern, for
 * either side. A simple policy that uses only what the side can see:
 * artillery shoots the target with the best landing modifiers (seen by the
 * gun or a spotter, the same as last turn, not in cover), then the
 * nearest; units next to the enemy close in (if they may advance) or fire;
 * units with a target fire without moving (+1); the defender holds units
 * in cover and slow units but counterattacks enemy units that crossed the
 * river or are down to their last SP; the rest advance along the shortest
 * passable path, dropping off passengers and guns near the enemy;
 * spotters move up until they see the enemy, keeping their distance, and
 * commanders follow the main body of their units.
 *
 * The path search reads one distance field per goal and call, shared by
 * the units with that goal, and gives the very path a search from each
 * unit would (goal_field, field_path; docs/ARCHITECTURE.md §3.2,
 * "Distance fields").
 *
 * Speed (issue 17, third round; §3.2 "Opponent tables"): the buffers are
 * kept per thread (scratch_room), the tables a call reads again and again
 * are made once by hex index (index_passable) and by unit, checks that
 * only read the game are asked in an order that cannot change the choice
 * (fire_target, artillery), goals are found where first read, and the
 * order text goes straight into per-thread buffers (put). Everything is
 * still read from what the side sees (seen, sl, sp): no hidden unit is
 * looked at that the old scans did not look at.
 *
 * Parsed orders (issue 17, ARCHITECTURE §3.2 "Parsed orders"): for
 * simulate, pw_opponent_parsed writes the same text and keeps each line
 * as pw_parse makes it (rec_shot, rec_act, rec_clause: every put of an
 * order line has its record next to it), so the text is not parsed back.
 * test_pw t_opponent_parsed holds the two equal.
 *
 * Last round of issue 17 (pwai2): the same answers for fewer
 * instructions: nearest_seen takes hex_distance as the largest of the
 * three differences and stops at 0; main_body reads the side's
 * positions from one array (op); across_of scans each map row once a
 * call (rowscan, rowfirst); index_passable tests the hexes without
 * branches when the map's cache is armed (the mines markers after) and
 * index_units and index_passable read a hex's row of neighbours once;
 * a unit's kind is read only when it is alive (no reader asks another's:
 * kind[] is -1 for the rest); artillery's observed_seen reuses the cover
 * it already asked (sees_seen); fire_target looks up the terrain only
 * when the unit's own state does not refuse; put_path writes a move's
 * hexes without the variable arguments. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "orders.h"
#include "pw.h"

#define MAXH 4096
#define NBR_UNKNOWN (-2)

/* A buffer of order text, kept per thread from call to call (the passes
 * of activation and the artillery's lines: scratch). */
struct obuf {
	char *buf;
	size_t len, cap;
	/* With a record (pw_opponent_parsed, ai->rec): the lines written,
	 * as pw_parse makes them (out[0]'s shots, the passes'
	 * activations; their line numbers set at the end), nrec of them. */
	struct pw_shot *shot;
	struct pw_act *act;
	int nrec, caprec;
};

struct ai {
	const struct game *g;
	int side;
	bool *seen;                    /* enemy units the side sees, by unit */
	struct hex *taken;             /* ends planned so far (one a unit) */
	int ntaken;
	/* By game hex index (nh = min(nhex, MAXH) entries), made once per
	 * call (the game does not change while the side plans): may a path
	 * enter the hex (index_passable), the path search's visited marks
	 * (visit[k] == stamp: seen in the current search; VISIT_NEVER: a
	 * hex no path may enter), and the index
	 * of each neighbour (-1 off the map; nbr[k][0] NBR_UNKNOWN: not
	 * looked up yet). Sized by the game, not by the limits: a call
	 * allocates a few KB, not a quarter of a megabyte. */
	int nh;
	bool *pass;
	unsigned *visit;
	unsigned stamp;
	int (*nbr)[6];
	/* By unit, made once per call: its kind (pw_kind; -1 for a unit
	 * not alive, whose kind no reader asks), whether it is
	 * alive (pw_alive), and whether it is across the river (0 not asked
	 * yet, 1 no, 2 yes). */
	int *kind;
	bool *alive;
	unsigned char *across;
	/* The enemy units the side sees (seen), in the order of the units:
	 * the loops over them go through these nsl, not every unit. */
	int *sl, nsl;
	/* The side's own units that are alive (pw_alive), in the order of
	 * the units: friend_near, observed and main_body loop over these
	 * nol, not every unit. */
	int *ol, nol;
	/* Their positions (op[s] is units[ol[s]].pos). */
	struct hex *op;
	/* across_of's scans by map row (nrow of them, the layout's rows
	 * up to MAXH): columns looked at, the first river or ford. */
	int *rowscan, *rowfirst, nrow, caprow;
	/* plan_path's queue (hexes, the index each came from, their hex
	 * indexes) and its chain back: nh + 1 entries each. */
	struct hex *q, *chain;
	int *prev, *hi;
	/* Distance fields (see field_path): for up to NFIELD goals asked
	 * this call, the goal, how often it was asked, and (from the second
	 * time) the number of steps from each hex to the hexes a search for
	 * it stops at (-1: none reachable), with the queue that fills it. */
	int nfield;
	struct field {
		struct hex goal;
		/* dist is dmem + 1: dist[-1] is -2 (off the map: no
		 * path enters it). */
		int *dist, *dmem, *q, head, n;
	} field[16];
	/* Per-call tables by hex index (nh entries), made with pass: the
	 * template of a distance field (-1 a hex a path may enter, -2 one
	 * it may not: a field's dist is a copy, so one compare asks both),
	 * the first mines marker in each hex (-1 none: pw_marker_at's
	 * answer for PW_MINES), how many enemy units the side sees stand
	 * in each hex (enemy_at), and how many units block a unit's end
	 * in each (free_end: alive, not carried, not a transport or exempt
	 * unit). hexok: these tables are made (the map fits MAXH). */
	int *dbase, *mines, *seenat, *blk;
	bool hexok;
	/* The positions of the seen enemy units, sl's order (sp[s] is
	 * units[sl[s]].pos): the scans over them read one array. */
	struct hex *sp;
	/* artillery's friend_near marks, by unit. */
	unsigned char *fn;
	/* fire_target's and artillery's candidates (indexes in sl) and
	 * their distances or scores; artillery's marks by seen unit. */
	int *cand, *cdist;
	unsigned char *cov, *spot;
	/* By hex index: is a unit of the side alive in or next to it
	 * (friend_near)? */
	unsigned char *fnear;
	/* By unit, its hex index (-1: off the map or not placed); by hex
	 * index, how many seen enemy units stand next to it (adjany: not
	 * known, ask each). */
	int *uidx, *adjseen;
	bool adjany;
	/* index_units made uidx, mines, blk and fnear (the map fits
	 * MAXH). */
	bool unitsok;
	/* The order text: the artillery's lines (out[0]), then the four
	 * passes of activation (out[1] ... out[4]), in that order. */
	struct obuf out[5];
	/* The positions of the objectives the side does not hold, in the
	 * order of the units (nobj -1: not found yet this call). */
	struct hex *objp;
	int nobj;
	/* Keep a record of the lines (pw_opponent_parsed), and whether one
	 * did not fit pw_orders' limits (then the text is parsed back). */
	bool rec, over;
};
#define NFIELD 16

/* Unit j's type (as pw_type), NULL for none. */
static const struct pw_type *
ai_type(const struct ai *ai, int j)
{
	return ai->kind[j] < 0 ? NULL : &pw_types[ai->kind[j]];
}

/* The labels of the hexes, per thread, by hex index: each written once
 * for the layout they were written for (labels_check starts them again
 * when a call's layout is another); a slot answers only for the
 * position it was written for. */
static _Thread_local struct labels {
	struct hex_layout lay;
	int n;
	struct label {
		struct hex h;
		bool ok;
		char s[8];
	} *l;
} labels;

/* Make labels fit g (its layout, its number of hexes). */
static void
labels_check(const struct game *g)
{
	int k;

	if (labels.l != NULL && labels.n >= g->nhex &&
	    memcmp(&labels.lay, &g->layout, sizeof labels.lay) == 0)
		return;
	if (labels.n < g->nhex) {
		labels.l = xrealloc(labels.l, sizeof *labels.l *
		    (size_t)g->nhex);
		labels.n = g->nhex;
	}
	for (k = 0; k < labels.n; k++)
		labels.l[k].ok = false;
	memcpy(&labels.lay, &g->layout, sizeof labels.lay);
}

/* hex_label(&g->layout, h, buf, 8): from labels when h is on the map
 * (the string is theirs, or buf's off the map). */
static const char *
lbl(const struct game *g, struct hex h, char *buf)
{
	int k = pw_hex_index(g, h);
	struct label *l;

	if (k < 0 || k >= labels.n)
		return hex_label(&g->layout, h, buf, 8);
	l = &labels.l[k];
	if (!l->ok || !hex_eq(l->h, h)) {
		hex_label(&g->layout, h, l->s, sizeof l->s);
		l->h = h;
		l->ok = true;
	}
	return l->s;
}

/* Append the strings to o up to a NULL: the order lines are written
 * without printf (a simulation writes thousands of them), byte by byte
 * into o's room. */
static void put(struct obuf *, ...) __attribute__((sentinel));

static void
put(struct obuf *o, ...)
{
	const char *p;
	char *w, *end;
	va_list ap;

	if (o->cap - o->len < 256) {
		o->cap = o->cap * 2 + 256;
		o->buf = xrealloc(o->buf, o->cap);
	}
	w = o->buf + o->len;
	end = o->buf + o->cap;
	va_start(ap, o);
	while ((p = va_arg(ap, const char *)) != NULL)
		while (*p != '\0') {
			if (w == end) {
				o->len = (size_t)(w - o->buf);
				o->cap *= 2;
				o->buf = xrealloc(o->buf, o->cap);
				w = o->buf + o->len;
				end = o->buf + o->cap;
			}
			*w++ = *p++;
		}
	va_end(ap);
	o->len = (size_t)(w - o->buf);
}

/* put(o, " ", lbl(g, h, buf), NULL) without the variable arguments (a
 * move writes one a hex). */
static void
put_path(struct obuf *o, const struct game *g, struct hex h)
{
	char a[8];
	const char *p = lbl(g, h, a);
	size_t n = strlen(p);

	if (o->cap - o->len < n + 2) {
		o->cap = o->cap * 2 + 256 + n;
		o->buf = xrealloc(o->buf, o->cap);
	}
	o->buf[o->len++] = ' ';
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* A new activation line of unit i in o's record, started as
 * parse_orders starts one (its counts only: each clause is cleared as it
 * is added); NULL when the call keeps no record (the storage is o's). */
static struct pw_act *
rec_act(struct ai *ai, struct obuf *o, int i)
{
	struct pw_act *a;

	if (!ai->rec)
		return NULL;
	if (o->nrec == o->caprec) {
		o->caprec = o->caprec * 2 + 16;
		o->act = xrealloc(o->act, (size_t)o->caprec * sizeof *o->act);
	}
	a = &o->act[o->nrec++];
	a->unit = i;
	a->line = 0;
	a->nclause = 0;
	return a;
}

/* Add to a (NULL: no record) the clause kind with the n hexes h and arg,
 * zeroed first as parse_act does; one past pw_orders' limits marks the
 * call over. */
static void
rec_clause(struct ai *ai, struct pw_act *a, enum pw_clause_kind kind,
    const struct hex *h, int n, int arg)
{
	struct pw_clause *c;

	if (a == NULL)
		return;
	if (a->nclause >= PW_CLAUSES_MAX || n > PW_PATH_MAX) {
		ai->over = true;
		return;
	}
	c = &a->c[a->nclause++];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->n = n;
	if (n > 0)
		memcpy(c->h, h, (size_t)n * sizeof *h);
	c->arg = arg;
}

/* Record the shot of gun i at t (gas: with its gas shell) in o, when the
 * call keeps a record. */
static void
rec_shot(struct ai *ai, struct obuf *o, int i, struct hex t, bool gas)
{
	struct pw_shot *s;

	if (!ai->rec)
		return;
	if (o->nrec == o->caprec) {
		o->caprec = o->caprec * 2 + 16;
		o->shot = xrealloc(o->shot, (size_t)o->caprec *
		    sizeof *o->shot);
	}
	s = &o->shot[o->nrec++];
	memset(s, 0, sizeof *s);
	s->unit = i;
	s->target = t;
	s->gas = gas;
}

/* Each enemy unit j the side sees, in the order of the units (s counts
 * them): as a loop over every unit that skips those the side does not
 * see (ai->seen: alive, not carried, visible). */
#define FOR_SEEN(ai, j, s) \
	for ((s) = 0; (s) < (ai)->nsl && ((j) = (ai)->sl[(s)]) >= 0; (s)++)

/* The nearest enemy unit the side can see, -1 if none. */
static int
nearest_seen(const struct ai *ai, struct hex h, int *dist)
{
	int best = -1, d, s, bd = 1000, dq, dr, ds, n = ai->nsl;
	const struct hex *sp = ai->sp;

	/* hex_distance as the largest of the three differences (the same
	 * number); none is nearer than 0, so the first at 0 ends it. */
	for (s = 0; s < n; s++) {
		dq = sp[s].q - h.q;
		dr = sp[s].r - h.r;
		ds = dq + dr;
		dq = dq < 0 ? -dq : dq;
		dr = dr < 0 ? -dr : dr;
		ds = ds < 0 ? -ds : ds;
		d = dq > dr ? dq : dr;
		d = d > ds ? d : ds;
		if (d < bd) {
			bd = d;
			best = s;
			if (d == 0)
				break;
		}
	}
	*dist = bd;
	return best < 0 ? -1 : ai->sl[best];
}

/* Is there an enemy unit the side sees in h? (Hidden ones are unknown to
 * the opponent too: a path into one stops where the rules stop it.) */
static bool
enemy_at(const struct ai *ai, struct hex h)
{
	int s, k;

	if (ai->hexok && (k = pw_hex_index(ai->g, h)) >= 0)
		return ai->seenat[k] > 0;
	for (s = 0; s < ai->nsl; s++)
		if (hex_eq(ai->sp[s], h))
			return true;
	return false;
}

/* pw_marker_at(g, h, PW_MINES), from the table of the call when h is on
 * the map. */
static int
mines_at(const struct ai *ai, struct hex h)
{
	int k;

	if (ai->hexok && (k = pw_hex_index(ai->g, h)) >= 0)
		return ai->mines[k];
	return pw_marker_at(ai->g, h, PW_MINES);
}

static bool
known_mines(const struct ai *ai, struct hex h)
{
	int m = mines_at(ai, h);

	return m >= 0 && pw_visible(ai->g, ai->side, m);
}

/* The index of h among the game's hexes, -1 when it is off the map. */
static int
hex_index(const struct game *g, struct hex h)
{
	return pw_hex_index(g, h);
}

/* Clear the path search's visited marks: 0 for the hexes a path may
 * enter, VISIT_NEVER for the others (no search enters them: a stamp is
 * always below it). */
#define VISIT_NEVER UINT_MAX
static void
visit_reset(struct ai *ai)
{
	int k;

	for (k = 0; k < ai->nh; k++)
		ai->visit[k] = ai->pass[k] ? 0 : VISIT_NEVER;
	ai->stamp = 0;
}

/* The per-call tables that need only the units (before who the side
 * sees is known): each unit's hex index, the first mines marker of each
 * hex (as pw_marker_at finds it), the units that block an end in each,
 * and the hexes in or next to the side's living units (fnear). */
static void
index_units(struct ai *ai)
{
	const struct game *g = ai->g;
	int k, j, s, t, *first_mines = ai->mines;
	const int none = -1;
	const unsigned ex = PW_C_TRANSPORT | PW_C_EXEMPT;
	const int (*nbr)[6] = pw_map_neighbours(g);

	ai->unitsok = false;
	if (g->nhex > MAXH)
		return;
	/* none is -1: every byte 0xff. */
	memset(first_mines, 0xff, sizeof *first_mines * (size_t)g->nhex);
	memset(ai->seenat, 0, sizeof *ai->seenat * (size_t)g->nhex);
	memset(ai->blk, 0, sizeof *ai->blk * (size_t)g->nhex);
	memset(ai->fnear, 0, sizeof *ai->fnear * (size_t)g->nhex);
	memset(ai->adjseen, 0, sizeof *ai->adjseen * (size_t)g->nhex);
	for (j = 0; j < g->nunits; j++) {
		const struct game_unit *u = &g->units[j];

		/* Each unit's hex, once, for the units alive and the
		 * mines markers (the only ones the tables below and their
		 * readers ask about). */
		if (ai->alive[j])
			k = hex_index(g, u->pos);
		else if (u->placed && pw_kind_is(u, PW_MINES))
			k = hex_index(g, u->pos);
		else
			k = -1;
		ai->uidx[j] = k;
		if (k < 0)
			continue;
		if (!ai->alive[j] && first_mines[k] == none)
			first_mines[k] = j;
		/* free_end's blockers (a unit of no kind counts, as its
		 * scan would fail on one). */
		if (ai->alive[j] && u->attached < 0 && (ai->kind[j] < 0 ||
		    !(ai_type(ai, j)->cls & ex)))
			ai->blk[k]++;
	}
	/* friend_near's hexes: each unit's own and its neighbours'. */
	for (s = 0; s < ai->nol; s++) {
		struct hex h = g->units[ai->ol[s]].pos;

		if ((k = ai->uidx[ai->ol[s]]) >= 0)
			ai->fnear[k] = 1;
		if (k >= 0 && nbr != NULL) {
			/* The map's row of neighbours, off the map -1. */
			const int *row = nbr[k];
			unsigned char *fnear = ai->fnear;

			for (t = 0; t < 6; t++)
				if (row[t] >= 0)
					fnear[row[t]] = 1;
			continue;
		}
		for (t = 0; t < 6; t++) {
			j = hex_index(g, hex_neighbour(h, t));
			if (j >= 0)
				ai->fnear[j] = 1;
		}
	}
	ai->unitsok = true;
}

/* Fill ai->pass: may a path enter each hex of the map (on it, not a river,
 * no mines the side knows of, no enemy unit it sees), in one pass over the
 * hexes (the first mines marker of a hex decides whether the side knows
 * of mines there); and the other tables that need the seen enemy units
 * (index_units made the rest). */
static void
index_passable(struct ai *ai)
{
	const struct game *g = ai->g;
	int k, j, s, t, *first_mines = ai->mines;
	const int none = -1;
	const bool *first = NULL;
	const signed char *terr = pw_map_terrain(g, &first);

	ai->hexok = false;
	if (!ai->unitsok) {
		memset(ai->pass, 0, sizeof *ai->pass * (size_t)ai->nh);
		return;
	}
	/* Neighbours are looked up when a search first reaches a hex. */
	for (k = 0; pw_map_neighbours(g) == NULL && k < g->nhex; k++)
		ai->nbr[k][0] = NBR_UNKNOWN;
	/* The seen enemy units first: no path enters their hexes; and the
	 * hexes next to them (adjseen; adjany: one is off the map, or the
	 * map has no neighbour table, so the hexes next to it are not
	 * marked). */
	{
		const int (*nbr)[6] = pw_map_neighbours(g);

		ai->adjany = nbr == NULL;
		FOR_SEEN(ai, j, s)
			if ((k = ai->uidx[j]) >= 0) {
				ai->seenat[k]++;
				if (nbr != NULL) {
					const int *row = nbr[k];
					int *adj = ai->adjseen;

					for (t = 0; t < 6; t++)
						if (row[t] >= 0)
							adj[row[t]]++;
				}
			} else
				ai->adjany = true;
	}
	{
		/* The tables in locals (a store to one could otherwise be
		 * one to ai). */
		bool *pass = ai->pass;
		int *dbase = ai->dbase;
		const int *seenat = ai->seenat;

		/* With the map's cache: the tests of each hex without
		 * branches, then the hexes of a mines marker (index_units
		 * filed the first of each hex) asked whether the side knows
		 * of it. */
		if (terr != NULL) {
			for (k = 0; k < g->nhex; k++) {
				int p = (int)first[k] & (terr[k] >= 0) &
				    (terr[k] != PW_T_RIVER) & (seenat[k] == 0);

				pass[k] = p != 0;
				dbase[k] = p - 2;
			}
			for (j = 0; j < g->nunits; j++)
				if ((k = ai->uidx[j]) >= 0 && first_mines[k] ==
				    j && pass[k] && pw_visible(g, ai->side, j)) {
					pass[k] = false;
					dbase[k] = -2;
				}
		}
		for (k = 0; terr == NULL && k < g->nhex; k++) {
			bool p;

			/* The first hex at this position answers for it (the
			 * map's cache knows which it is, and its terrain). */
			if (terr != NULL ? !first[k] : hex_index(g,
			    g->hexes[k].h) != k)
				p = false;
			else {
				t = terr != NULL ? terr[k] : pw_terrain(g,
				    g->hexes[k].h);
				p = t >= 0 && t != PW_T_RIVER && seenat[k] == 0 &&
				    !(first_mines[k] != none && pw_visible(g,
				    ai->side, first_mines[k]));
			}
			/* With the template of the distance fields. */
			pass[k] = p;
			dbase[k] = p ? -1 : -2;
		}
	}
	for (k = g->nhex < 0 ? 0 : g->nhex; k < ai->nh; k++) {
		ai->pass[k] = false;
		ai->dbase[k] = -2;
	}
	ai->stamp = VISIT_NEVER - 1;
	ai->hexok = true;
}

/* Is h free for unit i to end in (other units, plans made so far)? */
static bool
free_end(const struct ai *ai, int i, struct hex h)
{
	const struct game *g = ai->g;
	unsigned ex = PW_C_TRANSPORT | PW_C_EXEMPT;
	int j, k;

	if (ai_type(ai, i)->cls & ex)
		return !enemy_at(ai, h);
	if (ai->hexok && (k = hex_index(g, h)) >= 0) {
		/* The blockers in h, but for i itself (not exempt here). */
		if (ai->blk[k] - (ai->alive[i] && g->units[i].attached < 0 &&
		    hex_eq(g->units[i].pos, h) ? 1 : 0) > 0)
			return false;
	} else
		for (j = 0; j < g->nunits; j++) {
			const struct game_unit *o = &g->units[j];

			if (j != i && ai->alive[j] && o->attached < 0 &&
			    hex_eq(o->pos, h) && !(ai_type(ai, j)->cls & ex))
				return false;
		}
	for (j = 0; j < ai->ntaken; j++)
		if (hex_eq(ai->taken[j], h))
			return false;
	return true;
}

/* The distance field of goal (lb as plan_path computes it: 0 when a
 * path may enter the goal, else 1): the number of steps from a hex a path
 * may enter to the nearest such hex at distance lb from the goal (the
 * hexes plan_path's search stops at), by a breadth-first search out from
 * those hexes over the hexes a path may enter. The search goes only as
 * far as a unit asks (field_path resumes it), and every unit of the call
 * with the same goal reads the same field. Owned by ai; NULL without the
 * map's neighbour table or when the table of fields is full (plan_path
 * then searches as before). */
static struct field *
goal_field(struct ai *ai, struct hex goal, int lb)
{
	const struct game *g = ai->g;
	struct field *f;
	int i, k, d;

	if (pw_map_neighbours(g) == NULL || ai->nh >= MAXH)
		return NULL;
	for (i = 0; i < ai->nfield; i++)
		if (hex_eq(ai->field[i].goal, goal))
			return &ai->field[i];
	if (ai->nfield == NFIELD)
		return NULL;
	if (!ai->hexok)
		return NULL;
	f = &ai->field[ai->nfield++];
	f->goal = goal;
	/* The buffers are kept from call to call (scratch_room). */
	f->head = f->n = 0;
	f->dist[-1] = -2;
	memcpy(f->dist, ai->dbase, sizeof *f->dist * (size_t)ai->nh);
	/* The hexes the search stops at: the goal, or the hexes next to
	 * it, that a path may enter. */
	for (d = lb == 0 ? -1 : 0; d < (lb == 0 ? 0 : 6); d++) {
		k = hex_index(g, d < 0 ? goal : hex_neighbour(goal, d));
		if (k >= 0 && f->dist[k] == -1) {
			f->dist[k] = 0;
			f->q[f->n++] = k;
		}
	}
	return f;
}

/* The first steps (up to max) of plan_path's path from start (hex index
 * hs, -1 off the map) into fw, from the distance field of its goal; -1
 * when no hex the search stops at is reachable (plan_path then searches
 * the whole map as before). The search's path is the one its queue
 * reaches first: the fewest steps, and among those the one whose
 * directions (0..5, the order neighbours enter the queue) come first
 * letter by letter; so each step goes to the first neighbour, in
 * direction order, one step nearer in the field. The same hexes as the
 * search's path, ties included. */
static int
field_path(const struct ai *ai, struct field *f, struct hex start, int hs,
    int max, struct hex *fw)
{
	const struct game *g = ai->g;
	const int (*nbr)[6] = pw_map_neighbours(g);
	int nb[6], d, k, want, n = 0, cur, *dist = f->dist, lv;

	/* The start's neighbours (it may be off the map). */
	for (d = 0; d < 6; d++)
		nb[d] = hs >= 0 ? nbr[hs][d] : hex_index(g,
		    hex_neighbour(start, d));
	for (;;) {
		want = INT_MAX;
		for (d = 0; d < 6; d++)
			if (nb[d] >= 0 && dist[nb[d]] >= 0 &&
			    dist[nb[d]] < want)
				want = dist[nb[d]];
		/* Every hex nearer than the next one to leave the queue
		 * has its distance: once the start's nearest neighbour is
		 * among them, the walk below reads only those. */
		if (f->head == f->n || (want != INT_MAX &&
		    dist[f->q[f->head]] >= want))
			break;
		/* One more ring of the search (its queue's ends in locals:
		 * a store to dist could otherwise be one to them). */
		{
			int head = f->head, tail = f->n, *q = f->q;
			const int *row;

			lv = dist[q[head]];
			/* The six directions written out, in order (the
			 * queue's order is the search's); off the map (-1)
			 * reads dist[-1], -2. */
#define RING_STEP(d) \
	if (dist[k = row[d]] == -1) { \
		dist[k] = lv + 1; \
		q[tail++] = k; \
	}
			while (head < tail && dist[q[head]] == lv) {
				row = nbr[q[head++]];
				RING_STEP(0)
				RING_STEP(1)
				RING_STEP(2)
				RING_STEP(3)
				RING_STEP(4)
				RING_STEP(5)
			}
#undef RING_STEP
			f->head = head;
			f->n = tail;
		}
	}
	if (want == INT_MAX)
		return -1;
	for (d = 0; d < 6 && !(nb[d] >= 0 && dist[nb[d]] == want); d++)
		;
	cur = nb[d];
	while (n < max) {
		fw[n++] = g->hexes[cur].h;
		if (dist[cur] == 0)
			break;
		for (d = 0; d < 6; d++)
			if ((k = nbr[cur][d]) >= 0 && dist[k] == dist[cur] - 1)
				break;
		cur = nbr[cur][d];
	}
	return n;
}

/* Shortest passable path from unit i's hex towards goal (stopping next
 * to it); writes up to max hexes into path, returns their number. */
static int
plan_path(struct ai *ai, int i, struct hex goal, int max, struct hex *path)
{
	const struct game *g = ai->g;
	/* The queue and the chain back from its end in the buffers of ai
	 * (nh + 1 entries: each hex enters the queue once, and the start):
	 * not on the stack, where their pages would be probed each call. */
	struct hex start = g->units[i].pos, *q = ai->q, best;
	int *prev = ai->prev, *hi = ai->hi, n = 0, head = 0, k, d, bi = 0, bd;
	int len, steps = 0, lb, nf;
	struct hex *chain = ai->chain;
	const int (*mapnbr)[6] = pw_map_neighbours(g);
	const int *row;

	if (g->nhex > MAXH)
		return 0;
	/* Out of a wood, or on from a ford or trench it is crossing: one
	 * hex (the parser refuses more). */
	if (pw_terrain(g, start) == PW_T_WOOD ||
	    (g->units[i].flags & PW_F_CROSSING))
		max = max < 1 ? max : 1;
	q[n] = start;
	prev[n++] = -1;
	best = start;
	bd = hex_distance(start, goal);
	hi[0] = hex_index(g, start);
	/* No hex can come nearer the goal than the goal itself (0) or, when
	 * a path may not enter it, its neighbours (1): once one is found,
	 * the rest of the search could not change the path. */
	k = hex_index(g, goal);
	lb = hex_eq(start, goal) || (k >= 0 && ai->pass[k]) ? 0 : 1;
	/* A goal asked before in this call: its distance field gives the
	 * same path without a search (the start itself near enough: no
	 * path, as the search finds). */
	if (hex_distance(start, goal) > lb) {
		struct field *f = goal_field(ai, goal, lb);

		if (f != NULL && (nf = field_path(ai, f, start, hi[0], max,
		    ai->chain)) >= 0)
			goto walk;
	}
	/* The search itself. Visited marks by hex index (the start too); a
	 * new stamp clears them all (index_passable leaves the stamp at
	 * the last before VISIT_NEVER: the first search of a call clears
	 * the marks, a call with no search never does). */
	if (++ai->stamp == VISIT_NEVER) {
		visit_reset(ai);
		ai->stamp = 1;
	}
	if (hi[0] >= 0)
		ai->visit[hi[0]] = ai->visit[hi[0]] == VISIT_NEVER ? VISIT_NEVER :
		    ai->stamp;
	while (head < n) {
		struct hex h = q[head];

		if (hex_distance(h, goal) < bd) {
			bd = hex_distance(h, goal);
			best = h;
			bi = head;
		}
		if (bd <= lb)
			break;
		if (hi[head] >= 0 && mapnbr == NULL &&
		    ai->nbr[hi[head]][0] == NBR_UNKNOWN)
			for (d = 0; d < 6; d++)
				ai->nbr[hi[head]][d] = hex_index(g,
				    hex_neighbour(h, d));
		/* A hex off the map (hi -1: the start alone can be) has its
		 * neighbours looked up; the map's table answers when the
		 * cache is armed. */
		row = hi[head] < 0 ? NULL : mapnbr != NULL ? mapnbr[hi[head]] :
		    ai->nbr[hi[head]];
		for (d = 0; d < 6; d++) {
			k = row != NULL ? row[d] : hex_index(g, hex_neighbour(h,
			    d));
			/* visit[k] >= stamp: seen in this search, or a
			 * hex no path may enter (VISIT_NEVER). */
			if (k < 0 || ai->visit[k] >= ai->stamp ||
			    n >= MAXH)
				continue;
			ai->visit[k] = ai->stamp;
			hi[n] = k;
			q[n] = g->hexes[k].h;
			prev[n++] = head;
		}
		head++;
	}
	(void)best;
	len = 0;
	for (k = bi; k > 0 && len < MAXH; k = prev[k])
		chain[len++] = q[k];
	/* chain is reversed (chain[len-1] is the first step): put it in
	 * order, in place. */
	for (k = 0; k < len / 2; k++) {
		struct hex x = chain[k];

		chain[k] = chain[len - 1 - k];
		chain[len - 1 - k] = x;
	}
	nf = len;
walk:
	for (k = 0; k < nf && steps < max; k++) {
		int t;

		path[steps++] = chain[k];
		t = pw_terrain(g, chain[k]);
		if (t == PW_T_WOOD || t == PW_T_FORD || t == PW_T_TRENCH ||
		    hex_distance(chain[k], goal) <= 1)
			break;
	}
	while (steps > 0 && !free_end(ai, i, path[steps - 1]))
		steps--;
	return steps;
}

static void
goal_of(const struct ai *ai, int i, struct hex *goal, int *dist)
    __attribute__((noinline));

static void
goal_of(const struct ai *ai, int i, struct hex *goal, int *dist)
{
	const struct game *g = ai->g;
	int e = nearest_seen(ai, g->units[i].pos, dist);

	if (e >= 0) {
		*goal = g->units[e].pos;
		return;
	}
	{
		struct hex_offset o = { ai->side == PW_BLUE ? g->layout.cols - 2 :
			1, g->layout.rows / 2 };

		*goal = hex_from_offset(&g->layout, o);
		*dist = hex_distance(*goal, g->units[i].pos);
	}
}

/* The nearest objective the side does not hold, from h; false if it holds
 * them all (or the scenario has none). */
static bool
objective_goal(struct ai *ai, struct hex h, struct hex *goal)
{
	const struct game *g = ai->g;
	int j, d, bd = 1000;

	/* The objectives the side does not hold, in the order of the
	 * units, found once per call. */
	if (ai->nobj < 0)
		for (ai->nobj = 0, j = 0; j < g->nunits; j++)
			if (g->units[j].placed && g->units[j].side !=
			    ai->side && pw_kind_is(&g->units[j], PW_OBJECTIVE))
				ai->objp[ai->nobj++] = g->units[j].pos;
	for (j = 0; j < ai->nobj; j++)
		if ((d = hex_distance(ai->objp[j], h)) < bd) {
			bd = d;
			*goal = ai->objp[j];
		}
	return bd < 1000;
}

/* A target hex unit i can fire at from where it stands, or false. */
static bool
fire_target(const struct ai *ai, int i, struct hex *t)
{
	const struct game *g = ai->g;
	const struct pw_type *ty = ai_type(ai, i);
	int range, d, s, n = 0, k, maxd = INT_MAX, *cand = ai->cand;
	struct hex at = g->units[i].pos;

	/* pw_can_fire says no to a target nearer than 1 or beyond the
	 * unit's range (whatever the line): those are not asked. In a wood
	 * the range it checks is the unit's or 1 (the line's next hex a
	 * wood too), so beyond the larger of the two is no as well. */
	int tt;

	/* What pw_can_fire says no to first, whatever the target (the
	 * unit's weapon, having fired or moved its whole allowance, being
	 * carried, standing in a ford or crossing a trench): no target is
	 * asked; the hex's terrain only looked up when the unit's own
	 * state does not say no already. */
	if (ty != NULL && (ty->weapon == PW_W_NONE || (ty->cls & PW_C_ART) ||
	    (g->units[i].flags & (PW_F_FIRED | PW_F_FULLMOVE)) ||
	    g->units[i].attached >= 0))
		return false;
	tt = pw_terrain(g, at);
	if (ty != NULL)
		maxd = tt != PW_T_WOOD || ty->range >= 1 ? ty->range : 1;
	if (ty != NULL && (tt == PW_T_FORD ||
	    ((g->units[i].flags & PW_F_CROSSING) && tt == PW_T_TRENCH)))
		return false;
	/* The nearest seen enemy unit it can fire at, the first in the
	 * order of the units among those as near: the candidates sorted by
	 * distance (stable: in their order among equals), asked until one
	 * says yes (pw_can_fire only reads the game, so the units not
	 * asked could not change the answer). */
	for (s = 0; s < ai->nsl; s++) {
		d = hex_distance(ai->sp[s], at);
		if (d < 1 || d > maxd || d >= 1000)
			continue;
		for (k = n++; k > 0 && ai->cdist[k - 1] > d; k--) {
			cand[k] = cand[k - 1];
			ai->cdist[k] = ai->cdist[k - 1];
		}
		cand[k] = s;
		ai->cdist[k] = d;
	}
	for (k = 0; k < n; k++)
		if (pw_can_fire(g, i, ai->sp[cand[k]], &range, NULL, 0)) {
			*t = ai->sp[cand[k]];
			return true;
		}
	return false;
}

/* Is a unit of the side (alive) in or next to h? */
static bool
friend_near(const struct ai *ai, struct hex h)
{
	int s;

	int k;

	/* The hexes in or next to the side's units are marked once per
	 * call (fnear); a hex off the map is asked of each unit. */
	if (ai->hexok && (k = pw_hex_index(ai->g, h)) >= 0)
		return ai->fnear[k] != 0;
	for (s = 0; s < ai->nol; s++)
		if (hex_distance(ai->g->units[ai->ol[s]].pos, h) <= 1)
			return true;
	return false;
}

/* Has enemy unit j crossed the river towards the defender (Red, the east
 * side of the board): is there a river or ford hex west of it in its row?
 * Blue's units are never "across". */
static bool
across_of(const struct ai *ai, int j)
{
	const struct game *g = ai->g;
	struct hex_offset o = hex_to_offset(&g->layout, g->units[j].pos), w;
	int t;

	if (g->units[j].side != PW_BLUE)
		return false;
	/* A row of the map is scanned once a call, from the west, only as
	 * far as a unit asks (rowscan[row] columns looked at so far,
	 * rowfirst[row] the first river or ford among them, -1 none). */
	if (o.row >= 0 && o.row < ai->nrow) {
		int *sc = &ai->rowscan[o.row], *fi = &ai->rowfirst[o.row];

		if (*fi >= 0)
			return *fi < o.col;
		for (w.row = o.row, w.col = *sc; w.col < o.col; w.col++) {
			t = pw_terrain(g, hex_from_offset(&g->layout, w));
			if (t == PW_T_RIVER || t == PW_T_FORD) {
				*fi = w.col;
				*sc = w.col + 1;
				return true;
			}
		}
		if (o.col > *sc)
			*sc = o.col;
		return false;
	}
	for (w.row = o.row, w.col = 0; w.col < o.col; w.col++) {
		t = pw_terrain(g, hex_from_offset(&g->layout, w));
		if (t == PW_T_RIVER || t == PW_T_FORD)
			return true;
	}
	return false;
}

/* across_of(ai, j), asked once per call of the opponent. */
static bool
across(const struct ai *ai, int j)
{
	if (ai->across[j] == 0)
		ai->across[j] = across_of(ai, j) ? 2 : 1;
	return ai->across[j] == 2;
}

/* pw_sees(g, a, ai->sp[s]) with the cover of the seen unit's hex known
 * (cov 2: cover, 1: not): in or next to it, or a line to it out of
 * cover, as pw_sees answers. */
static bool
sees_seen(const struct ai *ai, struct hex a, int s, int cov)
{
	struct hex h = ai->sp[s];

	if (hex_distance(a, h) <= 1)
		return true;
	return cov == 1 && pw_los(ai->g, a, h, false);
}

/* Does a spotter of the side (or gun i itself) see the seen unit s
 * directly? The spotters' part (the same for every gun) is asked once
 * per seen unit: spot[s] 0 not asked yet, 1 no, 2 yes. The cover of
 * its hex is cov[s] (artillery asked it). */
static bool
observed_seen(const struct ai *ai, int i, int s, unsigned char *spot,
    const unsigned char *cov)
{
	const struct game *g = ai->g;
	int j, o;

	if (sees_seen(ai, g->units[i].pos, s, cov[s]))
		return true;
	if (spot[s] == 0) {
		spot[s] = 1;
		for (o = 0; o < ai->nol; o++)
			if (ai->kind[j = ai->ol[o]] == PW_SPOTTER &&
			    sees_seen(ai, g->units[j].pos, s, cov[s])) {
				spot[s] = 2;
				break;
			}
	}
	return spot[s] == 2;
}

static void
artillery(struct ai *ai)
{
	struct obuf *b = &ai->out[0];
	const struct game *g = ai->g;
	int i, j, d, best, bs, s, n, k, lo, range, *cand = ai->cand;
	char a[8];
	/* friend_near of each enemy unit's hex, the same for every gun:
	 * 0 not asked yet, 1 no, 2 yes; by seen unit (s), the cover of its
	 * hex (0 not asked yet, 1 no, 2 yes) and whether a spotter sees it
	 * (observed_seen). */
	unsigned char *fn = ai->fn, *cov = ai->cov, *spot = ai->spot;

	memset(fn, 0, (size_t)(g->nunits > 0 ? g->nunits : 1));
	memset(cov, 0, (size_t)(ai->nsl > 0 ? ai->nsl : 1));
	memset(spot, 0, (size_t)(ai->nsl > 0 ? ai->nsl : 1));

	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		struct hex t = u->pos, last = { u->x[PW_X_LASTQ],
			u->x[PW_X_LASTR] };
		bool found = false;

		if (u->side != ai->side || !ai->alive[i] ||
		    !(ai_type(ai, i)->cls & PW_C_ART) || u->attached >= 0)
			continue;
		range = ai_type(ai, i)->range;
		/* The target with the best score: the landing modifiers
		 * first (+2 observed, +1 the same target, -1 cover), then
		 * the distance; the first in the order of the units among
		 * the best. The score without the observed term (lo) is
		 * never above the score: the targets are asked in the order
		 * of lo (stable), and once lo passes the best score none
		 * after could beat or tie it, so they are not asked
		 * (pw_art_can_fire and observed only read the game). */
		n = 0;
		FOR_SEEN(ai, j, s) {
			struct hex h = ai->sp[s];

			/* (Its hex index known: the table at once.) */
			if (fn[j] == 0)
				fn[j] = (ai->hexok && ai->uidx[j] >= 0 ?
				    ai->fnear[ai->uidx[j]] != 0 :
				    friend_near(ai, h)) ? 2 : 1;
			/* pw_art_can_fire says no to a target out of the
			 * gun's range (the gun is alive and not carried):
			 * not asked. */
			if (fn[j] == 2 || (d = hex_distance(u->pos, h)) < 1 ||
			    d > range)
				continue;
			if (cov[s] == 0)
				cov[s] = pw_cover(g, h) ? 2 : 1;
			lo = d + 100 * ((u->x[PW_X_LASTT] == g->turn - 1 &&
			    hex_eq(h, last) ? 0 : 1) + (cov[s] == 2 ? 1 : 0));
			for (k = n++; k > 0 && ai->cdist[k - 1] > lo; k--) {
				cand[k] = cand[k - 1];
				ai->cdist[k] = ai->cdist[k - 1];
			}
			cand[k] = s;
			ai->cdist[k] = lo;
		}
		best = 1000;
		bs = -1;
		for (k = 0; k < n && ai->cdist[k] <= best; k++) {
			s = cand[k];
			if (!pw_art_can_fire(g, i, ai->sp[s], NULL, 0))
				continue;
			d = ai->cdist[k] + (observed_seen(ai, i, s, spot,
			    cov) ? 0 : 200);
			if (d < best || (d == best && s < bs)) {
				best = d;
				bs = s;
				t = ai->sp[s];
				found = true;
			}
		}
		if (found) {
			bool gas = game_option_flag(g, "gas") &&
			    !(u->flags & PW_F_GAS) && hex_distance(t, u->pos) >= 4;

			put(b, "shoot ", u->id, " ", lbl(g, t, a),
			    gas ? " gas" : "", "\n", (char *)NULL);
			rec_shot(ai, b, i, t, gas);
		}
	}
}

/* The defender's counterattack for unit i (which may advance): the
 * nearest seen enemy across the river or down to its last SP, not a Tank
 * Unit and not stronger than i, that i can reach and close with this
 * turn; -1 if none. */
static int
counter_target(const struct ai *ai, int i)
{
	const struct game *g = ai->g;
	const struct game_unit *u = &g->units[i];
	int j, d, best = -1, bd = 1000, s;

	FOR_SEEN(ai, j, s) {
		/* Only fights it should win: not tanks, not stronger
		 * units. */
		if ((!across(ai, j) &&
		    g->units[j].strength > 1) || (ai_type(ai, j)->cls &
		    PW_C_TANK) || g->units[j].strength > u->strength)
			continue;
		d = hex_distance(g->units[j].pos, u->pos);
		if (d <= ai_type(ai, i)->move + 1 && d < bd) {
			bd = d;
			best = j;
		}
	}
	return best;
}

/* Cut path (n hexes) back to the last hex at least keep hexes from every
 * enemy unit the side sees; the new length. */
static int
keep_distance(const struct ai *ai, struct hex *path, int n, int keep)
{
	int d;

	while (n > 0) {
		nearest_seen(ai, path[n - 1], &d);
		if (d >= keep)
			break;
		n--;
	}
	return n;
}

/* Does the side see an enemy unit from h? */
static bool
sees_enemy_from(const struct ai *ai, struct hex h)
{
	int j, s;

	FOR_SEEN(ai, j, s)
		if (pw_sees(ai->g, h, ai->g->units[j].pos))
			return true;
	return false;
}

/* Where commander i should be: next to the own combat unit with the most
 * own units within 2 hexes (the main body), nearest first; false if it has
 * no such unit. */
static bool
main_body(const struct ai *ai, int i, struct hex *at)
{
	const struct game *g = ai->g;
	unsigned skip = PW_C_EXEMPT | PW_C_TRANSPORT | PW_C_ART;
	int j, n, best = -1, bd = 1000, d, s, t;

	for (s = 0; s < ai->nol; s++) {
		const struct game_unit *o = &g->units[j = ai->ol[s]];

		if (o->attached >= 0 || (ai_type(ai, j)->cls & skip))
			continue;
		/* The own units within 2 hexes (hex_distance, as the
		 * largest difference) but i: their positions read from one
		 * array (op). */
		for (n = 0, t = 0; t < ai->nol; t++) {
			int dq = ai->op[t].q - o->pos.q, dr = ai->op[t].r -
			    o->pos.r, ds = dq + dr;

			n += (dq <= 2 && dq >= -2 && dr <= 2 && dr >= -2 &&
			    ds <= 2 && ds >= -2) && ai->ol[t] != i;
		}
		d = hex_distance(o->pos, g->units[i].pos);
		if (n > best || (n == best && d < bd)) {
			best = n;
			bd = d;
			*at = o->pos;
		}
	}
	return best >= 0;
}

static void
activation(struct ai *ai)
{
	const struct game *g = ai->g;
	struct obuf *pass = &ai->out[1];
	bool exh = pw_exhausted(g, ai->side);
	int i, j, k, dist, n, s;
	char a[8];

	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		const struct pw_type *t = ai_type(ai, i);
		struct hex goal = { 0, 0 }, tgt, path[PW_PATH_MAX];
		int adj = -1, kind = ai->kind[i];

		if (u->side != ai->side || !ai->alive[i])
			continue;
		/* goal_of(ai, i, &goal, &dist), asked where a branch first
		 * reads goal or dist (it reads nothing else). */
#define GOAL() (have ? (void)0 : (goal_of(ai, i, &goal, &dist), \
	(void)(have = true)))
		bool have = false;

		/* Carried: get off near the enemy. */
		if (u->attached >= 0) {
			GOAL();
			/* Not into a hex where it would break the stacking
			 * rule (the unload would fail). */
			if (dist <= 5 && free_end(ai, i, u->pos)) {
				put(&pass[1], u->id, " unload\n", (char *)NULL);
				rec_clause(ai, rec_act(ai, &pass[1], i),
				    PW_CL_UNLOAD, NULL, 0, 0);
			}
			continue;
		}
		/* (None when no seen enemy stands next to its hex.) */
		n = !ai->hexok || ai->adjany || ai->uidx[i] < 0 ||
		    ai->adjseen[ai->uidx[i]] > 0 ? ai->nsl : 0;
		for (s = 0; s < n; s++)
			/* Any adjacent enemy it sees, a combat unit rather
			 * than a commander, spotter or transport. */
			if (hex_adjacent(ai->sp[s], u->pos) && (adj < 0 ||
			    (ai_type(ai, j = ai->sl[s])->cls &
			    (PW_C_EXEMPT | PW_C_TRANSPORT)) == 0))
				adj = ai->sl[s];
		if (t->cls & PW_C_ART) {
			GOAL();
			/* Guns that could not shoot turn to the enemy. */
			if (!(t->cls & PW_C_SELFPROP) && dist < 1000 &&
			    !pw_in_arc(u->facing, u->pos, goal)) {
				int dir = pw_dir_towards(u->pos, goal);

				put(&pass[3], u->id, " face ",
				    pw_dir_name(g, dir), "\n", (char *)NULL);
				rec_clause(ai, rec_act(ai, &pass[3], i),
				    PW_CL_FACE, NULL, 0, dir);
			}
			continue;
		}
		if (adj >= 0 && !exh && (t->cls & PW_C_ADVANCE)) {
			put(&pass[0], u->id, " cc ", lbl(g,
			    g->units[adj].pos, a), "\n", (char *)NULL);
			rec_clause(ai, rec_act(ai, &pass[0], i), PW_CL_CC,
			    &g->units[adj].pos, 1, 0);
			continue;
		}
		/* The attacker's assault units make for the objectives it
		 * does not hold, firing on the way. */
		if (ai->side == PW_BLUE && !exh && adj < 0 &&
		    (t->cls & PW_C_ADVANCE) && !(u->flags & PW_F_CROSSING) &&
		    objective_goal(ai, u->pos, &tgt) &&
		    (n = plan_path(ai, i, tgt, t->move - (t->weapon != PW_W_NONE ?
		    1 : 0), path)) > 0) {
			struct hex end = path[n - 1], ft;
			struct pw_act *ra = rec_act(ai, &pass[2], i);
			int e, dir;

			ai->taken[ai->ntaken++] = end;
			put(&pass[2], u->id, " move", (char *)NULL);
			for (k = 0; k < n; k++)
				put_path(&pass[2], g, path[k]);
			rec_clause(ai, ra, PW_CL_MOVE, path, n, 0);
			e = nearest_seen(ai, end, &dist);
			if (e >= 0)
				ft = g->units[e].pos;
			dir = pw_dir_towards(end, e >= 0 ? ft : tgt);
			put(&pass[2], " face ", pw_dir_name(g, dir), (char *)NULL);
			rec_clause(ai, ra, PW_CL_FACE, NULL, 0, dir);
			if (e >= 0 && t->weapon != PW_W_NONE && dist <= t->range) {
				put(&pass[2], " fire ", lbl(g, ft, a), (char *)NULL);
				rec_clause(ai, ra, PW_CL_FIRE, &ft, 1, 0);
			}
			put(&pass[2], "\n", (char *)NULL);
			continue;
		}
		if (fire_target(ai, i, &tgt)) {
			put(&pass[0], u->id, " fire ", lbl(g, tgt, a), "\n",
			    (char *)NULL);
			rec_clause(ai, rec_act(ai, &pass[0], i), PW_CL_FIRE,
			    &tgt, 1, 0);
			continue;
		}
		if (adj >= 0)
			continue;
		if ((kind == PW_SPOTTER || kind == PW_CMD) && !exh) {
			struct hex to;

			GOAL();
			to = goal;
			/* Spotters move up until they see the enemy, three
			 * hexes off; commanders follow the main body, never
			 * next to the enemy. */
			if (kind == PW_SPOTTER && sees_enemy_from(ai, u->pos))
				continue;
			if (kind == PW_CMD && (!main_body(ai, i, &to) ||
			    hex_distance(to, u->pos) <= 1))
				continue;
			n = keep_distance(ai, path, plan_path(ai, i, to,
			    t->move, path), kind == PW_SPOTTER ? 3 : 2);
			if (n == 0)
				continue;
			{
				struct pw_act *ra = rec_act(ai, &pass[2], i);
				int dir = pw_dir_towards(path[n - 1], goal);

				put(&pass[2], u->id, " move", (char *)NULL);
				for (k = 0; k < n; k++)
					put_path(&pass[2], g, path[k]);
				rec_clause(ai, ra, PW_CL_MOVE, path, n, 0);
				put(&pass[2], " face ", pw_dir_name(g, dir),
				    "\n", (char *)NULL);
				rec_clause(ai, ra, PW_CL_FACE, NULL, 0, dir);
			}
			continue;
		}
		if (kind == PW_SPOTTER || kind == PW_CMD)
			continue;
		/* Engineers: clear a known minefield next to them; the
		 * defender's lay one in front while the enemy is far. */
		if (kind == PW_ENG) {
			bool job = false;

			for (j = 0; j < 6 && !job; j++) {
				struct hex h = hex_neighbour(u->pos, j);
				int m = mines_at(ai, h);

				if (m >= 0 && g->units[m].side != ai->side &&
				    known_mines(ai, h)) {
					if (u->x[PW_X_JOB] != PW_JOB_CLEAR) {
						put(&pass[2], u->id, " clear ",
						    lbl(g, h, a), "\n",
						    (char *)NULL);
						rec_clause(ai, rec_act(ai,
						    &pass[2], i), PW_CL_CLEAR,
						    &h, 1, 0);
					}
					job = true;
				}
			}
			if (!job && ai->side == PW_RED)
				GOAL();
			if (!job && ai->side == PW_RED && dist > 5) {
				struct hex h = hex_neighbour(u->pos,
				    pw_dir_towards(u->pos, goal));

				if (u->x[PW_X_JOB] == PW_JOB_LAY)
					continue;
				if (game_on_map(g, h) && mines_at(ai, h) < 0 &&
				    pw_terrain(g, h) ==
				    PW_T_OPEN) {
					put(&pass[2], u->id, " lay ",
					    lbl(g, h, a), "\n", (char *)NULL);
					rec_clause(ai, rec_act(ai, &pass[2], i),
					    PW_CL_LAY, &h, 1, 0);
					continue;
				}
			}
			if (job || u->x[PW_X_JOB])
				continue;
		}
		if (exh)
			continue;
		/* The defender counterattacks enemy units that crossed the
		 * river or are weak, when it can reach them this turn. */
		if (ai->side == PW_RED && (t->cls & PW_C_ADVANCE) &&
		    !(u->flags & PW_F_CROSSING) &&
		    (j = counter_target(ai, i)) >= 0 &&
		    (n = plan_path(ai, i, g->units[j].pos, t->move, path)) > 0 &&
		    hex_adjacent(path[n - 1], g->units[j].pos)) {
			struct pw_act *ra = rec_act(ai, &pass[0], i);

			ai->taken[ai->ntaken++] = path[n - 1];
			put(&pass[0], u->id, " move", (char *)NULL);
			for (k = 0; k < n; k++)
				put_path(&pass[0], g, path[k]);
			rec_clause(ai, ra, PW_CL_MOVE, path, n, 0);
			put(&pass[0], " cc ", lbl(g, g->units[j].pos, a),
			    "\n", (char *)NULL);
			rec_clause(ai, ra, PW_CL_CC, &g->units[j].pos, 1, 0);
			continue;
		}
		/* Otherwise the defender holds its ground; only its fast
		 * units not in cover go looking for the enemy. */
		if (ai->side == PW_RED && (pw_cover(g, u->pos) || t->move < 3))
			continue;
		GOAL();
		if (u->flags & PW_F_CROSSING)
			n = plan_path(ai, i, goal, 1, path);
		else
			n = plan_path(ai, i, goal, t->move - (t->weapon !=
			    PW_W_NONE && dist <= t->range + t->move ? 1 : 0),
			    path);
		if (n == 0)
			continue;
		ai->taken[ai->ntaken++] = path[n - 1];
		{
			struct pw_act *ra = rec_act(ai, &pass[2], i);
			int dir = pw_dir_towards(path[n - 1], goal);

			put(&pass[2], u->id, " move", (char *)NULL);
			for (k = 0; k < n; k++)
				put_path(&pass[2], g, path[k]);
			rec_clause(ai, ra, PW_CL_MOVE, path, n, 0);
			put(&pass[2], " face ", pw_dir_name(g, dir),
			    (char *)NULL);
			rec_clause(ai, ra, PW_CL_FACE, NULL, 0, dir);
			if (t->weapon != PW_W_NONE &&
			    hex_distance(path[n - 1], goal) <= t->range) {
				put(&pass[2], " fire ", lbl(g, goal, a),
				    (char *)NULL);
				rec_clause(ai, ra, PW_CL_FIRE, &goal, 1, 0);
			}
		}
		put(&pass[2], "\n", (char *)NULL);
#undef GOAL
	}
}

/* The buffers of the opponent, per thread, kept from call to call and
 * grown when a game has more units or hexes than any before (a call
 * allocated some twenty blocks before; now none once they are big
 * enough). What they hold is made again by each call. */
static _Thread_local struct scratch {
	size_t nu, nh;                 /* room, units and hexes */
	struct ai ai;
} scratch;

/* Make room in scratch for nu units and nh hexes (nh + 1 for the path
 * search's queue); its ai, the pointers set. */
static struct ai *
scratch_room(size_t nu, size_t nh)
{
	struct scratch *sc = &scratch;
	struct ai *ai = &sc->ai;
	int i;

	if (nu > sc->nu) {
		ai->seen = xrealloc(ai->seen, nu * sizeof *ai->seen);
		ai->taken = xrealloc(ai->taken, nu * sizeof *ai->taken);
		ai->kind = xrealloc(ai->kind, nu * sizeof *ai->kind);
		ai->alive = xrealloc(ai->alive, nu * sizeof *ai->alive);
		ai->across = xrealloc(ai->across, nu * sizeof *ai->across);
		ai->sl = xrealloc(ai->sl, nu * sizeof *ai->sl);
		ai->ol = xrealloc(ai->ol, nu * sizeof *ai->ol);
		ai->op = xrealloc(ai->op, nu * sizeof *ai->op);
		ai->sp = xrealloc(ai->sp, nu * sizeof *ai->sp);
		ai->fn = xrealloc(ai->fn, nu * sizeof *ai->fn);
		ai->cand = xrealloc(ai->cand, nu * sizeof *ai->cand);
		ai->cdist = xrealloc(ai->cdist, nu * sizeof *ai->cdist);
		ai->uidx = xrealloc(ai->uidx, nu * sizeof *ai->uidx);
		ai->objp = xrealloc(ai->objp, nu * sizeof *ai->objp);
		ai->cov = xrealloc(ai->cov, nu * sizeof *ai->cov);
		ai->spot = xrealloc(ai->spot, nu * sizeof *ai->spot);
		sc->nu = nu;
	}
	if (nh > sc->nh) {
		ai->pass = xrealloc(ai->pass, nh * sizeof *ai->pass);
		ai->visit = xrealloc(ai->visit, nh * sizeof *ai->visit);
		ai->nbr = xrealloc(ai->nbr, nh * sizeof *ai->nbr);
		ai->q = xrealloc(ai->q, (nh + 1) * sizeof *ai->q);
		ai->chain = xrealloc(ai->chain, (nh + 1) * sizeof *ai->chain);
		ai->prev = xrealloc(ai->prev, (nh + 1) * sizeof *ai->prev);
		ai->hi = xrealloc(ai->hi, (nh + 1) * sizeof *ai->hi);
		ai->dbase = xrealloc(ai->dbase, nh * sizeof *ai->dbase);
		ai->mines = xrealloc(ai->mines, nh * sizeof *ai->mines);
		ai->seenat = xrealloc(ai->seenat, nh * sizeof *ai->seenat);
		ai->blk = xrealloc(ai->blk, nh * sizeof *ai->blk);
		ai->fnear = xrealloc(ai->fnear, nh * sizeof *ai->fnear);
		ai->adjseen = xrealloc(ai->adjseen, nh * sizeof *ai->adjseen);
		for (i = 0; i < NFIELD; i++) {
			ai->field[i].dmem = xrealloc(ai->field[i].dmem,
			    (nh + 1) * sizeof *ai->field[i].dmem);
			ai->field[i].dist = ai->field[i].dmem + 1;
			ai->field[i].q = xrealloc(ai->field[i].q, nh *
			    sizeof *ai->field[i].q);
		}
		sc->nh = nh;
	}
	return ai;
}

/* pw_visible(g, ai->side, j) for an enemy unit j that is alive (so not
 * a marker): seen when it fired, or by one of the side's units alive
 * (ol: pw_visible's loop, without the units it skips) in or next to its
 * hex, or with a line to it when its hex is not cover. */
static bool
sees_unit(const struct ai *ai, int j)
{
	const struct game *g = ai->g;
	const struct game_unit *u = &g->units[j];
	int s, cover = -1;

	if (u->flags & PW_F_FIRED)
		return true;
	/* With index_units' tables: one of the side's units in or next to
	 * its hex (fnear) sees it; else only one with a line, and none
	 * into cover. */
	if (ai->unitsok && ai->uidx[j] >= 0) {
		if (ai->fnear[ai->uidx[j]])
			return true;
		if (pw_cover(g, u->pos))
			return false;
		for (s = 0; s < ai->nol; s++)
			if (pw_los(g, g->units[ai->ol[s]].pos, u->pos, false))
				return true;
		return false;
	}
	for (s = 0; s < ai->nol; s++) {
		struct hex o = g->units[ai->ol[s]].pos;

		if (hex_distance(o, u->pos) <= 1)
			return true;
		if (cover < 0)
			cover = pw_cover(g, u->pos) ? 1 : 0;
		if (!cover && pw_los(g, o, u->pos, false))
			return true;
	}
	return false;
}

/* pw_opponent, keeping a record of the lines in ai's out[] when rec (for
 * pw_opponent_parsed); the ai, scratch's. */
static struct ai *
opponent(const struct game *g, int side, struct sbuf *b, bool rec)
{
	size_t nu = (size_t)(g->nunits > 0 ? g->nunits : 1);
	int i, nh = g->nhex < 1 ? 1 : g->nhex < MAXH ? g->nhex : MAXH;
	struct ai *ai = scratch_room(nu, (size_t)nh);
	bool begun;

	ai->rec = rec;
	ai->over = false;
	ai->g = g;
	ai->side = side;
	ai->ntaken = 0;
	ai->stamp = 0;
	ai->nh = nh;
	ai->hexok = false;
	ai->unitsok = false;
	memset(ai->seen, 0, nu * sizeof *ai->seen);
	memset(ai->across, 0, nu * sizeof *ai->across);
	ai->nrow = g->layout.rows < 0 ? 0 : g->layout.rows < MAXH ?
	    g->layout.rows : MAXH;
	if (ai->nrow > ai->caprow) {
		ai->rowscan = xrealloc(ai->rowscan, (size_t)ai->nrow *
		    sizeof *ai->rowscan);
		ai->rowfirst = xrealloc(ai->rowfirst, (size_t)ai->nrow *
		    sizeof *ai->rowfirst);
		ai->caprow = ai->nrow;
	}
	if (ai->nrow > 0) {
		memset(ai->rowscan, 0, (size_t)ai->nrow * sizeof *ai->rowscan);
		memset(ai->rowfirst, 0xff, (size_t)ai->nrow *
		    sizeof *ai->rowfirst);
	}
	ai->nol = 0;
	ai->nsl = 0;
	ai->nfield = 0;
	ai->nobj = -1;
	begun = pw_los_cache_begin(g);
	for (i = 0; i < g->nunits; i++) {
		/* Only the units alive have their kind read (-1 for the
		 * others: no reader asks a dead unit's or a marker's). */
		ai->alive[i] = pw_alive(&g->units[i]);
		ai->kind[i] = ai->alive[i] ? pw_kind(&g->units[i]) : -1;
	}
	/* The side's units alive first (sees_unit reads them), then who the
	 * side sees, once: the plans ask again and again. */
	for (i = 0; i < g->nunits && i < GAME_MAX_UNITS; i++)
		if (g->units[i].side == side && ai->alive[i]) {
			ai->op[ai->nol] = g->units[i].pos;
			ai->ol[ai->nol++] = i;
		}
	index_units(ai);
	for (i = 0; i < g->nunits && i < GAME_MAX_UNITS; i++) {
		const struct game_unit *o = &g->units[i];

		ai->seen[i] = o->side != side && ai->alive[i] &&
		    o->attached < 0 && sees_unit(ai, i);
		if (ai->seen[i]) {
			ai->sp[ai->nsl] = o->pos;
			ai->sl[ai->nsl++] = i;
		}
	}
	index_passable(ai);
	labels_check(g);
	for (i = 0; i < 5; i++) {
		ai->out[i].len = 0;
		ai->out[i].nrec = 0;
	}
	artillery(ai);
	activation(ai);
	for (i = 0; i < 5; i++)
		if (ai->out[i].len > 0)
			sbuf_add(b, ai->out[i].buf, ai->out[i].len);
	pw_los_cache_end(begun);
	sbuf_puts(b, "retreat cover\n");
	return ai;
}

void
pw_opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	(void)w;
	(void)opponent(g, side, b, false);
}

/* What pw_parse makes of the order file b holds (NULL if it does not
 * parse; caller frees): window_parse_stored's way, for the calls whose
 * record does not fit pw_orders. */
static void *
parse_back(const struct game *g, const struct window_spec *w, int side,
    const struct sbuf *b)
{
	struct order_header h;
	struct order_body body;
	struct order_errors errs;
	struct window_spec spec = *w;
	struct sbuf tmp;
	void *out = NULL;

	orders_errors_init(&errs);
	sbuf_init(&tmp);
	tmp.discard = true;
	if (orders_parse_file(b->buf, b->len, &h, &body, &errs) == HP_OK) {
		if (strcasecmp(h.window, "standing") == 0)
			strlcpy_(spec.name, "standing", sizeof spec.name);
		if (ruleset_pw.parse(g, &spec, side, &body, &out, &tmp,
		    &errs) != HP_OK && out != NULL) {
			ruleset_pw.free_orders(out);
			out = NULL;
		}
		orders_body_free(&body);
	}
	orders_errors_free(&errs);
	sbuf_free(&tmp);
	return out;
}

/* The built-in opponent with its orders already parsed (struct ruleset's
 * opponent_parsed, for simulate): appends pw_opponent's body to b (which
 * holds window_order_header's lines) and returns the struct pw_orders
 * pw_parse makes of b's file (caller frees), built from the record the
 * opponent keeps as it writes each line: the shots (out[0]) and then the
 * activations (the four passes) in the order of the text, each with its
 * line in the file, the clauses as parse_act fills them (zeroed, then
 * kind, hexes, argument), "retreat cover" for the side and the game's
 * units' own choices cleared (-1) as parse_orders clears them. The
 * entries past nshot, nact and nunit_retreat and the clauses past an
 * activation's nclause are left unwritten, as pw_parse leaves them. A record past pw_orders' limits, a file whose
 * header does not end its last line, or a standing window: the text is
 * parsed back instead (NULL if it does not parse, where window_parse_stored
 * would fail). tests/unit/test_pw.c (test_opponent_parsed) compares the
 * two field by field in every window of hundreds of games, each option. */
void *
pw_opponent_parsed(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	size_t start = b->len, k, nu;
	const char *p;
	struct pw_orders *o;
	struct ai *ai;
	int line = 1, i, j, nact = 0;

	/* The body's first line follows the header's lines. */
	for (k = 0; k < start && (p = memchr(b->buf + k, '\n', start - k)) !=
	    NULL; k = (size_t)(p - b->buf) + 1)
		line++;
	ai = opponent(g, side, b, true);
	for (i = 1; i < 5; i++)
		nact += ai->out[i].nrec;
	if (ai->over || ai->out[0].nrec > PW_SHOTS_MAX || nact > PW_ACTS_MAX ||
	    (start > 0 && b->buf[start - 1] != '\n') ||
	    strcasecmp(w->name, "standing") == 0)
		return parse_back(g, w, side, b);
	o = xmalloc(sizeof *o);
	nu = (size_t)(g->nunits < GAME_MAX_UNITS ? g->nunits : GAME_MAX_UNITS);
	o->side = side;
	o->nshot = 0;
	o->nact = 0;
	o->retreat = PW_RETREAT_COVER;
	memset(o->unit_retreat, -1, nu);
	o->nunit_retreat = (int)nu;
	for (j = 0; j < ai->out[0].nrec; j++) {
		o->shot[o->nshot] = ai->out[0].shot[j];
		o->shot[o->nshot++].line = line++;
	}
	for (i = 1; i < 5; i++)
		for (j = 0; j < ai->out[i].nrec; j++) {
			const struct pw_act *r = &ai->out[i].act[j];
			struct pw_act *a = &o->act[o->nact++];

			a->unit = r->unit;
			a->line = line++;
			a->nclause = r->nclause;
			memcpy(a->c, r->c, (size_t)r->nclause * sizeof *r->c);
		}
	return o;
}
