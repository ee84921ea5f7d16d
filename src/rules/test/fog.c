/* test-fog: a test ruleset with hidden information (docs/ARCHITECTURE.md
 * §4, G5; docs/AUDIT.md, "Sealed dice"). Each side has a scout whose
 * position only its own side sees, draws one card a turn from its own deck
 * into a hand only it sees (a sealed draw without replacement), rolls a
 * sealed spotting die only it sees, and gives hidden orders (where its
 * scout goes, which card it plays; hidden standing orders `move HEX` move
 * the scout when a window's orders do not). One public die a turn (the weather)
 * checks that the public dice depend on no hidden order. Nothing hidden
 * has any public effect, so the byte-identity test can compare a side's
 * mail across two games that differ in one hidden thing of the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"
#include "view.h"

#define FOG_SIDES 2
#define FOG_CARDS 26
#define ALL EVENT_ALL_SIDES

static const struct hex_layout fog_layout = {
	HEX_FLAT, HEX_EVEN, 4, 3, 0
};

struct fog_orders {
	struct hex move;
	bool have_move;
	char play;                /* card letter, 0: none */
};

/* The deck or hand of side from rstate ("deck SIDE CARDS" / "hand SIDE
 * CARDS", "-" when empty) into buf (FOG_CARDS + 1 bytes); "" when absent. */
static void
fog_pile(const struct game *g, const char *what, int side, char *buf)
{
	char key[40];
	const char *p, *e;
	size_t n;

	buf[0] = '\0';
	snprintf(key, sizeof key, "%s %s ", what, g->sides[side].name);
	for (p = g->rstate; p != NULL && *p != '\0'; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (strncmp(p, key, strlen(key)) != 0)
			continue;
		p += strlen(key);
		n = e ? (size_t)(e - p) : strlen(p);
		if (n > FOG_CARDS)
			n = FOG_CARDS;
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (strcmp(buf, "-") == 0)
			buf[0] = '\0';
		return;
	}
}

/* Write the piles back (rstate is the decks and hands, in side order). */
static void
fog_store(struct game *g, char decks[][FOG_CARDS + 1],
    char hands[][FOG_CARDS + 1])
{
	struct sbuf b;
	int s;

	sbuf_init(&b);
	for (s = 0; s < g->nsides; s++)
		sbuf_printf(&b, "deck %s %s\nhand %s %s\n", g->sides[s].name,
		    decks[s][0] ? decks[s] : "-", g->sides[s].name,
		    hands[s][0] ? hands[s] : "-");
	game_set_rstate(g, b.buf);
	sbuf_free(&b);
}

