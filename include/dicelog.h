/* dicelog: a resolved window's dice log, the text file a player or
 * moderator can check with tools they already have (docs/AUDIT.md gives
 * the format byte by byte). It names the window, the hash of the previous
 * window's log (the chain), the commitment and revealed seed, the hash of
 * every order file that entered the dice key, the key, the sides played by
 * the built-in opponent, the next window's commitment and every roll; the
 * server signs it with its minisign key, so that
 * `minisign -V -p server.pub -m dice-log.txt` checks it. */
#ifndef DICELOG_H
#define DICELOG_H

#include <stdbool.h>
#include <stdint.h>

#include "dice.h"
#include "game.h"
#include "minisign.h"
#include "ruleset.h"
#include "store.h"

#define DICELOG_MAGIC "hexpost dice log v1"

struct dicelog_order {
	char side[GAME_ID_MAX];
	char source[16];          /* mail, cli, opponent, standing */
	unsigned char hash[32];   /* BLAKE2b-256 of the order file */
};

struct dicelog {
	char campaign[GAME_NAME_MAX];
	int turn;
	int window;
	char window_name[WINDOW_NAME_MAX];
	unsigned char previous[32];   /* hash of the previous log; 0s: first */
	unsigned char commitment[32];
	unsigned char seed[DICE_SEEDLEN];
	struct dicelog_order orders[GAME_MAX_SIDES];
	int norders;                  /* in side order; they make the key */
	/* The standing orders in force when the window opened of the sides
	 * it names (G3), in side order, after the orders in the key ("standing:
	 * SIDE HASH" lines; source unused). */
	struct dicelog_order standing[GAME_MAX_SIDES];
	int nstanding;
	bool nonce_form;              /* hidden orders: each hash is the
	                               * file's nonce commitment, and the lines
	                               * read "order-nonce:" (docs/AUDIT.md,
	                               * "Hidden orders") */
	unsigned char key[DICE_KEYLEN];
	char opponent[GAME_MAX_SIDES][GAME_ID_MAX]; /* played by the server */
	int nopponent;
	bool have_next;
	unsigned char next_commitment[32];
	struct dice_roll *rolls;      /* owned */
	size_t nrolls;
};

void dicelog_init(struct dicelog *);
void dicelog_free(struct dicelog *);
/* The canonical text of a log, appended to out. */
void dicelog_format(const struct dicelog *, struct sbuf *out);
/* Parse a log's text strictly: it must be exactly the canonical text of
 * what it says. l is initialised here (dicelog_free it either way). */
int dicelog_parse(const char *text, struct dicelog *l, struct hp_error *);
/* BLAKE2b-256 of a log's text: what the next log names as "previous". */
void dicelog_hash(const char *text, unsigned char *out32);
/* The trusted comment the server signs with a log (one line). */
void dicelog_trusted_comment(const struct dicelog *, char *buf, size_t len);
/* Check a log on its own: the seed against the commitment, the key
 * re-derived from the seed and order hashes, and every roll re-derived
 * from the key in order (docs/AUDIT.md). HP_EINVAL naming the first
 * discrepancy. */
int dicelog_check(const struct dicelog *, struct hp_error *);
/* "turn T window N 'NAME'", for messages. */
void dicelog_where(const struct dicelog *, char *buf, size_t len);

/* Write the log of window w of campaign cid, just resolved with orders
 * cur, dice key and dice d, once the next window (if any) is open: chained
 * to the campaign's previous log, signed with sk (NULL: left unsigned),
 * stored in the caller's transaction. */
int dicelog_record(struct store *, int64_t cid, const struct game *,
    const struct store_window *w, const struct store_order *cur,
    const unsigned char *key, const struct dice *d,
    const struct minisign_seckey *sk, struct hp_error *);
/* dicelog_record with the standing orders of the sides w names that were
 * in force when it opened (standing[side].raw, or NULL; G3). */
int dicelog_record_standing(struct store *, int64_t cid, const struct game *,
    const struct store_window *w, const struct store_order *cur,
    const struct store_order *standing, const unsigned char *key,
    const struct dice *d, const struct minisign_seckey *sk,
    struct hp_error *);

#define SEALEDROLLS_MAGIC "hexpost sealed rolls v1"
/* The canonical text of window (turn, window, name) of campaign's sealed
 * rolls d->slog, in the order drawn (docs/AUDIT.md, "Sealed dice"),
 * appended to out. */
void dicelog_sealed_format(const char *campaign, int turn, int window,
    const char *name, const struct dice *d, struct sbuf *out);
/* Parse such a text strictly (it must be its canonical text) into d->slog
 * (d zeroed by the caller) and check that it names campaign, turn, window
 * and name. HP_EINVAL with the line on error. */
int dicelog_sealed_parse(const char *text, const char *campaign, int turn,
    int window, const char *name, struct dice *d, struct hp_error *);

#endif
