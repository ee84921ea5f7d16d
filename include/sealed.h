/* sealed: a campaign's sealed dice (docs/AUDIT.md, "Sealed dice"). A
 * campaign of a ruleset with hidden information gets a secret sealed seed
 * when it is created; the sealed statement, signed by the server key and
 * mailed in every welcome, commits to the seed of each visibility set (a
 * non-empty set of sides) before any order exists. A side is shown its
 * sets' seeds and keys in its reports (so it checks each sealed roll it
 * sees at once); everyone gets the campaign's sealed seed when the game
 * ends, the moderator at once. */
#ifndef SEALED_H
#define SEALED_H

#include <stdbool.h>
#include <stdint.h>

#include "dice.h"
#include "game.h"
#include "hexpost.h"
#include "minisign.h"
#include "store.h"

#define SEALED_MAGIC "hexpost sealed dice v1"

/* The canonical statement of campaign g (its name and sides) with sealed
 * seed seed, test dice or not, appended to out. */
void sealed_format(const struct game *g, bool test,
    const unsigned char *seed, struct sbuf *out);
/* The trusted comment the server signs a statement with. */
void sealed_trusted_comment(const char *campaign, char *buf, size_t len);
/* Draw campaign cid's sealed seed (from master, masterlen > 0, for a test
 * campaign) and store it, in the caller's transaction. */
int sealed_create(struct store *, int64_t cid, const struct game *,
    const unsigned char *master, size_t masterlen, struct hp_error *);
/* Campaign cid's statement text into out; HP_ENOENT when it has no sealed
 * dice. */
int sealed_statement(struct store *, int64_t cid, const struct game *,
    struct sbuf *out, struct hp_error *);
/* Sign the statement of campaign name with sk in its own transaction
 * (nothing to do when it has no sealed dice). */
int sealed_sign(struct store *, const char *campaign,
    const struct minisign_seckey *sk, struct hp_error *);
/* The nonce commitment through which an order file of a campaign with
 * hidden orders enters the dice key (docs/AUDIT.md, "Hidden orders"):
 * BLAKE2b-256("hexpost-hidden-order-v1\0" || side || 0x00 || nonce). */
void sealed_order_commitment(const char *side, const char *nonce,
    unsigned char *out32);
/* The nonce commitment of order file raw (its header's nonce:, empty
 * when it has none) for side. HP_EINVAL when raw is no order file. */
int sealed_file_commitment(const char *raw, const char *side,
    unsigned char *out32);

#endif
