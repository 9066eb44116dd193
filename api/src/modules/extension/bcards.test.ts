import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { luhnValid } from '../../lib/cards';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, registerUser, setTier } from '../../../test-support/world';
import { connectBrowser, extensionCall, type ConnectedBrowser } from '../../../test-support/modules/extension';

/*
 * What a connected browser does with its token: read the funding sources, make a bcard for the checkout page it is on
 * (locked to the site's registrable domain, remembering the token), follow the collection, and read the card details
 * of that bcard only.
 */

const EB = '/api/extension/bcards';

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

let ctx: TestContext;
let alice: { cookie: string; id: string };
let s1: string;
let s2: string;
let chrome: ConnectedBrowser;
let firefox: ConnectedBrowser;
let bobBrowser: ConnectedBrowser;

beforeAll(async () => {
  ctx = await makeTestApp();
  const a = await registerUser(ctx);
  alice = { cookie: a.cookie, id: a.user.id };
  await setTier(ctx, alice.id, 'tier_premium');
  s1 = (await addCard(ctx, alice.cookie, CARDS_OK[0])).id;
  s2 = (await addCard(ctx, alice.cookie, CARDS_OK[2])).id;
  chrome = await connectBrowser(ctx, alice.cookie, 'Chrome', '198.51.100.1');
  firefox = await connectBrowser(ctx, alice.cookie, 'Firefox', '198.51.100.2');
  const b = await registerUser(ctx);
  await addCard(ctx, b.cookie);
  bobBrowser = await connectBrowser(ctx, b.cookie, 'Bob', '198.51.100.3');
});
afterAll(() => ctx.close());

const body = (over: Record<string, unknown> = {}) => ({
  name: 'Shop checkout',
  balance: '42.50',
  fundingSources: [
    { fundingSourceId: s1, percentage: 60 },
    { fundingSourceId: s2, percentage: 40 },
  ],
  site: 'https://www.shop.example.co.uk/checkout?step=payment',
  ...over,
});

const createFor = (b: ConnectedBrowser, payload: unknown, key?: string) =>
  extensionCall(ctx, b.token, EB, { method: 'POST', body: payload, headers: key ? { 'idempotency-key': key } : {} });

describe('GET /api/extension/funding-sources', () => {
  test("gives the same items as GET /api/funding-sources, the token owner's only", async () => {
    const viaToken = await extensionCall(ctx, chrome.token, '/api/extension/funding-sources');
    const viaCookie = await call(ctx, '/api/funding-sources', { cookie: alice.cookie });
    expect(viaToken.status).toBe(200);
    expect(viaToken.body).toEqual(viaCookie.body);
    expect(viaToken.body.map((s: { id: string }) => s.id).sort()).toEqual([s1, s2].sort());
    const bobs = await extensionCall(ctx, bobBrowser.token, '/api/extension/funding-sources');
    expect(bobs.body.map((s: { id: string }) => s.id)).not.toContain(s1);
  });
});

