/* test_audit: audits of whole campaigns resolved through the library with
 * a server key: a clean campaign passes from the database and from its
 * exported bundle; an unsigned log, a changed die, a broken chain, a
 * changed opponent file and a bundle without its server key are caught.
 * Integration with the daemon's features: order files a deadline policy
 * wrote (deadline-ai regenerated, deadline-hold the fixed hold file, and a
 * forged one of each caught), a moderator's 'end' applied after the replay
 * (and its record checked), and the key history of a side whose player was
 * replaced by 'replace' (the old player's signed files still verify with
 * the key that player had; a changed history is caught). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "audit.h"
#include "config.h"
#include "deadline.h"
#include "dicelog.h"
#include "fixtures.h"
#include "minisign.h"
#include "moderator.h"
#include "seedchain.h"
#include "serverkey.h"
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
		assert_int_equal(seedchain_sign(st, "hill", sk, &err), HP_OK);
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

/* Bundles checked with the bundle's own server.pub; test dice accepted. */
static const struct audit_opts accept = { NULL, NULL, true, NULL, 0, NULL,
    false };

/* The audit fails naming msg. */
static void
audit_fails(struct store *st, const char *pub, const char *msg)
{
	/* Unsigned moderator actions accepted: the discrepancy sought is
	 * another. */
	struct audit_opts o = { pub, NULL, true, NULL, 0, NULL, true };
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
	struct audit_opts o = { pk_path, NULL, true, NULL, 0, NULL, false };
	struct audit_stats s, sb, sp;
	struct store_compact_stats cs;
	struct hp_error err = { 0, "" };
	char bdir[700], bdir2[700], cmd[1500];

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
	assert_int_equal(audit_bundle(bdir, &accept, &sb, &err), HP_OK);
	assert_int_equal(sb.windows, s.windows);
	assert_int_equal(sb.rolls, s.rolls);
	assert_int_equal(sb.reports, s.reports);
	/* Issue 17: once its windows are packed (store_compact a day
	 * later), the audit finds the same and the bundle is the same. */
	assert_int_equal(store_compact(st, (long)time(NULL) + 2 * 86400, 0,
	    &cs, &err), HP_OK);
	assert_int_equal(cs.windows_packed, s.windows);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM dice"), 0);
	assert_int_equal(audit_campaign(st, "hill", &o, &sp, &err), HP_OK);
	assert_int_equal(sp.windows, s.windows);
	assert_int_equal(sp.rolls, s.rolls);
	assert_int_equal(sp.reports, s.reports);
	assert_int_equal(sp.log_signatures, s.log_signatures);
	assert_int_equal(sp.opponent_orders, s.opponent_orders);
	snprintf(bdir2, sizeof bdir2, "%s/bundle2", dir);
	assert_int_equal(audit_export(st, "hill", bdir2, pk_path, &err), HP_OK);
	snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' >/dev/null", bdir, bdir2);
	assert_int_equal(system(cmd), 0);
	done(st);
}

static void
test_unsigned(void **state)
{
	struct store *st = campaign(false);

	(void)state;
	audit_fails(st, NULL, "the seed chain statement is not signed");
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

/* Campaign 'hill' with blue played by a person without a key (CLI) and
 * red by the built-in opponent, and a server key in *sk. */
static struct store *
human_campaign(struct minisign_seckey **sk)
{
	struct hp_error err = { 0, "" };
	struct store *st;

	fx_mkdtemp(dir, sizeof dir, "audit");
	snprintf(db, sizeof db, "%s/db", dir);
	snprintf(sk_path, sizeof sk_path, "%s/server.key", dir);
	snprintf(pk_path, sizeof pk_path, "%s/server.pub", dir);
	st = fx_store_new(db);
	/* A master seed: what the opponent writes depends on the dice. */
	assert_int_equal(turn_campaign_new(st, "hill", "fire-and-movement",
	    NULL, NULL, (const unsigned char *)"audit-human", 11, &err),
	    HP_OK);
	assert_int_equal(store_player_add(st, 1, 0, "Ann", "ann@example.org",
	    NULL, NULL, false, &err), HP_OK);
	assert_int_equal(minisign_keygen(sk_path, pk_path, NULL, &err), HP_OK);
	assert_int_equal(minisign_seckey_load(sk_path, sk, &err), HP_OK);
	assert_int_equal(seedchain_sign(st, "hill", *sk, &err), HP_OK);
	return st;
}

/* The open window of hill and the game; the sides it still waits for. */
static unsigned
pending(struct store *st, struct game *g, struct store_window *w)
{
	struct hp_error err = { 0, "" };
	unsigned missing;
	int64_t cid;

	game_init(g);
	assert_int_equal(store_game_load(st, "hill", g, &cid, &err), HP_OK);
	assert_int_equal(turn_pending(st, "hill", w, &missing, &err), HP_OK);
	return missing;
}

/* Fill the open window's missing sides by policy p, as at a deadline, and
 * resolve it with the server key. */
static void
fill_and_resolve(struct store *st, enum deadline_policy p,
    struct minisign_seckey *sk)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	struct game g;
	unsigned missing = pending(st, &g, &w);
	int n = 0;

	assert_true(missing != 0);
	assert_int_equal(store_begin(st, &err), HP_OK);
	assert_int_equal(deadline_fill(st, &g, &w, missing, p, NULL, &err),
	    HP_OK);
	assert_int_equal(store_commit(st, &err), HP_OK);
	game_free(&g);
	assert_int_equal(turn_resolve_signed(st, "hill", NULL, sk, &n, &err),
	    HP_OK);
	assert_true(n >= 1);
}

