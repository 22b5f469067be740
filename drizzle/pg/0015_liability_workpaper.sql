CREATE TABLE "liability_bands" (
	"period" text COLLATE "C" NOT NULL,
	"cut_off_ms" bigint NOT NULL,
	"measure" text COLLATE "C" NOT NULL,
	"currency" text COLLATE "C" NOT NULL,
	"program_id" text COLLATE "C" NOT NULL,
	"band_order" bigint NOT NULL,
	"band" text COLLATE "C" NOT NULL,
	"cards" bigint NOT NULL,
	"value_cents" bigint NOT NULL,
	CONSTRAINT "liability_bands_period_measure_currency_program_id_band_order_pk" PRIMARY KEY("period","measure","currency","program_id","band_order")
);
--> statement-breakpoint
CREATE TABLE "liability_vintages" (
	"period" text COLLATE "C" NOT NULL,
	"cut_off_ms" bigint NOT NULL,
	"currency" text COLLATE "C" NOT NULL,
	"program_id" text COLLATE "C" NOT NULL,
	"issue_month" text COLLATE "C" NOT NULL,
	"age_months" bigint NOT NULL,
	"cards" bigint NOT NULL,
	"issued_cents" bigint NOT NULL,
	"redeemed_cents" bigint NOT NULL,
	"voided_cents" bigint NOT NULL,
	"expired_cents" bigint NOT NULL,
	"remaining_cents" bigint NOT NULL,
	"unexplained_cents" bigint NOT NULL,
	"unknown_cards" bigint NOT NULL,
	"escheat_cents" bigint NOT NULL,
	"escheat_cards" bigint NOT NULL,
	"breakage_base_cents" bigint NOT NULL,
	"expected_breakage_cents" bigint NOT NULL,
	"recognised_breakage_cents" bigint NOT NULL,
	CONSTRAINT "liability_vintages_period_currency_program_id_issue_month_pk" PRIMARY KEY("period","currency","program_id","issue_month")
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
