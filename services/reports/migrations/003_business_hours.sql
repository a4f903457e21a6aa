-- Up Migration
-- The inbox's working hours as each fact recorded them (src/events/business-hours.ts; null: off),
-- so `value_in_business_hours` is a function of the facts, like every other number, and a rebuild
-- gives what was computed when the fact arrived.
ALTER TABLE conversation_facts ADD COLUMN business_hours jsonb;

-- Down Migration
ALTER TABLE conversation_facts DROP COLUMN business_hours;
