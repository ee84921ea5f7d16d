/* daemon: the run loop, signals and the lock (see include/daemon.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "web.h"
#include "deadline.h"
#include "fault.h"
#include "fetch_imap.h"
#include "intake.h"
#include "log.h"
#include "mail.h"
#include "outbox.h"
#include "serverkey.h"
#include "turn.h"

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reload_requested;
/* A daemon below log level info: a pass that moved no mail prints
 * nothing (an idle daemon writes nothing to its log; issue 17). */
static bool daemon_quiet;

/* SIGTERM, SIGINT: stop after the step in hand. */
static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* SIGHUP: reread the configuration before the next pass. */
static void
on_hup(int sig)
{
	(void)sig;
	reload_requested = 1;
}

int
daemon_lock(const char *datadir, int *fd, struct hp_error *err)
{
	char path[CONFIG_PATH_MAX + 16], pid[32], held[32] = "";
	ssize_t n;
	int f;

	snprintf(path, sizeof path, "%s/hexpost.lock", datadir);
	if ((f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	if (flock(f, LOCK_EX | LOCK_NB) == -1) {
		int e = errno;

		if ((n = pread(f, held, sizeof held - 1, 0)) > 0)
			held[n] = '\0';
		held[strcspn(held, "\n")] = '\0';
		close(f);
		if (e == EWOULDBLOCK) {
			if (held[0])
				hp_seterr(err, HP_ESTATE, "another hexpost run "
				    "(pid %s) is working on %s (lock %s)", held,
				    datadir, path);
			else
				hp_seterr(err, HP_ESTATE, "another hexpost run "
				    "is working on %s (lock %s)", datadir, path);
			return HP_ESTATE;
		}
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(e));
		return HP_EIO;
	}
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(f, 0) == -1 || pwrite(f, pid, strlen(pid), 0) == -1)
		log_warn("%s: %s", path, strerror(errno));
	*fd = f;
	return HP_OK;
}

struct run_mail {
	const struct config *cfg;
	const struct minisign_seckey *sk;	/* signs dice logs, or NULL */
};

/* Turn hook: queue the reports of a window just resolved. */
static int
resolved_hook(void *arg, struct store *st, int64_t cid, const struct game *g,
    const struct store_window *w, struct hp_error *err)
{
	const struct run_mail *rm = arg;

	return mail_queue_reports(st, rm->cfg, cid, g, w, err);
}

/* A campaign the wake index says is due this pass. */
struct run_due {
	char name[GAME_NAME_MAX];
	int64_t cid;
	bool active;
	bool looked;            /* stepped without a busy or full database */
};

struct run_names {
	struct run_due *v;
	int n;
	int cap;
};

/* store_wake_due callback: note each campaign due. */
static void
collect_due(const char *name, int64_t cid, bool active, void *arg)
{
	struct run_names *rn = arg;

	if (rn->n == rn->cap) {
		rn->cap = rn->cap ? rn->cap * 2 : 16;
		rn->v = xrealloc(rn->v, (size_t)rn->cap * sizeof *rn->v);
	}
	strlcpy_(rn->v[rn->n].name, name, GAME_NAME_MAX);
	rn->v[rn->n].cid = cid;
	rn->v[rn->n].active = active;
	rn->v[rn->n].looked = !active;
	rn->n++;
}

/* After the campaigns due were looked at: store when each needs looking
 * at next, in one transaction (a campaign not looked at keeps its wake, so
 * it is looked at again next pass). Returns the rows written (0 when it
 * failed: logged). */
static int
daemon_wake_store(struct store *st, const struct config *cfg,
    const struct run_names *rn, long now)
{
	struct hp_error err = { 0, "" };
	long long wake;
	int i, rc, n = 0;

	if (rn->n == 0)
		return 0;
	if ((rc = store_begin(st, &err)) != HP_OK) {
		log_warn("wake index: %s", err.msg);
		return 0;
	}
	for (i = 0; i < rn->n && rc == HP_OK; i++) {
		if (!rn->v[i].looked)
			continue;
		if (deadline_wake_next(st, cfg, rn->v[i].name, rn->v[i].cid,
		    now, &wake, &err) != HP_OK) {
			/* Left due: looked at again next pass. */
			log_debug("%s: wake: %s", rn->v[i].name, err.msg);
			continue;
		}
		if ((rc = store_wake_set(st, rn->v[i].cid, wake, &err)) ==
		    HP_OK)
			n++;
	}
	if (rc == HP_OK)
		rc = store_commit(st, &err);
	else
		store_rollback(st);
	if (rc != HP_OK) {
		log_warn("wake index: %s", err.msg);
		return 0;
	}
	return n;
}

/* Make every commit of this connection durable now (after commits made
 * with store_sync_full false): a row written again is a page in the WAL,
 * and its commit waits for the disk. HP_OK or an error in err. */
static int
daemon_durable(struct store *st, struct hp_error *err)
{
	int rc;

	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	if ((rc = store_exec(st, "durable", "UPDATE campaign_wake SET wake_at "
	    "= wake_at WHERE campaign_id = (SELECT min(campaign_id) FROM "
	    "campaign_wake)", NULL, NULL, err)) != HP_OK) {
		store_rollback(st);
		return rc;
	}
	return store_commit(st, err);
}

