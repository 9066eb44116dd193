import { jwt } from '@elysiajs/jwt';
import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
import { schema, type Db, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import { systemNow, type Clock } from '../../lib/clock';
import { unseal } from '../../lib/crypto';
import { addressKey } from '../../lib/address-key';
import { newToken } from '../../lib/ids';
import { clearThrottle, hitThrottleWithCap, releaseThrottle, throttleWait, type ThrottleHit, type ThrottleRule } from '../../lib/throttle';
import { verifyTotp } from '../../lib/totp';
import { normalizeUsername } from './accounts';
import { recordAudit } from './audit';

export const ADMIN_AUDIENCE = 'bpay-admin';

/*
 * Admin sign-in throttling. A lockout must not lock the real admin out: an attacker who knows a username could
 * otherwise keep it locked forever. So, counted before the password check (atomically, hitThrottle):
 * - per address: 10 failures in 15 minutes (all usernames together), then 429 rate_limited;
 * - per username and address: 5 failures free, then growing delays (1, 2, 4 … at most 60 minutes), cleared by a
 *   success from that address;
 * - per username, from everywhere: past 10 failures in 30 minutes the username is "locked" for guessers only: every
 *   attempt is still checked, a complete one (password and an unused current code) signs in from any address, and
 *   anything less answers 429 admin_locked with Retry-After, so a guesser cannot even tell a right password.
 */
const MINUTE = 60_000;
export const ADMIN_SIGN_IN_PER_ADDRESS: ThrottleRule = { scope: 'admin_sign_in:address', limit: 10, windowMs: 15 * MINUTE };
export const ADMIN_SIGN_IN_PER_USERNAME_ADDRESS: ThrottleRule = {
  scope: 'admin_sign_in:username_address',
  limit: 5,
  windowMs: 24 * 60 * MINUTE,
  backoff: { baseMs: MINUTE, maxMs: 60 * MINUTE },
};
/** Failures for one username (all addresses) that lock it for guessers, and the window they are counted in. */
export const MAX_ADMIN_FAILURES = 10;
export const ADMIN_LOCK_MS = 30 * MINUTE;
export const ADMIN_SIGN_IN_PER_USERNAME: ThrottleRule = {
  scope: 'admin_sign_in:username',
  limit: MAX_ADMIN_FAILURES,
  windowMs: ADMIN_LOCK_MS,
};

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
 * reused code. 429 rate_limited with Retry-After when this address failed too often (see the rules above); 429
 * admin_locked with Retry-After for any failure while the username is locked for guessers (the same for names no
 * admin has). Every checked attempt is audited.
 */
export async function adminLogin(
  deps: AdminAuthDeps,
  input: { username: string; password: string; accessCode: string },
  ip: string | null,
): Promise<{ token: string; issuedAt: Date; expiresAt: Date; admin: { id: string; username: string } }> {
  const key = normalizeUsername(input.username);
  const now = deps.clock.now();
  const attempt = await countAdminAttempt(deps, key, addressKey(ip ?? 'unknown'));
  const admin = await firstRow(deps.db, schema.admins, eq(schema.admins.usernameNormalized, key));
  const passwordOk = await Bun.password.verify(input.password, admin ? admin.passwordHash : await dummy());
  const step = admin && passwordOk ? acceptedStep(deps, admin, input.accessCode, now) : null;
  if (!admin || !passwordOk || step === null) {
    await recordFailure(deps, key, attempt, now, admin?.id ?? null, ip);
    if (attempt.lockedFor !== null) throw adminLocked(attempt.lockedFor);
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
    if (used.length !== 1) {
      throw attempt.lockedFor !== null ? adminLocked(attempt.lockedFor) : new AppError('invalid_admin_credentials');
    }
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
  // Not a failure after all; this address starts afresh for this username (the username's count stays).
  await releaseThrottle(deps.db, attempt.ids);
  await clearThrottle(deps.db, ADMIN_SIGN_IN_PER_USERNAME_ADDRESS, attempt.pairKey);
  // issuedAt is the token row's issued_at: the login answer and /verify give the same loginTime.
  return { token, issuedAt: now, expiresAt, admin: { id: admin.id, username: admin.username } };
}

function adminLocked(seconds: number): AppError {
  return new AppError(
    'admin_locked',
    `Too many failed sign-in attempts for this admin. Only the right username, password and current code get in ` +
      `until ${Math.ceil(seconds / 60)} minute(s) have passed.`,
    undefined,
    { 'retry-after': String(seconds) },
  );
}

interface AdminAttempt {
  ids: number[];
  pairKey: string;
  /** The username is locked for guessers: seconds until its count has room again. */
  lockedFor: number | null;
}

/**
 * Counts one attempt as a failure before the password check. Fails with rate_limited when the address or the
 * username-and-address pair has no room; a full username count does not refuse (see adminLogin) and the attempt
 * then counts against the address and the pair only.
 */
async function countAdminAttempt(deps: AdminAuthDeps, username: string, address: string): Promise<AdminAttempt> {
  const pairKey = `${username}|${address}`;
  const hits: ThrottleHit[] = [
    { rule: ADMIN_SIGN_IN_PER_ADDRESS, key: address },
    { rule: ADMIN_SIGN_IN_PER_USERNAME_ADDRESS, key: pairKey },
    { rule: ADMIN_SIGN_IN_PER_USERNAME, key: username },
  ];
  const outcome = await hitThrottleWithCap(deps.db, deps.clock, hits, ADMIN_SIGN_IN_PER_USERNAME);
  if (outcome.allowed) return { ids: outcome.ids, pairKey, lockedFor: outcome.cappedFor };
  const seconds = outcome.retryAfterSeconds;
  throw new AppError(
    'rate_limited',
    `Too many failed sign-in attempts from this network. Try again in ${Math.ceil(seconds / 60)} minute(s).`,
    undefined,
    { 'retry-after': String(seconds) },
  );
}

/** The step is later than the last one accepted (so each code signs in once). */
const totpStepFree = (step: number) => or(isNull(schema.admins.totpLastStep), lt(schema.admins.totpLastStep, step));

function acceptedStep(deps: AdminAuthDeps, admin: AdminRow, code: string, now: Date): number | null {
  // The code is the authenticator's: checked against the system clock as it is (lib/clock.ts systemNow).
  const step = verifyTotp(unseal(deps.totpKey, admin.totpSecret), code, systemNow(deps.clock).getTime());
  if (step === null) return null;
  if (admin.totpLastStep !== null && step <= admin.totpLastStep) return null;
  return step;
}

/** A failed attempt (already counted): audited, as admin.login_locked when it is the one that locks the username. */
async function recordFailure(deps: AdminAuthDeps, key: string, attempt: AdminAttempt, now: Date, adminId: string | null, ip: string | null) {
  const nowLocked =
    attempt.lockedFor === null &&
    (await throttleWait(deps.db, deps.clock, [{ rule: ADMIN_SIGN_IN_PER_USERNAME, key }])) !== null;
  await recordAudit(deps.db, deps.clock, {
    adminId,
    action: nowLocked ? 'admin.login_locked' : 'admin.login_failed',
    targetType: 'admin',
    targetId: adminId,
    after: {
      username: key,
      ...(nowLocked ? { lockedUntil: new Date(now.getTime() + ADMIN_LOCK_MS).toISOString() } : {}),
      ...(attempt.lockedFor !== null ? { whileLocked: true } : {}),
    },
    ip,
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
