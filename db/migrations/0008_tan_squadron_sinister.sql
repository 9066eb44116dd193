CREATE TABLE `throttle_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`at` integer NOT NULL,
	`weight` integer DEFAULT 1 NOT NULL,
	CONSTRAINT "throttle_events_weight_positive" CHECK("throttle_events"."weight" > 0)
);
--> statement-breakpoint
CREATE INDEX `throttle_events_key_idx` ON `throttle_events` (`scope`,`key`,`at`);--> statement-breakpoint
CREATE INDEX `throttle_events_at_idx` ON `throttle_events` (`at`);