import { and, desc, eq, gt, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx } from '@bpay/db';
import { AppError, notFound } from '../../errors';
import { hmacHex } from '../../lib/crypto';
import { newId, newToken } from '../../lib/ids';
import { hitThrottle, type ThrottleRule } from '../../lib/throttle';
import { emailChangeConfirmEmail, emailChangedEmail, mailLanguage } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { notify } from '../notifications/service';
import { isUniqueViolation, normalizeEmail } from '../users/service';
import { maskEmail } from './account';
import { invalidateResetTokens, issuePasswordReset, type ResetDeps } from './password-reset';
import { revokeExtensionTokens } from './sessions';

/*
 * E-mail changes are confirmed (issue 25). Asking for a new address (PATCH /api/auth/user with the current password)
 * stores a request and mails a single-use link to the NEW address; until it is followed the old address stays the
 * sign-in address. Following it (POST /api/auth/email-change/confirm) moves the account to the new address if it is
 * still free, invalidates unused password reset links, and tells the OLD address, with a "this was not me" link
 * (POST /api/auth/email-change/revert) that puts the old address back, ends every session and mails a password reset
 * to it. Links carry 256 random bits; the database keeps only their HMAC under the session secret.
 *
 * Sessions are kept when a change is confirmed: it was asked for with the current password from a signed-in session,
 * and ending the owner's other sessions would help only someone who took the account. The revert link is the way
 * out for the owner, and it ends every session.
 */

const HOUR = 60 * 60_000;
/** How long the confirmation link sent to the new address works. */
export const EMAIL_CHANGE_TTL_MS = 24 * HOUR;
/** How long the "this was not me" link sent to the old address works. */
export const EMAIL_REVERT_TTL_MS = 7 * 24 * HOUR;
/** Confirmation links mailed per account (new requests and resends together): a new address is nobody's to flood. */
export const EMAIL_CHANGE_PER_USER: ThrottleRule = { scope: 'email_change:user', limit: 5, windowMs: HOUR };

export type EmailChangeDeps = ResetDeps;

const confirmHashOf = (secret: string, token: string) => hmacHex(secret, `email-change:${token}`);
const revertHashOf = (secret: string, token: string) => hmacHex(secret, `email-revert:${token}`);

export const confirmEmailLink = (publicUrl: URL, token: string) =>
  new URL(`/confirm-email?token=${encodeURIComponent(token)}`, publicUrl.origin).href;
export const revertEmailLink = (publicUrl: URL, token: string) =>
  new URL(`/revert-email?token=${encodeURIComponent(token)}`, publicUrl.origin).href;

type RequestRow = typeof schema.emailChangeRequests.$inferSelect;
type UserRow = typeof schema.users.$inferSelect;

/** Counts one confirmation mail for the user. Fails with: email_change_rate_limited (429 with Retry-After). */
async function countMail(deps: EmailChangeDeps, userId: string): Promise<void> {
  const outcome = await hitThrottle(deps.db, deps.clock, [{ rule: EMAIL_CHANGE_PER_USER, key: userId }]);
  if (!outcome.allowed) {
    throw new AppError('email_change_rate_limited', undefined, undefined, { 'retry-after': String(outcome.retryAfterSeconds) });
  }
}

/** Another account has this address (any letter case). */
async function addressTaken(db: DbOrTx, userId: string, normalized: string, now: Date): Promise<boolean> {
  const row = await db.query.users.findFirst({ where: eq(schema.users.emailNormalized, normalized), columns: { id: true } });
  if (row !== undefined && row.id !== userId) return true;
  return (await heldForRevert(db, normalized, now, userId)) !== null;
}

/**
 * An address another account gave up in a confirmed change whose "this was not me" link still works: it is held for
 * that account until the link expires, so whoever took the account cannot register (or move another account to) the
 * owner's old address and leave the owner's way back with nowhere to go. Returns the holding account's id or null.
 * email_change_requests holds few rows (one per e-mail change): no index on old_email.
 */
