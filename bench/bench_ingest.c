/* bench_ingest: mail intake speed. Usage: bench_ingest [MESSAGES [CAMPAIGNS]]
 * (defaults 1000 and 50).
 *
 * Setup (not timed), in a fresh directory under $TMPDIR (default /tmp): a
 * data directory as 'hexpost init' makes it (configuration defaults, inbox
 * and outbox Maildirs, migrated database), CAMPAIGNS fire-and-movement
 * campaigns each with a Blue player whose minisign key pair was made by the
 * real minisign(1) (`minisign -G -W`; a few keys shared between campaigns),
 * and MESSAGES mails in the inbox: message i carries campaign i % CAMPAIGNS
 * Blue's order file for the open window (the built-in opponent's orders,
 * with a random nonce: every file differs, later ones replace earlier ones)
 * signed by the real `minisign -S`, attached as contrib/hexpost-player
 * attaches it. All signatures are made by one shell script, one system()
 * call. If contrib/hexpost-player is found ($HEXPOST_SOURCE, else the
 * source tree this file was compiled from), one mail made by it is taken
 * in first (untimed) to check that the mails built here are what players
 * send; it also warms up GMime and SQLite, as a long-running 'hexpost run'
 * would be.
 *
 * Timed, in the same run, in ROUNDS (3) rounds, each on its own MESSAGES
 * mails (all signed in the setup; a round's mails are put in the inbox,
 * untimed, just before it):
 *   ingest  intake_run over the inbox: parse MIME, verify the signature,
 *           validate and store the orders, queue the acknowledgement, flag
 *           the Maildir file; every message must be accepted (else exit 70:
 *           the figure would not measure the real path).
 *   bare    minisign_sig_parse + minisign_pubkey_parse + minisign_verify of
 *           the round's files (BLAKE2b-512 prehash and both Ed25519
 *           checks: the check `minisign -V` makes, without starting a
 *           process), repeated until at least 0.25 s has passed.
 *   shell   one `minisign -V -p PUB -m FILE -x SIG -q` per message, in one
 *           shell loop, over the round's first min(MESSAGES, 200) files.
 * Then the median over the rounds of ingest/bare against its target
 * (>= 0.5) with PASS or FAIL, and ingest/shell for information (its old
 * target, 30, was withdrawn: a bare check is only 8-10 times the shell
 * loop, issue 17). The exit status is 0 whatever the ratios. Ingest and
 * bare also print their CPU time (every thread of the process), and a
 * last line gives, for information, ingest/bare by CPU time (intake's
 * threads added up against the bare check's one), which moves less than
 * the wall-clock ratio on a host shared with other work. On an idle
 * two-core host the wall-clock ratio can be up to twice it (intake runs
 * on two cores, the bare check on one). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "config.h"
#include "engine.h"
#include "hexpost.h"
#include "intake.h"
#include "maildir.h"
#include "mime.h"
#include "minisign.h"
#include "ruleset.h"
#include "store.h"
#include "turn.h"

#define MAX_KEYS 64
#define KEY_CAMPAIGNS 16   /* intake looks at 16 players per key at most */
#define SHELL_SAMPLE 200
#define BARE_MIN_SECONDS 0.25
#define ROUNDS 3
_Static_assert(ROUNDS == 3, "median3 takes three values");

struct msg {
	char *file;        /* the signed order file */
	size_t flen;
	char *sig;         /* its .minisig text */
	size_t slen;
	int key;
	int campaign;
	char nonce[33];
	char *mail;        /* the mail that carries them */
	size_t mlen;
};

struct camp {
	char name[GAME_NAME_MAX];
	char base_head[256];   /* campaign:, turn:, window:, side: lines */
	char *base_body;       /* the built-in opponent's orders for Blue */
	int turn;
};

static char work[1024];

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
cleanup(void)
{
	if (work[0] != '\0')
		nftw(work, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	work[0] = '\0';
}

static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("bench_ingest: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cleanup();
	exit(HP_EX_SOFTWARE);
}

static void
write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		die("%s: %s", path, strerror(errno));
}

static char *
read_file(const char *path, size_t *len)
{
	struct hp_error err = { 0, "" };
	char *s = util_read_file(path, len, &err);

	if (s == NULL)
		die("%s", err.msg);
	return s;
}

