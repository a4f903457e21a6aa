-- Up Migration
CREATE TABLE automation_rules (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  name text NOT NULL,
  description text,
  event_name text NOT NULL,
  conditions jsonb NOT NULL DEFAULT '[]'::jsonb,
  actions jsonb NOT NULL DEFAULT '[]'::jsonb,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automation_rules_account_idx ON automation_rules (account_id, id);

-- One row per account, bumped in the same transaction as any rule change: every replica
-- compares it with its in-memory rule cache before evaluating an event.
CREATE TABLE rule_versions (
  account_id integer PRIMARY KEY,
  version bigint NOT NULL DEFAULT 1
);

-- One row per (rule, event) the engine looked at: why the rule fired or did not.
CREATE TABLE rule_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  rule_id integer NOT NULL REFERENCES automation_rules (id) ON DELETE CASCADE,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  event_name text NOT NULL,
  conversation_id integer,
  message_id bigint,
  matched boolean NOT NULL,
  -- Why a rule did not run (skipped events) or null.
  reason text,
  -- The value of each condition, in order (null: not evaluated).
  condition_results jsonb NOT NULL DEFAULT '[]'::jsonb,
  actions jsonb NOT NULL DEFAULT '[]'::jsonb,
  errors jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rule_runs__event_id UNIQUE (rule_id, event_id)
);
CREATE INDEX rule_runs_rule_idx ON rule_runs (account_id, rule_id, id DESC);
CREATE INDEX rule_runs_created_idx ON rule_runs (created_at);

CREATE TABLE webhooks (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  url text NOT NULL,
  name text,
  subscriptions text[] NOT NULL DEFAULT ARRAY[
    'conversation_status_changed', 'conversation_updated', 'conversation_created', 'contact_created',
    'contact_updated', 'message_created', 'message_updated', 'webwidget_triggered'
  ]::text[],
  inbox_id integer,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhooks__url UNIQUE (account_id, url)
);

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  -- Who the delivery is for: an account webhook, an API inbox's webhook_url, or a rule's
  -- send_webhook_event. The secret is looked up at send time (a rotated secret applies).
  kind text NOT NULL CHECK (kind IN ('webhook', 'inbox', 'rule')),
  webhook_id integer REFERENCES webhooks (id) ON DELETE CASCADE,
  inbox_id integer,
  rule_id integer,
  url text NOT NULL,
  -- What made this delivery (event + target, or rule + event + action): one row per cause.
  dedupe_key text NOT NULL,
  -- X-Chatwoot-Delivery: the same on every attempt.
  delivery_id uuid NOT NULL,
  event text NOT NULL,
  source_event_id uuid,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz DEFAULT now(),
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_deliveries__dedupe_key UNIQUE (dedupe_key),
  CONSTRAINT webhook_deliveries__delivery_id UNIQUE (delivery_id)
);
-- The sender's scan: due pending rows across accounts, oldest first.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (account_id, webhook_id, id DESC);
CREATE INDEX webhook_deliveries_inbox_idx ON webhook_deliveries (account_id, inbox_id, id DESC) WHERE kind = 'inbox';
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending';

-- One row per HTTP attempt of a delivery: the delivery log's detail.
CREATE TABLE webhook_delivery_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, attempt);

-- Projections fed by the owners' events (read-through to their internal APIs on a miss).
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

CREATE TABLE contacts (
  account_id integer NOT NULL,
  id integer NOT NULL,
  data jsonb NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, id)
);

-- Down Migration
DROP TABLE contacts;
DROP TABLE inboxes;
DROP TABLE webhook_delivery_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
DROP TABLE rule_runs;
DROP TABLE rule_versions;
DROP TABLE automation_rules;
