-- The change log behind GET /app/v1/sync and GET /office/v1/changes (docs/API.md §Sync and change feed).
-- Triggers write it, so every writer is covered (the service, seeds, direct SQL), on both drivers.
-- One row per entity (and, for tombstones addressed to a removed assignee, per entity and user): a new
-- change deletes the entity's older row and appends a new one, so seq order is commit order and the log
-- stays as large as the data plus recent tombstones.
CREATE TABLE `changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`entity` text NOT NULL,
	`entity_id` integer NOT NULL,
	`op` text NOT NULL,
	`user_id` integer,
	`visit_id` integer,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `changes_workspace_seq` ON `changes` (`workspace_id`,`seq`);
--> statement-breakpoint
CREATE INDEX `changes_workspace_entity` ON `changes` (`workspace_id`,`entity`,`entity_id`,`user_id`);
--> statement-breakpoint
CREATE INDEX `changes_addressed` ON `changes` (`visit_id`,`user_id`) WHERE `user_id` IS NOT NULL;
--> statement-breakpoint
CREATE TABLE `change_horizons` (
	`workspace_id` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `channel_groups_changes_insert` AFTER INSERT ON `channel_groups`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'channel_group' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'channel_group', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `channel_groups_changes_update` AFTER UPDATE ON `channel_groups`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'channel_group' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'channel_group', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `channel_groups_changes_delete` AFTER DELETE ON `channel_groups`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'channel_group' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'channel_group', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `channels_changes_insert` AFTER INSERT ON `channels`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'channel' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'channel', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `channels_changes_update` AFTER UPDATE ON `channels`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'channel' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'channel', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `channels_changes_delete` AFTER DELETE ON `channels`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'channel' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'channel', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `accounts_changes_insert` AFTER INSERT ON `accounts`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'account' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'account', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `accounts_changes_update` AFTER UPDATE ON `accounts`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'account' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'account', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `accounts_changes_delete` AFTER DELETE ON `accounts`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'account' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'account', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `sub_areas_changes_insert` AFTER INSERT ON `sub_areas`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'sub_area' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'sub_area', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `sub_areas_changes_update` AFTER UPDATE ON `sub_areas`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'sub_area' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'sub_area', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `sub_areas_changes_delete` AFTER DELETE ON `sub_areas`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'sub_area' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'sub_area', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `outlets_changes_insert` AFTER INSERT ON `outlets`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'outlet' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'outlet', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `outlets_changes_update` AFTER UPDATE ON `outlets`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'outlet' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'outlet', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `outlets_changes_delete` AFTER DELETE ON `outlets`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'outlet' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'outlet', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `forms_changes_insert` AFTER INSERT ON `forms`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'form' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'form', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `forms_changes_update` AFTER UPDATE ON `forms`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'form' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'form', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `forms_changes_delete` AFTER DELETE ON `forms`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'form' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'form', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `projects_changes_insert` AFTER INSERT ON `projects`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'project' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'project', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `projects_changes_update` AFTER UPDATE ON `projects`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'project' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'project', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `projects_changes_delete` AFTER DELETE ON `projects`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'project' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'project', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `principals_changes_insert` AFTER INSERT ON `principals`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'principal' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'principal', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `principals_changes_update` AFTER UPDATE ON `principals`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'principal' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'principal', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `principals_changes_delete` AFTER DELETE ON `principals`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'principal' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'principal', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `products_changes_insert` AFTER INSERT ON `products`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'product' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'product', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `products_changes_update` AFTER UPDATE ON `products`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'product' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'product', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `products_changes_delete` AFTER DELETE ON `products`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'product' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'product', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `teams_changes_insert` AFTER INSERT ON `teams`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'team' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'team', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `teams_changes_update` AFTER UPDATE ON `teams`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'team' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'team', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `teams_changes_delete` AFTER DELETE ON `teams`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'team' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'team', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `roles_changes_insert` AFTER INSERT ON `roles`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'role' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'role', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `roles_changes_update` AFTER UPDATE ON `roles`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'role' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'role', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `roles_changes_delete` AFTER DELETE ON `roles`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'role' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'role', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `attendances_changes_insert` AFTER INSERT ON `attendances`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'attendance' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'attendance', NEW.id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `attendances_changes_update` AFTER UPDATE ON `attendances`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'attendance' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'attendance', NEW.id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `attendances_changes_delete` AFTER DELETE ON `attendances`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'attendance' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'attendance', OLD.id, 'delete', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `visits_changes_insert` AFTER INSERT ON `visits`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'visit' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'visit', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NEW.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `visits_changes_update` AFTER UPDATE ON `visits`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'visit' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'visit', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NEW.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `visits_changes_delete` AFTER DELETE ON `visits`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'visit' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'visit', OLD.id, 'delete', NULL, OLD.id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `submissions_changes_insert` AFTER INSERT ON `submissions`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'submission' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'submission', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NEW.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'visit' AND entity_id = NEW.visit_id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'visit', NEW.visit_id, (SELECT CASE WHEN visits.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM visits WHERE visits.id = NEW.visit_id), NULL, NEW.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `submissions_changes_update` AFTER UPDATE ON `submissions`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'submission' AND entity_id = NEW.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'submission', NEW.id, CASE WHEN NEW.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END, NULL, NEW.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'visit' AND entity_id = NEW.visit_id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'visit', NEW.visit_id, (SELECT CASE WHEN visits.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM visits WHERE visits.id = NEW.visit_id), NULL, NEW.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `submissions_changes_delete` AFTER DELETE ON `submissions`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'submission' AND entity_id = OLD.id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'submission', OLD.id, 'delete', NULL, OLD.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'visit' AND entity_id = OLD.visit_id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'visit', OLD.visit_id, (SELECT CASE WHEN visits.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM visits WHERE visits.id = OLD.visit_id), NULL, OLD.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER `visit_logs_changes_insert` AFTER INSERT ON `visit_logs`
BEGIN
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'visit' AND entity_id = NEW.visit_id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'visit', NEW.visit_id, (SELECT CASE WHEN visits.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM visits WHERE visits.id = NEW.visit_id), NULL, NEW.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
-- A new assignee sees the visit and its submissions: their change rows move past every cursor.
CREATE TRIGGER `visit_assignees_changes_insert` AFTER INSERT ON `visit_assignees`
BEGIN
  DELETE FROM changes WHERE visit_id = NEW.visit_id AND user_id = NEW.user_id;
  DELETE FROM changes WHERE workspace_id = NEW.workspace_id AND entity = 'visit' AND entity_id = NEW.visit_id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (NEW.workspace_id, 'visit', NEW.visit_id, (SELECT CASE WHEN visits.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM visits WHERE visits.id = NEW.visit_id), NULL, NEW.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, visit_id FROM submissions WHERE visit_id = NEW.visit_id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'submission' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'submission', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, visit_id FROM submissions WHERE visit_id = NEW.visit_id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- An assignee taken off a visit is told, once, to drop it and its submissions (a tombstone addressed to them).
CREATE TRIGGER `visit_assignees_changes_delete` AFTER DELETE ON `visit_assignees`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'visit' AND entity_id = OLD.visit_id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'visit', OLD.visit_id, coalesce((SELECT CASE WHEN visits.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM visits WHERE visits.id = OLD.visit_id), 'delete'), NULL, OLD.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  DELETE FROM changes WHERE visit_id = OLD.visit_id AND user_id = OLD.user_id;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'visit', OLD.visit_id, 'delete', OLD.user_id, OLD.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'submission', id, 'delete', OLD.user_id, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM submissions WHERE visit_id = OLD.visit_id AND deleted_at IS NULL ORDER BY id;
END;
--> statement-breakpoint
-- A channel shows its group {id, name}.
CREATE TRIGGER `channel_groups_changes_to_channels` AFTER UPDATE ON `channel_groups` WHEN NEW.name IS NOT OLD.name
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM channels WHERE workspace_id = NEW.workspace_id AND channel_group_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'channel' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'channel', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM channels WHERE workspace_id = NEW.workspace_id AND channel_group_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- An account shows its channel {id, name, created_at, updated_at}.
CREATE TRIGGER `channels_changes_to_accounts` AFTER UPDATE ON `channels` WHEN NEW.name IS NOT OLD.name OR NEW.updated_at IS NOT OLD.updated_at
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM accounts WHERE workspace_id = NEW.workspace_id AND channel_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'account' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'account', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM accounts WHERE workspace_id = NEW.workspace_id AND channel_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- An outlet shows its account {id, name, channel_id}.
CREATE TRIGGER `accounts_changes_to_outlets` AFTER UPDATE ON `accounts` WHEN NEW.name IS NOT OLD.name OR NEW.channel_id IS NOT OLD.channel_id
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM outlets WHERE workspace_id = NEW.workspace_id AND account_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'outlet' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'outlet', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM outlets WHERE workspace_id = NEW.workspace_id AND account_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- An outlet shows its sub-area {id, name}.
CREATE TRIGGER `sub_areas_changes_to_outlets` AFTER UPDATE ON `sub_areas` WHEN NEW.name IS NOT OLD.name
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM outlets WHERE workspace_id = NEW.workspace_id AND sub_area_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'outlet' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'outlet', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM outlets WHERE workspace_id = NEW.workspace_id AND sub_area_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- A product shows its principal {id, name}.
CREATE TRIGGER `principals_changes_to_products` AFTER UPDATE ON `principals` WHEN NEW.name IS NOT OLD.name
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM products WHERE workspace_id = NEW.workspace_id AND principal_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'product' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'product', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM products WHERE workspace_id = NEW.workspace_id AND principal_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- A project lists its forms with their titles.
CREATE TRIGGER `forms_changes_to_projects` AFTER UPDATE ON `forms` WHEN NEW.title IS NOT OLD.title
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM projects WHERE id IN (SELECT project_id FROM project_forms WHERE form_id = NEW.id) AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'project' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'project', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM projects WHERE id IN (SELECT project_id FROM project_forms WHERE form_id = NEW.id) AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- A visit shows its outlet {id, name, address}.
CREATE TRIGGER `outlets_changes_to_visits` AFTER UPDATE ON `outlets` WHEN NEW.name IS NOT OLD.name OR NEW.address IS NOT OLD.address
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, id AS visit_id FROM visits WHERE workspace_id = NEW.workspace_id AND outlet_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'visit' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'visit', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, id AS visit_id FROM visits WHERE workspace_id = NEW.workspace_id AND outlet_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- A visit shows its project {id, name}.
CREATE TRIGGER `projects_changes_to_visits` AFTER UPDATE ON `projects` WHEN NEW.name IS NOT OLD.name
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, id AS visit_id FROM visits WHERE workspace_id = NEW.workspace_id AND project_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'visit' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'visit', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, id AS visit_id FROM visits WHERE workspace_id = NEW.workspace_id AND project_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- A visit shows its team {id, name}.
CREATE TRIGGER `teams_changes_to_visits` AFTER UPDATE ON `teams` WHEN NEW.name IS NOT OLD.name
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, id AS visit_id FROM visits WHERE workspace_id = NEW.workspace_id AND team_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'visit' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'visit', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, id AS visit_id FROM visits WHERE workspace_id = NEW.workspace_id AND team_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
-- A user lists the ids of their live teams.
CREATE TRIGGER `teams_changes_to_users` AFTER UPDATE ON `teams` WHEN NEW.deleted_at IS NOT OLD.deleted_at
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, user_id AS id, 'upsert' AS op, NULL AS visit_id FROM team_members WHERE team_id = NEW.id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, user_id AS id, 'upsert' AS op, NULL AS visit_id FROM team_members WHERE team_id = NEW.id) ORDER BY id;
END;
--> statement-breakpoint
-- A user shows their role {id, slug, name}.
CREATE TRIGGER `roles_changes_to_users` AFTER UPDATE ON `roles` WHEN NEW.name IS NOT OLD.name OR NEW.slug IS NOT OLD.slug
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, user_id AS id, 'upsert' AS op, NULL AS visit_id FROM memberships WHERE role_id = NEW.id AND deleted_at IS NULL) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, user_id AS id, 'upsert' AS op, NULL AS visit_id FROM memberships WHERE role_id = NEW.id AND deleted_at IS NULL) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `project_forms_changes_insert` AFTER INSERT ON `project_forms`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, CASE WHEN projects.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM projects WHERE id = NEW.project_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'project' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'project', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, CASE WHEN projects.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM projects WHERE id = NEW.project_id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `project_forms_changes_update` AFTER UPDATE ON `project_forms`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, CASE WHEN projects.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM projects WHERE id = NEW.project_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'project' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'project', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, CASE WHEN projects.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM projects WHERE id = NEW.project_id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `project_forms_changes_delete` AFTER DELETE ON `project_forms`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, CASE WHEN projects.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM projects WHERE id = OLD.project_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'project' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'project', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, CASE WHEN projects.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM projects WHERE id = OLD.project_id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `team_members_changes_insert` AFTER INSERT ON `team_members`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, CASE WHEN teams.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM teams WHERE id = NEW.team_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'team' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'team', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, CASE WHEN teams.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM teams WHERE id = NEW.team_id) ORDER BY id;
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.user_id = NEW.user_id AND m.workspace_id = NEW.workspace_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.user_id = NEW.user_id AND m.workspace_id = NEW.workspace_id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `team_members_changes_delete` AFTER DELETE ON `team_members`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, CASE WHEN teams.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM teams WHERE id = OLD.team_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'team' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'team', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, CASE WHEN teams.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM teams WHERE id = OLD.team_id) ORDER BY id;
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.user_id = OLD.user_id AND m.workspace_id = OLD.workspace_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.user_id = OLD.user_id AND m.workspace_id = OLD.workspace_id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `users_changes_update` AFTER UPDATE ON `users`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.user_id = NEW.id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.user_id = NEW.id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `memberships_changes_insert` AFTER INSERT ON `memberships`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM (SELECT NEW.workspace_id AS workspace_id, NEW.user_id AS user_id, NEW.deleted_at AS deleted_at) m JOIN users u ON u.id = m.user_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM (SELECT NEW.workspace_id AS workspace_id, NEW.user_id AS user_id, NEW.deleted_at AS deleted_at) m JOIN users u ON u.id = m.user_id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `memberships_changes_update` AFTER UPDATE ON `memberships`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM (SELECT NEW.workspace_id AS workspace_id, NEW.user_id AS user_id, NEW.deleted_at AS deleted_at) m JOIN users u ON u.id = m.user_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN m.deleted_at IS NULL AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM (SELECT NEW.workspace_id AS workspace_id, NEW.user_id AS user_id, NEW.deleted_at AS deleted_at) m JOIN users u ON u.id = m.user_id) ORDER BY id;
END;
--> statement-breakpoint
CREATE TRIGGER `memberships_changes_delete` AFTER DELETE ON `memberships`
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN 1 = 0 AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM (SELECT OLD.workspace_id AS workspace_id, OLD.user_id AS user_id, OLD.deleted_at AS deleted_at) m JOIN users u ON u.id = m.user_id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'user' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'user', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT m.workspace_id AS ws, m.user_id AS id, CASE WHEN 1 = 0 AND u.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END AS op, NULL AS visit_id FROM (SELECT OLD.workspace_id AS workspace_id, OLD.user_id AS user_id, OLD.deleted_at AS deleted_at) m JOIN users u ON u.id = m.user_id) ORDER BY id;
END;
--> statement-breakpoint
-- Names and e-mails of people appear inside visits (assignees), submissions (submitter, reviewer), attendances and teams.
CREATE TRIGGER `users_changes_names` AFTER UPDATE ON `users` WHEN NEW.name IS NOT OLD.name OR NEW.email IS NOT OLD.email
BEGIN
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT v.workspace_id AS ws, v.id, 'upsert' AS op, v.id AS visit_id FROM visits v WHERE v.deleted_at IS NULL AND (v.id IN (SELECT visit_id FROM visit_assignees WHERE user_id = NEW.id) OR v.id IN (SELECT visit_id FROM submissions WHERE submitted_by = NEW.id OR reviewed_by = NEW.id))) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'visit' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'visit', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT v.workspace_id AS ws, v.id, 'upsert' AS op, v.id AS visit_id FROM visits v WHERE v.deleted_at IS NULL AND (v.id IN (SELECT visit_id FROM visit_assignees WHERE user_id = NEW.id) OR v.id IN (SELECT visit_id FROM submissions WHERE submitted_by = NEW.id OR reviewed_by = NEW.id))) ORDER BY id;
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, visit_id FROM submissions WHERE deleted_at IS NULL AND (submitted_by = NEW.id OR reviewed_by = NEW.id)) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'submission' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'submission', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, visit_id FROM submissions WHERE deleted_at IS NULL AND (submitted_by = NEW.id OR reviewed_by = NEW.id)) ORDER BY id;
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM attendances WHERE user_id = NEW.id) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'attendance' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'attendance', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM attendances WHERE user_id = NEW.id) ORDER BY id;
  DELETE FROM changes WHERE seq IN (SELECT c.seq FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM teams WHERE deleted_at IS NULL AND (leader_id = NEW.id OR id IN (SELECT team_id FROM team_members WHERE user_id = NEW.id))) r JOIN changes c ON c.workspace_id = r.ws AND c.entity = 'team' AND c.entity_id = r.id AND c.user_id IS NULL);
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT ws, 'team', id, op, NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (SELECT workspace_id AS ws, id, 'upsert' AS op, NULL AS visit_id FROM teams WHERE deleted_at IS NULL AND (leader_id = NEW.id OR id IN (SELECT team_id FROM team_members WHERE user_id = NEW.id))) ORDER BY id;
END;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'channel_group', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `channel_groups` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'channel', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `channels` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'account', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `accounts` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'sub_area', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `sub_areas` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'outlet', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `outlets` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'form', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `forms` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'project', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `projects` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'principal', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `principals` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'product', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `products` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'team', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `teams` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'role', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `roles` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'attendance', id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `attendances` WHERE 1 = 1 ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'visit', id, 'upsert', NULL, id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `visits` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT workspace_id, 'submission', id, 'upsert', NULL, visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `submissions` WHERE deleted_at IS NULL ORDER BY id;
--> statement-breakpoint
INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) SELECT m.workspace_id, 'user', m.user_id, 'upsert', NULL, NULL, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.deleted_at IS NULL AND u.deleted_at IS NULL ORDER BY m.id;
