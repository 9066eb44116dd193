CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`seq` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_merchant_idx` ON `events` (`merchant_id`,`livemode`,`seq`);--> statement-breakpoint
CREATE TABLE `merchant_usage` (
	`merchant_id` text NOT NULL,
	`day` text NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`merchant_id`, `day`),
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `merchants` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`business_name` text NOT NULL,
	`business_email` text NOT NULL,
	`website` text,
	`platform_type` text NOT NULL,
	`environment` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`publishable_key` text NOT NULL,
	`secret_key_hash` text NOT NULL,
	`secret_key_last4` text NOT NULL,
	`secret_key_rolled_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `merchants_user_idx` ON `merchants` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_publishable_key_unique` ON `merchants` (`publishable_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_secret_key_hash_unique` ON `merchants` (`secret_key_hash`);--> statement-breakpoint
CREATE TABLE `payment_intents` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`capture_method` text NOT NULL,
	`description` text,
	`metadata` text NOT NULL,
	`client_secret` text NOT NULL,
	`bcard_id` text,
	`amount_capturable` integer DEFAULT 0 NOT NULL,
	`amount_received` integer DEFAULT 0 NOT NULL,
	`last_payment_error` text,
	`cancellation_reason` text,
	`canceled_at` integer,
	`seq` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "payment_intents_amount_check" CHECK("payment_intents"."amount" >= 50 AND "payment_intents"."amount" <= 99999999),
	CONSTRAINT "payment_intents_received_check" CHECK("payment_intents"."amount_received" >= 0 AND "payment_intents"."amount_received" <= "payment_intents"."amount")
);
--> statement-breakpoint
CREATE INDEX `payment_intents_merchant_idx` ON `payment_intents` (`merchant_id`,`livemode`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `payment_intents_bcard_unique` ON `payment_intents` (`bcard_id`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`at` integer NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`response_snippet` text,
	`error` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`locked_until` integer,
	`last_attempt_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_idx` ON `webhook_deliveries` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`enabled_events` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`status` text NOT NULL,
	`disabled_reason` text,
	`failing_since` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_merchant_idx` ON `webhook_endpoints` (`merchant_id`,`livemode`);