export async function heldForRevert(db: DbOrTx, normalized: string, now: Date, exceptUserId: string | null = null): Promise<string | null> {
  const r = schema.emailChangeRequests;
  const [row] = await db
    .select({ userId: r.userId })
    .from(r)
    .where(
      and(
        sql`lower(trim(${r.oldEmail})) = ${normalized}`,
        isNotNull(r.confirmedAt),
        isNull(r.revertedAt),
        gt(r.revertExpiresAt, now),
        exceptUserId ? ne(r.userId, exceptUserId) : undefined,
      ),
    )
    .limit(1);
  return row?.userId ?? null;
}

/** Open requests (neither confirmed nor canceled) of the user stop working. */
async function cancelOpen(tx: DbOrTx, userId: string, at: Date): Promise<void> {
  const r = schema.emailChangeRequests;
  await tx.update(r).set({ canceledAt: at }).where(and(eq(r.userId, userId), isNull(r.confirmedAt), isNull(r.canceledAt)));
}

/**
 * Stores a request to move `user` to `newEmail` and mails the confirmation link to that address, in the user's
 * language; an earlier open request stops working. The caller has re-authenticated the user. Fails with: email_taken
 * (409: another account has it now; checked again when confirmed), email_change_rate_limited (429).
 */
export async function requestEmailChange(deps: EmailChangeDeps, user: UserRow, newEmail: string): Promise<void> {
  const change = await prepareEmailChange(deps, user.id, newEmail);
  await deps.db.transaction((tx) => storeEmailChange(tx, deps, user, change));
}

export interface EmailChange {
  email: string;
  normalized: string;
}

/**
 * The checks made before a change is stored (outside any transaction: the throttle counts even when the caller's
 * transaction is refused later). Fails with: email_taken, email_change_rate_limited.
 */
export async function prepareEmailChange(deps: EmailChangeDeps, userId: string, newEmail: string): Promise<EmailChange> {
  const email = newEmail.trim();
  const normalized = normalizeEmail(email);
  if (await addressTaken(deps.db, userId, normalized, deps.clock.now())) throw new AppError('email_taken', undefined, 'email');
  await countMail(deps, userId);
  return { email, normalized };
}

/** In the caller's transaction: the request row (earlier open ones canceled) and its mail to the new address. */
export function storeEmailChange(
  tx: DbOrTx,
  deps: EmailChangeDeps,
  user: Pick<UserRow, 'id' | 'email' | 'firstName' | 'language'>,
  change: EmailChange,
): Promise<void> {
  return storeRequest(tx, deps, user, change.email, change.normalized);
}

async function storeRequest(
  tx: DbOrTx,
  deps: EmailChangeDeps,
  user: Pick<UserRow, 'id' | 'email' | 'firstName' | 'language'>,
  email: string,
  normalized: string,
): Promise<void> {
  const now = deps.clock.now();
  await cancelOpen(tx, user.id, now);
  const token = newToken();
  await tx.insert(schema.emailChangeRequests).values({
    id: newId('ecr'),
    userId: user.id,
    oldEmail: user.email,
    newEmail: email,
    newEmailNormalized: normalized,
    tokenHash: confirmHashOf(deps.session.secret, token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + EMAIL_CHANGE_TTL_MS),
  });
  await enqueueEmail(
    tx,
    now,
    emailChangeConfirmEmail({
      userId: user.id,
      to: email,
      firstName: user.firstName,
      lang: mailLanguage(user.language),
      newEmail: email,
      link: confirmEmailLink(deps.publicUrl, token),
      expiresInHours: EMAIL_CHANGE_TTL_MS / HOUR,
    }),
    { token, sessionSecret: deps.session.secret },
  );
}

/** The user's open, unexpired request, newest first (a newer one cancels the older, so at most one is open). */
async function openRequest(db: Db, userId: string, now: Date): Promise<RequestRow | null> {
  const r = schema.emailChangeRequests;
  const row = await db.query.emailChangeRequests.findFirst({
    where: and(eq(r.userId, userId), isNull(r.confirmedAt), isNull(r.canceledAt), gt(r.expiresAt, now)),
    orderBy: [desc(r.createdAt), desc(r.id)],
  });
  return row ?? null;
}

