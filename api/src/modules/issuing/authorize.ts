import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { schema, firstRow, type DbOrTx } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId } from '../../lib/ids';
import { accounts } from '../ledger/service';
import { spendBcard } from '../bcards/service';
import { refundUnusedBcard } from '../bcards/refund';
import { noticeBcardDeclined } from '../bcards/notices';
import { decideAuthorization, ISSUER_MAX_BAD_ATTEMPTS, type AuthorizationFacts, type DeclineReason } from './decide';

/*
 * Applies the issuer's decision (decide.ts) to an authorization a card network sent: an approval spends the bcard
 * (single use: the guarded UPDATE in spendBcard lets exactly one of several parallel authorizations through), posts
 * the spend to the ledger and records the authorization, all in one transaction; whatever the purchase left on the
 * bcard goes back to its sources pro rata after the commit, as an unused bcard's money does. A wrong CVC or expiry
 * counts against the bcard, and ISSUER_MAX_BAD_ATTEMPTS of them close it (refunding its sources).
 */

type BcardRow = typeof schema.bcards.$inferSelect;
type AuthorizationRow = typeof schema.issuerAuthorizations.$inferSelect;

export interface NetworkMerchant {
  name: string;
  city: string | null;
  category: string | null;
}

export interface NetworkAuthorization {
  network: 'simulated' | 'stripe';
  /** The network's id of this authorization (Stripe's iauth_…): a repeated request with it answers the first decision. */
  networkRef: string | null;
  /** The bcard the card details lead to; null when they lead to none (an unknown number). */
  bcard: BcardRow | null;
  facts: AuthorizationFacts;
  merchant: NetworkMerchant;
}

export interface AuthorizationOutcome {
  id: string;
  approved: boolean;
  reason: DeclineReason | null;
  bcardId: string | null;
  /** True when the bcard was closed by this attempt (the third wrong CVC or expiry). */
  closed: boolean;
}

const outcomeOf = (row: AuthorizationRow, closed = false): AuthorizationOutcome => ({
  id: row.id,
  approved: row.decision === 'approved',
  reason: (row.declineReason as DeclineReason | null) ?? null,
  bcardId: row.bcardId,
  closed,
});

/** Thrown inside the spend's transaction to undo it when the domain lock was taken by another shop meanwhile. */
class LockLost extends Error {}

/**
 * Decides and applies one authorization. Never throws for a decline: the outcome says approved or why not.
 * Fails only when the database or the processor's settling fails in a way the caller must report (500).
 */
