CREATE TABLE `auth_epoch` (
	`id` integer PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);--> statement-breakpoint
INSERT INTO `auth_epoch` (`id`, `value`) VALUES (1, 0);
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `users_auth_epoch_update` AFTER UPDATE ON `users`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `users_auth_epoch_delete` AFTER DELETE ON `users`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `users_auth_epoch_insert` AFTER INSERT ON `users`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `memberships_auth_epoch_insert` AFTER INSERT ON `memberships`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `memberships_auth_epoch_update` AFTER UPDATE ON `memberships`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `memberships_auth_epoch_delete` AFTER DELETE ON `memberships`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `roles_auth_epoch_update` AFTER UPDATE ON `roles`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `roles_auth_epoch_delete` AFTER DELETE ON `roles`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- Anything an access check reads changed: cached actors of this database are stale.
CREATE TRIGGER `roles_auth_epoch_insert` AFTER INSERT ON `roles`
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
