CREATE TABLE `finding_acceptance_history` (
	`history_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`fingerprint` text NOT NULL,
	`note` text NOT NULL,
	`accepted_at` text NOT NULL,
	`accepted_at_ms` integer NOT NULL,
	`accepted_by` text,
	`until` text,
	`until_ms` integer,
	`detail_sha256` text NOT NULL,
	`check_run_id` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `finding_acceptance_history_fingerprint` ON `finding_acceptance_history` (`fingerprint`,`accepted_at_ms`);--> statement-breakpoint
INSERT INTO finding_acceptance_history (fingerprint, note, accepted_at, accepted_at_ms, accepted_by, until, until_ms, detail_sha256, check_run_id) SELECT fingerprint, note, accepted_at, accepted_at_ms, accepted_by, until, until_ms, detail_sha256, check_run_id FROM finding_acceptances ORDER BY accepted_at_ms, fingerprint;
