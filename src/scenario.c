/* scenario: scenario files parsed by the generic line parser into the
 * ruleset-neutral form of scenario.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "embedded.h"
#include "parser.h"
#include "scenario.h"

#define SCENARIO_DIR "scenarios/"

/* Is s a name of lower-case letters, digits, '-', '_' and '.'? */
static bool
plain_name(const char *s, size_t max)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= max)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' &&
		    s[i] <= '9') || s[i] == '-' || s[i] == '_' ||
		    s[i] == '.'))
			return false;
	return true;
}

/* Copy field name into dst of size, or complain that it is too long. */
static bool
take(struct parser *p, const char *name, char *dst, size_t size)
{
	const char *v = parser_str(p, name);

	if (strlen(v) >= size) {
		parser_error(p, "<%s> is longer than %zu characters", name,
		    size - 1);
		return false;
	}
	strlcpy_(dst, v, size);
	return true;
}

/* Append one element to a growable array of n elements of size bytes. */
static void *
grow(void *v, int n, size_t size)
{
	return xrealloc(v, (size_t)(n + 1) * size);
}

static int
st_ruleset(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	if (!plain_name(parser_str(p, "name"), sizeof sc->ruleset))
		parser_error(p, "\"%.40s\" is not a ruleset name",
		    parser_str(p, "name"));
	else
		strlcpy_(sc->ruleset, parser_str(p, "name"),
		    sizeof sc->ruleset);
	return 0;
}

static int
st_name(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	if (!plain_name(parser_str(p, "name"), sizeof sc->name))
		parser_error(p, "<name> must be 1 to %zu lower-case letters, "
		    "digits, '-', '_' or '.'", sizeof sc->name - 1);
	else
		strlcpy_(sc->name, parser_str(p, "name"), sizeof sc->name);
	return 0;
}

static int
st_title(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	(void)take(p, "text", sc->title, sizeof sc->title);
	return 0;
}

static int
st_map(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	sc->cols = parser_int(p, "cols");
	sc->rows = parser_int(p, "rows");
	sc->map_line = parser_line(p);
	return 0;
}

static int
st_legend(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;
	const char *l = parser_str(p, "letter");
	unsigned char c = (unsigned char)l[0];

	if (strlen(l) != 1 || c < 0x21 || c > 0x7e) {
		parser_error(p, "<letter> must be one printable character, "
		    "not \"%.20s\"", l);
		return 0;
	}
	if (sc->legend_line[c] != 0) {
		parser_error(p, "letter '%c' defined twice (first on line %d)",
		    c, sc->legend_line[c]);
		return 0;
	}
	if (take(p, "terrain", sc->legend[c], sizeof sc->legend[c]))
		sc->legend_line[c] = parser_line(p);
	return 0;
}

/* A row of cols cells appended to *rows; checks its width. */
static void
add_row(struct parser *p, const struct scenario *sc, char ***rows,
    int **lines, int *n)
{
	const char *cells = parser_str(p, "cells");

	if (sc->map_line == 0) {
		parser_error(p, "comes before \"map:\" (which gives the size)");
		return;
	}
	if (*n >= sc->rows) {
		parser_error(p, "more rows than the %d of \"map:\" (line %d)",
		    sc->rows, sc->map_line);
		return;
	}
	/* A row of the wrong width still counts as a row, so one mistake
	 * gives one error (the file is refused either way). */
	if ((int)strlen(cells) != sc->cols)
		parser_error(p, "%zu cells, but \"map:\" (line %d) says %d "
		    "columns", strlen(cells), sc->map_line, sc->cols);
	*rows = grow(*rows, *n, sizeof **rows);
	*lines = grow(*lines, *n, sizeof **lines);
	(*rows)[*n] = xstrdup(cells);
	(*lines)[*n] = parser_line(p);
	(*n)++;
}

static int
st_terrain(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	add_row(p, sc, &sc->terrain, &sc->terrain_line, &sc->nterrain);
	return 0;
}

static int
st_elevation(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;
	const char *c;

	for (c = parser_str(p, "cells"); *c != '\0'; c++)
		if (*c < '0' || *c > '9') {
			parser_error(p, "cells are digits 0 to 9, not '%c'", *c);
			return 0;
		}
	add_row(p, sc, &sc->elevation, &sc->elevation_line, &sc->nelevation);
	return 0;
}

