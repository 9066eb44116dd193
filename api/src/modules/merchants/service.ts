import { and, desc, eq, sql } from 'drizzle-orm';
import { schema, type Environment, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../errors';
import { hmacHex } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { randomBytes } from 'node:crypto';
import { dailyRequests, monthlyRequests } from './usage';

type MerchantRow = typeof schema.merchants.$inferSelect;

const randomKeyPart = (n = 32) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(n);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
};

const mode = (env: Environment) => (env === 'production' ? 'live' : 'test');
export const newPublishableKey = (env: Environment) => `pk_${mode(env)}_${randomKeyPart()}`;
export const newSecretKey = (env: Environment) => `sk_${mode(env)}_${randomKeyPart()}`;

/** Secret keys are stored only as this HMAC (keyed by the session secret): a leaked table authenticates no one. */
export function secretKeyHash(secret: string, key: string): string {
  return hmacHex(secret, `merchant-secret-key:${key}`);
}

export interface MerchantView {
  id: string;
  businessName: string;
  businessEmail: string;
  website: string | null;
  platformType: MerchantRow['platformType'];
  environment: Environment;
  isActive: boolean;
  totalVolume: string;
  createdAt: string;
  /** The publishable key (spec's `apiKey`/`publicApiKey`): safe to put in a merchant page. */
  apiKey: string;
  publicApiKey: string;
  /** sk_…•••• with the last 4 characters; the full secret is shown only when made. */
  secretKeyHint: string;
  secretKeyRolledAt: string | null;
}

/**
 * The merchant as its owner (and the admin) sees it. The total volume is the merchant's running total of
 * amount_received (kept by the payment-intent transitions that move it), never a sum over its intents.
 */
export function toMerchantView(m: MerchantRow): MerchantView {
  const volume = m.amountReceivedTotal;
  return {
    id: m.id,
    businessName: m.businessName,
    businessEmail: m.businessEmail,
    website: m.website,
    platformType: m.platformType,
    environment: m.environment,
    isActive: m.isActive,
    totalVolume: (volume / 100).toFixed(2),
    createdAt: m.createdAt.toISOString(),
    apiKey: m.publishableKey,
    publicApiKey: m.publishableKey,
    secretKeyHint: `sk_${mode(m.environment)}_••••${m.secretKeyLast4}`,
    secretKeyRolledAt: m.secretKeyRolledAt?.toISOString() ?? null,
  };
}

export interface MerchantInput {
  businessName: string;
  businessEmail: string;
  website?: string | null;
  platformType?: MerchantRow['platformType'];
  environment?: Environment;
}

function cleanWebsite(website: string | null | undefined): string | null {
  if (website === undefined || website === null || website.trim() === '') return null;
  try {
    const u = new URL(website.trim());
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
    return u.toString();
  } catch {
    throw invalid('website', 'website must be an http(s) URL such as https://shop.example.');
  }
}

/** Creates a merchant account with its keys. The answer carries `secretApiKey`: the only time it is shown. */
export async function createMerchant(deps: AppDeps, userId: string, input: MerchantInput) {
  const name = input.businessName.trim();
  if (!name) throw invalid('businessName', 'businessName is required.');
  const environment = input.environment ?? 'sandbox';
  const secret = newSecretKey(environment);
  const now = deps.clock.now();
  const id = newId('mer');
  await deps.db.insert(schema.merchants).values({
    id,
    userId,
    businessName: name,
    businessEmail: input.businessEmail.trim(),
    website: cleanWebsite(input.website),
    platformType: input.platformType ?? 'custom',
    environment,
    publishableKey: newPublishableKey(environment),
    secretKeyHash: secretKeyHash(deps.session.secret, secret),
    secretKeyLast4: secret.slice(-4),
    createdAt: now,
    updatedAt: now,
  });
  const view = ownerView(await getOwnedMerchant(deps, userId, id), now);
  return { ...view, secretApiKey: secret };
}

export async function listMerchants(deps: AppDeps, userId: string): Promise<OwnerMerchantView[]> {
  const rows = await deps.db
    .select()
    .from(schema.merchants)
    .where(eq(schema.merchants.userId, userId))
    .orderBy(desc(schema.merchants.createdAt), desc(schema.merchants.id));
  const now = deps.clock.now();
  return rows.map((m) => ownerView(m, now));
}

/** The caller's merchant; anyone else's is "not found". */
export async function getOwnedMerchant(deps: AppDeps, userId: string, id: string): Promise<MerchantRow> {
  const m = await firstRow(deps.db, schema.merchants, and(eq(schema.merchants.id, id), eq(schema.merchants.userId, userId)));
  if (!m) throw notFound('merchant', id, 'id');
  return m;
}

