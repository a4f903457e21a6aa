-- `q` (the list's and the search's match on message content) is always within one account, but
-- the trigram index of 001 held every account's messages: a word common in one big account made
-- every other account's search read all of that account's matching rows and throw them away
-- (a 300-conversation account's q=refund went from 1 ms to 77 ms once a 100k-conversation account
-- shared the table). With account_id in the index (btree_gin, created by the kernel with
-- pg_trgm), the index scan returns only the account's matches.
CREATE INDEX messages_account_content_trgm_idx ON messages USING gin (account_id, content public.gin_trgm_ops) WHERE message_type IN (0, 1);
DROP INDEX messages_content_trgm_idx;
