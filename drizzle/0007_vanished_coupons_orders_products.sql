-- Coupons, DP orders and DP products no longer carry the last sync that saw them: writing it
-- rewrote every row of those tables each night, unchanged or not. They carry instead the first
-- complete walk of their list that no longer returned them, as ledger entries do.
ALTER TABLE `coupons` ADD `vanished_sync_run_id` integer;--> statement-breakpoint
ALTER TABLE `coupons` DROP COLUMN `last_seen_sync_run_id`;--> statement-breakpoint
ALTER TABLE `dp_orders` ADD `vanished_sync_run_id` integer;--> statement-breakpoint
ALTER TABLE `dp_orders` DROP COLUMN `last_seen_sync_run_id`;--> statement-breakpoint
ALTER TABLE `dp_products` ADD `vanished_sync_run_id` integer;--> statement-breakpoint
ALTER TABLE `dp_products` DROP COLUMN `last_seen_sync_run_id`;