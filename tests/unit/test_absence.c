/* test_absence: absences, missed windows and players' extensions (issue
 * 19) on a temporary database, through the commands a player or the
 * moderator sends (moderator_exec) and the window lifecycle's observers:
 * a vacation fills the windows of the player away (not counted as missed)
 * and tells the others that they are away, never the policy; past, far
 * and malformed dates, other sides and bad policies are refused and change
 * nothing; a player away and then replaced; missed windows counted, the
 * moderator told once and the seat handed to the built-in opponent until
 * the player writes again; extensions within the quota and their length,
 * refused beyond, the moderator's own extend unlimited. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "absence.h"
#include "deadline.h"
#include "fixtures.h"
#include "moderator.h"
#include "turn.h"

static const unsigned char MASTER[] = "test-absence master seed";
#define T0 1800000000L   /* 2027-01-15 08:00 UTC */
#define HOUR 3600L

struct fx {
	const char *path;
	struct store *st;
	struct config cfg;
	struct store_player mod, rob;
	int64_t cid;
};

/* Set hexpost's clock to t. */
static void
set_now(long t)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%ld", t);
	setenv("HEXPOST_NOW", buf, 1);
}

/* The options of the campaign the next setup makes. */
static const char *options = "";

/* hill at T0: Blue played by bea (the moderator), Red by rob; 48-hour
 * deadlines, missing sides played by the built-in opponent. */
static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	struct hp_error err = { 0, "" };
	struct store_player p[4];
	struct game g;

	f->path = fx_tmp_db();
	f->st = fx_store_new(f->path);
	set_now(T0);
	assert_int_equal(turn_campaign_new(f->st, "hill", "fire-and-movement",
	    NULL, options, MASTER, sizeof MASTER - 1, &err), HP_OK);
	game_init(&g);
	assert_int_equal(store_game_load(f->st, "hill", &g, &f->cid, &err),
	    HP_OK);
	game_free(&g);
	assert_int_equal(store_player_add(f->st, f->cid, 0, "bea",
	    "bea@example.org", NULL, NULL, true, &err), HP_OK);
	assert_int_equal(store_player_add(f->st, f->cid, 1, "rob",
	    "rob@example.org", NULL, NULL, false, &err), HP_OK);
	assert_int_equal(store_players_of(f->st, f->cid, p, 4, &err), 2);
	f->mod = p[0];
	f->rob = p[1];
	config_defaults(&f->cfg, "/nonexistent");
	f->cfg.deadline_hours = 48;
	f->cfg.remind_hours = 0;
	absence_configure(&f->cfg);
	*state = f;
	return 0;
}

/* setup with the option red-standing (Red leaves standing orders). */
static int
setup_standing(void **state)
{
	options = "red-standing";
	setup(state);
	options = "";
	return 0;
}

/* Close the store, remove the database. */
static int
teardown(void **state)
{
	struct fx *f = *state;

	absence_configure(NULL);
	store_close(f->st);
	fx_tmp_clean();
	free(f);
	return 0;
}

/* Run "command: line" in hill as who (NULL: the command line) at now. */
static int
run(struct fx *f, const char *line, const struct store_player *who,
    long now, char **reply, struct hp_error *err)
{
	char text[400];
	static int serial;

	snprintf(text, sizeof text, "campaign: hill\nnonce: n%d\ncommand: %s\n",
	    ++serial, line);
	return fx_moderate(f->st, &f->cfg, text, who, now, reply, err);
}

/* The command must succeed and its answer contain want. */
static void
ok(struct fx *f, const char *line, const struct store_player *who, long now,
    const char *want)
{
	struct hp_error err = { 0, "" };
	char *reply = NULL;

	if (run(f, line, who, now, &reply, &err) != HP_OK)
		fail_msg("%s: %s", line, err.msg);
	if (strstr(reply, want) == NULL)
		fail_msg("answer to '%s' lacks '%s':\n%s", line, want, reply);
	free(reply);
}

/* The command must be refused with rc, a reason containing why, and leave
 * the database exactly as it was. */
