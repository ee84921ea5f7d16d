/* test_store: the SQLite store. Migrations, pragmas, the campaign round
 * trip (every field the store keeps), isolation between campaigns, order
 * supersession, rollback, windows, events, dice and reports. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "embedded.h"
#include "fixtures.h"
#include "store.h"

static const char *STANDING = "campaign: test\nturn: 3\nwindow: standing\n"
    "side: red\npolicy nearest\n";

/* The highest migration number built into the binary. */
static int
last_migration(void)
{
	size_t i;
	int n, max = 0;

	for (i = 0; i < embedded_nfiles; i++)
		if (sscanf(embedded_files[i].name, "schema/%d_", &n) == 1 &&
		    n > max)
			max = n;
	return max;
}

/* A fire-and-movement game with every field the store keeps set to a value
 * that setup does not produce. */
static void
rich_game(struct game *g, const char *name, int salt)
{
	int i, j;

	fx_fam_game(g, NULL);
	strlcpy_(g->name, name, sizeof g->name);
	strlcpy_(g->options, "red-standing", sizeof g->options);
	strlcpy_(g->result, "not yet", sizeof g->result);
	g->turn = 3 + salt;
	g->window = 2;
	g->sides[0].ai = false;
	strlcpy_(g->sides[0].label, "Blue (changed label)",
	    sizeof g->sides[0].label);
	g->sides[1].standing = xstrdup(STANDING);
	for (i = 0; i < g->nunits; i++) {
		struct game_unit *u = &g->units[i];

		u->placed = (i + salt) % 2 == 0;
		u->pos.q = i + salt;
		u->pos.r = -i;
		u->status = (i % 2) + salt;
		u->strength = 10 * i - 7;
		u->facing = i % 6 - 1;
		u->attached = (i + salt) % (g->nunits + 1) - 1;
		u->flags = 0x55 ^ i ^ salt;
		for (j = 0; j < GAME_UNIT_X; j++)
			u->x[j] = (i + 1) * 100 + j * (j % 2 ? -1 : 1) + salt;
	}
	for (i = 0; i < g->nhex; i++) {
		g->hexes[i].elevation = i * 3 - 5;
		for (j = 0; j < 6; j++)
			g->hexes[i].edge[j] = (i * 6 + j) % 7 - (j == 5);
	}
	game_set_var(g, "victory", 7 + salt);
	game_set_var(g, "negative", -42);
	game_set_var(g, "zero", 0);
}

static void
assert_units_equal(const struct game *a, const struct game *b)
{
	int i, j;

	assert_int_equal(a->nunits, b->nunits);
	for (i = 0; i < a->nunits; i++) {
		const struct game_unit *u = &a->units[i], *v = &b->units[i];

		assert_string_equal(u->id, v->id);
		assert_string_equal(u->kind, v->kind);
		assert_string_equal(u->name, v->name);
		assert_int_equal(u->side, v->side);
		assert_int_equal(u->placed, v->placed);
		assert_int_equal(u->pos.q, v->pos.q);
		assert_int_equal(u->pos.r, v->pos.r);
		assert_int_equal(u->status, v->status);
		assert_int_equal(u->strength, v->strength);
		assert_int_equal(u->facing, v->facing);
		assert_int_equal(u->attached, v->attached);
		assert_int_equal(u->flags, v->flags);
		for (j = 0; j < GAME_UNIT_X; j++)
			assert_int_equal(u->x[j], v->x[j]);
	}
}

static void
assert_games_equal(const struct game *a, const struct game *b)
{
	int i, j;

	assert_string_equal(a->name, b->name);
	assert_ptr_equal(a->rules, b->rules);
	assert_string_equal(a->scenario, b->scenario);
	assert_string_equal(a->options, b->options);
	assert_int_equal(a->status, b->status);
	assert_string_equal(a->result, b->result);
	assert_int_equal(a->turn, b->turn);
	assert_int_equal(a->window, b->window);
	assert_int_equal(a->layout.orient, b->layout.orient);
	assert_int_equal(a->layout.parity, b->layout.parity);
	assert_int_equal(a->layout.cols, b->layout.cols);
	assert_int_equal(a->layout.rows, b->layout.rows);
	assert_int_equal(a->layout.row_base, b->layout.row_base);

	assert_int_equal(a->nsides, b->nsides);
	for (i = 0; i < a->nsides; i++) {
		assert_string_equal(a->sides[i].name, b->sides[i].name);
		assert_string_equal(a->sides[i].label, b->sides[i].label);
		assert_int_equal(a->sides[i].ai, b->sides[i].ai);
		if (a->sides[i].standing == NULL)
			assert_null(b->sides[i].standing);
		else {
			assert_non_null(b->sides[i].standing);
			assert_string_equal(a->sides[i].standing,
			    b->sides[i].standing);
		}
	}

	/* Hexes: the same set (the store may return another order). */
	assert_int_equal(a->nhex, b->nhex);
	for (i = 0; i < a->nhex; i++) {
		const struct game_hex *h = &a->hexes[i];
		const struct game_hex *k = game_hex_at_c(b, h->h);

		assert_non_null(k);
		assert_string_equal(h->terrain, k->terrain);
		assert_int_equal(h->elevation, k->elevation);
		for (j = 0; j < 6; j++)
			assert_int_equal(h->edge[j], k->edge[j]);
	}

	assert_units_equal(a, b);

	assert_int_equal(a->nvars, b->nvars);
	for (i = 0; i < a->nvars; i++)
		assert_int_equal(game_var(b, a->vars[i].key, 12345),
		    a->vars[i].val);
	if (a->rstate == NULL)
		assert_null(b->rstate);
	else {
		assert_non_null(b->rstate);
		assert_string_equal(a->rstate, b->rstate);
	}
}

/* A 6'x4' table at 2 cm a hex (90 x 60 hexes), 600 units with neutral
 * markers among them, 200 vars and a large ruleset state: saved and loaded
 * whole (the old limits were 4096 hexes, 512 units, 64 vars, fatal). A
 * game that went past a limit is not saved: the error names the limit. */
static void
test_big_table(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct game g, h;
	struct sbuf rs;
	char id[32];
	int64_t cid;
	int i;

	(void)state;
	game_init(&g);
	g.rules = ruleset_find("portable-modern");
	strlcpy_(g.name, "table", sizeof g.name);
	g.nsides = 4;
	for (i = 0; i < 4; i++) {
		snprintf(g.sides[i].name, sizeof g.sides[i].name, "s%d", i);
		snprintf(g.sides[i].label, sizeof g.sides[i].label, "Side %d", i);
	}
	g.layout.cols = 90;
	g.layout.rows = 60;
	for (i = 0; i < 90 * 60; i++)
		game_add_hex(&g, (struct hex){ i % 90, i / 90 },
		    i % 7 ? "open" : "wood")->elevation = i % 3;
	for (i = 0; i < 600; i++) {
		struct game_unit *u;

		snprintf(id, sizeof id, "u%d", i);
		u = game_add_unit(&g, id, i % 10 ? "squad" : "marker:wire",
		    id, i % 10 ? i % 4 : GAME_SIDE_NONE);
		u->placed = true;
		u->pos = (struct hex){ i % 90, i / 90 };
		u->x[3] = i;
	}
	for (i = 0; i < 200; i++) {
		snprintf(id, sizeof id, "v%03d", i);
		game_set_var(&g, id, i - 100);
	}
	sbuf_init(&rs);
	for (i = 0; i < 5000; i++)
		sbuf_printf(&rs, "card %d %s\n", i, i % 2 ? "hand:s1" : "deck");
	game_set_rstate(&g, rs.buf);
	sbuf_free(&rs);
	assert_null(game_error(&g));
	assert_int_equal(store_begin(st, &err), HP_OK);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	assert_int_equal(store_commit(st, &err), HP_OK);
	game_init(&h);
	assert_int_equal(store_game_load(st, "table", &h, NULL, &err), HP_OK);
	assert_int_equal(h.nhex, 5400);
	assert_int_equal(h.nunits, 600);
	assert_int_equal(h.units[10].side, GAME_SIDE_NONE);
	assert_int_equal(h.nvars, 200);
	assert_games_equal(&g, &h);
	game_free(&h);

	/* Past a limit: the save is refused with the limit's name. */
	for (i = 200; i <= GAME_MAX_VARS; i++) {
		snprintf(id, sizeof id, "v%05d", i);
		game_set_var(&g, id, i);
	}
	assert_non_null(game_error(&g));
	assert_int_equal(store_game_save(st, cid, &g, &err), HP_ESTATE);
	assert_string_equal(err.msg, "campaign table has more than 4096 "
	    "variables (GAME_MAX_VARS in include/game.h)");
	game_free(&g);
	store_close(st);
}

/* Issue 17: an order file of STORE_ORDERS_ZMIN bytes or more is stored
 * compressed (raw and parsed) and read back as it was by every reader
 * (store_orders_current, store_orders_all, store_orders_each); a short one
 * stays plain; an edited compressed one reads as its stored bytes, so the
 * hash over it differs. */
static void
orders_each_cb(const char *raw, size_t len, const unsigned char *hash,
    void *arg)
{
	(void)hash;
	assert_int_equal(strlen(raw), len);
	sbuf_puts(arg, raw);
}

