CREATE TABLE `receivable_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`funding_source_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text NOT NULL,
	`vendor` text NOT NULL,
	`vendor_hold_id` text,
	`failure_code` text,
	`failure_message` text,
	`idempotency_key` text NOT NULL,
	`lease_owner` text NOT NULL,
	`lease_until` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`funding_source_id`) REFERENCES `funding_sources`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "receivable_payments_amount_check" CHECK("receivable_payments"."amount_cents" > 0),
	CONSTRAINT "receivable_payments_status_check" CHECK("receivable_payments"."status" IN ('pending','succeeded','failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `receivable_payments_key_unique` ON `receivable_payments` (`user_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `receivable_payments_user_idx` ON `receivable_payments` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `receivable_payments_status_idx` ON `receivable_payments` (`status`,`lease_until`);--> statement-breakpoint
CREATE TABLE `receivable_waivers` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`admin_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "receivable_waivers_amount_check" CHECK("receivable_waivers"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE INDEX `receivable_waivers_user_idx` ON `receivable_waivers` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `share_disputes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`share_id` text NOT NULL,
	`collection_id` text NOT NULL,
	`vendor` text NOT NULL,
	`vendor_dispute_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`reason` text NOT NULL,
	`status` text NOT NULL,
	`vendor_status` text NOT NULL,
	`refunded_before_cents` integer DEFAULT 0 NOT NULL,
	`opened_at` integer NOT NULL,
	`closed_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`share_id`) REFERENCES `collection_shares`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "share_disputes_amount_check" CHECK("share_disputes"."amount_cents" > 0 AND "share_disputes"."refunded_before_cents" >= 0),
	CONSTRAINT "share_disputes_status_check" CHECK("share_disputes"."status" IN ('open','won','lost'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `share_disputes_vendor_unique` ON `share_disputes` (`vendor`,`vendor_dispute_id`);--> statement-breakpoint
CREATE INDEX `share_disputes_user_idx` ON `share_disputes` (`user_id`,`status`);--> statement-breakpoint
CREATE INDEX `share_disputes_share_idx` ON `share_disputes` (`share_id`);