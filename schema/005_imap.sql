-- hexpost schema, migration 5: mail in over IMAP (src/fetch_imap.c).

-- Each configured IMAP mailbox, by its URL (never with a password): the
-- UIDVALIDITY its UIDs belong to and the highest UID fetched into the spool.
CREATE TABLE imap_mailboxes (
	id INTEGER PRIMARY KEY,
	url TEXT NOT NULL UNIQUE,
	uidvalidity INTEGER NOT NULL DEFAULT 0,
	last_uid INTEGER NOT NULL DEFAULT 0
);

-- Messages fetched into the spool Maildir and not yet marked on the server.
-- A row is written after its spool file is durable and removed once the
-- message is marked (or moved) on the server, after intake took it in.
CREATE TABLE imap_spool (
	mailbox_id INTEGER NOT NULL REFERENCES imap_mailboxes(id)
	    ON DELETE CASCADE,
	uidvalidity INTEGER NOT NULL,
	uid INTEGER NOT NULL,
	fetched_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	PRIMARY KEY (mailbox_id, uidvalidity, uid)
);
