/* cap: the ruleset cards-ap (seed 004, issue 15): setup from a scenario,
 * the order (plan) files, the views that hide hands, the deck and hit
 * tokens, the map with facings and the reports (docs/rules/cards-ap.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"
#include "render.h"
#include "view.h"

/* Count one error of the scenario. */
#define BAD(sc, line, ...) do { scenario_error(sc, line, __VA_ARGS__); \
	nerr++; } while (0)

/* Parse "N" in lo..hi into *out; false when it is not. */
static bool
int_in(const char *s, int lo, int hi, int *out)
{
	return orders_parse_int(s, lo, hi, out) == HP_OK;
}

/* The scenario's option statements: counters, terrain chart, deck,
 * tokens, artillery, reinforcements, objective. The number of errors. */
static int
setup_options(struct game *g, const struct scenario *sc, struct cap_state *st,
    bool units_in)
{
	int i, nerr = 0, k, n, v[8];
	char w[11][32];

	for (i = 0; i < sc->noptions; i++) {
		const struct scenario_item *o = &sc->options[i];
		int line = o->line;

		if (units_in != (strcmp(o->name, "reinforce") == 0))
			continue;
		memset(w, 0, sizeof w);
		n = sscanf(o->value, "%31s %31s %31s %31s %31s %31s %31s %31s",
		    w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]);
		if (strcmp(o->name, "counter") == 0) {
			struct cap_counter *c = &st->ctr[st->nctr];

			if (st->nctr == CAP_MAX_KINDS ||
			    sscanf(o->value, "%23s %7s %d %d %d %d %d %7s %d %d "
			    "%7s", c->kind, w[1], &c->move, &c->bonus, &c->range,
			    &c->fp[0], &c->fp[1], w[2], &c->dr[0], &c->dr[1],
			    w[3]) != 11 || c->move < 0 || c->move > 9 ||
			    c->range < 0 || c->range > 20 ||
			    (strcmp(w[1], "foot") != 0 && strcmp(w[1],
			    "vehicle") != 0) || (strcmp(w[3], "red") != 0 &&
			    strcmp(w[3], "blue") != 0)) {
				BAD(sc, line, "option counter: expected KIND "
				    "foot|vehicle MOVE BONUS RANGE FP-RED FP-BLUE "
				    "white|black DR-FRONT DR-FLANK red|blue");
				continue;
			}
			c->vehicle = strcmp(w[1], "vehicle") == 0;
			c->white = strcmp(w[2], "white") == 0;
			c->drcol = strcmp(w[3], "blue") == 0;
			st->nctr++;
		} else if (strcmp(o->name, "terrain") == 0) {
			struct cap_terrain *t = &st->ter[st->nter];

			if (n != 5 || st->nter == CAP_MAX_TERRAIN ||
			    !int_in(w[1], 0, 9, &t->move) || !int_in(w[2], -9, 9,
			    &t->dv) || (strcmp(w[3], "cover") != 0 &&
			    strcmp(w[3], "open") != 0) || (strcmp(w[4],
			    "blocks") != 0 && strcmp(w[4], "clear") != 0)) {
				BAD(sc, line, "option terrain: expected NAME MOVE "
				    "DV cover|open blocks|clear");
				continue;
			}
			strlcpy_(t->name, w[0], sizeof t->name);
			t->cover = strcmp(w[3], "cover") == 0;
			t->block = strcmp(w[4], "blocks") == 0;
			st->nter++;
		} else if (strcmp(o->name, "card") == 0) {
			bool ign = false;
			int act = CARD_NONE, j;

			for (j = 2; j < n; j++) {
				if (strcmp(w[j], "ignore") == 0)
					ign = true;
				else if (strcmp(w[j], "rally") == 0)
					act = CARD_RALLY;
				else if (strcmp(w[j], "smoke") == 0)
					act = CARD_SMOKE;
				else
					break;
			}
			if (n < 2 || j < n || !int_in(w[0], 1, 12, &v[0]) ||
			    !int_in(w[1], 1, 20, &v[1]) || st->ncard + v[1] >
			    CAP_MAX_CARDS) {
				BAD(sc, line, "option card: expected NUMBER COUNT "
				    "[ignore] [rally|smoke] (at most %d cards)",
				    CAP_MAX_CARDS);
				continue;
			}
			for (k = 0; k < v[1]; k++) {
				st->card[st->ncard].num = v[0];
				st->card[st->ncard].ignore = ign;
				st->card[st->ncard].action = act;
				st->deck[st->ndeck++] = ++st->ncard;
			}
		} else if (strcmp(o->name, "token") == 0) {
			if (n != 2 || !int_in(w[0], 2, 12, &v[0]) ||
			    !int_in(w[1], 1, 20, &v[1]) || st->npool + v[1] >
			    CAP_MAX_TOKENS) {
				BAD(sc, line, "option token: expected VALUE (2-12) "
				    "COUNT (at most %d tokens)", CAP_MAX_TOKENS);
				continue;
			}
			for (k = 0; k < v[1]; k++)
				st->pool[st->npool++] = v[0];
		} else if (strcmp(o->name, "artillery") == 0) {
			struct cap_arty *a = &st->arty[st->narty];

			if (n != 4 || st->narty == 16 || (a->side =
			    game_side_index(g, w[0])) < 0 || !int_in(w[1], 1,
			    500, &a->round) || !hex_parse_label(&g->layout, w[2],
			    &a->at) || !game_on_map(g, a->at) ||
			    !int_in(w[3], 0, 20, &a->fp)) {
				BAD(sc, line, "option artillery: expected SIDE "
				    "ROUND HEX FP");
				continue;
			}
			st->narty++;
		} else if (strcmp(o->name, "reinforce") == 0) {
			struct cap_reinf *r = &st->reinf[st->nreinf];

			if (n != 3 || st->nreinf == 16 || game_unit(g, w[0]) ==
			    NULL || !int_in(w[1], 1, 500, &r->round) ||
			    !hex_parse_label(&g->layout, w[2], &r->at) ||
			    !game_on_map(g, r->at)) {
				BAD(sc, line, "option reinforce: expected UNIT "
				    "ROUND HEX (a unit of the scenario)");
				continue;
			}
			strlcpy_(r->unit, w[0], sizeof r->unit);
			st->nreinf++;
		} else if (strcmp(o->name, "objective") == 0) {
			struct hex h;

			if (n != 1 || !hex_parse_label(&g->layout, w[0], &h) ||
			    !game_on_map(g, h)) {
				BAD(sc, line, "option objective: expected a hex "
				    "of the map");
				continue;
			}
			game_set_var(g, "obj.q", h.q);
			game_set_var(g, "obj.r", h.r);
		} else
			BAD(sc, line, "option %s: cards-ap knows counter, "
			    "terrain, card, token, artillery, reinforce and "
			    "objective", o->name);
	}
	if (!units_in && (st->nctr == 0 || st->ncard == 0 || st->npool == 0 ||
	    st->nter == 0))
		BAD(sc, 0, "cards-ap needs counters, a terrain chart, a deck "
		    "and a token pool (option counter, terrain, card, token)");
	return nerr;
}

