-- hexpost schema, migration 1: campaigns, sides, players, map, units, order
-- windows, orders, events, dice log and rendered reports. Applied inside one
-- transaction by `hexpost init`; PRAGMA user_version records the last one.

CREATE TABLE campaigns (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	ruleset TEXT NOT NULL,
	scenario TEXT NOT NULL DEFAULT '',
	options TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL DEFAULT 'active'
	    CHECK (status IN ('setup', 'active', 'finished')),
	result TEXT NOT NULL DEFAULT '',
	turn INTEGER NOT NULL DEFAULT 1,
	window INTEGER NOT NULL DEFAULT 1,
	layout_orient INTEGER NOT NULL,
	layout_parity INTEGER NOT NULL,
	layout_cols INTEGER NOT NULL,
	layout_rows INTEGER NOT NULL,
	layout_row_base INTEGER NOT NULL,
	master_seed BLOB,              -- only for test/demo campaigns (--seed)
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE sides (
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	idx INTEGER NOT NULL,
	name TEXT NOT NULL,
	label TEXT NOT NULL,
	ai INTEGER NOT NULL DEFAULT 1,
	standing TEXT,
	PRIMARY KEY (campaign_id, idx),
	UNIQUE (campaign_id, name)
);

CREATE TABLE players (
	id INTEGER PRIMARY KEY,
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	side_idx INTEGER NOT NULL,
	name TEXT NOT NULL,
	email TEXT NOT NULL,
	pubkey TEXT,                   -- minisign public key, when signed mail
	key_id TEXT,
	moderator INTEGER NOT NULL DEFAULT 0,
	active INTEGER NOT NULL DEFAULT 1,
	UNIQUE (campaign_id, name),
	FOREIGN KEY (campaign_id, side_idx) REFERENCES sides(campaign_id, idx)
);

CREATE TABLE hexes (
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	q INTEGER NOT NULL,
	r INTEGER NOT NULL,
	terrain TEXT NOT NULL,
	elevation INTEGER NOT NULL DEFAULT 0,
	edges TEXT NOT NULL DEFAULT '0 0 0 0 0 0',
	PRIMARY KEY (campaign_id, q, r)
);

CREATE TABLE units (
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	idx INTEGER NOT NULL,
	uid TEXT NOT NULL,
	kind TEXT NOT NULL,
	name TEXT NOT NULL,
	side_idx INTEGER NOT NULL,
	placed INTEGER NOT NULL,
	q INTEGER NOT NULL,
	r INTEGER NOT NULL,
	status INTEGER NOT NULL,
	strength INTEGER NOT NULL,
	facing INTEGER NOT NULL,
	attached INTEGER NOT NULL,
	flags INTEGER NOT NULL,
	x TEXT NOT NULL,               -- ruleset slots, space-separated integers
	PRIMARY KEY (campaign_id, idx),
	UNIQUE (campaign_id, uid)
);

CREATE TABLE vars (
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	key TEXT NOT NULL,
	val INTEGER NOT NULL,
	PRIMARY KEY (campaign_id, key)
);

CREATE TABLE windows (
	id INTEGER PRIMARY KEY,
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	turn INTEGER NOT NULL,
	number INTEGER NOT NULL,
	name TEXT NOT NULL,
	kind INTEGER NOT NULL,
	sides INTEGER NOT NULL,        -- bit per side that must send orders
	prompt TEXT NOT NULL DEFAULT '',
	state TEXT NOT NULL CHECK (state IN ('open', 'closed', 'resolved')),
	seed BLOB NOT NULL,            -- secret until resolved
	commitment BLOB NOT NULL,
	dice_key BLOB,
	opened_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	deadline TEXT,
	resolved_at TEXT,
	UNIQUE (campaign_id, turn, number)
);

-- Every order file as received. Exactly one row per (window, side) is
-- current; a later valid file for the same window supersedes it.
CREATE TABLE orders (
	id INTEGER PRIMARY KEY,
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	side_idx INTEGER NOT NULL,
	player_id INTEGER REFERENCES players(id),
	source TEXT NOT NULL,          -- 'cli', 'mail', 'opponent'
	raw TEXT NOT NULL,
	parsed TEXT NOT NULL,          -- the ruleset's normalised form
	hash BLOB NOT NULL,            -- BLAKE2b-256 of raw
	current INTEGER NOT NULL DEFAULT 1,
	received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE UNIQUE INDEX orders_current ON orders(window_id, side_idx)
    WHERE current = 1;

CREATE TABLE events (
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	step INTEGER NOT NULL,
	phase TEXT NOT NULL,
	text TEXT NOT NULL,
	visible INTEGER NOT NULL,
	roll INTEGER NOT NULL,
	PRIMARY KEY (window_id, seq)
);

CREATE TABLE dice (
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	purpose TEXT NOT NULL,
	sides INTEGER NOT NULL,
	target INTEGER NOT NULL,
	result INTEGER NOT NULL,
	PRIMARY KEY (window_id, seq)
);

-- Reports as rendered after a window was resolved, one per side (side_idx
-- -1 is the moderator's full view).
CREATE TABLE reports (
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	side_idx INTEGER NOT NULL,
	body TEXT NOT NULL,
	PRIMARY KEY (window_id, side_idx)
);
