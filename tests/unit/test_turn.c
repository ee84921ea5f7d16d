/* test_turn: the order window lifecycle through turn_campaign_new,
 * turn_submit and turn_resolve on a temporary database, with the
 * fire-and-movement ruleset and a master seed: header checks, replacement,
 * missing orders, all-or-nothing resolution, resolved windows, the dice as a
 * function of seed and orders, opponent and standing orders. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "dicelog.h"
#include "seedchain.h"
#include "store.h"
#include "turn.h"

static const unsigned char MASTER[] = "test-turn master seed";
#define MASTERLEN (sizeof MASTER - 1)

/* Turn 1 deployment, as every Blue file of turn 1 needs it. */
#define DEPLOY "deploy 1 A0\ndeploy 2 B0\ndeploy 3 C0\ndeploy pc 2\n"

/* A campaign with the master seed; the sides named human get a player. */
static int64_t
new_campaign(struct store *st, const char *name, const char *options,
    bool blue_human, bool red_human)
{
	struct hp_error err = { 0, "" };
	struct game g;
	int64_t cid;

	assert_int_equal(turn_campaign_new(st, name, "fire-and-movement", NULL,
	    options, MASTER, MASTERLEN, &err), HP_OK);
	game_init(&g);
	assert_int_equal(store_game_load(st, name, &g, &cid, &err), HP_OK);
	game_free(&g);
	if (blue_human)
		assert_int_equal(store_player_add(st, cid, 0, "bea",
		    "bea@example.org", NULL, NULL, false, &err), HP_OK);
	if (red_human)
		assert_int_equal(store_player_add(st, cid, 1, "rob",
		    "rob@example.org", NULL, NULL, false, &err), HP_OK);
	return cid;
}

/* An order file; caller frees. */
static char *
file(const char *campaign, int turn, const char *window, const char *side,
    const char *body)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "campaign: %s\nturn: %d\nwindow: %s\nside: %s\n%s",
	    campaign, turn, window, side, body);
	return sbuf_steal(&b);
}

static bool
errs_have(const struct turn_submit *res, const char *s)
{
	char *t = orders_errors_text(&res->errs);
	bool found = strstr(t, s) != NULL;

	if (!found)
		fprintf(stderr, "expected '%s' in:\n%s", s, t);
	free(t);
	return found;
}

/* Submit text; the result is left in res (initialised here). */
static int
submit(struct store *st, const char *campaign, const char *text,
    int side_only, struct turn_submit *res)
{
	struct hp_error err = { 0, "" };
	int rc;

	turn_submit_init(res);
	rc = turn_submit(st, campaign, text, strlen(text), side_only, 0, "cli",
	    res, &err);
	if (rc != HP_OK && rc != HP_EINVAL)
		fprintf(stderr, "submit: %s\n", err.msg);
	return rc;
}

/* Submit a file that must be accepted. */
static void
submit_ok(struct store *st, const char *campaign, const char *text,
    int side_only, bool replaced)
{
	struct turn_submit res;

	if (submit(st, campaign, text, side_only, &res) != HP_OK) {
		char *t = orders_errors_text(&res.errs);

		fail_msg("refused:\n%s\n%s", text, t);
	}
	assert_int_equal(res.replaced, replaced);
	turn_submit_free(&res);
}

/* Submit text, which must be refused for reason why, changing nothing. */
static void
refused(struct store *st, const char *path, const char *campaign,
    const char *text, int side_only, const char *why)
{
	struct turn_submit res;
	char *before = fx_db_dump(path), *after;

	assert_int_equal(submit(st, campaign, text, side_only, &res),
	    HP_EINVAL);
	assert_true(res.errs.n > 0);
	assert_true(errs_have(&res, why));
	assert_int_equal(res.side, -1);
	assert_null(res.canon);
	turn_submit_free(&res);
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void
assert_window(struct store *st, const char *name, int turn, int number,
    enum window_state ws)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	struct game g;
	int64_t cid;

	game_init(&g);
	assert_int_equal(store_game_load(st, name, &g, &cid, &err), HP_OK);
	assert_int_equal(store_window_get(st, cid, turn, number, &w, &err),
	    HP_OK);
	assert_int_equal(w.state, ws);
	game_free(&g);
}

