/* pw_map: the scenarios of Big Board Portable Wargame: Modern (the shipped
 * "river-crossing" battle and an empty board for tests), the map as each
 * side sees it, and the status lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pw.h"
#include "render.h"

#define COLS 13
#define ROWS 12

/* Terrain of the river-crossing board, row 1 first, columns A-M:
 * . open, W wood, B built-up area, F fortification, T trench, ~ river,
 * = ford. */
static const char *const rc_terrain[ROWS] = {
	"WW...~....WW.",
	"W....~...B...",
	".....=...BB..",
	"..W..~.......",
	".....~..T.F..",
	".....=..T....",
	"..WW.~..T.B..",
	"..W..~......W",
	".........WW..",
	".............",
	".............",
	".............",
};
/* Hills (elevation 1). */
static const char *const rc_hills[ROWS] = {
	".............",
	"..1..........",
	"..1..........",
	".............",
	".............",
	".............",
	".............",
	".............",
	".............",
	"..........11.",
	"..........11.",
	".............",
};
#define RC_ROAD_ROW 5 /* row 6: the road runs west to east */

struct pw_placement {
	const char *id;
	int kind;
	int side;
	const char *at;
	const char *facing;
	int quality;
	const char *carried_by;
};

static const struct pw_placement rc_units[] = {
	{ "b1", PW_CMD, PW_BLUE, "C6", "ne", PW_AVERAGE, NULL },
	{ "b2", PW_SPOTTER, PW_BLUE, "C3", "se", PW_AVERAGE, NULL },
	{ "b3", PW_INF, PW_BLUE, "D5", "ne", PW_ELITE, NULL },
	{ "b4", PW_INF, PW_BLUE, "D7", "se", PW_ELITE, NULL },
	{ "b5", PW_INF, PW_BLUE, "D9", "se", PW_ELITE, NULL },
	{ "b6", PW_INF, PW_BLUE, "B6", "se", PW_AVERAGE, "b15" },
	{ "b7", PW_ENG, PW_BLUE, "C5", "ne", PW_AVERAGE, NULL },
	{ "b8", PW_MG, PW_BLUE, "C7", "se", PW_AVERAGE, NULL },
	{ "b9", PW_MORTAR, PW_BLUE, "B7", "se", PW_AVERAGE, NULL },
	{ "b10", PW_ART_FIELD, PW_BLUE, "B4", "se", PW_AVERAGE, NULL },
	{ "b11", PW_ART_MEDIUM, PW_BLUE, "A5", "se", PW_AVERAGE, NULL },
	{ "b12", PW_TANK, PW_BLUE, "D10", "ne", PW_AVERAGE, NULL },
	{ "b13", PW_LTANK, PW_BLUE, "C11", "ne", PW_AVERAGE, NULL },
	{ "b14", PW_AC, PW_BLUE, "D3", "se", PW_AVERAGE, NULL },
	{ "b15", PW_HT, PW_BLUE, "B6", "se", PW_AVERAGE, NULL },
	{ "b16", PW_TRUCK, PW_BLUE, "A8", "se", PW_AVERAGE, NULL },
	{ "b17", PW_AT_GUN, PW_BLUE, "A8", "se", PW_AVERAGE, "b16" },
	{ "b18", PW_AG, PW_BLUE, "C9", "ne", PW_AVERAGE, NULL },
	{ "b19", PW_INF_AT, PW_BLUE, "D11", "ne", PW_POOR, NULL },
	{ "b20", PW_ART_HEAVY, PW_BLUE, "A3", "se", PW_AVERAGE, NULL },
	{ "r1", PW_CMD, PW_RED, "K4", "sw", PW_AVERAGE, NULL },
	{ "r2", PW_SPOTTER, PW_RED, "K4", "sw", PW_AVERAGE, NULL },
	{ "r3", PW_INF, PW_RED, "I5", "nw", PW_AVERAGE, NULL },
	{ "r4", PW_INF, PW_RED, "I7", "sw", PW_AVERAGE, NULL },
	{ "r5", PW_INF, PW_RED, "J3", "sw", PW_POOR, NULL },
	{ "r6", PW_INF_AT, PW_RED, "I6", "nw", PW_AVERAGE, NULL },
	{ "r7", PW_MG, PW_RED, "K5", "nw", PW_ELITE, NULL },
	{ "r8", PW_MORTAR, PW_RED, "K6", "nw", PW_AVERAGE, NULL },
	{ "r9", PW_INF_GUN, PW_RED, "J6", "nw", PW_AVERAGE, NULL },
	{ "r10", PW_AT_GUN, PW_RED, "J8", "sw", PW_AVERAGE, NULL },
	{ "r11", PW_AA_GUN, PW_RED, "L3", "sw", PW_AVERAGE, NULL },
	{ "r12", PW_MCAV, PW_RED, "M10", "sw", PW_POOR, NULL },
	{ "r13", PW_DCAV, PW_RED, "J10", "sw", PW_AVERAGE, NULL },
	{ "r14", PW_SPA, PW_RED, "L6", "nw", PW_AVERAGE, NULL },
	{ "r15", PW_HORSE, PW_RED, "M4", "sw", PW_AVERAGE, NULL },
	{ "r16", PW_ART_MOUNTAIN, PW_RED, "M4", "sw", PW_AVERAGE, "r15" },
	{ "r17", PW_ENG, PW_RED, "K8", "sw", PW_AVERAGE, NULL },
	{ "r18", PW_INF, PW_RED, "H10", "sw", PW_POOR, NULL },
};

