/* test_dice: dice vectors (computed independently by the Python reference
 * in docs/AUDIT.md), determinism, rejection sampling, distribution,
 * scripted mode and the roll log. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "events.h"
#include "sealed.h"
#include "hexpost.h"

/* Vector inputs (docs/AUDIT.md, "Test vectors"). */
static const char *V_CAMPAIGN = "demo";

/* Parse a hex string of exactly 2 * n digits. */
static void
unhex(const char *hex, unsigned char *out, size_t n)
{
	size_t i;
	unsigned int b;

	assert_int_equal(strlen(hex), 2 * n);
	for (i = 0; i < n; i++) {
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &b), 1);
		out[i] = (unsigned char)b;
	}
}

static void
assert_hex(const unsigned char *got, const char *hex, size_t n)
{
	unsigned char want[64];

	assert_true(n <= sizeof want);
	unhex(hex, want, n);
	assert_memory_equal(got, want, n);
}

/* seed = 00 01 02 ... 1f */
static void
vector_seed(unsigned char *seed)
{
	int i;

	for (i = 0; i < DICE_SEEDLEN; i++)
		seed[i] = (unsigned char)i;
}

/* The vector key: seed, "demo", turn 3, window 1, hashes 11.., 22.. */
static void
vector_key(unsigned char *key)
{
	unsigned char seed[DICE_SEEDLEN], h[2][32];

	vector_seed(seed);
	memset(h[0], 0x11, 32);
	memset(h[1], 0x22, 32);
	dice_derive_key(seed, V_CAMPAIGN, 3, 1,
	    (const unsigned char (*)[32])h, 2, key);
}

static void
test_commit_vector(void **state)
{
	unsigned char seed[DICE_SEEDLEN], c[32];

	(void)state;
	vector_seed(seed);
	dice_commit(seed, c);
	assert_hex(c, "f06c2d4bfb38936c6c6e5abfa837b8d3"
	    "c15e09c966202acf1336f38378a616f7", 32);
}

static void
test_seed_from_master_vectors(void **state)
{
	unsigned char m32[32], m100[100], s[DICE_SEEDLEN];
	int i;

	(void)state;
	for (i = 0; i < 32; i++)
		m32[i] = (unsigned char)(0x40 + i);
	dice_seed_from_master(m32, sizeof m32, V_CAMPAIGN, 1, 1, s);
	assert_hex(s, "b1c59b150aa08d9e1186e00ffc050214"
	    "f1a64fa7e8d206d1d803ad773e2136fd", 32);

	/* 8-byte master: hashed to a 32-byte key first. */
	dice_seed_from_master((const unsigned char *)"hexpost!", 8,
	    V_CAMPAIGN, 2, 3, s);
	assert_hex(s, "7d1592f7254a2d26ce80e873625f4963"
	    "0a1be6f3ba9ad5f966bc943056d7812b", 32);

	/* 100-byte master (over 64): also hashed first. */
	memset(m100, 0, sizeof m100);
	dice_seed_from_master(m100, sizeof m100, V_CAMPAIGN, 2, 3, s);
	assert_hex(s, "013e5ad90789f7f16b3c5aec2c15bc32"
	    "c33bf54168ca4058fa5539292514e050", 32);
}

static void
test_derive_key_vectors(void **state)
{
	unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];

	(void)state;
	vector_key(key);
	assert_hex(key, "19b08781123b21c68da1f2d6ff060798"
	    "cb52cf35b1163ca3f2bc7a4fba19af79", 32);

	vector_seed(seed);
	dice_derive_key(seed, V_CAMPAIGN, 3, 1, NULL, 0, key);
	assert_hex(key, "b19ad070f54dad5c0f675d121aba8920"
	    "d991bf1e88612f6b047bc7c66569e6a0", 32);
}

static void
test_stream_vectors(void **state)
{
	static const int d6[12] = { 3, 5, 6, 1, 1, 1, 5, 4, 6, 4, 5, 1 };
	unsigned char key[DICE_KEYLEN];
	struct dice d;
	int i;

	(void)state;
	vector_key(key);
	dice_init_stream(&d, key);
	for (i = 0; i < 12; i++)
		assert_int_equal(dice_roll(&d, 6, 0, "d6"), d6[i]);
	/* Block 0 is now buffered: check it byte for byte. */
	assert_int_equal(d.block, 1);
	assert_hex(d.buf, "98b86bccf60ce20fe3336490d5b8e25d"
	    "c9cc4fd65678fb6798737759ff3d9c48"
	    "7dc77e2467254cd84bae56566e54fbff"
	    "391bbd9b840cfb2a0ed444d95e3ee60e", 64);
	assert_int_equal(dice_roll(&d, 20, 0, "d20"), 14);
	assert_int_equal(dice_roll(&d, 100, 0, "d100"), 85);
	assert_int_equal(dice_roll(&d, 1000, 0, "d1000"), 950);
	assert_int_equal(dice_roll(&d, 65536, 0, "d65536"), 51661);
	assert_int_equal(dice_roll(&d, 2, 0, "d2"), 2);
	dice_free(&d);
}

