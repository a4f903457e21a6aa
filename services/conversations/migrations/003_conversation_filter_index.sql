-- POST /conversations/filter: any condition over the standard keys, newest activity first, with
-- counts over the whole filtered set. One index in activity order that carries every standard
-- filter column, so both the page (first 25 in order) and the counts (index-only, no heap
-- fetch) read only the index whatever the conditions on those columns. It replaces the list's
-- conversations_activity_idx (same key, fewer INCLUDEd columns), which it serves as well.
CREATE INDEX conversations_filter_idx ON conversations (account_id, last_activity_at DESC, id DESC)
  INCLUDE (status, assignee_id, inbox_id, team_id, priority, display_id, created_at, labels);
DROP INDEX conversations_activity_idx;
