/* store: campaign state in SQLite (see include/store.h). */
#include <errno.h>
#include <limits.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "shmguard.h"
#include "store.h"

/* Prepared statements are kept, keyed by the address of their SQL text
 * (every statement is a string literal), and reset between uses. */
#define STORE_CACHE 128

struct store {
	sqlite3 *db;
	struct {
		const char *sql;
		sqlite3_stmt *s;
	} cache[STORE_CACHE];
	int ncache;
};

static const char *wstate_names[] = { "open", "closed", "resolved" };

const char *
window_strstate(enum window_state s)
{
	if ((unsigned)s >= sizeof wstate_names / sizeof wstate_names[0])
		return "unknown";
	return wstate_names[s];
}

static int
wstate_parse(const char *s)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(s, wstate_names[i]) == 0)
			return i;
	return -1;
}

static int
dberr(struct store *st, struct hp_error *err, const char *what)
{
	int code = sqlite3_extended_errcode(st->db) & 0xff, e = 0;

	/* Another process holding the database past the busy timeout is
	 * no fault of the data: the call fails as any database error
	 * (HP_EDB) but err says try again later (HP_EBUSY, EX_TEMPFAIL). */
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
		hp_seterr(err, HP_EBUSY, "database: %s: locked by another "
		    "process; try again later (%s)", what,
		    sqlite3_errmsg(st->db));
		return HP_EDB;
	}
	/* A full disk (SQLITE_FULL, or the WAL index that shmguard could not
	 * allocate) is the server's fault, not the data's: HP_EIO in err
	 * (EX_IOERR), and the transaction changed nothing. */
	if (shmguard_full(&e) || code == SQLITE_FULL ||
	    (code == SQLITE_IOERR && ((e = sqlite3_system_errno(st->db)) ==
	    ENOSPC || e == EDQUOT))) {
		hp_seterr(err, HP_EIO, "database: %s: the disk holding the "
		    "database is full (%s); nothing was changed, try again once "
		    "there is room", what, e ? strerror(e) :
		    sqlite3_errmsg(st->db));
		return HP_EDB;
	}
	hp_seterr(err, HP_EDB, "database: %s: %s", what, sqlite3_errmsg(st->db));
	return HP_EDB;
}

/* The statement for sql, ready to bind: from the cache, or prepared (and
 * cached) now. On failure set err and return NULL. Release it with
 * stmt_done. */
static sqlite3_stmt *
prep(struct store *st, const char *sql, struct hp_error *err)
{
	sqlite3_stmt *s = NULL;
	bool cache = st->ncache < STORE_CACHE;
	int i;

	for (i = 0; i < st->ncache; i++)
		if (st->cache[i].sql == sql) {
			s = st->cache[i].s;
			if (!sqlite3_stmt_busy(s)) {
				sqlite3_reset(s);
				sqlite3_clear_bindings(s);
				return s;
			}
			cache = false;  /* in use higher up: a private copy */
			break;
		}
	if (sqlite3_prepare_v3(st->db, sql, -1, cache ?
	    SQLITE_PREPARE_PERSISTENT : 0, &s, NULL) != SQLITE_OK) {
		dberr(st, err, "prepare");
		return NULL;
	}
	if (cache) {
		st->cache[st->ncache].sql = sql;
		st->cache[st->ncache++].s = s;
	}
	return s;
}

/* Release a statement from prep: reset a cached one, finalize another.
 * Returns what sqlite3_finalize would: the error of the last step. */
static int
stmt_done(struct store *st, sqlite3_stmt *s)
{
	int i, rc;

	for (i = 0; i < st->ncache; i++)
		if (st->cache[i].s == s) {
			rc = sqlite3_reset(s);
			sqlite3_clear_bindings(s);
			return rc;
		}
	return sqlite3_finalize(s);
}

/* Step a statement that returns no rows, then release it. */
static int
exec_done(struct store *st, sqlite3_stmt *s, struct hp_error *err,
    const char *what)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE) {
		dberr(st, err, what);
		stmt_done(st, s);
		return HP_EDB;
	}
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, what);
	return HP_OK;
}

static int
bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v == NULL)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
}

static const char *
col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (const char *)t : "";
}

static void
col_blob(sqlite3_stmt *s, int i, unsigned char *dst, size_t len)
{
	const void *b = sqlite3_column_blob(s, i);

	memset(dst, 0, len);
	if (b != NULL && (size_t)sqlite3_column_bytes(s, i) == len)
		memcpy(dst, b, len);
}

/* Bind args to s; SQLITE_OK or the first bind's error. */
static int
bind_args(sqlite3_stmt *s, const struct store_arg *args)
{
	int i, rc = SQLITE_OK;

	for (i = 0; args != NULL && args[i].type != STORE_ARG_END &&
	    rc == SQLITE_OK; i++) {
		const struct store_arg *a = &args[i];

		switch (a->type) {
		case STORE_ARG_INT:
			rc = sqlite3_bind_int64(s, i + 1, a->i);
			break;
		case STORE_ARG_TEXT:
			rc = a->p == NULL ? sqlite3_bind_null(s, i + 1) :
			    sqlite3_bind_text(s, i + 1, a->p, a->len,
			    SQLITE_TRANSIENT);
			break;
		case STORE_ARG_BLOB:
			rc = a->p == NULL ? sqlite3_bind_null(s, i + 1) :
			    sqlite3_bind_blob(s, i + 1, a->p, a->len,
			    SQLITE_TRANSIENT);
			break;
		default:
			rc = sqlite3_bind_null(s, i + 1);
			break;
		}
	}
	return rc;
}

int
store_query_open(struct store_query *q, struct store *st, const char *what,
    const char *sql, const struct store_arg *args, struct hp_error *err)
{
	memset(q, 0, sizeof *q);
	q->st = st;
	q->what = what;
	if ((q->s = prep(st, sql, err)) == NULL) {
		q->sqlite_rc = sqlite3_extended_errcode(st->db);
		q->rc = dberr(st, err, what);
		return q->rc;
	}
	if ((q->sqlite_rc = bind_args(q->s, args)) != SQLITE_OK) {
		q->rc = dberr(st, err, what);
		stmt_done(st, q->s);
		q->s = NULL;
		return q->rc;
	}
	return HP_OK;
}

bool
store_query_next(struct store_query *q, struct hp_error *err)
{
	int rc;

	if (q->s == NULL || q->done)
		return false;
	rc = sqlite3_step(q->s);
	if (rc == SQLITE_ROW)
		return true;
	q->done = true;
	if (rc == SQLITE_DONE)
		return false;
	q->sqlite_rc = sqlite3_extended_errcode(q->st->db);
	q->rc = dberr(q->st, err, q->what);
	return false;
}

int
store_query_close(struct store_query *q, struct hp_error *err)
{
	int rc;

	if (q->s == NULL)
		return q->rc;
	rc = stmt_done(q->st, q->s);
	q->s = NULL;
	if (rc != SQLITE_OK && q->rc == HP_OK) {
		q->sqlite_rc = sqlite3_extended_errcode(q->st->db);
		q->rc = dberr(q->st, err, q->what);
	}
	return q->rc;
}

int
store_exec(struct store *st, const char *what, const char *sql,
    const struct store_arg *args, int *sqlite_rc, struct hp_error *err)
{
	struct store_query q;

	if (sqlite_rc != NULL)
		*sqlite_rc = SQLITE_OK;
	if (store_query_open(&q, st, what, sql, args, err) != HP_OK) {
		if (sqlite_rc != NULL)
			*sqlite_rc = q.sqlite_rc;
		return HP_EDB;
	}
	/* A statement that returns rows here is the caller's mistake: the
	 * rows are not read, and that is an error, not a silent success. */
	if (store_query_next(&q, err)) {
		hp_seterr(err, HP_EINTERNAL, "database: %s: returned rows",
		    what);
		q.rc = HP_EINTERNAL;
	}
	if (store_query_close(&q, err) != HP_OK && sqlite_rc != NULL)
		*sqlite_rc = q.sqlite_rc;
	return q.rc;
}

int
store_changes(struct store *st)
{
	return sqlite3_changes(st->db);
}

int64_t
store_last_id(struct store *st)
{
	return sqlite3_last_insert_rowid(st->db);
}

void
store_busy_timeout(struct store *st, int ms)
{
	sqlite3_busy_timeout(st->db, ms);
}

int
store_open(struct store **stp, const char *path, bool create,
    struct hp_error *err)
{
	struct store *st;
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	char *emsg = NULL;

