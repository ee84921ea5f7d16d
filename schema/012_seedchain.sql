-- hexpost schema, migration 12: the campaign's seed chain (docs/AUDIT.md,
-- "Seed chain"). Drawn when the campaign is created, before any player
-- exists: a reverse hash chain of window seeds whose head the chain
-- statement commits to, signed by the server key. NULL on campaigns made
-- before this migration (their audit says they have no seed chain).
ALTER TABLE campaigns ADD COLUMN chain_tail BLOB;       -- secret: seed N
ALTER TABLE campaigns ADD COLUMN chain_length INTEGER;  -- N
ALTER TABLE campaigns ADD COLUMN chain_statement TEXT;  -- canonical text
ALTER TABLE campaigns ADD COLUMN chain_signature TEXT;  -- .minisig, NULL
                                                        -- until signed
ALTER TABLE campaigns ADD COLUMN chain_pubkey TEXT;     -- key that signed
