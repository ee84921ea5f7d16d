/* test_render: golden drawings of tiny flat and pointy maps, text and edge
 * placement (hexside direction to drawn edge, for every layout), missing
 * hexes, widths, and 7-bit output without trailing blanks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "hexpost.h"
#include "render.h"

#define FIX_MAX 128

struct feature {
	int col, row, dir;
	char c;
};

/* A test map: a layout, hexes that can be removed, per-hex text and
 * hexside features, all by offset coordinates. */
struct fix {
	struct hex_layout l;
	bool missing[FIX_MAX][FIX_MAX];
	const char *line1;	/* if set, second text line of every hex */
	struct feature feat[8];
	int nfeat;
	int cells_asked_missing; /* cell() called for a missing hex */
};

static const char *terrain[] = { "clear", "wood", "hills", "swamp" };

static bool
fix_exists(void *arg, struct hex h)
{
	struct fix *f = arg;
	struct hex_offset o = hex_to_offset(&f->l, h);

	return !f->missing[o.col][o.row];
}

static void
fix_cell(void *arg, struct hex h, struct render_cell *c)
{
	struct fix *f = arg;
	struct hex_offset o = hex_to_offset(&f->l, h);
	char buf[16];

	if (f->missing[o.col][o.row])
		f->cells_asked_missing++;
	hex_label(&f->l, h, buf, sizeof buf);
	strlcpy_(c->line[0], buf, sizeof c->line[0]);
	strlcpy_(c->line[1], f->line1 != NULL ? f->line1 :
	    terrain[(o.col + 2 * o.row) % 4], sizeof c->line[1]);
}

static char
fix_edge(void *arg, struct hex h, int dir)
{
	struct fix *f = arg;
	struct hex_offset o = hex_to_offset(&f->l, h);
	int i;

	for (i = 0; i < f->nfeat; i++)
		if (f->feat[i].col == o.col && f->feat[i].row == o.row &&
		    f->feat[i].dir == dir)
			return f->feat[i].c;
	return 0;
}

static void
fix_init(struct fix *f, enum hex_orient orient, enum hex_parity parity,
    int cols, int rows, int row_base)
{
	memset(f, 0, sizeof *f);
	f->l.orient = orient;
	f->l.parity = parity;
	f->l.cols = cols;
	f->l.rows = rows;
	f->l.row_base = row_base;
}

/* Render f; the caller frees the result. */
static char *
fix_render(struct fix *f)
{
	struct render_map m;
	struct sbuf b;

	m.layout = &f->l;
	m.arg = f;
	m.exists = fix_exists;
	m.cell = fix_cell;
	m.edge = fix_edge;
	sbuf_init(&b);
	render_hexmap(&m, &b);
	return sbuf_steal(&b);
}

/* The character at (x, y) of a drawing, ' ' past the end of a line. */
static char
at(const char *s, int x, int y)
{
	const char *nl;

	while (y-- > 0) {
		if ((nl = strchr(s, '\n')) == NULL)
			return ' ';
		s = nl + 1;
	}
	nl = strchr(s, '\n');
	if (nl == NULL)
		nl = s + strlen(s);
	return x < nl - s ? s[x] : ' ';
}

/* Does text t appear at (x, y)? */
static bool
text_at(const char *s, int x, int y, const char *t)
{
	size_t i;

	for (i = 0; t[i] != '\0'; i++)
		if (at(s, x + (int)i, y) != t[i])
			return false;
	return true;
}

/* Widest line; also checks 7-bit printable text, no trailing blanks and
 * a final newline. */
