DROP INDEX `gift_cards_walk`;--> statement-breakpoint
DROP INDEX `gift_cards_close`;--> statement-breakpoint
CREATE INDEX `gift_cards_ledger_walk` ON `gift_cards` (`gift_card_id`,`merchant_id`,`status`,`currency`,`program_id`,`issued_at_ms`,`initial_balance_cents`,`remaining_balance_cents`,`expires_at_ms`,`read_at_ms`,`first_sync_run_id`);--> statement-breakpoint
ALTER TABLE `dp_wallet_snapshots` ADD `requested_at_ms` integer;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `rebase_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `rebase_reason` text;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `ledger_closing_cents` integer;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `in_flight_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `in_flight_cards` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `unknown_cards` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `from_ms` integer;--> statement-breakpoint
ALTER TABLE `liability_rollforward` ADD `cut_off_ms` integer;