-- Up Migration
-- The inbox copies move onto the projection kit (packages/shared/src/projections.ts): rows of
-- kind 'inbox' in the kernel's projections table at the same owner versions (read-throughs stay
-- at '-infinity'), deleted inboxes as tombstones (data NULL), so an older event still never
-- overwrites them or brings a deleted inbox back. The public API finds an inbox by identifier.
SELECT create_projection_table();
INSERT INTO projections (account_id, kind, id, data, version_at)
SELECT account_id, 'inbox', id,
       CASE WHEN deleted THEN NULL
            ELSE jsonb_build_object('id', id, 'account_id', account_id, 'name', name, 'channel_type', channel_type, 'channel_id', channel_id,
                                    'identifier', identifier, 'hmac_token', hmac_token, 'hmac_mandatory', hmac_mandatory, 'webhook_url', webhook_url,
                                    'avatar_url', avatar_url, 'provider', provider) END,
       version_at
  FROM inboxes;
CREATE INDEX projections_inbox_identifier_idx ON projections ((data->>'identifier')) WHERE kind = 'inbox';
DROP TABLE inboxes;

-- Down Migration
CREATE TABLE inboxes (
  id integer PRIMARY KEY,
  account_id integer NOT NULL,
  name text NOT NULL DEFAULT '',
  channel_type text NOT NULL DEFAULT 'Channel::Api',
  channel_id integer,
  identifier text,
  hmac_token text,
  hmac_mandatory boolean NOT NULL DEFAULT false,
  webhook_url text,
  avatar_url text,
  provider text,
  deleted boolean NOT NULL DEFAULT false,
  version_at timestamptz NOT NULL DEFAULT '-infinity',
  synced_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX inboxes__identifier ON inboxes (identifier);
CREATE INDEX inboxes_account_idx ON inboxes (account_id, id);
INSERT INTO inboxes (id, account_id, name, channel_type, channel_id, identifier, hmac_token, hmac_mandatory, webhook_url, avatar_url, provider, deleted, version_at)
SELECT id, account_id, coalesce(data->>'name', ''), coalesce(data->>'channel_type', 'Channel::Api'), (data->>'channel_id')::int, data->>'identifier', data->>'hmac_token',
       coalesce((data->>'hmac_mandatory')::boolean, false), data->>'webhook_url', data->>'avatar_url', data->>'provider', data IS NULL, version_at
  FROM projections WHERE kind = 'inbox';
DROP TABLE projections;
