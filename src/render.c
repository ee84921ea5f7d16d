/* render: ASCII (7-bit) drawing of hex maps. The map is drawn on a character
 * canvas: first every existing hex's plain edges and text, then the hexside
 * features on top, then the canvas is written out line by line with trailing
 * blanks removed.
 *
 * Flat-topped hexes (column pitch 7, row pitch 4, shoved columns 2 lines
 * down), origin at the top-left corner of the cell box:
 *
 *	  _____
 *	 /     \
 *	/ text0 \
 *	\ text1 /
 *	 \_____/
 *
 * Pointy-topped hexes (column pitch 8, row pitch 4, shoved rows 4 columns
 * right):
 *
 *	   / \
 *	 /     \
 *	| text0 |
 *	| text1 |
 *	 \     /
 *	   \ /
 *
 * Neighbouring hexes share their edge characters. Text lines are 7 columns
 * wide inside, so a RENDER_CELL_W (5) text keeps a blank on each side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define FLAT_PITCH_X	7
#define FLAT_PITCH_Y	4
#define FLAT_SHOVE	2	/* lines a shoved column goes down */
#define POINTY_PITCH_X	8
#define POINTY_PITCH_Y	4
#define POINTY_SHOVE	4	/* columns a shoved row goes right */
#define HEX_BOX_W	9	/* columns of one hex drawing */
#define FLAT_BOX_H	5	/* lines of one flat hex drawing */
#define POINTY_BOX_H	6	/* lines of one pointy hex drawing */
#define TEXT_X		1	/* first column inside, on the text lines */
#define TEXT_W		7	/* width inside, on the text lines */
#define TEXT_Y		2	/* first text line of the box */
/* Larger layouts are not drawn (and would not be read by anyone); the
 * bound keeps the canvas arithmetic far from overflow. */
#define RENDER_MAXDIM	1024

/* The drawn edges of a hex, clockwise from the top. */
enum edge {
	EDGE_N, EDGE_NE, EDGE_E, EDGE_SE, EDGE_S, EDGE_SW, EDGE_W, EDGE_NW,
	EDGE_COUNT
};

struct edge_art {
	char ch;		/* plain line character; 0 if not in this orient */
	int n;			/* cells */
	struct {
		int x, y;
	} at[5];		/* relative to the hex origin */
};

static const struct edge_art flat_art[EDGE_COUNT] = {
	[EDGE_N] = { '_', 5, { { 2, 0 }, { 3, 0 }, { 4, 0 }, { 5, 0 },
	    { 6, 0 } } },
	[EDGE_NE] = { '\\', 2, { { 7, 1 }, { 8, 2 } } },
	[EDGE_SE] = { '/', 2, { { 8, 3 }, { 7, 4 } } },
	[EDGE_S] = { '_', 5, { { 2, 4 }, { 3, 4 }, { 4, 4 }, { 5, 4 },
	    { 6, 4 } } },
	[EDGE_SW] = { '\\', 2, { { 0, 3 }, { 1, 4 } } },
	[EDGE_NW] = { '/', 2, { { 1, 1 }, { 0, 2 } } },
};

static const struct edge_art pointy_art[EDGE_COUNT] = {
	[EDGE_NE] = { '\\', 2, { { 5, 0 }, { 7, 1 } } },
	[EDGE_E] = { '|', 2, { { 8, 2 }, { 8, 3 } } },
	[EDGE_SE] = { '/', 2, { { 7, 4 }, { 5, 5 } } },
	[EDGE_SW] = { '\\', 2, { { 1, 4 }, { 3, 5 } } },
	[EDGE_W] = { '|', 2, { { 0, 2 }, { 0, 3 } } },
	[EDGE_NW] = { '/', 2, { { 3, 0 }, { 1, 1 } } },
};

/* Where things go for one layout. */
struct geom {
	const struct hex_layout *l;
	int labw;		/* width of the row numbers */
	int left;		/* column of the leftmost hex origin */
	int top;		/* line of the topmost hex origin */
	int width;
	int height;
};

struct canvas {
	char *c;
	int w;
	int h;
};

/* Is the column (flat) or row (pointy) with this index shoved? */
static int
shoved(const struct hex_layout *l, int idx)
{
	int odd = idx & 1;	/* also right for negative idx */

	return l->parity == HEX_ODD ? odd : !odd;
}

/* Width of the row number n as printed. */
static int
num_width(int n)
{
	char buf[16];

	return snprintf(buf, sizeof buf, "%d", n);
}