static int
check_lines(const char *s)
{
	const char *p, *nl;
	int w = 0;

	assert_true(*s != '\0');
	for (p = s; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		if (nl > p)
			assert_true(nl[-1] != ' ');
		if (nl - p > w)
			w = (int)(nl - p);
		for (; p < nl; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
	}
	return w;
}

static void
test_flat_even_golden(void **state)
{
	struct fix f;
	char *s;
	static const char want[] =
	    "      A      B\n"
	    "           _____\n"
	    "          /     \\\n"
	    "    _____/  B1   \\\n"
	    "   /     \\ wood  /\n"
	    "1 /  A1   \\_____/\n"
	    "  \\ clear /     \\\n"
	    "   \\_____/  B2   \\\n"
	    "   /     \\ swamp /\n"
	    "2 /  A2   \\_____/\n"
	    "  \\ hills /\n"
	    "   \\_____/\n";

	(void)state;
	fix_init(&f, HEX_FLAT, HEX_EVEN, 2, 2, 1);
	s = fix_render(&f);
	assert_string_equal(s, want);
	assert_int_equal(check_lines(s), render_width(&f.l));
	free(s);
}

static void
test_pointy_odd_golden(void **state)
{
	struct fix f;
	char *s;
	static const char want[] =
	    "      A       B\n"
	    "     / \\     / \\\n"
	    "   /     \\ /     \\\n"
	    "1 |  A1   |  B1   |\n"
	    "  | clear | wood  |\n"
	    "   \\     / \\     / \\\n"
	    "     \\ /     \\ /     \\\n"
	    "2     |  A2   |  B2   |\n"
	    "      | hills | swamp |\n"
	    "       \\     / \\     /\n"
	    "         \\ /     \\ /\n";

	(void)state;
	fix_init(&f, HEX_POINTY, HEX_ODD, 2, 2, 1);
	s = fix_render(&f);
	assert_string_equal(s, want);
	assert_int_equal(check_lines(s), render_width(&f.l));
	free(s);
}

/* Text and row numbers land where the geometry says: flat origin
 * (2 + 7 col, 1 + 4 row + 2 if shoved), pointy (2 + 8 col + 4 if shoved,
 * 1 + 4 row); text lines 2 and 3 below, centred in columns 1..7. */
static void
test_cell_position(void **state)
{
	struct fix f;
	char *s;

	(void)state;
	/* Flat even-q: B3 is col 1 (not shoved), row 2: origin (9, 9). */
	fix_init(&f, HEX_FLAT, HEX_EVEN, 3, 6, 1);
	s = fix_render(&f);
	assert_true(text_at(s, 9, 11, "/  B3   \\"));
	assert_true(text_at(s, 9, 12, "\\ wood  /"));
	/* A3 (shoved) has its first text line, and the row number, on 13. */
	assert_true(text_at(s, 0, 13, "3 /  A3   \\"));
	assert_true(text_at(s, 16, 13, "/  C3   \\"));
	free(s);

	/* Pointy odd-r: C2 is col 2, row 1 (shoved): origin (22, 5). */
	fix_init(&f, HEX_POINTY, HEX_ODD, 3, 3, 1);
	f.line1 = "12345";
	s = fix_render(&f);
	assert_true(text_at(s, 22, 7, "|  C2   |"));
	assert_true(text_at(s, 22, 8, "| 12345 |"));
	assert_true(text_at(s, 0, 7, "2     |  A2"));
	/* Column letters over the row 0 hexes. */
	assert_true(text_at(s, 0, 0, "      A       B       C"));
	free(s);
}

static void
test_missing_hex(void **state)
{
	struct fix f;
	char *s;
	int y;
	static const char want[] =
	    "      A      B\n"
	    "           _____\n"
	    "          /     \\\n"
	    "    _____/  B1   \\\n"
	    "   /     \\ wood  /\n"
	    "1 /  A1   \\_____/\n"
	    "  \\ clear /\n"
	    "   \\_____/\n";

	(void)state;
	/* The bottom row gone: no row number for it and no trailing blank
	 * lines remain. */
	fix_init(&f, HEX_FLAT, HEX_EVEN, 2, 2, 1);
	f.missing[0][1] = true;
	f.missing[1][1] = true;
	s = fix_render(&f);
	assert_string_equal(s, want);
	assert_int_equal(f.cells_asked_missing, 0);
	free(s);

	/* The middle hex B2 of a 3x3 flat odd-q map (origin (9, 7)): its
	 * text is gone, its outline is still drawn by its six neighbours. */
	fix_init(&f, HEX_FLAT, HEX_ODD, 3, 3, 1);
	f.missing[1][1] = true;
	s = fix_render(&f);
	check_lines(s);
	assert_null(strstr(s, "B2"));
	assert_true(text_at(s, 11, 7, "_____"));
	assert_true(text_at(s, 9, 8, " /     \\"));
	assert_true(text_at(s, 9, 9, "/       \\"));
	assert_true(text_at(s, 9, 10, "\\       /"));
	assert_true(text_at(s, 9, 11, " \\_____/"));
	assert_int_equal(f.cells_asked_missing, 0);
	free(s);

	/* A lone missing corner A1 (origin (2, 1)): nothing drawn there, as
	 * its only neighbour B1 (south-east) does not reach there; the row
	 * number stays since B1 and C1 exist. */
	fix_init(&f, HEX_FLAT, HEX_ODD, 3, 3, 1);
	f.missing[0][0] = true;
	s = fix_render(&f);
	check_lines(s);
	assert_null(strstr(s, "A1"));
	for (y = 1; y <= 4; y++)
		assert_true(text_at(s, 2, y, "       "));
	assert_true(text_at(s, 0, 3, "1"));
	assert_true(text_at(s, 9, 5, "/  B1"));
	free(s);
}

/* Cells of each drawn edge, relative to the hex origin. */
struct cells {
	int n;
	int xy[5][2];
};
static const struct cells flat_n = { 5, { { 2, 0 }, { 3, 0 }, { 4, 0 },
    { 5, 0 }, { 6, 0 } } };
static const struct cells flat_ne = { 2, { { 7, 1 }, { 8, 2 } } };
static const struct cells flat_se = { 2, { { 8, 3 }, { 7, 4 } } };
static const struct cells flat_s = { 5, { { 2, 4 }, { 3, 4 }, { 4, 4 },
    { 5, 4 }, { 6, 4 } } };
static const struct cells flat_sw = { 2, { { 0, 3 }, { 1, 4 } } };
static const struct cells flat_nw = { 2, { { 1, 1 }, { 0, 2 } } };
static const struct cells pointy_ne = { 2, { { 5, 0 }, { 7, 1 } } };
static const struct cells pointy_e = { 2, { { 8, 2 }, { 8, 3 } } };
static const struct cells pointy_se = { 2, { { 7, 4 }, { 5, 5 } } };
static const struct cells pointy_sw = { 2, { { 1, 4 }, { 3, 5 } } };
static const struct cells pointy_w = { 2, { { 0, 2 }, { 0, 3 } } };
static const struct cells pointy_nw = { 2, { { 3, 0 }, { 1, 1 } } };

/* hex_directions (+1,0) (+1,-1) (0,-1) (-1,0) (-1,+1) (0,+1) as drawn. */
static const struct cells *flat_dir[6] = {
	&flat_se, &flat_ne, &flat_n, &flat_nw, &flat_sw, &flat_s
};
static const struct cells *pointy_dir[6] = {
	&pointy_e, &pointy_ne, &pointy_nw, &pointy_w, &pointy_sw, &pointy_se
};

static int
count_char(const char *s, char c)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == c;
	return n;
}

