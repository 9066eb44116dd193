import { and, asc, desc, eq, gt, inArray, or, sql, type SQL } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, firstRow } from '@bpay/db';
import { applyBps, formatDecimal, parseDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound, type ErrorCode } from '../../errors';
import type { AppDeps } from '../../deps';
import { maskedNumber } from '../../lib/cards';
import { newToken } from '../../lib/ids';
import { allocate, percentagesSumTo100, percentToBps } from '../../lib/split';
import { getOwnedSources } from '../funding-sources/service';
import { fixedAmountMessage } from './model';
import { accounts, postMovement } from '../ledger/service';
import { currentTier } from '../subscription/service';
import { displayName } from '../users/service';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { recordCollection, runCollection, type CollectionPlan, type PlannedShare } from './collect';
import { noticeBcardSpent } from './notices';
import { refundUnusedBcard, settleAfterCommit } from './refund';
import { bcardStageOf, shareStageOf, type BcardStageView, type ShareStage } from './stage';
import { LEASE_MS } from './saga';

type UserRow = typeof schema.users.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;
type CollectionRow = typeof schema.collections.$inferSelect;

/** The largest single purchase bpay splits: $1,000,000.00. */
export const MAX_AMOUNT_CENTS = 100_000_000;
/** The smallest bcard: $1.00 (the Create bcard dialog's amount field has min 1, spec §5). */
export const MIN_BCARD_CENTS = 100;

const money = (c: number) => formatDecimal(c as Cents);

/**
 * An amount in dollars as cents, exactly: more than 2 decimals is an error, never rounded (12.345 is refused).
 * `minCents` is the smallest accepted (a bcard: $1.00); without it, anything above $0.
 */
export function parseAmount(value: string | number, param: string, minCents = 1): number {
  const cents = parseDecimal(value);
  if (cents === null) throw invalid(param, `${param} must be an amount in dollars with at most 2 decimals, such as 100.00.`);
  if (cents <= 0) throw invalid(param, `${param} must be greater than $0.`);
  if (cents < minCents) throw invalid(param, `${param} must be at least $${money(minCents)}.`);
  if (cents > MAX_AMOUNT_CENTS) throw invalid(param, `${param} must be at most $${money(MAX_AMOUNT_CENTS)}.`);
  return cents;
}

/**
 * A fixed share in dollars (the split configurator's fixed mode) as cents; null when not given. Exact: 52.905 is
 * refused naming the field, never rounded (a JSON number too: its shortest decimal form is read, not its binary value).
 */
export function parseFixedAmount(value: string | number | null | undefined, param: string): number | null {
  if (value === null || value === undefined) return null;
  const cents = parseDecimal(value);
  if (cents === null || cents < 0) throw invalid(param, fixedAmountMessage(param));
  return cents;
}

/**
 * A Create bcard body (POST /api/virtual-cards, and the extension's POST /api/extension/bcards) as the service takes
 * it: every entry with a percentage splits by percentage (an amount is then only informative); otherwise each entry's
 * amount is its fixed share, fee included (the split configurator's fixed mode).
 */
export function createBcardInput(body: {
  name: string;
  balance: string | number;
  fundingSources: Array<{ fundingSourceId: string; percentage?: number; amount?: string | number | null }>;
}): { name: string; amountCents: number; splits: SplitInput[] } {
  return {
    name: body.name,
    amountCents: parseAmount(body.balance, 'balance', MIN_BCARD_CENTS),
    splits: body.fundingSources.map((s, i) => {
      // Checked in both modes: an informative amount with a third decimal is as wrong as a fixed one.
      const fixedCents = parseFixedAmount(s.amount, `fundingSources.${i}.amount`);
      return { fundingSourceId: s.fundingSourceId, percentage: s.percentage ?? null, fixedCents: s.percentage === undefined ? fixedCents : null };
    }),
  };
}

export interface SplitInput {
  fundingSourceId: string;
  percentage?: number | null;
  /** A fixed share in cents (the payment demo's fixed mode), fee included. */
  fixedCents?: number | null;
}

export interface PlanInput {
  kind: 'bcard' | 'purchase';
  /** A bcard only this merchant may charge (the checkout widget's). */
  lockedMerchantId?: string | null;
  /** A bcard only a shop on this registrable domain may charge through the card network (the extension's). */
  lockedDomain?: string | null;
  /** The connected browser (extension token) asking for it. */
  extensionTokenId?: string | null;
  name: string;
  amountCents: number;
  splits: SplitInput[];
  merchant: string | null;
  description: string | null;
  idempotencyKey: string | null;
}

