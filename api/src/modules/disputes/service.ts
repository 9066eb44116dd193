import { and, eq, gte, inArray, lt, ne, or, sql } from 'drizzle-orm';
import { firstRow, schema, type DbOrTx } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { newId } from '../../lib/ids';
import { creditOwed, owedCents } from '../funding-sources/bank-standing';
import { accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';

/*
 * Disputes (chargebacks) of a funding share (issue 26): the consumer asked their card's issuer for a share back after
 * the bcard was made. The processor took the amount back from bpay and gave it to the card, so the consumer now owes
 * it, exactly as for a bank debit returned after use (bcards/bank-debits.ts):
 *
 *   opened  share_disputes row (open)     share.disputed      funding_source:<src> +amount, receivable:<user> -amount
 *   won     status won (bpay got it back) share.dispute_won   funding_source:<src> -amount, receivable:<user> +amount
 *   lost    status lost                   (none: the amount stays owed, repaid like any receivable)
 *
 * While anything is owed, new bcards are refused (assertBankStanding: account_restricted); a won dispute lifts that
 * when nothing else is owed. Each fact is applied in ONE transaction with its ledger movement, its notice and
 * whatever the caller records with it (a Stripe event's id, an admin's audit row), so a crash leaves all or nothing
 * and a replay changes nothing. The processor's facts may arrive out of order: a close for a dispute never seen
 * opens and closes it in one go. A closed dispute is final.
 */

export type DisputeRow = typeof schema.shareDisputes.$inferSelect;
export type DisputeVendor = DisputeRow['vendor'];
/** What the processor says of the money: withdrawn (open), given back to bpay (won), kept by the card (lost). */
export type DisputeOutcome = 'open' | 'won' | 'lost';
export type DisputeApplied = 'opened' | 'won' | 'lost' | 'updated' | 'ignored';

export interface DisputeFact {
  vendor: DisputeVendor;
  vendorDisputeId: string;
  shareId: string;
  /** What the processor says is disputed, in cents. */
  amountCents: number;
  /** The issuer's reason (fraudulent, product_not_received, ...). */
  reason: string;
  /** The processor's own status, kept as heard. */
  vendorStatus: string;
  /** Null: a status that moves no money (an inquiry, a status bpay does not know): recorded on a known dispute only. */
  outcome: DisputeOutcome | null;
}

export interface DisputeResult {
  applied: DisputeApplied;
  dispute: DisputeRow | null;
}

/** Share statuses a dispute can follow: the card was charged (and maybe refunded since). */
export const DISPUTABLE_SHARE_STATUSES = ['captured', 'refunded'] as const;

const money = (c: number) => formatDecimal(c as Cents);

/**
 * Applies one dispute fact, once. `within` runs first in the same transaction (marking a Stripe event applied, an
 * audit row); when it throws, nothing is written. Answers what changed: opened, won, lost, updated (the processor's
 * status only), or ignored (an inquiry never opened, a dispute refused: logged).
 */
export async function applyDisputeFact(
  deps: AppDeps,
  fact: DisputeFact,
  within?: (tx: DbOrTx) => Promise<void>,
): Promise<DisputeResult> {
  return deps.db.transaction(async (tx) => {
    if (within) await within(tx);
    const at = deps.clock.now();
    let row = await disputeByVendorId(tx, fact.vendor, fact.vendorDisputeId);
    if (!row) {
      if (fact.outcome === null) {
        deps.log.info('a dispute status that moves no money (an inquiry) for a dispute not open: nothing recorded', {
          vendorDisputeId: fact.vendorDisputeId,
          vendorStatus: fact.vendorStatus,
          shareId: fact.shareId,
        });
        return { applied: 'ignored', dispute: null };
      }
      const opened = await openDispute(tx, deps, fact, at, fact.outcome === 'open');
      if (!opened) return { applied: 'ignored', dispute: null };
      if (fact.outcome === 'open') return { applied: 'opened', dispute: opened };
      row = opened;
    } else if (row.shareId !== fact.shareId) {
      // The processor's dispute is of one charge: a fact naming another share is the records disagreeing, not news.
      deps.log.error('a dispute fact names another share than the dispute recorded: nothing changed', {
        disputeId: row.id,
        shareId: row.shareId,
        factShareId: fact.shareId,
      });
      return { applied: 'ignored', dispute: row };
    } else if (row.status !== 'open') {
      // An open dispute's status after its close is an earlier event arriving late (an appeal's is news): kept closed.
      if (fact.outcome === 'open' && !fact.vendorStatus.startsWith('appeal_')) return { applied: 'ignored', dispute: row };
      if (fact.outcome !== null && fact.outcome !== row.status) {
        deps.log.warn('a closed dispute is final: a later status is recorded, the money is not moved again', {
          disputeId: row.id,
          status: row.status,
          vendorStatus: fact.vendorStatus,
        });
      }
      return { applied: 'updated', dispute: await setVendorStatus(tx, row, fact.vendorStatus, at) };
    }
    if (fact.outcome === 'won' || fact.outcome === 'lost') {
      return { applied: fact.outcome, dispute: await closeDispute(tx, deps, row, fact.outcome, fact.vendorStatus, at) };
    }
    return { applied: 'updated', dispute: await setVendorStatus(tx, row, fact.vendorStatus, at) };
  });
}

export function disputeByVendorId(db: DbOrTx, vendor: DisputeVendor, vendorDisputeId: string) {
  return firstRow(db, schema.shareDisputes, and(eq(schema.shareDisputes.vendor, vendor), eq(schema.shareDisputes.vendorDisputeId, vendorDisputeId)));
}

async function setVendorStatus(tx: DbOrTx, row: DisputeRow, vendorStatus: string, at: Date): Promise<DisputeRow> {
  if (row.vendorStatus === vendorStatus) return row;
  const [updated] = await tx
    .update(schema.shareDisputes)
    .set({ vendorStatus, updatedAt: at })
    .where(eq(schema.shareDisputes.id, row.id))
    .returning();
  return updated!;
}

export interface ShareContext {
  share: typeof schema.collectionShares.$inferSelect;
  collection: typeof schema.collections.$inferSelect;
  source: typeof schema.fundingSources.$inferSelect;
}

async function shareContext(tx: DbOrTx, shareId: string): Promise<ShareContext | undefined> {
  const [row] = await tx
    .select({ share: schema.collectionShares, collection: schema.collections, source: schema.fundingSources })
    .from(schema.collectionShares)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.collectionShares.collectionId))
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
    .where(eq(schema.collectionShares.id, shareId))
    .limit(1);
  return row;
}