/* A two-byte roll whose bytes straddle blocks 0 and 1. */
static void
test_block_boundary(void **state)
{
	unsigned char key[DICE_KEYLEN];
	struct dice d;
	int i;

	(void)state;
	vector_key(key);
	dice_init_stream(&d, key);
	for (i = 0; i < 63; i++)
		(void)dice_roll(&d, 256, 0, "d256");	/* never rejects */
	assert_int_equal(d.bufpos, 63);
	assert_int_equal(dice_roll(&d, 65536, 0, "span"), 3765);
	assert_int_equal(d.block, 2);
	assert_int_equal(d.bufpos, 1);
	assert_int_equal(dice_roll(&d, 6, 0, "d6"), 2);
	dice_free(&d);
}

static void
test_determinism(void **state)
{
	unsigned char key[DICE_KEYLEN];
	struct dice a, b;
	int i, sides;

	(void)state;
	vector_key(key);
	dice_init_stream(&a, key);
	dice_init_stream(&b, key);
	for (i = 0; i < 5000; i++) {
		sides = 2 + (i * 7919) % 70000;
		if (sides > 65536)
			sides = 6;
		assert_int_equal(dice_roll(&a, sides, 0, "a"),
		    dice_roll(&b, sides, 0, "b"));
	}
	assert_int_equal(a.block, b.block);
	assert_int_equal(a.bufpos, b.bufpos);
	dice_free(&a);
	dice_free(&b);

	/* A different key gives a different sequence. */
	key[0] ^= 1;
	dice_init_stream(&a, key);
	key[0] ^= 1;
	dice_init_stream(&b, key);
	for (i = 0; i < 64; i++)
		if (dice_roll(&a, 65536, 0, "") != dice_roll(&b, 65536, 0, ""))
			break;
	assert_true(i < 64);
	dice_free(&a);
	dice_free(&b);
}

/* Turn 170 of the key0 context: stream bytes 252, 239: d6 skips 252. */
static void
test_rejection_d6(void **state)
{
	unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];
	struct dice d;

	(void)state;
	vector_seed(seed);
	dice_derive_key(seed, V_CAMPAIGN, 170, 1, NULL, 0, key);
	dice_init_stream(&d, key);
	assert_int_equal(dice_roll(&d, 6, 0, "reject"), 6);
	assert_int_equal(d.buf[0], 252);	/* rejected: 252 >= limit 252 */
	assert_int_equal(d.buf[1], 239);	/* accepted: 239 % 6 + 1 == 6 */
	assert_int_equal(d.bufpos, 2);
	assert_int_equal(d.nlog, 1);		/* one roll, two bytes */
	dice_free(&d);
}

/* Turn 2 of the key0 context: u16 47754 rejected for d40000, then 25301. */
static void
test_rejection_two_byte(void **state)
{
	unsigned char seed[DICE_SEEDLEN], key[DICE_KEYLEN];
	struct dice d;

	(void)state;
	vector_seed(seed);
	dice_derive_key(seed, V_CAMPAIGN, 2, 1, NULL, 0, key);
	dice_init_stream(&d, key);
	assert_int_equal(dice_roll(&d, 40000, 0, "reject2"), 25302);
	assert_int_equal(d.buf[0] << 8 | d.buf[1], 47754);
	assert_int_equal(d.buf[2] << 8 | d.buf[3], 25301);
	assert_int_equal(d.bufpos, 4);
	dice_free(&d);
}

/* d65536: two bytes, no rejection, result = u16be + 1. */
static void
test_d65536(void **state)
{
	unsigned char key[DICE_KEYLEN];
	struct dice d;
	int r;

	(void)state;
	vector_key(key);
	dice_init_stream(&d, key);
	r = dice_roll(&d, 65536, 0, "d65536");
	assert_int_equal(d.bufpos, 2);
	assert_int_equal(r, (d.buf[0] << 8 | d.buf[1]) + 1);
	assert_int_equal(r, 0x98b8 + 1);
	r = dice_roll(&d, 257, 0, "d257");
	assert_in_range(r, 1, 257);
	assert_true(d.bufpos >= 4 && d.bufpos % 2 == 0);
	dice_free(&d);
}