/* Are the campaign options only those cards-ap knows (rounds=N,
 * per-action)? Else err says which is not. */
static bool
options_ok(const char *opts, struct hp_error *err)
{
	char buf[256], *w, *save = NULL;

	strlcpy_(buf, opts, sizeof buf);
	for (w = strtok_r(buf, ",", &save); w != NULL; w = strtok_r(NULL, ",",
	    &save)) {
		if (strncmp(w, "rounds=", 7) == 0 || strcmp(w, "per-action") ==
		    0)
			continue;
		hp_seterr(err, HP_EINVAL, "option %.60s: cards-ap knows rounds=N "
		    "and per-action", w);
		return false;
	}
	return true;
}

/* Build the game from the scenario (docs/rules/cards-ap.md). */
static int
cap_setup(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	struct cap_state *st = xcalloc(1, sizeof *st);
	int nerr = 0, i, s, row, col, n;
	const char *opt;

	if (!options_ok(g->options, err)) {
		free(st);
		return HP_EINVAL;
	}
	strlcpy_(g->scenario, sc->name, sizeof g->scenario);
	g->layout.orient = HEX_FLAT;
	g->layout.parity = HEX_ODD;
	g->layout.row_base = 1;
	g->layout.cols = sc->cols;
	g->layout.rows = sc->rows;
	if (sc->nsides != CAP_SIDES)
		BAD(sc, sc->map_line, "cards-ap needs two sides");
	if (sc->cols > 26 || sc->cols < 2 || sc->rows < 2)
		BAD(sc, sc->map_line, "map: 2 to 26 columns, 2 rows or more");
	g->nsides = sc->nsides < CAP_SIDES ? sc->nsides : CAP_SIDES;
	for (s = 0; s < g->nsides; s++) {
		strlcpy_(g->sides[s].name, sc->sides[s].name,
		    sizeof g->sides[s].name);
		strlcpy_(g->sides[s].label, sc->sides[s].label,
		    sizeof g->sides[s].label);
		g->sides[s].ai = true;   /* until a player takes the side */
	}
	for (row = 0; row < sc->rows && row < sc->nterrain; row++)
		for (col = 0; col < sc->cols; col++) {
			struct hex_offset o = { col, row };
			unsigned char ch = (unsigned char)sc->terrain[row][col];

			game_add_hex(g, hex_from_offset(&g->layout, o),
			    sc->legend_line[ch] ? sc->legend[ch] : "open");
		}
	nerr += setup_options(g, sc, st, false);
	for (i = 0; i < sc->nunits; i++) {
		const struct scenario_unit *su = &sc->units[i];
		struct game_unit *u;
		struct cap_counter *c = NULL;
		int side = game_side_index(g, su->side), k, f;
		struct hex h;
		bool placed = strcmp(su->at, "-") != 0;

		for (k = 0; k < st->nctr; k++)
			if (strcmp(st->ctr[k].kind, su->kind) == 0)
				c = &st->ctr[k];
		if (c == NULL || side < 0) {
			BAD(sc, su->line, "unit: no counter '%s' or no side '%s'",
			    su->kind, su->side);
			continue;
		}
		if (placed && (!hex_parse_label(&g->layout, su->at, &h) ||
		    !game_on_map(g, h))) {
			BAD(sc, su->line, "unit: '%s' is no hex of the map",
			    su->at);
			continue;
		}
		f = su->facing[0] && strcmp(su->facing, "-") != 0 ?
		    cap_dir_parse(su->facing) : (side == 0 ? 1 : 4);
		if (f < 0) {
			BAD(sc, su->line, "unit: facing \"%s\" is not one of n, "
			    "ne, se, s, sw, nw", su->facing);
			continue;
		}
		u = game_add_unit(g, su->id, su->kind, su->id, side);
		u->placed = placed;
		if (placed)
			u->pos = h;
		u->facing = f;
		u->attached = -1;
		u->strength = 1;
	}
	nerr += setup_options(g, sc, st, true);
	for (s = 0; s < g->nsides; s++) {
		char k[32];

		snprintf(k, sizeof k, "caps.%s", g->sides[s].name);
		n = scenario_var(sc, k, 4);
		cap_set_svar(g, "capmax", s, n);
		cap_set_svar(g, "cap", s, n);
		snprintf(k, sizeof k, "draw.%s", g->sides[s].name);
		cap_set_svar(g, "draw", s, scenario_var(sc, k, 1));
	}
	game_set_var(g, "fire.ap", scenario_var(sc, "fire.ap", 2));
	n = sc->turns > 0 ? sc->turns : 6;
	if ((opt = game_option(g, "rounds")) != NULL &&
	    orders_parse_int(opt, 1, 100, &n) != HP_OK) {
		hp_seterr(err, HP_EINVAL, "option rounds: 1 to 100");
		free(st);
		return HP_EINVAL;
	}
	game_set_var(g, "rounds", n);
	game_set_var(g, "round", 0);
	g->turn = 0;
	g->window = 1;
	if (nerr > 0) {
		hp_seterr(err, HP_EINVAL, "scenario %s: %d error%s", sc->name,
		    nerr, nerr == 1 ? "" : "s");
		free(st);
		return HP_EINVAL;
	}
	cap_state_save(g, st);
	free(st);
	return HP_OK;
}