/* Fill in the geometry of layout l; false if it has no hexes. */
static bool
geom_init(struct geom *g, const struct hex_layout *l)
{
	int lo, hi, w1, w2;

	memset(g, 0, sizeof *g);
	g->l = l;
	if (l->cols < 1 || l->rows < 1 || l->cols > RENDER_MAXDIM ||
	    l->rows > RENDER_MAXDIM)
		return false;
	w1 = num_width(l->row_base);
	w2 = num_width(l->row_base + l->rows - 1);
	g->labw = w1 > w2 ? w1 : w2;
	/* Shoves present: both kinds unless there is a single column (flat)
	 * or row (pointy). */
	lo = hi = shoved(l, 0);
	if ((l->orient == HEX_FLAT ? l->cols : l->rows) > 1) {
		lo = 0;
		hi = 1;
	}
	if (l->orient == HEX_FLAT) {
		g->left = g->labw + 1;
		g->top = 1 - lo * FLAT_SHOVE;
		g->width = g->left + FLAT_PITCH_X * (l->cols - 1) + HEX_BOX_W;
		g->height = 1 + FLAT_PITCH_Y * (l->rows - 1) +
		    (hi - lo) * FLAT_SHOVE + FLAT_BOX_H;
	} else {
		g->left = g->labw + 1 - lo * POINTY_SHOVE;
		g->top = 1;
		g->width = g->labw + 1 + POINTY_PITCH_X * (l->cols - 1) +
		    (hi - lo) * POINTY_SHOVE + HEX_BOX_W;
		g->height = 1 + POINTY_PITCH_Y * (l->rows - 1) + POINTY_BOX_H;
	}
	return true;
}

/* Canvas position of the top-left corner of the box of offset o. */
static void
geom_origin(const struct geom *g, struct hex_offset o, int *x, int *y)
{
	if (g->l->orient == HEX_FLAT) {
		*x = g->left + FLAT_PITCH_X * o.col;
		*y = g->top + FLAT_PITCH_Y * o.row +
		    shoved(g->l, o.col) * FLAT_SHOVE;
	} else {
		*x = g->left + POINTY_PITCH_X * o.col +
		    shoved(g->l, o.row) * POINTY_SHOVE;
		*y = g->top + POINTY_PITCH_Y * o.row;
	}
}

/* The drawn edge between hexes whose origins differ by (dx, dy), or -1. */
static int
edge_between(enum hex_orient orient, int dx, int dy)
{
	if (orient == HEX_FLAT) {
		if (dx == 0 && (dy == FLAT_PITCH_Y || dy == -FLAT_PITCH_Y))
			return dy < 0 ? EDGE_N : EDGE_S;
		if ((dx != FLAT_PITCH_X && dx != -FLAT_PITCH_X) ||
		    (dy != FLAT_SHOVE && dy != -FLAT_SHOVE))
			return -1;
		if (dx > 0)
			return dy < 0 ? EDGE_NE : EDGE_SE;
		return dy < 0 ? EDGE_NW : EDGE_SW;
	}
	if (dy == 0 && (dx == POINTY_PITCH_X || dx == -POINTY_PITCH_X))
		return dx > 0 ? EDGE_E : EDGE_W;
	if ((dx != POINTY_SHOVE && dx != -POINTY_SHOVE) ||
	    (dy != POINTY_PITCH_Y && dy != -POINTY_PITCH_Y))
		return -1;
	if (dy < 0)
		return dx > 0 ? EDGE_NE : EDGE_NW;
	return dx > 0 ? EDGE_SE : EDGE_SW;
}

/* Replace anything but printable 7-bit ASCII. */
static char
printable(char c)
{
	unsigned char u = (unsigned char)c;

	return u >= 0x20 && u < 0x7f ? c : '?';
}

static void
canvas_put(struct canvas *cv, int x, int y, char c)
{
	if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
		return;
	cv->c[(size_t)y * (size_t)cv->w + (size_t)x] = c;
}

/* Write s (at most max characters) starting at (x, y). */
static void
canvas_text(struct canvas *cv, int x, int y, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i] != '\0'; i++)
		canvas_put(cv, x + (int)i, y, printable(s[i]));
}

/* Does h exist on the map (inside the layout and, if asked, existing)? */
static bool
map_has(const struct render_map *m, struct hex h)
{
	if (!hex_in_layout(m->layout, h))
		return false;
	return m->exists == NULL || m->exists(m->arg, h);
}

/* Draw edge e of the hex at (x, y) with c, or its plain character if 0. */
static void
draw_edge(struct canvas *cv, const struct edge_art *art, int e, int x, int y,
    char c)
{
	int i;

	if (c == 0)
		c = art[e].ch;
	for (i = 0; i < art[e].n; i++)
		canvas_put(cv, x + art[e].at[i].x, y + art[e].at[i].y, c);
}

/* Draw the plain outline and the text of the hex at offset o. */
static void
draw_hex(const struct render_map *m, const struct geom *g, struct canvas *cv,
    struct hex_offset o)
{
	const struct edge_art *art;
	struct render_cell cell;
	struct hex h;
	size_t n;
	int x, y, e, i;

	art = m->layout->orient == HEX_FLAT ? flat_art : pointy_art;
	geom_origin(g, o, &x, &y);
	for (e = 0; e < EDGE_COUNT; e++)
		if (art[e].ch != 0)
			draw_edge(cv, art, e, x, y, 0);
	if (m->cell == NULL)
		return;
	h = hex_from_offset(m->layout, o);
	memset(&cell, 0, sizeof cell);
	m->cell(m->arg, h, &cell);
	for (i = 0; i < 2; i++) {
		n = strnlen(cell.line[i], RENDER_CELL_W);
		canvas_text(cv, x + TEXT_X + (TEXT_W - (int)n) / 2,
		    y + TEXT_Y + i, cell.line[i], n);
	}
}

