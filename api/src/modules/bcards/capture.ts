import { schema, rowAsInserted, writeUnit } from '@bpay/db';
import { AppError, isStorageFailure } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId } from '../../lib/ids';
import { VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { accounts, postMovement } from '../ledger/service';
import { noticeBcardIssued } from './notices';
import { readRecipient } from '../notifications/service';
import { settleRefund } from './refund';
import { insertBcard, insertBcardArgs, setSharesArgs, setSharesHeldOrCaptured } from './statements';
import {
  holdKey,
  issueKey,
  LeaseLostError,
  load,
  now,
  phase,
  recordStatus,
  setStatus,
  stillUnavailable,
  type Lease,
  type Loaded,
} from './saga';

type CollectionRow = typeof schema.collections.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

/*
 * The saga's last phase: every hold captured, the bcard issued and the money moved onto it, as one unit of work as data
 * with the simulator and no bank shares (issue 30), else call by call; and a card issued but never recorded deactivated.
 */

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
