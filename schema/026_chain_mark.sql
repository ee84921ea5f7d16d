-- hexpost schema, migration 26: a mark on the campaign's seed chain
-- (issue 17, src/seedchain.c). Seed k of a chain of N is the tail hashed
-- N - k times (65,536 links for the first window: about 20 ms); the mark
-- keeps one later seed of the chain, so the next windows' seeds are a few
-- hundred links away from it. As secret as chain_tail (a seed not yet
-- revealed), never exported; tied to the tail it came from (a mark whose
-- tag is not the tail's is ignored and drawn again from the tail).
ALTER TABLE campaigns ADD COLUMN chain_mark_k INTEGER;  -- the mark's k
ALTER TABLE campaigns ADD COLUMN chain_mark BLOB;       -- seed k || tag
