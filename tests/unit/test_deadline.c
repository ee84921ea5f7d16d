/* test_deadline: the clock of order windows on a temporary database, with
 * the fire-and-movement ruleset, a master seed and hexpost's clock set
 * through HEXPOST_NOW: time parsing, the clock started when a window
 * opens, one reminder to the player who owes orders at remind_hours before
 * the deadline (and none twice), the ai, hold and wait policies at the
 * deadline, the "most players missed" rule, paused campaigns. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deadline.h"
#include "fixtures.h"
#include "turn.h"

static const unsigned char MASTER[] = "test-deadline master seed";
#define T0 1800000000L   /* 2027-01-15 08:00 UTC */
#define HOUR 3600L

static void
set_now(long t)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%ld", t);
	setenv("HEXPOST_NOW", buf, 1);
}

/* A campaign opened at T0 whose Blue is played by bea (the moderator if
 * asked) and Red by rob. */
static int64_t
campaign(struct store *st, const char *name, bool moderator)
{
	struct hp_error err = { 0, "" };
	struct game g;
	int64_t cid;

	set_now(T0);
	assert_int_equal(turn_campaign_new(st, name, "fire-and-movement", NULL,
	    "", MASTER, sizeof MASTER - 1, &err), HP_OK);
	game_init(&g);
	assert_int_equal(store_game_load(st, name, &g, &cid, &err), HP_OK);
	game_free(&g);
	assert_int_equal(store_player_add(st, cid, 0, "bea", "bea@example.org",
	    NULL, NULL, moderator, &err), HP_OK);
	assert_int_equal(store_player_add(st, cid, 1, "rob", "rob@example.org",
	    NULL, NULL, false, &err), HP_OK);
	return cid;
}

/* A test's database (a temporary file) with the campaign "hill" opened at
 * T0, and the configuration its deadline checks use. */
struct hill {
	const char *path;
	struct store *st;
	struct config cfg;
	int64_t cid;
};

/* Open h: the campaign (Blue's player the moderator if asked) and a
 * configuration with hours to the deadline, remind hours before it and the
 * missing policy. Close with hill_close. */
static void
hill_open(struct hill *h, bool moderator, int hours, int remind,
    const char *missing)
{
	h->path = fx_tmp_db();
	h->st = fx_store_new(h->path);
	h->cid = campaign(h->st, "hill", moderator);
	config_defaults(&h->cfg, "/nonexistent");
	h->cfg.deadline_hours = hours;
	h->cfg.remind_hours = remind;
	strlcpy_(h->cfg.missing, missing, sizeof h->cfg.missing);
}

/* Close h's store and remove its database. */
static void
hill_close(struct hill *h)
{
	store_close(h->st);
	fx_tmp_clean();
}

/* The deadline check of hill at now (the clock set to now too). */
static enum deadline_action
check(struct hill *h, long now)
{
	struct hp_error err = { 0, "" };
	enum deadline_action a;

	set_now(now);
	if (deadline_check(h->st, &h->cfg, "hill", now, &a, &err) != HP_OK)
		fail_msg("deadline_check: %s", err.msg);
	return a;
}

/* The integer the query returns on h's database (-1 if no row). */
static long
count(const struct hill *h, const char *sql)
{
	return fx_db_long(h->path, sql);
}

/* Resolve hill's open windows, asserting success; how many resolved. */
static int
resolve(struct hill *h)
{
	struct hp_error err = { 0, "" };
	int n = 0;

	assert_int_equal(turn_resolve(h->st, "hill", &n, &err), HP_OK);
	return n;
}

/* For count(): every message queued, every order stored. */
#define OUTBOX "SELECT count(*) FROM outbox"
#define ORDERS "SELECT count(*) FROM orders"

/* Times past year 9999 are refused, and a deadline far in the future never
 * wraps into the past (which would fill every side at once). */
