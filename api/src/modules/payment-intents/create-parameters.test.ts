import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { desc, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { bcardCard, testBcardCard, merchantWorld, type MerchantWorld } from '../../../test-support/world';
import { resetRateWindows } from '../merchants/usage';
import { descriptorPrefix, shownDescriptor } from './parameters';
import { recoverStuckIntents } from './sweep';
import { IDEMPOTENCY_LOCK_MS } from '../../plugins/idempotency';

/*
 * The create parameters from Stripe's quickstarts (issue 28 §1): confirm: true with a payment method, automatic
 * payment methods, payment_method_types, receipt_email, the statement descriptors (shown on the consumer's
 * transaction) and customer. Every refusal names its parameter and leaves nothing made.
 */

let ctx: TestContext;
let world: MerchantWorld;
let sk: string;
let otherSk: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  world = await merchantWorld(ctx);
  sk = world.sandbox.secretKey;
  otherSk = world.live.secretKey;
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const create = (body: Record<string, unknown>, key = sk, headers: Record<string, string> = {}) =>
  merchantCall(ctx, key, '/payment_intents', { method: 'POST', body, headers });
const intentCount = async () => (await ctx.deps.db.select().from(schema.paymentIntents)).length;

describe('each parameter refused by name, nothing created', () => {
  const base = { amount: 2000, currency: 'usd' };
  const cases: Array<{ name: string; body: Record<string, unknown>; param: string; message?: RegExp }> = [
    { name: 'a payment method type other than bcard/card', body: { payment_method_types: ['card', 'us_bank_account'] }, param: 'payment_method_types[1]', message: /only bcard \(or card/ },
    { name: 'an empty payment_method_types', body: { payment_method_types: [] }, param: 'payment_method_types' },
    { name: 'payment_method_types beside automatic_payment_methods enabled', body: { payment_method_types: ['card'], automatic_payment_methods: { enabled: true } }, param: 'payment_method_types' },
    { name: 'automatic_payment_methods[enabled] not a boolean', body: { automatic_payment_methods: { enabled: 'yes' } }, param: 'automatic_payment_methods.enabled' },
    { name: 'automatic_payment_methods without enabled', body: { automatic_payment_methods: {} }, param: 'automatic_payment_methods.enabled' },
    { name: 'receipt_email not an address', body: { receipt_email: 'jenny at example' }, param: 'receipt_email', message: /e-mail address/ },
    { name: 'statement_descriptor over 22', body: { statement_descriptor: 'A'.repeat(23) }, param: 'statement_descriptor' },
    { name: 'statement_descriptor under 5', body: { statement_descriptor: 'ABCD' }, param: 'statement_descriptor' },
    { name: 'statement_descriptor without a letter', body: { statement_descriptor: '123456' }, param: 'statement_descriptor', message: /at least one letter/ },
    ...['<', '>', '\\', "'", '"', '*'].map((c) => ({ name: `statement_descriptor with ${c}`, body: { statement_descriptor: `ACME ${c} SHOP` }, param: 'statement_descriptor' })),
    { name: 'statement_descriptor not Latin', body: { statement_descriptor: 'متجر أكمي' }, param: 'statement_descriptor' },
    { name: 'statement_descriptor_suffix over 22', body: { statement_descriptor_suffix: 'B'.repeat(23) }, param: 'statement_descriptor_suffix' },
    { name: 'statement_descriptor_suffix without a letter', body: { statement_descriptor_suffix: '42' }, param: 'statement_descriptor_suffix' },
    { name: 'statement_descriptor_suffix with *', body: { statement_descriptor_suffix: 'ORDER*42' }, param: 'statement_descriptor_suffix' },
    { name: 'both descriptors', body: { statement_descriptor: 'ACME SHOP', statement_descriptor_suffix: 'ORDER 42' }, param: 'statement_descriptor_suffix' },
    { name: 'a customer that does not exist', body: { customer: 'cus_nothing' }, param: 'customer', message: /No such customer/ },
    { name: 'payment_method without confirm', body: { payment_method: 'bc_x' }, param: 'payment_method', message: /only with confirm: true/ },
    { name: 'confirm: true without a payment method', body: { confirm: true }, param: 'payment_method' },
    { name: 'confirm: true with a bcard id that is not this merchant\'s', body: { confirm: true, payment_method: 'bc_nothing' }, param: 'payment_method', message: /No such payment method/ },
    { name: 'a Stripe parameter bpay does not take: setup_future_usage', body: { setup_future_usage: 'off_session' }, param: 'setup_future_usage', message: /not supported by bpay: bcards are single-use/ },
    { name: 'a Stripe parameter bpay does not take: application_fee_amount', body: { application_fee_amount: 100 }, param: 'application_fee_amount', message: /no Connect/ },
    { name: 'a Stripe parameter bpay does not take: shipping', body: { shipping: { name: 'J' } }, param: 'shipping', message: /not supported by bpay/ },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const before = await intentCount();
      const res = await create({ ...base, ...c.body });
      expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ status: 400, code: res.body.error?.code, param: c.param });
      expect(['validation_error', 'parameter_invalid', 'parameter_missing', 'parameter_unknown']).toContain(res.body.error.code);
      if (c.message) expect(res.body.error.message).toMatch(c.message);
      expect(await intentCount()).toBe(before);
    });
  }

  test("another merchant's customer is refused by name", async () => {
    const theirs = await merchantCall(ctx, otherSk, '/customers', { method: 'POST', body: { email: 'a@example.com' } });
    expect(theirs.status).toBe(200);
    const res = await create({ ...base, customer: theirs.body.id });
    expect({ status: res.status, param: res.body.error.param }).toEqual({ status: 400, param: 'customer' });
  });

  test('a deleted customer is refused by name', async () => {
    const mine = await merchantCall(ctx, sk, '/customers', { method: 'POST', body: { email: 'gone@example.com' } });
    await merchantCall(ctx, sk, `/customers/${mine.body.id}`, { method: 'DELETE' });
    const res = await create({ ...base, customer: mine.body.id });
    expect({ status: res.status, param: res.body.error.param }).toEqual({ status: 400, param: 'customer' });
  });
});

