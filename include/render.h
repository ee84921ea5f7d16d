/* render: ASCII (7-bit) drawing of hex maps of any offset layout. The caller
 * says what each hex shows; this module only draws the grid, coordinates and
 * hexside features. */
#ifndef RENDER_H
#define RENDER_H

#include <stdbool.h>

#include "hex.h"
#include "hexpost.h"

#define RENDER_CELL_W 5  /* characters of text per cell line */

struct render_cell {
	/* Two lines of text shown inside the hex, each at most RENDER_CELL_W
	 * characters (centred). line[0] is usually the label/terrain, line[1]
	 * the units. */
	char line[2][RENDER_CELL_W + 1];
};

struct render_map {
	const struct hex_layout *layout;
	void *arg;
	/* Does this hex exist on the map? */
	bool (*exists)(void *arg, struct hex);
	/* Fill the text of hex h. */
	void (*cell)(void *arg, struct hex, struct render_cell *);
	/* Optional: a character to draw on the edge of h in direction dir
	 * (0..5, hex_directions) instead of the plain line, or 0 for plain. */
	char (*edge)(void *arg, struct hex, int dir);
};

/* Append the drawing of the map to out: column letters above, row numbers
 * at the side, hexes as ASCII art. */
void render_hexmap(const struct render_map *, struct sbuf *out);
/* Width in columns of the drawing render_hexmap would produce. */
int render_width(const struct hex_layout *);

#endif
