/*
 * bench_store [CAMPAIGNS [PASSES [MESSAGES]]]: the storage and idle side of
 * a club (issue 17). Makes two data directories with `hexpost init` (deadline_hours
 * 48, so every campaign has a clock): one with a single fire-and-movement
 * campaign, one with CAMPAIGNS (default 10000), each waiting for its Blue
 * player's orders. Then, with the real program (`hexpost` next to this
 * one, or $HEXPOST_BIN):
 *
 * - the first `run --once` over each (every campaign looked at once, its
 *   wake stored), then PASSES (default 15) idle `run --once` passes over
 *   each, timed; the ratio of the medians (target <= 2);
 * - the outbox's delivery of MESSAGES (default 2000) queued messages by one
 *   pass: a sync and a commit per message (the path before, toggled by
 *   HEXPOST_OUTBOX_SYNC_EACH) against a batch at a time (target: 3 times
 *   faster per message);
 * - the database bytes per resolved window over a long game of each
 *   ruleset (every side a player; games one after another until 400
 *   windows, each campaign's setup not counted), as sent and
 *   a day later when retention has compressed the sent copies (target
 *   <= 6 KB);
 * - the peak resident memory of a `run --once` pass and of the daemon
 *   (`hexpost run`, read from /proc after its idle passes) over CAMPAIGNS
 *   (target < 32 MB);
 * - what the idle daemon writes to its log at the default level (target:
 *   nothing) over a few passes (poll_interval 1).
 *
 * - a burst of 300 order windows over 300 campaigns resolved by one pass,
 *   each commit and message synced on its own (before) against batched,
 *   and the CPU time (user + system) of each pass per window;
 *   BENCH_STORE_KEEP=DIR leaves a copy of that data directory, orders
 *   entered and nothing resolved, in DIR (to profile a pass over it);
 *   BENCH_STORE_TODAY=BIN also runs the pass with the program BIN (built
 *   from an earlier commit, as it is today) over a third copy, batched,
 *   and prints the ratio today/batched, wall and CPU;
 * BENCH_STORE_ONLY=windows or burst runs that part alone;
 * BENCH_STORE_RULESET=NAME the bytes per window of that ruleset alone;
 * with BENCH_STORE_KEEP=DIR, a copy of each ruleset's database after its
 * day is left as DIR/RULESET.db.
 *
 * Prints the figures and PASS or FAIL per target; exit status 0 whatever
 * they are (70 when the setup fails).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "config.h"
#include "daemon.h"
#include "engine.h"
#include "game.h"
#include "hexpost.h"
#include "ruleset.h"
#include "serverkey.h"
#include "store.h"
#include "turn.h"
#include "window.h"

static char work[512];
static char hexpost_bin[600];
/* The CPU time (user + system) of the last run_once, in seconds. */
static double last_cpu;

/* Print why and exit 70, removing the work directory. */
__attribute__((noreturn, format(printf, 1, 2)))
static void
die(const char *fmt, ...)
{
	char cmd[700];
	va_list ap;

	va_start(ap, fmt);
	fputs("bench_store: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	if (work[0]) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_store: %s left\n", work);
	}
	exit(HP_EX_SOFTWARE);
}

/* Run the shell command cmd; die if it fails. */
static void
shell(const char *cmd)
{
	if (system(cmd) != 0)
		die("failed: %s", cmd);
}

/* A data directory dir with n campaigns, each waiting for Blue. The first
 * is made by turn_campaign_new (its seed chain alone takes ~30 ms); the
 * others are row copies of it under other names and ids, in one
 * transaction (the pass reads them as it reads any campaign; none is
 * resolved here, so the shared seeds do not matter). */