static void
test_orders_compressed(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_order cur[GAME_MAX_SIDES];
	struct store_order_row *rows;
	unsigned char hash[32] = { 0 };
	struct store_window w;
	const char *path;
	struct config cfg;
	struct store *st;
	struct sbuf b, parsed, each;
	int64_t cid;
	int i, n;

	(void)state;
	st = fx_club(&path, &cfg, &cid, NULL, "ordersz");
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	sbuf_init(&b);
	sbuf_init(&parsed);
	sbuf_puts(&b, "campaign: ordersz\nturn: 1\nwindow: blue\nside: blue\n");
	for (i = 0; i < 60; i++) {
		sbuf_printf(&b, "move %d A%d\n", i, i % 9);
		sbuf_printf(&parsed, "move %d A%d\n", i, i % 9);
	}
	assert_int_equal(store_orders_put(st, w.id, 0, 0, "cli", b.buf,
	    parsed.buf, hash, &err), HP_OK);
	assert_int_equal(store_orders_put(st, w.id, 1, 0, "cli", "short",
	    "short parsed", hash, &err), HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "side_idx = 0 AND substr(raw, 1, 4) = x'0048505a' AND "
	    "substr(parsed, 1, 4) = x'0048505a' AND length(raw) * 2 < 600"),
	    1);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "side_idx = 1 AND raw = 'short' AND parsed = 'short parsed'"), 1);
	assert_int_equal(store_orders_current(st, w.id, cur, &err), HP_OK);
	assert_string_equal(cur[0].raw, b.buf);
	assert_string_equal(cur[0].parsed, parsed.buf);
	assert_string_equal(cur[1].raw, "short");
	store_orders_free(cur);
	assert_int_equal(store_orders_all(st, w.id, &rows, &n, &err), HP_OK);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].raw, b.buf);
	assert_string_equal(rows[1].raw, "short");
	store_order_rows_free(rows, n);
	sbuf_init(&each);
	assert_int_equal(store_orders_each(st, cid, orders_each_cb, &each,
	    &err), HP_OK);
	assert_non_null(strstr(each.buf, b.buf));
	sbuf_free(&each);
	/* Edited: read as the stored bytes, not as the orders. */
	fx_db_exec(path, "UPDATE orders SET raw = raw || x'78' WHERE "
	    "side_idx = 0");
	assert_int_equal(store_orders_current(st, w.id, cur, &err), HP_OK);
	assert_true(strcmp(cur[0].raw, b.buf) != 0);
	store_orders_free(cur);
	sbuf_free(&b);
	sbuf_free(&parsed);
	store_close(st);
	config_free(&cfg);
}

/* Issue 17: a long report is stored compressed and read back as it was; a
 * short one stays plain; an edited compressed one reads as damaged (so the
 * audit finds it differs). store_compact compresses sent copies a day old
 * (read back whole by store_outbox_find) and removes rows sent before the
 * retention, never the newest row nor a queued one. */
static void
test_compressed(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_compact_stats cs;
	struct store_window w;
	struct store_sent sent;
	const char *path;
	struct config cfg;
	struct store *st;
	struct sbuf b, b2;
	int64_t cid;
	char *got, msg[4096];
	int i;

	(void)state;
	st = fx_club(&path, &cfg, &cid, NULL, "compressed");
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	sbuf_init(&b);
	for (i = 0; i < 200; i++)
		sbuf_printf(&b, "  %02d . . # . . ~ . . %d\n", i, i % 7);
	assert_int_equal(store_report_put(st, w.id, 0, b.buf, &err), HP_OK);
	assert_int_equal(store_report_put(st, w.id, 1, "short", &err), HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM reports WHERE "
	    "side_idx = 0 AND substr(body, 1, 4) = x'0048505a' AND "
	    "length(body) * 3 < 200 * 24"), 1);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM reports WHERE "
	    "side_idx = 1 AND body = 'short'"), 1);
	got = store_report_get(st, w.id, 0, &err);
	assert_non_null(got);
	assert_string_equal(got, b.buf);
	free(got);
	got = store_report_get(st, w.id, 1, &err);
	assert_string_equal(got, "short");
	free(got);
	/* A later window's report: against the earlier one as dictionary
	 * (test_store_report has the chains). */
	snprintf(msg, sizeof msg, "INSERT INTO windows(id, campaign_id, turn, "
	    "number, name, kind, sides, state, seed, commitment) VALUES (%lld, "
	    "%lld, 9, 1, 'later', 0, 1, 'resolved', x'00', x'00')",
	    (long long)w.id + 100, (long long)cid);
	fx_db_exec(path, msg);
	sbuf_init(&b2);
	sbuf_puts(&b2, b.buf);
	sbuf_puts(&b2, "  a line of the later window\n");
	assert_int_equal(store_report_put(st, w.id + 100, 0, b2.buf, &err),
	    HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM reports WHERE "
	    "substr(body, 1, 4) = x'00485045' AND length(body) < 300"), 1);
	got = store_report_get(st, w.id + 100, 0, &err);
	assert_non_null(got);
	assert_string_equal(got, b2.buf);
	free(got);
	sbuf_free(&b2);
	/* Edited: the report, or its dictionary, reads as damaged. */
	fx_db_exec(path, "UPDATE reports SET body = body || 'x' WHERE side_idx "
	    "= 0 AND substr(body, 1, 4) = x'0048505a'");
	got = store_report_get(st, w.id, 0, &err);
	assert_non_null(strstr(got, "damaged"));
	free(got);
	got = store_report_get(st, w.id + 100, 0, &err);
	assert_non_null(strstr(got, "damaged"));
	free(got);

	/* Sent copies: compressed a day later, removed after the retention. */
	snprintf(msg, sizeof msg, "Message-ID: <m@club.example>\n\n%s", b.buf);
	fx_db_exec(path, "DELETE FROM outbox");
	for (i = 1; i <= 4; i++) {
		char sql[8192];

		snprintf(sql, sizeof sql, "INSERT INTO outbox(id, message_id, "
		    "kind, rcpt, envelope_from, data, state, sent_at) VALUES (%d, "
		    "'m%d@club.example', '%s', 'a@example.org', '', "
		    "CAST('%s' AS BLOB), '%s', strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', "
		    "'now', '%s'))", i, i, i == 4 ? "report" : "notice", msg,
		    i == 2 ? "queued" : "sent",
		    i == 1 || i == 2 ? "-50 days" : i == 3 ? "-2 days" : "-40 days");
		fx_db_exec(path, sql);
	}
	assert_int_equal(store_compact(st, (long)time(NULL), 30, &cs, &err),
	    HP_OK);
	/* m1 (50 days) goes; m2 queued and m4 the newest stay; m3 and m4
	 * (sent over a day ago) are compacted: the notice compressed whole,
	 * the report's copy to its headers and its body's hash. */
	assert_int_equal(cs.deleted, 1);
	assert_int_equal(cs.packed, 2);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM outbox WHERE "
	    "substr(data, 1, 4) = x'00485053' AND id IN (3, 4)"), 2);
	assert_int_equal(store_outbox_find(st, "m3@club.example", &sent, &err),
	    1);
	assert_int_equal(sent.len, strlen(msg));
	assert_memory_equal(sent.data, msg, sent.len);
	free(sent.data);
	assert_int_equal(store_outbox_find(st, "m4@club.example", &sent, &err),
	    1);
	assert_int_equal(strncmp((char *)sent.data, "X-Hexpost-Copy: body "
	    "of ", 23), 0);
	assert_non_null(strstr((char *)sent.data, " bytes removed, "
	    "BLAKE2b-256 "));
	free(sent.data);
	/* Compacted once: a second compaction leaves them. */
	assert_int_equal(store_compact(st, (long)time(NULL), 30, &cs, &err),
	    HP_OK);
	assert_int_equal(cs.packed, 0);
	assert_int_equal(store_outbox_find(st, "m1@club.example", &sent, &err),
	    0);
	free(sent.data);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM outbox"), 3);
	sbuf_free(&b);
	store_close(st);
	config_free(&cfg);
}

/* Issue 17, pwstore: report copies compacted by store_compact lean on
 * the shared dictionary "sent copy report" (made of the first one, which
 * stays STORE_SMAGIC): smaller, read back by store_outbox_find as
 * compacted alone; a damaged dictionary makes them read as damaged
 * (empty); a notice is compressed whole as before; a second compaction
 * leaves them. */
static void
test_copies_sdict(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_compact_stats cs;
	struct store_sent sent;
	const char *path;
	struct config cfg;
	struct store *st;
	char sql[4096], mid[64], *first;
	int64_t cid;
	long sn;
	int i;

	(void)state;
	st = fx_club(&path, &cfg, &cid, NULL, "copies");
	fx_db_exec(path, "DELETE FROM outbox");
	for (i = 1; i <= 4; i++) {
		snprintf(sql, sizeof sql, "INSERT INTO outbox(id, message_id, "
		    "kind, rcpt, envelope_from, data, state, sent_at) VALUES (%d, "
		    "'c%d@club.example', '%s', 'a@example.org', '', CAST('From: "
		    "hexpost <h@club.example>\nDate: Sat, 2%d Nov 2026 10:00:00 "
		    "+0000\nSubject: [hill] the campaign\nX-Hexpost-Topic: "
		    "[hill] report, turn %d, blue\nMessage-ID: "
		    "<c%d@club.example>\n\nTurn %d: the body of the report, "
		    "line after line.\n' AS BLOB), 'sent', "
		    "strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', 'now', '-2 days'))", i, i,
		    i == 3 ? "notice" : "report", i, i, i, i);
		fx_db_exec(path, sql);
	}
	assert_int_equal(store_compact(st, (long)time(NULL), 30, &cs, &err),
	    HP_OK);
	assert_int_equal(cs.packed, 4);
	/* The first report copy made the dictionary and stays; the later
	 * ones lean on it, the notice is compressed whole. */
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM shared_dicts "
	    "WHERE scope = 'sent copy report'"), 1);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM outbox WHERE "
	    "substr(data, 1, 4) = x'00485053' AND id IN (1, 3)"), 2);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM outbox WHERE "
	    "substr(data, 1, 4) = x'00485058' AND id IN (2, 4)"), 2);
	sn = fx_db_long(path, "SELECT length(data) FROM outbox WHERE id = 1");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM outbox WHERE id IN "
	    "(2, 4) AND length(data) < %ld", sn);
	assert_int_equal(fx_db_long(path, sql), 2);
	assert_int_equal(store_outbox_find(st, "c1@club.example", &sent, &err),
	    1);
	first = (char *)sent.data;
	assert_non_null(strstr(first, "X-Hexpost-Copy: body of "));
	for (i = 2; i <= 4; i += 2) {
		snprintf(mid, sizeof mid, "c%d@club.example", i);
		assert_int_equal(store_outbox_find(st, mid, &sent, &err), 1);
		snprintf(sql, sizeof sql, "Date: Sat, 2%d Nov 2026 10:00:00 "
		    "+0000\nX-Hexpost-Topic: [hill] report, turn %d, blue\n"
		    "X-Hexpost-Copy: body of ", i, i);
		assert_int_equal(strncmp((char *)sent.data, sql, strlen(sql)),
		    0);
		assert_int_equal(sent.len, strlen(first));
		assert_non_null(strstr((char *)sent.data, "bytes removed, "
		    "BLAKE2b-256 "));
		free(sent.data);
	}
	free(first);
	/* Compacted once: a second compaction leaves them. */
	assert_int_equal(store_compact(st, (long)time(NULL), 30, &cs, &err),
	    HP_OK);
	assert_int_equal(cs.packed, 0);
	/* A damaged dictionary: the copies leaning on it read as damaged
	 * (empty), the one it was made of as it was. */
	fx_db_exec(path, "UPDATE shared_dicts SET data = CAST('Date: x' AS "
	    "BLOB) WHERE scope = 'sent copy report'");
	assert_int_equal(store_outbox_find(st, "c2@club.example", &sent, &err),
	    1);
	assert_int_equal(sent.len, 0);
	free(sent.data);
	assert_int_equal(store_outbox_find(st, "c1@club.example", &sent, &err),
	    1);
	assert_non_null(strstr((char *)sent.data, "X-Hexpost-Copy: body of "));
	free(sent.data);
	store_close(st);
	config_free(&cfg);
}

