CREATE TABLE `liability_bands` (
	`period` text NOT NULL,
	`cut_off_ms` integer NOT NULL,
	`measure` text NOT NULL,
	`currency` text NOT NULL,
	`program_id` text NOT NULL,
	`band_order` integer NOT NULL,
	`band` text NOT NULL,
	`cards` integer NOT NULL,
	`value_cents` integer NOT NULL,
	PRIMARY KEY(`period`, `measure`, `currency`, `program_id`, `band_order`)
);
--> statement-breakpoint
CREATE TABLE `liability_vintages` (
	`period` text NOT NULL,
	`cut_off_ms` integer NOT NULL,
	`currency` text NOT NULL,
	`program_id` text NOT NULL,
	`issue_month` text NOT NULL,
	`age_months` integer NOT NULL,
	`cards` integer NOT NULL,
	`issued_cents` integer NOT NULL,
	`redeemed_cents` integer NOT NULL,
	`voided_cents` integer NOT NULL,
	`expired_cents` integer NOT NULL,
	`remaining_cents` integer NOT NULL,
	`unexplained_cents` integer NOT NULL,
	`unknown_cards` integer NOT NULL,
	`escheat_cents` integer NOT NULL,
	`escheat_cards` integer NOT NULL,
	`breakage_base_cents` integer NOT NULL,
	`expected_breakage_cents` integer NOT NULL,
	`recognised_breakage_cents` integer NOT NULL,
	PRIMARY KEY(`period`, `currency`, `program_id`, `issue_month`)
);
--> statement-breakpoint
-- Each period's close: the liability by currency, program and issue month, as its workpaper stated it (docs/liability.md). Money in integer cents.
CREATE VIEW liability_by_vintage AS
SELECT period, cut_off_ms, currency, NULLIF(program_id, '') AS program_id, issue_month, age_months, cards,
       issued_cents, redeemed_cents, voided_cents, expired_cents, remaining_cents, unexplained_cents, unknown_cards,
       escheat_cents, escheat_cards, breakage_base_cents, expected_breakage_cents, recognised_breakage_cents
FROM liability_vintages;
--> statement-breakpoint
-- Each period's close: the remaining liability by time since last activity and to expiry, per currency and program.
CREATE VIEW liability_dormancy AS
SELECT period, cut_off_ms, measure, currency, NULLIF(program_id, '') AS program_id, band_order, band, cards, value_cents
FROM liability_bands;
