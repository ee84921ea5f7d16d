/* pw_map: the scenarios of Big Board Portable Wargame: Modern (the shipped
 * "river-crossing" battle and an empty board for tests), the map as each
 * side sees it, and the status lines. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picmodel.h"
#include "pw.h"
#include "render.h"
#include "scenario.h"

static bool
option_ok(const char *opt, struct hp_error *err)
{
	char buf[256], *p, *tok, *save = NULL;
	int n;

	strlcpy_(buf, opt, sizeof buf);
	for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if (strcmp(tok, "cyclists") == 0 ||
		    strcmp(tok, "tank-riders") == 0 || strcmp(tok, "gas") == 0)
			continue;
		if (strncmp(tok, "turns=", 6) == 0 &&
		    orders_parse_int(tok + 6, 1, 500, &n) == HP_OK)
			continue;
		hp_seterr(err, HP_EINVAL, "unknown option '%s' (options: "
		    "cyclists, tank-riders, gas, turns=N)", tok);
		return false;
	}
	return true;
}

/* The hex at label, on the map; false (after the complaint) if not. */
static bool
hex_on_board(struct scenario_build *b, int line, const char *what,
    const char *label, struct hex *h)
{
	if (!hex_parse_label(&b->g->layout, label, h) ||
	    !game_on_map(b->g, *h)) {
		scenario_build_bad(b, line,
		    "%s: \"%s\" is not a hex of this %dx%d map (A1 "
		    "to %c%d)",
		    what, label, b->g->layout.cols, b->g->layout.rows,
		    'A' + b->g->layout.cols - 1, b->g->layout.rows);
		return false;
	}
	return true;
}

/* The two sides, Blue and Red, as the scenario labels them. */
static void
build_sides(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	struct game *g = b->g;

	g->nsides = 2;
	if (sc->nsides != 2 || strcmp(sc->sides[0].name, "blue") != 0 ||
	    strcmp(sc->sides[1].name, "red") != 0) {
		scenario_build_bad(b, sc->nsides ? sc->sides[0].line : 0,
		    "side: "
		    "portable-modern has two sides, \"blue\" then \"red\"");
		return;
	}
	strlcpy_(g->sides[PW_BLUE].name, "blue", sizeof g->sides[0].name);
	strlcpy_(g->sides[PW_BLUE].label, sc->sides[0].label,
	    sizeof g->sides[0].label);
	strlcpy_(g->sides[PW_RED].name, "red", sizeof g->sides[0].name);
	strlcpy_(g->sides[PW_RED].label, sc->sides[1].label,
	    sizeof g->sides[0].label);
	g->sides[PW_BLUE].ai = g->sides[PW_RED].ai = true;
}

static struct hex
at(const struct game *g, int col, int row)
{
	struct hex_offset o = { col, row };

	return hex_from_offset(&g->layout, o);
}

