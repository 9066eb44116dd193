import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { createIntent, HOUR, newMerchant, nowSeconds, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { webhooks as sdkWebhooks } from '../../../../sdk/src/webhooks';
import { unseal } from '../../lib/crypto';
import { verifySignature } from './signature';
import { deliverDueWebhooks } from './worker';

/*
 * Rolling a webhook signing secret with a grace period (issue 28 §4): while it lasts every delivery's Bpay-Signature
 * and Stripe-Signature carry two v1= values (the new secret's first), so a receiver holding either secret verifies it
 * (bpay's verifier, the SDK's, stripe-node's constructEvent); after it, only the new secret signs.
 */

const stripe = new Stripe('sk_test_unused');

/** A receiver on a real port that keeps each request's raw body and both signature headers, and answers 200. */
function receiver() {
  const got: Array<{ body: string; bpay: string; stripe: string }> = [];
  const srv = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      got.push({ body: await req.text(), bpay: req.headers.get('bpay-signature') ?? '', stripe: req.headers.get('stripe-signature') ?? '' });
      return new Response('ok');
    },
  });
  return { got, url: `http://127.0.0.1:${srv.port}/hooks`, stop: () => srv.stop(true) };
}

let ctx: TestContext;
let m: Merchant;
let hooks: ReturnType<typeof receiver>;
beforeAll(async () => {
  ctx = await makeTestApp();
  const user = await registerUser(ctx);
  m = await newMerchant(ctx, user.cookie, 'sandbox');
  hooks = receiver();
});
afterAll(() => {
  hooks.stop();
  ctx.close();
});

let lastEndpoint: string | null = null;
/** A fresh endpoint at the receiver (the test before's is deleted, so each event is delivered once). */
async function newEndpoint() {
  if (lastEndpoint) expect((await v1(ctx, m.key, `/webhook_endpoints/${lastEndpoint}`, { method: 'DELETE' })).status).toBe(200);
  const ep = await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: { url: hooks.url, enabled_events: ['payment_intent.created'] } });
  expect(ep.status).toBe(200);
  lastEndpoint = ep.body.id;
  return { id: ep.body.id as string, secret: ep.body.secret as string };
}

/** Makes one event, delivers it, and answers the request the receiver got. */
async function deliverOne() {
  const before = hooks.got.length;
  await createIntent(ctx, m, 1500);
  await deliverDueWebhooks(ctx.deps, { limit: 50 });
  expect(hooks.got.length).toBe(before + 1);
  return hooks.got.at(-1)!;
}

/** Whether each verifier accepts this delivery with `secret`: bpay's, the SDK's and stripe-node's, on both headers. */
async function verifiers(d: { body: string; bpay: string; stripe: string }, secret: string) {
  const now = nowSeconds(ctx)();
  const sdk = (header: string) => {
    try {
      // The SDK measures the tolerance on the real clock; the test clock is elsewhere, so the window is wide here.
      return sdkWebhooks.constructEvent(d.body, header, secret, 400 * 24 * 3600).object === 'event';
    } catch {
      return false;
    }
  };
  const stripeOk = (header: string) =>
    stripe.webhooks.constructEventAsync(d.body, header, secret, 300, undefined, now).then(
      (e) => e.object === 'event',
      () => false,
    );
  return {
    bpay: verifySignature(d.body, d.bpay, secret, 300, now),
    stripeHeaderBpay: verifySignature(d.body, d.stripe, secret, 300, now),
    sdk: sdk(d.bpay),
    stripeNode: await stripeOk(d.stripe),
  };
}
const ALL = { bpay: true, stripeHeaderBpay: true, sdk: true, stripeNode: true };
const NONE = { bpay: false, stripeHeaderBpay: false, sdk: false, stripeNode: false };

const v1Count = (header: string) => header.split(',').filter((p) => p.startsWith('v1=')).length;

