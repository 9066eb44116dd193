import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { schema, type Db, firstRow } from '@bpay/db';

type UserRole = (typeof schema.USER_ROLES)[number];
import { AppError, notFound } from '../../errors';
import type { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { toTierView, type TierView } from '../subscription/service';
import { recordAudit } from './audit';

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
}

const toUser = (u: UserRow, tier: TierRow | null): AdminUserView => ({
  id: u.id,
  firstName: u.firstName,
  lastName: u.lastName,
  email: u.email,
  role: u.role,
  country: u.country,
  isKycVerified: u.kycStatus === 'verified',
  createdAt: u.createdAt.toISOString(),
  tier: tier ? { id: tier.id, name: tier.name, displayName: tier.displayName } : null,
});

/** LIKE with the user's text taken literally. */
export const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const ADMIN_LIST_LIMIT = 500;

/** Users newest first, optionally filtered by an e-mail substring (case-insensitive) and a role. */
export async function listUsers(db: Db, q: { search?: string; role?: UserRole }): Promise<AdminUserView[]> {
  const conds = [];
  if (q.search?.trim()) {
    conds.push(sql`${schema.users.emailNormalized} LIKE ${likeContains(q.search.trim().toLowerCase())} ESCAPE '\\'`);
  }
  if (q.role) conds.push(eq(schema.users.role, q.role));
  const rows = await db
    .select({ user: schema.users, tier: schema.subscriptionTiers })
    .from(schema.users)
    .leftJoin(
      schema.userSubscriptions,
      and(eq(schema.userSubscriptions.userId, schema.users.id), eq(schema.userSubscriptions.status, 'active')),
    )
    .leftJoin(schema.subscriptionTiers, eq(schema.subscriptionTiers.id, schema.userSubscriptions.tierId))
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(desc(schema.users.createdAt), asc(schema.users.id))
    .limit(ADMIN_LIST_LIMIT);
  return rows.map((r) => toUser(r.user, r.tier));
}

async function userView(db: Db, id: string): Promise<AdminUserView> {
  const rows = await db
    .select({ user: schema.users, tier: schema.subscriptionTiers })
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
  return toUser(r.user, r.tier);
}

export interface AdminActor {
  adminId: string;
  ip: string | null;
}

/** Sets a user's role. 404 for an unknown user. Audited with the role before and after. */
export async function setUserRole(db: Db, clock: Clock, actor: AdminActor, userId: string, role: UserRole) {
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
  const p = currentPeriod(s.startedAt, s.endedAt ?? now);
  return {
    id: s.id,
    userId: s.userId,
    tierId: s.tierId,
    status: s.status,
    currentPeriodStart: p.start.toISOString(),
    currentPeriodEnd: p.end.toISOString(),
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

/**
 * Moves a user to another tier: ends the active subscription and starts a new one, in one transaction.
 * Fails: resource_not_found (user or tier), tier_inactive (only active tiers). Moving to the current tier changes
 * nothing. Audited with the tier before and after.
 */
export async function changeUserSubscription(
  db: Db,
  clock: Clock,
  actor: AdminActor,
  userId: string,
  tierId: string,
): Promise<UserSubscriptionView> {
  const user = await firstRow(db, schema.users, eq(schema.users.id, userId));
  if (!user) throw notFound('user');
  const tier = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, tierId));
  if (!tier) throw new AppError('resource_not_found', 'No such subscription tier.', 'tierId');
  if (!tier.isActive) throw new AppError('tier_inactive', undefined, 'tierId');
  const now = clock.now();
  const sub = await db.transaction(async (tx) => {
    const current = await firstRow(tx, schema.userSubscriptions, and(eq(schema.userSubscriptions.userId, userId), eq(schema.userSubscriptions.status, 'active')));
    if (current?.tierId === tierId) return current;
    if (current) {
      await tx
        .update(schema.userSubscriptions)
        .set({ status: 'ended', endedAt: now })
        .where(and(eq(schema.userSubscriptions.id, current.id), eq(schema.userSubscriptions.status, 'active')));
    }
    const next = { id: newId('sub'), userId, tierId, status: 'active' as const, startedAt: now, endedAt: null };
    await tx.insert(schema.userSubscriptions).values(next);
    await recordAudit(tx, clock, {
      adminId: actor.adminId,
      action: 'user.subscription.change',
      targetType: 'user',
      targetId: userId,
      before: current ? { subscriptionId: current.id, tierId: current.tierId } : null,
      after: { subscriptionId: next.id, tierId },
      ip: actor.ip,
    });
    return next;
  });
  return toSubscriptionView(sub, user, tier, now);
}
