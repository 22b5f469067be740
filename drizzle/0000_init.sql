CREATE TABLE `coupon_history` (
	`history_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`coupon_id` text NOT NULL,
	`sync_run_id` integer NOT NULL,
	`status` text NOT NULL,
	`redemption_count` integer NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `coupon_history_coupon` ON `coupon_history` (`coupon_id`,`sync_run_id`);--> statement-breakpoint
CREATE TABLE `coupons` (
	`coupon_id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`program_id` text,
	`template_id` text,
	`status` text NOT NULL,
	`redemption_count` integer NOT NULL,
	`usage_limit_total` integer NOT NULL,
	`version` integer NOT NULL,
	`expires_at` text NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`last_seen_sync_run_id` integer NOT NULL,
	`first_sync_run_id` integer NOT NULL,
	`raw_json` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dp_order_history` (
	`history_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` text NOT NULL,
	`sync_run_id` integer NOT NULL,
	`status` text NOT NULL,
	`fulfillment_status` text NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dp_order_history_order` ON `dp_order_history` (`order_id`,`sync_run_id`);--> statement-breakpoint
CREATE TABLE `dp_order_lines` (
	`order_id` text NOT NULL,
	`line_no` integer NOT NULL,
	`variant_id` text NOT NULL,
	`product_id` text NOT NULL,
	`quantity` integer NOT NULL,
	`currency` text NOT NULL,
	`mrp_cents` integer,
	`price_cents` integer,
	`total_mrp_cents` integer,
	`total_price_cents` integer,
	`total_converted_price_cents` integer,
	`fx_rate` real NOT NULL,
	`mark_up_percentage` real,
	`fulfillment_status` text NOT NULL,
	`allocated_qty` integer,
	`fulfilled_qty` integer NOT NULL,
	PRIMARY KEY(`order_id`, `line_no`),
	FOREIGN KEY (`order_id`) REFERENCES `dp_orders`(`order_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `dp_orders` (
	`order_id` text PRIMARY KEY NOT NULL,
	`external_ref_id` text NOT NULL,
	`dp_id` text NOT NULL,
	`type` text,
	`status` text NOT NULL,
	`fulfillment_status` text NOT NULL,
	`currency` text NOT NULL,
	`total_amount_cents` integer,
	`total_order_mrp_cents` integer,
	`created_at` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`updated_at` text NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`last_seen_sync_run_id` integer NOT NULL,
	`first_sync_run_id` integer NOT NULL,
	`raw_json` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dp_orders_external_ref` ON `dp_orders` (`external_ref_id`);--> statement-breakpoint
CREATE TABLE `dp_products` (
	`product_id` text PRIMARY KEY NOT NULL,
	`product_name` text NOT NULL,
	`display_name` text,
	`currency` text NOT NULL,
	`last_seen_sync_run_id` integer NOT NULL,
	`raw_json` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dp_variants` (
	`variant_id` text PRIMARY KEY NOT NULL,
	`product_id` text NOT NULL,
	`variant_name` text NOT NULL,
	`mrp_cents` integer,
	`price_cents` integer,
	`converted_selling_price_cents` integer,
	`stock` integer,
	`raw_json` text NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `dp_products`(`product_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `dp_vouchers` (
	`order_id` text NOT NULL,
	`line_no` integer NOT NULL,
	`voucher_no` integer NOT NULL,
	`code_sha256` text NOT NULL,
	`expiration_date` text NOT NULL,
	`expiration_date_ms` integer NOT NULL,
	PRIMARY KEY(`order_id`, `line_no`, `voucher_no`),
	FOREIGN KEY (`order_id`) REFERENCES `dp_orders`(`order_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dp_vouchers_code` ON `dp_vouchers` (`code_sha256`);--> statement-breakpoint
CREATE TABLE `dp_wallet_snapshots` (
	`snapshot_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sync_run_id` integer NOT NULL,
	`wallet_id` text NOT NULL,
	`currency` text NOT NULL,
	`balance_cents` integer,
	`selected` integer NOT NULL,
	`read_at_ms` integer NOT NULL,
	`raw_json` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dp_wallet_snapshots_run` ON `dp_wallet_snapshots` (`sync_run_id`,`wallet_id`);--> statement-breakpoint
CREATE TABLE `gift_card_history` (
	`history_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`gift_card_id` text NOT NULL,
	`sync_run_id` integer NOT NULL,
	`read_at_ms` integer NOT NULL,
	`status` text NOT NULL,
	`remaining_balance_cents` integer,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `gift_card_history_card` ON `gift_card_history` (`gift_card_id`,`sync_run_id`);--> statement-breakpoint
CREATE TABLE `gift_card_transaction_versions` (
	`version_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`transaction_id` text NOT NULL,
	`sync_run_id` integer NOT NULL,
	`change` text NOT NULL,
	`previous_raw_json` text NOT NULL,
	`new_raw_json` text
);
--> statement-breakpoint
CREATE INDEX `gift_card_transaction_versions_entry` ON `gift_card_transaction_versions` (`transaction_id`);--> statement-breakpoint
CREATE TABLE `gift_card_transactions` (
	`transaction_id` text PRIMARY KEY NOT NULL,
	`gift_card_id` text NOT NULL,
	`type` text NOT NULL,
	`amount_cents` integer,
	`balance_before_cents` integer,
	`balance_after_cents` integer,
	`reference_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`created_at` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`list_order` integer NOT NULL,
	`first_sync_run_id` integer NOT NULL,
	`last_seen_walk` integer NOT NULL,
	`vanished_sync_run_id` integer,
	`raw_json` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `gift_card_transactions_card` ON `gift_card_transactions` (`gift_card_id`,`created_at_ms`,`list_order`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_created` ON `gift_card_transactions` (`created_at_ms`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_reference` ON `gift_card_transactions` (`reference_id`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_idempotency` ON `gift_card_transactions` (`idempotency_key`);--> statement-breakpoint
CREATE TABLE `gift_cards` (
	`gift_card_id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`program_id` text,
	`template_id` text,
	`status` text NOT NULL,
	`currency` text NOT NULL,
	`initial_balance_cents` integer,
	`remaining_balance_cents` integer,
	`version` integer NOT NULL,
	`issued_at` text NOT NULL,
	`issued_at_ms` integer NOT NULL,
	`expires_at` text NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`read_at_ms` integer NOT NULL,
	`read_sync_run_id` integer NOT NULL,
	`first_sync_run_id` integer NOT NULL,
	`raw_json` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `gift_cards_status` ON `gift_cards` (`status`);--> statement-breakpoint
CREATE TABLE `gift_cards_in_flight` (
	`sync_run_id` integer NOT NULL,
	`gift_card_id` text NOT NULL,
	`detail` text NOT NULL,
	PRIMARY KEY(`sync_run_id`, `gift_card_id`)
);
--> statement-breakpoint
CREATE TABLE `missing_gift_cards` (
	`gift_card_id` text PRIMARY KEY NOT NULL,
	`sync_run_id` integer NOT NULL,
	`checked_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `quarantine` (
	`quarantine_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`resource` text NOT NULL,
	`record_id` text,
	`reason` text NOT NULL,
	`raw_json` text NOT NULL,
	`raw_sha256` text NOT NULL,
	`first_sync_run_id` integer NOT NULL,
	`last_sync_run_id` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `quarantine_record` ON `quarantine` (`resource`,`raw_sha256`);--> statement-breakpoint
CREATE INDEX `quarantine_last_run` ON `quarantine` (`last_sync_run_id`);--> statement-breakpoint
CREATE TABLE `sync_checkpoints` (
	`resource` text PRIMARY KEY NOT NULL,
	`walk_id` integer NOT NULL,
	`mode` text NOT NULL,
	`cursor` text,
	`pages` integer DEFAULT 0 NOT NULL,
	`records` integer DEFAULT 0 NOT NULL,
	`stop_before_ms` integer,
	`done` integer DEFAULT false NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sync_runs` (
	`sync_run_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`started_at` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at` text,
	`finished_at_ms` integer,
	`pid` integer NOT NULL,
	`giftcard_base_url` text NOT NULL,
	`dp_base_url` text NOT NULL,
	`error` text,
	`summary_json` text
);
