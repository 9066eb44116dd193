import { and, asc, desc, eq, gt, inArray, isNotNull, lt, type SQL } from 'drizzle-orm';
import { schema, type DbOrTx, preparedPerCount, slots, slotValues } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../errors';
import {
  chargeAllocations,
  faceOf,
  publicRefundAllocation,
  refundAllocations,
  refundedByShare,
  refundsAllocations,
  type Allocation,
  type ChargeInput,
  type RefundAllocation,
  type ShareFunding,
} from './allocations';
import { chargeIdOf, intentIdOfCharge } from './ids';

/*
 * Charges (issue 28 §2): Stripe's Charge, derived. A bpay payment intent is paid by one bcard (payment_intents.bcard_id,
 * unique), so its one Charge is read from what is already recorded: the intent, the bcard, its collection's shares
 * (with their funding sources and bank debits) and the intent's refunds with their parts. Nothing is stored for it:
 * its id is the intent's with ch_ for pi_ (ids.ts), stable and found again without a table, and the Charge can never
 * disagree with the records of the money. A Charge exists once the intent has a bcard (authorized or paid).
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
type IntentRow = typeof schema.paymentIntents.$inferSelect;
type RefundRow = typeof schema.refunds.$inferSelect;

export interface ChargeObject {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: string;
  created: number;
  livemode: boolean;
  paid: boolean;
  captured: boolean;
  refunded: boolean;
  status: 'succeeded' | 'pending' | 'failed';
  payment_intent: string;
  description: string | null;
  metadata: Record<string, string>;
  payment_method_details: { type: 'bcard'; bcard: { last4: string } };
  allocations: Allocation[];
}

/** What both funding reads (a charge's and its refunds') take of each share and its source. */
const SHARE_COLUMNS = {
  id: schema.collectionShares.id,
  amountCents: schema.collectionShares.amountCents,
  status: schema.collectionShares.status,
  position: schema.collectionShares.position,
};
const SOURCE_COLUMNS = { type: schema.fundingSources.type, brand: schema.fundingSources.brand, last4: schema.fundingSources.last4 };

/** Each bcard's face and funding: its collection, shares, sources and bank debits. */
const fundingRows = preparedPerCount((db, n) =>
  db
    .select({
      bcardId: schema.bcards.id,
      last4: schema.bcards.last4,
      bcardStatus: schema.bcards.status,
      limitCents: schema.bcards.limitCents,
      spentCents: schema.bcards.spentCents,
      deactivatedAt: schema.bcards.deactivatedAt,
      amountCents: schema.collections.amountCents,
      feeCents: schema.collections.feeCents,
      share: SHARE_COLUMNS,
      source: SOURCE_COLUMNS,
      debitStatus: schema.bankDebits.status,
    })
    .from(schema.bcards)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.bcards.collectionId))
    .leftJoin(schema.collectionShares, eq(schema.collectionShares.collectionId, schema.collections.id))
    .leftJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
    .leftJoin(schema.bankDebits, eq(schema.bankDebits.shareId, schema.collectionShares.id))
    .where(inArray(schema.bcards.id, slots('b', n)))
    .prepare(),
);

/** Each bcard's face and funding (one statement for all of them, built once per number of bcards: db/prepared.ts). */
async function fundingOf(db: DbOrTx, bcardIds: string[]) {
  if (bcardIds.length === 0) return new Map<string, never>();
  const rows = await fundingRows(db, bcardIds.length).all(slotValues('b', bcardIds));
  // A bcard has 1–5 shares: ordered here, so the statement needs no sort (query-plans.test.ts).
  rows.sort((a, b) => (a.share?.position ?? 0) - (b.share?.position ?? 0));
  const out = new Map<string, { bcard: (typeof rows)[number]; shares: ShareFunding[] }>();
  for (const r of rows) {
    const entry = out.get(r.bcardId) ?? { bcard: r, shares: [] };
    out.set(r.bcardId, entry);
    if (r.share && r.source) {
      entry.shares.push({
        shareId: r.share.id,
        amountCents: r.share.amountCents,
        face: faceOf(r.source),
        debitStatus: r.debitStatus ?? null,
        shareStatus: r.share.status,
      });
    }
  }
  return out;
}

type RefundAllocationsWithShare = ReturnType<typeof refundAllocations>;