/* Submit text for blue with source, and resolve. */
static void
submit_and_resolve(struct store *st, const char *text, const char *source,
    struct minisign_seckey *sk)
{
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	int n = 0;

	turn_submit_init(&res);
	if (turn_submit(st, "hill", text, strlen(text), 0, 0, source, &res,
	    &err) != HP_OK)
		fail_msg("submit: %s %s", err.msg, res.errs.n ?
		    res.errs.v[0].msg : "");
	turn_submit_free(&res);
	assert_int_equal(turn_resolve_signed(st, "hill", NULL, sk, &n, &err),
	    HP_OK);
	assert_true(n >= 1);
}

static void
test_deadline_files(void **state)
{
	struct minisign_seckey *sk = NULL;
	struct store *st = human_campaign(&sk);
	struct audit_opts o = { pk_path, NULL, true, NULL, 0, NULL, false };
	struct audit_stats s, sb;
	struct hp_error err = { 0, "" };
	struct store_window w;
	struct game g;
	char bdir[700], *hold, *stored;

	(void)state;
	/* Turn 1 deploys: hold is no order there, so ai plays it. */
	fill_and_resolve(st, DEADLINE_HOLD, sk);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM orders WHERE "
	    "source = 'deadline-ai'"), 1);
	assert_true(pending(st, &g, &w) == 1);
	hold = window_hold_orders(&g, &w.spec, 0);
	assert_non_null(hold);
	game_free(&g);
	fill_and_resolve(st, DEADLINE_HOLD, sk);
	stored = fx_db_rows(db, "SELECT raw FROM orders WHERE source = "
	    "'deadline-hold'");
	stored[strlen(stored) - 1] = '\0';	/* fx_db_rows ends each row */
	assert_string_equal(stored, hold);
	free(stored);
	free(hold);
	fill_and_resolve(st, DEADLINE_AI, sk);
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_int_equal(s.deadline_orders, 3);
	assert_int_equal(s.unsigned_orders, 0);
	assert_true(s.test_dice);
	snprintf(bdir, sizeof bdir, "%s/bundle", dir);
	assert_int_equal(audit_export(st, "hill", bdir, pk_path, &err), HP_OK);
	assert_int_equal(audit_bundle(bdir, &accept, &sb, &err), HP_OK);
	assert_int_equal(sb.deadline_orders, 3);
	assert_true(sb.test_dice);
	/* A --seed campaign fails every audit unless test dice are
	 * accepted (docs/AUDIT.md, "Threat model"). */
	o.accept_test_dice = false;
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "is a TEST campaign"));
	assert_int_equal(audit_bundle(bdir, NULL, &sb, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "is a TEST campaign"));
	minisign_seckey_free(sk);
	done(st);
}

/* The seed chain: every revealed seed links back to the signed head; a
 * chain the server replaced after the fact (re-signed with its own key),
 * or none, fails (docs/AUDIT.md, "Seed chain"). */
static void
test_seed_chain(void **state)
{
	struct store *st = campaign(true);
	struct audit_opts o = { pk_path, NULL, false, NULL, 0, NULL, false };
	struct audit_stats s;
	struct hp_error err = { 0, "" };
	struct minisign_seckey *sk = NULL;
	struct seedchain c;
	struct sbuf text;
	unsigned char tail[32];

	(void)state;
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_int_equal(s.chain_links, s.windows);
	assert_false(s.test_dice);
	/* The opponent against itself: no window has player input. */
	assert_int_equal(s.no_input_windows, s.windows);
	/* A new chain, signed by the server's own key. */
	memset(&c, 0, sizeof c);
	strlcpy_(c.campaign, "hill", sizeof c.campaign);
	/* Longer than any game of hill (a chain of 16 was not: the random
	 * dice once played 17 windows, and the audit stopped at the length). */
	c.length = 1024;
	randombytes_buf(tail, sizeof tail);
	seedchain_seed(tail, c.length, 0, c.head);
	sbuf_init(&text);
	seedchain_format(&c, &text);
	assert_int_equal(store_begin(st, &err), HP_OK);
	assert_int_equal(store_chain_put(st, 1, tail, c.length, text.buf, &err),
	    HP_OK);
	assert_int_equal(store_commit(st, &err), HP_OK);
	sbuf_free(&text);
	assert_int_equal(minisign_seckey_load(sk_path, &sk, &err), HP_OK);
	assert_int_equal(seedchain_sign(st, "hill", sk, &err), HP_OK);
	minisign_seckey_free(sk);
	audit_fails(st, pk_path, "the revealed seed is not seed 1 of the "
	    "signed seed chain");
	fx_db_exec(db, "UPDATE campaigns SET chain_statement = NULL");
	audit_fails(st, pk_path, "has no seed chain statement");
	done(st);
}

/* A file marked deadline-ai that the opponent would not write, and one
 * marked deadline-hold that is not the hold file, are caught (the log is
 * signed and consistent: only the replay can tell). */
