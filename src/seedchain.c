/* seedchain: a campaign's window seeds, fixed at its creation (see
 * include/seedchain.h, docs/AUDIT.md "Seed chain").
 *
 * The mark (migration 26, issue 17): seed k is the tail hashed N - k times,
 * 65,536 links (about 20 ms of CPU) for an early window, each time a window
 * opens. Drawing seed k from the tail also keeps seed k + SEEDCHAIN_MARK_SPAN
 * (or the tail) in the campaign's row (chain_mark_k, chain_mark: the seed
 * and a tag, the hash of the tail it came from); the next windows' seeds
 * are drawn from the mark, at most SEEDCHAIN_MARK_SPAN links away, until
 * the mark is passed and a new one is drawn from the tail. The seeds are
 * the same whichever way they are drawn (the chain is fixed); a mark whose
 * tag is not the tail's (a chain replaced) is ignored. It is written in
 * the caller's transaction (the window's opening): a rollback takes it
 * back with the window. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "dice.h"
#include "seedchain.h"

#define LINK_TAG "hexpost-chain-v1"
#define MARK_TAG "hexpost-chain-mark-v1"
/* How far after the seed drawn from the tail the mark is kept: a window
 * costs at most this many links, plus N / SPAN amortized. */
#define SEEDCHAIN_MARK_SPAN 256

void
seedchain_link(const unsigned char *seed, unsigned char *out32)
{
	crypto_generichash_state h;

	crypto_generichash_init(&h, NULL, 0, 32);
	crypto_generichash_update(&h, (const unsigned char *)LINK_TAG,
	    sizeof LINK_TAG);	/* with its NUL */
	crypto_generichash_update(&h, seed, 32);
	crypto_generichash_final(&h, out32, 32);
	sodium_memzero(&h, sizeof h);
}

void
seedchain_seed(const unsigned char *tail, int length, int k,
    unsigned char *out32)
{
	unsigned char cur[32];
	int i;

	if (k < 0 || k > length)
		fatalx("seedchain_seed: seed %d of a chain of %d", k, length);
	memcpy(cur, tail, 32);
	for (i = length; i > k; i--)
		seedchain_link(cur, cur);
	memcpy(out32, cur, 32);
	sodium_memzero(cur, sizeof cur);
}

void
seedchain_format(const struct seedchain *c, struct sbuf *out)
{
	char hex[65];

	sodium_bin2hex(hex, sizeof hex, c->head, 32);
	sbuf_printf(out, SEEDCHAIN_MAGIC "\ncampaign: %s\ndice: %s\n"
	    "length: %d\nhead: %s\nend\n", c->campaign, c->test ? "test" :
	    "random", c->length, hex);
}

int
seedchain_parse(const char *text, struct seedchain *c, struct hp_error *err)
{
	const char *p = text;
	char dice[16], len[16], head[80];
	struct sbuf canon;
	size_t bin = 0;
	char *end;
	long n;
	int rc = HP_EINVAL;

	memset(c, 0, sizeof *c);
	sbuf_init(&canon);
	if (strncmp(p, SEEDCHAIN_MAGIC "\n", sizeof SEEDCHAIN_MAGIC) != 0)
		goto bad;
	p += sizeof SEEDCHAIN_MAGIC;
	if (!util_field(&p, "campaign", c->campaign, sizeof c->campaign) ||
	    !util_field(&p, "dice", dice, sizeof dice) ||
	    !util_field(&p, "length", len, sizeof len) ||
	    !util_field(&p, "head", head, sizeof head) ||
	    strcmp(p, "end\n") != 0)
		goto bad;
	if (strcmp(dice, "test") != 0 && strcmp(dice, "random") != 0)
		goto bad;
	/* A campaign name: no space, control byte, ':' or '#'. */
	for (end = c->campaign; *end != '\0'; end++)
		if ((unsigned char)*end <= 0x20 || *end == 0x7f || *end == ':' ||
		    *end == '#')
			goto bad;
	if (c->campaign[0] == '\0')
		goto bad;
	c->test = dice[0] == 't';
	n = strtol(len, &end, 10);
	if (*end != '\0' || n < 1 || n > 1000000000L)
		goto bad;
	c->length = (int)n;
	if (strlen(head) != 64 || sodium_hex2bin(c->head, 32, head, 64, NULL,
	    &bin, NULL) != 0 || bin != 32)
		goto bad;
	seedchain_format(c, &canon);
	if (strcmp(canon.buf, text) != 0)
		goto bad;
	rc = HP_OK;
	goto out;
bad:
	hp_seterr(err, HP_EINVAL, "the seed chain statement is not in the "
	    "canonical form of docs/AUDIT.md, \"Seed chain\"");
out:
	sbuf_free(&canon);
	return rc;
}

