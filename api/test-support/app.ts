/*
 * The API in a test: a fresh app on a temporary libSQL file (makeTestApp, forkTestApp), one request through it in
 * process (call, merchantCall), a logger that keeps its lines, and a fault-injecting wrapper for the processor.
 * What a test puts in the app (users, cards, merchants) is in world.ts; the money invariants it checks after, in
 * money-invariants.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InStatement } from '@libsql/client';
import { migrateDb, openDb, type DbHandle, type DbOrTx } from '@bpay/db';
import { startHranaServer } from './hrana-server';
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

/**
 * Issue 30: the money, concurrency, crash and idempotency suites run against a libSQL server too. With
 * BPAY_TEST_DATABASE=remote every test app's database is served by the Hrana 2 stand-in (api/test-support/hrana-server.ts)
 * and the app reaches it over HTTP, as a cluster's processes reach sqld; the tests and their assertions are the same.
 */
export const REMOTE = process.env.BPAY_TEST_DATABASE === 'remote';

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
  /** A Stripe processor for new cards and bcards (the adapter pointed at the stand-in); the simulator's otherwise. */
  stripe?: PaymentVendor;
  /** Stripe's webhook signing secret (POST /api/stripe/webhook); none unless given. */
  stripeWebhookSecret?: string | null;
}

/** Limits no unrelated test reaches (hundreds of parallel requests from one session and address). */
export const GENEROUS_LIMITS = {
  consumerRateLimit: { windowMs: 10_000, perSession: 1_000_000, perAddress: 1_000_000 },
  cardAttemptLimits: { perAccountPerHour: 1_000_000, perAddressPerHour: 1_000_000, declinesBeforeLock: 1_000_000, lockMs: 60_000 },
  // Every test registers its users from the same in-process address.
  registrationLimit: { perAddressPerHour: 1_000_000 },
} satisfies Pick<AppDeps, 'consumerRateLimit' | 'cardAttemptLimits' | 'registrationLimit'>;

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

/** A fresh app on a fresh temporary libSQL file with migrations applied and plans seeded. */
export async function makeTestApp(opts: TestAppOptions = {}): Promise<TestContext> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'bpay-test-'));
  // BPAY_TEST_DATABASE=remote (`bun run test:remote`): the same file served by the Hrana stand-in, the app on its URL.
  const server = REMOTE ? startHranaServer({ path: join(dir, 'test.db') }) : null;
  const handle = openDb({ url: server ? server.url : `file:${join(dir, 'test.db')}` });
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
    vendors: { simulated: opts.wrapVendor ? wrapped(simulated, opts.wrapVendor) : simulated, ...(opts.stripe ? { stripe: opts.stripe } : {}) },
    bcardTtlMs: opts.bcardTtlMs ?? 30 * 60_000,
    storage: createLocalDiskStorage(join(dir, 'uploads')),
    eventStream: { pollMs: 20, pingMs: 15_000, ...opts.eventStream },
    consumerRateLimit: opts.consumerRateLimit ?? GENEROUS_LIMITS.consumerRateLimit,
    cardAttemptLimits: opts.cardAttemptLimits ?? GENEROUS_LIMITS.cardAttemptLimits,
    registrationLimit: opts.registrationLimit ?? GENEROUS_LIMITS.registrationLimit,
    rateLimits: opts.rateLimits,
    mail: opts.mail,
    stripeWebhookSecret: opts.stripeWebhookSecret,
  });
  return {
    app: createApp(deps),
    deps,
    clock,
    handle,
    dir,
    close() {
      handle.close();
      server?.stop();
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

/** The SQL the app's client ran while `fn` ran (to show what a request read, or did not). */
export async function statementsDuring<T>(ctx: TestContext, fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const client = ctx.handle.client;
  const execute = client.execute;
  const run = execute.bind(client) as (stmt: InStatement) => ReturnType<typeof execute>;
  const sql: string[] = [];
  client.execute = ((stmt: InStatement) => {
    sql.push(typeof stmt === 'string' ? stmt : stmt.sql);
    return run(stmt);
  }) as typeof execute;
  try {
    return { result: await fn(), sql };
  } finally {
    client.execute = execute;
  }
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
