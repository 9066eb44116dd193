import { sql } from 'drizzle-orm';
import { schema, type DbOrTx, isUniqueViolationAt, rowAsInserted, slots, slotValues, sqlOnce, writeUnit } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, isStorageFailure, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { accounts, postMovement } from '../ledger/service';
import { assertBankStanding } from './bank-debits';
import { noticeBcardIssued } from './notices';
import { readRecipient } from '../notifications/service';
import { releaseHolds, settleRefund } from './refund';
import {
  collectionByKey,
  collectionsThisMonth,
  insertBcard,
  insertBcardArgs,
  insertCollection,
  insertCollectionArgs,
  insertShares,
  insertSharesArgs,
  liveSources,
  setSharesArgs,
  setSharesHeldOrCaptured,
} from './statements';
import {
  holdKey,
  issueKey,
  LEASE_MS,
  LeaseLostError,
  load,
  now,
  phase,
  recordStatus,
  renewLease,
  setShare,
  setStatus,
  type Lease,
  type Loaded,
} from './saga';

/*
 * All-or-nothing split collection. A collection is recorded first (status holding), then every share is held at
 * the processor; only when all hold are they captured (capturing) and a bcard issued (completed). A failure voids
 * every hold. Refunds (an unused bcard, or what a purchase left on it) go through refunding (refund.ts).
 *
 * Every processor call carries an idempotency key derived from the share or collection id, so the recovery sweep
 * (sweep.ts) can repeat any step after a crash: holding is undone, capturing is finished, refunding is settled. The
 * state machine, the lease and phase() are in saga.ts.
 */

type CollectionRow = typeof schema.collections.$inferSelect;
type SourceRow = typeof schema.fundingSources.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

export interface PlannedShare {
  source: SourceRow;
  percentageBps: number;
  amountCents: number;
}

export interface CollectionPlan {
  kind: 'bcard' | 'purchase';
  name: string;
  cardholderName: string;
  merchant: string | null;
  description: string | null;
  amountCents: number;
  feeCents: number;
  shares: PlannedShare[];
  idempotencyKey: string | null;
  lockedMerchantId: string | null;
  /** The site (registrable domain) the bcard is locked to: the browser extension's. */
  lockedDomain: string | null;
  /** The connected browser that asked for it (only it may reveal the card through its token). */
  extensionTokenId: string | null;
}

const startOfMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * Records the collection and its shares (status holding) in one transaction, after checking the plan's monthly
 * limits inside it, so concurrent requests cannot pass a limit together. Returns the lease to work under.
 * Fails with: plan_limit_reached.
 */
export async function recordCollection(
  deps: AppDeps,
  userId: string,
  plan: CollectionPlan,
  limits: RecordLimits,
): Promise<{ lease: Lease; existing: boolean; recorded?: Loaded }> {
  const owner = newToken();
  const at = now(deps);
  const id = newId('col');
  const bankCents = plan.shares.filter((s) => s.source.type === 'bank_account').reduce((a, s) => a + s.amountCents, 0);
  // Without bank shares every check is one assertion: the record is a unit of work as data (issue 30 §2).
  if (bankCents === 0) return recordAsUnit(deps, userId, plan, limits, { id, owner, at });
  return deps.db.transaction(async (tx) => {
    if (plan.idempotencyKey) {
      const prior = await collectionByKey(tx).get({ userId, key: plan.idempotencyKey });
      if (prior) return { lease: { collectionId: prior.id, owner: prior.leaseOwner }, existing: true };
    }
    await checkRecord(tx, userId, plan, limits, at, bankCents);
    const { collection, shares } = newCollectionRows(deps, userId, plan, { id, owner, at });
    await insertCollection(tx).run(insertCollectionArgs(collection));
    await insertShares(tx, shares.length).run(insertSharesArgs(id, 'pending', at, shares));
    return { lease: { collectionId: id, owner }, existing: false, recorded: loadedOf(plan, collection, shares) };
  });
}

interface RecordLimits {
  monthlyTransactions: number;
  bcardGenerationLimit: number;
  planName: string;
  tierName: string;
}

