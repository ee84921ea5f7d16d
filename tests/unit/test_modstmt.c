/* test_modstmt: moderator statements (docs/AUDIT.md, "Moderator
 * statements"): the canonical text, strict parsing (anything but the
 * canonical form is refused), the verbs that need one, and a signature
 * checked against the moderator's key only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "minisign.h"
#include "modstmt.h"

#define STMT "hexpost moderator statement v1\ncampaign: hill\nsequence: 2\n" \
	"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: proceed hold\nend\n"

/* The example's bytes, parsed and written back. */
static void
test_round_trip(void **state)
{
	struct hp_error err = { 0, "" };
	struct modstmt m;
	char *t;

	(void)state;
	assert_int_equal(modstmt_parse(STMT, &m, &err), HP_OK);
	assert_string_equal(m.campaign, "hill");
	assert_int_equal(m.seq, 2);
	assert_int_equal(m.window, 3);
	assert_int_equal(m.turn, 2);
	assert_int_equal(m.number, 1);
	assert_string_equal(m.name, "blue");
	assert_string_equal(m.verb, "proceed");
	assert_string_equal(m.arg, "hold");
	t = modstmt_format(&m);
	assert_string_equal(t, STMT);
	free(t);
	assert_int_equal(modstmt_proceed_in(STMT, 2, 1), 2);
	assert_int_equal(modstmt_proceed_in(STMT, 2, 2), 0);
	strcpy(m.verb, "end");
	m.arg[0] = '\0';
	t = modstmt_format(&m);
	assert_non_null(strstr(t, "\naction: end\nend\n"));
	assert_int_equal(modstmt_parse(t, &m, &err), HP_OK);
	free(t);
}

/* One byte off the canonical form, each refused. */
static void
test_not_canonical(void **state)
{
	static const char *const bad[] = {
		"hexpost moderator statement v1\ncampaign: hill\nsequence: 02\n"
		"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: proceed "
		"hold\nend\n",
		"hexpost moderator statement v1\ncampaign: hill\nsequence: 2\n"
		"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: proceed "
		"hold\nend",
		"hexpost moderator statement v1\ncampaign:  hill\nsequence: 2\n"
		"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: proceed "
		"hold\nend\n",
		"hexpost moderator statement v1\ncampaign: hill\nsequence: 2\n"
		"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: pause\n"
		"end\n",
		"hexpost moderator statement v1\ncampaign: hill\nsequence: 0\n"
		"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: end\nend\n",
		"hexpost moderator statement v1\r\ncampaign: hill\nsequence: 2\n"
		"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: end\nend\n",
		"hexpost moderator statement v1\ncampaign: hill\nsequence: 2\n"
		"window: 3\nturn: 2\nnumber: 1\nname: blue\naction: end\nend\n"
		"\n",
	};
	struct hp_error err = { 0, "" };
	struct modstmt m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(modstmt_parse(bad[i], &m, &err), HP_EINVAL);
	assert_true(modstmt_signed_verb("replace"));
	assert_true(modstmt_signed_verb("deadline"));
	assert_false(modstmt_signed_verb("pause"));
	assert_false(modstmt_signed_verb("set"));
}

/* A statement verifies with the key that signed it and no other. */
static void
test_signature(void **state)
{
	struct hp_error err = { 0, "" };
	char dir[] = "/tmp/test_modstmt.XXXXXX", sk[64], pk[64], sk2[64],
	    pk2[64], *sig = NULL, *pub, *pub2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sk, sizeof sk, "%s/m.key", dir);
	snprintf(pk, sizeof pk, "%s/m.pub", dir);
	snprintf(sk2, sizeof sk2, "%s/s.key", dir);
	snprintf(pk2, sizeof pk2, "%s/s.pub", dir);
	assert_int_equal(minisign_keygen(sk, pk, NULL, &err), HP_OK);
	assert_int_equal(minisign_keygen(sk2, pk2, NULL, &err), HP_OK);
	assert_int_equal(minisign_sign_file_text(sk, (const unsigned char *)
	    STMT, strlen(STMT), NULL, &sig, &err), HP_OK);
	pub = util_read_file(pk, NULL, &err);
	pub2 = util_read_file(pk2, NULL, &err);
	assert_non_null(pub);
	assert_non_null(pub2);
	assert_int_equal(modstmt_verify(pub, STMT, sig, &err), HP_OK);
	assert_int_equal(modstmt_verify(pub2, STMT, sig, &err), HP_EINVAL);
	assert_int_equal(modstmt_verify(pub, STMT "x", sig, &err), HP_EINVAL);
	free(sig);
	free(pub);
	free(pub2);
	unlink(sk);
	unlink(pk);
	unlink(sk2);
	unlink(pk2);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_not_canonical),
		cmocka_unit_test(test_signature),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
