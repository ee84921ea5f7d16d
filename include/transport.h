/* transport: how outgoing mail leaves. A transport is a struct of function
 * pointers, one implementation per file (transport_maildir.c,
 * transport_smtp.c), chosen by the prefix of the configured outbox
 * ("maildir:DIR", "smtp://HOST[:PORT]", "smtps://HOST[:PORT]"). */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include "config.h"
#include "hexpost.h"
#include "store.h"

struct transport_ops {
	const char *prefix;   /* "maildir:" */
	/* Start a batch for spec (the text after the prefix) with the
	 * settings of cfg (credentials, TLS); *ctx is the transport's,
	 * released by close. */
	int (*open)(const struct config *cfg, const char *spec, void **ctx,
	    struct hp_error *);
	/* Deliver one message: HP_OK delivered (or found already delivered
	 * under its Message-ID), HP_ESTATE a temporary failure worth a retry,
	 * HP_EIO a local fault (the server's own disk full or read-only, the
	 * outbox directory gone): no try is counted, the message stays
	 * queued until it can be written, anything else permanent. open
	 * returns the same codes. */
	int (*send)(void *ctx, const struct store_outmsg *, struct hp_error *);
	/* Optional two-phase delivery, used instead of send where the
	 * destination allows it (a Maildir): stage writes the message where
	 * no reader looks and gives its stage name (*stage, caller frees),
	 * which the outbox records before finish makes the message visible.
	 * finish of a stage that was finished before (a crash between
	 * finish and the outbox's record) delivers nothing again. Return
	 * codes as send's. */
	int (*stage)(void *ctx, const struct store_outmsg *, char **stage,
	    struct hp_error *);
	int (*finish)(void *ctx, const struct store_outmsg *,
	    const char *stage, struct hp_error *);
	void (*close)(void *ctx);
	/* Optional, with stage and finish (issue 17): where set, stage and
	 * finish make nothing durable themselves; the outbox calls sync once
	 * after the stages of a batch (after_finish false) and once after
	 * its finishes (true), each before the database records them. */
	int (*sync)(void *ctx, bool after_finish, struct hp_error *);
};

extern const struct transport_ops transport_maildir;
extern const struct transport_ops transport_smtp;   /* smtp:// */
extern const struct transport_ops transport_smtps;  /* smtps:// */

/* The transport for an outbox spec, or NULL. */
const struct transport_ops *transport_find(const char *spec);

#endif