	st = xcalloc(1, sizeof *st);
	/* A full disk is an error, not a bus error (include/shmguard.h). */
	if (shmguard_register() != SQLITE_OK)
		log_warn("the SQLite full-disk guard could not be registered");
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		hp_seterr(err, HP_EDB, "%s: %s", path,
		    st->db ? sqlite3_errmsg(st->db) : "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 10000);
	sqlite3_extended_result_codes(st->db, 1);
	if (sqlite3_exec(st->db, "PRAGMA journal_mode=WAL; "
	    "PRAGMA foreign_keys=ON; PRAGMA synchronous=FULL; "
	    "PRAGMA mmap_size=0;", NULL, NULL,
	    &emsg) != SQLITE_OK) {
		int e = 0;

		if (shmguard_full(&e) || (sqlite3_extended_errcode(st->db) &
		    0xff) == SQLITE_FULL || (e = sqlite3_system_errno(st->db)) ==
		    ENOSPC || e == EDQUOT) {
			hp_seterr(err, HP_EIO, "%s: the disk holding the "
			    "database is full (%s); nothing was changed, try "
			    "again once there is room", path, e ? strerror(e) :
			    emsg ? emsg : "full");
			sqlite3_free(emsg);
			goto fail;
		}
		hp_seterr(err, HP_EDB, "%s: %s", path, emsg ? emsg : "pragma");
		sqlite3_free(emsg);
		goto fail;
	}
	*stp = st;
	return HP_OK;
fail:
	sqlite3_close(st->db);
	free(st);
	return HP_EDB;
}

void
store_close(struct store *st)
{
	int i;

	if (st == NULL)
		return;
	for (i = 0; i < st->ncache; i++)
		sqlite3_finalize(st->cache[i].s);
	if (sqlite3_close(st->db) != SQLITE_OK)
		log_warn("database close: %s", sqlite3_errmsg(st->db));
	free(st);
}

int
store_schema_version(struct store *st)
{
	sqlite3_stmt *s;
	int v = -1;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s,
	    NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The highest migration number looked for. */
#define STORE_MIGRATION_MAX 99

int
store_migrate(struct store *st, struct hp_error *err)
{
	int have = store_schema_version(st), n;
	size_t i;
	char *emsg = NULL, pragma[64];

	if (have < 0)
		return dberr(st, err, "user_version");
	for (n = have + 1; n <= STORE_MIGRATION_MAX; n++) {
		const struct embedded_file *f = NULL;
		char prefix[32];

		snprintf(prefix, sizeof prefix, "schema/%03d_", n);
		for (i = 0; i < embedded_nfiles; i++)
			if (strncmp(embedded_files[i].name, prefix,
			    strlen(prefix)) == 0)
				f = &embedded_files[i];
		/* A number with no file: skipped (a branch's migration may
		 * be numbered after ones merged from other branches). */
		if (f == NULL)
			continue;
		if (store_begin(st, err) != HP_OK)
			return HP_EDB;
		snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", n);
		if (sqlite3_exec(st->db, f->data, NULL, NULL, &emsg) !=
		    SQLITE_OK ||
		    sqlite3_exec(st->db, pragma, NULL, NULL, &emsg) !=
		    SQLITE_OK) {
			hp_seterr(err, HP_EDB, "migration %s: %s", f->name,
			    emsg ? emsg : "failed");
			sqlite3_free(emsg);
			store_rollback(st);
			return HP_EDB;
		}
		if (store_commit(st, err) != HP_OK)
			return HP_EDB;
		log_info("applied migration %s", f->name);
	}
	return HP_OK;
}

int
store_begin(struct store *st, struct hp_error *err)
{
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return dberr(st, err, "begin");
	return HP_OK;
}

int
store_commit(struct store *st, struct hp_error *err)
{
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		dberr(st, err, "commit");
		store_rollback(st);
		return HP_EDB;
	}
	return HP_OK;
}

int
store_savepoint(struct store *st, struct hp_error *err)
{
	if (sqlite3_exec(st->db, "SAVEPOINT hp_step", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return dberr(st, err, "savepoint");
	return HP_OK;
}

int
store_release(struct store *st, struct hp_error *err)
{
	if (sqlite3_exec(st->db, "RELEASE hp_step", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return dberr(st, err, "release");
	return HP_OK;
}

void
store_rollback_savepoint(struct store *st)
{
	if (sqlite3_exec(st->db, "ROLLBACK TO hp_step; RELEASE hp_step", NULL,
	    NULL, NULL) != SQLITE_OK)
		log_warn("rollback to savepoint: %s", sqlite3_errmsg(st->db));
}

bool
store_in_transaction(struct store *st)
{
	return !sqlite3_get_autocommit(st->db);
}

void
store_rollback(struct store *st)
{
	if (sqlite3_get_autocommit(st->db))
		return;
	if (sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
		log_warn("rollback: %s", sqlite3_errmsg(st->db));
}

static int
save_sides(struct store *st, int64_t cid, const struct game *g, bool insert,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int i, rc;

	for (i = 0; i < g->nsides; i++) {
		const struct game_side *sd = &g->sides[i];

		s = prep(st, insert ?
		    "INSERT INTO sides (campaign_id, idx, name, label, ai, "
		    "standing) VALUES (?1, ?2, ?3, ?4, ?5, ?6)" :
		    "UPDATE sides SET name = ?3, label = ?4, ai = ?5, "
		    "standing = ?6 WHERE campaign_id = ?1 AND idx = ?2", err);
		if (s == NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, cid);
		sqlite3_bind_int(s, 2, i);
		bind_text(s, 3, sd->name);
		bind_text(s, 4, sd->label);
		sqlite3_bind_int(s, 5, sd->ai);
		bind_text(s, 6, sd->standing);
		if ((rc = exec_done(st, s, err, "save side")) != HP_OK)
			return rc;
	}
	return HP_OK;
}

static int
save_units_vars(struct store *st, int64_t cid, const struct game *g,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int i, j, rc;

	if (game_error(g) != NULL) {
		hp_seterr(err, HP_ESTATE, "%s", game_error(g));
		return HP_ESTATE;
	}
	if ((s = prep(st, "UPDATE campaigns SET rstate = ?2 WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if (g->rstate != NULL)
		bind_text(s, 2, g->rstate);
	else
		sqlite3_bind_null(s, 2);
	if ((rc = exec_done(st, s, err, "save ruleset state")) != HP_OK)
		return rc;
	if ((s = prep(st, "DELETE FROM units WHERE campaign_id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if ((rc = exec_done(st, s, err, "clear units")) != HP_OK)
		return rc;
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		struct sbuf x;

		sbuf_init(&x);
		for (j = 0; j < GAME_UNIT_X; j++)
			sbuf_printf(&x, "%s%d", j ? " " : "", u->x[j]);
		s = prep(st, "INSERT INTO units (campaign_id, idx, uid, kind, "
		    "name, side_idx, placed, q, r, status, strength, facing, "
		    "attached, flags, x) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
		    "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)", err);
		if (s == NULL) {
			sbuf_free(&x);
			return HP_EDB;
		}
		sqlite3_bind_int64(s, 1, cid);
		sqlite3_bind_int(s, 2, i);
		bind_text(s, 3, u->id);
		bind_text(s, 4, u->kind);
		bind_text(s, 5, u->name);
		sqlite3_bind_int(s, 6, u->side);
		sqlite3_bind_int(s, 7, u->placed);
		sqlite3_bind_int(s, 8, u->pos.q);
		sqlite3_bind_int(s, 9, u->pos.r);
		sqlite3_bind_int(s, 10, u->status);
		sqlite3_bind_int(s, 11, u->strength);
		sqlite3_bind_int(s, 12, u->facing);
		sqlite3_bind_int(s, 13, u->attached);
		sqlite3_bind_int(s, 14, u->flags);
		bind_text(s, 15, x.buf);
		rc = exec_done(st, s, err, "save unit");
		sbuf_free(&x);
		if (rc != HP_OK)
			return rc;
	}
	if ((s = prep(st, "DELETE FROM vars WHERE campaign_id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if ((rc = exec_done(st, s, err, "clear vars")) != HP_OK)
		return rc;
	for (i = 0; i < g->nvars; i++) {
		if ((s = prep(st, "INSERT INTO vars (campaign_id, key, val) "
		    "VALUES (?1, ?2, ?3)", err)) == NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, cid);
		bind_text(s, 2, g->vars[i].key);
		sqlite3_bind_int(s, 3, g->vars[i].val);
		if ((rc = exec_done(st, s, err, "save var")) != HP_OK)
			return rc;
	}
	return HP_OK;
}

int
store_campaign_create(struct store *st, const struct game *g,
    const unsigned char *master, size_t masterlen, int64_t *cid,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int i, rc;

	s = prep(st, "INSERT INTO campaigns (name, ruleset, scenario, options, "
	    "status, turn, window, layout_orient, layout_parity, layout_cols, "
	    "layout_rows, layout_row_base, master_seed, result) VALUES (?1, "
	    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)", err);
	if (s == NULL)
		return HP_EDB;
	bind_text(s, 1, g->name);
	bind_text(s, 2, g->rules->name);
	bind_text(s, 3, g->scenario);
	bind_text(s, 4, g->options);
	bind_text(s, 5, game_strstatus(g->status));
	sqlite3_bind_int(s, 6, g->turn);
	sqlite3_bind_int(s, 7, g->window);
	sqlite3_bind_int(s, 8, g->layout.orient);
	sqlite3_bind_int(s, 9, g->layout.parity);
	sqlite3_bind_int(s, 10, g->layout.cols);
	sqlite3_bind_int(s, 11, g->layout.rows);
	sqlite3_bind_int(s, 12, g->layout.row_base);
	if (master != NULL && masterlen > 0)
		sqlite3_bind_blob(s, 13, master, (int)masterlen,
		    SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 13);
	bind_text(s, 14, g->result);
	if (sqlite3_step(s) != SQLITE_DONE) {
		if (sqlite3_extended_errcode(st->db) ==
		    SQLITE_CONSTRAINT_UNIQUE) {
			hp_seterr(err, HP_ESTATE, "campaign %s already exists",
			    g->name);
			stmt_done(st, s);
			return HP_ESTATE;
		}
		dberr(st, err, "create campaign");
		stmt_done(st, s);
		return HP_EDB;
	}
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, "create campaign");
	*cid = sqlite3_last_insert_rowid(st->db);
	if ((rc = save_sides(st, *cid, g, true, err)) != HP_OK)
		return rc;
	for (i = 0; i < g->nhex; i++) {
		const struct game_hex *h = &g->hexes[i];
		char edges[64];

		snprintf(edges, sizeof edges, "%d %d %d %d %d %d", h->edge[0],
		    h->edge[1], h->edge[2], h->edge[3], h->edge[4], h->edge[5]);
		if ((s = prep(st, "INSERT INTO hexes (campaign_id, q, r, "
		    "terrain, elevation, edges) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
		    err)) == NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, *cid);
		sqlite3_bind_int(s, 2, h->h.q);
		sqlite3_bind_int(s, 3, h->h.r);
		bind_text(s, 4, h->terrain);
		sqlite3_bind_int(s, 5, h->elevation);
		bind_text(s, 6, edges);
		if ((rc = exec_done(st, s, err, "save hex")) != HP_OK)
			return rc;
	}
	return save_units_vars(st, *cid, g, err);
}

int
store_game_save(struct store *st, int64_t cid, const struct game *g,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	s = prep(st, "UPDATE campaigns SET status = ?2, result = ?3, turn = ?4, "
	    "window = ?5 WHERE id = ?1", err);
	if (s == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	bind_text(s, 2, game_strstatus(g->status));
	bind_text(s, 3, g->result);
	sqlite3_bind_int(s, 4, g->turn);
	sqlite3_bind_int(s, 5, g->window);
	if ((rc = exec_done(st, s, err, "save campaign")) != HP_OK)
		return rc;
	if ((rc = save_sides(st, cid, g, false, err)) != HP_OK)
		return rc;
	return save_units_vars(st, cid, g, err);
}

/* Read exactly n space-separated integers from s into out. */
static bool
parse_ints(const char *s, int *out, int n)
{
	char *end;
	long v;
	int i;

	for (i = 0; i < n; i++) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || errno != 0 || v < INT_MIN || v > INT_MAX)
			return false;
		out[i] = (int)v;
		s = end;
	}
	while (*s == ' ')
		s++;
	return *s == '\0';
}

static int
parse_status(const char *s)
{
	if (strcmp(s, "setup") == 0)
		return GAME_SETUP;
	if (strcmp(s, "finished") == 0)
		return GAME_FINISHED;
	return GAME_ACTIVE;
}

int
store_game_load(struct store *st, const char *name, struct game *g,
    int64_t *cidp, struct hp_error *err)
{
	sqlite3_stmt *s = NULL;
	int64_t cid;
	int rc = HP_EDB, step;

	if ((s = prep(st, "SELECT id, ruleset, scenario, options, status, "
	    "result, turn, window, layout_orient, layout_parity, layout_cols, "
	    "layout_rows, layout_row_base, rstate FROM campaigns WHERE "
	    "name = ?1",
	    err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, name);
	if ((step = sqlite3_step(s)) != SQLITE_ROW) {
		if (step == SQLITE_DONE) {
			hp_seterr(err, HP_ENOENT, "no campaign called %s", name);
			rc = HP_ENOENT;
		} else
			dberr(st, err, "load campaign");
		goto out;
	}
	cid = sqlite3_column_int64(s, 0);
	strlcpy_(g->name, name, sizeof g->name);
	if ((g->rules = ruleset_find(col_text(s, 1))) == NULL) {
		hp_seterr(err, HP_EINTERNAL, "campaign %s uses unknown ruleset "
		    "%s", name, col_text(s, 1));
		rc = HP_EINTERNAL;
		goto out;
	}
	strlcpy_(g->scenario, col_text(s, 2), sizeof g->scenario);
	strlcpy_(g->options, col_text(s, 3), sizeof g->options);
	g->status = parse_status(col_text(s, 4));
	strlcpy_(g->result, col_text(s, 5), sizeof g->result);
	g->turn = sqlite3_column_int(s, 6);
	g->window = sqlite3_column_int(s, 7);
	g->layout.orient = sqlite3_column_int(s, 8);
	g->layout.parity = sqlite3_column_int(s, 9);
	g->layout.cols = sqlite3_column_int(s, 10);
	g->layout.rows = sqlite3_column_int(s, 11);
	g->layout.row_base = sqlite3_column_int(s, 12);
	game_set_rstate(g, sqlite3_column_type(s, 13) == SQLITE_NULL ? NULL :
	    col_text(s, 13));
	stmt_done(st, s);

	if ((s = prep(st, "SELECT idx, name, label, ai, standing FROM sides "
	    "WHERE campaign_id = ?1 ORDER BY idx", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	g->nsides = 0;
	while ((step = sqlite3_step(s)) == SQLITE_ROW &&
	    g->nsides < GAME_MAX_SIDES) {
		struct game_side *sd = &g->sides[g->nsides++];

		strlcpy_(sd->name, col_text(s, 1), sizeof sd->name);
		strlcpy_(sd->label, col_text(s, 2), sizeof sd->label);
		sd->ai = sqlite3_column_int(s, 3) != 0;
		free(sd->standing);
		sd->standing = sqlite3_column_type(s, 4) == SQLITE_NULL ? NULL :
		    xstrdup(col_text(s, 4));
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW) {
		dberr(st, err, "load sides");
		goto out;
	}
	stmt_done(st, s);

	if ((s = prep(st, "SELECT q, r, terrain, elevation, edges FROM hexes "
	    "WHERE campaign_id = ?1 ORDER BY q, r", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	g->nhex = 0;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct hex h = { sqlite3_column_int(s, 0),
		    sqlite3_column_int(s, 1) };
		struct game_hex *gh = game_add_hex(g, h, col_text(s, 2));

		gh->elevation = sqlite3_column_int(s, 3);
		if (!parse_ints(col_text(s, 4), gh->edge, 6)) {
			hp_seterr(err, HP_EINTERNAL, "bad hex edges in %s",
			    name);
			rc = HP_EINTERNAL;
			goto out;
		}
	}
	if (step != SQLITE_DONE) {
		dberr(st, err, "load hexes");
		goto out;
	}
	stmt_done(st, s);

	if ((s = prep(st, "SELECT uid, kind, name, side_idx, placed, q, r, "
	    "status, strength, facing, attached, flags, x FROM units WHERE "
	    "campaign_id = ?1 ORDER BY idx", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	g->nunits = 0;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct game_unit *u = game_add_unit(g, col_text(s, 0),
		    col_text(s, 1), col_text(s, 2), sqlite3_column_int(s, 3));
		const char *x = col_text(s, 12);

		u->placed = sqlite3_column_int(s, 4) != 0;
		u->pos.q = sqlite3_column_int(s, 5);
		u->pos.r = sqlite3_column_int(s, 6);
		u->status = sqlite3_column_int(s, 7);
		u->strength = sqlite3_column_int(s, 8);
		u->facing = sqlite3_column_int(s, 9);
		u->attached = sqlite3_column_int(s, 10);
		u->flags = sqlite3_column_int(s, 11);
		if (!parse_ints(x, u->x, GAME_UNIT_X)) {
			hp_seterr(err, HP_EINTERNAL, "bad unit slots in %s",
			    name);
			rc = HP_EINTERNAL;
			goto out;
		}
	}
	if (step != SQLITE_DONE) {
		dberr(st, err, "load units");
		goto out;
	}
	for (step = 0; step < g->nunits; step++)
		if (g->units[step].attached < -1 ||
		    g->units[step].attached >= g->nunits ||
		    g->units[step].side < GAME_SIDE_NONE ||
		    g->units[step].side >= g->nsides) {
			hp_seterr(err, HP_EINTERNAL, "unit %s of %s is attached "
			    "to a unit or side that does not exist",
			    g->units[step].id, name);
			rc = HP_EINTERNAL;
			goto out;
		}
	stmt_done(st, s);

	if ((s = prep(st, "SELECT key, val FROM vars WHERE campaign_id = ?1 "
	    "ORDER BY key", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	g->nvars = 0;
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		game_set_var(g, col_text(s, 0), sqlite3_column_int(s, 1));
	if (step != SQLITE_DONE) {
		dberr(st, err, "load vars");
		goto out;
	}
	if (game_error(g) != NULL) {
		hp_seterr(err, HP_ESTATE, "%s", game_error(g));
		rc = HP_ESTATE;
		goto out;
	}
	if (cidp != NULL)
		*cidp = cid;
	rc = HP_OK;
out:
	stmt_done(st, s);
	return rc;
}

int
store_master_seed(struct store *st, int64_t cid, unsigned char *buf,
    size_t *len, struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t n = 0;

	if ((s = prep(st, "SELECT master_seed FROM campaigns WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if (sqlite3_step(s) == SQLITE_ROW &&
	    sqlite3_column_type(s, 0) == SQLITE_BLOB) {
		n = (size_t)sqlite3_column_bytes(s, 0);
		if (n > *len)
			n = *len;
		memcpy(buf, sqlite3_column_blob(s, 0), n);
	}
	*len = n;
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, "master seed");
	return HP_OK;
}

int
store_campaign_list(struct store *st,
    void (*fn)(const struct store_campaign_info *, void *), void *arg,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT name, ruleset, scenario, options, status, "
	    "result, turn, window FROM campaigns ORDER BY name", err)) == NULL)
		return HP_EDB;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_campaign_info ci;

		memset(&ci, 0, sizeof ci);
		strlcpy_(ci.name, col_text(s, 0), sizeof ci.name);
		strlcpy_(ci.ruleset, col_text(s, 1), sizeof ci.ruleset);
		strlcpy_(ci.scenario, col_text(s, 2), sizeof ci.scenario);
		strlcpy_(ci.options, col_text(s, 3), sizeof ci.options);
		strlcpy_(ci.status, col_text(s, 4), sizeof ci.status);
		strlcpy_(ci.result, col_text(s, 5), sizeof ci.result);
		ci.turn = sqlite3_column_int(s, 6);
		ci.window = sqlite3_column_int(s, 7);
		fn(&ci, arg);
	}
	if (step != SQLITE_DONE) {
		dberr(st, err, "list campaigns");
		stmt_done(st, s);
		return HP_EDB;
	}
	stmt_done(st, s);
	return HP_OK;
}

int
store_player_add(struct store *st, int64_t cid, int side, const char *name,
    const char *email, const char *pubkey, const char *keyid, bool moderator,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = prep(st, "INSERT INTO players (campaign_id, side_idx, name, "
	    "email, pubkey, key_id, moderator) VALUES (?1, ?2, ?3, ?4, ?5, "
	    "?6, ?7)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_int(s, 2, side);
	bind_text(s, 3, name);
	bind_text(s, 4, email);
	bind_text(s, 5, pubkey);
	bind_text(s, 6, keyid);
	sqlite3_bind_int(s, 7, moderator);
	if (sqlite3_step(s) != SQLITE_DONE) {
		rc = sqlite3_extended_errcode(st->db) ==
		    SQLITE_CONSTRAINT_UNIQUE ? HP_ESTATE : HP_EDB;
		if (rc == HP_ESTATE)
			hp_seterr(err, rc, "player %s already exists", name);
		else
			dberr(st, err, "add player");
		stmt_done(st, s);
		return rc;
	}
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, "add player");
	if ((s = prep(st, "UPDATE sides SET ai = 0 WHERE campaign_id = ?1 AND "
	    "idx = ?2", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_int(s, 2, side);
	return exec_done(st, s, err, "side to player");
}

int
store_player_list(struct store *st, int64_t cid,
    void (*fn)(int, const char *, const char *, bool, void *), void *arg,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT side_idx, name, email, moderator FROM players "
	    "WHERE campaign_id = ?1 AND active = 1 ORDER BY side_idx, name",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		fn(sqlite3_column_int(s, 0), col_text(s, 1), col_text(s, 2),
		    sqlite3_column_int(s, 3) != 0, arg);
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "list players");
	return HP_OK;
}

int
store_window_insert(struct store *st, int64_t cid,
    const struct window_spec *w, const unsigned char *seed,
    const unsigned char *commitment, int64_t *wid, struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = prep(st, "INSERT INTO windows (campaign_id, turn, number, "
	    "name, kind, sides, prompt, state, seed, commitment) VALUES (?1, "
	    "?2, ?3, ?4, ?5, ?6, ?7, 'open', ?8, ?9)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_int(s, 2, w->turn);
	sqlite3_bind_int(s, 3, w->number);
	bind_text(s, 4, w->name);
	sqlite3_bind_int(s, 5, w->kind);
	sqlite3_bind_int(s, 6, (int)w->sides);
	bind_text(s, 7, w->prompt);
	sqlite3_bind_blob(s, 8, seed, DICE_SEEDLEN, SQLITE_TRANSIENT);
	sqlite3_bind_blob(s, 9, commitment, 32, SQLITE_TRANSIENT);
	if ((rc = exec_done(st, s, err, "open window")) != HP_OK)
		return rc;
	if (wid != NULL)
		*wid = sqlite3_last_insert_rowid(st->db);
	return HP_OK;
}

#define WINDOW_COLS "id, turn, number, name, kind, sides, prompt, state, " \
	"seed, commitment, dice_key"

static void
window_row(sqlite3_stmt *s, struct store_window *w)
{
	memset(w, 0, sizeof *w);
	w->id = sqlite3_column_int64(s, 0);
	w->spec.turn = sqlite3_column_int(s, 1);
	w->spec.number = sqlite3_column_int(s, 2);
	strlcpy_(w->spec.name, col_text(s, 3), sizeof w->spec.name);
	w->spec.kind = sqlite3_column_int(s, 4);
	w->spec.sides = (unsigned)sqlite3_column_int(s, 5);
	strlcpy_(w->spec.prompt, col_text(s, 6), sizeof w->spec.prompt);
	w->state = wstate_parse(col_text(s, 7));
	col_blob(s, 8, w->seed, DICE_SEEDLEN);
	col_blob(s, 9, w->commitment, 32);
	w->have_key = sqlite3_column_type(s, 10) == SQLITE_BLOB;
	if (w->have_key)
		col_blob(s, 10, w->dice_key, DICE_KEYLEN);
}

/* Run a window query with up to three integer parameters after cid. */
static int
window_query(struct store *st, const char *sql, int64_t cid, int a, int b,
    struct store_window *w, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, sql, err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if (sqlite3_bind_parameter_count(s) >= 2)
		sqlite3_bind_int(s, 2, a);
	if (sqlite3_bind_parameter_count(s) >= 3)
		sqlite3_bind_int(s, 3, b);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW) {
		window_row(s, w);
		stmt_done(st, s);
		return HP_OK;
	}
	stmt_done(st, s);
	if (step == SQLITE_DONE) {
		hp_seterr(err, HP_ENOENT, "no such order window");
		return HP_ENOENT;
	}
	return dberr(st, err, "load window");
}

int
store_window_current(struct store *st, int64_t cid, struct store_window *w,
    struct hp_error *err)
{
	return window_query(st, "SELECT " WINDOW_COLS " FROM windows WHERE "
	    "campaign_id = ?1 AND state != 'resolved' ORDER BY id DESC LIMIT 1",
	    cid, 0, 0, w, err);
}

int
store_window_last_resolved(struct store *st, int64_t cid,
    struct store_window *w, struct hp_error *err)
{
	return window_query(st, "SELECT " WINDOW_COLS " FROM windows WHERE "
	    "campaign_id = ?1 AND state = 'resolved' ORDER BY id DESC LIMIT 1",
	    cid, 0, 0, w, err);
}

int
store_window_get(struct store *st, int64_t cid, int turn, int number,
    struct store_window *w, struct hp_error *err)
{
	if (number == 0)
		return window_query(st, "SELECT " WINDOW_COLS " FROM windows "
		    "WHERE campaign_id = ?1 AND turn = ?2 ORDER BY number DESC "
		    "LIMIT 1", cid, turn, 0, w, err);
	return window_query(st, "SELECT " WINDOW_COLS " FROM windows WHERE "
	    "campaign_id = ?1 AND turn = ?2 AND number = ?3", cid, turn,
	    number, w, err);
}

int
store_window_set_state(struct store *st, int64_t wid, enum window_state ws,
    const unsigned char *key, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE windows SET state = ?2, dice_key = "
	    "coalesce(?3, dice_key), resolved_at = CASE WHEN ?2 = 'resolved' "
	    "THEN strftime('%Y-%m-%dT%H:%M:%SZ', 'now') END WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	bind_text(s, 2, window_strstate(ws));
	if (key != NULL)
		sqlite3_bind_blob(s, 3, key, DICE_KEYLEN, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 3);
	return exec_done(st, s, err, "window state");
}

int
store_orders_put(struct store *st, int64_t wid, int side, int64_t player,
    const char *source, const char *raw, const char *parsed,
    const unsigned char *hash, struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = prep(st, "UPDATE orders SET current = 0 WHERE window_id = ?1 "
	    "AND side_idx = ?2 AND current = 1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int(s, 2, side);
	if ((rc = exec_done(st, s, err, "supersede orders")) != HP_OK)
		return rc;
	if ((s = prep(st, "INSERT INTO orders (window_id, side_idx, player_id, "
	    "source, raw, parsed, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int(s, 2, side);
	if (player > 0)
		sqlite3_bind_int64(s, 3, player);
	else
		sqlite3_bind_null(s, 3);
	bind_text(s, 4, source);
	bind_text(s, 5, raw);
	bind_text(s, 6, parsed);
	sqlite3_bind_blob(s, 7, hash, 32, SQLITE_TRANSIENT);
	return exec_done(st, s, err, "store orders");
}

int
store_orders_current(struct store *st, int64_t wid,
    struct store_order out[GAME_MAX_SIDES], struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	memset(out, 0, sizeof(struct store_order) * GAME_MAX_SIDES);
	if ((s = prep(st, "SELECT side_idx, source, raw, parsed, hash FROM "
	    "orders WHERE window_id = ?1 AND current = 1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		int side = sqlite3_column_int(s, 0);
		struct store_order *o;

		if (side < 0 || side >= GAME_MAX_SIDES)
			continue;
		o = &out[side];
		o->side = side;
		strlcpy_(o->source, col_text(s, 1), sizeof o->source);
		o->raw = xstrdup(col_text(s, 2));
		o->parsed = xstrdup(col_text(s, 3));
		col_blob(s, 4, o->hash, 32);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE) {
		store_orders_free(out);
		return dberr(st, err, "load orders");
	}
	return HP_OK;
}

void
store_orders_free(struct store_order out[GAME_MAX_SIDES])
{
	int i;

	for (i = 0; i < GAME_MAX_SIDES; i++) {
		free(out[i].raw);
		free(out[i].parsed);
		out[i].raw = out[i].parsed = NULL;
	}
}

int
store_events_put(struct store *st, int64_t wid, const struct events *ev,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t i;
	int rc;

	for (i = 0; i < ev->n; i++) {
		const struct event *e = &ev->v[i];

		if ((s = prep(st, "INSERT INTO events (window_id, seq, step, "
		    "phase, text, visible, roll) VALUES (?1, ?2, ?3, ?4, ?5, "
		    "?6, ?7)", err)) == NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, wid);
		sqlite3_bind_int(s, 2, e->seq);
		sqlite3_bind_int(s, 3, e->step);
		bind_text(s, 4, e->phase);
		bind_text(s, 5, e->text);
		sqlite3_bind_int(s, 6, (int)e->visible);
		sqlite3_bind_int(s, 7, e->roll);
		if ((rc = exec_done(st, s, err, "store event")) != HP_OK)
			return rc;
	}
	return HP_OK;
}

int
store_dice_put(struct store *st, int64_t wid, const struct dice *d,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t i;
	int rc;

	for (i = 0; i < d->nlog; i++) {
		const struct dice_roll *r = &d->log[i];

		if ((s = prep(st, "INSERT INTO dice (window_id, seq, purpose, "
		    "sides, target, result) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
		    err)) == NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, wid);
		sqlite3_bind_int(s, 2, r->seq);
		bind_text(s, 3, r->purpose);
		sqlite3_bind_int(s, 4, r->sides);
		sqlite3_bind_int(s, 5, r->target);
		sqlite3_bind_int(s, 6, r->result);
		if ((rc = exec_done(st, s, err, "store roll")) != HP_OK)
			return rc;
	}
	return HP_OK;
}

int
store_dice_load(struct store *st, int64_t wid, struct dice *d,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT seq, purpose, sides, target, result FROM dice "
	    "WHERE window_id = ?1 ORDER BY seq", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct dice_roll *r = dice_log_entry(d);

		r->seq = sqlite3_column_int(s, 0);
		strlcpy_(r->purpose, col_text(s, 1), sizeof r->purpose);
		r->sides = sqlite3_column_int(s, 2);
		r->target = sqlite3_column_int(s, 3);
		r->result = sqlite3_column_int(s, 4);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "load dice");
	return HP_OK;
}

int
store_report_put(struct store *st, int64_t wid, int side, const char *body,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO reports (window_id, side_idx, body) "
	    "VALUES (?1, ?2, ?3)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int(s, 2, side);
	bind_text(s, 3, body);
	return exec_done(st, s, err, "store report");
}

char *
store_report_get(struct store *st, int64_t wid, int side,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	char *body = NULL;
	int step;

	if ((s = prep(st, "SELECT body FROM reports WHERE window_id = ?1 AND "
	    "side_idx = ?2", err)) == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int(s, 2, side);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		body = xstrdup(col_text(s, 0));
	else if (step == SQLITE_DONE)
		hp_seterr(err, HP_ENOENT, "no report for that turn and side");
	else
		dberr(st, err, "load report");
	stmt_done(st, s);
	return body;
}

/* Fill p from a row of id, campaign id, campaign name, side, name, email,
 * public key, key id and moderator flag. */
static void
player_from_row(sqlite3_stmt *s, struct store_player *p)
{
	memset(p, 0, sizeof *p);
	p->id = sqlite3_column_int64(s, 0);
	p->campaign_id = sqlite3_column_int64(s, 1);
	strlcpy_(p->campaign, col_text(s, 2), sizeof p->campaign);
	p->side = sqlite3_column_int(s, 3);
	strlcpy_(p->name, col_text(s, 4), sizeof p->name);
	strlcpy_(p->email, col_text(s, 5), sizeof p->email);
	strlcpy_(p->pubkey, col_text(s, 6), sizeof p->pubkey);
	strlcpy_(p->key_id, col_text(s, 7), sizeof p->key_id);
	p->moderator = sqlite3_column_int(s, 8) != 0;
}

int
store_players_by_key(struct store *st, const char *key_id,
    struct store_player *out, int max, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, n = 0;

	if ((s = prep(st, "SELECT p.id, p.campaign_id, c.name, p.side_idx, "
	    "p.name, p.email, p.pubkey, p.key_id, p.moderator FROM players p "
	    "JOIN campaigns c ON c.id = p.campaign_id WHERE p.key_id = ?1 AND "
	    "p.active = 1 ORDER BY c.status = 'finished', p.id", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, key_id);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (n < max)
			player_from_row(s, &out[n]);
		n++;
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "players by key");
	return n;
}

int
store_player_by_key_in(struct store *st, const char *key_id,
    const char *campaign, struct store_player *out, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, n = 0;

	if ((s = prep(st, "SELECT p.id, p.campaign_id, c.name, p.side_idx, "
	    "p.name, p.email, p.pubkey, p.key_id, p.moderator FROM players p "
	    "JOIN campaigns c ON c.id = p.campaign_id WHERE p.key_id = ?1 AND "
	    "c.name = ?2 AND p.active = 1 ORDER BY p.id LIMIT 1", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, key_id);
	bind_text(s, 2, campaign);
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		player_from_row(s, out);
		n = 1;
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		return dberr(st, err, "player by key");
	return n;
}

int
store_keyring(struct store *st,
    void (*fn)(const char *, const char *, void *), void *arg,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT DISTINCT key_id, pubkey FROM players WHERE "
	    "active = 1 AND key_id IS NOT NULL AND pubkey IS NOT NULL", err)) ==
	    NULL)
		return HP_EDB;
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		fn(col_text(s, 0), col_text(s, 1), arg);
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "keyring");
	return HP_OK;
}

int
store_player_set_key(struct store *st, int64_t cid, const char *name,
    const char *pubkey, const char *key_id, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE players SET pubkey = ?3, key_id = ?4 WHERE "
	    "campaign_id = ?1 AND name = ?2", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	bind_text(s, 2, name);
	bind_text(s, 3, pubkey);
	bind_text(s, 4, key_id);
	return exec_done(st, s, err, "set player key");
}

int
store_message_seen(struct store *st, const unsigned char *hash,
    const char *message_id, bool *seen, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT 1 FROM messages WHERE hash = ?1 OR "
	    "(?2 IS NOT NULL AND message_id = ?2) LIMIT 1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	bind_text(s, 2, message_id);
	step = sqlite3_step(s);
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "message seen");
	*seen = step == SQLITE_ROW;
	return HP_OK;
}

int
store_message_record(struct store *st, const unsigned char *hash,
    const char *message_id, const char *mailbox, const char *outcome,
    const char *detail, int64_t cid, int64_t player, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO messages (hash, message_id, mailbox, "
	    "outcome, detail, campaign_id, player_id) VALUES (?1, ?2, ?3, ?4, "
	    "?5, ?6, ?7)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	bind_text(s, 2, message_id);
	bind_text(s, 3, mailbox);
	bind_text(s, 4, outcome);
	bind_text(s, 5, detail ? detail : "");
	if (cid > 0)
		sqlite3_bind_int64(s, 6, cid);
	else
		sqlite3_bind_null(s, 6);
	if (player > 0)
		sqlite3_bind_int64(s, 7, player);
	else
		sqlite3_bind_null(s, 7);
	return exec_done(st, s, err, "record message");
}

int
store_outbox_add(struct store *st, int64_t cid, const char *kind,
    const char *message_id, const char *rcpt, const char *envelope_from,
    const void *data, size_t len, bool *added, struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = prep(st, "INSERT OR IGNORE INTO outbox (message_id, "
	    "campaign_id, kind, rcpt, envelope_from, data) VALUES (?1, ?2, ?3, "
	    "?4, ?5, ?6)", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, message_id);
	if (cid > 0)
		sqlite3_bind_int64(s, 2, cid);
	else
		sqlite3_bind_null(s, 2);
	bind_text(s, 3, kind);
	bind_text(s, 4, rcpt);
	bind_text(s, 5, envelope_from);
	sqlite3_bind_blob(s, 6, data, (int)len, SQLITE_TRANSIENT);
	if ((rc = exec_done(st, s, err, "queue message")) != HP_OK)
		return rc;
	if (added != NULL)
		*added = sqlite3_changes(st->db) > 0;
	return HP_OK;
}

int
store_outbox_due(struct store *st, long now, struct store_outmsg *out,
    int max, int *n, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*n = 0;
	if ((s = prep(st, "SELECT id, message_id, kind, rcpt, envelope_from, "
	    "data, attempts, stage FROM outbox WHERE state = 'queued' AND "
	    "next_attempt <= ?1 ORDER BY id LIMIT ?2", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, now);
	sqlite3_bind_int(s, 2, max);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_outmsg *m = &out[(*n)++];

		memset(m, 0, sizeof *m);
		m->id = sqlite3_column_int64(s, 0);
		strlcpy_(m->message_id, col_text(s, 1), sizeof m->message_id);
		strlcpy_(m->kind, col_text(s, 2), sizeof m->kind);
		strlcpy_(m->rcpt, col_text(s, 3), sizeof m->rcpt);
		strlcpy_(m->envelope_from, col_text(s, 4),
		    sizeof m->envelope_from);
		m->len = (size_t)sqlite3_column_bytes(s, 5);
		m->data = xmalloc(m->len + 1);
		if (m->len > 0)
			memcpy(m->data, sqlite3_column_blob(s, 5), m->len);
		m->data[m->len] = '\0';
		m->attempts = sqlite3_column_int(s, 6);
		strlcpy_(m->stage, col_text(s, 7), sizeof m->stage);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE) {
		store_outmsg_free(out, *n);
		*n = 0;
		return dberr(st, err, "outbox");
	}
	return HP_OK;
}

void
store_outmsg_free(struct store_outmsg *m, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(m[i].data);
		m[i].data = NULL;
	}
}

int
store_outbox_sent(struct store *st, int64_t id, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE outbox SET state = 'sent', attempts = "
	    "attempts + 1, sent_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') "
	    "WHERE id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, id);
	return exec_done(st, s, err, "outbox sent");
}

int
store_outbox_staged(struct store *st, int64_t id, const char *stage,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE outbox SET stage = ?2 WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, stage);
	return exec_done(st, s, err, "outbox staged");
}

int
store_outbox_failed(struct store *st, int64_t id, long next, const char *why,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE outbox SET attempts = attempts + 1, "
	    "last_error = ?3, state = CASE WHEN ?2 < 0 THEN 'failed' ELSE "
	    "'queued' END, next_attempt = CASE WHEN ?2 < 0 THEN next_attempt "
	    "ELSE ?2 END WHERE id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, next);
	bind_text(s, 3, why);
	return exec_done(st, s, err, "outbox failed");
}

int
store_outbox_counts(struct store *st, int counts[3], struct hp_error *err)
{
	static const char *names[3] = { "queued", "sent", "failed" };
	sqlite3_stmt *s;
	int step, i;

	counts[0] = counts[1] = counts[2] = 0;
	if ((s = prep(st, "SELECT state, count(*) FROM outbox GROUP BY state",
	    err)) == NULL)
		return HP_EDB;
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		for (i = 0; i < 3; i++)
			if (strcmp(col_text(s, 0), names[i]) == 0)
				counts[i] = sqlite3_column_int(s, 1);
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "outbox counts");
	return HP_OK;
}

/* audit */

int
store_ordersig_put(struct store *st, const unsigned char *hash,
    const char *sig, size_t siglen, const char *pubkey, const char *key_id,
    int64_t player, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT OR IGNORE INTO order_signatures (hash, "
	    "signature, pubkey, key_id, player_id) VALUES (?1, ?2, ?3, ?4, ?5)",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, sig, (int)siglen, SQLITE_TRANSIENT);
	bind_text(s, 3, pubkey);
	bind_text(s, 4, key_id);
	if (player > 0)
		sqlite3_bind_int64(s, 5, player);
	else
		sqlite3_bind_null(s, 5);
	return exec_done(st, s, err, "store order signature");
}

int
store_ordersig_get(struct store *st, const unsigned char *hash, char **sig,
    char **pubkey, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*sig = *pubkey = NULL;
	if ((s = prep(st, "SELECT signature, pubkey FROM order_signatures "
	    "WHERE hash = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW) {
		*sig = xstrdup(col_text(s, 0));
		*pubkey = xstrdup(col_text(s, 1));
	}
	stmt_done(st, s);
	if (step == SQLITE_ROW)
		return HP_OK;
	if (step == SQLITE_DONE) {
		hp_seterr(err, HP_ENOENT, "no signature recorded");
		return HP_ENOENT;
	}
	return dberr(st, err, "load order signature");
}

int
store_dicelog_put(struct store *st, int64_t cid, int64_t wid,
    const char *text, const unsigned char *hash, const char *sig,
    const char *pubkey, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO dice_logs (window_id, campaign_id, text, "
	    "hash, signature, pubkey) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int64(s, 2, cid);
	bind_text(s, 3, text);
	sqlite3_bind_blob(s, 4, hash, 32, SQLITE_TRANSIENT);
	bind_text(s, 5, sig);
	bind_text(s, 6, pubkey);
	return exec_done(st, s, err, "store dice log");
}

int
store_dicelog_get(struct store *st, int64_t wid, char **text, char **sig,
    char **pubkey, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*text = *sig = *pubkey = NULL;
	if ((s = prep(st, "SELECT text, signature, pubkey FROM dice_logs WHERE "
	    "window_id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW) {
		*text = xstrdup(col_text(s, 0));
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			*sig = xstrdup(col_text(s, 1));
		if (sqlite3_column_type(s, 2) != SQLITE_NULL)
			*pubkey = xstrdup(col_text(s, 2));
	}
	stmt_done(st, s);
	if (step == SQLITE_ROW)
		return HP_OK;
	if (step == SQLITE_DONE) {
		hp_seterr(err, HP_ENOENT, "no dice log");
		return HP_ENOENT;
	}
	return dberr(st, err, "load dice log");
}

int
store_dicelog_last_hash(struct store *st, int64_t cid, unsigned char *hash,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT hash FROM dice_logs WHERE campaign_id = ?1 "
	    "ORDER BY window_id DESC LIMIT 1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		col_blob(s, 0, hash, 32);
	stmt_done(st, s);
	if (step == SQLITE_ROW)
		return HP_OK;
	if (step == SQLITE_DONE) {
		hp_seterr(err, HP_ENOENT, "no dice log yet");
		return HP_ENOENT;
	}
	return dberr(st, err, "last dice log");
}

int
store_windows_all(struct store *st, int64_t cid, struct store_window **out,
    int *n, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, cap = 0;

	*out = NULL;
	*n = 0;
	if ((s = prep(st, "SELECT " WINDOW_COLS " FROM windows WHERE "
	    "campaign_id = ?1 ORDER BY id", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		window_row(s, &(*out)[(*n)++]);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return dberr(st, err, "list windows");
	}
	return HP_OK;
}

int
store_events_load(struct store *st, int64_t wid, struct events *ev,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT seq, step, phase, text, visible, roll FROM "
	    "events WHERE window_id = ?1 ORDER BY seq", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct event *e = events_append(ev);

		e->seq = sqlite3_column_int(s, 0);
		e->step = sqlite3_column_int(s, 1);
		strlcpy_(e->phase, col_text(s, 2), sizeof e->phase);
		strlcpy_(e->text, col_text(s, 3), sizeof e->text);
		e->visible = (unsigned)sqlite3_column_int(s, 4);
		e->roll = sqlite3_column_int(s, 5);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "load events");
	return HP_OK;
}

int
store_orders_all(struct store *st, int64_t wid, struct store_order_row **out,
    int *n, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, cap = 0;

	*out = NULL;
	*n = 0;
	if ((s = prep(st, "SELECT id, side_idx, coalesce(player_id, 0), source, "
	    "raw, hash, current FROM orders WHERE window_id = ?1 ORDER BY id",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_order_row *o;

		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		o = &(*out)[(*n)++];
		memset(o, 0, sizeof *o);
		o->id = sqlite3_column_int64(s, 0);
		o->side = sqlite3_column_int(s, 1);
		o->player = sqlite3_column_int64(s, 2);
		strlcpy_(o->source, col_text(s, 3), sizeof o->source);
		o->raw = xstrdup(col_text(s, 4));
		col_blob(s, 5, o->hash, 32);
		o->current = sqlite3_column_int(s, 6) != 0;
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE) {
		store_order_rows_free(*out, *n);
		*out = NULL;
		*n = 0;
		return dberr(st, err, "list orders");
	}
	return HP_OK;
}

void
store_order_rows_free(struct store_order_row *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i].raw);
	free(v);
}

int
store_player_get(struct store *st, int64_t pid, int *side, char *name,
    size_t namelen, char *pubkey, size_t pklen, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT side_idx, name, coalesce(pubkey, '') FROM "
	    "players WHERE id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, pid);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW) {
		*side = sqlite3_column_int(s, 0);
		strlcpy_(name, col_text(s, 1), namelen);
		strlcpy_(pubkey, col_text(s, 2), pklen);
	}
	stmt_done(st, s);
	if (step == SQLITE_ROW)
		return HP_OK;
	if (step == SQLITE_DONE) {
		hp_seterr(err, HP_ENOENT, "no player %lld", (long long)pid);
		return HP_ENOENT;
	}
	return dberr(st, err, "load player");
}


/* deadlines and moderation */

int
store_settings_get(struct store *st, int64_t cid, struct store_settings *o,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	memset(o, 0, sizeof *o);
	o->deadline_hours = o->remind_hours = -1;
	if ((s = prep(st, "SELECT deadline_hours, remind_hours, missing, "
	    "paused, paused_at FROM campaign_settings WHERE campaign_id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (sqlite3_column_type(s, 0) != SQLITE_NULL)
			o->deadline_hours = sqlite3_column_int(s, 0);
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			o->remind_hours = sqlite3_column_int(s, 1);
		strlcpy_(o->missing, col_text(s, 2), sizeof o->missing);
		o->paused = sqlite3_column_int(s, 3) != 0;
		o->paused_at = (long)sqlite3_column_int64(s, 4);
	}
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "campaign settings");
	return HP_OK;
}

int
store_settings_put(struct store *st, int64_t cid,
    const struct store_settings *o, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT OR REPLACE INTO campaign_settings "
	    "(campaign_id, deadline_hours, remind_hours, missing, paused, "
	    "paused_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if (o->deadline_hours >= 0)
		sqlite3_bind_int(s, 2, o->deadline_hours);
	else
		sqlite3_bind_null(s, 2);
	if (o->remind_hours >= 0)
		sqlite3_bind_int(s, 3, o->remind_hours);
	else
		sqlite3_bind_null(s, 3);
	bind_text(s, 4, o->missing[0] ? o->missing : NULL);
	sqlite3_bind_int(s, 5, o->paused);
	if (o->paused)
		sqlite3_bind_int64(s, 6, o->paused_at);
	else
		sqlite3_bind_null(s, 6);
	return exec_done(st, s, err, "save campaign settings");
}

int
store_quarantine_get(struct store *st, const char *name,
    struct store_quarantine *q, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	memset(q, 0, sizeof *q);
	if ((s = prep(st, "SELECT q.since, q.error FROM campaign_quarantine q "
	    "JOIN campaigns c ON c.id = q.campaign_id WHERE c.name = ?1",
	    err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, name);
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		q->on = true;
		q->since = (long)sqlite3_column_int64(s, 0);
		strlcpy_(q->error, col_text(s, 1), sizeof q->error);
	}
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "campaign quarantine");
	return HP_OK;
}

int
store_quarantine_put(struct store *st, int64_t cid, long since,
    const char *error, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT OR REPLACE INTO campaign_quarantine "
	    "(campaign_id, since, error) VALUES (?1, ?2, ?3)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_int64(s, 2, since);
	bind_text(s, 3, error);
	return exec_done(st, s, err, "quarantine a campaign");
}

int
store_quarantine_clear(struct store *st, int64_t cid, bool *was,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = prep(st, "DELETE FROM campaign_quarantine WHERE "
	    "campaign_id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	rc = exec_done(st, s, err, "lift a quarantine");
	*was = rc == HP_OK && sqlite3_changes(st->db) > 0;
	return rc;
}

int
store_clock_get(struct store *st, int64_t wid, struct store_clock *c,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	memset(c, 0, sizeof *c);
	if ((s = prep(st, "SELECT opened, fixed_deadline, extended, reminded, "
	    "held FROM window_clock WHERE window_id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		c->have = true;
		c->opened = (long)sqlite3_column_int64(s, 0);
		c->fixed = (long)sqlite3_column_int64(s, 1);
		c->extended = (long)sqlite3_column_int64(s, 2);
		c->reminded = sqlite3_column_int(s, 3) != 0;
		c->held = sqlite3_column_int(s, 4) != 0;
	}
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "window clock");
	return HP_OK;
}

int
store_clock_put(struct store *st, int64_t wid, const struct store_clock *c,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT OR REPLACE INTO window_clock (window_id, "
	    "opened, fixed_deadline, extended, reminded, held) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int64(s, 2, c->opened);
	if (c->fixed > 0)
		sqlite3_bind_int64(s, 3, c->fixed);
	else
		sqlite3_bind_null(s, 3);
	sqlite3_bind_int64(s, 4, c->extended);
	sqlite3_bind_int(s, 5, c->reminded);
	sqlite3_bind_int(s, 6, c->held);
	return exec_done(st, s, err, "save window clock");
}

int
store_command_add(struct store *st, int64_t cid, int64_t player,
    const char *nonce, const char *command, const char *detail, long at,
    int64_t *id, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO commands (campaign_id, player_id, nonce, "
	    "command, detail, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", err)) ==
	    NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if (player > 0)
		sqlite3_bind_int64(s, 2, player);
	else
		sqlite3_bind_null(s, 2);
	bind_text(s, 3, nonce);
	bind_text(s, 4, command);
	bind_text(s, 5, detail ? detail : "");
	sqlite3_bind_int64(s, 6, at);
	if (sqlite3_step(s) != SQLITE_DONE) {
		int rc = sqlite3_extended_errcode(st->db) ==
		    SQLITE_CONSTRAINT_UNIQUE ? HP_ESTATE : HP_EDB;

		if (rc == HP_ESTATE)
			hp_seterr(err, rc, "this command file (nonce %s) was "
			    "used before", nonce ? nonce : "");
		else
			dberr(st, err, "record command");
		stmt_done(st, s);
		return rc;
	}
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, "record command");
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(st->db);
	return HP_OK;
}

int
store_players_of(struct store *st, int64_t cid, struct store_player *out,
    int max, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, n = 0;

	if ((s = prep(st, "SELECT p.id, p.campaign_id, c.name, p.side_idx, "
	    "p.name, p.email, coalesce(p.pubkey, ''), coalesce(p.key_id, ''), "
	    "p.moderator FROM players p JOIN campaigns c ON c.id = "
	    "p.campaign_id WHERE p.campaign_id = ?1 AND p.active = 1 ORDER BY "
	    "p.side_idx, p.name", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (n < max)
			player_from_row(s, &out[n]);
		n++;
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "players of campaign");
	return n;
}

int
store_player_retire(struct store *st, int64_t player, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE players SET active = 0, name = name || "
	    "' (replaced, ' || id || ')' WHERE id = ?1 AND active = 1", err)) ==
	    NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, player);
	return exec_done(st, s, err, "retire player");
}

/* imap: mail fetched over IMAP, and the outbox listing (see store.h). */

int
store_imap_mailbox(struct store *st, const char *url, int64_t *id,
    uint32_t *uidvalidity, uint32_t *last_uid, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "INSERT INTO imap_mailboxes (url) VALUES (?1) "
	    "ON CONFLICT (url) DO NOTHING", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, url);
	if (exec_done(st, s, err, "imap mailbox") != HP_OK)
		return HP_EDB;
	if ((s = prep(st, "SELECT id, uidvalidity, last_uid FROM "
	    "imap_mailboxes WHERE url = ?1", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, url);
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		*id = sqlite3_column_int64(s, 0);
		*uidvalidity = (uint32_t)sqlite3_column_int64(s, 1);
		*last_uid = (uint32_t)sqlite3_column_int64(s, 2);
	}
	stmt_done(st, s);
	if (step != SQLITE_ROW)
		return dberr(st, err, "imap mailbox");
	return HP_OK;
}

int
store_imap_reset(struct store *st, int64_t id, uint32_t uidvalidity,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if (store_begin(st, err) != HP_OK)
		return HP_EDB;
	if ((s = prep(st, "UPDATE imap_mailboxes SET uidvalidity = ?2, "
	    "last_uid = 0 WHERE id = ?1", err)) == NULL)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, uidvalidity);
	if (exec_done(st, s, err, "imap reset") != HP_OK)
		goto fail;
	if ((s = prep(st, "DELETE FROM imap_spool WHERE mailbox_id = ?1 AND "
	    "uidvalidity <> ?2", err)) == NULL)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, uidvalidity);
	if (exec_done(st, s, err, "imap reset") != HP_OK)
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return HP_EDB;
}

int
store_imap_spooled(struct store *st, int64_t id, uint32_t uidvalidity,
    const uint32_t *uids, size_t n, uint32_t last_uid, struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t i;

	if (store_begin(st, err) != HP_OK)
		return HP_EDB;
	for (i = 0; i < n; i++) {
		if ((s = prep(st, "INSERT INTO imap_spool (mailbox_id, "
		    "uidvalidity, uid) VALUES (?1, ?2, ?3) ON CONFLICT DO "
		    "NOTHING", err)) == NULL)
			goto fail;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, uidvalidity);
		sqlite3_bind_int64(s, 3, uids[i]);
		if (exec_done(st, s, err, "imap spooled") != HP_OK)
			goto fail;
	}
	if ((s = prep(st, "UPDATE imap_mailboxes SET last_uid = max(last_uid, "
	    "?3) WHERE id = ?1 AND uidvalidity = ?2", err)) == NULL)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, uidvalidity);
	sqlite3_bind_int64(s, 3, last_uid);
	if (exec_done(st, s, err, "imap last uid") != HP_OK)
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return HP_EDB;
}

int
store_imap_pending(struct store *st, int64_t id,
    void (*fn)(uint32_t, uint32_t, void *), void *arg, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT uidvalidity, uid FROM imap_spool WHERE "
	    "mailbox_id = ?1 ORDER BY uidvalidity, uid", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, id);
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		fn((uint32_t)sqlite3_column_int64(s, 0),
		    (uint32_t)sqlite3_column_int64(s, 1), arg);
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "imap pending");
	return HP_OK;
}

int
store_imap_any_pending(struct store *st, int64_t id, bool *any,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT 1 FROM imap_spool WHERE mailbox_id = ?1 "
	    "LIMIT 1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, id);
	step = sqlite3_step(s);
	*any = step == SQLITE_ROW;
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "imap pending");
	return HP_OK;
}

int
store_imap_forget(struct store *st, int64_t id, uint32_t uidvalidity,
    const uint32_t *uids, size_t n, struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t i;

	if (store_begin(st, err) != HP_OK)
		return HP_EDB;
	for (i = 0; i < n; i++) {
		if ((s = prep(st, "DELETE FROM imap_spool WHERE mailbox_id = ?1 "
		    "AND uidvalidity = ?2 AND uid = ?3", err)) == NULL)
			goto fail;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, uidvalidity);
		sqlite3_bind_int64(s, 3, uids[i]);
		if (exec_done(st, s, err, "imap forget") != HP_OK)
			goto fail;
	}
	return store_commit(st, err);
fail:
	store_rollback(st);
	return HP_EDB;
}

int
store_outbox_list(struct store *st, bool all,
    void (*fn)(const struct store_outbox_row *, void *), void *arg,
    struct hp_error *err)
{
	struct store_outbox_row r;
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT id, message_id, kind, rcpt, state, attempts, "
	    "next_attempt, last_error, created_at FROM outbox WHERE state = "
	    "'failed' OR (state = 'queued' AND (?1 OR attempts > 0)) ORDER BY "
	    "id", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int(s, 1, all);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&r, 0, sizeof r);
		r.id = sqlite3_column_int64(s, 0);
		strlcpy_(r.message_id, col_text(s, 1), sizeof r.message_id);
		strlcpy_(r.kind, col_text(s, 2), sizeof r.kind);
		strlcpy_(r.rcpt, col_text(s, 3), sizeof r.rcpt);
		strlcpy_(r.state, col_text(s, 4), sizeof r.state);
		r.attempts = sqlite3_column_int(s, 5);
		r.next_attempt = (long)sqlite3_column_int64(s, 6);
		strlcpy_(r.last_error, col_text(s, 7), sizeof r.last_error);
		strlcpy_(r.created_at, col_text(s, 8), sizeof r.created_at);
		fn(&r, arg);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "outbox list");
	return HP_OK;
}

/* integration: what the audit needs from moderation and key history. */

int
store_ordersig_player(struct store *st, const unsigned char *hash,
    int64_t *player, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*player = 0;
	if ((s = prep(st, "SELECT coalesce(player_id, 0) FROM order_signatures "
	    "WHERE hash = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		*player = sqlite3_column_int64(s, 0);
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "order signature's player");
	return HP_OK;
}

int
store_command_count(struct store *st, int64_t cid, const char *verb,
    int *count, char *arg, size_t arglen, struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t n = strlen(verb);
	int step;

	*count = 0;
	if (arglen > 0)
		arg[0] = '\0';
	if ((s = prep(st, "SELECT command FROM commands WHERE campaign_id = ?1 "
	    "AND (command = ?2 OR substr(command, 1, ?3) = ?2 || ' ') ORDER BY "
	    "id", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	bind_text(s, 2, verb);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)n + 1);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *c = col_text(s, 0);

		(*count)++;
		if (arglen > 0)
			strlcpy_(arg, c[n] == ' ' ? c + n + 1 : "", arglen);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "commands of campaign");
	return HP_OK;
}

int
store_player_active(struct store *st, int64_t pid, bool *active,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*active = false;
	if ((s = prep(st, "SELECT active FROM players WHERE id = ?1", err)) ==
	    NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, pid);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		*active = sqlite3_column_int(s, 0) != 0;
	stmt_done(st, s);
	if (step == SQLITE_DONE) {
		hp_seterr(err, HP_ENOENT, "no player %lld", (long long)pid);
		return HP_ENOENT;
	}
	return step == SQLITE_ROW ? HP_OK : dberr(st, err, "player active");
}

/* key rotation */

int
store_rotation_add(struct store *st, const struct store_rotation *r,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO key_rotations (seq, statement, "
	    "signature, countersignature, old_key_id, new_key_id, old_pubkey, "
	    "new_pubkey, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
	    "?9)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int(s, 1, r->seq);
	bind_text(s, 2, r->statement);
	bind_text(s, 3, r->signature);
	bind_text(s, 4, r->countersignature);
	bind_text(s, 5, r->old_key_id);
	bind_text(s, 6, r->new_key_id);
	bind_text(s, 7, r->old_pubkey);
	bind_text(s, 8, r->new_pubkey);
	sqlite3_bind_int64(s, 9, r->created_at);
	return exec_done(st, s, err, "record key rotation");
}

void
store_rotations_free(struct store_rotation *r, int n)
{
	int i;

	for (i = 0; r != NULL && i < n; i++) {
		free(r[i].statement);
		free(r[i].signature);
		free(r[i].countersignature);
		free(r[i].old_pubkey);
		free(r[i].new_pubkey);
	}
	free(r);
}

int
store_rotations_all(struct store *st, struct store_rotation **out, int *n,
    struct hp_error *err)
{
	struct store_rotation *v = NULL, *r;
	sqlite3_stmt *s;
	int step, cap = 0;

	*out = NULL;
	*n = 0;
	if ((s = prep(st, "SELECT seq, statement, signature, countersignature, "
	    "old_key_id, new_key_id, old_pubkey, new_pubkey, created_at FROM "
	    "key_rotations ORDER BY seq", err)) == NULL)
		return HP_EDB;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4;
			v = xrealloc(v, (size_t)cap * sizeof *v);
		}
		r = &v[(*n)++];
		memset(r, 0, sizeof *r);
		r->seq = sqlite3_column_int(s, 0);
		r->statement = xstrdup(col_text(s, 1));
		r->signature = xstrdup(col_text(s, 2));
		r->countersignature = xstrdup(col_text(s, 3));
		strlcpy_(r->old_key_id, col_text(s, 4), sizeof r->old_key_id);
		strlcpy_(r->new_key_id, col_text(s, 5), sizeof r->new_key_id);
		r->old_pubkey = xstrdup(col_text(s, 6));
		r->new_pubkey = xstrdup(col_text(s, 7));
		r->created_at = (long)sqlite3_column_int64(s, 8);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE) {
		store_rotations_free(v, *n);
		*n = 0;
		return dberr(st, err, "key rotations");
	}
	*out = v;
	return HP_OK;
}

int
store_rotation_recipients(struct store *st, struct store_player **out,
    int *n, struct hp_error *err)
{
	struct store_player *v = NULL, *p;
	sqlite3_stmt *s;
	int step, cap = 0;

	*out = NULL;
	*n = 0;
	if ((s = prep(st, "SELECT p.id, c.id, c.name, p.side_idx, p.name, "
	    "p.email FROM players p JOIN campaigns c ON c.id = p.campaign_id "
	    "WHERE p.active = 1 AND c.status != 'finished' ORDER BY c.name, "
	    "p.side_idx, p.name", err)) == NULL)
		return HP_EDB;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			v = xrealloc(v, (size_t)cap * sizeof *v);
		}
		p = &v[(*n)++];
		memset(p, 0, sizeof *p);
		p->id = sqlite3_column_int64(s, 0);
		p->campaign_id = sqlite3_column_int64(s, 1);
		strlcpy_(p->campaign, col_text(s, 2), sizeof p->campaign);
		p->side = sqlite3_column_int(s, 3);
		strlcpy_(p->name, col_text(s, 4), sizeof p->name);
		strlcpy_(p->email, col_text(s, 5), sizeof p->email);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE) {
		free(v);
		*n = 0;
		return dberr(st, err, "players to tell of a key rotation");
	}
	*out = v;
	return HP_OK;
}

/* Seen before: same bytes, or same Message-ID and body (store.h). */
int
store_message_seen_content(struct store *st, const unsigned char *hash,
    const char *message_id, const unsigned char *content_hash, bool *seen,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT 1 FROM messages WHERE hash = ?1 OR "
	    "(?2 IS NOT NULL AND message_id = ?2 AND (content_hash IS NULL OR "
	    "content_hash = ?3)) LIMIT 1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	bind_text(s, 2, message_id);
	sqlite3_bind_blob(s, 3, content_hash, 32, SQLITE_TRANSIENT);
	step = sqlite3_step(s);
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "message seen");
	*seen = step == SQLITE_ROW;
	return HP_OK;
}

/* Record a message's body hash (store.h). */
int
store_message_set_content(struct store *st, const unsigned char *hash,
    const unsigned char *content_hash, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "UPDATE messages SET content_hash = ?2 WHERE "
	    "hash = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	sqlite3_bind_blob(s, 2, content_hash, 32, SQLITE_TRANSIENT);
	step = sqlite3_step(s);
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "message content hash");
	return HP_OK;
}

/* Is email an active player's address (store.h)? */
int
store_email_registered(struct store *st, const char *email, bool *yes,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT 1 FROM players WHERE active = 1 AND "
	    "email = ?1 COLLATE NOCASE LIMIT 1", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, email);
	step = sqlite3_step(s);
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "registered address");
	*yes = step == SQLITE_ROW;
	return HP_OK;
}

/* Every order file of a campaign to fn (store.h). */
int
store_orders_each(struct store *st, int64_t cid,
    void (*fn)(const char *raw, size_t len, const unsigned char *hash,
    void *arg), void *arg, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT o.raw, o.hash FROM orders o JOIN windows w "
	    "ON w.id = o.window_id WHERE w.campaign_id = ?1 AND o.source != "
	    "'opponent' ORDER BY o.id", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *raw = col_text(s, 0);
		size_t len = (size_t)sqlite3_column_bytes(s, 0);

		if (sqlite3_column_bytes(s, 1) == 32)
			fn(raw, len, sqlite3_column_blob(s, 1), arg);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "order files of a campaign");
	return HP_OK;
}

/* May a stranger get a short answer now; record it (store.h). */
int
store_stranger_answer(struct store *st, const char *address, long now,
    long period, bool *may, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*may = false;
	if ((s = prep(st, "SELECT last_at FROM stranger_answers WHERE "
	    "address = ?1", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, address);
	step = sqlite3_step(s);
	*may = step == SQLITE_DONE || (step == SQLITE_ROW &&
	    now - (long)sqlite3_column_int64(s, 0) >= period);
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "stranger answers");
	if ((s = prep(st, *may ? "INSERT INTO stranger_answers (address, "
	    "last_at) VALUES (?1, ?2) ON CONFLICT (address) DO UPDATE SET "
	    "last_at = ?2, suppressed = 0" : "UPDATE stranger_answers SET "
	    "suppressed = suppressed + 1 WHERE address = ?1", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, address);
	if (*may)
		sqlite3_bind_int64(s, 2, now);
	step = sqlite3_step(s);
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "stranger answers");
	return HP_OK;
}

int
store_campaign_set_scenario(struct store *st, int64_t cid, const char *text,
    struct hp_error *err)
{
	unsigned char h[crypto_hash_sha256_BYTES];
	char hex[2 * crypto_hash_sha256_BYTES + 1];
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE campaigns SET scenario_text = ?2, "
	    "scenario_sha256 = ?3 WHERE id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	bind_text(s, 2, text);
	if (text != NULL) {
		crypto_hash_sha256(h, (const unsigned char *)text,
		    strlen(text));
		sodium_bin2hex(hex, sizeof hex, h, sizeof h);
		bind_text(s, 3, hex);
	} else
		sqlite3_bind_null(s, 3);
	return exec_done(st, s, err, "save the scenario");
}

int
store_campaign_scenario(struct store *st, int64_t cid, char **text,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	*text = NULL;
	if ((s = prep(st, "SELECT scenario_text FROM campaigns WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		*text = xstrdup(col_text(s, 0));
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		stmt_done(st, s);
		return dberr(st, err, "load the scenario");
	}
	if (stmt_done(st, s) != SQLITE_OK) {
		free(*text);
		*text = NULL;
		return dberr(st, err, "load the scenario");
	}
	return HP_OK;
}

/* server faults (migration 011) */

int
store_fault_put(struct store *st, const char *kind, long since,
    const char *error, bool *added, struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	*added = false;
	if ((s = prep(st, "INSERT OR IGNORE INTO server_faults (kind, since, "
	    "error) VALUES (?1, ?2, ?3)", err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, kind);
	sqlite3_bind_int64(s, 2, since);
	bind_text(s, 3, error);
	rc = exec_done(st, s, err, "record a server fault");
	*added = rc == HP_OK && sqlite3_changes(st->db) > 0;
	return rc;
}

int
store_fault_clear(struct store *st, const char *kind, bool *was,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	*was = false;
	if ((s = prep(st, "DELETE FROM server_faults WHERE kind = ?1", err)) ==
	    NULL)
		return HP_EDB;
	bind_text(s, 1, kind);
	rc = exec_done(st, s, err, "clear a server fault");
	*was = rc == HP_OK && sqlite3_changes(st->db) > 0;
	return rc;
}

int
store_moderators(struct store *st,
    void (*fn)(const char *email, int64_t cid, void *), void *arg,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT lower(p.email), min(p.campaign_id) FROM "
	    "players p JOIN campaigns c ON c.id = p.campaign_id WHERE "
	    "p.moderator = 1 AND p.active = 1 AND c.status <> 'finished' "
	    "GROUP BY lower(p.email) ORDER BY 2, 1", err)) == NULL)
		return HP_EDB;
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		fn(col_text(s, 0), sqlite3_column_int64(s, 1), arg);
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "moderators");
	return HP_OK;
}

int
store_outbox_held(struct store *st, int64_t id, const char *why,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE outbox SET last_error = ?2 WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, why);
	return exec_done(st, s, err, "outbox held");
}

int
store_outbox_stage_used(struct store *st, const char *stage, bool *used,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*used = false;
	if ((s = prep(st, "SELECT 1 FROM outbox WHERE stage = ?1 LIMIT 1",
	    err)) == NULL)
		return HP_EDB;
	bind_text(s, 1, stage);
	step = sqlite3_step(s);
	*used = step == SQLITE_ROW;
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return dberr(st, err, "outbox stage");
	return HP_OK;
}

int
store_high_water(struct store *st, int64_t *messages, int64_t *outbox,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	*messages = *outbox = 0;
	if ((s = prep(st, "SELECT (SELECT coalesce(max(id), 0) FROM messages), "
	    "(SELECT coalesce(max(id), 0) FROM outbox)", err)) == NULL)
		return HP_EDB;
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		*messages = sqlite3_column_int64(s, 0);
		*outbox = sqlite3_column_int64(s, 1);
	}
	stmt_done(st, s);
	if (step != SQLITE_ROW)
		return dberr(st, err, "high water");
	return HP_OK;
}

int
store_chain_put(struct store *st, int64_t cid, const unsigned char *tail,
    int length, const char *statement, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE campaigns SET chain_tail = ?2, chain_length "
	    "= ?3, chain_statement = ?4, chain_signature = NULL, chain_pubkey "
	    "= NULL WHERE id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_blob(s, 2, tail, 32, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 3, length);
	bind_text(s, 4, statement);
	return exec_done(st, s, err, "store seed chain");
}

int
store_chain_sign(struct store *st, int64_t cid, const char *signature,
    const char *pubkey, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE campaigns SET chain_signature = ?2, "
	    "chain_pubkey = ?3 WHERE id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	bind_text(s, 2, signature);
	bind_text(s, 3, pubkey);
	return exec_done(st, s, err, "sign seed chain");
}

int
store_chain_get(struct store *st, int64_t cid, struct store_chain *c,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, rc = HP_OK;

	memset(c, 0, sizeof *c);
	if ((s = prep(st, "SELECT chain_tail, chain_length, chain_statement, "
	    "chain_signature, chain_pubkey FROM campaigns WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_BLOB &&
	    sqlite3_column_bytes(s, 0) == 32 &&
	    sqlite3_column_type(s, 2) != SQLITE_NULL) {
		memcpy(c->tail, sqlite3_column_blob(s, 0), 32);
		c->length = sqlite3_column_int(s, 1);
		c->statement = xstrdup(col_text(s, 2));
		if (sqlite3_column_type(s, 3) != SQLITE_NULL)
			c->signature = xstrdup(col_text(s, 3));
		if (sqlite3_column_type(s, 4) != SQLITE_NULL)
			c->pubkey = xstrdup(col_text(s, 4));
	} else if (step == SQLITE_ROW || step == SQLITE_DONE) {
		hp_seterr(err, HP_ENOENT, "no seed chain");
		rc = HP_ENOENT;
	}
	if (stmt_done(st, s) != SQLITE_OK && rc == HP_OK) {
		store_chain_free(c);
		return dberr(st, err, "load seed chain");
	}
	return rc;
}

void
store_chain_free(struct store_chain *c)
{
	free(c->statement);
	free(c->signature);
	free(c->pubkey);
	sodium_memzero(c, sizeof *c);
}

int
store_window_count(struct store *st, int64_t cid, int *n,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	*n = 0;
	if ((s = prep(st, "SELECT count(*) FROM windows WHERE campaign_id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if (sqlite3_step(s) == SQLITE_ROW)
		*n = sqlite3_column_int(s, 0);
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, "count windows");
	return HP_OK;
}

int
store_player_keys(struct store *st, int64_t cid, struct store_player **out,
    int *n, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, cap = 0;

	*out = NULL;
	*n = 0;
	if ((s = prep(st, "SELECT id, side_idx, name, pubkey, coalesce(key_id, "
	    "'') FROM players WHERE campaign_id = ?1 AND pubkey IS NOT "
	    "NULL AND pubkey != '' ORDER BY id", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_player *p;

		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		p = &(*out)[(*n)++];
		memset(p, 0, sizeof *p);
		p->id = sqlite3_column_int64(s, 0);
		p->campaign_id = cid;
		p->side = sqlite3_column_int(s, 1);
		strlcpy_(p->name, col_text(s, 2), sizeof p->name);
		strlcpy_(p->pubkey, col_text(s, 3), sizeof p->pubkey);
		strlcpy_(p->key_id, col_text(s, 4), sizeof p->key_id);
	}
	if (stmt_done(st, s) != SQLITE_OK || step != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return dberr(st, err, "player keys");
	}
	return HP_OK;
}
