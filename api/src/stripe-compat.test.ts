/**
 * Stripe's own Node library (the `stripe` package) against bpay's merchant API (issue 15): a merchant with Stripe
 * code switches by pointing host, port and protocol at bpay. The library calls `/v1/...` with form-encoded bodies
 * (`metadata[order]=42`, `payment_method_data[card][number]=…`); bpay serves the same routes there as at `/api/v1/...`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import Stripe from 'stripe';
import { setPeerAddress } from './lib/request-context';
import { signatureHeader } from './modules/webhooks/signature';
import { REQUESTS_PER_SECOND, resetRateWindows } from './modules/merchants/usage';
import { AppError, asMerchantApiError } from './errors';

import { deliverDueWebhooks } from './modules/webhooks/worker';
import { TestClock } from './lib/clock';

/** The test kit's clock reading the real time, which a test can stop (to send a burst at one instant) and restart. */
class RealTimeClock extends TestClock {
  private stoppedAt: number | null = null;
  private shift = 0;
  override now(): Date {
    return new Date(this.stoppedAt ?? Date.now() + this.shift);
  }
  override system(): Date {
    return this.now();
  }
  stop(): void {
    this.stoppedAt = this.now().getTime();
  }
  /** Time runs again, from `ms` after the instant it stopped at. */
  resume(ms: number): void {
    this.shift = this.stoppedAt! + ms - Date.now();
    this.stoppedAt = null;
  }
}
const clock = new RealTimeClock();
import { makeTestApp, merchantCall, type TestContext } from '../test-support/app';
import { createMerchant, registerUser, testBcardCard, type TestMerchant } from '../test-support/world';

let ctx: TestContext;
let server: ReturnType<typeof Bun.serve>;
let merchant: TestMerchant;
let stripe: Stripe;
let base: string;
/** What the server answered, request by request (the library's retries included). */
const answers: Array<{ method: string; path: string; status: number; shouldRetry: string | null }> = [];

beforeAll(async () => {
  // Real time, as a merchant's server meets it: deliveries are signed at it and Stripe's verifier compares with its own
  // clock; the per-second rate limit's window passes while stripe-node waits to retry.
  ctx = await makeTestApp({ clock });
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req, srv) => {
      const ip = srv.requestIP(req);
      if (ip) setPeerAddress(req, ip.address);
      const res = await ctx.app.handle(req);
      answers.push({ method: req.method, path: new URL(req.url).pathname, status: res.status, shouldRetry: res.headers.get('stripe-should-retry') });
      return res;
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  const owner = await registerUser(ctx);
  merchant = await createMerchant(ctx, owner.cookie, 'sandbox');
  stripe = new Stripe(merchant.secretKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 0 });
});
afterAll(async () => {
  await server.stop(true);
  ctx.close();
});
beforeEach(() => resetRateWindows());

/** A sandbox test bcard's details as Stripe's confirm takes raw card data (bpay's sandbox accepts them). */
async function cardData(amount: number) {
  const { card } = await testBcardCard(ctx, merchant.secretKey, amount);
  // Stripe's types allow only tokens here; bpay's confirm takes the card itself (payment_method_data.card).
  return { payment_method_data: { type: 'card', card } } as unknown as Stripe.PaymentIntentConfirmParams;
}