static void
test_time_overflow(void **state)
{
	struct deadline_settings ds;
	struct store_clock c;
	long t = 0;

	(void)state;
	assert_int_equal(deadline_parse_time("99999999999999999999", &t),
	    HP_EINVAL);
	assert_int_equal(deadline_parse_time("9223372036854775000", &t),
	    HP_EINVAL);
	assert_int_equal(deadline_parse_time("253402300799", &t), HP_OK);
	memset(&ds, 0, sizeof ds);
	memset(&c, 0, sizeof c);
	c.have = true;
	c.opened = T0;
	c.fixed = LONG_MAX - 10;
	c.extended = 3600L * 10000;
	assert_true(deadline_of(&ds, &c) > T0);
	assert_int_equal(deadline_state_at(&ds, &c, T0), DL_RUNNING);
	c.fixed = 0;
	c.opened = LONG_MAX - 100;
	ds.deadline_hours = 10000;
	c.extended = 0;
	assert_int_equal(deadline_state_at(&ds, &c, T0), DL_RUNNING);
}

static void
test_time(void **state)
{
	char buf[64];
	long t;

	(void)state;
	assert_int_equal(deadline_parse_time("2027-01-15T08:00Z", &t), HP_OK);
	assert_int_equal(t, T0);
	assert_int_equal(deadline_parse_time("2027-01-15T08:00:30Z", &t),
	    HP_OK);
	assert_int_equal(t, T0 + 30);
	assert_int_equal(deadline_parse_time("1800000000", &t), HP_OK);
	assert_int_equal(t, T0);
	assert_int_equal(deadline_parse_time("2027-01-15T08:00", &t),
	    HP_EINVAL);
	assert_int_equal(deadline_parse_time("2027-01-15 08:00Z", &t),
	    HP_EINVAL);
	assert_int_equal(deadline_parse_time("12x", &t), HP_EINVAL);
	assert_int_equal(deadline_parse_time("", &t), HP_EINVAL);
	deadline_format(T0, buf, sizeof buf);
	assert_string_equal(buf, "2027-01-15 08:00 UTC");
	setenv("HEXPOST_NOW", "2027-01-15T08:00Z", 1);
	assert_int_equal(deadline_now(), T0);
	unsetenv("HEXPOST_NOW");
	assert_true(deadline_now() > T0 - 10 * 365 * 24 * HOUR);
}

static void
test_most_missed(void **state)
{
	(void)state;
	assert_false(deadline_most_missed(0x1, 0x1));  /* one player */
	assert_false(deadline_most_missed(0x3, 0x1));  /* half */
	assert_true(deadline_most_missed(0x3, 0x3));
	assert_true(deadline_most_missed(0x7, 0x6));
	assert_false(deadline_most_missed(0x7, 0x4));
	assert_false(deadline_most_missed(0xf, 0x3));
	assert_true(deadline_most_missed(0xf, 0xb));
	assert_false(deadline_most_missed(0x3, 0x4));  /* not a human side */
}

/* The window opened at T0 has its clock; the deadline is T0 + 48 h; the
 * reminder goes 12 h before, once, to Blue's player only. */
static void
test_reminder(void **state)
{
	struct hill h;

	(void)state;
	hill_open(&h, false, 48, 12, "ai");
	assert_int_equal(count(&h, "SELECT opened FROM window_clock"), T0);
	assert_int_equal(check(&h, T0 + 35 * HOUR), DA_NOTHING);
	assert_int_equal(count(&h, OUTBOX), 0);
	assert_int_equal(check(&h, T0 + 36 * HOUR), DA_REMINDED);
	assert_int_equal(count(&h, "SELECT count(*) FROM outbox WHERE kind "
	    "= 'reminder' AND rcpt = 'bea@example.org' AND envelope_from = "
	    "'hexpost@localhost'"), 1);
	assert_int_equal(count(&h, OUTBOX), 1);
	assert_int_equal(count(&h, "SELECT reminded FROM window_clock"), 1);
	assert_int_equal(count(&h, "SELECT count(*) FROM outbox WHERE "
	    "instr(data, 'due by 2027-01-17 08:00 UTC') > 0"), 1);
	/* Once only. */
	assert_int_equal(check(&h, T0 + 40 * HOUR), DA_NOTHING);
	assert_int_equal(count(&h, OUTBOX), 1);
	/* No orders changed hands. */
	assert_int_equal(count(&h, ORDERS), 0);
	hill_close(&h);
}

