import { desc, eq, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId } from '../../lib/ids';
import type { WordsLanguage } from '../../lib/server-words';
import { recordAudit } from '../admin/audit';
import { ADMIN_LISTS, afterCursor, toPage, type AdminActor, type AdminPage } from '../admin/users';
import { payableCents } from '../funding-sources/bank-standing';
import { accountBalance, accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';
import { refundFailureWords } from '../notifications/texts';
import { parseRepayAmount } from './service';
import { WAIVER_REASON_MAX, WAIVER_REASON_MIN } from './admin';

/*
 * What bpay owes a consumer (issue 26): the ledger account `payable:<user>` (positive: owed to them). Credited by a
 * refund to their card that the processor failed after bpay made it (`refund.failed`, share_refund_failures) and by
 * money due back to a returned bank share after the debt it covered was repaid or waived (creditOwed,
 * funding-sources/bank-standing.ts). Settled by an admin who paid the consumer another way (`paid_outside`: a bank
 * transfer, a cheque): one transaction writes the movement `payable.settled` (payable:<user> -amount,
 * bpay:payouts +amount), the audit row (admin, reason) and the consumer's notice. The amount is checked against the
 * balance inside that transaction; write transactions run one at a time, so settlements sent together never take
 * more than is owed.
 */

const money = (c: number) => formatDecimal(c as Cents);
/** How many failed refunds the consumer's answer lists (newest first), as the other receivable items. */
const FAILED_REFUNDS_LIMIT = 50;

export const PAYABLE_SETTLE_METHODS = ['paid_outside'] as const;
export type PayableSettleMethod = (typeof PAYABLE_SETTLE_METHODS)[number];

/** The consumer's side: what bpay owes them, each failed refund behind it, and the other credits and payouts in sums. */
export async function payablesOf(db: DbOrTx, userId: string, lang: WordsLanguage) {
  const account = accounts.payable(userId);
  const failures = await db
    .select({ f: schema.shareRefundFailures, source: schema.fundingSources })
    .from(schema.shareRefundFailures)
    .leftJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.shareRefundFailures.fundingSourceId))
    .where(eq(schema.shareRefundFailures.userId, userId))
    .orderBy(desc(schema.shareRefundFailures.createdAt), desc(schema.shareRefundFailures.id))
    .limit(FAILED_REFUNDS_LIMIT);
  // Credits other than failed refunds (money due back after a debt was settled), and what bpay paid out.
  const [sums] = await db
    .select({
      other: sql<number>`coalesce(sum(case when ${schema.ledgerPostings.amountCents} > 0 and ${schema.ledgerMovements.kind} <> 'refund.failed' then ${schema.ledgerPostings.amountCents} else 0 end), 0)`,
      paid: sql<number>`coalesce(sum(case when ${schema.ledgerPostings.amountCents} < 0 then -${schema.ledgerPostings.amountCents} else 0 end), 0)`,
    })
    .from(schema.ledgerPostings)
    .innerJoin(schema.ledgerMovements, eq(schema.ledgerMovements.id, schema.ledgerPostings.movementId))
    .where(eq(schema.ledgerPostings.account, account));
  return {
    owedToYou: money(Math.max(0, await accountBalance(db, account))),
    failedRefunds: failures.map(({ f, source }) => ({
      id: f.id,
      amount: money(f.amountCents),
      failedAt: f.createdAt.toISOString(),
      transactionId: f.collectionId,
      card: source ? { id: source.id, name: source.name, last4: source.last4, brand: source.brand, type: source.type } : null,
      reasonCode: f.failureReason ?? 'unknown',
      reason: refundFailureWords(lang, f.failureReason ?? 'unknown'),
    })),
    otherCredits: money(Number(sums?.other ?? 0)),
    paidToYou: money(Number(sums?.paid ?? 0)),
  };
}

export interface AdminPayableView {
  userId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  owedToUser: string;
  failedRefunds: number;
  userCreatedAt: string;
}