describe('payment intents through stripe-node', () => {
  test('create answers a bpay intent with metadata sent in bracket notation and the amount as an integer', async () => {
    const intent = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', description: 'Order 42', metadata: { order: '42' } });
    expect(intent.id).toStartWith('pi_');
    expect(intent.amount).toBe(2000);
    expect(intent.currency).toBe('usd');
    expect(intent.metadata).toEqual({ order: '42' });
    expect(intent.lastResponse.statusCode).toBe(200);
    expect(intent.lastResponse.requestId).toStartWith('req_');
  });

  test('an Idempotency-Key given to stripe-node replays the first answer', async () => {
    const key = `stripe-compat-${crypto.randomUUID()}`;
    const first = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' }, { idempotencyKey: key });
    const again = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
  });

  test('retrieve answers the same intent', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const got = await stripe.paymentIntents.retrieve(made.id);
    expect(got.id).toBe(made.id);
    expect(got.status).toBe(made.status);
  });

  test('confirm with a sandbox test bcard (card data nested three levels in the form) succeeds', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const confirmed = await stripe.paymentIntents.confirm(made.id, await cardData(2000));
    expect(confirmed.status).toBe('succeeded');
  });

  test('a manual-capture intent confirmed, then captured', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', capture_method: 'manual' });
    const held = await stripe.paymentIntents.confirm(made.id, await cardData(2000));
    expect(held.status).toBe('requires_capture');
    const captured = await stripe.paymentIntents.capture(made.id);
    expect(captured.status).toBe('succeeded');
  });

  test('cancel an open intent', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const canceled = await stripe.paymentIntents.cancel(made.id);
    expect(canceled.status).toBe('canceled');
  });

  test('list auto-pagination walks every intent once, newest first, across pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await stripe.paymentIntents.create({ amount: 1000 + i, currency: 'usd' })).id);
    const seen: string[] = [];
    for await (const intent of stripe.paymentIntents.list({ limit: 2 })) seen.push(intent.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 5)).toEqual(made.toReversed());
    const firstPage = await stripe.paymentIntents.list({ limit: 2 });
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.has_more).toBe(true);
  });

  test('update sets description and merges metadata (a key set to "" removes it), as Stripe does', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', metadata: { order: '42', coupon: 'SPRING' } });
    const updated = await stripe.paymentIntents.update(made.id, { description: 'Order 42 (gift)', metadata: { gift: 'yes', coupon: '' } });
    expect(updated.id).toBe(made.id);
    expect(updated.description).toBe('Order 42 (gift)');
    expect(updated.metadata).toEqual({ order: '42', gift: 'yes' });
    const cleared = await stripe.paymentIntents.update(made.id, { amount: 2600, metadata: '' });
    expect({ amount: cleared.amount, metadata: cleared.metadata }).toEqual({ amount: 2600, metadata: {} });
    expect((await stripe.paymentIntents.retrieve(made.id)).amount).toBe(2600);
  });

  test('update after the intent succeeded: StripeInvalidRequestError payment_intent_unexpected_state, naming the status', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    await stripe.paymentIntents.confirm(made.id, await cardData(2000));
    const error = await stripe.paymentIntents.update(made.id, { description: 'late' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const e = error as Stripe.errors.StripeInvalidRequestError;
    expect(e.code).toBe('payment_intent_unexpected_state');
    expect(e.message).toBe('This PaymentIntent has already succeeded; it can no longer be updated.');
    const again = (await stripe.paymentIntents.confirm(made.id, await cardData(2000)).catch((x: unknown) => x)) as Stripe.errors.StripeInvalidRequestError;
    expect(again.message).toBe('This PaymentIntent has already succeeded; it cannot be confirmed again.');
    expect(again.payment_intent?.status).toBe('succeeded');
  });

  test('list with created[gte] / created[lt] (sent in bracket notation)', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const page = await stripe.paymentIntents.list({ created: { gte: made.created, lt: made.created + 1 }, limit: 100 });
    expect(page.data.map((p) => p.id)).toContain(made.id);
    expect(page.data.every((p) => p.created === made.created)).toBe(true);
    expect((await stripe.paymentIntents.list({ created: { gt: made.created } })).data.map((p) => p.id)).not.toContain(made.id);
  });

  test('Charges (issue 28 §2): latest_charge, expand, charges.retrieve and charges.list({ payment_intent }) unchanged; other expansions refused, saying why', async () => {
    const paid = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    await stripe.paymentIntents.confirm(paid.id, await cardData(2000));
    const intent = await stripe.paymentIntents.retrieve(paid.id, { expand: ['latest_charge'] });
    const expanded = intent.latest_charge as Stripe.Charge & { allocations: Array<{ amount: number; funding: string; last4: string }> };
    expect(expanded).toMatchObject({ object: 'charge', id: `ch_${paid.id.slice(3)}`, amount: 2000, amount_captured: 2000, payment_intent: paid.id, paid: true, captured: true });
    expect(expanded.allocations).toEqual([expect.objectContaining({ amount: 2000, funding: 'credit', last4: '4242' })]);
    const charge = await stripe.charges.retrieve(expanded.id);
    expect(charge.id).toBe(expanded.id);
    expect(charge.amount_refunded).toBe(0);
    const listed = await stripe.charges.list({ payment_intent: paid.id });
    expect(listed.data.map((c) => c.id)).toEqual([expanded.id]);
    const seen: string[] = [];
    for await (const c of stripe.charges.list({ limit: 1 })) seen.push(c.id);
    expect(seen).toContain(expanded.id);
    await stripe.refunds.create({ payment_intent: paid.id, amount: 500 });
    expect((await stripe.charges.retrieve(expanded.id)).amount_refunded).toBe(500);
    const missing = (await stripe.charges.retrieve('ch_doesnotexist').catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect({ status: missing.statusCode, code: missing.code }).toEqual({ status: 404, code: 'resource_missing' });

    const error = (await stripe.paymentIntents.retrieve(paid.id, { expand: ['customer'] }).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.param).toBe('expand[0]');
    expect(error.message).toStartWith('This property cannot be expanded (customer): bpay expands only latest_charge');
  });

  test('a 404 names the id and param, as Stripe does', async () => {
    const error = (await stripe.paymentIntents.retrieve('pi_doesnotexist').catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect({ status: error.statusCode, code: error.code, param: error.param, message: error.message }).toEqual({
      status: 404,
      code: 'resource_missing',
      param: 'intent',
      message: "No such payment_intent: 'pi_doesnotexist'.",
    });
  });

  test('a publishable key: StripePermissionError with Stripe\'s wording', async () => {
    const withPk = new Stripe(merchant.publishableKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 0 });
    const error = await withPk.paymentIntents.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect((error as Error).message).toStartWith('This API call cannot be made with a publishable API key');
  });

  test('a bad amount is refused with the same error as the JSON API gives, naming the field', async () => {
    const error = await stripe.paymentIntents.create({ amount: 10, currency: 'usd' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const e = error as Stripe.errors.StripeInvalidRequestError;
    const json = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 10, currency: 'usd' } });
    expect(json.status).toBe(400);
    expect(e.statusCode).toBe(400);
    const raw = e.raw as { type?: string; code?: string; param?: string; message?: string };
    const { type, code, param, message } = json.body.error;
    expect({ type: raw.type, code: raw.code, param: raw.param, message: raw.message }).toEqual({ type, code, param, message });
    expect({ code: e.code, param: e.param, message: e.message }).toEqual({ code: 'validation_error', param: 'amount', message });
  });

  test('an amount with a fraction or letters is refused by name, not truncated', async () => {
    for (const amount of ['20.5', '20x']) {
      const res = await fetch(`${base}/v1/payment_intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `amount=${amount}&currency=usd`,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'validation_error', param: 'amount' });
    }
  });
});

describe('payment intent search through stripe-node', () => {
  // A merchant of its own, so the other tests' intents are not in its results.
  let searcher: Stripe;
  let paidOrder42: string[] = [];

  beforeAll(async () => {
    const owner = await registerUser(ctx);
    const shop = await createMerchant(ctx, owner.cookie, 'sandbox');
    searcher = new Stripe(shop.secretKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 0 });
    const pay = async (metadata: Record<string, string>) => {
      const made = await searcher.paymentIntents.create({ amount: 1500, currency: 'usd', metadata });
      const { card } = await testBcardCard(ctx, shop.secretKey, 1500);
      const paid = await searcher.paymentIntents.confirm(made.id, { payment_method_data: { type: 'card', card } } as unknown as Stripe.PaymentIntentConfirmParams);
      expect(paid.status).toBe('succeeded');
      return paid.id;
    };
    for (let i = 0; i < 5; i++) {
      paidOrder42.push(await pay({ order: '42' }));
      if (i === 1) await pay({ order: '43' }); // succeeded, another order
      if (i === 3) await searcher.paymentIntents.create({ amount: 1500, currency: 'usd', metadata: { order: '42' } }); // order 42, unpaid
    }
    paidOrder42 = paidOrder42.toReversed(); // newest first
  });

  test("search({ query: \"status:'succeeded' AND metadata['order']:'42'\" }) answers Stripe's search_result", async () => {
    const page = await searcher.paymentIntents.search({ query: "status:'succeeded' AND metadata['order']:'42'", limit: 2 });
    expect(page.object).toBe('search_result');
    expect(page.url).toBe('/v1/payment_intents/search');
    expect(page.data.map((p) => p.id)).toEqual(paidOrder42.slice(0, 2));
    expect(page.has_more).toBe(true);
    expect(page.next_page).toBeString();
    const next = await searcher.paymentIntents.search({ query: "status:'succeeded' AND metadata['order']:'42'", limit: 2, page: page.next_page! });
    expect(next.data.map((p) => p.id)).toEqual(paidOrder42.slice(2, 4));
  });

  test('autoPagingToArray and autoPagingEach walk every page (next_page) once, newest first', async () => {
    const query = "status:'succeeded' AND metadata['order']:'42'";
    const all = await searcher.paymentIntents.search({ query, limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((p) => p.id)).toEqual(paidOrder42);
    const seen: string[] = [];
    await searcher.paymentIntents.search({ query, limit: 2 }).autoPagingEach((p) => {
      seen.push(p.id);
    });
    expect(seen).toEqual(paidOrder42);
  });

  test('a query bpay cannot read is StripeInvalidRequestError naming query, saying where', async () => {
    const error = (await searcher.paymentIntents
      .search({ query: "status:'succeeded' OR metadata['order']:'42' AND amount>10" })
      .catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect({ status: error.statusCode, param: error.param }).toEqual({ status: 400, param: 'query' });
    expect(error.message).toContain('at character 46 ("AND"): AND and OR cannot be mixed');
  });
});

describe("Stripe's quickstart create and Customers through stripe-node", () => {
  test('create with automatic_payment_methods and confirm: true, a sandbox bcard as payment_method: succeeded in one call', async () => {
    const bcard = await testBcardCard(ctx, merchant.secretKey, 2000);
    // Stripe's quickstart, as written, with a sandbox test bcard where Stripe's docs put pm_card_visa.
    const intent = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      automatic_payment_methods: { enabled: true },
      confirm: true,
      payment_method: bcard.id,
      return_url: 'https://shop.example/done',
      receipt_email: 'jenny@example.com',
      statement_descriptor_suffix: 'ORDER 42',
    });
    expect(intent).toMatchObject({ status: 'succeeded', amount_received: 2000, payment_method: bcard.id, receipt_email: 'jenny@example.com', statement_descriptor_suffix: 'ORDER 42' });
    expect(intent.automatic_payment_methods).toEqual({ enabled: true } as Stripe.PaymentIntent.AutomaticPaymentMethods);
  });

  test('a declined create-and-confirm is a StripeCardError with decline_code, and the intent stays requires_payment_method', async () => {
    const bcard = await testBcardCard(ctx, merchant.secretKey, 1000);
    const error = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', confirm: true, payment_method: bcard.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    const e = error as Stripe.errors.StripeCardError;
    expect({ code: e.code, decline_code: e.decline_code, param: e.param }).toEqual({ code: 'card_declined', decline_code: 'insufficient_funds', param: 'payment_method' });
    const id = e.payment_intent?.id ?? '';
    expect((await stripe.paymentIntents.retrieve(id)).status).toBe('requires_payment_method');
  });

  test("payment_method_types other than card is refused by name; ['card'] is taken", async () => {
    // stripe-node 23's types no longer list payment_method_types on create; it still sends what it is given.
    const withTypes = (types: string[]) => ({ amount: 2000, currency: 'usd', payment_method_types: types }) as Stripe.PaymentIntentCreateParams;
    const error = (await stripe.paymentIntents.create(withTypes(['card', 'klarna'])).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.param).toBe('payment_method_types[1]');
    expect((await stripe.paymentIntents.create(withTypes(['card']))).payment_method_types).toEqual(['bcard']);
  });

  test('customers: create, retrieve, update, list (auto-paginated, by email), delete; an intent names one', async () => {
    const email = `cus-${crypto.randomUUID()}@example.com`;
    const made = await stripe.customers.create({ email, name: 'Jenny Rosen', metadata: { crm: '42' } });
    expect(made).toMatchObject({ object: 'customer', email, name: 'Jenny Rosen', metadata: { crm: '42' } });
    expect(made.id).toStartWith('cus_');
    expect((await stripe.customers.retrieve(made.id)) as Stripe.Customer).toMatchObject({ id: made.id, email });
    const updated = await stripe.customers.update(made.id, { phone: '+15555550123', metadata: { crm: '', tier: 'gold' } });
    expect(updated).toMatchObject({ phone: '+15555550123', metadata: { tier: 'gold' } });
    const second = await stripe.customers.create({ email });
    const seen: string[] = [];
    for await (const c of stripe.customers.list({ email, limit: 1 })) seen.push(c.id);
    expect(seen).toEqual([second.id, made.id]);

    const intent = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', customer: made.id });
    expect(intent.customer).toBe(made.id);

    const deleted = await stripe.customers.del(second.id);
    expect(deleted).toMatchObject({ id: second.id, object: 'customer', deleted: true });
    expect(await stripe.customers.retrieve(second.id)).toMatchObject({ id: second.id, deleted: true });
    const gone = (await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', customer: second.id }).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect({ status: gone.statusCode, param: gone.param }).toEqual({ status: 400, param: 'customer' });
  });

  test("another merchant's customer is a 404 through stripe-node", async () => {
    const other = await createMerchant(ctx, (await registerUser(ctx)).cookie, 'sandbox');
    const theirs = await new Stripe(other.secretKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 0 }).customers.create({ name: 'Theirs' });
    const error = (await stripe.customers.retrieve(theirs.id).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.statusCode).toBe(404);
  });

  test('a Stripe parameter bpay does not take says so, naming it', async () => {
    const error = (await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', setup_future_usage: 'off_session' }).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error.param).toBe('setup_future_usage');
    expect(error.message).toStartWith('setup_future_usage is not supported by bpay');
  });
});

describe('refunds through stripe-node', () => {
  /** An intent paid with a sandbox test bcard, all through stripe-node. */
  async function paidIntent(amount: number) {
    const made = await stripe.paymentIntents.create({ amount, currency: 'usd' });
    const paid = await stripe.paymentIntents.confirm(made.id, await cardData(amount));
    expect(paid.status).toBe('succeeded');
    return paid;
  }
  /** bpay's intent has amount_refunded (Stripe keeps it on the Charge, which bpay does not have). */
  const refundedOf = async (id: string) => ((await stripe.paymentIntents.retrieve(id)) as unknown as { amount_refunded: number }).amount_refunded;

  test('create a partial refund, then the rest with reason and metadata in bracket notation; retrieve', async () => {
    const pi = await paidIntent(2000);
    const part = await stripe.refunds.create({ payment_intent: pi.id, amount: 500 });
    expect(part).toMatchObject({ object: 'refund', amount: 500, currency: 'usd', status: 'succeeded', payment_intent: pi.id, reason: null });
    expect(part.id).toStartWith('re_');
    expect(part.lastResponse.requestId).toStartWith('req_');
    expect(await refundedOf(pi.id)).toBe(500);

    const rest = await stripe.refunds.create({ payment_intent: pi.id, reason: 'requested_by_customer', metadata: { order: '42', note: 'a b&c=d' } });
    expect(rest).toMatchObject({ amount: 1500, status: 'succeeded', reason: 'requested_by_customer', metadata: { order: '42', note: 'a b&c=d' } });
    expect(await refundedOf(pi.id)).toBe(2000);

    const got = await stripe.refunds.retrieve(part.id);
    expect({ ...got, lastResponse: undefined }).toEqual({ ...part, lastResponse: undefined });
  });

  test('list({ payment_intent }) auto-paginates over that intent only, newest first, each once', async () => {
    const pi = await paidIntent(1000);
    const other = await paidIntent(1000);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await stripe.refunds.create({ payment_intent: pi.id, amount: 100 })).id);
      if (i === 2) await stripe.refunds.create({ payment_intent: other.id, amount: 100 });
    }
    const seen: string[] = [];
    for await (const r of stripe.refunds.list({ payment_intent: pi.id, limit: 2 })) seen.push(r.id);
    expect(seen).toEqual(made.toReversed());
    const page = await stripe.refunds.list({ payment_intent: pi.id, limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
  });

  test('an Idempotency-Key replays the refund instead of refunding twice', async () => {
    const pi = await paidIntent(1000);
    const key = `refund-${crypto.randomUUID()}`;
    const first = await stripe.refunds.create({ payment_intent: pi.id, amount: 300 }, { idempotencyKey: key });
    const again = await stripe.refunds.create({ payment_intent: pi.id, amount: 300 }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(await refundedOf(pi.id)).toBe(300);
  });

  test('refunding more than is left is the JSON API error, naming amount; a refunded intent says so', async () => {
    const pi = await paidIntent(1000);
    await stripe.refunds.create({ payment_intent: pi.id, amount: 400 });
    const error = await stripe.refunds.create({ payment_intent: pi.id, amount: 601 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const e = error as Stripe.errors.StripeInvalidRequestError;
    const json = await merchantCall(ctx, merchant.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 601 } });
    expect(json.status).toBe(400);
    expect({ status: e.statusCode, code: e.code, param: e.param, message: e.message }).toEqual({
      status: 400,
      code: 'amount_too_large',
      param: 'amount',
      message: json.body.error.message,
    });
    expect(json.body.error.code).toBe('amount_too_large');
    expect(e.message).toBe('Refund amount ($6.01) is greater than the amount not yet refunded on this PaymentIntent ($6.00).');

    await stripe.refunds.create({ payment_intent: pi.id });
    const done = await stripe.refunds.create({ payment_intent: pi.id }).catch((x: unknown) => x);
    expect(done).toMatchObject({ statusCode: 400, code: 'charge_already_refunded', param: 'payment_intent' });
  });

  test('update by POST (stripe.refunds.update) merges metadata as Stripe does; nothing else changes', async () => {
    const pi = await paidIntent(1000);
    const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 300, metadata: { order: '42', note: 'x' } });
    const updated = await stripe.refunds.update(refund.id, { metadata: { note: '', ticket: 'T-7' } });
    expect({ ...updated, lastResponse: undefined }).toEqual({ ...refund, metadata: { order: '42', ticket: 'T-7' }, lastResponse: undefined });
    expect((await stripe.refunds.retrieve(refund.id)).metadata).toEqual({ order: '42', ticket: 'T-7' });
    expect((await stripe.refunds.update(refund.id, { metadata: '' })).metadata).toEqual({});
    const missing = (await stripe.refunds.update('re_doesnotexist', { metadata: { a: '1' } }).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect({ status: missing.statusCode, param: missing.param }).toEqual({ status: 404, param: 'id' });
    const unknown = (await stripe.refunds.update(refund.id, { amount: 5 } as Stripe.RefundUpdateParams).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect({ status: unknown.statusCode, param: unknown.param }).toEqual({ status: 400, param: 'amount' });
    expect((await stripe.refunds.retrieve(refund.id)).amount).toBe(300);
  });

  test('a fractional amount, an unknown reason or a field bpay does not take (charge) is refused by name', async () => {
    const pi = await paidIntent(1000);
    const post = (body: string) =>
      fetch(`${base}/v1/refunds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    for (const [body, param, code] of [
      [`payment_intent=${pi.id}&amount=2.5`, 'amount', 'validation_error'],
      [`payment_intent=${pi.id}&reason=changed_mind`, 'reason', 'validation_error'],
      // bpay has no Charge objects: Stripe's `charge` parameter is refused by name, not ignored.
      [`payment_intent=${pi.id}&charge=ch_123`, 'charge', 'parameter_unknown'],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code, param });
    }
    expect(await refundedOf(pi.id)).toBe(0);
  });
});

