-- Up Migration
-- Deleting a webhook cascades to its deliveries by webhook_id alone; the log's index leads with
-- account_id, so without this every webhook delete scanned the whole delivery table.
CREATE INDEX webhook_deliveries_webhook_id_idx ON webhook_deliveries (webhook_id);

-- Down Migration
DROP INDEX webhook_deliveries_webhook_id_idx;
