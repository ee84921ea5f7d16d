-- hexpost schema, migration 14 (issue 10, G1/G3/G4): resolutions that stop
-- to ask and resume, and standing orders fixed when a window opens.
--
-- A decision window opened by a stopped resolution (RESOLVE_ASK) names the
-- window whose resolution stopped first (cont_of: its orders are handed to
-- the resumed resolution again) and the step that asked (cont_step: the
-- resolution resumes at the next one). NULL: not a continuation.
ALTER TABLE windows ADD COLUMN cont_of INTEGER REFERENCES windows(id);
ALTER TABLE windows ADD COLUMN cont_step INTEGER;

-- The standing orders of each side that had them when the window opened
-- (its snapshot: a file that arrives later counts from the next window).
-- Their hashes enter the window's dice key (docs/AUDIT.md, "Dice key").
-- standing_fixed is 1 for a window opened with its snapshot taken (0: opened
-- before this migration, which still takes the standing orders in force
-- when it is resolved).
ALTER TABLE windows ADD COLUMN standing_fixed INTEGER NOT NULL DEFAULT 0;
CREATE TABLE window_standing (
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	side_idx INTEGER NOT NULL,
	raw TEXT NOT NULL,
	hash BLOB NOT NULL,            -- BLAKE2b-256 of raw
	PRIMARY KEY (window_id, side_idx)
);
