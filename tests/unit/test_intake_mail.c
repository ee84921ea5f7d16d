/* test_intake_mail: mail intake as real mail programs and hostile senders
 * make it (issue 12, and issue 20 item 3).
 *
 * - An order file attached as text in 7bit or quoted-printable, built the
 *   way mutt -a, Apple Mail, Outlook (quoted-printable, CRLF file), an HTML
 *   mail with a 7bit attachment, and a file without a final newline are
 *   built, stored with LF and with CRLF line ends: each is accepted, and the
 *   bytes stored are exactly the bytes the player signed.
 * - A superseded order file sent again (same bytes, or same nonce) is
 *   refused with a reply to the registered player.
 * - Strangers get no refusal (or one a day with stranger_replies = daily);
 *   the run counts them.
 * - A different message under an old Message-ID is taken in; the same one
 *   through another relay, or with CRLF line ends, is a duplicate.
 * - hexpost's own mail is ignored; an ambiguous From is answered nowhere;
 *   orders.txt.sig and orders.minisig are accepted; the paused campaign's
 *   acknowledgement says so; non-regular files in new/ are logged.
 * - A 300 MB mail is refused with bounded memory (ru_maxrss).
 * Keys and signatures come from the real minisign CLI. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>

#include <fcntl.h>
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
#include "store.h"
#include "turn.h"

struct it {
	char top[512];        /* mkdtemp directory, removed at the end */
	char inbox[600];
	char key[700];        /* Blue's minisign secret key (no password) */
	struct config cfg;
	struct store *st;
	char *tmpl;           /* Blue's turn-1 order template */
	int seq;              /* for unique nonces and Message-IDs */
};

static bool have_minisign;

/* A data directory with campaign hill, Blue played by Bea (blue@example.org)
 * with a key made by `minisign -G -W`. */
static int
setup(void **state)
{
	struct it *t = xcalloc(1, sizeof *t);
	struct hp_error err = { 0, "" };
	struct minisign_pubkey pk;
	struct store_window w;
	struct game g;
	char cmd[2048], pub[700], keyhex[17], *pubtext;
	int64_t cid;

	*state = t;
	fx_mkdtemp(t->top, sizeof t->top, "intake-mail");
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
	snprintf(t->key, sizeof t->key, "%s/blue.key", t->top);
	snprintf(cmd, sizeof cmd, "minisign -G -W -p '%s' -s '%s' >/dev/null "
	    "2>&1", pub, t->key);
	assert_int_equal(system(cmd), 0);
	pubtext = util_read_file(pub, NULL, &err);
	assert_non_null(pubtext);
	assert_int_equal(minisign_pubkey_parse(pubtext, strlen(pubtext), &pk,
	    &err), HP_OK);
	minisign_keyid_hex(pk.keyid, keyhex);
	game_init(&g);
	assert_int_equal(store_game_load(t->st, "hill", &g, &cid, &err), HP_OK);
	assert_int_equal(store_player_add(t->st, cid, 0, "Bea",
	    "blue@example.org", pubtext, keyhex, false, &err), HP_OK);
	free(pubtext);
	assert_int_equal(store_window_current(t->st, cid, &w, &err), HP_OK);
	t->tmpl = window_order_template(&g, &w.spec, 0);
	game_free(&g);
	assert_non_null(strstr(t->tmpl, "nonce:\n"));
	return 0;
}

static int
teardown(void **state)
{
	struct it *t = *state;

	store_close(t->st);
	fx_rmtree(t->top);
	free(t->tmpl);
	free(t);
	return 0;
}

/* Blue's order file with "nonce: NONCE", line ends CRLF if crlf, and the
 * final line end dropped if !final. Caller frees. */
static char *
order_file(const struct it *t, const char *nonce, bool crlf, bool final)
{
	struct sbuf b;
	const char *p = t->tmpl, *n = strstr(p, "nonce:\n");
	char *s;
	size_t len;

	sbuf_init(&b);
	sbuf_add(&b, p, (size_t)(n - p));
	sbuf_printf(&b, "nonce: %s\n", nonce);
	sbuf_puts(&b, n + strlen("nonce:\n"));
	s = sbuf_steal(&b);
	if (crlf) {
		sbuf_init(&b);
		for (p = s; *p != '\0'; p++) {
			if (*p == '\n')
				sbuf_add(&b, "\r", 1);
			sbuf_add(&b, p, 1);
		}
		free(s);
		s = sbuf_steal(&b);
	}
	len = strlen(s);
	if (!final) {
		while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
			len--;
		s[len] = '\0';
	}
	return s;
}

