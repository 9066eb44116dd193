CREATE TABLE `admin_sign_in_locks` (
	`username_normalized` text PRIMARY KEY NOT NULL,
	`failed_attempts` integer DEFAULT 0 NOT NULL,
	`locked_until` integer,
	`updated_at` integer NOT NULL,
	CONSTRAINT "admin_sign_in_locks_failed_check" CHECK("admin_sign_in_locks"."failed_attempts" >= 0)
);
--> statement-breakpoint
CREATE TABLE `admin_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`admin_id` text NOT NULL,
	`issued_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`admin_id`) REFERENCES `admins`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `admin_tokens_admin_idx` ON `admin_tokens` (`admin_id`);--> statement-breakpoint
CREATE INDEX `admin_tokens_expires_idx` ON `admin_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `admins` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`username_normalized` text NOT NULL,
	`password_hash` text NOT NULL,
	`totp_secret` text NOT NULL,
	`totp_last_step` integer,
	`created_at` integer NOT NULL,
	`last_login_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admins_username_normalized_unique` ON `admins` (`username_normalized`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`admin_id` text,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text,
	`before` text,
	`after` text,
	`ip` text,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_log_admin_idx` ON `audit_log` (`admin_id`,`at`);--> statement-breakpoint
CREATE TABLE `vendor_credentials` (
	`mode` text PRIMARY KEY NOT NULL,
	`provider` text DEFAULT 'stripe' NOT NULL,
	`publishable_key` text,
	`secret_key_sealed` text,
	`secret_last4` text,
	`webhook_secret_sealed` text,
	`webhook_last4` text,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	CONSTRAINT "vendor_credentials_mode_check" CHECK("vendor_credentials"."mode" IN ('test','live'))
);
--> statement-breakpoint
CREATE TABLE `vendor_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`mode` text DEFAULT 'test' NOT NULL,
	`features` text NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	CONSTRAINT "vendor_settings_singleton_check" CHECK("vendor_settings"."id" = 1),
	CONSTRAINT "vendor_settings_mode_check" CHECK("vendor_settings"."mode" IN ('test','live'))
);
