/* test_imap: the IMAP response parser (fetch_imap_parse) on the responses
 * a session meets: FETCH with a literal body (incomplete until the last
 * byte), items in any order, BODY[]<0> partial bodies, response codes
 * (UIDVALIDITY, UIDNEXT, CAPABILITY), capabilities, tagged NO, untagged
 * BYE, continuation, and malformed or oversized input refused. And the
 * mail server keys of the configuration: a password in a file others can
 * read is refused, one in a 0600 file or the environment is kept, a
 * password in a URL is refused. */
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
#include <unistd.h>

#include "config.h"
#include "fetch_imap.h"
#include "fixtures.h"

static long
parse(const char *s, struct imap_resp *r)
{
	struct hp_error err = { 0, "" };

	return fetch_imap_parse((const unsigned char *)s, strlen(s), 1 << 20,
	    r, &err);
}

static void
test_fetch_literal(void **state)
{
	const char *s = "* 3 FETCH (UID 17 RFC822.SIZE 11 BODY[] {11}\r\n"
	    "Subject: x\n)\r\nh4 OK done\r\n";
	struct imap_resp r;
	size_t i, first;

	(void)state;
	first = strlen(s) - strlen("h4 OK done\r\n");
	/* Every cut before the end of the response is incomplete. */
	for (i = 0; i < first; i++) {
		struct hp_error err = { 0, "" };

		assert_int_equal(fetch_imap_parse((const unsigned char *)s, i,
		    1 << 20, &r, &err), 0);
	}
	assert_int_equal(parse(s, &r), (long)first);
	assert_int_equal(r.type, IMAP_R_FETCH);
	assert_int_equal(r.seq, 3);
	assert_int_equal(r.uid, 17);
	assert_true(r.has_size);
	assert_int_equal(r.size, 11);
	assert_true(r.has_body);
	assert_int_equal(r.body_len, 11);
	assert_memory_equal(r.body, "Subject: x\n", 11);
	/* The body may hold what looks like a tagged line or a literal. */
	s = "* 1 FETCH (BODY[] {20}\r\nh1 OK fake\r\n{3}\r\nab) UID 2)\r\n";
	assert_int_equal(parse(s, &r), (long)strlen(s));
	assert_int_equal(r.uid, 2);
	assert_int_equal(r.body_len, 20);
	assert_memory_equal(r.body, "h1 OK fake\r\n{3}\r\nab)", 20);
}

static void
test_fetch_other_items(void **state)
{
	struct imap_resp r;
	const char *s = "* 2 FETCH (FLAGS (\\Seen $Done) BODY[HEADER.FIELDS "
	    "(FROM)] {5}\r\nabcde UID 9 BODY[]<0> {3}\r\nxyz INTERNALDATE "
	    "\"01-Jan-2026 00:00:00 +0000\")\r\n";

	(void)state;
	assert_int_equal(parse(s, &r), (long)strlen(s));
	assert_int_equal(r.type, IMAP_R_FETCH);
	assert_int_equal(r.uid, 9);
	assert_false(r.has_size);
	assert_true(r.has_body);
	assert_int_equal(r.body_len, 3);
	assert_memory_equal(r.body, "xyz", 3);
	/* No body asked: none reported. */
	assert_true(parse("* 5 FETCH (UID 40 RFC822.SIZE 1234)\r\n", &r) > 0);
	assert_int_equal(r.uid, 40);
	assert_int_equal(r.size, 1234);
	assert_false(r.has_body);
}

static void
test_status_and_codes(void **state)
{
	struct imap_resp r;

	(void)state;
	assert_true(parse("* OK [UIDVALIDITY 1795315022] UIDs valid\r\n", &r) >
	    0);
	assert_int_equal(r.type, IMAP_R_STATUS);
	assert_int_equal(r.status, IMAP_ST_OK);
	assert_string_equal(r.code, "UIDVALIDITY");
	assert_int_equal(r.code_num, 1795315022);
	assert_string_equal(r.text, "UIDs valid");
	assert_true(parse("* OK [UIDNEXT 2] next\r\n", &r) > 0);
	assert_string_equal(r.code, "UIDNEXT");
	assert_int_equal(r.code_num, 2);
	assert_true(parse("* CAPABILITY IMAP4rev1 UIDPLUS MOVE IDLE\r\n", &r) >
	    0);
	assert_int_equal(r.type, IMAP_R_CAPABILITY);
	assert_int_equal(r.caps, IMAP_CAP_MOVE | IMAP_CAP_UIDPLUS |
	    IMAP_CAP_IDLE);   /* IDLE: the daemon waits with it (issue 19) */
	assert_true(parse("h1 OK [CAPABILITY IMAP4rev1 MOVE] Logged in\r\n",
	    &r) > 0);
	assert_int_equal(r.type, IMAP_R_TAGGED);
	assert_string_equal(r.tag, "h1");
	assert_int_equal(r.caps, IMAP_CAP_MOVE);
	assert_true(parse("h7 NO [TRYCREATE] Mailbox doesn't exist: Done\r\n",
	    &r) > 0);
	assert_int_equal(r.status, IMAP_ST_NO);
	assert_string_equal(r.code, "TRYCREATE");
	assert_string_equal(r.text, "Mailbox doesn't exist: Done");
	assert_true(parse("* BYE Server shutting down.\r\n", &r) > 0);
	assert_int_equal(r.status, IMAP_ST_BYE);
	assert_true(parse("+ go ahead\r\n", &r) > 0);
	assert_int_equal(r.type, IMAP_R_CONTINUE);
	assert_true(parse("* 4 EXISTS\r\n", &r) > 0);
	assert_int_equal(r.type, IMAP_R_OTHER);
	/* Control characters never reach the log text. */
	assert_true(parse("h2 BAD bad\x1b[31m\r\n", &r) > 0);
	assert_string_equal(r.text, "bad?[31m");
}