static void
test_migrate(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = NULL;
	struct game g, h;
	int64_t cid;
	int want = last_migration();

	(void)state;
	assert_true(want >= 1);
	/* Opening without create does not make a database. */
	assert_int_equal(store_open(&st, path, false, &err), HP_EDB);
	assert_int_equal(err.code, HP_EDB);
	assert_int_equal(access(path, F_OK), -1);

	assert_int_equal(store_open(&st, path, true, &err), HP_OK);
	assert_int_equal(store_schema_version(st), 0);
	assert_int_equal(store_migrate(st, &err), HP_OK);
	assert_int_equal(store_schema_version(st), want);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM sqlite_master "
	    "WHERE type = 'table' AND name IN ('campaigns', 'sides', "
	    "'players', 'hexes', 'units', 'vars', 'windows', 'orders', "
	    "'events', 'dice', 'reports')"), 11);
	assert_int_equal(fx_db_long(path, "PRAGMA user_version"), want);

	/* Again, with data in it: nothing applied, nothing lost. */
	rich_game(&g, "kept", 0);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	assert_int_equal(store_migrate(st, &err), HP_OK);
	assert_int_equal(store_schema_version(st), want);
	store_close(st);

	/* And from a fresh connection. */
	assert_int_equal(store_open(&st, path, false, &err), HP_OK);
	assert_int_equal(store_migrate(st, &err), HP_OK);
	assert_int_equal(store_schema_version(st), want);
	game_init(&h);
	assert_int_equal(store_game_load(st, "kept", &h, NULL, &err), HP_OK);
	assert_games_equal(&g, &h);
	game_free(&h);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static void
test_pragmas(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	unsigned char hash[32] = { 1 };
	struct game g;
	char *mode, wal[300];
	int64_t cid;

	(void)state;
	/* WAL is a property of the file: any connection sees it. */
	mode = fx_db_rows(path, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal\n");
	free(mode);
	snprintf(wal, sizeof wal, "%s-wal", path);
	assert_int_equal(access(wal, F_OK), 0);

	/* Foreign keys are per connection: the store's must refuse rows
	 * that point nowhere. */
	fx_fam_game(&g, NULL);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	err.code = 0;
	assert_int_equal(store_orders_put(st, 9999, 0, 0, "cli", "raw",
	    "parsed", hash, &err), HP_EDB);
	assert_int_equal(err.code, HP_EDB);
	assert_non_null(strstr(err.msg, "FOREIGN KEY"));
	err.code = 0;
	assert_int_equal(store_player_add(st, cid, 3, "nobody",
	    "n@example.org", NULL, NULL, false, &err), HP_EDB);
	assert_non_null(strstr(err.msg, "FOREIGN KEY"));
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders"), 0);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM players"), 0);
	/* A valid player is fine and makes the side a person's. */
	assert_int_equal(store_player_add(st, cid, 0, "ann", "a@example.org",
	    NULL, NULL, true, &err), HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT ai FROM sides WHERE idx = 0"),
	    0);
	assert_int_equal(fx_db_long(path, "SELECT ai FROM sides WHERE idx = 1"),
	    1);
	assert_int_equal(store_player_add(st, cid, 1, "ann", "b@example.org",
	    NULL, NULL, false, &err), HP_ESTATE);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static void
test_roundtrip(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	unsigned char master[5] = { 0, 1, 2, 0xfe, 0xff }, got[64];
	size_t mlen = sizeof got;
	struct game g, h;
	int64_t cid, cid2 = 0;

	(void)state;
	rich_game(&g, "round", 0);
	assert_int_equal(store_campaign_create(st, &g, master, sizeof master,
	    &cid, &err), HP_OK);
	assert_true(cid > 0);
	game_init(&h);
	assert_int_equal(store_game_load(st, "round", &h, &cid2, &err), HP_OK);
	assert_int_equal(cid2, cid);
	assert_games_equal(&g, &h);
	assert_int_equal(store_master_seed(st, cid, got, &mlen, &err), HP_OK);
	assert_int_equal(mlen, sizeof master);
	assert_memory_equal(got, master, sizeof master);
	game_free(&h);

	/* Save changes every mutable field, then load them back. */
	g.status = GAME_FINISHED;
	strlcpy_(g.result, "Draw: whatever", sizeof g.result);
	g.turn = 9;
	g.window = 1;
	g.sides[0].ai = true;
	g.sides[0].standing = xstrdup("blue standing");
	free(g.sides[1].standing);
	g.sides[1].standing = NULL;
	g.units[2].pos.q = -3;
	g.units[2].x[7] = -77;
	g.units[4].strength = 99;
	game_add_unit(&g, "m1", "marker:smoke", "Smoke", 1)->x[0] = 5;
	game_set_var(&g, "victory", 15);
	game_set_var(&g, "added", 3);
	game_set_rstate(&g, "deck: 4 1 3\nhand blue: 2\n");
	assert_int_equal(store_game_save(st, cid, &g, &err), HP_OK);
	game_init(&h);
	assert_int_equal(store_game_load(st, "round", &h, NULL, &err), HP_OK);
	assert_games_equal(&g, &h);
	assert_int_equal(h.status, GAME_FINISHED);
	assert_int_equal(h.nunits, 6);
	game_free(&h);

	/* A campaign without a master seed has none. */
	mlen = sizeof got;
	game_free(&g);
	fx_fam_game(&g, NULL);
	strlcpy_(g.name, "random", sizeof g.name);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid2, &err),
	    HP_OK);
	assert_int_equal(store_master_seed(st, cid2, got, &mlen, &err), HP_OK);
	assert_int_equal(mlen, 0);

	/* Unknown campaign. */
	game_init(&h);
	err.code = 0;
	assert_int_equal(store_game_load(st, "nosuch", &h, NULL, &err),
	    HP_ENOENT);
	assert_int_equal(err.code, HP_ENOENT);
	assert_non_null(strstr(err.msg, "nosuch"));
	game_free(&h);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static void
count_campaign(const struct store_campaign_info *ci, void *arg)
{
	char *names = arg;

	strcat(names, ci->name);
	strcat(names, ci->status[0] == 'f' ? "!" : ";");
}

static void
test_two_campaigns(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct game a, b, h;
	int64_t ca, cb;
	char names[256] = "";

	(void)state;
	rich_game(&a, "alpha", 0);
	rich_game(&b, "bravo", 1);
	game_add_unit(&b, "extra", "section", "Extra", 1);
	game_set_var(&b, "only-bravo", 1);
	assert_int_equal(store_campaign_create(st, &b, NULL, 0, &cb, &err),
	    HP_OK);
	assert_int_equal(store_campaign_create(st, &a, NULL, 0, &ca, &err),
	    HP_OK);
	assert_true(ca != cb);

	game_init(&h);
	assert_int_equal(store_game_load(st, "alpha", &h, NULL, &err), HP_OK);
	assert_games_equal(&a, &h);
	assert_int_equal(h.nunits, 5);
	assert_int_equal(game_var(&h, "only-bravo", -1), -1);
	game_free(&h);

	/* A unit attached to a unit that does not exist is refused on load
	 * rather than handed to a ruleset as an index. */
	fx_db_exec(path, "UPDATE units SET attached = 99 WHERE uid = 'extra'");
	game_init(&h);
	assert_int_equal(store_game_load(st, "bravo", &h, NULL, &err),
	    HP_EINTERNAL);
	assert_non_null(strstr(err.msg, "unit extra of bravo"));
	game_free(&h);
	fx_db_exec(path, "UPDATE units SET attached = -1 WHERE uid = 'extra'");

	/* Saving alpha leaves bravo's units and vars alone. */
	a.units[0].pos.q = 2;
	a.nunits = 4;
	a.nvars = 1;
	assert_int_equal(store_game_save(st, ca, &a, &err), HP_OK);
	game_init(&h);
	assert_int_equal(store_game_load(st, "bravo", &h, NULL, &err), HP_OK);
	assert_games_equal(&b, &h);
	assert_int_equal(h.nunits, 6);
	game_free(&h);
	game_init(&h);
	assert_int_equal(store_game_load(st, "alpha", &h, NULL, &err), HP_OK);
	assert_games_equal(&a, &h);
	game_free(&h);

	assert_int_equal(store_campaign_list(st, count_campaign, names, &err),
	    HP_OK);
	assert_string_equal(names, "alpha;bravo;");
	game_free(&a);
	game_free(&b);
	store_close(st);
	fx_tmp_clean();
}

