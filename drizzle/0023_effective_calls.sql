-- The effective call (docs/API.md §Orders): a visit with at least one order that is not rejected or cancelled.
-- `visits.effective` is kept by the two triggers below, so every writer (the service, seeds, direct SQL) keeps it
-- true to the orders; a change of it moves the visit's `updated_at` (so `updated_since` lists and the change feed
-- see the visit again). The statuses that count are COUNTING_STATUSES of src/modules/orders/orders.machine.ts
-- (tests/orders.test.ts holds the two together). `changes.owner_id`: the one user whose phone receives a row of an
-- entity that reaches its owner only (a sales order reaches its creator; src/platform/data/sync-feed.ts).
ALTER TABLE `visits` ADD `effective` integer DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE `changes` ADD `owner_id` integer;
--> statement-breakpoint
CREATE TRIGGER `sales_orders_effective_insert` AFTER INSERT ON `sales_orders` WHEN NEW.status IN ('submitted', 'approved', 'delivered')
BEGIN
  UPDATE visits SET effective = 1, updated_at = NEW.updated_at WHERE id = NEW.visit_id AND effective = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `sales_orders_effective_update` AFTER UPDATE OF status ON `sales_orders` WHEN NEW.status IS NOT OLD.status
BEGIN
  UPDATE visits SET effective = NOT effective, updated_at = NEW.updated_at
  WHERE id = NEW.visit_id
    AND effective <> EXISTS (SELECT 1 FROM sales_orders o WHERE o.visit_id = NEW.visit_id AND o.status IN ('submitted', 'approved', 'delivered'));
END;
