-- hexpost schema, migration 13: the scenario a campaign was started from
-- (docs/SCENARIOS.md): its exact text and SHA-256, so a replay and the audit
-- set up exactly what was played, whatever later versions ship. NULL: a
-- ruleset whose one scenario is built into its rules, or a campaign made
-- before scenarios were files (set up again from the shipped scenario of
-- that name).
ALTER TABLE campaigns ADD COLUMN scenario_text TEXT;
ALTER TABLE campaigns ADD COLUMN scenario_sha256 TEXT;