static void
setup(const char *dir, long n)
{
	static const char *tables[] = { "sides", "hexes", "units", "vars",
		"campaign_settings" };
	struct hp_error err = { 0, "" };
	struct store *st = NULL;
	struct game g;
	char cmd[2048], db[640], path[640];
	struct sbuf sb;
	int64_t cid;
	long i;
	size_t k;
	int blue;

	snprintf(cmd, sizeof cmd, "'%s' init --datadir '%s' >/dev/null && "
	    "printf 'deadline_hours = 48\\npoll_interval = 1\\nfrom = "
	    "hexpost@club.example\\ndomain = club.example\\n' >> "
	    "'%s/hexpost.conf'", hexpost_bin, dir, dir);
	shell(cmd);
	if (n == 0)
		return;
	snprintf(db, sizeof db, "%s/hexpost.db", dir);
	if (store_open(&st, db, false, &err) != HP_OK)
		die("%s: %s", db, err.msg);
	game_init(&g);
	if (turn_campaign_new(st, "c00000", "fire-and-movement", NULL, "",
	    NULL, 0, &err) != HP_OK ||
	    store_game_load(st, "c00000", &g, &cid, &err) != HP_OK)
		die("campaign c00000: %s", err.msg);
	if ((blue = game_side_index(&g, "blue")) < 0)
		die("campaign c00000 has no side blue");
	if (store_begin(st, &err) != HP_OK ||
	    store_player_add(st, cid, blue, "blue", "blue@example.org", NULL,
	    NULL, false, &err) != HP_OK || store_commit(st, &err) != HP_OK)
		die("player of c00000: %s", err.msg);
	game_free(&g);
	store_close(st);
	sbuf_init(&sb);
	sbuf_printf(&sb, "BEGIN;\n"
	    "CREATE TEMP TABLE t_campaigns AS SELECT * FROM campaigns WHERE "
	    "id = %lld;\n"
	    "CREATE TEMP TABLE t_players AS SELECT * FROM players WHERE "
	    "campaign_id = %lld;\n"
	    "CREATE TEMP TABLE t_windows AS SELECT * FROM windows WHERE "
	    "campaign_id = %lld;\n"
	    "CREATE TEMP TABLE t_window_clock AS SELECT k.* FROM window_clock "
	    "k JOIN windows w ON w.id = k.window_id WHERE w.campaign_id = "
	    "%lld;\n", (long long)cid, (long long)cid, (long long)cid,
	    (long long)cid);
	for (k = 0; k < sizeof tables / sizeof *tables; k++)
		sbuf_printf(&sb, "CREATE TEMP TABLE t_%s AS SELECT * FROM %s "
		    "WHERE campaign_id = %lld;\n", tables[k], tables[k],
		    (long long)cid);
	for (i = 1; i < n; i++) {
		long long c = (long long)cid + i, w = 1000000 + i;

		sbuf_printf(&sb, "UPDATE t_campaigns SET id = %lld, name = "
		    "'c%05ld';\nINSERT INTO campaigns SELECT * FROM "
		    "t_campaigns;\n", c, i);
		for (k = 0; k < sizeof tables / sizeof *tables; k++)
			sbuf_printf(&sb, "UPDATE t_%s SET campaign_id = %lld;\n"
			    "INSERT INTO %s SELECT * FROM t_%s;\n", tables[k],
			    c, tables[k], tables[k]);
		sbuf_printf(&sb, "UPDATE t_players SET id = NULL, campaign_id = "
		    "%lld;\nINSERT INTO players SELECT * FROM t_players;\n"
		    "UPDATE t_windows SET id = %lld, campaign_id = %lld;\n"
		    "INSERT INTO windows SELECT * FROM t_windows;\n"
		    "UPDATE t_window_clock SET window_id = %lld;\n"
		    "INSERT INTO window_clock SELECT * FROM t_window_clock;\n",
		    c, w, c, w);
	}
	sbuf_puts(&sb, "COMMIT;\n");
	snprintf(path, sizeof path, "%s/clone.sql", dir);
	if (util_write_file_atomic(path, sb.buf, sb.len, 0600, &err) != HP_OK)
		die("%s: %s", path, err.msg);
	sbuf_free(&sb);
	snprintf(cmd, sizeof cmd, "sqlite3 -bail '%s' < '%s' && rm '%s'", db,
	    path, path);
	shell(cmd);
}

/* One `hexpost run --once` over dir: wall seconds; *maxrss its peak
 * resident memory in KB. Dies unless it exits 0. */