static void
test_distribution(void **state)
{
	unsigned char key[DICE_KEYLEN];
	struct dice d;
	long count[7] = { 0 }, c100[2] = { 0 };
	int i, r;
	double chi = 0, e;

	(void)state;
	vector_key(key);
	dice_init_stream(&d, key);
	for (i = 0; i < 60000; i++) {
		r = dice_roll(&d, 6, 0, "dist");
		assert_in_range(r, 1, 6);
		count[r]++;
	}
	e = 60000.0 / 6;
	for (i = 1; i <= 6; i++) {
		/* sd is about 91: +-600 is over 6 sigma. */
		assert_in_range(count[i], 9400, 10600);
		chi += (count[i] - e) * (count[i] - e) / e;
	}
	/* chi-square, 5 dof: p < 1e-6 beyond about 35.9. */
	assert_true(chi < 36.0);

	/* Two-byte path: d1000 halves are balanced. */
	for (i = 0; i < 20000; i++) {
		r = dice_roll(&d, 1000, 0, "dist1000");
		assert_in_range(r, 1, 1000);
		c100[r > 500]++;
	}
	assert_in_range(c100[0], 9300, 10700);
	dice_free(&d);
}

static void
test_scripted(void **state)
{
	static const int script[] = { 4, 1, 6, 20 };
	struct dice d;

	(void)state;
	dice_init_scripted(&d, script, 4);
	assert_int_equal(d.mode, DICE_SCRIPTED);
	assert_int_equal(dice_roll(&d, 6, 4, "a"), 4);
	assert_int_equal(dice_roll(&d, 6, 0, "b"), 1);
	assert_int_equal(dice_roll(&d, 6, 0, "c"), 6);
	assert_int_equal(dice_roll(&d, 20, 0, "d"), 20);
	assert_false(d.script_exhausted);
	assert_int_equal(dice_roll(&d, 6, 0, "e"), 1);
	assert_true(d.script_exhausted);
	assert_int_equal(dice_roll(&d, 6, 0, "f"), 1);
	assert_true(d.script_exhausted);
	assert_int_equal(d.nlog, 6);
	assert_int_equal(d.log[4].result, 1);
	assert_string_equal(d.log[5].purpose, "f");
	dice_free(&d);

	dice_init_scripted(&d, NULL, 0);
	assert_int_equal(dice_roll(&d, 2, 0, "empty"), 1);
	assert_true(d.script_exhausted);
	dice_free(&d);
}

static void
test_log(void **state)
{
	unsigned char key[DICE_KEYLEN];
	char longp[400], *utf;
	struct dice d;
	size_t i;
	int r;

	(void)state;
	vector_key(key);
	dice_init_stream(&d, key);
	r = dice_roll(&d, 6, 4, "attack 3-1 at 0512");
	assert_int_equal(d.nlog, 1);
	assert_int_equal(d.log[0].seq, 1);
	assert_string_equal(d.log[0].purpose, "attack 3-1 at 0512");
	assert_int_equal(d.log[0].sides, 6);
	assert_int_equal(d.log[0].target, 4);
	assert_int_equal(d.log[0].result, r);
	assert_int_equal(r, 3);

	/* Long purposes are truncated and NUL-terminated. */
	memset(longp, 'x', sizeof longp - 1);
	longp[sizeof longp - 1] = '\0';
	(void)dice_roll(&d, 20, 0, longp);
	assert_int_equal(strlen(d.log[1].purpose), DICE_PURPOSE_MAX - 1);
	assert_int_equal(d.log[1].seq, 2);

	/* Truncation never leaves half a UTF-8 sequence ("é" is c3 a9). */
	utf = longp;
	memset(utf, 'y', DICE_PURPOSE_MAX - 2);
	utf[DICE_PURPOSE_MAX - 2] = '\xc3';
	utf[DICE_PURPOSE_MAX - 1] = '\xa9';
	utf[DICE_PURPOSE_MAX] = '\0';
	(void)dice_roll(&d, 20, 0, utf);
	assert_int_equal(strlen(d.log[2].purpose), DICE_PURPOSE_MAX - 2);

	(void)dice_roll(&d, 20, 0, NULL);
	assert_string_equal(d.log[3].purpose, "");

	/* Grow past the initial capacity; seq stays 1-based and dense. */
	for (i = 0; i < 1000; i++)
		(void)dice_roll(&d, 6, 0, "grow");
	assert_int_equal(d.nlog, 1004);
	for (i = 0; i < d.nlog; i++)
		assert_int_equal(d.log[i].seq, (int)i + 1);
	assert_true(d.caplog >= d.nlog);
	dice_free(&d);
	assert_null(d.log);
	assert_int_equal(d.nlog, 0);
	for (i = 0; i < DICE_KEYLEN; i++)
		assert_int_equal(d.key[i], 0);
}

