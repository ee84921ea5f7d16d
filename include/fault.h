/* fault: faults of the server itself, not of a player or a campaign (the
 * outbox cannot be written; the database was found behind the inbox after
 * a restore). Each is recorded (migration 011) and told to every moderator
 * once, in one transaction, when it begins; it is cleared when it ends, so
 * the next one is told again. */
#ifndef FAULT_H
#define FAULT_H

#include <stdbool.h>

#include "config.h"
#include "store.h"

/* Record fault kind (since now, because of error) and queue text (subject
 * "[hexpost] server: SUBJECT") to each moderator of a campaign not
 * finished, unless kind is recorded already; *first says whether this call
 * recorded it. Its own transaction. */
int fault_raise(struct store *, const struct config *, const char *kind,
    long now, const char *error, const char *subject, const char *text,
    bool *first, struct hp_error *);
/* The fault of kind has ended; *was whether one was recorded. */
int fault_clear(struct store *, const char *kind, bool *was,
    struct hp_error *);

#endif
