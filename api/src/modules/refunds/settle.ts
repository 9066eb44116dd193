import { and, eq, lt, sql } from 'drizzle-orm';
import { setPlaceholder } from '../../lib/set-placeholder';
import { schema, type DbOrTx, firstRow, prepared } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { holdKey } from '../bcards/saga';
import { BankDebitPendingError, refreshBankDebit } from '../bcards/bank-debits';
import { creditOwed } from '../funding-sources/bank-standing';
import { emitEvent, emitEvents } from '../events/emit';
import { returnedPart } from '../bcards/notices';
import { notify } from '../notifications/service';
import { accounts, postMovement } from '../ledger/service';
import { chargeAndRefundsOf } from '../charges/service';
import type { RefundAllocation } from '../charges/allocations';
import { intentById, money, refundObject, toRefundObject, type RefundObject } from './objects';
import { finish, renewRefundLease, RefundLeaseLost, takeOver, type RefundLease } from './lease';

/*
 * Transactions 2 and 3 of a refund's saga (service.ts has the whole story and transaction 1): each part refunded at
 * the processor under its key, then the outcome recorded (ledger movement, parts, events, the consumer's notice);
 * and the money sweep's recovery of refunds whose worker is gone.
 */

type RefundRow = typeof schema.refunds.$inferSelect;
type PartRow = typeof schema.refundParts.$inferSelect;
type ShareRow = typeof schema.collectionShares.$inferSelect;

/** The processor's idempotency key for one source's part of one refund. */
export const refundPartKey = (refundId: string, shareId: string) => `refund:${refundId}:${shareId}`;

interface LoadedRefund {
  refund: RefundRow;
  /** The merchant's business name for the consumer's notice, when the caller has it (else read with the notice). */
  merchantName: string | null;
  parts: Array<PartRow & { share: ShareRow; source: { name: string; type: string; brand: string; last4: string; userId: string } }>;
  /** Parts whose bank debit came back unpaid: nothing goes to the bank; the part reduces what the consumer owes. */
  returned: Set<string>;
  vendor: PaymentVendor | null;
}

/*
 * The statements of a refund's settlement, built once (db/prepared.ts): only their values change from one refund to
 * the next.
 */
const refundById = prepared((db) => db.select().from(schema.refunds).where(eq(schema.refunds.id, sql.placeholder('id'))).limit(1).prepare());
/** A refund's parts with their shares, sources and (for a bank share) its debit: one read. */
const partsOf = prepared((db) =>
  db
    .select({
      part: schema.refundParts,
      share: schema.collectionShares,
      vendor: schema.collections.vendor,
      source: {
        name: schema.fundingSources.name,
        type: schema.fundingSources.type,
        brand: schema.fundingSources.brand,
        last4: schema.fundingSources.last4,
        userId: schema.fundingSources.userId,
      },
      debit: schema.bankDebits,
    })
    .from(schema.refundParts)
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.id, schema.refundParts.shareId))
    .innerJoin(schema.collections, eq(schema.collections.id, schema.collectionShares.collectionId))
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.refundParts.fundingSourceId))
    .leftJoin(schema.bankDebits, eq(schema.bankDebits.shareId, schema.collectionShares.id))
    .where(eq(schema.refundParts.refundId, sql.placeholder('refundId')))
    .prepare(),
);
/**
 * Every part of a refund recorded in one statement: `outcomes` is a JSON object from each part's id to its status and
 * the processor's refund id (null for a refused part). A part missing from it would be set to a null status, which
 * the column refuses: the statement fails rather than leave a part unrecorded.
 */
const recordParts = prepared((db) =>
  db
    .update(schema.refundParts)
    .set({
      status: sql`json_extract(${sql.placeholder('outcomes')}, '$."' || ${schema.refundParts.id} || '".status')`,
      vendorRefundId: sql`json_extract(${sql.placeholder('outcomes')}, '$."' || ${schema.refundParts.id} || '".vendor')`,
      updatedAt: setPlaceholder<Date>('at'),
    })
    .where(eq(schema.refundParts.refundId, sql.placeholder('refundId')))
    .prepare(),
);

/** What transaction 1 wrote and the caller already holds: the refund's row and its merchant's business name. */
export interface KnownRefund {
  refund: RefundRow;
  merchantName: string;
}

