/* test_store_report: how reports and sent copies are kept (issue 17,
 * packrep). A chain of reports, each stored against the view's previous
 * one, with a new chain every STORE_REPORT_CHAIN reports, reads back byte
 * for byte (before and after compaction, through another connection); rows
 * in every older format (plain text, zlib alone, zlib against the
 * campaign's first report) read as they did and new reports chain onto
 * them; an edited link reads as damaged, as do the reports stored against
 * it, and a link naming a later window cannot make the reader loop. A sent
 * report's copy is compacted to the headers a bounce and a reader need and
 * its body's hash; a copy compacted the old way reads as it was. Picture
 * data is stored like reports. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "fixtures.h"
#include "store.h"
#include "hexpost.h"

#define NWIN 40

/* Run sql on the database at path binding blob p (n bytes) as ?1. */
static void
exec_blob(const char *path, const char *sql, const void *p, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE,
	    NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_bind_blob(s, 1, p, (int)n, SQLITE_TRANSIENT),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* Add n resolved windows to campaign cid after window base (ids base + 1
 * ...). */
static void
add_windows(const char *path, int64_t cid, int64_t base, int n)
{
	char sql[512];
	int i;

	for (i = 1; i <= n; i++) {
		snprintf(sql, sizeof sql, "INSERT INTO windows(id, campaign_id, "
		    "turn, number, name, kind, sides, state, seed, commitment) "
		    "VALUES (%lld, %lld, %d, 1, 'later', 0, 1, 'resolved', x'00', "
		    "x'00')", (long long)(base + i), (long long)cid, 100 + i);
		fx_db_exec(path, sql);
	}
}

/* A report of window k for view side: a map where a few units move each
 * window, and a few lines of text; caller frees. */
static char *
report_text(int k, int side)
{
	struct sbuf b;
	int r, c;

	sbuf_init(&b);
	sbuf_printf(&b, "Turn %d, window 'blue' resolved. Report for %s.\n\n",
	    k + 1, side < 0 ? "the moderator" : "blue");
	for (r = 0; r < 30; r++) {
		sbuf_printf(&b, "  %02d ", r);
		for (c = 0; c < 30; c++)
			sbuf_puts(&b, r == (k + c) % 30 ? " A" : r == (3 * k +
			    c / 2) % 30 ? " B" : (r * c) % 7 == 0 ? " ~" :
			    " .");
		sbuf_puts(&b, "\n");
	}
	sbuf_printf(&b, "\nA company moves to %d%d and fires: %d hits.\n",
	    k % 9, (k * 7) % 9, k % 4);
	if (side < 0)
		sbuf_printf(&b, "Dice: %d %d %d\n", k % 6 + 1, (k * 5) % 6 + 1,
		    (k * 11) % 6 + 1);
	return sbuf_steal(&b);
}

/* The window id the report of wid for side names as its dictionary (0:
 * none), read from the stored header. */
static int64_t
dict_window(const char *path, int64_t wid, int side)
{
	char sql[200], *hex;
	int64_t d = 0;
	int i;

	snprintf(sql, sizeof sql, "SELECT CASE WHEN substr(body, 1, 4) IN "
	    "(x'00485044', x'00485045') THEN hex(substr(body, 9, 8)) ELSE '' "
	    "END FROM reports WHERE window_id = %lld AND side_idx = %d",
	    (long long)wid, side);
	hex = fx_db_text(path, sql);
	assert_non_null(hex);
	for (i = 0; hex[i] != '\0'; i++)
		d = d << 4 | (hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'A' + 10);
	free(hex);
	return d;
}

/* The other view's window the report of wid for side names as part of
 * its dictionary (0: none). */
static int64_t
other_window(const char *path, int64_t wid, int side)
{
	char sql[200], *hex;
	int64_t d = 0;
	int i;

	snprintf(sql, sizeof sql, "SELECT CASE WHEN substr(body, 1, 4) = "
	    "x'00485045' THEN hex(substr(body, 17, 8)) ELSE '' END FROM "
	    "reports WHERE window_id = %lld AND side_idx = %d",
	    (long long)wid, side);
	hex = fx_db_text(path, sql);
	assert_non_null(hex);
	for (i = 0; hex[i] != '\0'; i++)
		d = d << 4 | (hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'A' + 10);
	free(hex);
	return d;
}

/* Check every report of windows first .. first + n - 1 reads back as
 * report_text made it. */
static void
check_all(struct store *st, int64_t first, int n)
{
	struct hp_error err = { 0, "" };
	char *want, *got;
	int k, s;

	for (k = 0; k < n; k++)
		for (s = -1; s <= 0; s++) {
			want = report_text(k, s);
			got = store_report_get(st, first + k, s, &err);
			assert_non_null(got);
			assert_string_equal(got, want);
			free(got);
			free(want);
		}
}

/* A chain of NWIN reports per view: each stored against the previous one
 * (a new chain, against the campaign's first report, every 16), read back
 * byte for byte, through another connection and after compaction. */
static void
test_chain(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_compact_stats cs;
	struct store_window w;
	const char *path;
	struct config cfg;
	struct store *st;
	int64_t cid, first, d;
	int k, s, depth, maxdepth = 0, keys = 0, chained = 0;
	long plain, stored;
	char *text, sql[200];

	(void)state;
	st = fx_club(&path, &cfg, &cid, NULL, "chain");
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	first = w.id;
	add_windows(path, cid, first, NWIN - 1);
	plain = 0;
	for (k = 0; k < NWIN; k++)
		for (s = -1; s <= 0; s++) {
			text = report_text(k, s);
			plain += (long)strlen(text);
			assert_int_equal(store_report_put(st, first + k, s, text,
			    &err), HP_OK);
			free(text);
		}
	check_all(st, first, NWIN);
	/* The shape: the first alone, the others against an earlier one,
	 * no chain longer than 16 links. */
	for (s = -1; s <= 0; s++)
		for (k = 0; k < NWIN; k++) {
			d = dict_window(path, first + k, s);
			if (k == 0) {
				assert_int_equal(d, 0);
				continue;
			}
			assert_true(d >= first && d < first + k);
			if (d == first + k - 1)
				chained++;
			if (d == first && k > 1)
				keys++;
			/* The depth its header records. */
			snprintf(sql, sizeof sql, "SELECT unicode(CAST(substr("
			    "body, 26, 1) AS TEXT)) FROM reports WHERE window_id "
			    "= %lld AND side_idx = %d", (long long)(first + k),
			    s);
			depth = (int)fx_db_long(path, sql);
			assert_true(depth >= 1);
			if (depth > maxdepth)
				maxdepth = depth;
		}
	/* A side's report leans on the moderator's of its window too. */
	for (k = 0; k < NWIN; k++) {
		assert_int_equal(other_window(path, first + k, 0), first + k);
		assert_int_equal(other_window(path, first + k, -1), 0);
	}
	assert_true(chained >= 2 * (NWIN - 4));
	assert_true(keys >= 2 * 2);
	assert_true(maxdepth <= 16);
	assert_true(maxdepth >= 8);
	stored = fx_db_long(path, "SELECT sum(length(body)) FROM reports");
	assert_true(stored * 8 < plain);
	store_close(st);

	/* Another connection, compaction, VACUUM: the same texts. */
	assert_int_equal(store_open(&st, path, false, &err), HP_OK);
	check_all(st, first, NWIN);
	assert_int_equal(store_compact(st, (long)time(NULL) + 3 * 86400, 30,
	    &cs, &err), HP_OK);
	assert_int_equal(store_vacuum(st, &err), HP_OK);
	check_all(st, first, NWIN);

	/* An edited link: it and the reports after it up to the next chain
	 * read as damaged (the audit finds them); the earlier ones and the
	 * next chain read as before. */
	fx_db_exec(path, "UPDATE reports SET body = body || 'x' WHERE side_idx "
	    "= 0 AND window_id = (SELECT min(window_id) FROM reports) + 5");
	for (k = 0; k < NWIN; k++) {
		char *want = report_text(k, 0);
		bool after = false;
		int j;

		/* Is window 5 a link of k's chain? */
		for (j = k; j >= 5; ) {
			if (j == 5) {
				after = true;
				break;
			}
			j = (int)(dict_window(path, first + j, 0) - first);
		}
		text = store_report_get(st, first + k, 0, &err);
		assert_non_null(text);
		if (after)
			assert_non_null(strstr(text, "damaged"));
		else
			assert_string_equal(text, want);
		free(text);
		free(want);
	}
	text = store_report_get(st, first + NWIN - 1, 0, &err);
	assert_null(strstr(text, "damaged"));
	free(text);
	text = store_report_get(st, first + 7, -1, &err);
	assert_null(strstr(text, "damaged"));
	free(text);
	store_close(st);
	config_free(&cfg);
	fx_tmp_clean();
}

/* The old formats: magic, length (4 bytes) and, against a dictionary, its
 * window (8 bytes), then zlib; built here as the code before made them. */
static unsigned char *
old_pack(const char *t, const char *dict, int64_t dwid, size_t *outlen)
{
	size_t n = strlen(t), head = dict != NULL ? 16 : 8;
	unsigned char *z = malloc(head + compressBound((uLong)n) + 64);
	z_stream zs;
	int i;

	assert_non_null(z);
	memcpy(z, dict != NULL ? "\0HPD" : "\0HPZ", 4);
	for (i = 0; i < 4; i++)
		z[4 + i] = (unsigned char)(n >> (24 - 8 * i));
	for (i = 0; dict != NULL && i < 8; i++)
		z[8 + i] = (unsigned char)((uint64_t)dwid >> (56 - 8 * i));
	memset(&zs, 0, sizeof zs);
	assert_int_equal(deflateInit(&zs, 9), Z_OK);
	if (dict != NULL)
		assert_int_equal(deflateSetDictionary(&zs, (const Bytef *)dict,
		    (uInt)strlen(dict)), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)t;
	zs.avail_in = (uInt)n;
	zs.next_out = z + head;
	zs.avail_out = (uInt)(compressBound((uLong)n) + 64);
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*outlen = head + zs.total_out;
	deflateEnd(&zs);
	return z;
}

/* Rows as the code before stored them read back unchanged, and new
 * reports chain onto them. */
static void
test_old_rows(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	const char *path;
	struct config cfg;
	struct store *st;
	int64_t cid, first;
	unsigned char *z;
	char sql[200], *t0, *t, *got;
	size_t zn;
	int k;

	(void)state;
	st = fx_club(&path, &cfg, &cid, NULL, "old rows");
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	first = w.id;
	add_windows(path, cid, first, 7);
	/* The moderator's view: plain text (before issue 17). The side's:
	 * the first zlib alone, the next four against it. */
	for (k = 0; k < 5; k++) {
		t = report_text(k, -1);
		snprintf(sql, sizeof sql, "INSERT INTO reports(window_id, "
		    "side_idx, body) VALUES (%lld, -1, CAST(?1 AS TEXT))",
		    (long long)(first + k));
		exec_blob(path, sql, t, strlen(t));
		free(t);
	}
	t0 = report_text(0, 0);
	z = old_pack(t0, NULL, 0, &zn);
	snprintf(sql, sizeof sql, "INSERT INTO reports(window_id, side_idx, "
	    "body) VALUES (%lld, 0, ?1)", (long long)first);
	exec_blob(path, sql, z, zn);
	free(z);
	for (k = 1; k < 5; k++) {
		t = report_text(k, 0);
		z = old_pack(t, t0, first, &zn);
		snprintf(sql, sizeof sql, "INSERT INTO reports(window_id, "
		    "side_idx, body) VALUES (%lld, 0, ?1)",
		    (long long)(first + k));
		exec_blob(path, sql, z, zn);
		free(z);
		free(t);
	}
	free(t0);
	check_all(st, first, 5);
	/* New reports after them: against the previous (old) row. */
	for (k = 5; k < 8; k++) {
		int s;

		for (s = -1; s <= 0; s++) {
			t = report_text(k, s);
			assert_int_equal(store_report_put(st, first + k, s, t,
			    &err), HP_OK);
			free(t);
		}
	}
	check_all(st, first, 8);
	assert_int_equal(dict_window(path, first + 5, 0), first + 4);
	assert_int_equal(dict_window(path, first + 5, -1), first + 4);
	assert_int_equal(dict_window(path, first + 7, 0), first + 6);
	/* A link naming its own window (or a later one): damaged, no loop. */
	z = old_pack("looping\n", "x", first + 3, &zn);
	snprintf(sql, sizeof sql, "UPDATE reports SET body = ?1 WHERE "
	    "window_id = %lld AND side_idx = 0", (long long)(first + 3));
	exec_blob(path, sql, z, zn);
	free(z);
	got = store_report_get(st, first + 3, 0, &err);
	assert_non_null(strstr(got, "damaged"));
	free(got);
	got = store_report_get(st, first + 2, 0, &err);
	assert_null(strstr(got, "damaged"));
	free(got);
	/* None at all: NULL and HP_ENOENT. */
	assert_null(store_report_get(st, first + 50, 0, &err));
	assert_int_equal(err.code, HP_ENOENT);
	store_close(st);
	config_free(&cfg);
	fx_tmp_clean();
}

/* A report's sent copy a day old keeps Date and its topic (the
 * Message-ID, recipient and kind are the row's columns) and its body's
 * hash; an old compacted copy reads as it was. */
static void
test_copy(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_compact_stats cs;
	struct store_sent sent;
	const char *path;
	struct config cfg;
	struct store *st;
	int64_t cid;
	static const char head[] = "From: hexpost@club.example\n"
	    "To: bea@example.org\nSubject: [hill] the campaign\n"
	    "Date: Fri, 27 Nov 2026 10:00:00 +0000\n"
	    "Message-ID: <r1@club.example>\n"
	    "In-Reply-To: <root@club.example>\n"
	    "References: <root@club.example>\n <other@club.example>\n"
	    "X-Hexpost-Topic: Turn 2, window 'blue' resolved\n"
	    "X-Hexpost-Kind: report\nMIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=utf-8\n\n";
	static const char old[] = "Subject: old\nDate: Thu, 26 Nov 2026 "
	    "10:00:00 +0000\nMessage-ID: <r0@club.example>\nX-Hexpost-Copy: "
	    "body of 3 bytes removed a day after delivery (the report is "
	    "kept); BLAKE2b-256 00\n\n";
	char msg[4096], sql[600], hex[65], line[160];
	unsigned char h[32], *z;
	const char *body = "The report text, long enough.\n";
	size_t zn, n = strlen(old);
	uLongf zl;
	int i;

	(void)state;
	st = fx_club(&path, &cfg, &cid, NULL, "copies");
	snprintf(msg, sizeof msg, "%s%s", head, body);
	snprintf(sql, sizeof sql, "INSERT INTO outbox(id, message_id, kind, "
	    "rcpt, envelope_from, data, state, stage, sent_at) VALUES (1, "
	    "'r1@club.example', 'report', 'bea@example.org', '', ?1, 'sent', "
	    "'1.stage.host', strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', 'now', "
	    "'-2 days'))");
	exec_blob(path, sql, msg, strlen(msg));
	/* Compacted the way before: every header kept. */
	z = malloc(8 + compressBound((uLong)n));
	assert_non_null(z);
	memcpy(z, "\0HPS", 4);
	for (i = 0; i < 4; i++)
		z[4 + i] = (unsigned char)(n >> (24 - 8 * i));
	zl = compressBound((uLong)n);
	assert_int_equal(compress2(z + 8, &zl, (const Bytef *)old, (uLong)n,
	    9), Z_OK);
	zn = (size_t)zl;
	snprintf(sql, sizeof sql, "INSERT INTO outbox(id, message_id, kind, "
	    "rcpt, envelope_from, data, state, sent_at) VALUES (2, "
	    "'r0@club.example', 'report', 'bea@example.org', '', ?1, 'sent', "
	    "strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', 'now', '-3 days'))");
	exec_blob(path, sql, z, 8 + zn);
	free(z);
	assert_int_equal(store_compact(st, (long)time(NULL), 0, &cs, &err),
	    HP_OK);
	assert_int_equal(cs.packed, 1);
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM outbox WHERE "
	    "stage IS NOT NULL"), 0);
	assert_int_equal(store_outbox_find(st, "r1@club.example", &sent, &err),
	    1);
	crypto_generichash(h, sizeof h, (const unsigned char *)body,
	    strlen(body), NULL, 0);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", h[i]);
	snprintf(line, sizeof line, "X-Hexpost-Copy: body of %zu bytes "
	    "removed, BLAKE2b-256 %s\n\n", strlen(body), hex);
	snprintf(msg, sizeof msg, "Date: Fri, 27 Nov 2026 10:00:00 +0000\n"
	    "X-Hexpost-Topic: Turn 2, window 'blue' resolved\n%s", line);
	assert_int_equal(sent.len, strlen(msg));
	assert_memory_equal(sent.data, msg, sent.len);
	assert_string_equal(sent.rcpt, "bea@example.org");
	assert_string_equal(sent.kind, "report");
	free(sent.data);
	assert_int_equal(store_outbox_find(st, "r0@club.example", &sent, &err),
	    1);
	assert_int_equal(sent.len, strlen(old));
	assert_memory_equal(sent.data, old, sent.len);
	free(sent.data);
	/* No topic: the Subject stays. */
	snprintf(msg, sizeof msg, "Subject: Welcome\nDate: Fri, 27 Nov 2026 "
	    "11:00:00 +0000\nMessage-ID: <r2@club.example>\nTo: x@y\n\nbody\n");
	snprintf(sql, sizeof sql, "INSERT INTO outbox(id, message_id, kind, "
	    "rcpt, envelope_from, data, state, sent_at) VALUES (3, "
	    "'r2@club.example', 'report', 'x@y', '', ?1, 'sent', "
	    "strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', 'now', '-2 days'))");
	exec_blob(path, sql, msg, strlen(msg));
	assert_int_equal(store_compact(st, (long)time(NULL), 0, &cs, &err),
	    HP_OK);
	assert_int_equal(cs.packed, 1);
	assert_int_equal(store_outbox_find(st, "r2@club.example", &sent, &err),
	    1);
	snprintf(msg, sizeof msg, "Subject: Welcome\nDate: Fri, 27 Nov 2026 "
	    "11:00:00 +0000\nX-Hexpost-Copy: body of 5 bytes removed, "
	    "BLAKE2b-256 ");
	assert_int_equal(strncmp((char *)sent.data, msg, strlen(msg)), 0);
	free(sent.data);
	store_close(st);
	config_free(&cfg);
	fx_tmp_clean();
}

