/* cap_plan: the plan language of cards-ap (docs/rules/cards-ap.md, "The
 * round plan"): an ordered list of actions, each optionally guarded by
 * `if COND then ACTION [else ACTION]`, stop conditions (`stop ...`), the
 * dry policy (`dry pass`) and the initiative bid (`initiative N`). Every
 * error is reported with its line; the canonical text is one statement a
 * line. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"

static const char *const act_names[] = { "none", "move", "pivot", "fire",
	"close", "rally", "card", "stall", "pass" };

/* Is word w the keyword kw (its first byte compared first: most words
 * are not)? */
static inline bool
word_is(const char *w, const char *kw)
{
	return w[0] == kw[0] && strcmp(w, kw) == 0;
}

/* The last id game_unit_index found during one cap_plan_parse (a plan
 * names a unit several times a line; g does not change meanwhile). */
static _Thread_local struct {
	const struct game *g;
	char id[ORDERS_WORD_MAX];
	int index;
} last_id;

/* game_unit_index(g, id), the last answer again for the same id. */
static int
unit_index(const struct game *g, const char *id)
{
	if (last_id.g != g || strcmp(last_id.id, id) != 0) {
		last_id.index = game_unit_index(g, id);
		strlcpy_(last_id.id, id, sizeof last_id.id);
		last_id.g = g;
	}
	return last_id.index;
}

/* A unit of side by id, on the game (any status): its index or -1. */
static int
own_unit(const struct game *g, int side, const char *id)
{
	int i = unit_index(g, id);

	if (i < 0 || g->units[i].side != side ||
	    strcmp(g->units[i].kind, CAP_SMOKE) == 0)
		return -1;
	return i;
}

/* The hex of label s on the map, or false. */
static bool
map_hex(const struct game *g, const char *s, struct hex *h)
{
	return hex_parse_label(&g->layout, s, h) && game_on_map(g, *h);
}

/* "A1-L8": the labels of the map's corners. */
static void
map_range(const struct game *g, char *buf, size_t len)
{
	char a[8], b[8];
	struct hex_offset o0 = { 0, 0 };
	struct hex_offset o1 = { g->layout.cols - 1, g->layout.rows - 1 };

	hex_label(&g->layout, hex_from_offset(&g->layout, o0), a, sizeof a);
	hex_label(&g->layout, hex_from_offset(&g->layout, o1), b, sizeof b);
	snprintf(buf, len, "%s-%s", a, b);
}

/* Parse words w[i..j) as an action of side into a; false (with an error
 * at line) when they are none. */
