/* bench_audit: auditing versus processing. Generates about TURNS (argv[1],
 * default 1000) turns of fire-and-movement as a chain of campaigns in one
 * database (a game lasts about six turns, so one campaign cannot run to a
 * thousand): in each, Blue is a player whose orders (the built-in
 * opponent's suggestion plus a nonce) are signed with his minisign key and
 * Red is the built-in opponent. Processing is timed as the server does it:
 * creating the campaign, checking each order file's signature, accepting
 * it and storing its signature (one transaction), and resolving each
 * window with its dice log signed by the server key and its reports
 * rendered (one transaction each, synchronous=FULL). The player's side
 * (writing and signing orders) is not timed. Then, in the same run, every
 * campaign is audited with audit_campaign (signatures, chain, commitments,
 * every die, full replay with events and reports compared). Prints both
 * times and their ratio; the target is audit <= processing. TMPDIR picks
 * where the database goes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "audit.h"
#include "bench.h"
#include "engine.h"
#include "hexpost.h"
#include "minisign.h"
#include "sealed.h"
#include "seedchain.h"
#include "store.h"
#include "turn.h"

static void
die(const struct hp_error *err, const char *what)
{
	fprintf(stderr, "bench_audit: %s: %s\n", what, err->msg);
	exit(HP_EX_SOFTWARE);
}

/* Id of the latest player registered with key id keyid. */
static int64_t
last_player(struct store *st, const char *keyid)
{
	struct hp_error err = { 0, "" };
	struct store_player *v;
	int64_t id;
	int n;

	if ((n = store_players_by_key(st, keyid, NULL, 0, &err)) <= 0)
		die(&err, "players");
	v = xcalloc((size_t)n, sizeof *v);
	if (store_players_by_key(st, keyid, v, n, &err) != n)
		die(&err, "players");
	id = v[n - 1].id;
	free(v);
	return id;
}

/* Blue's signed order file for the open window (the player's work). */
static void
player_orders(struct store *st, const char *name,
    const struct minisign_seckey *psk, char **text, char **sig)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	unsigned char nonce[16];
	char hex[33];
	struct game g;
	struct sbuf b;
	int64_t cid;

	game_init(&g);
	if (store_game_load(st, name, &g, &cid, &err) != HP_OK ||
	    store_window_current(st, cid, &w, &err) != HP_OK)
		die(&err, "load");
	sbuf_init(&b);
	window_order_header(&g, &w.spec, 0, &b);
	randombytes_buf(nonce, sizeof nonce);
	sodium_bin2hex(hex, sizeof hex, nonce, sizeof nonce);
	sbuf_printf(&b, "nonce: %s\n", hex);
	g.rules->opponent(&g, &w.spec, 0, &b);
	*text = sbuf_steal(&b);
	if (minisign_sign_text(psk, (const unsigned char *)*text,
	    strlen(*text), NULL, sig, &err) != HP_OK)
		die(&err, "sign orders");
	game_free(&g);
}

/* The server takes in Blue's orders: signature, acceptance, record. */
static void
take_orders(struct store *st, const char *name, int64_t pid,
    const char *pubtext, const char *keyid, const char *text, const char *sig)
{
	struct hp_error err = { 0, "" };
	struct minisign_pubkey pk;
	struct minisign_sig s;
	struct turn_submit res;
	unsigned char h[32];

	if (minisign_pubkey_parse(pubtext, strlen(pubtext), &pk, &err) != HP_OK ||
	    minisign_sig_parse(sig, strlen(sig), &s, &err) != HP_OK ||
	    minisign_verify(&pk, &s, (const unsigned char *)text, strlen(text),
	    &err) != HP_OK)
		die(&err, "verify orders");
	turn_submit_init(&res);
	if (store_begin(st, &err) != HP_OK ||
	    turn_submit_tx(st, name, text, strlen(text), 0, pid, "mail", &res,
	    &err) != HP_OK)
		die(&err, "submit");
	window_order_hash(text, h);
	if (store_ordersig_put(st, h, sig, strlen(sig), pubtext, keyid, pid,
	    &err) != HP_OK || store_commit(st, &err) != HP_OK)
		die(&err, "record signature");
	turn_submit_free(&res);
}

