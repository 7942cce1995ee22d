-- Sales orders taken at visits and the price lists that price them (src/modules/orders/README.md). Money is
-- INTEGER in the currency's smallest unit; a discount is integer hundredths of a percent. order_counters gives each
-- workspace its increasing order number in one statement inside the order's transaction. Workspaces gain `currency`.
CREATE TABLE `order_counters` (
	`workspace_id` integer PRIMARY KEY NOT NULL,
	`last` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `price_list_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`price_list_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`price` integer NOT NULL,
	`min_qty` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`price_list_id`) REFERENCES `price_lists`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "price_list_items_price" CHECK("price_list_items"."price" >= 0),
	CONSTRAINT "price_list_items_min_qty" CHECK("price_list_items"."min_qty" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `price_list_items_list_product_qty` ON `price_list_items` (`price_list_id`,`product_id`,`min_qty`);--> statement-breakpoint
CREATE TABLE `price_lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`name` text NOT NULL,
	`channel_id` integer,
	`account_id` integer,
	`valid_from` text,
	`valid_to` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "price_lists_one_level" CHECK("price_lists"."channel_id" is null or "price_lists"."account_id" is null),
	CONSTRAINT "price_lists_valid_range" CHECK("price_lists"."valid_from" is null or "price_lists"."valid_to" is null or "price_lists"."valid_from" <= "price_lists"."valid_to")
);
--> statement-breakpoint
CREATE INDEX `price_lists_workspace_created_live` ON `price_lists` (`workspace_id`,`created_at`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `price_lists_workspace_account_live` ON `price_lists` (`workspace_id`,`account_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `price_lists_workspace_channel_live` ON `price_lists` (`workspace_id`,`channel_id`) WHERE deleted_at is null;--> statement-breakpoint
CREATE TABLE `sales_order_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`sku` text NOT NULL,
	`name` text NOT NULL,
	`unit` text,
	`quantity` integer NOT NULL,
	`unit_price` integer NOT NULL,
	`discount_bp` integer DEFAULT 0 NOT NULL,
	`line_total` integer NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `sales_orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "sales_order_lines_quantity" CHECK("sales_order_lines"."quantity" >= 1),
	CONSTRAINT "sales_order_lines_unit_price" CHECK("sales_order_lines"."unit_price" >= 0),
	CONSTRAINT "sales_order_lines_discount" CHECK("sales_order_lines"."discount_bp" between 0 and 10000),
	CONSTRAINT "sales_order_lines_total" CHECK("sales_order_lines"."line_total" between 0 and "sales_order_lines"."quantity" * "sales_order_lines"."unit_price")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sales_order_lines_order_product` ON `sales_order_lines` (`order_id`,`product_id`);--> statement-breakpoint
CREATE TABLE `sales_orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`number` text NOT NULL,
	`status` text DEFAULT 'submitted' NOT NULL,
	`visit_id` integer NOT NULL,
	`outlet_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`order_date` text NOT NULL,
	`currency` text NOT NULL,
	`subtotal` integer NOT NULL,
	`discount_total` integer NOT NULL,
	`total` integer NOT NULL,
	`notes` text,
	`reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`visit_id`) REFERENCES `visits`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`outlet_id`) REFERENCES `outlets`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "sales_orders_status" CHECK("sales_orders"."status" in ('submitted', 'approved', 'rejected', 'delivered', 'cancelled')),
	CONSTRAINT "sales_orders_amounts" CHECK("sales_orders"."total" >= 0 and "sales_orders"."discount_total" >= 0 and "sales_orders"."subtotal" = "sales_orders"."total" + "sales_orders"."discount_total")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sales_orders_workspace_number` ON `sales_orders` (`workspace_id`,`number`);--> statement-breakpoint
CREATE INDEX `sales_orders_workspace_date` ON `sales_orders` (`workspace_id`,`order_date`);--> statement-breakpoint
CREATE INDEX `sales_orders_workspace_status_date` ON `sales_orders` (`workspace_id`,`status`,`order_date`);--> statement-breakpoint
CREATE INDEX `sales_orders_workspace_user_date` ON `sales_orders` (`workspace_id`,`user_id`,`order_date`);--> statement-breakpoint
CREATE INDEX `sales_orders_visit_status` ON `sales_orders` (`visit_id`,`status`);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `currency` text DEFAULT 'IDR' NOT NULL;