/**
 * What of a share has gone back to its card so far: the positive postings to its source's account in the movements
 * that return this collection's money (the unused bcard's refund or a purchase's remainder, Stripe Issuing's releases
 * and refunds of its purchase, merchants' refunds through bpay). A source funds a collection once (UNIQUE), so these
 * are this share's.
 */
export async function refundedToShare(db: DbOrTx, c: ShareContext): Promise<number> {
  const bcard = await firstRow(db, schema.bcards, eq(schema.bcards.collectionId, c.collection.id));
  const refundIds = db
    .select({ id: schema.refundParts.refundId })
    .from(schema.refundParts)
    .where(eq(schema.refundParts.shareId, c.share.id));
  const authIds = bcard
    ? (await db.select({ id: schema.issuerAuthorizations.id }).from(schema.issuerAuthorizations).where(eq(schema.issuerAuthorizations.bcardId, bcard.id))).map((r) => r.id)
    : [];
  const ofThisCollection = or(
    and(eq(schema.ledgerMovements.kind, 'refund.succeeded'), inArray(schema.ledgerMovements.referenceId, refundIds)),
    ...(bcard
      ? [and(inArray(schema.ledgerMovements.kind, ['bcard.refunded', 'bcard.remainder_refunded']), eq(schema.ledgerMovements.referenceId, bcard.id))]
      : []),
    // Issuing returns are referenced `<authorization>@<n>` ('@' is followed by 'A' in ASCII).
    ...authIds.map((id) =>
      and(
        inArray(schema.ledgerMovements.kind, ['issuing.released', 'issuing.refunded']),
        gte(schema.ledgerMovements.referenceId, `${id}@`),
        lt(schema.ledgerMovements.referenceId, `${id}A`),
      ),
    ),
  );
  const [row] = await db
    .select({ sum: sql<number>`coalesce(sum(${schema.ledgerPostings.amountCents}), 0)` })
    .from(schema.ledgerPostings)
    .innerJoin(schema.ledgerMovements, eq(schema.ledgerMovements.id, schema.ledgerPostings.movementId))
    .where(
      and(
        eq(schema.ledgerPostings.account, accounts.fundingSource(c.source.id)),
        sql`${schema.ledgerPostings.amountCents} > 0`,
        ofThisCollection,
      ),
    );
  return Math.min(c.share.amountCents, Number(row?.sum ?? 0));
}

/**
 * Whether the share is a bank account's (an ACH debit). Not disputable here: the bank's return is an ACH debit's
 * dispute and already makes the amount owed (bank_debits); a dispute recorded too would make it owed twice.
 */
export async function isBankShare(db: DbOrTx, shareId: string): Promise<boolean> {
  return (await firstRow(db, schema.bankDebits, eq(schema.bankDebits.shareId, shareId))) !== undefined;
}

/** What of a share other disputes already took back and did not give to bpay again (open or lost). */
async function disputedBefore(tx: DbOrTx, shareId: string): Promise<number> {
  const [row] = await tx
    .select({ sum: sql<number>`coalesce(sum(${schema.shareDisputes.amountCents}), 0)` })
    .from(schema.shareDisputes)
    .where(and(eq(schema.shareDisputes.shareId, shareId), ne(schema.shareDisputes.status, 'won')));
  return Number(row?.sum ?? 0);
}

/**
 * How much a new dispute of this share may take back: the share's captured amount less what its other disputes
 * hold. Refunds do not lower it: the issuer can charge back the whole charge even after a refund (the card then got
 * both, and the consumer owes what the chargeback took).
 */
