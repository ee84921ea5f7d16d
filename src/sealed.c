/* sealed: a campaign's sealed dice (see include/sealed.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "orders.h"
#include "sealed.h"

#define TAG_HIDDEN_ORDER "hexpost-hidden-order-v1"

void
sealed_format(const struct game *g, bool test, const unsigned char *seed,
    struct sbuf *out)
{
	unsigned char sseed[32], commit[32];
	char hex[65];
	unsigned m;
	int s;

	sbuf_printf(out, SEALED_MAGIC "\ncampaign: %s\ndice: %s\nsides:",
	    g->name, test ? "test" : "random");
	for (s = 0; s < g->nsides; s++)
		sbuf_printf(out, " %s", g->sides[s].name);
	sbuf_puts(out, "\n");
	for (m = 1; m < (1u << g->nsides) && m < DICE_SEALED_SETS; m++) {
		dice_sealed_set_seed(seed, m, sseed);
		dice_commit(sseed, commit);
		sodium_bin2hex(hex, sizeof hex, commit, 32);
		sbuf_printf(out, "set: %u ", m);
		for (s = 0; s < g->nsides; s++)
			if (m & (1u << s))
				sbuf_printf(out, "%s%s", (m & ((1u << s) - 1)) ?
				    "+" : "", g->sides[s].name);
		sbuf_printf(out, " %s\n", hex);
	}
	sbuf_puts(out, "end\n");
	sodium_memzero(sseed, sizeof sseed);
}

void
sealed_trusted_comment(const char *campaign, char *buf, size_t len)
{
	snprintf(buf, len, "hexpost sealed dice: campaign %s", campaign);
}

int
sealed_create(struct store *st, int64_t cid, const struct game *g,
    const unsigned char *master, size_t masterlen, struct hp_error *err)
{
	unsigned char seed[DICE_SEEDLEN];
	int rc;

	/* Turn 0 window 1 names no window (turns start at 1) and differs from
	 * the seed chain's turn 0 window 0. */
	if (master != NULL && masterlen > 0)
		dice_seed_from_master(master, masterlen, g->name, 0, 1, seed);
	else
		dice_new_seed(seed);
	rc = store_sealed_seed_put(st, cid, seed, err);
	sodium_memzero(seed, sizeof seed);
	return rc;
}

int
sealed_statement(struct store *st, int64_t cid, const struct game *g,
    struct sbuf *out, struct hp_error *err)
{
	unsigned char seed[DICE_SEEDLEN], master[64];
	size_t mlen = sizeof master;
	int rc;

	if ((rc = store_sealed_seed_get(st, cid, seed, err)) != HP_OK)
		return rc;
	if ((rc = store_master_seed(st, cid, master, &mlen, err)) == HP_OK)
		sealed_format(g, mlen > 0, seed, out);
	sodium_memzero(seed, sizeof seed);
	sodium_memzero(master, sizeof master);
	return rc;
}

int
sealed_sign(struct store *st, const char *campaign,
    const struct minisign_seckey *sk, struct hp_error *err)
{
	struct minisign_pubkey pk;
	struct sbuf text;
	struct game g;
	char tc[256], pub[256], *sig = NULL;
	int64_t cid;
	int rc;

	game_init(&g);
	sbuf_init(&text);
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = store_game_load(st, campaign, &g, &cid, err)) != HP_OK)
		goto rollback;
	rc = sealed_statement(st, cid, &g, &text, err);
	if (rc == HP_ENOENT) {	/* no sealed dice: nothing to sign */
		rc = HP_OK;
		goto rollback;
	}
	if (rc != HP_OK)
		goto rollback;
	sealed_trusted_comment(g.name, tc, sizeof tc);
	if ((rc = minisign_sign_text(sk, (const unsigned char *)text.buf,
	    text.len, tc, &sig, err)) != HP_OK)
		goto rollback;
	minisign_seckey_pubkey(sk, &pk);
	minisign_pubkey_text(&pk, pub, sizeof pub);
	if ((rc = store_sealed_sign(st, cid, sig, pub, err)) != HP_OK)
		goto rollback;
	rc = store_commit(st, err);
	goto out;
rollback:
	store_rollback(st);
out:
	free(sig);
	sbuf_free(&text);
	game_free(&g);
	return rc;
}

void
sealed_order_commitment(const char *side, const char *nonce,
    unsigned char *out32)
{
	crypto_generichash_state st;

	if (sodium_init() < 0 ||
	    crypto_generichash_init(&st, NULL, 0, 32) != 0 ||
	    crypto_generichash_update(&st, (const unsigned char *)
	    TAG_HIDDEN_ORDER, sizeof TAG_HIDDEN_ORDER) != 0 ||
	    crypto_generichash_update(&st, (const unsigned char *)side,
	    strlen(side) + 1) != 0 ||
	    crypto_generichash_update(&st, (const unsigned char *)nonce,
	    strlen(nonce)) != 0 ||
	    crypto_generichash_final(&st, out32, 32) != 0)
		fatalx("sealed: BLAKE2b failed");
}

int
sealed_file_commitment(const char *raw, const char *side, unsigned char *out32)
{
	struct order_header h;
	struct order_body body = { NULL, 0 };
	struct order_errors errs;
	int rc;

	orders_errors_init(&errs);
	memset(&h, 0, sizeof h);
	rc = orders_parse_file(raw, strlen(raw), &h, &body, &errs);
	orders_body_free(&body);
	orders_errors_free(&errs);
	if (rc != HP_OK)
		return HP_EINVAL;
	sealed_order_commitment(side, h.nonce, out32);
	return HP_OK;
}