void
seedchain_trusted_comment(const struct seedchain *c, char *buf, size_t len)
{
	snprintf(buf, len, "hexpost seed chain: campaign %s, %d seeds, %s dice",
	    c->campaign, c->length, c->test ? "test" : "random");
}

/* The tag that ties a mark to the tail it was drawn from. */
static void
mark_tag(const unsigned char *tail, unsigned char *out32)
{
	unsigned char in[sizeof MARK_TAG + 32];

	memcpy(in, MARK_TAG, sizeof MARK_TAG);	/* with its NUL */
	memcpy(in + sizeof MARK_TAG, tail, 32);
	crypto_generichash(out32, 32, in, sizeof in, NULL, 0);
	sodium_memzero(in, sizeof in);
}

/* Campaign cid's mark if it belongs to tail: *mk (0 when there is none or
 * it is not the tail's) and the seed in mseed. HP_OK or HP_EDB. */
static int
mark_get(struct store *st, int64_t cid, const unsigned char *tail, int *mk,
    unsigned char *mseed, struct hp_error *err)
{
	struct store_query q;
	unsigned char tag[32];

	*mk = 0;
	if (store_query_open(&q, st, "load seed chain mark", "SELECT "
	    "chain_mark_k, chain_mark FROM campaigns WHERE id = ?1",
	    STORE_ARGS(STORE_INT(cid)), err) != HP_OK)
		return HP_EDB;
	if (store_query_next(&q, err) &&
	    sqlite3_column_type(q.s, 0) == SQLITE_INTEGER &&
	    sqlite3_column_type(q.s, 1) == SQLITE_BLOB &&
	    sqlite3_column_bytes(q.s, 1) == 64) {
		const unsigned char *b = sqlite3_column_blob(q.s, 1);

		mark_tag(tail, tag);
		if (sodium_memcmp(b + 32, tag, 32) == 0) {
			*mk = sqlite3_column_int(q.s, 0);
			memcpy(mseed, b, 32);
		}
	}
	return store_query_close(&q, err);
}

/* Keep seed mk (mseed) of the chain ending in tail as campaign cid's
 * mark, in the caller's transaction. */
static int
mark_put(struct store *st, int64_t cid, const unsigned char *tail, int mk,
    const unsigned char *mseed, struct hp_error *err)
{
	unsigned char b[64];
	int rc;

	memcpy(b, mseed, 32);
	mark_tag(tail, b + 32);
	rc = store_exec(st, "store seed chain mark", "UPDATE campaigns SET "
	    "chain_mark_k = ?2, chain_mark = ?3 WHERE id = ?1",
	    STORE_ARGS(STORE_INT(cid), STORE_INT(mk), STORE_BLOB(b, 64)), NULL,
	    err);
	sodium_memzero(b, sizeof b);
	return rc;
}

