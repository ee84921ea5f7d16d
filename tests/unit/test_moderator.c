/* test_moderator: command files (parsing, every refusal with its reason)
 * and moderator_exec on a temporary database: who may do what, a nonce
 * used once, a refused command changes nothing, and each command's effect
 * with its answer and notices in the outbox (pause and resume moving the
 * deadline, extend, end, replace with a new key, resend, proceed, status
 * and report). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deadline.h"
#include "fixtures.h"
#include "moderator.h"
#include "mailpref.h"
#include "turn.h"

static const unsigned char MASTER[] = "test-moderator master seed";
#define T0 1800000000L
#define HOUR 3600L
/* A minisign public key (base64 line) and its key id. */
#define NEWKEY "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"

struct fx {
	const char *path;
	struct store *st;
	struct config cfg;
	struct store_player mod, bea_red;
	int64_t cid;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	struct hp_error err = { 0, "" };
	struct store_player p[4];
	struct game g;

	f->path = fx_tmp_db();
	f->st = fx_store_new(f->path);
	setenv("HEXPOST_NOW", "1800000000", 1);
	assert_int_equal(turn_campaign_new(f->st, "hill", "fire-and-movement",
	    NULL, "", MASTER, sizeof MASTER - 1, &err), HP_OK);
	game_init(&g);
	assert_int_equal(store_game_load(f->st, "hill", &g, &f->cid, &err),
	    HP_OK);
	game_free(&g);
	assert_int_equal(store_player_add(f->st, f->cid, 0, "ann",
	    "ann@example.org", NULL, NULL, true, &err), HP_OK);
	assert_int_equal(store_player_add(f->st, f->cid, 1, "bob",
	    "bob@example.org", NULL, NULL, false, &err), HP_OK);
	assert_int_equal(store_players_of(f->st, f->cid, p, 4, &err), 2);
	f->mod = p[0];
	f->bea_red = p[1];
	assert_true(f->mod.moderator);
	config_defaults(&f->cfg, "/nonexistent");
	f->cfg.deadline_hours = 48;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	store_close(f->st);
	fx_tmp_clean();
	free(f);
	return 0;
}

/* Parse text and run it as player who (NULL: the command line). */
static int
run(struct fx *f, const char *text, const struct store_player *who,
    long now, char **reply, struct hp_error *err)
{
	return fx_moderate(f->st, &f->cfg, text, who, now, reply, err);
}

/* The command must succeed; its answer must contain want. */
static void
ok(struct fx *f, const char *text, const struct store_player *who, long now,
    const char *want)
{
	struct hp_error err = { 0, "" };
	char *reply = NULL;

	if (run(f, text, who, now, &reply, &err) != HP_OK)
		fail_msg("%s: %s", text, err.msg);
	if (strstr(reply, want) == NULL)
		fail_msg("answer to %s lacks '%s':\n%s", text, want, reply);
	free(reply);
}

/* The command must be refused with rc and a reason containing why, and
 * change nothing at all. */
