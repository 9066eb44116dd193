// Stripe Issuing's webhook (POST /api/stripe/webhook): signature refusal and the real-time authorization answer,
// through the real app with the Stripe adapter pointed at the stand-in (test-support/stripe-stub.ts).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import Stripe from 'stripe';
import { call, interceptVendor, makeTestApp, type TestContext } from '../../../test-support/app';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { startStripeStub, type StripeStub } from '../../../test-support/stripe-stub';
import {
  authorizationRequest,
  issuingWorld,
  makeStripeApp,
  newBcard,
  postWebhook,
  sendEvent,
  settled,
  signature,
  stripeEvent,
  stripeId,
  STUB_SECRET_KEY,
  type AuthorizationInput,
  type IssuingWorld,
  type TestBcard,
} from '../../../test-support/modules/stripe-issuing';
import { addCard, makePremium, registerUser } from '../../../test-support/world';
import { EnvError, parseEnv } from '../../env';

let stub: StripeStub;
let ctx: TestContext;
let w: IssuingWorld;
/** While set, every call bpay makes to Stripe waits for it (and is counted): what an answer must not wait for. */
let gate: Promise<void> | null = null;
const heldCalls: string[] = [];

beforeAll(async () => {
  stub = startStripeStub({ secretKey: STUB_SECRET_KEY });
  ctx = await makeStripeApp(stub, {
    wrapStripe: (v) =>
      interceptVendor(v, async (method, _args, run) => {
        if (gate) {
          heldCalls.push(method);
          await gate;
        }
        return run();
      }),
  });
  w = await issuingWorld(ctx);
});
afterAll(async () => {
  ctx.close();
  await stub.stop();
});

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const bcardRow = async (id: string) => (await q('SELECT status, spent_cents, limit_cents, locked_domain, bad_auth_attempts FROM bcards WHERE id = ?', [id]))[0]!;
const request = (input: AuthorizationInput) => sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', authorizationRequest(input)));
const noViolations = async () => expect(moneyViolations(await moneyReport(ctx))).toEqual([]);

