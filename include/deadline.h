/* deadline: the clock of order windows. Each window has a deadline (a
 * fixed time, or deadline_hours after it opens, plus whatever the moderator
 * added) and may close earlier when every order is in. remind_hours before
 * it, players who owe orders get one reminder. At the deadline each side
 * still missing is handled by the campaign's policy: the built-in opponent
 * plays it (ai), it holds (an empty order file, or "hold", or if the
 * ruleset takes neither the opponent's), or the window waits for the
 * moderator (wait). When most of the players a window waits for (two or
 * more) missed it, mail intake has probably failed: the window is not
 * resolved and the moderator is told. A window stays open to late orders
 * until it is resolved.
 *
 * Time is hexpost's clock, deadline_now(): the environment variable
 * HEXPOST_NOW (unix seconds or YYYY-MM-DDTHH:MM[:SS]Z) overrides it, for
 * tests only. */
#ifndef DEADLINE_H
#define DEADLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "store.h"

enum deadline_policy { DEADLINE_AI, DEADLINE_HOLD, DEADLINE_WAIT };
const char *deadline_strpolicy(enum deadline_policy);
/* "ai", "hold" or "wait"; HP_EINVAL otherwise. */
int deadline_parse_policy(const char *, enum deadline_policy *);

/* Where a window's clock stands. */
enum deadline_state {
	DL_NONE,      /* no deadline */
	DL_RUNNING,   /* before the reminder time */
	DL_REMIND,    /* reminder time reached */
	DL_DUE,       /* deadline passed, missing sides not yet handled */
	DL_HELD,      /* waiting for the moderator */
	DL_PAUSED     /* the campaign is paused: the clock stands still */
};
const char *deadline_strstate(enum deadline_state);

/* A campaign's effective settings: its own, else the configuration's. */
struct deadline_settings {
	int deadline_hours;     /* 0: no deadline unless one is fixed */
	int remind_hours;       /* 0: no reminder */
	enum deadline_policy missing;
	bool paused;
	long paused_at;
};

/* Unix time now by hexpost's clock ($HEXPOST_NOW in tests). */
long deadline_now(void);
/* Parse unix seconds or YYYY-MM-DDTHH:MM[:SS]Z (UTC). */
int deadline_parse_time(const char *, long *);
/* "2026-11-22 18:00 UTC" into buf. */
void deadline_format(long, char *buf, size_t len);

/* The settings of campaign cid; cfg (may be NULL) gives the defaults. */
int deadline_settings_get(struct store *, const struct config *, int64_t cid,
    struct deadline_settings *, struct hp_error *);
/* Start the clock of window wid, just opened: called by turn inside the
 * transaction that opens it. */
int deadline_window_opened(struct store *, int64_t wid, struct hp_error *);
/* The deadline of a window with clock c (unix time), 0 if none. */
long deadline_of(const struct deadline_settings *, const struct store_clock *);
/* Where the clock stands at time now. */
enum deadline_state deadline_state_at(const struct deadline_settings *,
    const struct store_clock *, long now);

/* Did most players miss the window? human: the sides it waits for that a
 * person plays; missing: those that sent nothing. Needs two or more: one
 * silent player is not a sign that mail intake failed. */
bool deadline_most_missed(unsigned human, unsigned missing);

/* What deadline_check did. */
enum deadline_action { DA_NOTHING, DA_REMINDED, DA_FILLED, DA_HELD };
const char *deadline_straction(enum deadline_action);

/* One look at campaign's open window at time now, in one transaction:
 * reminders when due, the missing-side policy at the deadline, or the
 * moderator told. Paused and finished campaigns are left alone. */
int deadline_check(struct store *, const struct config *,
    const char *campaign, long now, enum deadline_action *,
    struct hp_error *);

/* Give each side in missing an order file for window w by policy (ai or
 * hold), inside the caller's transaction. what (may be NULL) gets a line
 * per side saying what it got. */
int deadline_fill(struct store *, const struct game *,
    const struct store_window *, unsigned missing, enum deadline_policy,
    struct sbuf *what, struct hp_error *);

/* Queue a notice (templates/notice.txt) about campaign g to its moderators
 * (to every active player if all), Message-ID from id_seed. Logs a warning
 * if nobody is there to tell. */
int deadline_notice(struct store *, const struct config *, int64_t cid,
    const struct game *, bool all, const char *id_seed, const char *subject,
    const char *text, struct hp_error *);

/* The campaign status as players and the moderator see it: state, the open
 * window, who owes orders, the deadline and the policy. */
int deadline_status(struct store *, const struct config *, int64_t cid,
    const struct game *, long now, struct sbuf *, struct hp_error *);

/* The wake index (migration 22, issue 17): the time from which a pass must
 * look at a campaign again; DEADLINE_WAKE_NEVER when only a change to it
 * can make it due (the triggers then set its wake to 0). */
#define DEADLINE_WAKE_NEVER 9000000000000000000LL
/* When a daemon step of campaign (id cid) next has something to do, from
 * its state now: 0 for at once (orders complete, a clock to start), the
 * reminder's or the deadline's time, or DEADLINE_WAKE_NEVER (finished,
 * paused, in quarantine, held for the moderator, no deadline). */
int deadline_wake_next(struct store *, const struct config *,
    const char *campaign, int64_t cid, long now, long long *wake,
    struct hp_error *);
/* Inside the caller's transaction: compute and store the wake of campaign
 * cid (deadline_wake_next); *wake gets it. */
int deadline_wake_update(struct store *, const struct config *,
    const char *campaign, int64_t cid, long now, long long *wake,
    struct hp_error *);
/* When cfg's deadline defaults differ from those the stored wakes were
 * computed with, wake every campaign and remember the new ones (one
 * transaction); otherwise only reads. *reset says which. */
int deadline_wake_config(struct store *, const struct config *, bool *reset,
    struct hp_error *);

#endif
