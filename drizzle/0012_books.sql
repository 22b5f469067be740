CREATE TABLE `books_files` (
	`file_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`source` text NOT NULL,
	`path` text NOT NULL,
	`sha256` text NOT NULL,
	`imported_at_ms` integer NOT NULL,
	`rows_read` integer NOT NULL,
	`rows_added` integer NOT NULL,
	`rows_withdrawn` integer NOT NULL,
	`rows_rejected` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `books_files_version` ON `books_files` (`kind`,`source`,`sha256`);--> statement-breakpoint
CREATE TABLE `books_match_rows` (
	`group_id` integer NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`rule` text,
	`side` text NOT NULL,
	`record_id` text NOT NULL,
	`reference` text,
	`entry_type` text,
	`amount_cents` integer,
	`currency` text,
	`at_ms` integer,
	`books_count` integer,
	`service_count` integer,
	`matched_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `books_match_rows_group` ON `books_match_rows` (`group_id`);--> statement-breakpoint
CREATE INDEX `books_match_rows_status` ON `books_match_rows` (`status`,`kind`);--> statement-breakpoint
CREATE TABLE `books_rejections` (
	`rejection_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`file_id` integer NOT NULL,
	`line_no` integer NOT NULL,
	`reason` text NOT NULL,
	`raw` text
);
--> statement-breakpoint
CREATE TABLE `books_rows` (
	`row_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`source` text NOT NULL,
	`identity` text NOT NULL,
	`first_file_id` integer NOT NULL,
	`last_file_id` integer NOT NULL,
	`withdrawn_file_id` integer,
	`line_no` integer NOT NULL,
	`reference` text,
	`entry_type` text NOT NULL,
	`amount_cents` integer,
	`currency` text,
	`at_ms` integer NOT NULL,
	`at_text` text NOT NULL,
	`code_sha256` text,
	`gift_card_id` text,
	`external_ref` text,
	`raw_json` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `books_rows_identity` ON `books_rows` (`kind`,`source`,`identity`);--> statement-breakpoint
CREATE INDEX `books_rows_match` ON `books_rows` (`kind`,`withdrawn_file_id`,`reference`);--> statement-breakpoint
-- Every matched pair or group of the latest matching, books rows and service records side by side.
CREATE VIEW `books_matches` AS
SELECT m.group_id, m.kind, m.rule, m.side, m.record_id, m.reference, m.entry_type, m.currency, m.amount_cents, m.at_ms,
       b.source AS books_file, b.line_no AS books_line
FROM books_match_rows m LEFT JOIN books_rows b ON m.side = 'books' AND b.row_id = CAST(m.record_id AS INTEGER)
WHERE m.status = 'matched';
--> statement-breakpoint
-- Every record of the latest matching that found no partner, or matched only in part: why, and where it is.
CREATE VIEW `books_unmatched` AS
SELECT m.group_id, m.kind, m.status, m.side, m.record_id, m.reference, m.entry_type, m.currency, m.amount_cents, m.at_ms,
       m.books_count, m.service_count, b.source AS books_file, b.line_no AS books_line
FROM books_match_rows m LEFT JOIN books_rows b ON m.side = 'books' AND b.row_id = CAST(m.record_id AS INTEGER)
WHERE m.status <> 'matched';
