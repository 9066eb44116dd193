import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, firstRow, type UserLanguage } from '@bpay/db';
import { AppError } from '../../errors';
import { systemNow, type Clock } from '../../lib/clock';
import { seal, unseal } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { addressKey } from '../../lib/address-key';
import type { Logger } from '../../lib/logger';
import { releaseThrottle } from '../../lib/throttle';
import { newTotpSecret, otpauthUri, verifyTotp } from '../../lib/totp';
import { getUserRow, isUniqueViolation, normalizeEmail, toPublicUser, type PublicUser } from '../users/service';
import { describeDevice, mailLanguage, signInNoticeEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { notify } from '../notifications/service';
import { heldForRevert } from './email-change';
import { assertStrongPassword } from './password-strength';
import { createSession, type NewSession, type SessionClient, type SessionConfig } from './sessions';
import { countSignInLinkRequest, mailSignInLinkAfterAnswer, signInLinkSent } from './sign-in-link';
import {
  accountSignInLimited,
  countRegistration,
  countSignInAttempt,
  countVerification,
  isKnownSignInAddress,
  recordStrictSignInFailure,
  rememberSignInAddress,
  signInSucceeded,
  type RegistrationLimit,
} from './rate-limit';

export interface AuthDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** AES-256 key sealing TOTP secrets at rest. */
  totpKey: Buffer;
  /** Null when the request-rate limits are off (BPAY_RATE_LIMITS=off). */
  registrationLimit: RegistrationLimit | null;
  /** Links in notices' mail (notifications/service.ts). */
  publicUrl: URL;
}

/** OWASP's argon2id baseline: 19 MiB, 2 passes. */
const ARGON2 = { algorithm: 'argon2id', memoryCost: 19456, timeCost: 2 } as const;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, ARGON2);
}

// A real argon2id hash to verify against when the e-mail is unknown, so both failures cost the same time.
let dummyHash: Promise<string> | null = null;
const getDummyHash = () => (dummyHash ??= hashPassword('bpay-timing-equaliser'));

export interface RegisterInput {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  /** The language the person signs up in: bpay writes to them in it (default en). */
  language?: UserLanguage;
}

/**
 * Creates an account on the free plan from this client address. Fails with: weak_password (checked first: it costs
 * no allowance), registration_rate_limited (429: the address created its hourly allowance of accounts; every
 * attempt that gets this far counts, so e-mail probing is limited too), email_taken (any letter case).
 */
export async function register(deps: AuthDeps, input: RegisterInput, address: string): Promise<PublicUser> {
  const { db, clock } = deps;
  assertStrongPassword(input.password, [input.email, input.firstName, input.lastName]);
  const from = addressKey(address);
  await countRegistration(db, clock, deps.registrationLimit, from);
  const emailNormalized = normalizeEmail(input.email);
  const existing = await db.query.users.findFirst({
    where: eq(schema.users.emailNormalized, emailNormalized),
    columns: { id: true },
  });
  if (existing) throw new AppError('email_taken', undefined, 'email');
  // An address its owner may still take back ("this was not me" after an e-mail change) is not free yet.
  if (await heldForRevert(db, emailNormalized, clock.now())) throw new AppError('email_taken', undefined, 'email');

  const passwordHash = await hashPassword(input.password);
  const now = clock.now();
  const freeTier = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.name, 'free'));
  if (!freeTier) throw new Error('the free plan is missing: the database was not seeded');
  const id = newId('usr');
  const clean = (s?: string) => (s && s.trim() !== '' ? s.trim() : null);
  try {
    await db.transaction(async (tx) => {
      await tx.insert(schema.users).values({
        id,
        email: input.email.trim(),
        emailNormalized,
        passwordHash,
        firstName: clean(input.firstName),
        lastName: clean(input.lastName),
        language: input.language ?? 'en',
        createdAt: now,
        updatedAt: now,
      });
      await tx.insert(schema.userSubscriptions).values({
        id: newId('sub'),
        userId: id,
        tierId: freeTier.id,
        status: 'active',
        startedAt: now,
      });
    });
  } catch (e) {
    // Two registrations racing for one e-mail: the unique index decides.
    if (isUniqueViolation(e)) throw new AppError('email_taken', undefined, 'email');
    throw e;
  }
  // The address an account was created from is one it signs in from.
  await rememberSignInAddress(db, clock, id, from);
  return toPublicUser(await getUserRow(db, id));
}

