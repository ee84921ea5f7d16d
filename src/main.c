/* hexpost: the command line. One program, one subcommand per job; exit
 * codes follow sysexits(3). */
#include <errno.h>
#include <libgen.h>
#include <sys/stat.h>
#include <time.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "bounce.h"
#include "deadline.h"
#include "config.h"
#include "daemon.h"
#include "embedded.h"
#include "fetch_imap.h"
#include "intake.h"
#include "mail.h"
#include "maildir.h"
#include "minisign.h"
#include "moderator.h"
#include "ruleset.h"
#include "scenario.h"
#include "cliorders.h"
#include "seedchain.h"
#include "serverkey.h"
#include "sim.h"
#include "store.h"
#include "turn.h"
#include "sealed.h"
#include "view.h"

struct cmd {
	const char *name;   /* "campaign new" */
	const char *usage;
	const char *help;
	int (*fn)(int, char **);
};

static const char *db_path;
static struct config cfg;
static bool have_cfg;

static int
fail(const struct hp_error *err)
{
	fprintf(stderr, "hexpost: %s\n", err->msg);
	return hp_exit_code(err->code);
}

/* Refuse a database in a directory others may write (they could replace
 * it or plant its WAL), and take group and other bits off a database and
 * its WAL and SHM left readable by an older version: they hold the seeds of
 * open windows and unresolved orders. HP_OK or an exit code in *ex. */
