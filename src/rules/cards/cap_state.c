/* cap_state: the ruleset-owned state of cards-ap (counters, terrain chart,
 * deck, discards, hands, token pool, artillery, reinforcements, the rest
 * of each side's plan) as canonical text in g->rstate, and the geometry
 * (facing, arc, line of sight).
 *
 * Speed (issue 17): the state is read and written several times a window
 * (the resolution, and each side's view for the opponent), so
 * - the leading chart lines (counter, terrain, card), which a game never
 *   changes, are kept per thread with what they parse to (load) and with
 *   the text they are written as (save): a load whose text starts with the
 *   same block copies the charts, a save of the same charts copies the
 *   text;
 * - a line is tried with sscanf only when it starts with that format's
 *   keyword (sscanf matches nothing else), numbers are written by hand;
 * - a plan's text and the plan it parses to are kept per thread, with
 *   what of the game the parse reads (cap_plan_cached in cap_plan.c);
 * - the lines of sight through terrain between each pair of hexes are
 *   kept per thread for one map (cap_los_begin/_end around a resolution,
 *   the map and the terrain chart compared whole at each begin) and used
 *   while no smoke is on the map (smoke is all else that blocks);
 * - the opponent reads only its hand and the cards of its view's state
 *   (cap_state_load_hand), a redacted view only its own side's plan.
 *   Second round: the opponent reads the game in place, without a view
 *   (cap_ai.c says why that is the same), and a plan's entries past its
 *   last, never read, are neither zeroed nor copied (cap_plan_clear,
 *   cap_plan_copy; state_new below).
 * What is read and written is the same text, byte for byte, and every
 * kept answer is the one the full work gives (the seeded games of
 * `hexpost simulate` and tests/golden/cards-seed-golden.txt are
 * unchanged). */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"

static const char *const card_act_names[] = { "none", "rally", "smoke" };

/* Read "N N N" or "-" into v (at most max); the count. */
static int
read_ints(const char *p, int *v, int max)
{
	int n = 0, k, d;
	char *e;

	while (*p != '\0' && n < max) {
		while (*p == ' ')
			p++;
		if (*p == '\0' || *p == '-')
			break;
		/* Up to 9 digits by hand (what strtol gives for them), else
		 * strtol. */
		for (k = 0, d = 0; d < 9 && p[d] >= '0' && p[d] <= '9'; d++)
			k = k * 10 + (p[d] - '0');
		if (d > 0 && !(p[d] >= '0' && p[d] <= '9'))
			e = (char *)(uintptr_t)(p + d);
		else
			k = (int)strtol(p, &e, 10);
		if (e == p)
			break;
		v[n++] = k;
		p = e;
	}
	return n;
}

/* sscanf(line, "KW %63s", a) == 1 for a line that starts with the
 * keyword KW of n bytes: the next word (at most 63 bytes) into a. */
static bool
word_after(const char *line, size_t n, char a[64])
{
	const char *p = line + n;
	size_t k = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (*p != '\0' && !isspace((unsigned char)*p) && k < 63)
		a[k++] = *p++;
	a[k] = '\0';
	return k > 0;
}

/* A line as written by cap_state_save, "KW WORD N N ...": the keyword
 * of n bytes, one space, a word of 1 to 63 bytes, then nv times one space
 * and an integer of 1 to 9 digits (a minus sign before it or not), and
 * the end. Then the word in a, the numbers in v and true (what
 * sscanf(line, "KW %63s %d ...") gives for such a line); false for any
 * other line (sscanf reads that). */
static bool
word_ints(const char *line, size_t n, char a[64], int *v, int nv)
{
	const char *p = line + n;
	size_t k = 0;
	int i, d, x;
	bool neg;

	if (*p++ != ' ')
		return false;
	while (*p != '\0' && *p != ' ' && !isspace((unsigned char)*p) &&
	    k < 63)
		a[k++] = *p++;
	a[k] = '\0';
	if (k == 0 || (*p != ' ' && *p != '\0'))
		return false;
	for (i = 0; i < nv; i++) {
		if (*p++ != ' ')
			return false;
		neg = *p == '-';
		if (neg)
			p++;
		for (x = 0, d = 0; d < 9 && p[d] >= '0' && p[d] <= '9'; d++)
			x = x * 10 + (p[d] - '0');
		if (d == 0 || (p[d] >= '0' && p[d] <= '9'))
			return false;
		p += d;
		v[i] = neg ? -x : x;
	}
	return *p == '\0';
}