export async function authorizeBcard(
  deps: AppDeps,
  req: NetworkAuthorization,
  /**
   * `background`: an approval answers once the spend has committed; what the bcard held beyond the amount goes back
   * to its sources after the answer (Stripe's 2-second window), or by the recovery sweep if this process stops first.
   */
  opts: { settle?: 'await' | 'background' } = {},
): Promise<AuthorizationOutcome> {
  const id = newId('iauth');
  const networkRef = req.networkRef ?? id;
  const prior = await existing(deps.db, req.network, networkRef);
  if (prior) return outcomeOf(prior);

  const record = (tx: DbOrTx, decision: { approved: boolean; reason: DeclineReason | null }, bcard: BcardRow | null) => {
    const at = deps.clock.now();
    return tx
      .insert(schema.issuerAuthorizations)
      .values({
        id,
        network: req.network,
        networkRef,
        bcardId: bcard?.id ?? null,
        userId: bcard?.userId ?? null,
        amountCents: Math.max(0, req.facts.amountCents),
        currency: req.facts.currency.toLowerCase(),
        merchantName: req.merchant.name,
        merchantCity: req.merchant.city,
        merchantCategory: req.merchant.category,
        merchantDomain: req.facts.merchantDomain,
        decision: decision.approved ? 'approved' : 'declined',
        declineReason: decision.reason,
        // The simulated network captures with the approval; Stripe tells of captures in issuing_transaction events.
        capturedCents: decision.approved && req.network === 'simulated' ? req.facts.amountCents : 0,
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing()
      .returning();
  };
  const decline = async (reason: DeclineReason, bcard: BcardRow | null, closed = false): Promise<AuthorizationOutcome> => {
    // The owner hears of it in the transaction that records it: a repeated request (same network reference) records
    // nothing and tells nothing again.
    const [row] = await deps.db.transaction(async (tx) => {
      const written = await record(tx, { approved: false, reason }, bcard);
      if (written[0] && bcard) {
        await noticeBcardDeclined(tx, deps, bcard, { merchant: req.merchant.name, amountCents: req.facts.amountCents, reason }, written[0].createdAt);
      }
      return written;
    });
    if (row) return outcomeOf(row, closed);
    // The same network reference was decided by a parallel request: its answer is the answer.
    return outcomeOf((await existing(deps.db, req.network, networkRef))!);
  };

  const bcard = req.bcard;
  if (!bcard) return decline('incorrect_number', null);
  const decision = decideAuthorization(bcard, req.facts, deps.clock.now());
  if (!decision.approved) {
    if (decision.reason === 'incorrect_cvc' || decision.reason === 'incorrect_expiry') {
      const closed = await countBadAttempt(deps, bcard);
      return decline(decision.reason, bcard, closed);
    }
    return decline(decision.reason, bcard);
  }

  let approved: AuthorizationRow | undefined;
  try {
    await spendBcard(
      deps,
      bcard,
      req.facts.amountCents,
      // No description stored: "Card purchase at <shop> (<city · category>)" is written when read, from this authorization.
      { merchant: req.merchant.name, description: null, account: accounts.externalMerchants },
      async (tx) => {
        // A bcard made in the dashboard is locked to the first shop that charges it; one made for a site stays there
        // (checked again here, guarded, where the network names the site: decide.ts).
        if (req.facts.merchantDomain !== null) {
          const lock = await tx
            .update(schema.bcards)
            .set({ lockedDomain: sql`coalesce(${schema.bcards.lockedDomain}, ${req.facts.merchantDomain})` })
            .where(
              and(
                eq(schema.bcards.id, bcard.id),
                or(isNull(schema.bcards.lockedDomain), eq(schema.bcards.lockedDomain, req.facts.merchantDomain)),
              ),
            );
          if (lock.rowsAffected !== 1) throw new LockLost();
        }
        [approved] = await record(tx, { approved: true, reason: null }, bcard);
        // A parallel request with the same network reference got there first: undo this spend, answer that one.
        if (!approved) throw new AppError('bcard_not_active');
      },
      opts.settle,
    );
  } catch (e) {
    if (e instanceof LockLost) return decline('merchant_mismatch', bcard);
    if (!(e instanceof AppError) || (e.code !== 'bcard_not_active' && e.code !== 'validation_error')) throw e;
    const same = await existing(deps.db, req.network, networkRef);
    if (same) return outcomeOf(same);
    // Another authorization spent it (or the session ended) between the read and the guarded UPDATE: decide again.
    const now = await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, bcard.id));
    const again = now ? decideAuthorization(now, req.facts, deps.clock.now()) : null;
    return decline(again && !again.approved ? again.reason : 'already_used', bcard);
  }
  return outcomeOf(approved!);
}

function existing(db: DbOrTx, network: 'simulated' | 'stripe', networkRef: string) {
  return firstRow(
    db,
    schema.issuerAuthorizations,
    and(eq(schema.issuerAuthorizations.network, network), eq(schema.issuerAuthorizations.networkRef, networkRef)),
  );
}

/**
 * Counts a wrong CVC or expiry against an unused bcard in one guarded statement (parallel guesses each count), and
 * closes the bcard at the limit: it is canceled and its sources refunded, with the reason kept for its owner.
 * Returns whether this attempt closed it.
 */
export async function countBadAttempt(deps: AppDeps, bcard: BcardRow): Promise<boolean> {
  const [row] = await deps.db
    .update(schema.bcards)
    .set({
      badAuthAttempts: sql`${schema.bcards.badAuthAttempts} + 1`,
      closedReason: sql`CASE WHEN ${schema.bcards.badAuthAttempts} + 1 >= ${ISSUER_MAX_BAD_ATTEMPTS} THEN 'too_many_incorrect_attempts' ELSE ${schema.bcards.closedReason} END`,
    })
    .where(and(eq(schema.bcards.id, bcard.id), eq(schema.bcards.status, 'active'), eq(schema.bcards.spentCents, 0)))
    .returning({ attempts: schema.bcards.badAuthAttempts });
  if (!row || row.attempts < ISSUER_MAX_BAD_ATTEMPTS) return false;
  try {
    await refundUnusedBcard(deps, bcard, 'canceled');
  } catch (e) {
    // Closed by a parallel guess, canceled or expired meanwhile: nothing is left to close. If it was spent instead,
    // it must not say bpay closed it.
    if (!(e instanceof AppError && e.code === 'bcard_not_active')) throw e;
    await deps.db
      .update(schema.bcards)
      .set({ closedReason: null })
      .where(and(eq(schema.bcards.id, bcard.id), inArray(schema.bcards.status, ['used', 'authorized'])));
    return false;
  }
  deps.log.warn('a bcard was closed after repeated incorrect security codes or expiry dates', { bcardId: bcard.id });
  return true;
}
