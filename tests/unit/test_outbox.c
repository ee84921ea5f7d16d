/* test_outbox: delivery of queued mail through the Maildir transport.
 * Queued messages are delivered, each exactly once even when its row is put
 * back to 'queued' (a crash between writing the file and marking the row);
 * a destination that fails (the outbox path a file, or a Maildir whose tmp/
 * cannot be written) is retried with exponential backoff, next_attempt =
 * now + retry_base * 2^attempts, until retry_max attempts, then 'failed';
 * and the stats count what happened. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "hexpost.h"
#include "mail.h"
#include "maildir.h"
#include "outbox.h"
#include "store.h"

struct ox {
	char top[512];     /* mkdtemp directory, removed at the end */
	char box[600];     /* the outbox Maildir (or whatever is there) */
	char db[600];
	struct store *st;
	struct config cfg;
};

static int
setup(void **state)
{
	struct ox *o = xcalloc(1, sizeof *o);
	struct hp_error err = { 0, "" };

	fx_mkdtemp(o->top, sizeof o->top, "outbox");
	config_defaults(&o->cfg, o->top);
	snprintf(o->box, sizeof o->box, "%s/outbox", o->top);
	snprintf(o->cfg.outbox, sizeof o->cfg.outbox, "maildir:%s", o->box);
	snprintf(o->db, sizeof o->db, "%s/hexpost.db", o->top);
	o->cfg.retry_base = 60;
	o->cfg.retry_max = 4;
	assert_int_equal(store_open(&o->st, o->db, true, &err), HP_OK);
	assert_int_equal(store_migrate(o->st, &err), HP_OK);
	*state = o;
	return 0;
}

static int
teardown(void **state)
{
	struct ox *o = *state;

	store_close(o->st);
	fx_rmtree(o->top);
	free(o);
	return 0;
}

/* The message text queued under msgid. */
static char *
text_of(const char *msgid)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, "From: hexpost@localhost\nTo: p@example.org\n"
	    "Message-ID: <%s>\nAuto-Submitted: auto-replied\n\nbody of %s\n",
	    msgid, msgid);
	return sbuf_steal(&b);
}

static void
queue(struct ox *o, const char *kind, const char *msgid)
{
	struct hp_error err = { 0, "" };
	char *text = text_of(msgid);
	bool added = false;

	assert_int_equal(store_outbox_add(o->st, 0, kind, msgid,
	    "p@example.org", strcmp(kind, "report") == 0 ? "hexpost@localhost" :
	    "", text, strlen(text), &added, &err), HP_OK);
	assert_true(added);
	free(text);
}

static void
deliver(struct ox *o, long now, int sent, int retried, int failed)
{
	struct hp_error err = { 0, "" };
	struct outbox_stats s;

	memset(&s, 0xff, sizeof s);
	assert_int_equal(outbox_deliver(o->st, &o->cfg, now, &s, &err), HP_OK);
	assert_int_equal(s.sent, sent);
	assert_int_equal(s.retried, retried);
	assert_int_equal(s.failed, failed);
}

/* One delivery that meets a local fault (the outbox cannot be written):
 * HP_EIO, sent messages before it, held ones from it on, no try counted. */
static void
deliver_held(struct ox *o, long now, int sent, int held)
{
	struct hp_error err = { 0, "" };
	struct outbox_stats s;

	memset(&s, 0xff, sizeof s);
	assert_int_equal(outbox_deliver(o->st, &o->cfg, now, &s, &err), HP_EIO);
	assert_int_equal(s.sent, sent);
	assert_int_equal(s.retried, 0);
	assert_int_equal(s.failed, 0);
	assert_int_equal(s.held, held);
	assert_true(err.msg[0] != '\0');
}

