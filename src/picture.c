/* picture: PNG and SVG drawings of a map model with cairo (see
 * include/picture.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>
#include <zlib.h>

#include "picture.h"

#define PIC_R 40.0          /* hex radius in pixels */
#define PIC_MARGIN 34.0     /* room for the coordinates */
#define PIC_TITLE 26.0      /* the title line above the map */
#define PIC_LEGEND_LINE 18.0

void
picture_init(struct pic_model *m)
{
	memset(m, 0, sizeof *m);
}

void
picture_free(struct pic_model *m)
{
	free(m->hexes);
	free(m->units);
	free(m->arrows);
	memset(m, 0, sizeof *m);
}

struct pic_hex *
picture_add_hex(struct pic_model *m, struct hex h, const char *terrain)
{
	struct pic_hex *p;

	if (m->nhex == m->caphex) {
		m->caphex = m->caphex ? 2 * m->caphex : 64;
		m->hexes = xrealloc(m->hexes, (size_t)m->caphex *
		    sizeof *m->hexes);
	}
	p = &m->hexes[m->nhex++];
	memset(p, 0, sizeof *p);
	p->h = h;
	strlcpy_(p->terrain, terrain != NULL && *terrain ? terrain : "clear",
	    sizeof p->terrain);
	return p;
}

struct pic_unit *
picture_add_unit(struct pic_model *m, struct hex pos, int side,
    const char *label)
{
	struct pic_unit *u;

	if (m->nunits == m->capunits) {
		m->capunits = m->capunits ? 2 * m->capunits : 32;
		m->units = xrealloc(m->units, (size_t)m->capunits *
		    sizeof *m->units);
	}
	u = &m->units[m->nunits++];
	memset(u, 0, sizeof *u);
	u->pos = pos;
	u->side = side;
	u->facing = -1;
	u->strength = -1;
	strlcpy_(u->label, label != NULL ? label : "", sizeof u->label);
	return u;
}

void
picture_add_arrow(struct pic_model *m, enum pic_arrow_kind kind,
    struct hex from, struct hex to, int side)
{
	struct pic_arrow *a;

	if (m->narrows == m->caparrows) {
		m->caparrows = m->caparrows ? 2 * m->caparrows : 16;
		m->arrows = xrealloc(m->arrows, (size_t)m->caparrows *
		    sizeof *m->arrows);
	}
	a = &m->arrows[m->narrows++];
	a->kind = kind;
	a->from = from;
	a->to = to;
	a->side = side;
}

int
picture_edge_kind(struct pic_model *m, const char *name)
{
	int i;

	for (i = 1; i < PIC_MAX_EDGE_KINDS; i++) {
		if (m->edge_name[i][0] == '\0') {
			strlcpy_(m->edge_name[i], name, sizeof m->edge_name[i]);
			return i;
		}
		if (strcmp(m->edge_name[i], name) == 0)
			return i;
	}
	return 0;
}

/* s with brackets and control characters as '_' (a field of the text). */
static const char *
field(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < len; i++)
		buf[i] = (s[i] == '[' || s[i] == ']' ||
		    (unsigned char)s[i] < 0x20) ? '_' : s[i];
	buf[i] = '\0';
	return buf;
}

void
picture_text(const struct pic_model *m, struct sbuf *out)
{
	char a[128], b[128];
	int i, d;

	sbuf_printf(out, "layout %d %d %d %d %d\ntitle %s\n", m->layout.orient,
	    m->layout.parity, m->layout.cols, m->layout.rows,
	    m->layout.row_base, field(m->title, a, sizeof a));
	for (i = 0; i < m->nsides; i++)
		sbuf_printf(out, "side %d %s\n", i, field(m->side_name[i], a,
		    sizeof a));
	for (i = 1; i < PIC_MAX_EDGE_KINDS && m->edge_name[i][0]; i++)
		sbuf_printf(out, "edgekind %d %s\n", i, field(m->edge_name[i],
		    a, sizeof a));
	for (i = 0; i < m->nhex; i++) {
		const struct pic_hex *h = &m->hexes[i];

		sbuf_printf(out, "hex %d,%d [%s] %d [%s]", h->h.q, h->h.r,
		    field(h->terrain, a, sizeof a), h->elevation,
		    field(h->note, b, sizeof b));
		for (d = 0; d < 6; d++)
			sbuf_printf(out, " %d", h->edge[d]);
		sbuf_puts(out, "\n");
	}
	for (i = 0; i < m->nunits; i++) {
		const struct pic_unit *u = &m->units[i];

		sbuf_printf(out, "%s %d,%d side %d [%s] [%s] sp %d face %d "
		    "state %u\n", u->marker ? "marker" : "unit", u->pos.q,
		    u->pos.r, u->side, field(u->label, a, sizeof a),
		    field(u->kind, b, sizeof b), u->strength, u->facing,
		    u->state);
	}
	for (i = 0; i < m->narrows; i++)
		sbuf_printf(out, "arrow %s %d,%d -> %d,%d side %d\n",
		    m->arrows[i].kind == PIC_MOVE ? "move" : "fire",
		    m->arrows[i].from.q, m->arrows[i].from.r, m->arrows[i].to.q,
		    m->arrows[i].to.r, m->arrows[i].side);
}

