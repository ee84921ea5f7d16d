/* Unit tests for hex: coordinates, offset layouts, labels, line of sight. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "hex.h"

static const struct hex_layout layouts[4] = {
	{ HEX_FLAT, HEX_ODD, 10, 8, 1 },
	{ HEX_FLAT, HEX_EVEN, 10, 8, 1 },
	{ HEX_POINTY, HEX_ODD, 10, 8, 1 },
	{ HEX_POINTY, HEX_EVEN, 10, 8, 1 },
};

/* The game's map: columns A..C, flat-topped, A and C half a hex lower
 * than B, rows 0..5 labelled from 0. */
static const struct hex_layout game = { HEX_FLAT, HEX_EVEN, 3, 6, 0 };

static struct hex
H(int q, int r)
{
	struct hex h = { q, r };

	return h;
}

/* Axial hex of a label on layout l; fails the test if it does not parse. */
static struct hex
L(const struct hex_layout *l, const char *s)
{
	struct hex h;

	assert_true(hex_parse_label(l, s, &h));
	return h;
}

/* A5 and C5 would stick out below B5, so the game map leaves them out. */
static bool
game_exists(struct hex h)
{
	struct hex_offset o = hex_to_offset(&game, h);

	if (!hex_in_layout(&game, h))
		return false;
	return !(o.row == 5 && o.col != 1);
}

static void
test_basic(void **state)
{
	(void)state;
	assert_int_equal(hex_s(H(2, -5)), 3);
	assert_int_equal(hex_s(H(0, 0)), 0);
	assert_true(hex_eq(H(3, -1), H(3, -1)));
	assert_false(hex_eq(H(3, -1), H(-1, 3)));
	assert_false(hex_eq(H(3, -1), H(3, 1)));
	assert_true(hex_eq(hex_add(H(1, 2), H(-4, 7)), H(-3, 9)));
	assert_true(hex_eq(hex_sub(H(1, 2), H(-4, 7)), H(5, -5)));
}

static void
test_directions(void **state)
{
	static const int want[6][2] = {
		{ 1, 0 }, { 1, -1 }, { 0, -1 }, { -1, 0 }, { -1, 1 }, { 0, 1 }
	};
	struct hex c = H(4, -7), n;
	int d;

	(void)state;
	for (d = 0; d < 6; d++) {
		assert_int_equal(hex_directions[d].q, want[d][0]);
		assert_int_equal(hex_directions[d].r, want[d][1]);
		n = hex_neighbour(c, d);
		assert_true(hex_eq(n, H(c.q + want[d][0], c.r + want[d][1])));
		assert_int_equal(hex_distance(c, n), 1);
		assert_true(hex_adjacent(c, n));
		assert_true(hex_adjacent(n, c));
		assert_int_equal(hex_direction_to(c, n), d);
		assert_int_equal(hex_direction_to(n, c), (d + 3) % 6);
		assert_true(hex_eq(hex_neighbour(n, d + 3), c));
		assert_true(hex_eq(hex_neighbour(c, d - 6), n));
		assert_true(hex_eq(hex_neighbour(c, d + 12), n));
	}
	assert_int_equal(hex_direction_to(c, c), -1);
	assert_false(hex_adjacent(c, c));
	assert_int_equal(hex_direction_to(c, H(6, -7)), -1);
	assert_false(hex_adjacent(c, H(6, -7)));
	assert_int_equal(hex_direction_to(c, H(5, -6)), -1);
	assert_false(hex_adjacent(c, H(5, -6)));
}

static void
test_distance(void **state)
{
	struct hex a, b;
	int q, r, k, count;

	(void)state;
	assert_int_equal(hex_distance(H(0, 0), H(0, 0)), 0);
	assert_int_equal(hex_distance(H(0, 0), H(3, 0)), 3);
	assert_int_equal(hex_distance(H(0, 0), H(3, -1)), 3);
	assert_int_equal(hex_distance(H(0, 0), H(2, 2)), 4);
	assert_int_equal(hex_distance(H(0, 0), H(-2, 3)), 3);
	assert_int_equal(hex_distance(H(-3, 4), H(2, -1)), 5);
	assert_int_equal(hex_distance(H(1, -5), H(-4, 2)), 7);

	/* Ring k around a has 6k hexes. */
	a = H(2, -1);
	for (k = 0; k <= 5; k++) {
		count = 0;
		for (q = -8; q <= 12; q++)
			for (r = -11; r <= 9; r++) {
				b = H(q, r);
				if (hex_distance(a, b) == k)
					count++;
				assert_int_equal(hex_distance(a, b),
				    hex_distance(b, a));
			}
		assert_int_equal(count, k == 0 ? 1 : 6 * k);
	}
}

