/* test_seedchain: the seed chain's links and statement against the vectors
 * of docs/AUDIT.md ("Seed chain"), computed by its independent Python
 * reference (tests/data/audit-vectors/chain.txt), and strict parsing; a
 * window's seed drawn through the chain's mark (migration 26) is the seed
 * drawn from the tail, window after window, and a mark left by another
 * tail is not used. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "dice.h"
#include "fixtures.h"
#include "seedchain.h"
#include "turn.h"

static const char *const SEED[5] = {
	"7a33827d65611503bcd1f53f60acca2b818b54a95d99bc38a0c14ee0fb78d660",
	"dabdee92b90f2ac72d7b63905854a8ddae8954a915332636f4297915c8d144ed",
	"b404c35b469f0e31c20068eda9fe1a97b28045178e73b436da2c8c8f052d8c4f",
	"43d4e08abe665d7dd20d20bd6420832c963c93dc5b41af36a88aba5691b9292d",
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
};

static void
hex(const unsigned char *p, char *out)
{
	sodium_bin2hex(out, 65, p, 32);
}

/* Seeds 0 (head) .. 4 (tail) of the chain of length 4 ending in 00..1f;
 * the head of the full-length chain; a test campaign's tail. */
static void
test_vectors(void **state)
{
	unsigned char tail[32], s[32], c[32];
	char h[65];
	int k;

	(void)state;
	for (k = 0; k < 32; k++)
		tail[k] = (unsigned char)k;
	for (k = 0; k <= 4; k++) {
		seedchain_seed(tail, 4, k, s);
		hex(s, h);
		assert_string_equal(h, SEED[k]);
	}
	seedchain_seed(tail, 4, 2, s);
	seedchain_link(s, c);
	hex(c, h);
	assert_string_equal(h, SEED[1]);
	seedchain_seed(tail, 4, 1, s);
	dice_commit(s, c);
	hex(c, h);
	assert_string_equal(h,
	    "4fa7e587449fa75bdb3d80240ee8b5f7e2eb8a1d01eb1f048f0710f843d169b8");
	seedchain_seed(tail, SEEDCHAIN_LENGTH, 0, s);
	hex(s, h);
	assert_string_equal(h,
	    "5dc33f455643d960c4113c064ea54ad3b9e446b82dd5f89ee7b1f0ca9cb7fadd");
	dice_seed_from_master((const unsigned char *)"hexpost!", 8, "demo", 0,
	    0, s);
	hex(s, h);
	assert_string_equal(h,
	    "8b02751d1c597031b0c635be09dd6ce175dc0017f4aa68499f73fff73b626c4c");
}

/* The statement's bytes are the vector's; it parses back; its trusted
 * comment; anything not canonical is refused. */
static void
test_statement(void **state)
{
	const char *src = getenv("HEXPOST_SOURCE");
	struct hp_error err = { 0, "" };
	struct seedchain c, p;
	struct sbuf b;
	unsigned char tail[32];
	char path[4096], tc[256], *v, *bad;
	int k;
	static const char *const mutations[][2] = {
		{ "dice: random", "dice: Random" },
		{ "length: 4", "length: 04" },
		{ "length: 4", "length: -4" },
		{ "length: 4", "length:  4" },
		{ "head: 7a", "head: 7A" },
		{ "end\n", "end" },
		{ "end\n", "end\n\n" },
		{ "campaign: demo\n", "campaign: demo\r\n" },
		{ "hexpost seed chain v1", "hexpost seed chain v2" },
	};

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/audit-vectors/chain.txt",
	    src ? src : ".");
	v = util_read_file(path, NULL, NULL);
	assert_non_null(v);
	memset(&c, 0, sizeof c);
	strlcpy_(c.campaign, "demo", sizeof c.campaign);
	c.length = 4;
	for (k = 0; k < 32; k++)
		tail[k] = (unsigned char)k;
	seedchain_seed(tail, 4, 0, c.head);
	sbuf_init(&b);
	seedchain_format(&c, &b);
	assert_string_equal(b.buf, v);
	sbuf_free(&b);
	assert_int_equal(seedchain_parse(v, &p, &err), HP_OK);
	assert_string_equal(p.campaign, "demo");
	assert_false(p.test);
	assert_int_equal(p.length, 4);
	assert_memory_equal(p.head, c.head, 32);
	seedchain_trusted_comment(&p, tc, sizeof tc);
	assert_string_equal(tc, "hexpost seed chain: campaign demo, 4 seeds, "
	    "random dice");
	for (k = 0; k < (int)(sizeof mutations / sizeof mutations[0]); k++) {
		const char *at = strstr(v, mutations[k][0]);
		size_t n;

		assert_non_null(at);
		n = (size_t)(at - v);
		bad = xmalloc(strlen(v) + 16);
		memcpy(bad, v, n);
		strcpy(bad + n, mutations[k][1]);
		strcat(bad, at + strlen(mutations[k][0]));
		if (seedchain_parse(bad, &p, &err) != HP_EINVAL)
			fail_msg("mutation %d accepted: %s", k, bad);
		free(bad);
	}
	free(v);
}

