-- Up Migration
-- Authors move onto the projection kit (packages/shared/src/projections.ts): agent copies are
-- rows of kind 'agent' in the kernel's projections table, ordered by the owner's event time.
-- The old rows carry no owner version, so they come over at '-infinity' (a read-through's
-- version): the next agent event replaces them, as it replaced them before.
SELECT create_projection_table();
INSERT INTO projections (account_id, kind, id, data, version_at)
SELECT account_id, 'agent', user_id, data, '-infinity' FROM authors;
DROP TABLE authors;

-- Down Migration
CREATE TABLE authors (
  account_id integer NOT NULL,
  user_id integer NOT NULL,
  data jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id)
);
CREATE INDEX authors_user_idx ON authors (user_id);
INSERT INTO authors (account_id, user_id, data) SELECT account_id, id, data FROM projections WHERE kind = 'agent' AND data IS NOT NULL;
DROP TABLE projections;
