/* test_bounce: mail that came back (issue 19), taken in through
 * intake_message like any mail: a Postfix and a Gmail-style delivery status
 * notification (RFC 3464), an Exim and a qmail text bounce quoting the
 * message, each matched to the message hexpost sent and the player it went
 * to, recorded, never answered; the moderator told once that the player is
 * unreachable and since when. Forged bounces (a message never sent, a
 * Date not ours, another recipient, a bounce carrying an order file)
 * change nothing but the record of the message. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounce.h"
#include "fixtures.h"
#include "intake.h"
#include "mail.h"
#include "turn.h"

static const char MASTER[] = "test-bounce master seed";

struct hill {
	const char *path;
	struct store *st;
	struct config cfg;
	int64_t cid;
	char msgid[300];   /* of the notice sent to rob */
	char date[128];    /* its Date */
	char *data;        /* the notice as sent */
};

/* Campaign hill with bea (Blue, moderator) and rob (Red); a notice sent to
 * rob (queued and marked sent). */
static int
setup(void **state)
{
	struct hp_error err = { 0, "" };
	struct hill *h = xcalloc(1, sizeof *h);
	char *p;

	*state = h;
	setenv("HEXPOST_NOW", "1800000000", 1);
	h->st = fx_club(&h->path, &h->cfg, &h->cid, NULL, MASTER);
	assert_int_equal(mail_queue_message(h->st, &h->cfg, h->cid, "report",
	    "rob@example.org", "r1", "[hexpost] hill: turn 1 report",
	    "Turn 1.\n", &err), HP_OK);
	fx_db_exec(h->path, "UPDATE outbox SET state = 'sent'");
	h->data = fx_db_text(h->path, "SELECT data FROM outbox");
	assert_non_null(h->data);
	p = strstr(h->data, "\nMessage-ID: <");
	assert_non_null(p);
	snprintf(h->msgid, sizeof h->msgid, "%.*s", (int)strcspn(p + 14, ">"),
	    p + 14);
	assert_true(strncmp(h->data, "Date: ", 6) == 0);
	snprintf(h->date, sizeof h->date, "%.*s", (int)strcspn(h->data + 6,
	    "\n"), h->data + 6);
	return 0;
}

static int
teardown(void **state)
{
	struct hill *h = *state;

	store_close(h->st);
	fx_tmp_clean();
	free(h->data);
	free(h);
	return 0;
}

/* tpl with @ORIGINAL@ (the whole message sent), @HEADERS@ (its header
 * block), @MSGID@ and @DATE@ filled in from h. Caller frees. */
static char *
fill(const struct hill *h, const char *tpl)
{
	struct sbuf b;
	const char *p = tpl, *at;
	size_t hdr = (size_t)(strstr(h->data, "\n\n") - h->data) + 1;

	sbuf_init(&b);
	while ((at = strchr(p, '@')) != NULL) {
		sbuf_add(&b, p, (size_t)(at - p));
		if (strncmp(at, "@ORIGINAL@", 10) == 0) {
			sbuf_puts(&b, h->data);
			p = at + 10;
		} else if (strncmp(at, "@HEADERS@", 9) == 0) {
			sbuf_add(&b, h->data, hdr);
			p = at + 9;
		} else if (strncmp(at, "@MSGID@", 7) == 0) {
			sbuf_puts(&b, h->msgid);
			p = at + 7;
		} else if (strncmp(at, "@DATE@", 6) == 0) {
			sbuf_puts(&b, h->date);
			p = at + 6;
		} else {
			sbuf_add(&b, "@", 1);
			p = at + 1;
		}
	}
	sbuf_puts(&b, p);
	return sbuf_steal(&b);
}

/* Take in the bounce made from tpl; its outcome. */
static enum intake_outcome
take(struct hill *h, const char *tpl)
{
	struct hp_error err = { 0, "" };
	enum intake_outcome out;
	char *raw = fill(h, tpl);

	if (intake_message(h->st, &h->cfg, "INBOX", (unsigned char *)raw,
	    strlen(raw), &out, &err) != HP_OK)
		fail_msg("intake_message: %s", err.msg);
	free(raw);
	return out;
}

