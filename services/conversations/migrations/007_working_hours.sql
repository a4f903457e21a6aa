-- Up Migration
-- An inbox's working hours (Chatwoot's working_hours rows, one per day of the week): the week as
-- a jsonb array of seven days, Sunday first (src/inboxes/working-hours.ts checks it). Every inbox,
-- existing ones included, starts with Chatwoot's default week: Monday to Friday 09:00-17:00, the
-- weekend closed.
ALTER TABLE inboxes ADD COLUMN working_hours jsonb NOT NULL DEFAULT '[
  {"day_of_week": 0, "closed_all_day": true, "open_hour": null, "open_minutes": null, "close_hour": null, "close_minutes": null, "open_all_day": false},
  {"day_of_week": 1, "closed_all_day": false, "open_hour": 9, "open_minutes": 0, "close_hour": 17, "close_minutes": 0, "open_all_day": false},
  {"day_of_week": 2, "closed_all_day": false, "open_hour": 9, "open_minutes": 0, "close_hour": 17, "close_minutes": 0, "open_all_day": false},
  {"day_of_week": 3, "closed_all_day": false, "open_hour": 9, "open_minutes": 0, "close_hour": 17, "close_minutes": 0, "open_all_day": false},
  {"day_of_week": 4, "closed_all_day": false, "open_hour": 9, "open_minutes": 0, "close_hour": 17, "close_minutes": 0, "open_all_day": false},
  {"day_of_week": 5, "closed_all_day": false, "open_hour": 9, "open_minutes": 0, "close_hour": 17, "close_minutes": 0, "open_all_day": false},
  {"day_of_week": 6, "closed_all_day": true, "open_hour": null, "open_minutes": null, "close_hour": null, "close_minutes": null, "open_all_day": false}
]'::jsonb;

-- Down Migration
ALTER TABLE inboxes DROP COLUMN working_hours;