static void
test_deadline_forged(void **state)
{
	struct minisign_seckey *sk = NULL;
	struct store *st = human_campaign(&sk);
	struct store_window w;
	struct game g;
	struct sbuf b;
	char *opp, *hold;

	(void)state;
	assert_true(pending(st, &g, &w) == 1);
	opp = window_opponent_orders(&g, &w.spec, 0);
	sbuf_init(&b);
	window_order_header(&g, &w.spec, 0, &b);
	sbuf_puts(&b, "deploy 1 A0\ndeploy 2 B0\ndeploy 3 C0\n");
	if (strcmp(b.buf, opp) == 0) {
		sbuf_free(&b);
		window_order_header(&g, &w.spec, 0, &b);
		sbuf_puts(&b, "deploy 1 C0\ndeploy 2 B0\ndeploy 3 A0\n");
	}
	assert_string_not_equal(b.buf, opp);
	free(opp);
	game_free(&g);
	submit_and_resolve(st, b.buf, "deadline-ai", sk);
	sbuf_free(&b);
	audit_fails(st, pk_path, "marked as the built-in opponent's "
	    "(deadline-ai), but the opponent writes different orders");
	minisign_seckey_free(sk);
	done(st);

	st = human_campaign(&sk);
	fill_and_resolve(st, DEADLINE_AI, sk);
	assert_true(pending(st, &g, &w) == 1);
	opp = window_opponent_orders(&g, &w.spec, 0);
	hold = window_hold_orders(&g, &w.spec, 0);
	assert_non_null(hold);
	game_free(&g);
	if (strcmp(opp, hold) == 0) {	/* the opponent holds: other bytes */
		sbuf_init(&b);
		sbuf_printf(&b, "%s# not the hold file\n", opp);
		free(opp);
		opp = sbuf_steal(&b);
	}
	free(hold);
	submit_and_resolve(st, opp, "deadline-hold", sk);
	free(opp);
	audit_fails(st, pk_path, "not the hold file that policy writes");
	minisign_seckey_free(sk);
	done(st);
}

/* Carry out a moderator command from the command line. */
static int
moderate(struct store *st, struct mod_command *cmd, struct hp_error *err)
{
	struct sbuf reply;
	int rc;

	sbuf_init(&reply);
	strlcpy_(cmd->campaign, "hill", sizeof cmd->campaign);
	assert_int_equal(store_begin(st, err), HP_OK);
	if ((rc = moderator_exec(st, NULL, cmd, NULL, 1800000000L, &reply,
	    err)) == HP_OK)
		assert_int_equal(store_commit(st, err), HP_OK);
	else
		store_rollback(st);
	sbuf_free(&reply);
	return rc;
}

static void
test_moderator_end(void **state)
{
	struct minisign_seckey *sk = NULL;
	struct store *st = human_campaign(&sk);
	struct audit_opts o = { pk_path, NULL, true, NULL, 0, NULL, true };
	struct audit_opts strict = { pk_path, NULL, true, NULL, 0, NULL,
	    false };
	struct audit_opts bo = { NULL, NULL, true, NULL, 0, NULL, true };
	struct audit_stats s, sb;
	struct hp_error err = { 0, "" };
	struct mod_command cmd;
	char bdir[700], *camp;

	(void)state;
	fill_and_resolve(st, DEADLINE_AI, sk);
	memset(&cmd, 0, sizeof cmd);
	strlcpy_(cmd.verb, "pause", sizeof cmd.verb);
	assert_int_equal(moderate(st, &cmd, &err), HP_OK);
	strlcpy_(cmd.verb, "resume", sizeof cmd.verb);
	assert_int_equal(moderate(st, &cmd, &err), HP_OK);
	strlcpy_(cmd.verb, "extend", sizeof cmd.verb);
	strlcpy_(cmd.arg, "5", sizeof cmd.arg);
	assert_int_equal(moderate(st, &cmd, &err), HP_OK);
	/* No moderator key: the extension is an unsigned action. */
	assert_int_equal(audit_campaign(st, "hill", &strict, &s, &err),
	    HP_EINVAL);
	assert_non_null(strstr(err.msg, "unsigned moderator action: extend 5 "
	    "in window "));
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_int_equal(s.mod_unsigned, 1);
	assert_false(s.moderator_end);
	strlcpy_(cmd.verb, "end", sizeof cmd.verb);
	strlcpy_(cmd.arg, "agreed draw", sizeof cmd.arg);
	assert_int_equal(moderate(st, &cmd, &err), HP_OK);
	/* A second end is refused, and not recorded. */
	assert_int_equal(moderate(st, &cmd, &err), HP_ESTATE);
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_true(s.moderator_end);
	assert_int_equal(s.windows, fx_db_long(db, "SELECT count(*) FROM "
	    "windows WHERE state = 'resolved'"));
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM windows WHERE "
	    "state = 'open'"), 1);
	snprintf(bdir, sizeof bdir, "%s/bundle", dir);
	assert_int_equal(audit_export(st, "hill", bdir, pk_path, &err), HP_OK);
	assert_int_equal(audit_bundle(bdir, &accept, &sb, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "unsigned moderator action: extend 5 "
	    "in window "));
	assert_int_equal(audit_bundle(bdir, &bo, &sb, &err), HP_OK);
	assert_int_equal(sb.mod_unsigned, 2);
	assert_true(sb.moderator_end);
	snprintf(bdir, sizeof bdir, "%s/bundle/campaign.txt", dir);
	camp = util_read_file(bdir, NULL, &err);
	assert_non_null(strstr(camp, "\nend: agreed draw\n"));
	free(camp);
	fx_db_exec(db, "UPDATE commands SET command = 'end' WHERE command "
	    "LIKE 'end %'");
	audit_fails(st, pk_path, "moderator statement 2 ends the game "
	    "('agreed draw')");
	/* ... and with its statement made to match: */
	fx_db_exec(db, "UPDATE moderator_statements SET statement = "
	    "replace(statement, 'action: end agreed draw', 'action: end') "
	    "WHERE seq = 2");
	audit_fails(st, pk_path, "the stored state of hill differs");
	fx_db_exec(db, "DELETE FROM commands WHERE command = 'end'");
	audit_fails(st, pk_path, "but the end on record is none");
	fx_db_exec(db, "DELETE FROM moderator_statements WHERE seq = 2");
	audit_fails(st, pk_path, "no moderator's 'end' is on record");
	minisign_seckey_free(sk);
	done(st);
}