/* Policy ai: at the deadline the built-in opponent's orders are stored for
 * Blue (source deadline-ai), and the window resolves. */
static void
test_ai(void **state)
{
	struct hill h;

	(void)state;
	hill_open(&h, false, 24, 0, "ai");
	assert_int_equal(check(&h, T0 + 24 * HOUR - 1), DA_NOTHING);
	assert_int_equal(count(&h, ORDERS), 0);
	assert_int_equal(check(&h, T0 + 24 * HOUR), DA_FILLED);
	assert_int_equal(count(&h, "SELECT count(*) FROM orders WHERE "
	    "side_idx = 0 AND source = 'deadline-ai' AND current = 1"), 1);
	assert_int_equal(count(&h, OUTBOX), 0);
	assert_int_equal(resolve(&h), 1);
	/* The next window (Red's) opened at the time of resolution. */
	assert_int_equal(count(&h, "SELECT opened FROM window_clock c JOIN "
	    "windows w ON w.id = c.window_id WHERE w.state = 'open'"),
	    T0 + 24 * HOUR);
	hill_close(&h);
}

/* Policy hold: Blue's turn-1 file must deploy, so neither an empty file nor
 * "hold" is taken and the opponent's deploys it; Red's window then takes
 * "hold". */
static void
test_hold(void **state)
{
	struct hill h;

	(void)state;
	hill_open(&h, false, 1, 0, "hold");
	assert_int_equal(check(&h, T0 + HOUR), DA_FILLED);
	assert_int_equal(count(&h, "SELECT count(*) FROM orders WHERE "
	    "side_idx = 0 AND source = 'deadline-ai'"), 1);
	set_now(T0 + 2 * HOUR);
	resolve(&h);
	assert_int_equal(check(&h, T0 + 3 * HOUR - 1), DA_NOTHING);
	assert_int_equal(check(&h, T0 + 3 * HOUR), DA_FILLED);
	assert_int_equal(count(&h, "SELECT count(*) FROM orders WHERE "
	    "side_idx = 1 AND source = 'deadline-hold' AND parsed = "
	    "'hold\n'"), 1);
	resolve(&h);
	hill_close(&h);
}

/* Policy wait: the window is held and the moderator told, once; nothing
 * is filled in; a late order file still counts. */
static void
test_wait(void **state)
{
	struct hill h;

	(void)state;
	hill_open(&h, true, 2, 0, "wait");
	assert_int_equal(check(&h, T0 + 2 * HOUR), DA_HELD);
	assert_int_equal(count(&h, "SELECT held FROM window_clock"), 1);
	assert_int_equal(count(&h, "SELECT count(*) FROM outbox WHERE kind "
	    "= 'notice' AND rcpt = 'bea@example.org'"), 1);
	assert_int_equal(count(&h, OUTBOX), 1);
	assert_int_equal(count(&h, "SELECT count(*) FROM outbox WHERE "
	    "instr(data, 'policy is to wait for you') > 0"), 1);
	assert_int_equal(check(&h, T0 + 5 * HOUR), DA_NOTHING);
	assert_int_equal(count(&h, OUTBOX), 1);
	assert_int_equal(count(&h, ORDERS), 0);
	hill_close(&h);
}