/* Does the line at p start with keyword kw (so that a format beginning
 * with it may match)? */
static bool
starts(const char *p, const char *kw, size_t n)
{
	return strncmp(p, kw, n) == 0;
}

/* Is the line at p a chart line (counter, terrain, card)? */
static bool
chart_line(const char *p)
{
	return starts(p, "counter", 7) || starts(p, "terrain", 7) ||
	    starts(p, "card", 4);
}

/* The length of the leading block of chart lines of text t. */
static size_t
chart_block(const char *t)
{
	const char *p = t, *e;

	while (p != NULL && *p != '\0' && chart_line(p)) {
		e = strchr(p, '\n');
		p = e ? e + 1 : p + strlen(p);
	}
	return p != NULL ? (size_t)(p - t) : 0;
}

/* The charts of a state (what chart lines set). */
struct charts {
	struct cap_counter ctr[CAP_MAX_KINDS];
	int nctr;
	struct cap_terrain ter[CAP_MAX_TERRAIN];
	int nter;
	struct cap_card card[CAP_MAX_CARDS];
	int ncard;
};

/* A block of chart lines and its charts (owned text, per thread). */
struct chart_memo {
	char *text;
	size_t len;
	bool valid;
	struct charts c;
};

/* The block last read by cap_state_load, the one last written by
 * cap_state_save. */
static _Thread_local struct chart_memo memo_in, memo_out;

/* Does text t start with the block of chart lines memo_in holds (the
 * same lines, and no other chart line after them)? */
static bool
memo_block(const char *t)
{
	const struct chart_memo *m = &memo_in;

	if (!m->valid || m->len == 0 || strncmp(t, m->text, m->len) != 0)
		return false;
	if (m->text[m->len - 1] != '\n')
		return t[m->len] == '\0';
	return t[m->len] == '\0' || !chart_line(t + m->len);
}

/* Keep text[0..len) and c in m. */
static void
memo_keep(struct chart_memo *m, const char *text, size_t len,
    const struct charts *c)
{
	free(m->text);
	m->text = xmalloc(len + 1);
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	m->len = len;
	m->c = *c;
	m->valid = true;
}

/* Copy st's charts into c. */
static void
charts_of(const struct cap_state *st, struct charts *c)
{
	memset(c, 0, sizeof *c);
	memcpy(c->ctr, st->ctr, sizeof c->ctr);
	c->nctr = st->nctr;
	memcpy(c->ter, st->ter, sizeof c->ter);
	c->nter = st->nter;
	memcpy(c->card, st->card, sizeof c->card);
	c->ncard = st->ncard;
}

/* Set st's charts from c. */
static void
charts_set(struct cap_state *st, const struct charts *c)
{
	memcpy(st->ctr, c->ctr, sizeof c->ctr);
	st->nctr = c->nctr;
	memcpy(st->ter, c->ter, sizeof c->ter);
	st->nter = c->nter;
	memcpy(st->card, c->card, sizeof c->card);
	st->ncard = c->ncard;
}

/* The side index of name, or -1. */
static int
side_of(const struct game *g, const char *name)
{
	return game_side_index(g, name);
}

/* A new empty state (caller frees with cap_state_free): every byte zero
 * but those of the plans' entries, never read past a plan's n
 * (cap_plan_clear), and of the logs past their first (strings). Issue
 * 17: a calloc of the whole state zeroed 27 KB a load. */
static struct cap_state *
state_new(void)
{
	struct cap_state *st = xmalloc(sizeof *st);
	int s;

	memset(st, 0, offsetof(struct cap_state, plan));
	for (s = 0; s < CAP_SIDES; s++) {
		cap_plan_clear(&st->plan[s]);
		st->log[s][0] = '\0';
	}
	return st;
}

/* cap_state_load, with the plans of the sides in mask only (bit per side;
 * of the others, have_plan false and an empty plan). */