/* Read "[text]" at *p into buf (len bytes); *p moves past it and a space. */
static bool
bracket(const char **p, char *buf, size_t len)
{
	const char *e;
	size_t n;

	if (**p != '[' || (e = strchr(*p, ']')) == NULL)
		return false;
	n = (size_t)(e - *p - 1);
	if (n >= len)
		n = len - 1;
	memcpy(buf, *p + 1, n);
	buf[n] = '\0';
	*p = e + 1;
	if (**p == ' ')
		(*p)++;
	return true;
}

/* One line of picture_text into m. */
static bool
parse_line(const char *l, struct pic_model *m)
{
	char a[PIC_TEXT], b[PIC_TEXT], kind[8];
	struct hex h, h2;
	int i, n, o[5], e[6];
	unsigned st;
	const char *p;

	if (sscanf(l, "layout %d %d %d %d %d", &o[0], &o[1], &o[2], &o[3],
	    &o[4]) == 5) {
		if (o[2] < 0 || o[3] < 0 || o[2] > 1000 || o[3] > 1000)
			return false;
		m->layout.orient = o[0] ? HEX_POINTY : HEX_FLAT;
		m->layout.parity = o[1] ? HEX_EVEN : HEX_ODD;
		m->layout.cols = o[2];
		m->layout.rows = o[3];
		m->layout.row_base = o[4];
		return true;
	}
	if (strncmp(l, "title ", 6) == 0) {
		strlcpy_(m->title, l + 6, sizeof m->title);
		return true;
	}
	if (sscanf(l, "side %d %n", &i, &n) == 1 && i >= 0 &&
	    i < PIC_MAX_SIDES) {
		strlcpy_(m->side_name[i], l + n, sizeof m->side_name[i]);
		if (m->nsides <= i)
			m->nsides = i + 1;
		return true;
	}
	if (sscanf(l, "edgekind %d %n", &i, &n) == 1 && i > 0 &&
	    i < PIC_MAX_EDGE_KINDS) {
		strlcpy_(m->edge_name[i], l + n, sizeof m->edge_name[i]);
		return true;
	}
	if (sscanf(l, "hex %d,%d %n", &h.q, &h.r, &n) == 2) {
		struct pic_hex *ph;

		p = l + n;
		if (!bracket(&p, a, sizeof a) || sscanf(p, "%d %n", &i,
		    &n) != 1)
			return false;
		p += n;
		if (!bracket(&p, b, sizeof b) || sscanf(p, "%d %d %d %d %d %d",
		    &e[0], &e[1], &e[2], &e[3], &e[4], &e[5]) != 6)
			return false;
		ph = picture_add_hex(m, h, a);
		ph->elevation = i;
		strlcpy_(ph->note, b, sizeof ph->note);
		for (i = 0; i < 6; i++)
			ph->edge[i] = e[i] > 0 && e[i] < PIC_MAX_EDGE_KINDS ?
			    e[i] : 0;
		return true;
	}
	if (sscanf(l, "%7s %d,%d side %d %n", kind, &h.q, &h.r, &i, &n) == 4 &&
	    (strcmp(kind, "unit") == 0 || strcmp(kind, "marker") == 0)) {
		struct pic_unit *u;

		p = l + n;
		if (!bracket(&p, a, sizeof a) || !bracket(&p, b, sizeof b) ||
		    sscanf(p, "sp %d face %d state %u", &o[0], &o[1], &st) != 3)
			return false;
		u = picture_add_unit(m, h, i, a);
		strlcpy_(u->kind, b, sizeof u->kind);
		u->strength = o[0];
		u->facing = o[1] >= 0 && o[1] < 6 ? o[1] : -1;
		u->state = st;
		u->marker = kind[0] == 'm';
		return true;
	}
	if (sscanf(l, "arrow %7s %d,%d -> %d,%d side %d", kind, &h.q, &h.r,
	    &h2.q, &h2.r, &i) == 6) {
		picture_add_arrow(m, strcmp(kind, "fire") == 0 ? PIC_FIRE :
		    PIC_MOVE, h, h2, i);
		return true;
	}
	return false;
}

int
picture_parse(const char *text, struct pic_model *m, struct hp_error *err)
{
	char line[512];
	const char *p = text, *e;
	int n = 0;
	size_t len;

	while (*p != '\0') {
		n++;
		e = strchr(p, '\n');
		len = e != NULL ? (size_t)(e - p) : strlen(p);
		if (len >= sizeof line || (memcpy(line, p, len), line[len] =
		    '\0', !parse_line(line, m))) {
			hp_seterr(err, HP_EINVAL, "picture data, line %d: not "
			    "understood", n);
			return HP_EINVAL;
		}
		p += len + (e != NULL);
	}
	return HP_OK;
}

