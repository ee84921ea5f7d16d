/* test_audit: audits of whole campaigns resolved through the library with
 * a server key: a clean campaign passes from the database and from its
 * exported bundle; an unsigned log, a changed die, a broken chain, a
 * changed opponent file and a bundle without its server key are caught. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "fixtures.h"
#include "minisign.h"
#include "turn.h"

static char dir[512];
static char db[600], sk_path[600], pk_path[600];

/* A finished campaign 'hill' (both sides the built-in opponent), its dice
 * logs signed with a fresh server key when sign. */
static struct store *
campaign(bool sign)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *sk = NULL;
	struct store *st;
	int n = 0;

	fx_mkdtemp(dir, sizeof dir, "audit");
	snprintf(db, sizeof db, "%s/db", dir);
	snprintf(sk_path, sizeof sk_path, "%s/server.key", dir);
	snprintf(pk_path, sizeof pk_path, "%s/server.pub", dir);
	st = fx_store_new(db);
	assert_int_equal(turn_campaign_new(st, "hill", "fire-and-movement",
	    NULL, NULL, NULL, 0, &err), HP_OK);
	if (sign) {
		assert_int_equal(minisign_keygen(sk_path, pk_path, NULL, &err),
		    HP_OK);
		assert_int_equal(minisign_seckey_load(sk_path, &sk, &err),
		    HP_OK);
	}
	assert_int_equal(turn_resolve_signed(st, "hill", NULL, sk, &n, &err),
	    HP_OK);
	assert_true(n >= 2);
	minisign_seckey_free(sk);
	return st;
}

static void
done(struct store *st)
{
	store_close(st);
	fx_rmtree(dir);
}

/* The audit fails naming msg. */
static void
audit_fails(struct store *st, const char *pub, const char *msg)
{
	struct audit_opts o = { pub, NULL };
	struct audit_stats s;
	struct hp_error err = { 0, "" };

	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_EINVAL);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("'%s' not in '%s'", msg, err.msg);
}

static void
test_clean_and_bundle(void **state)
{
	struct store *st = campaign(true);
	struct audit_opts o = { pk_path, NULL };
	struct audit_stats s, sb;
	struct hp_error err = { 0, "" };
	char bdir[700];

	(void)state;
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_int_equal(s.windows, (int)fx_db_long(db,
	    "SELECT count(*) FROM windows"));
	assert_int_equal(s.log_signatures, s.windows);
	assert_int_equal(s.opponent_orders, s.windows);
	assert_int_equal(s.reports, 3 * s.windows);
	assert_int_equal(s.rolls, fx_db_long(db, "SELECT count(*) FROM dice"));
	snprintf(bdir, sizeof bdir, "%s/bundle", dir);
	assert_int_equal(audit_export(st, "hill", bdir, pk_path, &err), HP_OK);
	assert_int_equal(audit_export(st, "hill", bdir, pk_path, &err),
	    HP_ESTATE);
	assert_int_equal(audit_bundle(bdir, NULL, &sb, &err), HP_OK);
	assert_int_equal(sb.windows, s.windows);
	assert_int_equal(sb.rolls, s.rolls);
	assert_int_equal(sb.reports, s.reports);
	done(st);
}

static void
test_unsigned(void **state)
{
	struct store *st = campaign(false);

	(void)state;
	audit_fails(st, NULL, "the dice log is not signed");
	done(st);
}

static void
test_tampered(void **state)
{
	struct store *st = campaign(true);

	(void)state;
	fx_db_exec(db, "UPDATE dice SET result = result % sides + 1 WHERE "
	    "rowid = (SELECT min(rowid) FROM dice)");
	audit_fails(st, pk_path, "the stored dice table");
	fx_db_exec(db, "UPDATE dice SET result = (result + sides - 2) % sides "
	    "+ 1 WHERE rowid = (SELECT min(rowid) FROM dice)");
	fx_db_exec(db, "UPDATE dice_logs SET hash = randomblob(32)");
	/* The stored hash column is not trusted: the chain is recomputed. */
	fx_db_exec(db, "UPDATE orders SET raw = replace(raw, 'side: ', "
	    "'side:  ') WHERE id = (SELECT max(id) FROM orders)");
	audit_fails(st, pk_path, "does not hash to the hash recorded");
	done(st);
}

static void
test_wrong_key(void **state)
{
	struct store *st = campaign(true);
	struct hp_error err = { 0, "" };
	char other[700], otherpub[700];

	(void)state;
	snprintf(other, sizeof other, "%s/other.key", dir);
	snprintf(otherpub, sizeof otherpub, "%s/other.pub", dir);
	assert_int_equal(minisign_keygen(other, otherpub, NULL, &err), HP_OK);
	audit_fails(st, otherpub, "does not match its server signature");
	done(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_and_bundle),
		cmocka_unit_test(test_unsigned),
		cmocka_unit_test(test_tampered),
		cmocka_unit_test(test_wrong_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
