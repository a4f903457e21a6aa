-- Up Migration
-- The relay is woken in-process by the commit that wrote events (src/outbox.ts): the trigger's
-- NOTIFY made Postgres signal every backend LISTENing in the database, all services' relays,
-- at every write that published anything. Writers the relay's process cannot see commit send
-- pg_notify('outbox_<schema>') themselves. Code older than this migration relied on the trigger:
-- its events wait for the relay's 1 s poll while it still runs (a rolling deploy); rolling back to
-- it for good means running this file's Down part.
DROP TRIGGER IF EXISTS outbox_notify ON outbox;
DROP FUNCTION IF EXISTS outbox_notify();

-- Down Migration
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_' || TG_TABLE_SCHEMA, '');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
