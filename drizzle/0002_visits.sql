CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` integer NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`path` text NOT NULL,
	`created_by` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `files_workspace` ON `files` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`type` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`data` text NOT NULL,
	`read_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `notifications_user` ON `notifications` (`workspace_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `forms` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`title` text NOT NULL,
	`title_key` text NOT NULL,
	`description` text,
	`fields` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `forms_workspace_created_live` ON `forms` (`workspace_id`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
CREATE TABLE `outlets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`code` text,
	`code_key` text,
	`address` text,
	`latitude` real,
	`longitude` real,
	`account_id` integer,
	`sub_area_id` integer,
	`province_id` integer,
	`city_id` integer,
	`district_id` integer,
	`village_id` integer,
	`contact_name` text,
	`contact_phone` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`sub_area_id`) REFERENCES `sub_areas`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outlets_workspace_code_live` ON `outlets` (`workspace_id`,`code_key`) WHERE deleted_at is null and code_key is not null;--> statement-breakpoint
CREATE INDEX `outlets_workspace_created_live` ON `outlets` (`workspace_id`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `outlets_workspace_account_live` ON `outlets` (`workspace_id`,`account_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `outlets_workspace_sub_area_live` ON `outlets` (`workspace_id`,`sub_area_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `outlets_workspace_city_live` ON `outlets` (`workspace_id`,`city_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE TABLE `project_forms` (
	`project_id` integer NOT NULL,
	`form_id` integer NOT NULL,
	`is_required` integer DEFAULT true NOT NULL,
	`order` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `form_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `project_forms_form` ON `project_forms` (`form_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`code` text,
	`code_key` text,
	`principal_id` integer,
	`start_date` text,
	`end_date` text,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_workspace_code_live` ON `projects` (`workspace_id`,`code_key`) WHERE deleted_at is null and code_key is not null;--> statement-breakpoint
CREATE INDEX `projects_workspace_created_live` ON `projects` (`workspace_id`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
CREATE TABLE `team_members` (
	`team_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`workspace_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `team_members_workspace_user` ON `team_members` (`workspace_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`description` text,
	`leader_id` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`leader_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_workspace_name_live` ON `teams` (`workspace_id`,`name_key`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `teams_workspace_leader_live` ON `teams` (`workspace_id`,`leader_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`visit_id` integer NOT NULL,
	`form_id` integer NOT NULL,
	`title` text NOT NULL,
	`is_required` integer DEFAULT false NOT NULL,
	`order` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`approval_status` text,
	`answers` text NOT NULL,
	`submitted_at` text,
	`submitted_by` integer,
	`reviewed_at` text,
	`reviewed_by` integer,
	`approval_notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`visit_id`) REFERENCES `visits`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`submitted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`reviewed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `submissions_visit_live` ON `submissions` (`visit_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `submissions_workspace_approval` ON `submissions` (`workspace_id`,`approval_status`,`submitted_at`);--> statement-breakpoint
CREATE INDEX `submissions_workspace_submitter` ON `submissions` (`workspace_id`,`submitted_by`);--> statement-breakpoint
CREATE TABLE `visit_assignees` (
	`visit_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`workspace_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`visit_id`, `user_id`),
	FOREIGN KEY (`visit_id`) REFERENCES `visits`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `visit_assignees_workspace_user` ON `visit_assignees` (`workspace_id`,`user_id`,`visit_id`);--> statement-breakpoint
CREATE TABLE `visit_dispatches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`visit_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`sent_by` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`visit_id`) REFERENCES `visits`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`sent_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `visit_dispatches_visit` ON `visit_dispatches` (`visit_id`);--> statement-breakpoint
CREATE TABLE `visit_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`visit_id` integer NOT NULL,
	`action` text NOT NULL,
	`user_id` integer,
	`user_name` text NOT NULL,
	`notes` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`visit_id`) REFERENCES `visits`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `visit_logs_visit` ON `visit_logs` (`visit_id`);--> statement-breakpoint
CREATE TABLE `visits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`outlet_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`team_id` integer,
	`visit_date` text NOT NULL,
	`status` text DEFAULT 'scheduled' NOT NULL,
	`notes` text,
	`created_by` integer,
	`checked_in_at` text,
	`check_in_latitude` real,
	`check_in_longitude` real,
	`check_in_photo_url` text,
	`checked_out_at` text,
	`check_out_latitude` real,
	`check_out_longitude` real,
	`check_out_photo_url` text,
	`close_reason` text,
	`sent_to_field_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`outlet_id`) REFERENCES `outlets`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `visits_workspace_date` ON `visits` (`workspace_id`,`visit_date`);--> statement-breakpoint
CREATE INDEX `visits_workspace_status_date` ON `visits` (`workspace_id`,`status`,`visit_date`);--> statement-breakpoint
CREATE INDEX `visits_workspace_outlet` ON `visits` (`workspace_id`,`outlet_id`);--> statement-breakpoint
CREATE INDEX `visits_workspace_project` ON `visits` (`workspace_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `visits_workspace_team` ON `visits` (`workspace_id`,`team_id`);