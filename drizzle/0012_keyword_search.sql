-- Keyword search by index (docs/PERFORMANCE.md, "Keyword search (FTS5 trigram)"). One contentless FTS5
-- table per searchable list, keyed by the base table's rowid, holding exactly the folded text the
-- list's keyword scan compares (a trigram phrase match finds the rows instr() finds; the lists still
-- confirm each candidate with instr(), see src/platform/search.ts), for live rows only. Triggers keep it in step with every insert, update, soft delete, restore and delete,
-- whoever writes: the service, a seed or direct SQL. The tokenizer is case-sensitive on purpose:
-- the columns are already folded (NFKC + lower-case, or SQLite's lower() for user names), and
-- folding again would match rows the scan does not.
CREATE VIRTUAL TABLE `outlets_search` USING fts5(`name_key`, `code_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `outlets_search` (rowid, `name_key`, `code_key`) SELECT `id`, `outlets`.`name_key`, `outlets`.`code_key` FROM `outlets` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `outlets_search_insert` AFTER INSERT ON `outlets`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `outlets_search` (rowid, `name_key`, `code_key`) VALUES (NEW.`id`, NEW.`name_key`, NEW.`code_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `outlets_search_update` AFTER UPDATE OF `id`, `name_key`, `code_key`, `deleted_at` ON `outlets`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key` OR OLD.`code_key` IS NOT NEW.`code_key`
BEGIN
  DELETE FROM `outlets_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `outlets_search` (rowid, `name_key`, `code_key`) SELECT NEW.`id`, NEW.`name_key`, NEW.`code_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `outlets_search_delete` AFTER DELETE ON `outlets`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `outlets_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `users_search` USING fts5(`name`, `email`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `users_search` (rowid, `name`, `email`) SELECT `id`, lower(`users`.`name`), `users`.`email` FROM `users` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `users_search_insert` AFTER INSERT ON `users`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `users_search` (rowid, `name`, `email`) VALUES (NEW.`id`, lower(NEW.`name`), NEW.`email`);
END;
--> statement-breakpoint
CREATE TRIGGER `users_search_update` AFTER UPDATE OF `id`, `name`, `email`, `deleted_at` ON `users`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR lower(OLD.`name`) IS NOT lower(NEW.`name`) OR OLD.`email` IS NOT NEW.`email`
BEGIN
  DELETE FROM `users_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `users_search` (rowid, `name`, `email`) SELECT NEW.`id`, lower(NEW.`name`), NEW.`email` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `users_search_delete` AFTER DELETE ON `users`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `users_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `products_search` USING fts5(`name_key`, `sku_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `products_search` (rowid, `name_key`, `sku_key`) SELECT `id`, `products`.`name_key`, `products`.`sku_key` FROM `products` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `products_search_insert` AFTER INSERT ON `products`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `products_search` (rowid, `name_key`, `sku_key`) VALUES (NEW.`id`, NEW.`name_key`, NEW.`sku_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_update` AFTER UPDATE OF `id`, `name_key`, `sku_key`, `deleted_at` ON `products`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key` OR OLD.`sku_key` IS NOT NEW.`sku_key`
BEGIN
  DELETE FROM `products_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `products_search` (rowid, `name_key`, `sku_key`) SELECT NEW.`id`, NEW.`name_key`, NEW.`sku_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_delete` AFTER DELETE ON `products`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `products_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `principals_search` USING fts5(`name_key`, `code_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `principals_search` (rowid, `name_key`, `code_key`) SELECT `id`, `principals`.`name_key`, `principals`.`code_key` FROM `principals` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `principals_search_insert` AFTER INSERT ON `principals`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `principals_search` (rowid, `name_key`, `code_key`) VALUES (NEW.`id`, NEW.`name_key`, NEW.`code_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `principals_search_update` AFTER UPDATE OF `id`, `name_key`, `code_key`, `deleted_at` ON `principals`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key` OR OLD.`code_key` IS NOT NEW.`code_key`
BEGIN
  DELETE FROM `principals_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `principals_search` (rowid, `name_key`, `code_key`) SELECT NEW.`id`, NEW.`name_key`, NEW.`code_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `principals_search_delete` AFTER DELETE ON `principals`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `principals_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `projects_search` USING fts5(`name_key`, `code_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `projects_search` (rowid, `name_key`, `code_key`) SELECT `id`, `projects`.`name_key`, `projects`.`code_key` FROM `projects` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `projects_search_insert` AFTER INSERT ON `projects`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `projects_search` (rowid, `name_key`, `code_key`) VALUES (NEW.`id`, NEW.`name_key`, NEW.`code_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `projects_search_update` AFTER UPDATE OF `id`, `name_key`, `code_key`, `deleted_at` ON `projects`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key` OR OLD.`code_key` IS NOT NEW.`code_key`
BEGIN
  DELETE FROM `projects_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `projects_search` (rowid, `name_key`, `code_key`) SELECT NEW.`id`, NEW.`name_key`, NEW.`code_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_search_delete` AFTER DELETE ON `projects`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `projects_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `channel_groups_search` USING fts5(`name_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `channel_groups_search` (rowid, `name_key`) SELECT `id`, `channel_groups`.`name_key` FROM `channel_groups` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `channel_groups_search_insert` AFTER INSERT ON `channel_groups`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `channel_groups_search` (rowid, `name_key`) VALUES (NEW.`id`, NEW.`name_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `channel_groups_search_update` AFTER UPDATE OF `id`, `name_key`, `deleted_at` ON `channel_groups`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key`
BEGIN
  DELETE FROM `channel_groups_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `channel_groups_search` (rowid, `name_key`) SELECT NEW.`id`, NEW.`name_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `channel_groups_search_delete` AFTER DELETE ON `channel_groups`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `channel_groups_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `channels_search` USING fts5(`name_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `channels_search` (rowid, `name_key`) SELECT `id`, `channels`.`name_key` FROM `channels` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `channels_search_insert` AFTER INSERT ON `channels`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `channels_search` (rowid, `name_key`) VALUES (NEW.`id`, NEW.`name_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `channels_search_update` AFTER UPDATE OF `id`, `name_key`, `deleted_at` ON `channels`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key`
BEGIN
  DELETE FROM `channels_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `channels_search` (rowid, `name_key`) SELECT NEW.`id`, NEW.`name_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `channels_search_delete` AFTER DELETE ON `channels`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `channels_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `accounts_search` USING fts5(`name_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `accounts_search` (rowid, `name_key`) SELECT `id`, `accounts`.`name_key` FROM `accounts` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `accounts_search_insert` AFTER INSERT ON `accounts`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `accounts_search` (rowid, `name_key`) VALUES (NEW.`id`, NEW.`name_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `accounts_search_update` AFTER UPDATE OF `id`, `name_key`, `deleted_at` ON `accounts`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key`
BEGIN
  DELETE FROM `accounts_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `accounts_search` (rowid, `name_key`) SELECT NEW.`id`, NEW.`name_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `accounts_search_delete` AFTER DELETE ON `accounts`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `accounts_search` WHERE rowid = OLD.`id`;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `sub_areas_search` USING fts5(`name_key`, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `sub_areas_search` (rowid, `name_key`) SELECT `id`, `sub_areas`.`name_key` FROM `sub_areas` WHERE `deleted_at` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `sub_areas_search_insert` AFTER INSERT ON `sub_areas`
WHEN NEW.`deleted_at` IS NULL
BEGIN
  INSERT INTO `sub_areas_search` (rowid, `name_key`) VALUES (NEW.`id`, NEW.`name_key`);
END;
--> statement-breakpoint
CREATE TRIGGER `sub_areas_search_update` AFTER UPDATE OF `id`, `name_key`, `deleted_at` ON `sub_areas`
WHEN OLD.`id` IS NOT NEW.`id` OR (OLD.`deleted_at` IS NULL) IS NOT (NEW.`deleted_at` IS NULL) OR OLD.`name_key` IS NOT NEW.`name_key`
BEGIN
  DELETE FROM `sub_areas_search` WHERE OLD.`deleted_at` IS NULL AND rowid = OLD.`id`;
  INSERT INTO `sub_areas_search` (rowid, `name_key`) SELECT NEW.`id`, NEW.`name_key` WHERE NEW.`deleted_at` IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `sub_areas_search_delete` AFTER DELETE ON `sub_areas`
WHEN OLD.`deleted_at` IS NULL
BEGIN
  DELETE FROM `sub_areas_search` WHERE rowid = OLD.`id`;
END;