/* The .minisig of text (signed with Blue's key by `minisign -S`), with LF
 * line ends as minisign writes it. Caller frees. */
static char *
sign(const struct it *t, const char *text)
{
	struct hp_error err = { 0, "" };
	char path[800], cmd[2400], *sig;
	FILE *f;

	snprintf(path, sizeof path, "%s/signed.txt", t->top);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "minisign -S -s '%s' -m '%s' >/dev/null 2>&1",
	    t->key, path);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof path, "%s/signed.txt.minisig", t->top);
	sig = util_read_file(path, NULL, &err);
	assert_non_null(sig);
	return sig;
}

/* text with every LF made CRLF (a message as IMAP hands it out). Caller
 * frees. */
static char *
crlf(const char *text)
{
	struct sbuf b;
	const char *p;

	sbuf_init(&b);
	for (p = text; *p != '\0'; p++) {
		if (*p == '\n' && (p == text || p[-1] != '\r'))
			sbuf_add(&b, "\r", 1);
		sbuf_add(&b, p, 1);
	}
	return sbuf_steal(&b);
}

/* Text with every CRLF made LF (a message as a Maildir holds it). */
static char *
lf(const char *text)
{
	struct sbuf b;
	const char *p;

	sbuf_init(&b);
	for (p = text; *p != '\0'; p++)
		if (!(p[0] == '\r' && p[1] == '\n'))
			sbuf_add(&b, p, 1);
	return sbuf_steal(&b);
}

/* Quoted-printable of ASCII text as Outlook writes it: each line of the
 * file a line of the mail (hard line breaks), '=' as =3D. */
static void
qp(struct sbuf *b, const char *text)
{
	const char *p;

	for (p = text; *p != '\0'; p++) {
		if (*p == '\r' && p[1] == '\n')
			continue;
		if (*p == '=')
			sbuf_puts(b, "=3D");
		else
			sbuf_add(b, p, 1);
	}
}

enum client { MUTT, APPLE, OUTLOOK, HTML7BIT, NOFINAL, ADDEDFINAL };

/* A mail carrying file (signed as sig) built the way client builds it,
 * with LF line ends. Caller frees. */
