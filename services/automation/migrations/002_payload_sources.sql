-- Up Migration
-- What Chatwoot-shaped webhook payloads need beyond the event: the assignee, team and bot
-- records (meta.assignee, meta.team, message senders) and the conversation's last public
-- message (`messages`). 001 has landed, so these are changes on top of it.

-- One projection store for the records other services own (contacts, agents, teams, agent
-- bots), fed by their events, read through to the owner on a miss. Replaces 001's contacts.
CREATE TABLE records (
  account_id integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('contact', 'agent', 'team', 'agent_bot')),
  id integer NOT NULL,
  data jsonb NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, kind, id)
);
-- user.updated carries no account: a user's name changes in every account they belong to.
CREATE INDEX records_kind_id_idx ON records (kind, id);
INSERT INTO records (account_id, kind, id, data, occurred_at) SELECT account_id, 'contact', id, data, occurred_at FROM contacts;
DROP TABLE contacts;

-- The last public, non-activity message of each conversation (Chatwoot's `messages.chat.last`),
-- kept by the webhooks consumer from message events. Newer messages win.
CREATE TABLE last_messages (
  account_id integer NOT NULL,
  conversation_id integer NOT NULL,
  message_id bigint NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (account_id, conversation_id)
);

-- The account-wide delivery log, newest first (also filtered by rule, kind or status).
CREATE INDEX webhook_deliveries_account_idx ON webhook_deliveries (account_id, id DESC);

-- Down Migration
DROP INDEX webhook_deliveries_account_idx;
DROP TABLE last_messages;
CREATE TABLE contacts (
  account_id integer NOT NULL,
  id integer NOT NULL,
  data jsonb NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, id)
);
INSERT INTO contacts (account_id, id, data, occurred_at) SELECT account_id, id, data, occurred_at FROM records WHERE kind = 'contact';
DROP TABLE records;