static bool
unit_eq(const struct pic_unit *a, const struct pic_unit *b)
{
	return hex_eq(a->pos, b->pos) && a->side == b->side &&
	    a->strength == b->strength && a->facing == b->facing &&
	    a->marker == b->marker &&
	    strcmp(a->label, b->label) == 0 && strcmp(a->kind, b->kind) == 0;
}

void
picture_intersect(struct pic_model *m, const struct pic_model *o)
{
	int i, j, k;

	for (i = 0; i < m->nhex; i++) {
		struct pic_hex *h = &m->hexes[i];

		for (j = 0; j < o->nhex; j++)
			if (hex_eq(o->hexes[j].h, h->h))
				break;
		if (j < o->nhex && memcmp(h, &o->hexes[j], sizeof *h) == 0)
			continue;
		memset(h->edge, 0, sizeof h->edge);
		h->note[0] = '\0';
		h->elevation = 0;
		strlcpy_(h->terrain, "unknown", sizeof h->terrain);
	}
	for (i = k = 0; i < m->nunits; i++) {
		for (j = 0; j < o->nunits; j++)
			if (unit_eq(&m->units[i], &o->units[j]))
				break;
		if (j < o->nunits) {	/* a state both show */
			m->units[k] = m->units[i];
			m->units[k++].state &= o->units[j].state;
		}
	}
	m->nunits = k;
	for (i = k = 0; i < m->narrows; i++) {
		for (j = 0; j < o->narrows; j++)
			if (memcmp(&m->arrows[i], &o->arrows[j],
			    sizeof m->arrows[i]) == 0)
				break;
		if (j < o->narrows)
			m->arrows[k++] = m->arrows[i];
	}
	m->narrows = k;
}

/* --- geometry --------------------------------------------------------------- */

struct geo {
	double ox, oy;          /* pixel offset of axial (0,0) */
	double w, h;            /* size of the map area with margins */
	bool flat;
};

/* Centre of h before the offset. */
static void
raw_xy(bool flat, struct hex h, double *x, double *y)
{
	if (flat) {
		*x = PIC_R * 1.5 * h.q;
		*y = PIC_R * sqrt(3.0) * (h.r + h.q / 2.0);
	} else {
		*x = PIC_R * sqrt(3.0) * (h.q + h.r / 2.0);
		*y = PIC_R * 1.5 * h.r;
	}
}

static void
centre(const struct geo *g, struct hex h, double *x, double *y)
{
	raw_xy(g->flat, h, x, y);
	*x += g->ox;
	*y += g->oy;
}

/* The bounding box of every hex of the layout. */
static void
geo_init(struct geo *g, const struct hex_layout *l)
{
	double minx = 1e9, miny = 1e9, maxx = -1e9, maxy = -1e9, x, y;
	double hw, hh;
	int c, r;

	g->flat = l->orient == HEX_FLAT;
	hw = g->flat ? PIC_R : PIC_R * sqrt(3.0) / 2;
	hh = g->flat ? PIC_R * sqrt(3.0) / 2 : PIC_R;
	for (c = 0; c < l->cols; c++)
		for (r = 0; r < l->rows; r++) {
			struct hex_offset o = { c, r };

			raw_xy(g->flat, hex_from_offset(l, o), &x, &y);
			minx = fmin(minx, x - hw);
			maxx = fmax(maxx, x + hw);
			miny = fmin(miny, y - hh);
			maxy = fmax(maxy, y + hh);
		}
	if (l->cols <= 0 || l->rows <= 0)
		minx = miny = maxx = maxy = 0;
	g->ox = PIC_MARGIN - minx;
	g->oy = PIC_TITLE + PIC_MARGIN - miny;
	g->w = maxx - minx + 2 * PIC_MARGIN;
	g->h = maxy - miny + 2 * PIC_MARGIN + PIC_TITLE;
}

static void
hex_path(cairo_t *cr, const struct geo *g, double cx, double cy, double r)
{
	int i;

	for (i = 0; i < 6; i++) {
		double a = (g->flat ? 0.0 : 30.0) + 60.0 * i;

		a *= M_PI / 180.0;
		if (i == 0)
			cairo_move_to(cr, cx + r * cos(a), cy + r * sin(a));
		else
			cairo_line_to(cr, cx + r * cos(a), cy + r * sin(a));
	}
	cairo_close_path(cr);
}

/* --- colours ------------------------------------------------------------------ */

struct rgb {
	double r, g, b;
};