/* A player key pair in dir: NAME.key, NAME.pub; the .pub text in pub
 * (caller frees), its base64 line in line, its key id in id. */
static struct minisign_seckey *
player_key(const char *name, char **pub, char *line, size_t linelen,
    char *id)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *k = NULL;
	struct minisign_pubkey pk;
	char s[700], p[700], *nl;

	snprintf(s, sizeof s, "%s/%s.key", dir, name);
	snprintf(p, sizeof p, "%s/%s.pub", dir, name);
	assert_int_equal(minisign_keygen(s, p, NULL, &err), HP_OK);
	assert_int_equal(minisign_seckey_load(s, &k, &err), HP_OK);
	*pub = util_read_file(p, NULL, &err);
	assert_non_null(*pub);
	assert_int_equal(minisign_pubkey_parse(*pub, strlen(*pub), &pk, &err),
	    HP_OK);
	minisign_keyid_hex(pk.keyid, id);
	nl = strchr(*pub, '\n');
	strlcpy_(line, nl + 1, linelen);
	line[strcspn(line, "\n")] = '\0';
	return k;
}

/* Every side the open window waits for sends the opponent's orders,
 * signed with key[side] by player pid[side], as intake takes mail. */
static void
signed_window(struct store *st, struct minisign_seckey *key[2],
    const char *pub[2], const char *id[2], const int64_t pid[2],
    struct minisign_seckey *server)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	struct turn_submit res;
	struct game g;
	unsigned char h[32];
	unsigned missing = pending(st, &g, &w);
	char *text, *sig;
	int side, n = 0;

	assert_true(missing != 0);
	for (side = 0; side < 2; side++) {
		if (!(missing & (1u << side)))
			continue;
		text = window_opponent_orders(&g, &w.spec, side);
		assert_int_equal(minisign_sign_text(key[side],
		    (const unsigned char *)text, strlen(text), "test", &sig,
		    &err), HP_OK);
		assert_int_equal(store_begin(st, &err), HP_OK);
		turn_submit_init(&res);
		assert_int_equal(turn_submit_tx(st, "hill", text, strlen(text),
		    side, pid[side], "mail", &res, &err), HP_OK);
		turn_submit_free(&res);
		window_order_hash(text, h);
		assert_int_equal(store_ordersig_put(st, h, sig, strlen(sig),
		    pub[side], id[side], pid[side], &err), HP_OK);
		assert_int_equal(store_commit(st, &err), HP_OK);
		free(sig);
		free(text);
	}
	game_free(&g);
	assert_int_equal(turn_resolve_signed(st, "hill", NULL, server, &n,
	    &err), HP_OK);
}