/** What a Charge's allocations divide: what the intent captured (or the amount authorized) over its bcard's shares. */
function chargeInput(
  pi: Pick<IntentRow, 'amount' | 'amountReceived'>,
  bcard: { bcardStatus: string; limitCents: number; spentCents: number; amountCents: number; feeCents: number },
  shares: ShareFunding[],
): ChargeInput {
  return {
    total: pi.amountReceived > 0 ? pi.amountReceived : pi.amount,
    collection: { amountCents: bcard.amountCents, feeCents: bcard.feeCents },
    remainderCents: bcard.bcardStatus === 'used' ? bcard.limitCents - bcard.spentCents : 0,
    shares,
  };
}

/*
 * The statement of refundsWithAllocations, built once per number of ids (db/prepared.ts): every refund of the intents
 * given, or of the intents of the refunds given.
 */
function refundRows(where: (db: DbOrTx, n: number) => SQL) {
  const r = schema.refunds;
  return preparedPerCount((db, n) =>
    db
      .select({
        refund: r,
        intent: { amount: schema.paymentIntents.amount, amountReceived: schema.paymentIntents.amountReceived },
        bcard: {
          bcardStatus: schema.bcards.status,
          limitCents: schema.bcards.limitCents,
          spentCents: schema.bcards.spentCents,
          amountCents: schema.collections.amountCents,
          feeCents: schema.collections.feeCents,
        },
        share: SHARE_COLUMNS,
        source: SOURCE_COLUMNS,
        debitStatus: schema.bankDebits.status,
        part: { amountCents: schema.refundParts.amountCents, status: schema.refundParts.status },
      })
      .from(r)
      .innerJoin(schema.paymentIntents, eq(schema.paymentIntents.id, r.paymentIntentId))
      .innerJoin(schema.bcards, eq(schema.bcards.id, schema.paymentIntents.bcardId))
      .innerJoin(schema.collections, eq(schema.collections.id, schema.bcards.collectionId))
      .leftJoin(schema.collectionShares, eq(schema.collectionShares.collectionId, schema.collections.id))
      .leftJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
      .leftJoin(schema.bankDebits, eq(schema.bankDebits.shareId, schema.collectionShares.id))
      .leftJoin(schema.refundParts, and(eq(schema.refundParts.refundId, r.id), eq(schema.refundParts.shareId, schema.collectionShares.id)))
      .where(where(db, n))
      .prepare(),
  );
}
const refundRowsOfIntents = refundRows((_, n) => inArray(schema.refunds.paymentIntentId, slots('id', n)));
const refundRowsOfRefunds = refundRows((db, n) =>
  inArray(schema.refunds.paymentIntentId, db.select({ id: schema.refunds.paymentIntentId }).from(schema.refunds).where(inArray(schema.refunds.id, slots('id', n)))),
);

/**
 * Refunds with their allocations, by refund id, in one statement: every refund of the intents given, or of the intents
 * of the refunds given (with their rows). A refund's allocations are capped by what each share still has room for after
 * the intent's earlier refunds (allocations.ts refundsAllocations), so the statement also reads what the Charge's
 * allocations are computed from: the intent's amounts, its bcard, collection and shares (with sources and bank debits),
 * a row per refund and share, with the refund's part for that share if it has one.
 */
async function refundsWithAllocations(
  db: DbOrTx,
  of: { refunds: RefundRow[] } | { intentIds: string[] },
): Promise<Map<string, { refund: RefundRow; allocations: RefundAllocationsWithShare }>> {
  const out = new Map<string, { refund: RefundRow; allocations: RefundAllocationsWithShare }>();
  const ids = 'refunds' in of ? of.refunds.map((r) => r.id) : of.intentIds;
  if (ids.length === 0) return out;
  const rows = await ('refunds' in of ? refundRowsOfRefunds : refundRowsOfIntents)(db, ids.length).all(slotValues('id', ids));
  // The refunds of a page's intents or of one intent, each with a row per share (1–5): ordered here, not by a sort in SQL.
  rows.sort((a, b) => a.refund.seq - b.refund.seq || (a.share?.position ?? 0) - (b.share?.position ?? 0));
  type Parts = Parameters<typeof refundAllocations>[1];
  const intents = new Map<string, { first: (typeof rows)[number]; shares: Map<string, ShareFunding>; refunds: Map<string, { refund: RefundRow; parts: Parts }> }>();
  for (const row of rows) {
    const entry = intents.get(row.refund.paymentIntentId) ?? { first: row, shares: new Map(), refunds: new Map() };
    intents.set(row.refund.paymentIntentId, entry);
    const refund = entry.refunds.get(row.refund.id) ?? { refund: row.refund, parts: [] };
    entry.refunds.set(row.refund.id, refund);
    if (!row.share || !row.source) continue;
    const face = faceOf(row.source);
    if (!entry.shares.has(row.share.id)) {
      entry.shares.set(row.share.id, { shareId: row.share.id, amountCents: row.share.amountCents, face, debitStatus: row.debitStatus ?? null, shareStatus: row.share.status });
    }
    if (row.part) refund.parts.push({ shareId: row.share.id, ...row.part, face });
  }
  for (const { first, shares, refunds } of intents.values()) {
    const allocations = refundsAllocations(chargeInput(first.intent, first.bcard, [...shares.values()]), [...refunds.values()]);
    for (const [id, { refund }] of refunds) out.set(id, { refund, allocations: allocations.get(id) ?? [] });
  }
  return out;
}

