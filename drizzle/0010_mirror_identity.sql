CREATE TABLE `mirror_identity` (
	`identity_id` integer PRIMARY KEY NOT NULL,
	`giftcard_base_url` text NOT NULL,
	`giftcard_client_id` text NOT NULL,
	`dp_base_url` text NOT NULL,
	`dp_client_id` text NOT NULL,
	`bound_at` text NOT NULL
);
