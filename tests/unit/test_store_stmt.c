/* test_store_stmt: the store's statement helper (store_exec, store_query_*)
 * on a real SQLite file: typed arguments round trip, and every error path
 * names the statement: a bad statement, a bind out of range, a failing
 * step, constraint violations, a database held by another connection
 * (HP_EBUSY), rows from store_exec, stepping past the end, a statement
 * used again while it is still being stepped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "store.h"

/* The path of the test's database (fx_tmp_db makes a new one each call). */
static char dbpath[300];

/* A fresh database at dbpath with a table t to play with. */
static struct store *
fresh(void)
{
	struct hp_error err = { 0, "" };
	struct store *st;

	snprintf(dbpath, sizeof dbpath, "%s", fx_tmp_db());
	st = fx_store_new(dbpath);

	assert_int_equal(store_exec(st, "make t", "CREATE TABLE t (k TEXT "
	    "PRIMARY KEY, v INTEGER NOT NULL CHECK (v >= 0), b BLOB)", NULL,
	    NULL, &err), HP_OK);
	return st;
}

static void
test_roundtrip(void **state)
{
	struct hp_error err = { 0, "" };
	const unsigned char blob[3] = { 0, 0xff, 7 };
	struct store_query q;
	struct store *st = fresh();
	int rows = 0;

	(void)state;
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v, b) "
	    "VALUES (?1, ?2, ?3)", STORE_ARGS(STORE_TEXT("a"),
	    STORE_INT(INT64_C(1) << 40), STORE_BLOB(blob, sizeof blob)), NULL,
	    &err), HP_OK);
	assert_int_equal(store_changes(st), 1);
	assert_int_equal(store_last_id(st), 1);
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v, b) "
	    "VALUES (?1, ?2, ?3)", STORE_ARGS(STORE_TEXTN("bcd", 2),
	    STORE_INT(0), store_arg_id(0)), NULL, &err), HP_OK);
	assert_int_equal(store_query_open(&q, st, "list", "SELECT k, v, b, "
	    "b IS NULL FROM t WHERE v >= ?1 ORDER BY k", STORE_ARGS(
	    STORE_INT(0)), &err), HP_OK);
	while (store_query_next(&q, &err)) {
		const char *k = (const char *)sqlite3_column_text(q.s, 0);

		if (rows++ == 0) {
			assert_string_equal(k, "a");
			assert_true(sqlite3_column_int64(q.s, 1) ==
			    INT64_C(1) << 40);
			assert_int_equal(sqlite3_column_bytes(q.s, 2), 3);
			assert_memory_equal(sqlite3_column_blob(q.s, 2), blob,
			    3);
		} else {
			assert_string_equal(k, "bc");
			assert_int_equal(sqlite3_column_int(q.s, 3), 1);
		}
	}
	assert_int_equal(q.rc, HP_OK);
	assert_int_equal(store_query_close(&q, &err), HP_OK);
	assert_int_equal(rows, 2);
	store_close(st);
	fx_tmp_clean();
}

static void
test_bad_statement(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_query q;
	struct store *st = fresh();

	(void)state;
	/* Not SQL: the prepare fails and names the statement. */
	assert_int_equal(store_query_open(&q, st, "bad one", "SELEKT 1",
	    NULL, &err), HP_EDB);
	assert_int_equal(err.code, HP_EDB);
	assert_non_null(strstr(err.msg, "database: bad one: "));
	assert_non_null(strstr(err.msg, "syntax error"));
	assert_null(q.s);
	assert_int_equal(store_query_close(&q, &err), HP_EDB);
	/* More arguments than parameters: the bind fails. */
	memset(&err, 0, sizeof err);
	assert_int_equal(store_exec(st, "too many", "DELETE FROM t WHERE k = "
	    "?1", STORE_ARGS(STORE_TEXT("a"), STORE_INT(2)), NULL, &err),
	    HP_EDB);
	assert_string_equal(err.msg, "database: too many: column index out "
	    "of range");
	/* The statement is released: it runs again with the right list. */
	assert_int_equal(store_exec(st, "too many", "DELETE FROM t WHERE k = "
	    "?1", STORE_ARGS(STORE_TEXT("a")), NULL, &err), HP_OK);
	store_close(st);
	fx_tmp_clean();
}

static void
test_failing_step(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_query q;
	struct store *st = fresh();

	(void)state;
	/* abs() of the smallest integer overflows while stepping. */
	assert_int_equal(store_query_open(&q, st, "overflow", "SELECT abs(?1)",
	    STORE_ARGS(STORE_INT(INT64_MIN)), &err), HP_OK);
	assert_false(store_query_next(&q, &err));
	assert_int_equal(q.rc, HP_EDB);
	assert_int_equal(q.sqlite_rc, SQLITE_ERROR);
	assert_string_equal(err.msg, "database: overflow: integer overflow");
	/* Stepping again does not start the statement over. */
	assert_false(store_query_next(&q, &err));
	assert_int_equal(store_query_close(&q, &err), HP_EDB);
	assert_string_equal(err.msg, "database: overflow: integer overflow");
	/* Past the end: no second run of the rows either. */
	assert_int_equal(store_query_open(&q, st, "one", "SELECT 1", NULL,
	    &err), HP_OK);
	assert_true(store_query_next(&q, &err));
	assert_false(store_query_next(&q, &err));
	assert_false(store_query_next(&q, &err));
	assert_int_equal(store_query_close(&q, &err), HP_OK);
	/* store_exec of a statement that gives rows is an error. */
	memset(&err, 0, sizeof err);
	assert_int_equal(store_exec(st, "rows", "SELECT 1", NULL, NULL, &err),
	    HP_EINTERNAL);
	assert_string_equal(err.msg, "database: rows: returned rows");
	store_close(st);
	fx_tmp_clean();
}

