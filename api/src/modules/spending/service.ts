import { sql, type SQL } from 'drizzle-orm';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { allocate } from '../../lib/split';

/*
 * THE definition of spending (issue 25, item 1). Overview (Total Spent, This Month, the other figures), Analytics
 * (headline, months, charts, CSV, merchants, sources) and Recent Activity all read it (the first two through the
 * figures kept from it as money moves, kept.ts); nothing else sums money "spent".
 *
 * What the figures are (cents; merchants' sandbox test bcards never count, nor other users' rows):
 * - charged: what merchants charged the user's bcards: bcards.spent_cents of the used ones. Every way a bcard is spent
 *   goes through spendBcard: a bpay merchant's payment intent, a shop outside bpay through the card network
 *   (issuer_authorizations), the payment demo and checkout widget (collections kind 'purchase').
 * - refunded: what merchants gave back of it: succeeded refunds of the payment intents those bcards paid (the
 *   purchase part, refunds.amount), and the issuer-side returns after an approval (a reversal, a capture for less, a
 *   shop's refund: issuer_authorizations.returned_cents).
 * - spent = charged - refunded. This is "spending": "Spent at merchants" on every screen.
 * - held on bcards: money collected onto bcards and not (yet) spent or returned: the whole amount of a live bcard
 *   (active, authorized, or expiring/canceling while its money goes back), and what a purchase left on a used bcard
 *   while that remainder is still on its way back (its collection still refunding, e.g. a bank debit settling).
 *   A figure of now, not of a month.
 * - returned: money collected onto a bcard and never spent, once back with its sources: an unused bcard that expired
 *   or was canceled (its amount; a bank debit returned by the bank before use counts here too: the bcard was canceled
 *   and nothing was taken), and what a purchase left on its bcard. Purchase part only; the fee's part is in feesReturned.
 * - fees: bpay's fee (collections.fee_cents) of the bcards counted; feesReturned: the fee that came back (all of it
 *   when a bcard ended unused; with a merchant's refund, refunds.fee_cents; with an issuer-side return or a
 *   remainder, the rest of what collections.refunded_cents holds beyond the purchase parts). Shown apart: never in spent.
 * - plan charges: succeeded subscription_charges (the plan's price), shown apart, never mixed into spent.
 *
 * How each figure is dated (one rule, used everywhere): a bcard's figures are dated by the moment it was spent or
 * ended, bcards.deactivated_at (set in the transaction that spends it, or that returns an unused one). A refund or
 * return that comes later is dated with that purchase, not on its own date, so a month's figure is what that
 * month's purchases finally cost (a refund in March of a January purchase lowers January). The fee goes with its
 * bcard too: until a bcard is spent or ends, its fee is provisional (it comes back in full if the card ends unused)
 * and is counted in no month. A plan charge is dated when it was made (subscription_charges.created_at).
 * Months are taken at the viewer's UTC offset (analytics) or from the viewer's month start (the Overview).
 *
 * Cost: every statement starts from the owner's rows of bcards_user_deactivated_idx (user_id, deactivated_at): a
 * range of it for a month, the NULL range for the live bcards; each bcard's refunds and returns are found from it by
 * unique or per-bcard indexes (payment_intents_bcard_unique, refunds_intent_idx, issuer_authorizations_bcard_idx).
 * Columns that are no index key are written +x so SQLite never starts from, say, every 'used' bcard of the
 * platform (bcards_status_idx) or every succeeded refund (refunds_status_idx). Analytics and the Overview do not run it:
 * they read the same figures kept as money moves (kept.ts; migration 0031 holds this definition once more, in SQL, and
 * a test holds the two together). Recent Activity runs it for its last few bcards.
 */

const money = (c: number) => formatDecimal(c as Cents);
const num = (v: unknown) => Number(v ?? 0);

/** Open-ended ranges: far past and far future in epoch milliseconds. */
export const ALL_TIME = { fromMs: 0, toMs: 8.64e15 } as const;

/**
 * The owner's bcards that were spent or ended in [fromMs, toMs), one row each: the raw amounts. Read through
 * `bcardsEnded`, which works the figures out of them.
 */
function endedRaw(userId: string, fromMs: number, toMs: number, tail: SQL = sql``): SQL {
  return sql`SELECT b.id AS id, c.id AS collection_id, coalesce(c.merchant, '') AS merchant, c.name AS name, b.deactivated_at AS at,
      (+b.status = 'used') AS used,
      CASE WHEN +b.status = 'used' THEN b.spent_cents ELSE 0 END AS charged,
      (SELECT coalesce(sum(r.amount), 0) FROM payment_intents pi CROSS JOIN refunds r ON r.payment_intent_id = pi.id AND +r.status = 'succeeded' WHERE pi.bcard_id = b.id) AS merchant_refunded,
      (SELECT coalesce(sum(r.fee_cents), 0) FROM payment_intents pi CROSS JOIN refunds r ON r.payment_intent_id = pi.id AND +r.status = 'succeeded' WHERE pi.bcard_id = b.id) AS merchant_fee_back,
      (SELECT coalesce(sum(a.returned_cents), 0) FROM issuer_authorizations a WHERE a.bcard_id = b.id AND +a.decision = 'approved') AS issuer_returned,
      c.fee_cents AS fee,
      c.refunded_cents AS collection_refunded,
      b.limit_cents - b.spent_cents AS remainder,
      (+b.status = 'used' AND c.status = 'refunding') AS settling
    FROM bcards b CROSS JOIN collections c ON c.id = b.collection_id
    WHERE b.user_id = ${userId} AND b.deactivated_at >= ${fromMs} AND b.deactivated_at < ${toMs}
      AND +b.status IN ('used', 'expired', 'canceled') AND +b.sandbox = 0 ${tail}`;
}

