-- hexpost schema, migration 22: the wake index (issue 17, storage/idle).
-- One row per campaign: from when (wake_at, unix seconds on hexpost's
-- clock) a pass must look at it. The daemon's pass reads only the rows due
-- (one range scan of campaign_wake_at) and, after looking at one, writes
-- the next time its clock needs it (a reminder, a deadline) or
-- DEADLINE_WAKE_NEVER when only a change can (mail, a moderator's
-- command). Every change that may make a campaign due sets wake_at to 0
-- through the triggers below, whoever makes it (the daemon, 'hexpost
-- moderate', 'orders submit', another process). The daemon computes and
-- writes the next wake inside one write transaction, from the state that
-- transaction sees, so a change committed by another process is either
-- seen by it or sets wake_at to 0 after it.
CREATE TABLE campaign_wake (
	campaign_id INTEGER PRIMARY KEY REFERENCES campaigns(id)
	    ON DELETE CASCADE,
	wake_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX campaign_wake_at ON campaign_wake(wake_at);
INSERT INTO campaign_wake(campaign_id) SELECT id FROM campaigns;

-- The deadline defaults of hexpost.conf the wake times were computed with:
-- when they change, every campaign is looked at again.
CREATE TABLE wake_config (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	fingerprint TEXT NOT NULL
);

CREATE TRIGGER wake_campaigns_ins AFTER INSERT ON campaigns BEGIN
	INSERT OR IGNORE INTO campaign_wake(campaign_id) VALUES (NEW.id);
END;
CREATE TRIGGER wake_campaigns_upd AFTER UPDATE ON campaigns BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.id;
END;
CREATE TRIGGER wake_sides_ins AFTER INSERT ON sides BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_sides_upd AFTER UPDATE ON sides BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_players_ins AFTER INSERT ON players BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_players_upd AFTER UPDATE ON players BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_players_del AFTER DELETE ON players BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = OLD.campaign_id;
END;
CREATE TRIGGER wake_windows_ins AFTER INSERT ON windows BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_windows_upd AFTER UPDATE ON windows BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_orders_ins AFTER INSERT ON orders BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = (SELECT campaign_id FROM windows
	    WHERE id = NEW.window_id);
END;
CREATE TRIGGER wake_orders_upd AFTER UPDATE ON orders BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = (SELECT campaign_id FROM windows
	    WHERE id = NEW.window_id);
END;
CREATE TRIGGER wake_orders_del AFTER DELETE ON orders BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = (SELECT campaign_id FROM windows
	    WHERE id = OLD.window_id);
END;
CREATE TRIGGER wake_clock_ins AFTER INSERT ON window_clock BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = (SELECT campaign_id FROM windows
	    WHERE id = NEW.window_id);
END;
CREATE TRIGGER wake_clock_upd AFTER UPDATE ON window_clock BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = (SELECT campaign_id FROM windows
	    WHERE id = NEW.window_id);
END;
CREATE TRIGGER wake_clock_del AFTER DELETE ON window_clock BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = (SELECT campaign_id FROM windows
	    WHERE id = OLD.window_id);
END;
CREATE TRIGGER wake_settings_ins AFTER INSERT ON campaign_settings BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_settings_upd AFTER UPDATE ON campaign_settings BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_settings_del AFTER DELETE ON campaign_settings BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = OLD.campaign_id;
END;
CREATE TRIGGER wake_quarantine_ins AFTER INSERT ON campaign_quarantine BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_quarantine_upd AFTER UPDATE ON campaign_quarantine BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
CREATE TRIGGER wake_quarantine_del AFTER DELETE ON campaign_quarantine BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = OLD.campaign_id;
END;
CREATE TRIGGER wake_commands_ins AFTER INSERT ON commands BEGIN
	UPDATE campaign_wake SET wake_at = 0
	    WHERE campaign_id = NEW.campaign_id;
END;
