/* test_fog_standing: standing orders in a ruleset with hidden information
 * (docs/AUDIT.md, "Hidden orders"), through the test ruleset test-fog.
 * A standing file of a side the window names enters the public dice key
 * through its nonce commitment, as that side's order files do, never
 * through its file hash: the dice log's "standing:" line holds the
 * commitment, and two campaigns whose Red standing orders differ only in
 * their hidden contents (same nonce) give Blue byte-identical reports and
 * the same public dice logs, while Red's own report shows its standing
 * move. The campaign audits clean at its end, from the database and from
 * its bundle (hexpost and contrib/hexpost-audit.py); a changed standing
 * file fails the audit. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "audit.h"
#include "fixtures.h"
#include "minisign.h"
#include "sealed.h"
#include "seedchain.h"
#include "turn.h"

static char dir[512], sk_path[600], pk_path[600];

/* Campaign f of test-fog in database path, both sides people (no keys),
 * signed with the server key sk. */
static struct store *
fog_campaign(const char *path, struct minisign_seckey *sk)
{
	struct hp_error err = { 0, "" };
	struct store *st = fx_store_new(path);

	assert_int_equal(turn_campaign_new(st, "f", "test-fog", NULL, NULL,
	    (const unsigned char *)"fog-standing", 12, &err), HP_OK);
	assert_int_equal(store_player_add(st, 1, 0, "Bea", "bea@example.org",
	    NULL, NULL, false, &err), HP_OK);
	assert_int_equal(store_player_add(st, 1, 1, "Rex", "rex@example.org",
	    NULL, NULL, false, &err), HP_OK);
	assert_int_equal(seedchain_sign(st, "f", sk, &err), HP_OK);
	assert_int_equal(sealed_sign(st, "f", sk, &err), HP_OK);
	return st;
}

/* Submit side's file for the open window (or window "standing") of f. */
static void
submit(struct store *st, int side, const char *window, const char *body)
{
	fx_submit(st, "f", side, window, body);
}

/* Play f to its end (two turns) with Red's standing orders standing. */
static void
play(struct store *st, struct minisign_seckey *sk, const char *standing)
{
	struct hp_error err = { 0, "" };
	int n = 0;

	submit(st, 0, NULL, "nonce: b-1\nmove B1\n");
	submit(st, 1, NULL, "nonce: r-1\n");
	submit(st, 1, "standing", standing);
	assert_int_equal(turn_resolve_signed(st, "f", NULL, sk, &n, &err),
	    HP_OK);
	/* Turn 2 opened with Red's standing orders in force. */
	submit(st, 0, NULL, "nonce: b-2\nmove B2\n");
	submit(st, 1, NULL, "nonce: r-2\n");
	assert_int_equal(turn_resolve_signed(st, "f", NULL, sk, &n, &err),
	    HP_OK);
}

/* Every dice log of the campaign of st (its database at path), in window
 * order, as one text (long logs are stored compressed); caller frees. */
static char *
logs_of(struct store *st, const char *path)
{
	struct hp_error err = { 0, "" };
	char *ids, *p, *end, *all, *text, *sig, *pub;
	size_t n = 0;

	ids = fx_db_text(path, "SELECT group_concat(window_id, ' ') FROM "
	    "(SELECT window_id FROM dice_logs ORDER BY window_id)");
	all = calloc(1, 1);
	assert_non_null(all);
	for (p = ids; p != NULL && *p != '\0'; p = end) {
		long long wid = strtoll(p, &end, 10);

		assert_int_equal(store_dicelog_get(st, (int64_t)wid, &text, &sig,
		    &pub, &err), HP_OK);
		all = realloc(all, n + strlen(text) + 1);
		assert_non_null(all);
		memcpy(all + n, text, strlen(text) + 1);
		n += strlen(text);
		free(text);
		free(sig);
		free(pub);
		while (*end == ' ')
			end++;
	}
	free(ids);
	return all;
}

/* Every report side got in the campaign of st (its database at path), in
 * window order, as one text (stored reports are compressed); caller frees. */
static char *
reports_of(struct store *st, const char *path, int side)
{
	struct hp_error err = { 0, "" };
	char sql[160], *ids, *p, *end, *all, *rep;
	size_t n = 0;

	snprintf(sql, sizeof sql, "SELECT group_concat(window_id, ' ') FROM "
	    "(SELECT window_id FROM reports WHERE side_idx = %d ORDER BY "
	    "window_id)", side);
	ids = fx_db_text(path, sql);
	all = calloc(1, 1);
	assert_non_null(all);
	for (p = ids; p != NULL && *p != '\0'; p = end) {
		long long wid = strtoll(p, &end, 10);

		rep = store_report_get(st, (int64_t)wid, side, &err);
		assert_non_null(rep);
		all = realloc(all, n + strlen(rep) + 1);
		assert_non_null(all);
		memcpy(all + n, rep, strlen(rep) + 1);
		n += strlen(rep);
		free(rep);
		while (*end == ' ')
			end++;
	}
	free(ids);
	return all;
}

