/* seedchain: a campaign's window seeds, fixed when it is created
 * (docs/AUDIT.md, "Seed chain"). The server draws the chain's secret last
 * seed, hashes back to the head and signs a statement committing to the
 * head before any player exists; the k-th window opened uses seed k, and
 * each revealed seed must hash to the one before it, so no seed can be
 * drawn, tried or replaced once the campaign exists. */
#ifndef SEEDCHAIN_H
#define SEEDCHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"
#include "hexpost.h"
#include "minisign.h"
#include "store.h"

#define SEEDCHAIN_MAGIC "hexpost seed chain v1"
#define SEEDCHAIN_LENGTH 65536   /* seeds per campaign (windows) */

/* What a seed chain statement says. */
struct seedchain {
	char campaign[GAME_NAME_MAX];
	bool test;                /* dice: test (campaign new --seed) */
	int length;
	unsigned char head[32];
};

/* One link back: BLAKE2b-256 of "hexpost-chain-v1\0" || seed. */
void seedchain_link(const unsigned char *seed, unsigned char *out32);
/* Seed k (0: the head, 1..length: window k's) of the chain of length
 * length ending in tail. */
void seedchain_seed(const unsigned char *tail, int length, int k,
    unsigned char *out32);
/* The canonical statement text, appended to out. */
void seedchain_format(const struct seedchain *, struct sbuf *out);
/* Parse a statement strictly (it must be its own canonical text). */
int seedchain_parse(const char *text, struct seedchain *, struct hp_error *);
/* The trusted comment the server signs a statement with. */
void seedchain_trusted_comment(const struct seedchain *, char *buf,
    size_t len);
/* Draw campaign cid's chain (from master, masterlen > 0, for a test
 * campaign) and record its unsigned statement, in the caller's
 * transaction. */
int seedchain_create(struct store *, int64_t cid, const char *campaign,
    const unsigned char *master, size_t masterlen, struct hp_error *);
/* Sign the statement of campaign name with sk, in its own transaction. */
int seedchain_sign(struct store *, const char *campaign,
    const struct minisign_seckey *sk, struct hp_error *);
/* The seed of the k-th window (1-based) campaign cid opens. HP_ENOENT:
 * the campaign has no chain; HP_ESTATE: k is past the chain's end. */
int seedchain_window_seed(struct store *, int64_t cid, int k,
    unsigned char *seed, struct hp_error *);

#endif
