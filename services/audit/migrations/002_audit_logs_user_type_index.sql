-- Up Migration
-- The user filter names the actor by type and id (user, bot and rule ids overlap), and the
-- type alone is a filter too: lead with both so either is an index range, counts index-only.
CREATE INDEX audit_logs_account_actor_created_idx ON audit_logs (account_id, user_type, user_id, created_at DESC, id DESC);
DROP INDEX audit_logs_account_user_created_idx;

-- Down Migration
CREATE INDEX audit_logs_account_user_created_idx ON audit_logs (account_id, user_id, created_at DESC, id DESC);
DROP INDEX audit_logs_account_actor_created_idx;