describe('accepted, kept and answered', () => {
  test('every parameter is reflected on the intent, on create and retrieve', async () => {
    const cus = await merchantCall(ctx, sk, '/customers', { method: 'POST', body: { email: 'jenny@example.com', name: 'Jenny Rosen' } });
    const res = await create({
      amount: 2000,
      currency: 'usd',
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      receipt_email: 'jenny@example.com',
      statement_descriptor_suffix: 'ORDER 42',
      customer: cus.body.id,
      return_url: 'https://shop.example/done',
    });
    expect(res.status).toBe(200);
    const shape = {
      status: 'requires_payment_method',
      automatic_payment_methods: { enabled: true },
      payment_method_types: ['bcard'],
      receipt_email: 'jenny@example.com',
      statement_descriptor: null,
      statement_descriptor_suffix: 'ORDER 42',
      customer: cus.body.id,
    };
    expect(res.body).toMatchObject(shape);
    expect((await merchantCall(ctx, sk, `/payment_intents/${res.body.id}`)).body).toMatchObject(shape);
  });

  test('payment_method_types [card] and [bcard] are taken; automatic_payment_methods false is reflected; nothing sent is null', async () => {
    for (const types of [['card'], ['bcard'], ['bcard', 'card']]) expect((await create({ amount: 2000, currency: 'usd', payment_method_types: types })).status).toBe(200);
    expect((await create({ amount: 2000, currency: 'usd', automatic_payment_methods: { enabled: false } })).body.automatic_payment_methods).toEqual({ enabled: false });
    const plain = (await create({ amount: 2000, currency: 'usd' })).body;
    expect(plain).toMatchObject({ automatic_payment_methods: null, customer: null, receipt_email: null, statement_descriptor: null, statement_descriptor_suffix: null });
  });
});

