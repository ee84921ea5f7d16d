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
#include "engine.h"
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

/* What the dispatcher (main) provides before a subcommand's handler runs:
 * one table (cmds, at the end) names each subcommand with its usage, its
 * options, how many arguments it takes and what it needs. */
enum {
	CLI_DB = 1,          /* the database, opened (it must exist) */
	CLI_CONFIG = 2,      /* a configuration (cmd.config_why says why) */
	CLI_CAMPAIGN = 4,    /* argument 0 names a campaign: loaded (CLI_DB) */
};

/* A handler's return: an exit code (0 or sysexits), or CLI_USAGE for the
 * dispatcher to print the command's usage and exit 64. A check returns
 * CLI_GO when the handler may run. */
#define CLI_USAGE (-1)
#define CLI_GO (-2)
#define CLI_MAX_OPTS 64

/* A subcommand's parsed command line and what the dispatcher opened. */
struct cli {
	const struct cmd *cmd;
	int argc;                    /* positional arguments ... */
	char **argv;                 /* ... after the options */
	const char *opt[128];        /* each option's last value, by its
	                              * letter ("" for a flag), or NULL */
	struct {
		int letter;
		const char *arg;
	} each[CLI_MAX_OPTS];        /* every option given, in order */
	int neach;
	struct store *st;            /* CLI_DB */
	struct game g;               /* CLI_CAMPAIGN */
	int64_t cid;                 /* CLI_CAMPAIGN */
	struct hp_error err;
};

