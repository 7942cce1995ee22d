-- The phone's change feed keeps a visit's row (or a submission's) only when the caller is among its assignees, one
-- probe per row. Most rows it reads belong to other users' visits: ten outlets renamed by the office put a row for each of
-- their ~100 visits in the log. The primary key (visit_id, user_id) spreads one user's assignments over the whole
-- index, so those probes read ~100 leaf pages after every write (each read after a write starts with an empty page
-- cache); in this index a user's assignments are adjacent, a few pages for thousands of visits.
CREATE INDEX `visit_assignees_workspace_user_visit` ON `visit_assignees` (`workspace_id`, `user_id`, `visit_id`);
