/* test_decide: resolutions that stop to ask and resume (issue 10, G1/G3/G4/
 * G7), through the engine's test ruleset test-decide.
 *
 * In memory with injected dice: the turn-0 window naming no side rolls the
 * first initiative; an orders window rolls, stops for two sides' different
 * questions (a decision window naming both), and resumes at the next step
 * with the interrupted window's orders (ctx->prior) and the answers, rolling
 * again; standing orders of a side inside the window answer its question
 * (only the other side is asked); a stop followed by a window that is not
 * the decision for the sides asked is a broken invariant.
 *
 * Through the store with a server key: a campaign stops, waits for both
 * answers, takes one by its player and the other from the deadline's hold
 * policy, resumes, and its audit (database and bundle) replays through the
 * stops; a changed answer file fails the audit; standing orders sent while
 * a window is open (by a replacement player, say) change nothing in that
 * window and enter the dice key of the next. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "deadline.h"
#include "fixtures.h"
#include "minisign.h"
#include "moderator.h"
#include "seedchain.h"
#include "turn.h"

static char dir[512];
static char db[600], sk_path[600], pk_path[600];

/* A fresh test-decide game, set up. */
static void
decide_game(struct game *g)
{
	struct hp_error err = { 0, "" };

	game_init(g);
	g->rules = ruleset_find("test-decide");
	assert_non_null(g->rules);
	strlcpy_(g->name, "d", sizeof g->name);
	assert_int_equal(ruleset_setup(g, NULL, NULL, NULL, NULL, &err), HP_OK);
}

/* An order file of side for window w of g with body. Caller frees. */
static char *
file_for(const struct game *g, const struct window_spec *w, int side,
    const char *body)
{
	struct sbuf b;

	sbuf_init(&b);
	window_order_header(g, w, side, &b);
	sbuf_puts(&b, body);
	return sbuf_steal(&b);
}

/* Resolve window w of g with files raw and scripted dice; *stop says how it
 * ended; the events stay in ev (freed by the caller). */
static void
resolve(struct game *g, const struct window_spec *w, char *raw[2],
    char *standing[2], const struct window_resume *res, const int *dice,
    size_t ndice, struct window_stop *stop, struct events *ev)
{
	const char *r[GAME_MAX_SIDES] = { raw[0], raw[1] };
	const char *s[GAME_MAX_SIDES] = { standing ? standing[0] : NULL,
		standing ? standing[1] : NULL };
	struct hp_error err = { 0, "" };
	struct dice d;

	dice_init_scripted(&d, dice, ndice);
	events_init(ev);
	if (window_resolve_resume(g, w, r, s, res, stop, &d, ev, &err) !=
	    HP_OK)
		fail_msg("resolve: %s", err.msg);
	assert_false(d.script_exhausted);
	assert_int_equal(d.nlog, (int)ndice);
	dice_free(&d);
}

/* The first initiative: a turn-0 window naming no side, with dice. */
static void
test_deploy_initiative(void **state)
{
	static const int dice[] = { 4, 4, 2, 5 };  /* a tie, then south */
	struct window_spec w, next;
	struct window_stop stop;
	struct events ev;
	struct game g;
	char *raw[2] = { NULL, NULL };
	struct hp_error err = { 0, "" };
	bool more;

	(void)state;
	decide_game(&g);
	assert_true(ruleset_find("test-decide")->test);
	assert_false(ruleset_find("fire-and-movement")->test);
	assert_false(ruleset_find("portable-modern")->test);
	assert_true(g.rules->next_window(&g, &w));
	assert_int_equal(w.turn, 0);
	assert_string_equal(w.name, "deploy");
	assert_int_equal(w.sides, 0);
	resolve(&g, &w, raw, NULL, NULL, dice, 4, &stop, &ev);
	assert_int_equal(stop.step, -1);
	assert_true(fx_event_has(&ev, "Initiative: north 4, south 4, a tie."));
	assert_true(fx_event_has(&ev, "South has the initiative."));
	assert_int_equal(game_var(&g, "init", -1), 1);
	assert_int_equal(window_advance(&g, &stop, &next, &more, &err), HP_OK);
	assert_true(more);
	assert_int_equal(next.turn, 1);
	assert_string_equal(next.name, "orders");
	assert_int_equal(next.sides, 3);
	events_free(&ev);
	game_free(&g);
}