/** The plan's monthly cap on collections: the lower of its two limits (-1 is unlimited), or Infinity. */
const monthlyCap = (limits: RecordLimits) =>
  Math.min(...[limits.monthlyTransactions, limits.bcardGenerationLimit].filter((l) => l !== -1), Number.POSITIVE_INFINITY);

/**
 * What recording a collection rests on, checked where it is recorded, so concurrent requests cannot pass a limit
 * together: the sources still the user's and active, nothing owed (and the bank exposure under the cap), the month's
 * collections under the plan's cap. Fails with: resource_not_found, validation_error (a paused source),
 * account_restricted, bank_exposure_limit_reached, plan_limit_reached.
 */
async function checkRecord(tx: DbOrTx, userId: string, plan: CollectionPlan, limits: RecordLimits, at: Date, bankCents: number): Promise<void> {
  await assertSourcesStillUsable(tx, userId, plan.shares);
  await assertBankStanding(tx, userId, bankCents, { name: limits.tierName, displayName: limits.planName });
  const row = await collectionsThisMonth(tx).get({ userId, since: startOfMonth(at).getTime() });
  const cap = monthlyCap(limits);
  if (Number(row?.n ?? 0) >= cap) {
    throw new AppError(
      'plan_limit_reached',
      `Your ${limits.planName} plan allows ${cap} bcards a month, and you have used them all. ` + 'Upgrade your plan or wait for next month.',
    );
  }
}


/** The collection's and its shares' rows as they are inserted (pending, holding): built here, never read back. */
function newCollectionRows(deps: AppDeps, userId: string, plan: CollectionPlan, made: { id: string; owner: string; at: Date }) {
  const { id, owner, at } = made;
  const collection = rowAsInserted(schema.collections, {
    id,
    userId,
    kind: plan.kind,
    status: 'holding',
    amountCents: plan.amountCents,
    feeCents: plan.feeCents,
    totalCents: plan.amountCents + plan.feeCents,
    name: plan.name,
    cardholderName: plan.cardholderName,
    merchant: plan.merchant,
    description: plan.description,
    lockedMerchantId: plan.lockedMerchantId,
    lockedDomain: plan.lockedDomain,
    extensionTokenId: plan.extensionTokenId,
    vendor: deps.vendor.name,
    idempotencyKey: plan.idempotencyKey,
    leaseOwner: owner,
    leaseUntil: new Date(at.getTime() + LEASE_MS),
    createdAt: at,
    updatedAt: at,
  });
  const shares = plan.shares.map((s, position) => ({ id: newId('shr'), fundingSourceId: s.source.id, position, percentageBps: s.percentageBps, amountCents: s.amountCents }));
  return { collection, shares };
}

/** The saga's next phase starts from what was recorded, with the sources the plan read (checked again on recording). */
function loadedOf(plan: CollectionPlan, collection: CollectionRow, shares: ReturnType<typeof newCollectionRows>['shares']): Loaded {
  const rows = shares.map((sh) => rowAsInserted(schema.collectionShares, { ...sh, collectionId: collection.id, status: 'pending', updatedAt: collection.updatedAt }));
  return { collection, shares: rows.map((share) => ({ ...share, source: plan.shares[share.position]!.source })) };
}

/** The record's checks, read again inside its unit: one assertion per share count, its SQL built once. */
const recordConditions = new Map<number, () => { sql: string; params: unknown[] }>();
function recordCondition(n: number) {
  let built = recordConditions.get(n);
  if (!built) {
    const fs = schema.fundingSources;
    const lp = schema.ledgerPostings;
    const col = schema.collections;
    const ph = sql.placeholder;
    built = sqlOnce(
      () => sql`(SELECT count(*) FROM ${fs} WHERE ${fs.userId} = ${ph('userId')} AND ${fs.isActive} = 1 AND ${fs.deletedAt} IS NULL
          AND ${fs.id} IN (${sql.join(slots('src', n), sql`, `)})) = ${ph('distinct')}
        AND coalesce((SELECT sum(${lp.amountCents}) FROM ${lp} WHERE ${lp.account} = ${ph('receivable')}), 0) >= 0
        AND (${ph('cap')} < 0 OR (SELECT count(*) FROM ${col} WHERE ${col.userId} = ${ph('userId')} AND ${col.status} != 'failed'
          AND ${col.kind} != 'sandbox' AND ${col.createdAt} >= ${ph('since')}) <= ${ph('cap')})`,
    );
    recordConditions.set(n, built);
  }
  return built();
}