/* Run a shell script in the work directory; returns its seconds. */
static double
run_script(const char *name, const char *text)
{
	char path[1100], cmd[1200];
	double t0;
	int rc;

	snprintf(path, sizeof path, "%s/%s", work, name);
	write_file(path, text, strlen(text));
	snprintf(cmd, sizeof cmd, "cd '%s' && sh ./%s", work, name);
	t0 = bench_now();
	rc = system(cmd);
	t0 = bench_now() - t0;
	if (rc != 0)
		die("%s failed (status %d)", name, rc);
	return t0;
}

/* Base64 in lines of 76 with CRLF, as `base64 -w 76 | sed 's/$/\r/'`. */
static void
b64_lines(struct sbuf *b, const void *data, size_t len)
{
	size_t n = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
	char *enc = xmalloc(n);
	size_t elen, i;

	sodium_bin2base64(enc, n, data, len, sodium_base64_VARIANT_ORIGINAL);
	elen = strlen(enc);
	for (i = 0; i < elen; i += 76) {
		sbuf_add(b, enc + i, elen - i < 76 ? elen - i : 76);
		sbuf_puts(b, "\r\n");
	}
	free(enc);
}

/* The mail contrib/hexpost-player sends for message m. */
static char *
build_mail(const struct msg *m, const struct camp *c, int idx, size_t *len)
{
	static const char *names[2] = { "orders.txt", "orders.txt.minisig" };
	struct sbuf b;
	char date[64];
	time_t t = time(NULL);
	struct tm tm;
	int i;

	localtime_r(&t, &tm);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S %z", &tm);
	sbuf_init(&b);
	sbuf_printf(&b, "From: blue%02d@example.org\r\n"
	    "To: hexpost@example.org\r\n"
	    "Subject: orders: %s turn %d blue \r\n"
	    "Date: %s\r\n"
	    "Message-ID: <%ld.%s@bench.example>\r\n"
	    "MIME-Version: 1.0\r\n"
	    "Content-Type: multipart/mixed; boundary=\"hexpost-%s\"\r\n\r\n",
	    m->campaign, c->name, c->turn, date, (long)t + idx, m->nonce,
	    m->nonce);
	sbuf_printf(&b, "--hexpost-%s\r\nContent-Type: text/plain; "
	    "charset=utf-8\r\n\r\nSigned orders attached.\r\n\r\n", m->nonce);
	for (i = 0; i < 2; i++) {
		sbuf_printf(&b, "--hexpost-%s\r\n", m->nonce);
		sbuf_printf(&b, "Content-Type: text/plain; charset=utf-8; "
		    "name=\"%s\"\r\n", names[i]);
		sbuf_printf(&b, "Content-Disposition: attachment; "
		    "filename=\"%s\"\r\n", names[i]);
		sbuf_puts(&b, "Content-Transfer-Encoding: base64\r\n\r\n");
		if (i == 0)
			b64_lines(&b, m->file, m->flen);
		else
			b64_lines(&b, m->sig, m->slen);
		sbuf_puts(&b, "\r\n");
	}
	sbuf_printf(&b, "--hexpost-%s--\r\n", m->nonce);
	*len = b.len;
	return sbuf_steal(&b);
}

/* Put a message into new/ as a mail delivery agent would (no fsync: setup
 * speed; the intake path does its own syncing). */
static void
deliver(const char *maildir, int idx, const char *data, size_t len)
{
	char tmp[1200], dst[1200], name[128];

	snprintf(name, sizeof name, "1700000000.M%06dP%d.bench", idx,
	    (int)getpid());
	if (snprintf(tmp, sizeof tmp, "%s/tmp/%s", maildir, name) >=
	    (int)sizeof tmp || snprintf(dst, sizeof dst, "%s/new/%s", maildir,
	    name) >= (int)sizeof dst)
		die("%s: path too long", maildir);
	write_file(tmp, data, len);
	if (rename(tmp, dst) == -1)
		die("%s: %s", dst, strerror(errno));
}