static void
test_offset_roundtrip(void **state)
{
	struct hex_offset o, o2;
	struct hex h, h2;
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		for (o.col = -7; o.col <= 13; o.col++)
			for (o.row = -7; o.row <= 13; o.row++) {
				h = hex_from_offset(&layouts[i], o);
				o2 = hex_to_offset(&layouts[i], h);
				assert_int_equal(o2.col, o.col);
				assert_int_equal(o2.row, o.row);
			}
		for (h.q = -9; h.q <= 9; h.q++)
			for (h.r = -9; h.r <= 9; h.r++) {
				o = hex_to_offset(&layouts[i], h);
				h2 = hex_from_offset(&layouts[i], o);
				assert_true(hex_eq(h, h2));
			}
		/* Offset (0, 0) is the axial origin in every layout. */
		o.col = o.row = 0;
		assert_true(hex_eq(hex_from_offset(&layouts[i], o), H(0, 0)));
	}
}

/* Checks that the hexes adjacent to offset (col, row) within a window are
 * exactly the six given offsets. */
static void
check_offset_neighbours(const struct hex_layout *l, int col, int row,
    const int want[6][2])
{
	struct hex_offset c = { col, row }, o;
	struct hex h = hex_from_offset(l, c);
	int k, found, seen = 0;

	for (o.col = col - 3; o.col <= col + 3; o.col++)
		for (o.row = row - 3; o.row <= row + 3; o.row++) {
			found = 0;
			for (k = 0; k < 6; k++)
				if (want[k][0] == o.col && want[k][1] == o.row)
					found = 1;
			assert_int_equal(hex_adjacent(h,
			    hex_from_offset(l, o)), found);
			seen += found;
		}
	assert_int_equal(seen, 6);
}

static void
test_offset_parity(void **state)
{
	/* Red Blob Games offset neighbour tables. */
	static const int oddq_odd[6][2] = {
		{ 1, 2 }, { 0, 1 }, { 0, 2 }, { 2, 1 }, { 2, 2 }, { 1, 0 }
	};
	static const int oddq_even[6][2] = {
		{ 2, 0 }, { 2, 2 }, { 1, 0 }, { 1, 1 }, { 3, 0 }, { 3, 1 }
	};
	static const int evenq_even[6][2] = {
		{ 0, 0 }, { 0, 2 }, { 1, 1 }, { 1, 2 }, { -1, 1 }, { -1, 2 }
	};
	static const int evenq_odd[6][2] = {
		{ 1, 0 }, { 1, 2 }, { 0, 0 }, { 0, 1 }, { 2, 0 }, { 2, 1 }
	};
	static const int oddr_odd[6][2] = {
		{ 0, 1 }, { 2, 1 }, { 1, 0 }, { 2, 0 }, { 1, 2 }, { 2, 2 }
	};
	static const int oddr_even[6][2] = {
		{ 0, 2 }, { 2, 2 }, { 0, 1 }, { 1, 1 }, { 0, 3 }, { 1, 3 }
	};
	static const int evenr_even[6][2] = {
		{ 0, 0 }, { 2, 0 }, { 1, -1 }, { 2, -1 }, { 1, 1 }, { 2, 1 }
	};
	static const int evenr_odd[6][2] = {
		{ 0, 1 }, { 2, 1 }, { 0, 0 }, { 1, 0 }, { 0, 2 }, { 1, 2 }
	};

	(void)state;
	check_offset_neighbours(&layouts[0], 1, 1, oddq_odd);
	check_offset_neighbours(&layouts[0], 2, 1, oddq_even);
	check_offset_neighbours(&layouts[1], 0, 1, evenq_even);
	check_offset_neighbours(&layouts[1], 1, 1, evenq_odd);
	check_offset_neighbours(&layouts[2], 1, 1, oddr_odd);
	check_offset_neighbours(&layouts[2], 1, 2, oddr_even);
	check_offset_neighbours(&layouts[3], 1, 0, evenr_even);
	check_offset_neighbours(&layouts[3], 1, 1, evenr_odd);
}

