import { and, eq, isNull, lt } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { formatDecimal, parseDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { SEARCH_LAG_MS, VendorDeclineError, VendorUnavailableError } from '../../vendors/types';
import { accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';
import { owedFigures, pendingRepaymentCents, type OwedFigures } from './standing';

/*
 * Repaying what is owed (issue 26), from one of the consumer's own cards, like a plan charge (subscription/billing.ts):
 *   1. recorded `pending` under a lease, in a transaction that checks the amount fits what can be repaid now (what is
 *      owed, less open disputes, less repayments already running: two sent together cannot both take the same dollars);
 *   2. held at the processor under the key `repay:<id>`, the hold's id recorded;
 *   3. captured;
 *   4. in ONE transaction: the amount is checked again against what is owed (a guard: a waiver or a won dispute may
 *      have lowered it meanwhile), the payment succeeded, the movement `receivable.repaid` (funding_source -amount,
 *      receivable +amount) and a notice. The restriction on new bcards is read from the receivable's balance, so it
 *      lifts in this same transaction when nothing is left owed.
 * A decline records the payment failed with why, and moves nothing. A capture the guard refuses is refunded (keyed
 * `repay-refund:<id>`) and the payment failed. A crash anywhere leaves a pending payment whose lease runs out; the
 * money sweep (recoverRepayments) asks the processor by the hold's id or key: captured → step 4; held → voided,
 * failed; nothing there → failed. So nothing is charged twice, and nothing charged is lost.
 */

type PaymentRow = typeof schema.receivablePayments.$inferSelect;
type SourceRow = typeof schema.fundingSources.$inferSelect;

/** How long a worker owns a pending repayment without renewing; longer than any one processor call may take. */
export const REPAYMENT_LEASE_MS = 60_000;

export const repayHoldKey = (paymentId: string) => `repay:${paymentId}`;
export const repayRefundKey = (paymentId: string) => `repay-refund:${paymentId}`;

const money = (c: number) => formatDecimal(c as Cents);

export interface RepaymentLease {
  paymentId: string;
  owner: string;
}

class RepaymentLeaseLost extends Error {}

/** The user's own, not removed, active card. Fails with: resource_not_found, validation_error (bank account, paused). */
async function payingCard(db: DbOrTx, userId: string, fundingSourceId: string): Promise<SourceRow> {
  const source = await firstRow(
    db,
    schema.fundingSources,
    and(eq(schema.fundingSources.id, fundingSourceId), eq(schema.fundingSources.userId, userId), isNull(schema.fundingSources.deletedAt)),
  );
  if (!source) throw notFound('funding source', fundingSourceId, 'fundingSourceId');
  if (source.type === 'bank_account') {
    // What a returned bank debit left owed is repaid by card: another debit could come back the same way.
    throw invalid('fundingSourceId', `What is owed is repaid by card; ${source.name} (•••• ${source.last4}) is a bank account. Choose a card.`);
  }
  if (!source.isActive) {
    throw invalid('fundingSourceId', `The funding source ${source.name} (•••• ${source.last4}) is paused. Resume it or choose another.`);
  }
  return source;
}

/** "12.50" → 1250. Fails with: validation_error (not an amount of dollars and cents above zero). */
export function parseRepayAmount(amount: string, param = 'amount'): number {
  const c = parseDecimal(amount);
  if (c === null || c <= 0) throw invalid(param, 'amount must be a dollar amount above zero with at most 2 decimals, such as "12.50".');
  return c;
}

async function reload(db: DbOrTx, id: string): Promise<PaymentRow> {
  const row = await firstRow(db, schema.receivablePayments, eq(schema.receivablePayments.id, id));
  if (!row) throw new Error(`no repayment ${id}`);
  return row;
}

async function renewLease(deps: AppDeps, lease: RepaymentLease, set: Partial<PaymentRow> = {}): Promise<void> {
  const at = deps.clock.now();
  const res = await deps.db
    .update(schema.receivablePayments)
    .set({ ...set, leaseUntil: new Date(at.getTime() + REPAYMENT_LEASE_MS), updatedAt: at })
    .where(
      and(
        eq(schema.receivablePayments.id, lease.paymentId),
        eq(schema.receivablePayments.leaseOwner, lease.owner),
        eq(schema.receivablePayments.status, 'pending'),
      ),
    );
  if (res.rowsAffected !== 1) throw new RepaymentLeaseLost(`repayment ${lease.paymentId} is no longer this worker's`);
}

/** Moves a pending repayment to its end state, if this worker still owns it. */
async function settleRow(tx: DbOrTx, deps: AppDeps, lease: RepaymentLease, set: Partial<PaymentRow> & { status: 'succeeded' | 'failed' }) {
  const res = await tx
    .update(schema.receivablePayments)
    .set({ ...set, updatedAt: deps.clock.now() })
    .where(
      and(
        eq(schema.receivablePayments.id, lease.paymentId),
        eq(schema.receivablePayments.leaseOwner, lease.owner),
        eq(schema.receivablePayments.status, 'pending'),
      ),
    );
  if (res.rowsAffected !== 1) throw new RepaymentLeaseLost(`repayment ${lease.paymentId} is no longer this worker's`);
}

/** The refusal that names what can be repaid now. */
function exceedsError(amountCents: number, repayableCents: number, f: Pick<OwedFigures, 'underDispute' | 'comingBack'>): AppError {
  const disputed =
    (f.underDispute > 0 ? ` ($${money(f.underDispute)} under dispute can be repaid once the dispute is resolved)` : '') +
    (f.comingBack > 0 ? ` ($${money(f.comingBack)} is cleared by a bcard's refund still on its way)` : '');
  return new AppError(
    'repayment_exceeds_owed',
    repayableCents > 0
      ? `You can repay at most $${money(repayableCents)} now${disputed}; $${money(amountCents)} is more than that.`
      : `There is nothing to repay now${disputed}.`,
    'amount',
  );
}

/** Why a repayment failed, as the error the payer gets (card errors answer 402, as plan charges and bcards do). */
export function repaymentError(p: Pick<PaymentRow, 'failureCode' | 'failureMessage'>, source?: Pick<SourceRow, 'name' | 'last4'>): AppError {
  const what = source ? `${source.name} (•••• ${source.last4}) was declined: ` : '';
  const message = `${what}${p.failureMessage ?? 'The payment did not go through.'} Nothing was charged.`;
  switch (p.failureCode) {
    case 'insufficient_funds':
    case 'expired_card':
    case 'incorrect_cvc':
    case 'processing_error':
      return new AppError(p.failureCode, message, 'fundingSourceId');
    case 'interrupted':
      return new AppError('vendor_unavailable', `${p.failureMessage ?? 'The payment was interrupted.'} Nothing was charged.`);
    case 'repayment_exceeds_owed':
      return new AppError('repayment_exceeds_owed', `${p.failureMessage ?? ''} The card was refunded.`.trim(), 'amount');
    default:
      return new AppError('card_declined', message, 'fundingSourceId');
  }
}

/**
 * Steps 2 to 4 of a recorded pending repayment: hold, capture, record. Returns the payment as it ended; a decline
 * ends it failed. Throws VendorUnavailableError when the processor does not answer: the payment stays pending and
 * the sweep resolves it once the lease runs out.
 */
export async function runRepayment(deps: AppDeps, lease: RepaymentLease): Promise<PaymentRow> {
  const payment = await reload(deps.db, lease.paymentId);
  const source = await firstRow(deps.db, schema.fundingSources, eq(schema.fundingSources.id, payment.fundingSourceId));
  if (!source) throw new Error(`no funding source ${payment.fundingSourceId}`);
  const vendor = deps.vendorFor(payment.vendor);
  let holdId = payment.vendorHoldId;
  try {
    if (!holdId) {
      ({ holdId } = await vendor.hold(source.vendorToken, payment.amountCents, {
        idempotencyKey: repayHoldKey(payment.id),
        description: 'bpay: repayment of what is owed',
      }));
      await renewLease(deps, lease, { vendorHoldId: holdId });
    }
    await vendor.capture(holdId);
  } catch (e) {
    if (!(e instanceof VendorDeclineError)) throw e;
    // Refused: nothing moved (a hold that was placed is released first).
    if (holdId) await vendor.voidHold(holdId);
    return failRepayment(deps, lease, e.code, e.message);
  }
  return completeRepayment(deps, lease, payment, holdId);
}

/** Step 4: one transaction for the payment, the ledger and the notice, guarded by what is owed at that moment. */
async function completeRepayment(deps: AppDeps, lease: RepaymentLease, payment: PaymentRow, holdId: string): Promise<PaymentRow> {
  // Refused once already and its refund begun (recorded below): only the refund is finished, whatever is owed now.
  if (payment.failureCode === 'repayment_exceeds_owed') return refundRefused(deps, lease, payment, holdId, payment.failureMessage ?? '');
  const at = deps.clock.now();
  const refused = await deps.db.transaction(async (tx) => {
    const figures = await owedFigures(tx, payment.userId);
    if (payment.amountCents > figures.repayable) return exceedsError(payment.amountCents, figures.repayable, figures).message;
    await settleRow(tx, deps, lease, { status: 'succeeded', vendorHoldId: holdId });
    await postMovement(tx, {
      kind: 'receivable.repaid',
      referenceId: payment.id,
      at,
      postings: [
        { account: accounts.fundingSource(payment.fundingSourceId), amountCents: -payment.amountCents },
        { account: accounts.receivable(payment.userId), amountCents: payment.amountCents },
      ],
    });
    const source = await firstRow(tx, schema.fundingSources, eq(schema.fundingSources.id, payment.fundingSourceId));
    await notify(
      tx,
      deps,
      payment.userId,
      'receivable_repaid',
      { amount: money(payment.amountCents), sourceName: source?.name ?? '', last4: source?.last4 ?? '', owed: money(figures.owed - payment.amountCents) },
      at,
    );
    return null;
  });
  if (refused === null) return reload(deps.db, payment.id);
  // The decision is recorded before the refund: a refund that went through but whose answer was lost must never be
  // recorded as repaid later (when what is owed has grown again by the time the sweep finishes it).
  await renewLease(deps, lease, { vendorHoldId: holdId, failureCode: 'repayment_exceeds_owed', failureMessage: refused });
  return refundRefused(deps, lease, payment, holdId, refused);
}

/** Captured, but more than is owed: the money goes back (the refund is keyed, so a repeat is harmless), then failed. */
async function refundRefused(deps: AppDeps, lease: RepaymentLease, payment: PaymentRow, holdId: string, refused: string): Promise<PaymentRow> {
  await deps.vendorFor(payment.vendor).refund(holdId, payment.amountCents, { idempotencyKey: repayRefundKey(payment.id) });
  await deps.db.transaction((tx) =>
    settleRow(tx, deps, lease, { status: 'failed', vendorHoldId: holdId, failureCode: 'repayment_exceeds_owed', failureMessage: refused }),
  );
  return reload(deps.db, payment.id);
}

async function failRepayment(deps: AppDeps, lease: RepaymentLease, code: string, message: string): Promise<PaymentRow> {
  await deps.db.transaction((tx) => settleRow(tx, deps, lease, { status: 'failed', failureCode: code, failureMessage: message }));
  return reload(deps.db, lease.paymentId);
}

export interface RepayInput {
  fundingSourceId: string;
  /** Dollars and cents, as typed ("12.50"). */
  amount: string;
  /** The request's Idempotency-Key (scoped by runIdempotent): the same key never charges twice. */
  idempotencyKey: string;
}

/**
 * Repays `amount` of what the user owes from one of their cards. Partial payments are allowed.
 * Fails with: validation_error (amount; a bank account or paused source), resource_not_found (a source that is not
 * the user's), repayment_exceeds_owed (more than can be repaid now), card_declined / insufficient_funds /
 * expired_card / incorrect_cvc / processing_error (nothing charged), vendor_unavailable (the sweep settles it),
 * idempotency_key_in_use (the same request still running elsewhere).
 */
export async function repay(deps: AppDeps, userId: string, input: RepayInput): Promise<PaymentRow> {
  const amountCents = parseRepayAmount(input.amount);
  await payingCard(deps.db, userId, input.fundingSourceId);
  const owner = newToken();
  const at = deps.clock.now();
  const started = await deps.db.transaction(async (tx): Promise<{ prior: PaymentRow } | { payment: PaymentRow }> => {
    const prior = await firstRow(
      tx,
      schema.receivablePayments,
      and(eq(schema.receivablePayments.userId, userId), eq(schema.receivablePayments.idempotencyKey, input.idempotencyKey)),
    );
    if (prior) return { prior };
    // Checked again here: a removal or pause racing this request commits before (refused here) or after.
    const source = await payingCard(tx, userId, input.fundingSourceId);
    const figures = await owedFigures(tx, userId);
    // Write transactions run one at a time: a repayment sent alongside this one is either pending here or not yet begun.
    const available = Math.max(0, figures.repayable - (await pendingRepaymentCents(tx, userId)));
    if (amountCents > available) throw exceedsError(amountCents, available, figures);
    const [payment] = await tx
      .insert(schema.receivablePayments)
      .values({
        id: newId('rpy'),
        userId,
        fundingSourceId: source.id,
        amountCents,
        status: 'pending',
        vendor: source.vendor,
        idempotencyKey: input.idempotencyKey,
        leaseOwner: owner,
        leaseUntil: new Date(at.getTime() + REPAYMENT_LEASE_MS),
        createdAt: at,
        updatedAt: at,
      })
      .returning();
    return { payment: payment! };
  });
  let ended: PaymentRow;
  if ('prior' in started) {
    // The same request again (a retry after an unexpected failure): its outcome, or finish it if its worker is gone.
    const lease = started.prior.status === 'pending' ? await takeOver(deps, started.prior.id) : null;
    if (started.prior.status === 'pending' && !lease) throw new AppError('idempotency_key_in_use');
    ended = lease ? await runOrLeave(deps, lease) : started.prior;
  } else {
    ended = await runOrLeave(deps, { paymentId: started.payment.id, owner });
  }
  if (ended.status === 'failed') {
    const source = await firstRow(deps.db, schema.fundingSources, eq(schema.fundingSources.id, ended.fundingSourceId));
    throw repaymentError(ended, ended.failureCode === 'interrupted' ? undefined : (source ?? undefined));
  }
  return ended;
}

/** runRepayment for a request: a processor that does not answer leaves the payment to the sweep (503). */
async function runOrLeave(deps: AppDeps, lease: RepaymentLease): Promise<PaymentRow> {
  try {
    return await runRepayment(deps, lease);
  } catch (e) {
    if (e instanceof VendorUnavailableError) {
      deps.log.warn('a repayment could not be finished now; the money sweep will settle it', { paymentId: lease.paymentId, error: e });
      throw new AppError(
        'vendor_unavailable',
        'The card processor did not answer. If the payment went through, what you owe goes down within a few minutes; otherwise nothing is charged.',
      );
    }
    throw e;
  }
}

/** Takes over a pending repayment whose worker is gone (its lease ran out); null when it is not (or no longer) one. */
async function takeOver(deps: AppDeps, paymentId: string): Promise<RepaymentLease | null> {
  const at = deps.clock.now();
  const owner = newToken();
  const res = await deps.db
    .update(schema.receivablePayments)
    .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + REPAYMENT_LEASE_MS) })
    .where(
      and(eq(schema.receivablePayments.id, paymentId), eq(schema.receivablePayments.status, 'pending'), lt(schema.receivablePayments.leaseUntil, at)),
    );
  return res.rowsAffected === 1 ? { paymentId, owner } : null;
}