type UserRow = typeof schema.users.$inferSelect;

/** A TOTP code's step is unused: later than the last step any request consumed. */
const stepUnused = (step: number) => or(isNull(schema.users.totpLastStep), lt(schema.users.totpLastStep, step));

/**
 * The WHERE of a write that consumes a TOTP code: the user's secret is still the one the code was verified against,
 * and the code's step is still unused. A check on the row read earlier is not enough: two requests with one code
 * (a sign-in and a disable, say) both read the row before either writes. The write that changes the row wins the
 * code; the other changes nothing and must refuse.
 */
const codeStillUnused = (userId: string, sealedSecret: string, step: number) =>
  and(eq(schema.users.id, userId), eq(schema.users.totpSecret, sealedSecret), stepUnused(step));

export interface LoginInput {
  email: string;
  password: string;
  totpCode?: string;
}

export interface SignedIn {
  user: PublicUser;
  session: NewSession;
}

/**
 * Checks credentials and, when enrolled, the TOTP code, and starts a session for `client`. Unknown e-mail and wrong
 * password fail identically, and so does a password changed while this sign-in was checking the old one.
 * Fails with: rate_limited (this address or this account from this address failed too often, see rate-limit.ts),
 * sign_in_link_sent (401: the account failed too often from everywhere, this address is new to it and the request
 * has no two-factor code: right password or wrong, this same answer, and a right one mails a sign-in link, see
 * sign-in-link.ts), sign_in_link_rate_limited (429: such attempts from this address, 5 an hour),
 * account_sign_in_limited (the same, with a two-factor code: any failure then answers this 429), invalid_credentials, two_factor_required
 * (password right, code missing: not counted as a failure), invalid_two_factor_code (also: the code was used by
 * another request meanwhile), verification_rate_limited (too many wrong codes for the account).
 */
export async function login(
  deps: AuthDeps & { session: SessionConfig },
  input: LoginInput,
  client: SessionClient,
): Promise<SignedIn> {
  const { db, clock } = deps;
  const keys = { account: normalizeEmail(input.email), address: addressKey(client.ip) };
  // Counted as a failure from here on, unless released below.
  const attempt = await countSignInAttempt(db, clock, keys);

  const user = await firstRow(db, schema.users, eq(schema.users.emailNormalized, keys.account));
  // Past the account's cap, only a full success from a new address is told apart from a failure.
  let strict = false;
  if (attempt.cappedFor !== null && !(user && (await isKnownSignInAddress(db, clock, user.id, keys.address)))) {
    if (!input.totpCode) return linkInstead(deps, user ?? null, input.password, client, keys.address, attempt.ids);
    strict = true;
  }
  const fail = (e: AppError) => (strict ? accountSignInLimited(attempt.cappedFor ?? 1) : e);

  const ok = await Bun.password.verify(input.password, user?.passwordHash ?? (await getDummyHash()));
  if (!user || !ok || (strict && !user.totpSecret)) {
    // Past the cap a right password with two-factor on goes on to the code's counted check (a commit): a failure here
    // writes as much, so the same 429's time does not say the password was right.
    if (strict) await recordStrictSignInFailure(db, clock, keys.address);
    throw fail(new AppError('invalid_credentials'));
  }
  let code: { sealedSecret: string; step: number; attempt: number } | null = null;
  if (user.totpSecret) {
    if (!input.totpCode) {
      await releaseThrottle(db, attempt.ids);
      throw new AppError('two_factor_required', undefined, 'totpCode');
    }
    const [codeAttempt] = await countVerification(db, clock, user.id, ['two_factor']).catch((e: unknown) => {
      throw e instanceof AppError ? fail(e) : e;
    });
    const step = verifyTotp(unseal(deps.totpKey, user.totpSecret), input.totpCode, systemNow(clock).getTime());
    if (step === null) throw fail(new AppError('invalid_two_factor_code', undefined, 'totpCode'));
    code = { sealedSecret: user.totpSecret, step, attempt: codeAttempt! };
  }
  const session = await commitSignIn(deps, user, code, client);
  // Both refusals stay counted failures, like the wrong password or code they stand for.
  if (session === 'password_changed') throw fail(new AppError('invalid_credentials'));
  if (session === 'code_used') throw fail(new AppError('invalid_two_factor_code', undefined, 'totpCode'));
  if (session === 'claim_lost') throw new Error('unreachable: no claim at sign-in');
  if (code) await releaseThrottle(db, [code.attempt]);
  await signInSucceeded(db, clock, keys, user.id, attempt);
  return { user: toPublicUser(user), session };
}

