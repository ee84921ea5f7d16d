-- hexpost schema, migration 6: the server key's history (docs/AUDIT.md,
-- "Key rotation").

-- One row per `hexpost key rotate`: the rotation statement handing over
-- from the old server key to the new one, signed by the old key and
-- countersigned by the new, numbered 1, 2, ... (seq is the statement's
-- "sequence:"). Statement k's old key is statement k-1's new key.
CREATE TABLE key_rotations (
	seq INTEGER PRIMARY KEY CHECK (seq >= 1),
	statement TEXT NOT NULL,         -- the canonical statement text
	signature TEXT NOT NULL,         -- .minisig by the old key
	countersignature TEXT NOT NULL,  -- .minisig by the new key
	old_key_id TEXT NOT NULL,
	new_key_id TEXT NOT NULL UNIQUE,
	old_pubkey TEXT NOT NULL,        -- minisign public key file text
	new_pubkey TEXT NOT NULL,
	created_at INTEGER NOT NULL      -- hexpost's clock, seconds (UTC)
);
