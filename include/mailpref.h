/* mailpref: what a report mail carries besides its text (migration 021):
 * the side's map picture (PNG; on by default) and the JSON export of its
 * view (off by default), chosen per campaign (`campaign set`) and per
 * player (`player set`, or the signed mail command `picture-mail` /
 * `json-mail`); a player's choice wins over the campaign's. */
#ifndef MAILPREF_H
#define MAILPREF_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

enum mailpref_item { MAILPREF_PICTURE, MAILPREF_JSON };

/* The item called name ("picture-mail", "json-mail"); false if none. */
bool mailpref_parse(const char *name, enum mailpref_item *);
/* Set item on or off for campaign cid (player NULL or "") or one of its
 * players, in its own statement (the caller's transaction, if any). */
int mailpref_set(struct store *, int64_t cid, const char *player,
    enum mailpref_item, bool on, struct hp_error *);
/* Does player's report mail carry item? The player's choice, else the
 * campaign's, else the default (picture on, JSON off). A database error
 * counts as the default. */
bool mailpref_get(struct store *, int64_t cid, const char *player,
    enum mailpref_item);

#endif