/* Put campaign name (cid) in quarantine after its resolution failed with
 * why, and tell its moderator once, in one transaction: it is not tried
 * again, pass after pass, until the moderator resumes it. */
static void
quarantine(struct store *st, const struct config *cfg, const char *name,
    int64_t cid, long now, const char *why)
{
	struct hp_error err = { 0, "" };
	struct sbuf text;
	struct game g;
	char seed[64];
	int rc;

	log_warn("%s: resolution failed, campaign put in quarantine until "
	    "the moderator resumes it: %s", name, why);
	sbuf_init(&text);
	sbuf_printf(&text, "Resolving campaign %s failed:\n\n  %s\n\n"
	    "The campaign is in quarantine: nothing more is resolved until you "
	    "send the command 'resume' (or run 'hexpost moderate %s resume') "
	    "once the cause is fixed. This is the only message about it.\n",
	    name, why, name);
	snprintf(seed, sizeof seed, "quarantine.%ld", now);
	game_init(&g);
	if ((rc = store_begin(st, &err)) == HP_OK) {
		if ((rc = store_quarantine_put(st, cid, now, why, &err)) ==
		    HP_OK && (rc = store_game_load(st, name, &g, NULL, &err)) ==
		    HP_OK)
			rc = deadline_notice(st, cfg, cid, &g, false, seed,
			    "resolution failed, campaign in quarantine",
			    text.buf, &err);
		if (rc == HP_OK)
			rc = store_commit(st, &err);
		else
			store_rollback(st);
	}
	if (rc != HP_OK)
		log_warn("%s: cannot put it in quarantine: %s", name, err.msg);
	game_free(&g);
	sbuf_free(&text);
}

/* Deadline and resolution of one campaign. HP_EBUSY when the database
 * was held by another process, HP_EIO when a disk was full (neither is the
 * campaign's fault: no quarantine, tried again next pass), else HP_OK. */
static int
campaign_step(struct store *st, const struct config *cfg, const char *name,
    const struct turn_hooks *hooks, const struct minisign_seckey *sk, long now)
{
	struct deadline_settings ds;
	struct store_window w;
	struct hp_error rerr = { 0, "" };
	struct game g;
	enum deadline_action da;
	unsigned missing;
	struct store_quarantine q;
	int64_t cid;
	int n = 0, rc;

	game_init(&g);
	rc = store_game_load(st, name, &g, &cid, &rerr);
	game_free(&g);
	if (rc != HP_OK || deadline_settings_get(st, cfg, cid, &ds, &rerr) !=
	    HP_OK || store_quarantine_get(st, name, &q, &rerr) != HP_OK) {
		log_warn("%s: %s", name, rerr.msg);
		return rerr.code == HP_EBUSY || rerr.code == HP_EIO ? rerr.code :
		    HP_OK;
	}
	if (ds.paused) {
		log_debug("%s: paused", name);
		return HP_OK;
	}
	if (q.on) {
		log_debug("%s: in quarantine (the moderator's 'resume' lifts "
		    "it)", name);
		return HP_OK;
	}
	if (deadline_check(st, cfg, name, now, &da, &rerr) != HP_OK) {
		log_warn("%s: deadline: %s", name, rerr.msg);
		if (rerr.code == HP_EBUSY || rerr.code == HP_EIO)
			return rerr.code;
	} else if (da != DA_NOTHING)
		printf("deadline of %s: %s\n", name, deadline_straction(da));
	if (turn_pending(st, name, &w, &missing, &rerr) != HP_OK ||
	    missing != 0)
		return rerr.code == HP_EBUSY || rerr.code == HP_EIO ? rerr.code :
		    HP_OK;
	rc = turn_resolve_signed(st, name, hooks, sk, &n, &rerr);
	if (rc != HP_OK && (rerr.code == HP_EBUSY || rerr.code == HP_EIO)) {
		log_warn("%s: %s", name, rerr.msg);
		return rerr.code;
	}
	if (rc != HP_OK)
		quarantine(st, cfg, name, cid, now, rerr.msg);
	if (n == 0)
		return HP_OK;
	printf("resolved %d window%s of %s\n", n, n == 1 ? "" : "s", name);
	log_info("resolved %d window%s of %s", n, n == 1 ? "" : "s", name);
	return HP_OK;
}

/* Record the outbox's local fault (why) and tell the moderators when it
 * begins, or clear it (why NULL) and log that it ended. */
static int
daemon_outbox_fault(struct store *st, const struct config *cfg,
    const char *why, long now)
{
	struct hp_error err = { 0, "" };
	bool first, was;
	int rc;

	if (why == NULL) {
		if ((rc = fault_clear(st, "outbox", &was, &err)) == HP_OK &&
		    was)
			log_msg(LOG_LVL_WARN, "the outbox %s can be written "
			    "again; the mail held is delivered", cfg->outbox);
	} else
		rc = fault_raise(st, cfg, "outbox", now, why,
		    "the outbox cannot be written", "hexpost cannot write mail "
		    "into its outbox (the disk is full, read-only, or the "
		    "directory is gone). Every message stays queued, no "
		    "delivery attempt is counted, and all of them go out on the "
		    "first pass after the cause is fixed (run --once exits 74 "
		    "meanwhile). The error:", &first, &err);
	if (rc != HP_OK)
		log_warn("%s", err.msg);
	return rc;
}

