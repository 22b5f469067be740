CREATE TABLE `check_run_rereads` (
	`check_run_id` integer PRIMARY KEY NOT NULL,
	`rereads_json` text
);