/* Every direction of the middle hex of a 3x3 map, in every layout, asked
 * of the hex itself or of the neighbour across the edge. */
static void
test_edge_feature(void **state)
{
	struct fix f;
	struct hex h, nb;
	struct hex_offset o, mid = { 1, 1 };
	const struct cells *c;
	char *s;
	int orient, parity, dir, side, x0, y0, i;

	(void)state;
	for (orient = 0; orient < 2; orient++)
	for (parity = 0; parity < 2; parity++)
	for (dir = 0; dir < 6; dir++)
	for (side = 0; side < 2; side++) {
		fix_init(&f, orient ? HEX_POINTY : HEX_FLAT,
		    parity ? HEX_EVEN : HEX_ODD, 3, 3, 1);
		h = hex_from_offset(&f.l, mid);
		f.nfeat = 1;
		if (side == 0) {
			f.feat[0] = (struct feature){ 1, 1, dir, '#' };
		} else {
			nb = hex_neighbour(h, dir);
			assert_true(hex_in_layout(&f.l, nb));
			o = hex_to_offset(&f.l, nb);
			f.feat[0] = (struct feature){ o.col, o.row,
			    (dir + 3) % 6, '#' };
		}
		s = fix_render(&f);
		check_lines(s);
		if (orient == 0) {
			c = flat_dir[dir];
			x0 = 9;
			y0 = 5 + 2 * (f.l.parity == HEX_ODD);
		} else {
			c = pointy_dir[dir];
			x0 = 10 + 4 * (f.l.parity == HEX_ODD);
			y0 = 5;
		}
		assert_int_equal(count_char(s, '#'), c->n);
		for (i = 0; i < c->n; i++)
			assert_int_equal(at(s, x0 + c->xy[i][0],
			    y0 + c->xy[i][1]), '#');
		free(s);
	}

	/* An edge on the map border, and a non-ASCII feature character. */
	fix_init(&f, HEX_FLAT, HEX_EVEN, 2, 2, 1);
	f.nfeat = 2;
	f.feat[0] = (struct feature){ 1, 0, 2, '~' };	/* B1 north */
	f.feat[1] = (struct feature){ 0, 1, 4, (char)0xb0 }; /* A2 SW */
	s = fix_render(&f);
	check_lines(s);
	assert_true(text_at(s, 9, 1, "  ~~~~~"));
	assert_int_equal(at(s, 2, 10), '?');
	assert_int_equal(at(s, 3, 11), '?');
	free(s);
}

