-- The push outbox (docs/API.md "Push notifications"): one row per notification and registered token, written in the
-- notification's own transaction and delivered after commit by the push worker. Keyed by notification and token, so a
-- delivery is queued once; a crash leaves rows `pending` or `sending`, and the next start sends them (at least once).
CREATE TABLE `push_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`notification_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`token` text NOT NULL,
	`platform` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`last_status` integer,
	`last_error` text,
	`sent_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`notification_id`) REFERENCES `notifications`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_deliveries_notification_token` ON `push_deliveries` (`notification_id`,`token`);--> statement-breakpoint
CREATE INDEX `push_deliveries_due` ON `push_deliveries` (`status`,`next_attempt_at`);
