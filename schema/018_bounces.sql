-- hexpost schema, migration 18: mail that came back (issue 19, src/bounce.c).
-- One row per bounce taken in: the message of ours it names (by the
-- Message-ID it quotes), the campaign and player that message went to, the
-- address that failed and what the reporting server said. A player is
-- "unreachable since" the first bounce of their current address.
CREATE TABLE bounces (
	id INTEGER PRIMARY KEY,
	hash BLOB NOT NULL UNIQUE,      -- BLAKE2b-256 of the bounce message
	outbox_id INTEGER REFERENCES outbox(id) ON DELETE SET NULL,
	message_id TEXT NOT NULL,       -- ours, that bounced
	campaign_id INTEGER REFERENCES campaigns(id) ON DELETE SET NULL,
	player_id INTEGER REFERENCES players(id) ON DELETE SET NULL,
	rcpt TEXT NOT NULL,             -- the address that failed
	action TEXT NOT NULL DEFAULT 'failed',   -- failed, delayed
	status TEXT NOT NULL DEFAULT '',         -- e.g. 5.1.1, or ''
	diagnostic TEXT NOT NULL DEFAULT '',
	format TEXT NOT NULL,           -- 'dsn' (RFC 3464) or 'quoted'
	at INTEGER NOT NULL             -- unix time taken in
);
CREATE INDEX bounces_player ON bounces(player_id, rcpt);
