/* serverkey: the server's minisign key pair, which signs every window's
 * dice log, and its rotation. The secret key file must be mode 0600 (no
 * group or other access); loaded, it lives in sodium_malloc memory,
 * read-only, and is wiped when released.
 *
 * A rotation (`hexpost key rotate`) replaces the key pair at the
 * configured paths, keeps the old one beside it, and records a rotation
 * statement naming the old and the new key, signed by the old key and
 * countersigned by the new, so that an auditor who trusts either key can
 * follow the change (docs/AUDIT.md, "Key rotation"). */
#ifndef SERVERKEY_H
#define SERVERKEY_H

#include <stdbool.h>

#include "config.h"
#include "minisign.h"
#include "store.h"

#define SERVERKEY_ROTATION_MAGIC "hexpost key rotation v1"

/* Write a new key pair at the configuration's server_key (mode 0600) and
 * server_pub; refuses to replace an existing key. */
int serverkey_generate(const struct config *, struct hp_error *);
/* Load the secret key at path, refusing a file others can read; *out is
 * the caller's, to release with minisign_seckey_free. */
int serverkey_load(const char *path, struct minisign_seckey **out,
    struct hp_error *);

/* What a rotation statement says (comments of the keys empty). */
struct serverkey_statement {
	int seq;                          /* 1, 2, ... */
	struct minisign_pubkey old_key;
	struct minisign_pubkey new_key;
	long time;                        /* seconds since 1970, UTC */
};

/* The canonical text of a statement, appended to out. */
void serverkey_statement_format(const struct serverkey_statement *,
    struct sbuf *out);
/* Parse a statement's text strictly (it must be exactly the canonical
 * text of what it says); HP_EINVAL saying what is wrong. */
int serverkey_statement_parse(const char *text, struct serverkey_statement *,
    struct hp_error *);
/* The trusted comment of the signature by the old key (by_new false) or
 * of the countersignature by the new key. */
void serverkey_statement_comment(const struct serverkey_statement *,
    bool by_new, char *buf, size_t len);
/* Check a statement on its own: canonical, signed by its old key and
 * countersigned by its new key, each with its trusted comment. HP_EINVAL
 * naming the first failure; *out gets what it says. */
int serverkey_statement_check(const char *text, const char *sig,
    const char *countersig, struct serverkey_statement *out,
    struct hp_error *);

/* What serverkey_rotate did. */
struct serverkey_rotation {
	int seq;                          /* the statement's number */
	char old_id[17], new_id[17];
	char backup_key[CONFIG_PATH_MAX + 16]; /* where the old pair is kept */
	char backup_pub[CONFIG_PATH_MAX + 16];
	int notices;                      /* notices queued to players */
	bool resumed;                     /* finished an interrupted one */
	long when;                        /* serverkey_rotation_done: its
	                                   * time */
};

/* Rotate the server key: a new pair at the configuration's server_key and
 * server_pub, the old pair kept as server_key.N and server_pub.N (N the
 * statement's number; never overwritten), the statement signed by the old
 * key and countersigned by the new, recorded with a notice to every active
 * player of every campaign not finished, in one transaction. The statement
 * says time now. If an earlier rotation stopped after its transaction,
 * finishes that one instead. Refuses if the current key is not the one the
 * last statement handed over to (changed by hand). */
int serverkey_rotate(struct store *, const struct config *, long now,
    struct serverkey_rotation *, struct hp_error *);

/* The function that queues the players' notices of rotation r inside the
 * rotation's transaction, *count the number queued (mail's
 * mail_queue_key_rotation, hung here by engine_init: keys know nothing of
 * mail). serverkey_rotate refuses (HP_EINTERNAL) while none is set. */
void serverkey_set_notify(int (*notify)(struct store *,
    const struct config *, const struct store_rotation *r, int *count,
    struct hp_error *));

/* Was a rotation finished less than within seconds before now (or after
 * now: a clock set back), with both key files already the new pair and
 * nothing left to finish? Then *done is true and out describes it (seq,
 * ids, backups, created_at in out->when): 'key rotate' run again after a
 * crash late in the command says so and does nothing, rather than rotate
 * a second time and notify every player again. */
int serverkey_rotation_done(struct store *, const struct config *, long now,
    long within, struct serverkey_rotation *out, bool *done,
    struct hp_error *);

#endif