static void
test_duplicate_name(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct game g;
	int64_t cid, cid2 = -5;
	char *before, *after;

	(void)state;
	fx_fam_game(&g, NULL);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	before = fx_db_dump(path);
	assert_int_equal(store_begin(st, &err), HP_OK);
	err.code = 0;
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid2, &err),
	    HP_ESTATE);
	assert_int_equal(err.code, HP_ESTATE);
	assert_non_null(strstr(err.msg, "already exists"));
	assert_int_equal(cid2, -5);
	store_rollback(st);
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	free(before);
	free(after);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static int64_t
make_window(struct store *st, int64_t cid, int turn, int number,
    const char *name, unsigned char fill)
{
	struct hp_error err = { 0, "" };
	struct window_spec w;
	unsigned char seed[DICE_SEEDLEN], commit[32];
	int64_t wid = 0;

	memset(&w, 0, sizeof w);
	w.turn = turn;
	w.number = number;
	strlcpy_(w.name, name, sizeof w.name);
	w.kind = WINDOW_DECISION;
	w.sides = 3;
	strlcpy_(w.prompt, "which way?", sizeof w.prompt);
	memset(seed, fill, sizeof seed);
	memset(commit, fill ^ 0xff, sizeof commit);
	assert_int_equal(store_window_insert(st, cid, &w, seed, commit, &wid,
	    &err), HP_OK);
	assert_true(wid > 0);
	return wid;
}

