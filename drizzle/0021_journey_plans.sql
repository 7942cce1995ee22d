-- Journey plans (docs/API.md §Journey plans): recurring plans of a field user's outlet visits, their stops,
-- the workspace's holidays, and on visits where a visit came from (`source`), the plan that generated it and
-- its place in the day's route. Every existing visit gets `source = 'manual'` (the column default); visits
-- created by the CSV import keep `manual` too until the import sets `import`.
CREATE TABLE `journey_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`team_id` integer,
	`name` text,
	`start_date` text NOT NULL,
	`end_date` text,
	`cycle_weeks` integer DEFAULT 4 NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_by` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "journey_plans_cycle_weeks" CHECK(cycle_weeks between 1 and 8)
);
--> statement-breakpoint
CREATE INDEX `journey_plans_workspace_user_live` ON `journey_plans` (`workspace_id`,`user_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `journey_plans_workspace_created_live` ON `journey_plans` (`workspace_id`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `journey_plans_workspace_active` ON `journey_plans` (`workspace_id`) WHERE active = 1 and deleted_at is null;--> statement-breakpoint
-- `weeks`: bit w − 1 for week w of the cycle; 0 = every week.
CREATE TABLE `journey_plan_stops` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`plan_id` integer NOT NULL,
	`outlet_id` integer NOT NULL,
	`weekday` integer NOT NULL,
	`weeks` integer DEFAULT 0 NOT NULL,
	`sequence` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`plan_id`) REFERENCES `journey_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`outlet_id`) REFERENCES `outlets`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "journey_plan_stops_weekday" CHECK(weekday between 1 and 7),
	CONSTRAINT "journey_plan_stops_weeks" CHECK(weeks between 0 and 255)
);
--> statement-breakpoint
CREATE INDEX `journey_plan_stops_plan` ON `journey_plan_stops` (`plan_id`,`weekday`,`sequence`);--> statement-breakpoint
CREATE INDEX `journey_plan_stops_outlet` ON `journey_plan_stops` (`outlet_id`);--> statement-breakpoint
-- Holidays are deleted for good (the audit log keeps them), so one plain unique index suffices.
CREATE TABLE `holidays` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`date` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `holidays_workspace_date` ON `holidays` (`workspace_id`,`date`);--> statement-breakpoint
ALTER TABLE `visits` ADD `journey_plan_id` integer REFERENCES journey_plans(id);--> statement-breakpoint
ALTER TABLE `visits` ADD `source` text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE `visits` ADD `route_sequence` integer;--> statement-breakpoint
-- One visit per (plan, outlet, local date), deleted rows included: generation inserts with ON CONFLICT DO
-- NOTHING, so any number of concurrent runs creates each visit once, and a generated visit the office
-- deleted is not generated again. A plan edit that takes visits away detaches them (journey_plan_id NULL)
-- as it deletes them, so the edited plan can generate the same outlet and day again.
CREATE UNIQUE INDEX `visits_journey_plan_outlet_date` ON `visits` (`journey_plan_id`,`outlet_id`,`visit_date`) WHERE journey_plan_id is not null;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `journey_plan_horizon_days` integer DEFAULT 7 NOT NULL;
