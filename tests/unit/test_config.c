/* test_config: the configuration file's hygiene (issue 20 item 10: every
 * value checked with its line number, datadir no longer resetting keys read
 * before it, imap_after move refusing CR and 8-bit bytes, from and domain
 * checked) and the decision whether a password may go out in clear text
 * (item 4: only to a loopback address). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

/* Whether url with TLS off and a password is accepted. */
static bool
clear_ok(const char *url)
{
	char why[256] = "";
	bool ok = config_cleartext_ok(url, false, true, why, sizeof why);

	if (!ok)
		assert_non_null(strstr(why, "clear text"));
	return ok;
}

static void
test_cleartext_decision(void **state)
{
	char why[256];

	(void)state;
	assert_true(clear_ok("imap://127.0.0.1:143/"));
	assert_true(clear_ok("imap://127.0.0.1/"));
	assert_true(clear_ok("imap://127.1.2.3:1143/"));
	assert_true(clear_ok("imap://localhost:143/"));
	assert_true(clear_ok("imap://LocalHost/"));
	assert_true(clear_ok("imap://[::1]:143/"));
	assert_true(clear_ok("smtp://user@127.0.0.1:25/example.org"));
	assert_true(clear_ok("smtp://localhost:587/example.org"));
	assert_false(clear_ok("imap://mail.example.org:143/"));
	assert_false(clear_ok("imap://127.0.0.1.evil.example/"));
	assert_false(clear_ok("imap://localhost.evil.example/"));
	assert_false(clear_ok("imap://128.0.0.1/"));
	assert_false(clear_ok("imap://127.0.0.256/"));
	assert_false(clear_ok("imap://127.0.0/"));
	assert_false(clear_ok("imap://127.0.0.1.2/"));
	assert_false(clear_ok("imap://10.0.0.1:143/"));
	assert_false(clear_ok("imap://[::2]:143/"));
	assert_false(clear_ok("imap://[::ffff:127.0.0.1]/"));
	assert_false(clear_ok("smtp://evil@mail.example.org:25/x"));
	assert_false(clear_ok("smtp://127.0.0.1@mail.example.org/x"));
	assert_false(clear_ok("imap://0.0.0.0/"));
	assert_false(clear_ok("imap:///"));
	/* TLS, or no password: always fine. */
	assert_true(config_cleartext_ok("imap://mail.example.org/", true, true,
	    why, sizeof why));
	assert_true(config_cleartext_ok("imap://mail.example.org/", false,
	    false, why, sizeof why));
}

static char cfgdir[64], cfgpath[128];

/* Write text as the configuration file (mode 0600) and load it into c:
 * the return code, err filled. */
static int
load(const char *text, struct config *c, struct hp_error *err)
{
	FILE *f;

	if (cfgdir[0] == '\0') {
		strcpy(cfgdir, "/tmp/hp-test-config.XXXXXX");
		assert_non_null(mkdtemp(cfgdir));
		snprintf(cfgpath, sizeof cfgpath, "%s/hexpost.conf", cfgdir);
	}
	assert_non_null(f = fopen(cfgpath, "w"));
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(cfgpath, 0600), 0);
	err->code = 0;
	err->msg[0] = '\0';
	return config_load(c, cfgpath, err);
}

/* text must be refused, naming line lineno and saying what (a part of the
 * message). */
static void
refused(const char *text, int lineno, const char *what)
{
	struct hp_error err;
	struct config c;
	char where[160];

	assert_int_equal(load(text, &c, &err), HP_EINVAL);
	snprintf(where, sizeof where, "%s:%d: ", cfgpath, lineno);
	if (strstr(err.msg, where) == NULL || strstr(err.msg, what) == NULL)
		fail_msg("for %s: got '%s', want '%s' and '%s'", text, err.msg,
		    where, what);
}

/* datadir is read first: keys before it keep their values and relative
 * paths before it are under it (it used to reset them to its defaults). */
