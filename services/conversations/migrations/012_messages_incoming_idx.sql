-- Up Migration
-- A conversation's unread count (incoming messages after the agent last saw it, at most 10: the
-- list's and the conversation's `unread_count`): without it Postgres read every message of each
-- conversation of a page from (conversation_id, id) and sorted them (0.12 ms a conversation of
-- 228 messages, 3 of the 4.4 ms of an open list page on the benchmark's account); with it the
-- count reads at most 10 entries of this index.
-- The build holds off writes to messages while it runs (seconds at a million messages): on a larger
-- database build it first with CREATE INDEX CONCURRENTLY (docs/deploy.md, "Migrations"); this then
-- finds it there.
CREATE INDEX IF NOT EXISTS messages_incoming_idx ON messages (conversation_id, created_at) WHERE message_type = 0;

-- Down Migration
DROP INDEX IF EXISTS messages_incoming_idx;