static char *
client_mail(enum client c, const char *file, const char *sig,
    const char *msgid)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "From: Bea <blue@example.org>\nTo: hexpost@hexpost."
	    "example\nSubject: orders\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n"
	    "Message-ID: <%s>\nMIME-Version: 1.0\n", msgid);
	switch (c) {
	case MUTT:
		sbuf_printf(&b, "Content-Type: multipart/mixed; boundary=\""
		    "mutt-B\"\nContent-Disposition: inline\nUser-Agent: Mutt/"
		    "2.2.9\n\n--mutt-B\nContent-Type: text/plain; charset=us-"
		    "ascii\nContent-Disposition: inline\n\nMy orders.\n\n"
		    "--mutt-B\nContent-Type: text/plain; charset=us-ascii\n"
		    "Content-Disposition: attachment; filename=\"orders.txt\"\n"
		    "\n%s\n--mutt-B\nContent-Type: text/plain; charset=us-"
		    "ascii\nContent-Disposition: attachment; filename=\"orders."
		    "txt.minisig\"\n\n%s\n--mutt-B--\n", file, sig);
		break;
	case APPLE:
		sbuf_printf(&b, "Content-Type: multipart/mixed;\n\tboundary="
		    "\"Apple-Mail=_5E1F\"\nX-Mailer: Apple Mail (2.3774)\n\n"
		    "--Apple-Mail=_5E1F\nContent-Transfer-Encoding: 7bit\n"
		    "Content-Type: text/plain;\n\tcharset=us-ascii\n\nOrders.\n"
		    "\n--Apple-Mail=_5E1F\nContent-Disposition: attachment;\n"
		    "\tfilename=orders.txt\nContent-Type: text/plain;\n\tx-unix-"
		    "mode=0644;\n\tname=\"orders.txt\"\nContent-Transfer-"
		    "Encoding: 7bit\n\n%s\n--Apple-Mail=_5E1F\nContent-"
		    "Disposition: attachment;\n\tfilename=orders.txt.minisig\n"
		    "Content-Type: application/octet-stream;\n\tx-unix-mode="
		    "0644;\n\tname=\"orders.txt.minisig\"\nContent-Transfer-"
		    "Encoding: 7bit\n\n%s\n--Apple-Mail=_5E1F--\n", file, sig);
		break;
	case OUTLOOK:
		sbuf_puts(&b, "Content-Type: multipart/mixed;\n\tboundary=\""
		    "_004_OL\"\nX-Mailer: Microsoft Outlook 16.0\n\n--_004_OL\n"
		    "Content-Type: text/plain; charset=\"us-ascii\"\nContent-"
		    "Transfer-Encoding: quoted-printable\n\nOrders.\n\n--_004_"
		    "OL\nContent-Type: text/plain; name=\"orders.txt\"\nContent-"
		    "Description: orders.txt\nContent-Disposition: attachment; "
		    "filename=\"orders.txt\"; size=999;\nContent-Transfer-"
		    "Encoding: quoted-printable\n\n");
		qp(&b, file);
		sbuf_puts(&b, "\n--_004_OL\nContent-Type: application/octet-"
		    "stream; name=\"orders.txt.minisig\"\nContent-Disposition: "
		    "attachment; filename=\"orders.txt.minisig\"\nContent-"
		    "Transfer-Encoding: quoted-printable\n\n");
		qp(&b, sig);
		sbuf_puts(&b, "\n--_004_OL--\n");
		break;
	case HTML7BIT:
		sbuf_printf(&b, "Content-Type: multipart/mixed; boundary=\"M\""
		    "\n\n--M\nContent-Type: multipart/alternative; boundary=\"A"
		    "\"\n\n--A\nContent-Type: text/plain; charset=utf-8\n\n"
		    "Orders.\n--A\nContent-Type: text/html; charset=utf-8\n\n"
		    "<p>Orders.</p>\n--A--\n\n--M\nContent-Type: text/plain; "
		    "charset=utf-8; name=orders.txt\nContent-Disposition: "
		    "attachment; filename=orders.txt\nContent-Transfer-"
		    "Encoding: 7bit\n\n%s\n--M\nContent-Type: text/plain; "
		    "name=orders.txt.minisig\nContent-Disposition: attachment; "
		    "filename=orders.txt.minisig\nContent-Transfer-Encoding: "
		    "7bit\n\n%s\n--M--\n", file, sig);
		break;
	case NOFINAL:
	case ADDEDFINAL:
		/* The file has no final newline; a client that adds one
		 * puts it before the boundary's own line end. */
		sbuf_printf(&b, "Content-Type: multipart/mixed; boundary=\"N\""
		    "\n\n--N\nContent-Type: text/plain\n\nOrders.\n\n--N\n"
		    "Content-Type: text/plain; name=orders.txt\nContent-"
		    "Disposition: attachment; filename=orders.txt\n\n%s%s\n--N"
		    "\nContent-Type: text/plain; name=orders.txt.minisig\n"
		    "Content-Disposition: attachment; filename=orders.txt."
		    "minisig\n\n%s\n--N--\n", file, c == ADDEDFINAL ? "\n" : "",
		    sig);
		break;
	}
	return sbuf_steal(&b);
}

/* Deliver text into the inbox. */
static void
deliver(const struct it *t, const char *text)
{
	struct hp_error err = { 0, "" };

	assert_int_equal(maildir_deliver(t->inbox, NULL, text, strlen(text),
	    NULL, NULL, &err), HP_OK);
}

/* intake_run, expecting the counts (accepted, rejected, ignored,
 * duplicate) and unanswered refusals. */
