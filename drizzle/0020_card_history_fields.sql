ALTER TABLE `gift_card_history` ADD `fields_kept` integer;--> statement-breakpoint
ALTER TABLE `gift_card_history` ADD `merchant_id` text;--> statement-breakpoint
ALTER TABLE `gift_card_history` ADD `currency` text;--> statement-breakpoint
ALTER TABLE `gift_card_history` ADD `program_id` text;--> statement-breakpoint
ALTER TABLE `gift_card_history` ADD `issued_at_ms` integer;--> statement-breakpoint
ALTER TABLE `gift_card_history` ADD `initial_balance_cents` integer;--> statement-breakpoint
ALTER TABLE `gift_card_history` ADD `expires_at_ms` integer;