/* Parse a plan file (or an answer) of side. */
static int
cap_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	struct cap_plan *p = xmalloc(sizeof *p);  /* cap_plan_parse clears it */

	*out = NULL;
	if (strcmp(w->name, "standing") == 0) {
		orders_error(errs, 0, "cards-ap takes no standing orders");
		free(p);
		return HP_EINVAL;
	}
	if (side < 0 || side >= CAP_SIDES || cap_plan_parse(g, side, b,
	    game_option_flag(g, "per-action"), p, errs) != HP_OK) {
		free(p);
		return HP_EINVAL;
	}
	cap_plan_canon(g, p, canon);
	*out = p;
	return HP_OK;
}

/* Free a plan from cap_parse. */
static void
cap_free_orders(void *p)
{
	free(p);
}

/* Everything on the map is seen by both sides. */

/* side's copy: its own hand only (of the other, the count: each card a
 * 0), no deck, no pool, no plan of the other side, and the tokens under its own units only once a rally showed them
 * (the opponent drew and saw them). */
static void
cap_redact(struct game *g, int side)
{
	/* The other side's plan is dropped: not even read. */
	struct cap_state *st = cap_state_load_plans(g, side >= 0 &&
	    side < CAP_SIDES ? 1u << side : 0);
	int s, i;

	for (s = 0; s < CAP_SIDES; s++)
		if (s != side) {
			memset(st->hand[s], 0, sizeof st->hand[s]);
			st->have_plan[s] = false;
		}
	st->ndeck = 0;
	st->npool = 0;
	for (i = 0; i < g->nunits; i++)
		if (g->units[i].side == side && g->units[i].x[1] == 0)
			g->units[i].x[0] = 0;
	cap_state_save(g, st);
	cap_state_free(st);
}

