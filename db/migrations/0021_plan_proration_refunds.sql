CREATE TABLE `plan_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`charge_id` text NOT NULL,
	`funding_source_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text NOT NULL,
	`vendor` text NOT NULL,
	`vendor_refund_id` text,
	`from_tier_id` text NOT NULL,
	`to_tier_id` text NOT NULL,
	`unused_from` integer NOT NULL,
	`unused_to` integer NOT NULL,
	`admin_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`failure_message` text,
	`lease_owner` text NOT NULL,
	`lease_until` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`charge_id`) REFERENCES `subscription_charges`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`funding_source_id`) REFERENCES `funding_sources`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`from_tier_id`) REFERENCES `subscription_tiers`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`to_tier_id`) REFERENCES `subscription_tiers`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "plan_refunds_amount_check" CHECK("plan_refunds"."amount_cents" > 0),
	CONSTRAINT "plan_refunds_status_check" CHECK("plan_refunds"."status" IN ('pending','succeeded','failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `plan_refunds_key_unique` ON `plan_refunds` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `plan_refunds_charge_idx` ON `plan_refunds` (`charge_id`);--> statement-breakpoint
CREATE INDEX `plan_refunds_status_idx` ON `plan_refunds` (`status`,`lease_until`);--> statement-breakpoint
ALTER TABLE `subscription_charges` ADD `list_price_cents` integer;--> statement-breakpoint
ALTER TABLE `subscription_charges` ADD `credit_cents` integer;--> statement-breakpoint
ALTER TABLE `subscription_charges` ADD `credit_tier_id` text REFERENCES subscription_tiers(id);