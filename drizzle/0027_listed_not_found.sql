CREATE TABLE `listed_not_found` (
	`sync_run_id` integer NOT NULL,
	`gift_card_id` text NOT NULL,
	PRIMARY KEY(`sync_run_id`, `gift_card_id`)
);
