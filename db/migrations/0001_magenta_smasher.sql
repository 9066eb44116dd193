CREATE TABLE `bcard_reveals` (
	`id` text PRIMARY KEY NOT NULL,
	`bcard_id` text NOT NULL,
	`user_id` text NOT NULL,
	`ip` text,
	`user_agent` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`bcard_id`) REFERENCES `bcards`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bcard_reveals_bcard_idx` ON `bcard_reveals` (`bcard_id`);--> statement-breakpoint
CREATE TABLE `bcards` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`collection_id` text NOT NULL,
	`name` text NOT NULL,
	`cardholder_name` text NOT NULL,
	`vendor` text NOT NULL,
	`vendor_card_id` text NOT NULL,
	`brand` text NOT NULL,
	`last4` text NOT NULL,
	`exp_month` integer NOT NULL,
	`exp_year` integer NOT NULL,
	`limit_cents` integer NOT NULL,
	`spent_cents` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`locked_merchant_id` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`deactivated_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "bcards_spent_check" CHECK("bcards"."spent_cents" >= 0 AND "bcards"."spent_cents" <= "bcards"."limit_cents"),
	CONSTRAINT "bcards_limit_check" CHECK("bcards"."limit_cents" > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bcards_collection_unique` ON `bcards` (`collection_id`);--> statement-breakpoint
CREATE INDEX `bcards_user_idx` ON `bcards` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `bcards_status_idx` ON `bcards` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `card_verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`vendor` text NOT NULL,
	`challenge_id` text NOT NULL,
	`pending` text NOT NULL,
	`status` text NOT NULL,
	`funding_source_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `collection_shares` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`funding_source_id` text NOT NULL,
	`position` integer NOT NULL,
	`percentage_bps` integer NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text NOT NULL,
	`vendor_hold_id` text,
	`decline_code` text,
	`decline_message` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`funding_source_id`) REFERENCES `funding_sources`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "collection_shares_amount_check" CHECK("collection_shares"."amount_cents" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collection_shares_source_unique` ON `collection_shares` (`collection_id`,`funding_source_id`);--> statement-breakpoint
CREATE INDEX `collection_shares_source_idx` ON `collection_shares` (`funding_source_id`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`fee_cents` integer NOT NULL,
	`total_cents` integer NOT NULL,
	`currency` text DEFAULT 'usd' NOT NULL,
	`name` text NOT NULL,
	`cardholder_name` text NOT NULL,
	`merchant` text,
	`description` text,
	`vendor` text NOT NULL,
	`idempotency_key` text,
	`failure_code` text,
	`failure_message` text,
	`failure_details` text,
	`refunded_cents` integer DEFAULT 0 NOT NULL,
	`lease_owner` text NOT NULL,
	`lease_until` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "collections_refund_check" CHECK("collections"."refunded_cents" >= 0 AND "collections"."refunded_cents" <= "collections"."total_cents"),
	CONSTRAINT "collections_amount_check" CHECK("collections"."amount_cents" > 0 AND "collections"."fee_cents" >= 0),
	CONSTRAINT "collections_total_check" CHECK("collections"."total_cents" = "collections"."amount_cents" + "collections"."fee_cents")
);
--> statement-breakpoint
CREATE INDEX `collections_user_idx` ON `collections` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `collections_status_idx` ON `collections` (`status`,`lease_until`);--> statement-breakpoint
CREATE UNIQUE INDEX `collections_idempotency_unique` ON `collections` (`user_id`,`idempotency_key`);--> statement-breakpoint
CREATE TABLE `funding_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`brand` text NOT NULL,
	`last4` text NOT NULL,
	`exp_month` integer NOT NULL,
	`exp_year` integer NOT NULL,
	`vendor` text NOT NULL,
	`vendor_token` text NOT NULL,
	`default_split_bps` integer NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "funding_sources_split_check" CHECK("funding_sources"."default_split_bps" BETWEEN 0 AND 10000),
	CONSTRAINT "funding_sources_month_check" CHECK("funding_sources"."exp_month" BETWEEN 1 AND 12),
	CONSTRAINT "funding_sources_last4_check" CHECK(length("funding_sources"."last4") = 4)
);
--> statement-breakpoint
CREATE INDEX `funding_sources_user_idx` ON `funding_sources` (`user_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`field_digests` text NOT NULL,
	`status` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`locked_until` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `idempotency_scope_key_unique` ON `idempotency_keys` (`scope`,`key`);--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `ledger_movements` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`reference_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_movements_kind_ref_unique` ON `ledger_movements` (`kind`,`reference_id`);--> statement-breakpoint
CREATE TABLE `ledger_postings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`movement_id` text NOT NULL,
	`account` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text DEFAULT 'usd' NOT NULL,
	FOREIGN KEY (`movement_id`) REFERENCES `ledger_movements`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `ledger_postings_account_idx` ON `ledger_postings` (`account`);--> statement-breakpoint
CREATE INDEX `ledger_postings_movement_idx` ON `ledger_postings` (`movement_id`);--> statement-breakpoint
CREATE TABLE `sim_cards` (
	`token` text PRIMARY KEY NOT NULL,
	`behavior` text NOT NULL,
	`brand` text NOT NULL,
	`last4` text NOT NULL,
	`exp_month` integer NOT NULL,
	`exp_year` integer NOT NULL,
	`available_cents` integer NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "sim_cards_available_check" CHECK("sim_cards"."available_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE `sim_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`token` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sim_holds` (
	`id` text PRIMARY KEY NOT NULL,
	`idempotency_key` text NOT NULL,
	`token` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`refunded_cents` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "sim_holds_refund_check" CHECK("sim_holds"."refunded_cents" >= 0 AND "sim_holds"."refunded_cents" <= "sim_holds"."amount_cents")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sim_holds_idempotency_unique` ON `sim_holds` (`idempotency_key`);--> statement-breakpoint
CREATE TABLE `sim_issued_cards` (
	`id` text PRIMARY KEY NOT NULL,
	`idempotency_key` text NOT NULL,
	`number_fingerprint` text NOT NULL,
	`number_nonce` integer DEFAULT 0 NOT NULL,
	`last4` text NOT NULL,
	`exp_month` integer NOT NULL,
	`exp_year` integer NOT NULL,
	`limit_cents` integer NOT NULL,
	`spent_cents` integer DEFAULT 0 NOT NULL,
	`single_use` integer NOT NULL,
	`status` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "sim_issued_spent_check" CHECK("sim_issued_cards"."spent_cents" >= 0 AND "sim_issued_cards"."spent_cents" <= "sim_issued_cards"."limit_cents")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sim_issued_idempotency_unique` ON `sim_issued_cards` (`idempotency_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `sim_issued_fingerprint_unique` ON `sim_issued_cards` (`number_fingerprint`);--> statement-breakpoint
CREATE INDEX `sim_issued_status_idx` ON `sim_issued_cards` (`status`);--> statement-breakpoint
CREATE TABLE `sim_refunds` (
	`idempotency_key` text PRIMARY KEY NOT NULL,
	`hold_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "sim_refunds_amount_check" CHECK("sim_refunds"."amount_cents" > 0)
);