static void
test_in_layout(void **state)
{
	struct hex_offset o;
	int i, want;

	(void)state;
	for (i = 0; i < 4; i++)
		for (o.col = -2; o.col <= 12; o.col++)
			for (o.row = -2; o.row <= 10; o.row++) {
				want = o.col >= 0 && o.col < 10 &&
				    o.row >= 0 && o.row < 8;
				assert_int_equal(hex_in_layout(&layouts[i],
				    hex_from_offset(&layouts[i], o)), want);
			}
}

static void
test_label_print(void **state)
{
	static const struct {
		int col, row;
		const char *s;
	} cases[] = {
		{ 0, 0, "A0" }, { 1, 5, "B5" }, { 25, 1, "Z1" },
		{ 26, 12, "AA12" }, { 27, 3, "AB3" }, { 51, 7, "AZ7" },
		{ 52, 7, "BA7" }, { 701, 9, "ZZ9" }, { 702, 9, "AAA9" },
		{ 18277, 9999, "ZZZ9999" },
	};
	struct hex_layout base1 = game;
	struct hex_offset o;
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		o.col = cases[i].col;
		o.row = cases[i].row;
		memset(buf, 'x', sizeof buf);
		assert_ptr_equal(hex_label(&game, hex_from_offset(&game, o),
		    buf, sizeof buf), buf);
		assert_string_equal(buf, cases[i].s);
	}

	base1.row_base = 1;
	o.col = 1;
	o.row = 0;
	assert_string_equal(hex_label(&base1, hex_from_offset(&base1, o),
	    buf, sizeof buf), "B1");
	o.row = 4;
	assert_string_equal(hex_label(&base1, hex_from_offset(&base1, o),
	    buf, sizeof buf), "B5");

	/* Hexes without a letter column fall back to axial coordinates. */
	assert_string_equal(hex_label(&game, H(-1, 4), buf, sizeof buf),
	    "(-1,4)");
	o.col = 2;
	o.row = -1;
	assert_string_equal(hex_label(&game, hex_from_offset(&game, o),
	    buf, sizeof buf), "(2,-2)");
}

static void
test_label_small_buffer(void **state)
{
	struct hex b12 = L(&game, "B12");
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof buf);
	hex_label(&game, b12, buf, 3);
	assert_string_equal(buf, "B1");
	assert_int_equal(buf[3], 'x');

	memset(buf, 'x', sizeof buf);
	hex_label(&game, b12, buf, 1);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'x');

	memset(buf, 'x', sizeof buf);
	assert_ptr_equal(hex_label(&game, b12, buf, 0), buf);
	assert_int_equal(buf[0], 'x');

	memset(buf, 'x', sizeof buf);
	hex_label(&game, L(&game, "ZZZ9999"), buf, sizeof buf);
	assert_string_equal(buf, "ZZZ9999");
}

static void
test_label_parse(void **state)
{
	static const char *bad[] = {
		"", "B", "5", "B-1", "B5x", "AAAA1", "B12345", " B5", "B5 ",
		"B 5", "+5", "B+5", "5B", "B5B5", "Ä5", "B\n", "-B5",
	};
	struct hex_layout base1 = game;
	struct hex_offset o;
	struct hex h, sentinel = { 1234, -5678 };
	char buf[32];
	size_t i;

	(void)state;
	h = L(&game, "B5");
	o = hex_to_offset(&game, h);
	assert_int_equal(o.col, 1);
	assert_int_equal(o.row, 5);
	assert_true(hex_eq(L(&game, "b5"), h));
	assert_true(hex_eq(L(&game, "B05"), h));

	o = hex_to_offset(&game, L(&game, "aA12"));
	assert_int_equal(o.col, 26);
	assert_int_equal(o.row, 12);
	o = hex_to_offset(&game, L(&game, "Zz0"));
	assert_int_equal(o.col, 701);
	assert_int_equal(o.row, 0);

	base1.row_base = 1;
	o = hex_to_offset(&base1, L(&base1, "C1"));
	assert_int_equal(o.col, 2);
	assert_int_equal(o.row, 0);
	/* Parsing does not check existence: B0 is row -1 here. */
	o = hex_to_offset(&base1, L(&base1, "B0"));
	assert_int_equal(o.row, -1);

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		h = sentinel;
		assert_false(hex_parse_label(&game, bad[i], &h));
		assert_true(hex_eq(h, sentinel));
	}
	assert_false(hex_parse_label(&game, NULL, &h));

	/* Print and parse agree on every layout. */
	for (i = 0; i < 4; i++)
		for (o.col = 0; o.col < 800; o.col += 7)
			for (o.row = 0; o.row < 120; o.row += 3) {
				struct hex want = hex_from_offset(&layouts[i], o);

				hex_label(&layouts[i], want, buf, sizeof buf);
				assert_true(hex_eq(L(&layouts[i], buf), want));
			}
}