async function loadRefund(deps: AppDeps, refundId: string, known?: KnownRefund): Promise<LoadedRefund> {
  const refund = known?.refund ?? (await refundById(deps.db).get({ id: refundId }));
  if (!refund) throw new Error(`no refund ${refundId}`);
  // A refund has 1–5 parts: ordered here by their shares' position, so the statement needs no sort.
  const rows = (await partsOf(deps.db).all({ refundId })).sort((a, b) => a.share.position - b.share.position);
  const vendorName = rows[0]?.vendor;
  // A bank share's debit must have settled before money goes back to it (it may never arrive): until then the refund
  // stays pending and the sweep comes back. One that came back unpaid offsets what the consumer owes instead.
  const returned = new Set<string>();
  for (const r of rows) {
    const debit = r.debit;
    if (!debit) continue;
    const status = await refreshBankDebit(deps, debit);
    if (status === 'pending') throw new BankDebitPendingError(r.share.id);
    if (status === 'returned') returned.add(r.part.id);
  }
  return {
    returned,
    refund,
    merchantName: known?.merchantName ?? null,
    parts: rows.map((r) => ({ ...r.part, share: r.share, source: r.source })),
    vendor: vendorName ? deps.vendorFor(vendorName) : null,
  };
}

/** The refund id recorded for a part that reduced what the consumer owes (its bank debit was returned). */
const OFFSET_OWED = 'offset:owed';

/** One part's answer from the processor: its refund id, or why it refused (for good). */
type PartOutcome = { ok: true; refundId: string } | { ok: false; reason: string };

/**
 * Transactions 2 and 3 of the saga: every part refunded at the processor, then the refund recorded with its ledger
 * movement and events.
 * - The processor refuses the first part: nothing has gone back, so the refund fails and its reservation on the
 *   intent is given back (a part refunded before a crash would replay, not refuse).
 * - It refuses a later part for good: the other parts still go back, and the refund succeeds for what did (its
 *   amount and fee become what went back, the rest of the reservation is given back, failure_reason names the
 *   source): no state is left that nothing will ever finish.
 * - It does not answer: the refund stays pending for the sweep, which repeats every call with its key.
 */
async function settle(deps: AppDeps, lease: RefundLease, known?: KnownRefund): Promise<Settled> {
  const loaded = await loadRefund(deps, lease.refundId, known);
  const { refund, parts, vendor, returned } = loaded;
  const refundAll = async (v: PaymentVendor, beforeCall: () => Promise<void>) => {
    const outcomes: PartOutcome[] = [];
    for (const part of parts) {
      if (returned.has(part.id)) {
        outcomes.push({ ok: true, refundId: OFFSET_OWED });
        continue;
      }
      await beforeCall();
      const holdId = part.share.vendorHoldId ?? (await v.findHold(holdKey(part.share.id)))?.holdId;
      if (!holdId) throw new Error(`share ${part.share.id} of a completed collection has no hold`);
      try {
        const { refundId } = await v.refund(holdId, part.amountCents, { idempotencyKey: refundPartKey(refund.id, part.share.id) });
        outcomes.push({ ok: true, refundId });
      } catch (e) {
        if (!(e instanceof VendorDeclineError)) throw e;
        if (outcomes.length === 0) throw new FirstPartRefused(e);
        outcomes.push({ ok: false, reason: e.message });
      }
    }
    return outcomes;
  };
  const record = (tx: DbOrTx, outcomes: PartOutcome[]) => recordOutcome(tx, deps, lease, loaded, outcomes);
  try {
    if (!vendor || parts.length === 0) return await deps.db.transaction((tx) => record(tx, []));
    if (vendor.within) {
      const local = vendor.within.bind(vendor);
      return await deps.db.transaction(async (tx) => record(tx, await refundAll(local(tx), async () => undefined)));
    }
    const outcomes = await refundAll(vendor, () => renewRefundLease(deps, lease));
    return await deps.db.transaction((tx) => record(tx, outcomes));
  } catch (e) {
    if (!(e instanceof FirstPartRefused)) throw e;
    return deps.db.transaction(async (tx) => {
      const row = await finish(tx, deps, lease, 'failed', { failureReason: e.reason });
      await tx.update(schema.refundParts).set({ status: 'failed', updatedAt: deps.clock.now() }).where(eq(schema.refundParts.refundId, refund.id));
      await releaseReservation(tx, deps, refund, refund.amount);
      const object = await refundObject(tx, row);
      await emitEvent(tx, { merchantId: refund.merchantId, livemode: refund.livemode, type: 'refund.updated', object: { ...object }, at: deps.clock.now() });
      return { row, object };
    });
  }
}