/* Every hex of the map: terrain by the legend, roads, elevation. */
static void
build_map(struct scenario_build *b)
{
	static const char *const names[] = { "open", "wood", "bua", "fort",
		"trench", "river", "ford" };
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	char roads[sizeof sc->roads], *tok, *save = NULL;
	int col, row, c;
	size_t k, n;
	struct hex h;

	for (c = 0; c < 256; c++) {
		if (sc->legend_line[c] == 0)
			continue;
		for (k = 0; k < sizeof names / sizeof names[0]; k++)
			if (strcmp(sc->legend[c], names[k]) == 0)
				break;
		if (k == sizeof names / sizeof names[0])
			scenario_build_bad(b, sc->legend_line[c],
			    "legend: no terrain \"%s\" in "
			    "portable-modern (open, wood, bua, fort, trench, "
			    "river, ford)",
			    sc->legend[c]);
	}
	if (sc->nterrain != sc->rows)
		return;
	for (row = 0; row < sc->rows; row++)
		for (col = 0; col < sc->cols; col++) {
			struct game_hex *gh;

			c = (unsigned char)sc->terrain[row][col];
			gh = game_add_hex(g, at(g, col, row), sc->legend[c]);
			gh->elevation = sc->nelevation ?
			    sc->elevation[row][col] - '0' : 0;
		}
	strlcpy_(roads, sc->roads, sizeof roads);
	for (tok = strtok_r(roads, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		struct game_hex *gh;

		if (!hex_on_board(b, sc->roads_line, "road", tok, &h))
			continue;
		gh = game_hex_at(g, h);
		if (strstr(gh->terrain, "+road") != NULL)
			continue;
		n = strlen(gh->terrain);
		if (n + sizeof "+road" > sizeof gh->terrain) {
			scenario_build_bad(b, sc->roads_line,
			    "road: terrain \"%s\" is too "
			    "long to take a road",
			    gh->terrain);
			continue;
		}
		memcpy(gh->terrain + n, "+road", sizeof "+road");
	}
}

/* The scenario's option statement for a campaign option that is on, with
 * its words split into w (up to n); the number of words, or -1 if the
 * option is off or the scenario does not support it (complaint made). */
static int
option_args(
    struct scenario_build *b, const char *opt, char w[][GAME_ID_MAX], int n)
{
	const struct scenario_item *it;
	char buf[128], *tok, *save = NULL;
	int k = 0;

	if (!game_option_flag(b->g, opt))
		return -1;
	/* A scenario without the option's line: the option changes nothing
	 * in its set-up (the empty test board). */
	if ((it = scenario_option(b->sc, opt)) == NULL)
		return -1;
	strlcpy_(buf, it->value, sizeof buf);
	for (tok = strtok_r(buf, " \t", &save); tok != NULL && k < n;
	    tok = strtok_r(NULL, " \t", &save))
		strlcpy_(w[k++], tok, GAME_ID_MAX);
	if (k != n || tok != NULL) {
		scenario_build_bad(
		    b, it->line, "option: %s takes %d words", opt, n);
		return -1;
	}
	return k;
}

/* The units, in the file's order, then who carries whom. */
static void
build_units(struct scenario_build *b)
{
	static const char *const qual[] = { "elite", "average", "poor" };
	const struct scenario *sc = b->sc;
	struct game *g = b->g;
	char cyc[2][GAME_ID_MAX], riders[2][GAME_ID_MAX];
	bool cyclists = option_args(b, "cyclists", cyc, 2) == 2;
	bool tank_riders = option_args(b, "tank-riders", riders, 2) == 2;
	int i, k, kind, side, facing, q;
	struct hex h;

	for (i = 0; i < sc->nunits; i++) {
		const struct scenario_unit *su = &sc->units[i];
		const char *where = su->at;

		kind = pw_kind_by_name(su->kind);
		side = strcmp(su->side, "blue") == 0 ? PW_BLUE : PW_RED;
		facing = pw_dir_parse(g, su->facing[0] ? su->facing : "n");
		for (q = 0; q < 3; q++)
			if (strcmp(su->quality[0] ? su->quality : "average",
			    qual[q]) == 0)
				break;
		if (kind < 0 || kind == PW_CYCLIST) {
			scenario_build_bad(b, su->line,
			    "unit: no unit kind \"%s\" (see "
			    "docs/rules/portable-wargame.md, \"Units\")",
			    su->kind);
			continue;
		}
		if (facing < 0) {
			scenario_build_bad(b, su->line,
			    "unit: facing \"%s\" is not one of "
			    "n, ne, se, s, sw, nw",
			    su->facing);
			continue;
		}
		if (q == 3) {
			scenario_build_bad(b, su->line,
			    "unit: quality \"%s\" is not elite, "
			    "average or poor",
			    su->quality);
			continue;
		}
		if (cyclists && strcmp(su->id, cyc[0]) == 0) {
			kind = PW_CYCLIST;
			where = cyc[1];
		}
		if (!hex_on_board(b, su->line, "unit", where, &h))
			continue;
		pw_add_unit(g, su->id, kind, side, where, facing, q);
	}
	for (i = 0; i < sc->nunits; i++) {
		const struct scenario_unit *su = &sc->units[i];

		int u;

		if (su->carried_by[0] == '\0' ||
		    (u = game_unit_index(g, su->id)) < 0)
			continue;
		if ((k = game_unit_index(g, su->carried_by)) < 0) {
			scenario_build_bad(b, su->line,
			    "unit: no unit \"%s\" to carry it", su->carried_by);
			continue;
		}
		if (pw_kind(&g->units[u]) != PW_CYCLIST)
			g->units[u].attached = k;
	}
	if (tank_riders) {
		i = game_unit_index(g, riders[0]);
		k = game_unit_index(g, riders[1]);
		if (i < 0 || k < 0) {
			scenario_build_bad(b,
			    scenario_option(sc, "tank-riders")->line,
			    "option: tank-riders names no unit \"%s\"",
			    i < 0 ? riders[0] : riders[1]);
			return;
		}
		g->units[i].pos = g->units[k].pos;
		g->units[i].attached = k;
	}
}

/* Wire, minefields (known to their owner) and objectives. */
static void
build_markers(struct scenario_build *b)
{
	static const char *const kinds[][2] = { { "wire", PW_WIRE },
		{ "mines", PW_MINES }, { "objective", PW_OBJECTIVE } };
	const struct scenario *sc = b->sc;
	int i, k, side, m;
	struct hex h;

	for (i = 0; i < sc->nmarkers; i++) {
		const struct scenario_marker *sm = &sc->markers[i];

		for (k = 0; k < 3; k++)
			if (strcmp(sm->kind, kinds[k][0]) == 0)
				break;
		if (k == 3) {
			scenario_build_bad(b, sm->line,
			    "marker: no marker \"%s\" in "
			    "portable-modern (wire, mines, objective)",
			    sm->kind);
			continue;
		}
		if (strcmp(sm->side, "none") == 0) {
			scenario_build_bad(b, sm->line,
			    "marker: a portable-modern marker "
			    "belongs to blue or red");
			continue;
		}
		if (!hex_on_board(b, sm->line, "marker", sm->at, &h))
			continue;
		side = strcmp(sm->side, "blue") == 0 ? PW_BLUE : PW_RED;
		m = pw_add_marker(b->g, kinds[k][1], side, h);
		if (k == 1)
			b->g->units[m].x[0] = 1 << side;
	}
}

/* The scenario's named values: obj.need only. */
static void
build_vars(struct scenario_build *b)
{
	const struct scenario *sc = b->sc;
	int i;

	for (i = 0; i < sc->nvars; i++) {
		if (strcmp(sc->vars[i].name, "obj.need") != 0) {
			scenario_build_bad(b, sc->vars[i].line,
			    "var: portable-modern knows "
			    "only obj.need (objectives Blue must hold)");
			continue;
		}
		game_set_var(b->g, "obj.need", scenario_var(sc, "obj.need", 0));
	}
}

int
pw_setup(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	struct scenario_build b = {g, sc, 0};
	const char *turns;
	int n;

	if (!option_ok(g->options, err))
		return HP_EINVAL;
	strlcpy_(g->scenario, sc->name, sizeof g->scenario);
	g->layout.orient = HEX_FLAT;
	g->layout.parity = HEX_ODD;
	g->layout.row_base = 1;
	g->layout.cols = sc->cols;
	g->layout.rows = sc->rows;
	if (sc->cols > 26)
		scenario_build_bad(&b, sc->map_line,
		    "map: portable-modern names columns A "
		    "to Z: at most 26 columns");
	build_sides(&b);
	build_map(&b);
	build_units(&b);
	build_markers(&b);
	build_vars(&b);
	n = sc->turns > 0 ? sc->turns : 20;
	if ((turns = game_option(g, "turns")) != NULL)
		orders_parse_int(turns, 1, 500, &n);
	game_set_var(g, "turns", n);
	g->turn = 1;
	g->window = 1;
	if (b.errors > 0) {
		hp_seterr(err, HP_EINVAL, "scenario %s: %d error%s", sc->name,
		    b.errors, b.errors == 1 ? "" : "s");
		return HP_EINVAL;
	}
	return HP_OK;
}

/* --- the map ---------------------------------------------------------------- */

struct pw_render {
	const struct game *g;
	int side;
};

static bool
r_exists(void *arg, struct hex h)
{
	return game_on_map(((struct pw_render *)arg)->g, h);
}

static bool
marker_seen(const struct pw_render *pr, struct hex h, const char *kind)
{
	int i = pw_marker_at(pr->g, h, kind);

	return i >= 0 && pw_visible(pr->g, pr->side, i);
}

static void
r_cell(void *arg, struct hex h, struct render_cell *cell)
{
	const struct pw_render *pr = arg;
	const struct game *g = pr->g;
	static const char tcode[] = " WBFT~=";
	char a[8], units[40] = "";
	int i, n = 0, first = -1, t = pw_terrain(g, h);

	hex_label(&g->layout, h, a, sizeof a);
	snprintf(cell->line[0], sizeof cell->line[0], "%.3s%c%c", a,
	    t >= 0 ? tcode[t] : ' ', pw_elev(g, h) > 0 ? '^' :
	    pw_road(g, h) ? ':' : ' ');
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];

		if (!pw_alive(u) || !hex_eq(u->pos, h) || u->attached >= 0 ||
		    !pw_visible(g, pr->side, i))
			continue;
		if (first < 0)
			first = i;
		n++;
	}
	if (n == 1)
		snprintf(units, sizeof units, "%s:%d", g->units[first].id,
		    g->units[first].strength);
	else if (n > 1)
		snprintf(units, sizeof units, "%s+%d", g->units[first].id,
		    n - 1);
	else if (marker_seen(pr, h, PW_GAS))
		snprintf(units, sizeof units, "gas");
	else if (marker_seen(pr, h, PW_MINES))
		snprintf(units, sizeof units, "mines");
	else if (marker_seen(pr, h, PW_WIRE))
		snprintf(units, sizeof units, "wire");
	else if ((i = pw_marker_at(g, h, PW_OBJECTIVE)) >= 0)
		snprintf(units, sizeof units, "obj:%c",
		    g->units[i].side == PW_BLUE ? 'B' : 'R');
	snprintf(cell->line[1], sizeof cell->line[1], "%.5s", units);
}