static double
run_once(const char *dir, long *maxrss)
{
	char conf[640];
	struct rusage ru;
	double t0 = bench_now(), t;
	int status;
	pid_t pid;

	snprintf(conf, sizeof conf, "%s/hexpost.conf", dir);
	fflush(stdout);
	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL)
			_exit(127);
		execl(hexpost_bin, "hexpost", "--config", conf, "run", "--once",
		    (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) == -1)
		die("wait4: %s", strerror(errno));
	t = bench_now() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("run --once over %s failed (status %d)", dir, status);
	if (maxrss != NULL)
		*maxrss = ru.ru_maxrss;
	last_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	    ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	return t;
}

/* qsort: doubles ascending. */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of passes idle passes over dir. */
static double
idle_median(const char *dir, int passes, long *maxrss)
{
	double *t = xcalloc((size_t)passes, sizeof *t), m;
	int i;

	for (i = 0; i < passes; i++)
		t[i] = run_once(dir, maxrss);
	qsort(t, (size_t)passes, sizeof *t, cmp_double);
	m = t[passes / 2];
	free(t);
	return m;
}

/* Queue m messages of about 2.5 KB (a report's size) in dir's outbox, tag
 * in their Message-IDs, straight into the table; then one `run --once`
 * delivers them, each fsynced and recorded on its own if sync_each (the
 * path before issue 17, HEXPOST_OUTBOX_SYNC_EACH) or a batch at a time.
 * Returns the pass's seconds; the outbox's new/ is emptied after. */
static double
burst(const char *dir, long m, const char *tag, bool sync_each)
{
	char cmd[2048];
	double t;

	snprintf(cmd, sizeof cmd, "sqlite3 '%s/hexpost.db' \"INSERT INTO "
	    "outbox(message_id, kind, rcpt, envelope_from, data) WITH RECURSIVE "
	    "c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %ld) "
	    "SELECT 'burst.%s.' || i || '@club.example', 'report', 'p' || i || "
	    "'@example.org', '', CAST('Message-ID: <burst.%s.' || i || "
	    "'@club.example>' || char(10) || 'Subject: report' || char(10) || "
	    "char(10) || hex(randomblob(1250)) || char(10) AS BLOB) FROM c\"",
	    dir, m, tag, tag);
	shell(cmd);
	if (sync_each)
		setenv("HEXPOST_OUTBOX_SYNC_EACH", "1", 1);
	t = run_once(dir, NULL);
	unsetenv("HEXPOST_OUTBOX_SYNC_EACH");
	snprintf(cmd, sizeof cmd, "test \"$(sqlite3 '%s/hexpost.db' \"SELECT "
	    "count(*) FROM outbox WHERE state = 'sent' AND message_id LIKE "
	    "'burst.%s.%%'\")\" = %ld && find '%s/outbox/new' -type f -delete",
	    dir, tag, m, dir);
	shell(cmd);
	return t;
}

/* store_storage_get callback: the five largest tables, per window. */
static void
print_top(const char *name, int64_t bytes, void *arg)
{
	int *left = arg;

	if ((*left)-- > 0)
		printf("      %-28s %8.2f KB a window\n", name, (double)bytes /
		    1024 / left[1]);
}

/* CPU seconds (user and system) of this process so far. */
static double
cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Database bytes in use (pages minus free pages). */
static int64_t
db_used(struct store *st)
{
	struct hp_error err = { 0, "" };
	struct store_storage s;

	if (store_storage_get(st, &s, NULL, NULL, &err) != HP_OK)
		die("storage: %s", err.msg);
	return s.file_bytes - s.free_bytes;
}

/* Campaign name of ruleset rs (master seed "bench"), a player without a
 * key on every side (the first one its moderator). */
