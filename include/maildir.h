/* maildir: D. J. Bernstein's Maildir format (tmp/, new/, cur/) with the
 * Dovecot flags convention: a message in cur/ is named BASE:2,FLAGS with
 * FLAGS in ASCII order ('S' seen, 'F' flagged, 'T' trashed, ...). Incoming
 * mail is read from one Maildir and every outgoing message is delivered
 * into another (the outbox); no mail server is involved.
 *
 * Messages are taken in delivery order and marked once processed; a crash
 * at any point leaves each message either waiting (listed again) or marked,
 * never lost. Every function returns HP_OK or sets err and returns
 * HP_EINVAL (bad argument, message too large) or HP_EIO (system call
 * failure; the message names the path and the reason). */
#ifndef MAILDIR_H
#define MAILDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hexpost.h"

struct maildir_entry {
	char *name;      /* file name in new/ or cur/ */
	char *path;      /* full path */
	bool in_new;     /* in new/ (else in cur/) */
	char flags[16];  /* flags of a cur/ name, sorted ("" in new/) */
};

/* Create dir and its tmp/, new/, cur/ (mode 0700) if missing. The parent
 * of dir must exist. */
int maildir_create(const char *dir, struct hp_error *);

/* List messages waiting: everything in new/, plus messages in cur/ without
 * flag flagchar (e.g. 'S' seen), so that a crash after moving to cur/ but
 * before flagging loses nothing. Dot-files, tmp/ and anything that is not a
 * regular file (symbolic links included) are ignored, the latter with a
 * line in the log at level info (-v). Sorted by name, digit
 * runs compared as numbers, which is delivery order for the names
 * maildir_deliver makes. flagchar is a letter (A-Z, a-z). Caller frees *out
 * with maildir_list_free (*out is NULL when *n is 0). */
int maildir_list(const char *dir, char flagchar, struct maildir_entry **out,
    size_t *n, struct hp_error *);
void maildir_list_free(struct maildir_entry *, size_t);
/* The messages in cur/ whose flags hold flagchar (taken in before), sorted
 * as maildir_list; freed with maildir_list_free. */
int maildir_list_flagged(const char *dir, char flagchar,
    struct maildir_entry **out, size_t *n, struct hp_error *);
/* Take flagchar off cur/ message e (rename, fsync cur/), so maildir_list
 * lists it again. */
int maildir_unmark(const char *dir, const struct maildir_entry *,
    char flagchar, struct hp_error *);

/* Read a message; files larger than max bytes are refused with HP_EINVAL.
 * The result is NUL-terminated (not counted in *len); caller frees. */
unsigned char *maildir_read(const struct maildir_entry *, size_t max,
    size_t *len, struct hp_error *);

/* Open a message to read it in pieces (an oversized one, to be refused
 * without holding it whole): *fd, read-only, the caller closes it; *size
 * its size when opened. A non-regular file is HP_EINVAL. */
int maildir_open(const struct maildir_entry *, int *fd, uint64_t *size,
    struct hp_error *);

/* Mark processed: rename new/NAME to cur/NAME:2,<flags+flagchar> (or add
 * the flag to a cur/ name; flags stay sorted and unique), then fsync cur/.
 * Idempotent: if the source is already gone but cur/ holds the message with
 * flagchar set, HP_OK. */
int maildir_mark(const char *dir, const struct maildir_entry *,
    char flagchar, struct hp_error *);

/* Deliver data into dir (which must exist, see maildir_create): write
 * tmp/UNIQUE, fsync, move to new/UNIQUE without replacing anything, fsync
 * new/. UNIQUE is time.M<usec>P<pid>Q<counter>.<hostname> ('/' and ':' in
 * the host name written \057 and \072). A non-NULL name_hint is used as the
 * unique part instead, making delivery idempotent: if new/ or cur/ already
 * holds the message (cur/ names may carry ":2,..."), nothing is written,
 * *existed is set and HP_OK returned. A hint must be non-empty, at most 200
 * bytes, not start with '.', and hold no '/', ':' or control character.
 * existed may be NULL. *path_out (if path_out is non-NULL) receives the
 * message's path, the existing one if it existed; caller frees. */
int maildir_deliver(const char *dir, const char *name_hint, const void *data,
    size_t len, bool *existed, char **path_out, struct hp_error *);

/* Two-phase delivery for a caller that records the staged name durably
 * between the phases (the outbox): maildir_stage writes data to
 * tmp/UNIQUE and fsyncs it; *stage (caller frees) is UNIQUE. */
int maildir_stage(const char *dir, const void *data, size_t len,
    char **stage, struct hp_error *);
/* The second phase: rename tmp/STAGE to new/NAME (name as a
 * maildir_deliver hint) and fsync new/. A stage no longer in tmp/ was
 * renamed before: *done_before is set and nothing is written. If new/ or
 * cur/ already holds NAME the staged file is removed instead. */
int maildir_finish(const char *dir, const char *stage, const char *name,
    bool *done_before, struct hp_error *);
/* The same two phases for a batch (the outbox, issue 17): neither fsyncs;
 * one maildir_syncfs after all the stages of a batch, and one maildir_sync
 * after all its finishes, makes them durable (each before the database
 * records it). */
int maildir_stage_nosync(const char *dir, const void *data, size_t len,
    char **stage, struct hp_error *);
int maildir_finish_nosync(const char *dir, const char *stage,
    const char *name, bool *done_before, struct hp_error *);
/* Make everything written in the file system holding dir durable
 * (syncfs(2): the files, their data and the directory entries). */
int maildir_syncfs(const char *dir, struct hp_error *);

/* maildir_mark without the directory fsyncs, for a caller that marks a
 * batch and then calls maildir_sync once (safe where a mark lost in a crash
 * only makes the message come back as a known duplicate). */
int maildir_mark_sync(const char *dir, const struct maildir_entry *,
    char flagchar, bool sync, struct hp_error *);
/* fsync new/ and cur/ of dir. */
int maildir_sync(const char *dir, struct hp_error *);

#endif
