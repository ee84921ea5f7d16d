/* picmodel: the generic map model of a picture (picture.h), built from a
 * side's view of the game (view_game): its hexes with terrain, elevation and
 * hexside codes, its placed units and markers, and arrows read from the
 * events the side may see. A ruleset that says more (states, notes, named
 * features) supplies its own `picture` callback and may start from these. */
#ifndef PICMODEL_H
#define PICMODEL_H

#include "events.h"
#include "game.h"
#include "picture.h"

/* Fill m from v, a side's view (view_game; side -1: the moderator):
 * layout, title, sides, every hex side may see (the others as "unknown",
 * with nothing on them) and every placed unit of v. */
void picmodel_default(const struct game *v, int side, struct pic_model *m);
/* Add to m the arrows that the events in ev say (ev holds only events side
 * may see): "X -> Y" a move from X to Y; "fires at H" or "fires on H" fire
 * at H from the hex after "from", else from the acting unit (the event's
 * first word as a unit id of v). Hexes off the map are left out. */
void picmodel_arrows(const struct game *v, const struct events *ev,
    struct pic_model *m);

#endif