static int
private_db(int *ex)
{
	struct hp_error err = { 0, "" };
	char *copy = xstrdup(db_path), dir[CONFIG_PATH_MAX + 16];
	const char *sfx[] = { "", "-wal", "-shm" };
	struct stat sb;
	size_t i;

	strlcpy_(dir, dirname(copy), sizeof dir);
	free(copy);
	if (util_check_private_dir(dir, &err) != HP_OK) {
		*ex = fail(&err);
		return HP_EINVAL;
	}
	for (i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		snprintf(dir, sizeof dir, "%s%s", db_path, sfx[i]);
		if (lstat(dir, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    (sb.st_mode & 077) != 0 && sb.st_uid == geteuid()) {
			if (chmod(dir, 0600) == -1) {
				fprintf(stderr, "hexpost: %s: %s\n", dir,
				    strerror(errno));
				*ex = HP_EX_IOERR;
				return HP_EIO;
			}
			fprintf(stderr, "hexpost: %s was mode %03o; now 600 "
			    "(it holds secrets)\n", dir,
			    (unsigned)(sb.st_mode & 0777));
		}
	}
	return HP_OK;
}

/* Open the database; it must exist and be initialised unless create. */
static struct store *
open_db(bool create, int *ex)
{
	struct store *st;
	struct hp_error err = { 0, "" };

	if (!create && access(db_path, F_OK) != 0) {
		fprintf(stderr, "hexpost: %s: no database (run 'hexpost init' "
		    "first, or give --db)\n", db_path);
		*ex = HP_EX_NOINPUT;
		return NULL;
	}
	if (private_db(ex) != HP_OK)
		return NULL;
	if (store_open(&st, db_path, create, &err) != HP_OK) {
		*ex = fail(&err);
		return NULL;
	}
	if (!create && store_schema_version(st) < 1) {
		fprintf(stderr, "hexpost: %s is not initialised (run 'hexpost "
		    "init')\n", db_path);
		store_close(st);
		*ex = HP_EX_NOINPUT;
		return NULL;
	}
	return st;
}

static const struct option help_only[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int usage_of(const char *);

/* Parse only --help; returns -1 to continue, else an exit code. */
static int
no_options(int argc, char **argv, const char *name, int want)
{
	int ch;

	while ((ch = getopt_long(argc, argv, "h", help_only, NULL)) != -1) {
		if (ch == 'h') {
			usage_of(name);
			return 0;
		}
		return usage_of(name) + HP_EX_USAGE;
	}
	if (argc - optind != want)
		return usage_of(name) + HP_EX_USAGE;
	return -1;
}

/* mkdir -p dir: create dir and its missing parents (mode 0700). */
static int
init_mkdirs(const char *dir, struct hp_error *err)
{
	char p[CONFIG_PATH_MAX];
	size_t i, n = strlen(dir);

	if (n == 0 || n >= sizeof p) {
		hp_seterr(err, HP_EINVAL, "%s: path empty or too long", dir);
		return HP_EINVAL;
	}
	memcpy(p, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST) {
			hp_seterr(err, HP_EIO, "%s: %s", p, strerror(errno));
			return HP_EIO;
		}
		p[i] = dir[i];
	}
	return HP_OK;
}

/* Create a data directory: configuration, database, Maildirs, server key. */
static int
init_datadir(const char *dir, struct hp_error *err)
{
	char path[CONFIG_PATH_MAX + 32];
	struct config c;
	int rc;

	if ((rc = init_mkdirs(dir, err)) != HP_OK)
		return rc;
	if ((rc = util_check_private_dir(dir, err)) != HP_OK)
		return rc;
	snprintf(path, sizeof path, "%s/hexpost.conf", dir);
	if (access(path, F_OK) == 0) {
		if ((rc = config_load(&c, path, err)) != HP_OK)
			return rc;
	} else {
		char *abs;

		/* realpath allocates: a fixed buffer shorter than PATH_MAX
		 * could overflow (caught by _FORTIFY_SOURCE). */
		if ((abs = realpath(dir, NULL)) == NULL) {
			hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
			return HP_EIO;
		}
		if (strlen(abs) > CONFIG_PATH_MAX - 64) {
			hp_seterr(err, HP_EINVAL, "%s: path too long (at most %d "
			    "bytes)", abs, CONFIG_PATH_MAX - 64);
			free(abs);
			return HP_EINVAL;
		}
		config_defaults(&c, abs);
		free(abs);
		if ((rc = config_write(&c, path, err)) != HP_OK)
			return rc;
		printf("%s: written\n", path);
	}
	if ((rc = maildir_create(c.mailbox + 8, err)) != HP_OK ||
	    (rc = maildir_create(c.outbox + 8, err)) != HP_OK)
		return rc;
	if (access(c.server_key, F_OK) != 0) {
		if ((rc = minisign_keygen(c.server_key, c.server_pub,
		    "hexpost server key", err)) != HP_OK)
			return rc;
		printf("%s: server key written (public key %s)\n",
		    c.server_key, c.server_pub);
	}
	cfg = c;
	have_cfg = true;
	db_path = cfg.database;
	return HP_OK;
}

static int
cmd_init(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "datadir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	const char *datadir = NULL;
	struct store *st;
	int rc, ex, ch;

	while ((ch = getopt_long(argc, argv, "D:h", opts, NULL)) != -1)
		switch (ch) {
		case 'D':
			datadir = optarg;
			break;
		case 'h':
			return usage_of("init") * 0;
		default:
			return usage_of("init") + HP_EX_USAGE;
		}
	if (argc != optind)
		return usage_of("init") + HP_EX_USAGE;
	if (datadir != NULL && (rc = init_datadir(datadir, &err)) != HP_OK)
		return fail(&err);
	if ((st = open_db(true, &ex)) == NULL)
		return ex;
	rc = store_migrate(st, &err);
	if (rc == HP_OK)
		printf("%s: schema version %d\n", db_path,
		    store_schema_version(st));
	store_close(st);
	if (rc == HP_OK && datadir != NULL)
		printf("ready: hexpost --config %s/hexpost.conf run --once\n",
		    datadir);
	return rc == HP_OK ? 0 : fail(&err);
}

static int load_server_key(struct minisign_seckey **, struct hp_error *);

static int
cmd_campaign_new(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ruleset", required_argument, NULL, 'r' },
		{ "scenario", required_argument, NULL, 's' },
		{ "options", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 'S' },
		{ "allow-test-ruleset", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	const char *rules = NULL, *scen = NULL, *opt = "", *seed = NULL;
	const struct ruleset *rs;
	struct minisign_seckey *sk = NULL;
	struct store *st;
	bool allow_test = false;
	int ch, rc, ex;

	while ((ch = getopt_long(argc, argv, "r:s:o:S:h", opts, NULL)) != -1)
		switch (ch) {
		case 'r':
			rules = optarg;
			break;
		case 's':
			scen = optarg;
			break;
		case 'o':
			opt = optarg;
			break;
		case 'S':
			seed = optarg;
			break;
		case 'T':
			allow_test = true;
			break;
		case 'h':
			return usage_of("campaign new") * 0;
		default:
			return usage_of("campaign new") + HP_EX_USAGE;
		}
	if (argc - optind != 1 || rules == NULL)
		return usage_of("campaign new") + HP_EX_USAGE;
	/* Test rulesets exercise the engine; nobody plays them by mistake. */
	if ((rs = ruleset_find(rules)) != NULL && rs->test && !allow_test) {
		fprintf(stderr, "hexpost: %s is a test ruleset (for the "
		    "engine's tests); give --allow-test-ruleset to use it\n",
		    rs->name);
		return HP_EX_USAGE;
	}
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	/* The seed chain statement is signed at once (docs/AUDIT.md, "Seed
	 * chain"); without a configuration it stays unsigned. */
	if ((rc = load_server_key(&sk, &err)) == HP_OK)
		rc = turn_campaign_new(st, argv[optind], rules, scen, opt,
		    (const unsigned char *)seed, seed ? strlen(seed) : 0, &err);
	if (rc == HP_OK && sk != NULL)
		rc = seedchain_sign(st, argv[optind], sk, &err);
	if (rc == HP_OK && sk != NULL)	/* docs/AUDIT.md, "Sealed dice" */
		rc = sealed_sign(st, argv[optind], sk, &err);
	/* Windows before the first turn that name no side (a turn-0 deploy
	 * rolling the first initiative, G7) resolve at once. */
	if (rc == HP_OK)
		rc = turn_resolve_sideless(st, argv[optind], sk, NULL, &err);
	minisign_seckey_free(sk);
	store_close(st);
	if (rc != HP_OK)
		return fail(&err);
	printf("campaign %s created (%s)%s\n", argv[optind], rules, seed ?
	    "; its dice come from --seed: for tests and demos only" : "");
	return 0;
}

static void
print_campaign(const struct store_campaign_info *ci, void *arg)
{
	struct hp_error err = { 0, "" };
	struct store_quarantine q;

	q.on = false;
	if (arg != NULL)
		(void)store_quarantine_get(arg, ci->name, &q, &err);
	printf("%-20s %-20s %-9s turn %-3d %s%s\n", ci->name, ci->ruleset,
	    ci->status, ci->turn, ci->result, q.on ? " [quarantined: "
	    "resolution failed; 'resume' lifts it]" : "");
}

static int
cmd_campaign_list(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	struct store *st;
	int rc, ex;

	if ((rc = no_options(argc, argv, "campaign list", 0)) >= 0)
		return rc;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	rc = store_campaign_list(st, print_campaign, st, &err);
	store_close(st);
	return rc == HP_OK ? 0 : fail(&err);
}

static void
print_player(int side, const char *name, const char *email, bool mod,
    void *arg)
{
	const struct game *g = arg;

	printf("  player %-16s %-6s %s%s\n", name, side < g->nsides ?
	    g->sides[side].name : "?", email, mod ? " (moderator)" : "");
}

static int
cmd_campaign_show(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	struct store *st;
	struct game g;
	unsigned missing = 0;
	int64_t cid;
	int rc, ex, s;

	if ((rc = no_options(argc, argv, "campaign show", 1)) >= 0)
		return rc;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	game_init(&g);
	if ((rc = store_game_load(st, argv[optind], &g, &cid, &err)) != HP_OK)
		goto out;
	printf("campaign %s\n  ruleset  %s (%s)\n  scenario %s\n  options  %s\n"
	    "  status   %s%s%s\n  turn     %d\n", g.name, g.rules->name,
	    g.rules->title, g.scenario, g.options[0] ? g.options : "-",
	    game_strstatus(g.status), g.result[0] ? ": " : "", g.result,
	    g.turn);
	{
		struct store_quarantine q;
		char since[64];

		if ((rc = store_quarantine_get(st, g.name, &q, &err)) != HP_OK)
			goto out;
		deadline_format(q.since, since, sizeof since);
		if (q.on)
			printf("  quarantined since %s: resolution failed: %s\n"
			    "           (nothing is resolved until 'hexpost "
			    "moderate %s resume')\n", since, q.error, g.name);
	}
	for (s = 0; s < g.nsides; s++)
		printf("  side %-6s %s%s\n", g.sides[s].name, g.sides[s].label,
		    g.sides[s].ai ? " [built-in opponent]" : "");
	if ((rc = store_player_list(st, cid, print_player, &g, &err)) != HP_OK)
		goto out;
	if ((rc = bounce_print(st, cid, stdout, "  ", &err)) != HP_OK)
		goto out;
	if (g.status != GAME_FINISHED) {
		if ((rc = turn_pending(st, g.name, &w, &missing, &err)) !=
		    HP_OK)
			goto out;
		printf("  window   turn %d '%s' (%s), waiting for:", w.spec.turn,
		    w.spec.name, window_strstate(w.state));
		for (s = 0; s < g.nsides; s++)
			if (missing & (1u << s))
				printf(" %s", g.sides[s].name);
		printf("%s\n", missing ? "" : " nobody (ready to resolve)");
	}
out:
	game_free(&g);
	store_close(st);
	return rc == HP_OK ? 0 : fail(&err);
}

static int
cmd_player_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "email", required_argument, NULL, 'e' },
		{ "name", required_argument, NULL, 'n' },
		{ "moderator", no_argument, NULL, 'm' },
		{ "key", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	const char *email = NULL, *name = NULL, *keyfile = NULL;
	char *keytext = NULL, keyhex[17] = "";
	struct minisign_pubkey pk;
	bool mod = false;
	struct store *st;
	struct game g;
	int64_t cid;
	int ch, rc, ex, side;

	while ((ch = getopt_long(argc, argv, "e:n:mk:h", opts, NULL)) != -1)
		switch (ch) {
		case 'k':
			keyfile = optarg;
			break;
		case 'e':
			email = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'm':
			mod = true;
			break;
		case 'h':
			return usage_of("player add") * 0;
		default:
			return usage_of("player add") + HP_EX_USAGE;
		}
	if (argc - optind != 2 || email == NULL || strchr(email, '@') == NULL)
		return usage_of("player add") + HP_EX_USAGE;
	if (keyfile != NULL) {
		if ((keytext = util_read_file(keyfile, NULL, &err)) == NULL)
			return fail(&err);
		if (minisign_pubkey_parse(keytext, strlen(keytext), &pk,
		    &err) != HP_OK) {
			free(keytext);
			fprintf(stderr, "hexpost: %s: ", keyfile);
			return fail(&err);
		}
		minisign_keyid_hex(pk.keyid, keyhex);
	}
	if ((st = open_db(false, &ex)) == NULL) {
		free(keytext);
		return ex;
	}
	game_init(&g);
	if ((rc = store_game_load(st, argv[optind], &g, &cid, &err)) != HP_OK)
		goto out;
	if ((side = game_side_index(&g, argv[optind + 1])) < 0) {
		hp_seterr(&err, HP_EINVAL, "no side %s in %s", argv[optind + 1],
		    g.name);
		rc = HP_EINVAL;
		goto out;
	}
	if ((rc = store_begin(st, &err)) != HP_OK)
		goto out;
	if ((rc = store_player_add(st, cid, side, name ? name : email, email,
	    keytext, keyfile ? keyhex : NULL, mod, &err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	g.sides[side].ai = false;
	if (have_cfg && (rc = mail_queue_welcome(st, &cfg, cid, &g, side,
	    name ? name : email, email, keyfile ? keyhex : NULL, &err)) !=
	    HP_OK) {
		store_rollback(st);
		goto out;
	}
	if ((rc = store_commit(st, &err)) == HP_OK)
		printf("%s plays %s in %s%s%s\n", email, g.sides[side].name,
		    g.name, keyfile ? ", key " : "", keyhex);
out:
	free(keytext);
	game_free(&g);
	store_close(st);
	return rc == HP_OK ? 0 : fail(&err);
}

static int
cmd_orders_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sig", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	struct turn_submit res;
	struct store *st;
	char *text, *etext, *sig = NULL;
	const char *sigfile = NULL;
	size_t len;
	int rc, ex, ch;

	while ((ch = getopt_long(argc, argv, "s:h", opts, NULL)) != -1)
		switch (ch) {
		case 's':
			sigfile = optarg;
			break;
		case 'h':
			return usage_of("orders submit") * 0;
		default:
			return usage_of("orders submit") + HP_EX_USAGE;
		}
	if (argc - optind != 2)
		return usage_of("orders submit") + HP_EX_USAGE;
	if (sigfile != NULL && (sig = util_read_file(sigfile, NULL, &err)) ==
	    NULL)
		return fail(&err);
	if (strcmp(argv[optind + 1], "-") == 0) {
		struct sbuf b;
		char chunk[4096];
		size_t n;

		sbuf_init(&b);
		sbuf_add(&b, "", 0);
		while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
			sbuf_add(&b, chunk, n);
		len = b.len;
		text = sbuf_steal(&b);
	} else if ((text = util_read_file(argv[optind + 1], &len, &err)) ==
	    NULL) {
		free(sig);
		return fail(&err);
	}
	if ((st = open_db(false, &ex)) == NULL) {
		free(text);
		free(sig);
		return ex;
	}
	turn_submit_init(&res);
	rc = cliorders_submit(st, argv[optind], text, len, sig, &res, &err);
	if (rc == HP_EINVAL) {
		etext = orders_errors_text(&res.errs);
		fprintf(stderr, "hexpost: orders rejected, nothing changed:\n%s",
		    etext);
		free(etext);
	} else if (rc != HP_OK)
		fail(&err);
	else
		printf("accepted %s orders for turn %d window '%s'%s:\n%s",
		    res.standing ? "standing" : "the", res.turn, res.window,
		    res.replaced ? " (replacing the earlier file)" : "",
		    res.canon);
	turn_submit_free(&res);
	store_close(st);
	free(text);
	free(sig);
	return hp_exit_code(rc != HP_OK && err.code == HP_EBUSY ? err.code : rc);
}

/* Load a campaign with its open window; side named by --side, or -1. */
static int
load_with_window(struct store *st, const char *name, struct game *g,
    struct store_window *w, int64_t *cid, struct hp_error *err)
{
	int rc;

	if ((rc = store_game_load(st, name, g, cid, err)) != HP_OK)
		return rc;
	if ((rc = store_window_current(st, *cid, w, err)) == HP_ENOENT)
		hp_seterr(err, HP_ESTATE, "campaign %s has ended: %s", g->name,
		    g->result);
	return rc == HP_ENOENT ? HP_ESTATE : rc;
}

static int
side_option(int argc, char **argv, const char *cmd, const char **side,
    int *turn)
{
	static const struct option opts[] = {
		{ "side", required_argument, NULL, 's' },
		{ "turn", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "s:t:h", opts, NULL)) != -1)
		switch (ch) {
		case 's':
			*side = optarg;
			break;
		case 't':
			if (turn == NULL || orders_parse_int(optarg, 1, 100000,
			    turn) != HP_OK)
				return usage_of(cmd) + HP_EX_USAGE;
			break;
		case 'h':
			usage_of(cmd);
			return 0;
		default:
			return usage_of(cmd) + HP_EX_USAGE;
		}
	if (argc - optind != 1)
		return usage_of(cmd) + HP_EX_USAGE;
	return -1;
}

static int
resolve_side(const struct game *g, const char *name, int *side,
    struct hp_error *err)
{
	if (name == NULL || strcmp(name, "all") == 0 ||
	    strcmp(name, "moderator") == 0) {
		*side = -1;
		return HP_OK;
	}
	if ((*side = game_side_index(g, name)) < 0) {
		hp_seterr(err, HP_EINVAL, "no side %s in %s", name, g->name);
		return HP_EINVAL;
	}
	return HP_OK;
}

/* orders template / orders suggest: print an order file for the open
 * window, as a template or as the built-in opponent would write it. */
static int
orders_print(int argc, char **argv, const char *cmd, bool suggest)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	const char *sidename = NULL;
	struct store *st;
	struct game g;
	int64_t cid;
	int rc, ex, side, s;

	if ((rc = side_option(argc, argv, cmd, &sidename, NULL)) >= 0)
		return rc;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	game_init(&g);
	if ((rc = load_with_window(st, argv[optind], &g, &w, &cid, &err)) !=
	    HP_OK || (rc = resolve_side(&g, sidename, &side, &err)) != HP_OK)
		goto out;
	if (side < 0)
		for (s = 0; s < g.nsides && side < 0; s++)
			if (w.spec.sides & (1u << s))
				side = s;
	if (side < 0 || !(w.spec.sides & (1u << side))) {
		hp_seterr(&err, HP_ESTATE, "%s sends no orders in turn %d "
		    "window '%s'", side < 0 ? "nobody" : g.sides[side].name,
		    w.spec.turn, w.spec.name);
		rc = HP_ESTATE;
		goto out;
	}
	if (suggest) {
		struct sbuf b;

		sbuf_init(&b);
		turn_order_header(&g, &w.spec, side, &b);
		sbuf_puts(&b, "# the built-in opponent's orders\n");
		g.rules->opponent(&g, &w.spec, side, &b);
		fputs(b.buf, stdout);
		sbuf_free(&b);
	} else {
		char *t = view_order_template(&g, &w.spec, side);

		fputs(t, stdout);
		free(t);
	}
out:
	game_free(&g);
	store_close(st);
	return rc == HP_OK ? 0 : fail(&err);
}

static int
cmd_orders_template(int argc, char **argv)
{
	return orders_print(argc, argv, "orders template", false);
}

static int
cmd_orders_suggest(int argc, char **argv)
{
	return orders_print(argc, argv, "orders suggest", true);
}

/* The server's signing key when the configuration names one (*sk NULL
 * without a configuration: dice logs are then written unsigned). */
static int
load_server_key(struct minisign_seckey **sk, struct hp_error *err)
{
	*sk = NULL;
	if (!have_cfg)
		return HP_OK;
	return serverkey_load(cfg.server_key, sk, err);
}

static int
cmd_turn_resolve(int argc, char **argv)
{
	struct minisign_seckey *sk = NULL;
	struct hp_error err = { 0, "" };
	struct store *st;
	int rc, ex, n = 0;

	if ((rc = no_options(argc, argv, "turn resolve", 1)) >= 0)
		return rc;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	if ((rc = load_server_key(&sk, &err)) == HP_OK)
		rc = turn_resolve_signed(st, argv[optind], NULL, sk, &n, &err);
	minisign_seckey_free(sk);
	store_close(st);
	if (rc != HP_OK)
		return fail(&err);
	printf("resolved %d window%s of %s\n", n, n == 1 ? "" : "s",
	    argv[optind]);
	return 0;
}

static int
cmd_map(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	const char *sidename = NULL;
	struct store *st;
	struct game g;
	struct sbuf b;
	int64_t cid;
	int rc, ex, side;

	if ((rc = side_option(argc, argv, "map", &sidename, NULL)) >= 0)
		return rc;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	game_init(&g);
	sbuf_init(&b);
	if ((rc = store_game_load(st, argv[optind], &g, &cid, &err)) == HP_OK &&
	    (rc = resolve_side(&g, sidename, &side, &err)) == HP_OK) {
		view_map(&g, side, &b);
		view_status(&g, side, &b);
		fputs(b.buf, stdout);
	}
	sbuf_free(&b);
	game_free(&g);
	store_close(st);
	return rc == HP_OK ? 0 : fail(&err);
}

static int
cmd_report(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	struct store_window w;
	const char *sidename = NULL;
	struct store *st;
	struct game g;
	int64_t cid;
	int rc, ex, side, turn = 0, n, shown = 0;
	char *body;

	if ((rc = side_option(argc, argv, "report", &sidename, &turn)) >= 0)
		return rc;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	game_init(&g);
	if ((rc = store_game_load(st, argv[optind], &g, &cid, &err)) != HP_OK ||
	    (rc = resolve_side(&g, sidename, &side, &err)) != HP_OK)
		goto out;
	if (turn == 0) {
		if ((rc = store_window_last_resolved(st, cid, &w, &err)) !=
		    HP_OK) {
			hp_seterr(&err, HP_ENOENT, "%s has no resolved turn yet",
			    g.name);
			goto out;
		}
		turn = w.spec.turn;
	}
	for (n = 1; n < 100; n++) {
		if (store_window_get(st, cid, turn, n, &w, &err) != HP_OK)
			break;
		if (w.state != WSTATE_RESOLVED)
			continue;
		if ((body = store_report_get(st, w.id, side, &err)) == NULL) {
			rc = err.code;
			goto out;
		}
		fputs(body, stdout);
		free(body);
		shown++;
	}
	if (shown == 0) {
		hp_seterr(&err, HP_ENOENT, "no report for turn %d of %s", turn,
		    g.name);
		rc = HP_ENOENT;
	}
out:
	game_free(&g);
	store_close(st);
	return rc == HP_OK ? 0 : fail(&err);
}

static int
cmd_rules_list(int argc, char **argv)
{
	const struct ruleset *const *r;
	int rc;

	if ((rc = no_options(argc, argv, "rules list", 0)) >= 0)
		return rc;
	for (r = ruleset_all(); *r != NULL; r++) {
		printf("%-20s %s (seed %s)%s\n", (*r)->name, (*r)->title,
		    (*r)->seed, (*r)->test ? " (test)" : "");
		if ((*r)->options_help != NULL)
			printf("  option %s\n", (*r)->options_help);
	}
	return 0;
}

/* Check a scenario file: its shape, then what its ruleset makes of it;
 * every error with its line. */
static int
cmd_scenario_check(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "options", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	struct order_errors errs;
	struct scenario sc;
	const char *opt = "", *path;
	char *text = NULL, *list;
	size_t len = 0;
	int c, i, rc = HP_EX_DATAERR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1)
		if (c == 'o')
			opt = optarg;
		else
			return usage_of("scenario check") + HP_EX_USAGE;
	if (argc != optind + 1)
		return usage_of("scenario check") + HP_EX_USAGE;
	path = argv[optind];
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "hexpost: %s: no such file\n", path);
		return HP_EX_NOINPUT;
	}
	if ((text = util_read_file(path, &len, &err)) == NULL)
		return fail(&err);
	orders_errors_init(&errs);
	if (ruleset_scenario_check(text, len, opt, &sc, &errs) != HP_OK) {
		list = orders_errors_text(&errs);
		fprintf(stderr, "%s: %zu error%s:\n%s", path, errs.n,
		    errs.n == 1 ? "" : "s", list);
		free(list);
		goto out;
	}
	printf("%s: ok: %s scenario %s (%s), %dx%d map, %d units, %d "
	    "markers, sha256 %s\n", path, sc.ruleset, sc.name, sc.title,
	    sc.cols, sc.rows, sc.nunits, sc.nmarkers, sc.hash);
	if (sc.nplaceholders > 0)
		printf("placeholders (values the seed lacks, made up by the "
		    "scenario's author):\n");
	for (i = 0; i < sc.nplaceholders; i++)
		printf("  line %d, %s: %s\n", sc.placeholders[i].line,
		    sc.placeholders[i].name, sc.placeholders[i].value);
	rc = 0;
