DROP INDEX `books_rows_identity`;--> statement-breakpoint
DROP INDEX `books_rows_match`;--> statement-breakpoint
CREATE UNIQUE INDEX `books_rows_identity_key` ON `books_rows` (`identity`);