static const struct {
	const char *name;
	struct rgb c;
	const char *label;
} terrains[] = {
	{ "clear", { 0.93, 0.93, 0.82 }, "open ground" },
	{ "open", { 0.93, 0.93, 0.82 }, "open ground" },
	{ "wood", { 0.45, 0.68, 0.40 }, "wood" },
	{ "woods", { 0.45, 0.68, 0.40 }, "wood" },
	{ "forest", { 0.45, 0.68, 0.40 }, "wood" },
	{ "hill", { 0.80, 0.68, 0.48 }, "hill" },
	{ "fup", { 0.84, 0.84, 0.96 }, "forming-up point" },
	{ "built-up", { 0.70, 0.66, 0.66 }, "built-up area" },
	{ "town", { 0.70, 0.66, 0.66 }, "built-up area" },
	{ "fortification", { 0.60, 0.58, 0.52 }, "fortification" },
	{ "trench", { 0.72, 0.62, 0.50 }, "trench" },
	{ "river", { 0.55, 0.75, 0.95 }, "river" },
	{ "ford", { 0.70, 0.85, 0.95 }, "ford" },
	{ "marsh", { 0.70, 0.82, 0.74 }, "marsh" },
	{ "road", { 0.86, 0.82, 0.70 }, "road" },
	{ "unknown", { 0.75, 0.75, 0.75 }, "not seen" },
};
#define NTERRAINS (sizeof terrains / sizeof terrains[0])

static const struct rgb side_rgb[PIC_MAX_SIDES] = {
	{ 0.20, 0.40, 0.85 }, { 0.85, 0.20, 0.20 }, { 0.20, 0.65, 0.30 },
	{ 0.75, 0.60, 0.10 },
};
static const struct rgb edge_rgb[PIC_MAX_EDGE_KINDS] = {
	{ 0, 0, 0 }, { 0.15, 0.35, 0.85 }, { 0.40, 0.25, 0.10 },
	{ 0.55, 0.00, 0.55 }, { 0.10, 0.55, 0.55 }, { 0.85, 0.45, 0.00 },
	{ 0.35, 0.35, 0.35 }, { 0.60, 0.60, 0.00 },
};

/* The colour of terrain name: the table's, else one made from the name. */
static struct rgb
terrain_rgb(const char *name, const char **label)
{
	struct rgb c;
	unsigned hsh = 5381;
	size_t i;

	for (i = 0; i < NTERRAINS; i++)
		if (strcmp(terrains[i].name, name) == 0) {
			*label = terrains[i].label;
			return terrains[i].c;
		}
	for (i = 0; name[i] != '\0'; i++)
		hsh = hsh * 33u + (unsigned char)name[i];
	c.r = 0.55 + (hsh & 0xff) / 700.0;
	c.g = 0.55 + ((hsh >> 8) & 0xff) / 700.0;
	c.b = 0.55 + ((hsh >> 16) & 0xff) / 700.0;
	*label = name;
	return c;
}

static struct rgb
side_colour(int side)
{
	struct rgb grey = { 0.35, 0.35, 0.35 };

	return side >= 0 && side < PIC_MAX_SIDES ? side_rgb[side] : grey;
}

static void
set_rgb(cairo_t *cr, struct rgb c, double alpha)
{
	cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

/* Text centred on (x, y). */
static void
text_c(cairo_t *cr, double x, double y, double size, const char *s)
{
	cairo_text_extents_t e;

	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.width / 2 - e.x_bearing,
	    y - e.height / 2 - e.y_bearing);
	cairo_show_text(cr, s);
}

static void
text_at(cairo_t *cr, double x, double y, double size, const char *s)
{
	cairo_set_font_size(cr, size);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, s);
}

/* --- drawing -------------------------------------------------------------------- */

static void
draw_hexes(cairo_t *cr, const struct pic_model *m, const struct geo *g)
{
	int i;

	cairo_set_line_width(cr, 1.0);
	for (i = 0; i < m->nhex; i++) {
		const struct pic_hex *h = &m->hexes[i];
		const char *lbl;
		struct rgb c = terrain_rgb(h->terrain, &lbl);
		double x, y;
		char a[16];

		centre(g, h->h, &x, &y);
		hex_path(cr, g, x, y, PIC_R);
		set_rgb(cr, c, 1.0);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
		cairo_stroke(cr);
		if (h->elevation > 0) {	/* a contour ring per level */
			int k;

			cairo_set_source_rgb(cr, 0.55, 0.40, 0.20);
			for (k = 1; k <= h->elevation && k <= 3; k++) {
				hex_path(cr, g, x, y, PIC_R * (1.0 - 0.12 * k));
				cairo_stroke(cr);
			}
		}
		cairo_set_source_rgb(cr, 0.30, 0.30, 0.30);
		hex_label(&m->layout, h->h, a, sizeof a);
		text_c(cr, x, y - PIC_R * 0.62, 8, a);
		if (h->note[0] != '\0') {
			cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
			text_c(cr, x, y + PIC_R * 0.62, 8, h->note);
		}
	}
}