static int
st_road(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;
	size_t n = strlen(sc->roads);
	const char *h = parser_str(p, "hexes");

	if (n + strlen(h) + 2 > sizeof sc->roads) {
		parser_error(p, "roads list more than %zu characters",
		    sizeof sc->roads - 2);
		return 0;
	}
	snprintf(sc->roads + n, sizeof sc->roads - n, "%s%s", n ? " " : "",
	    h);
	if (sc->roads_line == 0)
		sc->roads_line = parser_line(p);
	return 0;
}

/* The index of side name, or -1. */
static int
side_index(const struct scenario *sc, const char *name)
{
	int i;

	for (i = 0; i < sc->nsides; i++)
		if (strcmp(sc->sides[i].name, name) == 0)
			return i;
	return -1;
}

static int
st_side(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;
	struct scenario_side *s;
	const char *name = parser_str(p, "name");

	if (sc->nsides == GAME_MAX_SIDES) {
		parser_error(p, "more than %d sides", GAME_MAX_SIDES);
		return 0;
	}
	if (!plain_name(name, GAME_ID_MAX) || strcmp(name, "none") == 0) {
		parser_error(p, "<name> must be 1 to %d lower-case letters, "
		    "digits, '-', '_' or '.' (and not \"none\")",
		    GAME_ID_MAX - 1);
		return 0;
	}
	if (side_index(sc, name) >= 0) {
		parser_error(p, "side \"%s\" given twice (first on line %d)",
		    name, sc->sides[side_index(sc, name)].line);
		return 0;
	}
	s = &sc->sides[sc->nsides];
	memset(s, 0, sizeof *s);
	if (!take(p, "label", s->label, sizeof s->label))
		return 0;
	strlcpy_(s->name, name, sizeof s->name);
	s->line = parser_line(p);
	sc->nsides++;
	return 0;
}

/* Does side name a side given before (or "none" where allowed)? */
static bool
known_side(struct parser *p, const struct scenario *sc, const char *name,
    bool none_ok)
{
	if (none_ok && strcmp(name, "none") == 0)
		return true;
	if (side_index(sc, name) >= 0)
		return true;
	parser_error(p, "no side \"%.20s\" (declare it with \"side:\" first%s)",
	    name, none_ok ? ", or write \"none\"" : "");
	return false;
}

static int
st_unit(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;
	struct scenario_unit u;
	int i;

	memset(&u, 0, sizeof u);
	u.line = parser_line(p);
	if (!take(p, "id", u.id, sizeof u.id) ||
	    !take(p, "kind", u.kind, sizeof u.kind) ||
	    !take(p, "side", u.side, sizeof u.side) ||
	    !take(p, "at", u.at, sizeof u.at) ||
	    !take(p, "facing", u.facing, sizeof u.facing) ||
	    !take(p, "quality", u.quality, sizeof u.quality) ||
	    !take(p, "carried-by", u.carried_by, sizeof u.carried_by))
		return 0;
	/* "-" leaves an optional field at its default. */
	if (strcmp(u.facing, "-") == 0)
		u.facing[0] = '\0';
	if (strcmp(u.quality, "-") == 0)
		u.quality[0] = '\0';
	if (strcmp(u.carried_by, "-") == 0)
		u.carried_by[0] = '\0';
	if (!plain_name(u.id, sizeof u.id)) {
		parser_error(p, "<id> must be lower-case letters, digits, '-', "
		    "'_' or '.', not \"%s\"", u.id);
		return 0;
	}
	if (!known_side(p, sc, u.side, false))
		return 0;
	for (i = 0; i < sc->nunits; i++)
		if (strcmp(sc->units[i].id, u.id) == 0) {
			parser_error(p, "unit \"%s\" given twice (first on "
			    "line %d)", u.id, sc->units[i].line);
			return 0;
		}
	sc->units = grow(sc->units, sc->nunits, sizeof *sc->units);
	sc->units[sc->nunits++] = u;
	return 0;
}

static int
st_marker(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;
	struct scenario_marker m;

	memset(&m, 0, sizeof m);
	m.line = parser_line(p);
	if (!take(p, "kind", m.kind, sizeof m.kind) ||
	    !take(p, "side", m.side, sizeof m.side) ||
	    !take(p, "at", m.at, sizeof m.at))
		return 0;
	if (!known_side(p, sc, m.side, true))
		return 0;
	sc->markers = grow(sc->markers, sc->nmarkers, sizeof *sc->markers);
	sc->markers[sc->nmarkers++] = m;
	return 0;
}

