/* fixtures: test builders (see fixtures.h). */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fixtures.h"
#include "moderator.h"
#include "turn.h"

void
fx_fam_game(struct game *g, const char *options)
{
	struct hp_error err = { 0, "" };

	game_init(g);
	g->rules = ruleset_find("fire-and-movement");
	strlcpy_(g->name, "test", sizeof g->name);
	strlcpy_(g->options, options ? options : "", sizeof g->options);
	if (ruleset_setup(g, NULL, NULL, NULL, NULL, &err) != HP_OK)
		fatalx("fx_fam_game: %s", err.msg);
}

struct hex
fx_hex(const struct game *g, const char *label)
{
	struct hex h;

	if (!hex_parse_label(&g->layout, label, &h))
		fatalx("fx_hex: bad label %s", label);
	return h;
}

void
fx_fam_place(struct game *g, const char *p1, int s1, const char *p2, int s2,
    const char *p3, int s3, int pc_with)
{
	const char *p[3] = { p1, p2, p3 };
	int st[3] = { s1, s2, s3 }, i;

	for (i = 0; i < 3; i++) {
		g->units[i].placed = true;
		g->units[i].pos = fx_hex(g, p[i]);
		g->units[i].status = st[i];
	}
	g->units[3].placed = true;
	g->units[3].attached = pc_with;
	g->units[3].pos = g->units[pc_with].pos;
}

char *
fx_orders(const struct game *g, const char *window, const char *side,
    const char *body)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "campaign: %s\nturn: %d\nwindow: %s\nside: %s\n%s",
	    g->name, g->turn, window, side, body);
	return sbuf_steal(&b);
}

int
fx_resolve(struct game *g, const char *window, const char *blue_body,
    const char *red_body, const int *dice, size_t ndice, struct dice *d,
    struct events *ev)
{
	struct hp_error err = { 0, "" };
	struct window_spec w;
	char *raw[GAME_MAX_SIDES] = { 0 };
	int rc;

	memset(&w, 0, sizeof w);
	w.turn = g->turn;
	strlcpy_(w.name, window, sizeof w.name);
	w.number = strcmp(window, "red") == 0 ? 2 : 1;
	w.sides = strcmp(window, "red") == 0 ? 2 : 1;
	if (blue_body != NULL)
		raw[0] = fx_orders(g, window, "blue", blue_body);
	if (red_body != NULL)
		raw[1] = fx_orders(g, strcmp(window, "blue") == 0 ? "standing" :
		    window, "red", red_body);
	dice_init_scripted(d, dice, ndice);
	events_init(ev);
	rc = window_resolve(g, &w, (const char *const *)raw, d, ev, &err);
	if (rc != HP_OK)
		fprintf(stderr, "fx_resolve: %s\n", err.msg);
	free(raw[0]);
	free(raw[1]);
	return rc;
}

bool
fx_event_has(const struct events *ev, const char *s)
{
	size_t i;

	for (i = 0; i < ev->n; i++)
		if (strstr(ev->v[i].text, s) != NULL)
			return true;
	return false;
}

static char tmpdb[256];

const char *
fx_tmp_db(void)
{
	const char *dir = getenv("TMPDIR");

	snprintf(tmpdb, sizeof tmpdb, "%s/hexpost-test-%ld.db",
	    dir ? dir : "/tmp", (long)getpid());
	fx_tmp_clean();
	return tmpdb;
}

void
fx_tmp_clean(void)
{
	char p[300];

	if (tmpdb[0] == '\0')
		return;
	unlink(tmpdb);
	snprintf(p, sizeof p, "%s-wal", tmpdb);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", tmpdb);
	unlink(p);
}

/* Helpers for the store and turn tests (appended; see fixtures.h). */
#include <sqlite3.h>

static sqlite3 *
fx_db_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK)
		fatalx("fx_db_open %s: %s", path, db ? sqlite3_errmsg(db) :
		    "cannot open");
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static void
fx_db_append_rows(sqlite3 *db, const char *sql, struct sbuf *b)
{
	sqlite3_stmt *s;
	int i, n, step;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fatalx("fx_db: %s: %s", sql, sqlite3_errmsg(db));
	n = sqlite3_column_count(s);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			if (i > 0)
				sbuf_puts(b, "|");
			switch (sqlite3_column_type(s, i)) {
			case SQLITE_NULL:
				sbuf_puts(b, "NULL");
				break;
			case SQLITE_BLOB: {
				const unsigned char *p = sqlite3_column_blob(s,
				    i);
				int j, len = sqlite3_column_bytes(s, i);

				sbuf_puts(b, "x'");
				for (j = 0; j < len; j++)
					sbuf_printf(b, "%02x", p[j]);
				sbuf_puts(b, "'");
				break;
			}
			default:
				sbuf_puts(b, (const char *)
				    sqlite3_column_text(s, i));
			}
		}
		sbuf_puts(b, "\n");
	}
	if (step != SQLITE_DONE)
		fatalx("fx_db: %s: %s", sql, sqlite3_errmsg(db));
	sqlite3_finalize(s);
}

char *
fx_db_rows(const char *path, const char *sql)
{
	sqlite3 *db = fx_db_open(path);
	struct sbuf b;

	sbuf_init(&b);
	sbuf_add(&b, "", 0);
	fx_db_append_rows(db, sql, &b);
	sqlite3_close(db);
	return sbuf_steal(&b);
}

