-- hexpost schema, migration 7: mail intake (issue 12).

-- The content of a message apart from its header block (BLAKE2b-256 of the
-- body with CRLF read as LF), so that a Message-ID seen before counts as a
-- duplicate only with the same content; NULL for messages taken in before
-- this migration (a match on their Message-ID alone still counts).
ALTER TABLE messages ADD COLUMN content_hash BLOB;

-- Strangers (addresses of no registered player) get at most one short
-- answer a day: when each was last answered, by hexpost's clock.
CREATE TABLE stranger_answers (
	address TEXT PRIMARY KEY COLLATE NOCASE,
	last_at INTEGER NOT NULL,        -- unix seconds
	suppressed INTEGER NOT NULL DEFAULT 0   -- answers not sent since
);