static const char postfix[] =
    "Return-Path: <>\n"
    "Received: by mx.example.org (Postfix) id 3F2A1C0042; Wed, 15 Jan 2027 "
    "08:00:05 +0000 (UTC)\n"
    "Date: Wed, 15 Jan 2027 08:00:05 +0000 (UTC)\n"
    "From: MAILER-DAEMON@mx.example.org (Mail Delivery System)\n"
    "Subject: Undelivered Mail Returned to Sender\n"
    "To: hexpost@club.example\n"
    "Auto-Submitted: auto-replied\n"
    "MIME-Version: 1.0\n"
    "Content-Type: multipart/report; report-type=delivery-status;\n"
    "\tboundary=\"3F2A1C0042.1800000005/mx.example.org\"\n"
    "Message-Id: <20270115080005.3F2A1C0042@mx.example.org>\n"
    "\n"
    "This is a MIME-encapsulated message.\n"
    "\n"
    "--3F2A1C0042.1800000005/mx.example.org\n"
    "Content-Description: Notification\n"
    "Content-Type: text/plain; charset=us-ascii\n"
    "\n"
    "This is the mail system at host mx.example.org.\n"
    "\n"
    "I'm sorry to have to inform you that your message could not\n"
    "be delivered to one or more recipients. It's attached below.\n"
    "\n"
    "                   The mail system\n"
    "\n"
    "<rob@example.org>: host mail.example.org[192.0.2.7] said: 550 5.1.1\n"
    "    <rob@example.org>: Recipient address rejected: User unknown in "
    "local\n    recipient table (in reply to RCPT TO command)\n"
    "\n"
    "--3F2A1C0042.1800000005/mx.example.org\n"
    "Content-Description: Delivery report\n"
    "Content-Type: message/delivery-status\n"
    "\n"
    "Reporting-MTA: dns; mx.example.org\n"
    "X-Postfix-Queue-ID: 3F2A1C0042\n"
    "X-Postfix-Sender: rfc822; hexpost@club.example\n"
    "Arrival-Date: Wed, 15 Jan 2027 08:00:04 +0000 (UTC)\n"
    "\n"
    "Final-Recipient: rfc822; rob@example.org\n"
    "Original-Recipient: rfc822;rob@example.org\n"
    "Action: failed\n"
    "Status: 5.1.1\n"
    "Remote-MTA: dns; mail.example.org\n"
    "Diagnostic-Code: smtp; 550 5.1.1 <rob@example.org>: Recipient address\n"
    "    rejected: User unknown in local recipient table\n"
    "\n"
    "--3F2A1C0042.1800000005/mx.example.org\n"
    "Content-Description: Undelivered Message\n"
    "Content-Type: message/rfc822\n"
    "\n"
    "@ORIGINAL@"
    "\n"
    "--3F2A1C0042.1800000005/mx.example.org--\n";