static int
fog_setup(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	static const char *const dflt_start[FOG_SIDES] = { "A0", "D2" };
	static const char *const dflt_deck[FOG_SIDES] = { "abcdef", "uvwxyz" };
	char decks[FOG_SIDES][FOG_CARDS + 1], hands[FOG_SIDES][FOG_CARDS + 1];
	char key[32], id[8];
	const char *v;
	struct game_unit *u;
	struct hex h;
	int col, row, s;

	if (sc->nsides != FOG_SIDES || sc->cols != 4 || sc->rows != 3) {
		scenario_error(sc, sc->map_line, "test-fog needs a 4x3 map and "
		    "two sides");
		hp_seterr(err, HP_EINVAL, "scenario %s: not test-fog's board",
		    sc->name);
		return HP_EINVAL;
	}
	strlcpy_(g->scenario, sc->name, sizeof g->scenario);
	g->layout = fog_layout;
	for (row = 0; row < 3; row++)
		for (col = 0; col < 4; col++) {
			struct hex_offset o = { col, row };

			game_add_hex(g, hex_from_offset(&fog_layout, o), "open");
		}
	g->nsides = FOG_SIDES;
	for (s = 0; s < FOG_SIDES; s++) {
		strlcpy_(g->sides[s].name, sc->sides[s].name,
		    sizeof g->sides[s].name);
		strlcpy_(g->sides[s].label, sc->sides[s].label,
		    sizeof g->sides[s].label);
		snprintf(key, sizeof key, "%s-start", s == 0 ? "blue" : "red");
		v = game_option(g, key);
		if (!hex_parse_label(&fog_layout, v ? v : dflt_start[s], &h) ||
		    !game_on_map(g, h)) {
			hp_seterr(err, HP_EINVAL, "option %s: '%s' is no hex of "
			    "the map (A0-D2)", key, v ? v : "");
			return HP_EINVAL;
		}
		snprintf(id, sizeof id, "%cs", s == 0 ? 'b' : 'r');
		u = game_add_unit(g, id, "scout", s == 0 ? "Blue scout" :
		    "Red scout", s);
		u->placed = true;
		u->pos = h;
		snprintf(key, sizeof key, "%s-deck", s == 0 ? "blue" : "red");
		v = game_option(g, key);
		strlcpy_(decks[s], v ? v : dflt_deck[s], sizeof decks[s]);
		if (decks[s][0] == '\0' || strspn(decks[s],
		    "abcdefghijklmnopqrstuvwxyz") != strlen(decks[s])) {
			hp_seterr(err, HP_EINVAL, "option %s: cards are letters "
			    "a-z, at least one", key);
			return HP_EINVAL;
		}
		hands[s][0] = '\0';
	}
	fog_store(g, decks, hands);
	v = game_option(g, "turns");
	game_set_var(g, "turns", v ? atoi(v) : 2);
	if (game_var(g, "turns", 2) < 1 || game_var(g, "turns", 2) > 20) {
		hp_seterr(err, HP_EINVAL, "option turns: 1-20");
		return HP_EINVAL;
	}
	g->turn = 1;
	g->window = 1;
	return HP_OK;
}

static bool
fog_next_window(const struct game *g, struct window_spec *w)
{
	if (g->status == GAME_FINISHED)
		return false;
	memset(w, 0, sizeof *w);
	w->turn = g->turn;
	w->number = 1;
	w->kind = WINDOW_ORDERS;
	strlcpy_(w->name, "orders", sizeof w->name);
	w->sides = (1u << FOG_SIDES) - 1;
	return true;
}

static int
fog_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	struct fog_orders *o = xcalloc(1, sizeof *o);
	char hand[FOG_CARDS + 1], lbl[8];
	size_t k, before = errs->n;
	bool standing = strcmp(w->name, "standing") == 0;

	fog_pile(g, "hand", side, hand);
	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];

		if (strcmp(l->words[0], "move") == 0 && l->nwords == 2) {
			if (!hex_parse_label(&g->layout, l->words[1], &o->move)
			    || !game_on_map(g, o->move))
				orders_error(errs, l->lineno, "expected a hex of "
				    "the map (A0-D2), got '%s'", l->words[1]);
			else if (o->have_move)
				orders_error(errs, l->lineno, "a second 'move'");
			o->have_move = true;
		} else if (strcmp(l->words[0], "play") == 0 && l->nwords == 2 &&
		    standing) {
			orders_error(errs, l->lineno, "standing orders take "
			    "only 'move HEX' (a card is played from the window's "
			    "orders)");
		} else if (strcmp(l->words[0], "play") == 0 && l->nwords == 2) {
			if (strlen(l->words[1]) != 1 ||
			    strchr(hand, l->words[1][0]) == NULL)
				orders_error(errs, l->lineno, "'%s' is not a card "
				    "in your hand (%s)", l->words[1], hand[0] ?
				    hand : "empty");
			else if (o->play != 0)
				orders_error(errs, l->lineno, "a second 'play'");
			o->play = l->words[1][0];
		} else
			orders_error(errs, l->lineno, "expected 'move HEX' or "
			    "'play CARD'");
	}
	if (errs->n > before) {
		free(o);
		*out = NULL;
		return HP_EINVAL;
	}
	if (o->have_move)
		sbuf_printf(canon, "move %s\n", hex_label(&g->layout, o->move,
		    lbl, sizeof lbl));
	if (o->play != 0)
		sbuf_printf(canon, "play %c\n", o->play);
	*out = o;
	return HP_OK;
}