struct cap_state *
cap_state_load_plans(const struct game *g, unsigned mask)
{
	struct cap_state *st = state_new();
	struct sbuf plan;
	const char *p, *e;
	char line[2200], a[64], b[64], c[64], d[64];
	int planside = -1, s, i1, i2, i3, i4, i5, i6, i7;
	size_t blen = 0;
	bool keep = false;
	int v[4];

	sbuf_init(&plan);
	p = g->rstate;
	/* The chart lines at the start: as last read, or read and kept. */
	if (p != NULL && memo_block(p)) {
		charts_set(st, &memo_in.c);
		p += memo_in.len;
	} else {
		blen = p != NULL ? chart_block(p) : 0;
		keep = blen > 0;
	}
	for (; p != NULL && *p != '\0'; p = e ? e + 1 : NULL) {
		size_t n;

		if (keep && p >= g->rstate + blen) {
			struct charts ch;

			charts_of(st, &ch);
			memo_keep(&memo_in, g->rstate, blen, &ch);
			keep = false;
		}

		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n >= sizeof line)
			n = sizeof line - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (planside >= 0) {
			if (strcmp(line, "end") == 0) {
				if ((mask & (1u << planside)) &&
				    cap_plan_cached(g, planside, plan.buf ?
				    plan.buf : "", &st->plan[planside]) == HP_OK)
					st->have_plan[planside] = true;
				sbuf_free(&plan);
				sbuf_init(&plan);
				planside = -1;
			} else if ((mask & (1u << planside)) &&
			    strncmp(line, "> ", 2) == 0) {
				sbuf_puts(&plan, line + 2);
				sbuf_puts(&plan, "\n");
			}
			continue;
		}
		if (starts(line, "counter", 7) && sscanf(line, "counter %63s %63s %d %d %d %d %d %63s %d %d "
		    "%63s", a, b, &i1, &i2, &i3, &i4, &i5, c, &i6, &i7, d) == 11 &&
		    st->nctr < CAP_MAX_KINDS) {
			struct cap_counter *k = &st->ctr[st->nctr++];

			strlcpy_(k->kind, a, sizeof k->kind);
			k->vehicle = strcmp(b, "vehicle") == 0;
			k->move = i1;
			k->bonus = i2;
			k->range = i3;
			k->fp[0] = i4;
			k->fp[1] = i5;
			k->white = strcmp(c, "white") == 0;
			k->dr[0] = i6;
			k->dr[1] = i7;
			k->drcol = strcmp(d, "blue") == 0;
		} else if (starts(line, "terrain", 7) && sscanf(line,
		    "terrain %63s %d %d %d %d", a, &i1, &i2,
		    &i3, &i4) == 5 && st->nter < CAP_MAX_TERRAIN) {
			struct cap_terrain *t = &st->ter[st->nter++];

			strlcpy_(t->name, a, sizeof t->name);
			t->move = i1;
			t->dv = i2;
			t->cover = i3 != 0;
			t->block = i4 != 0;
		} else if (starts(line, "card", 4) && sscanf(line,
		    "card %d %d %63s", &i1, &i2, a) == 3 &&
		    st->ncard < CAP_MAX_CARDS) {
			struct cap_card *k = &st->card[st->ncard++];

			k->num = i1;
			k->ignore = i2 != 0;
			k->action = strcmp(a, "rally") == 0 ? CARD_RALLY :
			    strcmp(a, "smoke") == 0 ? CARD_SMOKE : CARD_NONE;
		} else if (strncmp(line, "deck ", 5) == 0)
			st->ndeck = read_ints(line + 5, st->deck, CAP_MAX_CARDS);
		else if (strncmp(line, "discard ", 8) == 0)
			st->ndisc = read_ints(line + 8, st->disc, CAP_MAX_CARDS);
		else if (strncmp(line, "pool ", 5) == 0)
			st->npool = read_ints(line + 5, st->pool, CAP_MAX_TOKENS);
		else if (starts(line, "hand", 4) && word_after(line, 4, a) &&
		    (s = side_of(g, a)) >= 0 && s < CAP_SIDES)
			st->nhand[s] = read_ints(line + 6 + strlen(a),
			    st->hand[s], CAP_MAX_CARDS);
		else if (starts(line, "arty", 4) && (word_ints(line, 4, a, v,
		    4) ? (i1 = v[0], i2 = v[1], i3 = v[2], i4 = v[3], 5) :
		    sscanf(line, "arty %63s %d %d %d %d", a, &i1, &i2, &i3,
		    &i4)) == 5 && st->narty < 16) {
			struct cap_arty *r = &st->arty[st->narty++];

			r->side = side_of(g, a);
			r->round = i1;
			r->at.q = i2;
			r->at.r = i3;
			r->fp = i4;
		} else if (starts(line, "reinf", 5) && (word_ints(line, 5, a, v,
		    3) ? (i1 = v[0], i2 = v[1], i3 = v[2], 4) : sscanf(line,
		    "reinf %63s %d %d %d", a, &i1, &i2, &i3)) == 4 &&
		    st->nreinf < 16) {
			struct cap_reinf *r = &st->reinf[st->nreinf++];

			strlcpy_(r->unit, a, sizeof r->unit);
			r->round = i1;
			r->at.q = i2;
			r->at.r = i3;
		} else if (starts(line, "plan", 4) && word_after(line, 4, a) &&
		    (s = side_of(g, a)) >= 0 && s < CAP_SIDES)
			planside = s;
		else if (starts(line, "log", 3) && word_after(line, 3, a) &&
		    (s = side_of(g, a)) >= 0 && s < CAP_SIDES) {
			strlcpy_(st->log[s], line + 5 + strlen(a),
			    sizeof st->log[s]);
		}
	}
	if (keep) {
		struct charts ch;

		charts_of(st, &ch);
		memo_keep(&memo_in, g->rstate, blen, &ch);
	}
	sbuf_free(&plan);
	return st;
}