/**
 * The owner's bcards spent or ended in [fromMs, toMs), one row each with its figures (the header's definitions, in
 * SQL once): id, collection_id, merchant, name, at, used (0/1), charged, refunded, spent, fees, fees_returned,
 * returned, held. `tail` may order and limit the bcards (ORDER BY b.deactivated_at DESC LIMIT n: the index's order, no sort).
 */
export function bcardsEnded(userId: string, fromMs: number, toMs: number, tail?: SQL): SQL {
  // Unused and ended: everything came back, fee included. Used: a merchant's refund returned its fee part
  // (refunds.fee_cents); what the collection's refunded_cents holds beyond the remainder and the issuer-side returns
  // is their fee part. A used bcard's remainder is held until its collection has settled it, then returned.
  return sql`SELECT x.id, x.collection_id, x.merchant, x.name, x.at, x.used, x.charged,
      x.merchant_refunded + x.issuer_returned AS refunded,
      x.charged - x.merchant_refunded - x.issuer_returned AS spent,
      x.fee AS fees,
      CASE WHEN x.used THEN x.merchant_fee_back + CASE WHEN x.settling THEN 0 ELSE x.collection_refunded - x.remainder - x.issuer_returned END ELSE x.fee END AS fees_returned,
      CASE WHEN x.settling THEN 0 ELSE x.remainder END AS returned,
      CASE WHEN x.settling THEN x.remainder ELSE 0 END AS held
    FROM (${endedRaw(userId, fromMs, toMs, tail)}) x`;
}

/** One ended bcard's figures, in cents. */
export interface BcardFigures {
  id: string;
  collectionId: string;
  merchant: string;
  name: string;
  at: number;
  used: boolean;
  charged: number;
  refunded: number;
  /** charged - refunded. */
  spent: number;
  fees: number;
  feesReturned: number;
  returned: number;
  /** What a used bcard left on it that is still on its way back. */
  held: number;
}

/** A row of bcardsEnded. */
export function bcardFigures(r: Record<string, unknown>): BcardFigures {
  return {
    id: String(r.id),
    collectionId: String(r.collection_id),
    merchant: String(r.merchant ?? ''),
    name: String(r.name ?? ''),
    at: num(r.at),
    used: num(r.used) === 1,
    charged: num(r.charged),
    refunded: num(r.refunded),
    spent: num(r.spent),
    fees: num(r.fees),
    feesReturned: num(r.fees_returned),
    returned: num(r.returned),
    held: num(r.held),
  };
}

/** The owner's succeeded plan charges made in [fromMs, toMs), as one row (n, x). */
export function planChargesIn(userId: string, fromMs: number, toMs: number): SQL {
  return sql`SELECT count(*) AS n, coalesce(sum(p.amount_cents), 0) AS x FROM subscription_charges p
    WHERE p.user_id = ${userId} AND p.created_at >= ${fromMs} AND p.created_at < ${toMs} AND +p.status = 'succeeded'`;
}

/**
 * Money on the owner's live bcards (deactivated_at NULL: active, authorized, expiring, canceling), as one row (n, x,
 * and `active`: how many of them are active; an active bcard is always live).
 */
export function liveBcards(userId: string): SQL {
  return sql`SELECT count(*) AS n, coalesce(sum(b.limit_cents - b.spent_cents), 0) AS x, coalesce(sum(+b.status = 'active'), 0) AS active FROM bcards b
    WHERE b.user_id = ${userId} AND b.deactivated_at IS NULL AND +b.sandbox = 0`;
}

/** The figures of a set of bcards and plan charges, in cents. */
export interface SpendingFigures {
  charged: number;
  refunded: number;
  spent: number;
  fees: number;
  feesReturned: number;
  returned: number;
  planCharges: number;
  /** Bcards spent at a merchant. */
  purchases: number;
  planChargeCount: number;
}

export const zeroFigures = (): SpendingFigures => ({
  charged: 0,
  refunded: 0,
  spent: 0,
  fees: 0,
  feesReturned: 0,
  returned: 0,
  planCharges: 0,
  purchases: 0,
  planChargeCount: 0,
});