/* Barbed wire and minefields of the defender (Red). */
static const char *const rc_wire[] = { "H5", "H7", NULL };
static const char *const rc_mines[] = { "H6", "G3", NULL };
/* The objectives (held by Red at the start) and how many Blue must hold
 * when the battle ends (docs, "The scenario and victory"). */
static const char *const rc_objectives[] = { "J2", "J3", "K3", NULL };
#define RC_OBJ_NEED 1

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

static void
sides(struct game *g)
{
	g->nsides = 2;
	strlcpy_(g->sides[PW_BLUE].name, "blue", sizeof g->sides[0].name);
	strlcpy_(g->sides[PW_BLUE].label, "Blue (attacker)",
	    sizeof g->sides[0].label);
	strlcpy_(g->sides[PW_RED].name, "red", sizeof g->sides[0].name);
	strlcpy_(g->sides[PW_RED].label, "Red (defender)",
	    sizeof g->sides[0].label);
	g->sides[PW_BLUE].ai = g->sides[PW_RED].ai = true;
}

static struct hex
at(const struct game *g, int col, int row)
{
	struct hex_offset o = { col, row };

	return hex_from_offset(&g->layout, o);
}

static void
river_crossing(struct game *g)
{
	const char *codes = ".WBFT~=";
	static const char *const names[] = { "open", "wood", "bua", "fort",
		"trench", "river", "ford" };
	size_t k;
	int col, row, i;
	struct hex h;

	for (row = 0; row < ROWS; row++)
		for (col = 0; col < COLS; col++) {
			char t[GAME_TERRAIN_MAX];
			struct game_hex *gh;
			const char *c = strchr(codes, rc_terrain[row][col]);

			snprintf(t, sizeof t, "%s%s", names[c ? c - codes : 0],
			    row == RC_ROAD_ROW ? "+road" : "");
			gh = game_add_hex(g, at(g, col, row), t);
			gh->elevation = rc_hills[row][col] == '1';
		}
	for (k = 0; k < sizeof rc_units / sizeof rc_units[0]; k++) {
		const struct pw_placement *p = &rc_units[k];
		int kind = p->kind;
		const char *where = p->at;

		if (strcmp(p->id, "b6") == 0 &&
		    game_option_flag(g, "cyclists")) {
			kind = PW_CYCLIST;
			where = "B5";
		}
		pw_add_unit(g, p->id, kind, p->side, where,
		    pw_dir_parse(g, p->facing), p->quality);
	}
	for (k = 0; k < sizeof rc_units / sizeof rc_units[0]; k++) {
		const struct pw_placement *p = &rc_units[k];

		i = game_unit_index(g, p->id);
		if (p->carried_by != NULL && pw_kind(&g->units[i]) !=
		    PW_CYCLIST)
			g->units[i].attached = game_unit_index(g, p->carried_by);
	}
	if (game_option_flag(g, "tank-riders")) {
		/* b5 rides b12. */
		i = game_unit_index(g, "b5");
		g->units[i].pos = g->units[game_unit_index(g, "b12")].pos;
		g->units[i].attached = game_unit_index(g, "b12");
	}
	for (k = 0; rc_wire[k]; k++)
		if (hex_parse_label(&g->layout, rc_wire[k], &h))
			pw_add_marker(g, PW_WIRE, PW_RED, h);
	for (k = 0; rc_mines[k]; k++)
		if (hex_parse_label(&g->layout, rc_mines[k], &h)) {
			i = pw_add_marker(g, PW_MINES, PW_RED, h);
			g->units[i].x[0] = 1 << PW_RED;
		}
	for (k = 0; rc_objectives[k]; k++)
		if (hex_parse_label(&g->layout, rc_objectives[k], &h))
			pw_add_marker(g, PW_OBJECTIVE, PW_RED, h);
	game_set_var(g, "obj.need", RC_OBJ_NEED);
}

int
pw_setup(struct game *g, const char *scenario, struct hp_error *err)
{
	const char *turns;
	int col, row, n = 20;

	if (scenario == NULL || *scenario == '\0')
		scenario = "river-crossing";
	if (strcmp(scenario, "river-crossing") != 0 &&
	    strcmp(scenario, "empty") != 0) {
		hp_seterr(err, HP_EINVAL, "portable-modern scenarios: "
		    "river-crossing (the default) and empty");
		return HP_EINVAL;
	}
	if (!option_ok(g->options, err))
		return HP_EINVAL;
	strlcpy_(g->scenario, scenario, sizeof g->scenario);
	g->layout.orient = HEX_FLAT;
	g->layout.parity = HEX_ODD;
	g->layout.row_base = 1;
	sides(g);
	if (strcmp(scenario, "empty") == 0) {
		g->layout.cols = 10;
		g->layout.rows = 8;
		for (row = 0; row < 8; row++)
			for (col = 0; col < 10; col++)
				game_add_hex(g, at(g, col, row), "open");
	} else {
		g->layout.cols = COLS;
		g->layout.rows = ROWS;
		river_crossing(g);
	}
	if ((turns = game_option(g, "turns")) != NULL)
		orders_parse_int(turns, 1, 500, &n);
	game_set_var(g, "turns", n);
	g->turn = 1;
	g->window = 1;
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