static void
refused(struct fx *f, const char *line, const struct store_player *who,
    long now, int rc, const char *why)
{
	struct hp_error err = { 0, "" };
	char *before = fx_db_dump(f->path), *after;
	int got = run(f, line, who, now, NULL, &err);

	if (got != rc)
		fail_msg("'%s': rc %d, want %d (%s)", line, got, rc, err.msg);
	if (strstr(err.msg, why) == NULL)
		fail_msg("'%s': reason '%s' lacks '%s'", line, err.msg, why);
	after = fx_db_dump(f->path);
	if (strcmp(before, after) != 0)
		fail_msg("'%s' was refused but changed the database", line);
	free(before);
	free(after);
}

/* The integer sql gives on f's database (-1: no row). */
static long
count(struct fx *f, const char *sql)
{
	return fx_db_long(f->path, sql);
}

/* The source of side's current file in hill's open window ("" if none). */
static void
open_source(struct fx *f, int side, char *out, size_t len)
{
	struct hp_error err = { 0, "" };
	struct store_order cur[GAME_MAX_SIDES];
	struct store_window w;

	assert_int_equal(store_window_current(f->st, f->cid, &w, &err), HP_OK);
	assert_int_equal(store_orders_current(f->st, w.id, cur, &err), HP_OK);
	strlcpy_(out, cur[side].raw ? cur[side].source : "", len);
	store_orders_free(cur);
}

/* Side sends its (hold) orders for the open window from the command line,
 * as a player would. */
static void
send(struct fx *f, int side, long now)
{
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	struct store_window w;
	struct game g;
	int64_t cid;
	char *text;

	set_now(now);
	game_init(&g);
	assert_int_equal(store_game_load(f->st, "hill", &g, &cid, &err), HP_OK);
	assert_int_equal(store_window_current(f->st, cid, &w, &err), HP_OK);
	text = window_hold_orders(&g, &w.spec, side);
	if (text == NULL)
		text = window_opponent_orders(&g, &w.spec, side);
	turn_submit_init(&res);
	if (turn_submit(f->st, "hill", text, strlen(text), side, side ?
	    f->rob.id : f->mod.id, "cli", &res, &err) != HP_OK)
		fail_msg("submit: %s %s", err.msg, orders_errors_text(
		    &res.errs));
	turn_submit_free(&res);
	free(text);
	game_free(&g);
}

/* Resolve what can be resolved at now; how many windows. */
static int
resolve(struct fx *f, long now)
{
	struct hp_error err = { 0, "" };
	int n = 0;

	set_now(now);
	if (turn_resolve(f->st, "hill", &n, &err) != HP_OK && n == 0)
		return 0;
	return n;
}

/* The deadline check at now. */
static enum deadline_action
check(struct fx *f, long now)
{
	struct hp_error err = { 0, "" };
	enum deadline_action a;

	set_now(now);
	if (deadline_check(f->st, &f->cfg, "hill", now, &a, &err) != HP_OK)
		fail_msg("deadline_check: %s", err.msg);
	return a;
}

/* Does a message queued to rcpt contain s? */
static bool
mailed(struct fx *f, const char *rcpt, const char *s)
{
	char sql[512];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM outbox WHERE rcpt = "
	    "'%s' AND CAST(data AS TEXT) LIKE '%%%s%%'", rcpt, s);
	return count(f, sql) > 0;
}

/* The source of side's latest order file in any window ("" if none). */
static void
last_source(struct fx *f, int side, char *out, size_t len)
{
	char sql[200], *t;

	snprintf(sql, sizeof sql, "SELECT source FROM orders WHERE side_idx = "
	    "%d AND current = 1 ORDER BY id DESC LIMIT 1", side);
	t = fx_db_text(f->path, sql);
	strlcpy_(out, t ? t : "", len);
	free(t);
}

/* Dates in the past, too far ahead, malformed; bad policies; another
 * side's absence by a player; the command line without a side: each a
 * clear refusal that changes nothing. */
