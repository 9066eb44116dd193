CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_key_idx` ON `login_failures` (`scope`,`key`,`at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`ip` text,
	`user_agent` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`email_normalized` text NOT NULL,
	`password_hash` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`phone_number` text,
	`profile_image_url` text,
	`country` text,
	`address_line1` text,
	`address_city` text,
	`address_state` text,
	`address_postal_code` text,
	`address_country` text,
	`role` text DEFAULT 'user' NOT NULL,
	`kyc_status` text DEFAULT 'unverified' NOT NULL,
	`totp_secret` text,
	`totp_pending_secret` text,
	`totp_last_step` integer,
	`login_notifications` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "users_role_check" CHECK("users"."role" IN ('user','merchant','admin')),
	CONSTRAINT "users_kyc_status_check" CHECK("users"."kyc_status" IN ('unverified','verified')),
	CONSTRAINT "users_state_check" CHECK("users"."address_state" IS NULL OR length("users"."address_state") = 2)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_normalized_unique` ON `users` (`email_normalized`);--> statement-breakpoint
CREATE INDEX `users_role_idx` ON `users` (`role`);--> statement-breakpoint
CREATE TABLE `subscription_tiers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`display_name` text NOT NULL,
	`monthly_price_cents` integer NOT NULL,
	`transaction_fee_bps` integer NOT NULL,
	`funding_sources_limit` integer NOT NULL,
	`monthly_transactions` integer NOT NULL,
	`bcard_generation_limit` integer NOT NULL,
	`api_calls_per_month` integer NOT NULL,
	`features` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "tiers_price_check" CHECK("subscription_tiers"."monthly_price_cents" >= 0),
	CONSTRAINT "tiers_fee_check" CHECK("subscription_tiers"."transaction_fee_bps" BETWEEN 0 AND 10000),
	CONSTRAINT "tiers_sources_check" CHECK("subscription_tiers"."funding_sources_limit" >= -1),
	CONSTRAINT "tiers_tx_check" CHECK("subscription_tiers"."monthly_transactions" >= -1),
	CONSTRAINT "tiers_bcard_check" CHECK("subscription_tiers"."bcard_generation_limit" >= -1),
	CONSTRAINT "tiers_api_check" CHECK("subscription_tiers"."api_calls_per_month" >= -1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscription_tiers_name_unique` ON `subscription_tiers` (`name`);--> statement-breakpoint
CREATE TABLE `user_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`tier_id` text NOT NULL,
	`status` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tier_id`) REFERENCES `subscription_tiers`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "user_subscriptions_status_check" CHECK("user_subscriptions"."status" IN ('active','ended'))
);
--> statement-breakpoint
CREATE INDEX `user_subscriptions_user_idx` ON `user_subscriptions` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `user_subscriptions_one_active` ON `user_subscriptions` (`user_id`) WHERE status = 'active';