static void
test_standing_nonce_commitment(void **state)
{
	struct minisign_seckey *sk = NULL;
	struct hp_error err = { 0, "" };
	struct audit_opts o = { .accept_test_dice = true };
	struct audit_stats s;
	struct store *a, *b;
	unsigned char nc[32], fh[32];
	char hex[65], line[128], pa[700], pb[700], bdir[700];
	char *la, *lb, *ra, *rb, *t;

	(void)state;
	fx_mkdtemp(dir, sizeof dir, "fogstanding");
	snprintf(sk_path, sizeof sk_path, "%s/server.key", dir);
	snprintf(pk_path, sizeof pk_path, "%s/server.pub", dir);
	snprintf(pa, sizeof pa, "%s/a.db", dir);
	snprintf(pb, sizeof pb, "%s/b.db", dir);
	assert_int_equal(minisign_keygen(sk_path, pk_path, NULL, &err), HP_OK);
	assert_int_equal(minisign_seckey_load(sk_path, &sk, &err), HP_OK);

	/* Two games that differ only in where Red's standing orders send its
	 * scout (hidden from Blue), with the same nonce. */
	a = fog_campaign(pa, sk);
	play(a, sk, "nonce: r-s\nsequence: 1\nmove C1\n");
	b = fog_campaign(pb, sk);
	play(b, sk, "nonce: r-s\nsequence: 1\nmove D2\n");

	/* The turn-2 log's standing line is the nonce commitment. */
	sealed_order_commitment("red", "r-s", nc);
	sodium_bin2hex(hex, sizeof hex, nc, 32);
	snprintf(line, sizeof line, "\nstanding: red %s\n", hex);
	la = logs_of(a, pa);
	lb = logs_of(b, pb);
	assert_non_null(strstr(la, line));
	/* ... not the file's hash. */
	t = fx_db_text(pa, "SELECT standing FROM sides WHERE idx = 1");
	window_order_hash(t, fh);
	free(t);
	sodium_bin2hex(hex, sizeof hex, fh, 32);
	assert_null(strstr(la, hex));
	/* The public dice logs, and every report Blue got, are the same. */
	assert_string_equal(la, lb);
	free(la);
	free(lb);
	ra = reports_of(a, pa, 0);
	rb = reports_of(b, pb, 0);
	assert_string_equal(ra, rb);
	free(ra);
	free(rb);
	/* Red's own report shows its standing move (it did something). */
	ra = reports_of(a, pa, 1);
	assert_non_null(strstr(ra, "Your scout moves to C1 by your standing "
	    "orders."));
	free(ra);
	rb = reports_of(b, pb, 1);
	assert_non_null(strstr(rb, "Your scout moves to D2 by your standing "
	    "orders."));
	free(rb);

	/* The ended campaign audits clean, from the database and from its
	 * bundle. */
	o.server_pub = pk_path;
	if (audit_campaign(a, "f", &o, &s, &err) != HP_OK)
		fail_msg("audit: %s", err.msg);
	snprintf(bdir, sizeof bdir, "%s/bundle", dir);
	assert_int_equal(audit_export(a, "f", bdir, NULL, &err), HP_OK);
	o.server_pub = NULL;
	if (audit_bundle(bdir, &o, &s, &err) != HP_OK)
		fail_msg("audit --bundle: %s", err.msg);
	/* So does the independent Python verifier, which reads the
	 * standing line as the nonce commitment too. */
	if (getenv("HEXPOST_SOURCE") != NULL && system("python3 -c '' "
	    ">/dev/null 2>&1") == 0) {
		char cmd[2048];

		snprintf(cmd, sizeof cmd, "python3 '%s/contrib/hexpost-audit.py' "
		    "--accept-test-dice '%s' >/dev/null", getenv("HEXPOST_SOURCE"),
		    bdir);
		assert_int_equal(system(cmd), 0);
	}
	/* A standing file changed in the record (its nonce kept, its hash
	 * recomputed, so the commitment, key and log still hold) fails the
	 * replay: Red's scout went elsewhere. */
	t = fx_db_text(pa, "SELECT raw FROM window_standing WHERE side_idx = 1");
	assert_non_null(strstr(t, "move C1"));
	memcpy(strstr(t, "move C1"), "move A2", 7);
	window_order_hash(t, fh);
	sodium_bin2hex(hex, sizeof hex, fh, 32);
	{
		char sql[512];

		snprintf(sql, sizeof sql, "UPDATE window_standing SET raw = "
		    "'%s', hash = X'%s' WHERE side_idx = 1", t, hex);
		fx_db_exec(pa, sql);
	}
	free(t);
	o.server_pub = pk_path;
	assert_int_equal(audit_campaign(a, "f", &o, &s, &err), HP_EINVAL);
	/* With the file's hash changed but not the record's, the hash
	 * check fails first. */
	fx_db_exec(pb, "UPDATE window_standing SET raw = replace(raw, "
	    "'move D2', 'move A2')");
	assert_int_equal(audit_campaign(b, "f", &o, &s, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "red's order file (standing"));
	minisign_seckey_free(sk);
	store_close(a);
	store_close(b);
	fx_rmtree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_standing_nonce_commitment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