/* Regular files in box/sub. */
static int
nfiles(const struct ox *o, const char *sub)
{
	char p[700];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int n = 0;

	snprintf(p, sizeof p, "%s/%s", o->box, sub);
	if ((d = opendir(p)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char f[1000];

		snprintf(f, sizeof f, "%s/%s", p, de->d_name);
		if (de->d_name[0] != '.' && lstat(f, &st) == 0 &&
		    S_ISREG(st.st_mode))
			n++;
	}
	closedir(d);
	return n;
}

/* The file box/sub/name holds exactly the text queued under msgid. */
static void
has_file(const struct ox *o, const char *sub, const char *name,
    const char *msgid)
{
	struct hp_error err = { 0, "" };
	char p[1000], *want = text_of(msgid), *got;
	size_t len;

	snprintf(p, sizeof p, "%s/%s/%s", o->box, sub, name);
	got = util_read_file(p, &len, &err);
	if (got == NULL)
		fail_msg("%s: %s", p, err.msg);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(got, want, len);
	free(got);
	free(want);
}

/* The value of expr for the outbox row of msgid (-1: no such row). */
static long
q(const struct ox *o, const char *expr, const char *msgid)
{
	char sql[600];

	snprintf(sql, sizeof sql, "SELECT %s FROM outbox WHERE message_id = "
	    "'%s'", expr, msgid);
	return fx_db_long(o->db, sql);
}

#define ATTEMPTS "attempts"
#define NEXT "next_attempt"
#define STATE_IS(s) "state = '" s "'"

static void
counts(const struct ox *o, int queued, int sent, int failed)
{
	struct hp_error err = { 0, "" };
	int c[3] = { -1, -1, -1 };

	assert_int_equal(store_outbox_counts(o->st, c, &err), HP_OK);
	assert_int_equal(c[0], queued);
	assert_int_equal(c[1], sent);
	assert_int_equal(c[2], failed);
}

/* Queued messages are delivered, each as a file named after its Message-ID
 * holding exactly the queued bytes; nothing is due twice. */
static void
test_delivers_queued(void **state)
{
	struct ox *o = *state;

	queue(o, "ack", "hexpost.ack.1@localhost");
	queue(o, "refusal", "hexpost.refusal.2@localhost");
	queue(o, "report", "hexpost.report.3@localhost");
	/* One of them is not due yet. */
	fx_db_exec(o->db, "UPDATE outbox SET next_attempt = 2000 WHERE "
	    "message_id = 'hexpost.report.3@localhost'");
	counts(o, 3, 0, 0);

	deliver(o, 1000, 2, 0, 0);
	assert_int_equal(nfiles(o, "new"), 2);
	has_file(o, "new", "hexpost.ack.1@localhost", "hexpost.ack.1@localhost");
	has_file(o, "new", "hexpost.refusal.2@localhost",
	    "hexpost.refusal.2@localhost");
	assert_int_equal(q(o, STATE_IS("sent"), "hexpost.ack.1@localhost"), 1);
	assert_int_equal(q(o, ATTEMPTS, "hexpost.ack.1@localhost"), 1);
	assert_int_equal(q(o, STATE_IS("queued"), "hexpost.report.3@localhost"),
	    1);
	assert_int_equal(q(o, ATTEMPTS, "hexpost.report.3@localhost"), 0);
	counts(o, 1, 2, 0);

	deliver(o, 1999, 0, 0, 0);
	assert_int_equal(nfiles(o, "new"), 2);
	deliver(o, 2000, 1, 0, 0);
	assert_int_equal(nfiles(o, "new"), 3);
	has_file(o, "new", "hexpost.report.3@localhost",
	    "hexpost.report.3@localhost");
	counts(o, 0, 3, 0);
	deliver(o, 999999, 0, 0, 0);
	assert_int_equal(nfiles(o, "new"), 3);
	assert_int_equal(nfiles(o, "tmp"), 0);
	assert_int_equal(nfiles(o, "cur"), 0);
}

/* A row put back to 'queued' after its file was written (a crash before it
 * was marked sent) is marked sent without a second file: in new/, or in
 * cur/ once the reader has seen it. */
static void
test_never_twice(void **state)
{
	struct ox *o = *state;
	const char *id = "hexpost.ack.once@localhost";
	char from[1000], to[1000];

	queue(o, "ack", id);
	deliver(o, 1000, 1, 0, 0);
	assert_int_equal(nfiles(o, "new"), 1);

	fx_db_exec(o->db, "UPDATE outbox SET state = 'queued', sent_at = NULL");
	counts(o, 1, 0, 0);
	deliver(o, 1001, 1, 0, 0);
	assert_int_equal(nfiles(o, "new"), 1);
	assert_int_equal(nfiles(o, "tmp"), 0);
	has_file(o, "new", id, id);
	counts(o, 0, 1, 0);

	/* The reader moved it to cur/ and flagged it. */
	snprintf(from, sizeof from, "%s/new/%s", o->box, id);
	snprintf(to, sizeof to, "%s/cur/%s:2,S", o->box, id);
	assert_int_equal(rename(from, to), 0);
	fx_db_exec(o->db, "UPDATE outbox SET state = 'queued', sent_at = NULL");
	deliver(o, 1002, 1, 0, 0);
	assert_int_equal(nfiles(o, "new"), 0);
	assert_int_equal(nfiles(o, "cur"), 1);
	assert_int_equal(nfiles(o, "tmp"), 0);
	counts(o, 0, 1, 0);
}

/* A Message-ID too long to be a file name as it is (over 200 bytes; the
 * outbox takes up to 250) is delivered, and still only once. */
static void
test_long_message_id(void **state)
{
	struct ox *o = *state;
	char id[240];

	memset(id, 'x', sizeof id - 1);
	memcpy(id, "hexpost.report.", 15);
	memcpy(id + sizeof id - 11, "@localhost", 11);
	assert_int_equal(strlen(id), 239);
	queue(o, "report", id);
	deliver(o, 1000, 1, 0, 0);
	assert_int_equal(nfiles(o, "new"), 1);
	assert_int_equal(q(o, STATE_IS("sent"), id), 1);
	fx_db_exec(o->db, "UPDATE outbox SET state = 'queued'");
	deliver(o, 1001, 1, 0, 0);
	assert_int_equal(nfiles(o, "new"), 1);
	assert_int_equal(nfiles(o, "tmp"), 0);
}

/* The outbox path is a file, not a directory: a local fault, not the
 * recipients' (issue 21, item 3). Every pass holds the mail with no try
 * counted, however many passes and however late, with the cause noted;
 * once the outbox is usable again everything is delivered. Before, each
 * pass counted a try and after retry_max the mail was failed for good. */
static void
test_file_instead_of_dir(void **state)
{
	struct ox *o = *state;
	const char *a = "hexpost.ack.a@localhost", *b = "hexpost.ack.b@localhost";
	long now = 1000;
	int pass;
	FILE *f;

	assert_non_null(f = fopen(o->box, "w"));
	fputs("not a Maildir\n", f);
	fclose(f);
	queue(o, "ack", a);
	queue(o, "refusal", b);

	for (pass = 0; pass < 3 * o->cfg.retry_max; pass++) {
		deliver_held(o, now, 0, 2);
		now += 100000;
	}
	assert_int_equal(q(o, ATTEMPTS, a), 0);
	assert_int_equal(q(o, ATTEMPTS, b), 0);
	assert_int_equal(q(o, NEXT, a), 0);
	assert_int_equal(q(o, STATE_IS("queued"), a), 1);
	assert_int_equal(q(o, STATE_IS("queued"), b), 1);
	assert_int_equal(q(o, "last_error LIKE '%Not a directory%'", a), 1);
	counts(o, 2, 0, 0);
	assert_int_equal(unlink(o->box), 0);
	deliver(o, now, 2, 0, 0);
	counts(o, 0, 2, 0);
	has_file(o, "new", a, a);
	has_file(o, "new", b, b);
}

/* The Maildir opens but its tmp/ cannot be written (a symbolic link to
 * /proc, where not even root creates files): a local fault, so the message
 * is held (no try counted) and goes through once tmp/ is a directory
 * again. */
static void
test_send_failure_then_recovery(void **state)
{
	struct ox *o = *state;
	struct hp_error err = { 0, "" };
	const char *id = "hexpost.report.r@localhost";
	char tmp[700];
	struct stat st;

	if (stat("/proc/self", &st) != 0)
		skip();
	assert_int_equal(maildir_create(o->box, &err), HP_OK);
	snprintf(tmp, sizeof tmp, "%s/tmp", o->box);
	assert_int_equal(rmdir(tmp), 0);
	assert_int_equal(symlink("/proc", tmp), 0);
	o->cfg.retry_base = 10;
	o->cfg.retry_max = 2;
	queue(o, "report", id);

	deliver_held(o, 5000, 0, 1);
	deliver_held(o, 5001, 0, 1);
	deliver_held(o, 5002, 0, 1);
	assert_int_equal(q(o, ATTEMPTS, id), 0);
	assert_int_equal(q(o, "last_error LIKE '%/tmp/%'", id), 1);
	assert_int_equal(nfiles(o, "new"), 0);
	counts(o, 1, 0, 0);

	assert_int_equal(unlink(tmp), 0);
	assert_int_equal(mkdir(tmp, 0700), 0);
	deliver(o, 5003, 1, 0, 0);
	assert_int_equal(nfiles(o, "new"), 1);
	has_file(o, "new", id, id);
	assert_int_equal(q(o, STATE_IS("sent"), id), 1);
	assert_int_equal(q(o, ATTEMPTS, id), 1);
	counts(o, 0, 1, 0);
}

/* One call, every outcome: delivered and failed at once (a permanent
 * failure: a name Maildir refuses), counted; then a local fault holds the
 * rest of the batch, after what was delivered before it. */
static void
test_stats(void **state)
{
	struct ox *o = *state;
	struct hp_error err = { 0, "" };
	char tmp[700];
	struct stat st;

	if (stat("/proc/self", &st) != 0)
		skip();
	queue(o, "ack", "hexpost.ack.ok1@localhost");
	queue(o, "ack", ".hidden@localhost");       /* never a valid name */
	queue(o, "ack", "hexpost.ack.ok2@localhost");
	deliver(o, 100, 2, 0, 1);
	assert_int_equal(q(o, STATE_IS("failed"), ".hidden@localhost"), 1);
	assert_int_equal(q(o, ATTEMPTS, ".hidden@localhost"), 1);
	counts(o, 0, 2, 1);
	assert_int_equal(nfiles(o, "new"), 2);

	/* Break tmp/: two new messages are held, none sent. */
	assert_int_equal(maildir_create(o->box, &err), HP_OK);
	snprintf(tmp, sizeof tmp, "%s/tmp", o->box);
	assert_int_equal(rmdir(tmp), 0);
	assert_int_equal(symlink("/proc", tmp), 0);
	/* A delivered message found again needs no tmp/: sent. */
	fx_db_exec(o->db, "UPDATE outbox SET state = 'queued' WHERE message_id "
	    "= 'hexpost.ack.ok1@localhost'");
	queue(o, "report", "hexpost.report.x@localhost");
	queue(o, "report", "hexpost.report.y@localhost");
	deliver_held(o, 200, 1, 2);
	counts(o, 2, 2, 1);
	assert_int_equal(nfiles(o, "new"), 2);
	assert_int_equal(fx_db_long(o->db, "SELECT sum(attempts) FROM outbox "
	    "WHERE kind = 'report'"), 0);
}

/* Message-IDs: a seed of safe characters is kept as it is; seeds that must
 * be folded ("a b") never meet one that needs no folding ("a_b"). */
static void
test_message_ids(void **state)
{
	struct ox *o = *state;
	struct hp_error err = { 0, "" };
	static const char *seeds[] = { "a b", "a_b", "a/b", "plain.1" };
	size_t i;

	strlcpy_(o->cfg.domain, "club.example", sizeof o->cfg.domain);
	for (i = 0; i < 4; i++)
		assert_int_equal(mail_queue_message(o->st, &o->cfg, 0, "notice",
		    "p@example.org", seeds[i], "s", "body\n", &err), HP_OK);
	assert_int_equal(fx_db_long(o->db, "SELECT count(DISTINCT message_id) "
	    "FROM outbox WHERE kind = 'notice'"), 4);
	assert_int_equal(fx_db_long(o->db, "SELECT count(*) FROM outbox WHERE "
	    "message_id = 'hexpost.notice.plain.1@club.example'"), 1);
	assert_int_equal(fx_db_long(o->db, "SELECT count(*) FROM outbox WHERE "
	    "message_id = 'hexpost.notice.a_b@club.example'"), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_delivers_queued, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_never_twice, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_long_message_id, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_file_instead_of_dir, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_send_failure_then_recovery,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_ids, setup,
		    teardown),
	};

	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
