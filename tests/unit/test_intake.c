/* test_intake: mail intake is exactly-once. A message taken in, then found
 * again in new/ (a crash between the commit and the Maildir flag), or in
 * cur/ unflagged, or delivered again under another name or with another
 * Received: line, is a duplicate: no second answer, no second order file,
 * the database unchanged. A database failure in the middle of a message
 * (after its orders were written) rolls back everything and leaves the
 * message unflagged for the next run, which then takes it in once. Keys
 * and signatures come from the real minisign CLI. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <ftw.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fixtures.h"
#include "hexpost.h"
#include "intake.h"
#include "maildir.h"
#include "minisign.h"
#include "modstmt.h"
#include "store.h"
#include "turn.h"

struct it {
	char top[512];        /* mkdtemp directory, removed at the end */
	char inbox[600];
	struct config cfg;
	struct store *st;
	char *orders;         /* Blue's signed order file */
	size_t olen;
	char *sig;            /* its .minisig, by `minisign -S` */
	size_t slen;
};

static bool have_minisign;

static char *
readf(const char *path, size_t *len)
{
	struct hp_error err = { 0, "" };
	char *s = util_read_file(path, len, &err);

	if (s == NULL)
		fail_msg("%s: %s", path, err.msg);
	return s;
}

static void
writef(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A data directory with campaign hill, Blue played by Bea with a key made
 * by `minisign -G -W`, and Blue's turn-1 order file signed with it. */
static int
setup(void **state)
{
	struct it *t = xcalloc(1, sizeof *t);
	struct hp_error err = { 0, "" };
	struct minisign_pubkey pk;
	struct store_window w;
	struct game g;
	char cmd[2048], pub[700], key[700], path[700], keyhex[17], *pubtext;
	int64_t cid;

	*state = t;
	fx_mkdtemp(t->top, sizeof t->top, "intake");
	config_defaults(&t->cfg, t->top);
	snprintf(t->inbox, sizeof t->inbox, "%s", t->cfg.mailbox + 8);
	assert_int_equal(maildir_create(t->inbox, &err), HP_OK);
	assert_int_equal(store_open(&t->st, t->cfg.database, true, &err),
	    HP_OK);
	assert_int_equal(store_migrate(t->st, &err), HP_OK);
	assert_int_equal(turn_campaign_new(t->st, "hill", "fire-and-movement",
	    NULL, "", (const unsigned char *)"intake", 6, &err), HP_OK);
	if (!have_minisign)
		return 0;

	snprintf(pub, sizeof pub, "%s/blue.pub", t->top);
	snprintf(key, sizeof key, "%s/blue.key", t->top);
	snprintf(cmd, sizeof cmd, "minisign -G -W -p '%s' -s '%s' >/dev/null "
	    "2>&1", pub, key);
	assert_int_equal(system(cmd), 0);
	pubtext = readf(pub, NULL);
	assert_int_equal(minisign_pubkey_parse(pubtext, strlen(pubtext), &pk,
	    &err), HP_OK);
	minisign_keyid_hex(pk.keyid, keyhex);
	game_init(&g);
	assert_int_equal(store_game_load(t->st, "hill", &g, &cid, &err), HP_OK);
	assert_int_equal(store_player_add(t->st, cid, 0, "Bea",
	    "blue@example.org", pubtext, keyhex, false, &err), HP_OK);
	free(pubtext);
	assert_int_equal(store_window_current(t->st, cid, &w, &err), HP_OK);
	t->orders = window_order_template(&g, &w.spec, 0);
	game_free(&g);
	snprintf(path, sizeof path, "%s/orders.txt", t->top);
	writef(path, t->orders);
	t->olen = strlen(t->orders);
	snprintf(cmd, sizeof cmd, "minisign -S -s '%s' -m '%s' >/dev/null 2>&1",
	    key, path);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof path, "%s/orders.txt.minisig", t->top);
	t->sig = readf(path, &t->slen);
	return 0;
}

static int
teardown(void **state)
{
	struct it *t = *state;

	store_close(t->st);
	fx_rmtree(t->top);
	free(t->orders);
	free(t->sig);
	free(t);
	return 0;
}