describe('signature', () => {
  let bcard: TestBcard;
  beforeAll(async () => {
    bcard = await newBcard(ctx, w);
  });

  const body = () => JSON.stringify(stripeEvent(ctx, 'issuing_authorization.request', authorizationRequest({ cardId: bcard.cardId, amount: 2000 })));
  const now = () => Math.floor(ctx.clock.now().getTime() / 1000);

  const CASES: Array<{ name: string; send: () => Promise<{ status: number; body: any }> }> = [
    { name: 'no Stripe-Signature header', send: () => postWebhook(ctx, body(), { 'stripe-signature': null }) },
    { name: 'an empty Stripe-Signature header', send: () => postWebhook(ctx, body(), { 'stripe-signature': '' }) },
    { name: 'a header that is not a signature', send: () => postWebhook(ctx, body(), { 'stripe-signature': 'sha256=abc' }) },
    {
      name: 'signed with another secret',
      send: async () => {
        const b = body();
        return postWebhook(ctx, b, { 'stripe-signature': await signature(ctx, b, { secret: 'whsec_someoneElse0001' }) });
      },
    },
    {
      name: 'a body changed after signing (the amount)',
      send: async () => {
        const b = body();
        const sig = await signature(ctx, b);
        const changed = b.replace('"amount":2000', '"amount":1');
        expect(changed).not.toBe(b);
        return postWebhook(ctx, changed, { 'stripe-signature': sig });
      },
    },
    {
      name: 'a body changed after signing (one space)',
      send: async () => {
        const b = body();
        return postWebhook(ctx, `${b} `, { 'stripe-signature': await signature(ctx, b) });
      },
    },
    {
      name: 'signed more than 5 minutes ago (a replay)',
      send: async () => {
        const b = body();
        return postWebhook(ctx, b, { 'stripe-signature': await signature(ctx, b, { timestamp: now() - 301 }) });
      },
    },
    {
      name: 'a header whose v1 is replaced by another timestamp of the same body',
      send: async () => {
        const b = body();
        const old = await signature(ctx, b, { timestamp: now() - 3600 });
        const v1 = old.split(',').find((p) => p.startsWith('v1='))!;
        return postWebhook(ctx, b, { 'stripe-signature': `t=${now()},${v1}` });
      },
    },
  ];

  for (const c of CASES) {
    test(`${c.name}: 400 stripe_signature_invalid, nothing applied`, async () => {
      const before = await q('SELECT count(*) AS n FROM issuer_authorizations');
      const res = await c.send();
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'stripe_signature_invalid' });
      expect(await q('SELECT count(*) AS n FROM issuer_authorizations')).toEqual(before);
      expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    });
  }

  test('signed 4 minutes ago: still within Stripe’s tolerance, answered', async () => {
    const b = JSON.stringify(stripeEvent(ctx, 'ping', {}));
    const res = await postWebhook(ctx, b, { 'stripe-signature': await signature(ctx, b, { timestamp: now() - 240 }) });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
  });

  test('a signed body that is not an event: 400, nothing applied', async () => {
    for (const b of ['[1,2]', '{"id":"evt_1"}', 'not json']) {
      const res = await postWebhook(ctx, b);
      expect(res.status).toBe(400);
    }
  });

  test('a signed event of another shape is a 400 naming the field, never a 500, and changes nothing', async () => {
    const base = authorizationRequest({ cardId: stripeId('ic'), amount: 1000 });
    const cases: Array<[string, Record<string, unknown>]> = [
      ['issuing_authorization.updated', { ...base, request_history: {} }],
      ['issuing_authorization.updated', { ...base, status: 'closed', transactions: {} }],
      ['issuing_authorization.request', { ...base, pending_request: null, amount: undefined }],
      ['issuing_authorization.request', { ...base, pending_request: { amount: 1000, currency: 5 } }],
      ['issuing_authorization.request', { ...base, pending_request: { amount: 1000.5, currency: 'usd' } }],
      ['issuing_transaction.created', { id: stripeId('ipi'), amount: '700', type: 'capture' }],
    ];
    for (const [type, object] of cases) {
      const res = await sendEvent(ctx, stripeEvent(ctx, type, object));
      expect({ type, status: res.status, code: res.body?.error?.code }).toEqual({ type, status: 400, code: 'validation_error' });
      expect(res.body.error.message).toContain('malformed');
    }
  });

  test('a body over 64 KB is refused with 413 in the error shape before it is verified', async () => {
    const event = stripeEvent(ctx, 'issuing_authorization.request', { ...authorizationRequest({ cardId: bcard.cardId, amount: 100 }), padding: 'x'.repeat(70 * 1024) });
    const res = await sendEvent(ctx, event);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 413, code: 'payload_too_large' });
  });

  test('another media type is refused (415); application/json with a charset is what Stripe sends', async () => {
    const b = JSON.stringify(stripeEvent(ctx, 'ping', {}));
    const plain = await postWebhook(ctx, b, { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    const json = await postWebhook(ctx, b, { 'content-type': 'application/json' });
    expect(json.status).toBe(200);
  });

  test('an install without a signing secret has no webhook: 404 stripe_webhook_not_configured', async () => {
    const bare = await makeStripeApp(stub, { webhookSecret: null });
    try {
      const res = await sendEvent(bare, stripeEvent(bare, 'ping', {}));
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 404, code: 'stripe_webhook_not_configured' });
    } finally {
      bare.close();
    }
  });

  test('the events of other types are acknowledged and ignored', async () => {
    const res = await sendEvent(ctx, stripeEvent(ctx, 'customer.created', { id: 'cus_1', object: 'customer' }));
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
  });
});

describe('configuration', () => {
  const SESSION = 'a-session-secret-of-at-least-32-characters';
  test('BPAY_STRIPE_WEBHOOK_SECRET: a whsec_ secret, or none (null); anything else names the variable', () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SESSION, BPAY_STRIPE_WEBHOOK_SECRET: 'whsec_abcDEF123' }).stripeWebhookSecret).toBe('whsec_abcDEF123');
    expect(parseEnv({ BPAY_SESSION_SECRET: SESSION }).stripeWebhookSecret).toBeNull();
    for (const bad of ['abc', 'sk_test_123', 'whsec_', 'whsec_abc def']) {
      let caught: unknown;
      try {
        parseEnv({ BPAY_SESSION_SECRET: SESSION, BPAY_STRIPE_WEBHOOK_SECRET: bad });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(EnvError);
      expect((caught as EnvError).problems.join(' ')).toContain('BPAY_STRIPE_WEBHOOK_SECRET');
    }
  });
});

