-- Up Migration
-- The reports read model. Three tables, all per account:
--   conversations      the little state of each conversation, from the newest snapshot an event carried
--   conversation_facts what happened to a conversation that reports measure (messages, status changes),
--                      one row per event: the input of the reporting events, kept so they can be rebuilt
--   reporting_events   Chatwoot's reporting events, derived from a conversation's facts (services/reports/src/events/timeline.ts)

CREATE TABLE conversations (
  account_id bigint NOT NULL,
  -- The per-account display id (the id every event and API uses).
  id bigint NOT NULL,
  inbox_id bigint,
  status text,
  assignee_id bigint,
  team_id bigint,
  labels text[] NOT NULL DEFAULT '{}',
  waiting_since timestamptz,
  first_reply_created_at timestamptz,
  created_at timestamptz,
  -- occurred_at of the event whose snapshot the row holds: an older event never overwrites it.
  version_at timestamptz NOT NULL DEFAULT '-infinity',
  -- A deleted conversation keeps this row as a tombstone, so a late event cannot bring it back.
  deleted boolean NOT NULL DEFAULT false,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX conversations_created_idx ON conversations (account_id, created_at) INCLUDE (assignee_id, team_id, inbox_id) WHERE NOT deleted;
CREATE INDEX conversations_live_idx ON conversations (account_id, status) INCLUDE (assignee_id, team_id, waiting_since, first_reply_created_at) WHERE NOT deleted;
CREATE INDEX conversations_labels_idx ON conversations USING gin (labels);

CREATE TABLE conversation_facts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL,
  conversation_id bigint NOT NULL,
  event_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('message', 'status')),
  -- The event's occurred_at; ties are broken by seq (the message id), then id.
  at timestamptz NOT NULL,
  seq bigint NOT NULL DEFAULT 0,
  -- The conversation as it was after the change (its snapshot in the event).
  inbox_id bigint,
  assignee_id bigint,
  team_id bigint,
  -- kind = 'message'
  message_type smallint,
  private boolean,
  sender_type text,
  sender_id bigint,
  -- Sent by an automation rule or a campaign (never a human reply).
  automated boolean NOT NULL DEFAULT false,
  -- kind = 'status'
  status_from text,
  status_to text,
  actor_type text,
  CONSTRAINT conversation_facts__event_id UNIQUE (event_id)
);
CREATE INDEX conversation_facts_conversation_idx ON conversation_facts (account_id, conversation_id, at, seq);
CREATE INDEX conversation_facts_messages_idx ON conversation_facts (account_id, message_type, at)
  INCLUDE (private, inbox_id, assignee_id, team_id, sender_type, sender_id, conversation_id) WHERE kind = 'message';

CREATE TABLE reporting_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL,
  name text NOT NULL CHECK (name IN ('conversation_resolved', 'first_response', 'reply_time', 'conversation_opened', 'conversation_bot_handoff', 'conversation_bot_resolved')),
  -- Seconds.
  value double precision NOT NULL,
  value_in_business_hours double precision NOT NULL DEFAULT 0,
  event_start_time timestamptz NOT NULL,
  event_end_time timestamptz NOT NULL,
  inbox_id bigint,
  user_id bigint,
  team_id bigint,
  conversation_id bigint NOT NULL,
  -- = event_end_time: when it happened (what reports bucket by).
  created_at timestamptz NOT NULL
);
CREATE INDEX reporting_events_name_idx ON reporting_events (account_id, name, created_at)
  INCLUDE (value, value_in_business_hours, user_id, inbox_id, team_id, conversation_id);
CREATE INDEX reporting_events_conversation_idx ON reporting_events (account_id, conversation_id);

-- The account's labels (label.* events of the conversations service): a label report names its
-- label by id, conversations carry titles.
CREATE TABLE labels (
  account_id bigint NOT NULL,
  id bigint NOT NULL,
  title text,
  version_at timestamptz NOT NULL DEFAULT '-infinity',
  deleted boolean NOT NULL DEFAULT false,
  PRIMARY KEY (account_id, id)
);