static void
check_line(struct hex a, struct hex b, const struct hex *want, int n)
{
	struct hex_line_step st[HEX_LINE_MAX];
	int i;

	assert_int_equal(hex_line(a, b, st, HEX_LINE_MAX), n);
	for (i = 0; i < n; i++) {
		assert_false(st[i].tie);
		assert_true(hex_eq(st[i].h, want[i]));
	}
}

static void
test_line_simple(void **state)
{
	static const struct hex straight[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 }
	};
	static const struct hex skew[] = {
		{ 0, 0 }, { 1, 0 }, { 2, -1 }, { 3, -1 }
	};
	static const struct hex skew_back[] = {
		{ 3, -1 }, { 2, -1 }, { 1, 0 }, { 0, 0 }
	};
	struct hex_line_step st[8];

	(void)state;
	check_line(H(5, -2), H(5, -2), (struct hex[]){ { 5, -2 } }, 1);
	check_line(H(0, 0), H(0, 1), (struct hex[]){ { 0, 0 }, { 0, 1 } }, 2);
	check_line(H(0, 0), H(3, 0), straight, 4);
	check_line(H(0, 0), H(3, -1), skew, 4);
	check_line(H(3, -1), H(0, 0), skew_back, 4);

	assert_int_equal(hex_line(H(0, 0), H(5, 0), st, 5), -1);
	assert_int_equal(hex_line(H(0, 0), H(5, 0), st, 6), 6);
	assert_int_equal(hex_line(H(0, 0), H(0, 0), st, 0), -1);
}

static void
test_line_tie(void **state)
{
	struct hex_line_step st[8];

	(void)state;
	/* The middle of (0,0)-(2,-1) is the midpoint of (1,-1) and (1,0). */
	assert_int_equal(hex_line(H(0, 0), H(2, -1), st, 8), 3);
	assert_false(st[0].tie);
	assert_true(hex_eq(st[0].h, H(0, 0)));
	assert_true(st[1].tie);
	assert_true(hex_eq(st[1].h, H(1, -1)));
	assert_true(hex_eq(st[1].alt, H(1, 0)));
	assert_false(st[2].tie);
	assert_true(hex_eq(st[2].h, H(2, -1)));

	/* Same line the other way: the same pair, in the same order. */
	assert_int_equal(hex_line(H(2, -1), H(0, 0), st, 8), 3);
	assert_true(st[1].tie);
	assert_true(hex_eq(st[1].h, H(1, -1)));
	assert_true(hex_eq(st[1].alt, H(1, 0)));

	/* Along the edges both ways: ties at steps 1 and 3 only. */
	assert_int_equal(hex_line(H(0, 0), H(-2, 4), st, 8), 5);
	assert_true(st[1].tie);
	assert_true(hex_eq(st[1].h, H(-1, 1)));
	assert_true(hex_eq(st[1].alt, H(0, 1)));
	assert_false(st[2].tie);
	assert_true(hex_eq(st[2].h, H(-1, 2)));
	assert_true(st[3].tie);
	assert_true(hex_eq(st[3].h, H(-2, 3)));
	assert_true(hex_eq(st[3].alt, H(-1, 3)));
	assert_false(st[4].tie);
}

/* Squared distance, times 4 n^2 / 3 of a unit hex, from the point
 * (x, y) / n in axial coordinates to the centre of h. */
