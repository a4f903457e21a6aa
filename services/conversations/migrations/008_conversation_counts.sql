-- Up Migration
-- The list's meta counts (mine, unassigned, all) without counting conversations: counts of
-- conversations per (account, status, inbox, team), and per assignee, kept by triggers on
-- conversations, so every writer (requests, automation commands, the snooze worker, contact
-- merges, inbox deletes' cascades, bulk loads) keeps them. The list sums the rows of the inboxes
-- the caller sees (src/conversations/counts.ts); filters they cannot answer (q, labels, source id,
-- conversation type) still count conversations.
--
-- Writers never update a shared row: a change inserts delta rows (-1 for the old key, +1 for the
-- new), so two writers never wait for each other or deadlock on a counter. Only inserts, deletes
-- and changes of status, inbox, team or assignee write deltas (a message does not). The counts
-- worker folds the deltas into the two tables now and then; readers sum tables and deltas, so a
-- count is exact whether or not the deltas were folded.
CREATE TABLE conversation_count_deltas (
  account_id integer NOT NULL,
  status text NOT NULL,
  inbox_id integer NOT NULL,
  team_id integer,
  assignee_id integer,
  n integer NOT NULL
);
CREATE INDEX conversation_count_deltas_idx ON conversation_count_deltas (account_id, status);

-- team_id 0: no team (ids are positive).
CREATE TABLE conversation_counts (
  account_id integer NOT NULL,
  status text NOT NULL,
  inbox_id integer NOT NULL,
  team_id integer NOT NULL,
  n integer NOT NULL,
  unassigned integer NOT NULL,
  PRIMARY KEY (account_id, status, inbox_id, team_id)
);

CREATE TABLE conversation_assignee_counts (
  account_id integer NOT NULL,
  assignee_id integer NOT NULL,
  status text NOT NULL,
  inbox_id integer NOT NULL,
  team_id integer NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (account_id, assignee_id, status, inbox_id, team_id)
);

-- Statement triggers with transition tables: a bulk insert or a cascade writes one delta per key.
-- search_path is fixed, so writers with another search_path (the bench's loader) find the tables.
CREATE FUNCTION conversation_count_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO conversation_count_deltas (account_id, status, inbox_id, team_id, assignee_id, n)
  SELECT account_id, status, inbox_id, team_id, assignee_id, count(*) FROM counted_new GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;

CREATE FUNCTION conversation_count_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO conversation_count_deltas (account_id, status, inbox_id, team_id, assignee_id, n)
  SELECT account_id, status, inbox_id, team_id, assignee_id, -count(*) FROM counted_old GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;

CREATE FUNCTION conversation_count_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO conversation_count_deltas (account_id, status, inbox_id, team_id, assignee_id, n)
  VALUES (OLD.account_id, OLD.status, OLD.inbox_id, OLD.team_id, OLD.assignee_id, -1),
         (NEW.account_id, NEW.status, NEW.inbox_id, NEW.team_id, NEW.assignee_id, 1);
  RETURN NULL;
END $$;

CREATE FUNCTION conversation_count_truncated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  TRUNCATE conversation_count_deltas, conversation_counts, conversation_assignee_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER conversations_count_insert AFTER INSERT ON conversations
  REFERENCING NEW TABLE AS counted_new FOR EACH STATEMENT EXECUTE FUNCTION conversation_count_inserted();
CREATE TRIGGER conversations_count_delete AFTER DELETE ON conversations
  REFERENCING OLD TABLE AS counted_old FOR EACH STATEMENT EXECUTE FUNCTION conversation_count_deleted();
-- Fires only when a counted column is set and changes (a message's last_activity_at never does).
CREATE TRIGGER conversations_count_update AFTER UPDATE OF account_id, status, inbox_id, team_id, assignee_id ON conversations
  FOR EACH ROW WHEN (OLD.account_id <> NEW.account_id OR OLD.status <> NEW.status OR OLD.inbox_id <> NEW.inbox_id
                     OR OLD.team_id IS DISTINCT FROM NEW.team_id OR OLD.assignee_id IS DISTINCT FROM NEW.assignee_id)
  EXECUTE FUNCTION conversation_count_updated();
CREATE TRIGGER conversations_count_truncate AFTER TRUNCATE ON conversations
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_count_truncated();

-- The conversations there are now (the triggers above hold writers off until this commits).
INSERT INTO conversation_count_deltas (account_id, status, inbox_id, team_id, assignee_id, n)
SELECT account_id, status, inbox_id, team_id, assignee_id, count(*) FROM conversations GROUP BY 1, 2, 3, 4, 5;

-- Down Migration
DROP TRIGGER conversations_count_truncate ON conversations;
DROP TRIGGER conversations_count_update ON conversations;
DROP TRIGGER conversations_count_delete ON conversations;
DROP TRIGGER conversations_count_insert ON conversations;
DROP FUNCTION conversation_count_truncated();
DROP FUNCTION conversation_count_updated();
DROP FUNCTION conversation_count_deleted();
DROP FUNCTION conversation_count_inserted();
DROP TABLE conversation_assignee_counts;
DROP TABLE conversation_counts;
DROP TABLE conversation_count_deltas;