/** The merchant-facing allocations of each refund, by id (for the Refund objects). */
export async function refundAllocationsOf(db: DbOrTx, refunds: RefundRow[]): Promise<Map<string, RefundAllocation[]>> {
  const all = await refundsWithAllocations(db, { refunds });
  return new Map([...all].map(([id, r]) => [id, r.allocations.map(publicRefundAllocation)]));
}

/**
 * The charges of these intents (those with a bcard), in their order: two statements at most, whatever their number
 * (one when none has refunds). `refunds` also answers each of their refunds' allocations, by refund id.
 */
export async function chargesOf(db: DbOrTx, intents: IntentRow[]): Promise<ChargeObject[]> {
  return (await chargesWithRefunds(db, intents)).charges;
}

async function chargesWithRefunds(db: DbOrTx, intents: IntentRow[]) {
  const paid = intents.filter((pi) => pi.bcardId !== null);
  const funding = await fundingOf(db, paid.map((pi) => pi.bcardId!));
  // Refunds only where some are counted (pending or succeeded): a failed refund gives nothing back to any share.
  const refunds = await refundsWithAllocations(db, { intentIds: paid.filter((pi) => pi.amountRefunded > 0).map((pi) => pi.id) });
  const charges = paid.map((pi) => {
    const f = funding.get(pi.bcardId!);
    if (!f) throw new Error(`payment intent ${pi.id}: its bcard ${pi.bcardId} has no collection`);
    const mine = [...refunds.values()].filter((r) => r.refund.paymentIntentId === pi.id).map((r) => r.allocations);
    return toChargeObject(pi, f.bcard, f.shares, refundedByShare(mine));
  });
  return { charges, refunds };
}

/**
 * One intent's charge and each of its refunds' allocations (by refund id), in two statements: what a refund's
 * settlement tells in refund.updated and charge.refunded, read in its transaction.
 */
export async function chargeAndRefundsOf(db: DbOrTx, pi: IntentRow): Promise<{ charge: ChargeObject | null; refunds: Map<string, RefundAllocation[]> }> {
  if (!pi.bcardId) return { charge: null, refunds: new Map() };
  const { charges, refunds } = await chargesWithRefunds(db, [pi]);
  return { charge: charges[0] ?? null, refunds: new Map([...refunds].map(([id, r]) => [id, r.allocations.map(publicRefundAllocation)])) };
}

function toChargeObject(
  pi: IntentRow,
  bcard: { last4: string; bcardStatus: string; limitCents: number; spentCents: number; deactivatedAt: Date | null; amountCents: number; feeCents: number },
  shares: ShareFunding[],
  refunded: { byShare: Map<string, number>; pool: number },
): ChargeObject {
  const captured = pi.amountReceived > 0;
  // A canceled authorization went back whole (Stripe: refunded, amount_refunded = amount).
  const released = pi.status === 'canceled';
  const allocations = chargeAllocations({ ...chargeInput(pi, bcard, shares), refunded: refunded.byShare, poolRefunded: refunded.pool });
  const at = pi.authorizedAt ?? bcard.deactivatedAt ?? pi.updatedAt;
  return {
    id: chargeIdOf(pi.id),
    object: 'charge',
    amount: pi.amount,
    amount_captured: pi.amountReceived,
    amount_refunded: released ? pi.amount : pi.amountRefunded,
    currency: pi.currency,
    created: Math.floor(at.getTime() / 1000),
    livemode: pi.livemode,
    paid: true,
    captured,
    refunded: released || (captured && pi.amountRefunded >= pi.amountReceived),
    status: pi.status === 'processing' ? 'pending' : 'succeeded',
    payment_intent: pi.id,
    description: pi.description,
    metadata: pi.metadata,
    payment_method_details: { type: 'bcard', bcard: { last4: bcard.last4 } },
    allocations: released ? allocations.map((a) => ({ ...a, amount_refunded: a.amount })) : allocations,
  };
}