/**
 * Turns a request into shares in cents: the fee from the user's plan is added to the amount, and the total is
 * split by percentage (which must add up to 100 within 0.01) or by fixed amounts (which must add up to the total
 * within a cent), with largest-remainder rounding so the shares sum exactly to the total.
 * Fails with: validation_error, invalid_splits, resource_not_found (a source that is not the caller's).
 */
export async function planCollection(deps: AppDeps, user: UserRow, input: PlanInput) {
  const name = input.name.trim();
  if (!name) throw invalid('name', 'Please enter a name for your bcard.');
  if (input.splits.length === 0) throw new AppError('invalid_splits', 'Choose at least one funding source.', 'fundingSources');
  const ids = input.splits.map((s) => s.fundingSourceId);
  if (new Set(ids).size !== ids.length) throw invalid('fundingSources', 'Each funding source can appear only once in a split.');
  const sources = await getOwnedSources(deps.db, user.id, ids);
  for (const [i, id] of ids.entries()) {
    const source = sources.get(id);
    // Another user's source is simply "not found".
    if (!source) throw notFound('funding source');
    if (!source.isActive) throw invalid(`fundingSources.${i}.fundingSourceId`, `The funding source ${source.name} (•••• ${source.last4}) is paused.`);
    if (source.vendor !== deps.vendor.name) {
      throw invalid(`fundingSources.${i}.fundingSourceId`, `The funding source •••• ${source.last4} belongs to another payment processor; add it again.`);
    }
    if (source.type === 'bank_account' && source.bankVerificationStatus !== 'verified') {
      throw new AppError(
        'bank_account_not_verified',
        source.bankVerificationStatus === 'failed'
          ? `The bank account ${source.name} (•••• ${source.last4}) could not be verified and cannot fund bcards. Remove it and add it again.`
          : `The bank account ${source.name} (•••• ${source.last4}) is not verified yet: confirm the two micro-deposits sent to it first.`,
        `fundingSources.${i}.fundingSourceId`,
      );
    }
  }

  const tier = await currentTier(deps.db, user.id);
  const feeCents = applyBps(input.amountCents as Cents, tier.transactionFeeBps);
  const total = input.amountCents + feeCents;

  let weights: number[];
  let amounts: number[];
  // One entry with both would let one of them be silently ignored.
  const both = input.splits.findIndex((s) => typeof s.percentage === 'number' && typeof s.fixedCents === 'number');
  if (both >= 0) {
    throw new AppError('invalid_splits', 'Give each split either a percentage or a fixed amount, not both.', `splits.${both}`);
  }
  const byPercentage = input.splits.every((s) => typeof s.percentage === 'number');
  const byFixed = !byPercentage && input.splits.every((s) => typeof s.fixedCents === 'number');
  if (byPercentage) {
    const percentages = input.splits.map((s) => s.percentage as number);
    if (!percentagesSumTo100(percentages)) {
      throw new AppError('invalid_splits', 'Funding splits must add up to 100%', 'fundingSources');
    }
    weights = percentages.map((p, i) => {
      const bps = percentToBps(p);
      if (bps === null) throw invalid(`fundingSources.${i}.percentage`, 'percentage must be between 0 and 100.');
      return bps;
    });
    amounts = allocate(total, weights);
  } else if (byFixed) {
    amounts = input.splits.map((s) => s.fixedCents as number);
    const sum = amounts.reduce((a, b) => a + b, 0);
    if (Math.abs(sum - total) > 1) {
      throw new AppError(
        'invalid_splits',
        `Total fixed amounts ($${money(sum)}) must equal the total payment amount ($${money(total)}) including fees.`,
        'splits',
      );
    }
    // Within a cent: the largest share absorbs the difference so the shares sum exactly to the total.
    const largest = amounts.indexOf(Math.max(...amounts));
    amounts[largest]! += total - sum;
    weights = amounts.map((a) => Math.round((a * 10000) / total));
  } else {
    throw new AppError('invalid_splits', 'Give every split a percentage, or every split a fixed amount.', 'fundingSources');
  }

  const shares: PlannedShare[] = input.splits
    .map((s, i) => ({ source: sources.get(s.fundingSourceId)!, percentageBps: weights[i] ?? 0, amountCents: amounts[i] ?? 0 }))
    .filter((s) => s.amountCents > 0);
  if (shares.length === 0) throw new AppError('invalid_splits', 'Funding splits must add up to 100%', 'fundingSources');

  const plan: CollectionPlan = {
    kind: input.kind,
    name,
    cardholderName: displayName(user),
    merchant: input.merchant,
    description: input.description,
    amountCents: input.amountCents,
    feeCents,
    shares,
    idempotencyKey: input.idempotencyKey,
    lockedMerchantId: input.lockedMerchantId ?? null,
    lockedDomain: input.lockedDomain ?? null,
    extensionTokenId: input.extensionTokenId ?? null,
  };
  return { plan, tier };
}

