-- hexpost schema, migration 15: sealed dice and events citing several
-- rolls (docs/AUDIT.md, "Sealed dice"; docs/ARCHITECTURE.md §4, G5/G6).
-- The seeds of a campaign's sealed streams, one per visibility set (a
-- non-empty set of sides, bit per side): drawn, independently, when a
-- campaign of a ruleset with hidden information is created, each committed
-- to in its own set statement signed by the server key before any order,
-- mailed to the set's sides in their welcome; each set's seed is shown to
-- its sides, and all to everyone through the audit bundle after the end.
CREATE TABLE sealed_sets (
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	set_mask INTEGER NOT NULL,
	seed BLOB NOT NULL,           -- secret from the other sides
	signature TEXT,               -- of the set statement; NULL: unsigned
	pubkey TEXT,                  -- key that signed it
	PRIMARY KEY (campaign_id, set_mask)
);
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
