/* outbox: delivery of queued mail (see include/outbox.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outbox.h"
#include "transport.h"

#define OUTBOX_BATCH 64

/* Deliver m through t: with a transport that stages (a Maildir), stage it,
 * record the stage name (its own commit), then finish; a message staged by
 * a run that crashed is only finished, so it is never written twice,
 * whatever a mail system did with the file meanwhile. HP_EDB: the record
 * failed. */
static int
send_one(struct store *st, const struct transport_ops *t, void *ctx,
    struct store_outmsg *m, struct hp_error *err)
{
	char *stage = NULL;
	int rc;

	if (t->stage == NULL)
		return t->send(ctx, m, err);
	if (m->stage[0] == '\0') {
		if ((rc = t->stage(ctx, m, &stage, err)) != HP_OK)
			return rc;
		if (strlen(stage) >= sizeof m->stage) {
			hp_seterr(err, HP_EINTERNAL, "stage name %s too long",
			    stage);
			free(stage);
			return HP_EINTERNAL;
		}
		if ((rc = store_outbox_staged(st, m->id, stage, err)) !=
		    HP_OK) {
			free(stage);
			return HP_EDB;
		}
		strlcpy_(m->stage, stage, sizeof m->stage);
		free(stage);
		if (getenv("HEXPOST_TEST_CRASH_AFTER_STAGE") != NULL)
			abort();
	}
	rc = t->finish(ctx, m, m->stage, err);
	if (rc == HP_OK && getenv("HEXPOST_TEST_CRASH_AFTER_FINISH") != NULL)
		abort();
	return rc;
}

/* The failure of batch message m after a try that returned src (serr):
 * retried later with back-off, or failed for good; counted in stats. */
static int
outbox_try_failed(struct store *st, const struct config *cfg, long now,
    struct store_outmsg *m, int src, const struct hp_error *serr,
    struct outbox_stats *stats, struct hp_error *err)
{
	long next, backoff;
	int rc;

	backoff = (long)cfg->retry_base << (m->attempts < 20 ? m->attempts :
	    20);
	next = src == HP_ESTATE && m->attempts + 1 < cfg->retry_max ? now +
	    backoff : -1;
	log_warn("delivery of %s to %s failed%s: %s", m->message_id, m->rcpt,
	    next < 0 ? " for good" : ", will retry", serr->msg);
	if ((rc = store_outbox_failed(st, m->id, next, serr->msg, err)) !=
	    HP_OK)
		return rc;
	if (next < 0)
		stats->failed++;
	else
		stats->retried++;
	return HP_OK;
}

/* deliver_batch for a transport that stages and syncs a batch at a time
 * (a Maildir; issue 17): every message of the batch staged, one sync, one
 * commit recording the stage names; every staged message finished, one
 * sync, one commit marking them sent (and the failures). A crash between
 * any two steps loses nothing and delivers nothing twice: a stage not
 * recorded is an unseen file in tmp/ (outbox_sweep removes it; the
 * message is staged again), a stage recorded is only ever finished, and
 * finish of a stage renamed before is delivered already. */
static int
deliver_synced(struct store *st, const struct config *cfg,
    const struct transport_ops *t, void *ctx, long now,
    struct store_outmsg *batch, int n, struct outbox_stats *stats,
    struct hp_error *err)
{
	struct hp_error e[OUTBOX_BATCH];
	int res[OUTBOX_BATCH];
	bool fresh[OUTBOX_BATCH];
	struct hp_error serr = { 0, "" };
	int i, stop = n, nfresh = 0, nfin = 0, rc;