/* Past the deploy window with the initiative to south. */
static void
deployed(struct game *g)
{
	static const int dice[] = { 2, 5 };
	struct window_spec w, next;
	struct window_stop stop;
	struct events ev;
	char *raw[2] = { NULL, NULL };
	struct hp_error err = { 0, "" };
	bool more;

	decide_game(g);
	assert_true(g->rules->next_window(g, &w));
	resolve(g, &w, raw, NULL, NULL, dice, 2, &stop, &ev);
	events_free(&ev);
	assert_int_equal(window_advance(g, &stop, &next, &more, &err), HP_OK);
}

/* South (initiative) fires 1 die at 4+: 4, a hit; north 2 at 5+: 5 2, one
 * hit. */
static const int before[] = { 4, 5, 2 };

/* Past the deploy window, turn 1's orders (north attack 2, south attack
 * 1) resolved up to the stop: the window in w, the files in raw (caller
 * frees), the events in ev (caller frees). */
static void
stopped(struct game *g, struct window_spec *w, char *raw[2],
    struct window_stop *stop, struct events *ev)
{
	deployed(g);
	assert_true(g->rules->next_window(g, w));
	raw[0] = file_for(g, w, 0, "attack 2\n");
	raw[1] = file_for(g, w, 1, "attack 1\n");
	resolve(g, w, raw, NULL, NULL, before, 3, stop, ev);
}

/* Two sides asked two different questions; the resolution resumes with
 * the orders it had and the answers, and rolls after the stop too. */
static void
test_stop_and_resume(void **state)
{
	/* After the answers: north presses with its 2 attack dice from the
	 * interrupted orders: 6 6; south commits 2 reserves: 4 (saves one)
	 * 1. */
	static const int after[] = { 6, 6, 4, 1 };
	struct window_spec w, dw, next;
	struct window_resume res;
	struct window_stop stop;
	struct events ev;
	struct game g;
	char *raw[2], *ans[2], *t;
	struct hp_error err = { 0, "" };
	bool more;

	(void)state;
	stopped(&g, &w, raw, &stop, &ev);
	assert_int_equal(stop.step, 1);
	assert_int_equal(stop.ask, 3u);
	assert_true(fx_event_has(&ev, "South fires: 1 die, 1 hit (needs 4+)."));
	assert_true(fx_event_has(&ev, "North fires: 2 dice, 1 hit (needs 5+)."));
	assert_true(fx_event_has(&ev, "North is asked: press or withdraw."));
	assert_true(fx_event_has(&ev, "South is asked: how many reserves"));
	/* Not over: no victory, no damage yet. */
	assert_int_equal(g.status, GAME_ACTIVE);
	assert_int_equal(game_var(&g, "str.south", 0), 8);
	events_free(&ev);
	assert_int_equal(window_advance(&g, &stop, &dw, &more, &err), HP_OK);
	assert_true(more);
	assert_int_equal(dw.kind, WINDOW_DECISION);
	assert_int_equal(dw.sides, 3u);
	assert_int_equal(dw.turn, 1);
	assert_int_equal(dw.number, 2);
	assert_string_equal(dw.name, "decide");
	/* Each side its own question, ready to edit. */
	t = window_order_template(&g, &dw, 0);
	assert_non_null(strstr(t, "press: roll your attack dice again"));
	assert_non_null(strstr(t, "\npress\n"));
	assert_null(strstr(t, "reserve"));
	free(t);
	t = window_order_template(&g, &dw, 1);
	assert_non_null(strstr(t, "reserve K (0-2)"));
	assert_non_null(strstr(t, "\nreserve 1\n"));
	free(t);
	ans[0] = file_for(&g, &dw, 0, "press\n");
	ans[1] = file_for(&g, &dw, 1, "reserve 2\n");
	memset(&res, 0, sizeof res);
	res.step = stop.step;
	res.w = w;
	res.prior[0] = raw[0];
	res.prior[1] = raw[1];
	resolve(&g, &dw, ans, NULL, &res, after, 4, &stop, &ev);
	assert_int_equal(stop.step, -1);
	assert_true(fx_event_has(&ev, "North presses: 2 dice, 2 hits"));
	assert_true(fx_event_has(&ev, "South commits 2 reserves: 1 hit saved."));
	/* North: 1 + 2 - 1 saved = 2 hits on south; south: 1 on north. */
	assert_true(fx_event_has(&ev, "Strength: north 7, south 6."));
	assert_int_equal(game_var(&g, "str.north", 0), 7);
	assert_int_equal(game_var(&g, "str.south", 0), 6);
	assert_int_equal(game_var(&g, "asked", -1), 0);
	events_free(&ev);
	assert_int_equal(window_advance(&g, &stop, &next, &more, &err), HP_OK);
	assert_int_equal(next.turn, 2);
	assert_string_equal(next.name, "orders");
	free(ans[0]);
	free(ans[1]);
	/* Without the interrupted orders north would press with no dice:
	 * ctx->prior is what carries them. */
	{
		static const int nodice[] = { 4, 1 };
		struct game h;
		char *hraw[2];

		stopped(&h, &w, hraw, &stop, &ev);
		free(hraw[0]);
		free(hraw[1]);
		events_free(&ev);
		assert_int_equal(window_advance(&h, &stop, &dw, &more, &err),
		    HP_OK);
		ans[0] = file_for(&h, &dw, 0, "press\n");
		ans[1] = file_for(&h, &dw, 1, "reserve 2\n");
		res.prior[0] = res.prior[1] = NULL;
		resolve(&h, &dw, ans, NULL, &res, nodice, 2, &stop, &ev);
		assert_true(fx_event_has(&ev, "North presses with no dice."));
		events_free(&ev);
		free(ans[0]);
		free(ans[1]);
		game_free(&h);
	}
	free(raw[0]);
	free(raw[1]);
	game_free(&g);
}