/* Window k's seed from seedchain_window_seed (the mark) against the seed
 * drawn from the tail, for the windows of a long campaign and past the
 * mark's span, then with another tail put in (a chain replaced). */
static void
test_mark(void **state)
{
	struct hp_error err = { 0, "" };
	struct store_chain sc;
	struct store *st;
	static unsigned char seeds[701][32];	/* seeds 1..700, from the tail */
	unsigned char got[32], want[32], tail2[32], cur[32];
	char dir[256], db[300];
	int64_t cid;
	struct game g;
	int k;

	(void)state;
	fx_mkdtemp(dir, sizeof dir, "seedchain");
	snprintf(db, sizeof db, "%s/db", dir);
	st = fx_store_new(db);
	assert_int_equal(turn_campaign_new(st, "mark", "fire-and-movement",
	    NULL, NULL, NULL, 0, &err), HP_OK);
	game_init(&g);
	assert_int_equal(store_game_load(st, "mark", &g, &cid, &err), HP_OK);
	game_free(&g);
	assert_int_equal(store_chain_get(st, cid, &sc, &err), HP_OK);
	memcpy(cur, sc.tail, 32);
	for (k = sc.length; k > 1; k--) {
		seedchain_link(cur, cur);
		if (k - 1 <= 700)
			memcpy(seeds[k - 1], cur, 32);
	}
	assert_int_equal(store_begin(st, &err), HP_OK);
	for (k = 1; k <= 700; k += k < 40 ? 1 : 7) {
		assert_int_equal(seedchain_window_seed(st, cid, k, got, &err),
		    HP_OK);
		assert_memory_equal(got, seeds[k], 32);
	}
	/* The last seeds of the chain: the mark is the tail itself. */
	for (k = sc.length - 2; k <= sc.length; k++) {
		assert_int_equal(seedchain_window_seed(st, cid, k, got, &err),
		    HP_OK);
		seedchain_seed(sc.tail, sc.length, k, want);
		assert_memory_equal(got, want, 32);
	}
	assert_int_equal(seedchain_window_seed(st, cid, sc.length + 1, got,
	    &err), HP_ESTATE);
	/* Another tail: a mark drawn from the old one is not used. */
	assert_int_equal(seedchain_window_seed(st, cid, 5, got, &err), HP_OK);
	memset(tail2, 0x5a, sizeof tail2);
	assert_int_equal(store_chain_put(st, cid, tail2, sc.length,
	    sc.statement, &err), HP_OK);
	assert_int_equal(seedchain_window_seed(st, cid, 6, got, &err), HP_OK);
	seedchain_seed(tail2, sc.length, 6, want);
	assert_memory_equal(got, want, 32);
	assert_int_equal(store_commit(st, &err), HP_OK);
	store_chain_free(&sc);
	store_close(st);
	fx_rmtree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_statement),
		cmocka_unit_test(test_mark),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
