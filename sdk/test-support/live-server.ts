/*
 * Helpers for the SDK tests (not a test file, and not exported by the package): the real API on a real port
 * (makeTestApp on a fresh database, served by Bun.serve), a signed-in user with a sandbox merchant key made
 * through the API's own test helpers, and a webhook receiver that keeps the raw bodies and headers.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'bun';
import { makeTestApp, type TestContext } from '../../api/test-support/app';
import { createMerchant, makePremium, registerUser } from '../../api/test-support/world';
import { TestClock } from '../../api/src/lib/clock';
import { setPeerAddress } from '../../api/src/lib/request-context';
import { resetRateWindows } from '../../api/src/modules/merchants/usage';

export interface LiveServer {
  ctx: TestContext;
  baseUrl: string;
  /**
   * The API's per-second limit counts on the test clock, which does not move by itself: a suite making hundreds of
   * calls would be limited for good. While true (the default), every request starts with fresh windows; a test of
   * the real 429 sets it to false and moves the clock.
   */
  resetRateLimits: boolean;
  /** Requests the server received (method and path), for assertions. */
  requests: Array<{ method: string; path: string; idempotencyKey: string | null }>;
  close(): void;
}

/**
 * The API on 127.0.0.1:<random port>. The test clock starts at the real time, so webhook signatures are fresh.
 * The database lives in memory-backed /dev/shm when there is one: these tests are about the client, and a
 * synchronous=FULL fsync per write would make the 250-intent pagination test take seconds.
 */
export async function startLiveServer(): Promise<LiveServer> {
  const dir = existsSync('/dev/shm') ? mkdtempSync(join('/dev/shm', 'bpay-sdk-test-')) : undefined;
  const ctx = await makeTestApp({ clock: new TestClock(Date.now()), dir });
  const live: LiveServer = {
    ctx,
    baseUrl: '',
    resetRateLimits: true,
    requests: [],
    close() {
      server.stop(true);
      ctx.close();
    },
  };
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req, srv) {
      if (live.resetRateLimits) resetRateWindows();
      const ip = srv.requestIP(req);
      if (ip) setPeerAddress(req, ip.address);
      live.requests.push({ method: req.method, path: new URL(req.url).pathname, idempotencyKey: req.headers.get('idempotency-key') });
      return ctx.app.handle(req);
    },
  });
  live.baseUrl = `http://127.0.0.1:${server.port}`;
  return live;
}

export interface TestMerchantAccount {
  userId: string;
  cookie: string;
  merchantId: string;
  secretKey: string;
}

/** A registered user on the premium plan (no monthly API cap in the way) with a sandbox merchant and its secret key. */
export async function newMerchantAccount(ctx: TestContext, environment: 'sandbox' | 'production' = 'sandbox'): Promise<TestMerchantAccount> {
  const user = await registerUser(ctx);
  const userId: string = user.user.id;
  await makePremium(ctx, userId);
  const m = await createMerchant(ctx, user.cookie, environment);
  return { userId, cookie: user.cookie, merchantId: m.id, secretKey: m.secretKey };
}

export interface ReceivedDelivery {
  rawBody: string;
  signature: string | null;
}

/** A merchant's webhook receiver on a real port that keeps exactly what arrived and answers 200. */
export function startReceiver(): { url: string; received: ReceivedDelivery[]; stop(): void } {
  const received: ReceivedDelivery[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      received.push({ rawBody: await req.text(), signature: req.headers.get('bpay-signature') });
      return new Response('ok');
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hooks`, received, stop: () => server.stop(true) };
}

export { submitKyc } from '../../api/test-support/modules/kyc';
