import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { schema, type Db, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { Clock } from '../../lib/clock';
import { seal, unseal } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { addressKey } from '../../lib/address-key';
import type { Logger } from '../../lib/logger';
import { releaseThrottle } from '../../lib/throttle';
import { newTotpSecret, otpauthUri, verifyTotp } from '../../lib/totp';
import { getUserRow, isUniqueViolation, normalizeEmail, toPublicUser, type PublicUser } from '../users/service';
import { assertStrongPassword } from './password-strength';
import {
  accountSignInLimited,
  countRegistration,
  countSignInAttempt,
  countVerification,
  isKnownSignInAddress,
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

export interface LoginInput {
  email: string;
  password: string;
  totpCode?: string;
}

/**
 * Checks credentials and, when enrolled, the TOTP code. Unknown e-mail and wrong password fail identically.
 * Fails with: rate_limited (this address or this account from this address failed too often, see rate-limit.ts),
 * account_sign_in_limited (the account failed too often from everywhere and this address is new to it: checked only
 * with a two-factor code, and any failure then answers this same 429), invalid_credentials, two_factor_required
 * (password right, code missing: not counted as a failure), invalid_two_factor_code, verification_rate_limited (too
 * many wrong codes for the account).
 */
export async function login(deps: AuthDeps, input: LoginInput, address: string): Promise<PublicUser> {
  const { db, clock } = deps;
  const keys = { account: normalizeEmail(input.email), address: addressKey(address) };
  // Counted as a failure from here on, unless released below.
  const attempt = await countSignInAttempt(db, clock, keys);

  const user = await firstRow(db, schema.users, eq(schema.users.emailNormalized, keys.account));
  // Past the account's cap, only a full success from a new address is told apart from a failure.
  let strict = false;
  if (attempt.cappedFor !== null && !(user && (await isKnownSignInAddress(db, clock, user.id, keys.address)))) {
    if (!input.totpCode) {
      await releaseThrottle(db, attempt.ids);
      throw accountSignInLimited(attempt.cappedFor);
    }
    strict = true;
  }
  const fail = (e: AppError) => (strict ? accountSignInLimited(attempt.cappedFor ?? 1) : e);

  const ok = await Bun.password.verify(input.password, user?.passwordHash ?? (await getDummyHash()));
  if (!user || !ok) throw fail(new AppError('invalid_credentials'));
  if (strict && !user.totpSecret) throw fail(new AppError('invalid_credentials'));
  if (user.totpSecret) {
    if (!input.totpCode) {
      await releaseThrottle(db, attempt.ids);
      throw new AppError('two_factor_required', undefined, 'totpCode');
    }
    const [codeAttempt] = await countVerification(db, clock, user.id, ['two_factor']).catch((e: unknown) => {
      throw e instanceof AppError ? fail(e) : e;
    });
    const step = verifyTotp(unseal(deps.totpKey, user.totpSecret), input.totpCode, clock.now().getTime());
    if (step === null) throw fail(new AppError('invalid_two_factor_code', undefined, 'totpCode'));
    // Guarded: of several sign-ins with one code, only the first moves the last used step forward.
    const used = await db
      .update(schema.users)
      .set({ totpLastStep: step })
      .where(and(eq(schema.users.id, user.id), or(isNull(schema.users.totpLastStep), lt(schema.users.totpLastStep, step))))
      .returning({ id: schema.users.id });
    if (used.length !== 1) throw fail(new AppError('invalid_two_factor_code', undefined, 'totpCode'));
    await releaseThrottle(db, [codeAttempt!]);
  }
  await signInSucceeded(db, clock, keys, user.id, attempt);
  return toPublicUser(user);
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
  await deps.db
    .update(schema.users)
    .set({ totpPendingSecret: seal(deps.totpKey, secret), updatedAt: deps.clock.now() })
    .where(eq(schema.users.id, userId));
  return { secret, otpauthUrl: otpauthUri(secret, user.email) };
}

/**
 * Confirms enrolment with a code from the app. Fails with: two_factor_not_pending, verification_rate_limited (too
 * many wrong codes for the account, counted before the check), invalid_two_factor_code.
 */
export async function confirmTotpEnrolment(deps: AuthDeps, userId: string, code: string): Promise<PublicUser> {
  const user = await getUserRow(deps.db, userId);
  if (user.totpSecret) throw new AppError('two_factor_already_enabled');
  if (!user.totpPendingSecret) throw new AppError('two_factor_not_pending');
  const ids = await countVerification(deps.db, deps.clock, userId, ['two_factor']);
  const step = verifyTotp(unseal(deps.totpKey, user.totpPendingSecret), code, deps.clock.now().getTime());
  if (step === null) throw new AppError('invalid_two_factor_code', undefined, 'code');
  await releaseThrottle(deps.db, ids);
  const [row] = await deps.db
    .update(schema.users)
    .set({ totpSecret: user.totpPendingSecret, totpPendingSecret: null, totpLastStep: step, updatedAt: deps.clock.now() })
    .where(eq(schema.users.id, userId))
    .returning();
  return toPublicUser(row!);
}

/**
 * Turns two-factor off: needs the current password and a current, unused code, both counted before they are
 * checked (a wrong password against the re-authentication limit, a wrong code against the two-factor limit).
 * Fails with: two_factor_not_enabled, verification_rate_limited, invalid_current_password (param password),
 * invalid_two_factor_code (param code).
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
  const step = verifyTotp(unseal(deps.totpKey, user.totpSecret), input.code, clock.now().getTime());
  if (step === null || (user.totpLastStep !== null && step <= user.totpLastStep)) {
    throw new AppError('invalid_two_factor_code', undefined, 'code');
  }
  await releaseThrottle(db, [codeAttempt!]);
  const [row] = await db
    .update(schema.users)
    .set({ totpSecret: null, totpPendingSecret: null, totpLastStep: null, updatedAt: clock.now() })
    .where(eq(schema.users.id, userId))
    .returning();
  deps.log.info('account notification', { kind: 'two_factor_disabled', userId, to: user.email });
  return toPublicUser(row!);
}
