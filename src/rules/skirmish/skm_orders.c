/* skm_orders: the skirmish ruleset's one simultaneous order window a turn,
 * its order parser (element, order letter, path, targets and the standing
 * triggers: opportunity fire, close-assault reaction, initiative choice),
 * the order template and the ruleset's registration. Format and readings:
 * docs/rules/skirmish-ww2.md, "Play by mail". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skirmish.h"

/* One simultaneous window per turn for both sides, until the end; in the
 * faithful mode a decision window when the initiative winner is asked. */
bool
skm_next_window(const struct game *g, struct window_spec *w)
{
	unsigned asked = (unsigned)game_var(g, "asked", 0);

	if (g->status == GAME_FINISHED)
		return false;
	memset(w, 0, sizeof *w);
	w->turn = g->turn;
	if (asked != 0) {
		/* The faithful mode: the initiative winner's choice, or the
		 * reactions of the targets of close assaults. */
		int kind = game_var(g, "askk", 0);

		w->number = game_var(g, "wnum", 1);
		w->kind = WINDOW_DECISION;
		strlcpy_(w->name, kind == 2 ? "react" : kind == 5 ? "melee" :
		    kind >= 3 ? "opfire" : "initiative", sizeof w->name);
		w->sides = asked;
		snprintf(w->prompt, sizeof w->prompt, "%s", kind == 2 ?
		    "your elements are close assaulted: stand, counter or "
		    "withdraw?" : kind == 5 ? "you won the initiative: in "
		    "what order are the melees fought?" : kind >= 3 ? "the "
		    "enemy has moved: where do your Opportunity Fire markers "
		    "go?" : "you won the initiative: move first or second?");
		return true;
	}
	w->number = 1;
	w->kind = WINDOW_ORDERS;
	strlcpy_(w->name, "orders", sizeof w->name);
	w->sides = (1u << g->nsides) - 1;
	return true;
}

/* side's own element in play named id, or -1 with the error. */
static int
own(const struct game *g, int side, int line, const char *id,
    struct order_errors *errs)
{
	int i = game_unit_index(g, id);

	/* Mid-turn (a stopped resolution of the faithful mode parses the
	 * stopped window's orders again) an element may have fallen since. */
	if (i < 0 || g->units[i].side != side || (!skm_alive(g, i) &&
	    !skm_mid_turn(g, i))) {
		orders_error(errs, line, "no element '%s' of yours in play "
		    "(the order template lists them)", id);
		return -1;
	}
	return i;
}

/* An enemy element side can see named id, or -1 with the error: the same
 * words whether it does not exist or is hidden. */
static int
enemy(const struct game *g, int side, int line, const char *id,
    struct order_errors *errs)
{
	int i = game_unit_index(g, id);

	if (i >= 0 && g->units[i].side == side && skm_alive(g, i)) {
		orders_error(errs, line, "'%s' is your own element", id);
		return -1;
	}
	if (i < 0 || (!skm_alive(g, i) && !skm_mid_turn(g, i)) ||
	    !skm_visible(g, side, i)) {
		orders_error(errs, line, "no enemy element '%s' in sight "
		    "(the map lists those you have spotted)", id);
		return -1;
	}
	return i;
}

/* A hex of the map from word w, or false with the error. */
static bool
map_hex(const struct game *g, int line, const char *w, struct hex *h,
    struct order_errors *errs)
{
	if (!hex_parse_label(&g->layout, w, h) || !game_on_map(g, *h)) {
		orders_error(errs, line, "'%s' is not a hex of the map (A1-%c%d)",
		    w, 'A' + g->layout.cols - 1, g->layout.rows);
		return false;
	}
	return true;
}

/* The allowance of an order letter in hexes. */
static int
allowance(char o)
{
	return o == 'A' ? SKM_MOVE_A : o == 'M' ? SKM_MOVE_M : o == 'C' ?
	    SKM_MOVE_C : 0;
}

/* The words of an order letter. */
static const char *
order_words(char o)
{
	return o == 'A' ? "At the Double" : o == 'M' ? "Move & Fire" :
	    o == 'C' ? "Cautious Advance" : "Fire";
}