/** Adds one bcard's figures into a sum. */
export function addBcard(sum: SpendingFigures, b: BcardFigures): void {
  sum.charged += b.charged;
  sum.refunded += b.refunded;
  sum.spent += b.spent;
  sum.fees += b.fees;
  sum.feesReturned += b.feesReturned;
  sum.returned += b.returned;
  if (b.used) sum.purchases += 1;
}

export function addFigures(sum: SpendingFigures, x: SpendingFigures): void {
  for (const k of Object.keys(sum) as Array<keyof SpendingFigures>) sum[k] += x[k];
}

/** A source's part of each spend: the bcard's net spend split over its shares by their amounts (largest remainder). */
export function spendBySource(
  bcards: BcardFigures[],
  shares: Array<{ bcardId: string; fundingSourceId: string; amountCents: number; position: number }>,
): Map<string, { spent: number; purchases: number }> {
  const byBcard = new Map<string, typeof shares>();
  for (const s of shares) {
    const list = byBcard.get(s.bcardId) ?? [];
    list.push(s);
    byBcard.set(s.bcardId, list);
  }
  const out = new Map<string, { spent: number; purchases: number }>();
  for (const b of bcards) {
    if (!b.used) continue;
    const list = (byBcard.get(b.id) ?? []).sort((x, y) => x.position - y.position);
    if (list.length === 0 || list.every((s) => s.amountCents === 0)) continue;
    const parts = b.spent > 0 ? allocate(b.spent, list.map((s) => s.amountCents)) : list.map(() => 0);
    list.forEach((s, i) => {
      const t = out.get(s.fundingSourceId) ?? { spent: 0, purchases: 0 };
      t.spent += parts[i] ?? 0;
      t.purchases += 1;
      out.set(s.fundingSourceId, t);
    });
  }
  return out;
}

/** The figures as the API answers them (dollars). */
export function figuresView(f: SpendingFigures) {
  return {
    charged: money(f.charged),
    refunded: money(f.refunded),
    spent: money(f.spent),
    fees: money(f.fees),
    feesReturned: money(f.feesReturned),
    returned: money(f.returned),
    planCharges: money(f.planCharges),
    purchases: f.purchases,
  };
}
export type FiguresView = ReturnType<typeof figuresView>;

export type ActivityKind = 'purchase' | 'returned' | 'plan_charge';

export interface ActivityItem {
  kind: ActivityKind;
  /** The transaction (collection) for bcards, the plan charge's id for plan charges. */
  id: string;
  at: string;
  /** The merchant (purchase), the bcard's name (returned) or the plan's name (plan_charge). */
  title: string;
  /** purchase: charged - refunded; returned: what came back (fee included); plan_charge: the price. */
  amount: string;
  /** purchase: what the merchant charged; otherwise the amount. */
  charged: string;
  /** purchase: what merchants refunded of it; otherwise 0.00. */
  refunded: string;
  /** The transaction to open (bcards); null for plan charges. */
  transactionId: string | null;
}

export const MAX_ACTIVITY = 20;

/**
 * The owner's latest spending events, newest first: purchases (dated by the spend, refunds with them), unused bcards
 * whose money came back, and plan charges. Each walks its index backwards and stops after `limit` rows.
 */
export async function recentActivity(deps: AppDeps, userId: string, limit: number): Promise<ActivityItem[]> {
  const rows = await deps.db.all<Record<string, unknown>>(
    bcardsEnded(userId, ALL_TIME.fromMs, ALL_TIME.toMs, sql`ORDER BY b.deactivated_at DESC LIMIT ${limit}`),
  );
  const plans = await deps.db.all<Record<string, unknown>>(sql`SELECT p.id, p.amount_cents, p.created_at, t.display_name
    FROM subscription_charges p CROSS JOIN subscription_tiers t ON t.id = p.tier_id
    WHERE p.user_id = ${userId} AND +p.status = 'succeeded' ORDER BY p.created_at DESC, p.id DESC LIMIT ${limit}`);
  const items: Array<ActivityItem & { ms: number }> = [];
  for (const r of rows) {
    const b = bcardFigures(r);
    const back = b.returned + (b.used ? 0 : b.feesReturned);
    items.push({
      kind: b.used ? 'purchase' : 'returned',
      id: b.collectionId,
      ms: b.at,
      at: new Date(b.at).toISOString(),
      title: b.used ? b.merchant : b.name,
      amount: money(b.used ? b.spent : back),
      charged: money(b.used ? b.charged : back),
      refunded: money(b.used ? b.refunded : 0),
      transactionId: b.collectionId,
    });
  }
  for (const p of plans) {
    const ms = num(p.created_at);
    items.push({
      kind: 'plan_charge',
      id: String(p.id),
      ms,
      at: new Date(ms).toISOString(),
      title: String(p.display_name ?? ''),
      amount: money(num(p.amount_cents)),
      charged: money(num(p.amount_cents)),
      refunded: money(0),
      transactionId: null,
    });
  }
  return items
    .sort((a, b) => b.ms - a.ms || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, limit)
    .map(({ ms: _ms, ...item }) => item);
}
