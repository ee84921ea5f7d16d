/* fam: the fire-and-movement training wargame (seed 000). Blue's platoon of
 * three sections and a Platoon Commander advances from the wood to assault
 * Red's section dug in on the hill at B5. Every reading of the seed is in
 * docs/rules/fire-and-movement.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fam.h"
#include "picmodel.h"
#include "scenario.h"
#include "render.h"
#include "ruleset.h"

#define FAM_SECTIONS 3
#define FAM_PC 3     /* unit index of the Platoon Commander */
#define FAM_RED 4    /* unit index of Red's section */
#define BLUE 0
#define RED 1
#define FRESH 0
#define SPENT 1
#define ALL EVENT_ALL_SIDES
/* The line of an order file's first body line: window_order_header writes
 * four (campaign, turn, window, side). */
#define FAM_BODY_LINE 5

static const struct hex_layout fam_layout = {
	HEX_FLAT, HEX_EVEN, 3, 6, 0
};

static struct hex
at(int col, int row)
{
	struct hex_offset o = { col, row };

	return hex_from_offset(&fam_layout, o);
}

static struct hex
hill(void)
{
	return at(1, 5);
}

static const char *
lbl(struct hex h, char *buf)
{
	struct hex_offset o = hex_to_offset(&fam_layout, h);

	/* One letter and one digit (row_base 0), as hex_label writes them:
	 * every hex of the map; anything else goes to hex_label. */
	if (o.col >= 0 && o.col < 26 && o.row >= 0 && o.row <= 9 &&
	    fam_layout.row_base == 0) {
		buf[0] = (char)('A' + o.col);
		buf[1] = (char)('0' + o.row);
		buf[2] = '\0';
		return buf;
	}
	return hex_label(&fam_layout, h, buf, 8);
}

static bool
in_wood(struct hex h)
{
	return hex_to_offset(&fam_layout, h).row == 0;
}

void
fam_parsed_init(struct fam_orders *o)
{
	int i;

	memset(o, 0, sizeof *o);
	for (i = 0; i < FAM_SECTIONS; i++)
		o->move_line[i] = o->fire_line[i] = o->deploy_line[i] = 0;
	o->pc_deploy = -1;
	o->cmd = -1;
}

/* The seed's drill, which fam's rules are written for: the board row by
 * row (W wood, . open, F forming-up line, H hill, - no hex) and the units
 * in order. A scenario file must have exactly these; it may relabel the
 * sides. */
static const char *const drill_rows[6] = { "WWW", "...", "...", "...",
	"FFF", "-H-" };
static const struct {
	const char *id, *kind, *side, *at, *carried_by;
} drill_units[] = {
	{ "1", "section", "blue", "-", "" },
	{ "2", "section", "blue", "-", "" },
	{ "3", "section", "blue", "-", "" },
	{ "pc", "commander", "blue", "-", "1" },
	{ "red", "section", "red", "B5", "" },
};

/* The terrain name of a drill letter. */
static const char *
drill_terrain(char c)
{
	switch (c) {
	case 'W':
		return "wood";
	case 'F':
		return "fup";
	case 'H':
		return "hill";
	case '-':
		return "none";
	default:
		return "open";
	}
}

/* Check that sc is the drill (board, sides, units); the number of
 * complaints, each made with its line. */
static int
fam_check_drill(const struct scenario *sc)
{
	size_t k, nu = sizeof drill_units / sizeof drill_units[0];
	int row, col, bad = 0;

	if (sc->cols != 3 || sc->rows != 6) {
		scenario_error(sc, sc->map_line, "map: fire-and-movement's "
		    "rules are written for the seed's 3 x 6 board");
		return 1;
	}
	for (row = 0; row < 6 && row < sc->nterrain; row++)
		for (col = 0; col < 3; col++) {
			unsigned char c = (unsigned char)sc->terrain[row][col];
			const char *want = drill_terrain(drill_rows[row][col]);

			if (strcmp(sc->legend[c], want) != 0) {
				scenario_error(sc, sc->terrain_line[row],
				    "terrain: fire-and-movement's rules need "
				    "%s in column %c of this row, not %s",
				    want, 'A' + col, sc->legend[c]);
				bad++;
			}
		}
	if (sc->nelevation > 0 || sc->roads[0] != '\0' || sc->nmarkers > 0 ||
	    sc->nvars > 0 || sc->noptions > 0 || sc->turns > 0) {
		scenario_error(sc, 0, "fire-and-movement takes no elevation, "
		    "road, marker, var, option or turns statements");
		bad++;
	}
	if (sc->nsides != 2 || strcmp(sc->sides[0].name, "blue") != 0 ||
	    strcmp(sc->sides[1].name, "red") != 0) {
		scenario_error(sc, sc->nsides ? sc->sides[0].line : 0, "side: "
		    "fire-and-movement has two sides, \"blue\" then \"red\"");
		bad++;
	}
	for (k = 0; k < nu || k < (size_t)sc->nunits; k++) {
		const struct scenario_unit *u = k < (size_t)sc->nunits ?
		    &sc->units[k] : NULL;

		if (u == NULL || k >= nu || strcmp(u->id, drill_units[k].id) ||
		    strcmp(u->kind, drill_units[k].kind) ||
		    strcmp(u->side, drill_units[k].side) ||
		    strcmp(u->at, drill_units[k].at) ||
		    strcmp(u->carried_by, drill_units[k].carried_by)) {
			scenario_error(sc, u ? u->line : 0, "unit: "
			    "fire-and-movement's rules need the units 1, 2 "
			    "and 3 (blue sections, not on the map), pc (the "
			    "blue commander, carried by 1) and red (the red "
			    "section on B5), in that order");
			return bad + 1;
		}
	}
	return bad;
}