static void
test_key_history(void **state)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *server = NULL, *key[2], *dee;
	struct audit_opts o = { pk_path, NULL, true, NULL, 0, NULL, true };
	struct audit_opts strict = { pk_path, NULL, true, NULL, 0, NULL,
	    false };
	struct audit_opts bo = { NULL, NULL, true, NULL, 0, NULL, true };
	struct audit_stats s, sb;
	struct mod_command cmd;
	struct store *st;
	char *pub[2], *deepub, line[3][128], id[3][17], bdir[700], *players;
	const char *cpub[2], *cid[2];
	int64_t pid[2];
	int i;

	(void)state;
	fx_mkdtemp(dir, sizeof dir, "audit");
	snprintf(db, sizeof db, "%s/db", dir);
	snprintf(sk_path, sizeof sk_path, "%s/server.key", dir);
	snprintf(pk_path, sizeof pk_path, "%s/server.pub", dir);
	st = fx_store_new(db);
	/* A master seed: which windows Red must answer depends on the dice. */
	assert_int_equal(turn_campaign_new(st, "hill", "fire-and-movement",
	    NULL, NULL, (const unsigned char *)"key-history", 11, &err),
	    HP_OK);
	assert_int_equal(minisign_keygen(sk_path, pk_path, NULL, &err), HP_OK);
	assert_int_equal(minisign_seckey_load(sk_path, &server, &err), HP_OK);
	assert_int_equal(seedchain_sign(st, "hill", server, &err), HP_OK);
	key[0] = player_key("ann", &pub[0], line[0], sizeof line[0], id[0]);
	key[1] = player_key("bob", &pub[1], line[1], sizeof line[1], id[1]);
	dee = player_key("dee", &deepub, line[2], sizeof line[2], id[2]);
	assert_int_equal(store_player_add(st, 1, 0, "Ann", "ann@example.org",
	    pub[0], id[0], false, &err), HP_OK);
	assert_int_equal(store_player_add(st, 1, 1, "Bob", "bob@example.org",
	    pub[1], id[1], false, &err), HP_OK);
	pid[0] = 1;
	pid[1] = 2;
	for (i = 0; i < 2; i++) {
		cpub[i] = pub[i];
		cid[i] = id[i];
	}
	/* Ann and Bob play until Bob has signed a file; then Dee replaces
	 * him. */
	for (i = 0; i < 8 && fx_db_long(db, "SELECT count(*) FROM orders "
	    "WHERE player_id = 2") == 0; i++)
		signed_window(st, key, cpub, cid, pid, server);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM orders WHERE "
	    "player_id = 2 AND current = 1"), 1);
	memset(&cmd, 0, sizeof cmd);
	strlcpy_(cmd.verb, "replace", sizeof cmd.verb);
	strlcpy_(cmd.arg, "red", sizeof cmd.arg);
	strlcpy_(cmd.email, "dee@example.org", sizeof cmd.email);
	strlcpy_(cmd.name, "Dee", sizeof cmd.name);
	strlcpy_(cmd.key, line[2], sizeof cmd.key);
	assert_int_equal(moderate(st, &cmd, &err), HP_OK);
	pid[1] = fx_db_long(db, "SELECT id FROM players WHERE name = 'Dee'");
	key[1] = dee;
	cpub[1] = (const char *)fx_db_rows(db, "SELECT pubkey FROM players "
	    "WHERE name = 'Dee'");
	((char *)cpub[1])[strlen(cpub[1]) - 1] = '\0';
	cid[1] = id[2];
	for (i = 0; i < 3; i++)
		signed_window(st, key, cpub, cid, pid, server);
	assert_true(fx_db_long(db, "SELECT count(*) FROM orders WHERE "
	    "player_id = (SELECT id FROM players WHERE name = 'Dee')") >= 1);
	/* No moderator key: the replace is an unsigned moderator action,
	 * which fails the audit unless accepted. */
	assert_int_equal(audit_campaign(st, "hill", &strict, &s, &err),
	    HP_EINVAL);
	assert_non_null(strstr(err.msg, "unsigned moderator action: replace "
	    "of red in window "));
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_int_equal(s.replaced_signed, 1);
	assert_int_equal(s.mod_unsigned, 1);
	assert_true(s.signed_orders >= 4);
	snprintf(bdir, sizeof bdir, "%s/bundle", dir);
	assert_int_equal(audit_export(st, "hill", bdir, pk_path, &err), HP_OK);
	assert_int_equal(audit_bundle(bdir, &accept, &sb, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "unsigned moderator action: replace "
	    "of red in window "));
	assert_int_equal(audit_bundle(bdir, &bo, &sb, &err), HP_OK);
	assert_int_equal(sb.signed_orders, s.signed_orders);
	assert_int_equal(sb.mod_unsigned, 1);
	snprintf(bdir, sizeof bdir, "%s/bundle/players.txt", dir);
	players = util_read_file(bdir, NULL, &err);
	assert_non_null(players);
	snprintf(line[0], sizeof line[0], "player: red %s Bob (replaced, 2)\n",
	    id[1]);
	assert_non_null(strstr(players, line[0]));
	snprintf(line[0], sizeof line[0], "player: red %s Dee\n", id[2]);
	assert_non_null(strstr(players, line[0]));
	free(players);
	/* The history rewritten: Bob's row now holds Dee's key. */
	fx_db_exec(db, "UPDATE players SET pubkey = (SELECT pubkey FROM "
	    "players WHERE name = 'Dee') WHERE id = 2");
	audit_fails(st, pk_path, "not the key registered for that player");
	free((char *)cpub[1]);
	for (i = 0; i < 2; i++)
		free(pub[i]);
	free(deepub);
	minisign_seckey_free(key[0]);
	minisign_seckey_free(dee);
	minisign_seckey_free(server);
	done(st);
}


/* The last dice log of hill re-signed with key k, as the server would
 * (same trusted comment). */
static void
resign_last_log(struct minisign_seckey *k)
{
	struct hp_error err = { 0, "" };
	struct dicelog l;
	struct sbuf sql;
	char tc[256], *text, *sig, *p, *osig, *opub;
	struct store *ls = NULL;

	/* Read through the store: long logs are stored compressed. */
	assert_int_equal(store_open(&ls, db, false, &err), HP_OK);
	assert_int_equal(store_dicelog_get(ls, fx_db_long(db, "SELECT "
	    "max(window_id) FROM dice_logs"), &text, &osig, &opub, &err),
	    HP_OK);
	free(osig);
	free(opub);
	store_close(ls);
	dicelog_init(&l);
	assert_int_equal(dicelog_parse(text, &l, &err), HP_OK);
	dicelog_trusted_comment(&l, tc, sizeof tc);
	dicelog_free(&l);
	assert_int_equal(minisign_sign_text(k, (const unsigned char *)text,
	    strlen(text), tc, &sig, &err), HP_OK);
	sbuf_init(&sql);
	sbuf_puts(&sql, "UPDATE dice_logs SET signature = '");
	for (p = sig; *p != '\0'; p++) {
		if (*p == '\'')
			sbuf_add(&sql, "'", 1);
		sbuf_add(&sql, p, 1);
	}
	sbuf_puts(&sql, "' WHERE window_id = (SELECT max(window_id) FROM "
	    "dice_logs)");
	fx_db_exec(db, sql.buf);
	sbuf_free(&sql);
	free(sig);
	free(text);
}

/* Run SQL on hill's database, expect the audit trusting pub to fail with
 * msg, and put the database back. */
