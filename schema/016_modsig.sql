-- hexpost schema, migration 16: the moderator's own key and the statements
-- it signed (docs/AUDIT.md, "Moderator statements"). A campaign with a
-- moderator key takes replace, proceed, end, extend and deadline only as a
-- statement signed by that key; each is recorded here with its signature,
-- mailed to every player and exported in the audit bundle.
ALTER TABLE campaigns ADD COLUMN moderator_pubkey TEXT;  -- minisign .pub text
CREATE TABLE moderator_statements (
	id INTEGER PRIMARY KEY,
	campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
	seq INTEGER NOT NULL,             -- 1, 2, ... within the campaign
	statement TEXT NOT NULL,          -- canonical text
	signature TEXT NOT NULL,          -- .minisig by the moderator key
	created INTEGER NOT NULL,
	UNIQUE (campaign_id, seq)
);
