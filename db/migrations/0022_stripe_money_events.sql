CREATE TABLE `share_refund_failures` (
	`id` text PRIMARY KEY NOT NULL,
	`vendor_refund_id` text NOT NULL,
	`share_id` text NOT NULL,
	`collection_id` text NOT NULL,
	`user_id` text NOT NULL,
	`funding_source_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`failure_reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`share_id`) REFERENCES `collection_shares`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "share_refund_failures_amount_check" CHECK("share_refund_failures"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `share_refund_failures_refund_unique` ON `share_refund_failures` (`vendor_refund_id`);--> statement-breakpoint
CREATE INDEX `share_refund_failures_user_idx` ON `share_refund_failures` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `bank_debits` ADD `last_checked_at` integer;--> statement-breakpoint
CREATE INDEX `bank_debits_vendor_debit_idx` ON `bank_debits` (`vendor_debit_id`);