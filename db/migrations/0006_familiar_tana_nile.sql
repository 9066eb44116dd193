CREATE TABLE `event_broadcasts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merchant_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`event_id` text NOT NULL,
	`reason` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_broadcasts_merchant_idx` ON `event_broadcasts` (`merchant_id`,`livemode`,`seq`);--> statement-breakpoint
CREATE INDEX `event_broadcasts_at_idx` ON `event_broadcasts` (`at`);--> statement-breakpoint
ALTER TABLE `bcards` ADD `sandbox` integer DEFAULT false NOT NULL;