static void
test_windows(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct store_window w;
	unsigned char key[DICE_KEYLEN], seed[DICE_SEEDLEN];
	struct game g;
	int64_t cid, w1, w2;

	(void)state;
	fx_fam_game(&g, NULL);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_ENOENT);
	assert_int_equal(store_window_last_resolved(st, cid, &w, &err),
	    HP_ENOENT);
	w1 = make_window(st, cid, 1, 1, "blue", 0x11);
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	assert_int_equal(w.id, w1);
	assert_int_equal(w.spec.turn, 1);
	assert_int_equal(w.spec.number, 1);
	assert_string_equal(w.spec.name, "blue");
	assert_int_equal(w.spec.kind, WINDOW_DECISION);
	assert_int_equal(w.spec.sides, 3);
	assert_string_equal(w.spec.prompt, "which way?");
	assert_int_equal(w.state, WSTATE_OPEN);
	memset(seed, 0x11, sizeof seed);
	assert_memory_equal(w.seed, seed, sizeof seed);
	assert_int_equal(w.commitment[31], 0xee);
	assert_false(w.have_key);

	memset(key, 0x5a, sizeof key);
	assert_int_equal(store_window_set_state(st, w1, WSTATE_CLOSED, NULL,
	    &err), HP_OK);
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	assert_int_equal(w.state, WSTATE_CLOSED);
	assert_false(w.have_key);
	assert_int_equal(store_window_set_state(st, w1, WSTATE_RESOLVED, key,
	    &err), HP_OK);
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_ENOENT);
	w2 = make_window(st, cid, 1, 2, "red", 0x22);
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	assert_int_equal(w.id, w2);
	assert_int_equal(store_window_last_resolved(st, cid, &w, &err), HP_OK);
	assert_int_equal(w.id, w1);
	assert_int_equal(w.state, WSTATE_RESOLVED);
	assert_true(w.have_key);
	assert_memory_equal(w.dice_key, key, sizeof key);
	assert_int_equal(fx_db_long(path, "SELECT resolved_at IS NOT NULL FROM "
	    "windows WHERE number = 1"), 1);

	assert_int_equal(store_window_get(st, cid, 1, 0, &w, &err), HP_OK);
	assert_int_equal(w.id, w2);
	assert_int_equal(store_window_get(st, cid, 1, 1, &w, &err), HP_OK);
	assert_int_equal(w.id, w1);
	assert_int_equal(store_window_get(st, cid, 2, 0, &w, &err), HP_ENOENT);
	/* Two windows with the same turn and number are refused. */
	{
		struct window_spec s;

		memset(&s, 0, sizeof s);
		s.turn = 1;
		s.number = 2;
		assert_int_equal(store_window_insert(st, cid, &s, seed, seed,
		    NULL, &err), HP_EDB);
	}
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static void
test_orders_supersede(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct store_order cur[GAME_MAX_SIDES];
	unsigned char h1[32], h2[32], h3[32];
	struct game g;
	int64_t cid, wid, w2;

	(void)state;
	memset(h1, 1, sizeof h1);
	memset(h2, 2, sizeof h2);
	memset(h3, 3, sizeof h3);
	fx_fam_game(&g, NULL);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	wid = make_window(st, cid, 1, 1, "blue", 1);
	w2 = make_window(st, cid, 1, 2, "red", 2);

	assert_int_equal(store_orders_current(st, wid, cur, &err), HP_OK);
	assert_null(cur[0].raw);
	assert_null(cur[1].raw);

	assert_int_equal(store_orders_put(st, wid, 0, 0, "cli", "first",
	    "p-first", h1, &err), HP_OK);
	assert_int_equal(store_orders_put(st, wid, 1, 0, "opponent", "red",
	    "p-red", h3, &err), HP_OK);
	assert_int_equal(store_orders_put(st, w2, 0, 0, "cli", "other window",
	    "", h3, &err), HP_OK);
	assert_int_equal(store_orders_put(st, wid, 0, 0, "mail", "second",
	    "p-second", h2, &err), HP_OK);

	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "window_id = 1 AND side_idx = 0"), 2);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "window_id = 1 AND side_idx = 0 AND current = 1"), 1);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "current = 1"), 3);
	assert_int_equal(fx_db_long(path, "SELECT max(n) FROM (SELECT count(*) "
	    "AS n FROM orders WHERE current = 1 GROUP BY window_id, "
	    "side_idx)"), 1);

	assert_int_equal(store_orders_current(st, wid, cur, &err), HP_OK);
	assert_non_null(cur[0].raw);
	assert_string_equal(cur[0].raw, "second");
	assert_string_equal(cur[0].parsed, "p-second");
	assert_string_equal(cur[0].source, "mail");
	assert_memory_equal(cur[0].hash, h2, 32);
	assert_int_equal(cur[0].side, 0);
	assert_non_null(cur[1].raw);
	assert_string_equal(cur[1].raw, "red");
	assert_string_equal(cur[1].source, "opponent");
	assert_memory_equal(cur[1].hash, h3, 32);
	assert_int_equal(cur[1].side, 1);
	assert_null(cur[2].raw);
	assert_null(cur[3].raw);
	store_orders_free(cur);
	assert_null(cur[0].raw);

	assert_int_equal(store_orders_current(st, w2, cur, &err), HP_OK);
	assert_string_equal(cur[0].raw, "other window");
	assert_null(cur[1].raw);
	store_orders_free(cur);
	/* store_orders_sides: the same sides, superseded files not counted
	 * (each window's current rows only, through orders_current). */
	{
		unsigned sides = 99;
		int64_t w3 = make_window(st, cid, 2, 1, "blue", 1);

		assert_int_equal(store_orders_sides(st, wid, &sides, &err),
		    HP_OK);
		assert_int_equal(sides, 3u);
		assert_int_equal(store_orders_sides(st, w2, &sides, &err),
		    HP_OK);
		assert_int_equal(sides, 1u);
		assert_int_equal(store_orders_sides(st, w3, &sides, &err),
		    HP_OK);
		assert_int_equal(sides, 0u);
		fx_db_exec(path, "UPDATE orders SET current = 0 WHERE "
		    "window_id = 1 AND side_idx = 1");
		assert_int_equal(store_orders_sides(st, wid, &sides, &err),
		    HP_OK);
		assert_int_equal(sides, 1u);
	}
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static void
test_rollback(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	unsigned char hash[32] = { 0 };
	struct game g, h;
	int64_t cid, wid;
	char *before, *after;

	(void)state;
	rich_game(&g, "keep", 0);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	wid = make_window(st, cid, 3, 1, "blue", 7);
	before = fx_db_dump(path);

	assert_int_equal(store_begin(st, &err), HP_OK);
	rich_game(&h, "keep", 0);
	h.turn = 42;
	h.status = GAME_FINISHED;
	h.units[1].pos.q = 17;
	h.units[3].x[4] = 4444;
	h.nunits = 3;
	game_set_var(&h, "victory", 16);
	free(h.sides[1].standing);
	h.sides[1].standing = NULL;
	assert_int_equal(store_game_save(st, cid, &h, &err), HP_OK);
	assert_int_equal(store_orders_put(st, wid, 0, 0, "cli", "x", "", hash,
	    &err), HP_OK);
	assert_int_equal(store_window_set_state(st, wid, WSTATE_RESOLVED, hash,
	    &err), HP_OK);
	game_free(&h);
	/* Inside the transaction the change is visible... */
	game_init(&h);
	assert_int_equal(store_game_load(st, "keep", &h, NULL, &err), HP_OK);
	assert_int_equal(h.turn, 42);
	assert_int_equal(h.nunits, 3);
	game_free(&h);
	store_rollback(st);
	/* ... and after the rollback it is gone. */
	game_init(&h);
	assert_int_equal(store_game_load(st, "keep", &h, NULL, &err), HP_OK);
	assert_games_equal(&g, &h);
	game_free(&h);
	after = fx_db_dump(path);
	assert_string_equal(before, after);
	/* Rollback outside a transaction is harmless. */
	store_rollback(st);
	/* And a committed change stays. */
	assert_int_equal(store_begin(st, &err), HP_OK);
	g.turn = 5;
	assert_int_equal(store_game_save(st, cid, &g, &err), HP_OK);
	assert_int_equal(store_commit(st, &err), HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT turn FROM campaigns"), 5);
	free(before);
	free(after);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

/* Issue 17: an event's phase and a roll's purpose equal to the previous
 * row's of the window are stored as a ditto (""), an empty one after a
 * non-empty one as "\x01"; store_events_load and store_dice_load give
 * them back as they were. */
static void
test_ditto(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	static const int script[] = { 1, 2, 3, 4, 5 };
	static const char *const phases[] = { "", "", "Fire", "Fire", "",
	    "Move", "Move" };
	static const char *const purposes[] = { "a hit", "a hit", "", "",
	    "a hit" };
	struct events ev, evb;
	struct dice d, back;
	struct game g;
	int64_t cid, wid;
	size_t i;

	(void)state;
	fx_fam_game(&g, NULL);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	wid = make_window(st, cid, 1, 1, "blue", 1);
	events_init(&ev);
	for (i = 0; i < 7; i++) {
		events_phase(&ev, phases[i]);
		events_add(&ev, EVENT_ALL_SIDES, 0, "event %zu", i);
	}
	assert_int_equal(store_events_put(st, wid, &ev, &err), HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM events WHERE "
	    "phase = ''"), 4);
	events_init(&evb);
	assert_int_equal(store_events_load(st, wid, &evb, &err), HP_OK);
	assert_int_equal(evb.n, 7);
	for (i = 0; i < 7; i++) {
		assert_string_equal(evb.v[i].phase, phases[i]);
		assert_string_equal(evb.v[i].text, ev.v[i].text);
	}
	events_free(&ev);
	events_free(&evb);
	dice_init_scripted(&d, script, 5);
	for (i = 0; i < 5; i++)
		dice_roll(&d, 6, 0, purposes[i]);
	assert_int_equal(store_dice_put(st, wid, &d, &err), HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM dice WHERE "
	    "purpose = ''"), 2);
	dice_init_scripted(&back, NULL, 0);
	assert_int_equal(store_dice_load(st, wid, &back, &err), HP_OK);
	assert_int_equal(back.nlog, 5);
	for (i = 0; i < 5; i++) {
		assert_string_equal(back.log[i].purpose, purposes[i]);
		assert_int_equal(back.log[i].result, (int)i + 1);
	}
	dice_free(&back);
	dice_free(&d);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

static void
test_events_dice_reports(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	static const int script[] = { 3, 6, 1 };
	struct events ev;
	struct dice d, back;
	struct game g;
	int64_t cid, wid, w2;
	char *rows, *body;
	size_t i;

	(void)state;
	fx_fam_game(&g, NULL);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	wid = make_window(st, cid, 1, 1, "blue", 1);
	w2 = make_window(st, cid, 1, 2, "red", 2);

	events_init(&ev);
	events_phase(&ev, "Phase 1");
	events_add(&ev, EVENT_ALL_SIDES, 0, "everyone sees %d", 1);
	ev.step = 2;
	events_phase(&ev, "Phase 2");
	events_add(&ev, 2, 1, "only red, roll %d", 1);
	assert_int_equal(store_events_put(st, wid, &ev, &err), HP_OK);
	rows = fx_db_rows(path, "SELECT window_id, seq, step, phase, text, "
	    "visible, roll FROM events ORDER BY seq");
	assert_string_equal(rows, "1|1|0|Phase 1|everyone sees 1|255|0\n"
	    "1|2|2|Phase 2|only red, roll 1|2|1\n");
	free(rows);

	dice_init_scripted(&d, script, 3);
	dice_roll(&d, 6, 4, "first");
	dice_roll(&d, 6, 0, "second, no target");
	dice_roll(&d, 20, 2, "third");
	assert_int_equal(store_dice_put(st, wid, &d, &err), HP_OK);
	dice_init_scripted(&back, NULL, 0);
	assert_int_equal(store_dice_load(st, wid, &back, &err), HP_OK);
	assert_int_equal(back.nlog, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(back.log[i].seq, d.log[i].seq);
		assert_string_equal(back.log[i].purpose, d.log[i].purpose);
		assert_int_equal(back.log[i].sides, d.log[i].sides);
		assert_int_equal(back.log[i].target, d.log[i].target);
		assert_int_equal(back.log[i].result, d.log[i].result);
	}
	assert_int_equal(back.log[2].sides, 20);
	assert_int_equal(back.log[1].result, 6);
	dice_free(&back);
	/* Another window's log is empty. */
	dice_init_scripted(&back, NULL, 0);
	assert_int_equal(store_dice_load(st, w2, &back, &err), HP_OK);
	assert_int_equal(back.nlog, 0);
	dice_free(&back);
	/* A window's log is written once. */
	assert_int_equal(store_dice_put(st, wid, &d, &err), HP_EDB);

	assert_int_equal(store_report_put(st, wid, -1, "for the moderator",
	    &err), HP_OK);
	assert_int_equal(store_report_put(st, wid, 0, "for blue", &err),
	    HP_OK);
	assert_int_equal(store_report_put(st, w2, 0, "blue, later", &err),
	    HP_OK);
	body = store_report_get(st, wid, -1, &err);
	assert_non_null(body);
	assert_string_equal(body, "for the moderator");
	free(body);
	body = store_report_get(st, wid, 0, &err);
	assert_non_null(body);
	assert_string_equal(body, "for blue");
	free(body);
	body = store_report_get(st, w2, 0, &err);
	assert_non_null(body);
	assert_string_equal(body, "blue, later");
	free(body);
	err.code = 0;
	assert_null(store_report_get(st, wid, 1, &err));
	assert_int_equal(err.code, HP_ENOENT);
	assert_int_equal(store_report_put(st, wid, 0, "again", &err), HP_EDB);

	dice_free(&d);
	events_free(&ev);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

/* Everything the readers give of window wid (events with their cited
 * rolls, public and sealed rolls, the dice log), as text. Malloc'ed. */
static char *
pack_view(struct store *st, int64_t wid)
{
	struct hp_error err = { 0, "" };
	struct events ev;
	struct dice d;
	struct sbuf b;
	char *text, *sig, *pub;
	size_t i;
	int rc;

	sbuf_init(&b);
	events_init(&ev);
	dice_init_scripted(&d, NULL, 0);
	assert_int_equal(store_events_load(st, wid, &ev, &err), HP_OK);
	for (i = 0; i < ev.n; i++)
		sbuf_printf(&b, "E %d %d [%s] [%s] %u %d %d %u\n", ev.v[i].seq,
		    ev.v[i].step, ev.v[i].phase, ev.v[i].text, ev.v[i].visible,
		    ev.v[i].roll, ev.v[i].nroll, ev.v[i].roll_set);
	assert_int_equal(store_events_load_rolls(st, wid, &ev, &err), HP_OK);
	for (i = 0; i < ev.n; i++)
		sbuf_printf(&b, "R %d %d %u\n", ev.v[i].seq, ev.v[i].nroll,
		    ev.v[i].roll_set);
	assert_int_equal(store_dice_load(st, wid, &d, &err), HP_OK);
	assert_int_equal(store_sealed_dice_load(st, wid, &d, &err), HP_OK);
	for (i = 0; i < d.nlog; i++)
		sbuf_printf(&b, "D %d [%s] %d %d %d %u %d\n", d.log[i].seq,
		    d.log[i].purpose, d.log[i].sides, d.log[i].target,
		    d.log[i].result, d.log[i].visible, (int)d.log[i].sealed);
	for (i = 0; i < d.nslog; i++)
		sbuf_printf(&b, "S %d [%s] %d %d %d %u %d\n", d.slog[i].seq,
		    d.slog[i].purpose, d.slog[i].sides, d.slog[i].target,
		    d.slog[i].result, d.slog[i].visible, (int)d.slog[i].sealed);
	rc = store_dicelog_get(st, wid, &text, &sig, &pub, &err);
	if (rc == HP_OK)
		sbuf_printf(&b, "L [%s] [%s] [%s]\n", text, sig ? sig : "(null)",
		    pub ? pub : "(null)");
	else
		sbuf_printf(&b, "L none %d\n", rc);
	free(text);
	free(sig);
	free(pub);
	dice_free(&d);
	events_free(&ev);
	return sbuf_steal(&b);
}

/* Fill window wid with n events, rolls (sealed ones too when sealed) and
 * a dice log (signed when sig is not NULL). */
static void
pack_fill(struct store *st, int64_t cid, int64_t wid, int n, bool sealed,
    const char *sig, bool exact)
{
	struct hp_error err = { 0, "" };
	static const int script[] = { 3, 6, 1, 2, 5, 4, 6, 6, 1, 3, 2, 4 };
	unsigned char hash[32];
	struct events ev;
	struct dice d;
	struct sbuf log;
	int i;

	events_init(&ev);
	dice_init_scripted(&d, script, sizeof script / sizeof script[0]);
	sbuf_init(&log);
	sbuf_printf(&log, "hexpost dice log 1\nwindow: %lld\n", (long long)wid);
	if (exact) {
		/* The hashes a pack leaves out when they are stored
		 * elsewhere: the previous log's (pack_fill's hash: its window
		 * id in every byte; none before the first), the window's
		 * commitment and seed (make_window's), and a key it does not
		 * have (kept). */
		int k;

		sbuf_puts(&log, "previous: ");
		for (k = 0; k < 32; k++)
			sbuf_printf(&log, "%02x", (unsigned)(wid - 1) & 0xffu);
		sbuf_puts(&log, "\ncommitment: ");
		for (k = 0; k < 32; k++)
			sbuf_printf(&log, "%02x", (unsigned)(wid ^ 0xff) & 0xffu);
		sbuf_puts(&log, "\nseed: ");
		for (k = 0; k < DICE_SEEDLEN; k++)
			sbuf_printf(&log, "%02x", (unsigned)wid & 0xffu);
		sbuf_puts(&log, "\nkey: ");
		for (k = 0; k < 32; k++)
			sbuf_puts(&log, "ab");
		sbuf_printf(&log, "\nrolls: %d\n", n);
	}
	for (i = 0; i < n; i++) {
		events_phase(&ev, i < n / 2 ? "Fire" : i == n - 1 ? "" : "Move");
		ev.step = i / 3;
		dice_roll(&d, i % 2 ? 20 : 6, i % 3, i % 4 ? i % 3 ? "a hit" :
		    "tab\there, back\\slash" : "");
		events_add(&ev, i % 5 ? EVENT_ALL_SIDES : 2u, (int)d.nlog,
		    "Blue's rifles at C%d fire at D%d: %d, %s", i, i + 1,
		    d.log[d.nlog - 1].result, i % 2 ? "hit" : "no effect\n\t ok");
		/* exact: the roll lines of a real dice log (the pack reads
		 * the rolls from them), else other lines. */
		if (exact) {
			const struct dice_roll *r = &d.log[d.nlog - 1];
			const char *c;

			sbuf_printf(&log, "roll: %d %d %d %d ", r->seq, r->sides,
			    r->target, r->result);
			for (c = r->purpose; *c != '\0'; c++)
				if (*c < 0x20 || *c == '\\')
					sbuf_printf(&log, "\\x%02x",
					    (unsigned)*c);
				else
					sbuf_add(&log, c, 1);
			sbuf_puts(&log, "\n");
		} else
			sbuf_printf(&log, "roll: %zu %d\n", d.nlog,
			    d.log[d.nlog - 1].result);
	}
	if (n > 1) {
		ev.v[1].nroll = 2;
		ev.v[n - 1].roll_set = sealed ? 3 : 0;
	}
	if (sealed) {
		dice_roll_sealed(&d, 1, 6, 4, "a hidden move");
		dice_roll_sealed(&d, 3, 6, 0, "a hidden move");
		dice_roll_sealed(&d, 1, 10, 0, "");
	}
	assert_int_equal(store_events_put(st, wid, &ev, &err), HP_OK);
	assert_int_equal(store_dice_put(st, wid, &d, &err), HP_OK);
	assert_int_equal(store_sealed_dice_put(st, wid, &d, &err), HP_OK);
	assert_int_equal(store_events_put_rolls(st, wid, &ev, &err), HP_OK);
	memset(hash, (int)wid, sizeof hash);
	assert_int_equal(store_dicelog_put(st, cid, wid, log.buf, hash, sig,
	    sig ? "RWTkey" : NULL, &err), HP_OK);
	sbuf_free(&log);
	dice_free(&d);
	events_free(&ev);
}

#define NPACKW 12

/* Issue 17: store_compact packs each resolved window a day old (events,
 * dice, sealed dice, dice log) into one row of window_packs; every reader
 * gives what it gave from the rows; a second compaction changes nothing;
 * a compaction that fails part way leaves the database as it was. */
static void
test_window_pack(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct store_compact_stats cs;
	struct game g;
	int64_t cid, wid[NPACKW];
	char *before[NPACKW], *after, *dump, *dump2, sql[256];
	int i;

	(void)state;
	fx_fam_game(&g, NULL);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	for (i = 0; i < NPACKW; i++)
		wid[i] = make_window(st, cid, 1 + i / 2, 1 + i % 2, "blue",
		    (unsigned char)(i + 1));
	pack_fill(st, cid, wid[0], 12, false, "untrusted comment: x\nRWQsig\n"
	    "trusted comment: y\nglobal\n", true);
	pack_fill(st, cid, wid[1], 9, true, "sig 2", false);
	pack_fill(st, cid, wid[2], 0, false, NULL, true);
	pack_fill(st, cid, wid[3], 7, true, NULL, true);
	/* wid[4]: resolved, nothing stored (no dice log either); then
	 * windows enough for a chain of dictionaries longer than
	 * STORE_WPACK_CHAIN. */
	for (i = 5; i < NPACKW; i++)
		pack_fill(st, cid, wid[i], 3 + i % 4, i % 2 == 0, "sig", true);
	fx_db_exec(path, "UPDATE windows SET state = 'resolved', resolved_at = "
	    "'2026-01-01T00:00:00Z'");
	/* As a database of migration 023 has them (no window_packs): read
	 * as they are before the migration, and packed after it. */
	store_close(st);
	fx_db_exec(path, "DROP INDEX orders_hash; DROP INDEX orders_nonce; "
	    "DROP INDEX orders_unkept; "
	    "DROP TABLE window_packs; DROP INDEX orders_window; "
	    "ALTER TABLE orders DROP COLUMN nonce; ALTER TABLE campaigns "
	    "DROP COLUMN chain_mark_k; ALTER TABLE campaigns DROP COLUMN "
	    "chain_mark; PRAGMA user_version = 23");
	assert_int_equal(store_open(&st, path, false, &err), HP_OK);
	assert_int_equal(store_schema_version(st), 23);
	for (i = 0; i < NPACKW; i++)
		before[i] = pack_view(st, wid[i]);
	assert_int_equal(store_compact(st, 1767400000L, 0, &cs, &err), HP_OK);
	assert_int_equal(cs.windows_packed, 0);
	assert_int_equal(store_migrate(st, &err), HP_OK);
	assert_int_equal(store_schema_version(st), last_migration());
	for (i = 0; i < NPACKW; i++) {
		after = pack_view(st, wid[i]);
		assert_string_equal(before[i], after);
		free(after);
	}
	assert_non_null(strstr(before[1], "S 1 [a hidden move] 6 0 "));
	assert_non_null(strstr(before[4], "L none"));

	/* Not a day old at 2026-01-01T12:00: nothing packed. */
	assert_int_equal(store_compact(st, 1767268800L, 0, &cs, &err), HP_OK);
	assert_int_equal(cs.windows_packed, 0);

	/* Failing part way (the fourth window's dice log cannot be
	 * rewritten): nothing packed, every row kept. */
	dump = fx_db_dump(path);
	snprintf(sql, sizeof sql, "CREATE TRIGGER no_pack BEFORE UPDATE ON "
	    "dice_logs WHEN new.window_id = %lld BEGIN SELECT RAISE(ABORT, "
	    "'full'); END", (long long)wid[3]);
	fx_db_exec(path, sql);
	assert_int_equal(store_compact(st, 1767400000L, 0, &cs, &err), HP_EDB);
	fx_db_exec(path, "DROP TRIGGER no_pack");
	dump2 = fx_db_dump(path);
	assert_string_equal(dump, dump2);
	free(dump);
	free(dump2);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM window_packs"),
	    0);

	assert_int_equal(store_compact(st, 1767400000L, 0, &cs, &err), HP_OK);
	assert_int_equal(cs.windows_packed, NPACKW);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM window_packs"),
	    NPACKW);
	assert_int_equal(fx_db_long(path, "SELECT (SELECT count(*) FROM events) "
	    "+ (SELECT count(*) FROM dice) + (SELECT count(*) FROM "
	    "sealed_dice)"), 0);
	/* The first window is packed alone, each other one against the
	 * one before it, but for the tenth (the chain would be longer than
	 * 8): against the first; the dice log rows keep their hash. */
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM window_packs "
	    "WHERE substr(data, 9, 8) = x'0000000000000000'"), 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM window_packs WHERE "
	    "substr(data, 9, 8) = x'%016llx'", (unsigned long long)wid[0]);
	assert_int_equal(fx_db_long(path, sql), 2);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM dice_logs "
	    "WHERE text = x'0048504B' AND pubkey IS NULL AND length(hash) = "
	    "32"), NPACKW - 1);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM dice_logs "
	    "WHERE signature IS NULL"), 2);
	for (i = 0; i < NPACKW; i++) {
		after = pack_view(st, wid[i]);
		assert_string_equal(before[i], after);
		free(after);
	}

	/* Idempotent: a second run packs nothing and changes nothing. */
	dump = fx_db_dump(path);
	assert_int_equal(store_compact(st, 1767400000L, 0, &cs, &err), HP_OK);
	assert_int_equal(cs.windows_packed, 0);
	dump2 = fx_db_dump(path);
	assert_string_equal(dump, dump2);
	free(dump);
	free(dump2);

	/* A damaged pack is an error, not other values. */
	fx_db_exec(path, "UPDATE window_packs SET data = substr(data, 1, "
	    "length(data) - 3) WHERE window_id = 2");
	{
		struct events ev;

		events_init(&ev);
		assert_int_equal(store_events_load(st, wid[1], &ev, &err),
		    HP_EDB);
		events_free(&ev);
	}
	for (i = 0; i < NPACKW; i++)
		free(before[i]);
	game_free(&g);
	store_close(st);
	fx_tmp_clean();
}