static bool
parse_action(const struct game *g, int side, const struct order_line *l,
    int i, int j, struct cap_action *a, struct order_errors *errs)
{
	char rng[24];
	const char *verb;
	int n, k;

	memset(a, 0, sizeof *a);
	a->unit = a->tunit = -1;
	a->facing = -1;
	if (i < j && word_is(l->words[i], "cmd")) {
		a->cmd = true;
		i++;
	}
	if (i >= j) {
		orders_error(errs, l->lineno, "expected an action (move, pivot, "
		    "fire, close, rally, card, stall, pass)");
		return false;
	}
	verb = l->words[i];
	n = j - i;
	for (k = 1; k < (int)(sizeof act_names / sizeof act_names[0]); k++)
		if (verb[0] == act_names[k][0] && strcmp(verb, act_names[k]) ==
		    0) {
			a->kind = k;
			break;
		}
	if (a->kind == ACT_NONE) {
		orders_error(errs, l->lineno, "unknown action '%s' (expected "
		    "move, pivot, fire, close, rally, card, stall or pass)",
		    verb);
		return false;
	}
	if (a->cmd && (a->kind == ACT_CARD || a->kind == ACT_STALL ||
	    a->kind == ACT_PASS)) {
		orders_error(errs, l->lineno, "'cmd' goes with move, pivot, "
		    "fire, close or rally, not '%s'", verb);
		return false;
	}
	if (a->kind == ACT_PASS) {
		if (n != 1) {
			orders_error(errs, l->lineno, "'pass' takes nothing "
			    "after it");
			return false;
		}
		return true;
	}
	if (a->kind == ACT_CARD) {
		if (n < 3 || orders_parse_int(l->words[i + 1], 1,
		    CAP_MAX_CARDS, &a->card) != HP_OK) {
			orders_error(errs, l->lineno, "expected 'card N rally "
			    "UNIT' or 'card N smoke HEX'");
			return false;
		}
		if (word_is(l->words[i + 2], "rally") && n == 4) {
			if ((a->tunit = own_unit(g, side, l->words[i + 3])) < 0) {
				orders_error(errs, l->lineno, "no unit '%s' of "
				    "yours", l->words[i + 3]);
				return false;
			}
			return true;
		}
		if (word_is(l->words[i + 2], "smoke") && n == 4) {
			if (!map_hex(g, l->words[i + 3], &a->target)) {
				map_range(g, rng, sizeof rng);
				orders_error(errs, l->lineno, "expected a hex of "
				    "the map (%s), got '%s'", rng,
				    l->words[i + 3]);
				return false;
			}
			return true;
		}
		orders_error(errs, l->lineno, "expected 'card N rally UNIT' or "
		    "'card N smoke HEX'");
		return false;
	}
	if (n < 2) {
		orders_error(errs, l->lineno, "'%s' needs a unit", verb);
		return false;
	}
	if ((a->unit = own_unit(g, side, l->words[i + 1])) < 0) {
		orders_error(errs, l->lineno, "no unit '%s' of yours",
		    l->words[i + 1]);
		return false;
	}
	i += 2;
	switch (a->kind) {
	case ACT_STALL:
	case ACT_RALLY:
		if (i != j) {
			orders_error(errs, l->lineno, "'%s UNIT' takes nothing "
			    "more", verb);
			return false;
		}
		return true;
	case ACT_PIVOT:
		if (i + 1 != j || (a->facing = cap_dir_parse(l->words[i])) <
		    0) {
			orders_error(errs, l->lineno, "expected 'pivot UNIT "
			    "DIR' with DIR one of n, ne, se, s, sw, nw");
			return false;
		}
		return true;
	case ACT_MOVE:
		if (i < j && word_is(l->words[i], "toward")) {
			a->toward = true;
			i++;
		}
		while (i < j && !word_is(l->words[i], "face")) {
			if (a->npath == CAP_MAX_PATH || (a->toward &&
			    a->npath == 1)) {
				orders_error(errs, l->lineno, "too many hexes "
				    "(at most %d)", a->toward ? 1 :
				    CAP_MAX_PATH);
				return false;
			}
			if (!map_hex(g, l->words[i], &a->path[a->npath])) {
				map_range(g, rng, sizeof rng);
				orders_error(errs, l->lineno, "expected a hex of "
				    "the map (%s), got '%s'", rng, l->words[i]);
				return false;
			}
			a->npath++;
			i++;
		}
		if (a->npath == 0) {
			orders_error(errs, l->lineno, "'move' needs a hex");
			return false;
		}
		if (i < j) {
			if (i + 2 != j || (a->facing = cap_dir_parse(
			    l->words[i + 1])) < 0) {
				orders_error(errs, l->lineno, "expected 'face "
				    "DIR' with DIR one of n, ne, se, s, sw, nw");
				return false;
			}
		}
		return true;
	case ACT_FIRE:
	case ACT_CLOSE:
		if (i >= j) {
			orders_error(errs, l->lineno, "'%s' needs a target",
			    verb);
			return false;
		}
		if (a->kind == ACT_FIRE && word_is(l->words[i], "best"))
			a->best = true;
		else if (a->kind == ACT_FIRE) {
			if (!map_hex(g, l->words[i], &a->target)) {
				map_range(g, rng, sizeof rng);
				orders_error(errs, l->lineno, "expected a hex of "
				    "the map (%s) or 'best', got '%s'", rng,
				    l->words[i]);
				return false;
			}
		} else {
			a->tunit = unit_index(g, l->words[i]);
			if (a->tunit < 0 || g->units[a->tunit].side == side ||
			    g->units[a->tunit].side < 0) {
				orders_error(errs, l->lineno, "no enemy unit "
				    "'%s'", l->words[i]);
				return false;
			}
		}
		i++;
		if (i < j) {
			if (i + 2 != j || !word_is(l->words[i], "caps") ||
			    orders_parse_int(l->words[i + 1], 0, 2, &a->caps) !=
			    HP_OK) {
				orders_error(errs, l->lineno, "expected 'caps N' "
				    "with N 0 to 2");
				return false;
			}
		}
		return true;
	default:
		return false;
	}
}

