/* fixtures: builders for games, units, orders and databases used by the
 * unit tests (in the manner of Eressea's tests.h). */
#ifndef FIXTURES_H
#define FIXTURES_H

#include <stdbool.h>

#include "config.h"
#include "game.h"
#include "ruleset.h"
#include "store.h"

/* A fresh fire-and-movement game (options may be NULL). */
void fx_fam_game(struct game *, const char *options);
/* Place Blue: positions as labels ("B3"), status 0 fresh / 1 spent, and the
 * section index the Pl Comd is with. */
void fx_fam_place(struct game *, const char *p1, int s1, const char *p2,
    int s2, const char *p3, int s3, int pc_with);
struct hex fx_hex(const struct game *, const char *label);
/* Build an order file for the game's current turn from body lines. Caller
 * frees. */
char *fx_orders(const struct game *, const char *window, const char *side,
    const char *body);
/* Resolve window (by name) of the game with scripted dice; the dice log
 * and events are left in d and ev (initialised here). Returns the rc. */
int fx_resolve(struct game *, const char *window, const char *blue_body,
    const char *red_body, const int *dice, size_t ndice, struct dice *d,
    struct events *ev);
/* Does any event's text contain s? */
bool fx_event_has(const struct events *, const char *s);
/* A temporary database path (in $TMPDIR) that is removed by fx_tmp_clean. */
const char *fx_tmp_db(void);
void fx_tmp_clean(void);

/* Helpers for the store and turn tests (appended). They open their own
 * SQLite connection on path and only read, so call them outside a
 * transaction of the store under test. */
/* Every row of every table of the database, as text (blobs in hex), table
 * by table in rowid order: equal dumps mean equal databases. Caller frees. */
char *fx_db_dump(const char *path);
/* The text of every row a query returns, one line per row ('|' between
 * columns, blobs in hex). Caller frees. */
char *fx_db_rows(const char *path, const char *sql);
/* The integer a query returns (first column of the first row), -1 if none. */
long fx_db_long(const char *path, const char *sql);

/* Helpers for the intake and outbox tests (appended). */
/* Run SQL (any number of statements) on its own connection to path, e.g. to
 * break a table under the store's feet or reset a row; aborts on error. */
void fx_db_exec(const char *path, const char *sql);

/* Make a fresh directory $TMPDIR/hexpost-NAME-XXXXXX (TMPDIR defaulting to
 * /tmp) into buf and return buf; aborts if it cannot. */
char *fx_mkdtemp(char *buf, size_t len, const char *name);
/* Remove the directory tree at path. */
void fx_rmtree(const char *path);

/* Open (creating) the database at path with every migration applied;
 * aborts if it cannot. */
struct store *fx_store_new(const char *path);
/* Is there an error on line whose message contains s? */
bool fx_has_error(const struct order_errors *, int line, const char *s);

/* The first column of the first row sql returns, as a NUL-terminated copy
 * (a blob or text; caller frees), or NULL if there is no row. */
char *fx_db_text(const char *path, const char *sql);
/* The club of the mail tests: a new database (*path, removed by
 * fx_tmp_clean) with campaign hill (fire-and-movement, master seed
 * master) whose Blue is bea <bea@example.org>, the moderator, and Red rob
 * <rob@example.org>; cfg for it (from hexpost@club.example, domain
 * club.example). Returns the store; *cid set, and g loaded if not NULL
 * (game_free it). Aborts on failure. */
struct store *fx_club(const char **path, struct config *cfg, int64_t *cid,
    struct game *g, const char *master);

/* Parse the command file text and carry it out as player who (NULL: the
 * command line) at now in one transaction (rolled back if refused); the
 * answer in *reply (caller frees) when reply is not NULL. */
int fx_moderate(struct store *, const struct config *, const char *text,
    const struct store_player *who, long now, char **reply,
    struct hp_error *);

/* Submit body as side's file for campaign's open window (or the window
 * named window of the same turn, e.g. "standing") from the command line;
 * aborts if it is refused. */
void fx_submit(struct store *, const char *campaign, int side,
    const char *window, const char *body);

#endif