/* "ELEM A|M|C|F [HEX...] [floor N] [fire T] [opfire [N]] [he|smoke HEX
 * [by S]] [assault T]" into it; false after an error. */
static bool
parse_item(const struct game *g, int side, const struct order_line *l,
    struct skm_orders *o, struct skm_item *it, struct order_errors *errs)
{
	struct skm_kind k;
	struct hex prev;
	int w = 2, cost = 0, u, c, j;
	const char *ow = l->words[1];
	char lbl[8];

	memset(it, 0, sizeof *it);
	it->line = l->lineno;
	it->floor = -1;
	it->target = it->spotter = it->assault = -1;
	if ((u = own(g, side, l->lineno, l->words[0], errs)) < 0)
		return false;
	it->unit = u;
	for (j = 0; j < o->n; j++)
		if (o->it[j].unit == u) {
			orders_error(errs, l->lineno, "element %s already has "
			    "an order on line %d (one order per element, 4.1)",
			    l->words[0], o->it[j].line);
			return false;
		}
	if (g->units[u].status >= SKM_BROKEN && !skm_mid_turn(g, u)) {
		orders_error(errs, l->lineno, "element %s is broken: broken "
		    "troops may not be issued any orders (4.1)", l->words[0]);
		return false;
	}
	if (l->nwords < 2 || strlen(ow) != 1 || strchr("amcf", ow[0]) == NULL) {
		orders_error(errs, l->lineno, "expected an order letter after "
		    "%s: A (At the Double), M (Move & Fire), C (Cautious "
		    "Advance) or F (Fire)", l->words[0]);
		return false;
	}
	it->order = (char)(ow[0] - 'a' + 'A');
	skm_kind_of(g, g->units[u].kind, &k);
	prev = g->units[u].pos;
	if (g->units[u].x[SKM_X_START] > 0) {
		/* Parsed again after a stop of the faithful mode: the path
		 * starts where the element stood when the turn began. */
		struct hex_offset so;

		so.col = (g->units[u].x[SKM_X_START] - 1) / 1000;
		so.row = (g->units[u].x[SKM_X_START] - 1) % 1000;
		prev = hex_from_offset(&g->layout, so);
	}
	for (; w < l->nwords && hex_parse_label(&g->layout, l->words[w],
	    &it->path[it->npath]); w++) {
		struct hex h = it->path[it->npath];

		if (it->order == 'F') {
			orders_error(errs, l->lineno, "a Fire order does not "
			    "move: no path after F");
			return false;
		}
		if (!game_on_map(g, h))
			return map_hex(g, l->lineno, l->words[w], &h, errs);
		if ((c = skm_step_cost(g, prev, h)) < 0) {
			orders_error(errs, l->lineno, "%s is not next to the "
			    "hex before it on the path", hex_label(&g->layout,
			    h, lbl, sizeof lbl));
			return false;
		}
		if (it->npath == SKM_PATH_MAX - 1) {
			orders_error(errs, l->lineno, "a path of at most %d "
			    "hexes", SKM_PATH_MAX - 1);
			return false;
		}
		cost += c;
		it->npath++;
		prev = h;
	}
	if (cost > allowance(it->order)) {
		orders_error(errs, l->lineno, "the path costs %d hexes of "
		    "movement; %s allows %d (%d\")", cost,
		    order_words(it->order), allowance(it->order),
		    allowance(it->order) * SKM_IN_PER_HEX);
		return false;
	}
	while (w < l->nwords) {
		const char *kw = l->words[w];
		bool more = w + 1 < l->nwords;

		if (strcmp(kw, "fire") == 0 && more) {
			if (it->order == 'A') {
				orders_error(errs, l->lineno, "At the Double "
				    "may not fire (4.1)");
				return false;
			}
			if (k.range == 0) {
				orders_error(errs, l->lineno, "%s (%s) has no "
				    "direct fire", l->words[0], k.name);
				return false;
			}
			if ((it->target = enemy(g, side, l->lineno,
			    l->words[w + 1], errs)) < 0)
				return false;
			w += 2;
		} else if (strcmp(kw, "opfire") == 0) {
			if (it->order != 'F' || k.range == 0) {
				orders_error(errs, l->lineno, "opportunity fire "
				    "needs a Fire order (F) and a direct-fire "
				    "weapon");
				return false;
			}
			it->opfire = true;
			w++;
			if (w < l->nwords && orders_parse_int(l->words[w], 1,
			    99, &it->oprange) == HP_OK)
				w++;
		} else if ((strcmp(kw, "he") == 0 || strcmp(kw, "smoke") ==
		    0) && more) {
			if (it->order != 'F' || !k.indirect) {
				orders_error(errs, l->lineno, "indirect %s needs "
				    "a Fire order (F) by an HE-capable element "
				    "(mortar)", kw);
				return false;
			}
			it->ind = kw[0] == 'h' ? SKM_IND_HE : SKM_IND_SMOKE;
			if (!map_hex(g, l->lineno, l->words[w + 1], &it->indhex,
			    errs))
				return false;
			w += 2;
			if (w + 1 < l->nwords && strcmp(l->words[w], "by") ==
			    0) {
				if ((it->spotter = own(g, side, l->lineno,
				    l->words[w + 1], errs)) < 0)
					return false;
				w += 2;
			}
		} else if (strcmp(kw, "assault") == 0 && more) {
			if (it->order == 'F') {
				orders_error(errs, l->lineno, "close assault "
				    "moves: give A, M or C (9.1)");
				return false;
			}
			if (g->units[u].status != SKM_GOOD &&
			    !skm_mid_turn(g, u)) {
				orders_error(errs, l->lineno, "only an "
				    "unsuppressed element may initiate close "
				    "assault (9.1)");
				return false;
			}
			if ((it->assault = enemy(g, side, l->lineno,
			    l->words[w + 1], errs)) < 0)
				return false;
			w += 2;
		} else if (strcmp(kw, "floor") == 0 && more) {
			const struct skm_terrain *t = skm_terrain(g, prev);

			if (orders_parse_int(l->words[w + 1], 0, 9,
			    &it->floor) != HP_OK || t == NULL ||
			    it->floor >= (t->floors ? t->floors : 1)) {
				orders_error(errs, l->lineno, "floor %s: the "
				    "element ends in no building with that "
				    "storey", l->words[w + 1]);
				return false;
			}
			w += 2;
		} else {
			orders_error(errs, l->lineno, "unexpected '%s' (after "
			    "the path: fire ENEMY, opfire [HEXES], he HEX [by "
			    "SPOTTER], smoke HEX [by SPOTTER], assault ENEMY, "
			    "floor N)", kw);
			return false;
		}
	}
	if (it->opfire && it->target >= 0) {
		orders_error(errs, l->lineno, "either fire at a target or "
		    "opportunity fire, not both");
		return false;
	}
	if (it->ind && (it->opfire || it->target >= 0)) {
		orders_error(errs, l->lineno, "indirect fire is the element's "
		    "only fire this turn");
		return false;
	}
	return true;
}