static void
run(struct it *t, int acc, int rej, int ign, int dup, int unans)
{
	struct hp_error err = { 0, "" };
	struct intake_stats s;

	memset(&s, 0xff, sizeof s);
	assert_int_equal(intake_run(t->st, &t->cfg, &s, &err), HP_OK);
	if (s.n[INTAKE_ACCEPTED] != acc || s.n[INTAKE_REJECTED] != rej ||
	    s.n[INTAKE_IGNORED] != ign || s.n[INTAKE_DUPLICATE] != dup ||
	    s.unanswered != unans || s.deferred != 0) {
		char *why = fx_db_rows(t->cfg.database, "SELECT outcome, detail "
		    "FROM messages ORDER BY id DESC LIMIT 3");

		fail_msg("got %d accepted, %d rejected, %d ignored, %d "
		    "duplicate, %d unanswered, %d deferred; want %d %d %d %d "
		    "%d 0; latest: %s", s.n[INTAKE_ACCEPTED],
		    s.n[INTAKE_REJECTED], s.n[INTAKE_IGNORED],
		    s.n[INTAKE_DUPLICATE], s.unanswered, s.deferred, acc, rej,
		    ign, dup, unans, why);
	}
}

static long
count(const struct it *t, const char *sql)
{
	return fx_db_long(t->cfg.database, sql);
}

/* The current order file of Blue is exactly text (by its hash), with its
 * signature recorded for the audit. */
static void
stored_exactly(const struct it *t, const char *text)
{
	unsigned char h[32];
	char hex[65], sql[300];

	crypto_generichash(h, sizeof h, (const unsigned char *)text,
	    strlen(text), NULL, 0);
	sodium_bin2hex(hex, sizeof hex, h, sizeof h);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM orders WHERE current "
	    "= 1 AND hash = X'%s'", hex);
	if (count(t, sql) != 1)
		fail_msg("the current order file is not the signed bytes:\n%s",
		    fx_db_rows(t->cfg.database, "SELECT quote(raw) FROM orders "
		    "WHERE current = 1"));
	snprintf(sql, sizeof sql, "SELECT count(*) FROM order_signatures WHERE "
	    "hash = X'%s'", hex);
	assert_int_equal(count(t, sql), 1);
}

/* A refusal to rcpt (or any, if NULL) whose text holds s. */
static long
refusals_with(const struct it *t, const char *rcpt, const char *s)
{
	char sql[600];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM outbox WHERE kind = "
	    "'refusal' AND (%s%s%s) AND instr(CAST(data AS TEXT), '%s') > 0",
	    rcpt ? "rcpt = '" : "1", rcpt ? rcpt : "", rcpt ? "'" : "", s);
	return count(t, sql);
}

/* One case of the line-ending test: the file signed as the client's user
 * has it (CRLF on Windows, with or without a final newline), mailed as the
 * client builds it, stored with LF or CRLF. */
static void
one_client(struct it *t, enum client c, bool file_crlf, bool final,
    bool store_crlf)
{
	char nonce[64], msgid[64], *file, *sig, *text, *stored;

	snprintf(nonce, sizeof nonce, "client-%d-%d", (int)c, ++t->seq);
	snprintf(msgid, sizeof msgid, "c%d.%d@players.example", (int)c, t->seq);
	file = order_file(t, nonce, file_crlf, final);
	sig = sign(t, file);
	text = client_mail(c, file, sig, msgid);
	stored = store_crlf ? crlf(text) : lf(text);
	deliver(t, stored);
	run(t, 1, 0, 0, 0, 0);
	stored_exactly(t, file);
	free(stored);
	free(text);
	free(sig);
	free(file);
}

/* Defect 1: every client's text attachment, stored either way. */
static void
test_line_endings(void **state)
{
	struct it *t = *state;
	int s;

	if (!have_minisign)
		skip();
	for (s = 0; s < 2; s++) {
		one_client(t, MUTT, false, true, s);
		one_client(t, APPLE, false, true, s);
		one_client(t, OUTLOOK, true, true, s);
		one_client(t, HTML7BIT, false, true, s);
		one_client(t, NOFINAL, false, false, s);
		one_client(t, ADDEDFINAL, false, false, s);
	}
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE kind = "
	    "'refusal'"), 0);
}

/* A file tampered with is still refused: the variants are only line
 * ends. */
static void
test_line_endings_tampered(void **state)
{
	struct it *t = *state;
	char *file, *sig, *text, *bad, *p;

	if (!have_minisign)
		skip();
	file = order_file(t, "tampered", false, true);
	sig = sign(t, file);
	p = strstr(file, "nonce: tampered");
	p[7] = 'T';
	text = client_mail(MUTT, file, sig, "tampered@players.example");
	bad = crlf(text);
	deliver(t, bad);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(refusals_with(t, "blue@example.org",
	    "does not verify with your key"), 1);
	assert_int_equal(count(t, "SELECT count(*) FROM orders"), 0);
	free(bad);
	free(text);
	free(sig);
	free(file);
}