/* Parse g->rstate into a new state (caller frees with cap_state_free). */
struct cap_state *
cap_state_load(const struct game *g)
{
	return cap_state_load_plans(g, ~0u);
}

/* The hand of side and the card chart, as cap_state_load(g) reads them
 * (for the opponent, which reads nothing else of the state). Without a
 * whole state: when the text starts with the chart lines last read, its
 * other lines are only looked at for plan blocks (skipped as the loader
 * skips them) and side's hand line; any other chart line, or another
 * start, is read by cap_state_load itself. */
void
cap_state_load_hand(const struct game *g, int side, struct cap_hand *h)
{
	const char *p = g->rstate, *e;
	char line[2200], a[64];
	int planside = -1, s;

	memset(h, 0, sizeof *h);
	if (p != NULL && memo_block(p)) {
		for (p += memo_in.len; *p != '\0'; p = e ? e + 1 : p + strlen(p)) {
			size_t n;

			e = strchr(p, '\n');
			n = e ? (size_t)(e - p) : strlen(p);
			if (planside >= 0) {
				if (n == 3 && memcmp(p, "end", 3) == 0)
					planside = -1;
				continue;
			}
			if (starts(p, "card", 4))
				goto whole;  /* a chart line: the loader's */
			if (!starts(p, "hand", 4) && !starts(p, "plan", 4))
				continue;
			if (n >= sizeof line)
				n = sizeof line - 1;
			memcpy(line, p, n);
			line[n] = '\0';
			if (!word_after(line, 4, a) || (s = side_of(g, a)) < 0 ||
			    s >= CAP_SIDES)
				continue;
			if (line[0] == 'p')
				planside = s;
			else if (s == side)
				h->nhand = read_ints(line + 6 + strlen(a), h->hand,
				    CAP_MAX_CARDS);
		}
		memcpy(h->card, memo_in.c.card, sizeof h->card);
		h->ncard = memo_in.c.ncard;
		return;
	}
whole:
	{
		struct cap_state *st = cap_state_load_plans(g, 0);

		memset(h, 0, sizeof *h);
		if (side >= 0 && side < CAP_SIDES) {
			memcpy(h->hand, st->hand[side], sizeof h->hand);
			h->nhand = st->nhand[side];
		}
		memcpy(h->card, st->card, sizeof h->card);
		h->ncard = st->ncard;
		cap_state_free(st);
	}
}

/* The decimal digits of v into out (at least 12 bytes), as "%d" writes
 * them, not NUL-terminated; their count (cap.h). */