/* A side's standing orders inside the window answer its question: only the
 * other side is asked. */
static void
test_standing_answers(void **state)
{
	static const int after[] = { 6 };
	struct window_spec w, dw, sw;
	struct window_resume res;
	struct window_stop stop;
	struct events ev;
	struct game g;
	char *raw[2], *standing[2] = { NULL, NULL }, *ans[2] = { NULL, NULL };
	struct hp_error err = { 0, "" };
	bool more;

	(void)state;
	deployed(&g);
	assert_true(g.rules->next_window(&g, &w));
	memset(&sw, 0, sizeof sw);
	strlcpy_(sw.name, "standing", sizeof sw.name);
	standing[0] = file_for(&g, &sw, 0, "answer withdraw\n");
	raw[0] = file_for(&g, &w, 0, "attack 2\n");
	raw[1] = file_for(&g, &w, 1, "attack 1\n");
	resolve(&g, &w, raw, standing, NULL, before, 3, &stop, &ev);
	assert_int_equal(stop.step, 1);
	assert_int_equal(stop.ask, 2u);
	assert_true(fx_event_has(&ev, "North answers by its standing orders."));
	events_free(&ev);
	assert_int_equal(window_advance(&g, &stop, &dw, &more, &err), HP_OK);
	assert_int_equal(dw.sides, 2u);
	ans[1] = file_for(&g, &dw, 1, "reserve 1\n");
	memset(&res, 0, sizeof res);
	res.step = 1;
	res.w = w;
	res.prior[0] = raw[0];
	res.prior[1] = raw[1];
	resolve(&g, &dw, ans, NULL, &res, after, 1, &stop, &ev);
	/* North withdrew: the one hit on it is halved to 0. */
	assert_true(fx_event_has(&ev, "North withdraws: 1 hit on it become 0."));
	assert_int_equal(game_var(&g, "str.north", 0), 8);
	assert_int_equal(game_var(&g, "str.south", 0), 8);  /* 1 hit saved */
	events_free(&ev);
	free(standing[0]);
	free(raw[0]);
	free(raw[1]);
	free(ans[1]);
	game_free(&g);
}

