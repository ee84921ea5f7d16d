-- hexpost schema, migration 21: what a report mail carries besides its text
-- (issue 18, src/mailpref.c). One row per campaign (player '') and per
-- player who chose otherwise: the map's picture (PNG, on unless turned off)
-- and the JSON export of the side's view (off unless asked for). NULL: as
-- the campaign (or the default) says.
CREATE TABLE mail_prefs (
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	player TEXT NOT NULL DEFAULT '',
	picture INTEGER CHECK (picture IN (0, 1)),
	json INTEGER CHECK (json IN (0, 1)),
	PRIMARY KEY (campaign_id, player)
);

-- The picture data (picture_text, src/picture.c) of every resolved window:
-- side -2 the public view (what every side's view has in common), 0.. each
-- side's own, as the state stood after the window. The web archive draws
-- the public ones during the game and every side's after its end.
CREATE TABLE window_pictures (
	window_id INTEGER NOT NULL REFERENCES windows(id) ON DELETE CASCADE,
	side INTEGER NOT NULL,
	model TEXT NOT NULL,
	PRIMARY KEY (window_id, side)
);
