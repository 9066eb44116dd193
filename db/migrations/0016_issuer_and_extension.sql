CREATE TABLE `extension_pairings` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`label` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`token_id` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `extension_pairings_user_idx` ON `extension_pairings` (`user_id`);--> statement-breakpoint
CREATE TABLE `extension_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`label` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `extension_tokens_hash_unique` ON `extension_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `extension_tokens_user_idx` ON `extension_tokens` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `issuer_authorizations` (
	`id` text PRIMARY KEY NOT NULL,
	`network` text NOT NULL,
	`network_ref` text NOT NULL,
	`bcard_id` text,
	`user_id` text,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`merchant_name` text NOT NULL,
	`merchant_city` text,
	`merchant_category` text,
	`merchant_domain` text,
	`decision` text NOT NULL,
	`decline_reason` text,
	`captured_cents` integer DEFAULT 0 NOT NULL,
	`returned_cents` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "issuer_authorizations_amount_check" CHECK("issuer_authorizations"."amount_cents" >= 0),
	CONSTRAINT "issuer_authorizations_returned_check" CHECK("issuer_authorizations"."returned_cents" >= 0 AND "issuer_authorizations"."captured_cents" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `issuer_authorizations_ref_unique` ON `issuer_authorizations` (`network`,`network_ref`);--> statement-breakpoint
CREATE INDEX `issuer_authorizations_bcard_idx` ON `issuer_authorizations` (`bcard_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `bcards` ADD `locked_domain` text;--> statement-breakpoint
ALTER TABLE `bcards` ADD `bad_auth_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `bcards` ADD `closed_reason` text;--> statement-breakpoint
ALTER TABLE `bcards` ADD `extension_token_id` text;--> statement-breakpoint
ALTER TABLE `collections` ADD `locked_domain` text;--> statement-breakpoint
ALTER TABLE `collections` ADD `extension_token_id` text;