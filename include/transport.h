/* transport: how outgoing mail leaves. A transport is a struct of function
 * pointers, one implementation per file (transport_maildir.c; SMTP later),
 * chosen by the prefix of the configured outbox ("maildir:DIR"). */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include "hexpost.h"
#include "store.h"

struct transport_ops {
	const char *prefix;   /* "maildir:" */
	/* Start a batch for spec (the text after the prefix); *ctx is the
	 * transport's, released by close. */
	int (*open)(const char *spec, void **ctx, struct hp_error *);
	/* Deliver one message: HP_OK delivered (or found already delivered
	 * under its Message-ID), HP_ESTATE a temporary failure worth a retry,
	 * anything else permanent. */
	int (*send)(void *ctx, const struct store_outmsg *, struct hp_error *);
	void (*close)(void *ctx);
};

extern const struct transport_ops transport_maildir;

/* The transport for an outbox spec, or NULL. */
const struct transport_ops *transport_find(const char *spec);

#endif
