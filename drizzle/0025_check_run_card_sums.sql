CREATE TABLE `check_run_card_sums` (
	`check_run_id` integer NOT NULL,
	`chunk` integer NOT NULL,
	`cards` integer NOT NULL,
	`sums_base64` text NOT NULL,
	PRIMARY KEY(`check_run_id`, `chunk`)
);