static long
count(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static long
count(const char *path, const char *fmt, ...)
{
	char sql[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof sql, fmt, ap);
	va_end(ap);
	return fx_db_long(path, sql);
}

/* Check every resolved window of campaign name against the audit rules:
 * seed from the master seed, commitment to the seed, order hashes of the
 * raw files and the dice key from seed, context and hashes in side order.
 * Returns the number of windows checked. */
static int
check_keys(struct store *st, const char *name)
{
	struct hp_error err = { 0, "" };
	struct store_order cur[GAME_MAX_SIDES];
	struct store_window w;
	unsigned char hashes[GAME_MAX_SIDES + 1][32], key[DICE_KEYLEN];
	unsigned char seed[DICE_SEEDLEN], commit[32], h[32], tail[32], prev[32];
	char *log, *lsig, *lpub;
	struct game g;
	int64_t cid;
	int turn, number, i, checked = 0, k = 0;
	size_t nh;

	game_init(&g);
	assert_int_equal(store_game_load(st, name, &g, &cid, &err), HP_OK);
	/* The seed chain's tail is the master's seed for turn 0 window 0;
	 * the k-th window opened takes seed k (docs/AUDIT.md, "Seed
	 * chain"). */
	dice_seed_from_master(MASTER, MASTERLEN, name, 0, 0, tail);
	memset(prev, 0, sizeof prev);
	for (turn = 1; turn <= g.turn; turn++)
		for (number = 1; number <= 2; number++) {
			if (store_window_get(st, cid, turn, number, &w, &err) !=
			    HP_OK)
				continue;
			k++;
			if (w.state != WSTATE_RESOLVED)
				continue;
			seedchain_seed(tail, SEEDCHAIN_LENGTH, k, seed);
			assert_memory_equal(w.seed, seed, DICE_SEEDLEN);
			dice_commit(seed, commit);
			assert_memory_equal(w.commitment, commit, 32);
			assert_int_equal(store_orders_current(st, w.id, cur,
			    &err), HP_OK);
			/* The previous dice log's hash first (docs/AUDIT.md,
			 * "Dice key"). */
			memcpy(hashes[0], prev, 32);
			nh = 1;
			for (i = 0; i < GAME_MAX_SIDES; i++) {
				if (cur[i].raw == NULL)
					continue;
				crypto_generichash(h, 32, (const unsigned char *)
				    cur[i].raw, strlen(cur[i].raw), NULL, 0);
				assert_memory_equal(cur[i].hash, h, 32);
				memcpy(hashes[nh++], h, 32);
			}
			store_orders_free(cur);
			assert_true(nh > 1);
			assert_int_equal(store_dicelog_get(st, w.id, &log, &lsig,
			    &lpub, &err), HP_OK);
			dicelog_hash(log, prev);
			free(log);
			free(lsig);
			free(lpub);
			dice_derive_key(seed, name, turn, number,
			    (const unsigned char (*)[32])hashes, nh, key);
			assert_true(w.have_key);
			assert_memory_equal(w.dice_key, key, DICE_KEYLEN);
			checked++;
		}
	game_free(&g);
	return checked;
}

static void
test_submit_refused(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	char *t;

	(void)state;
	new_campaign(st, "t", NULL, true, false);

	t = file("other", 1, "blue", "blue", DEPLOY);
	refused(st, path, "t", t, -1, "this file is for campaign 'other', "
	    "not 't'");
	free(t);
	t = file("nosuch", 1, "blue", "blue", DEPLOY);
	refused(st, path, NULL, t, -1, "no campaign called 'nosuch'");
	free(t);
	t = file("t", 2, "blue", "blue", DEPLOY);
	refused(st, path, "t", t, -1, "this file is for turn 2 window 'blue', "
	    "but the open window is turn 1 window 'blue'");
	free(t);
	t = file("t", 1, "red", "blue", DEPLOY);
	refused(st, path, "t", t, -1, "this file is for turn 1 window 'red', "
	    "but the open window is turn 1 window 'blue'");
	free(t);
	t = file("t", 1, "blue", "red", "target A0\n");
	refused(st, path, "t", t, -1, "red sends no orders in turn 1 window "
	    "'blue'");
	free(t);
	t = file("t", 1, "blue", "green", DEPLOY);
	refused(st, path, "t", t, -1, "no side called 'green'");
	free(t);
	t = file("t", 1, "blue", "blue", DEPLOY);
	refused(st, path, "t", t, 1, "you play red, but this file gives "
	    "orders for blue");
	free(t);
	/* Standing orders need the option, and only Red gives them. */
	t = file("t", 1, "standing", "red", "policy best\n");
	refused(st, path, "t", t, 1, "does not use standing orders");
	free(t);
	/* The body is checked too, by line of the file. */
	t = file("t", 1, "blue", "blue", DEPLOY "move 9 Z9\n");
	refused(st, path, "t", t, -1, "line 9: expected 'move SECTION HEX'");
	free(t);
	t = file("t", 1, "blue", "blue", "deploy 1 A0\n");
	refused(st, path, "t", t, -1, "missing 'deploy 2 HEX'");
	free(t);
	refused(st, path, "t", "turn: 1\nwindow: blue\nside: blue\n" DEPLOY,
	    -1, "missing header 'campaign:'");
	assert_int_equal(count(path, "SELECT count(*) FROM orders"), 0);

	/* The same file with everything right is taken, for the signer's
	 * side too. */
	t = file("t", 1, "blue", "blue", DEPLOY "fire 1\n");
	assert_int_equal(submit(st, "t", t, 0, &res), HP_OK);
	assert_int_equal(res.errs.n, 0);
	assert_int_equal(res.side, 0);
	assert_int_equal(res.turn, 1);
	assert_string_equal(res.window, "blue");
	assert_false(res.standing);
	assert_false(res.replaced);
	assert_non_null(res.canon);
	assert_non_null(strstr(res.canon, "fire 1\n"));
	turn_submit_free(&res);
	free(t);
	/* Without a campaign argument the header names it. */
	t = file("t", 1, "blue", "blue", DEPLOY);
	submit_ok(st, NULL, t, -1, true);
	free(t);
	assert_int_equal(count(path, "SELECT count(*) FROM orders"), 2);
	assert_int_equal(count(path, "SELECT count(*) FROM orders WHERE "
	    "current = 1 AND side_idx = 0 AND source = 'cli'"), 1);

	(void)err;
	store_close(st);
	fx_tmp_clean();
}

static void
test_finished_refused(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	struct game g;
	char *t, *before, *after;
	int n = 0;

	(void)state;
	/* Both sides built in: one resolve plays the whole game. */
	new_campaign(st, "done", "red-standing", false, false);
	assert_int_equal(turn_resolve(st, "done", &n, &err), HP_OK);
	assert_true(n >= 2);
	game_init(&g);
	assert_int_equal(store_game_load(st, "done", &g, NULL, &err), HP_OK);
	assert_int_equal(g.status, GAME_FINISHED);
	assert_true(g.result[0] != '\0');
	assert_int_equal(count(path, "SELECT count(*) FROM windows WHERE state "
	    "!= 'resolved'"), 0);
	assert_int_equal(count(path, "SELECT count(*) FROM windows"), n);
	assert_int_equal(check_keys(st, "done"), n);

	t = file("done", g.turn, "blue", "blue", "fire 1\n");
	refused(st, path, "done", t, -1, "campaign done has ended");
	free(t);
	t = file("done", g.turn, "standing", "red", "policy best\n");
	refused(st, path, "done", t, -1, "campaign done has ended");
	free(t);

	before = fx_db_dump(path);
	err.code = 0;
	n = -1;
	assert_int_equal(turn_resolve(st, "done", &n, &err), HP_ESTATE);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "has ended"));
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	free(before);
	free(after);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static void
