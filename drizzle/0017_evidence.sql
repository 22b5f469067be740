CREATE TABLE `evidence_manifests` (
	`sequence` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`digest` text NOT NULL,
	`previous_digest` text,
	`manifest_json` text NOT NULL,
	`written_at_ms` integer NOT NULL
);
