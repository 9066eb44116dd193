-- Admin search that seeks (issue 31 §2): an FTS5 trigram index of users (name, e-mail) and of merchants (business
-- name and e-mail, the owner's name), kept in step by triggers in the transaction of every change. Each index is an
-- external-content FTS5 table over a table of search documents whose INTEGER PRIMARY KEY is the FTS rowid (stable
-- across VACUUM, unlike the implicit rowid of a table keyed by text). Documents hold the text lowered as SQLite's
-- lower() lowers it (ASCII), and the tokenizer is case-sensitive: a search is ASCII-case-insensitive, as the LIKE
-- it replaces was, whichever way the query runs.
CREATE TABLE `user_search_docs` (
	`doc` integer PRIMARY KEY,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_search_docs_user_unique` ON `user_search_docs` (`user_id`);
--> statement-breakpoint
CREATE VIRTUAL TABLE `user_search` USING fts5(name, email, content='user_search_docs', content_rowid='doc', tokenize='trigram case_sensitive 1');
--> statement-breakpoint
CREATE TRIGGER `user_search_docs_ai` AFTER INSERT ON `user_search_docs` BEGIN
	INSERT INTO `user_search`(rowid, name, email) VALUES (new.doc, new.name, new.email);
END;
--> statement-breakpoint
CREATE TRIGGER `user_search_docs_ad` AFTER DELETE ON `user_search_docs` BEGIN
	INSERT INTO `user_search`(`user_search`, rowid, name, email) VALUES ('delete', old.doc, old.name, old.email);
END;
--> statement-breakpoint
CREATE TRIGGER `user_search_docs_au` AFTER UPDATE ON `user_search_docs` BEGIN
	INSERT INTO `user_search`(`user_search`, rowid, name, email) VALUES ('delete', old.doc, old.name, old.email);
	INSERT INTO `user_search`(rowid, name, email) VALUES (new.doc, new.name, new.email);
END;
--> statement-breakpoint
CREATE TRIGGER `users_search_ai` AFTER INSERT ON `users` BEGIN
	INSERT INTO `user_search_docs`(user_id, name, email)
	VALUES (new.id, lower(trim(coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, ''))), lower(new.email));
END;
--> statement-breakpoint
CREATE TRIGGER `users_search_au` AFTER UPDATE OF first_name, last_name, email ON `users` BEGIN
	UPDATE `user_search_docs`
	SET name = lower(trim(coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, ''))), email = lower(new.email)
	WHERE user_id = new.id;
	UPDATE `merchant_search_docs`
	SET owner_name = lower(trim(coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, '')))
	WHERE merchant_id IN (SELECT id FROM `merchants` WHERE user_id = new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `users_search_ad` AFTER DELETE ON `users` BEGIN
	DELETE FROM `user_search_docs` WHERE user_id = old.id;
END;
--> statement-breakpoint
CREATE TABLE `merchant_search_docs` (
	`doc` integer PRIMARY KEY,
	`merchant_id` text NOT NULL,
	`business_name` text NOT NULL,
	`business_email` text NOT NULL,
	`owner_name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `merchant_search_docs_merchant_unique` ON `merchant_search_docs` (`merchant_id`);
--> statement-breakpoint
CREATE VIRTUAL TABLE `merchant_search` USING fts5(business_name, business_email, owner_name, content='merchant_search_docs', content_rowid='doc', tokenize='trigram case_sensitive 1');
--> statement-breakpoint
CREATE TRIGGER `merchant_search_docs_ai` AFTER INSERT ON `merchant_search_docs` BEGIN
	INSERT INTO `merchant_search`(rowid, business_name, business_email, owner_name) VALUES (new.doc, new.business_name, new.business_email, new.owner_name);
END;
--> statement-breakpoint
CREATE TRIGGER `merchant_search_docs_ad` AFTER DELETE ON `merchant_search_docs` BEGIN
	INSERT INTO `merchant_search`(`merchant_search`, rowid, business_name, business_email, owner_name) VALUES ('delete', old.doc, old.business_name, old.business_email, old.owner_name);
END;
--> statement-breakpoint
CREATE TRIGGER `merchant_search_docs_au` AFTER UPDATE ON `merchant_search_docs` BEGIN
	INSERT INTO `merchant_search`(`merchant_search`, rowid, business_name, business_email, owner_name) VALUES ('delete', old.doc, old.business_name, old.business_email, old.owner_name);
	INSERT INTO `merchant_search`(rowid, business_name, business_email, owner_name) VALUES (new.doc, new.business_name, new.business_email, new.owner_name);
END;
--> statement-breakpoint
CREATE TRIGGER `merchants_search_ai` AFTER INSERT ON `merchants` BEGIN
	INSERT INTO `merchant_search_docs`(merchant_id, business_name, business_email, owner_name)
	VALUES (new.id, lower(new.business_name), lower(coalesce(new.business_email, '')),
		coalesce((SELECT lower(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, ''))) FROM `users` u WHERE u.id = new.user_id), ''));
END;
--> statement-breakpoint
CREATE TRIGGER `merchants_search_au` AFTER UPDATE OF business_name, business_email, user_id ON `merchants` BEGIN
	UPDATE `merchant_search_docs`
	SET business_name = lower(new.business_name), business_email = lower(coalesce(new.business_email, '')),
		owner_name = coalesce((SELECT lower(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, ''))) FROM `users` u WHERE u.id = new.user_id), '')
	WHERE merchant_id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER `merchants_search_ad` AFTER DELETE ON `merchants` BEGIN
	DELETE FROM `merchant_search_docs` WHERE merchant_id = old.id;
END;
--> statement-breakpoint
INSERT INTO `user_search_docs`(user_id, name, email)
SELECT id, lower(trim(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))), lower(email) FROM `users`;
--> statement-breakpoint
INSERT INTO `merchant_search_docs`(merchant_id, business_name, business_email, owner_name)
SELECT m.id, lower(m.business_name), lower(coalesce(m.business_email, '')), lower(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')))
FROM `merchants` m JOIN `users` u ON u.id = m.user_id;
