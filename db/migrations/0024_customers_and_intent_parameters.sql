CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`email` text,
	`name` text,
	`phone` text,
	`description` text,
	`metadata` text NOT NULL,
	`seq` integer NOT NULL,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `customers_merchant_idx` ON `customers` (`merchant_id`,`livemode`,`seq`);--> statement-breakpoint
CREATE INDEX `customers_email_idx` ON `customers` (`merchant_id`,`livemode`,`email`);--> statement-breakpoint
ALTER TABLE `payment_intents` ADD `customer_id` text;--> statement-breakpoint
ALTER TABLE `payment_intents` ADD `receipt_email` text;--> statement-breakpoint
ALTER TABLE `payment_intents` ADD `statement_descriptor` text;--> statement-breakpoint
ALTER TABLE `payment_intents` ADD `statement_descriptor_suffix` text;--> statement-breakpoint
ALTER TABLE `payment_intents` ADD `automatic_payment_methods` integer;