/** The record's assertion failed: something it rested on changed since it was checked. */
class RecordRaced extends Error {}

/**
 * recordCollection without bank shares as ONE unit of work as data, nothing read first: the collection and its shares
 * written, then an assertion that reads inside the unit what the record rests on (the sources still the user's and
 * active, nothing owed, this month's count with this one within the plan's cap). When it fails, nothing was written
 * and the checks run on the database to say which fact does not hold; the same Idempotency-Key already recorded fails
 * the insert (its UNIQUE index) and that collection is the answer.
 */
async function recordAsUnit(
  deps: AppDeps,
  userId: string,
  plan: CollectionPlan,
  limits: RecordLimits,
  made: { id: string; owner: string; at: Date },
): Promise<{ lease: Lease; existing: boolean; recorded?: Loaded }> {
  const prior = async () => {
    const row = plan.idempotencyKey ? await collectionByKey(deps.db).get({ userId, key: plan.idempotencyKey }) : undefined;
    return row ? { lease: { collectionId: row.id, owner: row.leaseOwner }, existing: true } : null;
  };
  for (let attempt = 1; ; attempt++) {
    const { collection, shares } = newCollectionRows(deps, userId, plan, made);
    const unit = writeUnit(deps.db);
    const at = unit.size;
    await insertCollection(unit.tx).run(insertCollectionArgs(collection));
    await insertShares(unit.tx, shares.length).run(insertSharesArgs(collection.id, 'pending', made.at, shares));
    // After the insert: this month's count includes the collection just written.
    const ids = plan.shares.map((s) => s.source.id);
    const cap = monthlyCap(limits);
    unit.assert(
      recordCondition(ids.length),
      slotValues('src', ids, {
        userId,
        distinct: new Set(ids).size,
        receivable: accounts.receivable(userId),
        cap: cap === Number.POSITIVE_INFINITY ? -1 : cap,
        since: startOfMonth(made.at).getTime(),
      }),
      () => new RecordRaced(),
    );
    try {
      await unit.commit();
      return { lease: { collectionId: collection.id, owner: made.owner }, existing: false, recorded: loadedOf(plan, collection, shares) };
    } catch (e) {
      if (isUniqueViolationAt(e, at)) {
        const raced = await prior();
        if (raced) return raced;
      }
      if (!(e instanceof RecordRaced)) throw e;
      // The checks say which fact does not hold (they throw); one that changed back meanwhile is tried again.
      await checkRecord(deps.db, userId, plan, limits, made.at, 0);
      // Three times the month's count was at the cap inside the unit and under it outside: collections in progress
      // that failed meanwhile count while they run. Said as the limit it is.
      if (attempt >= 3) {
        throw new AppError('plan_limit_reached', `Your ${limits.planName} plan's bcards for this month are all in use or being made. Try again in a moment.`);
      }
    }
  }
}

/**
 * The plan's sources were checked when it was made, outside this transaction; a source removed or paused since
 * (a DELETE racing the request) must not be charged. Checked again here, where the collection is recorded: a
 * removal commits either before (this request fails) or after (the removal sees a live collection and is refused).
 */
async function assertSourcesStillUsable(tx: DbOrTx, userId: string, shares: PlannedShare[]): Promise<void> {
  if (shares.length === 0) return;
  const rows = await liveSources(tx, shares.length).all(slotValues('id', shares.map((s) => s.source.id), { userId }));
  const now = new Map(rows.map((r) => [r.id, r.isActive]));
  for (const [i, { source }] of shares.entries()) {
    if (!now.has(source.id)) throw notFound('funding source');
    if (!now.get(source.id)) {
      throw invalid(`fundingSources.${i}.fundingSourceId`, `The funding source ${source.name} (•••• ${source.last4}) is paused.`);
    }
  }
}