/** Edits business details. The environment is fixed at creation: keys and objects belong to one mode. */
export async function updateMerchant(
  deps: AppDeps,
  userId: string,
  id: string,
  input: Partial<Omit<MerchantInput, 'environment'>> & { isActive?: boolean },
): Promise<OwnerMerchantView> {
  await getOwnedMerchant(deps, userId, id);
  const set: Partial<typeof schema.merchants.$inferInsert> = { updatedAt: deps.clock.now() };
  if (input.businessName !== undefined) {
    if (!input.businessName.trim()) throw invalid('businessName', 'businessName must not be blank.');
    set.businessName = input.businessName.trim();
  }
  if (input.businessEmail !== undefined) set.businessEmail = input.businessEmail.trim();
  if (input.website !== undefined) set.website = cleanWebsite(input.website);
  if (input.platformType !== undefined) set.platformType = input.platformType;
  if (input.isActive !== undefined) set.isActive = input.isActive;
  await deps.db.update(schema.merchants).set(set).where(eq(schema.merchants.id, id));
  return ownerView(await getOwnedMerchant(deps, userId, id), deps.clock.now());
}

/** How long the replaced key keeps working after a roll (Stripe's "expire the old key in …"); `now` stops it at once. */
export const KEY_GRACE_PERIODS = { now: 0, '1h': 3600_000, '24h': 24 * 3600_000, '7d': 7 * 24 * 3600_000 } as const;
export type KeyGracePeriod = keyof typeof KEY_GRACE_PERIODS;
export const KEY_GRACE_PERIOD_NAMES = ['now', '1h', '24h', '7d'] as const satisfies readonly KeyGracePeriod[];

/**
 * Replaces the secret key and shows the new one this one time. The replaced key keeps working for `expireOldKeyIn`
 * (none by default). There is only one previous key: a roll while an earlier previous key is still in its grace
 * replaces it, and that earlier key stops working at once.
 *
 * One UPDATE moves current to previous (SQLite's SET reads the row as it was), so concurrent rolls serialize: each
 * one's previous key is the key the roll before it made, and no key that was shown to anyone is silently lost.
 * An expired previous key is kept (until the next roll) only so that using it is answered api_key_expired; the next
 * roll moves its hash to retired_secret_keys, which answers the same for every key a roll ever replaced.
 * Fails with: resource_not_found.
 */
export async function rollSecretKey(deps: AppDeps, userId: string, id: string, expireOldKeyIn: KeyGracePeriod = 'now') {
  const m = await getOwnedMerchant(deps, userId, id);
  const secret = newSecretKey(m.environment);
  const now = deps.clock.now();
  const c = schema.merchants;
  await deps.db.transaction(async (tx) => {
    // The previous key this roll pushes out is remembered (its hash only) so that using it answers api_key_expired:
    // it stops now, or stopped at its own expiry if that came first. Read and written by one statement, before the
    // UPDATE in the same transaction, so parallel rolls each retire the previous key the roll before them left.
    await tx.run(sql`
      INSERT OR IGNORE INTO retired_secret_keys (key_hash, merchant_id, replaced_at, stopped_at)
      SELECT ${c.previousSecretKeyHash}, ${c.id}, ${c.secretKeyRolledAt}, min(coalesce(${c.previousSecretKeyExpiresAt}, ${now.getTime()}), ${now.getTime()})
      FROM ${c} WHERE ${c.id} = ${id} AND ${c.previousSecretKeyHash} IS NOT NULL`);
    await tx
      .update(c)
      .set({
        previousSecretKeyHash: sql`${c.secretKeyHash}`,
        previousSecretKeyLast4: sql`${c.secretKeyLast4}`,
        previousSecretKeyExpiresAt: new Date(now.getTime() + KEY_GRACE_PERIODS[expireOldKeyIn]),
        secretKeyHash: secretKeyHash(deps.session.secret, secret),
        secretKeyLast4: secret.slice(-4),
        secretKeyRolledAt: now,
        updatedAt: now,
      })
      .where(eq(c.id, id));
  });
  return { ...ownerView(await getOwnedMerchant(deps, userId, id), now), secretApiKey: secret };
}

/** The merchant as its owner sees it: with the replaced key's hint and expiry while that key still works. */
export function ownerView(m: MerchantRow, now: Date): OwnerMerchantView {
  const until = m.previousSecretKeyExpiresAt;
  const live = m.previousSecretKeyLast4 !== null && until !== null && until.getTime() > now.getTime();
  return {
    ...toMerchantView(m),
    previousSecretKeyHint: live ? `sk_${mode(m.environment)}_••••${m.previousSecretKeyLast4}` : null,
    previousSecretKeyExpiresAt: live ? until.toISOString() : null,
  };
}

export interface OwnerMerchantView extends MerchantView {
  /** The key a roll replaced, while it still works (sk_…•••• with its last 4 characters); null otherwise. */
  previousSecretKeyHint: string | null;
  /** When that key stops working. */
  previousSecretKeyExpiresAt: string | null;
}

export async function usageOf(deps: AppDeps, merchant: MerchantRow) {
  const at = deps.clock.now();
  const [today, month] = await Promise.all([
    dailyRequests(deps.db, merchant.id, at),
    monthlyRequests(deps.db, merchant.id, at),
  ]);
  return { object: 'usage' as const, totalRequests: today, totalRequestsToday: today, totalRequestsThisMonth: month };
}

/** For merchant-facing pages: usage without counting the read itself as an API request. */
export async function ownedUsage(deps: AppDeps, userId: string, id: string) {
  return usageOf(deps, await getOwnedMerchant(deps, userId, id));
}

