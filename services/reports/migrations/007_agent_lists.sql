-- Up Migration
-- Accounts whose agent copies (projections, kind 'agent') are known to be complete: the
-- members the gateway listed once were stored as read-through copies, and agent.* events keep
-- them since (src/reports/agents.ts). The agents table then reads its members here, not from the
-- gateway on every request.
CREATE TABLE agent_lists (
  account_id integer PRIMARY KEY,
  listed_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE agent_lists;