interface Decline {
  fundingSourceId: string;
  name: string;
  last4: string;
  code: string;
  message: string;
}

const money = (c: number) => formatDecimal(c as Cents);
const label = (s: SourceRow) => `${s.name} (•••• ${s.last4})`;

/** The spec's shortfall details, read after the holds are released so the balances are what is really there. */
async function insufficientFundsError(deps: AppDeps, loaded: Loaded): Promise<AppError> {
  const balances = await Promise.all(
    loaded.shares.map((s) => deps.vendorFor(s.source.vendor).availableBalance(s.source.vendorToken).catch(() => null)),
  );
  const totalRequired = loaded.collection.totalCents;
  const totalAvailable = balances.reduce<number>((a, b) => a + (b ?? 0), 0);
  const short = loaded.shares
    .map((s, i) => ({ s, available: balances[i] ?? null }))
    .filter(({ s, available }) => s.status === 'declined' || (available !== null && available < s.amountCents));
  const insufficientSources = short.map(({ s, available }) => ({
    fundingSourceId: s.source.id,
    name: label(s.source),
    requiredAmount: money(s.amountCents),
    availableBalance: available === null ? null : money(available),
  }));
  const parts = insufficientSources.map(
    (x) => `${x.name} needs $${x.requiredAmount}${x.availableBalance === null ? '' : `, has $${x.availableBalance}`}`,
  );
  return new AppError(
    'insufficient_funds',
    `Insufficient funds: ${parts.join('; ')}. Need $${money(totalRequired)} in total.`,
    'fundingSources',
    undefined,
    {
      details: {
        totalRequired: money(totalRequired),
        totalAvailable: money(totalAvailable),
        insufficientSources,
      },
    },
  );
}

/**
 * The processor stopped answering while a failed collection was being undone. The collection keeps its status
 * and our lease; once the lease runs out the recovery sweep finishes the undoing. Nothing stays charged, so the
 * caller gets vendor_unavailable rather than an opaque 500.
 */
function stillUnavailable(e: unknown): never {
  if (e instanceof VendorUnavailableError) throw new AppError('vendor_unavailable');
  throw e;
}

/** What placing the holds came to: each held share's hold, and why the first share that did not hold did not. */
interface HoldOutcome {
  held: Map<string, string>;
  declined: (Decline & { shareId: string }) | null;
  /** The share whose hold call got no answer: it may have been placed. */
  unanswered: string | null;
  unavailable: boolean;
}

/** A card share whose debit's guard failed inside the hold unit: its balance was spent since it was read. */
class ShareShort extends Error {
  constructor(readonly shareId: string) {
    super(`share ${shareId}: insufficient funds`);
  }
}

/**
 * The hold phase as ONE unit of work as data (issue 30 §2, db/unit.ts), for the simulator (vendor.prepareHolds): the
 * cards and the balances of bank shares are read first, each share decided in order as hold() would decide it (the
 * first that would decline is the decline, and nothing is held); otherwise every hold's guarded debit and row, the
 * shares held and the collection holding -> capturing (guarded by the lease) are one unit: against a libSQL server one
 * round trip, on the file one commit as before. A balance spent between the read and the unit fails its guard: the
 * unit takes effect not at all, and that share is declined for insufficient funds, as hold() would have declined it.
 */