/* Does hex h exist (render callback)? */
static bool
map_exists(void *arg, struct hex h)
{
	return game_on_map(arg, h);
}

/* A hex's text (render callback): its label and terrain letter, then the
 * first unit there with its facing ("b1ne"; "+" when more share the hex,
 * "~~" smoke). */
static void
map_cell(void *arg, struct hex h, struct render_cell *c)
{
	const struct game *g = arg;
	const struct game_hex *gh = game_hex_at_c(g, h);
	char lbl[8];
	int i, n = 0;

	hex_label(&g->layout, h, lbl, sizeof lbl);
	snprintf(c->line[0], sizeof c->line[0], "%.3s%c", lbl,
	    gh && strcmp(gh->terrain, "open") != 0 ? gh->terrain[0] : ' ');
	c->line[1][0] = '\0';
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (!u->placed || !hex_eq(u->pos, h))
			continue;
		if (strcmp(u->kind, CAP_SMOKE) == 0) {
			if (c->line[1][0] == '\0')
				strlcpy_(c->line[1], "~~", sizeof c->line[1]);
			continue;
		}
		if (n++ == 0)
			snprintf(c->line[1], sizeof c->line[1], "%.2s%.2s", u->id,
			    cap_dir_name(u->facing));
		else if (strlen(c->line[1]) < RENDER_CELL_W)
			strlcpy_(c->line[1] + strlen(c->line[1]), "+",
			    sizeof c->line[1] - strlen(c->line[1]));
	}
}

/* The map as hexes (terrain letter: w woods, t town), each unit with its
 * facing, then the list of units. */
static void
cap_render_map(const struct game *g, int side, struct sbuf *b)
{
	struct render_map m = { &g->layout, (void *)g, map_exists, map_cell,
		NULL };
	char lbl[8];
	int i;

	(void)side;
	render_hexmap(&m, b);
	sbuf_puts(b, "Units (facing; S spent, H hit):\n");
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (!u->placed || u->side < 0)
			continue;
		sbuf_printf(b, "  %-6s %-5s %-8s %-4s faces %-2s%s%s", u->id,
		    g->sides[u->side].name, u->kind, hex_label(&g->layout,
		    u->pos, lbl, sizeof lbl), cap_dir_name(u->facing),
		    u->status == CAP_SPENT ? " S" : "", u->flags & CAP_HIT ?
		    " H" : "");
		if ((u->flags & CAP_HIT) && u->x[0] > 0)
			sbuf_printf(b, " (token %d)", u->x[0]);
		sbuf_puts(b, "\n");
	}
}

/* The round, CAPs, the hand (own), the round's actions of each side. */
static void
cap_status(const struct game *g, int side, struct sbuf *b)
{
	struct cap_state *st = cap_state_load(g);
	int s, i;

	sbuf_printf(b, "Round %d of %d.\n", game_var(g, "round", 0),
	    game_var(g, "rounds", 6));
	for (s = 0; s < g->nsides && s < CAP_SIDES; s++) {
		sbuf_printf(b, "%s: %d of %d CAPs, %d card%s in hand, %d unit%s "
		    "lost.\n", g->sides[s].name, cap_svar(g, "cap", s, 0),
		    cap_svar(g, "capmax", s, 0), st->nhand[s],
		    st->nhand[s] == 1 ? "" : "s", cap_svar(g, "lost", s, 0),
		    cap_svar(g, "lost", s, 0) == 1 ? "" : "s");
		if (st->log[s][0] != '\0')
			sbuf_printf(b, "  this round: %s\n", st->log[s]);
	}
	for (s = 0; s < g->nsides && s < CAP_SIDES; s++) {
		if (side >= 0 && s != side)
			continue;
		sbuf_printf(b, "Hand of %s:", g->sides[s].name);
		for (i = 0; i < st->nhand[s]; i++) {
			const struct cap_card *k;

			if (st->hand[s][i] < 1 || st->hand[s][i] > st->ncard)
				continue;
			k = &st->card[st->hand[s][i] - 1];

			sbuf_printf(b, " #%d(%d%s%s)", st->hand[s][i], k->num,
			    k->ignore ? ",ignore" : "", k->action == CARD_RALLY ?
			    ",rally" : k->action == CARD_SMOKE ? ",smoke" : "");
		}
		sbuf_puts(b, st->nhand[s] ? "\n" : " (empty)\n");
	}
	cap_state_free(st);
}