/* Once a day (the time of the last one kept in DATADIR/hexpost.retention):
 * apply the retention setting (outbox_retention). Logged at level info;
 * failures are warnings and it is tried again next pass. */
static void
daemon_retention(struct store *st, const struct config *cfg)
{
	struct outbox_retention_stats rs;
	struct hp_error err = { 0, "" };
	char path[CONFIG_PATH_MAX + 20], text[32], *t;
	long now = (long)time(NULL), last = 0;

	snprintf(path, sizeof path, "%s/hexpost.retention", cfg->datadir);
	if ((t = util_read_file(path, NULL, NULL)) != NULL) {
		last = strtol(t, NULL, 10);
		free(t);
	}
	if (last <= now && now - last < 86400)
		return;
	if (outbox_retention(st, cfg, now, &rs, &err) != HP_OK) {
		log_warn("retention: %s", err.msg);
		return;
	}
	if (rs.packed > 0 || rs.deleted > 0 || rs.inbox_files > 0 ||
	    rs.outbox_files > 0 || rs.windows_packed > 0)
		log_info("retention (%d days): %lld sent copies compressed, "
		    "%lld windows packed, %lld outbox rows, %ld inbox and %ld "
		    "outbox files (%lld bytes) removed", cfg->retention_days,
		    (long long)rs.packed, (long long)rs.windows_packed,
		    (long long)rs.deleted, rs.inbox_files, rs.outbox_files,
		    rs.bytes);
	snprintf(text, sizeof text, "%ld\n", now);
	if (util_write_file_atomic(path, text, strlen(text), 0600, &err) !=
	    HP_OK)
		log_warn("%s", err.msg);
}

/* Count the regular files of dir and their bytes into *n and *bytes. */
static void
daemon_dir_usage(const char *dir, long *n, long long *bytes)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode)) {
			(*n)++;
			*bytes += (long long)sb.st_size;
		}
	closedir(d);
}

struct table_lines {
	FILE *f;
	int n;          /* printed so far */
};

/* store_storage_get callback: a line for each of the 12 largest tables
 * and indexes. */
static void
print_table(const char *name, int64_t bytes, void *arg)
{
	struct table_lines *tl = arg;

	if (tl->n++ < 12)
		fprintf(tl->f, "    %-36s %10.1f KB\n", name, (double)bytes /
		    1024);
}

/* The Maildir spec's files in new/ and cur/ (cur/ only if cur_only). */
static void
daemon_maildir_line(FILE *f, const char *what, const char *spec,
    bool cur_only)
{
	char dir[CONFIG_PATH_MAX + 8];
	long n = 0;
	long long bytes = 0;

	if (strncmp(spec, "maildir:", 8) != 0) {
		fprintf(f, "%s: %s (not a Maildir: nothing kept here)\n", what,
		    spec);
		return;
	}
	snprintf(dir, sizeof dir, "%s/cur", spec + 8);
	daemon_dir_usage(dir, &n, &bytes);
	if (!cur_only) {
		snprintf(dir, sizeof dir, "%s/new", spec + 8);
		daemon_dir_usage(dir, &n, &bytes);
	}
	fprintf(f, "%s: %s%s, %ld files, %.1f KB\n", what, spec + 8,
	    cur_only ? "/cur" : " (new/ and cur/)", n, (double)bytes / 1024);
}

