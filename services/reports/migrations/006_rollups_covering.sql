-- Up Migration
-- The rollups' key carries their numbers (INCLUDE), so a report reads them from the index alone
-- (an index-only scan; the agents table over a year reads ~3,500 of them), not a heap page each.
-- The price: a change to a rollup writes a new index entry (no HOT update).
ALTER TABLE rollups DROP CONSTRAINT rollups_pkey, ADD CONSTRAINT rollups_pkey PRIMARY KEY (account_id, metric, dim, grain, bucket, dim_id) INCLUDE (n, v, v_bh);

-- Down Migration
ALTER TABLE rollups DROP CONSTRAINT rollups_pkey, ADD CONSTRAINT rollups_pkey PRIMARY KEY (account_id, metric, dim, grain, bucket, dim_id);