/** Users bpay owes (payable > 0), newest account first, a page at a time. Fails with: validation_error (cursor). */
export async function listPayables(db: Db, q: { limit: number; cursor?: string | null }): Promise<AdminPage<AdminPayableView>> {
  const balance = sql<number>`sum(${schema.ledgerPostings.amountCents})`;
  const rows = await db
    .select({ user: schema.users, balance })
    .from(schema.users)
    .innerJoin(schema.ledgerPostings, eq(schema.ledgerPostings.account, sql`'payable:' || ${schema.users.id}`))
    .where(q.cursor ? afterCursor(schema.users.createdAt, schema.users.id, q.cursor, ADMIN_LISTS.payables) : undefined)
    .groupBy(schema.users.id)
    .having(sql`${balance} > 0`)
    .orderBy(desc(schema.users.createdAt), desc(schema.users.id))
    .limit(q.limit + 1);
  const page = toPage(rows.map((r) => ({ ...r, createdAt: r.user.createdAt, id: r.user.id })), q.limit, ADMIN_LISTS.payables);
  const data: AdminPayableView[] = [];
  for (const { user, balance: b } of page.rows) {
    const [count] = await db
      .select({ n: sql<number>`count(*)` })
      .from(schema.shareRefundFailures)
      .where(eq(schema.shareRefundFailures.userId, user.id));
    data.push({
      userId: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      owedToUser: money(Number(b)),
      failedRefunds: Number(count?.n ?? 0),
      userCreatedAt: user.createdAt.toISOString(),
    });
  }
  return { data, nextCursor: page.nextCursor };
}

export interface SettlePayableInput {
  amount: string;
  method: string;
  reason: string;
}

/**
 * Records that bpay paid `amount` of what it owes a user another way (`paid_outside`), in one transaction with its
 * ledger movement, audit row and notice. Fails with: validation_error (amount; method; reason shorter than 3 or
 * longer than 500 characters once trimmed), resource_not_found (user), payable_settle_exceeds_owed (more than bpay
 * owes the user now).
 */
export async function settlePayable(deps: AppDeps, actor: AdminActor, userId: string, input: SettlePayableInput) {
  const amountCents = parseRepayAmount(input.amount);
  if (!(PAYABLE_SETTLE_METHODS as readonly string[]).includes(input.method)) {
    throw invalid('method', `method must be one of: ${PAYABLE_SETTLE_METHODS.join(', ')} (support paid the user another way, such as a bank transfer).`);
  }
  const method = input.method as PayableSettleMethod;
  const reason = input.reason.trim();
  if (reason.length < WAIVER_REASON_MIN || reason.length > WAIVER_REASON_MAX) {
    throw invalid('reason', `reason must be ${WAIVER_REASON_MIN} to ${WAIVER_REASON_MAX} characters: how bpay paid the user (the user is told).`);
  }
  const at = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const user = await firstRow(tx, schema.users, eq(schema.users.id, userId));
    if (!user) throw notFound('user', userId);
    const before = await payableCents(tx, userId);
    if (amountCents > before) {
      throw new AppError(
        'payable_settle_exceeds_owed',
        before > 0
          ? `bpay owes this user $${money(before)}; $${money(amountCents)} is more than that.`
          : `bpay owes this user nothing; $${money(amountCents)} cannot be settled.`,
        'amount',
      );
    }
    const id = newId('pst');
    const owed = before - amountCents;
    await postMovement(tx, {
      kind: 'payable.settled',
      referenceId: id,
      at,
      postings: [
        { account: accounts.payable(userId), amountCents: -amountCents },
        { account: accounts.payouts, amountCents },
      ],
    });
    await recordAudit(tx, deps.clock, {
      adminId: actor.adminId,
      action: 'payable.settle',
      targetType: 'user',
      targetId: userId,
      before: { owedToUser: money(before) },
      after: { owedToUser: money(owed), settled: money(amountCents), method, reason, settlementId: id },
      ip: actor.ip,
    });
    await notify(tx, deps, userId, 'payable_settled', { amount: money(amountCents), owedToYou: money(owed), method, reason }, at);
    return { id, userId, amount: money(amountCents), method, reason, createdAt: at.toISOString(), owedToUser: money(owed) };
  });
}
