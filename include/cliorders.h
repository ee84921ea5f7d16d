/* cliorders: order files entered on the command line (`hexpost orders
 * submit`), under the rules that keep the operator from steering the dice
 * (docs/AUDIT.md, "Threat model" and "Signatures by source"): in a
 * campaign a player with a key plays, no file for a side the built-in
 * opponent plays (its orders are hexpost's own), and a file for a side
 * whose player has a key only with that player's signature, recorded with
 * the file. */
#ifndef CLIORDERS_H
#define CLIORDERS_H

#include "store.h"
#include "turn.h"

/* Take in order file text (len bytes) for campaign, with sig (the
 * .minisig text, or NULL), in one transaction. HP_EINVAL with res->errs
 * saying why (the order file's errors, or the side's rule above). */
int cliorders_submit(struct store *, const char *campaign, const char *text,
    size_t len, const char *sig, struct turn_submit *res, struct hp_error *);

#endif
