-- Up Migration
-- `q` for common words without reading every matching message. A pattern searched often enough
-- (a `q` matching many conversations, src/conversations/search-hits.ts) is registered once per
-- account; from then on the conversations whose incoming or outgoing messages match it are kept
-- in search_hits by triggers on messages (insert, content change, delete), with the
-- conversation's inbox, team and assignee kept by a trigger on conversations, so the page joins
-- the hits instead of the messages and the counts sum the hits alone. What matches is unchanged:
-- the triggers test `content ILIKE pattern` on incoming and outgoing messages, as the list's `q`.
--
-- Registering a pattern computes its hits under an account-wide exclusive advisory lock; every
-- trigger below takes it shared first, so a write that began before the registration is seen by
-- it, and one that begins after sees the pattern: no hit is lost or stale in between. Writers
-- share the lock and never wait for each other; a message write only writes a hit when it matches.
CREATE TABLE search_patterns (
  account_id integer NOT NULL,
  -- The ILIKE pattern exactly as the list builds it from `q` ('%' || escaped q || '%').
  pattern text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, pattern)
);

CREATE TABLE search_hits (
  account_id integer NOT NULL,
  pattern text NOT NULL,
  -- No foreign key to conversations: its check would share-lock the conversation while the
  -- registration holds the advisory lock a writer of that conversation waits for (a deadlock).
  -- A conversation's delete removes its hits (trigger below).
  conversation_id bigint NOT NULL,
  inbox_id integer NOT NULL,
  team_id integer,
  assignee_id integer,
  PRIMARY KEY (account_id, pattern, conversation_id),
  FOREIGN KEY (account_id, pattern) REFERENCES search_patterns (account_id, pattern) ON DELETE CASCADE
);
CREATE INDEX search_hits_conversation_idx ON search_hits (conversation_id);

-- The hits of the patterns of the given conversations' accounts, recomputed for those conversations
-- from their messages (after a content change or a delete).
CREATE FUNCTION search_hits_recompute(conversation_ids bigint[]) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
  DELETE FROM search_hits h
   WHERE h.conversation_id = ANY(conversation_ids)
     AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = h.conversation_id AND m.message_type IN (0, 1) AND m.content ILIKE h.pattern);
  INSERT INTO search_hits (account_id, pattern, conversation_id, inbox_id, team_id, assignee_id)
  SELECT c.account_id, p.pattern, c.id, c.inbox_id, c.team_id, c.assignee_id
    FROM conversations c JOIN search_patterns p ON p.account_id = c.account_id
   WHERE c.id = ANY(conversation_ids)
     AND EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.message_type IN (0, 1) AND m.content ILIKE p.pattern)
  ON CONFLICT DO NOTHING;
$$;

CREATE FUNCTION search_hits_messages_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  matched bigint[];
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('conversations:search_patterns'), a.account_id)
     FROM (SELECT DISTINCT account_id FROM hits_new ORDER BY 1) a;
  SELECT array_agg(DISTINCT m.conversation_id) INTO matched
    FROM hits_new m JOIN search_patterns p ON p.account_id = m.account_id AND m.content ILIKE p.pattern
   WHERE m.message_type IN (0, 1);
  IF matched IS NULL THEN RETURN NULL; END IF;
  -- The conversation as its latest writer left it (locked as an update of it would lock it), so
  -- a concurrent assignment cannot leave this hit with the old assignee.
  INSERT INTO search_hits (account_id, pattern, conversation_id, inbox_id, team_id, assignee_id)
  SELECT DISTINCT c.account_id, p.pattern, c.id, c.inbox_id, c.team_id, c.assignee_id
    FROM hits_new m
    JOIN search_patterns p ON p.account_id = m.account_id AND m.content ILIKE p.pattern
    JOIN (SELECT * FROM conversations WHERE id = ANY(matched) ORDER BY id FOR NO KEY UPDATE) c ON c.id = m.conversation_id
   WHERE m.message_type IN (0, 1)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE FUNCTION search_hits_messages_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  touched bigint[];
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('conversations:search_patterns'), a.account_id)
     FROM (SELECT DISTINCT account_id FROM hits_old ORDER BY 1) a;
  SELECT array_agg(DISTINCT o.conversation_id) INTO touched
    FROM hits_old o WHERE o.message_type IN (0, 1) AND EXISTS (SELECT 1 FROM search_hits h WHERE h.conversation_id = o.conversation_id);
  IF touched IS NOT NULL THEN PERFORM search_hits_recompute(touched); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION search_hits_message_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('conversations:search_patterns'), NEW.account_id);
  IF EXISTS (SELECT 1 FROM search_patterns WHERE account_id = NEW.account_id) THEN
    PERFORM search_hits_recompute(ARRAY[OLD.conversation_id, NEW.conversation_id]);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION search_hits_conversation_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('conversations:search_patterns'), NEW.account_id);
  UPDATE search_hits SET inbox_id = NEW.inbox_id, team_id = NEW.team_id, assignee_id = NEW.assignee_id WHERE conversation_id = NEW.id;
  RETURN NULL;
