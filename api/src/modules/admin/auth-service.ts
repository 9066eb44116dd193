import { jwt } from '@elysiajs/jwt';
import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
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
  const lock = await deps.db.query.adminSignInLocks.findFirst({ where: eq(schema.adminSignInLocks.usernameNormalized, key) });
  if (lock?.lockedUntil && lock.lockedUntil.getTime() > now.getTime()) {
    const seconds = Math.max(1, Math.ceil((lock.lockedUntil.getTime() - now.getTime()) / 1000));
    throw new AppError('admin_locked', undefined, undefined, { 'retry-after': String(seconds) });
  }
  const admin = await deps.db.query.admins.findFirst({ where: eq(schema.admins.usernameNormalized, key) });
  const passwordOk = await Bun.password.verify(input.password, admin ? admin.passwordHash : await dummy());
  const step = admin && passwordOk ? acceptedStep(deps, admin, input.accessCode, now) : null;
  if (!admin || !passwordOk || step === null) {
    await recordFailure(deps, key, lock, now, admin?.id ?? null, ip);
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

async function recordFailure(
  deps: AdminAuthDeps,
  key: string,
  lock: typeof schema.adminSignInLocks.$inferSelect | undefined,
  now: Date,
  adminId: string | null,
  ip: string | null,
): Promise<void> {
  // A lock that has run out starts the count again.
  const previous = lock && !(lock.lockedUntil && lock.lockedUntil.getTime() <= now.getTime()) ? lock.failedAttempts : 0;
  const failedAttempts = previous + 1;
  const lockedUntil = failedAttempts >= MAX_ADMIN_FAILURES ? new Date(now.getTime() + ADMIN_LOCK_MS) : null;
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(schema.adminSignInLocks)
      .values({ usernameNormalized: key, failedAttempts, lockedUntil, updatedAt: now })
      .onConflictDoUpdate({
        target: schema.adminSignInLocks.usernameNormalized,
        set: { failedAttempts, lockedUntil, updatedAt: now },
      });
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