int
daemon_storage(struct store *st, const struct config *cfg, bool compact,
    FILE *f, struct hp_error *err)
{
	struct outbox_retention_stats rs;
	struct table_lines tl = { f, 0 };
	struct store_storage s;
	int rc;

	if (compact) {
		if ((rc = outbox_retention(st, cfg, (long)time(NULL), &rs,
		    err)) != HP_OK || (rc = store_vacuum(st, err)) != HP_OK)
			return rc;
		fprintf(f, "compacted: %lld sent copies compressed, %lld "
		    "windows packed, %lld outbox rows removed, %ld inbox and "
		    "%ld outbox files removed (%.1f KB); database vacuumed\n",
		    (long long)rs.packed, (long long)rs.windows_packed,
		    (long long)rs.deleted, rs.inbox_files, rs.outbox_files,
		    (double)rs.bytes / 1024);
	}
	if ((rc = store_storage_get(st, &s, NULL, NULL, err)) != HP_OK)
		return rc;
	fprintf(f, "database: %s, %.1f KB (%.1f KB of it free pages)\n",
	    cfg->database, (double)s.file_bytes / 1024, (double)s.free_bytes /
	    1024);
	fprintf(f, "  resolved windows: %lld (%lld packed)", (long long)s.windows,
	    (long long)s.windows_packed);
	if (s.windows > 0)
		fprintf(f, ", %.1f KB a window in use",
		    (double)(s.file_bytes - s.free_bytes) / 1024 /
		    (double)s.windows);
	fprintf(f, "\n  reports: %lld kept (%lld compressed), %.1f KB\n",
	    (long long)s.reports, (long long)s.reports_packed,
	    (double)s.report_bytes / 1024);
	fprintf(f, "  outbox rows: %lld queued, %lld sent (%lld compressed), "
	    "%lld failed; %.1f KB%s%s\n", (long long)s.outbox_queued,
	    (long long)s.outbox_sent, (long long)s.outbox_packed,
	    (long long)s.outbox_failed, (double)s.outbox_bytes / 1024,
	    s.oldest_sent[0] ? "; oldest sent " : "", s.oldest_sent);
	if (s.shared_dicts > 0)
		fprintf(f, "  shared dictionaries: %lld, %.1f KB (the first "
		    "report, picture data and order files of each ruleset, "
		    "scenario and side; kept for ever)\n",
		    (long long)s.shared_dicts, (double)s.shared_dict_bytes /
		    1024);
	fprintf(f, "  the largest tables and indexes:\n");
	if ((rc = store_storage_get(st, &s, print_table, &tl, err)) != HP_OK)
		return rc;
	daemon_maildir_line(f, "inbox", cfg->mailbox, true);
	daemon_maildir_line(f, "outbox", cfg->outbox, false);
	if (cfg->retention_days > 0)
		fprintf(f, "retention: %d days (retention_days): delivered and "
		    "failed outbox rows, the inbox's cur/ (mail taken in) and "
		    "the outbox Maildir's files older than that are removed "
		    "once a day; sent copies are compressed after a day (a "
		    "report's reduced to its headers and its body's hash); "
		    "reports, orders, dice and signatures are kept for ever\n",
		    cfg->retention_days);
	else
		fprintf(f, "retention: none (retention_days = 0): everything is "
		    "kept; sent copies are compressed after a day (a report's "
		    "reduced to its headers and its body's hash)\n");
	return HP_OK;
}