out:
	scenario_free(&sc);
	orders_errors_free(&errs);
	free(text);
	return rc;
}

/* The shipped scenarios, with each one's title. */
static int
cmd_scenario_list(int argc, char **argv)
{
	const struct embedded_file *f;
	struct order_errors errs;
	struct scenario sc;
	const char **names;
	char path[160];
	size_t n, i;
	int rc;

	if ((rc = no_options(argc, argv, "scenario list", 0)) >= 0)
		return rc;
	names = scenario_list(NULL, &n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "scenarios/%s", names[i]);
		if ((f = embedded_find(path)) == NULL)
			continue;
		orders_errors_init(&errs);
		if (scenario_parse(&sc, f->data, f->len, &errs) == HP_OK)
			printf("%-18s %-16s %s\n", sc.ruleset, sc.name,
			    sc.title);
		scenario_free(&sc);
		orders_errors_free(&errs);
	}
	free(names);
	return 0;
}

static void
print_outbox_row(const struct store_outbox_row *r, void *arg)
{
	int *n = arg;

	if ((*n)++ == 0)
		printf("%-7s %-8s %-28s %3s  %s\n", "state", "kind", "to",
		    "try", "last error / Message-ID");
	printf("%-7s %-8s %-28s %3d  %s\n%48s<%s>\n", r->state, r->kind,
	    r->rcpt, r->attempts, r->last_error[0] ? r->last_error : "-",
	    "", r->message_id);
}

