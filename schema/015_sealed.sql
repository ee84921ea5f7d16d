-- hexpost schema, migration 15: sealed dice and events citing several
-- rolls (docs/AUDIT.md, "Sealed dice"; docs/ARCHITECTURE.md §4, G5/G6).
-- The campaign's sealed seed: drawn when a campaign of a ruleset with
-- sealed dice is created, committed to (per visibility set) in the sealed
-- statement before any order, revealed at the game's end. NULL: the
-- campaign has no sealed stream.
ALTER TABLE campaigns ADD COLUMN sealed_seed BLOB;
ALTER TABLE campaigns ADD COLUMN sealed_signature TEXT;
ALTER TABLE campaigns ADD COLUMN sealed_pubkey TEXT;
-- An event cites rolls roll .. roll + nroll - 1 (nroll 0: just roll, or
-- none when roll is 0) of the public stream (roll_set 0) or of the sealed
-- stream of visibility set roll_set.
ALTER TABLE events ADD COLUMN nroll INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN roll_set INTEGER NOT NULL DEFAULT 0;
-- Sealed rolls, numbered within their visibility set.
CREATE TABLE sealed_dice (
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	set_mask INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	draw INTEGER NOT NULL,        -- order drawn within the window, 1-based
	purpose TEXT NOT NULL,
	sides INTEGER NOT NULL,
	target INTEGER NOT NULL,
	result INTEGER NOT NULL,
	PRIMARY KEY (window_id, set_mask, seq)
);