size_t
cap_fmt_int(char *out, int v)
{
	char buf[12];
	long long x = v;
	int i = (int)sizeof buf;

	if (x < 0)
		x = -x;
	do {
		buf[--i] = (char)('0' + x % 10);
		x /= 10;
	} while (x > 0);
	if (v < 0)
		buf[--i] = '-';
	memcpy(out, buf + i, sizeof buf - (size_t)i);
	return sizeof buf - (size_t)i;
}

/* Append the decimal digits of v to b (as "%d" writes them). */
void
cap_put_int(struct sbuf *b, int v)
{
	char buf[12];

	sbuf_add(b, buf, cap_fmt_int(buf, v));
}

/* Append " N N N" (or " -") and a newline to b. */
static void
put_ints(struct sbuf *b, const int *v, int n)
{
	char tmp[512];
	size_t k = 0;
	int i;

	if (n == 0)
		CAP_PUTS(b, " -");
	for (i = 0; i < n; i++) {
		if (k + 13 > sizeof tmp) {
			sbuf_add(b, tmp, k);
			k = 0;
		}
		tmp[k++] = ' ';
		k += cap_fmt_int(tmp + k, v[i]);
	}
	tmp[k++] = '\n';
	sbuf_add(b, tmp, k);
}

/* Append the chart lines of st (counter, terrain, card) to b. */
static void
put_charts(struct sbuf *b, const struct cap_state *st)
{
	int i;

	for (i = 0; i < st->nctr; i++) {
		const struct cap_counter *k = &st->ctr[i];

		sbuf_printf(b, "counter %s %s %d %d %d %d %d %s %d %d %s\n",
		    k->kind, k->vehicle ? "vehicle" : "foot", k->move, k->bonus,
		    k->range, k->fp[0], k->fp[1], k->white ? "white" : "black",
		    k->dr[0], k->dr[1], k->drcol ? "blue" : "red");
	}
	for (i = 0; i < st->nter; i++)
		sbuf_printf(b, "terrain %s %d %d %d %d\n", st->ter[i].name,
		    st->ter[i].move, st->ter[i].dv, st->ter[i].cover,
		    st->ter[i].block);
	for (i = 0; i < st->ncard; i++)
		sbuf_printf(b, "card %d %d %s\n", st->card[i].num,
		    st->card[i].ignore, card_act_names[st->card[i].action]);
}

/* Are st's charts those of c (byte for byte)? */
static bool
charts_same(const struct charts *c, const struct cap_state *st)
{
	return c->nctr == st->nctr && c->nter == st->nter &&
	    c->ncard == st->ncard && memcmp(c->ctr, st->ctr,
	    (size_t)st->nctr * sizeof st->ctr[0]) == 0 && memcmp(c->ter,
	    st->ter, (size_t)st->nter * sizeof st->ter[0]) == 0 &&
	    memcmp(c->card, st->card, (size_t)st->ncard *
	    sizeof st->card[0]) == 0;
}

