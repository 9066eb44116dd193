CREATE TABLE `email_change_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`old_email` text NOT NULL,
	`new_email` text NOT NULL,
	`new_email_normalized` text NOT NULL,
	`token_hash` text NOT NULL,
	`revert_token_hash` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`confirmed_at` integer,
	`canceled_at` integer,
	`revert_expires_at` integer,
	`reverted_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_change_requests_token_unique` ON `email_change_requests` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `email_change_requests_revert_unique` ON `email_change_requests` (`revert_token_hash`);--> statement-breakpoint
CREATE INDEX `email_change_requests_user_idx` ON `email_change_requests` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`params` text NOT NULL,
	`link` text,
	`created_at` integer NOT NULL,
	`read_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_id_unique` ON `notifications` (`id`);--> statement-breakpoint
CREATE INDEX `notifications_user_idx` ON `notifications` (`user_id`,`seq`);--> statement-breakpoint
CREATE INDEX `notifications_unread_idx` ON `notifications` (`user_id`) WHERE read_at IS NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `language` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notice_email_prefs` text DEFAULT '{}' NOT NULL;