/* Mail that could not be delivered: failed for good (a 5xx answer, or
 * retry_max attempts), or waiting for another try. */
static int
cmd_outbox(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	struct store *st;
	int rc, ex, n = 0, counts[3];

	if ((rc = no_options(argc, argv, "outbox", 0)) >= 0)
		return rc;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	if ((rc = store_outbox_list(st, false, print_outbox_row, &n, &err)) ==
	    HP_OK)
		rc = store_outbox_counts(st, counts, &err);
	if (rc == HP_OK)
		rc = bounce_print(st, 0, stdout, "", &err);
	store_close(st);
	if (rc != HP_OK)
		return fail(&err);
	printf("%d sent, %d queued, %d failed\n", counts[1], counts[0],
	    counts[2]);
	return 0;
}

static int
cmd_simulate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ruleset", required_argument, NULL, 'r' },
		{ "games", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "options", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	char names[3][GAME_NAME_MAX];
	struct game g;
	const struct ruleset *rules = NULL;
	const char *seed = "hexpost-simulate", *opt = "";
	struct sim_result res;
	int ch, games = 1000, i;
	double lo, hi;

	while ((ch = getopt_long(argc, argv, "r:n:S:o:h", opts, NULL)) != -1)
		switch (ch) {
		case 'r':
			if ((rules = ruleset_find(optarg)) == NULL) {
				fprintf(stderr, "hexpost: no ruleset %s\n",
				    optarg);
				return HP_EX_USAGE;
			}
			break;
		case 'n':
			if (orders_parse_int(optarg, 1, 10000000, &games) !=
			    HP_OK)
				return usage_of("simulate") + HP_EX_USAGE;
			break;
		case 'S':
			seed = optarg;
			break;
		case 'o':
			opt = optarg;
			break;
		case 'h':
			return usage_of("simulate") * 0;
		default:
			return usage_of("simulate") + HP_EX_USAGE;
		}
	if (rules == NULL || argc != optind)
		return usage_of("simulate") + HP_EX_USAGE;
	if (sim_run(rules, opt, games, (const unsigned char *)seed,
	    strlen(seed), &res, &err) != HP_OK)
		return fail(&err);
	game_init(&g);
	g.rules = rules;
	strlcpy_(g.options, opt, sizeof g.options);
	if (ruleset_setup(&g, NULL, NULL, NULL, NULL, &err) != HP_OK) {
		game_free(&g);
		return fail(&err);
	}
	snprintf(names[0], sizeof names[0], "%s wins", g.sides[0].name);
	snprintf(names[1], sizeof names[1], "draws");
	snprintf(names[2], sizeof names[2], "%s wins", g.sides[1].name);
	game_free(&g);
	printf("%s: %d games, seed '%s'%s%s\n", rules->name, res.games, seed,
	    opt[0] ? ", options " : "", opt);
	for (i = 0; i < 3; i++) {
		sim_wilson(res.outcome[i], res.games, &lo, &hi);
		printf("  %-17s %7d  %5.1f%%  (95%% CI %5.1f%% - %5.1f%%)\n",
		    names[i], res.outcome[i], 100.0 * res.outcome[i] /
		    res.games, 100 * lo, 100 * hi);
	}
	printf("  windows resolved %ld, dice rolled %ld\n", res.windows,
	    res.rolls);
	printf("  %.0f games per second (%.3f s)\n", res.seconds > 0 ?
	    res.games / res.seconds : 0.0, res.seconds);
	return 0;
}

