-- hexpost schema, migration 2: mail intake and the outbox.

-- Every message taken in, recorded in the same transaction as its effect so
-- that a crash before the Maildir file is flagged cannot apply it twice.
CREATE TABLE messages (
	id INTEGER PRIMARY KEY,
	hash BLOB NOT NULL UNIQUE,     -- BLAKE2b-256 of the raw message
	message_id TEXT,
	mailbox TEXT NOT NULL,
	outcome TEXT NOT NULL
	    CHECK (outcome IN ('accepted', 'rejected', 'ignored', 'request')),
	detail TEXT NOT NULL DEFAULT '',
	campaign_id INTEGER REFERENCES campaigns(id) ON DELETE SET NULL,
	player_id INTEGER REFERENCES players(id) ON DELETE SET NULL,
	received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX messages_message_id ON messages(message_id);

-- Every outgoing message, written in the same transaction as the state
-- change that causes it, then delivered by a sender. message_id is stable:
-- a message is delivered at most once under it.
CREATE TABLE outbox (
	id INTEGER PRIMARY KEY,
	message_id TEXT NOT NULL UNIQUE,
	campaign_id INTEGER REFERENCES campaigns(id) ON DELETE SET NULL,
	kind TEXT NOT NULL,            -- ack, refusal, report, welcome, notice
	rcpt TEXT NOT NULL,
	envelope_from TEXT NOT NULL,   -- '' for auto-replies (RFC 3834)
	data BLOB NOT NULL,            -- the whole RFC 5322 message
	state TEXT NOT NULL DEFAULT 'queued'
	    CHECK (state IN ('queued', 'sent', 'failed')),
	attempts INTEGER NOT NULL DEFAULT 0,
	next_attempt INTEGER NOT NULL DEFAULT 0,   -- unix time
	last_error TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	sent_at TEXT
);
CREATE INDEX outbox_queue ON outbox(state, next_attempt);

CREATE INDEX players_key ON players(key_id);
