-- hexpost schema, migration 9: quarantined campaigns (issue 20). A campaign
-- whose resolution failed is not tried again, pass after pass, until the
-- moderator acts ('resume'); the moderator is told once, when it begins.
CREATE TABLE campaign_quarantine (
	campaign_id INTEGER PRIMARY KEY REFERENCES campaigns(id)
	    ON DELETE CASCADE,
	since INTEGER NOT NULL,        -- unix time, hexpost's clock
	error TEXT NOT NULL            -- what the resolution said
);
