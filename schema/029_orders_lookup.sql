-- hexpost schema, migration 29: intake's replay check by index (issue 17).
-- Every signed order file taken in is compared with the campaign's earlier
-- ones: the same bytes (orders.hash) or the same nonce (orders.nonce,
-- migration 27). The check read every order file of the campaign for
-- each mail (orders_window), so a mail cost more the longer its game had
-- run (a third round of bench_ingest's mails took 30-60% more CPU than
-- the first). Now each question is one index lookup: orders_hash and
-- orders_nonce (players' files only: the opponent's are never compared).
-- The files whose nonce was not kept (NULL: from the command line, or from
-- before migration 27) are still read from their text, found through
-- orders_unkept without visiting the others.
CREATE INDEX orders_hash ON orders(hash) WHERE source <> 'opponent';
CREATE INDEX orders_nonce ON orders(nonce)
    WHERE nonce IS NOT NULL AND source <> 'opponent';
CREATE INDEX orders_unkept ON orders(window_id)
    WHERE nonce IS NULL AND source <> 'opponent';
