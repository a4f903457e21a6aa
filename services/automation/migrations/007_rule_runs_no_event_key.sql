-- Up Migration
-- Each run was also an entry in a unique index on (rule_id, event_id): a random uuid, so every
-- row of a batch (~30 an event on an account of 50 rules) landed on a leaf page of its own. It
-- guarded nothing the kernel does not: an event's runs are written in the transaction that
-- records the event in processed_events, once per consumer, and a batch that fails writes none.
ALTER TABLE rule_runs DROP CONSTRAINT rule_runs__event_id;

-- Down Migration
DELETE FROM rule_runs r USING rule_runs d WHERE d.rule_id = r.rule_id AND d.event_id = r.event_id AND d.id < r.id;
ALTER TABLE rule_runs ADD CONSTRAINT rule_runs__event_id UNIQUE (rule_id, event_id);
