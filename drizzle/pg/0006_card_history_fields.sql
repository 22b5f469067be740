ALTER TABLE "gift_card_history" ADD COLUMN "fields_kept" bigint;--> statement-breakpoint
ALTER TABLE "gift_card_history" ADD COLUMN "merchant_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "gift_card_history" ADD COLUMN "currency" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "gift_card_history" ADD COLUMN "program_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "gift_card_history" ADD COLUMN "issued_at_ms" bigint;--> statement-breakpoint
ALTER TABLE "gift_card_history" ADD COLUMN "initial_balance_cents" bigint;--> statement-breakpoint
ALTER TABLE "gift_card_history" ADD COLUMN "expires_at_ms" bigint;