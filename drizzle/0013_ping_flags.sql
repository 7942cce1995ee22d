-- Spoofing flags computed by the server per ping: bit 1 mock (the phone said so), 2 impossible_speed,
-- 4 teleport. Pings stored before this migration get only their mock bit.
ALTER TABLE `location_pings` ADD `flags` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `latest_locations` ADD `flags` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `location_pings` SET `flags` = 1 WHERE `is_mock` = 1;--> statement-breakpoint
UPDATE `latest_locations` SET `flags` = 1 WHERE `is_mock` = 1;
