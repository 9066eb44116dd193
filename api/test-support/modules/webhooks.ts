/*
 * Helpers for the webhook tests (not a test file itself): merchants and their keys, v1 calls, a DNS stand-in,
 * a sandbox test bcard to pay with, and a real HTTP receiver that verifies signatures the way a merchant's server would.
 */
import type { Server } from 'bun';
import { asc, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, type CallOptions, type CallResult, type TestContext } from '../app';
import { createMerchant, registerUser, type TestCardDetails } from '../world';
import { resetRateWindows } from '../../src/modules/merchants/usage';
import { SIGNATURE_HEADER, verifySignature } from '../../src/modules/webhooks/signature';

export interface Merchant {
  id: string;
  key: string;
  cookie: string;
}

export async function newMerchant(ctx: TestContext, cookie: string, environment: 'sandbox' | 'production' = 'sandbox'): Promise<Merchant> {
  const m = await createMerchant(ctx, cookie, environment, { businessName: `Shop ${environment}` });
  return { id: m.id, key: m.secretKey, cookie };
}

/** A merchant API call as a server makes it (bearer key, no Origin); the per-second limit is not under test here. */
export function v1<T = any>(
  ctx: TestContext,
  key: string | null,
  path: string,
  opts: Omit<CallOptions, 'origin'> = {},
): Promise<CallResult<T>> {
  resetRateWindows();
  const headers = { ...(key !== null ? { authorization: `Bearer ${key}` } : {}), ...(opts.headers ?? {}) };
  return call<T>(ctx, `/api/v1${path}`, { ...opts, headers, origin: null });
}

/** Stands in for DNS: these names resolve to these addresses; any other name does not resolve. */
export function fakeDns(table: Record<string, string[]>) {
  return async (host: string) => {
    const addrs = table[host];
    if (!addrs) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

export type CardDetails = TestCardDetails;

/**
 * A sandbox test bcard of `amount` cents for a sandbox merchant, with its number, expiry and CVC: what pays a sandbox
 * intent (a consumer's bcard is declined there with test_mode_live_card).
 */
export async function testBcard(ctx: TestContext, m: Merchant, amount: number): Promise<{ id: string; card: CardDetails }> {
  const res = await v1(ctx, m.key, '/test_helpers/bcards', { method: 'POST', body: { amount } });
  if (res.status !== 200) throw new Error(`test bcard: ${res.status} ${res.text}`);
  return { id: res.body.id, card: { number: res.body.number, exp_month: res.body.exp_month, exp_year: res.body.exp_year, cvc: res.body.cvc } };
}

export interface Received {
  rawBody: string;
  signature: string | null;
  contentType: string | null;
  userAgent: string | null;
  verified: boolean;
  event: { id: string; object: string; type: string; created: number; livemode: boolean; data: { object: Record<string, any> } };
}

/**
 * A merchant's webhook receiver on a real port. It verifies every request (HMAC recomputed with the endpoint's
 * secret, constant-time compare, 5-minute tolerance against the test clock) and answers 400 to a bad signature;
 * otherwise it answers what `answer` says (200 by default).
 */
export class Receiver {
  readonly received: Received[] = [];
  readonly rejected: string[] = [];
  secret = '';
  answer: (n: number) => number = () => 200;
  private server: Server<undefined>;

  constructor(private readonly nowSeconds: () => number) {
    this.server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        const rawBody = await req.text();
        const signature = req.headers.get(SIGNATURE_HEADER);
        const verified = verifySignature(rawBody, signature, this.secret, 300, this.nowSeconds());
        if (!verified) {
          this.rejected.push(rawBody);
          return new Response('bad signature', { status: 400 });
        }
        this.received.push({
          rawBody,
          signature,
          contentType: req.headers.get('content-type'),
          userAgent: req.headers.get('user-agent'),
          verified,
          event: JSON.parse(rawBody),
        });
        const status = this.answer(this.received.length);
        if (status >= 300 && status < 400) return new Response(null, { status, headers: { location: 'http://127.0.0.1:1/elsewhere' } });
        return new Response(status < 300 ? 'ok' : `boom ${'x'.repeat(600)}`, { status });
      },
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}/hooks`;
  }

  eventIds(): string[] {
    return this.received.map((r) => r.event.id);
  }

  stop(): void {
    this.server.stop(true);
  }
}

/** Counts rows of a table (optionally filtered by a SQL condition). */
export async function countRows(ctx: TestContext, table: string, where = '1 = 1', args: Array<string | number> = []): Promise<number> {
  const rs = await ctx.handle.client.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE ${where}`, args });
  return Number(rs.rows[0]?.n ?? 0);
}

/* Scenario helpers for the delivery tests. */

export const HOUR = 3600_000;
export const nowSeconds = (ctx: TestContext) => () => Math.floor(ctx.clock.now().getTime() / 1000);

/** A user, a sandbox merchant, a receiver and an endpoint pointing at it (subscribed to `events`). */
export async function setup(ctx: TestContext, events: string[] = ['*']) {
  const receiver = new Receiver(nowSeconds(ctx));
  const user = await registerUser(ctx);
  const merchant = await newMerchant(ctx, user.cookie, 'sandbox');
  const ep = await v1(ctx, merchant.key, '/webhook_endpoints', { method: 'POST', body: { url: receiver.url, enabled_events: events } });
  if (ep.status !== 200) throw new Error(`endpoint: ${ep.status} ${ep.text}`);
  receiver.secret = ep.body.secret;
  return { receiver, user, merchant, endpointId: ep.body.id as string };
}

export async function createIntent(ctx: TestContext, m: Merchant, amount = 1000): Promise<string> {
  const res = await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount, currency: 'usd' } });
  if (res.status !== 200) throw new Error(`intent: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export const deliveriesOf = (ctx: TestContext, endpointId: string) =>
  ctx.handle.db
    .select()
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.endpointId, endpointId))
    .orderBy(asc(schema.webhookDeliveries.createdAt));

export const attemptsOf = (ctx: TestContext, deliveryId: string) =>
  ctx.handle.db
    .select()
    .from(schema.webhookAttempts)
    .where(eq(schema.webhookAttempts.deliveryId, deliveryId))
    .orderBy(asc(schema.webhookAttempts.at));
