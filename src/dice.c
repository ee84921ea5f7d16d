/* dice: deterministic, auditable dice. The byte-exact scheme (seeds,
 * commitments, key derivation, stream and rejection sampling) is specified
 * in docs/AUDIT.md; changing the scheme means new "-v2" domain tags and a
 * matching update of that document and its test vectors. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "dice.h"
#include "hexpost.h"

#define TAG_COMMIT "hexpost-commit-v1"
#define TAG_SEED "hexpost-seed-v1"
#define TAG_DICE "hexpost-dice-v1"
#define TAG_STREAM "hexpost-stream-v1"
#define TAG_SEALED "hexpost-sealed-v1"

#define MASTER_MIN crypto_generichash_KEYBYTES_MIN	/* 16 */
#define MASTER_MAX crypto_generichash_KEYBYTES_MAX	/* 64 */

/* Initialise libsodium once; failure leaves us without a safe RNG. */
static void
dice_sodium_init(void)
{
	if (sodium_init() < 0)
		fatalx("dice: sodium_init failed");
}

static void
put_u32be(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void
put_u64be(unsigned char *p, uint64_t v)
{
	put_u32be(p, (uint32_t)(v >> 32));
	put_u32be(p + 4, (uint32_t)v);
}

/* Start a BLAKE2b hash of outlen bytes, keyed if keylen > 0. */
static void
gh_init(crypto_generichash_state *st, const unsigned char *key, size_t keylen,
    size_t outlen)
{
	if (crypto_generichash_init(st, keylen ? key : NULL, keylen,
	    outlen) != 0)
		fatalx("dice: crypto_generichash_init(%zu, %zu)", keylen,
		    outlen);
}

static void
gh_update(crypto_generichash_state *st, const void *p, size_t n)
{
	if (crypto_generichash_update(st, p, n) != 0)
		fatalx("dice: crypto_generichash_update");
}

/* Feed a NUL-terminated string including its terminating 0x00 byte. */
static void
gh_update_str0(crypto_generichash_state *st, const char *s)
{
	gh_update(st, s, strlen(s) + 1);
}

static void
gh_update_u32be(crypto_generichash_state *st, uint32_t v)
{
	unsigned char b[4];

	put_u32be(b, v);
	gh_update(st, b, sizeof b);
}

/* Finish the hash and wipe the state (it holds key material). */
static void
gh_final(crypto_generichash_state *st, unsigned char *out, size_t outlen)
{
	if (crypto_generichash_final(st, out, outlen) != 0)
		fatalx("dice: crypto_generichash_final");
	sodium_memzero(st, sizeof *st);
}

/* Turn and window numbers are never negative; a negative one is a bug. */
static uint32_t
nonneg_u32(int v, const char *what)
{
	if (v < 0)
		fatalx("dice: negative %s %d", what, v);
	return (uint32_t)v;
}

void
dice_new_seed(unsigned char *seed)
{
	dice_sodium_init();
	randombytes_buf(seed, DICE_SEEDLEN);
}

void
dice_commit(const unsigned char *seed, unsigned char *out32)
{
	crypto_generichash_state st;

	dice_sodium_init();
	gh_init(&st, NULL, 0, 32);
	gh_update_str0(&st, TAG_COMMIT);
	gh_update(&st, seed, DICE_SEEDLEN);
	gh_final(&st, out32, 32);
}

/* Master seeds of 16..64 bytes key BLAKE2b directly; any other length is
 * first reduced with unkeyed BLAKE2b-256 (see docs/AUDIT.md). */
void
dice_seed_from_master(const unsigned char *master, size_t masterlen,
    const char *campaign, int turn, int window, unsigned char *seed)
{
	crypto_generichash_state st;
	unsigned char hkey[32];
	const unsigned char *key = master;
	size_t keylen = masterlen;
	uint32_t t, w;

	dice_sodium_init();
	t = nonneg_u32(turn, "turn");
	w = nonneg_u32(window, "window");
	if (masterlen < MASTER_MIN || masterlen > MASTER_MAX) {
		gh_init(&st, NULL, 0, sizeof hkey);
		gh_update(&st, master, masterlen);
		gh_final(&st, hkey, sizeof hkey);
		key = hkey;
		keylen = sizeof hkey;
	}
	gh_init(&st, key, keylen, DICE_SEEDLEN);
	gh_update_str0(&st, TAG_SEED);
	gh_update_str0(&st, campaign);
	gh_update_u32be(&st, t);
	gh_update_u32be(&st, w);
	gh_final(&st, seed, DICE_SEEDLEN);
	sodium_memzero(hkey, sizeof hkey);
}

/* Bind a window's dice to its seed, context and the accepted orders. */
void
dice_derive_key(const unsigned char *seed, const char *campaign, int turn,
    int window, const unsigned char (*hashes)[32], size_t nhash,
    unsigned char *key)
{
	crypto_generichash_state st;
	uint32_t t, w;
	size_t i;

	dice_sodium_init();
	t = nonneg_u32(turn, "turn");
	w = nonneg_u32(window, "window");
	if (nhash > UINT32_MAX)
		fatalx("dice: %zu order hashes", nhash);
	if (nhash > 0 && hashes == NULL)
		fatalx("dice: NULL order hashes");
	gh_init(&st, seed, DICE_SEEDLEN, DICE_KEYLEN);
	gh_update_str0(&st, TAG_DICE);
	gh_update_str0(&st, campaign);
	gh_update_u32be(&st, t);
	gh_update_u32be(&st, w);
	gh_update_u32be(&st, (uint32_t)nhash);
	for (i = 0; i < nhash; i++)
		gh_update(&st, hashes[i], 32);
	gh_final(&st, key, DICE_KEYLEN);
}

void
dice_init_stream(struct dice *d, const unsigned char *key)
{
	dice_sodium_init();
	memset(d, 0, sizeof *d);
	d->mode = DICE_STREAM;
	memcpy(d->key, key, DICE_KEYLEN);
	d->block = 0;
	d->bufpos = sizeof d->buf;	/* empty: first byte fetches block 0 */
}

void
dice_init_scripted(struct dice *d, const int *script, size_t n)
{
	if (n > 0 && script == NULL)
		fatalx("dice: NULL script of %zu rolls", n);
	memset(d, 0, sizeof *d);
	d->mode = DICE_SCRIPTED;
	d->script = script;
	d->nscript = n;
	d->scriptpos = 0;
	d->script_exhausted = false;
	d->bufpos = sizeof d->buf;
}

/* Free the roll log and wipe the key and any buffered stream bytes. */
void
dice_free(struct dice *d)
{
	if (d == NULL)
		return;
	free(d->log);
	free(d->slog);
	sodium_memzero(d, sizeof *d);
}

/* Next byte of a stream keyed by key; block i is BLAKE2b-512(key, tag ||
 * 0x00 || u64be(i)). The public and every sealed stream work alike. */
static unsigned char
dice_byte(const unsigned char *key, uint64_t *block, unsigned char *buf,
    size_t *bufpos)
{
	crypto_generichash_state st;
	unsigned char ctr[8];

	if (*bufpos >= 64) {
		if (*block == UINT64_MAX)
			fatalx("dice: stream exhausted");
		put_u64be(ctr, *block);
		gh_init(&st, key, DICE_KEYLEN, 64);
		gh_update_str0(&st, TAG_STREAM);
		gh_update(&st, ctr, sizeof ctr);
		gh_final(&st, buf, 64);
		(*block)++;
		*bufpos = 0;
	}
	return buf[(*bufpos)++];
}

/* Unbiased 1..sides from a stream by rejection sampling. */
static int
dice_stream_roll(const unsigned char *key, uint64_t *block,
    unsigned char *buf, size_t *bufpos, int sides)
{
	uint32_t n = (uint32_t)sides, limit, v;

	if (n <= 256) {
		limit = 256 - (256 % n);
		do
			v = dice_byte(key, block, buf, bufpos);
		while (v >= limit);
	} else {
		limit = 65536 - (65536 % n);
		do {
			v = (uint32_t)dice_byte(key, block, buf, bufpos) << 8;
			v |= dice_byte(key, block, buf, bufpos);
		} while (v >= limit);
	}
	return (int)(v % n) + 1;
}

/* Next scripted result; past the end 1 and the exhausted flag. */
static int
dice_script_roll(struct dice *d, int sides)
{
	int r;

	if (d->scriptpos >= d->nscript) {
		d->script_exhausted = true;
		return 1;
	}
	r = d->script[d->scriptpos++];
	if (r < 1 || r > sides)
		fatalx("dice: scripted roll %zu is %d, not in 1..%d",
		    d->scriptpos, r, sides);
	return r;
}

/* Copy purpose, cutting a truncated UTF-8 sequence back to a boundary. */
static void
dice_copy_purpose(char *dst, const char *src)
{
	size_t len, i, need;
	unsigned char c;

	if (src == NULL)
		src = "";
	if (strlcpy_(dst, src, DICE_PURPOSE_MAX) < DICE_PURPOSE_MAX)
		return;
	len = strlen(dst);
	i = len;
	while (i > 0 && ((unsigned char)dst[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0)
		return;
	c = (unsigned char)dst[i - 1];
	if (c < 0x80)
		return;
	if ((c & 0xe0) == 0xc0)
		need = 2;
	else if ((c & 0xf0) == 0xe0)
		need = 3;
	else if ((c & 0xf8) == 0xf0)
		need = 4;
	else
		return;
	if (len - (i - 1) < need)
		dst[i - 1] = '\0';
}

/* A new zeroed entry at the end of the roll array *v (n used, cap
 * allocated), grown as needed; what names it in messages. */
static struct dice_roll *
dice_entry(struct dice_roll **v, size_t *n, size_t *cap, const char *what)
{
	struct dice_roll *r;
	size_t ncap;

	if (*n >= (size_t)INT_MAX)
		fatalx("dice: too many %s", what);
	if (*n == *cap) {
		ncap = *cap ? *cap * 2 : 32;
		if (ncap > SIZE_MAX / sizeof **v)
			fatalx("dice: %s overflow", what);
		*v = xrealloc(*v, ncap * sizeof **v);
		*cap = ncap;
	}
	r = &(*v)[(*n)++];
	memset(r, 0, sizeof *r);
	return r;
}

struct dice_roll *
dice_log_entry(struct dice *d)
{
	return dice_entry(&d->log, &d->nlog, &d->caplog, "rolls");
}

static void
dice_log_append(struct dice *d, int sides, int target, int result,
    const char *purpose)
{
	struct dice_roll *r = dice_log_entry(d);

	r->seq = (int)d->nlog;
	dice_copy_purpose(r->purpose, purpose);
	r->sides = sides;
	r->target = target;
	r->result = result;
	r->visible = DICE_ALL_SIDES;
}

int
dice_roll(struct dice *d, int sides, int target, const char *purpose)
{
	int r;

	if (sides < 2 || sides > 65536)
		fatalx("dice: %d-sided die", sides);
	if (d->mode == DICE_SCRIPTED)
		r = dice_script_roll(d, sides);
	else if (d->mode == DICE_STREAM)
		r = dice_stream_roll(d->key, &d->block, d->buf, &d->bufpos,
		    sides);
	else
		fatalx("dice: bad mode %d", (int)d->mode);
	dice_log_append(d, sides, target, r, purpose);
	return r;
}

void
dice_sealed_key(const unsigned char *set_seed, const unsigned char *wkey,
    unsigned char *out32)
{
	crypto_generichash_state st;

	dice_sodium_init();
	gh_init(&st, set_seed, 32, DICE_KEYLEN);
	gh_update_str0(&st, TAG_SEALED);
	gh_update(&st, wkey, DICE_KEYLEN);
	gh_final(&st, out32, DICE_KEYLEN);
}

void
dice_sealed_enable(struct dice *d, unsigned mask, const unsigned char *set_seed)
{
	if (mask == 0 || mask >= DICE_SEALED_SETS)
		fatalx("dice: sealed set %#x", mask);
	memcpy(d->sealed_seed[mask], set_seed, DICE_SEEDLEN);
	d->sealed_on |= 1u << mask;
}

struct dice_roll *
dice_slog_entry(struct dice *d)
{
	return dice_entry(&d->slog, &d->nslog, &d->capslog, "sealed rolls");
}

int
dice_roll_sealed(struct dice *d, unsigned visible, int sides, int target,
    const char *purpose)
{
	struct dice_stream *s;
	struct dice_roll *e;
	int r;

	if (sides < 2 || sides > 65536)
		fatalx("dice: %d-sided sealed die", sides);
	if (visible == 0 || visible >= DICE_SEALED_SETS)
		fatalx("dice: sealed roll shown to side set %#x", visible);
	s = &d->sealed[visible];
	if (d->mode == DICE_SCRIPTED)
		r = dice_script_roll(d, sides);
	else if (d->mode == DICE_STREAM) {
		if (!(d->sealed_on & (1u << visible)))
			fatalx("dice: sealed roll for set %#x without its seed",
			    visible);
		if (!s->ready) {
			dice_sealed_key(d->sealed_seed[visible], d->key, s->key);
			s->block = 0;
			s->bufpos = sizeof s->buf;
			s->ready = true;
		}
		r = dice_stream_roll(s->key, &s->block, s->buf, &s->bufpos,
		    sides);
	} else
		fatalx("dice: bad mode %d", (int)d->mode);
	e = dice_slog_entry(d);
	e->seq = ++s->n;
	dice_copy_purpose(e->purpose, purpose);
	e->sides = sides;
	e->target = target;
	e->result = r;
	e->visible = visible;
	e->sealed = true;
	return r;
}

int
dice_draw_sealed(struct dice *d, unsigned visible, int n, const char *purpose)
{
	if (n < 1 || n > 65536)
		fatalx("dice: sealed draw from %d cards", n);
	if (n == 1)
		return 0;
	return dice_roll_sealed(d, visible, n, 0, purpose) - 1;
}

int
dice_roll_sum(struct dice *d, int count, int sides, const char *purpose)
{
	char p[DICE_PURPOSE_MAX + 32];
	int i, sum = 0;

	if (count < 1 || count > 1000)
		fatalx("dice: %d dice", count);
	for (i = 1; i <= count; i++) {
		snprintf(p, sizeof p, "%s (die %d of %d)", purpose ? purpose :
		    "", i, count);
		sum += dice_roll(d, sides, 0, p);
	}
	return sum;
}

void
dice_shuffle(struct dice *d, int *deck, int n, const char *purpose)
{
	char p[DICE_PURPOSE_MAX + 32];
	int i, j, t;

	if (n < 0 || n > 65536)
		fatalx("dice: shuffle of %d cards", n);
	for (i = n - 1; i >= 1; i--) {
		snprintf(p, sizeof p, "%s (shuffle, card %d)", purpose ?
		    purpose : "", i + 1);
		j = dice_roll(d, i + 1, 0, p) - 1;
		t = deck[i];
		deck[i] = deck[j];
		deck[j] = t;
	}
}

int
dice_draw(struct dice *d, int n, const char *purpose)
{
	if (n < 1 || n > 65536)
		fatalx("dice: draw from %d cards", n);
	if (n == 1)
		return 0;
	return dice_roll(d, n, 0, purpose) - 1;
}