/* Write st into g->rstate. */
void
cap_state_save(struct game *g, const struct cap_state *st)
{
	struct sbuf b;
	int i, s;

	sbuf_init(&b);
	/* The charts: the text last written for the same charts, or
	 * written and kept. */
	if (memo_out.valid && charts_same(&memo_out.c, st))
		sbuf_add(&b, memo_out.text, memo_out.len);
	else {
		struct charts ch;

		put_charts(&b, st);
		charts_of(st, &ch);
		memo_keep(&memo_out, b.buf != NULL ? b.buf : "", b.len, &ch);
	}
	CAP_PUTS(&b, "deck");
	put_ints(&b, st->deck, st->ndeck);
	CAP_PUTS(&b, "discard");
	put_ints(&b, st->disc, st->ndisc);
	for (s = 0; s < g->nsides && s < CAP_SIDES; s++) {
		CAP_PUTS(&b, "hand ");
		sbuf_puts(&b, g->sides[s].name);
		put_ints(&b, st->hand[s], st->nhand[s]);
	}
	CAP_PUTS(&b, "pool");
	put_ints(&b, st->pool, st->npool);
	for (i = 0; i < st->narty; i++) {
		CAP_PUTS(&b, "arty ");
		sbuf_puts(&b, st->arty[i].side >= 0 ?
		    g->sides[st->arty[i].side].name : "-");
		sbuf_add(&b, " ", 1);
		cap_put_int(&b, st->arty[i].round);
		sbuf_add(&b, " ", 1);
		cap_put_int(&b, st->arty[i].at.q);
		sbuf_add(&b, " ", 1);
		cap_put_int(&b, st->arty[i].at.r);
		sbuf_add(&b, " ", 1);
		cap_put_int(&b, st->arty[i].fp);
		sbuf_add(&b, "\n", 1);
	}
	for (i = 0; i < st->nreinf; i++) {
		CAP_PUTS(&b, "reinf ");
		sbuf_puts(&b, st->reinf[i].unit);
		sbuf_add(&b, " ", 1);
		cap_put_int(&b, st->reinf[i].round);
		sbuf_add(&b, " ", 1);
		cap_put_int(&b, st->reinf[i].at.q);
		sbuf_add(&b, " ", 1);
		cap_put_int(&b, st->reinf[i].at.r);
		sbuf_add(&b, "\n", 1);
	}
	for (s = 0; s < g->nsides && s < CAP_SIDES; s++) {
		struct sbuf pl;
		const char *p, *e;

		if (!st->have_plan[s])
			continue;
		sbuf_init(&pl);
		cap_plan_canon(g, &st->plan[s], &pl);
		CAP_PUTS(&b, "plan ");
		sbuf_puts(&b, g->sides[s].name);
		sbuf_add(&b, "\n", 1);
		for (p = pl.buf; p != NULL && *p != '\0'; p = e ? e + 1 : NULL) {
			e = strchr(p, '\n');
			CAP_PUTS(&b, "> ");
			sbuf_add(&b, p, e ? (size_t)(e - p) : strlen(p));
			CAP_PUTS(&b, "\n");
		}
		CAP_PUTS(&b, "end\n");
		sbuf_free(&pl);
	}
	for (s = 0; s < g->nsides && s < CAP_SIDES; s++)
		if (st->log[s][0] != '\0') {
			CAP_PUTS(&b, "log ");
			sbuf_puts(&b, g->sides[s].name);
			sbuf_add(&b, " ", 1);
			sbuf_puts(&b, st->log[s]);
			sbuf_add(&b, "\n", 1);
		}
	game_set_rstate(g, b.buf);
	sbuf_free(&b);
}

/* Release a state from cap_state_load. */
void
cap_state_free(struct cap_state *st)
{
	free(st);
}

/* The counter of unit u (its kind), or NULL. */
const struct cap_counter *
cap_counter_of(const struct cap_state *st, const struct game_unit *u)
{
	int i;

	for (i = 0; i < st->nctr; i++)
		if (st->ctr[i].kind[0] == u->kind[0] &&
		    strcmp(st->ctr[i].kind, u->kind) == 0)
			return &st->ctr[i];
	return NULL;
}

/* The chart entry of the terrain at h (the first entry when unknown). */
const struct cap_terrain *
cap_terrain_at(const struct cap_state *st, const struct game *g,
    struct hex h)
{
	const struct game_hex *gh = game_hex_at_c(g, h);
	static const struct cap_terrain open = { "open", 0, 0, false, false };
	int i;

	for (i = 0; gh != NULL && i < st->nter; i++)
		if (st->ter[i].name[0] == gh->terrain[0] &&
		    strcmp(st->ter[i].name, gh->terrain) == 0)
			return &st->ter[i];
	return st->nter > 0 ? &st->ter[0] : &open;
}

/* Flat-topped hexes: axial direction k's compass name. */
static const char *const dir_names[6] = { "se", "ne", "n", "nw", "sw", "s" };

/* A facing's direction from its name, or -1. */
int
cap_dir_parse(const char *s)
{
	int i;

	for (i = 0; i < 6; i++)
		if (strcmp(s, dir_names[i]) == 0)
			return i;
	return -1;
}

/* The compass name of direction dir. */
const char *
cap_dir_name(int dir)
{
	return dir >= 0 && dir < 6 ? dir_names[dir] : "-";
}

/* Is to in the frontal arc of a unit at from facing facing: the wedge of
 * the three hexes in front extended outwards (a*d(f-1) + b*d(f+1), a, b
 * >= 0)? The own hex is not. */