/* The faithful mode's answer: "opfire ELEMENT ENEMY HEX" or "opfire
 * ELEMENT none" for elements asked, the enemy seen passing HEX. */
static void
parse_op(const struct game *g, int side, const struct order_body *b,
    struct skm_orders *o, struct order_errors *errs)
{
	size_t k;
	int u, t, j;
	struct hex h;
	char lbl[8];

	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];

		if (strcmp(l->words[0], "opfire") != 0 || (l->nwords != 3 &&
		    l->nwords != 4) || (l->nwords == 3 && strcmp(l->words[2],
		    "none") != 0)) {
			orders_error(errs, l->lineno, "expected 'opfire ELEMENT "
			    "ENEMY HEX' or 'opfire ELEMENT none'");
			continue;
		}
		if ((u = own(g, side, l->lineno, l->words[1], errs)) < 0)
			continue;
		if (!skm_op_asked(g, u)) {
			orders_error(errs, l->lineno, "%s is not asked for a "
			    "marker (the template lists those that are)",
			    l->words[1]);
			continue;
		}
		for (j = 0; j < o->nop && o->op_unit[j] != u; j++)
			;
		if (j < o->nop || o->nop == SKM_ITEMS_MAX) {
			orders_error(errs, l->lineno, "a second marker for %s",
			    l->words[1]);
			continue;
		}
		t = -1;
		if (l->nwords == 4) {
			if ((t = enemy(g, side, l->lineno, l->words[2], errs)) <
			    0 || !map_hex(g, l->lineno, l->words[3], &h, errs))
				continue;
			hex_label(&g->layout, h, lbl, sizeof lbl);
			if (!skm_moved_through(g, t, h)) {
				orders_error(errs, l->lineno, "%s did not pass "
				    "%s", l->words[2], lbl);
				continue;
			}
			if (!skm_op_ok(g, u, t, h, 0)) {
				orders_error(errs, l->lineno, "%s cannot see %s "
				    "within its range", l->words[1], lbl);
				continue;
			}
			o->op_hex[o->nop] = h;
		}
		o->op_unit[o->nop] = u;
		o->op_target[o->nop++] = t;
	}
}

