/* skm_ai: the skirmish ruleset's built-in opponent. It plays either side
 * from what that side can see (its own elements and the enemy it has
 * spotted): support weapons and sections fire at the nearest enemy in
 * sight, the mortar calls HE through a spotter that sees a target, and the
 * rest advance on the nearest objective not yet held, assaulting what is
 * within reach. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skirmish.h"

/* Append the strings given, up to a NULL, to b (order text without
 * printf: the opponent writes a line for every element, every window). */
static void put(struct sbuf *, ...) __attribute__((sentinel));

static void
put(struct sbuf *b, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, b);
	while ((s = va_arg(ap, const char *)) != NULL)
		sbuf_puts(b, s);
	va_end(ap);
}

/* The var key "obj.I" or "obj.I.hex" (hex) into key (32 bytes), without
 * printf: the opponent reads every objective for every element. */
static const char *
obj_key(char *key, int i, bool hex)
{
	char d[12];
	int n = 0, k = 4;

	memcpy(key, "obj.", 4);
	do {
		d[n++] = (char)('0' + i % 10);
		i /= 10;
	} while (i > 0 && n < 10);
	while (n > 0)
		key[k++] = d[--n];
	if (hex) {
		memcpy(key + k, ".hex", 4);
		k += 4;
	}
	key[k] = '\0';
	return key;
}

/* The hex of objective i. */
static struct hex
objective(const struct game *g, int i)
{
	char key[32];
	struct hex_offset off;
	int v;

	v = game_var(g, obj_key(key, i, true), 0);
	off.row = v / 1000;
	off.col = v % 1000;
	return hex_from_offset(&g->layout, off);
}

/* The hexes of the elements in play that side knows of (its own and the
 * enemy it sees) into at (nunits room); how many. */
static int
known_hexes(const struct game *g, int side, struct hex *at)
{
	int i, n = 0;

	for (i = 0; i < g->nunits; i++)
		if (skm_alive(g, i) && skm_visible(g, side, i))
			at[n++] = g->units[i].pos;
	return n;
}

/* Is h one of the n hexes at? */
static bool
known_at(const struct hex *at, int n, struct hex h)
{
	int i;

	for (i = 0; i < n; i++)
		if (hex_eq(at[i], h))
			return true;
	return false;
}

/* Write a greedy path from unit u toward goal within allow hexes, around
 * the nk hexes known (known_hexes of u's side). */
static void
path_to(const struct game *g, int u, struct hex goal, int allow,
    const struct hex *known, int nk, struct sbuf *b)
{
	struct hex cur = g->units[u].pos;
	char lbl[8];
	int spent = 0, n = 0, d, k, dirs[6];

	skm_dirs(g, g->units[u].side, dirs);
	while (n < SKM_PATH_MAX - 1 && !hex_eq(cur, goal)) {
		int best = -1, bd = hex_distance(cur, goal), c;

		for (k = 0; k < 6; k++) {
			struct hex h;
			int hd;

			d = dirs[k];
			h = hex_neighbour(cur, d);
			if (!game_on_map(g, h) || known_at(known, nk, h) ||
			    (c = skm_step_cost(g, cur, h)) < 0 ||
			    spent + c > allow)
				continue;
			hd = hex_distance(h, goal);
			if (hd < bd) {
				bd = hd;
				best = d;
			}
		}
		if (best < 0)
			break;
		spent += skm_step_cost(g, cur, hex_neighbour(cur, best));
		cur = hex_neighbour(cur, best);
		put(b, " ", hex_label(&g->layout, cur, lbl, sizeof lbl),
		    NULL);
		n++;
	}
}

/* The nearest enemy side sees that unit u can shoot (LOS, range), -1. */
static int
shootable(const struct game *g, int side, int u, int range)
{
	int i, best = -1, bd = 0, d;

	for (i = 0; i < g->nunits; i++) {
		if (!skm_alive(g, i) || g->units[i].side == side ||
		    !skm_visible(g, side, i) || !skm_los_units(g, u, i))
			continue;
		d = hex_distance(g->units[u].pos, g->units[i].pos);
		if (d > range)
			continue;
		if (best < 0 || d < bd) {
			best = i;
			bd = d;
		}
	}
	return best;
}

