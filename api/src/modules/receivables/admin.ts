import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { schema, type Db, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId } from '../../lib/ids';
import { recordAudit } from '../admin/audit';
import { ADMIN_LISTS, afterCursor, toPage, type AdminActor, type AdminPage } from '../admin/users';
import { accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';
import { parseRepayAmount } from './service';
import { comingBackCents, owedFigures } from './standing';

/*
 * The back office's side of receivables (issue 26): who owes bpay, and an admin forgiving (waiving) all or part of
 * it with a reason. A waiver is one transaction: the receivable_waivers row, the movement `receivable.waived`
 * (receivable +amount, bpay:written_off -amount), the audit row and the consumer's notice. The part of what is owed
 * that is under an open dispute cannot be waived: the dispute is resolved first (won, it is given back anyway).
 */

const money = (c: number) => formatDecimal(c as Cents);

export const WAIVER_REASON_MIN = 3;
export const WAIVER_REASON_MAX = 500;

export interface AdminReceivableView {
  userId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  owed: string;
  underDispute: string;
  repayable: string;
  openDisputes: number;
  /** The oldest returned debit (after use) or open or lost dispute still behind what is owed; null when none is known. */
  oldestItemAt: string | null;
  userCreatedAt: string;
}

/**
 * Users who owe bpay (a negative receivable), newest account first (the keyset order of the admin lists), a page at
 * a time. Fails with: validation_error (cursor).
 */
export async function listReceivables(db: Db, q: { limit: number; cursor?: string | null }): Promise<AdminPage<AdminReceivableView>> {
  const balance = sql<number>`sum(${schema.ledgerPostings.amountCents})`;
  const rows = await db
    .select({ user: schema.users, balance })
    .from(schema.users)
    .innerJoin(schema.ledgerPostings, eq(schema.ledgerPostings.account, sql`'receivable:' || ${schema.users.id}`))
    .where(q.cursor ? afterCursor(schema.users.createdAt, schema.users.id, q.cursor, ADMIN_LISTS.receivables) : undefined)
    .groupBy(schema.users.id)
    .having(sql`${balance} < 0`)
    .orderBy(desc(schema.users.createdAt), desc(schema.users.id))
    .limit(q.limit + 1);
  const page = toPage(rows.map((r) => ({ ...r, createdAt: r.user.createdAt, id: r.user.id })), q.limit, ADMIN_LISTS.receivables);
  const ids = page.rows.map((r) => r.user.id);
  const disputes = ids.length
    ? await db
        .select({
          userId: schema.shareDisputes.userId,
          open: sql<number>`sum(case when ${schema.shareDisputes.status} = 'open' then 1 else 0 end)`,
          openCents: sql<number>`sum(case when ${schema.shareDisputes.status} = 'open' then ${schema.shareDisputes.amountCents} else 0 end)`,
          oldest: sql<number | null>`min(${schema.shareDisputes.openedAt})`,
        })
        .from(schema.shareDisputes)
        .where(and(inArray(schema.shareDisputes.userId, ids), inArray(schema.shareDisputes.status, ['open', 'lost'])))
        .groupBy(schema.shareDisputes.userId)
    : [];
  const debits = ids.length
    ? await db
        .select({ userId: schema.bankDebits.userId, oldest: sql<number | null>`min(${schema.bankDebits.resolvedAt})` })
        .from(schema.bankDebits)
        .innerJoin(schema.bcards, eq(schema.bcards.collectionId, schema.bankDebits.collectionId))
        .where(and(inArray(schema.bankDebits.userId, ids), eq(schema.bankDebits.status, 'returned'), sql`${schema.bcards.spentCents} > 0`))
        .groupBy(schema.bankDebits.userId)
    : [];
  const comingBack = new Map<string, number>();
  for (const id of ids) comingBack.set(id, await comingBackCents(db, id));
  const data = page.rows.map(({ user, balance: b }) => {
    const owed = Math.max(0, -Number(b));
    const d = disputes.find((x) => x.userId === user.id);
    const underDispute = Number(d?.openCents ?? 0);
    const times = [d?.oldest, debits.find((x) => x.userId === user.id)?.oldest].filter((t): t is number => t !== null && t !== undefined).map(Number);
    return {
      userId: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      owed: money(owed),
      underDispute: money(underDispute),
      repayable: money(Math.max(0, owed - underDispute - (comingBack.get(user.id) ?? 0))),
      openDisputes: Number(d?.open ?? 0),
      oldestItemAt: times.length ? new Date(Math.min(...times)).toISOString() : null,
      userCreatedAt: user.createdAt.toISOString(),
    };
  });
  return { data, nextCursor: page.nextCursor };
}

export interface WaiveInput {
  amount: string;
  reason: string;
}

/**
 * Forgives `amount` of what a user owes, in one transaction with its ledger movement, audit row and notice.
 * Fails with: validation_error (amount; reason shorter than 3 or longer than 500 characters once trimmed),
 * resource_not_found (user), waiver_exceeds_owed (more than is owed outside open disputes).
 */
export async function waiveReceivable(deps: AppDeps, actor: AdminActor, userId: string, input: WaiveInput) {
  const amountCents = parseRepayAmount(input.amount);
  const reason = input.reason.trim();
  if (reason.length < WAIVER_REASON_MIN || reason.length > WAIVER_REASON_MAX) {
    throw invalid('reason', `reason must be ${WAIVER_REASON_MIN} to ${WAIVER_REASON_MAX} characters: why bpay forgives this (the user is told).`);
  }
  const at = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const user = await firstRow(tx, schema.users, eq(schema.users.id, userId));
    if (!user) throw notFound('user', userId);
    const before = await owedFigures(tx, userId);
    if (amountCents > before.repayable) {
      const disputed =
        (before.underDispute > 0 ? `; $${money(before.underDispute)} is under an open dispute: resolve it first` : '') +
        (before.comingBack > 0 ? `; $${money(before.comingBack)} is cleared by a bcard's refund still on its way` : '');
      throw new AppError(
        'waiver_exceeds_owed',
        `This user owes $${money(before.repayable)} that can be waived now${disputed}. $${money(amountCents)} is more than that.`,
        'amount',
      );
    }
    const id = newId('rwv');
    await tx.insert(schema.receivableWaivers).values({ id, userId, adminId: actor.adminId, amountCents, reason, createdAt: at });
    await postMovement(tx, {
      kind: 'receivable.waived',
      referenceId: id,
      at,
      postings: [
        { account: accounts.receivable(userId), amountCents },
        { account: accounts.writtenOff, amountCents: -amountCents },
      ],
    });
    await recordAudit(tx, deps.clock, {
      adminId: actor.adminId,
      action: 'receivable.waive',
      targetType: 'user',
      targetId: userId,
      before: { owed: money(before.owed) },
      after: { owed: money(before.owed - amountCents), waived: money(amountCents), reason, waiverId: id },
      ip: actor.ip,
    });
    await notify(tx, deps, userId, 'receivable_waived', { amount: money(amountCents), owed: money(before.owed - amountCents), reason }, at);
    return { id, userId, amount: money(amountCents), reason, createdAt: at.toISOString(), owed: money(before.owed - amountCents) };
  });
}