static void
test_malformed(void **state)
{
	struct imap_resp r;
	struct hp_error err = { 0, "" };
	char big[300];

	(void)state;
	assert_int_equal(parse("* 1 FETCH (UID x)\r\n", &r), -1);
	assert_int_equal(parse("* 1 FETCH (UID 0)\r\n", &r), -1);
	assert_int_equal(parse("* 1 FETCH UID 1\r\n", &r), -1);
	assert_int_equal(parse("* 1 FETCH (BODY[] {5}\r\nab)\r\n", &r), 0);
	assert_int_equal(parse("h1 MAYBE\r\n", &r), -1);
	assert_int_equal(parse("* 1 FETCH (BODY[] \"open)\r\n", &r), -1);
	/* Deep nesting is refused, not recursed into without end. */
	assert_int_equal(parse("* 1 FETCH (X ((((((((((((((((((((1))))))))))))"
	    "))))))))\r\n", &r), -1);
	/* Longer than the limit: refused before it is all there. */
	memset(big, 'a', sizeof big);
	assert_int_equal(fetch_imap_parse((const unsigned char *)big,
	    sizeof big, 256, &r, &err), -1);
	assert_int_equal(parse("* 1 FETCH (BODY[] {99999999999}\r\n", &r), -1);
}

static void
test_config_passwords(void **state)
{
	char dir[512], path[600];
	struct config c;
	struct hp_error err = { 0, "" };
	FILE *f;

	(void)state;
	fx_mkdtemp(dir, sizeof dir, "imapconf");
	snprintf(path, sizeof path, "%s/hexpost.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "imap = imaps://mail.example/INBOX\nimap_user = u\n"
	    "imap_password = s3cret\noutbox = smtp://mail.example:587\n");
	fclose(f);
	chmod(path, 0640);
	unsetenv("HEXPOST_IMAP_PASSWORD");
	assert_int_equal(config_load(&c, path, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "chmod 600"));
	assert_null(strstr(err.msg, "s3cret"));
	config_free(&c);
	chmod(path, 0600);
	assert_int_equal(config_load(&c, path, &err), HP_OK);
	assert_int_equal(c.nimap, 1);
	assert_string_equal(c.outbox, "smtp://mail.example:587");
	assert_string_equal(c.secrets->imap_password, "s3cret");
	config_free(&c);
	setenv("HEXPOST_IMAP_PASSWORD", "from-env", 1);
	assert_int_equal(config_load(&c, path, &err), HP_OK);
	assert_string_equal(c.secrets->imap_password, "from-env");
	config_free(&c);
	unsetenv("HEXPOST_IMAP_PASSWORD");
	/* A '#' in a password is part of it; elsewhere it starts a comment. */
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "smtp_password = pa#ss word#1\nimap_user = u # who\n");
	fclose(f);
	assert_int_equal(config_load(&c, path, &err), HP_OK);
	assert_string_equal(c.secrets->smtp_password, "pa#ss word#1");
	assert_string_equal(c.imap_user, "u");
	config_free(&c);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "imap = imaps://u:pw@mail.example/INBOX\n");
	fclose(f);
	assert_int_equal(config_load(&c, path, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "no password in the URL"));
	config_free(&c);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "imap_after = keyword \\Seen\n");
	fclose(f);
	assert_int_equal(config_load(&c, path, &err), HP_EINVAL);
	config_free(&c);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fetch_literal),
		cmocka_unit_test(test_fetch_other_items),
		cmocka_unit_test(test_status_and_codes),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_config_passwords),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