static int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, '1' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool once = false;
	int ch;

	while ((ch = getopt_long(argc, argv, "1h", opts, NULL)) != -1)
		switch (ch) {
		case '1':
			once = true;
			break;
		case 'h':
			return usage_of("run") * 0;
		default:
			return usage_of("run") + HP_EX_USAGE;
		}
	if (argc != optind)
		return usage_of("run") + HP_EX_USAGE;
	if (!have_cfg) {
		fprintf(stderr, "hexpost: run needs a configuration (--config "
		    "FILE or $HEXPOST_CONFIG; 'hexpost init --datadir DIR' "
		    "writes one)\n");
		return HP_EX_CONFIG;
	}
	if (access(db_path, F_OK) != 0) {
		fprintf(stderr, "hexpost: %s: no database (run 'hexpost init' "
		    "first, or give --db)\n", db_path);
		return HP_EX_NOINPUT;
	}
	if (private_db(&ch) != HP_OK)
		return ch;
	return daemon_run(&cfg, db_path, once);
}

static int
cmd_moderate(int argc, char **argv)
{
	return moderator_cli(argc, argv, have_cfg ? &cfg : NULL, db_path);
}

static int
cmd_key_generate(int argc, char **argv)
{
	struct hp_error err = { 0, "" };
	int rc;

	if ((rc = no_options(argc, argv, "key generate", 0)) >= 0)
		return rc;
	if (!have_cfg) {
		fprintf(stderr, "hexpost: key generate needs a configuration "
		    "(--config FILE): it names server_key and server_pub\n");
		return HP_EX_CONFIG;
	}
	if (serverkey_generate(&cfg, &err) != HP_OK)
		return fail(&err);
	printf("%s: server key written (public key %s)\n", cfg.server_key,
	    cfg.server_pub);
	return 0;
}