char *
fx_db_dump(const char *path)
{
	sqlite3 *db = fx_db_open(path);
	sqlite3_stmt *s;
	struct sbuf b, q;
	int step;

	sbuf_init(&b);
	sbuf_add(&b, "", 0);
	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE "
	    "type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", -1,
	    &s, NULL) != SQLITE_OK)
		fatalx("fx_db_dump: %s", sqlite3_errmsg(db));
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);

		sbuf_printf(&b, "== %s\n", t);
		sbuf_init(&q);
		sbuf_printf(&q, "SELECT * FROM \"%s\" ORDER BY rowid", t);
		fx_db_append_rows(db, q.buf, &b);
		sbuf_free(&q);
	}
	if (step != SQLITE_DONE)
		fatalx("fx_db_dump: %s", sqlite3_errmsg(db));
	sqlite3_finalize(s);
	sqlite3_close(db);
	return sbuf_steal(&b);
}

long
fx_db_long(const char *path, const char *sql)
{
	sqlite3 *db = fx_db_open(path);
	sqlite3_stmt *s;
	long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fatalx("fx_db_long: %s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

/* Helpers for the intake and outbox tests (appended; see fixtures.h). */
void
fx_db_exec(const char *path, const char *sql)
{
	sqlite3 *db = fx_db_open(path);
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fatalx("fx_db_exec: %s: %s", sql, msg ? msg : "?");
	sqlite3_close(db);
}

char *
fx_mkdtemp(char *buf, size_t len, const char *name)
{
	const char *t = getenv("TMPDIR");

	if (t == NULL || t[0] == '\0')
		t = "/tmp";
	snprintf(buf, len, "%s/hexpost-%s-XXXXXX", t, name);
	if (mkdtemp(buf) == NULL)
		fatal("fx_mkdtemp %s", buf);
	return buf;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
fx_rmtree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

struct store *
fx_store_new(const char *path)
{
	struct hp_error err = { 0, "" };
	struct store *st = NULL;

	engine_init();
	if (store_open(&st, path, true, &err) != HP_OK ||
	    store_migrate(st, &err) != HP_OK)
		fatalx("fx_store_new %s: %s", path, err.msg);
	return st;
}

bool
fx_has_error(const struct order_errors *e, int line, const char *s)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->v[i].line == line && strstr(e->v[i].msg, s) != NULL)
			return true;
	return false;
}

/* Helper for the mail and bounce tests (issue 19; see fixtures.h). */
char *
fx_db_text(const char *path, const char *sql)
{
	sqlite3 *db = fx_db_open(path);
	sqlite3_stmt *s;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fatalx("fx_db_text: %s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(s, 0);

		v = xmalloc(n + 1);
		if (n > 0)
			memcpy(v, sqlite3_column_blob(s, 0), n);
		v[n] = '\0';
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

struct store *
fx_club(const char **path, struct config *cfg, int64_t *cid, struct game *g,
    const char *master)
{
	struct hp_error err = { 0, "" };
	struct store *st;
	struct game own;

	*path = fx_tmp_db();
	st = fx_store_new(*path);
	config_defaults(cfg, "/nonexistent");
	strlcpy_(cfg->from, "hexpost@club.example", sizeof cfg->from);
	strlcpy_(cfg->domain, "club.example", sizeof cfg->domain);
	if (g == NULL)
		g = &own;
	game_init(g);
	if (turn_campaign_new(st, "hill", "fire-and-movement", NULL, "",
	    (const unsigned char *)master, strlen(master), &err) != HP_OK ||
	    store_game_load(st, "hill", g, cid, &err) != HP_OK ||
	    store_player_add(st, *cid, 0, "bea", "bea@example.org", NULL,
	    NULL, true, &err) != HP_OK ||
	    store_player_add(st, *cid, 1, "rob", "rob@example.org", NULL,
	    NULL, false, &err) != HP_OK)
		fatalx("fx_club: %s", err.msg);
	if (g == &own)
		game_free(&own);
	return st;
}

int
fx_moderate(struct store *st, const struct config *cfg, const char *text,
    const struct store_player *who, long now, char **reply,
    struct hp_error *err)
{
	struct mod_command cmd;
	struct sbuf b;
	int rc;

	sbuf_init(&b);
	sbuf_add(&b, "", 0);
	if ((rc = moderator_parse(text, strlen(text), &cmd, err)) != HP_OK)
		goto out;
	if (store_begin(st, err) != HP_OK)
		fatalx("fx_moderate: %s", err->msg);
	rc = moderator_exec(st, cfg, &cmd, who, now, &b, err);
	if (rc == HP_OK) {
		if (store_commit(st, err) != HP_OK)
			fatalx("fx_moderate: %s", err->msg);
	} else
		store_rollback(st);
out:
	if (reply != NULL)
		*reply = sbuf_steal(&b);
	sbuf_free(&b);
	return rc;
}

void
fx_submit(struct store *st, const char *campaign, int side,
    const char *window, const char *body)
{
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	struct store_window w;
	struct window_spec spec;
	struct game g;
	unsigned missing;
	struct sbuf b;

	game_init(&g);
	if (store_game_load(st, campaign, &g, NULL, &err) != HP_OK ||
	    turn_pending(st, campaign, &w, &missing, &err) != HP_OK)
		fatalx("fx_submit: %s", err.msg);
	spec = w.spec;
	if (window != NULL)
		strlcpy_(spec.name, window, sizeof spec.name);
	sbuf_init(&b);
	window_order_header(&g, &spec, side, &b);
	sbuf_puts(&b, body);
	turn_submit_init(&res);
	if (turn_submit(st, campaign, b.buf, b.len, side, 0, "cli", &res,
	    &err) != HP_OK)
		fatalx("submit: %s %s", err.msg, res.errs.n ?
		    res.errs.v[0].msg : "");
	turn_submit_free(&res);
	sbuf_free(&b);
	game_free(&g);
}
