/* plt_ai: the built-in opponent of the platoon ruleset, for any side. Per
 * platoon, in the order of the scenario: a suppressed platoon engages if
 * an enemy is near, else reforms; a platoon with a reduced squad and no
 * enemy in Firefight range reforms; one that can surely reach the nearest
 * enemy it sees assaults; one with enemies in Firefight range engages;
 * the others advance as a block towards the nearest enemy (a move short
 * enough to stay coherent whatever the die) and fire at the nearest. Its
 * orders always pass the parser (tests: t_opponent_orders_parse).
 *
 * Speed (issue 17, third round; docs/ARCHITECTURE.md 3.1): a call of the
 * opponent finds the occupancy and the enemy squads once (struct ctx);
 * a plan keeps what each squad sees (struct sight: lines of sight looked
 * at once each); reach and contact are asked as yes or no
 * (plt_reach_within); and a plan is parsed back only when it is not sure
 * to pass (one_platoon's comment says when it is). The orders are the
 * same bytes as before, ties included.
 *
 * Parsed orders (issue 17, fourth round): plt_opponent_parsed, the
 * ruleset's opponent_parsed, writes the same file and returns what
 * plt_parse makes of it, so simulate does not parse it back (struct
 * build: the item of each sure plan filled as its lines are written, the
 * parse passes made of the others and of a reveal, with the file's line;
 * the text parsed where neither is known). test_platoon's
 * t_opponent_parsed compares the two in every window. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "orders.h"
#include "platoon.h"

/* What plt_opponent_parsed builds while the opponent writes its file:
 * the orders plt_parse makes of the file so far. */
struct build {
	struct plt_orders *o;  /* the items so far (owned) */
	int lines;             /* newlines in the file so far */
	bool exact;            /* o is that parse; false: parse the text */
};

/* One call of the opponent (plt_opponent): what every platoon's plan
 * reads of the game, found once for all of them. The game does not change
 * during the call. */
struct ctx {
	const struct game *g;
	int side;
	int *occ;        /* plt_occupancy(g) */
	int nen;         /* live enemy squads (any other side), unit order */
	int *en;         /* their unit indices (nen) */
	int nhex;        /* cols * rows */
	bool occ_exact;  /* every live squad is on the layout: occ answers
	                  * as plt_squad_at does */
	bool distinct;   /* and no two share a hex */
	bool sure;       /* see plan_sure */
	struct build *bd; /* plt_opponent_parsed's, else NULL */
};

/* An order line being written: words joined by a space, then one append
 * to the buffer (no printf, no append a word). */
struct line {
	struct sbuf *b;
	size_t n;
	bool first;
	char t[128];
};

/* Start a line of words for b. */
static void
line_begin(struct line *l, struct sbuf *b)
{
	l->b = b;
	l->n = 0;
	l->first = true;
}

/* Append what l holds to its buffer and empty it (a line too long for
 * l->t: never with ids and labels as short as they are). */
static void
line_flush(struct line *l)
{
	sbuf_add(l->b, l->t, l->n);
	l->n = 0;
}

/* Append word w to l (a space before it unless it is the first); room
 * is kept for the newline. */
static void
line_word(struct line *l, const char *w)
{
	if (!l->first) {
		if (l->n + 2 > sizeof l->t)
			line_flush(l);
		l->t[l->n++] = ' ';
	}
	l->first = false;
	for (; *w != '\0'; w++) {
		if (l->n + 2 > sizeof l->t)
			line_flush(l);
		l->t[l->n++] = *w;
	}
}

/* End l with a newline and append it to its buffer. */
static void
line_end(struct line *l)
{
	l->t[l->n++] = '\n';
	sbuf_add(l->b, l->t, l->n);
	l->n = 0;
}

/* Append the words given (up to a NULL) to b, a space between, and a
 * newline: order lines without printf (they are parsed back at once). */