export interface BcardView {
  id: string;
  name: string;
  cardholderName: string;
  cardNumber: string;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
  balance: string;
  spendingLimit: string;
  interval: 'single_use';
  status: 'active' | 'used' | 'expired' | 'canceled';
  expiresAt: string;
  createdAt: string;
  amount: string;
  fee: string;
  totalCharged: string;
  transactionId: string;
  fundingSources: ShareView[];
  lockedDomain: string | null;
  closedReason: 'too_many_incorrect_attempts' | null;
  /** Where it stands, with the figures its words need (stage.ts). */
  stage: BcardStageView;
}

export interface ShareView {
  fundingSourceId: string;
  name: string;
  last4: string;
  brand: string;
  percentage: number;
  amount: string;
  status: string;
  /** Its status in words' terms: a captured bank share whose debit still settles is bank_pending (stage.ts). */
  stage: ShareStage;
}

/**
 * Internal in-between states show as where they are heading; an authorized card is spoken for (used). An active card
 * past its expiry is expired already (nothing can spend it: spendBcard and revealBcard check the time), even before
 * the sweep has refunded it.
 */
const publicStatus = (b: BcardRow, now: Date): BcardView['status'] => {
  const s = b.status;
  if (s === 'active' && b.expiresAt <= now) return 'expired';
  return s === 'expiring' ? 'expired' : s === 'canceling' ? 'canceled' : s === 'authorized' ? 'used' : s;
};

export async function sharesOf(db: DbOrTx, collectionIds: string[]): Promise<Map<string, ShareView[]>> {
  const out = new Map<string, ShareView[]>();
  if (collectionIds.length === 0) return out;
  const rows = await db
    .select({
      share: schema.collectionShares,
      source: schema.fundingSources,
      debit: schema.bankDebits.status,
      bcardStatus: schema.bcards.status,
      // The share's latest dispute (issue 26), if any: one row per share, unlike a join.
      dispute: sql<'open' | 'won' | 'lost' | null>`(SELECT d.status FROM share_disputes d WHERE d.share_id = ${schema.collectionShares.id} ORDER BY d.opened_at DESC, d.id DESC LIMIT 1)`,
    })
    .from(schema.collectionShares)
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
    .leftJoin(schema.bankDebits, eq(schema.bankDebits.shareId, schema.collectionShares.id))
    .leftJoin(schema.bcards, eq(schema.bcards.collectionId, schema.collectionShares.collectionId))
    .where(inArray(schema.collectionShares.collectionId, collectionIds))
    .orderBy(asc(schema.collectionShares.position));
  for (const { share, source, debit, bcardStatus, dispute } of rows) {
    const list = out.get(share.collectionId) ?? [];
    list.push({
      fundingSourceId: source.id,
      name: source.name,
      last4: source.last4,
      brand: source.brand,
      percentage: share.percentageBps / 100,
      amount: money(share.amountCents),
      status: share.status,
      stage: shareStageOf(share, debit, bcardStatus === 'used', dispute),
    });
    out.set(share.collectionId, list);
  }
  return out;
}