/* Parse a guard's words w[i..j) into e; false with an error. */
static bool
parse_cond(const struct game *g, int side, const struct order_line *l,
    int i, int j, struct cap_entry *e, struct order_errors *errs)
{
	char rng[24];

	if (i < j && word_is(l->words[i], "not")) {
		e->neg = true;
		i++;
	}
	if (i + 1 == j && word_is(l->words[i], "passed")) {
		e->cond = COND_PASSED;
		return true;
	}
	if (i + 2 == j && (word_is(l->words[i], "occupied") ||
	    word_is(l->words[i], "enemy"))) {
		e->cond = l->words[i][0] == 'o' ? COND_OCCUPIED : COND_ENEMY;
		if (!map_hex(g, l->words[i + 1], &e->chex)) {
			map_range(g, rng, sizeof rng);
			orders_error(errs, l->lineno, "expected a hex of the map "
			    "(%s), got '%s'", rng, l->words[i + 1]);
			return false;
		}
		return true;
	}
	if (i + 2 == j && (word_is(l->words[i], "inrange") ||
	    word_is(l->words[i], "inlos"))) {
		e->cond = l->words[i][2] == 'r' ? COND_INRANGE : COND_INLOS;
		if ((e->cunit = own_unit(g, side, l->words[i + 1])) < 0) {
			orders_error(errs, l->lineno, "no unit '%s' of yours",
			    l->words[i + 1]);
			return false;
		}
		return true;
	}
	if (i + 2 == j && word_is(l->words[i], "caps")) {
		e->cond = COND_CAPS;
		if (orders_parse_int(l->words[i + 1], 0, 99, &e->cn) != HP_OK) {
			orders_error(errs, l->lineno, "expected 'caps N' with N "
			    "0 to 99");
			return false;
		}
		return true;
	}
	orders_error(errs, l->lineno, "expected a condition: [not] occupied "
	    "HEX, enemy HEX, inrange UNIT, inlos UNIT, caps N or passed");
	return false;
}

/* Parse a stop line into p; false with an error. */
static bool
parse_stop(const struct game *g, int side, const struct order_line *l,
    struct cap_plan *p, struct order_errors *errs)
{
	struct cap_stop *s;
	const char *w = l->nwords > 1 ? l->words[1] : "";
	int k;

