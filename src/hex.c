/* hex: hexagonal grid geometry in axial coordinates (q, r), s = -q - r.
 * Reference: Red Blob Games, "Hexagonal Grids". */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "hex.h"

/* Longest column part ("ZZZ", column 18277) and row number (9999) that
 * labels may have, so that a label always fits in 8 bytes. */
#define HEX_LABEL_LETTERS 3
#define HEX_LABEL_DIGITS 4
#define HEX_LABEL_MAXCOL (26 + 26 * 26 + 26 * 26 * 26)

/*
 * Axial direction vectors, numbered 0..5 counter-clockwise on the screen
 * (r grows downwards):
 *
 *	dir  (dq, dr)  flat-topped   pointy-topped
 *	 0   (+1,  0)  lower right   right
 *	 1   (+1, -1)  upper right   upper right
 *	 2   ( 0, -1)  up            upper left
 *	 3   (-1,  0)  upper left    left
 *	 4   (-1, +1)  lower left    lower left
 *	 5   ( 0, +1)  down          lower right
 *
 * Direction (d + 3) % 6 is the opposite of d.
 */
const struct hex hex_directions[6] = {
	{ 1, 0 }, { 1, -1 }, { 0, -1 }, { -1, 0 }, { -1, 1 }, { 0, 1 }
};

int
hex_s(struct hex h)
{
	return -h.q - h.r;
}

struct hex
hex_add(struct hex a, struct hex b)
{
	struct hex h = { a.q + b.q, a.r + b.r };

	return h;
}

struct hex
hex_sub(struct hex a, struct hex b)
{
	struct hex h = { a.q - b.q, a.r - b.r };

	return h;
}

/* The hex next to h in direction dir; dir is taken modulo 6, so dir + 3
 * is the opposite direction and dir - 1 turns clockwise. */
struct hex
hex_neighbour(struct hex h, int dir)
{
	dir %= 6;
	if (dir < 0)
		dir += 6;
	return hex_add(h, hex_directions[dir]);
}


int
hex_direction_to(struct hex a, struct hex b)
{
	struct hex d = hex_sub(b, a);
	int i;

	for (i = 0; i < 6; i++)
		if (hex_eq(d, hex_directions[i]))
			return i;
	return -1;
}

/* 1 if x is odd, 0 if even, for negative x too. */
static int
hex_odd(int x)
{
	return x % 2 != 0;
}

/* Axial coordinates of an offset position. Flat layouts shove columns
 * (odd-q, even-q), pointy layouts shove rows (odd-r, even-r). */
struct hex
hex_from_offset(const struct hex_layout *l, struct hex_offset o)
{
	struct hex h;

	if (l->orient == HEX_FLAT) {
		h.q = o.col;
		if (l->parity == HEX_ODD)
			h.r = o.row - (o.col - hex_odd(o.col)) / 2;
		else
			h.r = o.row - (o.col + hex_odd(o.col)) / 2;
	} else {
		h.r = o.row;
		if (l->parity == HEX_ODD)
			h.q = o.col - (o.row - hex_odd(o.row)) / 2;
		else
			h.q = o.col - (o.row + hex_odd(o.row)) / 2;
	}
	return h;
}

/* Offset position of an axial hex; the inverse of hex_from_offset. */
struct hex_offset
hex_to_offset(const struct hex_layout *l, struct hex h)
{
	struct hex_offset o;

	if (l->orient == HEX_FLAT) {
		o.col = h.q;
		if (l->parity == HEX_ODD)
			o.row = h.r + (h.q - hex_odd(h.q)) / 2;
		else
			o.row = h.r + (h.q + hex_odd(h.q)) / 2;
	} else {
		o.row = h.r;
		if (l->parity == HEX_ODD)
			o.col = h.q + (h.r - hex_odd(h.r)) / 2;
		else
			o.col = h.q + (h.r + hex_odd(h.r)) / 2;
	}
	return o;
}

/* Is h inside the rectangle of columns and rows of the layout? */
bool
hex_in_layout(const struct hex_layout *l, struct hex h)
{
	struct hex_offset o = hex_to_offset(l, h);

	return o.col >= 0 && o.col < l->cols && o.row >= 0 && o.row < l->rows;
}

/* Parses a label such as "B5" or "aa12" into an axial hex. Leaves *out
 * alone on failure. */
bool
hex_parse_label(const struct hex_layout *l, const char *s, struct hex *out)
{
	struct hex_offset o;
	int nletters = 0, ndigits = 0, col = 0, num = 0;
	int c;

	if (s == NULL)
		return false;
	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		if (c < 'A' || c > 'Z')
			break;
		if (++nletters > HEX_LABEL_LETTERS)
			return false;
		col = col * 26 + (c - 'A' + 1);
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		if (++ndigits > HEX_LABEL_DIGITS)
			return false;
		num = num * 10 + (*s - '0');
	}
	if (nletters == 0 || ndigits == 0 || *s != '\0')
		return false;
	o.col = col - 1;
	o.row = num - l->row_base;
	*out = hex_from_offset(l, o);
	return true;
}

/* Writes the label of h, e.g. "B5", into buf (truncated to len). A hex
 * whose label cannot be written (column left of A, beyond ZZZ, or a row
 * number below 0 or above 9999) is written as its axial "(q,r)". */