/* Picture data: stored the same way, read back byte for byte; none is
 * HP_ENOENT. */
static void
test_pictures(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	const char *path;
	struct config cfg;
	struct store *st;
	int64_t cid, first;
	char *t, *got;
	long plain = 0;
	int k, s;

	(void)state;
	st = fx_club(&path, &cfg, &cid, NULL, "pictures");
	assert_int_equal(store_window_current(st, cid, &w, &err), HP_OK);
	first = w.id;
	add_windows(path, cid, first, 24);
	for (k = 0; k < 25; k++)
		for (s = -2; s <= 1; s++) {
			if (s == -1)
				continue;
			t = report_text(k + s, s);
			assert_int_equal(store_picture_put(st, first + k, s, t,
			    &err), HP_OK);
			free(t);
		}
	/* Stored again (INSERT OR REPLACE): the same. */
	t = report_text(24 + 1, 1);
	assert_int_equal(store_picture_put(st, first + 24, 1, t, &err), HP_OK);
	free(t);
	for (k = 0; k < 25; k++)
		for (s = -2; s <= 1; s++) {
			if (s == -1)
				continue;
			t = report_text(k + s, s);
			plain += (long)strlen(t);
			got = store_picture_get(st, first + k, s, &err);
			assert_non_null(got);
			assert_string_equal(got, t);
			free(got);
			free(t);
		}
	assert_true(fx_db_long(path, "SELECT sum(length(model)) FROM "
	    "window_pictures") * 8 < plain);
	assert_null(store_picture_get(st, first + 99, 0, &err));
	assert_int_equal(err.code, HP_ENOENT);
	store_close(st);
	config_free(&cfg);
	fx_tmp_clean();
}

/* Remove the database a test (or a failed one) left behind. */
static int
cleanup(void **state)
{
	(void)state;
	fx_tmp_db();
	fx_tmp_clean();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_old_rows),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_pictures),
	};

	return cmocka_run_group_tests(tests, NULL, cleanup);
}