/* Defect 2: file A, then B, then A again in a new mail (new Message-ID):
 * refused. And a file with A's nonce but other bytes: refused. */
static void
test_replay(void **state)
{
	struct it *t = *state;
	char *a, *asig, *b, *bsig, *c, *csig, *m;

	if (!have_minisign)
		skip();
	a = order_file(t, "nonce-a", false, true);
	asig = sign(t, a);
	b = order_file(t, "nonce-b", false, true);
	bsig = sign(t, b);
	m = client_mail(MUTT, a, asig, "a.1@players.example");
	deliver(t, m);
	free(m);
	run(t, 1, 0, 0, 0, 0);
	m = client_mail(MUTT, b, bsig, "b.1@players.example");
	deliver(t, m);
	free(m);
	run(t, 1, 0, 0, 0, 0);
	stored_exactly(t, b);
	/* The replay, from a copy of the first mail. */
	m = client_mail(MUTT, a, asig, "a.2@relay.example");
	deliver(t, m);
	free(m);
	run(t, 0, 1, 0, 0, 0);
	stored_exactly(t, b);
	assert_int_equal(refusals_with(t, "blue@example.org",
	    "the very same file"), 1);
	/* A's nonce with another comment: other bytes, the same nonce. */
	c = order_file(t, "nonce-a", false, true);
	c = xrealloc(c, strlen(c) + 20);
	strcat(c, "# again\n");
	csig = sign(t, c);
	m = client_mail(MUTT, c, csig, "c.1@players.example");
	deliver(t, m);
	free(m);
	run(t, 0, 1, 0, 0, 0);
	stored_exactly(t, b);
	assert_int_equal(refusals_with(t, "blue@example.org",
	    "a file with the same nonce"), 1);
	assert_int_equal(refusals_with(t, "blue@example.org",
	    "write a new nonce: line"), 2);
	free(a);
	free(asig);
	free(b);
	free(bsig);
	free(c);
	free(csig);
}

/* An unsigned mail from "from" (a From header value) with Message-ID id. */
static char *
unsigned_mail(const char *from, const char *id)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "From: %s\nTo: hexpost@hexpost.example\nSubject: hi\n"
	    "Message-ID: <%s>\n\nBuy now.\n", from, id);
	return sbuf_steal(&b);
}

/* Defect 3: no backscatter. */
static void
test_backscatter(void **state)
{
	struct it *t = *state;
	char *m;
	int i;

	/* Strangers: nothing sent, each counted. */
	for (i = 0; i < 3; i++) {
		char id[64], from[64];

		snprintf(id, sizeof id, "spam.%d@spam.example", i);
		snprintf(from, sizeof from, "victim%d@forged.example", i);
		m = unsigned_mail(from, id);
		deliver(t, m);
		free(m);
	}
	run(t, 0, 3, 0, 0, 3);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox"), 0);
	assert_int_equal(count(t, "SELECT count(*) FROM messages WHERE "
	    "outcome = 'rejected'"), 3);
	/* A registered player's address still gets its answer (letter case
	 * aside). */
	m = unsigned_mail("Bea <Blue@Example.org>", "bea.1@players.example");
	deliver(t, m);
	free(m);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE kind = "
	    "'refusal'"), 1);
	/* stranger_replies = daily: one short answer a day per address. */
	t->cfg.stranger_daily = true;
	m = unsigned_mail("newbie@example.net", "new.1@example.net");
	deliver(t, m);
	free(m);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(refusals_with(t, "newbie@example.net",
	    "once a day; further mail"), 1);
	m = unsigned_mail("newbie@example.net", "new.2@example.net");
	deliver(t, m);
	free(m);
	run(t, 0, 1, 0, 0, 1);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE rcpt = "
	    "'newbie@example.net'"), 1);
	/* A day later, one more. */
	fx_db_exec(t->cfg.database, "UPDATE stranger_answers SET last_at = "
	    "last_at - 86400");
	m = unsigned_mail("newbie@example.net", "new.3@example.net");
	deliver(t, m);
	free(m);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE rcpt = "
	    "'newbie@example.net'"), 2);
}