describe('customer "" on create', () => {
  test('means no customer (as Stripe takes the "" its libraries send for an unset parameter), through JSON and form bodies', async () => {
    const json = await create({ amount: 2000, currency: 'usd', customer: '' });
    expect({ status: json.status, customer: json.body.customer }).toEqual({ status: 200, customer: null });
    const form = await merchantCall(ctx, sk, '/payment_intents', { method: 'POST', rawBody: 'amount=2000&currency=usd&customer=', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect({ status: form.status, customer: form.body.customer }).toEqual({ status: 200, customer: null });
    // A customer that is not one still is refused by name.
    const nobody = await create({ amount: 2000, currency: 'usd', customer: ' ' });
    expect({ status: nobody.status, param: nobody.body.error?.param }).toEqual({ status: 400, param: 'customer' });
  });
});

describe('update takes them too', () => {
  const update = (id: string, body: Record<string, unknown>) => merchantCall(ctx, sk, `/payment_intents/${id}`, { method: 'POST', body });

  test('customer, receipt_email and a descriptor are set, then cleared with ""', async () => {
    const cus = await merchantCall(ctx, sk, '/customers', { method: 'POST', body: { name: 'Up' } });
    const made = (await create({ amount: 2000, currency: 'usd' })).body;
    const up = await update(made.id, { customer: cus.body.id, receipt_email: 'r@example.com', statement_descriptor_suffix: 'ORDER 7' });
    expect(up.body).toMatchObject({ customer: cus.body.id, receipt_email: 'r@example.com', statement_descriptor_suffix: 'ORDER 7' });
    // Switching to a whole descriptor needs the suffix removed in the same update.
    const both = await update(made.id, { statement_descriptor: 'ACME SHOP' });
    expect({ status: both.status, param: both.body.error.param }).toEqual({ status: 400, param: 'statement_descriptor' });
    const switched = await update(made.id, { statement_descriptor: 'ACME SHOP', statement_descriptor_suffix: '' });
    expect(switched.body).toMatchObject({ statement_descriptor: 'ACME SHOP', statement_descriptor_suffix: null });
    const cleared = await update(made.id, { receipt_email: '', statement_descriptor: '' });
    expect(cleared.body).toMatchObject({ receipt_email: null, statement_descriptor: null });
    // customer too, as README says ("" removes one; hostile review 28-H: it was a 400 "No such customer: ''").
    const unnamed = await update(made.id, { customer: '' });
    expect({ status: unnamed.status, customer: unnamed.body.customer }).toEqual({ status: 200, customer: null });
  });

  test('refused by name, nothing changed', async () => {
    const made = (await create({ amount: 2000, currency: 'usd', receipt_email: 'keep@example.com' })).body;
    for (const [body, param] of [
      [{ customer: 'cus_nothing' }, 'customer'],
      [{ receipt_email: 'nope' }, 'receipt_email'],
      [{ statement_descriptor: '1234567' }, 'statement_descriptor'],
      [{ statement_descriptor_suffix: 'A*B' }, 'statement_descriptor_suffix'],
    ] as const) {
      const res = await update(made.id, body);
      expect({ status: res.status, param: res.body.error.param }).toEqual({ status: 400, param });
    }
    expect((await merchantCall(ctx, sk, `/payment_intents/${made.id}`)).body).toMatchObject({ receipt_email: 'keep@example.com', customer: null, statement_descriptor: null });
  });
});

describe('confirm: true creates and pays in one call', () => {
  test('with a sandbox bcard id: succeeded, created and succeeded events', async () => {
    const bcard = await testBcardCard(ctx, sk, 2000);
    const res = await create({ amount: 2000, currency: 'usd', automatic_payment_methods: { enabled: true }, confirm: true, payment_method: bcard.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', amount_received: 2000, payment_method: bcard.id });
    const events = await ctx.deps.db.select().from(schema.events);
    const types = events.filter((e) => (e.data as { id?: string }).id === res.body.id).map((e) => e.type);
    expect(types.sort()).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
  });

  test('with payment_method_data.card and capture_method manual: requires_capture', async () => {
    const { card } = await testBcardCard(ctx, sk, 2000);
    const res = await create({ amount: 2000, currency: 'usd', capture_method: 'manual', confirm: true, payment_method_data: { type: 'card', card } });
    expect(res.body.status).toBe('requires_capture');
  });

  test('a decline answers as confirm does (402 card_error with decline_code) and the intent stays, failed', async () => {
    const bcard = await testBcardCard(ctx, sk, 1000);
    const res = await create({ amount: 2000, currency: 'usd', confirm: true, payment_method: bcard.id });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'card_error', decline_code: 'insufficient_funds', param: 'payment_method', payment_intent: { status: 'requires_payment_method' } });
    const id = res.body.error.payment_intent.id as string;
    const after = await merchantCall(ctx, sk, `/payment_intents/${id}`);
    expect(after.body).toMatchObject({ status: 'requires_payment_method', last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' } });
    // Confirming it again with a bcard that holds enough succeeds, as with Stripe.
    const enough = await testBcardCard(ctx, sk, 2000);
    expect((await merchantCall(ctx, sk, `/payment_intents/${id}/confirm`, { method: 'POST', body: { payment_method: enough.id } })).body.status).toBe('succeeded');
  });

  test('an Idempotency-Key replays the first answer: one intent, paid once (the decline too)', async () => {
    const bcard = await testBcardCard(ctx, sk, 2000);
    const body = { amount: 2000, currency: 'usd', confirm: true, payment_method: bcard.id };
    const headers = { 'idempotency-key': `cc-${crypto.randomUUID()}` };
    const before = await intentCount();
    const first = await create(body, sk, headers);
    const again = await create(body, sk, headers);
    expect(first.body.status).toBe('succeeded');
    expect(again.body.id).toBe(first.body.id);
    expect(await intentCount()).toBe(before + 1);

    const small = await testBcardCard(ctx, sk, 100);
    const declineKey = { 'idempotency-key': `cc-${crypto.randomUUID()}` };
    const d1 = await create({ ...body, payment_method: small.id }, sk, declineKey);
    const d2 = await create({ ...body, payment_method: small.id }, sk, declineKey);
    expect(d1.status).toBe(402);
    expect({ ...d2.body.error, request_id: undefined }).toEqual({ ...d1.body.error, request_id: undefined });
    expect(await intentCount()).toBe(before + 2);
  });
});

describe('a retry after the first attempt died mid-payment (hostile review 28-H)', () => {
  test('finding the intent still processing, the retry is told to retry (409, nothing remembered), then pays it once', async () => {
    const t = await testBcardCard(ctx, sk, 2000);
    const body = { amount: 2000, currency: 'usd', confirm: true, payment_method_data: { type: 'card', card: t.card } };
    const headers = { 'idempotency-key': `crash-${crypto.randomUUID()}` };
    // The first attempt fails unexpectedly inside the confirm: its key stays in progress, for a retry to take over.
    const vendor = ctx.deps.vendor as { checkIssuedCard?: (...a: never[]) => Promise<unknown> };
    const real = vendor.checkIssuedCard!;
    vendor.checkIssuedCard = async () => {
      throw new Error('the process died here');
    };
    const before = await intentCount();
    try {
      expect((await create(body, sk, headers)).status).toBe(500);
    } finally {
      vendor.checkIssuedCard = real;
    }
    expect(await intentCount()).toBe(before + 1);
    // As a process that died after claiming the intent leaves it: processing, until the money sweep gives it back.
    const pi = schema.paymentIntents;
    const [made] = await ctx.deps.db.select().from(pi).where(eq(pi.merchantId, world.sandbox.id)).orderBy(desc(pi.seq)).limit(1);
    expect(made!.status).toBe('requires_payment_method');
    await ctx.deps.db.update(schema.paymentIntents).set({ status: 'processing' }).where(eq(schema.paymentIntents.id, made!.id));

    const early = await create(body, sk, headers);
    expect({ status: early.status, code: early.body.error?.code, retry: early.headers.get('stripe-should-retry') }).toEqual({
      status: 409,
      code: 'idempotency_key_in_use',
      retry: 'true',
    });
    // The sweep gives the intent back; once the retry's hold on the key runs out, the next retry pays that intent.
    ctx.clock.advance(IDEMPOTENCY_LOCK_MS + 1000);
    expect(await recoverStuckIntents(ctx.deps)).toBeGreaterThanOrEqual(1);
    const paid = await create(body, sk, headers);
    expect({ status: paid.status, id: paid.body.id, state: paid.body.status }).toEqual({ status: 200, id: made!.id, state: 'succeeded' });
    expect(await intentCount()).toBe(before + 1);
    expect((await create(body, sk, headers)).body.status).toBe('succeeded');
  });
});

describe("the consumer's transaction shows the statement descriptor", () => {
  async function paidWith(descriptor: Record<string, string>) {
    const { card } = await bcardCard(ctx, world.consumer.cookie, world.sourceId, '20.00');
    const res = await create({ amount: 2000, currency: 'usd', confirm: true, payment_method_data: { type: 'card', card }, ...descriptor }, world.live.secretKey);
    expect(res.body.status).toBe('succeeded');
    const list = await call(ctx, '/api/transactions?limit=100', { cookie: world.consumer.cookie });
    const bcardRow = await ctx.deps.db.select().from(schema.bcards).where(eq(schema.bcards.id, res.body.payment_method));
    return (list.body as Array<{ id: string; merchant: string }>).find((t) => t.id === bcardRow[0]!.collectionId)?.merchant;
  }

  test('statement_descriptor_suffix: PREFIX* SUFFIX, in capitals (prefix from the business name)', async () => {
    expect(await paidWith({ statement_descriptor_suffix: 'Order 42' })).toBe('ACME SHOP* ORDER 42');
  });

  test('statement_descriptor that begins with the merchant\'s prefix: the whole descriptor, in capitals', async () => {
    expect(await paidWith({ statement_descriptor: 'Acme Shop Spring' })).toBe('ACME SHOP SPRING');
  });

  test('statement_descriptor naming someone else follows the business name: no merchant passes for another', async () => {
    expect(await paidWith({ statement_descriptor: 'Netflix com' })).toBe('Acme Shop · NETFLIX COM');
    expect(await paidWith({ statement_descriptor: 'Acme Spring Sale' })).toBe('Acme Shop · ACME SPRING SALE');
  });

  test('neither: the business name, as before', async () => {
    expect(await paidWith({})).toBe('Acme Shop');
  });
});

describe('descriptor rules (pure)', () => {
  test('the prefix keeps Latin letters, digits and spaces, up to 10, in capitals; none left is BPAY', () => {
    expect(descriptorPrefix('Acme Shop')).toBe('ACME SHOP');
    expect(descriptorPrefix("Jenny's Flowers & Gifts")).toBe('JENNYS FLO');
    expect(descriptorPrefix('متجر')).toBe('BPAY');
  });
  test('a whole descriptor stands alone only after the merchant\'s own Latin prefix, never as BPAY', () => {
    const intent = (d: string) => ({ statementDescriptor: d, statementDescriptorSuffix: null });
    expect(shownDescriptor('Acme Shop', intent('Acme Shop Spring'))).toBe('ACME SHOP SPRING');
    expect(shownDescriptor('Acme Shop', intent('Netflix com'))).toBe('Acme Shop · NETFLIX COM');
    expect(shownDescriptor('متجر', intent('BPAY REFUND'))).toBe('متجر · BPAY REFUND');
    expect(shownDescriptor('متجر', { statementDescriptor: null, statementDescriptorSuffix: 'Order 7' })).toBe('متجر · ORDER 7');
  });
  test('PREFIX* SUFFIX is cut to 22 characters', () => {
    const shown = shownDescriptor('Acme Shop', { statementDescriptor: null, statementDescriptorSuffix: 'SPRING SALE ORDER 4242' });
    expect(shown).toBe('ACME SHOP* SPRING SALE');
    expect(shown.length).toBeLessThanOrEqual(22);
  });
});
