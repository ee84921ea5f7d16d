/* outbox: outgoing mail. Messages are queued in the database in the same
 * transaction as the change that causes them (mail_* in mail.h), then
 * delivered here by a transport; a delivered message is never delivered
 * again, a failed one is retried with exponential backoff. */
#ifndef OUTBOX_H
#define OUTBOX_H

#include "config.h"
#include "store.h"

struct outbox_stats {
	int sent;
	int retried;
	int failed;
	int held;      /* kept queued by a local fault, no try counted */
};

/* Deliver every message due now through the transport of cfg->outbox.
 * HP_EIO (err says why): the outbox could not be written (disk full,
 * read-only, gone); stats->held messages of the batch stay queued with no
 * try counted, and go out on the first pass after the fault is fixed. */
int outbox_deliver(struct store *, const struct config *, long now,
    struct outbox_stats *, struct hp_error *);

/* Files in an outbox Maildir's tmp/ older than this (seconds) and named
 * by no outbox row are left by runs that stopped: 36 hours, as Maildir
 * readers clean theirs. */
#define OUTBOX_TMP_AGE (36L * 3600)

/* Remove such files (at the start of a pass; now is the real clock, the
 * files' times are); *removed says how many. A stage an outbox row still
 * names is never removed, however old. */
int outbox_sweep(struct store *, const struct config *, long now,
    int *removed, struct hp_error *);

/* Retention (issue 17), what outbox_retention did. */
struct outbox_retention_stats {
	int64_t packed;         /* sent copies compressed */
	int64_t deleted;        /* delivered or failed rows removed */
	long inbox_files;       /* files removed from the inbox's cur/ */
	long outbox_files;      /* files removed from the outbox Maildir */
	long long bytes;        /* bytes of the files removed */
	int64_t windows_packed; /* resolved windows packed (store_compact) */
};
/* Apply cfg->retention_days at time now (real time: rows and files carry
 * it): store_compact, then the files older than that in the inbox
 * Maildir's cur/ flagged seen (mail taken in: what it did is in the
 * database; deferred mail is kept) and in the outbox Maildir's new/ and cur/ (mail left there that long by the
 * mail system). retention_days 0 only compresses. */
int outbox_retention(struct store *, const struct config *, long now,
    struct outbox_retention_stats *, struct hp_error *);

#endif
