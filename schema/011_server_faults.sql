-- hexpost schema, migration 11: faults of the server itself (issue 21),
-- each told to the moderators once, when it begins (src/fault.c). kind
-- names the fault: 'outbox' while the outbox cannot be written (disk full,
-- read-only; the mail stays queued), 'behind.HASH' when the database was
-- found behind the inbox (a restore from a backup). The row is written in
-- the same transaction as the notices, so a fault is told once, and
-- removed when the fault ends (the outbox written again), so a later one is
-- told again.
CREATE TABLE server_faults (
	kind TEXT PRIMARY KEY,
	since INTEGER NOT NULL,        -- unix time, hexpost's clock
	error TEXT NOT NULL            -- what failed, as told
);
