/* sealed: a campaign's sealed dice (see include/sealed.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "orders.h"
#include "sealed.h"

#define TAG_HIDDEN_ORDER "hexpost-hidden-order-v1"

void
sealed_set_sides(const struct game *g, unsigned mask, struct sbuf *out)
{
	bool first = true;
	int s;

	for (s = 0; s < g->nsides; s++)
		if (mask & (1u << s)) {
			sbuf_printf(out, "%s%s", first ? "" : "+",
			    g->sides[s].name);
			first = false;
		}
}

void
sealed_format(const struct game *g, bool test, unsigned mask,
    const unsigned char *seed, struct sbuf *out)
{
	unsigned char commit[32];
	char hex[65];

	dice_commit(seed, commit);
	sodium_bin2hex(hex, sizeof hex, commit, 32);
	sbuf_printf(out, SEALED_MAGIC "\ncampaign: %s\ndice: %s\nset: %u ",
	    g->name, test ? "test" : "random", mask);
	sealed_set_sides(g, mask, out);
	sbuf_printf(out, "\ncommitment: %s\nend\n", hex);
}

void
sealed_trusted_comment(const struct game *g, unsigned mask, char *buf,
    size_t len)
{
	struct sbuf b;

	sbuf_init(&b);
	sealed_set_sides(g, mask, &b);
	snprintf(buf, len, "hexpost sealed set: campaign %s, set %u (%s)",
	    g->name, mask, b.buf ? b.buf : "");
	sbuf_free(&b);
}

int
sealed_create(struct store *st, int64_t cid, const struct game *g,
    const unsigned char *master, size_t masterlen, struct hp_error *err)
{
	unsigned char seed[DICE_SEEDLEN];
	unsigned m;
	int rc = HP_OK;

	for (m = 1; m < (1u << g->nsides) && m < DICE_SEALED_SETS &&
	    rc == HP_OK; m++) {
		/* Turn 0 names no window: (0, m) differs from every window's
		 * and from the seed chain's (0, 0). */
		if (master != NULL && masterlen > 0)
			dice_seed_from_master(master, masterlen, g->name, 0,
			    (int)m, seed);
		else
			dice_new_seed(seed);
		rc = store_sealed_set_put(st, cid, m, seed, err);
	}
	sodium_memzero(seed, sizeof seed);
	return rc;
}

int
sealed_sign(struct store *st, const char *campaign,
    const struct minisign_seckey *sk, struct hp_error *err)
{
	struct store_sealed_set *v = NULL;
	struct minisign_pubkey pk;
	struct sbuf text;
	struct game g;
	unsigned char master[64];
	size_t mlen = sizeof master;
	char tc[256], pub[256], *sig = NULL;
	int64_t cid;
	int rc, n = 0, i;

	game_init(&g);
	sbuf_init(&text);
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = store_game_load(st, campaign, &g, &cid, err)) != HP_OK ||
	    (rc = store_master_seed(st, cid, master, &mlen, err)) != HP_OK ||
	    (rc = store_sealed_sets(st, cid, &v, &n, err)) != HP_OK)
		goto rollback;
	minisign_seckey_pubkey(sk, &pk);
	minisign_pubkey_text(&pk, pub, sizeof pub);
	for (i = 0; i < n; i++) {
		sbuf_free(&text);
		sealed_format(&g, mlen > 0, v[i].mask, v[i].seed, &text);
		sealed_trusted_comment(&g, v[i].mask, tc, sizeof tc);
		if ((rc = minisign_sign_text(sk, (const unsigned char *)
		    text.buf, text.len, tc, &sig, err)) != HP_OK)
			goto rollback;
		rc = store_sealed_set_sign(st, cid, v[i].mask, sig, pub, err);
		free(sig);
		sig = NULL;
		if (rc != HP_OK)
			goto rollback;
	}
	rc = store_commit(st, err);
	goto out;
rollback:
	store_rollback(st);
out:
	sodium_memzero(master, sizeof master);
	store_sealed_sets_free(v, n);
	sbuf_free(&text);
	game_free(&g);
	return rc;
}

int
sealed_enable(struct store *st, int64_t cid, struct dice *d,
    struct hp_error *err)
{
	struct store_sealed_set *v = NULL;
	int rc, n = 0, i;

	if ((rc = store_sealed_sets(st, cid, &v, &n, err)) != HP_OK)
		return rc;
	for (i = 0; i < n; i++)
		if (v[i].mask > 0 && v[i].mask < DICE_SEALED_SETS)
			dice_sealed_enable(d, v[i].mask, v[i].seed);
	store_sealed_sets_free(v, n);
	return HP_OK;
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