/* contrib/hexpost-player, if it can be found. */
static int
find_player(char *buf, size_t len)
{
	const char *src = getenv("HEXPOST_SOURCE");
	const char *me = __FILE__, *tail = "/bench/bench_ingest.c";
	size_t n = strlen(me), tn = strlen(tail);
	char *abs;

	/* Absolute: the player script runs from the work directory (so
	 * HEXPOST_SOURCE=.. from a build directory works too). */
	if (src != NULL && *src != '\0' && (abs = realpath(src, NULL)) !=
	    NULL) {
		snprintf(buf, len, "%s/contrib/hexpost-player", abs);
		free(abs);
	} else if (src != NULL && *src != '\0')
		snprintf(buf, len, "%s/contrib/hexpost-player", src);
	else if (me[0] == '/' && n > tn && strcmp(me + n - tn, tail) == 0)
		snprintf(buf, len, "%.*s/contrib/hexpost-player",
		    (int)(n - tn), me);
	else
		return 0;
	return access(buf, R_OK) == 0;
}

/* The median of ROUNDS (3) values. */
static double
median3(const double *v)
{
	double a = v[0], b = v[1], c = v[2];

	if ((a <= b && b <= c) || (c <= b && b <= a))
		return b;
	if ((b <= a && a <= c) || (c <= a && a <= b))
		return a;
	return c;
}

static const char *
verdict(double ratio, double target)
{
	return ratio >= target ? "PASS" : "FAIL";
}

