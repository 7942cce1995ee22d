-- "Another visit in progress" (a check-in's 409 ACTIVE_VISIT_EXISTS) walked every in-progress visit of the workspace and
-- probed each for the caller, inside the write transaction: 0.5 ms at the demo's 875, more on a larger workspace, with
-- every other write waiting. An assignee row now carries whether its visit is live and in progress, kept by the triggers
-- below for every writer (the service, seeds, direct SQL), so the check is one probe of a partial index per user.
ALTER TABLE `visit_assignees` ADD `in_progress` integer DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE `visit_assignees` SET `in_progress` = 1
WHERE `visit_id` IN (SELECT `id` FROM `visits` WHERE `status` = 'in_progress' AND `deleted_at` IS NULL);
--> statement-breakpoint
CREATE INDEX `visit_assignees_user_in_progress` ON `visit_assignees` (`user_id`, `workspace_id`, `visit_id`) WHERE `in_progress` = 1;
--> statement-breakpoint
-- An assignee row carries its visit's date (migration 0010) and now its state from the start, in one update.
DROP TRIGGER `visit_assignees_visit_date_insert`;
--> statement-breakpoint
CREATE TRIGGER `visit_assignees_visit_insert` AFTER INSERT ON `visit_assignees`
BEGIN
  UPDATE `visit_assignees`
  SET (`visit_date`, `in_progress`) = (SELECT `visits`.`visit_date`, `visits`.`status` = 'in_progress' AND `visits`.`deleted_at` IS NULL FROM `visits` WHERE `visits`.`id` = NEW.`visit_id`)
  WHERE `visit_id` = NEW.`visit_id` AND `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
-- A visit checked in, checked out, closed, cancelled, deleted or restored: its assignee rows follow.
CREATE TRIGGER `visits_in_progress_to_assignees` AFTER UPDATE OF `status`, `deleted_at` ON `visits`
WHEN (NEW.`status` = 'in_progress' AND NEW.`deleted_at` IS NULL) IS NOT (OLD.`status` = 'in_progress' AND OLD.`deleted_at` IS NULL)
BEGIN
  UPDATE `visit_assignees` SET `in_progress` = (NEW.`status` = 'in_progress' AND NEW.`deleted_at` IS NULL) WHERE `visit_id` = NEW.`id`;
END;
