CREATE TABLE `quarantine_sightings` (
	`quarantine_id` integer NOT NULL,
	`sync_run_id` integer NOT NULL,
	PRIMARY KEY(`sync_run_id`, `quarantine_id`)
);
--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `sightings_kept` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `rebound` integer DEFAULT false NOT NULL;