import { and, eq, ne } from 'drizzle-orm';
import { countryCode } from '@bpay/db/countries';
import { schema, type Db, type DbOrTx, firstRow, USER_LANGUAGES, type UserLanguage } from '@bpay/db';
import { AppError, invalid, notFound } from '../../errors';
import type { Clock } from '../../lib/clock';

type UserRow = typeof schema.users.$inferSelect;

export interface PublicUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  phoneNumber: string | null;
  profileImageUrl: string | null;
  country: string | null;
  address: { line1: string | null; city: string | null; state: string | null; postal_code: string | null; country: string };
  role: 'user' | 'merchant' | 'admin';
  isKycVerified: boolean;
  twoFactorEnabled: boolean;
  loginNotifications: boolean;
  /** The language bpay writes to the user in (mail, notices, server-made text). */
  language: UserLanguage;
  createdAt: string;
}

/** The user as the API shows it to its owner. Never includes the password hash or TOTP secrets. */
export function toPublicUser(u: UserRow): PublicUser {
  return {
    id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    phoneNumber: u.phoneNumber,
    profileImageUrl: u.profileImageUrl,
    country: u.country,
    address: {
      line1: u.addressLine1,
      city: u.addressCity,
      state: u.addressState,
      postal_code: u.addressPostalCode,
      country: u.addressCountry ?? 'US',
    },
    role: u.role,
    isKycVerified: u.kycStatus === 'verified',
    twoFactorEnabled: u.totpSecret !== null,
    loginNotifications: u.loginNotifications,
    language: userLanguage(u.language),
    createdAt: u.createdAt.toISOString(),
  };
}

/** users.language as one of USER_LANGUAGES (the column is checked in code; anything else reads as English). */
export function userLanguage(value: string): UserLanguage {
  return (USER_LANGUAGES as readonly string[]).includes(value) ? (value as UserLanguage) : 'en';
}

/** The name a bcard carries: first and last name, else the e-mail's local part, else 'bpay User'. */
export function displayName(u: Pick<UserRow, 'firstName' | 'lastName' | 'email'>): string {
  const full = [u.firstName?.trim(), u.lastName?.trim()].filter(Boolean).join(' ');
  return full || u.email.split('@')[0] || 'bpay User';
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function getUserRow(db: Db, userId: string): Promise<UserRow> {
  const row = await firstRow(db, schema.users, eq(schema.users.id, userId));
  if (!row) throw notFound('user');
  return row;
}

export interface ProfilePatch {
  firstName?: string;
  lastName?: string;
  email?: string;
  country?: string;
  phoneNumber?: string;
  loginNotifications?: boolean;
  language?: UserLanguage;
  address?: { line1: string; city: string; state?: string; postal_code?: string; country?: string };
}

const blankToNull = (s: string | undefined) => (s === undefined ? undefined : s.trim() === '' ? null : s.trim());

/** A country from the one list both fields offer (@bpay/db/countries), upper-cased; null when blank or absent. */
function listedCountry(value: string | undefined, param: string): string | null {
  const v = blankToNull(value);
  if (v == null) return null;
  const code = countryCode(v);
  if (!code) throw invalid(param, `${param} must be one of the listed countries (ISO 3166-1 alpha-2 codes such as US or GB).`);
  return code;
}

/**
 * Updates the caller's own profile. Only the fields of ProfilePatch can change: role, plan and verification
 * status are refused at the edge (the route's schema allows no other property). A new password hash comes only
 * from auth's updateAccount, after it re-authenticated the caller (as must a change of e-mail address).
 * Fails with: validation_error (blank address line1/city, bad state, a country not in the list), email_taken (another account has it).
 */
export async function updateProfile(
  db: DbOrTx,
  clock: Clock,
  userId: string,
  patch: ProfilePatch,
  credentials?: { passwordHash: string },
): Promise<PublicUser> {
  const set: Partial<typeof schema.users.$inferInsert> = { updatedAt: clock.now() };
  if (credentials) set.passwordHash = credentials.passwordHash;
  if (patch.firstName !== undefined) set.firstName = blankToNull(patch.firstName);
  if (patch.lastName !== undefined) set.lastName = blankToNull(patch.lastName);
  if (patch.country !== undefined) set.country = listedCountry(patch.country, 'country');
  if (patch.phoneNumber !== undefined) set.phoneNumber = blankToNull(patch.phoneNumber);
  if (patch.loginNotifications !== undefined) set.loginNotifications = patch.loginNotifications;
  if (patch.language !== undefined) {
    // The route's schema refuses other codes; services called directly are held to the same list.
    if (!(USER_LANGUAGES as readonly string[]).includes(patch.language)) {
      throw invalid('language', `language must be one of: ${USER_LANGUAGES.join(', ')}.`);
    }
    set.language = patch.language;
  }
  if (patch.address !== undefined) {
    const a = patch.address;
    if (a.line1.trim() === '') throw invalid('address.line1', 'address.line1 is required.');
    if (a.city.trim() === '') throw invalid('address.city', 'address.city is required.');
    const state = blankToNull(a.state);
    if (state != null && !/^[A-Za-z]{2}$/.test(state)) {
      throw invalid('address.state', 'address.state must be a 2-letter state code.');
    }
    set.addressLine1 = a.line1.trim();
    set.addressCity = a.city.trim();
    set.addressState = state?.toUpperCase() ?? null;
    set.addressPostalCode = blankToNull(a.postal_code) ?? null;
    set.addressCountry = listedCountry(a.country, 'address.country') ?? 'US';
  }
  if (patch.email !== undefined) {
    const normalized = normalizeEmail(patch.email);
    const clash = await db.query.users.findFirst({
      where: and(eq(schema.users.emailNormalized, normalized), ne(schema.users.id, userId)),
      columns: { id: true },
    });
    if (clash) throw new AppError('email_taken', undefined, 'email');
    set.email = patch.email.trim();
    set.emailNormalized = normalized;
  }
  try {
    const [row] = await db.update(schema.users).set(set).where(eq(schema.users.id, userId)).returning();
    if (!row) throw notFound('user');
    return toPublicUser(row);
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('email_taken', undefined, 'email');
    throw e;
  }
}

export function isUniqueViolation(e: unknown): boolean {
  const msg = String((e as { message?: unknown })?.message ?? '') + String((e as { cause?: unknown })?.cause ?? '');
  return msg.includes('UNIQUE constraint failed');
}