/** Gives `amount` of a refund's reservation back to its intent: that much can be refunded again. */
async function releaseReservation(tx: DbOrTx, deps: AppDeps, refund: RefundRow, amount: number): Promise<void> {
  if (amount <= 0) return;
  await tx
    .update(schema.paymentIntents)
    .set({ amountRefunded: sql`${schema.paymentIntents.amountRefunded} - ${amount}`, updatedAt: deps.clock.now() })
    .where(eq(schema.paymentIntents.id, refund.paymentIntentId));
}

/**
 * A share as the merchant may see it (as the Charge's allocations show it): brand or "bank account" and the last
 * four. failure_reason goes to the merchant, so never the consumer's own name for the source.
 */
function merchantFace(source: { type: string; brand: string; last4: string }): string {
  const kind = source.type === 'bank_account' ? 'bank account' : source.brand ? source.brand[0]!.toUpperCase() + source.brand.slice(1) : 'card';
  return `${kind} •••• ${source.last4.slice(-4)}`;
}

class FirstPartRefused extends Error {
  readonly reason: string;
  constructor(override readonly cause: VendorDeclineError) {
    super(cause.message);
    this.reason = `The processor refused to refund the consumer's funding source: ${cause.message}`;
  }
}

/**
 * Of `moved` cents that went back (purchase and fee together, in the refund's proportions), the purchase's part and
 * the fee's part: never more fee than the refund carried, and at least a cent of purchase.
 */
export function splitMoved(moved: number, amount: number, fee: number): { amount: number; fee: number } {
  let feePart = Math.min(fee, Math.max(0, moved - Math.round((amount * moved) / (amount + fee))));
  let amountPart = moved - feePart;
  if (amountPart > amount) {
    amountPart = amount;
    feePart = moved - amount;
  }
  if (amountPart < 1) {
    amountPart = 1;
    feePart = moved - 1;
  }
  return { amount: amountPart, fee: feePart };
}

/** A settled refund: its row, and its Refund object as the transaction that settled it left it (the answer). */
interface Settled {
  row: RefundRow;
  object: RefundObject;
}

async function recordOutcome(tx: DbOrTx, deps: AppDeps, lease: RefundLease, loaded: LoadedRefund, outcomes: PartOutcome[]): Promise<Settled> {
  const { refund, parts } = loaded;
  const at = deps.clock.now();
  const went = parts.filter((_, i) => outcomes[i]?.ok);
  const refused = parts.map((p, i) => ({ p, o: outcomes[i] })).filter((x) => x.o && !x.o.ok);
  let settled = { amount: refund.amount, fee: refund.feeCents };
  let failureReason: string | null = null;
  if (refused.length > 0) {
    settled = splitMoved(went.reduce((a, p) => a + p.amountCents, 0), refund.amount, refund.feeCents);
    failureReason = refused
      .map(({ p, o }) => `The processor refused to refund share ${p.share.position + 1} (${merchantFace(p.source)}) ${money(p.amountCents)}: ${o && !o.ok ? o.reason : ''}`)
      .concat('The refund covers what went back to the other sources.')
      .join(' ');
    deps.log.error('a refund went back only in part: the processor refused a source', { refundId: refund.id, refused: refused.map((r) => r.p.id) });
  }
  const row = await finish(tx, deps, lease, 'succeeded', refused.length > 0 ? { amount: settled.amount, feeCents: settled.fee, failureReason } : {});
  if (parts.length > 0) {
    const recorded: Record<string, { status: 'succeeded' | 'failed'; vendor: string | null }> = {};
    for (const [i, part] of parts.entries()) {
      const o = outcomes[i];
      recorded[part.id] = o && !o.ok ? { status: 'failed', vendor: part.vendorRefundId } : { status: 'succeeded', vendor: o?.ok ? o.refundId : null };
    }
    await recordParts(tx).run({ outcomes: JSON.stringify(recorded), at, refundId: refund.id });
  }
  await releaseReservation(tx, deps, refund, refund.amount - settled.amount);
  const merchant = accounts.merchant(refund.merchantId);
  await postMovement(tx, {
    kind: 'refund.succeeded',
    referenceId: refund.id,
    at,
    postings:
      parts.length === 0
        ? [
            { account: merchant, amountCents: -refund.amount },
            { account: accounts.sandboxTestFunds, amountCents: refund.amount },
          ]
        : await creditOwed(tx, parts[0]!.source.userId, [
            { account: merchant, amountCents: -settled.amount },
            { account: accounts.fees, amountCents: -settled.fee },
            ...went.map((p) => ({
              account: loaded.returned.has(p.id) ? accounts.receivable(p.source.userId) : accounts.fundingSource(p.fundingSourceId),
              amountCents: p.amountCents,
            })),
          ]),
  });
  await noticeMerchantRefund(tx, deps, loaded, went, at);
  const pi = await intentById(tx).get({ id: refund.paymentIntentId });
  const owner = { merchantId: refund.merchantId, livemode: refund.livemode, at };
  // The refund with its allocations, and (as Stripe's charge.refunded) the Charge, with each share's amount_refunded:
  // both read together (charges/service.ts chargeAndRefundsOf, two statements), as this transaction leaves them.
  const { charge, refunds } = pi ? await chargeAndRefundsOf(tx, pi) : { charge: null, refunds: new Map<string, RefundAllocation[]>() };
  const allocations = refunds.get(row.id);
  const object = allocations ? toRefundObject(row, allocations) : await refundObject(tx, row);
  await emitEvents(tx, owner, [{ type: 'refund.updated', object: { ...object } }, ...(charge ? [{ type: 'charge.refunded' as const, object: { ...charge } }] : [])]);
  return { row, object };
}