static void
test_widths(void **state)
{
	struct fix f;
	char *s;
	int orient, parity, cols, rows, b, w;
	static const int bases[] = { 0, 1, 9, -3 };

	(void)state;
	fix_init(&f, HEX_FLAT, HEX_EVEN, 3, 6, 0);
	assert_true(render_width(&f.l) <= 72);
	s = fix_render(&f);
	assert_int_equal(check_lines(s), render_width(&f.l));
	free(s);

	/* Twelve flat columns, rows numbered up to 99, fit in 100. */
	fix_init(&f, HEX_FLAT, HEX_ODD, 12, 99, 1);
	assert_true(render_width(&f.l) <= 100);
	s = fix_render(&f);
	assert_int_equal(check_lines(s), render_width(&f.l));
	free(s);

	for (orient = 0; orient < 2; orient++)
	for (parity = 0; parity < 2; parity++)
	for (cols = 1; cols <= 5; cols++)
	for (rows = 1; rows <= 5; rows++)
	for (b = 0; b < 4; b++) {
		fix_init(&f, orient ? HEX_POINTY : HEX_FLAT,
		    parity ? HEX_EVEN : HEX_ODD, cols, rows, bases[b]);
		s = fix_render(&f);
		w = check_lines(s);
		assert_int_equal(w, render_width(&f.l));
		free(s);
	}

	/* Two-letter columns. */
	for (orient = 0; orient < 2; orient++) {
		fix_init(&f, orient ? HEX_POINTY : HEX_FLAT, HEX_ODD, 28, 2, 1);
		s = fix_render(&f);
		assert_int_equal(check_lines(s), render_width(&f.l));
		assert_non_null(strstr(s, " Z "));
		assert_non_null(strstr(s, " AB"));
		free(s);
	}

	/* No hexes, nothing drawn. */
	fix_init(&f, HEX_FLAT, HEX_ODD, 0, 3, 1);
	assert_int_equal(render_width(&f.l), 0);
	s = fix_render(&f);
	assert_string_equal(s, "");
	free(s);
}

/* Text from the caller is cut to RENDER_CELL_W and kept to 7-bit
 * printable characters. */
static void
test_seven_bit(void **state)
{
	struct fix f;
	char *s;
	const char *p;

	(void)state;
	fix_init(&f, HEX_POINTY, HEX_EVEN, 2, 2, 1);
	f.line1 = "\xc3\xa9t\t\x7f";
	s = fix_render(&f);
	assert_int_equal(check_lines(s), render_width(&f.l));
	assert_non_null(strstr(s, "??t??"));
	for (p = s; *p != '\0'; p++)
		assert_true((unsigned char)*p < 0x80);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_even_golden),
		cmocka_unit_test(test_pointy_odd_golden),
		cmocka_unit_test(test_cell_position),
		cmocka_unit_test(test_missing_hex),
		cmocka_unit_test(test_edge_feature),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_seven_bit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
