import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { schema, type Db } from '@bpay/db';

type UserRole = (typeof schema.USER_ROLES)[number];
import { invalid, notFound } from '../../errors';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import type { Clock } from '../../lib/clock';
import { toTierView, type TierView } from '../subscription/service';
import { recordAudit } from './audit';
import { searchCondition, searchMatches, searchText } from './search';
import { KYC_ADMIN_LIST } from '../kyc/service';

type UserRow = typeof schema.users.$inferSelect;
type SubRow = typeof schema.userSubscriptions.$inferSelect;
type TierRow = typeof schema.subscriptionTiers.$inferSelect;

export interface AdminUserView {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  role: UserRole;
  country: string | null;
  isKycVerified: boolean;
  createdAt: string;
  /** The active plan (null only for a user created before plans existed). */
  tier: { id: string; name: string; displayName: string } | null;
  /** The end of the period the plan is paid for; null on Free or a plan an admin gave (issue 26: a change needs a timing). */
  planPeriodEnd: string | null;
}

/** What an admin's view of a user reads of its row (never its password hash or two-factor secrets). */
const USER_COLUMNS = {
  id: schema.users.id,
  firstName: schema.users.firstName,
  lastName: schema.users.lastName,
  email: schema.users.email,
  role: schema.users.role,
  country: schema.users.country,
  kycStatus: schema.users.kycStatus,
  createdAt: schema.users.createdAt,
};
type UserSeen = Pick<UserRow, keyof typeof USER_COLUMNS>;

const toUser = (u: UserSeen, tier: TierRow | null, periodEnd: Date | null = null): AdminUserView => ({
  id: u.id,
  firstName: u.firstName,
  lastName: u.lastName,
  email: u.email,
  role: u.role,
  country: u.country,
  isKycVerified: u.kycStatus === 'verified',
  createdAt: u.createdAt.toISOString(),
  tier: tier ? { id: tier.id, name: tier.name, displayName: tier.displayName } : null,
  planPeriodEnd: periodEnd && tier && tier.monthlyPriceCents > 0 ? periodEnd.toISOString() : null,
});

export const ADMIN_LIST_LIMIT = 500;

/** The admin lists' names, as their cursors carry them (lib/cursor.ts): a cursor is good on its own list only. */
export const ADMIN_LISTS = {
  users: 'admin.users',
  merchants: 'admin.merchants',
  kyc: KYC_ADMIN_LIST,
  payables: 'admin.payables',
  receivables: 'admin.receivables',
} as const;

/** The admin lists' page size: `limit` when not given, and the most one page may ask for. */
export const ADMIN_PAGE_DEFAULT = 50;
export const ADMIN_PAGE_MAX = 200;

/** A page of an admin list and the cursor for the next one (null on the last page). */
export interface AdminPage<T> {
  data: T[];
  nextCursor: string | null;
}

/** Fails with: validation_error (a limit outside 1..ADMIN_PAGE_MAX, or not a whole number). */
export function adminPageLimit(limit: number | undefined): number {
  const n = limit ?? ADMIN_PAGE_DEFAULT;
  if (!Number.isInteger(n) || n < 1 || n > ADMIN_PAGE_MAX) {
    throw invalid('limit', `limit must be a whole number between 1 and ${ADMIN_PAGE_MAX}.`);
  }
  return n;
}

/**
 * The keyset condition after a cursor: a row value, not an OR of two conditions, so SQLite seeks the list's
 * (..., created_at, id) index to it. Fails with: validation_error (a cursor this API did not give out).
 */
export const afterCursor = (createdAt: SQLiteColumn, id: SQLiteColumn, cursor: string, list: string): SQL => {
  const c = decodeCursor(cursor, { list });
  return sql`(${createdAt}, ${id}) < (${c.t}, ${c.id})`;
};

