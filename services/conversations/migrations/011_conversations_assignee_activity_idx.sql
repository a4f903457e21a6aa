-- Up Migration
-- The list of one assignee's conversations (`assignee_type=me`, the dashboard's "Mine" tab) in
-- activity order: with 001's (account, assignee, status) index, Postgres read every open
-- conversation of the assignee and sorted them for each page (375 rows for each of the
-- benchmark's agents at 100k conversations, all of them for a busy one). With the activity order
-- in the index the page is its first 25 entries; what read 001's index (counts by assignee, the
-- filter by assignee) reads the same leading columns.
CREATE INDEX conversations_assignee_activity_idx ON conversations (account_id, assignee_id, status, last_activity_at DESC, id DESC);
DROP INDEX conversations_assignee_idx;

-- Down Migration
CREATE INDEX conversations_assignee_idx ON conversations (account_id, assignee_id, status);
DROP INDEX conversations_assignee_activity_idx;
