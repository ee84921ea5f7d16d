-- Packed windows (issue 17): a resolved window a day old keeps its events,
-- public and sealed dice rows and its dice log's text, signature and key
-- as one compressed row (src/store.c, "Packed windows"); its rows in
-- events, dice and sealed_dice go, its dice_logs row stays (hash, seed
-- chain) with a marker for its text. Older databases are packed by the
-- next store_compact; until then their rows read as before.
CREATE TABLE window_packs (
	window_id INTEGER PRIMARY KEY REFERENCES windows(id) ON DELETE CASCADE,
	data BLOB NOT NULL
);
