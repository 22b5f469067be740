CREATE TABLE `check_runs` (
	`check_run_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sync_run_id` integer,
	`status` text NOT NULL,
	`verdict` text,
	`started_at` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer,
	`as_of` text,
	`as_of_ms` integer,
	`merchant_id` text,
	`options_json` text NOT NULL,
	`failed_checks_json` text,
	`summary_json` text
);
--> statement-breakpoint
CREATE TABLE `finding_acceptances` (
	`fingerprint` text PRIMARY KEY NOT NULL,
	`note` text NOT NULL,
	`accepted_at` text NOT NULL,
	`accepted_at_ms` integer NOT NULL,
	`until` text,
	`until_ms` integer,
	`detail_sha256` text NOT NULL,
	`check_run_id` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `findings` (
	`check_run_id` integer NOT NULL,
	`fingerprint` text NOT NULL,
	`code` text NOT NULL,
	`severity` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`gift_card_id` text,
	`reference_id` text,
	`currency` text,
	`unit` text,
	`expected` integer,
	`actual` integer,
	`difference` integer,
	`message` text NOT NULL,
	`state` text NOT NULL,
	`first_seen_check_run_id` integer NOT NULL,
	`first_seen_at` text NOT NULL,
	`first_seen_at_ms` integer NOT NULL,
	`age_days` integer NOT NULL,
	`records_json` text NOT NULL,
	`detail_sha256` text NOT NULL,
	PRIMARY KEY(`check_run_id`, `fingerprint`)
);
--> statement-breakpoint
CREATE INDEX `findings_fingerprint` ON `findings` (`fingerprint`);--> statement-breakpoint
CREATE INDEX `findings_code` ON `findings` (`check_run_id`,`code`);--> statement-breakpoint
CREATE TABLE `liability_rollforward` (
	`check_run_id` integer NOT NULL,
	`currency` text NOT NULL,
	`opening_cents` integer NOT NULL,
	`issued_cents` integer NOT NULL,
	`debited_cents` integer NOT NULL,
	`refunded_cents` integer NOT NULL,
	`voided_cents` integer NOT NULL,
	`expired_cents` integer NOT NULL,
	`closing_cents` integer NOT NULL,
	`cards_remaining_cents` integer NOT NULL,
	`difference_cents` integer NOT NULL,
	PRIMARY KEY(`check_run_id`, `currency`)
);
--> statement-breakpoint
CREATE TABLE `resolved_findings` (
	`check_run_id` integer NOT NULL,
	`fingerprint` text NOT NULL,
	`code` text NOT NULL,
	`severity` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`message` text NOT NULL,
	`first_seen_at` text NOT NULL,
	PRIMARY KEY(`check_run_id`, `fingerprint`)
);
