-- Up Migration
-- Chatwoot's account cache keys (`idb-cache-key-account-<id>-<label|inbox|team>`): when labels,
-- inboxes and teams of an account last changed, in unix seconds (0 never), what
-- `account.cache_invalidated` tells clients so they refetch those lists.
CREATE TABLE account_cache_keys (
  account_id integer PRIMARY KEY,
  label bigint NOT NULL DEFAULT 0,
  inbox bigint NOT NULL DEFAULT 0,
  team bigint NOT NULL DEFAULT 0
);

-- Down Migration
DROP TABLE account_cache_keys;