/* The edge character of the marker the side sees in h (gas, minefield,
 * wire), 0 if none. */
static char
marker_edge(const struct pw_render *pr, struct hex h)
{
	if (marker_seen(pr, h, PW_GAS))
		return '%';
	if (marker_seen(pr, h, PW_MINES))
		return '*';
	if (marker_seen(pr, h, PW_WIRE))
		return 'x';
	return 0;
}

static char
r_edge(void *arg, struct hex h, int dir)
{
	const struct pw_render *pr = arg;
	int t = pw_terrain(pr->g, h);
	char m = marker_edge(pr, h), nm;

	/* An edge between two hexes is drawn once: between two different
	 * markers it stays plain (each hex's other edges and its text say
	 * which is which; issue 13 item 9), and a marker beside a river or
	 * ford hex keeps the edge. */
	nm = game_on_map(pr->g, hex_neighbour(h, dir)) ? marker_edge(pr,
	    hex_neighbour(h, dir)) : 0;
	if (m != 0)
		return nm != 0 && nm != m ? 0 : m;
	if (nm != 0)
		return 0;
	if (t == PW_T_FORD)
		return '=';
	if (t == PW_T_RIVER)
		return '~';
	return 0;
}

void
pw_render_map(const struct game *g, int side, struct sbuf *b)
{
	static const char *const qn[] = { "elite", "average", "poor" };
	struct pw_render pr = { g, side };
	struct render_map m;
	char a[8];
	int i;

	memset(&m, 0, sizeof m);
	m.layout = &g->layout;
	m.arg = &pr;
	m.exists = r_exists;
	m.cell = r_cell;
	m.edge = r_edge;
	render_hexmap(&m, b);
	sbuf_puts(b, "\nTerrain: W wood, B built-up area, F fortification, T "
	    "trench, ~ river, = ford,\n^ hill, : road. Hex edges: ~ river, = "
	    "ford, x barbed wire, * minefield, % gas.\nUnits: id:SP (id+N: "
	    "N more units in the hex; obj:B, obj:R an objective held by Blue, Red).\n"
	    "Directions: ");
	sbuf_puts(b, g->layout.orient == HEX_FLAT ? "n ne se s sw nw.\n\n" :
	    "ne e se sw w nw.\n\n");
	sbuf_printf(b, "  %-4s %-24s %-4s %-3s %-2s %-8s %s\n", "id", "type",
	    "hex", "dir", "SP", "quality", "notes");
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		char notes[64] = "";

		if (!pw_alive(u) || !pw_visible(g, side, i))
			continue;
		if (u->attached >= 0)
			snprintf(notes, sizeof notes, "%s %s", (pw_type(u)->cls &
			    PW_C_TOW) ? "towed by" : "carried by",
			    g->units[u->attached].id);
		else if (u->flags & PW_F_CROSSING)
			snprintf(notes, sizeof notes, "crossing");
		if ((side < 0 || side == u->side) && u->x[PW_X_JOB])
			snprintf(notes + strlen(notes), sizeof notes -
			    strlen(notes), "%sworking (%d)", notes[0] ? ", " :
			    "", u->x[PW_X_JOBN]);
		if (notes[0] != '\0')
			sbuf_printf(b, "  %-4s %-24s %-4s %-3s %-2d %-8s %s\n",
			    u->id, pw_type(u)->name, hex_label(&g->layout,
			    u->pos, a, sizeof a), pw_dir_name(g, u->facing),
			    u->strength, qn[u->status % 3], notes);
		else
			sbuf_printf(b, "  %-4s %-24s %-4s %-3s %-2d %s\n", u->id,
			    pw_type(u)->name, hex_label(&g->layout, u->pos, a,
			    sizeof a), pw_dir_name(g, u->facing), u->strength,
			    qn[u->status % 3]);
	}
}

