-- Products' `price` becomes an INTEGER amount in the workspace currency's smallest unit (docs/API.md §Other areas;
-- money is never a float). SQLite cannot change a column's type in place, and rebuilding `products` would drop it
-- under the foreign keys of price_list_items and sales_order_lines; so a new INTEGER column takes the values, the
-- REAL one is dropped and the new one renamed. A fractional price is rounded half up (round() rounds half away from
-- zero, which is half up for prices, all ≥ 0). The UPDATE fires the change-log trigger of every product, so phones
-- receive the integer prices. The change-log and search triggers name no price column; src/db/derived.ts checks
-- them at start.
ALTER TABLE `products` ADD `price_int` integer;--> statement-breakpoint
UPDATE `products` SET `price_int` = CAST(round(`price`) AS INTEGER) WHERE `price` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `products` DROP COLUMN `price`;--> statement-breakpoint
ALTER TABLE `products` RENAME COLUMN `price_int` TO `price`;