/* After a stop the next window must be the decision for the sides asked. */
static void
test_stop_invariant(void **state)
{
	struct window_spec w, next;
	struct window_stop stop;
	struct events ev;
	struct game g;
	char *raw[2];
	struct hp_error err = { 0, "" };
	bool more;

	(void)state;
	stopped(&g, &w, raw, &stop, &ev);
	events_free(&ev);
	stop.ask = 1;  /* the ruleset's decision window names both */
	assert_int_equal(window_advance(&g, &stop, &next, &more, &err),
	    HP_EINTERNAL);
	assert_non_null(strstr(err.msg, "not a decision window for them"));
	free(raw[0]);
	free(raw[1]);
	game_free(&g);
}

/* Campaign d of test-decide with north and south played by people (no
 * keys), a server key in *sk, the deploy window resolved. */
static struct store *
campaign(struct minisign_seckey **sk)
{
	struct hp_error err = { 0, "" };
	struct store *st;
	int n = 0;

	fx_mkdtemp(dir, sizeof dir, "decide");
	snprintf(db, sizeof db, "%s/db", dir);
	snprintf(sk_path, sizeof sk_path, "%s/server.key", dir);
	snprintf(pk_path, sizeof pk_path, "%s/server.pub", dir);
	st = fx_store_new(db);
	assert_int_equal(turn_campaign_new(st, "d", "test-decide", NULL, NULL,
	    (const unsigned char *)"decide-unit", 11, &err), HP_OK);
	assert_int_equal(store_player_add(st, 1, 0, "Nan", "nan@example.org",
	    NULL, NULL, false, &err), HP_OK);
	assert_int_equal(store_player_add(st, 1, 1, "Sam", "sam@example.org",
	    NULL, NULL, false, &err), HP_OK);
	assert_int_equal(minisign_keygen(sk_path, pk_path, NULL, &err), HP_OK);
	assert_int_equal(minisign_seckey_load(sk_path, sk, &err), HP_OK);
	assert_int_equal(seedchain_sign(st, "d", *sk, &err), HP_OK);
	assert_int_equal(turn_resolve_sideless(st, "d", *sk, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	return st;
}

/* Submit body for side in campaign d's open window (or the standing
 * window) from the command line. */
static void
submit(struct store *st, int side, const char *window, const char *body)
{
	fx_submit(st, "d", side, window, body);
}

/* The audit of d from the database and from its bundle: OK, n stops
 * (test_standing_fixed_at_open's unsigned replace accepted). */
static void
audit_ok(struct store *st, int stops)
{
	struct audit_opts o = { .server_pub = pk_path, .accept_test_dice = true,
	    .accept_unsigned_moderation = true };
	struct audit_stats s;
	struct hp_error err = { 0, "" };
	char bdir[700];

	if (audit_campaign(st, "d", &o, &s, &err) != HP_OK)
		fail_msg("audit: %s", err.msg);
	assert_int_equal(s.stops, stops);
	snprintf(bdir, sizeof bdir, "%s/bundle", dir);
	fx_rmtree(bdir);
	assert_int_equal(audit_export(st, "d", bdir, NULL, &err), HP_OK);
	o.server_pub = NULL;
	if (audit_bundle(bdir, &o, &s, &err) != HP_OK)
		fail_msg("audit --bundle: %s", err.msg);
	assert_int_equal(s.stops, stops);
}

static void
test_campaign_stop_deadline_audit(void **state)
{
	struct minisign_seckey *sk = NULL;
	struct store *st = campaign(&sk);
	struct audit_opts o = { .accept_test_dice = true };
	struct hp_error err = { 0, "" };
	struct audit_stats s;
	struct store_window w, ow;
	struct game g;
	unsigned missing;
	int64_t of;
	int n = 0, turn, number, step;
	char *rows;

	(void)state;
	submit(st, 0, NULL, "attack 3\n");
	assert_int_equal(turn_resolve_signed(st, "d", NULL, sk, &n, &err),
	    HP_ESTATE);
	submit(st, 1, NULL, "attack 2\n");
	assert_int_equal(turn_resolve_signed(st, "d", NULL, sk, &n, &err),
	    HP_OK);
	assert_int_equal(n, 1);
	/* The stop: a decision window for both, continuing window 'orders'
	 * from the step that asked. */
	assert_int_equal(turn_pending(st, "d", &w, &missing, &err), HP_OK);
	assert_string_equal(w.spec.name, "decide");
	assert_int_equal(w.spec.kind, WINDOW_DECISION);
	assert_int_equal(missing, 3u);
	assert_int_equal(store_window_cont_get(st, w.id, &of, &turn, &number,
	    &step, &err), HP_OK);
	assert_int_equal(turn, 1);
	assert_int_equal(number, 1);
	assert_int_equal(step, 1);
	assert_int_equal(store_window_get(st, 1, 1, 1, &ow, &err), HP_OK);
	assert_int_equal(of, ow.id);
	assert_int_equal(ow.state, WSTATE_RESOLVED);
	/* The interrupted window's report went out with each side's own
	 * question. */
	rows = store_report_get(st, fx_db_long(db, "SELECT id FROM windows "
	    "WHERE name = 'orders'"), 1, &err);
	assert_non_null(strstr(rows, "reserve K (0-2)"));
	assert_null(strstr(rows, "withdraw: halve"));
	free(rows);
	/* North answers; south misses the deadline: the hold policy writes
	 * the hold file, which the ruleset reads as the template's default
	 * answer (reserve 1). */
	submit(st, 0, NULL, "withdraw\n");
	assert_int_equal(turn_pending(st, "d", &w, &missing, &err), HP_OK);
	assert_int_equal(missing, 2u);
	game_init(&g);
	assert_int_equal(store_game_load(st, "d", &g, NULL, &err), HP_OK);
	assert_int_equal(store_begin(st, &err), HP_OK);
	assert_int_equal(deadline_fill(st, &g, &w, missing, DEADLINE_HOLD,
	    NULL, &err), HP_OK);
	assert_int_equal(store_commit(st, &err), HP_OK);
	game_free(&g);
	rows = fx_db_rows(db, "SELECT source, parsed FROM orders WHERE "
	    "window_id = (SELECT id FROM windows WHERE name = 'decide') AND "
	    "side_idx = 1");
	assert_string_equal(rows, "deadline-hold|hold\n\n");
	free(rows);
	assert_int_equal(turn_resolve_signed(st, "d", NULL, sk, &n, &err),
	    HP_OK);
	assert_int_equal(turn_pending(st, "d", &w, &missing, &err), HP_OK);
	assert_string_equal(w.spec.name, "orders");
	assert_int_equal(w.spec.turn, 2);
	rows = fx_db_rows(db, "SELECT text FROM events e JOIN windows w ON "
	    "w.id = e.window_id WHERE w.name = 'decide' AND text LIKE "
	    "'South commits%'");
	assert_true(strncmp(rows, "South commits 1 reserve: ", 25) == 0);
	free(rows);
	audit_ok(st, 1);

	/* A changed answer file fails the audit (its hash, then its key). */
	fx_db_exec(db, "UPDATE orders SET raw = replace(raw, 'withdraw', "
	    "'press') WHERE source = 'cli' AND window_id = (SELECT id FROM "
	    "windows WHERE name = 'decide')");
	o.server_pub = pk_path;
	assert_int_equal(audit_campaign(st, "d", &o, &s, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "turn 1 window 2 'decide'"));
	minisign_seckey_free(sk);
	store_close(st);
	fx_rmtree(dir);
}

/* Standing orders are fixed when a window opens: a file sent while it is
 * open (a replacement player's, say) changes nothing in that window, and
 * counts, in its dice key, from the next window on. */
static void
test_standing_fixed_at_open(void **state)
{
	struct minisign_seckey *sk = NULL;
	struct store *st = campaign(&sk);
	struct hp_error err = { 0, "" };
	struct store_window w;
	unsigned missing;
	int n = 0;
	char *rows;

	(void)state;
	submit(st, 0, NULL, "attack 1\n");
	submit(st, 1, NULL, "attack 1\n");
	/* Mid-window the moderator replaces north's player, and the new
	 * player sends standing orders. */
	{
		struct mod_command cmd;
		struct sbuf reply;

		memset(&cmd, 0, sizeof cmd);
		strlcpy_(cmd.campaign, "d", sizeof cmd.campaign);
		strlcpy_(cmd.verb, "replace", sizeof cmd.verb);
		strlcpy_(cmd.arg, "north", sizeof cmd.arg);
		strlcpy_(cmd.email, "nia@example.org", sizeof cmd.email);
		strlcpy_(cmd.name, "Nia", sizeof cmd.name);
		sbuf_init(&reply);
		assert_int_equal(store_begin(st, &err), HP_OK);
		if (moderator_exec(st, NULL, &cmd, NULL, 1800000000L, &reply,
		    &err) != HP_OK)
			fail_msg("replace: %s", err.msg);
		assert_int_equal(store_commit(st, &err), HP_OK);
		sbuf_free(&reply);
		assert_int_equal(fx_db_long(db, "SELECT count(*) FROM players "
		    "WHERE name = 'Nia' AND side_idx = 0"), 1);
	}
	submit(st, 0, "standing", "answer withdraw\n");
	assert_int_equal(turn_resolve_signed(st, "d", NULL, sk, &n, &err),
	    HP_OK);
	/* Window 'orders' of turn 1 opened without them: both asked. */
	assert_int_equal(turn_pending(st, "d", &w, &missing, &err), HP_OK);
	assert_int_equal(w.spec.sides, 3u);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM window_standing "
	    "s JOIN windows w ON w.id = s.window_id WHERE w.turn = 1 AND "
	    "w.number = 1"), 0);
	/* The decision window opened with them in force. */
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM window_standing "
	    "WHERE window_id = " "(SELECT id FROM windows WHERE turn = 1 AND "
	    "number = 2)"), 1);
	submit(st, 0, NULL, "press\n");
	submit(st, 1, NULL, "reserve 0\n");
	assert_int_equal(turn_resolve_signed(st, "d", NULL, sk, &n, &err),
	    HP_OK);
	/* Turn 2: north's standing orders answer; only south is asked. */
	submit(st, 0, NULL, "attack 1\n");
	submit(st, 1, NULL, "attack 1\n");
	assert_int_equal(turn_resolve_signed(st, "d", NULL, sk, &n, &err),
	    HP_OK);
	assert_int_equal(turn_pending(st, "d", &w, &missing, &err), HP_OK);
	assert_int_equal(w.spec.turn, 2);
	assert_int_equal(w.spec.sides, 2u);
	rows = fx_db_rows(db, "SELECT text FROM events e JOIN windows w ON "
	    "w.id = e.window_id WHERE w.turn = 2 AND w.number = 1 AND text "
	    "LIKE '%standing%'");
	assert_string_equal(rows, "North answers by its standing orders.\n");
	free(rows);
	/* South misses the deadline with policy ai: the built-in opponent
	 * answers its question (regenerated by the audit's replay). Its file
	 * is stored before north's standing file, which the resolution
	 * stores: the audit matches the log's lines in side order. */
	{
		struct game g;

		game_init(&g);
		assert_int_equal(store_game_load(st, "d", &g, NULL, &err),
		    HP_OK);
		assert_int_equal(store_begin(st, &err), HP_OK);
		assert_int_equal(deadline_fill(st, &g, &w, missing, DEADLINE_AI,
		    NULL, &err), HP_OK);
		assert_int_equal(store_commit(st, &err), HP_OK);
		game_free(&g);
	}
	assert_int_equal(turn_resolve_signed(st, "d", NULL, sk, &n, &err),
	    HP_OK);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM orders WHERE "
	    "source = 'deadline-ai' AND parsed LIKE 'reserve %'"), 1);
	audit_ok(st, 2);
	/* The snapshot is in the key: a changed one fails the audit. */
	fx_db_exec(db, "UPDATE window_standing SET raw = replace(raw, "
	    "'withdraw', 'press')");
	{
		struct audit_opts o = { .server_pub = pk_path, .accept_test_dice = true,
		    .accept_unsigned_moderation = true };
		struct audit_stats s;

		assert_int_equal(audit_campaign(st, "d", &o, &s, &err),
		    HP_EINVAL);
		assert_non_null(strstr(err.msg, "north's order file (standing"));
	}
	minisign_seckey_free(sk);
	store_close(st);
	fx_rmtree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deploy_initiative),
		cmocka_unit_test(test_stop_and_resume),
		cmocka_unit_test(test_standing_answers),
		cmocka_unit_test(test_stop_invariant),
		cmocka_unit_test(test_campaign_stop_deadline_audit),
		cmocka_unit_test(test_standing_fixed_at_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