void
pw_picture(const struct game *g, int side, const struct events *ev,
    struct pic_model *m)
{
	static const char *const tname[] = { "open", "wood", "built-up",
		"fortification", "trench", "river", "ford" };
	struct pw_render pr = { g, side };
	int i, k, t;

	m->layout = g->layout;
	snprintf(m->title, sizeof m->title, "%s, turn %d: %s", g->name,
	    g->turn, side < 0 ? "the moderator's view" :
	    g->sides[side].label);
	m->nsides = g->nsides < PIC_MAX_SIDES ? g->nsides : PIC_MAX_SIDES;
	for (i = 0; i < m->nsides; i++)
		strlcpy_(m->side_name[i], g->sides[i].label,
		    sizeof m->side_name[i]);
	for (i = 0; i < g->nhex; i++) {
		struct hex h = g->hexes[i].h;
		struct pic_hex *p;

		t = pw_terrain(g, h);
		p = picture_add_hex(m, h, t >= 0 && t < 7 ? tname[t] : "open");
		p->elevation = pw_elev(g, h);
		if (pw_road(g, h))
			strlcpy_(p->note, "road", sizeof p->note);
	}
	for (i = 0; i < g->nunits; i++) {	/* what r_cell shows */
		const struct game_unit *u = &g->units[i];
		struct pic_unit *p;

		if (!pw_alive(u) || u->attached >= 0 || pw_is_marker(u) ||
		    !pw_visible(g, side, i))
			continue;
		p = picture_add_unit(m, u->pos, u->side, u->id);
		strlcpy_(p->kind, pw_type(u)->name, sizeof p->kind);
		p->strength = u->strength;
		p->facing = u->facing >= 0 && u->facing < 6 ? u->facing : -1;
		if (u->flags & (PW_F_FIRED | PW_F_MOVED))
			p->state |= PIC_SPENT;
		/* Losses: of the side's own units only (pw_status keeps the
		 * enemy's from it). */
		if ((side < 0 || side == u->side) && u->x[PW_X_SP0] > 0 &&
		    u->strength < u->x[PW_X_SP0])
			p->state |= PIC_HIT;
	}
	for (i = 0; i < g->nhex; i++) {	/* markers as r_cell sees them */
		static const char *const mk[] = { PW_GAS, PW_MINES, PW_WIRE };
		static const char *const ml[] = { "gas", "mines", "wire" };
		struct hex h = g->hexes[i].h;
		struct pic_unit *p;

		for (k = 0; k < 3; k++)
			if (marker_seen(&pr, h, mk[k])) {
				p = picture_add_unit(m, h, -1, ml[k]);
				p->marker = true;
				strlcpy_(p->kind, ml[k], sizeof p->kind);
			}
		if ((k = pw_marker_at(g, h, PW_OBJECTIVE)) >= 0) {
			p = picture_add_unit(m, h, g->units[k].side, "obj");
			p->marker = true;
			strlcpy_(p->kind, "objective", sizeof p->kind);
		}
	}
	picmodel_arrows(g, ev, m);
}

