/*
 * Stripe Issuing in a test: an app whose processor is the Stripe adapter pointed at the local stand-in
 * (test-support/stripe-stub.ts), with a webhook signing secret, and Stripe's events as Stripe sends them: signed over
 * their exact bytes with the stripe library's own test header, an authorization or transaction object shaped like
 * Stripe's (only the fields bpay reads are filled with care).
 */
import Stripe from 'stripe';
import type { TestClock } from '../../src/lib/clock';
import type { Logger } from '../../src/lib/logger';
import { createStripeVendor } from '../../src/vendors/stripe';
import type { PaymentVendor } from '../../src/vendors/types';
import { call, makeTestApp, type CallResult, type TestContext } from '../app';
import type { StripeStub } from '../stripe-stub';
import { addCard, makePremium, registerUser } from '../world';

export const STUB_SECRET_KEY = 'sk_test_51bpayStubKey000000000000';
export const WEBHOOK_SECRET = 'whsec_bpayIssuingTestSecret0001';

export interface StripeAppOptions {
  log?: Logger;
  clock?: TestClock;
  /** The webhook signing secret (WEBHOOK_SECRET unless given; null: none configured). */
  webhookSecret?: string | null;
  /** Wraps the Stripe adapter (to count or hold its calls). */
  wrapStripe?: (vendor: PaymentVendor) => PaymentVendor;
}

/** A fresh app (temporary libSQL file, migrated, seeded) whose new cards and bcards go to Stripe, here the stub. */
export function makeStripeApp(stub: StripeStub, opts: StripeAppOptions = {}): Promise<TestContext> {
  const stripe = createStripeVendor({ secretKey: STUB_SECRET_KEY, host: 'localhost', port: stub.port, protocol: 'http', maxNetworkRetries: 0, timeoutMs: 5000 });
  return makeTestApp({
    log: opts.log,
    clock: opts.clock,
    publicUrl: 'http://localhost:3000',
    stripe: opts.wrapStripe ? opts.wrapStripe(stripe) : stripe,
    stripeWebhookSecret: opts.webhookSecret === undefined ? WEBHOOK_SECRET : opts.webhookSecret,
  });
}

let seq = 0;
/** A Stripe-looking id with this prefix, unique in the run. */
export const stripeId = (prefix: string) => `${prefix}_test${Date.now().toString(36)}${(++seq).toString(36).padStart(4, '0')}`;

/** The Stripe-Signature header Stripe would send for `payload` at `at` (seconds; the app's clock unless given). */
export function signature(ctx: TestContext, payload: string, over: { secret?: string; timestamp?: number } = {}): Promise<string> {
  return Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: over.secret ?? WEBHOOK_SECRET,
    timestamp: over.timestamp ?? Math.floor(ctx.clock.now().getTime() / 1000),
  });
}

export interface StripeEventShape {
  id: string;
  object: 'event';
  type: string;
  api_version: string;
  created: number;
  livemode: false;
  data: { object: Record<string, unknown> };
}

export function stripeEvent(ctx: TestContext, type: string, object: Record<string, unknown>, id = stripeId('evt')): StripeEventShape {
  return { id, object: 'event', type, api_version: Stripe.API_VERSION, created: Math.floor(ctx.clock.now().getTime() / 1000), livemode: false, data: { object } };
}

/** POSTs a body to the webhook as Stripe does (no cookie, no Origin), signed unless `headers` says otherwise. */
export async function postWebhook(
  ctx: TestContext,
  body: string,
  headers: Record<string, string | null> = {},
): Promise<CallResult> {
  const sent: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
  if (!('stripe-signature' in headers)) sent['stripe-signature'] = await signature(ctx, body);
  for (const [k, v] of Object.entries(headers)) if (v !== null) sent[k] = v;
  return call(ctx, '/api/stripe/webhook', { method: 'POST', rawBody: body, headers: sent, origin: null, ip: '54.187.174.169' });
}