int
daemon_pass(struct store *st, const struct config *cfg,
    const struct minisign_seckey *sk, struct hp_error *err)
{
	struct run_mail rm = { cfg, sk };
	struct turn_hooks hooks = { resolved_hook, &rm };
	struct intake_stats is;
	struct outbox_stats os;
	struct run_names rn = { NULL, 0, 0 };
	struct fetch_imap_stats fs = { 0, 0, 0, 0 }, ms = { 0, 0, 0, 0 };
	struct hp_error ierr = { 0, "" }, oerr = { 0, "" }, serr = { 0, "" };
	bool reset, quiet;
	long now;
	int rc, i, irc = HP_OK, busy = 0, full = 0;

	if (outbox_sweep(st, cfg, (long)time(NULL), &i, &ierr) != HP_OK)
		log_warn("outbox tmp/: %s", ierr.msg);
	else if (i > 0)
		log_msg(LOG_LVL_WARN, "outbox tmp/: %d file%s left by stopped "
		    "runs removed", i, i == 1 ? "" : "s");
	memset(&ierr, 0, sizeof ierr);
	/* A mail server that fails is retried next pass; the rest goes on,
	 * and the pass ends with its error (run --once: EX_TEMPFAIL). */
	if (cfg->nimap > 0)
		irc = fetch_imap_run(st, cfg, &fs, &ierr);
	if ((rc = intake_run(st, cfg, &is, err)) != HP_OK)
		return rc;
	quiet = daemon_quiet && is.n[INTAKE_ACCEPTED] == 0 &&
	    is.n[INTAKE_REJECTED] == 0 && is.n[INTAKE_IGNORED] == 0 &&
	    is.n[INTAKE_DUPLICATE] == 0 && is.deferred == 0 &&
	    is.unanswered == 0;
	if (!quiet) {
		printf("mail in: %d accepted, %d refused, %d ignored, "
		    "%d duplicate, %d deferred", is.n[INTAKE_ACCEPTED],
		    is.n[INTAKE_REJECTED], is.n[INTAKE_IGNORED],
		    is.n[INTAKE_DUPLICATE], is.deferred);
		/* Refusals to strangers, logged and not mailed (issue 12). */
		if (is.unanswered > 0)
			printf(", %d unanswered", is.unanswered);
		printf("\n");
	}
	if (cfg->nimap > 0) {
		rc = fetch_imap_mark(st, cfg, &ms, irc == HP_OK ? &ierr : err);
		irc = irc == HP_OK ? rc : irc;
		printf("imap: %d fetched, %d marked, %d of %d mailbox%s "
		    "failed\n", fs.fetched, fs.marked + ms.marked, fs.failed,
		    cfg->nimap, cfg->nimap == 1 ? "" : "es");
	}
	if ((rc = deadline_wake_config(st, cfg, &reset, err)) != HP_OK)
		return rc;
	if (reset)
		log_debug("deadline defaults changed: every campaign looked at");
	now = deadline_now();
	/* Only the campaigns the wake index says are due (issue 17). */
	if ((rc = store_wake_due(st, now, collect_due, &rn, err)) != HP_OK)
		return rc;
	/* Their commits do not wait for the disk: nothing they do leaves
	 * the database before the durable commit below (which makes every
	 * commit before it durable too), and a power cut before it loses
	 * only resolutions nobody saw, done again the same way. */
	/* (HEXPOST_PASS_SYNC_EACH, for bench_store only: each commit waits,
	 * as before issue 17.) */
	if (rn.n > 0 && getenv("HEXPOST_PASS_SYNC_EACH") == NULL &&
	    store_sync_full(st, false, &serr) != HP_OK)
		log_warn("%s", serr.msg);
	for (i = 0; i < rn.n && !stop_requested; i++) {
		if (!rn.v[i].active)
			continue;
		switch (campaign_step(st, cfg, rn.v[i].name, &hooks, sk, now)) {
		case HP_EBUSY:
			busy++;
			break;
		case HP_EIO:
			full++;
			break;
		default:
			rn.v[i].looked = true;
			break;
		}
	}
	/* Durable before any mail goes out: the wake index's commit waits
	 * for the disk, and with it every commit before it. */
	if (rn.n > 0 && (store_sync_full(st, true, &serr) != HP_OK ||
	    (daemon_wake_store(st, cfg, &rn, now) == 0 &&
	    daemon_durable(st, &serr) != HP_OK))) {
		free(rn.v);
		*err = serr;
		return serr.code != 0 ? serr.code : HP_EDB;
	}
	log_debug("%d campaign%s due looked at", rn.n, rn.n == 1 ? "" : "s");
	free(rn.v);
	if (stop_requested)
		return HP_OK;
	rc = outbox_deliver(st, cfg, (long)time(NULL), &os, &oerr);
	if (rc != HP_OK && rc != HP_EIO) {
		*err = oerr;
		return rc;
	}
	if (!daemon_quiet || rc == HP_EIO || os.sent > 0 || os.retried > 0 ||
	    os.failed > 0) {
		printf("mail out: %d delivered, %d to retry, %d failed",
		    os.sent, os.retried, os.failed);
		if (rc == HP_EIO)
			printf(", %d held (the outbox cannot be written: %s)",
			    os.held, oerr.msg);
		printf("\n");
	}
	if (daemon_outbox_fault(st, cfg, rc == HP_EIO ? oerr.msg : NULL,
	    (long)time(NULL)) != HP_OK)
		log_warn("the outbox fault could not be recorded");
	if (cfg->web_dir[0] != '\0') {	/* the web archive (issue 18) */
		struct hp_error werr = { 0, "" };

		if (web_write(st, cfg, cfg->web_dir, &werr) != HP_OK)
			log_warn("web archive %s: %s", cfg->web_dir, werr.msg);
	}
	daemon_retention(st, cfg);
	if (rc == HP_EIO) {
		/* Kept queued, the moderators told once; run --once says so
		 * (EX_IOERR: the operator must free or fix the outbox). */
		*err = oerr;
		irc = HP_EIO;
	} else if (irc != HP_OK)
		*err = ierr;
	else if (full > 0) {
		/* Tried again next pass; run --once exits EX_IOERR. */
		hp_seterr(err, HP_EIO, "%d campaign%s not looked at: an I/O "
		    "error such as a full disk (logged above); tried again next "
		    "pass", full, full == 1 ? "" : "s");
		irc = HP_EIO;
	} else if (busy > 0) {
		/* Tried again next pass; run --once says so (EX_TEMPFAIL). */
		hp_seterr(err, HP_EBUSY, "%d campaign%s not looked at: the "
		    "database was locked by another process", busy, busy == 1 ?
		    "" : "s");
		irc = HP_EDB;
	}
	return irc;
}

/* Reread the configuration and the server key after SIGHUP; the database
 * stays the one opened. *sk is replaced only when the new key loads. */
static void
reload(struct config *cfg, struct minisign_seckey **sk)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *nsk = NULL;
	struct config n;

	memset(&n, 0, sizeof n);
	if (config_load(&n, cfg->path, &err) != HP_OK ||
	    serverkey_load(n.server_key, &nsk, &err) != HP_OK) {
		log_msg(LOG_LVL_ERR, "SIGHUP: configuration not reread: %s "
		    "(keeping the one in use)", err.msg);
		config_free(&n);
		return;
	}
	minisign_seckey_free(*sk);
	*sk = nsk;
	config_free(cfg);
	if (strcmp(n.database, cfg->database) != 0 ||
	    strcmp(n.datadir, cfg->datadir) != 0)
		log_warn("SIGHUP: database and datadir changes need a restart");
	strlcpy_(n.database, cfg->database, sizeof n.database);
	strlcpy_(n.datadir, cfg->datadir, sizeof n.datadir);
	*cfg = n;
	log_open(cfg->log_syslog, (enum log_level)cfg->log_level);
	log_msg(LOG_LVL_WARN, "configuration %s reread (poll_interval %d, "
	    "log_level %s)", cfg->path, cfg->poll_interval,
	    log_strlevel(cfg->log_level));
}

/* Reload the server key when the file at cfg->server_key is no longer the
 * one loaded (as after 'hexpost key rotate'), so windows resolved after a
 * rotation are signed with the new key without waiting for a SIGHUP. *was
 * is the identity of the file loaded; on failure the old key stays. A file
 * whose inode or times changed but that holds the same key (touched,
 * copied back, times shifted by a clock jump) is not a change: the keys
 * are compared, not the times alone. */
