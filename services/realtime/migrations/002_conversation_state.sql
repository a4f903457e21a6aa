-- Up Migration
-- What the channel's payloads need that the events do not carry: a conversation's last chat
-- message (Chatwoot's `messages` in conversation push data), whether its `first.reply.created`
-- went out, and a contact inbox's `source_id` (a message's `conversation.contact_inbox.source_id`).
CREATE TABLE conversation_state (
  account_id integer NOT NULL,
  conversation_id integer NOT NULL,
  last_message jsonb,
  last_message_id bigint,
  first_reply_sent boolean NOT NULL DEFAULT false,
  PRIMARY KEY (account_id, conversation_id)
);

CREATE TABLE contact_inbox_sources (
  account_id integer NOT NULL,
  contact_inbox_id integer NOT NULL,
  source_id text NOT NULL,
  PRIMARY KEY (account_id, contact_inbox_id)
);

-- Down Migration
DROP TABLE contact_inbox_sources;
DROP TABLE conversation_state;
