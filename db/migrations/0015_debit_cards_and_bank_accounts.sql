CREATE TABLE `bank_debits` (
	`share_id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`user_id` text NOT NULL,
	`funding_source_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`vendor_debit_id` text NOT NULL,
	`status` text NOT NULL,
	`return_code` text,
	`return_message` text,
	`initiated_at` integer NOT NULL,
	`resolved_at` integer,
	FOREIGN KEY (`share_id`) REFERENCES `collection_shares`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "bank_debits_amount_check" CHECK("bank_debits"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE INDEX `bank_debits_status_idx` ON `bank_debits` (`status`,`initiated_at`);--> statement-breakpoint
CREATE INDEX `bank_debits_user_idx` ON `bank_debits` (`user_id`,`status`);--> statement-breakpoint
CREATE TABLE `sim_bank_accounts` (
	`token` text PRIMARY KEY NOT NULL,
	`behavior` text NOT NULL,
	`routing_number` text NOT NULL,
	`last4` text NOT NULL,
	`account_type` text NOT NULL,
	`status` text NOT NULL,
	`available_cents` integer NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "sim_bank_available_check" CHECK("sim_bank_accounts"."available_cents" >= 0)
);
--> statement-breakpoint
ALTER TABLE `funding_sources` ADD `card_funding` text;--> statement-breakpoint
ALTER TABLE `funding_sources` ADD `bank_routing_number` text;--> statement-breakpoint
ALTER TABLE `funding_sources` ADD `bank_account_type` text;--> statement-breakpoint
ALTER TABLE `funding_sources` ADD `bank_fingerprint` text;--> statement-breakpoint
ALTER TABLE `funding_sources` ADD `bank_verification_status` text;--> statement-breakpoint
ALTER TABLE `funding_sources` ADD `bank_verification_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `funding_sources` ADD `bank_verification_ref` text;--> statement-breakpoint
CREATE INDEX `funding_sources_bank_fingerprint_idx` ON `funding_sources` (`user_id`,`bank_fingerprint`);--> statement-breakpoint
ALTER TABLE `sim_cards` ADD `funding` text;