static int
fam_setup(struct game *g, const struct scenario *sc, struct hp_error *err)
{
	/* Written out, not formatted: every simulated game is set up. */
	static const char *const section_id[FAM_SECTIONS] = { "1", "2", "3" };
	static const char *const section_name[FAM_SECTIONS] = { "1 Section",
		"2 Section", "3 Section" };
	struct game_unit *u;
	int col, row, i, bad;

	if (g->options[0] != '\0' && strcmp(g->options, "red-standing") != 0) {
		hp_seterr(err, HP_EINVAL, "unknown option '%s' (options: "
		    "red-standing)", g->options);
		return HP_EINVAL;
	}
	if ((bad = fam_check_drill(sc)) > 0) {
		hp_seterr(err, HP_EINVAL, "scenario %s: %d error%s", sc->name,
		    bad, bad == 1 ? "" : "s");
		return HP_EINVAL;
	}
	strlcpy_(g->scenario, sc->name, sizeof g->scenario);
	g->layout = fam_layout;
	for (row = 0; row < 6; row++)
		for (col = 0; col < 3; col++)
			if (drill_rows[row][col] != '-')
				game_add_hex(g, at(col, row),
				    drill_terrain(drill_rows[row][col]));
	g->nsides = 2;
	strlcpy_(g->sides[BLUE].name, "blue", sizeof g->sides[0].name);
	strlcpy_(g->sides[BLUE].label, sc->sides[0].label,
	    sizeof g->sides[0].label);
	strlcpy_(g->sides[RED].name, "red", sizeof g->sides[0].name);
	strlcpy_(g->sides[RED].label, sc->sides[1].label,
	    sizeof g->sides[0].label);
	g->sides[BLUE].ai = g->sides[RED].ai = true;
	for (i = 0; i < FAM_SECTIONS; i++) {
		u = game_add_unit(g, section_id[i], "section", section_name[i],
		    BLUE);
		u->status = FRESH;
	}
	u = game_add_unit(g, "pc", "commander", "Pl Comd", BLUE);
	u->attached = 0;
	u = game_add_unit(g, "red", "section", "Enemy section", RED);
	u->placed = true;
	u->pos = hill();
	u->status = FRESH;
	game_set_var(g, "victory", 0);
	game_set_var(g, "stage", 0);
	game_set_var(g, "assault", 0);
	g->turn = 1;
	g->window = 1;
	return HP_OK;
}

static bool
red_standing(const struct game *g)
{
	return game_option_flag(g, "red-standing");
}

static bool
fam_next_window(const struct game *g, struct window_spec *w)
{
	if (g->status == GAME_FINISHED)
		return false;
	memset(w, 0, sizeof *w);
	w->turn = g->turn;
	w->kind = WINDOW_ORDERS;
	if (game_var(g, "stage", 0) == 0) {
		w->number = 1;
		strlcpy_(w->name, "blue", sizeof w->name);
		w->sides = 1u << BLUE;
	} else {
		w->number = 2;
		strlcpy_(w->name, "red", sizeof w->name);
		w->sides = 1u << RED;
	}
	return true;
}

static int
section_arg(const char *word)
{
	if (word[0] >= '1' && word[0] <= '3' && word[1] == '\0')
		return word[0] - '1';
	return -1;
}

/* Where each section stands when phase 1 begins (after deployment). */
static void
start_positions(const struct game *g, const struct fam_orders *o,
    struct hex pos[FAM_SECTIONS], bool placed[FAM_SECTIONS])
{
	int i;

	for (i = 0; i < FAM_SECTIONS; i++) {
		placed[i] = g->units[i].placed || o->deploy_line[i] != 0;
		pos[i] = g->units[i].placed ? g->units[i].pos : o->deploy[i];
	}
}

/* The section the commander is with when phase 1 begins. */
static int
start_pc(const struct game *g, const struct fam_orders *o)
{
	if (!g->units[FAM_PC].placed && o->pc_deploy >= 0)
		return o->pc_deploy;
	return g->units[FAM_PC].attached;
}

/* Parse a hex argument that must be on the map. */
static bool
hex_arg(const struct game *g, const struct order_line *l, int word,
    struct hex *h, struct order_errors *errs)
{
	if (!hex_parse_label(&g->layout, l->words[word], h) ||
	    !game_on_map(g, *h)) {
		orders_error(errs, l->lineno, "expected a hex of the map (A0-C4 "
		    "or B5), got '%s'", l->words[word]);
		return false;
	}
	return true;
}

static void
parse_blue(const struct game *g, const struct order_body *b,
    struct fam_orders *o, struct order_errors *errs)
{
	struct hex pos[FAM_SECTIONS], after[FAM_SECTIONS];
	bool placed[FAM_SECTIONS];
	int pc_line = 0, s, pc;
	size_t k;
	char a[8], c[8];

	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];
		const char *verb = l->words[0];

		if (strcmp(verb, "deploy") == 0) {
			if (l->nwords != 3) {
				orders_error(errs, l->lineno, "expected 'deploy "
				    "SECTION HEX' or 'deploy pc SECTION'");
				continue;
			}
			if (g->units[0].placed) {
				orders_error(errs, l->lineno, "deployment was in "
				    "turn 1; the platoon is already deployed");
				continue;
			}
			if (strcmp(l->words[1], "pc") == 0) {
				if ((s = section_arg(l->words[2])) < 0) {
					orders_error(errs, l->lineno, "expected "
					    "a section (1, 2 or 3) for the Pl "
					    "Comd, got '%s'", l->words[2]);
					continue;
				}
				if (o->pc_deploy >= 0) {
					orders_error(errs, l->lineno, "the Pl "
					    "Comd is already deployed");
					continue;
				}
				o->pc_deploy = s;
				continue;
			}
			if ((s = section_arg(l->words[1])) < 0) {
				orders_error(errs, l->lineno, "expected a section "
				    "(1, 2 or 3) or 'pc', got '%s'",
				    l->words[1]);
				continue;
			}
			if (o->deploy_line[s]) {
				orders_error(errs, l->lineno, "%d Section is "
				    "already deployed on line %d", s + 1,
				    o->deploy_line[s]);
				continue;
			}
			if (!hex_arg(g, l, 2, &o->deploy[s], errs))
				continue;
			if (!in_wood(o->deploy[s])) {
				orders_error(errs, l->lineno, "sections deploy "
				    "in the wood (A0, B0 or C0), not %s",
				    l->words[2]);
				continue;
			}
			o->deploy_line[s] = l->lineno;
		} else if (strcmp(verb, "move") == 0) {
			if (l->nwords != 3 ||
			    (s = section_arg(l->words[1])) < 0) {
				orders_error(errs, l->lineno, "expected 'move "
				    "SECTION HEX' with SECTION 1, 2 or 3");
				continue;
			}
			if (o->move_line[s]) {
				orders_error(errs, l->lineno, "%d Section "
				    "already moves on line %d", s + 1,
				    o->move_line[s]);
				continue;
			}
			if (!hex_arg(g, l, 2, &o->move_to[s], errs))
				continue;
			o->move_line[s] = l->lineno;
		} else if (strcmp(verb, "fire") == 0) {
			if (l->nwords != 2 ||
			    (s = section_arg(l->words[1])) < 0) {
				orders_error(errs, l->lineno, "expected 'fire "
				    "SECTION' with SECTION 1, 2 or 3");
				continue;
			}
			if (o->fire_line[s]) {
				orders_error(errs, l->lineno, "%d Section "
				    "already fires on line %d", s + 1,
				    o->fire_line[s]);
				continue;
			}
			o->fire_line[s] = l->lineno;
		} else if (strcmp(verb, "commander") == 0) {
			if (l->nwords != 2 ||
			    (s = section_arg(l->words[1])) < 0) {
				orders_error(errs, l->lineno, "expected "
				    "'commander SECTION' with SECTION 1, 2 or 3");
				continue;
			}
			if (pc_line) {
				orders_error(errs, l->lineno, "the Pl Comd "
				    "already has an order on line %d", pc_line);
				continue;
			}
			o->cmd = s;
			pc_line = l->lineno;
		} else
			orders_error(errs, l->lineno, "unknown order '%s'; "
			    "expected deploy, move, fire or commander", verb);
	}

	/* Checks against the state of the game. */
	if (!g->units[0].placed)
		for (s = 0; s < FAM_SECTIONS; s++)
			if (!o->deploy_line[s])
				orders_error(errs, 0, "turn 1: missing 'deploy "
				    "%d HEX' (A0, B0 or C0)", s + 1);
	start_positions(g, o, pos, placed);
	for (s = 0; s < FAM_SECTIONS; s++) {
		after[s] = pos[s];
		if (o->move_line[s]) {
			if (g->units[s].status == SPENT)
				orders_error(errs, o->move_line[s], "%d Section "
				    "is spent and may not move", s + 1);
			else if (o->fire_line[s])
				orders_error(errs, o->move_line[s], "%d Section "
				    "cannot both move and fire (either makes it "
				    "spent)", s + 1);
			else if (placed[s] && !hex_adjacent(pos[s],
			    o->move_to[s]))
				orders_error(errs, o->move_line[s], "%s is not "
				    "adjacent to %s, where %d Section is",
				    lbl(o->move_to[s], a), lbl(pos[s], c), s + 1);
			after[s] = o->move_to[s];
		}
		if (o->fire_line[s] && g->units[s].status == SPENT)
			orders_error(errs, o->fire_line[s], "%d Section is spent "
			    "and may not fire", s + 1);
	}
	if (o->cmd >= 0 && (pc = start_pc(g, o)) >= 0 && o->cmd != pc &&
	    !hex_eq(pos[o->cmd], pos[pc])) {
		/* A transfer to an adjacent hex, after movement; a section
		 * that ends its move in his hex he simply joins. */
		if (hex_eq(after[pc], after[o->cmd]))
			;
		else if (o->move_line[pc] || g->units[pc].status == SPENT)
			orders_error(errs, pc_line, "the Pl Comd can only leave "
			    "a fresh section that does not move (%d Section "
			    "%s)", pc + 1, o->move_line[pc] ? "moves" :
			    "is spent");
		else if (!hex_adjacent(after[pc], after[o->cmd]))
			orders_error(errs, pc_line, "%d Section will be in %s, "
			    "not adjacent to the Pl Comd in %s", o->cmd + 1,
			    lbl(after[o->cmd], a), lbl(after[pc], c));
	}
}

