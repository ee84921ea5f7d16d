/* test_dicelog: the dice log's canonical text against the vector written by
 * an independent Python implementation of docs/AUDIT.md
 * (tests/data/audit-vectors/dice-log.txt), strict parsing, and the checks
 * of seeds, keys and every roll. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "dicelog.h"

static char *
vector_text(void)
{
	const char *src = getenv("HEXPOST_SOURCE");
	char path[4096];
	char *t;

	snprintf(path, sizeof path, "%s/tests/data/audit-vectors/dice-log.txt",
	    src ? src : ".");
	t = util_read_file(path, NULL, NULL);
	assert_non_null(t);
	return t;
}

/* The log of the vector, built field by field as the server would. */
static void
vector_log(struct dicelog *l, struct dice *d)
{
	unsigned char hashes[3][32];
	int i;

	dicelog_init(l);
	strlcpy_(l->campaign, "demo", sizeof l->campaign);
	l->turn = 3;
	l->window = 1;
	strlcpy_(l->window_name, "blue", sizeof l->window_name);
	for (i = 0; i < DICE_SEEDLEN; i++)
		l->seed[i] = (unsigned char)i;
	dice_commit(l->seed, l->commitment);
	l->norders = 2;
	strlcpy_(l->orders[0].side, "blue", GAME_ID_MAX);
	strlcpy_(l->orders[0].source, "mail", 16);
	memset(l->orders[0].hash, 0x11, 32);
	strlcpy_(l->orders[1].side, "red", GAME_ID_MAX);
	strlcpy_(l->orders[1].source, "opponent", 16);
	memset(l->orders[1].hash, 0x22, 32);
	/* The key covers the previous log's hash (zeros: a first window)
	 * before the order files' (docs/AUDIT.md, "Dice key"). */
	memset(hashes[0], 0, 32);
	memcpy(hashes[1], l->orders[0].hash, 32);
	memcpy(hashes[2], l->orders[1].hash, 32);
	dice_derive_key(l->seed, "demo", 3, 1,
	    (const unsigned char (*)[32])hashes, 3, l->key);
	l->nopponent = 1;
	strlcpy_(l->opponent[0], "red", GAME_ID_MAX);
	l->have_next = true;
	memset(l->next_commitment, 0xab, 32);
	dice_init_stream(d, l->key);
	dice_roll(d, 6, 4, "Fire: 1 Section at C4");
	dice_roll(d, 6, 0, "tab\there");
	dice_roll(d, 10, 0, "back\\slash");
	dice_roll(d, 20, 11, "");
	l->rolls = d->log;
	l->nrolls = d->nlog;
}

static void
test_vector(void **state)
{
	struct dicelog l, p;
	struct dice d;
	struct sbuf b;
	struct hp_error err = { 0, "" };
	unsigned char h[32], want[32];
	char *text = vector_text();

	(void)state;
	vector_log(&l, &d);
	sbuf_init(&b);
	dicelog_format(&l, &b);
	assert_string_equal(b.buf, text);
	dicelog_hash(text, h);
	sodium_hex2bin(want, 32, "af770b9eb8d491937d9ea904d7919b70"
	    "8aac6b017ddd4ecf9a0c15837fe8ce62", 64, NULL, NULL, NULL);
	assert_memory_equal(h, want, 32);

	assert_int_equal(dicelog_parse(text, &p, &err), HP_OK);
	assert_int_equal(p.nrolls, 4);
	assert_string_equal(p.rolls[1].purpose, "tab\there");
	assert_string_equal(p.rolls[2].purpose, "back\\slash");
	assert_int_equal(p.rolls[3].result, 17);
	assert_int_equal(dicelog_check(&p, &err), HP_OK);
	dicelog_free(&p);
	l.rolls = NULL;
	dicelog_free(&l);
	dice_free(&d);
	sbuf_free(&b);
	free(text);
}

/* Replace the first occurrence of a in text by b; caller frees. */
static char *
edit(const char *text, const char *a, const char *b)
{
	const char *p = strstr(text, a);
	struct sbuf s;

	assert_non_null(p);
	sbuf_init(&s);
	sbuf_add(&s, text, (size_t)(p - text));
	sbuf_puts(&s, b);
	sbuf_puts(&s, p + strlen(a));
	return sbuf_steal(&s);
}

/* An edited vector parses (or not) and its check fails with msg. */
static void
expect(const char *a, const char *b, bool parses, const char *msg)
{
	struct dicelog l;
	struct hp_error err = { 0, "" };
	char *text = vector_text(), *t = edit(text, a, b);

	if (!parses) {
		assert_int_equal(dicelog_parse(t, &l, &err), HP_EINVAL);
	} else {
		assert_int_equal(dicelog_parse(t, &l, &err), HP_OK);
		assert_int_equal(dicelog_check(&l, &err), HP_EINVAL);
	}
	if (strstr(err.msg, msg) == NULL)
		fail_msg("'%s' not in '%s'", msg, err.msg);
	dicelog_free(&l);
	free(t);
	free(text);
}

