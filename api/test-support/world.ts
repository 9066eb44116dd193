/*
 * What a test puts in the app, through the API as a client would (or straight into the database where the API has
 * no door, e.g. a plan change): users and their sign-in, cards and bank accounts, ID verification and plans,
 * merchants with their keys, bcards as a checkout form reads them, and merchantWorld, the cast of the merchant-payment
 * tests.
 */
import { and as sqlAnd, eq as sqlEq } from 'drizzle-orm';
import { schema as dbSchema } from '@bpay/db';
import { call, merchantCall, type TestContext } from './app';

let counter = 0;
/** Registers a fresh user and returns its session cookie. */
export async function registerUser(
  ctx: TestContext,
  over: Partial<{ email: string; password: string; firstName: string; lastName: string; language: 'en' | 'ar' }> = {},
) {
  const email = over.email ?? `user${++counter}-${Date.now()}@example.com`;
  const password = over.password ?? 'correct horse battery';
  const res = await call(ctx, '/api/auth/register', {
    method: 'POST',
    body: {
      email,
      password,
      firstName: over.firstName ?? 'Ada',
      lastName: over.lastName ?? 'Lovelace',
      ...(over.language ? { language: over.language } : {}),
    },
  });
  if (res.status !== 201 || !res.cookie) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { email, password, cookie: res.cookie, user: res.body };
}

/** POST /api/auth/login with these credentials (and, when given, a TOTP code, peer address, old cookie or Origin). */
export function login(
  ctx: TestContext,
  email: string,
  password: string,
  extra: { ip?: string; cookie?: string; totpCode?: string; origin?: string | null } = {},
) {
  return call(ctx, '/api/auth/login', {
    method: 'POST',
    body: { email, password, ...(extra.totpCode !== undefined ? { totpCode: extra.totpCode } : {}) },
    ip: extra.ip,
    cookie: extra.cookie,
    origin: extra.origin,
  });
}

/** GET /api/auth/user with this cookie. */
export const me = (ctx: TestContext, cookie: string | null) => call(ctx, '/api/auth/user', { cookie });

/** A POST /api/funding-sources body: a valid card in registerUser's default name (Ada Lovelace), with `over` applied. */
export function cardBody(number = '4242424242424242', over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cardNumber: number,
    expiryMonth: '12',
    expiryYear: '2030',
    // American Express (34/37) needs 4 digits.
    cvv: /^3[47]/.test(number.replace(/\D/g, '')) ? '1234' : '123',
    name: 'Ada Lovelace',
    type: 'credit_card',
    defaultSplitPercentage: 50,
    ...over,
  };
}

/** POST /api/funding-sources with cardBody(number, over) for the user behind `cookie`; answers whatever it gets. */
export function postCard(
  ctx: TestContext,
  cookie: string,
  number = '4242424242424242',
  over: Record<string, unknown> = {},
  headers?: Record<string, string>,
) {
  return call(ctx, '/api/funding-sources', { method: 'POST', body: cardBody(number, over), cookie, headers });
}

/** A Luhn-valid Visa that behaves normally in the simulator ($10,000.00 available). */
export const CARD_OK = '4242424242424242';
/** More normal cards, for users who need several distinguishable sources. */
export const CARDS_OK = ['4242424242424242', '4000056655665556', '5555555555554444', '5200828282828210', '4012888888881881'];
/** Verifies, then every charge is declined (card_declined). */
export const CARD_DECLINES_CHARGES = '4000000000000341';

