-- Saved filters (Chatwoot's custom_filters): private to (account, user); query is the filter body
-- as the client sent it, checked as a filter of its type when saved.
CREATE TABLE custom_filters (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  user_id integer NOT NULL,
  name text NOT NULL,
  filter_type text NOT NULL DEFAULT 'conversation' CHECK (filter_type IN ('conversation', 'contact', 'report')),
  query jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Every read is one user's filters of one account (by type for the index route).
CREATE INDEX custom_filters_user_idx ON custom_filters (account_id, user_id, filter_type, id);