/* Append "name value" to an item list. */
static void
add_item(struct parser *p, struct scenario_item **v, int *n,
    const char *value)
{
	struct scenario_item it;

	memset(&it, 0, sizeof it);
	it.line = parser_line(p);
	if (!take(p, "name", it.name, sizeof it.name))
		return;
	if (strlen(value) >= sizeof it.value) {
		parser_error(p, "longer than %zu characters",
		    sizeof it.value - 1);
		return;
	}
	strlcpy_(it.value, value, sizeof it.value);
	*v = grow(*v, *n, sizeof **v);
	(*v)[(*n)++] = it;
}

static int
st_var(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;
	int i;

	for (i = 0; i < sc->nvars; i++)
		if (strcmp(sc->vars[i].name, parser_str(p, "name")) == 0) {
			parser_error(p, "\"%.30s\" given twice (first on line "
			    "%d)", sc->vars[i].name, sc->vars[i].line);
			return 0;
		}
	add_item(p, &sc->vars, &sc->nvars, parser_str(p, "value"));
	return 0;
}

static int
st_option(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	add_item(p, &sc->options, &sc->noptions, parser_str(p, "args"));
	return 0;
}

static int
st_turns(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	sc->turns = parser_int(p, "n");
	sc->turns_line = parser_line(p);
	return 0;
}

static int
st_placeholder(struct parser *p, void *ctx)
{
	struct scenario *sc = ctx;

	add_item(p, &sc->placeholders, &sc->nplaceholders,
	    parser_str(p, "why"));
	return 0;
}

static const struct parser_rule scenario_rules[] = {
	{ "ruleset", "name:word", st_ruleset, PARSER_ONCE | PARSER_REQUIRED },
	{ "name", "name:word", st_name, PARSER_ONCE | PARSER_REQUIRED },
	{ "title", "text:rest", st_title, PARSER_ONCE },
	{ "map", "cols:int(1-256) rows:int(1-256)", st_map,
	    PARSER_ONCE | PARSER_REQUIRED },
	{ "legend", "letter:word terrain:word", st_legend, 0 },
	{ "terrain", "cells:word", st_terrain, 0 },
	{ "elevation", "cells:word", st_elevation, 0 },
	{ "road", "hexes:rest", st_road, 0 },
	{ "side", "name:word label:rest", st_side, 0 },
	{ "unit", "id:word kind:word side:word at:word ?facing:word "
	    "?quality:word ?carried-by:word", st_unit, 0 },
	{ "marker", "kind:word side:word at:word", st_marker, 0 },
	{ "var", "name:word value:int(-1000000-1000000)", st_var, 0 },
	{ "option", "name:word ?args:rest", st_option, 0 },
	{ "turns", "n:int(1-500)", st_turns, PARSER_ONCE },
	{ "placeholder", "name:word why:rest", st_placeholder, 0 },
	{ NULL, NULL, NULL, 0 }
};

/* Checks over the whole file once every line is read. */
static void
scenario_check_whole(struct scenario *sc, struct order_errors *errs)
{
	int r;
	const char *c;

	if (sc->map_line == 0)
		return;
	if (sc->nterrain != sc->rows)
		orders_error(errs, 0, "terrain: %d rows, but \"map:\" (line "
		    "%d) says %d", sc->nterrain, sc->map_line, sc->rows);
	if (sc->nelevation != 0 && sc->nelevation != sc->rows)
		orders_error(errs, 0, "elevation: %d rows, but \"map:\" (line "
		    "%d) says %d (give every row or none)", sc->nelevation,
		    sc->map_line, sc->rows);
	for (r = 0; r < sc->nterrain; r++)
		for (c = sc->terrain[r]; *c != '\0'; c++)
			if (sc->legend_line[(unsigned char)*c] == 0) {
				orders_error(errs, sc->terrain_line[r],
				    "terrain: letter '%c' has no \"legend:\"",
				    *c);
				break;
			}
	if (sc->nsides < 2)
		orders_error(errs, 0, "side: a scenario needs at least two "
		    "sides (it has %d)", sc->nsides);
}