/* Remove the database a failed test may have left behind. */
/* A report as a moderator's reads its window (pack_view: its events and
 * dice log) under a map; malloc'ed. */
static char *
record_report(struct store *st, int64_t wid, int side)
{
	struct sbuf b;
	char *v = pack_view(st, wid);
	int r, c;

	sbuf_init(&b);
	sbuf_printf(&b, "Report of window %lld for view %d\n", (long long)wid,
	    side);
	for (r = 0; r < 20; r++) {
		for (c = 0; c < 20; c++)
			sbuf_puts(&b, (r * c + (int)wid) % 7 == 0 ? " ~" : " .");
		sbuf_puts(&b, "\n");
	}
	if (side < 0)
		sbuf_puts(&b, v);
	else
		sbuf_puts(&b, strstr(v, "D ") != NULL ? strstr(v, "D ") : v);
	free(v);
	return sbuf_steal(&b);
}

/* Issue 17, pwstore: a moderator's report after the campaign's first is
 * stored against the previous one and its window's record (events' text,
 * dice log: STORE_RMAGIC) when smaller; it reads back byte for byte
 * before and after the window is packed; an edited event, dice log or
 * pack makes it, and the side's report leaning on it, read as damaged,
 * the earlier window's as before; put back, they read again. */
static void
test_report_record(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct store_compact_stats cs;
	char *want[3][2], *got, sql[256];
	int64_t cid, w[3];
	struct game g;
	int k, s;

	(void)state;
	rich_game(&g, "alpha", 0);
	assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid, &err),
	    HP_OK);
	for (k = 0; k < 3; k++) {
		w[k] = make_window(st, cid, k + 1, 1, "blue", (unsigned char)(k +
		    1));
		pack_fill(st, cid, w[k], 12 + k, false, "sig", true);
	}
	for (k = 0; k < 3; k++)
		for (s = -1; s <= 0; s++) {
			want[k][s + 1] = record_report(st, w[k], s);
			assert_int_equal(store_report_put(st, w[k], s,
			    want[k][s + 1], &err), HP_OK);
		}
	/* The first alone (nothing to lean on), the later moderator's
	 * reports against the record, smaller than against the previous
	 * report alone would be (the record holds what is new). */
	snprintf(sql, sizeof sql, "SELECT count(*) FROM reports WHERE "
	    "side_idx = -1 AND substr(body, 1, 4) = x'00485052' AND window_id "
	    "IN (%lld, %lld)", (long long)w[1], (long long)w[2]);
	assert_int_equal(fx_db_long(path, sql), 2);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM reports WHERE "
	    "substr(body, 1, 4) = x'00485052' AND side_idx <> -1"), 0);
	for (k = 0; k < 3; k++)
		for (s = -1; s <= 0; s++) {
			got = store_report_get(st, w[k], s, &err);
			assert_non_null(got);
			assert_string_equal(got, want[k][s + 1]);
			free(got);
		}
	/* An edited event of window 2: its reports read as damaged, window
	 * 1's as before; put back, they read again. */
	fx_db_exec(path, "CREATE TABLE saved_ev AS SELECT * FROM events; "
	    "CREATE TABLE saved_log AS SELECT * FROM dice_logs");
	snprintf(sql, sizeof sql, "UPDATE events SET text = 'nothing "
	    "happened' WHERE window_id = %lld AND seq = 1", (long long)w[1]);
	fx_db_exec(path, sql);
	for (s = -1; s <= 0; s++) {
		got = store_report_get(st, w[1], s, &err);
		assert_non_null(strstr(got, "damaged"));
		free(got);
		got = store_report_get(st, w[0], s, &err);
		assert_string_equal(got, want[0][s + 1]);
		free(got);
	}
	fx_db_exec(path, "DELETE FROM events; INSERT INTO events SELECT * FROM "
	    "saved_ev");
	got = store_report_get(st, w[1], 0, &err);
	assert_string_equal(got, want[1][1]);
	free(got);
	/* An edited dice log: the same. */
	snprintf(sql, sizeof sql, "UPDATE dice_logs SET text = 'hexpost dice "
	    "log 1' WHERE window_id = %lld", (long long)w[1]);
	fx_db_exec(path, sql);
	got = store_report_get(st, w[1], -1, &err);
	assert_non_null(strstr(got, "damaged"));
	free(got);
	fx_db_exec(path, "DELETE FROM dice_logs; INSERT INTO dice_logs SELECT * "
	    "FROM saved_log");
	got = store_report_get(st, w[1], -1, &err);
	assert_string_equal(got, want[1][0]);
	free(got);
	/* Packed: the record reads the same from the pack. */
	fx_db_exec(path, "UPDATE windows SET state = 'resolved', resolved_at = "
	    "'2026-01-01T00:00:00Z'");
	assert_int_equal(store_compact(st, 1767400000L, 0, &cs, &err), HP_OK);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM window_packs WHERE "
	    "window_id IN (%lld, %lld)", (long long)w[1], (long long)w[2]);
	assert_int_equal(fx_db_long(path, sql), 2);
	for (k = 0; k < 3; k++)
		for (s = -1; s <= 0; s++) {
			got = store_report_get(st, w[k], s, &err);
			assert_string_equal(got, want[k][s + 1]);
			free(got);
		}
	/* A damaged pack of window 3: its reports read as damaged. */
	snprintf(sql, sizeof sql, "UPDATE window_packs SET data = data || 'x' "
	    "WHERE window_id = %lld", (long long)w[2]);
	fx_db_exec(path, sql);
	for (s = -1; s <= 0; s++) {
		got = store_report_get(st, w[2], s, &err);
		assert_non_null(strstr(got, "damaged"));
		free(got);
		got = store_report_get(st, w[1], s, &err);
		assert_string_equal(got, want[1][s + 1]);
		free(got);
	}
	for (k = 0; k < 3; k++)
		for (s = -1; s <= 0; s++)
			free(want[k][s + 1]);
	game_free(&g);
	store_close(st);
}