/** Cuts a `limit + 1` read to the page and names the next cursor when the extra row showed there is more. */
export function toPage<R extends { createdAt: Date; id: string }>(rows: R[], limit: number, list: string): { rows: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, nextCursor: rows.length > limit && last ? encodeCursor({ t: last.createdAt.getTime(), id: last.id }, { list }) : null };
}

/**
 * Users newest first (ties by id, both descending: the order of a keyset cursor), a page at a time, optionally
 * filtered by a part of the name or e-mail (search.ts: at least 3 characters) and a role. Fails with:
 * validation_error (cursor, search).
 */
export async function listUsers(
  db: Db,
  q: { search?: string; role?: UserRole; limit: number; cursor?: string | null; searchMany?: number },
): Promise<AdminPage<AdminUserView>> {
  // The cursor first: one from another list is refused before anything is read (the search included).
  const after = q.cursor ? afterCursor(schema.users.createdAt, schema.users.id, q.cursor, ADMIN_LISTS.users) : null;
  const conds: SQL[] = [];
  const text = searchText(q.search);
  if (text !== null) {
    conds.push(searchCondition('users', schema.users.id, text, await searchMatches(db, 'users', text, q.searchMany)));
  }
  if (q.role) conds.push(eq(schema.users.role, q.role));
  if (after) conds.push(after);
  const rows = await db
    .select({ user: USER_COLUMNS, tier: schema.subscriptionTiers, periodEnd: schema.userSubscriptions.currentPeriodEnd })
    .from(schema.users)
    .leftJoin(
      schema.userSubscriptions,
      and(eq(schema.userSubscriptions.userId, schema.users.id), eq(schema.userSubscriptions.status, 'active')),
    )
    .leftJoin(schema.subscriptionTiers, eq(schema.subscriptionTiers.id, schema.userSubscriptions.tierId))
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(desc(schema.users.createdAt), desc(schema.users.id))
    .limit(q.limit + 1);
  const page = toPage(rows.map((r) => ({ ...r, createdAt: r.user.createdAt, id: r.user.id })), q.limit, ADMIN_LISTS.users);
  return { data: page.rows.map((r) => toUser(r.user, r.tier, r.periodEnd)), nextCursor: page.nextCursor };
}

async function userView(db: Db, id: string): Promise<AdminUserView> {
  const rows = await db
    .select({ user: USER_COLUMNS, tier: schema.subscriptionTiers, periodEnd: schema.userSubscriptions.currentPeriodEnd })
    .from(schema.users)
    .leftJoin(
      schema.userSubscriptions,
      and(eq(schema.userSubscriptions.userId, schema.users.id), eq(schema.userSubscriptions.status, 'active')),
    )
    .leftJoin(schema.subscriptionTiers, eq(schema.subscriptionTiers.id, schema.userSubscriptions.tierId))
    .where(eq(schema.users.id, id))
    .limit(1);
  const r = rows[0];
  if (!r) throw notFound('user');
  return toUser(r.user, r.tier, r.periodEnd);
}

export interface AdminActor {
  adminId: string;
  ip: string | null;
}

/**
 * The roles an admin may give a user. `admin` is not one: admins are their own accounts (the admins table, Bearer
 * tokens, TOTP), and users.role never authorizes anything under /api/admin. A user given role admin would only lose
 * their dashboard (the SPA sends role admin to the panel, whose sign-in they do not have). Rows that already say admin
 * are still listed and can be moved to user or merchant.
 */
export const ASSIGNABLE_ROLES = ['user', 'merchant'] as const satisfies readonly UserRole[];
export const ROLE_MESSAGE =
  'role must be user or merchant. Admins are separate accounts that sign in at /admin-login: add one with `bun run admin:create --username <name>`.';

