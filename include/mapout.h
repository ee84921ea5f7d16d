/* mapout: a side's picture of a campaign's map from the store: the game as
 * the side sees it now (view_picture) with the arrows of a resolved
 * window's events, as PNG, SVG or the model's text (picture.h). Used by
 * `hexpost picture`, the report mail, the JSON export and the web archive. */
#ifndef MAPOUT_H
#define MAPOUT_H

#include <stdint.h>

#include "game.h"
#include "picture.h"
#include "store.h"

enum mapout_format { MAPOUT_PNG, MAPOUT_SVG, MAPOUT_TEXT };

/* Load window wid's stored events with their roll ranges into ev
 * (initialised by the caller). */
int mapout_events(struct store *, int64_t wid, struct events *ev,
    struct hp_error *);
/* Append side's (-1: the moderator's) picture of g to out, with the
 * arrows of window wid's events side may see (wid 0: the last resolved
 * window of campaign cid, if any). */
int mapout_picture(struct store *, int64_t cid, const struct game *,
    int64_t wid, int side, enum mapout_format, struct sbuf *out,
    struct hp_error *);

#define MAPOUT_PUBLIC (-2)  /* the view every side shares */

/* The model of side's picture of g with the events ev (may be NULL) into m
 * (picture_init'ed); side MAPOUT_PUBLIC: what every side's view has in
 * common (picture_intersect), titled "public view". */
void mapout_model(const struct game *, int side, const struct events *ev,
    struct pic_model *m);
/* Turn observer (engine.c): store the picture data of window w just
 * resolved, public and each side's (window_pictures, migration 021). */
int mapout_window_resolved(struct store *, int64_t cid, const struct game *,
    const struct store_window *w, const struct events *,
    const struct dice *, struct hp_error *);
/* The stored picture data of window wid for side (MAPOUT_PUBLIC or 0..)
 * into m; HP_ENOENT when none was stored (a window resolved before
 * migration 021). */
int mapout_stored(struct store *, int64_t wid, int side, struct pic_model *m,
    struct hp_error *);

#endif
