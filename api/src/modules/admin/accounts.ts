import { randomBytes } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { schema, type Db, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { Clock } from '../../lib/clock';
import { seal } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import type { Logger } from '../../lib/logger';
import { base32Decode, newTotpSecret, otpauthUri } from '../../lib/totp';

export const USERNAME_RE = /^[A-Za-z0-9_.@-]{3,64}$/;
export const MIN_ADMIN_PASSWORD = 12;

export const normalizeUsername = (u: string) => u.trim().toLowerCase();

export interface AccountDeps {
  db: Db;
  clock: Clock;
  /** Seals TOTP secrets at rest (deps.totpKey). */
  totpKey: Buffer;
}

export interface CreatedAdmin {
  id: string;
  username: string;
  /** Only when bpay generated it: shown once, never stored in clear. */
  generatedPassword: string | null;
  totpSecret: string;
  otpauthUri: string;
}

/**
 * Creates an admin. A missing password or TOTP secret is generated (and returned, to be shown once).
 * Fails with validation_error for a bad username, a short password or a bad base32 secret, and with
 * validation_error (param username) when the name is taken.
 */
export async function createAdmin(
  deps: AccountDeps,
  input: { username: string; password?: string; totpSecret?: string },
): Promise<CreatedAdmin> {
  const username = input.username.trim();
  if (!USERNAME_RE.test(username)) {
    throw new AppError('validation_error', 'username must be 3-64 letters, digits or _ . @ -', 'username');
  }
  if (input.password !== undefined && input.password.length < MIN_ADMIN_PASSWORD) {
    throw new AppError('validation_error', `password must be at least ${MIN_ADMIN_PASSWORD} characters`, 'password');
  }
  const totpSecret = (input.totpSecret ?? newTotpSecret()).replace(/=+$/, '').toUpperCase();
  let secretBytes = 0;
  try {
    secretBytes = base32Decode(totpSecret).length;
  } catch {
    secretBytes = 0;
  }
  if (secretBytes < 10) throw new AppError('validation_error', 'totpSecret must be base32 of at least 80 bits', 'totpSecret');
  const existing = await firstRow(deps.db, schema.admins, eq(schema.admins.usernameNormalized, normalizeUsername(username)));
  if (existing) throw new AppError('validation_error', 'An admin with this username already exists.', 'username');
  const generatedPassword = input.password === undefined ? randomBytes(18).toString('base64url') : null;
  const password = input.password ?? generatedPassword!;
  const id = newId('adm');
  await deps.db.insert(schema.admins).values({
    id,
    username,
    usernameNormalized: normalizeUsername(username),
    passwordHash: await Bun.password.hash(password, { algorithm: 'argon2id' }),
    totpSecret: seal(deps.totpKey, totpSecret),
    createdAt: deps.clock.now(),
  });
  return { id, username, generatedPassword, totpSecret, otpauthUri: otpauthUri(totpSecret, username, 'bpay admin') };
}

export async function adminCount(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(schema.admins);
  return row?.n ?? 0;
}

/**
 * At start: when no admin exists, creates the first one from BPAY_ADMIN_USERNAME / _PASSWORD / _TOTP_SECRET when
 * all three are set; otherwise generates what is missing ('admin' and a random password and secret) and prints the
 * credentials once to the server log with an otpauth:// URI. Does nothing when an admin exists.
 */
export async function ensureFirstAdmin(
  deps: AccountDeps,
  log: Logger,
  env: { username?: string; password?: string; totpSecret?: string },
): Promise<CreatedAdmin | null> {
  if ((await adminCount(deps.db)) > 0) return null;
  const fromEnv = env.username !== undefined && env.password !== undefined && env.totpSecret !== undefined;
  let created: CreatedAdmin;
  try {
    created = fromEnv
      ? await createAdmin(deps, { username: env.username!, password: env.password, totpSecret: env.totpSecret })
      : await createAdmin(deps, { username: env.username ?? 'admin', password: env.password, totpSecret: env.totpSecret });
  } catch (error) {
    // Another process starting on the same database created the first admin meanwhile (its name is taken, or its
    // row won the unique index): nothing to do here, and nothing to print.
    if ((await adminCount(deps.db)) > 0) return null;
    throw error;
  }
  if (fromEnv) {
    log.info('first admin created from BPAY_ADMIN_USERNAME, BPAY_ADMIN_PASSWORD and BPAY_ADMIN_TOTP_SECRET', {
      username: created.username,
    });
  } else {
    // Printed once: the next start finds an admin and prints nothing. Only generated values are printed.
    log.warn('first admin created: store these credentials now, they are not shown again', {
      username: created.username,
      ...(created.generatedPassword !== null ? { password: created.generatedPassword } : {}),
      ...(env.totpSecret === undefined ? { totpSecret: created.totpSecret, otpauthUri: created.otpauthUri } : {}),
    });
  }
  return created;
}