describe("Stripe's error codes and retry hints", () => {
  type Raw = { code?: string; param?: string; message?: string };
  const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable('it succeeded')).catch((e: unknown) => e as Stripe.errors.StripeError);

  test('resource_missing, parameter_unknown, parameter_missing and amount_too_large, each naming the parameter', async () => {
    const missing = await failure(stripe.refunds.retrieve('re_doesnotexist'));
    expect({ status: missing.statusCode, code: missing.code, param: missing.param }).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
    const endpointGone = await failure(stripe.webhookEndpoints.update('we_doesnotexist', { description: 'x' }));
    expect(endpointGone.code).toBe('resource_missing');

    const unknown = await failure(stripe.paymentIntents.create({ amount: 2000, currency: 'usd', colour: 'red' } as Stripe.PaymentIntentCreateParams));
    expect(unknown).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect({ status: unknown.statusCode, code: unknown.code, param: unknown.param, message: unknown.message }).toEqual({
      status: 400,
      code: 'parameter_unknown',
      param: 'colour',
      message: 'colour is not an allowed field.',
    });
    const absent = await failure(stripe.paymentIntents.create({ currency: 'usd' } as Stripe.PaymentIntentCreateParams));
    expect({ status: absent.statusCode, code: absent.code, param: absent.param }).toEqual({ status: 400, code: 'parameter_missing', param: 'amount' });
    // A value out of range is still bpay's validation_error (Stripe has no one name for it).
    expect((await failure(stripe.paymentIntents.create({ amount: 10, currency: 'usd' }))).code).toBe('validation_error');
  });

  test('the same requests at /api/v1 answer the same codes; the consumer API keeps bpay\'s own (resource_not_found)', async () => {
    const json = await merchantCall(ctx, merchant.secretKey, '/payment_intents/pi_doesnotexist');
    expect(json.body.error.code).toBe('resource_missing');
    const unknown = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2000, currency: 'usd', colour: 'red' } });
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    const owner = await registerUser(ctx);
    const consumer = await fetch(`${base}/api/transactions/col_doesnotexist`, { headers: { cookie: owner.cookie } });
    expect(consumer.status).toBe(404);
    expect(((await consumer.json()) as { error: Raw }).error.code).toBe('resource_not_found');
    expect(consumer.headers.get('stripe-should-retry')).toBeNull();
  });

  test('Stripe-Should-Retry: false on errors a retry answers the same (400, 402, 404), true with Retry-After on a rate limit', async () => {
    const auth = { authorization: `Bearer ${merchant.secretKey}` };
    const notFound = await fetch(`${base}/v1/payment_intents/pi_doesnotexist`, { headers: auth });
    expect([notFound.status, notFound.headers.get('stripe-should-retry')]).toEqual([404, 'false']);
    const bad = await fetch(`${base}/v1/payment_intents`, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'amount=10&currency=usd' });
    expect([bad.status, bad.headers.get('stripe-should-retry')]).toEqual([400, 'false']);
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const declined = await fetch(`${base}/v1/payment_intents/${made.id}/confirm`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payment_method_data[type]=card&payment_method_data[card][number]=4000000000000002&payment_method_data[card][exp_month]=12&payment_method_data[card][exp_year]=2099&payment_method_data[card][cvc]=123',
    });
    expect([declined.status, declined.headers.get('stripe-should-retry')]).toEqual([402, 'false']);

    resetRateWindows();
    clock.stop(); // the burst at one instant, however slow the machine
    const burst = await Promise.all(Array.from({ length: REQUESTS_PER_SECOND + 1 }, () => fetch(`${base}/v1/webhook_endpoints?limit=1`, { headers: auth })));
    clock.resume(0);
    const limited = burst.find((r) => r.status === 429)!;
    expect(limited).toBeDefined();
    expect(limited.headers.get('stripe-should-retry')).toBe('true');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  test('a request still running under the same Idempotency-Key (409) says retry, with Retry-After; a monthly quota says not', () => {
    const inUse = asMerchantApiError(new AppError('idempotency_key_in_use'));
    expect({ status: inUse.status, code: inUse.code, headers: inUse.headers }).toEqual({
      status: 409,
      code: 'idempotency_key_in_use',
      headers: { 'stripe-should-retry': 'true', 'retry-after': '1' },
    });
    const quota = asMerchantApiError(new AppError('monthly_quota_exceeded', undefined, undefined, { 'retry-after': '86400' }));
    expect(quota.headers).toEqual({ 'retry-after': '86400', 'stripe-should-retry': 'false' });
    expect(asMerchantApiError(new AppError('internal_error')).headers).toEqual({});
  });

  test('stripe-node (maxNetworkRetries: 2) retries a 429 by itself and succeeds; without the hint it would not', async () => {
    const retrying = new Stripe(merchant.secretKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 2 });
    resetRateWindows();
    // The merchant's 25 requests of this second, spent at one instant, half a second ago: stripe-node's first retry
    // waits at least 0.5 s (its initial network retry delay), so it comes after the window has passed.
    clock.stop();
    const burst = await Promise.all(Array.from({ length: REQUESTS_PER_SECOND }, () => fetch(`${base}/v1/webhook_endpoints?limit=1`, { headers: { authorization: `Bearer ${merchant.secretKey}` } })));
    expect(burst.every((r) => r.status === 200)).toBe(true);
    clock.resume(500);
    answers.length = 0;
    const intent = await retrying.paymentIntents.create({ amount: 2000, currency: 'usd', metadata: { retried: 'yes' } });
    expect(intent.metadata).toEqual({ retried: 'yes' });
    const creates = answers.filter((a) => a.method === 'POST' && a.path === '/v1/payment_intents');
    expect(creates[0]).toEqual({ method: 'POST', path: '/v1/payment_intents', status: 429, shouldRetry: 'true' });
    expect(creates.at(-1)!.status).toBe(200);
    // One intent made, although the library sent the create more than once (it adds an Idempotency-Key when it retries).
    expect((await stripe.paymentIntents.list({ limit: 100 })).data.filter((p) => p.metadata.retried === 'yes')).toHaveLength(1);
    // stripe-node 23.1.0 retries a 429 only when told to (RequestSender._shouldRetry, not in its public types): without
    // Stripe-Should-Retry it gives up at once.
    const senderPath = `${import.meta.dir}/../../node_modules/stripe/esm/RequestSender.js`;
    type Answer = { getHeaders: () => Record<string, string>; getStatusCode: () => number };
    const { RequestSender } = (await import(senderPath)) as { RequestSender: { _shouldRetry: (res: Answer, n: number, max: number) => boolean } };
    const answer = (headers: Record<string, string>, status: number): Answer => ({ getHeaders: () => headers, getStatusCode: () => status });
    expect(RequestSender._shouldRetry(answer({}, 429), 0, 2)).toBe(false);
    expect(RequestSender._shouldRetry(answer({ 'stripe-should-retry': 'true' }, 429), 0, 2)).toBe(true);
    // ...and retries every 409 unless told not to.
    expect(RequestSender._shouldRetry(answer({}, 409), 0, 2)).toBe(true);
    expect(RequestSender._shouldRetry(answer({ 'stripe-should-retry': 'false' }, 409), 0, 2)).toBe(false);
  });
});