	if (p->nstops == CAP_MAX_STOPS) {
		orders_error(errs, l->lineno, "too many stops (at most %d)",
		    CAP_MAX_STOPS);
		return false;
	}
	s = &p->stops[p->nstops];
	s->unit = -1;
	s->act = ACT_NONE;
	if ((word_is(w, "hit") || word_is(w, "lost")) &&
	    l->nwords <= 3) {
		s->kind = w[0] == 'h' ? STOP_HIT : STOP_LOST;
		if (l->nwords == 3 && (s->unit = own_unit(g, side,
		    l->words[2])) < 0) {
			orders_error(errs, l->lineno, "no unit '%s' of yours",
			    l->words[2]);
			return false;
		}
	} else if ((word_is(w, "seen") || word_is(w, "revealed")) &&
	    l->nwords == 2)
		s->kind = STOP_SEEN;
	else if (word_is(w, "dry") && l->nwords == 2)
		s->kind = STOP_DRY;
	else if (word_is(w, "inrange") && l->nwords == 3) {
		s->kind = STOP_INRANGE;
		if ((s->unit = own_unit(g, side, l->words[2])) < 0) {
			orders_error(errs, l->lineno, "no unit '%s' of yours",
			    l->words[2]);
			return false;
		}
	} else if (word_is(w, "answer") && l->nwords == 3) {
		s->kind = STOP_ANSWER;
		if (!word_is(l->words[2], "any")) {
			for (k = 1; k < (int)(sizeof act_names /
			    sizeof act_names[0]); k++)
				if (strcmp(l->words[2], act_names[k]) == 0)
					s->act = k;
			if (s->act == ACT_NONE) {
				orders_error(errs, l->lineno, "expected 'stop "
				    "answer ACTION' with ACTION any, move, "
				    "pivot, fire, close, rally, card, stall or "
				    "pass");
				return false;
			}
		}
	} else {
		orders_error(errs, l->lineno, "expected 'stop hit [UNIT]', "
		    "'stop lost [UNIT]', 'stop seen', 'stop inrange UNIT', "
		    "'stop dry' or 'stop answer ACTION'");
		return false;
	}
	p->nstops++;
	return true;
}

/* Parse side's plan from b into p; every error to errs with its line.
 * per_action: one action at most (the campaign option). HP_OK/HP_EINVAL. */
int
cap_plan_parse(const struct game *g, int side, const struct order_body *b,
    bool per_action, struct cap_plan *p, struct order_errors *errs)
{
	size_t k, before = errs->n;
	int i, t, e;

	last_id.g = NULL;  /* the unit names of another game, or changed */
	cap_plan_clear(p);
	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];
		struct cap_entry *en;

		if (word_is(l->words[0], "initiative")) {
			if (l->nwords != 2 || orders_parse_int(l->words[1], 0, 2,
			    &p->initiative) != HP_OK)
				orders_error(errs, l->lineno, "expected "
				    "'initiative N' with N 0 to 2 (CAPs added "
				    "to the roll)");
			continue;
		}
		if (word_is(l->words[0], "stop")) {
			(void)parse_stop(g, side, l, p, errs);
			continue;
		}
		if (word_is(l->words[0], "dry")) {
			if (l->nwords != 2 || !word_is(l->words[1], "pass"))
				orders_error(errs, l->lineno, "expected 'dry "
				    "pass'");
			else
				p->dry_pass = true;
			continue;
		}
		if (p->n == CAP_MAX_ENTRIES) {
			orders_error(errs, l->lineno, "too many actions (at most "
			    "%d)", CAP_MAX_ENTRIES);
			continue;
		}
		if (per_action && p->n == 1) {
			orders_error(errs, l->lineno, "one action a mail in this "
			    "campaign (option per-action)");
			continue;
		}
		en = &p->e[p->n];
		memset(en, 0, sizeof *en);
		en->line = l->lineno;
		if (!word_is(l->words[0], "if")) {
			if (parse_action(g, side, l, 0, l->nwords, &en->then,
			    errs))
				p->n++;
			continue;
		}
		for (t = -1, e = -1, i = 1; i < l->nwords; i++) {
			const char *w = l->words[i];

			if (w[0] == 't' && word_is(w, "then") && t < 0)
				t = i;
			else if (w[0] == 'e' && word_is(w, "else") &&
			    t >= 0 && e < 0)
				e = i;
		}
		if (t < 0) {
			orders_error(errs, l->lineno, "expected 'if CONDITION "
			    "then ACTION [else ACTION]'");
			continue;
		}
		if (!parse_cond(g, side, l, 1, t, en, errs))
			continue;
		if (!parse_action(g, side, l, t + 1, e < 0 ? l->nwords : e,
		    &en->then, errs))
			continue;
		if (e >= 0) {
			en->has_else = true;
			if (!parse_action(g, side, l, e + 1, l->nwords,
			    &en->els, errs))
				continue;
		}
		p->n++;
	}
	if (!per_action && p->n == 0 && errs->n == before && b->n == 0)
		return HP_OK;
	return errs->n > before ? HP_EINVAL : HP_OK;
}

