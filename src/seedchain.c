/* seedchain: a campaign's window seeds, fixed at its creation (see
 * include/seedchain.h, docs/AUDIT.md "Seed chain"). */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "seedchain.h"

#define LINK_TAG "hexpost-chain-v1"

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

int
seedchain_create(struct store *st, int64_t cid, const char *campaign,
    const unsigned char *master, size_t masterlen, struct hp_error *err)
{
	struct seedchain c;
	struct sbuf text;
	unsigned char tail[32];
	int rc;

	memset(&c, 0, sizeof c);
	sbuf_init(&text);
	strlcpy_(c.campaign, campaign, sizeof c.campaign);
	c.test = master != NULL && masterlen > 0;
	c.length = SEEDCHAIN_LENGTH;
	if (c.test)	/* turn 0 window 0 names no window */
		dice_seed_from_master(master, masterlen, campaign, 0, 0, tail);
	else
		dice_new_seed(tail);
	seedchain_seed(tail, c.length, 0, c.head);
	seedchain_format(&c, &text);
	rc = store_chain_put(st, cid, tail, c.length, text.buf, err);
	sodium_memzero(tail, sizeof tail);
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
	int rc;

	if ((rc = store_chain_get(st, cid, &sc, err)) != HP_OK)
		return rc;
	if (k < 1 || k > sc.length) {
		hp_seterr(err, HP_ESTATE, "window %d needs seed %d, but the "
		    "campaign's seed chain has %d seeds", k, k, sc.length);
		rc = HP_ESTATE;
	} else
		seedchain_seed(sc.tail, sc.length, k, seed);
	store_chain_free(&sc);
	return rc;
}
