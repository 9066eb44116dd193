import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Bpay, BpayInvalidRequestError, type Charge, type ChargeAllocation } from './index';
import { newMerchantAccount, startLiveServer, type LiveServer } from '../test-support/live-server';

/*
 * charges.retrieve and charges.list (issue 28 §2): the requests they send and the answers they type, against an
 * injected fetch that answers as the Charges API's contract says (README, "Money").
 */

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const allocation = (over: Partial<ChargeAllocation> = {}): ChargeAllocation => ({
  amount: 1500,
  amount_refunded: 0,
  funding: 'credit',
  brand: 'visa',
  last4: '4242',
  status: 'succeeded',
  ...over,
});

const charge = (id: string, pi: string): Charge => ({
  id,
  object: 'charge',
  amount: 2500,
  amount_captured: 2500,
  amount_refunded: 0,
  currency: 'usd',
  created: 1_764_300_000,
  livemode: false,
  paid: true,
  captured: true,
  refunded: false,
  status: 'succeeded',
  payment_intent: pi,
  description: null,
  metadata: {},
  payment_method_details: { type: 'bcard', bcard: { last4: '0005' } },
  allocations: [allocation(), allocation({ amount: 1000, funding: 'bank_account', brand: null, last4: '6789', status: 'pending' })],
});

/** A client whose every request is recorded and answered by `answer`. */
function client(answer: (url: URL) => Response) {
  const seen: Request[] = [];
  const bpay = new Bpay('sk_test_x', {
    baseUrl: 'http://bpay.test',
    maxRetries: 0,
    fetch: async (req) => {
      seen.push(req);
      return answer(new URL(req.url));
    },
  });
  return { bpay, seen };
}

describe('charges', () => {
  test('retrieve: GET /api/v1/charges/{id} with the secret key; the allocations come back typed', async () => {
    const { bpay, seen } = client((url) => json(200, charge(url.pathname.split('/').pop()!, 'pi_1')));
    const ch = await bpay.charges.retrieve('ch_1');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('GET');
    expect(new URL(seen[0]!.url).pathname).toBe('/api/v1/charges/ch_1');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer sk_test_x');
    expect(ch.id).toBe('ch_1');
    const [card, bank] = ch.allocations;
    expect(card).toEqual(allocation());
    expect(bank).toMatchObject({ funding: 'bank_account', brand: null, last4: '6789', status: 'pending' });
    expect(ch.allocations.reduce((s, a) => s + a.amount, 0)).toBe(ch.amount);
  });

  test('list: payment_intent and the cursor go as query parameters; iterating walks the pages', async () => {
    const { bpay, seen } = client((url) =>
      url.searchParams.get('starting_after')
        ? json(200, { object: 'list', url: '/v1/charges', has_more: false, data: [charge('ch_b', 'pi_1')] })
        : json(200, { object: 'list', url: '/v1/charges', has_more: true, data: [charge('ch_a', 'pi_1')] }),
    );
    const all = await bpay.charges.list({ payment_intent: 'pi_1', limit: 1 }).toArray();
    expect(all.map((c) => c.id)).toEqual(['ch_a', 'ch_b']);
    const queries = seen.map((r) => Object.fromEntries(new URL(r.url).searchParams));
    expect(queries).toEqual([
      { payment_intent: 'pi_1', limit: '1' },
      { payment_intent: 'pi_1', limit: '1', starting_after: 'ch_a' },
    ]);
    expect(seen.every((r) => new URL(r.url).pathname === '/api/v1/charges')).toBe(true);
  });

  test("another merchant's charge: a typed 404 (resource_missing)", async () => {
    const { bpay } = client(() =>
      json(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such charge: ch_x', param: 'id' } }),
    );
    const refused = await bpay.charges.retrieve('ch_x').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BpayInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });
});

describe('charges against the real API', () => {
  let live: LiveServer;
  beforeAll(async () => {
    live = await startLiveServer();
  });
  afterAll(() => live.close());

  test("a split sandbox payment's charge, by id and by intent; a refund's split; another merchant's charge is a typed 404", async () => {
    const bpay = new Bpay((await newMerchantAccount(live.ctx)).secretKey, { baseUrl: live.baseUrl });
    const card = await bpay.testHelpers.bcards.create({
      amount: 3000,
      allocations: [
        { amount: 2000, source: 'tok_visa' },
        { amount: 1000, source: 'tok_visa_debit' },
      ],
    } as Parameters<typeof bpay.testHelpers.bcards.create>[0]);
    const pi = await bpay.paymentIntents.create({ amount: 3000, currency: 'usd' });
    await bpay.paymentIntents.confirm(pi.id, { payment_method: card.id });
    const [listed] = await bpay.charges.list({ payment_intent: pi.id }).toArray();
    expect(listed).toBeDefined();
    const ch = await bpay.charges.retrieve(listed!.id);
    expect(ch).toEqual(listed!);
    expect(ch).toMatchObject({ object: 'charge', payment_intent: pi.id, amount: 3000, amount_captured: 3000 });
    expect(ch.allocations.map((a) => [a.amount, a.funding, a.brand, a.last4, a.status])).toEqual([
      [2000, 'credit', 'visa', '4242', 'succeeded'],
      [1000, 'debit', 'visa', '5556', 'succeeded'],
    ]);

    const refund = await bpay.refunds.create({ payment_intent: pi.id, amount: 600 });
    const split = (refund as typeof refund & { allocations?: Array<{ amount: number; last4: string }> }).allocations;
    expect(split?.map((a) => [a.amount, a.last4])).toEqual([
      [400, '4242'],
      [200, '5556'],
    ]);
    expect((await bpay.charges.retrieve(ch.id)).allocations.map((a) => a.amount_refunded)).toEqual([400, 200]);

    const stranger = new Bpay((await newMerchantAccount(live.ctx)).secretKey, { baseUrl: live.baseUrl });
    const refused = await stranger.charges.retrieve(ch.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BpayInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });
});
