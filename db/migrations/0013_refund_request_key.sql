ALTER TABLE `refunds` ADD `request_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `refunds_request_key_unique` ON `refunds` (`merchant_id`,`request_key`);