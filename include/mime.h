/* mime: reading players' mail and writing the outbox, on top of GMime 3.
 *
 * mime_parse takes a raw RFC 5322 message (as delivered: LF or CRLF line
 * ends, an mbox "From " line first is ignored) and returns its sender,
 * subject, whether it is automatic mail that must not be answered, and
 * every leaf part decoded. It refuses, with a message meant for the
 * person who sent the mail, anything it would otherwise have to guess at:
 * limits exceeded, malformed multipart structure, truncated or corrupt
 * base64 or quoted-printable, unknown transfer encodings or charsets, text
 * bodies that are not valid in their charset, NUL bytes, conflicting
 * duplicate headers, two attachments of the same name.
 *
 * Text bodies (text parts that are not attachments) are converted to
 * UTF-8 from their charset; attachments (a filename, Content-Disposition:
 * attachment, or a type other than text) are left exactly as decoded
 * from their transfer encoding, so a signature over them can be checked.
 * Forwarded messages (message/rfc822) are one leaf part holding the
 * message; their attachments are not looked into.
 *
 * A player's usual mail (see fast_parse in src/mime.c) is read without
 * GMime, giving what GMime gives (test_mimefast); so mime_parse may run on
 * several threads at once for it.
 *
 * mime_build writes a 7-bit message for the outbox with LF line ends (for
 * sendmail(1) or a Maildir; SMTP needs them as CRLF). */
#ifndef MIME_H
#define MIME_H

#include <stdbool.h>
#include <stddef.h>

#include "hexpost.h"

#define MIME_MAX_MESSAGE (2 * 1024 * 1024)   /* whole message */
#define MIME_MAX_PART (256 * 1024)           /* one decoded attachment */
#define MIME_MAX_PARTS 64

struct mime_part {
	char *filename;         /* decoded (RFC 2231/2047), NULL if none */
	char *content_type;     /* "text/plain" lower-case */
	unsigned char *data;    /* decoded body, NUL-terminated for convenience */
	size_t len;
	bool attachment;
	bool base64;            /* sent base64-encoded: its bytes are exact; any
	                         * other encoding leaves line ends to transport */
};

struct mime_msg {
	char *message_id;       /* without <>; NULL if absent */
	char *from;             /* addr-spec only; NULL if absent */
	char *reply_to;         /* addr-spec only; NULL if absent */
	char *subject;          /* decoded to UTF-8; NULL if absent */
	/* Must not be answered: Auto-Submitted other than "no", Precedence
	 * bulk/junk/list, List-Id/List-Unsubscribe present, empty Return-Path
	 * "<>", a delivery status report (multipart/report,
	 * message/delivery-status), From MAILER-DAEMON/postmaster,
	 * X-Autoreply/X-Autorespond present. */
	bool automatic;
	char auto_reason[64];   /* e.g. "Auto-Submitted: auto-replied" */
	bool html_only;         /* text/html but no text/plain, no attachment */
	/* Several From addresses, or two differing From headers: there is no
	 * one sender to answer (kept when the message is refused). */
	bool from_ambiguous;
	struct mime_part *parts; /* every leaf part, in order */
	size_t nparts;
	unsigned char hash[32]; /* BLAKE2b-256 of the raw message bytes */
};

/* Initialise GMime and libsodium. mime_parse and mime_build do it when
 * first called; a program that parses on several threads calls it first,
 * once, before starting them. */
void mime_init(void);
/* Parse a raw RFC 5322 message. Refuses (HP_EINVAL with a clear message for
 * a person, e.g. "the message is 3.1 MB; the limit is 2 MB", "attachment
 * orders.txt is larger than 256 KB", "malformed MIME: ...", "the message
 * has more than 64 parts") rather than guessing. On success the caller owns
 * m and frees it with mime_msg_free. On failure m owns nothing, but hash is
 * set and automatic/auto_reason are set as far as the headers could be
 * read, so that a refusal is never sent in answer to automatic mail. */
int mime_parse(const unsigned char *raw, size_t len, struct mime_msg *m,
    struct hp_error *err);
void mime_msg_free(struct mime_msg *);
/* For a message refused unread (too large): set m->automatic and
 * auto_reason from the first len bytes of it alone (its header block, as
 * far as it goes). m must be zeroed; it owns nothing afterwards. */
void mime_head_automatic(const unsigned char *head, size_t len,
    struct mime_msg *m);
/* The part whose filename is name (case-insensitive), or NULL. Filenames
 * are unique within a message (mime_parse refuses duplicates). */
const struct mime_part *mime_find(const struct mime_msg *, const char *name);
/* Decoded parts whose filename ends with suffix (case-insensitive, e.g.
 * ".minisig"): the count, and out[] filled up to max. */
size_t mime_find_suffix(const struct mime_msg *, const char *suffix,
    const struct mime_part **out, size_t max);

/* Read text, a block of header fields (RFC 5322 syntax, up to the first
 * empty line or the end: a quoted message's header, a group of fields of
 * a message/delivery-status part), with GMime and call fn with each
 * field's name and unfolded value, in order. Returns the number of
 * fields. */
int mime_fields(const unsigned char *text, size_t len,
    void (*fn)(const char *name, const char *value, void *), void *arg);

/* A file attached to an outgoing message: its name, MIME type (e.g.
 * "image/png") and bytes. */
struct mime_file {
	const char *name;
	const char *type;
	const void *data;
	size_t len;
};

struct mime_out {
	const char *from;           /* "Name <addr>" or "addr" */
	const char *to;             /* one or more addresses */
	const char *subject;        /* UTF-8 */
	const char *message_id;     /* without <> */
	const char *in_reply_to;    /* without <>; may be NULL */
	/* References: message ids without <>, one space apart (the thread's
	 * root first); NULL: in_reply_to alone, if given. */
	const char *references;
	/* List-Id (RFC 2919), e.g. "hexpost hill <hill.hexpost.example.org>",
	 * or NULL. Written after Auto-Submitted, then extra. */
	const char *list_id;
	/* Further header fields as name, value pairs (ASCII names; UTF-8
	 * values are RFC 2047-encoded), ended by a NULL name; may be NULL. */
	const char *const *extra;
	const char *auto_submitted; /* "auto-replied" or "auto-generated" */
	const char *date;           /* RFC 5322 date text, or NULL for now */
	const char *body;           /* UTF-8 text */
	const char *attach_name;    /* optional text attachment (UTF-8) */
	const char *attach_body;
	/* Further attachments of any type (after attach_name's), base64;
	 * nfiles of them, or NULL. */
	const struct mime_file *files;
	size_t nfiles;
};

/* Build the message (7-bit: the body as 7bit or quoted-printable with
 * charset=utf-8; the attachment always base64 so its bytes survive
 * exactly). Headers include Auto-Submitted, MIME-Version, Content-Type
 * text/plain; charset=utf-8 (or multipart/mixed with an attachment),
 * Message-ID <..>, In-Reply-To/References, List-Id and the extra fields
 * when given. The caller frees
 * *out (NUL-terminated, *outlen bytes without the NUL). */
int mime_build(const struct mime_out *, char **out, size_t *outlen,
    struct hp_error *);

#endif
