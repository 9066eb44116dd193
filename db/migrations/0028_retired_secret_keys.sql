CREATE TABLE `retired_secret_keys` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`replaced_at` integer,
	`stopped_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `retired_secret_keys_merchant_idx` ON `retired_secret_keys` (`merchant_id`);