static int
cmd_key_rotate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "again", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	struct serverkey_rotation r;
	struct store *st;
	bool again = false, done = false;
	char when[32];
	struct tm tmv;
	time_t t;
	int rc, ex, ch;

	while ((ch = getopt_long(argc, argv, "ah", opts, NULL)) != -1)
		switch (ch) {
		case 'a':
			again = true;
			break;
		case 'h':
			return usage_of("key rotate") * 0;
		default:
			return usage_of("key rotate") + HP_EX_USAGE;
		}
	if (argc != optind)
		return usage_of("key rotate") + HP_EX_USAGE;
	if (!have_cfg) {
		fprintf(stderr, "hexpost: key rotate needs a configuration "
		    "(--config FILE): it names server_key and server_pub\n");
		return HP_EX_CONFIG;
	}
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	/* Run again after a crash late in the command (issue 21, item 6):
	 * a rotation finished within the last day is reported, not made a
	 * second time, unless --again. */
	if (!again && (rc = serverkey_rotation_done(st, &cfg, deadline_now(),
	    86400, &r, &done, &err)) != HP_OK) {
		store_close(st);
		return fail(&err);
	}
	if (done) {
		store_close(st);
		t = (time_t)r.when;
		strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC",
		    gmtime_r(&t, &tmv));
		printf("key rotation %d (server key %s replaced by %s) was "
		    "finished at %s, its notices queued with it: nothing done.\n"
		    "  If an earlier 'hexpost key rotate' was interrupted, it "
		    "completed.\n  To rotate again within a day of it, run "
		    "'hexpost key rotate --again'.\n", r.seq, r.old_id,
		    r.new_id, when);
		return 0;
	}
	rc = serverkey_rotate(st, &cfg, deadline_now(), &r, &err);
	store_close(st);
	if (rc != HP_OK)
		return fail(&err);
	printf("key rotation %d: server key %s replaced by %s\n"
	    "  old key kept as %s and %s\n", r.seq, r.old_id, r.new_id,
	    r.backup_key, r.backup_pub);
	if (r.resumed)
		printf("  (an interrupted rotation, recorded before, now "
		    "finished)\n");
	else
		printf("  statement signed by the old key and countersigned by "
		    "the new, recorded; %d notice%s queued\n", r.notices,
		    r.notices == 1 ? "" : "s");
	printf("  a running daemon signs with the new key after SIGHUP\n");
	return 0;
}

