-- Chatwoot's mentions (a private note @-mentioning an agent: `mention://user/<id>/<name>` in its
-- content) and conversation participants (agents who wrote in, were mentioned in or were assigned
-- the conversation), for the list's conversation_type=mention|participating.
CREATE TABLE mentions (
  account_id integer NOT NULL,
  conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  user_id integer NOT NULL,
  mentioned_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, user_id)
);
CREATE INDEX mentions_user_idx ON mentions (account_id, user_id, conversation_id);

CREATE TABLE conversation_participants (
  account_id integer NOT NULL,
  conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  user_id integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, user_id)
);
CREATE INDEX conversation_participants_user_idx ON conversation_participants (account_id, user_id, conversation_id);
