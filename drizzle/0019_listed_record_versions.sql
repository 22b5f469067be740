CREATE TABLE `coupon_versions` (
	`version_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`coupon_id` text NOT NULL,
	`sync_run_id` integer NOT NULL,
	`raw_json` text
);
--> statement-breakpoint
CREATE INDEX `coupon_versions_coupon` ON `coupon_versions` (`coupon_id`,`sync_run_id`);--> statement-breakpoint
CREATE TABLE `dp_order_versions` (
	`version_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` text NOT NULL,
	`sync_run_id` integer NOT NULL,
	`raw_json` text,
	`currency` text,
	`total_amount_cents` integer
);
--> statement-breakpoint
CREATE INDEX `dp_order_versions_order` ON `dp_order_versions` (`order_id`,`sync_run_id`);--> statement-breakpoint
-- A mirror made before the versions: its coupons and orders as they stand are the versions of its newest sync (earlier nights' are not known, and verify says so).
INSERT INTO coupon_versions (coupon_id, sync_run_id, raw_json) SELECT coupon_id, (SELECT MAX(sync_run_id) FROM sync_runs), raw_json FROM coupons WHERE vanished_sync_run_id IS NULL;--> statement-breakpoint
INSERT INTO dp_order_versions (order_id, sync_run_id, raw_json, currency, total_amount_cents) SELECT order_id, (SELECT MAX(sync_run_id) FROM sync_runs), raw_json, currency, total_amount_cents FROM dp_orders WHERE vanished_sync_run_id IS NULL;