/* base64 in lines of 76. */
static void
b64(struct sbuf *b, const void *data, size_t len)
{
	size_t cap = sodium_base64_encoded_len(len,
	    sodium_base64_VARIANT_ORIGINAL), n, i;
	char *one = xmalloc(cap);

	sodium_bin2base64(one, cap, data, len, sodium_base64_VARIANT_ORIGINAL);
	n = strlen(one);
	for (i = 0; i < n; i += 76) {
		sbuf_add(b, one + i, n - i < 76 ? n - i : 76);
		sbuf_puts(b, "\n");
	}
	free(one);
}

static void
attach(struct sbuf *b, const char *name, const void *data, size_t len)
{
	sbuf_printf(b, "--B\nContent-Type: text/plain; charset=utf-8; "
	    "name=\"%s\"\nContent-Disposition: attachment; filename=\"%s\"\n"
	    "Content-Transfer-Encoding: base64\n\n", name, name);
	b64(b, data, len);
}

/* A mail from Bea with Message-ID msgid (none if NULL) carrying the order
 * file, signed unless !sign. Caller frees. */
static char *
mail(const struct it *t, const char *msgid, bool sign)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_puts(&b, "From: Bea <blue@example.org>\nTo: hexpost@localhost\n"
	    "Subject: orders\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n");
	if (msgid != NULL)
		sbuf_printf(&b, "Message-ID: <%s>\n", msgid);
	sbuf_puts(&b, "MIME-Version: 1.0\nContent-Type: multipart/mixed; "
	    "boundary=\"B\"\n\n--B\nContent-Type: text/plain\n\nOrders.\n");
	attach(&b, "orders.txt", t->orders, t->olen);
	if (sign)
		attach(&b, "orders.txt.minisig", t->sig, t->slen);
	sbuf_puts(&b, "--B--\n");
	return sbuf_steal(&b);
}

/* Deliver text into the inbox; returns the file name (caller frees). */
static char *
deliver(const struct it *t, const char *text)
{
	struct hp_error err = { 0, "" };
	char *path = NULL, *name;

	assert_int_equal(maildir_deliver(t->inbox, NULL, text, strlen(text),
	    NULL, &path, &err), HP_OK);
	name = xstrdup(strrchr(path, '/') + 1);
	free(path);
	return name;
}

/* intake_run, expecting the counts (accepted, rejected, ignored,
 * duplicate, deferred). */
static void
run(struct it *t, int acc, int rej, int ign, int dup, int def)
{
	struct hp_error err = { 0, "" };
	struct intake_stats s;

	memset(&s, 0xff, sizeof s);
	assert_int_equal(intake_run(t->st, &t->cfg, &s, &err), HP_OK);
	assert_int_equal(s.n[INTAKE_ACCEPTED], acc);
	assert_int_equal(s.n[INTAKE_REJECTED], rej);
	assert_int_equal(s.n[INTAKE_IGNORED], ign);
	assert_int_equal(s.n[INTAKE_DUPLICATE], dup);
	assert_int_equal(s.deferred, def);
}

static long
count(const struct it *t, const char *sql)
{
	return fx_db_long(t->cfg.database, sql);
}

/* Number of messages still waiting in the inbox (new/, or cur/ without S);
 * if one, its name must be name and it must be in new/. */
static size_t
waiting(const struct it *t, const char *name)
{
	struct hp_error err = { 0, "" };
	struct maildir_entry *e = NULL;
	size_t n = 0;

	assert_int_equal(maildir_list(t->inbox, 'S', &e, &n, &err), HP_OK);
	if (n == 1 && name != NULL) {
		assert_string_equal(e[0].name, name);
		assert_true(e[0].in_new);
	}
	maildir_list_free(e, n);
	return n;
}

/* inbox/sub/name exists. */
static bool
exists(const struct it *t, const char *sub, const char *name, const char *sfx)
{
	char p[1200];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s/%s%s", t->inbox, sub, name, sfx);
	return stat(p, &st) == 0;
}

static void
move(const struct it *t, const char *from_sub, const char *name,
    const char *from_sfx, const char *to_sub, const char *to_sfx)
{
	char a[1200], b[1200];

	snprintf(a, sizeof a, "%s/%s/%s%s", t->inbox, from_sub, name, from_sfx);
	snprintf(b, sizeof b, "%s/%s/%s%s", t->inbox, to_sub, name, to_sfx);
	assert_int_equal(rename(a, b), 0);
}