char *
hex_label(const struct hex_layout *l, struct hex h, char *buf, size_t len)
{
	char tmp[32], digits[HEX_LABEL_DIGITS];
	struct hex_offset o = hex_to_offset(l, h);
	int n, i, k = 0, num;

	num = o.row + l->row_base;
	if (o.col < 0 || o.col >= HEX_LABEL_MAXCOL || num < 0 || num > 9999)
		snprintf(tmp, sizeof tmp, "(%d,%d)", h.q, h.r);
	else {
		/* Letters then digits by hand: labels are written for every
		 * path step the opponent plans, and printf is slow. */
		char letters[HEX_LABEL_LETTERS];

		i = HEX_LABEL_LETTERS;
		for (n = o.col + 1; n > 0; n = (n - 1) / 26)
			letters[--i] = (char)('A' + (n - 1) % 26);
		while (i < HEX_LABEL_LETTERS)
			tmp[k++] = letters[i++];
		i = 0;
		do {
			digits[i++] = (char)('0' + num % 10);
			num /= 10;
		} while (num > 0);
		while (i > 0)
			tmp[k++] = digits[--i];
		tmp[k] = '\0';
	}
	if (len > 0) {
		for (k = 0; tmp[k] != '\0' && (size_t)k + 1 < len; k++)
			buf[k] = tmp[k];
		buf[k] = '\0';
	}
	return buf;
}

/* Floor of a / b for b > 0. */
static long long
hex_floordiv(long long a, long long b)
{
	long long q = a / b;

	if (a % b != 0 && a < 0)
		q--;
	return q;
}

/* Rounds the cube point (x, y, z) / n (x + y + z == 0, n > 0; rx, ry and
 * rz are floor((2c + n) / 2n) of each coordinate c) to the hex containing
 * it, with integer arithmetic only. If the point is on the edge
 * between two hexes, sets tie, puts the one with the smaller q (or, for
 * equal q, the smaller r) in h and the other in alt; otherwise alt is h. */
static void
hex_round_q(long long x, long long y, long long z, long long n,
    long long rx, long long ry, long long rz, struct hex_line_step *st)
{
	long long dx, dy, dz;
	struct hex t;
	int i;

	dx = llabs(x - rx * n);
	dy = llabs(y - ry * n);
	dz = llabs(z - rz * n);
	if (dx > dy && dx > dz)
		rx = -ry - rz;
	else if (dy > dz)
		ry = -rx - rz;
	st->h.q = (int)rx;
	st->h.r = (int)ry;
	st->tie = false;
	st->alt = st->h;

	/* The point is on an edge iff a neighbour's centre is as near:
	 * with D the point less h's centre (scaled by n) and v a direction
	 * (|v|^2 = 2), |D - n v|^2 == |D|^2 iff D . v == n. */
	dx = x - rx * n;
	dy = y - ry * n;
	dz = z + (rx + ry) * n;
	for (i = 0; i < 6; i++) {
		const struct hex v = hex_directions[i];

		if (dx * v.q + dy * v.r - dz * (v.q + v.r) == n) {
			st->tie = true;
			st->alt = hex_add(st->h, v);
			break;
		}
	}
	if (st->tie && (st->alt.q < st->h.q ||
	    (st->alt.q == st->h.q && st->alt.r < st->h.r))) {
		t = st->h;
		st->h = st->alt;
		st->alt = t;
	}
}

/* The hexes on the straight line from the centre of a to the centre of b:
 * sample i (0..N, N = distance) is a + (b - a) * i / N, computed exactly
 * in cube coordinates scaled by N and rounded to the nearest hex. */
int
hex_line(struct hex a, struct hex b, struct hex_line_step *steps, int max)
{
	struct hex d = hex_sub(b, a);
	long long n, x, y, z, dd[3], qq[3], rr[3];
	int i, k, dist;

	dist = hex_distance(a, b);
	if (max < 1 || dist > max - 1)
		return -1;
	if (dist == 0) {
		steps[0].h = steps[0].alt = a;
		steps[0].tie = false;
		return 1;
	}
	n = dist;
	/* The roundings floor((2c + n) / 2n) of each coordinate c = d * i,
	 * kept as quotient and remainder and stepped by 2d as i grows: no
	 * division past the first sample (|2d| <= 2n, so a remainder leaves
	 * [0, 2n) by at most one 2n a step). */
	for (k = 0; k < 3; k++) {
		dd[k] = k == 0 ? d.q : k == 1 ? d.r : hex_s(d);
		qq[k] = hex_floordiv(n, 2 * n);
		rr[k] = n - qq[k] * 2 * n;
	}
	for (i = 0; i <= dist; i++) {
		/* Relative to a, to keep the products small. */
		x = (long long)d.q * i;
		y = (long long)d.r * i;
		z = (long long)hex_s(d) * i;
		hex_round_q(x, y, z, n, qq[0], qq[1], qq[2], &steps[i]);
		steps[i].h = hex_add(steps[i].h, a);
		steps[i].alt = hex_add(steps[i].alt, a);
		for (k = 0; k < 3; k++) {
			rr[k] += 2 * dd[k];
			if (rr[k] >= 2 * n) {
				rr[k] -= 2 * n;
				qq[k]++;
			} else if (rr[k] < 0) {
				rr[k] += 2 * n;
				qq[k]--;
			}
		}
	}
	return dist + 1;
}

int
hex_facing(struct hex a, struct hex b, int dirs[2])
{
	struct hex_line_step st[HEX_LINE_MAX];

	if (hex_eq(a, b) || hex_line(a, b, st, HEX_LINE_MAX) < 2)
		return 0;
	dirs[0] = hex_direction_to(a, st[1].h);
	if (!st[1].tie)
		return 1;
	dirs[1] = hex_direction_to(a, st[1].alt);
	return 2;
}