static void
test_new_seed(void **state)
{
	unsigned char a[DICE_SEEDLEN], b[DICE_SEEDLEN];

	(void)state;
	dice_new_seed(a);
	dice_new_seed(b);
	assert_memory_not_equal(a, b, DICE_SEEDLEN);
}

/* d10, 2d6, a shuffle and draws under K (docs/AUDIT.md, "Test vectors"). */
static void
test_game_dice_vectors(void **state)
{
	static const int d10[10] = { 3, 5, 8, 5, 7, 3, 7, 6, 8, 2 };
	static const int sums[5] = { 8, 7, 2, 9, 10 };
	static const int shuffled[52] = { 14, 38, 23, 6, 26, 42, 18, 51, 44,
	    35, 15, 30, 47, 25, 41, 37, 34, 33, 40, 17, 24, 2, 31, 1, 45, 10,
	    52, 36, 29, 3, 11, 28, 22, 19, 5, 50, 20, 12, 43, 27, 21, 4, 46, 48,
	    7, 16, 39, 13, 9, 8, 32, 49 };
	unsigned char key[DICE_KEYLEN];
	struct dice d;
	int deck[52], i;

	(void)state;
	vector_key(key);
	dice_init_stream(&d, key);
	for (i = 0; i < 10; i++)
		assert_int_equal(dice_roll(&d, 10, 0, "d10"), d10[i]);
	dice_free(&d);

	dice_init_stream(&d, key);
	for (i = 0; i < 5; i++)
		assert_int_equal(dice_roll_sum(&d, 2, 6, "2d6"), sums[i]);
	assert_int_equal(d.nlog, 10);
	assert_string_equal(d.log[0].purpose, "2d6 (die 1 of 2)");
	assert_string_equal(d.log[9].purpose, "2d6 (die 2 of 2)");
	assert_int_equal(d.log[0].result + d.log[1].result, 8);
	dice_free(&d);

	dice_init_stream(&d, key);
	for (i = 0; i < 52; i++)
		deck[i] = i + 1;
	dice_shuffle(&d, deck, 52, "deck");
	assert_memory_equal(deck, shuffled, sizeof deck);
	assert_int_equal(d.nlog, 51);
	assert_int_equal(d.log[0].sides, 52);
	assert_int_equal(d.log[50].sides, 2);
	assert_string_equal(d.log[0].purpose, "deck (shuffle, card 52)");
	dice_free(&d);

	dice_init_stream(&d, key);
	assert_int_equal(dice_draw(&d, 52, "draw"), 48);
	assert_int_equal(dice_draw(&d, 51, "draw"), 31);
	assert_int_equal(dice_draw(&d, 50, "draw"), 7);
	assert_int_equal(dice_draw(&d, 1, "last card"), 0);
	assert_int_equal(d.nlog, 3);
	dice_free(&d);
}

/* Sealed dice (docs/AUDIT.md, "Sealed dice"): the set seed 80 81 .. 9f of
 * set 1 under the window key K of the vectors. */
static void
sealed_vector_dice(struct dice *d, unsigned char *key)
{
	unsigned char seed[32], s1[32];
	unsigned char hashes[2][32];
	int i;

	for (i = 0; i < 32; i++) {
		seed[i] = (unsigned char)i;
		s1[i] = (unsigned char)(0x80 + i);
	}
	memset(hashes[0], 0x11, 32);
	memset(hashes[1], 0x22, 32);
	dice_derive_key(seed, V_CAMPAIGN, 3, 1,
	    (const unsigned char (*)[32])hashes, 2, key);
	dice_init_stream(d, key);
	dice_sealed_enable(d, 1, s1);
}