async function holdAsUnit(deps: AppDeps, vendor: PaymentVendor, lease: Lease, loaded: Loaded): Promise<HoldOutcome | null> {
  const cards = loaded.shares.filter((s) => s.source.type !== 'bank_account');
  const prepared = await vendor.prepareHolds!(cards.map((s) => ({ token: s.source.vendorToken, amountCents: s.amountCents, idempotencyKey: holdKey(s.id) })));
  const preparedOf = new Map(cards.map((s, i) => [s.id, prepared[i]!]));
  const declined = async (share: Loaded['shares'][number], e: VendorDeclineError): Promise<HoldOutcome> => {
    const { id: fundingSourceId, name, last4 } = share.source;
    const decline = { shareId: share.id, fundingSourceId, name, last4, code: e.code, message: e.message };
    await deps.db.transaction(async (tx) => {
      await setShare(tx, deps, share.id, { status: 'declined', declineCode: decline.code, declineMessage: decline.message });
      await renewLease(tx, deps, lease);
    });
    return { held: new Map(), declined: decline, unanswered: null, unavailable: false };
  };
  for (const share of loaded.shares) {
    if (share.source.type === 'bank_account') {
      // A debit cannot be held: its balance is checked now, and the debit initiated at capture (as the phase does).
      const available = await vendor.availableBalance(share.source.vendorToken);
      if (available !== null && available < share.amountCents) return declined(share, new VendorDeclineError('insufficient_funds', 'The bank account has insufficient funds.'));
      continue;
    }
    const p = preparedOf.get(share.id)!;
    if ('decline' in p) return declined(share, p.decline);
  }
  const unit = writeUnit(deps.db);
  const held = new Map<string, string>();
  for (const share of cards) {
    const p = preparedOf.get(share.id)!;
    if ('decline' in p) continue;
    await p.record(unit, () => new ShareShort(share.id));
    held.set(share.id, p.holdId);
  }
  if (held.size > 0) await setSharesHeldOrCaptured(unit.tx, held.size).run(setSharesArgs('held', now(deps), [...held]));
  await recordStatus(unit, deps, lease, 'holding', 'capturing', { leaseUntil: new Date(now(deps).getTime() + LEASE_MS) });
  try {
    await unit.commit();
  } catch (e) {
    if (e instanceof LeaseLostError) throw e;
    if (!(e instanceof ShareShort)) {
      // Nothing of the unit took effect (a hold already under its key after a crash, a refused write): hold call by call.
      deps.log.warn('the hold unit failed; holding call by call', { collectionId: lease.collectionId, error: e });
      return null;
    }
    const share = loaded.shares.find((s) => s.id === e.shareId)!;
    return declined(share, new VendorDeclineError('insufficient_funds', 'Your card has insufficient funds.'));
  }
  return { held, declined: null, unanswered: null, unavailable: false };
}

/**
 * Places every hold, then captures them all and issues the bcard: with the recording of the collection, three
 * commits (phase()). On any failure every hold is voided and the collection fails with the reason; the error thrown
 * is what the caller answers.
 * Fails with: insufficient_funds (with details), card_declined (each share's decline), vendor_unavailable.
 */
