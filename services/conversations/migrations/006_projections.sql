-- Up Migration
-- Copies of other services' records move onto the projection kit
-- (packages/shared/src/projections.ts): 001's contact, agent, team and agent bot projections
-- become rows of the kernel's projections table at the same versions, so an older event still
-- never overwrites them. Team membership is a relation, not a copy: team_member_projections stays.
SELECT create_projection_table();
INSERT INTO projections (account_id, kind, id, data, version_at)
SELECT account_id, 'contact', id, data, version_at FROM contact_projections
UNION ALL SELECT account_id, 'agent', id, data, version_at FROM agent_projections
UNION ALL SELECT account_id, 'team', id, data, version_at FROM team_projections
UNION ALL SELECT account_id, 'agent_bot', id, data, version_at FROM agent_bot_projections;
DROP TABLE contact_projections;
DROP TABLE agent_projections;
DROP TABLE team_projections;
DROP TABLE agent_bot_projections;

-- Down Migration
CREATE TABLE contact_projections (account_id integer NOT NULL, id integer NOT NULL, data jsonb NOT NULL, version_at timestamptz NOT NULL, PRIMARY KEY (account_id, id));
CREATE TABLE agent_projections (account_id integer NOT NULL, id integer NOT NULL, data jsonb NOT NULL, version_at timestamptz NOT NULL, PRIMARY KEY (account_id, id));
CREATE TABLE team_projections (account_id integer NOT NULL, id integer NOT NULL, data jsonb NOT NULL, version_at timestamptz NOT NULL, PRIMARY KEY (account_id, id));
CREATE TABLE agent_bot_projections (account_id integer NOT NULL, id integer NOT NULL, data jsonb NOT NULL, version_at timestamptz NOT NULL, PRIMARY KEY (account_id, id));
INSERT INTO contact_projections SELECT account_id, id, data, version_at FROM projections WHERE kind = 'contact' AND data IS NOT NULL;
INSERT INTO agent_projections SELECT account_id, id, data, version_at FROM projections WHERE kind = 'agent' AND data IS NOT NULL;
INSERT INTO team_projections SELECT account_id, id, data, version_at FROM projections WHERE kind = 'team' AND data IS NOT NULL;
INSERT INTO agent_bot_projections SELECT account_id, id, data, version_at FROM projections WHERE kind = 'agent_bot' AND data IS NOT NULL;
DROP TABLE projections;