static int
cleanup(void **state)
{
	(void)state;
	fx_tmp_db();
	fx_tmp_clean();
	return 0;
}

/* store_orders_replay's nonce reader for the test: the text after
 * "nonce: " up to the end of its line ("" if none); counts its calls. */
static int replay_reads;

static void
replay_nonce_of(const char *raw, size_t len, char *out, size_t outlen)
{
	const char *p = strstr(raw, "nonce: ");
	size_t n;

	(void)len;
	replay_reads++;
	out[0] = '\0';
	if (p == NULL)
		return;
	p += 7;
	n = strcspn(p, "\n");
	snprintf(out, outlen, "%.*s", (int)n, p);
}

/* Issue 17 (ingest): the replay check finds an earlier file of the
 * campaign by its bytes or its nonce, never the opponent's nor another
 * campaign's; it writes nothing, reads the files whose nonce is not kept
 * and compares the kept ones (store_orders_nonce_set) in SQL. */
static void
test_orders_replay(void **state)
{
	struct hp_error err = { 0, "" };
	unsigned char h1[32], h2[32], h3[32], hx[32];
	struct store_window w;
	const char *path;
	struct config cfg;
	struct store *st;
	bool file, nonce;
	int64_t cid;

	(void)state;
	memset(h1, 1, sizeof h1);
	memset(h2, 2, sizeof h2);
	memset(h3, 3, sizeof h3);
	memset(hx, 9, sizeof hx);
	st = fx_club(&path, &cfg, &cid, NULL, "replay");
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	assert_int_equal(store_orders_put(st, w.id, 0, 0, "mail",
	    "side: blue\nnonce: n-one\nmove 1 A1\n", "p", h1, &err), HP_OK);
	assert_int_equal(store_orders_put(st, w.id, 0, 0, "cli",
	    "side: blue\nmove 1 A2\n", "p", h2, &err), HP_OK);
	assert_int_equal(store_orders_put(st, w.id, 1, 0, "opponent",
	    "side: red\nnonce: n-opp\n", "p", h3, &err), HP_OK);
	replay_reads = 0;
	assert_int_equal(store_begin(st, &err), HP_OK);
	assert_int_equal(store_orders_replay(st, cid, hx, "n-one",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_false(file);
	assert_true(nonce);
	assert_true(replay_reads >= 1 && replay_reads <= 2); /* not red's */
	assert_int_equal(store_orders_replay(st, cid, h2, "",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_true(file);
	assert_false(nonce);                   /* "" matches no file */
	assert_int_equal(store_orders_replay(st, cid, h3, "n-opp",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_false(file);
	assert_false(nonce);
	assert_int_equal(store_orders_replay(st, cid + 1000, h1, "n-one",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_false(file);
	assert_false(nonce);
	assert_int_equal(store_commit(st, &err), HP_OK);
	/* The checks wrote nothing. */
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "nonce IS NULL"), 3);
	/* Kept: compared in SQL, the file no longer read. */
	assert_int_equal(store_orders_nonce_set(st, cid, h1, "n-one", &err),
	    HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "nonce = 'n-one'"), 1);
	replay_reads = 0;
	assert_int_equal(store_orders_replay(st, cid, hx, "n-one",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_true(nonce);
	/* The command line's at most: the scan stops at a match (issue 17,
	 * one pass). */
	assert_true(replay_reads <= 1);
	replay_reads = 0;
	assert_int_equal(store_orders_replay(st, cid, hx, "n-two",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_false(file);
	assert_false(nonce);
	assert_int_equal(replay_reads, 1);     /* the command line's only */
	/* Every player's file kept (migration 29: a host that began with
	 * it): no file is read, each question is an index lookup, and each
	 * still finds its match. */
	assert_int_equal(store_orders_nonce_set(st, cid, h2, "", &err), HP_OK);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "nonce IS NULL AND source <> 'opponent'"), 0);
	replay_reads = 0;
	assert_int_equal(store_orders_replay(st, cid, hx, "n-two",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_false(file);
	assert_false(nonce);
	assert_int_equal(store_orders_replay(st, cid, h1, "n-one",
	    replay_nonce_of, &file, &nonce, &err), HP_OK);
	assert_true(file);
	assert_true(nonce);
	assert_int_equal(replay_reads, 0);
	store_close(st);
}

/* Issue 17 (migration 028): a view's first report of a campaign, with
 * nothing of its campaign to lean on, is stored against its scope's shared
 * dictionary (the first campaign's report, which stays stored alone);
 * order files are stored against theirs when their window is packed. Each
 * reads back byte for byte through every reader; compacting again changes
 * nothing; an edited dictionary makes what leans on it read as damaged
 * (a report says so, an order file reads as its stored bytes: the audit
 * finds both). */
static void
test_shared_dicts(void **state)
{
	struct hp_error err = { 0, "" };
	const char *path = fx_tmp_db();
	struct store *st = fx_store_new(path);
	struct store_compact_stats cs;
	struct store_order cur[GAME_MAX_SIDES];
	struct store_order_row *rows;
	unsigned char hash[32] = { 0 };
	struct sbuf rep[2], ord[3], each;
	struct game a, b;
	int64_t ca, cb, wa, wb, wb2;
	char *got, *dump, *dump2, *pv[3], sql[256];
	int i, k, n;

	(void)state;
	rich_game(&a, "alpha", 0);
	rich_game(&b, "bravo", 1);
	assert_int_equal(store_campaign_create(st, &a, NULL, 0, &ca, &err),
	    HP_OK);
	assert_int_equal(store_campaign_create(st, &b, NULL, 0, &cb, &err),
	    HP_OK);
	wa = make_window(st, ca, 1, 1, "blue", 1);
	wb = make_window(st, cb, 1, 1, "blue", 2);
	wb2 = make_window(st, cb, 2, 1, "blue", 3);
	for (k = 0; k < 3; k++) {
		if (k < 2) {
			sbuf_init(&rep[k]);
			for (i = 0; i < 150; i++)
				sbuf_printf(&rep[k], "  %02d . # unit-%d at %c%d%s\n",
				    i, i % 13, 'A' + i % 20, (i * 7) % 31,
				    i == 40 + k ? " (moved)" : "");
		}
		sbuf_init(&ord[k]);
		for (i = 0; i < 40; i++)
			sbuf_printf(&ord[k], "move unit-%d to %c%d\n", i,
			    'A' + (i + (i == 9 ? k : 0)) % 20, (i * 3) % 17);
	}
	assert_int_equal(store_report_put(st, wa, -1, rep[0].buf, &err), HP_OK);
	assert_int_equal(store_report_put(st, wb, -1, rep[1].buf, &err), HP_OK);
	assert_int_equal(store_orders_put(st, wa, 0, 0, "cli", ord[0].buf,
	    ord[0].buf, hash, &err), HP_OK);
	sbuf_init(&each);
	sbuf_printf(&each, "%s# signed\n", ord[1].buf);
	assert_int_equal(store_orders_put(st, wb, 0, 0, "cli", each.buf,
	    ord[1].buf, hash, &err), HP_OK);
	assert_int_equal(store_orders_put(st, wb2, 0, 0, "cli", ord[2].buf,
	    "short", hash, &err), HP_OK);
	/* The first campaign's report alone (and made the dictionary), the
	 * second's against it: a fraction of the first's size. */
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM shared_dicts"),
	    1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM reports WHERE "
	    "window_id = %lld AND substr(body, 1, 4) = x'0048505a'",
	    (long long)wa);
	assert_int_equal(fx_db_long(path, sql), 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM reports WHERE "
	    "window_id = %lld AND substr(body, 1, 4) = x'00485058' AND "
	    "length(body) * 4 < (SELECT length(body) FROM reports WHERE "
	    "window_id = %lld)", (long long)wb, (long long)wa);
	assert_int_equal(fx_db_long(path, sql), 1);
	got = store_report_get(st, wb, -1, &err);
	assert_non_null(got);
	assert_string_equal(got, rep[1].buf);
	free(got);
	got = store_report_get(st, wa, -1, &err);
	assert_string_equal(got, rep[0].buf);
	free(got);
	/* Order files: as before until their window is packed; then the
	 * first campaign's stay (they are the dictionaries), the others
	 * lean on them ("short" gains nothing and stays plain). */
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "substr(raw, 1, 4) = x'00485058'"), 0);
	/* Window packs: a campaign's first against the scope's first (the
	 * first campaign's), the later ones chained on it. */
	pack_fill(st, ca, wa, 12, true, "sig a", true);
	pack_fill(st, cb, wb, 11, true, "sig b", true);
	pack_fill(st, cb, wb2, 9, false, "sig b2", true);
	fx_db_exec(path, "UPDATE windows SET state = 'resolved', resolved_at = "
	    "'2026-01-01T00:00:00Z'");
	pv[0] = pack_view(st, wa);
	pv[1] = pack_view(st, wb);
	pv[2] = pack_view(st, wb2);
	assert_int_equal(store_compact(st, 1767400000L, 0, &cs, &err), HP_OK);
	assert_int_equal(cs.windows_packed, 3);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM shared_dicts"),
	    4);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM window_packs WHERE "
	    "window_id = %lld AND substr(data, 1, 4) = x'00485058'",
	    (long long)wb);
	assert_int_equal(fx_db_long(path, sql), 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM window_packs WHERE "
	    "window_id = %lld AND substr(data, 9, 8) = x'%016llx'",
	    (long long)wb2, (unsigned long long)wb);
	assert_int_equal(fx_db_long(path, sql), 1);
	for (k = 0; k < 3; k++) {
		got = pack_view(st, k == 0 ? wa : k == 1 ? wb : wb2);
		assert_string_equal(got, pv[k]);
		free(got);
		free(pv[k]);
	}
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "substr(raw, 1, 4) = x'00485058'"), 2);
	/* bravo's first parsed form is its raw file but a comment: stored
	 * against that (STORE_YMAGIC), a fraction of it. */
	snprintf(sql, sizeof sql, "SELECT count(*) FROM orders WHERE "
	    "window_id = %lld AND substr(parsed, 1, 4) = x'00485059' AND "
	    "length(parsed) < 40", (long long)wb);
	assert_int_equal(fx_db_long(path, sql), 1);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM orders WHERE "
	    "parsed = 'short'"), 1);
	assert_int_equal(store_orders_current(st, wb2, cur, &err), HP_OK);
	assert_string_equal(cur[0].raw, ord[2].buf);
	assert_string_equal(cur[0].parsed, "short");
	store_orders_free(cur);
	assert_int_equal(store_orders_current(st, wb, cur, &err), HP_OK);
	assert_string_equal(cur[0].raw, each.buf);
	assert_string_equal(cur[0].parsed, ord[1].buf);
	store_orders_free(cur);
	assert_int_equal(store_orders_all(st, wb, &rows, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].raw, each.buf);
	store_order_rows_free(rows, n);
	sbuf_free(&each);
	sbuf_init(&each);
	assert_int_equal(store_orders_each(st, cb, orders_each_cb, &each,
	    &err), HP_OK);
	assert_non_null(strstr(each.buf, ord[1].buf));
	assert_non_null(strstr(each.buf, ord[2].buf));
	assert_non_null(strstr(each.buf, "# signed\n"));
	sbuf_free(&each);
	/* Compacting again changes nothing. */
	dump = fx_db_dump(path);
	assert_int_equal(store_compact(st, 1767400000L, 0, &cs, &err), HP_OK);
	dump2 = fx_db_dump(path);
	assert_string_equal(dump, dump2);
	free(dump);
	free(dump2);
	/* Edited dictionaries: what leans on them reads as damaged. */
	fx_db_exec(path, "UPDATE shared_dicts SET data = CAST(data || 'x' AS "
	    "BLOB)");
	got = store_report_get(st, wb, -1, &err);
	assert_non_null(strstr(got, "damaged"));
	free(got);
	got = store_report_get(st, wa, -1, &err);
	assert_string_equal(got, rep[0].buf);
	free(got);
	assert_int_equal(store_orders_current(st, wb2, cur, &err), HP_OK);
	assert_true(strcmp(cur[0].raw, ord[2].buf) != 0);
	store_orders_free(cur);
	/* A parsed form against its raw file: the raw file edited, it
	 * reads as its stored bytes. */
	snprintf(sql, sizeof sql, "UPDATE orders SET raw = 'edited' WHERE "
	    "window_id = %lld", (long long)wb);
	fx_db_exec(path, sql);
	assert_int_equal(store_orders_current(st, wb, cur, &err), HP_OK);
	assert_string_equal(cur[0].raw, "edited");
	assert_int_equal(memcmp(cur[0].parsed, "\0HPY", 4), 0);
	store_orders_free(cur);
	{
		struct events ev;

		events_init(&ev);
		assert_int_equal(store_events_load(st, wb2, &ev, &err), HP_EDB);
		events_free(&ev);
		events_init(&ev);
		assert_int_equal(store_events_load(st, wa, &ev, &err), HP_OK);
		events_free(&ev);
	}
	for (k = 0; k < 3; k++) {
		if (k < 2)
			sbuf_free(&rep[k]);
		sbuf_free(&ord[k]);
	}
	game_free(&a);
	game_free(&b);
	store_close(st);
	fx_tmp_clean();
}