static void
wline(struct sbuf *b, const char *w, ...)
{
	va_list ap;
	struct line l;

	line_begin(&l, b);
	va_start(ap, w);
	for (; w != NULL; w = va_arg(ap, const char *))
		line_word(&l, w);
	va_end(ap);
	line_end(&l);
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
 * parser, or with w the parser of window w (a reveal)? keep (may be NULL)
 * gets the parse when it does (caller frees with plt_free_orders). */
static bool
passes(const struct game *g, const struct window_spec *w, int side,
    const char *text, struct plt_orders **keep)
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
	if (ok && keep != NULL) {
		*keep = out;
		out = NULL;
	}
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

/* Is s a word the order parser reads back as written: 1 to 15 bytes of
 * letters, digits, '_', '.' and '-' (no space, comment sign, colon or
 * byte outside ASCII)? */
static bool
plain_word(const char *s)
{
	size_t k;

	for (k = 0; s[k] != '\0'; k++)
		if (!((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' &&
		    s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') ||
		    s[k] == '_' || s[k] == '.' || s[k] == '-'))
			return false;
	return k > 0 && k < GAME_ID_MAX;
}

/* Are the ids of g's units plain words (plain_word), each unit the first
 * whose id is its own, case aside (as the parser looks ids up)? Kept per
 * thread for the ids last checked (a game's ids do not change). */
static bool
ids_plain(const struct game *g)
{
	static _Thread_local char (*ids)[GAME_ID_MAX];
	static _Thread_local int nids = -1, cap;
	static _Thread_local bool ok;
	int i, j;

	if (nids == g->nunits) {
		for (i = 0; i < nids; i++)
			if (memcmp(ids[i], g->units[i].id, GAME_ID_MAX) != 0)
				break;
		if (i == nids)
			return ok;
	}
	if (cap < g->nunits) {
		cap = g->nunits;
		free(ids);
		ids = xmalloc(sizeof *ids * (size_t)cap);
	}
	for (i = 0; i < g->nunits; i++)
		memcpy(ids[i], g->units[i].id, GAME_ID_MAX);
	nids = g->nunits;
	ok = true;
	for (i = 0; i < g->nunits && ok; i++) {
		if (!plain_word(g->units[i].id)) {
			ok = false;
			break;
		}
		for (j = 0; j < i && ok; j++)
			if (strcasecmp(g->units[i].id, g->units[j].id) == 0)
				ok = false;
	}
	return ok;
}

/* Set up c for side's plans in g. */
static void
ctx_init(struct ctx *c, const struct game *g, int side)
{
	int i, j, n = g->nunits > 0 ? g->nunits : 1;

	c->g = g;
	c->side = side;
	c->bd = NULL;
	/* plt_occupancy: the lowest-index squad of each hex. */
	c->nhex = g->layout.cols * g->layout.rows;
	c->occ = xmalloc(sizeof(int) * (size_t)(c->nhex > 0 ? c->nhex : 1));
	if (c->nhex > 0)
		memset(c->occ, 0xff, sizeof(int) * (size_t)c->nhex); /* -1 */
	c->en = xmalloc(sizeof(int) * (size_t)n);
	c->nen = 0;
	c->occ_exact = c->distinct = true;
	for (i = g->nunits - 1; i >= 0; i--) {
		if (!plt_alive(g, i))
			continue;
		if ((j = plt_hex_index(g, g->units[i].pos)) < 0)
			c->occ_exact = false;
		else {
			if (c->occ[j] >= 0)
				c->distinct = false;
			c->occ[j] = i;
		}
	}
	for (i = 0; i < g->nunits; i++)
		if (plt_alive(g, i) && g->units[i].side != side)
			c->en[c->nen++] = i;
	/* The header passes() writes: "turn:" takes 0 to 100000, "side:"
	 * a word; then every id a plain word found as itself. */
	c->sure = g->turn >= 0 && g->turn <= 100000 &&
	    plain_word(g->sides[side].name) && ids_plain(g);
}

/* Free what ctx_init allocated. */
static void
ctx_free(struct ctx *c)
{
	free(c->occ);
	free(c->en);
}

/* What a squad sees from a hex: the enemy squads of the call (c->en, by
 * their index there) in order of distance, ties in unit order (ordered
 * only as far as asked), and whether it sees each, found once when first
 * asked. */
struct sight {
	struct hex at;
	int ns;             /* o[0 .. ns - 1] in order, the rest not yet */
	int *o;             /* nen: enemy indices, nearest first */
	int *dist;          /* nen, by enemy index: hexes from at */
	signed char *seen;  /* nen, by enemy index: -1 not asked yet */
};

/* Room for n sights of c in one block (one free). */
static struct sight *
sights_new(const struct ctx *c, int n)
{
	size_t ne = (size_t)(c->nen > 0 ? c->nen : 1), each = (sizeof(int) *
	    2 * ne + ne + 7) & ~(size_t)7; /* each sight's ints aligned */
	struct sight *s = xmalloc((sizeof *s + each) * (size_t)(n > 0 ? n :
	    1));
	char *room = (char *)(s + (n > 0 ? n : 1));
	int k;

	for (k = 0; k < n; k++) {
		s[k].o = (int *)(void *)(room + (size_t)k * each);
		s[k].dist = s[k].o + ne;
		s[k].seen = (signed char *)(s[k].dist + ne);
	}
	return s;
}

/* Fill s for a squad at h: every enemy's distance, nothing ordered. */
static void
sight_fill(const struct ctx *c, struct sight *s, struct hex h)
{
	const struct game *g = c->g;
	int k;

	s->at = h;
	s->ns = 0;
	for (k = 0; k < c->nen; k++) {
		s->dist[k] = hex_distance(g->units[c->en[k]].pos, h);
		s->seen[k] = -1;
		s->o[k] = k;
	}
}

/* The enemy index m-th in s's order (m < c->nen): the nearest of those
 * not yet ordered, the first in unit order of those as near, moved to
 * its place (a selection sort, as far as asked). */
static int
sight_nth(const struct ctx *c, struct sight *s, int m)
{
	while (s->ns <= m) {
		int k, b = s->ns, t;

		for (k = s->ns + 1; k < c->nen; k++)
			if (s->dist[s->o[k]] < s->dist[s->o[b]] ||
			    (s->dist[s->o[k]] == s->dist[s->o[b]] &&
			    s->o[k] < s->o[b]))
				b = k;
		t = s->o[s->ns];
		s->o[s->ns] = s->o[b];
		s->o[b] = t;
		s->ns++;
	}
	return s->o[m];
}

/* Does the squad of s see enemy k (plt_los_in from s->at)? */
static bool
sight_los(const struct ctx *c, struct sight *s, int k)
{
	if (s->seen[k] < 0)
		s->seen[k] = plt_los_in(c->g, c->occ, c->side, s->at,
		    c->g->units[c->en[k]].pos);
	return s->seen[k] > 0;
}

/* The nearest live enemy squad to s->at: any (cm < 0), or one seen from
 * there within cm; -1 if none. Of several as near, the first in unit
 * order (the first seen, in the order of s). */
static int
nearest_enemy_to(const struct ctx *c, struct sight *s, int cm)
{
	int m, k;

	if (c->nen == 0)
		return -1;
	if (cm < 0)
		return c->en[sight_nth(c, s, 0)];
	for (m = 0; m < c->nen; m++) {
		k = sight_nth(c, s, m);
		if (PLT_CM_PER_HEX * s->dist[k] > cm)
			break;
		if (sight_los(c, s, k))
			return c->en[k];
	}
	return -1;
}

/* Fire lines for every point of the platoon's squads (sq, what each sees
 * from where it fires in s) at the nearest enemy to each; *sure false if
 * a line might not parse. it (may be NULL): the lines as parse_fire reads
 * them, added to its fire (as far as it has room). */
static void
fire_all(const struct ctx *c, const int *sq, struct sight *s, int n,
    enum plt_order o, bool mmm, struct sbuf *b, bool *sure,
    struct plt_order_item *it)
{
	const struct game *g = c->g;
	int k, kind, pts, t;
	char num[12];
	struct line l;

	for (k = 0; k < n; k++)
		for (kind = 0; kind < 2; kind++) {
			pts = plt_points(g, sq[k], kind, o, mmm);
			if (pts <= 0)
				continue;
			if ((t = nearest_enemy_to(c, &s[k], kind ?
			    PLT_HW_LONG_CM : PLT_FF_LONG_CM)) < 0 &&
			    (t = nearest_enemy_to(c, &s[k], -1)) < 0)
				continue;
			if (pts > 99)
				*sure = false; /* the parser takes 1 to 99 */
			line_begin(&l, b);
			line_word(&l, "fire");
			line_word(&l, g->units[sq[k]].id);
			line_word(&l, kind ? "hw" : "ff");
			line_word(&l, itoa_(pts, num));
			line_word(&l, g->units[t].id);
			if (kind)
				line_word(&l, "ap");
			line_end(&l);
			if (it != NULL && it->nfire < (int)(sizeof it->fire /
			    sizeof it->fire[0])) {
				struct plt_fire *f = &it->fire[it->nfire++];

				f->squad = sq[k];
				f->hw = kind != 0;
				f->av = false;
				f->n = pts;
				f->target = t;
			}
		}
}

/* it as parse_order leaves an "order" line for platoon p of kind k
 * naming reduced squad reform (-1: none), nothing after it yet (it may be
 * NULL: nothing). */
static void
item_order(struct plt_order_item *it, int p, enum plt_order k, int reform)
{
	if (it == NULL)
		return;
	memset(it, 0, sizeof *it);
	it->platoon = p;
	it->kind = k;
	it->reform = reform;
}

/* plt_occupancy_without(g, p) (caller frees): when every squad has a
 * hex of its own, the call's occupancy without p's squads (sq, all n of
 * them: fewer than 64). */
static int *
occ_without(const struct ctx *c, const int *sq, int n, int p)
{
	int *wo, k, j;

	if (!c->occ_exact || !c->distinct || c->nhex <= 0 || n >= 64)
		return plt_occupancy_without(c->g, p);
	wo = xmalloc(sizeof(int) * (size_t)c->nhex);
	memcpy(wo, c->occ, sizeof(int) * (size_t)c->nhex);
	for (k = 0; k < n; k++)
		if ((j = plt_hex_index(c->g, c->g->units[sq[k]].pos)) >= 0)
			wo[j] = -1;
	return wo;
}

/* Is h a hex a squad of side may end an advance in? */
static bool
free_hex(const struct ctx *c, struct hex h, int self)
{
	const struct game *g = c->g;
	const struct plt_terrain *t = plt_terrain(g, h);
	int d, s, i, j;

	if (t == NULL || t->impassable)
		return false;
	if (c->occ_exact && (i = plt_hex_index(g, h)) >= 0) {
		/* The squads by hex: as plt_squad_at finds them. */
		if ((s = c->occ[i]) >= 0 && s != self)
			return false;
		for (d = 0; d < 6; d++)
			if ((j = plt_neighbour_index(g, i, d)) >= 0 &&
			    (s = c->occ[j]) >= 0 && g->units[s].side != c->side)
				return false;
		return true;
	}
	s = plt_squad_at(g, h);
	if (s >= 0 && s != self)
		return false;
	for (d = 0; d < 6; d++)
		if ((s = plt_squad_at(g, hex_neighbour(h, d))) >= 0 &&
		    g->units[s].side != c->side)
			return false;
	return true;
}

/* plt_nearest_enemy_within(g, p, bound, &cost) for the plan of platoon p,
 * whose squads (all n of them) are at pos and see s: the same enemy (the one a
 * squad of p sees nearest; of several, the first in unit order), and in
 * *within whether its cost to contact is from 0 to bound (the cost itself
 * is not needed: plt_reach_within, with contact_cost's own shortcuts). */
static int
nearest_seen(const struct ctx *c, struct sight *s, const struct hex *pos,
    int n, int bound, bool *within)
{
	const struct game *g = c->g;
	int k, m, best = -1, near = -1, goal[6], ng = 0, head[64];
	struct hex eh;

	*within = false;
	/* The pairs (squad, enemy) by distance, then enemy in unit order
	 * (the squads' orders merged): the first pair in sight gives the
	 * nearest distance seen and, of the enemies seen that near, the
	 * first in unit order, which is plt_nearest_enemy_within's choice
	 * (it takes the least such distance of each enemy, and of the
	 * enemies the least, the first of those as near). */
	for (m = 0; m < n; m++) /* n < 64 (plan_with) */
		head[m] = 0;
	while (best < 0) {
		int bm = -1, bk = 0;

		for (m = 0; m < n; m++) {
			if (head[m] >= c->nen)
				continue;
			k = sight_nth(c, &s[m], head[m]);
			if (bm < 0 || s[m].dist[k] < s[bm].dist[bk] ||
			    (s[m].dist[k] == s[bm].dist[bk] && k < bk)) {
				bm = m;
				bk = k;
			}
		}
		if (bm < 0)
			break; /* none seen */
		if (sight_los(c, &s[bm], bk))
			best = c->en[bk];
		else
			head[bm]++;
	}
	if (best < 0 || bound < 0)
		return best;
	eh = g->units[best].pos;
	for (m = 0; m < n; m++) {
		int t = hex_distance(pos[m], eh);

		if (t == 1) {
			*within = true; /* in contact: 0 cm */
			return best;
		}
		if (near < 0 || t < near)
			near = t;
	}
	/* Every step costs at least PLT_CM_PER_HEX. */
	if (near >= 1 && bound < INT_MAX / 2 && (long)PLT_CM_PER_HEX *
	    (near - 1) > bound)
		return best;
	for (k = 0; k < 6; k++)
		if ((goal[ng] = plt_hex_index(g, hex_neighbour(eh, k))) >= 0)
			ng++;
	*within = plt_reach_within(g, c->side, pos, n, true, goal, ng, bound,
	    -1, &eh);
	return best;
}

/* The orders of platoon p as the opponent would give them, appended to b
 * (its paths measured as if p's squads were not on the map). True when
 * the parser surely takes them (plan_sure): then nobody asks it, and it
 * (may be NULL) holds the item the list parser makes of them (its line
 * aside: the caller's). */
static bool
plan_with(const struct ctx *c, int p, struct sbuf *b,
    struct plt_order_item *it)
{
	const struct game *g = c->g;
	const int *occ = c->occ;
	int side = c->side;
	const struct game_unit *pu = &g->units[p];
	const struct plt_profile *pf;
	struct hex pos[64], dest[64];
	int sq[64], n = 0, i, k, e, cost, low = 99, reduced = -1, near = 0;
	int steps, dir, coh = -1, *wo = NULL;
	char a[8];
	bool sure;
	struct sight *s = NULL, *ds = NULL;

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
		return false;
	/* At most 16 squads: as many move and twice as many fire lines as
	 * an order may have (plan_sure). */
	sure = c->sure && n <= 16;
	s = sights_new(c, n);
	for (k = 0; k < n; k++) {
		sight_fill(c, &s[k], pos[k]);
		e = nearest_enemy_to(c, &s[k], -1);
		if (e >= 0 && plt_dist_cm(pos[k], g->units[e].pos) <=
		    PLT_FF_CM && sight_los(c, &s[k], sight_nth(c, &s[k], 0)))
			near++;
	}
	if (pu->flags & PLT_F_SUPP) {
		if (near > 0 && plt_coherent(g, p)) {
			wline(b, "order", pu->id, "engage", NULL);
			item_order(it, p, PLT_O_ENGAGE, -1);
			fire_all(c, sq, s, n, PLT_O_ENGAGE, false, b, &sure,
			    it);
		} else if (reduced >= 0) {
			wline(b, "order", pu->id, "reform",
			    g->units[reduced].id, NULL);
			item_order(it, p, PLT_O_REFORM, reduced);
		} else {
			wline(b, "order", pu->id, "reform", NULL);
			item_order(it, p, PLT_O_REFORM, -1);
		}
		goto out;
	}
	if (reduced >= 0 && near == 0) {
		wline(b, "order", pu->id, "reform", g->units[reduced].id,
		    NULL);
		item_order(it, p, PLT_O_REFORM, reduced);
		goto out;
	}
	if (n < 64) {
		bool within;

		e = nearest_seen(c, s, pos, n, low + 3, &within);
#ifdef PLT_AI_CHECK
		{
			int ce = plt_nearest_enemy_within(g, p, low + 3, &cost);

			if (ce != e || within != (ce >= 0 && cost >= 0 &&
			    cost <= low + 3)) {
				fprintf(stderr, "plt_ai: nearest_seen differs\n");
				abort();
			}
		}
#endif
		cost = within ? 0 : -1; /* only "within low + 3" is read */
	} else
		e = plt_nearest_enemy_within(g, p, low + 3, &cost);
	if (e >= 0 && cost >= 0 && cost <= low + 3) {
		wline(b, "order", pu->id, "assault", NULL);
		item_order(it, p, PLT_O_ASSAULT, -1);
		goto out;
	}
	if (near * 2 >= n && plt_coherent(g, p)) {
		wline(b, "order", pu->id, "engage", NULL);
		item_order(it, p, PLT_O_ENGAGE, -1);
		fire_all(c, sq, s, n, PLT_O_ENGAGE, false, b, &sure, it);
		goto out;
	}
	/* Advance as a block: the longest shift (up to 5 hexes) that every
	 * squad can pay with the lowest possible allowance (low + 1). */
	e = nearest_enemy_to(c, &s[0], -1);
	if (e < 0) {
		wline(b, "order", pu->id, "none", NULL);
		item_order(it, p, PLT_O_NONE, -1);
		goto out;
	}
	dir = dir_towards(pos[0], g->units[e].pos);
	for (steps = 5; steps > 0; steps--) {
		bool ok = true;

		for (k = 0; k < n && ok; k++) {
			int m, j;

			dest[k] = pos[k];
			for (m = 0; m < steps; m++)
				dest[k] = hex_neighbour(dest[k], dir);
			if (!free_hex(c, dest[k], sq[k])) {
				ok = false;
				break;
			}
			/* Squads of the platoon move one after the other:
			 * a mate's hex may be free later, so only measure.
			 * One search a squad for every shift: the costs
			 * plt_path finds, up to low + 1 (a path that cheap
			 * has at most 50 hexes: never too long for 64). */
			if (wo == NULL)
				wo = occ_without(c, sq, n, p);
			if ((j = plt_straight_cost(g, side, wo, pos[k], dir,
			    steps)) >= 0) {
				/* The cheapest: no search needed. */
				if (j > low + 1)
					ok = false;
				continue;
			}
			/* Is dest within low + 1 (plt_costs_within's
			 * cost), by the few hexes near the way? */
			if ((j = plt_hex_index(g, dest[k])) < 0 ||
			    !plt_reach_within(g, side, &pos[k], 1, false, &j,
			    1, low + 1, p, NULL))
				ok = false;
#ifdef PLT_AI_CHECK
			{
				int *r = xmalloc(sizeof(int) * ((size_t)
				    g->layout.cols * (size_t)g->layout.rows +
				    1));

				plt_costs_within(g, side, pos[k], low + 1, p, r);
				if ((j >= 0 && r[j] >= 0) != ok) {
					fprintf(stderr, "plt_ai: reach differs\n");
					abort();
				}
				free(r);
			}
#endif
		}
		if (ok && (coh >= 0 ? coh : (coh = plt_coherent(g, p))))
			break;
	}
	free(wo);
	wline(b, "order", pu->id, "advance", NULL);
	item_order(it, p, PLT_O_ADVANCE, -1);
	if (steps > 0)
		for (k = 0; k < n; k++) {
			struct hex back;
			int j;

			hex_label(&g->layout, dest[k], a, sizeof a);
			wline(b, "move", g->units[sq[k]].id, a, NULL);
			/* parse_move's: one waypoint, the label's hex (which
			 * is dest[k] when the plan is sure). */
			if (it != NULL && it->nmove < (int)(sizeof it->move /
			    sizeof it->move[0])) {
				struct plt_move *mv = &it->move[it->nmove++];

				mv->squad = sq[k];
				mv->n = 1;
				mv->h[0] = dest[k];
			}
			/* The end hexes are the squads' (distinct: each the
			 * one occ finds in its hex) shifted alike, so as
			 * coherent as they; each label must read back. */
			if (!c->occ_exact || (j = plt_hex_index(g, pos[k])) <
			    0 || occ[j] != sq[k] || !hex_parse_label(&g->layout,
			    a, &back) || !hex_eq(back, dest[k]))
				sure = false;
		}
	if (steps > 0) {
		ds = sights_new(c, n);
		for (k = 0; k < n; k++)
			sight_fill(c, &ds[k], dest[k]);
	}
	fire_all(c, sq, steps > 0 ? ds : s, n, PLT_O_ADVANCE, false, b,
	    &sure, it);
out:
	free(s);
	free(ds);
	return sure;
}

/* The orders of platoon p: the plan if the parser takes it, else a
 * platoon that stays put (reform or none), which always passes.
 *
 * When is the parser surely taking the plan without being asked (plan_sure,
 * from plan_with)? The plan gives each order only where the rules allow it
 * (the checks of plt_orders.c's parse_order, parse_move, parse_fire and
 * check_item, one by one): reform names a reduced squad of the platoon; a
 * suppressed platoon neither advances nor assaults; an engage comes only
 * with a coherent platoon and some enemy on the map, and fires every point
 * of every squad (the same plt_points); an assault's nearest enemy and its
 * cost are the parser's (its search bound, low + 10, is above the plan's:
 * a cost found within the lower bound is the same within the higher); an
 * advance moves every squad of a coherent platoon by the same shift into
 * free hexes of the map, so the end hexes are distinct and coherent. What
 * is left is the text: the header (a turn from 0 to 100000, a side name
 * that is a plain word), ids that are plain words each found as its own
 * unit, at most 16 squads (16 move lines, 32 fire lines), dice from 1 to
 * 99 and hex labels that read back. When any of these is not known, the
 * parser is asked, as before. (A build with PLT_AI_CHECK asks it always
 * and aborts where the two differ.)
 *
 * it (may be NULL) gets the item the list parser makes of the lines
 * appended, but for its line (the caller's: the line of the first one);
 * 1 when it holds it, 0 when nothing was appended, -1 when it is not
 * known (the stay-put orders: the caller parses the text). */
static int
one_platoon(const struct ctx *c, int p, struct sbuf *b,
    struct plt_order_item *it)
{
	const struct game *g = c->g;
	struct plt_orders *kept = NULL;
	struct sbuf t;
	bool sure;
	int rc = -1;

	sbuf_init(&t);
	sure = plan_with(c, p, &t, it);
#ifdef PLT_AI_CHECK
	if (sure && t.buf != NULL && !passes(g, NULL, c->side, t.buf, NULL)) {
		fprintf(stderr, "plt_ai: a plan thought sure fails:\n%s",
		    t.buf);
		abort();
	}
#endif
	if (t.buf == NULL)
		rc = 0;
	else if (sure) {
		sbuf_puts(b, t.buf);
		rc = 1;
	} else if (passes(g, NULL, c->side, t.buf, it != NULL ? &kept :
	    NULL)) {
		sbuf_puts(b, t.buf);
		/* The parser's own item (one "order" line: one item). */
		if (it != NULL && kept != NULL && kept->n == 1) {
			memcpy(it, &kept->o[0], sizeof *it);
			rc = 1;
		}
	} else
		sbuf_printf(b, "order %s %s\n", g->units[p].id,
		    (g->units[p].flags & PLT_F_SUPP) || !plt_coherent(g, p) ?
		    "reform" : "none");
	plt_free_orders(kept);
	sbuf_free(&t);
	return rc;
}

/* reveal=each: side's answer in the reveal window w: its first platoon
 * with a marker left, with the lines of the plan for it when the plan
 * gives the marker's order, else bare, else (a Move, Move, Move marker
 * cannot reveal bare) removed. out (may be NULL) gets what the parser
 * made of the answer it checked (caller frees), NULL when none (a removed
 * marker, or none left). */
static void
reveal_answer(const struct ctx *c, const struct window_spec *w,
    struct sbuf *b, struct plt_orders **out)
{
	const struct game *g = c->g;
	int side = c->side;
	struct sbuf t, r;
	int p, kind = -1;
	bool mmm = false;
	char want[64];
	const char *nl;

	if (out != NULL)
		*out = NULL;
	for (p = 0; p < g->nunits; p++)
		if (plt_is_platoon(&g->units[p]) && g->units[p].side == side &&
		    (kind = plt_marker(g, p, &mmm)) >= 0)
			break;
	if (kind < 0)
		return;
	sbuf_init(&t);
	sbuf_init(&r);
	one_platoon(c, p, &t, NULL);
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
	if (r.buf == NULL || !passes(g, w, side, r.buf, out)) {
		sbuf_free(&r);
		sbuf_init(&r);
		sbuf_printf(&r, "reveal %s\n", g->units[p].id);
		if (!passes(g, w, side, r.buf, out)) {
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
static void opponent(const struct ctx *, const struct window_spec *,
    struct sbuf *);

/* The built-in opponent's order body (below), with the map cache kept
 * for the plan. */
void
plt_opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	struct ctx c;

	plt_cache_begin(g);
	ctx_init(&c, g, side);
	opponent(&c, w, b);
	ctx_free(&c);
	plt_cache_end();
}

/* The newlines in the n bytes at t. */
static int
newlines(const char *t, size_t n)
{
	const char *e = t + n;
	int k = 0;

	while (t < e && (t = memchr(t, '\n', (size_t)(e - t))) != NULL) {
		k++;
		t++;
	}
	return k;
}

/* Add a copy of item it (its line set) to bd's orders as parse_order
 * grows them; not exact past PLT_ORDERS_MAX items (the parser refuses). */
static void
build_add(struct build *bd, const struct plt_order_item *it, int line)
{
	struct plt_orders *o = bd->o;

	if (o->n == PLT_ORDERS_MAX) {
		bd->exact = false;
		return;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4;
		o->o = xrealloc(o->o, sizeof *o->o * (size_t)o->cap);
	}
	memcpy(&o->o[o->n], it, sizeof *it);
	o->o[o->n].line = line;
	o->n++;
}

/* One platoon's lines in the order window (plt_each: its marker),
 * appended to b, and with c->bd what the parser makes of them added. */
static void
platoon_lines(const struct ctx *c, int p, struct sbuf *b)
{
	const struct game *g = c->g;
	struct build *bd = c->bd != NULL && c->bd->exact ? c->bd : NULL;
	struct plt_order_item it;
	struct sbuf t;
	size_t at = b->len;
	int rc;

	if (!plt_each(g)) {
		rc = one_platoon(c, p, b, bd != NULL ? &it : NULL);
		if (bd != NULL && rc > 0)
			build_add(bd, &it, bd->lines + 1);
		else if (bd != NULL && rc < 0)
			bd->exact = false;
		if (c->bd != NULL)
			c->bd->lines += newlines(b->buf + at, b->len - at);
		return;
	}
	sbuf_init(&t);
	rc = one_platoon(c, p, &t, bd != NULL ? &it : NULL);
	if (t.buf != NULL) {
		/* The marker: the plan's "order P KIND [mmm]". */
		char id[GAME_ID_MAX + 1], kind[16], mmm[8] = "";

		if (sscanf(t.buf, "order %16s %15s %7s", id, kind,
		    mmm) >= 2) {
			sbuf_printf(b, "order %s %s%s\n", id, kind,
			    strcmp(mmm, "mmm") == 0 ? " mmm" : "");
			/* parse_order's marker: the plan's order alone. */
			if (bd != NULL && rc > 0 && strcmp(mmm, "mmm") != 0) {
				item_order(&it, it.platoon, it.kind, -1);
				build_add(bd, &it, bd->lines + 1);
			} else if (bd != NULL)
				bd->exact = false;
		} else if (bd != NULL)
			bd->exact = false;
	}
	sbuf_free(&t);
	if (c->bd != NULL)
		c->bd->lines += newlines(b->buf + at, b->len - at);
}

/* plt_opponent without the scope. */
static void
opponent(const struct ctx *c, const struct window_spec *w, struct sbuf *b)
{
	const struct game *g = c->g;
	int side = c->side;
	int p;

	if (w->kind == WINDOW_DECISION) {
		struct build *bd = c->bd != NULL && c->bd->exact ? c->bd :
		    NULL;
		struct plt_orders *r = NULL;

		sbuf_puts(b, "# ");
		sbuf_puts(b, g->sides[side].label);
		sbuf_puts(b, ": the built-in opponent's reveal.\n");
		if (bd != NULL)
			bd->lines++;
		reveal_answer(c, w, b, bd != NULL ? &r : NULL);
		/* The file's one answer is the parse of it passes made, on
		 * the line after the comment. */
		if (bd != NULL && r != NULL && r->n == 1) {
			plt_free_orders(bd->o);
			bd->o = r;
			r->o[0].line = bd->lines + 1;
		} else if (bd != NULL) {
			plt_free_orders(r);
			bd->exact = false;
		}
		return;
	}
	sbuf_puts(b, "# ");
	sbuf_puts(b, g->sides[side].label);
	sbuf_puts(b, ": the built-in opponent's orders.\n");
	if (c->bd != NULL)
		c->bd->lines++;
	for (p = 0; p < g->nunits; p++)
		if (plt_is_platoon(&g->units[p]) && g->units[p].side == side)
			platoon_lines(c, p, b);
	sbuf_puts(b, "defend weakest\n");
	if (c->bd != NULL)
		c->bd->o->defend = PLT_D_WEAKEST;
}

/* Is the header window_order_header writes for w and side, and the
 * comment line under it, read as such by orders_parse_file whatever else
 * it checks (plain words within the header's sizes, a turn it takes, a
 * label of printable ASCII)? When not, plt_opponent_parsed parses the
 * text. */
static bool
header_plain(const struct game *g, const struct window_spec *w, int side)
{
	const char *const v[2] = { g->name, w->name };
	const size_t max[2] = { 64, 32 };  /* order_header's arrays */
	size_t k, n;
	int i;

	for (i = 0; i < 2; i++) {
		for (n = 0; v[i][n] != '\0'; n++)
			if (!((v[i][n] >= 'a' && v[i][n] <= 'z') ||
			    (v[i][n] >= 'A' && v[i][n] <= 'Z') ||
			    (v[i][n] >= '0' && v[i][n] <= '9') ||
			    v[i][n] == '_' || v[i][n] == '.' || v[i][n] == '-'))
				return false;
		if (n == 0 || n >= max[i])
			return false;
	}
	for (k = 0; g->sides[side].label[k] != '\0'; k++)
		if (g->sides[side].label[k] < 0x20 ||
		    g->sides[side].label[k] > 0x7e)
			return false;
	return w->turn >= 0 && w->turn <= 100000 && plain_word(
	    g->sides[side].name) && strcasecmp(w->name, "standing") != 0;
}

/* plt_opponent's lines appended to b (window_order_header's four lines
 * already in it), and what plt_parse makes of the whole file (caller
 * frees with plt_free_orders; NULL where it refuses it): the ruleset's
 * opponent_parsed, which simulate resolves instead of parsing the text
 * back. Built as the lines are written (the items of sure plans; the
 * parse passes made of the others and of a reveal, its line moved to the
 * file's); where that is not known (a stay-put fallback, a removed
 * marker, a header or size the parser might refuse), the text is parsed.
 * tests/unit/test_platoon.c t_opponent_parsed compares the two in every
 * window of a few hundred games. */
void *
plt_opponent_parsed(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	struct ctx c;
	struct build bd;

	bd.o = xcalloc(1, sizeof *bd.o);
	bd.o->side = side;
	bd.o->defend = PLT_D_EVEN;
	bd.lines = newlines(b->buf != NULL ? b->buf : "", b->len);
	plt_cache_begin(g);
	ctx_init(&c, g, side);
	bd.exact = c.sure && header_plain(g, w, side);
	c.bd = &bd;
	opponent(&c, w, b);
	ctx_free(&c);
	if (!bd.exact || b->len > ORDERS_MAX_BYTES || bd.lines >
	    ORDERS_MAX_LINES) {
		struct order_header hd;
		struct order_body body;
		struct order_errors errs;
		struct sbuf canon;
		void *out = NULL;

		plt_free_orders(bd.o);
		bd.o = NULL;
		orders_errors_init(&errs);
		sbuf_init(&canon);
		canon.discard = true;
		if (orders_parse_file(b->buf, b->len, &hd, &body, &errs) ==
		    HP_OK) {
			if (plt_parse(g, w, side, &body, &out, &canon, &errs) !=
			    HP_OK || errs.n > 0) {
				plt_free_orders(out);
				out = NULL;
			}
			orders_body_free(&body);
		}
		orders_errors_free(&errs);
		sbuf_free(&canon);
		bd.o = out;
	}
	plt_cache_end();
	return bd.o;
}