function toBcardView(b: BcardRow, c: CollectionRow, shares: ShareView[], now: Date): BcardView {
  const status = publicStatus(b, now);
  const live = status === 'active';
  return {
    id: b.id,
    name: b.name,
    cardholderName: b.cardholderName,
    cardNumber: maskedNumber(b.last4),
    last4: b.last4,
    brand: b.brand,
    expiryMonth: b.expMonth,
    expiryYear: b.expYear,
    balance: money(live ? b.limitCents - b.spentCents : 0),
    spendingLimit: money(b.limitCents),
    interval: 'single_use',
    status,
    expiresAt: b.expiresAt.toISOString(),
    createdAt: b.createdAt.toISOString(),
    amount: money(c.amountCents),
    fee: money(c.feeCents),
    totalCharged: money(c.totalCents),
    transactionId: c.id,
    fundingSources: shares,
    lockedDomain: b.lockedDomain,
    closedReason: b.closedReason === 'too_many_incorrect_attempts' ? 'too_many_incorrect_attempts' : null,
    stage: bcardStageOf(c, b, now),
  };
}

async function bcardViews(db: Db, cards: BcardRow[], now: Date): Promise<BcardView[]> {
  if (cards.length === 0) return [];
  const cols = await db.select().from(schema.collections).where(inArray(schema.collections.id, cards.map((b) => b.collectionId)));
  const byId = new Map(cols.map((c) => [c.id, c]));
  const shares = await sharesOf(db, cols.map((c) => c.id));
  return cards.map((b) => toBcardView(b, byId.get(b.collectionId)!, shares.get(b.collectionId) ?? [], now));
}

/** A page of the bcards list: the spec's call (no parameters) gets the first page, the 50 newest; 100 at most. */
export const BCARDS_PAGE_DEFAULT = 50;
export const BCARDS_PAGE_MAX = 100;

/**
 * The user's bcards, newest first, a page at a time (keyset: `cursor` is the last card's time and id). A bcard is
 * live for a short session (an authorized one until its merchant captures, 7 days at most), so the first page
 * holds the live cards unless fifty newer ones were made meanwhile; the rest is history, as in Transactions.
 */
export async function listBcards(
  deps: AppDeps,
  userId: string,
  q: { limit: number; cursor: string | null } = { limit: BCARDS_PAGE_DEFAULT, cursor: null },
): Promise<{ data: BcardView[]; nextCursor: string | null }> {
  // A merchant's sandbox test bcards belong to the merchant's owner but are not the owner's cards to see or use.
  const conds: SQL[] = [eq(schema.bcards.userId, userId), eq(schema.bcards.sandbox, false)];
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    // A row value: SQLite seeks bcards_user_idx (user_id, created_at, id) to it.
    conds.push(sql`(${schema.bcards.createdAt}, ${schema.bcards.id}) < (${c.t}, ${c.id})`);
  }
  const rows = await deps.db
    .select()
    .from(schema.bcards)
    .where(and(...conds))
    .orderBy(desc(schema.bcards.createdAt), desc(schema.bcards.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: await bcardViews(deps.db, page, deps.clock.now()),
    nextCursor: rows.length > q.limit && last ? encodeCursor({ t: last.createdAt.getTime(), id: last.id }) : null,
  };
}

export async function getOwnedBcard(db: Db, userId: string, id: string): Promise<BcardRow> {
  const b = await firstRow(db, schema.bcards, and(eq(schema.bcards.id, id), eq(schema.bcards.userId, userId), eq(schema.bcards.sandbox, false)));
  if (!b) throw notFound('bcard');
  return b;
}

/** The view of any bcard row, whoever holds it (the checkout's answer about the sandbox test bcard that paid). */
export async function viewOfBcard(deps: AppDeps, bcard: BcardRow): Promise<BcardView> {
  const [view] = await bcardViews(deps.db, [bcard], deps.clock.now());
  return view!;
}

export async function getBcardView(deps: AppDeps, userId: string, id: string): Promise<BcardView> {
  const [view] = await bcardViews(deps.db, [await getOwnedBcard(deps.db, userId, id)], deps.clock.now());
  return view!;
}

/** Failure codes a collection can end with that are worth answering as they are. */
const REPLAYABLE_FAILURES = new Set<ErrorCode>(['insufficient_funds', 'card_declined', 'vendor_unavailable', 'processing_error']);