describe('webhook endpoints and events through stripe-node', () => {
  test('create, list and delete a webhook endpoint (enabled_events sent as a list)', async () => {
    const endpoint = await stripe.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['payment_intent.succeeded', 'payment_intent.canceled'] });
    expect(endpoint.id).toBeTruthy();
    expect(endpoint.enabled_events).toEqual(['payment_intent.succeeded', 'payment_intent.canceled']);
    const listed = await stripe.webhookEndpoints.list();
    expect(listed.data.map((e) => e.id)).toContain(endpoint.id);
    const deleted = await stripe.webhookEndpoints.del(endpoint.id);
    expect(deleted).toMatchObject({ id: endpoint.id, deleted: true });
    expect((await stripe.webhookEndpoints.list()).data.map((e) => e.id)).not.toContain(endpoint.id);
  });

  test('update by POST, as stripe.webhookEndpoints.update sends it (the PATCH route answers the same)', async () => {
    const endpoint = await stripe.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['payment_intent.succeeded'] });
    const updated = await stripe.webhookEndpoints.update(endpoint.id, {
      enabled_events: ['payment_intent.succeeded', 'payment_intent.payment_failed'],
      description: 'Orders',
      disabled: true,
    });
    expect(updated).toMatchObject({ id: endpoint.id, enabled_events: ['payment_intent.succeeded', 'payment_intent.payment_failed'], description: 'Orders', status: 'disabled' });
    const enabled = await stripe.webhookEndpoints.update(endpoint.id, { disabled: false, url: 'http://127.0.0.1:9/other' });
    expect(enabled).toMatchObject({ status: 'enabled', url: 'http://127.0.0.1:9/other', description: 'Orders' });
    expect((await stripe.webhookEndpoints.retrieve(endpoint.id)).url).toBe('http://127.0.0.1:9/other');
    await stripe.webhookEndpoints.del(endpoint.id);
  });

  test('events list answers what happened to the intents', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    await stripe.paymentIntents.cancel(made.id);
    const events = await stripe.events.list({ limit: 100 });
    expect(events.data.length).toBeGreaterThan(0);
    const objectIds = events.data.map((e) => (e.data.object as { id?: string }).id);
    expect(objectIds).toContain(made.id);
  });
});