static void
new_game(struct store *st, const struct ruleset *rs, const char *name)
{
	struct hp_error err = { 0, "" };
	struct game g;
	int64_t cid;
	int i;

	if (turn_campaign_new(st, name, rs->name, NULL, "", (const unsigned
	    char *)name, strlen(name), &err) != HP_OK)
		die("campaign of %s: %s", rs->name, err.msg);
	game_init(&g);
	if (store_game_load(st, name, &g, &cid, &err) != HP_OK ||
	    store_begin(st, &err) != HP_OK)
		die("%s", err.msg);
	for (i = 0; i < g.nsides; i++) {
		char pname[32], email[64];

		snprintf(pname, sizeof pname, "p%d", i);
		snprintf(email, sizeof email, "%s.p%d@example.org", name, i);
		if (store_player_add(st, cid, i, pname, email, NULL, NULL,
		    i == 0, &err) != HP_OK)
			die("player: %s", err.msg);
	}
	if (store_commit(st, &err) != HP_OK)
		die("%s", err.msg);
	game_free(&g);
}

/* One long game of ruleset rs, played by mail as a club plays it: a
 * player (no key) on every side, the built-in opponent's orders entered
 * for each side every window, daemon passes (signed dice logs, reports
 * queued and delivered into the outbox Maildir) until the game ends or
 * maxw windows. Prints the database bytes per resolved window as sent and
 * after a day (sent copies compressed by retention); *per gets the latter. */
static void
window_bytes(const struct ruleset *rs, int maxw, double *per)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *sk = NULL;
	struct store_compact_stats cs;
	struct store *st = NULL;
	struct config cfg;
	char dir[640], conf[700];
	int64_t cid, base, sent_bytes, day_bytes, setup_bytes = 0;
	double t0, c0, t_skip = 0, c_skip = 0;
	int i, nw = 0, devnull, saved, ngames = 0;
	bool game_over = false;
	char cname[32];
	struct game g;

	snprintf(dir, sizeof dir, "%s/rs-%s", work, rs->name);
	setup(dir, 0);
	snprintf(conf, sizeof conf, "%s/hexpost.conf", dir);
	memset(&cfg, 0, sizeof cfg);
	if (config_load(&cfg, conf, &err) != HP_OK ||
	    serverkey_load(cfg.server_key, &sk, &err) != HP_OK ||
	    store_open(&st, cfg.database, false, &err) != HP_OK)
		die("%s: %s", dir, err.msg);
	fflush(stdout);
	devnull = open("/dev/null", O_WRONLY);
	saved = dup(1);
	dup2(devnull, 1);
	if (daemon_pass(st, &cfg, sk, &err) != HP_OK)
		die("pass: %s", err.msg);
	base = db_used(st);
	t0 = bench_now();
	c0 = cpu_seconds();
	for (;;) {
		struct store_window w;
		struct store_storage s;
		unsigned missing;

		if (ngames == 0 || game_over) {
			if (nw >= maxw)
				break;
			double v0 = bench_now(), vc = cpu_seconds();

			snprintf(cname, sizeof cname, "long%d", ++ngames);
			/* A campaign's setup (map, units) is not a window's:
			 * measured between two VACUUMs (pages freed earlier
			 * would hide it otherwise), nor is its time. */
			if (store_vacuum(st, &err) != HP_OK)
				die("%s", err.msg);
			setup_bytes -= db_used(st);
			new_game(st, rs, cname);
			if (store_vacuum(st, &err) != HP_OK)
				die("%s", err.msg);
			setup_bytes += db_used(st);
			t_skip += bench_now() - v0;
			c_skip += cpu_seconds() - vc;
		}
		game_init(&g);
		if (store_game_load(st, cname, &g, &cid, &err) != HP_OK)
			die("%s", err.msg);
		if ((game_over = g.status == GAME_FINISHED)) {
			game_free(&g);
			continue;
		}
		if (turn_pending(st, cname, &w, &missing, &err) != HP_OK)
			die("pending: %s", err.msg);
		for (i = 0; i < g.nsides; i++) {
			struct turn_submit res;
			char *text;

			if (!(missing & (1u << i)))
				continue;
			text = window_opponent_orders(&g, &w.spec, i);
			turn_submit_init(&res);
			if (turn_submit(st, cname, text, strlen(text), i, 0,
			    "cli", &res, &err) != HP_OK)
				die("orders of side %d: %s", i, err.msg);
			turn_submit_free(&res);
			free(text);
		}
		game_free(&g);
		if (daemon_pass(st, &cfg, sk, &err) != HP_OK)
			die("pass: %s", err.msg);
		if (store_storage_get(st, &s, NULL, NULL, &err) != HP_OK)
			die("%s", err.msg);
		if (s.windows == nw)
			die("%s: no window resolved", rs->name);
		nw = (int)s.windows;
	}
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(devnull);
	t0 = bench_now() - t0 - t_skip;
	c0 = cpu_seconds() - c0 - c_skip;
	if (store_vacuum(st, &err) != HP_OK)
		die("%s", err.msg);
	sent_bytes = db_used(st) - base - setup_bytes;
	/* A day later: every sent copy compressed (nothing removed). */
	if (store_compact(st, (long)time(NULL) + 2 * 86400, 0, &cs, &err) !=
	    HP_OK || store_vacuum(st, &err) != HP_OK)
		die("compact: %s", err.msg);
	day_bytes = db_used(st) - base - setup_bytes;
	*per = (double)day_bytes / nw / 1024;
	/* BENCH_STORE_KEEP=DIR: a copy of the database a day later, as
	 * DIR/RULESET.db (to see where the bytes are). */
	{
		const char *keep = getenv("BENCH_STORE_KEEP");
		char cmd[2400];

		if (keep != NULL && *keep != '\0') {
			snprintf(cmd, sizeof cmd, "mkdir -p '%s' && rm -f "
			    "'%s/%s.db' && sqlite3 '%s' \"VACUUM INTO "
			    "'%s/%s.db'\"", keep, keep, rs->name, cfg.database,
			    keep, rs->name);
			if (system(cmd) != 0)
				fprintf(stderr, "bench_store: no copy in %s\n",
				    keep);
		}
	}
	printf("  %-20s %.2f ms a window (%.2f ms of CPU): orders entered, "
	    "resolved, reports queued and delivered (one daemon pass a "
	    "window)\n", rs->name, t0 * 1e3 / nw, c0 * 1e3 / nw);
	printf("  %-20s %4d windows (%d games): %6.2f KB a window as sent, %6.2f KB after "
	    "a day (%lld sent copies compressed)  %s\n", rs->name, nw, ngames,
	    (double)sent_bytes / nw / 1024, *per, (long long)cs.packed,
	    *per <= 6 ? "PASS" : "FAIL");
	{
		struct store_storage ss;
		int top[2] = { 5, nw };

		if (store_storage_get(st, &ss, print_top, top, &err) != HP_OK)
			die("%s", err.msg);
	}
	store_close(st);
	minisign_seckey_free(sk);
	config_free(&cfg);
}