bool
cap_in_arc(struct hex from, int facing, struct hex to)
{
	struct hex v = hex_sub(to, from);
	struct hex p = hex_directions[(facing + 5) % 6];
	struct hex s = hex_directions[(facing + 1) % 6];
	int det = p.q * s.r - p.r * s.q;
	int a, b;

	if (facing < 0 || (v.q == 0 && v.r == 0) || det == 0)
		return false;
	a = (v.q * s.r - v.r * s.q) * det;
	b = (p.q * v.r - p.r * v.q) * det;
	return a >= 0 && b >= 0;
}

/* Is a move in direction dir backwards for facing (one of the three
 * rear hexes)? */
bool
cap_backwards(int facing, int dir)
{
	int rel = ((dir - facing) % 6 + 6) % 6;

	return facing >= 0 && rel >= 2 && rel <= 4;
}

/* Is there a smoke marker in h? */
bool
cap_smoke_at(const struct game *g, struct hex h)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].placed && hex_eq(g->units[i].pos, h) &&
		    strcmp(g->units[i].kind, CAP_SMOKE) == 0)
			return true;
	return false;
}


/* Does hex h block sight (blocking terrain or smoke)? */
static bool
blocks(const struct cap_state *st, const struct game *g, struct hex h)
{
	return cap_terrain_at(st, g, h)->block || cap_smoke_at(g, h);
}

/* Does hex h block sight by its terrain alone? */
static bool
blocks_terrain(const struct cap_state *st, const struct game *g, struct hex h)
{
	return cap_terrain_at(st, g, h)->block;
}

/* cap_los with blocks (terrain or smoke) or, smoke false, blocks_terrain
 * (the same when no smoke is on the map). */
static bool
los_walk(const struct cap_state *st, const struct game *g, struct hex a,
    struct hex b, bool smoke)
{
	struct hex_line_step steps[HEX_LINE_MAX];
	int n = hex_line(a, b, steps, HEX_LINE_MAX), i;

	if (n < 0)
		return false;
	for (i = 1; i < n - 1; i++) {
		bool bl = smoke ? blocks(st, g, steps[i].h) :
		    blocks_terrain(st, g, steps[i].h);

		if (steps[i].tie)
			bl = bl && (smoke ? blocks(st, g, steps[i].alt) :
			    blocks_terrain(st, g, steps[i].alt));
		if (bl)
			return false;
	}
	return true;
}

/* The lines of sight through terrain alone between each pair of hexes of
 * one map, per thread (issue 17: a window looks along the same lines many
 * times). The map and the terrain chart are kept as a copy, compared whole
 * at each cap_los_begin; the lines are used from there to cap_los_end
 * only, for the state and game begun, when no smoke is on the map
 * (smoke is the only thing besides terrain that blocks, and terrain does
 * not change during a resolution or a plan). */
#define LOS_MAX_HEX 400
static _Thread_local struct {
	struct game_hex *hexes;        /* the map (owned copy) */
	int nhex;
	struct hex_layout layout;
	struct cap_terrain ter[CAP_MAX_TERRAIN];
	int nter;
	unsigned char *line;           /* nhex * nhex: 0 not known, 1 clear,
	                                * 2 blocked */
	const struct cap_state *st;    /* begun for (NULL: not begun) */
	const struct game *g;
	const struct game_hex *g_hexes;
} los;

/* Use the lines of sight kept for g's map and st's terrain chart (kept
 * anew when they are another map or chart) until cap_los_end. */
void
cap_los_begin(const struct cap_state *st, const struct game *g)
{
	los.st = NULL;
	if (g->nhex <= 0 || g->nhex > LOS_MAX_HEX)
		return;
	if (los.line == NULL || los.nhex != g->nhex || los.nter != st->nter ||
	    memcmp(&los.layout, &g->layout, sizeof los.layout) != 0 ||
	    memcmp(los.hexes, g->hexes, (size_t)g->nhex *
	    sizeof g->hexes[0]) != 0 || memcmp(los.ter, st->ter,
	    (size_t)st->nter * sizeof st->ter[0]) != 0) {
		free(los.hexes);
		free(los.line);
		los.hexes = xmalloc((size_t)g->nhex * sizeof g->hexes[0]);
		memcpy(los.hexes, g->hexes, (size_t)g->nhex *
		    sizeof g->hexes[0]);
		los.nhex = g->nhex;
		los.layout = g->layout;
		memcpy(los.ter, st->ter, sizeof los.ter);
		los.nter = st->nter;
		los.line = xcalloc((size_t)g->nhex * (size_t)g->nhex, 1);
	}
	los.st = st;
	los.g = g;
	los.g_hexes = g->hexes;
}