export async function runCollection(deps: AppDeps, lease: Lease, bcardTtlMs: number, recorded?: Loaded): Promise<BcardRow> {
  const vendor = deps.vendor;
  const loaded = recorded ?? (await load(deps.db, lease.collectionId));
  const outcome = (vendor.prepareHolds && vendor.within ? await holdAsUnit(deps, vendor, lease, loaded) : null) ?? await phase(
    deps,
    vendor,
    lease,
    async (v, beforeCall): Promise<HoldOutcome> => {
      const held = new Map<string, string>();
      for (const share of loaded.shares) {
        await beforeCall();
        try {
          if (share.source.type === 'bank_account') {
            // A debit cannot be held: its balance is checked now (when the processor can tell), and the debit is
            // initiated in finishCapture, once every card share is held and captured.
            const available = await v.availableBalance(share.source.vendorToken);
            if (available !== null && available < share.amountCents) {
              throw new VendorDeclineError('insufficient_funds', 'The bank account has insufficient funds.');
            }
            continue;
          }
          const { holdId } = await v.hold(share.source.vendorToken, share.amountCents, {
            idempotencyKey: holdKey(share.id),
            description: `bpay ${loaded.collection.name}`,
          });
          held.set(share.id, holdId);
        } catch (e) {
          if (e instanceof VendorDeclineError) {
            const { id: fundingSourceId, name, last4 } = share.source;
            return {
              held,
              declined: { shareId: share.id, fundingSourceId, name, last4, code: e.code, message: e.message },
              unanswered: null,
              unavailable: false,
            };
          }
          if (e instanceof VendorUnavailableError) return { held, declined: null, unanswered: share.id, unavailable: true };
          throw e;
        }
      }
      return { held, declined: null, unanswered: null, unavailable: false };
    },
    async (tx, answered) => {
      // Every held share in one statement (built once per count).
      if (answered.held.size > 0) {
        await setSharesHeldOrCaptured(tx, answered.held.size).run(setSharesArgs('held', now(deps), [...answered.held]));
      }
      const d = answered.declined;
      if (d) await setShare(tx, deps, d.shareId, { status: 'declined', declineCode: d.code, declineMessage: d.message });
      if (d || answered.unavailable) await renewLease(tx, deps, lease);
      else await setStatus(tx, deps, lease, 'holding', 'capturing', { leaseUntil: new Date(now(deps).getTime() + LEASE_MS) });
      return answered;
    },
  );

  if (outcome.declined || outcome.unavailable) {
    const placed = (shareId: string) => shareId === outcome.unanswered;
    await releaseHolds(deps, vendor, await load(deps.db, lease.collectionId), placed).catch(stillUnavailable);
    const released = await load(deps.db, lease.collectionId);
    const declines: Decline[] = outcome.declined ? [outcome.declined].map(({ shareId: _, ...d }) => d) : [];
    let error: AppError;
    if (outcome.unavailable) error = new AppError('vendor_unavailable');
    else if (declines.every((d) => d.code === 'insufficient_funds')) error = await insufficientFundsError(deps, released);
    else {
      error = new AppError(
        'card_declined',
        `A funding source was declined: ${declines.map((d) => `${d.name} (•••• ${d.last4}): ${d.message}`).join('; ')}`,
        'fundingSources',
        undefined,
        { details: { declines } },
      );
    }
    const details = (error.details?.details ?? null) as Record<string, unknown> | null;
    await setStatus(deps.db, deps, lease, 'holding', 'failed', {
      failureCode: error.code,
      failureMessage: error.message,
      failureDetails: details,
    });
    throw error;
  }

  const shares = loaded.shares.map((s) => ({ ...s, status: 'held' as const, vendorHoldId: outcome.held.get(s.id) ?? null }));
  return finishCapture(deps, lease, bcardTtlMs, { collection: { ...loaded.collection, status: 'capturing' }, shares });
}

/** The issued bcard's row, as inserted (built, not read back: the answer's view starts from it). */
function newBcardRow(collection: CollectionRow, card: { cardId: string; brand: string; last4: string; expMonth: number; expYear: number }, expiresAt: Date, at: Date): BcardRow {
  return rowAsInserted(schema.bcards, {
    id: newId('bc'),
    userId: collection.userId,
    collectionId: collection.id,
    name: collection.name,
    cardholderName: collection.cardholderName,
    vendor: collection.vendor,
    vendorCardId: card.cardId,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    limitCents: collection.amountCents,
    status: 'active',
    lockedMerchantId: collection.lockedMerchantId,
    lockedDomain: collection.lockedDomain,
    extensionTokenId: collection.extensionTokenId,
    // A merchant's split sandbox test bcard (test-helpers/split.ts) is collected here too: still play money.
    sandbox: collection.kind === 'sandbox',
    expiresAt,
    createdAt: at,
  });
}

/** The capture's movement: each source pays its share, the bcard holds the amount, bpay keeps the fee. */
function captureMovement(loaded: Loaded, bcardId: string, at: Date) {
  return {
    kind: 'collection.captured',
    referenceId: loaded.collection.id,
    at,
    postings: [
      ...loaded.shares.map((s) => ({ account: accounts.fundingSource(s.source.id), amountCents: -s.amountCents })),
      { account: accounts.bcard(bcardId), amountCents: loaded.collection.amountCents },
      { account: accounts.fees, amountCents: loaded.collection.feeCents },
    ],
  };
}

/** The capture unit cannot be done as decided (a hold not capturable, a card issued meanwhile): the phase decides. */
class CaptureFallback extends Error {}

