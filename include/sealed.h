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

#define SEALED_MAGIC "hexpost sealed set v1"

/* The sides of set mask joined by '+' ("blue+red"), appended to out. */
void sealed_set_sides(const struct game *g, unsigned mask, struct sbuf *out);
/* The canonical statement of set mask of campaign g, whose seed is seed,
 * test dice or not, appended to out. */
void sealed_format(const struct game *g, bool test, unsigned mask,
    const unsigned char *seed, struct sbuf *out);
/* The trusted comment the server signs set mask's statement with. */
void sealed_trusted_comment(const struct game *g, unsigned mask, char *buf,
    size_t len);
/* Draw the seed of every visibility set of campaign cid (from master,
 * masterlen > 0, for a test campaign) and store them, in the caller's
 * transaction. */
int sealed_create(struct store *, int64_t cid, const struct game *,
    const unsigned char *master, size_t masterlen, struct hp_error *);
/* Sign every set statement of campaign name with sk in its own
 * transaction (nothing to do when it has no sealed dice). */
int sealed_sign(struct store *, const char *campaign,
    const struct minisign_seckey *sk, struct hp_error *);
/* Give d the seeds of every sealed set of campaign cid (none: nothing). */
int sealed_enable(struct store *, int64_t cid, struct dice *d,
    struct hp_error *);
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