static void
fog_free_orders(void *p)
{
	free(p);
}

/* The seq of the last sealed roll (0: none, a pile of one needs none). */
static int
last_sealed(const struct dice *d, unsigned set, int before)
{
	if (d->nslog == 0 || (int)d->nslog == before ||
	    d->slog[d->nslog - 1].visible != set)
		return 0;
	return d->slog[d->nslog - 1].seq;
}

static enum resolve_rc
fog_resolve(struct resolve_ctx *c)
{
	char decks[FOG_SIDES][FOG_CARDS + 1], hands[FOG_SIDES][FOG_CARDS + 1];
	char lbl[8], p[64];
	struct game *g = c->g;
	int s, w, pos, n, before, seq;
	size_t len;

	events_phase(c->ev, "Weather");
	w = dice_roll(c->dice, 6, 0, "weather");
	events_add(c->ev, ALL, (int)c->dice->nlog, "The weather die shows %d.",
	    w);
	events_phase(c->ev, "Scouts");
	for (s = 0; s < FOG_SIDES; s++) {
		const struct fog_orders *o = c->orders[s];
		const struct fog_orders *so = c->standing[s];

		fog_pile(g, "deck", s, decks[s]);
		fog_pile(g, "hand", s, hands[s]);
		if (o != NULL && o->have_move) {
			g->units[s].pos = o->move;
			events_add(c->ev, 1u << s, 0, "Your scout moves to %s.",
			    hex_label(&g->layout, o->move, lbl, sizeof lbl));
		} else if (so != NULL && so->have_move) {
			/* Hidden standing orders: where the scout goes when
			 * the window's orders do not say. */
			g->units[s].pos = so->move;
			events_add(c->ev, 1u << s, 0, "Your scout moves to %s "
			    "by your standing orders.", hex_label(&g->layout,
			    so->move, lbl, sizeof lbl));
		}
	}
	events_phase(c->ev, "Cards");
	for (s = 0; s < FOG_SIDES; s++) {
		const struct fog_orders *o = c->orders[s];

		if (o != NULL && o->play != 0 &&
		    strchr(hands[s], o->play) != NULL) {
			len = strlen(hands[s]);
			pos = (int)(strchr(hands[s], o->play) - hands[s]);
			memmove(hands[s] + pos, hands[s] + pos + 1,
			    len - (size_t)pos);
			events_add(c->ev, 1u << s, 0, "You play card %c.",
			    o->play);
		}
		n = (int)strlen(decks[s]);
		if (n == 0)
			continue;
		snprintf(p, sizeof p, "card for %s", g->sides[s].name);
		before = (int)c->dice->nslog;
		pos = dice_draw_sealed(c->dice, 1u << s, n, p);
		seq = last_sealed(c->dice, 1u << s, before);
		len = strlen(hands[s]);
		hands[s][len] = decks[s][pos];
		hands[s][len + 1] = '\0';
		memmove(decks[s] + pos, decks[s] + pos + 1,
		    (size_t)(n - pos));
		if (seq > 0)
			events_add_rolls(c->ev, 1u << s, 1u << s, seq, 1,
			    "You draw card %c.", hands[s][len]);
		else
			events_add(c->ev, 1u << s, 0, "You draw card %c.",
			    hands[s][len]);
	}
	events_phase(c->ev, "Spotting");
	for (s = 0; s < FOG_SIDES; s++) {
		snprintf(p, sizeof p, "spotting for %s", g->sides[s].name);
		w = dice_roll_sealed(c->dice, 1u << s, 6, 6, p);
		events_add_rolls(c->ev, 1u << s, 1u << s,
		    c->dice->slog[c->dice->nslog - 1].seq, 1,
		    "Your spotting die shows %d: %s.", w, w >= 6 ?
		    "something moves in the haze" : "nothing seen");
	}
	w = dice_roll_sealed(c->dice, (1u << FOG_SIDES) - 1, 6, 0, "dawn");
	seq = c->dice->slog[c->dice->nslog - 1].seq;
	w += dice_roll_sealed(c->dice, (1u << FOG_SIDES) - 1, 6, 0, "dawn");
	events_add_rolls(c->ev, ALL, (1u << FOG_SIDES) - 1, seq, 2,
	    "Dawn comes at %d (two sealed dice both sides see).", w);
	fog_store(g, decks, hands);
	return RESOLVE_DONE;
}

