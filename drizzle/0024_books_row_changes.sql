CREATE TABLE `books_row_changes` (
	`change_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`row_id` integer NOT NULL,
	`file_id` integer NOT NULL,
	`withdrawn_file_id` integer
);
--> statement-breakpoint
CREATE INDEX `books_row_changes_row` ON `books_row_changes` (`row_id`,`file_id`);--> statement-breakpoint
-- A books row's withdrawal before a version of its file changes it (withdraws the row, or brings
-- it back): whether a past night's matching read the row (books/store-past.ts). The version
-- making the change is the one withdrawing the row, or the one now holding it.
CREATE TRIGGER `books_rows_withdrawals` AFTER UPDATE OF `withdrawn_file_id` ON `books_rows`
FOR EACH ROW WHEN OLD.`withdrawn_file_id` IS NOT NEW.`withdrawn_file_id`
BEGIN
  INSERT INTO `books_row_changes` (`row_id`, `file_id`, `withdrawn_file_id`)
  VALUES (OLD.`row_id`, COALESCE(NEW.`withdrawn_file_id`, NEW.`last_file_id`), OLD.`withdrawn_file_id`);
END;