static void
test_vacation_refusals(void **state)
{
	struct fx *f = *state;

	refused(f, "vacation until 2027-01-10", &f->rob, T0, HP_EINVAL,
	    "in the past");
	refused(f, "vacation until 2027-01-15T07:00Z", &f->rob, T0, HP_EINVAL,
	    "in the past");
	refused(f, "vacation until 2031-01-01", &f->rob, T0, HP_EINVAL,
	    "at most 60 days ahead");
	refused(f, "vacation until tomorrow", &f->rob, T0, HP_EINVAL,
	    "not a date");
	refused(f, "vacation until 2027-02-30", &f->rob, T0, HP_EINVAL,
	    "not a date");
	refused(f, "vacation until 2027-01-20 sleep", &f->rob, T0, HP_EINVAL,
	    "not 'sleep'");
	refused(f, "vacation until 2027-01-20 orders", &f->rob, T0, HP_EINVAL,
	    "has none");
	refused(f, "vacation blue until 2027-01-20", &f->rob, T0, HP_EINVAL,
	    "only the moderator");
	refused(f, "vacation until 2027-01-20", NULL, T0, HP_EINVAL,
	    "name the side");
	refused(f, "vacation off", &f->rob, T0, HP_ESTATE, "is not away");
	refused(f, "vacation", &f->rob, T0, HP_EINVAL, "needs an argument");
	refused(f, "vacation until 2027-01-20 ai extra", &f->rob, T0,
	    HP_EINVAL, "vacation takes");
	/* The moderator may allow more. */
	ok(f, "set absence_max_days 2000", NULL, T0, "absence_max_days = 2000");
	refused(f, "set absence_max_days 0", NULL, T0, HP_EINVAL,
	    "from 1 to 3650");
	ok(f, "vacation until 2031-01-01", &f->rob, T0, "is away until "
	    "2031-01-02 00:00 UTC");
}

/* A vacation fills the windows of the player away, not counted as missed;
 * the opponent learns that Red is away, not how it is played. */
static void
test_vacation_fills(void **state)
{
	struct fx *f = *state;
	char src[16];

	ok(f, "vacation until 2027-01-25 hold", &f->rob, T0, "is away until "
	    "2027-01-26 00:00 UTC");
	assert_int_equal(count(f, "SELECT count(*) FROM absences WHERE "
	    "kind = 'vacation' AND policy = 'hold' AND ended IS NULL"), 1);
	assert_true(mailed(f, "bea@example.org", "is away until 2027-01-26"));
	assert_false(mailed(f, "bea@example.org", "holding"));
	/* Blue plays; Red's window is filled when it opens and resolved. */
	send(f, 0, T0 + HOUR);
	assert_int_equal(resolve(f, T0 + HOUR), 2);
	last_source(f, 1, src, sizeof src);
	assert_string_equal(src, "deadline-hold");
	send(f, 0, T0 + 2 * HOUR);
	assert_int_equal(resolve(f, T0 + 2 * HOUR), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM absence_fills"), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM missed_windows WHERE "
	    "in_row > 0"), 0);
	ok(f, "status", &f->mod, T0 + 2 * HOUR, "rob (red) is away until");
	/* Back early: Red's next window waits for him. */
	ok(f, "vacation off", &f->rob, T0 + 3 * HOUR, "is back");
	send(f, 0, T0 + 3 * HOUR);
	assert_int_equal(resolve(f, T0 + 3 * HOUR), 1);
	open_source(f, 1, src, sizeof src);
	assert_string_equal(src, "");
}

/* Every player away: nobody would play, so the windows are left to their
 * deadlines (never resolved all at once), and are not missed. */
static void
test_all_away(void **state)
{
	struct fx *f = *state;
	char src[16];

	ok(f, "vacation until 2027-01-25", &f->rob, T0, "is away");
	ok(f, "vacation until 2027-01-25", &f->mod, T0, "is away");
	open_source(f, 0, src, sizeof src);
	assert_string_equal(src, "");
	assert_int_equal(check(f, T0 + 49 * HOUR), DA_FILLED);
	assert_int_equal(resolve(f, T0 + 49 * HOUR), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM missed_windows WHERE "
	    "in_row > 0"), 0);
	open_source(f, 1, src, sizeof src);
	assert_string_equal(src, "");
}

/* Away and replaced: the absence ends with the old player, the new one's
 * windows are not filled, and the old one can no longer announce one. */
