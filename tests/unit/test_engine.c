/* test_engine: the hooks that replace upward calls. Without engine_init the
 * window lifecycle refuses to open a window (nothing would start its clock
 * or render its reports) and a key rotation refuses (nothing would tell the
 * players), both changing nothing; an observer of the lifecycle is called
 * once per window opened and resolved, in the transaction; deadline clocks
 * and reports come only through the hooks engine_init registers. This
 * program never calls the fixtures' fx_store_new, which calls engine_init. */
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

#include "config.h"
#include "engine.h"
#include "fixtures.h"
#include "serverkey.h"
#include "turn.h"

static const unsigned char MASTER[] = "test-engine master seed";
#define MASTERLEN (sizeof MASTER - 1)

static char dbpath[300];

/* A fresh, migrated database at dbpath, without fx_store_new. */
static struct store *
fresh(void)
{
	struct hp_error err = { 0, "" };
	struct store *st = NULL;

	snprintf(dbpath, sizeof dbpath, "%s", fx_tmp_db());
	assert_int_equal(store_open(&st, dbpath, true, &err), HP_OK);
	assert_int_equal(store_migrate(st, &err), HP_OK);
	return st;
}

static int nopened, nresolved;
static int64_t last_wid;

static int
count_opened(struct store *st, int64_t wid, struct hp_error *err)
{
	(void)err;
	/* Called inside the transaction that opens the window. */
	assert_true(store_in_transaction(st));
	nopened++;
	last_wid = wid;
	return HP_OK;
}

static int
count_resolved(struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, const struct events *ev,
    const struct dice *d, struct hp_error *err)
{
	(void)cid;
	(void)g;
	(void)ev;
	(void)d;
	(void)err;
	assert_true(store_in_transaction(st));
	assert_true(w->id > 0);
	nresolved++;
	return HP_OK;
}

static const struct turn_observer counter = { count_opened, count_resolved };

static int nnotify;

static int
count_notify(struct store *st, const struct config *c,
    const struct store_rotation *r, int *count, struct hp_error *err)
{
	(void)st;
	(void)c;
	(void)err;
	assert_int_equal(r->seq, 1);
	nnotify++;
	*count = 7;
	return HP_OK;
}

/* In one test, in this order: the state of the process (hooks registered)
 * only grows. */
static void
test_hooks(void **state)
{
	struct hp_error err = { 0, "" };
	struct store *st = fresh();
	struct game g;
	int n = 0;

	(void)state;
	/* Nothing registered: refused, nothing created. */
	assert_int_equal(turn_campaign_new(st, "bare", "fire-and-movement",
	    NULL, "", MASTER, MASTERLEN, &err), HP_EINTERNAL);
	assert_non_null(strstr(err.msg, "engine_init"));
	game_init(&g);
	assert_int_equal(store_game_load(st, "bare", &g, NULL, &err),
	    HP_ENOENT);
	game_free(&g);

	/* Our observer only: it sees every window, and there are no clocks
	 * and no reports, which only the engine's hooks make. */
	turn_observe(&counter);
	turn_observe(&counter);   /* again: once only */
	assert_int_equal(turn_campaign_new(st, "watched", "fire-and-movement",
	    NULL, "", MASTER, MASTERLEN, &err), HP_OK);
	assert_int_equal(nopened, 1);
	assert_true(last_wid > 0);
	assert_int_equal(turn_resolve(st, "watched", &n, &err), HP_OK);
	assert_true(n > 0);
	assert_int_equal(nresolved, n);
	/* Every window opened (the first and those the resolutions open). */
	assert_int_equal(nopened, fx_db_long(dbpath, "SELECT count(*) FROM "
	    "windows"));
	assert_int_equal(fx_db_long(dbpath, "SELECT count(*) FROM reports"),
	    0);
	assert_int_equal(fx_db_long(dbpath, "SELECT count(*) FROM "
	    "window_clock"), 0);

	/* The engine's hooks: clocks and reports again. */
	engine_init();
	engine_init();
	nopened = nresolved = 0;
	assert_int_equal(turn_campaign_new(st, "engine", "fire-and-movement",
	    NULL, "", MASTER, MASTERLEN, &err), HP_OK);
	assert_int_equal(nopened, 1);
	assert_int_equal(fx_db_long(dbpath, "SELECT count(*) FROM "
	    "window_clock"), 1);
	assert_int_equal(turn_resolve(st, "engine", &n, &err), HP_OK);
	assert_int_equal(nresolved, n);
	assert_true(fx_db_long(dbpath, "SELECT count(*) FROM reports r JOIN "
	    "windows w ON w.id = r.window_id JOIN campaigns c ON c.id = "
	    "w.campaign_id WHERE c.name = 'engine'") >= n);
	store_close(st);
	fx_tmp_clean();
}

/* Runs first (cmocka keeps the order): before engine_init. */
static void
test_rotation_needs_notify(void **state)
{
	struct hp_error err = { 0, "" };
	struct serverkey_rotation r;
	struct config cfg;
	struct store *st = fresh();
	char dir[256], *before, *after;

	(void)state;
	fx_mkdtemp(dir, sizeof dir, "engine");
	config_defaults(&cfg, dir);
	assert_int_equal(serverkey_generate(&cfg, &err), HP_OK);
	before = util_read_file(cfg.server_pub, NULL, &err);
	assert_non_null(before);
	memset(&r, 0, sizeof r);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800000000L, &r, &err),
	    HP_EINTERNAL);
	assert_non_null(strstr(err.msg, "engine_init"));
	/* Nothing changed: the same key, no rotation recorded. */
	after = util_read_file(cfg.server_pub, NULL, &err);
	assert_string_equal(before, after);
	free(after);
	assert_int_equal(fx_db_long(dbpath, "SELECT count(*) FROM "
	    "key_rotations"), 0);
	serverkey_set_notify(count_notify);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800000000L, &r, &err),
	    HP_OK);
	assert_int_equal(nnotify, 1);
	assert_int_equal(r.notices, 7);
	after = util_read_file(cfg.server_pub, NULL, &err);
	assert_string_not_equal(before, after);
	free(after);
	free(before);
	serverkey_set_notify(NULL);
	store_close(st);
	fx_rmtree(dir);
	fx_tmp_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotation_needs_notify),
		cmocka_unit_test(test_hooks),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