	/* Stage what no earlier run staged; a local fault ends the batch. */
	for (i = 0; i < n; i++) {
		char *stage = NULL;

		fresh[i] = false;
		res[i] = HP_OK;
		memset(&e[i], 0, sizeof e[i]);
		if (batch[i].stage[0] != '\0')
			continue;
		res[i] = t->stage(ctx, &batch[i], &stage, &e[i]);
		if (res[i] == HP_OK && strlen(stage) >= sizeof batch[i].stage) {
			hp_seterr(&e[i], HP_EINTERNAL, "stage name %s too long",
			    stage);
			res[i] = HP_EINTERNAL;
		} else if (res[i] == HP_OK) {
			strlcpy_(batch[i].stage, stage, sizeof batch[i].stage);
			fresh[i] = true;
			nfresh++;
		}
		free(stage);
		if (res[i] == HP_EIO) {
			stop = i;
			break;
		}
	}
	if (nfresh > 0) {
		/* One sync for every file staged, then one commit. */
		if (t->sync(ctx, false, &serr) != HP_OK) {
			for (i = 0; i < stop; i++)
				if (fresh[i]) {
					stop = i;
					e[i] = serr;
					res[i] = HP_EIO;
					break;
				}
			for (; i < n; i++)
				if (fresh[i])
					batch[i].stage[0] = '\0';
		} else {
			if ((rc = store_begin(st, err)) != HP_OK)
				return HP_EDB;
			for (i = 0; i < n; i++)
				if (fresh[i] && (rc = store_outbox_staged(st,
				    batch[i].id, batch[i].stage, err)) != HP_OK) {
					store_rollback(st);
					return HP_EDB;
				}
			if (store_commit(st, err) != HP_OK)
				return HP_EDB;
		}
		if (getenv("HEXPOST_TEST_CRASH_AFTER_STAGE") != NULL)
			abort();
	}
	/* Finish every staged message; a local fault ends the batch. */
	for (i = 0; i < stop; i++) {
		if (res[i] != HP_OK)
			continue;
		res[i] = t->finish(ctx, &batch[i], batch[i].stage, &e[i]);
		if (res[i] == HP_EIO) {
			stop = i;
			break;
		}
		if (res[i] == HP_OK)
			nfin++;
	}
	if (nfin > 0 && t->sync(ctx, true, &serr) != HP_OK) {
		/* Renamed but perhaps not durable: left staged, so the next
		 * pass finishes them again (finding them delivered). */
		for (i = 0; i < stop; i++)
			if (res[i] == HP_OK) {
				stop = i;
				e[i] = serr;
				res[i] = HP_EIO;
				break;
			}
	}
	if (nfin > 0 && getenv("HEXPOST_TEST_CRASH_AFTER_FINISH") != NULL)
		abort();
	/* One commit: sent, failed, held. */
	if ((rc = store_begin(st, err)) != HP_OK)
		return HP_EDB;
	for (i = 0; i < stop && rc == HP_OK; i++) {
		if (res[i] == HP_OK) {
			if ((rc = store_outbox_sent(st, batch[i].id, err)) !=
			    HP_OK)
				break;
			stats->sent++;
			log_info("delivered %s to %s", batch[i].message_id,
			    batch[i].rcpt);
		} else if (res[i] == HP_EDB) {
			*err = e[i];
			rc = HP_EDB;
		} else
			rc = outbox_try_failed(st, cfg, now, &batch[i], res[i],
			    &e[i], stats, err);
	}
	if (rc == HP_OK && stop < n) {
		/* Not the recipient's fault, nor the message's: the rest
		 * would fail alike, so the batch ends here. */
		stats->held = n - stop;
		log_warn("delivery of %s to %s held: %s", batch[stop].message_id,
		    batch[stop].rcpt, e[stop].msg);
		rc = store_outbox_held(st, batch[stop].id, e[stop].msg, err);
	}
	if (rc != HP_OK) {
		store_rollback(st);
		return HP_EDB;
	}
	if (store_commit(st, err) != HP_OK)
		return HP_EDB;
	if (stop < n) {
		hp_seterr(err, HP_EIO, "%s", e[stop].msg);
		return HP_EIO;
	}
	return HP_OK;
}

