/* bounce: mail that came back (issue 19). A delivery status notification
 * (RFC 3464: multipart/report with a message/delivery-status part) or one
 * of the common non-standard bounces (a mailer daemon's text quoting the
 * message it could not deliver, as qmail and Exim write them) is
 * recognised from the parsed message (GMime, through mime_parse and
 * mime_fields), matched to the message of ours it names by the quoted
 * Message-ID and Date, and recorded against the player it went to
 * (schema/018_bounces.sql). The first failure of a player's address tells
 * the campaign's moderators which player is unreachable and since when. A
 * bounce is never answered and never taken as orders; one that names a
 * message hexpost never sent, or not as hexpost sent it, changes nothing
 * and is logged. */
#ifndef BOUNCE_H
#define BOUNCE_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "mime.h"
#include "store.h"

/* What a bounce says. */
struct bounce_info {
	char format[8];         /* "dsn" (RFC 3464) or "quoted" */
	char message_id[256];   /* of the message that bounced, without <> */
	char date[128];         /* its Date as quoted, or "" */
	char rcpt[256];         /* Final-Recipient's address, or "" */
	char action[16];        /* "failed" or "delayed" */
	char status[16];        /* e.g. "5.1.1", or "" */
	char diagnostic[256];   /* the reporting server's words, or "" */
	bool has_orders;        /* carries a .minisig/.sig part too */
};

/* Is m (parsed, automatic mail) a bounce? Fills *b if so. */
bool bounce_detect(const struct mime_msg *m, struct bounce_info *b);
/* Take in bounce b (the message of hash and Message-ID msgid, from
 * mailbox) in the caller's transaction: record it in messages (ignored,
 * with what was found), and if it names a message of ours as sent, in
 * bounces, telling the moderators when a player's address first fails.
 * Only a database error is an error. */
int bounce_take(struct store *, const struct config *,
    const struct bounce_info *b, const unsigned char hash[32],
    const char *msgid, const char *mailbox, struct hp_error *);
/* Print a line for every unreachable player of campaign cid (0: all) to
 * f, indented by indent. */
int bounce_print(struct store *, int64_t cid, FILE *f, const char *indent,
    struct hp_error *);

#endif