describe('webhook signatures and stripe-node', () => {
  // Bpay-Signature has Stripe-Signature's scheme (t=…,v1=HMAC-SHA256(whsec_…, "t.body")), so Stripe's verifier accepts
  // its value. Under Bun stripe-node uses Web Crypto: only the async form works (the sync one throws).
  const secret = `whsec_${'s'.repeat(32)}`;
  const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } });

  test("constructEventAsync verifies a Bpay-Signature header's value and refuses a tampered body", async () => {
    const header = signatureHeader(secret, payload, Math.floor(Date.now() / 1000));
    expect((await stripe.webhooks.constructEventAsync(payload, header, secret)).id).toBe('evt_1');
    const tampered = await stripe.webhooks.constructEventAsync(payload.replace('pi_1', 'pi_2'), header, secret).catch((e: unknown) => e);
    expect(tampered).toBeInstanceOf(Stripe.errors.StripeSignatureVerificationError);
  });
});

describe('webhook deliveries to a receiver written for Stripe', () => {
  /** A merchant's receiver on a real port: it keeps each request's raw body and headers, and answers 200. */
  function receiver() {
    const got: Array<{ body: string; headers: Headers }> = [];
    const srv = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (req) => (got.push({ body: await req.text(), headers: req.headers }), new Response('ok')) });
    return { got, url: `http://127.0.0.1:${srv.port}/hooks`, stop: () => srv.stop(true) };
  }
  /** Stripe's Node receiver as its docs write it, run by Node (stripe-node's Node build, whose constructEvent is synchronous). */
  function verifyWithNode(payload: string, header: string, secret: string): { id?: string; type?: string; error?: string } {
    const script =
      "const stripe = require('stripe')('sk_test_unused'); const { payload, header, secret } = JSON.parse(require('fs').readFileSync(0, 'utf8'));" +
      'try { const e = stripe.webhooks.constructEvent(payload, header, secret); console.log(JSON.stringify({ id: e.id, type: e.type })); }' +
      ' catch (e) { console.log(JSON.stringify({ error: e.type })); }';
    const run = Bun.spawnSync(['node', '-e', script], { cwd: import.meta.dir, stdin: Buffer.from(JSON.stringify({ payload, header, secret })) });
    return JSON.parse(run.stdout.toString());
  }

  test('every delivery carries Stripe-Signature (= Bpay-Signature), and stripe.webhooks.constructEvent verifies it unchanged', async () => {
    const hooks = receiver();
    try {
      const endpoint = await stripe.webhookEndpoints.create({ url: hooks.url, enabled_events: ['payment_intent.canceled'] });
      const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
      await stripe.paymentIntents.cancel(made.id);
      await deliverDueWebhooks(ctx.deps, { limit: 50 });
      expect(hooks.got).toHaveLength(1);
      const { body, headers } = hooks.got[0]!;
      const header = headers.get('stripe-signature')!;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(header).toBe(headers.get('bpay-signature')!);
      // Node: the receiver from Stripe's docs, unchanged; it also refuses a tampered body and another secret.
      expect(verifyWithNode(body, header, endpoint.secret!)).toMatchObject({ type: 'payment_intent.canceled' });
      expect(verifyWithNode(body.replace(made.id, 'pi_other'), header, endpoint.secret!)).toEqual({ error: 'StripeSignatureVerificationError' });
      expect(verifyWithNode(body, header, `whsec_${'x'.repeat(32)}`)).toEqual({ error: 'StripeSignatureVerificationError' });
      // Bun (and other Web Crypto runtimes): the async form.
      const event = await stripe.webhooks.constructEventAsync(body, header, endpoint.secret!);
      expect({ type: event.type, object: (event.data.object as { id: string }).id }).toEqual({ type: 'payment_intent.canceled', object: made.id });
      await stripe.webhookEndpoints.del(endpoint.id);
    } finally {
      hooks.stop();
    }
  });

  test("a failed payment is payment_intent.payment_failed (Stripe's name) and payment_intent.failed (bpay's): each endpoint gets the name it chose", async () => {
    const hooks = receiver();
    const bpayHooks = receiver();
    try {
      const stripeStyle = await stripe.webhookEndpoints.create({ url: hooks.url, enabled_events: ['payment_intent.payment_failed'] });
      const bpayStyle = await stripe.webhookEndpoints.create({ url: bpayHooks.url, enabled_events: ['payment_intent.failed' as Stripe.WebhookEndpointCreateParams.EnabledEvent] });
      const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
      const { card } = await testBcardCard(ctx, merchant.secretKey, 2000);
      const wrongCvc = { payment_method_data: { type: 'card', card: { ...card, cvc: card.cvc === '999' ? '998' : '999' } } } as unknown as Stripe.PaymentIntentConfirmParams;
      const declined = await stripe.paymentIntents.confirm(made.id, wrongCvc).catch((e: unknown) => e);
      expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
      await deliverDueWebhooks(ctx.deps, { limit: 50 });

      const [stripeEvent] = await Promise.all(hooks.got.map((g) => stripe.webhooks.constructEventAsync(g.body, g.headers.get('stripe-signature')!, stripeStyle.secret!)));
      expect(hooks.got).toHaveLength(1);
      expect(stripeEvent!.type).toBe('payment_intent.payment_failed');
      const pi = stripeEvent!.data.object as Stripe.PaymentIntent;
      expect({ id: pi.id, status: pi.status, error: pi.last_payment_error?.type }).toEqual({ id: made.id, status: 'requires_payment_method', error: 'card_error' });
      expect(bpayHooks.got.map((g) => (JSON.parse(g.body) as { type: string }).type)).toEqual(['payment_intent.failed']);

      // Both are events of their own (own ids, same object), listed and retrievable; the list filters by either name.
      const twins = (await stripe.events.list({ limit: 5 })).data.filter((e) => (e.data.object as { id?: string }).id === made.id && e.type.endsWith('failed'));
      expect(twins.map((e) => e.type as string)).toEqual(['payment_intent.payment_failed', 'payment_intent.failed']);
      expect(twins[0]!.data.object).toEqual(twins[1]!.data.object);
      expect((await stripe.events.list({ type: 'payment_intent.payment_failed' })).data[0]?.id).toBe(twins[0]!.id);
      await stripe.webhookEndpoints.del(stripeStyle.id);
      await stripe.webhookEndpoints.del(bpayStyle.id);
    } finally {
      hooks.stop();
      bpayHooks.stop();
    }
  });
});

