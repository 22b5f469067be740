CREATE TABLE `ledger_walk_seen` (
	`walk_id` integer NOT NULL,
	`entry_id` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `gift_card_transactions` DROP COLUMN `last_seen_walk`;