static void
test_datadir_order(void **state)
{
	struct hp_error err;
	struct config c;

	(void)state;
	assert_int_equal(load("database = my.db\nfrom = hp@club.example\n"
	    "poll_interval = 7\nimap = imap://127.0.0.1/INBOX\n"
	    "server_key = /keys/s.key\ndatadir = /srv/hp\n", &c, &err), HP_OK);
	assert_string_equal(c.datadir, "/srv/hp");
	assert_string_equal(c.database, "/srv/hp/my.db");
	assert_string_equal(c.from, "hp@club.example");
	assert_int_equal(c.poll_interval, 7);
	assert_int_equal(c.nimap, 1);
	assert_string_equal(c.server_key, "/keys/s.key");
	assert_string_equal(c.server_pub, "/srv/hp/server.pub");
	assert_string_equal(c.mailbox, "maildir:/srv/hp/inbox");
	config_free(&c);
	/* The same file with datadir first gives the same. */
	assert_int_equal(load("datadir = /srv/hp # a comment\n"
	    "database = my.db\n", &c, &err), HP_OK);
	assert_string_equal(c.database, "/srv/hp/my.db");
	config_free(&c);
	refused("from = a@b.example\ndatadir = relative/dir\n", 2,
	    "absolute path");
	refused("datadir =\n", 1, "absolute path");
}

/* imap_after move FOLDER: no CR, LF, tab or 8-bit byte reaches the IMAP
 * command. */
static void
test_imap_after_move(void **state)
{
	struct hp_error err;
	struct config c;

	(void)state;
	assert_int_equal(load("imap_after = move Done/2027\n", &c, &err),
	    HP_OK);
	assert_int_equal(c.imap_after, CONFIG_AFTER_MOVE);
	assert_string_equal(c.imap_after_arg, "Done/2027");
	config_free(&c);
	refused("\nimap_after = move Done\rA001 DELETE INBOX\n", 2,
	    "control characters");
	refused("imap_after = move Caf\xc3\xa9\n", 1, "imap_after must be");
	refused("imap_after = move a\tb\n", 1, "imap_after must be");
	refused("imap_after = move a\x7f\n", 1, "control characters");
}

/* from and domain are checked. */
static void
test_from_domain(void **state)
{
	struct hp_error err;
	struct config c;

	(void)state;
	assert_int_equal(load("from = hex.post+club@mail.club-1.example\n"
	    "domain = club-1.example\n", &c, &err), HP_OK);
	assert_string_equal(c.from, "hex.post+club@mail.club-1.example");
	assert_string_equal(c.domain, "club-1.example");
	config_free(&c);
	refused("from = Hexpost <hp@club.example>\n", 1, "from must be");
	refused("from = hp@club.example, evil@x.example\n", 1, "from must be");
	refused("from = hpclub.example\n", 1, "from must be");
	refused("from = hp@\n", 1, "from must be");
	refused("from = h\xc3\xa9@club.example\n", 1, "from must be");
	refused("from = .hp@club.example\n", 1, "from must be");
	refused("from = hp@club..example\n", 1, "from must be");
	refused("\n\ndomain = club example\n", 3, "domain must be");
	refused("domain = -club.example\n", 1, "domain must be");
	refused("domain = club.example.\n", 1, "domain must be");
	refused("domain = club_x.example\n", 1, "domain must be");
	refused("domain = <x>\n", 1, "domain must be");
}

/* Every value: control characters, empty or too long values, bad
 * numbers, unknown keys, all with the line. */
static void
test_values(void **state)
{
	char big[1200], line[1300];

	(void)state;
	refused("log = stderr\nlog_level = loud\n", 2, "log_level must be");
	refused("poll_interval = 0\n", 1, "from 1 to 86400");
	refused("mail_timeout = 5s\n", 1, "from 1 to 10000");
	refused("imap_user = a\x01b\n", 1, "control characters");
	refused("imap_user =\n", 1, "imap_user must be");
	refused("nonsense = 1\n", 1, "unknown key");
	refused("database\n", 1, "expected 'key = value'");
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	snprintf(line, sizeof line, "database = /%s\n", big);
	refused(line, 1, "at most");
	refused("database =\n", 1, "database: expected a path");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cleartext_decision),
		cmocka_unit_test(test_datadir_order),
		cmocka_unit_test(test_imap_after_move),
		cmocka_unit_test(test_from_domain),
		cmocka_unit_test(test_values),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];

	if (cfgdir[0] != '\0') {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", cfgdir);
		if (system(cmd) != 0)
			return 1;
	}
	return rc;
}
