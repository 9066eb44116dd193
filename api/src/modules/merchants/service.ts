import { and, desc, eq } from 'drizzle-orm';
import { schema, type Environment, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../errors';
import { newId } from '../../lib/ids';
import { randomBytes } from 'node:crypto';
import { secretKeyHash } from '../../plugins/merchant-auth';
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
  const view = toMerchantView(await getOwnedMerchant(deps, userId, id));
  return { ...view, secretApiKey: secret };
}

export async function listMerchants(deps: AppDeps, userId: string): Promise<MerchantView[]> {
  const rows = await deps.db
    .select()
    .from(schema.merchants)
    .where(eq(schema.merchants.userId, userId))
    .orderBy(desc(schema.merchants.createdAt), desc(schema.merchants.id));
  return rows.map(toMerchantView);
}

/** The caller's merchant; anyone else's is "not found". */
export async function getOwnedMerchant(deps: AppDeps, userId: string, id: string): Promise<MerchantRow> {
  const m = await firstRow(deps.db, schema.merchants, and(eq(schema.merchants.id, id), eq(schema.merchants.userId, userId)));
  if (!m) throw notFound('merchant');
  return m;
}

/** Edits business details. The environment is fixed at creation: keys and objects belong to one mode. */
export async function updateMerchant(
  deps: AppDeps,
  userId: string,
  id: string,
  input: Partial<Omit<MerchantInput, 'environment'>> & { isActive?: boolean },
): Promise<MerchantView> {
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
  return toMerchantView(await getOwnedMerchant(deps, userId, id));
}

/** Replaces the secret key at once (the old one stops working) and shows the new one this one time. */
export async function rollSecretKey(deps: AppDeps, userId: string, id: string) {
  const m = await getOwnedMerchant(deps, userId, id);
  const secret = newSecretKey(m.environment);
  const now = deps.clock.now();
  await deps.db
    .update(schema.merchants)
    .set({
      secretKeyHash: secretKeyHash(deps.session.secret, secret),
      secretKeyLast4: secret.slice(-4),
      secretKeyRolledAt: now,
      updatedAt: now,
    })
    .where(eq(schema.merchants.id, id));
  return { ...toMerchantView(await getOwnedMerchant(deps, userId, id)), secretApiKey: secret };
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