/** Sends one signed event (pretty-printed, as Stripe sends it). */
export function sendEvent(ctx: TestContext, event: StripeEventShape): Promise<CallResult> {
  return postWebhook(ctx, JSON.stringify(event, null, 2));
}

export interface AuthorizationInput {
  id?: string;
  cardId: string;
  /** The requested (pending) amount in cents, for a request; the held amount otherwise. */
  amount: number;
  currency?: string;
  merchant?: Partial<{ name: string | null; city: string | null; category: string; url: string | null }>;
  cvc?: 'match' | 'mismatch' | 'not_provided';
  expiry?: 'match' | 'mismatch' | 'not_provided';
}

/** An issuing.authorization as issuing_authorization.request carries it: pending, nothing approved yet. */
export function authorizationRequest(a: AuthorizationInput): Record<string, unknown> {
  const currency = a.currency ?? 'usd';
  return {
    id: a.id ?? stripeId('iauth'),
    object: 'issuing.authorization',
    amount: 0,
    amount_details: { atm_fee: null, cashback_amount: null },
    approved: false,
    authorization_method: 'online',
    balance_transactions: [],
    card: { id: a.cardId, object: 'issuing.card', type: 'virtual', status: 'active', last4: '0000' },
    cardholder: stripeId('ich'),
    created: Math.floor(Date.now() / 1000),
    currency,
    livemode: false,
    merchant_amount: 0,
    merchant_currency: currency,
    merchant_data: {
      category: 'computer_software_stores',
      category_code: '5734',
      city: 'San Francisco',
      country: 'US',
      name: 'Example Shop',
      network_id: '1234567890',
      postal_code: '94103',
      state: 'CA',
      terminal_id: null,
      url: 'https://www.shop.example/checkout',
      ...a.merchant,
    },
    metadata: {},
    pending_request: {
      amount: a.amount,
      amount_details: { atm_fee: null, cashback_amount: null },
      currency,
      is_amount_controllable: false,
      merchant_amount: a.amount,
      merchant_currency: currency,
      network_risk_score: 5,
    },
    request_history: [],
    status: 'pending',
    transactions: [],
    verification_data: {
      address_line1_check: 'not_provided',
      address_postal_code_check: 'match',
      cvc_check: a.cvc ?? 'match',
      expiry_check: a.expiry ?? 'match',
    },
    wallet: null,
  };
}

export interface AuthorizationState {
  approved: boolean;
  status: 'pending' | 'closed' | 'reversed' | 'expired';
  /** What the hold holds now. */
  amount: number;
  /** The approved (or declined) request's amount. */
  requested: number;
  reason?: string;
  /** Captures and refunds linked to it, as Stripe lists them (captures negative). */
  transactions?: Array<{ type: 'capture' | 'refund'; amount: number }>;
}

/** The same authorization later on, as issuing_authorization.created/updated carry it. */
export function authorizationLater(a: AuthorizationInput & { id: string }, s: AuthorizationState): Record<string, unknown> {
  const base = authorizationRequest(a);
  return {
    ...base,
    amount: s.amount,
    merchant_amount: s.amount,
    approved: s.approved,
    status: s.status,
    pending_request: null,
    request_history: [
      {
        amount: s.requested,
        approved: s.approved,
        created: Math.floor(Date.now() / 1000),
        currency: base.currency,
        merchant_amount: s.requested,
        merchant_currency: base.currency,
        reason: s.reason ?? (s.approved ? 'webhook_approved' : 'webhook_declined'),
      },
    ],
    transactions: (s.transactions ?? []).map((t) => ({
      id: stripeId('ipi'),
      object: 'issuing.transaction',
      type: t.type,
      amount: t.type === 'capture' ? -t.amount : t.amount,
      authorization: a.id,
      card: a.cardId,
      currency: base.currency,
    })),
  };
}

