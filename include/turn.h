/* turn: the order window lifecycle. A window is OPEN while it takes orders,
 * CLOSED when it takes no more (deadline passed or resolution begun) and
 * RESOLVED once its effects are committed. Creating a campaign opens its
 * first window; resolving one opens the next, in the same transaction. */
#ifndef TURN_H
#define TURN_H

#include <stdbool.h>
#include <stdint.h>

#include "minisign.h"
#include "orders.h"
#include "ruleset.h"
#include "store.h"
#include "window.h"

/* Create a campaign of ruleset rules and open its first window. master (may
 * be NULL) makes every window seed derived from it: for tests and demos
 * only, since whoever knows it knows every die in advance. */
int turn_campaign_new(struct store *, const char *name, const char *rules,
    const char *scenario, const char *options, const unsigned char *master,
    size_t masterlen, struct hp_error *);

struct turn_submit {
	int side;                  /* side the file was accepted for */
	int turn;
	char window[WINDOW_NAME_MAX];
	bool replaced;             /* superseded an earlier file */
	bool standing;             /* standing orders, not a window's */
	char side_name[GAME_ID_MAX];
	char waiting[128];         /* sides that still owe orders, or "" */
	char *canon;               /* normalised orders; owned */
	struct order_errors errs;  /* every problem, by line */
};
void turn_submit_init(struct turn_submit *);
void turn_submit_free(struct turn_submit *);

/* Take in an order file for campaign (NULL: the one its header names). The
 * header must name the campaign, the open window's turn and name, and a
 * side that must send orders in it; if side_only >= 0 (the signer's side)
 * the header must name that side. On HP_EINVAL res->errs says why. */
int turn_submit(struct store *, const char *campaign, const char *text,
    size_t len, int side_only, int64_t player, const char *source,
    struct turn_submit *res, struct hp_error *);

/* The same inside a transaction the caller holds: nothing is written unless
 * it returns HP_OK; on HP_EDB the caller must roll back. */
int turn_submit_tx(struct store *, const char *campaign, const char *text,
    size_t len, int side_only, int64_t player, const char *source,
    struct turn_submit *res, struct hp_error *err);

/* Campaigns read once for many order files in one run of intake (issue
 * 17): each campaign's game and current window as turn_submit_tx reads
 * them, kept until turn_cache_clear. Whoever holds one clears it whenever
 * a campaign may have changed other than through turn_submit_cached's
 * window orders: a rolled-back savepoint, a moderator command, another
 * connection's commit (store_data_version), the end of a transaction
 * another writer could follow. Standing orders are never read from it,
 * and their campaign is forgotten. */
struct turn_cache;
struct turn_cache *turn_cache_new(void);
void turn_cache_clear(struct turn_cache *);
void turn_cache_free(struct turn_cache *);
/* turn_submit_tx reading the campaign through cache, and keeping nonce
 * ("" if none; NULL: the file's own, read from its header) in a window's
 * new order row as store_orders_put_nonce does. */
int turn_submit_cached(struct store *, struct turn_cache *cache,
    const char *campaign, const char *text, size_t len, int side_only,
    int64_t player, const char *source, const char *nonce,
    struct turn_submit *res, struct hp_error *err);

/* The open window and the bitmask of sides that still owe orders (sides
 * played by the built-in opponent never owe any). */
int turn_pending(struct store *, const char *campaign, struct store_window *,
    unsigned *missing, struct hp_error *);

/* Resolve the campaign's open window if every side's orders are in, in one
 * transaction; then keep resolving while the next window needs nothing from
 * a person. *resolved counts the windows resolved. HP_ESTATE if orders are
 * still missing (err names the sides). */
int turn_resolve(struct store *, const char *campaign, int *resolved,
    struct hp_error *);

/* Called inside the resolution's transaction once a window is resolved
 * and its reports stored (e.g. to queue the report mails); an error rolls
 * the whole resolution back. */
struct turn_hooks {
	int (*resolved)(void *arg, struct store *, int64_t cid,
	    const struct game *, const struct store_window *,
	    struct hp_error *);
	void *arg;
};
/* What hangs on every window of every campaign (reports, deadline clocks:
 * the lifecycle knows nothing of them), registered once at start-up by
 * engine_init. opened runs in the transaction that opens window wid;
 * resolved in the resolution's, once the window is resolved and its events
 * and dice are stored, before the call's turn_hooks. An error rolls the
 * transaction back. */
struct turn_observer {
	int (*opened)(struct store *, int64_t wid, struct hp_error *);
	int (*resolved)(struct store *, int64_t cid, const struct game *,
	    const struct store_window *, const struct events *,
	    const struct dice *, struct hp_error *);
};
/* Add o (kept, not copied; at most 8, in the order added; adding one
 * again does nothing). */
void turn_observe(const struct turn_observer *o);
/* Run every observer's opened (resolved) hook; HP_EINTERNAL if none is
 * registered. Called by the lifecycle (turn.c) only. */
int turn_observers_opened(struct store *, int64_t wid, struct hp_error *);
int turn_observers_resolved(struct store *, int64_t cid, const struct game *,
    const struct store_window *, const struct events *, const struct dice *,
    struct hp_error *);

/* turn_resolve with hooks (may be NULL). */
int turn_resolve_hooked(struct store *, const char *campaign,
    const struct turn_hooks *, int *resolved, struct hp_error *);

/* turn_resolve_hooked that also signs each window's dice log with the
 * server key sk (NULL: the logs are written unsigned). */
int turn_resolve_signed(struct store *, const char *campaign,
    const struct turn_hooks *, const struct minisign_seckey *sk,
    int *resolved, struct hp_error *);

/* Resolve, one transaction each, the campaign's open windows while they
 * name no side (a turn-0 window rolling dice before the first turn, G7),
 * signing the logs with sk (may be NULL); *resolved (may be NULL) counts
 * them. Used when a campaign is created. */
int turn_resolve_sideless(struct store *, const char *campaign,
    const struct minisign_seckey *sk, int *resolved, struct hp_error *);

/* The nonce: line of order file raw (len bytes) into out ("" if none),
 * as far as the file parses: what orders.nonce keeps (migration 27). */
void turn_file_nonce(const char *raw, size_t len, char *out, size_t outlen);

#endif