/* Defect 4: a Message-ID seen before with other content is a message of
 * its own; the same content through another relay, or with CRLF, is a
 * duplicate. */
static void
test_message_id_reuse(void **state)
{
	struct it *t = *state;
	char *a, *asig, *b, *bsig, *m1, *m2, *again;
	struct sbuf s;

	if (!have_minisign)
		skip();
	a = order_file(t, "reuse-a", false, true);
	asig = sign(t, a);
	b = order_file(t, "reuse-b", false, true);
	bsig = sign(t, b);
	m1 = client_mail(MUTT, a, asig, "same@players.example");
	deliver(t, m1);
	run(t, 1, 0, 0, 0, 0);
	m2 = client_mail(APPLE, b, bsig, "same@players.example");
	deliver(t, m2);
	run(t, 1, 0, 0, 0, 0);
	stored_exactly(t, b);
	sbuf_init(&s);
	sbuf_printf(&s, "Received: from mx2.example.org by mx.example.org; "
	    "Mon, 01 Jan 2024 10:00:05 +0000\n%s", m2);
	again = crlf(s.buf);
	sbuf_free(&s);
	deliver(t, again);
	run(t, 0, 0, 0, 1, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE kind = "
	    "'ack'"), 2);
	free(again);
	free(m1);
	free(m2);
	free(a);
	free(asig);
	free(b);
	free(bsig);
}

/* Mail from hexpost's own address (config from "hexpost@localhost") is
 * ignored, not answered. */