describe('issuing_authorization.request', () => {
  test('approved: the answer Stripe expects, the bcard spent once, the remainder back pro rata, the purchase in Transactions', async () => {
    const bcard = await newBcard(ctx, w);
    const auth = authorizationRequest({ cardId: bcard.cardId, amount: 8000, merchant: { name: 'Blue Bottle Coffee', city: 'Oakland', category: 'eating_places_restaurants' } });
    const res = await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', auth));
    expect(res.status).toBe(200);
    expect(res.headers.get('stripe-version')).toBe(Stripe.API_VERSION);
    expect(res.body).toEqual({ approved: true, metadata: { bpay_authorization: expect.stringMatching(/^iauth_/) } });
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'used', spent_cents: 8000, locked_domain: 'shop.example' });
    const [row] = await q('SELECT id, network, network_ref, decision, amount_cents, merchant_name, merchant_city, merchant_category, merchant_domain FROM issuer_authorizations WHERE bcard_id = ?', [bcard.id]);
    expect({ ...row }).toMatchObject({
      id: res.body.metadata.bpay_authorization,
      network: 'stripe',
      network_ref: auth.id,
      decision: 'approved',
      amount_cents: 8000,
      merchant_name: 'Blue Bottle Coffee',
      merchant_city: 'Oakland',
      merchant_category: 'eating_places_restaurants',
      merchant_domain: 'shop.example',
    });

    expect(await settled(ctx, bcard)).toBe('completed');
    // 20.00 of 100.00 was not spent: back with floor(1.90 × 20 / 100) = 0.38 of the fee, 60/40 (12.228, 8.152 -> 12.23,
    // 8.15), each share refunded at Stripe under its own key.
    const refunds = [...stub.objects.values()].filter((o) => o.object === 'refund' && bcard.shares.some((s) => s.holdId === o.payment_intent));
    expect(bcard.shares.map((s) => refunds.filter((r) => r.payment_intent === s.holdId).reduce((a, r) => a + Number(r.amount), 0))).toEqual([1223, 815]);
    const txs = await call(ctx, '/api/transactions', { cookie: w.cookie });
    const tx = (txs.body as Array<{ id: string; merchant: string; status: string; refunded: string }>).find((t) => t.id === bcard.collectionId);
    expect(tx).toMatchObject({ merchant: 'Blue Bottle Coffee', status: 'completed', refunded: '20.38' });
    await noViolations();

    // Stripe sends the same request again (a retry): the first answer, nothing spent twice.
    const again = await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', auth));
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: res.body });
    expect(await q("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bcard.spent' AND reference_id = ?", [bcard.id])).toEqual([expect.objectContaining({ n: 1 })]);

    // Another authorization on the single-use card: declined.
    const second = await request({ cardId: bcard.cardId, amount: 500 });
    expect(second.body).toEqual({ approved: false, metadata: { bpay_authorization: expect.stringMatching(/^iauth_/), bpay_decline_reason: 'already_used' } });
    expect(await bcardRow(bcard.id)).toMatchObject({ spent_cents: 8000 });
    await noViolations();
  }, 30_000);

  test('the answer waits for no call to Stripe: the remainder is refunded after it', async () => {
    const bcard = await newBcard(ctx, w);
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    heldCalls.length = 0;
    const before = stub.requests.length;
    try {
      const answered = request({ cardId: bcard.cardId, amount: 2500 });
      const res = await Promise.race([answered, Bun.sleep(2000).then(() => null)]);
      // Answered inside Stripe's 2-second window while every call to Stripe was held back: none was awaited.
      expect(res?.body).toMatchObject({ approved: true });
      expect(stub.requests.length).toBe(before);
      expect(await bcardRow(bcard.id)).toMatchObject({ status: 'used', spent_cents: 2500 });
      // The remainder's part started after the answer and waits at the gate: the card's cancellation at Stripe first.
      for (let i = 0; i < 200 && heldCalls.length === 0; i++) await Bun.sleep(10);
      expect(heldCalls[0]).toBe('deactivateCard');
      expect(stub.requests.length).toBe(before);
    } finally {
      gate = null;
      open();
    }
    // Let through, it finishes: 75.00 and floor(1.90 × 75 / 100) = 1.42 of the fee back to the sources.
    expect(await settled(ctx, bcard)).toBe('completed');
    expect((await q('SELECT refunded_cents FROM collections WHERE id = ?', [bcard.collectionId]))[0]).toMatchObject({ refunded_cents: 7642 });
    await noViolations();
  }, 30_000);

  test('two different authorizations of one bcard at once: exactly one is approved', async () => {
    const bcard = await newBcard(ctx, w);
    const answers = await Promise.all(Array.from({ length: 8 }, () => request({ cardId: bcard.cardId, amount: 3000 })));
    const approved = answers.filter((a) => a.body.approved === true);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(approved.length).toBe(1);
    expect(new Set(answers.filter((a) => !a.body.approved).map((a) => a.body.metadata.bpay_decline_reason))).toEqual(new Set(['already_used']));
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'used', spent_cents: 3000 });
    await settled(ctx, bcard);
    await noViolations();
  }, 30_000);

  test('the same authorization sent many times at once: one decision, one spend', async () => {
    const bcard = await newBcard(ctx, w);
    const auth = authorizationRequest({ cardId: bcard.cardId, amount: 4000 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', auth))));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers[0]!.body.approved).toBe(true);
    expect(await q('SELECT count(*) AS n FROM issuer_authorizations WHERE network_ref = ?', [String(auth.id)])).toEqual([expect.objectContaining({ n: 1 })]);
    await settled(ctx, bcard);
    await noViolations();
  }, 30_000);

  test('a wrong CVC or expiry (Stripe’s verification_data) is declined and counted; three close the bcard', async () => {
    const bcard = await newBcard(ctx, w);
    const cvc = await request({ cardId: bcard.cardId, amount: 1000, cvc: 'mismatch' });
    expect(cvc.body).toMatchObject({ approved: false, metadata: { bpay_decline_reason: 'incorrect_cvc' } });
    const expiry = await request({ cardId: bcard.cardId, amount: 1000, expiry: 'mismatch' });
    expect(expiry.body).toMatchObject({ approved: false, metadata: { bpay_decline_reason: 'incorrect_expiry' } });
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0, bad_auth_attempts: 2 });
    // not_provided is not a mismatch: Stripe does not always have the CVC (a card on file).
    const ok = await request({ cardId: bcard.cardId, amount: 1000, cvc: 'not_provided' });
    expect(ok.body.approved).toBe(true);
    await settled(ctx, bcard);

    const other = await newBcard(ctx, w);
    for (let i = 0; i < 3; i++) await request({ cardId: other.cardId, amount: 1000, cvc: 'mismatch' });
    expect(await bcardRow(other.id)).toMatchObject({ status: 'canceled', bad_auth_attempts: 3 });
    const after = await request({ cardId: other.cardId, amount: 1000 });
    expect(after.body.metadata.bpay_decline_reason).toBe('card_inactive');
    await noViolations();
  }, 30_000);

  test('a bcard locked to a site: declined on another site, approved on its own and where Stripe names no site', async () => {
    const bcard = await newBcard(ctx, w);
    await q('UPDATE bcards SET locked_domain = ? WHERE id = ?', ['shop.example', bcard.id]);
    const elsewhere = await request({ cardId: bcard.cardId, amount: 1000, merchant: { url: 'https://evil.example/pay' } });
    expect(elsewhere.body).toMatchObject({ approved: false, metadata: { bpay_decline_reason: 'merchant_mismatch' } });
    // Most card-not-present authorizations carry no merchant URL (Stripe gives it on 3-D Secure requests): the lock
    // can only hold where the network names the site (docs/DECISIONS.md).
    const unnamed = await newBcard(ctx, w);
    await q('UPDATE bcards SET locked_domain = ? WHERE id = ?', ['shop.example', unnamed.id]);
    const noUrl = await request({ cardId: unnamed.cardId, amount: 1000, merchant: { url: null } });
    expect(noUrl.body.approved).toBe(true);
    await settled(ctx, unnamed);
    const there = await request({ cardId: bcard.cardId, amount: 1000, merchant: { url: 'https://checkout.shop.example/cart' } });
    expect(there.body.approved).toBe(true);
    await settled(ctx, bcard);
    await noViolations();
  }, 30_000);

  test('a card that is no bcard is declined as incorrect_number, recorded without a bcard', async () => {
    const res = await request({ cardId: stripeId('ic'), amount: 1000 });
    expect(res.body).toMatchObject({ approved: false, metadata: { bpay_decline_reason: 'incorrect_number' } });
    const [row] = await q('SELECT bcard_id, decision FROM issuer_authorizations WHERE id = ?', [res.body.metadata.bpay_authorization]);
    expect({ ...row }).toMatchObject({ bcard_id: null, decision: 'declined' });
  });

  test("the network's merchant text is kept as bpay shows text: no control or bidirectional-override character", async () => {
    const res = await request({ cardId: stripeId('ic'), amount: 1000, merchant: { name: 'Shop\u202Egnp.exe', city: null } });
    const [row] = await q('SELECT merchant_name, merchant_city FROM issuer_authorizations WHERE id = ?', [res.body.metadata.bpay_authorization]);
    expect({ ...row }).toMatchObject({ merchant_name: 'Shop\\u202Egnp.exe', merchant_city: null });
  });

  test('an increment of an approved authorization is declined: the bcard was spent once', async () => {
    const bcard = await newBcard(ctx, w);
    const auth = authorizationRequest({ cardId: bcard.cardId, amount: 5000 });
    const first = await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', auth));
    expect(first.body.approved).toBe(true);
    // The merchant asks for 10.00 more on the same authorization (Stripe's incremental authorization).
    const increment = {
      ...auth,
      amount: 5000,
      approved: true,
      pending_request: { ...(auth.pending_request as object), amount: 1000 },
      request_history: [{ amount: 5000, approved: true, reason: 'webhook_approved', currency: 'usd', merchant_amount: 5000, merchant_currency: 'usd', created: 0 }],
    };
    const more = await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', increment));
    expect(more.body).toEqual({ approved: false, metadata: { bpay_authorization: first.body.metadata.bpay_authorization, bpay_decline_reason: 'insufficient_funds' } });
    expect(await bcardRow(bcard.id)).toMatchObject({ spent_cents: 5000 });
    await settled(ctx, bcard);
  }, 30_000);
});