/** The charge of one intent, or null when it has none yet (no bcard has paid or been authorized for it). */
export async function chargeOfIntent(db: DbOrTx, pi: IntentRow): Promise<ChargeObject | null> {
  if (!pi.bcardId) return null;
  const [charge] = await chargesOf(db, [pi]);
  return charge ?? null;
}

async function intentOfCharge(deps: AppDeps, merchant: MerchantRow, livemode: boolean, chargeId: string): Promise<IntentRow | undefined> {
  const piId = intentIdOfCharge(chargeId);
  if (!piId) return undefined;
  const [pi] = await deps.db
    .select()
    .from(schema.paymentIntents)
    .where(
      and(
        eq(schema.paymentIntents.id, piId),
        eq(schema.paymentIntents.merchantId, merchant.id),
        eq(schema.paymentIntents.livemode, livemode),
        isNotNull(schema.paymentIntents.bcardId),
      ),
    );
  return pi;
}

/** The merchant's charge in its own mode. Fails with: resource_not_found (another merchant's, the other mode's, or none). */
export async function getCharge(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<ChargeObject> {
  const pi = await intentOfCharge(deps, merchant, livemode, id);
  if (!pi) throw notFound('charge', id, 'id');
  return (await chargesOf(deps.db, [pi]))[0]!;
}

export interface ListChargesInput {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  payment_intent?: string;
}

/**
 * Newest first (by the intent's creation), Stripe's cursor pagination; with payment_intent, that intent's charge
 * (none before it is paid). Fails with: validation_error (limit, a cursor that is not one of the merchant's charges),
 * resource_not_found (payment_intent: not the merchant's in this mode).
 */
export async function listCharges(deps: AppDeps, merchant: MerchantRow, livemode: boolean, q: ListChargesInput, url = '/api/v1/charges') {
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > 100) throw invalid('limit', 'limit must be an integer from 1 to 100.');
  if (q.starting_after && q.ending_before) throw invalid('ending_before', 'Give starting_after or ending_before, not both.');
  const p = schema.paymentIntents;
  const anchorOf = async (param: 'starting_after' | 'ending_before', id: string) => {
    const pi = await intentOfCharge(deps, merchant, livemode, id);
    if (!pi) throw invalid(param, `${param} is not one of your charges: '${id.slice(0, 64)}'.`);
    return pi.seq;
  };
  let scope = and(eq(p.merchantId, merchant.id), eq(p.livemode, livemode), isNotNull(p.bcardId));
  if (q.payment_intent) {
    const [pi] = await deps.db
      .select({ id: p.id })
      .from(p)
      .where(and(eq(p.id, q.payment_intent), eq(p.merchantId, merchant.id), eq(p.livemode, livemode)));
    if (!pi) throw new AppError('resource_not_found', `No such payment_intent: '${q.payment_intent.slice(0, 64)}'`, 'payment_intent');
    scope = and(scope, eq(p.id, pi.id));
  }
  let rows: IntentRow[];
  let hasMore: boolean;
  if (q.ending_before) {
    const seq = await anchorOf('ending_before', q.ending_before);
    rows = (await deps.db.select().from(p).where(and(scope, gt(p.seq, seq))).orderBy(asc(p.seq)).limit(q.limit + 1)).reverse();
    hasMore = rows.length > q.limit;
    if (hasMore) rows = rows.slice(1);
  } else {
    const after = q.starting_after ? await anchorOf('starting_after', q.starting_after) : null;
    rows = await deps.db
      .select()
      .from(p)
      .where(and(scope, after === null ? undefined : lt(p.seq, after)))
      .orderBy(desc(p.seq))
      .limit(q.limit + 1);
    hasMore = rows.length > q.limit;
    rows = rows.slice(0, q.limit);
  }
  return { object: 'list' as const, url, has_more: hasMore, data: await chargesOf(deps.db, rows) };
}
