CREATE TABLE `regional_cities` (
	`id` integer PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`province_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`type` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `regional_cities_province_code` ON `regional_cities` (`province_id`,`code`);--> statement-breakpoint
CREATE TABLE `regional_districts` (
	`id` integer PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`city_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `regional_districts_city_code` ON `regional_districts` (`city_id`,`code`);--> statement-breakpoint
CREATE TABLE `regional_provinces` (
	`id` integer PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `regional_villages` (
	`id` integer PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`district_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `regional_villages_district_code` ON `regional_villages` (`district_id`,`code`);