/**
 * From capturing, for the simulator without bank shares: every capture, the card issued, the shares captured,
 * capturing -> completed (guarded by the lease), the bcard, its postings and its notice, as ONE unit of work as data
 * (issue 30 §2), decided from reads made first (the holds' ids, the card's number, the owner for the notice). Null when
 * the unit took effect not at all for a reason the call-by-call phase handles (a capture refused, a race with the
 * sweep, the database refusing the write): finishCapture then runs that phase, with the same keys.
 */
async function captureAsUnit(deps: AppDeps, vendor: PaymentVendor, lease: Lease, bcardTtlMs: number, loaded: Loaded): Promise<BcardRow | null> {
  const { collection } = loaded;
  const holdIds = new Map<string, string>();
  for (const share of loaded.shares) {
    const holdId = share.vendorHoldId ?? (await vendor.findHold(holdKey(share.id)))?.holdId;
    if (!holdId) return null;
    holdIds.set(share.id, holdId);
  }
  const at = now(deps);
  const expiresAt = new Date(at.getTime() + bcardTtlMs);
  const { card, record } = await vendor.prepareCapture!([...holdIds.values()], {
    limitCents: collection.amountCents,
    expiresAt,
    cardholderName: collection.cardholderName,
    singleUse: true,
    idempotencyKey: issueKey(collection.id),
  });
  const owner = collection.kind === 'bcard' ? await readRecipient(deps.db, collection.userId) : null;
  const unit = writeUnit(deps.db);
  await record(unit, () => new CaptureFallback());
  await setSharesHeldOrCaptured(unit.tx, holdIds.size).run(setSharesArgs('captured', at, [...holdIds]));
  await recordStatus(unit, deps, lease, 'capturing', 'completed');
  const bcard = newBcardRow(collection, card, expiresAt, at);
  await insertBcard(unit.tx).run(insertBcardArgs(bcard));
  await postMovement(unit.tx, captureMovement(loaded, bcard.id, at));
  await noticeBcardIssued(unit.tx, deps, bcard, collection, loaded.shares.length, at, owner);
  try {
    await unit.commit();
    return bcard;
  } catch (e) {
    if (e instanceof LeaseLostError) throw e;
    if (!(e instanceof CaptureFallback)) deps.log.warn('the capture unit failed; capturing call by call', { collectionId: collection.id, error: e });
    return null;
  }
}

/**
 * From capturing: captures every hold (again, harmlessly, after a crash), issues the bcard under the
 * collection's key and completes, all postings in the same commit as the capture's record (phase()). If that
 * cannot be done, the collection moves to refunding and every share goes back. `known` is the collection as its
 * caller has just recorded it (the sweep reads it afresh).
 */
