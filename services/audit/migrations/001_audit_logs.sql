-- Up Migration
-- One row per auditable domain event, built from the event envelope alone. Append-only:
-- the service has no update or delete path and the triggers below refuse one.
CREATE TABLE audit_logs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL,
  auditable_type text NOT NULL,
  auditable_id bigint NOT NULL,
  associated_type text NOT NULL DEFAULT 'Account',
  associated_id bigint NOT NULL,
  action text NOT NULL CHECK (action IN ('create', 'update', 'destroy', 'sign_in', 'sign_out')),
  audited_changes jsonb NOT NULL DEFAULT '{}',
  auditable jsonb,
  user_id bigint,
  user_type text,
  username text,
  comment text,
  request_uuid text,
  remote_address text,
  version integer NOT NULL CHECK (version > 0),
  event_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  -- Redelivered or replayed events never make a second row.
  CONSTRAINT audit_logs__event_id UNIQUE (event_id),
  -- A guard: a version number is never given twice to one auditable.
  CONSTRAINT audit_logs__version UNIQUE (account_id, auditable_type, auditable_id, version)
);

-- The last version given to each auditable. Ingest bumps it with one upsert per auditable
-- and batch (the row lock orders concurrent writers of one auditable, replicas included),
-- instead of reading max(version) from the log under a lock.
CREATE TABLE audit_log_versions (
  account_id bigint NOT NULL,
  auditable_type text NOT NULL,
  auditable_id bigint NOT NULL,
  last_version integer NOT NULL CHECK (last_version > 0),
  PRIMARY KEY (account_id, auditable_type, auditable_id)
);

-- Entries per account, kept in the ingest transaction: the unfiltered list (what Chatwoot
-- clients ask for) answers total_entries without counting millions of rows.
CREATE TABLE audit_log_counts (
  account_id bigint PRIMARY KEY,
  entries bigint NOT NULL CHECK (entries >= 0)
);

-- The list (newest first) and each filter it offers, all leading with the account.
CREATE INDEX audit_logs_account_created_idx ON audit_logs (account_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_account_type_created_idx ON audit_logs (account_id, auditable_type, created_at DESC, id DESC);
CREATE INDEX audit_logs_account_action_created_idx ON audit_logs (account_id, action, created_at DESC, id DESC);
CREATE INDEX audit_logs_account_user_created_idx ON audit_logs (account_id, user_id, created_at DESC, id DESC);

CREATE FUNCTION audit_logs_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_logs is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_logs_no_update_delete BEFORE UPDATE OR DELETE ON audit_logs FOR EACH ROW EXECUTE FUNCTION audit_logs_append_only();
CREATE TRIGGER audit_logs_no_truncate BEFORE TRUNCATE ON audit_logs FOR EACH STATEMENT EXECUTE FUNCTION audit_logs_append_only();

-- Down Migration
DROP TABLE audit_log_counts;
DROP TABLE audit_log_versions;
DROP TRIGGER audit_logs_no_truncate ON audit_logs;
DROP TRIGGER audit_logs_no_update_delete ON audit_logs;
DROP FUNCTION audit_logs_append_only();
DROP TABLE audit_logs;