/* Issue 17: store_players_by_key gives a key's players of active
 * campaigns before those of finished ones, each by id, and counts them
 * all however few it fills in (the order intake picks a campaign by). */
static void
test_players_by_key(void **state)
{
	struct hp_error err = { 0, "" };
	struct store *st = fx_store_new(fx_tmp_db());
	static const char *names[3] = { "alpha", "bravo", "charlie" };
	struct store_player out[4];
	struct game g;
	int64_t cid[3];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		rich_game(&g, names[i], 0);
		assert_int_equal(store_campaign_create(st, &g, NULL, 0, &cid[i],
		    &err), HP_OK);
		game_free(&g);
		assert_int_equal(store_player_add(st, cid[i], 0, "ann",
		    "a@example.org", "PUB", "00112233aabbccdd", false, &err),
		    HP_OK);
	}
	/* The first campaign (its player the lowest id) is over. */
	assert_int_equal(store_exec(st, "finish", "UPDATE campaigns SET "
	    "status = 'finished' WHERE id = ?1", STORE_ARGS(STORE_INT(cid[0])),
	    NULL, &err), HP_OK);
	assert_int_equal(store_players_by_key(st, "00112233aabbccdd", out, 4,
	    &err), 3);
	assert_string_equal(out[0].campaign, "bravo");
	assert_string_equal(out[1].campaign, "charlie");
	assert_string_equal(out[2].campaign, "alpha");
	assert_true(out[0].id < out[1].id);
	assert_string_equal(out[2].pubkey, "PUB");
	/* Fewer filled in than there are: still all counted. */
	memset(out, 0, sizeof out);
	assert_int_equal(store_players_by_key(st, "00112233aabbccdd", out, 1,
	    &err), 3);
	assert_string_equal(out[0].campaign, "bravo");
	assert_string_equal(out[1].campaign, "");
	assert_int_equal(store_players_by_key(st, "ffffffffffffffff", out, 4,
	    &err), 0);
	store_close(st);
	fx_tmp_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate),
		cmocka_unit_test(test_pragmas),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_big_table),
		cmocka_unit_test(test_two_campaigns),
		cmocka_unit_test(test_duplicate_name),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_orders_supersede),
		cmocka_unit_test(test_rollback),
		cmocka_unit_test(test_events_dice_reports),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_orders_compressed),
		cmocka_unit_test(test_ditto),
		cmocka_unit_test_teardown(test_window_pack, cleanup),
		cmocka_unit_test(test_orders_replay),
		cmocka_unit_test(test_shared_dicts),
		cmocka_unit_test(test_copies_sdict),
		cmocka_unit_test_teardown(test_report_record, cleanup),
		cmocka_unit_test(test_players_by_key),
	};

	return cmocka_run_group_tests(tests, NULL, cleanup);
}