static const char gmail[] =
    "Return-Path: <>\n"
    "From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>\n"
    "To: hexpost@club.example\n"
    "Auto-Submitted: auto-replied\n"
    "Subject: Delivery Status Notification (Failure)\n"
    "Message-ID: <6789.dsn@mx.google.com>\n"
    "Date: Fri, 15 Jan 2027 00:00:06 -0800 (PST)\n"
    "MIME-Version: 1.0\n"
    "Content-Type: multipart/report; boundary=\"000000000000abcd\"; "
    "report-type=delivery-status\n"
    "\n"
    "--000000000000abcd\n"
    "Content-Type: multipart/related; boundary=\"000000000000ef01\"\n"
    "\n"
    "--000000000000ef01\n"
    "Content-Type: multipart/alternative; boundary=\"000000000000ef02\"\n"
    "\n"
    "--000000000000ef02\n"
    "Content-Type: text/plain; charset=\"UTF-8\"\n"
    "\n"
    "** Address not found **\n"
    "\n"
    "Your message wasn't delivered to rob@example.org because the address "
    "couldn't be found, or is unable to receive mail.\n"
    "\n"
    "--000000000000ef02\n"
    "Content-Type: text/html; charset=\"UTF-8\"\n"
    "\n"
    "<html><body><p>Address not found</p></body></html>\n"
    "--000000000000ef02--\n"
    "--000000000000ef01--\n"
    "--000000000000abcd\n"
    "Content-Type: message/delivery-status\n"
    "\n"
    "Reporting-MTA: dns; googlemail.com\n"
    "Received-From-MTA: dns; hexpost@club.example\n"
    "Arrival-Date: Fri, 15 Jan 2027 00:00:05 -0800 (PST)\n"
    "X-Original-Message-ID: <@MSGID@>\n"
    "\n"
    "Final-Recipient: rfc822; rob@example.org\n"
    "Action: failed\n"
    "Status: 5.1.1\n"
    "Remote-MTA: dns; gmail-smtp-in.l.google.com. (2607:f8b0::1a)\n"
    "Diagnostic-Code: smtp; 550-5.1.1 The email account that you tried to "
    "reach does not exist.\n"
    "Last-Attempt-Date: Fri, 15 Jan 2027 00:00:06 -0800 (PST)\n"
    "\n"
    "--000000000000abcd\n"
    "Content-Type: text/rfc822-headers\n"
    "\n"
    "@HEADERS@"
    "--000000000000abcd--\n";

static const char exim[] =
    "Return-path: <>\n"
    "Envelope-to: hexpost@club.example\n"
    "X-Failed-Recipients: rob@example.org\n"
    "Auto-Submitted: auto-replied\n"
    "From: Mail Delivery System <Mailer-Daemon@mx.example.net>\n"
    "To: hexpost@club.example\n"
    "Subject: Mail delivery failed: returning message to sender\n"
    "Message-Id: <E1q2w3e-0004Rt-5y@mx.example.net>\n"
    "Date: Fri, 15 Jan 2027 08:00:07 +0000\n"
    "\n"
    "This message was created automatically by mail delivery software.\n"
    "\n"
    "A message that you sent could not be delivered to one or more of its\n"
    "recipients. This is a permanent error. The following address(es) "
    "failed:\n"
    "\n"
    "  rob@example.org\n"
    "    host mail.example.org [192.0.2.7]\n"
    "    SMTP error from remote mail server after RCPT TO:<rob@example.org>:\n"
    "    550 5.1.1 <rob@example.org>: mailbox full or disabled\n"
    "\n"
    "------ This is a copy of the message, including all the headers. ------\n"
    "\n"
    "Return-path: <hexpost@club.example>\n"
    "Received: from club.example ([198.51.100.2])\n"
    "\tby mx.example.net with esmtp (Exim 4.96)\n"
    "\tid 1q2w3e-0004Rs-4x for rob@example.org; Fri, 15 Jan 2027 08:00:06 "
    "+0000\n"
    "@ORIGINAL@";

static const char qmail[] =
    "Return-Path: <>\n"
    "Date: 15 Jan 2027 08:00:08 -0000\n"
    "From: MAILER-DAEMON@mx.example.com\n"
    "To: hexpost@club.example\n"
    "Subject: failure notice\n"
    "\n"
    "Hi. This is the qmail-send program at mx.example.com.\n"
    "I'm afraid I wasn't able to deliver your message to the following "
    "addresses.\n"
    "This is a permanent error; I've given up. Sorry it didn't work out.\n"
    "\n"
    "<rob@example.org>:\n"
    "192.0.2.7 does not like recipient.\n"
    "Remote host said: 550 5.7.1 <rob@example.org>... Relaying denied\n"
    "Giving up on 192.0.2.7.\n"
    "\n"
    "--- Below this line is a copy of the message.\n"
    "\n"
    "Return-Path: <hexpost@club.example>\n"
    "Received: (qmail 4711 invoked from network); 15 Jan 2027 08:00:07 "
    "-0000\n"
    "@ORIGINAL@";

