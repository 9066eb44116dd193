DROP INDEX `users_role_idx`;--> statement-breakpoint
DROP INDEX `users_created_idx`;--> statement-breakpoint
CREATE INDEX `users_role_idx` ON `users` (`role`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (`created_at`,`id`);--> statement-breakpoint
DROP INDEX `merchants_created_idx`;--> statement-breakpoint
DROP INDEX `merchants_environment_idx`;--> statement-breakpoint
CREATE INDEX `merchants_created_idx` ON `merchants` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `merchants_environment_idx` ON `merchants` (`environment`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `kyc_verifications_user_idx`;--> statement-breakpoint
DROP INDEX `kyc_verifications_status_idx`;--> statement-breakpoint
DROP INDEX `kyc_verifications_created_idx`;--> statement-breakpoint
CREATE INDEX `kyc_verifications_user_idx` ON `kyc_verifications` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_status_idx` ON `kyc_verifications` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_created_idx` ON `kyc_verifications` (`created_at`,`id`);