/* Stop using the kept lines of sight (cap_los_begin). */
void
cap_los_end(void)
{
	los.st = NULL;
	los.g = NULL;
	los.g_hexes = NULL;
}

/* Is a smoke marker anywhere on the map? */
static bool
any_smoke(const struct game *g)
{
	int i;

	for (i = 0; i < g->nunits; i++)
		if (g->units[i].placed && g->units[i].kind[0] == 's' &&
		    strcmp(g->units[i].kind, CAP_SMOKE) == 0)
			return true;
	return false;
}

/* Line of sight from a to b: no hex strictly between blocks ("You can see
 * into a blocking hex but not beyond it"); along an edge both hexes must
 * block. */
bool
cap_los(const struct cap_state *st, const struct game *g, struct hex a,
    struct hex b)
{
	const struct game_hex *ha, *hb;
	unsigned char *v;

	if (los.st != st || los.g != g || g->hexes != los.g_hexes ||
	    g->nhex != los.nhex || any_smoke(g) ||
	    (ha = game_hex_at_c(g, a)) == NULL ||
	    (hb = game_hex_at_c(g, b)) == NULL)
		return los_walk(st, g, a, b, true);
	v = &los.line[(size_t)(ha - g->hexes) * (size_t)g->nhex +
	    (size_t)(hb - g->hexes)];
	if (*v == 0)
		*v = los_walk(st, g, a, b, false) ? 1 : 2;
	return *v == 1;
}

/* "KEY.NAME" into k, cut at 31 bytes as snprintf would (no printf: it is
 * called for every var of every action). */
static void
svar_key(char k[32], const char *key, const char *name)
{
	size_t i = 0;

	while (*key != '\0' && i < 31)
		k[i++] = *key++;
	if (i < 31)
		k[i++] = '.';
	while (*name != '\0' && i < 31)
		k[i++] = *name++;
	k[i] = '\0';
}

/* The var "KEY.SIDE". */
int
cap_svar(const struct game *g, const char *key, int side, int dflt)
{
	char k[32];

	svar_key(k, key, g->sides[side].name);
	return game_var(g, k, dflt);
}

/* Set the var "KEY.SIDE". */
void
cap_set_svar(struct game *g, const char *key, int side, int val)
{
	char k[32];

	svar_key(k, key, g->sides[side].name);
	game_set_var(g, k, val);
}

/* May unit fire at unit target: both on the map, enemies, target in
 * sight, in the frontal arc and within twice the range? */
bool
cap_can_fire(const struct cap_state *st, const struct game *g, int unit,
    int target)
{
	const struct game_unit *u = &g->units[unit], *t = &g->units[target];
	const struct cap_counter *k = cap_counter_of(st, u);

	if (k == NULL || !u->placed || !t->placed || u->status == CAP_GONE ||
	    t->status == CAP_GONE || t->side == u->side || t->side < 0 ||
	    strcmp(t->kind, CAP_SMOKE) == 0)
		return false;
	if (hex_eq(u->pos, t->pos))
		return false;
	return hex_distance(u->pos, t->pos) <= 2 * k->range &&
	    cap_in_arc(u->pos, u->facing, t->pos) &&
	    cap_los(st, g, u->pos, t->pos);
}

/* The nearest enemy unit unit may fire at (ties: the lowest index), -1. */
int
cap_best_target(const struct cap_state *st, const struct game *g, int unit)
{
	int i, best = -1, bd = 1 << 30, d;

	for (i = 0; i < g->nunits; i++) {
		if (!cap_can_fire(st, g, unit, i))
			continue;
		d = hex_distance(g->units[unit].pos, g->units[i].pos);
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}