int
main(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *sk, *psk;
	struct minisign_pubkey ppk;
	struct store *st;
	char dir[4096], path[4200], skp[4200], pkp[4200], pskp[4200],
	    ppkp[4200], keyid[17], *pubtext, *end;
	const char *tmp = getenv("TMPDIR");
	long target = 1000, turns = 0, windows = 0, rolls = 0;
	int games = 0, i;
	double t, proc = 0, aud = 0;

	if (argc > 2 || (argc == 2 && ((target = strtol(argv[1], &end, 10)) < 1
	    || *end != '\0' || target > 1000000))) {
		fprintf(stderr, "usage: bench_audit [TURNS]\n");
		return HP_EX_USAGE;
	}
	if (sodium_init() < 0)
		return HP_EX_SOFTWARE;
	engine_init();
	snprintf(dir, sizeof dir, "%s/hexpost-bench-audit.XXXXXX", tmp && *tmp ?
	    tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return HP_EX_IOERR;
	}
	snprintf(path, sizeof path, "%s/hexpost.db", dir);
	snprintf(skp, sizeof skp, "%s/server.key", dir);
	snprintf(pkp, sizeof pkp, "%s/server.pub", dir);
	snprintf(pskp, sizeof pskp, "%s/blue.key", dir);
	snprintf(ppkp, sizeof ppkp, "%s/blue.pub", dir);
	if (minisign_keygen(skp, pkp, NULL, &err) != HP_OK ||
	    minisign_keygen(pskp, ppkp, NULL, &err) != HP_OK ||
	    minisign_seckey_load(skp, &sk, &err) != HP_OK ||
	    minisign_seckey_load(pskp, &psk, &err) != HP_OK ||
	    (pubtext = util_read_file(ppkp, NULL, &err)) == NULL ||
	    minisign_pubkey_parse(pubtext, strlen(pubtext), &ppk, &err) !=
	    HP_OK)
		die(&err, "keys");
	minisign_keyid_hex(ppk.keyid, keyid);
	if (store_open(&st, path, true, &err) != HP_OK ||
	    store_migrate(st, &err) != HP_OK)
		die(&err, "database");

	while (turns < target) {
		char name[32];
		struct game g;
		int64_t cid, pid;
		int n;

		snprintf(name, sizeof name, "bench-%d", ++games);
		t = bench_now();
		game_init(&g);
		/* Signed at once, as 'hexpost campaign new' does with a
		 * server key (the audit refuses an unsigned seed chain). */
		if (turn_campaign_new(st, name, "fire-and-movement", NULL, NULL,
		    NULL, 0, &err) != HP_OK ||
		    seedchain_sign(st, name, sk, &err) != HP_OK ||
		    sealed_sign(st, name, sk, &err) != HP_OK ||
		    store_game_load(st, name, &g, &cid, &err) != HP_OK ||
		    store_begin(st, &err) != HP_OK ||
		    store_player_add(st, cid, 0, "bea", "bea@example.org",
		    pubtext, keyid, false, &err) != HP_OK ||
		    store_commit(st, &err) != HP_OK)
			die(&err, "campaign");
		game_free(&g);
		pid = last_player(st, keyid);
		proc += bench_now() - t;
		for (;;) {
			struct store_window w;
			unsigned missing;
			char *text, *sig;

			if (turn_pending(st, name, &w, &missing, &err) != HP_OK)
				break;	/* the game ended */
			if (missing & 1u) {
				player_orders(st, name, psk, &text, &sig);
				t = bench_now();
				take_orders(st, name, pid, pubtext, keyid, text,
				    sig);
				proc += bench_now() - t;
				free(text);
				free(sig);
			}
			t = bench_now();
			if (turn_resolve_signed(st, name, NULL, sk, &n, &err) !=
			    HP_OK)
				die(&err, "resolve");
			proc += bench_now() - t;
			windows += n;
		}
		game_init(&g);
		if (store_game_load(st, name, &g, &cid, &err) != HP_OK)
			die(&err, "load");
		turns += g.turn;
		game_free(&g);
	}

	t = bench_now();
	for (i = 1; i <= games; i++) {
		struct audit_opts o = { pkp, NULL, false, NULL, 0, NULL, false };
		struct audit_stats s;
		char name[32];

		snprintf(name, sizeof name, "bench-%d", i);
		if (audit_campaign(st, name, &o, &s, &err) != HP_OK)
			die(&err, name);
		rolls += s.rolls;
	}
	aud = bench_now() - t;

	printf("bench_audit: %ld turns (%ld windows, %ld dice) in a chain of %d "
	    "fire-and-movement campaigns, Blue's orders signed by mail\n",
	    turns, windows, rolls, games);
	printf("  processing (verify orders, accept, resolve, sign logs, "
	    "reports): %.3f s, %.0f windows/s\n", proc,
	    bench_per_sec((double)windows, proc));
	printf("  audit (signatures, chain, dice, replay, reports, state):    "
	    "%.3f s, %.0f windows/s\n", aud, bench_per_sec((double)windows,
	    aud));
	printf("  audit / processing: %.2f (target <= 1.00)\n", proc > 0 ?
	    aud / proc : 0.0);
	minisign_seckey_free(sk);
	minisign_seckey_free(psk);
	free(pubtext);
	store_close(st);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	return system(path) == 0 ? 0 : HP_EX_IOERR;
}