static void
test_tampering(void **state)
{
	(void)state;
	/* One die changed. */
	expect("roll: 3 10 0 6", "roll: 3 10 0 7", true,
	    "roll #3 (d10, back\\slash) is 7 in the log, but the dice stream "
	    "gives 6");
	/* Two entries reordered. */
	expect("roll: 1 6 4 6 Fire: 1 Section at C4\nroll: 2 6 0 5 "
	    "tab\\x09here\n", "roll: 2 6 0 5 tab\\x09here\nroll: 1 6 4 6 "
	    "Fire: 1 Section at C4\n", true, "roll 1 of the log is numbered #2");
	/* An entry dropped (and the count fixed). */
	expect("rolls: 4\nroll: 1 6 4 6 Fire: 1 Section at C4\n", "rolls: 3\n",
	    true, "roll 1 of the log is numbered #2");
	/* An entry dropped, the count left. */
	expect("roll: 4 20 11 17 \n", "", false, "fewer rolls");
	/* A seed changed. */
	expect("seed: 00", "seed: 01", true, "does not match the commitment");
	/* An order hash changed: the key no longer follows. */
	expect("order: blue mail 1", "order: blue mail 3", true,
	    "dice key in the log is not the one derived");
	/* Not canonical. */
	expect("turn: 3", "turn: 03", false, "canonical");
	expect("key: b985", "key: B985", false, "canonical");
	/* The previous log's hash changed: it is in the key too. */
	expect("previous: 00", "previous: 10", true,
	    "dice key in the log is not the one derived");
	expect("hexpost dice log v1", "hexpost dice log v2", false,
	    "not a hexpost dice log");
	expect("end\n", "end\nmore\n", false, "text after 'end'");
	expect("roll: 2 6 0 5 tab\\x09here", "roll: 2 6 0 5 tab\there", false,
	    "canonical");
	/* Settled questions: a purpose is well-formed UTF-8 of at most 119
	 * bytes; the whole log is UTF-8. */
	expect("tab\\x09here", "tab\\xffhere", false, "expected 'roll: SEQ");
	expect("tab\\x09here", "tab\xc3here", false, "not valid UTF-8");
	expect("Fire: 1 Section at C4", "Fire: 1 Section at C4 "
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", false, "expected 'roll: SEQ");
}

/* Standing orders of a side the window names (G3): "standing: SIDE HASH"
 * lines after the order lines, their hashes in the key after the order
 * files' (docs/AUDIT.md, "Dice key"). */
static void
test_standing_lines(void **state)
{
	unsigned char hashes[4][32], want[32];
	struct hp_error err = { 0, "" };
	struct dicelog l, p;
	struct dice d, d2;
	struct sbuf b;
	char *t;

	(void)state;
	vector_log(&l, &d);
	l.nstanding = 1;
	strlcpy_(l.standing[0].side, "blue", GAME_ID_MAX);
	memset(l.standing[0].hash, 0x33, 32);
	memset(hashes[0], 0, 32);
	memset(hashes[1], 0x11, 32);
	memset(hashes[2], 0x22, 32);
	memset(hashes[3], 0x33, 32);
	dice_derive_key(l.seed, "demo", 3, 1,
	    (const unsigned char (*)[32])hashes, 4, l.key);
	sodium_hex2bin(want, 32, "ed8c774ad8d61ec904175b2fabbfcb4b"
	    "d4e82530ffa9480885b2db93a217952f", 64, NULL, NULL, NULL);
	assert_memory_equal(l.key, want, 32);
	/* The rolls from the new key's stream. */
	dice_init_stream(&d2, l.key);
	dice_roll(&d2, 6, 4, "Fire: 1 Section at C4");
	l.rolls = d2.log;
	l.nrolls = d2.nlog;
	sbuf_init(&b);
	dicelog_format(&l, &b);
	assert_non_null(strstr(b.buf, "\norder: red opponent 2222"));
	assert_non_null(strstr(b.buf, "22\nstanding: blue 333333"));
	assert_non_null(strstr(b.buf, "33\nkey: ed8c774a"));
	assert_int_equal(dicelog_parse(b.buf, &p, &err), HP_OK);
	assert_int_equal(p.nstanding, 1);
	assert_string_equal(p.standing[0].side, "blue");
	assert_int_equal(dicelog_check(&p, &err), HP_OK);
	dicelog_free(&p);
	/* Dropped, the key no longer follows; malformed, no parse. */
	t = edit(b.buf, "standing: blue", "standing: red");
	assert_int_equal(dicelog_parse(t, &p, &err), HP_OK);
	dicelog_free(&p);
	free(t);
	{
		const char *at = strstr(b.buf, "standing: ");
		struct sbuf c;

		sbuf_init(&c);
		sbuf_add(&c, b.buf, (size_t)(at - b.buf));
		sbuf_puts(&c, strchr(at, '\n') + 1);
		assert_int_equal(dicelog_parse(c.buf, &p, &err), HP_OK);
		assert_int_equal(dicelog_check(&p, &err), HP_EINVAL);
		assert_non_null(strstr(err.msg, "dice key in the log is not"));
		dicelog_free(&p);
		sbuf_free(&c);
	}
	t = edit(b.buf, "standing: blue ", "standing: blue");
	assert_int_equal(dicelog_parse(t, &p, &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "expected 'standing: SIDE HASH'"));
	dicelog_free(&p);
	free(t);
	sbuf_free(&b);
	l.rolls = NULL;
	dicelog_free(&l);
	dice_free(&d);
	dice_free(&d2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector),
		cmocka_unit_test(test_tampering),
		cmocka_unit_test(test_standing_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