/* A burst of k order windows: a data directory with k campaigns (as
 * setup), each looked at once, then Blue's orders entered in every one;
 * copied, and one `run --once` over each copy resolves the k windows and
 * delivers their reports: once as before issue 17 (each commit and each
 * message synced on its own: HEXPOST_PASS_SYNC_EACH and
 * HEXPOST_OUTBOX_SYNC_EACH), once as now. *before and *after get the
 * seconds per window, *cpu_before and *cpu_after the CPU seconds (user and
 * system) per window of each pass. With BENCH_STORE_KEEP=DIR set, the
 * directory with the orders entered is copied to DIR first (to profile a
 * pass over it: `hexpost --config DIR/hexpost.conf run --once`). */
static void
burst_windows(long k, double *before, double *after, double *cpu_before,
    double *cpu_after)
{
	const char *keep = getenv("BENCH_STORE_KEEP");
	const char *today = getenv("BENCH_STORE_TODAY");
	char third[640], mine[sizeof hexpost_bin];
	double t_today = 0, cpu_today = 0;
	struct hp_error err = { 0, "" };
	struct store *st = NULL;
	char dir[640], copy[640], db[700], cmd[8192], name[32];
	long i;

	snprintf(dir, sizeof dir, "%s/burst", work);
	snprintf(copy, sizeof copy, "%s/burst2", work);
	snprintf(third, sizeof third, "%s/burst3", work);
	setup(dir, k);
	run_once(dir, NULL);
	snprintf(db, sizeof db, "%s/hexpost.db", dir);
	if (store_open(&st, db, false, &err) != HP_OK ||
	    store_sync_full(st, false, &err) != HP_OK)
		die("%s: %s", db, err.msg);
	for (i = 0; i < k; i++) {
		struct turn_submit res;
		struct store_window w;
		unsigned missing;
		struct game g;
		char *text;

		snprintf(name, sizeof name, "c%05ld", i);
		game_init(&g);
		if (store_game_load(st, name, &g, NULL, &err) != HP_OK ||
		    turn_pending(st, name, &w, &missing, &err) != HP_OK)
			die("%s: %s", name, err.msg);
		text = window_opponent_orders(&g, &w.spec, game_side_index(&g,
		    "blue"));
		turn_submit_init(&res);
		if (turn_submit(st, name, text, strlen(text), -1, 0, "cli",
		    &res, &err) != HP_OK)
			die("orders of %s: %s", name, err.msg);
		turn_submit_free(&res);
		free(text);
		game_free(&g);
	}
	store_close(st);
	/* (Its hexpost.conf names its own directory: the database, the
	 * key, the inbox and the outbox Maildirs.) */
	snprintf(cmd, sizeof cmd, "cp -a '%s' '%s' && sed -i -e 's|%s|%s|g' "
	    "'%s/hexpost.conf'", dir, copy, dir, copy, copy);
	shell(cmd);
	if (today != NULL && *today != '\0') {
		snprintf(cmd, sizeof cmd, "cp -a '%s' '%s' && sed -i -e "
		    "'s|%s|%s|g' '%s/hexpost.conf'", dir, third, dir, third,
		    third);
		shell(cmd);
		/* Today's program, as it runs by default. */
		snprintf(mine, sizeof mine, "%s", hexpost_bin);
		snprintf(hexpost_bin, sizeof hexpost_bin, "%s", today);
		t_today = run_once(third, NULL) / (double)k;
		cpu_today = last_cpu / (double)k;
		snprintf(hexpost_bin, sizeof hexpost_bin, "%s", mine);
	}
	if (keep != NULL && *keep != '\0') {
		snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s' && "
		    "sed -i -e 's|%s|%s|g' '%s/hexpost.conf'", keep, dir, keep,
		    dir, keep, keep);
		shell(cmd);
	}
	setenv("HEXPOST_PASS_SYNC_EACH", "1", 1);
	setenv("HEXPOST_OUTBOX_SYNC_EACH", "1", 1);
	*before = run_once(dir, NULL) / (double)k;
	*cpu_before = last_cpu / (double)k;
	unsetenv("HEXPOST_PASS_SYNC_EACH");
	unsetenv("HEXPOST_OUTBOX_SYNC_EACH");
	*after = run_once(copy, NULL) / (double)k;
	*cpu_after = last_cpu / (double)k;
	if (today != NULL && *today != '\0') {
		printf("  today's program (%s), batched: %.2f ms a window, CPU "
		    "%.2f ms a window; ratio today/batched %.1f (wall), %.1f "
		    "(CPU)\n", today, t_today * 1e3, cpu_today * 1e3, t_today /
		    *after, cpu_today / *cpu_after);
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", third);
		shell(cmd);
	}
	/* Both resolved every window: k of them, and the next ones open. */
	snprintf(cmd, sizeof cmd, "for d in '%s' '%s'; do n=$(sqlite3 "
	    "\"$d/hexpost.db\" \"SELECT count(*) FROM windows WHERE state = "
	    "'resolved'\"); [ \"$n\" -ge %ld ] || { echo \"$d: $n windows "
	    "resolved\" >&2; exit 1; }; done; rm -rf '%s' '%s'", dir, copy,
	    k, dir, copy);
	shell(cmd);
}

