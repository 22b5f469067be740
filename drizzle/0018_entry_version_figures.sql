ALTER TABLE `gift_card_transaction_versions` ADD `previous_gift_card_id` text;--> statement-breakpoint
ALTER TABLE `gift_card_transaction_versions` ADD `previous_type` text;--> statement-breakpoint
ALTER TABLE `gift_card_transaction_versions` ADD `previous_amount_cents` integer;--> statement-breakpoint
ALTER TABLE `gift_card_transaction_versions` ADD `previous_balance_before_cents` integer;--> statement-breakpoint
ALTER TABLE `gift_card_transaction_versions` ADD `previous_balance_after_cents` integer;--> statement-breakpoint
ALTER TABLE `gift_card_transaction_versions` ADD `previous_reference_id` text;--> statement-breakpoint
ALTER TABLE `gift_card_transaction_versions` ADD `previous_idempotency_key` text;--> statement-breakpoint
ALTER TABLE `gift_card_transaction_versions` ADD `previous_created_at_ms` integer;