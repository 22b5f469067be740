CREATE TABLE `held_findings` (
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
	`stake_cents` integer DEFAULT 0 NOT NULL,
	`stake_key` text DEFAULT '' NOT NULL,
	`message` text NOT NULL,
	`state` text NOT NULL,
	`first_seen_check_run_id` integer NOT NULL,
	`first_seen_at` text NOT NULL,
	`first_seen_at_ms` integer NOT NULL,
	`age_days` integer NOT NULL,
	`records_json` text NOT NULL,
	`detail_sha256` text NOT NULL,
	`accepted_note` text,
	`accepted_by` text,
	`accepted_at_ms` integer,
	`accepted_until_ms` integer,
	`acceptance_ended` text,
	PRIMARY KEY(`check_run_id`, `fingerprint`)
);
--> statement-breakpoint
ALTER TABLE `check_runs` ADD `error_json` text;--> statement-breakpoint
ALTER TABLE `check_runs` ADD `findings_version` integer;--> statement-breakpoint
ALTER TABLE `finding_acceptances` ADD `accepted_by` text;--> statement-breakpoint
ALTER TABLE `findings` ADD `stake_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `findings` ADD `stake_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `findings` ADD `accepted_note` text;--> statement-breakpoint
ALTER TABLE `findings` ADD `accepted_by` text;--> statement-breakpoint
ALTER TABLE `findings` ADD `accepted_at_ms` integer;--> statement-breakpoint
ALTER TABLE `findings` ADD `accepted_until_ms` integer;--> statement-breakpoint
ALTER TABLE `findings` ADD `acceptance_ended` text;--> statement-breakpoint
-- The newest check run's findings, with their age, bucket and the acceptance as that run applied it.
DROP VIEW `open_findings`;--> statement-breakpoint
CREATE VIEW `open_findings` AS
SELECT f.check_run_id, f.fingerprint, f.code, f.severity, f.state, f.entity_type, f.entity_id, f.gift_card_id, f.reference_id, f.currency, f.unit,
       f.expected, f.actual, f.difference, f.stake_cents, f.message, f.first_seen_at, f.age_days,
       CASE WHEN f.age_days <= 1 THEN '0-1' WHEN f.age_days <= 7 THEN '2-7' WHEN f.age_days <= 30 THEN '8-30' ELSE 'over 30' END AS age_bucket,
       f.accepted_note, f.accepted_by,
       strftime('%Y-%m-%dT%H:%M:%fZ', f.accepted_at_ms / 1000.0, 'unixepoch') AS accepted_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', f.accepted_until_ms / 1000.0, 'unixepoch') AS accepted_until,
       f.acceptance_ended, f.records_json
FROM findings f
WHERE f.check_run_id = (SELECT MAX(check_run_id) FROM check_runs WHERE status = 'completed');
