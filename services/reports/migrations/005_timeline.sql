-- Up Migration
-- The derivation's state after the conversation's last fact (src/events/timeline.ts, Timeline) and
-- that fact's place (at, seq): a new fact that comes after it is derived alone instead of
-- re-reading every fact. Null until the conversation's events are next rebuilt (then kept).
ALTER TABLE conversations ADD COLUMN timeline jsonb, ADD COLUMN last_fact_at timestamptz, ADD COLUMN last_fact_seq bigint;

-- Down Migration
ALTER TABLE conversations DROP COLUMN timeline, DROP COLUMN last_fact_at, DROP COLUMN last_fact_seq;
