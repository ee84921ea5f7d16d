/* fetch_imap: mail in over IMAP (libcurl). Each configured mailbox
 * (cfg->imap[], imap:// with STARTTLS or imaps://, certificates verified)
 * is read by UID: UIDVALIDITY and the last UID taken are kept in the
 * database (schema/005_imap.sql). New messages are fetched in batches into
 * the local spool Maildir (cfg->mailbox) under stable names
 * "imap.<mailbox id>.<UIDVALIDITY>.<UID>" (tmp/, fsync, link into new/),
 * then recorded; intake_run takes them in from there and flags each after
 * its transaction committed; only then is the message marked on the
 * server (\Seen, a keyword, or moved to a folder: cfg->imap_after) and
 * its spool file removed. docs/ARCHITECTURE.md lists the crash points.
 *
 * The session is an explicit state machine over a connection libcurl
 * opens, secures and logs in (CURLOPT_CONNECT_ONLY); commands and
 * responses go through curl_easy_send/curl_easy_recv, parsed by
 * fetch_imap_parse (fuzzed by fuzz/fuzz_imap.c). */
#ifndef FETCH_IMAP_H
#define FETCH_IMAP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "store.h"

struct fetch_imap_stats {
	int mailboxes;   /* mailboxes read */
	int failed;      /* mailboxes that could not be read this time */
	int fetched;     /* messages put into the spool */
	int marked;      /* messages marked or moved on the server */
};

/* Mark what intake has taken in since the last pass, then fetch every new
 * message of every configured mailbox into the spool. A mailbox that cannot
 * be reached is logged and skipped: the others are still read, and the
 * result is HP_ESTATE (try again later) with the first failure in err. */
int fetch_imap_run(struct store *, const struct config *,
    struct fetch_imap_stats *, struct hp_error *);
/* Mark on the server every spooled message intake has taken in (its spool
 * file flagged S), and remove its spool file. Connects only to mailboxes
 * that have such messages. Failures as fetch_imap_run. */
int fetch_imap_mark(struct store *, const struct config *,
    struct fetch_imap_stats *, struct hp_error *);

/* Wait up to seconds for new mail in the first configured mailbox, by
 * IMAP IDLE (RFC 2177) on a connection of its own: *arrived is set when
 * the server announces a message (EXISTS) or already holds messages past
 * the last UID fetched. Returns early, *arrived false, once *stop or
 * *reload is set (checked every second). HP_ENOENT: no IMAP mailbox, or
 * the server has no IDLE (the caller sleeps instead); HP_ESTATE with err
 * set: the connection failed. */
int fetch_imap_idle(struct store *, const struct config *, int seconds,
    const volatile sig_atomic_t *stop, const volatile sig_atomic_t *reload,
    bool *arrived,
    struct hp_error *);

/* Session states, for the logs. */
enum imap_state {
	IMAP_DISCONNECTED,
	IMAP_AUTHENTICATED,  /* connected, secured, logged in by libcurl */
	IMAP_SELECTED,       /* a mailbox selected */
	IMAP_LOGOUT,         /* LOGOUT sent */
	IMAP_BROKEN          /* an I/O or protocol error: only cleanup left */
};
const char *fetch_imap_strstate(enum imap_state);

/* One server response, as fetch_imap_parse reads it. */
enum imap_rtype {
	IMAP_R_TAGGED,       /* TAG OK|NO|BAD text */
	IMAP_R_STATUS,       /* * OK|NO|BAD|BYE|PREAUTH text */
	IMAP_R_FETCH,        /* * N FETCH (...) */
	IMAP_R_CAPABILITY,   /* * CAPABILITY ... */
	IMAP_R_CONTINUE,     /* + text */
	IMAP_R_OTHER         /* any other untagged response */
};
enum imap_status {
	IMAP_ST_NONE, IMAP_ST_OK, IMAP_ST_NO, IMAP_ST_BAD, IMAP_ST_BYE,
	IMAP_ST_PREAUTH
};
#define IMAP_CAP_MOVE 1u
#define IMAP_CAP_UIDPLUS 2u
#define IMAP_CAP_IDLE 4u

struct imap_resp {
	enum imap_rtype type;
	char tag[32];
	enum imap_status status;
	char code[32];           /* response code, e.g. "UIDVALIDITY", or "" */
	uint64_t code_num;       /* its number, when it has one */
	char text[256];          /* the human-readable text, printable ASCII */
	uint32_t seq;            /* FETCH: message sequence number */
	uint32_t uid;            /* FETCH: UID, 0 if not given */
	bool has_size;
	uint64_t size;           /* FETCH: RFC822.SIZE */
	bool has_body;
	const unsigned char *body; /* FETCH: BODY[] contents, inside the input */
	size_t body_len;
	unsigned caps;           /* CAPABILITY (or [CAPABILITY ...]): IMAP_CAP_* */
};

/* Parse the response at the start of buf[0, len). Returns the number of
 * bytes it spans (> 0) with *out filled (pointers into buf), 0 if buf holds
 * only part of it (read more), or -1 with err set if it is malformed or
 * longer than max bytes. */
long fetch_imap_parse(const unsigned char *buf, size_t len, size_t max,
    struct imap_resp *out, struct hp_error *err);

#endif
