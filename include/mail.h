/* mail: the messages hexpost sends, composed from templates/ and queued in
 * the outbox in the caller's transaction. Replies to players' mail carry
 * an empty envelope sender and "Auto-Submitted: auto-replied"; reports and
 * notices "Auto-Submitted: auto-generated" (RFC 3834), so they never loop. */
#ifndef MAIL_H
#define MAIL_H

#include <stdint.h>

#include "config.h"
#include "game.h"
#include "store.h"
#include "tmpl.h"

/* Queue an auto-reply of kind ("ack", "refusal") to rcpt. id_seed makes
 * the Message-ID stable (e.g. the hex hash of the message answered). */
int mail_queue_reply(struct store *, const struct config *, int64_t cid,
    const char *kind, const char *rcpt, const char *in_reply_to,
    const char *subject, const char *body, const char *id_seed,
    struct hp_error *);
/* Render template name (in templates/) with ctx; caller frees. */
char *mail_render(const char *name, const struct tmpl_ctx *,
    struct hp_error *);
/* Queue the reports of resolved window w to every player of the campaign
 * (each side its own view; moderators the full one). */
int mail_queue_reports(struct store *, const struct config *, int64_t cid,
    const struct game *, const struct store_window *w, struct hp_error *);
/* Queue a welcome to a new player, with the open window's order file. */
int mail_queue_welcome(struct store *, const struct config *, int64_t cid,
    const struct game *, int side, const char *player, const char *email,
    const char *key_id, struct hp_error *);
/* Queue a message hexpost sends on its own (kind "reminder", "notice",
 * "report"): envelope sender cfg->from, "Auto-Submitted: auto-generated".
 * id_seed makes the Message-ID stable; a Message-ID already queued is left
 * alone, so queueing again after a crash sends nothing twice. */
int mail_queue_message(struct store *, const struct config *, int64_t cid,
    const char *kind, const char *rcpt, const char *id_seed,
    const char *subject, const char *body, struct hp_error *);

/* Queue the notice of key rotation r to every active player of every
 * campaign not finished (templates/keyrotation.txt): the new public key,
 * the rotation statement and both its signatures. *count gets how many
 * were queued. In the caller's transaction. */
int mail_queue_key_rotation(struct store *, const struct config *,
    const struct store_rotation *r, int *count, struct hp_error *);

/* Queue the report of window w for player name (view: its side, or -1 for
 * the moderator) to email once more, with the files report mail carries
 * (the picture, the JSON export, as that player chose); its Message-ID is
 * made from id_seed as mail_queue_message makes it ("report." id_seed). */
int mail_queue_report_again(struct store *, const struct config *,
    int64_t cid, const struct game *, const struct store_window *,
    const char *name, const char *email, int view, const char *id_seed,
    const char *subject, struct hp_error *);

#endif
