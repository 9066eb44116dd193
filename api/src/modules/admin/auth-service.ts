import { jwt } from '@elysiajs/jwt';
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { schema, type Db } from '@bpay/db';
import { AppError } from '../../errors';
import type { Clock } from '../../lib/clock';
import { unseal } from '../../lib/crypto';
import { newToken } from '../../lib/ids';
import { verifyTotp } from '../../lib/totp';
import { normalizeUsername } from './accounts';
import { recordAudit } from './audit';

export const ADMIN_AUDIENCE = 'bpay-admin';
/** Ten failures in a row (for one username) lock it for LOCK_MS; a success resets the count. */
export const MAX_ADMIN_FAILURES = 10;
export const ADMIN_LOCK_MS = 30 * 60_000;

export interface AdminAuthDeps {
  db: Db;
  clock: Clock;
  totpKey: Buffer;
  admin: { jwtSecret: Uint8Array; tokenTtlMs: number };
}

type AdminRow = typeof schema.admins.$inferSelect;

/** The @elysiajs/jwt signer for admin tokens: HS256 with the 'admin-jwt' key, audience bpay-admin, no iat. */
export function adminJwt(secret: Uint8Array) {
  return jwt({ name: 'adminJwt', secret, alg: 'HS256', aud: ADMIN_AUDIENCE }).decorator.adminJwt;
}

/** A hash of nothing, verified when the username is unknown so both answers take as long. */
let dummyHash: Promise<string> | null = null;
const dummy = () => (dummyHash ??= Bun.password.hash('bpay-admin-dummy-password', { algorithm: 'argon2id' }));

/**
 * Signs an admin in with username, password and the current TOTP code (±1 step, each code once).
 * Failures (all answered identically, 401 invalid_admin_credentials): unknown username, wrong password, wrong or
 * reused code. 429 admin_locked with Retry-After while the username is locked (10 failures → 30 minutes), whether
 * or not the name exists. Every attempt is audited.
 */
export async function adminLogin(
  deps: AdminAuthDeps,
  input: { username: string; password: string; accessCode: string },
  ip: string | null,
): Promise<{ token: string; expiresAt: Date; admin: { id: string; username: string } }> {
  const key = normalizeUsername(input.username);
  const now = deps.clock.now();
  // The attempt is counted before the (slow) password check, in one statement: parallel guesses cannot all read
  // "not locked yet", so at most MAX_ADMIN_FAILURES of them are ever checked.
  const attempt = await countAttempt(deps.db, key, now);
  if (attempt.lockedUntil) {
    const seconds = Math.max(1, Math.ceil((attempt.lockedUntil.getTime() - now.getTime()) / 1000));
    throw new AppError('admin_locked', undefined, undefined, { 'retry-after': String(seconds) });
  }
  const admin = await deps.db.query.admins.findFirst({ where: eq(schema.admins.usernameNormalized, key) });
  const passwordOk = await Bun.password.verify(input.password, admin ? admin.passwordHash : await dummy());
  const step = admin && passwordOk ? acceptedStep(deps, admin, input.accessCode, now) : null;
  if (!admin || !passwordOk || step === null) {
    await recordFailure(deps, key, attempt.count, now, admin?.id ?? null, ip);
    throw new AppError('invalid_admin_credentials');
  }
  const jti = newToken();
  const expiresAt = new Date(now.getTime() + deps.admin.tokenTtlMs);
  const token = await adminJwt(deps.admin.jwtSecret).sign({
    sub: admin.id,
    jti,
    exp: Math.floor(expiresAt.getTime() / 1000),
    iat: false,
  });
  await deps.db.transaction(async (tx) => {
    // Guarded: a concurrent sign-in with the same code can win only once.
    const used = await tx
      .update(schema.admins)
      .set({ totpLastStep: step, lastLoginAt: now })
      .where(and(eq(schema.admins.id, admin.id), totpStepFree(step)))
      .returning({ id: schema.admins.id });
    if (used.length !== 1) throw new AppError('invalid_admin_credentials');
    await tx.delete(schema.adminSignInLocks).where(eq(schema.adminSignInLocks.usernameNormalized, key));
    await tx.insert(schema.adminTokens).values({ jti, adminId: admin.id, issuedAt: now, expiresAt });
    await recordAudit(tx, deps.clock, {
      adminId: admin.id,
      action: 'admin.login',
      targetType: 'admin',
      targetId: admin.id,
      after: { jti, expiresAt: expiresAt.toISOString() },
      ip,
    });
  });
  return { token, expiresAt, admin: { id: admin.id, username: admin.username } };
}

/** The step is later than the last one accepted (so each code signs in once). */
const totpStepFree = (step: number) => or(isNull(schema.admins.totpLastStep), lt(schema.admins.totpLastStep, step));

function acceptedStep(deps: AdminAuthDeps, admin: AdminRow, code: string, now: Date): number | null {
  const step = verifyTotp(unseal(deps.totpKey, admin.totpSecret), code, now.getTime());
  if (step === null) return null;
  if (admin.totpLastStep !== null && step <= admin.totpLastStep) return null;
  return step;
}