static long long
oracle_dist2(long long x, long long y, long long n, struct hex h)
{
	long long dq = x - h.q * n, dr = y - h.r * n;

	return dq * dq + dq * dr + dr * dr;
}

/* Floor of a / b for b > 0. */
static long long
oracle_floor(long long a, long long b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Every step of every line between hexes near a is checked against a
 * brute-force search for the nearest hex centres. */
static void
test_line_oracle(void **state)
{
	static const struct hex origins[] = {
		{ 0, 0 }, { 3, -7 }, { -5, 2 }, { 11, 9 }
	};
	struct hex_line_step st[HEX_LINE_MAX], rev[HEX_LINE_MAX];
	struct hex a, b, c, near[3];
	long long x, y, d2, best;
	int o, i, n, nnear, nties = 0, dq, dr;

	(void)state;
	for (o = 0; o < 4; o++) {
		a = origins[o];
		for (b.q = a.q - 9; b.q <= a.q + 9; b.q++)
		for (b.r = a.r - 9; b.r <= a.r + 9; b.r++) {
			n = hex_distance(a, b);
			assert_int_equal(hex_line(a, b, st, HEX_LINE_MAX),
			    n + 1);
			assert_int_equal(hex_line(b, a, rev, HEX_LINE_MAX),
			    n + 1);
			assert_true(hex_eq(st[0].h, a));
			assert_false(st[0].tie);
			assert_true(hex_eq(st[n].h, b));
			assert_false(st[n].tie);
			if (n == 0)
				continue;
			for (i = 0; i <= n; i++) {
				x = (long long)a.q * n + (long long)(b.q - a.q) * i;
				y = (long long)a.r * n + (long long)(b.r - a.r) * i;
				best = -1;
				nnear = 0;
				for (dq = -2; dq <= 2; dq++)
				for (dr = -2; dr <= 2; dr++) {
					c = H((int)oracle_floor(x, n) + dq,
					    (int)oracle_floor(y, n) + dr);
					d2 = oracle_dist2(x, y, n, c);
					if (best < 0 || d2 < best) {
						best = d2;
						nnear = 0;
					}
					if (d2 == best && nnear < 3)
						near[nnear++] = c;
				}
				assert_in_range(nnear, 1, 2);
				if (nnear == 1) {
					assert_false(st[i].tie);
					assert_true(hex_eq(st[i].h, near[0]));
				} else {
					nties++;
					assert_true(st[i].tie);
					/* near[] is in (q, r) order. */
					assert_true(hex_eq(st[i].h, near[0]));
					assert_true(hex_eq(st[i].alt, near[1]));
				}
				assert_int_equal(st[i].tie, rev[n - i].tie);
				assert_true(hex_eq(st[i].h, rev[n - i].h));
				assert_true(hex_eq(st[i].alt, rev[n - i].alt));
				if (i > 0) {
					assert_true(hex_adjacent(st[i].h,
					    st[i - 1].h));
					assert_true(hex_adjacent(st[i].alt,
					    st[i - 1].h));
					assert_true(hex_adjacent(st[i].h,
					    st[i - 1].alt));
				}
			}
		}
	}
	/* The range includes lines along hex edges. */
	assert_true(nties > 0);
}

static void
test_game_map(void **state)
{
	static const char *b2_adj[] = { "A1", "A2", "C1", "C2", "B1", "B3" };
	static const char *b5_adj[] = { "A4", "B4", "C4" };
	struct hex b2, b5, h;
	struct hex_offset o;
	int i, count, want;

	(void)state;
	b2 = L(&game, "B2");
	count = 0;
	for (o.col = 0; o.col < game.cols; o.col++)
		for (o.row = 0; o.row < game.rows; o.row++) {
			h = hex_from_offset(&game, o);
			if (hex_adjacent(b2, h))
				count++;
		}
	assert_int_equal(count, 6);
	for (i = 0; i < 6; i++)
		assert_true(hex_adjacent(b2, L(&game, b2_adj[i])));

	/* The in-map neighbours of B5, found through hex_neighbour. */
	b5 = L(&game, "B5");
	assert_false(game_exists(L(&game, "A5")));
	assert_false(game_exists(L(&game, "C5")));
	assert_false(game_exists(L(&game, "B6")));
	assert_true(game_exists(b5));
	count = 0;
	for (i = 0; i < 6; i++) {
		h = hex_neighbour(b5, i);
		if (!game_exists(h))
			continue;
		count++;
		want = hex_eq(h, L(&game, b5_adj[0])) ||
		    hex_eq(h, L(&game, b5_adj[1])) ||
		    hex_eq(h, L(&game, b5_adj[2]));
		assert_true(want);
	}
	assert_int_equal(count, 3);

	assert_int_equal(hex_distance(L(&game, "B1"), L(&game, "B5")), 4);
	assert_int_equal(hex_distance(L(&game, "A2"), L(&game, "C3")), 2);

	/* Column A is lower than B: A2 is below-left of B2, A1 above-left. */
	assert_int_equal(hex_direction_to(b2, L(&game, "A2")), 4);
	assert_int_equal(hex_direction_to(b2, L(&game, "A1")), 3);
	assert_int_equal(hex_direction_to(b2, L(&game, "C2")), 0);
	assert_int_equal(hex_direction_to(b2, L(&game, "C1")), 1);
	assert_int_equal(hex_direction_to(b2, L(&game, "B1")), 2);
	assert_int_equal(hex_direction_to(b2, L(&game, "B3")), 5);
}

static void
test_game_line(void **state)
{
	static const char *colb[] = { "B1", "B2", "B3", "B4", "B5" };
	struct hex_line_step st[HEX_LINE_MAX];
	char buf[8];
	int i;

	(void)state;
	/* A1 and C1 are level, so the line runs between B1 and B2. */
	assert_int_equal(hex_line(L(&game, "A1"), L(&game, "C1"), st,
	    HEX_LINE_MAX), 3);
	assert_string_equal(hex_label(&game, st[0].h, buf, sizeof buf), "A1");
	assert_true(st[1].tie);
	assert_string_equal(hex_label(&game, st[1].h, buf, sizeof buf), "B1");
	assert_string_equal(hex_label(&game, st[1].alt, buf, sizeof buf),
	    "B2");
	assert_string_equal(hex_label(&game, st[2].h, buf, sizeof buf), "C1");

	/* Down column B: no ties. */
	assert_int_equal(hex_line(L(&game, "B1"), L(&game, "B5"), st,
	    HEX_LINE_MAX), 5);
	for (i = 0; i < 5; i++) {
		assert_false(st[i].tie);
		assert_string_equal(hex_label(&game, st[i].h, buf, sizeof buf),
		    colb[i]);
	}

	/* A0 to C4 is 5 steps, an odd number, so no sample is a midpoint. */
	assert_int_equal(hex_line(L(&game, "A0"), L(&game, "C4"), st,
	    HEX_LINE_MAX), 6);
	for (i = 0; i < 6; i++)
		assert_false(st[i].tie);
}

/* The sides facing another hex: none toward itself, one along a clear
 * line, two at a tie (the line's first step and its alternative). */
static void
test_facing(void **state)
{
	int dirs[2] = { -1, -1 };

	(void)state;
	assert_int_equal(hex_facing(H(0, 0), H(0, 0), dirs), 0);
	assert_int_equal(hex_facing(H(0, 0), H(3, 0), dirs), 1);
	assert_int_equal(dirs[0], hex_direction_to(H(0, 0), H(1, 0)));
	assert_int_equal(hex_facing(H(0, 0), H(2, -1), dirs), 2);
	assert_int_equal(dirs[0], hex_direction_to(H(0, 0), H(1, -1)));
	assert_int_equal(dirs[1], hex_direction_to(H(0, 0), H(1, 0)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_directions),
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_offset_roundtrip),
		cmocka_unit_test(test_offset_parity),
		cmocka_unit_test(test_in_layout),
		cmocka_unit_test(test_label_print),
		cmocka_unit_test(test_label_small_buffer),
		cmocka_unit_test(test_label_parse),
		cmocka_unit_test(test_line_simple),
		cmocka_unit_test(test_line_tie),
		cmocka_unit_test(test_line_oracle),
		cmocka_unit_test(test_game_map),
		cmocka_unit_test(test_game_line),
		cmocka_unit_test(test_facing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