/* The ready-to-edit plan: the language in comments, the rest of side's
 * plan (an answer window) or nothing. */
static void
cap_order_template(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	struct cap_state *st = cap_state_load(g);
	struct sbuf rest;
	const char *p, *e;

	sbuf_init(&rest);
	sbuf_puts(b, "# A round plan: one statement a line, actions in order.\n"
	    "#   initiative N            add N CAPs (0-2) to the initiative\n"
	    "#   move U HEX [HEX..] [face DIR] | move U toward HEX\n"
	    "#   pivot U DIR | fire U HEX|best [caps N] | close U ENEMY\n"
	    "#   rally U | stall U | pass | card N rally U | card N smoke HEX\n"
	    "#   cmd ACTION              a command action paid with CAPs\n"
	    "#   if [not] COND then ACTION [else ACTION]\n"
	    "#     COND: occupied HEX, enemy HEX, inrange U, inlos U, caps N,"
	    " passed\n"
	    "#   stop hit [U] | stop lost [U] | stop seen | stop inrange U |\n"
	    "#   stop dry | stop answer ACTION|any   ask me when it happens\n"
	    "#   dry pass                pass when the plan runs dry\n");
	if (side >= 0 && side < CAP_SIDES) {
		int i;
		char lbl[8];

		sbuf_printf(b, "# Your CAPs: %d. Your hand:", cap_svar(g, "cap",
		    side, 0));
		for (i = 0; i < st->nhand[side]; i++) {
			int c = st->hand[side][i];

			if (c >= 1 && c <= st->ncard)
				sbuf_printf(b, " #%d(%d%s%s)", c,
				    st->card[c - 1].num, st->card[c - 1].ignore ?
				    ",ignore" : "", st->card[c - 1].action ==
				    CARD_RALLY ? ",rally" : st->card[c - 1].action ==
				    CARD_SMOKE ? ",smoke" : "");
		}
		sbuf_puts(b, st->nhand[side] ? "\n# Your units:" :
		    " (empty)\n# Your units:");
		for (i = 0; i < g->nunits; i++)
			if (g->units[i].side == side && g->units[i].placed)
				sbuf_printf(b, " %s %s %s%s%s", g->units[i].id,
				    hex_label(&g->layout, g->units[i].pos, lbl,
				    sizeof lbl), cap_dir_name(g->units[i].facing),
				    g->units[i].status == CAP_SPENT ? " spent" :
				    "", g->units[i].flags & CAP_HIT ? " hit" : "");
		sbuf_puts(b, "\n");
	}
	if (w->kind == WINDOW_DECISION && side >= 0 && side < CAP_SIDES &&
	    st->have_plan[side]) {
		sbuf_puts(b, "# An answer with no action keeps the rest of your "
		    "plan (below, commented);\n# any action replaces it.\n");
		cap_plan_canon(g, &st->plan[side], &rest);
		for (p = rest.buf; p != NULL && *p != '\0'; p = e ? e + 1 :
		    NULL) {
			e = strchr(p, '\n');
			sbuf_puts(b, "#   ");
			sbuf_add(b, p, e ? (size_t)(e - p) : strlen(p));
			sbuf_puts(b, "\n");
		}
	}
	sbuf_free(&rest);
	cap_state_free(st);
}

const struct ruleset ruleset_cards_ap = {
	.name = "cards-ap",
	.title = "Card and action-point hex game, played by round plans",
	.seed = "004",
	.options_help = "rounds=N      the number of rounds (default: the "
	    "scenario's turns)\nper-action    one action a mail (each side is "
	    "asked every turn)",
	.setup = cap_setup,
	.default_scenario = "crossroads",
	.next_window = cap_next_window,
	.parse = cap_parse,
	.free_orders = cap_free_orders,
	.resolve = cap_resolve,
	.victory = cap_victory,
	.opponent = cap_opponent,
	.render_map = cap_render_map,
	.status = cap_status,
	.order_template = cap_order_template,
	.hidden = true,
	.redact = cap_redact,
};