static void
draw_edges(cairo_t *cr, const struct pic_model *m, const struct geo *g)
{
	int i, d;

	cairo_set_line_width(cr, 4.0);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	for (i = 0; i < m->nhex; i++)
		for (d = 0; d < 6; d++) {
			int k = m->hexes[i].edge[d];
			double x1, y1, x2, y2, mx, my, px, py, len;

			if (k <= 0 || k >= PIC_MAX_EDGE_KINDS)
				continue;
			centre(g, m->hexes[i].h, &x1, &y1);
			centre(g, hex_neighbour(m->hexes[i].h, d), &x2, &y2);
			mx = (x1 + x2) / 2;
			my = (y1 + y2) / 2;
			len = hypot(x2 - x1, y2 - y1);
			px = -(y2 - y1) / len * PIC_R / 2;
			py = (x2 - x1) / len * PIC_R / 2;
			set_rgb(cr, edge_rgb[k], 1.0);
			cairo_move_to(cr, mx - px, my - py);
			cairo_line_to(cr, mx + px, my + py);
			cairo_stroke(cr);
		}
}

static void
draw_coords(cairo_t *cr, const struct pic_model *m, const struct geo *g)
{
	const struct hex_layout *l = &m->layout;
	double x, y, top = PIC_TITLE + PIC_MARGIN / 2, bottom = g->h -
	    PIC_MARGIN / 2;
	char a[16], *p;
	int c, r;

	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	for (c = 0; c < l->cols; c++) {
		struct hex_offset o = { c, 0 };

		centre(g, hex_from_offset(l, o), &x, &y);
		hex_label(l, hex_from_offset(l, o), a, sizeof a);
		for (p = a; *p >= 'A' && *p <= 'Z'; p++)
			;
		*p = '\0';
		text_c(cr, x, top, 11, a);
		text_c(cr, x, bottom, 11, a);
	}
	for (r = 0; r < l->rows; r++) {
		struct hex_offset o = { 0, r }, o2 = { l->cols - 1, r };

		snprintf(a, sizeof a, "%d", r + l->row_base);
		centre(g, hex_from_offset(l, o), &x, &y);
		text_c(cr, PIC_MARGIN / 2, y, 11, a);
		centre(g, hex_from_offset(l, o2), &x, &y);
		text_c(cr, g->w - PIC_MARGIN / 2, y, 11, a);
	}
}

/* Direction d's unit vector in pixels. */
static void
dir_vec(const struct geo *g, int d, double *dx, double *dy)
{
	struct hex o = { 0, 0 };
	double x1, y1, x2, y2, len;

	raw_xy(g->flat, o, &x1, &y1);
	raw_xy(g->flat, hex_neighbour(o, d), &x2, &y2);
	len = hypot(x2 - x1, y2 - y1);
	*dx = (x2 - x1) / len;
	*dy = (y2 - y1) / len;
}

/* Unit u, the nth of n in its hex: alone it fills the middle of the hex;
 * a stack shares it in a 2 x 2 grid (a fifth and later are drawn on the
 * fourth: the table under the ASCII map lists them all). */
