import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateDb, openDb, type DbHandle } from '@bpay/db';
import { seedDb } from '@bpay/db/seed';
import { createApp } from './app';
import { buildDeps, type AppDeps } from './deps';
import { TestClock } from './lib/clock';
import { silentLogger, type Logger } from './lib/logger';
import { setPeerAddress } from './lib/request-context';
import { createSimulatedVendor } from './vendors/simulated';
import type { PaymentVendor } from './vendors/types';

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
}

/** A fresh app on a fresh temporary libSQL file with migrations applied and plans seeded. */
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
    vendors: { simulated: opts.wrapVendor ? opts.wrapVendor(simulated) : simulated },
    bcardTtlMs: opts.bcardTtlMs ?? 30 * 60_000,
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
  /** `bpay_session=<token>` from Set-Cookie, when set. */
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
  const m = setCookie ? /bpay_session=([^;]*)/.exec(setCookie) : null;
  return {
    status: res.status,
    headers: res.headers,
    body: parsed as T,
    text,
    cookie: m && m[1] ? `bpay_session=${m[1]}` : null,
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