/*
 * The simulated network and Stripe's webhook reach the same decision in the same situation: one bcard per case and
 * path, in a simulated install (its network endpoint, card details as a shop's form sends them) and a Stripe install
 * (the authorization request event, with Stripe's verification of the CVC and expiry).
 */
describe('the simulated network and the Stripe webhook decide alike', () => {
  let sim: TestContext;
  let simWorld: IssuingWorld;
  beforeAll(async () => {
    sim = await makeTestApp();
    const u = await registerUser(sim);
    await makePremium(sim, u.user.id);
    const a = await addCard(sim, u.cookie, '4242424242424242');
    const b = await addCard(sim, u.cookie, '5555555555554444');
    simWorld = { cookie: u.cookie, userId: u.user.id, sources: [a.id, b.id] };
  });
  afterAll(() => sim.close());

  interface Case {
    name: string;
    amount?: number;
    currency?: string;
    cvc?: 'wrong';
    expiry?: 'wrong';
    /** The site the bcard is locked to before the charge. */
    lock?: string;
    before?: 'cancel' | 'spend' | 'expire';
    unknownCard?: true;
    expect: string;
  }
  const CASES: Case[] = [
    { name: 'an active bcard within its amount', expect: 'approved' },
    { name: 'its whole amount', amount: 10_000, expect: 'approved' },
    { name: 'a cent above its amount', amount: 10_001, expect: 'insufficient_funds' },
    { name: 'a wrong CVC', cvc: 'wrong', expect: 'incorrect_cvc' },
    { name: 'a wrong expiry', expiry: 'wrong', expect: 'incorrect_expiry' },
    { name: 'a wrong CVC and expiry', cvc: 'wrong', expiry: 'wrong', expect: 'incorrect_expiry' },
    { name: 'euros', currency: 'eur', expect: 'currency_mismatch' },
    { name: 'locked to another site', lock: 'other-shop.example', expect: 'merchant_mismatch' },
    { name: 'locked to this site', lock: 'shop.example', expect: 'approved' },
    { name: 'canceled', before: 'cancel', expect: 'card_inactive' },
    { name: 'already used', before: 'spend', expect: 'already_used' },
    { name: 'its session over', before: 'expire', expect: 'expired' },
    { name: 'a card that is no bcard', unknownCard: true, expect: 'incorrect_number' },
  ];
  const MERCHANT = { name: 'Example Shop', url: 'https://www.shop.example/checkout', city: 'San Francisco', category: 'computer_software_stores' };

  async function prepare(
    app: TestContext,
    world: IssuingWorld,
    c: Case,
    charge: (b: TestBcard, amount: number) => Promise<string>,
    created: (b: TestBcard) => Promise<void> = async () => undefined,
  ) {
    const bcard = await newBcard(app, world);
    await created(bcard);
    if (c.lock) await app.handle.client.execute({ sql: 'UPDATE bcards SET locked_domain = ? WHERE id = ?', args: [c.lock, bcard.id] });
    if (c.before === 'cancel') {
      const res = await call(app, `/api/virtual-cards/${bcard.id}/cancel`, { method: 'POST', cookie: world.cookie });
      if (res.status !== 200) throw new Error(`cancel failed: ${res.status} ${res.text}`);
    }
    if (c.before === 'spend' && (await charge(bcard, 1000)) !== 'approved') throw new Error('the first charge was not approved');
    if (c.before === 'expire') {
      await app.handle.client.execute({ sql: 'UPDATE bcards SET expires_at = ? WHERE id = ?', args: [app.clock.now().getTime() - 1, bcard.id] });
    }
    return bcard;
  }

  async function throughSimulator(c: Case): Promise<string> {
    // The card's details as the shop's form got them while the bcard was active (read once, before a cancel or a spend).
    const shown = new Map<string, { cardNumber: string; expiryMonth: number; expiryYear: number; cvv: string }>();
    const read = async (b: TestBcard) => {
      const res = await call(sim, `/api/virtual-cards/${b.id}/checkout-details`, { cookie: simWorld.cookie });
      if (res.status !== 200) throw new Error(`checkout details: ${res.status} ${res.text}`);
      shown.set(b.id, res.body);
    };
    const charge = async (b: TestBcard, amount: number, cc: Partial<Case> = {}) => {
      const d = shown.get(b.id)!;
      const res = await call(sim, '/api/simulator/authorizations', {
        method: 'POST',
        origin: null,
        body: {
          card_number: cc.unknownCard ? '4000056655665556' : d.cardNumber,
          exp_month: d.expiryMonth,
          exp_year: cc.expiry ? d.expiryYear + 1 : d.expiryYear,
          cvc: cc.cvc ? (d.cvv === '999' ? '998' : '999') : d.cvv,
          amount,
          currency: cc.currency ?? 'usd',
          merchant: MERCHANT,
        },
      });
      if (res.status === 201) return 'approved';
      if (res.status !== 402) throw new Error(`simulator: ${res.status} ${res.text}`);
      return String(res.body.error.decline_code);
    };
    const bcard = await prepare(sim, simWorld, c, (b, a) => charge(b, a), read);
    return charge(bcard, c.amount ?? 2500, c);
  }

  async function throughStripe(c: Case): Promise<string> {
    const charge = async (b: TestBcard, amount: number, cc: Partial<Case> = {}) => {
      const res = await request({
        cardId: cc.unknownCard ? stripeId('ic') : b.cardId,
        amount,
        currency: cc.currency ?? 'usd',
        cvc: cc.cvc ? 'mismatch' : 'match',
        expiry: cc.expiry ? 'mismatch' : 'match',
        merchant: MERCHANT,
      });
      if (res.status !== 200) throw new Error(`webhook: ${res.status} ${res.text}`);
      return res.body.approved ? 'approved' : String(res.body.metadata.bpay_decline_reason);
    };
    const bcard = await prepare(ctx, w, c, (b, a) => charge(b, a));
    return charge(bcard, c.amount ?? 2500, c);
  }

  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const [simulated, stripe] = [await throughSimulator(c), await throughStripe(c)];
    expect({ simulated, stripe }).toEqual({ simulated: c.expect, stripe: c.expect });
  }, 30_000);

  test('after the table, both ledgers sum to zero', async () => {
    for (const app of [sim, ctx]) {
      const r = await moneyReport(app);
      expect({ total: r.ledgerTotal, bad: r.badMovements }).toEqual({ total: 0, bad: [] });
    }
  });
});
