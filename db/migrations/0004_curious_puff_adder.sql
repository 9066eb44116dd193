CREATE TABLE `kyc_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`verification_id` text NOT NULL,
	`original_name` text NOT NULL,
	`content_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`storage_key` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`verification_id`) REFERENCES `kyc_verifications`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "kyc_documents_content_type_check" CHECK("kyc_documents"."content_type" IN ('image/jpeg','image/png','application/pdf')),
	CONSTRAINT "kyc_documents_size_check" CHECK("kyc_documents"."size_bytes" > 0 AND "kyc_documents"."size_bytes" <= 10485760)
);
--> statement-breakpoint
CREATE INDEX `kyc_documents_verification_idx` ON `kyc_documents` (`verification_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `kyc_documents_storage_key_unique` ON `kyc_documents` (`storage_key`);--> statement-breakpoint
CREATE TABLE `kyc_verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`verification_type` text NOT NULL,
	`document_type` text NOT NULL,
	`document_country` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`date_of_birth` text NOT NULL,
	`document_number` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`risk_score` integer,
	`error_message` text,
	`admin_notes` text,
	`reviewed_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "kyc_verifications_type_check" CHECK("kyc_verifications"."verification_type" IN ('identity_document','selfie','address')),
	CONSTRAINT "kyc_verifications_document_type_check" CHECK("kyc_verifications"."document_type" IN ('passport','driving_license','id_card')),
	CONSTRAINT "kyc_verifications_country_check" CHECK("kyc_verifications"."document_country" IN ('US','CA','UK','DE','FR','AU')),
	CONSTRAINT "kyc_verifications_status_check" CHECK("kyc_verifications"."status" IN ('pending','processing','verified','failed','requires_input')),
	CONSTRAINT "kyc_verifications_risk_check" CHECK("kyc_verifications"."risk_score" IS NULL OR ("kyc_verifications"."risk_score" >= 0 AND "kyc_verifications"."risk_score" <= 100))
);
--> statement-breakpoint
CREATE INDEX `kyc_verifications_user_idx` ON `kyc_verifications` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_status_idx` ON `kyc_verifications` (`status`,`created_at`);