static void
refused(struct fx *f, const char *text, const struct store_player *who,
    int rc, const char *why)
{
	struct hp_error err = { 0, "" };
	char *before = fx_db_dump(f->path), *after;

	assert_int_equal(run(f, text, who, T0, NULL, &err), rc);
	if (strstr(err.msg, why) == NULL)
		fail_msg("refusal of %s: '%s' lacks '%s'", text, err.msg, why);
	after = fx_db_dump(f->path);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static long
q(struct fx *f, const char *sql)
{
	return fx_db_long(f->path, sql);
}

/* mail picture-mail|json-mail on|off: a player's own report mail, or from
 * the command line the campaign's; the player's choice wins. */
static void
test_mail_prefs(void **state)
{
	struct fx *f = *state;

	assert_true(mailpref_get(f->st, f->cid, "bob", MAILPREF_PICTURE));
	assert_false(mailpref_get(f->st, f->cid, "bob", MAILPREF_JSON));
	ok(f, "campaign: hill\ncommand: mail picture-mail off\nnonce: m1\n",
	    &f->bea_red, T0, "picture-mail off");
	assert_false(mailpref_get(f->st, f->cid, "bob", MAILPREF_PICTURE));
	assert_true(mailpref_get(f->st, f->cid, "ann", MAILPREF_PICTURE));
	ok(f, "campaign: hill\ncommand: mail json-mail on\n", NULL, T0,
	    "whole campaign");
	assert_true(mailpref_get(f->st, f->cid, "ann", MAILPREF_JSON));
	ok(f, "campaign: hill\ncommand: mail picture-mail off\n", NULL, T0,
	    "picture-mail off");
	ok(f, "campaign: hill\ncommand: mail picture-mail on\nnonce: m2\n",
	    &f->bea_red, T0, "picture-mail on");
	assert_true(mailpref_get(f->st, f->cid, "bob", MAILPREF_PICTURE));
	assert_false(mailpref_get(f->st, f->cid, "ann", MAILPREF_PICTURE));
	refused(f, "campaign: hill\ncommand: mail pictures maybe\nnonce: m3\n",
	    &f->bea_red, HP_EINVAL, "picture-mail or json-mail");
	assert_int_equal(q(f, "SELECT count(*) FROM mail_prefs"), 2);
}

static void
test_parse(void **state)
{
	struct hp_error err = { 0, "" };
	struct mod_command c;
	const char *good = "# a command\r\ncampaign: hill\r\ncommand: Extend  "
	    "24 \r\nnonce: n1\nemail: a@b.example\nname: Ann\nkey: " NEWKEY
	    "\n";

	(void)state;
	assert_true(moderator_is_command(good, strlen(good)));
	assert_false(moderator_is_command("campaign: hill\nturn: 1\nwindow: "
	    "blue\nside: blue\ncommander 2\n", 50));
	assert_int_equal(moderator_parse(good, strlen(good), &c, &err), HP_OK);
	assert_string_equal(c.campaign, "hill");
	assert_string_equal(c.verb, "extend");
	assert_string_equal(c.arg, "24");
	assert_string_equal(c.nonce, "n1");
	assert_string_equal(c.email, "a@b.example");
	assert_string_equal(c.name, "Ann");
	assert_string_equal(c.key, NEWKEY);
#define BAD(text, why) do { \
	memset(&err, 0, sizeof err); \
	assert_int_equal(moderator_parse(text, strlen(text), &c, &err), \
	    HP_EINVAL); \
	if (strstr(err.msg, why) == NULL) \
		fail_msg("'%s' lacks '%s'", err.msg, why); \
} while (0)
	BAD("campaign: hill\n", "needs a 'campaign:' and a 'command:'");
	BAD("command: pause\n", "needs a 'campaign:'");
	BAD("campaign: hill\ncommand: pause\nside: blue\n", "line 3: expected");
	BAD("campaign: hill\ncampaign: dale\ncommand: pause\n",
	    "line 2: campaign: given twice");
	BAD("campaign: hill\ncommand: pause\x01\n", "line 2: control");
	BAD("campaign: hill\ncommand: averyveryverylongverb\n",
	    "unknown command");
#undef BAD
}

