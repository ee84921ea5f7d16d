/* view: the one place that decides what a side may see (docs/ARCHITECTURE.md
 * §4, G5). For a side (0..nsides-1) or the moderator (-1) it decides which
 * units and markers, hexes, events, rolls and status lines are shown; the
 * report, the map, the status, the order template, the welcome and the
 * reminders are built from what it hands out, never from the full state.
 * A ruleset says what is hidden through its `visible` callback (and, for
 * its own state, `redact`); without them everything is visible. */
#ifndef VIEW_H
#define VIEW_H

#include <stdbool.h>

#include "dice.h"
#include "events.h"
#include "game.h"
#include "hexpost.h"
#include "picture.h"
#include "ruleset.h"

/* May side (-1: the moderator) see unit (index into g->units)? */
bool view_unit(const struct game *, int side, int unit);
/* May side see hex h (terrain, features, what stands there)? */
bool view_hex(const struct game *, int side, struct hex h);
/* May side see event e? Its visibility mask must name side and, when it
 * cites sealed rolls, their visibility set must hold side too. */
bool view_event(const struct event *, int side);
/* May side see roll r of this window (public or sealed)? A sealed roll:
 * when its set holds side. A public roll: when an event side may see cites
 * it, or when no event cites it. */
bool view_roll(const struct events *, const struct dice_roll *r, int side);
/* The game as side sees it, into out (game_init'ed here; game_free it):
 * a deep copy without the units side may not see (the others keep their
 * order; attachments to a removed unit become -1) and with the ruleset's
 * own state redacted for side. The moderator's view is a plain copy. */
void view_game(const struct game *, int side, struct game *out);
/* The map side sees, appended to out. */
void view_map(const struct game *, int side, struct sbuf *out);
/* The status lines side sees, appended to out. */
void view_status(const struct game *, int side, struct sbuf *out);
/* side's ready-to-edit order file for window w, built from side's view.
 * Caller frees. */
char *view_order_template(const struct game *, const struct window_spec *w,
    int side);
/* The label of a sealed roll for reports: "S:SIDES:SEQ" with the sides of
 * its visibility set joined by '+', e.g. "S:blue:2"; buf >= 80 bytes. */
void view_sealed_label(const struct game *, const struct dice_roll *,
    char *buf, size_t len);

/* The map model of side's picture into m (picture_init'ed by the caller):
 * built from side's view (view_game) by the ruleset's `picture` callback or
 * the generic one (picmodel.h), with the events of ev side may see (ev may
 * be NULL: no arrows). */
void view_picture(const struct game *, int side, const struct events *ev,
    struct pic_model *m);

#endif