static void
test_constraints(void **state)
{
	struct hp_error err = { 0, "" };
	struct store *st = fresh();
	int src = -1;

	(void)state;
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v) "
	    "VALUES (?1, ?2)", STORE_ARGS(STORE_TEXT("a"), STORE_INT(1)), &src,
	    &err), HP_OK);
	assert_int_equal(src, SQLITE_OK);
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v) "
	    "VALUES (?1, ?2)", STORE_ARGS(STORE_TEXT("a"), STORE_INT(2)), &src,
	    &err), HP_EDB);
	assert_int_equal(src, SQLITE_CONSTRAINT_PRIMARYKEY);
	assert_int_equal(err.code, HP_EDB);
	assert_string_equal(err.msg, "database: add row: UNIQUE constraint "
	    "failed: t.k");
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v) "
	    "VALUES (?1, ?2)", STORE_ARGS(STORE_TEXT("b"), STORE_INT(-1)), &src,
	    &err), HP_EDB);
	assert_int_equal(src, SQLITE_CONSTRAINT_CHECK);
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v) "
	    "VALUES (?1, ?2)", STORE_ARGS(STORE_TEXT("b"), STORE_NULL), &src,
	    &err), HP_EDB);
	assert_int_equal(src, SQLITE_CONSTRAINT_NOTNULL);
	assert_string_equal(err.msg, "database: add row: NOT NULL constraint "
	    "failed: t.v");
	/* Nothing of the failed statements was written. */
	store_close(st);
	assert_int_equal(fx_db_long(dbpath, "SELECT count(*) FROM t"), 1);
	fx_tmp_clean();
}

static void
test_busy(void **state)
{
	struct hp_error err = { 0, "" };
	struct store *st = fresh();
	sqlite3 *other;
	struct store_query q;
	int src = 0;

	(void)state;
	/* Another connection holds the write lock. */
	assert_int_equal(sqlite3_open(dbpath, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO t "
	    "(k, v) VALUES ('x', 1)", NULL, NULL, NULL), SQLITE_OK);
	store_busy_timeout(st, 50);
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v) "
	    "VALUES (?1, ?2)", STORE_ARGS(STORE_TEXT("a"), STORE_INT(1)), &src,
	    &err), HP_EDB);
	assert_int_equal(src & 0xff, SQLITE_BUSY);
	assert_int_equal(err.code, HP_EBUSY);
	assert_non_null(strstr(err.msg, "database: add row: locked by "
	    "another process; try again later"));
	/* Readers are not held up (WAL): the writer's row is not seen. */
	assert_int_equal(store_query_open(&q, st, "count", "SELECT count(*) "
	    "FROM t", NULL, &err), HP_OK);
	assert_true(store_query_next(&q, &err));
	assert_int_equal(sqlite3_column_int(q.s, 0), 0);
	assert_int_equal(store_query_close(&q, &err), HP_OK);
	/* Once the lock is gone the same call goes through. */
	assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_close(other), SQLITE_OK);
	assert_int_equal(store_exec(st, "add row", "INSERT INTO t (k, v) "
	    "VALUES (?1, ?2)", STORE_ARGS(STORE_TEXT("a"), STORE_INT(1)), &src,
	    &err), HP_OK);
	store_close(st);
	assert_int_equal(fx_db_long(dbpath, "SELECT count(*) FROM t"), 2);
	fx_tmp_clean();
}

/* The same statement opened again while it is stepped gets its own copy. */
static void
test_nested(void **state)
{
	static const char *sql = "SELECT k FROM t WHERE v >= ?1 ORDER BY k";
	struct hp_error err = { 0, "" };
	struct store_query outer, inner;
	struct store *st = fresh();
	int n = 0, m;

	(void)state;
	assert_int_equal(store_exec(st, "add", "INSERT INTO t (k, v) VALUES "
	    "('a', 1), ('b', 2)", NULL, NULL, &err), HP_OK);
	assert_int_equal(store_query_open(&outer, st, "outer", sql,
	    STORE_ARGS(STORE_INT(0)), &err), HP_OK);
	while (store_query_next(&outer, &err)) {
		n++;
		assert_int_equal(store_query_open(&inner, st, "inner", sql,
		    STORE_ARGS(STORE_INT(2)), &err), HP_OK);
		assert_ptr_not_equal(inner.s, outer.s);
		for (m = 0; store_query_next(&inner, &err); m++)
			assert_string_equal(sqlite3_column_text(inner.s, 0),
			    "b");
		assert_int_equal(m, 1);
		assert_int_equal(store_query_close(&inner, &err), HP_OK);
	}
	assert_int_equal(store_query_close(&outer, &err), HP_OK);
	assert_int_equal(n, 2);
	store_close(st);
	fx_tmp_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_bad_statement),
		cmocka_unit_test(test_failing_step),
		cmocka_unit_test(test_constraints),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_nested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
