import Stripe from 'stripe';
import { redact, StripeIntegrationError } from './errors';

export interface BillingAddress {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

/** bpay's business address: Issuing needs a cardholder billing address and bpay does not collect one. */
export const DEFAULT_CARDHOLDER_BILLING: BillingAddress = {
  line1: '1 Market Street',
  city: 'San Francisco',
  state: 'CA',
  postal_code: '94105',
  country: 'US',
};

export interface StripeConnectionOptions {
  /** Stripe's API host; tests point it at a local stub. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /** Whole-request timeout (the SDK's default is 80 s, too long for a checkout). */
  timeoutMs?: number;
  /** Automatic retries of network failures, 409s and 5xx. Safe: every POST carries an idempotency key. */
  maxNetworkRetries?: number;
}

export interface StripeVendorOptions extends StripeConnectionOptions {
  secretKey: string;
  /**
   * Where Stripe sends the cardholder after a 3-D Secure challenge (it appends `payment_intent=pi_...`). Without
   * it Stripe answers a challenge with `use_stripe_sdk` instead of a redirect, and verifyCard returns no
   * redirectUrl.
   */
  returnUrl?: string;
  /** Billing address given to Issuing cardholders (default: bpay's business address). */
  billing?: BillingAddress;
}

const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_NETWORK_RETRIES = 2;
export const CURRENCY = 'usd';

/** What every resource's operations share: the SDK client, the options, and the customer lookup (customers.ts). */
export interface StripeContext {
  stripe: Stripe;
  opts: StripeVendorOptions;
  billing: BillingAddress;
  customerFor: (customerRef: string) => Promise<string>;
}

export function newStripeClient(secretKey: string, o: StripeConnectionOptions, defaultRetries: number): Stripe {
  if (!secretKey.trim()) throw new StripeIntegrationError('A Stripe secret key is required.');
  const config: Stripe.StripeConfig = {
    httpClient: Stripe.createFetchHttpClient(),
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxNetworkRetries: o.maxNetworkRetries ?? defaultRetries,
    appInfo: { name: 'bpay' },
  };
  if (o.host !== undefined) config.host = o.host;
  if (o.port !== undefined) config.port = o.port;
  if (o.protocol !== undefined) config.protocol = o.protocol;
  return new Stripe(secretKey, config);
}

/**
 * Read-only check of a secret key (GET /v1/balance), for the admin panel. Never throws; the message never holds
 * the key.
 */
export async function checkStripeCredentials(
  secretKey: string,
  opts: StripeConnectionOptions = {},
): Promise<{ ok: true } | { ok: false; message: string }> {
  if (!secretKey.trim()) return { ok: false, message: 'No Stripe secret key was given.' };
  if (secretKey.startsWith('pk_')) {
    return { ok: false, message: 'That is a publishable key (pk_...); bpay needs a secret key (sk_...) or a restricted key (rk_...).' };
  }
  try {
    await newStripeClient(secretKey, opts, 0).balance.retrieve();
    return { ok: true };
  } catch (err) {
    if (err instanceof Stripe.errors.StripeAuthenticationError) {
      return { ok: false, message: 'Stripe rejected the key (authentication failed).' };
    }
    if (err instanceof Stripe.errors.StripePermissionError) {
      return { ok: false, message: `The key lacks a permission bpay needs: ${redact(err.message)}` };
    }
    if (err instanceof Stripe.errors.StripeConnectionError) {
      return { ok: false, message: `Could not reach Stripe: ${redact(err.message)}` };
    }
    if (err instanceof Stripe.errors.StripeError) {
      return { ok: false, message: `Stripe answered with an error: ${redact(err.message)}` };
    }
    return { ok: false, message: 'Could not check the key with Stripe.' };
  }
}

/** A Stripe Search clause matching one metadata value (quotes and backslashes escaped). */
export function metadataQuery(field: string, value: string): string {
  return `metadata['${field}']:'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function assertPositiveCents(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new StripeIntegrationError(`Amount must be positive integer cents, got ${amount}.`);
}
