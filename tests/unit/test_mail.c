/* test_mail: the bytes of the mail hexpost queues (issue 19): every message
 * of one campaign to one player forms one thread (In-Reply-To and
 * References to the player's welcome, one subject), carries List-Id and the
 * X-Hexpost-* fields, and replies to a player's mail refer to both the
 * thread's root and the mail they answer. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "mail.h"
#include "turn.h"

static const char MASTER[] = "test-mail master seed";

struct hill {
	const char *path;
	struct store *st;
	struct config cfg;
	struct game g;
	int64_t cid;
};

/* Campaign hill with bea (Blue, moderator) and rob (Red). */
static void
hill_open(struct hill *h)
{
	h->st = fx_club(&h->path, &h->cfg, &h->cid, &h->g, MASTER);
}

static void
hill_close(struct hill *h)
{
	game_free(&h->g);
	store_close(h->st);
	fx_tmp_clean();
}

/* The queued message of kind to rcpt (the last one queued); caller frees. */
static char *
queued(struct hill *h, const char *kind, const char *rcpt)
{
	char sql[300], *m;

	snprintf(sql, sizeof sql, "SELECT data FROM outbox WHERE kind = '%s' "
	    "AND rcpt = '%s' ORDER BY id DESC LIMIT 1", kind, rcpt);
	if ((m = fx_db_text(h->path, sql)) == NULL)
		fail_msg("no %s to %s queued", kind, rcpt);
	return m;
}

/* The value of header name in message m (first line), or "" if absent. */
static const char *
header(const char *m, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);
	const char *p = m;

	buf[0] = '\0';
	while (*p != '\0' && *p != '\n') {
		if (strncmp(p, name, n) == 0 && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			return buf;
		}
		p += strcspn(p, "\n");
		if (*p == '\n')
			p++;
	}
	return buf;
}

static void
expect(const char *m, const char *name, const char *want)
{
	char buf[600];

	if (strcmp(header(m, name, buf, sizeof buf), want) != 0)
		fail_msg("%s: \"%s\", want \"%s\" in\n%s", name, buf, want, m);
}

/* The welcome is the thread's root; notices, reminders and replies refer
 * to it under the thread's one subject. */
static void
test_thread(void **state)
{
	struct hp_error err = { 0, "" };
	struct hill h;
	char root[300], *m, buf[600];
	int64_t bea;

	(void)state;
	hill_open(&h);
	bea = fx_db_long(h.path, "SELECT id FROM players WHERE name = 'bea'");
	assert_true(bea > 0);
	assert_int_equal(mail_queue_welcome(h.st, &h.cfg, h.cid, &h.g, 0,
	    "bea", "bea@example.org", NULL, &err), HP_OK);
	m = queued(&h, "welcome", "bea@example.org");
	snprintf(root, sizeof root, "<hexpost.welcome.hill.bea.%lld@"
	    "club.example>", (long long)bea);
	expect(m, "Message-ID", root);
	expect(m, "Subject", "[hexpost] hill: bea");
	expect(m, "In-Reply-To", "");
	expect(m, "References", "");
	expect(m, "List-Id", "hexpost hill <hill.hexpost.club.example>");
	expect(m, "X-Hexpost-Campaign", "hill");
	expect(m, "X-Hexpost-Player", "bea");
	expect(m, "X-Hexpost-Kind", "welcome");
	assert_non_null(strstr(header(m, "X-Hexpost-Topic", buf, sizeof buf),
	    "welcome, you play"));
	free(m);

	assert_int_equal(mail_queue_message(h.st, &h.cfg, h.cid, "reminder",
	    "bea@example.org", "r1", "[hexpost] hill: orders due in 24 hours",
	    "Orders, please.\n", &err), HP_OK);
	m = queued(&h, "reminder", "bea@example.org");
	expect(m, "Subject", "[hexpost] hill: bea");
	expect(m, "In-Reply-To", root);
	expect(m, "References", root);
	expect(m, "X-Hexpost-Topic", "[hexpost] hill: orders due in 24 hours");
	expect(m, "X-Hexpost-Kind", "reminder");
	expect(m, "List-Id", "hexpost hill <hill.hexpost.club.example>");
	free(m);

	/* A reply: to the player's message and the thread. Addresses
	 * compare without case. */
	assert_int_equal(mail_queue_reply(h.st, &h.cfg, h.cid, "ack",
	    "Bea@Example.org", "o.1@players.example", "Re: Re: [hexpost] hill: "
	    "bea", "Accepted.\n", "abc", &err), HP_OK);
	m = queued(&h, "ack", "Bea@Example.org");
	expect(m, "Subject", "Re: [hexpost] hill: bea");
	expect(m, "In-Reply-To", "<o.1@players.example>");
	snprintf(buf, sizeof buf, "%s <o.1@players.example>", root);
	/* 83 characters: GMime folds the line; the first holds the root. */
	assert_non_null(strstr(m, "References: "));
	assert_non_null(strstr(strstr(m, "References: "), root));
	assert_non_null(strstr(strstr(m, "References: "),
	    "<o.1@players.example>"));
	expect(m, "X-Hexpost-Kind", "ack");
	free(m);
	hill_close(&h);
}

/* Mail to someone who plays no side (a stranger's refusal) has the
 * campaign's List-Id but no thread, and keeps its own subject. */
static void
test_stranger(void **state)
{
	struct hp_error err = { 0, "" };
	struct hill h;
	char *m;

	(void)state;
	hill_open(&h);
	assert_int_equal(mail_queue_message(h.st, &h.cfg, h.cid, "notice",
	    "someone@example.net", "n1", "[hexpost] hill: a notice",
	    "Hello.\n", &err), HP_OK);
	m = queued(&h, "notice", "someone@example.net");
	expect(m, "Subject", "[hexpost] hill: a notice");
	expect(m, "In-Reply-To", "");
	expect(m, "References", "");
	expect(m, "X-Hexpost-Player", "");
	expect(m, "X-Hexpost-Topic", "");
	expect(m, "List-Id", "hexpost hill <hill.hexpost.club.example>");
	free(m);
	/* Without a campaign (cid 0), no List-Id either. */
	assert_int_equal(mail_queue_reply(h.st, &h.cfg, 0, "refusal",
	    "someone@example.net", NULL, "orders", "No.\n", "def", &err),
	    HP_OK);
	m = queued(&h, "refusal", "someone@example.net");
	expect(m, "List-Id", "");
	expect(m, "Subject", "Re: orders");
	expect(m, "X-Hexpost-Kind", "refusal");
	free(m);
	hill_close(&h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_stranger),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
