-- Up Migration
-- The trace context of the consumer that queued a delivery (tracing on), so the sender's span
-- and the receiver's traceparent header continue the trace of the event that caused it.
ALTER TABLE webhook_deliveries ADD COLUMN traceparent text;

-- Down Migration
ALTER TABLE webhook_deliveries DROP COLUMN traceparent;
