-- The path of the resource an idempotent request created, so its replay can say where it is (Location).
ALTER TABLE `idempotency_keys` ADD `location` text;
