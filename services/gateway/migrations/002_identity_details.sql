-- Up Migration
-- What 001 lacked for the Platform API, profile, agents and teams. 001 has landed, so these
-- are changes on top of it rather than edits to it.
ALTER TABLE users ADD COLUMN provider text NOT NULL DEFAULT 'email';
-- No e-mail confirmation flow exists here: users are confirmed when created.
ALTER TABLE users ADD COLUMN confirmed_at timestamptz DEFAULT now();
-- Named `<table>__<field>` so a violation answers with field `email`.
ALTER INDEX users_email_key RENAME TO users__email;

ALTER TABLE account_users ADD CONSTRAINT account_users__inviter_id FOREIGN KEY (inviter_id) REFERENCES users (id) ON DELETE SET NULL;

-- account_id NULL: a global bot (created through the Platform API without an account).
ALTER TABLE agent_bots ADD COLUMN avatar_url text;
ALTER TABLE agent_bots ADD COLUMN bot_config jsonb NOT NULL DEFAULT '{}';
ALTER TABLE agent_bots ADD CONSTRAINT agent_bots_bot_type_check CHECK (bot_type IN ('webhook'));

-- Owners are polymorphic (no FK): the services delete a user's or bot's tokens with it.
ALTER TABLE access_tokens RENAME CONSTRAINT access_tokens_token_key TO access_tokens__token;

ALTER TABLE team_members ADD COLUMN account_id integer;
UPDATE team_members m SET account_id = t.account_id FROM teams t WHERE t.id = m.team_id;
ALTER TABLE team_members ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE team_members ADD CONSTRAINT team_members__account_id FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE;
DROP INDEX team_members_user_idx;
CREATE INDEX team_members_account_user_idx ON team_members (account_id, user_id);

-- Down Migration
DROP INDEX team_members_account_user_idx;
CREATE INDEX team_members_user_idx ON team_members (user_id);
ALTER TABLE team_members DROP COLUMN account_id;
ALTER TABLE access_tokens RENAME CONSTRAINT access_tokens__token TO access_tokens_token_key;
ALTER TABLE agent_bots DROP CONSTRAINT agent_bots_bot_type_check;
ALTER TABLE agent_bots DROP COLUMN bot_config;
ALTER TABLE agent_bots DROP COLUMN avatar_url;
ALTER TABLE account_users DROP CONSTRAINT account_users__inviter_id;
ALTER INDEX users__email RENAME TO users_email_key;
ALTER TABLE users DROP COLUMN confirmed_at;
ALTER TABLE users DROP COLUMN provider;