static void
draw_unit(cairo_t *cr, const struct geo *g, const struct pic_unit *u,
    int nth, int n)
{
	struct rgb c = side_colour(u->side);
	double x, y, s = PIC_R * 0.78, sx, sy, fs = 1.0;
	char sp[16];

	centre(g, u->pos, &x, &y);
	if (n > 1) {
		int k = nth > 3 ? 3 : nth;

		fs = 0.62;
		s *= fs;
		x += (k % 2 == 0 ? -1 : 1) * s * 0.55;
		y += (k < 2 ? -1 : 1) * s * 0.55 + (n == 2 ? s * 0.55 : 0);
	}
	if (u->marker) {
		cairo_arc(cr, x, y, PIC_R * 0.36 * fs, 0, 2 * M_PI);
		cairo_set_source_rgb(cr, 1.0, 0.95, 0.55);
		cairo_fill_preserve(cr);
		set_rgb(cr, c, 1.0);
		cairo_set_line_width(cr, 1.5);
		cairo_stroke(cr);
		text_c(cr, x, y, n > 1 ? 6 : 8, u->label);
		return;
	}
	sx = x - s / 2;
	sy = y - s / 2;
	if (u->facing >= 0 && u->facing < 6) {	/* a wedge on the front */
		double dx, dy;

		dir_vec(g, u->facing, &dx, &dy);
		cairo_move_to(cr, x + dx * s * 0.95, y + dy * s * 0.95);
		cairo_line_to(cr, x + dx * s * 0.45 - dy * s * 0.3,
		    y + dy * s * 0.45 + dx * s * 0.3);
		cairo_line_to(cr, x + dx * s * 0.45 + dy * s * 0.3,
		    y + dy * s * 0.45 - dx * s * 0.3);
		cairo_close_path(cr);
		set_rgb(cr, c, 1.0);
		cairo_fill(cr);
	}
	cairo_rectangle(cr, sx, sy, s, s);
	set_rgb(cr, c, 1.0);
	cairo_fill_preserve(cr);
	cairo_set_line_width(cr, (u->state & PIC_SUPPRESSED) ? 3.0 : 1.2);
	if (u->state & PIC_SUPPRESSED)
		cairo_set_source_rgb(cr, 1.0, 0.85, 0.0);
	else
		cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
	cairo_stroke(cr);
	/* The NATO-style box of the type, top half of the counter. */
	cairo_set_line_width(cr, 1.0);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, sx + s * 0.2, sy + s * 0.12, s * 0.6, s * 0.34);
	cairo_stroke(cr);
	if (strcasestr(u->kind, "inf") != NULL || strcasestr(u->kind,
	    "section") != NULL) {
		cairo_move_to(cr, sx + s * 0.2, sy + s * 0.12);
		cairo_line_to(cr, sx + s * 0.8, sy + s * 0.46);
		cairo_move_to(cr, sx + s * 0.8, sy + s * 0.12);
		cairo_line_to(cr, sx + s * 0.2, sy + s * 0.46);
		cairo_stroke(cr);
	}
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_BOLD);
	text_c(cr, x - (u->strength >= 0 ? s * 0.15 : 0), sy + s * 0.74,
	    n > 1 ? 7 : 9, u->label);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_NORMAL);
	if (u->strength >= 0) {
		snprintf(sp, sizeof sp, "%d", u->strength);
		text_c(cr, sx + s * 0.82, sy + s * 0.74, n > 1 ? 6 : 8, sp);
	}
	if (u->state & PIC_SPENT) {	/* a black corner, top left */
		cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
		cairo_move_to(cr, sx, sy);
		cairo_line_to(cr, sx + s * 0.4, sy);
		cairo_line_to(cr, sx, sy + s * 0.4);
		cairo_close_path(cr);
		cairo_fill(cr);
	}
	if (u->state & PIC_HIT) {	/* a red dot, top right */
		cairo_arc(cr, sx + s, sy, 4.0, 0, 2 * M_PI);
		cairo_set_source_rgb(cr, 0.9, 0.0, 0.0);
		cairo_fill(cr);
	}
}

static void
draw_units(cairo_t *cr, const struct pic_model *m, const struct geo *g)
{
	int i, j, nth, n;

	for (i = 0; i < m->nunits; i++) {
		for (nth = 0, n = 0, j = 0; j < m->nunits; j++)
			if (hex_eq(m->units[j].pos, m->units[i].pos)) {
				n++;
				if (j < i)
					nth++;
			}
		draw_unit(cr, g, &m->units[i], nth, n);
	}
}

static void
arrow(cairo_t *cr, double x1, double y1, double x2, double y2, bool dashed)
{
	double a = atan2(y2 - y1, x2 - x1), h = 9.0;
	static const double dash[] = { 6.0, 4.0 };

	cairo_set_line_width(cr, 2.5);
	cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
	cairo_move_to(cr, x1, y1);
	cairo_line_to(cr, x2 - h * 0.6 * cos(a), y2 - h * 0.6 * sin(a));
	cairo_stroke(cr);
	cairo_set_dash(cr, dash, 0, 0);
	cairo_move_to(cr, x2, y2);
	cairo_line_to(cr, x2 - h * cos(a - 0.45), y2 - h * sin(a - 0.45));
	cairo_line_to(cr, x2 - h * cos(a + 0.45), y2 - h * sin(a + 0.45));
	cairo_close_path(cr);
	cairo_fill(cr);
}

static void
draw_arrows(cairo_t *cr, const struct pic_model *m, const struct geo *g)
{
	int i;

	for (i = 0; i < m->narrows; i++) {
		const struct pic_arrow *a = &m->arrows[i];
		double x1, y1, x2, y2;

		centre(g, a->from, &x1, &y1);
		centre(g, a->to, &x2, &y2);
		if (a->kind == PIC_FIRE)
			cairo_set_source_rgba(cr, 0.95, 0.45, 0.0, 0.9);
		else
			set_rgb(cr, side_colour(a->side), 0.85);
		arrow(cr, x1, y1, x2, y2, a->kind == PIC_FIRE);
	}
}

/* The legend's lines: terrains present, edge features, sides, symbols. */
static int
legend_lines(const struct pic_model *m)
{
	const char *seen[64], *lbl;
	int i, k, nseen = 0, n = 4 + m->nsides;	/* title, 3 lines of text */

	for (i = 1; i < PIC_MAX_EDGE_KINDS && m->edge_name[i][0]; i++)
		n++;
	for (i = 0; i < m->nhex && nseen < 64; i++) {
		(void)terrain_rgb(m->hexes[i].terrain, &lbl);
		for (k = 0; k < nseen && strcmp(seen[k], lbl) != 0; k++)
			;
		if (k == nseen)
			seen[nseen++] = lbl;
	}
	return n + nseen;
}