static void
key_watch(const struct config *cfg, struct stat *was,
    struct minisign_seckey **sk)
{
	struct hp_error err = { 0, "" };
	struct minisign_seckey *nsk = NULL;
	struct stat now;

	if (stat(cfg->server_key, &now) == -1 ||
	    (now.st_dev == was->st_dev && now.st_ino == was->st_ino &&
	    now.st_mtim.tv_sec == was->st_mtim.tv_sec &&
	    now.st_mtim.tv_nsec == was->st_mtim.tv_nsec))
		return;
	if (serverkey_load(cfg->server_key, &nsk, &err) != HP_OK) {
		log_msg(LOG_LVL_ERR, "server key %s changed but does not load: "
		    "%s (signing with the old one)", cfg->server_key, err.msg);
		*was = now;
		return;
	}
	if (*sk != NULL) {
		struct minisign_pubkey a, b;

		minisign_seckey_pubkey(*sk, &a);
		minisign_seckey_pubkey(nsk, &b);
		if (memcmp(a.keyid, b.keyid, sizeof a.keyid) == 0 &&
		    memcmp(a.pk, b.pk, sizeof a.pk) == 0) {
			minisign_seckey_free(nsk);
			*was = now;
			log_debug("server key %s: file touched, same key",
			    cfg->server_key);
			return;
		}
	}
	minisign_seckey_free(*sk);
	*sk = nsk;
	*was = now;
	log_msg(LOG_LVL_WARN, "server key %s changed: reloaded",
	    cfg->server_key);
}

/* The mark file: the database's high water (store_high_water) after the
 * last pass, kept beside it in the data directory. */
static void
daemon_mark_path(const struct config *cfg, char *buf, size_t len)
{
	snprintf(buf, len, "%s/hexpost.mark", cfg->datadir);
}

/* After a pass: write the database's high water into the mark file, so the
 * next start can tell a database that went back in time (even when no
 * mail of the inbox shows it, as with IMAP). */
static void
daemon_mark_write(struct store *st, const struct config *cfg)
{
	struct hp_error err = { 0, "" };
	char path[CONFIG_PATH_MAX + 16], text[64], *old;
	int64_t m, o;
	bool same;

	daemon_mark_path(cfg, path, sizeof path);
	if (store_high_water(st, &m, &o, &err) == HP_OK) {
		snprintf(text, sizeof text, "%lld %lld\n", (long long)m,
		    (long long)o);
		/* Unchanged (an idle pass): not written again. */
		old = util_read_file(path, NULL, NULL);
		same = old != NULL && strcmp(old, text) == 0;
		free(old);
		if (same || util_write_file_atomic(path, text, strlen(text),
		    0600, &err) == HP_OK)
			return;
	}
	log_warn("%s: %s", path, err.msg);
}

/* Is the database behind the mark the last pass left (a restore, a WAL
 * cut)? Then why gets the figures; *ids the mark's and the database's. */
static bool
daemon_mark_behind(struct store *st, const struct config *cfg,
    struct sbuf *why, long long ids[4])
{
	struct hp_error err = { 0, "" };
	char path[CONFIG_PATH_MAX + 16], *t;
	int64_t m, o;
	bool behind;

	daemon_mark_path(cfg, path, sizeof path);
	if ((t = util_read_file(path, NULL, NULL)) == NULL)
		return false;   /* no pass yet, or an older version */
	behind = sscanf(t, "%lld %lld", &ids[0], &ids[1]) == 2 &&
	    store_high_water(st, &m, &o, &err) == HP_OK &&
	    (ids[0] > (long long)m || ids[1] > (long long)o);
	free(t);
	if (!behind)
		return false;
	ids[2] = (long long)m;
	ids[3] = (long long)o;
	sbuf_printf(why, "the last pass left %lld messages taken in and %lld "
	    "queued for delivery; the database knows %lld and %lld.", ids[0],
	    ids[1], ids[2], ids[3]);
	return true;
}

/* On start: mail the inbox flagged seen that the database does not know
 * (it went back in time: a restore, a cut WAL) is unflagged, to be taken in
 * again by the pass, after the moderators are told once (issue 21, item
 * 4); the mark file tells the moderators even when the inbox shows
 * nothing (mail fetched over IMAP is fetched again by UID). Failures are
 * logged; the pass goes on. */
