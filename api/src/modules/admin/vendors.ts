import { eq } from 'drizzle-orm';
import { schema, type Db, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { Clock } from '../../lib/clock';
import { seal, unseal } from '../../lib/crypto';
import { recordAudit } from './audit';
import type { AdminActor } from './users';
import type { VendorInUse } from '../../deps';

type Mode = (typeof schema.VENDOR_MODES)[number];
type Features = schema.VendorFeatures;
type CredRow = typeof schema.vendorCredentials.$inferSelect;

export const DEFAULT_VENDOR_FEATURES: Features = { paymentProcessing: true, cardIssuing: true, identity: false, connect: false };

export interface VendorModeView {
  publishableKey: string | null;
  secretKeySet: boolean;
  secretKeyLast4: string | null;
  webhookSecretSet: boolean;
  webhookSecretLast4: string | null;
  /** Both a publishable and a secret key are present. */
  configured: boolean;
  updatedAt: string | null;
}

export interface VendorConfigView {
  /** What this process uses now; a saved mode or key takes effect at the next start. */
  inUse?: VendorInUse;
  mode: Mode;
  features: Features;
  test: VendorModeView;
  live: VendorModeView;
}

/** What an admin may see of a mode's credentials: never a secret, only whether it is set and its last 4. */
function modeView(row: CredRow | undefined): VendorModeView {
  return {
    publishableKey: row?.publishableKey ?? null,
    secretKeySet: !!row?.secretKeySealed,
    secretKeyLast4: row?.secretLast4 ?? null,
    webhookSecretSet: !!row?.webhookSecretSealed,
    webhookSecretLast4: row?.webhookLast4 ?? null,
    configured: !!row?.publishableKey && !!row?.secretKeySealed,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

export async function vendorSettings(db: Db): Promise<{ mode: Mode; features: Features }> {
  const row = await firstRow(db, schema.vendorSettings, eq(schema.vendorSettings.id, 1));
  return { mode: row?.mode ?? 'test', features: { ...DEFAULT_VENDOR_FEATURES, ...row?.features } };
}

export async function getVendorConfig(db: Db): Promise<VendorConfigView> {
  const [settings, rows] = await Promise.all([vendorSettings(db), db.select().from(schema.vendorCredentials)]);
  return {
    ...settings,
    test: modeView(rows.find((r) => r.mode === 'test')),
    live: modeView(rows.find((r) => r.mode === 'live')),
  };
}

export interface VendorCredentialsInput {
  /** null clears it. */
  publishableKey?: string | null;
  /** Write-only; null clears it. */
  secretKey?: string | null;
  /** Write-only; null clears it. */
  webhookSecret?: string | null;
}

const last4 = (s: string) => s.slice(-4);

/**
 * Stores a mode's credentials; secrets are sealed with AES-GCM (vendorKey) and only their last 4 characters kept
 * in clear. Fields left out are unchanged. Fails: validation_error when a key does not belong to the mode
 * (pk_test_/sk_test_/rk_test_ for test, _live_ for live). Audited with views (never secrets).
 */
export async function putVendorCredentials(
  db: Db,
  clock: Clock,
  vendorKey: Buffer,
  actor: AdminActor,
  mode: Mode,
  input: VendorCredentialsInput,
): Promise<VendorConfigView> {
  const m = mode === 'test' ? 'test' : 'live';
  if (input.publishableKey && !new RegExp(`^pk_${m}_[A-Za-z0-9]+$`).test(input.publishableKey)) {
    throw new AppError('validation_error', `publishableKey must be a Stripe ${m} publishable key (pk_${m}_...).`, 'publishableKey');
  }
  if (input.secretKey && !new RegExp(`^(sk|rk)_${m}_[A-Za-z0-9]+$`).test(input.secretKey)) {
    throw new AppError('validation_error', `secretKey must be a Stripe ${m} secret key (sk_${m}_... or rk_${m}_...).`, 'secretKey');
  }
  if (input.webhookSecret && !/^whsec_[A-Za-z0-9]+$/.test(input.webhookSecret)) {
    throw new AppError('validation_error', 'webhookSecret must be a Stripe webhook signing secret (whsec_...).', 'webhookSecret');
  }
  const now = clock.now();
  const before = await firstRow(db, schema.vendorCredentials, eq(schema.vendorCredentials.mode, mode));
  const set = {
    ...(input.publishableKey !== undefined ? { publishableKey: input.publishableKey || null } : {}),
    ...(input.secretKey !== undefined
      ? input.secretKey
        ? { secretKeySealed: seal(vendorKey, input.secretKey), secretLast4: last4(input.secretKey) }
        : { secretKeySealed: null, secretLast4: null }
      : {}),
    ...(input.webhookSecret !== undefined
      ? input.webhookSecret
        ? { webhookSecretSealed: seal(vendorKey, input.webhookSecret), webhookLast4: last4(input.webhookSecret) }
        : { webhookSecretSealed: null, webhookLast4: null }
      : {}),
    updatedAt: now,
    updatedBy: actor.adminId,
  };
  await db.transaction(async (tx) => {
    await tx
      .insert(schema.vendorCredentials)
      .values({ mode, provider: 'stripe', ...set })
      .onConflictDoUpdate({ target: schema.vendorCredentials.mode, set });
    const after = await firstRow(tx, schema.vendorCredentials, eq(schema.vendorCredentials.mode, mode));
    await recordAudit(tx, clock, {
      adminId: actor.adminId,
      action: 'vendor.credentials.update',
      targetType: 'vendor_credentials',
      targetId: mode,
      before: before ? modeView(before) : null,
      after: modeView(after),
      ip: actor.ip,
    });
  });
  return getVendorConfig(db);
}

/** Sets the active mode and/or feature switches. Audited. */
export async function updateVendorSettings(
  db: Db,
  clock: Clock,
  actor: AdminActor,
  input: { mode?: Mode; features?: Partial<Features> },
): Promise<VendorConfigView> {
  const before = await vendorSettings(db);
  const f = input.features ?? {};
  const pick = (k: keyof Features) => (typeof f[k] === 'boolean' ? f[k] : before.features[k]);
  const after = {
    mode: input.mode ?? before.mode,
    features: { paymentProcessing: pick('paymentProcessing'), cardIssuing: pick('cardIssuing'), identity: pick('identity'), connect: pick('connect') },
  };
  const now = clock.now();
  await db.transaction(async (tx) => {
    await tx
      .insert(schema.vendorSettings)
      .values({ id: 1, ...after, updatedAt: now, updatedBy: actor.adminId })
      .onConflictDoUpdate({ target: schema.vendorSettings.id, set: { ...after, updatedAt: now, updatedBy: actor.adminId } });
    await recordAudit(tx, clock, {
      adminId: actor.adminId,
      action: 'vendor.settings.update',
      targetType: 'vendor_settings',
      targetId: '1',
      before,
      after,
      ip: actor.ip,
    });
  });
  return getVendorConfig(db);
}

/** The active mode's Stripe credentials, unsealed, for the server's own use (boot) — or null when none. */
export async function activeStripeCredentials(
  db: Db,
  vendorKey: Buffer,
): Promise<{ mode: Mode; secretKey: string; publishableKey: string | null; webhookSecret: string | null } | null> {
  const { mode } = await vendorSettings(db);
  return stripeCredentials(db, vendorKey, mode);
}

/** A mode's saved Stripe credentials, unsealed — or null when it has no secret key. */
async function stripeCredentials(
  db: Db,
  vendorKey: Buffer,
  mode: Mode,
): Promise<{ mode: Mode; secretKey: string; publishableKey: string | null; webhookSecret: string | null } | null> {
  const row = await firstRow(db, schema.vendorCredentials, eq(schema.vendorCredentials.mode, mode));
  if (!row?.secretKeySealed) return null;
  return {
    mode,
    secretKey: unseal(vendorKey, row.secretKeySealed),
    publishableKey: row.publishableKey,
    webhookSecret: row.webhookSecretSealed ? unseal(vendorKey, row.webhookSecretSealed) : null,
  };
}

export const SIMULATED_CONNECTION_MESSAGE = 'The built-in simulated processor is in use; it needs no credentials.';

/**
 * Test Connection: checks a mode's saved secret key with Stripe (a read-only balance call): the mode asked for (the
 * one the panel shows, which may not be saved as active yet), else the saved active mode. With no key saved for that
 * mode while this server runs the built-in simulator, the simulator is what that mode would use at the next start:
 * the answer is ok, provider 'simulated'.
 * Fails: vendor_secret_missing (400, 'No secret key configured for current mode') when Stripe is in use and the
 * mode has no saved key. Stripe's refusal is an answer, not an error: { ok: false, message }. Audited (the result
 * and the mode only).
 */
export async function testVendorConnection(
  db: Db,
  clock: Clock,
  vendorKey: Buffer,
  check: (secretKey: string) => Promise<{ ok: true } | { ok: false; message: string }>,
  actor: AdminActor,
  inUse: VendorInUse,
  requestedMode?: Mode,
): Promise<{ ok: boolean; provider: 'stripe' | 'simulated'; mode: Mode; message: string }> {
  const mode = requestedMode ?? (await vendorSettings(db)).mode;
  const creds = await stripeCredentials(db, vendorKey, mode);
  let answer: { ok: boolean; provider: 'stripe' | 'simulated'; mode: Mode; message: string };
  if (creds) {
    const result = await check(creds.secretKey);
    answer = { ok: result.ok, provider: 'stripe', mode, message: result.ok ? 'Connection successful' : result.message };
  } else if (inUse.vendor === 'simulated') {
    answer = { ok: true, provider: 'simulated', mode, message: SIMULATED_CONNECTION_MESSAGE };
  } else {
    throw new AppError('vendor_secret_missing', undefined, 'secretKey');
  }
  await recordAudit(db, clock, {
    adminId: actor.adminId,
    action: 'vendor.test_connection',
    targetType: 'vendor_credentials',
    targetId: answer.mode,
    after: { ok: answer.ok, provider: answer.provider, message: answer.message },
    ip: actor.ip,
  });
  return answer;
}