/* A paused campaign's clock stands still; no deadline, no reminder. */
static void
test_paused_and_none(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_settings s;
	struct hill h;

	(void)state;
	hill_open(&h, false, 0, 24, "ai");
	assert_int_equal(check(&h, T0 + 1000 * HOUR), DA_NOTHING);
	assert_int_equal(store_settings_get(h.st, h.cid, &s, &err), HP_OK);
	assert_int_equal(s.deadline_hours, -1);
	s.deadline_hours = 1;
	s.paused = true;
	s.paused_at = T0;
	assert_int_equal(store_settings_put(h.st, h.cid, &s, &err), HP_OK);
	assert_int_equal(check(&h, T0 + 1000 * HOUR), DA_NOTHING);
	assert_int_equal(count(&h, ORDERS), 0);
	assert_int_equal(count(&h, OUTBOX), 0);
	s.paused = false;
	assert_int_equal(store_settings_put(h.st, h.cid, &s, &err), HP_OK);
	/* The campaign's own deadline_hours (1) beats the configuration's.
	 * The pause kept the reminder from going out: it goes out first,
	 * with the window's own hour of grace. */
	assert_int_equal(check(&h, T0 + HOUR), DA_REMINDED);
	assert_int_equal(count(&h, ORDERS), 0);
	assert_int_equal(check(&h, T0 + 2 * HOUR - 1), DA_NOTHING);
	assert_int_equal(check(&h, T0 + 2 * HOUR), DA_FILLED);
	hill_close(&h);
}

/* A window opened while hexpost's clock was ten days behind (its deadline
 * 72 h after that): when the clock is set right the deadline has long
 * passed, but no reminder went out. Before, the built-in opponent filled
 * the missing side at once; now the reminder goes out, the deadline moves
 * to remind_hours (24) from now, and it is filled only then (issue 21,
 * item 7). */
static void
test_clock_jump(void **state)
{
	struct hill h;
	long now = T0 + 240 * HOUR;

	(void)state;
	hill_open(&h, false, 72, 24, "ai");
	assert_int_equal(check(&h, T0), DA_NOTHING);
	assert_int_equal(check(&h, now), DA_REMINDED);
	assert_int_equal(count(&h, ORDERS), 0);
	assert_int_equal(count(&h, "SELECT count(*) FROM outbox WHERE kind = "
	    "'reminder'"), 1);
	assert_int_equal(count(&h, "SELECT count(*) FROM outbox WHERE kind = "
	    "'reminder' AND instr(data, 'orders for turn 1') > 0"), 1);
	/* One reminder only, and no fill within the day of grace. */
	assert_int_equal(check(&h, now + 1), DA_NOTHING);
	assert_int_equal(check(&h, now + 24 * HOUR - 1), DA_NOTHING);
	assert_int_equal(count(&h, ORDERS), 0);
	assert_int_equal(count(&h, "SELECT count(*) FROM outbox WHERE kind = "
	    "'reminder'"), 1);
	assert_int_equal(check(&h, now + 24 * HOUR), DA_FILLED);
	assert_true(count(&h, ORDERS) > 0);
	hill_close(&h);
}

/* A deadline check that fails leaves nothing: a broken outbox table makes
 * queueing the reminder fail, and the clock is not marked. */
static void
test_all_or_nothing(void **state)
{
	struct hp_error err = { 0, "" };
	enum deadline_action a;
	struct hill h;

	(void)state;
	hill_open(&h, false, 10, 5, "ai");
	fx_db_exec(h.path, "CREATE TRIGGER no_mail BEFORE INSERT ON outbox "
	    "BEGIN SELECT RAISE(ABORT, 'no mail today'); END;");
	assert_int_equal(deadline_check(h.st, &h.cfg, "hill", T0 + 6 * HOUR,
	    &a, &err), HP_EDB);
	assert_int_equal(a, DA_NOTHING);
	assert_int_equal(count(&h, "SELECT reminded FROM window_clock"), 0);
	fx_db_exec(h.path, "DROP TRIGGER no_mail;");
	assert_int_equal(check(&h, T0 + 6 * HOUR), DA_REMINDED);
	assert_int_equal(count(&h, OUTBOX), 1);
	hill_close(&h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_time_overflow),
		cmocka_unit_test(test_most_missed),
		cmocka_unit_test(test_reminder),
		cmocka_unit_test(test_ai),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_paused_and_none),
		cmocka_unit_test(test_clock_jump),
		cmocka_unit_test(test_all_or_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
