DROP INDEX `users_role_idx`;--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (created_at DESC,`id`);--> statement-breakpoint
CREATE INDEX `users_role_idx` ON `users` (`role`,created_at DESC,`id`);--> statement-breakpoint
DROP INDEX `bcards_user_idx`;--> statement-breakpoint
CREATE INDEX `bcards_vendor_card_idx` ON `bcards` (`vendor_card_id`);--> statement-breakpoint
CREATE INDEX `bcards_user_idx` ON `bcards` (`user_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `collections_user_idx`;--> statement-breakpoint
CREATE INDEX `collections_user_idx` ON `collections` (`user_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `funding_sources_user_idx`;--> statement-breakpoint
CREATE INDEX `funding_sources_user_idx` ON `funding_sources` (`user_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `merchants_user_idx`;--> statement-breakpoint
ALTER TABLE `merchants` ADD `amount_received_total` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `merchants_created_idx` ON `merchants` (`created_at`);--> statement-breakpoint
CREATE INDEX `merchants_environment_idx` ON `merchants` (`environment`,`created_at`);--> statement-breakpoint
CREATE INDEX `merchants_user_idx` ON `merchants` (`user_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `webhook_endpoints_merchant_idx`;--> statement-breakpoint
CREATE INDEX `webhook_endpoints_merchant_idx` ON `webhook_endpoints` (`merchant_id`,`livemode`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `merchant_id` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `livemode` integer;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_merchant_idx` ON `webhook_deliveries` (`merchant_id`,`livemode`,`created_at`);--> statement-breakpoint
CREATE INDEX `user_subscriptions_tier_idx` ON `user_subscriptions` (`tier_id`,`status`);--> statement-breakpoint
CREATE INDEX `events_merchant_type_idx` ON `events` (`merchant_id`,`livemode`,`type`,`seq`);--> statement-breakpoint
CREATE INDEX `payment_intents_status_idx` ON `payment_intents` (`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_created_idx` ON `kyc_verifications` (`created_at`);--> statement-breakpoint
/* Hand-written backfill (issue 14): the merchants' running totals and the deliveries' merchant and mode, from the rows already there. */
UPDATE `merchants` SET `amount_received_total` = (SELECT coalesce(sum(`amount_received`), 0) FROM `payment_intents` WHERE `payment_intents`.`merchant_id` = `merchants`.`id`);--> statement-breakpoint
UPDATE `webhook_deliveries` SET (`merchant_id`, `livemode`) = (SELECT `merchant_id`, `livemode` FROM `webhook_endpoints` WHERE `webhook_endpoints`.`id` = `webhook_deliveries`.`endpoint_id`) WHERE `merchant_id` IS NULL;