/**
 * Past the account's cap, from an address new to it, without a two-factor code (see sign-in-link.ts): counted
 * against the address's link allowance (a refusal there releases the attempt: nothing was checked), then the
 * password is checked; a right one mails a sign-in link once the answer has gone. Right or wrong, the answer is the same 401 sign_in_link_sent
 * and the attempt stays a counted failure (the address's and the pair's limits, which bound this work), so neither
 * the answer nor a later limit tells a guesser which it was.
 */
async function linkInstead(
  deps: AuthDeps & { session: SessionConfig },
  user: UserRow | null,
  password: string,
  client: SessionClient,
  address: string,
  attemptIds: number[],
): Promise<never> {
  await countSignInLinkRequest(deps.db, deps.clock, address).catch(async (e: unknown) => {
    await releaseThrottle(deps.db, attemptIds);
    throw e;
  });
  const ok = await Bun.password.verify(password, user?.passwordHash ?? (await getDummyHash()));
  // Not awaited: the answer must not wait for the link's writes (its time would tell a right password).
  if (user && ok) mailSignInLinkAfterAnswer(deps, user, client);
  throw signInLinkSent();
}

/**
 * The sign-in's writes, in one transaction so that they see the row as it is now, not as login read it before the
 * (slow) password check: the session is created only while the password hash is still the one just verified (a
 * password change stores its new hash and ends other sessions in one transaction, so a sign-in with the old password
 * either made its session before, and it was ended, or makes none), and the code's step is consumed only while
 * unused for the same secret. Nothing is written when either has moved on. With Login Notifications on, the new
 * sign-in notice (device, address, time) is queued in the same transaction. `claim`, when given (a sign-in link
 * marking itself used, sign-in-link.ts), runs in the transaction before the session: when it answers false, nothing
 * of the transaction stays.
 */
export async function commitSignIn(
  deps: AuthDeps & { session: SessionConfig },
  user: UserRow,
  code: { sealedSecret: string; step: number } | null,
  client: SessionClient,
  claim?: (tx: DbOrTx) => Promise<boolean>,
): Promise<NewSession | 'password_changed' | 'code_used' | 'claim_lost'> {
  const lost = new Error('claim lost');
  return deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select({ passwordHash: schema.users.passwordHash })
      .from(schema.users)
      .where(eq(schema.users.id, user.id))
      .limit(1);
    if (current?.passwordHash !== user.passwordHash) return 'password_changed';
    if (code) {
      const used = await tx
        .update(schema.users)
        .set({ totpLastStep: code.step })
        .where(codeStillUnused(user.id, code.sealedSecret, code.step))
        .returning({ id: schema.users.id });
      if (used.length !== 1) return 'code_used';
    }
    // Thrown, not returned: the code's step written above must not stay when the claim is lost.
    if (claim && !(await claim(tx))) throw lost;
    const session = await createSession(tx, deps.clock, deps.session, user.id, client);
    // The in-app notice always, in this transaction: no session, no notice.
    await notify(tx, deps, user.id, 'sign_in', { device: describeDevice(client.userAgent), ip: client.ip }, deps.clock.now());
    // The mail is an outbox row in this transaction too; sending never holds up the sign-in.
    if (user.loginNotifications) {
      await enqueueEmail(
        tx,
        deps.clock.now(),
        signInNoticeEmail({
          userId: user.id,
          to: user.email,
          firstName: user.firstName,
          lang: mailLanguage(user.language),
          device: describeDevice(client.userAgent),
          ip: client.ip,
          at: deps.clock.now(),
        }),
      );
    }
    return session;
  }).catch((e: unknown) => {
    if (e === lost) return 'claim_lost' as const;
    throw e;
  });
}

export interface TotpEnrolment {
  secret: string;
  otpauthUrl: string;
}

