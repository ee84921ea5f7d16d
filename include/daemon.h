/* daemon: `hexpost run`. One pass takes in the mail, then for each active
 * campaign looks at the deadline of its open window (reminders, the
 * missing-side policy) and resolves what is ready, then delivers the
 * outbox. The daemon repeats the pass every poll_interval seconds; SIGTERM
 * or SIGINT end it after the current step (exit 0), SIGHUP rereads the
 * configuration. A lock (flock on DATADIR/hexpost.lock) keeps a second
 * instance off the same data directory. */
#ifndef DAEMON_H
#define DAEMON_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "minisign.h"
#include "store.h"

/* Take the data directory's lock; *fd keeps it until closed. HP_ESTATE
 * (err says who holds it) if another process has it. */
int daemon_lock(const char *datadir, int *fd, struct hp_error *);
/* One pass (see above), printing a summary line per step to stdout; sk
 * (may be NULL) signs the dice logs of the windows resolved. */
int daemon_pass(struct store *, const struct config *,
    const struct minisign_seckey *sk, struct hp_error *);
/* Run until stopped (or one pass if once) with configuration cfg (reread
 * from cfg->path on SIGHUP) on database db_path. Returns an exit code. */
int daemon_run(struct config *cfg, const char *db_path, bool once);
/* `hexpost storage [--compact]` (issue 17): print to f what is kept and
 * how much (the database by kind and by table, the inbox's cur/, the
 * outbox Maildir) and the retention in force; with compact first apply
 * it now (outbox_retention) and VACUUM. Returns HP_OK or an error. */
int daemon_storage(struct store *, const struct config *, bool compact,
    FILE *f, struct hp_error *);

#endif