/** An issuing.transaction (issuing_transaction.created): a capture (negative, as Stripe's balance sees it) or a refund. */
export function issuingTransaction(t: { cardId: string; authorization: string | null; type: 'capture' | 'refund'; amount: number }): Record<string, unknown> {
  return {
    id: stripeId('ipi'),
    object: 'issuing.transaction',
    amount: t.type === 'capture' ? -t.amount : t.amount,
    amount_details: { atm_fee: null, cashback_amount: null },
    authorization: t.authorization,
    balance_transaction: stripeId('txn'),
    card: t.cardId,
    cardholder: stripeId('ich'),
    created: Math.floor(Date.now() / 1000),
    currency: 'usd',
    dispute: null,
    livemode: false,
    merchant_amount: t.type === 'capture' ? -t.amount : t.amount,
    merchant_currency: 'usd',
    merchant_data: { category: 'computer_software_stores', city: 'San Francisco', name: 'Example Shop', url: 'https://www.shop.example/checkout' },
    metadata: {},
    type: t.type,
    wallet: null,
  };
}

/* ---------------------------------------------------------------------------------------------------------------
 * The cast: a consumer with two cards, and bcards split across them
 * ------------------------------------------------------------------------------------------------------------- */

export interface IssuingWorld {
  cookie: string;
  userId: string;
  /** The consumer's two funding sources (Stripe's Visa and Mastercard test cards in a Stripe app). */
  sources: [string, string];
}

/** A consumer on premium (no monthly limits) with two cards added through the app. */
export async function issuingWorld(ctx: TestContext, numbers: [string, string] = ['4242424242424242', '5555555555554444']): Promise<IssuingWorld> {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  const a = await addCard(ctx, u.cookie, numbers[0]);
  const b = await addCard(ctx, u.cookie, numbers[1]);
  return { cookie: u.cookie, userId: u.user.id, sources: [a.id, b.id] };
}

export interface TestBcard {
  id: string;
  /** The processor's card id (Stripe's ic_…): what Stripe's events name. */
  cardId: string;
  collectionId: string;
  /** Its shares in split order: the source, what it paid (fee included) and its hold at the processor. */
  shares: Array<{ id: string; sourceId: string; amount: number; holdId: string | null }>;
}

/** POST /api/virtual-cards for `balance` dollars split `percentages` over the world's two sources. */
export async function newBcard(ctx: TestContext, w: IssuingWorld, balance = '100.00', percentages: [number, number] = [60, 40]): Promise<TestBcard> {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: w.cookie,
    body: {
      name: 'Split',
      balance,
      fundingSources: [
        { fundingSourceId: w.sources[0], percentage: percentages[0] },
        { fundingSourceId: w.sources[1], percentage: percentages[1] },
      ],
    },
  });
  if (made.status !== 201) throw new Error(`issuing a bcard failed: ${made.status} ${made.text}`);
  const [card] = (await ctx.handle.client.execute({ sql: 'SELECT vendor_card_id, collection_id FROM bcards WHERE id = ?', args: [made.body.id] })).rows;
  const shares = (
    await ctx.handle.client.execute({
      sql: 'SELECT id, funding_source_id, amount_cents, vendor_hold_id FROM collection_shares WHERE collection_id = ? ORDER BY position',
      args: [String(card!.collection_id)],
    })
  ).rows.map((r) => ({ id: String(r.id), sourceId: String(r.funding_source_id), amount: Number(r.amount_cents), holdId: r.vendor_hold_id === null ? null : String(r.vendor_hold_id) }));
  return { id: made.body.id, cardId: String(card!.vendor_card_id), collectionId: String(card!.collection_id), shares };
}

/** Waits until the bcard's collection is no longer settling (the remainder's refunds run after an approval's answer). */
export async function settled(ctx: TestContext, bcard: { collectionId: string }, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = (await ctx.handle.client.execute({ sql: 'SELECT status FROM collections WHERE id = ?', args: [bcard.collectionId] })).rows;
    const status = String(row?.status);
    if (status !== 'refunding' && status !== 'holding' && status !== 'capturing') return status;
    if (Date.now() > deadline) throw new Error(`collection ${bcard.collectionId} is still ${status}`);
    await Bun.sleep(10);
  }
}
