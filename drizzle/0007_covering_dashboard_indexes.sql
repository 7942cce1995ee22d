DROP INDEX `submissions_visit_live`;--> statement-breakpoint
CREATE INDEX `submissions_visit_live` ON `submissions` (`visit_id`,`status`,`approval_status`,`deleted_at`) WHERE deleted_at is null;--> statement-breakpoint
DROP INDEX `visits_workspace_date_live`;--> statement-breakpoint
CREATE INDEX `visits_workspace_date_live` ON `visits` (`workspace_id`,`visit_date`,`status`,`team_id`,`deleted_at`) WHERE deleted_at is null;