/** POST /api/funding-sources with a valid card in the account holder's name; throws unless it answers 201. */
export async function addCard(
  ctx: TestContext,
  cookie: string,
  number: string = CARD_OK,
  over: Partial<{ name: string; defaultSplitPercentage: number }> = {},
): Promise<{ id: string; last4: string; name: string; balance: string | null }> {
  const res = await call(ctx, '/api/funding-sources', {
    method: 'POST',
    cookie,
    body: {
      cardNumber: number,
      expiryMonth: '12',
      expiryYear: '2030',
      cvv: '123',
      name: over.name ?? 'Ada Lovelace',
      type: 'credit_card',
      last4: number.slice(-4),
      brand: 'visa',
      defaultSplitPercentage: over.defaultSplitPercentage ?? 50,
    },
  });
  if (res.status !== 201) throw new Error(`adding a card failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Stripe's test bank (routing 110000000) and the simulator's test accounts (api/src/vendors/simulated-bank.ts). */
export const BANK_ROUTING_OK = '110000000';
export const BANK_OK = '000123456789';
export const BANK_FAILS_VERIFICATION = '000111111116';
export const BANK_RETURNS_R01 = '000222222227';
export const BANK_LOW_BALANCE = '000999999991';

/** POST /api/funding-sources/bank-accounts; with `verify`, also confirms the micro-deposits (32 and 45 cents). */
export async function addBankAccount(
  ctx: TestContext,
  cookie: string,
  accountNumber: string = BANK_OK,
  over: Partial<{ name: string; defaultSplitPercentage: number; verify: boolean }> = {},
): Promise<{ id: string; last4: string; name: string; balance: string | null }> {
  const res = await call(ctx, '/api/funding-sources/bank-accounts', {
    method: 'POST',
    cookie,
    body: {
      routingNumber: BANK_ROUTING_OK,
      accountNumber,
      accountType: 'checking',
      name: over.name ?? 'Ada Lovelace',
      defaultSplitPercentage: over.defaultSplitPercentage ?? 50,
    },
  });
  if (res.status !== 201) throw new Error(`adding a bank account failed: ${res.status} ${res.text}`);
  if (over.verify === false) return res.body;
  const v = await call(ctx, `/api/funding-sources/${res.body.id}/verify-microdeposits`, {
    method: 'POST',
    cookie,
    body: { amounts: ['0.32', '0.45'] },
  });
  if (v.status !== 200) throw new Error(`verifying a bank account failed: ${v.status} ${v.text}`);
  return v.body;
}

/** Marks the user ID-verified (what an approved KYC review does). */
export async function setKycVerified(ctx: TestContext, userId: string): Promise<void> {
  await ctx.handle.db.update(dbSchema.users).set({ kycStatus: 'verified' }).where(sqlEq(dbSchema.users.id, userId));
}

/** Moves the user's active subscription to another plan: 'tier_free', 'tier_pro' or 'tier_premium'. */
export async function setTier(ctx: TestContext, userId: string, tierId: 'tier_free' | 'tier_pro' | 'tier_premium'): Promise<void> {
  await ctx.handle.db
    .update(dbSchema.userSubscriptions)
    .set({ tierId })
    .where(sqlAnd(sqlEq(dbSchema.userSubscriptions.userId, userId), sqlEq(dbSchema.userSubscriptions.status, 'active')));
}

/** Moves the user to the premium plan (no monthly limits, unlimited sources); optionally sets premium's fee. */
export async function makePremium(ctx: TestContext, userId: string, feeBps?: number): Promise<void> {
  await ctx.handle.client.execute({ sql: "UPDATE user_subscriptions SET tier_id = 'tier_premium' WHERE user_id = ?", args: [userId] });
  if (feeBps !== undefined) {
    await ctx.handle.client.execute({ sql: "UPDATE subscription_tiers SET transaction_fee_bps = ? WHERE name = 'premium'", args: [feeBps] });
  }
}

/* ---------------------------------------------------------------------------------------------------------------
 * Merchant helpers: merchant accounts and their keys, and bcard card details as a checkout form would send them.
 * ------------------------------------------------------------------------------------------------------------- */

export interface TestMerchant {
  id: string;
  environment: 'sandbox' | 'production';
  /** sk_test_… / sk_live_…: shown only by the creating answer. */
  secretKey: string;
  /** pk_test_… / pk_live_…. */
  publishableKey: string;
}

/** POST /api/merchants for the user behind `cookie`; throws unless it answers 201. */
export async function createMerchant(
  ctx: TestContext,
  cookie: string,
  environment: 'sandbox' | 'production' = 'sandbox',
  over: Record<string, unknown> = {},
): Promise<TestMerchant> {
  const res = await call(ctx, '/api/merchants', {
    method: 'POST',
    cookie,
    body: { businessName: 'Acme Shop', businessEmail: 'shop@example.com', platformType: 'custom', environment, ...over },
  });
  if (res.status !== 201) throw new Error(`creating a merchant failed: ${res.status} ${res.text}`);
  return { id: res.body.id, environment, secretKey: res.body.secretApiKey, publishableKey: res.body.apiKey };
}

/** A card as a checkout form sends it (payment_method_data.card). */
export interface TestCardDetails {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

/**
 * Issues a bcard for `amount` (dollars, e.g. '25.00') from one source at 100 % (POST /api/virtual-cards) and reads
 * its full number, expiry and CVC (GET …/checkout-details). Throws unless both succeed.
 */
export async function bcardCard(
  ctx: TestContext,
  cookie: string,
  sourceId: string,
  amount: string,
): Promise<{ id: string; card: TestCardDetails }> {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    body: { name: 'Checkout card', balance: amount, fundingSources: [{ fundingSourceId: sourceId, percentage: 100 }] },
  });
  if (made.status !== 201) throw new Error(`issuing a bcard failed: ${made.status} ${made.text}`);
  const details = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie });
  if (details.status !== 200) throw new Error(`reading the bcard failed: ${details.status} ${details.text}`);
  return {
    id: made.body.id,
    card: {
      number: details.body.cardNumber,
      exp_month: details.body.expiryMonth,
      exp_year: details.body.expiryYear,
      cvc: details.body.cvv,
    },
  };
}

/**
 * A sandbox test bcard (POST /api/v1/test_helpers/bcards) of `amount` cents for the sandbox merchant behind
 * `secretKey`, with its number, expiry and CVC: what pays a sandbox intent (a consumer's bcard is declined there).
 */
export async function testBcardCard(ctx: TestContext, secretKey: string, amount: number): Promise<{ id: string; card: TestCardDetails }> {
  const res = await merchantCall(ctx, secretKey, '/test_helpers/bcards', { method: 'POST', body: { amount } });
  if (res.status !== 200) throw new Error(`creating a test bcard failed: ${res.status} ${res.text}`);
  return { id: res.body.id, card: { number: res.body.number, exp_month: res.body.exp_month, exp_year: res.body.exp_year, cvc: res.body.cvc } };
}

export interface MerchantWorld {
  owner: { cookie: string; id: string };
  consumer: { cookie: string; id: string; email: string; password: string };
  /** The consumer's one card ($10,000.00 at the simulator). */
  sourceId: string;
  /** The owner's production merchant (takes consumers' bcards) and sandbox merchant (takes sandbox test bcards). */
  live: TestMerchant;
  sandbox: TestMerchant;
}

/**
 * The cast of the merchant-payment tests: a merchant owner and a consumer with one card, both on premium (no
 * monthly limits for the consumer's bcards, 100,000 API calls for the owner), and the owner's two merchants.
 */
export async function merchantWorld(ctx: TestContext): Promise<MerchantWorld> {
  const o = await registerUser(ctx);
  const c = await registerUser(ctx);
  await makePremium(ctx, c.user.id);
  await makePremium(ctx, o.user.id);
  return {
    owner: { cookie: o.cookie, id: o.user.id },
    consumer: { cookie: c.cookie, id: c.user.id, email: c.email, password: c.password },
    sourceId: (await addCard(ctx, c.cookie)).id,
    live: await createMerchant(ctx, o.cookie, 'production'),
    sandbox: await createMerchant(ctx, o.cookie, 'sandbox'),
  };
}
