-- Up Migration
-- The last chat message's version (a message.updated replaces it only with a later one), and the
-- latest incoming messages ([id, created at in unix ms], newest first, at most 10): the unread count
-- is those after the conversation's agent_last_seen_at, as Chatwoot counts it.
ALTER TABLE conversation_state
  ADD COLUMN last_message_version timestamptz,
  ADD COLUMN incoming jsonb NOT NULL DEFAULT '[]';

-- Down Migration
ALTER TABLE conversation_state DROP COLUMN incoming, DROP COLUMN last_message_version;
