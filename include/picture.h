/* picture: a drawing of a hex map as PNG or SVG, made with cairo. The
 * caller fills a map model (what a side sees: hexes with terrain and
 * hexside features, units with their state, markers, arrows of the turn's
 * movement and fire); this module knows no game and draws only what the
 * model holds. The model is built through the per-side view (view.h,
 * view_picture), so a side's picture shows what its ASCII map shows. */
#ifndef PICTURE_H
#define PICTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "hex.h"
#include "hexpost.h"

#define PIC_TEXT 32
#define PIC_MAX_SIDES 4
#define PIC_MAX_EDGE_KINDS 8

/* Unit state bits (struct pic_unit.state). */
#define PIC_SPENT 1u       /* has acted this turn */
#define PIC_SUPPRESSED 2u  /* pinned, suppressed, disordered */
#define PIC_HIT 4u         /* took a hit / lost strength */

enum pic_arrow_kind { PIC_MOVE, PIC_FIRE };

struct pic_hex {
	struct hex h;
	char terrain[PIC_TEXT];   /* "wood", "hill", "clear", ... */
	int elevation;
	char note[PIC_TEXT];      /* small text drawn in the hex ("obj:B") */
	int edge[6];              /* 0 plain, else 1..PIC_MAX_EDGE_KINDS-1:
	                           * a feature named in model.edge_name */
};

struct pic_unit {
	struct hex pos;
	int side;                 /* 0.., or -1: a neutral marker */
	char label[PIC_TEXT];     /* "1", "pc", "R" */
	char kind[PIC_TEXT];      /* type name, e.g. "infantry" */
	int strength;             /* < 0: not shown */
	int facing;               /* 0..5 (hex_directions), -1 none */
	unsigned state;           /* PIC_* bits */
	bool marker;              /* a marker (wire, gas, objective) */
};

struct pic_arrow {
	enum pic_arrow_kind kind;
	struct hex from, to;
	int side;                 /* colour: the acting side, -1 unknown */
};

struct pic_model {
	struct hex_layout layout;
	char title[200];
	int nsides;
	char side_name[PIC_MAX_SIDES][PIC_TEXT];
	char edge_name[PIC_MAX_EDGE_KINDS][PIC_TEXT]; /* [0] unused */
	struct pic_hex *hexes;
	int nhex, caphex;
	struct pic_unit *units;
	int nunits, capunits;
	struct pic_arrow *arrows;
	int narrows, caparrows;
};

/* An empty model; picture_free releases it. */
void picture_init(struct pic_model *);
void picture_free(struct pic_model *);
/* Append a hex (zeroed but for h and terrain); the pointer is good until
 * the next add. */
struct pic_hex *picture_add_hex(struct pic_model *, struct hex,
    const char *terrain);
/* Append a unit or marker; the pointer is good until the next add. */
struct pic_unit *picture_add_unit(struct pic_model *, struct hex, int side,
    const char *label);
void picture_add_arrow(struct pic_model *, enum pic_arrow_kind,
    struct hex from, struct hex to, int side);
/* The edge kind called name (added if new), 0 when the table is full. */
int picture_edge_kind(struct pic_model *, const char *name);

/* The model as canonical text, one line per item (what the drawing is made
 * from; tests compare it across games, the store keeps each window's
 * public one): free text in [brackets], brackets in it as '_'. Appended to
 * out. */
void picture_text(const struct pic_model *, struct sbuf *out);
/* Add to m (picture_init'ed) the model written by picture_text: HP_OK, or
 * HP_EINVAL naming the first line not understood. */
int picture_parse(const char *text, struct pic_model *m, struct hp_error *);
/* Keep in m only what o shows too: units, markers and arrows that o has
 * alike (a unit with the state bits both show); a hex that differs becomes
 * "unknown" (the public view is what every side's view has in common). */
void picture_intersect(struct pic_model *m, const struct pic_model *o);
/* Draw the model as PNG (svg false) or SVG, appended to out. HP_OK, or
 * HP_EINTERNAL with err when cairo fails. */
int picture_draw(const struct pic_model *, bool svg, struct sbuf *out,
    struct hp_error *);

#endif
