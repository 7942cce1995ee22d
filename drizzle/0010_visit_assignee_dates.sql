DROP INDEX `visit_assignees_workspace_user`;--> statement-breakpoint
ALTER TABLE `visit_assignees` ADD `visit_date` text;--> statement-breakpoint
UPDATE `visit_assignees` SET `visit_date` = (SELECT `visits`.`visit_date` FROM `visits` WHERE `visits`.`id` = `visit_assignees`.`visit_id`);--> statement-breakpoint
CREATE INDEX `visit_assignees_workspace_user_date` ON `visit_assignees` (`workspace_id`,`user_id`,`visit_date`,`visit_id`);--> statement-breakpoint
-- An assignee row carries its visit's date from the start, whoever inserts it.
CREATE TRIGGER `visit_assignees_visit_date_insert` AFTER INSERT ON `visit_assignees`
BEGIN
  UPDATE `visit_assignees` SET `visit_date` = (SELECT `visits`.`visit_date` FROM `visits` WHERE `visits`.`id` = NEW.`visit_id`)
  WHERE `visit_id` = NEW.`visit_id` AND `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
-- A visit moved to another day moves its assignee rows with it.
CREATE TRIGGER `visits_visit_date_to_assignees` AFTER UPDATE OF `visit_date` ON `visits`
WHEN NEW.`visit_date` IS NOT OLD.`visit_date`
BEGIN
  UPDATE `visit_assignees` SET `visit_date` = NEW.`visit_date` WHERE `visit_id` = NEW.`id`;
END;
