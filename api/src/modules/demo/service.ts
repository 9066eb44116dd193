import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../errors';
import { hitThrottle, type ThrottleRule } from '../../lib/throttle';
import { newPublishableKey, newSecretKey, secretKeyHash } from '../merchants/service';
import { createIntent, MAX_AMOUNT, MIN_AMOUNT } from '../payment-intents/service';

type MerchantRow = typeof schema.merchants.$inferSelect;

/*
 * The checkout demos' merchant (issue 12): TechStore, a built-in sandbox merchant owned by a system account that
 * nobody can sign in to (its password is a hash of random bytes nobody keeps). Both are found by fixed ids, never by
 * e-mail, so no registration can take their place. A signed-in consumer's demo pays a real sandbox intent of this
 * merchant through the checkout widget's own endpoint, so nothing is charged.
 */
export const DEMO_MERCHANT_USER_ID = 'usr_system_demo_merchant';
export const DEMO_MERCHANT_ID = 'mer_demo_techstore';
export const DEMO_ORDER = { amount: 14577, currency: 'usd', description: 'Premium Laptop Stand', merchant: 'TechStore' } as const;

/** A consumer may start this many demo checkouts an hour (each is a sandbox payment intent row). */
export const DEMO_INTENTS_PER_HOUR: ThrottleRule = { scope: 'demo.intent', limit: 30, windowMs: 3_600_000 };

/** The demo merchant, created on first use; concurrent first uses create it once (fixed ids, insert or ignore). */
export async function ensureDemoMerchant(deps: AppDeps): Promise<MerchantRow> {
  const existing = await firstRow(deps.db, schema.merchants, eq(schema.merchants.id, DEMO_MERCHANT_ID));
  if (existing) return existing;
  const now = deps.clock.now();
  try {
    await deps.db.transaction(async (tx) => {
      await tx
        .insert(schema.users)
        .values({
          id: DEMO_MERCHANT_USER_ID,
          email: 'demo-merchant@system.bpay.invalid',
          emailNormalized: 'demo-merchant@system.bpay.invalid',
          passwordHash: await Bun.password.hash(randomBytes(32).toString('hex'), { algorithm: 'argon2id', memoryCost: 19456, timeCost: 2 }),
          firstName: 'TechStore',
          lastName: '(demo)',
          role: 'merchant',
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing({ target: schema.users.id });
      await tx
        .insert(schema.merchants)
        .values({
          id: DEMO_MERCHANT_ID,
          userId: DEMO_MERCHANT_USER_ID,
          businessName: DEMO_ORDER.merchant,
          businessEmail: 'demo-merchant@system.bpay.invalid',
          website: null,
          platformType: 'custom',
          environment: 'sandbox',
          publishableKey: newPublishableKey('sandbox'),
          // Nobody holds this key: the demo creates its intents in-process.
          secretKeyHash: secretKeyHash(deps.session.secret, newSecretKey('sandbox')),
          secretKeyLast4: 'demo',
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing({ target: schema.merchants.id });
    });
  } catch (e) {
    // Only an e-mail taken by someone else could make this fail; the demo then stays off rather than borrowing it.
    deps.log.error('demo merchant could not be created', { error: String(e) });
  }
  const created = await firstRow(deps.db, schema.merchants, eq(schema.merchants.id, DEMO_MERCHANT_ID));
  if (!created || created.userId !== DEMO_MERCHANT_USER_ID) {
    throw new AppError('demo_unavailable');
  }
  return created;
}

/**
 * What a demo pays: the checkout demos' fixed order, or the payment demo's own amount with the merchant name its user
 * typed as a label. The label is only the test payment's description: whoever is named, the intent is TechStore's
 * sandbox one, paid with a sandbox test bcard, so no real card is charged for a merchant someone typed.
 */
export interface DemoOrderInput {
  /** Cents, MIN_AMOUNT to MAX_AMOUNT (Stripe's bounds); the fixed order's when absent. */
  amountCents?: number;
  /** The merchant name the payment demo's user typed. */
  label?: string;
}

/** The test payment's description: the label when the payment demo gave one. */
export const demoDescription = (label: string | undefined) => (label ? `Test payment: ${label}` : DEMO_ORDER.description);

/**
 * A fresh sandbox payment intent of the demo merchant for the demos (Merchant, Customer, and the payment demo).
 * Fails with: validation_error (amount out of bounds), demo_rate_limited (more than DEMO_INTENTS_PER_HOUR a user),
 * demo_unavailable.
 */
export async function createDemoCheckoutIntent(deps: AppDeps, userId: string, order: DemoOrderInput = {}) {
  const amount = order.amountCents ?? DEMO_ORDER.amount;
  if (!Number.isSafeInteger(amount) || amount < MIN_AMOUNT || amount > MAX_AMOUNT) {
    throw invalid('amount', `amount must be a whole number of cents from ${MIN_AMOUNT} to ${MAX_AMOUNT}.`);
  }
  const label = order.label?.trim() || undefined;
  const throttle = await hitThrottle(deps.db, deps.clock, [{ rule: DEMO_INTENTS_PER_HOUR, key: userId }]);
  if (!throttle.allowed) {
    throw new AppError('demo_rate_limited', undefined, undefined, { 'retry-after': String(throttle.retryAfterSeconds) });
  }
  const merchant = await ensureDemoMerchant(deps);
  const pi = await createIntent(deps, merchant, false, {
    amount,
    currency: DEMO_ORDER.currency,
    description: demoDescription(label),
    metadata: label ? { source: 'bpay payment demo', label } : { source: 'bpay checkout demo' },
  });
  return {
    id: pi.id,
    clientSecret: pi.client_secret,
    amount: pi.amount,
    currency: pi.currency,
    livemode: pi.livemode,
    merchant: merchant.businessName,
    description: demoDescription(label),
  };
}