static int
cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ "pubkey", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "accept-test-dice", no_argument, NULL, 'T' },
		{ "player-key", required_argument, NULL, 'K' },
		{ "moderator-key", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	struct audit_opts ao = { NULL, NULL, false, NULL, 0, NULL };
	const char *pins[32];
	struct audit_stats as;
	const char *bundle = NULL;
	struct store *st;
	int ch, rc, ex;

	while ((ch = getopt_long(argc, argv, "b:p:vh", opts, NULL)) != -1)
		switch (ch) {
		case 'b':
			bundle = optarg;
			break;
		case 'p':
			ao.server_pub = optarg;
			break;
		case 'v':
			ao.progress = stdout;
			break;
		case 'T':
			ao.accept_test_dice = true;
			break;
		case 'K':
			if (ao.npins == (int)(sizeof pins / sizeof pins[0]))
				return usage_of("audit") + HP_EX_USAGE;
			pins[ao.npins++] = optarg;
			ao.pins = pins;
			break;
		case 'M':
			ao.moderator_key = optarg;
			break;
		case 'h':
			return usage_of("audit") * 0;
		default:
			return usage_of("audit") + HP_EX_USAGE;
		}
	if (argc - optind != (bundle ? 0 : 1))
		return usage_of("audit") + HP_EX_USAGE;
	if (bundle == NULL && ao.server_pub == NULL && have_cfg &&
	    access(cfg.server_pub, F_OK) == 0)
		ao.server_pub = cfg.server_pub;
	if (bundle != NULL)
		rc = audit_bundle(bundle, &ao, &as, &err);
	else {
		if ((st = open_db(false, &ex)) == NULL)
			return ex;
		rc = audit_campaign(st, argv[optind], &ao, &as, &err);
		store_close(st);
	}
	if (rc == HP_EINVAL) {
		fprintf(stderr, "hexpost: audit FAILED: %s\n", err.msg);
		return HP_EX_DATAERR;
	}
	if (rc != HP_OK)
		return fail(&err);
	audit_print(stdout, bundle ? bundle : argv[optind], &as);
	return 0;
}

static int
cmd_audit_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pubkey", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	const char *pub = NULL;
	struct store *st;
	int ch, rc, ex;

	while ((ch = getopt_long(argc, argv, "p:h", opts, NULL)) != -1)
		switch (ch) {
		case 'p':
			pub = optarg;
			break;
		case 'h':
			return usage_of("audit export") * 0;
		default:
			return usage_of("audit export") + HP_EX_USAGE;
		}
	if (argc - optind != 2)
		return usage_of("audit export") + HP_EX_USAGE;
	if (pub == NULL && have_cfg && access(cfg.server_pub, F_OK) == 0)
		pub = cfg.server_pub;
	if ((st = open_db(false, &ex)) == NULL)
		return ex;
	rc = audit_export(st, argv[optind], argv[optind + 1], pub, &err);
	store_close(st);
	if (rc != HP_OK)
		return fail(&err);
	printf("%s: audit bundle of %s written; check it with 'hexpost audit "
	    "--bundle %s'\n", argv[optind + 1], argv[optind], argv[optind + 1]);
	return 0;
}