/* Append " " and word w to out. */
static void
put_word(struct sbuf *out, const char *w)
{
	sbuf_add(out, " ", 1);
	sbuf_puts(out, w);
}

/* Append " " and the label of h to out. */
static void
put_hex(const struct game *g, struct sbuf *out, struct hex h)
{
	char lbl[8];

	put_word(out, hex_label(&g->layout, h, lbl, sizeof lbl));
}

/* Append " " and v to out. */
static void
put_num(struct sbuf *out, int v)
{
	sbuf_add(out, " ", 1);
	cap_put_int(out, v);
}

/* Append action a in canonical words to out (no newline). */
void
cap_action_text(const struct game *g, const struct cap_action *a,
    struct sbuf *out)
{
	int i;

	if (out->discard)
		return;
	if (a->cmd)
		CAP_PUTS(out, "cmd ");
	sbuf_puts(out, act_names[a->kind]);
	switch (a->kind) {
	case ACT_CARD:
		put_num(out, a->card);
		if (a->tunit >= 0) {
			CAP_PUTS(out, " rally");
			put_word(out, g->units[a->tunit].id);
		} else {
			CAP_PUTS(out, " smoke");
			put_hex(g, out, a->target);
		}
		return;
	case ACT_PASS:
		return;
	default:
		break;
	}
	put_word(out, g->units[a->unit].id);
	switch (a->kind) {
	case ACT_PIVOT:
		put_word(out, cap_dir_name(a->facing));
		break;
	case ACT_MOVE:
		if (a->toward)
			CAP_PUTS(out, " toward");
		for (i = 0; i < a->npath; i++)
			put_hex(g, out, a->path[i]);
		if (a->facing >= 0) {
			CAP_PUTS(out, " face");
			put_word(out, cap_dir_name(a->facing));
		}
		break;
	case ACT_FIRE:
	case ACT_CLOSE:
		if (a->kind == ACT_CLOSE)
			put_word(out, g->units[a->tunit].id);
		else if (a->best)
			CAP_PUTS(out, " best");
		else
			put_hex(g, out, a->target);
		if (a->caps > 0) {
			CAP_PUTS(out, " caps");
			put_num(out, a->caps);
		}
		break;
	default:
		break;
	}
}

/* The canonical text of plan p: initiative, stops, dry policy, entries. */
void
cap_plan_canon(const struct game *g, const struct cap_plan *p,
    struct sbuf *out)
{
	static const char *const stop_names[] = { "hit", "lost", "seen",
		"inrange", "dry", "answer" };
	int i;