/**
 * The consumer hears of a merchant's refund in the transaction that records it succeeded (finish() is guarded by the
 * lease and the pending status, so a retried request or the sweep finishing it cannot tell it twice). `amount` is all
 * the refund gave back, the fee's part included; `parts` what reached each source (a part that went to what the
 * consumer owes, its bank debit returned, is in the amount and not a source's). A sandbox refund has no consumer.
 */
async function noticeMerchantRefund(tx: DbOrTx, deps: AppDeps, loaded: LoadedRefund, went: LoadedRefund['parts'], at: Date): Promise<void> {
  const first = loaded.parts[0];
  // A sandbox payment's bcard is the merchant's own test bcard (payment.ts takes no other): nobody to tell.
  if (!first || went.length === 0 || !loaded.refund.livemode) return;
  const merchantName =
    loaded.merchantName ?? (await firstRow(tx, schema.merchants, eq(schema.merchants.id, loaded.refund.merchantId)))?.businessName ?? '';
  const toSources = went.filter((p) => !loaded.returned.has(p.id));
  await notify(
    tx,
    deps,
    first.source.userId,
    'merchant_refund',
    {
      merchant: merchantName,
      amount: formatDecimal(went.reduce((a, p) => a + p.amountCents, 0) as Cents),
      parts: toSources.map((p) => returnedPart(p.source, p.amountCents)),
      transactionId: first.share.collectionId,
    },
    at,
  );
}

/**
 * settle(), whose failure leaves the refund pending for the sweep (it is committed: never to be made again). Answers
 * the Refund object the settling transaction recorded (what it told in refund.updated), not read again after commit.
 */
export async function settleOrLeave(deps: AppDeps, lease: RefundLease, known?: KnownRefund): Promise<RefundObject> {
  try {
    return (await settle(deps, lease, known)).object;
  } catch (error) {
    const expected = error instanceof VendorUnavailableError || error instanceof VendorDeclineError || error instanceof RefundLeaseLost;
    deps.log[expected ? 'warn' : 'error']('a refund could not be settled now; the money sweep will finish it', { refundId: lease.refundId, error });
    const now = await refundById(deps.db).get({ id: lease.refundId });
    if (!now) throw error;
    return refundObject(deps.db, now);
  }
}

/** Finishes every pending refund whose worker is gone (its lease ran out). Returns how many it settled. */
export async function recoverRefunds(deps: AppDeps): Promise<number> {
  const stale = await deps.db
    .select({ id: schema.refunds.id })
    .from(schema.refunds)
    .where(and(eq(schema.refunds.status, 'pending'), lt(schema.refunds.leaseUntil, deps.clock.now())))
    .limit(100);
  let settled = 0;
  for (const { id } of stale) {
    const lease = await takeOver(deps, id);
    if (!lease) continue;
    try {
      await settle(deps, lease);
      settled++;
    } catch (error) {
      if (error instanceof BankDebitPendingError) deps.log.info('a refund waits for a bank debit to settle', { refundId: id });
      else deps.log.error('recovery of a refund failed; the next sweep tries again', { refundId: id, error });
    }
  }
  return settled;
}