static void
test_own_address(void **state)
{
	struct it *t = *state;
	char *m;

	m = unsigned_mail("hexpost <HEXPOST@localhost>", "own.1@localhost");
	deliver(t, m);
	free(m);
	run(t, 0, 0, 1, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox"), 0);
	assert_int_equal(count(t, "SELECT count(*) FROM messages WHERE detail "
	    "= 'mail from hexpost''s own address'"), 1);
}

/* Several From addresses, and two From headers: answered nowhere, even
 * where one is a player's. */
static void
test_ambiguous_from(void **state)
{
	struct it *t = *state;
	char *m;

	m = unsigned_mail("Bea <blue@example.org>, Eve <eve@example.net>",
	    "amb.1@players.example");
	deliver(t, m);
	free(m);
	m = unsigned_mail("Bea <blue@example.org>\nFrom: eve@example.net",
	    "amb.2@players.example");
	deliver(t, m);
	free(m);
	run(t, 0, 2, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox"), 0);
}

/* orders.txt with orders.txt.sig, then with orders.minisig: both taken; a
 * signature named for no file is refused with what to rename it to. */
static void
test_signature_names(void **state)
{
	struct it *t = *state;
	char *m, *file, *sig, *p;

	if (!have_minisign)
		skip();
	file = order_file(t, "sig-1", false, true);
	sig = sign(t, file);
	m = client_mail(MUTT, file, sig, "sig.1@players.example");
	p = strstr(m, "orders.txt.minisig");
	memmove(p + strlen("orders.txt.sig"), p + strlen("orders.txt.minisig"),
	    strlen(p + strlen("orders.txt.minisig")) + 1);
	memcpy(p, "orders.txt.sig", strlen("orders.txt.sig"));
	deliver(t, m);
	free(m);
	run(t, 1, 0, 0, 0, 0);
	stored_exactly(t, file);
	free(file);
	free(sig);
	file = order_file(t, "sig-2", false, true);
	sig = sign(t, file);
	m = client_mail(MUTT, file, sig, "sig.2@players.example");
	p = strstr(m, "orders.txt.minisig");
	memmove(p + strlen("orders"), p + strlen("orders.txt"),
	    strlen(p + strlen("orders.txt")) + 1);
	deliver(t, m);
	free(m);
	run(t, 1, 0, 0, 0, 0);
	stored_exactly(t, file);
	/* A signature named for no file: told what to rename. */
	m = client_mail(MUTT, file, sig, "sig.3@players.example");
	p = strstr(m, "orders.txt.minisig");
	memcpy(p, "mysign", 6);
	deliver(t, m);
	free(m);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(refusals_with(t, "blue@example.org",
	    "name the signature orders.txt.minisig"), 1);
	free(file);
	free(sig);
}

/* Paused: every order in, but the ack does not promise a report at once. */
static void
test_paused_ack(void **state)
{
	struct it *t = *state;
	struct hp_error err = { 0, "" };
	struct store_settings ss;
	struct game g;
	int64_t cid;
	char *m, *file, *sig;

	if (!have_minisign)
		skip();
	game_init(&g);
	assert_int_equal(store_game_load(t->st, "hill", &g, &cid, &err), HP_OK);
	game_free(&g);
	assert_int_equal(store_settings_get(t->st, cid, &ss, &err), HP_OK);
	ss.paused = true;
	ss.paused_at = 1;
	assert_int_equal(store_settings_put(t->st, cid, &ss, &err), HP_OK);
	file = order_file(t, "paused", false, true);
	sig = sign(t, file);
	m = client_mail(MUTT, file, sig, "paused.1@players.example");
	deliver(t, m);
	free(m);
	run(t, 1, 0, 0, 0, 0);
	assert_int_equal(count(t, "SELECT count(*) FROM outbox WHERE kind = "
	    "'ack' AND instr(CAST(data AS TEXT), 'the campaign is paused') > 0 "
	    "AND instr(CAST(data AS TEXT), 'the report follows this message') "
	    "= 0"), 1);
	free(file);
	free(sig);
}

/* Symbolic links, FIFOs and directories in new/ are skipped with a line
 * in the log at -v. */
static void
test_non_regular_logged(void **state)
{
	struct it *t = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *e = NULL;
	char p[900], logp[900], *text;
	size_t n = 0;
	int saved, fd;

	snprintf(p, sizeof p, "%s/new/1.link", t->inbox);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	snprintf(p, sizeof p, "%s/new/2.fifo", t->inbox);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof p, "%s/new/3.dir", t->inbox);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(logp, sizeof logp, "%s/log", t->top);
	fflush(stderr);
	saved = dup(2);
	fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	log_set_level(LOG_LVL_DEBUG);
	assert_int_equal(maildir_list(t->inbox, 'S', &e, &n, &err), HP_OK);
	log_set_level(LOG_LVL_ERR);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(n, 0);
	maildir_list_free(e, n);
	text = util_read_file(logp, NULL, &err);
	assert_non_null(text);
	if (strstr(text, "1.link: skipped: not a regular file") == NULL ||
	    strstr(text, "2.fifo: skipped") == NULL ||
	    strstr(text, "3.dir: skipped") == NULL)
		fail_msg("log lacks the skipped entries:\n%s", text);
	free(text);
}

/* Issue 20 item 3: a 300 MB mail is refused, its answer says how large it
 * is, and memory stays bounded: the process's peak resident size grows by
 * far less than the mail. */
static void
test_huge_mail_bounded(void **state)
{
	struct it *t = *state;
	struct rusage before, after;
	char path[900];
	const char *head = "From: Bea <blue@example.org>\nTo: hexpost@hexpost"
	    ".example\nSubject: photos\nMessage-ID: <huge.1@players.example>\n"
	    "MIME-Version: 1.0\nContent-Type: text/plain\n\n";
	off_t size = (off_t)300 * 1024 * 1024;
	long grown_kb;
	int fd;

	snprintf(path, sizeof path, "%s/new/1700000000.huge.host", t->inbox);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, head, strlen(head)), (ssize_t)strlen(head));
	/* The rest: lines of text, sparse on disk but read as bytes. */
	assert_int_equal(ftruncate(fd, size), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	run(t, 0, 1, 0, 0, 0);
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	grown_kb = after.ru_maxrss - before.ru_maxrss;
	print_message("peak resident size grew by %ld KB for a 300 MB mail\n",
	    grown_kb);
	assert_true(grown_kb < 64 * 1024);
	assert_int_equal(refusals_with(t, "blue@example.org",
	    "the message is 300.0 MB; the limit is 2 MB"), 1);
	/* Advice only where it applies: attaching differently is not it. */
	assert_int_equal(refusals_with(t, NULL, "Attach your order file"), 0);
}

/* Issue 20 item 3: the pipeline holds prepared messages up to a number of
 * bytes, not 256 messages whatever their size: 60 mails of 1.9 MB each
 * (114 MB in all, refused for their 1.9 MB text part) grow the peak
 * resident size by far less than their sum. */
