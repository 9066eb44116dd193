import { eq } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import { notify } from '../notifications/service';
import { invalidateResetTokens } from './password-reset';
import { AppError, notFound } from '../../errors';
import { releaseThrottle } from '../../lib/throttle';
import { getUserRow, normalizeEmail, toPublicUser, updateProfile, type ProfilePatch, type PublicUser } from '../users/service';
import { assertStrongPassword } from './password-strength';
import { countVerification } from './rate-limit';
import { prepareEmailChange, storeEmailChange, type EmailChangeDeps } from './email-change';
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
 * PATCH /api/auth/user: the profile (and the language bpay writes in), plus the two changes that hand an account to
 * someone else, which need the current password: a new e-mail address (another letter case of the same address is no
 * change) and a new password (which must be strong). A new password ends every other session and invalidates unused
 * reset links. A new e-mail address is not applied here: it is stored as a request and a confirmation link goes to
 * the new address (email-change.ts); the answer still shows the current address, which stays the sign-in address
 * until the link is followed. No password ever reaches a log.
 * Fails with: current_password_required, weak_password, verification_rate_limited, invalid_current_password,
 * email_taken and email_change_rate_limited (the new address), and updateProfile's validation_error.
 */
export async function updateAccount(
  deps: EmailChangeDeps & { session: SessionConfig },
  userId: string,
  sessionToken: string,
  patch: AccountPatch,
): Promise<PublicUser> {
  const { currentPassword, password, email, ...rest } = patch;
  const user = await getUserRow(deps.db, userId);
  const emailChanges = email !== undefined && normalizeEmail(email) !== user.emailNormalized;
  // Another letter case of the same address reaches the same mailbox: it is written at once, no link needed.
  const profile = emailChanges || email === undefined ? rest : { ...rest, email };
  let passwordHash: string | undefined;
  if (emailChanges || password !== undefined) {
    if (!currentPassword) throw new AppError('current_password_required', undefined, 'currentPassword');
    if (password !== undefined) {
      const names = [profile.firstName ?? user.firstName, profile.lastName ?? user.lastName];
      assertStrongPassword(password, [user.email, email, ...names]);
    }
    await verifyCurrentPassword(deps, user, currentPassword);
    if (password !== undefined) passwordHash = await hashPassword(password);
  }
  // Checked and counted before anything is stored: a taken address refuses the whole request.
  const change = emailChanges ? await prepareEmailChange(deps, userId, email!) : null;
  const updated = await deps.db.transaction(async (tx) => {
    // The profile first: its validation refuses the request before a new password is stored.
    let row = passwordHash && !Object.values(profile).some((v) => v !== undefined) ? null : await updateProfile(tx, deps.clock, userId, profile);
    if (passwordHash) row = await replacePassword(deps, tx, userId, sessionToken, passwordHash);
    const now = row ?? toPublicUser(user);
    // In the user's language as this request leaves it (the same request may switch it).
    if (change) await storeEmailChange(tx, deps, { id: userId, email: user.email, firstName: now.firstName, language: now.language }, change);
    return now;
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
  // Told with the change, in its transaction: a change refused later in it (an e-mail clash) tells nothing.
  await notify(tx, deps, userId, 'password_changed', {}, deps.clock.now());
  return toPublicUser(row);
}
