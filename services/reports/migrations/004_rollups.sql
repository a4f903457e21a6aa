-- Up Migration
-- Pre-aggregated numbers (src/reports/rollups.ts): per account, metric, dimension and UTC hour, day
-- or month, the count and the sums of what the reports count or average, kept in the transaction
-- that changes the rows they sum (src/events/repository.ts) and rebuilt by the replay command.
-- A report adds the whole hours, days and months of its window and of each bucket from here, and
-- reads the rest (a window's or bucket's edges that fall inside an hour or day) from the rows.
CREATE TABLE rollups (
  account_id bigint NOT NULL,
  -- A reporting event's name, or `conversations` (created, by the conversation's assignee, team and
  -- inbox now), `incoming` / `outgoing` (messages counted by incoming_/outgoing_messages_count).
  metric text NOT NULL,
  -- account (dim_id 0), agent, team, inbox.
  dim text NOT NULL,
  -- hour (the account dimension only), day, month; bucket is its UTC start.
  grain text NOT NULL,
  bucket timestamptz NOT NULL,
  dim_id bigint NOT NULL,
  n bigint NOT NULL,
  -- Sums of value and value_in_business_hours, exact (numeric), so any way of adding them up agrees.
  v numeric NOT NULL,
  v_bh numeric NOT NULL,
  PRIMARY KEY (account_id, metric, dim, grain, bucket, dim_id)
);

-- What each metric counts, one row per item: the reporting events, the counted messages (public,
-- incoming or outgoing; an agent's incoming are those that arrived while the conversation was
-- theirs, their outgoing those they sent) and the conversations (by creation). The queries' raw
-- reads (src/reports/queries.ts, sourceOf) select the same rows.
CREATE VIEW rollup_items AS
  SELECT account_id, name AS metric, created_at AS t, user_id AS agent, team_id AS team, inbox_id AS inbox, value AS v, value_in_business_hours AS v_bh
    FROM reporting_events
  UNION ALL
  SELECT account_id, CASE message_type WHEN 0 THEN 'incoming' ELSE 'outgoing' END, at,
         CASE WHEN message_type = 0 THEN assignee_id WHEN sender_type = 'User' THEN sender_id END, team_id, inbox_id, 0, 0
    FROM conversation_facts WHERE kind = 'message' AND message_type IN (0, 1) AND NOT private
  UNION ALL
  SELECT account_id, 'conversations', created_at, assignee_id, team_id, inbox_id, 0, 0
    FROM conversations WHERE NOT deleted AND created_at IS NOT NULL;

-- The rollup rows an item adds to: each dimension it has, each grain (hours for the account only).
CREATE FUNCTION rollup_keys(p_metric text, p_t timestamptz, p_agent bigint, p_team bigint, p_inbox bigint)
RETURNS TABLE (metric text, dim text, grain text, bucket timestamptz, dim_id bigint)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p_metric, d.dim, g.grain, date_trunc(g.grain, p_t, 'UTC'), d.id
    FROM (VALUES ('account', 0::bigint), ('agent', p_agent), ('team', p_team), ('inbox', p_inbox)) AS d(dim, id)
    CROSS JOIN (VALUES ('hour'), ('day'), ('month')) AS g(grain)
   WHERE d.id IS NOT NULL AND (g.grain <> 'hour' OR d.dim = 'account')
$$;

-- Recomputes an account's rollups (all accounts: null) from the rows. The lock waits for the
-- transactions that changed rollups to commit and holds off the next ones until this one commits;
-- each statement then reads what they committed (a volatile function's statements each take a new
-- snapshot), and what a transaction still open wrote to the rows it adds to the rollups after.
CREATE FUNCTION rebuild_rollups(p_account bigint) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
  LOCK TABLE rollups IN EXCLUSIVE MODE;
  DELETE FROM rollups WHERE p_account IS NULL OR account_id = p_account;
  INSERT INTO rollups (account_id, metric, dim, grain, bucket, dim_id, n, v, v_bh)
  SELECT i.account_id, k.metric, k.dim, k.grain, k.bucket, k.dim_id, count(*), sum(i.v::numeric), sum(i.v_bh::numeric)
    FROM rollup_items i CROSS JOIN LATERAL rollup_keys(i.metric, i.t, i.agent, i.team, i.inbox) k
   WHERE p_account IS NULL OR i.account_id = p_account
   GROUP BY 1, 2, 3, 4, 5, 6;
$$;

SELECT rebuild_rollups(NULL);
ANALYZE rollups;

-- Down Migration
DROP FUNCTION rebuild_rollups(bigint);
DROP FUNCTION rollup_keys(text, timestamptz, bigint, bigint, bigint);
DROP VIEW rollup_items;
DROP TABLE rollups;
