-- Spending figures kept as money moves (issue 31 §1). Analytics and the Overview read month totals instead of working
-- every bcard of a range out again. Three tables:
-- - spending_parts: what each spent or ended bcard adds, as rows keyed like the month totals it is counted in
--   (kind 'total' key ''; kind 'merchant' key the merchant; kind 'source' key the funding source, its part of the
--   spend by largest remainder), with the moment it is dated by (bcards.deactivated_at) and that moment's UTC month;
--   stored in the order reads want them (a user's parts by time: those near a month's edge are one range), and
--   found by bcard through an index for the refresh.
-- - spending_months: per user, kind, UTC month and key, the sum of the parts.
-- - spending_refresh: a bcard to work out again; always empty outside a statement.
-- The figures are THE definition of spending (api/src/modules/spending/service.ts, bcardsEnded) written once more in
-- SQL for the triggers: a test recomputes them through bcardsEnded after random histories and crashes and compares.
-- Every write that can change a bcard's figures (the bcard, its collection, its shares, its payment intent's
-- refunds, the card network's returns) queues the bcard in spending_refresh, in the same transaction, and the
-- refresh trigger takes its old parts out of the months, works its parts out again and adds them in. A refresh is
-- idempotent, so a bcard queued twice in one transaction is worked out twice and counted once.
CREATE TABLE `spending_parts` (
	`bcard_id` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`user_id` text NOT NULL,
	`at` integer NOT NULL,
	`month` integer NOT NULL,
	`charged` integer NOT NULL,
	`refunded` integer NOT NULL,
	`spent` integer NOT NULL,
	`fees` integer NOT NULL,
	`fees_returned` integer NOT NULL,
	`returned` integer NOT NULL,
	`held` integer NOT NULL,
	`purchases` integer NOT NULL,
	PRIMARY KEY (`user_id`, `at`, `bcard_id`, `kind`, `key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `spending_parts_bcard_idx` ON `spending_parts` (`bcard_id`);
--> statement-breakpoint
CREATE TABLE `spending_months` (
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`month` integer NOT NULL,
	`key` text NOT NULL,
	`charged` integer NOT NULL,
	`refunded` integer NOT NULL,
	`spent` integer NOT NULL,
	`fees` integer NOT NULL,
	`fees_returned` integer NOT NULL,
	`returned` integer NOT NULL,
	`held` integer NOT NULL,
	`purchases` integer NOT NULL,
	PRIMARY KEY (`user_id`, `kind`, `month`, `key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `spending_refresh` (
	`bcard_id` text NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `spending_refresh_ai` AFTER INSERT ON `spending_refresh` BEGIN
	-- 1. The bcard's old parts out of their months (a month row left at zero stays: a bcard's keys never change once it
	--    has ended, and readers skip a source or merchant with nothing in it).
	UPDATE `spending_months` SET
		charged = spending_months.charged - p.charged, refunded = spending_months.refunded - p.refunded,
		spent = spending_months.spent - p.spent, fees = spending_months.fees - p.fees,
		fees_returned = spending_months.fees_returned - p.fees_returned, returned = spending_months.returned - p.returned,
		held = spending_months.held - p.held, purchases = spending_months.purchases - p.purchases
	FROM `spending_parts` p
	WHERE p.bcard_id = new.bcard_id AND spending_months.user_id = p.user_id AND spending_months.kind = p.kind
		AND spending_months.month = p.month AND spending_months.key = p.key;
	DELETE FROM `spending_parts` WHERE bcard_id = new.bcard_id;
	-- 2. Its figures now (none unless spent or ended, and never a merchant's sandbox test card): bcardsEnded for one bcard.
	INSERT INTO `spending_parts` (bcard_id, kind, key, user_id, at, month, charged, refunded, spent, fees, fees_returned, returned, held, purchases)
	SELECT x.id, 'total', '', x.user_id, x.at,
		CAST(strftime('%Y', x.at / 1000, 'unixepoch') AS INTEGER) * 12 + CAST(strftime('%m', x.at / 1000, 'unixepoch') AS INTEGER) - 1,
		x.charged, x.merchant_refunded + x.issuer_returned, x.charged - x.merchant_refunded - x.issuer_returned, x.fee,
		CASE WHEN x.used THEN x.merchant_fee_back + CASE WHEN x.settling THEN 0 ELSE x.collection_refunded - x.remainder - x.issuer_returned END ELSE x.fee END,
		CASE WHEN x.settling THEN 0 ELSE x.remainder END,
		CASE WHEN x.settling THEN x.remainder ELSE 0 END,
		x.used
	FROM (
		SELECT b.id AS id, b.user_id AS user_id, b.deactivated_at AS at, (b.status = 'used') AS used,
			CASE WHEN b.status = 'used' THEN b.spent_cents ELSE 0 END AS charged,
			(SELECT coalesce(sum(r.amount), 0) FROM payment_intents pi CROSS JOIN refunds r ON r.payment_intent_id = pi.id AND +r.status = 'succeeded' WHERE pi.bcard_id = b.id) AS merchant_refunded,
			(SELECT coalesce(sum(r.fee_cents), 0) FROM payment_intents pi CROSS JOIN refunds r ON r.payment_intent_id = pi.id AND +r.status = 'succeeded' WHERE pi.bcard_id = b.id) AS merchant_fee_back,
			(SELECT coalesce(sum(a.returned_cents), 0) FROM issuer_authorizations a WHERE a.bcard_id = b.id AND +a.decision = 'approved') AS issuer_returned,
			c.fee_cents AS fee,
			c.refunded_cents AS collection_refunded,
			b.limit_cents - b.spent_cents AS remainder,
			(b.status = 'used' AND c.status = 'refunding') AS settling
		FROM bcards b CROSS JOIN collections c ON c.id = b.collection_id
		WHERE b.id = new.bcard_id AND b.deactivated_at IS NOT NULL AND b.status IN ('used', 'expired', 'canceled') AND b.sandbox = 0
		LIMIT 1 -- (one bcard; the limit keeps SQLite from flattening x, which would run each subquery once per use)
	) x;
	-- 3. A purchase's merchant, and each funding source's part of its spend: the net spend split over the shares by
	--    their amounts, largest remainder, ties to the earlier position (lib/split.ts allocate).
	INSERT INTO `spending_parts` (bcard_id, kind, key, user_id, at, month, charged, refunded, spent, fees, fees_returned, returned, held, purchases)
	SELECT t.bcard_id, 'merchant', coalesce(c.merchant, ''), t.user_id, t.at, t.month, t.charged, t.refunded, t.spent, 0, 0, 0, 0, 1
	FROM spending_parts t CROSS JOIN bcards b ON b.id = t.bcard_id CROSS JOIN collections c ON c.id = b.collection_id
	WHERE t.bcard_id = new.bcard_id AND t.kind = 'total' AND t.purchases = 1;
	INSERT INTO `spending_parts` (bcard_id, kind, key, user_id, at, month, charged, refunded, spent, fees, fees_returned, returned, held, purchases)
	SELECT q.bcard_id, 'source', q.source, q.user_id, q.at, q.month, 0, 0, sum(q.part), 0, 0, 0, 0, count(*)
	FROM (
		SELECT t.bcard_id AS bcard_id, t.user_id AS user_id, t.at AS at, t.month AS month, s.funding_source_id AS source,
			CASE WHEN t.spent > 0 THEN (t.spent * s.amount_cents) / w.total ELSE 0 END
				+ (row_number() OVER (ORDER BY CASE WHEN t.spent > 0 THEN (t.spent * s.amount_cents) % w.total ELSE 0 END DESC, s.position)
					<= t.spent - sum(CASE WHEN t.spent > 0 THEN (t.spent * s.amount_cents) / w.total ELSE 0 END) OVER ()) AS part
		FROM spending_parts t
			CROSS JOIN bcards b ON b.id = t.bcard_id
			CROSS JOIN (SELECT sum(x.amount_cents) AS total FROM bcards y CROSS JOIN collection_shares x ON x.collection_id = y.collection_id WHERE y.id = new.bcard_id) w
			CROSS JOIN collection_shares s ON s.collection_id = b.collection_id
		WHERE t.bcard_id = new.bcard_id AND t.kind = 'total' AND t.purchases = 1 AND w.total > 0
	) q
	GROUP BY q.source;
	-- 4. Its parts into their months.
	INSERT INTO `spending_months` (user_id, kind, month, key, charged, refunded, spent, fees, fees_returned, returned, held, purchases)
	SELECT user_id, kind, month, key, charged, refunded, spent, fees, fees_returned, returned, held, purchases
	FROM spending_parts WHERE bcard_id = new.bcard_id
	ON CONFLICT (user_id, kind, month, key) DO UPDATE SET
		charged = charged + excluded.charged, refunded = refunded + excluded.refunded, spent = spent + excluded.spent,
		fees = fees + excluded.fees, fees_returned = fees_returned + excluded.fees_returned, returned = returned + excluded.returned,
		held = held + excluded.held, purchases = purchases + excluded.purchases;
	DELETE FROM `spending_refresh` WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_bcards_ai` AFTER INSERT ON `bcards` WHEN new.deactivated_at IS NOT NULL BEGIN
	INSERT INTO `spending_refresh` (bcard_id) VALUES (new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `spending_bcards_au` AFTER UPDATE OF status, deactivated_at, spent_cents, limit_cents, sandbox, user_id, collection_id ON `bcards`
WHEN new.deactivated_at IS NOT NULL OR old.deactivated_at IS NOT NULL BEGIN
	INSERT INTO `spending_refresh` (bcard_id) VALUES (new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `spending_bcards_ad` AFTER DELETE ON `bcards` WHEN old.deactivated_at IS NOT NULL BEGIN
	INSERT INTO `spending_refresh` (bcard_id) VALUES (old.id);
END;
--> statement-breakpoint
CREATE TRIGGER `spending_collections_au` AFTER UPDATE OF fee_cents, refunded_cents, status, merchant ON `collections`
WHEN new.fee_cents IS NOT old.fee_cents OR new.refunded_cents IS NOT old.refunded_cents OR new.status IS NOT old.status OR new.merchant IS NOT old.merchant BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT id FROM bcards WHERE collection_id = new.id AND deactivated_at IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_shares_ai` AFTER INSERT ON `collection_shares` BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT id FROM bcards WHERE collection_id = new.collection_id AND deactivated_at IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_shares_au` AFTER UPDATE OF amount_cents, position, funding_source_id, collection_id ON `collection_shares`
WHEN new.amount_cents IS NOT old.amount_cents OR new.position IS NOT old.position OR new.funding_source_id IS NOT old.funding_source_id OR new.collection_id IS NOT old.collection_id BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT id FROM bcards WHERE collection_id IN (new.collection_id, old.collection_id) AND deactivated_at IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_shares_ad` AFTER DELETE ON `collection_shares` BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT id FROM bcards WHERE collection_id = old.collection_id AND deactivated_at IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_refunds_ai` AFTER INSERT ON `refunds` WHEN new.status = 'succeeded' BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT bcard_id FROM payment_intents WHERE id = new.payment_intent_id AND bcard_id IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_refunds_au` AFTER UPDATE OF status, amount, fee_cents, payment_intent_id ON `refunds`
WHEN (new.status = 'succeeded' OR old.status = 'succeeded')
	AND (new.status IS NOT old.status OR new.amount IS NOT old.amount OR new.fee_cents IS NOT old.fee_cents OR new.payment_intent_id IS NOT old.payment_intent_id) BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT bcard_id FROM payment_intents WHERE id IN (new.payment_intent_id, old.payment_intent_id) AND bcard_id IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_refunds_ad` AFTER DELETE ON `refunds` WHEN old.status = 'succeeded' BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT bcard_id FROM payment_intents WHERE id = old.payment_intent_id AND bcard_id IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_intents_au` AFTER UPDATE OF bcard_id ON `payment_intents`
WHEN new.bcard_id IS NOT old.bcard_id AND EXISTS (SELECT 1 FROM refunds WHERE payment_intent_id = new.id AND +status = 'succeeded') BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT DISTINCT value FROM json_each(json_array(new.bcard_id, old.bcard_id)) WHERE value IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_intents_ad` AFTER DELETE ON `payment_intents` WHEN old.bcard_id IS NOT NULL BEGIN
	INSERT INTO `spending_refresh` (bcard_id) VALUES (old.bcard_id);
END;
--> statement-breakpoint
CREATE TRIGGER `spending_issuer_ai` AFTER INSERT ON `issuer_authorizations` WHEN new.decision = 'approved' AND new.returned_cents <> 0 AND new.bcard_id IS NOT NULL BEGIN
	INSERT INTO `spending_refresh` (bcard_id) VALUES (new.bcard_id);
END;
--> statement-breakpoint
CREATE TRIGGER `spending_issuer_au` AFTER UPDATE OF returned_cents, decision, bcard_id ON `issuer_authorizations`
WHEN new.returned_cents IS NOT old.returned_cents OR new.decision IS NOT old.decision OR new.bcard_id IS NOT old.bcard_id BEGIN
	INSERT INTO `spending_refresh` (bcard_id) SELECT DISTINCT value FROM json_each(json_array(new.bcard_id, old.bcard_id)) WHERE value IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `spending_issuer_ad` AFTER DELETE ON `issuer_authorizations` WHEN old.decision = 'approved' AND old.returned_cents <> 0 AND old.bcard_id IS NOT NULL BEGIN
	INSERT INTO `spending_refresh` (bcard_id) VALUES (old.bcard_id);
END;
--> statement-breakpoint
-- History: every bcard spent or ended so far.
INSERT INTO `spending_refresh` (bcard_id) SELECT id FROM bcards WHERE deactivated_at IS NOT NULL;