static void
fog_victory(struct game *g, struct events *ev)
{
	if (g->turn >= game_var(g, "turns", 2)) {
		g->status = GAME_FINISHED;
		strlcpy_(g->result, "the test ended", sizeof g->result);
		events_add(ev, ALL, 0, "The test ends.");
		return;
	}
	g->turn++;
}

static void
fog_opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	char lbl[8];

	(void)w;
	sbuf_printf(b, "move %s\n", hex_label(&g->layout, g->units[side].pos,
	    lbl, sizeof lbl));
}

/* A side sees its own units only (the moderator all). */
static bool
fog_visible(const struct game *g, int side, int unit)
{
	return g->units[unit].side == side;
}

/* side's copy keeps its own hand and nothing else of the piles. */
static void
fog_redact(struct game *g, int side)
{
	char decks[FOG_SIDES][FOG_CARDS + 1], hands[FOG_SIDES][FOG_CARDS + 1];
	int s;

	for (s = 0; s < FOG_SIDES; s++) {
		decks[s][0] = '\0';
		fog_pile(g, "hand", s, hands[s]);
		if (s != side)
			hands[s][0] = '\0';
	}
	fog_store(g, decks, hands);
}

static void
fog_render_map(const struct game *g, int side, struct sbuf *b)
{
	char lbl[8];
	int i;

	(void)side;
	sbuf_puts(b, "Scouts in sight:\n");
	for (i = 0; i < g->nunits; i++)
		sbuf_printf(b, "  %s (%s) in %s\n", g->units[i].name,
		    g->units[i].id, hex_label(&g->layout, g->units[i].pos, lbl,
		    sizeof lbl));
}

static void
fog_status(const struct game *g, int side, struct sbuf *b)
{
	char hand[FOG_CARDS + 1];
	int s;

	sbuf_printf(b, "Turn %d of %d.\n", g->turn, game_var(g, "turns", 2));
	for (s = 0; s < g->nsides; s++) {
		if (side >= 0 && s != side)
			continue;
		fog_pile(g, "hand", s, hand);
		sbuf_printf(b, "Hand of %s: %s\n", g->sides[s].name, hand[0] ?
		    hand : "(empty)");
	}
}

static void
fog_order_template(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	char hand[FOG_CARDS + 1], lbl[8];
	int i;

	(void)w;
	fog_pile(g, "hand", side, hand);
	sbuf_puts(b, "# move HEX    your scout goes to HEX (A0-D2)\n"
	    "# play CARD   play a card of your hand\n");
	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side == side)
			sbuf_printf(b, "move %s\n", hex_label(&g->layout,
			    g->units[i].pos, lbl, sizeof lbl));
	sbuf_printf(b, "# your hand: %s\n", hand[0] ? hand : "(empty)");
}

const struct ruleset ruleset_test_fog = {
	.name = "test-fog",
	.title = "Test fog (hidden information, for tests)",
	.seed = "none",
	.options_help = "blue-start=HEX,red-start=HEX,blue-deck=CARDS,"
	    "red-deck=CARDS,turns=N  hidden starts, decks (letters), length",
	.setup = fog_setup,
	.default_scenario = "fog",
	.next_window = fog_next_window,
	.parse = fog_parse,
	.free_orders = fog_free_orders,
	.resolve = fog_resolve,
	.victory = fog_victory,
	.opponent = fog_opponent,
	.render_map = fog_render_map,
	.status = fog_status,
	.order_template = fog_order_template,
	.test = true,
	.hidden = true,
	.visible = fog_visible,
	.redact = fog_redact,
};