/** Starts (or restarts) enrolment: a new secret is kept pending until a code confirms it. */
export async function beginTotpEnrolment(deps: AuthDeps, userId: string): Promise<TotpEnrolment> {
  const user = await getUserRow(deps.db, userId);
  if (user.totpSecret) throw new AppError('two_factor_already_enabled');
  const secret = newTotpSecret();
  // Guarded: an enrolment confirmed meanwhile keeps its secret and gets no stray pending one.
  const started = await deps.db
    .update(schema.users)
    .set({ totpPendingSecret: seal(deps.totpKey, secret), updatedAt: deps.clock.now() })
    .where(and(eq(schema.users.id, userId), isNull(schema.users.totpSecret)))
    .returning({ id: schema.users.id });
  if (started.length !== 1) throw new AppError('two_factor_already_enabled');
  return { secret, otpauthUrl: otpauthUri(secret, user.email) };
}

/**
 * Confirms enrolment with a code from the app. Fails with: two_factor_already_enabled, two_factor_not_pending (also:
 * the pending secret was confirmed or replaced by another request meanwhile), verification_rate_limited (too many
 * wrong codes for the account, counted before the check), invalid_two_factor_code.
 */
export async function confirmTotpEnrolment(deps: AuthDeps, userId: string, code: string): Promise<PublicUser> {
  const user = await getUserRow(deps.db, userId);
  if (user.totpSecret) throw new AppError('two_factor_already_enabled');
  if (!user.totpPendingSecret) throw new AppError('two_factor_not_pending');
  const ids = await countVerification(deps.db, deps.clock, userId, ['two_factor']);
  const step = verifyTotp(unseal(deps.totpKey, user.totpPendingSecret), code, systemNow(deps.clock).getTime());
  if (step === null) throw new AppError('invalid_two_factor_code', undefined, 'code');
  // Guarded: only the secret this code was verified against is turned on, and only once (and told once, with it).
  const pending = user.totpPendingSecret;
  const row = await deps.db.transaction(async (tx) => {
    const [on] = await tx
      .update(schema.users)
      .set({ totpSecret: pending, totpPendingSecret: null, totpLastStep: step, updatedAt: deps.clock.now() })
      .where(and(eq(schema.users.id, userId), isNull(schema.users.totpSecret), eq(schema.users.totpPendingSecret, pending)))
      .returning();
    if (on) await notify(tx, deps, userId, 'two_factor_enabled', {}, deps.clock.now());
    return on;
  });
  if (!row) throw new AppError('two_factor_not_pending');
  await releaseThrottle(deps.db, ids);
  return toPublicUser(row);
}

/**
 * Turns two-factor off: needs the current password and a current, unused code, both counted before they are
 * checked (a wrong password against the re-authentication limit, a wrong code against the two-factor limit).
 * Fails with: two_factor_not_enabled, verification_rate_limited, invalid_current_password (param password),
 * invalid_two_factor_code (param code; also: the code was used by another request meanwhile, a sign-in say).
 */
export async function disableTotp(deps: AuthDeps, userId: string, input: { code: string; password: string }): Promise<PublicUser> {
  const { db, clock } = deps;
  const user = await getUserRow(db, userId);
  if (!user.totpSecret) throw new AppError('two_factor_not_enabled');
  const [passwordAttempt, codeAttempt] = await countVerification(db, clock, userId, ['password', 'two_factor']);
  if (!(await Bun.password.verify(input.password, user.passwordHash))) {
    await releaseThrottle(db, [codeAttempt!]);
    throw new AppError('invalid_current_password', undefined, 'password');
  }
  await releaseThrottle(db, [passwordAttempt!]);
  const step = verifyTotp(unseal(deps.totpKey, user.totpSecret), input.code, systemNow(clock).getTime());
  if (step === null) throw new AppError('invalid_two_factor_code', undefined, 'code');
  // The code is consumed by this very write (see codeStillUnused); a used one changes no row, and tells nothing.
  const sealed = user.totpSecret;
  const row = await db.transaction(async (tx) => {
    const [off] = await tx
      .update(schema.users)
      .set({ totpSecret: null, totpPendingSecret: null, totpLastStep: null, updatedAt: clock.now() })
      .where(codeStillUnused(userId, sealed, step))
      .returning();
    if (off) await notify(tx, deps, userId, 'two_factor_disabled', {}, clock.now());
    return off;
  });
  if (!row) throw new AppError('invalid_two_factor_code', undefined, 'code');
  await releaseThrottle(db, [codeAttempt!]);
  deps.log.info('account notification', { kind: 'two_factor_disabled', userId, to: user.email });
  return toPublicUser(row);
}