/* Parse a side's orders (or its standing orders: initiative, react). */
int
skm_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	struct skm_orders *o = xcalloc(1, sizeof *o);
	bool react = w->kind == WINDOW_DECISION && strcmp(w->name, "react") ==
	    0;
	bool standing = strcmp(w->name, "standing") == 0 || react;
	size_t k, before = errs->n;
	int i, j, initl = 0;
	char lbl[8];

	o->initiative = -1;
	if (w->kind == WINDOW_DECISION && strcmp(w->name, "melee") == 0) {
		for (k = 0; k < b->n; k++) {
			const struct order_line *l = &b->v[k];

			if (strcmp(l->words[0], "melee") != 0 ||
			    l->nwords < 2 || o->nmelee > 0) {
				orders_error(errs, l->lineno, "expected one line "
				    "'melee ELEMENT ELEMENT ...' (the attackers "
				    "in the order their melees are fought)");
				continue;
			}
			for (i = 1; i < l->nwords; i++) {
				int u = game_unit_index(g, l->words[i]);

				for (j = 0; j < o->nmelee && u >= 0 &&
				    o->melee[j] != u; j++)
					;
				if (u < 0 || !skm_melee_asked(g, u) ||
				    j < o->nmelee) {
					orders_error(errs, l->lineno, "'%s' is "
					    "no attacker of this turn's melees, "
					    "or named twice (the template lists "
					    "them)", l->words[i]);
					break;
				}
				o->melee[o->nmelee++] = u;
			}
		}
		if (errs->n > before) {
			free(o);
			*out = NULL;
			return HP_EINVAL;
		}
		if (o->nmelee > 0) {
			sbuf_puts(canon, "melee");
			for (i = 0; i < o->nmelee; i++)
				sbuf_printf(canon, " %s",
				    g->units[o->melee[i]].id);
			sbuf_puts(canon, "\n");
		}
		*out = o;
		return HP_OK;
	}
	if (w->kind == WINDOW_DECISION && strcmp(w->name, "opfire") == 0) {
		parse_op(g, side, b, o, errs);
		if (errs->n > before) {
			free(o);
			*out = NULL;
			return HP_EINVAL;
		}
		for (i = 0; i < o->nop; i++) {
			if (o->op_target[i] < 0)
				sbuf_printf(canon, "opfire %s none\n",
				    g->units[o->op_unit[i]].id);
			else
				sbuf_printf(canon, "opfire %s %s %s\n",
				    g->units[o->op_unit[i]].id,
				    g->units[o->op_target[i]].id,
				    hex_label(&g->layout, o->op_hex[i], lbl,
				    sizeof lbl));
		}
		*out = o;
		return HP_OK;
	}
	if (w->kind == WINDOW_DECISION && !react) {
		for (k = 0; k < b->n; k++) {
			const struct order_line *l = &b->v[k];
			const char *a = l->nwords == 2 && strcmp(l->words[0],
			    "initiative") == 0 ? l->words[1] : l->nwords == 1 ?
			    l->words[0] : "";

			if (strcmp(a, "first") && strcmp(a, "second"))
				orders_error(errs, l->lineno, "answer 'initiative "
				    "first' or 'initiative second'");
			else if (o->initiative >= 0)
				orders_error(errs, l->lineno, "a second answer");
			else
				o->initiative = a[0] == 's';
		}
		if (errs->n == before && o->initiative < 0)
			orders_error(errs, 0, "answer 'initiative first' or "
			    "'initiative second'");
		if (errs->n > before) {
			free(o);
			*out = NULL;
			return HP_EINVAL;
		}
		sbuf_printf(canon, "initiative %s\n", o->initiative ? "second" :
		    "first");
		*out = o;
		return HP_OK;
	}
	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];

		if (strcmp(l->words[0], "initiative") == 0) {
			if (l->nwords != 2 || (strcmp(l->words[1], "first") &&
			    strcmp(l->words[1], "second")))
				orders_error(errs, l->lineno, "expected "
				    "'initiative first' or 'initiative "
				    "second'");
			else if (initl)
				orders_error(errs, l->lineno, "a second "
				    "'initiative' (the first on line %d)",
				    initl);
			else {
				o->initiative = l->words[1][0] == 's';
				initl = l->lineno;
			}
		} else if (strcmp(l->words[0], "react") == 0) {
			int u, r = -1;

			if (l->nwords != 3) {
				orders_error(errs, l->lineno, "expected 'react "
				    "ELEMENT stand|counter|withdraw'");
				continue;
			}
			if (standing && !react) {
				/* Standing orders outlive their elements:
				 * parsed again each window, they name any
				 * element of the side, in play or not. */
				u = game_unit_index(g, l->words[1]);
				if (u < 0 || g->units[u].side != side) {
					orders_error(errs, l->lineno, "no element "
					    "'%s' of yours", l->words[1]);
					continue;
				}
			} else if ((u = own(g, side, l->lineno, l->words[1],
			    errs)) < 0)
				continue;
			if (react && !skm_react_asked(g, u)) {
				orders_error(errs, l->lineno, "%s is not asked "
				    "to react (the template lists those that "
				    "are)", l->words[1]);
				continue;
			}
			if (strcmp(l->words[2], "stand") == 0)
				r = SKM_R_STAND;
			else if (strcmp(l->words[2], "counter") == 0)
				r = SKM_R_COUNTER;
			else if (strcmp(l->words[2], "withdraw") == 0)
				r = SKM_R_WITHDRAW;
			if (r < 0) {
				orders_error(errs, l->lineno, "react: stand, "
				    "counter or withdraw, not '%s'",
				    l->words[2]);
				continue;
			}
			for (j = 0; j < o->nreact && o->react_unit[j] != u; j++)
				;
			if (j < o->nreact) {
				orders_error(errs, l->lineno, "a second 'react' "
				    "for %s", l->words[1]);
				continue;
			}
			o->react_unit[o->nreact] = u;
			o->react[o->nreact++] = r;
		} else if (react) {
			orders_error(errs, l->lineno, "answer with 'react "
			    "ELEMENT stand|counter|withdraw' lines only");
		} else if (standing) {
			orders_error(errs, l->lineno, "standing orders take "
			    "'initiative first|second' and 'react ELEMENT "
			    "stand|counter|withdraw' only");
		} else if (o->n == SKM_ITEMS_MAX) {
			orders_error(errs, l->lineno, "too many orders");
		} else if (parse_item(g, side, l, o, &o->it[o->n], errs))
			o->n++;
	}
	if (errs->n > before) {
		free(o);
		*out = NULL;
		return HP_EINVAL;
	}
	*out = o;
	if (canon->discard)     /* nobody reads it (a stored window) */
		return HP_OK;
	if (initl)
		sbuf_printf(canon, "initiative %s\n", o->initiative ? "second" :
		    "first");
	for (j = 0; j < o->nreact; j++)
		sbuf_printf(canon, "react %s %s\n",
		    g->units[o->react_unit[j]].id, o->react[j] ==
		    SKM_R_STAND ? "stand" : o->react[j] == SKM_R_COUNTER ?
		    "counter" : "withdraw");
	for (j = 0; j < o->n; j++) {
		const struct skm_item *it = &o->it[j];

		sbuf_printf(canon, "%s %c", g->units[it->unit].id, it->order);
		for (i = 0; i < it->npath; i++)
			sbuf_printf(canon, " %s", hex_label(&g->layout,
			    it->path[i], lbl, sizeof lbl));
		if (it->floor >= 0)
			sbuf_printf(canon, " floor %d", it->floor);
		if (it->target >= 0)
			sbuf_printf(canon, " fire %s", g->units[it->target].id);
		if (it->opfire)
			sbuf_printf(canon, it->oprange ? " opfire %d" :
			    " opfire", it->oprange);
		if (it->ind)
			sbuf_printf(canon, " %s %s", it->ind == SKM_IND_HE ?
			    "he" : "smoke", hex_label(&g->layout, it->indhex,
			    lbl, sizeof lbl));
		if (it->ind && it->spotter >= 0)
			sbuf_printf(canon, " by %s", g->units[it->spotter].id);
		if (it->assault >= 0)
			sbuf_printf(canon, " assault %s",
			    g->units[it->assault].id);
		sbuf_puts(canon, "\n");
	}
	return HP_OK;
}

