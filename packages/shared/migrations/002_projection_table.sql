-- Up Migration
-- The projection kit's table (packages/shared/src/projections.ts). A service that keeps copies
-- of other services' records creates it with `SELECT create_projection_table();` in a migration
-- of its own, so every service's copies have one shape:
--   data NULL      a tombstone: removed at its owner (or, at -infinity, unknown to it)
--   version_at     the owner's event time (occurred_at); '-infinity' for a read-through answer
CREATE FUNCTION create_projection_table(name text DEFAULT 'projections') RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I (
      account_id integer NOT NULL,
      kind text NOT NULL,
      id integer NOT NULL,
      data jsonb,
      version_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, kind, id)
    )', name);
  -- user.updated names no account: it patches the user''s agent copies in every account.
  EXECUTE format('CREATE INDEX %I ON %I (kind, id)', name || '_kind_id_idx', name);
END $$;

-- Down Migration
DROP FUNCTION create_projection_table(text);