/**
 * Counts one sign-in attempt for `key` and answers the count with the lock, if one is in force. A lock that has run
 * out starts the count again. An attempt beyond the limit while the others are still being checked locks at once.
 */
async function countAttempt(db: Db, key: string, now: Date): Promise<{ count: number; lockedUntil: Date | null }> {
  const at = now.getTime();
  const lockUntil = at + ADMIN_LOCK_MS;
  const [row] = await db
    .insert(schema.adminSignInLocks)
    .values({ usernameNormalized: key, failedAttempts: 1, lockedUntil: null, updatedAt: now })
    .onConflictDoUpdate({
      target: schema.adminSignInLocks.usernameNormalized,
      set: {
        failedAttempts: sql`CASE WHEN ${schema.adminSignInLocks.lockedUntil} <= ${at} THEN 1 ELSE ${schema.adminSignInLocks.failedAttempts} + 1 END`,
        lockedUntil: sql`CASE
          WHEN ${schema.adminSignInLocks.lockedUntil} > ${at} THEN ${schema.adminSignInLocks.lockedUntil}
          WHEN ${schema.adminSignInLocks.lockedUntil} IS NULL AND ${schema.adminSignInLocks.failedAttempts} >= ${MAX_ADMIN_FAILURES} THEN ${lockUntil}
          ELSE NULL END`,
        updatedAt: now,
      },
    })
    .returning({ count: schema.adminSignInLocks.failedAttempts, lockedUntil: schema.adminSignInLocks.lockedUntil });
  if (!row) throw new Error('admin_sign_in_locks upsert returned no row');
  return { count: row.count, lockedUntil: row.lockedUntil && row.lockedUntil.getTime() > at ? row.lockedUntil : null };
}

/** A failed attempt (already counted by countAttempt): the tenth locks the username. Audited either way. */
async function recordFailure(deps: AdminAuthDeps, key: string, failedAttempts: number, now: Date, adminId: string | null, ip: string | null) {
  const lockedUntil = failedAttempts >= MAX_ADMIN_FAILURES ? new Date(now.getTime() + ADMIN_LOCK_MS) : null;
  await deps.db.transaction(async (tx) => {
    if (lockedUntil) {
      await tx
        .update(schema.adminSignInLocks)
        .set({ lockedUntil, updatedAt: now })
        .where(and(eq(schema.adminSignInLocks.usernameNormalized, key), isNull(schema.adminSignInLocks.lockedUntil)));
    }
    await recordAudit(tx, deps.clock, {
      adminId,
      action: lockedUntil ? 'admin.login_locked' : 'admin.login_failed',
      targetType: 'admin',
      targetId: adminId,
      after: { username: key, failedAttempts, ...(lockedUntil ? { lockedUntil: lockedUntil.toISOString() } : {}) },
      ip,
    });
  });
}

export interface AdminPrincipal {
  id: string;
  username: string;
  jti: string;
  issuedAt: Date;
}

/**
 * The admin behind a bearer token, or null. Checks, in order: HS256 signature with the admin key (jose refuses
 * alg none and any other algorithm), audience bpay-admin, expiry against deps.clock, then that the jti was issued
 * to this subject, is unexpired and not revoked.
 */
export async function verifyAdminToken(deps: AdminAuthDeps, token: string): Promise<AdminPrincipal | null> {
  const payload = await adminJwt(deps.admin.jwtSecret).verify(token, {
    algorithms: ['HS256'],
    audience: ADMIN_AUDIENCE,
    currentDate: deps.clock.now(),
    requiredClaims: ['sub', 'jti', 'exp', 'aud'],
  });
  if (!payload || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return null;
  const rows = await deps.db
    .select({ id: schema.admins.id, username: schema.admins.username, issuedAt: schema.adminTokens.issuedAt })
    .from(schema.adminTokens)
    .innerJoin(schema.admins, eq(schema.admins.id, schema.adminTokens.adminId))
    .where(
      and(
        eq(schema.adminTokens.jti, payload.jti),
        eq(schema.adminTokens.adminId, payload.sub),
        isNull(schema.adminTokens.revokedAt),
        gt(schema.adminTokens.expiresAt, deps.clock.now()),
      ),
    )
    .limit(1);
  const row = rows[0];
  return row ? { id: row.id, username: row.username, jti: payload.jti, issuedAt: row.issuedAt } : null;
}

/** Revokes the token (its jti) on the server and audits the sign-out. */
export async function adminLogout(deps: AdminAuthDeps, admin: AdminPrincipal, ip: string | null): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx.update(schema.adminTokens).set({ revokedAt: now }).where(eq(schema.adminTokens.jti, admin.jti));
    await recordAudit(tx, deps.clock, {
      adminId: admin.id,
      action: 'admin.logout',
      targetType: 'admin',
      targetId: admin.id,
      before: { jti: admin.jti },
      after: { jti: admin.jti, revokedAt: now.toISOString() },
      ip,
    });
  });
}

/** Forgets token rows a day after they expired (an expired token is refused by its exp claim anyway). */
export async function pruneAdminTokens(db: Db, clock: Clock): Promise<void> {
  await db.delete(schema.adminTokens).where(lt(schema.adminTokens.expiresAt, new Date(clock.now().getTime() - 86_400_000)));
}
