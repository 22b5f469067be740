ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_gift_card_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_type" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_amount_cents" bigint;--> statement-breakpoint
ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_balance_before_cents" bigint;--> statement-breakpoint
ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_balance_after_cents" bigint;--> statement-breakpoint
ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_reference_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_idempotency_key" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "gift_card_transaction_versions" ADD COLUMN "previous_created_at_ms" bigint;