-- Up Migration
-- Copies of other services' records move onto the projection kit
-- (packages/shared/src/projections.ts): 002's records (contacts, agents, teams, agent bots) and
-- 001's inboxes become rows of the kernel's projections table, keeping their owner versions so
-- an older event still never overwrites them. Read-through answers were stored at the epoch;
-- the kit stores them at '-infinity'. An inbox row without name and channel type was a
-- remembered miss: a tombstone at '-infinity' (any inbox event replaces it). An inbox's signing
-- secret is its hmac_token, as the Inbox contract names it.
SELECT create_projection_table();
INSERT INTO projections (account_id, kind, id, data, version_at)
SELECT account_id, kind, id, data, CASE WHEN occurred_at <= 'epoch' THEN '-infinity' ELSE occurred_at END FROM records;
INSERT INTO projections (account_id, kind, id, data, version_at)
SELECT account_id, 'inbox', id,
       CASE WHEN name IS NULL AND channel_type IS NULL THEN NULL
            ELSE jsonb_build_object('id', id, 'account_id', account_id, 'name', name, 'channel_type', channel_type, 'webhook_url', webhook_url, 'hmac_token', secret) END,
       CASE WHEN occurred_at <= 'epoch' THEN '-infinity' ELSE occurred_at END
  FROM inboxes;
DROP TABLE records;
DROP TABLE inboxes;

-- Down Migration
CREATE TABLE inboxes (
  account_id integer NOT NULL,
  id integer NOT NULL,
  name text,
  channel_type text,
  webhook_url text,
  secret text,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, id)
);
INSERT INTO inboxes (account_id, id, name, channel_type, webhook_url, secret, occurred_at)
SELECT account_id, id, data->>'name', data->>'channel_type', data->>'webhook_url', data->>'hmac_token', greatest(version_at, 'epoch')
  FROM projections WHERE kind = 'inbox';
CREATE TABLE records (
  account_id integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('contact', 'agent', 'team', 'agent_bot')),
  id integer NOT NULL,
  data jsonb NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, kind, id)
);
CREATE INDEX records_kind_id_idx ON records (kind, id);
INSERT INTO records (account_id, kind, id, data, occurred_at)
SELECT account_id, kind, id, data, greatest(version_at, 'epoch') FROM projections WHERE kind <> 'inbox' AND data IS NOT NULL;
DROP TABLE projections;