static void
daemon_reconcile(struct store *st, const struct config *cfg)
{
	struct hp_error err = { 0, "" };
	struct maildir_entry *e = NULL;
	crypto_generichash_state h;
	unsigned char id[8];
	struct sbuf why, text;
	long long ids[4] = { 0, 0, 0, 0 };
	char kind[64];
	size_t n = 0, i;
	bool first, marked;

	sbuf_init(&why);
	sbuf_init(&text);
	sbuf_add(&why, "", 0);
	if (intake_behind(st, cfg, &e, &n, &err) != HP_OK) {
		log_warn("checking the inbox against the database: %s",
		    err.msg);
		n = 0;
	}
	marked = daemon_mark_behind(st, cfg, &why, ids);
	if (n == 0 && !marked)
		goto out;
	crypto_generichash_init(&h, NULL, 0, sizeof id);
	for (i = 0; i < n; i++)
		crypto_generichash_update(&h, (const unsigned char *)e[i].name,
		    strlen(e[i].name) + 1);
	crypto_generichash_update(&h, (const unsigned char *)ids, sizeof ids);
	crypto_generichash_final(&h, id, sizeof id);
	snprintf(kind, sizeof kind, "behind.");
	for (i = 0; i < sizeof id; i++)
		snprintf(kind + 7 + 2 * i, 3, "%02x", id[i]);
	if (n > 0)
		sbuf_printf(&why, "%s%zu message%s of %s flagged seen, unknown "
		    "to the database:", marked ? " " : "", n, n == 1 ? "" : "s",
		    cfg->mailbox);
	for (i = 0; i < n && i < 20; i++)
		sbuf_printf(&why, " %s", e[i].name);
	if (n > 20)
		sbuf_printf(&why, " and %zu more", n - 20);
	sbuf_printf(&text, "The database was behind the mailbox: it did not "
	    "know mail already taken in (a database restored from a backup, "
	    "or cut short at its last commit). hexpost takes that mail in "
	    "again now (from the inbox; over IMAP, what is still in the "
	    "mailbox is fetched again): orders still in time are accepted "
	    "again, the rest refused as usual; answers go out under the "
	    "Message-IDs they had, so a mail system that keeps them may drop "
	    "the copies. Check the campaigns' state ('hexpost campaign list', "
	    "'hexpost audit NAME').");
	if (fault_raise(st, cfg, kind, (long)time(NULL), why.buf, "the "
	    "database was behind the mailbox", text.buf, &first, &err) !=
	    HP_OK) {
		log_warn("%s", err.msg);
		goto out;
	}
	if (marked)
		log_msg(LOG_LVL_WARN, "the database is behind the data "
		    "directory's mark: %s", why.buf);
	if (n == 0)
		goto out;
	if (intake_take_again(cfg, e, n, &err) != HP_OK)
		log_warn("%s", err.msg);
	else
		log_msg(LOG_LVL_WARN, "%zu message%s flagged seen in %s but "
		    "unknown to the database taken in again", n, n == 1 ? "" :
		    "s", cfg->mailbox);
out:
	maildir_list_free(e, n);
	sbuf_free(&why);
	sbuf_free(&text);
}

/* Warn when from or domain are still the defaults' localhost: players
 * cannot answer such an address, and Message-IDs are not unique. */
static void
daemon_warn_localhost(const struct config *cfg)
{
	const char *at = strrchr(cfg->from, '@');
	char host[256];
	size_t n;

	strlcpy_(host, at != NULL ? at + 1 : "", sizeof host);
	n = strlen(host);
	if (n > 0 && host[n - 1] == '>')
		host[n - 1] = '\0';
	if (strcasecmp(host, "localhost") == 0)
		log_warn("from = %s: players cannot mail orders to localhost; "
		    "set from in %s to the club's address", cfg->from,
		    cfg->path[0] ? cfg->path : "hexpost.conf");
	if (strcasecmp(cfg->domain, "localhost") == 0)
		log_warn("domain = localhost: set domain in %s to the club's "
		    "domain, so hexpost's Message-IDs are its own",
		    cfg->path[0] ? cfg->path : "hexpost.conf");
}

/* An inotify watch on new/ of the Maildir cfg->mailbox, or -1: mail
 * delivered there (renamed or linked into new/) wakes daemon_wait. Not
 * with IMAP mailboxes (the Maildir is then hexpost's own spool) or
 * mail_wait = poll. Kept for the daemon's life, so mail that comes
 * during a pass is seen when it ends. */