static void
test_rights(void **state)
{
	struct fx *f = *state;

	refused(f, "campaign: hill\ncommand: pause\nnonce: a\n", &f->bea_red,
	    HP_EINVAL, "only the moderator of hill may 'pause'");
	refused(f, "campaign: hill\ncommand: pause\n", &f->mod, HP_EINVAL,
	    "needs a 'nonce:' line");
	refused(f, "campaign: dale\ncommand: status\nnonce: a\n", &f->mod,
	    HP_EINVAL, "your key plays in hill, not in dale");
	refused(f, "campaign: hill\ncommand: dance\nnonce: a\n", &f->mod,
	    HP_EINVAL, "unknown command 'dance'");
	refused(f, "campaign: hill\ncommand: pause now\nnonce: a\n", &f->mod,
	    HP_EINVAL, "takes no argument");
	refused(f, "campaign: hill\ncommand: extend\nnonce: a\n", &f->mod,
	    HP_EINVAL, "needs an argument");
	refused(f, "campaign: hill\ncommand: extend many\nnonce: a\n", &f->mod,
	    HP_EINVAL, "extend takes a number of hours");
	refused(f, "campaign: hill\ncommand: set missing maybe\nnonce: a\n",
	    &f->mod, HP_EINVAL, "set takes");
	refused(f, "campaign: hill\ncommand: replace green\nnonce: a\nemail: "
	    "x@y.example\n", &f->mod, HP_EINVAL, "no side 'green'");
	refused(f, "campaign: hill\ncommand: replace red\nnonce: a\n", &f->mod,
	    HP_EINVAL, "needs the new player's address");
	refused(f, "campaign: hill\ncommand: replace red\nnonce: a\nemail: "
	    "x@y.example\nkey: RWQnotakey\n", &f->mod, HP_EINVAL, "key:");
	refused(f, "campaign: hill\ncommand: report\nnonce: a\n", &f->bea_red,
	    HP_ENOENT, "no resolved turn yet");
	refused(f, "campaign: hill\ncommand: proceed wait\nnonce: a\n",
	    &f->mod, HP_EINVAL, "proceed takes 'ai' or 'hold'");
}

/* A player may ask for the status; the nonce is good once. */
static void
test_status_nonce(void **state)
{
	struct fx *f = *state;

	ok(f, "campaign: hill\ncommand: status\nnonce: s1\n", &f->bea_red, T0,
	    "Still waiting for: blue.\nDeadline: 2027-01-17 08:00 UTC.");
	assert_int_equal(q(f, "SELECT count(*) FROM commands WHERE nonce = "
	    "'s1' AND command = 'status'"), 1);
	refused(f, "campaign: hill\ncommand: status\nnonce: s1\n", &f->bea_red,
	    HP_ESTATE, "was used before");
	/* The command line needs no nonce. */
	ok(f, "campaign: hill\ncommand: status\n", NULL, T0, "Campaign hill");
}

/* Paused for 10 hours: the deadline moves by 10 hours; everyone is told. */
static void
test_pause_resume_extend(void **state)
{
	struct fx *f = *state;

	ok(f, "campaign: hill\ncommand: pause\nnonce: p1\n", &f->mod, T0 + HOUR,
	    "Campaign hill is paused");
	assert_int_equal(q(f, "SELECT paused FROM campaign_settings"), 1);
	assert_int_equal(q(f, "SELECT count(*) FROM outbox WHERE kind = "
	    "'notice'"), 2);
	refused(f, "campaign: hill\ncommand: pause\nnonce: p2\n", &f->mod,
	    HP_ESTATE, "already paused");
	ok(f, "campaign: hill\ncommand: resume\nnonce: p3\n", &f->mod,
	    T0 + 11 * HOUR, "resumed");
	assert_int_equal(q(f, "SELECT extended FROM window_clock"), 10 * HOUR);
	ok(f, "campaign: hill\ncommand: status\nnonce: p4\n", &f->mod, T0,
	    "Deadline: 2027-01-17 18:00 UTC.");
	ok(f, "campaign: hill\ncommand: extend 24\nnonce: p5\n", &f->mod, T0,
	    "is now 2027-01-18 18:00 UTC");
	ok(f, "campaign: hill\ncommand: deadline 2027-02-01T12:00Z\nnonce: "
	    "p6\n", &f->mod, T0, "is now 2027-02-01 12:00 UTC");
	assert_int_equal(q(f, "SELECT count(*) FROM outbox WHERE kind = "
	    "'notice'"), 8);
	ok(f, "campaign: hill\ncommand: set deadline_hours 12\nnonce: p7\n",
	    &f->mod, T0, "deadline_hours = 12");
	assert_int_equal(q(f, "SELECT deadline_hours FROM campaign_settings"),
	    12);
	assert_int_equal(q(f, "SELECT paused FROM campaign_settings"), 0);
}

