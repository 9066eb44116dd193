import { and, eq, gt, isNull } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import { AppError } from '../../errors';
import { addressKey } from '../../lib/address-key';
import { hmacHex } from '../../lib/crypto';
import { newId, newToken } from '../../lib/ids';
import { hitThrottle, type ThrottleRule } from '../../lib/throttle';
import { mailLanguage, passwordResetEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { notify } from '../notifications/service';
import { normalizeEmail } from '../users/service';
import { maskEmail } from './account';
import { assertStrongPassword } from './password-strength';
import { hashPassword, type AuthDeps } from './service';
import { revokeExtensionTokens } from './sessions';

/*
 * Password reset by e-mail. A request always gets the same answer, whether or not an account has the address (no
 * account enumeration); for an account, a single-use link is written to the outbox in the same transaction as its
 * token. The link carries 256 random bits; the database keeps only their HMAC under the session secret, so a leaked
 * table resets nothing. Using it stores the new password, marks the token used and ends every session of the
 * account, in one transaction. The person then signs in with the new password (and their two-factor code, if on):
 * a reset link alone never signs anyone in.
 */

const MINUTE = 60_000;
export const RESET_TOKEN_TTL_MS = 30 * MINUTE;
/** Per client address (an IPv6 /64), all e-mails together: stops one source mailing many people. */
export const RESET_PER_ADDRESS: ThrottleRule = { scope: 'password_reset:address', limit: 10, windowMs: 60 * MINUTE };
/** Per e-mail address, from everywhere: stops anyone filling one inbox with reset mails. */
export const RESET_PER_EMAIL: ThrottleRule = { scope: 'password_reset:email', limit: 3, windowMs: 60 * MINUTE };

export interface ResetDeps extends AuthDeps {
  session: { secret: string };
  publicUrl: URL;
}

const tokenHashOf = (secret: string, token: string) => hmacHex(secret, `password-reset:${token}`);

/** The reset page's address with the token (the web app's /reset-password reads and then hides it). */
export function resetLink(publicUrl: URL, token: string): string {
  return new URL(`/reset-password?token=${encodeURIComponent(token)}`, publicUrl.origin).href;
}

/** Every unused token of the user stops working (a newer link was sent, or the password changed). */
export async function invalidateResetTokens(tx: DbOrTx, userId: string): Promise<void> {
  await tx
    .delete(schema.passwordResetTokens)
    .where(and(eq(schema.passwordResetTokens.userId, userId), isNull(schema.passwordResetTokens.usedAt)));
}

/**
 * Asks for a reset link for `email`. The same answer whatever the address: counted first (per client address and per
 * e-mail, whether or not an account has it), then, for an account, its earlier unused links are invalidated and a
 * new one is queued. Fails with: password_reset_rate_limited (429 with Retry-After).
 */
export async function requestPasswordReset(deps: ResetDeps, email: string, address: string): Promise<void> {
  const { db, clock } = deps;
  const emailNormalized = normalizeEmail(email);
  const outcome = await hitThrottle(db, clock, [
    { rule: RESET_PER_ADDRESS, key: addressKey(address) },
    { rule: RESET_PER_EMAIL, key: emailNormalized },
  ]);
  if (!outcome.allowed) {
    const s = outcome.retryAfterSeconds;
    const m = Math.ceil(s / 60);
    throw new AppError(
      'password_reset_rate_limited',
      `Too many password reset requests. Try again in ${m} minute${m === 1 ? '' : 's'}.`,
      undefined,
      { 'retry-after': String(s) },
    );
  }
  const user = await db.query.users.findFirst({
    where: eq(schema.users.emailNormalized, emailNormalized),
    columns: { id: true, email: true, firstName: true, language: true },
  });
  if (!user) {
    deps.log.info('password reset requested for an unknown address');
    return;
  }
  await db.transaction((tx) => issuePasswordReset(tx, deps, user, clock.now()));
}

/**
 * In the caller's transaction: the user's earlier unused links stop working, a new token is stored and its link is
 * queued to the account's address, in the user's language. Used by a reset request and by reverting an e-mail change.
 */
export async function issuePasswordReset(
  tx: DbOrTx,
  deps: ResetDeps,
  user: { id: string; email: string; firstName: string | null; language: string },
  now: Date,
): Promise<void> {
  const token = newToken();
  await invalidateResetTokens(tx, user.id);
  await tx.insert(schema.passwordResetTokens).values({
    id: newId('prt'),
    userId: user.id,
    tokenHash: tokenHashOf(deps.session.secret, token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS),
  });
  await enqueueEmail(
    tx,
    now,
    passwordResetEmail({
      userId: user.id,
      to: user.email,
      firstName: user.firstName,
      lang: mailLanguage(user.language),
      link: resetLink(deps.publicUrl, token),
      expiresInMinutes: RESET_TOKEN_TTL_MS / MINUTE,
    }),
    { token, sessionSecret: deps.session.secret },
  );
}

type TokenRow = typeof schema.passwordResetTokens.$inferSelect;

/** The token's row, or the reason it cannot be used. Fails with: reset_token_invalid, reset_token_used, reset_token_expired. */
async function usableToken(deps: ResetDeps, token: string): Promise<TokenRow> {
  const row = await deps.db.query.passwordResetTokens.findFirst({
    where: eq(schema.passwordResetTokens.tokenHash, tokenHashOf(deps.session.secret, token)),
  });
  if (!row) throw new AppError('reset_token_invalid', undefined, 'token');
  if (row.usedAt) throw new AppError('reset_token_used', undefined, 'token');
  if (row.expiresAt.getTime() <= deps.clock.now().getTime()) throw new AppError('reset_token_expired', undefined, 'token');
  return row;
}

/** Whether a link can still be used, so the page can say so before the person types a new password. */
export async function checkResetToken(deps: ResetDeps, token: string): Promise<{ email: string; expiresAt: string }> {
  const row = await usableToken(deps, token);
  const user = await deps.db.query.users.findFirst({ where: eq(schema.users.id, row.userId), columns: { email: true } });
  if (!user) throw new AppError('reset_token_invalid', undefined, 'token');
  return { email: maskEmail(user.email), expiresAt: row.expiresAt.toISOString() };
}

/**
 * Sets a new password with a reset link's token. The password follows the registration rules. In one transaction:
 * the token is marked used (guarded: only while unused and unexpired, so two requests with one token cannot both
 * succeed), the hash is stored, every session of the account ends and its other unused tokens are invalidated.
 * Fails with: reset_token_invalid, reset_token_used, reset_token_expired (param token), weak_password (param password).
 */
export async function resetPassword(deps: ResetDeps, token: string, password: string): Promise<void> {
  const row = await usableToken(deps, token);
  const user = await deps.db.query.users.findFirst({ where: eq(schema.users.id, row.userId) });
  if (!user) throw new AppError('reset_token_invalid', undefined, 'token');
  assertStrongPassword(password, [user.email, user.firstName, user.lastName]);
  const passwordHash = await hashPassword(password);
  const done = await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const t = schema.passwordResetTokens;
    const used = await tx
      .update(t)
      .set({ usedAt: now })
      .where(and(eq(t.id, row.id), isNull(t.usedAt), gt(t.expiresAt, now)))
      .returning({ id: t.id });
    if (used.length !== 1) return false;
    await tx.update(schema.users).set({ passwordHash, updatedAt: now }).where(eq(schema.users.id, user.id));
    await tx.delete(schema.sessions).where(eq(schema.sessions.userId, user.id));
    await revokeExtensionTokens(tx, user.id, now);
    await invalidateResetTokens(tx, user.id);
    // Once: only the request that used the token (the guarded update above) gets here.
    await notify(tx, deps, user.id, 'password_reset', {}, now);
    return true;
  });
  // Another request used it (or it expired) while this one hashed the password: say what happened to it now.
  if (!done) await usableToken(deps, token).then(() => Promise.reject(new AppError('reset_token_used', undefined, 'token')));
  deps.log.info('password reset', { userId: user.id });
}