export async function finishCapture(deps: AppDeps, lease: Lease, bcardTtlMs: number, known?: Loaded): Promise<BcardRow> {
  const loaded = known ?? (await load(deps.db, lease.collectionId));
  const { collection } = loaded;
  const vendor = deps.vendorFor(collection.vendor);
  if (vendor.prepareCapture && vendor.within && loaded.shares.every((s) => s.source.type !== 'bank_account')) {
    const issued = await captureAsUnit(deps, vendor, lease, bcardTtlMs, loaded);
    if (issued) return issued;
    // The unit took effect not at all: the phase below does it call by call, and says why it cannot.
  }
  let issueAttempted = false;
  try {
    return await phase(
      deps,
      vendor,
      lease,
      async (v, beforeCall) => {
        const holdIds = new Map<string, string>();
        for (const share of loaded.shares) {
          if (share.source.type === 'bank_account') continue;
          await beforeCall();
          const holdId = share.vendorHoldId ?? (await v.findHold(holdKey(share.id)))?.holdId;
          if (!holdId) throw new Error(`share ${share.id} has no hold to capture`);
          await v.capture(holdId);
          holdIds.set(share.id, holdId);
        }
        // Every card share is captured: now the bank debits (the same key after a crash names the same debit).
        for (const share of loaded.shares) {
          if (share.source.type !== 'bank_account') continue;
          await beforeCall();
          const { debitId } = await v.debitBank(share.source.vendorToken, share.amountCents, {
            idempotencyKey: holdKey(share.id),
            description: `bpay ${collection.name}`,
          });
          holdIds.set(share.id, debitId);
        }
        await beforeCall();
        const expiresAt = new Date(now(deps).getTime() + bcardTtlMs);
        issueAttempted = true;
        const card = await v.issueCard({
          limitCents: collection.amountCents,
          expiresAt,
          cardholderName: collection.cardholderName,
          singleUse: true,
          idempotencyKey: issueKey(collection.id),
        });
        return { holdIds, card, expiresAt };
      },
      async (tx, { holdIds, card, expiresAt }) => {
        // Every share captured in one statement (built once per count), each with its hold's or debit's id.
        const captured = loaded.shares.map((share): [string, string | null] => [share.id, holdIds.get(share.id) ?? null]);
        await setSharesHeldOrCaptured(tx, captured.length).run(setSharesArgs('captured', now(deps), captured));
        for (const share of loaded.shares) {
          const vendorHoldId = holdIds.get(share.id) ?? null;
          if (share.source.type === 'bank_account' && vendorHoldId) {
            await tx
              .insert(schema.bankDebits)
              .values({
                shareId: share.id,
                collectionId: collection.id,
                userId: collection.userId,
                fundingSourceId: share.source.id,
                amountCents: share.amountCents,
                vendorDebitId: vendorHoldId,
                status: 'pending',
                initiatedAt: now(deps),
              })
              .onConflictDoNothing();
          }
        }
        await setStatus(tx, deps, lease, 'capturing', 'completed');
        const bcard = newBcardRow(collection, card, expiresAt, now(deps));
        await insertBcard(tx).run(insertBcardArgs(bcard));
        await postMovement(tx, captureMovement(loaded, bcard.id, now(deps)));
        // With the capture's record: the guarded capturing -> completed above lets exactly one worker get here.
        await noticeBcardIssued(tx, deps, bcard, collection, loaded.shares.length, now(deps));
        return bcard;
      },
    );
  } catch (e) {
    if (e instanceof LeaseLostError) throw e;
    // The database refused the record (a full disk, issue 27): what the processor did stands, the collection stays
    // capturing under our lease, and once the lease runs out the sweep finishes it forward, with the same keys (the
    // same captures, the same card). Undoing now would fail on the same disk, and deactivating the card would leave
    // the sweep to record a bcard whose card is dead.
    if (isStorageFailure(e)) throw e;
    deps.log.error('capture or card issuing failed; refunding the collection', { collectionId: collection.id, error: e });
    // A card issued inside the phase's transaction (the simulator) was rolled back with it: there is none to stop.
    if (issueAttempted && !vendor.within) await deactivateOrphanCard(deps, vendor, collection).catch(() => undefined);
    await setStatus(deps.db, deps, lease, 'capturing', 'refunding', {
      // The reason is written from the code when read (lib/server-words.ts), in the reader's language.
      failureCode: 'processing_error',
      failureMessage: null,
    });
    await settleRefund(deps, lease).catch(stillUnavailable);
    throw e instanceof VendorUnavailableError
      ? new AppError('vendor_unavailable')
      : new AppError('processing_error', 'The bcard could not be issued. Every share was returned to its source.');
  }
}

/**
 * The card may exist at the processor even though bpay never recorded it (the answer was lost, or the recording
 * failed). Issuing is idempotent per collection, so asking again returns that card (or a new one, if none was
 * made), and it is deactivated: no card outlives a collection that failed. Best effort; nobody knows its number.
 */
async function deactivateOrphanCard(deps: AppDeps, vendor: PaymentVendor, collection: CollectionRow): Promise<void> {
  const card = await vendor.issueCard({
    limitCents: collection.amountCents,
    expiresAt: now(deps),
    cardholderName: collection.cardholderName,
    singleUse: true,
    idempotencyKey: issueKey(collection.id),
  });
  await vendor.deactivateCard(card.cardId);
}
