-- hexpost schema, migration 23: club life (issue 19, src/absence.c).
-- Absences: a player away until a time (a vacation they or the moderator
-- announced), or a seat handed to the built-in opponent after too many
-- missed windows (until NULL: until the player writes again or is
-- replaced). ended is set when it stops early.
CREATE TABLE absences (
	id INTEGER PRIMARY KEY,
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	player_id INTEGER NOT NULL REFERENCES players(id),
	side_idx INTEGER NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('vacation', 'missed')),
	policy TEXT NOT NULL CHECK (policy IN ('ai', 'hold', 'orders')),
	since INTEGER NOT NULL,         -- unix time
	until INTEGER,                  -- unix time; NULL: open-ended
	ended INTEGER                   -- unix time it stopped early, or NULL
);
CREATE INDEX absences_player ON absences(player_id);

-- The windows an absence filled: they are not missed.
CREATE TABLE absence_fills (
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	side_idx INTEGER NOT NULL,
	absence_id INTEGER NOT NULL REFERENCES absences(id),
	PRIMARY KEY (window_id, side_idx)
);

-- Windows missed in a row per player, and whether the moderator was told.
CREATE TABLE missed_windows (
	player_id INTEGER PRIMARY KEY REFERENCES players(id),
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	in_row INTEGER NOT NULL DEFAULT 0,
	total INTEGER NOT NULL DEFAULT 0,
	told INTEGER NOT NULL DEFAULT 0
);

-- Extensions players asked for (the moderator's own "extend" is not here).
CREATE TABLE extensions (
	id INTEGER PRIMARY KEY,
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	player_id INTEGER NOT NULL REFERENCES players(id),
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	hours INTEGER NOT NULL,
	at INTEGER NOT NULL
);

-- Per-campaign club settings; NULL: the built-in default.
CREATE TABLE club_settings (
	campaign_id INTEGER PRIMARY KEY REFERENCES campaigns(id)
	    ON DELETE CASCADE,
	absence_max_days INTEGER,       -- default 60
	missed_limit INTEGER,           -- default 3; 0: never
	missed_policy TEXT CHECK (missed_policy IN ('tell', 'ai')),
	extensions INTEGER,             -- per player per campaign, default 2
	extension_hours INTEGER         -- each at most, default 48
);
