-- hexpost schema, migration 10: ruleset-owned state (include/game.h,
-- struct game's rstate): canonical text that only the campaign's ruleset
-- writes and parses (decks, hands, token pools, queued plans), saved with
-- the rest of the campaign's state in the same transaction. NULL: none.
ALTER TABLE campaigns ADD COLUMN rstate TEXT;
