-- The regional areas (idn-area-data: 91,599 rows) are no longer kept in the service's database: they are read from the
-- prepared read-only database built with the service (src/modules/regional/regional.database.ts, README.md "Regional
-- data"). The copies older releases loaded on their first start are dropped, not left unused: an unqualified name would
-- keep finding them before anything else, a backup would keep carrying them, and their pages (about 10 MiB) go back to
-- the file's free list for the service's own rows. No table references them (no FOREIGN KEY: the outlet's
-- province → village chain is checked in code, src/modules/outlets/outlets.service.ts), and no trigger or index of
-- another table names them; their own indexes go with them.
DROP TABLE IF EXISTS `regional_villages`;--> statement-breakpoint
DROP TABLE IF EXISTS `regional_districts`;--> statement-breakpoint
DROP TABLE IF EXISTS `regional_cities`;--> statement-breakpoint
DROP TABLE IF EXISTS `regional_provinces`;--> statement-breakpoint
DELETE FROM `app_settings` WHERE `key` = 'regional_data_version';