static void
dumps_equal(const char *a, const char *b)
{
	if (strcmp(a, b) != 0)
		fail_msg("the database changed:\n--- before\n%s\n--- after\n%s",
		    a, b);
}

static void
test_exactly_once(void **state)
{
	struct it *t = *state;
	struct hp_error err = { 0, "" };
	enum intake_outcome o = INTAKE_ACCEPTED;
	char *text, *name, *name2, *again, *dump, *after;
	struct sbuf b;

	if (!have_minisign)
		skip();
	text = mail(t, "once.1@players.example", true);
	name = deliver(t, text);
	run(t, 1, 0, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM orders"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE kind = "
	    "'ack' AND rcpt = 'blue@example.org' AND envelope_from = ''"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM messages WHERE "
	    "outcome = 'accepted' AND message_id = 'once.1@players.example'"),
	    1);
	assert_int_equal(waiting(t, NULL), 0);
	assert_true(exists(t, "cur", name, ":2,S"));
	dump = fx_db_dump(t->cfg.database);

	/* A crash after the commit, before the Maildir flag: the file is
	 * still in new/. */
	move(t, "cur", name, ":2,S", "new", "");
	assert_int_equal(waiting(t, name), 1);
	run(t, 0, 0, 0, 1, 0);
	after = fx_db_dump(t->cfg.database);
	dumps_equal(dump, after);
	free(after);
	assert_int_equal(waiting(t, NULL), 0);
	assert_true(exists(t, "cur", name, ":2,S"));
	assert_false(exists(t, "new", name, ""));

	/* A crash after the move to cur/, before the flag. */
	move(t, "cur", name, ":2,S", "cur", ":2,");
	assert_int_equal(waiting(t, NULL), 1);
	run(t, 0, 0, 0, 1, 0);
	assert_true(exists(t, "cur", name, ":2,S"));
	assert_false(exists(t, "cur", name, ":2,"));

	/* Delivered again under another name; and again with another
	 * Received: line (other bytes, the same Message-ID). */
	name2 = deliver(t, text);
	sbuf_init(&b);
	sbuf_printf(&b, "Received: from mx2.example.org by mx.example.org; "
	    "Mon, 01 Jan 2024 10:00:05 +0000\n%s", text);
	again = sbuf_steal(&b);
	free(deliver(t, again));
	run(t, 0, 0, 0, 2, 0);
	assert_int_equal(waiting(t, NULL), 0);
	assert_true(exists(t, "cur", name2, ":2,S"));

	/* And intake_message itself says so. */
	assert_int_equal(intake_message(t->st, &t->cfg, t->inbox,
	    (const unsigned char *)again, strlen(again), &o, &err), HP_OK);
	assert_int_equal(o, INTAKE_DUPLICATE);

	after = fx_db_dump(t->cfg.database);
	dumps_equal(dump, after);
	assert_int_equal(count(t, "SELECT count(*) FROM orders"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox"), 1);
	free(after);
	free(dump);
	free(again);
	free(name2);
	free(name);
	free(text);
}

/* Without a Message-ID, the content hash alone recognises a message. */
static void
test_duplicate_without_message_id(void **state)
{
	struct it *t = *state;
	char *text, *name, *dump, *after;

	if (!have_minisign)
		skip();
	text = mail(t, NULL, false);     /* unsigned: refused */
	name = deliver(t, text);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE kind = "
	    "'refusal' AND envelope_from = ''"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM messages WHERE "
	    "message_id IS NULL"), 1);
	dump = fx_db_dump(t->cfg.database);
	move(t, "cur", name, ":2,S", "new", "");
	free(deliver(t, text));
	run(t, 0, 0, 0, 2, 0);
	after = fx_db_dump(t->cfg.database);
	dumps_equal(dump, after);
	assert_int_equal(waiting(t, NULL), 0);
	free(after);
	free(dump);
	free(name);
	free(text);
}

/* A write that fails in the middle of a message: after turn_submit wrote
 * the order file (the ack, or the record of the message, fails), or in a
 * refusal. Nothing stays written, the message waits in new/, intake goes
 * on, and once the database works the next run takes it in once. */