struct cmd {
	const char *name;            /* "campaign" */
	const char *sub;             /* "new", or NULL for a one-word command */
	const char *usage;           /* after "hexpost [--db PATH] " */
	const char *help;
	const struct option *opts;   /* long options besides --help, or NULL */
	int min_args, max_args;      /* positional arguments */
	unsigned needs;              /* CLI_* */
	const char *config_why;      /* CLI_CONFIG: "(--config FILE): ..." */
	int (*check)(struct cli *);  /* before anything is opened, or NULL:
	                              * CLI_GO, CLI_USAGE or an exit code */
	int (*fn)(struct cli *);
	int (*raw)(int, char **);    /* instead of all the above: its own
	                              * parsing of argv (argv[0] the command) */
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

static int usage_of(const struct cmd *);

/* 0 for HP_OK, else err's message and exit code. */
static int
done(int rc, const struct hp_error *err)
{
	return rc == HP_OK ? 0 : fail(err);
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
cmd_init(struct cli *c)
{
	const char *datadir = c->opt['D'];
	struct store *st;
	int rc, ex;

	if (datadir != NULL && init_datadir(datadir, &c->err) != HP_OK)
		return fail(&c->err);
	if ((st = open_db(true, &ex)) == NULL)
		return ex;
	rc = store_migrate(st, &c->err);
	if (rc == HP_OK)
		printf("%s: schema version %d\n", db_path,
		    store_schema_version(st));
	store_close(st);
	if (rc == HP_OK && datadir != NULL)
		printf("ready: hexpost --config %s/hexpost.conf run --once\n",
		    datadir);
	return done(rc, &c->err);
}

static int load_server_key(struct minisign_seckey **, struct hp_error *);

static int
cmd_campaign_new(struct cli *c)
{
	const char *rules = c->opt['r'], *seed = c->opt['S'];
	struct minisign_seckey *sk = NULL;
	int rc;

	/* The seed chain statement is signed at once (docs/AUDIT.md, "Seed
	 * chain"); without a configuration it stays unsigned. */
	if ((rc = load_server_key(&sk, &c->err)) == HP_OK)
		rc = turn_campaign_new(c->st, c->argv[0], rules, c->opt['s'],
		    c->opt['o'] ? c->opt['o'] : "", (const unsigned char *)seed,
		    seed ? strlen(seed) : 0, &c->err);
	if (rc == HP_OK && sk != NULL)
		rc = seedchain_sign(c->st, c->argv[0], sk, &c->err);
	if (rc == HP_OK && sk != NULL)	/* docs/AUDIT.md, "Sealed dice" */
		rc = sealed_sign(c->st, c->argv[0], sk, &c->err);
	/* Windows before the first turn that name no side (a turn-0 deploy
	 * rolling the first initiative, G7) resolve at once. */
	if (rc == HP_OK)
		rc = turn_resolve_sideless(c->st, c->argv[0], sk, NULL, &c->err);
	minisign_seckey_free(sk);
	if (rc != HP_OK)
		return fail(&c->err);
	printf("campaign %s created (%s)%s\n", c->argv[0], rules, seed ?
	    "; its dice come from --seed: for tests and demos only" : "");
	return 0;
}

/* campaign new and simulate need --ruleset. */
static int
need_ruleset(struct cli *c)
{
	return c->opt['r'] == NULL ? CLI_USAGE : CLI_GO;
}

/* campaign new: --ruleset, and a test ruleset only when asked for (test
 * rulesets exercise the engine; nobody plays them by mistake). */
static int
need_ruleset_new(struct cli *c)
{
	const struct ruleset *rs;

	if (c->opt['r'] == NULL)
		return CLI_USAGE;
	if ((rs = ruleset_find(c->opt['r'])) != NULL && rs->test &&
	    c->opt['T'] == NULL) {
		fprintf(stderr, "hexpost: %s is a test ruleset (for the "
		    "engine's tests); give --allow-test-ruleset to use it\n",
		    rs->name);
		return HP_EX_USAGE;
	}
	return CLI_GO;
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
cmd_campaign_list(struct cli *c)
{
	return done(store_campaign_list(c->st, print_campaign, c->st, &c->err),
	    &c->err);
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
cmd_campaign_show(struct cli *c)
{
	struct hp_error *err = &c->err;
	struct store_window w;
	struct store *st = c->st;
	struct game *g = &c->g;
	unsigned missing = 0;
	int rc, s;

	printf("campaign %s\n  ruleset  %s (%s)\n  scenario %s\n  options  %s\n"
	    "  status   %s%s%s\n  turn     %d\n", g->name, g->rules->name,
	    g->rules->title, g->scenario, g->options[0] ? g->options : "-",
	    game_strstatus(g->status), g->result[0] ? ": " : "", g->result,
	    g->turn);
	{
		struct store_quarantine q;
		char since[64];

		if ((rc = store_quarantine_get(st, g->name, &q, err)) != HP_OK)
			return fail(err);
		deadline_format(q.since, since, sizeof since);
		if (q.on)
			printf("  quarantined since %s: resolution failed: %s\n"
			    "           (nothing is resolved until 'hexpost "
			    "moderate %s resume')\n", since, q.error, g->name);
	}
	for (s = 0; s < g->nsides; s++)
		printf("  side %-6s %s%s\n", g->sides[s].name, g->sides[s].label,
		    g->sides[s].ai ? " [built-in opponent]" : "");
	if ((rc = store_player_list(st, c->cid, print_player, g, err)) != HP_OK)
		return fail(err);
	if ((rc = bounce_print(st, c->cid, stdout, "  ", err)) != HP_OK)
		return fail(err);
	if (g->status != GAME_FINISHED) {
		if ((rc = turn_pending(st, g->name, &w, &missing, err)) !=
		    HP_OK)
			return fail(err);
		printf("  window   turn %d '%s' (%s), waiting for:", w.spec.turn,
		    w.spec.name, window_strstate(w.state));
		for (s = 0; s < g->nsides; s++)
			if (missing & (1u << s))
				printf(" %s", g->sides[s].name);
		printf("%s\n", missing ? "" : " nobody (ready to resolve)");
	}
	return 0;
}

static int
cmd_player_add(struct cli *c)
{
	const char *email = c->opt['e'], *name = c->opt['n'];
	const char *keyfile = c->opt['k'];
	struct hp_error *err = &c->err;
	char *keytext = NULL, keyhex[17] = "";
	struct minisign_pubkey pk;
	struct store *st = c->st;
	struct game *g = &c->g;
	int rc, side;

	if (keyfile != NULL) {
		if ((keytext = util_read_file(keyfile, NULL, err)) == NULL)
			return fail(err);
		if (minisign_pubkey_parse(keytext, strlen(keytext), &pk,
		    err) != HP_OK) {
			free(keytext);
			fprintf(stderr, "hexpost: %s: ", keyfile);
			return fail(err);
		}
		minisign_keyid_hex(pk.keyid, keyhex);
	}
	if ((side = game_side_index(g, c->argv[1])) < 0) {
		hp_seterr(err, HP_EINVAL, "no side %s in %s", c->argv[1],
		    g->name);
		rc = HP_EINVAL;
		goto out;
	}
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = store_player_add(st, c->cid, side, name ? name : email,
	    email, keytext, keyfile ? keyhex : NULL, c->opt['m'] != NULL,
	    err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	g->sides[side].ai = false;
	if (have_cfg && (rc = mail_queue_welcome(st, &cfg, c->cid, g, side,
	    name ? name : email, email, keyfile ? keyhex : NULL, err)) !=
	    HP_OK) {
		store_rollback(st);
		goto out;
	}
	if ((rc = store_commit(st, err)) == HP_OK)
		printf("%s plays %s in %s%s%s\n", email, g->sides[side].name,
		    g->name, keyfile ? ", key " : "", keyhex);
out:
	free(keytext);
	return done(rc, err);
}

/* player add needs --email with an @. */
static int
need_email(struct cli *c)
{
	const char *email = c->opt['e'];

	return email == NULL || strchr(email, '@') == NULL ? CLI_USAGE : CLI_GO;
}

static int
cmd_orders_submit(struct cli *c)
{
	struct hp_error *err = &c->err;
	struct turn_submit res;
	char *text, *etext, *sig = NULL;
	const char *sigfile = c->opt['s'];
	size_t len;
	int rc;

	if (sigfile != NULL && (sig = util_read_file(sigfile, NULL, err)) ==
	    NULL)
		return fail(err);
	if (strcmp(c->argv[1], "-") == 0) {
		struct sbuf b;
		char chunk[4096];
		size_t n;

		sbuf_init(&b);
		sbuf_add(&b, "", 0);
		while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
			sbuf_add(&b, chunk, n);
		len = b.len;
		text = sbuf_steal(&b);
	} else if ((text = util_read_file(c->argv[1], &len, err)) == NULL) {
		free(sig);
		return fail(err);
	}
	turn_submit_init(&res);
	rc = cliorders_submit(c->st, c->argv[0], text, len, sig, &res, err);
	if (rc == HP_EINVAL) {
		etext = orders_errors_text(&res.errs);
		fprintf(stderr, "hexpost: orders rejected, nothing changed:\n%s",
		    etext);
		free(etext);
	} else if (rc != HP_OK)
		fail(err);
	else
		printf("accepted %s orders for turn %d window '%s'%s:\n%s",
		    res.standing ? "standing" : "the", res.turn, res.window,
		    res.replaced ? " (replacing the earlier file)" : "",
		    res.canon);
	turn_submit_free(&res);
	free(text);
	free(sig);
	return hp_exit_code(rc != HP_OK && err->code == HP_EBUSY ? err->code :
	    rc);
}

/* The open window of a campaign loaded: HP_ESTATE once it has ended. */
static int
load_with_window(struct store *st, struct game *g, int64_t cid,
    struct store_window *w, struct hp_error *err)
{
	int rc;

	if ((rc = store_window_current(st, cid, w, err)) == HP_ENOENT)
		hp_seterr(err, HP_ESTATE, "campaign %s has ended: %s", g->name,
		    g->result);
	return rc == HP_ENOENT ? HP_ESTATE : rc;
}

static int
check_turn(struct cli *c)
{
	int turn;

	if (c->opt['t'] != NULL && orders_parse_int(c->opt['t'], 1, 100000,
	    &turn) != HP_OK)
		return CLI_USAGE;
	return CLI_GO;
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
orders_print(struct cli *c, bool suggest)
{
	struct hp_error *err = &c->err;
	struct store_window w;
	struct game *g = &c->g;
	int rc, side, s;

	if ((rc = load_with_window(c->st, g, c->cid, &w, err)) != HP_OK ||
	    (rc = resolve_side(g, c->opt['s'], &side, err)) != HP_OK)
		return fail(err);
	if (side < 0)
		for (s = 0; s < g->nsides && side < 0; s++)
			if (w.spec.sides & (1u << s))
				side = s;
	if (side < 0 || !(w.spec.sides & (1u << side))) {
		hp_seterr(err, HP_ESTATE, "%s sends no orders in turn %d "
		    "window '%s'", side < 0 ? "nobody" : g->sides[side].name,
		    w.spec.turn, w.spec.name);
		return fail(err);
	}
	if (suggest) {
		struct sbuf b;

		sbuf_init(&b);
		window_order_header(g, &w.spec, side, &b);
		sbuf_puts(&b, "# the built-in opponent's orders\n");
		g->rules->opponent(g, &w.spec, side, &b);
		fputs(b.buf, stdout);
		sbuf_free(&b);
	} else {
		char *t = view_order_template(g, &w.spec, side);

		fputs(t, stdout);
		free(t);
	}
	return 0;
}

static int
cmd_orders_template(struct cli *c)
{
	return orders_print(c, false);
}

static int
cmd_orders_suggest(struct cli *c)
{
	return orders_print(c, true);
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
cmd_turn_resolve(struct cli *c)
{
	struct minisign_seckey *sk = NULL;
	int rc, n = 0;

	if ((rc = load_server_key(&sk, &c->err)) == HP_OK)
		rc = turn_resolve_signed(c->st, c->argv[0], NULL, sk, &n,
		    &c->err);
	minisign_seckey_free(sk);
	if (rc != HP_OK)
		return fail(&c->err);
	printf("resolved %d window%s of %s\n", n, n == 1 ? "" : "s",
	    c->argv[0]);
	return 0;
}

static int
cmd_map(struct cli *c)
{
	struct game *g = &c->g;
	struct sbuf b;
	int rc, side;

	if ((rc = resolve_side(g, c->opt['s'], &side, &c->err)) != HP_OK)
		return fail(&c->err);
	sbuf_init(&b);
	view_map(g, side, &b);
	view_status(g, side, &b);
	fputs(b.buf, stdout);
	sbuf_free(&b);
	return 0;
}

static int
cmd_report(struct cli *c)
{
	struct hp_error *err = &c->err;
	struct store_window w;
	struct store *st = c->st;
	struct game *g = &c->g;
	int rc, side, turn = 0, n, shown = 0;
	char *body;

	if (c->opt['t'] != NULL)
		(void)orders_parse_int(c->opt['t'], 1, 100000, &turn);
	if ((rc = resolve_side(g, c->opt['s'], &side, err)) != HP_OK)
		return fail(err);
	if (turn == 0) {
		if (store_window_last_resolved(st, c->cid, &w, err) != HP_OK) {
			hp_seterr(err, HP_ENOENT, "%s has no resolved turn yet",
			    g->name);
			return fail(err);
		}
		turn = w.spec.turn;
	}
	for (n = 1; n < 100; n++) {
		if (store_window_get(st, c->cid, turn, n, &w, err) != HP_OK)
			break;
		if (w.state != WSTATE_RESOLVED)
			continue;
		if ((body = store_report_get(st, w.id, side, err)) == NULL)
			return fail(err);
		fputs(body, stdout);
		free(body);
		shown++;
	}
	if (shown == 0) {
		hp_seterr(err, HP_ENOENT, "no report for turn %d of %s", turn,
		    g->name);
		return fail(err);
	}
	return 0;
}

static int
cmd_rules_list(struct cli *c)
{
	const struct ruleset *const *r;

	(void)c;
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
cmd_scenario_check(struct cli *c)
{
	struct hp_error err = { 0, "" };
	struct order_errors errs;
	struct scenario sc;
	const char *opt = c->opt['o'] ? c->opt['o'] : "", *path = c->argv[0];
	char *text = NULL, *list;
	size_t len = 0;
	int i, rc = HP_EX_DATAERR;

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
cmd_scenario_list(struct cli *c)
{
	const struct embedded_file *f;
	struct order_errors errs;
	struct scenario sc;
	const char **names;
	char path[160];
	size_t n, i;

	(void)c;
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
cmd_outbox(struct cli *c)
{
	int rc, n = 0, counts[3];

	if ((rc = store_outbox_list(c->st, false, print_outbox_row, &n,
	    &c->err)) == HP_OK)
		rc = store_outbox_counts(c->st, counts, &c->err);
	if (rc == HP_OK)
		rc = bounce_print(c->st, 0, stdout, "", &c->err);
	if (rc != HP_OK)
		return fail(&c->err);
	printf("%d sent, %d queued, %d failed\n", counts[1], counts[0],
	    counts[2]);
	return 0;
}

/* simulate: --ruleset names a ruleset, --games a count. */
static int
check_simulate(struct cli *c)
{
	int games;

	if (c->opt['r'] != NULL && ruleset_find(c->opt['r']) == NULL) {
		fprintf(stderr, "hexpost: no ruleset %s\n", c->opt['r']);
		return HP_EX_USAGE;
	}
	if (c->opt['n'] != NULL && orders_parse_int(c->opt['n'], 1, 10000000,
	    &games) != HP_OK)
		return CLI_USAGE;
	return need_ruleset(c);
}

/* The mails per side per round of a ruleset that counts them. */
static void
simulate_mails(const struct sim_result *res)
{
	long n = 0, sum = 0, acc = 0;
	int k, median = -1, p90 = -1;

	for (k = 0; k < 21; k++) {
		n += res->mails[k];
		sum += k * res->mails[k];
	}
	if (n == 0)
		return;
	for (k = 0; k < 21; k++) {
		acc += res->mails[k];
		if (median < 0 && 2 * acc >= n)
			median = k;
		if (p90 < 0 && 10 * acc >= 9 * n)
			p90 = k;
	}
	printf("  mails per side per round: median %d, mean %.2f, 90th "
	    "percentile %d (%ld side-rounds)\n", median, (double)sum / n,
	    p90, n);
}

static int
cmd_simulate(struct cli *c)
{
	struct hp_error err = { 0, "" };
	char names[3][GAME_NAME_MAX];
	struct game g;
	const struct ruleset *rules = ruleset_find(c->opt['r']);
	const char *seed = c->opt['S'] ? c->opt['S'] : "hexpost-simulate";
	const char *opt = c->opt['o'] ? c->opt['o'] : "";
	struct sim_result res;
	int games = 1000, i;
	double lo, hi;

	if (c->opt['n'] != NULL)
		(void)orders_parse_int(c->opt['n'], 1, 10000000, &games);
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
	simulate_mails(&res);
	printf("  %.0f games per second (%.3f s)\n", res.seconds > 0 ?
	    res.games / res.seconds : 0.0, res.seconds);
	return 0;
}

static int
cmd_run(struct cli *c)
{
	int ex;

	if (access(db_path, F_OK) != 0) {
		fprintf(stderr, "hexpost: %s: no database (run 'hexpost init' "
		    "first, or give --db)\n", db_path);
		return HP_EX_NOINPUT;
	}
	if (private_db(&ex) != HP_OK)
		return ex;
	return daemon_run(&cfg, db_path, c->opt['1'] != NULL);
}

/* storage [--compact]: daemon_storage, with the configuration if there
 * is one (else the defaults of the database's directory). */
static int
cmd_storage(struct cli *c)
{
	struct config dc;
	char dir[CONFIG_PATH_MAX], *d;

	if (!have_cfg) {
		strlcpy_(dir, db_path, sizeof dir);
		d = dirname(dir);
		config_defaults(&dc, d);
		strlcpy_(dc.database, db_path, sizeof dc.database);
	}
	if (daemon_storage(c->st, have_cfg ? &cfg : &dc, c->opt['c'] != NULL,
	    stdout, &c->err) != HP_OK)
		return fail(&c->err);
	return 0;
}

static int
cmd_moderate(int argc, char **argv)
{
	return moderator_cli(argc, argv, have_cfg ? &cfg : NULL, db_path);
}

static int
cmd_key_generate(struct cli *c)
{
	if (serverkey_generate(&cfg, &c->err) != HP_OK)
		return fail(&c->err);
	printf("%s: server key written (public key %s)\n", cfg.server_key,
	    cfg.server_pub);
	return 0;
}

static int
cmd_key_rotate(struct cli *c)
{
	struct hp_error *err = &c->err;
	struct serverkey_rotation r;
	bool done_before = false;
	char when[32];
	struct tm tmv;
	time_t t;

	/* Run again after a crash late in the command (issue 21, item 6):
	 * a rotation finished within the last day is reported, not made a
	 * second time, unless --again. */
	if (c->opt['a'] == NULL && serverkey_rotation_done(c->st, &cfg,
	    deadline_now(), 86400, &r, &done_before, err) != HP_OK)
		return fail(err);
	if (done_before) {
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
	if (serverkey_rotate(c->st, &cfg, deadline_now(), &r, err) != HP_OK)
		return fail(err);
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

/* audit: NAME, or --bundle and no NAME; at most 32 --player-key. */
static int
check_audit(struct cli *c)
{
	int i, n = 0;

	for (i = 0; i < c->neach; i++)
		if (c->each[i].letter == 'K' && ++n > 32)
			return CLI_USAGE;
	return c->argc != (c->opt['b'] ? 0 : 1) ? CLI_USAGE : CLI_GO;
}

static int
cmd_audit(struct cli *c)
{
	struct hp_error *err = &c->err;
	struct audit_opts ao = { 0 };
	const char *pins[32], *bundle = c->opt['b'];
	struct audit_stats as;
	struct store *st;
	int i, rc, ex;

	ao.server_pub = c->opt['p'];
	ao.progress = c->opt['v'] ? stdout : NULL;
	ao.accept_test_dice = c->opt['T'] != NULL;
	for (i = 0; i < c->neach; i++)
		if (c->each[i].letter == 'K') {
			pins[ao.npins++] = c->each[i].arg;
			ao.pins = pins;
		}
	ao.moderator_key = c->opt['M'];
	if (bundle == NULL && ao.server_pub == NULL && have_cfg &&
	    access(cfg.server_pub, F_OK) == 0)
		ao.server_pub = cfg.server_pub;
	if (bundle != NULL)
		rc = audit_bundle(bundle, &ao, &as, err);
	else {
		if ((st = open_db(false, &ex)) == NULL)
			return ex;
		rc = audit_campaign(st, c->argv[0], &ao, &as, err);
		store_close(st);
	}
	if (rc == HP_EINVAL) {
		fprintf(stderr, "hexpost: audit FAILED: %s\n", err->msg);
		return HP_EX_DATAERR;
	}
	if (rc != HP_OK)
		return fail(err);
	audit_print(stdout, bundle ? bundle : c->argv[0], &as);
	return 0;
}

static int
cmd_audit_export(struct cli *c)
{
	const char *pub = c->opt['p'];

	if (pub == NULL && have_cfg && access(cfg.server_pub, F_OK) == 0)
		pub = cfg.server_pub;
	if (audit_export(c->st, c->argv[0], c->argv[1], pub, &c->err) != HP_OK)
		return fail(&c->err);
	printf("%s: audit bundle of %s written; check it with 'hexpost audit "
	    "--bundle %s'\n", c->argv[1], c->argv[0], c->argv[1]);
	return 0;
}

static int cmd_help(struct cli *);

#define OPT(name, arg, letter) { name, arg, NULL, letter }
#define OPT_END { NULL, 0, NULL, 0 }
static const struct option o_init[] = {
	OPT("datadir", required_argument, 'D'), OPT_END };
static const struct option o_run[] = {
	OPT("once", no_argument, '1'), OPT_END };
static const struct option o_storage[] = {
	OPT("compact", no_argument, 'c'), OPT_END };
static const struct option o_campaign_new[] = {
	OPT("ruleset", required_argument, 'r'),
	OPT("scenario", required_argument, 's'),
	OPT("options", required_argument, 'o'),
	OPT("seed", required_argument, 'S'),
	OPT("allow-test-ruleset", no_argument, 'T'), OPT_END };
static const struct option o_player_add[] = {
	OPT("email", required_argument, 'e'),
	OPT("name", required_argument, 'n'),
	OPT("moderator", no_argument, 'm'),
	OPT("key", required_argument, 'k'), OPT_END };
static const struct option o_sig[] = {
	OPT("sig", required_argument, 's'), OPT_END };
static const struct option o_side[] = {
	OPT("side", required_argument, 's'), OPT_END };
static const struct option o_side_turn[] = {
	OPT("side", required_argument, 's'),
	OPT("turn", required_argument, 't'), OPT_END };
static const struct option o_options[] = {
	OPT("options", required_argument, 'o'), OPT_END };
static const struct option o_again[] = {
	OPT("again", no_argument, 'a'), OPT_END };
static const struct option o_pubkey[] = {
	OPT("pubkey", required_argument, 'p'), OPT_END };
static const struct option o_audit[] = {
	OPT("bundle", required_argument, 'b'),
	OPT("pubkey", required_argument, 'p'),
	OPT("verbose", no_argument, 'v'),
	OPT("accept-test-dice", no_argument, 'T'),
	OPT("player-key", required_argument, 'K'),
	OPT("moderator-key", required_argument, 'M'), OPT_END };
static const struct option o_simulate[] = {
	OPT("ruleset", required_argument, 'r'),
	OPT("games", required_argument, 'n'),
	OPT("seed", required_argument, 'S'),
	OPT("options", required_argument, 'o'), OPT_END };

#define NEEDS_KEY_CONFIG "(--config FILE): it names server_key and server_pub"

/* Every subcommand: name, subcommand, usage, help, options, arguments
 * (least, most), what it needs, why a configuration, check, handler. */
static const struct cmd cmds[] = {
	{ "init", NULL, "init [--datadir DIR]", "create the database (or bring "
	    "its schema up to date); with --datadir, a whole data directory: "
	    "hexpost.conf, database, inbox and outbox Maildirs, server key",
	    o_init, 0, 0, 0, NULL, NULL, cmd_init, NULL },
	{ "run", NULL, "run [--once]", "the main job: take in mail, resolve "
	    "every window whose orders are in, deliver the outbox; repeat every "
	    "poll_interval seconds unless --once", o_run, 0, 0, CLI_CONFIG,
	    "(--config FILE or $HEXPOST_CONFIG; 'hexpost init --datadir DIR' "
	    "writes one)", NULL, cmd_run, NULL },
	{ "moderate", NULL, "moderate NAME COMMAND [ARG...] [--email A] "
	    "[--key FILE] [--name N] [--sig FILE] [--print-statement]", "moderator "
	    "commands: status, report [SIDE], pause, resume, extend HOURS, "
	    "deadline TIME, set KEY VALUE, proceed [ai|hold], replace SIDE "
	    "--email A [--key F], resend [SIDE], end [RESULT], moderator-key "
	    "--key F (once: then replace, proceed, end, extend and deadline need "
	    "--sig, the moderator key's signature of the statement "
	    "--print-statement writes)", NULL, 0, 0, 0, NULL, NULL, NULL,
	    cmd_moderate },
	{ "campaign", "new", "campaign new NAME --ruleset R [--scenario S|FILE] "
	    "[--options O] [--seed TEXT] [--allow-test-ruleset]", "start a "
	    "campaign; --seed makes every die predictable (tests and demos "
	    "only); a test ruleset needs --allow-test-ruleset", o_campaign_new, 1,
	    1, CLI_DB, NULL, need_ruleset_new, cmd_campaign_new, NULL },
	{ "campaign", "list", "campaign list", "list campaigns", NULL, 0, 0,
	    CLI_DB, NULL, NULL, cmd_campaign_list, NULL },
	{ "campaign", "show", "campaign show NAME", "sides, players and the "
	    "open window", NULL, 1, 1, CLI_DB | CLI_CAMPAIGN, NULL, NULL,
	    cmd_campaign_show, NULL },
	{ "player", "add", "player add NAME SIDE --email ADDR [--key PUBKEY] "
	    "[--name PLAYER] [--moderator]", "a person plays SIDE of campaign "
	    "NAME (sides without one are played by the built-in opponent)",
	    o_player_add, 2, 2, CLI_DB | CLI_CAMPAIGN, NULL, need_email,
	    cmd_player_add, NULL },
	{ "orders", "submit", "orders submit NAME FILE [--sig FILE.minisig]",
	    "submit an order file (FILE - reads standard input); a side whose "
	    "player has a key needs that player's signature, a side the "
	    "built-in opponent plays takes none", o_sig, 2, 2, CLI_DB, NULL,
	    NULL, cmd_orders_submit, NULL },
	{ "orders", "template", "orders template NAME [--side S]", "print the "
	    "order file to fill in for the open window", o_side, 1, 1,
	    CLI_DB | CLI_CAMPAIGN, NULL, NULL, cmd_orders_template, NULL },
	{ "orders", "suggest", "orders suggest NAME [--side S]", "print the "
	    "orders the built-in opponent would give", o_side, 1, 1,
	    CLI_DB | CLI_CAMPAIGN, NULL, NULL, cmd_orders_suggest, NULL },
	{ "turn", "resolve", "turn resolve NAME", "resolve the open window "
	    "once all orders are in (and any that follow needing nobody)", NULL,
	    1, 1, CLI_DB, NULL, NULL, cmd_turn_resolve, NULL },
	{ "map", NULL, "map NAME [--side S]", "draw the map as a side sees it",
	    o_side, 1, 1, CLI_DB | CLI_CAMPAIGN, NULL, NULL, cmd_map, NULL },
	{ "report", NULL, "report NAME [--turn N] [--side S]", "print a turn's "
	    "report (default: the last resolved turn, moderator's view)",
	    o_side_turn, 1, 1, CLI_DB | CLI_CAMPAIGN, NULL, check_turn,
	    cmd_report, NULL },
	{ "rules", "list", "rules list", "list the rulesets", NULL, 0, 0, 0,
	    NULL, NULL, cmd_rules_list, NULL },
	{ "scenario", "check", "scenario check FILE [--options O]", "check a "
	    "scenario file (docs/SCENARIOS.md): every error with its line, or "
	    "what it sets up and its placeholders", o_options, 1, 1, 0, NULL,
	    NULL, cmd_scenario_check, NULL },
	{ "scenario", "list", "scenario list", "the shipped scenarios "
	    "(campaign new --scenario NAME)", NULL, 0, 0, 0, NULL, NULL,
	    cmd_scenario_list, NULL },
	{ "key", "generate", "key generate", "write the server's minisign key "
	    "pair (server_key, mode 0600, and server_pub of the configuration)",
	    NULL, 0, 0, CLI_CONFIG, NEEDS_KEY_CONFIG, NULL, cmd_key_generate,
	    NULL },
	{ "key", "rotate", "key rotate [--again]", "replace the server key, "
	    "keeping the old pair as server_key.N and server_pub.N, with a "
	    "rotation statement signed by the old key (and countersigned by "
	    "the new) that audits follow; notices go to every player. Within a "
	    "day of a finished rotation it reports that one and does nothing, "
	    "unless --again", o_again, 0, 0, CLI_CONFIG | CLI_DB,
	    NEEDS_KEY_CONFIG, NULL, cmd_key_rotate, NULL },
	{ "audit", "export", "audit export NAME DIR [--pubkey FILE]", "write a "
	    "self-contained audit bundle of campaign NAME into DIR", o_pubkey,
	    2, 2, CLI_DB, NULL, NULL, cmd_audit_export, NULL },
	{ "audit", NULL, "audit NAME | audit --bundle DIR [--pubkey FILE] "
	    "[--accept-test-dice] [--player-key SIDE=FILE]... "
	    "[--moderator-key FILE] [-v]",
	    "check every signature, commitment, die, the hash chain and a full "
	    "replay; exits 65 at the first discrepancy, naming it", o_audit, 0,
	    1, 0, NULL, check_audit, cmd_audit, NULL },
	{ "outbox", NULL, "outbox", "outgoing mail not delivered: failed for "
	    "good (refused by the mail server with a 5xx reply, or out of "
	    "retries) or waiting to be tried again, with the server's last "
	    "answer", NULL, 0, 0, CLI_DB, NULL, NULL, cmd_outbox, NULL },
	{ "simulate", NULL, "simulate --ruleset R [--games N] [--seed S] "
	    "[--options O]", "the built-in opponent plays itself; prints the "
	    "results with 95% confidence intervals and games per second",
	    o_simulate, 0, 0, 0, NULL, check_simulate, cmd_simulate, NULL },
	{ "help", NULL, "help [COMMAND]", "this list, or the usage of one "
	    "command", NULL, 0, 2, 0, NULL, NULL, cmd_help, NULL },
	{ "storage", NULL, "storage [--compact]", "what the database, the "
	    "inbox and the outbox Maildir keep and how much, and the retention "
	    "in force; --compact applies it now and gives free pages back",
	    o_storage, 0, 0, CLI_DB, NULL, NULL, cmd_storage, NULL },
};
#define NCMDS (sizeof cmds / sizeof cmds[0])

/* Print cmd's usage and help to stderr; returns 0. */
static int
usage_of(const struct cmd *cmd)
{
	fprintf(stderr, "usage: hexpost [--db PATH] %s\n  %s\n", cmd->usage,
	    cmd->help);
	return 0;
}

/* Every command's usage and help, to f. */
static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: hexpost [--config FILE] [--db PATH] [-v] COMMAND "
	    "[ARGS]\nThe configuration is --config, else $HEXPOST_CONFIG. The "
	    "database is --db,\nelse the configuration's, else $HEXPOST_DB, "
	    "else ./hexpost.db.\n\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-52s\n      %s\n", cmds[i].usage, cmds[i].help);
}

/* The entry argv names: its command word and, for a two-word command, its
 * subcommand; *words gets 1 or 2. NULL if none. */
static const struct cmd *
cmd_find(int argc, char **argv, int *words)
{
	size_t i;

	for (i = 0; i < NCMDS; i++) {
		if (strcmp(argv[0], cmds[i].name) != 0)
			continue;
		if (cmds[i].sub == NULL) {
			*words = 1;
			return &cmds[i];
		}
		if (argc >= 2 && strcmp(argv[1], cmds[i].sub) == 0) {
			*words = 2;
			return &cmds[i];
		}
	}
	return NULL;
}

/* hexpost help [COMMAND [SUBCOMMAND]]: to standard output. */
static int
cmd_help(struct cli *c)
{
	size_t i;
	int n = 0;

	if (c->argc == 0) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < NCMDS; i++)
		if (strcmp(c->argv[0], cmds[i].name) == 0 && (c->argc == 1 ||
		    (cmds[i].sub != NULL && strcmp(c->argv[1],
		    cmds[i].sub) == 0))) {
			printf("usage: hexpost [--db PATH] %s\n  %s\n",
			    cmds[i].usage, cmds[i].help);
			n++;
		}
	if (n > 0)
		return 0;
	fprintf(stderr, "hexpost: unknown command '%s'\n", c->argv[0]);
	usage(stderr);
	return HP_EX_USAGE;
}

/* Run cmd on argv (argv[0] its last word): parse its options and
 * arguments, check them, open what it needs, call its handler, close. */
static int
cmd_run_one(const struct cmd *cmd, int argc, char **argv)
{
	struct option lo[16];
	char so[2 * 16 + 2];
	struct cli *c;
	size_t nl = 0, ns = 0;
	int ch, rc;

	optind = 0;
	if (cmd->raw != NULL)
		return cmd->raw(argc, argv);
	for (; cmd->opts != NULL && cmd->opts[nl].name != NULL; nl++) {
		lo[nl] = cmd->opts[nl];
		so[ns++] = (char)lo[nl].val;
		if (lo[nl].has_arg == required_argument)
			so[ns++] = ':';
	}
	lo[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[nl] = (struct option){ NULL, 0, NULL, 0 };
	so[ns++] = 'h';
	so[ns] = '\0';
	c = xcalloc(1, sizeof *c);
	c->cmd = cmd;
	game_init(&c->g);
	while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (ch == 'h') {
			rc = usage_of(cmd);
			goto out;
		}
		if (ch <= 0 || ch >= 128 || ch == '?' || ch == ':' ||
		    c->neach == CLI_MAX_OPTS) {
			rc = CLI_USAGE;
			goto out;
		}
		c->opt[ch] = optarg ? optarg : "";
		c->each[c->neach].letter = ch;
		c->each[c->neach++].arg = optarg;
	}
	c->argc = argc - optind;
	c->argv = argv + optind;
	rc = CLI_USAGE;
	if (c->argc < cmd->min_args || c->argc > cmd->max_args ||
	    (cmd->check != NULL && (rc = cmd->check(c)) != CLI_GO))
		goto out;
	if ((cmd->needs & CLI_CONFIG) && !have_cfg) {
		fprintf(stderr, "hexpost: %s%s%s needs a configuration %s\n",
		    cmd->name, cmd->sub ? " " : "", cmd->sub ? cmd->sub : "",
		    cmd->config_why);
		rc = HP_EX_CONFIG;
		goto out;
	}
	if ((cmd->needs & CLI_DB) && (c->st = open_db(false, &rc)) == NULL)
		goto out;
	if ((cmd->needs & CLI_CAMPAIGN) && store_game_load(c->st, c->argv[0],
	    &c->g, &c->cid, &c->err) != HP_OK) {
		rc = fail(&c->err);
		goto out;
	}
	rc = cmd->fn(c);
out:
	if (rc == CLI_USAGE)
		rc = usage_of(cmd) + HP_EX_USAGE;
	game_free(&c->g);
	store_close(c->st);
	free(c);
	return rc;
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
	const struct cmd *cmd;
	int ch, sub;

	/* Everything hexpost creates (database, WAL, SHM, keys, mail) is
	 * its user's alone unless a mode is set explicitly (server.pub and
	 * audit bundles are published, and chmod'ed so). */
	umask(077);
	if (sodium_init() < 0)
		fatalx("libsodium failed to initialise");
	engine_init();
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
			usage(stderr);
			return 0;
		case 'V':
			printf("hexpost %s\n", HEXPOST_VERSION);
			return 0;
		default:
			usage(stderr);
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
		usage(stderr);
		return HP_EX_USAGE;
	}
	if ((cmd = cmd_find(argc, argv, &sub)) != NULL) {
		sub = cmd_run_one(cmd, argc - sub + 1, argv + sub - 1);
		config_free(&cfg);
		return sub;
	}
	fprintf(stderr, "hexpost: unknown command '%s'\n", argv[0]);
	usage(stderr);
	return HP_EX_USAGE;
}