static void
parse_red(const struct game *g, const struct window_spec *w,
    const struct order_body *b, struct fam_orders *o,
    struct order_errors *errs)
{
	int target_line = 0, beaten_line = 0, cmd_line = 0, i;
	bool standing = strcmp(w->name, "standing") == 0;
	size_t k;
	char a[8];

	o->engage_cmd = -1;
	for (k = 0; k < b->n; k++) {
		const struct order_line *l = &b->v[k];
		const char *verb = l->words[0];

		if (standing && strcmp(verb, "policy") == 0) {
			if (l->nwords != 2 || (strcmp(l->words[1], "best") &&
			    strcmp(l->words[1], "nearest") &&
			    strcmp(l->words[1], "hold"))) {
				orders_error(errs, l->lineno, "expected 'policy "
				    "best', 'policy nearest' or 'policy hold'");
				continue;
			}
			o->policy = strcmp(l->words[1], "best") == 0 ?
			    FAM_POLICY_BEST : strcmp(l->words[1], "nearest") ==
			    0 ? FAM_POLICY_NEAREST : FAM_POLICY_HOLD;
		} else if (!standing && strcmp(verb, "target") == 0) {
			if (l->nwords != 2) {
				orders_error(errs, l->lineno, "expected 'target "
				    "HEX'");
				continue;
			}
			if (target_line) {
				orders_error(errs, l->lineno, "only one target "
				    "hex (already on line %d)", target_line);
				continue;
			}
			if (!hex_arg(g, l, 1, &o->target, errs))
				continue;
			o->has_target = true;
			target_line = l->lineno;
		} else if (!standing && strcmp(verb, "beaten") == 0) {
			if (l->nwords != 2) {
				orders_error(errs, l->lineno, "expected 'beaten "
				    "HEX'");
				continue;
			}
			if (beaten_line) {
				orders_error(errs, l->lineno, "only one beaten "
				    "zone hex (already on line %d)",
				    beaten_line);
				continue;
			}
			if (!hex_arg(g, l, 1, &o->beaten, errs))
				continue;
			o->has_beaten = true;
			beaten_line = l->lineno;
		} else if (!standing && strcmp(verb, "hold") == 0 &&
		    l->nwords == 1) {
			o->hold = true;
		} else if (strcmp(verb, "commander") == 0) {
			if (l->nwords != 2 || (strcmp(l->words[1], "yes") &&
			    strcmp(l->words[1], "no"))) {
				orders_error(errs, l->lineno, "expected "
				    "'commander yes' or 'commander no'");
				continue;
			}
			if (cmd_line) {
				orders_error(errs, l->lineno, "commander "
				    "already given on line %d", cmd_line);
				continue;
			}
			cmd_line = l->lineno;
			o->engage_cmd = strcmp(l->words[1], "yes") == 0;
		} else
			orders_error(errs, l->lineno, "unknown order '%s'; "
			    "expected %s", verb, standing ? "policy or "
			    "commander" : "target, beaten, commander or hold");
	}
	if (standing) {
		if (o->policy == FAM_POLICY_NONE)
			orders_error(errs, 0, "standing orders need a 'policy' "
			    "line");
		return;
	}
	if (o->hold && (o->has_target || o->has_beaten)) {
		orders_error(errs, 0, "'hold' cannot go with a target");
		return;
	}
	if (!o->hold && !o->has_target && g->units[FAM_RED].status == FRESH)
		orders_error(errs, 0, "missing 'target HEX' (or 'hold' to "
		    "hold fire)");
	if (o->has_beaten && !o->has_target)
		orders_error(errs, beaten_line, "a beaten zone needs a target");
	if (o->has_target) {
		bool found = false, found_b = false;

		for (i = 0; i < FAM_SECTIONS; i++) {
			if (hex_eq(g->units[i].pos, o->target))
				found = true;
			if (o->has_beaten &&
			    hex_eq(g->units[i].pos, o->beaten))
				found_b = true;
		}
		if (!found)
			orders_error(errs, target_line, "no Blue section in %s",
			    lbl(o->target, a));
		if (o->has_beaten) {
			if (!found_b)
				orders_error(errs, beaten_line, "no Blue section "
				    "in %s", lbl(o->beaten, a));
			else if (!hex_adjacent(o->target, o->beaten))
				orders_error(errs, beaten_line, "the beaten zone "
				    "%s must be adjacent to the target",
				    lbl(o->beaten, a));
		}
	}
}

