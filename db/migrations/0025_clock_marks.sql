CREATE TABLE `clock_marks` (
	`id` text PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL
);