/* Side's orders for this turn, from what it sees. */
static void
plan(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	struct skm_kind k;
	char lbl[8];
	int i, j, nobj, *oheld = NULL, nknown = 0;
	struct hex *ohex = NULL, *known = NULL;

	if (w->kind == WINDOW_DECISION && strcmp(w->name, "melee") == 0) {
		skm_melee_answer(g, b);
		return;
	}
	if (w->kind == WINDOW_DECISION && strcmp(w->name, "opfire") == 0) {
		for (i = 0; i < g->nunits; i++) {
			int t, m, n, done = 0;

			if (g->units[i].side != side || !skm_op_asked(g, i))
				continue;
			for (t = 0; t < g->nunits && !done; t++) {
				if (g->units[t].side == side ||
				    !skm_alive(g, t) ||
				    !skm_visible(g, side, t))
					continue;
				n = skm_moved_n(g, t);
				for (m = 0; m < n && !done; m++) {
					struct hex h = skm_moved_hex(g, t, m);

					if (!skm_op_ok(g, i, t, h, 0))
						continue;
					sbuf_printf(b, "opfire %s %s %s\n",
					    g->units[i].id, g->units[t].id,
					    hex_label(&g->layout, h, lbl,
					    sizeof lbl));
					done = 1;
				}
			}
			if (!done)
				sbuf_printf(b, "opfire %s none\n",
				    g->units[i].id);
		}
		return;
	}
	if (w->kind == WINDOW_DECISION && strcmp(w->name, "react") == 0) {
		skm_react_answer(g, side, b);
		return;
	}
	if (w->kind == WINDOW_DECISION) {
		sbuf_puts(b, "initiative first\n");
		return;
	}
	sbuf_puts(b, "initiative first\n");
	/* the objectives, read once for every element (g does not change) */
	nobj = game_var(g, "obj.n", 0);
	if (nobj > 0) {
		char key[32];

		ohex = xcalloc((size_t)nobj, sizeof *ohex);
		oheld = xcalloc((size_t)nobj, sizeof *oheld);
		for (j = 0; j < nobj; j++) {
			ohex[j] = objective(g, j);
			oheld[j] = game_var(g, obj_key(key, j, false), 0);
		}
	}
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		int t, best = -1, bd = 999;
		struct hex goal = u->pos;

		if (u->side != side || !skm_alive(g, i) ||
		    u->status >= SKM_BROKEN)
			continue;
		skm_kind_of(g, u->kind, &k);
		if (k.indirect) {
			int sp = -1, tg = -1;

			for (j = 0; j < g->nunits && tg < 0; j++) {
				int s2;

				if (!skm_alive(g, j) || g->units[j].side ==
				    side || !skm_visible(g, side, j))
					continue;
				for (s2 = 0; s2 < g->nunits; s2++)
					if (skm_alive(g, s2) &&
					    g->units[s2].side == side &&
					    skm_los_units(g, s2, j)) {
						sp = s2;
						tg = j;
						break;
					}
			}
			if (tg >= 0) {
				put(b, u->id, " F he ",
				    hex_label(&g->layout, g->units[tg].pos,
				    lbl, sizeof lbl), NULL);
				if (sp != i)
					put(b, " by ", g->units[sp].id, NULL);
				sbuf_puts(b, "\n");
			} else
				put(b, u->id, " F\n", NULL);
			continue;
		}
		t = shootable(g, side, i, k.range);
		if (t >= 0 && u->status == SKM_GOOD && !k.sw &&
		    hex_distance(u->pos, g->units[t].pos) <= 1 &&
		    u->strength >= g->units[t].strength) {
			put(b, u->id, " C assault ", g->units[t].id, "\n",
			    NULL);
			continue;
		}
		for (j = 0; j < nobj; j++) {
			int d = hex_distance(u->pos, ohex[j]);

			if (oheld[j] == side + 1 && d <= 1) {
				best = -1;
				break;
			}
			if (oheld[j] != side + 1 && d < bd) {
				bd = d;
				best = j;
			}
		}
		if (best >= 0 && !k.sw && !k.leader)
			goal = ohex[best];
		if (hex_eq(goal, u->pos) || k.sw || k.leader || k.spotter ||
		    u->status != SKM_GOOD) {
			if (t >= 0)
				put(b, u->id, " F fire ", g->units[t].id, "\n",
				    NULL);
			else
				put(b, u->id, " F opfire\n", NULL);
			continue;
		}
		put(b, u->id, " M", NULL);
		if (known == NULL) {
			known = xcalloc((size_t)g->nunits + 1, sizeof *known);
			nknown = known_hexes(g, side, known);
		}
		path_to(g, i, goal, SKM_MOVE_M, known, nknown, b);
		if (t >= 0)
			put(b, " fire ", g->units[t].id, NULL);
		sbuf_puts(b, "\n");
	}
	free(ohex);
	free(oheld);
	free(known);
}

/* Side's orders for this turn (plan) with the sight cache on g. */
void
skm_opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	skm_sight_begin(g);
	plan(g, w, side, b);
	skm_sight_end();
}
