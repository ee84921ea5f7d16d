/* intake: mail in. Each message is parsed (MIME), its signed order file
 * verified against the signer's registered minisign key, the orders taken
 * in through turn_submit, and an answer queued, all in one transaction
 * with the record of the message (its content hash and Message-ID), so a
 * message is applied exactly once even if hexpost dies before flagging the
 * Maildir file. */
#ifndef INTAKE_H
#define INTAKE_H

#include <stddef.h>

#include "config.h"
#include "maildir.h"
#include "store.h"

enum intake_outcome {
	INTAKE_ACCEPTED,   /* orders taken in, acknowledged */
	INTAKE_REJECTED,   /* refused, the reasons mailed back */
	INTAKE_IGNORED,    /* automatic mail: not answered */
	INTAKE_DUPLICATE   /* taken in before: nothing done */
};

struct intake_stats {
	int n[4];          /* by outcome */
	int deferred;      /* left for the next run after an internal error */
	/* Refused, but from an address of no registered player: logged, not
	 * answered (backscatter; stranger_replies in hexpost.conf(5)). */
	int unanswered;
};

const char *intake_stroutcome(enum intake_outcome);

/* Take in one raw message from mailbox (a name for the record). */
int intake_message(struct store *, const struct config *, const char *mailbox,
    const unsigned char *raw, size_t len, enum intake_outcome *,
    struct hp_error *);
/* Take in every waiting message of cfg->mailbox, flagging each after its
 * transaction committed. */
int intake_run(struct store *, const struct config *, struct intake_stats *,
    struct hp_error *);

/* A database that went back in time (restored from a backup, a WAL cut at
 * its last commit) does not know mail the inbox has flagged seen: list in
 * *out (maildir_list_free) every seen message of cfg->mailbox whose hash,
 * or Message-ID and body, the database does not know (issue 21, item 4). */
int intake_behind(struct store *, const struct config *,
    struct maildir_entry **out, size_t *n, struct hp_error *);
/* Take the seen flag off e[0, n) so the next intake_run takes them in
 * again. */
int intake_take_again(const struct config *, const struct maildir_entry *e,
    size_t n, struct hp_error *);

#endif