	if (out->discard)
		return;
	if (p->initiative > 0) {
		CAP_PUTS(out, "initiative");
		put_num(out, p->initiative);
		CAP_PUTS(out, "\n");
	}
	for (i = 0; i < p->nstops; i++) {
		const struct cap_stop *s = &p->stops[i];

		CAP_PUTS(out, "stop ");
		sbuf_puts(out, stop_names[s->kind]);
		if (s->kind == STOP_ANSWER)
			put_word(out, s->act == ACT_NONE ? "any" :
			    act_names[s->act]);
		else if (s->unit >= 0)
			put_word(out, g->units[s->unit].id);
		CAP_PUTS(out, "\n");
	}
	if (p->dry_pass)
		CAP_PUTS(out, "dry pass\n");
	for (i = 0; i < p->n; i++) {
		const struct cap_entry *e = &p->e[i];

		if (e->cond != COND_NONE) {
			sbuf_puts(out, e->neg ? "if not " : "if ");
			switch (e->cond) {
			case COND_OCCUPIED:
			case COND_ENEMY:
				sbuf_puts(out, e->cond == COND_OCCUPIED ?
				    "occupied" : "enemy");
				put_hex(g, out, e->chex);
				break;
			case COND_INRANGE:
			case COND_INLOS:
				sbuf_puts(out, e->cond == COND_INRANGE ?
				    "inrange" : "inlos");
				put_word(out, g->units[e->cunit].id);
				break;
			case COND_CAPS:
				CAP_PUTS(out, "caps");
				put_num(out, e->cn);
				break;
			default:
				CAP_PUTS(out, "passed");
				break;
			}
			CAP_PUTS(out, " then ");
		}
		cap_action_text(g, &e->then, out);
		if (e->has_else) {
			CAP_PUTS(out, " else ");
			cap_action_text(g, &e->els, out);
		}
		CAP_PUTS(out, "\n");
	}
}

/* Parse canonical plan text of side (rstate, a stored plan) into p. */
int
cap_plan_from_text(const struct game *g, int side, const char *text,
    struct cap_plan *p)
{
	struct order_body b = { NULL, 0 };
	struct order_errors errs;
	const char *q, *e;
	size_t cap = 0;
	int rc, lineno = 0;

	for (q = text; q != NULL && *q != '\0'; q = e ? e + 1 : NULL) {
		struct order_line *l;
		char buf[512];
		size_t n, i;
		int k;

		e = strchr(q, '\n');
		n = e ? (size_t)(e - q) : strlen(q);
		lineno++;
		if (n >= sizeof buf)
			n = sizeof buf - 1;
		memcpy(buf, q, n);
		buf[n] = '\0';
		if (b.n == cap) {
			cap = cap ? cap * 2 : 16;
			b.v = xrealloc(b.v, cap * sizeof *b.v);
		}
		l = &b.v[b.n];
		l->lineno = lineno;
		l->nwords = 0;
		for (k = 0; k < ORDERS_MAX_WORDS; k++)
			l->words[k][0] = '\0';
		strlcpy_(l->text, buf, sizeof l->text);
		/* The words between blanks and tabs (as strtok_r finds them),
		 * each cut to ORDERS_WORD_MAX - 1 bytes and lower-cased. */
		for (i = 0; i < n && l->nwords < ORDERS_MAX_WORDS; ) {
			char *c = l->words[l->nwords];
			size_t len = 0;

			while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
				i++;
			if (i == n)
				break;
			for (; i < n && buf[i] != ' ' && buf[i] != '\t'; i++)
				if (len + 1 < ORDERS_WORD_MAX)
					c[len++] = (char)tolower((unsigned char)
					    buf[i]);
			c[len] = '\0';
			l->nwords++;
		}
		if (l->nwords > 0)
			b.n++;
	}
	orders_errors_init(&errs);
	rc = cap_plan_parse(g, side, &b, false, p, &errs);
	orders_errors_free(&errs);
	free(b.v);
	return rc;
}

/* The plans cap_plan_cached keeps (per thread) and the most units and
 * hexes a kept plan's game may have. */
#define MEMO_PLANS 4
#define MEMO_UNITS 64
#define MEMO_HEXES 1024

/* One unit as a plan's parse sees it. */
struct memo_unit {
	char id[GAME_ID_MAX];
	int side;
	bool smoke;
};

/* A plan's text of a side, what it parsed to, and what of the game the
 * parse read: the units (id, side, smoke or not), the layout and where
 * the hexes are. */
struct plan_memo {
	bool valid;
	int side, rc;
	char *text;
	struct cap_plan plan;
	struct hex_layout layout;
	int nunits, nhex;
	struct memo_unit units[MEMO_UNITS];
	struct hex hexes[MEMO_HEXES];
};

static _Thread_local struct plan_memo *plan_memo;  /* MEMO_PLANS of them */
static _Thread_local int plan_memo_next;