static const struct cmd cmds[] = {
	{ "init", "init [--datadir DIR]", "create the database (or bring its "
	    "schema up to date); with --datadir, a whole data directory: "
	    "hexpost.conf, database, inbox and outbox Maildirs, server key",
	    cmd_init },
	{ "run", "run [--once]", "the main job: take in mail, resolve every "
	    "window whose orders are in, deliver the outbox; repeat every "
	    "poll_interval seconds unless --once", cmd_run },
	{ "moderate", "moderate NAME COMMAND [ARG...] [--email A] [--key F] "
	    "[--name N] [--sig F] [--print-statement]", "moderator commands: "
	    "status, report [SIDE], pause, "
	    "resume, extend HOURS, deadline TIME, set KEY VALUE, proceed "
	    "[ai|hold], replace SIDE --email A [--key F], resend [SIDE], end "
	    "[RESULT], moderator-key --key F (once: then replace, proceed, "
	    "end, extend and deadline need --sig, the moderator key's "
	    "signature of the statement --print-statement writes)",
	    cmd_moderate },
	{ "campaign new", "campaign new NAME --ruleset R [--scenario S|FILE] "
	    "[--options O] [--seed TEXT] [--allow-test-ruleset]", "start a "
	    "campaign; --seed makes every die predictable (tests and demos "
	    "only); a test ruleset needs --allow-test-ruleset",
	    cmd_campaign_new },
	{ "campaign list", "campaign list", "list campaigns",
	    cmd_campaign_list },
	{ "campaign show", "campaign show NAME", "sides, players and the open "
	    "window", cmd_campaign_show },
	{ "player add", "player add NAME SIDE --email ADDR [--key PUBKEY] "
	    "[--name PLAYER] [--moderator]", "a person plays SIDE of campaign NAME (sides "
	    "without one are played by the built-in opponent)",
	    cmd_player_add },
	{ "orders submit", "orders submit NAME FILE [--sig FILE.minisig]",
	    "submit an order file (FILE - reads standard input); a side whose "
	    "player has a key needs that player's signature, a side the "
	    "built-in opponent plays takes none", cmd_orders_submit },
	{ "orders template", "orders template NAME [--side S]", "print the "
	    "order file to fill in for the open window", cmd_orders_template },
	{ "orders suggest", "orders suggest NAME [--side S]", "print the "
	    "orders the built-in opponent would give", cmd_orders_suggest },
	{ "turn resolve", "turn resolve NAME", "resolve the open window once "
	    "all orders are in (and any that follow needing nobody)",
	    cmd_turn_resolve },
	{ "map", "map NAME [--side S]", "draw the map as a side sees it",
	    cmd_map },
	{ "report", "report NAME [--turn N] [--side S]", "print a turn's "
	    "report (default: the last resolved turn, moderator's view)",
	    cmd_report },
	{ "rules list", "rules list", "list the rulesets", cmd_rules_list },
	{ "scenario check", "scenario check FILE [--options O]", "check a "
	    "scenario file (docs/SCENARIOS.md): every error with its line, or "
	    "what it sets up and its placeholders", cmd_scenario_check },
	{ "scenario list", "scenario list", "the shipped scenarios (campaign "
	    "new --scenario NAME)", cmd_scenario_list },
	{ "key generate", "key generate", "write the server's minisign key "
	    "pair (server_key, mode 0600, and server_pub of the configuration)",
	    cmd_key_generate },
	{ "key rotate", "key rotate [--again]", "replace the server key, "
	    "keeping the old pair as server_key.N and server_pub.N, with a "
	    "rotation statement signed by the old key (and countersigned by "
	    "the new) that audits follow; notices go to every player. Within a "
	    "day of a finished rotation it reports that one and does nothing, "
	    "unless --again",
	    cmd_key_rotate },
	{ "audit export", "audit export NAME DIR [--pubkey FILE]", "write a "
	    "self-contained audit bundle of campaign NAME into DIR",
	    cmd_audit_export },
	{ "audit", "audit NAME | audit --bundle DIR [--pubkey FILE] "
	    "[--accept-test-dice] [--player-key SIDE=FILE]... "
	    "[--moderator-key FILE] [-v]",
	    "check every signature, commitment, die, the hash chain and a full "
	    "replay; exits 65 at the first discrepancy, naming it",
	    cmd_audit },
	{ "outbox", "outbox", "outgoing mail not delivered: failed for good "
	    "(refused by the mail server with a 5xx reply, or out of retries) "
	    "or waiting to be tried again, with the server's last answer",
	    cmd_outbox },
	{ "simulate", "simulate --ruleset R [--games N] [--seed S] "
	    "[--options O]", "the built-in opponent plays itself; prints the "
	    "results with 95% confidence intervals and games per second",
	    cmd_simulate },
};

static int
usage_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (strcmp(cmds[i].name, name) == 0)
			fprintf(stderr, "usage: hexpost [--db PATH] %s\n  %s\n",
			    cmds[i].usage, cmds[i].help);
	return 0;
}

static void
usage(void)
{
	size_t i;

	fprintf(stderr, "usage: hexpost [--config FILE] [--db PATH] [-v] COMMAND "
	    "[ARGS]\nThe configuration is --config, else $HEXPOST_CONFIG. The "
	    "database is --db,\nelse the configuration's, else $HEXPOST_DB, "
	    "else ./hexpost.db.\n\n");
	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(stderr, "  %-52s\n      %s\n", cmds[i].usage,
		    cmds[i].help);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct hp_error err = { 0, "" };
	const char *cfgpath = getenv("HEXPOST_CONFIG"), *dbopt = NULL;
	size_t i;
	int ch, sub;

	/* Everything hexpost creates (database, WAL, SHM, keys, mail) is
	 * its user's alone unless a mode is set explicitly (server.pub and
	 * audit bundles are published, and chmod'ed so). */
	umask(077);
	if (sodium_init() < 0)
		fatalx("libsodium failed to initialise");
	while ((ch = getopt_long(argc, argv, "+d:c:vhV", opts, NULL)) != -1)
		switch (ch) {
		case 'd':
			dbopt = optarg;
			break;
		case 'c':
			cfgpath = optarg;
			break;
		case 'v':
			log_set_level(LOG_LVL_DEBUG);
			break;
		case 'h':
			usage();
			return 0;
		case 'V':
			printf("hexpost %s\n", HEXPOST_VERSION);
			return 0;
		default:
			usage();
			return HP_EX_USAGE;
		}
	if (cfgpath != NULL && *cfgpath != '\0') {
		if (config_load(&cfg, cfgpath, &err) != HP_OK) {
			fprintf(stderr, "hexpost: %s\n", err.msg);
			return HP_EX_CONFIG;
		}
		have_cfg = true;
		if (util_check_private_dir(cfg.datadir, &err) != HP_OK) {
			fprintf(stderr, "hexpost: %s\n", err.msg);
			config_free(&cfg);
			return HP_EX_CONFIG;
		}
	}
	db_path = dbopt;
	if (db_path == NULL && have_cfg)
		db_path = cfg.database;
	if (db_path == NULL && (db_path = getenv("HEXPOST_DB")) != NULL &&
	    *db_path == '\0')
		db_path = NULL;
	if (db_path == NULL)
		db_path = "hexpost.db";
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage();
		return HP_EX_USAGE;
	}
	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		const char *n = cmds[i].name, *sp = strchr(n, ' ');

		if (sp == NULL) {
			if (strcmp(argv[0], n) != 0)
				continue;
			sub = 1;
		} else {
			if (strncmp(argv[0], n, (size_t)(sp - n)) != 0 ||
			    argv[0][sp - n] != '\0' || argc < 2 ||
			    strcmp(argv[1], sp + 1) != 0)
				continue;
			sub = 2;
		}
		optind = 0;
		sub = cmds[i].fn(argc - sub + 1, argv + sub - 1);
		config_free(&cfg);
		return sub;
	}
	fprintf(stderr, "hexpost: unknown command '%s'\n", argv[0]);
	usage();
	return HP_EX_USAGE;
}