int
main(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	struct config cfg;
	struct store *st;
	struct camp *camps;
	struct msg *msgs;
	struct intake_stats stats;
	struct sbuf sb;
	char path[1200], player[1100], datadir[1100];
	char *pub[MAX_KEYS], keyhex[MAX_KEYS][17];
	const char *tmpdir = getenv("TMPDIR");
	long nmsg = 1000, ncamp = 50, nkeys, i, passes, sample;
	double t_setup, t_sign, t_ingest, c_ingest, c_bare, q_cpu[ROUNDS], t_bare, t_shell, r_ingest, r_bare,
	    r_shell, q_bare[ROUNDS], q_shell[ROUNDS];
	char *end;
	int k, c, round;

	if (argc > 3 || (argc > 1 && strcmp(argv[1], "-h") == 0)) {
		fprintf(stderr, "usage: bench_ingest [MESSAGES [CAMPAIGNS]]\n");
		return HP_EX_USAGE;
	}
	if (argc > 1) {
		nmsg = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || nmsg < 1 ||
		    nmsg > 1000000L) {
			fprintf(stderr, "bench_ingest: bad number of messages "
			    "'%s'\n", argv[1]);
			return HP_EX_USAGE;
		}
	}
	if (argc > 2) {
		ncamp = strtol(argv[2], &end, 10);
		if (*argv[2] == '\0' || *end != '\0' || ncamp < 1 ||
		    ncamp > MAX_KEYS * KEY_CAMPAIGNS) {
			fprintf(stderr, "bench_ingest: bad number of campaigns "
			    "'%s' (1-%d)\n", argv[2], MAX_KEYS * KEY_CAMPAIGNS);
			return HP_EX_USAGE;
		}
	}
	if (ncamp > nmsg)
		ncamp = nmsg;
	nkeys = (ncamp + KEY_CAMPAIGNS - 1) / KEY_CAMPAIGNS;
	if (nkeys < 8)
		nkeys = ncamp < 8 ? ncamp : 8;
	if (sodium_init() < 0)
		die("sodium_init failed");
	engine_init();
	if (system("minisign -v >/dev/null 2>&1") != 0)
		die("minisign(1) is not installed");

	t_setup = bench_now();
	snprintf(work, sizeof work, "%s/bench_ingest.XXXXXX",
	    tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (mkdtemp(work) == NULL) {
		fprintf(stderr, "bench_ingest: mkdtemp %s: %s\n", work,
		    strerror(errno));
		work[0] = '\0';
		return HP_EX_CANTCREAT;
	}
	snprintf(datadir, sizeof datadir, "%s/data", work);
	snprintf(path, sizeof path, "%s/keys", work);
	if (mkdir(datadir, 0700) == -1 || mkdir(path, 0700) == -1)
		die("mkdir: %s", strerror(errno));
	snprintf(path, sizeof path, "%s/s", work);
	if (mkdir(path, 0700) == -1)
		die("mkdir %s: %s", path, strerror(errno));
	config_defaults(&cfg, datadir);
	if (maildir_create(cfg.mailbox + 8, &err) != HP_OK ||
	    maildir_create(cfg.outbox + 8, &err) != HP_OK ||
	    store_open(&st, cfg.database, true, &err) != HP_OK ||
	    store_migrate(st, &err) != HP_OK)
		die("data directory: %s", err.msg);

	/* Players' keys, by minisign itself. */
	sbuf_init(&sb);
	sbuf_puts(&sb, "set -e\n");
	for (k = 0; k < nkeys; k++)
		sbuf_printf(&sb, "minisign -G -W -p keys/k%d.pub -s keys/k%d.key "
		    ">/dev/null\n", k, k);
	run_script("keygen.sh", sb.buf);
	sbuf_free(&sb);
	for (k = 0; k < nkeys; k++) {
		struct minisign_pubkey pk;

		snprintf(path, sizeof path, "%s/keys/k%d.pub", work, k);
		pub[k] = read_file(path, NULL);
		if (minisign_pubkey_parse(pub[k], strlen(pub[k]), &pk, &err) !=
		    HP_OK)
			die("%s: %s", path, err.msg);
		minisign_keyid_hex(pk.keyid, keyhex[k]);
	}

	/* Campaigns, each with Blue played by a key holder. */
	camps = xcalloc((size_t)ncamp, sizeof *camps);
	for (c = 0; c < ncamp; c++) {
		struct camp *cp = &camps[c];
		struct store_window w;
		struct game g;
		unsigned missing = 0;
		char pname[32], email[64];
		int64_t cid;
		int blue;

		snprintf(cp->name, sizeof cp->name, "bench%02d", c);
		snprintf(pname, sizeof pname, "blue%02d", c);
		snprintf(email, sizeof email, "blue%02d@example.org", c);
		k = c % (int)nkeys;
		game_init(&g);
		if (turn_campaign_new(st, cp->name, "fire-and-movement", NULL,
		    "", NULL, 0, &err) != HP_OK ||
		    store_game_load(st, cp->name, &g, &cid, &err) != HP_OK)
			die("campaign %s: %s", cp->name, err.msg);
		if ((blue = game_side_index(&g, "blue")) < 0)
			die("campaign %s has no side blue", cp->name);
		if (store_begin(st, &err) != HP_OK ||
		    store_player_add(st, cid, blue, pname, email, pub[k],
		    keyhex[k], false, &err) != HP_OK ||
		    store_commit(st, &err) != HP_OK)
			die("player %s: %s", pname, err.msg);
		game_free(&g);
		game_init(&g);
		if (store_game_load(st, cp->name, &g, &cid, &err) != HP_OK ||
		    turn_pending(st, cp->name, &w, &missing, &err) != HP_OK)
			die("campaign %s: %s", cp->name, err.msg);
		if (!(missing & (1u << blue)))
			die("campaign %s: Blue sends no orders in turn %d "
			    "window '%s'", cp->name, w.spec.turn, w.spec.name);
		cp->turn = w.spec.turn;
		snprintf(cp->base_head, sizeof cp->base_head, "campaign: %s\n"
		    "turn: %d\nwindow: %s\nside: %s\n", g.name, w.spec.turn,
		    w.spec.name, g.sides[blue].name);
		sbuf_init(&sb);
		sbuf_puts(&sb, "# the built-in opponent's orders\n");
		g.rules->opponent(&g, &w.spec, blue, &sb);
		cp->base_body = sbuf_steal(&sb);
		game_free(&g);
	}

	/* The order files, then every signature in one script. */
	msgs = xcalloc((size_t)(nmsg * ROUNDS), sizeof *msgs);
	sbuf_init(&sb);
	sbuf_puts(&sb, "set -e\n");
	for (i = 0; i < nmsg * ROUNDS; i++) {
		struct msg *m = &msgs[i];
		struct camp *cp;
		unsigned char rnd[16];
		struct sbuf f;

		m->campaign = (int)(i % ncamp);
		m->key = m->campaign % (int)nkeys;
		cp = &camps[m->campaign];
		randombytes_buf(rnd, sizeof rnd);
		sodium_bin2hex(m->nonce, sizeof m->nonce, rnd, sizeof rnd);
		sbuf_init(&f);
		sbuf_printf(&f, "%snonce: %s\n%s", cp->base_head, m->nonce,
		    cp->base_body);
		m->flen = f.len;
		m->file = sbuf_steal(&f);
		snprintf(path, sizeof path, "%s/s/%ld.txt", work, i);
		write_file(path, m->file, m->flen);
		sbuf_printf(&sb, "minisign -S -s keys/k%d.key -m s/%ld.txt -t "
		    "'hexpost orders %s turn %d' >/dev/null\n", m->key, i,
		    cp->name, cp->turn);
	}
	t_sign = run_script("sign.sh", sb.buf);
	sbuf_free(&sb);
	for (i = 0; i < nmsg * ROUNDS; i++) {
		struct msg *m = &msgs[i];

		snprintf(path, sizeof path, "%s/s/%ld.txt.minisig", work, i);
		m->sig = read_file(path, &m->slen);
		m->mail = build_mail(m, &camps[m->campaign], (int)i, &m->mlen);
	}

	/* One mail by contrib/hexpost-player: the format check. */
	if (find_player(player, sizeof player)) {
		struct maildir_entry *ents = NULL;
		enum intake_outcome o;
		unsigned char *raw;
		size_t n = 0, len;
		char cmd[4000];

		sbuf_init(&sb);
		sbuf_printf(&sb, "%s%s", camps[0].base_head,
		    camps[0].base_body);
		snprintf(path, sizeof path, "%s/check.txt", work);
		write_file(path, sb.buf, sb.len);
		sbuf_free(&sb);
		snprintf(cmd, sizeof cmd, "cd '%s' && bash '%s' -t "
		    "hexpost@example.org -f blue00@example.org -k keys/k0.key "
		    "--maildir check check.txt >/dev/null", work, player);
		if (system(cmd) != 0)
			die("%s failed", player);
		snprintf(path, sizeof path, "%s/check", work);
		if (maildir_list(path, 'S', &ents, &n, &err) != HP_OK || n != 1)
			die("%s: %s", path, n != 1 ? "expected one mail" :
			    err.msg);
		if ((raw = maildir_read(&ents[0], MIME_MAX_MESSAGE, &len,
		    &err)) == NULL)
			die("%s", err.msg);
		if (intake_message(st, &cfg, "check", raw, len, &o, &err) !=
		    HP_OK || o != INTAKE_ACCEPTED)
			die("the mail from %s was not accepted (%s%s%s)",
			    player, intake_stroutcome(o), err.msg[0] ? ": " :
			    "", err.msg);
		free(raw);
		maildir_list_free(ents, n);
		printf("format check: a mail from %s: accepted\n", player);
	} else
		printf("format check: skipped (contrib/hexpost-player not "
		    "found; set HEXPOST_SOURCE)\n");
	t_setup = bench_now() - t_setup;
	printf("setup: %ld campaigns, %ld minisign keys, %d x %ld signed mails "
	    "in %.1f s (minisign -S: %.1f s)\n", ncamp, nkeys, ROUNDS, nmsg,
	    t_setup, t_sign);

	for (round = 0; round < ROUNDS; round++) {
		long first = round * nmsg;

		for (i = first; i < first + nmsg; i++)
			deliver(cfg.mailbox + 8, (int)i, msgs[i].mail,
			    msgs[i].mlen);
		printf("round %d of %d\n", round + 1, ROUNDS);
		/* Timed: the intake path. */
		c_ingest = bench_cpu();
		t_ingest = bench_now();
		if (intake_run(st, &cfg, &stats, &err) != HP_OK)
			die("intake_run: %s", err.msg);
		t_ingest = bench_now() - t_ingest;
		c_ingest = bench_cpu() - c_ingest;
		printf("  ingest: intake_run, %ld messages in %.3f s (CPU time "
		    "of all threads %.3f s)\n", nmsg, t_ingest, c_ingest);
		printf("    accepted %d, rejected %d, ignored %d, duplicate %d, "
		    "deferred %d\n", stats.n[INTAKE_ACCEPTED],
		    stats.n[INTAKE_REJECTED], stats.n[INTAKE_IGNORED],
		    stats.n[INTAKE_DUPLICATE], stats.deferred);
		if (stats.n[INTAKE_ACCEPTED] != nmsg) {
			fprintf(stderr, "bench_ingest: only %d of %ld messages "
			    "accepted: the figure would not measure the real "
			    "path\n", stats.n[INTAKE_ACCEPTED], nmsg);
			cleanup();
			return HP_EX_SOFTWARE;
		}
		r_ingest = bench_per_sec((double)nmsg, t_ingest);
		printf("    messages/s %12.1f   (%.1f us/message)\n", r_ingest,
		    1e6 * t_ingest / (double)nmsg);

		/* Timed: bare verification of the same files. */
		passes = 0;
		c_bare = bench_cpu();
		t_bare = bench_now();
		do {
			for (i = first; i < first + nmsg; i++) {
				struct msg *m = &msgs[i];
				struct minisign_sig sig;
				struct minisign_pubkey pk;

				if (minisign_sig_parse(m->sig, m->slen, &sig,
				    &err) != HP_OK || minisign_pubkey_parse(
				    pub[m->key], strlen(pub[m->key]), &pk,
				    &err) != HP_OK || minisign_verify(&pk, &sig,
				    (const unsigned char *)m->file, m->flen,
				    &err) != HP_OK)
					die("message %ld: %s", i, err.msg);
			}
			passes++;
		} while (bench_now() - t_bare < BARE_MIN_SECONDS);
		t_bare = bench_now() - t_bare;
		c_bare = bench_cpu() - c_bare;
		r_bare = bench_per_sec((double)(nmsg * passes), t_bare);
		printf("  bare: sig_parse + pubkey_parse + verify, %ld files "
		    "(%ld pass%s) in %.3f s (CPU time %.3f s)\n", nmsg * passes,
		    passes, passes == 1 ? "" : "es", t_bare, c_bare);
		printf("    files/s    %12.1f   (%.1f us/file)\n", r_bare,
		    1e6 * t_bare / (double)(nmsg * passes));

		/* Timed: minisign -V once per message from a shell loop. */
		sample = nmsg < SHELL_SAMPLE ? nmsg : SHELL_SAMPLE;
		sbuf_init(&sb);
		sbuf_puts(&sb, "set -e\n");
		for (i = first; i < first + sample; i++)
			sbuf_printf(&sb, "minisign -V -p keys/k%d.pub -m "
			    "s/%ld.txt -x s/%ld.txt.minisig -q\n", msgs[i].key,
			    i, i);
		t_shell = run_script("verify.sh", sb.buf);
		sbuf_free(&sb);
		r_shell = bench_per_sec((double)sample, t_shell);
		printf("  shell: minisign -V per message, %ld messages in "
		    "%.3f s\n", sample, t_shell);
		printf("    messages/s %12.1f   (%.1f us/message)\n", r_shell,
		    1e6 * t_shell / (double)sample);
		q_bare[round] = r_ingest / r_bare;
		/* For information: the same ratio by CPU time (all of
		 * intake's threads against the one of the bare check). */
		q_cpu[round] = c_ingest > 0 ? (c_bare / (double)(nmsg *
		    passes)) / (c_ingest / (double)nmsg) : 0;
		q_shell[round] = r_ingest / r_shell;
		printf("  ingest/bare %.2f, ingest/shell %.2f\n", q_bare[round],
		    q_shell[round]);
	}
	printf("ratio ingest/bare  %8.2f  (median of %d; target >= 0.5)  %s\n",
	    median3(q_bare), ROUNDS, verdict(median3(q_bare), 0.5));
	printf("ratio ingest/shell %8.2f  (median of %d; for information, the "
	    "old target of 30 is withdrawn)\n", median3(q_shell), ROUNDS);
	printf("ratio ingest/bare by CPU time %.2f  (median of %d; for "
	    "information: CPU seconds of every intake thread a mail against "
	    "the bare check's a file)\n", median3(q_cpu), ROUNDS);

	store_close(st);
	for (i = 0; i < nmsg * ROUNDS; i++) {
		free(msgs[i].file);
		free(msgs[i].sig);
		free(msgs[i].mail);
	}
	free(msgs);
	for (c = 0; c < ncamp; c++)
		free(camps[c].base_body);
	free(camps);
	for (k = 0; k < nkeys; k++)
		free(pub[k]);
	cleanup();
	return 0;
}
