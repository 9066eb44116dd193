CREATE TABLE `email_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`kind` text NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`html_body` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `email_outbox_due_idx` ON `email_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `email_outbox_created_idx` ON `email_outbox` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `password_reset_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `password_reset_tokens_hash_unique` ON `password_reset_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `password_reset_tokens_user_idx` ON `password_reset_tokens` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `subscription_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`subscription_id` text,
	`tier_id` text NOT NULL,
	`funding_source_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`period_start` integer NOT NULL,
	`period_end` integer NOT NULL,
	`vendor` text NOT NULL,
	`vendor_charge_id` text,
	`failure_code` text,
	`failure_message` text,
	`idempotency_key` text NOT NULL,
	`lease_owner` text NOT NULL,
	`lease_until` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subscription_id`) REFERENCES `user_subscriptions`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`tier_id`) REFERENCES `subscription_tiers`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`funding_source_id`) REFERENCES `funding_sources`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "subscription_charges_amount_check" CHECK("subscription_charges"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscription_charges_key_unique` ON `subscription_charges` (`user_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `subscription_charges_user_idx` ON `subscription_charges` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `subscription_charges_status_idx` ON `subscription_charges` (`status`,`lease_until`);--> statement-breakpoint
CREATE INDEX `subscription_charges_paid_idx` ON `subscription_charges` (`status`,`created_at`);--> statement-breakpoint
ALTER TABLE `user_subscriptions` ADD `current_period_start` integer;--> statement-breakpoint
ALTER TABLE `user_subscriptions` ADD `current_period_end` integer;--> statement-breakpoint
ALTER TABLE `user_subscriptions` ADD `payment_source_id` text REFERENCES funding_sources(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `user_subscriptions` ADD `pending_tier_id` text REFERENCES subscription_tiers(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `user_subscriptions` ADD `past_due_since` integer;--> statement-breakpoint
ALTER TABLE `user_subscriptions` ADD `renewal_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `user_subscriptions` ADD `next_renewal_attempt_at` integer;--> statement-breakpoint
CREATE INDEX `user_subscriptions_renewal_idx` ON `user_subscriptions` (`status`,`current_period_end`);