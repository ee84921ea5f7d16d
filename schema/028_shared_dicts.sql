-- hexpost schema, migration 28: shared dictionaries (issue 17, storage).
-- A value stored with no earlier value of its campaign to lean on (the
-- first report and picture data of a campaign's view, an order file when
-- its window is packed) is compressed against the dictionary of its scope
-- (what it is, the ruleset, the scenario and the view or side): the first
-- such value the host stored, kept here once. A row compressed against
-- one names it by tag (the first 8 bytes, big-endian, of hash: the
-- BLAKE2b-256 of its scope, a NUL and its bytes) so that no later change of program, template or scenario can make it
-- unreadable; rows here are never deleted (src/store.c, "Shared
-- dictionaries"). IF NOT EXISTS: tests set user_version back and migrate
-- again.
CREATE TABLE IF NOT EXISTS shared_dicts (
	tag INTEGER PRIMARY KEY,
	hash BLOB NOT NULL,
	scope TEXT NOT NULL,
	data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS shared_dicts_scope ON shared_dicts(scope, tag);