static void
test_away_and_replaced(void **state)
{
	struct fx *f = *state;
	char src[16];

	ok(f, "vacation red until 2027-01-25", NULL, T0, "rob (red) is away");
	ok(f, "replace red\nemail: rae@example.org\nname: rae", NULL, T0,
	    "rob was away until 2027-01-26");
	assert_int_equal(count(f, "SELECT count(*) FROM absences WHERE "
	    "ended IS NULL"), 0);
	send(f, 0, T0 + HOUR);
	assert_int_equal(resolve(f, T0 + HOUR), 1);
	open_source(f, 1, src, sizeof src);
	assert_string_equal(src, "");
	refused(f, "vacation red off", NULL, T0 + HOUR, HP_ESTATE,
	    "rae (red) is not away");
	refused(f, "vacation until 2027-01-20", &f->rob, T0 + HOUR, HP_EINVAL,
	    "no longer play red");
}

/* Red misses its window: Blue plays, Red's window passes its deadline. */
static long
miss_one(struct fx *f, long t)
{
	send(f, 0, t + HOUR);
	assert_int_equal(resolve(f, t + HOUR), 1);
	t += 50 * HOUR;
	assert_int_equal(check(f, t), DA_FILLED);
	assert_int_equal(resolve(f, t), 1);
	return t;
}

/* Missed windows: counted, the moderator told once at the limit, the seat
 * handed to the built-in opponent until the player writes again. */
static void
test_missed(void **state)
{
	struct fx *f = *state;
	char src[16];
	long t = T0;

	ok(f, "set missed_limit 2", NULL, T0, "missed_limit = 2");
	ok(f, "set missed_policy ai", NULL, T0, "missed_policy = ai");
	refused(f, "set missed_policy maybe", NULL, T0, HP_EINVAL, "'tell'");
	t = miss_one(f, t);
	assert_int_equal(count(f, "SELECT count(*) FROM outbox WHERE "
	    "CAST(data AS TEXT) LIKE '%has missed%'"), 0);
	t = miss_one(f, t);
	assert_int_equal(count(f, "SELECT in_row FROM missed_windows WHERE "
	    "player_id = (SELECT id FROM players WHERE name = 'rob')"), 2);
	assert_true(mailed(f, "bea@example.org", "has missed 2 windows"));
	assert_int_equal(count(f, "SELECT count(*) FROM outbox WHERE "
	    "CAST(data AS TEXT) LIKE '%has missed%'"), 1);
	assert_false(mailed(f, "rob@example.org", "has missed"));
	assert_true(mailed(f, "rob@example.org", "To take your seat back, "
	    "write again"));
	/* Handed over: Red's window is played at once, no more notices. */
	send(f, 0, t + HOUR);
	assert_int_equal(resolve(f, t + HOUR), 2);
	last_source(f, 1, src, sizeof src);
	assert_string_equal(src, "deadline-ai");
	assert_int_equal(count(f, "SELECT count(*) FROM outbox WHERE "
	    "CAST(data AS TEXT) LIKE '%has missed%'"), 1);
	ok(f, "status", &f->mod, t + HOUR, "stopped answering");
	/* Rob writes again: the seat is his. */
	ok(f, "status", &f->rob, t + 2 * HOUR, "Welcome back");
	assert_int_equal(count(f, "SELECT count(*) FROM absences WHERE "
	    "kind = 'missed' AND ended IS NULL"), 0);
	assert_int_equal(count(f, "SELECT in_row FROM missed_windows WHERE "
	    "player_id = (SELECT id FROM players WHERE name = 'rob')"), 0);
	send(f, 0, t + 3 * HOUR);
	assert_int_equal(resolve(f, t + 3 * HOUR), 1);
	open_source(f, 1, src, sizeof src);
	assert_string_equal(src, "");
}

/* The default policy only tells; orders from the player reset the count. */
static void
test_missed_reset(void **state)
{
	struct fx *f = *state;
	long t = T0;

	t = miss_one(f, t);
	assert_int_equal(count(f, "SELECT in_row FROM missed_windows"), 1);
	send(f, 0, t + HOUR);
	assert_int_equal(resolve(f, t + HOUR), 1);
	send(f, 1, t + 2 * HOUR);
	assert_int_equal(resolve(f, t + 2 * HOUR), 1);
	assert_int_equal(count(f, "SELECT in_row FROM missed_windows"), 0);
	assert_int_equal(count(f, "SELECT total FROM missed_windows"), 1);
	t = miss_one(f, t + 2 * HOUR);
	t = miss_one(f, t);
	t = miss_one(f, t);
	assert_int_equal(count(f, "SELECT in_row FROM missed_windows"), 3);
	assert_true(mailed(f, "bea@example.org", "has missed 3 windows"));
	assert_int_equal(count(f, "SELECT count(*) FROM absences"), 0);
}

