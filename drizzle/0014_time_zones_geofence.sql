-- Workspace settings of the field (docs/API.md §Time zones, §Field integrity): the IANA zone whose local
-- days every calendar rule uses, and the geofence applied at check-in and check-out.
ALTER TABLE `workspaces` ADD `timezone` text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `geofence_mode` text DEFAULT 'warn' NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `geofence_radius_m` integer DEFAULT 200 NOT NULL;--> statement-breakpoint
-- An outlet may override the workspace's radius (a mall, a market hall).
ALTER TABLE `outlets` ADD `geofence_radius_m` integer;--> statement-breakpoint
-- Distances from the outlet at check-in and check-out, and the visit's integrity flags (bits of
-- VISIT_FLAG_BITS in src/modules/visits/visits.integrity.ts): non-zero means flagged.
ALTER TABLE `visits` ADD `check_in_distance_m` real;--> statement-breakpoint
ALTER TABLE `visits` ADD `check_out_distance_m` real;--> statement-breakpoint
ALTER TABLE `visits` ADD `flags` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `visits_workspace_flagged_date` ON `visits` (`workspace_id`,`visit_date`) WHERE `flags` != 0 and `deleted_at` is null;--> statement-breakpoint
-- The cached actor carries its workspace's zone: a zone change makes cached actors stale like a role change.
CREATE TRIGGER `workspaces_auth_epoch_timezone` AFTER UPDATE OF `timezone` ON `workspaces`
WHEN NEW.`timezone` IS NOT OLD.`timezone`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