/* Free parsed orders. */
void
skm_free_orders(void *p)
{
	free(p);
}

/* The answer "melee A B ..." naming the asked attackers in their order. */
void
skm_melee_answer(const struct game *g, struct sbuf *b)
{
	int i;

	sbuf_puts(b, "melee");
	for (i = 0; i < g->nunits; i++)
		if (skm_melee_asked(g, i))
			sbuf_printf(b, " %s", g->units[i].id);
	sbuf_puts(b, "\n");
}

/* The answer "react ID stand" for each of side's elements asked. */
void
skm_react_answer(const struct game *g, int side, struct sbuf *b)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side == side && skm_react_asked(g, i))
			sbuf_printf(b, "react %s stand\n", g->units[i].id);
}

/* A commented, ready-to-edit order body for side (from its view). */
void
skm_order_template(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	struct skm_kind k;
	char lbl[8];
	int i, n = 0;

	if (w->kind == WINDOW_DECISION && strcmp(w->name, "melee") == 0) {
		sbuf_puts(b, "# You won the initiative (3.1: \"Initiative "
		    "winner decides the order that melee\n# is carried out\")."
		    " These close assaults go in:\n");
		for (i = 0; i < g->nunits; i++)
			if (skm_melee_asked(g, i))
				sbuf_printf(b, "#   %s (%s)\n", g->units[i].id,
				    g->sides[g->units[i].side].name);
		sbuf_puts(b, "# Name the attackers in the order their melees "
		    "are fought (the rest follow):\n");
		skm_melee_answer(g, b);
		return;
	}
	if (w->kind == WINDOW_DECISION && strcmp(w->name, "opfire") == 0) {
		int t, np;

		sbuf_puts(b, "# The enemy has moved (3.1: \"places Opportunity "
		    "Fire markers\"). For each element\n# below: 'opfire "
		    "ELEMENT ENEMY HEX' (a hex the enemy passed that it sees in "
		    "range)\n# or 'opfire ELEMENT none'.\n");
		for (i = 0; i < g->nunits; i++) {
			if (g->units[i].side != side || !skm_op_asked(g, i))
				continue;
			for (t = 0; t < g->nunits; t++) {
				struct hex h;
				int m;

				if (g->units[t].side == side ||
				    !skm_alive(g, t))
					continue;
				np = skm_moved_n(g, t);
				for (m = 0; m < np; m++) {
					h = skm_moved_hex(g, t, m);
					if (skm_op_ok(g, i, t, h, 0))
						sbuf_printf(b, "#   %s may "
						    "mark %s at %s\n",
						    g->units[i].id,
						    g->units[t].id,
						    hex_label(&g->layout, h,
						    lbl, sizeof lbl));
				}
			}
			sbuf_printf(b, "opfire %s none\n", g->units[i].id);
		}
		return;
	}
	if (w->kind == WINDOW_DECISION && strcmp(w->name, "react") == 0) {
		sbuf_puts(b, "# Your elements below are close assaulted (9.1: "
		    "\"the target may react by up to 4\" as if CA\").\n"
		    "# For each: stand, counter (move into contact) or "
		    "withdraw (up to 2 hexes away).\n");
		skm_react_answer(g, side, b);
		return;
	}
	if (w->kind == WINDOW_DECISION) {
		sbuf_puts(b, "# You won the initiative (3.1: \"Highest roll "
		    "chooses to move first or second\").\n# Answer "
		    "'initiative first' or 'initiative second'.\n"
		    "initiative first\n");
		return;
	}
	sbuf_puts(b, "# One line an element: ELEMENT ORDER [PATH] [CLAUSES]\n"
	    "#   A  At the Double: 6 hexes (12\"), may not fire\n"
	    "#   M  Move & Fire: 4 hexes (8\"), fires in the moving fire "
	    "phase\n"
	    "#   C  Cautious Advance: 2 hexes (4\"), fires in the moving "
	    "fire phase\n"
	    "#   F  Fire: stationary, opportunity or indirect fire\n"
	    "# PATH: adjacent hexes (woods, buildings, rubble cost 2; a "
	    "hedge or wall +1).\n"
	    "# Clauses: fire ENEMY | opfire [HEXES] | he HEX [by SPOTTER] |\n"
	    "#   smoke HEX [by SPOTTER] | assault ENEMY (within 2 hexes "
	    "after moving) | floor N\n"
	    "# Standing choices (kept until changed):\n"
	    "#   initiative first|second      if you win the initiative\n"
	    "#   react ELEMENT stand|counter|withdraw   when close "
	    "assaulted\n"
	    "# Broken elements take no orders. An element without a line "
	    "does nothing.\n");
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (u->side != side || !skm_alive(g, i))
			continue;
		skm_kind_of(g, u->kind, &k);
		sbuf_printf(b, "# %s: %s at %s, %d/%d figures, %s%s\n", u->id,
		    k.name, hex_label(&g->layout, u->pos, lbl, sizeof lbl),
		    u->strength, u->x[SKM_X_FULL],
		    skm_morale_names[u->status], (u->flags & SKM_F_HIDDEN) ?
		    ", hidden" : "");
		if (u->status < SKM_BROKEN)
			sbuf_printf(b, "%s F\n", u->id);
	}
	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side != side && skm_alive(g, i) &&
		    skm_visible(g, side, i))
			sbuf_printf(b, "%s %s (%s) at %s", n++ ? "," :
			    "# Enemy in sight:", g->units[i].id,
			    g->units[i].kind, hex_label(&g->layout,
			    g->units[i].pos, lbl, sizeof lbl));
	sbuf_puts(b, n ? "\n" : "# No enemy in sight.\n");
}

const struct ruleset ruleset_skirmish = {
	.name = "skirmish-ww2",
	.title = "WWII skirmish quick reference (hidden deployment)",
	.seed = "003",
	.options_help = "turns=N   the turn after which the game may end "
	    "(table 16.1; default the scenario's)\nfaithful  decision "
	    "windows ask the initiative winner (first or second, the order "
	    "of the melees), the targets of close assaults and where "
	    "Opportunity Fire markers go",
	.setup = skm_setup,
	.default_scenario = "crossroads",
	.next_window = skm_next_window,
	.parse = skm_parse,
	.free_orders = skm_free_orders,
	.resolve = skm_resolve,
	.victory = skm_victory,
	.opponent = skm_opponent,
	.render_map = skm_render_map,
	.status = skm_status,
	.order_template = skm_order_template,
	.hidden = true,
	.visible = skm_vis_cb,
	.redact = skm_redact,
};