test_replace(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	char *t1, *t2, *raw;
	int n = 0;

	(void)state;
	new_campaign(st, "r", NULL, true, false);
	t1 = file("r", 1, "blue", "blue", DEPLOY "fire 1\n");
	t2 = file("r", 1, "blue", "blue", DEPLOY "fire 2\n");
	submit_ok(st, "r", t1, -1, false);
	submit_ok(st, "r", t2, 0, true);
	assert_int_equal(count(path, "SELECT count(*) FROM orders"), 2);
	assert_int_equal(count(path, "SELECT count(*) FROM orders WHERE "
	    "current = 1"), 1);
	raw = fx_db_rows(path, "SELECT raw FROM orders WHERE current = 1");
	assert_non_null(strstr(raw, "fire 2\n"));
	free(raw);

	assert_int_equal(turn_resolve(st, "r", &n, &err), HP_OK);
	assert_true(n >= 1);
	assert_window(st, "r", 1, 1, WSTATE_RESOLVED);
	assert_int_equal(count(path, "SELECT count(*) FROM events WHERE "
	    "window_id = 1 AND text LIKE '2 Section fires from B0%%'"), 1);
	assert_int_equal(count(path, "SELECT count(*) FROM events WHERE "
	    "window_id = 1 AND text LIKE '1 Section fires%%'"), 0);
	assert_int_equal(count(path, "SELECT count(*) FROM dice WHERE "
	    "window_id = 1 AND purpose LIKE '2 Section fires%%'"), 1);
	assert_int_equal(count(path, "SELECT count(*) FROM dice WHERE "
	    "window_id = 1 AND purpose LIKE '1 Section fires%%'"), 0);
	/* The key was made from the second file's hash. */
	assert_true(check_keys(st, "r") >= 1);
	free(t1);
	free(t2);
	store_close(st);
	fx_tmp_clean();
}

