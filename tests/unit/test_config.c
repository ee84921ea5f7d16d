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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cleartext_decision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