static void
test_pipeline_bytes(void **state)
{
	struct it *t = *state;
	struct rusage before, after;
	char path[900], line[80];
	long grown_kb;
	FILE *f;
	int i, j;

	memset(line, 'x', 76);
	line[76] = '\n';
	line[77] = '\0';
	for (i = 0; i < 60; i++) {
		snprintf(path, sizeof path, "%s/new/17000%05d.big.host",
		    t->inbox, i);
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "From: Bea <blue@example.org>\nTo: hexpost@hexpost."
		    "example\nSubject: big %d\nMessage-ID: <big.%d@example.net>"
		    "\n\n", i, i);
		for (j = 0; j < 1900 * 1024 / 77; j++)
			fputs(line, f);
		assert_int_equal(fclose(f), 0);
	}
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	run(t, 0, 60, 0, 0, 0);
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	grown_kb = after.ru_maxrss - before.ru_maxrss;
	print_message("peak resident size grew by %ld KB for 60 mails of "
	    "1.9 MB\n", grown_kb);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* (AddressSanitizer keeps freed memory in quarantine, ThreadSanitizer
	 * shadows every byte: not there.) */
	assert_true(grown_kb < 64 * 1024);
#endif
}

/* Run intake once as the current user, or, when root (who reads every
 * file), in a child that owns the test tree and has dropped to nobody.
 * Returns how many messages were deferred, or -1 on an error. */
static int
unreadable_intake(struct it *t)
{
	struct hp_error err = { 0, "" };
	struct intake_stats s;
	char cmd[1000];
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		if (intake_run(t->st, &t->cfg, &s, &err) != HP_OK)
			return -1;
		return (int)s.deferred;
	}
	snprintf(cmd, sizeof cmd, "chown -R 65534:65534 '%s'", t->top);
	if (system(cmd) != 0)
		return -1;
	pid = fork();
	if (pid == -1)
		return -1;
	if (pid == 0) {
		struct store *cst = NULL;

		/* A connection of its own: SQLite's locks do not cross a
		 * fork. The parent's stays open and unused meanwhile. */
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
		    setuid(65534) != 0 || geteuid() == 0)
			_exit(100);
		if (store_open(&cst, t->cfg.database, false, &err) != HP_OK ||
		    intake_run(cst, &t->cfg, &s, &err) != HP_OK)
			_exit(101);
		store_close(cst);
		_exit(s.deferred > 99 ? 99 : (int)s.deferred);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) >= 100)
		return -1;
	return WEXITSTATUS(status);
}

/* A message hexpost may not read is logged with its path once, not twice
 * ("PATH: PATH: Permission denied"), and left for the next run. Root
 * reads every file, so as root the intake runs as nobody in a child. */
static void
test_unreadable_path_once(void **state)
{
	struct it *t = *state;
	struct hp_error err = { 0, "" };
	char p[900], logp[900], *text, *first;
	int saved, fd, deferred;

	snprintf(p, sizeof p, "%s/new/1700000000.locked.host", t->inbox);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "From: a@b.example\n\nx\n", 21), 21);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(p, 0), 0);
	snprintf(logp, sizeof logp, "%s/log", t->top);
	fflush(stderr);
	saved = dup(2);
	fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	log_set_level(LOG_LVL_WARN);
	deferred = unreadable_intake(t);
	log_set_level(LOG_LVL_ERR);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(deferred, 1);
	text = util_read_file(logp, NULL, &err);
	assert_non_null(text);
	first = strstr(text, p);
	if (first == NULL || strstr(first + strlen(p), p) != NULL)
		fail_msg("the path is not logged exactly once:\n%s", text);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* First, while the process's peak resident size is small. */
		cmocka_unit_test_setup_teardown(test_huge_mail_bounded, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_pipeline_bytes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_line_endings, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_line_endings_tampered,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backscatter, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_message_id_reuse, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_own_address, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_from, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_signature_names, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_paused_ack, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_non_regular_logged, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_path_once,
		    setup, teardown),
	};

	if (sodium_init() < 0)
		return 1;
	engine_init();
	have_minisign = system("minisign -v >/dev/null 2>&1") == 0;
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
