-- Up Migration
-- Copies of the teams and inboxes (team.*, inbox.* events), through the kernel's projection kit:
-- the team and inbox summary reports list them, live reports check a team_id.
SELECT create_projection_table();