static void
db_failure(struct it *t, const char *breakage, const char *repair,
    bool sign, int acc, int rej)
{
	struct hp_error err = { 0, "" };
	enum intake_outcome o = INTAKE_DUPLICATE;
	char *text, *name, *dump, *after;

	text = mail(t, "broken.1@players.example", sign);
	name = deliver(t, text);
	fx_db_exec(t->cfg.database, breakage);
	dump = fx_db_dump(t->cfg.database);

	run(t, 0, 0, 0, 0, 1);
	after = fx_db_dump(t->cfg.database);
	dumps_equal(dump, after);
	free(after);
	assert_int_equal(count(t, "SELECT count(*) FROM orders"), 0);
	assert_int_equal(count(t, "SELECT count(*) FROM messages"), 0);
	assert_int_equal(waiting(t, name), 1);
	assert_true(exists(t, "new", name, ""));

	/* intake_message reports the failure, and leaves no transaction
	 * open behind it. */
	assert_int_not_equal(intake_message(t->st, &t->cfg, t->inbox,
	    (const unsigned char *)text, strlen(text), &o, &err), HP_OK);
	assert_int_equal(err.code, HP_EDB);
	after = fx_db_dump(t->cfg.database);
	dumps_equal(dump, after);
	free(after);
	run(t, 0, 0, 0, 0, 1);
	assert_int_equal(waiting(t, name), 1);

	fx_db_exec(t->cfg.database, repair);
	run(t, acc, rej, 0, 0, 0);
	assert_int_equal(waiting(t, NULL), 0);
	assert_true(exists(t, "cur", name, ":2,S"));
	assert_int_equal(count(t, "SELECT count(*) FROM orders"), acc);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM messages"), 1);
	run(t, 0, 0, 0, 0, 0);
	free(dump);
	free(name);
	free(text);
}

static void
test_outbox_insert_fails(void **state)
{
	if (!have_minisign)
		skip();
	db_failure(*state, "CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox "
	    "BEGIN SELECT RAISE(ABORT, 'simulated failure'); END;",
	    "DROP TRIGGER fail_outbox;", true, 1, 0);
}

static void
test_outbox_table_gone(void **state)
{
	if (!have_minisign)
		skip();
	db_failure(*state, "ALTER TABLE outbox RENAME TO outbox_away;",
	    "ALTER TABLE outbox_away RENAME TO outbox;", true, 1, 0);
}

static void
test_message_record_fails(void **state)
{
	if (!have_minisign)
		skip();
	db_failure(*state, "CREATE TRIGGER fail_record BEFORE INSERT ON "
	    "messages BEGIN SELECT RAISE(ABORT, 'simulated failure'); END;",
	    "DROP TRIGGER fail_record;", true, 1, 0);
}

static void
test_refusal_insert_fails(void **state)
{
	if (!have_minisign)
		skip();
	db_failure(*state, "CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox "
	    "BEGIN SELECT RAISE(ABORT, 'simulated failure'); END;",
	    "DROP TRIGGER fail_outbox;", false, 0, 1);
}

/* A mail from the moderator with the statement text and its signature sig
 * attached (statement.txt, statement.txt.minisig). Caller frees. */
static char *
statement_mail(const char *msgid, const char *text, const char *sig,
    size_t slen)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "From: Mo <mod@example.org>\nTo: hexpost@localhost\n"
	    "Subject: statement\nDate: Mon, 01 Jan 2024 11:00:00 +0000\n"
	    "Message-ID: <%s>\nMIME-Version: 1.0\nContent-Type: "
	    "multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: "
	    "text/plain\n\nStatement.\n", msgid);
	attach(&b, "statement.txt", text, strlen(text));
	attach(&b, "statement.txt.minisig", sig, slen);
	sbuf_puts(&b, "--B--\n");
	return sbuf_steal(&b);
}

/* The latest mail of kind to rcpt in the outbox ("" if none). Caller
 * frees. */
static char *
outbox_last(const struct it *t, const char *kind, const char *rcpt)
{
	char sql[300];

	snprintf(sql, sizeof sql, "SELECT CAST(data AS TEXT) FROM outbox WHERE "
	    "kind = '%s' AND rcpt = '%s' ORDER BY id DESC LIMIT 1", kind, rcpt);
	return fx_db_rows(t->cfg.database, sql);
}

