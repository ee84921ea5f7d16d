-- hexpost schema, migration 27: intake's replay check (issue 17, ingest).
-- Every signed order file taken in is compared with the campaign's earlier
-- ones (same bytes, or same nonce: line; src/intake.c). That check joined
-- windows to orders with no index on orders.window_id, so it read every
-- order file of every campaign, and parsed each of the campaign's files
-- again, for each mail: a club's intake grew with the whole database.
-- orders_window makes it read the campaign's rows only (it also serves
-- the other per-window lookups of orders), and orders.nonce keeps the
-- nonce of each file intake stores ('' when it has none), so the check
-- compares it in SQL (store_orders_replay). NULL: not kept (files from
-- the command line, or from before this migration), read from the text.
CREATE INDEX orders_window ON orders(window_id);
ALTER TABLE orders ADD COLUMN nonce TEXT;