describe('the /v1 prefix', () => {
  const headers = () => ({ authorization: `Bearer ${merchant.secretKey}` });

  test('answers the same as /api/v1 for the same request', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const a = await fetch(`${base}/v1/payment_intents/${made.id}`, { headers: headers() });
    const b = await fetch(`${base}/api/v1/payment_intents/${made.id}`, { headers: headers() });
    expect(a.status).toBe(200);
    expect(await a.json()).toEqual(await b.json());
    expect(a.headers.get('request-id')).toStartWith('req_');
  });

  test('an unknown /v1 path is a JSON 404, never the web app', async () => {
    for (const path of ['/v1/nothing_here', '/v1']) {
      const res = await fetch(`${base}${path}`, { headers: headers() });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    }
  });

  test('Stripe-Version is accepted and ignored', async () => {
    const res = await fetch(`${base}/v1/payment_intents?limit=1`, { headers: { ...headers(), 'stripe-version': '2020-08-27' } });
    expect(res.status).toBe(200);
  });

  test('form bodies are taken at /api/v1 too, and refused (415) on cookie routes', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const ok = await fetch(`${base}/api/v1/payment_intents`, { method: 'POST', headers: { ...headers(), ...form }, body: 'amount=2000&currency=usd&metadata[a]=1' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { metadata: unknown }).metadata).toEqual({ a: '1' });
    const cookie = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: form, body: 'email=a%40b.c&password=x' });
    expect(cookie.status).toBe(415);
  });

  test('a form body breaking the JSON limits gets the JSON error', async () => {
    const deep = 'metadata' + '[a]'.repeat(40);
    const res = await fetch(`${base}/v1/payment_intents`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: `amount=2000&currency=usd&${deep}=1`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('body_too_complex');
  });

  test('a form body over the merchant API limit (256 KB) is refused (413) as a JSON one is', async () => {
    const res = await fetch(`${base}/v1/payment_intents`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: `amount=2000&currency=usd&description=${'d'.repeat(300 * 1024)}`,
      keepalive: false,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  test('a malformed form key is refused by name', async () => {
    const res = await fetch(`${base}/v1/payment_intents`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=2000&currency=usd&metadata[a=1',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'validation_error', param: 'metadata[a' });
  });
});