/* A /proc/PID/status figure in KB (VmRSS, VmHWM), or -1. */
static long
proc_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, kl) == 0 && line[kl] == ':')
			v = strtol(line + kl + 1, NULL, 10);
	fclose(f);
	return v;
}

/* The daemon over dir for secs seconds (poll_interval 1): its resident
 * memory (*rss, *hwm in KB) and the bytes it wrote to stdout and stderr. */
static long
daemon_run_for(const char *dir, int secs, long *rss, long *hwm)
{
	char conf[640], logf[640];
	struct stat sb;
	int status;
	pid_t pid;

	snprintf(conf, sizeof conf, "%s/hexpost.conf", dir);
	snprintf(logf, sizeof logf, "%s/daemon.log", dir);
	fflush(stdout);
	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (freopen(logf, "w", stdout) == NULL ||
		    dup2(fileno(stdout), 2) == -1)
			_exit(127);
		execl(hexpost_bin, "hexpost", "--config", conf, "run",
		    (char *)NULL);
		_exit(127);
	}
	sleep((unsigned)secs);
	*rss = proc_kb(pid, "VmRSS");
	*hwm = proc_kb(pid, "VmHWM");
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) == -1)
		die("waitpid: %s", strerror(errno));
	if (stat(logf, &sb) == -1)
		die("%s: %s", logf, strerror(errno));
	return (long)sb.st_size;
}

