import { schema, writeUnit } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { releaseHolds } from './refund';
import { setSharesArgs, setSharesHeldOrCaptured } from './statements';
import { finishCapture } from './capture';
import {
  holdKey,
  LEASE_MS,
  LeaseLostError,
  load,
  now,
  phase,
  recordStatus,
  renewLease,
  setShare,
  setStatus,
  stillUnavailable,
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

export { recordCollection } from './record';
export { finishCapture } from './capture';

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

interface Decline {
  fundingSourceId: string;
  name: string;
  last4: string;
  code: string;
  message: string;
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