/* Moderator statements by mail (docs/AUDIT.md, "Moderator statements"):
 * the statement and its signature by the campaign's moderator key are
 * carried out as 'hexpost moderate ... --sig' is (recorded, mailed to every
 * player); one signed by another key, or one already carried out, is
 * refused with a reply saying why. Signatures by the real minisign. */
static void
test_moderator_statement_by_mail(void **state)
{
	struct it *t = *state;
	struct hp_error err = { 0, "" };
	struct store_window w;
	struct modstmt m;
	struct game g;
	char cmd[2048], pub[700], key[700], path[700], *text, *pubtext, *sig;
	char *mailtext, *name, *row;
	size_t slen;
	int64_t cid;

	if (!have_minisign)
		skip();
	snprintf(pub, sizeof pub, "%s/mod.pub", t->top);
	snprintf(key, sizeof key, "%s/mod.key", t->top);
	snprintf(cmd, sizeof cmd, "minisign -G -W -p '%s' -s '%s' >/dev/null "
	    "2>&1", pub, key);
	assert_int_equal(system(cmd), 0);
	pubtext = readf(pub, NULL);
	game_init(&g);
	assert_int_equal(store_game_load(t->st, "hill", &g, &cid, &err), HP_OK);
	game_free(&g);
	assert_int_equal(store_modkey_put(t->st, cid, pubtext, &err), HP_OK);
	free(pubtext);
	assert_int_equal(store_window_current(t->st, cid, &w, &err), HP_OK);
	memset(&m, 0, sizeof m);
	strlcpy_(m.campaign, "hill", sizeof m.campaign);
	m.seq = 1;
	m.window = 1;
	m.turn = w.spec.turn;
	m.number = w.spec.number;
	strlcpy_(m.name, w.spec.name, sizeof m.name);
	strlcpy_(m.verb, "proceed", sizeof m.verb);
	strlcpy_(m.arg, "ai", sizeof m.arg);
	text = modstmt_format(&m);
	snprintf(path, sizeof path, "%s/statement.txt", t->top);
	writef(path, text);

	/* Signed by Bea's key (a player's, not the moderator's): refused. */
	snprintf(cmd, sizeof cmd, "minisign -S -s '%s/blue.key' -m '%s' -x "
	    "'%s.blue' >/dev/null 2>&1", t->top, path, path);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s.blue", path);
	sig = readf(cmd, &slen);
	mailtext = statement_mail("s1@example.org", text, sig, slen);
	free(sig);
	name = deliver(t, mailtext);
	free(mailtext);
	free(name);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM moderator_statements"),
	    0);
	assert_int_equal(count(t, "SELECT count(*) FROM orders"), 0);

	/* Signed by the moderator's key: carried out, recorded, announced to
	 * Bea, answered to the sender. */
	snprintf(cmd, sizeof cmd, "minisign -S -s '%s' -m '%s' >/dev/null "
	    "2>&1", key, path);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s.minisig", path);
	sig = readf(cmd, &slen);
	mailtext = statement_mail("s2@example.org", text, sig, slen);
	name = deliver(t, mailtext);
	free(mailtext);
	free(name);
	run(t, 1, 0, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM moderator_statements "
	    "WHERE seq = 1"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM orders WHERE source = "
	    "'deadline-ai'"), 1);
	row = outbox_last(t, "notice", "blue@example.org");
	assert_non_null(strstr(row, "The moderator's statement 1, signed by "
	    "the moderator's key"));
	assert_non_null(strstr(row, "action: proceed ai"));
	free(row);
	row = outbox_last(t, "command", "mod@example.org");
	assert_true(row[0] != '\0');
	free(row);

	/* The same statement again (a replay): refused, saying why. */
	mailtext = statement_mail("s3@example.org", text, sig, slen);
	name = deliver(t, mailtext);
	free(mailtext);
	free(name);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM moderator_statements"),
	    1);
	row = outbox_last(t, "refusal", "mod@example.org");
	assert_non_null(strstr(row, "line 3 of the statement differs from "
	    "statement 2"));
	free(row);
	free(sig);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exactly_once, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_duplicate_without_message_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_insert_fails, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_outbox_table_gone, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_message_record_fails,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusal_insert_fails,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_moderator_statement_by_mail, setup, teardown),
	};

	if (sodium_init() < 0)
		return 1;
	engine_init();
	have_minisign = system("minisign -v >/dev/null 2>&1") == 0;
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