static void
test_missing_orders(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	struct store_window w;
	unsigned missing = 0;
	char *before, *after, *t;
	int n = -1;

	(void)state;
	new_campaign(st, "m", NULL, true, true);
	assert_int_equal(turn_pending(st, "m", &w, &missing, &err), HP_OK);
	assert_int_equal(missing, 1u);
	before = fx_db_dump(path);
	assert_int_equal(turn_resolve(st, "m", &n, &err), HP_ESTATE);
	assert_int_equal(err.code, HP_ESTATE);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "waiting for orders from blue"));
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	free(before);
	free(after);

	/* Blue's window resolves; Red's (a person's) then waits for Red. */
	t = file("m", 1, "blue", "blue", DEPLOY);
	submit_ok(st, "m", t, 0, false);
	free(t);
	assert_int_equal(turn_resolve(st, "m", &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_window(st, "m", 1, 1, WSTATE_RESOLVED);
	assert_window(st, "m", 1, 2, WSTATE_OPEN);
	assert_int_equal(turn_pending(st, "m", &w, &missing, &err), HP_OK);
	assert_int_equal(missing, 2u);
	assert_string_equal(w.spec.name, "red");
	before = fx_db_dump(path);
	err.msg[0] = '\0';
	assert_int_equal(turn_resolve(st, "m", &n, &err), HP_ESTATE);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "turn 1 window 'red' is waiting for "
	    "orders from red"));
	assert_null(strstr(err.msg, "blue"));
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* Blue may not send orders in Red's window. */
	t = file("m", 1, "red", "blue", "fire 1\n");
	refused(st, path, "m", t, -1, "blue sends no orders in turn 1 window "
	    "'red'");
	free(t);
	/* Red's orders complete it, and resolving stops at Blue's next. */
	t = file("m", 1, "red", "red", "target B0\ncommander no\n");
	submit_ok(st, "m", t, 1, false);
	free(t);
	assert_int_equal(turn_resolve(st, "m", &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_window(st, "m", 1, 2, WSTATE_RESOLVED);
	assert_window(st, "m", 2, 1, WSTATE_OPEN);
	assert_int_equal(count(path, "SELECT count(*) FROM events WHERE "
	    "window_id = 2 AND text LIKE 'The enemy fires on B0.'"), 1);
	assert_int_equal(count(path, "SELECT count(*) FROM dice WHERE "
	    "window_id = 2 AND purpose LIKE '%%Pl Comd%%'"), 0);
	store_close(st);
	fx_tmp_clean();
}

/* Template directories made by the tests, removed at the end even when a
 * test fails. */
static char tpl_made[4][300];
static int ntpl_made;

/* A template directory holding report.txt with text; its path in dir. */
static void
template_dir(char *dir, size_t len, const char *text)
{
	const char *tmp = getenv("TMPDIR");
	char p[512];
	FILE *f;

	snprintf(dir, len, "%s/hexpost-tpl-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	if (ntpl_made < 4)
		strlcpy_(tpl_made[ntpl_made++], dir, sizeof tpl_made[0]);
	snprintf(p, sizeof p, "%s/report.txt", dir);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void
template_dir_rm(const char *dir)
{
	char p[sizeof tpl_made + 16];

	snprintf(p, sizeof p, "%s/report.txt", dir);
	unlink(p);
	rmdir(dir);
}

static void
test_resolve_atomic(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	struct store_window w;
	unsigned missing;
	char dir[300], good[300], *before, *after, *t, *rep;
	int n;

	(void)state;
	new_campaign(st, "a", NULL, true, false);
	t = file("a", 1, "blue", "blue", DEPLOY "fire 1\nfire 2\n");
	submit_ok(st, "a", t, 0, false);
	free(t);
	before = fx_db_dump(path);

	/* A template that does not render: report_render fails after the
	 * state, events, dice and the next window were written. */
	template_dir(dir, sizeof dir, "Report {{campaign}}\n{{#phases}}\n"
	    "{{name}}\n");
	assert_int_equal(setenv("HEXPOST_TEMPLATES", dir, 1), 0);
	n = -1;
	err.code = 0;
	assert_int_not_equal(turn_resolve(st, "a", &n, &err), HP_OK);
	assert_int_equal(n, 0);
	assert_true(err.code != 0 && err.msg[0] != '\0');
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	free(after);
	assert_int_equal(turn_pending(st, "a", &w, &missing, &err), HP_OK);
	assert_int_equal(w.state, WSTATE_OPEN);
	assert_int_equal(w.spec.turn, 1);
	assert_int_equal(w.spec.number, 1);
	assert_int_equal(missing, 0);

	/* No template at all: the same. */
	template_dir_rm(dir);
	n = -1;
	assert_int_not_equal(turn_resolve(st, "a", &n, &err), HP_OK);
	assert_int_equal(n, 0);
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	free(after);

	/* A good template from $HEXPOST_TEMPLATES is used... */
	template_dir(good, sizeof good, "GOOD {{campaign}} turn {{turn}} "
	    "{{window}}\n");
	assert_int_equal(setenv("HEXPOST_TEMPLATES", good, 1), 0);
	assert_int_equal(turn_resolve(st, "a", &n, &err), HP_OK);
	assert_true(n >= 1);
	template_dir_rm(good);
	assert_int_equal(unsetenv("HEXPOST_TEMPLATES"), 0);
	assert_window(st, "a", 1, 1, WSTATE_RESOLVED);
	assert_true(count(path, "SELECT count(*) FROM dice WHERE window_id = "
	    "1") >= 2);
	assert_int_equal(count(path, "SELECT count(*) FROM reports WHERE "
	    "window_id = 1"), 3);
	rep = store_report_get(st, 1, -1, &err);
	/* The template's text, then the order files the window used (the
	 * built-in report-files.txt: the directory has none). */
	assert_int_equal(strncmp(rep, "GOOD a turn 1 blue\n\n", 20), 0);
	assert_non_null(strstr(rep, "\nOrder files used in this window"));
	assert_non_null(strstr(rep, "\n  blue: "));
	free(rep);
	assert_int_equal(check_keys(st, "a"), n);
	free(before);
	store_close(st);
	fx_tmp_clean();
}

static void
test_resolved_window(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	char *t, *before, *after, *rows;
	long dice1;
	int n;

	(void)state;
	new_campaign(st, "f", NULL, true, false);
	/* No fire: the enemy stays fresh, so Red's window opens, and the
	 * built-in opponent fills it at once. */
	t = file("f", 1, "blue", "blue", DEPLOY "move 1 A1\n");
	submit_ok(st, "f", t, -1, false);
	assert_int_equal(turn_resolve(st, "f", &n, &err), HP_OK);
	assert_int_equal(n, 2);
	assert_window(st, "f", 1, 1, WSTATE_RESOLVED);
	assert_window(st, "f", 1, 2, WSTATE_RESOLVED);
	assert_window(st, "f", 2, 1, WSTATE_OPEN);
	assert_int_equal(check_keys(st, "f"), 2);

	/* The opponent's orders were stored with the window, as a file with
	 * its header. */
	rows = fx_db_rows(path, "SELECT o.side_idx, o.source, o.current, "
	    "o.player_id FROM orders o JOIN windows w ON w.id = o.window_id "
	    "WHERE w.turn = 1 AND w.number = 2");
	assert_string_equal(rows, "1|opponent|1|NULL\n");
	free(rows);
	rows = fx_db_rows(path, "SELECT o.raw FROM orders o JOIN windows w ON "
	    "w.id = o.window_id WHERE w.turn = 1 AND w.number = 2");
	assert_true(strncmp(rows, "campaign: f\nturn: 1\nwindow: red\n"
	    "side: red\ntarget ", 49) == 0);
	free(rows);
	/* Blue's, from a person. */
	rows = fx_db_rows(path, "SELECT o.side_idx, o.source FROM orders o "
	    "JOIN windows w ON w.id = o.window_id WHERE w.turn = 1 AND "
	    "w.number = 1");
	assert_string_equal(rows, "0|cli\n");
	free(rows);

	dice1 = count(path, "SELECT count(*) FROM dice WHERE window_id = 1");
	before = fx_db_dump(path);
	/* Orders for the resolved window are refused... */
	refused(st, path, "f", t, -1, "the open window is turn 2 window "
	    "'blue'");
	free(t);
	t = file("f", 1, "red", "red", "target A1\n");
	refused(st, path, "f", t, -1, "the open window is turn 2 window "
	    "'blue'");
	free(t);
	/* ... and resolving does not touch it again: it waits for turn 2. */
	assert_int_equal(turn_resolve(st, "f", &n, &err), HP_ESTATE);
	assert_non_null(strstr(err.msg, "turn 2 window 'blue'"));
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	assert_int_equal(count(path, "SELECT count(*) FROM dice WHERE "
	    "window_id = 1"), dice1);
	free(before);
	free(after);
	store_close(st);
	fx_tmp_clean();
}

/* Blue's orders for the open window as the built-in opponent writes them,
 * with extra text after the header; NULL when the game has ended. */
static char *
suggested(struct store *st, const char *name, const char *extra)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	struct game g;
	struct sbuf b;
	int64_t cid;

	game_init(&g);
	assert_int_equal(store_game_load(st, name, &g, &cid, &err), HP_OK);
	if (g.status == GAME_FINISHED) {
		game_free(&g);
		return NULL;
	}
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	assert_string_equal(w.spec.name, "blue");
	sbuf_init(&b);
	sbuf_printf(&b, "campaign: %s\nturn: %d\nwindow: %s\nside: blue\n%s",
	    name, w.spec.turn, w.spec.name, extra);
	g.rules->opponent(&g, &w.spec, 0, &b);
	game_free(&g);
	return sbuf_steal(&b);
}

#define Q_REPORTS "SELECT w.turn, w.number, r.side_idx, r.body FROM " \
	"reports r JOIN windows w ON w.id = r.window_id ORDER BY w.turn, " \
	"w.number, r.side_idx"
#define Q_WINDOWS "SELECT turn, number, name, state, seed, commitment, " \
	"dice_key FROM windows ORDER BY turn, number"
#define Q_ORDERS "SELECT w.turn, w.number, o.side_idx, o.source, o.raw, " \
	"o.hash, o.current FROM orders o JOIN windows w ON w.id = " \
	"o.window_id ORDER BY w.turn, w.number, o.id"
#define Q_STATE "SELECT status, result, turn, window FROM campaigns"

static void
assert_same(const char *p1, const char *p2, const char *sql, bool nonempty)
{
	char *a = fx_db_rows(p1, sql), *b = fx_db_rows(p2, sql);

	if (nonempty)
		assert_true(strlen(a) > 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* The reports, each named by its window id and side (read through
 * store_report_get: they are stored compressed, against earlier ones). */
#define Q_REPORT_IDS "SELECT group_concat(id, ' ') FROM (SELECT " \
	"r.window_id || ' ' || r.side_idx AS id FROM reports r JOIN windows " \
	"w ON w.id = r.window_id ORDER BY w.turn, w.number, r.side_idx)"

/* Every report of the database at path (open as st), in window order, as
 * one text; caller frees. */
static char *
reports_all(struct store *st, const char *path)
{
	struct hp_error err = { 0, "" };
	char *ids = fx_db_text(path, Q_REPORT_IDS), *p, *end, *rep;
	struct sbuf b;

	sbuf_init(&b);
	sbuf_add(&b, "", 0);
	for (p = ids; p != NULL && *p != '\0'; p = end) {
		long long wid = strtoll(p, &end, 10);
		long side = strtol(end, &end, 10);

		rep = store_report_get(st, (int64_t)wid, (int)side, &err);
		assert_non_null(rep);
		assert_null(strstr(rep, "damaged"));
		sbuf_printf(&b, "== %lld %ld\n%s", wid, side, rep);
		free(rep);
		while (*end == ' ')
			end++;
	}
	free(ids);
	return sbuf_steal(&b);
}

static void
rm_db(const char *p)
{
	char q[600];

	unlink(p);
	snprintf(q, sizeof q, "%s-wal", p);
	unlink(q);
	snprintf(q, sizeof q, "%s-shm", p);
	unlink(q);
}

/* Every window of campaign name as the store's readers give it (events
 * with their cited rolls, public and sealed rolls, the dice log): the
 * same whether its windows are packed (store_compact, issue 17) or not.
 * Malloc'ed. */
static char *
rolls_view(struct store *st, const char *name)
{
	struct hp_error err = { 0, "" };
	struct store_window *v;
	struct game g;
	struct sbuf b;
	int64_t cid;
	int n, k;
	size_t i;

	game_init(&g);
	assert_int_equal(store_game_load(st, name, &g, &cid, &err), HP_OK);
	game_free(&g);
	assert_int_equal(store_windows_all(st, cid, &v, &n, &err), HP_OK);
	sbuf_init(&b);
	sbuf_add(&b, "", 0);
	for (k = 0; k < n; k++) {
		struct events ev;
		struct dice d;
		char *text = NULL, *sig = NULL, *pub = NULL;

		events_init(&ev);
		dice_init_scripted(&d, NULL, 0);
		assert_int_equal(store_events_load(st, v[k].id, &ev, &err),
		    HP_OK);
		assert_int_equal(store_events_load_rolls(st, v[k].id, &ev,
		    &err), HP_OK);
		assert_int_equal(store_dice_load(st, v[k].id, &d, &err), HP_OK);
		assert_int_equal(store_sealed_dice_load(st, v[k].id, &d, &err),
		    HP_OK);
		sbuf_printf(&b, "window %d %d\n", v[k].spec.turn,
		    v[k].spec.number);
		for (i = 0; i < ev.n; i++)
			sbuf_printf(&b, "E %d %d [%s] [%s] %u %d %d %u\n",
			    ev.v[i].seq, ev.v[i].step, ev.v[i].phase,
			    ev.v[i].text, ev.v[i].visible, ev.v[i].roll,
			    ev.v[i].nroll, ev.v[i].roll_set);
		for (i = 0; i < d.nlog; i++)
			sbuf_printf(&b, "D %d [%s] %d %d %d\n", d.log[i].seq,
			    d.log[i].purpose, d.log[i].sides, d.log[i].target,
			    d.log[i].result);
		for (i = 0; i < d.nslog; i++)
			sbuf_printf(&b, "S %u %d [%s] %d %d %d\n",
			    d.slog[i].visible, d.slog[i].seq, d.slog[i].purpose,
			    d.slog[i].sides, d.slog[i].target, d.slog[i].result);
		if (store_dicelog_get(st, v[k].id, &text, &sig, &pub, &err) ==
		    HP_OK)
			sbuf_printf(&b, "L [%s] [%s] [%s]\n", text, sig ? sig :
			    "-", pub ? pub : "-");
		free(text);
		free(sig);
		free(pub);
		dice_free(&d);
		events_free(&ev);
	}
	free(v);
	return sbuf_steal(&b);
}

static void
test_dice_determinism(void **state)
{
	struct hp_error err = { 0, "" };
	const char *pa = fx_tmp_db();
	char pb[512], pc[512], *t, *wa, *wc, *va, *vb;
	struct store_compact_stats cs;
	struct store *a, *b, *c;
	int i, n, na = 0, turns = 0;

	(void)state;
	snprintf(pb, sizeof pb, "%s.b", pa);
	snprintf(pc, sizeof pc, "%s.c", pa);
	rm_db(pb);
	rm_db(pc);
	a = fx_store_new(pa);
	b = fx_store_new(pb);
	c = fx_store_new(pc);
	new_campaign(a, "det", NULL, true, false);
	new_campaign(b, "det", NULL, true, false);
	new_campaign(c, "det", NULL, true, false);

	/* The same game twice: every order the same. */
	for (i = 0; i < 40 && (t = suggested(a, "det", "")) != NULL; i++) {
		submit_ok(a, "det", t, 0, false);
		submit_ok(b, "det", t, 0, false);
		free(t);
		assert_int_equal(turn_resolve(a, "det", &n, &err), HP_OK);
		na += n;
		assert_int_equal(turn_resolve(b, "det", &n, &err), HP_OK);
		turns++;
	}
	assert_true(turns < 40);
	assert_true(turns >= 2);
	assert_same(pa, pb, Q_STATE, true);
	assert_same(pa, pb, Q_WINDOWS, true);
	assert_same(pa, pb, Q_ORDERS, true);
	assert_same(pa, pb, Q_REPORTS, true);
	/* The same events and rolls, read through the store; again once
	 * b's windows are packed (issue 17: store_compact a day later). */
	va = rolls_view(a, "det");
	vb = rolls_view(b, "det");
	assert_non_null(strstr(va, "\nE 1 "));
	assert_non_null(strstr(va, "\nD 1 "));
	assert_string_equal(va, vb);
	free(vb);
	assert_int_equal(store_compact(b, (long)time(NULL) + 2 * 86400, 0, &cs,
	    &err), HP_OK);
	assert_true(cs.windows_packed >= 2);
	assert_int_equal(count(pb, "SELECT count(*) FROM window_packs"),
	    cs.windows_packed);
	assert_int_equal(count(pb, "SELECT count(*) FROM events"), 0);
	vb = rolls_view(b, "det");
	assert_string_equal(va, vb);
	free(va);
	free(vb);
	assert_int_equal(count(pa, "SELECT count(*) FROM campaigns WHERE "
	    "status = 'finished'"), 1);
	assert_int_equal(check_keys(a, "det"), na);
	assert_int_equal(check_keys(b, "det"), na);
	/* The same bytes stored (above), and the same texts read back. */
	wa = reports_all(a, pa);
	wc = reports_all(b, pb);
	assert_true(strlen(wa) > 0);
	assert_string_equal(wa, wc);
	free(wa);
	free(wc);

	/* The same orders but for a comment: the seed and its commitment
	 * stay, the dice key changes. */
	t = suggested(c, "det", "# the same orders, and a comment\n");
	submit_ok(c, "det", t, 0, false);
	free(t);
	assert_int_equal(turn_resolve(c, "det", &n, &err), HP_OK);
	assert_int_equal(check_keys(c, "det"), n);
	wa = fx_db_rows(pa, "SELECT seed, commitment FROM windows WHERE turn = "
	    "1 AND number = 1");
	wc = fx_db_rows(pc, "SELECT seed, commitment FROM windows WHERE turn = "
	    "1 AND number = 1");
	assert_true(strlen(wa) > 64);
	assert_string_equal(wa, wc);
	free(wa);
	free(wc);
	wa = fx_db_rows(pa, "SELECT dice_key FROM windows WHERE turn = 1 AND "
	    "number = 1");
	wc = fx_db_rows(pc, "SELECT dice_key FROM windows WHERE turn = 1 AND "
	    "number = 1");
	assert_true(strlen(wa) > 64);
	assert_true(strlen(wc) > 64);
	assert_string_not_equal(wa, wc);
	free(wa);
	free(wc);
	/* The parsed orders are the same, the hashes not. */
	wa = fx_db_rows(pa, "SELECT parsed FROM orders WHERE window_id = 1");
	wc = fx_db_rows(pc, "SELECT parsed FROM orders WHERE window_id = 1");
	assert_string_equal(wa, wc);
	free(wa);
	free(wc);

	store_close(a);
	store_close(b);
	store_close(c);
	rm_db(pb);
	rm_db(pc);
	fx_tmp_clean();
}

/* Migration 29 (issue 17): every player's order file keeps its nonce in
 * its row ('' when it has none), whether from the command line or a
 * standing file copied into a window, so intake's replay check compares
 * it in SQL; the opponent's keep none (never compared). */
static void
test_nonce_kept(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	char *t, *rows;
	int n;

	(void)state;
	new_campaign(st, "k", "red-standing", true, true);
	t = file("k", 1, "standing", "red", "nonce: st-1\npolicy nearest\n");
	assert_int_equal(submit(st, "k", t, 1, &res), HP_OK);
	turn_submit_free(&res);
	free(t);
	t = file("k", 1, "blue", "blue", "nonce: cli-1\n" DEPLOY);
	submit_ok(st, "k", t, 0, false);
	free(t);
	assert_int_equal(turn_resolve(st, "k", &n, &err), HP_OK);
	t = file("k", 2, "blue", "blue", "");
	submit_ok(st, "k", t, 0, false);
	free(t);
	assert_int_equal(turn_resolve(st, "k", &n, &err), HP_OK);
	rows = fx_db_rows(path, "SELECT window_id, side_idx, source, "
	    "coalesce(nonce, 'NULL') FROM orders ORDER BY id");
	assert_string_equal(rows, "1|0|cli|cli-1\n2|0|cli|\n2|1|standing|st-1\n");
	free(rows);
	store_close(st);
}

static void
test_standing(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	struct store_window w;
	unsigned missing;
	struct game g;
	char *s1, *s2, *t, *rows;
	int n;

	(void)state;
	new_campaign(st, "s", "red-standing", true, true);
	s1 = file("s", 1, "standing", "red", "policy nearest\ncommander no\n");
	s2 = file("s", 1, "standing", "red", "policy best\n");
	assert_int_equal(submit(st, "s", s1, 1, &res), HP_OK);
	assert_true(res.standing);
	assert_false(res.replaced);
	assert_int_equal(res.side, 1);
	assert_string_equal(res.window, "standing");
	assert_string_equal(res.canon, "policy nearest\ncommander no\n");
	turn_submit_free(&res);
	t = file("s", 1, "standing", "blue", "policy best\n");
	refused(st, path, "s", t, -1, "only Red gives standing orders");
	free(t);
	t = file("s", 1, "standing", "red", "target A0\n");
	refused(st, path, "s", t, -1, "line 5: unknown order 'target'");
	free(t);
	assert_int_equal(submit(st, "s", s2, -1, &res), HP_OK);
	assert_true(res.standing);
	assert_true(res.replaced);
	turn_submit_free(&res);
	game_init(&g);
	assert_int_equal(store_game_load(st, "s", &g, NULL, &err), HP_OK);
	assert_string_equal(g.sides[1].standing, s2);
	assert_null(g.sides[0].standing);
	game_free(&g);
	/* Standing orders go into no window's orders until one resolves. */
	assert_int_equal(count(path, "SELECT count(*) FROM orders"), 0);

	/* Red's standing orders cover Red: only Blue is awaited. */
	assert_int_equal(turn_pending(st, "s", &w, &missing, &err), HP_OK);
	assert_int_equal(missing, 1u);
	t = file("s", 1, "blue", "blue", DEPLOY);
	submit_ok(st, "s", t, 0, false);
	free(t);
	assert_int_equal(turn_resolve(st, "s", &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_window(st, "s", 1, 1, WSTATE_RESOLVED);
	assert_window(st, "s", 2, 1, WSTATE_OPEN);
	assert_int_equal(count(path, "SELECT count(*) FROM windows"), 2);
	/* Standing orders are fixed when a window opens (G3): Red's came
	 * after window 1 opened, so they count from window 2 on. */
	rows = fx_db_rows(path, "SELECT side_idx, source, current FROM orders "
	    "WHERE window_id = 1 ORDER BY side_idx");
	assert_string_equal(rows, "0|cli|1\n");
	free(rows);
	assert_int_equal(count(path, "SELECT count(*) FROM window_standing "
	    "WHERE window_id = 1"), 0);
	rows = fx_db_rows(path, "SELECT side_idx, raw FROM window_standing "
	    "WHERE window_id = 2");
	assert_true(strncmp(rows, "1|", 2) == 0 && strncmp(rows + 2, s2,
	    strlen(s2)) == 0);
	free(rows);
	t = file("s", 2, "blue", "blue", "");
	submit_ok(st, "s", t, 0, false);
	free(t);
	assert_int_equal(turn_resolve(st, "s", &n, &err), HP_OK);
	rows = fx_db_rows(path, "SELECT side_idx, source, current FROM orders "
	    "WHERE window_id = 2 ORDER BY side_idx");
	assert_string_equal(rows, "0|cli|1\n1|standing|1\n");
	free(rows);
	rows = fx_db_rows(path, "SELECT raw FROM orders WHERE window_id = 2 "
	    "AND side_idx = 1");
	assert_true(strncmp(rows, s2, strlen(s2)) == 0);
	free(rows);
	assert_int_equal(count(path, "SELECT count(*) FROM events WHERE "
	    "window_id = 2 AND text = 'Red fires by its standing ''best'' "
	    "policy.'"), 1);
	/* Both files are in the dice key. */
	assert_int_equal(check_keys(st, "s"), 2);
	free(s1);
	free(s2);
	store_close(st);
	fx_tmp_clean();
}

/* Standing orders' sequence (docs/AUDIT.md, "Standing orders' sequence"):
 * a new standing file needs a greater sequence than the one in force, so an
 * older signed file cannot be put back; files without one are taken only
 * while no file with one is in force (campaigns from before the rule). */
static void
test_standing_sequence(void **state)
{
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct hp_error err = { 0, "" };
	struct game g;
	char *t;

	(void)state;
	new_campaign(st, "q", "red-standing", true, true);
	t = file("q", 1, "standing", "red", "policy hold\n");
	submit_ok(st, "q", t, 1, false);
	free(t);
	t = file("q", 1, "standing", "red", "policy best\n");
	submit_ok(st, "q", t, 1, true);           /* none in force has one */
	free(t);
	t = file("q", 1, "standing", "red", "sequence: 5\npolicy nearest\n");
	submit_ok(st, "q", t, 1, true);
	free(t);
	t = file("q", 1, "standing", "red", "sequence: 4\npolicy best\n");
	refused(st, path, "q", t, 1, "line 5: sequence 4 is not greater than "
	    "5, the sequence of red's standing orders in force");
	free(t);
	t = file("q", 1, "standing", "red", "sequence: 05\npolicy best\n");
	refused(st, path, "q", t, 1, "line 5: sequence 5 is not greater than "
	    "5");
	free(t);
	t = file("q", 1, "standing", "red", "policy best\n");
	refused(st, path, "q", t, 1, "standing orders need a 'sequence:' "
	    "header greater than 5");
	free(t);
	t = file("q", 1, "standing", "red", "sequence: 0\npolicy best\n");
	refused(st, path, "q", t, 1, "line 5: expected a number from 1");
	free(t);
	t = file("q", 1, "standing", "red", "sequence: 1234567890123456789\n"
	    "policy best\n");
	refused(st, path, "q", t, 1, "line 5: expected a number from 1");
	free(t);
	t = file("q", 1, "standing", "red", "sequence: -6\npolicy best\n");
	refused(st, path, "q", t, 1, "line 5: expected a number from 1");
	free(t);
	t = file("q", 1, "blue", "blue", "sequence: 6\n" DEPLOY);
	refused(st, path, "q", t, 0, "line 5: header 'sequence:' belongs "
	    "only in standing orders");
	free(t);
	t = file("q", 1, "standing", "red", "sequence: 6\nsequence: 7\n"
	    "policy best\n");
	refused(st, path, "q", t, 1, "line 6: header 'sequence:' given twice");
	free(t);
	t = file("q", 1, "standing", "red", "sequence: 6\npolicy best\n");
	submit_ok(st, "q", t, 1, true);
	game_init(&g);
	assert_int_equal(store_game_load(st, "q", &g, NULL, &err), HP_OK);
	assert_string_equal(g.sides[1].standing, t);
	game_free(&g);
	free(t);
	store_close(st);
	fx_tmp_clean();
}

/* The hold file's vector (docs/AUDIT.md, "Settled questions"): campaign
 * c1, turn 2, window blue, side blue; fire-and-movement takes the header
 * alone there. */
static void
test_hold_file_vector(void **state)
{
	struct window_spec w;
	struct game g;
	unsigned char h[32];
	char hex[65], *t;
	int i;

	(void)state;
	fx_fam_game(&g, NULL);
	strlcpy_(g.name, "c1", sizeof g.name);
	g.turn = 2;
	for (i = 0; i < g.nunits; i++)
		g.units[i].placed = true;       /* deployed in turn 1 */
	memset(&w, 0, sizeof w);
	w.turn = 2;
	w.number = 1;
	w.kind = WINDOW_ORDERS;
	w.sides = 1;
	strlcpy_(w.name, "blue", sizeof w.name);
	t = window_hold_orders(&g, &w, 0);
	assert_non_null(t);
	assert_string_equal(t, "campaign: c1\nturn: 2\nwindow: blue\n"
	    "side: blue\n");
	window_order_hash(t, h);
	sodium_bin2hex(hex, sizeof hex, h, 32);
	assert_string_equal(hex, "9e5db12c860b19f0e5e396d89d4a8f7fecfee018e0e"
	    "bdf37fbbff092cec1fcb7");
	free(t);
	game_free(&g);
}

/* Remove what a failed test may have left behind. */
static int
cleanup(void **state)
{
	char p[512];
	int i;

	(void)state;
	snprintf(p, sizeof p, "%s.b", fx_tmp_db());
	rm_db(p);
	snprintf(p, sizeof p, "%s.c", fx_tmp_db());
	rm_db(p);
	fx_tmp_clean();
	for (i = 0; i < ntpl_made; i++)
		template_dir_rm(tpl_made[i]);
	return 0;
}

/* turn_submit_cached (issue 17: intake reads each campaign once a run)
 * gives what turn_submit_tx gives, refusals included, and writes the same
 * rows (with the nonce kept when asked); a campaign missing is refused
 * alike; store_data_version moves when another connection commits. */
static void
test_submit_cached(void **state)
{
	const char *pa = fx_tmp_db();
	char pb[512];
	struct store *a, *b;
	struct turn_cache *tc = turn_cache_new();
	struct hp_error err = { 0, "" };
	char *files[8], *da, *db, *ta, *tb;
	const char *camp[8] = { "t", "t", "t", "t", "t", "nosuch", "t", "t" };
	int64_t v1, v2;
	size_t i;

	(void)state;
	snprintf(pb, sizeof pb, "%s.cached", pa);
	rm_db(pb);
	a = fx_store_new(pa);
	b = fx_store_new(pb);
	new_campaign(a, "t", NULL, true, false);
	new_campaign(b, "t", NULL, true, false);
	files[0] = file("t", 1, "red", "blue", DEPLOY);
	files[1] = file("t", 1, "blue", "green", DEPLOY);
	files[2] = file("t", 1, "blue", "blue", DEPLOY "move 9 Z9\n");
	files[3] = file("t", 1, "blue", "blue", DEPLOY);
	files[4] = file("t", 1, "blue", "blue", DEPLOY "fire 1\n");
	files[5] = file("nosuch", 1, "blue", "blue", DEPLOY);
	files[6] = file("t", 1, "blue", "red", "target A0\n");
	files[7] = file("t", 1, "blue", "blue", DEPLOY "fire 2\n");
	assert_int_equal(store_begin(a, &err), HP_OK);
	assert_int_equal(store_begin(b, &err), HP_OK);
	for (i = 0; i < 8; i++) {
		struct turn_submit ra, rb;
		int rca, rcb;

		turn_submit_init(&ra);
		turn_submit_init(&rb);
		rca = turn_submit_tx(a, camp[i], files[i], strlen(files[i]), 0,
		    0, "mail", &ra, &err);
		rcb = turn_submit_cached(b, tc, camp[i], files[i],
		    strlen(files[i]), 0, 0, "mail", NULL, &rb, &err);
		assert_int_equal(rca, rcb);
		ta = orders_errors_text(&ra.errs);
		tb = orders_errors_text(&rb.errs);
		assert_string_equal(ta, tb);
		free(ta);
		free(tb);
		assert_int_equal(ra.replaced, rb.replaced);
		assert_string_equal(ra.waiting, rb.waiting);
		assert_string_equal(ra.side_name, rb.side_name);
		assert_int_equal(ra.canon == NULL, rb.canon == NULL);
		if (ra.canon != NULL)
			assert_string_equal(ra.canon, rb.canon);
		turn_submit_free(&ra);
		turn_submit_free(&rb);
	}
	assert_int_equal(store_commit(a, &err), HP_OK);
	assert_int_equal(store_commit(b, &err), HP_OK);
	da = fx_db_rows(pa, "SELECT window_id, side_idx, source, raw, parsed, "
	    "hash, current, nonce FROM orders ORDER BY id");
	db = fx_db_rows(pb, "SELECT window_id, side_idx, source, raw, parsed, "
	    "hash, current, nonce FROM orders ORDER BY id");
	assert_string_equal(da, db);
	assert_non_null(strstr(da, "fire 2"));
	free(da);
	free(db);

	/* The nonce is kept in the new row when asked. */
	{
		struct turn_submit rb;

		turn_submit_init(&rb);
		assert_int_equal(store_begin(b, &err), HP_OK);
		assert_int_equal(turn_submit_cached(b, tc, "t", files[4],
		    strlen(files[4]), 0, 0, "mail", "n-17", &rb, &err), HP_OK);
		assert_int_equal(store_commit(b, &err), HP_OK);
		assert_true(rb.replaced);
		turn_submit_free(&rb);
		assert_int_equal(fx_db_long(pb, "SELECT count(*) FROM orders "
		    "WHERE nonce = 'n-17' AND current = 1"), 1);
	}

	/* Another connection's commit shows in the data version (intake
	 * then forgets what it read). */
	assert_int_equal(store_data_version(b, &v1, &err), HP_OK);
	assert_int_equal(store_data_version(b, &v2, &err), HP_OK);
	assert_true(v1 == v2);
	fx_db_exec(pb, "UPDATE campaigns SET turn = turn");
	assert_int_equal(store_data_version(b, &v2, &err), HP_OK);
	assert_true(v1 != v2);

	for (i = 0; i < 8; i++)
		free(files[i]);
	turn_cache_free(tc);
	store_close(a);
	store_close(b);
	rm_db(pb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_submit_refused),
		cmocka_unit_test(test_submit_cached),
		cmocka_unit_test(test_finished_refused),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_missing_orders),
		cmocka_unit_test(test_resolve_atomic),
		cmocka_unit_test(test_resolved_window),
		cmocka_unit_test(test_dice_determinism),
		cmocka_unit_test(test_standing),
		cmocka_unit_test(test_nonce_kept),
		cmocka_unit_test(test_standing_sequence),
		cmocka_unit_test(test_hold_file_vector),
	};

	if (sodium_init() < 0)
		return 1;
	unsetenv("HEXPOST_TEMPLATES");
	return cmocka_run_group_tests(tests, NULL, cleanup);
}