/* Deliver one batch of due messages; *n says how many there were. A local
 * fault (HP_EIO: the outbox cannot be written) stops the batch: that
 * message and the rest stay queued with no try counted (stats->held), and
 * the fault is returned in err. */
static int
deliver_batch(struct store *st, const struct config *cfg,
    const struct transport_ops *t, long now, struct outbox_stats *stats,
    int *n, struct hp_error *err)
{
	struct store_outmsg batch[OUTBOX_BATCH];
	struct hp_error oerr = { 0, "" };
	void *ctx = NULL;
	int i, rc, orc;

	if ((rc = store_outbox_due(st, now, batch, OUTBOX_BATCH, n, err)) !=
	    HP_OK)
		return rc;
	if (*n == 0)
		return HP_OK;
	/* A destination that cannot be opened fails every message of the
	 * batch, each counting an attempt (so backing off, then giving up),
	 * like a failed send. */
	orc = t->open(cfg, cfg->outbox + strlen(t->prefix), &ctx, &oerr);
	rc = HP_OK;
	/* HEXPOST_OUTBOX_SYNC_EACH (bench_store only): the path before
	 * issue 17, a sync and a commit per message, to compare. */
	if (orc == HP_OK && t->stage != NULL && t->sync != NULL &&
	    getenv("HEXPOST_OUTBOX_SYNC_EACH") == NULL) {
		rc = deliver_synced(st, cfg, t, ctx, now, batch, *n, stats,
		    err);
		t->close(ctx);
		store_outmsg_free(batch, *n);
		return rc;
	}
	for (i = 0; i < *n; i++) {
		struct hp_error serr = oerr;
		int src = orc != HP_OK ? orc : send_one(st, t, ctx, &batch[i],
		    &serr);

		if (src == HP_EDB) {
			*err = serr;
			rc = src;
			break;
		}
		if (src == HP_EIO) {
			/* Not the recipient's fault, nor the message's: the
			 * rest would fail alike, so the batch ends here. */
			stats->held = *n - i;
			log_warn("delivery of %s to %s held: %s",
			    batch[i].message_id, batch[i].rcpt, serr.msg);
			if ((rc = store_outbox_held(st, batch[i].id, serr.msg,
			    err)) == HP_OK) {
				hp_seterr(err, HP_EIO, "%s", serr.msg);
				rc = HP_EIO;
			}
			break;
		}
		if (src == HP_OK) {
			if ((rc = store_outbox_sent(st, batch[i].id, err)) !=
			    HP_OK)
				break;
			stats->sent++;
			log_info("delivered %s to %s", batch[i].message_id,
			    batch[i].rcpt);
			continue;
		}
		if ((rc = outbox_try_failed(st, cfg, now, &batch[i], src, &serr,
		    stats, err)) != HP_OK)
			break;
	}
	if (orc == HP_OK)
		t->close(ctx);
	store_outmsg_free(batch, *n);
	return rc;
}

int
outbox_deliver(struct store *st, const struct config *cfg, long now,
    struct outbox_stats *stats, struct hp_error *err)
{
	const struct transport_ops *t;
	int n, rc;

	memset(stats, 0, sizeof *stats);
	if ((t = transport_find(cfg->outbox)) == NULL) {
		hp_seterr(err, HP_EINVAL, "outbox '%s': unknown transport "
		    "(expected maildir:DIR, smtp://HOST[:PORT] or "
		    "smtps://HOST[:PORT])", cfg->outbox);
		return HP_EINVAL;
	}
	/* Every message handled leaves the due set (sent, failed or retried
	 * later than now), or the loop ends at a local fault, so this ends. */
	do
		rc = deliver_batch(st, cfg, t, now, stats, &n, err);
	while (rc == HP_OK && n == OUTBOX_BATCH);
	return rc;
}