int
seedchain_create(struct store *st, int64_t cid, const char *campaign,
    const unsigned char *master, size_t masterlen, struct hp_error *err)
{
	struct seedchain c;
	struct sbuf text;
	unsigned char tail[32], cur[32], mseed[32];
	int rc, mk, i;

	memset(&c, 0, sizeof c);
	sbuf_init(&text);
	strlcpy_(c.campaign, campaign, sizeof c.campaign);
	c.test = master != NULL && masterlen > 0;
	c.length = SEEDCHAIN_LENGTH;
	if (c.test)	/* turn 0 window 0 names no window */
		dice_seed_from_master(master, masterlen, campaign, 0, 0, tail);
	else
		dice_new_seed(tail);
	/* The head, keeping on the way the mark the first windows' seeds
	 * are drawn from. */
	mk = 1 + SEEDCHAIN_MARK_SPAN < c.length ? 1 + SEEDCHAIN_MARK_SPAN :
	    c.length;
	memcpy(cur, tail, 32);
	memcpy(mseed, tail, 32);
	for (i = c.length; i > 0; i--) {
		if (i == mk)
			memcpy(mseed, cur, 32);
		seedchain_link(cur, cur);
	}
	memcpy(c.head, cur, 32);
	seedchain_format(&c, &text);
	rc = store_chain_put(st, cid, tail, c.length, text.buf, err);
	if (rc == HP_OK)
		rc = mark_put(st, cid, tail, mk, mseed, err);
	sodium_memzero(tail, sizeof tail);
	sodium_memzero(cur, sizeof cur);
	sodium_memzero(mseed, sizeof mseed);
	sbuf_free(&text);
	return rc;
}

int
seedchain_sign(struct store *st, const char *campaign,
    const struct minisign_seckey *sk, struct hp_error *err)
{
	struct store_chain sc;
	struct seedchain c;
	struct minisign_pubkey pk;
	struct game g;
	char tc[256], pub[256], *sig = NULL;
	int64_t cid;
	int rc;

	game_init(&g);
	memset(&sc, 0, sizeof sc);
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = store_game_load(st, campaign, &g, &cid, err)) != HP_OK ||
	    (rc = store_chain_get(st, cid, &sc, err)) != HP_OK ||
	    (rc = seedchain_parse(sc.statement, &c, err)) != HP_OK)
		goto rollback;
	seedchain_trusted_comment(&c, tc, sizeof tc);
	if ((rc = minisign_sign_text(sk, (const unsigned char *)sc.statement,
	    strlen(sc.statement), tc, &sig, err)) != HP_OK)
		goto rollback;
	minisign_seckey_pubkey(sk, &pk);
	minisign_pubkey_text(&pk, pub, sizeof pub);
	if ((rc = store_chain_sign(st, cid, sig, pub, err)) != HP_OK)
		goto rollback;
	rc = store_commit(st, err);
	goto out;
rollback:
	store_rollback(st);
out:
	free(sig);
	store_chain_free(&sc);
	game_free(&g);
	return rc;
}

int
seedchain_window_seed(struct store *st, int64_t cid, int k,
    unsigned char *seed, struct hp_error *err)
{
	struct store_chain sc;
	unsigned char cur[32], mseed[32];
	int rc, mk, target, i;

	if ((rc = store_chain_get(st, cid, &sc, err)) != HP_OK)
		return rc;
	if (k < 1 || k > sc.length) {
		hp_seterr(err, HP_ESTATE, "window %d needs seed %d, but the "
		    "campaign's seed chain has %d seeds", k, k, sc.length);
		rc = HP_ESTATE;
	} else if ((rc = mark_get(st, cid, sc.tail, &mk, mseed, err)) !=
	    HP_OK)
		;
	else if (mk >= k && mk <= sc.length)
		/* From the mark: seed k is seed mk hashed mk - k times. */
		seedchain_seed(mseed, mk, k, seed);
	else {
		/* From the tail, keeping the seed SPAN after k on the way. */
		target = k + SEEDCHAIN_MARK_SPAN < sc.length ?
		    k + SEEDCHAIN_MARK_SPAN : sc.length;
		memcpy(cur, sc.tail, 32);
		for (i = sc.length; i > k; i--) {
			if (i == target)
				memcpy(mseed, cur, 32);
			seedchain_link(cur, cur);
		}
		if (target == k)
			memcpy(mseed, cur, 32);
		memcpy(seed, cur, 32);
		rc = mark_put(st, cid, sc.tail, target, mseed, err);
	}
	sodium_memzero(cur, sizeof cur);
	sodium_memzero(mseed, sizeof mseed);
	store_chain_free(&sc);
	return rc;
}
