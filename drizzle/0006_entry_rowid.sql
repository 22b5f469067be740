-- Ledger entries get the mirror's own row number as their key, the service's transaction ID a
-- unique index: a first sync appends in row order and builds the ID index once, sorted.
-- legacy_alter_table lets the rename leave the views over the table as they are (SQLite's
-- documented table rebuild); they name the table, which exists again once renamed.
PRAGMA legacy_alter_table = ON;--> statement-breakpoint
CREATE TABLE `__new_gift_card_transactions` (
	`entry_id` integer PRIMARY KEY NOT NULL,
	`transaction_id` text NOT NULL,
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
INSERT INTO `__new_gift_card_transactions`("entry_id", "transaction_id", "gift_card_id", "type", "amount_cents", "balance_before_cents", "balance_after_cents", "reference_id", "idempotency_key", "created_at", "created_at_ms", "list_order", "first_sync_run_id", "last_seen_walk", "vanished_sync_run_id", "raw_json") SELECT rowid, "transaction_id", "gift_card_id", "type", "amount_cents", "balance_before_cents", "balance_after_cents", "reference_id", "idempotency_key", "created_at", "created_at_ms", "list_order", "first_sync_run_id", "last_seen_walk", "vanished_sync_run_id", "raw_json" FROM `gift_card_transactions`;--> statement-breakpoint
DROP TABLE `gift_card_transactions`;--> statement-breakpoint
ALTER TABLE `__new_gift_card_transactions` RENAME TO `gift_card_transactions`;--> statement-breakpoint
PRAGMA legacy_alter_table = OFF;--> statement-breakpoint
CREATE UNIQUE INDEX `gift_card_transactions_id` ON `gift_card_transactions` (`transaction_id`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_card` ON `gift_card_transactions` (`gift_card_id`,`created_at_ms`,`list_order`,`vanished_sync_run_id`,`transaction_id`,`type`,`amount_cents`,`balance_before_cents`,`balance_after_cents`,`reference_id`,`idempotency_key`,`first_sync_run_id`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_created` ON `gift_card_transactions` (`created_at_ms`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_reference` ON `gift_card_transactions` (`reference_id`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_idempotency` ON `gift_card_transactions` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `gift_card_transactions_first_sync` ON `gift_card_transactions` (`first_sync_run_id`);