void
pw_status(const struct game *g, int side, struct sbuf *b)
{
	int s;

	sbuf_printf(b, "Turn %d of %d.\n", g->turn, game_var(g, "turns", 20));
	for (s = 0; s < 2; s++) {
		int init = pw_initial_sp(g, s), cur = pw_current_sp(g, s);

		/* The enemy's losses and dice would tell of hits and units
		 * the side cannot see: only whether it is exhausted. */
		if (side >= 0 && side != s && g->status != GAME_FINISHED) {
			sbuf_printf(b, "  %-6s Exhaustion Point %2d%s\n",
			    g->sides[s].name, pw_exhaustion_point(g, s),
			    pw_exhausted(g, s) ? " (EXHAUSTED)" :
			    " (not reached)");
			continue;
		}
		sbuf_printf(b, "  %-6s SP %2d of %2d; lost %2d, Exhaustion Point "
		    "%2d%s; activation dice %d\n", g->sides[s].name, cur, init,
		    init - cur, pw_exhaustion_point(g, s), pw_exhausted(g, s) ?
		    " (EXHAUSTED)" : "", pw_activation_dice(g, s));
	}
	if (pw_objectives_total(g) > 0) {
		char a[8];
		int need = game_var(g, "obj.need", 1);

		sbuf_puts(b, "  Objectives:");
		for (s = 0; s < g->nunits; s++)
			if (g->units[s].placed && strcmp(g->units[s].kind,
			    PW_OBJECTIVE) == 0)
				sbuf_printf(b, " %s (%s)", hex_label(&g->layout,
				    g->units[s].pos, a, sizeof a),
				    g->sides[g->units[s].side].name);
		sbuf_printf(b, ".\n  The battle ends when both sides are "
		    "exhausted or at the turn limit; %s\n  wins if it then "
		    "holds at least %d of the %d objectives, else %s wins.\n",
		    g->sides[PW_BLUE].name, need, pw_objectives_total(g),
		    g->sides[PW_RED].name);
	} else
		sbuf_puts(b, "  The battle ends when both sides are exhausted; "
		    "the side that lost the\n  smaller share of its SP "
		    "wins.\n");
}
