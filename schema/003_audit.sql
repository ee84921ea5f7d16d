-- hexpost schema, migration 3: what an audit needs (docs/AUDIT.md).

-- The minisign signature of every order file accepted from a signed mail,
-- keyed by the file's hash (orders.hash): standing orders copied into a
-- later window keep theirs. pubkey is the signer's key when it was accepted.
CREATE TABLE order_signatures (
	hash BLOB PRIMARY KEY,         -- BLAKE2b-256 of the signed file
	signature TEXT NOT NULL,       -- the .minisig file as received
	pubkey TEXT NOT NULL,          -- minisign public key file text
	key_id TEXT NOT NULL,
	player_id INTEGER REFERENCES players(id) ON DELETE SET NULL
);

-- Each resolved window's dice log: the canonical text, hash-chained to the
-- previous window's, and the server's minisign signature of that text.
CREATE TABLE dice_logs (
	window_id INTEGER PRIMARY KEY REFERENCES windows(id) ON DELETE CASCADE,
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	text TEXT NOT NULL,
	hash BLOB NOT NULL,            -- BLAKE2b-256 of text
	signature TEXT,                -- NULL: resolved without a server key
	pubkey TEXT                    -- the server public key that signed it
);
CREATE INDEX dice_logs_campaign ON dice_logs(campaign_id, window_id);
