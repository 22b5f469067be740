CREATE TABLE `population_leaves` (
	`gift_card_id` text PRIMARY KEY NOT NULL,
	`stamp` text NOT NULL,
	`sync_run_id` integer NOT NULL,
	`leaf` text NOT NULL
);
