/* absence: club life around the order windows (issue 19). Players away
 * (a vacation announced by signed command, "vacation until DATE [ai|hold|
 * orders]", or by the moderator), windows missed in a row, and the
 * extensions players may ask for.
 *
 * - While a player is away, each window that opens naming their side is
 *   filled at once by their policy: the built-in opponent's orders (ai,
 *   the default), "hold", or "orders" (the window holds and the standing
 *   orders they left stay in force). Such a window is not missed. The
 *   other players are told that the player is away and until when, never
 *   the policy. A window every waited-for player is away from is left to
 *   its deadline (nobody would be left to play it), and is not missed
 *   either.
 * - A window a side's player sent nothing for (filled at the deadline) is
 *   missed; missed_limit in a row tell the moderator once, and with
 *   missed_policy ai the seat goes to the built-in opponent (filled as by
 *   an absence) until the player writes again or is replaced; the player
 *   is told how to take it back.
 * - A player may ask for "extension HOURS" (at most extension_hours) up to
 *   extensions times per campaign, while their side owes orders; the
 *   other players are told. The moderator's own "extend" is unlimited and
 *   not counted here.
 *
 * The window lifecycle knows nothing of this: absence hangs on it through
 * its observers (engine_init registers absence_window_opened and
 * absence_window_resolved). Settings are per campaign (club_settings,
 * migration 023), set with the moderator's "set". */
#ifndef ABSENCE_H
#define ABSENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "dice.h"
#include "events.h"
#include "game.h"
#include "store.h"

#define ABSENCE_MAX_DAYS 60        /* defaults of the campaign settings */
#define ABSENCE_MISSED_LIMIT 3
#define ABSENCE_EXTENSIONS 2
#define ABSENCE_EXTENSION_HOURS 48

/* A campaign's club settings (its own, else the defaults above). */
struct absence_settings {
	int max_days;           /* a vacation ends at most this far ahead */
	int missed_limit;       /* missed in a row to tell; 0: never */
	bool missed_ai;         /* then the built-in opponent takes the seat */
	int extensions;         /* per player per campaign */
	int extension_hours;    /* each at most */
};
int absence_settings_get(struct store *, int64_t cid,
    struct absence_settings *, struct hp_error *);
/* "set KEY VALUE" for the keys absence_max_days, missed_limit,
 * missed_policy (tell|ai), extensions and extension_hours. HP_ENOENT if
 * key is none of them (nothing written), HP_EINVAL for a bad value. */
int absence_setting_set(struct store *, int64_t cid, const char *key,
    const char *val, struct hp_error *);

/* The configuration the observers address their notices with (kept, not
 * copied; NULL, the default: notices are only logged). main sets it. */
void absence_configure(const struct config *);

/* Observer of the window lifecycle: window wid has just opened (in its
 * transaction); fill the sides of absent players. */
int absence_window_opened(struct store *, int64_t wid, struct hp_error *);
/* Observer: window w of campaign cid is resolved; count missed windows,
 * tell the moderator, hand seats over. */
int absence_window_resolved(struct store *, int64_t cid, const struct game *,
    const struct store_window *w, const struct events *, const struct dice *,
    struct hp_error *);

/* "vacation ARG" inside the caller's transaction. ARG is "[SIDE] until
 * DATE [ai|hold|orders]" or "[SIDE] off"; DATE is YYYY-MM-DD (through that
 * day, UTC) or YYYY-MM-DDTHH:MMZ. who is the player who sent it (NULL: the
 * command line); only a moderator may name a side, and the command line
 * must. cfg (may be NULL: no mail) addresses the notice to the others.
 * The answer goes to reply; a refusal (HP_EINVAL, HP_ESTATE, reason in
 * err) writes nothing. */
int absence_vacation(struct store *, const struct config *,
    const struct game *, int64_t cid, const struct store_player *who,
    const char *arg, long now, struct sbuf *reply, struct hp_error *);
/* "extension HOURS" by player who, inside the caller's transaction. */
int absence_extension(struct store *, const struct config *,
    const struct game *, int64_t cid, const struct store_player *who,
    const char *arg, long now, struct sbuf *reply, struct hp_error *);
/* Player wrote to the campaign (a signed command): a seat handed to the
 * built-in opponent comes back, the missed count starts again. */
int absence_player_wrote(struct store *, int64_t player, long now,
    struct sbuf *reply, struct hp_error *);
/* The moderator replaces side's player: their absences end (a line in
 * reply says so), the new player starts with none. */
int absence_side_replaced(struct store *, const struct game *, int64_t cid,
    int side, long now, struct sbuf *reply, struct hp_error *);
/* Lines for a status: who is away and until when (never the policy);
 * with moderator, also the missed windows in a row and extensions used. */
int absence_status(struct store *, const struct game *, int64_t cid,
    long now, bool moderator, struct sbuf *, struct hp_error *);

/* Parse a vacation's end: YYYY-MM-DD (the end of that day, UTC) or
 * deadline_parse_time's forms. HP_EINVAL if neither. */
int absence_parse_until(const char *, long *);

#endif
