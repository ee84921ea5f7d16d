/* transport_maildir: outgoing mail written into a Maildir (the embedded
 * default: no mail server needed). Each file is named after its Message-ID
 * (or its hash, if long) so that delivering again after a crash finds it and
 * writes nothing. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maildir.h"
#include "transport.h"

/* HEXPOST_OUTBOX_SYNC_EACH set (bench_store only): the path before issue
 * 17, each file and each rename fsynced and recorded on its own; outbox.c
 * reads the same variable. */
static bool tm_sync_each;

static int
tm_open(const struct config *cfg, const char *spec, void **ctx,
    struct hp_error *err)
{
	int rc;

	(void)cfg;
	/* Not there, or not a directory, or not writable: a local fault
	 * (HP_EIO), the mail waits for it to be fixed. */
	if ((rc = maildir_create(spec, err)) != HP_OK)
		return rc;
	*ctx = xstrdup(spec);
	tm_sync_each = getenv("HEXPOST_OUTBOX_SYNC_EACH") != NULL;
	return HP_OK;
}

/* Longest file name made from a Message-ID as it is (maildir_deliver takes
 * 200 bytes); a longer one is named after its hash, just as stable. */
#define TM_HINT_MAX 200

/* The file name of m in the outbox: its Message-ID made safe, or a hash. */
static void
tm_name(const struct store_outmsg *m, char *hint, size_t len)
{
	size_t i;

	if (strlen(m->message_id) > TM_HINT_MAX) {
		unsigned char h[16];

		crypto_generichash(h, sizeof h, (const unsigned char *)
		    m->message_id, strlen(m->message_id), NULL, 0);
		strlcpy_(hint, "hexpost.id.", len);
		for (i = 0; i < sizeof h && 11 + 2 * i + 3 <= len; i++)
			snprintf(hint + 11 + 2 * i, 3, "%02x", h[i]);
	} else
		strlcpy_(hint, m->message_id, len);
	for (i = 0; hint[i] != '\0'; i++)
		if (hint[i] == '/' || hint[i] == ':' || hint[i] == '<' ||
		    hint[i] == '>')
			hint[i] = '_';
}

static int
tm_send(void *ctx, const struct store_outmsg *m, struct hp_error *err)
{
	char hint[256];
	bool existed;
	int rc;

	tm_name(m, hint, sizeof hint);
	rc = maildir_deliver(ctx, hint, m->data, m->len, &existed, NULL, err);
	return rc;
}

/* Phase one: the message written in tmp/ (tm_sync makes the batch
 * durable). */
static int
tm_stage(void *ctx, const struct store_outmsg *m, char **stage,
    struct hp_error *err)
{
	return (tm_sync_each ? maildir_stage : maildir_stage_nosync)(ctx,
	    m->data, m->len, stage, err);
}

/* Phase two: tmp/STAGE renamed to new/NAME, unless that happened before
 * (tm_sync makes the batch's renames durable). */
static int
tm_finish(void *ctx, const struct store_outmsg *m, const char *stage,
    struct hp_error *err)
{
	char hint[256];
	bool before;
	int rc;

	tm_name(m, hint, sizeof hint);
	rc = (tm_sync_each ? maildir_finish : maildir_finish_nosync)(ctx, stage,
	    hint, &before, err);
	if (rc == HP_OK && before)
		log_info("%s was delivered before a crash; not again",
		    m->message_id);
	return rc;
}

/* After a batch's stages: one syncfs for all their files; after its
 * finishes: one fsync of new/ (and cur/) for all the renames. */
static int
tm_sync(void *ctx, bool after_finish, struct hp_error *err)
{
	return after_finish ? maildir_sync(ctx, err) : maildir_syncfs(ctx,
	    err);
}

static void
tm_close(void *ctx)
{
	free(ctx);
}

const struct transport_ops transport_maildir = {
	.prefix = "maildir:",
	.open = tm_open,
	.send = tm_send,
	.stage = tm_stage,
	.finish = tm_finish,
	.close = tm_close,
	.sync = tm_sync,
};

const struct transport_ops *
transport_find(const char *spec)
{
	static const struct transport_ops *const all[] = {
		&transport_maildir, &transport_smtp, &transport_smtps, NULL
	};
	int i;

	for (i = 0; all[i] != NULL; i++)
		if (strncmp(spec, all[i]->prefix, strlen(all[i]->prefix)) == 0)
			return all[i];
	return NULL;
}