/**
 * Settles every pending repayment whose worker is gone, by what the processor says of its hold: captured → step 4
 * (recorded, or refunded if it no longer fits what is owed); held → released, failed; none → failed (after a remote
 * processor's search can have caught up with a hold placed just before the crash). Returns how many it settled.
 */
export async function recoverRepayments(deps: AppDeps): Promise<number> {
  const at = deps.clock.now();
  const stale = await deps.db
    .select({ id: schema.receivablePayments.id })
    .from(schema.receivablePayments)
    .where(and(eq(schema.receivablePayments.status, 'pending'), lt(schema.receivablePayments.leaseUntil, at)))
    .limit(100);
  let settled = 0;
  for (const { id } of stale) {
    const lease = await takeOver(deps, id);
    if (!lease) continue;
    try {
      const payment = await reload(deps.db, id);
      const vendor = deps.vendorFor(payment.vendor);
      const found = payment.vendorHoldId ? await vendor.getHold(payment.vendorHoldId) : await vendor.findHold(repayHoldKey(payment.id));
      if (found?.status === 'captured') {
        await completeRepayment(deps, lease, payment, found.holdId);
      } else if (!found && vendor.searchLags && at.getTime() - payment.createdAt.getTime() < SEARCH_LAG_MS) {
        continue; // the hold may exist and not be searchable yet: asked again at a later sweep
      } else {
        if (found?.status === 'held') await vendor.voidHold(found.holdId);
        await failRepayment(deps, lease, 'interrupted', 'The payment was interrupted before it completed.');
      }
      settled++;
    } catch (error) {
      deps.log.error('recovering a repayment failed; the next sweep tries again', { paymentId: id, error });
    }
  }
  return settled;
}