export interface PendingEmailChange {
  email: string;
  expiresAt: string;
  sentAt: string;
}

/** What Settings shows: the address waiting for its link to be followed, or null. */
export async function pendingEmailChange(deps: EmailChangeDeps, userId: string): Promise<PendingEmailChange | null> {
  const row = await openRequest(deps.db, userId, deps.clock.now());
  return row ? { email: row.newEmail, expiresAt: row.expiresAt.toISOString(), sentAt: row.createdAt.toISOString() } : null;
}

/**
 * Sends a fresh link for the open request (the earlier link stops working). Fails with: resource_not_found (no open
 * request), email_taken (the address was taken meanwhile), email_change_rate_limited.
 */
export async function resendEmailChange(deps: EmailChangeDeps, user: UserRow): Promise<PendingEmailChange> {
  const open = await openRequest(deps.db, user.id, deps.clock.now());
  if (!open) throw notFound('pending e-mail change');
  await requestEmailChange(deps, user, open.newEmail);
  return (await pendingEmailChange(deps, user.id))!;
}

/** The user gives up the change: the link sent stops working. Nothing else changes; idempotent. */
export async function cancelEmailChange(deps: EmailChangeDeps, userId: string): Promise<void> {
  await cancelOpen(deps.db, userId, deps.clock.now());
}

/** Why a confirmation token cannot be used. Fails with: email_change_token_invalid, _used, _expired (param token). */
function assertUsable(row: RequestRow | undefined, now: Date): asserts row is RequestRow {
  if (!row || row.canceledAt) throw new AppError('email_change_token_invalid', undefined, 'token');
  if (row.confirmedAt) throw new AppError('email_change_token_used', undefined, 'token');
  if (row.expiresAt.getTime() <= now.getTime()) throw new AppError('email_change_token_expired', undefined, 'token');
}

/**
 * Follows a confirmation link: in one transaction the request is marked confirmed (guarded, so a link works once
 * even under parallel requests), the account moves to the new address, unused reset links stop working, the old
 * address is mailed the change with a "this was not me" link, and an email_changed notice is recorded. Nobody needs
 * to be signed in (the link may be opened on another device). Fails with: email_change_token_invalid,
 * email_change_token_used, email_change_token_expired (param token), email_taken (409: another account took the
 * address meanwhile; nothing changes and the link stays usable once it is free).
 */
export async function confirmEmailChange(deps: EmailChangeDeps, token: string): Promise<{ email: string }> {
  const r = schema.emailChangeRequests;
  const found = await deps.db.query.emailChangeRequests.findFirst({ where: eq(r.tokenHash, confirmHashOf(deps.session.secret, token)) });
  assertUsable(found, deps.clock.now());
  const row = found;
  const revertToken = newToken();
  try {
    const done = await deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      if (await addressTaken(tx, row.userId, row.newEmailNormalized, now)) throw new AppError('email_taken', undefined, 'email');
      const claimed = await tx
        .update(r)
        .set({
          confirmedAt: now,
          revertTokenHash: revertHashOf(deps.session.secret, revertToken),
          revertExpiresAt: new Date(now.getTime() + EMAIL_REVERT_TTL_MS),
        })
        .where(and(eq(r.id, row.id), isNull(r.confirmedAt), isNull(r.canceledAt), gt(r.expiresAt, now)))
        .returning({ id: r.id });
      if (claimed.length !== 1) return false;
      const [user] = await tx
        .update(schema.users)
        .set({ email: row.newEmail, emailNormalized: row.newEmailNormalized, updatedAt: now })
        .where(eq(schema.users.id, row.userId))
        .returning();
      if (!user) throw new AppError('email_change_token_invalid', undefined, 'token');
      // A reset link mailed to the old address must not take the account back (hostile review of issue 16).
      await invalidateResetTokens(tx, user.id);
      const newEmailMasked = maskEmail(user.email);
      // To the address the account had when the change was asked for: its owner is the one to tell.
      await enqueueEmail(
        tx,
        now,
        emailChangedEmail({
          userId: user.id,
          to: row.oldEmail,
          firstName: user.firstName,
          lang: mailLanguage(user.language),
          newEmailMasked,
          at: now,
          revertLink: revertEmailLink(deps.publicUrl, revertToken),
          revertDays: EMAIL_REVERT_TTL_MS / (24 * HOUR),
        }),
        { token: revertToken, sessionSecret: deps.session.secret },
      );
      await notify(tx, deps, user.id, 'email_changed', { newEmailMasked }, now);
      return true;
    });
    if (!done) {
      // Another request used it (or it expired) meanwhile: say which.
      const again = await deps.db.query.emailChangeRequests.findFirst({ where: eq(r.id, row.id) });
      assertUsable(again, deps.clock.now());
      throw new AppError('email_change_token_used', undefined, 'token');
    }
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('email_taken', undefined, 'email');
    throw e;
  }
  deps.log.info('e-mail address changed', { userId: row.userId });
  return { email: row.newEmail };
}

