-- Up Migration
-- The list filtered by team (`team_id`, Chatwoot's team view) in activity order: with 001's
-- (account, team, status) index, Postgres walked the account's open conversations newest first and
-- dropped the other teams' (every open conversation when the team has few open ones: 30,000 rows at
-- 100k conversations). Led by the team, the page is the first 25 entries of the index.
CREATE INDEX conversations_team_activity_idx ON conversations (account_id, team_id, status, last_activity_at DESC, id DESC) WHERE team_id IS NOT NULL;
DROP INDEX conversations_team_idx;

-- Down Migration
CREATE INDEX conversations_team_idx ON conversations (account_id, team_id, status) WHERE team_id IS NOT NULL;
DROP INDEX conversations_team_activity_idx;
