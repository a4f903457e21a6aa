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
  -- One version number per auditable; also serves the max(version) lookup at insert.
  CONSTRAINT audit_logs__version UNIQUE (account_id, auditable_type, auditable_id, version)
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
DROP TRIGGER audit_logs_no_truncate ON audit_logs;
DROP TRIGGER audit_logs_no_update_delete ON audit_logs;
DROP FUNCTION audit_logs_append_only();
DROP TABLE audit_logs;
