/* export: what one side may see of a campaign, as JSON (json-c), for
 * players' own tools (`hexpost export NAME --side S --json`, and the report
 * mail's optional attachment). The shape is docs/export.schema.json. Every
 * item comes through the side's view (view.h): the map and units are those
 * of its picture (view_picture), the events and rolls of the last resolved
 * window those view_event and view_roll let it see, the open window's order
 * template view_order_template's. */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdint.h>

#include "game.h"
#include "store.h"

#define EXPORT_FORMAT_VERSION 1

/* Append side's (-1: the moderator's) view of campaign cid (g, loaded)
 * as one JSON document to out. */
int export_json(struct store *, int64_t cid, const struct game *, int side,
    struct sbuf *out, struct hp_error *);

#endif