/* Does g look to a plan's parse as it did when m was kept? */
static bool
memo_game_same(const struct plan_memo *m, const struct game *g)
{
	int i;

	if (m->nunits != g->nunits || m->nhex != g->nhex ||
	    memcmp(&m->layout, &g->layout, sizeof m->layout) != 0)
		return false;
	for (i = 0; i < g->nunits; i++)
		if (m->units[i].side != g->units[i].side ||
		    strcmp(m->units[i].id, g->units[i].id) != 0 ||
		    m->units[i].smoke != (strcmp(g->units[i].kind,
		    CAP_SMOKE) == 0))
			return false;
	for (i = 0; i < g->nhex; i++)
		if (!hex_eq(m->hexes[i], g->hexes[i].h))
			return false;
	return true;
}

/* Copy plan m into p: of a plan that parsed, only what is used (the
 * entries past the last are never read, issue 17). */
static void
plan_copy(struct cap_plan *p, const struct cap_plan *m, int rc)
{
	if (rc != HP_OK)
		*p = *m;
	else
		cap_plan_copy(p, m);
}

/* Copy plan m into p: its header, stops and its m->n entries only (the
 * entries of a plan past its last are never read: cap_plan_clear). */
void
cap_plan_copy(struct cap_plan *p, const struct cap_plan *m)
{
	if (m->n < 0 || m->n > CAP_MAX_ENTRIES) {
		*p = *m;
		return;
	}
	p->initiative = m->initiative;
	memcpy(p->e, m->e, (size_t)m->n * sizeof m->e[0]);
	p->n = m->n;
	memcpy(p->stops, m->stops, sizeof p->stops);
	p->nstops = m->nstops;
	p->dry_pass = m->dry_pass;
}

/* Empty plan p: every byte zero but those of its entries, which are
 * never read past p->n (each is cleared as it is added; issue 17: the
 * entries are most of a plan's 10 KB). */
void
cap_plan_clear(struct cap_plan *p)
{
	p->initiative = 0;
	memset(&p->n, 0, sizeof *p - offsetof(struct cap_plan, n));
}

/* cap_plan_from_text, the same plan for the same text, side and game:
 * kept per thread, as a game's state holds the same plan text through
 * many loads (issue 17). */
int
cap_plan_cached(const struct game *g, int side, const char *text,
    struct cap_plan *p)
{
	struct plan_memo *m;
	int i;

	if (g->nunits > MEMO_UNITS || g->nhex > MEMO_HEXES)
		return cap_plan_from_text(g, side, text, p);
	if (plan_memo == NULL)
		plan_memo = xcalloc(MEMO_PLANS, sizeof *plan_memo);
	for (i = 0; i < MEMO_PLANS; i++) {
		m = &plan_memo[i];
		if (m->valid && m->side == side && strcmp(m->text, text) == 0 &&
		    memo_game_same(m, g)) {
			plan_copy(p, &m->plan, m->rc);
			return m->rc;
		}
	}
	m = &plan_memo[plan_memo_next];
	plan_memo_next = (plan_memo_next + 1) % MEMO_PLANS;
	m->valid = false;
	m->rc = cap_plan_from_text(g, side, text, &m->plan);
	free(m->text);
	m->text = xstrdup(text);
	m->side = side;
	m->layout = g->layout;
	m->nunits = g->nunits;
	m->nhex = g->nhex;
	for (i = 0; i < g->nunits; i++) {
		strlcpy_(m->units[i].id, g->units[i].id, sizeof m->units[i].id);
		m->units[i].side = g->units[i].side;
		m->units[i].smoke = strcmp(g->units[i].kind, CAP_SMOKE) == 0;
	}
	for (i = 0; i < g->nhex; i++)
		m->hexes[i] = g->hexes[i].h;
	m->valid = true;
	plan_copy(p, &m->plan, m->rc);
	return m->rc;
}