/* Draw the hexside features of the hex at offset o over the outlines. */
static void
draw_features(const struct render_map *m, const struct geom *g,
    struct canvas *cv, struct hex_offset o)
{
	const struct edge_art *art;
	struct hex h, nb;
	int x, y, nx, ny, dir, e;
	char c;

	art = m->layout->orient == HEX_FLAT ? flat_art : pointy_art;
	h = hex_from_offset(m->layout, o);
	geom_origin(g, o, &x, &y);
	for (dir = 0; dir < 6; dir++) {
		nb = hex_neighbour(h, dir);
		c = m->edge(m->arg, h, dir);
		if (c == 0 && map_has(m, nb))
			c = m->edge(m->arg, nb, (dir + 3) % 6);
		if (c == 0)
			continue;
		geom_origin(g, hex_to_offset(m->layout, nb), &nx, &ny);
		e = edge_between(m->layout->orient, nx - x, ny - y);
		if (e >= 0 && art[e].ch != 0)
			draw_edge(cv, art, e, x, y, printable(c));
	}
}

/* Does any hex of column col (row < 0) or row row (col < 0) exist? */
static bool
line_has(const struct render_map *m, int col, int row)
{
	const struct hex_layout *l = m->layout;
	struct hex_offset o;
	int i, n;

	n = col < 0 ? l->cols : l->rows;
	for (i = 0; i < n; i++) {
		o.col = col < 0 ? i : col;
		o.row = col < 0 ? row : i;
		if (map_has(m, hex_from_offset(l, o)))
			return true;
	}
	return false;
}

/* Column letters above the columns and row numbers on the left, at the
 * first text line of each row's hex in column A; only for columns and rows
 * with a hex on the map. */
static void
draw_labels(const struct render_map *m, const struct geom *g,
    struct canvas *cv)
{
	const struct hex_layout *l = m->layout;
	struct hex_offset o;
	char buf[32];
	size_t n;
	int x, y;

	for (o.col = 0, o.row = 0; o.col < l->cols; o.col++) {
		if (!line_has(m, o.col, -1))
			continue;
		hex_label(l, hex_from_offset(l, o), buf, sizeof buf);
		for (n = 0; buf[n] >= 'A' && buf[n] <= 'Z'; n++)
			;
		geom_origin(g, o, &x, &y);
		canvas_text(cv, x + HEX_BOX_W / 2 - ((int)n - 1) / 2, 0, buf,
		    n);
	}
	for (o.col = 0, o.row = 0; o.row < l->rows; o.row++) {
		if (!line_has(m, -1, o.row))
			continue;
		n = (size_t)snprintf(buf, sizeof buf, "%d", o.row + l->row_base);
		geom_origin(g, o, &x, &y);
		canvas_text(cv, g->labw - (int)n, y + TEXT_Y, buf, n);
	}
}

/* Append the canvas without trailing blanks on lines or at the end. */
static void
canvas_out(const struct canvas *cv, struct sbuf *out)
{
	const char *line;
	int y, last, n;

	for (last = cv->h - 1; last >= 0; last--) {
		line = cv->c + (size_t)last * (size_t)cv->w;
		for (n = cv->w; n > 0 && line[n - 1] == ' '; n--)
			;
		if (n > 0)
			break;
	}
	for (y = 0; y <= last; y++) {
		line = cv->c + (size_t)y * (size_t)cv->w;
		for (n = cv->w; n > 0 && line[n - 1] == ' '; n--)
			;
		sbuf_add(out, line, (size_t)n);
		sbuf_add(out, "\n", 1);
	}
}

void
render_hexmap(const struct render_map *m, struct sbuf *out)
{
	const struct hex_layout *l = m->layout;
	struct canvas cv;
	struct geom g;
	struct hex_offset o;

	if (!geom_init(&g, l))
		return;
	cv.w = g.width;
	cv.h = g.height;
	cv.c = xmalloc((size_t)cv.w * (size_t)cv.h);
	memset(cv.c, ' ', (size_t)cv.w * (size_t)cv.h);
	draw_labels(m, &g, &cv);
	for (o.row = 0; o.row < l->rows; o.row++)
		for (o.col = 0; o.col < l->cols; o.col++)
			if (map_has(m, hex_from_offset(l, o)))
				draw_hex(m, &g, &cv, o);
	if (m->edge != NULL) {
		for (o.row = 0; o.row < l->rows; o.row++)
			for (o.col = 0; o.col < l->cols; o.col++)
				if (map_has(m, hex_from_offset(l, o)))
					draw_features(m, &g, &cv, o);
	}
	canvas_out(&cv, out);
	free(cv.c);
}

/* Exact for maps whose rightmost hexes exist (a smaller drawing otherwise);
 * 0 for layouts with no hexes or over RENDER_MAXDIM, which are not drawn. */
int
render_width(const struct hex_layout *l)
{
	struct geom g;

	if (!geom_init(&g, l))
		return 0;
	return g.width;
}