/* Write the normalised form of parsed orders. */
static void
canon_write(const struct game *g, const struct fam_orders *o, int side,
    struct sbuf *c)
{
	char a[8];
	int s;

	if (side == BLUE) {
		for (s = 0; s < FAM_SECTIONS; s++)
			if (o->deploy_line[s])
				sbuf_printf(c, "deploy %d %s\n", s + 1,
				    lbl(o->deploy[s], a));
		if (o->pc_deploy >= 0)
			sbuf_printf(c, "deploy pc %d\n", o->pc_deploy + 1);
		if (o->cmd >= 0)
			sbuf_printf(c, "commander %d\n", o->cmd + 1);
		for (s = 0; s < FAM_SECTIONS; s++)
			if (o->move_line[s])
				sbuf_printf(c, "move %d %s\n", s + 1,
				    lbl(o->move_to[s], a));
		for (s = 0; s < FAM_SECTIONS; s++)
			if (o->fire_line[s])
				sbuf_printf(c, "fire %d\n", s + 1);
		return;
	}
	if (o->policy != FAM_POLICY_NONE)
		sbuf_printf(c, "policy %s\n", o->policy == FAM_POLICY_BEST ?
		    "best" : o->policy == FAM_POLICY_NEAREST ? "nearest" :
		    "hold");
	if (o->hold)
		sbuf_puts(c, "hold\n");
	if (o->has_target)
		sbuf_printf(c, "target %s\n", lbl(o->target, a));
	if (o->has_beaten)
		sbuf_printf(c, "beaten %s\n", lbl(o->beaten, a));
	if (o->engage_cmd >= 0)
		sbuf_printf(c, "commander %s\n", o->engage_cmd ? "yes" : "no");
	(void)g;
}

static int
fam_parse(const struct game *g, const struct window_spec *w, int side,
    const struct order_body *b, void **out, struct sbuf *canon,
    struct order_errors *errs)
{
	struct fam_orders *o = xcalloc(1, sizeof *o);
	size_t before = errs->n;

	fam_parsed_init(o);
	o->side = side;
	if (strcmp(w->name, "standing") == 0) {
		if (side != RED)
			orders_error(errs, 0, "only Red gives standing orders");
		else if (!red_standing(g))
			orders_error(errs, 0, "this campaign does not use "
			    "standing orders (option red-standing)");
		else
			parse_red(g, w, b, o, errs);
		o->standing = true;
	} else if (side == BLUE)
		parse_blue(g, b, o, errs);
	else
		parse_red(g, w, b, o, errs);
	if (errs->n > before) {
		free(o);
		*out = NULL;
		return HP_EINVAL;
	}
	if (!canon->discard)  /* nobody reads it: not written */
		canon_write(g, o, side, canon);
	*out = o;
	return HP_OK;
}

static void
fam_free_orders(void *p)
{
	free(p);
}

/* The purpose of a roll, for the dice log, into buf (DICE_PURPOSE_MAX
 * bytes); empty in a simulation, which reads no log (the dice do not
 * depend on it). */