/* A held window goes on with 'proceed': Blue's orders are the opponent's. */
static void
test_proceed(void **state)
{
	struct fx *f = *state;
	struct hp_error err = { 0, "" };
	int n = 0;

	ok(f, "campaign: hill\ncommand: proceed ai\nnonce: x1\n", &f->mod, T0,
	    "blue sent no orders: the built-in opponent played it");
	assert_int_equal(q(f, "SELECT count(*) FROM orders WHERE source = "
	    "'deadline-ai'"), 1);
	refused(f, "campaign: hill\ncommand: proceed\nnonce: x2\n", &f->mod,
	    HP_ESTATE, "has every order it needs");
	assert_int_equal(turn_resolve(f->st, "hill", &n, &err), HP_OK);
	/* Now there is a report: the player's own view, and resend. */
	ok(f, "campaign: hill\ncommand: report\nnonce: x3\n", &f->bea_red, T0,
	    "Report for Red");
	ok(f, "campaign: hill\ncommand: resend red\nnonce: x4\n", &f->mod, T0,
	    "goes again to bob (bob@example.org)");
	assert_int_equal(q(f, "SELECT count(*) FROM outbox WHERE kind = "
	    "'report' AND rcpt = 'bob@example.org'"), 1);
	ok(f, "campaign: hill\ncommand: resend\nnonce: x5\n", &f->mod, T0,
	    "ann");
	assert_int_equal(q(f, "SELECT count(*) FROM outbox WHERE kind = "
	    "'report'"), 3);
}

static void
test_replace_end(void **state)
{
	struct fx *f = *state;

	ok(f, "campaign: hill\ncommand: replace red\nnonce: r1\nemail: "
	    "cy@example.org\nname: Cy\nkey: " NEWKEY "\n", &f->mod, T0,
	    "Cy (cy@example.org, key E7620F1842B4E81F) now plays red");
	assert_int_equal(q(f, "SELECT count(*) FROM players WHERE active = 1 "
	    "AND side_idx = 1 AND name = 'Cy' AND key_id = "
	    "'E7620F1842B4E81F'"), 1);
	assert_int_equal(q(f, "SELECT count(*) FROM players WHERE active = 0 "
	    "AND email = 'bob@example.org'"), 1);
	assert_int_equal(q(f, "SELECT count(*) FROM outbox WHERE kind = "
	    "'welcome' AND rcpt = 'cy@example.org'"), 1);
	/* Cy hands red to a new Cy: a second welcome, its own Message-ID. */
	ok(f, "campaign: hill\ncommand: replace red\nnonce: r1b\nemail: "
	    "cy2@example.org\nname: Cy\nkey: " NEWKEY "\n", &f->mod, T0,
	    "now plays red");
	assert_int_equal(q(f, "SELECT count(DISTINCT message_id) FROM outbox "
	    "WHERE kind = 'welcome' AND rcpt IN ('cy@example.org', "
	    "'cy2@example.org')"), 2);
	ok(f, "campaign: hill\ncommand: end a draw agreed\nnonce: r2\n",
	    &f->mod, T0, "has ended: ended by the moderator: a draw agreed");
	assert_int_equal(q(f, "SELECT count(*) FROM campaigns WHERE status = "
	    "'finished'"), 1);
	refused(f, "campaign: hill\ncommand: end\nnonce: r3\n", &f->mod,
	    HP_ESTATE, "has ended");
	/* No moderator key: each was recorded as an unsigned statement and
	 * announced to every player. */
	assert_int_equal(q(f, "SELECT count(*) FROM moderator_statements "
	    "WHERE signature = ''"), 3);
	assert_int_equal(q(f, "SELECT count(*) FROM moderator_statements "
	    "WHERE seq = 3 AND statement LIKE '%action: end a draw agreed%'"),
	    1);
	assert_true(q(f, "SELECT count(*) FROM outbox WHERE kind = 'notice' "
	    "AND CAST(data AS TEXT) LIKE '%statement 3, NOT signed%'") >= 2);
	refused(f, "campaign: hill\ncommand: extend 2\nnonce: r4\n", &f->mod,
	    HP_ESTATE, "has ended");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_rights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mail_prefs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_status_nonce, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_pause_resume_extend, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_proceed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace_end, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