/** What a retried request (same Idempotency-Key) answers once the first attempt has ended. */
async function outcomeOfExisting(deps: AppDeps, userId: string, collectionId: string): Promise<BcardRow> {
  const c = await firstRow(deps.db, schema.collections, eq(schema.collections.id, collectionId));
  if (c?.status === 'failed') {
    const code = REPLAYABLE_FAILURES.has(c.failureCode as ErrorCode) ? (c.failureCode as ErrorCode) : 'processing_error';
    const details = c.failureDetails ? { details: c.failureDetails } : undefined;
    throw new AppError(code, c.failureMessage ?? undefined, undefined, undefined, details);
  }
  const b = await firstRow(deps.db, schema.bcards, eq(schema.bcards.collectionId, collectionId));
  if (!b || b.userId !== userId) throw new AppError('idempotency_key_in_use');
  return b;
}

/**
 * Collects the split and issues a bcard limited to the amount. All or nothing.
 * Fails with: validation_error, invalid_splits, resource_not_found, plan_limit_reached, insufficient_funds,
 * card_declined, vendor_unavailable, processing_error.
 */
export async function createBcard(
  deps: AppDeps,
  user: UserRow,
  input: Omit<PlanInput, 'kind' | 'merchant' | 'description'>,
): Promise<BcardView> {
  const card = await collectAndIssue(deps, user, { ...input, kind: 'bcard', merchant: null, description: null });
  return getBcardView(deps, user.id, card.id);
}

export async function collectAndIssue(deps: AppDeps, user: UserRow, input: PlanInput): Promise<BcardRow> {
  const { plan, tier } = await planCollection(deps, user, input);
  const { lease, existing } = await recordCollection(deps, user.id, plan, {
    monthlyTransactions: tier.monthlyTransactions,
    bcardGenerationLimit: tier.bcardGenerationLimit,
    planName: tier.displayName,
    tierName: tier.name,
  });
  if (existing) return outcomeOfExisting(deps, user.id, lease.collectionId);
  return runCollection(deps, lease, deps.bcardTtlMs);
}

/**
 * Cancels an unused bcard early: deactivated, and every share refunded. A bcard authorized for a merchant's
 * manual-capture payment is not the consumer's to cancel: refunding it would leave that payment waiting for a
 * capture that can never happen. Only the payment intent's cancel (by the merchant, or automatically after
 * AUTHORIZATION_TTL_MS) refunds it.
 * Fails with: resource_not_found, bcard_authorized, bcard_not_active.
 */
export async function cancelBcard(deps: AppDeps, userId: string, id: string): Promise<BcardView> {
  const b = await getOwnedBcard(deps.db, userId, id);
  if (b.status === 'authorized') throw new AppError('bcard_authorized');
  try {
    await refundUnusedBcard(deps, b, 'canceled', undefined, 'active');
  } catch (e) {
    // A merchant may have authorized it between the read above and the guarded update: say so, not "not active".
    if (e instanceof AppError && e.code === 'bcard_not_active') {
      const now = await getOwnedBcard(deps.db, userId, id);
      if (now.status === 'authorized') throw new AppError('bcard_authorized');
    }
    throw e;
  }
  return getBcardView(deps, userId, id);
}

/**
 * The full number, expiry and CVV of an active bcard, for the cardholder's checkout. Each reveal is recorded.
 * Fails with: resource_not_found, bcard_not_active.
 */
export async function revealBcard(deps: AppDeps, userId: string, id: string, meta: { ip: string; userAgent: string | null }) {
  const b = await getOwnedBcard(deps.db, userId, id);
  if (b.status !== 'active' || b.expiresAt <= deps.clock.now()) throw new AppError('bcard_not_active');
  const card = await deps.vendorFor(b.vendor).revealCard(b.vendorCardId);
  await deps.db.insert(schema.bcardReveals).values({
    id: `rv_${newToken().slice(0, 24)}`,
    bcardId: b.id,
    userId,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
    at: deps.clock.now(),
  });
  return { cardNumber: card.number, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: card.cvc, isDemoCard: false };
}

/**
 * Spends a bcard once: it becomes used and is deactivated, the amount moves to the merchant in the ledger, and
 * whatever the purchase left on it goes back to the sources. Fails with: bcard_not_active, validation_error.
 *
 * The spend commits with the collection in `refunding` under a lease, even when nothing is left on the card: the
 * processor's part (deactivating the card, refunding a remainder) comes after the commit, and if it fails the
 * spend still stands (the caller answers success) while the recovery sweep finishes that part.
 */
