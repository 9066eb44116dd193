import { eq } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import { emailChangedEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { invalidateResetTokens } from './password-reset';
import { AppError, notFound } from '../../errors';
import { releaseThrottle } from '../../lib/throttle';
import { getUserRow, normalizeEmail, toPublicUser, updateProfile, type ProfilePatch, type PublicUser } from '../users/service';
import { assertStrongPassword } from './password-strength';
import { countVerification } from './rate-limit';
import { hashPassword, type AuthDeps } from './service';
import { deleteOtherSessions, revokeExtensionTokens, type SessionConfig } from './sessions';

export interface AccountPatch extends ProfilePatch {
  /** A new password. */
  password?: string;
  /** Required with a new password or a new e-mail address; ignored otherwise. */
  currentPassword?: string;
}

type UserRow = Awaited<ReturnType<typeof getUserRow>>;

/** `ada@example.com` → `a***@example.com`: enough for the owner to recognise, little for a log reader. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at <= 0 ? '***' : `${email[0]}***${email.slice(at)}`;
}

/**
 * Re-authentication: the signed-in person proves they know the password, counted before the (slow) check. Fails
 * with: verification_rate_limited (429), invalid_current_password (param `param`).
 */
export async function verifyCurrentPassword(deps: AuthDeps, user: UserRow, password: string, param = 'currentPassword') {
  const ids = await countVerification(deps.db, deps.clock, user.id, ['password']);
  if (!(await Bun.password.verify(password, user.passwordHash))) {
    throw new AppError('invalid_current_password', undefined, param);
  }
  await releaseThrottle(deps.db, ids);
}

/**
 * PATCH /api/auth/user: the profile, plus the two changes that hand an account to someone else, which need the
 * current password: a new e-mail address (another letter case of the same address is no change) and a new password
 * (which must be strong). A new password ends every other session and invalidates unused reset links. The old
 * address is sent a notice of an e-mail change (queued in the transaction that stores it); no password ever reaches
 * a log.
 * Fails with: current_password_required, weak_password, verification_rate_limited, invalid_current_password, and
 * updateProfile's validation_error and email_taken.
 */
export async function updateAccount(
  deps: AuthDeps & { session: SessionConfig },
  userId: string,
  sessionToken: string,
  patch: AccountPatch,
): Promise<PublicUser> {
  const { currentPassword, password, ...profile } = patch;
  const user = await getUserRow(deps.db, userId);
  const emailChanges = profile.email !== undefined && normalizeEmail(profile.email) !== user.emailNormalized;
  let passwordHash: string | undefined;
  if (emailChanges || password !== undefined) {
    if (!currentPassword) throw new AppError('current_password_required', undefined, 'currentPassword');
    if (password !== undefined) {
      const names = [profile.firstName ?? user.firstName, profile.lastName ?? user.lastName];
      assertStrongPassword(password, [user.email, profile.email, ...names]);
    }
    await verifyCurrentPassword(deps, user, currentPassword);
    if (password !== undefined) passwordHash = await hashPassword(password);
  }
  const updated = await deps.db.transaction(async (tx) => {
    // The profile first: its validation and e-mail clash refuse the request before a new password is stored.
    let row = passwordHash && !Object.values(profile).some((v) => v !== undefined) ? null : await updateProfile(tx, deps.clock, userId, profile);
    if (passwordHash) row = await replacePassword(deps, tx, userId, sessionToken, passwordHash);
    if (emailChanges && row) {
      // A reset link mailed to the old address must not take the account back (hostile review of issue 16).
      await invalidateResetTokens(tx, userId);
      // To the old address, in this transaction: the notice goes out if and only if the change is stored.
      await enqueueEmail(
        tx,
        deps.clock.now(),
        emailChangedEmail({
          userId,
          to: user.email,
          firstName: row.firstName,
          newEmailMasked: maskEmail(row.email),
          at: deps.clock.now(),
        }),
      );
    }
    return row!;
  });
  // No e-mail kind exists for a password change yet (email_outbox's kinds): a log line, as before the outbox.
  if (passwordHash) deps.log.info('account notification', { kind: 'password_changed', userId, to: updated.email });
  return updated;
}

/**
 * Stores the new hash and ends every other session in one transaction, so no moment exists where the new password
 * is set and an older session still works. A sign-in that verified the old password creates its session in a
 * transaction that first checks the hash it verified (service.ts, commitSignIn): it comes before this one, and its
 * session is ended here, or after, and it creates none.
 */
async function replacePassword(
  deps: AuthDeps & { session: SessionConfig },
  tx: DbOrTx,
  userId: string,
  keepToken: string,
  passwordHash: string,
): Promise<PublicUser> {
  const [row] = await tx
    .update(schema.users)
    .set({ passwordHash, updatedAt: deps.clock.now() })
    .where(eq(schema.users.id, userId))
    .returning();
  if (!row) throw notFound('user');
  await deleteOtherSessions(tx, deps.session, userId, keepToken);
  await revokeExtensionTokens(tx, userId, deps.clock.now());
  // A reset link mailed before the change must not undo it.
  await invalidateResetTokens(tx, userId);
  return toPublicUser(row);
}
