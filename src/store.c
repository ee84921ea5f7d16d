/* store: campaign state in SQLite (see include/store.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "embedded.h"
#include "shmguard.h"
#include "store.h"

/* Prepared statements are kept, keyed by the address of their SQL text
 * (every statement is a string literal), and reset between uses. */
#define STORE_CACHE 128

/* Windows' records kept (struct store's rec). */
#define STORE_RECORDS 32

struct store {
	sqlite3 *db;
	struct {
		const char *sql;
		sqlite3_stmt *s;
	} cache[STORE_CACHE];
	int ncache;
	/* Windows' records (store_window_record) read since the database
	 * last changed: kept while PRAGMA data_version (another connection's
	 * commits) and sqlite3_total_changes (this one's writes) stay the
	 * same, forgotten at any change. */
	struct {
		int64_t wid;
		char *text;
		size_t len;
	} rec[STORE_RECORDS];
	int nrec, recnext;
	int64_t rec_dv, rec_tc;
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

/* Step a statement that returns no rows, then release it. Kept (inline:
 * no warning while unused) for store functions written before the
 * statement helper below (store_exec) on other branches; new code uses
 * store_exec. */
static inline int
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

/* Bind text, or NULL for a NULL pointer (as exec_done, for older code). */
static inline int
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

/* End a query that reads one row: close it; HP_OK if row, else HP_ENOENT
 * with the message fmt (HP_EDB, err set, if closing fails). */
static int query_row_end(struct store_query *, bool row, struct hp_error *,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
query_row_end(struct store_query *q, bool row, struct hp_error *err,
    const char *fmt, ...)
{
	va_list ap;
	char msg[HP_ERRLEN];

	if (store_query_close(q, err) != HP_OK)
		return HP_EDB;
	if (row)
		return HP_OK;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hp_seterr(err, HP_ENOENT, "%s", msg);
	return HP_ENOENT;
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

/* Stored compressed (issue 17): reports, and sent copies once compacted,
 * are kept as STORE_ZMAGIC, the original length (4 bytes, big-endian) and
 * its zlib stream. Neither a report nor an RFC 5322 message starts with a
 * NUL byte, so a value that does not start with the magic is plain. */
#define STORE_ZMAGIC "\0HPZ"
#define STORE_ZHEAD 8

/* Sent copies compacted a day after delivery (store_compact) are stored
 * the same way under STORE_SMAGIC, which also marks them done; a report's
 * copy keeps only its headers and a line naming its body's BLAKE2b-256
 * (the report itself is kept in reports). */
#define STORE_SMAGIC "\0HPS"

/* The compressed form of p (n bytes) under magic as a malloc'ed blob
 * (*outlen bytes), or NULL when it would not be smaller (store p as it is)
 * unless force. */
static unsigned char *
store_zpack_as(const void *p, size_t n, const char *magic, bool force,
    size_t *outlen)
{
	uLongf zlen = compressBound((uLong)n);
	unsigned char *z;

	if ((!force && n < 64) || n > 0xffffffffu)
		return NULL;
	z = xmalloc(STORE_ZHEAD + zlen);
	memcpy(z, magic, 4);
	z[4] = (unsigned char)(n >> 24);
	z[5] = (unsigned char)(n >> 16);
	z[6] = (unsigned char)(n >> 8);
	z[7] = (unsigned char)n;
	if (compress2(z + STORE_ZHEAD, &zlen, p, (uLong)n, 9) != Z_OK ||
	    (!force && (size_t)STORE_ZHEAD + zlen >= n)) {
		free(z);
		return NULL;
	}
	*outlen = STORE_ZHEAD + zlen;
	return z;
}

/* store_zpack_as with STORE_ZMAGIC, not forced. */
static unsigned char *
store_zpack(const void *p, size_t n, size_t *outlen)
{
	return store_zpack_as(p, n, STORE_ZMAGIC, false, outlen);
}

/* Is p (n bytes) a value store_zpack_as made? */
static bool
store_zpacked(const void *p, size_t n)
{
	return p != NULL && n >= STORE_ZHEAD && (memcmp(p, STORE_ZMAGIC, 4) ==
	    0 || memcmp(p, STORE_SMAGIC, 4) == 0);
}

/* p (n bytes) as a malloc'ed, NUL-terminated copy, uncompressed if it was
 * stored compressed; *len (may be NULL) its length. NULL if a compressed
 * value is damaged (not zlib, another length than recorded, or bytes after
 * the stream, as an edit appending to the value leaves). */
static char *
store_zunpack(const unsigned char *p, size_t n, size_t *len)
{
	uLongf want, got;
	uLong used;
	char *out;

	if (!store_zpacked(p, n)) {
		out = xmalloc(n + 1);
		if (n > 0)
			memcpy(out, p, n);
		out[n] = '\0';
		if (len != NULL)
			*len = n;
		return out;
	}
	want = (uLongf)p[4] << 24 | (uLongf)p[5] << 16 | (uLongf)p[6] << 8 |
	    (uLongf)p[7];
	got = want;
	used = (uLong)(n - STORE_ZHEAD);
	out = xmalloc((size_t)want + 1);
	if (uncompress2((Bytef *)out, &got, p + STORE_ZHEAD, &used) != Z_OK ||
	    got != want || used != (uLong)(n - STORE_ZHEAD)) {
		free(out);
		return NULL;
	}
	out[want] = '\0';
	if (len != NULL)
		*len = (size_t)want;
	return out;
}

static char *store_anyunpack(sqlite3 *db, const unsigned char *p, size_t n,
    size_t *len);
static int store_orders_shrink(struct store *st, int64_t wid,
    struct hp_error *err);
static bool store_xpacked(const void *p, size_t n);
static char *store_xunpack(sqlite3 *db, const unsigned char *p, size_t n,
    size_t *len);
static unsigned char *store_sdict_pack(struct store *st, int64_t wid,
    const char *what, int view, const char *p, size_t n, size_t limit,
    size_t *outlen);
static char *store_orders_parsed(sqlite3_stmt *s, int i, const char *raw);
static unsigned char *store_sdict_pack_scope(struct store *st,
    const char *scope, const char *p, size_t n, size_t limit, size_t *outlen);

/* Column i of s through store_zunpack (or, against a shared dictionary,
 * store_xunpack). */
static char *
col_unpacked(sqlite3_stmt *s, int i, size_t *len)
{
	return store_anyunpack(sqlite3_db_handle(s), sqlite3_column_blob(s, i),
	    (size_t)sqlite3_column_bytes(s, i), len);
}

/* Column i of s (text) through store_zunpack; a compressed value that does
 * not uncompress is returned as its stored bytes, so that a hash over it
 * (the audit's) finds it differs. Malloc'ed; *len (may be NULL) its
 * length. */
static char *
col_unpacked_text(sqlite3_stmt *s, int i, size_t *len)
{
	const unsigned char *p = sqlite3_column_blob(s, i);
	size_t n = (size_t)sqlite3_column_bytes(s, i);
	char *out;

	if ((out = store_anyunpack(sqlite3_db_handle(s), p, n, len)) != NULL)
		return out;
	out = xmalloc(n + 1);
	memcpy(out, p, n);
	out[n] = '\0';
	if (len != NULL)
		*len = n;
	return out;
}

/* Order files (raw and parsed) and dice logs of at least this many bytes
 * are stored compressed (issue 17: the Portable Wargame's and platoon's
 * are 1 to 4 KB a window); shorter ones gain nothing and stay plain. */
#define STORE_ORDERS_ZMIN 256

/* The argument storing order text t: compressed into *z (free it after)
 * when long enough and smaller, else t as it is. */
static struct store_arg
store_orders_arg(const char *t, unsigned char **z)
{
	size_t n = strlen(t), zn;

	*z = NULL;
	if (n >= STORE_ORDERS_ZMIN && (*z = store_zpack(t, n, &zn)) != NULL)
		return STORE_BLOB(*z, (int)zn);
	return STORE_TEXT(t);
}

/* Is the header line at p (up to its newline) one a compacted report copy
 * keeps? What a bounce checks (Date) and what says what it was
 * (X-Hexpost-Topic; Subject when there is no topic): the Message-ID,
 * recipient and kind are columns of the row, the rest (From, the thread's
 * Subject and References, List-Id, MIME parts) is the same in every copy
 * (issue 17, packrep). */
static bool
store_copy_keeps(const char *p, bool topic)
{
	static const char *const keep[] = { "Date:", "X-Hexpost-Topic:" };
	size_t i;

	for (i = 0; i < sizeof keep / sizeof keep[0]; i++)
		if (strncasecmp(p, keep[i], strlen(keep[i])) == 0)
			return true;
	return !topic && strncasecmp(p, "Subject:", 8) == 0;
}

/* SQL function hp_compact_copy(DATA, KIND): the sent copy DATA compacted
 * (STORE_SMAGIC): a report's reduced to the header fields store_copy_keeps
 * (each with its continuation lines) and a field naming its body's
 * BLAKE2b-256 (the report itself is kept in reports), any other
 * compressed whole. DATA itself if it does not uncompress. Copies
 * compacted before (all their headers kept) read as they were. */
static void
sql_compact_copy(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *kind = sqlite3_value_text(argv[1]);
	char *m, *sep, *p, *nl, hex[65];
	unsigned char h[32], *z;
	size_t n, zn, i;
	struct sbuf b;
	bool topic, keep = false;

	(void)argc;
	if ((m = store_zunpack(sqlite3_value_blob(argv[0]),
	    (size_t)sqlite3_value_bytes(argv[0]), &n)) == NULL) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	sbuf_init(&b);
	if (kind != NULL && strcmp((const char *)kind, "report") == 0 &&
	    (sep = strstr(m, "\n\n")) != NULL) {
		crypto_generichash(h, sizeof h, (unsigned char *)sep + 2,
		    n - (size_t)(sep + 2 - m), NULL, 0);
		for (i = 0; i < sizeof h; i++)
			snprintf(hex + 2 * i, 3, "%02x", h[i]);
		sep[1] = '\0';
		topic = strncasecmp(m, "X-Hexpost-Topic:", 16) == 0 ||
		    strcasestr(m, "\nX-Hexpost-Topic:") != NULL;
		for (p = m; *p != '\0'; p = nl + 1) {
			nl = strchr(p, '\n');
			if (*p != ' ' && *p != '\t')
				keep = store_copy_keeps(p, topic);
			if (keep)
				sbuf_add(&b, p, (size_t)(nl + 1 - p));
		}
		sbuf_printf(&b, "X-Hexpost-Copy: body of %zu bytes removed, "
		    "BLAKE2b-256 %s\n\n", n - (size_t)(sep + 2 - m), hex);
	} else
		sbuf_add(&b, m, n);
	free(m);
	z = store_zpack_as(b.buf, b.len, STORE_SMAGIC, true, &zn);
	sbuf_free(&b);
	if (z == NULL) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	sqlite3_result_blob(ctx, z, (int)zn, free);
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
	if (sqlite3_create_function(st->db, "hp_compact_copy", 2, SQLITE_UTF8 |
	    SQLITE_DETERMINISTIC, NULL, sql_compact_copy, NULL, NULL) !=
	    SQLITE_OK) {
		hp_seterr(err, HP_EDB, "%s: %s", path, sqlite3_errmsg(st->db));
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
	for (i = 0; i < st->nrec; i++)
		free(st->rec[i].text);
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
	int i, rc;

	for (i = 0; i < g->nsides; i++) {
		const struct game_side *sd = &g->sides[i];

		rc = store_exec(st, "save side", insert ?
		    "INSERT INTO sides (campaign_id, idx, name, label, ai, "
		    "standing) VALUES (?1, ?2, ?3, ?4, ?5, ?6)" :
		    "UPDATE sides SET name = ?3, label = ?4, ai = ?5, "
		    "standing = ?6 WHERE campaign_id = ?1 AND idx = ?2",
		    STORE_ARGS(STORE_INT(cid), STORE_INT(i),
		    STORE_TEXT(sd->name), STORE_TEXT(sd->label),
		    STORE_INT(sd->ai), STORE_TEXT(sd->standing)), NULL, err);
		if (rc != HP_OK)
			return rc;
	}
	return HP_OK;
}

static int
save_units_vars(struct store *st, int64_t cid, const struct game *g,
    struct hp_error *err)
{
	int i, j, rc;

	if (game_error(g) != NULL) {
		hp_seterr(err, HP_ESTATE, "%s", game_error(g));
		return HP_ESTATE;
	}
	if ((rc = store_exec(st, "save ruleset state", "UPDATE campaigns SET "
	    "rstate = ?2 WHERE id = ?1", STORE_ARGS(STORE_INT(cid),
	    STORE_TEXT(g->rstate)), NULL, err)) != HP_OK)
		return rc;
	if ((rc = store_exec(st, "clear units", "DELETE FROM units WHERE "
	    "campaign_id = ?1", STORE_ARGS(STORE_INT(cid)), NULL, err)) !=
	    HP_OK)
		return rc;
	for (i = 0; i < g->nunits; i++) {
		const struct game_unit *u = &g->units[i];
		struct sbuf x;

		sbuf_init(&x);
		for (j = 0; j < GAME_UNIT_X; j++)
			sbuf_printf(&x, "%s%d", j ? " " : "", u->x[j]);
		rc = store_exec(st, "save unit", "INSERT INTO units "
		    "(campaign_id, idx, uid, kind, name, side_idx, placed, q, r, "
		    "status, strength, facing, attached, flags, x) VALUES (?1, "
		    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
		    "?15)", STORE_ARGS(STORE_INT(cid), STORE_INT(i),
		    STORE_TEXT(u->id), STORE_TEXT(u->kind), STORE_TEXT(u->name),
		    STORE_INT(u->side), STORE_INT(u->placed),
		    STORE_INT(u->pos.q), STORE_INT(u->pos.r),
		    STORE_INT(u->status), STORE_INT(u->strength),
		    STORE_INT(u->facing), STORE_INT(u->attached),
		    STORE_INT(u->flags), STORE_TEXT(x.buf)), NULL, err);
		sbuf_free(&x);
		if (rc != HP_OK)
			return rc;
	}
	if ((rc = store_exec(st, "clear vars", "DELETE FROM vars WHERE "
	    "campaign_id = ?1", STORE_ARGS(STORE_INT(cid)), NULL, err)) !=
	    HP_OK)
		return rc;
	for (i = 0; i < g->nvars; i++)
		if ((rc = store_exec(st, "save var", "INSERT INTO vars "
		    "(campaign_id, key, val) VALUES (?1, ?2, ?3)",
		    STORE_ARGS(STORE_INT(cid), STORE_TEXT(g->vars[i].key),
		    STORE_INT(g->vars[i].val)), NULL, err)) != HP_OK)
			return rc;
	return HP_OK;
}

int
store_campaign_create(struct store *st, const struct game *g,
    const unsigned char *master, size_t masterlen, int64_t *cid,
    struct hp_error *err)
{
	int i, rc, src;

	rc = store_exec(st, "create campaign", "INSERT INTO campaigns (name, "
	    "ruleset, scenario, options, status, turn, window, layout_orient, "
	    "layout_parity, layout_cols, layout_rows, layout_row_base, "
	    "master_seed, result) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
	    "?10, ?11, ?12, ?13, ?14)", STORE_ARGS(STORE_TEXT(g->name),
	    STORE_TEXT(g->rules->name), STORE_TEXT(g->scenario),
	    STORE_TEXT(g->options), STORE_TEXT(game_strstatus(g->status)),
	    STORE_INT(g->turn), STORE_INT(g->window),
	    STORE_INT(g->layout.orient), STORE_INT(g->layout.parity),
	    STORE_INT(g->layout.cols), STORE_INT(g->layout.rows),
	    STORE_INT(g->layout.row_base), STORE_BLOB(masterlen > 0 ? master :
	    NULL, masterlen), STORE_TEXT(g->result)), &src, err);
	if (rc != HP_OK) {
		if (src == SQLITE_CONSTRAINT_UNIQUE) {
			hp_seterr(err, HP_ESTATE, "campaign %s already exists",
			    g->name);
			return HP_ESTATE;
		}
		return rc;
	}
	*cid = store_last_id(st);
	if ((rc = save_sides(st, *cid, g, true, err)) != HP_OK)
		return rc;
	for (i = 0; i < g->nhex; i++) {
		const struct game_hex *h = &g->hexes[i];
		char edges[64];

		snprintf(edges, sizeof edges, "%d %d %d %d %d %d", h->edge[0],
		    h->edge[1], h->edge[2], h->edge[3], h->edge[4], h->edge[5]);
		if ((rc = store_exec(st, "save hex", "INSERT INTO hexes "
		    "(campaign_id, q, r, terrain, elevation, edges) VALUES (?1, "
		    "?2, ?3, ?4, ?5, ?6)", STORE_ARGS(STORE_INT(*cid),
		    STORE_INT(h->h.q), STORE_INT(h->h.r),
		    STORE_TEXT(h->terrain), STORE_INT(h->elevation),
		    STORE_TEXT(edges)), NULL, err)) != HP_OK)
			return rc;
	}
	return save_units_vars(st, *cid, g, err);
}

int
store_game_save(struct store *st, int64_t cid, const struct game *g,
    struct hp_error *err)
{
	int rc;

	if ((rc = store_exec(st, "save campaign", "UPDATE campaigns SET status "
	    "= ?2, result = ?3, turn = ?4, window = ?5 WHERE id = ?1",
	    STORE_ARGS(STORE_INT(cid), STORE_TEXT(game_strstatus(g->status)),
	    STORE_TEXT(g->result), STORE_INT(g->turn), STORE_INT(g->window)),
	    NULL, err)) != HP_OK)
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
	struct store_query q;
	int64_t cid;
	int rc = HP_EDB, i;

	if (store_query_open(&q, st, "load campaign", "SELECT id, ruleset, "
	    "scenario, options, status, result, turn, window, layout_orient, "
	    "layout_parity, layout_cols, layout_rows, layout_row_base, rstate "
	    "FROM campaigns WHERE name = ?1", STORE_ARGS(STORE_TEXT(name)),
	    err) != HP_OK)
		return HP_EDB;
	if (!store_query_next(&q, err)) {
		if (q.rc == HP_OK) {
			hp_seterr(err, HP_ENOENT, "no campaign called %s", name);
			rc = HP_ENOENT;
		}
		goto out;
	}
	cid = sqlite3_column_int64(q.s, 0);
	strlcpy_(g->name, name, sizeof g->name);
	if ((g->rules = ruleset_find(col_text(q.s, 1))) == NULL) {
		hp_seterr(err, HP_EINTERNAL, "campaign %s uses unknown ruleset "
		    "%s", name, col_text(q.s, 1));
		rc = HP_EINTERNAL;
		goto out;
	}
	strlcpy_(g->scenario, col_text(q.s, 2), sizeof g->scenario);
	strlcpy_(g->options, col_text(q.s, 3), sizeof g->options);
	g->status = parse_status(col_text(q.s, 4));
	strlcpy_(g->result, col_text(q.s, 5), sizeof g->result);
	g->turn = sqlite3_column_int(q.s, 6);
	g->window = sqlite3_column_int(q.s, 7);
	g->layout.orient = sqlite3_column_int(q.s, 8);
	g->layout.parity = sqlite3_column_int(q.s, 9);
	g->layout.cols = sqlite3_column_int(q.s, 10);
	g->layout.rows = sqlite3_column_int(q.s, 11);
	g->layout.row_base = sqlite3_column_int(q.s, 12);
	game_set_rstate(g, sqlite3_column_type(q.s, 13) == SQLITE_NULL ?
	    NULL : col_text(q.s, 13));
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;

	if (store_query_open(&q, st, "load sides", "SELECT idx, name, label, "
	    "ai, standing FROM sides WHERE campaign_id = ?1 ORDER BY idx",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	g->nsides = 0;
	while (g->nsides < GAME_MAX_SIDES && store_query_next(&q, err)) {
		struct game_side *sd = &g->sides[g->nsides++];

		strlcpy_(sd->name, col_text(q.s, 1), sizeof sd->name);
		strlcpy_(sd->label, col_text(q.s, 2), sizeof sd->label);
		sd->ai = sqlite3_column_int(q.s, 3) != 0;
		free(sd->standing);
		sd->standing = sqlite3_column_type(q.s, 4) == SQLITE_NULL ?
		    NULL : xstrdup(col_text(q.s, 4));
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;

	if (store_query_open(&q, st, "load hexes", "SELECT q, r, terrain, "
	    "elevation, edges FROM hexes WHERE campaign_id = ?1 ORDER BY q, r",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	g->nhex = 0;
	while (store_query_next(&q, err)) {
		struct hex h = { sqlite3_column_int(q.s, 0),
		    sqlite3_column_int(q.s, 1) };
		struct game_hex *gh = game_add_hex(g, h, col_text(q.s, 2));

		gh->elevation = sqlite3_column_int(q.s, 3);
		if (!parse_ints(col_text(q.s, 4), gh->edge, 6)) {
			hp_seterr(err, HP_EINTERNAL, "bad hex edges in %s",
			    name);
			rc = HP_EINTERNAL;
			goto out;
		}
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;

	if (store_query_open(&q, st, "load units", "SELECT uid, kind, name, "
	    "side_idx, placed, q, r, status, strength, facing, attached, flags, "
	    "x FROM units WHERE campaign_id = ?1 ORDER BY idx",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	g->nunits = 0;
	while (store_query_next(&q, err)) {
		struct game_unit *u = game_add_unit(g, col_text(q.s, 0),
		    col_text(q.s, 1), col_text(q.s, 2),
		    sqlite3_column_int(q.s, 3));
		const char *x = col_text(q.s, 12);

		u->placed = sqlite3_column_int(q.s, 4) != 0;
		u->pos.q = sqlite3_column_int(q.s, 5);
		u->pos.r = sqlite3_column_int(q.s, 6);
		u->status = sqlite3_column_int(q.s, 7);
		u->strength = sqlite3_column_int(q.s, 8);
		u->facing = sqlite3_column_int(q.s, 9);
		u->attached = sqlite3_column_int(q.s, 10);
		u->flags = sqlite3_column_int(q.s, 11);
		if (!parse_ints(x, u->x, GAME_UNIT_X)) {
			hp_seterr(err, HP_EINTERNAL, "bad unit slots in %s",
			    name);
			rc = HP_EINTERNAL;
			goto out;
		}
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	for (i = 0; i < g->nunits; i++)
		if (g->units[i].attached < -1 ||
		    g->units[i].attached >= g->nunits ||
		    g->units[i].side < GAME_SIDE_NONE ||
		    g->units[i].side >= g->nsides) {
			hp_seterr(err, HP_EINTERNAL, "unit %s of %s is attached "
			    "to a unit or side that does not exist",
			    g->units[i].id, name);
			return HP_EINTERNAL;
		}

	if (store_query_open(&q, st, "load vars", "SELECT key, val FROM vars "
	    "WHERE campaign_id = ?1 ORDER BY key", STORE_ARGS(STORE_INT(cid)),
	    err) != HP_OK)
		return HP_EDB;
	g->nvars = 0;
	while (store_query_next(&q, err))
		game_set_var(g, col_text(q.s, 0), sqlite3_column_int(q.s, 1));
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	if (game_error(g) != NULL) {
		hp_seterr(err, HP_ESTATE, "%s", game_error(g));
		return HP_ESTATE;
	}
	if (cidp != NULL)
		*cidp = cid;
	return HP_OK;
out:
	store_query_close(&q, err);
	return rc;
}

int
store_master_seed(struct store *st, int64_t cid, unsigned char *buf,
    size_t *len, struct hp_error *err)
{
	struct store_query q;
	size_t n = 0;

	if (store_query_open(&q, st, "master seed", "SELECT master_seed FROM "
	    "campaigns WHERE id = ?1", STORE_ARGS(STORE_INT(cid)), err) !=
	    HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err) &&
	    sqlite3_column_type(q.s, 0) == SQLITE_BLOB) {
		n = (size_t)sqlite3_column_bytes(q.s, 0);
		if (n > *len)
			n = *len;
		memcpy(buf, sqlite3_column_blob(q.s, 0), n);
	}
	*len = n;
	return store_query_close(&q, err);
}

int
store_campaign_list(struct store *st,
    void (*fn)(const struct store_campaign_info *, void *), void *arg,
    struct hp_error *err)
{
	struct store_query q;

	if (store_query_open(&q, st, "list campaigns", "SELECT name, ruleset, "
	    "scenario, options, status, result, turn, window FROM campaigns "
	    "ORDER BY name", NULL, err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		struct store_campaign_info ci;

		memset(&ci, 0, sizeof ci);
		strlcpy_(ci.name, col_text(q.s, 0), sizeof ci.name);
		strlcpy_(ci.ruleset, col_text(q.s, 1), sizeof ci.ruleset);
		strlcpy_(ci.scenario, col_text(q.s, 2), sizeof ci.scenario);
		strlcpy_(ci.options, col_text(q.s, 3), sizeof ci.options);
		strlcpy_(ci.status, col_text(q.s, 4), sizeof ci.status);
		strlcpy_(ci.result, col_text(q.s, 5), sizeof ci.result);
		ci.turn = sqlite3_column_int(q.s, 6);
		ci.window = sqlite3_column_int(q.s, 7);
		fn(&ci, arg);
	}
	return store_query_close(&q, err);
}

int
store_player_add(struct store *st, int64_t cid, int side, const char *name,
    const char *email, const char *pubkey, const char *keyid, bool moderator,
    struct hp_error *err)
{
	int rc, src;

	rc = store_exec(st, "add player", "INSERT INTO players (campaign_id, "
	    "side_idx, name, email, pubkey, key_id, moderator) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6, ?7)", STORE_ARGS(STORE_INT(cid), STORE_INT(side),
	    STORE_TEXT(name), STORE_TEXT(email), STORE_TEXT(pubkey),
	    STORE_TEXT(keyid), STORE_INT(moderator)), &src, err);
	if (rc != HP_OK) {
		if (src == SQLITE_CONSTRAINT_UNIQUE) {
			hp_seterr(err, HP_ESTATE, "player %s already exists",
			    name);
			return HP_ESTATE;
		}
		return rc;
	}
	return store_exec(st, "side to player", "UPDATE sides SET ai = 0 WHERE "
	    "campaign_id = ?1 AND idx = ?2", STORE_ARGS(STORE_INT(cid),
	    STORE_INT(side)), NULL, err);
}

int
store_player_list(struct store *st, int64_t cid,
    void (*fn)(int, const char *, const char *, bool, void *), void *arg,
    struct hp_error *err)
{
	struct store_query q;

	if (store_query_open(&q, st, "list players", "SELECT side_idx, name, "
	    "email, moderator FROM players WHERE campaign_id = ?1 AND active = "
	    "1 ORDER BY side_idx, name", STORE_ARGS(STORE_INT(cid)), err) !=
	    HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err))
		fn(sqlite3_column_int(q.s, 0), col_text(q.s, 1),
		    col_text(q.s, 2), sqlite3_column_int(q.s, 3) != 0, arg);
	return store_query_close(&q, err);
}

int
store_window_insert(struct store *st, int64_t cid,
    const struct window_spec *w, const unsigned char *seed,
    const unsigned char *commitment, int64_t *wid, struct hp_error *err)
{
	int rc;

	if ((rc = store_exec(st, "open window", "INSERT INTO windows "
	    "(campaign_id, turn, number, name, kind, sides, prompt, state, "
	    "seed, commitment) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', ?8, "
	    "?9)", STORE_ARGS(STORE_INT(cid), STORE_INT(w->turn),
	    STORE_INT(w->number), STORE_TEXT(w->name), STORE_INT(w->kind),
	    STORE_INT((int)w->sides), STORE_TEXT(w->prompt),
	    STORE_BLOB(seed, DICE_SEEDLEN), STORE_BLOB(commitment, 32)), NULL,
	    err)) != HP_OK)
		return rc;
	if (wid != NULL)
		*wid = store_last_id(st);
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

/* Run a window query with nparams (1-3) integer parameters: cid, a, b. */
static int
window_query(struct store *st, const char *sql, int nparams, int64_t cid,
    int a, int b, struct store_window *w, struct hp_error *err)
{
	struct store_arg args[4] = { STORE_INT(cid), STORE_INT(a),
	    STORE_INT(b), { STORE_ARG_END, 0, NULL, 0 } };
	struct store_query q;
	bool row;

	args[nparams].type = STORE_ARG_END;
	if (store_query_open(&q, st, "load window", sql, args, err) != HP_OK)
		return HP_EDB;
	if ((row = store_query_next(&q, err)))
		window_row(q.s, w);
	return query_row_end(&q, row, err, "no such order window");
}

int
store_window_current(struct store *st, int64_t cid, struct store_window *w,
    struct hp_error *err)
{
	return window_query(st, "SELECT " WINDOW_COLS " FROM windows WHERE "
	    "campaign_id = ?1 AND state != 'resolved' ORDER BY id DESC LIMIT 1",
	    1, cid, 0, 0, w, err);
}

int
store_window_last_resolved(struct store *st, int64_t cid,
    struct store_window *w, struct hp_error *err)
{
	return window_query(st, "SELECT " WINDOW_COLS " FROM windows WHERE "
	    "campaign_id = ?1 AND state = 'resolved' ORDER BY id DESC LIMIT 1",
	    1, cid, 0, 0, w, err);
}

int
store_window_get(struct store *st, int64_t cid, int turn, int number,
    struct store_window *w, struct hp_error *err)
{
	if (number == 0)
		return window_query(st, "SELECT " WINDOW_COLS " FROM windows "
		    "WHERE campaign_id = ?1 AND turn = ?2 ORDER BY number DESC "
		    "LIMIT 1", 2, cid, turn, 0, w, err);
	return window_query(st, "SELECT " WINDOW_COLS " FROM windows WHERE "
	    "campaign_id = ?1 AND turn = ?2 AND number = ?3", 3, cid, turn,
	    number, w, err);
}

int
store_window_set_state(struct store *st, int64_t wid, enum window_state ws,
    const unsigned char *key, struct hp_error *err)
{
	return store_exec(st, "window state", "UPDATE windows SET state = ?2, "
	    "dice_key = coalesce(?3, dice_key), resolved_at = CASE WHEN ?2 = "
	    "'resolved' THEN strftime('%Y-%m-%dT%H:%M:%SZ', 'now') END WHERE "
	    "id = ?1", STORE_ARGS(STORE_INT(wid),
	    STORE_TEXT(window_strstate(ws)), STORE_BLOB(key, DICE_KEYLEN)),
	    NULL, err);
}

int
store_orders_put(struct store *st, int64_t wid, int side, int64_t player,
    const char *source, const char *raw, const char *parsed,
    const unsigned char *hash, struct hp_error *err)
{
	int rc;

	if ((rc = store_exec(st, "supersede orders", "UPDATE orders SET "
	    "current = 0 WHERE window_id = ?1 AND side_idx = ?2 AND current = "
	    "1", STORE_ARGS(STORE_INT(wid), STORE_INT(side)), NULL, err)) !=
	    HP_OK)
		return rc;
	{
		unsigned char *zr, *zp;
		struct store_arg ar = store_orders_arg(raw, &zr);
		struct store_arg ap = store_orders_arg(parsed, &zp);

		rc = store_exec(st, "store orders", "INSERT INTO orders ("
		    "window_id, side_idx, player_id, source, raw, parsed, "
		    "hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
		    STORE_ARGS(STORE_INT(wid), STORE_INT(side),
		    store_arg_id(player), STORE_TEXT(source), ar, ap,
		    STORE_BLOB(hash, 32)), NULL, err);
		free(zr);
		free(zp);
	}
	return rc;
}

/* store.h. Through orders_current (the current rows only): SQLite would
 * otherwise take orders_window and read every file the window was sent,
 * superseded ones too (issue 17). */
int
store_orders_current(struct store *st, int64_t wid,
    struct store_order out[GAME_MAX_SIDES], struct hp_error *err)
{
	struct store_query q;

	memset(out, 0, sizeof(struct store_order) * GAME_MAX_SIDES);
	if (store_query_open(&q, st, "load orders", "SELECT side_idx, source, "
	    "raw, parsed, hash FROM orders INDEXED BY orders_current WHERE "
	    "window_id = ?1 AND current = 1", STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		int side = sqlite3_column_int(q.s, 0);
		struct store_order *o;

		if (side < 0 || side >= GAME_MAX_SIDES)
			continue;
		o = &out[side];
		o->side = side;
		strlcpy_(o->source, col_text(q.s, 1), sizeof o->source);
		o->raw = col_unpacked_text(q.s, 2, NULL);
		o->parsed = store_orders_parsed(q.s, 3, o->raw);
		col_blob(q.s, 4, o->hash, 32);
	}
	if (store_query_close(&q, err) != HP_OK) {
		store_orders_free(out);
		return HP_EDB;
	}
	return HP_OK;
}

int
store_orders_sides(struct store *st, int64_t wid, unsigned *sides,
    struct hp_error *err)
{
	struct store_query q;

	*sides = 0;
	if (store_query_open(&q, st, "sides with orders", "SELECT side_idx "
	    "FROM orders INDEXED BY orders_current WHERE window_id = ?1 AND "
	    "current = 1",
	    STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		int side = sqlite3_column_int(q.s, 0);

		if (side >= 0 && side < GAME_MAX_SIDES)
			*sides |= 1u << side;
	}
	return store_query_close(&q, err);
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

/* Packed windows (issue 17, migration 024). A resolved window's events
 * (with their cited rolls), public dice rows, sealed dice rows and dice
 * log (text, signature and key, as signed) are kept, once the window is a
 * day old (store_compact), as one row of window_packs instead of a row
 * each: STORE_PMAGIC, the length of the raw form (4 bytes, big-endian),
 * the window id of the dictionary (8 bytes, big-endian; 0: none), then a
 * zlib stream of the raw form made with that window's raw form as preset
 * dictionary: the campaign's window packed before it (consecutive windows
 * repeat most of each other's words), unless that one's chain of
 * dictionaries is STORE_WPACK_CHAIN long: then the campaign's first pack,
 * which has none. The window's event, dice and sealed_dice rows go; its
 * dice_logs row stays (window, campaign, hash: the seed chain) with
 * STORE_PMAGIC for its text, '' for a signature it had and NULL for the
 * key. The readers (store_events_load, store_events_load_rolls,
 * store_dice_load, store_sealed_dice_load, store_dicelog_get) give the
 * same values either way; a pack is checked to read back before the rows
 * go, in the compaction's one transaction.
 *
 * The raw form is text: the line "hexpost window pack 1", then a record
 * for each event ("E dseq step visible roll nroll roll_set plen tlen",
 * newline, the phase and text bytes, newline), then either "R" (the
 * public rolls are the dice log's roll lines, which list them exactly)
 * or a record for each public roll ("D dseq sides target result plen",
 * newline, the purpose, newline), each sealed roll in the order drawn ("S
 * set seq sides target result plen", newline, purpose, newline), "H refs"
 * when the dice log's lines named by the bits of refs
 * (store_wpack_refname) had their hash left out (the same bytes are in
 * dice_logs.hash of the log before, windows.commitment, seed, dice_key,
 * and the next window's commitment; store_dicelog_get puts them back),
 * and the dice log's text, signature and key ("L", "G", "K" and a length,
 * newline, the bytes, newline; length -1: none). dseq is the seq less the
 * previous record's of its kind; plen -1 repeats the previous record's
 * phase or purpose. Each "record" line ends with a newline. */
#define STORE_PMAGIC "\0HPK"
#define STORE_PHEAD 16
#define STORE_PLINE "hexpost window pack 1\n"
#define STORE_PACK_SCHEMA 24    /* the migration that made window_packs */
/* A pack's dictionary is the raw form of the campaign's window packed
 * before it, unless that one's chain of dictionaries is this long: then
 * the campaign's first pack (a reader inflates at most this many packs
 * more than its own). */
#define STORE_WPACK_CHAIN 8

/* The dictionaries for the next pack of a campaign: its first pack (key,
 * no dictionary) and the last one packed (prev, depth: the length of its
 * chain); NULL: none. */
struct store_wpack_chain {
	char *key, *prev;
	size_t keylen, prevlen;
	int64_t keywid, prevwid;
	int prevdepth;
};

/* A window's events, rolls and dice log, as packed. */
struct store_wpack {
	struct events ev;       /* with nroll and roll_set */
	struct dice d;          /* log: public rolls; slog: sealed, as drawn */
	char *log, *sig, *pubkey;       /* NULL: none */
	unsigned refs;          /* log lines whose hash is left out (H) */
};

/* The dice log lines whose hash a pack may leave out, in the order of
 * the bits of refs, when it is the one stored elsewhere
 * (store_wpack_refs): the previous log's hash, the window's commitment,
 * seed and key, the next window's commitment. */
static const char *const store_wpack_refname[] = { "previous", "commitment",
    "seed", "key", "next-commitment" };
#define STORE_WPACK_NREFS 5

/* Set p up empty. */
static void
store_wpack_init(struct store_wpack *p)
{
	memset(p, 0, sizeof *p);
	events_init(&p->ev);
	dice_init_scripted(&p->d, NULL, 0);
}

/* Free what p holds. */
static void
store_wpack_free(struct store_wpack *p)
{
	events_free(&p->ev);
	dice_free(&p->d);
	free(p->log);
	free(p->sig);
	free(p->pubkey);
	memset(p, 0, sizeof *p);
}

/* Add a phase or purpose's length to b (-1: as prev). */
static void
store_wpack_len(struct sbuf *b, const char *cur, const char *prev)
{
	if (strcmp(cur, prev) == 0)
		sbuf_puts(b, " -1");
	else
		sbuf_printf(b, " %zu", strlen(cur));
}

/* Add the bytes behind store_wpack_len to b. */
static void
store_wpack_str(struct sbuf *b, const char *cur, const char *prev)
{
	if (strcmp(cur, prev) != 0)
		sbuf_puts(b, cur);
}

/* Add a dice log field (tag, s or NULL) to b. */
static void
store_wpack_field(struct sbuf *b, char tag, const char *s)
{
	if (s == NULL)
		sbuf_printf(b, "%c -1\n\n", tag);
	else {
		sbuf_printf(b, "%c %zu\n", tag, strlen(s));
		sbuf_puts(b, s);
		sbuf_add(b, "\n", 1);
	}
}

/* The public rolls the dice log text log lists ("roll: SEQ SIDES TARGET
 * RESULT PURPOSE", the purpose's control bytes, DEL and '\' as \xHH:
 * docs/AUDIT.md), appended to d->log; false if a roll line does not read. */
static bool
store_wpack_log_rolls(const char *log, struct dice *d)
{
	const char *p = log;

	while ((p = strstr(p, "\nroll: ")) != NULL) {
		struct dice_roll *r = dice_log_entry(d);
		long v[4];
		size_t n = 0;
		char *end;
		int i;

		p += 7;
		for (i = 0; i < 4; i++) {
			if (*p < '0' && *p != '-')
				return false;
			v[i] = strtol(p, &end, 10);
			if (end == p || *end != ' ' || v[i] < INT_MIN ||
			    v[i] > INT_MAX)
				return false;
			p = end + 1;
		}
		r->seq = (int)v[0];
		r->sides = (int)v[1];
		r->target = (int)v[2];
		r->result = (int)v[3];
		while (*p != '\n' && *p != '\0') {
			int c = (unsigned char)*p;

			if (c == '\\') {
				unsigned hi, lo;

				if (p[1] != 'x' || sscanf(p + 2, "%1x%1x", &hi,
				    &lo) != 2)
					return false;
				c = (int)(hi << 4 | lo);
				p += 4;
			} else
				p++;
			if (n + 1 >= sizeof r->purpose)
				return false;
			r->purpose[n++] = (char)c;
		}
		r->purpose[n] = '\0';
	}
	return true;
}

/* Does the dice log log list exactly the public rolls of d (so that a pack
 * need not hold them twice)? */
static bool
store_wpack_log_has_rolls(const char *log, const struct dice *d)
{
	struct dice l;
	size_t i;
	bool same;

	if (log == NULL)
		return false;
	dice_init_scripted(&l, NULL, 0);
	same = store_wpack_log_rolls(log, &l) && l.nlog == d->nlog;
	for (i = 0; same && i < d->nlog; i++)
		same = l.log[i].seq == d->log[i].seq && l.log[i].sides ==
		    d->log[i].sides && l.log[i].target == d->log[i].target &&
		    l.log[i].result == d->log[i].result &&
		    strcmp(l.log[i].purpose, d->log[i].purpose) == 0;
	dice_free(&l);
	return same;
}

/* The raw form of p, malloc'ed (*len bytes). */
static char *
store_wpack_encode(const struct store_wpack *p, size_t *len)
{
	struct sbuf b;
	const char *prev = "";
	bool fromlog;
	int seq = 0;
	size_t i;

	sbuf_init(&b);
	sbuf_puts(&b, STORE_PLINE);
	for (i = 0; i < p->ev.n; i++) {
		const struct event *e = &p->ev.v[i];

		sbuf_printf(&b, "E %d %d %u %d %d %u", e->seq - seq, e->step,
		    e->visible, e->roll, e->nroll, e->roll_set);
		store_wpack_len(&b, e->phase, prev);
		sbuf_printf(&b, " %zu\n", strlen(e->text));
		store_wpack_str(&b, e->phase, prev);
		sbuf_puts(&b, e->text);
		sbuf_add(&b, "\n", 1);
		seq = e->seq;
		prev = e->phase;
	}
	prev = "";
	seq = 0;
	/* The public rolls are read from the dice log when it lists them
	 * all as they are ("R"). */
	if ((fromlog = store_wpack_log_has_rolls(p->log, &p->d)))
		sbuf_puts(&b, "R\n");
	for (i = 0; i < p->d.nlog && !fromlog; i++) {
		const struct dice_roll *r = &p->d.log[i];

		sbuf_printf(&b, "D %d %d %d %d", r->seq - seq, r->sides,
		    r->target, r->result);
		store_wpack_len(&b, r->purpose, prev);
		sbuf_add(&b, "\n", 1);
		store_wpack_str(&b, r->purpose, prev);
		sbuf_add(&b, "\n", 1);
		seq = r->seq;
		prev = r->purpose;
	}
	prev = "";
	for (i = 0; i < p->d.nslog; i++) {
		const struct dice_roll *r = &p->d.slog[i];

		sbuf_printf(&b, "S %u %d %d %d %d", r->visible, r->seq,
		    r->sides, r->target, r->result);
		store_wpack_len(&b, r->purpose, prev);
		sbuf_add(&b, "\n", 1);
		store_wpack_str(&b, r->purpose, prev);
		sbuf_add(&b, "\n", 1);
		prev = r->purpose;
	}
	if (p->refs != 0)
		sbuf_printf(&b, "H %u\n", p->refs);
	store_wpack_field(&b, 'L', p->log);
	store_wpack_field(&b, 'G', p->sig);
	store_wpack_field(&b, 'K', p->pubkey);
	*len = b.len;
	return sbuf_steal(&b);
}

/* A number from *pp (before end), after one space; false if none. */
static bool
store_wpack_num(const char **pp, const char *end, long long *v)
{
	const char *p = *pp;
	bool neg = false;
	long long n = 0;

	if (p >= end || *p++ != ' ')
		return false;
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9') {
		if (n > (LLONG_MAX - 9) / 10)
			return false;
		n = n * 10 + (*p++ - '0');
	}
	*v = neg ? -n : n;
	*pp = p;
	return true;
}

/* n numbers from *pp, then a newline; false if not. */
static bool
store_wpack_nums(const char **pp, const char *end, long long *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!store_wpack_num(pp, end, &v[i]))
			return false;
	if (*pp >= end || **pp != '\n')
		return false;
	(*pp)++;
	return true;
}

/* len bytes from *pp into dst (size bytes, cut and NUL-terminated as
 * strlcpy does); len -1: prev. False if there are not len bytes. */
static bool
store_wpack_bytes(const char **pp, const char *end, long long len,
    char *dst, size_t size, const char *prev)
{
	size_t n;

	if (len < 0) {
		strlcpy_(dst, prev, size);
		return true;
	}
	if (len > end - *pp)
		return false;
	n = (size_t)len < size - 1 ? (size_t)len : size - 1;
	memcpy(dst, *pp, n);
	dst[n] = '\0';
	*pp += len;
	return true;
}

/* A dice log field of tag from *pp as a malloc'ed string or NULL. */
static bool
store_wpack_getfield(const char **pp, const char *end, char tag, char **out)
{
	long long len;

	*out = NULL;
	if (*pp >= end || **pp != tag)
		return false;
	(*pp)++;
	if (!store_wpack_nums(pp, end, &len, 1) || len > end - *pp)
		return false;
	if (len >= 0) {
		*out = xmalloc((size_t)len + 1);
		memcpy(*out, *pp, (size_t)len);
		(*out)[len] = '\0';
		*pp += len;
	}
	if (*pp >= end || **pp != '\n')
		return false;
	(*pp)++;
	return true;
}

/* Fill p (set up by store_wpack_init) from the raw form raw (n bytes);
 * false if it is not one. */
static bool
store_wpack_decode(const char *raw, size_t n, struct store_wpack *p)
{
	const char *s = raw, *end = raw + n;
	long long v[8];
	bool fromlog = false;
	int seq = 0;

	if (n < sizeof STORE_PLINE - 1 || memcmp(raw, STORE_PLINE,
	    sizeof STORE_PLINE - 1) != 0)
		return false;
	s += sizeof STORE_PLINE - 1;
	while (s < end && *s == 'E') {
		struct event *e = events_append(&p->ev);
		const char *prev = p->ev.n > 1 ? p->ev.v[p->ev.n - 2].phase : "";

		s++;
		if (!store_wpack_nums(&s, end, v, 8) || v[7] < 0 ||
		    !store_wpack_bytes(&s, end, v[6], e->phase, sizeof e->phase,
		    prev) || !store_wpack_bytes(&s, end, v[7], e->text,
		    sizeof e->text, "") || s >= end || *s++ != '\n')
			return false;
		e->seq = seq += (int)v[0];
		e->step = (int)v[1];
		e->visible = (unsigned)v[2];
		e->roll = (int)v[3];
		e->nroll = (int)v[4];
		e->roll_set = (unsigned)v[5];
	}
	seq = 0;
	if (end - s >= 2 && s[0] == 'R' && s[1] == '\n') {
		fromlog = true;
		s += 2;
	}
	while (!fromlog && s < end && *s == 'D') {
		struct dice_roll *r = dice_log_entry(&p->d);
		const char *prev = p->d.nlog > 1 ? p->d.log[p->d.nlog - 2].purpose :
		    "";

		s++;
		if (!store_wpack_nums(&s, end, v, 5) || !store_wpack_bytes(&s,
		    end, v[4], r->purpose, sizeof r->purpose, prev) || s >= end ||
		    *s++ != '\n')
			return false;
		r->seq = seq += (int)v[0];
		r->sides = (int)v[1];
		r->target = (int)v[2];
		r->result = (int)v[3];
	}
	while (s < end && *s == 'S') {
		struct dice_roll *r = dice_slog_entry(&p->d);
		const char *prev = p->d.nslog > 1 ?
		    p->d.slog[p->d.nslog - 2].purpose : "";

		s++;
		if (!store_wpack_nums(&s, end, v, 6) || !store_wpack_bytes(&s,
		    end, v[5], r->purpose, sizeof r->purpose, prev) || s >= end ||
		    *s++ != '\n')
			return false;
		r->visible = (unsigned)v[0];
		r->seq = (int)v[1];
		r->sides = (int)v[2];
		r->target = (int)v[3];
		r->result = (int)v[4];
		r->sealed = true;
	}
	if (s < end && *s == 'H') {
		s++;
		if (!store_wpack_nums(&s, end, v, 1) || v[0] <= 0 || v[0] >=
		    1 << STORE_WPACK_NREFS)
			return false;
		p->refs = (unsigned)v[0];
	}
	return store_wpack_getfield(&s, end, 'L', &p->log) &&
	    store_wpack_getfield(&s, end, 'G', &p->sig) &&
	    store_wpack_getfield(&s, end, 'K', &p->pubkey) && s == end &&
	    (!fromlog || (p->log != NULL && store_wpack_log_rolls(p->log,
	    &p->d)));
}

/* Does raw form raw (n bytes) read back as what encodes to it again? */
static bool
store_wpack_same(const char *raw, size_t n)
{
	struct store_wpack q;
	char *again = NULL;
	size_t len = 0;
	bool same;

	store_wpack_init(&q);
	same = store_wpack_decode(raw, n, &q) && (again =
	    store_wpack_encode(&q, &len)) != NULL && len == n &&
	    memcmp(again, raw, n) == 0;
	free(again);
	store_wpack_free(&q);
	return same;
}

/* The stored form of raw (n bytes) against dict (dn bytes, window dictwid;
 * NULL and 0: none), malloc'ed (*outlen bytes); NULL if zlib fails. */
static unsigned char *
store_wpack_deflate(const char *raw, size_t n, const char *dict, size_t dn,
    int64_t dictwid, size_t *outlen)
{
	z_stream z;
	unsigned char *out;
	size_t cap;
	int i;

	if (n > 0xffffffffu)
		return NULL;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 9, Z_DEFLATED, 15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	if (dict != NULL && deflateSetDictionary(&z, (const Bytef *)dict,
	    (uInt)dn) != Z_OK) {
		deflateEnd(&z);
		return NULL;
	}
	cap = STORE_PHEAD + deflateBound(&z, (uLong)n);
	out = xmalloc(cap);
	memcpy(out, STORE_PMAGIC, 4);
	for (i = 0; i < 4; i++)
		out[4 + i] = (unsigned char)(n >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		out[8 + i] = (unsigned char)((uint64_t)dictwid >> (56 - 8 * i));
	z.next_in = (Bytef *)(uintptr_t)raw;
	z.avail_in = (uInt)n;
	z.next_out = out + STORE_PHEAD;
	z.avail_out = (uInt)(cap - STORE_PHEAD);
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return NULL;
	}
	*outlen = STORE_PHEAD + z.total_out;
	deflateEnd(&z);
	return out;
}

/* The dictionary window id of a stored pack b (n bytes); -1 if b is not
 * one. */
static int64_t
store_wpack_dictid(const unsigned char *b, size_t n)
{
	uint64_t id = 0;
	int i;

	if (b == NULL || n < STORE_PHEAD || memcmp(b, STORE_PMAGIC, 4) != 0)
		return -1;
	for (i = 0; i < 8; i++)
		id = id << 8 | b[8 + i];
	return (int64_t)id;
}

/* The raw form of stored pack b (n bytes), with dict (dn bytes) as its
 * dictionary, malloc'ed and NUL-terminated (*len bytes); NULL if damaged. */
static char *
store_wpack_inflate(const unsigned char *b, size_t n, const char *dict,
    size_t dn, size_t *len)
{
	z_stream z;
	size_t want;
	char *out;
	int rc;

	if (store_wpack_dictid(b, n) < 0)
		return NULL;
	want = (size_t)b[4] << 24 | (size_t)b[5] << 16 | (size_t)b[6] << 8 |
	    (size_t)b[7];
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		return NULL;
	out = xmalloc(want + 1);
	z.next_in = (Bytef *)(uintptr_t)(b + STORE_PHEAD);
	z.avail_in = (uInt)(n - STORE_PHEAD);
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)want;
	rc = inflate(&z, Z_FINISH);
	if (rc == Z_NEED_DICT && dict != NULL && inflateSetDictionary(&z,
	    (const Bytef *)dict, (uInt)dn) == Z_OK)
		rc = inflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END || z.total_out != want || z.avail_in != 0) {
		inflateEnd(&z);
		free(out);
		return NULL;
	}
	inflateEnd(&z);
	out[want] = '\0';
	*len = want;
	return out;
}

/* The hashes a pack of window wid may leave out of its dice log, as hex
 * (store_wpack_refname order; "" when there is none): the campaign's log
 * before it, the window's commitment, seed and key, and the commitment of
 * the campaign's next window. */
static int
store_wpack_refs(struct store *st, int64_t wid,
    char hex[STORE_WPACK_NREFS][65], struct hp_error *err)
{
	struct store_query q;
	int i;

	for (i = 0; i < STORE_WPACK_NREFS; i++)
		hex[i][0] = '\0';
	if (store_query_open(&q, st, "pack references", "SELECT (SELECT l.hash "
	    "FROM dice_logs l WHERE l.campaign_id = w.campaign_id AND "
	    "l.window_id < w.id ORDER BY l.window_id DESC LIMIT 1), "
	    "w.commitment, w.seed, w.dice_key, (SELECT n.commitment FROM "
	    "windows n WHERE n.campaign_id = w.campaign_id AND n.id > w.id "
	    "ORDER BY n.id LIMIT 1) FROM windows w WHERE w.id = ?1",
	    STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err))
		for (i = 0; i < STORE_WPACK_NREFS; i++)
			if (sqlite3_column_type(q.s, i) == SQLITE_BLOB &&
			    sqlite3_column_bytes(q.s, i) == 32)
				sodium_bin2hex(hex[i], 65,
				    sqlite3_column_blob(q.s, i), 32);
	return store_query_close(&q, err);
}

/* Where the hash of log line name starts in log (its first such line
 * before the rolls), or NULL. */
static char *
store_wpack_refat(char *log, const char *name)
{
	char key[32], *p, *rolls;
	size_t n;

	n = (size_t)snprintf(key, sizeof key, "\n%s: ", name);
	rolls = strstr(log, "\nrolls: ");
	if ((p = strstr(log, key)) == NULL || (rolls != NULL && p > rolls))
		return NULL;
	return p + n;
}

/* Put the hashes hex names back into dice log *log where refs says they
 * were left out; false if one has no place or no value. */
static bool
store_wpack_put_refs(char **log, unsigned refs,
    char hex[STORE_WPACK_NREFS][65])
{
	struct sbuf b;
	char *at;
	int i;

	for (i = 0; i < STORE_WPACK_NREFS; i++) {
		if (!(refs & (1u << i)))
			continue;
		if (*log == NULL || hex[i][0] == '\0' || (at =
		    store_wpack_refat(*log, store_wpack_refname[i])) == NULL ||
		    *at != '\n')
			return false;
		sbuf_init(&b);
		sbuf_add(&b, *log, (size_t)(at - *log));
		sbuf_add(&b, hex[i], 64);
		sbuf_puts(&b, at);
		free(*log);
		*log = sbuf_steal(&b);
	}
	return true;
}

/* p's dice log with the hashes hex names left out (p->refs set), when
 * it reads back as it was with them put back. */
static void
store_wpack_drop_refs(struct store_wpack *p, char hex[STORE_WPACK_NREFS][65])
{
	char *orig, *back, *at;
	unsigned refs = 0;
	int i;

	p->refs = 0;
	if (p->log == NULL)
		return;
	orig = xstrdup(p->log);
	for (i = 0; i < STORE_WPACK_NREFS; i++) {
		if (hex[i][0] == '\0' || (at = store_wpack_refat(p->log,
		    store_wpack_refname[i])) == NULL || strncmp(at, hex[i], 64)
		    != 0 || at[64] != '\n')
			continue;
		memmove(at, at + 64, strlen(at + 64) + 1);
		refs |= 1u << i;
	}
	back = xstrdup(p->log);
	if (refs != 0 && store_wpack_put_refs(&back, refs, hex) &&
	    strcmp(back, orig) == 0) {
		p->refs = refs;
		free(orig);
	} else {
		free(p->log);
		p->log = orig;
	}
	free(back);
}

/* The stored pack of window wid (malloc'ed, *n bytes), or NULL (*found
 * false) if it has none. */
static int
store_wpack_blob(struct store *st, int64_t wid, unsigned char **b, size_t *n,
    bool *found, struct hp_error *err)
{
	struct store_query q;

	*b = NULL;
	*n = 0;
	*found = false;
	/* A database not migrated yet has no packs (its rows read as
	 * ever). */
	if (store_schema_version(st) < STORE_PACK_SCHEMA)
		return HP_OK;
	if (store_query_open(&q, st, "load window pack", "SELECT data FROM "
	    "window_packs WHERE window_id = ?1", STORE_ARGS(STORE_INT(wid)),
	    err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		const void *p = sqlite3_column_blob(q.s, 0);

		*n = (size_t)sqlite3_column_bytes(q.s, 0);
		*b = xmalloc(*n + 1);
		if (*n > 0)
			memcpy(*b, p, *n);
		*found = true;
	}
	if (store_query_close(&q, err) != HP_OK) {
		free(*b);
		*b = NULL;
		*found = false;
		return HP_EDB;
	}
	return HP_OK;
}

/* The raw form of window wid's pack (malloc'ed, *len bytes), or NULL if
 * it has none; HP_EDB if it is damaged. *depth (may be NULL): how many
 * packs its dictionaries chain back (0: none); level: the calls above. */
static int
store_wpack_raw_at(struct store *st, int64_t wid, char **raw, size_t *len,
    int *depth, int level, struct hp_error *err)
{
	unsigned char *b = NULL;
	size_t n, dlen = 0;
	char *dict = NULL;
	int64_t did;
	int rc, dd = -1;
	bool found;

	*raw = NULL;
	*len = 0;
	if ((rc = store_wpack_blob(st, wid, &b, &n, &found, err)) != HP_OK ||
	    !found)
		return rc;
	/* A campaign's first pack may lean on a shared dictionary. */
	if (store_xpacked(b, n)) {
		*raw = store_xunpack(st->db, b, n, len);
		did = 0;
	} else if ((did = store_wpack_dictid(b, n)) > 0 && did != wid &&
	    level < 2 * STORE_WPACK_CHAIN) {
		if ((rc = store_wpack_raw_at(st, did, &dict, &dlen, &dd,
		    level + 1, err)) != HP_OK) {
			free(b);
			return rc;
		}
	}
	if (*raw == NULL && (did == 0 || dict != NULL))
		*raw = store_wpack_inflate(b, n, dict, dlen, len);
	free(dict);
	free(b);
	if (*raw == NULL) {
		hp_seterr(err, HP_EDB, "database: window %lld: its packed events "
		    "and dice are damaged", (long long)wid);
		return HP_EDB;
	}
	if (depth != NULL)
		*depth = did == 0 ? 0 : dd + 1;
	return HP_OK;
}

/* store_wpack_raw_at from the top. */
static int
store_wpack_raw(struct store *st, int64_t wid, char **raw, size_t *len,
    struct hp_error *err)
{
	return store_wpack_raw_at(st, wid, raw, len, NULL, 0, err);
}

/* Window wid's pack into p (set up by store_wpack_init); *found false if
 * the window is not packed. */
static int
store_wpack_load(struct store *st, int64_t wid, struct store_wpack *p,
    bool *found, struct hp_error *err)
{
	char *raw;
	size_t len;
	int rc;

	*found = false;
	if ((rc = store_wpack_raw(st, wid, &raw, &len, err)) != HP_OK ||
	    raw == NULL)
		return rc;
	if (!store_wpack_decode(raw, len, p)) {
		free(raw);
		hp_seterr(err, HP_EDB, "database: window %lld: its packed events "
		    "and dice do not read", (long long)wid);
		return HP_EDB;
	}
	free(raw);
	*found = true;
	return HP_OK;
}

/* Window wid's dice log row as stored (text uncompressed); *found false
 * if there is none, *packed true if its text is in the window's pack. */
static int
store_wpack_logrow(struct store *st, int64_t wid, char **text, char **sig,
    char **pubkey, bool *found, bool *packed, struct hp_error *err)
{
	struct store_query q;

	*text = *sig = *pubkey = NULL;
	*found = *packed = false;
	if (store_query_open(&q, st, "load dice log", "SELECT text, signature, "
	    "pubkey FROM dice_logs WHERE window_id = ?1",
	    STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	if ((*found = store_query_next(&q, err))) {
		*packed = sqlite3_column_bytes(q.s, 0) == 4 && memcmp(
		    sqlite3_column_blob(q.s, 0), STORE_PMAGIC, 4) == 0;
		*text = col_unpacked_text(q.s, 0, NULL);
		if (sqlite3_column_type(q.s, 1) != SQLITE_NULL)
			*sig = xstrdup(col_text(q.s, 1));
		if (sqlite3_column_type(q.s, 2) != SQLITE_NULL)
			*pubkey = xstrdup(col_text(q.s, 2));
	}
	if (store_query_close(&q, err) != HP_OK) {
		free(*text);
		free(*sig);
		free(*pubkey);
		*text = *sig = *pubkey = NULL;
		*found = false;
		return HP_EDB;
	}
	return HP_OK;
}

/* Pack window wid of campaign cid: its rows read, packed against *dict
 * (*dictlen bytes of window *dictwid; NULL: the window becomes the
 * campaign's dictionary, *dict and the rest set), checked to read back,
 * stored, the rows removed. Inside the caller's transaction. */
static int
store_wpack_window(struct store *st, int64_t wid,
    struct store_wpack_chain *c, struct hp_error *err)
{
	const char *dict = NULL;
	size_t dictlen = 0;
	int64_t dictwid = 0;
	int depth = 0;
	struct store_wpack p;
	char hex[STORE_WPACK_NREFS][65];
	unsigned char *blob = NULL;
	char *raw = NULL, *back = NULL;
	size_t len, blen = 0, backlen;
	bool found, packed;
	int rc;

	store_wpack_init(&p);
	if ((rc = store_events_load(st, wid, &p.ev, err)) != HP_OK ||
	    (rc = store_events_load_rolls(st, wid, &p.ev, err)) != HP_OK ||
	    (rc = store_dice_load(st, wid, &p.d, err)) != HP_OK ||
	    (rc = store_sealed_dice_load(st, wid, &p.d, err)) != HP_OK ||
	    (rc = store_wpack_logrow(st, wid, &p.log, &p.sig, &p.pubkey,
	    &found, &packed, err)) != HP_OK)
		goto out;
	if (packed) {
		hp_seterr(err, HP_EDB, "database: window %lld: dice log packed "
		    "without its pack", (long long)wid);
		rc = HP_EDB;
		goto out;
	}
	if ((rc = store_wpack_refs(st, wid, hex, err)) != HP_OK)
		goto out;
	store_wpack_drop_refs(&p, hex);
	raw = store_wpack_encode(&p, &len);
	if (c->prev != NULL && c->prevdepth < STORE_WPACK_CHAIN) {
		dict = c->prev;
		dictlen = c->prevlen;
		dictwid = c->prevwid;
		depth = c->prevdepth + 1;
	} else if (c->key != NULL) {
		dict = c->key;
		dictlen = c->keylen;
		dictwid = c->keywid;
		depth = 1;
	}
	blob = store_wpack_deflate(raw, len, dict, dictlen, dictwid, &blen);
	/* Checked: the stored form inflates to the raw form, which reads
	 * back as what gives it again. */
	if (blob == NULL || (back = store_wpack_inflate(blob, blen, dict,
	    dictlen, &backlen)) == NULL || backlen != len ||
	    memcmp(back, raw, len) != 0 || !store_wpack_same(raw, len))
		rc = HP_EDB;
	/* A campaign's first pack: against the shared dictionary of its
	 * scope when smaller (store_sdict_pack checks it reads back). */
	if (rc == HP_OK && dict == NULL) {
		unsigned char *xb;
		size_t xn;

		if ((xb = store_sdict_pack(st, wid, "window pack", 0, raw, len,
		    blen, &xn)) != NULL) {
			free(blob);
			blob = xb;
			blen = xn;
		}
	}
	if (rc != HP_OK) {
		hp_seterr(err, HP_EDB, "window %lld: packing its events and "
		    "dice failed", (long long)wid);
		rc = HP_EDB;
		goto out;
	}
	if ((rc = store_exec(st, "pack a window", "INSERT INTO window_packs "
	    "(window_id, data) VALUES (?1, ?2)", STORE_ARGS(STORE_INT(wid),
	    STORE_BLOB(blob, blen)), NULL, err)) != HP_OK ||
	    (rc = store_exec(st, "pack a window's events", "DELETE FROM events "
	    "WHERE window_id = ?1", STORE_ARGS(STORE_INT(wid)), NULL, err)) !=
	    HP_OK || (rc = store_exec(st, "pack a window's dice", "DELETE FROM "
	    "dice WHERE window_id = ?1", STORE_ARGS(STORE_INT(wid)), NULL,
	    err)) != HP_OK || (rc = store_exec(st, "pack a window's sealed dice",
	    "DELETE FROM sealed_dice WHERE window_id = ?1",
	    STORE_ARGS(STORE_INT(wid)), NULL, err)) != HP_OK ||
	    (rc = store_exec(st, "pack a window's dice log", "UPDATE dice_logs "
	    "SET text = ?2, signature = CASE WHEN signature IS NULL THEN NULL "
	    "ELSE '' END, pubkey = NULL WHERE window_id = ?1",
	    STORE_ARGS(STORE_INT(wid), STORE_BLOB(STORE_PMAGIC, 4)), NULL,
	    err)) != HP_OK)
		goto out;
	if (c->key == NULL && depth == 0) {
		c->key = xmalloc(len + 1);
		memcpy(c->key, raw, len + 1);
		c->keylen = len;
		c->keywid = wid;
	}
	free(c->prev);
	c->prev = raw;
	c->prevlen = len;
	c->prevwid = wid;
	c->prevdepth = depth;
	raw = NULL;
out:
	free(back);
	free(blob);
	free(raw);
	store_wpack_free(&p);
	return rc;
}

/* Free what c holds and set it empty. */
static void
store_wpack_chain_free(struct store_wpack_chain *c)
{
	free(c->key);
	free(c->prev);
	memset(c, 0, sizeof *c);
}

/* The dictionaries for campaign cid's next pack into c (emptied first):
 * its first pack and its last. */
static int
store_wpack_chain_load(struct store *st, int64_t cid,
    struct store_wpack_chain *c, struct hp_error *err)
{
	struct store_query q;
	int64_t first = 0, last = 0;
	int rc;

	store_wpack_chain_free(c);
	if (store_query_open(&q, st, "find a campaign's packs", "SELECT (SELECT "
	    "min(p.window_id) FROM window_packs p JOIN windows w ON w.id = "
	    "p.window_id WHERE w.campaign_id = ?1 AND (substr(p.data, 9, 8) = "
	    "x'0000000000000000' OR substr(p.data, 1, 4) = x'00485058')), "
	    "(SELECT max(p.window_id) FROM window_packs "
	    "p JOIN windows w ON w.id = p.window_id WHERE w.campaign_id = ?1)",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		first = sqlite3_column_int64(q.s, 0);
		last = sqlite3_column_int64(q.s, 1);
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	if (first > 0) {
		if ((rc = store_wpack_raw(st, first, &c->key, &c->keylen,
		    err)) != HP_OK)
			return rc;
		c->keywid = first;
	}
	if (last > 0) {
		if ((rc = store_wpack_raw_at(st, last, &c->prev, &c->prevlen,
		    &c->prevdepth, 0, err)) != HP_OK) {
			store_wpack_chain_free(c);
			return rc;
		}
		c->prevwid = last;
	}
	return HP_OK;
}

/* Pack every resolved window resolved a day or more before now and not
 * packed yet (store_compact, inside its transaction); *packed: how many. */
static int
store_wpack_old(struct store *st, long now, int64_t *packed,
    struct hp_error *err)
{
	struct store_query q;
	struct store_wpack_chain c;
	int64_t (*v)[2] = NULL, cid = 0;
	size_t n = 0, cap = 0, i;
	int rc = HP_OK;

	*packed = 0;
	if (store_schema_version(st) < STORE_PACK_SCHEMA)
		return HP_OK;
	if (store_query_open(&q, st, "windows to pack", "SELECT w.id, "
	    "w.campaign_id FROM windows w WHERE w.state = 'resolved' AND "
	    "w.resolved_at < strftime('%Y-%m-%dT%H:%M:%SZ', ?1, 'unixepoch', "
	    "'-1 day') AND NOT EXISTS (SELECT 1 FROM window_packs p WHERE "
	    "p.window_id = w.id) ORDER BY w.campaign_id, w.id",
	    STORE_ARGS(STORE_INT(now)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[n][0] = sqlite3_column_int64(q.s, 0);
		v[n++][1] = sqlite3_column_int64(q.s, 1);
	}
	if (store_query_close(&q, err) != HP_OK) {
		free(v);
		return HP_EDB;
	}
	memset(&c, 0, sizeof c);
	for (i = 0; i < n && rc == HP_OK; i++) {
		if (i == 0 || v[i][1] != cid) {
			cid = v[i][1];
			if ((rc = store_wpack_chain_load(st, cid, &c, err)) !=
			    HP_OK)
				break;
		}
		if ((rc = store_wpack_window(st, v[i][0], &c, err)) == HP_OK)
			(*packed)++;
		if (rc == HP_OK)
			rc = store_orders_shrink(st, v[i][0], err);
		/* Tests: the process dies with windows packed, uncommitted
		 * (tests/e2e/storage.sh). */
		if (getenv("HEXPOST_TEST_CRASH_IN_PACK") != NULL)
			abort();
	}
	store_wpack_chain_free(&c);
	free(v);
	return rc;
}

/* An event's phase and a roll's purpose are stored as a ditto (issue 17:
 * most repeat the previous row's of the same window, 25 to 60 bytes each):
 * "" when equal to the previous one (the first row's previous is ""),
 * STORE_DITTO_EMPTY for an empty one after a non-empty one, else as they
 * are. store_ditto gives the stored form of cur after prev. */
#define STORE_DITTO_EMPTY "\x01"

static const char *
store_ditto(const char *cur, const char *prev)
{
	if (strcmp(cur, prev) == 0)
		return "";
	return cur[0] == '\0' ? STORE_DITTO_EMPTY : cur;
}

/* The value of stored form s after prev (store_ditto's inverse). */
static const char *
store_unditto(const char *s, const char *prev)
{
	if (s[0] == '\0')
		return prev;
	return strcmp(s, STORE_DITTO_EMPTY) == 0 ? "" : s;
}

int
store_events_put(struct store *st, int64_t wid, const struct events *ev,
    struct hp_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < ev->n; i++) {
		const struct event *e = &ev->v[i];

		if ((rc = store_exec(st, "store event", "INSERT INTO events "
		    "(window_id, seq, step, phase, text, visible, roll) VALUES "
		    "(?1, ?2, ?3, ?4, ?5, ?6, ?7)", STORE_ARGS(STORE_INT(wid),
		    STORE_INT(e->seq), STORE_INT(e->step),
		    STORE_TEXT(store_ditto(e->phase, i > 0 ? ev->v[i - 1].phase :
		    "")), STORE_TEXT(e->text),
		    STORE_INT((int)e->visible), STORE_INT(e->roll)), NULL,
		    err)) != HP_OK)
			return rc;
	}
	return HP_OK;
}

int
store_dice_put(struct store *st, int64_t wid, const struct dice *d,
    struct hp_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < d->nlog; i++) {
		const struct dice_roll *r = &d->log[i];

		if ((rc = store_exec(st, "store roll", "INSERT INTO dice "
		    "(window_id, seq, purpose, sides, target, result) VALUES "
		    "(?1, ?2, ?3, ?4, ?5, ?6)", STORE_ARGS(STORE_INT(wid),
		    STORE_INT(r->seq), STORE_TEXT(store_ditto(r->purpose,
		    i > 0 ? d->log[i - 1].purpose : "")),
		    STORE_INT(r->sides), STORE_INT(r->target),
		    STORE_INT(r->result)), NULL, err)) != HP_OK)
			return rc;
	}
	return HP_OK;
}

int
store_dice_load(struct store *st, int64_t wid, struct dice *d,
    struct hp_error *err)
{
	struct store_query q;
	struct store_wpack p;
	bool found;
	size_t i;
	int rc;

	store_wpack_init(&p);
	if ((rc = store_wpack_load(st, wid, &p, &found, err)) != HP_OK ||
	    found) {
		for (i = 0; i < p.d.nlog; i++) {
			struct dice_roll *r = dice_log_entry(d);

			r->seq = p.d.log[i].seq;
			strlcpy_(r->purpose, p.d.log[i].purpose,
			    sizeof r->purpose);
			r->sides = p.d.log[i].sides;
			r->target = p.d.log[i].target;
			r->result = p.d.log[i].result;
		}
		store_wpack_free(&p);
		return rc;
	}
	store_wpack_free(&p);
	if (store_query_open(&q, st, "load dice", "SELECT seq, purpose, sides, "
	    "target, result FROM dice WHERE window_id = ?1 ORDER BY seq",
	    STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	size_t first = d->nlog;

	while (store_query_next(&q, err)) {
		struct dice_roll *r = dice_log_entry(d);
		size_t k = (size_t)(r - d->log);

		r->seq = sqlite3_column_int(q.s, 0);
		strlcpy_(r->purpose, store_unditto(col_text(q.s, 1), k > first ?
		    d->log[k - 1].purpose : ""), sizeof r->purpose);
		r->sides = sqlite3_column_int(q.s, 2);
		r->target = sqlite3_column_int(q.s, 3);
		r->result = sqlite3_column_int(q.s, 4);
	}
	return store_query_close(&q, err);
}

/* A report compressed against the campaign's first report of the same
 * view (issue 17: the map and the text change little from window to
 * window, so that halves it again): STORE_DMAGIC, the length (4 bytes,
 * big-endian), the dictionary report's window id (8 bytes, big-endian),
 * then a zlib stream made with that report as its preset dictionary. */
#define STORE_DMAGIC "\0HPD"
#define STORE_DHEAD 16

/* Inflate the zlib stream z (zn bytes) of want bytes, with dictionary
 * dict (dn bytes) if the stream asks for one: a malloc'ed, NUL-terminated
 * text, or NULL if it is damaged (not zlib, not want bytes, bytes after
 * the stream, or, with no_nul, a NUL inside). */
static char *
store_zinflate(const unsigned char *z, size_t zn, size_t want,
    const char *dict, size_t dn, bool no_nul)
{
	char *out = xmalloc(want + 1);
	z_stream zs;
	int rc;

	memset(&zs, 0, sizeof zs);
	if (inflateInit(&zs) != Z_OK) {
		free(out);
		return NULL;
	}
	zs.next_in = (Bytef *)(uintptr_t)z;
	zs.avail_in = (uInt)zn;
	zs.next_out = (Bytef *)out;
	zs.avail_out = (uInt)want;
	rc = inflate(&zs, Z_FINISH);
	if (rc == Z_NEED_DICT && inflateSetDictionary(&zs, (const Bytef *)dict,
	    (uInt)dn) == Z_OK)
		rc = inflate(&zs, Z_FINISH);
	if (rc != Z_STREAM_END || zs.total_out != want || zs.avail_in != 0 ||
	    (no_nul && memchr(out, '\0', want) != NULL)) {
		inflateEnd(&zs);
		free(out);
		return NULL;
	}
	inflateEnd(&zs);
	out[want] = '\0';
	return out;
}

/* Inflate the STORE_DMAGIC blob p (n bytes) with dictionary dict: a
 * malloc'ed, NUL-terminated text, or NULL if it is damaged (not zlib, not
 * the recorded length, or bytes after the stream). */
static char *
store_dunpack(const unsigned char *p, size_t n, const char *dict, size_t dn)
{
	size_t want = (size_t)p[4] << 24 | (size_t)p[5] << 16 |
	    (size_t)p[6] << 8 | (size_t)p[7];

	return store_zinflate(p + STORE_DHEAD, n - STORE_DHEAD, want, dict, dn,
	    false);
}

/* Shared dictionaries (issue 17, storebytes; migration 028). A value with
 * no earlier value of its campaign to lean on is compressed against the
 * dictionary of its scope, a row of shared_dicts: what the value is, the
 * ruleset, the scenario and the view or side ("report platoon bridge -1",
 * "orders raw platoon bridge 0"), made of the first such value the host
 * stored and kept once per host, never deleted. Games of a club are short
 * (5 to 10 windows) and begin alike, so a campaign's first report and
 * picture data, stored alone before, and each order file (0.2 to 1.3 KB,
 * compressed alone before) shrink to what differs from the scope's
 * first. The row is STORE_XMAGIC, the length (4 bytes), the dictionary's
 * tag (8 bytes: the first 8 bytes of the BLAKE2b-256 of its scope, a NUL
 * and its bytes) and a zlib stream
 * made with the dictionary as preset dictionary; reading it checks the
 * dictionary's hash. Reports and picture data of a campaign's first
 * window are stored so when written (store_vchain_put); a campaign's first
 * window pack and every order file when their window is packed
 * (store_wpack_window, store_orders_shrink, from store_compact), each
 * decoded and compared before it replaces the row. The first value of a
 * scope makes its dictionary and stays stored as it was. A database
 * before migration 028 (no table) stores and reads as before. */
#define STORE_XMAGIC "\0HPX"
#define STORE_XHEAD 16

static uint64_t store_be(const unsigned char *p, int k);

/* The tag of dictionary d (n bytes) of scope; h gets its hash: the
 * BLAKE2b-256 of the scope, a NUL and d (the same bytes may serve two
 * scopes, each its own row). */
static int64_t
store_sdict_tag(const char *scope, const char *d, size_t n,
    unsigned char h[32])
{
	crypto_generichash_state gs;

	crypto_generichash_init(&gs, NULL, 0, 32);
	crypto_generichash_update(&gs, (const unsigned char *)scope,
	    strlen(scope) + 1);
	crypto_generichash_update(&gs, (const unsigned char *)d, n);
	crypto_generichash_final(&gs, h, 32);
	return (int64_t)store_be(h, 8);
}

/* Dictionary tag of db as a malloc'ed text (*n bytes), or NULL if there
 * is none or it is damaged (its hash differs). */
static char *
store_sdict_get(sqlite3 *db, int64_t tag, size_t *n)
{
	unsigned char h[32];
	sqlite3_stmt *s;
	char *out = NULL;

	if (sqlite3_prepare_v2(db, "SELECT data, hash, scope FROM shared_dicts "
	    "WHERE tag = ?1", -1, &s, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(s, 1, tag);
	if (sqlite3_step(s) == SQLITE_ROW && (out = store_zunpack(
	    sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0),
	    n)) != NULL && (sqlite3_column_bytes(s, 1) != 32 ||
	    store_sdict_tag((const char *)sqlite3_column_text(s, 2), out, *n,
	    h) != tag ||
	    memcmp(h, sqlite3_column_blob(s, 1), 32) != 0)) {
		free(out);
		out = NULL;
	}
	sqlite3_finalize(s);
	return out;
}

/* The dictionary of scope in st's database (*tag, malloc'ed text *dict of
 * *dn bytes). If the scope has none yet, one is made of text (n bytes) in
 * the caller's transaction, and false returned: that value stays stored
 * as it was (alone), the later ones lean on it. False (nothing made) also
 * if that fails: no table (before migration 028), a database error, a tag
 * taken. */
static bool
store_sdict_for(struct store *st, const char *scope, const char *text,
    size_t n, int64_t *tag, char **dict, size_t *dn)
{
	unsigned char h[32], *z;
	sqlite3_stmt *s;
	bool have = false;
	size_t zn;
	int rc;

	*dict = NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT tag FROM shared_dicts WHERE "
	    "scope = ?1 ORDER BY tag LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*tag = sqlite3_column_int64(s, 0);
		have = true;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return false;
	if (!have) {
		if (n == 0 || n > 0xffffffffu)
			return false;
		*tag = store_sdict_tag(scope, text, n, h);
		z = store_zpack(text, n, &zn);
		if (sqlite3_prepare_v2(st->db, "INSERT OR IGNORE INTO "
		    "shared_dicts (tag, hash, scope, data) VALUES (?1, ?2, ?3, "
		    "?4)", -1, &s, NULL) != SQLITE_OK) {
			free(z);
			return false;
		}
		sqlite3_bind_int64(s, 1, *tag);
		sqlite3_bind_blob(s, 2, h, 32, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, scope, -1, SQLITE_STATIC);
		if (z != NULL)
			sqlite3_bind_blob(s, 4, z, (int)zn, SQLITE_STATIC);
		else
			sqlite3_bind_text(s, 4, text, (int)n, SQLITE_STATIC);
		(void)sqlite3_step(s);
		sqlite3_finalize(s);
		free(z);
		return false;
	}
	/* A tag taken by another dictionary (or a damaged one) reads as
	 * damaged here, and nothing is stored against it. */
	return (*dict = store_sdict_get(st->db, *tag, dn)) != NULL;
}

/* head (hn bytes) followed by p (n bytes) deflated at level 9, against
 * dict (dn bytes) when usedict: a malloc'ed blob of *outlen bytes, or NULL
 * if deflating fails or the blob is not smaller than limit. The one
 * deflater of the X, Y and E formats (their heads differ). */
static unsigned char *
store_deflate_head(const unsigned char *head, size_t hn, const char *p,
    size_t n, bool usedict, const char *dict, size_t dn, size_t limit,
    size_t *outlen)
{
	unsigned char *z;
	z_stream zs;
	size_t cap;
	int rc;

	memset(&zs, 0, sizeof zs);
	if (deflateInit(&zs, 9) != Z_OK)
		return NULL;
	cap = hn + deflateBound(&zs, (uLong)n);
	z = xmalloc(cap);
	memcpy(z, head, hn);
	zs.next_in = (Bytef *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	zs.next_out = z + hn;
	zs.avail_out = (uInt)(cap - hn);
	rc = !usedict || deflateSetDictionary(&zs, (const Bytef *)dict,
	    (uInt)dn) == Z_OK ? deflate(&zs, Z_FINISH) : Z_STREAM_ERROR;
	*outlen = hn + zs.total_out;
	deflateEnd(&zs);
	if (rc != Z_STREAM_END || *outlen >= limit) {
		free(z);
		return NULL;
	}
	return z;
}

/* p (n bytes) deflated against dictionary tag (dict, dn bytes) as a
 * malloc'ed STORE_XMAGIC blob (*outlen bytes), or NULL if that fails or is
 * not smaller than limit. */
static unsigned char *
store_xpack(const char *p, size_t n, int64_t tag, const char *dict,
    size_t dn, size_t limit, size_t *outlen)
{
	unsigned char head[STORE_XHEAD];
	int i;

	if (n > 0xffffffffu || dn > 0xffffffffu)
		return NULL;
	memcpy(head, STORE_XMAGIC, 4);
	for (i = 0; i < 4; i++)
		head[4 + i] = (unsigned char)(n >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		head[8 + i] = (unsigned char)((uint64_t)tag >> (56 - 8 * i));
	return store_deflate_head(head, sizeof head, p, n, true, dict, dn,
	    limit, outlen);
}

/* Is p (n bytes) a STORE_XMAGIC value? */
static bool
store_xpacked(const void *p, size_t n)
{
	return p != NULL && n >= STORE_XHEAD && memcmp(p, STORE_XMAGIC, 4) == 0;
}

/* The STORE_XMAGIC value p (n bytes) of db decoded: a malloc'ed,
 * NUL-terminated copy (*len bytes, may be NULL), or NULL if it or its
 * dictionary is damaged or missing. */
static char *
store_xunpack(sqlite3 *db, const unsigned char *p, size_t n, size_t *len)
{
	size_t dn, want;
	char *dict, *out;

	if (!store_xpacked(p, n) || (dict = store_sdict_get(db,
	    (int64_t)store_be(p + 8, 8), &dn)) == NULL)
		return NULL;
	want = (size_t)store_be(p + 4, 4);
	out = store_zinflate(p + STORE_XHEAD, n - STORE_XHEAD, want, dict, dn,
	    false);
	free(dict);
	if (out != NULL && len != NULL)
		*len = want;
	return out;
}

/* Value p (n bytes) of db decoded whatever its form (STORE_XMAGIC, else
 * store_zunpack): malloc'ed, NULL if damaged. */
static char *
store_anyunpack(sqlite3 *db, const unsigned char *p, size_t n, size_t *len)
{
	if (store_xpacked(p, n))
		return store_xunpack(db, p, n, len);
	return store_zunpack(p, n, len);
}

/* An order file's parsed form (the ruleset's normalised text: the file's
 * orders and templated comments) is stored, when its window is packed,
 * against its scope's dictionary (if it has one) followed by the raw file
 * of the same row, when that is smaller than against the scope's alone:
 * STORE_YMAGIC, the length (4 bytes), the dictionary's tag (8 bytes, 0:
 * none) and a zlib stream (store_orders_shrink; store_orders_current
 * reads it). */
#define STORE_YMAGIC "\0HPY"
#define STORE_YHEAD 16

/* The dictionary of a STORE_YMAGIC value: shared dictionary sd (sdn
 * bytes, may be NULL) then raw (rn bytes), malloc'ed (*n bytes). */
static char *
store_ydict(const char *sd, size_t sdn, const char *raw, size_t rn,
    size_t *n)
{
	char *d = xmalloc(sdn + rn + 1);

	if (sdn > 0)
		memcpy(d, sd, sdn);
	memcpy(d + sdn, raw, rn);
	*n = sdn + rn;
	return d;
}

/* p (n bytes) deflated against dictionary tag (sd, sdn bytes; tag 0:
 * none) and raw (rn bytes) as a malloc'ed STORE_YMAGIC blob (*outlen
 * bytes) that decodes back to p (checked), or NULL if that fails or is
 * not smaller than limit. */
static unsigned char *
store_ypack(const char *p, size_t n, int64_t tag, const char *sd,
    size_t sdn, const char *raw0, size_t rn, size_t limit, size_t *outlen)
{
	unsigned char head[STORE_YHEAD], *z;
	char *back, *raw;
	int i, rc;

	if (n > 0xffffffffu || rn == 0 || rn > 0xffffffffu)
		return NULL;
	raw = store_ydict(sd, sdn, raw0, rn, &rn);
	memcpy(head, STORE_YMAGIC, 4);
	for (i = 0; i < 4; i++)
		head[4 + i] = (unsigned char)(n >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		head[8 + i] = (unsigned char)((uint64_t)tag >> (56 - 8 * i));
	if ((z = store_deflate_head(head, sizeof head, p, n, true, raw, rn,
	    limit, outlen)) == NULL) {
		free(raw);
		return NULL;
	}
	if ((back = store_zinflate(z + STORE_YHEAD, *outlen - STORE_YHEAD, n,
	    raw, rn, false)) == NULL) {
		free(raw);
		free(z);
		return NULL;
	}
	free(raw);
	rc = memcmp(back, p, n);
	free(back);
	if (rc != 0) {
		free(z);
		return NULL;
	}
	return z;
}

/* Column i of s, an order file's parsed form, with raw (the row's raw
 * file, as read) for a STORE_YMAGIC value: malloc'ed; a value that does
 * not decode reads as its stored bytes (col_unpacked_text). */
static char *
store_orders_parsed(sqlite3_stmt *s, int i, const char *raw)
{
	const unsigned char *p = sqlite3_column_blob(s, i);
	size_t n = (size_t)sqlite3_column_bytes(s, i), sdn = 0, dn;
	char *out = NULL, *sd = NULL, *d;
	int64_t tag;

	if (p != NULL && n >= STORE_YHEAD && memcmp(p, STORE_YMAGIC, 4) == 0 &&
	    raw != NULL && ((tag = (int64_t)store_be(p + 8, 8)) == 0 ||
	    (sd = store_sdict_get(sqlite3_db_handle(s), tag, &sdn)) != NULL)) {
		d = store_ydict(sd, sdn, raw, strlen(raw), &dn);
		out = store_zinflate(p + STORE_YHEAD, n - STORE_YHEAD,
		    (size_t)store_be(p + 4, 4), d, dn, false);
		free(d);
		free(sd);
	}
	return out != NULL ? out : col_unpacked_text(s, i, NULL);
}

/* The campaign's ruleset and scenario of window wid as "RULESET SCENARIO"
 * in buf (size sz); false on a database error or no such window. */
static bool
store_sdict_scope(struct store *st, int64_t wid, char *buf, size_t sz)
{
	sqlite3_stmt *s;
	bool ok = false;

	if (sqlite3_prepare_v2(st->db, "SELECT c.ruleset, c.scenario FROM "
	    "windows w JOIN campaigns c ON c.id = w.campaign_id WHERE w.id = "
	    "?1", -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_int64(s, 1, wid);
	if (sqlite3_step(s) == SQLITE_ROW) {
		const unsigned char *r = sqlite3_column_text(s, 0);
		const unsigned char *sc = sqlite3_column_text(s, 1);

		ok = (size_t)snprintf(buf, sz, "%s %s", r ? (const char *)r :
		    "", sc ? (const char *)sc : "") < sz;
	}
	sqlite3_finalize(s);
	return ok;
}

/* Text p (n bytes) of scope what/where (window wid's campaign) compressed
 * against that scope's dictionary as a malloc'ed STORE_XMAGIC blob
 * (*outlen bytes) that decodes back to p (checked), or NULL if none is
 * smaller than limit (or there is no table). */
static unsigned char *
store_sdict_pack(struct store *st, int64_t wid, const char *what, int view,
    const char *p, size_t n, size_t limit, size_t *outlen)
{
	char where[300], scope[400];

	if (!store_sdict_scope(st, wid, where, sizeof where))
		return NULL;
	snprintf(scope, sizeof scope, "%s %s %d", what, where, view);
	return store_sdict_pack_scope(st, scope, p, n, limit, outlen);
}

/* store_sdict_pack for a scope named whole (not a window's: "sent copy
 * report"). */
static unsigned char *
store_sdict_pack_scope(struct store *st, const char *scope, const char *p,
    size_t n, size_t limit, size_t *outlen)
{
	char *dict, *back;
	unsigned char *z;
	int64_t tag;
	size_t dn, bn = 0;

	if (!store_sdict_for(st, scope, p, n, &tag, &dict, &dn))
		return NULL;
	z = store_xpack(p, n, tag, dict, dn, limit, outlen);
	free(dict);
	if (z == NULL)
		return NULL;
	back = store_xunpack(st->db, z, *outlen, &bn);
	if (back == NULL || bn != n || memcmp(back, p, n) != 0) {
		free(z);
		z = NULL;
	}
	free(back);
	return z;
}

/* Order files (raw and parsed) of packed window wid stored against the
 * dictionaries of their scope ("orders raw" or "orders parsed", the side)
 * where that is smaller, each decoded and compared first (store_compact,
 * inside its transaction). A value that does not decode stays as it is. */
static int
store_orders_shrink(struct store *st, int64_t wid, struct hp_error *err)
{
	static const char *const col[2] = { "raw", "parsed" };
	/* (Literals: prepared statements are cached by their text's
	 * address.) */
	static const char *const upd[2] = {
		"UPDATE orders SET raw = ?2 WHERE id = ?1",
		"UPDATE orders SET parsed = ?2 WHERE id = ?1",
	};
	struct store_query q;
	struct {
		int64_t id;
		int side, k;
		char *t, *raw;     /* raw: the row's raw file, for parsed */
		size_t n, sn, rn;
	} *v = NULL;
	size_t nv = 0, cap = 0, i;
	int rc = HP_OK, k;

	if (store_query_open(&q, st, "orders to shrink", "SELECT id, side_idx, "
	    "raw, parsed FROM orders WHERE window_id = ?1 ORDER BY id",
	    STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err))
		for (k = 0; k < 2; k++) {
			const unsigned char *b = sqlite3_column_blob(q.s, 2 + k);
			size_t bn = (size_t)sqlite3_column_bytes(q.s, 2 + k);
			char *t;

			if (b == NULL || store_xpacked(b, bn) || (bn >=
			    STORE_YHEAD && memcmp(b, STORE_YMAGIC, 4) == 0) ||
			    (t = store_zunpack(b, bn, &bn)) == NULL)
				continue;
			if (nv == cap) {
				cap = cap ? 2 * cap : 8;
				v = xrealloc(v, cap * sizeof *v);
			}
			v[nv].id = sqlite3_column_int64(q.s, 0);
			v[nv].side = sqlite3_column_int(q.s, 1);
			v[nv].k = k;
			v[nv].t = t;
			v[nv].n = bn;
			v[nv].raw = k == 0 ? NULL : store_anyunpack(
			    sqlite3_db_handle(q.s), sqlite3_column_blob(q.s, 2),
			    (size_t)sqlite3_column_bytes(q.s, 2), &v[nv].rn);
			v[nv++].sn = (size_t)sqlite3_column_bytes(q.s, 2 + k);
		}
	if (store_query_close(&q, err) != HP_OK)
		rc = HP_EDB;
	for (i = 0; i < nv && rc == HP_OK; i++) {
		char what[32];
		unsigned char *z;
		size_t zn;

		char where[300], scope[400], *sd = NULL;
		unsigned char *y = NULL;
		int64_t tag = 0;
		size_t sdn = 0, yn = 0;

		snprintf(what, sizeof what, "orders %s", col[v[i].k]);
		/* The parsed form against the scope's dictionary (if it has
		 * one already: looked up, not made) and the raw file. */
		if (v[i].raw != NULL && strlen(v[i].raw) == v[i].rn) {
			if (store_sdict_scope(st, wid, where, sizeof where)) {
				snprintf(scope, sizeof scope, "%s %s %d", what,
				    where, v[i].side);
				if (!store_sdict_for(st, scope, "", 0, &tag, &sd,
				    &sdn))
					tag = 0;
			}
			y = store_ypack(v[i].t, v[i].n, tag, sd, sdn, v[i].raw,
			    v[i].rn, v[i].sn, &yn);
			free(sd);
		}
		z = store_sdict_pack(st, wid, what, v[i].side, v[i].t, v[i].n,
		    v[i].sn, &zn);
		if (y != NULL) {
			if (z != NULL && zn <= yn)
				free(y);
			else {
				free(z);
				z = y;
				zn = yn;
			}
		}
		if (z == NULL)
			continue;
		rc = store_exec(st, "shrink orders", upd[v[i].k], STORE_ARGS(
		    STORE_INT(v[i].id), STORE_BLOB(z, (int)zn)), NULL, err);
		free(z);
	}
	for (i = 0; i < nv; i++) {
		free(v[i].t);
		free(v[i].raw);
	}
	free(v);
	return rc;
}

/* Reports and window pictures stored in chains (issue 17, packrep). A
 * window's report (or picture data) of a view is stored zlib-compressed
 * with a preset dictionary made of the same view's previous one of the
 * campaign (consecutive windows share most of their map and text) and,
 * for a side's view, the same window's moderator report (public picture),
 * stored first: a side sees much of what the moderator sees. The row is
 * STORE_EMAGIC, the length (4 bytes), the previous window id (8 bytes, 0:
 * none), the window id of the other view (8 bytes, 0: none), that view
 * (1 byte, signed) and the chain depth (1 byte: the longest path of
 * dictionaries behind it), then the zlib stream. A row that would be
 * deeper than STORE_CHAIN_MAX is stored against the campaign's first of
 * the view instead of the previous one (or alone; the base view's rows
 * stay a link shorter), so reading one follows paths of at most
 * STORE_CHAIN_MAX links and inflates each row on them once (a few dozen
 * at most; about 0.3 ms for a Portable Wargame report).
 * Rows of the formats before (plain, STORE_ZMAGIC, STORE_DMAGIC against
 * the campaign's first report) read as they did and count as depth 0 and
 * 1. A link to a row that is not earlier (an earlier window, or the other
 * view of the same window) or a path deeper than STORE_CHAIN_DEPTH reads
 * as damaged: no edit makes the reader loop. */
#define STORE_EMAGIC "\0HPE"
#define STORE_EHEAD 26
#define STORE_CHAIN_MAX 16
#define STORE_CHAIN_DEPTH 64

/* A moderator's report (the base view of the reports' chain) may also be
 * stored against its own window's record (issue 17, pwstore): the same
 * header under STORE_RMAGIC, the dictionary being the previous report's
 * text (if linked) followed by the window's record: each event's text and
 * a newline, in order (store_events_load), then the dice log's text
 * (store_dicelog_get), both stored in the resolution's transaction before
 * the reports and read the same before and after the window is packed.
 * Stored so when that is smaller than against the previous report alone
 * (checked to read back). An edited or damaged event, dice row, dice log
 * or pack of that window changes the record, so the report (and what is
 * stored against it: the sides' reports of the window, later moderator
 * reports on its path) reads as damaged; the audit finds the record's
 * own discrepancy first (it checks a window's dice and events before its
 * reports, and stops at the first). */
#define STORE_RMAGIC "\0HPR"

/* Forget the windows' records st keeps. */
static void
store_records_forget(struct store *st)
{
	int k;

	for (k = 0; k < st->nrec; k++) {
		free(st->rec[k].text);
		st->rec[k].text = NULL;
	}
	st->nrec = st->recnext = 0;
	st->rec_dv = st->rec_tc = -1;
}

/* The record of window wid a STORE_RMAGIC report leans on, malloc'ed
 * (*n bytes; empty if the window has no events nor dice log), or NULL if
 * it does not read (a damaged pack, a database error). */
static char *
store_window_record(struct store *st, int64_t wid, size_t *n)
{
	struct hp_error e = { 0, "" };
	char *log = NULL, *sig = NULL, *pub = NULL, *out;
	struct events ev;
	struct sbuf b;
	int64_t dv, tc = (int64_t)sqlite3_total_changes64(st->db);
	size_t i;
	int rc, k;

	/* Kept while nothing changed the database (struct store's rec). */
	if (store_data_version(st, &dv, &e) != HP_OK)
		dv = -1;
	if (dv < 0 || dv != st->rec_dv || tc != st->rec_tc)
		store_records_forget(st);
	for (k = 0; k < st->nrec; k++)
		if (st->rec[k].wid == wid) {
			out = xmalloc(st->rec[k].len + 1);
			memcpy(out, st->rec[k].text, st->rec[k].len + 1);
			*n = st->rec[k].len;
			return out;
		}
	events_init(&ev);
	if (store_events_load(st, wid, &ev, &e) != HP_OK) {
		events_free(&ev);
		return NULL;
	}
	sbuf_init(&b);
	for (i = 0; i < ev.n; i++) {
		sbuf_puts(&b, ev.v[i].text);
		sbuf_add(&b, "\n", 1);
	}
	events_free(&ev);
	rc = store_dicelog_get(st, wid, &log, &sig, &pub, &e);
	if (rc == HP_OK && log != NULL)
		sbuf_puts(&b, log);
	free(log);
	free(sig);
	free(pub);
	if (rc != HP_OK && rc != HP_ENOENT) {
		sbuf_free(&b);
		return NULL;
	}
	*n = b.len;
	out = b.buf == NULL ? xstrdup("") : sbuf_steal(&b);
	if (dv >= 0 && tc == (int64_t)sqlite3_total_changes64(st->db)) {
		if (st->nrec < STORE_RECORDS)
			k = st->nrec++;
		else {
			k = st->recnext;
			free(st->rec[k].text);
		}
		st->recnext = (k + 1) % STORE_RECORDS;
		st->rec[k].wid = wid;
		st->rec[k].len = *n;
		st->rec[k].text = xmalloc(*n + 1);
		memcpy(st->rec[k].text, out, *n + 1);
		st->rec_dv = dv;
		st->rec_tc = tc;
	}
	return out;
}

/* A table stored in chains. */
struct store_vchain {
	const char *what;
	int base;              /* the view the other views lean on */
	const char *q_row;     /* (window, view) -> stored value */
	const char *q_head;    /* (window, view) -> its first STORE_EHEAD bytes */
	const char *q_around;  /* (window, view) -> first and last earlier */
	const char *q_put;     /* (window, view, value) */
};

static const struct store_vchain store_vchain_reports = {
	"report", -1,
	"SELECT body FROM reports WHERE window_id = ?1 AND side_idx = ?2",
	"SELECT substr(body, 1, 26) FROM reports WHERE window_id = ?1 AND "
	    "side_idx = ?2",
	"SELECT min(r.window_id), max(r.window_id) FROM reports r JOIN "
	    "windows w ON w.id = r.window_id WHERE w.campaign_id = (SELECT "
	    "campaign_id FROM windows WHERE id = ?1) AND r.side_idx = ?2 AND "
	    "r.window_id < ?1",
	"INSERT INTO reports (window_id, side_idx, body) VALUES (?1, ?2, ?3)",
};

static const struct store_vchain store_vchain_pictures = {
	"picture data", -2,
	"SELECT model FROM window_pictures WHERE window_id = ?1 AND side = ?2",
	"SELECT substr(model, 1, 26) FROM window_pictures WHERE window_id = "
	    "?1 AND side = ?2",
	"SELECT min(r.window_id), max(r.window_id) FROM window_pictures r "
	    "JOIN windows w ON w.id = r.window_id WHERE w.campaign_id = "
	    "(SELECT campaign_id FROM windows WHERE id = ?1) AND r.side = ?2 "
	    "AND r.window_id < ?1",
	"INSERT OR REPLACE INTO window_pictures (window_id, side, model) "
	    "VALUES (?1, ?2, ?3)",
};

/* What a stored value's header says. */
struct store_link {
	int64_t prev;          /* dictionary: this view's earlier window */
	int64_t other;         /* and the other view's (same) window */
	int oside;
	int depth;
	bool chained;          /* STORE_DMAGIC, STORE_EMAGIC, STORE_RMAGIC */
	bool record;           /* STORE_RMAGIC: its window's record too */
};

/* Big-endian integer of k bytes at p. */
static uint64_t
store_be(const unsigned char *p, int k)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < k; i++)
		v = v << 8 | p[i];
	return v;
}

/* p (n bytes) deflated with dictionary dict (dn bytes) as a malloc'ed
 * STORE_EMAGIC blob naming its links (prev, other of view oside) and
 * depth (*outlen bytes), or NULL if that fails or is not smaller than
 * limit. */
static unsigned char *
store_edeflate(const char *p, size_t n, const char *dict, size_t dn,
    int64_t prev, int64_t other, int oside, int depth, size_t limit,
    size_t *outlen)
{
	unsigned char head[STORE_EHEAD];
	int i;

	if (n > 0xffffffffu || dn > 0xffffffffu)
		return NULL;
	memcpy(head, STORE_EMAGIC, 4);
	for (i = 0; i < 4; i++)
		head[4 + i] = (unsigned char)(n >> (24 - 8 * i));
	for (i = 0; i < 8; i++) {
		head[8 + i] = (unsigned char)((uint64_t)prev >> (56 - 8 * i));
		head[16 + i] = (unsigned char)((uint64_t)other >> (56 - 8 * i));
	}
	head[24] = (unsigned char)(signed char)oside;
	head[25] = (unsigned char)depth;
	return store_deflate_head(head, sizeof head, p, n, dn != 0, dict, dn,
	    limit, outlen);
}

/* Inflate the STORE_EMAGIC blob p (n bytes) with dictionary dict: a
 * malloc'ed, NUL-terminated text, or NULL if it is damaged. */
static char *
store_einflate(const unsigned char *p, size_t n, const char *dict, size_t dn)
{
	return store_zinflate(p + STORE_EHEAD, n - STORE_EHEAD,
	    (size_t)store_be(p + 4, 4), dict, dn, true);
}

/* Read the header of p (n bytes) into *l. */
static void
store_link_parse(const unsigned char *p, size_t n, struct store_link *l)
{
	memset(l, 0, sizeof *l);
	if (p != NULL && n >= STORE_EHEAD && (memcmp(p, STORE_EMAGIC, 4) == 0 ||
	    memcmp(p, STORE_RMAGIC, 4) == 0)) {
		l->chained = true;
		l->record = memcmp(p, STORE_RMAGIC, 4) == 0;
		l->prev = (int64_t)store_be(p + 8, 8);
		l->other = (int64_t)store_be(p + 16, 8);
		l->oside = (signed char)p[24];
		l->depth = p[25];
	} else if (p != NULL && n >= STORE_DHEAD &&
	    memcmp(p, STORE_DMAGIC, 4) == 0) {
		/* Against the campaign's first report (stored alone). */
		l->chained = true;
		l->prev = (int64_t)store_be(p + 8, 8);
		l->depth = 1;
	}
}

/* One value decoded while reading a chain (kept for the other links that
 * need it). */
struct store_memo {
	int64_t wid;
	int side;
	char *text;            /* NULL: damaged */
	size_t len;
};

struct store_memos {
	struct store_memo *m;
	size_t n, cap;
};

/* Free what ms holds. */
static void
store_memos_free(struct store_memos *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		free(ms->m[i].text);
	free(ms->m);
	memset(ms, 0, sizeof *ms);
}

/* Is (wid, side) a row allowed as a dictionary of (from, fside)? An
 * earlier window, or the base view of the same window for another view. */
static bool
store_link_ok(const struct store_vchain *c, int64_t wid, int side,
    int64_t from, int fside)
{
	return wid > 0 && (wid < from || (wid == from && side == c->base &&
	    fside != c->base));
}

/* The text of (wid, side) of chain c, its dictionaries resolved (depth:
 * links followed so far; ms: what was decoded already). A pointer into ms
 * (do not free), *len its length; NULL with *found false if there is no
 * such row (or a database error, in err), NULL with *found true if it (or
 * a row behind it) is damaged or missing. */
static const char *
store_vchain_text(struct store *st, const struct store_vchain *c, int64_t wid,
    int side, int depth, struct store_memos *ms, size_t *len, bool *found,
    struct hp_error *err)
{
	struct store_query q;
	struct store_link l;
	unsigned char *raw = NULL;
	const char *d1 = NULL, *d2 = NULL;
	char *out = NULL, *dict, *rec = NULL;
	size_t n = 0, n1 = 0, n2 = 0, rn = 0, i;
	bool f1 = true, f2 = true;

	*found = false;
	for (i = 0; i < ms->n; i++)
		if (ms->m[i].wid == wid && ms->m[i].side == side) {
			*found = true;
			*len = ms->m[i].len;
			return ms->m[i].text;
		}
	if (store_query_open(&q, st, c->what, c->q_row, STORE_ARGS(STORE_INT(wid),
	    STORE_INT(side)), err) != HP_OK)
		return NULL;
	if (store_query_next(&q, err)) {
		*found = true;
		n = (size_t)sqlite3_column_bytes(q.s, 0);
		raw = xmalloc(n + 1);
		if (n > 0)
			memcpy(raw, sqlite3_column_blob(q.s, 0), n);
		raw[n] = '\0';
	}
	if (store_query_close(&q, err) != HP_OK || !*found) {
		free(raw);
		*found = false;
		return NULL;
	}
	store_link_parse(raw, n, &l);
	if (!l.chained)
		out = store_anyunpack(st->db, raw, n, &n);
	else if (depth < STORE_CHAIN_DEPTH &&
	    (l.prev == 0 || store_link_ok(c, l.prev, side, wid, side)) &&
	    (l.other == 0 || store_link_ok(c, l.other, l.oside, wid, side))) {
		if (l.prev != 0)
			d1 = store_vchain_text(st, c, l.prev, side, depth + 1, ms,
			    &n1, &f1, err);
		if (l.other != 0)
			d2 = store_vchain_text(st, c, l.other, l.oside, depth + 1,
			    ms, &n2, &f2, err);
		/* A window's record: only a moderator's report has one. */
		if (l.record && c == &store_vchain_reports && side == c->base)
			rec = store_window_record(st, wid, &rn);
		if ((l.prev == 0 || d1 != NULL) && (l.other == 0 ||
		    d2 != NULL) && (!l.record || rec != NULL)) {
			dict = xmalloc(n1 + n2 + rn + 1);
			if (n1 > 0)
				memcpy(dict, d1, n1);
			if (n2 > 0)
				memcpy(dict + n1, d2, n2);
			if (rn > 0)
				memcpy(dict + n1 + n2, rec, rn);
			if (memcmp(raw, STORE_DMAGIC, 4) == 0)
				out = store_dunpack(raw, n, dict, n1 + n2);
			else
				out = store_einflate(raw, n, dict, n1 + n2 +
				    rn);
			free(dict);
			if (out != NULL)
				n = strlen(out);
		}
		free(rec);
	}
	free(raw);
	if (ms->n == ms->cap) {
		ms->cap = ms->cap ? 2 * ms->cap : 8;
		ms->m = xrealloc(ms->m, ms->cap * sizeof *ms->m);
	}
	ms->m[ms->n].wid = wid;
	ms->m[ms->n].side = side;
	ms->m[ms->n].text = out;
	ms->m[ms->n].len = out != NULL ? n : 0;
	ms->n++;
	*len = out != NULL ? n : 0;
	return out;
}

/* The text of (wid, side) of chain c as a malloc'ed copy; NULL with
 * *found as store_vchain_text says. */
static char *
store_vchain_get(struct store *st, const struct store_vchain *c, int64_t wid,
    int side, bool *found, struct hp_error *err)
{
	struct store_memos ms = { NULL, 0, 0 };
	const char *t;
	char *out = NULL;
	size_t n;

	if ((t = store_vchain_text(st, c, wid, side, 0, &ms, &n, found,
	    err)) != NULL) {
		out = xmalloc(n + 1);
		memcpy(out, t, n);
		out[n] = '\0';
	}
	store_memos_free(&ms);
	return out;
}

/* The depth of (wid, side) of chain c from its header: 0 alone, 1 + the
 * deepest of its dictionaries if chained; -1 if there is no row; a value
 * over STORE_CHAIN_MAX on a database error. */
static int
store_vchain_depth(struct store *st, const struct store_vchain *c, int64_t wid,
    int side, struct hp_error *err)
{
	struct store_query q;
	struct store_link l;
	bool row;

	memset(&l, 0, sizeof l);
	if (store_query_open(&q, st, c->what, c->q_head, STORE_ARGS(
	    STORE_INT(wid), STORE_INT(side)), err) != HP_OK)
		return STORE_CHAIN_MAX + 1;
	if ((row = store_query_next(&q, err)))
		store_link_parse(sqlite3_column_blob(q.s, 0),
		    (size_t)sqlite3_column_bytes(q.s, 0), &l);
	if (store_query_close(&q, err) != HP_OK)
		return STORE_CHAIN_MAX + 1;
	return row ? l.depth : -1;
}

/* body (n bytes), the moderator's report of window wid, deflated against
 * d1 (n1 bytes, the report of window prev) and the window's
 * record as a malloc'ed STORE_RMAGIC blob of that depth (*outlen bytes)
 * that reads back to body (checked), or NULL if the record is empty or
 * does not read, or the blob is not smaller than limit. */
static unsigned char *
store_rpack(struct store *st, int64_t wid, const char *body, size_t n,
    const char *d1, size_t n1, int64_t prev, int depth, size_t limit,
    size_t *outlen)
{
	unsigned char *z;
	char *rec, *dict, *back;
	size_t rn = 0;

	if ((rec = store_window_record(st, wid, &rn)) == NULL || rn == 0) {
		free(rec);
		return NULL;
	}
	dict = xmalloc(n1 + rn + 1);
	if (n1 > 0)
		memcpy(dict, d1, n1);
	memcpy(dict + n1, rec, rn);
	free(rec);
	z = store_edeflate(body, n, dict, n1 + rn, prev, 0, -1, depth, limit,
	    outlen);
	if (z != NULL) {
		memcpy(z, STORE_RMAGIC, 4);
		back = store_einflate(z, *outlen, dict, n1 + rn);
		if (back == NULL || strlen(back) != n || memcmp(back, body, n) !=
		    0) {
			free(z);
			z = NULL;
		}
		free(back);
	}
	free(dict);
	return z;
}

/* Store body as (wid, side) of chain c: against the view's previous row
 * while that is not too deep (else the campaign's first) and, for a view
 * other than c's base, the base view's row of the same window, when that
 * is smaller than compressed alone (or plain). */
static int
store_vchain_put(struct store *st, const struct store_vchain *c, int64_t wid,
    int side, const char *body, struct hp_error *err)
{
	struct store_memos ms = { NULL, 0, 0 };
	struct store_query q;
	size_t n = strlen(body), zn = 0, n1 = 0, n2 = 0, dzn;
	unsigned char *best = store_zpack(body, n, &zn), *dz;
	const char *d1 = NULL, *d2 = NULL;
	int64_t first = 0, prev = 0, other = 0;
	int dp = -1, db = -1, depth, limit, rc;
	char *dict;
	bool f;

	if (store_query_open(&q, st, c->what, c->q_around, STORE_ARGS(
	    STORE_INT(wid), STORE_INT(side)), err) != HP_OK) {
		free(best);
		return HP_EDB;
	}
	if (store_query_next(&q, err)) {
		first = sqlite3_column_int64(q.s, 0);
		prev = sqlite3_column_int64(q.s, 1);
	}
	if ((rc = store_query_close(&q, err)) != HP_OK) {
		free(best);
		return rc;
	}
	/* The base view's rows stay a link shorter, so that the other
	 * views can always lean on them. */
	limit = side == c->base ? STORE_CHAIN_MAX - 1 : STORE_CHAIN_MAX;
	if (prev > 0 && (dp = store_vchain_depth(st, c, prev, side, err)) >=
	    limit) {
		prev = first;
		dp = store_vchain_depth(st, c, prev, side, err);
	}
	if (dp < 0 || dp >= limit)
		prev = 0;
	if (side != c->base) {
		db = store_vchain_depth(st, c, wid, c->base, err);
		other = db >= 0 && db < STORE_CHAIN_MAX ? wid : 0;
	}
	if (prev != 0)
		d1 = store_vchain_text(st, c, prev, side, 0, &ms, &n1, &f, err);
	if (other != 0)
		d2 = store_vchain_text(st, c, other, c->base, 0, &ms, &n2, &f,
		    err);
	if (d1 != NULL || d2 != NULL) {
		depth = 0;
		if (d1 != NULL && dp > depth)
			depth = dp;
		if (d2 != NULL && db > depth)
			depth = db;
		depth++;
		dict = xmalloc(n1 + n2 + 1);
		if (d1 != NULL && n1 > 0)
			memcpy(dict, d1, n1);
		if (d2 != NULL && n2 > 0)
			memcpy(dict + (d1 != NULL ? n1 : 0), d2, n2);
		dz = store_edeflate(body, n, dict, (d1 != NULL ? n1 : 0) +
		    (d2 != NULL ? n2 : 0), d1 != NULL ? prev : 0, d2 != NULL ?
		    other : 0, c->base, depth, best != NULL ? zn : n, &dzn);
		free(dict);
		if (dz != NULL) {
			free(best);
			best = dz;
			zn = dzn;
		}
	}
	/* A moderator's report after the campaign's first: against the
	 * previous one and its window's record too, when smaller (and it
	 * reads back). (A campaign's first stays as it was: alone or against
	 * its scope's shared dictionary.) */
	if (c == &store_vchain_reports && side == c->base && d1 != NULL &&
	    (dz = store_rpack(st, wid, body, n, d1, n1, prev, dp + 1,
	    best != NULL ? zn : n, &dzn)) != NULL) {
		free(best);
		best = dz;
		zn = dzn;
	}
	store_memos_free(&ms);
	/* Nothing of the campaign to lean on: the scope's shared dictionary
	 * (its first value, made of this one if it has none). */
	if (d1 == NULL && d2 == NULL && (dz = store_sdict_pack(st, wid, c->what,
	    side, body, n, best != NULL ? zn : n, &dzn)) != NULL) {
		free(best);
		best = dz;
		zn = dzn;
	}
	/* (A dictionary that does not read, whatever the reason, leaves the
	 * value compressed alone: err may hold a caller's earlier error.) */
	rc = store_exec(st, c->what, c->q_put, STORE_ARGS(STORE_INT(wid),
	    STORE_INT(side), best != NULL ? STORE_BLOB(best, zn) :
	    STORE_TEXT(body)), NULL, err);
	free(best);
	return rc;
}

int
store_report_put(struct store *st, int64_t wid, int side, const char *body,
    struct hp_error *err)
{
	return store_vchain_put(st, &store_vchain_reports, wid, side, body, err);
}

char *
store_report_get(struct store *st, int64_t wid, int side,
    struct hp_error *err)
{
	static const char damaged[] = "(the stored report is damaged: it does "
	    "not uncompress)\n";
	char *out;
	bool found;

	if ((out = store_vchain_get(st, &store_vchain_reports, wid, side, &found,
	    err)) != NULL)
		return out;
	/* Damaged (or a report it is stored against is): said in its place,
	 * so the audit finds it differs and 'report --turn' shows it. */
	if (found)
		return xstrdup(damaged);
	if (err == NULL || err->code == 0)
		hp_seterr(err, HP_ENOENT, "no report for that turn and side");
	return NULL;
}

int
store_picture_put(struct store *st, int64_t wid, int side, const char *text,
    struct hp_error *err)
{
	return store_vchain_put(st, &store_vchain_pictures, wid, side, text, err);
}

char *
store_picture_get(struct store *st, int64_t wid, int side,
    struct hp_error *err)
{
	char *out;
	bool found;

	if ((out = store_vchain_get(st, &store_vchain_pictures, wid, side,
	    &found, err)) != NULL)
		return out;
	if (found)
		hp_seterr(err, HP_EINVAL, "the stored picture data of window "
		    "%lld is damaged (it does not uncompress)", (long long)wid);
	else if (err == NULL || err->code == 0)
		hp_seterr(err, HP_ENOENT, "no picture stored for window %lld",
		    (long long)wid);
	return NULL;
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
	struct store_query q;
	struct store_player *fin = NULL;
	int n = 0, nfin = 0, i;

	/* Active campaigns' players before finished ones', each by id: the
	 * rows come by id from players_key, and finished ones are put last
	 * here (issue 17: no sort in SQLite for every mail). */
	if (store_query_open(&q, st, "players by key", "SELECT p.id, "
	    "p.campaign_id, c.name, p.side_idx, p.name, p.email, p.pubkey, "
	    "p.key_id, p.moderator, c.status = 'finished' FROM players p JOIN "
	    "campaigns c ON c.id = p.campaign_id WHERE p.key_id = ?1 AND "
	    "p.active = 1 ORDER BY p.id", STORE_ARGS(STORE_TEXT(key_id)),
	    err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		if (sqlite3_column_int(q.s, 9) == 0) {
			if (n < max)
				player_from_row(q.s, &out[n]);
			n++;
			continue;
		}
		if (nfin < max) {
			fin = xrealloc(fin, (size_t)(nfin + 1) * sizeof *fin);
			player_from_row(q.s, &fin[nfin]);
		}
		nfin++;
	}
	if (store_query_close(&q, err) != HP_OK) {
		free(fin);
		return HP_EDB;
	}
	for (i = 0; i < nfin && n + i < max; i++)
		out[n + i] = fin[i];
	free(fin);
	return n + nfin;
}

int
store_player_by_key_in(struct store *st, const char *key_id,
    const char *campaign, struct store_player *out, struct hp_error *err)
{
	struct store_query q;
	int n = 0;

	if (store_query_open(&q, st, "player by key", "SELECT p.id, "
	    "p.campaign_id, c.name, p.side_idx, p.name, p.email, p.pubkey, "
	    "p.key_id, p.moderator FROM players p JOIN campaigns c ON c.id = "
	    "p.campaign_id WHERE p.key_id = ?1 AND c.name = ?2 AND p.active = "
	    "1 ORDER BY p.id LIMIT 1", STORE_ARGS(STORE_TEXT(key_id),
	    STORE_TEXT(campaign)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		player_from_row(q.s, out);
		n = 1;
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	return n;
}

int
store_keyring(struct store *st,
    void (*fn)(const char *, const char *, void *), void *arg,
    struct hp_error *err)
{
	struct store_query q;

	if (store_query_open(&q, st, "keyring", "SELECT DISTINCT key_id, "
	    "pubkey FROM players WHERE active = 1 AND key_id IS NOT NULL AND "
	    "pubkey IS NOT NULL", NULL, err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err))
		fn(col_text(q.s, 0), col_text(q.s, 1), arg);
	return store_query_close(&q, err);
}

int
store_player_set_key(struct store *st, int64_t cid, const char *name,
    const char *pubkey, const char *key_id, struct hp_error *err)
{
	return store_exec(st, "set player key", "UPDATE players SET pubkey = "
	    "?3, key_id = ?4 WHERE campaign_id = ?1 AND name = ?2",
	    STORE_ARGS(STORE_INT(cid), STORE_TEXT(name), STORE_TEXT(pubkey),
	    STORE_TEXT(key_id)), NULL, err);
}

int
store_message_seen(struct store *st, const unsigned char *hash,
    const char *message_id, bool *seen, struct hp_error *err)
{
	struct store_query q;
	bool row;

	if (store_query_open(&q, st, "message seen", "SELECT 1 FROM messages "
	    "WHERE hash = ?1 OR (?2 IS NOT NULL AND message_id = ?2) LIMIT 1",
	    STORE_ARGS(STORE_BLOB(hash, 32), STORE_TEXT(message_id)), err) !=
	    HP_OK)
		return HP_EDB;
	row = store_query_next(&q, err);
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	*seen = row;
	return HP_OK;
}

int
store_message_record(struct store *st, const unsigned char *hash,
    const char *message_id, const char *mailbox, const char *outcome,
    const char *detail, int64_t cid, int64_t player, struct hp_error *err)
{
	return store_exec(st, "record message", "INSERT INTO messages (hash, "
	    "message_id, mailbox, outcome, detail, campaign_id, player_id) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", STORE_ARGS(
	    STORE_BLOB(hash, 32), STORE_TEXT(message_id), STORE_TEXT(mailbox),
	    STORE_TEXT(outcome), STORE_TEXT(detail ? detail : ""),
	    store_arg_id(cid), store_arg_id(player)), NULL, err);
}

int
store_outbox_add(struct store *st, int64_t cid, const char *kind,
    const char *message_id, const char *rcpt, const char *envelope_from,
    const void *data, size_t len, bool *added, struct hp_error *err)
{
	int rc;

	if ((rc = store_exec(st, "queue message", "INSERT OR IGNORE INTO "
	    "outbox (message_id, campaign_id, kind, rcpt, envelope_from, data) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)", STORE_ARGS(
	    STORE_TEXT(message_id), store_arg_id(cid), STORE_TEXT(kind),
	    STORE_TEXT(rcpt), STORE_TEXT(envelope_from), STORE_BLOB(data, len)),
	    NULL, err)) != HP_OK)
		return rc;
	if (added != NULL)
		*added = store_changes(st) > 0;
	return HP_OK;
}

int
store_outbox_due(struct store *st, long now, struct store_outmsg *out,
    int max, int *n, struct hp_error *err)
{
	struct store_query q;

	*n = 0;
	if (store_query_open(&q, st, "outbox", "SELECT id, message_id, kind, "
	    "rcpt, envelope_from, data, attempts, stage FROM outbox WHERE "
	    "state = 'queued' AND next_attempt <= ?1 ORDER BY id LIMIT ?2",
	    STORE_ARGS(STORE_INT(now), STORE_INT(max)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		struct store_outmsg *m = &out[(*n)++];

		memset(m, 0, sizeof *m);
		m->id = sqlite3_column_int64(q.s, 0);
		strlcpy_(m->message_id, col_text(q.s, 1), sizeof m->message_id);
		strlcpy_(m->kind, col_text(q.s, 2), sizeof m->kind);
		strlcpy_(m->rcpt, col_text(q.s, 3), sizeof m->rcpt);
		strlcpy_(m->envelope_from, col_text(q.s, 4),
		    sizeof m->envelope_from);
		m->len = (size_t)sqlite3_column_bytes(q.s, 5);
		m->data = xmalloc(m->len + 1);
		if (m->len > 0)
			memcpy(m->data, sqlite3_column_blob(q.s, 5), m->len);
		m->data[m->len] = '\0';
		m->attempts = sqlite3_column_int(q.s, 6);
		strlcpy_(m->stage, col_text(q.s, 7), sizeof m->stage);
	}
	if (store_query_close(&q, err) != HP_OK) {
		store_outmsg_free(out, *n);
		*n = 0;
		return HP_EDB;
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
	return store_exec(st, "outbox sent", "UPDATE outbox SET state = "
	    "'sent', attempts = attempts + 1, sent_at = "
	    "strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1",
	    STORE_ARGS(STORE_INT(id)), NULL, err);
}

int
store_outbox_staged(struct store *st, int64_t id, const char *stage,
    struct hp_error *err)
{
	return store_exec(st, "outbox staged", "UPDATE outbox SET stage = ?2 "
	    "WHERE id = ?1", STORE_ARGS(STORE_INT(id), STORE_TEXT(stage)), NULL,
	    err);
}

int
store_outbox_failed(struct store *st, int64_t id, long next, const char *why,
    struct hp_error *err)
{
	return store_exec(st, "outbox failed", "UPDATE outbox SET attempts = "
	    "attempts + 1, last_error = ?3, state = CASE WHEN ?2 < 0 THEN "
	    "'failed' ELSE 'queued' END, next_attempt = CASE WHEN ?2 < 0 THEN "
	    "next_attempt ELSE ?2 END WHERE id = ?1", STORE_ARGS(STORE_INT(id),
	    STORE_INT(next), STORE_TEXT(why)), NULL, err);
}

int
store_outbox_counts(struct store *st, int counts[3], struct hp_error *err)
{
	static const char *names[3] = { "queued", "sent", "failed" };
	struct store_query q;
	int i;

	counts[0] = counts[1] = counts[2] = 0;
	if (store_query_open(&q, st, "outbox counts", "SELECT state, count(*) "
	    "FROM outbox GROUP BY state", NULL, err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err))
		for (i = 0; i < 3; i++)
			if (strcmp(col_text(q.s, 0), names[i]) == 0)
				counts[i] = sqlite3_column_int(q.s, 1);
	return store_query_close(&q, err);
}

/* audit */

int
store_ordersig_put(struct store *st, const unsigned char *hash,
    const char *sig, size_t siglen, const char *pubkey, const char *key_id,
    int64_t player, struct hp_error *err)
{
	return store_exec(st, "store order signature", "INSERT OR IGNORE INTO "
	    "order_signatures (hash, signature, pubkey, key_id, player_id) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)", STORE_ARGS(STORE_BLOB(hash, 32),
	    STORE_TEXTN(sig, siglen), STORE_TEXT(pubkey), STORE_TEXT(key_id),
	    store_arg_id(player)), NULL, err);
}

int
store_ordersig_get(struct store *st, const unsigned char *hash, char **sig,
    char **pubkey, struct hp_error *err)
{
	struct store_query q;
	bool row;
	int rc;

	*sig = *pubkey = NULL;
	if (store_query_open(&q, st, "load order signature", "SELECT "
	    "signature, pubkey FROM order_signatures WHERE hash = ?1",
	    STORE_ARGS(STORE_BLOB(hash, 32)), err) != HP_OK)
		return HP_EDB;
	if ((row = store_query_next(&q, err))) {
		*sig = xstrdup(col_text(q.s, 0));
		*pubkey = xstrdup(col_text(q.s, 1));
	}
	if ((rc = query_row_end(&q, row, err, "no signature recorded")) ==
	    HP_EDB) {
		free(*sig);
		free(*pubkey);
		*sig = *pubkey = NULL;
	}
	return rc;
}

int
store_dicelog_put(struct store *st, int64_t cid, int64_t wid,
    const char *text, const unsigned char *hash, const char *sig,
    const char *pubkey, struct hp_error *err)
{
	unsigned char *z;
	struct store_arg at = store_orders_arg(text, &z);
	int rc;

	/* Compressed like a long order file (issue 17); the signature is
	 * over the text store_dicelog_get gives back. */
	rc = store_exec(st, "store dice log", "INSERT INTO dice_logs "
	    "(window_id, campaign_id, text, hash, signature, pubkey) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, ?6)", STORE_ARGS(STORE_INT(wid),
	    STORE_INT(cid), at, STORE_BLOB(hash, 32),
	    STORE_TEXT(sig), STORE_TEXT(pubkey)), NULL, err);
	free(z);
	return rc;
}

int
store_dicelog_get(struct store *st, int64_t wid, char **text, char **sig,
    char **pubkey, struct hp_error *err)
{
	struct store_wpack p;
	bool row, packed, found;
	int rc;

	if ((rc = store_wpack_logrow(st, wid, text, sig, pubkey, &row, &packed,
	    err)) != HP_OK)
		return rc;
	if (!row) {
		hp_seterr(err, HP_ENOENT, "no dice log");
		return HP_ENOENT;
	}
	if (!packed)
		return HP_OK;
	/* Packed (store_compact): the text, signature and key as signed. */
	free(*text);
	free(*sig);
	free(*pubkey);
	*text = *sig = *pubkey = NULL;
	store_wpack_init(&p);
	if ((rc = store_wpack_load(st, wid, &p, &found, err)) == HP_OK &&
	    (!found || p.log == NULL)) {
		hp_seterr(err, HP_EDB, "database: window %lld: its dice log is "
		    "packed but not its pack", (long long)wid);
		rc = HP_EDB;
	}
	if (rc == HP_OK && p.refs != 0) {
		char hex[STORE_WPACK_NREFS][65];

		if ((rc = store_wpack_refs(st, wid, hex, err)) == HP_OK &&
		    !store_wpack_put_refs(&p.log, p.refs, hex)) {
			hp_seterr(err, HP_EDB, "database: window %lld: its packed "
			    "dice log does not read", (long long)wid);
			rc = HP_EDB;
		}
	}
	if (rc == HP_OK) {
		*text = p.log;
		*sig = p.sig;
		*pubkey = p.pubkey;
		p.log = p.sig = p.pubkey = NULL;
	}
	store_wpack_free(&p);
	return rc;
}

int
store_dicelog_last_hash(struct store *st, int64_t cid, unsigned char *hash,
    struct hp_error *err)
{
	struct store_query q;
	bool row;

	if (store_query_open(&q, st, "last dice log", "SELECT hash FROM "
	    "dice_logs WHERE campaign_id = ?1 ORDER BY window_id DESC LIMIT 1",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	if ((row = store_query_next(&q, err)))
		col_blob(q.s, 0, hash, 32);
	return query_row_end(&q, row, err, "no dice log yet");
}

int
store_windows_all(struct store *st, int64_t cid, struct store_window **out,
    int *n, struct hp_error *err)
{
	struct store_query q;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (store_query_open(&q, st, "list windows", "SELECT " WINDOW_COLS
	    " FROM windows WHERE campaign_id = ?1 ORDER BY id",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		window_row(q.s, &(*out)[(*n)++]);
	}
	if (store_query_close(&q, err) != HP_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
		return HP_EDB;
	}
	return HP_OK;
}

int
store_events_load(struct store *st, int64_t wid, struct events *ev,
    struct hp_error *err)
{
	struct store_query q;
	struct store_wpack p;
	bool found;
	size_t i;
	int rc;

	/* A packed window's events, nroll and roll_set left to
	 * store_events_load_rolls as from the rows. */
	store_wpack_init(&p);
	if ((rc = store_wpack_load(st, wid, &p, &found, err)) != HP_OK ||
	    found) {
		for (i = 0; i < p.ev.n; i++) {
			struct event *e = events_append(ev);

			*e = p.ev.v[i];
			e->nroll = 0;
			e->roll_set = 0;
		}
		store_wpack_free(&p);
		return rc;
	}
	store_wpack_free(&p);
	if (store_query_open(&q, st, "load events", "SELECT seq, step, phase, "
	    "text, visible, roll FROM events WHERE window_id = ?1 ORDER BY seq",
	    STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	size_t first = ev->n;

	while (store_query_next(&q, err)) {
		struct event *e = events_append(ev);
		size_t k = (size_t)(e - ev->v);

		e->seq = sqlite3_column_int(q.s, 0);
		e->step = sqlite3_column_int(q.s, 1);
		strlcpy_(e->phase, store_unditto(col_text(q.s, 2), k > first ?
		    ev->v[k - 1].phase : ""), sizeof e->phase);
		strlcpy_(e->text, col_text(q.s, 3), sizeof e->text);
		e->visible = (unsigned)sqlite3_column_int(q.s, 4);
		e->roll = sqlite3_column_int(q.s, 5);
	}
	return store_query_close(&q, err);
}

int
store_orders_all(struct store *st, int64_t wid, struct store_order_row **out,
    int *n, struct hp_error *err)
{
	struct store_query q;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (store_query_open(&q, st, "list orders", "SELECT id, side_idx, "
	    "coalesce(player_id, 0), source, raw, hash, current FROM orders "
	    "WHERE window_id = ?1 ORDER BY id", STORE_ARGS(STORE_INT(wid)),
	    err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		struct store_order_row *o;

		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		o = &(*out)[(*n)++];
		memset(o, 0, sizeof *o);
		o->id = sqlite3_column_int64(q.s, 0);
		o->side = sqlite3_column_int(q.s, 1);
		o->player = sqlite3_column_int64(q.s, 2);
		strlcpy_(o->source, col_text(q.s, 3), sizeof o->source);
		o->raw = col_unpacked_text(q.s, 4, NULL);
		col_blob(q.s, 5, o->hash, 32);
		o->current = sqlite3_column_int(q.s, 6) != 0;
	}
	if (store_query_close(&q, err) != HP_OK) {
		store_order_rows_free(*out, *n);
		*out = NULL;
		*n = 0;
		return HP_EDB;
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
	struct store_query q;
	bool row;

	if (store_query_open(&q, st, "load player", "SELECT side_idx, name, "
	    "coalesce(pubkey, '') FROM players WHERE id = ?1",
	    STORE_ARGS(STORE_INT(pid)), err) != HP_OK)
		return HP_EDB;
	if ((row = store_query_next(&q, err))) {
		*side = sqlite3_column_int(q.s, 0);
		strlcpy_(name, col_text(q.s, 1), namelen);
		strlcpy_(pubkey, col_text(q.s, 2), pklen);
	}
	return query_row_end(&q, row, err, "no player %lld", (long long)pid);
}


/* deadlines and moderation */

int
store_settings_get(struct store *st, int64_t cid, struct store_settings *o,
    struct hp_error *err)
{
	struct store_query q;

	memset(o, 0, sizeof *o);
	o->deadline_hours = o->remind_hours = -1;
	if (store_query_open(&q, st, "campaign settings", "SELECT "
	    "deadline_hours, remind_hours, missing, paused, paused_at FROM "
	    "campaign_settings WHERE campaign_id = ?1",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		if (sqlite3_column_type(q.s, 0) != SQLITE_NULL)
			o->deadline_hours = sqlite3_column_int(q.s, 0);
		if (sqlite3_column_type(q.s, 1) != SQLITE_NULL)
			o->remind_hours = sqlite3_column_int(q.s, 1);
		strlcpy_(o->missing, col_text(q.s, 2), sizeof o->missing);
		o->paused = sqlite3_column_int(q.s, 3) != 0;
		o->paused_at = (long)sqlite3_column_int64(q.s, 4);
	}
	return store_query_close(&q, err);
}

int
store_settings_put(struct store *st, int64_t cid,
    const struct store_settings *o, struct hp_error *err)
{
	return store_exec(st, "save campaign settings", "INSERT OR REPLACE "
	    "INTO campaign_settings (campaign_id, deadline_hours, "
	    "remind_hours, missing, paused, paused_at) VALUES (?1, ?2, ?3, ?4, "
	    "?5, ?6)", STORE_ARGS(STORE_INT(cid), o->deadline_hours >= 0 ?
	    STORE_INT(o->deadline_hours) : STORE_NULL, o->remind_hours >= 0 ?
	    STORE_INT(o->remind_hours) : STORE_NULL,
	    STORE_TEXT(o->missing[0] ? o->missing : NULL),
	    STORE_INT(o->paused), o->paused ? STORE_INT(o->paused_at) :
	    STORE_NULL), NULL, err);
}

int
store_quarantine_get(struct store *st, const char *name,
    struct store_quarantine *q, struct hp_error *err)
{
	struct store_query sq;

	memset(q, 0, sizeof *q);
	if (store_query_open(&sq, st, "campaign quarantine", "SELECT q.since, "
	    "q.error FROM campaign_quarantine q JOIN campaigns c ON c.id = "
	    "q.campaign_id WHERE c.name = ?1", STORE_ARGS(STORE_TEXT(name)),
	    err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&sq, err)) {
		q->on = true;
		q->since = (long)sqlite3_column_int64(sq.s, 0);
		strlcpy_(q->error, col_text(sq.s, 1), sizeof q->error);
	}
	return store_query_close(&sq, err);
}

int
store_quarantine_put(struct store *st, int64_t cid, long since,
    const char *error, struct hp_error *err)
{
	return store_exec(st, "quarantine a campaign", "INSERT OR REPLACE INTO "
	    "campaign_quarantine (campaign_id, since, error) VALUES (?1, ?2, "
	    "?3)", STORE_ARGS(STORE_INT(cid), STORE_INT(since),
	    STORE_TEXT(error)), NULL, err);
}

int
store_quarantine_clear(struct store *st, int64_t cid, bool *was,
    struct hp_error *err)
{
	int rc;

	rc = store_exec(st, "lift a quarantine", "DELETE FROM "
	    "campaign_quarantine WHERE campaign_id = ?1",
	    STORE_ARGS(STORE_INT(cid)), NULL, err);
	*was = rc == HP_OK && store_changes(st) > 0;
	return rc;
}

int
store_clock_get(struct store *st, int64_t wid, struct store_clock *c,
    struct hp_error *err)
{
	struct store_query q;

	memset(c, 0, sizeof *c);
	if (store_query_open(&q, st, "window clock", "SELECT opened, "
	    "fixed_deadline, extended, reminded, held FROM window_clock WHERE "
	    "window_id = ?1", STORE_ARGS(STORE_INT(wid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		c->have = true;
		c->opened = (long)sqlite3_column_int64(q.s, 0);
		c->fixed = (long)sqlite3_column_int64(q.s, 1);
		c->extended = (long)sqlite3_column_int64(q.s, 2);
		c->reminded = sqlite3_column_int(q.s, 3) != 0;
		c->held = sqlite3_column_int(q.s, 4) != 0;
	}
	return store_query_close(&q, err);
}

int
store_clock_put(struct store *st, int64_t wid, const struct store_clock *c,
    struct hp_error *err)
{
	return store_exec(st, "save window clock", "INSERT OR REPLACE INTO "
	    "window_clock (window_id, opened, fixed_deadline, extended, "
	    "reminded, held) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	    STORE_ARGS(STORE_INT(wid), STORE_INT(c->opened),
	    store_arg_id(c->fixed), STORE_INT(c->extended),
	    STORE_INT(c->reminded), STORE_INT(c->held)), NULL, err);
}

int
store_command_add(struct store *st, int64_t cid, int64_t player,
    const char *nonce, const char *command, const char *detail, long at,
    int64_t *id, struct hp_error *err)
{
	int rc, src;

	rc = store_exec(st, "record command", "INSERT INTO commands "
	    "(campaign_id, player_id, nonce, command, detail, at) VALUES (?1, "
	    "?2, ?3, ?4, ?5, ?6)", STORE_ARGS(STORE_INT(cid),
	    store_arg_id(player), STORE_TEXT(nonce), STORE_TEXT(command),
	    STORE_TEXT(detail ? detail : ""), STORE_INT(at)), &src, err);
	if (rc != HP_OK) {
		if (src == SQLITE_CONSTRAINT_UNIQUE) {
			hp_seterr(err, HP_ESTATE, "this command file (nonce %s) "
			    "was used before", nonce ? nonce : "");
			return HP_ESTATE;
		}
		return rc;
	}
	if (id != NULL)
		*id = store_last_id(st);
	return HP_OK;
}

int
store_players_of(struct store *st, int64_t cid, struct store_player *out,
    int max, struct hp_error *err)
{
	struct store_query q;
	int n = 0;

	if (store_query_open(&q, st, "players of campaign", "SELECT p.id, "
	    "p.campaign_id, c.name, p.side_idx, p.name, p.email, "
	    "coalesce(p.pubkey, ''), coalesce(p.key_id, ''), p.moderator FROM "
	    "players p JOIN campaigns c ON c.id = p.campaign_id WHERE "
	    "p.campaign_id = ?1 AND p.active = 1 ORDER BY p.side_idx, p.name",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		if (n < max)
			player_from_row(q.s, &out[n]);
		n++;
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	return n;
}

int
store_player_retire(struct store *st, int64_t player, struct hp_error *err)
{
	return store_exec(st, "retire player", "UPDATE players SET active = 0, "
	    "name = name || ' (replaced, ' || id || ')' WHERE id = ?1 AND "
	    "active = 1", STORE_ARGS(STORE_INT(player)), NULL, err);
}

/* imap: mail fetched over IMAP, and the outbox listing (see store.h). */

int
store_imap_mailbox(struct store *st, const char *url, int64_t *id,
    uint32_t *uidvalidity, uint32_t *last_uid, struct hp_error *err)
{
	struct store_query q;
	bool row;

	if (store_exec(st, "imap mailbox", "INSERT INTO imap_mailboxes (url) "
	    "VALUES (?1) ON CONFLICT (url) DO NOTHING",
	    STORE_ARGS(STORE_TEXT(url)), NULL, err) != HP_OK)
		return HP_EDB;
	if (store_query_open(&q, st, "imap mailbox", "SELECT id, uidvalidity, "
	    "last_uid FROM imap_mailboxes WHERE url = ?1",
	    STORE_ARGS(STORE_TEXT(url)), err) != HP_OK)
		return HP_EDB;
	if ((row = store_query_next(&q, err))) {
		*id = sqlite3_column_int64(q.s, 0);
		*uidvalidity = (uint32_t)sqlite3_column_int64(q.s, 1);
		*last_uid = (uint32_t)sqlite3_column_int64(q.s, 2);
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	if (!row)
		return dberr(st, err, "imap mailbox");
	return HP_OK;
}

int
store_imap_reset(struct store *st, int64_t id, uint32_t uidvalidity,
    struct hp_error *err)
{
	if (store_begin(st, err) != HP_OK)
		return HP_EDB;
	if (store_exec(st, "imap reset", "UPDATE imap_mailboxes SET "
	    "uidvalidity = ?2, last_uid = 0 WHERE id = ?1",
	    STORE_ARGS(STORE_INT(id), STORE_INT(uidvalidity)), NULL, err) !=
	    HP_OK ||
	    store_exec(st, "imap reset", "DELETE FROM imap_spool WHERE "
	    "mailbox_id = ?1 AND uidvalidity <> ?2", STORE_ARGS(STORE_INT(id),
	    STORE_INT(uidvalidity)), NULL, err) != HP_OK) {
		store_rollback(st);
		return HP_EDB;
	}
	return store_commit(st, err);
}

int
store_imap_spooled(struct store *st, int64_t id, uint32_t uidvalidity,
    const uint32_t *uids, size_t n, uint32_t last_uid, struct hp_error *err)
{
	size_t i;

	if (store_begin(st, err) != HP_OK)
		return HP_EDB;
	for (i = 0; i < n; i++)
		if (store_exec(st, "imap spooled", "INSERT INTO imap_spool "
		    "(mailbox_id, uidvalidity, uid) VALUES (?1, ?2, ?3) ON "
		    "CONFLICT DO NOTHING", STORE_ARGS(STORE_INT(id),
		    STORE_INT(uidvalidity), STORE_INT(uids[i])), NULL, err) !=
		    HP_OK)
			goto fail;
	if (store_exec(st, "imap last uid", "UPDATE imap_mailboxes SET "
	    "last_uid = max(last_uid, ?3) WHERE id = ?1 AND uidvalidity = ?2",
	    STORE_ARGS(STORE_INT(id), STORE_INT(uidvalidity),
	    STORE_INT(last_uid)), NULL, err) != HP_OK)
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
	struct store_query q;

	if (store_query_open(&q, st, "imap pending", "SELECT uidvalidity, uid "
	    "FROM imap_spool WHERE mailbox_id = ?1 ORDER BY uidvalidity, uid",
	    STORE_ARGS(STORE_INT(id)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err))
		fn((uint32_t)sqlite3_column_int64(q.s, 0),
		    (uint32_t)sqlite3_column_int64(q.s, 1), arg);
	return store_query_close(&q, err);
}

int
store_imap_any_pending(struct store *st, int64_t id, bool *any,
    struct hp_error *err)
{
	struct store_query q;

	*any = false;
	if (store_query_open(&q, st, "imap pending", "SELECT 1 FROM imap_spool "
	    "WHERE mailbox_id = ?1 LIMIT 1", STORE_ARGS(STORE_INT(id)), err) !=
	    HP_OK)
		return HP_EDB;
	*any = store_query_next(&q, err);
	return store_query_close(&q, err);
}

int
store_imap_forget(struct store *st, int64_t id, uint32_t uidvalidity,
    const uint32_t *uids, size_t n, struct hp_error *err)
{
	size_t i;

	if (store_begin(st, err) != HP_OK)
		return HP_EDB;
	for (i = 0; i < n; i++)
		if (store_exec(st, "imap forget", "DELETE FROM imap_spool WHERE "
		    "mailbox_id = ?1 AND uidvalidity = ?2 AND uid = ?3",
		    STORE_ARGS(STORE_INT(id), STORE_INT(uidvalidity),
		    STORE_INT(uids[i])), NULL, err) != HP_OK) {
			store_rollback(st);
			return HP_EDB;
		}
	return store_commit(st, err);
}

int
store_outbox_list(struct store *st, bool all,
    void (*fn)(const struct store_outbox_row *, void *), void *arg,
    struct hp_error *err)
{
	struct store_outbox_row r;
	struct store_query q;

	if (store_query_open(&q, st, "outbox list", "SELECT id, message_id, "
	    "kind, rcpt, state, attempts, next_attempt, last_error, created_at "
	    "FROM outbox WHERE state = 'failed' OR (state = 'queued' AND (?1 OR "
	    "attempts > 0)) ORDER BY id", STORE_ARGS(STORE_INT(all)), err) !=
	    HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		memset(&r, 0, sizeof r);
		r.id = sqlite3_column_int64(q.s, 0);
		strlcpy_(r.message_id, col_text(q.s, 1), sizeof r.message_id);
		strlcpy_(r.kind, col_text(q.s, 2), sizeof r.kind);
		strlcpy_(r.rcpt, col_text(q.s, 3), sizeof r.rcpt);
		strlcpy_(r.state, col_text(q.s, 4), sizeof r.state);
		r.attempts = sqlite3_column_int(q.s, 5);
		r.next_attempt = (long)sqlite3_column_int64(q.s, 6);
		strlcpy_(r.last_error, col_text(q.s, 7), sizeof r.last_error);
		strlcpy_(r.created_at, col_text(q.s, 8), sizeof r.created_at);
		fn(&r, arg);
	}
	return store_query_close(&q, err);
}

/* integration: what the audit needs from moderation and key history. */

int
store_ordersig_player(struct store *st, const unsigned char *hash,
    int64_t *player, struct hp_error *err)
{
	struct store_query q;

	*player = 0;
	if (store_query_open(&q, st, "order signature's player", "SELECT "
	    "coalesce(player_id, 0) FROM order_signatures WHERE hash = ?1",
	    STORE_ARGS(STORE_BLOB(hash, 32)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err))
		*player = sqlite3_column_int64(q.s, 0);
	return store_query_close(&q, err);
}

int
store_command_count(struct store *st, int64_t cid, const char *verb,
    int *count, char *arg, size_t arglen, struct hp_error *err)
{
	struct store_query q;
	size_t n = strlen(verb);

	*count = 0;
	if (arglen > 0)
		arg[0] = '\0';
	if (store_query_open(&q, st, "commands of campaign", "SELECT command "
	    "FROM commands WHERE campaign_id = ?1 AND (command = ?2 OR "
	    "substr(command, 1, ?3) = ?2 || ' ') ORDER BY id",
	    STORE_ARGS(STORE_INT(cid), STORE_TEXT(verb), STORE_INT(n + 1)),
	    err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		const char *c = col_text(q.s, 0);

		(*count)++;
		if (arglen > 0)
			strlcpy_(arg, c[n] == ' ' ? c + n + 1 : "", arglen);
	}
	return store_query_close(&q, err);
}

int
store_player_active(struct store *st, int64_t pid, bool *active,
    struct hp_error *err)
{
	struct store_query q;
	bool row;

	*active = false;
	if (store_query_open(&q, st, "player active", "SELECT active FROM "
	    "players WHERE id = ?1", STORE_ARGS(STORE_INT(pid)), err) != HP_OK)
		return HP_EDB;
	if ((row = store_query_next(&q, err)))
		*active = sqlite3_column_int(q.s, 0) != 0;
	return query_row_end(&q, row, err, "no player %lld", (long long)pid);
}

/* key rotation */

int
store_rotation_add(struct store *st, const struct store_rotation *r,
    struct hp_error *err)
{
	return store_exec(st, "record key rotation", "INSERT INTO key_rotations "
	    "(seq, statement, signature, countersignature, old_key_id, "
	    "new_key_id, old_pubkey, new_pubkey, created_at) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6, ?7, ?8, ?9)", STORE_ARGS(STORE_INT(r->seq),
	    STORE_TEXT(r->statement), STORE_TEXT(r->signature),
	    STORE_TEXT(r->countersignature), STORE_TEXT(r->old_key_id),
	    STORE_TEXT(r->new_key_id), STORE_TEXT(r->old_pubkey),
	    STORE_TEXT(r->new_pubkey), STORE_INT(r->created_at)), NULL, err);
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
	struct store_query q;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (store_query_open(&q, st, "key rotations", "SELECT seq, statement, "
	    "signature, countersignature, old_key_id, new_key_id, old_pubkey, "
	    "new_pubkey, created_at FROM key_rotations ORDER BY seq", NULL,
	    err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4;
			v = xrealloc(v, (size_t)cap * sizeof *v);
		}
		r = &v[(*n)++];
		memset(r, 0, sizeof *r);
		r->seq = sqlite3_column_int(q.s, 0);
		r->statement = xstrdup(col_text(q.s, 1));
		r->signature = xstrdup(col_text(q.s, 2));
		r->countersignature = xstrdup(col_text(q.s, 3));
		strlcpy_(r->old_key_id, col_text(q.s, 4), sizeof r->old_key_id);
		strlcpy_(r->new_key_id, col_text(q.s, 5), sizeof r->new_key_id);
		r->old_pubkey = xstrdup(col_text(q.s, 6));
		r->new_pubkey = xstrdup(col_text(q.s, 7));
		r->created_at = (long)sqlite3_column_int64(q.s, 8);
	}
	if (store_query_close(&q, err) != HP_OK) {
		store_rotations_free(v, *n);
		*n = 0;
		return HP_EDB;
	}
	*out = v;
	return HP_OK;
}

int
store_rotation_recipients(struct store *st, struct store_player **out,
    int *n, struct hp_error *err)
{
	struct store_player *v = NULL, *p;
	struct store_query q;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (store_query_open(&q, st, "players to tell of a key rotation",
	    "SELECT p.id, c.id, c.name, p.side_idx, p.name, p.email FROM "
	    "players p JOIN campaigns c ON c.id = p.campaign_id WHERE p.active "
	    "= 1 AND c.status != 'finished' ORDER BY c.name, p.side_idx, "
	    "p.name", NULL, err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			v = xrealloc(v, (size_t)cap * sizeof *v);
		}
		p = &v[(*n)++];
		memset(p, 0, sizeof *p);
		p->id = sqlite3_column_int64(q.s, 0);
		p->campaign_id = sqlite3_column_int64(q.s, 1);
		strlcpy_(p->campaign, col_text(q.s, 2), sizeof p->campaign);
		p->side = sqlite3_column_int(q.s, 3);
		strlcpy_(p->name, col_text(q.s, 4), sizeof p->name);
		strlcpy_(p->email, col_text(q.s, 5), sizeof p->email);
	}
	if (store_query_close(&q, err) != HP_OK) {
		free(v);
		*n = 0;
		return HP_EDB;
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
	struct store_query q;
	bool row;

	if (store_query_open(&q, st, "message seen", "SELECT 1 FROM messages "
	    "WHERE hash = ?1 OR (?2 IS NOT NULL AND message_id = ?2 AND "
	    "(content_hash IS NULL OR content_hash = ?3)) LIMIT 1",
	    STORE_ARGS(STORE_BLOB(hash, 32), STORE_TEXT(message_id),
	    STORE_BLOB(content_hash, 32)), err) != HP_OK)
		return HP_EDB;
	row = store_query_next(&q, err);
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	*seen = row;
	return HP_OK;
}

/* Record a message's body hash (store.h). */
int
store_message_set_content(struct store *st, const unsigned char *hash,
    const unsigned char *content_hash, struct hp_error *err)
{
	return store_exec(st, "message content hash", "UPDATE messages SET "
	    "content_hash = ?2 WHERE hash = ?1", STORE_ARGS(STORE_BLOB(hash,
	    32), STORE_BLOB(content_hash, 32)), NULL, err);
}

/* Is email an active player's address (store.h)? */
int
store_email_registered(struct store *st, const char *email, bool *yes,
    struct hp_error *err)
{
	struct store_query q;
	bool row;

	if (store_query_open(&q, st, "registered address", "SELECT 1 FROM "
	    "players WHERE active = 1 AND email = ?1 COLLATE NOCASE LIMIT 1",
	    STORE_ARGS(STORE_TEXT(email)), err) != HP_OK)
		return HP_EDB;
	row = store_query_next(&q, err);
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	*yes = row;
	return HP_OK;
}

/* Every order file of a campaign to fn (store.h). */
int
store_orders_each(struct store *st, int64_t cid,
    void (*fn)(const char *raw, size_t len, const unsigned char *hash,
    void *arg), void *arg, struct hp_error *err)
{
	struct store_query q;

	if (store_query_open(&q, st, "order files of a campaign", "SELECT "
	    "o.raw, o.hash FROM orders o JOIN windows w ON w.id = o.window_id "
	    "WHERE w.campaign_id = ?1 AND o.source != 'opponent' ORDER BY o.id",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		size_t len;
		char *raw = col_unpacked_text(q.s, 0, &len);

		if (sqlite3_column_bytes(q.s, 1) == 32)
			fn(raw, len, sqlite3_column_blob(q.s, 1), arg);
		free(raw);
	}
	return store_query_close(&q, err);
}

/* May a stranger get a short answer now; record it (store.h). */
int
store_stranger_answer(struct store *st, const char *address, long now,
    long period, bool *may, struct hp_error *err)
{
	struct store_query q;
	bool row;

	*may = false;
	if (store_query_open(&q, st, "stranger answers", "SELECT last_at FROM "
	    "stranger_answers WHERE address = ?1",
	    STORE_ARGS(STORE_TEXT(address)), err) != HP_OK)
		return HP_EDB;
	row = store_query_next(&q, err);
	*may = q.rc == HP_OK && (!row ||
	    now - (long)sqlite3_column_int64(q.s, 0) >= period);
	if (store_query_close(&q, err) != HP_OK) {
		*may = false;
		return HP_EDB;
	}
	if (*may)
		return store_exec(st, "stranger answers", "INSERT INTO "
		    "stranger_answers (address, last_at) VALUES (?1, ?2) ON "
		    "CONFLICT (address) DO UPDATE SET last_at = ?2, suppressed "
		    "= 0", STORE_ARGS(STORE_TEXT(address), STORE_INT(now)),
		    NULL, err);
	return store_exec(st, "stranger answers", "UPDATE stranger_answers SET "
	    "suppressed = suppressed + 1 WHERE address = ?1",
	    STORE_ARGS(STORE_TEXT(address)), NULL, err);
}

int
store_campaign_set_scenario(struct store *st, int64_t cid, const char *text,
    struct hp_error *err)
{
	unsigned char h[crypto_hash_sha256_BYTES];
	char hex[2 * crypto_hash_sha256_BYTES + 1];

	if (text != NULL) {
		crypto_hash_sha256(h, (const unsigned char *)text,
		    strlen(text));
		sodium_bin2hex(hex, sizeof hex, h, sizeof h);
	}
	return store_exec(st, "save the scenario", "UPDATE campaigns SET "
	    "scenario_text = ?2, scenario_sha256 = ?3 WHERE id = ?1",
	    STORE_ARGS(STORE_INT(cid), STORE_TEXT(text),
	    STORE_TEXT(text != NULL ? hex : NULL)), NULL, err);
}

int
store_campaign_scenario(struct store *st, int64_t cid, char **text,
    struct hp_error *err)
{
	struct store_query q;

	*text = NULL;
	if (store_query_open(&q, st, "load the scenario", "SELECT "
	    "scenario_text FROM campaigns WHERE id = ?1",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err) &&
	    sqlite3_column_type(q.s, 0) != SQLITE_NULL)
		*text = xstrdup(col_text(q.s, 0));
	if (store_query_close(&q, err) != HP_OK) {
		free(*text);
		*text = NULL;
		return HP_EDB;
	}
	return HP_OK;
}

/* server faults (migration 011) */

int
store_fault_put(struct store *st, const char *kind, long since,
    const char *error, bool *added, struct hp_error *err)
{
	int rc;

	*added = false;
	rc = store_exec(st, "record a server fault", "INSERT OR IGNORE INTO "
	    "server_faults (kind, since, error) VALUES (?1, ?2, ?3)",
	    STORE_ARGS(STORE_TEXT(kind), STORE_INT(since), STORE_TEXT(error)),
	    NULL, err);
	*added = rc == HP_OK && store_changes(st) > 0;
	return rc;
}

int
store_fault_clear(struct store *st, const char *kind, bool *was,
    struct hp_error *err)
{
	int rc;

	*was = false;
	rc = store_exec(st, "clear a server fault", "DELETE FROM server_faults "
	    "WHERE kind = ?1", STORE_ARGS(STORE_TEXT(kind)), NULL, err);
	*was = rc == HP_OK && store_changes(st) > 0;
	return rc;
}

int
store_moderators(struct store *st,
    void (*fn)(const char *email, int64_t cid, void *), void *arg,
    struct hp_error *err)
{
	struct store_query q;

	if (store_query_open(&q, st, "moderators", "SELECT lower(p.email), "
	    "min(p.campaign_id) FROM players p JOIN campaigns c ON c.id = "
	    "p.campaign_id WHERE p.moderator = 1 AND p.active = 1 AND c.status "
	    "<> 'finished' GROUP BY lower(p.email) ORDER BY 2, 1", NULL, err) !=
	    HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err))
		fn(col_text(q.s, 0), sqlite3_column_int64(q.s, 1), arg);
	return store_query_close(&q, err);
}

int
store_outbox_held(struct store *st, int64_t id, const char *why,
    struct hp_error *err)
{
	return store_exec(st, "outbox held", "UPDATE outbox SET last_error = ?2 "
	    "WHERE id = ?1", STORE_ARGS(STORE_INT(id), STORE_TEXT(why)), NULL,
	    err);
}

int
store_outbox_stage_used(struct store *st, const char *stage, bool *used,
    struct hp_error *err)
{
	struct store_query q;

	*used = false;
	if (store_query_open(&q, st, "outbox stage", "SELECT 1 FROM outbox "
	    "WHERE stage = ?1 LIMIT 1", STORE_ARGS(STORE_TEXT(stage)), err) !=
	    HP_OK)
		return HP_EDB;
	*used = store_query_next(&q, err);
	return store_query_close(&q, err);
}

int
store_high_water(struct store *st, int64_t *messages, int64_t *outbox,
    struct hp_error *err)
{
	struct store_query q;
	bool row;

	*messages = *outbox = 0;
	if (store_query_open(&q, st, "high water", "SELECT (SELECT "
	    "coalesce(max(id), 0) FROM messages), (SELECT coalesce(max(id), 0) "
	    "FROM outbox)", NULL, err) != HP_OK)
		return HP_EDB;
	if ((row = store_query_next(&q, err))) {
		*messages = sqlite3_column_int64(q.s, 0);
		*outbox = sqlite3_column_int64(q.s, 1);
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	if (!row)
		return dberr(st, err, "high water");
	return HP_OK;
}

int
store_chain_put(struct store *st, int64_t cid, const unsigned char *tail,
    int length, const char *statement, struct hp_error *err)
{
	return store_exec(st, "store seed chain", "UPDATE campaigns SET "
	    "chain_tail = ?2, chain_length = ?3, chain_statement = ?4, "
	    "chain_signature = NULL, chain_pubkey = NULL WHERE id = ?1",
	    STORE_ARGS(STORE_INT(cid), STORE_BLOB(tail, 32), STORE_INT(length),
	    STORE_TEXT(statement)), NULL, err);
}

int
store_chain_sign(struct store *st, int64_t cid, const char *signature,
    const char *pubkey, struct hp_error *err)
{
	return store_exec(st, "sign seed chain", "UPDATE campaigns SET "
	    "chain_signature = ?2, chain_pubkey = ?3 WHERE id = ?1",
	    STORE_ARGS(STORE_INT(cid), STORE_TEXT(signature),
	    STORE_TEXT(pubkey)), NULL, err);
}

int
store_chain_get(struct store *st, int64_t cid, struct store_chain *c,
    struct hp_error *err)
{
	struct store_query q;
	bool have = false;
	int rc;

	memset(c, 0, sizeof *c);
	if (store_query_open(&q, st, "load seed chain", "SELECT chain_tail, "
	    "chain_length, chain_statement, chain_signature, chain_pubkey FROM "
	    "campaigns WHERE id = ?1", STORE_ARGS(STORE_INT(cid)), err) !=
	    HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err) &&
	    sqlite3_column_type(q.s, 0) == SQLITE_BLOB &&
	    sqlite3_column_bytes(q.s, 0) == 32 &&
	    sqlite3_column_type(q.s, 2) != SQLITE_NULL) {
		have = true;
		memcpy(c->tail, sqlite3_column_blob(q.s, 0), 32);
		c->length = sqlite3_column_int(q.s, 1);
		c->statement = xstrdup(col_text(q.s, 2));
		if (sqlite3_column_type(q.s, 3) != SQLITE_NULL)
			c->signature = xstrdup(col_text(q.s, 3));
		if (sqlite3_column_type(q.s, 4) != SQLITE_NULL)
			c->pubkey = xstrdup(col_text(q.s, 4));
	}
	if ((rc = query_row_end(&q, have, err, "no seed chain")) == HP_EDB)
		store_chain_free(c);
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
	struct store_query q;

	*n = 0;
	if (store_query_open(&q, st, "count windows", "SELECT count(*) FROM "
	    "windows WHERE campaign_id = ?1", STORE_ARGS(STORE_INT(cid)), err) !=
	    HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err))
		*n = sqlite3_column_int(q.s, 0);
	return store_query_close(&q, err);
}

int
store_player_keys(struct store *st, int64_t cid, struct store_player **out,
    int *n, struct hp_error *err)
{
	struct store_query q;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (store_query_open(&q, st, "player keys", "SELECT id, side_idx, name, "
	    "pubkey, coalesce(key_id, '') FROM players WHERE campaign_id = ?1 "
	    "AND pubkey IS NOT NULL AND pubkey != '' ORDER BY id",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err)) {
		struct store_player *p;

		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		p = &(*out)[(*n)++];
		memset(p, 0, sizeof *p);
		p->id = sqlite3_column_int64(q.s, 0);
		p->campaign_id = cid;
		p->side = sqlite3_column_int(q.s, 1);
		strlcpy_(p->name, col_text(q.s, 2), sizeof p->name);
		strlcpy_(p->pubkey, col_text(q.s, 3), sizeof p->pubkey);
		strlcpy_(p->key_id, col_text(q.s, 4), sizeof p->key_id);
	}
	if (store_query_close(&q, err) != HP_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
		return HP_EDB;
	}
	return HP_OK;
}

int
store_window_cont_set(struct store *st, int64_t wid, int64_t of, int step,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE windows SET cont_of = ?2, cont_step = ?3 "
	    "WHERE id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int64(s, 2, of);
	sqlite3_bind_int(s, 3, step);
	return exec_done(st, s, err, "window continuation");
}

int
store_window_cont_get(struct store *st, int64_t wid, int64_t *of, int *turn,
    int *number, int *step, struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = prep(st, "SELECT o.id, o.turn, o.number, w.cont_step FROM "
	    "windows w JOIN windows o ON o.id = w.cont_of WHERE w.id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*of = sqlite3_column_int64(s, 0);
		*turn = sqlite3_column_int(s, 1);
		*number = sqlite3_column_int(s, 2);
		*step = sqlite3_column_int(s, 3);
	}
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, "window continuation");
	return rc == SQLITE_ROW ? HP_OK : HP_ENOENT;
}

int
store_standing_put(struct store *st, int64_t wid, int side, const char *raw,
    const unsigned char *hash, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO window_standing (window_id, side_idx, "
	    "raw, hash) VALUES (?1, ?2, ?3, ?4)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int(s, 2, side);
	bind_text(s, 3, raw);
	sqlite3_bind_blob(s, 4, hash, 32, SQLITE_TRANSIENT);
	return exec_done(st, s, err, "standing snapshot");
}

int
store_standing_get(struct store *st, int64_t wid,
    struct store_order out[GAME_MAX_SIDES], struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc, side;

	memset(out, 0, sizeof(struct store_order) * GAME_MAX_SIDES);
	if ((s = prep(st, "SELECT side_idx, raw, hash FROM window_standing "
	    "WHERE window_id = ?1 ORDER BY side_idx", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		side = sqlite3_column_int(s, 0);
		if (side < 0 || side >= GAME_MAX_SIDES ||
		    sqlite3_column_bytes(s, 2) != 32)
			continue;
		out[side].side = side;
		strlcpy_(out[side].source, "standing", sizeof out[side].source);
		free(out[side].raw);
		out[side].raw = xstrdup(col_text(s, 1));
		memcpy(out[side].hash, sqlite3_column_blob(s, 2), 32);
	}
	if (stmt_done(st, s) != SQLITE_OK || rc != SQLITE_DONE) {
		store_orders_free(out);
		return dberr(st, err, "standing snapshot");
	}
	return HP_OK;
}

int
store_standing_fix(struct store *st, int64_t wid, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE windows SET standing_fixed = 1 WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	return exec_done(st, s, err, "standing snapshot");
}

int
store_standing_fixed(struct store *st, int64_t wid, bool *fixed,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	int rc;

	*fixed = false;
	if ((s = prep(st, "SELECT standing_fixed FROM windows WHERE id = ?1",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*fixed = sqlite3_column_int(s, 0) != 0;
	if (stmt_done(st, s) != SQLITE_OK)
		return dberr(st, err, "standing snapshot");
	return HP_OK;
}

int
store_modkey_get(struct store *st, int64_t cid, char **pub,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	*pub = NULL;
	if ((s = prep(st, "SELECT moderator_pubkey FROM campaigns WHERE id = "
	    "?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	if (sqlite3_step(s) == SQLITE_ROW &&
	    sqlite3_column_type(s, 0) != SQLITE_NULL)
		*pub = xstrdup(col_text(s, 0));
	if (stmt_done(st, s) != SQLITE_OK) {
		free(*pub);
		*pub = NULL;
		return dberr(st, err, "load moderator key");
	}
	return HP_OK;
}

int
store_modkey_put(struct store *st, int64_t cid, const char *pub,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE campaigns SET moderator_pubkey = ?2 WHERE "
	    "id = ?1", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	bind_text(s, 2, pub);
	return exec_done(st, s, err, "register moderator key");
}

int
store_modstmt_add(struct store *st, int64_t cid, int seq,
    const char *statement, const char *signature, long at,
    struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO moderator_statements (campaign_id, seq, "
	    "statement, signature, created) VALUES (?1, ?2, ?3, ?4, ?5)",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_int(s, 2, seq);
	bind_text(s, 3, statement);
	bind_text(s, 4, signature);
	sqlite3_bind_int64(s, 5, at);
	return exec_done(st, s, err, "record moderator statement");
}

int
store_modstmt_all(struct store *st, int64_t cid, struct store_modstmt **out,
    int *n, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, cap = 0;

	*out = NULL;
	*n = 0;
	if ((s = prep(st, "SELECT seq, statement, signature FROM "
	    "moderator_statements WHERE campaign_id = ?1 ORDER BY seq",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_modstmt *m;

		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			*out = xrealloc(*out, (size_t)cap * sizeof **out);
		}
		m = &(*out)[(*n)++];
		m->seq = sqlite3_column_int(s, 0);
		m->statement = xstrdup(col_text(s, 1));
		m->signature = xstrdup(col_text(s, 2));
	}
	if (stmt_done(st, s) != SQLITE_OK || step != SQLITE_DONE) {
		store_modstmt_free(*out, *n);
		*out = NULL;
		*n = 0;
		return dberr(st, err, "load moderator statements");
	}
	return HP_OK;
}

void
store_modstmt_free(struct store_modstmt *m, int n)
{
	int i;

	for (i = 0; m != NULL && i < n; i++) {
		free(m[i].statement);
		free(m[i].signature);
	}
	free(m);
}

/* sealed dice and events citing several rolls (migration 15, view) */

int
store_sealed_set_put(struct store *st, int64_t cid, unsigned mask,
    const unsigned char *seed, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "INSERT INTO sealed_sets (campaign_id, set_mask, "
	    "seed) VALUES (?1, ?2, ?3)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_int(s, 2, (int)mask);
	sqlite3_bind_blob(s, 3, seed, 32, SQLITE_TRANSIENT);
	return exec_done(st, s, err, "store sealed set");
}

int
store_sealed_set_sign(struct store *st, int64_t cid, unsigned mask,
    const char *signature, const char *pubkey, struct hp_error *err)
{
	sqlite3_stmt *s;

	if ((s = prep(st, "UPDATE sealed_sets SET signature = ?3, pubkey = ?4 "
	    "WHERE campaign_id = ?1 AND set_mask = ?2", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	sqlite3_bind_int(s, 2, (int)mask);
	bind_text(s, 3, signature);
	bind_text(s, 4, pubkey);
	return exec_done(st, s, err, "sign sealed set");
}

int
store_sealed_sets(struct store *st, int64_t cid,
    struct store_sealed_set **out, int *n, struct hp_error *err)
{
	struct store_sealed_set *v = NULL, *e;
	sqlite3_stmt *s;
	int step, cap = 0;

	*out = NULL;
	*n = 0;
	if ((s = prep(st, "SELECT set_mask, seed, signature, pubkey FROM "
	    "sealed_sets WHERE campaign_id = ?1 ORDER BY set_mask", err)) ==
	    NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			v = xrealloc(v, (size_t)cap * sizeof *v);
		}
		e = &v[(*n)++];
		memset(e, 0, sizeof *e);
		e->mask = (unsigned)sqlite3_column_int(s, 0);
		col_blob(s, 1, e->seed, 32);
		if (sqlite3_column_type(s, 2) == SQLITE_TEXT)
			e->signature = xstrdup(col_text(s, 2));
		if (sqlite3_column_type(s, 3) == SQLITE_TEXT)
			e->pubkey = xstrdup(col_text(s, 3));
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE) {
		store_sealed_sets_free(v, *n);
		*n = 0;
		return dberr(st, err, "load sealed sets");
	}
	*out = v;
	return HP_OK;
}

void
store_sealed_sets_free(struct store_sealed_set *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(v[i].signature);
		free(v[i].pubkey);
	}
	if (v != NULL)
		sodium_memzero(v, (size_t)n * sizeof *v);
	free(v);
}

int
store_sealed_dice_put(struct store *st, int64_t wid, const struct dice *d,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t i;
	int rc;

	for (i = 0; i < d->nslog; i++) {
		const struct dice_roll *r = &d->slog[i];

		if ((s = prep(st, "INSERT INTO sealed_dice (window_id, set_mask, "
		    "seq, draw, purpose, sides, target, result) VALUES (?1, ?2, "
		    "?3, ?4, ?5, ?6, ?7, ?8)", err)) == NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, wid);
		sqlite3_bind_int(s, 2, (int)r->visible);
		sqlite3_bind_int(s, 3, r->seq);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)i + 1);
		bind_text(s, 5, r->purpose);
		sqlite3_bind_int(s, 6, r->sides);
		sqlite3_bind_int(s, 7, r->target);
		sqlite3_bind_int(s, 8, r->result);
		if ((rc = exec_done(st, s, err, "store sealed roll")) != HP_OK)
			return rc;
	}
	return HP_OK;
}

int
store_sealed_dice_load(struct store *st, int64_t wid, struct dice *d,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	struct store_wpack p;
	bool found;
	size_t i;
	int step, rc;

	store_wpack_init(&p);
	if ((rc = store_wpack_load(st, wid, &p, &found, err)) != HP_OK ||
	    found) {
		for (i = 0; i < p.d.nslog; i++) {
			struct dice_roll *r = dice_slog_entry(d);

			r->visible = p.d.slog[i].visible;
			r->seq = p.d.slog[i].seq;
			strlcpy_(r->purpose, p.d.slog[i].purpose,
			    sizeof r->purpose);
			r->sides = p.d.slog[i].sides;
			r->target = p.d.slog[i].target;
			r->result = p.d.slog[i].result;
			r->sealed = true;
		}
		store_wpack_free(&p);
		return rc;
	}
	store_wpack_free(&p);
	if ((s = prep(st, "SELECT set_mask, seq, purpose, sides, target, "
	    "result FROM sealed_dice WHERE window_id = ?1 ORDER BY draw", err))
	    == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct dice_roll *r = dice_slog_entry(d);

		r->visible = (unsigned)sqlite3_column_int(s, 0);
		r->seq = sqlite3_column_int(s, 1);
		strlcpy_(r->purpose, col_text(s, 2), sizeof r->purpose);
		r->sides = sqlite3_column_int(s, 3);
		r->target = sqlite3_column_int(s, 4);
		r->result = sqlite3_column_int(s, 5);
		r->sealed = true;
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "load sealed dice");
	return HP_OK;
}

int
store_events_put_rolls(struct store *st, int64_t wid, const struct events *ev,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	size_t i;
	int rc;

	for (i = 0; i < ev->n; i++) {
		const struct event *e = &ev->v[i];

		if (e->nroll == 0 && e->roll_set == 0)
			continue;
		if ((s = prep(st, "UPDATE events SET nroll = ?3, roll_set = ?4 "
		    "WHERE window_id = ?1 AND seq = ?2", err)) == NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, wid);
		sqlite3_bind_int(s, 2, e->seq);
		sqlite3_bind_int(s, 3, e->nroll);
		sqlite3_bind_int(s, 4, (int)e->roll_set);
		if ((rc = exec_done(st, s, err, "store event rolls")) != HP_OK)
			return rc;
	}
	return HP_OK;
}

int
store_events_load_rolls(struct store *st, int64_t wid, struct events *ev,
    struct hp_error *err)
{
	sqlite3_stmt *s;
	struct store_wpack p;
	bool found;
	size_t i, j;
	int step, rc;

	store_wpack_init(&p);
	if ((rc = store_wpack_load(st, wid, &p, &found, err)) != HP_OK ||
	    found) {
		for (j = 0; j < p.ev.n; j++) {
			if (p.ev.v[j].nroll == 0 && p.ev.v[j].roll_set == 0)
				continue;
			for (i = 0; i < ev->n; i++)
				if (ev->v[i].seq == p.ev.v[j].seq) {
					ev->v[i].nroll = p.ev.v[j].nroll;
					ev->v[i].roll_set = p.ev.v[j].roll_set;
				}
		}
		store_wpack_free(&p);
		return rc;
	}
	store_wpack_free(&p);
	if ((s = prep(st, "SELECT seq, nroll, roll_set FROM events WHERE "
	    "window_id = ?1 AND (nroll != 0 OR roll_set != 0)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, wid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		int seq = sqlite3_column_int(s, 0);

		for (i = 0; i < ev->n; i++)
			if (ev->v[i].seq == seq) {
				ev->v[i].nroll = sqlite3_column_int(s, 1);
				ev->v[i].roll_set =
				    (unsigned)sqlite3_column_int(s, 2);
			}
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "load event rolls");
	return HP_OK;
}

int
store_outbox_find(struct store *st, const char *message_id,
    struct store_sent *out, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step;

	memset(out, 0, sizeof *out);
	if ((s = prep(st, "SELECT id, coalesce(campaign_id, 0), kind, rcpt, "
	    "state, data FROM outbox WHERE message_id = ?1", err)) == NULL)
		return -HP_EDB;
	bind_text(s, 1, message_id);
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		out->id = sqlite3_column_int64(s, 0);
		out->campaign_id = sqlite3_column_int64(s, 1);
		strlcpy_(out->kind, col_text(s, 2), sizeof out->kind);
		strlcpy_(out->rcpt, col_text(s, 3), sizeof out->rcpt);
		strlcpy_(out->state, col_text(s, 4), sizeof out->state);
		/* A damaged compressed copy reads as empty. */
		if ((out->data = (unsigned char *)col_unpacked(s, 5,
		    &out->len)) == NULL) {
			out->data = (unsigned char *)xstrdup("");
			out->len = 0;
		}
	}
	stmt_done(st, s);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return -dberr(st, err, "find an outbox message");
	return step == SQLITE_ROW ? 1 : 0;
}

int
store_bounce_add(struct store *st, const unsigned char hash[32],
    const struct store_bounce *b, bool *first, struct hp_error *err)
{
	sqlite3_stmt *s;
	int step, rc;
	long before = 0;

	*first = false;
	if (b->player_id > 0) {
		if ((s = prep(st, "SELECT count(*) FROM bounces WHERE "
		    "player_id = ?1 AND rcpt = ?2 COLLATE NOCASE", err)) ==
		    NULL)
			return HP_EDB;
		sqlite3_bind_int64(s, 1, b->player_id);
		bind_text(s, 2, b->rcpt);
		if ((step = sqlite3_step(s)) == SQLITE_ROW)
			before = (long)sqlite3_column_int64(s, 0);
		stmt_done(st, s);
		if (step != SQLITE_ROW)
			return dberr(st, err, "count bounces");
	}
	if ((s = prep(st, "INSERT INTO bounces (hash, outbox_id, message_id, "
	    "campaign_id, player_id, rcpt, action, status, diagnostic, "
	    "format, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	    "?11)", err)) == NULL)
		return HP_EDB;
	sqlite3_bind_blob(s, 1, hash, 32, SQLITE_TRANSIENT);
	if (b->outbox_id > 0)
		sqlite3_bind_int64(s, 2, b->outbox_id);
	else
		sqlite3_bind_null(s, 2);
	bind_text(s, 3, b->message_id);
	if (b->campaign_id > 0)
		sqlite3_bind_int64(s, 4, b->campaign_id);
	else
		sqlite3_bind_null(s, 4);
	if (b->player_id > 0)
		sqlite3_bind_int64(s, 5, b->player_id);
	else
		sqlite3_bind_null(s, 5);
	bind_text(s, 6, b->rcpt);
	bind_text(s, 7, b->action);
	bind_text(s, 8, b->status);
	bind_text(s, 9, b->diagnostic);
	bind_text(s, 10, b->format);
	sqlite3_bind_int64(s, 11, b->at);
	if ((rc = exec_done(st, s, err, "record a bounce")) != HP_OK)
		return rc;
	*first = b->player_id > 0 && before == 0;
	return HP_OK;
}

int
store_unreachable_each(struct store *st, int64_t cid,
    void (*fn)(const struct store_unreachable *, void *), void *arg,
    struct hp_error *err)
{
	struct store_unreachable u;
	sqlite3_stmt *s;
	int step;

	if ((s = prep(st, "SELECT c.name, p.name, p.email, min(b.at), "
	    "max(b.at), count(*), (SELECT b2.status FROM bounces b2 WHERE "
	    "b2.player_id = p.id ORDER BY b2.at DESC, b2.id DESC LIMIT 1), "
	    "(SELECT b2.diagnostic FROM bounces b2 WHERE b2.player_id = p.id "
	    "ORDER BY b2.at DESC, b2.id DESC LIMIT 1) FROM bounces b JOIN "
	    "players p ON p.id = b.player_id AND p.active = 1 AND "
	    "b.rcpt = p.email COLLATE NOCASE JOIN campaigns c ON c.id = "
	    "p.campaign_id WHERE (?1 = 0 OR p.campaign_id = ?1) AND "
	    "b.action = 'failed' GROUP BY p.id ORDER BY min(b.at), p.id",
	    err)) == NULL)
		return HP_EDB;
	sqlite3_bind_int64(s, 1, cid);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&u, 0, sizeof u);
		strlcpy_(u.campaign, col_text(s, 0), sizeof u.campaign);
		strlcpy_(u.player, col_text(s, 1), sizeof u.player);
		strlcpy_(u.rcpt, col_text(s, 2), sizeof u.rcpt);
		u.since = (long)sqlite3_column_int64(s, 3);
		u.last = (long)sqlite3_column_int64(s, 4);
		u.count = sqlite3_column_int(s, 5);
		strlcpy_(u.status, col_text(s, 6), sizeof u.status);
		strlcpy_(u.diagnostic, col_text(s, 7), sizeof u.diagnostic);
		fn(&u, arg);
	}
	stmt_done(st, s);
	if (step != SQLITE_DONE)
		return dberr(st, err, "list unreachable players");
	return HP_OK;
}

/* the wake index (migration 22) */

int
store_wake_due(struct store *st, long now,
    void (*fn)(const char *name, int64_t cid, bool active, void *),
    void *arg, struct hp_error *err)
{
	struct store_query q;

	if (store_query_open(&q, st, "campaigns due", "SELECT c.name, c.id, "
	    "c.status = 'active' FROM campaign_wake w INDEXED BY "
	    "campaign_wake_at JOIN campaigns c ON c.id = w.campaign_id WHERE "
	    "w.wake_at <= ?1 ORDER BY c.name", STORE_ARGS(STORE_INT(now)), err) != HP_OK)
		return HP_EDB;
	while (store_query_next(&q, err))
		fn(col_text(q.s, 0), sqlite3_column_int64(q.s, 1),
		    sqlite3_column_int(q.s, 2) != 0, arg);
	return store_query_close(&q, err);
}

int
store_wake_set(struct store *st, int64_t cid, long long wake,
    struct hp_error *err)
{
	return store_exec(st, "set a campaign's wake", "INSERT OR REPLACE INTO "
	    "campaign_wake(campaign_id, wake_at) VALUES (?1, ?2)",
	    STORE_ARGS(STORE_INT(cid), STORE_INT(wake)), NULL, err);
}

int
store_wake_config(struct store *st, const char *fingerprint, bool *reset,
    struct hp_error *err)
{
	struct store_query q;
	bool same;
	int rc;

	*reset = false;
	if (store_query_open(&q, st, "wake configuration", "SELECT 1 FROM "
	    "wake_config WHERE id = 1 AND fingerprint = ?1",
	    STORE_ARGS(STORE_TEXT(fingerprint)), err) != HP_OK)
		return HP_EDB;
	same = store_query_next(&q, err);
	if ((rc = store_query_close(&q, err)) != HP_OK || same)
		return rc;
	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	if ((rc = store_exec(st, "wake every campaign", "UPDATE campaign_wake "
	    "SET wake_at = 0", NULL, NULL, err)) != HP_OK ||
	    (rc = store_exec(st, "save the wake configuration", "INSERT OR "
	    "REPLACE INTO wake_config(id, fingerprint) VALUES (1, ?1)",
	    STORE_ARGS(STORE_TEXT(fingerprint)), NULL, err)) != HP_OK) {
		store_rollback(st);
		return rc;
	}
	*reset = true;
	return store_commit(st, err);
}

/* retention and storage (issue 17) */

/* Compacted report copies (issue 17, pwstore): each of the sent copies of
 * kind 'report' compacted by this store_compact (ids[0..n)) is stored
 * against the shared dictionary of scope "sent copy report" (made of the
 * first such copy the host compacted, which stays STORE_SMAGIC) when that
 * is smaller: STORE_XMAGIC, read by store_outbox_find as any other value.
 * Each is decoded and compared before it replaces the row (in
 * store_compact's transaction). A copy holds its Date, its topic and its
 * body's hash; about 200 bytes alone, half that against the dictionary. */
static int
store_copies_shrink(struct store *st, const int64_t *ids, size_t n,
    struct hp_error *err)
{
	struct store_query q;
	unsigned char *b, *z;
	size_t i, bn, tn, zn;
	char *t;
	int rc = HP_OK;

	for (i = 0; i < n && rc == HP_OK; i++) {
		b = NULL;
		bn = 0;
		if (store_query_open(&q, st, "sent copy", "SELECT data FROM "
		    "outbox WHERE id = ?1", STORE_ARGS(STORE_INT(ids[i])), err) !=
		    HP_OK)
			return HP_EDB;
		if (store_query_next(&q, err)) {
			bn = (size_t)sqlite3_column_bytes(q.s, 0);
			b = xmalloc(bn + 1);
			if (bn > 0)
				memcpy(b, sqlite3_column_blob(q.s, 0), bn);
		}
		if (store_query_close(&q, err) != HP_OK) {
			free(b);
			return HP_EDB;
		}
		/* Only what this compaction made (STORE_SMAGIC) and reads. */
		if (b == NULL || bn < STORE_ZHEAD || memcmp(b, STORE_SMAGIC, 4) !=
		    0 || (t = store_zunpack(b, bn, &tn)) == NULL) {
			free(b);
			continue;
		}
		free(b);
		z = store_sdict_pack_scope(st, "sent copy report", t, tn, bn,
		    &zn);
		free(t);
		if (z == NULL)
			continue;
		rc = store_exec(st, "shrink a sent copy", "UPDATE outbox SET "
		    "data = ?2 WHERE id = ?1", STORE_ARGS(STORE_INT(ids[i]),
		    STORE_BLOB(z, (int)zn)), NULL, err);
		free(z);
	}
	return rc;
}

int
store_compact(struct store *st, long now, int keep_days,
    struct store_compact_stats *cs, struct hp_error *err)
{
	struct store_query q;
	int64_t *ids = NULL;
	size_t nids = 0, capids = 0;
	int rc;

	cs->packed = cs->deleted = 0;
	cs->windows_packed = 0;
	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	if (keep_days > 0) {
		if ((rc = store_exec(st, "remove old outbox rows", "DELETE FROM "
		    "outbox WHERE state IN ('sent', 'failed') AND "
		    "coalesce(sent_at, created_at) < strftime('%Y-%m-%dT%H:%M:%SZ', "
		    "?1, 'unixepoch', '-' || ?2 || ' days') AND id < (SELECT "
		    "max(id) FROM outbox)", STORE_ARGS(STORE_INT(now),
		    STORE_INT(keep_days)), NULL, err)) != HP_OK)
			goto fail;
		cs->deleted = store_changes(st);
	}
	/* The report copies about to be compacted (store_copies_shrink). */
	if ((rc = store_query_open(&q, st, "report copies to compact", "SELECT "
	    "id FROM outbox WHERE state = 'sent' AND kind = 'report' AND "
	    "sent_at < strftime('%Y-%m-%dT%H:%M:%SZ', ?1, 'unixepoch', "
	    "'-1 day') AND substr(data, 1, 4) NOT IN (CAST(x'00485053' AS "
	    "BLOB), CAST(x'00485058' AS BLOB)) ORDER BY id",
	    STORE_ARGS(STORE_INT(now)), err)) != HP_OK)
		goto fail;
	while (store_query_next(&q, err)) {
		if (nids == capids) {
			capids = capids ? 2 * capids : 16;
			ids = xrealloc(ids, capids * sizeof *ids);
		}
		ids[nids++] = sqlite3_column_int64(q.s, 0);
	}
	if ((rc = store_query_close(&q, err)) != HP_OK)
		goto fail;
	/* The stage name goes too: a sent message's file left tmp/ when it
	 * was delivered (store_outbox_stage_used asks only about files
	 * still there). A copy compacted before is STORE_SMAGIC or (a
	 * report's, against its shared dictionary) STORE_XMAGIC. */
	if ((rc = store_exec(st, "compact sent copies", "UPDATE outbox SET "
	    "data = hp_compact_copy(data, kind), stage = NULL WHERE state = "
	    "'sent' AND "
	    "sent_at < strftime('%Y-%m-%dT%H:%M:%SZ', ?1, 'unixepoch', "
	    "'-1 day') AND substr(data, 1, 4) NOT IN (CAST(x'00485053' AS "
	    "BLOB), CAST(x'00485058' AS BLOB))",
	    STORE_ARGS(STORE_INT(now)), NULL, err)) != HP_OK)
		goto fail;
	cs->packed = store_changes(st);
	if ((rc = store_copies_shrink(st, ids, nids, err)) != HP_OK)
		goto fail;
	free(ids);
	ids = NULL;
	if ((rc = store_wpack_old(st, now, &cs->windows_packed, err)) != HP_OK)
		goto fail;
	return store_commit(st, err);
fail:
	free(ids);
	store_rollback(st);
	return rc;
}

int
store_storage_get(struct store *st, struct store_storage *out,
    void (*fn)(const char *name, int64_t bytes, void *), void *arg,
    struct hp_error *err)
{
	struct store_query q;

	memset(out, 0, sizeof *out);
	if (store_query_open(&q, st, "storage", "SELECT "
	    "(SELECT page_count FROM pragma_page_count()) * (SELECT page_size "
	    "FROM pragma_page_size()), (SELECT freelist_count FROM "
	    "pragma_freelist_count()) * (SELECT page_size FROM "
	    "pragma_page_size()), (SELECT count(*) FROM windows WHERE state = "
	    "'resolved'), (SELECT count(*) FROM reports), (SELECT "
	    "coalesce(sum(length(CAST(body AS BLOB))), 0) FROM reports), "
	    "(SELECT count(*) FROM reports WHERE typeof(body) = 'blob'), "
	    "(SELECT count(*) FROM outbox WHERE state = 'queued'), (SELECT "
	    "count(*) FROM outbox WHERE state = 'sent'), (SELECT count(*) FROM "
	    "outbox WHERE state = 'failed'), (SELECT coalesce(sum(length(data)), "
	    "0) FROM outbox), (SELECT count(*) FROM outbox WHERE substr(data, "
	    "1, 4) IN (CAST(x'00485053' AS BLOB), CAST(x'00485058' AS BLOB))), "
	    "(SELECT coalesce(min(sent_at), "
	    "'') FROM outbox WHERE state = 'sent')", NULL, err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		out->file_bytes = sqlite3_column_int64(q.s, 0);
		out->free_bytes = sqlite3_column_int64(q.s, 1);
		out->windows = sqlite3_column_int64(q.s, 2);
		out->reports = sqlite3_column_int64(q.s, 3);
		out->report_bytes = sqlite3_column_int64(q.s, 4);
		out->reports_packed = sqlite3_column_int64(q.s, 5);
		out->outbox_queued = sqlite3_column_int64(q.s, 6);
		out->outbox_sent = sqlite3_column_int64(q.s, 7);
		out->outbox_failed = sqlite3_column_int64(q.s, 8);
		out->outbox_bytes = sqlite3_column_int64(q.s, 9);
		out->outbox_packed = sqlite3_column_int64(q.s, 10);
		strlcpy_(out->oldest_sent, col_text(q.s, 11),
		    sizeof out->oldest_sent);
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	out->windows_packed = 0;
	if (store_schema_version(st) >= 24 && store_query_open(&q, st,
	    "storage: windows packed", "SELECT count(*) FROM window_packs",
	    NULL, err) == HP_OK) {
		if (store_query_next(&q, err))
			out->windows_packed = sqlite3_column_int64(q.s, 0);
		if (store_query_close(&q, err) != HP_OK)
			return HP_EDB;
	} else if (store_schema_version(st) >= 24)
		return HP_EDB;
	if (store_schema_version(st) >= 28) {
		if (store_query_open(&q, st, "storage: shared dictionaries",
		    "SELECT count(*), coalesce(sum(length(data)), 0) FROM "
		    "shared_dicts", NULL, err) != HP_OK)
			return HP_EDB;
		if (store_query_next(&q, err)) {
			out->shared_dicts = sqlite3_column_int64(q.s, 0);
			out->shared_dict_bytes = sqlite3_column_int64(q.s, 1);
		}
		if (store_query_close(&q, err) != HP_OK)
			return HP_EDB;
	}
	if (fn == NULL)
		return HP_OK;
	/* Per table and index: the dbstat table, where SQLite has it. */
	if (store_query_open(&q, st, "storage by table", "SELECT name, "
	    "sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC, 1", NULL,
	    err) != HP_OK) {
		memset(err, 0, sizeof *err);
		return HP_OK;
	}
	while (store_query_next(&q, err))
		fn(col_text(q.s, 0), sqlite3_column_int64(q.s, 1), arg);
	return store_query_close(&q, err);
}

int
store_vacuum(struct store *st, struct hp_error *err)
{
	return store_exec(st, "vacuum", "VACUUM", NULL, NULL, err);
}

int
store_sync_full(struct store *st, bool full, struct hp_error *err)
{
	return store_exec(st, "synchronous", full ? "PRAGMA synchronous=FULL" :
	    "PRAGMA synchronous=NORMAL", NULL, NULL, err);
}

/* Has campaign cid taken in an order file (not the opponent's) with these
 * bytes or this nonce (store.h)? A file's nonce is in orders.nonce when
 * intake stored it (store_orders_nonce_set, migration 27); the others
 * (from the command line, or from before the migration) are read from
 * their text here. Each question is an index lookup (migration 29: the
 * check no longer grows with the campaign's history); before migration 29
 * the same statements read the campaign's rows by window. Nothing is
 * written: a refused mail changes nothing. */
int
store_orders_replay(struct store *st, int64_t cid,
    const unsigned char hash[32], const char *nonce,
    void (*nonce_of)(const char *raw, size_t len, char *out, size_t outlen),
    bool *same_file, bool *same_nonce, struct hp_error *err)
{
	struct store_query q;
	char got[128];

	*same_file = *same_nonce = false;
	if (store_query_open(&q, st, "order file taken in before", "SELECT "
	    "EXISTS (SELECT 1 FROM orders o JOIN windows w ON w.id = "
	    "o.window_id WHERE o.hash = ?2 AND o.source <> 'opponent' AND "
	    "w.campaign_id = ?1), ?3 <> '' AND EXISTS (SELECT 1 FROM orders o "
	    "JOIN windows w ON w.id = o.window_id WHERE o.nonce = ?3 AND "
	    "o.source <> 'opponent' AND length(o.hash) = 32 AND "
	    "w.campaign_id = ?1)",
	    STORE_ARGS(STORE_INT(cid), STORE_BLOB(hash, 32),
	    STORE_TEXT(nonce)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err)) {
		*same_file = sqlite3_column_int(q.s, 0) != 0;
		*same_nonce = sqlite3_column_int(q.s, 1) != 0;
	}
	if (store_query_close(&q, err) != HP_OK)
		return HP_EDB;
	if (*same_nonce || nonce[0] == '\0')
		return HP_OK;
	/* The files whose nonce was not kept (none on a host that began
	 * with migration 29; a host's older ones stay so): read from their
	 * text, the campaign's windows looked up only when the host has any
	 * (the first statement reads one entry of orders_unkept). */
	if (store_query_open(&q, st, "order file taken in before", "SELECT "
	    "o.raw FROM windows w JOIN orders o ON o.window_id = w.id WHERE "
	    "EXISTS (SELECT 1 FROM orders WHERE nonce IS NULL AND source <> "
	    "'opponent') AND w.campaign_id = ?1 AND o.nonce IS NULL AND "
	    "o.source <> 'opponent' AND length(o.hash) = 32",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	while (!*same_nonce && store_query_next(&q, err)) {
		size_t len;
		char *raw = col_unpacked_text(q.s, 0, &len);

		nonce_of(raw, len, got, sizeof got);
		if (strcmp(got, nonce) == 0)
			*same_nonce = true;
		free(raw);
	}
	return store_query_close(&q, err);
}

/* Keep the nonce of the order file with this hash that campaign cid just
 * stored (store.h). */
int
store_orders_nonce_set(struct store *st, int64_t cid,
    const unsigned char hash[32], const char *nonce, struct hp_error *err)
{
	return store_exec(st, "order file nonce", "UPDATE orders SET nonce = "
	    "?3 WHERE nonce IS NULL AND hash = ?2 AND window_id IN (SELECT id "
	    "FROM windows WHERE campaign_id = ?1)", STORE_ARGS(STORE_INT(cid),
	    STORE_BLOB(hash, 32), STORE_TEXT(nonce)), NULL, err);
}

/* Issue 17, intake (helper ingest): store_orders_put with the file's nonce
 * in the same row, and the data version intake's campaign cache checks. */

/* Store orders as store_orders_put does, keeping nonce in the new row
 * (store.h). */
int
store_orders_put_nonce(struct store *st, int64_t wid, int side,
    int64_t player, const char *source, const char *raw, const char *parsed,
    const unsigned char *hash, const char *nonce, struct hp_error *err)
{
	unsigned char *zr, *zp;
	struct store_arg ar, ap;
	int rc;

	if ((rc = store_exec(st, "supersede orders", "UPDATE orders SET "
	    "current = 0 WHERE window_id = ?1 AND side_idx = ?2 AND current = "
	    "1", STORE_ARGS(STORE_INT(wid), STORE_INT(side)), NULL, err)) !=
	    HP_OK)
		return rc;
	ar = store_orders_arg(raw, &zr);
	ap = store_orders_arg(parsed, &zp);
	rc = store_exec(st, "store orders and nonce", "INSERT INTO orders ("
	    "window_id, side_idx, player_id, source, raw, parsed, hash, nonce) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	    STORE_ARGS(STORE_INT(wid), STORE_INT(side), store_arg_id(player),
	    STORE_TEXT(source), ar, ap, STORE_BLOB(hash, 32),
	    STORE_TEXT(nonce)), NULL, err);
	free(zr);
	free(zp);
	return rc;
}

/* SQLite's data version of this connection (store.h). */
int
store_data_version(struct store *st, int64_t *version, struct hp_error *err)
{
	struct store_query q;

	*version = 0;
	if (store_query_open(&q, st, "data version", "PRAGMA data_version",
	    NULL, err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err))
		*version = sqlite3_column_int64(q.s, 0);
	return store_query_close(&q, err);
}

/* Statement journals in memory or back to the default (store.h). */
int
store_temp_memory(struct store *st, bool on, struct hp_error *err)
{
	return store_exec(st, "temp store", on ? "PRAGMA temp_store=MEMORY" :
	    "PRAGMA temp_store=DEFAULT", NULL, NULL, err);
}

/* store_message_record and store_message_set_content in one (store.h). */
int
store_message_record_content(struct store *st, const unsigned char *hash,
    const char *message_id, const char *mailbox, const char *outcome,
    const char *detail, int64_t cid, int64_t player,
    const unsigned char *content_hash, struct hp_error *err)
{
	return store_exec(st, "record message", "INSERT INTO messages (hash, "
	    "message_id, mailbox, outcome, detail, campaign_id, player_id, "
	    "content_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	    STORE_ARGS(STORE_BLOB(hash, 32), STORE_TEXT(message_id),
	    STORE_TEXT(mailbox), STORE_TEXT(outcome), STORE_TEXT(detail ?
	    detail : ""), store_arg_id(cid), store_arg_id(player),
	    STORE_BLOB(content_hash, 32)), NULL, err);
}