/* What bounce_detect reads from bounce tpl. */
static void
detect(struct hill *h, const char *tpl, struct bounce_info *b)
{
	struct hp_error err = { 0, "" };
	struct mime_msg m;
	char *raw = fill(h, tpl);

	if (mime_parse((unsigned char *)raw, strlen(raw), &m, &err) != HP_OK)
		fail_msg("mime_parse: %s", err.msg);
	assert_true(bounce_detect(&m, b));
	mime_msg_free(&m);
	free(raw);
}

/* Each format gives the original's Message-ID and Date and the failure. */
static void
test_formats(void **state)
{
	struct hill *h = *state;
	struct bounce_info b;

	detect(h, postfix, &b);
	assert_string_equal(b.format, "dsn");
	assert_string_equal(b.message_id, h->msgid);
	assert_string_equal(b.date, h->date);
	assert_string_equal(b.rcpt, "rob@example.org");
	assert_string_equal(b.action, "failed");
	assert_string_equal(b.status, "5.1.1");
	assert_string_equal(b.diagnostic, "550 5.1.1 <rob@example.org>: "
	    "Recipient address rejected: User unknown in local recipient table");
	assert_false(b.has_orders);

	detect(h, gmail, &b);
	assert_string_equal(b.format, "dsn");
	assert_string_equal(b.message_id, h->msgid);
	assert_string_equal(b.date, h->date);
	assert_string_equal(b.status, "5.1.1");
	assert_non_null(strstr(b.diagnostic, "does not exist"));

	detect(h, exim, &b);
	assert_string_equal(b.format, "quoted");
	assert_string_equal(b.message_id, h->msgid);
	assert_string_equal(b.date, h->date);
	assert_string_equal(b.rcpt, "");
	assert_string_equal(b.action, "failed");
	assert_string_equal(b.status, "5.1.1");
	assert_string_equal(b.diagnostic, "550 5.1.1 <rob@example.org>: "
	    "mailbox full or disabled");

	detect(h, qmail, &b);
	assert_string_equal(b.format, "quoted");
	assert_string_equal(b.message_id, h->msgid);
	assert_string_equal(b.date, h->date);
	assert_string_equal(b.status, "5.7.1");
	assert_string_equal(b.diagnostic, "Remote host said: 550 5.7.1 "
	    "<rob@example.org>... Relaying denied");
}

/* Unreachable players, as bounce_print writes them. */
static char *
unreachable(struct hill *h)
{
	struct hp_error err = { 0, "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bounce_print(h->st, 0, f, "", &err), HP_OK);
	fclose(f);
	return buf;
}

/* Every format is recorded against rob, never answered; bea is told once. */
static void
test_take(void **state)
{
	struct hill *h = *state;
	const char *all[] = { postfix, gmail, exim, qmail };
	char *u, *notice;
	size_t i;

	for (i = 0; i < 4; i++)
		assert_int_equal(take(h, all[i]), INTAKE_IGNORED);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM bounces b "
	    "JOIN players p ON p.id = b.player_id WHERE p.name = 'rob' AND "
	    "b.action = 'failed'"), 4);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM bounces "
	    "WHERE format = 'dsn'"), 2);
	/* Never answered: nothing to the mailer daemons; one notice to the
	 * moderator, none to rob. */
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM outbox "
	    "WHERE kind IN ('ack', 'refusal')"), 0);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM outbox "
	    "WHERE kind = 'notice'"), 1);
	notice = fx_db_text(h->path, "SELECT data FROM outbox WHERE kind = "
	    "'notice' AND rcpt = 'bea@example.org'");
	assert_non_null(notice);
	assert_non_null(strstr(notice, "X-Hexpost-Topic: [hexpost] hill: mail "
	    "to rob bounces"));
	assert_non_null(strstr(notice, "Mail to player rob <rob@example.org>"));
	assert_non_null(strstr(notice, "rob has been unreachable since "
	    "2027-01-15 08:00 UTC"));
	free(notice);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM messages "
	    "WHERE outcome = 'ignored' AND detail LIKE 'bounce (%'"), 4);
	u = unreachable(h);
	assert_non_null(strstr(u, "unreachable: hill/rob <rob@example.org> "
	    "since 2027-01-15 08:00 UTC (4 bounces"));
	free(u);
	/* The same bounce again is a duplicate: nothing more. */
	assert_int_equal(take(h, qmail), INTAKE_DUPLICATE);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM bounces"),
	    4);
	/* A new address clears it (a replacement). */
	fx_db_exec(h->path, "UPDATE players SET email = 'rob@new.example' "
	    "WHERE name = 'rob'");
	u = unreachable(h);
	assert_string_equal(u, "");
	free(u);
}

