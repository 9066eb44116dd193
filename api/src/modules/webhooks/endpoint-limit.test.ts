import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { REQUESTS_PER_SECOND, resetRateWindows } from '../merchants/usage';
import { MAX_ENDPOINTS } from './service';
import { countRows, newMerchant, type Merchant } from '../../../test-support/modules/webhooks';

/*
 * The endpoint limit under parallel creates: the count and the insert are one transaction, so however many requests
 * arrive at once, through the v1 API, the dashboard or both, exactly MAX_ENDPOINTS endpoints are stored and every
 * other request is webhook_endpoint_limit_reached. (Counted apart, 25 or 40 at once were all stored.)
 */

let ctx: TestContext;
let cookie: string;
beforeAll(async () => {
  ctx = await makeTestApp();
  cookie = (await registerUser(ctx)).cookie;
});
afterAll(() => ctx.close());

const body = { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] };

/** As many v1 creates as the per-second request limit lets through, all at once. */
function viaV1(m: Merchant, n: number): Promise<CallResult>[] {
  resetRateWindows();
  return Array.from({ length: n }, () =>
    call(ctx, '/api/v1/webhook_endpoints', { method: 'POST', body, headers: { authorization: `Bearer ${m.key}` }, origin: null }),
  );
}

function viaDashboard(m: Merchant, n: number): Promise<CallResult>[] {
  return Array.from({ length: n }, () => call(ctx, `/api/merchants/${m.id}/webhook_endpoints`, { method: 'POST', cookie, body }));
}

function tally(res: CallResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of res) {
    const k = r.status < 400 ? 'created' : `${r.status} ${r.body?.error?.code}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

const stored = (m: Merchant) => countRows(ctx, 'webhook_endpoints', 'merchant_id = ?', [m.id]);

describe(`at most ${MAX_ENDPOINTS} webhook endpoints per merchant, however many creates arrive at once`, () => {
  test(`v1 API: ${REQUESTS_PER_SECOND} creates at once store exactly ${MAX_ENDPOINTS}; the rest are 400 webhook_endpoint_limit_reached`, async () => {
    const m = await newMerchant(ctx, cookie);
    const res = await Promise.all(viaV1(m, REQUESTS_PER_SECOND));
    expect(tally(res)).toEqual({ created: MAX_ENDPOINTS, '400 webhook_endpoint_limit_reached': REQUESTS_PER_SECOND - MAX_ENDPOINTS });
    expect(await stored(m)).toBe(MAX_ENDPOINTS);
  });

  test(`dashboard: 40 creates at once store exactly ${MAX_ENDPOINTS}`, async () => {
    const m = await newMerchant(ctx, cookie);
    const res = await Promise.all(viaDashboard(m, 40));
    expect(tally(res)).toEqual({ created: MAX_ENDPOINTS, '400 webhook_endpoint_limit_reached': 40 - MAX_ENDPOINTS });
    expect(await stored(m)).toBe(MAX_ENDPOINTS);
  });

  test(`both routes at once on one merchant share the one limit: exactly ${MAX_ENDPOINTS} stored`, async () => {
    const m = await newMerchant(ctx, cookie);
    const res = await Promise.all([...viaV1(m, 20), ...viaDashboard(m, 20)]);
    expect(tally(res)).toEqual({ created: MAX_ENDPOINTS, '400 webhook_endpoint_limit_reached': 40 - MAX_ENDPOINTS });
    expect(await stored(m)).toBe(MAX_ENDPOINTS);
  });
});