static void
draw_legend(cairo_t *cr, const struct pic_model *m, const struct geo *g)
{
	const char *seen[64];
	int nseen = 0, i, k;
	double x = 12, y = g->h + 16;

	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_BOLD);
	text_at(cr, x, y, 11, "Legend");
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_NORMAL);
	y += PIC_LEGEND_LINE;
	for (i = 0; i < m->nhex && nseen < 64; i++) {
		const char *lbl;
		struct rgb c = terrain_rgb(m->hexes[i].terrain, &lbl);

		for (k = 0; k < nseen; k++)
			if (strcmp(seen[k], lbl) == 0)
				break;
		if (k < nseen)
			continue;
		seen[nseen++] = lbl;
		cairo_rectangle(cr, x, y - 10, 14, 12);
		set_rgb(cr, c, 1.0);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		text_at(cr, x + 20, y, 10, lbl);
		y += PIC_LEGEND_LINE;
	}
	for (i = 1; i < PIC_MAX_EDGE_KINDS && m->edge_name[i][0]; i++) {
		set_rgb(cr, edge_rgb[i], 1.0);
		cairo_set_line_width(cr, 4);
		cairo_move_to(cr, x, y - 4);
		cairo_line_to(cr, x + 14, y - 4);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		text_at(cr, x + 20, y, 10, m->edge_name[i]);
		y += PIC_LEGEND_LINE;
	}
	for (i = 0; i < m->nsides; i++) {
		cairo_rectangle(cr, x, y - 10, 14, 12);
		set_rgb(cr, side_colour(i), 1.0);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		text_at(cr, x + 20, y, 10, m->side_name[i]);
		y += PIC_LEGEND_LINE;
	}
	text_at(cr, x, y, 10, "Counter: id, strength at right; a box with X: "
	    "infantry; a wedge: facing.");
	y += PIC_LEGEND_LINE;
	text_at(cr, x, y, 10, "Black corner: spent (moved or fired); yellow "
	    "border: suppressed; red dot: hit.");
	y += PIC_LEGEND_LINE;
	text_at(cr, x, y, 10, "Solid arrow: movement this turn; dashed orange "
	    "arrow: fire. Yellow disc: marker.");
}

static cairo_status_t
write_sbuf(void *closure, const unsigned char *data, unsigned int len)
{
	sbuf_add(closure, (const char *)data, len);
	return CAIRO_STATUS_SUCCESS;
}

static void
draw_all(cairo_t *cr, const struct pic_model *m, const struct geo *g,
    double w, double h)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, 0, 0, w, h);
	cairo_fill(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	text_at(cr, 10, 18, 13, m->title);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_NORMAL);
	draw_hexes(cr, m, g);
	draw_edges(cr, m, g);
	draw_coords(cr, m, g);
	draw_arrows(cr, m, g);
	draw_units(cr, m, g);
	draw_legend(cr, m, g);
}

/* Append the PNG chunk type (4 letters) with len bytes of data to out,
 * with its length and CRC. */
static void
png_chunk(struct sbuf *out, const char *type, const unsigned char *data,
    size_t len)
{
	unsigned char be[4];
	uLong crc;

	be[0] = (unsigned char)(len >> 24);
	be[1] = (unsigned char)(len >> 16);
	be[2] = (unsigned char)(len >> 8);
	be[3] = (unsigned char)len;
	sbuf_add(out, (const char *)be, 4);
	sbuf_add(out, type, 4);
	if (len > 0)
		sbuf_add(out, (const char *)data, len);
	crc = crc32(0L, (const Bytef *)type, 4);
	if (len > 0)
		crc = crc32(crc, data, (uInt)len);
	be[0] = (unsigned char)(crc >> 24);
	be[1] = (unsigned char)(crc >> 16);
	be[2] = (unsigned char)(crc >> 8);
	be[3] = (unsigned char)crc;
	sbuf_add(out, (const char *)be, 4);
}

/* The image surface s (RGB24) as a PNG appended to out: 8-bit RGB, rows
 * unfiltered, deflated at level 1 a row at a time into one IDAT chunk.
 * The pixels are cairo's; only the encoding is ours (issue 17): cairo's
 * own writer (libpng: every filter tried on each row, deflate level 6)
 * took about 90% of a picture's time, and a third of a resolved window's
 * CPU in the daemon, compressing. On a fire-and-movement map (460 x 735)
 * this one is 2 to 3 times faster to deflate and no larger (38.9 KB
 * against 40.2 KB). HEXPOST_PNG_CAIRO set in the environment: cairo's
 * writer (test_picture checks both give the same pixels). HP_OK or
 * HP_EINTERNAL. */
