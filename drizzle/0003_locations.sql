CREATE TABLE `latest_locations` (
	`ping_id` integer NOT NULL,
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`visit_id` integer,
	`lat` real NOT NULL,
	`lng` real NOT NULL,
	`accuracy_m` real,
	`speed_mps` real,
	`source` text,
	`battery_level` real,
	`is_mock` integer NOT NULL,
	`signal_quality` text,
	`recorded_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `user_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `location_pings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`visit_id` integer,
	`lat` real NOT NULL,
	`lng` real NOT NULL,
	`accuracy_m` real,
	`speed_mps` real,
	`source` text,
	`battery_level` real,
	`is_mock` integer NOT NULL,
	`signal_quality` text,
	`recorded_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`device_time` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `location_pings_workspace_user_time` ON `location_pings` (`workspace_id`,`user_id`,`recorded_at`,`id`);--> statement-breakpoint
CREATE INDEX `location_pings_workspace_time` ON `location_pings` (`workspace_id`,`recorded_at`,`id`);--> statement-breakpoint
CREATE INDEX `location_pings_visit` ON `location_pings` (`visit_id`) WHERE visit_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX `location_pings_user_device_time` ON `location_pings` (`workspace_id`,`user_id`,`recorded_at`) WHERE device_time = 1;--> statement-breakpoint
CREATE TABLE `principals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`code` text,
	`code_key` text,
	`contact_name` text,
	`contact_phone` text,
	`contact_email` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `principals_workspace_code_live` ON `principals` (`workspace_id`,`code_key`) WHERE deleted_at is null and code_key is not null;--> statement-breakpoint
CREATE INDEX `principals_workspace_created_live` ON `principals` (`workspace_id`,`created_at`) WHERE deleted_at is null;