export async function spendBcard(
  deps: AppDeps,
  bcard: BcardRow,
  amountCents: number,
  purchase: { merchant: string; description: string | null; account: string },
  /** More writes that must commit with the spend (the payment intent's status and its event). */
  within?: (tx: DbOrTx) => Promise<void>,
  /**
   * `background`: answer once the spend has committed, and let the processor's part run on (a card network waiting
   * for an approval within its deadline: Stripe Issuing's 2 seconds). It logs its own failure; the sweep finishes it.
   */
  settle: 'await' | 'background' = 'await',
): Promise<void> {
  if (amountCents > bcard.limitCents - bcard.spentCents) {
    throw invalid('amount', `The amount exceeds what this bcard holds ($${money(bcard.limitCents - bcard.spentCents)}).`);
  }
  const at = deps.clock.now();
  const owner = newToken();
  await deps.db.transaction(async (tx) => {
    const res = await tx
      .update(schema.bcards)
      .set({ status: 'used', spentCents: amountCents, deactivatedAt: at })
      .where(
        and(
          eq(schema.bcards.id, bcard.id),
          // An authorized card (a manual-capture payment) is captured after its session may have ended.
          or(
            and(eq(schema.bcards.status, 'active'), gt(schema.bcards.expiresAt, at)),
            eq(schema.bcards.status, 'authorized'),
          ),
          eq(schema.bcards.spentCents, 0),
          sql`${schema.bcards.limitCents} >= ${amountCents}`,
        ),
      );
    if (res.rowsAffected !== 1) throw new AppError('bcard_not_active');
    await tx
      .update(schema.collections)
      .set({
        merchant: purchase.merchant,
        description: purchase.description,
        updatedAt: at,
        status: 'refunding',
        leaseOwner: owner,
        leaseUntil: new Date(at.getTime() + LEASE_MS),
      })
      .where(eq(schema.collections.id, bcard.collectionId));
    await postMovement(tx, {
      kind: 'bcard.spent',
      referenceId: bcard.id,
      at,
      postings: [
        { account: accounts.bcard(bcard.id), amountCents: -amountCents },
        { account: purchase.account, amountCents },
      ],
    });
    if (within) await within(tx);
    // In the spend's transaction: a `within` that fails (a lost race) takes the notice back with the spend.
    await noticeBcardSpent(tx, deps, bcard, { merchant: purchase.merchant, amountCents }, at);
  });
  const settling = settleAfterCommit(deps, { collectionId: bcard.collectionId, owner }, { bcardId: bcard.id, step: 'bcard spent' });
  if (settle === 'await') await settling;
}

export interface ProcessPaymentInput {
  amountCents: number;
  merchant: string;
  description: string | null;
  virtualCardId: string | null;
  splits: SplitInput[];
  idempotencyKey: string | null;
}

/**
 * The payment demo's purchase: with a bcard given, that bcard pays; otherwise the split is collected, a bcard
 * issued for exactly the amount, and spent at the merchant. Either way the purchase is recorded.
 * Fails with: everything createBcard fails with, bcard_not_active.
 */
export async function processPayment(deps: AppDeps, user: UserRow, input: ProcessPaymentInput) {
  let bcard: BcardRow;
  if (input.virtualCardId) {
    bcard = await getOwnedBcard(deps.db, user.id, input.virtualCardId);
  } else {
    if (input.splits.length === 0) throw new AppError('invalid_splits', 'Please configure at least one payment split', 'splits');
    bcard = await collectAndIssue(deps, user, {
      kind: 'purchase',
      name: `${input.merchant} purchase`,
      amountCents: input.amountCents,
      splits: input.splits,
      merchant: input.merchant,
      description: input.description,
      idempotencyKey: input.idempotencyKey,
    });
  }
  if (bcard.status === 'active') {
    await spendBcard(deps, bcard, input.amountCents, {
      merchant: input.merchant,
      // The payer's own words, or none: "Purchase at <merchant>" is written when read, in the reader's language.
      description: input.description,
      account: accounts.externalMerchants,
    });
  } else if (!(bcard.status === 'used' && bcard.spentCents === input.amountCents && !input.virtualCardId)) {
    throw new AppError('bcard_not_active');
  }
  const view = await getBcardView(deps, user.id, bcard.id);
  return {
    totalAmount: view.totalCharged,
    totalFees: view.fee,
    transaction: { id: view.transactionId },
    splits: view.fundingSources,
    virtualCard: view,
  };
}