static void
rot_tamper(struct store *st, const char *pub, const char *sql,
    const char *msg)
{
	fx_db_exec(db, "DROP TABLE IF EXISTS bak_rot; DROP TABLE IF EXISTS "
	    "bak_log; CREATE TABLE bak_rot AS SELECT * FROM key_rotations; "
	    "CREATE TABLE bak_log AS SELECT * FROM dice_logs");
	fx_db_exec(db, sql);
	audit_fails(st, pub, msg);
	fx_db_exec(db, "DELETE FROM key_rotations; INSERT INTO key_rotations "
	    "SELECT * FROM bak_rot; DELETE FROM dice_logs; INSERT INTO "
	    "dice_logs SELECT * FROM bak_log");
}

/* A bundle copy with cmd run in it fails the audit trusting pub (NULL:
 * the bundle's server.pub) with msg. */
static void
bundle_fails(const char *bdir, const char *cmd, const char *pub,
    const char *msg)
{
	struct audit_opts o = { pub, NULL, true, NULL, 0, NULL, false };
	struct audit_stats s;
	struct hp_error err = { 0, "" };
	char copy[800], sh[8192];

	snprintf(copy, sizeof copy, "%s/bcopy", dir);
	snprintf(sh, sizeof sh, "rm -rf '%s' && cp -r '%s' '%s' && cd '%s' && "
	    "%s", copy, bdir, copy, copy, cmd);
	assert_int_equal(system(sh), 0);
	assert_int_equal(audit_bundle(copy, &o, &s, &err), HP_EINVAL);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("bundle: '%s' not in '%s'", msg, err.msg);
}

/* A campaign resolved across two rotations of the server key (A -> B ->
 * C) audits clean from the database and from its bundle, trusting the
 * original key, the current one or the one between; a forged statement,
 * a log signed by an unrelated key or by a key already replaced, and a
 * dropped statement are caught. */