describe('roll_secret with expire_old_secret_in', () => {
  test('24h: both secrets verify every delivery (two v1=, the new first) until the grace ends; then only the new one', async () => {
    const ep = await newEndpoint();
    const rolled = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: '24h' } });
    expect(rolled.status).toBe(200);
    const fresh = rolled.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(ep.secret);

    const during = await deliverOne();
    expect(during.stripe).toBe(during.bpay);
    expect(during.bpay).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    // The new secret's signature comes first (as in Stripe's header during a roll).
    const t = Number(/^t=(\d+)/.exec(during.bpay)![1]);
    const [first, second] = during.bpay.split(',').slice(1).map((p) => p.slice(3));
    expect(verifySignature(during.body, `t=${t},v1=${first}`, fresh, 300, t)).toBe(true);
    expect(verifySignature(during.body, `t=${t},v1=${second}`, ep.secret, 300, t)).toBe(true);
    expect(await verifiers(during, fresh)).toEqual(ALL);
    expect(await verifiers(during, ep.secret)).toEqual(ALL);
    expect(await verifiers(during, `whsec_${'x'.repeat(43)}`)).toEqual(NONE);

    // A minute before the end: still two.
    ctx.clock.advance(24 * HOUR - 60_000);
    expect(v1Count((await deliverOne()).bpay)).toBe(2);

    // After it: the new secret alone.
    ctx.clock.advance(61_000);
    const after = await deliverOne();
    expect(v1Count(after.bpay)).toBe(1);
    expect(after.stripe).toBe(after.bpay);
    expect(await verifiers(after, fresh)).toEqual(ALL);
    expect(await verifiers(after, ep.secret)).toEqual(NONE);
  });

  test('1h: the old secret signs for an hour; now (the default, and a roll without a body) stops it at once', async () => {
    const ep = await newEndpoint();
    const hour = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: '1h' } });
    expect(await verifiers(await deliverOne(), ep.secret)).toEqual(ALL);
    ctx.clock.advance(HOUR + 1000);
    expect(await verifiers(await deliverOne(), ep.secret)).toEqual(NONE);
    expect(await verifiers(hooks.got.at(-1)!, hour.body.secret)).toEqual(ALL);

    // A roll with no body at all (as before the grace existed) and one saying now: the old secret stops at once.
    const plain = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST' });
    expect(plain.status).toBe(200);
    let d = await deliverOne();
    expect(v1Count(d.bpay)).toBe(1);
    expect(await verifiers(d, hour.body.secret)).toEqual(NONE);
    expect(await verifiers(d, plain.body.secret)).toEqual(ALL);
    const now = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: 'now' } });
    d = await deliverOne();
    expect(v1Count(d.bpay)).toBe(1);
    expect(await verifiers(d, now.body.secret)).toEqual(ALL);
  });

  test('a roll during a grace replaces the previous secret: the one before stops at once', async () => {
    const ep = await newEndpoint();
    const a = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: '24h' } });
    const b = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: '24h' } });
    const d = await deliverOne();
    expect(v1Count(d.bpay)).toBe(2);
    expect(await verifiers(d, b.body.secret)).toEqual(ALL);
    expect(await verifiers(d, a.body.secret)).toEqual(ALL);
    expect(await verifiers(d, ep.secret)).toEqual(NONE);
  });

  test('parallel rolls serialize: the endpoint ends with the secrets of two of them (the last and the one before), both sealed', async () => {
    const ep = await newEndpoint();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: '1h' } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    const shown = answers.map((a) => a.body.secret as string);
    expect(new Set(shown).size).toBe(6);
    const [row] = await ctx.handle.db.select().from(schema.webhookEndpoints).where(eq(schema.webhookEndpoints.id, ep.id));
    // Stored sealed, never in the clear.
    expect(row!.secretSealed).not.toContain('whsec_');
    expect(row!.previousSecretSealed).not.toContain('whsec_');
    const current = unseal(ctx.deps.webhookKey, row!.secretSealed);
    const previous = unseal(ctx.deps.webhookKey, row!.previousSecretSealed!);
    // Each roll moved the secret the roll before it made: both are secrets an answer showed (never the original).
    expect(shown).toContain(current);
    expect(shown).toContain(previous);
    expect(previous).not.toBe(current);
    const d = await deliverOne();
    expect(await verifiers(d, current)).toEqual(ALL);
    expect(await verifiers(d, previous)).toEqual(ALL);
    for (const other of shown.filter((s) => s !== current && s !== previous)) expect(await verifiers(d, other)).toEqual(NONE);
    expect(await verifiers(d, ep.secret)).toEqual(NONE);
  });

  test('a grace other than now, 1h or 24h is refused naming the parameter, and nothing changes', async () => {
    const ep = await newEndpoint();
    const bad = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: '7d' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('expire_old_secret_in');
    const d = await deliverOne();
    expect(v1Count(d.bpay)).toBe(1);
    expect(await verifiers(d, ep.secret)).toEqual(ALL);
  });

  test("the dashboard's roll takes the same grace", async () => {
    const ep = await newEndpoint();
    const rolled = await call(ctx, `/api/merchants/${m.id}/webhook_endpoints/${ep.id}/roll_secret`, {
      method: 'POST',
      cookie: m.cookie,
      body: { expire_old_secret_in: '24h' },
    });
    expect(rolled.status).toBe(200);
    const d = await deliverOne();
    expect(await verifiers(d, rolled.body.secret)).toEqual(ALL);
    expect(await verifiers(d, ep.secret)).toEqual(ALL);
  });
});
