import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { AppError, notFound } from '../../errors';
import { releaseThrottle } from '../../lib/throttle';
import { getUserRow, normalizeEmail, toPublicUser, updateProfile, type ProfilePatch, type PublicUser } from '../users/service';
import { assertStrongPassword } from './password-strength';
import { countVerification } from './rate-limit';
import { hashPassword, type AuthDeps } from './service';
import { deleteOtherSessions, type SessionConfig } from './sessions';

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
 * (which must be strong). A new password ends every other session. The old address is told of an e-mail change and
 * the address of a password change: a structured log line `account notification` for the mail sender (no mail
 * server here); no password ever reaches a log.
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
  const updated = passwordHash
    ? await saveWithNewPassword(deps, userId, sessionToken, profile, passwordHash)
    : await updateProfile(deps.db, deps.clock, userId, profile);
  if (passwordHash) deps.log.info('account notification', { kind: 'password_changed', userId, to: updated.email });
  if (emailChanges) {
    deps.log.info('account notification', {
      kind: 'email_changed',
      userId,
      to: user.email,
      newEmail: maskEmail(updated.email),
    });
  }
  return updated;
}

async function saveWithNewPassword(
  deps: AuthDeps & { session: SessionConfig },
  userId: string,
  keepToken: string,
  profile: ProfilePatch,
  passwordHash: string,
): Promise<PublicUser> {
  // The profile first: its validation and e-mail clash refuse the request before the new password is stored.
  if (Object.values(profile).some((v) => v !== undefined)) await updateProfile(deps.db, deps.clock, userId, profile);
  return replacePassword(deps, userId, keepToken, passwordHash);
}

/**
 * Stores the new hash and ends every other session in one transaction, so no moment exists where the new password
 * is set and an older session still works. A sign-in that verified the old password creates its session in a
 * transaction that first checks the hash it verified (service.ts, commitSignIn): it comes before this one, and its
 * session is ended here, or after, and it creates none.
 */
async function replacePassword(
  deps: AuthDeps & { session: SessionConfig },
  userId: string,
  keepToken: string,
  passwordHash: string,
): Promise<PublicUser> {
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(schema.users)
      .set({ passwordHash, updatedAt: deps.clock.now() })
      .where(eq(schema.users.id, userId))
      .returning();
    if (!row) throw notFound('user');
    await deleteOtherSessions(tx, deps.session, userId, keepToken);
    return toPublicUser(row);
  });
}