int
outbox_sweep(struct store *st, const struct config *cfg, long now,
    int *removed, struct hp_error *err)
{
	char path[CONFIG_PATH_MAX + 16];
	struct dirent *de;
	struct stat sb;
	bool used;
	DIR *d;
	int rc = HP_OK;

	*removed = 0;
	if (strncmp(cfg->outbox, "maildir:", 8) != 0)
		return HP_OK;
	snprintf(path, sizeof path, "%s/tmp", cfg->outbox + 8);
	if ((d = opendir(path)) == NULL)
		return HP_OK;   /* no outbox yet, or broken: delivery says so */
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(sb.st_mode) ||
		    (long)sb.st_mtime > now - OUTBOX_TMP_AGE)
			continue;
		if ((rc = store_outbox_stage_used(st, de->d_name, &used, err)) !=
		    HP_OK)
			break;
		if (used)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == -1) {
			if (errno != ENOENT)
				log_warn("%s/%s: %s", path, de->d_name,
				    strerror(errno));
			continue;
		}
		(*removed)++;
		log_info("%s/%s: removed (left over %ld hours ago, by a run "
		    "that stopped)", path, de->d_name,
		    (now - (long)sb.st_mtime) / 3600);
	}
	closedir(d);
	return rc;
}

/* Remove the regular files of dir older than before (if seen_only, only
 * those flagged seen, ":2,...S"); count them in *files and *bytes. A
 * directory that is not there holds nothing. */
static int
outbox_prune_dir(const char *dir, long before, bool seen_only, long *files,
    long long *bytes, struct hp_error *err)
{
	struct dirent *de;
	struct stat sb;
	const char *fl;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		if (errno == ENOENT)
			return HP_OK;
		hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
		return HP_EIO;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(sb.st_mode) ||
		    (long)sb.st_mtime >= before)
			continue;
		/* Mail intake deferred is not flagged seen: kept. */
		if (seen_only && ((fl = strstr(de->d_name, ":2,")) == NULL ||
		    strchr(fl + 3, 'S') == NULL))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == -1) {
			if (errno != ENOENT)
				log_warn("%s/%s: %s", dir, de->d_name,
				    strerror(errno));
			continue;
		}
		(*files)++;
		*bytes += (long long)sb.st_size;
	}
	closedir(d);
	return HP_OK;
}

int
outbox_retention(struct store *st, const struct config *cfg, long now,
    struct outbox_retention_stats *rs, struct hp_error *err)
{
	struct store_compact_stats cs;
	char dir[CONFIG_PATH_MAX + 8];
	long before;
	int rc;

	memset(rs, 0, sizeof *rs);
	if ((rc = store_compact(st, now, cfg->retention_days, &cs, err)) !=
	    HP_OK)
		return rc;
	rs->packed = cs.packed;
	rs->deleted = cs.deleted;
	rs->windows_packed = cs.windows_packed;
	if (cfg->retention_days <= 0)
		return HP_OK;
	before = now - 86400L * cfg->retention_days;
	if (strncmp(cfg->mailbox, "maildir:", 8) == 0) {
		snprintf(dir, sizeof dir, "%s/cur", cfg->mailbox + 8);
		if ((rc = outbox_prune_dir(dir, before, true, &rs->inbox_files,
		    &rs->bytes, err)) != HP_OK)
			return rc;
	}
	if (strncmp(cfg->outbox, "maildir:", 8) == 0) {
		snprintf(dir, sizeof dir, "%s/new", cfg->outbox + 8);
		if ((rc = outbox_prune_dir(dir, before, false, &rs->outbox_files,
		    &rs->bytes, err)) != HP_OK)
			return rc;
		snprintf(dir, sizeof dir, "%s/cur", cfg->outbox + 8);
		if ((rc = outbox_prune_dir(dir, before, false, &rs->outbox_files,
		    &rs->bytes, err)) != HP_OK)
			return rc;
	}
	return HP_OK;
}