/** Sets a user's role. Fails: validation_error (role admin, see ASSIGNABLE_ROLES), resource_not_found. Audited. */
export async function setUserRole(db: Db, clock: Clock, actor: AdminActor, userId: string, role: UserRole) {
  if (!(ASSIGNABLE_ROLES as readonly string[]).includes(role)) throw invalid('role', ROLE_MESSAGE);
  const before = await userView(db, userId);
  if (before.role !== role) {
    await db.transaction(async (tx) => {
      await tx.update(schema.users).set({ role, updatedAt: clock.now() }).where(eq(schema.users.id, userId));
      await recordAudit(tx, clock, {
        adminId: actor.adminId,
        action: 'user.update',
        targetType: 'user',
        targetId: userId,
        before: { role: before.role },
        after: { role },
        ip: actor.ip,
      });
    });
  }
  return userView(db, userId);
}

export interface UserSubscriptionView {
  id: string;
  userId: string;
  tierId: string;
  status: SubRow['status'];
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /** A paid period is running (the user pays for this plan until currentPeriodEnd); false: Free, or a plan an admin gave. */
  billed: boolean;
  /** A change scheduled for currentPeriodEnd (a downgrade, a cancellation, or an admin's "at the period end"). */
  pendingTierId: string | null;
  /** Only in the answer to a change now_with_refund (plan-change.ts). */
  refund?: { amount: string; status: 'pending' | 'succeeded' | 'failed' };
  user: { id: string; email: string; firstName: string | null; lastName: string | null };
  tier: TierView & { isActive: boolean };
}

/** Monthly periods counted from the start: the one that contains `now` (or the last one, once ended). */
export function currentPeriod(startedAt: Date, now: Date): { start: Date; end: Date } {
  const addMonths = (d: Date, n: number) => {
    const r = new Date(d);
    r.setUTCMonth(r.getUTCMonth() + n);
    return r;
  };
  let months = Math.max(
    0,
    (now.getUTCFullYear() - startedAt.getUTCFullYear()) * 12 + (now.getUTCMonth() - startedAt.getUTCMonth()),
  );
  while (months > 0 && addMonths(startedAt, months) > now) months--;
  return { start: addMonths(startedAt, months), end: addMonths(startedAt, months + 1) };
}

export function toSubscriptionView(s: SubRow, u: UserRow, t: TierRow, now: Date): UserSubscriptionView {
  // A paid plan has its real billing period; one that is not billed shows months counted from its start.
  const p =
    s.currentPeriodStart && s.currentPeriodEnd
      ? { start: s.currentPeriodStart, end: s.currentPeriodEnd }
      : currentPeriod(s.startedAt, s.endedAt ?? now);
  return {
    id: s.id,
    userId: s.userId,
    tierId: s.tierId,
    status: s.status,
    currentPeriodStart: p.start.toISOString(),
    currentPeriodEnd: p.end.toISOString(),
    billed: Boolean(s.currentPeriodStart && s.currentPeriodEnd && s.status === 'active' && s.currentPeriodEnd > now && t.monthlyPriceCents > 0),
    pendingTierId: s.pendingTierId,
    user: { id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName },
    tier: { ...toTierView(t), isActive: t.isActive },
  };
}

/** Active subscriptions with their user and tier, newest first. */
export async function listUserSubscriptions(db: Db, clock: Clock): Promise<UserSubscriptionView[]> {
  const rows = await db
    .select({ s: schema.userSubscriptions, u: schema.users, t: schema.subscriptionTiers })
    .from(schema.userSubscriptions)
    .innerJoin(schema.users, eq(schema.users.id, schema.userSubscriptions.userId))
    .innerJoin(schema.subscriptionTiers, eq(schema.subscriptionTiers.id, schema.userSubscriptions.tierId))
    .where(eq(schema.userSubscriptions.status, 'active'))
    .orderBy(desc(schema.userSubscriptions.startedAt), asc(schema.userSubscriptions.id))
    .limit(ADMIN_LIST_LIMIT);
  const now = clock.now();
  return rows.map((r) => toSubscriptionView(r.s, r.u, r.t, now));
}