static int
daemon_watch_open(const struct config *cfg)
{
	char dir[CONFIG_PATH_MAX + 8];
	int fd;

	if (cfg->wait_poll || cfg->nimap > 0 ||
	    strncmp(cfg->mailbox, "maildir:", 8) != 0)
		return -1;
	snprintf(dir, sizeof dir, "%s/new", cfg->mailbox + 8);
	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1) {
		log_warn("inotify: %s: polling every %d s instead",
		    strerror(errno), cfg->poll_interval);
		return -1;
	}
	if (inotify_add_watch(fd, dir, IN_MOVED_TO | IN_CREATE) == -1) {
		log_warn("inotify on %s: %s: polling every %d s instead", dir,
		    strerror(errno), cfg->poll_interval);
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait for mail between two passes, at most poll_interval seconds and
 * over within a second of a signal: IMAP IDLE on the first IMAP mailbox,
 * the inotify watch wfd on the Maildir, else (mail_wait = poll, a server
 * without IDLE, a failed IDLE) sleep. */
static void
daemon_wait(struct store *st, const struct config *cfg, int wfd)
{
	struct hp_error err = { 0, "" };
	struct timespec t0, t;
	bool arrived = false;
	long waited = 0;
	static bool told;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cfg->nimap > 0 && !cfg->wait_poll) {
		rc = fetch_imap_idle(st, cfg, cfg->poll_interval,
		    &stop_requested, &reload_requested, &arrived, &err);
		if (rc == HP_OK) {
			if (arrived)
				log_debug("IMAP IDLE: new mail");
			return;
		}
		if (!told || rc != HP_ENOENT)
			log_msg(rc == HP_ENOENT ? LOG_LVL_INFO : LOG_LVL_WARN,
			    "%s: polling every %d s", err.msg,
			    cfg->poll_interval);
		told = true;
	}
	for (;;) {
		struct pollfd pfd = { .fd = wfd, .events = POLLIN };
		char ev[4096];

		clock_gettime(CLOCK_MONOTONIC, &t);
		waited = (long)(t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (stop_requested || reload_requested ||
		    waited >= (long)cfg->poll_interval * 1000)
			return;
		if (poll(&pfd, wfd >= 0 ? 1 : 0, (long)cfg->poll_interval *
		    1000 - waited < 1000 ? (int)((long)cfg->poll_interval *
		    1000 - waited) : 1000) > 0 && wfd >= 0) {
			/* Drain what came; one pass takes it all in. */
			while (read(wfd, ev, sizeof ev) > 0)
				;
			log_debug("new mail in %s", cfg->mailbox);
			return;
		}
	}
}

int
daemon_run(struct config *cfg, const char *db_path, bool once)
{
	struct hp_error err = { 0, "" };
	struct sigaction sa;
	struct store *st = NULL;
	struct minisign_seckey *sk = NULL;
	struct stat keyst;
	int rc, lockfd = -1, ex = 0, wfd = -1;

	/* A resolved window's picture needs a few buffers of 1 to 2 MB (the
	 * image, its rows): served from the heap and kept there between
	 * windows, not mapped, zeroed by the kernel and unmapped again each
	 * time (a sixth of a burst's CPU went there; issue 17). At most 8 MB
	 * freed at the top of the heap is kept. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
	log_open(cfg->log_syslog, (enum log_level)cfg->log_level);
	daemon_warn_localhost(cfg);
	if (daemon_lock(cfg->datadir, &lockfd, &err) != HP_OK) {
		fprintf(stderr, "hexpost: %s\n", err.msg);
		log_msg(LOG_LVL_ERR, "%s", err.msg);
		return err.code == HP_ESTATE ? HP_EX_TEMPFAIL : HP_EX_IOERR;
	}
	if (stat(cfg->server_key, &keyst) == -1)
		memset(&keyst, 0, sizeof keyst);
	if (serverkey_load(cfg->server_key, &sk, &err) != HP_OK) {
		fprintf(stderr, "hexpost: %s\n", err.msg);
		log_msg(LOG_LVL_ERR, "%s", err.msg);
		close(lockfd);
		return HP_EX_CONFIG;
	}
	if ((rc = store_open(&st, db_path, false, &err)) != HP_OK ||
	    store_schema_version(st) < 1) {
		fprintf(stderr, "hexpost: %s: %s\n", db_path, rc != HP_OK ?
		    err.msg : "not initialised (run 'hexpost init')");
		close(lockfd);
		store_close(st);
		minisign_seckey_free(sk);
		/* A full disk: EX_IOERR, as for a pass (shmguard.h). */
		return rc != HP_OK && err.code == HP_EIO ? HP_EX_IOERR :
		    HP_EX_NOINPUT;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    (sa.sa_handler = on_hup, sigaction(SIGHUP, &sa, NULL)) == -1) {
		fprintf(stderr, "hexpost: sigaction: %s\n", strerror(errno));
		store_close(st);
		minisign_seckey_free(sk);
		close(lockfd);
		return HP_EX_IOERR;
	}
	if (!once)
		log_info("started on %s, pid %ld, every %d s", db_path,
		    (long)getpid(), cfg->poll_interval);
	daemon_reconcile(st, cfg);
	if (!once)
		wfd = daemon_watch_open(cfg);
	for (;;) {
		if (reload_requested) {
			reload_requested = 0;
			reload(cfg, &sk);
			if (stat(cfg->server_key, &keyst) == -1)
				memset(&keyst, 0, sizeof keyst);
			if (wfd >= 0)
				close(wfd);
			wfd = daemon_watch_open(cfg);
		} else
			key_watch(cfg, &keyst, &sk);
		memset(&err, 0, sizeof err);
		daemon_quiet = !once && cfg->log_level < LOG_LVL_INFO;
		rc = daemon_pass(st, cfg, sk, &err);
		daemon_mark_write(st, cfg);
		fflush(stdout);
		if (rc != HP_OK) {
			log_msg(LOG_LVL_ERR, "%s", err.msg);
			if (once)
				ex = hp_exit_code(err.code != 0 ? err.code :
				    rc);
		}
		if (once || stop_requested)
			break;
		daemon_wait(st, cfg, wfd);
		if (stop_requested)
			break;
	}
	if (stop_requested)
		log_info("stopped by a signal after the current step");
	if (wfd >= 0)
		close(wfd);
	store_close(st);
	minisign_seckey_free(sk);
	close(lockfd);
	return ex;
}
