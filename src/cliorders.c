/* cliorders: order files entered on the command line (see
 * include/cliorders.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliorders.h"
#include "minisign.h"

#define MAXPLAYERS 64

/* Does sig verify text with the key of one of the side's players? Its
 * index in p, or -1 (why in err). */
static int
signer(const struct store_player *p, int n, int side, const char *text,
    size_t len, const char *sig, struct hp_error *err)
{
	struct minisign_pubkey pk;
	struct minisign_sig s;
	int i;

	if (minisign_sig_parse(sig, strlen(sig), &s, err) != HP_OK)
		return -1;
	for (i = 0; i < n; i++) {
		if (p[i].side != side || p[i].pubkey[0] == '\0' ||
		    minisign_pubkey_parse(p[i].pubkey, strlen(p[i].pubkey), &pk,
		    NULL) != HP_OK || memcmp(pk.keyid, s.keyid,
		    sizeof pk.keyid) != 0)
			continue;
		if (minisign_verify(&pk, &s, (const unsigned char *)text, len,
		    err) == HP_OK)
			return i;
		return -1;
	}
	hp_seterr(err, HP_EINVAL, "it is signed by a key that is no player's "
	    "of that side");
	return -1;
}

int
cliorders_submit(struct store *st, const char *campaign, const char *text,
    size_t len, const char *sig, struct turn_submit *res,
    struct hp_error *err)
{
	struct store_player *p = NULL;
	struct hp_error verr = { 0, "" };
	struct game g;
	unsigned char hash[32];
	char *raw = NULL, who[512] = "";
	int64_t cid;
	int rc, n, i, side, keyed = 0, anykey = 0;

	game_init(&g);
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = turn_submit_tx(st, campaign, text, len, -1, 0, "cli", res,
	    err)) != HP_OK)
		goto rollback;
	side = res->side;
	if ((rc = store_game_load(st, campaign, &g, &cid, err)) != HP_OK)
		goto rollback;
	p = xcalloc(MAXPLAYERS, sizeof *p);
	if ((n = store_players_of(st, cid, p, MAXPLAYERS, err)) < 0) {
		rc = n;
		goto rollback;
	}
	if (n > MAXPLAYERS)
		n = MAXPLAYERS;
	for (i = 0; i < n; i++)
		if (p[i].pubkey[0] != '\0')
			anykey++;
	for (i = 0; i < n; i++)
		if (p[i].side == side && p[i].pubkey[0] != '\0') {
			keyed++;
			if (who[0] == '\0')
				snprintf(who, sizeof who, "%s (key %s)",
				    p[i].name, p[i].key_id);
		}
	/* The opponent's side of a player with a key; a campaign no such
	 * player plays is the operator's own (nobody to protect). */
	if (keyed == 0 && g.sides[side].ai && anykey > 0) {
		orders_error(&res->errs, 0, "%s is played by the built-in "
		    "opponent: hexpost writes its orders itself, and a file "
		    "entered by hand would let whoever runs the server choose "
		    "what enters the dice key (docs/AUDIT.md, \"Threat model\")",
		    g.sides[side].name);
		rc = HP_EINVAL;
		goto rollback;
	}
	if (keyed == 0)	/* the operator plays this side: counted unsigned */
		goto commit;
	if (sig == NULL) {
		orders_error(&res->errs, 0, "%s is played by %s: orders entered "
		    "on the command line for that side must carry the player's "
		    "signature (--sig FILE.minisig), or whoever runs the server "
		    "could choose what enters the dice key (docs/AUDIT.md, "
		    "\"Threat model\")", g.sides[side].name, who);
		rc = HP_EINVAL;
		goto rollback;
	}
	raw = xmalloc(len + 1);
	memcpy(raw, text, len);
	raw[len] = '\0';
	if ((i = signer(p, n, side, raw, strlen(raw), sig, &verr)) < 0) {
		orders_error(&res->errs, 0, "the signature does not verify with "
		    "the key of %s's player %s: %s", g.sides[side].name, who,
		    verr.msg);
		rc = HP_EINVAL;
		goto rollback;
	}
	window_order_hash(raw, hash);
	if ((rc = store_ordersig_put(st, hash, sig, strlen(sig), p[i].pubkey,
	    p[i].key_id, p[i].id, err)) != HP_OK)
		goto rollback;
commit:
	rc = store_commit(st, err);
	goto out;
rollback:
	store_rollback(st);
out:
	free(raw);
	free(p);
	game_free(&g);
	return rc;
}
