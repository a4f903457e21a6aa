-- Up Migration
-- Copies of the records the channel's payloads name (a message's sender, a conversation's
-- contact, assignee, team and inbox), kept by the kernel's projection kit from their owners' events.
SELECT create_projection_table();

-- Down Migration
DROP TABLE projections;