static void
test_sealed_vectors(void **state)
{
	unsigned char key[DICE_KEYLEN], s1[32], out[32];
	struct dice d;
	int want[6] = { 4, 1, 1, 4, 4, 2 }, i;

	(void)state;
	sealed_vector_dice(&d, key);
	for (i = 0; i < 32; i++)
		s1[i] = (unsigned char)(0x80 + i);
	dice_commit(s1, out);
	assert_hex(out, "d85fe68025072647be4eb4d0129f83cc"
	    "5f056e7939edc3f51c9cdae3266dcdbf", 32);
	dice_sealed_key(s1, key, out);
	assert_hex(out, "4ab1c968da11c0f62c0bdab4b9676742"
	    "b9c2e02d4624701e61a798c5a97db600", 32);
	for (i = 0; i < 6; i++)
		assert_int_equal(dice_roll_sealed(&d, 1, 6, 0, "s"), want[i]);
	dice_free(&d);
	sealed_vector_dice(&d, key);
	assert_int_equal(dice_draw_sealed(&d, 1, 6, "card"), 3);
	assert_int_equal(dice_draw_sealed(&d, 1, 5, "card"), 0);
	assert_int_equal(dice_draw_sealed(&d, 1, 4, "card"), 2);
	assert_int_equal(dice_draw_sealed(&d, 1, 1, "last card"), 0);
	assert_int_equal(d.nslog, 3);   /* a pile of one needs no roll */
	dice_free(&d);
	sealed_order_commitment("blue", "n-1", out);
	assert_hex(out, "308b4267b16b3acf7b5a3294a75608ff"
	    "c8ab7ef123950b374d0cbe8523375d1e", 32);
	sealed_order_commitment("blue", "", out);
	assert_hex(out, "c942cf2d3f421591df38087d99a776a9"
	    "50a29b68d0a5de339f35e3b8431a9065", 32);
}

/* Sealed rolls leave the public stream and log alone, are numbered within
 * their set, and carry their set; scripted dice take the next value. */
static void
test_sealed_streams(void **state)
{
	unsigned char key[DICE_KEYLEN], s2[32];
	struct dice a, b;
	static const int script[] = { 2, 5, 3 };
	int i, ra[4], rb[4];

	(void)state;
	sealed_vector_dice(&a, key);
	sealed_vector_dice(&b, key);
	memset(s2, 0x42, sizeof s2);
	dice_sealed_enable(&b, 2, s2);
	/* a: public only; b: public and sealed rolls interleaved. */
	for (i = 0; i < 4; i++)
		ra[i] = dice_roll(&a, 6, 0, "public");
	for (i = 0; i < 4; i++) {
		rb[i] = dice_roll(&b, 6, 0, "public");
		dice_roll_sealed(&b, 1, 6, 0, "for blue");
		dice_roll_sealed(&b, 2, 20, 0, "for red");
	}
	assert_memory_equal(ra, rb, sizeof ra);
	assert_int_equal(b.nlog, 4);
	assert_int_equal(b.nslog, 8);
	for (i = 0; i < 8; i++) {
		assert_true(b.slog[i].sealed);
		assert_int_equal(b.slog[i].visible, i % 2 ? 2u : 1u);
		assert_int_equal(b.slog[i].seq, i / 2 + 1);
		assert_int_equal(b.log[i / 2].visible, DICE_ALL_SIDES);
		assert_false(b.log[i / 2].sealed);
	}
	dice_free(&a);
	dice_free(&b);
	dice_init_scripted(&a, script, 3);
	assert_int_equal(dice_roll(&a, 6, 0, "p"), 2);
	assert_int_equal(dice_roll_sealed(&a, 3, 6, 0, "s"), 5);
	assert_int_equal(dice_draw_sealed(&a, 1, 6, "card"), 2);
	assert_int_equal(a.nlog, 1);
	assert_int_equal(a.nslog, 2);
	dice_free(&a);
}

/* An event citing rolls 3..5 of set 2 cites exactly those (G6). */
static void
test_event_roll_range(void **state)
{
	struct events ev;

	(void)state;
	events_init(&ev);
	events_add_rolls(&ev, 3, 2, 3, 3, "three sealed rolls");
	events_add(&ev, 3, 4, "one public roll");
	assert_false(events_cites(&ev.v[0], 2, 2));
	assert_true(events_cites(&ev.v[0], 2, 3));
	assert_true(events_cites(&ev.v[0], 2, 5));
	assert_false(events_cites(&ev.v[0], 2, 6));
	assert_false(events_cites(&ev.v[0], 0, 4));
	assert_true(events_cites(&ev.v[1], 0, 4));
	assert_false(events_cites(&ev.v[1], 0, 5));
	events_free(&ev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_vector),
		cmocka_unit_test(test_seed_from_master_vectors),
		cmocka_unit_test(test_derive_key_vectors),
		cmocka_unit_test(test_stream_vectors),
		cmocka_unit_test(test_game_dice_vectors),
		cmocka_unit_test(test_block_boundary),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_rejection_d6),
		cmocka_unit_test(test_rejection_two_byte),
		cmocka_unit_test(test_d65536),
		cmocka_unit_test(test_distribution),
		cmocka_unit_test(test_scripted),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_new_seed),
		cmocka_unit_test(test_sealed_vectors),
		cmocka_unit_test(test_sealed_streams),
		cmocka_unit_test(test_event_roll_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