static void purpose_of(const struct resolve_ctx *c, char *buf,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
purpose_of(const struct resolve_ctx *c, char *buf, const char *fmt, ...)
{
	va_list ap;

	buf[0] = '\0';
	if (c->ev->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, DICE_PURPOSE_MAX, fmt, ap);
	va_end(ap);
}

/* Raise the victory counter by one; true if Red has now won. */
static bool
victory_add(struct resolve_ctx *c, const char *why)
{
	int v = game_var(c->g, "victory", 0) + 1;

	game_set_var(c->g, "victory", v);
	events_add(c->ev, ALL, 0, "Victory counter +1 (%s): now %d.", why, v);
	return v >= 16;
}

static bool
game_over(const struct game *g)
{
	return game_var(g, "victory", 0) >= 16 || game_var(g, "assault", 0);
}

static void
phase_deploy_move(struct resolve_ctx *c, const struct fam_orders *o)
{
	struct game *g = c->g;
	struct game_unit *pc = &g->units[FAM_PC];
	char a[8], b[8];
	int s;

	if (!g->units[0].placed) {
		events_phase(c->ev, "Deployment");
		for (s = 0; s < FAM_SECTIONS; s++) {
			g->units[s].placed = true;
			g->units[s].pos = o->deploy[s];
			events_add(c->ev, ALL, 0, "%d Section deploys in %s.",
			    s + 1, lbl(o->deploy[s], a));
		}
		pc->placed = true;
		pc->attached = o->pc_deploy >= 0 ? o->pc_deploy : 0;
		pc->pos = g->units[pc->attached].pos;
		events_add(c->ev, ALL, 0, "The Pl Comd is with %d Section.",
		    pc->attached + 1);
	}
	events_phase(c->ev, "Phase 1: movement");
	if (o->cmd >= 0 && o->cmd != pc->attached &&
	    hex_eq(g->units[o->cmd].pos, pc->pos)) {
		pc->attached = o->cmd;
		events_add(c->ev, ALL, 0, "The Pl Comd joins %d Section in his "
		    "own hex %s (not a move).", o->cmd + 1, lbl(pc->pos, a));
	}
	for (s = 0; s < FAM_SECTIONS; s++) {
		struct game_unit *u = &g->units[s];

		if (!o->move_line[s])
			continue;
		events_add(c->ev, ALL, 0, "%d Section moves %s -> %s and is "
		    "spent.", s + 1, lbl(u->pos, a), lbl(o->move_to[s], b));
		u->pos = o->move_to[s];
		u->status = SPENT;
		if (pc->attached == s) {
			pc->pos = u->pos;
			events_add(c->ev, ALL, 0, "The Pl Comd moves with it.");
		}
		if (hex_eq(u->pos, hill()))
			game_set_var(g, "assault", s + 1);
	}
	if (game_var(g, "assault", 0)) {
		events_add(c->ev, ALL, 0, "%d Section assaults the hill at B5!",
		    game_var(g, "assault", 0));
		return;
	}
	if (o->cmd >= 0 && o->cmd != pc->attached) {
		bool join = hex_eq(pc->pos, g->units[o->cmd].pos);

		pc->attached = o->cmd;
		pc->pos = g->units[o->cmd].pos;
		events_add(c->ev, ALL, 0, "The Pl Comd %s %d Section in %s.",
		    join ? "joins" : "transfers to", o->cmd + 1,
		    lbl(pc->pos, a));
	}
	if (!o->move_line[0] && !o->move_line[1] && !o->move_line[2])
		events_add(c->ev, ALL, 0, "No section moves.");
}

static void
phase_fire(struct resolve_ctx *c, const struct fam_orders *o)
{
	struct game *g = c->g;
	char purpose[DICE_PURPOSE_MAX], a[8];
	int s, range, roll;
	bool suppressed = false;

	events_phase(c->ev, "Phase 2: firing");
	for (s = 0; s < FAM_SECTIONS; s++) {
		struct game_unit *u = &g->units[s];

		if (!o->fire_line[s])
			continue;
		range = hex_distance(u->pos, hill());
		purpose_of(c, purpose, "%d Section fires from %s at "
		    "range %d to suppress the hill", s + 1, lbl(u->pos, a),
		    range);
		roll = dice_roll(c->dice, 6, range + 1, purpose);
		u->status = SPENT;
		if (roll > range) {
			suppressed = true;
			events_add(c->ev, ALL, (int)c->dice->nlog, "%d Section "
			    "fires from %s (range %d, needs %d+): rolls %d, the "
			    "enemy is suppressed.", s + 1, lbl(u->pos, a), range,
			    range + 1, roll);
		} else
			events_add(c->ev, ALL, (int)c->dice->nlog, "%d Section "
			    "fires from %s (range %d, needs %d+): rolls %d, no "
			    "effect.", s + 1, lbl(u->pos, a), range,
			    range + 1, roll);
	}
	if (suppressed)
		g->units[FAM_RED].status = SPENT;
	if (!o->fire_line[0] && !o->fire_line[1] && !o->fire_line[2])
		events_add(c->ev, ALL, 0, "No section fires.");
}

static void
phase_rally(struct resolve_ctx *c)
{
	struct game *g = c->g;
	struct hex pc = g->units[FAM_PC].pos;
	char purpose[DICE_PURPOSE_MAX], a[8];
	int s, d, roll;
	bool any = false;

	events_phase(c->ev, "Phase 3: rally");
	for (s = 0; s < FAM_SECTIONS; s++) {
		struct game_unit *u = &g->units[s];

		if (u->status != SPENT)
			continue;
		any = true;
		if (hex_eq(u->pos, pc)) {
			u->status = FRESH;
			events_add(c->ev, ALL, 0, "%d Section in %s is with the "
			    "Pl Comd and rallies.", s + 1, lbl(u->pos, a));
			continue;
		}
		if (hex_adjacent(u->pos, hill())) {
			events_add(c->ev, ALL, 0, "%d Section in %s is adjacent "
			    "to the enemy and stays spent.", s + 1,
			    lbl(u->pos, a));
			continue;
		}
		d = hex_distance(u->pos, pc);
		purpose_of(c, purpose, "%d Section in %s rallies, "
		    "%d hex%s from the Pl Comd", s + 1, lbl(u->pos, a), d,
		    d == 1 ? "" : "es");
		roll = dice_roll(c->dice, 6, d + 1, purpose);
		if (roll > d)
			u->status = FRESH;
		events_add(c->ev, ALL, (int)c->dice->nlog, "%d Section in %s, "
		    "%d from the Pl Comd (needs %d+): rolls %d, %s.", s + 1,
		    lbl(u->pos, a), d, d + 1, roll, roll > d ? "fresh again" :
		    "stays spent");
	}
	if (!any)
		events_add(c->ev, ALL, 0, "No section is spent.");
}

/* Expected hits of firing at target with beaten zone bz (or none). */
static double
red_expect(const struct game *g, struct hex target, const struct hex *bz,
    bool cmd)
{
	double e = 0, p_with = 0;
	struct hex pch = g->units[FAM_PC].pos;
	int s, pcs = g->units[FAM_PC].attached;

	for (s = 0; s < FAM_SECTIONS; s++) {
		struct hex h = g->units[s].pos;

		if (hex_eq(h, target) || (bz && hex_eq(h, *bz))) {
			double p = (7 - hex_distance(h, hill())) / 6.0;

			e += p;
			if (s == pcs)
				p_with = p;
		}
	}
	if (cmd && (hex_eq(pch, target) || (bz && hex_eq(pch, *bz))))
		e += (7 - hex_distance(pch, hill())) / 6.0 * (1 - p_with);
	return e;
}

/* Red's choice of fire: the target and beaten zone with the most expected
 * hits (policy best) or the nearest section's hex (policy nearest). */
void
fam_red_choose(const struct game *g, int policy, struct fam_orders *o)
{
	double best = -1;
	int s, t, d;

	o->has_target = o->has_beaten = false;
	o->engage_cmd = 1;
	if (policy == FAM_POLICY_HOLD) {
		o->hold = true;
		return;
	}
	for (s = 0; s < FAM_SECTIONS; s++) {
		struct hex target = g->units[s].pos;
		double e;

		if (!g->units[s].placed)
			continue;
		if (policy == FAM_POLICY_NEAREST) {
			int dist = hex_distance(target, hill());

			if (best < 0 || dist < best) {
				best = dist;
				o->target = target;
				o->has_target = true;
			}
			continue;
		}
		e = red_expect(g, target, NULL, true);
		if (e > best + 1e-9) {
			best = e;
			o->target = target;
			o->has_target = true;
			o->has_beaten = false;
		}
		for (t = 0; t < FAM_SECTIONS; t++) {
			struct hex bz = g->units[t].pos;

			if (!hex_adjacent(target, bz))
				continue;
			e = red_expect(g, target, &bz, true);
			if (e > best + 1e-9) {
				best = e;
				o->target = target;
				o->beaten = bz;
				o->has_target = o->has_beaten = true;
			}
		}
	}
	if (policy == FAM_POLICY_NEAREST && o->has_target) {
		/* The beaten zone: the adjacent hex with most sections. */
		int most = 0;

		for (t = 0; t < FAM_SECTIONS; t++) {
			struct hex bz = g->units[t].pos;
			int n = 0;

			if (!hex_adjacent(o->target, bz))
				continue;
			for (d = 0; d < FAM_SECTIONS; d++)
				n += hex_eq(g->units[d].pos, bz);
			if (n > most) {
				most = n;
				o->beaten = bz;
				o->has_beaten = true;
			}
		}
	}
}

static void
phase_enemy(struct resolve_ctx *c, const struct fam_orders *given)
{
	struct game *g = c->g;
	struct game_unit *red = &g->units[FAM_RED], *pc = &g->units[FAM_PC];
	struct fam_orders o;
	char purpose[DICE_PURPOSE_MAX], a[8];
	bool hit_with_pc = false;
	int pass, s, d, roll;

	events_phase(c->ev, "Phase 4: enemy action");
	if (red->status == SPENT) {
		red->status = FRESH;
		events_add(c->ev, ALL, 0, "The enemy section was suppressed: it "
		    "recovers and does not fire.");
		return;
	}
	if (given != NULL && !given->standing)
		o = *given;
	else {
		fam_parsed_init(&o);
		fam_red_choose(g, given ? given->policy : FAM_POLICY_BEST, &o);
		if (given != NULL && given->engage_cmd >= 0)
			o.engage_cmd = given->engage_cmd;
		events_add(c->ev, ALL, 0, "Red fires by its %s policy.",
		    given == NULL ? "default" : given->policy ==
		    FAM_POLICY_NEAREST ? "standing 'nearest'" : given->policy ==
		    FAM_POLICY_HOLD ? "standing 'hold'" : "standing 'best'");
	}
	if (o.hold || !o.has_target) {
		events_add(c->ev, ALL, 0, "The enemy holds its fire.");
		return;
	}
	events_add(c->ev, ALL, 0, "The enemy fires on %s%s%s.",
	    lbl(o.target, a), o.has_beaten ? " with a beaten zone in " : "",
	    o.has_beaten ? hex_label(&fam_layout, o.beaten, purpose, 8) : "");
	for (pass = 0; pass < 2; pass++) {
		struct hex h = pass == 0 ? o.target : o.beaten;

		if (pass == 1 && !o.has_beaten)
			break;
		for (s = 0; s < FAM_SECTIONS; s++) {
			struct game_unit *u = &g->units[s];

			if (!hex_eq(u->pos, h))
				continue;
			d = hex_distance(h, hill());
			purpose_of(c, purpose, "Red fires on %d "
			    "Section in %s at range %d", s + 1, lbl(h, a), d);
			roll = dice_roll(c->dice, 6, d, purpose);
			if (roll >= d) {
				events_add(c->ev, ALL, (int)c->dice->nlog,
				    "%d Section in %s (range %d, needs %d+): "
				    "rolls %d, hit%s.", s + 1, lbl(h, a), d, d,
				    roll, u->status == SPENT ?
				    " (already spent)" : ", now spent");
				u->status = SPENT;
				if (s == pc->attached)
					hit_with_pc = true;
				if (victory_add(c, "a section hit"))
					return;
			} else
				events_add(c->ev, ALL, (int)c->dice->nlog,
				    "%d Section in %s (range %d, needs %d+): "
				    "rolls %d, no effect.", s + 1, lbl(h, a), d,
				    d, roll);
		}
	}
	if (o.engage_cmd > 0 && (hex_eq(pc->pos, o.target) ||
	    (o.has_beaten && hex_eq(pc->pos, o.beaten)))) {
		d = hex_distance(pc->pos, hill());
		purpose_of(c, purpose, "Red engages the Pl Comd in "
		    "%s at range %d", lbl(pc->pos, a), d);
		roll = dice_roll(c->dice, 6, d, purpose);
		if (roll < d)
			events_add(c->ev, ALL, (int)c->dice->nlog, "The Pl Comd "
			    "(range %d, needs %d+): rolls %d, no effect.", d, d,
			    roll);
		else if (hit_with_pc)
			events_add(c->ev, ALL, (int)c->dice->nlog, "The Pl Comd "
			    "(range %d, needs %d+): rolls %d, hit, but his "
			    "section was hit: no extra count.", d, d, roll);
		else {
			events_add(c->ev, ALL, (int)c->dice->nlog, "The Pl Comd "
			    "(range %d, needs %d+): rolls %d, hit.", d, d, roll);
			if (victory_add(c, "the Pl Comd hit"))
				return;
		}
	}
}

static void
end_of_turn(struct resolve_ctx *c)
{
	struct game *g = c->g;

	events_phase(c->ev, "End of turn");
	g->units[FAM_RED].status = FRESH;
	if (victory_add(c, "the turn elapsed"))
		return;
	g->turn++;
	game_set_var(g, "stage", 0);
}

static enum resolve_rc
fam_resolve(struct resolve_ctx *c)
{
	struct game *g = c->g;
	const struct fam_orders *blue = c->orders[BLUE];
	const struct fam_orders *red = c->orders[RED];

	if (strcmp(c->w->name, "red") == 0) {
		phase_enemy(c, red);
		if (!game_over(g))
			end_of_turn(c);
		return RESOLVE_DONE;
	}
	if (blue == NULL) {
		hp_seterr(c->err, HP_EINTERNAL, "no Blue orders to resolve");
		return RESOLVE_ERROR;
	}
	switch (c->step) {
	case 0:
		phase_deploy_move(c, blue);
		break;
	case 1:
		phase_fire(c, blue);
		break;
	case 2:
		phase_rally(c);
		break;
	default:
		if (g->units[FAM_RED].status == FRESH && !red_standing(g)) {
			game_set_var(g, "stage", 1);
			return RESOLVE_DONE;
		}
		phase_enemy(c, red);
		if (!game_over(g))
			end_of_turn(c);
		return RESOLVE_DONE;
	}
	return game_over(g) ? RESOLVE_DONE : RESOLVE_CONTINUE;
}

static void
fam_victory(struct game *g, struct events *ev)
{
	int v = game_var(g, "victory", 0);

	if (g->status == GAME_FINISHED)
		return;
	if (v >= 16) {
		g->status = GAME_FINISHED;
		snprintf(g->result, sizeof g->result, "Red wins: the victory "
		    "counter reached %d", v);
	} else if (game_var(g, "assault", 0)) {
		g->status = GAME_FINISHED;
		if (v <= 10)
			snprintf(g->result, sizeof g->result, "Blue wins: the "
			    "hill was assaulted with the counter at %d", v);
		else
			snprintf(g->result, sizeof g->result, "Draw: the hill "
			    "was assaulted with the counter at %d", v);
	} else
		return;
	events_phase(ev, "Result");
	events_add(ev, ALL, 0, "%s.", g->result);
}

/* Append the order line "VERB N[ ARG]" to b (N one digit, ARG or NULL),
 * without printf: the opponent writes one every window of a simulation. */
static void
put_order(struct sbuf *b, const char *verb, int n, const char *arg)
{
	char line[64];
	size_t len = strlen(verb), alen = arg != NULL ? strlen(arg) : 0;

	/* verb and arg are short words and labels; a line too long for the
	 * buffer (never written here) is added piece by piece. */
	if (len + alen + 4 > sizeof line) {
		sbuf_puts(b, verb);
		if (arg != NULL) {
			sbuf_puts(b, " ");
			sbuf_puts(b, arg);
		}
		sbuf_puts(b, "\n");
		return;
	}
	memcpy(line, verb, len);
	if (n >= 0 && n <= 9) {
		line[len++] = ' ';
		line[len++] = (char)('0' + n);
	}
	if (arg != NULL) {
		line[len++] = ' ';
		memcpy(line + len, arg, alen);
		len += alen;
	}
	line[len++] = '\n';
	sbuf_add(b, line, len);
}

/* Blue's orders from the built-in opponent: assault from the FUP whenever a
 * fresh section can; the commander's section advances; the others suppress
 * when the odds are fair and otherwise close in. With o (NULL: text only),
 * o is filled as parse_blue fills it from the file these lines end: the
 * body starts on line FAM_BODY_LINE, one order a line. */
static void
blue_opponent(const struct game *g, struct sbuf *b, struct fam_orders *o)
{
	static const int deploy_col[FAM_SECTIONS] = { 0, 1, 2 };
	struct hex pos[FAM_SECTIONS];
	int s, pcs, best, d, n, dir, firing = 0, line = FAM_BODY_LINE;
	bool placed = g->units[0].placed;
	char a[8];

	for (s = 0; s < FAM_SECTIONS; s++) {
		pos[s] = placed ? g->units[s].pos : at(deploy_col[s], 0);
		if (!placed) {
			put_order(b, "deploy", s + 1, lbl(pos[s], a));
			if (o != NULL) {
				o->deploy_line[s] = line++;
				o->deploy[s] = pos[s];
			}
		}
	}
	if (!placed) {
		sbuf_puts(b, "deploy pc 2\n");
		if (o != NULL) {
			o->pc_deploy = 1;
			line++;
		}
	}
	pcs = placed ? g->units[FAM_PC].attached : 1;
	/* Assault if a fresh section stands in the FUP. */
	for (s = 0; s < FAM_SECTIONS; s++)
		if (g->units[s].status == FRESH &&
		    hex_adjacent(pos[s], hill())) {
			put_order(b, "move", s + 1, "B5");
			if (o != NULL) {
				o->move_line[s] = line++;
				o->move_to[s] = hill();
			}
			return;
		}
	/* A spent commander's section: join a fresh one in the same hex. */
	if (g->units[pcs].status == SPENT)
		for (s = 0; s < FAM_SECTIONS; s++)
			if (s != pcs && g->units[s].status == FRESH &&
			    hex_eq(pos[s], pos[pcs])) {
				put_order(b, "commander", s + 1, NULL);
				if (o != NULL) {
					o->cmd = s;
					line++;
				}
				pcs = s;
				break;
			}
	for (s = 0; s < FAM_SECTIONS; s++) {
		int range = hex_distance(pos[s], hill());

		if (g->units[s].status != FRESH)
			continue;
		if (s != pcs && (range <= 3 || firing == 0)) {
			put_order(b, "fire", s + 1, NULL);
			if (o != NULL)
				o->fire_line[s] = line++;
			firing++;
			continue;
		}
		/* Advance one hex towards the hill (never into it: the
		 * assault is decided above). */
		best = -1;
		n = range;
		for (dir = 0; dir < 6; dir++) {
			struct hex h = hex_neighbour(pos[s], dir);

			if (!game_on_map(g, h) || hex_eq(h, hill()))
				continue;
			d = hex_distance(h, hill());
			if (d < n) {
				n = d;
				best = dir;
			}
		}
		if (best >= 0) {
			struct hex to = hex_neighbour(pos[s], best);

			put_order(b, "move", s + 1, lbl(to, a));
			if (o != NULL) {
				o->move_line[s] = line++;
				o->move_to[s] = to;
			}
		} else if (s != pcs) {
			put_order(b, "fire", s + 1, NULL);
			if (o != NULL)
				o->fire_line[s] = line++;
			firing++;
		}
	}
}

/* Red's orders from the built-in opponent (its best fire, the Pl Comd
 * engaged); with o (NULL: text only), o filled as parse_red fills it. */
static void
red_opponent(const struct game *g, struct sbuf *b, struct fam_orders *o)
{
	struct fam_orders c;
	char a[8];

	fam_parsed_init(&c);
	fam_red_choose(g, FAM_POLICY_BEST, &c);
	if (o != NULL)
		o->engage_cmd = -1;
	if (!c.has_target) {
		sbuf_puts(b, "hold\n");
		if (o != NULL)
			o->hold = true;
		return;
	}
	put_order(b, "target", -1, lbl(c.target, a));
	if (c.has_beaten)
		put_order(b, "beaten", -1, lbl(c.beaten, a));
	sbuf_puts(b, "commander yes\n");
	if (o != NULL) {
		o->has_target = true;
		o->target = c.target;
		o->has_beaten = c.has_beaten;
		if (c.has_beaten)
			o->beaten = c.beaten;
		o->engage_cmd = 1;
	}
}

static void
fam_opponent(const struct game *g, const struct window_spec *w, int side,
    struct sbuf *b)
{
	(void)w;
	if (side == BLUE)
		blue_opponent(g, b, NULL);
	else
		red_opponent(g, b, NULL);
}

/* fam_opponent's lines, and the orders fam_parse makes of them (caller
 * frees with fam_free_orders): simulate resolves these instead of parsing
 * the text back. tests/unit/test_fam.c compares them with the parse of
 * the file, window by window. */
static void *
fam_opponent_parsed(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	struct fam_orders *o = xmalloc(sizeof *o);

	(void)w;
	fam_parsed_init(o);  /* clears it whole, padding included */
	o->side = side;
	if (side == BLUE)
		blue_opponent(g, b, o);
	else
		red_opponent(g, b, o);
	return o;
}

/* The text of one hex: label and terrain, then its units. */
static void
cell_text(const struct game *g, struct hex h, char line[2][8])
{
	const struct game_hex *gh = game_hex_at_c(g, h);
	char units[32] = "", a[8];
	size_t n = 0;
	int s;

	snprintf(line[0], 8, "%s %c", lbl(h, a), gh == NULL ? ' ' :
	    strcmp(gh->terrain, "wood") == 0 ? 'W' :
	    strcmp(gh->terrain, "hill") == 0 ? 'H' :
	    strcmp(gh->terrain, "fup") == 0 ? 'F' : ' ');
	for (s = 0; s < g->nunits; s++) {
		const struct game_unit *u = &g->units[s];

		if (!u->placed || !hex_eq(u->pos, h))
			continue;
		if (s == FAM_PC)
			n += (size_t)snprintf(units + n, sizeof units - n, "P");
		else if (s == FAM_RED)
			n += (size_t)snprintf(units + n, sizeof units - n, "%s",
			    u->status == SPENT ? "R*" : "R");
		else
			n += (size_t)snprintf(units + n, sizeof units - n,
			    "%d%s", s + 1, u->status == SPENT ? "*" : "");
	}
	if (strlen(units) > 5) {
		/* Too many to mark: drop the spent marks, the table has them. */
		char *p, *q;

		for (p = q = units; *p; p++)
			if (*p != '*')
				*q++ = *p;
		*q = '\0';
	}
	snprintf(line[1], 8, "%.5s", units);
}

struct fam_render {
	const struct game *g;
};

static bool
render_exists(void *arg, struct hex h)
{
	return game_on_map(((struct fam_render *)arg)->g, h);
}

static void
render_cell(void *arg, struct hex h, struct render_cell *cell)
{
	char line[2][8];

	cell_text(((struct fam_render *)arg)->g, h, line);
	snprintf(cell->line[0], sizeof cell->line[0], "%.5s", line[0]);
	snprintf(cell->line[1], sizeof cell->line[1], "%.5s", line[1]);
}

static void
fam_render_map(const struct game *g, int side, struct sbuf *b)
{
	struct fam_render fr = { g };
	struct render_map m;
	char a[8];
	int s;

	(void)side;
	memset(&m, 0, sizeof m);
	m.layout = &g->layout;
	m.arg = &fr;
	m.exists = render_exists;
	m.cell = render_cell;
	render_hexmap(&m, b);
	sbuf_puts(b, "\nLegend: W wood, F forming-up point (FUP), H hill; "
	    "1-3 Blue sections,\nP Pl Comd, R enemy section; * spent.\n\n");
	for (s = 0; s < g->nunits; s++) {
		const struct game_unit *u = &g->units[s];

		if (s == FAM_PC)
			sbuf_printf(b, "  %-14s %s, with %d Section\n", u->name,
			    u->placed ? lbl(u->pos, a) : "-", u->attached + 1);
		else
			sbuf_printf(b, "  %-14s %-3s %s\n", u->name,
			    u->placed ? lbl(u->pos, a) : "-",
			    u->status == SPENT ? "spent" : "fresh");
	}
}

/* The map model of side's picture: the generic one, with the sections'
 * spent state (the enemy's: suppressed), the Pl Comd as "P" and the enemy
 * as "R", as on the map. */
static void
fam_picture(const struct game *g, int side, const struct events *ev,
    struct pic_model *m)
{
	int i, k = 0;

	picmodel_default(g, side, m);
	for (i = 0; i < g->nunits && k < m->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		struct pic_unit *p = &m->units[k];

		if (!u->placed)
			continue;
		k++;
		p->strength = -1;
		/* Red's "spent" is its suppression (it skips its fire). */
		if (u->status == SPENT)
			p->state |= i == FAM_RED ? PIC_SUPPRESSED : PIC_SPENT;
		if (i == FAM_PC)
			strlcpy_(p->label, "P", sizeof p->label);
		else if (i == FAM_RED)
			strlcpy_(p->label, "R", sizeof p->label);
	}
	picmodel_arrows(g, ev, m);
	for (i = 0; i < (int)ev->n; i++) {	/* "N Section fires from X" */
		const char *t = ev->v[i].text;
		int s = t[0] - '1';
		char lb[8];
		struct hex h;

		if (s >= 0 && s < FAM_SECTIONS && strstr(t, "fires from") !=
		    NULL && g->units[FAM_RED].placed)
			picture_add_arrow(m, PIC_FIRE, g->units[s].pos,
			    g->units[FAM_RED].pos, BLUE);
		/* "The enemy fires on X[ with a beaten zone in Y]." */
		if (strncmp(t, "The enemy fires on ", 19) == 0 &&
		    g->units[FAM_RED].placed && sscanf(t + 19, "%7[A-Z0-9]",
		    lb) == 1 && hex_parse_label(&g->layout, lb, &h) &&
		    game_on_map(g, h))
			picture_add_arrow(m, PIC_FIRE, g->units[FAM_RED].pos, h,
			    RED);
	}
}

static void
fam_status(const struct game *g, int side, struct sbuf *b)
{
	int v = game_var(g, "victory", 0), i;

	(void)side;
	sbuf_puts(b, "Victory counter: [");
	for (i = 1; i <= 16; i++)
		sbuf_puts(b, i <= v ? "#" : (i == 10 || i == 15) ? "|" : ".");
	sbuf_printf(b, "] %d/16\n", v);
	sbuf_puts(b, "  Red wins at 16. An assault wins for Blue at 10 or "
	    "less and draws at 11-15.\n");
}

static void
fam_order_template(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b)
{
	char a[8];
	int s;

	if (strcmp(w->name, "standing") == 0 || side == RED) {
		sbuf_printf(b, "# Red, turn %d. Choose the hex to fire on (it "
		    "must hold a Blue section),\n# optionally an adjacent hex "
		    "with a section as the beaten zone, and\n# whether to "
		    "engage the Pl Comd if he is in an engaged hex.\n", w->turn);
		for (s = 0; s < FAM_SECTIONS; s++)
			if (g->units[s].placed)
				sbuf_printf(b, "#   %d Section in %s (%s)\n",
				    s + 1, lbl(g->units[s].pos, a),
				    g->units[s].status == SPENT ? "spent" :
				    "fresh");
		sbuf_puts(b, "target HEX\n# beaten HEX\ncommander yes\n");
		return;
	}
	sbuf_printf(b, "# Blue, turn %d. One order per line; '#' starts a "
	    "comment.\n", w->turn);
	if (!g->units[0].placed)
		sbuf_puts(b, "# Turn 1: deploy every section in the wood (A0, "
		    "B0, C0; any stacking)\n# and say which section the Pl "
		    "Comd starts with.\ndeploy 1 A0\ndeploy 2 B0\ndeploy 3 "
		    "C0\ndeploy pc 2\n");
	sbuf_puts(b, "#   move SECTION HEX    a fresh section moves to an "
	    "adjacent hex (then spent)\n#   fire SECTION        a fresh "
	    "section fires at the hill (then spent)\n#   commander SECTION "
	    "  the Pl Comd joins SECTION (same hex; or adjacent,\n#          "
	    "             after moves, if his own section stays fresh)\n");
	for (s = 0; s < FAM_SECTIONS; s++)
		if (g->units[s].placed)
			sbuf_printf(b, "#   %d Section in %s, %s%s\n", s + 1,
			    lbl(g->units[s].pos, a), g->units[s].status ==
			    SPENT ? "spent" : "fresh",
			    g->units[FAM_PC].attached == s ?
			    ", with the Pl Comd" : "");
}

const struct ruleset ruleset_fam = {
	.name = "fire-and-movement",
	.title = "Fire and Movement (training wargame)",
	.seed = "000",
	.options_help = "red-standing  Red gives standing fire orders "
	    "(window 'standing'), so a turn needs one mail round",
	.setup = fam_setup,
	.default_scenario = "hill",
	.next_window = fam_next_window,
	.parse = fam_parse,
	.free_orders = fam_free_orders,
	.resolve = fam_resolve,
	.victory = fam_victory,
	.opponent = fam_opponent,
	.render_map = fam_render_map,
	.status = fam_status,
	.order_template = fam_order_template,
	.picture = fam_picture,
	.opponent_parsed = fam_opponent_parsed,
};
