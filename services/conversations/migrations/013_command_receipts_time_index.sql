-- Up Migration
-- Command receipts (an automation command applied once per idempotency key) are kept as long as
-- the consumers' dedupe records, PROCESSED_EVENTS_RETENTION_HOURS, and pruned with them
-- (packages/shared/src/retention.ts, this service's `timedTables`): the oldest found by this
-- index, which grows at its right edge only.
CREATE INDEX IF NOT EXISTS command_receipts_created_at_idx ON command_receipts (created_at);

-- Down Migration
DROP INDEX command_receipts_created_at_idx;