static void
test_key_rotation(void **state)
{
	struct minisign_seckey *sk = NULL, *orig = NULL, *z = NULL;
	struct serverkey_rotation r;
	struct serverkey_statement stm;
	struct audit_opts o = { NULL, NULL, true, NULL, 0, NULL,
	    false };
	struct audit_stats s, sb;
	struct hp_error err = { 0, "" };
	struct store *st = human_campaign(&sk);
	struct config cfg;
	struct stat sb1;
	struct sbuf text, sql;
	char origpub[700], midpub[700], bdir[700], zk[700], zp[700], path[800];
	char tc[256], *t, *zsig, *zpub;
	int i;

	(void)state;
	config_defaults(&cfg, dir);
	assert_string_equal(cfg.server_key, sk_path);
	snprintf(origpub, sizeof origpub, "%s/original.pub", dir);
	t = util_read_file(pk_path, NULL, &err);
	assert_non_null(t);
	assert_int_equal(util_write_file_atomic(origpub, t, strlen(t), 0644,
	    &err), HP_OK);
	free(t);
	orig = sk;
	fill_and_resolve(st, DEADLINE_AI, sk);
	fill_and_resolve(st, DEADLINE_AI, sk);

	/* A -> B: the old pair kept (the secret key mode 0600), a notice to
	 * Ann with the new key and the signed statement. */
	assert_int_equal(serverkey_rotate(st, &cfg, 1800000000L, &r, &err),
	    HP_OK);
	assert_int_equal(r.seq, 1);
	assert_false(r.resumed);
	assert_int_equal(r.notices, 1);
	assert_int_equal(stat(r.backup_key, &sb1), 0);
	assert_int_equal(sb1.st_mode & 0777, 0600);
	snprintf(path, sizeof path, "%s/server.pub.1", dir);
	assert_string_equal(r.backup_pub, path);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM outbox WHERE "
	    "kind = 'notice' AND rcpt = 'ann@example.org' AND instr(CAST(data "
	    "AS TEXT), 'hexpost key rotation v1') > 0 AND instr(CAST(data AS "
	    "TEXT), 'rotation.txt.new.minisig') > 0"), 1);
	t = fx_db_rows(db, "SELECT statement FROM key_rotations WHERE seq = 1");
	assert_non_null(strstr(t, "old-key-id: "));
	assert_non_null(strstr(t, "time: 2027-01-15T08:00:00Z\nend\n"));
	free(t);
	/* The daemon would now load the new key (SIGHUP). */
	assert_int_equal(serverkey_load(sk_path, &sk, &err), HP_OK);
	fill_and_resolve(st, DEADLINE_AI, sk);
	fill_and_resolve(st, DEADLINE_AI, sk);
	minisign_seckey_free(sk);
	snprintf(midpub, sizeof midpub, "%s/server.pub.2", dir);

	/* B -> C, and one more window. */
	assert_int_equal(serverkey_rotate(st, &cfg, 1800003600L, &r, &err),
	    HP_OK);
	assert_int_equal(r.seq, 2);
	assert_int_equal(serverkey_load(sk_path, &sk, &err), HP_OK);
	fill_and_resolve(st, DEADLINE_AI, sk);
	assert_int_equal(fx_db_long(db, "SELECT count(DISTINCT pubkey) FROM "
	    "dice_logs"), 3);

	/* Trusting the original key, the current one, the one between. */
	o.server_pub = origpub;
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_int_equal(s.rotations_followed, 2);
	assert_int_equal(s.server_keys, 3);
	assert_int_equal(s.log_signatures, s.windows);
	o.server_pub = pk_path;
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	assert_int_equal(s.server_keys, 3);
	o.server_pub = midpub;
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);
	snprintf(bdir, sizeof bdir, "%s/bundle", dir);
	assert_int_equal(audit_export(st, "hill", bdir, pk_path, &err), HP_OK);
	assert_int_equal(audit_bundle(bdir, &accept, &sb, &err), HP_OK);
	assert_int_equal(sb.rotations_followed, 2);
	assert_int_equal(sb.windows, s.windows);
	o.server_pub = origpub;
	assert_int_equal(audit_bundle(bdir, &o, &sb, &err), HP_OK);
	for (i = 1; i <= 2; i++) {
		snprintf(path, sizeof path, "%s/rotations/%04d.txt.new.minisig",
		    bdir, i);
		assert_int_equal(access(path, F_OK), 0);
	}
	snprintf(path, sizeof path, "test $(ls '%s/server-keys' | wc -l) = 3",
	    bdir);
	assert_int_equal(system(path), 0);

	/* An unrelated key Z. */
	snprintf(zk, sizeof zk, "%s/z.key", dir);
	snprintf(zp, sizeof zp, "%s/z.pub", dir);
	assert_int_equal(minisign_keygen(zk, zp, NULL, &err), HP_OK);
	assert_int_equal(minisign_seckey_load(zk, &z, &err), HP_OK);
	zpub = util_read_file(zp, NULL, &err);
	assert_non_null(zpub);

	/* A log signed by Z, no statement: caught whichever key is trusted. */
	fx_db_exec(db, "CREATE TABLE bak_log0 AS SELECT * FROM dice_logs");
	resign_last_log(z);
	audit_fails(st, origpub, "which is not the trusted key");
	audit_fails(st, pk_path, "which no key rotation statement links to it");
	/* A forged statement C -> Z signed by Z only (as old and new key). */
	memset(&stm, 0, sizeof stm);
	stm.seq = 3;
	t = util_read_file(pk_path, NULL, &err);
	assert_int_equal(minisign_pubkey_parse(t, strlen(t), &stm.old_key,
	    &err), HP_OK);
	free(t);
	stm.old_key.comment[0] = '\0';
	minisign_seckey_pubkey(z, &stm.new_key);
	stm.time = 1800007200L;
	sbuf_init(&text);
	serverkey_statement_format(&stm, &text);
	serverkey_statement_comment(&stm, false, tc, sizeof tc);
	assert_int_equal(minisign_sign_text(z, (const unsigned char *)text.buf,
	    text.len, tc, &zsig, &err), HP_OK);
	sbuf_init(&sql);
	sbuf_printf(&sql, "INSERT INTO key_rotations VALUES (3, '%s', '%s', "
	    "'%s', 'x', 'y', 'x', 'y', 0)", text.buf, zsig, zsig);
	rot_tamper(st, origpub, sql.buf, "key rotation statement 3: rotation "
	    "statement 3 is not signed by the old key");
	sbuf_free(&sql);
	sbuf_free(&text);
	free(zsig);
	fx_db_exec(db, "DELETE FROM dice_logs; INSERT INTO dice_logs SELECT * "
	    "FROM bak_log0");
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);

	/* Statement 2 signed by its new key in place of its old: forged. */
	rot_tamper(st, origpub, "UPDATE key_rotations SET signature = "
	    "countersignature WHERE seq = 2", "key rotation statement 2: "
	    "rotation statement 2 is not signed by the old key");
	/* Dropped statements. */
	rot_tamper(st, origpub, "DELETE FROM key_rotations WHERE seq = 1",
	    "key rotation statement 1 is missing");
	rot_tamper(st, origpub, "DELETE FROM key_rotations WHERE seq = 2",
	    "which no key rotation statement links to it");
	rot_tamper(st, pk_path, "DELETE FROM key_rotations WHERE seq = 1",
	    "key rotation statement 1 is missing");
	/* The replaced key A signs a window after B did. */
	fx_db_exec(db, "CREATE TABLE bak_log1 AS SELECT * FROM dice_logs");
	resign_last_log(orig);
	audit_fails(st, origpub, "which key rotation statement 1 had replaced");
	fx_db_exec(db, "DELETE FROM dice_logs; INSERT INTO dice_logs SELECT * "
	    "FROM bak_log1");
	assert_int_equal(audit_campaign(st, "hill", &o, &s, &err), HP_OK);

	/* The same in the bundle. */
	bundle_fails(bdir, "rm rotations/0001.txt*", origpub,
	    "key rotation statement 1 is missing");
	bundle_fails(bdir, "rm rotations/0002.txt*", origpub,
	    "which no key rotation statement links to it");
	bundle_fails(bdir, "cp rotations/0001.txt.new.minisig "
	    "rotations/0001.txt.minisig", NULL, "key rotation statement 1: "
	    "rotation statement 1 is not signed by the old key");
	bundle_fails(bdir, "sed -i 's/^time: 2027/time: 2028/' "
	    "rotations/0002.txt", NULL, "rotation statement 2 is not signed "
	    "by the old key");
	snprintf(path, sizeof path, "cp '%s' server.pub", zp);
	bundle_fails(bdir, path, NULL, "which is not the trusted key");

	/* A rotation refuses to start from a key changed by hand. */
	minisign_seckey_free(sk);
	assert_int_equal(rename(zk, sk_path), 0);
	assert_int_equal(rename(zp, pk_path), 0);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800010800L, &r, &err),
	    HP_ESTATE);
	assert_non_null(strstr(err.msg, "changed without 'hexpost key "
	    "rotate'"));
	free(zpub);
	minisign_seckey_free(z);
	minisign_seckey_free(orig);
	done(st);
}

