DROP INDEX `books_files_version`;--> statement-breakpoint
CREATE INDEX `books_files_version` ON `books_files` (`kind`,`source`,`sha256`);