int
main(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR"), *bin = getenv("HEXPOST_BIN");
	const char *only;
	char one[600], many[600], cmd[700], *slash;
	double t, first1, firstn, idle1, idlen, ratio, tb, tn, cb, cn, per;
	const struct ruleset *const *rsp;
	long ncamp = 10000, rss1, rssn, rssfirst, drss, dhwm, logbytes;
	int passes = 15;
	long nburst = 2000, nwin = 300;

	if (argc > 1 && (ncamp = strtol(argv[1], NULL, 10)) < 1)
		die("bad number of campaigns '%s'", argv[1]);
	if (argc > 2 && (passes = atoi(argv[2])) < 1)
		die("bad number of passes '%s'", argv[2]);
	if (argc > 3 && (nburst = strtol(argv[3], NULL, 10)) < 1)
		die("bad number of messages '%s'", argv[3]);
	if (bin != NULL && *bin != '\0')
		snprintf(hexpost_bin, sizeof hexpost_bin, "%s", bin);
	else {
		snprintf(hexpost_bin, sizeof hexpost_bin, "%s", argv[0]);
		if ((slash = strrchr(hexpost_bin, '/')) != NULL)
			snprintf(slash + 1, sizeof hexpost_bin -
			    (size_t)(slash + 1 - hexpost_bin), "hexpost");
		else
			snprintf(hexpost_bin, sizeof hexpost_bin, "./hexpost");
	}
	if (access(hexpost_bin, X_OK) == -1)
		die("%s: %s (set HEXPOST_BIN)", hexpost_bin, strerror(errno));
	engine_init();
	snprintf(work, sizeof work, "%s/bench_store.XXXXXX",
	    tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (mkdtemp(work) == NULL) {
		work[0] = '\0';
		die("mkdtemp: %s", strerror(errno));
	}
	snprintf(one, sizeof one, "%s/one", work);
	snprintf(many, sizeof many, "%s/many", work);

	if ((only = getenv("BENCH_STORE_ONLY")) != NULL &&
	    strcmp(only, "burst") == 0) {
		burst_windows(nwin, &tb, &tn, &cb, &cn);
		printf("burst of %ld order windows over %ld campaigns: before "
		    "%.2f ms a window, batched %.2f ms a window, ratio %.1f "
		    "(target >= 3) %s\n", nwin, nwin, tb * 1e3, tn * 1e3,
		    tb / tn, tb / tn >= 3 ? "PASS" : "FAIL");
		printf("  CPU of the pass (user + system): before %.2f ms a "
		    "window, batched %.2f ms a window\n", cb * 1e3, cn * 1e3);
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_store: %s left\n", work);
		return 0;
	}
	if (only != NULL && strcmp(only, "windows") == 0) {
		printf("database bytes per resolved window, a long game of each "
		    "ruleset (target <= 6 KB):\n");
		const char *only_rs = getenv("BENCH_STORE_RULESET");

		for (rsp = ruleset_all(); *rsp != NULL; rsp++)
			if (!(*rsp)->test && (only_rs == NULL ||
			    strcmp(only_rs, (*rsp)->name) == 0))
				window_bytes(*rsp, 400, &per);
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_store: %s left\n", work);
		return 0;
	}
	t = bench_now();
	setup(one, 1);
	setup(many, ncamp);
	printf("setup: 1 and %ld fire-and-movement campaigns waiting for "
	    "Blue (deadline_hours 48) in %.1f s\n", ncamp, bench_now() - t);

	first1 = run_once(one, NULL);
	firstn = run_once(many, &rssfirst);
	printf("first pass (every campaign looked at): 1 campaign %.1f ms, "
	    "%ld campaigns %.1f ms (%.3f ms each), peak RSS %.1f MB\n",
	    first1 * 1e3, ncamp, firstn * 1e3, firstn * 1e3 / (double)ncamp,
	    (double)rssfirst / 1024);
	idle1 = idle_median(one, passes, &rss1);
	idlen = idle_median(many, passes, &rssn);
	ratio = idlen / idle1;
	printf("idle run --once, median of %d: 1 campaign %.2f ms, %ld "
	    "campaigns %.2f ms\n", passes, idle1 * 1e3, ncamp, idlen * 1e3);
	printf("  peak RSS of an idle pass: 1 campaign %.1f MB, %ld campaigns "
	    "%.1f MB\n", (double)rss1 / 1024, ncamp, (double)rssn / 1024);
	printf("ratio idle %ld/1     %6.2f  (target <= 2)   %s\n", ncamp, ratio,
	    ratio <= 2 ? "PASS" : "FAIL");

	tb = burst(one, nburst, "each", true) - idle1;
	tn = burst(one, nburst, "batch", false) - idle1;
	printf("outbox burst, %ld messages of 2.5 KB into the Maildir by one "
	    "run --once (its idle cost taken off):\n  one sync and commit per "
	    "message (before): %.3f ms/message; a batch at a time: %.3f "
	    "ms/message\n", nburst, tb * 1e3 / (double)nburst, tn * 1e3 /
	    (double)nburst);
	printf("ratio delivery before/batched  %6.1f  (target >= 3)   %s\n",
	    tb / tn, tb / tn >= 3 ? "PASS" : "FAIL");

	burst_windows(nwin, &tb, &tn, &cb, &cn);
	printf("burst of %ld order windows over %ld campaigns (orders in, one "
	    "run --once resolves them and delivers their reports):\n  each "
	    "commit and message synced (before): %.2f ms a window; batched: "
	    "%.2f ms a window\n", nwin, nwin, tb * 1e3, tn * 1e3);
	printf("  CPU of the pass (user + system): before %.2f ms a window, "
	    "batched %.2f ms a window\n", cb * 1e3, cn * 1e3);
	printf("ratio burst before/batched     %4.1f  (target >= 3)   %s\n",
	    tb / tn, tb / tn >= 3 ? "PASS" : "FAIL");
	printf("database bytes per resolved window, a long game of each "
	    "ruleset (target <= 6 KB):\n");
	for (rsp = ruleset_all(); *rsp != NULL; rsp++)
		if (!(*rsp)->test)
			window_bytes(*rsp, 400, &per);

	logbytes = daemon_run_for(many, 4, &drss, &dhwm);
	printf("daemon over %ld campaigns, 4 s (poll_interval 1): RSS %.1f MB, "
	    "peak %.1f MB; %ld bytes written to its log\n", ncamp,
	    (double)drss / 1024, (double)dhwm / 1024, logbytes);
	printf("daemon peak RSS  %6.1f MB (target < 32)    %s\n",
	    (double)dhwm / 1024, dhwm > 0 && dhwm < 32 * 1024 ? "PASS" :
	    "FAIL");
	printf("idle log bytes   %6ld    (target 0)       %s\n", logbytes,
	    logbytes == 0 ? "PASS" : "FAIL");

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_store: %s left\n", work);
	return 0;
}
