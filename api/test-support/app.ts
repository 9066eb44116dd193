import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateDb, openDb, type DbHandle, type DbOrTx } from '@bpay/db';
import { seedDb } from '@bpay/db/seed';
import { createApp } from '../src/app';
import { buildDeps, type AppDeps } from '../src/deps';
import { TestClock } from '../src/lib/clock';
import { silentLogger, type Logger } from '../src/lib/logger';
import { setPeerAddress } from '../src/lib/request-context';
import { createLocalDiskStorage } from '../src/storage/local-disk';
import { createSimulatedVendor } from '../src/vendors/simulated';
import type { PaymentVendor } from '../src/vendors/types';

export const TEST_ORIGIN = 'http://localhost:3000';

export interface TestContext {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  clock: TestClock;
  handle: DbHandle;
  dir: string;
  close(): void;
}

export const TEST_SESSION_SECRET = 'test-session-secret-test-session-secret';

export interface TestAppOptions {
  publicUrl?: string;
  log?: Logger;
  /** Reuse this directory's database (a "restart" after a crash); a fresh one otherwise. */
  dir?: string;
  clock?: TestClock;
  /** Wraps the simulated processor, for fault injection. */
  wrapVendor?: (vendor: PaymentVendor) => PaymentVendor;
  bcardTtlMs?: number;
  /** The events stream's poll and ping intervals (short by default in tests). */
  eventStream?: Partial<AppDeps['eventStream']>;
  /** Generous unless given: the limits' own tests pass the production numbers (DEFAULT_… constants). */
  consumerRateLimit?: AppDeps['consumerRateLimit'];
  cardAttemptLimits?: AppDeps['cardAttemptLimits'];
  registrationLimit?: AppDeps['registrationLimit'];
  /** BPAY_RATE_LIMITS: on unless given false (then the limits above are not applied at all). */
  rateLimits?: boolean;
  /** Outgoing mail: no SMTP server unless given (the e-mail tests pass a transport to a local one). */
  mail?: Partial<AppDeps['mail']>;
}

/** Limits no unrelated test reaches (hundreds of parallel requests from one session and address). */
export const GENEROUS_LIMITS = {
  consumerRateLimit: { windowMs: 10_000, perSession: 1_000_000, perAddress: 1_000_000 },
  cardAttemptLimits: { perAccountPerHour: 1_000_000, perAddressPerHour: 1_000_000, declinesBeforeLock: 1_000_000, lockMs: 60_000 },
  // Every test registers its users from the same in-process address.
  registrationLimit: { perAddressPerHour: 1_000_000 },
} satisfies Pick<AppDeps, 'consumerRateLimit' | 'cardAttemptLimits' | 'registrationLimit'>;

/** A fresh app on a fresh temporary libSQL file with migrations applied and plans seeded. */
/**
 * The simulator as a test wraps it. A wrapper that copied the simulator's `within` along with its methods (`...v`)
 * would let each saga phase call the simulator around the wrapper: such a copy is dropped, and the wrapped simulator
 * acts as a remote processor. A wrapper that means to stay inside the phases gives its own (interceptVendor's local).
 */
function wrapped(simulated: PaymentVendor, wrap: (v: PaymentVendor) => PaymentVendor): PaymentVendor {
  const vendor = wrap(simulated);
  if (vendor.within !== simulated.within) return vendor;
  const { within: _, ...remote } = vendor;
  return remote;
}