/* "orders": the standing orders Red left stay in force; refused while
 * there are none. */
static void
test_vacation_orders(void **state)
{
	struct fx *f = *state;
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	struct game g;
	int64_t cid;
	char *text;

	refused(f, "vacation until 2027-01-20 orders", &f->rob, T0, HP_EINVAL,
	    "send an order file with 'window: standing' first");
	game_init(&g);
	assert_int_equal(store_game_load(f->st, "hill", &g, &cid, &err), HP_OK);
	text = fx_orders(&g, "standing", "red", "policy nearest\n");
	game_free(&g);
	turn_submit_init(&res);
	if (turn_submit(f->st, "hill", text, strlen(text), 1, f->rob.id, "cli",
	    &res, &err) != HP_OK)
		fail_msg("standing: %s %s", err.msg, orders_errors_text(
		    &res.errs));
	assert_true(res.standing);
	turn_submit_free(&res);
	free(text);
	ok(f, "vacation until 2027-01-20 orders", &f->rob, T0,
	    "holding, with the standing orders you left in force");
	assert_int_equal(count(f, "SELECT count(*) FROM absences WHERE "
	    "policy = 'orders'"), 1);
}

/* Extensions: within the quota and length; refused beyond, from the
 * command line, for a side the window does not wait for, once the orders
 * are in; the moderator's extend unlimited. */
static void
test_extensions(void **state)
{
	struct fx *f = *state;
	struct hp_error err = { 0, "" };
	struct deadline_settings ds;
	struct store_window w;
	struct store_clock c;
	long dl0, dl;

	send(f, 0, T0);
	assert_int_equal(resolve(f, T0), 1);
	assert_int_equal(store_window_current(f->st, f->cid, &w, &err), HP_OK);
	assert_int_equal(deadline_settings_get(f->st, &f->cfg, f->cid, &ds,
	    &err), HP_OK);
	assert_int_equal(store_clock_get(f->st, w.id, &c, &err), HP_OK);
	dl0 = deadline_of(&ds, &c);
	refused(f, "extension 49", &f->rob, T0, HP_EINVAL, "at most 48 hours");
	refused(f, "extension soon", &f->rob, T0, HP_EINVAL,
	    "number of hours");
	refused(f, "extension 24", NULL, T0, HP_EINVAL, "'extend HOURS'");
	refused(f, "extension 24", &f->mod, T0, HP_ESTATE,
	    "waits for no orders from your side");
	ok(f, "extension 24", &f->rob, T0, "1 of 2 used");
	assert_true(mailed(f, "bea@example.org", "asked for an extension"));
	ok(f, "extension 48", &f->rob, T0 + HOUR, "2 of 2 used");
	assert_int_equal(store_clock_get(f->st, w.id, &c, &err), HP_OK);
	dl = deadline_of(&ds, &c);
	assert_int_equal(dl - dl0, 72 * HOUR);
	refused(f, "extension 1", &f->rob, T0 + 2 * HOUR, HP_ESTATE,
	    "you have used the 2 extensions");
	refused(f, "extend 5", &f->rob, T0 + 2 * HOUR, HP_EINVAL,
	    "only the moderator");
	ok(f, "extend 500", NULL, T0 + 2 * HOUR, "is now");
	ok(f, "extend 500", NULL, T0 + 3 * HOUR, "is now");
	ok(f, "set extensions 5", NULL, T0 + 4 * HOUR, "extensions = 5");
	send(f, 1, T0 + 4 * HOUR);
	refused(f, "extension 2", &f->rob, T0 + 4 * HOUR, HP_ESTATE,
	    "are in");
	ok(f, "status", NULL, T0 + 4 * HOUR, "rob (red): 0 missed in a row (0 "
	    "in all), 2 extensions asked");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vacation_refusals, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_vacation_fills, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_all_away, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_away_and_replaced, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_missed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missed_reset, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_extensions, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_vacation_orders,
		    setup_standing, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