/* A rotation interrupted after its transaction is finished by the next
 * 'key rotate'; new key files never recorded (stopped before the
 * transaction) are removed and a fresh rotation made. */
static void
test_key_rotation_resume(void **state)
{
	struct minisign_seckey *sk = NULL;
	struct serverkey_rotation r, r2;
	struct hp_error err = { 0, "" };
	struct store *st = human_campaign(&sk);
	struct config cfg;
	char nk[700], np[700], bk[700], bp[700], *a, *b;

	(void)state;
	config_defaults(&cfg, dir);
	snprintf(nk, sizeof nk, "%s.new", sk_path);
	snprintf(np, sizeof np, "%s.new", pk_path);
	snprintf(bk, sizeof bk, "%s.1", sk_path);
	snprintf(bp, sizeof bp, "%s.1", pk_path);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800000000L, &r, &err),
	    HP_OK);
	/* Back to the moment after COMMIT, before the files moved. */
	assert_int_equal(rename(sk_path, nk), 0);
	assert_int_equal(rename(bk, sk_path), 0);
	assert_int_equal(rename(pk_path, np), 0);
	assert_int_equal(rename(bp, pk_path), 0);
	a = util_read_file(pk_path, NULL, &err);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800000000L, &r2, &err),
	    HP_OK);
	assert_true(r2.resumed);
	assert_int_equal(r2.seq, 1);
	assert_string_equal(r2.new_id, r.new_id);
	assert_int_equal(access(nk, F_OK), -1);
	b = util_read_file(bp, NULL, &err);
	assert_string_equal(a, b);	/* the old key kept */
	free(a);
	free(b);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM key_rotations"),
	    1);
	assert_int_equal(fx_db_long(db, "SELECT count(*) FROM outbox WHERE "
	    "kind = 'notice'"), 1);
	/* Half done: the key moved, the public key not yet. */
	assert_int_equal(rename(pk_path, np), 0);
	assert_int_equal(rename(bp, pk_path), 0);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800000000L, &r2, &err),
	    HP_OK);
	assert_true(r2.resumed);
	a = util_read_file(bp, NULL, &err);
	assert_non_null(a);
	free(a);
	/* Never recorded: removed, and rotation 2 made. */
	assert_int_equal(minisign_keygen(nk, np, NULL, &err), HP_OK);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800003600L, &r2, &err),
	    HP_OK);
	assert_false(r2.resumed);
	assert_int_equal(r2.seq, 2);
	assert_string_equal(r2.old_id, r.new_id);
	assert_int_equal(access(nk, F_OK), -1);
	/* A backup in the way is never overwritten. */
	snprintf(bk, sizeof bk, "%s.3", sk_path);
	assert_int_equal(util_write_file_atomic(bk, "x", 1, 0600, &err), HP_OK);
	assert_int_equal(serverkey_rotate(st, &cfg, 1800007200L, &r2, &err),
	    HP_ESTATE);
	assert_non_null(strstr(err.msg, "not overwriting a key"));
	assert_int_equal(access(nk, F_OK), -1);
	minisign_seckey_free(sk);
	done(st);
}

/* A server that passes off blue's file of an earlier window as blue's file
 * of a later one (hash re-recorded, so only the header gives it away) is
 * caught by the header check. */
static void
test_replayed_order_file(void **state)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *sk = NULL;
	struct store *st = human_campaign(&sk);
	struct store_window w;
	struct game g;
	unsigned char h[32];
	char *first = NULL, hex[65], *rawhex, *sql;
	int64_t later = 0;
	int i, n;

	(void)state;
	for (i = 0; i < 40 && later == 0; i++) {
		unsigned missing = pending(st, &g, &w);

		if (missing & 1u) {
			char *text = window_opponent_orders(&g, &w.spec, 0);

			if (first == NULL)
				first = xstrdup(text);
			else
				later = w.id;
			game_free(&g);
			submit_and_resolve(st, text, "cli", sk);
			free(text);
			continue;
		}
		game_free(&g);
		n = 0;
		assert_int_equal(turn_resolve_signed(st, "hill", NULL, sk, &n,
		    &err), HP_OK);
	}
	assert_non_null(first);
	assert_true(later != 0);
	window_order_hash(first, h);
	sodium_bin2hex(hex, sizeof hex, h, 32);
	rawhex = xmalloc(2 * strlen(first) + 1);
	sodium_bin2hex(rawhex, 2 * strlen(first) + 1,
	    (const unsigned char *)first, strlen(first));
	sql = xmalloc(strlen(rawhex) + 256);
	sprintf(sql, "UPDATE orders SET raw = CAST(X'%s' AS TEXT), hash = "
	    "X'%s' WHERE window_id = %lld AND side_idx = 0 AND current = 1",
	    rawhex, hex, (long long)later);
	fx_db_exec(db, sql);
	free(sql);
	free(rawhex);
	audit_fails(st, pk_path, "not this window: a file sent for another "
	    "window was used in this one");
	free(first);
	minisign_seckey_free(sk);
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
		cmocka_unit_test(test_deadline_files),
		cmocka_unit_test(test_deadline_forged),
		cmocka_unit_test(test_seed_chain),
		cmocka_unit_test(test_moderator_end),
		cmocka_unit_test(test_key_history),
		cmocka_unit_test(test_key_rotation),
		cmocka_unit_test(test_key_rotation_resume),
		cmocka_unit_test(test_replayed_order_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