static int
png_encode(cairo_surface_t *s, struct sbuf *out, struct hp_error *err)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
	    0x1a, '\n' };
	int w = cairo_image_surface_get_width(s);
	int h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s), x, y, zrc;
	const unsigned char *data;
	unsigned char ihdr[13], *row, *p, chunk[16384];
	size_t rowlen = 1 + (size_t)w * 3;
	struct sbuf z;
	z_stream zs;

	cairo_surface_flush(s);
	if ((data = cairo_image_surface_get_data(s)) == NULL || w <= 0 ||
	    h <= 0) {
		hp_seterr(err, HP_EINTERNAL, "picture: no image to encode");
		return HP_EINTERNAL;
	}
	memset(&zs, 0, sizeof zs);
	if ((zrc = deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15, 8,
	    Z_DEFAULT_STRATEGY)) != Z_OK) {
		hp_seterr(err, HP_EINTERNAL, "picture: deflate failed (%d)",
		    zrc);
		return HP_EINTERNAL;
	}
	sbuf_init(&z);
	row = xmalloc(rowlen);
	for (y = 0; y < h && (zrc == Z_OK || zrc == Z_BUF_ERROR); y++) {
		const uint32_t *px = (const uint32_t *)(const void *)(data +
		    (size_t)y * (size_t)stride);

		p = row;
		*p++ = 0;	/* filter None */
		for (x = 0; x < w; x++) {
			*p++ = (unsigned char)(px[x] >> 16);
			*p++ = (unsigned char)(px[x] >> 8);
			*p++ = (unsigned char)px[x];
		}
		zs.next_in = row;
		zs.avail_in = (uInt)rowlen;
		do {
			zs.next_out = chunk;
			zs.avail_out = sizeof chunk;
			zrc = deflate(&zs, y == h - 1 ? Z_FINISH : Z_NO_FLUSH);
			sbuf_add(&z, (const char *)chunk, sizeof chunk -
			    zs.avail_out);
		} while (zs.avail_out == 0 && zrc != Z_STREAM_END &&
		    zrc != Z_STREAM_ERROR);
	}
	deflateEnd(&zs);
	free(row);
	if (zrc != Z_STREAM_END) {
		sbuf_free(&z);
		hp_seterr(err, HP_EINTERNAL, "picture: deflate failed (%d)",
		    zrc);
		return HP_EINTERNAL;
	}
	ihdr[0] = (unsigned char)(w >> 24);
	ihdr[1] = (unsigned char)(w >> 16);
	ihdr[2] = (unsigned char)(w >> 8);
	ihdr[3] = (unsigned char)w;
	ihdr[4] = (unsigned char)(h >> 24);
	ihdr[5] = (unsigned char)(h >> 16);
	ihdr[6] = (unsigned char)(h >> 8);
	ihdr[7] = (unsigned char)h;
	ihdr[8] = 8;	/* bits per sample */
	ihdr[9] = 2;	/* RGB */
	ihdr[10] = 0;	/* deflate */
	ihdr[11] = 0;	/* filter method 0: a filter byte per row */
	ihdr[12] = 0;	/* not interlaced */
	sbuf_add(out, (const char *)sig, sizeof sig);
	png_chunk(out, "IHDR", ihdr, sizeof ihdr);
	png_chunk(out, "IDAT", (const unsigned char *)z.buf, z.len);
	png_chunk(out, "IEND", NULL, 0);
	sbuf_free(&z);
	return HP_OK;
}

/* At exit: cairo's font caches and fontconfig's configuration go (they
 * live for the process otherwise; leak checkers count them). */
static void
picture_atexit(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}

int
picture_draw(const struct pic_model *m, bool svg, struct sbuf *out,
    struct hp_error *err)
{
	static bool registered;
	cairo_surface_t *s;
	cairo_t *cr;
	cairo_status_t st;
	struct geo g;
	double w, h;
	int nl = legend_lines(m);

	if (!registered)
		registered = atexit(picture_atexit) == 0;
	geo_init(&g, &m->layout);
	w = fmax(g.w, 460);
	h = g.h + 10 + nl * PIC_LEGEND_LINE;
	if (w > 8000 || h > 8000) {
		hp_seterr(err, HP_EINVAL, "picture: the map is too large to "
		    "draw (%.0f x %.0f pixels)", w, h);
		return HP_EINVAL;
	}
	if (svg) {
		s = cairo_svg_surface_create_for_stream(write_sbuf, out, w, h);
		cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
	} else
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w),
		    (int)ceil(h));
	cr = cairo_create(s);
	draw_all(cr, m, &g, w, h);
	st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && !svg && getenv("HEXPOST_PNG_CAIRO"))
		st = cairo_surface_write_to_png_stream(s, write_sbuf, out);
	else if (st == CAIRO_STATUS_SUCCESS && !svg &&
	    png_encode(s, out, err) != HP_OK) {
		cairo_surface_destroy(s);
		return HP_EINTERNAL;
	}
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		hp_seterr(err, HP_EINTERNAL, "picture: cairo: %s",
		    cairo_status_to_string(st));
		return HP_EINTERNAL;
	}
	return HP_OK;
}