END $$;

CREATE FUNCTION search_hits_conversations_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('conversations:search_patterns'), a.account_id)
     FROM (SELECT DISTINCT account_id FROM hits_gone ORDER BY 1) a;
  DELETE FROM search_hits h USING hits_gone g WHERE h.conversation_id = g.id;
  RETURN NULL;
END $$;

CREATE FUNCTION search_hits_truncated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  TRUNCATE search_hits;
  RETURN NULL;
END $$;

CREATE TRIGGER messages_search_hits_insert AFTER INSERT ON messages
  REFERENCING NEW TABLE AS hits_new FOR EACH STATEMENT EXECUTE FUNCTION search_hits_messages_inserted();
CREATE TRIGGER messages_search_hits_delete AFTER DELETE ON messages
  REFERENCING OLD TABLE AS hits_old FOR EACH STATEMENT EXECUTE FUNCTION search_hits_messages_deleted();
CREATE TRIGGER messages_search_hits_update AFTER UPDATE OF content, message_type, conversation_id ON messages
  FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content OR OLD.message_type <> NEW.message_type OR OLD.conversation_id <> NEW.conversation_id)
  EXECUTE FUNCTION search_hits_message_changed();
CREATE TRIGGER conversations_search_hits_update AFTER UPDATE OF inbox_id, team_id, assignee_id ON conversations
  FOR EACH ROW WHEN (OLD.inbox_id <> NEW.inbox_id OR OLD.team_id IS DISTINCT FROM NEW.team_id OR OLD.assignee_id IS DISTINCT FROM NEW.assignee_id)
  EXECUTE FUNCTION search_hits_conversation_changed();

CREATE TRIGGER conversations_search_hits_delete AFTER DELETE ON conversations
  REFERENCING OLD TABLE AS hits_gone FOR EACH STATEMENT EXECUTE FUNCTION search_hits_conversations_deleted();
CREATE TRIGGER conversations_search_hits_truncate AFTER TRUNCATE ON conversations
  FOR EACH STATEMENT EXECUTE FUNCTION search_hits_truncated();

-- Down Migration
DROP TRIGGER conversations_search_hits_truncate ON conversations;
DROP TRIGGER conversations_search_hits_delete ON conversations;
DROP TRIGGER conversations_search_hits_update ON conversations;
DROP TRIGGER messages_search_hits_update ON messages;
DROP TRIGGER messages_search_hits_delete ON messages;
DROP TRIGGER messages_search_hits_insert ON messages;
DROP FUNCTION search_hits_truncated();
DROP FUNCTION search_hits_conversations_deleted();
DROP FUNCTION search_hits_conversation_changed();
DROP FUNCTION search_hits_message_changed();
DROP FUNCTION search_hits_messages_deleted();
DROP FUNCTION search_hits_messages_inserted();
DROP FUNCTION search_hits_recompute(bigint[]);
DROP TABLE search_hits;
DROP TABLE search_patterns;
