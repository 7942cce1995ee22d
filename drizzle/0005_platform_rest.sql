CREATE TABLE `attendances` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`date` text NOT NULL,
	`check_in_at` text NOT NULL,
	`check_in_latitude` real,
	`check_in_longitude` real,
	`check_in_photo_url` text,
	`check_out_at` text,
	`check_out_latitude` real,
	`check_out_longitude` real,
	`check_out_photo_url` text,
	`notes` text,
	`source` text NOT NULL,
	`created_by` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `attendances_workspace_date` ON `attendances` (`workspace_id`,`date`);--> statement-breakpoint
CREATE INDEX `attendances_workspace_user_date` ON `attendances` (`workspace_id`,`user_id`,`date`);--> statement-breakpoint
CREATE UNIQUE INDEX `attendances_one_open` ON `attendances` (`workspace_id`,`user_id`) WHERE check_out_at is null;--> statement-breakpoint
CREATE TABLE `products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`sku` text NOT NULL,
	`sku_key` text NOT NULL,
	`principal_id` integer,
	`price` real,
	`unit` text,
	`barcode` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`principal_id`) REFERENCES `principals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_workspace_sku_live` ON `products` (`workspace_id`,`sku_key`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `products_workspace_created_live` ON `products` (`workspace_id`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `products_workspace_principal` ON `products` (`workspace_id`,`principal_id`);--> statement-breakpoint
CREATE TABLE `export_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`format` text NOT NULL,
	`filters` text NOT NULL,
	`status` text NOT NULL,
	`row_count` integer,
	`error` text,
	`path` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `export_jobs_workspace_user` ON `export_jobs` (`workspace_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `export_jobs_status` ON `export_jobs` (`status`);--> statement-breakpoint
CREATE TABLE `push_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`token` text NOT NULL,
	`platform` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_tokens_token` ON `push_tokens` (`token`);--> statement-breakpoint
CREATE INDEX `push_tokens_user` ON `push_tokens` (`workspace_id`,`user_id`);