describe('POST /api/extension/bcards', () => {
  test("issues a bcard locked to the site's registrable domain, remembering the token; Idempotency-Key replays it", async () => {
    const res = await createFor(chrome, body(), 'ext-key-1');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Shop checkout', amount: '42.50', status: 'active', cardholderName: 'Ada Lovelace' });
    expect(res.body.fundingSources.map((s: { fundingSourceId: string }) => s.fundingSourceId)).toEqual([s1, s2]);
    const [row] = await ctx.handle.db.select().from(schema.bcards).where(eq(schema.bcards.id, res.body.id));
    expect(row).toMatchObject({ userId: alice.id, lockedDomain: 'example.co.uk', extensionTokenId: chrome.id, sandbox: false });

    // The same key: the same bcard, replayed, and no second collection.
    const again = await createFor(chrome, body(), 'ext-key-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(res.body.id);
    const cards = await ctx.handle.db.select().from(schema.bcards).where(eq(schema.bcards.userId, alice.id));
    expect(cards.filter((c) => c.id === res.body.id)).toHaveLength(1);
    expect(cards).toHaveLength(1);
    // The same key with another body is refused.
    expectError(await createFor(chrome, body({ balance: '43.00' }), 'ext-key-1'), 400, 'idempotency_error');

    // Its progress, by the key, through the token.
    const progress = await extensionCall(ctx, chrome.token, `${EB}/progress?key=ext-key-1`);
    expect(progress.status).toBe(200);
    expect(progress.headers.get('cache-control')).toBe('no-store');
    expect(progress.body.stage).toBe('completed');
    expect(progress.body.shares.map((s: { status: string }) => s.status)).toEqual(['captured', 'captured']);
    // Another user's token sees nothing under that key.
    expect((await extensionCall(ctx, bobBrowser.token, `${EB}/progress?key=ext-key-1`)).body).toEqual({ stage: 'not_started', shares: [] });
  });

  test.each([
    { site: 'http://127.0.0.1:4100/checkout', domain: '127.0.0.1' },
    { site: 'http://localhost:4100/cart', domain: 'localhost' },
    { site: 'https://checkout.Shop.COM/pay', domain: 'shop.com' },
  ])('a bcard for $site is locked to $domain', async ({ site, domain }) => {
    const res = await createFor(firefox, body({ site, balance: '5.00' }));
    expect(res.status).toBe(201);
    const [row] = await ctx.handle.db.select().from(schema.bcards).where(eq(schema.bcards.id, res.body.id));
    expect(row).toMatchObject({ lockedDomain: domain, extensionTokenId: firefox.id });
  });

  test.each([
    { name: 'no site', over: { site: undefined }, param: 'site' },
    { name: 'an empty site', over: { site: '' }, param: 'site' },
    { name: 'a site that is no URL', over: { site: 'not a url' }, param: 'site' },
    { name: "a browser's own page", over: { site: 'chrome://extensions' }, param: 'site' },
    { name: 'a site over 2048 characters', over: { site: `https://shop.example/${'a'.repeat(2048)}` }, param: 'site' },
    { name: 'a field the route does not take', over: { lockedDomain: 'evil.example' }, param: 'lockedDomain' },
    // A function: the source ids exist only once beforeAll has run.
    { name: 'splits not adding up', over: () => ({ fundingSources: [{ fundingSourceId: s1, percentage: 50 }] }), code: 'invalid_splits' as const },
    { name: 'a balance under $1.00', over: { balance: '0.50' }, param: 'balance' },
  ])('$name is refused and makes nothing', async ({ over, param, code }) => {
    const before = (await ctx.handle.db.select().from(schema.bcards)).length;
    const res = await createFor(chrome, body(typeof over === 'function' ? over() : over));
    expectError(res, 400, code ?? 'validation_error', param);
    expect((await ctx.handle.db.select().from(schema.bcards)).length).toBe(before);
  });

  test("another user's funding source is not found", async () => {
    expectError(await createFor(bobBrowser, body()), 404, 'resource_not_found');
  });

  test('the extension calls from its own origin with no cookie; a cross-site web page cannot use a cookie here', async () => {
    // From the extension's origin, with its token: no cross-site refusal.
    expect((await createFor(chrome, body({ balance: '3.00' }))).status).toBe(201);
    // A page elsewhere posting with the signed-in cookie and no token: 401 (a cookie never authenticates here).
    const page = await call(ctx, EB, { method: 'POST', cookie: alice.cookie, body: body(), origin: 'https://evil.example' });
    expect(page.status).toBe(403);
    expect(page.body.error.code).toBe('cross_site_request');
    const sameSite = await call(ctx, EB, { method: 'POST', cookie: alice.cookie, body: body() });
    expectError(sameSite, 401, 'unauthenticated');
  });
});

describe('GET /api/extension/bcards/:id/checkout-details', () => {
  test("only for a bcard this very token made: the number, expiry, CVV and name, never cached, each reveal recorded", async () => {
    const made = await createFor(chrome, body({ balance: '10.00' }));
    expect(made.status).toBe(201);
    const path = `${EB}/${made.body.id}/checkout-details`;
    const res = await extensionCall(ctx, chrome.token, path);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      cardNumber: expect.stringMatching(/^\d{16}$/),
      expiryMonth: made.body.expiryMonth,
      expiryYear: made.body.expiryYear,
      cvv: expect.stringMatching(/^\d{3}$/),
      cardholderName: 'Ada Lovelace',
    });
    expect(res.body.cardNumber.slice(-4)).toBe(made.body.last4);
    expect(luhnValid(res.body.cardNumber)).toBe(true);

    // Another browser of the same user, another user's browser: not found, and the number is not in the answer.
    for (const other of [firefox, bobBrowser]) {
      const refused = await extensionCall(ctx, other.token, path);
      expectError(refused, 404, 'resource_not_found');
      expect(refused.text).not.toContain(res.body.cardNumber);
    }
    const reveals = await ctx.handle.db.select().from(schema.bcardReveals).where(eq(schema.bcardReveals.bcardId, made.body.id));
    expect(reveals).toHaveLength(1);
    expect(reveals[0]!.userId).toBe(alice.id);
  });

  test('a bcard made in the dashboard is not found through any token, though its owner can reveal it there', async () => {
    const dash = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: alice.cookie,
      body: { name: 'Dashboard card', balance: '8.00', fundingSources: [{ fundingSourceId: s1, percentage: 100 }] },
    });
    expect(dash.status).toBe(201);
    for (const b of [chrome, firefox]) {
      expectError(await extensionCall(ctx, b.token, `${EB}/${dash.body.id}/checkout-details`), 404, 'resource_not_found');
    }
    expectError(await extensionCall(ctx, chrome.token, `${EB}/bc_nope/checkout-details`), 404, 'resource_not_found');
    expect((await call(ctx, `/api/virtual-cards/${dash.body.id}/checkout-details`, { cookie: alice.cookie })).status).toBe(200);
  });

  test('a revoked token cannot read the card it made', async () => {
    const b = await connectBrowser(ctx, alice.cookie, 'Soon revoked', '198.51.100.9');
    const made = await createFor(b, body({ balance: '2.00' }));
    expect(made.status).toBe(201);
    expect((await call(ctx, `/api/extension/tokens/${b.id}`, { method: 'DELETE', cookie: alice.cookie })).status).toBe(200);
    expectError(await extensionCall(ctx, b.token, `${EB}/${made.body.id}/checkout-details`), 401, 'extension_token_invalid');
  });
});