export async function makeTestApp(opts: TestAppOptions = {}): Promise<TestContext> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'bpay-test-'));
  const handle = openDb({ url: `file:${join(dir, 'test.db')}` });
  await migrateDb(handle.db);
  const clock = opts.clock ?? new TestClock();
  await seedDb(handle.db, clock.now());
  const simulated = createSimulatedVendor(handle.db, clock, TEST_SESSION_SECRET);
  const deps = buildDeps({
    db: handle.db,
    clock,
    log: opts.log ?? silentLogger,
    sessionSecret: TEST_SESSION_SECRET,
    sessionTtlMs: 14 * 24 * 3600_000,
    publicUrl: new URL(opts.publicUrl ?? TEST_ORIGIN),
    trustProxy: false,
    vendors: { simulated: opts.wrapVendor ? wrapped(simulated, opts.wrapVendor) : simulated },
    bcardTtlMs: opts.bcardTtlMs ?? 30 * 60_000,
    storage: createLocalDiskStorage(join(dir, 'uploads')),
    eventStream: { pollMs: 20, pingMs: 15_000, ...opts.eventStream },
    consumerRateLimit: opts.consumerRateLimit ?? GENEROUS_LIMITS.consumerRateLimit,
    cardAttemptLimits: opts.cardAttemptLimits ?? GENEROUS_LIMITS.cardAttemptLimits,
    registrationLimit: opts.registrationLimit ?? GENEROUS_LIMITS.registrationLimit,
    rateLimits: opts.rateLimits,
    mail: opts.mail,
  });
  return {
    app: createApp(deps),
    deps,
    clock,
    handle,
    dir,
    close() {
      handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  cookie?: string | null;
  ip?: string;
  /** The Origin header; TEST_ORIGIN unless given, none at all when null. */
  origin?: string | null;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  /** `bpay_session=<token>` (`__Host-bpay_session=<token>` on an https install) from Set-Cookie, when set. */
  cookie: string | null;
}

/** Sends one request through the app in-process, as a same-origin browser would. */
export async function call<T = any>(ctx: TestContext, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
  const origin = opts.origin === undefined ? TEST_ORIGIN : opts.origin;
  const headers: Record<string, string> = { ...(origin !== null ? { origin } : {}), ...(opts.headers ?? {}) };
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const req = new Request(`http://localhost:3000${path}`, { method: opts.method ?? 'GET', headers, body });
  setPeerAddress(req, opts.ip ?? '203.0.113.7');
  const res = await ctx.app.handle(req);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  const setCookie = res.headers.get('set-cookie');
  const m = setCookie ? /((?:__Host-)?bpay_session)=([^;]*)/.exec(setCookie) : null;
  return {
    status: res.status,
    headers: res.headers,
    body: parsed as T,
    text,
    cookie: m && m[2] ? `${m[1]}=${m[2]}` : null,
  };
}

/** A logger that keeps what it is given, to check what an error handler logged. */
export function memoryLogger(): Logger & { lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> } {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => void lines.push({ level, msg, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

let counter = 0;
/** Registers a fresh user and returns its session cookie. */
export async function registerUser(
  ctx: TestContext,
  over: Partial<{ email: string; password: string; firstName: string; lastName: string }> = {},
) {
  const email = over.email ?? `user${++counter}-${Date.now()}@example.com`;
  const password = over.password ?? 'correct horse battery';
  const res = await call(ctx, '/api/auth/register', {
    method: 'POST',
    body: { email, password, firstName: over.firstName ?? 'Ada', lastName: over.lastName ?? 'Lovelace' },
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

// Helpers for the money tests (funding sources, bcards, transactions). Imports are hoisted: kept here, beside their use.
import { and as sqlAnd, eq as sqlEq } from 'drizzle-orm';
import { schema as dbSchema } from '@bpay/db';

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

/* ---------------------------------------------------------------------------------------------------------------
 * Money helpers: cards, plans, forks of a prepared database, fault-injecting vendors and the ledger's invariants.
 * ------------------------------------------------------------------------------------------------------------- */

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

/** Moves the user to the premium plan (no monthly limits, unlimited sources); optionally sets premium's fee. */
export async function makePremium(ctx: TestContext, userId: string, feeBps?: number): Promise<void> {
  await ctx.handle.client.execute({ sql: "UPDATE user_subscriptions SET tier_id = 'tier_premium' WHERE user_id = ?", args: [userId] });
  if (feeBps !== undefined) {
    await ctx.handle.client.execute({ sql: "UPDATE subscription_tiers SET transaction_fee_bps = ? WHERE name = 'premium'", args: [feeBps] });
  }
}

/**
 * A new app on a consistent copy (VACUUM INTO) of another app's database: users, sessions and cards set up once
 * can be reused by many independent scenarios without paying for argon2 each time. Its clock starts where the
 * original's is, unless one is given.
 */
export async function forkTestApp(from: TestContext, opts: Omit<TestAppOptions, 'dir'> = {}): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'bpay-test-'));
  await from.handle.client.execute({ sql: 'VACUUM INTO ?', args: [join(dir, 'test.db')] });
  return makeTestApp({ ...opts, dir, clock: opts.clock ?? new TestClock(from.clock.now().getTime()) });
}

export type VendorMethod = Exclude<keyof PaymentVendor, 'name'>;

/** A vendor that runs every call through `around` (fault injection: fail, delay or "crash" around the real call). */
export function interceptVendor(
  inner: PaymentVendor,
  around: <T>(method: VendorMethod, args: unknown[], run: () => Promise<T>) => Promise<T>,
  /**
   * Keep the simulator's `within`, intercepted too, so a saga phase runs its calls inside its transaction as in
   * production. Without it the wrapped simulator behaves as a remote processor (calls first, then the record).
   */
  opts: { local?: boolean } = {},
): PaymentVendor {
  const within = inner.within;
  return {
    name: inner.name,
    ...(inner.searchLags ? { searchLags: true } : {}),
    ...(opts.local && within ? { within: (tx: DbOrTx) => interceptVendor(within.call(inner, tx), around, opts) } : {}),
    verifyCard: (...a) => around('verifyCard', a, () => inner.verifyCard(...a)),
    completeChallenge: (...a) => around('completeChallenge', a, () => inner.completeChallenge(...a)),
    availableBalance: (...a) => around('availableBalance', a, () => inner.availableBalance(...a)),
    hold: (...a) => around('hold', a, () => inner.hold(...a)),
    findHold: (...a) => around('findHold', a, () => inner.findHold(...a)),
    getHold: (...a) => around('getHold', a, () => inner.getHold(...a)),
    capture: (...a) => around('capture', a, () => inner.capture(...a)),
    voidHold: (...a) => around('voidHold', a, () => inner.voidHold(...a)),
    refund: (...a) => around('refund', a, () => inner.refund(...a)),
    issueCard: (...a) => around('issueCard', a, () => inner.issueCard(...a)),
    deactivateCard: (...a) => around('deactivateCard', a, () => inner.deactivateCard(...a)),
    revealCard: (...a) => around('revealCard', a, () => inner.revealCard(...a)),
    addBankAccount: (...a) => around('addBankAccount', a, () => inner.addBankAccount(...a)),
    verifyMicrodeposits: (...a) => around('verifyMicrodeposits', a, () => inner.verifyMicrodeposits(...a)),
    debitBank: (...a) => around('debitBank', a, () => inner.debitBank(...a)),
    getBankDebit: (...a) => around('getBankDebit', a, () => inner.getBankDebit(...a)),
    // The simulator finds its cards by number (a checkout form's card details); a wrapped one must too.
    ...(inner.findIssuedCard ? { findIssuedCard: inner.findIssuedCard.bind(inner) } : {}),
  };
}

const num = (v: unknown) => Number(v ?? 0);

/** What the ledger and the simulated processor say, to check the money invariants after a scenario. */
export interface MoneyReport {
  /** Sum of every posting: must be 0. */
  ledgerTotal: number;
  /** Movements whose postings do not sum to zero, or that have fewer than two postings: must be none. */
  badMovements: Array<{ movementId: string; sum: number; n: number }>;
  /** Every funding source: the processor's available balance and the ledger balance of its account. */
  sources: Array<{ id: string; available: number; ledger: number; inPendingCollection: boolean }>;
  /** Holds still placed at the processor: none once every collection has settled. */
  heldHolds: number;
  bcards: Array<{ id: string; status: string; limit: number; spent: number; ledger: number }>;
  /** Collections in holding, capturing or refunding. */
  unsettledCollections: number;
  movementsByKind: Record<string, number>;
}

export async function moneyReport(ctx: TestContext): Promise<MoneyReport> {
  const q = async (sql: string) => (await ctx.handle.client.execute(sql)).rows;
  const [total] = await q('SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings');
  const bad = await q(
    `SELECT m.id AS id, coalesce(sum(p.amount_cents), 0) AS s, count(p.id) AS n
       FROM ledger_movements m LEFT JOIN ledger_postings p ON p.movement_id = m.id
      GROUP BY m.id HAVING s != 0 OR n < 2`,
  );
  const sources = await q(
    `SELECT f.id AS id, s.available_cents AS available,
            (SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'funding_source:' || f.id) AS ledger,
            EXISTS (SELECT 1 FROM collection_shares cs JOIN collections c ON c.id = cs.collection_id
                     WHERE cs.funding_source_id = f.id AND c.status IN ('holding', 'capturing', 'refunding')) AS pending
       FROM funding_sources f
       JOIN (SELECT token, available_cents FROM sim_cards UNION ALL SELECT token, available_cents FROM sim_bank_accounts) s
         ON s.token = f.vendor_token`,
  );
  const [held] = await q("SELECT count(*) AS n FROM sim_holds WHERE status = 'held'");
  const bcards = await q(
    `SELECT b.id AS id, b.status AS status, b.limit_cents AS lim, b.spent_cents AS spent,
            (SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'bcard:' || b.id) AS ledger
       FROM bcards b`,
  );
  const [unsettled] = await q("SELECT count(*) AS n FROM collections WHERE status IN ('holding', 'capturing', 'refunding')");
  const kinds = await q('SELECT kind, count(*) AS n FROM ledger_movements GROUP BY kind');
  return {
    ledgerTotal: num(total?.s),
    badMovements: bad.map((r) => ({ movementId: String(r.id), sum: num(r.s), n: num(r.n) })),
    sources: sources.map((r) => ({ id: String(r.id), available: num(r.available), ledger: num(r.ledger), inPendingCollection: num(r.pending) === 1 })),
    heldHolds: num(held?.n),
    bcards: bcards.map((r) => ({ id: String(r.id), status: String(r.status), limit: num(r.lim), spent: num(r.spent), ledger: num(r.ledger) })),
    unsettledCollections: num(unsettled?.n),
    movementsByKind: Object.fromEntries(kinds.map((r) => [String(r.kind), num(r.n)])),
  };
}

/**
 * The invariants every settled state keeps, as a list of violations (empty when all hold): the ledger sums to
 * zero and so does every movement; money leaves or returns to a card only through the ledger (processor balance =
 * $10,000.00 + ledger balance, for sources not in a collection still under way); nothing stays held; a bcard's
 * account is never negative and is empty once the card is used, expired or canceled.
 */
export function moneyViolations(r: MoneyReport, startingCents = 1_000_000): string[] {
  const out: string[] = [];
  if (r.ledgerTotal !== 0) out.push(`ledger total is ${r.ledgerTotal}`);
  for (const m of r.badMovements) out.push(`movement ${m.movementId} sums to ${m.sum} over ${m.n} postings`);
  for (const s of r.sources) {
    if (!s.inPendingCollection && s.available !== startingCents + s.ledger) {
      out.push(`source ${s.id}: processor has ${s.available}, ledger says ${startingCents + s.ledger}`);
    }
  }
  if (r.unsettledCollections === 0 && r.heldHolds !== 0) out.push(`${r.heldHolds} holds left placed`);
  for (const b of r.bcards) {
    if (b.ledger < 0) out.push(`bcard ${b.id} account is ${b.ledger}`);
    const expected = b.status === 'active' ? b.limit - b.spent : 0;
    if (b.ledger !== expected) out.push(`bcard ${b.id} (${b.status}) account is ${b.ledger}, expected ${expected}`);
  }
  return out;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Merchant helpers: merchant accounts and their keys, the v1 API as a server-side client calls it, and bcard card
 * details as a checkout form would send them.
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

/** A call to the merchant API (/api/v1/…) with `Authorization: Bearer <key>`, as a server would make it: no Origin, no cookie. */
export function merchantCall<T = any>(
  ctx: TestContext,
  key: string | null,
  path: string,
  opts: Omit<CallOptions, 'origin' | 'cookie'> & { cookie?: string | null } = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...(key !== null ? { authorization: `Bearer ${key}` } : {}), ...(opts.headers ?? {}) };
  return call<T>(ctx, `/api/v1${path}`, { ...opts, headers, origin: null });
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

/** The balance of one ledger account (its postings summed), in cents. */
export async function ledgerBalance(ctx: TestContext, account: string): Promise<number> {
  const { rows } = await ctx.handle.client.execute({
    sql: 'SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings WHERE account = ?',
    args: [account],
  });
  return Number(rows[0]!.s);
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
