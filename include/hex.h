/* hex: hexagonal grid geometry (axial/cube coordinates, offset layouts,
 * labels, distance, neighbours, line of sight). Reference: Red Blob Games,
 * "Hexagonal Grids". The engine works in axial (q, r); labels such as "B5"
 * exist only at the edges (parsing orders, printing maps and reports). */
#ifndef HEX_H
#define HEX_H

#include <stdbool.h>
#include <stddef.h>

struct hex {
	int q;
	int r;
};

/* Offset layouts: which hexes are shoved by half a hex. */
enum hex_orient { HEX_FLAT, HEX_POINTY };
enum hex_parity { HEX_ODD, HEX_EVEN };

struct hex_layout {
	enum hex_orient orient;
	enum hex_parity parity;
	/* Offset range that exists (inclusive). */
	int cols;     /* number of columns */
	int rows;     /* number of rows */
	int row_base; /* label number of row 0 (e.g. 0 or 1) */
};

/* Offset coordinates: col is 0-based (A = 0), row is 0-based (row 0 is
 * labelled row_base). */
struct hex_offset {
	int col;
	int row;
};

extern const struct hex hex_directions[6];

int hex_s(struct hex);
struct hex hex_add(struct hex, struct hex);
struct hex hex_sub(struct hex, struct hex);
struct hex hex_neighbour(struct hex, int dir); /* dir 0..5 */

/* Are a and b the same hex? (Inline: the rulesets' hot loops ask it.) */
static inline bool
hex_eq(struct hex a, struct hex b)
{
	return a.q == b.q && a.r == b.r;
}

/* Number of steps between a and b (inline, as hex_eq). */
static inline int
hex_distance(struct hex a, struct hex b)
{
	int dq = a.q - b.q, dr = a.r - b.r, ds = -dq - dr;

	return ((dq < 0 ? -dq : dq) + (dr < 0 ? -dr : dr) +
	    (ds < 0 ? -ds : ds)) / 2;
}

/* Are a and b next to each other (inline, as hex_eq)? */
static inline bool
hex_adjacent(struct hex a, struct hex b)
{
	return hex_distance(a, b) == 1;
}
/* Direction 0..5 from a to an adjacent b, or -1 if not adjacent. */
int hex_direction_to(struct hex a, struct hex b);

struct hex hex_from_offset(const struct hex_layout *, struct hex_offset);
struct hex_offset hex_to_offset(const struct hex_layout *, struct hex);
bool hex_in_layout(const struct hex_layout *, struct hex);

/* Labels: column letters (A..Z, then AA..) followed by the row number, e.g.
 * "B5", "AA12". Parse is case-insensitive; returns false on bad syntax. It
 * does not check the hex exists in the layout. */
bool hex_parse_label(const struct hex_layout *, const char *, struct hex *);
/* Writes the label into buf (at least 8 bytes). Returns buf. */
char *hex_label(const struct hex_layout *, struct hex, char *buf, size_t len);

/* Line of sight by integer cube interpolation. The line from a to b passes
 * through hexes; where the exact line runs along an edge between two hexes
 * (a tie), both candidates are reported and the ruleset decides. */
#define HEX_LINE_MAX 256
struct hex_line_step {
	struct hex h;
	bool tie;        /* line runs exactly along the edge of h and alt */
	struct hex alt;  /* the other hex of the tie (valid if tie) */
};
/* Fills steps (including both endpoints) and returns the count, or -1 if
 * the line is longer than max. */
int hex_line(struct hex a, struct hex b, struct hex_line_step *steps, int max);

/* The directions of a's sides that face b (the first step of the line
 * from a to b, and the other hex of a tie) into dirs; returns 0 (a is b
 * or the line is too long), 1 or 2. */
int hex_facing(struct hex a, struct hex b, int dirs[2]);

#endif
