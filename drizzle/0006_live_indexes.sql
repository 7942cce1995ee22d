DROP INDEX `submissions_workspace_approval`;--> statement-breakpoint
CREATE INDEX `submissions_workspace_created_live` ON `submissions` (`workspace_id`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `submissions_workspace_approval_live` ON `submissions` (`workspace_id`,`approval_status`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
DROP INDEX `visits_workspace_date`;--> statement-breakpoint
DROP INDEX `visits_workspace_status_date`;--> statement-breakpoint
DROP INDEX `visits_workspace_outlet`;--> statement-breakpoint
DROP INDEX `visits_workspace_project`;--> statement-breakpoint
DROP INDEX `visits_workspace_team`;--> statement-breakpoint
CREATE INDEX `visits_workspace_date_live` ON `visits` (`workspace_id`,`visit_date`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `visits_workspace_status_date_live` ON `visits` (`workspace_id`,`status`,`visit_date`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `visits_workspace_outlet_live` ON `visits` (`workspace_id`,`outlet_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `visits_workspace_project_live` ON `visits` (`workspace_id`,`project_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `visits_workspace_team_date_live` ON `visits` (`workspace_id`,`team_id`,`visit_date`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `visit_logs_workspace_user_time` ON `visit_logs` (`workspace_id`,`user_id`,`created_at`);