/* Forged bounces: a message never sent, a Date not ours, another
 * recipient; and a bounce carrying an order file. None is a bounce of
 * rob's, none answered, no orders taken. */
static void
test_forged(void **state)
{
	struct hill *h = *state;
	char *t, *u;

	{
		struct sbuf b;
		const char *at = strstr(exim, "@ORIGINAL@");

		/* never sent */
		sbuf_init(&b);
		sbuf_add(&b, exim, (size_t)(at - exim));
		sbuf_puts(&b, "Date: @DATE@\nMessage-ID: <hexpost.report.hill."
		    "t9.w1.rob@club.example>\nSubject: x\n\nx\n");
		assert_int_equal(take(h, b.buf), INTAKE_IGNORED);
		sbuf_free(&b);
		/* our Message-ID, another Date */
		sbuf_init(&b);
		sbuf_add(&b, exim, (size_t)(at - exim));
		sbuf_puts(&b, "Date: Mon, 01 Jan 2024 00:00:00 +0000\n"
		    "Message-ID: <@MSGID@>\nSubject: x\n\nx\n");
		assert_int_equal(take(h, b.buf), INTAKE_IGNORED);
		sbuf_free(&b);
	}
	/* our message, but a DSN naming another recipient */
	t = xstrdup(postfix);
	memcpy(strstr(t, "Final-Recipient: rfc822; rob@"), "Final-Recipient: "
	    "rfc822; bea@", 29);
	assert_int_equal(take(h, t), INTAKE_IGNORED);
	free(t);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM bounces"),
	    0);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM messages "
	    "WHERE detail LIKE 'forged bounce: names <hexpost.report.hill.t9%'"
	    " AND detail LIKE '%never sent'"), 1);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM messages "
	    "WHERE detail LIKE 'forged bounce:%not as hexpost sent it (Date%'"),
	    1);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM messages "
	    "WHERE detail LIKE '%not as hexpost sent it (recipient%'"), 1);
	/* A bounce that is really an order attempt: a signed file attached
	 * to a failure notice is not taken as orders. */
	{
		static const char attempt[] =
		    "From: MAILER-DAEMON@mx.example.com\n"
		    "To: hexpost@club.example\n"
		    "Subject: failure notice\n"
		    "MIME-Version: 1.0\n"
		    "Content-Type: multipart/mixed; boundary=b\n"
		    "\n"
		    "--b\n"
		    "Content-Type: text/plain\n"
		    "\n"
		    "Remote host said: 550 5.1.1 unknown\n"
		    "\n"
		    "--- Below this line is a copy of the message.\n"
		    "\n"
		    "Date: @DATE@\n"
		    "Message-ID: <@MSGID@>\n"
		    "\n"
		    "--b\n"
		    "Content-Type: text/plain\n"
		    "Content-Disposition: attachment; filename=orders.txt\n"
		    "\n"
		    "campaign: hill\n"
		    "--b\n"
		    "Content-Type: application/octet-stream\n"
		    "Content-Disposition: attachment; filename=orders.txt.minisig\n"
		    "\n"
		    "untrusted comment: x\n"
		    "--b--\n";

		assert_int_equal(take(h, attempt), INTAKE_IGNORED);
	}
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM messages "
	    "WHERE detail LIKE '%carries an order file, not taken as orders'"),
	    1);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM orders"), 0);
	assert_int_equal(fx_db_long(h->path, "SELECT count(*) FROM outbox "
	    "WHERE kind IN ('ack', 'refusal')"), 0);
	u = unreachable(h);
	/* The order attempt did name our message as sent: recorded (it is a
	 * bounce), but its orders were not taken. */
	assert_non_null(strstr(u, "hill/rob"));
	free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_take, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