int
scenario_parse(struct scenario *sc, const char *text, size_t len,
    struct order_errors *errs)
{
	size_t n0 = errs->n;
	int rc;

	memset(sc, 0, sizeof *sc);
	sc->errs = errs;
	sc->text = xmalloc(len + 1);
	memcpy(sc->text, text, len);
	sc->text[len] = '\0';
	sc->len = len;
	{
		unsigned char h[crypto_hash_sha256_BYTES];

		crypto_hash_sha256(h, (const unsigned char *)text, len);
		sodium_bin2hex(sc->hash, sizeof sc->hash, h, sizeof h);
	}
	if (len > SCENARIO_MAX_BYTES) {
		orders_error(errs, 0, "larger than %d bytes",
		    SCENARIO_MAX_BYTES);
		return HP_EINVAL;
	}
	rc = parser_run(scenario_rules, text, len, sc, errs);
	if (rc == HP_EINTERNAL)
		return rc;
	scenario_check_whole(sc, errs);
	return errs->n > n0 ? HP_EINVAL : HP_OK;
}

/* Free a string array of n entries. */
static void
free_rows(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
scenario_free(struct scenario *sc)
{
	free_rows(sc->terrain, sc->nterrain);
	free_rows(sc->elevation, sc->nelevation);
	free(sc->terrain_line);
	free(sc->elevation_line);
	free(sc->units);
	free(sc->markers);
	free(sc->vars);
	free(sc->options);
	free(sc->placeholders);
	free(sc->text);
	memset(sc, 0, sizeof *sc);
}

void
scenario_error(const struct scenario *sc, int line, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (sc->errs != NULL)
		orders_error(sc->errs, line, "%s", msg);
}

int
scenario_var(const struct scenario *sc, const char *name, int def)
{
	int i, v;

	for (i = 0; i < sc->nvars; i++)
		if (strcmp(sc->vars[i].name, name) == 0 &&
		    orders_parse_int(sc->vars[i].value, -1000000, 1000000, &v) ==
		    HP_OK)
			return v;
	return def;
}

const struct scenario_item *
scenario_option(const struct scenario *sc, const char *name)
{
	int i;

	for (i = 0; i < sc->noptions; i++)
		if (strcmp(sc->options[i].name, name) == 0)
			return &sc->options[i];
	return NULL;
}

/* After a parse, the file's ruleset must be the one wanted. */
static int
check_ruleset(struct scenario *sc, const char *ruleset,
    struct order_errors *errs, struct hp_error *err)
{
	if (ruleset != NULL && sc->ruleset[0] != '\0' &&
	    strcmp(sc->ruleset, ruleset) != 0) {
		orders_error(errs, 0, "ruleset: the file is for \"%s\", not "
		    "\"%s\"", sc->ruleset, ruleset);
		hp_seterr(err, HP_EINVAL, "scenario %s is for ruleset %s, not "
		    "%s", sc->name, sc->ruleset, ruleset);
		return HP_EINVAL;
	}
	return HP_OK;
}

int
scenario_from_text(struct scenario *sc, const char *text,
    struct order_errors *errs, struct hp_error *err)
{
	int rc = scenario_parse(sc, text, strlen(text), errs);

	if (rc != HP_OK)
		hp_seterr(err, rc, "the scenario has %zu error%s", errs->n,
		    errs->n == 1 ? "" : "s");
	return rc;
}

int
scenario_load(struct scenario *sc, const char *ruleset,
    const char *default_name, const char *spec, struct order_errors *errs,
    struct hp_error *err)
{
	const struct embedded_file *f;
	char path[128], *text = NULL;
	size_t len = 0;
	int rc;

	memset(sc, 0, sizeof *sc);
	if (spec == NULL || *spec == '\0')
		spec = default_name;
	if (strchr(spec, '/') != NULL || (strlen(spec) > 4 &&
	    strcmp(spec + strlen(spec) - 4, ".scn") == 0)) {
		if ((text = util_read_file(spec, &len, err)) == NULL)
			return err->code ? err->code : HP_EIO;
	} else {
		snprintf(path, sizeof path, SCENARIO_DIR "%s/%s.scn",
		    ruleset, spec);
		if (!plain_name(spec, SCENARIO_NAME_MAX) ||
		    (f = embedded_find(path)) == NULL) {
			const char **names;
			struct sbuf b;
			size_t n, i;

			names = scenario_list(ruleset, &n);
			sbuf_init(&b);
			for (i = 0; i < n; i++) {
				const char *base = strchr(names[i], '/') + 1;

				sbuf_printf(&b, "%s%.*s", i ? ", " : "",
				    (int)(strlen(base) - 4), base);
			}
			hp_seterr(err, HP_EINVAL, "%s has no scenario '%.40s' "
			    "(shipped: %s; or give a file's path)", ruleset,
			    spec, b.buf ? b.buf : "none");
			sbuf_free(&b);
			free(names);
			return HP_EINVAL;
		}
		text = xmalloc(f->len + 1);
		memcpy(text, f->data, f->len);
		len = f->len;
	}
	rc = scenario_parse(sc, text, len, errs);
	free(text);
	if (rc != HP_OK) {
		hp_seterr(err, rc, "scenario %s: %zu error%s", spec, errs->n,
		    errs->n == 1 ? "" : "s");
		return rc;
	}
	return check_ruleset(sc, ruleset, errs, err);
}

const char **
scenario_list(const char *ruleset, size_t *n)
{
	const char **v = xcalloc(embedded_nfiles + 1, sizeof *v);
	size_t i, k = 0, dl = strlen(SCENARIO_DIR), rl;

	for (i = 0; i < embedded_nfiles; i++) {
		const char *name = embedded_files[i].name;

		if (strncmp(name, SCENARIO_DIR, dl) != 0)
			continue;
		if (ruleset != NULL) {
			rl = strlen(ruleset);
			if (strncmp(name + dl, ruleset, rl) != 0 ||
			    name[dl + rl] != '/')
				continue;
		}
		v[k++] = name + dl;
	}
	*n = k;
	return v;
}

void
scenario_build_bad(struct scenario_build *b, int line, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	scenario_error(b->sc, line, "%s", msg);
	b->errors++;
}

bool
scenario_build_hex(struct scenario_build *b, int line, const char *what,
    const char *label, struct hex *h)
{
	if (!hex_parse_label(&b->g->layout, label, h) ||
	    !game_on_map(b->g, *h)) {
		scenario_build_bad(b, line, "%s: \"%s\" is not a hex of this "
		    "%dx%d map", what, label, b->g->layout.cols,
		    b->g->layout.rows);
		return false;
	}
	return true;
}

bool
scenario_build_edge(struct scenario_build *b, int line, int nwords,
    const char *hex, const char *dir, const char *kind,
    const char *const *names, int nkinds)
{
	static const char *const dirs[6] = { "se", "ne", "n", "nw", "sw",
		"s" };
	struct game_hex *gh, *nh;
	char list[200] = "";
	struct hex h;
	size_t n;
	int d, k;

	if (nwords != 3) {
		scenario_build_bad(b, line, "option: edge HEX DIR KIND");
		return false;
	}
	if (!scenario_build_hex(b, line, "option: edge", hex, &h))
		return false;
	for (d = 0; d < 6 && strcmp(dir, dirs[d]); d++)
		;
	for (k = 1; k < nkinds && strcmp(kind, names[k]); k++)
		;
	if (d == 6 || k == nkinds) {
		for (k = 1, n = 0; k < nkinds && n < sizeof list; k++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
			    k > 1 ? " " : "", names[k]);
		scenario_build_bad(b, line, "option: edge: expected a direction "
		    "(n ne se s sw nw) and an obstacle (%s), got \"%s %s\"",
		    list, dir, kind);
		return false;
	}
	gh = game_hex_at(b->g, h);
	gh->edge[d] = k;
	if ((nh = game_hex_at(b->g, hex_neighbour(h, d))) != NULL)
		nh->edge[(d + 3) % 6] = k;
	return true;
}

bool
scenario_build_home(struct scenario_build *b, int line, int nwords,
    const char *side, const char *edge)
{
	static const char *const homes[4] = { "north", "south", "east",
		"west" };
	char key[24];
	int s, d;

	s = nwords == 2 ? game_side_index(b->g, side) : -1;
	for (d = 0; d < 4 && strcmp(edge, homes[d]); d++)
		;
	if (s < 0 || d == 4) {
		scenario_build_bad(b, line, "option: home SIDE "
		    "north|south|east|west");
		return false;
	}
	snprintf(key, sizeof key, "home.%d", s);
	game_set_var(b->g, key, d);
	return true;
}