/**
 * "This was not me": puts back the address the account had before the confirmed change, ends every session and
 * connected browser, cancels open change requests and mails a password reset link to the restored address, in one
 * transaction. Works once, within EMAIL_REVERT_TTL_MS, even if the address was changed again since (a second change
 * by whoever took the account mails its own link to an address they chose). Fails with: email_change_token_invalid,
 * email_change_token_used, email_change_token_expired (param token), email_taken (409: another account has the old
 * address now).
 */
export async function revertEmailChange(deps: EmailChangeDeps, token: string): Promise<{ email: string }> {
  const r = schema.emailChangeRequests;
  const row = await deps.db.query.emailChangeRequests.findFirst({ where: eq(r.revertTokenHash, revertHashOf(deps.session.secret, token)) });
  const check = (x: RequestRow | undefined, now: Date): RequestRow => {
    if (!x || !x.confirmedAt || !x.revertExpiresAt) throw new AppError('email_change_token_invalid', undefined, 'token');
    if (x.revertedAt) throw new AppError('email_change_token_used', undefined, 'token');
    if (x.revertExpiresAt.getTime() <= now.getTime()) throw new AppError('email_change_token_expired', undefined, 'token');
    return x;
  };
  const req = check(row, deps.clock.now());
  const oldNormalized = normalizeEmail(req.oldEmail);
  try {
    const done = await deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      if (await addressTaken(tx, req.userId, oldNormalized, now)) throw new AppError('email_taken', undefined, 'email');
      const claimed = await tx
        .update(r)
        .set({ revertedAt: now })
        .where(and(eq(r.id, req.id), isNull(r.revertedAt), gt(r.revertExpiresAt, now)))
        .returning({ id: r.id });
      if (claimed.length !== 1) return false;
      const [user] = await tx
        .update(schema.users)
        .set({ email: req.oldEmail, emailNormalized: oldNormalized, updatedAt: now })
        .where(eq(schema.users.id, req.userId))
        .returning();
      if (!user) throw new AppError('email_change_token_invalid', undefined, 'token');
      await cancelOpen(tx, user.id, now);
      // Every other "this was not me" link of the account stops working: one sent for a later change by whoever took
      // the account (to an address they chose) must not take it back from the owner who just used this one.
      await tx
        .update(r)
        .set({ revertExpiresAt: now })
        .where(and(eq(r.userId, user.id), ne(r.id, req.id), isNull(r.revertedAt), gt(r.revertExpiresAt, now)));
      await tx.delete(schema.sessions).where(eq(schema.sessions.userId, user.id));
      await revokeExtensionTokens(tx, user.id, now);
      // Whoever changed the address knew the password: the owner chooses a new one through the restored address.
      await issuePasswordReset(tx, deps, user, now);
      return true;
    });
    if (!done) {
      check(await deps.db.query.emailChangeRequests.findFirst({ where: eq(r.id, req.id) }), deps.clock.now());
      throw new AppError('email_change_token_used', undefined, 'token');
    }
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('email_taken', undefined, 'email');
    throw e;
  }
  deps.log.info('e-mail change reverted', { userId: req.userId });
  return { email: maskEmail(req.oldEmail) };
}
