-- hexpost schema, migration 4: deadlines, reminders and moderation.

-- Per-campaign settings; a campaign without a row takes the configuration's
-- defaults (deadline_hours, remind_hours, missing).
CREATE TABLE campaign_settings (
	campaign_id INTEGER PRIMARY KEY REFERENCES campaigns(id)
	    ON DELETE CASCADE,
	deadline_hours INTEGER,        -- NULL: the configuration's
	remind_hours INTEGER,          -- NULL: the configuration's
	missing TEXT CHECK (missing IN ('ai', 'hold', 'wait')),
	paused INTEGER NOT NULL DEFAULT 0,
	paused_at INTEGER              -- unix time the pause began
);

-- The clock of each order window, by hexpost's clock (unix time): when it
-- opened, a fixed deadline if one was set, the hours added by the
-- moderator, and what has been done about it (each done once).
CREATE TABLE window_clock (
	window_id INTEGER PRIMARY KEY REFERENCES windows(id) ON DELETE CASCADE,
	opened INTEGER NOT NULL,
	fixed_deadline INTEGER,        -- NULL: opened + deadline_hours
	extended INTEGER NOT NULL DEFAULT 0,   -- seconds added
	reminded INTEGER NOT NULL DEFAULT 0,   -- reminders queued
	held INTEGER NOT NULL DEFAULT 0        -- waiting for the moderator,
	                                       -- who has been told
);

-- Every moderator command and player request carried out, by mail (with
-- the nonce of the signed command file, which cannot be used twice) or
-- from the command line (nonce NULL).
CREATE TABLE commands (
	id INTEGER PRIMARY KEY,
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	player_id INTEGER REFERENCES players(id) ON DELETE SET NULL,
	nonce TEXT,
	command TEXT NOT NULL,
	detail TEXT NOT NULL DEFAULT '',
	at INTEGER NOT NULL,
	UNIQUE (campaign_id, nonce)
);