export async function disputeRoom(tx: DbOrTx, c: Pick<ShareContext, 'share'>): Promise<number> {
  return c.share.amountCents - (await disputedBefore(tx, c.share.id));
}

/**
 * Records a dispute opened: the row, the movement, and (when `tell`) the consumer's notice. A fact that cannot be a
 * dispute of this share (another processor's collection, a share never charged, an amount past what the share was
 * charged) is logged and answered null (nothing written), or clamped to what the share can still give.
 */
async function openDispute(tx: DbOrTx, deps: AppDeps, fact: DisputeFact, at: Date, tell: boolean): Promise<DisputeRow | null> {
  const c = await shareContext(tx, fact.shareId);
  const refuse = (why: string, extra: Record<string, unknown> = {}) => {
    deps.log.error(`a dispute was not recorded: ${why}`, { vendorDisputeId: fact.vendorDisputeId, shareId: fact.shareId, ...extra });
    return null;
  };
  if (!c) return refuse('no such share');
  if (c.collection.vendor !== fact.vendor) return refuse('the share was charged through another processor', { vendor: c.collection.vendor });
  if (c.collection.kind === 'sandbox') return refuse("a merchant's sandbox test bcard has no funding share");
  if (!(DISPUTABLE_SHARE_STATUSES as readonly string[]).includes(c.share.status)) {
    return refuse('the share was never charged to the card (or the bank returned it)', { shareStatus: c.share.status });
  }
  if (await isBankShare(tx, c.share.id)) return refuse("a bank account's share: the bank's return is its dispute (bank_debits)");
  const room = await disputeRoom(tx, c);
  let amount = fact.amountCents;
  if (amount > room) {
    deps.log.error('a dispute asks for more than the share was charged (less its other disputes): recorded for what it can be', {
      vendorDisputeId: fact.vendorDisputeId,
      shareId: c.share.id,
      asked: fact.amountCents,
      recorded: room,
    });
    amount = room;
  }
  if (amount <= 0) return refuse('nothing of the share is left to dispute', { asked: fact.amountCents });
  const [row] = await tx
    .insert(schema.shareDisputes)
    .values({
      id: newId('dsp'),
      userId: c.collection.userId,
      shareId: c.share.id,
      collectionId: c.collection.id,
      vendor: fact.vendor,
      vendorDisputeId: fact.vendorDisputeId,
      amountCents: amount,
      reason: fact.reason,
      status: 'open',
      vendorStatus: fact.vendorStatus,
      refundedBeforeCents: await refundedToShare(tx, c),
      openedAt: at,
      updatedAt: at,
    })
    .returning();
  const dispute = row!;
  await postMovement(tx, {
    kind: 'share.disputed',
    referenceId: dispute.id,
    at,
    postings: [
      { account: accounts.fundingSource(c.source.id), amountCents: amount },
      { account: accounts.receivable(dispute.userId), amountCents: -amount },
    ],
  });
  deps.log.warn('a funding share was disputed: the amount is owed until the dispute is resolved', {
    disputeId: dispute.id,
    shareId: c.share.id,
    amount,
  });
  if (tell) await notify(tx, deps, dispute.userId, 'dispute_opened', await noticeFacts(tx, c, dispute), at);
  return dispute;
}

/** Closes an open dispute: won gives the amount back to bpay (the reversal), lost leaves it owed. */
async function closeDispute(tx: DbOrTx, deps: AppDeps, row: DisputeRow, outcome: 'won' | 'lost', vendorStatus: string, at: Date): Promise<DisputeRow> {
  const [closed] = await tx
    .update(schema.shareDisputes)
    .set({ status: outcome, vendorStatus, closedAt: at, updatedAt: at })
    .where(and(eq(schema.shareDisputes.id, row.id), eq(schema.shareDisputes.status, 'open')))
    .returning();
  // Write transactions are serialised (BEGIN IMMEDIATE): the row read above is still open here.
  if (!closed) throw new Error(`dispute ${row.id} is no longer open`);
  const c = (await shareContext(tx, row.shareId))!;
  if (outcome === 'won') {
    await postMovement(tx, {
      kind: 'share.dispute_won',
      referenceId: row.id,
      at,
      // Back to what is owed, or, when that was repaid or waived meanwhile, to what bpay owes the consumer.
      postings: await creditOwed(tx, row.userId, [
        { account: accounts.fundingSource(c.source.id), amountCents: -row.amountCents },
        { account: accounts.receivable(row.userId), amountCents: row.amountCents },
      ]),
    });
  }
  await notify(tx, deps, row.userId, outcome === 'won' ? 'dispute_won' : 'dispute_lost', await noticeFacts(tx, c, closed), at);
  return closed;
}

async function noticeFacts(tx: DbOrTx, c: ShareContext, d: DisputeRow) {
  return {
    disputeId: d.id,
    cardName: c.source.name,
    last4: c.source.last4,
    amount: money(d.amountCents),
    bcardName: c.collection.name,
    merchant: c.collection.merchant ?? null,
    owed: money(await owedCents(tx, d.userId)),
    transactionId: c.collection.id,
  };
}
